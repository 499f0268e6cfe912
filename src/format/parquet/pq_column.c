/*
 * pq_column.c - read one leaf column chunk of a Parquet row group.
 *
 * Owns: walking the pages of a column chunk (dictionary page, data pages
 * v1 and v2), decompressing them, decoding repetition/definition levels
 * and values (PLAIN, dictionary, RLE booleans, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT) in chunks
 * of PQ_LEVEL_CHUNK entries, and converting physical values into the
 * requested Paimon representation.  Byte values point into page buffers;
 * a buffer that is done with is "retired" and recycled only at the start
 * of the next batch, so the values of the current batch stay valid (the
 * pages of numeric columns, whose values are copies, are recycled at once).
 */
#include <string.h>

#include "format/parquet/pq_internal.h"

#define PQ_MAX_PAGE_SIZE ((int64_t) 1 << 30)
#define PQ_MAX_BLOB_TOTAL ((size_t) 1 << 30)

static bool
leaf_error(const pq_leaf *l, ts_err *err, ts_errcode code, const char *what)
{
	return ts_error(err, code, "%s (column \"%s\")", what, l->path);
}

static bool
push_mem(pq_mem **arr, int *n, int *cap, void *p, size_t size, ts_err *err)
{
	if (!p)
		return true;
	if (*n == *cap)
	{
		int			nc = *cap ? *cap * 2 : 8;
		pq_mem	   *na = ts_realloc(*arr, sizeof(pq_mem) * nc);

		if (!na)
		{
			ts_free(p);
			return ts_error_nomem(err, NULL);
		}
		*arr = na;
		*cap = nc;
	}
	(*arr)[*n].p = p;
	(*arr)[*n].cap = size;
	(*n)++;
	return true;
}

static bool
retire(pq_leaf *l, void *p, size_t cap, ts_err *err)
{
	return push_mem(&l->retired, &l->nretired, &l->capretired, p, cap, err);
}

/* a page buffer of at least size bytes, from the pool when possible */
static uint8_t *
page_alloc(pq_leaf *l, size_t size, size_t *cap, ts_err *err)
{
	size_t		c = 65536;
	uint8_t    *p;

	for (int i = 0; i < l->npool; i++)
		if (l->pool[i].cap >= size)
		{
			p = l->pool[i].p;
			*cap = l->pool[i].cap;
			l->pool[i] = l->pool[--l->npool];
			return p;
		}
	while (c < size)
		c *= 2;
	p = ts_bufpool_get(l->shared, c, cap);
	if (!p)
	{
		ts_error_nomemf(err, "(page of %zu bytes, column \"%s\")", size, l->path);
		return NULL;
	}
	return p;
}

/* a page buffer nothing points into any more: keep it for the next page */
static void
recycle(pq_leaf *l, pq_mem m)
{
	if (l->npool < (int) (sizeof(l->pool) / sizeof(l->pool[0])))
		l->pool[l->npool++] = m;
	else
		ts_bufpool_put(l->shared, m.p, m.cap);
}

uint8_t *
pq_leaf_page_alloc(pq_leaf *l, size_t size, size_t *cap, ts_err *err)
{
	return page_alloc(l, size, cap, err);
}

void
pq_leaf_page_recycle(pq_leaf *l, void *p, size_t cap)
{
	pq_mem		m = {p, cap};

	if (p)
		recycle(l, m);
}

/* values of the previous batch are dead: recycle their page buffers */
void
pq_leaf_release(pq_leaf *l)
{
	for (int i = 0; i < l->nretired; i++)
		recycle(l, l->retired[i]);
	l->nretired = 0;
}

/*
 * Values of these physical types are copied into their ts_value (numbers,
 * converted or not): no value points into a page, so a page's buffer can
 * be reused as soon as the page is decoded.  The next page then lands in
 * memory that is mapped and likely still in the cache, and a column needs
 * one page buffer instead of two.
 */
static bool
values_are_copies(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_BOOLEAN:
		case PQ_INT32:
		case PQ_INT64:
		case PQ_FLOAT:
		case PQ_DOUBLE:
			return true;
		default:
			return false;
	}
}

