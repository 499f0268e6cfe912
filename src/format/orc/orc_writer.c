/*
 * orc_writer.c - a streaming ORC writer for Paimon rows (see orc_writer.h).
 *
 * Rows are copied into an arena until the stripe is full; then each
 * column's streams are encoded (PRESENT as boolean RLE where the column
 * has NULLs, integers as RLE v1 literal runs, strings and binaries as DATA
 * + LENGTH, lists and maps as LENGTH + child columns), compressed in
 * chunks, and written with the stripe footer through the sink.  The
 * footer, the metadata (stripe statistics) and the postscript follow the
 * last stripe.  The protobuf messages (PostScript, Footer, Metadata,
 * StripeFooter of orc_proto.proto) are encoded by hand.
 *
 * This file owns the writer itself: the ORC types of the schema, buffering
 * rows, assembling a stripe (its streams, footer and statistics) and the
 * file's tail (footer, metadata, postscript).  The column encoders are
 * orc_write_columns.c's, the protobuf, RLE and compression primitives
 * orc_write_encode.c's; orc_write_internal.h is what they share.
 */
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "format/orc/orc_write_internal.h"

/* ---- types ---------------------------------------------------------------- */

/* the ORC type kind of a Paimon type, as OrcTypeUtil.convertToOrcType maps it; -1: none */
static int
ow_kind(const ts_type *t)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return OW_BOOLEAN;
		case TS_TINYINT:
			return OW_BYTE;
		case TS_SMALLINT:
			return OW_SHORT;
		case TS_INT:
		case TS_TIME:
			return OW_INT;
		case TS_BIGINT:
			return OW_LONG;
		case TS_FLOAT:
			return OW_FLOAT;
		case TS_DOUBLE:
			return OW_DOUBLE;
		case TS_DECIMAL:
			return OW_DECIMAL;
		case TS_CHAR:
			return OW_CHAR;
		case TS_VARCHAR:
			return t->length == TS_STRING_LENGTH ? OW_STRING : OW_VARCHAR;
		case TS_VARBINARY:
			return t->length == TS_STRING_LENGTH ? OW_BINARY : -1;
		case TS_DATE:
			return OW_DATE;
		case TS_TIMESTAMP:
			return OW_TIMESTAMP;
		case TS_TIMESTAMP_LTZ:
			return OW_TIMESTAMP_INSTANT;
		case TS_ARRAY:
			return OW_LIST;
		case TS_MAP:
			return OW_MAP;
		case TS_ROW:
			return OW_STRUCT;
		default:
			return -1;
	}
}

bool
ts_orc_writer_supports(const char *col, const ts_type *t, ts_err *err)
{
	if (ow_kind(t) < 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\": type %s is not supported in ORC data files",
				 col, ts_type_kind_name(t->kind));
		if (t->kind == TS_VARBINARY || t->kind == TS_BINARY)
			ts_error_hint(err, "Paimon's ORC format takes BYTES only, no BINARY(n) or VARBINARY(n).");
		return false;
	}
	if (t->kind == TS_ARRAY)
		return ts_orc_writer_supports(col, t->element, err);
	if (t->kind == TS_MAP)
		return ts_orc_writer_supports(col, t->key, err) && ts_orc_writer_supports(col, t->value, err);
	if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			if (!ts_orc_writer_supports(col, t->fields[i].type, err))
				return false;
	return true;
}

/* ORC columns of a Paimon type: itself and its children */
int
ow_ncolumns(const ts_type *t)
{
	int			n = 1;

	if (t->kind == TS_ARRAY)
		n += ow_ncolumns(t->element);
	else if (t->kind == TS_MAP)
		n += ow_ncolumns(t->key) + ow_ncolumns(t->value);
	else if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			n += ow_ncolumns(t->fields[i].type);
	return n;
}

/* the Paimon type of each ORC column, in pre-order from cid */
static int
ow_fill_columns(ts_orc_writer *w, const ts_type *t, int cid)
{
	int			next = cid + 1;

	w->col_types[cid] = t;
	w->col_kinds[cid] = ow_kind(t);
	if (t->kind == TS_ARRAY)
		next = ow_fill_columns(w, t->element, next);
	else if (t->kind == TS_MAP)
	{
		next = ow_fill_columns(w, t->key, next);
		next = ow_fill_columns(w, t->value, next);
	}
	else if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			next = ow_fill_columns(w, t->fields[i].type, next);
	return next;
}

