/*
 * test_scan_incremental.c - incremental-between / incremental-between-timestamp
 * on append tables: the rows of the oracle's streaming plans of append_09
 * (one plan per APPEND snapshot; the COMPACT snapshot 5 adds nothing), read
 * through the real reader, and generated tables (build/.../tools/ts_gen)
 * where the delta files must equal the difference of two snapshots' live
 * files; on primary-key tables the oracle's delta plans of
 * pk_table_scan_and_read_mor with their row kinds (_ROW_KIND) and generated
 * tables with updates, deletes and compactions against a model computed
 * from the generator's write log (ops.jsonl): per key the APPEND record
 * with the highest sequence number in the range, -U/-D kept; every plan of
 * the oracle's streams of pk_table_scan_and_read_dv as a batch read under
 * deletion-vectors.merge-on-read (full startup = scan of its snapshot,
 * delta = incremental-between with _ROW_KIND); the error
 * cases (range, refused primary-key tables, _ROW_KIND where it means
 * nothing, combined options); a stream's plan of one OVERWRITE snapshot:
 * an append table's added files minus those it also removed, a
 * primary-key table's removed and added files each with the deletion
 * vectors of its own snapshot.
 */
#include "read_oracle.h"
#include "expr/predicate.h"
#include "gen_tables.h"
#include "scan_plan.h"

#include <sys/stat.h>
#include <unistd.h>


static ts_plan *
plan_between(const char *path, const char *key, const char *value)
{
	ts_scan_context ctx;
	ts_option	o = {key, value};

	scan_ctx_init(&ctx, path, &o, 1);
	return scan_plan_ok(&ctx);
}

static void
expect_error(const char *path, ts_option *opts, int nopts, ts_errcode code, const char *needle)
{
	ts_scan_context ctx;
	ts_err		err = {0};

	scan_ctx_init(&ctx, path, opts, nopts);
	assert_null(ts_scan_plan(&ctx, &err));
	if (err.code != code || (needle && strstr(err.msg, needle) == NULL))
		fail_msg("expected error %d containing \"%s\", got %d: %s", code, needle ? needle : "",
				 err.code, err.msg);
}

/* Every row of the plan, rendered as the oracle renders them. */
static void
plan_rows(ts_plan *plan, const int *cols, int ncols, row_set *s)
{
	ts_err		err = {0};

	for (int i = 0; i < plan->nsplits; i++)
		if (read_split_rows(plan, &plan->splits[i], cols, ncols, s, &err, NULL) < 0)
			fail_msg("read: %s", err.msg);
}

/* append_09: incremental-between 'a,b' = the stream plans of snapshots a+1..b. */
static void
check_append09(const char *fmt)
{
	char		name[256],
				rel[256],
				range[32];
	cJSON	   *j;
	const cJSON *sp;
	const char *path;
	static const int ranges[][2] = {{0, 1}, {1, 2}, {1, 3}, {0, 4}, {2, 5}, {4, 5}, {0, 5}, {3, 3}};

	snprintf(name, sizeof(name), "%s__append_09__stream_from_snapshot1_default_mode", fmt);
	j = oracle_load(name);
	snprintf(rel, sizeof(rel), "testdata/%s/append_09.db/append_09", fmt);
	path = unit_shared_path(rel);
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
	{
		int			a = ranges[r][0],
					b = ranges[r][1];
		ts_plan    *plan;
		int			cols[64],
					ncols;
		row_set		got = {0},
					want = {0};
		char		what[128];

		snprintf(range, sizeof(range), "%d,%d", a, b);
		plan = plan_between(path, "incremental-between", range);
		assert_true(plan->incremental);
		assert_int_equal(plan->incremental_start, a);
		if (b > 0)
			assert_int_equal(plan->snapshot->id, b);
		ncols = oracle_columns(j, plan, cols);
		plan_rows(plan, cols, ncols, &got);
		cJSON_ArrayForEach(sp, cJSON_GetObjectItem(j, "stream_plans"))
		{
			const cJSON *snap = cJSON_GetObjectItem(sp, "snapshot");

			if (cJSON_IsNumber(snap) && snap->valueint > a && snap->valueint <= b)
				oracle_rows(cJSON_GetObjectItem(sp, "rows"), plan, cols, ncols, &want);
		}
		snprintf(what, sizeof(what), "%s append_09 incremental-between %s", fmt, range);
		assert_same_rows(&got, &want, what);
		/* all delta files come from APPEND commits: level 0 */
		for (int s = 0; s < plan->nsplits; s++)
			for (int f = 0; f < plan->splits[s].nfiles; f++)
				assert_int_equal(plan->splits[s].files[f].entry->file.level, 0);
		row_set_free(&got);
		row_set_free(&want);
		ts_plan_free(plan);
	}
	cJSON_Delete(j);
}

