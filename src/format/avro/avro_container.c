/*
 * avro_container.c - read the Avro object container framing and codecs.
 *
 * Owns: header parsing (magic, metadata map, sync), block iteration with
 * sync verification (blocks taken from a read-ahead window of the file:
 * a MiB at a time, 8 MiB of an object, whose first window comes with the
 * header and whose next window is requested while one is read),
 * and decompression (null, deflate = raw RFC 1951,
 * snappy + big-endian CRC32 of the uncompressed bytes, zstandard frames
 * without a content size).  Every length from the file is checked
 * against the file size and TS_AVRO_MAX_BLOCK_BYTES before allocating.
 */
#include <string.h>

#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_d_stableOutBuffer, ZSTD_createDCtx_advanced,
									 * ZSTD_decompressBound */
#include <zstd.h>
#include <zstd_errors.h>

#include "base/ts_ranges.h"
#include "base/ts_snappy.h"
#include "format/avro/avro_container.h"

static const uint8_t avro_magic[4] = {'O', 'b', 'j', 1};

static void start_next_window(ts_avro_container *c, int64_t from);

const char *
ts_avro_codec_name(ts_avro_codec codec)
{
	switch (codec)
	{
		case TS_AVRO_CODEC_NULL:
			return "null";
		case TS_AVRO_CODEC_DEFLATE:
			return "deflate";
		case TS_AVRO_CODEC_SNAPPY:
			return "snappy";
		case TS_AVRO_CODEC_ZSTANDARD:
			return "zstandard";
	}
	return "?";
}

bool
ts_avro_codec_parse(const char *name, ts_avro_codec *codec)
{
	if (strcmp(name, "null") == 0)
		*codec = TS_AVRO_CODEC_NULL;
	else if (strcmp(name, "deflate") == 0)
		*codec = TS_AVRO_CODEC_DEFLATE;
	else if (strcmp(name, "snappy") == 0)
		*codec = TS_AVRO_CODEC_SNAPPY;
	else if (strcmp(name, "zstandard") == 0)
		*codec = TS_AVRO_CODEC_ZSTANDARD;
	else
		return false;
	return true;
}

/* ---- codecs ---------------------------------------------------------- */

static bool
grow_output(ts_buf *out, size_t want, ts_err *err)
{
	uint8_t    *p;

	if (want > TS_AVRO_MAX_BLOCK_BYTES)
		return ts_error(err, TS_ERR_CORRUPT, "block decompresses to more than %zu bytes",
						(size_t) TS_AVRO_MAX_BLOCK_BYTES);
	if (want <= out->cap)
		return true;
	/* exactly 'want' (the callers double): a bound is not rounded up */
	p = ts_realloc(out->data, want);
	if (p == NULL)
		return ts_error_nomemf(err, "growing a buffer to %zu bytes", want);
	out->data = p;
	out->cap = want;
	return true;
}

static bool
decompress_deflate(const uint8_t *in, size_t len, ts_buf *out, ts_err *err)
{
	z_stream	zs;
	int			rc;
	size_t		cap = len * 4 + 1024;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK)
		return ts_error(err, TS_ERR_NOMEM, "cannot initialise zlib inflate");
	zs.next_in = (Bytef *) in;
	zs.avail_in = (uInt) len;
	for (;;)
	{
		if (out->cap - out->len < 1024 || out->cap == out->len)
		{
			if (cap < out->cap * 2)
				cap = out->cap * 2;
			if (!grow_output(out, cap, err))
			{
				inflateEnd(&zs);
				return false;
			}
		}
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt) (out->cap - out->len);
		rc = inflate(&zs, Z_NO_FLUSH);
		out->len = out->cap - zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc == Z_BUF_ERROR && zs.avail_in == 0)
		{
			inflateEnd(&zs);
			return ts_error(err, TS_ERR_CORRUPT, "truncated deflate data");
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR)
		{
			inflateEnd(&zs);
			return ts_error(err, TS_ERR_CORRUPT, "bad deflate data (%s)", zs.msg ? zs.msg : "zlib error");
		}
		if (zs.avail_in == 0 && zs.avail_out != 0)
		{
			inflateEnd(&zs);
			return ts_error(err, TS_ERR_CORRUPT, "truncated deflate data");
		}
	}
	inflateEnd(&zs);
	return true;
}

