/*
 * pq_writer.c - the streaming Parquet writer (pq_writer.h).
 *
 * Owns: the Thrift compact encoding of page headers and the footer, the
 * Parquet schema tree of the fields written (pq_node), the per-leaf
 * buffers of the current row group (PLAIN values, repetition and
 * definition levels), shredding each row's values into those leaves, and
 * writing each row group as it fills.  The layout follows Paimon's
 * ParquetSchemaConverter: INT32 (+ INT_8 / INT_16 / DATE / TIME_MILLIS /
 * DECIMAL), INT64 (+ TIMESTAMP_MILLIS / TIMESTAMP_MICROS / DECIMAL), INT96
 * (timestamps of precision 7..9), FIXED_LEN_BYTE_ARRAY (+ DECIMAL, precision
 * 19..38), FLOAT, DOUBLE, BOOLEAN, BYTE_ARRAY (+ UTF8); ARRAY as a LIST
 * group (repeated "list", "element"), MAP as a MAP group (repeated
 * "key_value" MAP_KEY_VALUE, required "key", "value"), ROW as a plain
 * group; field ids as Java's SpecialFields gives them to the parts of an
 * ARRAY or MAP.
 */
#include <string.h>
#include <zstd.h>

#include "base/ts_type_class.h"
#include "base/ts_base.h"
#include "format/parquet/pq_thrift_write.h"
#include "format/parquet/pq_writer.h"

enum
{
	PQW_BOOLEAN = 0, PQW_INT32 = 1, PQW_INT64 = 2, PQW_INT96 = 3, PQW_FLOAT = 4, PQW_DOUBLE = 5,
	PQW_BYTE_ARRAY = 6, PQW_FIXED = 7
};

enum
{
	PQW_REQUIRED = 0, PQW_OPTIONAL = 1, PQW_REPEATED = 2
};

/* converted types */
enum
{
	PQC_UTF8 = 0, PQC_MAP = 1, PQC_MAP_KEY_VALUE = 2, PQC_LIST = 3, PQC_DECIMAL = 5, PQC_DATE = 6,
	PQC_TIME_MILLIS = 7, PQC_TIMESTAMP_MILLIS = 9, PQC_TIMESTAMP_MICROS = 10, PQC_INT_8 = 15,
	PQC_INT_16 = 16
};

/* Java's SpecialFields: ids of the element of an ARRAY, the key and value of a MAP */
#define STRUCTURED_ID_BASE 536870911	/* Integer.MAX_VALUE / 4 */
#define STRUCTURED_DEPTH_LIMIT 1024
#define MAX_NESTING 60			/* levels stay below 255 */

#define JULIAN_EPOCH_DAY 2440588
#define MILLIS_PER_DAY 86400000LL

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

/* ---- the schema tree --------------------------------------------------------- */

typedef enum pq_node_kind
{
	PQN_LEAF, PQN_ROW, PQN_LIST, PQN_MAP, PQN_REPEATED
} pq_node_kind;

typedef struct pq_node pq_node;

struct pq_node
{
	pq_node_kind kind;
	const char *name;
	const ts_type *type;		/* NULL for the repeated group of a LIST / MAP */
	int32_t		id;
	bool		has_id;
	int			repetition;
	int			converted;		/* -1: none */
	int			physical;		/* leaves */
	int			nchildren;
	pq_node    *children;
	int			first_leaf;		/* leaves below: [first_leaf, first_leaf + nleaves) */
	int			nleaves;
	int			rep;			/* repetition level of a REPEATED node */
};

typedef struct pq_column
{
	const ts_type *type;
	int			physical;
	int			type_length;	/* FIXED_LEN_BYTE_ARRAY */
	int			max_def;
	int			max_rep;
	const char **path;			/* names from the top field down */
	int			npath;
	ts_buf		values;			/* PLAIN values of the row group */
	uint8_t    *defs;			/* per level entry of the row group */
	uint8_t    *reps;
	size_t		nlevels;
	size_t		levels_cap;
	uint8_t		bit_acc;		/* BOOLEAN bit packing */
	int			bit_n;
	/* per row group written: where its chunk is */
	int64_t    *chunk_off;
	int64_t    *chunk_len;
	int64_t    *chunk_raw;
	int64_t    *chunk_values;
} pq_column;

