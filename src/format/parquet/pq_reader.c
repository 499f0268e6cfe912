/*
 * pq_reader.c - ts_parquet_open(): the native Parquet reader.
 *
 * Owns: reading and checking the footer, building the schema tree with
 * definition/repetition levels, resolving the requested columns (by
 * field_id when the file has ids, else by name; nested ROW fields
 * recursively; LIST/MAP structures), row-group selection through the
 * caller's statistics filter, reading only the projected column chunks
 * (those of the next row group ahead, once the current one is under way,
 * when background decompression is on or the file is on an object store:
 * there the ranged GETs are started and waited for only when the reader
 * gets to that row group; pq_ahead.c), and assembling rows (flat columns decoded straight into the batch by
 * pq_flat.c, nested ARRAY/MAP/ROW values from levels) into batches of
 * ts_value.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/pq_internal.h"

#define PQ_MAX_SCHEMA_DEPTH 64
#define PQ_MAX_FOOTER ((int64_t) 64 << 20)
#define PQ_MAX_MULTISET 10000000	/* elements of one multiset value */

typedef struct pq_node
{
	const pq_schema_elem *e;
	int			first_child;	/* index into pq_reader.children */
	int			nchildren;
	int			def;			/* definition level of this node */
	int			rep;			/* repetition level of this node */
	int			leaf;			/* column chunk index, -1 for groups */
	int			parent;
} pq_node;

typedef enum pq_asm_kind
{
	PQ_A_MISSING,
	PQ_A_LEAF,
	PQ_A_ROW,
	PQ_A_LIST,
	PQ_A_MAP
} pq_asm_kind;

typedef struct pq_asm pq_asm;
struct pq_asm
{
	pq_asm_kind kind;
	const ts_type *type;
	int			def;			/* value is non-null when leaf def >= def */
	int			rep_def;		/* LIST/MAP: an entry exists when def >= rep_def */
	int			rep;			/* LIST/MAP: repetition level of the entries */
	int			leaf_lo,
				leaf_hi;		/* leaves of this subtree: [lo, hi) */
	bool		multiset;
	int			nchildren;
	pq_asm	   *children;		/* ROW fields; LIST element; MAP key, value */
};

typedef struct pq_reader
{
	ts_format_reader base;
	char	   *path;
	ts_file    *file;
	int64_t		file_size;
	uint8_t    *footer;
	pq_file_meta meta;
	pq_node    *nodes;
	int		   *children;
	int			nchild_used;
	int			nleaf_columns;
	bool		has_ids;

	const ts_read_column *cols;
	int			ncols;
	pq_asm	   *asms;
	pq_leaf   **leaves;
	int			nleaves;
	int			cap_leaves;

	ts_reader_settings set;		/* what the options say (format.c) */
	void	   *zstd_ctx;		/* decompression context shared by the leaves */
	ts_column_stats *stats;
	ts_value   *values;
	ts_arena	arena;
	ts_value   *stack;
	size_t		stack_len,
				stack_cap;

	int			next_rg;
	int			cur_rg;
	int64_t		rows_left;
	int64_t		rg_first_row;	/* file position of the current row group's first row */
	int			pos_rg;			/* first_row_of's cache: row group pos_rg starts */
	int64_t		pos_first;		/* at row pos_first */
	bool		done;
	bool		ahead_due;		/* read the next row group ahead at the next batch */
	bool		picked;			/* picked_rg is the next row group (-1 = none) */
	int			picked_rg;

	/*
	 * Row group picked_rg's chunks read ahead (up to 64 leaves): started,
	 * not waited for (on an object store), its pages queued once in.
	 */
	ts_file_reads *ahead_reads;
	int			ahead_n;
	int			ahead_leaf[64];
	int64_t		ahead_len[64];
	const pq_column_chunk *ahead_cc[64];
} pq_reader;

/* ---- schema tree ---------------------------------------------------- */

static bool
build_nodes(pq_reader *r, int *idx, int parent, int depth, int def, int rep, ts_err *err)
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
		if (!build_nodes(r, idx, me, depth + 1, def, rep, err))
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

static int
find_child(const pq_reader *r, int node, int32_t field_id, const char *name)
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

