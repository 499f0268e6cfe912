/*
 * text_stream.c - a text file as a stream of lines, decompressed on the fly.
 *
 * Owns: reading a CSV/JSON/TEXT file in fixed-size chunks through ts_fs,
 * stream-decompressing it by extension (.gz, .deflate, .zst, .bz2, and the
 * Hadoop block framing used by .snappy and .lz4) and cutting the result
 * into lines (handed out of the read buffer without a copy when a line
 * lies within it), and the lines that start in a byte range of an
 * uncompressed file (a parallel part).  Memory is bounded by the chunk
 * buffers, one Hadoop block (<= 64 MiB, checked) and the longest line
 * (<= TS_TEXT_MAX_LINE), never by the file size.  Knows nothing about CSV or JSON syntax.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* memmem */
#endif
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <bzlib.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "base/ts_snappy.h"
#include "format/text/text_internal.h"

#define IN_CHUNK (64 * 1024)
#define OUT_CHUNK (64 * 1024)
#define MAX_HADOOP_BLOCK (64 * 1024 * 1024)

struct ts_text_stream
{
	ts_file    *f;
	char	   *path;
	int64_t		size;
	int64_t		pos;			/* next compressed byte to read from the file */
	ts_text_codec codec;
	/* compressed input chunk */
	uint8_t    *in;
	size_t		in_len;
	size_t		in_off;
	/* decompressed output not yet cut into lines */
	uint8_t    *out;
	size_t		out_cap;
	size_t		out_len;
	size_t		out_off;
	bool		done;			/* no more decompressed bytes */
	/* codec state */
	z_stream	z;
	bool		z_live;
	bool		z_ended;		/* last member/stream ended cleanly */
	ZSTD_DStream *zs;
	bz_stream	bz;
	bool		bz_live;
	bool		bz_ended;		/* last bzip2 stream ended cleanly */
	size_t		zs_ret;			/* last ZSTD_decompressStream result */
	ts_buf		chunk;			/* one Hadoop-framed compressed chunk */
	int64_t		out_base;		/* uncompressed: file offset of out[0] */
	/* line assembly */
	ts_buf		line;
	bool		skip_lf;		/* last line ended with \r: drop a leading \n */
	int64_t		lineno;
	/* a byte range read by a parallel part (uncompressed files only) */
	int64_t		range_start;
	int64_t		range_end;		/* 0: to the end of the file */
	bool		starts_line;	/* range_start is 0 or follows a line break */
	bool		stopped_at_end; /* a line started at range_end or after it */
};

ts_text_codec
ts_text_codec_from_path(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	if (dot == NULL || (slash && dot < slash))
		return TS_TEXT_CODEC_NONE;
	dot++;
	if (strcasecmp(dot, "gz") == 0 || strcasecmp(dot, "gzip") == 0)
		return TS_TEXT_CODEC_GZIP;
	if (strcasecmp(dot, "deflate") == 0 || strcasecmp(dot, "zlib") == 0)
		return TS_TEXT_CODEC_DEFLATE;
	if (strcasecmp(dot, "zst") == 0 || strcasecmp(dot, "zstd") == 0)
		return TS_TEXT_CODEC_ZSTD;
	if (strcasecmp(dot, "snappy") == 0)
		return TS_TEXT_CODEC_SNAPPY;
	if (strcasecmp(dot, "lz4") == 0)
		return TS_TEXT_CODEC_LZ4;
	if (strcasecmp(dot, "bz2") == 0)
		return TS_TEXT_CODEC_BZIP2;
	return TS_TEXT_CODEC_NONE;
}

const char *
ts_text_codec_name(ts_text_codec codec)
{
	switch (codec)
	{
		case TS_TEXT_CODEC_GZIP:
			return "gzip";
		case TS_TEXT_CODEC_DEFLATE:
			return "deflate";
		case TS_TEXT_CODEC_ZSTD:
			return "zstd";
		case TS_TEXT_CODEC_SNAPPY:
			return "snappy";
		case TS_TEXT_CODEC_LZ4:
			return "lz4";
		case TS_TEXT_CODEC_BZIP2:
			return "bzip2";
		default:
			return "none";
	}
}

