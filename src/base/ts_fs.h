/*
 * ts_fs.h - the file system interface of the layers below src/fdw.
 *
 * Owns: the file system object (ts_fs) a scan reads through, and opening,
 * reading (positional), sizing, listing and closing files through it.
 *
 * A ts_fs is built once per scan (ts_fs_open_for) from the table's URI, the
 * store settings and credentials, and the scope; it is passed down
 * explicitly (scan context -> plan -> readers) and owns copies of all
 * three: nothing global.  Its operations table (ts_fs_ops, fs_impl.h) is
 * one per store, each in its own file: fs_local.c (POSIX; inside a backend
 * src/fdw installs hooks so that descriptors are PostgreSQL transient
 * files, released at transaction abort), fs_s3.c (s3://, s3a://, oss://:
 * ranged GETs of ts_s3.h), fs_azure.c (abfs://, abfss://, wasb://,
 * wasbs://: Azure Blob Storage and ADLS Gen2 through the Blob API of
 * ts_azure.h); what the object stores share is fs_object.c's (objects
 * prefetched whole (ts_prefetch.h) or kept in the on-disk metadata cache
 * (ts_meta_cache.h) read from memory).  The
 * scheme is looked at once, when the fs is built: other schemes (hdfs://,
 * gs://, ...) are refused by name, and a reader never tests a scheme (a
 * "does this send requests" question is ts_fs_caps or ts_file_is_remote).
 * Every error names the path.
 *
 * A scope confines every open, listing and existence check to a few root
 * directories (fs_scope.c): the FDW gives each scan the roots its role may
 * read, and a path that leaves them (by "..", a symbolic link or an
 * absolute name written in metadata) is TS_ERR_DENIED, never opened.
 */
#ifndef TS_FS_H
#define TS_FS_H

#include <sys/types.h>

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
 * Build a confined scope from root paths (absolute), copied with ts_malloc
 * into *scope; false + TS_ERR_INVALID for a relative root.
 */
bool		ts_fs_scope_make(ts_fs_scope *scope, const char *const *roots, int nroots,
							 ts_err *err);

/* A ts_malloc'd deep copy (false: out of memory, *to allows nothing), and freeing it. */
bool		ts_fs_scope_copy(ts_fs_scope *to, const ts_fs_scope *from);
void		ts_fs_scope_free(ts_fs_scope *scope);

/* Is path (absolute or not) allowed lexically by scope s? */
bool		ts_scope_allows_name(const ts_fs_scope *s, const char *path, ts_err *err);

/* Is the real path of an open descriptor allowed by s? */
bool		ts_scope_allows_fd(const ts_fs_scope *s, int fd, const char *path, ts_err *err);

/* Is the (resolved) target of path allowed by s?  For stat-like checks. */
bool		ts_scope_allows_target(const ts_fs_scope *s, const char *path, ts_err *err);

/*
 * Lexically normalize an absolute path into a ts_malloc'd string: "//",
 * "/./" and "x/.." collapsed, no trailing '/'; NULL for a relative path.
 */
char	   *ts_path_normalize(const char *path);

/* ---- the file system object ------------------------------------------- */

typedef struct ts_fs ts_fs;
struct ts_s3_config;
struct ts_azure_config;

/*
 * Capabilities (ts_fs_caps): what a store does, for callers that choose a
 * strategy (prefetch, write protocol) without knowing the store.
 */
#define TS_FS_CAP_REMOTE			0x01	/* reads are requests to a store */
#define TS_FS_CAP_ATOMIC_CREATE		0x02	/* create-if-absent is atomic */
#define TS_FS_CAP_CONDITIONAL_PUT	0x04	/* a put can be made conditional */
#define TS_FS_CAP_RENAME			0x08	/* rename is atomic */
#define TS_FS_CAP_BATCH_FETCH		0x40	/* whole objects fetched concurrently (s3_batch.c, ts_prefetch.h) */

