/*
 * fi_range_bitmap.c - the range-bitmap index (RangeBitmapFileIndex).
 *
 * Owns: the body (big-endian throughout): an int32 header length, the
 * header (version byte 1, int32 row count "rid", int32 cardinality = the
 * number of distinct values, the min and the max key when cardinality >
 * 0, int32 dictionary length), then the chunked dictionary of the
 * distinct values in order (int32 header length; version byte, int32
 * chunk count, int32 offsets length, int32 chunks length; the chunk
 * offsets, the chunk heads - version, first key, its code, the offset of
 * the chunk's other keys, their count, and for fixed-width keys their
 * bytes and width, for strings the length of their offset list and of
 * their bytes - and the keys), then a bit-sliced index of each row's code
 * (int32 header length; version byte, slice count byte, int32 length of
 * the existence bitmap, int32 length of the slice directory, the
 * directory of (offset, length) pairs; the existence bitmap and the
 * slices as portable Roaring bitmaps).  Codes are the values' ranks, so
 * =, <>, <, <=, >, >=, IN, NOT IN, IS [NOT] NULL become comparisons of
 * codes over the slices.  Keys: TINYINT, SMALLINT, INT, DATE, TIME,
 * BIGINT, compact DECIMAL (unscaled), TIMESTAMP(0..6) (fi_literal_key) and
 * strings (int32 length + bytes, ordered by unsigned bytes then length);
 * other types (FLOAT, DOUBLE, BOOLEAN, CHAR) decide nothing.
 */
#include <string.h>

#include "base/ts_bytes.h"
#include "format/fileindex/fi_internal.h"

#define MAX_SLICES 32			/* codes are Java ints */

typedef struct rb_key
{
	int64_t		i;				/* fixed-width keys */
	const uint8_t *s;			/* strings */
	uint32_t	len;
} rb_key;

typedef struct rb
{
	int			width;			/* 1, 2, 4, 8; -1: strings */
	uint32_t	rid;			/* rows */
	int32_t		cardinality;
	rb_key		min,
				max;
	/* dictionary */
	uint32_t	nchunks;
	const uint8_t *offsets;		/* nchunks int32 */
	const uint8_t *chunks;
	uint32_t	chunks_len;
	const uint8_t *keys;
	size_t		keys_len;
	/* bit-sliced index of codes */
	int			nslices;
	roaring_bitmap_t *ebm;		/* rows with a value */
	roaring_bitmap_t *slices[MAX_SLICES];
} rb;

static int
rb_width(const ts_type *t)
{
	switch (t->kind)
	{
		case TS_VARCHAR:
			return -1;
		case TS_TINYINT:
			return 1;
		case TS_SMALLINT:
			return 2;
		case TS_INT:
		case TS_DATE:
		case TS_TIME:
			return 4;
		case TS_BIGINT:
			return 8;
		case TS_DECIMAL:
			return t->precision <= 18 ? 8 : 0;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return t->precision <= 6 ? 8 : 0;
		default:
			return 0;
	}
}

static bool
read_key(ts_cursor *c, int width, rb_key *k, ts_err *err)
{
	const uint8_t *b;
	uint64_t	v = 0;

	memset(k, 0, sizeof(*k));
	if (width < 0)
	{
		uint32_t	n;

		if (!ts_cursor_be32(c, &n, err))
			return false;
		if (n > ts_cursor_left(c))
			return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: key of %u bytes", n);
		k->len = n;
		return ts_cursor_bytes(c, n, &k->s, err);
	}
	if (!ts_cursor_bytes(c, (size_t) width, &b, err))
		return false;
	for (int i = 0; i < width; i++)
		v = (v << 8) | b[i];
	/* sign-extend */
	if (width < 8 && (v >> (width * 8 - 1)) & 1)
		v |= ~UINT64_C(0) << (width * 8);
	k->i = (int64_t) v;
	return true;
}

static int
key_cmp(const rb *r, const rb_key *a, const rb_key *b)
{
	if (r->width > 0)
		return a->i < b->i ? -1 : a->i > b->i;
	{
		uint32_t	n = a->len < b->len ? a->len : b->len;
		int			c = n ? memcmp(a->s, b->s, n) : 0;

		if (c != 0)
			return c < 0 ? -1 : 1;
		return a->len < b->len ? -1 : a->len > b->len;
	}
}

static bool
be32_at(const uint8_t *p, size_t len, size_t at, uint32_t *out, ts_err *err)
{
	if (at > len || len - at < 4)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: truncated");
	*out = ts_load_be32(p + at);
	return true;
}

