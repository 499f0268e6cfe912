/*
 * cache.c - the live manifest-entry cache (paimon-cpp's WithCache).
 *
 * Owns: a per-process map from (branch root, snapshot id, the snapshot's
 * manifest list names, the level-0 / postpone rules of the scan) to the
 * live manifest entries of that snapshot, each cached set packed into one
 * block from the cache's own allocator, with their split order (the
 * paths are built by each plan for the files it opens, paths.c),
 * LRU-evicted within a byte bound.
 * Scans with an inferred bucket (paimon-cpp TableScan, SEED-SCAN.md
 * "Bucket pruning") cache only
 * their candidates, keyed also by the sorted target buckets, the current
 * bucket count and the current schema id: an entry is a candidate when its
 * bucket is a target, or when its own _TOTAL_BUCKETS or schema id differs
 * from the current ones (those are pruned after lookup with their own
 * bucket count and schema, like every other file).
 *
 * The snapshot is resolved from disk before the lookup (table.c), so a
 * newer commit has a new key; the manifest list names (UUIDs) in the key
 * also tell a re-created table's snapshot N from the old one.  Entries
 * handed out on a hit stay in the cache: the plan pins the item (nothing
 * is copied), and an item evicted or cleared while pinned leaves the map
 * and the byte count at once but is freed only when its last plan lets it
 * go (scan_cache_unpin, from ts_plan_release / ts_plan_free).  A block is
 * filled completely before it is linked, so an error or interrupt never
 * leaves a half-built item reachable.
 * With the metadata cache on, a fill of the whole live set (not a
 * by-bucket one) is also stored as a live-set record (meta/manifest_cache.c:
 * the entries in split order and the counts, named after this key), and a
 * miss in a new process takes that record before reading the manifest
 * lists: no list, manifest record, merge or grouping.
 */
#include <string.h>

#include "meta/entry_copy.h"
#include "meta/manifest_cache.h"
#include "scan/scan_internal.h"

#define CACHE_HASH_SIZE 1024
#define ALIGN8(n) (((n) + 7) & ~(size_t) 7)

typedef struct cache_item
{
	struct cache_item *prev;	/* LRU list: head = most recently used */
	struct cache_item *next;
	struct cache_item *chain;	/* hash chain */
	uint32_t	hash;
	int			pins;			/* plans using the entries */
	bool		linked;			/* in the map (else freed at the last unpin) */
	void		(*free_fn) (void *p);	/* the allocator's, as when allocated */
	size_t		keylen;
	size_t		bytes;			/* whole block */
	int			nentries;
	/* some entries came from light records (no statistics): only for plans that read none */
	bool		light;
	char	   *key;			/* in the block */
	ts_manifest_entry *entries; /* in the block */
	ts_manifest_entry **live;	/* in the block: &entries[i], what a hit hands out */
	/* in the block: the entries in split order (every entry kept) */
	const ts_manifest_entry **ordered;
	/* entries not copied: decoded in this arena, which the item owns */
	ts_arena	owned;			/* when it has chunks, the item's own block is there */
	/* or read in place from a block in shared memory, pinned while the item lives */
	ts_shr_pin	shared;
	/* candidate sets: what a cold plan would count for the other files */
	scan_cache_hit totals;		/* handed out with a hit; excluded points into the block */
} cache_item;

static struct
{
	size_t		limit;
	size_t		used;
	cache_item *head;
	cache_item *tail;
	cache_item *hash[CACHE_HASH_SIZE];
	void	   *(*alloc_fn) (size_t size);
	void		(*free_fn) (void *p);
	ts_scan_cache_stats stats;
} cache;

static void *
cache_alloc(size_t n)
{
	return cache.alloc_fn ? cache.alloc_fn(n) : ts_malloc(n);
}



/* ---- the map ----------------------------------------------------------- */

static uint32_t
key_hash(const char *key, size_t len)
{
	return scan_hash_bytes(2166136261u, key, len);
}

