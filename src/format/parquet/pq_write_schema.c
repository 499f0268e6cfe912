/*
 * pq_write_schema.c - the Parquet schema of the fields a writer writes.
 *
 * Owns: which Paimon types the writer takes and their physical and
 * converted types (as Paimon's ParquetSchemaConverter maps them), the
 * schema tree (pq_node) built from the fields with its leaves' levels and
 * Java's SpecialFields ids, and its SchemaElements in the footer.
 */
#include <string.h>

#include "base/ts_type_class.h"
#include "format/parquet/pq_write_internal.h"

/* ---- types ---------------------------------------------------------------- */

/* bytes of a FIXED_LEN_BYTE_ARRAY decimal (Java's computeMinBytesForDecimalPrecision) */
static int
decimal_bytes(int precision)
{
	int			n = 1;
	ts_int128	limit = 1;

	for (int i = 0; i < precision; i++)
		limit *= 10;
	/* the smallest n with 2^(8n - 1) >= 10^precision */
	while (n < 16 && ((ts_int128) 1 << (8 * n - 1)) < limit)
		n++;
	return n;
}

/* physical and converted type (-1: none) of a primitive type; false for types not written */
static bool
pq_types(const ts_type *t, int *physical, int *converted)
{
	*converted = -1;
	switch (t->kind)
	{
		case TS_BOOLEAN:
			*physical = PQW_BOOLEAN;
			return true;
		case TS_TINYINT:
			*physical = PQW_INT32, *converted = PQC_INT_8;
			return true;
		case TS_SMALLINT:
			*physical = PQW_INT32, *converted = PQC_INT_16;
			return true;
		case TS_INT:
			*physical = PQW_INT32;
			return true;
		case TS_BIGINT:
			*physical = PQW_INT64;
			return true;
		case TS_FLOAT:
			*physical = PQW_FLOAT;
			return true;
		case TS_DOUBLE:
			*physical = PQW_DOUBLE;
			return true;
		case TS_DECIMAL:
			*physical = t->precision <= 9 ? PQW_INT32 : t->precision <= 18 ? PQW_INT64 : PQW_FIXED;
			*converted = PQC_DECIMAL;
			return t->precision >= 1 && t->precision <= 38;
		case TS_CHAR:
		case TS_VARCHAR:
			*physical = PQW_BYTE_ARRAY, *converted = PQC_UTF8;
			return true;
		case TS_BINARY:
		case TS_VARBINARY:
			*physical = PQW_BYTE_ARRAY;
			return true;
		case TS_DATE:
			*physical = PQW_INT32, *converted = PQC_DATE;
			return true;
		case TS_TIME:
			*physical = PQW_INT32, *converted = PQC_TIME_MILLIS;
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision > 6)
			{
				*physical = PQW_INT96;
				return t->precision <= 9;
			}
			*physical = PQW_INT64;
			*converted = t->precision <= 3 ? PQC_TIMESTAMP_MILLIS : PQC_TIMESTAMP_MICROS;
			return true;
		default:
			return false;
	}
}

/* the first type in t the writer cannot store, or NULL */
static const ts_type *
unwritable(const ts_type *t, int depth)
{
	int			p,
				c;

	if (depth > MAX_NESTING)
		return t;
	switch (t->kind)
	{
		case TS_ARRAY:
			return unwritable(t->element, depth + 1);
		case TS_MAP:
			{
				const ts_type *k = unwritable(t->key, depth + 1);

				return k ? k : unwritable(t->value, depth + 1);
			}
		case TS_MULTISET:
			/* its elements are counted, compared as scalars */
			return ts_type_is_nested(t->element->kind) ? t : unwritable(t->element, depth + 1);
		case TS_ROW:
			for (int i = 0; i < t->nfields; i++)
			{
				const ts_type *f = unwritable(t->fields[i].type, depth + 1);

				if (f)
					return f;
			}
			return NULL;
		default:
			return pq_types(t, &p, &c) ? NULL : t;
	}
}

bool
ts_pq_writer_supports(const char *col, const ts_type *t, ts_err *err)
{
	const ts_type *bad = unwritable(t, 0);
	char	   *name;

	if (bad == NULL)
		return true;
	name = ts_type_to_string(bad);
	ts_error(err, TS_ERR_UNSUPPORTED,
			 "writing column \"%s\" of type %s to Parquet is not supported yet", col,
			 name ? name : ts_type_kind_name(bad->kind));
	ts_free(name);
	return false;
}

static const ts_type multiset_count_type = {.kind = TS_INT, .nullable = false};

/*
 * Build node n for a value of type t named name (id: -1 for none), as
 * Java's ParquetSchemaConverter does; def / rep: the levels of the parent,
 * path[0..npath) the names above.
 */
