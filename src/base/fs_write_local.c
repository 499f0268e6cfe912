/*
 * fs_write_local.c - the write operations of the local store (fs_impl.h).
 *
 * Owns: the temporary-name-then-link streaming writer (written by write(2)
 * as the caller hands chunks: nothing is buffered here), the exclusive
 * create by link(2), atomic replace, delete, directory creation under the
 * fs's scope (each directory created noted for fs_local_dirs.c), and
 * random UUIDs.  A file is created with O_EXCL under a name nobody else
 * uses, inside a directory opened (O_DIRECTORY) and checked against the
 * scope by its resolved path, and renamed / linked relative to that
 * directory descriptor, so a symbolic link swapped in after the check
 * cannot lead the write out of the scope.  An open writer holds one
 * descriptor, its file's: the directory is opened (and checked) again to
 * link the finished file, not kept open while rows are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs_impl.h"

typedef struct local_writer
{
	ts_fs_writer head;
	const char *name;			/* final name in dir (in head.path) */
	char	   *tmp;			/* temporary name in dir */
	int			dirfd;			/* the directory, while created / finished, else -1 */
	int			fd;
} local_writer;

/* A scope check of a write: its denial says "write". */
static bool
allowed(bool ok, const char *path, ts_err *err)
{
	if (!ok && err != NULL && err->code == TS_ERR_DENIED)
		return fs_deny_write(path, err);
	return ok;
}

bool
ts_random_uuid(char out[37], ts_err *err)
{
	uint8_t		b[16];
	size_t		got = 0;

	while (got < sizeof(b))
	{
		ssize_t		n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno != EINTR)
			return ts_error(err, TS_ERR_IO, "could not generate a random UUID: %s", strerror(errno));
		if (n > 0)
			got += (size_t) n;
	}
	b[6] = (uint8_t) ((b[6] & 0x0f) | 0x40);	/* version 4 */
	b[8] = (uint8_t) ((b[8] & 0x3f) | 0x80);	/* IETF variant */
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
			 b[13], b[14], b[15]);
	return true;
}

/*
 * dir was just created: its name in its parent made durable, now (one
 * fsync) or, when fs defers them, with the files' names at ts_fs_sync_dirs.
 */
static bool
sync_new_dir_entry(ts_fs *fs, const char *dir, ts_err *err)
{
	const char *slash = strrchr(dir, '/');
	char	   *parent;
	bool		ok = true;

	if (slash == NULL)
		return true;
	parent = slash == dir ? ts_strdup("/") : ts_strndup(dir, (size_t) (slash - dir));
	if (parent == NULL)
		return ts_error_nomem(err, "a directory to sync");
	if (fs != NULL && fs->defer_dir_syncs)
		ok = fs_defer_dir_sync(fs, parent, err);
	else
	{
		int			fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || fsync(fd) != 0)
			ok = ts_error(err, TS_ERR_IO, "could not fsync directory \"%s\": %s", parent,
						  strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	ts_free(parent);
	return ok;
}

/*
 * Create dir and its missing parents, each checked against the scope first;
 * each one created is made durable in its parent (sync_new_dir_entry).
 */
static bool
make_dirs(ts_fs *fs, const ts_fs_scope *scope, const char *dir, ts_err *err)
{
	struct stat st;
	char	   *parent;
	char	   *slash;
	bool		ok;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? true :
			ts_error(err, TS_ERR_IO, "\"%s\" is not a directory", dir);
	parent = ts_strdup(dir);
	if (parent == NULL)
		return ts_error_nomem(err, "a path");
	slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent)
	{
		*slash = '\0';
		ok = make_dirs(fs, scope, parent, err);
	}
	else
		ok = true;
	/* the resolved parent must be inside the scope before anything is created in it */
	if (ok && slash != NULL && slash != parent)
		ok = allowed(ts_scope_allows_target(scope, parent, err), parent, err);
	ts_free(parent);
	if (!ok)
		return false;
	if (mkdir(dir, 0750) == 0)
	{
		fs_note_created_dir(fs, dir);	/* ours: removed at an abort if left empty */
		return sync_new_dir_entry(fs, dir, err);
	}
	else if (errno != EEXIST)
		return ts_error(err, TS_ERR_IO, "could not create directory \"%s\": %s", dir,
						strerror(errno));
	return true;
}

