/*
 * fs.c - the file system object (ts_fs) and what every store shares.
 *
 * Owns: building an fs for a URI's store (the one place a scheme is
 * looked at: the table of stores below), its copies of the scope and the
 * store settings, credential renewal, and the calls every caller makes
 * (ts_file_open, ts_file_pread, ts_read_whole_file, ts_list_dir, ...):
 * they check what is the same for every store (a range against the file's
 * size, a path of another store, a file held in memory) and call the
 * store's operations (fs_impl.h).  Also path joining, and the unconfined
 * local fs of the tools and unit tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs_impl.h"
#include "base/ts_meta_cache.h"
#include "base/ts_prefetch.h"

/*
 * The stores, tried in order by their owns(); the first without one (local)
 * takes the paths no other store owns and no refused scheme names.  A new
 * store adds its ops here (and its settings to ts_fs_settings).
 */
static const ts_fs_ops *const stores[] = {&ts_fs_s3_ops, &ts_fs_azure_ops, &ts_fs_local_ops};

/* The store of uri; NULL + TS_ERR_UNSUPPORTED naming an unknown scheme. */
static const ts_fs_ops *
store_of(const char *uri, ts_err *err)
{
	for (size_t i = 0; i < sizeof(stores) / sizeof(stores[0]); i++)
		if (stores[i]->owns != NULL && stores[i]->owns(uri))
			return stores[i];
	if (!ts_uri_check_scheme(uri, err))
		return NULL;
	return &ts_fs_local_ops;
}

static ts_fs local_unconfined = {&ts_fs_local_ops};

ts_fs *
ts_fs_local_unconfined(void)
{
	return &local_unconfined;
}

const ts_fs_scope *
fs_scope_of(const ts_fs *fs)
{
	return &fs->scope;
}

const ts_s3_config *
fs_s3_of(const ts_fs *fs)
{
	return fs->has_s3 ? &fs->s3 : NULL;
}

const ts_azure_config *
fs_azure_of(const ts_fs *fs)
{
	return fs->has_azure ? &fs->azure : NULL;
}

ts_fs *
ts_fs_open_for(const char *uri, const ts_fs_settings *settings, const ts_fs_scope *scope,
			   ts_err *err)
{
	const ts_fs_ops *ops = store_of(uri, err);
	ts_fs	   *fs;

	if (ops == NULL)
		return NULL;
	if ((fs = ts_calloc(1, sizeof(ts_fs))) == NULL)
	{
		ts_error_nomemf(err, "opening the file system of \"%s\"", uri);
		return NULL;
	}
	fs->ops = ops;
	fs->generation = ts_s3_generation_next();
	if (!ts_fs_scope_copy(&fs->scope, scope) ||
		(settings && settings->s3 && !ts_fs_set_s3(fs, settings->s3, err)) ||
		(settings && settings->azure && !(fs->has_azure = ts_azure_config_copy(&fs->azure, settings->azure))))
	{
		ts_fs_free(fs);
		ts_error_nomemf(err, "opening the file system of \"%s\"", uri);
		return NULL;
	}
	return fs;
}

void
ts_fs_free(ts_fs *fs)
{
	if (fs == NULL || fs == &local_unconfined)
		return;
	fs_local_forget_dirs(fs);
	ts_fs_scope_free(&fs->scope);
	if (fs->has_s3)
		ts_s3_config_free_copy(&fs->s3);
	if (fs->has_azure)
		ts_azure_config_free_copy(&fs->azure);
	ts_free(fs);
}

unsigned
ts_fs_caps(const ts_fs *fs)
{
	return fs->ops->caps;
}

unsigned
ts_fs_path_caps(const ts_fs *fs, const char *path)
{
	const ts_fs_ops *ops;

	if (fs != NULL && fs->ops->owns != NULL && fs->ops->owns(path))
		return fs->ops->caps;
	ops = store_of(path, NULL);
	return ops ? ops->caps : 0;
}

bool
ts_fs_path_is_remote(const ts_fs *fs, const char *path)
{
	return (ts_fs_path_caps(fs, path) & TS_FS_CAP_REMOTE) != 0;
}

const char *
ts_fs_store_name(const ts_fs *fs)
{
	return fs->ops->name;
}

bool
ts_fs_set_s3(ts_fs *fs, const ts_s3_config *cfg, ts_err *err)
{
	ts_s3_config copy;

	if (fs == &local_unconfined)
		return ts_error(err, TS_ERR_INVALID, "the shared file system takes no store settings");
	if (!ts_s3_config_copy(&copy, cfg))
		return ts_error_nomem(err, NULL);
	if (fs->has_s3)
		ts_s3_config_free_copy(&fs->s3);	/* the secrets replaced are zeroed */
	fs->s3 = copy;
	fs->has_s3 = true;
	fs->generation = ts_s3_generation_next();
	return true;
}