static void
test_oracle_append09_parquet(void **state)
{
	(void) state;
	check_append09("parquet");
}

static void
test_oracle_append09_orc(void **state)
{
	(void) state;
	check_append09("orc");
}

/* Timestamps: snapshot i of append_09 committed at its timeMillis. */
static void
test_oracle_timestamps(void **state)
{
	const char *path = unit_shared_path("testdata/parquet/append_09.db/append_09");
	ts_err		err = {0};
	ts_snapshot *s1 = ts_snapshot_load(ts_fs_local_unconfined(), path, 1, &err),
			   *s3 = ts_snapshot_load(ts_fs_local_unconfined(), path, 3, &err);
	char		v[64];
	ts_plan    *plan;

	(void) state;
	assert_non_null(s1);
	assert_non_null(s3);
	/* (t1, t3] = snapshots 2..3 */
	snprintf(v, sizeof(v), "%lld,%lld", (long long) s1->time_millis, (long long) s3->time_millis);
	plan = plan_between(path, "incremental-between-timestamp", v);
	assert_int_equal(plan->incremental_start, 1);
	assert_int_equal(plan->snapshot->id, 3);
	ts_plan_free(plan);
	/* a start before the first snapshot includes it; t3 - 1 ends at 2 */
	snprintf(v, sizeof(v), "%lld,%lld", (long long) s1->time_millis - 1000,
			 (long long) s3->time_millis - 1);
	plan = plan_between(path, "incremental-between-timestamp", v);
	assert_int_equal(plan->incremental_start, 0);
	assert_int_equal(plan->snapshot->id, 2);
	ts_plan_free(plan);
	/* an end before every snapshot: the latest (Java's rule) */
	snprintf(v, sizeof(v), "%lld,%lld", (long long) 0, (long long) 1);
	plan = plan_between(path, "incremental-between-timestamp", v);
	assert_int_equal(plan->incremental_start, 0);
	assert_int_equal(plan->snapshot->id, 5);
	ts_plan_free(plan);
	ts_snapshot_free(s1);
	ts_snapshot_free(s3);
}

/* A plan of opts on path: its files of level 0 (none, or some if want_level0). */
static void
expect_no_level0(const char *path, ts_option *opts, int nopts, bool want_level0)
{
	ts_scan_context ctx;
	ts_plan    *p;
	int			level0 = 0;

	scan_ctx_init(&ctx, path, opts, nopts);
	p = scan_plan_ok(&ctx);
	for (int s = 0; s < p->nsplits; s++)
		for (int f = 0; f < p->splits[s].nfiles; f++)
			level0 += p->splits[s].files[f].entry->file.level == 0;
	if (want_level0)
		assert_true(level0 > 0);
	else
		assert_int_equal(level0, 0);
	ts_plan_free(p);
}

static void
test_errors(void **state)
{
	const char *app = unit_shared_path("testdata/parquet/append_09.db/append_09");
	const char *pk_dv = unit_shared_path("testdata/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv");
	const char *pk_first = unit_shared_path("testdata/parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row");
	ts_option	o[2];

	(void) state;
	o[0] = (ts_option) {"incremental-between", "3,2"};
	expect_error(app, o, 1, TS_ERR_INVALID, "must not be after");
	o[0] = (ts_option) {"incremental-between", "1,9"};
	expect_error(app, o, 1, TS_ERR_NOT_FOUND, "1 to 5");
	o[0] = (ts_option) {"incremental-between", "-1,2"};
	expect_error(app, o, 1, TS_ERR_NOT_FOUND, "out of the available");
	o[0] = (ts_option) {"incremental-between", "x"};
	expect_error(app, o, 1, TS_ERR_INVALID, "incremental-between");
	o[0] = (ts_option) {"incremental-between", "tag1,tag2"};
	expect_error(app, o, 1, TS_ERR_UNSUPPORTED, "tags");
	o[0] = (ts_option) {"incremental-between", "0,5"};
	/*
	 * DV tables without merge-on-read and first-row tables: Java's batch
	 * level filter hides the level-0 files the APPEND snapshots added, so
	 * nothing of level 0 is planned (with merge-on-read it is)
	 */
	expect_no_level0(pk_dv, o, 1, false);
	o[1] = (ts_option) {"deletion-vectors.merge-on-read", "false"};
	expect_no_level0(pk_dv, o, 2, false);
	o[1] = (ts_option) {"deletion-vectors.merge-on-read", "true"};
	expect_no_level0(pk_dv, o, 2, true);
	expect_no_level0(pk_first, o, 2, false);
	expect_no_level0(pk_first, o, 1, false);
	o[0] = (ts_option) {"incremental-between", "1,2"};
	o[1] = (ts_option) {"scan.snapshot-id", "2"};
	expect_error(app, o, 2, TS_ERR_INVALID, "scan.snapshot-id");
	o[1] = (ts_option) {"incremental-between-scan-mode", "both"};
	expect_error(app, o, 2, TS_ERR_UNSUPPORTED, "both");
	o[1] = (ts_option) {"incremental-between-scan-mode", "diff"};
	expect_error(pk_dv, o, 2, TS_ERR_UNSUPPORTED, "deletion vectors");
	o[0] = (ts_option) {"incremental-between", "0,2"};
	expect_error(app, o, 2, TS_ERR_NOT_FOUND, "snapshots 0 and 2");
	o[0] = (ts_option) {"incremental-between", "3,2"};
	expect_error(app, o, 2, TS_ERR_INVALID, "must not be before");
	o[1] = (ts_option) {"incremental-between-timestamp", "1,2"};
	expect_error(app, o, 2, TS_ERR_INVALID, "only one");
}

