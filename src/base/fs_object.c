/*
 * fs_object.c - what every object store's file system shares (fs_impl.h).
 *
 * Owns: the operations of ts_fs that are the same for S3 and Azure once a
 * store gives its few requests (fs_object_ops: HEAD, whole GET, one level
 * of listing, and the cache key of its credentials): opening an object
 * (held in memory when prefetched whole (prefetch.c) or when it is an
 * immutable metadata object; else a HEAD for its size unless its metadata
 * gave it (ts_prefetch_size)), whole reads under a cap, existence checks
 * and listings, each confined lexically by the fs's scope (an object store
 * has no links).  And the metadata object cache in front of every object
 * store: manifests, manifest lists, index manifests, index files and data
 * file indexes (ts_mcache_wanted) are read whole, by one GET or none,
 * through a one-object memo and the on-disk cache (meta_cache.c), keyed by
 * the store, the fs's credentials and the URI.  A store keeps only its
 * protocol (fs_s3.c, fs_azure.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs_impl.h"
#include "base/ts_meta_cache.h"
#include "base/ts_prefetch.h"

/*
 * A GET of path answered 404 (err says so): "could not open file",
 * keeping the store's status and error code ("(HTTP 404, NoSuchKey)").
 */
static bool
not_found(const fs_object_ops *oo, const char *path, ts_err *err)
{
	const char *answer = strstr(err->msg, "(HTTP ");
	char		status[128] = "";

	if (answer)
		snprintf(status, sizeof(status), " %s", answer);
	return ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such %s%s",
					path, oo->noun, status);
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

static int64_t fetches = 0;

/* Keep data (len bytes) as the memo under key ("": none). */
static void
memo_set(const char *key, const uint8_t *data, size_t len)
{
	free(memo_data);
	memo_data = NULL;
	if (key[0] && len <= MEMO_MAX && (memo_data = malloc(len + 1)) != NULL)
	{
		memcpy(memo_data, data, len);
		memo_data[len] = '\0';
		memo_len = len;
		memcpy(memo_key, key, sizeof(memo_key));
	}
}

int64_t
fs_object_fetch_count(void)
{
	return fetches;
}

static bool
fetch(ts_fs *fs, const fs_object_ops *oo, const char *path, uint8_t **data, size_t *len,
	  ts_err *err)
{
	fetches++;
	return oo->get(fs, path, data, len, err);
}

/*
 * Read a whole immutable metadata object (in scope: the caller checked):
 * from the memo, the cache, or one GET whose bytes are then cached.
 */
static bool
read_metadata_object(ts_fs *fs, const fs_object_ops *oo, const char *path, uint8_t **data,
					 size_t *len, ts_err *err)
{
	const char *parts[8];
	int			nparts = oo->cache_key(fs, path, parts);
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
			if (!fetch(fs, oo, path, data, len, err))
				return false;
			ts_mcache_put(parts, nparts, *data, *len);
		}
	}
	else if (!fetch(fs, oo, path, data, len, err))
		return false;
	memo_set(key, *data, *len);
	return true;
}

/*
 * An index manifest served from a prefetched set (a plan starts it with
 * its manifest lists) becomes the memo, as a plain read of it, the plan's
 * last metadata read, did: the next plan's prefetch of it then finds it
 * (ts_fs_cache_lookup) and sends nothing.  Other objects of prefetched
 * sets leave the memo alone (a scan's index files and sidecars would push
 * the index manifest out before the next plan).
 */
static void
memo_keep_prefetched(ts_fs *fs, const fs_object_ops *oo, const char *path, const uint8_t *data,
					 size_t len)
{
	const char *parts[8];
	const char *base = strrchr(path, '/');
	int			nparts;
	char		key[65];

	if (base == NULL || strncmp(base + 1, "index-manifest-", 15) != 0 || !ts_mcache_wanted(path) ||
		(nparts = oo->cache_key(fs, path, parts)) == 0)
		return;
	ts_mcache_entry_name(parts, nparts, key);
	if (memo_data != NULL && strcmp(key, memo_key) == 0)
		return;
	memo_set(key, data, len);
}

/* The object store that reads path through fs, or NULL (local, unknown). */
static const fs_object_ops *
object_ops_for(const ts_fs *fs, const char *path)
{
	const ts_fs_ops *ops = fs_ops_for(fs, path);

	return ops ? ops->object : NULL;
}

int
fs_object_cache_key(const ts_fs *fs, const char *path, const char *parts[8])
{
	const fs_object_ops *oo = object_ops_for(fs, path);

	return oo ? oo->cache_key(fs, path, parts) : 0;
}

