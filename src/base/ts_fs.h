/*
 * ts_fs.h - the file system interface of the layers below src/fdw.
 *
 * Owns: opening, reading (positional), sizing, listing and closing files.
 * Local POSIX by default.  Inside a backend src/fdw installs hooks so that
 * file descriptors are PostgreSQL transient files, released at transaction
 * abort even when an ERROR unwinds through a reader.  Every error names the
 * path.  Object stores can come later behind the same interface.
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

/* Open for reading; TS_ERR_NOT_FOUND if it does not exist. */
ts_file    *ts_file_open(const char *path, ts_err *err);
const char *ts_file_path(const ts_file *f);
/* size in bytes (fstat at open time) */
int64_t		ts_file_size(const ts_file *f);
/* read exactly len bytes at offset; short read = TS_ERR_CORRUPT naming the file */
bool		ts_file_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err);
void		ts_file_close(ts_file *f);	/* NULL is fine */

/* Read a whole (small, metadata) file into a ts_malloc'd buffer (NUL-terminated). */
bool		ts_read_whole_file(const char *path, uint8_t **data, size_t *len, ts_err *err);

/* existence checks: false with err unset when missing */
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