static bool
decompress_snappy(const uint8_t *in, size_t len, ts_buf *out, ts_err *err)
{
	size_t		ulen;
	uint32_t	crc;
	const ts_snappy_api *snappy = ts_snappy(err);

	if (snappy == NULL)
		return false;
	if (len < 4)
		return ts_error(err, TS_ERR_CORRUPT, "snappy block shorter than its CRC");
	if (snappy->uncompressed_length((const char *) in, len - 4, &ulen) != SNAPPY_OK)
		return ts_error(err, TS_ERR_CORRUPT, "bad snappy block header");
	if (!grow_output(out, ulen ? ulen : 1, err))
		return false;
	if (snappy->uncompress((const char *) in, len - 4, (char *) out->data, &ulen) != SNAPPY_OK)
		return ts_error(err, TS_ERR_CORRUPT, "bad snappy data");
	out->len = ulen;
	crc = (uint32_t) crc32(0L, out->data, (uInt) ulen);
	if (crc != ts_load_be32(in + len - 4))
		return ts_error(err, TS_ERR_CORRUPT, "snappy block CRC32 mismatch");
	return true;
}

/*
 * One decompression context for the whole process, created at first use
 * and never freed: creating one costs more than decompressing a small
 * block (a table of many small files paid it per file).  Every call
 * resets its session and decompresses a whole frame, so calls never
 * overlap (single-threaded library; a failed call leaves nothing behind
 * that the next reset does not clear).  Allocated with malloc by zstd,
 * outside any memory context, on purpose: it outlives every query.
 */
static ZSTD_DCtx *shared_dctx = NULL;

/*
 * Decompress a block straight into out (ZSTD_d_stableOutBuffer): without
 * it zstd decodes into its own window buffer and copies out of it.  The
 * output buffer is first sized to the bound the frames give (their
 * content size, else their number of blocks times the block size: Java
 * writes no content size, and metadata blocks compress 10-20 times, far
 * beyond any fixed guess), faulted in at once when it grows; it is kept
 * from block to block.  A block that still does not fit (a bound that
 * cannot be had, or corrupt data) doubles it and is decompressed again.
 * Returns 1 when done, 0 when this path cannot tell (corrupt or truncated
 * data, the size limit): the streaming path then decides, with its error
 * messages; -1 out of memory.
 */
static int
zstd_into_buffer(ZSTD_DCtx *dctx, const uint8_t *in, size_t len, ts_buf *out, ts_err *err)
{
	unsigned long long bound = ZSTD_decompressBound(in, len);
	size_t		cap = bound != ZSTD_CONTENTSIZE_ERROR && bound > 0 &&
		bound <= TS_AVRO_MAX_BLOCK_BYTES ? (size_t) bound : len * 4 + 4096;

	if (cap < out->cap)
		cap = out->cap;
	for (;;)
	{
		ZSTD_inBuffer ib = {in, len, 0};
		ZSTD_outBuffer ob;
		size_t		ret = 1;
		size_t		had = out->cap;

		if (cap > TS_AVRO_MAX_BLOCK_BYTES)
			return 0;
		if (!grow_output(out, cap, err))
			return -1;
		if (out->cap != had)
			ts_prefault(out->data, out->cap);	/* about to be written */
		ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
		if (ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_stableOutBuffer, 1)))
			return 0;
		ob.dst = out->data;
		ob.size = out->cap;
		ob.pos = 0;
		while (ib.pos < ib.size || ret != 0)
		{
			size_t		in_before = ib.pos,
						out_before = ob.pos;

			ret = ZSTD_decompressStream(dctx, &ob, &ib);
			if (ZSTD_isError(ret) || (ib.pos == in_before && ob.pos == out_before))
				break;
		}
		if (!ZSTD_isError(ret) && ret == 0 && ib.pos == ib.size)
		{
			out->len = ob.pos;
			return 1;
		}
		if (ob.pos < ob.size &&
			!(ZSTD_isError(ret) && ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall))
			return 0;			/* not for want of room */
		cap = out->cap * 2;
	}
}