static bool
is_unsigned(const pq_schema_elem *e)
{
	if (e->logical == PQ_LT_INTEGER)
		return !e->lt_signed;
	return e->converted_type >= PQ_CT_UINT_8 && e->converted_type <= PQ_CT_UINT_64;
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
	l = ts_calloc(1, sizeof(pq_leaf));
	if (!l)
		return ts_error_nomem(err, NULL);
	r->leaves[r->nleaves++] = l;
	l->path = ts_strdup(path);
	if (!l->path)
		return ts_error_nomem(err, NULL);
	l->file = r->path;
	l->shared = r->set.buffers;
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

static bool build_asm(pq_reader *r, pq_asm *a, int node, const ts_type *t,
					  const char *path, int depth, ts_err *err);

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
		ok = build_asm(r, &a->children[0], enode, t->element, sub, depth + 1, err);
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
		ok = build_asm(r, &a->children[0], child_of(r, rnode, 0), kt, sub, depth + 1, err);
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
			ok = build_asm(r, &a->children[1], child_of(r, rnode, 1), vt, sub, depth + 1, err);
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

static bool
build_asm(pq_reader *r, pq_asm *a, int node, const ts_type *t, const char *path,
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
					int			c = find_child(r, node, f->id, f->name);
					char	   *sub = ts_psprintf("%s.%s", path, f->name ? f->name : "?");
					bool		ok;

					if (!sub)
						return ts_error_nomem(err, NULL);
					ok = build_asm(r, &a->children[i], c, f->type, sub, depth + 1, err);
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

static void
free_asm(pq_asm *a)
{
	for (int i = 0; i < a->nchildren; i++)
		free_asm(&a->children[i]);
	ts_free(a->children);
}

/* ---- reader lifecycle ---------------------------------------------- */

static void
pq_close(ts_format_reader *base)
{
	pq_reader  *r = (pq_reader *) base;

	if (!r)
		return;
	ts_file_pread_many_cancel(r->ahead_reads);	/* before the buffers go */
	r->ahead_reads = NULL;
	for (int i = 0; i < r->nleaves; i++)
	{
		ts_free((char *) r->leaves[i]->path);
		pq_leaf_free(r->leaves[i]);
	}
	ts_free(r->leaves);
	pq_codec_ctx_free(r->zstd_ctx);
	if (r->asms)
		for (int i = 0; i < r->ncols; i++)
			free_asm(&r->asms[i]);
	ts_free(r->asms);
	ts_free(r->nodes);
	ts_free(r->children);
	pq_free_file_meta(&r->meta);
	ts_free(r->footer);
	ts_free(r->values);
	ts_free(r->stats);
	ts_free(r->stack);
	ts_arena_free(&r->arena);
	ts_file_close(r->file);
	ts_free(r->path);
	ts_free(r);
}

/* ---- statistics ----------------------------------------------------- */

static bool
legacy_stats_ok(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_BOOLEAN:
		case PQ_INT32:
		case PQ_INT64:
		case PQ_FLOAT:
		case PQ_DOUBLE:
			return !is_unsigned(l->elem);
		default:
			return false;
	}
}

static bool
value_is_nan(const pq_leaf *l, const ts_value *v)
{
	if (l->type->kind == TS_FLOAT)
		return v->v.f != v->v.f;
	if (l->type->kind == TS_DOUBLE)
		return v->v.d != v->v.d;
	return false;
}

static void
decode_stats(pq_reader *r, const pq_row_group *rg, int col, ts_column_stats *st)
{
	const pq_asm *a = &r->asms[col];
	const pq_leaf *l;
	const pq_stats *s;
	ts_err		e;

	memset(st, 0, sizeof(*st));
	st->null_count = -1;
	st->row_count = rg->num_rows;
	if (a->kind == PQ_A_MISSING)
	{
		st->null_count = rg->num_rows;
		return;
	}
	if (a->kind != PQ_A_LEAF)
		return;
	l = r->leaves[a->leaf_lo];
	if (l->max_rep > 0 || l->column_index >= rg->ncolumns)
		return;
	s = &rg->columns[l->column_index].stats;
	if (!s->present)
		return;
	st->null_count = s->null_count;
	if (l->phys == PQ_INT96)
		return;
	if (s->has_min_value && s->has_max_value)
	{
		if (!pq_decode_plain_one(l, s->min_value, s->min_value_len, &st->min, &e) ||
			!pq_decode_plain_one(l, s->max_value, s->max_value_len, &st->max, &e))
			return;
	}
	else if (s->has_min && s->has_max && legacy_stats_ok(l))
	{
		if (!pq_decode_plain_one(l, s->min, s->min_len, &st->min, &e) ||
			!pq_decode_plain_one(l, s->max, s->max_len, &st->max, &e))
			return;
	}
	else
		return;
	if (value_is_nan(l, &st->min) || value_is_nan(l, &st->max))
		return;
	st->has_min_max = true;
}

/* ---- row groups ----------------------------------------------------- */

/* Where leaf l's column chunk lies in row group rg: *cc, *start, *len. */
static bool
chunk_extent(const pq_reader *r, const pq_row_group *rg, const pq_leaf *l,
			 const pq_column_chunk **ccp, int64_t *start, int64_t *len, ts_err *err)
{
	const pq_column_chunk *cc;

	if (l->column_index >= rg->ncolumns)
		return ts_error(err, TS_ERR_CORRUPT, "row group has %d columns, column \"%s\" is number %d",
						rg->ncolumns, l->path, l->column_index + 1);
	cc = &rg->columns[l->column_index];
	if (!cc->has_meta)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" has no column metadata", l->path);
	if (cc->external)
		return ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\" is stored in another file", l->path);
	if (cc->type != l->phys)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" chunk type %d differs from its schema type %d",
						l->path, cc->type, l->phys);
	*start = cc->data_page_offset;
	if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < *start)
		*start = cc->dictionary_page_offset;
	*len = cc->total_compressed_size;
	if (*start < 4 || *len < 0 || cc->num_values < 0 ||
		*len > r->file_size - 4 || *start > r->file_size - 4 - *len)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" chunk lies outside the file", l->path);
	*ccp = cc;
	return true;
}

