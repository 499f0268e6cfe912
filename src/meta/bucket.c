/*
 * bucket.c - Paimon bucket functions (PAIMON-FORMAT.md 6.3-6.5).
 *
 * Owns: DEFAULT (Paimon's MurmurHash3_x86_32 variant, seed 42, over the
 * BinaryRow bytes of the bucket-key values without the arity prefix;
 * bucket = |hash % n| with C/Java truncating remainder), MOD (floorMod of
 * the single INT/BIGINT key) and HIVE (Hive-compatible hashing).  Pure
 * functions; when to prune with them is src/scan's business.
 */
#include "meta/bucket.h"

#include <string.h>
#include <strings.h>

#include "meta/binary_row.h"

bool
ts_bucket_function_parse(const char *value, ts_bucket_function *fn, ts_err *err)
{
	if (value == NULL || strcasecmp(value, "default") == 0)
		*fn = TS_BUCKET_FN_DEFAULT;
	else if (strcasecmp(value, "mod") == 0)
		*fn = TS_BUCKET_FN_MOD;
	else if (strcasecmp(value, "hive") == 0)
		*fn = TS_BUCKET_FN_HIVE;
	else
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"unknown bucket-function.type \"%s\" (expected default, mod or hive)", value);
	return true;
}

static inline uint32_t
rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t
mix_k1(uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = rotl32(k, 15);
	k *= 0x1b873593u;
	return k;
}

static inline uint32_t
mix_h1(uint32_t h, uint32_t k)
{
	h ^= k;
	h = rotl32(h, 13);
	h = h * 5 + 0xe6546b64u;
	return h;
}

int32_t
ts_murmur_hash_words(const uint8_t *data, size_t len, uint32_t seed)
{
	uint32_t	h = seed;
	size_t		aligned = len & ~(size_t) 3;

	for (size_t i = 0; i < aligned; i += 4)
		h = mix_h1(h, mix_k1(ts_load_le32(data + i)));
	/* Paimon mixes each tail byte separately, sign-extended */
	for (size_t i = aligned; i < len; i++)
		h = mix_h1(h, mix_k1((uint32_t) (int32_t) (int8_t) data[i]));
	h ^= (uint32_t) len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return (int32_t) h;
}

/* ---- HIVE ------------------------------------------------------------- */

static int32_t
hive_long_hash(int64_t v)
{
	uint64_t	u = (uint64_t) v;

	return (int32_t) (uint32_t) (u ^ (u >> 32));
}

static int32_t
hive_bytes_hash(const uint8_t *p, uint32_t n)
{
	uint32_t	r = 0;

	for (uint32_t i = 0; i < n; i++)
		r = r * 31 + (uint32_t) (int32_t) (int8_t) p[i];
	return (int32_t) r;
}

/*
 * Java BigDecimal.hashCode() of the Hive-normalized decimal: strip
 * trailing zeros (zero -> 0 with scale 0), then 31 * BigInteger.hashCode
 * (unscaled) + scale, where BigInteger.hashCode runs h = 31*h + word over
 * the magnitude's 32-bit words, most significant first, times signum.
 */
static int32_t
hive_decimal_hash(ts_int128 unscaled, int scale)
{
	unsigned __int128 mag;
	int			sign;
	uint32_t	words[4];
	int			nw = 0;
	uint32_t	h = 0;

	if (unscaled == 0)
		return 0;
	sign = unscaled < 0 ? -1 : 1;
	mag = unscaled < 0 ? (unsigned __int128) 0 - (unsigned __int128) unscaled : (unsigned __int128) unscaled;
	while (scale > 0 && mag % 10 == 0)
	{
		mag /= 10;
		scale--;
	}
	for (int i = 3; i >= 0; i--)
		words[i] = (uint32_t) (mag >> (32 * (3 - i)));
	while (nw < 4 && words[nw] == 0)
		nw++;
	for (int i = nw; i < 4; i++)
		h = 31 * h + words[i];
	if (sign < 0)
		h = 0u - h;
	return (int32_t) (31 * h + (uint32_t) scale);
}