ts_text_stream *
ts_text_stream_open(ts_fs *fs, const char *path, ts_err *err)
{
	ts_text_stream *s;
	ts_text_codec codec = ts_text_codec_from_path(path);

	s = ts_calloc(1, sizeof(ts_text_stream));
	if (s == NULL)
	{
		ts_error_nomemf(err, "opening \"%s\"", path);
		return NULL;
	}
	s->codec = codec;
	ts_buf_init(&s->line);
	ts_buf_init(&s->chunk);
	s->path = ts_strdup(path);
	s->in = ts_malloc(IN_CHUNK);
	if (s->path == NULL || s->in == NULL)
	{
		ts_error_nomemf(err, "opening \"%s\"", path);
		goto fail;
	}
	if (codec != TS_TEXT_CODEC_NONE && codec != TS_TEXT_CODEC_SNAPPY && codec != TS_TEXT_CODEC_LZ4)
	{
		s->out_cap = OUT_CHUNK;
		s->out = ts_malloc(OUT_CHUNK);
		if (s->out == NULL)
		{
			ts_error_nomemf(err, "opening \"%s\"", path);
			goto fail;
		}
	}
	if (codec == TS_TEXT_CODEC_GZIP || codec == TS_TEXT_CODEC_DEFLATE)
	{
		/* 15+32: zlib or gzip header auto-detected */
		if (inflateInit2(&s->z, codec == TS_TEXT_CODEC_GZIP ? 15 + 16 : 15 + 32) != Z_OK)
		{
			ts_error(err, TS_ERR_NOMEM, "file \"%s\": could not initialise zlib", path);
			goto fail;
		}
		s->z_live = true;
	}
	else if (codec == TS_TEXT_CODEC_BZIP2)
	{
		if (BZ2_bzDecompressInit(&s->bz, 0, 0) != BZ_OK)
		{
			ts_error(err, TS_ERR_NOMEM, "file \"%s\": could not initialise bzip2", path);
			goto fail;
		}
		s->bz_live = true;
	}
	else if (codec == TS_TEXT_CODEC_ZSTD)
	{
		s->zs = ZSTD_createDStream();
		if (s->zs == NULL || ZSTD_isError(ZSTD_initDStream(s->zs)))
		{
			ts_error(err, TS_ERR_NOMEM, "file \"%s\": could not initialise zstd", path);
			goto fail;
		}
	}
	s->f = ts_file_open(fs, path, err);
	if (s->f == NULL)
		goto fail;
	s->size = ts_file_size(s->f);
	return s;
fail:
	ts_text_stream_close(s);
	return NULL;
}

void
ts_text_stream_close(ts_text_stream *s)
{
	if (s == NULL)
		return;
	ts_file_close(s->f);
	if (s->z_live)
		inflateEnd(&s->z);
	if (s->zs)
		ZSTD_freeDStream(s->zs);
	if (s->bz_live)
		BZ2_bzDecompressEnd(&s->bz);
	ts_buf_free(&s->line);
	ts_buf_free(&s->chunk);
	if (s->out != s->in)
		ts_free(s->out);
	ts_free(s->in);
	ts_free(s->path);
	ts_free(s);
}

const char *
ts_text_stream_path(const ts_text_stream *s)
{
	return s->path;
}

int64_t
ts_text_stream_line_number(const ts_text_stream *s)
{
	return s->lineno;
}

int64_t
ts_text_stream_bytes_read(const ts_text_stream *s)
{
	return s->pos;
}

/* Refill the compressed input chunk; false on I/O error. */
static bool
read_in(ts_text_stream *s, ts_err *err)
{
	size_t		n = IN_CHUNK;

	if (s->size - s->pos < (int64_t) n)
		n = (size_t) (s->size - s->pos);
	s->in_off = 0;
	s->in_len = 0;
	s->out_base = s->pos;
	if (n == 0)
		return true;
	if (!ts_file_pread(s->f, s->in, n, s->pos, err))
		return false;
	s->pos += n;
	s->in_len = n;
	return true;
}

static bool
input_exhausted(const ts_text_stream *s)
{
	return s->in_off >= s->in_len && s->pos >= s->size;
}

/* Read exactly n compressed bytes (across chunks); *got < n only at EOF. */
static bool
read_exact(ts_text_stream *s, uint8_t *dst, size_t n, size_t *got, ts_err *err)
{
	*got = 0;
	while (*got < n)
	{
		size_t		take;

		if (s->in_off >= s->in_len)
		{
			if (!read_in(s, err))
				return false;
			if (s->in_len == 0)
				return true;
		}
		take = s->in_len - s->in_off;
		if (take > n - *got)
			take = n - *got;
		memcpy(dst + *got, s->in + s->in_off, take);
		s->in_off += take;
		*got += take;
	}
	return true;
}

/*
 * Compressed input for a stream decoder: the chunk refilled when used up.
 * At the end of the file, an error if the decoder is inside a stream
 * ('open'), else the end.  1 = input available, 0 = end, -1 = error.
 */
