/*
 * fs_s3_write.c - the write operations of the object store (fs_impl.h).
 *
 * Owns: writing objects through an fs's own settings (fs.c checked the
 * scope): a data file streamed by fs_parts.c, sent as one PUT below a part
 * (TS_S3_PART_SIZE), else as a multipart upload; the
 * exclusive create of a snapshot by a conditional PUT (an answer of 412 to
 * a retried PUT whose first answer was lost is ours when the object holds
 * exactly our bytes, as the Azure client's put-landed check); a plain PUT
 * (hints: not atomic in Java either); delete; and whether the store honours
 * "If-None-Match: *", probed once per process and endpoint and bucket.
 */
#include <stdlib.h>
#include <string.h>

#include "base/fs_impl.h"

/* One part of a multipart upload: also the largest object sent by one PUT. */
#define TS_S3_PART_SIZE ((size_t) 8 << 20)

static bool
s3_start(ts_fs *fs, const char *path, char **upload, ts_err *err)
{
	return ts_s3_multipart_start(fs_s3_of(fs), path, upload, err);
}

static bool
s3_part(ts_fs *fs, const char *path, const char *upload, int number, const void *data,
		size_t len, char **etag, ts_err *err)
{
	return ts_s3_multipart_part(fs_s3_of(fs), path, upload, number, data, len, etag, err);
}

static bool
s3_complete(ts_fs *fs, const char *path, const char *upload, char **etags, int nparts,
			ts_err *err)
{
	return ts_s3_multipart_complete(fs_s3_of(fs), path, upload, etags, nparts, err);
}

static void
s3_abort(ts_fs *fs, const char *path, const char *upload, int nparts)
{
	(void) nparts;
	ts_s3_multipart_abort(fs_s3_of(fs), path, upload);
}

static bool
s3_put_whole(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	return ts_s3_put(fs_s3_of(fs), path, data, len, false, err);
}

static const fs_part_ops s3_parts = {
	.part_size = TS_S3_PART_SIZE,
	.start = s3_start,
	.part = s3_part,
	.complete = s3_complete,
	.abort = s3_abort,
	.put = s3_put_whole,
};

ts_fs_writer *
fs_s3_writer_open(ts_fs *fs, const char *path, ts_err *err)
{
	return fs_part_writer_open(fs, path, &s3_parts, err);
}

bool
fs_s3_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_s3_config *cfg = fs_s3_of(fs);
	uint8_t    *there;
	size_t		there_len;
	bool		ours;

	if (ts_s3_put(cfg, path, data, len, true, err))
		return true;
	if (err->code != TS_ERR_EXISTS)
		return false;
	/* an earlier attempt of ours may have landed, its answer lost: ours if the bytes are */
	if (!ts_s3_read_object(cfg, path, &there, &there_len, err))
	{
		/* 409: the other writer's PUT had not landed yet; it is theirs either way */
		if (err->code == TS_ERR_NOT_FOUND)
			return ts_error(err, TS_ERR_EXISTS, "could not create \"%s\": another writer is creating it",
							path);
		return false;
	}
	ours = there_len == len && memcmp(there, data, len) == 0;
	ts_free(there);
	if (ours)
	{
		memset(err, 0, sizeof(*err));
		return true;
	}
	return ts_error(err, TS_ERR_EXISTS, "could not create \"%s\": another writer created it first", path);
}

bool
fs_s3_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	return s3_put_whole(fs, path, data, len, err);
}

bool
fs_s3_remove(ts_fs *fs, const char *path, ts_err *err)
{
	return ts_s3_delete(fs_s3_of(fs), path, err);
}

/* ---- does the store honour If-None-Match? --------------------------------- */

#define PROBES_MAX 16
static struct
{
	char	   *store;			/* endpoint + " " + bucket (malloc'd) */
	bool		honours;
}			probes[PROBES_MAX];
static int	nprobes = 0;

static void
remember(const char *store, bool honours)
{
	char	   *copy = strdup(store);

	if (copy == NULL)
		return;
	if (nprobes == PROBES_MAX)
	{
		free(probes[0].store);
		memmove(&probes[0], &probes[1], sizeof(probes[0]) * (PROBES_MAX - 1));
		nprobes--;
	}
	probes[nprobes].store = copy;
	probes[nprobes].honours = honours;
	nprobes++;
}

/*
 * Put a probe object under dir twice, conditionally: a store that honours
 * If-None-Match refuses the second (412).  The probe is removed after.
 */
static bool
probe(ts_fs *fs, const char *dir, bool *honours, ts_err *err)
{
	const ts_s3_config *cfg = fs_s3_of(fs);
	char		uuid[37];
	char	   *path;
	bool		ok;
	ts_err		ignore = {0};

	if (!ts_random_uuid(uuid, err))
		return false;
	path = ts_psprintf("%s/.tablescan-conditional-put-probe-%s", dir, uuid);
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	ok = ts_s3_put(cfg, path, uuid, strlen(uuid), true, err);
	if (ok)
	{
		*honours = !ts_s3_put(cfg, path, "x", 1, true, err);
		ok = *honours ? err->code == TS_ERR_EXISTS : true;
		if (ok)
			memset(err, 0, sizeof(*err));
		ts_s3_delete(cfg, path, &ignore);
	}
	ts_free(path);
	return ok;
}

bool
fs_s3_check_atomic_create(ts_fs *fs, const char *dir, ts_err *err)
{
	const ts_s3_config *cfg = fs_s3_of(fs);
	char	   *bucket,
			   *key,
			   *store;
	bool		honours = false,
				known = false;

	if (!ts_s3_parse_uri(dir, &bucket, &key, err))
		return false;
	store = ts_psprintf("%s %s", cfg && cfg->endpoint ? cfg->endpoint : "aws", bucket);
	ts_free(bucket);
	ts_free(key);
	if (store == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < nprobes && !known; i++)
		if (strcmp(probes[i].store, store) == 0)
		{
			known = true;
			honours = probes[i].honours;
		}
	if (!known)
	{
		if (!probe(fs, dir, &honours, err))
		{
			ts_free(store);
			return false;
		}
		remember(store, honours);
	}
	ts_free(store);
	if (honours)
		return true;
	ts_error(err, TS_ERR_UNSUPPORTED,
			 "cannot commit atomically on this store: it does not honour conditional writes (If-None-Match), checked under \"%s\"",
			 dir);
	ts_error_hint(err, "Without a conditional PUT two writers could replace each other's snapshot. Write through a REST catalog, or use a store that supports conditional writes.");
	return false;
}