/* ---- generated tables ------------------------------------------------- */

/* Sorted "partition-hex/bucket/file" names of a plan's files. */
static int
plan_files(const ts_plan *plan, char ***out)
{
	int			n = 0;
	char	  **v = NULL;

	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			v = realloc(v, sizeof(char *) * (n + 1));
			v[n++] = strdup(ts_scan_file_label(plan, &plan->splits[s].files[f]));
		}
	if (n > 1)
		qsort(v, n, sizeof(char *), cmp_str);
	*out = v;
	return n;
}

static void
free_names(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool
contains(char **v, int n, const char *s)
{
	return n > 0 && bsearch(&s, v, n, sizeof(char *), cmp_str) != NULL;
}

/* (a, b] holds exactly the live files of b that a does not have; rows count. */
static void
test_generated_ranges(void **state)
{
	char		path[4096];

	(void) state;
	gen_table("db.db/t", "--column id:INT --column name:STRING --column p:INT --partition p "
		"--buckets 2 --bucket-key id --rows 10 --snapshots 4");
	snprintf(path, sizeof(path), "%s/db.db/t", gen_dir);
	for (int a = 0; a <= 4; a++)
		for (int b = a; b <= 4; b++)
		{
			char		range[32],
						sid[16];
			ts_plan    *inc,
					   *pa = NULL,
					   *pb = NULL;
			char	  **fi,
					  **fa = NULL,
					  **fb = NULL;
			int			ni,
						na = 0,
						nb = 0,
						expect = 0;
			int64_t		rows = 0;

			snprintf(range, sizeof(range), "%d,%d", a, b);
			inc = plan_between(path, "incremental-between", range);
			ni = plan_files(inc, &fi);
			if (a > 0)
			{
				snprintf(sid, sizeof(sid), "%d", a);
				pa = plan_between(path, "scan.snapshot-id", sid);
				na = plan_files(pa, &fa);
			}
			if (b > 0)
			{
				snprintf(sid, sizeof(sid), "%d", b);
				pb = plan_between(path, "scan.snapshot-id", sid);
				nb = plan_files(pb, &fb);
			}
			for (int i = 0; i < nb; i++)
				if (!contains(fa, na, fb[i]))
				{
					assert_true(contains(fi, ni, fb[i]));
					expect++;
				}
			assert_int_equal(ni, expect);
			for (int s = 0; s < inc->nsplits; s++)
				for (int f = 0; f < inc->splits[s].nfiles; f++)
					rows += inc->splits[s].files[f].entry->file.row_count;
			/* the generator writes 10 rows per snapshot */
			assert_int_equal(rows, 10 * (b - a));
			free_names(fi, ni);
			free_names(fa, na);
			free_names(fb, nb);
			ts_plan_free(inc);
			ts_plan_free(pa);
			ts_plan_free(pb);
		}
}

/*
 * Scan mode diff on append_09 (snapshots 1-4 APPEND, 5 COMPACT): for every
 * pair a <= b, the files of b that a does not list (by path), with b's
 * deletion vectors; the compaction's rewritten files count as new.
 */
static void
test_diff_pairs(void **state)
{
	const char *app = unit_shared_path("testdata/parquet/append_09.db/append_09");
	int			nonempty = 0;

	(void) state;
	for (int a = 1; a <= 5; a++)
		for (int b = a; b <= 5; b++)
		{
			ts_scan_context ctx;
			ts_option	o[2];
			char		range[32],
						sid[16];
			ts_plan    *d,
					   *pa,
					   *pb;
			char	  **fd,
					  **fa,
					  **fb;
			int			nd,
						na,
						nb,
						expect = 0;

			snprintf(range, sizeof(range), "%d,%d", a, b);
			o[0] = (ts_option) {"incremental-between", range};
			o[1] = (ts_option) {"incremental-between-scan-mode", "diff"};
			scan_ctx_init(&ctx, app, o, 2);
			d = scan_plan_ok(&ctx);
			assert_true(d->diff);
			nd = plan_files(d, &fd);
			snprintf(sid, sizeof(sid), "%d", a);
			pa = plan_between(app, "scan.snapshot-id", sid);
			na = plan_files(pa, &fa);
			snprintf(sid, sizeof(sid), "%d", b);
			pb = plan_between(app, "scan.snapshot-id", sid);
			nb = plan_files(pb, &fb);
			for (int i = 0; i < nb; i++)
				if (!contains(fa, na, fb[i]))
				{
					assert_true(contains(fd, nd, fb[i]));
					expect++;
				}
			assert_int_equal(nd, expect);
			if (a == b)
				assert_int_equal(nd, 0);
			nonempty += nd > 0;
			free_names(fd, nd);
			free_names(fa, na);
			free_names(fb, nb);
			ts_plan_free(d);
			ts_plan_free(pa);
			ts_plan_free(pb);
		}
	/* every pair a < b differs (each snapshot adds or rewrites files) */
	assert_int_equal(nonempty, 10);
}

/* Pruning still applies to the delta files: a partition predicate. */
static void
test_generated_pruned(void **state)
{
	char		path[4096];
	ts_scan_context ctx;
	ts_option	o = {"incremental-between", "1,3"};
	ts_value	lit;
	ts_predicate pred;
	ts_plan    *plan;
	int			pfield = -1;

	(void) state;
	snprintf(path, sizeof(path), "%s/db.db/t", gen_dir);
	scan_ctx_init(&ctx, path, &o, 1);
	plan = ts_scan_prepare(&ctx, &(ts_err) {0});
	assert_non_null(plan);
	for (int i = 0; i < plan->schema->nfields; i++)
		if (strcmp(plan->schema->fields[i].name, "p") == 0)
			pfield = i;
	assert_true(pfield >= 0);
	memset(&lit, 0, sizeof(lit));
	lit.v.i = 1;
	memset(&pred, 0, sizeof(pred));
	pred.op = TS_PRED_EQ;
	pred.field = pfield;
	pred.nliterals = 1;
	pred.literals = &lit;
	ctx.predicate = &pred;
	{
		ts_err		err = {0};

		if (!ts_scan_execute(plan, &ctx, &err))
			fail_msg("%s", err.msg);
	}
	assert_true(plan->metrics.files_pruned_partition > 0);
	{
		int			cols[3],
					nc = 0;
		row_set		got = {0};

		for (int i = 0; i < plan->schema->nfields; i++)
			cols[nc++] = i;
		plan_rows(plan, cols, nc, &got);
		/* rows 10..29, p = i % 2 (the generator's formula): 10 rows with p = 1 */
		assert_int_equal(got.n, 10);
		row_set_free(&got);
	}
	ts_plan_free(plan);
}


/* ---- primary-key tables ------------------------------------------------ */

/* Read every split with columns cols; NULL on error (err set). */
static bool
try_plan_rows(ts_plan *plan, const int *cols, int ncols, row_set *s, ts_err *err)
{
	for (int i = 0; i < plan->nsplits; i++)
		if (read_split_rows(plan, &plan->splits[i], cols, ncols, s, err, NULL) < 0)
			return false;
	return true;
}

/* Rows of one oracle stream plan with its row kinds as the last cell. */
static void
oracle_rows_with_kinds(const cJSON *sp, const ts_plan *plan, const int *cols, int ncols,
					   row_set *want)
{
	const cJSON *kinds = cJSON_GetObjectItem(sp, "row_kinds");
	int			first = want->n;

	oracle_rows(cJSON_GetObjectItem(sp, "rows"), plan, cols, ncols - 1, want);
	assert_int_equal(want->n - first, cJSON_GetArraySize(kinds));
	for (int i = first; i < want->n; i++)
	{
		const char *k = cJSON_GetArrayItem(kinds, i - first)->valuestring;
		char	   *r = malloc(strlen(want->rows[i]) + strlen(k) + 4);

		sprintf(r, "%s | %s", want->rows[i], k);
		free(want->rows[i]);
		want->rows[i] = r;
	}
}

/*
 * pk_table_scan_and_read_mor (deduplicate; COMPACT snapshot 3): each delta
 * plan of the stream for snapshot S equals incremental-between 'C,S' (C =
 * the stream's previous snapshot) with _ROW_KIND, e.g. +U and -D.
 */
static void
check_pk_mor(const char *fmt)
{
	char		name[256],
				rel[256],
				range[32];
	cJSON	   *j;
	const cJSON *sp;
	const char *path;
	int			cursor = 1;

	snprintf(name, sizeof(name), "%s__pk_table_scan_and_read_mor__stream_from_snapshot1_full", fmt);
	j = oracle_load(name);
	snprintf(rel, sizeof(rel), "testdata/%s/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", fmt);
	path = unit_shared_path(rel);
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(j, "stream_plans"))
	{
		int			snap = cJSON_GetObjectItem(sp, "snapshot")->valueint;
		ts_plan    *plan;
		int			cols[64],
					ncols;
		row_set		got = {0},
					want = {0};
		char		what[128];

		if (snap == 1)
			continue;			/* the full startup plan */
		snprintf(range, sizeof(range), "%d,%d", cursor, snap);
		plan = plan_between(path, "incremental-between", range);
		ncols = oracle_columns(j, plan, cols);
		cols[ncols++] = TS_COLUMN_ROW_KIND;
		plan_rows(plan, cols, ncols, &got);
		oracle_rows_with_kinds(sp, plan, cols, ncols, &want);
		snprintf(what, sizeof(what), "%s pk mor incremental-between %s", fmt, range);
		assert_same_rows(&got, &want, what);
		for (int s = 0; s < plan->nsplits; s++)
			assert_false(plan->splits[s].raw_convertible);
		row_set_free(&got);
		row_set_free(&want);
		ts_plan_free(plan);
		cursor = snap;
	}
	cJSON_Delete(j);
}

