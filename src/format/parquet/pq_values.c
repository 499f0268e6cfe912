/*
 * pq_values.c - the values of a Parquet page: decoded (PLAIN, dictionary,
 * RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT) and converted from their physical
 * type into the requested Paimon representation.  The hot loop of every
 * Parquet read: its per-value helpers stay static here.
 */
#include <string.h>

#include "format/parquet/pq_column_internal.h"

#define PQ_MAX_BLOB_TOTAL ((size_t) 1 << 30)

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
	if (!pq_mem_push(&l->page_owned, &l->npage_owned, &l->cappage_owned, l->blob, l->blob_cap, err))
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
bool
pq_decode_plain(pq_leaf *l, const uint8_t **pp, const uint8_t *end, uint64_t *bitpos,
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
		if (!pq_decode_plain((pq_leaf *) l, &q, p + len, &bp, v, 1, err))
			return false;
	}
	return pq_convert(l, v, 1, err);
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
			if (!pq_decode_plain(l, &l->vp, l->vend, &l->bitpos, out, n, err))
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
