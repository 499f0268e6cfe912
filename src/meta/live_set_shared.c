/*
 * live_set_shared.c - a snapshot's live set in memory shared by the
 * server's backends (base/shared_region.c), read in place.
 *
 * Owns: the block a live set is published as, and finding one.  A block is
 * named exactly as the live set's record on disk (manifest_cache.c: the
 * kind, the store and its credentials, the base manifest list's path and
 * size, the entry cache's key), so a backend finds it only where it would
 * have been allowed to read that record; the key is held in the block too
 * and compared.  The block:
 *   live_block header: magic, counts, where the rest is
 *   the entry cache's key
 *   the array of n pointers to the entries, in split order
 *   the n entries, then everything they point to (entry_copy.c)
 * All pointers are absolute: every process maps the region at one address.
 * A light set (no statistics) is copied without them, as its record is.
 * Nothing writes into a block once published: the entry cache adopts its
 * array as a record's (src/scan/cache.c), and entries are never written
 * through.
 */
#include <string.h>

#include "base/ts_shared_region.h"
#include "meta/entry_copy.h"
#include "meta/manifest_cache.h"

#define LIVE_BLOCK_MAGIC "TSLVSHM1"
#define ALIGN8(n) (((n) + 7) & ~(size_t) 7)

typedef struct live_block
{
	char		magic[8];
	int32_t		n;
	int32_t		partitions;
	int32_t		buckets;
	size_t		keylen;
	const char *key;
	const ts_manifest_entry **ptrs;
} live_block;

/* what a light set holds of an entry: no statistics, as a light record decodes it */
static void
strip_stats(ts_manifest_entry *m)
{
	static const ts_simple_stats none = {{NULL, 0}, {NULL, 0}, -1, NULL};

	m->file.key_stats = none;
	m->file.value_stats = none;
	m->file.nvalue_stats_cols = -1;
	m->file.value_stats_cols = NULL;
}

bool
ts_live_set_shared_get(const char *name, const void *key, size_t keylen,
					   const ts_manifest_entry ***entries, int *count, int *partitions,
					   int *buckets, ts_shr_pin *pin)
{
	size_t		len;
	const live_block *b = ts_shr_get(name, &len, pin);

	if (b == NULL)
		return false;
	if (len < sizeof(*b) || memcmp(b->magic, LIVE_BLOCK_MAGIC, 8) != 0 || b->n < 0 ||
		b->keylen != keylen || memcmp(b->key, key, keylen) != 0)
	{
		ts_shr_unpin(*pin);
		pin->slot = -1;
		return false;
	}
	*entries = b->ptrs;
	*count = b->n;
	*partitions = b->partitions;
	*buckets = b->buckets;
	return true;
}

bool
ts_live_set_shared_put(const char *name, const void *key, size_t keylen,
					   const ts_manifest_entry *const *entries, int n, bool light,
					   int partitions, int buckets)
{
	size_t		len = ALIGN8(sizeof(live_block)) + ALIGN8(keylen) +
		ALIGN8(sizeof(ts_manifest_entry *) * (size_t) n) +
		ALIGN8(sizeof(ts_manifest_entry)) * (size_t) n;
	ts_shr_pin	pin;
	live_block *b;
	ts_manifest_entry *out;
	char	   *cur;

	if (!ts_shr_attached() || n < 0)
		return false;
	for (int i = 0; i < n; i++)
	{
		ts_manifest_entry m = *entries[i];

		if (light)
			strip_stats(&m);
		len += ts_entry_extra_size(&m);
	}
	if ((b = ts_shr_reserve(name, len, &pin)) == NULL)
		return false;
	cur = (char *) b + ALIGN8(sizeof(live_block));
	memcpy(b->magic, LIVE_BLOCK_MAGIC, 8);
	b->n = n;
	b->partitions = partitions;
	b->buckets = buckets;
	b->keylen = keylen;
	b->key = ts_entry_take(&cur, key, keylen);
	b->ptrs = (const ts_manifest_entry **) cur;
	cur += ALIGN8(sizeof(ts_manifest_entry *) * (size_t) n);
	out = (ts_manifest_entry *) cur;
	cur += ALIGN8(sizeof(ts_manifest_entry)) * (size_t) n;
	for (int i = 0; i < n; i++)
	{
		ts_manifest_entry m = *entries[i];

		if (light)
			strip_stats(&m);
		ts_entry_copy_into(&out[i], &m, &cur);
		b->ptrs[i] = &out[i];
	}
	if ((size_t) (cur - (char *) b) != len)
	{
		/* the sizes above and the copy disagree: never published */
		ts_shr_abandon(pin);
		return false;
	}
	/* published, then let go: this process plans from its own copy */
	ts_shr_publish(pin);
	ts_shr_unpin(pin);
	return true;
}
