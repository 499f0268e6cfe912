/*
 * table_writer.c - a table writer: routing, data files, commit and abort.
 *
 * Owns: opening a table for writing (its latest schema; the options that
 * decide how files are written, and the refusal of what this writer cannot
 * write correctly before any file exists, are table_writer_options.c's),
 * routing each row to its partition
 * (BinaryRow of the partition values, path as FileStorePathFactory) and
 * bucket (bucket -1: bucket 0; bucket N: the bucket function over the
 * bucket key, meta/bucket.h, as the pruner computes it), and one open data
 * file per partition and bucket, rolled at target-file-size, with its
 * column statistics.  Primary-key tables buffer each bucket's records
 * (kv_writer.c) up to write-buffer-size and write them as level-0 files in
 * the KeyValue layout, sorted by key; with changelog-producer input every
 * record (and the -U of each UPDATE) also goes to changelog-<uuid>-<n>
 * files of the same bucket, as Java's MergeTreeWriter writes them.
 * A hash index finds the writer of a row's partition and bucket; at most
 * max_open_files of them hold an open file (the least recently written
 * one's is finished first).  Finished files wait in a list for the commit
 * (commit.c) or the abort, which removes them, and the directories this
 * writer created when they are left empty.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/ts_base.h"
#include "base/ts_fs_write.h"
#include "base/ts_s3.h"
#include "format/file_writer.h"
#include "format/parquet/pq_writer.h"
#include "meta/binary_row.h"
#include "meta/bucket.h"
#include "meta/partition.h"
#include "meta/snapshot.h"
#include "expr/predicate.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write/table_writer_internal.h"

/* the open file of one partition and bucket */
struct bucket_writer
{
	uint8_t    *partition;		/* BinaryRow with arity prefix */
	uint32_t	partition_len;
	ts_value   *partition_values;	/* copies, strings in values_bytes */
	ts_buf		values_bytes;
	int32_t		bucket;
	uint64_t	hash;
	char	   *dir;			/* <table>[/<data dir>]/<partition path>bucket-<b> */
	char		uuid[37];
	int			counter;
	/* the open file, if any */
	ts_fs_writer *out;
	ts_file_writer *fw;
	ts_new_file *file;
	ts_col_stats *stats;
	/* primary-key tables: records until flushed, numbered from next_seq */
	ts_kv_buffer *buf;
	int64_t		next_seq;
	ts_value   *last_key;		/* the open file's last row's key */
	bool		changelog;		/* the open file is a changelog file */
	bool		finished_by_bound;	/* its last file was finished to stay within max_open_files */
	/* in the writer's list of open files (while file != NULL) */
	bucket_writer *open_prev;	/* more recently written */
	bucket_writer *open_next;	/* less recently written */
};


/* ---- open ----------------------------------------------------------------- */

static ts_schema *
latest_schema(ts_fs *fs, const char *root, ts_err *err)
{
	int64_t    *ids;
	int			n;
	ts_schema  *s;

	if (!ts_schema_list_ids(fs, root, &ids, &n, err))
		return NULL;
	if (n == 0)
	{
		ts_free(ids);
		ts_error(err, TS_ERR_NOT_FOUND, "table \"%s\" has no schema", root);
		return NULL;
	}
	s = ts_schema_load(fs, root, ids[n - 1], err);
	ts_free(ids);
	return s;
}

ts_table_writer *
ts_table_writer_open(ts_fs *fs, const char *table_path, const ts_option *options, int noptions,
					 ts_err *err)
{
	return ts_table_writer_open_in_catalog(fs, table_path, options, noptions, NULL, err);
}

