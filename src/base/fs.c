/*
 * fs.c - file access for the server-free layers: local files and objects.
 *
 * Owns: file handles (positional reads), whole-file reads of small
 * metadata files, several ranges of one file at once (coalesced and
 * concurrent on an object store; or started there and finished later: a
 * reader's next row group read ahead), directory listing and path joining.
 * An object prefetched whole (prefetch.c) is opened and read from memory.  The open/close of
 * descriptors go through hooks so the FDW can use transient files that
 * PostgreSQL closes at transaction abort.  Every open, listing and check
 * goes through the current scope first (fs_scope.c).  Object URIs
 * (s3://, s3a://, oss://) go to the object store client (s3.c); other
 * schemes are refused by name; "file:" names a local path.  An immutable
 * metadata object (ts_mcache_wanted) is read whole by one GET, no HEAD,
 * through the on-disk metadata cache (meta_cache.c), and served from
 * memory.
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

#include "base/ts_fs.h"
#include "base/ts_meta_cache.h"
#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"

struct ts_file
{
	bool		remote;			/* an object: fd is -1, reads are ranged GETs */
	int			fd;
	int64_t		size;
	int64_t		mtime_ns;		/* local files: last modification (fstat at open) */
	char	   *path;
	const uint8_t *mem;			/* a remote file read whole, or NULL: reads copy */
	bool		mem_owned;		/* mem is ts_malloc'd here (else a prefetch set's) */
};

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
new_file(const char *path, bool remote, int fd, int64_t size, ts_err *err)
{
	ts_file    *f = ts_malloc(sizeof(ts_file));

	if (f == NULL || (f->path = ts_strdup(path)) == NULL)
	{
		ts_free(f);
		ts_error_nomemf(err, "opening \"%s\"", path);
		return NULL;
	}
	f->remote = remote;
	f->fd = fd;
	f->size = size;
	f->mtime_ns = 0;
	f->mem = NULL;
	f->mem_owned = false;
	return f;
}

/*
 * A GET of object path answered 404 (err says so): "could not open file",
 * keeping the store's status and error code ("(HTTP 404, NoSuchKey)").
 */
static bool
object_not_found(const char *path, ts_err *err)
{
	const char *answer = strstr(err->msg, "(HTTP ");
	char		status[128] = "";

	if (answer)
		snprintf(status, sizeof(status), " %s", answer);
	return ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such object%s",
					path, status);
}

/*
 * The key of an object in the metadata cache: who reads it (the store and
 * the credentials of this scan) and its URI.  0 parts: no settings.
 */
static int
cache_key(const char *path, const char *parts[8])
{
	const ts_s3_config *c = ts_s3_get_config();

	if (c == NULL)
		return 0;
	parts[0] = c->endpoint;
	parts[1] = c->region;
	parts[2] = c->path_style ? "path" : "host";
	parts[3] = c->access_key;
	parts[4] = c->secret_key;
	parts[5] = c->session_token;
	parts[6] = path;
	return 7;
}

/*
 * The last metadata object read whole in this process (malloc'd: it
 * outlives queries), by the name of its cache key: a manifest is opened
 * twice in a row (format sniffing, then reading) and is fetched once.
 */
#define MEMO_MAX ((size_t) 16 << 20)
static char memo_key[65];
static uint8_t *memo_data = NULL;
static size_t memo_len = 0;

/*
 * Read a whole immutable metadata object (in scope: the caller checked):
 * from the memo, the cache, or one GET whose bytes are then cached.
 */