/*
 * The chunks read ahead (ahead_reads), once in: queue their first pages
 * (pq_ahead.c).  Only when they are in already, unless wait: then
 * waiting for them (the reader has come to their row group).  Reads that
 * failed leave their chunks to be read again in place, which reports why.
 */
static void
finish_ahead(pq_reader *r, bool wait)
{
	ts_err		err;
	bool		ok;

	if (r->ahead_reads == NULL || (!wait && !ts_file_pread_many_ready(r->ahead_reads)))
		return;
	ok = ts_file_pread_many_finish(r->ahead_reads, &err);
	r->ahead_reads = NULL;
	for (int k = 0; k < r->ahead_n; k++)
	{
		if (ok)
			pq_ahead_queue(r->leaves[r->ahead_leaf[k]], r->picked_rg, r->ahead_len[k], r->ahead_cc[k]);
		else
			pq_ahead_cancel(r->leaves[r->ahead_leaf[k]]);
	}
	r->ahead_n = 0;
}

/*
 * Read the chunks of row group rgi that were not read ahead: all at once
 * (ts_file_pread_many: on an object store coalesced and concurrent), then
 * start every leaf on its chunk.
 */
static bool
load_row_group(pq_reader *r, int rgi, ts_err *err)
{
	const pq_row_group *rg = &r->meta.row_groups[rgi];
	const pq_column_chunk *ccs[64];
	int64_t		lens[64];
	ts_range	ranges[64];
	const pq_column_chunk **cc = ccs;
	int64_t    *len = lens;
	ts_range   *rng = ranges;
	int			nr = 0;
	bool		ok = false;

	finish_ahead(r, true);
	if (r->nleaves > 64)
	{
		cc = ts_malloc(sizeof(*cc) * (size_t) r->nleaves);
		len = ts_malloc(sizeof(*len) * (size_t) r->nleaves);
		rng = ts_malloc(sizeof(*rng) * (size_t) r->nleaves);
		if (cc == NULL || len == NULL || rng == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
	}
	for (int i = 0; i < r->nleaves; i++)
	{
		pq_leaf    *l = r->leaves[i];
		int64_t		start;

		pq_leaf_end_chunk(l);
		if (!chunk_extent(r, rg, l, &cc[i], &start, &len[i], err))
			goto done;
		if (!pq_ahead_take_chunk(l, rgi))
		{
			uint8_t    *buf = pq_leaf_chunk_buffer(l, (size_t) len[i], err);

			if (!buf)
				goto done;
			rng[nr].offset = start;
			rng[nr].len = (size_t) len[i];
			rng[nr].buf = buf;
			nr++;
		}
	}
	if (!ts_file_pread_many(r->file, rng, nr, err))
		goto done;
	for (int i = 0; i < r->nleaves; i++)
	{
		r->base.metrics.bytes_read += len[i];
		if (!pq_leaf_start(r->leaves[i], (size_t) len[i], cc[i], err))
			goto done;
	}
	ok = true;
done:
	if (cc != ccs)
	{
		ts_free((void *) cc);
		ts_free(len);
		ts_free(rng);
	}
	return ok;
}

/*
 * Does the row group start in the reader's byte range?  Its start is where
 * its first column chunk starts (dictionary page, else first data page), so
 * ranges that cover the file take each row group exactly once.
 */
static bool
in_range(const pq_reader *r, const pq_row_group *rg)
{
	int64_t		start = rg->ncolumns > 0 ? INT64_MAX : 0;

	if (r->set.range_end <= 0)
		return true;
	for (int c = 0; c < rg->ncolumns; c++)
	{
		const pq_column_chunk *cc = &rg->columns[c];
		int64_t		o = cc->data_page_offset;

		if (cc->dictionary_page_offset >= 0 && cc->dictionary_page_offset < o)
			o = cc->dictionary_page_offset;
		if (o < start)
			start = o;
	}
	return start >= r->set.range_start && start < r->set.range_end;
}

/*
 * File position of row group rgi's first row (negative row counts, an
 * error when read, count 0).  Row groups are asked for in order: the sum
 * goes on from the last one asked.
 */
static int64_t
first_row_of(pq_reader *r, int rgi)
{
	if (rgi < r->pos_rg)
		r->pos_rg = 0, r->pos_first = 0;
	for (; r->pos_rg < rgi; r->pos_rg++)
		if (r->meta.row_groups[r->pos_rg].num_rows > 0)
			r->pos_first += r->meta.row_groups[r->pos_rg].num_rows;
	return r->pos_first;
}

/*
 * The next row group to read, past those left out (empty, outside the
 * range, refused by the statistics filter); -1 when there is none.  One
 * with a negative row count is taken: reading it reports the error.
 */
static int
pick_row_group(pq_reader *r)
{
	if (r->picked)
	{
		r->picked = false;
		return r->picked_rg;
	}
	while (r->next_rg < r->meta.nrow_groups)
	{
		int			rgi = r->next_rg++;
		const pq_row_group *rg = &r->meta.row_groups[rgi];

		if (rg->num_rows < 0)
			return rgi;
		if (rg->num_rows == 0 || !in_range(r, rg))
			continue;
		if (r->set.rows_filter &&
			!r->set.rows_filter(r->set.rows_filter_arg, first_row_of(r, rgi), rg->num_rows))
			continue;
		if (r->set.stats_filter)
		{
			for (int c = 0; c < r->ncols; c++)
				decode_stats(r, rg, c, &r->stats[c]);
			if (!r->set.stats_filter(r->set.stats_filter_arg, r->stats, r->ncols))
				continue;
		}
		return rgi;
	}
	return -1;
}

/* advance to the next row group that passes the filter; false on error */
static bool
next_row_group(pq_reader *r, ts_err *err)
{
	int			rgi = pick_row_group(r);
	const pq_row_group *rg;

	if (rgi < 0)
	{
		r->done = true;
		return true;
	}
	rg = &r->meta.row_groups[rgi];
	if (rg->num_rows < 0)
		return ts_error(err, TS_ERR_CORRUPT, "Parquet file \"%s\" row group %d: negative row count",
						r->path, rgi);
	/*
	 * Every row has a value (or a NULL, or an empty list's entry) in every
	 * column chunk: a row count the chunks do not hold is damage, and
	 * believing it would hand out rows of NULLs without end.
	 */
	if (rg->ncolumns == 0 && rg->num_rows > 0)
		return ts_error(err, TS_ERR_CORRUPT,
						"Parquet file \"%s\" row group %d: %lld rows but no column chunk",
						r->path, rgi, (long long) rg->num_rows);
	for (int c = 0; c < rg->ncolumns; c++)
		if (rg->columns[c].has_meta && rg->columns[c].num_values < rg->num_rows)
			return ts_error(err, TS_ERR_CORRUPT,
							"Parquet file \"%s\" row group %d: %lld rows but column chunk %d holds %lld values",
							r->path, rgi, (long long) rg->num_rows, c,
							(long long) rg->columns[c].num_values);
	r->base.metrics.row_groups_kept++;
	if (!load_row_group(r, rgi, err))
		return ts_error_context(err, "Parquet file \"%s\" row group %d", r->path, rgi);
	r->cur_rg = rgi;
	r->base.part_name = "row group";
	r->base.part = rgi;
	r->rows_left = rg->num_rows;
	r->rg_first_row = first_row_of(r, rgi);
	r->ahead_due = true;
	return true;
}

/*
 * Read the row group after the current one ahead, once the first batch of
 * the current one is out (values of the batch before, which may still
 * point into the chunk buffers read into here, are dead by then): on an
 * object store its ranged GETs are started and not waited for (they move
 * on at each batch, ts_s3_drive), so they overlap the decoding of the
 * current row group; its first pages are queued for the helper thread
 * (pq_ahead.c) when they are in (finish_ahead).  Memory: one row group
 * ahead at most.
 */
static void
read_ahead(pq_reader *r)
{
	const pq_row_group *rg;
	ts_err		err;
	ts_range	ranges[64];
	bool		remote = ts_file_is_remote(r->file);
	int			nr = 0;

	r->ahead_due = false;
	finish_ahead(r, true);		/* (none left: load_row_group took them) */
	if (!ts_bg_enabled() && !remote)
		return;
	r->picked_rg = pick_row_group(r);
	r->picked = true;
	if (r->picked_rg < 0 || r->meta.row_groups[r->picked_rg].num_rows <= 0)
		return;
	rg = &r->meta.row_groups[r->picked_rg];

	/*
	 * The chunks of up to 64 leaves are read at once (coalesced and
	 * concurrent on an object store); a wider row group's further leaves
	 * are read when their turn comes.
	 */
	for (int i = 0; i < r->nleaves; i++)
	{
		int64_t		start;
		uint8_t    *buf;

		if (nr == 64)
		{
			pq_ahead_cancel(r->leaves[i]);
			continue;
		}
		if (!chunk_extent(r, rg, r->leaves[i], &r->ahead_cc[nr], &start, &r->ahead_len[nr], &err))
		{
			pq_ahead_cancel(r->leaves[i]);
			continue;
		}
		buf = pq_ahead_reserve(r->leaves[i], r->ahead_len[nr], r->ahead_cc[nr], remote);
		if (buf == NULL)
			continue;
		ranges[nr].offset = start;
		ranges[nr].len = (size_t) r->ahead_len[nr];
		ranges[nr].buf = buf;
		r->ahead_leaf[nr] = i;
		nr++;
	}
	if (nr == 0)
		return;
	r->ahead_reads = ts_file_pread_many_start(r->file, ranges, nr, &err);
	if (r->ahead_reads == NULL)
	{
		/* read again in place, where a failure is reported */
		for (int k = 0; k < nr; k++)
			pq_ahead_cancel(r->leaves[r->ahead_leaf[k]]);
		return;
	}
	r->ahead_n = nr;
	finish_ahead(r, false);		/* read already (a local file) */
}

/* ---- assembly ------------------------------------------------------- */

/* 1 = an entry is available, 0 = chunk ended, -1 = error */
static inline int
peek(pq_leaf *l, ts_err *err)
{
	if (l->pos < l->nbuf)
		return 1;
	if (!pq_leaf_fill(l, err))
		return -1;
	return l->nbuf > 0;
}

static bool
ended_early(const pq_leaf *l, ts_err *err)
{
	return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" has fewer values than the row group has rows",
					l->path);
}

