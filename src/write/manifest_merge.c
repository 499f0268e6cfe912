/*
 * manifest_merge.c - merging a snapshot's manifests into the next base
 * manifest list, as Java Paimon's ManifestFileMerger does at every commit.
 *
 * Owns: the selection rule (WRITES-AND-STREAMS.md 1.5) - a full
 * compaction when the "must change" manifests (with DELETE entries, or
 * under manifest.target-file-size) reach manifest.full-compaction-
 * threshold-size, else a minor compaction of runs of manifests that reach
 * the target size, and of the trailing run when it holds at least
 * manifest.merge-min-count manifests; cancelling the ADD and DELETE
 * entries of one data file; rewriting the chosen manifests, rolled at the
 * target size (checked every 1000 entries, as Java's RollingFileWriter);
 * and the ManifestFileMeta of each new file (counts, partition stats over
 * full values, schema id, bucket and level ranges).  The old manifests
 * stay where they are: removing them is expiration's job.
 */
#include <string.h>

#include "base/ts_base.h"
#include "expr/predicate.h"
#include "format/avro/avro_writer.h"
#include "meta/binary_row.h"
#include "meta/manifest_schema.h"
#include "write/write_internal.h"

#define ROLL_CHECK_ENTRIES 1000 /* RollingFileWriter.CHECK_ROLLING_RECORD_CNT */

/* ---- the selection rule ---------------------------------------------------- */

bool
ts_manifest_must_change(const ts_manifest_file_meta *m, const ts_manifest_merge_options *o)
{
	return m->num_deleted_files > 0 || m->file_size < o->target_size;
}

bool
ts_manifest_full_triggered(const ts_manifest_file_meta *m, int n, const ts_manifest_merge_options *o)
{
	int64_t		must = 0;

	for (int i = 0; i < n; i++)
		if (ts_manifest_must_change(&m[i], o))
			must += m[i].file_size;
	return must >= o->full_threshold;
}

int
ts_manifest_minor_plan(const ts_manifest_file_meta *m, int n, const ts_manifest_merge_options *o,
					   int *run)
{
	int			runs = 0,
				start = 0;
	int64_t		total = 0;

	for (int i = 0; i < n; i++)
	{
		total += m[i].file_size;
		run[i] = runs;
		if (total >= o->target_size)
		{
			/* a run of one is listed as it is */
			if (i == start)
				run[i] = TS_MERGE_KEEP;
			else
				runs++;
			start = i + 1;
			total = 0;
		}
	}
	/* the last bit only when there are too many */
	if (n - start >= o->min_count && n - start > 1)
		runs++;
	else
		for (int i = start; i < n; i++)
			run[i] = TS_MERGE_KEEP;
	return runs;
}

/* ---- file identifiers (FileEntry.Identifier) ------------------------------- */

static uint64_t
entry_hash(const ts_manifest_entry *e)
{
	uint64_t	h = 1469598103934665603ULL;
	const char *s = e->file.file_name;

	for (; *s; s++)
		h = (h ^ (uint8_t) *s) * 1099511628211ULL;
	for (uint32_t i = 0; i < e->partition.len; i++)
		h = (h ^ e->partition.data[i]) * 1099511628211ULL;
	h = (h ^ (uint32_t) e->bucket) * 1099511628211ULL;
	return (h ^ (uint32_t) e->file.level) * 1099511628211ULL;
}

static bool
same_file(const ts_manifest_entry *a, const ts_manifest_entry *b)
{
	return a->bucket == b->bucket && a->file.level == b->file.level &&
		a->partition.len == b->partition.len &&
		(a->partition.len == 0 || memcmp(a->partition.data, b->partition.data, a->partition.len) == 0) &&
		strcmp(a->file.file_name, b->file.file_name) == 0 &&
		((a->file.external_path == NULL && b->file.external_path == NULL) ||
		 (a->file.external_path != NULL && b->file.external_path != NULL &&
		  strcmp(a->file.external_path, b->file.external_path) == 0));
}

/*
 * Entries in insertion order with a hash of the live ones (Java's
 * LinkedHashMap); a removed entry keeps its slot, skipped by lookups.
 */
