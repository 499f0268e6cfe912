/*
 * commit.c - publishing new data files as one APPEND snapshot.
 *
 * Owns Paimon's commit protocol for a plain INSERT (FileStoreCommitImpl,
 * WRITES-AND-STREAMS.md 1.3-1.7, 2.2, 2.7): per attempt, read the latest
 * snapshot L, number the files' sequence numbers (bucket -1: from 0 per
 * writer, as Java's unaware writers; fixed buckets: after the bucket's
 * live maximum; primary-key files, numbered as written, must start above
 * it) and check that no partition holds files of another bucket count;
 * write one manifest of ADD entries, a base manifest list (L's base then
 * L's delta manifests, merged as Java does: manifest_merge.c) and a delta
 * manifest list, then
 * create snapshot-<L+1> exclusively (through the table's fs: link(2)
 * locally, a conditional PUT on an object store).  When another writer created it
 * first, remove this attempt's manifests, wait (Java's RetryWaiter) and
 * try again, up to commit.max-retries; then write the LATEST hint.  Under a
 * catalog that commits (REST, commit_catalog.c) the catalog is handed the
 * snapshot instead; its "another writer first" answer is a lost race.
 * With changelog-producer input the changelog files get a manifest and a
 * changelog manifest list of their own, named by the snapshot's
 * changelogManifestList (with changelogRecordCount).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/ts_base.h"
#include "base/ts_fs_write.h"
#include "expr/predicate.h"
#include "format/avro/avro_writer.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "meta/manifest_schema.h"
#include "meta/snapshot.h"
#include "write/write_internal.h"

#define COMMIT_IDENTIFIER_BATCH INT64_MAX	/* BatchWriteBuilder.COMMIT_IDENTIFIER */

static const uint8_t empty_row[12] = {0};	/* arity 0: BE arity + 8-byte null bitset */

ts_value *
ts_write_values(ts_arena *a, int n)
{
	ts_value   *v = ts_arena_alloc(a, sizeof(ts_value) * (size_t) (n > 0 ? n : 1));

	if (v != NULL)
		memset(v, 0, sizeof(ts_value) * (size_t) (n > 0 ? n : 1));
	return v;
}

static void
bytes_value(ts_value *v, const uint8_t *p, size_t len)
{
	v->isnull = false;
	v->v.s.p = p;
	v->v.s.len = (uint32_t) len;
}

static void
text_value(ts_value *v, const char *s)
{
	bytes_value(v, (const uint8_t *) s, strlen(s));
}

/* SimpleStats {min, max, null counts (-1 = null)} as an Avro record value */
bool
ts_write_stats_value(ts_value *out, const uint8_t *min, size_t minlen, const uint8_t *max, size_t maxlen,
			const int64_t *counts, int ncounts, ts_arena *a)
{
	ts_value   *items = ts_write_values(a, 3);
	ts_value   *c = ts_write_values(a, ncounts);

	if (items == NULL || c == NULL)
		return false;
	bytes_value(&items[0], min ? min : empty_row, min ? minlen : sizeof(empty_row));
	bytes_value(&items[1], max ? max : empty_row, max ? maxlen : sizeof(empty_row));
	if (ncounts < 0)
		items[2].isnull = true;
	else
	{
		for (int i = 0; i < ncounts; i++)
		{
			c[i].isnull = counts[i] < 0;
			c[i].v.i = counts[i];
		}
		items[2].v.nested.n = ncounts;
		items[2].v.nested.items = c;
	}
	out->isnull = false;
	out->v.nested.n = 3;
	out->v.nested.items = items;
	return true;
}

/* ---- one attempt's files ------------------------------------------------- */

typedef struct attempt
{
	const ts_commit_input *in;
	ts_arena	arena;
	char		uuid[37];		/* of this attempt's meta files */
	int			counter;
	char	  **written;		/* manifests and lists (paths, ts_malloc'd) */
	int			nwritten;
	int			cap_written;
	int64_t		latest_schema_id;
} attempt;

static char *
meta_name(attempt *at, const char *kind)
{
	char		buf[128];

	snprintf(buf, sizeof(buf), "%s-%s-%d", kind, at->uuid, at->counter++);
	return ts_arena_dup(&at->arena, buf, strlen(buf) + 1);
}