const ts_s3_config *
ts_fs_s3_config(const ts_fs *fs)
{
	return fs_s3_of(fs);
}

uint64_t
ts_fs_generation(const ts_fs *fs)
{
	return fs->generation;
}

bool
ts_fs_allows_name(const ts_fs *fs, const char *path, ts_err *err)
{
	return ts_scope_allows_name(fs_scope_of(fs), path, err);
}

bool
ts_fs_cache_name(ts_fs *fs, const char *path, const char *kind, int64_t listed_size,
				 char name[65], int64_t *size)
{
	const char *parts[12];
	int			nparts;
	char		size_text[24];
	char		mtime_text[24];
	ts_err		ignore = {0};

	*size = -1;
	parts[0] = kind;
	if (ts_fs_path_is_remote(fs, path))
	{
		if (listed_size <= 0 || !ts_fs_allows_name(fs, path, &ignore) ||
			(nparts = fs_object_cache_key(fs, path, parts + 1)) == 0)
			return false;
		nparts++;
		*size = listed_size;
		mtime_text[0] = '\0';
	}
	else
	{
		ts_file    *f = ts_file_open(fs, path, &ignore);

		if (f == NULL)
			return false;
		*size = ts_file_size(f);
		snprintf(mtime_text, sizeof(mtime_text), "%lld", (long long) ts_file_mtime_ns(f));
		ts_file_close(f);
		if (listed_size > 0 && listed_size != *size)
			return false;
		parts[1] = "local";
		parts[2] = path;
		nparts = 3;
	}
	snprintf(size_text, sizeof(size_text), "%lld", (long long) *size);
	parts[nparts++] = size_text;
	parts[nparts++] = mtime_text;
	ts_mcache_entry_name(parts, nparts, name);
	return true;
}

const ts_fs_ops *
fs_ops_for(const ts_fs *fs, const char *path)
{
	if (fs->ops->owns != NULL && fs->ops->owns(path))
		return fs->ops;
	return store_of(path, NULL);
}

/*
 * The store that reads path through fs: the table's own, or (a file moved
 * by external-path-map) another known store, with the same scope and
 * settings; NULL + TS_ERR_UNSUPPORTED for an unknown scheme.
 */
static ts_fs *
route(ts_fs *fs, const char *path, const ts_fs_ops **ops, ts_err *err)
{
	if (fs == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "cannot reach \"%s\": no file system was given for it", path);
		return NULL;
	}
	if (fs->ops->owns != NULL && fs->ops->owns(path))
		*ops = fs->ops;			/* the usual case: one test of the scheme */
	else if ((*ops = store_of(path, err)) == NULL)
		return NULL;
	return fs;
}

ts_file *
fs_file_new(ts_fs *fs, const char *path, size_t size, ts_err *err)
{
	ts_file    *f = ts_calloc(1, size);

	if (f == NULL || (f->path = ts_strdup(path)) == NULL)
	{
		ts_free(f);
		ts_error_nomemf(err, "opening \"%s\"", path);
		return NULL;
	}
	f->fs = fs;					/* f->ops: set by ts_file_open */
	return f;
}

ts_file *
ts_file_open(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_ops *ops;

	ts_file    *f;

	if ((fs = route(fs, path, &ops, err)) == NULL)
		return NULL;
	f = ops->object ? fs_object_open(fs, ops->object, path, err) : ops->open(fs, path, err);
	if (f != NULL)
		f->ops = ops;
	return f;
}

bool
ts_read_whole_file(ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	return ts_fs_read_whole(fs, path, 0, data, len, err);
}

bool
ts_fs_read_whole(ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data, size_t *len,
				 ts_err *err)
{
	const ts_fs_ops *ops;

	*data = NULL;
	*len = 0;
	if ((fs = route(fs, path, &ops, err)) == NULL)
		return false;
	if (ops->object)
		return fs_object_read_whole(fs, ops->object, path, max_bytes, data, len, err);
	return ops->read_whole(fs, path, max_bytes, data, len, err);
}

bool
ts_read_system_file(const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	return ts_read_whole_file(&local_unconfined, path, data, len, err);
}

bool
ts_path_is_dir(ts_fs *fs, const char *path)
{
	const ts_fs_ops *ops;

	if ((fs = route(fs, path, &ops, NULL)) == NULL)
		return false;
	return ops->object ? fs_object_is_dir(fs, ops->object, path) : ops->is_dir(fs, path);
}