ts_table_writer *
ts_table_writer_open_in_catalog(ts_fs *fs, const char *table_path, const ts_option *options,
								int noptions, const ts_catalog_commit *cc, ts_err *err)
{
	ts_table_writer *w;

	w = ts_calloc(1, sizeof(ts_table_writer));
	if (w == NULL)
	{
		ts_fs_free(fs);
		if (cc && cc->release)
			cc->release(cc->arg);
		ts_error_nomem(err, "a table writer");
		return NULL;
	}
	if (cc)
	{
		w->catalog = *cc;
		w->has_catalog = true;
	}
	w->fs = fs;
	ts_fs_defer_dir_syncs(fs);	/* once per commit (commit.c), not per file */
	ts_buf_init(&w->scratch);
	w->options = options;
	w->noptions = noptions;
	if ((w->table_path = ts_strdup(table_path)) == NULL)
	{
		ts_error_nomem(err, "a table writer");
		goto fail;
	}
	/* nested (and newer) key columns: refused by the schema's load, bucket keys by ts_schema_bucket_keys */
	if ((w->schema = latest_schema(w->fs, table_path, err)) == NULL || !ts_table_writer_check_options(w, err))
		goto fail;
	if (!ts_partition_options_from_schema(w->schema, &w->popts, err))
		goto fail;
	w->npartition_keys = w->schema->npartition_keys;
	{
		int			np = w->npartition_keys > 0 ? w->npartition_keys : 1;
		int			nb = w->nbucket_keys > 0 ? w->nbucket_keys : 1;

		w->partition_fields = ts_calloc((size_t) np, sizeof(int));
		w->partition_types = ts_calloc((size_t) np, sizeof(ts_type *));
		w->partition_names = ts_calloc((size_t) np, sizeof(char *));
		w->partition_values = ts_calloc((size_t) np, sizeof(ts_value));
		w->bucket_key_types = ts_calloc((size_t) nb, sizeof(ts_type *));
		w->bucket_key_values = ts_calloc((size_t) nb, sizeof(ts_value));
		if (!w->partition_fields || !w->partition_types || !w->partition_names ||
			!w->partition_values || !w->bucket_key_types || !w->bucket_key_values)
		{
			ts_error_nomem(err, "a table writer");
			goto fail;
		}
	}
	for (int i = 0; i < w->npartition_keys; i++)
	{
		int			f = ts_schema_field_index(w->schema, w->schema->partition_keys[i]);

		if (f < 0)
		{
			ts_error(err, TS_ERR_CORRUPT, "partition key \"%s\" is no column of the table",
					 w->schema->partition_keys[i]);
			goto fail;
		}
		w->partition_fields[i] = f;
		w->partition_types[i] = w->schema->fields[f].type;
		w->partition_names[i] = w->schema->fields[f].name;
	}
	for (int i = 0; i < w->nbucket_keys; i++)
		w->bucket_key_types[i] = w->schema->fields[w->bucket_keys[i]].type;
	return w;

fail:
	ts_table_writer_free(w);
	return NULL;
}

const ts_schema *
ts_table_writer_schema(const ts_table_writer *w)
{
	return w->schema;
}

int32_t
ts_table_writer_total_buckets(const ts_table_writer *w)
{
	return w->total_buckets;
}

bool
ts_table_writer_writes_changelog(const ts_table_writer *w)
{
	return w->changelog_input;
}

int64_t
ts_table_writer_rows(const ts_table_writer *w)
{
	return w->rows;
}

const char *
ts_table_writer_file_format(const ts_table_writer *w)
{
	return ts_file_writer_extension(&w->file_opts);
}

int
ts_table_writer_files(const ts_table_writer *w)
{
	return w->nfiles;
}

/* ---- one partition and bucket ------------------------------------------ */

static uint64_t
hash_of(const uint8_t *p, size_t n, int32_t bucket)
{
	return ts_hash_bytes(TS_HASH_SEED ^ (uint32_t) bucket, p, n);
}

void
ts_table_writer_set_max_open_files(ts_table_writer *w, int n)
{
	w->max_open_files = n > 0 ? n : 0;
}

int
ts_table_writer_open_files(const ts_table_writer *w)
{
	return w->nopen;
}

int64_t
ts_table_writer_bound_extra_files(const ts_table_writer *w)
{
	return w->bound_extra_files;
}

/* ---- the list of open files, most recently written first ---------------- */

static void
open_unlink(ts_table_writer *w, bucket_writer *bw)
{
	if (bw->open_prev)
		bw->open_prev->open_next = bw->open_next;
	else
		w->open_first = bw->open_next;
	if (bw->open_next)
		bw->open_next->open_prev = bw->open_prev;
	else
		w->open_last = bw->open_prev;
	bw->open_prev = bw->open_next = NULL;
}

static void
open_push(ts_table_writer *w, bucket_writer *bw)
{
	bw->open_prev = NULL;
	bw->open_next = w->open_first;
	if (w->open_first)
		w->open_first->open_prev = bw;
	else
		w->open_last = bw;
	w->open_first = bw;
}

/* bw (with an open file) was written to: first in the list */
static void
open_touch(ts_table_writer *w, bucket_writer *bw)
{
	if (w->open_first != bw)
	{
		open_unlink(w, bw);
		open_push(w, bw);
	}
}

static bool
sink_to_file(void *arg, const void *data, size_t len, ts_err *err)
{
	return ts_fs_writer_write((ts_fs_writer *) arg, data, len, err);
}

