/*
 * pq_writer.c - the streaming Parquet writer (pq_writer.h).
 *
 * Owns: the writer's life (create, add, finish, free), the Thrift compact
 * encoding of page headers and the footer, cutting each leaf's pages as
 * they fill (levels, PLAIN values, zstd) and writing each row group as it
 * fills.  The Parquet
 * schema tree of the fields written (pq_node) is pq_write_schema.c's,
 * shredding each row's values into the per-leaf buffers of the current
 * row group (PLAIN values, repetition and definition levels)
 * pq_write_shred.c's; pq_write_internal.h is what they share.  The layout follows Paimon's
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

#include "format/parquet/pq_write_internal.h"

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
		if (!pqw_build_node(w, &w->top[i], fields[i].name, fields[i].type, fields[i].type->nullable,
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
	w->row_group_bytes = row_group_bytes ? row_group_bytes : TS_PQ_ROW_GROUP_BYTES;
	ts_pq_writer_set_page_size(w, 0, 0);
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

void
ts_pq_writer_set_page_size(ts_pq_writer *w, size_t page_bytes, int64_t page_rows)
{
	w->page_bytes = page_bytes ? page_bytes : TS_PQ_PAGE_BYTES;
	w->page_row_limit = page_rows > 0 ? page_rows : TS_PQ_PAGE_ROWS;
}

/* Bytes leaf c buffers for the page being filled (as put_entry counts them). */
static size_t
page_buffered(const pq_column *c)
{
	return c->values.len + c->nlevels * (size_t) ((c->max_def > 0) + (c->max_rep > 0));
}

/* Leaf c's buffered entries as one data page, compressed, appended to its chunk. */
static bool
cut_page(ts_pq_writer *w, pq_column *c, ts_err *err)
{
	const ts_buf *raw = &c->values;	/* the page body: levels if any, then values */
	const ts_buf *body;
	ts_thrift_out h;

	if (c->physical == PQW_BOOLEAN && c->bit_n > 0)
	{
		/* the values of a page are bit-packed from its first bit */
		if (!ts_buf_append(&c->values, &c->bit_acc, 1, NULL))
			return ts_error_nomem(err, "a Parquet page");
		c->bit_acc = 0;
		c->bit_n = 0;
	}
	if (c->max_rep > 0 || c->max_def > 0)
	{
		ts_buf_reset(&w->page);
		if ((c->max_rep > 0 && !pq_write_levels(c->reps, c->nlevels, c->max_rep, &w->page)) ||
			(c->max_def > 0 && !pq_write_levels(c->defs, c->nlevels, c->max_def, &w->page)) ||
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
	if (h.failed || !ts_buf_append(&c->pages, w->hdr.data, w->hdr.len, NULL) ||
		!ts_buf_append(&c->pages, body->data, body->len, NULL))
		return ts_error_nomem(err, "a Parquet page");
	c->pages_raw += (int64_t) (w->hdr.len + raw->len);
	c->pages_values += (int64_t) c->nlevels;
	ts_buf_reset(&c->values);
	c->nlevels = 0;
	c->page_rows = 0;
	return true;
}

/* Write the buffered rows as one row group: each leaf's pages, the last one cut now. */
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

		if (!ts_check_interrupts(err))
			return false;
		if ((c->nlevels > 0 || c->pages.len == 0) && !cut_page(w, c, err))
			return false;
		c->chunk_off[w->ngroups] = w->written;
		c->chunk_len[w->ngroups] = (int64_t) c->pages.len;
		c->chunk_raw[w->ngroups] = c->pages_raw;
		c->chunk_values[w->ngroups] = c->pages_values;
		if (!emit(w, c->pages.data, c->pages.len, err))
			return false;
		ts_buf_reset(&c->pages);
		c->pages_raw = 0;
		c->pages_values = 0;
	}
	w->group_rows_of[w->ngroups++] = w->group_rows;
	w->group_rows = 0;
	w->buffered = 0;
	return true;
}

bool
ts_pq_writer_add(ts_pq_writer *w, const ts_value *row, ts_err *err)
{
	for (int i = 0; i < w->nfields; i++)
	{
		const pq_node *n = &w->top[i];

		if (row[i].isnull && n->repetition == PQW_REQUIRED)
			return ts_error(err, TS_ERR_INVALID, "null value in NOT NULL column \"%s\"", n->name);
		if (!pqw_shred(w, n, &row[i], 0, 0, err))
			return false;
	}
	w->group_rows++;
	w->rows++;
	/* pages end at a row's end: a reader never sees a record split across two */
	for (int i = 0; i < w->ncols; i++)
	{
		pq_column  *c = &w->cols[i];

		if ((++c->page_rows >= w->page_row_limit || page_buffered(c) >= w->page_bytes) &&
			!cut_page(w, c, err))
			return false;
	}
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
		pqw_put_schema(&o, &w->top[i], w);
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
		ts_buf_free(&c->pages);
		ts_free(c->defs);
		ts_free(c->reps);
		ts_free(c->path);
		ts_free(c->chunk_off);
		ts_free(c->chunk_len);
		ts_free(c->chunk_raw);
		ts_free(c->chunk_values);
	}
	for (int i = 0; i < w->nfields && w->top; i++)
		pqw_free_node(&w->top[i]);
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