static void
lru_unlink(cache_item *it)
{
	if (it->prev)
		it->prev->next = it->next;
	else
		cache.head = it->next;
	if (it->next)
		it->next->prev = it->prev;
	else
		cache.tail = it->prev;
	it->prev = it->next = NULL;
}

static void
lru_push_front(cache_item *it)
{
	it->prev = NULL;
	it->next = cache.head;
	if (cache.head)
		cache.head->prev = it;
	cache.head = it;
	if (cache.tail == NULL)
		cache.tail = it;
}

static void
item_free(cache_item *it)
{
	ts_arena	owned = it->owned;	/* holds the item itself if it has chunks */

	ts_shr_unpin(it->shared);	/* no-op without one */
	if (owned.head == NULL && it->free_fn)
		it->free_fn(it);
	else if (owned.head == NULL)
		ts_free(it);
	ts_arena_free(&owned);		/* the item too, when it is there */
}

/* Out of the map; freed now, or at its last unpin when plans still use it. */
static void
item_remove(cache_item *it)
{
	cache_item **pp = &cache.hash[it->hash % CACHE_HASH_SIZE];

	while (*pp && *pp != it)
		pp = &(*pp)->chain;
	if (*pp)
		*pp = it->chain;
	lru_unlink(it);
	it->linked = false;
	cache.used -= it->bytes;
	cache.stats.items--;
	cache.stats.entries -= it->nentries;
	if (it->pins == 0)
		item_free(it);
}

void
scan_cache_unpin(void *pin)
{
	cache_item *it = pin;

	if (it == NULL)
		return;
	if (--it->pins == 0 && !it->linked)
		item_free(it);
}

/* Drop least recently used items until 'target' bytes are used. */
static void
evict_to(size_t target, bool count)
{
	while (cache.used > target && cache.tail)
	{
		item_remove(cache.tail);
		if (count)
			cache.stats.evictions++;
	}
}

static cache_item *
item_find(const char *key, size_t keylen)
{
	uint32_t	h = key_hash(key, keylen);
	cache_item *it;

	for (it = cache.hash[h % CACHE_HASH_SIZE]; it; it = it->chain)
		if (it->hash == h && it->keylen == keylen && memcmp(it->key, key, keylen) == 0)
			return it;
	return NULL;
}

/*
 * Insert entries (copied, or, with 'own', left where they are: the item
 * takes over that arena, which the entries were decoded in, and counts
 * its bytes; or, with 'shared', a live set in shared memory whose pin the
 * item takes over: nothing copied or counted but the item) with what a hit
 * hands out besides them (counts, excluded partitions: copied too) and
 * their split order; false, not cached, when too big or out of memory
 * ('own' and 'shared' then stay with their owner).  'groups', when not NULL, are the groups of
 * these entries, already built by the caller; in_order: the entries are
 * in split order already (read from a live-set record): the item keeps no
 * separate split order, and with 'own' the array 'entries' itself (in
 * 'own' too) becomes the item's.
 */