static int
need_input(ts_text_stream *s, bool open, ts_err *err)
{
	if (s->in_off < s->in_len)
		return 1;
	if (!read_in(s, err))
		return -1;
	if (s->in_len > 0)
		return 1;
	if (open)
	{
		ts_error(err, TS_ERR_CORRUPT, "file \"%s\": truncated %s stream", s->path,
				 ts_text_codec_name(s->codec));
		return -1;
	}
	s->done = true;
	return 0;
}

static bool
fill_zlib(ts_text_stream *s, ts_err *err)
{
	for (;;)
	{
		int			rc = need_input(s, !s->z_ended &&
									(s->z.total_in > 0 || s->codec == TS_TEXT_CODEC_DEFLATE), err);

		if (rc <= 0)
			return rc == 0;
		if (s->z_ended)
		{
			/* another gzip member follows (concatenated .gz) */
			if (inflateReset(&s->z) != Z_OK)
				return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": zlib reset failed", s->path);
			s->z_ended = false;
		}
		s->z.next_in = s->in + s->in_off;
		s->z.avail_in = (uInt) (s->in_len - s->in_off);
		s->z.next_out = s->out;
		s->z.avail_out = (uInt) s->out_cap;
		rc = inflate(&s->z, Z_NO_FLUSH);
		s->in_off = s->in_len - s->z.avail_in;
		s->out_len = s->out_cap - s->z.avail_out;
		s->out_off = 0;
		if (rc == Z_STREAM_END)
		{
			s->z_ended = true;
			if (s->codec == TS_TEXT_CODEC_DEFLATE || input_exhausted(s))
			{
				/* a zlib stream is one stream; trailing bytes are ignored */
				if (s->out_len == 0)
					s->done = true;
				if (s->codec == TS_TEXT_CODEC_DEFLATE)
				{
					s->in_off = s->in_len;
					s->pos = s->size;
				}
				return true;
			}
		}
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": corrupt %s data (%s)", s->path,
							ts_text_codec_name(s->codec), s->z.msg ? s->z.msg : "inflate failed");
		if (s->out_len > 0)
			return true;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
	}
}

static bool
fill_zstd(ts_text_stream *s, ts_err *err)
{
	for (;;)
	{
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		int			rc = need_input(s, s->zs_ret != 0, err);

		if (rc <= 0)
			return rc == 0;
		in.src = s->in;
		in.size = s->in_len;
		in.pos = s->in_off;
		out.dst = s->out;
		out.size = s->out_cap;
		out.pos = 0;
		s->zs_ret = ZSTD_decompressStream(s->zs, &out, &in);
		if (ZSTD_isError(s->zs_ret))
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": corrupt zstd data (%s)", s->path,
							ZSTD_getErrorName(s->zs_ret));
		s->in_off = in.pos;
		s->out_len = out.pos;
		s->out_off = 0;
		if (s->out_len > 0)
			return true;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
	}
}

/* bzip2 streams, one after the other (concatenated .bz2, as pbzip2 writes) */
static bool
fill_bzip2(ts_text_stream *s, ts_err *err)
{
	for (;;)
	{
		int			rc = need_input(s, !s->bz_ended &&
									(s->bz.total_in_lo32 != 0 || s->bz.total_in_hi32 != 0), err);

		if (rc <= 0)
			return rc == 0;
		if (s->bz_ended)
		{
			/* another stream follows */
			BZ2_bzDecompressEnd(&s->bz);
			s->bz_live = false;
			memset(&s->bz, 0, sizeof(s->bz));
			if (BZ2_bzDecompressInit(&s->bz, 0, 0) != BZ_OK)
				return ts_error(err, TS_ERR_NOMEM, "file \"%s\": could not initialise bzip2", s->path);
			s->bz_live = true;
			s->bz_ended = false;
		}
		s->bz.next_in = (char *) s->in + s->in_off;
		s->bz.avail_in = (unsigned int) (s->in_len - s->in_off);
		s->bz.next_out = (char *) s->out;
		s->bz.avail_out = (unsigned int) s->out_cap;
		rc = BZ2_bzDecompress(&s->bz);
		if (rc != BZ_OK && rc != BZ_STREAM_END)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": corrupt bzip2 data (libbz2 error %d)",
							s->path, rc);
		s->in_off = s->in_len - s->bz.avail_in;
		s->out_len = s->out_cap - s->bz.avail_out;
		s->out_off = 0;
		if (rc == BZ_STREAM_END)
		{
			s->bz_ended = true;
			if (input_exhausted(s))
			{
				if (s->out_len == 0)
					s->done = true;
				return true;
			}
		}
		if (s->out_len > 0)
			return true;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
	}
}