bool
ts_path_is_file(ts_fs *fs, const char *path)
{
	const ts_fs_ops *ops;

	if ((fs = route(fs, path, &ops, NULL)) == NULL)
		return false;
	return ops->object ? fs_object_is_file(fs, ops->object, path) : ops->is_file(fs, path);
}

bool
ts_list_dir(ts_fs *fs, const char *path, char ***names, int *count, ts_err *err)
{
	const ts_fs_ops *ops;

	*names = NULL;
	*count = 0;
	if ((fs = route(fs, path, &ops, err)) == NULL)
		return false;
	if (ops->object)
		return fs_object_list(fs, ops->object, path, names, count, err);
	return ops->list(fs, path, names, count, err);
}

const char *
ts_file_path(const ts_file *f)
{
	return f->path;
}

int64_t
ts_file_mtime_ns(const ts_file *f)
{
	return f->mtime_ns;
}

bool
ts_file_is_remote(const ts_file *f)
{
	return f->remote && f->mem == NULL;
}

int64_t
ts_file_size(const ts_file *f)
{
	return f->size;
}

static bool
check_range(const ts_file *f, size_t len, int64_t offset, ts_err *err)
{
	if (offset < 0 || (int64_t) len < 0 || offset + (int64_t) len > f->size)
		return ts_error(err, TS_ERR_CORRUPT,
						"file \"%s\": read of %zu bytes at offset %lld is past its end (%lld bytes)",
						f->path, len, (long long) offset, (long long) f->size);
	return true;
}

/*
 * Copy [offset, offset + len) from f's held bytes, if one block holds it
 * all, or from a part of the object fetched ahead (ts_prefetch_start_parts:
 * the chunks a scan's next file will read, requested before it is opened).
 */
static bool
copy_held(const ts_file *f, void *buf, size_t len, int64_t offset)
{
	const uint8_t *ahead;

	for (int i = 0; i < 2; i++)
		if (f->held[i] != NULL && offset >= f->held_off[i] &&
			offset + (int64_t) len <= f->held_off[i] + f->held_len[i])
		{
			memcpy(buf, f->held[i] + (offset - f->held_off[i]), len);
			return true;
		}
	if (f->remote && len > 0 && ts_prefetch_find_range(f->fs, f->path, offset, len, &ahead))
	{
		memcpy(buf, ahead, len);
		return true;
	}
	return false;
}

bool
ts_file_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	if (!check_range(f, len, offset, err))
		return false;
	if (f->mem)
	{
		memcpy(buf, f->mem + offset, len);
		return true;
	}
	if (copy_held(f, buf, len, offset))
		return true;
	if (len == 0)
		return true;
	return f->ops->pread(f, buf, len, offset, err);
}

int
ts_file_read_fd(const ts_file *f)
{
	return f->mem == NULL && f->ops->read_fd != NULL ? f->ops->read_fd(f) : -1;
}

static bool
check_ranges(const ts_file *f, const ts_range *ranges, int n, ts_err *err)
{
	for (int i = 0; i < n; i++)
		if (!check_range(f, ranges[i].len, ranges[i].offset, err))
			return false;
	return true;
}

/* Does f's store start several reads at once (else they are read now, one by one)? */
static bool
reads_ahead(const ts_file *f)
{
	return f->mem == NULL && f->ops->pread_many_start != NULL;
}

static bool
pread_each(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	for (int i = 0; i < n; i++)
		if (ranges[i].len > 0 &&
			!ts_file_pread(f, ranges[i].buf, ranges[i].len, ranges[i].offset, err))
			return false;
	return true;
}

/*
 * The ranges that neither f's held bytes (ts_file_hold_ends) nor the parts
 * of it fetched ahead hold, into *rest (ranges itself when nothing can be
 * held, else a ts_malloc'd array); those held are copied now.  Their
 * count, or -1 when out of memory.
 */
