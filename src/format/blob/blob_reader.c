/*
 * blob_reader.c - reader of Paimon BLOB files (".blob", file format "blob").
 *
 * Owns: decoding one .blob file into rows of a single BLOB column.  Paimon
 * (1.3+) stores each BLOB column of a data-evolution table in files of its
 * own, one value per row, in row order:
 *
 *   record*  index  index_length:int32le  version:int8 (= 1)
 *
 * A record is  magic:int32le (0x584E11CF)  bytes  length:int64le  crc:int32le
 * where length is the record's own size (bytes + 16) and crc the CRC-32 of
 * magic, bytes and length.  The index holds one entry per row, the record
 * lengths, delta-encoded, zig-zag, as varints.  Entry -1 is a NULL value,
 * -2 a placeholder (a row a data-evolution partial update did not write,
 * resolved by Java's blob fallback read); neither occupies file space.
 *
 * Fails closed: placeholders, other versions and BLOB arrays (which need
 * another read type) are TS_ERR_UNSUPPORTED; a record whose magic, length
 * or checksum does not match is TS_ERR_CORRUPT.  Memory is bounded by a
 * batch: rows are read until TS_BATCH_ROWS or BLOB_BATCH_BYTES are reached
 * (at least one row).
 */
#include <string.h>
#include <zlib.h>

#include "base/ts_bytes.h"
#include "format/format.h"

#define BLOB_VERSION 1
#define BLOB_MAGIC 0x584E11CFu
#define BLOB_FOOTER 5			/* index_length + version */
#define BLOB_RECORD_OVERHEAD 16 /* magic + length + crc */
#define BLOB_NULL (-1)
#define BLOB_PLACEHOLDER (-2)
#define BLOB_BATCH_BYTES ((size_t) 64 << 20)
#define BLOB_MAX_VALUE ((int64_t) 0x3FFFFFFF - 4)	/* largest bytea */

typedef struct blob_reader
{
	ts_format_reader base;
	ts_file    *file;
	char	   *path;
	int			ncols;			/* 0 (row count only) or 1 */
	int64_t    *lengths;		/* index entries */
	int64_t    *offsets;		/* record offsets (entries >= 0) */
	int64_t		nrows;
	int64_t		pos;			/* next row */
	int			batch_rows;
	ts_value   *values;
	uint8_t    *buf;			/* record bytes of the current batch */
	size_t		buf_cap;
} blob_reader;

static void
blob_close(ts_format_reader *fr)
{
	blob_reader *r = (blob_reader *) fr;

	ts_file_close(r->file);
	ts_free(r->path);
	ts_free(r->lengths);
	ts_free(r->offsets);
	ts_free(r->values);
	ts_free(r->buf);
	ts_free(r);
}

static int	blob_next(ts_format_reader *fr, ts_batch *batch, ts_err *err);

static const ts_format_reader_ops blob_ops = {blob_next, blob_close};

/* Decode the index (delta + zig-zag varints) into r->lengths / r->offsets. */
static bool
decode_index(blob_reader *r, const uint8_t *index, size_t len, int64_t data_end, ts_err *err)
{
	ts_cursor	c;
	int64_t		prev = 0,
				offset = 0;

	/* every entry takes at least one byte */
	r->lengths = ts_calloc(len ? len : 1, sizeof(int64_t));
	r->offsets = ts_calloc(len ? len : 1, sizeof(int64_t));
	if (r->lengths == NULL || r->offsets == NULL)
		return ts_error_nomem(err, NULL);
	ts_cursor_init(&c, index, len);
	while (ts_cursor_left(&c) > 0)
	{
		uint64_t	u;
		int64_t		v;

		if (!ts_cursor_uvarint(&c, &u, err))
			return ts_error_context(err, "index of blob file \"%s\"", r->path);
		v = (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
		v = (int64_t) ((uint64_t) prev + (uint64_t) v);		/* wraps like Java */
		prev = v;
		if (v < BLOB_PLACEHOLDER || (v >= 0 && v < BLOB_RECORD_OVERHEAD) ||
			(v >= 0 && v > data_end - offset))
			return ts_error(err, TS_ERR_CORRUPT,
							"blob file \"%s\": index entry %lld has length %lld (file data ends at %lld)",
							r->path, (long long) r->nrows, (long long) v, (long long) data_end);
		r->lengths[r->nrows] = v;
		r->offsets[r->nrows] = offset;
		if (v >= 0)
			offset += v;
		r->nrows++;
	}
	return true;
}

ts_format_reader *
ts_blob_open(const char *path, const ts_read_column *columns, int ncols,
			 const ts_reader_options *options, ts_err *err)
{
	blob_reader *r;
	uint8_t		footer[BLOB_FOOTER];
	uint8_t    *index = NULL;
	int64_t		size,
				index_len;

	if (ncols > 1)
	{
		ts_error(err, TS_ERR_INVALID, "blob file \"%s\" holds one column, %d asked", path, ncols);
		return NULL;
	}
	if (ncols == 1 && columns[0].type->kind != TS_BLOB)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "blob file \"%s\": column \"%s\" of type %s is not supported in blob files (only BLOB)",
				 path, columns[0].name ? columns[0].name : "",
				 ts_type_kind_name(columns[0].type->kind));
		return NULL;
	}
	r = ts_calloc(1, sizeof(*r));
	if (r == NULL || (r->path = ts_malloc(strlen(path) + 1)) == NULL)
	{
		ts_free(r);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	strcpy(r->path, path);
	r->ncols = ncols;
	r->batch_rows = ts_reader_batch_rows(options);
	r->base.ops = &blob_ops;
	r->file = ts_file_open(ts_reader_fs(options), path, err);
	if (r->file == NULL)
		goto fail;
	size = ts_file_size(r->file);
	if (size < BLOB_FOOTER)
	{
		ts_error(err, TS_ERR_CORRUPT, "blob file \"%s\" is too short (%lld bytes)",
				 path, (long long) size);
		goto fail;
	}
	if (!ts_file_pread(r->file, footer, BLOB_FOOTER, size - BLOB_FOOTER, err))
		goto fail;
	if (footer[4] != BLOB_VERSION)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "blob file \"%s\" has version %d (only version %d is supported)",
				 path, footer[4], BLOB_VERSION);
		goto fail;
	}
	index_len = (int32_t) ts_load_le32(footer);
	if (index_len < 0 || index_len > size - BLOB_FOOTER)
	{
		ts_error(err, TS_ERR_CORRUPT, "blob file \"%s\": index length %lld does not fit a file of %lld bytes",
				 path, (long long) index_len, (long long) size);
		goto fail;
	}
	index = ts_malloc(index_len ? index_len : 1);
	if (index == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	if (!ts_file_pread(r->file, index, index_len, size - BLOB_FOOTER - index_len, err) ||
		!decode_index(r, index, index_len, size - BLOB_FOOTER - index_len, err))
		goto fail;
	ts_free(index);
	r->values = ts_calloc(r->batch_rows, sizeof(ts_value));
	if (r->values == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail_noindex;
	}
	r->base.metrics.bytes_read = BLOB_FOOTER + index_len;
	r->base.metrics.row_groups_total = r->base.metrics.row_groups_kept = 1;
	return &r->base;

fail:
	ts_free(index);
fail_noindex:
	blob_close(&r->base);
	return NULL;
}