static bool
decompress_zstd(const uint8_t *in, size_t len, ts_buf *out, void **ctxp, ts_err *err)
{
	ZSTD_DCtx  *dctx = ctxp ? (ZSTD_DCtx *) *ctxp : shared_dctx;
	ZSTD_inBuffer ib = {in, len, 0};
	size_t		ret = 1;
	size_t		cap = len * 4 + 4096;
	bool		ok = true;

	if (dctx == NULL)
	{
		if (ctxp)
		{
			/* the caller's context lives in its memory (contexts in a backend) */
			dctx = ts_zstd_dctx_create();
		}
		else
			dctx = ZSTD_createDCtx();	/* process-wide: malloc, outlives queries */
		if (dctx == NULL)
			return ts_error(err, TS_ERR_NOMEM, "cannot create zstd context");
		if (ctxp)
			*ctxp = dctx;
		else
			shared_dctx = dctx;
	}
	if (len > 0)
	{
		int			rc = zstd_into_buffer(dctx, in, len, out, err);

		if (rc != 0)
			return rc > 0;
		ts_buf_reset(out);
	}
	/* the streaming path: zstd's window buffer, output grown as needed */
	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
	if (len == 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "empty zstd block");
	while (ok && (ib.pos < ib.size || ret != 0))
	{
		ZSTD_outBuffer ob;

		if (out->cap - out->len < 4096)
		{
			if (cap < out->cap * 2)
				cap = out->cap * 2;
			if (!grow_output(out, cap, err))
			{
				ok = false;
				break;
			}
		}
		ob.dst = out->data + out->len;
		ob.size = out->cap - out->len;
		ob.pos = 0;
		ret = ZSTD_decompressStream(dctx, &ob, &ib);
		if (ZSTD_isError(ret))
		{
			ok = ts_error(err, TS_ERR_CORRUPT, "bad zstd frame (%s)", ZSTD_getErrorName(ret));
			break;
		}
		out->len += ob.pos;
		if (ib.pos == ib.size && ret != 0 && ob.pos < ob.size)
		{
			ok = ts_error(err, TS_ERR_CORRUPT, "truncated zstd frame");
			break;
		}
	}
	return ok;
}

bool
ts_avro_decompress(ts_avro_codec codec, const uint8_t *in, size_t len,
				   ts_buf *out, void **zstd_ctx, ts_err *err)
{
	ts_buf_reset(out);
	switch (codec)
	{
		case TS_AVRO_CODEC_NULL:
			return ts_buf_append(out, in, len, err);
		case TS_AVRO_CODEC_DEFLATE:
			return decompress_deflate(in, len, out, err);
		case TS_AVRO_CODEC_SNAPPY:
			return decompress_snappy(in, len, out, err);
		case TS_AVRO_CODEC_ZSTANDARD:
			return decompress_zstd(in, len, out, zstd_ctx, err);
	}
	return ts_error(err, TS_ERR_UNSUPPORTED, "unknown Avro codec");
}

/* ---- header ---------------------------------------------------------- */

/*
 * Parse the header from buf.  Returns 1 on success, 0 when buf is too
 * short (caller reads more), -1 on error.
 */