/* end of a page: its buffers may still be pointed to by the current batch */
static bool
retire_page(pq_leaf *l, ts_err *err)
{
	bool		ok = true;
	bool		dead = values_are_copies(l);

	if (l->page_buf)
	{
		pq_mem		m = {l->page_buf, l->page_buf_cap};

		if (dead)
			recycle(l, m);
		else
			ok = retire(l, l->page_buf, l->page_buf_cap, err);
	}
	l->page_buf = NULL;
	for (int i = 0; i < l->npage_owned; i++)
	{
		if (dead)
			recycle(l, l->page_owned[i]);
		else if (!retire(l, l->page_owned[i].p, l->page_owned[i].cap, err))
			ok = false;
	}
	l->npage_owned = 0;
	l->blob = NULL;
	l->blob_used = l->blob_cap = l->blob_total = 0;
	return ok;
}

/*
 * End of a column chunk (row group).  The chunk and dictionary buffers are
 * kept for the next row group: they are only overwritten by a later call
 * to the reader, when the values pointing into them are dead.
 */
void
pq_leaf_end_chunk(pq_leaf *l)
{
	ts_err		dummy;

	/* on allocation failure retire() frees at once: acceptable at this point */
	retire_page(l, &dummy);
	if (l->ahead_current)
		pq_ahead_cancel(l);		/* pages of this chunk not needed after all */
	pq_ahead_cancel_next_page(l);
	l->has_dict = false;
	l->ndict = 0;
	l->page_left = 0;
	l->values_left = 0;
	l->nbuf = l->pos = l->nvals = l->vpos = 0;
	ts_cursor_init(&l->cur, NULL, 0);
}

void
pq_leaf_free(pq_leaf *l)
{
	if (!l)
		return;
	pq_leaf_end_chunk(l);
	pq_ahead_free(l);
	pq_leaf_release(l);
	/* the next file's reader takes these back (or they are freed) */
	for (int i = 0; i < l->npool; i++)
		ts_bufpool_put(l->shared, l->pool[i].p, l->pool[i].cap);
	ts_bufpool_put(l->shared, l->chunk, l->chunk_cap);
	ts_bufpool_put(l->shared, l->dict, l->dict_cap * sizeof(ts_value));
	ts_bufpool_put(l->shared, l->dict_buf, l->dict_buf_cap);
	ts_free(l->retired);
	ts_free(l->page_owned);
	ts_free(l);
}

bool
pq_leaf_reserve(pq_leaf *l, uint8_t **p, size_t *cap, size_t len)
{
	if (*p && len <= *cap)
		return true;
	ts_bufpool_put(l->shared, *p, *cap);
	*cap = 0;
	*p = ts_bufpool_get(l->shared, len ? len : 1, cap);
	if (*p == NULL)
	{
		*cap = 0;
		return false;
	}
	return true;
}

uint8_t *
pq_leaf_chunk_buffer(pq_leaf *l, size_t len, ts_err *err)
{
	if (!pq_leaf_reserve(l, &l->chunk, &l->chunk_cap, len))
	{
		ts_error_nomemf(err, "reading column \"%s\" (%zu bytes)", l->path, len);
		return NULL;
	}
	return l->chunk;
}

static uint8_t *
blob_alloc(pq_leaf *l, size_t n, ts_err *err)
{
	uint8_t    *p;

	if (l->blob && l->blob_cap - l->blob_used >= n)
	{
		p = l->blob + l->blob_used;
		l->blob_used += n;
		return p;
	}
	if (n > PQ_MAX_BLOB_TOTAL - l->blob_total)
	{
		leaf_error(l, err, TS_ERR_CORRUPT, "page materialises more than 1 GB of values");
		return NULL;
	}
	l->blob_cap = n > 65536 ? n : 65536;
	l->blob = ts_malloc(l->blob_cap);
	if (!l->blob)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (!push_mem(&l->page_owned, &l->npage_owned, &l->cappage_owned, l->blob, l->blob_cap, err))
	{
		l->blob = NULL;
		return NULL;
	}
	l->blob_total += l->blob_cap;
	l->blob_used = n;
	return l->blob;
}

/* ---- conversion ----------------------------------------------------- */

static void
set_ts(ts_value *v, int64_t millis, int64_t sub_nanos)
{
	v->v.ts.millis = millis;
	v->v.ts.nanos = (int32_t) sub_nanos;
}