bool
pqw_build_node(ts_pq_writer *w, pq_node *n, const char *name, const ts_type *t, bool nullable,
		   int32_t id, int32_t field_id, int depth, int def, int rep, const char **path, int npath)
{
	const char **here = ts_calloc((size_t) npath + 1, sizeof(char *));

	if (here == NULL)
		return false;
	memcpy(here, path, sizeof(char *) * (size_t) npath);
	here[npath] = name;
	w->nnodes++;
	n->name = name;
	n->type = t;
	n->id = id;
	n->has_id = true;
	n->repetition = nullable ? PQW_OPTIONAL : PQW_REQUIRED;
	n->converted = -1;
	n->first_leaf = w->ncols;
	if (nullable)
		def++;
	switch (t->kind)
	{
		case TS_ROW:
			n->kind = PQN_ROW;
			n->nchildren = t->nfields;
			if ((n->children = ts_calloc((size_t) (t->nfields ? t->nfields : 1), sizeof(pq_node))) == NULL)
				goto nomem;
			for (int i = 0; i < t->nfields; i++)
				if (!pqw_build_node(w, &n->children[i], t->fields[i].name, t->fields[i].type,
								t->fields[i].type->nullable, t->fields[i].id, t->fields[i].id, 0,
								def, rep, here, npath + 1))
					goto nomem;
			break;
		case TS_ARRAY:
		case TS_MAP:
		case TS_MULTISET:
			{
				pq_node    *g;
				const char **inner = ts_calloc((size_t) npath + 2, sizeof(char *));

				if (inner == NULL)
					goto nomem;
				memcpy(inner, here, sizeof(char *) * ((size_t) npath + 1));
				n->kind = t->kind == TS_ARRAY ? PQN_LIST : PQN_MAP;
				n->converted = t->kind == TS_ARRAY ? PQC_LIST : PQC_MAP;
				n->nchildren = 1;
				if ((n->children = g = ts_calloc(1, sizeof(pq_node))) == NULL)
				{
					ts_free(inner);
					goto nomem;
				}
				w->nnodes++;
				g->kind = PQN_REPEATED;
				g->name = t->kind == TS_ARRAY ? "list" : "key_value";
				g->repetition = PQW_REPEATED;
				g->converted = t->kind == TS_ARRAY ? -1 : PQC_MAP_KEY_VALUE;
				g->first_leaf = w->ncols;
				g->rep = rep + 1;
				inner[npath + 1] = g->name;
				g->nchildren = t->kind == TS_ARRAY ? 1 : 2;
				if ((g->children = ts_calloc((size_t) g->nchildren, sizeof(pq_node))) == NULL)
				{
					ts_free(inner);
					goto nomem;
				}
				if (t->kind == TS_ARRAY)
				{
					if (!pqw_build_node(w, &g->children[0], "element", t->element, t->element->nullable,
									STRUCTURED_ID_BASE + field_id * STRUCTURED_DEPTH_LIMIT + depth + 1,
									field_id, depth + 1, def + 1, rep + 1, inner, npath + 2))
					{
						ts_free(inner);
						goto nomem;
					}
				}
				else
				{
					const ts_type *kt = t->kind == TS_MAP ? t->key : t->element;
					const ts_type *vt = t->kind == TS_MAP ? t->value : &multiset_count_type;

					/* a key is never null in Parquet: Java makes it NOT NULL */
					if (!pqw_build_node(w, &g->children[0], "key", kt, false,
									STRUCTURED_ID_BASE - field_id * STRUCTURED_DEPTH_LIMIT - (depth + 1),
									field_id, depth + 1, def + 1, rep + 1, inner, npath + 2) ||
						!pqw_build_node(w, &g->children[1], "value", vt, vt->nullable,
									STRUCTURED_ID_BASE + field_id * STRUCTURED_DEPTH_LIMIT + depth + 1,
									field_id, depth + 1, def + 1, rep + 1, inner, npath + 2))
					{
						ts_free(inner);
						goto nomem;
					}
				}
				ts_free(inner);
				g->nleaves = w->ncols - g->first_leaf;
				break;
			}
		default:
			{
				pq_column  *c;

				n->kind = PQN_LEAF;
				if (w->ncols == w->cols_cap)
				{
					int			cap = w->cols_cap ? w->cols_cap * 2 : 16;
					pq_column  *nc = ts_realloc(w->cols, sizeof(pq_column) * (size_t) cap);

					if (nc == NULL)
						goto nomem;
					memset(nc + w->cols_cap, 0, sizeof(pq_column) * (size_t) (cap - w->cols_cap));
					w->cols = nc;
					w->cols_cap = cap;
				}
				c = &w->cols[w->ncols++];
				c->type = t;
				pq_types(t, &c->physical, &n->converted);
				n->physical = c->physical;
				c->type_length = c->physical == PQW_FIXED ? decimal_bytes(t->precision) :
					c->physical == PQW_INT96 ? 12 : 0;
				c->max_def = def;
				c->max_rep = rep;
				c->path = here;
				c->npath = npath + 1;
				here = NULL;	/* the leaf owns it */
				ts_buf_init(&c->values);
				ts_buf_init(&c->pages);
				break;
			}
	}
	n->nleaves = w->ncols - n->first_leaf;
	ts_free(here);
	return true;

nomem:
	ts_free(here);
	return false;
}

void
pqw_free_node(pq_node *n)
{
	for (int i = 0; i < n->nchildren; i++)
		pqw_free_node(&n->children[i]);
	ts_free(n->children);
}

/* The schema element of n and those below it, depth first. */
void
pqw_put_schema(ts_thrift_out *o, const pq_node *n, const ts_pq_writer *w)
{
	const ts_type *t = n->type;

	ts_thrift_struct_begin(o, 0);
	if (n->kind == PQN_LEAF)
	{
		const pq_column *c = &w->cols[n->first_leaf];

		ts_thrift_i32(o, 1, c->physical);
		if (c->physical == PQW_FIXED)
			ts_thrift_i32(o, 2, c->type_length);
	}
	ts_thrift_i32(o, 3, n->repetition);
	ts_thrift_string(o, 4, n->name);
	if (n->kind != PQN_LEAF)
		ts_thrift_i32(o, 5, n->nchildren);
	if (n->converted >= 0)
		ts_thrift_i32(o, 6, n->converted);
	if (n->kind == PQN_LEAF && t->kind == TS_DECIMAL)
	{
		ts_thrift_i32(o, 7, t->scale);
		ts_thrift_i32(o, 8, t->precision);
	}
	if (n->kind != PQN_REPEATED)
		ts_thrift_i32(o, 9, n->id);
	ts_thrift_struct_end(o);
	for (int i = 0; i < n->nchildren; i++)
		pqw_put_schema(o, &n->children[i], w);
}