static bool
hive_field_hash(const ts_type *t, const ts_value *v, int32_t *out, ts_err *err)
{
	if (v->isnull)
	{
		*out = 0;
		return true;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			*out = v->v.i ? 1 : 0;
			return true;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_DATE:
		case TS_TIME:
			*out = (int32_t) v->v.i;
			return true;
		case TS_BIGINT:
			*out = hive_long_hash(v->v.i);
			return true;
		case TS_FLOAT:
			{
				uint32_t	b;

				if (v->v.f == 0.0f)
				{
					/* -0.0f == 0.0f in Java, hashed as 0; +0.0 bits are 0 too */
					*out = 0;
					return true;
				}
				memcpy(&b, &v->v.f, 4);
				if (v->v.f != v->v.f)
					b = 0x7fc00000u;	/* Float.floatToIntBits canonical NaN */
				*out = (int32_t) b;
				return true;
			}
		case TS_DOUBLE:
			{
				uint64_t	b;

				if (v->v.d == 0.0)
				{
					*out = 0;
					return true;
				}
				memcpy(&b, &v->v.d, 8);
				if (v->v.d != v->v.d)
					b = 0x7ff8000000000000ull;	/* canonical NaN */
				*out = hive_long_hash((int64_t) b);
				return true;
			}
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			*out = hive_bytes_hash(v->v.s.p, v->v.s.len);
			return true;
		case TS_DECIMAL:
			*out = hive_decimal_hash(v->v.dec, t->scale);
			return true;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"the hive bucket function does not support %s bucket keys",
							ts_type_kind_name(t->kind));
	}
}

bool
ts_bucket_compute(ts_bucket_function fn,
				  const ts_type *const *key_types, const ts_value *key_values, int nkeys,
				  int32_t total_buckets, int32_t *bucket, ts_err *err)
{
	/*
	 * Not in the Java function itself but in its callers: -1 (unaware
	 * bucket) always writes bucket 0 and -2 (postpone) always -2.
	 */
	if (total_buckets == -1)
	{
		*bucket = 0;
		return true;
	}
	if (total_buckets == -2)
	{
		*bucket = -2;
		return true;
	}
	if (total_buckets <= 0)
		return ts_error(err, TS_ERR_INVALID, "invalid number of buckets %d", (int) total_buckets);

	switch (fn)
	{
		case TS_BUCKET_FN_DEFAULT:
			{
				ts_buf		b;
				int32_t		h;

				ts_buf_init(&b);
				if (!ts_binary_row_encode(key_types, key_values, nkeys, false, &b, err))
				{
					ts_buf_free(&b);
					return false;
				}
				h = ts_murmur_hash_words(b.data, b.len, 42);
				ts_buf_free(&b);
				h = h % total_buckets;
				*bucket = h < 0 ? -h : h;
				return true;
			}
		case TS_BUCKET_FN_MOD:
			{
				int64_t		v,
							r;

				if (nkeys != 1 ||
					(key_types[0]->kind != TS_INT && key_types[0]->kind != TS_BIGINT))
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"the mod bucket function needs exactly one INT or BIGINT bucket key");
				/* a NULL key reads as 0 from the BinaryRow slot */
				v = key_values[0].isnull ? 0 : key_values[0].v.i;
				if (key_types[0]->kind == TS_INT)
					v = (int32_t) v;
				r = v % total_buckets;
				if (r < 0)
					r += total_buckets;
				*bucket = (int32_t) r;
				return true;
			}
		case TS_BUCKET_FN_HIVE:
			{
				uint32_t	h = 0;

				for (int i = 0; i < nkeys; i++)
				{
					int32_t		fh = 0;

					if (!hive_field_hash(key_types[i], &key_values[i], &fh, err))
						return false;
					h = 31 * h + (uint32_t) fh;
				}
				*bucket = (int32_t) ((h & 0x7fffffffu) % (uint32_t) total_buckets);
				return true;
			}
	}
	return ts_error(err, TS_ERR_INVALID, "unknown bucket function %d", (int) fn);
}