static bool
item_insert(ts_plan *plan, const char *key, size_t keylen,
			const ts_manifest_entry *const *entries, int n,
			const scan_cache_hit *totals, ts_arena *own, const ts_shr_pin *shared,
			const scan_groups *groups, bool in_order, bool light)
{
	/*
	 * a live-set record's entries (in_order, decoded in the arena taken
	 * over, entries pointing into it): their array is adopted as the
	 * item's live set and split order, nothing allocated or copied
	 */
	bool		in_place = own != NULL || shared != NULL;
	bool		adopt = in_order && in_place;
	size_t		bytes = ALIGN8(sizeof(cache_item)) + ALIGN8(keylen) +
		(in_place ? 0 : ALIGN8(sizeof(ts_manifest_entry)) * (size_t) n) +
		(adopt ? 0 : ALIGN8(sizeof(ts_manifest_entry *) * (size_t) n));
	size_t		order_bytes = 0,
				owned_bytes = 0;	/* the arena taken over, not in the block */
	int		   *perm = NULL;
	scan_groups g;
	ts_err		e2 = {0};
	cache_item *it;
	char	   *cur;
	int			i;

	bytes += ALIGN8(sizeof(scan_cache_excluded)) * (size_t) totals->nexcluded;
	for (i = 0; i < totals->nexcluded; i++)
		bytes += ts_entry_bytes_size(totals->excluded[i].partition);

	if (own)
		owned_bytes = ts_arena_bytes(own);
	else if (!shared)
		for (i = 0; i < n; i++)
		{
			bytes += ts_entry_extra_size(entries[i]);
			if (bytes > cache.limit)
				return false;
		}
	if (bytes + owned_bytes > cache.limit)
		return false;
	/* split order: left out when it cannot be had */
	/* scratch in the plan's arena: its pooled blocks are faulted in or huge */
	/* in order already (a live-set record's): the live array is the split order */
	if (n > 0 && !in_order && (perm = ts_arena_alloc(&plan->arena, sizeof(int) * (size_t) n)) != NULL)
	{
		if (groups != NULL || scan_groups_build(entries, n, &plan->arena, &g, &e2))
		{
			if (scan_groups_permutation(groups ? groups : &g, perm, &e2))
				order_bytes = ALIGN8(sizeof(ts_manifest_entry *) * (size_t) n);
			if (groups == NULL)
				scan_groups_free(&g);
		}
	}
	if (bytes + owned_bytes + order_bytes > cache.limit)
		order_bytes = 0;
	bytes += order_bytes;
	if ((it = item_find(key, keylen)) != NULL)
		item_remove(it);		/* same key filled again: replace */
	evict_to(cache.limit - (bytes + owned_bytes), true);
	/* in the arena taken over, if any: its blocks are faulted in or huge */
	it = own ? ts_arena_alloc(own, bytes) : ts_prefault(cache_alloc(bytes), bytes);
	if (it == NULL)
		return false;
	memset(it, 0, sizeof(*it));
	it->shared.slot = -1;
	it->free_fn = cache.free_fn;
	cur = (char *) it + ALIGN8(sizeof(cache_item));
	it->key = ts_entry_take(&cur, key, keylen);
	it->keylen = keylen;
	if (adopt)
		it->live = (ts_manifest_entry **) entries;
	else
	{
		it->live = (ts_manifest_entry **) cur;
		cur += ALIGN8(sizeof(ts_manifest_entry *) * (size_t) n);
	}
	if (own)
	{
		/* take the arena the entries were decoded in: nothing copied */
		if (!adopt)
			for (i = 0; i < n; i++)
				it->live[i] = (ts_manifest_entry *) entries[i];
		it->owned = *own;
		own->head = NULL;
		/* what it holds now, the item's own block included */
		owned_bytes = ts_arena_bytes(&it->owned);
	}
	else if (shared)
	{
		/* read in place: the item holds the pin */
		if (!adopt)
			for (i = 0; i < n; i++)
				it->live[i] = (ts_manifest_entry *) entries[i];
		it->shared = *shared;
	}
	else
	{
		it->entries = (ts_manifest_entry *) cur;
		cur += ALIGN8(sizeof(ts_manifest_entry)) * (size_t) n;
		for (i = 0; i < n; i++)
		{
			ts_entry_copy_into(&it->entries[i], entries[i], &cur);
			it->live[i] = &it->entries[i];
		}
	}
	it->nentries = n;
	it->light = light;
	it->totals = *totals;
	if (totals->nexcluded > 0)
	{
		scan_cache_excluded *ex = (scan_cache_excluded *) cur;

		cur += ALIGN8(sizeof(scan_cache_excluded)) * (size_t) totals->nexcluded;
		for (i = 0; i < totals->nexcluded; i++)
		{
			ex[i] = totals->excluded[i];
			ts_entry_copy_bytes(&ex[i].partition, &cur);
		}
		it->totals.excluded = ex;
	}
	if (in_order)
		it->ordered = (const ts_manifest_entry **) it->live;
	else if (order_bytes > 0)
	{
		it->ordered = (const ts_manifest_entry **) cur;
		cur += order_bytes;
		for (int k = 0; k < n; k++)
			it->ordered[k] = it->live[perm[k]];
	}
	it->bytes = (own ? 0 : bytes) + owned_bytes;	/* what it holds, counted */
	it->hash = key_hash(key, keylen);
	/* link only now that the block is complete */
	it->chain = cache.hash[it->hash % CACHE_HASH_SIZE];
	cache.hash[it->hash % CACHE_HASH_SIZE] = it;
	lru_push_front(it);
	it->linked = true;
	cache.used += it->bytes;
	cache.stats.items++;
	cache.stats.entries += n;
	cache.stats.inserts++;
	return true;
}