/* One chunk of the dictionary: its first key and code, and where its other keys are. */
typedef struct rb_chunk
{
	rb_key		key;
	int32_t		code;
	uint32_t	size;			/* keys after the first */
	const uint8_t *koffsets;	/* strings: size int32 offsets into kbytes */
	const uint8_t *kbytes;
	size_t		kbytes_len;
	uint32_t	fixed;			/* fixed-width keys: their width */
} rb_chunk;

static bool
read_chunk(const rb *r, uint32_t i, rb_chunk *ch, ts_err *err)
{
	uint32_t	start,
				end;
	ts_cursor	c;
	uint8_t		version;
	uint32_t	code,
				koff,
				size,
				a,
				b;

	memset(ch, 0, sizeof(*ch));
	if (!be32_at(r->offsets, (size_t) r->nchunks * 4, (size_t) i * 4, &start, err))
		return false;
	if (i + 1 < r->nchunks)
	{
		if (!be32_at(r->offsets, (size_t) r->nchunks * 4, (size_t) (i + 1) * 4, &end, err))
			return false;
	}
	else
		end = r->chunks_len;
	if (start > end || end > r->chunks_len)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: chunk %u at %u..%u", i, start,
						end);
	ts_cursor_init(&c, r->chunks + start, end - start);
	if (!ts_cursor_u8(&c, &version, err))
		return false;
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "range-bitmap dictionary chunk version %u",
						version);
	if (!read_key(&c, r->width, &ch->key, err) || !ts_cursor_be32(&c, &code, err) ||
		!ts_cursor_be32(&c, &koff, err) || !ts_cursor_be32(&c, &size, err) ||
		!ts_cursor_be32(&c, &a, err) || !ts_cursor_be32(&c, &b, err))
		return false;
	if (code > INT32_MAX || size > INT32_MAX - code)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: chunk %u code %u size %u", i,
						code, size);
	ch->code = (int32_t) code;
	ch->size = size;
	if (r->width > 0)
	{
		/* a: keys length, b: key width */
		if (b != (uint32_t) r->width || koff > r->keys_len || a > r->keys_len - koff ||
			(uint64_t) size * b > a)
			return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: chunk %u keys", i);
		ch->fixed = b;
		ch->kbytes = r->keys + koff;
		ch->kbytes_len = a;
	}
	else
	{
		/* a: offsets length, b: keys length */
		if (koff > r->keys_len || a > r->keys_len - koff || b > r->keys_len - koff - a ||
			(uint64_t) size * 4 > a)
			return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: chunk %u keys", i);
		ch->koffsets = r->keys + koff;
		ch->kbytes = r->keys + koff + a;
		ch->kbytes_len = b;
	}
	return true;
}

static bool
chunk_key(const rb *r, const rb_chunk *ch, uint32_t j, rb_key *k, ts_err *err)
{
	ts_cursor	c;

	if (r->width > 0)
	{
		ts_cursor_init(&c, ch->kbytes + (size_t) j * ch->fixed, ch->fixed);
		return read_key(&c, r->width, k, err);
	}
	{
		uint32_t	off;

		if (!be32_at(ch->koffsets, (size_t) ch->size * 4, (size_t) j * 4, &off, err))
			return false;
		if (off > ch->kbytes_len)
			return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: key offset %u", off);
		ts_cursor_init(&c, ch->kbytes + off, ch->kbytes_len - off);
		return read_key(&c, -1, k, err);
	}
}

/*
 * The code of key (>= 0), or -(insertion code + 1) when the dictionary
 * does not hold it (as ChunkedDictionary.find).  Only for min < key <= max.
 */
static bool
dict_find(const rb *r, const rb_key *key, int64_t *code, ts_err *err)
{
	int64_t		low = 0,
				high = (int64_t) r->nchunks - 1;
	rb_chunk	ch;
	int64_t		base;

	while (low <= high)
	{
		int64_t		mid = (low + high) / 2;
		int			c;

		if (!read_chunk(r, (uint32_t) mid, &ch, err))
			return false;
		c = key_cmp(r, &ch.key, key);
		if (c > 0)
			high = mid - 1;
		else if (c < 0)
			low = mid + 1;
		else
		{
			*code = ch.code;
			return true;
		}
	}
	if (low == 0)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: key below the first chunk");
	if (!read_chunk(r, (uint32_t) (low - 1), &ch, err))
		return false;
	base = (int64_t) ch.code + 1;
	low = 0;
	high = (int64_t) ch.size - 1;
	while (low <= high)
	{
		int64_t		mid = (low + high) / 2;
		rb_key		k;
		int			c;

		if (!chunk_key(r, &ch, (uint32_t) mid, &k, err))
			return false;
		c = key_cmp(r, &k, key);
		if (c > 0)
			high = mid - 1;
		else if (c < 0)
			low = mid + 1;
		else
		{
			*code = base + mid;
			return true;
		}
	}
	*code = -(base + low + 1);
	return true;
}