typedef struct entry_map
{
	const ts_manifest_entry **items;
	bool	   *removed;
	int			n;
	int		   *slots;			/* index + 1; 0 empty */
	int			nslots;
} entry_map;

static bool
map_init(entry_map *m, int capacity, ts_arena *a)
{
	m->nslots = 16;
	while (m->nslots < 2 * capacity + 16)
		m->nslots *= 2;
	m->items = ts_arena_alloc(a, sizeof(*m->items) * (size_t) (capacity + 1));
	m->removed = ts_arena_alloc(a, sizeof(bool) * (size_t) (capacity + 1));
	m->slots = ts_arena_alloc(a, sizeof(int) * (size_t) m->nslots);
	m->n = 0;
	if (m->items == NULL || m->removed == NULL || m->slots == NULL)
		return false;
	memset(m->slots, 0, sizeof(int) * (size_t) m->nslots);
	return true;
}

/* The index of the live entry of e's file, or -1. */
static int
map_find(const entry_map *m, const ts_manifest_entry *e)
{
	for (uint64_t s = entry_hash(e) & (uint64_t) (m->nslots - 1);; s = (s + 1) & (uint64_t) (m->nslots - 1))
	{
		int			i = m->slots[s] - 1;

		if (i < 0)
			return -1;
		if (!m->removed[i] && same_file(m->items[i], e))
			return i;
	}
}

/* Append e (capacity was given at map_init). */
static void
map_add(entry_map *m, const ts_manifest_entry *e)
{
	uint64_t	s = entry_hash(e) & (uint64_t) (m->nslots - 1);

	while (m->slots[s] != 0)
		s = (s + 1) & (uint64_t) (m->nslots - 1);
	m->items[m->n] = e;
	m->removed[m->n] = false;
	m->slots[s] = ++m->n;
}

/* FileEntry.mergeEntries: an ADD then a DELETE of one file cancel. */
static bool
map_merge(entry_map *m, const ts_manifest_entry *e, const char *manifest, ts_err *err)
{
	int			i = map_find(m, e);

	if (e->kind == TS_FILE_ADD)
	{
		if (i >= 0)
			return ts_error(err, TS_ERR_CORRUPT,
							"manifest \"%s\" adds data file \"%s\", which an earlier manifest already added",
							manifest, e->file.file_name);
		map_add(m, e);
	}
	else if (i >= 0)
		m->removed[i] = true;
	else
		map_add(m, e);
	return true;
}

/* ---- reading manifests ------------------------------------------------------ */

static bool
read_entries(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *m, ts_arena *a,
			 ts_manifest_entry **entries, int *n, ts_err *err)
{
	char	   *path = ts_psprintf("%s/manifest/%s", c->table_path, m->file_name);
	bool		ok;

	if (path == NULL)
		return ts_error_nomem(err, "a path");
	ok = ts_manifest_read_expect(c->fs, path, m->num_added_files + m->num_deleted_files, a,
								 entries, n, err);
	ts_free(path);
	return ok && ts_check_interrupts(err);
}

/* ---- writing manifests (a rolling writer) --------------------------------- */

typedef struct roller
{
	const ts_manifest_merge_ctx *c;
	bool		row_tracking;	/* _FIRST_ROW_ID / _WRITE_COLS in _FILE */
	ts_field   *fields;
	int			nfields;
	ts_avro_writer *w;
	ts_arena	values;			/* the open file's partition min / max copies */
	/* the open file's ManifestFileMeta so far */
	int64_t		added,
				deleted,
				schema_id;
	int32_t		min_bucket,
				max_bucket,
				min_level,
				max_level;
	ts_value   *pmin,
			   *pmax,
			   *decoded;
	int64_t    *pnulls;
	/* finished files */
	ts_manifest_file_meta *out;
	int			nout,
				cap;
} roller;

static void
set_bytes(ts_value *v, const uint8_t *p, size_t len)
{
	static const uint8_t none[1] = {0};

	v->isnull = false;
	v->v.s.p = p ? p : none;
	v->v.s.len = p ? (uint32_t) len : 0;
}

static void
set_text(ts_value *v, const char *s)
{
	if (s == NULL)
		v->isnull = true;
	else
		set_bytes(v, (const uint8_t *) s, strlen(s));
}