bool
pq_convert(const pq_leaf *l, ts_value *v, int n, ts_err *err)
{
	switch (l->conv)
	{
		case PQ_CONV_NONE:
			return true;
		case PQ_CONV_U32:
			for (int i = 0; i < n; i++)
				v[i].v.i = (uint32_t) v[i].v.i;
			return true;
		case PQ_CONV_F2D:
			for (int i = 0; i < n; i++)
				v[i].v.d = v[i].v.f;
			return true;
		case PQ_CONV_I2D:
			for (int i = 0; i < n; i++)
				v[i].v.d = (double) v[i].v.i;
			return true;
		case PQ_CONV_TIME_MICROS:
			for (int i = 0; i < n; i++)
				v[i].v.i = pq_floor_div(v[i].v.i, 1000);
			return true;
		case PQ_CONV_TIME_NANOS:
			for (int i = 0; i < n; i++)
				v[i].v.i = pq_floor_div(v[i].v.i, 1000000);
			return true;
		case PQ_CONV_TS_MILLIS:
			for (int i = 0; i < n; i++)
				set_ts(&v[i], v[i].v.i, 0);
			return true;
		case PQ_CONV_TS_MICROS:
			for (int i = 0; i < n; i++)
			{
				int64_t		x = v[i].v.i;
				int64_t		ms = pq_floor_div(x, 1000);

				set_ts(&v[i], ms, (x - ms * 1000) * 1000);
			}
			return true;
		case PQ_CONV_TS_NANOS:
			for (int i = 0; i < n; i++)
			{
				int64_t		x = v[i].v.i;
				int64_t		ms = pq_floor_div(x, 1000000);

				set_ts(&v[i], ms, x - ms * 1000000);
			}
			return true;
		case PQ_CONV_TS_INT96:
			for (int i = 0; i < n; i++)
			{
				const uint8_t *p = v[i].v.s.p;
				int64_t		nod = (int64_t) ts_load_le64(p);
				int64_t		jd = (int32_t) ts_load_le32(p + 8);
				int64_t		ms = pq_floor_div(nod, 1000000);

				set_ts(&v[i], (jd - 2440588) * 86400000LL + ms, nod - ms * 1000000);
			}
			return true;
		case PQ_CONV_DEC_INT:
			for (int i = 0; i < n; i++)
				v[i].v.dec = (ts_int128) v[i].v.i;
			return true;
		case PQ_CONV_DEC_BYTES:
			for (int i = 0; i < n; i++)
			{
				const uint8_t *p = v[i].v.s.p;
				uint32_t	len = v[i].v.s.len;
				unsigned __int128 u = 0;

				if (len > 16)
				{
					/* allow sign-extension bytes beyond 16 */
					for (uint32_t k = 0; k < len - 16; k++)
						if (p[k] != ((p[len - 16] & 0x80) ? 0xff : 0x00))
							return leaf_error(l, err, TS_ERR_CORRUPT, "decimal value wider than 128 bits");
					p += len - 16;
					len = 16;
				}
				if (len > 0 && (p[0] & 0x80))
					u = ~(unsigned __int128) 0;
				for (uint32_t k = 0; k < len; k++)
					u = (u << 8) | p[k];
				v[i].v.dec = (ts_int128) u;
			}
			return true;
	}
	return true;
}

/* ---- PLAIN ---------------------------------------------------------- */

int
pq_phys_size(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_INT32:
		case PQ_FLOAT:
			return 4;
		case PQ_INT64:
		case PQ_DOUBLE:
			return 8;
		case PQ_INT96:
			return 12;
		case PQ_FIXED:
			return l->type_length;
		default:
			return 0;
	}
}

static void
load_fixed(const pq_leaf *l, const uint8_t *p, ts_value *v)
{
	v->isnull = false;
	switch (l->phys)
	{
		case PQ_INT32:
			v->v.i = (int32_t) ts_load_le32(p);
			break;
		case PQ_INT64:
			v->v.i = (int64_t) ts_load_le64(p);
			break;
		case PQ_FLOAT:
			{
				uint32_t	u = ts_load_le32(p);

				memcpy(&v->v.f, &u, 4);
				break;
			}
		case PQ_DOUBLE:
			{
				uint64_t	u = ts_load_le64(p);

				memcpy(&v->v.d, &u, 8);
				break;
			}
		default:				/* INT96, FIXED: bytes */
			v->v.s.p = p;
			v->v.s.len = (uint32_t) l->type_length;
			if (l->phys == PQ_INT96)
				v->v.s.len = 12;
			break;
	}
}