/* Local wall-clock millis stored as if UTC, as Java's LocalDateTime.now(). */
static int64_t
creation_millis(void)
{
	struct timespec ts;
	struct tm	tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	return ((int64_t) ts.tv_sec + tm.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

/* The fields of a data file: the table's, or the KeyValue layout's. */
static const ts_field *
file_fields(const ts_table_writer *w, int *n)
{
	if (w->kv != NULL)
		return ts_kv_layout_fields(w->kv, n);
	*n = w->schema->nfields;
	return w->schema->fields;
}

/*
 * The commit must be atomic (by the store, unless a catalog commits):
 * known before the first file is written, not
 * when the writer opens, so that EXPLAIN and a statement that writes no
 * row never probe the store (an object store's probe writes an object).
 */
static bool
check_atomic(ts_table_writer *w, ts_err *err)
{
	char	   *snapshot_dir;
	bool		ok;

	if (w->atomic_checked || w->has_catalog)
		return true;			/* a catalog's commit endpoint is the commit point */
	if ((snapshot_dir = ts_path_join(w->table_path, "snapshot")) == NULL)
		return ts_error_nomem(err, "a table writer");
	ok = ts_fs_check_atomic_create(w->fs, snapshot_dir, err);
	ts_free(snapshot_dir);
	w->atomic_checked = ok;
	return ok;
}

static bool close_file(ts_table_writer *w, bucket_writer *bw, ts_err *err);
static void free_file(ts_new_file *f);
static void free_stats(ts_col_stats *st, int n);

static bool
open_file(ts_table_writer *w, bucket_writer *bw, ts_err *err)
{
	ts_new_file *f;
	int			n;
	const ts_field *fields = file_fields(w, &n);
	int			nkeys = w->kv ? ts_kv_layout_nkeys(w->kv) : 0;

	if (!check_atomic(w, err))
		return false;
	/* at the bound: the least recently written file is finished first */
	if (w->max_open_files > 0 && w->nopen >= w->max_open_files && w->open_last != NULL)
	{
		bucket_writer *lru = w->open_last;

		if (!close_file(w, lru, err))
			return false;
		lru->finished_by_bound = true;
	}
	/* a bucket whose file the bound finished gets another: one file more than its rows needed */
	if (bw->finished_by_bound)
	{
		w->bound_extra_files++;
		bw->finished_by_bound = false;
	}
	f = ts_calloc(1, sizeof(ts_new_file));
	if (f == NULL || (bw->stats = ts_calloc((size_t) (n ? n : 1), sizeof(ts_col_stats))) == NULL)
	{
		ts_free(f);
		return ts_error_nomem(err, "a data file");
	}
	ts_buf_init(&f->min_values);
	ts_buf_init(&f->max_values);
	ts_buf_init(&f->min_key);
	ts_buf_init(&f->max_key);
	ts_buf_init(&f->key_min_values);
	ts_buf_init(&f->key_max_values);
	/* key columns: truncate(128) as Java's; _SEQUENCE_NUMBER, _VALUE_KIND: none */
	for (int i = 0; i < n; i++)
		ts_col_stats_init(&bw->stats[i], fields[i].type,
						  i < nkeys ? TS_STATS_TRUNCATE : i < nkeys + 2 && w->kv ? TS_STATS_NONE : w->stats_mode,
						  i < nkeys ? 128 : w->stats_truncate);
	/* data and changelog files share the uuid and counter (Java's DataFilePathFactory) */
	f->name = ts_psprintf("%s%s-%d.%s", bw->changelog ? w->changelog_prefix : w->data_prefix,
						  bw->uuid, bw->counter++,
						  ts_file_writer_extension(&w->file_opts));
	f->path = f->name ? ts_psprintf("%s/%s", bw->dir, f->name) : NULL;
	if (f->path == NULL)
	{
		ts_error_nomem(err, "a data file");
		goto fail;
	}
	f->partition = bw->partition;
	f->partition_len = bw->partition_len;
	f->partition_values = bw->partition_values;
	f->bucket = bw->bucket;
	f->numbered = w->kv != NULL;
	f->min_seq = INT64_MAX;
	f->max_seq = INT64_MIN;
	bw->out = ts_fs_writer_open(w->fs, f->path, err);
	if (bw->out == NULL)
		goto fail;
	bw->fw = ts_file_writer_create(&w->file_opts, fields, n, sink_to_file, bw->out, err);
	if (bw->fw == NULL)
		goto fail;
	bw->file = f;
	open_push(w, bw);
	w->nopen++;
	return true;

fail:
	/* nothing half open stays behind: a later flush finishes only whole files */
	if (bw->out != NULL)
		ts_fs_writer_abort(bw->out);
	bw->out = NULL;
	free_stats(bw->stats, n);
	bw->stats = NULL;
	free_file(f);
	return false;
}

static bool
keep_file(ts_table_writer *w, ts_new_file *f, bool changelog, ts_err *err)
{
	ts_new_file ***files = changelog ? &w->changelog_files : &w->files;
	int		   *n = changelog ? &w->nchangelog_files : &w->nfiles;
	int		   *cap_files = changelog ? &w->cap_changelog_files : &w->cap_files;

	if (*n == *cap_files)
	{
		int			cap = *cap_files ? *cap_files * 2 : 16;
		ts_new_file **nf = ts_realloc(*files, sizeof(ts_new_file *) * (size_t) cap);

		if (nf == NULL)
			return ts_error_nomem(err, "the list of data files");
		*files = nf;
		*cap_files = cap;
	}
	(*files)[(*n)++] = f;
	return true;
}

/* Remember path as possibly stored (see unsure); best effort. */
static void
remember_unsure(ts_table_writer *w, const char *path)
{
	char	   *copy;

	if (w->nunsure == w->cap_unsure)
	{
		int			cap = w->cap_unsure ? w->cap_unsure * 2 : 4;
		char	  **grown = ts_realloc(w->unsure, sizeof(char *) * (size_t) cap);

		if (grown == NULL)
			return;
		w->unsure = grown;
		w->cap_unsure = cap;
	}
	if ((copy = ts_strdup(path)) != NULL)
		w->unsure[w->nunsure++] = copy;
}

static void
free_stats(ts_col_stats *st, int n)
{
	if (st == NULL)
		return;
	for (int i = 0; i < n; i++)
		ts_col_stats_free(&st[i]);
	ts_free(st);
}

static void
free_file(ts_new_file *f)
{
	if (f == NULL)
		return;
	ts_free(f->name);
	ts_free(f->path);
	ts_buf_free(&f->min_values);
	ts_buf_free(&f->max_values);
	ts_free(f->null_counts);
	ts_buf_free(&f->min_key);
	ts_buf_free(&f->max_key);
	ts_buf_free(&f->key_min_values);
	ts_buf_free(&f->key_max_values);
	ts_free(f->key_null_counts);
	ts_free(f);
}

/* Finish the open file of bw: footer, stats, rename to its name. */
static bool
close_file(ts_table_writer *w, bucket_writer *bw, ts_err *err)
{
	ts_new_file *f = bw->file;
	int			n = w->schema->nfields;
	int			nfile;
	int			nkeys = w->kv ? ts_kv_layout_nkeys(w->kv) : 0;
	int			skip = w->kv ? nkeys + 2 : 0;	/* value stats: the table's columns */
	bool		ok;

	if (f == NULL)
		return true;
	open_unlink(w, bw);
	w->nopen--;
	(void) file_fields(w, &nfile);
	f->rows = ts_file_writer_rows(bw->fw);
	f->null_counts = ts_calloc((size_t) (n ? n : 1), sizeof(int64_t));
	ok = f->null_counts != NULL || ts_error_nomem(err, "column statistics");
	if (ok && w->kv != NULL)
	{
		/* _MAX_KEY, _KEY_STATS (first key: written with the first row) */
		f->nkeys = nkeys;
		f->key_null_counts = ts_calloc((size_t) (nkeys ? nkeys : 1), sizeof(int64_t));
		ok = f->key_null_counts != NULL || ts_error_nomem(err, "key statistics");
		ok = ok && ts_kv_key_row(w->kv, bw->last_key, &f->max_key, err) &&
			ts_col_stats_encode(bw->stats, nkeys, &f->key_min_values, &f->key_max_values,
								f->key_null_counts, err);
	}
	ok = ok && ts_file_writer_finish(bw->fw, err);
	if (ok)
		f->size = ts_fs_writer_size(bw->out);
	ts_file_writer_free(bw->fw);
	bw->fw = NULL;
	ok = ok && ts_col_stats_encode(bw->stats + skip, n, &f->min_values, &f->max_values, f->null_counts, err);
	f->stats_cols_empty = w->stats_mode == TS_STATS_NONE;
	f->creation_millis = creation_millis();
	free_stats(bw->stats, nfile);
	bw->stats = NULL;
	if (ok)
	{
		ok = ts_fs_writer_finish(bw->out, err);
		bw->out = NULL;
		if (!ok)
			remember_unsure(w, f->path);
	}
	if (!ok)
	{
		ts_fs_writer_abort(bw->out);
		bw->out = NULL;
		bw->file = NULL;
		free_file(f);
		return false;
	}
	bw->file = NULL;
	if (!keep_file(w, f, bw->changelog, err))
	{
		ts_err		ignore;

		ts_fs_delete(w->fs, f->path, &ignore);
		free_file(f);
		return false;
	}
	return true;
}

/* the key writer_for looks for */
typedef struct writer_key
{
	const ts_table_writer *w;
	int32_t		bucket;
} writer_key;

static bool
writer_is(void *arg, int32_t pos)
{
	const writer_key *k = arg;
	const bucket_writer *bw = k->w->writers[pos];

	return bw->bucket == k->bucket && bw->partition_len == k->w->scratch.len &&
		memcmp(bw->partition, k->w->scratch.data, k->w->scratch.len) == 0;
}

/* The writer of (partition row in w->scratch, bucket), made if new. */
static bucket_writer *
writer_for(ts_table_writer *w, int32_t bucket, ts_err *err)
{
	uint64_t	h = hash_of(w->scratch.data, w->scratch.len, bucket);
	writer_key	key = {w, bucket};
	bucket_writer *bw;
	char	   *ppath;
	int32_t		pos;

	/* rows of one partition tend to come together: the last one first */
	if (w->last_writer != NULL && w->last_writer->hash == h &&
		writer_is(&key, w->last_writer_pos))
		return w->last_writer;
	pos = ts_hash_index_find(&w->writer_index, h, writer_is, &key);
	if (pos >= 0)
	{
		w->last_writer = w->writers[pos];
		w->last_writer_pos = pos;
		return w->last_writer;
	}
	if (w->nwriters == INT32_MAX)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "too many partitions and buckets in one write");
		return NULL;
	}
	if (w->nwriters == w->cap_writers)
	{
		int			cap = w->cap_writers ? w->cap_writers * 2 : 8;
		bucket_writer **nw = ts_realloc(w->writers, sizeof(bucket_writer *) * (size_t) cap);

		if (nw == NULL)
		{
			ts_error_nomem(err, "a bucket writer");
			return NULL;
		}
		w->writers = nw;
		w->cap_writers = cap;
	}
	bw = ts_calloc(1, sizeof(bucket_writer));
	if (bw == NULL)
	{
		ts_error_nomem(err, "a bucket writer");
		return NULL;
	}
	w->writers[w->nwriters++] = bw;
	ts_buf_init(&bw->values_bytes);
	bw->bucket = bucket;
	bw->hash = h;
	bw->partition_len = (uint32_t) w->scratch.len;
	bw->partition = ts_malloc(w->scratch.len);
	bw->partition_values = ts_calloc((size_t) (w->npartition_keys ? w->npartition_keys : 1),
									 sizeof(ts_value));
	if (bw->partition == NULL || bw->partition_values == NULL)
	{
		ts_error_nomem(err, "a bucket writer");
		return NULL;
	}
	memcpy(bw->partition, w->scratch.data, w->scratch.len);
	/* partition values: string bytes copied first, pointers set after (no realloc moves) */
	for (int i = 0; i < w->npartition_keys; i++)
	{
		const ts_value *v = &w->partition_values[i];

		if (!v->isnull && ts_type_is_bytes(w->partition_types[i]->kind) &&
			!ts_buf_append(&bw->values_bytes, v->v.s.p, v->v.s.len, err))
			return NULL;
	}
	{
		size_t		off = 0;

		for (int i = 0; i < w->npartition_keys; i++)
		{
			bw->partition_values[i] = w->partition_values[i];
			if (!bw->partition_values[i].isnull && ts_type_is_bytes(w->partition_types[i]->kind))
			{
				bw->partition_values[i].v.s.p = bw->values_bytes.data + off;
				off += bw->partition_values[i].v.s.len;
			}
		}
	}
	ppath = ts_partition_path(w->partition_names, w->partition_types, w->partition_values,
							  w->npartition_keys, &w->popts, err);
	if (ppath == NULL)
		return NULL;
	/* <table>[/<data-file.path-directory>]/<partition path>bucket-<b>, where readers look */
	bw->dir = ts_psprintf("%s/%s%s%sbucket-%d", w->table_path, w->data_dir ? w->data_dir : "",
						  w->data_dir ? "/" : "", ppath, (int) bucket);
	ts_free(ppath);
	if (bw->dir == NULL)
	{
		ts_error_nomem(err, "a bucket writer");
		return NULL;
	}
	/* indexed once whole: one that failed half made stays in writers, unfound, to be freed */
	if (!ts_random_uuid(bw->uuid, err) ||
		!ts_hash_index_add(&w->writer_index, h, w->nwriters - 1, err))
		return NULL;
	w->last_writer = bw;
	w->last_writer_pos = w->nwriters - 1;
	return bw;
}