/* ---- the bit-sliced index of codes ----------------------------------- */

static roaring_bitmap_t *
copy_ebm(const rb *r)
{
	return roaring_bitmap_copy(r->ebm);
}

static roaring_bitmap_t *
bsi_eq(const rb *r, int64_t code)
{
	roaring_bitmap_t *state;

	if (code < 0 || (r->nslices < 63 && (code >> r->nslices) != 0))
		return roaring_bitmap_create();
	state = copy_ebm(r);
	for (int i = 0; i < r->nslices && state; i++)
	{
		if ((code >> i) & 1)
			roaring_bitmap_and_inplace(state, r->slices[i]);
		else
			roaring_bitmap_andnot_inplace(state, r->slices[i]);
	}
	return state;
}

static roaring_bitmap_t *
bsi_gt(const rb *r, int64_t code)
{
	roaring_bitmap_t *state = NULL;
	int			start = 0;

	if (code < 0)
		return copy_ebm(r);
	if (r->nslices < 63 && (code >> r->nslices) != 0)
		return roaring_bitmap_create();
	while (start < 63 && ((code >> start) & 1))
		start++;
	for (int i = start; i < r->nslices; i++)
	{
		if (state == NULL)
		{
			state = roaring_bitmap_copy(r->slices[i]);
			if (state == NULL)
				return NULL;
		}
		else if ((code >> i) & 1)
			roaring_bitmap_and_inplace(state, r->slices[i]);
		else
			roaring_bitmap_or_inplace(state, r->slices[i]);
	}
	if (state == NULL)
		return roaring_bitmap_create();
	roaring_bitmap_and_inplace(state, r->ebm);
	return state;
}

/* ---- parsing ----------------------------------------------------------- */

static void
rb_free(rb *r)
{
	if (r->ebm)
		roaring_bitmap_free(r->ebm);
	for (int i = 0; i < r->nslices; i++)
		if (r->slices[i])
			roaring_bitmap_free(r->slices[i]);
	r->ebm = NULL;
	r->nslices = 0;
}

/* A length-prefixed section at 'at': its header [*h, *h + *hlen) and where its body starts. */
static bool
section(const uint8_t *body, size_t len, size_t at, ts_cursor *header, size_t *body_at,
		ts_err *err)
{
	uint32_t	hlen = 0;

	if (!be32_at(body, len, at, &hlen, err))
		return false;
	if (hlen > len - at - 4)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: header of %u bytes", hlen);
	ts_cursor_init(header, body + at + 4, hlen);
	*body_at = at + 4 + hlen;
	return true;
}