/* consume one entry in every leaf of [lo, hi) (a null or empty position) */
static bool
skip_slot(pq_reader *r, int lo, int hi, ts_err *err)
{
	for (int i = lo; i < hi; i++)
	{
		pq_leaf    *l = r->leaves[i];
		int			rc = peek(l, err);

		if (rc < 0)
			return false;
		if (rc == 0)
			return ended_early(l, err);
		if (l->def[l->pos] == l->max_def)
			l->vpos++;
		l->pos++;
	}
	return true;
}

static bool
stack_push(pq_reader *r, const ts_value *v, ts_err *err)
{
	if (r->stack_len == r->stack_cap)
	{
		size_t		nc = r->stack_cap ? r->stack_cap * 2 : 256;
		ts_value   *ns = ts_realloc(r->stack, nc * sizeof(ts_value));

		if (!ns)
			return ts_error_nomem(err, NULL);
		r->stack = ns;
		r->stack_cap = nc;
	}
	r->stack[r->stack_len++] = *v;
	return true;
}

static bool read_value(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err);

static bool
read_repeated(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err)
{
	pq_leaf    *first = r->leaves[a->leaf_lo];
	size_t		base = r->stack_len;
	int			rc;
	int			d;
	size_t		n;
	ts_value   *items;

	rc = peek(first, err);
	if (rc <= 0)
		return rc < 0 ? false : ended_early(first, err);
	d = first->def[first->pos];
	if (d < a->def)
	{
		out->isnull = true;
		return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
	}
	out->isnull = false;
	if (d < a->rep_def)
	{
		out->v.nested.n = 0;
		out->v.nested.items = NULL;
		return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
	}
	for (;;)
	{
		ts_value	v;

		if (a->kind == PQ_A_LIST)
		{
			if (!read_value(r, &a->children[0], &v, err) || !stack_push(r, &v, err))
				return false;
		}
		else
		{
			ts_value	k;

			if (!read_value(r, &a->children[0], &k, err) ||
				!read_value(r, &a->children[1], &v, err))
				return false;
			if (a->multiset)
			{
				int64_t		cnt = v.isnull ? 1 : v.v.i;

				if (cnt < 0 || cnt > PQ_MAX_MULTISET - (int64_t) (r->stack_len - base))
					return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": multiset count %lld out of range",
									first->path, (long long) cnt);
				for (int64_t i = 0; i < cnt; i++)
					if (!stack_push(r, &k, err))
						return false;
			}
			else if (!stack_push(r, &k, err) || !stack_push(r, &v, err))
				return false;
		}
		rc = peek(first, err);
		if (rc < 0)
			return false;
		if (rc == 0 || first->rep[first->pos] != a->rep)
			break;
	}
	n = r->stack_len - base;
	if (a->kind == PQ_A_MAP && !a->multiset)
		n /= 2;
	if (n > INT32_MAX / 2)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": too many elements", first->path);
	items = ts_arena_alloc(&r->arena, (r->stack_len - base) * sizeof(ts_value) + 1);
	if (!items)
		return ts_error_nomem(err, NULL);
	memcpy(items, r->stack + base, (r->stack_len - base) * sizeof(ts_value));
	r->stack_len = base;
	out->v.nested.n = (int32_t) n;
	out->v.nested.items = items;
	return true;
}