static int
parse_header(ts_avro_container *c, const uint8_t *buf, size_t len, size_t *header_len, ts_err *err)
{
	ts_cursor	cur;
	ts_err		tmp;
	const uint8_t *schema = NULL;
	size_t		schema_len = 0;
	char		codec[64] = "null";
	const uint8_t *sync;

	ts_cursor_init(&cur, buf, len);
	if (len < 4)
		return 0;
	if (memcmp(buf, avro_magic, 4) != 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "not an Avro object container file (bad magic)");
		return -1;
	}
	cur.p += 4;
	for (;;)
	{
		int64_t		count;

		if (!ts_cursor_zigzag(&cur, &count, &tmp))
			return 0;
		if (count == 0)
			break;
		if (count < 0)
		{
			int64_t		size;

			if (count == INT64_MIN)
				goto bad;
			count = -count;
			if (!ts_cursor_zigzag(&cur, &size, &tmp))
				return 0;
		}
		if ((uint64_t) count > ts_cursor_left(&cur))
		{
			if (len < (size_t) c->file_size)
				return 0;
			goto bad;
		}
		for (int64_t i = 0; i < count; i++)
		{
			int64_t		klen,
						vlen;
			const uint8_t *k,
					   *v;

			if (!ts_cursor_zigzag(&cur, &klen, &tmp))
				return 0;
			if (klen < 0)
				goto bad;
			if ((uint64_t) klen > ts_cursor_left(&cur))
				return len < (size_t) c->file_size ? 0 : (ts_error(err, TS_ERR_CORRUPT, "truncated header"), -1);
			k = cur.p;
			cur.p += klen;
			if (!ts_cursor_zigzag(&cur, &vlen, &tmp))
				return 0;
			if (vlen < 0)
				goto bad;
			if ((uint64_t) vlen > ts_cursor_left(&cur))
				return len < (size_t) c->file_size ? 0 : (ts_error(err, TS_ERR_CORRUPT, "truncated header"), -1);
			v = cur.p;
			cur.p += vlen;
			if (klen == 11 && memcmp(k, "avro.schema", 11) == 0)
			{
				schema = v;
				schema_len = (size_t) vlen;
			}
			else if (klen == 10 && memcmp(k, "avro.codec", 10) == 0)
			{
				if ((size_t) vlen >= sizeof(codec))
				{
					ts_error(err, TS_ERR_UNSUPPORTED, "unsupported Avro codec \"%.60s...\"", (const char *) v);
					return -1;
				}
				memcpy(codec, v, vlen);
				codec[vlen] = '\0';
			}
		}
	}
	if (!ts_cursor_bytes(&cur, 16, &sync, &tmp))
		return 0;
	memcpy(c->sync, sync, 16);
	if (schema == NULL)
	{
		ts_error(err, TS_ERR_CORRUPT, "header has no avro.schema");
		return -1;
	}
	for (size_t i = 0; codec[i]; i++)
		if ((unsigned char) codec[i] < 0x20 || (unsigned char) codec[i] > 0x7e)
			codec[i] = '?';
	if (!ts_avro_codec_parse(codec, &c->codec))
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "unsupported Avro codec \"%s\"", codec);
		return -1;
	}
	c->schema_json = ts_strndup((const char *) schema, schema_len);
	if (c->schema_json == NULL)
	{
		ts_error_nomem(err, NULL);
		return -1;
	}
	*header_len = (size_t) (cur.p - buf);
	return 1;
bad:
	ts_error(err, TS_ERR_CORRUPT, "bad metadata map in header");
	return -1;
}

ts_avro_container *
ts_avro_container_open(ts_fs *fs, const char *path, ts_err *err)
{
	return ts_avro_container_open_known(fs, path, NULL, NULL, err);
}