static void
test_oracle_pk_mor_parquet(void **state)
{
	(void) state;
	check_pk_mor("parquet");
}

static void
test_oracle_pk_mor_orc(void **state)
{
	(void) state;
	check_pk_mor("orc");
}

/*
 * pk_table_scan_and_read_dv (deduplicate with deletion vectors; COMPACT
 * snapshots 2 and 4): every plan of the oracle's five streams is a batch
 * read under 'deletion-vectors.merge-on-read' = 'true' -- the full startup
 * plan of snapshot S (from-snapshot-full, latest-full) a scan of S merging
 * level 0 with the deletion vectors, each delta plan for S
 * incremental-between 'C,S' with _ROW_KIND (C = the stream's previous
 * snapshot); without the option Java's batch scan hides level 0 and the
 * extension refuses (test_errors).
 */
static void
check_pk_dv_stream(const char *fmt, const char *stream)
{
	char		name[256],
				rel[256],
				range[32];
	cJSON	   *j;
	const cJSON *sp,
			   *opts;
	const cJSON *mode_j,
			   *start_j;
	const char *path;
	const char *mode;
	int			cursor = -1;
	bool		full;
	int			nplans = 0;

	snprintf(name, sizeof(name), "%s__pk_table_scan_and_read_dv__stream_%s", fmt, stream);
	j = oracle_load(name);
	snprintf(rel, sizeof(rel), "testdata/%s/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv", fmt);
	path = unit_shared_path(rel);
	opts = cJSON_GetObjectItem(j, "options");
	mode_j = cJSON_GetObjectItem(opts, "scan.mode");
	start_j = cJSON_GetObjectItem(opts, "scan.snapshot-id");
	mode = mode_j ? mode_j->valuestring : "default";
	full = strcmp(mode, "from-snapshot-full") == 0 || strcmp(mode, "latest-full") == 0;
	if (!full)
		cursor = atoi(start_j->valuestring) - 1;
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(j, "stream_plans"))
	{
		const cJSON *snap_j = cJSON_GetObjectItem(sp, "snapshot");
		ts_scan_context ctx;
		ts_option	o[2] = {{"deletion-vectors.merge-on-read", "true"}, {NULL, NULL}};
		ts_plan    *plan;
		int			cols[64],
					ncols;
		row_set		got = {0},
					want = {0};
		char		what[160];
		int			snap;

		if (snap_j == NULL || cJSON_IsNull(snap_j))
		{
			/* from-snapshot: the first plan is empty, no snapshot yet */
			assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sp, "rows")), 0);
			continue;
		}
		snap = snap_j->valueint;
		snprintf(range, sizeof(range), cursor < 0 ? "%d" : "%d,%d",
				 cursor < 0 ? snap : cursor, snap);
		o[1] = (ts_option) {cursor < 0 ? "scan.snapshot-id" : "incremental-between", range};
		scan_ctx_init(&ctx, path, o, 2);
		plan = scan_plan_ok(&ctx);
		ncols = oracle_columns(j, plan, cols);
		if (cursor < 0)
		{
			/* the full startup: a batch read of the snapshot, all +I */
			plan_rows(plan, cols, ncols, &got);
			oracle_rows(cJSON_GetObjectItem(sp, "rows"), plan, cols, ncols, &want);
			snprintf(what, sizeof(what), "%s dv %s: full snapshot %d", fmt, stream, snap);
		}
		else
		{
			cols[ncols++] = TS_COLUMN_ROW_KIND;
			plan_rows(plan, cols, ncols, &got);
			oracle_rows_with_kinds(sp, plan, cols, ncols, &want);
			snprintf(what, sizeof(what), "%s dv %s: incremental-between %s", fmt, stream, range);
		}
		assert_true(got.n > 0);
		assert_same_rows(&got, &want, what);
		row_set_free(&got);
		row_set_free(&want);
		ts_plan_free(plan);
		cursor = snap;
		nplans++;
	}
	assert_true(nplans > 0);
	cJSON_Delete(j);
}