static bool
read_metadata_object(const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	const char *parts[8];
	int			nparts = cache_key(path, parts);
	char		key[65] = "";

	if (nparts > 0)
	{
		ts_mcache_entry_name(parts, nparts, key);
		if (memo_data != NULL && strcmp(key, memo_key) == 0 &&
			(*data = ts_malloc(memo_len + 1)) != NULL)
		{
			memcpy(*data, memo_data, memo_len + 1);
			*len = memo_len;
			return true;
		}
		if (!ts_mcache_get(parts, nparts, data, len))
		{
			if (!ts_s3_read_object(path, data, len, err))
				return false;
			ts_mcache_put(parts, nparts, *data, *len);
		}
	}
	else if (!ts_s3_read_object(path, data, len, err))
		return false;
	free(memo_data);
	memo_data = NULL;
	if (key[0] && *len <= MEMO_MAX && (memo_data = malloc(*len + 1)) != NULL)
	{
		memcpy(memo_data, *data, *len + 1);
		memo_len = *len;
		memcpy(memo_key, key, sizeof(key));
	}
	return true;
}

/*
 * The metadata cache's entry of an object for this scan's store and
 * credentials (prefetch.c asks before fetching, then stores what it
 * fetched): false on a miss or when the object is not one the cache keeps.
 */
bool
ts_fs_cache_lookup(const char *path, uint8_t **data, size_t *len)
{
	const char *parts[8];
	int			nparts;

	if (!ts_mcache_wanted(path) || (nparts = cache_key(path, parts)) == 0)
		return false;
	return ts_mcache_get(parts, nparts, data, len);
}

void
ts_fs_cache_store(const char *path, const uint8_t *data, size_t len)
{
	const char *parts[8];
	int			nparts;

	if (ts_mcache_wanted(path) && (nparts = cache_key(path, parts)) > 0)
		ts_mcache_put(parts, nparts, data, len);
}

static ts_file *
open_object(const char *path, ts_err *err)
{
	bool		exists;
	int64_t		size;
	const uint8_t *mem;
	size_t		len;
	ts_file    *f;

	if (!ts_fs_scope_allows_name(path, err))
		return NULL;
	if (ts_prefetch_find(path, &mem, &len))
	{
		/* fetched whole already (prefetch.c): no request, reads are copies */
		f = new_file(path, true, -1, (int64_t) len, err);
		if (f != NULL)
			f->mem = mem;
		return f;
	}
	if (ts_mcache_wanted(path))
	{
		/*
		 * Metadata is read whole: one plain GET (or none), no HEAD, the size
		 * from the checked Content-Length.  No Range header: s3rver answers
		 * "bytes=0-0" with the whole object, a suffix range with one byte
		 * too many, and never answers a ranged GET of an empty object.
		 */
		uint8_t    *data;

		if (!read_metadata_object(path, &data, &len, err))
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				object_not_found(path, err);
			return NULL;
		}
		f = new_file(path, true, -1, (int64_t) len, err);
		if (f == NULL)
			ts_free(data);
		else
		{
			f->mem = data;
			f->mem_owned = true;
		}
		return f;
	}
	if (!ts_s3_head(path, &exists, &size, err))
		return NULL;
	if (!exists)
	{
		ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such object (HTTP 404 to HEAD)",
				 path);
		return NULL;
	}
	return new_file(path, true, -1, size, err);
}

ts_file *
ts_file_open(const char *path, ts_err *err)
{
	ts_file    *f;
	struct stat st;
	int			fd;

	if (ts_uri_is_object(path))
		return open_object(path, err);
	if (!ts_uri_check_scheme(path, err))
		return NULL;
	path = local_path(path);
	if (!ts_fs_scope_allows_name(path, err))
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
	if (!ts_fs_scope_allows_fd(fd, path, err))
	{
		fs_hooks.close_fd(fd);
		return NULL;
	}
	f = new_file(path, false, fd, (int64_t) st.st_size, err);
	if (f == NULL)
		fs_hooks.close_fd(fd);
	else
		f->mtime_ns = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return f;
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

bool
ts_file_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	size_t		done = 0;

	if (offset < 0 || (int64_t) len < 0 || offset + (int64_t) len > f->size)
		return ts_error(err, TS_ERR_CORRUPT,
						"file \"%s\": read of %zu bytes at offset %lld is past its end (%lld bytes)",
						f->path, len, (long long) offset, (long long) f->size);
	if (f->mem)
	{
		memcpy(buf, f->mem + offset, len);
		return true;
	}
	if (f->remote)
		return ts_s3_read_range(f->path, buf, len, offset, f->size, err);
	while (done < len)
	{
		ssize_t		n = pread(f->fd, (char *) buf + done, len - done, (off_t) (offset + done));

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return ts_error(err, TS_ERR_IO, "could not read file \"%s\": %s", f->path, strerror(errno));
		}
		if (n == 0)
			return ts_error(err, TS_ERR_CORRUPT, "file \"%s\": unexpected end of file at offset %lld",
							f->path, (long long) (offset + done));
		done += (size_t) n;
	}
	return true;
}

