/*
 * pq_codec.c - Parquet page decompression.
 *
 * Owns: UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib, gzip or zlib
 * header), ZSTD (libzstd), LZ4_RAW and the deprecated LZ4 codec (Hadoop
 * framing, falling back to a raw LZ4 block as other readers do).  The
 * output size always comes from the page header and must match exactly.
 */
#include <string.h>
#include <limits.h>
#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_createDCtx_advanced */
#include <zstd.h>
#include <zlib.h>

#include "base/ts_snappy.h"
#include "format/parquet/pq_internal.h"

const char *
pq_codec_name(int codec)
{
	switch (codec)
	{
		case PQ_CODEC_UNCOMPRESSED:
			return "UNCOMPRESSED";
		case PQ_CODEC_SNAPPY:
			return "SNAPPY";
		case PQ_CODEC_GZIP:
			return "GZIP";
		case PQ_CODEC_LZO:
			return "LZO";
		case PQ_CODEC_BROTLI:
			return "BROTLI";
		case PQ_CODEC_LZ4:
			return "LZ4";
		case PQ_CODEC_ZSTD:
			return "ZSTD";
		case PQ_CODEC_LZ4_RAW:
			return "LZ4_RAW";
		default:
			return "unknown";
	}
}

bool
pq_codec_supported(int codec)
{
	return codec == PQ_CODEC_UNCOMPRESSED || codec == PQ_CODEC_SNAPPY ||
		codec == PQ_CODEC_GZIP || codec == PQ_CODEC_LZ4 ||
		codec == PQ_CODEC_ZSTD || codec == PQ_CODEC_LZ4_RAW;
}

static bool
gzip_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, ts_err *err)
{
	z_stream	zs;
	int			rc;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return ts_error(err, TS_ERR_NOMEM, "cannot initialise zlib");
	zs.next_in = (Bytef *) src;
	zs.avail_in = (uInt) src_len;
	zs.next_out = dst;
	zs.avail_out = (uInt) dst_len;
	rc = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END || zs.total_out != dst_len)
		return ts_error(err, TS_ERR_CORRUPT, "GZIP decompression failed (%s)",
						rc == Z_STREAM_END ? "size mismatch" : (zs.msg ? zs.msg : "bad data"));
	return true;
}

/* Hadoop LZ4 framing: [be32 raw len][be32 compressed len][block]... */
static bool
lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	size_t		in = 0,
				out = 0;

	while (in < src_len)
	{
		uint32_t	raw,
					clen;

		if (src_len - in < 8)
			return false;
		raw = ts_load_be32(src + in);
		clen = ts_load_be32(src + in + 4);
		in += 8;
		if (clen > src_len - in || raw > dst_len - out || clen > INT_MAX)
			return false;
		if (LZ4_decompress_safe((const char *) src + in, (char *) dst + out,
								(int) clen, (int) raw) != (int) raw)
			return false;
		in += clen;
		out += raw;
	}
	return out == dst_len;
}

static bool
zstd_decompress(void **ctx, const uint8_t *src, size_t src_len,
				uint8_t *dst, size_t dst_len, ts_err *err)
{
	size_t		n;

	if (ctx == NULL)
		n = ZSTD_decompress(dst, dst_len, src, src_len);
	else
	{
		if (*ctx == NULL)
		{
			*ctx = ts_zstd_dctx_create();
			if (*ctx == NULL)
				return ts_error(err, TS_ERR_NOMEM, "cannot create a ZSTD decompression context");
		}
		n = ZSTD_decompressDCtx((ZSTD_DCtx *) *ctx, dst, dst_len, src, src_len);
	}
	if (ZSTD_isError(n))
		return ts_error(err, TS_ERR_CORRUPT, "ZSTD decompression failed (%s)",
						ZSTD_getErrorName(n));
	if (n != dst_len)
		return ts_error(err, TS_ERR_CORRUPT, "ZSTD decompression failed (size mismatch)");
	return true;
}

void
pq_codec_ctx_free(void *zstd_ctx)
{
	if (zstd_ctx)
		ZSTD_freeDCtx((ZSTD_DCtx *) zstd_ctx);
}

bool
pq_decompress(int codec, const uint8_t *src, size_t src_len,
			  uint8_t *dst, size_t dst_len, ts_err *err)
{
	return pq_decompress_with(NULL, codec, src, src_len, dst, dst_len, err);
}

bool
pq_decompress_with(void **zstd_ctx, int codec, const uint8_t *src, size_t src_len,
				   uint8_t *dst, size_t dst_len, ts_err *err)
{
	if (src_len > INT_MAX || dst_len > INT_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "page larger than 2 GB");
	switch (codec)
	{
		case PQ_CODEC_UNCOMPRESSED:
			if (src_len != dst_len)
				return ts_error(err, TS_ERR_CORRUPT, "uncompressed page size mismatch");
			memcpy(dst, src, src_len);
			return true;
		case PQ_CODEC_SNAPPY:
			{
				size_t		n;
				const ts_snappy_api *snappy = ts_snappy(err);

				if (snappy == NULL)
					return false;
				if (snappy->uncompressed_length((const char *) src, src_len, &n) != SNAPPY_OK ||
					n != dst_len)
					return ts_error(err, TS_ERR_CORRUPT, "SNAPPY decompression failed (size mismatch)");
				n = dst_len;
				if (snappy->uncompress((const char *) src, src_len, (char *) dst, &n) != SNAPPY_OK ||
					n != dst_len)
					return ts_error(err, TS_ERR_CORRUPT, "SNAPPY decompression failed");
				return true;
			}
		case PQ_CODEC_GZIP:
			return gzip_decompress(src, src_len, dst, dst_len, err);
		case PQ_CODEC_ZSTD:
			return zstd_decompress(zstd_ctx, src, src_len, dst, dst_len, err);
		case PQ_CODEC_LZ4_RAW:
			if (LZ4_decompress_safe((const char *) src, (char *) dst, (int) src_len,
									(int) dst_len) != (int) dst_len)
				return ts_error(err, TS_ERR_CORRUPT, "LZ4_RAW decompression failed");
			return true;
		case PQ_CODEC_LZ4:
			if (lz4_hadoop(src, src_len, dst, dst_len))
				return true;
			if (LZ4_decompress_safe((const char *) src, (char *) dst, (int) src_len,
									(int) dst_len) == (int) dst_len)
				return true;
			return ts_error(err, TS_ERR_CORRUPT, "LZ4 decompression failed");
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported compression codec %s (%d)",
							pq_codec_name(codec), codec);
	}
}