static void
test_oracle_pk_dv_stream(void **state)
{
	static const char *const fmts[] = {"parquet", "orc"};
	static const char *const streams[] = {
		"from_snapshot1_full", "from_snapshot2", "from_snapshot4_full",
		"from_snapshot5_full", "latest_full"
	};

	(void) state;
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < 5; i++)
			check_pk_dv_stream(fmts[f], streams[i]);
}

/* One model row: the newest APPEND record of a key in the range. */
typedef struct pk_model_row
{
	char	   *key;			/* partition + "/" + key JSON */
	int64_t		seq;
	char	   *row;			/* rendered "id | v | p | kind" */
} pk_model_row;

/*
 * The model of incremental-between 'a,b' from the write log: for every
 * partition and trimmed key, the record an APPEND snapshot in (a, b]
 * wrote (records of COMPACT snapshots are copies) with the highest
 * sequence number, kept with its kind even when it retracts.
 */
static void
pk_model(const char *ops, const ts_plan *plan, const int *cols, int a, int b, row_set *want)
{
	FILE	   *fh = fopen(ops, "r");
	char	   *line = NULL;
	size_t		cap = 0;
	pk_model_row *rows = NULL;
	int			n = 0;
	bool		append[64] = {0};	/* APPEND snapshots (compactions copy records) */

	assert_non_null(fh);
	while (getline(&line, &cap, fh) > 0)
	{
		cJSON	   *r = cJSON_Parse(line);

		assert_non_null(r);
		if (strcmp(cJSON_GetObjectItem(r, "op")->valuestring, "snapshot") == 0 &&
			strcmp(cJSON_GetObjectItem(r, "kind")->valuestring, "APPEND") == 0)
		{
			int			id = cJSON_GetObjectItem(r, "id")->valueint;

			assert_true(id >= 0 && id < 64);
			append[id] = true;
		}
		cJSON_Delete(r);
	}
	rewind(fh);
	while (getline(&line, &cap, fh) > 0)
	{
		cJSON	   *r = cJSON_Parse(line);
		const cJSON *snap,
				   *vals;
		char	   *key,
				   *kj,
				   *cells[4];
		int64_t		seq;
		int			k;

		assert_non_null(r);
		if (strcmp(cJSON_GetObjectItem(r, "op")->valuestring, "record") != 0 ||
			!append[(snap = cJSON_GetObjectItem(r, "snapshot"))->valueint] ||
			snap->valueint <= a || snap->valueint > b)
		{
			cJSON_Delete(r);
			continue;
		}
		kj = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "key"));
		key = malloc(strlen(kj) + 512);
		sprintf(key, "%s/%s", cJSON_GetObjectItem(r, "partition")->valuestring, kj);
		cJSON_free(kj);
		seq = (int64_t) cJSON_GetObjectItem(r, "seq")->valuedouble;
		vals = cJSON_GetObjectItem(r, "values");
		for (int c = 0; c < 3; c++)
		{
			cells[c] = oracle_cell(cJSON_GetObjectItem(vals, plan->schema->fields[cols[c]].name),
								   plan->schema->fields[cols[c]].type);
		}
		cells[3] = ts_strdup(cJSON_GetObjectItem(r, "kind")->valuestring);
		for (k = 0; k < n; k++)
			if (strcmp(rows[k].key, key) == 0)
				break;
		if (k == n)
		{
			rows = realloc(rows, sizeof(*rows) * (n + 1));
			rows[n++] = (pk_model_row) {key, -1, NULL};
		}
		else
			free(key);
		if (seq > rows[k].seq)
		{
			free(rows[k].row);
			rows[k].seq = seq;
			rows[k].row = join_cells(cells, 4);
		}
		for (int c = 0; c < 4; c++)
			ts_free(cells[c]);
		cJSON_Delete(r);
	}
	free(line);
	fclose(fh);
	for (int k = 0; k < n; k++)
	{
		row_set_add(want, rows[k].row);
		free(rows[k].key);
	}
	free(rows);
}