/* One row into the open data file of bw (rolled at target-file-size). */
static bool
write_row(ts_table_writer *w, bucket_writer *bw, const ts_value *row, ts_err *err)
{
	int			n;

	(void) file_fields(w, &n);
	if (bw->file == NULL)
	{
		if (!open_file(w, bw, err))
			return false;
	}
	else
		open_touch(w, bw);
	for (int i = 0; i < n; i++)
		if (!ts_col_stats_add(&bw->stats[i], &row[i], err))
			return false;
	if (w->kv != NULL)
	{
		int			nkeys = ts_kv_layout_nkeys(w->kv);
		int64_t		seq = row[nkeys].v.i;
		int64_t		kind = row[nkeys + 1].v.i;

		if (bw->file->min_seq == INT64_MAX &&
			!ts_kv_key_row(w->kv, row, &bw->file->min_key, err))
			return false;
		memcpy(bw->last_key, row, sizeof(ts_value) * (size_t) nkeys);
		if (seq < bw->file->min_seq)
			bw->file->min_seq = seq;
		if (seq > bw->file->max_seq)
			bw->file->max_seq = seq;
		if (kind == TS_ROW_UPDATE_BEFORE || kind == TS_ROW_DELETE)
			bw->file->delete_rows++;
	}
	if (!ts_file_writer_add(bw->fw, row, err))
		return false;
	if (ts_file_writer_bytes(bw->fw) >= w->target_file_size)
		return close_file(w, bw, err);
	return true;
}