static bool
rb_parse(const uint8_t *body, size_t len, rb *r, ts_err *err)
{
	ts_cursor	h;
	size_t		dict_at,
				bsi_at,
				at;
	uint8_t		version;
	uint32_t	rid,
				card,
				dict_len,
				size,
				offsets_len,
				chunks_len,
				ebm_len,
				dir_len;
	uint8_t		nslices;
	const uint8_t *dir;

	if (!section(body, len, 0, &h, &dict_at, err) || !ts_cursor_u8(&h, &version, err))
		return false;
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "range-bitmap index version %u", version);
	if (!ts_cursor_be32(&h, &rid, err) || !ts_cursor_be32(&h, &card, err))
		return false;
	if (rid > INT32_MAX || card > INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: %u rows, %u values", rid, card);
	r->rid = rid;
	r->cardinality = (int32_t) card;
	if (card > 0 && (!read_key(&h, r->width, &r->min, err) || !read_key(&h, r->width, &r->max, err)))
		return false;
	if (!ts_cursor_be32(&h, &dict_len, err))
		return false;
	if (card == 0)
		return true;			/* every row NULL: nothing else is read */
	if (dict_len > len - dict_at)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: dictionary of %u bytes",
						dict_len);
	bsi_at = dict_at + dict_len;

	/* dictionary */
	if (!section(body, dict_at + dict_len, dict_at, &h, &at, err) ||
		!ts_cursor_u8(&h, &version, err))
		return false;
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "range-bitmap dictionary version %u", version);
	if (!ts_cursor_be32(&h, &size, err) || !ts_cursor_be32(&h, &offsets_len, err) ||
		!ts_cursor_be32(&h, &chunks_len, err))
		return false;
	if (size == 0 || (uint64_t) size * 4 != offsets_len ||
		(uint64_t) offsets_len + chunks_len > dict_at + dict_len - at)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: dictionary of %u chunks", size);
	r->nchunks = size;
	r->offsets = body + at;
	r->chunks = body + at + offsets_len;
	r->chunks_len = chunks_len;
	r->keys = r->chunks + chunks_len;
	r->keys_len = dict_at + dict_len - at - offsets_len - chunks_len;

	/* bit-sliced index */
	if (!section(body, len, bsi_at, &h, &at, err) || !ts_cursor_u8(&h, &version, err))
		return false;
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "range-bitmap bsi version %u", version);
	if (!ts_cursor_u8(&h, &nslices, err) || !ts_cursor_be32(&h, &ebm_len, err) ||
		!ts_cursor_be32(&h, &dir_len, err))
		return false;
	if (nslices < 1 || nslices > MAX_SLICES || dir_len != (uint32_t) nslices * 8 ||
		!ts_cursor_bytes(&h, dir_len, &dir, err))
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: %u slices", nslices);
	if (ebm_len > len - at)
		return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: truncated");
	{
		size_t		used;

		r->ebm = fi_read_roaring(body + at, ebm_len, &used, err);
		if (r->ebm == NULL)
			return false;
	}
	at += ebm_len;
	for (int i = 0; i < nslices; i++)
	{
		uint32_t	off,
					slen;
		size_t		used;

		if (!be32_at(dir, dir_len, (size_t) i * 8, &off, err) ||
			!be32_at(dir, dir_len, (size_t) i * 8 + 4, &slen, err))
			return false;
		if (off > len - at || slen > len - at - off)
			return ts_error(err, TS_ERR_CORRUPT, "range-bitmap index: slice %d at %u", i, off);
		r->slices[i] = fi_read_roaring(body + at + off, slen, &used, err);
		if (r->slices[i] == NULL)
			return false;
		r->nslices = i + 1;
	}
	return true;
}

/* ---- the leaf --------------------------------------------------------- */

typedef enum rb_op
{
	RB_EQ,
	RB_LT,
	RB_LE,
	RB_GT,
	RB_GE
} rb_op;

/*
 * Rows whose value compares with key as op; NULL when out of memory, or
 * (*failed, err set) when the dictionary does not decode.
 */
static roaring_bitmap_t *
rb_compare(const rb *r, rb_op op, const rb_key *key, bool *failed, ts_err *err)
{
	int			cmin = key_cmp(r, key, &r->min);
	int			cmax = key_cmp(r, key, &r->max);
	int64_t		code;
	roaring_bitmap_t *x,
			   *res;

	switch (op)
	{
		case RB_EQ:
			if (cmin == 0 && cmax == 0)
				return copy_ebm(r);
			if (cmin < 0 || cmax > 0)
				return roaring_bitmap_create();
			if (!dict_find(r, key, &code, err))
			{
				*failed = true;
				return NULL;
			}
			return code < 0 ? roaring_bitmap_create() : bsi_eq(r, code);
		case RB_GE:
			if (cmin <= 0)
				return copy_ebm(r);
			if (cmax > 0)
				return roaring_bitmap_create();
			if (!dict_find(r, key, &code, err))
			{
				*failed = true;
				return NULL;
			}
			return bsi_gt(r, (code < 0 ? -code - 1 : code) - 1);
		case RB_GT:
			if (cmin < 0)
				return copy_ebm(r);
			if (cmax >= 0)
				return roaring_bitmap_create();
			if (!dict_find(r, key, &code, err))
			{
				*failed = true;
				return NULL;
			}
			return code < 0 ? bsi_gt(r, -code - 2) : bsi_gt(r, code);
		case RB_LE:
		case RB_LT:
			if (op == RB_LE ? cmax >= 0 : cmax > 0)
				return copy_ebm(r);
			if (op == RB_LE ? cmin < 0 : cmin <= 0)
				return roaring_bitmap_create();
			/* the rows with a value, but not those above (LE) / at or above (LT) */
			x = rb_compare(r, op == RB_LE ? RB_GT : RB_GE, key, failed, err);
			if (x == NULL)
				return NULL;
			res = roaring_bitmap_andnot(r->ebm, x);
			roaring_bitmap_free(x);
			return res;
	}
	return NULL;
}