/* Create <table>/manifest/<name> with bytes, remembered for a cleanup. */
static bool
store_meta(attempt *at, const char *name, const uint8_t *data, size_t len, ts_err *err)
{
	char	   *path;

	if (at->nwritten == at->cap_written)
	{
		int			cap = at->cap_written * 2 + 4;
		char	  **grown = ts_realloc(at->written, sizeof(char *) * (size_t) cap);

		if (grown == NULL)
			return ts_error_nomem(err, "a manifest");
		at->written = grown;
		at->cap_written = cap;
	}
	path = ts_psprintf("%s/manifest/%s", at->in->table_path, name);
	if (path == NULL)
		return ts_error_nomem(err, "a path");
	if (!ts_fs_create_exclusive(at->in->fs, path, data, len, err))
	{
		ts_free(path);
		return false;
	}
	at->written[at->nwritten++] = path;
	return true;
}

/* manifest_merge.c's store: a new manifest-<uuid>-<n> */
static bool
store_manifest(void *arg, const uint8_t *data, size_t len, char **name, ts_err *err)
{
	attempt    *at = arg;

	*name = meta_name(at, "manifest");
	if (*name == NULL)
		return ts_error_nomem(err, "a manifest");
	return store_meta(at, *name, data, len, err);
}

/* Encode rows with fields into <table>/manifest/<name>; *size = its bytes. */
static bool
write_avro(attempt *at, const ts_field *fields, int nfields, ts_value *const *rows, int nrows,
		   const char *name, int64_t *size, ts_err *err)
{
	ts_avro_writer *aw = ts_avro_writer_create_for_fields(fields, nfields,
														  (ts_avro_codec) at->in->manifest_codec, err);
	ts_buf		out;
	bool		ok = aw != NULL;

	ts_buf_init(&out);
	if (aw)
		ts_avro_writer_set_zstd_level(aw, at->in->manifest_zstd_level);
	for (int i = 0; ok && i < nrows; i++)
		ok = ts_avro_writer_add(aw, rows[i], err);
	ok = ok && ts_avro_writer_finish(aw, &out, err);
	if (aw)
		ts_avro_writer_free(aw);
	ok = ok && store_meta(at, name, out.data, out.len, err);
	*size = (int64_t) out.len;
	ts_buf_free(&out);
	return ok;
}

/* The ManifestFileMeta entries of <table>/manifest/<name>. */
static bool
read_list(attempt *at, const char *name, ts_manifest_file_meta **metas, int *n, ts_err *err)
{
	char	   *path = ts_psprintf("%s/manifest/%s", at->in->table_path, name);
	bool		ok;

	if (path == NULL)
		return ts_error_nomem(err, "a path");
	ok = ts_manifest_list_read(at->in->fs, path, &at->arena, metas, n, err);
	ts_free(path);
	return ok;
}

/*
 * Fixed buckets: every live file of L in a partition we write must have
 * our bucket count, and our sequence numbers start after the bucket's.
 * Unaware: from 0 per writer (one writer per partition here).
 */