ts_avro_container *
ts_avro_container_open_known(ts_fs *fs, const char *path, const char *known_json,
							 ts_avro_schema *known, ts_err *err)
{
	ts_avro_container *c;
	size_t		want = 64 * 1024;
	uint8_t    *buf = NULL;
	size_t		header_len = 0;
	int			rc;

	c = ts_calloc(1, sizeof(ts_avro_container));
	if (c == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_buf_init(&c->window);
	ts_buf_init(&c->data);
	c->file = ts_file_open(fs, path, err);
	if (c->file == NULL)
	{
		ts_free(c);
		return NULL;
	}
	c->path = ts_file_path(c->file);
	c->file_size = ts_file_size(c->file);
	c->remote = ts_file_is_remote(c->file);
	if (c->remote)
	{
		want = TS_AVRO_READ_AHEAD_REMOTE;	/* the header and the first window: one request */
		start_next_window(c, (int64_t) want);	/* and the second, at the same time */
	}
	for (;;)
	{
		size_t		n = want < (size_t) c->file_size ? want : (size_t) c->file_size;
		uint8_t    *nb = ts_realloc(buf, n ? n : 1);

		if (nb == NULL)
		{
			ts_error_nomem(err, NULL);
			goto fail;
		}
		buf = nb;
		if (!ts_file_pread(c->file, buf, n, 0, err))
			goto fail;
		c->bytes_read = (int64_t) n;
		rc = parse_header(c, buf, n, &header_len, err);
		if (rc < 0)
			goto fail_ctx;
		if (rc > 0)
			break;
		if (n >= (size_t) c->file_size)
		{
			ts_error(err, TS_ERR_CORRUPT, "truncated header");
			goto fail_ctx;
		}
		want *= 4;
	}
	if (c->remote)
	{
		/* what was read after the header is the first window */
		c->window.data = buf;
		c->window.len = c->window.cap = (size_t) c->bytes_read;
		c->window_off = 0;
		c->bytes_read = (int64_t) header_len;
	}
	else
		ts_free(buf);
	buf = NULL;
	if (known != NULL && known_json != NULL && strcmp(c->schema_json, known_json) == 0)
	{
		c->schema = known;
		c->schema_borrowed = true;
	}
	else if ((c->schema = ts_avro_schema_parse(c->schema_json, strlen(c->schema_json),
											   c->path, err)) == NULL)
		goto fail;
	c->next_offset = (int64_t) header_len;
	return c;
fail_ctx:
	ts_error_context(err, "Avro file \"%s\"", path);
fail:
	ts_free(buf);
	ts_avro_container_close(c);
	return NULL;
}

/* ---- blocks ---------------------------------------------------------- */

/* Stop the next window's read (before its buffer goes) and forget it. */
static void
drop_next_window(ts_avro_container *c)
{
	ts_file_pread_many_cancel(c->next_reads);
	c->next_reads = NULL;
	c->next_len = 0;
}

/*
 * An object's window after the current one (TS_AVRO_READ_AHEAD_REMOTE bytes
 * from 'from', or what is left): requested now, not waited for, so that
 * the reader, getting there, waits for it at most once with the window
 * before.  Nothing is an error: a read that cannot start or fails leaves
 * the window to be read in turn, which reports why.
 */
static void
start_next_window(ts_avro_container *c, int64_t from)
{
	ts_range	rng;
	ts_err		err;
	size_t		len;

	if (!c->remote || c->next_len > 0 || from >= c->file_size)
		return;
	len = (size_t) (c->file_size - from) < TS_AVRO_READ_AHEAD_REMOTE ?
		(size_t) (c->file_size - from) : TS_AVRO_READ_AHEAD_REMOTE;
	if (c->next_cap < len)
	{
		ts_bufpool_put(c->buffers, c->next_buf, c->next_cap);
		c->next_cap = 0;
		if ((c->next_buf = ts_bufpool_get(c->buffers, len, &c->next_cap)) == NULL)
			return;
	}
	rng.offset = from;
	rng.len = len;
	rng.buf = c->next_buf;
	if ((c->next_reads = ts_file_pread_many_start(c->file, &rng, 1, &err)) == NULL)
		return;
	c->next_off = from;
	c->next_len = len;
}

/*
 * When [off, off + len) lies in what is left of the window and the next
 * window read ahead (which starts where this one ends): wait for that, and
 * make the two one window from off (true).
 */
static bool
window_from_next(ts_avro_container *c, int64_t off, size_t len)
{
	int64_t		end = c->window_off + (int64_t) c->window.len;
	size_t		keep;
	ts_err		err;
	bool		ok;

	if (c->next_len == 0)
		return false;
	if (c->next_off != end || off < c->window_off || off > end ||
		off + (int64_t) len > c->next_off + (int64_t) c->next_len)
	{
		drop_next_window(c);
		return false;
	}
	ok = ts_file_pread_many_finish(c->next_reads, &err);
	c->next_reads = NULL;
	keep = (size_t) (end - off);
	if (!ok || !ts_buf_reserve(&c->window, c->next_len, &err))
	{
		c->next_len = 0;
		return false;
	}
	memmove(c->window.data, c->window.data + (off - c->window_off), keep);
	memcpy(c->window.data + keep, c->next_buf, c->next_len);
	c->window.len = keep + c->next_len;
	c->window_off = off;
	c->next_len = 0;
	return true;
}

/*
 * Bytes [off, off + len) of the file (within it: the caller checked), from
 * the read-ahead window; when they are not all in it, the window is read
 * again from off: TS_AVRO_READ_AHEAD bytes, or len if more, or what is
 * left of the file.  Blocks are taken from the window in place, so a file
 * of small blocks costs a read per window, not two per block.  NULL on a
 * read error.
 */
static const uint8_t *
window_bytes(ts_avro_container *c, int64_t off, size_t len, ts_err *err)
{
	size_t		want;

	if (off >= c->window_off && off - c->window_off + (int64_t) len <= (int64_t) c->window.len)
		return c->window.data + (off - c->window_off);
	ts_avro_ahead_cancel(c);	/* queued blocks read the window */
	if (window_from_next(c, off, len))
	{
		start_next_window(c, c->window_off + (int64_t) c->window.len);
		return c->window.data;
	}
	want = c->remote ? TS_AVRO_READ_AHEAD_REMOTE : TS_AVRO_READ_AHEAD;
	if (len > want)
		want = len;
	if ((int64_t) want > c->file_size - off)
		want = (size_t) (c->file_size - off);
	ts_buf_reset(&c->window);
	c->window_off = 0;
	if (c->window.data == NULL && c->buffers != NULL)
		c->window.data = ts_bufpool_get(c->buffers, want ? want : 1, &c->window.cap);
	if (!ts_buf_reserve(&c->window, want ? want : 1, err) ||
		!ts_file_pread(c->file, c->window.data, want, off, err))
		return NULL;
	c->window.len = want;
	c->window_off = off;
	start_next_window(c, off + (int64_t) want);
	return c->window.data;
}

int
ts_avro_container_next_block(ts_avro_container *c, ts_err *err)
{
	const uint8_t *head;
	size_t		hlen;
	ts_cursor	cur;
	int64_t		count,
				size;
	int64_t		left = c->file_size - c->next_offset;
	const uint8_t *payload;
	int32_t		blockno = c->nblocks;	/* 0-based, as Parquet row groups / ORC stripes */
	uint8_t		head_buf[20];
	bool		skip;

	c->block = NULL;
	c->block_len = 0;
	c->block_count = 0;
	c->block_values = NULL;
	if (left <= 0)
		return 0;
	hlen = left < (int64_t) sizeof(head_buf) ? (size_t) left : sizeof(head_buf);
	if (c->counts_only && !c->remote)
	{
		/* header and sync marker only: no read-ahead of the bytes skipped */
		if (!ts_file_pread(c->file, head_buf, hlen, c->next_offset, err))
			return -1;
		head = head_buf;
	}
	else if ((head = window_bytes(c, c->next_offset, hlen, err)) == NULL)
		return -1;
	ts_cursor_init(&cur, head, hlen);
	if (!ts_cursor_zigzag(&cur, &count, err) || !ts_cursor_zigzag(&cur, &size, err))
		goto corrupt;
	if (count < 0 || size < 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "negative block count or size");
		goto corrupt;
	}
	left -= (int64_t) (cur.p - head);
	if (size > left - 16 || left < 16)
	{
		ts_error(err, TS_ERR_CORRUPT, "truncated block (%lld bytes announced, %lld left)",
				 (long long) size, (long long) (left > 16 ? left - 16 : 0));
		goto corrupt;
	}
	if (count > INT32_MAX)
	{
		ts_error(err, TS_ERR_CORRUPT, "absurd object count %lld", (long long) count);
		goto corrupt;
	}
	skip = c->keep_block != NULL && count > 0 &&
		!c->keep_block(c->keep_block_arg, c->next_row, count);
	if (c->counts_only || skip)
	{
		/*
		 * The object count is all the caller wants, or the block is passed
		 * over: check the sync marker only
		 */
		uint8_t		sync[16];
		int64_t		hl = (int64_t) (cur.p - head);	/* head is invalid once the window moves */
		int64_t		sync_off = c->next_offset + hl + size;

		if (c->remote || !c->counts_only)
		{
			/*
			 * From the window: a request per window, not two per block (an
			 * object), and the next block's header read with it
			 */
			const uint8_t *w = window_bytes(c, sync_off, 16, err);

			if (w == NULL)
				return -1;
			memcpy(sync, w, 16);
		}
		else if (!ts_file_pread(c->file, sync, 16, sync_off, err))
			return -1;
		c->bytes_read += hl + 16;
		if (memcmp(sync, c->sync, 16) != 0)
		{
			ts_error(err, TS_ERR_CORRUPT, "sync marker mismatch after block");
			goto corrupt;
		}
		if (skip)
		{
			ts_avro_ahead_skip(c, c->next_offset);
			c->nblocks_skipped++;
		}
		c->block_count = skip ? 0 : count;
		c->block_first_row = c->next_row;
		c->next_row += count;
		c->next_offset += hl + size + 16;
		c->nblocks = blockno + 1;
		return 1;
	}
	{
		int64_t		header_len = (int64_t) (cur.p - head);

		/* head is invalid once the window moves */
		payload = window_bytes(c, c->next_offset + header_len, (size_t) size + 16, err);
		if (payload == NULL)
			return -1;
		c->bytes_read += header_len + size + 16;
		if (memcmp(payload + size, c->sync, 16) != 0)
		{
			ts_error(err, TS_ERR_CORRUPT, "sync marker mismatch after block");
			goto corrupt;
		}
		if (c->codec == TS_AVRO_CODEC_NULL)
		{
			c->block = payload;
			c->block_len = (size_t) size;
		}
		else
		{
			/* the last file's block buffer, likely of the right size already */
			if (c->data.data == NULL && c->buffers != NULL)
				c->data.data = ts_bufpool_get(c->buffers, (size_t) size + 1, &c->data.cap);
			if (!ts_avro_ahead_take(c, c->next_offset, payload, (size_t) size) &&
				!ts_avro_decompress(c->codec, payload, (size_t) size, &c->data, NULL, err))
				goto corrupt;
			c->block = c->data.data;
			c->block_len = c->data.len;
		}
		c->block_count = count;
		c->block_first_row = c->next_row;
		c->next_row += count;
		c->next_offset += header_len + size + 16;
		c->nblocks = blockno + 1;
		ts_avro_ahead_submit(c);
		return 1;
	}
corrupt:
	ts_error_context(err, "Avro file \"%s\": block %d", c->path, (int) blockno);
	return -1;
}