/*
 * A generated deduplicate table with -U / -D records, several files per
 * commit and a COMPACT snapshot after every second commit: every range
 * equals the model; the kinds seen cover +I, +U, -U and -D; a range of
 * only a COMPACT snapshot is empty.
 */
static void
test_pk_generated(void **state)
{
	const char *path;
	char		ops[4096];
	bool		seen[4] = {0};

	(void) state;
	path = gen_table("pk.db/t", "--column id:INT --column v:STRING --column p:INT --partition p "
					 "--primary-key id --buckets 2 --rows 24 --keys 10 --snapshots 4 --files 2 "
					 "--delete-every 4 --retract-every 5 --compact-every 2 --levels 2");
	snprintf(ops, sizeof(ops), "%s.ops.jsonl", path);
	for (int a = 0; a <= 6; a++)
		for (int b = a; b <= 6; b++)
		{
			char		range[32],
						what[128];
			ts_plan    *plan;
			int			cols[4];
			row_set		got = {0},
						want = {0};

			snprintf(range, sizeof(range), "%d,%d", a, b);
			plan = plan_between(path, "incremental-between", range);
			cols[0] = ts_schema_field_index(plan->schema, "id");
			cols[1] = ts_schema_field_index(plan->schema, "v");
			cols[2] = ts_schema_field_index(plan->schema, "p");
			cols[3] = TS_COLUMN_ROW_KIND;
			plan_rows(plan, cols, 4, &got);
			pk_model(ops, plan, cols, a, b, &want);
			snprintf(what, sizeof(what), "generated pk incremental-between %s", range);
			assert_same_rows(&got, &want, what);
			for (int i = 0; i < got.n; i++)
			{
				const char *k = strrchr(got.rows[i], '|') + 2;

				seen[0] |= strcmp(k, "+I") == 0;
				seen[1] |= strcmp(k, "-U") == 0;
				seen[2] |= strcmp(k, "+U") == 0;
				seen[3] |= strcmp(k, "-D") == 0;
			}
			row_set_free(&got);
			row_set_free(&want);
			ts_plan_free(plan);
		}
	assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
}

