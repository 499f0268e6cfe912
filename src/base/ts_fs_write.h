/*
 * ts_fs_write.h - writing files through a file system object (ts_fs).
 *
 * Owns: the write operations of the write layer (src/write), each sent to
 * the store of the path through the fs the writer was given (its scope
 * and credentials, never the process's): a streaming writer of a data
 * file (local: written in chunks under a temporary name ".<name>.<uuid>.tmp"
 * as Java Paimon names its temporary files, fsynced and linked to its final
 * name when finished; an object store: one put below the part size, an
 * upload in parts above it (S3 multipart, Azure blocks), so memory stays
 * bounded by one part), the exclusive create of a small file (the commit
 * point of a Paimon snapshot: local link(2), S3 and Azure a conditional
 * PUT "If-None-Match: *"), a put that replaces (hints), delete,
 * the check that a store can create atomically, and random UUIDs.
 * Every path must be allowed by the fs's scope (a denial says "write"),
 * checked by name before anything is created and, locally, by the
 * resolved directory once it exists.  A store without write operations
 * refuses them naming itself.
 */
#ifndef TS_FS_WRITE_H
#define TS_FS_WRITE_H

#include "base/ts_fs.h"

typedef struct ts_fs_writer ts_fs_writer;

/* Start writing 'path' through fs (local directories are created as needed). */
ts_fs_writer *ts_fs_writer_open(ts_fs *fs, const char *path, ts_err *err);
bool		ts_fs_writer_write(ts_fs_writer *w, const void *data, size_t len, ts_err *err);
/* bytes written so far */
int64_t		ts_fs_writer_size(const ts_fs_writer *w);
/* make the file appear under its name (replacing nothing locally), free */
bool		ts_fs_writer_finish(ts_fs_writer *w, ts_err *err);
/* drop what was written (temporary file, multipart upload) and free (NULL is fine) */
void		ts_fs_writer_abort(ts_fs_writer *w);

/*
 * Create 'path' holding data[0..len) only if it does not exist: false with
 * TS_ERR_EXISTS when it does (nothing changed), another code on failure.
 * On an object store an answer lost on the way and retried is seen as
 * ours when the object holds exactly data.
 */
bool		ts_fs_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len,
								   ts_err *err);

/* Write 'path' whole, replacing it if it exists (hint files; atomic locally). */
bool		ts_fs_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);

/* The same for a hint readers check (LATEST): not waited on to reach the disk. */
bool		ts_fs_put_hint(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err);

/*
 * Does fs write path's store, and may it write path (the scope, by name)?
 * False + TS_ERR_UNSUPPORTED naming a store without writes, or the
 * denial.  Nothing is written: for checks made before work that writes later.
 */
bool		ts_fs_check_writes(ts_fs *fs, const char *path, ts_err *err);

/*
 * From now on a finished file's name is made durable by ts_fs_sync_dirs
 * (one fsync per directory) instead of at once (local files; other stores
 * have nothing to sync).  A writer calls ts_fs_sync_dirs before it
 * publishes what references the files, and after.
 */
void		ts_fs_defer_dir_syncs(ts_fs *fs);
bool		ts_fs_sync_dirs(ts_fs *fs, ts_err *err);

/*
 * The directories fs created since ts_fs_defer_dir_syncs (local files;
 * object stores have none): an aborted write removes those left empty
 * (ts_fs_remove_created_dirs: never a directory fs did not create, nor one
 * holding any file); a committed one forgets them (ts_fs_forget_created_dirs).
 */
void		ts_fs_remove_created_dirs(ts_fs *fs);
void		ts_fs_forget_created_dirs(ts_fs *fs);

/* Remove a file; a missing one is not an error. */
bool		ts_fs_delete(ts_fs *fs, const char *path, ts_err *err);

/*
 * Can fs create files exclusively under dir (TS_FS_CAP_ATOMIC_CREATE, or a
 * conditional put the store honours: S3 is probed once per process and
 * endpoint and bucket, with an object under dir that is removed after;
 * Azure always honours it)?  False + TS_ERR_UNSUPPORTED saying why otherwise.
 */
bool		ts_fs_check_atomic_create(ts_fs *fs, const char *dir, ts_err *err);

/* A random UUID, lower-case text with dashes, into out[37]. */
bool		ts_random_uuid(char out[37], ts_err *err);

#endif							/* TS_FS_WRITE_H */
