/*
 * fs_azure.c - the Azure store of ts_fs: Azure Blob Storage and ADLS Gen2
 * (abfs://, abfss://, wasb://, wasbs://) through the Blob client of
 * ts_azure.h, under the fs's own settings (account key or SAS token,
 * endpoint).
 *
 * Owns: opening a blob (a HEAD for its size; a blob prefetched whole
 * (prefetch.c) is served from memory), ranged reads (several ranges are
 * read one by one: fs.c), whole reads under a cap, listings and existence
 * checks.  Blob URIs are confined lexically by the fs's scope (a blob store
 * has no links; abfs:// and wasb:// names of one blob compare equal).
 */
#include <stdio.h>
#include <string.h>

#include "base/fs_impl.h"
#include "base/ts_prefetch.h"

static bool
azure_owns(const char *uri)
{
	return ts_uri_is_azure(uri);
}

/* The settings requests of fs are sent with; NULL + err naming path when it has none. */
static const ts_azure_config *
settings_of(const ts_fs *fs, const char *path, ts_err *err)
{
	const ts_azure_config *cfg = fs_azure_of(fs);

	if (cfg == NULL)
		ts_error(err, TS_ERR_INVALID, "no Azure settings to read \"%s\" with", path);
	return cfg;
}

/* A GET or HEAD of path answered 404 (err says so): "could not open file", keeping the answer. */
static bool
blob_not_found(const char *path, ts_err *err)
{
	const char *answer = strstr(err->msg, "(HTTP ");
	char		status[128] = "";

	if (answer)
		snprintf(status, sizeof(status), " %s", answer);
	return ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such blob%s", path, status);
}

static ts_file *
azure_open(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_azure_config *cfg;
	const uint8_t *mem;
	size_t		len;
	bool		exists;
	int64_t		size;
	ts_file    *f;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, err))
		return NULL;
	if (ts_prefetch_find(fs, path, &mem, &len))
	{
		/* fetched whole already (prefetch.c): no request, reads are copies */
		if ((f = fs_file_new(fs, path, sizeof(ts_file), err)) != NULL)
		{
			f->size = (int64_t) len;
			f->mem = mem;
		}
		return f;
	}
	if ((cfg = settings_of(fs, path, err)) == NULL ||
		!ts_azure_head(cfg, path, &exists, &size, err))
		return NULL;
	if (!exists)
	{
		ts_error(err, TS_ERR_NOT_FOUND, "could not open file \"%s\": no such blob (HTTP 404 to HEAD)",
				 path);
		return NULL;
	}
	if ((f = fs_file_new(fs, path, sizeof(ts_file), err)) != NULL)
	{
		f->size = size;
		f->remote = true;
	}
	return f;
}

static bool
azure_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	const ts_azure_config *cfg = settings_of(f->fs, f->path, err);

	return cfg != NULL && ts_azure_read_range(cfg, f->path, buf, len, offset, f->size, err);
}

/* One GET, no HEAD first: from a prefetched set or the store (its cap: ts_s3_whole_cap). */
static bool
azure_read_whole(ts_fs *fs, const char *path, size_t max_bytes, uint8_t **data, size_t *len,
				 ts_err *err)
{
	const ts_azure_config *cfg;
	const uint8_t *mem;
	size_t		mlen;

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
	else if ((cfg = settings_of(fs, path, err)) == NULL)
		return false;
	else if (!ts_azure_read_object(cfg, path, data, len, err))
	{
		if (err && err->code == TS_ERR_NOT_FOUND)
			return blob_not_found(path, err);
		return false;
	}
	if (max_bytes > 0 && *len > max_bytes)
	{
		ts_free(*data);
		*data = NULL;
		return ts_error(err, TS_ERR_LIMIT, "blob \"%s\" is too large to read whole (%zu bytes, at most %zu)",
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
azure_is_dir(ts_fs *fs, const char *path)
{
	const ts_azure_config *cfg = fs_azure_of(fs);
	char	  **names;
	int			n;
	ts_err		e = {0};

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	if (cfg == NULL)
		return true;			/* the listing that follows reports it */
	if (!ts_azure_list(cfg, path, true, &names, &n, &e))
		return e.code != TS_ERR_NOT_FOUND;
	ts_free_names(names, n);
	return true;
}

static bool
azure_is_file(ts_fs *fs, const char *path)
{
	const ts_azure_config *cfg = fs_azure_of(fs);
	bool		exists;
	int64_t		size;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return false;
	/* an answer that is neither yes nor no: the open that follows reports it */
	if (cfg == NULL || !ts_azure_head(cfg, path, &exists, &size, NULL))
		return true;
	return exists;
}

static bool
azure_list(ts_fs *fs, const char *path, char ***names, int *count, ts_err *err)
{
	const ts_azure_config *cfg;

	if (!ts_scope_allows_name(fs_scope_of(fs), path, err) ||
		(cfg = settings_of(fs, path, err)) == NULL)
		return false;
	return ts_azure_list(cfg, path, false, names, count, err);
}

static void
azure_close(ts_file *f)
{
	(void) f;					/* no descriptor: requests hold nothing between reads */
}

const ts_fs_ops ts_fs_azure_ops = {
	.name = "azure",
	/* Put Blob with If-None-Match: * (ts_azure_put_if_absent) */
	.caps = TS_FS_CAP_REMOTE | TS_FS_CAP_CONDITIONAL_PUT,
	.owns = azure_owns,
	.open = azure_open,
	.pread = azure_pread,
	/* several ranges: fs.c reads them one by one */
	.read_whole = azure_read_whole,
	.is_dir = azure_is_dir,
	.is_file = azure_is_file,
	.list = azure_list,
	.close = azure_close,
	.writer_open = fs_azure_writer_open,
	.writer_write = fs_part_writer_write,
	.writer_finish = fs_part_writer_finish,
	.writer_abort = fs_part_writer_abort,
	.create_exclusive = fs_azure_create_exclusive,
	.put = fs_azure_put,
	.remove = fs_azure_remove,
	/* no check_atomic_create: the service honours If-None-Match (TS_FS_CAP_CONDITIONAL_PUT) */
};
