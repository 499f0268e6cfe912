/*
 * pq_column.c - read one leaf column chunk of a Parquet row group.
 *
 * Owns: walking the pages of a column chunk (dictionary page, data pages
 * v1 and v2), decompressing them, and decoding repetition/definition
 * levels in chunks of PQ_LEVEL_CHUNK entries, whose values pq_values.c
 * decodes and converts; the buffers the pages live in are
 * pq_leaf_memory.c's.
 */
#include <string.h>

#include "format/parquet/pq_column_internal.h"

#define PQ_MAX_PAGE_SIZE ((int64_t) 1 << 30)

/* ---- pages ---------------------------------------------------------- */

static bool
read_dictionary(pq_leaf *l, const pq_page_header *h, const uint8_t *data, ts_err *err)
{
	uint8_t    *buf;
	const uint8_t *p;
	uint64_t	bp = 0;

	if (l->has_dict)
		return leaf_error(l, err, TS_ERR_CORRUPT, "second dictionary page in a column chunk");
	if (h->encoding != PQ_ENC_PLAIN && h->encoding != PQ_ENC_PLAIN_DICTIONARY)
		return leaf_error(l, err, TS_ERR_UNSUPPORTED, "dictionary page encoding is not PLAIN");
	if ((int64_t) h->num_values > (int64_t) h->uncompressed_size * 8 + 8 ||
		(l->phys == PQ_FIXED && l->type_length <= 0))
		return leaf_error(l, err, TS_ERR_CORRUPT, "dictionary has more entries than bytes");
	{
		uint8_t    *ahead_buf;
		size_t		ahead_cap;
		int			ahead = pq_ahead_take_page(l, data, h->compressed_size, h->uncompressed_size,
											   &ahead_buf, &ahead_cap, err);

		if (ahead < 0)
			return ts_error_context(err, "column \"%s\" dictionary page", l->path);
		if (ahead > 0)
		{
			/* decompressed ahead: that buffer holds the dictionary now */
			pq_leaf_page_recycle(l, l->dict_buf, l->dict_buf_cap);
			l->dict_buf = ahead_buf;
			l->dict_buf_cap = ahead_cap;
		}
		else if (!pq_leaf_reserve(l, &l->dict_buf, &l->dict_buf_cap, (size_t) h->uncompressed_size))
			return ts_error_nomem(err, NULL);
		else if (!pq_decompress_with(l->zstd_ctx, l->codec, data, h->compressed_size,
									 l->dict_buf, h->uncompressed_size, err))
			return ts_error_context(err, "column \"%s\" dictionary page", l->path);
	}
	buf = l->dict_buf;
	if ((size_t) h->num_values > l->dict_cap || !l->dict)
	{
		size_t		bytes;

		ts_bufpool_put(l->shared, l->dict, l->dict_cap * sizeof(ts_value));
		l->dict_cap = 0;
		l->dict = ts_bufpool_get(l->shared, sizeof(ts_value) * (h->num_values ? h->num_values : 1),
								 &bytes);
		if (!l->dict)
			return ts_error_nomem(err, NULL);
		l->dict_cap = bytes / sizeof(ts_value);
	}
	l->has_dict = true;
	p = buf;
	if (!pq_decode_plain(l, &p, buf + h->uncompressed_size, &bp, l->dict, h->num_values, err))
		return false;
	l->ndict = h->num_values;
	return pq_convert(l, l->dict, l->ndict, err);
}