/* ---- live-set records (meta/manifest_cache.c) --------------------------- */

/*
 * A live set read from fewer manifests than this is not stored as a
 * record: what the record saves (the lists, a record a manifest, the merge
 * and the grouping) is then about what it costs to write.
 */
#define LIVE_RECORD_MIN_MANIFESTS 2

/* The snapshot's base manifest list, whose name the record's derives from; NULL: none. */
static const char *
live_record_list(ts_plan *plan)
{
	const char *b = plan->snapshot->base_manifest_list;

	if (b == NULL || b[0] == '\0' || strchr(b, '/') != NULL)
		return NULL;
	return ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path, b);
}

/*
 * A cold plan's live set from its record, decoded in the fill's arena (or
 * the plan's, then copied) and cached as a fill from the manifests would
 * be, with its split order and counts: no manifest list or manifest read,
 * no merge, no grouping.  The record's array of entries is the item's
 * live set and split order (item_insert adopts it with the fill's arena):
 * nothing else allocated.  False: no usable record (the caller reads the
 * manifests into the fill's arena, emptied first of what the record left:
 * a rejected record's bytes are not kept by the item).
 */
static bool
live_from_record(ts_plan *plan, scan_state *st, const char *list, const ts_buf *key,
				 bool own_arena, ts_live_set_names *names, const ts_manifest_entry ***live,
				 int *nlive, scan_cache_hit *hit)
{
	ts_arena   *arena = own_arena ? &plan->fill_arena : &plan->arena;
	const ts_manifest_entry **ptrs;
	int			n,
				parts,
				buckets;
	bool		light;
	ts_shr_pin	shared;

	if (!ts_live_set_read(plan->fs, list, plan->snapshot->base_manifest_list_size,
						  key->data, key->len, st->light_ok, arena, &ptrs, &n, &parts,
						  &buckets, &light, names, &shared))
	{
		if (own_arena)
			ts_arena_reset(&plan->fill_arena);	/* keeps its newest block, emptied */
		return false;
	}
	st->entries_light = light;
	hit->partitions_live = parts;
	hit->buckets_live = buckets;
	hit->counted = true;
	*live = ptrs;
	*nlive = n;
	if (!item_insert(plan, (const char *) key->data, key->len, ptrs, n, hit,
					 own_arena && shared.slot < 0 ? &plan->fill_arena : NULL,
					 shared.slot >= 0 ? &shared : NULL, NULL, true, light) &&
		shared.slot >= 0)
	{
		/* the plan would read shared memory nothing pins: read the record instead */
		ts_shr_unpin(shared);
		return false;
	}
	return true;
}

/*
 * After a fill from the manifests: its live set in split order as a
 * record of the kind this plan reads (light for a plan that reads no
 * statistics), as the next new process's plan of its kind will.
 */
