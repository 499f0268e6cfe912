/*
 * ts_hash_index.h - an open-addressing index from a 64-bit hash to the
 * position of an entry in the caller's own array.
 *
 * The index holds no keys: entries with equal hashes are told apart by the
 * caller's equality callback, so any key (a BinaryRow and a bucket, a path)
 * can be indexed without copying it.  Linear probing, grown to keep the
 * load at most one half; no removal (the callers only add until freed).
 */
#ifndef TS_HASH_INDEX_H
#define TS_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ts_base.h"

typedef struct ts_hash_index
{
	uint64_t   *hashes;			/* per slot */
	int32_t    *pos;			/* per slot: the entry's position, -1 = empty */
	size_t		cap;			/* a power of two, or 0 */
	size_t		n;
} ts_hash_index;

/* is the entry at pos the key the caller looks for? */
typedef bool (*ts_hash_index_eq) (void *arg, int32_t pos);

void		ts_hash_index_init(ts_hash_index *ix);
void		ts_hash_index_free(ts_hash_index *ix);

/* The position of the entry with hash h for which eq says true, or -1. */
int32_t		ts_hash_index_find(const ts_hash_index *ix, uint64_t h, ts_hash_index_eq eq, void *arg);

/* Index the entry at pos under hash h (not looked up first). */
bool		ts_hash_index_add(ts_hash_index *ix, uint64_t h, int32_t pos, ts_err *err);

/* FNV-1a of n bytes, continuing from h (start with TS_HASH_SEED). */
#define TS_HASH_SEED 1469598103934665603ULL
uint64_t	ts_hash_bytes(uint64_t h, const void *p, size_t n);

#endif							/* TS_HASH_INDEX_H */
