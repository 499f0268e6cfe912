/*
 * pq_schema_tree.c - the Parquet reader's view of a file's schema.
 *
 * Owns: the schema tree with definition/repetition levels, resolving the
 * requested columns (by field_id when the file has ids, else by name;
 * nested ROW fields recursively; LIST/MAP structures) into an assembly
 * plan per column, and the conversion each leaf's values need into the
 * requested Paimon type.  Reads no data: pq_reader.c calls it once per
 * file, after the footer.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

#define PQ_MAX_SCHEMA_DEPTH 64

/* ---- schema tree ---------------------------------------------------- */

bool
pq_build_nodes(pq_reader *r, int *idx, int parent, int depth, int def, int rep, ts_err *err)
{
	int			me = *idx;
	const pq_schema_elem *e = &r->meta.schema[me];
	pq_node    *n = &r->nodes[me];

	if (depth > PQ_MAX_SCHEMA_DEPTH)
		return ts_error(err, TS_ERR_CORRUPT, "schema nested too deeply");
	if (parent >= 0)
	{
		if (e->repetition == PQ_OPTIONAL)
			def++;
		else if (e->repetition == PQ_REPEATED)
		{
			def++;
			rep++;
		}
	}
	n->e = e;
	n->def = def;
	n->rep = rep;
	n->parent = parent;
	n->leaf = -1;
	(*idx)++;
	if (e->num_children < 0)
		return ts_error(err, TS_ERR_CORRUPT, "negative child count in schema");
	if (e->num_children > r->meta.nschema - *idx)
		return ts_error(err, TS_ERR_CORRUPT, "schema element has more children than the schema");
	if (e->num_children == 0 && parent >= 0)
	{
		if (e->type < PQ_BOOLEAN || e->type > PQ_FIXED)
			return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" has no valid physical type", e->name);
		n->leaf = r->nleaf_columns++;
		return true;
	}
	n->nchildren = e->num_children;
	n->first_child = r->nchild_used;
	if (e->num_children > r->meta.nschema - r->nchild_used)
		return ts_error(err, TS_ERR_CORRUPT, "schema has more children than elements");
	r->nchild_used += e->num_children;
	for (int i = 0; i < e->num_children; i++)
	{
		if (*idx >= r->meta.nschema)
			return ts_error(err, TS_ERR_CORRUPT, "schema ends inside a group");
		r->children[r->nodes[me].first_child + i] = *idx;
		if (!pq_build_nodes(r, idx, me, depth + 1, def, rep, err))
			return false;
	}
	return true;
}

static int
child_of(const pq_reader *r, int node, int i)
{
	return r->children[r->nodes[node].first_child + i];
}

/* ---- column resolution --------------------------------------------- */

int
pq_find_child(const pq_reader *r, int node, int32_t field_id, const char *name)
{
	const pq_node *n = &r->nodes[node];

	for (int i = 0; i < n->nchildren; i++)
	{
		int			c = child_of(r, node, i);
		const pq_schema_elem *e = r->nodes[c].e;

		if (r->has_ids && field_id >= 0)
		{
			if (e->has_field_id && e->field_id == field_id)
				return c;
		}
		else if (name && strcmp(e->name, name) == 0)
			return c;
	}
	return -1;
}

static const char *
phys_name(int t)
{
	static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT",
	"DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};

	return t >= 0 && t <= 7 ? names[t] : "group";
}