static bool
init_levels(pq_leaf *l, pq_rle *r, int max_level, const uint8_t **pp, const uint8_t *end,
			int encoding, bool v1, int32_t v2_len, int32_t num_values, ts_err *err)
{
	const uint8_t *p = *pp;
	uint32_t	len;

	if (max_level == 0)
		return true;
	if (v1 && encoding == PQ_ENC_BIT_PACKED)
	{
		int			bw = pq_bit_width((uint64_t) max_level);
		uint64_t	bytes = ((uint64_t) num_values * bw + 7) / 8;

		if (bytes > (uint64_t) (end - p))
			return leaf_error(l, err, TS_ERR_CORRUPT, "BIT_PACKED level data longer than its page");
		pq_bitpacked_init(r, p, (size_t) bytes, bw);
		*pp = p + bytes;
		return true;
	}
	if (v1)
	{
		if (encoding != PQ_ENC_RLE)
			return leaf_error(l, err, TS_ERR_UNSUPPORTED, "unsupported level encoding");
		if (end - p < 4)
			return leaf_error(l, err, TS_ERR_CORRUPT, "truncated level data");
		len = ts_load_le32(p);
		p += 4;
	}
	else
		len = (uint32_t) v2_len;
	if ((uint64_t) len > (uint64_t) (end - p))
		return leaf_error(l, err, TS_ERR_CORRUPT, "level data longer than its page");
	pq_rle_init(r, p, len, pq_bit_width((uint64_t) max_level));
	*pp = p + len;
	return true;
}