static bool
number_files(attempt *at, const ts_snapshot *L, ts_err *err)
{
	const ts_commit_input *in = at->in;
	int64_t    *base = ts_arena_alloc(&at->arena, sizeof(int64_t) * (size_t) in->nfiles);

	if (base == NULL)
		return ts_error_nomem(err, "sequence numbers");
	for (int i = 0; i < in->nfiles; i++)
		base[i] = -1;
	if (in->total_buckets > 0 && L != NULL)
	{
		ts_bucket_seqs walked;
		const ts_bucket_seqs *seqs = in->known;

		/* the writer's walk, unless another writer committed since */
		if (seqs == NULL || seqs->snapshot_id != L->id)
		{
			if (!ts_bucket_seqs_walk(in->fs, in->table_path, L, &walked, err))
				return false;
			seqs = &walked;
		}
		for (int i = 0; i < in->nfiles; i++)
		{
			const ts_new_file *f = in->files[i];
			int32_t		other = ts_bucket_seqs_other_count(seqs, f->partition, f->partition_len,
														   in->total_buckets);

			if (other != 0)
			{
				if (seqs == &walked)
					ts_bucket_seqs_free(&walked);
				ts_error(err, TS_ERR_UNSUPPORTED,
						 "a partition of this table has %d buckets, the table option \"bucket\" says %d",
						 (int) other, (int) in->total_buckets);
				ts_error_hint(err, "Rescaling buckets needs an INSERT OVERWRITE in Java Paimon.");
				return false;
			}
			/* DELETE entries only remove files: their numbers stay taken */
			base[i] = ts_bucket_seqs_max(seqs, f->partition, f->partition_len, f->bucket);
		}
		if (seqs == &walked)
			ts_bucket_seqs_free(&walked);
	}
	{
		/* append files of a bucket: numbered on, in the order written */
		ts_append_numbering numbering;
		bool		ok = ts_append_numbering_init(&numbering, in->files, in->nfiles, &at->arena, err);

		for (int i = 0; ok && i < in->nfiles; i++)
		{
			ts_new_file *f = in->files[i];
			int64_t		at_row;

			if (f->numbered)
			{
				/* primary-key files carry their numbers: another writer's must stay below */
				if (base[i] >= f->min_seq)
				{
					ts_error(err, TS_ERR_IO,
							 "another writer committed into bucket %d of table \"%s\" while this transaction wrote it",
							 (int) f->bucket, in->table_path);
					ts_error_detail(err, "Its sequence numbers reach %lld; this transaction's start at %lld.",
									(long long) base[i], (long long) f->min_seq);
					ok = ts_error_hint(err, "Run the transaction again: it numbers its rows after the other writer's.");
				}
				continue;
			}
			at_row = ts_append_numbering_next(&numbering, i, err);
			ok = at_row >= 0;
			f->min_seq = base[i] + 1 + at_row;
			f->max_seq = f->min_seq + f->rows - 1;
		}
		ts_append_numbering_free(&numbering);
		return ok;
	}
}

