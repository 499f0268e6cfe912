/*
 * ts_meta_cache.h - the on-disk cache of immutable object store metadata.
 *
 * Owns: a directory of whole objects (manifest lists, manifests, index
 * manifests, index files and deletion vectors, file indexes) shared by the
 * processes of one server, bounded in bytes with least-recently-used
 * eviction.  Which objects may be cached is decided by name
 * (ts_mcache_wanted): only the files Paimon writes once under a unique
 * (UUID) name; never snapshots, LATEST / EARLIEST hints, schemas (a
 * dropped and re-created table writes schema-0 again) or data files.
 * Which stores use it is theirs to say: the object stores do, through
 * fs_object.c (a local file is read where it is, never cached).
 *
 * An entry is found by the SHA-256 of its key parts: the caller passes who
 * reads (endpoint, region, addressing, access key, secret, token) and the
 * object's URI, so an entry is only ever found again by a request made with
 * the same credentials to the same store, and a role can read through the
 * cache nothing its own credentials could not fetch.  The secret is never
 * written: only the digest names the file.
 *
 * Entries are written to a temporary file and renamed into place, so a
 * reader sees a whole entry or none; each carries its length and the
 * SHA-256 of its bytes, and an entry that does not check (truncated,
 * flipped bits) is removed and reported as a miss: the caller fetches the
 * object again.  Eviction deletes the entries used longest ago (by mtime,
 * refreshed on every hit) until the directory is under its limit.
 */
#ifndef TS_META_CACHE_H
#define TS_META_CACHE_H

#include "base/ts_base.h"
#include "base/ts_value.h"

/*
 * Use dir (created 0700 when missing; relative to the working directory)
 * with at most max_bytes of entries; dir NULL or "" turns the cache off.
 * A directory that is not owned by this process's user or is accessible
 * to others is refused (TS_ERR_DENIED) and the cache is off.
 */
bool		ts_mcache_configure(const char *dir, int64_t max_bytes, ts_err *err);
bool		ts_mcache_enabled(void);

/* Is path an object the cache keeps (an immutable metadata file by name, whatever its store)? */
bool		ts_mcache_wanted(const char *path);

/*
 * The entry of key (nparts strings, NULL allowed; the last is the object's
 * URI): true with a ts_malloc'd NUL-terminated copy on a hit.  False on a
 * miss, when the cache is off, or when the entry did not check (removed).
 */
bool		ts_mcache_get(const char *const *parts, int nparts, uint8_t **data, size_t *len);

/* Store an object's bytes under key (best effort: failures are counted, never reported). */
void		ts_mcache_put(const char *const *parts, int nparts, const uint8_t *data, size_t len);

typedef struct ts_mcache_stats
{
	int64_t		hits;
	int64_t		misses;
	int64_t		stores;
	int64_t		corrupt;		/* entries that did not check, removed */
	int64_t		evicted;		/* entries removed by this process to stay in bounds */
} ts_mcache_stats;

/* Counters of this process since it started. */
ts_mcache_stats ts_mcache_get_stats(void);

/* Bytes in entries of the directory now (a scan; -1 when off). */
int64_t		ts_mcache_disk_bytes(void);

/* The file name of key's entry (64 hex digits + NUL) in out: for tests. */
void		ts_mcache_entry_name(const char *const *parts, int nparts, char out[65]);

/*
 * Records: files of a caller's own format ("<name>.tsm", name being 64 hex
 * digits from ts_mcache_entry_name) in the same directory, counted in the
 * same limit, evicted the same way.  Their checks are the caller's: read
 * gives the whole file (in arena) and refreshes its last use; a record that
 * does not check is removed by the caller.  Write is atomic (temporary file
 * + rename) and best effort (false: not stored; a record of more than half
 * the limit never is).  All are false / no-ops when the cache is off.
 */
bool		ts_mcache_record_read(const char *name, ts_arena *arena, uint8_t **data, size_t *len);
bool		ts_mcache_record_exists(const char *name);
bool		ts_mcache_record_write(const char *name, const uint8_t *data, size_t len);
void		ts_mcache_record_remove(const char *name);

/* Remove entries until at most max_bytes remain (oldest first); done after stores. */
void		ts_mcache_evict(void);

#endif							/* TS_META_CACHE_H */