static bool
read_value(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err)
{
	switch (a->kind)
	{
		case PQ_A_MISSING:
			out->isnull = true;
			return true;
		case PQ_A_LEAF:
			{
				pq_leaf    *l = r->leaves[a->leaf_lo];
				int			rc = peek(l, err);

				if (rc <= 0)
					return rc < 0 ? false : ended_early(l, err);
				if (l->def[l->pos] == l->max_def)
				{
					if (l->vpos >= l->nvals)
						return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": values out of step with levels", l->path);
					*out = l->vals[l->vpos++];
				}
				else
					out->isnull = true;
				l->pos++;
				return true;
			}
		case PQ_A_ROW:
			{
				ts_value   *items;

				if (a->leaf_lo == a->leaf_hi)
				{
					out->isnull = true;
					return true;
				}
				{
					pq_leaf    *first = r->leaves[a->leaf_lo];
					int			rc = peek(first, err);

					if (rc <= 0)
						return rc < 0 ? false : ended_early(first, err);
					if (first->def[first->pos] < a->def)
					{
						out->isnull = true;
						return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
					}
				}
				items = ts_arena_alloc(&r->arena, sizeof(ts_value) * (a->nchildren ? a->nchildren : 1));
				if (!items)
					return ts_error_nomem(err, NULL);
				for (int i = 0; i < a->nchildren; i++)
					if (!read_value(r, &a->children[i], &items[i], err))
						return false;
				out->isnull = false;
				out->v.nested.n = a->nchildren;
				out->v.nested.items = items;
				return true;
			}
		case PQ_A_LIST:
		case PQ_A_MAP:
			if (a->leaf_lo == a->leaf_hi)
			{
				out->isnull = true;
				return true;
			}
			return read_repeated(r, a, out, err);
	}
	return true;
}

