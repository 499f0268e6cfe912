/*
 * manifest_cache.h - decoded manifest entries shared by the backends of a
 * server through the on-disk metadata cache (see manifest_cache.c).
 */
#ifndef TS_MANIFEST_CACHE_H
#define TS_MANIFEST_CACHE_H

#include "base/ts_shared_region.h"
#include "meta/manifest.h"

/* The record format's version: a record of another is rebuilt, never read. */
#define TS_MANIFEST_CACHE_VERSION 2

/*
 * The entries of the manifest at path, as ts_manifest_read_kept gives them
 * (listed_size: the manifest list's _FILE_SIZE, 0 if unknown): from its
 * record in the cache directory when one checks, else decoded from the file
 * and then stored as records (a full one and a light one).  With the cache
 * off, the same as ts_manifest_read_kept.  Entries live in arena.
 * light_ok: the caller uses no statistics of the entries (key_stats,
 * value_stats, value_stats_cols): they may come from the manifest's light
 * record, which holds every other field and leaves those null (as a
 * manifest without statistics); *light (may be NULL) then says they did.
 * Without light_ok the entries are always whole.
 */
bool		ts_manifest_read_cached(ts_fs *fs, const char *path, int64_t listed_size,
									int64_t expected, ts_manifest_keep *keep, bool light_ok,
									ts_arena *arena, ts_manifest_entry **entries, int *count,
									bool *light, ts_err *err);

/* Use records (default) or not, even with the metadata cache on. */
void		ts_manifest_cache_set_enabled(bool on);

/* Is there a record of the manifest at path (not checked yet)?  light_ok: a light one will do. */
bool		ts_manifest_cache_has(ts_fs *fs, const char *path, int64_t listed_size, bool light_ok);

typedef struct ts_manifest_cache_stats
{
	int64_t		hits;			/* manifests whose entries came from a record */
	int64_t		light_hits;		/* of those, from a light record (no statistics) */
	int64_t		misses;			/* manifests decoded from the file (cache on) */
	int64_t		stores;			/* manifests decoded and stored (full record written) */
	int64_t		light_stores;	/* light records written */
	int64_t		rejected;		/* records that did not check: removed, rebuilt */
	int64_t		live_hits;		/* live sets taken from a live-set record */
	int64_t		live_stores;	/* live-set records written */
	int64_t		live_names;		/* live-set record names computed (a digest each) */
	int64_t		live_shared_hits;	/* live sets found in shared memory */
	int64_t		live_shared_stores; /* live sets published in shared memory */
} ts_manifest_cache_stats;

/* Counters of this process since it started. */
ts_manifest_cache_stats ts_manifest_cache_get_stats(void);

/*
 * The record format, for tests: encode n entries of a file of source_size
 * bytes under name (ts_malloc'd record); decode a record (8-aligned, in
 * place: entries point into it), false when it does not check against
 * name, source_size, its version and its checksum, or is malformed.
 */
bool		ts_manifest_cache_encode(const ts_manifest_entry *entries, int n, const char *name,
									 int64_t source_size, uint8_t **record, size_t *len);
bool		ts_manifest_cache_decode(uint8_t *record, size_t len, const char *name,
									 int64_t source_size, ts_arena *arena,
									 ts_manifest_entry **entries, int *count);
/* The same for a light record (no statistics); each refuses the other's kind. */
bool		ts_manifest_cache_encode_light(const ts_manifest_entry *entries, int n, const char *name,
										   int64_t source_size, uint8_t **record, size_t *len);
bool		ts_manifest_cache_decode_light(uint8_t *record, size_t len, const char *name,
										   int64_t source_size, ts_arena *arena,
										   ts_manifest_entry **entries, int *count);

/*
 * A snapshot's live set, as the entry cache (src/scan/cache.c) fills it:
 * its entries in split order with the counts a hit hands out, stored as
 * one record named after the cache's key and the snapshot's base manifest
 * list (list_path, listed_size as for a manifest), whose header holds the
 * whole key (checked on read).  A new process's cold plan then reads one
 * record instead of the manifest lists and a record per manifest, and
 * neither merges nor groups.  Read: entries is an array of pointers to
 * the entries in the record's order, both in arena; on false the arena
 * may hold a rejected record's bytes (its owner may discard them).
 * light: the entries have no statistics (a light record); read: a light
 * one only when light_ok (then tried first),
 * else the full one; a record that does not check is removed and counted
 * in rejected, never used.  Store: as the light kind when light (the
 * entries then lose their statistics if they had them), else the whole
 * kind.  Both are no-ops (false) with the cache or records off.
 *
 * names: the records' names, computed on first success (a digest and, for
 * a local list, its stat) and kept there by the caller for the calls of one
 * plan with the same list, size and key (a cold miss reads the light kind,
 * then the whole one, then stores one of them); zeroed before the first
 * call; NULL: computed each time.
 */
typedef struct ts_live_set_names
{
	bool		ok[2];			/* name[k] computed; [1]: the light kind */
	char		name[2][65];
	int64_t		size[2];
} ts_live_set_names;

bool		ts_live_set_read(ts_fs *fs, const char *list_path, int64_t listed_size,
							 const void *key, size_t keylen, bool light_ok, ts_arena *arena,
							 const ts_manifest_entry ***entries, int *count, int *partitions,
							 int *buckets, bool *light, ts_live_set_names *names,
							 ts_shr_pin *shared);
void		ts_live_set_store(ts_fs *fs, const char *list_path, int64_t listed_size,
							  const void *key, size_t keylen,
							  const ts_manifest_entry *const *entries, int n, bool light,
							  int partitions, int buckets, ts_live_set_names *names);
/*
 * Shared memory (live_set_shared.c, with base/shared_region.c attached):
 * ts_live_set_read looks there first when shared is not NULL, under the
 * record's name; a hit sets *shared (slot >= 0) and *entries points into
 * the block, pinned until the caller's ts_shr_unpin, arena untouched.  A
 * record read from disk, and every set ts_live_set_store is given, are
 * published there too.  Works with the on-disk cache off.
 */
bool		ts_live_set_shared_get(const char *name, const void *key, size_t keylen,
								   const ts_manifest_entry ***entries, int *count,
								   int *partitions, int *buckets, ts_shr_pin *pin);
bool		ts_live_set_shared_put(const char *name, const void *key, size_t keylen,
								   const ts_manifest_entry *const *entries, int n, bool light,
								   int partitions, int buckets);
/* Live-set records used (default) or not, for tests of the per-manifest records. */
void		ts_live_set_set_enabled(bool on);
/* The record format, for tests (as ts_manifest_cache_encode / _decode). */
bool		ts_live_set_encode(const ts_manifest_entry *const *entries, int n, bool light,
							   const char *name, int64_t source_size, const void *key,
							   size_t keylen, int partitions, int buckets, uint8_t **record,
							   size_t *len);
bool		ts_live_set_decode(uint8_t *record, size_t len, bool light, const char *name,
							   int64_t source_size, const void *key, size_t keylen,
							   ts_arena *arena, ts_manifest_entry **entries, int *count,
							   int *partitions, int *buckets);

#endif							/* TS_MANIFEST_CACHE_H */
