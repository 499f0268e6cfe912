/*
 * fs_impl.h - what a store's implementation of ts_fs provides.
 *
 * For src/base only: the operations table every store fills (fs_local.c,
 * fs_s3.c, fs_azure.c; a new store is one more file and one line in fs.c's table of
 * stores), the fs object and the common head of a file handle.  fs.c does
 * what is the same for every store: the checks of ranges against a file's
 * size, reads of a file held in memory, and the store a path belongs to
 * (the fs's own, or another known store for a file moved there by
 * external-path-map, with the fs's scope and settings).
 * Each store checks a path against the fs's scope (fs_scope_of) before it
 * looks anything up, as its names need (a local store resolves links).
 */
#ifndef TS_FS_IMPL_H
#define TS_FS_IMPL_H

#include "base/ts_azure.h"
#include "base/ts_fs.h"
#include "base/ts_fs_write.h"
#include "base/ts_hash_index.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"

/*
 * The requests an object store gives fs_object.c, which does the rest of
 * reading (open, whole reads, existence, listing, the metadata cache).
 */
typedef struct fs_object_ops
{
	const char *noun;			/* "object", "blob": for messages */
	/* the size; a missing object: *exists false, no error (err may be NULL) */
	bool		(*head) (ts_fs *fs, const char *path, bool *exists, int64_t *size, ts_err *err);
	/* the whole object (ts_malloc'd, NUL-terminated) under the store's cap; 404 = TS_ERR_NOT_FOUND */
	bool		(*get) (ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err);
	/* the entries directly below path, sorted (max_one: one page of one); none = TS_ERR_NOT_FOUND */
	bool		(*list) (ts_fs *fs, const char *path, bool max_one, char ***names, int *count,
						 ts_err *err);
	/*
	 * The key parts of an object in the metadata cache: the store, fs's
	 * credentials and the URI; 0 parts when fs has no settings for it.
	 */
	int			(*cache_key) (const ts_fs *fs, const char *path, const char *parts[8]);
} fs_object_ops;

typedef struct ts_fs_ops
{
	const char *name;			/* "local", "s3", "azure": for messages */
	unsigned	caps;			/* TS_FS_CAP_* */
	const fs_object_ops *object;	/* an object store's requests (fs_object.c), or NULL */

	/*
	 * Does uri belong to this store (its scheme)?  NULL: the fallback for
	 * paths without a scheme (local).
	 */
	bool		(*owns) (const char *uri);

	/*
	 * open, read_whole, is_dir, is_file, list, close: NULL for an object
	 * store (object set: fs_object.c does them).
	 *
	 * Open path with fs_file_new, checking it against fs_scope_of(fs)
	 * first; the store fills size, mtime_ns, remote, and mem when it holds
	 * the bytes.
	 */
	ts_file    *(*open) (ts_fs *fs, const char *path, ts_err *err);
	/* len bytes at offset of a file not held in memory (range checked) */
	bool		(*pread) (ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err);
	/* the descriptor pread reads, for a helper thread (NULL: none) */
	int			(*read_fd) (const ts_file *f);

	/*
	 * Start the reads of several ranges (checked; n > 0) of a file not held
	 * in memory; the handle begins with a ts_file_reads.  NULL members:
	 * fs.c reads them now, one pread each.
	 */
	ts_file_reads *(*pread_many_start) (ts_file *f, ts_range *ranges, int n, ts_err *err);
	bool		(*pread_many_ready) (ts_file_reads *rd);
	bool		(*pread_many_finish) (ts_file_reads *rd, ts_err *err);
	void		(*pread_many_cancel) (ts_file_reads *rd);

	/* a whole file (scope checked here too); max_bytes 0: no cap but the store's own */
	bool		(*read_whole) (ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data,
							   size_t *len, ts_err *err);
	/* existence checks (out of scope: false): as ts_path_is_dir / ts_path_is_file */
	bool		(*is_dir) (ts_fs *fs, const char *path);
	bool		(*is_file) (ts_fs *fs, const char *path);
	/* the entries below path (scope checked), sorted */
	bool		(*list) (ts_fs *fs, const char *path, char ***names, int *count, ts_err *err);
	/* release what open took (not the handle's memory: fs.c frees it) */
	void		(*close) (ts_file *f);

	/*
	 * Writes (ts_fs_write.h; NULL: the store is not written, refused naming
	 * it).  fs.c checks path against fs_scope_of(fs) by name first (a
	 * denial says "write": fs_deny_write); a store checks more where its
	 * names need (local: the resolved directory).  writer_open returns a handle that begins
	 * with a ts_fs_writer; writer_write adds to its size.
	 */
	ts_fs_writer *(*writer_open) (ts_fs *fs, const char *path, ts_err *err);
	bool		(*writer_write) (ts_fs_writer *w, const void *data, size_t len, ts_err *err);
	bool		(*writer_finish) (ts_fs_writer *w, ts_err *err);	/* frees w */
	void		(*writer_abort) (ts_fs_writer *w);	/* frees w */
	bool		(*create_exclusive) (ts_fs *fs, const char *path, const void *data, size_t len,
									 ts_err *err);
	bool		(*put) (ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);
	/* put without waiting for the disk (NULL: put) */
	bool		(*put_hint) (ts_fs *fs, const char *path, const void *data, size_t len,
							 ts_err *err);
	bool		(*remove) (ts_fs *fs, const char *path, ts_err *err);
	/* NULL: TS_FS_CAP_ATOMIC_CREATE decides */
	bool		(*check_atomic_create) (ts_fs *fs, const char *dir, ts_err *err);
} ts_fs_ops;