/* the Type message of a struct's fields: subtypes from first_id, names */
static void
ow_struct_fields(ts_orc_writer *w, ts_buf *m, const ts_field *fields, int nfields, int first_id)
{
	ts_buf		sub;
	int			id = first_id;

	if (nfields == 0)
		return;
	ts_buf_init(&sub);
	for (int i = 0; i < nfields; i++)
	{
		ow_varint(w, &sub, (uint64_t) id);
		id += ow_ncolumns(fields[i].type);
	}
	ow_pb_message(w, m, 2, &sub);	/* packed subtypes */
	ts_buf_free(&sub);
	for (int i = 0; i < nfields; i++)
		ow_pb_string(w, m, 3, fields[i].name);
}

/*
 * The Type messages of ORC column cid (Paimon type t, attribute paimon.id
 * pid) and its children, in column order; field_id and depth give the ids
 * Paimon puts on ARRAY elements and MAP keys / values.
 */
static void
ow_types(ts_orc_writer *w, ts_buf *footer, const ts_type *t, int cid, int32_t pid,
		 int32_t field_id, int depth)
{
	int			kind = ow_kind(t);
	ts_buf		m,
				a;
	char		id[16];

	ts_buf_init(&m);
	ts_buf_init(&a);
	ow_pb_uint(w, &m, 1, (uint64_t) kind);
	if (kind == OW_LIST || kind == OW_MAP)
	{
		ts_buf		sub;

		ts_buf_init(&sub);
		ow_varint(w, &sub, (uint64_t) cid + 1);
		if (kind == OW_MAP)
			ow_varint(w, &sub, (uint64_t) (cid + 1 + ow_ncolumns(t->key)));
		ow_pb_message(w, &m, 2, &sub);
		ts_buf_free(&sub);
	}
	if (kind == OW_STRUCT)
		ow_struct_fields(w, &m, t->fields, t->nfields, cid + 1);
	if (kind == OW_VARCHAR || kind == OW_CHAR)
		ow_pb_uint(w, &m, 4, (uint64_t) t->length);
	if (kind == OW_DECIMAL)
	{
		ow_pb_uint(w, &m, 5, (uint64_t) t->precision);
		ow_pb_uint(w, &m, 6, (uint64_t) t->scale);
	}
	snprintf(id, sizeof(id), "%d", (int) pid);
	ow_pb_string(w, &a, 1, "paimon.id");
	ow_pb_string(w, &a, 2, id);
	ow_pb_message(w, &m, 7, &a);
	ow_pb_message(w, footer, 4, &m);
	ts_buf_free(&m);
	ts_buf_free(&a);

	if (kind == OW_LIST)
		ow_types(w, footer, t->element, cid + 1,
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	else if (kind == OW_MAP)
	{
		ow_types(w, footer, t->key, cid + 1,
				 OW_NESTED_ID_BASE - field_id * OW_NESTED_DEPTH_LIMIT - depth - 1,
				 field_id, depth + 1);
		ow_types(w, footer, t->value, cid + 1 + ow_ncolumns(t->key),
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	}
	else if (kind == OW_STRUCT)
	{
		int			fid = cid + 1;

		/* a ROW's fields carry their own ids (convertToOrcSchema) */
		for (int i = 0; i < t->nfields; i++)
		{
			ow_types(w, footer, t->fields[i].type, fid, t->fields[i].id, t->fields[i].id, 0);
			fid += ow_ncolumns(t->fields[i].type);
		}
	}
}

/* ---- the writer ---------------------------------------------------------- */

ts_orc_writer *
ts_orc_writer_create(const ts_field *fields, int n, ts_orc_codec codec, int level,
					 size_t stripe_bytes, int64_t stripe_rows, ts_orc_sink sink, void *arg,
					 ts_err *err)
{
	ts_orc_writer *w;
	int			cid = 1;

	for (int i = 0; i < n; i++)
		if (!ts_orc_writer_supports(fields[i].name, fields[i].type, err))
			return NULL;
	if (codec != TS_ORC_CODEC_NONE && codec != TS_ORC_CODEC_ZLIB && codec != TS_ORC_CODEC_SNAPPY &&
		codec != TS_ORC_CODEC_LZ4 && codec != TS_ORC_CODEC_ZSTD)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "ORC compression %d is not supported", (int) codec);
		return NULL;
	}
	if ((w = ts_calloc(1, sizeof(ts_orc_writer))) == NULL)
	{
		ts_error_nomem(err, "an ORC writer");
		return NULL;
	}
	w->fields = fields;
	w->nfields = n;
	w->codec = codec;
	w->level = level > 0 ? level : 1;
	w->stripe_bytes = stripe_bytes ? stripe_bytes : (size_t) 8 << 20;
	w->stripe_rows = stripe_rows;
	w->sink = sink;
	w->arg = arg;
	w->ok = true;
	ts_arena_init(&w->arena, 64 * 1024);
	ts_buf_init(&w->stripes);
	ts_buf_init(&w->stripe_stats);
	ts_buf_init(&w->data);
	ts_buf_init(&w->sfooter);
	ts_buf_init(&w->chunk);
	w->ncolumns = 1;
	for (int i = 0; i < n; i++)
		w->ncolumns += ow_ncolumns(fields[i].type);
	w->col_types = ts_calloc((size_t) w->ncolumns, sizeof(ts_type *));
	w->col_kinds = ts_calloc((size_t) w->ncolumns, sizeof(int));
	w->sstats = ts_calloc((size_t) w->ncolumns, sizeof(ow_stats));
	w->fstats = ts_calloc((size_t) w->ncolumns, sizeof(ow_stats));
	if (w->col_types == NULL || w->col_kinds == NULL || w->sstats == NULL || w->fstats == NULL ||
		(codec == TS_ORC_CODEC_ZSTD && (w->cctx = ZSTD_createCCtx()) == NULL))
	{
		ts_orc_writer_free(w);
		ts_error_nomem(err, "an ORC writer");
		return NULL;
	}
	w->col_kinds[0] = OW_STRUCT;
	for (int i = 0; i < n; i++)
		cid = ow_fill_columns(w, fields[i].type, cid);
	/* the header: "ORC" */
	w->err = err;
	if (!sink(arg, "ORC", 3, err))
	{
		ts_orc_writer_free(w);
		return NULL;
	}
	w->offset = 3;
	return w;
}