/* The manifest of ADD entries of files[0..nfiles); fills the list entry *meta. */
static bool
write_manifest(attempt *at, ts_new_file *const *files, int nfiles, ts_value *meta, ts_err *err)
{
	const ts_commit_input *in = at->in;
	int			nfields;
	ts_field   *fields = ts_manifest_entry_fields(false, &nfields);
	ts_value  **rows = ts_arena_alloc(&at->arena, sizeof(ts_value *) * (size_t) nfiles);
	int			np = in->npartition_keys;
	ts_value   *pmin = ts_write_values(&at->arena, np);
	ts_value   *pmax = ts_write_values(&at->arena, np);
	int64_t    *pnulls = ts_arena_alloc(&at->arena, sizeof(int64_t) * (size_t) (np ? np : 1));
	int32_t		minb = INT32_MAX,
				maxb = INT32_MIN;
	char	   *name = meta_name(at, "manifest");
	int64_t		size;
	ts_buf		minrow,
				maxrow;
	ts_value   *mv;
	bool		ok;

	if (fields == NULL || rows == NULL || pmin == NULL || pmax == NULL || pnulls == NULL ||
		name == NULL)
		return ts_error_nomem(err, "a manifest");
	for (int p = 0; p < np; p++)
	{
		pnulls[p] = 0;
		pmin[p].isnull = pmax[p].isnull = true;
	}
	for (int i = 0; i < nfiles; i++)
	{
		const ts_new_file *f = files[i];
		ts_value   *r = ts_write_values(&at->arena, 6);
		ts_value   *fi = ts_write_values(&at->arena, 18);
		ts_value   *cols = ts_write_values(&at->arena, 1);

		if (r == NULL || fi == NULL || cols == NULL)
			return ts_error_nomem(err, "a manifest");
		r[0].v.i = 2;			/* _VERSION */
		r[1].v.i = 0;			/* _KIND: ADD */
		bytes_value(&r[2], f->partition, f->partition_len);
		r[3].v.i = f->bucket;
		r[4].v.i = in->total_buckets;
		r[5].v.nested.n = 18;
		r[5].v.nested.items = fi;
		text_value(&fi[0], f->name);
		fi[1].v.i = f->size;
		fi[2].v.i = f->rows;
		if (f->min_key.len > 0)
		{
			/* primary-key file: first / last key, key stats */
			bytes_value(&fi[3], f->min_key.data, f->min_key.len);
			bytes_value(&fi[4], f->max_key.data, f->max_key.len);
			ok = ts_write_stats_value(&fi[5], f->key_min_values.data, f->key_min_values.len,
							 f->key_max_values.data, f->key_max_values.len, f->key_null_counts,
							 f->nkeys, &at->arena);
		}
		else
		{
			bytes_value(&fi[3], empty_row, sizeof(empty_row));	/* _MIN_KEY */
			bytes_value(&fi[4], empty_row, sizeof(empty_row));
			ok = ts_write_stats_value(&fi[5], NULL, 0, NULL, 0, NULL, 0, &at->arena);	/* EMPTY_STATS */
		}
		if (!ok)
			return ts_error_nomem(err, "a manifest");
		if (f->stats_cols_empty)
			ok = ts_write_stats_value(&fi[6], NULL, 0, NULL, 0, NULL, 0, &at->arena);
		else
			ok = ts_write_stats_value(&fi[6], f->min_values.data, f->min_values.len, f->max_values.data,
							 f->max_values.len, f->null_counts, in->schema->nfields, &at->arena);
		if (!ok)
			return ts_error_nomem(err, "a manifest");
		fi[7].v.i = f->min_seq;
		fi[8].v.i = f->max_seq;
		fi[9].v.i = in->schema->id;
		fi[10].v.i = 0;			/* _LEVEL */
		fi[11].v.nested.n = 0;	/* _EXTRA_FILES */
		fi[11].v.nested.items = cols;
		fi[12].v.ts.millis = f->creation_millis;
		fi[13].v.i = f->delete_rows;	/* _DELETE_ROW_COUNT */
		fi[14].isnull = true;	/* _EMBEDDED_FILE_INDEX */
		fi[15].v.i = 0;			/* _FILE_SOURCE: APPEND */
		if (f->stats_cols_empty)
		{
			fi[16].v.nested.n = 0;	/* _VALUE_STATS_COLS = [] */
			fi[16].v.nested.items = cols;
		}
		else
			fi[16].isnull = true;	/* every column */
		fi[17].isnull = true;	/* _EXTERNAL_PATH */
		rows[i] = r;
		if (f->bucket < minb)
			minb = f->bucket;
		if (f->bucket > maxb)
			maxb = f->bucket;
		for (int p = 0; p < np; p++)
		{
			const ts_value *v = &f->partition_values[p];
			int			c;

			if (v->isnull)
				pnulls[p]++;
			else
			{
				if (pmin[p].isnull || (ts_value_order(in->partition_types[p], v, &pmin[p], &c) && c < 0))
					pmin[p] = *v;
				if (pmax[p].isnull || (ts_value_order(in->partition_types[p], v, &pmax[p], &c) && c > 0))
					pmax[p] = *v;
			}
		}
	}
	if (!write_avro(at, fields, nfields, rows, nfiles, name, &size, err))
		return false;

	/* its ManifestFileMeta: partition stats over full values */
	ts_buf_init(&minrow);
	ts_buf_init(&maxrow);
	ok = ts_binary_row_encode(in->partition_types, pmin, np, true, &minrow, err) &&
		ts_binary_row_encode(in->partition_types, pmax, np, true, &maxrow, err);
	mv = ts_write_values(&at->arena, 11);
	if (ok && mv != NULL)
	{
		uint8_t    *mn = ts_arena_dup(&at->arena, minrow.data, minrow.len);
		uint8_t    *mx = ts_arena_dup(&at->arena, maxrow.data, maxrow.len);

		mv[0].v.i = 2;
		text_value(&mv[1], name);
		mv[2].v.i = size;
		mv[3].v.i = nfiles;
		mv[4].v.i = 0;
		ok = mn && mx && ts_write_stats_value(&mv[5], mn, minrow.len, mx, maxrow.len, pnulls, np, &at->arena);
		mv[6].v.i = in->schema->id;
		mv[7].v.i = minb;
		mv[8].v.i = maxb;
		mv[9].v.i = 0;
		mv[10].v.i = 0;
		meta->isnull = false;
		meta->v.nested.n = 11;
		meta->v.nested.items = mv;
		if (!ok)
			ts_error_nomem(err, "a manifest list entry");
	}
	else if (ok)
		ok = ts_error_nomem(err, "a manifest list entry");
	ts_buf_free(&minrow);
	ts_buf_free(&maxrow);
	return ok;
}

