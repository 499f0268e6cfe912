/*
 * fs_s3.c - the object store of ts_fs: S3-compatible stores (s3://, s3a://,
 * oss://) through the client of ts_s3.h, under the fs's own settings.
 *
 * Owns: opening an object (a HEAD for its size unless its metadata gave
 * it (ts_prefetch_size); an object prefetched whole
 * (prefetch.c) or an immutable metadata object (ts_mcache_wanted) is read
 * whole, by one GET or none, through the on-disk metadata cache
 * (meta_cache.c) and a one-object memo, and served from memory), ranged
 * reads and several ranges coalesced and sent concurrently (started now,
 * finished later: a reader's next row group read ahead), listings and
 * existence checks.  Object URIs are confined lexically by the fs's scope
 * (an object store has no links).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs_impl.h"
#include "base/ts_meta_cache.h"
#include "base/ts_prefetch.h"

static bool
s3_owns(const char *uri)
{
	return ts_uri_is_object(uri);
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
 * the credentials of this fs) and its URI.  0 parts: no settings.
 */
int
fs_s3_cache_key(const ts_fs *fs, const char *path, const char *parts[8])
{
	const ts_s3_config *c = fs_s3_of(fs);

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
 * outlives queries), by the name of its cache key (store, credentials and
 * URI): a manifest is opened twice in a row (format sniffing, then
 * reading) and is fetched once.
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
read_metadata_object(ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	const char *parts[8];
	int			nparts = fs_s3_cache_key(fs, path, parts);
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
			if (!ts_s3_read_object(fs_s3_of(fs), path, data, len, err))
				return false;
			ts_mcache_put(parts, nparts, *data, *len);
		}
	}
	else if (!ts_s3_read_object(NULL, path, data, len, err))
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

bool
ts_fs_cache_lookup(ts_fs *fs, const char *path, uint8_t **data, size_t *len)
{
	const char *parts[8];
	int			nparts;

	if (!ts_mcache_wanted(path) || (nparts = fs_s3_cache_key(fs, path, parts)) == 0)
		return false;
	return ts_mcache_get(parts, nparts, data, len);
}

void
ts_fs_cache_store(ts_fs *fs, const char *path, const uint8_t *data, size_t len)
{
	const char *parts[8];
	int			nparts;

	if (ts_mcache_wanted(path) && (nparts = fs_s3_cache_key(fs, path, parts)) > 0)
		ts_mcache_put(parts, nparts, data, len);
}

static ts_file *
s3_open(ts_fs *fs, const char *path, ts_err *err)
{
	bool		exists;
	int64_t		size;
	const uint8_t *mem;
	size_t		len;
	ts_file    *f;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return NULL;
	if (ts_prefetch_find(fs, path, &mem, &len))
	{
		/* fetched whole already (prefetch.c): no request, reads are copies */
		f = fs_file_new(fs, path, sizeof(ts_file), err);
		if (f != NULL)
		{
			f->size = (int64_t) len;
			f->mem = mem;
		}
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

		if (!read_metadata_object(fs, path, &data, &len, err))
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				object_not_found(path, err);
			return NULL;
		}
		f = fs_file_new(fs, path, sizeof(ts_file), err);
		if (f == NULL)
			ts_free(data);
		else
		{
			f->size = (int64_t) len;
			f->mem = data;
			f->mem_owned = true;
		}
		return f;
	}
	if (ts_prefetch_size(fs, path, &size))
	{
		/*
		 * The size the metadata gives (a data file's manifest entry): no
		 * HEAD.  Every ranged read is checked against it, so an object of
		 * another size fails its first read, naming it; a missing one too.
		 */
		f = fs_file_new(fs, path, sizeof(ts_file), err);
		if (f != NULL)
		{
			f->size = size;
			f->remote = true;
		}
		return f;
	}
	if (!ts_s3_head(fs_s3_of(fs), path, &exists, &size, err))
		return NULL;
	if (!exists)
	{
		ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such object (HTTP 404 to HEAD)",
				 path);
		return NULL;
	}
	f = fs_file_new(fs, path, sizeof(ts_file), err);
	if (f != NULL)
	{
		f->size = size;
		f->remote = true;
	}
	return f;
}

static bool
s3_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	return ts_s3_read_range(fs_s3_of(f->fs), f->path, buf, len, offset, f->size, err);
}

/*
 * Reads of several ranges of one object, started (a batch of s3_batch.c)
 * and finished later: the runs the ranges were coalesced into, a run that
 * is one range read straight into its buffer, others into a buffer of
 * their own copied out when finished.
 */
typedef struct s3_reads
{
	ts_file_reads head;
	int			n;
	ts_range   *ranges;			/* a copy of the caller's */
	int		   *order;
	ts_range_run *runs;
	int			nruns;
	ts_s3_fetch *items;
	ts_s3_batch *batch;			/* NULL: nothing left to wait for */
} s3_reads;

/* Does run k own its buffer (else it is its one range's)? */
static bool
run_owns_buffer(const s3_reads *rd, int k)
{
	const ts_range_run *run = &rd->runs[k];

	return !(run->count == 1 && (int64_t) rd->ranges[rd->order[run->first]].len == run->len);
}

