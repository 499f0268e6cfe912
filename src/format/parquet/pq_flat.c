/*
 * pq_flat.c - flat Parquet columns decoded straight into the batch.
 *
 * Owns: pq_leaf_read_flat(), the path of every top-level column without
 * repetition levels (the common case): definition levels become null
 * flags in bulk, and the values of the usual encodings (PLAIN fixed-width
 * numbers, PLAIN byte arrays, dictionary indices) are written into the
 * row-major batch by one tight loop per physical type and conversion,
 * without the per-value switch and the intermediate copy of the general
 * path (pq_leaf_fill + assembly in pq_reader.c).  Every other encoding or
 * conversion goes through pq_leaf_decode_values() and is scattered from
 * there.  Byte values point into the page or dictionary buffer, as in
 * pq_column.c.  Must give exactly the values the general path gives.
 */
#include <string.h>

#include "format/parquet/pq_internal.h"

/* how PLAIN fixed-width values of a leaf are stored into a ts_value */
typedef enum flat_store
{
	FLAT_NONE,					/* no fast loop: the general decoder */
	FLAT_I32,
	FLAT_U32,
	FLAT_I64,
	FLAT_F32,
	FLAT_F64,
	FLAT_DEC32,
	FLAT_DEC64,
	FLAT_TS_MILLIS,
	FLAT_TS_MICROS,
	FLAT_TS_NANOS
} flat_store;

static flat_store
plain_store(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_INT32:
			return l->conv == PQ_CONV_NONE ? FLAT_I32 :
				l->conv == PQ_CONV_U32 ? FLAT_U32 :
				l->conv == PQ_CONV_DEC_INT ? FLAT_DEC32 : FLAT_NONE;
		case PQ_INT64:
			switch (l->conv)
			{
				case PQ_CONV_NONE:
					return FLAT_I64;
				case PQ_CONV_DEC_INT:
					return FLAT_DEC64;
				case PQ_CONV_TS_MILLIS:
					return FLAT_TS_MILLIS;
				case PQ_CONV_TS_MICROS:
					return FLAT_TS_MICROS;
				case PQ_CONV_TS_NANOS:
					return FLAT_TS_NANOS;
				default:
					return FLAT_NONE;
			}
		case PQ_FLOAT:
			return l->conv == PQ_CONV_NONE ? FLAT_F32 : FLAT_NONE;
		case PQ_DOUBLE:
			return l->conv == PQ_CONV_NONE ? FLAT_F64 : FLAT_NONE;
		default:
			return FLAT_NONE;
	}
}

/*
 * The stores, one per flat_store.  p points at a value the caller checked
 * is inside the page.
 */
#define STORE_I32(o, p)		((o)->v.i = (int32_t) ts_load_le32(p))
#define STORE_U32(o, p)		((o)->v.i = (int64_t) ts_load_le32(p))
#define STORE_I64(o, p)		((o)->v.i = (int64_t) ts_load_le64(p))
#define STORE_DEC32(o, p)	((o)->v.dec = (ts_int128) (int32_t) ts_load_le32(p))
#define STORE_DEC64(o, p)	((o)->v.dec = (ts_int128) (int64_t) ts_load_le64(p))
#define STORE_F32(o, p) \
	do { uint32_t u_ = ts_load_le32(p); memcpy(&(o)->v.f, &u_, 4); } while (0)
#define STORE_F64(o, p) \
	do { uint64_t u_ = ts_load_le64(p); memcpy(&(o)->v.d, &u_, 8); } while (0)
#define STORE_TS(o, p, PER_MS, NANOS_PER_UNIT) \
	do { \
		int64_t		x_ = (int64_t) ts_load_le64(p); \
		int64_t		ms_ = pq_floor_div(x_, (PER_MS)); \
		(o)->v.ts.millis = ms_; \
		(o)->v.ts.nanos = (int32_t) ((x_ - ms_ * (PER_MS)) * (NANOS_PER_UNIT)); \
	} while (0)
#define STORE_TS_MILLIS(o, p) \
	do { (o)->v.ts.millis = (int64_t) ts_load_le64(p); (o)->v.ts.nanos = 0; } while (0)
#define STORE_TS_MICROS(o, p)	STORE_TS(o, p, 1000, 1000)
#define STORE_TS_NANOS(o, p)	STORE_TS(o, p, 1000000, 1)

