/*
 * sha256.c - SHA-256 (FIPS 180-4, section 6.2) in plain C.
 *
 * Owns: the compression function and the streaming init / update / final
 * over it.  Used for the metadata cache's record names (meta_cache.c),
 * which a new connection computes while planning: OpenSSL's first digest
 * in a process costs milliseconds of initialisation (ts_sha256.h).
 * Results equal OpenSSL's (test/unit/test_sha256.c checks both).
 */
#include <string.h>

#include "base/ts_sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static inline uint32_t
rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void
compress(uint32_t state[8], const uint8_t block[64])
{
	uint32_t	w[64];
	uint32_t	a = state[0],
				b = state[1],
				c = state[2],
				d = state[3],
				e = state[4],
				f = state[5],
				g = state[6],
				h = state[7];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t) block[4 * t] << 24 | (uint32_t) block[4 * t + 1] << 16 |
			(uint32_t) block[4 * t + 2] << 8 | (uint32_t) block[4 * t + 3];
	for (int t = 16; t < 64; t++)
	{
		uint32_t	s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t	s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	for (int t = 0; t < 64; t++)
	{
		uint32_t	t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
			K[t] + w[t];
		uint32_t	t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	state[5] += f;
	state[6] += g;
	state[7] += h;
}

void
ts_sha256_init(ts_sha256 *c)
{
	static const uint32_t H0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(c->state, H0, sizeof(H0));
	c->length = 0;
	c->used = 0;
}

void
ts_sha256_update(ts_sha256 *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->length += len;
	if (c->used > 0)
	{
		size_t		take = 64 - c->used < len ? 64 - c->used : len;

		memcpy(c->block + c->used, p, take);
		c->used += take;
		p += take;
		len -= take;
		if (c->used < 64)
			return;
		compress(c->state, c->block);
		c->used = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(c->state, p);
	if (len > 0)
		memcpy(c->block, p, len);
	c->used = len;
}

void
ts_sha256_final(ts_sha256 *c, uint8_t out[32])
{
	uint64_t	bits = c->length * 8;

	/* 0x80, zeros to 56 mod 64, the length in bits big endian */
	c->block[c->used++] = 0x80;
	if (c->used > 56)
	{
		memset(c->block + c->used, 0, 64 - c->used);
		compress(c->state, c->block);
		c->used = 0;
	}
	memset(c->block + c->used, 0, 56 - c->used);
	for (int i = 0; i < 8; i++)
		c->block[56 + i] = (uint8_t) (bits >> (56 - 8 * i));
	compress(c->state, c->block);
	for (int i = 0; i < 8; i++)
	{
		out[4 * i] = (uint8_t) (c->state[i] >> 24);
		out[4 * i + 1] = (uint8_t) (c->state[i] >> 16);
		out[4 * i + 2] = (uint8_t) (c->state[i] >> 8);
		out[4 * i + 3] = (uint8_t) c->state[i];
	}
}

void
ts_sha256_digest(const void *data, size_t len, uint8_t out[32])
{
	ts_sha256	c;

	ts_sha256_init(&c);
	ts_sha256_update(&c, data, len);
	ts_sha256_final(&c, out);
}