/* The buffered records of bw as level-0 files: one per layer (and roll). */
static bool
flush_bucket(ts_table_writer *w, bucket_writer *bw, ts_err *err)
{
	if (bw->buf == NULL || ts_kv_buffer_count(bw->buf) == 0)
		return true;
	ts_kv_buffer_sort(bw->buf);
	for (int layer = 0; layer < ts_kv_buffer_layers(bw->buf); layer++)
	{
		int			pos = 0;
		const ts_value *row;

		while ((row = ts_kv_buffer_next(bw->buf, layer, &pos)) != NULL)
			if (!ts_check_interrupts(err) || !write_row(w, bw, row, err))
				return false;
		if (!close_file(w, bw, err))
			return false;
	}
	if (w->changelog_input)
	{
		/* every record, -U included, as changelog files (MergeTreeWriter) */
		int			pos = 0;
		const ts_value *row;

		bw->changelog = true;
		while ((row = ts_kv_buffer_next(bw->buf, TS_KV_ALL_RECORDS, &pos)) != NULL)
			if (!ts_check_interrupts(err) || !write_row(w, bw, row, err))
				return false;
		if (!close_file(w, bw, err))
			return false;
		bw->changelog = false;
	}
	ts_kv_buffer_reset(bw->buf);
	return true;
}

