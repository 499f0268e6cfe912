/*
 * hash_index.c - an open-addressing index from hashes to positions in the
 * caller's array (ts_hash_index.h).
 *
 * Owns: the slots, their probing and growth.  Holds no keys and frees no
 * entries: the caller's array does that.
 */
#include <string.h>

#include "base/ts_hash_index.h"

void
ts_hash_index_init(ts_hash_index *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void
ts_hash_index_free(ts_hash_index *ix)
{
	ts_free(ix->hashes);
	ts_free(ix->pos);
	ts_hash_index_init(ix);
}

uint64_t
ts_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* spread the low bits: FNV's are weak for short keys */
static size_t
slot_of(uint64_t h, size_t cap)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t) h & (cap - 1);
}

int32_t
ts_hash_index_find(const ts_hash_index *ix, uint64_t h, ts_hash_index_eq eq, void *arg)
{
	if (ix->cap == 0)
		return -1;
	for (size_t s = slot_of(h, ix->cap);; s = (s + 1) & (ix->cap - 1))
	{
		if (ix->pos[s] < 0)
			return -1;
		if (ix->hashes[s] == h && eq(arg, ix->pos[s]))
			return ix->pos[s];
	}
}

static void
put(uint64_t *hashes, int32_t *pos, size_t cap, uint64_t h, int32_t p)
{
	size_t		s = slot_of(h, cap);

	while (pos[s] >= 0)
		s = (s + 1) & (cap - 1);
	hashes[s] = h;
	pos[s] = p;
}

bool
ts_hash_index_add(ts_hash_index *ix, uint64_t h, int32_t pos, ts_err *err)
{
	if ((ix->n + 1) * 2 > ix->cap)
	{
		size_t		cap = ix->cap ? ix->cap * 2 : 16;
		uint64_t   *hashes = ts_malloc(sizeof(uint64_t) * cap);
		int32_t    *np = ts_malloc(sizeof(int32_t) * cap);

		if (hashes == NULL || np == NULL)
		{
			ts_free(hashes);
			ts_free(np);
			return ts_error_nomem(err, "a hash index");
		}
		for (size_t i = 0; i < cap; i++)
			np[i] = -1;
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->pos[i] >= 0)
				put(hashes, np, cap, ix->hashes[i], ix->pos[i]);
		ts_free(ix->hashes);
		ts_free(ix->pos);
		ix->hashes = hashes;
		ix->pos = np;
		ix->cap = cap;
	}
	put(ix->hashes, ix->pos, ix->cap, h, pos);
	ix->n++;
	return true;
}
