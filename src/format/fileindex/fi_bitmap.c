/*
 * fi_bitmap.c - the bitmap file index (BitmapFileIndex, meta v1 and v2).
 *
 * Owns: the body (version byte; row count, number of distinct non-NULL
 * values, a NULL flag with the NULL bitmap's offset [v2: and length];
 * v1: every value with its bitmap's offset; v2: a directory of index
 * blocks, then blocks of value / offset / length), the bitmaps (portable
 * Roaring, or a negative offset -1 - row for a value of one row), and the
 * rows a leaf selects: = / IN (the union of the literals' bitmaps), <> /
 * NOT IN (every row but those and the NULLs), IS [NOT] NULL.  Values are
 * keys as Java writes them: strings as int32 length + bytes, integers,
 * DATE, TIME big-endian, FLOAT / DOUBLE as their bits, TIMESTAMP as a
 * long (milliseconds for precision <= 3, else microseconds).  The blocks
 * are searched from start to end, not by their order: a file whose
 * values are out of order is read right too.
 */
#include <string.h>

#include "format/fileindex/fi_internal.h"

typedef struct bm_key
{
	uint8_t		fixed[8];
	const uint8_t *p;			/* the key's bytes (fixed, or a string's) */
	uint32_t	len;
} bm_key;

typedef struct bm_meta
{
	const ts_type *type;
	int			width;			/* bytes of a key; -1: int32 length + bytes */
	int32_t		row_count;
	int32_t		nvalues;
	bool		has_null;
	int32_t		null_offset;
	int32_t		null_length;	/* -1: unknown */
	int			version;
	ts_cursor	values;			/* v1: the value / offset list; v2: the block directory */
	int32_t		nblocks;		/* v2 */
	const uint8_t *blocks;		/* v2: where block offsets count from */
	size_t		blocks_len;
	const uint8_t *body;		/* where bitmap offsets count from */
	size_t		body_len;
} bm_meta;

static int
key_width(const ts_type *t)
{
	switch (t->kind)
	{
		case TS_VARCHAR:
			return -1;
		case TS_BOOLEAN:
		case TS_TINYINT:
			return 1;
		case TS_SMALLINT:
			return 2;
		case TS_INT:
		case TS_DATE:
		case TS_TIME:
		case TS_FLOAT:
			return 4;
		case TS_BIGINT:
		case TS_DOUBLE:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return 8;
		default:
			return 0;
	}
}

static void
put_be(uint8_t *b, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
	{
		b[i] = (uint8_t) v;
		v >>= 8;
	}
}

/* The keys a literal may be stored under (2 for a zero FLOAT / DOUBLE); 0: unknown. */
static int
literal_keys(const bm_meta *m, const ts_predicate *p, const ts_value *lit, bm_key *k, bool *lossy)
{
	const ts_type *t = m->type;
	int64_t		key;

	*lossy = false;
	if (!ts_predicate_literal_usable(t, p, lit))
		return 0;
	k[0].p = k[0].fixed;
	k[0].len = (uint32_t) (m->width > 0 ? m->width : 0);
	switch (t->kind)
	{
		case TS_VARCHAR:
			k[0].p = lit->v.s.p;
			k[0].len = lit->v.s.len;
			return 1;
		case TS_BOOLEAN:
			k[0].fixed[0] = lit->v.i ? 1 : 0;
			return 1;
		case TS_FLOAT:
		case TS_DOUBLE:
			{
				uint64_t	bits = 0;
				bool		zero;

				if (t->kind == TS_FLOAT)
				{
					uint32_t	b32;

					memcpy(&b32, &lit->v.f, 4);
					bits = b32;
					zero = lit->v.f == 0;
				}
				else
				{
					memcpy(&bits, &lit->v.d, 8);
					zero = lit->v.d == 0;
				}
				put_be(k[0].fixed, bits, m->width);
				if (!zero)
					return 1;
				/* -0.0 = 0.0 in SQL: both keys */
				k[1] = k[0];
				k[1].p = k[1].fixed;
				k[1].fixed[0] ^= 0x80;
				return 2;
			}
		default:
			if (!fi_literal_key(t, p, lit, &key, lossy))
				return 0;
			put_be(k[0].fixed, (uint64_t) key, m->width);
			return 1;
	}
}

static bool
be32(ts_cursor *c, int32_t *v, ts_err *err)
{
	uint32_t	u;

	if (!ts_cursor_be32(c, &u, err))
		return false;
	*v = (int32_t) u;
	return true;
}