int
ts_avro_container_next_objects(ts_avro_container *c, ts_cursor *cur, bool *have_block,
							   int64_t objects_read, int64_t *count, ts_err *err)
{
	int64_t		min = c->schema->root->min_encoded_size;

	*count = 0;
	while (*count == 0)
	{
		int			rc;

		/* blocks passed over (keep_block) are not decoded: no other check between them */
		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		if (*have_block && ts_cursor_left(cur) != 0)
			return ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": block %d: %zu bytes left after its %lld objects",
							c->path, (int) c->nblocks - 1, ts_cursor_left(cur),
							(long long) objects_read), -1;
		rc = ts_avro_container_next_block(c, err);
		if (rc <= 0)
		{
			*have_block = false;
			return rc;
		}
		*have_block = true;
		ts_cursor_init(cur, c->block, c->block_len);
		*count = c->block_count;
		objects_read = 0;
		if (!c->counts_only && min > 0 && (uint64_t) *count > c->block_len / (uint64_t) min)
			return ts_error(err, TS_ERR_CORRUPT,
							"Avro file \"%s\": block %d: %lld objects cannot fit in %zu bytes",
							c->path, (int) c->nblocks - 1, (long long) *count, c->block_len), -1;
	}
	return 1;
}

void
ts_avro_container_close(ts_avro_container *c)
{
	if (c == NULL)
		return;
	ts_avro_ahead_free(c);
	drop_next_window(c);		/* before its buffer goes */
	ts_bufpool_put(c->buffers, c->next_buf, c->next_cap);
	ts_file_close(c->file);
	ts_free(c->schema_json);
	if (!c->schema_borrowed)
		ts_avro_schema_free(c->schema);
	ts_bufpool_put(c->buffers, c->window.data, c->window.cap);
	ts_bufpool_put(c->buffers, c->data.data, c->data.cap);
	ts_bufpool_put(c->buffers, c->values, c->values_cap);
	ts_free(c);
}