/* The head of every writer handle; a store's handle extends it. */
struct ts_fs_writer
{
	const ts_fs_ops *ops;		/* set by ts_fs_writer_open */
	ts_fs	   *fs;
	char	   *path;			/* final path */
	int64_t		size;
};

/* A list of directory paths, each once (fs_local_dirs.c). */
typedef struct fs_dir_list
{
	char	  **paths;
	int			n;
	int			cap;
	ts_hash_index index;		/* path -> position */
} fs_dir_list;

struct ts_fs
{
	const ts_fs_ops *ops;		/* the table's store (caps, name) */
	ts_fs_scope scope;			/* owned copy */
	bool		has_s3;
	ts_s3_config s3;			/* owned copy (ts_s3_config_copy) */
	bool		has_azure;
	ts_azure_config azure;		/* owned copy (ts_azure_config_copy) */
	uint64_t	generation;		/* ts_fs_generation */
	void	   *store;			/* a store's own state, or NULL */
	/* ts_fs_defer_dir_syncs: directories whose new names ts_fs_sync_dirs makes durable */
	bool		defer_dir_syncs;
	/* fs_local_dirs.c: paths, not descriptors (a write into 20k partitions holds none) */
	fs_dir_list unsynced_dirs;	/* directories with new names not yet made durable */
	fs_dir_list created_dirs;	/* created by this fs while defer_dir_syncs, in order */
};

/* The head of every file handle; a store's handle may extend it. */
struct ts_file
{
	const ts_fs_ops *ops;
	ts_fs	   *fs;
	char	   *path;
	int64_t		size;
	int64_t		mtime_ns;		/* local files: last modification, else 0 */
	bool		remote;			/* reads send requests (unless held in memory) */
	const uint8_t *mem;			/* the bytes, held in memory, or NULL */
	bool		mem_owned;		/* mem is ts_malloc'd for this handle */
	/* an object's first and last bytes, read together (ts_file_hold_ends) */
	uint8_t    *held[2];		/* ts_malloc'd, or NULL */
	int64_t		held_off[2];
	int64_t		held_len[2];
};

/* The head of a started read of several ranges. */
struct ts_file_reads
{
	ts_file    *f;				/* NULL: read already (a token) */
};

extern const ts_fs_ops ts_fs_local_ops;
extern const ts_fs_ops ts_fs_s3_ops;
extern const ts_fs_ops ts_fs_azure_ops;

/* The local store's writes (fs_write_local.c), in ts_fs_local_ops. */
ts_fs_writer *fs_local_writer_open(ts_fs *fs, const char *path, ts_err *err);
bool		fs_local_writer_write(ts_fs_writer *w, const void *data, size_t len, ts_err *err);
bool		fs_local_writer_finish(ts_fs_writer *w, ts_err *err);
void		fs_local_writer_abort(ts_fs_writer *w);
bool		fs_local_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len,
									  ts_err *err);
bool		fs_local_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);
bool		fs_local_put_hint(ts_fs *fs, const char *path, const void *data, size_t len,
							  ts_err *err);
/* Remember dir (a path) for ts_fs_sync_dirs unless fs already has it (fs_local_dirs.c). */
bool		fs_defer_dir_sync(ts_fs *fs, const char *dir, ts_err *err);
/* fsync the directories remembered, and forget them */
bool		fs_local_sync_dirs(ts_fs *fs, ts_err *err);
/* Remember dir as created by fs (when it defers syncs: a writer's fs); best effort. */
void		fs_note_created_dir(ts_fs *fs, const char *dir);
/* Remove the directories fs created that are empty, newest first; forget them. */
void		fs_local_remove_created_dirs(ts_fs *fs);
/* Forget every directory remembered (fs freed; or its files committed). */
void		fs_local_forget_dirs(ts_fs *fs);
void		fs_local_forget_created_dirs(ts_fs *fs);
bool		fs_local_remove(ts_fs *fs, const char *path, ts_err *err);
/* The directory of path opened and checked against fs's scope (-1 + err); *name in path. */
int			fs_local_open_parent(ts_fs *fs, const char *path, const char **name, ts_err *err);