/* a deep copy of v (type t) into the arena; false when out of memory */
static bool
copy_value(ts_orc_writer *w, ts_value *dst, const ts_value *src, const ts_type *t)
{
	int			nitems;

	*dst = *src;
	if (src->isnull)
		return true;
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (src->v.s.len == 0)
				return true;
			dst->v.s.p = ts_arena_dup(&w->arena, src->v.s.p, src->v.s.len);
			w->buffered += src->v.s.len;
			return dst->v.s.p != NULL;
		case TS_ARRAY:
		case TS_MAP:
		case TS_ROW:
			nitems = t->kind == TS_MAP ? 2 * src->v.nested.n : src->v.nested.n;
			dst->v.nested.items = ts_arena_alloc(&w->arena, sizeof(ts_value) * (size_t) (nitems + 1));
			if (dst->v.nested.items == NULL)
				return false;
			w->buffered += sizeof(ts_value) * (size_t) nitems;
			for (int i = 0; i < nitems; i++)
			{
				const ts_type *et = t->kind == TS_ARRAY ? t->element :
					t->kind == TS_ROW ? t->fields[i].type : (i % 2 == 0 ? t->key : t->value);

				if (!copy_value(w, &dst->v.nested.items[i], &src->v.nested.items[i], et))
					return false;
			}
			return true;
		default:
			return true;
	}
}