/* decode n PLAIN values from *pp (bounded by end), unconverted */
static bool
decode_plain(pq_leaf *l, const uint8_t **pp, const uint8_t *end, uint64_t *bitpos,
			 ts_value *out, int n, ts_err *err)
{
	const uint8_t *p = *pp;

	if (l->phys == PQ_BOOLEAN)
	{
		uint64_t	bp = *bitpos;

		if ((uint64_t) (end - p) * 8 < bp + (uint64_t) n)
			return leaf_error(l, err, TS_ERR_CORRUPT, "truncated PLAIN booleans");
		for (int i = 0; i < n; i++, bp++)
		{
			out[i].isnull = false;
			out[i].v.i = (p[bp >> 3] >> (bp & 7)) & 1;
		}
		*bitpos = bp;
		return true;
	}
	if (l->phys == PQ_BYTE_ARRAY)
	{
		for (int i = 0; i < n; i++)
		{
			uint32_t	len;

			if (end - p < 4)
				return leaf_error(l, err, TS_ERR_CORRUPT, "truncated PLAIN byte array");
			len = ts_load_le32(p);
			p += 4;
			if ((uint64_t) len > (uint64_t) (end - p))
				return leaf_error(l, err, TS_ERR_CORRUPT, "PLAIN byte array longer than its page");
			out[i].isnull = false;
			out[i].v.s.p = p;
			out[i].v.s.len = len;
			p += len;
		}
		*pp = p;
		return true;
	}
	else
	{
		int			sz = pq_phys_size(l);

		if ((uint64_t) (end - p) < (uint64_t) sz * (uint64_t) n)
			return leaf_error(l, err, TS_ERR_CORRUPT, "truncated PLAIN values");
		switch (l->phys)
		{
			case PQ_INT32:
				for (int i = 0; i < n; i++, p += 4)
				{
					out[i].isnull = false;
					out[i].v.i = (int32_t) ts_load_le32(p);
				}
				break;
			case PQ_INT64:
				for (int i = 0; i < n; i++, p += 8)
				{
					out[i].isnull = false;
					out[i].v.i = (int64_t) ts_load_le64(p);
				}
				break;
			case PQ_DOUBLE:
				for (int i = 0; i < n; i++, p += 8)
				{
					uint64_t	u = ts_load_le64(p);

					out[i].isnull = false;
					memcpy(&out[i].v.d, &u, 8);
				}
				break;
			default:
				for (int i = 0; i < n; i++, p += sz)
					load_fixed(l, p, &out[i]);
		}
		*pp = p;
		return true;
	}
}

bool
pq_decode_plain_one(const pq_leaf *l, const uint8_t *p, uint32_t len, ts_value *v, ts_err *err)
{
	uint64_t	bp = 0;
	const uint8_t *q = p;

	if (l->phys == PQ_BYTE_ARRAY)
	{
		v->isnull = false;
		v->v.s.p = p;
		v->v.s.len = len;
	}
	else
	{
		if (l->phys != PQ_BOOLEAN && (uint32_t) pq_phys_size(l) != len)
			return leaf_error(l, err, TS_ERR_CORRUPT, "statistics value of the wrong size");
		if (!decode_plain((pq_leaf *) l, &q, p + len, &bp, v, 1, err))
			return false;
	}
	return pq_convert(l, v, 1, err);
}

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
	if (!decode_plain(l, &p, buf + h->uncompressed_size, &bp, l->dict, h->num_values, err))
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