/* a nullable array of strings (n < 0: null) */
static bool
set_strings(ts_value *v, char *const *s, int n, ts_arena *a)
{
	ts_value   *items;

	if (n < 0)
	{
		v->isnull = true;
		return true;
	}
	items = ts_write_values(a, n);
	if (items == NULL)
		return false;
	for (int i = 0; i < n; i++)
		set_text(&items[i], s[i]);
	v->isnull = false;
	v->v.nested.n = n;
	v->v.nested.items = items;
	return true;
}

static bool
set_stats(ts_value *v, const ts_simple_stats *s, ts_arena *a)
{
	return ts_write_stats_value(v, s->min_values.data, s->min_values.len, s->max_values.data,
								s->max_values.len, s->null_counts, s->nnull_counts, a);
}

ts_value *
ts_manifest_entry_value(const ts_manifest_entry *e, bool row_tracking, ts_arena *a)
{
	const ts_data_file_meta *f = &e->file;
	ts_value   *r = ts_write_values(a, 6);
	ts_value   *fi = ts_write_values(a, 20);

	if (r == NULL || fi == NULL)
		return NULL;
	r[0].v.i = 2;				/* _VERSION */
	r[1].v.i = e->kind == TS_FILE_ADD ? 0 : 1;
	set_bytes(&r[2], e->partition.data, e->partition.len);
	r[3].v.i = e->bucket;
	r[4].v.i = e->total_buckets;
	r[5].v.nested.n = row_tracking ? 20 : 18;
	r[5].v.nested.items = fi;
	set_text(&fi[0], f->file_name);
	fi[1].v.i = f->file_size;
	fi[2].v.i = f->row_count;
	set_bytes(&fi[3], f->min_key.data, f->min_key.len);
	set_bytes(&fi[4], f->max_key.data, f->max_key.len);
	if (!set_stats(&fi[5], &f->key_stats, a) || !set_stats(&fi[6], &f->value_stats, a))
		return NULL;
	fi[7].v.i = f->min_sequence_number;
	fi[8].v.i = f->max_sequence_number;
	fi[9].v.i = f->schema_id;
	fi[10].v.i = f->level;
	if (!set_strings(&fi[11], f->extra_files, f->nextra_files, a))
		return NULL;
	fi[12].isnull = !f->has_creation_time;
	fi[12].v.ts.millis = f->creation_time_millis;
	fi[13].isnull = f->delete_row_count < 0;
	fi[13].v.i = f->delete_row_count;
	if (f->embedded_file_index.data == NULL)
		fi[14].isnull = true;
	else
		set_bytes(&fi[14], f->embedded_file_index.data, f->embedded_file_index.len);
	fi[15].isnull = f->file_source < 0;
	fi[15].v.i = f->file_source;
	if (!set_strings(&fi[16], f->value_stats_cols, f->nvalue_stats_cols, a))
		return NULL;
	set_text(&fi[17], f->external_path);
	fi[18].isnull = !f->has_first_row_id;
	fi[18].v.i = f->first_row_id;
	if (!set_strings(&fi[19], f->write_cols, f->nwrite_cols, a))
		return NULL;
	return r;
}

static bool
roller_open(roller *r, ts_err *err)
{
	int			np = r->c->npartition_keys;

	r->w = ts_avro_writer_create_for_fields(r->fields, r->nfields, (ts_avro_codec) r->c->codec, err);
	if (r->w == NULL)
		return false;
	ts_avro_writer_set_zstd_level(r->w, r->c->zstd_level);
	ts_arena_init(&r->values, 4096);
	r->pmin = ts_write_values(&r->values, np);
	r->pmax = ts_write_values(&r->values, np);
	r->decoded = ts_write_values(&r->values, np);
	r->pnulls = ts_arena_alloc(&r->values, sizeof(int64_t) * (size_t) (np > 0 ? np : 1));
	if (r->pmin == NULL || r->pmax == NULL || r->decoded == NULL || r->pnulls == NULL)
		return ts_error_nomem(err, "a manifest");
	for (int p = 0; p < np; p++)
	{
		r->pmin[p].isnull = r->pmax[p].isnull = true;
		r->pnulls[p] = 0;
	}
	r->added = r->deleted = 0;
	r->schema_id = -1;
	r->min_bucket = r->min_level = INT32_MAX;
	r->max_bucket = r->max_level = INT32_MIN;
	return true;
}