/*
 * Reads of several ranges of one object, started (a batch of s3_batch.c)
 * and finished later: the runs the ranges were coalesced into, a run that
 * is one range read straight into its buffer, others into a buffer of
 * their own copied out when finished.
 */
struct ts_file_reads
{
	ts_file    *f;
	int			n;
	ts_range   *ranges;			/* a copy of the caller's */
	int		   *order;
	ts_range_run *runs;
	int			nruns;
	ts_s3_fetch *items;
	ts_s3_batch *batch;			/* NULL: nothing left to wait for */
};

/* Does run k own its buffer (else it is its one range's)? */
static bool
run_owns_buffer(const ts_file_reads *rd, int k)
{
	const ts_range_run *run = &rd->runs[k];

	return !(run->count == 1 && (int64_t) rd->ranges[rd->order[run->first]].len == run->len);
}

static void
reads_free(ts_file_reads *rd)
{
	if (rd == NULL)
		return;
	for (int k = 0; rd->items && k < rd->nruns; k++)
		if (run_owns_buffer(rd, k))
			ts_free(rd->items[k].buf);
	ts_free(rd->items);
	ts_free(rd->order);
	ts_free(rd->runs);
	ts_free(rd->ranges);
	ts_free(rd);
}

static bool
check_ranges(ts_file *f, const ts_range *ranges, int n, ts_err *err)
{
	for (int i = 0; i < n; i++)
		if (ranges[i].offset < 0 || (int64_t) ranges[i].len < 0 ||
			ranges[i].offset + (int64_t) ranges[i].len > f->size)
			return ts_error(err, TS_ERR_CORRUPT,
							"file \"%s\": read of %zu bytes at offset %lld is past its end (%lld bytes)",
							f->path, ranges[i].len, (long long) ranges[i].offset, (long long) f->size);
	return true;
}

/* Coalesce the ranges of an object and start their batch; NULL + err on failure. */
static ts_file_reads *
reads_start_object(ts_file *f, const ts_range *ranges, int n, ts_err *err)
{
	ts_file_reads *rd = ts_calloc(1, sizeof(ts_file_reads));
	size_t		m = n > 0 ? (size_t) n : 1;

	if (rd == NULL)
		goto nomem;
	rd->f = f;
	rd->n = n;
	rd->ranges = ts_malloc(sizeof(ts_range) * m);
	rd->order = ts_malloc(sizeof(int) * m);
	rd->runs = ts_malloc(sizeof(ts_range_run) * m);
	if (rd->ranges == NULL || rd->order == NULL || rd->runs == NULL)
		goto nomem;
	memcpy(rd->ranges, ranges, sizeof(ts_range) * (size_t) n);
	rd->nruns = ts_ranges_coalesce(rd->ranges, n, TS_RANGE_GAP, TS_RANGE_MAX_RUN, rd->order, rd->runs);
	if ((rd->items = ts_calloc(rd->nruns > 0 ? (size_t) rd->nruns : 1, sizeof(ts_s3_fetch))) == NULL)
		goto nomem;
	for (int k = 0; k < rd->nruns; k++)
	{
		ts_s3_fetch *it = &rd->items[k];

		it->uri = f->path;
		it->offset = rd->runs[k].offset;
		it->len = (size_t) rd->runs[k].len;
		it->object_size = f->size;
		if (!run_owns_buffer(rd, k))
			it->buf = rd->ranges[rd->order[rd->runs[k].first]].buf;
		else if ((it->buf = ts_malloc((size_t) rd->runs[k].len)) == NULL)
			goto nomem;
	}
	if (rd->nruns == 0)
		return rd;
	rd->batch = ts_s3_batch_start(rd->items, rd->nruns, false, err);
	if (rd->batch == NULL)
	{
		reads_free(rd);
		return NULL;
	}
	return rd;

nomem:
	reads_free(rd);
	ts_error_nomemf(err, "reading \"%s\"", f->path);
	return NULL;
}