static void
live_to_record(ts_plan *plan, const scan_state *st, const char *list, const ts_buf *key,
			   ts_live_set_names *names)
{
	cache_item *it;

	if (list == NULL || plan->metrics.manifests_read < LIVE_RECORD_MIN_MANIFESTS ||
		(it = item_find((const char *) key->data, key->len)) == NULL || it->ordered == NULL ||
		!it->totals.counted)
		return;
	ts_live_set_store(plan->fs, list, plan->snapshot->base_manifest_list_size,
					  key->data, key->len, it->ordered, it->nentries, it->light || st->light_ok,
					  it->totals.partitions_live, it->totals.buckets_live, names);
}

/* ---- public API -------------------------------------------------------- */

void
ts_scan_cache_clear(void)
{
	while (cache.tail)
		item_remove(cache.tail);
}

void
ts_scan_cache_set_limit(size_t bytes)
{
	cache.limit = bytes;
	evict_to(bytes, bytes > 0);
}

void
ts_scan_cache_set_alloc(void *(*alloc_fn) (size_t size), void (*free_fn) (void *p))
{
	ts_scan_cache_clear();
	cache.alloc_fn = alloc_fn;
	cache.free_fn = free_fn;
}

void
ts_scan_cache_get_stats(ts_scan_cache_stats *out)
{
	*out = cache.stats;
	out->bytes_used = cache.used;
	out->bytes_limit = cache.limit;
}

/* ---- lookup / fill for a plan ----------------------------------------- */

bool
scan_cache_count_excluded(ts_plan *plan, scan_state *st, const scan_cache_hit *hit,
						  ts_err *err)
{
	plan->metrics.partitions_total = hit->partitions_total;
	plan->metrics.buckets_total = hit->buckets_total;
	for (int i = 0; i < hit->nexcluded; i++)
	{
		bool		keep;

		plan->metrics.files_total += hit->excluded[i].nfiles;
		if (!scan_partition_filter_match(plan, st, hit->excluded[i].partition, &keep, err))
			return false;
		if (keep && !scan_partition_predicate_keep(plan, st, hit->excluded[i].partition, &keep, err))
			return false;
		if (keep)
			plan->metrics.files_pruned_bucket += hit->excluded[i].nfiles;
		else
			plan->metrics.files_pruned_partition += hit->excluded[i].nfiles;
	}
	return true;
}

static bool
key_add_str(ts_buf *k, const char *s, ts_err *err)
{
	if (s == NULL)
		return ts_buf_append(k, "\x01", 1, err);
	return ts_buf_append(k, s, strlen(s) + 1, err);
}

static bool
make_key(ts_plan *plan, scan_state *st, bool by_bucket, int32_t total,
		 const int32_t *buckets, int nbuckets, ts_buf *k, ts_err *err)
{
	const ts_snapshot *s = plan->snapshot;

	ts_buf_reset(k);
	if (!key_add_str(k, plan->branch_root, err) ||
		!ts_buf_printf(k, err, "%lld/%d/%d/", (long long) s->id, (int) st->skip_level0,
					   (int) (st->table_bucket == -2)) ||
		!key_add_str(k, s->base_manifest_list, err) ||
		!key_add_str(k, s->delta_manifest_list, err))
		return false;
	if (!by_bucket)
		return ts_buf_append(k, "F", 1, err);
	if (!ts_buf_printf(k, err, "B%d/%lld/", total, (long long) plan->schema->id))
		return false;
	for (int i = 0; i < nbuckets; i++)
		if (!ts_buf_printf(k, err, "%d,", buckets[i]))
			return false;
	return true;
}

/*
 * Pin an item for a plan and hand out its entries (and the array pointing
 * to them) and their split order.
 */
static bool
pin_item(ts_plan *plan, cache_item *it,
		 const ts_manifest_entry ***live, int *nlive, scan_cache_hit *hit, ts_err *err)
{
	if (plan->cache_pin != NULL)
		return ts_error(err, TS_ERR_INVALID, "scan plan of \"%s\" already holds cached entries",
						plan->table_path);
	it->pins++;
	plan->cache_pin = it;
	*live = (const ts_manifest_entry **) it->live;
	*nlive = it->nentries;
	*hit = it->totals;
	hit->ordered = it->ordered;
	return true;
}

