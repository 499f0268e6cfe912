/*
 * pq_writer.c - the streaming Parquet writer (pq_writer.h).
 *
 * Owns: the Thrift compact encoding of page headers and the footer, the
 * per-column buffers of the current row group (PLAIN values, definition
 * levels), and writing each row group as it fills.  The layout follows
 * Paimon's ParquetSchemaConverter for flat columns: INT32 (+ INT_8 /
 * INT_16 / DATE / DECIMAL), INT64 (+ TIMESTAMP_MILLIS / TIMESTAMP_MICROS /
 * DECIMAL), FLOAT, DOUBLE, BOOLEAN, BYTE_ARRAY (+ UTF8), with field ids.
 */
#include <string.h>
#include <zstd.h>

#include "base/ts_base.h"
#include "format/parquet/pq_thrift_write.h"
#include "format/parquet/pq_writer.h"

enum
{
	PQW_BOOLEAN = 0, PQW_INT32 = 1, PQW_INT64 = 2, PQW_FLOAT = 4, PQW_DOUBLE = 5,
	PQW_BYTE_ARRAY = 6
};

/* ---- types ---------------------------------------------------------------- */

/* physical and converted type (-1: none); false for types not written */
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
			*physical = PQW_INT32, *converted = 15;	/* INT_8 */
			return true;
		case TS_SMALLINT:
			*physical = PQW_INT32, *converted = 16;	/* INT_16 */
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
			*physical = t->precision <= 9 ? PQW_INT32 : PQW_INT64;
			*converted = 5;
			return t->precision <= 18;
		case TS_CHAR:
		case TS_VARCHAR:
			*physical = PQW_BYTE_ARRAY, *converted = 0;	/* UTF8 */
			return true;
		case TS_BINARY:
		case TS_VARBINARY:
			*physical = PQW_BYTE_ARRAY;
			return true;
		case TS_DATE:
			*physical = PQW_INT32, *converted = 6;
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			*physical = PQW_INT64;
			*converted = t->precision <= 3 ? 9 : 10;	/* TIMESTAMP_MILLIS / _MICROS */
			return t->precision <= 6;
		default:
			return false;
	}
}

bool
ts_pq_writer_supports(const char *col, const ts_type *t, ts_err *err)
{
	int			p,
				c;

	if (pq_types(t, &p, &c))
		return true;
	return ts_error(err, TS_ERR_UNSUPPORTED,
					"writing column \"%s\" of type %s to Parquet is not supported yet", col,
					ts_type_kind_name(t->kind));
}

/* ---- the writer ------------------------------------------------------------ */