/* The partition stats of e: its values replace a min / max from a copy of its row. */
static bool
roller_partition(roller *r, const ts_manifest_entry *e, ts_err *err)
{
	const ts_type *const *types = r->c->partition_types;
	int			np = r->c->npartition_keys;
	const uint8_t *row = e->partition.data;
	bool		copied = false;

	if (np == 0)
		return true;
	if (!ts_binary_row_decode(row, e->partition.len, types, np, r->decoded, NULL, &r->values, err))
		return false;
	for (int p = 0; p < np; p++)
	{
		const ts_value *v = &r->decoded[p];
		int			cmp;
		bool		lower,
					higher;

		if (v->isnull)
		{
			r->pnulls[p]++;
			continue;
		}
		lower = r->pmin[p].isnull || (ts_value_order(types[p], v, &r->pmin[p], &cmp) && cmp < 0);
		higher = r->pmax[p].isnull || (ts_value_order(types[p], v, &r->pmax[p], &cmp) && cmp > 0);
		if ((lower || higher) && !copied)
		{
			/* the entry's bytes go away before the file is finished: keep a copy */
			row = ts_arena_dup(&r->values, e->partition.data, e->partition.len);
			if (row == NULL ||
				!ts_binary_row_decode(row, e->partition.len, types, np, r->decoded, NULL, &r->values, err))
				return row != NULL || ts_error_nomem(err, "partition statistics");
			copied = true;
		}
		if (lower)
			r->pmin[p] = *v;
		if (higher)
			r->pmax[p] = *v;
	}
	return true;
}

/* Finish the open file: store it, list its meta. */
static bool
roller_close(roller *r, ts_err *err)
{
	const ts_manifest_merge_ctx *c = r->c;
	ts_buf		bytes,
				minrow,
				maxrow;
	ts_manifest_file_meta *m;
	char	   *name = NULL;
	bool		ok;

	if (r->w == NULL)
		return true;
	ts_buf_init(&bytes);
	ts_buf_init(&minrow);
	ts_buf_init(&maxrow);
	ok = ts_avro_writer_finish(r->w, &bytes, err) &&
		ts_binary_row_encode(c->partition_types, r->pmin, c->npartition_keys, true, &minrow, err) &&
		ts_binary_row_encode(c->partition_types, r->pmax, c->npartition_keys, true, &maxrow, err) &&
		c->store(c->store_arg, bytes.data, bytes.len, &name, err);
	ts_avro_writer_free(r->w);
	r->w = NULL;
	if (ok && r->nout == r->cap)
	{
		int			cap = r->cap ? r->cap * 2 : 8;
		ts_manifest_file_meta *grown = ts_arena_alloc(c->arena, sizeof(*grown) * (size_t) cap);

		if (grown == NULL)
			ok = ts_error_nomem(err, "a manifest list");
		else
		{
			if (r->nout > 0)
				memcpy(grown, r->out, sizeof(*grown) * (size_t) r->nout);
			r->out = grown;
			r->cap = cap;
		}
	}
	if (ok)
	{
		int			np = c->npartition_keys;

		m = &r->out[r->nout];
		memset(m, 0, sizeof(*m));
		m->file_name = name;
		m->file_size = (int64_t) bytes.len;
		m->num_added_files = r->added;
		m->num_deleted_files = r->deleted;
		m->partition_stats.min_values.data = ts_arena_dup(c->arena, minrow.data, minrow.len);
		m->partition_stats.min_values.len = (uint32_t) minrow.len;
		m->partition_stats.max_values.data = ts_arena_dup(c->arena, maxrow.data, maxrow.len);
		m->partition_stats.max_values.len = (uint32_t) maxrow.len;
		m->partition_stats.nnull_counts = np;
		m->partition_stats.null_counts = ts_arena_dup(c->arena, r->pnulls,
													  sizeof(int64_t) * (size_t) (np > 0 ? np : 1));
		m->schema_id = r->schema_id;
		m->has_bucket_range = m->has_level_range = true;
		m->min_bucket = r->min_bucket;
		m->max_bucket = r->max_bucket;
		m->min_level = r->min_level;
		m->max_level = r->max_level;
		if (m->partition_stats.min_values.data == NULL || m->partition_stats.max_values.data == NULL ||
			m->partition_stats.null_counts == NULL)
			ok = ts_error_nomem(err, "a manifest list entry");
		else
			r->nout++;
	}
	ts_arena_free(&r->values);
	ts_buf_free(&bytes);
	ts_buf_free(&minrow);
	ts_buf_free(&maxrow);
	return ok;
}

