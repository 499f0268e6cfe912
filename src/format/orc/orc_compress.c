/*
 * orc_compress.c - ORC's chunked stream compression.
 *
 * Owns: splitting a compressed ORC stream (or footer/metadata section)
 * into chunks with 3-byte little-endian headers (length * 2 + isOriginal)
 * and decompressing each with zlib (raw deflate), snappy, LZ4 (raw block)
 * or zstd.  A chunk never expands past the postscript's block size, so
 * every output buffer is bounded by it.
 */
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <lz4.h>

#include "base/ts_snappy.h"
#include "format/orc/orc_internal.h"

const char *
orc_compression_name(int compression)
{
	switch (compression)
	{
		case ORC_COMP_NONE:
			return "NONE";
		case ORC_COMP_ZLIB:
			return "ZLIB";
		case ORC_COMP_SNAPPY:
			return "SNAPPY";
		case ORC_COMP_LZO:
			return "LZO";
		case ORC_COMP_LZ4:
			return "LZ4";
		case ORC_COMP_ZSTD:
			return "ZSTD";
	}
	return "unknown";
}

static bool
inflate_raw(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *outlen, ts_err *err)
{
	z_stream	zs;
	int			rc;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK)
		return ts_error(err, TS_ERR_NOMEM, "zlib initialisation failed");
	zs.next_in = (Bytef *) in;
	zs.avail_in = (uInt) len;
	zs.next_out = out;
	zs.avail_out = (uInt) cap;
	rc = inflate(&zs, Z_FINISH);
	*outlen = cap - zs.avail_out;
	inflateEnd(&zs);
	if (rc != Z_STREAM_END)
		return ts_error(err, TS_ERR_CORRUPT, "bad ZLIB chunk (zlib error %d%s)", rc,
						rc == Z_BUF_ERROR ? ", larger than the compression block size" : "");
	return true;
}

bool
orc_decompress(int compression, uint64_t block_size,
			   const uint8_t *in, size_t len, size_t max_out,
			   ts_buf *out, ts_err *err)
{
	ts_cursor	c;
	size_t		start = out->len;

	if (compression == ORC_COMP_NONE)
		return ts_buf_append(out, in, len, err);
	if (compression != ORC_COMP_ZLIB && compression != ORC_COMP_SNAPPY &&
		compression != ORC_COMP_LZ4 && compression != ORC_COMP_ZSTD)
		return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported ORC compression %s (%d)",
						orc_compression_name(compression), compression);
	if (block_size == 0 || block_size > (64u << 20))
		return ts_error(err, TS_ERR_CORRUPT, "bad ORC compression block size %llu",
						(unsigned long long) block_size);

	ts_cursor_init(&c, in, len);
	while (ts_cursor_left(&c) > 0)
	{
		const uint8_t *h;
		const uint8_t *chunk;
		uint32_t	hdr;
		size_t		clen;
		size_t		got = 0;
		uint8_t    *dst;

		if (!ts_cursor_bytes(&c, 3, &h, err))
			return ts_error_context(err, "compression chunk header");
		hdr = ts_load_le16(h) | ((uint32_t) h[2] << 16);
		clen = hdr >> 1;
		if (clen > ts_cursor_left(&c))
			return ts_error(err, TS_ERR_CORRUPT,
							"compression chunk of %zu bytes runs past the stream end (%zu left)",
							clen, ts_cursor_left(&c));
		chunk = c.p;
		c.p += clen;
		if (out->len - start > max_out)
			return ts_error(err, TS_ERR_CORRUPT, "decompressed section exceeds %zu bytes", max_out);
		if (hdr & 1)
		{
			if (!ts_buf_append(out, chunk, clen, err))
				return false;
			continue;
		}
		if (!ts_buf_reserve(out, (size_t) block_size, err))
			return false;
		dst = out->data + out->len;
		switch (compression)
		{
			case ORC_COMP_ZLIB:
				if (!inflate_raw(chunk, clen, dst, (size_t) block_size, &got, err))
					return false;
				break;
			case ORC_COMP_SNAPPY:
				{
					size_t		ulen;
					const ts_snappy_api *snappy = ts_snappy(err);

					if (snappy == NULL)
						return false;
					if (snappy->uncompressed_length((const char *) chunk, clen, &ulen) != SNAPPY_OK ||
						ulen > block_size)
						return ts_error(err, TS_ERR_CORRUPT, "bad SNAPPY chunk header");
					got = ulen;
					if (snappy->uncompress((const char *) chunk, clen, (char *) dst, &got) != SNAPPY_OK)
						return ts_error(err, TS_ERR_CORRUPT, "bad SNAPPY chunk");
					break;
				}
			case ORC_COMP_LZ4:
				{
					int			n;

					if (clen > INT32_MAX)
						return ts_error(err, TS_ERR_CORRUPT, "LZ4 chunk too large");
					n = LZ4_decompress_safe((const char *) chunk, (char *) dst, (int) clen,
											(int) block_size);
					if (n < 0)
						return ts_error(err, TS_ERR_CORRUPT, "bad LZ4 chunk");
					got = (size_t) n;
					break;
				}
			case ORC_COMP_ZSTD:
				{
					size_t		n = ZSTD_decompress(dst, (size_t) block_size, chunk, clen);

					if (ZSTD_isError(n))
						return ts_error(err, TS_ERR_CORRUPT, "bad ZSTD chunk: %s",
										ZSTD_getErrorName(n));
					got = n;
					break;
				}
		}
		out->len += got;
	}
	return true;
}
