/*
 * ts_fs_write.h - writing files on a local file system, atomically.
 *
 * Owns: the write primitives of the write layer (src/write): a streaming
 * writer that writes under a temporary name in the target directory
 * (".<name>.<uuid>.tmp", as Java Paimon names its temporary files),
 * fsyncs and renames it to its final name when finished, and unlinks it
 * when aborted; the exclusive create of a small file (the commit point of
 * a Paimon snapshot: written under a temporary name, then link(2)ed to
 * the final name, so that an existing file is never replaced); an atomic
 * replace (hints); delete; and random UUIDs for file names.
 * Every path must be allowed by the current scope (ts_fs.h), checked by
 * name before anything is created and by the resolved directory once it
 * exists.  Local paths only; object stores are refused by the caller.
 */
#ifndef TS_FS_WRITE_H
#define TS_FS_WRITE_H

#include "base/ts_base.h"

typedef struct ts_fs_writer ts_fs_writer;

/* Start writing 'path' (its directories are created as needed). */
ts_fs_writer *ts_fs_writer_open(const char *path, ts_err *err);
bool		ts_fs_writer_write(ts_fs_writer *w, const void *data, size_t len, ts_err *err);
/* bytes written so far */
int64_t		ts_fs_writer_size(const ts_fs_writer *w);
/* fsync, rename to the final name (replacing nothing: EEXIST is an error), free */
bool		ts_fs_writer_finish(ts_fs_writer *w, ts_err *err);
/* remove the temporary file and free (NULL is fine) */
void		ts_fs_writer_abort(ts_fs_writer *w);

/*
 * Create 'path' holding data[0..len) only if it does not exist: false with
 * TS_ERR_EXISTS when it does (nothing changed), another code on failure.
 */
bool		ts_fs_create_exclusive(const char *path, const void *data, size_t len, ts_err *err);

/* Write 'path' whole, replacing it atomically if it exists (hint files). */
bool		ts_fs_write_replace(const char *path, const void *data, size_t len, ts_err *err);

/* Remove a file; a missing one is not an error. */
bool		ts_fs_delete(const char *path, ts_err *err);

/* A random UUID, lower-case text with dashes, into out[37]. */
bool		ts_random_uuid(char out[37], ts_err *err);

#endif							/* TS_FS_WRITE_H */
