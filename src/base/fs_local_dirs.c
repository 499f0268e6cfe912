/*
 * fs_local_dirs.c - the directories a writer's local fs remembers.
 *
 * Owns: the directories whose new names ts_fs_sync_dirs makes durable (one
 * fsync each, opened by path only then: a write into thousands of
 * partitions holds no descriptor for them), and the directories the fs
 * created (fs_write_local.c's make_dirs) that an aborted write removes
 * when they are still empty: only those, newest (deepest) first, each
 * through its parent opened and checked against the scope.  Others'
 * directories, and ours that hold any file, are never removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/fs_impl.h"

static bool
path_is(void *arg, int32_t pos)
{
	const void *const *a = arg;
	const fs_dir_list *l = a[0];

	return strcmp(l->paths[pos], (const char *) a[1]) == 0;
}

/* Add dir to l unless there; false + err when out of memory. */
static bool
list_add(fs_dir_list *l, const char *dir, ts_err *err)
{
	uint64_t	h = ts_hash_bytes(TS_HASH_SEED, dir, strlen(dir));
	const void *arg[2] = {l, dir};
	char	   *copy;

	if (ts_hash_index_find(&l->index, h, path_is, (void *) arg) >= 0)
		return true;
	if (l->n == l->cap)
	{
		int			cap = l->cap ? l->cap * 2 : 16;
		char	  **grown = ts_realloc(l->paths, sizeof(char *) * (size_t) cap);

		if (grown == NULL)
			return ts_error_nomem(err, "a directory to sync");
		l->paths = grown;
		l->cap = cap;
	}
	if ((copy = ts_strdup(dir)) == NULL)
		return ts_error_nomem(err, "a directory to sync");
	if (!ts_hash_index_add(&l->index, h, l->n, err))
	{
		ts_free(copy);
		return false;
	}
	l->paths[l->n++] = copy;
	return true;
}

static void
list_free(fs_dir_list *l)
{
	for (int i = 0; i < l->n; i++)
		ts_free(l->paths[i]);
	ts_free(l->paths);
	ts_hash_index_free(&l->index);
	memset(l, 0, sizeof(*l));
}

bool
fs_defer_dir_sync(ts_fs *fs, const char *dir, ts_err *err)
{
	return list_add(&fs->unsynced_dirs, dir, err);
}

bool
fs_local_sync_dirs(ts_fs *fs, ts_err *err)
{
	fs_dir_list *l = &fs->unsynced_dirs;
	bool		ok = true;

	for (int i = 0; i < l->n && ok; i++)
	{
		int			fd = open(l->paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || fsync(fd) != 0)
			ok = ts_error(err, TS_ERR_IO, "could not fsync directory \"%s\": %s", l->paths[i],
						  strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	list_free(l);
	return ok;
}

void
fs_note_created_dir(ts_fs *fs, const char *dir)
{
	ts_err		ignore = {0};

	if (fs != NULL && fs->defer_dir_syncs)
		(void) list_add(&fs->created_dirs, dir, &ignore);
}

void
fs_local_remove_created_dirs(ts_fs *fs)
{
	fs_dir_list *l = &fs->created_dirs;

	for (int i = l->n - 1; i >= 0; i--)
	{
		ts_err		ignore = {0};
		const char *name;
		int			dirfd = fs_local_open_parent(fs, l->paths[i], &name, &ignore);

		/* not empty (ENOTEMPTY, EEXIST): a file of ours committed, or another writer's */
		if (dirfd >= 0)
		{
			(void) unlinkat(dirfd, name, AT_REMOVEDIR);
			close(dirfd);
		}
	}
	list_free(l);
}

void
fs_local_forget_created_dirs(ts_fs *fs)
{
	list_free(&fs->created_dirs);
}

void
fs_local_forget_dirs(ts_fs *fs)
{
	list_free(&fs->unsynced_dirs);
	list_free(&fs->created_dirs);
}