/* _ROW_KIND only on incremental reads of primary-key tables. */
static void
test_row_kind_refused(void **state)
{
	const char *pk = unit_shared_path("testdata/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor");
	const char *app = unit_shared_path("testdata/parquet/append_09.db/append_09");
	ts_scan_context ctx;
	ts_plan    *plan;
	int			cols[2] = {0, TS_COLUMN_ROW_KIND};
	row_set		got = {0};
	ts_err		err = {0};

	(void) state;
	scan_ctx_init(&ctx, pk, NULL, 0);
	plan = scan_plan_ok(&ctx);		/* a batch read: no row kinds */
	assert_false(ts_read_check_columns(plan, cols, 2, &err));
	assert_non_null(strstr(err.msg, "_ROW_KIND"));
	memset(&err, 0, sizeof(err));
	assert_true(plan->nsplits > 0);
	assert_false(try_plan_rows(plan, cols, 2, &got, &err));
	assert_non_null(strstr(err.msg, "_ROW_KIND"));
	ts_plan_free(plan);
	plan = plan_between(app, "incremental-between", "0,2");
	memset(&err, 0, sizeof(err));
	assert_false(ts_read_check_columns(plan, cols, 2, &err));
	assert_non_null(strstr(err.msg, "primary-key"));
	ts_plan_free(plan);
	row_set_free(&got);
}

/* ---- a stream's read of one OVERWRITE snapshot ------------------------- */

static ts_plan *
plan_overwrite(const char *path, const char *range, const char *option)
{
	ts_scan_context ctx;
	ts_option	o[3] = {{"incremental-between", range}, {"tablescan.stream-overwrite", "true"},
	{option, "true"}};

	scan_ctx_init(&ctx, path, o, 3);
	return scan_plan_ok(&ctx);
}

static ts_plan *
plan_at(const char *path, const char *snapshot)
{
	ts_scan_context ctx;
	ts_option	o[2] = {{"scan.snapshot-id", snapshot}, {"deletion-vectors.merge-on-read", "true"}};

	scan_ctx_init(&ctx, path, o, 2);
	return scan_plan_ok(&ctx);
}