ts_file_reads *
ts_file_pread_many_start(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	ts_file_reads *rd;

	if (!check_ranges(f, ranges, n, err))
		return NULL;
	if (f->remote && f->mem == NULL)
		return reads_start_object(f, ranges, n, err);
	/* a local file, or an object held in memory: read now */
	for (int i = 0; i < n; i++)
		if (ranges[i].len > 0 &&
			!ts_file_pread(f, ranges[i].buf, ranges[i].len, ranges[i].offset, err))
			return NULL;
	if ((rd = ts_calloc(1, sizeof(ts_file_reads))) == NULL)
		ts_error_nomemf(err, "reading \"%s\"", f->path);
	return rd;
}

bool
ts_file_pread_many_ready(ts_file_reads *rd)
{
	return rd == NULL || rd->batch == NULL || ts_s3_batch_done(rd->batch);
}

bool
ts_file_pread_many_finish(ts_file_reads *rd, ts_err *err)
{
	ts_s3_batch *b;
	bool		ok = true;

	if (rd == NULL)
		return true;
	b = rd->batch;
	rd->batch = NULL;
	if (b != NULL)
		ok = ts_s3_batch_wait(b, err);
	for (int k = 0; ok && rd->items && k < rd->nruns; k++)
		if (run_owns_buffer(rd, k))
			for (int j = 0; j < rd->runs[k].count; j++)
			{
				const ts_range *r = &rd->ranges[rd->order[rd->runs[k].first + j]];

				memcpy(r->buf, (uint8_t *) rd->items[k].buf + (r->offset - rd->runs[k].offset), r->len);
			}
	reads_free(rd);
	return ok;
}

void
ts_file_pread_many_cancel(ts_file_reads *rd)
{
	if (rd == NULL)
		return;
	ts_s3_batch_cancel(rd->batch);	/* ranged GETs: into our buffers, nothing of its own */
	rd->batch = NULL;
	reads_free(rd);
}

bool
ts_file_pread_many(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	if (!check_ranges(f, ranges, n, err))
		return false;
	if (f->remote && f->mem == NULL && n > 1)
	{
		ts_file_reads *rd = reads_start_object(f, ranges, n, err);

		return rd != NULL && ts_file_pread_many_finish(rd, err);
	}
	for (int i = 0; i < n; i++)
		if (ranges[i].len > 0 &&
			!ts_file_pread(f, ranges[i].buf, ranges[i].len, ranges[i].offset, err))
			return false;
	return true;
}

void
ts_file_close(ts_file *f)
{
	if (f == NULL)
		return;
	if (!f->remote)
		fs_hooks.close_fd(f->fd);
	if (f->mem_owned)
		ts_free((void *) f->mem);
	ts_free(f->path);
	ts_free(f);
}