static void
reads_free(s3_reads *rd)
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

/* Coalesce the ranges of an object and start their batch; NULL + err on failure. */
static ts_file_reads *
s3_pread_many_start(ts_file *f, ts_range *ranges, int n, ts_err *err)
{
	s3_reads   *rd = ts_calloc(1, sizeof(s3_reads));
	size_t		m = n > 0 ? (size_t) n : 1;

	if (rd == NULL)
		goto nomem;
	rd->head.f = f;
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
		return &rd->head;
	rd->batch = ts_s3_batch_start(fs_s3_of(f->fs), rd->items, rd->nruns, false, err);
	if (rd->batch == NULL)
	{
		reads_free(rd);
		return NULL;
	}
	return &rd->head;

nomem:
	reads_free(rd);
	ts_error_nomemf(err, "reading \"%s\"", f->path);
	return NULL;
}

static bool
s3_pread_many_ready(ts_file_reads *head)
{
	s3_reads   *rd = (s3_reads *) head;

	return rd->batch == NULL || ts_s3_batch_done(rd->batch);
}

static bool
s3_pread_many_finish(ts_file_reads *head, ts_err *err)
{
	s3_reads   *rd = (s3_reads *) head;
	ts_s3_batch *b = rd->batch;
	bool		ok = true;

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

static void
s3_pread_many_cancel(ts_file_reads *head)
{
	s3_reads   *rd = (s3_reads *) head;

	ts_s3_batch_cancel(rd->batch);	/* ranged GETs: into our buffers, nothing of its own */
	rd->batch = NULL;
	reads_free(rd);
}

/* One GET, no HEAD first: from a prefetched set, the metadata cache, or the store. */
static bool
s3_read_whole(ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data, size_t *len,
			  ts_err *err)
{
	const uint8_t *mem;
	size_t		mlen;
	bool		ok;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return false;
	if (ts_prefetch_find(fs, path, &mem, &mlen))
	{
		uint8_t    *buf = ts_malloc(mlen + 1);

		if (buf == NULL)
			return ts_error_nomemf(err, "reading \"%s\"", path);
		memcpy(buf, mem, mlen);
		buf[mlen] = '\0';
		*data = buf;
		*len = mlen;
	}
	else
	{
		ok = ts_mcache_wanted(path) ? read_metadata_object(fs, path, data, len, err) :
			ts_s3_read_object(fs_s3_of(fs), path, data, len, err);
		if (!ok)
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				return object_not_found(path, err);
			return false;
		}
	}
	if (max_bytes > 0 && *len > max_bytes)
	{
		ts_free(*data);
		*data = NULL;
		return ts_error(err, TS_ERR_LIMIT, "object \"%s\" is too large to read whole (%zu bytes, at most %zu)",
						path, *len, max_bytes);
	}
	return true;
}

/*
 * A path outside the scope is as good as missing.  A store that fails to
 * answer (403, 5xx after retries) gives "exists": the read that follows
 * fails with the store's error, instead of a wrong "missing".
 */
static bool
s3_is_dir(ts_fs *fs, const char *path)
{
	char	  **names;
	int			n;
	ts_err		e = {0};

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	if (!ts_s3_list(fs_s3_of(fs), path, true, &names, &n, &e))
		return e.code != TS_ERR_NOT_FOUND;	/* unknown: the listing that follows reports it */
	ts_free_names(names, n);
	return true;
}

static bool
s3_is_file(ts_fs *fs, const char *path)
{
	bool		exists;
	int64_t		size;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	/* an answer that is neither yes nor no: the open that follows reports it */
	if (!ts_s3_head(fs_s3_of(fs), path, &exists, &size, NULL))
		return true;
	return exists;
}

static bool
s3_list(ts_fs *fs, const char *path, char ***names, int *count, ts_err *err)
{
	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return false;
	return ts_s3_list(fs_s3_of(fs), path, false, names, count, err);
}

static void
s3_close(ts_file *f)
{
	(void) f;					/* no descriptor: requests hold nothing between reads */
}

const ts_fs_ops ts_fs_s3_ops = {
	.name = "s3",
	/* conditional puts: a property of the store behind the endpoint, probed (check_atomic_create) */
	.caps = TS_FS_CAP_REMOTE | TS_FS_CAP_BATCH_FETCH | TS_FS_CAP_CONDITIONAL_PUT,
	.owns = s3_owns,
	.open = s3_open,
	.pread = s3_pread,
	.pread_many_start = s3_pread_many_start,
	.pread_many_ready = s3_pread_many_ready,
	.pread_many_finish = s3_pread_many_finish,
	.pread_many_cancel = s3_pread_many_cancel,
	.read_whole = s3_read_whole,
	.is_dir = s3_is_dir,
	.is_file = s3_is_file,
	.list = s3_list,
	.close = s3_close,
	.writer_open = fs_s3_writer_open,
	.writer_write = fs_part_writer_write,
	.writer_finish = fs_part_writer_finish,
	.writer_abort = fs_part_writer_abort,
	.create_exclusive = fs_s3_create_exclusive,
	.put = fs_s3_put,
	.remove = fs_s3_remove,
	.check_atomic_create = fs_s3_check_atomic_create,
};