/* A hit: the plan pins the cached entries. */
static bool
hand_out(ts_plan *plan, cache_item *it,
		 const ts_manifest_entry ***live, int *nlive, scan_cache_hit *hit, ts_err *err)
{
	if (!pin_item(plan, it, live, nlive, hit, err))
		return false;
	lru_unlink(it);
	lru_push_front(it);
	cache.stats.hits++;
	plan->metrics.cache_hit = true;
	return true;
}

/* Light entries (no statistics) serve only plans that read no statistics. */
static bool
usable(const scan_state *st, const cache_item *it)
{
	return !it->light || st->light_ok;
}

static bool
in_sorted(const int32_t *v, int n, int32_t x)
{
	int			lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

bool
scan_read_live_files_cached(ts_plan *plan, scan_state *st,
							const ts_manifest_entry ***live, int *nlive,
							bool *from_cache, scan_cache_hit *hit, ts_err *err)
{
	ts_buf		key;
	ts_buf		bkey;
	bool		by_bucket = false;
	int32_t    *buckets = NULL;
	int			nbuckets = 0;
	int32_t		total = st->table_bucket;
	int64_t		schema_id = plan->schema->id;
	cache_item *it;
	bool		ok = false;
	bool		own_arena = false;
	const char *list = NULL;	/* the live-set record's base manifest list */
	ts_live_set_names names = {0};	/* its records' names, computed once */

	*from_cache = false;
	memset(hit, 0, sizeof(*hit));
	if (cache.limit == 0 || st->ctx->no_cache)
		return scan_read_live_files(plan, st, live, nlive, err);

	ts_buf_init(&key);
	ts_buf_init(&bkey);
	/* inferred bucket: candidates under the current bucket count */
	if (st->bucket_selector != NULL && total > 0)
	{
		const int32_t *set;
		ts_err		e2 = {0};

		if (scan_bucket_current_set(plan, st, total, &set, &nbuckets, &e2))
		{
			buckets = ts_arena_dup(&plan->arena, set, sizeof(int32_t) * (size_t) (nbuckets ? nbuckets : 1));
			if (buckets == NULL)
			{
				ts_error_nomem(err, NULL);
				goto done;
			}
			by_bucket = true;
		}
		else if (e2.code == TS_ERR_NOMEM)
		{
			*err = e2;
			goto done;
		}
		/* otherwise scan_bucket_keep meets the same failure and explains it */
	}
	if (by_bucket)
	{
		if (!make_key(plan, st, true, total, buckets, nbuckets, &bkey, err))
			goto done;
		if ((it = item_find((const char *) bkey.data, bkey.len)) != NULL && usable(st, it))
		{
			ok = hand_out(plan, it, live, nlive, hit, err);
			*from_cache = ok;
			goto done;
		}
	}
	if (!make_key(plan, st, false, 0, NULL, 0, &key, err))
		goto done;
	if ((it = item_find((const char *) key.data, key.len)) != NULL && usable(st, it))
	{
		ok = hand_out(plan, it, live, nlive, hit, err);
		*from_cache = ok;
		goto done;
	}

	/*
	 * miss: read every manifest the key allows, then cache.  A whole live
	 * set is decoded in an arena of its own that the item takes over
	 * (nothing copied), when the plan's memory is pooled: its owner then
	 * releases the plan on every path, and ts_plan_release frees that
	 * arena if the fill did not finish.  An item of light entries that
	 * this plan may not use is replaced by the whole ones read here.
	 */
	cache.stats.misses++;
	st->entries_light = false;
	own_arena = !by_bucket && plan->arena.pooled && plan->fill_arena.head == NULL;
	if (own_arena)
	{
		ts_arena_init(&plan->fill_arena, 256 * 1024);
		ts_arena_set_pooled(&plan->fill_arena, true);
		st->entry_arena = &plan->fill_arena;
	}
	/* a new process's first plan of this snapshot: its live set may be on disk */
	list = by_bucket ? NULL : live_record_list(plan);
	if (list != NULL &&
		live_from_record(plan, st, list, &key, own_arena, &names, live, nlive, hit))
	{
		st->entry_arena = NULL;
		ok = true;
		goto cached;
	}
	st->cache_fill = true;
	ok = scan_read_live_files(plan, st, live, nlive, err);
	st->cache_fill = false;
	st->entry_arena = NULL;
	if (!ok)
		goto done;
	/*
	 * what a hit will hand out besides the entries; this plan uses the counts
	 * too (the groups they come from also give the split order cached below)
	 */
	if (!by_bucket)
	{
		scan_groups g;

		if (!scan_groups_build(*live, *nlive, &plan->arena, &g, err))
		{
			ok = false;
			goto done;
		}
		hit->partitions_live = g.npartitions;
		hit->buckets_live = g.ngroups;
		hit->counted = true;
		item_insert(plan, (const char *) key.data, key.len, *live, *nlive, hit,
					own_arena ? &plan->fill_arena : NULL, NULL, &g, false, st->entries_light);
		scan_groups_free(&g);
		live_to_record(plan, st, list, &key, &names);
	}
	else
	{
		if (!scan_count_groups(*live, *nlive, &plan->arena, &hit->partitions_live, &hit->buckets_live, err))
		{
			ok = false;
			goto done;
		}
		hit->counted = true;
	}
	if (by_bucket)
	{
		size_t		sz = sizeof(const ts_manifest_entry *) * (size_t) (*nlive ? *nlive : 1);
		const ts_manifest_entry **cand = ts_malloc(sz);
		const ts_manifest_entry **other = ts_malloc(sz);
		scan_cache_excluded *ex = ts_malloc(sizeof(*ex) * (size_t) (*nlive ? *nlive : 1));
		scan_groups g = {0};
		int			n = 0,
					nother = 0;

		if (cand != NULL && other != NULL && ex != NULL)
		{
			for (int i = 0; i < *nlive; i++)
			{
				const ts_manifest_entry *e = (*live)[i];

				if (e->total_buckets != total || e->file.schema_id != schema_id ||
					e->bucket < 0 || in_sorted(buckets, nbuckets, e->bucket))
					cand[n++] = e;
				else if (!(st->skip_level0 && e->file.level == 0))
					other[nother++] = e;	/* a cold plan counts it, then prunes it */
			}
			/* totals of the whole live set, and the others by partition */
			if (scan_groups_build(other, nother, &plan->arena, &g, err))
			{
				scan_cache_hit totals = *hit;

				totals.has_totals = true;
				totals.partitions_total = hit->partitions_live;
				totals.buckets_total = hit->buckets_live;
				/* partition ids are numbered by first appearance */
				for (int i = 0; i < nother; i++)
				{
					int			pid = g.group_partition[g.group_of[i]];

					if (pid == totals.nexcluded)
					{
						ex[pid].partition = other[i]->partition;
						ex[pid].nfiles = 0;
						totals.nexcluded++;
					}
					ex[pid].nfiles++;
				}
				totals.excluded = ex;
				item_insert(plan, (const char *) bkey.data, bkey.len, cand, n, &totals,
							NULL, NULL, NULL, false, st->entries_light);
				scan_groups_free(&g);
			}
			else
				ok = false;
		}
		ts_free(cand);
		ts_free(other);
		ts_free(ex);
	}

	/*
	 * Go on with the cached copy, as a hit would (without counting one):
	 * its split order is built already.
	 */
cached:
	if (ok)
	{
		const ts_buf *k = by_bucket ? &bkey : &key;

		/* (not cached: an older item of light entries may still be there) */
		if ((it = item_find((const char *) k->data, k->len)) != NULL && usable(st, it))
		{
			ok = pin_item(plan, it, live, nlive, hit, err);
			*from_cache = ok;
		}
	}

done:
	ts_buf_free(&key);
	ts_buf_free(&bkey);
	return ok;
}
