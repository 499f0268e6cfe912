/*
 * ts_fs.h - the file system interface of the layers below src/fdw.
 *
 * Owns: opening, reading (positional), sizing, listing and closing files.
 * Local POSIX by default.  Inside a backend src/fdw installs hooks so that
 * file descriptors are PostgreSQL transient files, released at transaction
 * abort even when an ERROR unwinds through a reader.  Every error names the
 * path.  Object stores sit behind the same interface: an object URI
 * (s3://, s3a://, oss://) is read by ranged GETs of the object store client
 * (ts_s3.h), objects prefetched whole (ts_prefetch.h) or kept in the
 * on-disk metadata cache (ts_meta_cache.h) are read from memory, and
 * other schemes (hdfs://, gs://, ...) are refused by name.
 *
 * A scope confines every open, listing and existence check to a few root
 * directories (fs_scope.c): the FDW gives each scan the roots its role may
 * read, and a path that leaves them (by "..", a symbolic link or an
 * absolute name written in metadata) is TS_ERR_DENIED, never opened.
 */
#ifndef TS_FS_H
#define TS_FS_H

#include "base/ts_base.h"

typedef struct ts_file ts_file;

typedef struct ts_fs_hooks
{
	int			(*open_fd) (const char *path);	/* -1 + errno on failure */
	void		(*close_fd) (int fd);
} ts_fs_hooks;

void		ts_fs_set_hooks(const ts_fs_hooks *hooks);

/*
 * Where files may be read.  An unconfined scope (confined = false) allows
 * every path: the default, and what privileged roles get.  A confined one
 * allows the paths under its roots, each given as configured (lexical,
 * e.g. a warehouse reached through a symbolic link) and as resolved by
 * realpath: a path must be lexically under some root before anything is
 * looked up (so a name outside reveals nothing, not even whether it
 * exists), and what it resolves to once opened must be under a resolved
 * root (so a symbolic link cannot lead out).  No roots: nothing is allowed.
 */
typedef struct ts_fs_scope
{
	bool		confined;
	int			nroots;
	const char *const *lexical; /* normalized absolute paths */
	const char *const *resolved;	/* realpath of each (NULL when missing) */
} ts_fs_scope;

extern const ts_fs_scope ts_fs_unconfined;

/*
 * The scope every later open/list/check uses (copied: scope need not
 * outlive the call); NULL = unconfined.
 */
void		ts_fs_set_scope(const ts_fs_scope *scope);
const ts_fs_scope *ts_fs_get_scope(void);
/* While on, every path is allowed: ts_read_system_file only. */
void		ts_fs_bypass_scope(bool on);

/*
 * Build a confined scope from root paths (absolute), copied with ts_malloc
 * into *scope; false + TS_ERR_INVALID for a relative root.
 */
bool		ts_fs_scope_make(ts_fs_scope *scope, const char *const *roots, int nroots,
							 ts_err *err);

/* Is path (absolute or not) allowed lexically by the current scope? */
bool		ts_fs_scope_allows_name(const char *path, ts_err *err);

/* Is the real path of an open descriptor allowed by the current scope? */
bool		ts_fs_scope_allows_fd(int fd, const char *path, ts_err *err);

/* Is the (resolved) target of path allowed?  For stat-like checks. */
bool		ts_fs_scope_allows_target(const char *path, ts_err *err);

/*
 * Lexically normalize an absolute path into a ts_malloc'd string: "//",
 * "/./" and "x/.." collapsed, no trailing '/'; NULL for a relative path.
 */
char	   *ts_path_normalize(const char *path);

/* Read a file of the system (time zone data): never confined. */
bool		ts_read_system_file(const char *path, uint8_t **data, size_t *len, ts_err *err);

/* Open for reading; TS_ERR_NOT_FOUND if it does not exist. */
ts_file    *ts_file_open(const char *path, ts_err *err);
const char *ts_file_path(const ts_file *f);
/* Does a read of f send a request (an object not held in memory)? */
bool		ts_file_is_remote(const ts_file *f);
/* size in bytes (fstat at open time) */
int64_t		ts_file_size(const ts_file *f);
/* a local file's modification time in ns since the epoch (fstat at open), else 0 */
int64_t		ts_file_mtime_ns(const ts_file *f);
/* read exactly len bytes at offset; short read = TS_ERR_CORRUPT naming the file */
bool		ts_file_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err);
/*
 * Read several ranges (ranges[i].len bytes at ranges[i].offset into
 * ranges[i].buf), all or none: on an object store they are coalesced
 * (gaps up to TS_RANGE_GAP) and sent concurrently; locally one pread each.
 */
struct ts_range;
bool		ts_file_pread_many(ts_file *f, struct ts_range *ranges, int n, ts_err *err);

/*
 * The same without waiting, for a reader that reads ahead (the next row
 * group): on an object store the coalesced ranged GETs are started (a
 * batch of s3_batch.c, moved on by ts_s3_drive while the caller decodes)
 * and the handle returned; a local file or an object held in memory is
 * read now (pread) and the handle is only a token.  The buffers (not the
 * ranges array, copied) must live until the handle is finished or
 * canceled; so must f.  NULL + err when the reads cannot start.
 * _ready: are they in (never waits)?  _finish: wait for them, check them
 * (each answer's length, short ones retried: s3.c) and free the handle;
 * false + err when a read failed, the buffers' contents then undefined.
 * _cancel: stop the transfers and free the handle (NULL is fine).  After
 * an abort, ts_s3_batch_forget_all has taken the transfers back and the
 * handle's memory went with its context.
 */
typedef struct ts_file_reads ts_file_reads;
ts_file_reads *ts_file_pread_many_start(ts_file *f, struct ts_range *ranges, int n, ts_err *err);
bool		ts_file_pread_many_ready(ts_file_reads *rd);
bool		ts_file_pread_many_finish(ts_file_reads *rd, ts_err *err);
void		ts_file_pread_many_cancel(ts_file_reads *rd);
void		ts_file_close(ts_file *f);	/* NULL is fine */

/*
 * The on-disk metadata cache (meta_cache.c) under this scan's store and
 * credentials: an object's entry (a ts_malloc'd copy) and storing one.
 * For objects the cache keeps (ts_mcache_wanted) only; else a miss / no-op.
 */
bool		ts_fs_cache_lookup(const char *path, uint8_t **data, size_t *len);
void		ts_fs_cache_store(const char *path, const uint8_t *data, size_t len);

/* Read a whole (small, metadata) file into a ts_malloc'd buffer (NUL-terminated). */
bool		ts_read_whole_file(const char *path, uint8_t **data, size_t *len, ts_err *err);

/*
 * existence checks: false with err unset when missing (an object store that
 * does not answer yes or no gives true: the read that follows reports why)
 */
bool		ts_path_is_dir(const char *path);
bool		ts_path_is_file(const char *path);

/*
 * List entry names of a directory (not "." / ".."), sorted by strcmp.
 * *names is a ts_malloc'd array of ts_malloc'd strings; free with
 * ts_free_names.
 */
bool		ts_list_dir(const char *path, char ***names, int *count, ts_err *err);
void		ts_free_names(char **names, int count);

/* Join two path parts with exactly one '/' (ts_malloc'd). */
char	   *ts_path_join(const char *a, const char *b);

#endif							/* TS_FS_H */