/* A primary-key record, numbered, into its bucket's buffer (flushed when full). */
static bool
buffer_row(ts_table_writer *w, bucket_writer *bw, const ts_value *values, ts_row_kind kind,
		   const ts_value *old_values, ts_err *err)
{
	size_t		before;

	if (bw->buf == NULL)
	{
		if (!ts_kv_first_seq(w->kv, w->fs, w->table_path, bw->partition, bw->partition_len,
							 bw->bucket, &bw->next_seq, err))
			return false;
		bw->buf = ts_kv_buffer_create(w->kv, err);
		bw->last_key = ts_calloc((size_t) (ts_kv_layout_nkeys(w->kv) + 1), sizeof(ts_value));
		if (bw->buf == NULL || bw->last_key == NULL)
			return bw->buf == NULL ? false : ts_error_nomem(err, "a primary-key writer");
	}
	before = ts_kv_buffer_bytes(bw->buf);
	/* the changelog of an UPDATE: -U (the row replaced), then +U */
	if (w->changelog_input && old_values != NULL &&
		!ts_kv_buffer_add(bw->buf, old_values, TS_ROW_UPDATE_BEFORE, bw->next_seq++, err))
		return false;
	if (!ts_kv_buffer_add(bw->buf, values, kind, bw->next_seq++, err))
		return false;
	w->buffered += ts_kv_buffer_bytes(bw->buf) - before;
	if ((int64_t) w->buffered < w->write_buffer_size)
		return true;
	/* full: every bucket's records to files (Java flushes its one shared buffer) */
	w->buffered = 0;
	for (int i = 0; i < w->nwriters; i++)
	{
		if (!flush_bucket(w, w->writers[i], err))
			return false;
		if (w->writers[i]->buf != NULL)
			w->buffered += ts_kv_buffer_bytes(w->writers[i]->buf);
	}
	return true;
}