/* An existing ManifestFileMeta, re-encoded unchanged. */
static bool
copy_meta(attempt *at, const ts_manifest_file_meta *m, ts_value *out)
{
	ts_value   *mv = ts_write_values(&at->arena, 11);
	const ts_simple_stats *ps = &m->partition_stats;

	if (mv == NULL)
		return false;
	mv[0].v.i = 2;
	text_value(&mv[1], m->file_name);
	mv[2].v.i = m->file_size;
	mv[3].v.i = m->num_added_files;
	mv[4].v.i = m->num_deleted_files;
	if (!ts_write_stats_value(&mv[5], ps->min_values.data, ps->min_values.len, ps->max_values.data,
					 ps->max_values.len, ps->null_counts, ps->nnull_counts, &at->arena))
		return false;
	mv[6].v.i = m->schema_id;
	mv[7].isnull = mv[8].isnull = !m->has_bucket_range;
	mv[7].v.i = m->min_bucket;
	mv[8].v.i = m->max_bucket;
	mv[9].isnull = mv[10].isnull = !m->has_level_range;
	mv[9].v.i = m->min_level;
	mv[10].v.i = m->max_level;
	out->isnull = false;
	out->v.nested.n = 11;
	out->v.nested.items = mv;
	return true;
}

/* L's base then delta manifests, merged as Java's ManifestFileMerger, as the new base list. */
static bool
write_base_list(attempt *at, const ts_snapshot *L, const char *name, int64_t *size, ts_err *err)
{
	const ts_commit_input *in = at->in;
	int			nfields;
	ts_field   *fields = ts_manifest_list_fields(&nfields);
	ts_value  **rows = NULL;
	int			nrows = 0;

	if (fields == NULL)
		return ts_error_nomem(err, "a manifest list");
	if (L != NULL)
	{
		const char *lists[2] = {L->base_manifest_list, L->delta_manifest_list};
		ts_manifest_file_meta *metas[2],
				   *all,
				   *merged;
		int			n[2],
					nmerged;
		ts_manifest_merge_ctx mc;

		for (int l = 0; l < 2; l++)
			if (!read_list(at, lists[l], &metas[l], &n[l], err))
				return false;
		all = ts_arena_alloc(&at->arena, sizeof(*all) * (size_t) (n[0] + n[1] + 1));
		if (all == NULL)
			return ts_error_nomem(err, "a manifest list");
		memcpy(all, metas[0], sizeof(*all) * (size_t) n[0]);
		memcpy(all + n[0], metas[1], sizeof(*all) * (size_t) n[1]);
		memset(&mc, 0, sizeof(mc));
		mc.fs = in->fs;
		mc.table_path = in->table_path;
		mc.partition_types = in->partition_types;
		mc.npartition_keys = in->npartition_keys;
		mc.opts = in->merge;
		mc.codec = in->manifest_codec;
		mc.zstd_level = in->manifest_zstd_level;
		mc.store = store_manifest;
		mc.store_arg = at;
		mc.arena = &at->arena;
		if (!ts_manifest_merge(&mc, all, n[0] + n[1], &merged, &nmerged, err))
			return false;
		rows = ts_arena_alloc(&at->arena, sizeof(ts_value *) * (size_t) (nmerged + 1));
		if (rows == NULL)
			return ts_error_nomem(err, "a manifest list");
		for (int m = 0; m < nmerged; m++)
		{
			ts_value   *v = ts_write_values(&at->arena, 1);

			if (v == NULL || !copy_meta(at, &merged[m], v))
				return ts_error_nomem(err, "a manifest list");
			rows[nrows++] = v->v.nested.items;
		}
	}
	return write_avro(at, fields, nfields, rows, nrows, name, size, err);
}

static bool
latest_schema_id(ts_fs *fs, const char *root, int64_t *id, ts_err *err)
{
	int64_t    *ids;
	int			n;

	if (!ts_schema_list_ids(fs, root, &ids, &n, err))
		return false;
	*id = n > 0 ? ids[n - 1] : 0;
	ts_free(ids);
	return true;
}