static int
ranges_not_held(ts_file *f, ts_range *ranges, int n, ts_range **rest)
{
	int			m = 0;

	*rest = ranges;
	if (f->held[0] == NULL && f->held[1] == NULL && !f->remote)
		return n;
	if ((*rest = ts_malloc(sizeof(ts_range) * (size_t) (n > 0 ? n : 1))) == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		if (!copy_held(f, ranges[i].buf, ranges[i].len, ranges[i].offset))
			(*rest)[m++] = ranges[i];
	return m;
}

/* The handle of reads done already: only a token. */
static ts_file_reads *
reads_token(ts_file *f, ts_err *err)
{
	ts_file_reads *rd = ts_calloc(1, sizeof(ts_file_reads));

	if (rd == NULL)
		ts_error_nomemf(err, "reading \"%s\"", f->path);
	return rd;
}

ts_file_reads *
ts_file_pread_many_start(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	if (!check_ranges(f, ranges, n, err))
		return NULL;
	if (reads_ahead(f))
	{
		ts_range   *rest;
		int			m = ranges_not_held(f, ranges, n, &rest);
		ts_file_reads *rd;

		if (m < 0)
		{
			ts_error_nomemf(err, "reading \"%s\"", f->path);
			return NULL;
		}
		rd = m > 0 ? f->ops->pread_many_start(f, rest, m, err) : reads_token(f, err);
		if (rest != ranges)
			ts_free(rest);
		return rd;
	}
	/* read now */
	if (!pread_each(f, ranges, n, err))
		return NULL;
	return reads_token(f, err);
}

bool
ts_file_pread_many_ready(ts_file_reads *rd)
{
	return rd == NULL || rd->f == NULL || rd->f->ops->pread_many_ready(rd);
}

bool
ts_file_pread_many_finish(ts_file_reads *rd, ts_err *err)
{
	if (rd == NULL)
		return true;
	if (rd->f == NULL)
	{
		ts_free(rd);
		return true;
	}
	return rd->f->ops->pread_many_finish(rd, err);
}

void
ts_file_pread_many_cancel(ts_file_reads *rd)
{
	if (rd == NULL)
		return;
	if (rd->f == NULL)
		ts_free(rd);
	else
		rd->f->ops->pread_many_cancel(rd);
}

bool
ts_file_pread_many(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	if (!check_ranges(f, ranges, n, err))
		return false;
	if (reads_ahead(f) && n > 1)
	{
		ts_range   *rest;
		int			m = ranges_not_held(f, ranges, n, &rest);
		bool		ok;

		if (m < 0)
			return ts_error_nomemf(err, "reading \"%s\"", f->path);
		if (m <= 1)
			ok = pread_each(f, rest, m, err);
		else
		{
			ts_file_reads *rd = f->ops->pread_many_start(f, rest, m, err);

			ok = rd != NULL && ts_file_pread_many_finish(rd, err);
		}
		if (rest != ranges)
			ts_free(rest);
		return ok;
	}
	return pread_each(f, ranges, n, err);
}

/* Pieces a whole object held by ts_file_hold_ends is read in, concurrently. */
#define HOLD_PIECES 8

bool
ts_file_hold_ends(ts_file *f, int64_t head_len, int64_t tail_len, ts_err *err)
{
	ts_range	rg[HOLD_PIECES];
	int			n = 0;

	if (!ts_file_is_remote(f) || f->held[0] != NULL || f->held[1] != NULL || f->size <= 0)
		return true;
	head_len = head_len < 0 ? 0 : head_len;
	tail_len = tail_len < 0 ? 0 : tail_len;
	if (head_len + tail_len >= f->size)
	{
		/* the whole object, in pieces of TS_RANGE_MAX_RUN or more sent together */
		int64_t		piece = f->size / HOLD_PIECES + 1;
		uint8_t    *all = ts_malloc((size_t) f->size);

		if (all == NULL)
			return ts_error_nomemf(err, "reading \"%s\"", f->path);
		piece = piece < TS_RANGE_MAX_RUN ? TS_RANGE_MAX_RUN : piece;
		for (int64_t off = 0; off < f->size; off += piece)
		{
			rg[n].offset = off;
			rg[n].len = (size_t) (f->size - off < piece ? f->size - off : piece);
			rg[n].buf = all + off;
			n++;
		}
		if (!ts_file_pread_many(f, rg, n, err))
		{
			ts_free(all);
			return false;
		}
		f->mem = all;
		f->mem_owned = true;
		return true;
	}
	{
		int64_t		off[2] = {0, f->size - tail_len};
		int64_t		len[2] = {head_len, tail_len};
		uint8_t    *buf[2] = {NULL, NULL};

		for (int i = 0; i < 2; i++)
		{
			if (len[i] == 0)
				continue;
			if ((buf[i] = ts_malloc((size_t) len[i])) == NULL)
			{
				ts_free(buf[0]);
				return ts_error_nomemf(err, "reading \"%s\"", f->path);
			}
			/* fetched ahead of the open (ts_prefetch_start_ends): no request */
			if (!copy_held(f, buf[i], (size_t) len[i], off[i]))
				rg[n++] = (ts_range) {off[i], (size_t) len[i], buf[i]};
		}
		if (n > 0 && !ts_file_pread_many(f, rg, n, err))
		{
			ts_free(buf[0]);
			ts_free(buf[1]);
			return false;
		}
		for (int i = 0; i < 2; i++)
		{
			f->held[i] = buf[i];
			f->held_off[i] = off[i];
			f->held_len[i] = buf[i] ? len[i] : 0;
		}
	}
	return true;
}

void
ts_file_close(ts_file *f)
{
	if (f == NULL)
		return;
	if (f->ops->close)
		f->ops->close(f);
	if (f->mem_owned)
		ts_free((void *) f->mem);
	ts_free(f->held[0]);
	ts_free(f->held[1]);
	ts_free(f->path);
	ts_free(f);
}

void
ts_free_names(char **names, int count)
{
	for (int i = 0; i < count; i++)
		ts_free(names[i]);
	ts_free(names);
}

char *
ts_path_join(const char *a, const char *b)
{
	size_t		la = strlen(a);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	return ts_psprintf("%.*s/%s", (int) la, a, b);
}

/* ---- writes (ts_fs_write.h) ---------------------------------------------- */

/*
 * The store that writes path through fs, if it writes at all, and path in
 * fs's scope by name (a denial says "write").
 */
static bool
write_route(ts_fs *fs, const char *path, const ts_fs_ops **ops, ts_err *err)
{
	if (route(fs, path, ops, err) == NULL)
		return false;
	if ((*ops)->create_exclusive == NULL)
		return ts_error(err, TS_ERR_UNSUPPORTED, "cannot write \"%s\": writes to %s are not supported yet",
						path, (*ops)->name);
	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return fs_deny_write(path, err);
	return true;
}

ts_fs_writer *
ts_fs_writer_open(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_ops *ops;
	ts_fs_writer *w;

	if (!write_route(fs, path, &ops, err))
		return NULL;
	if ((w = ops->writer_open(fs, path, err)) != NULL)
		w->ops = ops;
	return w;
}

bool
ts_fs_writer_write(ts_fs_writer *w, const void *data, size_t len, ts_err *err)
{
	if (len == 0)
		return true;
	return w->ops->writer_write(w, data, len, err);
}

int64_t
ts_fs_writer_size(const ts_fs_writer *w)
{
	return w->size;
}

bool
ts_fs_writer_finish(ts_fs_writer *w, ts_err *err)
{
	return w->ops->writer_finish(w, err);
}

void
ts_fs_writer_abort(ts_fs_writer *w)
{
	if (w != NULL)
		w->ops->writer_abort(w);
}

bool
ts_fs_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_fs_ops *ops;

	return write_route(fs, path, &ops, err) && ops->create_exclusive(fs, path, data, len, err);
}