/* fill rows [0, n) of column c */
static bool
fill_column(pq_reader *r, int c, int n, ts_err *err)
{
	const pq_asm *a = &r->asms[c];
	int			ncols = r->ncols;
	ts_value   *out = r->values + c;

	if (a->kind == PQ_A_MISSING || a->leaf_lo == a->leaf_hi)
	{
		for (int i = 0; i < n; i++)
			out[(size_t) i * ncols].isnull = true;
		return true;
	}
	if (a->kind == PQ_A_LEAF && r->leaves[a->leaf_lo]->max_rep == 0)
		return pq_leaf_read_flat(r->leaves[a->leaf_lo], out, (size_t) ncols, n, err);
	for (int i = 0; i < n; i++)
	{
		/* each row starts at repetition level 0 in every leaf */
		for (int k = a->leaf_lo; k < a->leaf_hi; k++)
		{
			pq_leaf    *l = r->leaves[k];
			int			rc = peek(l, err);

			if (rc <= 0)
				return rc < 0 ? false : ended_early(l, err);
			if (l->rep[l->pos] != 0)
				return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": row does not start at repetition level 0",
								l->path);
		}
		if (!read_value(r, a, &out[(size_t) i * ncols], err))
			return false;
		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
	}
	return true;
}

static int
pq_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	pq_reader  *r = (pq_reader *) base;
	int			n;

	batch->nrows = 0;
	batch->ncols = r->ncols;
	batch->values = r->values;
	for (int i = 0; i < r->nleaves; i++)
		pq_leaf_release(r->leaves[i]);
	ts_arena_reset(&r->arena);
	r->stack_len = 0;
	if (r->done)
		return 0;
	if (r->ahead_due && r->rows_left > 0)
		read_ahead(r);
	else
		finish_ahead(r, false);
	while (r->rows_left == 0)
	{
		if (!next_row_group(r, err))
			return -1;
		if (r->done)
			return 0;
	}
	n = r->rows_left < r->set.batch_rows ? (int) r->rows_left : r->set.batch_rows;
	for (int c = 0; c < r->ncols; c++)
		if (!fill_column(r, c, n, err))
		{
			ts_error_context(err, "Parquet file \"%s\" row group %d", r->path, r->cur_rg);
			return -1;
		}
	r->base.row_position = r->rg_first_row + r->meta.row_groups[r->cur_rg].num_rows - r->rows_left;
	r->rows_left -= n;
	r->base.metrics.rows_read += n;
	if (r->rows_left == 0)
		for (int i = 0; i < r->nleaves; i++)
			pq_leaf_end_chunk(r->leaves[i]);
	batch->nrows = n;
	return n;
}