struct ts_pq_writer
{
	pq_node    *top;			/* one per field */
	int			nfields;
	int			nnodes;			/* schema elements below the root */
	pq_column  *cols;			/* the leaves */
	int			ncols;
	int			cols_cap;
	int			zstd_level;
	ZSTD_CCtx  *cctx;
	size_t		row_group_bytes;
	ts_pq_sink	sink;
	void	   *arg;
	int64_t		written;		/* bytes through the sink */
	int64_t		rows;			/* rows in the file */
	int64_t		group_rows;		/* rows of the current row group */
	size_t		buffered;
	int			ngroups;
	int			groups_cap;
	int64_t    *group_rows_of;	/* rows per written row group */
	ts_buf		page;			/* scratch: one page body */
	ts_buf		packed;			/* scratch: compressed body */
	ts_buf		hdr;			/* scratch: page header */
};

static const ts_type multiset_count_type = {.kind = TS_INT, .nullable = false};

/*
 * Build node n for a value of type t named name (id: -1 for none), as
 * Java's ParquetSchemaConverter does; def / rep: the levels of the parent,
 * path[0..npath) the names above.
 */
static bool
build_node(ts_pq_writer *w, pq_node *n, const char *name, const ts_type *t, bool nullable,
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
				if (!build_node(w, &n->children[i], t->fields[i].name, t->fields[i].type,
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
					if (!build_node(w, &g->children[0], "element", t->element, t->element->nullable,
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
					if (!build_node(w, &g->children[0], "key", kt, false,
									STRUCTURED_ID_BASE - field_id * STRUCTURED_DEPTH_LIMIT - (depth + 1),
									field_id, depth + 1, def + 1, rep + 1, inner, npath + 2) ||
						!build_node(w, &g->children[1], "value", vt, vt->nullable,
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

static void
free_node(pq_node *n)
{
	for (int i = 0; i < n->nchildren; i++)
		free_node(&n->children[i]);
	ts_free(n->children);
}

/* ---- the writer ------------------------------------------------------------ */

static bool
emit(ts_pq_writer *w, const void *p, size_t n, ts_err *err)
{
	if (!w->sink(w->arg, p, n, err))
		return false;
	w->written += (int64_t) n;
	return true;
}

ts_pq_writer *
ts_pq_writer_create(const ts_field *fields, int n, int zstd_level, size_t row_group_bytes,
					ts_pq_sink sink, void *arg, ts_err *err)
{
	ts_pq_writer *w = ts_calloc(1, sizeof(ts_pq_writer));

	if (w == NULL || (w->top = ts_calloc((size_t) (n > 0 ? n : 1), sizeof(pq_node))) == NULL)
	{
		ts_free(w);
		ts_error_nomem(err, "a Parquet writer");
		return NULL;
	}
	w->nfields = n;
	for (int i = 0; i < n; i++)
	{
		if (!ts_pq_writer_supports(fields[i].name, fields[i].type, err))
		{
			ts_pq_writer_free(w);
			return NULL;
		}
		if (!build_node(w, &w->top[i], fields[i].name, fields[i].type, fields[i].type->nullable,
						fields[i].id, fields[i].id, 0, 0, 0, NULL, 0))
		{
			ts_pq_writer_free(w);
			ts_error_nomem(err, "a Parquet writer");
			return NULL;
		}
	}
	w->zstd_level = zstd_level;
	if (zstd_level > 0 && (w->cctx = ZSTD_createCCtx()) == NULL)
	{
		ts_pq_writer_free(w);
		ts_error_nomem(err, "a zstd context");
		return NULL;
	}
	w->row_group_bytes = row_group_bytes ? row_group_bytes : (size_t) 8 << 20;
	w->sink = sink;
	w->arg = arg;
	ts_buf_init(&w->page);
	ts_buf_init(&w->packed);
	ts_buf_init(&w->hdr);
	if (!emit(w, "PAR1", 4, err))
	{
		ts_pq_writer_free(w);
		return NULL;
	}
	return w;
}

/* One PLAIN value appended to c->values (room reserved once per value). */
static bool
add_value(pq_column *c, const ts_value *v)
{
	const ts_type *t = c->type;
	uint64_t	u;
	int			n;

	switch (c->physical)
	{
		case PQW_BOOLEAN:
			if (v->v.i)
				c->bit_acc |= (uint8_t) (1 << c->bit_n);
			if (++c->bit_n == 8)
			{
				if (!ts_buf_append(&c->values, &c->bit_acc, 1, NULL))
					return false;
				c->bit_acc = 0;
				c->bit_n = 0;
			}
			return true;
		case PQW_INT32:
			u = (uint32_t) (t->kind == TS_DECIMAL ? (int32_t) v->v.dec : (int32_t) v->v.i);
			n = 4;
			break;
		case PQW_INT64:
			if (t->kind == TS_DECIMAL)
				u = (uint64_t) (int64_t) v->v.dec;
			else if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
				u = (uint64_t) (t->precision <= 3 ? v->v.ts.millis :
								v->v.ts.millis * 1000 + v->v.ts.nanos / 1000);
			else
				u = (uint64_t) v->v.i;
			n = 8;
			break;
		case PQW_INT96:
			{
				/* as Java's timestampToInt96: Java's truncating / and % on the millis */
				int64_t		ms = v->v.ts.millis;
				int64_t		nanos_of_day = (ms % MILLIS_PER_DAY) * 1000000 + v->v.ts.nanos;
				int32_t		julian = (int32_t) (ms / MILLIS_PER_DAY + JULIAN_EPOCH_DAY);

				if (!ts_buf_reserve(&c->values, 12, NULL))
					return false;
				ts_store_le(c->values.data + c->values.len, (uint64_t) nanos_of_day, 8);
				ts_store_le(c->values.data + c->values.len + 8, (uint32_t) julian, 4);
				c->values.len += 12;
				return true;
			}
		case PQW_FIXED:
			{
				/* the unscaled value, big-endian two's complement in type_length bytes */
				unsigned __int128 be = (unsigned __int128) v->v.dec;
				uint8_t    *p;

				if (!ts_buf_reserve(&c->values, (size_t) c->type_length, NULL))
					return false;
				p = c->values.data + c->values.len;
				for (int i = c->type_length - 1; i >= 0; i--)
				{
					p[i] = (uint8_t) be;
					be >>= 8;
				}
				c->values.len += (size_t) c->type_length;
				return true;
			}
		case PQW_FLOAT:
			{
				uint32_t	f;

				memcpy(&f, &v->v.f, 4);
				u = f;
				n = 4;
				break;
			}
		case PQW_DOUBLE:
			memcpy(&u, &v->v.d, 8);
			n = 8;
			break;
		default:				/* BYTE_ARRAY: length, then the bytes */
			if (!ts_buf_reserve(&c->values, 4 + (size_t) v->v.s.len, NULL))
				return false;
			ts_store_le(c->values.data + c->values.len, v->v.s.len, 4);
			if (v->v.s.len > 0)
				memcpy(c->values.data + c->values.len + 4, v->v.s.p, v->v.s.len);
			c->values.len += 4 + (size_t) v->v.s.len;
			return true;
	}
	if (c->values.cap - c->values.len < (size_t) n && !ts_buf_reserve(&c->values, (size_t) n, NULL))
		return false;
	ts_store_le(c->values.data + c->values.len, u, n);
	c->values.len += (size_t) n;
	return true;
}

static bool
grow_groups(ts_pq_writer *w)
{
	int			cap = w->groups_cap ? w->groups_cap * 2 : 8;
	int64_t    *g = ts_realloc(w->group_rows_of, sizeof(int64_t) * (size_t) cap);

	if (g == NULL)
		return false;
	w->group_rows_of = g;
	for (int i = 0; i < w->ncols; i++)
	{
		pq_column  *c = &w->cols[i];
		int64_t   **arrs[4] = {&c->chunk_off, &c->chunk_len, &c->chunk_raw, &c->chunk_values};

		for (int k = 0; k < 4; k++)
		{
			int64_t    *a = ts_realloc(*arrs[k], sizeof(int64_t) * (size_t) cap);

			if (a == NULL)
				return false;
			*arrs[k] = a;
		}
	}
	w->groups_cap = cap;
	return true;
}

/* Levels lv[0..n) up to max, RLE runs of its bit width, with their 4-byte length. */
static bool
put_levels(const uint8_t *lv, size_t n, int max, ts_buf *body)
{
	ts_buf		b;
	ts_thrift_out o;
	size_t		i = 0;
	int			width = 0;
	uint8_t		len4[4];
	bool		ok;

	while ((1 << width) <= max)
		width++;
	ts_buf_init(&b);
	o = (ts_thrift_out) {.b = &b};
	while (i < n)
	{
		uint8_t		d = lv[i];
		size_t		run = 1;

		while (i + run < n && lv[i + run] == d)
			run++;
		ts_thrift_varint(&o, (uint64_t) run << 1);
		for (int k = 0; k < (width + 7) / 8; k++)
			ts_thrift_byte(&o, k == 0 ? d : 0);
		i += run;
	}
	ts_store_le32(len4, (uint32_t) b.len);
	ok = !o.failed && ts_buf_append(body, len4, 4, NULL) &&
		(b.len == 0 || ts_buf_append(body, b.data, b.len, NULL));
	ts_buf_free(&b);
	return ok;
}

/* Write the buffered rows as one row group. */
static bool
flush_group(ts_pq_writer *w, ts_err *err)
{
	if (w->group_rows == 0)
		return true;
	if (w->ngroups == w->groups_cap && !grow_groups(w))
		return ts_error_nomem(err, "Parquet row group metadata");
	for (int i = 0; i < w->ncols; i++)
	{
		pq_column  *c = &w->cols[i];
		const ts_buf *raw = &c->values;	/* the page body: levels if any, then values */
		const ts_buf *body;
		ts_thrift_out h;

		if (!ts_check_interrupts(err))
			return false;
		if (c->physical == PQW_BOOLEAN && c->bit_n > 0)
		{
			if (!ts_buf_append(&c->values, &c->bit_acc, 1, NULL))
				return ts_error_nomem(err, "a Parquet page");
			c->bit_acc = 0;
			c->bit_n = 0;
		}
		if (c->max_rep > 0 || c->max_def > 0)
		{
			ts_buf_reset(&w->page);
			if ((c->max_rep > 0 && !put_levels(c->reps, c->nlevels, c->max_rep, &w->page)) ||
				(c->max_def > 0 && !put_levels(c->defs, c->nlevels, c->max_def, &w->page)) ||
				(c->values.len && !ts_buf_append(&w->page, c->values.data, c->values.len, NULL)))
				return ts_error_nomem(err, "a Parquet page");
			raw = &w->page;
		}
		body = raw;
		if (w->cctx)
		{
			size_t		bound = ZSTD_compressBound(raw->len);
			size_t		got;

			ts_buf_reset(&w->packed);
			if (!ts_buf_reserve(&w->packed, bound, err))
				return false;
			got = ZSTD_compressCCtx(w->cctx, w->packed.data, bound, raw->data, raw->len,
									w->zstd_level);
			if (ZSTD_isError(got))
				return ts_error(err, TS_ERR_IO, "zstd compression failed: %s", ZSTD_getErrorName(got));
			w->packed.len = got;
			body = &w->packed;
		}
		ts_buf_reset(&w->hdr);
		h = (ts_thrift_out) {.b = &w->hdr};
		ts_thrift_i32(&h, 1, 0);		/* DATA_PAGE */
		ts_thrift_i32(&h, 2, (int32_t) raw->len);
		ts_thrift_i32(&h, 3, (int32_t) body->len);
		ts_thrift_struct_begin(&h, 5);	/* DataPageHeader */
		ts_thrift_i32(&h, 1, (int32_t) c->nlevels);
		ts_thrift_i32(&h, 2, 0);		/* PLAIN */
		ts_thrift_i32(&h, 3, 3);		/* RLE */
		ts_thrift_i32(&h, 4, 3);
		ts_thrift_struct_end(&h);
		ts_thrift_byte(&h, 0);			/* end of PageHeader */
		if (h.failed)
			return ts_error_nomem(err, "a Parquet page header");
		c->chunk_off[w->ngroups] = w->written;
		c->chunk_len[w->ngroups] = (int64_t) (w->hdr.len + body->len);
		c->chunk_raw[w->ngroups] = (int64_t) (w->hdr.len + raw->len);
		c->chunk_values[w->ngroups] = (int64_t) c->nlevels;
		if (!emit(w, w->hdr.data, w->hdr.len, err) || !emit(w, body->data, body->len, err))
			return false;
		ts_buf_reset(&c->values);
		c->nlevels = 0;
	}
	w->group_rows_of[w->ngroups++] = w->group_rows;
	w->group_rows = 0;
	w->buffered = 0;
	return true;
}

/* One level entry (and the value, unless NULL) of leaf c. */
static bool
put_entry(ts_pq_writer *w, pq_column *c, int rep, int def, const ts_value *v, ts_err *err)
{
	size_t		before = c->values.len;

	if (c->nlevels == c->levels_cap)
	{
		size_t		cap = c->levels_cap ? c->levels_cap * 2 : 1024;
		uint8_t    *d = ts_realloc(c->defs, cap);

		if (d != NULL)
			c->defs = d;
		d = d ? ts_realloc(c->reps, cap) : NULL;
		if (d == NULL)
			return ts_error_nomem(err, "a Parquet column buffer");
		c->reps = d;
		c->levels_cap = cap;
	}
	c->defs[c->nlevels] = (uint8_t) def;
	c->reps[c->nlevels] = (uint8_t) rep;
	c->nlevels++;
	w->buffered += (c->max_def > 0) + (c->max_rep > 0);
	if (v != NULL && !add_value(c, v))
		return ts_error_nomem(err, "a Parquet column buffer");
	w->buffered += c->values.len - before;
	return true;
}

/* A null (or empty) n at levels rep / def: one entry in every leaf below. */
static bool
put_absent(ts_pq_writer *w, const pq_node *n, int rep, int def, ts_err *err)
{
	for (int i = n->first_leaf; i < n->first_leaf + n->nleaves; i++)
		if (!put_entry(w, &w->cols[i], rep, def, NULL, err))
			return false;
	return true;
}

static bool shred(ts_pq_writer *w, const pq_node *n, const ts_value *v, int rep, int def,
				  ts_err *err);

/* Are scalar values a and b of type t the same (a MULTISET's equal elements)? */
static bool
same_scalar(const ts_type *t, const ts_value *a, const ts_value *b)
{
	if (a->isnull || b->isnull)
		return a->isnull && b->isnull;
	switch (ts_type_class_of(t->kind)->phys)
	{
		case TS_PHYS_FLOAT:
			return memcmp(&a->v.f, &b->v.f, sizeof(float)) == 0;
		case TS_PHYS_DOUBLE:
			return memcmp(&a->v.d, &b->v.d, sizeof(double)) == 0;
		case TS_PHYS_DECIMAL:
			return a->v.dec == b->v.dec;
		case TS_PHYS_TIMESTAMP:
			return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
		default:
			if (ts_type_is_bytes(t->kind))
				return a->v.s.len == b->v.s.len &&
					(a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
			return a->v.i == b->v.i;
	}
}

/*
 * A MULTISET's elements as MAP<element, INT> entries, as Java writes it:
 * each distinct element once with its count, in the order first seen.
 */
static bool
shred_multiset(ts_pq_writer *w, const pq_node *g, const ts_value *v, int rep, int def, ts_err *err)
{
	const ts_type *et = g->children[0].type;
	int			entries = 0;

	for (int i = 0; i < v->v.nested.n; i++)
	{
		const ts_value *e = &v->v.nested.items[i];
		ts_value	count;
		bool		seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = same_scalar(et, e, &v->v.nested.items[j]);
		if (seen)
			continue;
		memset(&count, 0, sizeof(count));
		for (int j = i; j < v->v.nested.n; j++)
			count.v.i += same_scalar(et, e, &v->v.nested.items[j]);
		if (!shred(w, &g->children[0], e, entries == 0 ? rep : g->rep, def, err) ||
			!shred(w, &g->children[1], &count, entries == 0 ? rep : g->rep, def, err))
			return false;
		entries++;
		if ((entries & 1023) == 0 && !ts_check_interrupts(err))
			return false;
	}
	return true;
}

/* The entries of v (of n's type) in n's leaves; rep / def: the levels of n's parent. */
static bool
shred(ts_pq_writer *w, const pq_node *n, const ts_value *v, int rep, int def, ts_err *err)
{
	if (v->isnull)
	{
		if (n->repetition == PQW_REQUIRED)
			return ts_error(err, TS_ERR_INVALID, "null value in NOT NULL %s \"%s\"",
							n->kind == PQN_LEAF && strcmp(n->name, "key") == 0 ? "map key" : "field",
							n->name);
		return put_absent(w, n, rep, def, err);
	}
	if (n->repetition == PQW_OPTIONAL)
		def++;
	switch (n->kind)
	{
		case PQN_LEAF:
			return put_entry(w, &w->cols[n->first_leaf], rep, def, v, err);
		case PQN_ROW:
			if (v->v.nested.n != n->nchildren)
				return ts_error(err, TS_ERR_INVALID, "a value of ROW field \"%s\" has %d fields, not %d",
								n->name, (int) v->v.nested.n, n->nchildren);
			for (int i = 0; i < n->nchildren; i++)
				if (!shred(w, &n->children[i], &v->v.nested.items[i], rep, def, err))
					return false;
			return true;
		case PQN_LIST:
		case PQN_MAP:
			{
				const pq_node *g = &n->children[0];
				bool		multiset = n->type->kind == TS_MULTISET;
				int			per = n->kind == PQN_MAP && !multiset ? 2 : 1;

				if (v->v.nested.n == 0)
					return put_absent(w, g, rep, def, err);
				if (multiset)
					return shred_multiset(w, g, v, rep, def + 1, err);
				for (int i = 0; i < v->v.nested.n; i++)
				{
					int			r = i == 0 ? rep : g->rep;

					for (int k = 0; k < g->nchildren; k++)
						if (!shred(w, &g->children[k], &v->v.nested.items[i * per + k], r, def + 1, err))
							return false;
				}
				return true;
			}
		default:
			return ts_error(err, TS_ERR_CORRUPT, "unexpected Parquet schema node");
	}
}

bool
ts_pq_writer_add(ts_pq_writer *w, const ts_value *row, ts_err *err)
{
	for (int i = 0; i < w->nfields; i++)
	{
		const pq_node *n = &w->top[i];

		if (row[i].isnull && n->repetition == PQW_REQUIRED)
			return ts_error(err, TS_ERR_INVALID, "null value in NOT NULL column \"%s\"", n->name);
		if (!shred(w, n, &row[i], 0, 0, err))
			return false;
	}
	w->group_rows++;
	w->rows++;
	if (w->buffered >= w->row_group_bytes || w->group_rows >= 1000000)
		return flush_group(w, err);
	return true;
}

int64_t
ts_pq_writer_bytes(const ts_pq_writer *w)
{
	return w->written + (int64_t) w->buffered;
}

int64_t
ts_pq_writer_rows(const ts_pq_writer *w)
{
	return w->rows;
}

/* The schema element of n and those below it, depth first. */
static void
put_schema(ts_thrift_out *o, const pq_node *n, const ts_pq_writer *w)
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
		put_schema(o, &n->children[i], w);
}

bool
ts_pq_writer_finish(ts_pq_writer *w, ts_err *err)
{
	ts_buf		meta;
	ts_thrift_out o;
	uint8_t		tail[8];
	bool		ok;

	if (!flush_group(w, err))
		return false;
	ts_buf_init(&meta);
	o = (ts_thrift_out) {.b = &meta};
	ts_thrift_i32(&o, 1, 1);			/* version */
	ts_thrift_list(&o, 2, 12, w->nnodes + 1);	/* schema */
	ts_thrift_struct_begin(&o, 0);
	ts_thrift_string(&o, 4, "paimon_schema");
	ts_thrift_i32(&o, 5, w->nfields);
	ts_thrift_struct_end(&o);
	for (int i = 0; i < w->nfields; i++)
		put_schema(&o, &w->top[i], w);
	ts_thrift_i64(&o, 3, w->rows);
	ts_thrift_list(&o, 4, 12, w->ngroups);	/* row groups */
	for (int g = 0; g < w->ngroups; g++)
	{
		int64_t		total = 0;

		ts_thrift_struct_begin(&o, 0);
		ts_thrift_list(&o, 1, 12, w->ncols);
		for (int i = 0; i < w->ncols; i++)
		{
			const pq_column *c = &w->cols[i];

			ts_thrift_struct_begin(&o, 0); /* ColumnChunk */
			ts_thrift_i64(&o, 2, c->chunk_off[g]);
			ts_thrift_struct_begin(&o, 3); /* ColumnMetaData */
			ts_thrift_i32(&o, 1, c->physical);
			ts_thrift_list(&o, 2, 5, 2);
			ts_thrift_varint(&o, 0);	/* PLAIN (zigzag 0) */
			ts_thrift_varint(&o, 6);	/* RLE (zigzag 3) */
			ts_thrift_list(&o, 3, 8, c->npath);
			for (int k = 0; k < c->npath; k++)
			{
				ts_thrift_varint(&o, strlen(c->path[k]));
				ts_thrift_raw(&o, c->path[k], strlen(c->path[k]));
			}
			ts_thrift_i32(&o, 4, w->cctx ? 6 : 0);	/* ZSTD / UNCOMPRESSED */
			ts_thrift_i64(&o, 5, c->chunk_values[g]);
			ts_thrift_i64(&o, 6, c->chunk_raw[g]);
			ts_thrift_i64(&o, 7, c->chunk_len[g]);
			ts_thrift_i64(&o, 9, c->chunk_off[g]);
			ts_thrift_struct_end(&o);
			ts_thrift_struct_end(&o);
			total += c->chunk_raw[g];
		}
		ts_thrift_i64(&o, 2, total);
		ts_thrift_i64(&o, 3, w->group_rows_of[g]);
		ts_thrift_struct_end(&o);
	}
	ts_thrift_string(&o, 6, "tablescan_fdw");
	ts_thrift_byte(&o, 0);				/* end of FileMetaData */
	ts_store_le32(tail, (uint32_t) meta.len);
	memcpy(tail + 4, "PAR1", 4);
	ok = !o.failed ? (emit(w, meta.data, meta.len, err) && emit(w, tail, 8, err)) :
		ts_error_nomem(err, "a Parquet footer");
	ts_buf_free(&meta);
	return ok;
}

void
ts_pq_writer_free(ts_pq_writer *w)
{
	if (w == NULL)
		return;
	for (int i = 0; i < w->ncols; i++)
	{
		pq_column  *c = &w->cols[i];

		ts_buf_free(&c->values);
		ts_free(c->defs);
		ts_free(c->reps);
		ts_free(c->path);
		ts_free(c->chunk_off);
		ts_free(c->chunk_len);
		ts_free(c->chunk_raw);
		ts_free(c->chunk_values);
	}
	for (int i = 0; i < w->nfields && w->top; i++)
		free_node(&w->top[i]);
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	ts_buf_free(&w->page);
	ts_buf_free(&w->packed);
	ts_buf_free(&w->hdr);
	ts_free(w->top);
	ts_free(w->group_rows_of);
	ts_free(w->cols);
	ts_free(w);
}