static bool
add_row(ts_table_writer *w, const ts_value *values, ts_row_kind kind, const ts_value *old_values,
		ts_err *err)
{
	int32_t		bucket = 0;
	bucket_writer *bw;

	/* no partition, no bucket key: every row goes to the one writer */
	if (w->npartition_keys == 0 && w->total_buckets <= 0 && w->nwriters == 1)
	{
		w->rows++;
		if (w->kv != NULL)
			return buffer_row(w, w->writers[0], values, kind, old_values, err);
		return write_row(w, w->writers[0], values, err);
	}
	/* partition */
	for (int i = 0; i < w->npartition_keys; i++)
		w->partition_values[i] = values[w->partition_fields[i]];
	ts_buf_reset(&w->scratch);
	if (!ts_binary_row_encode(w->partition_types, w->partition_values, w->npartition_keys, true,
							  &w->scratch, err))
		return false;
	/* bucket */
	if (w->total_buckets > 0)
	{
		for (int i = 0; i < w->nbucket_keys; i++)
			w->bucket_key_values[i] = values[w->bucket_keys[i]];
		if (!ts_bucket_compute(w->bucket_fn, w->bucket_key_types, w->bucket_key_values,
							   w->nbucket_keys, w->total_buckets, &bucket, err))
			return false;
	}
	bw = writer_for(w, bucket, err);
	if (bw == NULL)
		return false;
	w->rows++;
	if (w->kv != NULL)
		return buffer_row(w, bw, values, kind, old_values, err);
	return write_row(w, bw, values, err);
}

bool
ts_table_writer_add(ts_table_writer *w, const ts_value *values, ts_err *err)
{
	return add_row(w, values, TS_ROW_INSERT, NULL, err);
}

bool
ts_table_writer_check_kind(const ts_table_writer *w, ts_row_kind kind, ts_err *err)
{
	if (w->kv == NULL)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "%s on an append table (no primary key) is not supported",
				 kind == TS_ROW_DELETE ? "DELETE" : "UPDATE");
		return ts_error_hint(err, "Rows of an append table cannot be identified; only primary-key tables take UPDATE and DELETE.");
	}
	return ts_kv_check_kind(w->kv, kind, err);
}

bool
ts_table_writer_add_change(ts_table_writer *w, ts_row_kind kind, const ts_value *values,
						   const ts_value *old_values, ts_err *err)
{
	if (!ts_table_writer_check_kind(w, kind, err))
		return false;
	if (old_values != NULL)
	{
		if (!ts_kv_check_update(w->kv, values, old_values, err))
			return false;
		for (int i = 0; i < w->npartition_keys; i++)
		{
			const ts_value *a = &values[w->partition_fields[i]],
					   *b = &old_values[w->partition_fields[i]];
			int			c = 0;

			if (a->isnull != b->isnull ||
				(!a->isnull && (!ts_value_order(w->partition_types[i], a, b, &c) || c != 0)))
			{
				ts_error(err, TS_ERR_UNSUPPORTED, "an UPDATE that changes partition key \"%s\" is not supported",
						 w->partition_names[i]);
				return ts_error_hint(err, "DELETE the row and INSERT it into its new partition.");
			}
		}
	}
	return add_row(w, values, kind, old_values, err);
}

bool
ts_table_writer_flush(ts_table_writer *w, ts_err *err)
{
	for (int i = 0; i < w->nwriters; i++)
		if (!flush_bucket(w, w->writers[i], err) || !close_file(w, w->writers[i], err))
			return false;
	w->buffered = 0;
	return true;
}

ts_new_file *const *
ts_table_writer_finished(const ts_table_writer *w, int *n)
{
	*n = w->nfiles;
	return w->files;
}