static const ts_format_reader_ops pq_ops = {pq_next, pq_close};

/* ---- open ----------------------------------------------------------- */

/*
 * Bytes at the end of a file read by ranges (an object) with its magic in
 * one round trip: most footers fit, so the footer costs no request of its
 * own (was three in turn: the magic, the length, the footer).
 */
#define PQ_REMOTE_TAIL ((int64_t) 64 << 10)

static bool
read_footer(pq_reader *r, ts_err *err)
{
	uint8_t		head[4];
	uint8_t    *tail;			/* the file's last ntail bytes */
	int64_t		ntail = 8;
	uint8_t		tail8[8];
	uint32_t	flen;
	bool		ok = true;

	r->file_size = ts_file_size(r->file);
	if (r->file_size < 12)
		return ts_error(err, TS_ERR_CORRUPT, "file is too small to be Parquet (%lld bytes)",
						(long long) r->file_size);
	tail = tail8;
	if (ts_file_is_remote(r->file))
	{
		ts_range	rg[2];

		ntail = r->file_size - 4 < PQ_REMOTE_TAIL ? r->file_size - 4 : PQ_REMOTE_TAIL;
		if ((tail = ts_malloc((size_t) ntail)) == NULL)
			return ts_error_nomem(err, NULL);
		rg[0] = (ts_range) {0, 4, head};
		rg[1] = (ts_range) {r->file_size - ntail, (size_t) ntail, tail};
		if (!ts_file_pread_many(r->file, rg, 2, err))
		{
			ts_free(tail);
			return false;
		}
	}
	else if (!ts_file_pread(r->file, head, 4, 0, err) ||
			 !ts_file_pread(r->file, tail, 8, r->file_size - 8, err))
		return false;
	flen = ts_load_le32(tail + ntail - 8);
	if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + ntail - 4, "PAR1", 4) != 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "wrong magic (not a Parquet file, or truncated)");
	else if ((int64_t) flen > r->file_size - 12 || flen == 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "footer length %u does not fit the file", flen);
	else if ((int64_t) flen > PQ_MAX_FOOTER)
		ok = ts_error(err, TS_ERR_UNSUPPORTED, "footer of %u bytes is larger than 64 MB", flen);
	else if ((r->footer = ts_malloc(flen)) == NULL)
		ok = ts_error_nomem(err, NULL);
	else if ((int64_t) flen + 8 <= ntail)
		memcpy(r->footer, tail + ntail - 8 - flen, flen);	/* in the tail read already */
	else
		ok = ts_file_pread(r->file, r->footer, flen, r->file_size - 8 - flen, err);
	if (tail != tail8)
		ts_free(tail);
	if (!ok)
		return false;
	r->base.metrics.bytes_read += flen + 12;
	if (!pq_parse_file_meta(r->footer, flen, &r->meta, err))
		return ts_error_context(err, "footer");
	return true;
}

