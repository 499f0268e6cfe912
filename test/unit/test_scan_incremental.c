/*
 * test_scan_incremental.c - incremental-between / incremental-between-timestamp
 * on append tables: the rows of the oracle's streaming plans of append_09
 * (one plan per APPEND snapshot; the COMPACT snapshot 5 adds nothing), read
 * through the real reader, and generated tables (build/.../tools/ts_gen)
 * where the delta files must equal the difference of two snapshots' live
 * files; the error cases (range, primary-key tables, combined options).
 */
#include "read_oracle.h"
#include "scan/predicate.h"
#include "gen_tables.h"

#include <sys/stat.h>
#include <unistd.h>


static void
ctx_init(ts_scan_context *ctx, const char *path, ts_option *opts, int nopts)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->table_path = path;
	ctx->limit = -1;
	ctx->enable_pruning = true;
	ctx->options = opts;
	ctx->noptions = nopts;
}

static ts_plan *
plan_ok(const ts_scan_context *ctx)
{
	ts_err		err = {0};
	ts_plan    *p = ts_scan_plan(ctx, &err);

	if (p == NULL)
		fail_msg("plan of %s failed: %s", ctx->table_path, err.msg);
	return p;
}

static ts_plan *
plan_between(const char *path, const char *key, const char *value)
{
	ts_scan_context ctx;
	ts_option	o = {key, value};

	ctx_init(&ctx, path, &o, 1);
	return plan_ok(&ctx);
}

static void
expect_error(const char *path, ts_option *opts, int nopts, ts_errcode code, const char *needle)
{
	ts_scan_context ctx;
	ts_err		err = {0};

	ctx_init(&ctx, path, opts, nopts);
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
	ts_snapshot *s1 = ts_snapshot_load(path, 1, &err),
			   *s3 = ts_snapshot_load(path, 3, &err);
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

static void
test_errors(void **state)
{
	const char *app = unit_shared_path("testdata/parquet/append_09.db/append_09");
	const char *pk = unit_shared_path("testdata/orc/pk_09.db/pk_09");
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
	o[0] = (ts_option) {"incremental-between", "1,2"};
	expect_error(pk, o, 1, TS_ERR_UNSUPPORTED, "not supported yet");
	o[1] = (ts_option) {"scan.snapshot-id", "2"};
	expect_error(app, o, 2, TS_ERR_INVALID, "scan.snapshot-id");
	o[1] = (ts_option) {"incremental-between-scan-mode", "changelog"};
	expect_error(app, o, 2, TS_ERR_UNSUPPORTED, "changelog");
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
			v[n++] = strdup(plan->splits[s].files[f].path);
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
	ctx_init(&ctx, path, &o, 1);
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

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_append09_parquet),
		cmocka_unit_test(test_oracle_append09_orc),
		cmocka_unit_test(test_oracle_timestamps),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_generated_ranges),
		cmocka_unit_test(test_generated_pruned),
	};
	int			rc;

	(void) argc;
	rc = gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
	return rc;
}
