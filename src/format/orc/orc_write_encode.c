/*
 * orc_write_encode.c - the byte-level encodings of the ORC writer.
 *
 * Owns: protobuf fields (varints, length-delimited, doubles), ORC's run
 * length encodings (byte RLE, integer RLE v1, boolean RLE), 128-bit
 * varints of decimals, and compression: a stream or a tail section cut in
 * chunks of OW_BLOCK_SIZE, each compressed (or kept) with its 3-byte
 * header, and a stripe's stream appended with its footer entry.
 */
#include <string.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "base/ts_snappy.h"
#include "format/orc/orc_write_internal.h"

/* ---- protobuf ------------------------------------------------------------ */

void
ow_put(ts_orc_writer *w, ts_buf *b, const void *p, size_t n)
{
	if (w->ok && n > 0 && !ts_buf_append(b, p, n, w->err))
		w->ok = false;
}

/* base-128 varint (protobuf, RLE v1; 128 bits for decimals) */
static void
ow_uvarint(ts_orc_writer *w, ts_buf *b, unsigned __int128 u)
{
	uint8_t		x[20];
	size_t		n = 0;

	while (u >= 0x80)
	{
		x[n++] = (uint8_t) (u | 0x80);
		u >>= 7;
	}
	x[n++] = (uint8_t) u;
	ow_put(w, b, x, n);
}

void
ow_varint(ts_orc_writer *w, ts_buf *b, uint64_t v)
{
	ow_uvarint(w, b, v);
}

uint64_t
ow_zigzag(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

/* field number and wire type 0 (varint) */
void
ow_pb_uint(ts_orc_writer *w, ts_buf *b, int field, uint64_t v)
{
	ow_varint(w, b, (uint64_t) field << 3);
	ow_varint(w, b, v);
}

/* field number and wire type 1 (64-bit) */
void
ow_pb_double(ts_orc_writer *w, ts_buf *b, int field, double d)
{
	uint64_t	u;
	uint8_t		x[8];

	memcpy(&u, &d, 8);
	ts_store_le64(x, u);
	ow_varint(w, b, ((uint64_t) field << 3) | 1);
	ow_put(w, b, x, 8);
}

/* field number and wire type 2 (length-delimited) */
void
ow_pb_bytes(ts_orc_writer *w, ts_buf *b, int field, const void *p, size_t n)
{
	ow_varint(w, b, ((uint64_t) field << 3) | 2);
	ow_varint(w, b, n);
	ow_put(w, b, p, n);
}

void
ow_pb_string(ts_orc_writer *w, ts_buf *b, int field, const char *s)
{
	ow_pb_bytes(w, b, field, s, strlen(s));
}

void
ow_pb_message(ts_orc_writer *w, ts_buf *b, int field, const ts_buf *m)
{
	ow_pb_bytes(w, b, field, m->data, m->len);
}

/* ---- run-length encodings ------------------------------------------------ */

/* byte RLE: literal runs of at most 128 bytes (header -n) */
void
ow_byte_rle(ts_orc_writer *w, ts_buf *b, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(w, b, &h, 1);
		ow_put(w, b, v + i, k);
	}
}

/* integer RLE v1: literal runs of at most 128 varints (zig-zag if signed) */
void
ow_int_rle(ts_orc_writer *w, ts_buf *b, const int64_t *v, size_t n, bool is_signed)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(w, b, &h, 1);
		for (size_t j = i; j < i + k; j++)
			ow_varint(w, b, is_signed ? ow_zigzag(v[j]) : (uint64_t) v[j]);
	}
}

/* boolean RLE: bits, most significant first, then byte RLE */
void
ow_bool_rle(ts_orc_writer *w, ts_buf *b, const bool *v, size_t n)
{
	uint8_t		byte = 0;
	uint8_t		lit[128];
	size_t		nlit = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (v[i])
			byte |= (uint8_t) (0x80 >> (i % 8));
		if (i % 8 == 7 || i == n - 1)
		{
			lit[nlit++] = byte;
			byte = 0;
			if (nlit == 128)
			{
				ow_byte_rle(w, b, lit, nlit);
				nlit = 0;
			}
		}
	}
	ow_byte_rle(w, b, lit, nlit);
}