/*
 * What an fs is built from besides its scope.  Strings are copied.
 * s3: the object store settings and credentials (NULL: none, so every
 * request of an object store fs fails naming the object).  azure: the same
 * for Azure Blob Storage (ts_azure.h).  A new store adds its settings here.
 */
typedef struct ts_fs_settings
{
	const struct ts_s3_config *s3;
	const struct ts_azure_config *azure;
} ts_fs_settings;

/*
 * The fs for uri's store (a path or file: URI: local; s3://, s3a://,
 * oss://: the object store; abfs[s]://, wasb[s]://: Azure), confined to scope (NULL: unconfined).
 * Unknown scheme: NULL + TS_ERR_UNSUPPORTED naming it.  A path of another
 * known store (a data file moved by external-path-map) is read by that
 * store with the same scope and settings; an unknown scheme is refused.
 * Free with ts_fs_free (NULL is fine) after every file opened through it
 * is closed.
 */
ts_fs	   *ts_fs_open_for(const char *uri, const ts_fs_settings *settings,
						   const ts_fs_scope *scope, ts_err *err);
void		ts_fs_free(ts_fs *fs);

/*
 * The capabilities of the store that reads path through fs (0: an unknown
 * scheme): the fs's own, or another store's for a file moved there by
 * external-path-map.  ts_fs_path_is_remote: does a read of path send
 * requests?
 */
unsigned	ts_fs_path_caps(const ts_fs *fs, const char *path);
bool		ts_fs_path_is_remote(const ts_fs *fs, const char *path);

/* TS_FS_CAP_* of fs, and the name of its store ("local", "s3", "azure") for messages. */
unsigned	ts_fs_caps(const ts_fs *fs);
const char *ts_fs_store_name(const ts_fs *fs);

/*
 * Replace the credentials of an object store fs (a renewed data token);
 * the secrets replaced are zeroed.  Files open stay open; their next
 * requests are signed with the new keys.  Nothing to do on a local fs.
 */
bool		ts_fs_set_s3(ts_fs *fs, const struct ts_s3_config *cfg, ts_err *err);

/* The object store settings of fs (NULL: none, or not an object store fs). */
const struct ts_s3_config *ts_fs_s3_config(const ts_fs *fs);

/*
 * Changes whenever fs's credentials do, and differs between fs objects:
 * what was fetched through one is not served through another (prefetch.c).
 */
uint64_t	ts_fs_generation(const ts_fs *fs);

/* Is path allowed lexically by fs's scope?  (err set when not) */
bool		ts_fs_allows_name(const ts_fs *fs, const char *path, ts_err *err);

/*
 * An unconfined local fs (a static object: never freed) with no store
 * settings, for the tools and unit tests, which read local files: a path
 * of an object store goes to that store, whose requests fail naming the
 * object.  A scan never uses it: it reads through its own ts_fs.
 */
ts_fs	   *ts_fs_local_unconfined(void);

/* Read a file of the system (time zone data): never confined. */
bool		ts_read_system_file(const char *path, uint8_t **data, size_t *len, ts_err *err);

/* ---- files -------------------------------------------------------------- */

/* Open for reading; TS_ERR_NOT_FOUND if it does not exist. */
ts_file    *ts_file_open(ts_fs *fs, const char *path, ts_err *err);
const char *ts_file_path(const ts_file *f);
/* Does a read of f send a request (an object not held in memory)? */
bool		ts_file_is_remote(const ts_file *f);
/* size in bytes (at open time) */
int64_t		ts_file_size(const ts_file *f);
/* a local file's modification time in ns since the epoch (fstat at open), else 0 */
int64_t		ts_file_mtime_ns(const ts_file *f);
/* read exactly len bytes at offset; short read = TS_ERR_CORRUPT naming the file */
bool		ts_file_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err);
/*
 * len bytes at offset of descriptor fd, retried when interrupted or short:
 * the bytes read (fewer than len at the end of the file), or -1 with errno.
 * Touches nothing else (a helper thread calls it).
 */
