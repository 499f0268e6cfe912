/*
 * orc_tail.c - reading an ORC file's tail and its compressed sections.
 *
 * Owns: locating the postscript (last byte = its length), the footer and
 * the metadata section from the end of the file, checking that they lie
 * inside the file, reading and decompressing them (and any other section,
 * such as stripe footers and streams) with bounded output.  The tail is
 * read by one request when postscript, footer and metadata lie in its
 * last bytes (ORC_TAIL_READ_REMOTE of an object), by two otherwise.
 */
#include <string.h>

#include "format/orc/orc_decode.h"

static bool
read_at(ts_file *f, int64_t *bytes_read, void *buf, size_t len, uint64_t off, ts_err *err)
{
	if (len == 0)
		return true;
	if (!ts_file_pread(f, buf, len, (int64_t) off, err))
		return false;
	*bytes_read += (int64_t) len;
	return true;
}

/* read a (compressed) section at off/len and decompress it into a fresh ts_buf */
bool
orc_read_section(ts_file *f, const orc_tail *tail, uint64_t off, uint64_t len, size_t max_out,
				 ts_buf *out, int64_t *bytes_read, ts_err *err)
{
	uint8_t    *raw;
	bool		ok;

	ts_buf_init(out);
	if (len > (uint64_t) ts_file_size(f))
		return ts_error(err, TS_ERR_CORRUPT, "section length %llu exceeds the file size",
						(unsigned long long) len);
	if (tail->compression == ORC_COMP_NONE)
	{
		if (!ts_buf_reserve(out, (size_t) len + 1, err))
			return false;
		if (!read_at(f, bytes_read, out->data, (size_t) len, off, err))
			return false;
		out->len = (size_t) len;
		return true;
	}
	raw = ts_malloc(len ? (size_t) len : 1);
	if (!raw)
		return ts_error_nomemf(err, "reading %llu bytes",
						(unsigned long long) len);
	ok = read_at(f, bytes_read, raw, (size_t) len, off, err) &&
		orc_decompress(tail->compression, tail->block_size, raw, (size_t) len,
					   max_out, out, err);
	ts_free(raw);
	return ok;
}

bool
orc_section_from(const orc_tail *tail, uint8_t **raw, size_t len, size_t max_out, ts_buf *out,
				 ts_err *err)
{
	bool		ok;

	ts_buf_init(out);
	if (tail->compression == ORC_COMP_NONE)
	{
		/* the bytes are the section: taken over, no copy */
		out->data = *raw;
		out->len = len;
		out->cap = len;
		*raw = NULL;
		return true;
	}
	ok = orc_decompress(tail->compression, tail->block_size, *raw, len, max_out, out, err);
	ts_free(*raw);
	*raw = NULL;
	return ok;
}

/* section [off, off + len) of the tail bytes held in buf from file offset base */
static bool
tail_section(const orc_tail *tail, const uint8_t *buf, uint64_t base, uint64_t off, uint64_t len,
			 ts_buf *out, ts_err *err)
{
	uint8_t    *raw = ts_malloc(len ? (size_t) len : 1);

	ts_buf_init(out);
	if (raw == NULL)
		return ts_error_nomemf(err, "reading %llu bytes", (unsigned long long) len);
	memcpy(raw, buf + (off - base), (size_t) len);
	return orc_section_from(tail, &raw, (size_t) len, ORC_MAX_META, out, err);
}

const char *
orc_type_kind_name(int k)
{
	static const char *names[] = {
		"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
		"string", "binary", "timestamp", "array", "map", "struct", "uniontype",
		"decimal", "date", "varchar", "char", "timestamp with local time zone"
	};

	return k >= 0 && k <= ORC_TIMESTAMP_INSTANT ? names[k] : "unknown";
}

/*
 * The tail parsed from tbuf, the file's last tlen bytes (of fsize): false
 * with *need set to the bytes from the end the postscript says footer and
 * metadata take, when that is more than tlen (err not set then).
 */