/*
 * The directory of path opened and checked (created first when create);
 * *name points into path.
 */
static int
open_dir_of(ts_fs *fs, const ts_fs_scope *scope, const char *path, const char **name, bool create,
			ts_err *err)
{
	const char *slash = strrchr(path, '/');
	char	   *dir;
	int			fd;

	if (slash == NULL || slash[1] == '\0' || path[0] != '/')
	{
		ts_error(err, TS_ERR_INVALID, "cannot write \"%s\": not an absolute file path", path);
		return -1;
	}
	if (!allowed(ts_scope_allows_name(scope, path, err), path, err))
		return -1;
	dir = ts_strndup(path, (size_t) (slash - path));
	if (dir == NULL)
	{
		ts_error_nomem(err, "a path");
		return -1;
	}
	if (dir[0] == '\0')
	{
		ts_free(dir);
		dir = ts_strdup("/");
		if (dir == NULL)
		{
			ts_error_nomem(err, "a path");
			return -1;
		}
	}
	if (create && !make_dirs(fs, scope, dir, err))
	{
		ts_free(dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		ts_error(err, TS_ERR_IO, "could not open directory \"%s\": %s", dir, strerror(errno));
	else if (!allowed(ts_scope_allows_fd(scope, fd, dir, err), dir, err))
	{
		close(fd);
		fd = -1;
	}
	ts_free(dir);
	*name = slash + 1;
	return fd;
}

static void
writer_free(local_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	ts_free(w->head.path);
	ts_free(w->tmp);
	ts_free(w);
}

/* A writer of path under a temporary name; keep_dir: its directory stays open. */
static local_writer *
open_writer(ts_fs *fs, const char *path, bool keep_dir, ts_err *err)
{
	local_writer *w = ts_calloc(1, sizeof(local_writer));
	const char *name;
	char		uuid[37];

	if (w == NULL)
	{
		ts_error_nomem(err, "a file writer");
		return NULL;
	}
	w->head.fs = fs;
	w->fd = -1;
	w->dirfd = open_dir_of(fs, fs_scope_of(fs), path, &name, true, err);
	if (w->dirfd < 0)
	{
		writer_free(w);
		return NULL;
	}
	w->head.path = ts_strdup(path);
	if (w->head.path == NULL || !ts_random_uuid(uuid, err) ||
		(w->tmp = ts_psprintf(".%s.%s.tmp", name, uuid)) == NULL)
	{
		if (err->code == TS_OK)
			ts_error_nomem(err, "a file writer");
		writer_free(w);
		return NULL;
	}
	w->name = w->head.path + (name - path);
	w->fd = openat(w->dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (w->fd < 0)
	{
		ts_error(err, TS_ERR_IO, "could not create file \"%s\": %s", path, strerror(errno));
		writer_free(w);
		return NULL;
	}
	if (!keep_dir)
	{
		close(w->dirfd);
		w->dirfd = -1;
	}
	return w;
}

/* w's directory open again (and checked against the scope again), unless open. */
static bool
reopen_dir(local_writer *w, ts_err *err)
{
	const char *name;

	if (w->dirfd >= 0)
		return true;
	w->dirfd = open_dir_of(w->head.fs, fs_scope_of(w->head.fs), w->head.path, &name, false, err);
	return w->dirfd >= 0;
}

int
fs_local_open_parent(ts_fs *fs, const char *path, const char **name, ts_err *err)
{
	return open_dir_of(fs, fs_scope_of(fs), path, name, false, err);
}

ts_fs_writer *
fs_local_writer_open(ts_fs *fs, const char *path, ts_err *err)
{
	local_writer *w = open_writer(fs, path, false, err);

	return w ? &w->head : NULL;
}

bool
fs_local_writer_write(ts_fs_writer *head, const void *data, size_t len, ts_err *err)
{
	local_writer *w = (local_writer *) head;
	const uint8_t *p = data;

	while (len > 0)
	{
		ssize_t		n = write(w->fd, p, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return ts_error(err, TS_ERR_IO, "could not write file \"%s\": %s", head->path,
							strerror(errno));
		}
		p += n;
		len -= (size_t) n;
		head->size += n;
	}
	return true;
}

/* fsync the file and close it; false + err on failure */
static bool
sync_close(local_writer *w, ts_err *err)
{
	int			rc = fsync(w->fd);
	int			e = errno;

	close(w->fd);
	w->fd = -1;
	if (rc != 0)
		return ts_error(err, TS_ERR_IO, "could not fsync file \"%s\": %s", w->head.path, strerror(e));
	return true;
}

void
fs_local_writer_abort(ts_fs_writer *head)
{
	local_writer *w = (local_writer *) head;

	ts_err		ignore = {0};

	if (w->fd >= 0)
	{
		close(w->fd);
		w->fd = -1;
	}
	if (w->tmp != NULL && reopen_dir(w, &ignore))
		unlinkat(w->dirfd, w->tmp, 0);
	writer_free(w);
}

bool
fs_local_writer_finish(ts_fs_writer *head, ts_err *err)
{
	local_writer *w = (local_writer *) head;
	bool		ok = sync_close(w, err);
	ts_err		ignore = {0};

	if (!reopen_dir(w, ok ? err : &ignore))
	{
		writer_free(w);			/* the temporary name stays: its directory is gone or moved */
		return false;
	}
	/* link + unlink: an existing final name is never replaced */
	if (ok && linkat(w->dirfd, w->tmp, w->dirfd, w->name, 0) != 0)
		ok = ts_error(err, errno == EEXIST ? TS_ERR_EXISTS : TS_ERR_IO,
					  "could not create file \"%s\": %s", head->path, strerror(errno));
	unlinkat(w->dirfd, w->tmp, 0);
	if (ok && w->head.fs != NULL && w->head.fs->defer_dir_syncs)
	{
		size_t		len = (size_t) (w->name - head->path - 1);
		char	   *dir = len > 0 ? ts_strndup(head->path, len) : ts_strdup("/");

		ok = dir != NULL ? fs_defer_dir_sync(w->head.fs, dir, err) :
			ts_error_nomem(err, "a directory to sync");
		ts_free(dir);
	}
	else if (ok)
		(void) fsync(w->dirfd);
	writer_free(w);
	return ok;
}

bool
fs_local_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	ts_fs_writer *w = fs_local_writer_open(fs, path, err);

	if (w == NULL)
		return false;
	if (len > 0 && !fs_local_writer_write(w, data, len, err))
	{
		fs_local_writer_abort(w);
		return false;
	}
	return fs_local_writer_finish(w, err);
}

/* Replace path by a new file holding data (on the disk first when sync). */
static bool
put_file(ts_fs *fs, const char *path, const void *data, size_t len, bool sync, ts_err *err)
{
	local_writer *w = open_writer(fs, path, true, err);
	bool		ok;

	if (w == NULL)
		return false;
	if ((len > 0 && !fs_local_writer_write(&w->head, data, len, err)) ||
		(sync && !sync_close(w, err)))
	{
		fs_local_writer_abort(&w->head);
		return false;
	}
	ok = renameat(w->dirfd, w->tmp, w->dirfd, w->name) == 0;
	if (!ok)
		ts_error(err, TS_ERR_IO, "could not rename into \"%s\": %s", path, strerror(errno));
	fs_local_writer_abort(&w->head);	/* unlinks the temporary name if still there */
	return ok;
}

bool
fs_local_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	return put_file(fs, path, data, len, true, err);
}

/* A hint is checked by its readers (LATEST names a snapshot that must exist): no fsync. */
bool
fs_local_put_hint(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	return put_file(fs, path, data, len, false, err);
}

bool
fs_local_remove(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_scope *scope = fs_scope_of(fs);
	const char *name;
	int			dirfd;
	bool		ok = true;

	if (!allowed(ts_scope_allows_name(scope, path, err), path, err))
		return false;
	dirfd = open_dir_of(fs, scope, path, &name, false, err);
	if (dirfd < 0)
	{
		struct stat st;

		/* no directory (checked by name above): no file to remove */
		return err->code == TS_ERR_IO && lstat(path, &st) != 0 && errno == ENOENT;
	}
	if (unlinkat(dirfd, name, 0) != 0 && errno != ENOENT)
		ok = ts_error(err, TS_ERR_IO, "could not remove file \"%s\": %s", path, strerror(errno));
	close(dirfd);
	return ok;
}