static bool
choose_conv(pq_reader *r, pq_leaf *l, const ts_type *t, ts_err *err)
{
	const pq_schema_elem *e = l->elem;
	int			ph = e->type;
	int			unit = PQ_UNIT_NONE;
	bool		ok = false;

	l->conv = PQ_CONV_NONE;
	switch (t->kind)
	{
		case TS_BOOLEAN:
			ok = ph == PQ_BOOLEAN;
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			ok = ph == PQ_INT32 || ph == PQ_INT64;
			if (ph == PQ_INT32 && is_unsigned(e))
				l->conv = PQ_CONV_U32;
			break;
		case TS_FLOAT:
			ok = ph == PQ_FLOAT;
			break;
		case TS_DOUBLE:
			ok = ph == PQ_DOUBLE || ph == PQ_FLOAT;
			if (ph == PQ_FLOAT)
				l->conv = PQ_CONV_F2D;
			break;
		case TS_DECIMAL:
			{
				int			fscale = -1;

				if (e->logical == PQ_LT_DECIMAL)
					fscale = e->lt_scale;
				else if (e->converted_type == PQ_CT_DECIMAL)
					fscale = e->scale;
				if (fscale >= 0 && fscale != t->scale)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"Parquet file \"%s\": column \"%s\" has decimal scale %d, expected %d",
									r->path, l->path, fscale, t->scale);
				ok = ph == PQ_INT32 || ph == PQ_INT64 || ph == PQ_FIXED || ph == PQ_BYTE_ARRAY;
				l->conv = (ph == PQ_INT32 || ph == PQ_INT64) ? PQ_CONV_DEC_INT : PQ_CONV_DEC_BYTES;
				break;
			}
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			ok = ph == PQ_BYTE_ARRAY || ph == PQ_FIXED;
			break;
		case TS_DATE:
			ok = ph == PQ_INT32;
			break;
		case TS_TIME:
			if (e->logical == PQ_LT_TIME)
				unit = e->lt_unit;
			else if (e->converted_type == PQ_CT_TIME_MICROS)
				unit = PQ_UNIT_MICROS;
			ok = ph == PQ_INT32 || ph == PQ_INT64;
			if (ph == PQ_INT64)
				l->conv = unit == PQ_UNIT_NANOS ? PQ_CONV_TIME_NANOS :
					unit == PQ_UNIT_MILLIS ? PQ_CONV_NONE : PQ_CONV_TIME_MICROS;
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (e->logical == PQ_LT_TIMESTAMP)
				unit = e->lt_unit;
			else if (e->converted_type == PQ_CT_TIMESTAMP_MILLIS)
				unit = PQ_UNIT_MILLIS;
			else if (e->converted_type == PQ_CT_TIMESTAMP_MICROS)
				unit = PQ_UNIT_MICROS;
			else
				unit = t->precision <= 3 ? PQ_UNIT_MILLIS :
					t->precision <= 6 ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
			if (ph == PQ_INT64)
			{
				ok = true;
				l->conv = unit == PQ_UNIT_MILLIS ? PQ_CONV_TS_MILLIS :
					unit == PQ_UNIT_MICROS ? PQ_CONV_TS_MICROS : PQ_CONV_TS_NANOS;
			}
			else if (ph == PQ_INT96)
			{
				ok = true;
				l->conv = PQ_CONV_TS_INT96;
			}
			break;
		default:
			break;
	}
	if (ph == PQ_FIXED && e->type_length <= 0)
		return ts_error(err, TS_ERR_CORRUPT, "Parquet file \"%s\": column \"%s\" has invalid fixed length %d",
						r->path, l->path, e->type_length);
	if (!ok)
	{
		char	   *ts = ts_type_to_string(t);
		bool		res = ts_error(err, TS_ERR_UNSUPPORTED,
								   "Parquet file \"%s\": column \"%s\" of physical type %s cannot be read as %s",
								   r->path, l->path, phys_name(ph), ts ? ts : ts_type_kind_name(t->kind));

		ts_free(ts);
		return res;
	}
	return true;
}

static bool
add_leaf(pq_reader *r, pq_asm *a, int node, const ts_type *t, const char *path, ts_err *err)
{
	const pq_node *n = &r->nodes[node];
	pq_leaf    *l;

	if (n->leaf < 0)
		return ts_error(err, TS_ERR_UNSUPPORTED, "Parquet file \"%s\": column \"%s\" is a group, expected %s",
						r->path, path, ts_type_kind_name(t->kind));
	if (r->nleaves == r->cap_leaves)
	{
		int			nc = r->cap_leaves ? r->cap_leaves * 2 : 8;
		pq_leaf   **nl = ts_realloc(r->leaves, sizeof(pq_leaf *) * nc);

		if (!nl)
			return ts_error_nomem(err, NULL);
		r->leaves = nl;
		r->cap_leaves = nc;
	}
	l = pq_leaf_new(r->set.buffers);
	if (!l)
		return ts_error_nomem(err, NULL);
	r->leaves[r->nleaves++] = l;
	l->path = ts_strdup(path);
	if (!l->path)
		return ts_error_nomem(err, NULL);
	l->file = r->path;
	l->zstd_ctx = &r->zstd_ctx;
	l->ahead_rg = -1;			/* no chunk read ahead */
	l->elem = n->e;
	l->column_index = n->leaf;
	l->phys = n->e->type;
	l->type_length = n->e->type_length;
	l->max_def = n->def;
	l->max_rep = n->rep;
	l->type = t;
	a->kind = PQ_A_LEAF;
	a->def = n->def;
	return choose_conv(r, l, t, err);
}

static bool
is_list_group(const pq_schema_elem *e)
{
	return e->logical == PQ_LT_LIST || e->converted_type == PQ_CT_LIST;
}