ssize_t		ts_pread_full(int fd, void *buf, size_t len, int64_t offset);
/*
 * The descriptor a local file is read through, for a helper thread that
 * preads ahead (base/background.c): it stays open until ts_file_close.
 * -1 for any other file (an object store's, one held in memory).
 */
int			ts_file_read_fd(const ts_file *f);
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
/*
 * Read an object's first head_len and last tail_len bytes in one round
 * trip and hold them: later reads that lie in either are copies, no
 * request.  When the two cover the object it is read whole and held
 * (ts_file_is_remote is then false: the reader reads from memory).  For a
 * reader of a file read by ranges (Parquet, ORC): its tail (footer) and
 * its first row group / stripe come in with the same wait.  A local file
 * or one held in memory already: nothing to do.  The held bytes stay until
 * ts_file_close.
 */
bool		ts_file_hold_ends(ts_file *f, int64_t head_len, int64_t tail_len, ts_err *err);
void		ts_file_close(ts_file *f);	/* NULL is fine */

/*
 * The on-disk metadata cache (meta_cache.c) under fs's store and
 * credentials (fs_object.c; an object store's paths only): an object's
 * entry (a ts_malloc'd copy; the lookup also finds the metadata object
 * read last, which fs_object.c keeps in memory) and storing one.
 * For objects the cache keeps (ts_mcache_wanted) only; else a miss / no-op.
 */
bool		ts_fs_cache_lookup(ts_fs *fs, const char *path, uint8_t **data, size_t *len);
void		ts_fs_cache_store(ts_fs *fs, const char *path, const uint8_t *data, size_t len);

/*
 * The name (64 hex digits, ts_meta_cache.h) of a record holding a decoding
 * of kind (the caller's format and version) of the immutable file at path,
 * as fs would read it now, and the file's size.  What fs may read decides,
 * as for a read: a local file is opened through fs (its scope checked on
 * the name and on what the name resolves to) and named by its path, size
 * and modification time; an object is checked against the scope by name,
 * takes the size the caller has from metadata it read through fs
 * (listed_size: a manifest list's _FILE_SIZE) and is named, as in the
 * object cache, with the store and fs's credentials, so that only a read
 * with the same keys finds it.  False (nothing to use, nothing reported):
 * out of scope, missing, the sizes disagree, no size, no settings; the
 * caller reads the file the usual way, which reports why.
 */
bool		ts_fs_cache_name(ts_fs *fs, const char *path, const char *kind, int64_t listed_size,
							 char name[65], int64_t *size);

/* Read a whole (small, metadata) file into a ts_malloc'd buffer (NUL-terminated). */
bool		ts_read_whole_file(ts_fs *fs, const char *path, uint8_t **data, size_t *len,
							   ts_err *err);

/*
 * The same, refusing a file of more than max_bytes bytes (TS_ERR_LIMIT
 * naming it and the cap) before its bytes are kept where the size is
 * known first (a local file), at once when it is not.
 */
bool		ts_fs_read_whole(ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data,
							 size_t *len, ts_err *err);

/*
 * existence checks: false with err unset when missing (an object store that
 * does not answer yes or no gives true: the read that follows reports why)
 */
bool		ts_path_is_dir(ts_fs *fs, const char *path);
bool		ts_path_is_file(ts_fs *fs, const char *path);

/*
 * List entry names of a directory (not "." / ".."), sorted by strcmp.
 * *names is a ts_malloc'd array of ts_malloc'd strings; free with
 * ts_free_names.  An object store lists the keys below the prefix
 * path + "/", one level (none at all: TS_ERR_NOT_FOUND).
 */
bool		ts_list_dir(ts_fs *fs, const char *path, char ***names, int *count, ts_err *err);
void		ts_free_names(char **names, int count);

/* Join two path parts with exactly one '/' (ts_malloc'd). */
char	   *ts_path_join(const char *a, const char *b);

#endif							/* TS_FS_H */