static bool
roller_add(roller *r, const ts_manifest_entry *e, ts_err *err)
{
	ts_arena	scratch;
	ts_value   *row;
	bool		ok;

	if (r->w == NULL && !roller_open(r, err))
		return false;
	ts_arena_init(&scratch, 4096);
	row = ts_manifest_entry_value(e, r->row_tracking, &scratch);
	ok = row != NULL || ts_error_nomem(err, "a manifest entry");
	ok = ok && ts_avro_writer_add(r->w, row, err) && roller_partition(r, e, err);
	ts_arena_free(&scratch);
	if (!ok)
		return false;
	if (e->kind == TS_FILE_ADD)
		r->added++;
	else
		r->deleted++;
	if (e->file.schema_id > r->schema_id)
		r->schema_id = e->file.schema_id;
	if (e->bucket < r->min_bucket)
		r->min_bucket = e->bucket;
	if (e->bucket > r->max_bucket)
		r->max_bucket = e->bucket;
	if (e->file.level < r->min_level)
		r->min_level = e->file.level;
	if (e->file.level > r->max_level)
		r->max_level = e->file.level;
	/* roll at the target size, looked at every 1000 entries */
	if ((r->added + r->deleted) % ROLL_CHECK_ENTRIES == 0 &&
		ts_avro_writer_bytes(r->w) >= r->c->opts.target_size)
		return roller_close(r, err);
	return true;
}

static void
roller_abort(roller *r)
{
	if (r->w != NULL)
	{
		ts_avro_writer_free(r->w);
		r->w = NULL;
		ts_arena_free(&r->values);
	}
}

/* ---- the result list ------------------------------------------------------- */

typedef struct result
{
	ts_manifest_file_meta *m;
	int			n,
				cap;
	ts_arena   *arena;
} result;

static bool
result_add(result *res, const ts_manifest_file_meta *m, ts_err *err)
{
	if (res->n == res->cap)
	{
		int			cap = res->cap * 2 + 8;
		ts_manifest_file_meta *grown = ts_arena_alloc(res->arena, sizeof(*grown) * (size_t) cap);

		if (grown == NULL)
			return ts_error_nomem(err, "a manifest list");
		if (res->n > 0)
			memcpy(grown, res->m, sizeof(*grown) * (size_t) res->n);
		res->m = grown;
		res->cap = cap;
	}
	res->m[res->n++] = *m;
	return true;
}

/* The roller's files at the end of res. */
static bool
result_add_rolled(result *res, const roller *r, ts_err *err)
{
	for (int i = 0; i < r->nout; i++)
		if (!result_add(res, &r->out[i], err))
			return false;
	return true;
}

/* ---- minor compaction ------------------------------------------------------ */

/* Merge in[from..to) into new files (roller r, already set up). */
static bool
merge_run(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int from, int to,
		  roller *r, ts_err *err)
{
	ts_arena	a;
	ts_manifest_entry **entries;
	int		   *counts;
	int			total = 0;
	entry_map	map;
	bool		ok = true;

	ts_arena_init(&a, 256 * 1024);
	entries = ts_arena_alloc(&a, sizeof(*entries) * (size_t) (to - from));
	counts = ts_arena_alloc(&a, sizeof(int) * (size_t) (to - from));
	if (entries == NULL || counts == NULL)
		ok = ts_error_nomem(err, "manifest entries");
	for (int i = from; ok && i < to; i++)
	{
		ok = read_entries(c, &in[i], &a, &entries[i - from], &counts[i - from], err);
		total += ok ? counts[i - from] : 0;
	}
	ok = ok && (map_init(&map, total, &a) || ts_error_nomem(err, "manifest entries"));
	for (int i = from; ok && i < to; i++)
		for (int k = 0; ok && k < counts[i - from]; k++)
			ok = map_merge(&map, &entries[i - from][k], in[i].file_name, err);
	/* entries with row ids keep them: the 1.3 layout for the new files */
	for (int k = 0; ok && k < map.n && !r->row_tracking; k++)
		if (map.items[k]->file.has_first_row_id || map.items[k]->file.nwrite_cols >= 0)
		{
			r->row_tracking = true;
			r->fields = ts_manifest_entry_fields(true, &r->nfields);
			ok = r->fields != NULL || ts_error_nomem(err, "a manifest");
		}
	for (int k = 0; ok && k < map.n; k++)
		if (!map.removed[k])
			ok = roller_add(r, map.items[k], err);
	ok = ok && roller_close(r, err);
	ts_arena_free(&a);
	return ok;
}