/* Read one stored key; *p / *len its bytes as literal_keys builds them. */
static bool
read_key(const bm_meta *m, ts_cursor *c, const uint8_t **p, uint32_t *len, ts_err *err)
{
	if (m->width > 0)
	{
		*len = (uint32_t) m->width;
		return ts_cursor_bytes(c, (size_t) m->width, p, err);
	}
	else
	{
		int32_t		n;

		if (!be32(c, &n, err))
			return false;
		if (n < 0)
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: negative string length");
		*len = (uint32_t) n;
		return ts_cursor_bytes(c, (size_t) n, p, err);
	}
}

static bool
parse_meta(const uint8_t *body, size_t len, const ts_type *t, bm_meta *m, bool *supported,
		   ts_err *err)
{
	ts_cursor	c;
	uint8_t		version,
				has_null;

	memset(m, 0, sizeof(*m));
	*supported = false;
	m->type = t;
	m->width = key_width(t);
	if (m->width == 0)
		return true;
	ts_cursor_init(&c, body, len);
	if (!ts_cursor_u8(&c, &version, err))
		return false;
	if (version != 1 && version != 2)
		return true;			/* a later version: not read */
	m->version = version;
	if (!be32(&c, &m->row_count, err) || !be32(&c, &m->nvalues, err) ||
		!ts_cursor_u8(&c, &has_null, err))
		return false;
	if (m->row_count < 0 || m->nvalues < 0)
		return ts_error(err, TS_ERR_CORRUPT, "bitmap index: negative counts");
	m->has_null = has_null != 0;
	m->null_length = -1;
	if (m->has_null)
	{
		if (!be32(&c, &m->null_offset, err))
			return false;
		if (version == 2 && !be32(&c, &m->null_length, err))
			return false;
	}
	if (version == 1)
	{
		/* the values, then the bitmaps */
		m->values = c;
		for (int32_t i = 0; i < m->nvalues; i++)
		{
			const uint8_t *k;
			uint32_t	klen;

			if (!read_key(m, &c, &k, &klen, err) || !ts_cursor_skip(&c, 4, err))
				return false;
		}
		m->body = c.p;
		m->body_len = ts_cursor_left(&c);
	}
	else
	{
		int32_t		body_offset;

		if (!be32(&c, &m->nblocks, err))
			return false;
		if (m->nblocks < 0)
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: negative block count");
		m->values = c;
		for (int32_t i = 0; i < m->nblocks; i++)
		{
			const uint8_t *k;
			uint32_t	klen;

			if (!read_key(m, &c, &k, &klen, err) || !ts_cursor_skip(&c, 4, err))
				return false;
		}
		if (!be32(&c, &body_offset, err))
			return false;
		if (body_offset < 0 || (size_t) body_offset > ts_cursor_left(&c))
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: bitmaps at %d past the end",
							body_offset);
		m->blocks = c.p;
		m->blocks_len = (size_t) body_offset;
		m->body = c.p + body_offset;
		m->body_len = ts_cursor_left(&c) - (size_t) body_offset;
	}
	*supported = true;
	return true;
}

/* The bitmap stored at offset (length -1: unknown), ORed into acc. */
static bool
or_bitmap(const bm_meta *m, int32_t offset, int32_t length, roaring_bitmap_t *acc, ts_err *err)
{
	roaring_bitmap_t *b;
	size_t		max;

	if (offset < 0)
	{
		int64_t		row = -1 - (int64_t) offset;

		if (row >= m->row_count)
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: row %lld of %d",
							(long long) row, m->row_count);
		roaring_bitmap_add(acc, (uint32_t) row);
		return true;
	}
	if ((size_t) offset >= m->body_len)
		return ts_error(err, TS_ERR_CORRUPT, "bitmap index: bitmap at %d past the end", offset);
	max = m->body_len - (size_t) offset;
	if (length >= 0 && (size_t) length < max)
		max = (size_t) length;
	b = fi_read_roaring(m->body + offset, max, NULL, err);
	if (b == NULL)
		return false;
	roaring_bitmap_or_inplace(acc, b);
	roaring_bitmap_free(b);
	return true;
}

static bool
key_matches(const uint8_t *k, uint32_t klen, const bm_key *keys, int nkeys)
{
	for (int i = 0; i < nkeys; i++)
		if (keys[i].len == klen && (klen == 0 || memcmp(keys[i].p, k, klen) == 0))
			return true;
	return false;
}