/* load the next data page; false on error; page_left = 0 at chunk end */
bool
pq_leaf_next_page(pq_leaf *l, ts_err *err)
{
	for (;;)
	{
		pq_page_header h;
		const uint8_t *data;
		size_t		left;

		if (!retire_page(l, err))
			return false;
		l->page_left = 0;
		if (l->values_left <= 0 || ts_cursor_left(&l->cur) == 0)
			return true;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		if (!pq_parse_page_header(&l->cur, &h, err))
			return ts_error_context(err, "column \"%s\": page header", l->path);
		left = ts_cursor_left(&l->cur);
		if ((uint64_t) h.compressed_size > left)
			return leaf_error(l, err, TS_ERR_CORRUPT, "page extends past the column chunk");
		if (h.uncompressed_size > l->max_page_size)
			return leaf_error(l, err, TS_ERR_CORRUPT, "page larger than its column chunk");
		data = l->cur.p;
		l->cur.p += h.compressed_size;

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

			int			ahead = pq_ahead_take_page(l, data, h.compressed_size, h.uncompressed_size,
												   &l->page_buf, &l->page_buf_cap, err);

			if (ahead < 0)
				return ts_error_context(err, "column \"%s\" data page", l->path);
			if (ahead == 0)
			{
				l->page_buf = page_alloc(l, h.uncompressed_size, &l->page_buf_cap, err);
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
					l->page_buf = page_alloc(l, (size_t) ulen, &l->page_buf_cap, err);
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

/* decode n non-null values of the current page into out, converted */
bool
pq_leaf_decode_values(pq_leaf *l, ts_value *out, int n, ts_err *err)
{
	if (n == 0)
		return true;
	switch (l->enc)
	{
		case PQ_ENC_PLAIN:
			if (!decode_plain(l, &l->vp, l->vend, &l->bitpos, out, n, err))
				return false;
			break;
		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
			if (!pq_rle_get(&l->vrle, l->tmp, n, err))
				return ts_error_context(err, "column \"%s\" dictionary indices", l->path);
			for (int i = 0; i < n; i++)
			{
				if (l->tmp[i] >= (uint32_t) l->ndict)
					return ts_error(err, TS_ERR_CORRUPT, "dictionary index %u out of range (dictionary has %d entries) (column \"%s\")",
									l->tmp[i], l->ndict, l->path);
				out[i] = l->dict[l->tmp[i]];
			}
			return true;		/* dictionary values are converted already */
		case PQ_ENC_RLE:
			if (!pq_rle_get(&l->vrle, l->tmp, n, err))
				return ts_error_context(err, "column \"%s\" booleans", l->path);
			for (int i = 0; i < n; i++)
			{
				out[i].isnull = false;
				out[i].v.i = l->tmp[i] != 0;
			}
			break;
		case PQ_ENC_DELTA_BINARY_PACKED:
			for (int i = 0; i < n; i++)
			{
				int64_t		x;

				if (!pq_delta_next(&l->vdelta, &x, err))
					return ts_error_context(err, "column \"%s\"", l->path);
				out[i].isnull = false;
				out[i].v.i = l->phys == PQ_INT32 ? (int64_t) (int32_t) x : x;
			}
			break;
		case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		case PQ_ENC_DELTA_BYTE_ARRAY:
			for (int i = 0; i < n; i++)
			{
				int64_t		prefix = 0,
							len;
				const uint8_t *p;
				uint32_t	total;

				if (l->enc == PQ_ENC_DELTA_BYTE_ARRAY)
				{
					if (!pq_delta_next(&l->vdelta, &prefix, err) ||
						!pq_delta_next(&l->vdelta2, &len, err))
						return ts_error_context(err, "column \"%s\"", l->path);
				}
				else if (!pq_delta_next(&l->vdelta, &len, err))
					return ts_error_context(err, "column \"%s\"", l->path);
				if (len < 0 || (uint64_t) len > (uint64_t) (l->vend - l->vp))
					return leaf_error(l, err, TS_ERR_CORRUPT, "byte array length out of range");
				if (prefix < 0 || (uint64_t) prefix > l->prev_len)
					return leaf_error(l, err, TS_ERR_CORRUPT, "DELTA_BYTE_ARRAY prefix longer than the previous value");
				total = (uint32_t) (prefix + len);
				if (prefix == 0)
					p = l->vp;
				else
				{
					uint8_t    *q = blob_alloc(l, total, err);

					if (!q)
						return false;
					memcpy(q, l->prev, prefix);
					memcpy(q + prefix, l->vp, len);
					p = q;
				}
				l->vp += len;
				if (l->phys == PQ_FIXED && (int64_t) total != l->type_length)
					return leaf_error(l, err, TS_ERR_CORRUPT, "fixed-length value of the wrong length");
				out[i].isnull = false;
				out[i].v.s.p = p;
				out[i].v.s.len = total;
				l->prev = p;
				l->prev_len = total;
			}
			break;
		case PQ_ENC_BYTE_STREAM_SPLIT:
			{
				int			k = pq_phys_size(l);
				uint8_t		tmp[16];

				if (l->bss_index + (uint64_t) n > l->bss_n)
					return leaf_error(l, err, TS_ERR_CORRUPT, "BYTE_STREAM_SPLIT data ended early");
				for (int i = 0; i < n; i++, l->bss_index++)
				{
					uint8_t    *dst = tmp;

					if (k > (int) sizeof(tmp))
					{
						dst = blob_alloc(l, k, err);
						if (!dst)
							return false;
					}
					for (int b = 0; b < k; b++)
						dst[b] = l->vp[(uint64_t) b * l->bss_n + l->bss_index];
					if (l->phys == PQ_FIXED || l->phys == PQ_INT96)
					{
						if (dst == tmp)
						{
							dst = blob_alloc(l, k, err);
							if (!dst)
								return false;
							memcpy(dst, tmp, k);
						}
					}
					load_fixed(l, dst, &out[i]);
				}
				break;
			}
		default:
			return leaf_error(l, err, TS_ERR_UNSUPPORTED, "unsupported encoding");
	}
	return pq_convert(l, out, n, err);
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