static bool
minor(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int n, roller *r,
	  result *res, ts_err *err)
{
	int		   *run = ts_arena_alloc(c->arena, sizeof(int) * (size_t) (n > 0 ? n : 1));

	if (run == NULL)
		return ts_error_nomem(err, "a manifest list");
	ts_manifest_minor_plan(in, n, &c->opts, run);
	for (int i = 0; i < n;)
	{
		int			j = i + 1;

		if (run[i] == TS_MERGE_KEEP)
		{
			if (!result_add(res, &in[i], err))
				return false;
			i++;
			continue;
		}
		while (j < n && run[j] == run[i])
			j++;
		r->nout = 0;
		if (!merge_run(c, in, i, j, r, err) || !result_add_rolled(res, r, err))
			return false;
		i = j;
	}
	return true;
}

/* ---- full compaction -------------------------------------------------------- */

/*
 * Can manifest m hold a file of one of the deleted partitions?  Java's
 * PartitionPredicate.fromMultiple on its partition stats: each partition
 * field alone must admit one of the deleted partitions' values.
 */
static bool
may_hold(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *m, ts_value *const *deleted,
		 int ndeleted, ts_arena *a)
{
	int			np = c->npartition_keys;
	const ts_simple_stats *s = &m->partition_stats;
	ts_value   *mn = ts_write_values(a, np),
			   *mx = ts_write_values(a, np);
	ts_err		ignore;

	if (mn == NULL || mx == NULL || s->min_values.data == NULL || s->max_values.data == NULL ||
		!ts_binary_row_decode(s->min_values.data, s->min_values.len, c->partition_types, np, mn, NULL, a, &ignore) ||
		!ts_binary_row_decode(s->max_values.data, s->max_values.len, c->partition_types, np, mx, NULL, a, &ignore))
		return true;			/* no usable stats: it may */
	for (int p = 0; p < np; p++)
	{
		bool		admits = false;

		for (int d = 0; d < ndeleted && !admits; d++)
		{
			const ts_value *v = &deleted[d][p];
			int			lo,
						hi;

			if (v->isnull)
				admits = s->nnull_counts <= p || s->null_counts[p] != 0;
			else
				admits = !mn[p].isnull && !mx[p].isnull &&
					ts_value_order(c->partition_types[p], v, &mn[p], &lo) &&
					ts_value_order(c->partition_types[p], v, &mx[p], &hi) && lo >= 0 && hi <= 0;
		}
		if (!admits)
			return false;
	}
	return true;
}

/* The DELETE entries of every manifest (copies in a) and their distinct partitions. */
static bool
read_deletes(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int n, ts_arena *a,
			 entry_map *dels, ts_value ***parts, int *nparts, ts_err *err)
{
	int			total = 0;

	for (int i = 0; i < n; i++)
		total += (int) in[i].num_deleted_files;
	if (!map_init(dels, total, a))
		return ts_error_nomem(err, "manifest entries");
	*parts = ts_arena_alloc(a, sizeof(ts_value *) * (size_t) (total + 1));
	*nparts = 0;
	if (*parts == NULL)
		return ts_error_nomem(err, "manifest entries");
	for (int i = 0; i < n; i++)
	{
		ts_manifest_entry *entries;
		int			count;

		if (in[i].num_deleted_files <= 0)
			continue;
		if (!read_entries(c, &in[i], a, &entries, &count, err))
			return false;
		for (int k = 0; k < count; k++)
		{
			const ts_manifest_entry *e = &entries[k];
			bool		seen = false;

			if (e->kind != TS_FILE_DELETE || map_find(dels, e) >= 0 || dels->n >= total)
				continue;
			map_add(dels, e);
			for (int d = 0; d < dels->n - 1 && !seen; d++)
				seen = dels->items[d]->partition.len == e->partition.len &&
					memcmp(dels->items[d]->partition.data, e->partition.data, e->partition.len) == 0;
			if (!seen && c->npartition_keys > 0)
			{
				ts_value   *v = ts_write_values(a, c->npartition_keys);

				if (v == NULL)
					return ts_error_nomem(err, "manifest entries");
				if (!ts_binary_row_decode(e->partition.data, e->partition.len, c->partition_types,
										  c->npartition_keys, v, NULL, a, err))
					return false;
				(*parts)[(*nparts)++] = v;
			}
		}
	}
	return true;
}