/* Read record 'row' into dst (buffer space reserved by the caller). */
static bool
read_record(blob_reader *r, int64_t row, uint8_t *dst, ts_value *out, ts_err *err)
{
	int64_t		len = r->lengths[row];
	uint32_t	crc;

	if (!ts_file_pread(r->file, dst, (size_t) len, r->offsets[row], err))
		return ts_error_context(err, "blob file \"%s\"", r->path);
	crc = (uint32_t) crc32(0L, dst, (uInt) (len - 4));
	if (ts_load_le32(dst) != BLOB_MAGIC ||
		ts_load_le64(dst + len - 12) != (uint64_t) len ||
		ts_load_le32(dst + len - 4) != crc)
		return ts_error(err, TS_ERR_CORRUPT,
						"blob file \"%s\": record of row %lld at offset %lld is damaged (bad magic, length or CRC-32)",
						r->path, (long long) row, (long long) r->offsets[row]);
	out->isnull = false;
	out->v.s.p = dst + 4;
	out->v.s.len = (uint32_t) (len - BLOB_RECORD_OVERHEAD);
	r->base.metrics.bytes_read += len;
	return true;
}

static int
blob_next(ts_format_reader *fr, ts_batch *batch, ts_err *err)
{
	blob_reader *r = (blob_reader *) fr;
	int			n = 0;
	size_t		bytes = 0;

	memset(batch, 0, sizeof(*batch));
	batch->ncols = r->ncols;
	if (r->pos >= r->nrows)
		return 0;
	/* pick the rows of this batch and the bytes they need */
	while (r->pos + n < r->nrows && n < r->batch_rows)
	{
		int64_t		len = r->lengths[r->pos + n];

		if (len == BLOB_PLACEHOLDER)
		{
			ts_error(err, TS_ERR_UNSUPPORTED,
					 "blob file \"%s\": row %lld is a placeholder of a partial BLOB update (blob fallback reads are not supported)",
					 r->path, (long long) (r->pos + n));
			return -1;
		}
		if (len > BLOB_MAX_VALUE + BLOB_RECORD_OVERHEAD)
		{
			ts_error(err, TS_ERR_UNSUPPORTED,
					 "blob file \"%s\": BLOB value of row %lld has %lld bytes, more than a bytea holds",
					 r->path, (long long) (r->pos + n), (long long) (len - BLOB_RECORD_OVERHEAD));
			return -1;
		}
		if (r->ncols > 0 && len > 0)
		{
			if (n > 0 && bytes + len > BLOB_BATCH_BYTES)
				break;
			bytes += len;
		}
		n++;
	}
	if (bytes > r->buf_cap)
	{
		ts_free(r->buf);
		r->buf = ts_malloc(bytes);
		r->buf_cap = r->buf ? bytes : 0;
		if (r->buf == NULL)
		{
			ts_error_nomem(err, NULL);
			return -1;
		}
	}
	bytes = 0;
	for (int i = 0; i < n && r->ncols > 0; i++)
	{
		int64_t		row = r->pos + i;
		ts_value   *v = &r->values[i];

		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		memset(v, 0, sizeof(*v));
		if (r->lengths[row] == BLOB_NULL)
		{
			v->isnull = true;
			continue;
		}
		if (!read_record(r, row, r->buf + bytes, v, err))
			return -1;
		bytes += r->lengths[row];
	}
	r->pos += n;
	r->base.metrics.rows_read += n;
	batch->nrows = n;
	batch->values = r->ncols > 0 ? r->values : NULL;
	return n;
}