/* OR the bitmaps of the stored values among keys into acc. */
static bool
lookup(const bm_meta *m, const bm_key *keys, int nkeys, roaring_bitmap_t *acc, ts_err *err)
{
	ts_cursor	c = m->values;

	if (nkeys == 0)
		return true;
	if (m->version == 1)
	{
		for (int32_t i = 0; i < m->nvalues; i++)
		{
			const uint8_t *k;
			uint32_t	klen;
			int32_t		off;

			if (!read_key(m, &c, &k, &klen, err) || !be32(&c, &off, err))
				return false;
			if (key_matches(k, klen, keys, nkeys) && !or_bitmap(m, off, -1, acc, err))
				return false;
		}
		return true;
	}
	for (int32_t b = 0; b < m->nblocks; b++)
	{
		const uint8_t *k;
		uint32_t	klen;
		int32_t		block_off,
					n;
		ts_cursor	bc;

		if (!read_key(m, &c, &k, &klen, err) || !be32(&c, &block_off, err))
			return false;
		if (block_off < 0 || (size_t) block_off > m->blocks_len)
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: block at %d past the end",
							block_off);
		ts_cursor_init(&bc, m->blocks + block_off, m->blocks_len - (size_t) block_off);
		if (!be32(&bc, &n, err))
			return false;
		if (n < 0)
			return ts_error(err, TS_ERR_CORRUPT, "bitmap index: negative entry count");
		for (int32_t i = 0; i < n; i++)
		{
			int32_t		off,
						len;

			if (!read_key(m, &bc, &k, &klen, err) || !be32(&bc, &off, err) ||
				!be32(&bc, &len, err))
				return false;
			if (key_matches(k, klen, keys, nkeys) && !or_bitmap(m, off, len, acc, err))
				return false;
		}
	}
	return true;
}

static bool
null_rows(const bm_meta *m, roaring_bitmap_t *acc, ts_err *err)
{
	if (!m->has_null)
		return true;
	return or_bitmap(m, m->null_offset, m->null_length, acc, err);
}

bool
fi_bitmap_leaf(const uint8_t *body, size_t len, const ts_type *t, const ts_predicate *p,
			   fi_res *out, ts_err *err)
{
	bm_meta		m;
	bool		supported;
	bool		negate;
	bool		lossy = false;
	bm_key	   *keys;
	int			nkeys = 0;
	roaring_bitmap_t *acc;
	bool		ok;

	out->state = FI_REMAIN;
	out->rows = NULL;
	switch (p->op)
	{
		case TS_PRED_EQ:
		case TS_PRED_IN:
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_IS_NULL:
		case TS_PRED_IS_NOT_NULL:
			break;
		default:
			return true;
	}
	if (!parse_meta(body, len, t, &m, &supported, err))
		return false;
	if (!supported)
		return true;
	negate = p->op == TS_PRED_NE || p->op == TS_PRED_NOT_IN || p->op == TS_PRED_IS_NOT_NULL;
	keys = ts_malloc(sizeof(bm_key) * (size_t) (2 * (p->nliterals > 0 ? p->nliterals : 1)));
	if (keys == NULL)
		return ts_error_nomem(err, NULL);
	if (p->op != TS_PRED_IS_NULL && p->op != TS_PRED_IS_NOT_NULL)
	{
		for (int i = 0; i < p->nliterals; i++)
		{
			bool		l;
			int			n;

			if (p->literals[i].isnull)
				continue;		/* equals nothing; leaves NOT IN's rows a superset */
			n = literal_keys(&m, p, &p->literals[i], &keys[nkeys], &l);
			if (n == 0)
			{
				ts_free(keys);
				return true;
			}
			nkeys += n;
			lossy |= l;
		}
		if (negate && lossy)
		{
			/* a key stands for several values: "not this key" is not exact */
			ts_free(keys);
			return true;
		}
	}
	acc = roaring_bitmap_create();
	if (acc == NULL)
	{
		ts_free(keys);
		return ts_error_nomem(err, NULL);
	}
	if (p->op == TS_PRED_IS_NULL || p->op == TS_PRED_IS_NOT_NULL)
		ok = null_rows(&m, acc, err);
	else
		ok = lookup(&m, keys, nkeys, acc, err) && (!negate || null_rows(&m, acc, err));
	ts_free(keys);
	if (!ok)
	{
		roaring_bitmap_free(acc);
		return false;
	}
	if (negate)
	{
		roaring_bitmap_t *all = roaring_bitmap_create();

		if (all != NULL && m.row_count > 0)
			roaring_bitmap_add_range(all, 0, (uint64_t) m.row_count);
		if (all == NULL)
		{
			roaring_bitmap_free(acc);
			return ts_error_nomem(err, NULL);
		}
		roaring_bitmap_andnot_inplace(all, acc);
		roaring_bitmap_free(acc);
		acc = all;
	}
	return fi_res_rows(out, acc, err);
}