static bool
init_values(pq_leaf *l, int encoding, ts_err *err)
{
	l->enc = encoding;
	l->bitpos = 0;
	switch (encoding)
	{
		case PQ_ENC_PLAIN:
			return true;
		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
			{
				int			bw;

				if (!l->has_dict)
					return leaf_error(l, err, TS_ERR_CORRUPT, "dictionary-encoded page without a dictionary");
				if (l->vp >= l->vend)
				{
					/* a page of nulls only may have no bit width byte */
					pq_rle_init(&l->vrle, l->vend, 0, 0);
					return true;
				}
				bw = *l->vp;
				if (bw > 32)
					return leaf_error(l, err, TS_ERR_CORRUPT, "dictionary index bit width above 32");
				pq_rle_init(&l->vrle, l->vp + 1, (size_t) (l->vend - l->vp - 1), bw);
				return true;
			}
		case PQ_ENC_RLE:
			{
				uint32_t	len;

				if (l->phys != PQ_BOOLEAN)
					return leaf_error(l, err, TS_ERR_UNSUPPORTED, "RLE encoding of a non-boolean column");
				if (l->vend - l->vp < 4)
				{
					pq_rle_init(&l->vrle, l->vend, 0, 1);
					return true;
				}
				len = ts_load_le32(l->vp);
				if ((uint64_t) len > (uint64_t) (l->vend - l->vp - 4))
					return leaf_error(l, err, TS_ERR_CORRUPT, "RLE boolean data longer than its page");
				pq_rle_init(&l->vrle, l->vp + 4, len, 1);
				return true;
			}
		case PQ_ENC_DELTA_BINARY_PACKED:
			if (l->phys != PQ_INT32 && l->phys != PQ_INT64)
				return leaf_error(l, err, TS_ERR_CORRUPT, "DELTA_BINARY_PACKED on a non-integer column");
			if (l->vp >= l->vend)
			{
				memset(&l->vdelta, 0, sizeof(l->vdelta));
				return true;
			}
			return pq_delta_init(&l->vdelta, l->vp, (size_t) (l->vend - l->vp), err);
		case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		case PQ_ENC_DELTA_BYTE_ARRAY:
			{
				pq_delta	scan;
				const uint8_t *p;

				if (l->phys != PQ_BYTE_ARRAY && l->phys != PQ_FIXED)
					return leaf_error(l, err, TS_ERR_CORRUPT, "DELTA byte array encoding on a non-binary column");
				memset(&l->vdelta, 0, sizeof(l->vdelta));
				memset(&l->vdelta2, 0, sizeof(l->vdelta2));
				l->prev = NULL;
				l->prev_len = 0;
				if (l->vp >= l->vend)
					return true;
				if (!pq_delta_init(&l->vdelta, l->vp, (size_t) (l->vend - l->vp), err))
					return false;
				scan = l->vdelta;
				if (!pq_delta_end(&scan, &p, err))
					return false;
				if (encoding == PQ_ENC_DELTA_BYTE_ARRAY)
				{
					/* suffixes: a DELTA_LENGTH_BYTE_ARRAY stream after the prefixes */
					if (!pq_delta_init(&l->vdelta2, p, (size_t) (l->vend - p), err))
						return false;
					scan = l->vdelta2;
					if (!pq_delta_end(&scan, &p, err))
						return false;
				}
				l->vp = p;		/* byte data */
				return true;
			}
		case PQ_ENC_BYTE_STREAM_SPLIT:
			{
				int			k = pq_phys_size(l);
				uint64_t	len = (uint64_t) (l->vend - l->vp);

				if (k <= 0)
					return leaf_error(l, err, TS_ERR_CORRUPT, "BYTE_STREAM_SPLIT on a variable-width column");
				if (len % k != 0)
					return leaf_error(l, err, TS_ERR_CORRUPT, "BYTE_STREAM_SPLIT data is not a multiple of the value size");
				l->bss_n = len / k;
				l->bss_index = 0;
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported Parquet encoding %d (column \"%s\")",
							encoding, l->path);
	}
}

/*
 * The page header at l->cur, the cursor moved past it.  A chunk read page
 * by page may hold only part of it: the buffer is refilled with more until
 * it parses or the rest of the chunk is in.
 */
static bool
next_page_header(pq_leaf *l, pq_page_header *h, ts_err *err)
{
	size_t		need = 256;

	for (;;)
	{
		ts_cursor	c;

		if (!pq_leaf_stream_ensure(l, need, err))
			return false;
		c = l->cur;
		if (pq_parse_page_header(&c, h, err))
		{
			l->cur = c;
			return true;
		}
		if (l->stream_file == NULL || l->stream_left <= 0)
			return ts_error_context(err, "column \"%s\": page header", l->path);
		need = ts_cursor_left(&l->cur) * 2;
	}
}

/*
 * A chunk read page by page: the page after the current one (whose body,
 * size bytes, is at l->cur) brought into the buffer too, when
 * pq_ahead_next_page will queue it for decompression ahead (it queues a
 * page only when all of it is in the buffer), or only its header when the
 * job reads it.  A next page that does not parse here is left for
 * pq_leaf_next_page to report.
 */
bool
pq_leaf_stream_page_ahead(pq_leaf *l, size_t size, ts_err *err)
{
	size_t		need = size + PQ_HEADER_PEEK;

	if (l->stream_file == NULL || !ts_bg_enabled() || l->codec != PQ_CODEC_ZSTD)
		return true;
	for (int tries = 0; tries < 2; tries++)
	{
		ts_cursor	c;
		pq_page_header h;
		ts_err		ignored;

		/* the header alone: when the job reads the page, the backend copies none of it */
		if (!pq_leaf_stream_peek(l, need, err))
			return false;
		if (ts_cursor_left(&l->cur) <= size)
			return true;		/* the chunk ends with this page */
		ts_cursor_init(&c, l->cur.p + size, ts_cursor_left(&l->cur) - size);
		if (pq_parse_page_header(&c, &h, &ignored))
		{
			if (h.compressed_size < 0 || h.compressed_size > l->max_page_size ||
				pq_ahead_reads_itself(l, &h))
				return true;	/* the job reads its bytes (pq_ahead_next_page) */
			return pq_leaf_stream_ensure(l, (size_t) (c.p - l->cur.p) + (size_t) h.compressed_size, err);
		}
		need = size + 16384;	/* a header with large statistics */
	}
	return true;
}

/* load the next data page; false on error; page_left = 0 at chunk end */
bool
pq_leaf_next_page(pq_leaf *l, ts_err *err)
{
	for (;;)
	{
		pq_page_header h;
		const uint8_t *data;
		size_t		left;
		bool		by_job;

		if (!pq_leaf_retire_page(l, err))
			return false;
		l->page_left = 0;
		if (l->values_left <= 0 || (ts_cursor_left(&l->cur) == 0 && l->stream_left <= 0))
			return true;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		if (!next_page_header(l, &h, err))
			return false;
		by_job = h.compressed_size > 0 && l->stream_file != NULL &&
			pq_ahead_reads_page(l, &h, l->stream_off - (int64_t) ts_cursor_left(&l->cur));
		if (by_job)
		{
			/* its bytes are read by the job: passed over, the next page's header brought in */
			if (!pq_leaf_stream_skip(l, (size_t) h.compressed_size, err) ||
				!pq_leaf_stream_page_ahead(l, 0, err))
				return false;
			data = NULL;
		}
		else
		{
			if (h.compressed_size > 0 &&
				(!pq_leaf_stream_ensure(l, (size_t) h.compressed_size, err) ||
				 !pq_leaf_stream_page_ahead(l, (size_t) h.compressed_size, err)))
				return false;
			left = ts_cursor_left(&l->cur);
			if ((uint64_t) h.compressed_size > left)
				return leaf_error(l, err, TS_ERR_CORRUPT, "page extends past the column chunk");
			data = l->cur.p;
			l->cur.p += h.compressed_size;
		}
		if (h.uncompressed_size > l->max_page_size)
			return leaf_error(l, err, TS_ERR_CORRUPT, "page larger than its column chunk");

		if (h.type == PQ_PAGE_DICT)
		{
			if (!h.has_dict_header)
				return leaf_error(l, err, TS_ERR_CORRUPT, "dictionary page without its header");
			if (!read_dictionary(l, &h, data, err))
				return false;
			continue;
		}
		if (h.type != PQ_PAGE_DATA && h.type != PQ_PAGE_DATA_V2)
			continue;			/* index pages and unknown pages */
		if (!h.has_data_header)
			return leaf_error(l, err, TS_ERR_CORRUPT, "data page without its header");
		if (h.num_values > l->values_left)
			return leaf_error(l, err, TS_ERR_CORRUPT, "data page has more values than its column chunk");
		l->values_left -= h.num_values;

		if (h.type == PQ_PAGE_DATA)
		{
			const uint8_t *p,
					   *end;

			int			ahead = by_job ?
				pq_ahead_take_read_page(l, &l->page_buf, &l->page_buf_cap, err) :
				pq_ahead_take_page(l, data, h.compressed_size, h.uncompressed_size,
								   &l->page_buf, &l->page_buf_cap, err);

			if (ahead < 0)
				return ts_error_context(err, "column \"%s\" data page", l->path);
			if (ahead == 0)
			{
				l->page_buf = pq_leaf_page_alloc(l, h.uncompressed_size, &l->page_buf_cap, err);
				if (!l->page_buf)
					return false;
				if (!pq_decompress_with(l->zstd_ctx, l->codec, data, h.compressed_size, l->page_buf, h.uncompressed_size, err))
					return ts_error_context(err, "column \"%s\" data page", l->path);
			}
			p = l->page_buf;
			end = p + h.uncompressed_size;
			if (!init_levels(l, &l->rep_dec, l->max_rep, &p, end, h.rep_encoding, true, 0, h.num_values, err) ||
				!init_levels(l, &l->def_dec, l->max_def, &p, end, h.def_encoding, true, 0, h.num_values, err))
				return false;
			l->vp = p;
			l->vend = end;
		}
		else
		{
			const uint8_t *p = data;
			const uint8_t *end = data + h.compressed_size;
			int64_t		vlen,
						ulen;

			if ((int64_t) h.rep_len + h.def_len > h.compressed_size ||
				(int64_t) h.rep_len + h.def_len > h.uncompressed_size)
				return leaf_error(l, err, TS_ERR_CORRUPT, "level lengths exceed the page");
			if (!init_levels(l, &l->rep_dec, l->max_rep, &p, end, 0, false, h.rep_len, 0, err) ||
				!init_levels(l, &l->def_dec, l->max_def, &p, end, 0, false, h.def_len, 0, err))
				return false;
			p = data + h.rep_len + h.def_len;
			vlen = h.compressed_size - h.rep_len - h.def_len;
			ulen = h.uncompressed_size - h.rep_len - h.def_len;
			if (h.is_compressed && l->codec != PQ_CODEC_UNCOMPRESSED)
			{
				int			ahead = pq_ahead_take_page(l, p, (size_t) vlen, (size_t) ulen,
													   &l->page_buf, &l->page_buf_cap, err);

				if (ahead < 0)
					return ts_error_context(err, "column \"%s\" data page", l->path);
				if (ahead == 0)
				{
					l->page_buf = pq_leaf_page_alloc(l, (size_t) ulen, &l->page_buf_cap, err);
					if (!l->page_buf)
						return false;
					if (!pq_decompress_with(l->zstd_ctx, l->codec, p, vlen, l->page_buf, ulen, err))
						return ts_error_context(err, "column \"%s\" data page", l->path);
				}
				l->vp = l->page_buf;
				l->vend = l->page_buf + ulen;
			}
			else
			{
				if (vlen != ulen)
					return leaf_error(l, err, TS_ERR_CORRUPT, "uncompressed page size mismatch");
				l->vp = p;
				l->vend = end;
				l->stream_pinned = l->stream_file != NULL;	/* values point into the chunk */
			}
		}
		if (!init_values(l, h.encoding, err))
			return false;
		l->page_left = h.num_values;
		if (l->page_left > 0)
		{
			pq_ahead_next_page(l);	/* decompressed while this one is decoded */
			return true;
		}
	}
}

int64_t
pq_leaf_max_page_size(const pq_column_chunk *cc)
{
	/* a page is never larger than its chunk; allow some slack for writers */
	int64_t		max = cc->total_uncompressed_size > ((int64_t) 16 << 20) ?
		cc->total_uncompressed_size : ((int64_t) 16 << 20);

	return max > PQ_MAX_PAGE_SIZE ? PQ_MAX_PAGE_SIZE : max;
}

bool
pq_leaf_start(pq_leaf *l, size_t len, const pq_column_chunk *cc, ts_err *err)
{
	ts_cursor_init(&l->cur, l->chunk, len);
	l->stream_file = NULL;
	l->stream_left = 0;
	l->codec = cc->codec;
	l->values_left = cc->num_values;
	l->max_page_size = pq_leaf_max_page_size(cc);
	l->page_left = 0;
	l->nbuf = l->pos = l->nvals = l->vpos = 0;
	if (!pq_codec_supported(cc->codec))
		return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported compression codec %s (%d) (column \"%s\")",
						pq_codec_name(cc->codec), cc->codec, l->path);
	return true;
}


bool
pq_leaf_fill(pq_leaf *l, ts_err *err)
{
	int			n;
	int			nn = 0;

	l->nbuf = l->pos = l->nvals = l->vpos = 0;
	while (l->page_left == 0)
	{
		if (!pq_leaf_next_page(l, err))
			return false;
		if (l->page_left == 0)
			return true;		/* end of chunk */
	}
	n = l->page_left < PQ_LEVEL_CHUNK ? (int) l->page_left : PQ_LEVEL_CHUNK;
	if (l->max_rep > 0)
	{
		if (!pq_rle_get(&l->rep_dec, l->tmp, n, err))
			return ts_error_context(err, "column \"%s\" repetition levels", l->path);
		for (int i = 0; i < n; i++)
		{
			if (l->tmp[i] > (uint32_t) l->max_rep)
				return leaf_error(l, err, TS_ERR_CORRUPT, "repetition level out of range");
			l->rep[i] = (uint16_t) l->tmp[i];
		}
	}
	else
		memset(l->rep, 0, sizeof(uint16_t) * n);
	if (l->max_def > 0)
	{
		if (!pq_rle_get(&l->def_dec, l->tmp, n, err))
			return ts_error_context(err, "column \"%s\" definition levels", l->path);
		for (int i = 0; i < n; i++)
		{
			if (l->tmp[i] > (uint32_t) l->max_def)
				return leaf_error(l, err, TS_ERR_CORRUPT, "definition level out of range");
			l->def[i] = (uint16_t) l->tmp[i];
			nn += l->tmp[i] == (uint32_t) l->max_def;
		}
	}
	else
	{
		memset(l->def, 0, sizeof(uint16_t) * n);
		nn = n;
	}
	if (!pq_leaf_decode_values(l, l->vals, nn, err))
		return false;
	l->page_left -= n;
	l->nbuf = n;
	l->nvals = nn;
	return true;
}