ts_format_reader *
ts_parquet_open(const char *path, const ts_read_column *columns, int ncols,
				const ts_reader_options *options, ts_err *err)
{
	pq_reader  *r;
	int			idx = 0;

	if (ncols < 0)
	{
		ts_error(err, TS_ERR_INVALID, "negative column count");
		return NULL;
	}
	r = ts_calloc(1, sizeof(pq_reader));
	if (!r)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->base.ops = &pq_ops;
	r->base.reports_positions = true;
	ts_arena_init(&r->arena, 64 * 1024);
	r->path = ts_strdup(path);
	r->cols = columns;
	r->ncols = ncols;
	ts_reader_settings_init(&r->set, options);
	if (!r->path)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	r->file = ts_file_open(ts_reader_fs(options), path, err);
	if (!r->file)
		goto fail;
	if (!read_footer(r, err))
		goto fail_ctx;

	r->nodes = ts_calloc(r->meta.nschema, sizeof(pq_node));
	r->children = ts_calloc(r->meta.nschema, sizeof(int));
	if (!r->nodes || !r->children)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	if (!build_nodes(r, &idx, -1, 0, 0, 0, err))
		goto fail_ctx;
	if (idx != r->meta.nschema)
	{
		ts_error(err, TS_ERR_CORRUPT, "schema has %d elements but the root covers %d",
				 r->meta.nschema, idx);
		goto fail_ctx;
	}
	for (int i = 1; i < r->meta.nschema; i++)
		if (r->meta.schema[i].has_field_id)
			r->has_ids = true;
	for (int i = 0; i < r->meta.nrow_groups; i++)
		if (r->meta.row_groups[i].ncolumns != r->nleaf_columns)
		{
			ts_error(err, TS_ERR_CORRUPT, "row group %d has %d column chunks, schema has %d columns",
					 i, r->meta.row_groups[i].ncolumns, r->nleaf_columns);
			goto fail_ctx;
		}

	r->asms = ts_calloc(ncols ? ncols : 1, sizeof(pq_asm));
	r->stats = ts_calloc(ncols ? ncols : 1, sizeof(ts_column_stats));
	r->values = ts_calloc((size_t) r->set.batch_rows * (ncols ? ncols : 1), sizeof(ts_value));
	if (!r->asms || !r->stats || !r->values)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (int c = 0; c < ncols; c++)
	{
		const ts_read_column *col = &columns[c];
		int			node = find_child(r, 0, col->field_id, col->name);

		if (!build_asm(r, &r->asms[c], node, col->type, col->name ? col->name : "?", 0, err))
			goto fail;
	}
	r->base.metrics.row_groups_total = 0;
	for (int i = 0; i < r->meta.nrow_groups; i++)
		if (in_range(r, &r->meta.row_groups[i]))
			r->base.metrics.row_groups_total++;
	return &r->base;

fail_ctx:
	ts_error_context(err, "Parquet file \"%s\"", path);
fail:
	pq_close(&r->base);
	return NULL;
}