static int64_t
now_millis(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The snapshot JSON (version 3) of this attempt; cJSON_free it. */
static char *
snapshot_json(attempt *at, const ts_snapshot *L, int64_t id, const char *base, int64_t base_size,
			  const char *delta, int64_t delta_size, int64_t delta_records,
			  const char *changelog, int64_t changelog_size, int64_t changelog_records)
{
	cJSON	   *j = cJSON_CreateObject();
	char		uuid[37];
	char	   *text;
	ts_err		err;

	if (j == NULL)
		return NULL;
	cJSON_AddNumberToObject(j, "version", 3);
	cJSON_AddNumberToObject(j, "id", (double) id);
	cJSON_AddNumberToObject(j, "schemaId", (double) at->latest_schema_id);
	cJSON_AddStringToObject(j, "baseManifestList", base);
	cJSON_AddNumberToObject(j, "baseManifestListSize", (double) base_size);
	cJSON_AddStringToObject(j, "deltaManifestList", delta);
	cJSON_AddNumberToObject(j, "deltaManifestListSize", (double) delta_size);
	if (changelog != NULL)
	{
		cJSON_AddStringToObject(j, "changelogManifestList", changelog);
		cJSON_AddNumberToObject(j, "changelogManifestListSize", (double) changelog_size);
	}
	else
		cJSON_AddNullToObject(j, "changelogManifestList");
	if (L != NULL && L->index_manifest != NULL)
		cJSON_AddStringToObject(j, "indexManifest", L->index_manifest);
	cJSON_AddStringToObject(j, "commitUser", at->in->commit_user);
	/* Long.MAX_VALUE does not fit a double exactly: written as text */
	cJSON_AddRawToObject(j, "commitIdentifier", "9223372036854775807");
	cJSON_AddStringToObject(j, "commitKind", "APPEND");
	cJSON_AddNumberToObject(j, "timeMillis", (double) now_millis());
	cJSON_AddNumberToObject(j, "totalRecordCount",
							(double) ((L != NULL && L->total_record_count > 0 ? L->total_record_count : 0) +
									  delta_records));
	cJSON_AddNumberToObject(j, "deltaRecordCount", (double) delta_records);
	if (changelog != NULL)
		cJSON_AddNumberToObject(j, "changelogRecordCount", (double) changelog_records);
	if (L != NULL && L->has_watermark)
		cJSON_AddNumberToObject(j, "watermark", (double) L->watermark);
	cJSON_AddNumberToObject(j, "nextRowId", (double) (L != NULL && L->has_next_row_id ? L->next_row_id : 0));
	if (ts_random_uuid(uuid, &err))
		cJSON_AddStringToObject(j, "uuid", uuid);
	text = cJSON_Print(j);
	cJSON_Delete(j);
	return text;
}

/* Remove this attempt's meta files (its snapshot was not created). */
static void
attempt_cleanup(attempt *at)
{
	for (int i = 0; i < at->nwritten; i++)
	{
		ts_err		ignore;

		ts_fs_delete(at->in->fs, at->written[i], &ignore);
		ts_free(at->written[i]);
	}
	ts_free(at->written);
	at->written = NULL;
	at->nwritten = at->cap_written = 0;
	ts_arena_free(&at->arena);
}

/* One attempt: true with *done when committed, true without when lost the race. */
static bool
try_commit(attempt *at, bool *done, int64_t *snapshot_id, ts_err *err)
{
	const ts_commit_input *in = at->in;
	ts_snapshot *L = NULL;
	ts_value	delta_meta;
	ts_value   *delta_row;
	char	   *base_name,
			   *delta_name,
			   *changelog_name = NULL,
			   *json,
			   *path;
	int64_t		base_size,
				delta_size,
				changelog_size = 0,
				changelog_records = 0,
				records = 0,
				id;
	int			nfields;
	ts_field   *list_fields = ts_manifest_list_fields(&nfields);
	bool		ok;

	*done = false;
	if (list_fields == NULL)
		return ts_error_nomem(err, "a manifest list");
	if (!ts_snapshot_load_latest(in->fs, in->table_path, &L, err) ||
		!latest_schema_id(in->fs, in->table_path, &at->latest_schema_id, err))
		return false;
	id = L != NULL ? L->id + 1 : 1;
	for (int i = 0; i < in->nfiles; i++)
		records += in->files[i]->rows;
	memset(&delta_meta, 0, sizeof(delta_meta));
	base_name = meta_name(at, "manifest-list");
	delta_name = meta_name(at, "manifest-list");
	ok = base_name != NULL && delta_name != NULL;
	ok = ok && number_files(at, L, err) &&
		write_manifest(at, in->files, in->nfiles, &delta_meta, err) &&
		write_base_list(at, L, base_name, &base_size, err);
	delta_row = delta_meta.v.nested.items;
	ok = ok && write_avro(at, list_fields, nfields, &delta_row, 1, delta_name, &delta_size, err);
	/* changelog-producer input: a manifest of the changelog files and its list */
	if (ok && in->nchangelog_files > 0)
	{
		ts_value	changelog_meta;
		ts_value   *changelog_row;

		memset(&changelog_meta, 0, sizeof(changelog_meta));
		changelog_name = meta_name(at, "manifest-list");
		ok = changelog_name != NULL &&
			write_manifest(at, in->changelog_files, in->nchangelog_files, &changelog_meta, err);
		changelog_row = changelog_meta.v.nested.items;
		ok = ok && write_avro(at, list_fields, nfields, &changelog_row, 1, changelog_name,
							  &changelog_size, err);
		for (int i = 0; i < in->nchangelog_files; i++)
			changelog_records += in->changelog_files[i]->rows;
	}
	if (!ok)
	{
		ts_snapshot_free(L);
		return false;
	}
	json = snapshot_json(at, L, id, base_name, base_size, delta_name, delta_size, records,
						 changelog_name, changelog_size, changelog_records);
	if (in->catalog != NULL)
	{
		/* the catalog creates snapshot-<id> (and its hints), not this writer */
		ok = json != NULL || ts_error_nomem(err, "a snapshot");
		ok = ok && ts_commit_through_catalog(in, id, L ? L->uuid : NULL, json, done, err);
		ts_snapshot_free(L);
		cJSON_free(json);
		if (ok && *done)
			*snapshot_id = id;
		return ok;
	}
	ts_snapshot_free(L);
	path = ts_psprintf("%s/snapshot/snapshot-%lld", in->table_path, (long long) id);
	if (json == NULL || path == NULL)
	{
		cJSON_free(json);
		ts_free(path);
		return ts_error_nomem(err, "a snapshot");
	}
	/* the new files' names durable before the snapshot naming them, and it after */
	ok = ts_fs_sync_dirs(in->fs, err) &&
		ts_fs_create_exclusive(in->fs, path, json, strlen(json), err) &&
		ts_fs_sync_dirs(in->fs, err);
	ts_free(path);
	cJSON_free(json);
	if (ok)
	{
		char		hint[24];
		ts_err		ignore;

		*done = true;
		*snapshot_id = id;
		/* the hint is only a hint: readers fall back to listing */
		snprintf(hint, sizeof(hint), "%lld", (long long) id);
		path = ts_psprintf("%s/snapshot/LATEST", in->table_path);
		if (path != NULL)
			ts_fs_put_hint(in->fs, path, hint, strlen(hint), &ignore);
		ts_free(path);
		return true;
	}
	if (err->code == TS_ERR_EXISTS)
	{
		memset(err, 0, sizeof(*err));
		return true;			/* lost the race: retry */
	}
	return false;
}

bool
ts_write_commit(const ts_commit_input *in, int64_t *snapshot_id, ts_err *err)
{
	attempt		at;
	int64_t		start = ts_monotonic_us() / 1000;

	for (int retry = 0;; retry++)
	{
		bool		done;
		bool		ok;

		memset(&at, 0, sizeof(at));
		at.in = in;
		ts_arena_init(&at.arena, 64 * 1024);
		if (!ts_random_uuid(at.uuid, err))
			return false;
		ok = try_commit(&at, &done, snapshot_id, err);
		if (ok && done)
		{
			for (int i = 0; i < at.nwritten; i++)
				ts_free(at.written[i]);
			ts_free(at.written);
			ts_arena_free(&at.arena);
			return true;
		}
		attempt_cleanup(&at);
		if (!ok)
			return false;
		if (ts_commit_give_up(in, retry, ts_monotonic_us() / 1000 - start, err))
			return false;
		/* RetryWaiter: min(min * 2^retry, max) plus up to 20% jitter */
		{
			uint32_t	r = 0;
			int64_t		wait;
			struct timespec ts;

			if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t) sizeof(r))
				r = (uint32_t) now_millis();
			wait = ts_commit_retry_wait_ms(in->min_retry_wait_ms, in->max_retry_wait_ms, retry, r);
			ts.tv_sec = wait / 1000;
			ts.tv_nsec = (wait % 1000) * 1000000;
			nanosleep(&ts, NULL);
			if (!ts_check_interrupts(err))
				return false;
		}
	}
}