/* the buffered rows as one stripe, written through the sink */
static bool
write_stripe(ts_orc_writer *w, ts_err *err)
{
	const ts_value **vals;
	ts_buf		m,
				raw;
	int			cid = 1;
	uint64_t	stripe_off = w->offset;

	if (w->nrows == 0)
		return true;
	w->err = err;
	vals = ts_calloc((size_t) w->nrows, sizeof(ts_value *));
	if (vals == NULL)
		return ts_error_nomem(err, "an ORC stripe");
	ts_buf_reset(&w->data);
	ts_buf_reset(&w->sfooter);
	for (int c = 0; c < w->nfields && w->ok; c++)
	{
		if (!ts_check_interrupts(err))
		{
			w->ok = false;
			break;
		}
		for (int64_t r = 0; r < w->nrows; r++)
			vals[r] = &w->rows[r][c];
		ow_column(w, vals, (size_t) w->nrows, cid);
		cid += ow_ncolumns(w->fields[c].type);
	}
	ts_free(vals);
	w->sstats[0].count = (uint64_t) w->nrows;
	ts_buf_init(&m);
	ts_buf_init(&raw);
	for (int c = 0; c < w->ncolumns; c++)
	{
		ts_buf_reset(&m);
		ow_pb_uint(w, &m, 1, 0);	/* DIRECT */
		ow_pb_message(w, &w->sfooter, 2, &m);
	}
	ow_pb_string(w, &w->sfooter, 3, "UTC");
	ow_compress(w, &raw, &w->sfooter);
	if (w->ok && (!w->sink(w->arg, w->data.data, w->data.len, err) ||
				  !w->sink(w->arg, raw.data, raw.len, err)))
		w->ok = false;
	/* its StripeInformation and StripeStatistics; the file's statistics */
	ts_buf_reset(&m);
	ow_pb_uint(w, &m, 1, stripe_off);
	ow_pb_uint(w, &m, 2, 0);		/* indexLength: no row index */
	ow_pb_uint(w, &m, 3, w->data.len);
	ow_pb_uint(w, &m, 4, raw.len);
	ow_pb_uint(w, &m, 5, (uint64_t) w->nrows);
	ow_pb_message(w, &w->stripes, 3, &m);
	ts_buf_reset(&m);
	for (int c = 0; c < w->ncolumns; c++)
	{
		ow_stats_message(w, &m, 1, &w->sstats[c], w->col_kinds[c]);
		ow_stats_merge(w, &w->fstats[c], &w->sstats[c], w->col_kinds[c], w->col_types[c]);
		ow_stats_reset(&w->sstats[c]);
	}
	ow_pb_message(w, &w->stripe_stats, 1, &m);
	w->offset += w->data.len + raw.len;
	ts_buf_free(&m);
	ts_buf_free(&raw);
	w->total_rows += w->nrows;
	w->nrows = 0;
	w->buffered = 0;
	ts_arena_reset(&w->arena);
	return w->ok;
}

bool
ts_orc_writer_add(ts_orc_writer *w, const ts_value *row, ts_err *err)
{
	ts_value   *copy;

	if (!w->ok)
		return ts_error(err, TS_ERR_INVALID, "ORC writer used after an error");
	if (w->nrows == w->cap_rows)
	{
		int64_t		cap = w->cap_rows ? w->cap_rows * 2 : 1024;
		ts_value  **nr = ts_realloc(w->rows, sizeof(ts_value *) * (size_t) cap);

		if (nr == NULL)
			return ts_error_nomem(err, "an ORC stripe");
		w->rows = nr;
		w->cap_rows = cap;
	}
	copy = ts_arena_alloc(&w->arena, sizeof(ts_value) * (size_t) (w->nfields ? w->nfields : 1));
	if (copy == NULL)
		return ts_error_nomem(err, "an ORC stripe");
	w->buffered += sizeof(ts_value) * (size_t) w->nfields;
	for (int i = 0; i < w->nfields; i++)
		if (!copy_value(w, &copy[i], &row[i], w->fields[i].type))
			return ts_error_nomem(err, "an ORC stripe");
	w->rows[w->nrows++] = copy;
	if (w->buffered >= w->stripe_bytes || (w->stripe_rows > 0 && w->nrows >= w->stripe_rows))
		return write_stripe(w, err);
	return true;
}

int64_t
ts_orc_writer_bytes(const ts_orc_writer *w)
{
	return (int64_t) (w->offset + w->buffered);
}

int64_t
ts_orc_writer_rows(const ts_orc_writer *w)
{
	return w->total_rows + w->nrows;
}

