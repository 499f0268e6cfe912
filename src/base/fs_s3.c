/*
 * fs_s3.c - the object store of ts_fs: S3-compatible stores (s3://, s3a://,
 * oss://) through the client of ts_s3.h, under the fs's own settings.
 *
 * Owns: the requests fs_object.c reads through (HEAD, whole GET, one level
 * of listing, the cache key of the fs's store and credentials), ranged
 * reads, and several ranges coalesced and sent concurrently (started now,
 * finished later: a reader's next row group read ahead).  Opening, whole
 * reads, existence checks, listings and the metadata cache are
 * fs_object.c's; writes are fs_s3_write.c's.
 */
#include <string.h>

#include "base/fs_impl.h"

static bool
s3_owns(const char *uri)
{
	return ts_uri_is_object(uri);
}

static bool
s3_head(ts_fs *fs, const char *path, bool *exists, int64_t *size, ts_err *err)
{
	return ts_s3_head(fs_s3_of(fs), path, exists, size, err);
}

static bool
s3_get(ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	return ts_s3_read_object(fs_s3_of(fs), path, data, len, err);
}

static bool
s3_list_level(ts_fs *fs, const char *path, bool max_one, char ***names, int *count, ts_err *err)
{
	return ts_s3_list(fs_s3_of(fs), path, max_one, names, count, err);
}

/* The key of an object in the metadata cache: the store, the credentials of this fs, its URI. */
static int
s3_cache_key(const ts_fs *fs, const char *path, const char *parts[8])
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

static const fs_object_ops s3_object = {
	.noun = "object",
	.head = s3_head,
	.get = s3_get,
	.list = s3_list_level,
	.cache_key = s3_cache_key,
};

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

const ts_fs_ops ts_fs_s3_ops = {
	.name = "s3",
	/* conditional puts: a property of the store behind the endpoint, probed (check_atomic_create) */
	.caps = TS_FS_CAP_REMOTE | TS_FS_CAP_BATCH_FETCH | TS_FS_CAP_CONDITIONAL_PUT,
	.object = &s3_object,		/* open, read_whole, is_dir, is_file, list: fs_object.c */
	.owns = s3_owns,
	.pread = s3_pread,
	.pread_many_start = s3_pread_many_start,
	.pread_many_ready = s3_pread_many_ready,
	.pread_many_finish = s3_pread_many_finish,
	.pread_many_cancel = s3_pread_many_cancel,
	.writer_open = fs_s3_writer_open,
	.writer_write = fs_part_writer_write,
	.writer_finish = fs_part_writer_finish,
	.writer_abort = fs_part_writer_abort,
	.create_exclusive = fs_s3_create_exclusive,
	.put = fs_s3_put,
	.remove = fs_s3_remove,
	.check_atomic_create = fs_s3_check_atomic_create,
};