static bool
build_repeated(pq_reader *r, pq_asm *a, int node, const ts_type *t, const char *path,
			   int depth, ts_err *err)
{
	const pq_node *n = &r->nodes[node];
	int			rnode;
	bool		is_map = t->kind == TS_MAP || t->kind == TS_MULTISET;
	char	   *sub = NULL;
	bool		ok;

	if (n->e->repetition == PQ_REPEATED && n->leaf < 0 && !is_list_group(n->e) && !is_map)
	{
		/* an unannotated repeated group used as the list itself */
		rnode = node;
	}
	else if (n->e->repetition == PQ_REPEATED && n->leaf >= 0)
		rnode = node;
	else
	{
		if (n->leaf >= 0 || n->nchildren != 1 ||
			r->nodes[child_of(r, node, 0)].e->repetition != PQ_REPEATED)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"Parquet file \"%s\": column \"%s\" is not a LIST/MAP group as %s needs",
							r->path, path, ts_type_kind_name(t->kind));
		rnode = child_of(r, node, 0);
	}
	a->kind = is_map ? PQ_A_MAP : PQ_A_LIST;
	a->multiset = t->kind == TS_MULTISET;
	a->def = rnode == node ? r->nodes[node].def - 1 : n->def;
	a->rep_def = r->nodes[rnode].def;
	a->rep = r->nodes[rnode].rep;
	a->leaf_lo = r->nleaves;
	if (!is_map)
	{
		const pq_node *rn = &r->nodes[rnode];
		int			enode = rnode;

		if (rn->leaf < 0 && rn->nchildren == 1 && rnode != node &&
			strcmp(rn->e->name, "array") != 0)
		{
			char		tuple[1024];

			snprintf(tuple, sizeof(tuple), "%s_tuple", n->e->name);
			if (strcmp(rn->e->name, tuple) != 0)
				enode = child_of(r, rnode, 0);
		}
		a->nchildren = 1;
		a->children = ts_calloc(1, sizeof(pq_asm));
		sub = ts_psprintf("%s.element", path);
		if (!a->children || !sub)
		{
			ts_free(sub);
			return ts_error_nomem(err, NULL);
		}
		/* (2-level lists: the repeated node is the element, never null itself) */
		ok = pq_build_asm(r, &a->children[0], enode, t->element, sub, depth + 1, err);
		ts_free(sub);
		if (!ok)
			return false;
	}
	else
	{
		const pq_node *kv = &r->nodes[rnode];
		const ts_type *kt = t->kind == TS_MAP ? t->key : t->element;
		const ts_type *vt = t->kind == TS_MAP ? t->value : NULL;
		ts_type		count_type;

		memset(&count_type, 0, sizeof(count_type));
		if (kv->leaf >= 0 || kv->nchildren < 1 || kv->nchildren > 2)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"Parquet file \"%s\": column \"%s\" is not a key/value MAP group",
							r->path, path);
		a->nchildren = 2;
		a->children = ts_calloc(2, sizeof(pq_asm));
		if (!a->children)
			return ts_error_nomem(err, NULL);
		sub = ts_psprintf("%s.key", path);
		if (!sub)
			return ts_error_nomem(err, NULL);
		ok = pq_build_asm(r, &a->children[0], child_of(r, rnode, 0), kt, sub, depth + 1, err);
		ts_free(sub);
		if (!ok)
			return false;
		if (kv->nchildren == 2)
		{
			if (!vt)
			{
				/* MULTISET: the value is the INT count */
				static ts_type int_type = {TS_INT, true};

				vt = &int_type;
			}
			sub = ts_psprintf("%s.value", path);
			if (!sub)
				return ts_error_nomem(err, NULL);
			ok = pq_build_asm(r, &a->children[1], child_of(r, rnode, 1), vt, sub, depth + 1, err);
			ts_free(sub);
			if (!ok)
				return false;
		}
		else
			a->children[1].kind = PQ_A_MISSING;
	}
	a->leaf_hi = r->nleaves;
	return true;
}

bool
pq_build_asm(pq_reader *r, pq_asm *a, int node, const ts_type *t, const char *path,
		  int depth, ts_err *err)
{
	a->type = t;
	a->leaf_lo = a->leaf_hi = r->nleaves;
	if (depth > PQ_MAX_SCHEMA_DEPTH)
		return ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\" nested too deeply", path);
	if (node < 0)
	{
		a->kind = PQ_A_MISSING;
		return true;
	}
	switch (t->kind)
	{
		case TS_ROW:
			{
				const pq_node *n = &r->nodes[node];

				if (n->leaf >= 0)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"Parquet file \"%s\": column \"%s\" is not a group as ROW needs",
									r->path, path);
				a->kind = PQ_A_ROW;
				a->def = n->def;
				a->nchildren = t->nfields;
				a->children = ts_calloc(t->nfields ? t->nfields : 1, sizeof(pq_asm));
				if (!a->children)
					return ts_error_nomem(err, NULL);
				for (int i = 0; i < t->nfields; i++)
				{
					const ts_field *f = &t->fields[i];
					int			c = pq_find_child(r, node, f->id, f->name);
					char	   *sub = ts_psprintf("%s.%s", path, f->name ? f->name : "?");
					bool		ok;

					if (!sub)
						return ts_error_nomem(err, NULL);
					ok = pq_build_asm(r, &a->children[i], c, f->type, sub, depth + 1, err);
					ts_free(sub);
					if (!ok)
						return false;
				}
				a->leaf_hi = r->nleaves;
				return true;
			}
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_MAP:
			return build_repeated(r, a, node, t, path, depth, err);
		default:
			if (!add_leaf(r, a, node, t, path, err))
				return false;
			a->leaf_hi = r->nleaves;
			return true;
	}
}

void
pq_free_asm(pq_asm *a)
{
	for (int i = 0; i < a->nchildren; i++)
		pq_free_asm(&a->children[i]);
	ts_free(a->children);
}