/*
 * k entries into out[j * stride]: all values when present is NULL, else
 * values where present[j] and nulls elsewhere.  When the page holds k
 * values' bytes from p on, a null's slot may get the bytes at p too (its
 * value is never looked at), which saves a branch per entry.
 */
#define PLAIN_LOOP(SIZE, STORE) \
	do { \
		if (present == NULL) \
			for (int j = 0; j < k; j++, p += (SIZE)) \
			{ \
				ts_value   *o = out + (size_t) j * stride; \
				o->isnull = false; \
				STORE(o, p); \
			} \
		else if ((uint64_t) (l->vend - p) >= (uint64_t) (SIZE) * (uint64_t) k) \
			for (int j = 0; j < k; j++) \
			{ \
				ts_value   *o = out + (size_t) j * stride; \
				o->isnull = !present[j]; \
				STORE(o, p); \
				p += (SIZE) * present[j]; \
			} \
		else \
			for (int j = 0; j < k; j++) \
			{ \
				ts_value   *o = out + (size_t) j * stride; \
				if (present[j]) \
				{ \
					o->isnull = false; \
					STORE(o, p); \
					p += (SIZE); \
				} \
				else \
					o->isnull = true; \
			} \
	} while (0)

/* nn PLAIN fixed-width values among k entries */
static bool
plain_fixed(pq_leaf *l, flat_store st, ts_value *out, size_t stride,
			const uint8_t *present, int k, int nn, ts_err *err)
{
	const uint8_t *p = l->vp;
	int			size = pq_phys_size(l);

	if ((uint64_t) (l->vend - p) < (uint64_t) size * (uint64_t) nn)
		return ts_error(err, TS_ERR_CORRUPT, "truncated PLAIN values (column \"%s\")", l->path);
	switch (st)
	{
		case FLAT_I32:
			PLAIN_LOOP(4, STORE_I32);
			break;
		case FLAT_U32:
			PLAIN_LOOP(4, STORE_U32);
			break;
		case FLAT_I64:
			PLAIN_LOOP(8, STORE_I64);
			break;
		case FLAT_F32:
			PLAIN_LOOP(4, STORE_F32);
			break;
		case FLAT_F64:
			PLAIN_LOOP(8, STORE_F64);
			break;
		case FLAT_DEC32:
			PLAIN_LOOP(4, STORE_DEC32);
			break;
		case FLAT_DEC64:
			PLAIN_LOOP(8, STORE_DEC64);
			break;
		case FLAT_TS_MILLIS:
			PLAIN_LOOP(8, STORE_TS_MILLIS);
			break;
		case FLAT_TS_MICROS:
			PLAIN_LOOP(8, STORE_TS_MICROS);
			break;
		case FLAT_TS_NANOS:
			PLAIN_LOOP(8, STORE_TS_NANOS);
			break;
		case FLAT_NONE:
			return ts_error(err, TS_ERR_UNSUPPORTED, "no PLAIN loop (column \"%s\")", l->path);
	}
	l->vp = p;
	return true;
}

/* PLAIN byte arrays among k entries: pointers into the page */
static bool
plain_bytes(pq_leaf *l, ts_value *out, size_t stride,
			const uint8_t *present, int k, ts_err *err)
{
	const uint8_t *p = l->vp;
	const uint8_t *end = l->vend;

	for (int j = 0; j < k; j++)
	{
		ts_value   *o = out + (size_t) j * stride;
		uint32_t	len;

		if (present && !present[j])
		{
			o->isnull = true;
			continue;
		}
		if (end - p < 4)
			return ts_error(err, TS_ERR_CORRUPT, "truncated PLAIN byte array (column \"%s\")", l->path);
		/* each length is found from the one before: fetch the lines ahead */
		__builtin_prefetch(p + 1024);
		len = ts_load_le32(p);
		p += 4;
		if ((uint64_t) len > (uint64_t) (end - p))
			return ts_error(err, TS_ERR_CORRUPT, "PLAIN byte array longer than its page (column \"%s\")",
							l->path);
		o->isnull = false;
		o->v.s.p = p;
		o->v.s.len = len;
		p += len;
	}
	l->vp = p;
	return true;
}