bool
ts_orc_writer_finish(ts_orc_writer *w, ts_err *err)
{
	ts_buf		footer,
				metadata,
				m,
				ps,
				out;
	int			cid = 1;
	uint8_t		pslen;
	bool		ok;

	if (!w->ok)
		return ts_error(err, TS_ERR_INVALID, "ORC writer used after an error");
	if (!write_stripe(w, err))
		return false;
	w->err = err;
	ts_buf_init(&footer);
	ts_buf_init(&metadata);
	ts_buf_init(&m);
	ts_buf_init(&ps);
	ts_buf_init(&out);

	/* metadata: the stripes' statistics */
	ow_compress(w, &out, &w->stripe_stats);
	{
		size_t		metadata_len = out.len;

		/* footer */
		ow_pb_uint(w, &footer, 1, 3);	/* headerLength */
		ow_pb_uint(w, &footer, 2, w->offset - 3);	/* contentLength: the stripes */
		ow_put(w, &footer, w->stripes.data, w->stripes.len);
		/* type 0: the struct of all columns, then each column's types */
		ow_pb_uint(w, &m, 1, OW_STRUCT);
		ow_struct_fields(w, &m, w->fields, w->nfields, 1);
		ow_pb_message(w, &footer, 4, &m);
		for (int c = 0; c < w->nfields; c++)
		{
			ow_types(w, &footer, w->fields[c].type, cid, w->fields[c].id, w->fields[c].id, 0);
			cid += ow_ncolumns(w->fields[c].type);
		}
		ow_pb_uint(w, &footer, 6, (uint64_t) w->total_rows);
		w->fstats[0].count = (uint64_t) w->total_rows;
		for (int c = 0; c < w->ncolumns; c++)
			ow_stats_message(w, &footer, 7, &w->fstats[c], w->col_kinds[c]);
		ow_pb_uint(w, &footer, 8, 0);	/* rowIndexStride: no index */
		{
			size_t		before = out.len;

			ow_compress(w, &out, &footer);

			/* postscript */
			ow_pb_uint(w, &ps, 1, out.len - before);
			ow_pb_uint(w, &ps, 2, (uint64_t) w->codec);
			ow_pb_uint(w, &ps, 3, OW_BLOCK_SIZE);
			ts_buf_reset(&m);
			ow_varint(w, &m, 0);
			ow_varint(w, &m, 12);
			ow_pb_message(w, &ps, 4, &m);	/* version 0.12, packed */
			ow_pb_uint(w, &ps, 5, metadata_len);
			ow_pb_uint(w, &ps, 6, 9);	/* writerVersion */
			ow_pb_string(w, &ps, 8000, "ORC");
		}
	}
	pslen = (uint8_t) ps.len;
	ow_put(w, &out, ps.data, ps.len);
	ow_put(w, &out, &pslen, 1);
	ok = w->ok && w->sink(w->arg, out.data, out.len, err);
	if (ok)
		w->offset += out.len;
	w->ok = false;				/* finished: only free remains */
	ts_buf_free(&footer);
	ts_buf_free(&metadata);
	ts_buf_free(&m);
	ts_buf_free(&ps);
	ts_buf_free(&out);
	return ok;
}

void
ts_orc_writer_free(ts_orc_writer *w)
{
	if (w == NULL)
		return;
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	for (int c = 0; w->sstats && c < w->ncolumns; c++)
	{
		ts_buf_free(&w->sstats[c].smin);
		ts_buf_free(&w->sstats[c].smax);
	}
	for (int c = 0; w->fstats && c < w->ncolumns; c++)
	{
		ts_buf_free(&w->fstats[c].smin);
		ts_buf_free(&w->fstats[c].smax);
	}
	ts_free(w->sstats);
	ts_free(w->fstats);
	ts_free(w->col_types);
	ts_free(w->col_kinds);
	ts_free(w->rows);
	ts_arena_free(&w->arena);
	ts_buf_free(&w->stripes);
	ts_buf_free(&w->stripe_stats);
	ts_buf_free(&w->data);
	ts_buf_free(&w->sfooter);
	ts_buf_free(&w->chunk);
	ts_free(w);
}