/* The literal as a key; false when it is no exact key of the column's type. */
static bool
literal_key(const rb *r, const ts_type *t, const ts_predicate *p, const ts_value *lit,
			rb_key *k)
{
	bool		lossy;

	memset(k, 0, sizeof(*k));
	if (r->width < 0)
	{
		if (!ts_predicate_literal_usable(t, p, lit))
			return false;
		k->s = lit->v.s.p;
		k->len = lit->v.s.len;
		return true;
	}
	if (!fi_literal_key(t, p, lit, &k->i, &lossy) || lossy)
		return false;
	/* a key wider than the stored width is no key of the column */
	if (r->width < 8)
	{
		int64_t		lim = INT64_C(1) << (r->width * 8 - 1);

		if (k->i < -lim || k->i >= lim)
			return false;
	}
	return true;
}

bool
fi_range_bitmap_leaf(const uint8_t *body, size_t len, const ts_type *t, const ts_predicate *p,
					 fi_res *out, ts_err *err)
{
	rb			r;
	rb_op		op = RB_EQ;
	bool		negate = false;
	roaring_bitmap_t *acc = NULL;

	out->state = FI_REMAIN;
	out->rows = NULL;
	memset(&r, 0, sizeof(r));
	r.width = rb_width(t);
	if (r.width == 0)
		return true;
	switch (p->op)
	{
		case TS_PRED_EQ:
		case TS_PRED_IN:
		case TS_PRED_IS_NOT_NULL:
			break;
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_IS_NULL:
			negate = true;
			break;
		case TS_PRED_LT:
			op = RB_LT;
			break;
		case TS_PRED_LE:
			op = RB_LE;
			break;
		case TS_PRED_GT:
			op = RB_GT;
			break;
		case TS_PRED_GE:
			op = RB_GE;
			break;
		default:
			return true;
	}
	if (p->op != TS_PRED_IS_NULL && p->op != TS_PRED_IS_NOT_NULL && p->nliterals < 1)
		return true;
	/* every literal first: one that is no exact key decides nothing */
	for (int i = 0; i < p->nliterals; i++)
	{
		rb_key		k;

		if (!p->literals[i].isnull && !literal_key(&r, t, p, &p->literals[i], &k))
			return true;
	}
	if (!rb_parse(body, len, &r, err))
		goto fail;
	acc = roaring_bitmap_create();
	if (acc == NULL)
		goto nomem;
	if (r.cardinality > 0 && p->op != TS_PRED_IS_NULL && p->op != TS_PRED_IS_NOT_NULL)
	{
		for (int i = 0; i < p->nliterals; i++)
		{
			rb_key		k;
			roaring_bitmap_t *x;
			bool		failed = false;

			if (p->literals[i].isnull)
				continue;		/* compares with nothing: no row */
			(void) literal_key(&r, t, p, &p->literals[i], &k);
			x = rb_compare(&r, negate ? RB_EQ : op, &k, &failed, err);
			if (x == NULL)
			{
				if (failed)
					goto fail;
				goto nomem;
			}
			roaring_bitmap_or_inplace(acc, x);
			roaring_bitmap_free(x);
			if (op != RB_EQ)
				break;			/* ranges have one literal */
		}
	}
	else if (p->op == TS_PRED_IS_NOT_NULL && r.cardinality > 0)
		roaring_bitmap_or_inplace(acc, r.ebm);
	if (negate)
	{
		/* <>, NOT IN: rows with a value but none of these; IS NULL: rows without */
		roaring_bitmap_t *base = roaring_bitmap_create();

		if (base == NULL)
			goto nomem;
		if (p->op == TS_PRED_IS_NULL)
		{
			if (r.rid > 0)
				roaring_bitmap_add_range(base, 0, r.rid);
			if (r.cardinality > 0)
				roaring_bitmap_andnot_inplace(base, r.ebm);
		}
		else if (r.cardinality > 0)
		{
			roaring_bitmap_or_inplace(base, r.ebm);
			roaring_bitmap_andnot_inplace(base, acc);
		}
		roaring_bitmap_free(acc);
		acc = base;
	}
	rb_free(&r);
	return fi_res_rows(out, acc, err);

nomem:
	ts_error_nomem(err, NULL);
fail:
	if (acc)
		roaring_bitmap_free(acc);
	rb_free(&r);
	return false;
}