bool
orc_tail_from_bytes(const uint8_t *tbuf, size_t tlen, uint64_t fsize, orc_tail *tail,
					uint64_t *need, ts_err *err)
{
	uint64_t	base = fsize - tlen;
	uint8_t		ps_len;
	uint64_t	footer_off,
				meta_off;
	ts_buf		fb,
				mb;
	bool		ok;

	*need = 0;
	ps_len = tbuf[tlen - 1];
	if (ps_len == 0 || (size_t) ps_len + 1 > tlen)
		return ts_error(err, TS_ERR_CORRUPT, "bad postscript length %u", ps_len);
	if (!orc_parse_postscript(tbuf + tlen - 1 - ps_len, ps_len, tail, err))
		return false;
	if (tail->compression != ORC_COMP_NONE && tail->compression != ORC_COMP_ZLIB &&
		tail->compression != ORC_COMP_SNAPPY && tail->compression != ORC_COMP_LZ4 &&
		tail->compression != ORC_COMP_ZSTD)
		return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported compression %s (%d)",
						orc_compression_name(tail->compression), tail->compression);
	if (tail->footer_length > fsize || tail->metadata_length > fsize ||
		tail->footer_length + tail->metadata_length + ps_len + 1 > fsize)
		return ts_error(err, TS_ERR_CORRUPT, "footer (%llu bytes) and metadata (%llu bytes) run past the start of the file",
						(unsigned long long) tail->footer_length,
						(unsigned long long) tail->metadata_length);
	footer_off = fsize - 1 - ps_len - tail->footer_length;
	meta_off = footer_off - tail->metadata_length;
	if (fsize - meta_off > tlen)
	{
		*need = fsize - meta_off;	/* footer and metadata reach before the bytes given */
		return false;
	}
	ok = tail_section(tail, tbuf, base, footer_off, tail->footer_length, &fb, err);
	if (ok && !fb.data)
		ok = ts_buf_reserve(&fb, 1, err);
	if (!ok)
	{
		ts_buf_free(&fb);
		return ts_error_context(err, "footer");
	}
	if (!orc_parse_footer(fb.data, fb.len, tail, err))
		return false;
	{
		uint64_t	sum = 0;

		for (int i = 0; i < tail->nstripes; i++)
		{
			if (tail->stripes[i].nrows > (uint64_t) INT64_MAX - sum)
				return ts_error(err, TS_ERR_CORRUPT, "stripe row counts overflow");
			sum += tail->stripes[i].nrows;
		}
		if (sum != tail->nrows)
			return ts_error(err, TS_ERR_CORRUPT, "stripes hold %llu rows, footer says %llu",
							(unsigned long long) sum, (unsigned long long) tail->nrows);
	}
	if (tail->metadata_length > 0)
	{
		ok = tail_section(tail, tbuf, base, meta_off, tail->metadata_length, &mb, err);
		if (ok && !mb.data)
			ok = ts_buf_reserve(&mb, 1, err);
		if (!ok)
		{
			ts_buf_free(&mb);
			return ts_error_context(err, "metadata");
		}
		if (!orc_parse_metadata(mb.data, mb.len, tail, err))
			return false;
	}
	return true;
}

bool
orc_read_tail(ts_file *f, orc_tail *tail, int64_t *bytes_read, ts_err *err)
{
	int64_t		fsize = ts_file_size(f);
	size_t		tlen;
	size_t		max_tail = ts_file_is_remote(f) ? ORC_TAIL_READ_REMOTE : ORC_TAIL_READ;
	uint8_t    *tbuf;
	uint64_t	need;
	bool		ok;

	if (fsize < 4)
		return ts_error(err, TS_ERR_CORRUPT, "file of %lld bytes is too short for ORC",
						(long long) fsize);
	tlen = (uint64_t) fsize < max_tail ? (size_t) fsize : max_tail;
	tbuf = ts_malloc(tlen);
	if (!tbuf)
		return ts_error_nomem(err, NULL);
	if (!read_at(f, bytes_read, tbuf, tlen, (uint64_t) fsize - tlen, err))
	{
		ts_free(tbuf);
		return false;
	}
	ok = orc_tail_from_bytes(tbuf, tlen, (uint64_t) fsize, tail, &need, err);
	if (!ok && need > tlen)
	{
		/* footer and metadata reach before the bytes read: one more read of the rest */
		uint8_t    *nb;

		if (need > 2 * (uint64_t) ORC_MAX_META + 256)
		{
			ts_free(tbuf);
			return ts_error(err, TS_ERR_CORRUPT, "footer (%llu bytes) and metadata (%llu bytes) are too large",
							(unsigned long long) tail->footer_length,
							(unsigned long long) tail->metadata_length);
		}
		nb = ts_malloc((size_t) need);
		if (nb == NULL)
		{
			ts_free(tbuf);
			return ts_error_nomem(err, NULL);
		}
		memcpy(nb + (need - tlen), tbuf, tlen);
		ts_free(tbuf);
		tbuf = nb;
		if (!read_at(f, bytes_read, tbuf, (size_t) (need - tlen), (uint64_t) fsize - need, err))
		{
			ts_free(tbuf);
			return false;
		}
		ok = orc_tail_from_bytes(tbuf, (size_t) need, (uint64_t) fsize, tail, &need, err);
	}
	ts_free(tbuf);
	return ok;
}