bool
ts_read_whole_file(const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	ts_file    *f;
	uint8_t    *buf;

	if (ts_uri_is_object(path))
	{
		const uint8_t *mem;
		size_t		mlen;
		bool		ok;

		/* one GET, no HEAD first */

		if (!ts_fs_scope_allows_name(path, err))
			return false;
		if (ts_prefetch_find(path, &mem, &mlen))
		{
			buf = ts_malloc(mlen + 1);
			if (buf == NULL)
				return ts_error_nomemf(err, "reading \"%s\"", path);
			memcpy(buf, mem, mlen);
			buf[mlen] = '\0';
			*data = buf;
			*len = mlen;
			return true;
		}
		ok = ts_mcache_wanted(path) ? read_metadata_object(path, data, len, err) :
			ts_s3_read_object(path, data, len, err);
		if (!ok)
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				return object_not_found(path, err);
			return false;
		}
		return true;
	}
	f = ts_file_open(path, err);
	if (f == NULL)
		return false;
	buf = ts_malloc((size_t) f->size + 1);
	if (buf == NULL)
	{
		ts_file_close(f);
		return ts_error(err, TS_ERR_NOMEM, "file \"%s\" is too large to read (%lld bytes)",
						path, (long long) f->size);
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

bool
ts_read_system_file(const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	bool		ok;

	ts_fs_bypass_scope(true);
	ok = ts_read_whole_file(path, data, len, err);
	ts_fs_bypass_scope(false);
	return ok;
}

/*
 * A path outside the scope is as good as missing here: nothing is revealed.
 * An object store that fails to answer (403, 5xx after retries) gives
 * "exists": the read that follows fails with the store's error, instead of
 * a wrong "missing".
 */
bool
ts_path_is_dir(const char *path)
{
	struct stat st;

	if (ts_uri_is_object(path))
	{
		char	  **names;
		int			n;

		ts_err		e = {0};

		if (!ts_fs_scope_allows_name(path, NULL))
			return false;
		if (!ts_s3_list(path, true, &names, &n, &e))
			return e.code != TS_ERR_NOT_FOUND;	/* unknown: the listing that follows reports it */
		ts_free_names(names, n);
		return true;
	}
	path = local_path(path);
	return ts_fs_scope_allows_target(path, NULL) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool
ts_path_is_file(const char *path)
{
	struct stat st;

	if (ts_uri_is_object(path))
	{
		bool		exists;
		int64_t		size;

		if (!ts_fs_scope_allows_name(path, NULL))
			return false;
		/* an answer that is neither yes nor no: the open that follows reports it */
		if (!ts_s3_head(path, &exists, &size, NULL))
			return true;
		return exists;
	}
	path = local_path(path);
	return ts_fs_scope_allows_target(path, NULL) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * In a confined scope, a listed entry that is a symbolic link must lead
 * inside the scope: otherwise the listing is an error, so that what it
 * points at is neither read nor silently left out.
 */
static bool
check_listed_link(const char *dir, const struct dirent *de, ts_err *err)
{
	char	   *sub;
	struct stat st;
	bool		ok = true;

	if (!ts_fs_get_scope()->confined || (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN))
		return true;
	sub = ts_path_join(dir, de->d_name);
	if (sub == NULL)
		return ts_error_nomemf(err, "listing \"%s\"", dir);
	if (lstat(sub, &st) == 0 && S_ISLNK(st.st_mode))
		ok = ts_fs_scope_allows_target(sub, err);
	ts_free(sub);
	return ok;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

bool
ts_list_dir(const char *path, char ***names, int *count, ts_err *err)
{
	DIR		   *d;
	struct dirent *de;
	char	  **arr = NULL;
	int			n = 0,
				cap = 0;

	*names = NULL;
	*count = 0;
	if (ts_uri_is_object(path))
	{
		if (!ts_fs_scope_allows_name(path, err))
			return false;
		return ts_s3_list(path, false, names, count, err);
	}
	if (!ts_uri_check_scheme(path, err))
		return false;
	path = local_path(path);
	if (!ts_fs_scope_allows_name(path, err))
		return false;
	{
		int			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return ts_error(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO,
							"could not open directory \"%s\": %s", path, strerror(errno));
		if (!ts_fs_scope_allows_fd(fd, path, err))
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
	}
	while ((de = readdir(d)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!check_listed_link(path, de, err))
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
