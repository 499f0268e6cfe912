/*
 * fs_s3_write.c - the write operations of the object store (fs_impl.h).
 *
 * Owns: writing objects through an fs's own settings and scope: a data
 * file streamed into a buffer of one part (TS_S3_PART_SIZE) and sent as one
 * PUT when it stays below that, else as a multipart upload whose parts go
 * out as the buffer fills (memory bounded by one part per open file); the
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

typedef struct s3_writer
{
	ts_fs_writer head;
	uint8_t    *buf;			/* TS_S3_PART_SIZE bytes */
	size_t		len;
	char	   *upload_id;		/* once the object outgrew one part */
	char	  **etags;
	int			nparts;
	int			cap_parts;
} s3_writer;

/* Is path in fs's scope?  Its denial says "write". */
static bool
write_allowed(ts_fs *fs, const char *path, ts_err *err)
{
	if (ts_scope_allows_name(fs_scope_of(fs), path, NULL))
		return true;
	return fs_deny_write(path, err);
}

static void
writer_free(s3_writer *w)
{
	for (int i = 0; i < w->nparts; i++)
		ts_free(w->etags[i]);
	ts_free(w->etags);
	ts_free(w->upload_id);
	ts_free(w->buf);
	ts_free(w->head.path);
	ts_free(w);
}

ts_fs_writer *
fs_s3_writer_open(ts_fs *fs, const char *path, ts_err *err)
{
	s3_writer  *w;

	if (!write_allowed(fs, path, err))
		return NULL;
	w = ts_calloc(1, sizeof(s3_writer));
	if (w == NULL || (w->head.path = ts_strdup(path)) == NULL ||
		(w->buf = ts_malloc(TS_S3_PART_SIZE)) == NULL)
	{
		if (w)
			writer_free(w);
		ts_error_nomemf(err, "writing \"%s\"", path);
		return NULL;
	}
	w->head.fs = fs;
	return &w->head;
}

/* Send the buffer as the next part (starting the upload first). */
static bool
send_part(s3_writer *w, ts_err *err)
{
	const ts_s3_config *cfg = fs_s3_of(w->head.fs);
	char	   *etag;

	if (w->upload_id == NULL &&
		!ts_s3_multipart_start(cfg, w->head.path, &w->upload_id, err))
		return false;
	if (w->nparts == w->cap_parts)
	{
		int			cap = w->cap_parts ? w->cap_parts * 2 : 8;
		char	  **e = ts_realloc(w->etags, sizeof(char *) * (size_t) cap);

		if (e == NULL)
			return ts_error_nomemf(err, "writing \"%s\"", w->head.path);
		w->etags = e;
		w->cap_parts = cap;
	}
	if (!ts_s3_multipart_part(cfg, w->head.path, w->upload_id, w->nparts + 1, w->buf, w->len,
							  &etag, err))
		return false;
	w->etags[w->nparts++] = etag;
	w->len = 0;
	return true;
}

bool
fs_s3_writer_write(ts_fs_writer *head, const void *data, size_t len, ts_err *err)
{
	s3_writer  *w = (s3_writer *) head;
	const uint8_t *p = data;

	while (len > 0)
	{
		size_t		k = TS_S3_PART_SIZE - w->len;

		if (k > len)
			k = len;
		memcpy(w->buf + w->len, p, k);
		w->len += k;
		p += k;
		len -= k;
		head->size += (int64_t) k;
		/* a full buffer goes out once more bytes come: the last part is never empty */
		if (w->len == TS_S3_PART_SIZE && len > 0 && !send_part(w, err))
			return false;
	}
	return true;
}

void
fs_s3_writer_abort(ts_fs_writer *head)
{
	s3_writer  *w = (s3_writer *) head;

	if (w->upload_id != NULL)
		ts_s3_multipart_abort(fs_s3_of(head->fs), head->path, w->upload_id);
	writer_free(w);
}

bool
fs_s3_writer_finish(ts_fs_writer *head, ts_err *err)
{
	s3_writer  *w = (s3_writer *) head;
	const ts_s3_config *cfg = fs_s3_of(head->fs);
	bool		ok;

	if (w->upload_id == NULL)	/* all of it in the buffer: one PUT */
		ok = ts_s3_put(cfg, head->path, w->buf, w->len, false, err);
	else
		ok = send_part(w, err) &&
			ts_s3_multipart_complete(cfg, head->path, w->upload_id, w->etags, w->nparts, err);
	if (!ok)
	{
		fs_s3_writer_abort(head);
		return false;
	}
	writer_free(w);
	return true;
}

bool
fs_s3_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_s3_config *cfg = fs_s3_of(fs);
	uint8_t    *there;
	size_t		there_len;
	bool		ours;

	if (!write_allowed(fs, path, err))
		return false;
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
	return write_allowed(fs, path, err) && ts_s3_put(fs_s3_of(fs), path, data, len, false, err);
}

bool
fs_s3_remove(ts_fs *fs, const char *path, ts_err *err)
{
	return write_allowed(fs, path, err) && ts_s3_delete(fs_s3_of(fs), path, err);
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

	if (!write_allowed(fs, dir, err))
		return false;
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