/* zig-zag base-128 varint of a 128-bit integer (decimal DATA) */
void
ow_varint128(ts_orc_writer *w, ts_buf *b, ts_int128 v)
{
	ow_uvarint(w, b, ((unsigned __int128) v << 1) ^ (unsigned __int128) (v >> 127));
}

/* ---- compression --------------------------------------------------------- */

/* one chunk of at most OW_BLOCK_SIZE bytes, compressed (or kept) with its header */
static void
ow_chunk(ts_orc_writer *w, ts_buf *out, const uint8_t *in, size_t len)
{
	size_t		got = 0;
	bool		compressed = false;
	uint32_t	h;
	uint8_t		hdr[3];

	size_t		cap = len + len / 4 + 1024;	/* past every codec's bound */

	ts_buf_reset(&w->chunk);
	if (!w->ok)
		return;
	if (!ts_buf_reserve(&w->chunk, cap, w->err))
	{
		w->ok = false;
		return;
	}
	switch (w->codec)
	{
		case TS_ORC_CODEC_ZSTD:
			got = ZSTD_compressCCtx(w->cctx, w->chunk.data, cap, in, len, w->level);
			compressed = !ZSTD_isError(got);
			break;
		case TS_ORC_CODEC_ZLIB:
			{
				z_stream	zs;

				memset(&zs, 0, sizeof(zs));
				if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
								 Z_DEFAULT_STRATEGY) != Z_OK)
				{
					w->ok = ts_error(w->err, TS_ERR_NOMEM, "zlib initialisation failed");
					return;
				}
				zs.next_in = (Bytef *) in;
				zs.avail_in = (uInt) len;
				zs.next_out = w->chunk.data;
				zs.avail_out = (uInt) cap;
				compressed = deflate(&zs, Z_FINISH) == Z_STREAM_END;
				got = zs.total_out;
				deflateEnd(&zs);
			}
			break;
		case TS_ORC_CODEC_LZ4:
			{
				int			n = LZ4_compress_default((const char *) in, (char *) w->chunk.data,
													 (int) len, (int) cap);

				compressed = n > 0;
				got = (size_t) (n > 0 ? n : 0);
			}
			break;
		case TS_ORC_CODEC_SNAPPY:
			{
				const ts_snappy_api *snappy = ts_snappy(w->err);

				if (snappy == NULL)
				{
					w->ok = false;
					return;
				}
				got = cap;
				compressed = snappy->compress((const char *) in, len, (char *) w->chunk.data,
											  &got) == SNAPPY_OK;
			}
			break;
		case TS_ORC_CODEC_NONE:
			break;
	}
	/* a chunk that does not shrink is stored as is (isOriginal), as Java does */
	if (!compressed || got >= len)
		h = (uint32_t) (len << 1) | 1;
	else
		h = (uint32_t) (got << 1);
	ts_store_le(hdr, h, 3);
	ow_put(w, out, hdr, 3);
	if (h & 1)
		ow_put(w, out, in, len);
	else
		ow_put(w, out, w->chunk.data, got);
}

/* raw bytes as ORC writes a stream or a tail section: chunked and compressed */
void
ow_compress(ts_orc_writer *w, ts_buf *out, const ts_buf *raw)
{
	if (w->codec == TS_ORC_CODEC_NONE)
	{
		ow_put(w, out, raw->data, raw->len);
		return;
	}
	for (size_t i = 0; i < raw->len; i += OW_BLOCK_SIZE)
		ow_chunk(w, out, raw->data + i, raw->len - i < OW_BLOCK_SIZE ? raw->len - i : OW_BLOCK_SIZE);
}

/* a stream of the stripe: compressed bytes appended to w->data, its entry to the footer */
void
ow_stream(ts_orc_writer *w, int kind, int column, const ts_buf *s)
{
	size_t		before = w->data.len;
	ts_buf		m;

	ow_compress(w, &w->data, s);
	ts_buf_init(&m);
	ow_pb_uint(w, &m, 1, (uint64_t) kind);
	ow_pb_uint(w, &m, 2, (uint64_t) column);
	ow_pb_uint(w, &m, 3, w->data.len - before);
	ow_pb_message(w, &w->sfooter, 1, &m);
	ts_buf_free(&m);
}
