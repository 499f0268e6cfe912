/*
 * ts_prefetch.h - objects fetched whole ahead of their readers, and the
 * ends of objects read by ranges.
 *
 * Owns: sets of whole objects fetched concurrently (ts_s3_fetch_all) before
 * the code that reads them one by one runs (the manifests of a snapshot,
 * the next small data files of a split), and the registry that lets
 * ts_file_open / ts_read_whole_file serve such an object from memory with
 * no request.  A set serves its objects only through the fs it was fetched
 * through, with the credentials it had (ts_fs_generation: never another
 * scan's or role's) and only while it lives (the fs outlives it): its owner frees it once the files
 * opened from it are closed.  Paimon never rewrites a file under the same
 * name, so memory and store agree for as long as a set lives.
 */
#ifndef TS_PREFETCH_H
#define TS_PREFETCH_H

#include "base/ts_base.h"
#include "base/ts_fs.h"

typedef struct ts_prefetch ts_prefetch;

/*
 * Fetch paths[0..n-1] whole and concurrently (keeping going past a
 * failure) and register the set.  A path that is not an object URI, that
 * the scope does not allow, or that failed is left out: its open then goes
 * to the store as usual, and reports why.  NULL (err set) only for a cancel
 * or out of memory.
 */
ts_prefetch *ts_prefetch_objects(ts_fs *fs, const char *const *paths, int n, ts_err *err);

/*
 * The same without waiting: the requests go out now and move on while the
 * caller works (ts_s3_drive); ts_prefetch_find waits for an object of it
 * that is asked for, ts_prefetch_wait for all.  Paths are copied.  NULL
 * (err set) only for out of memory or no storage settings.
 */
ts_prefetch *ts_prefetch_start(ts_fs *fs, const char *const *paths, int n, ts_err *err);

/*
 * The same two with the objects' sizes as the metadata gives them (sizes[i]
 * <= 0: unknown): an answer of another length (a store that ignores the
 * request or sends a short body under a matching Content-Length) is retried
 * like a cut connection, then the object is left out (its own open reports
 * why); a cache entry of another length is not used.
 */
ts_prefetch *ts_prefetch_objects_sized(ts_fs *fs, const char *const *paths, const int64_t *sizes,
									   int n, ts_err *err);
ts_prefetch *ts_prefetch_start_sized(ts_fs *fs, const char *const *paths, const int64_t *sizes,
									 int n, ts_err *err);

/*
 * Parts of objects fetched ahead: bytes [offset, offset + len) of path,
 * an object of object_size bytes (an answer for another size is refused).
 */
typedef struct ts_prefetch_part
{
	const char *path;
	int64_t		object_size;
	int64_t		offset;
	int64_t		len;
} ts_prefetch_part;

/*
 * Started, not waited for: parts[0..n) (a path the scope does not allow,
 * of a store without batches, whole in a set already, or a part outside
 * its object is left out), for the reads of those bytes to find
 * (ts_prefetch_find_range; fs.c asks it before sending a request).  Parts
 * are never served as whole objects.  NULL (err set) only for out of
 * memory or no storage settings.
 */
ts_prefetch *ts_prefetch_start_parts(ts_fs *fs, const ts_prefetch_part *parts, int n, ts_err *err);

/*
 * The same for the first head_len and the last tail_len bytes of each
 * object paths[i] of known size sizes[i] (larger than both), for
 * ts_file_hold_ends to find when the object is opened: the next files of
 * a scan that are read by ranges.
 */
ts_prefetch *ts_prefetch_start_ends(ts_fs *fs, const char *const *paths, const int64_t *sizes,
									int n, int64_t head_len, int64_t tail_len, ts_err *err);

/*
 * Bytes [offset, offset + len) of path from a part a registered set of fs
 * fetched (waiting for it when it is on its way): *data points into the
 * set.  False when no part holds them all, or its request failed (the
 * caller then reads them itself and reports why).
 */
bool		ts_prefetch_find_range(ts_fs *fs, const char *path, int64_t offset, size_t len,
								   const uint8_t **data);
/*
 * The same without waiting: only from parts in, or from sets whose
 * requests are all done.
 */
bool		ts_prefetch_held_range(ts_fs *fs, const char *path, int64_t offset, size_t len,
								   const uint8_t **data);
/*
 * Is [offset, offset + len) of path in a part of a registered set of fs,
 * in or on its way (never waits)?
 */
bool		ts_prefetch_covers(ts_fs *fs, const char *path, int64_t offset, size_t len);

/* Are a started set's requests finished (moving them on first)?  Never waits. */
bool		ts_prefetch_ready(ts_prefetch *p);

/*
 * Wait for a started set's requests and register what they fetched (a
 * failed object is left out, as in ts_prefetch_objects).  False (err set)
 * only for a cancel or out of memory; the caller still frees the set.
 * Nothing to do for a set fetched already.
 */
bool		ts_prefetch_wait(ts_prefetch *p, ts_err *err);

/* An empty registered set of fs, and adding an object to it (data taken over). */
ts_prefetch *ts_prefetch_new(ts_fs *fs);
bool		ts_prefetch_add(ts_prefetch *p, const char *path, uint8_t *data, size_t len);

/* Objects in the set, and their bytes. */
int			ts_prefetch_count(const ts_prefetch *p);
int64_t		ts_prefetch_bytes(const ts_prefetch *p);

/*
 * Unregister and free the set (NULL is fine; a started one's requests are
 * stopped); files opened from it must be closed.
 */
void		ts_prefetch_free(ts_prefetch *p);

/*
 * After a transaction abort (the sets' memory went with its context):
 * drop every registration without touching the sets, and take the
 * transfers of sets started ahead out of the multi handle
 * (ts_s3_batch_forget_all).
 */
void		ts_prefetch_forget_all(void);

/*
 * Subtransactions.  hook gives the current nesting level (PostgreSQL's
 * GetCurrentTransactionNestLevel; none: 0), recorded when a set is made.
 * After the abort of the subtransaction at level: drop the registrations
 * made at that level or deeper without touching their sets (their memory
 * may be gone), keep the others (the sets of a cursor still open), and take
 * every transfer out of the multi handle (a kept set's objects still on
 * their way are then not served: their reads send their own requests).
 * After its commit: its sets are its parent's.
 */
void		ts_prefetch_set_nest_level_hook(int (*hook) (void));
void		ts_prefetch_forget_level(int level);
void		ts_prefetch_commit_level(int level);

/* Sets registered now (tests and leak checks). */
int			ts_prefetch_registered(void);

/*
 * The bytes of path (compared as a string) in a registered set fetched
 * through fs, with its current credentials (fs_s3.c).  An object of a started set
 * still on its way is waited for, alone (the set's other requests move on
 * meanwhile); one that failed, or a cancel while waiting, is not found, and
 * the caller's own request reports why.
 */
bool		ts_prefetch_find(ts_fs *fs, const char *path, const uint8_t **data, size_t *len);

/*
 * Sizes of objects a reader will open, as the metadata gives them (a data
 * file's manifest entry, a deletion-vector index file's): registered in a
 * set (ts_prefetch_new) for as long as it lives, they let an object store
 * open those objects with no HEAD (and so no HEAD that could lie about a
 * size); a read then checks each answer against that size.  Sizes <= 0
 * are not kept.  ts_prefetch_size: the size registered for path in a set
 * of fs, if any.
 */
bool		ts_prefetch_add_size(ts_prefetch *p, const char *path, int64_t size);
bool		ts_prefetch_size(ts_fs *fs, const char *path, int64_t *size);

#endif							/* TS_PREFETCH_H */