/* tryFullCompaction; *done false: it does not apply (the caller runs a minor one). */
static bool
full(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int n, roller *r,
	 result *res, bool *done, ts_err *err)
{
	ts_arena	a;
	entry_map	dels;
	ts_value  **parts = NULL;
	int			nparts = 0,
				nmerge = 0;
	bool	   *merge = ts_arena_alloc(c->arena, sizeof(bool) * (size_t) (n > 0 ? n : 1));
	bool		ok;

	*done = false;
	if (!ts_manifest_full_triggered(in, n, &c->opts))
		return true;
	if (merge == NULL)
		return ts_error_nomem(err, "a manifest list");
	ts_arena_init(&a, 64 * 1024);
	ok = read_deletes(c, in, n, &a, &dels, &parts, &nparts, err);
	/* which manifests to leave alone by their partition stats */
	for (int i = 0; ok && i < n; i++)
	{
		merge[i] = true;
		if (!ts_manifest_must_change(&in[i], &c->opts))
		{
			if (dels.n == 0)
				merge[i] = false;
			else if (c->npartition_keys > 0)
				merge[i] = may_hold(c, &in[i], parts, nparts, &a);
		}
		if (!merge[i])
			ok = result_add(res, &in[i], err);
		else
			nmerge++;
	}
	if (!ok || nmerge <= 1)
	{
		ts_arena_free(&a);
		res->n = 0;
		return ok;
	}
	*done = true;
	r->nout = 0;
	for (int i = 0; ok && i < n; i++)
	{
		ts_arena	fa;
		ts_manifest_entry *entries;
		int			count;
		bool		change;

		if (!merge[i])
			continue;
		change = ts_manifest_must_change(&in[i], &c->opts);
		ts_arena_init(&fa, 256 * 1024);
		ok = read_entries(c, &in[i], &fa, &entries, &count, err);
		for (int k = 0; ok && k < count && !change; k++)
			change = entries[k].kind == TS_FILE_ADD && map_find(&dels, &entries[k]) >= 0;
		if (ok && !change)
			ok = result_add(res, &in[i], err);
		for (int k = 0; ok && change && k < count; k++)
			if (entries[k].kind == TS_FILE_ADD && map_find(&dels, &entries[k]) < 0)
				ok = roller_add(r, &entries[k], err);
		ts_arena_free(&fa);
	}
	ok = ok && roller_close(r, err) && result_add_rolled(res, r, err);
	ts_arena_free(&a);
	return ok;
}

bool
ts_manifest_merge(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int n,
				  ts_manifest_file_meta **out, int *nout, ts_err *err)
{
	roller		r;
	result		res;
	bool		done = false;
	bool		ok;

	memset(&r, 0, sizeof(r));
	r.c = c;
	for (int i = 0; i < n; i++)
		r.row_tracking = r.row_tracking || in[i].has_row_id_range;
	r.fields = ts_manifest_entry_fields(r.row_tracking, &r.nfields);
	res.m = NULL;
	res.n = res.cap = 0;
	res.arena = c->arena;
	if (r.fields == NULL)
		return ts_error_nomem(err, "a manifest list");
	ok = full(c, in, n, &r, &res, &done, err);
	if (ok && !done)
		ok = minor(c, in, n, &r, &res, err);
	roller_abort(&r);
	*out = res.m;
	*nout = res.n;
	return ok;
}