/*
 * Hadoop BlockCompressorStream framing (SnappyCodec, Lz4Codec): blocks of
 * [BE32 uncompressed length] then [BE32 compressed length][chunk]... until
 * the chunks add up to the uncompressed length.
 */
static bool
fill_hadoop_block(ts_text_stream *s, ts_err *err)
{
	uint8_t		hdr[4];
	size_t		got;
	uint32_t	raw_len;
	size_t		produced = 0;
	const char *codec = ts_text_codec_name(s->codec);

	for (;;)
	{
		if (!read_exact(s, hdr, 4, &got, err))
			return false;
		if (got == 0)
		{
			s->done = true;
			return true;
		}
		if (got < 4)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": truncated %s block header", s->path, codec);
		raw_len = ts_load_be32(hdr);
		if (raw_len > MAX_HADOOP_BLOCK)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": %s block of %u bytes exceeds the %d byte limit",
							s->path, codec, raw_len, MAX_HADOOP_BLOCK);
		if (raw_len > 0)
			break;
	}
	if (s->out_cap < raw_len)
	{
		uint8_t    *n = ts_realloc(s->out, raw_len);

		if (n == NULL)
			return ts_error_nomemf(err, "decompressing \"%s\"", s->path);
		s->out = n;
		s->out_cap = raw_len;
	}
	while (produced < raw_len)
	{
		uint32_t	clen;
		size_t		room = raw_len - produced;

		if (!read_exact(s, hdr, 4, &got, err))
			return false;
		if (got < 4)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": truncated %s block", s->path, codec);
		clen = ts_load_be32(hdr);
		if (clen == 0 || clen > (uint32_t) (s->size - s->pos) + (uint32_t) (s->in_len - s->in_off))
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": bad %s chunk length %u", s->path, codec, clen);
		ts_buf_reset(&s->chunk);
		if (!ts_buf_reserve(&s->chunk, clen, err))
			return false;
		if (!read_exact(s, s->chunk.data, clen, &got, err))
			return false;
		if (got < clen)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": truncated %s chunk", s->path, codec);
		if (s->codec == TS_TEXT_CODEC_SNAPPY)
		{
			size_t		ulen;
			const ts_snappy_api *snappy = ts_snappy(err);

			if (snappy == NULL)
				return ts_error_context(err, "file \"%s\"", s->path);
			if (snappy->uncompressed_length((const char *) s->chunk.data, clen, &ulen) != SNAPPY_OK ||
				ulen > room ||
				snappy->uncompress((const char *) s->chunk.data, clen,
								  (char *) s->out + produced, &ulen) != SNAPPY_OK)
				return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": corrupt snappy chunk", s->path);
			produced += ulen;
		}
		else
		{
			int			n = LZ4_decompress_safe((const char *) s->chunk.data,
												(char *) s->out + produced, (int) clen, (int) room);

			if (n <= 0)
				return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": corrupt lz4 chunk", s->path);
			produced += (size_t) n;
		}
	}
	s->out_len = produced;
	s->out_off = 0;
	return true;
}

/* Make decompressed bytes available (out_off < out_len) or set done. */
static bool
fill_out(ts_text_stream *s, ts_err *err)
{
	s->out_len = s->out_off = 0;
	switch (s->codec)
	{
		case TS_TEXT_CODEC_NONE:
			if (!read_in(s, err))
				return false;
			s->out = s->in;
			s->out_len = s->in_len;
			if (s->in_len == 0)
				s->done = true;
			s->in_off = s->in_len;
			return true;
		case TS_TEXT_CODEC_GZIP:
		case TS_TEXT_CODEC_DEFLATE:
			return fill_zlib(s, err);
		case TS_TEXT_CODEC_ZSTD:
			return fill_zstd(s, err);
		case TS_TEXT_CODEC_BZIP2:
			return fill_bzip2(s, err);
		case TS_TEXT_CODEC_SNAPPY:
		case TS_TEXT_CODEC_LZ4:
			return fill_hadoop_block(s, err);
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "file \"%s\": unsupported codec", s->path);
	}
}

static bool
append_line(ts_text_stream *s, const uint8_t *p, size_t n, ts_err *err)
{
	if (s->line.len + n > TS_TEXT_MAX_LINE)
		return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": line %lld is longer than %d bytes",
						s->path, (long long) s->lineno + 1, TS_TEXT_MAX_LINE);
	return ts_buf_append(&s->line, p, n, err);
}

