/*
 * fi_bloom.c - the bloom-filter file index (BloomFilterFileIndex) and the
 * hashes it is built with (FastHash).
 *
 * Owns: the body (int32 BE number of hash functions, then the bit set as
 * little-endian 64-bit words: BloomFilter64; bit i is bit i % 8 of byte
 * i / 8, and older writers' sets end inside a word), the probe (the 64-bit hash
 * split into two 32-bit halves, h1 + i * h2 for i = 1..k, negative
 * flipped, modulo the bit count), XXH64 (seed 0) of the bytes of strings
 * and binaries, Thomas Wang's 64-bit integer hash of integers, DATE, TIME,
 * the IEEE bits of FLOAT / DOUBLE (Float.floatToIntBits, widened) and of
 * TIMESTAMP(0..3) milliseconds.  Only = and IN are decided; a literal the
 * filter does not hold rules its rows out.  TIMESTAMP(4..9) is not used:
 * older writers hashed other units than the current one.
 */
#include <math.h>
#include <string.h>

#include "base/ts_bytes.h"
#include "format/fileindex/fi_internal.h"

/* ---- XXH64 ------------------------------------------------------------ */

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t
rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
xxh_round(uint64_t acc, uint64_t input)
{
	acc += input * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static inline uint64_t
xxh_merge(uint64_t acc, uint64_t val)
{
	acc ^= xxh_round(0, val);
	return acc * P1 + P4;
}

uint64_t
ts_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	const uint8_t *end = p + len;
	uint64_t	h;

	if (len >= 32)
	{
		uint64_t	v1 = seed + P1 + P2,
					v2 = seed + P2,
					v3 = seed,
					v4 = seed - P1;

		while (end - p >= 32)
		{
			v1 = xxh_round(v1, ts_load_le64(p));
			v2 = xxh_round(v2, ts_load_le64(p + 8));
			v3 = xxh_round(v3, ts_load_le64(p + 16));
			v4 = xxh_round(v4, ts_load_le64(p + 24));
			p += 32;
		}
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	}
	else
		h = seed + P5;
	h += (uint64_t) len;
	while (end - p >= 8)
	{
		h ^= xxh_round(0, ts_load_le64(p));
		h = rotl64(h, 27) * P1 + P4;
		p += 8;
	}
	if (end - p >= 4)
	{
		h ^= (uint64_t) ts_load_le32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
	}
	while (p < end)
	{
		h ^= (uint64_t) (*p) * P5;
		h = rotl64(h, 11) * P1;
		p++;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* ---- Thomas Wang's hash, with Java's arithmetic shifts ---------------- */

static inline uint64_t
sar(uint64_t x, int n)
{
	return (uint64_t) ((int64_t) x >> n);
}

int64_t
ts_thomas_wang_hash64(int64_t k)
{
	uint64_t	key = (uint64_t) k;

	key = (~key) + (key << 21);
	key = key ^ sar(key, 24);
	key = (key + (key << 3)) + (key << 8);
	key = key ^ sar(key, 14);
	key = (key + (key << 2)) + (key << 4);
	key = key ^ sar(key, 28);
	key = key + (key << 31);
	return (int64_t) key;
}

/* ---- the filter ------------------------------------------------------- */

typedef struct bloom
{
	int32_t		nhash;
	const uint8_t *bits;
	uint32_t	nbits;
} bloom;

static bool
bloom_test(const bloom *b, uint64_t hash)
{
	int32_t		h1 = (int32_t) (uint32_t) hash;
	int32_t		h2 = (int32_t) (uint32_t) (hash >> 32);

	for (int32_t i = 1; i <= b->nhash; i++)
	{
		int32_t		combined = (int32_t) ((uint32_t) h1 + (uint32_t) i * (uint32_t) h2);
		uint32_t	pos;

		if (combined < 0)
			combined = ~combined;
		pos = (uint32_t) combined % b->nbits;
		if ((b->bits[pos >> 3] & (1u << (pos & 7))) == 0)
			return false;
	}
	return true;
}

/*
 * The hashes one literal may have been written under (two for a zero
 * FLOAT / DOUBLE: SQL finds -0.0 = 0.0, the writer hashed their bits);
 * 0 when the literal cannot be hashed as the writer did.
 */
static int
literal_hashes(const ts_type *t, const ts_predicate *p, const ts_value *lit, uint64_t *h)
{
	if (!ts_predicate_literal_usable(t, p, lit))
		return 0;
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_TIME:
			h[0] = (uint64_t) ts_thomas_wang_hash64(lit->v.i);
			return 1;
		case TS_FLOAT:
			{
				float		f = lit->v.f;
				int32_t		bits;

				memcpy(&bits, &f, 4);
				h[0] = (uint64_t) ts_thomas_wang_hash64(bits);
				if (f != 0)
					return 1;
				f = -f;
				memcpy(&bits, &f, 4);
				h[1] = (uint64_t) ts_thomas_wang_hash64(bits);
				return 2;
			}
		case TS_DOUBLE:
			{
				double		d = lit->v.d;
				int64_t		bits;

				memcpy(&bits, &d, 8);
				h[0] = (uint64_t) ts_thomas_wang_hash64(bits);
				if (d != 0)
					return 1;
				d = -d;
				memcpy(&bits, &d, 8);
				h[1] = (uint64_t) ts_thomas_wang_hash64(bits);
				return 2;
			}
		case TS_VARCHAR:
		case TS_VARBINARY:
			h[0] = ts_xxh64(lit->v.s.p, lit->v.s.len, 0);
			return 1;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision > 3 || lit->v.ts.nanos != 0)
				return 0;
			h[0] = (uint64_t) ts_thomas_wang_hash64(lit->v.ts.millis);
			return 1;
		default:
			return 0;
	}
}

bool
fi_bloom_leaf(const uint8_t *body, size_t len, const ts_type *t, const ts_predicate *p,
			  fi_res *out, ts_err *err)
{
	bloom		b;
	bool		any = false;

	out->state = FI_REMAIN;
	out->rows = NULL;
	if (p->op != TS_PRED_EQ && p->op != TS_PRED_IN)
		return true;
	if (len < 4)
		return ts_error(err, TS_ERR_CORRUPT, "bloom filter of %zu bytes", len);
	b.nhash = (int32_t) ts_load_be32(body);
	b.bits = body + 4;
	/* every byte's bits (older writers' sets were not whole 64-bit words) */
	if (len - 4 > INT32_MAX / 8)
		return ts_error(err, TS_ERR_CORRUPT, "bloom filter of %zu bytes is too large", len);
	b.nbits = (uint32_t) ((len - 4) * 8);
	if (b.nhash <= 0 || b.nhash > 1024 || b.nbits == 0)
		return ts_error(err, TS_ERR_CORRUPT, "bloom filter with %d hash functions over %u bits",
						b.nhash, b.nbits);
	for (int i = 0; i < p->nliterals && !any; i++)
	{
		uint64_t	h[2];
		int			n;

		if (p->literals[i].isnull)
			continue;			/* equals nothing */
		n = literal_hashes(t, p, &p->literals[i], h);
		if (n == 0)
			return true;		/* cannot tell */
		for (int k = 0; k < n; k++)
			any |= bloom_test(&b, h[k]);
	}
	if (!any)
		out->state = FI_SKIP;
	return true;
}