bool
ts_table_writer_commit(ts_table_writer *w, const char *commit_user, int64_t *snapshot_id,
					   ts_err *err)
{
	ts_commit_input in;

	*snapshot_id = 0;
	if (!ts_table_writer_flush(w, err))
		return false;
	if (w->nfiles == 0)
		return true;
	memset(&in, 0, sizeof(in));
	in.table_path = w->table_path;
	in.fs = w->fs;
	in.schema = w->schema;
	in.total_buckets = w->total_buckets;
	in.partition_types = w->partition_types;
	in.npartition_keys = w->npartition_keys;
	in.files = w->files;
	in.nfiles = w->nfiles;
	in.changelog_files = w->changelog_files;
	in.nchangelog_files = w->nchangelog_files;
	in.max_retries = w->max_retries;
	in.min_retry_wait_ms = w->min_retry_wait_ms;
	in.max_retry_wait_ms = w->max_retry_wait_ms;
	in.timeout_ms = w->commit_timeout_ms;
	in.merge = w->merge;
	in.manifest_codec = w->manifest_codec;
	in.manifest_zstd_level = w->manifest_zstd_level;
	in.commit_user = commit_user;
	in.catalog = w->has_catalog ? &w->catalog : NULL;
	in.known = w->kv != NULL ? ts_kv_bucket_seqs(w->kv) : NULL;
	if (!ts_write_commit(&in, snapshot_id, err))
		return false;
	/* committed: the files (and their directories) belong to the table now */
	ts_fs_forget_created_dirs(w->fs);
	for (int i = 0; i < w->nfiles; i++)
		free_file(w->files[i]);
	w->nfiles = 0;
	for (int i = 0; i < w->nchangelog_files; i++)
		free_file(w->changelog_files[i]);
	w->nchangelog_files = 0;
	return true;
}

static void
free_writers(ts_table_writer *w, bool remove_files)
{
	for (int i = 0; i < w->nwriters; i++)
	{
		bucket_writer *bw = w->writers[i];

		if (bw == NULL)
			continue;
		int			nfile = 0;

		if (w->schema != NULL)
			(void) file_fields(w, &nfile);
		ts_file_writer_free(bw->fw);
		ts_fs_writer_abort(bw->out);
		free_file(bw->file);
		free_stats(bw->stats, nfile);
		ts_kv_buffer_free(bw->buf);
		ts_free(bw->last_key);
		ts_free(bw->partition);
		ts_free(bw->partition_values);
		ts_buf_free(&bw->values_bytes);
		ts_free(bw->dir);
		ts_free(bw);
	}
	w->nwriters = 0;
	ts_hash_index_free(&w->writer_index);
	w->last_writer = NULL;
	w->open_first = w->open_last = NULL;
	w->nopen = 0;
	for (int i = 0; i < w->nfiles; i++)
	{
		ts_err		ignore;

		if (remove_files)
			ts_fs_delete(w->fs, w->files[i]->path, &ignore);
		free_file(w->files[i]);
	}
	w->nfiles = 0;
	for (int i = 0; i < w->nchangelog_files; i++)
	{
		ts_err		ignore;

		if (remove_files)
			ts_fs_delete(w->fs, w->changelog_files[i]->path, &ignore);
		free_file(w->changelog_files[i]);
	}
	w->nchangelog_files = 0;
	for (int i = 0; i < w->nunsure; i++)
	{
		ts_err		ignore;

		ts_fs_delete(w->fs, w->unsure[i], &ignore);
		ts_free(w->unsure[i]);
	}
	ts_free(w->unsure);
	w->unsure = NULL;
	w->nunsure = w->cap_unsure = 0;
	/* files removed: the directories this write created, if that left them empty */
	if (remove_files && w->fs != NULL)
		ts_fs_remove_created_dirs(w->fs);
}

void
ts_table_writer_abort(ts_table_writer *w)
{
	if (w == NULL)
		return;
	free_writers(w, true);
	ts_table_writer_free(w);
}

void
ts_table_writer_free(ts_table_writer *w)
{
	if (w == NULL)
		return;
	free_writers(w, true);		/* files of a failed commit: never referenced */
	ts_free(w->writers);
	ts_free(w->files);
	ts_free(w->changelog_files);
	ts_free(w->bucket_keys);
	ts_free(w->bucket_key_types);
	ts_free(w->bucket_key_values);
	ts_free(w->partition_fields);
	ts_free(w->partition_types);
	ts_free(w->partition_names);
	ts_free(w->partition_values);
	ts_kv_layout_free(w->kv);
	if (w->schema)
		ts_schema_free(w->schema);
	ts_free(w->table_path);
	ts_buf_free(&w->scratch);
	ts_fs_free(w->fs);
	if (w->has_catalog && w->catalog.release)
		w->catalog.release(w->catalog.arg);
	ts_free(w);
}