bool
ts_text_stream_set_range(ts_text_stream *s, int64_t start, int64_t end, ts_err *err)
{
	const uint8_t *line;
	size_t		len;

	if (s->codec != TS_TEXT_CODEC_NONE)
		return ts_error(err, TS_ERR_UNSUPPORTED, "%s file \"%s\" cannot be read in parts",
						ts_text_codec_name(s->codec), s->path);
	if (start < 0 || end <= start || s->pos != 0)
		return ts_error(err, TS_ERR_INVALID, "file \"%s\": invalid byte range %lld-%lld", s->path,
						(long long) start, (long long) end);
	s->range_start = start;
	s->range_end = end;
	s->starts_line = start == 0;
	if (start == 0 || start >= s->size)
	{
		if (start > 0)
			s->done = true;
		return true;
	}
	/* the line holding byte start - 1 is the part's before: skip it */
	s->pos = start - 1;
	if (!ts_text_stream_next_line(s, NULL, &line, &len, err))
		return false;
	s->starts_line = line != NULL && len == 0;	/* byte start - 1 ends a line */
	s->lineno = 0;
	return true;
}

bool
ts_text_stream_part_starts_line(const ts_text_stream *s)
{
	return s->starts_line;
}

bool
ts_text_stream_stopped_at_part_end(const ts_text_stream *s)
{
	return s->stopped_at_end;
}

const char *
ts_text_stream_where(const ts_text_stream *s, int64_t lineno, char *buf, size_t size)
{
	if (s->range_start > 0)
		snprintf(buf, size, "line %lld of the part from byte %lld", (long long) lineno,
				 (long long) s->range_start);
	else
		snprintf(buf, size, "line %lld", (long long) lineno);
	return buf;
}

bool
ts_text_stream_next_line(ts_text_stream *s, const char *delim,
						 const uint8_t **line, size_t *len, ts_err *err)
{
	bool		java = delim == NULL || strcmp(delim, "\n") == 0 ||
		strcmp(delim, "\r\n") == 0 || strcmp(delim, "\r") == 0 || *delim == '\0';
	size_t		dlen = java ? 0 : strlen(delim);
	bool		any = false;

	*line = NULL;
	*len = 0;
	ts_buf_reset(&s->line);
	for (;;)
	{
		const uint8_t *p,
				   *end;

		if (s->out_off >= s->out_len)
		{
			if (s->done)
				break;
			if (!fill_out(s, err))
				return false;
			if (s->out_off >= s->out_len)
				continue;
		}
		p = s->out + s->out_off;
		end = s->out + s->out_len;
		if (java)
		{
			uint8_t    *q;

			if (s->skip_lf)
			{
				s->skip_lf = false;
				if (*p == '\n')
				{
					s->out_off++;
					continue;
				}
			}
			if (!any && s->range_end > 0 && s->out_base + (int64_t) s->out_off >= s->range_end)
			{
				/* the next line starts in the next part */
				s->done = true;
				s->stopped_at_end = true;
				s->out_off = s->out_len;
				return true;
			}
			q = (uint8_t *) p + ts_text_find_byte2(p, 0, (size_t) (end - p), '\n', '\r');
			if (q < end && !any)
			{
				/* the whole line is in the buffer: no copy */
				s->skip_lf = (*q == '\r');
				s->out_off = (size_t) (q + 1 - s->out);
				*q = '\0';
				s->lineno++;
				*line = p;
				*len = (size_t) (q - p);
				return true;
			}
			if (!append_line(s, p, (size_t) (q - p), err))
				return false;
			any = true;
			if (q < end)
			{
				s->skip_lf = (*q == '\r');
				s->out_off = (size_t) (q + 1 - s->out);
				goto found;
			}
			s->out_off = s->out_len;
		}
		else
		{
			size_t		old = s->line.len;
			size_t		from = old >= dlen ? old - dlen + 1 : 0;
			uint8_t    *hit;

			if (!append_line(s, p, (size_t) (end - p), err))
				return false;
			any = true;
			hit = memmem(s->line.data + from, s->line.len - from, delim, dlen);
			if (hit)
			{
				size_t		cut = (size_t) (hit - s->line.data);

				/* give back what follows the delimiter */
				s->out_off += (cut + dlen) - old;
				s->line.len = cut;
				goto found;
			}
			s->out_off = s->out_len;
		}
	}
	if (!any)
		return true;			/* end of input */
found:
	s->lineno++;
	/* keep a NUL after the line for parsers that want C strings */
	if (!ts_buf_reserve(&s->line, 1, err))
		return false;
	s->line.data[s->line.len] = '\0';
	*line = s->line.data ? s->line.data : (const uint8_t *) "";
	*len = s->line.len;
	return true;
}
