/*
 * fs_local.c - the local store of ts_fs: POSIX files and directories.
 *
 * Owns: opening (through the descriptor hooks, so that inside a backend a
 * descriptor is a PostgreSQL transient file released at abort), positional
 * reads, whole reads with a cap, existence checks and sorted listings of
 * local paths ("file:" URIs name local paths), each checked against the
 * fs's scope: a name before it is looked up, an open descriptor's real path
 * after, and a listed symbolic link's target.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs_impl.h"

typedef struct local_file
{
	ts_file		head;
	int			fd;
} local_file;

static int
default_open_fd(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void
default_close_fd(int fd)
{
	close(fd);
}

static ts_fs_hooks fs_hooks = {default_open_fd, default_close_fd};

void
ts_fs_set_hooks(const ts_fs_hooks *hooks)
{
	if (hooks)
		fs_hooks = *hooks;
	else
	{
		fs_hooks.open_fd = default_open_fd;
		fs_hooks.close_fd = default_close_fd;
	}
}

/* "file:/x", "file:///x" -> "/x"; anything else unchanged. */
static const char *
local_path(const char *p)
{
	if (strncasecmp(p, "file:", 5) == 0)
	{
		p += 5;
		if (strncmp(p, "///", 3) == 0)
			p += 2;
	}
	return p;
}

static ts_file *
local_open(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_scope *scope = fs_scope_of(fs);
	local_file *f;
	struct stat st;
	int			fd;

	path = local_path(path);
	if (!ts_scope_allows_name(scope, path, err))
		return NULL;
	fd = fs_hooks.open_fd(path);
	if (fd < 0)
	{
		int			e = errno;

		ts_error(err, e == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO,
				 "could not open file \"%s\": %s", path, strerror(e));
		return NULL;
	}
	if (fstat(fd, &st) != 0)
	{
		int			e = errno;

		fs_hooks.close_fd(fd);
		ts_error(err, TS_ERR_IO, "could not stat file \"%s\": %s", path, strerror(e));
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
	{
		fs_hooks.close_fd(fd);
		ts_error(err, TS_ERR_IO, "\"%s\" is a directory, not a file", path);
		return NULL;
	}
	if (!ts_scope_allows_fd(scope, fd, path, err))
	{
		fs_hooks.close_fd(fd);
		return NULL;
	}
	f = (local_file *) fs_file_new(fs, path, sizeof(local_file), err);
	if (f == NULL)
	{
		fs_hooks.close_fd(fd);
		return NULL;
	}
	f->fd = fd;
	f->head.size = (int64_t) st.st_size;
	f->head.mtime_ns = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return &f->head;
}

ssize_t
ts_pread_full(int fd, void *buf, size_t len, int64_t offset)
{
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = pread(fd, (char *) buf + done, len - done, (off_t) (offset + (int64_t) done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t) n;
	}
	return (ssize_t) done;
}

static bool
local_pread(ts_file *file, void *buf, size_t len, int64_t offset, ts_err *err)
{
	ssize_t		n = ts_pread_full(((local_file *) file)->fd, buf, len, offset);

	if (n < 0)
		return ts_error(err, TS_ERR_IO, "could not read file \"%s\": %s", file->path,
						strerror(errno));
	if ((size_t) n < len)
		return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": unexpected end of file at offset %lld",
						file->path, (long long) (offset + n));
	return true;
}

static int
local_read_fd(const ts_file *file)
{
	return ((const local_file *) file)->fd;
}

static void
local_close(ts_file *file)
{
	fs_hooks.close_fd(((local_file *) file)->fd);
}

static bool
local_read_whole(ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data, size_t *len,
				 ts_err *err)
{
	ts_file    *f = ts_file_open(fs, path, err);
	uint8_t    *buf;

	if (f == NULL)
		return false;
	if (max_bytes > 0 && f->size > (int64_t) max_bytes)
	{
		ts_error(err, TS_ERR_LIMIT, "file \"%s\" is too large to read whole (%lld bytes, at most %zu)",
				 f->path, (long long) f->size, max_bytes);
		ts_file_close(f);
		return false;
	}
	buf = ts_malloc((size_t) f->size + 1);
	if (buf == NULL)
	{
		ts_error(err, TS_ERR_NOMEM, "file \"%s\" is too large to read (%lld bytes)",
				 f->path, (long long) f->size);
		ts_file_close(f);
		return false;
	}
	if (!ts_file_pread(f, buf, (size_t) f->size, 0, err))
	{
		ts_free(buf);
		ts_file_close(f);
		return false;
	}
	buf[f->size] = '\0';
	*data = buf;
	*len = (size_t) f->size;
	ts_file_close(f);
	return true;
}