/* The file of plan at path, NULL when it has none. */
static const ts_scan_file *
plan_file(const ts_plan *plan, const char *path)
{
	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
			if (strcmp(ts_scan_file_label(plan, &plan->splits[s].files[f]), path) == 0)
				return &plan->splits[s].files[f];
	return NULL;
}

/*
 * streaming-read-append-overwrite: the overwrite's added files alone, minus
 * those it also removed (Java's readChanges "deduplicate"); --readd-at 3
 * removes and re-adds commit 1's files, so the plan holds exactly the files
 * live at 3 and not at 2 (the batch scan drops the re-added ones too).
 */
static void
test_overwrite_append_readd(void **state)
{
	const char *path;
	ts_plan    *ow,
			   *a2,
			   *a3;
	char	  **fo,
			  **f2,
			  **f3;
	int			no,
				n2,
				n3,
				want = 0;

	(void) state;
	path = gen_table("ow.db/readd", "--column id:INT --column name:STRING --column p:INT --partition p "
					 "--buckets 2 --bucket-key id --rows 20 --snapshots 3 --readd-at 3");
	ow = plan_overwrite(path, "2,3", "streaming-read-append-overwrite");
	a2 = plan_at(path, "2");
	a3 = plan_at(path, "3");
	no = plan_files(ow, &fo);
	n2 = plan_files(a2, &f2);
	n3 = plan_files(a3, &f3);
	for (int i = 0; i < n3; i++)
		if (!contains(f2, n2, f3[i]))
		{
			assert_true(contains(fo, no, f3[i]));
			want++;
		}
	assert_true(want > 0);
	assert_int_equal(no, want);
	for (int s = 0; s < ow->nsplits; s++)
		for (int f = 0; f < ow->splits[s].nfiles; f++)
			assert_false(ow->splits[s].files[f].diff_before);
	free_names(fo, no);
	free_names(f2, n2);
	free_names(f3, n3);
	ts_plan_free(ow);
	ts_plan_free(a2);
	ts_plan_free(a3);
}

/*
 * streaming-read-overwrite with deletion vectors: each removed file carries
 * the vector the snapshot before the overwrite gives it, each added file
 * the overwrite's (Java's beforeDeletionFiles / deletionFiles).
 */
static void
test_overwrite_pk_vectors(void **state)
{
	const char *path;
	ts_plan    *ow,
			   *before,
			   *after;
	int			removed = 0,
				with_vector = 0;

	(void) state;
	path = gen_table("ow.db/dv", "--column id:INT --column p:INT --column v:STRING --partition p "
					 "--partitions 2 --primary-key id --buckets 2 --rows 40 --keys 24 --snapshots 7 "
					 "--files 3 --compact-every 2 --levels 2 --delete-every 6 --retract-every 9 "
					 "--overwrite-at 6 --overwrite-partition p=1 --deletion-vectors");
	ow = plan_overwrite(path, "7,8", "streaming-read-overwrite");
	before = plan_at(path, "7");
	after = plan_at(path, "8");
	for (int s = 0; s < ow->nsplits; s++)
		for (int f = 0; f < ow->splits[s].nfiles; f++)
		{
			const ts_scan_file *got = &ow->splits[s].files[f];
			const ts_scan_file *want = plan_file(got->diff_before ? before : after,
											   ts_scan_file_label(ow, got));

			assert_non_null(want);
			removed += got->diff_before;
			with_vector += got->diff_before && got->dv_path != NULL;
			if (want->dv_path == NULL)
				assert_null(got->dv_path);
			else
			{
				assert_non_null(got->dv_path);
				assert_string_equal(got->dv_path, want->dv_path);
				assert_int_equal(got->dv_offset, want->dv_offset);
				assert_int_equal(got->dv_length, want->dv_length);
			}
		}
	assert_true(removed > 0);
	assert_true(with_vector > 0);
	ts_plan_free(ow);
	ts_plan_free(before);
	ts_plan_free(after);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_append09_parquet),
		cmocka_unit_test(test_oracle_append09_orc),
		cmocka_unit_test(test_oracle_timestamps),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_generated_ranges),
		cmocka_unit_test(test_diff_pairs),
		cmocka_unit_test(test_generated_pruned),
		cmocka_unit_test(test_oracle_pk_mor_parquet),
		cmocka_unit_test(test_oracle_pk_mor_orc),
		cmocka_unit_test(test_oracle_pk_dv_stream),
		cmocka_unit_test(test_pk_generated),
		cmocka_unit_test(test_row_kind_refused),
		cmocka_unit_test(test_overwrite_append_readd),
		cmocka_unit_test(test_overwrite_pk_vectors),
	};
	int			rc;

	(void) argc;
	rc = gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
	return rc;
}