/*
 * The protocol of an upload in parts (fs_parts.c): the writer buffers one
 * part_size part; a file that stays below it goes by put, else start (the
 * upload's id, ts_malloc'd), part 1, 2, ... as the buffer fills (each may
 * answer a ts_malloc'd tag, kept for complete), then complete; abort drops
 * a started upload (best effort).
 */
typedef struct fs_part_ops
{
	size_t		part_size;
	bool		(*start) (ts_fs *fs, const char *path, char **upload, ts_err *err);
	bool		(*part) (ts_fs *fs, const char *path, const char *upload, int number,
						 const void *data, size_t len, char **tag, ts_err *err);
	bool		(*complete) (ts_fs *fs, const char *path, const char *upload, char **tags,
							 int nparts, ts_err *err);
	void		(*abort) (ts_fs *fs, const char *path, const char *upload, int nparts);
	bool		(*put) (ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);
} fs_part_ops;

/* The writer of an object store (fs_parts.c): writer_write/finish/abort of its ops. */
ts_fs_writer *fs_part_writer_open(ts_fs *fs, const char *path, const fs_part_ops *po,
								  ts_err *err);
bool		fs_part_writer_write(ts_fs_writer *w, const void *data, size_t len, ts_err *err);
bool		fs_part_writer_finish(ts_fs_writer *w, ts_err *err);
void		fs_part_writer_abort(ts_fs_writer *w);

/* The object store's writes (fs_s3_write.c), in ts_fs_s3_ops. */
ts_fs_writer *fs_s3_writer_open(ts_fs *fs, const char *path, ts_err *err);
bool		fs_s3_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len,
								   ts_err *err);
bool		fs_s3_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);
bool		fs_s3_remove(ts_fs *fs, const char *path, ts_err *err);
bool		fs_s3_check_atomic_create(ts_fs *fs, const char *dir, ts_err *err);

/* The Azure store's writes (fs_azure_write.c), in ts_fs_azure_ops. */
ts_fs_writer *fs_azure_writer_open(ts_fs *fs, const char *path, ts_err *err);
bool		fs_azure_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len,
									  ts_err *err);
bool		fs_azure_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);
bool		fs_azure_remove(ts_fs *fs, const char *path, ts_err *err);

/* The scope and object store settings fs reads under. */
const ts_fs_scope *fs_scope_of(const ts_fs *fs);
const ts_s3_config *fs_s3_of(const ts_fs *fs);
const ts_azure_config *fs_azure_of(const ts_fs *fs);

/* The store that reads path through fs (its own, or another known one), or NULL. */
const ts_fs_ops *fs_ops_for(const ts_fs *fs, const char *path);

/*
 * What fs.c calls for a store with object requests (ts_fs_ops.object:
 * its open, read_whole, is_dir, is_file and list are these; close none),
 * the key of path in the metadata cache (0 parts: not an object store, or
 * no settings), and the number of GETs of whole objects sent through them.
 */
ts_file    *fs_object_open(ts_fs *fs, const fs_object_ops *oo, const char *path, ts_err *err);
bool		fs_object_read_whole(ts_fs *fs, const fs_object_ops *oo, const char *path,
								 size_t max_bytes, uint8_t **data, size_t *len, ts_err *err);
bool		fs_object_is_dir(ts_fs *fs, const fs_object_ops *oo, const char *path);
bool		fs_object_is_file(ts_fs *fs, const fs_object_ops *oo, const char *path);
bool		fs_object_list(ts_fs *fs, const fs_object_ops *oo, const char *path, char ***names,
						   int *count, ts_err *err);
int			fs_object_cache_key(const ts_fs *fs, const char *path, const char *parts[8]);
int64_t		fs_object_fetch_count(void);

/* The error of a write of path outside fs's scope (TS_ERR_DENIED, saying "write"). */
bool		fs_deny_write(const char *path, ts_err *err);

/* A handle of size bytes (>= sizeof(ts_file)) for path; NULL + err when out of memory. */
ts_file    *fs_file_new(ts_fs *fs, const char *path, size_t size, ts_err *err);

#endif							/* TS_FS_IMPL_H */