/* dictionary entries (converted already) among k entries */
static bool
dictionary(pq_leaf *l, ts_value *out, size_t stride,
		   const uint8_t *present, int k, int nn, ts_err *err)
{
	const uint32_t *idx = l->tmp;
	const ts_value *dict = l->dict;
	uint32_t	ndict = (uint32_t) l->ndict;
	uint32_t	bad = 0;
	int			v = 0;

	if (!pq_rle_get(&l->vrle, l->tmp, nn, err))
		return ts_error_context(err, "column \"%s\" dictionary indices", l->path);
	for (int j = 0; j < nn; j++)
		bad |= idx[j] >= ndict;
	if (bad)
	{
		for (int j = 0; j < nn; j++)
			if (idx[j] >= ndict)
				return ts_error(err, TS_ERR_CORRUPT,
								"dictionary index %u out of range (dictionary has %d entries) (column \"%s\")",
								idx[j], l->ndict, l->path);
	}
	for (int j = 0; j < k; j++)
	{
		ts_value   *o = out + (size_t) j * stride;

		if (present && !present[j])
			o->isnull = true;
		else
			*o = dict[idx[v++]];
	}
	return true;
}

/* any other encoding: decode densely, then scatter */
static bool
general(pq_leaf *l, ts_value *out, size_t stride,
		const uint8_t *present, int k, int nn, ts_err *err)
{
	int			v = 0;

	if (!pq_leaf_decode_values(l, l->vals, nn, err))
		return false;
	for (int j = 0; j < k; j++)
	{
		ts_value   *o = out + (size_t) j * stride;

		if (present && !present[j])
			o->isnull = true;
		else
			*o = l->vals[v++];
	}
	return true;
}

/* entries decoded by pq_leaf_fill and not consumed yet */
static int
drain_buffered(pq_leaf *l, ts_value *out, size_t stride, int n)
{
	int			k = l->nbuf - l->pos;

	if (k > n)
		k = n;
	for (int j = 0; j < k; j++)
	{
		ts_value   *o = out + (size_t) j * stride;

		if (l->def[l->pos + j] == l->max_def)
			*o = l->vals[l->vpos++];
		else
			o->isnull = true;
	}
	l->pos += k;
	return k;
}

bool
pq_leaf_read_flat(pq_leaf *l, ts_value *out, size_t stride, int n, ts_err *err)
{
	while (n > 0)
	{
		const uint8_t *present = NULL;
		int			k,
					nn;
		bool		ok;

		if (l->max_rep != 0)
			return ts_error(err, TS_ERR_INVALID, "column \"%s\" is not flat", l->path);
		if (l->pos < l->nbuf)
		{
			k = drain_buffered(l, out, stride, n);
			out += (size_t) k * stride;
			n -= k;
			continue;
		}
		if (l->page_left == 0)
		{
			if (!pq_leaf_next_page(l, err))
				return false;
			if (l->page_left == 0)
				return ts_error(err, TS_ERR_CORRUPT,
								"column \"%s\" has fewer values than the row group has rows", l->path);
			continue;
		}
		k = l->page_left < PQ_LEVEL_CHUNK ? (int) l->page_left : PQ_LEVEL_CHUNK;
		if (k > n)
			k = n;
		nn = k;
		if (l->max_def > 0)
		{
			if (!pq_rle_get_present(&l->def_dec, l->present, k, (uint32_t) l->max_def, &nn, err))
				return ts_error_context(err, "column \"%s\" definition levels", l->path);
			if (nn < k)
				present = l->present;
		}
		if (nn == 0)
		{
			for (int j = 0; j < k; j++)
				out[(size_t) j * stride].isnull = true;
			ok = true;
		}
		else if (l->enc == PQ_ENC_PLAIN && l->phys == PQ_BYTE_ARRAY && l->conv == PQ_CONV_NONE)
			ok = plain_bytes(l, out, stride, present, k, err);
		else if (l->enc == PQ_ENC_PLAIN && plain_store(l) != FLAT_NONE)
			ok = plain_fixed(l, plain_store(l), out, stride, present, k, nn, err);
		else if (l->enc == PQ_ENC_PLAIN_DICTIONARY || l->enc == PQ_ENC_RLE_DICTIONARY)
			ok = dictionary(l, out, stride, present, k, nn, err);
		else
			ok = general(l, out, stride, present, k, nn, err);
		if (!ok)
			return false;
		l->page_left -= k;
		out += (size_t) k * stride;
		n -= k;
	}
	return true;
}