bool
ts_fs_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_fs_ops *ops;

	return write_route(fs, path, &ops, err) && ops->put(fs, path, data, len, err);
}

bool
ts_fs_put_hint(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_fs_ops *ops;

	return write_route(fs, path, &ops, err) &&
		(ops->put_hint ? ops->put_hint : ops->put) (fs, path, data, len, err);
}

bool
ts_fs_check_writes(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_ops *ops;
	ts_err		denial = {0};

	if (!write_route(fs, path, &ops, err))
		return false;
	if (!ts_fs_allows_name(fs, path, &denial))
		return fs_deny_write(path, err);
	return true;
}

void
ts_fs_defer_dir_syncs(ts_fs *fs)
{
	if (fs != &local_unconfined)
		fs->defer_dir_syncs = true;
}

bool
ts_fs_sync_dirs(ts_fs *fs, ts_err *err)
{
	return fs == &local_unconfined || fs_local_sync_dirs(fs, err);
}

void
ts_fs_remove_created_dirs(ts_fs *fs)
{
	if (fs != NULL && fs != &local_unconfined)
		fs_local_remove_created_dirs(fs);
}

void
ts_fs_forget_created_dirs(ts_fs *fs)
{
	if (fs != NULL && fs != &local_unconfined)
		fs_local_forget_created_dirs(fs);
}

bool
ts_fs_delete(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_fs_ops *ops;

	return write_route(fs, path, &ops, err) && ops->remove(fs, path, err);
}

bool
ts_fs_check_atomic_create(ts_fs *fs, const char *dir, ts_err *err)
{
	const ts_fs_ops *ops;

	if (!write_route(fs, dir, &ops, err))
		return false;
	if (ops->check_atomic_create != NULL)
		return ops->check_atomic_create(fs, dir, err);
	if ((ops->caps & (TS_FS_CAP_ATOMIC_CREATE | TS_FS_CAP_CONDITIONAL_PUT)) == 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "cannot commit atomically on this store (%s): it cannot create a file only if it does not exist",
				 ops->name);
		return false;
	}
	return true;
}