bool
ts_fs_cache_lookup(ts_fs *fs, const char *path, uint8_t **data, size_t *len)
{
	const char *parts[8];
	int			nparts;

	if (!ts_mcache_wanted(path) || (nparts = fs_object_cache_key(fs, path, parts)) == 0)
		return false;
	/* the memo first, as read_metadata_object: a prefetch of the object read last sends nothing */
	if (memo_data != NULL)
	{
		char		key[65];

		ts_mcache_entry_name(parts, nparts, key);
		if (strcmp(key, memo_key) == 0 && (*data = ts_malloc(memo_len + 1)) != NULL)
		{
			memcpy(*data, memo_data, memo_len + 1);
			*len = memo_len;
			return true;
		}
	}
	return ts_mcache_get(parts, nparts, data, len);
}

void
ts_fs_cache_store(ts_fs *fs, const char *path, const uint8_t *data, size_t len)
{
	const char *parts[8];
	int			nparts;

	if (ts_mcache_wanted(path) && (nparts = fs_object_cache_key(fs, path, parts)) > 0)
		ts_mcache_put(parts, nparts, data, len);
}

/* A handle of a remote object of size bytes, not read yet. */
static ts_file *
remote_file(ts_fs *fs, const char *path, int64_t size, ts_err *err)
{
	ts_file    *f = fs_file_new(fs, path, sizeof(ts_file), err);

	if (f != NULL)
	{
		f->size = size;
		f->remote = true;
	}
	return f;
}

ts_file *
fs_object_open(ts_fs *fs, const fs_object_ops *oo, const char *path, ts_err *err)
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
		memo_keep_prefetched(fs, oo, path, mem, len);
		if ((f = fs_file_new(fs, path, sizeof(ts_file), err)) != NULL)
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

		if (!read_metadata_object(fs, oo, path, &data, &len, err))
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				not_found(oo, path, err);
			return NULL;
		}
		if ((f = fs_file_new(fs, path, sizeof(ts_file), err)) == NULL)
			ts_free(data);
		else
		{
			f->size = (int64_t) len;
			f->mem = data;
			f->mem_owned = true;
		}
		return f;
	}
	/*
	 * The size the metadata gives (a data file's manifest entry): no HEAD.
	 * Every ranged read is checked against it, so an object of another size
	 * fails its first read, naming it; a missing one too.
	 */
	if (ts_prefetch_size(fs, path, &size))
		return remote_file(fs, path, size, err);
	if (!oo->head(fs, path, &exists, &size, err))
		return NULL;
	if (!exists)
	{
		ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such %s (HTTP 404 to HEAD)",
				 path, oo->noun);
		return NULL;
	}
	return remote_file(fs, path, size, err);
}

/* One GET, no HEAD first: from a prefetched set, the metadata cache, or the store. */
bool
fs_object_read_whole(ts_fs *fs, const fs_object_ops *oo, const char *path, size_t max_bytes,
					 uint8_t **data, size_t *len, ts_err *err)
{
	const uint8_t *mem;
	size_t		mlen;
	bool		ok;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return false;
	if (ts_prefetch_find(fs, path, &mem, &mlen))
	{
		uint8_t    *buf = ts_malloc(mlen + 1);

		memo_keep_prefetched(fs, oo, path, mem, mlen);

		if (buf == NULL)
			return ts_error_nomemf(err, "reading \"%s\"", path);
		memcpy(buf, mem, mlen);
		buf[mlen] = '\0';
		*data = buf;
		*len = mlen;
	}
	else
	{
		ok = ts_mcache_wanted(path) ? read_metadata_object(fs, oo, path, data, len, err) :
			fetch(fs, oo, path, data, len, err);
		if (!ok)
		{
			if (err && err->code == TS_ERR_NOT_FOUND)
				return not_found(oo, path, err);
			return false;
		}
	}
	if (max_bytes > 0 && *len > max_bytes)
	{
		ts_free(*data);
		*data = NULL;
		return ts_error(err, TS_ERR_LIMIT, "%s \"%s\" is too large to read whole (%zu bytes, at most %zu)",
						oo->noun, path, *len, max_bytes);
	}
	return true;
}

/*
 * A path outside the scope is as good as missing.  A store that fails to
 * answer (403, 5xx after retries, no settings) gives "exists": the read
 * that follows fails with the store's error, instead of a wrong "missing".
 */
bool
fs_object_is_dir(ts_fs *fs, const fs_object_ops *oo, const char *path)
{
	char	  **names;
	int			n;
	ts_err		e = {0};

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	if (!oo->list(fs, path, true, &names, &n, &e))
		return e.code != TS_ERR_NOT_FOUND;	/* unknown: the listing that follows reports it */
	ts_free_names(names, n);
	return true;
}

bool
fs_object_is_file(ts_fs *fs, const fs_object_ops *oo, const char *path)
{
	bool		exists;
	int64_t		size;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	/* an answer that is neither yes nor no: the open that follows reports it */
	if (!oo->head(fs, path, &exists, &size, NULL))
		return true;
	return exists;
}

bool
fs_object_list(ts_fs *fs, const fs_object_ops *oo, const char *path, char ***names, int *count,
			   ts_err *err)
{
	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return false;
	return oo->list(fs, path, false, names, count, err);
}