typedef struct pq_column
{
	const ts_field *field;
	int			physical;
	int			converted;
	ts_buf		values;			/* PLAIN values of the row group */
	uint8_t    *defs;			/* 1 = present, per row of the row group */
	size_t		defs_cap;
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
	pq_column  *cols;
	int			ncols;
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

	if (w == NULL || (w->cols = ts_calloc((size_t) (n > 0 ? n : 1), sizeof(pq_column))) == NULL)
	{
		ts_free(w);
		ts_error_nomem(err, "a Parquet writer");
		return NULL;
	}
	w->ncols = n;
	for (int i = 0; i < n; i++)
	{
		pq_column  *c = &w->cols[i];

		c->field = &fields[i];
		ts_buf_init(&c->values);
		if (!pq_types(fields[i].type, &c->physical, &c->converted))
		{
			ts_pq_writer_supports(fields[i].name, fields[i].type, err);
			ts_pq_writer_free(w);
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

static bool
put_le(ts_buf *b, uint64_t v, int n)
{
	uint8_t		x[8];

	for (int i = 0; i < n; i++)
		x[i] = (uint8_t) (v >> (8 * i));
	return ts_buf_append(b, x, (size_t) n, NULL);
}

/* v little-endian at p (n bytes); the compiler makes it one store */
static inline void
store_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* One PLAIN value appended to c->values (room reserved once per value). */
static bool
add_value(pq_column *c, const ts_value *v)
{
	const ts_type *t = c->field->type;
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
			store_le(c->values.data + c->values.len, v->v.s.len, 4);
			if (v->v.s.len > 0)
				memcpy(c->values.data + c->values.len + 4, v->v.s.p, v->v.s.len);
			c->values.len += 4 + (size_t) v->v.s.len;
			return true;
	}
	if (c->values.cap - c->values.len < (size_t) n && !ts_buf_reserve(&c->values, (size_t) n, NULL))
		return false;
	store_le(c->values.data + c->values.len, u, n);
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

/* The definition levels of a nullable column, RLE runs of bit width 1. */
static bool
def_levels(const pq_column *c, int64_t nrows, ts_buf *body)
{
	ts_buf		lv;
	ts_thrift_out		o;
	int64_t		i = 0;
	bool		ok;

	ts_buf_init(&lv);
	o = (ts_thrift_out) {.b = &lv};
	while (i < nrows)
	{
		uint8_t		d = c->defs[i];
		int64_t		run = 1;

		while (i + run < nrows && c->defs[i + run] == d)
			run++;
		ts_thrift_varint(&o, (uint64_t) run << 1);
		ts_thrift_byte(&o, d);
		i += run;
	}
	ok = !o.failed && put_le(body, lv.len, 4) &&
		(lv.len == 0 || ts_buf_append(body, lv.data, lv.len, NULL));
	ts_buf_free(&lv);
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
		const ts_buf *raw = &c->values;	/* the page body: values, after levels if any */
		const ts_buf *body;
		ts_thrift_out		h;

		if (!ts_check_interrupts(err))
			return false;
		if (c->physical == PQW_BOOLEAN && c->bit_n > 0)
		{
			if (!ts_buf_append(&c->values, &c->bit_acc, 1, NULL))
				return ts_error_nomem(err, "a Parquet page");
			c->bit_acc = 0;
			c->bit_n = 0;
		}
		if (c->field->type->nullable)
		{
			ts_buf_reset(&w->page);
			if (!def_levels(c, w->group_rows, &w->page) ||
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
		ts_thrift_i32(&h, 1, (int32_t) w->group_rows);
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
		c->chunk_values[w->ngroups] = w->group_rows;
		if (!emit(w, w->hdr.data, w->hdr.len, err) || !emit(w, body->data, body->len, err))
			return false;
		ts_buf_reset(&c->values);
	}
	w->group_rows_of[w->ngroups++] = w->group_rows;
	w->group_rows = 0;
	w->buffered = 0;
	return true;
}

bool
ts_pq_writer_add(ts_pq_writer *w, const ts_value *row, ts_err *err)
{
	for (int i = 0; i < w->ncols; i++)
	{
		pq_column  *c = &w->cols[i];
		size_t		before = c->values.len;

		if (row[i].isnull && !c->field->type->nullable)
			return ts_error(err, TS_ERR_INVALID, "null value in NOT NULL column \"%s\"",
							c->field->name);
		if (c->field->type->nullable)
		{
			if ((size_t) w->group_rows >= c->defs_cap)
			{
				size_t		cap = c->defs_cap ? c->defs_cap * 2 : 1024;
				uint8_t    *d = ts_realloc(c->defs, cap);

				if (d == NULL)
					return ts_error_nomem(err, "a Parquet column buffer");
				c->defs = d;
				c->defs_cap = cap;
			}
			c->defs[w->group_rows] = row[i].isnull ? 0 : 1;
			w->buffered += 1;
		}
		if (!row[i].isnull && !add_value(c, &row[i]))
			return ts_error_nomem(err, "a Parquet column buffer");
		w->buffered += c->values.len - before;
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

bool
ts_pq_writer_finish(ts_pq_writer *w, ts_err *err)
{
	ts_buf		meta;
	ts_thrift_out		o;
	uint8_t		tail[8];
	bool		ok;

	if (!flush_group(w, err))
		return false;
	ts_buf_init(&meta);
	o = (ts_thrift_out) {.b = &meta};
	ts_thrift_i32(&o, 1, 1);			/* version */
	ts_thrift_list(&o, 2, 12, w->ncols + 1);	/* schema */
	ts_thrift_struct_begin(&o, 0);
	ts_thrift_string(&o, 4, "paimon_schema");
	ts_thrift_i32(&o, 5, w->ncols);
	ts_thrift_struct_end(&o);
	for (int i = 0; i < w->ncols; i++)
	{
		const pq_column *c = &w->cols[i];
		const ts_type *t = c->field->type;

		ts_thrift_struct_begin(&o, 0);
		ts_thrift_i32(&o, 1, c->physical);
		ts_thrift_i32(&o, 3, t->nullable ? 1 : 0);	/* OPTIONAL / REQUIRED */
		ts_thrift_string(&o, 4, c->field->name);
		if (c->converted >= 0)
			ts_thrift_i32(&o, 6, c->converted);
		if (t->kind == TS_DECIMAL)
		{
			ts_thrift_i32(&o, 7, t->scale);
			ts_thrift_i32(&o, 8, t->precision);
		}
		ts_thrift_i32(&o, 9, c->field->id);
		ts_thrift_struct_end(&o);
	}
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
			const char *name = c->field->name;

			ts_thrift_struct_begin(&o, 0); /* ColumnChunk */
			ts_thrift_i64(&o, 2, c->chunk_off[g]);
			ts_thrift_struct_begin(&o, 3); /* ColumnMetaData */
			ts_thrift_i32(&o, 1, c->physical);
			ts_thrift_list(&o, 2, 5, 2);
			ts_thrift_varint(&o, 0);	/* PLAIN (zigzag 0) */
			ts_thrift_varint(&o, 6);	/* RLE (zigzag 3) */
			ts_thrift_list(&o, 3, 8, 1);
			ts_thrift_varint(&o, strlen(name));
			ts_thrift_raw(&o, name, strlen(name));
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
	for (int i = 0; i < 4; i++)
		tail[i] = (uint8_t) (meta.len >> (8 * i));
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
		ts_free(c->chunk_off);
		ts_free(c->chunk_len);
		ts_free(c->chunk_raw);
		ts_free(c->chunk_values);
	}
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	ts_buf_free(&w->page);
	ts_buf_free(&w->packed);
	ts_buf_free(&w->hdr);
	ts_free(w->cols);
	ts_free(w);
}