/* A path outside the scope is as good as missing: nothing is revealed. */
static bool
local_is_dir(ts_fs *fs, const char *path)
{
	struct stat st;

	path = local_path(path);
	return ts_scope_allows_target(fs_scope_of(fs), path, NULL) && stat(path, &st) == 0 &&
		S_ISDIR(st.st_mode);
}

static bool
local_is_file(ts_fs *fs, const char *path)
{
	struct stat st;

	path = local_path(path);
	return ts_scope_allows_target(fs_scope_of(fs), path, NULL) && stat(path, &st) == 0 &&
		S_ISREG(st.st_mode);
}

/*
 * In a confined scope, a listed entry that is a symbolic link must lead
 * inside the scope: otherwise the listing is an error, so that what it
 * points at is neither read nor silently left out.
 */
static bool
check_listed_link(const ts_fs_scope *scope, const char *dir, const struct dirent *de,
				  ts_err *err)
{
	char	   *sub;
	struct stat st;
	bool		ok = true;

	if (!scope->confined || (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN))
		return true;
	sub = ts_path_join(dir, de->d_name);
	if (sub == NULL)
		return ts_error_nomemf(err, "listing \"%s\"", dir);
	if (lstat(sub, &st) == 0 && S_ISLNK(st.st_mode))
		ok = ts_scope_allows_target(scope, sub, err);
	ts_free(sub);
	return ok;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool
local_list(ts_fs *fs, const char *path, char ***names, int *count, ts_err *err)
{
	const ts_fs_scope *scope = fs_scope_of(fs);
	DIR		   *d;
	struct dirent *de;
	char	  **arr = NULL;
	int			n = 0,
				cap = 0,
				fd;

	path = local_path(path);
	if (!ts_scope_allows_name(scope, path, err))
		return false;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ts_error(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO,
						"could not open directory \"%s\": %s", path, strerror(errno));
	if (!ts_scope_allows_fd(scope, fd, path, err))
	{
		close(fd);
		return false;
	}
	d = fdopendir(fd);
	if (d == NULL)
	{
		close(fd);
		return ts_error(err, TS_ERR_IO, "could not open directory \"%s\": %s",
						path, strerror(errno));
	}
	while ((de = readdir(d)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!check_listed_link(scope, path, de, err))
		{
			closedir(d);
			ts_free_names(arr, n);
			return false;
		}
		if (n == cap)
		{
			char	  **na;

			cap = cap ? cap * 2 : 16;
			na = ts_realloc(arr, sizeof(char *) * cap);
			if (na == NULL)
				goto oom;
			arr = na;
		}
		if ((arr[n] = ts_strdup(de->d_name)) == NULL)
			goto oom;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(arr, n, sizeof(char *), cmp_names);
	*names = arr;
	*count = n;
	return true;
oom:
	closedir(d);
	ts_free_names(arr, n);
	return ts_error_nomemf(err, "listing \"%s\"", path);
}

const ts_fs_ops ts_fs_local_ops = {
	.name = "local",
	.caps = TS_FS_CAP_ATOMIC_CREATE | TS_FS_CAP_RENAME,
	.owns = NULL,
	.open = local_open,
	.pread = local_pread,
	.read_fd = local_read_fd,
	.read_whole = local_read_whole,
	.is_dir = local_is_dir,
	.is_file = local_is_file,
	.list = local_list,
	.close = local_close,
	.writer_open = fs_local_writer_open,
	.writer_write = fs_local_writer_write,
	.writer_finish = fs_local_writer_finish,
	.writer_abort = fs_local_writer_abort,
	.create_exclusive = fs_local_create_exclusive,
	.put = fs_local_put,
	.put_hint = fs_local_put_hint,
	.remove = fs_local_remove,
};
