/*
 * test_write_rtctx.c - a writer's uncommitted files read by a scan of the
 * same process (write/pending.c, scan/realtime.c: paimon-cpp's
 * WithRealtimeContext) without a server.
 *
 * A primary-key table with a committed snapshot: a second writer's INSERT,
 * UPDATE and DELETE, flushed, are level-0 entries numbered after the
 * committed rows, and a plan given them reads the merged rows while a plan
 * without them reads the committed ones; an append table without any
 * snapshot: its pending files are read, their row counts, sequence numbers
 * and statistics as the commit will write them, and partition filters
 * prune them like committed files; a writer's finished-file count bounds
 * what can be described; an incremental read refuses them.
 */
#include "unit.h"

#include "base/ts_fs.h"
#include "meta/manifest.h"
#include "read/read.h"
#include "scan/scan.h"
#include "write/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "read_oracle.h"
#include "write_schema.h"

static void
num(ts_value *v, int64_t i)
{
	memset(v, 0, sizeof(*v));
	v->v.i = i;
}

static void
text(ts_value *v, const char *s)
{
	memset(v, 0, sizeof(*v));
	v->v.s.p = (const uint8_t *) s;
	v->v.s.len = (uint32_t) strlen(s);
}

static char *
make_dir(char *tmpl)
{
	char	   *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	return dir;
}

static void
remove_dir(const char *dir)
{
	char		cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* (id INT NOT NULL, dt STRING, v INT), append, bucket -1, partitioned by parts */
#define APPEND_SCHEMA(parts) \
	"{\"version\": 3, \"id\": 0, \"fields\": [" \
	"{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"}," \
	"{\"id\": 1, \"name\": \"dt\", \"type\": \"STRING\"}," \
	"{\"id\": 2, \"name\": \"v\", \"type\": \"INT\"}]," \
	"\"highestFieldId\": 2, \"partitionKeys\": [" parts "], \"primaryKeys\": []," \
	"\"options\": {\"bucket\": \"-1\"}}"

static ts_table_writer *
writer(const char *root)
{
	ts_err		err;
	ts_table_writer *w = ts_table_writer_open(local_fs(root), root, NULL, 0, &err);

	if (w == NULL)
		fail_msg("%s", err.msg);
	return w;
}

/* An append row (id, dt, v) into w. */
static void
add_row(ts_table_writer *w, int64_t id, const char *dt, int64_t v)
{
	ts_value	row[3];
	ts_err		err;

	num(&row[0], id);
	text(&row[1], dt);
	num(&row[2], v);
	if (!ts_table_writer_add(w, row, &err))
		fail_msg("%s", err.msg);
}

/* Every row of a plan (fields 0..ncols), sorted, joined by "; ". */
static char *
plan_rows(ts_plan *plan, int ncols)
{
	int			cols[8];
	row_set		s = {0};
	ts_err		err;
	size_t		len = 1;
	char	   *out;

	for (int c = 0; c < ncols; c++)
		cols[c] = c;
	for (int i = 0; i < plan->nsplits; i++)
		if (read_split_rows(plan, &plan->splits[i], cols, ncols, &s, &err, NULL) < 0)
			fail_msg("%s", err.msg);
	qsort(s.rows, (size_t) s.n, sizeof(char *), cmp_str);
	for (int i = 0; i < s.n; i++)
		len += strlen(s.rows[i]) + 2;
	out = calloc(1, len);
	for (int i = 0; i < s.n; i++)
	{
		if (i)
			strcat(out, "; ");
		strcat(out, s.rows[i]);
	}
	row_set_free(&s);
	return out;
}

static void
context_of(ts_scan_context *ctx, const char *root, const ts_realtime_context *rt)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->table_path = root;
	ctx->limit = -1;
	ctx->enable_pruning = true;
	ctx->no_cache = true;
	ctx->realtime = rt;
}

static ts_plan *
plan_of(const ts_scan_context *ctx)
{
	ts_err		err;
	ts_plan    *plan = ts_scan_plan(ctx, &err);

	if (plan == NULL)
		fail_msg("%s", err.msg);
	return plan;
}

static ts_plan *
plan_with(const char *root, const ts_realtime_context *rt)
{
	ts_scan_context ctx;

	context_of(&ctx, root, rt);
	return plan_of(&ctx);
}

static void
test_pk_merge(void **state)
{
	char		tmpl[] = "/tmp/ts-unit-rtctx.XXXXXX";
	char	   *dir = make_dir(tmpl);
	char		root[512];
	ts_err		err;
	ts_table_writer *w;
	ts_value	v[2],
				old[2];
	int64_t		id;
	ts_arena	a;
	ts_manifest_entry *e;
	ts_realtime_context rt;
	ts_plan    *plan;
	char	   *rows;

	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"v\", \"type\": \"BIGINT\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [\"id\"],"
				 "\"options\": {\"bucket\": \"1\"}}");
	/* committed: ids 0..4, v = 10 * id (sequence numbers 0..4) */
	w = writer(root);
	for (int i = 0; i < 5; i++)
	{
		num(&v[0], i);
		num(&v[1], i * 10);
		assert_true(ts_table_writer_add(w, v, &err));
	}
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	ts_table_writer_free(w);

	/* this transaction: insert 5, update 2 (twice), delete 3 */
	w = writer(root);
	num(&v[0], 5);
	num(&v[1], 50);
	assert_true(ts_table_writer_add(w, v, &err));
	num(&old[0], 2);
	num(&old[1], 20);
	num(&v[0], 2);
	num(&v[1], 21);
	assert_true(ts_table_writer_add_change(w, TS_ROW_UPDATE_AFTER, v, old, &err));
	assert_true(ts_table_writer_flush(w, &err));
	assert_int_equal(ts_table_writer_files(w), 1);
	/* a second flush with more records: a second level-0 file, numbered after */
	num(&v[1], 22);
	old[1] = v[1];
	assert_true(ts_table_writer_add_change(w, TS_ROW_UPDATE_AFTER, v, old, &err));
	num(&v[0], 3);
	num(&v[1], 30);
	assert_true(ts_table_writer_add_change(w, TS_ROW_DELETE, v, NULL, &err));
	assert_true(ts_table_writer_flush(w, &err));
	assert_int_equal(ts_table_writer_files(w), 2);

	ts_arena_init(&a, 65536);
	/* more files than finished: refused */
	assert_false(ts_table_writer_pending_entries(w, 3, &a, &e, &err));
	assert_true(ts_table_writer_pending_entries(w, 2, &a, &e, &err));
	assert_int_equal(e[0].kind, TS_FILE_ADD);
	assert_int_equal(e[0].file.level, 0);
	assert_int_equal(e[0].bucket, 0);
	assert_int_equal(e[0].total_buckets, 1);
	assert_int_equal(e[0].file.row_count, 2);
	assert_int_equal(e[0].file.min_sequence_number, 5);	/* after the committed 0..4 */
	assert_int_equal(e[0].file.max_sequence_number, 6);
	assert_int_equal(e[1].file.row_count, 2);
	assert_int_equal(e[1].file.min_sequence_number, 7);
	assert_int_equal(e[1].file.max_sequence_number, 8);
	assert_int_equal(e[1].file.delete_row_count, 1);
	assert_true(e[0].file.min_key.len > 0 && e[0].file.key_stats.nnull_counts == 1);

	/* another session's view: the committed rows */
	plan = plan_with(root, NULL);
	rows = plan_rows(plan, 2);
	assert_string_equal(rows, "0 | 0; 1 | 10; 2 | 20; 3 | 30; 4 | 40");
	free(rows);
	assert_int_equal(plan->pending_files_total, 0);
	ts_plan_free(plan);

	/* this transaction's: merged by key and sequence number */
	rt.entries = e;
	rt.nentries = 2;
	plan = plan_with(root, &rt);
	rows = plan_rows(plan, 2);
	assert_string_equal(rows, "0 | 0; 1 | 10; 2 | 22; 4 | 40; 5 | 50");
	free(rows);
	assert_int_equal(plan->pending_files_total, 2);
	assert_int_equal(plan->pending_files_kept, 2);
	assert_int_equal(plan->nsplits, 1);
	assert_false(plan->splits[0].raw_convertible);	/* level 0 files merge */
	ts_plan_free(plan);

	/* only the first file: the second UPDATE and the DELETE not yet */
	rt.nentries = 1;
	plan = plan_with(root, &rt);
	rows = plan_rows(plan, 2);
	assert_string_equal(rows, "0 | 0; 1 | 10; 2 | 21; 3 | 30; 4 | 40; 5 | 50");
	free(rows);
	ts_plan_free(plan);

	/* the plan copied the entries: they may go before it */
	rt.nentries = 2;
	{
		ts_arena	b;
		ts_manifest_entry *e2;

		ts_arena_init(&b, 65536);
		assert_true(ts_table_writer_pending_entries(w, 2, &b, &e2, &err));
		rt.entries = e2;
		plan = plan_with(root, &rt);
		ts_arena_free(&b);
		rows = plan_rows(plan, 2);
		assert_string_equal(rows, "0 | 0; 1 | 10; 2 | 22; 4 | 40; 5 | 50");
		free(rows);
		ts_plan_free(plan);
	}

	/* the commit publishes what the plan read */
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	assert_int_equal(id, 2);
	ts_table_writer_free(w);
	plan = plan_with(root, NULL);
	rows = plan_rows(plan, 2);
	assert_string_equal(rows, "0 | 0; 1 | 10; 2 | 22; 4 | 40; 5 | 50");
	free(rows);
	ts_plan_free(plan);

	ts_arena_free(&a);
	remove_dir(dir);
}

static void
test_append_without_snapshot(void **state)
{
	char		tmpl[] = "/tmp/ts-unit-rtctx.XXXXXX";
	char	   *dir = make_dir(tmpl);
	char		root[512];
	ts_err		err;
	ts_table_writer *w;
	ts_arena	a;
	ts_manifest_entry *e;
	ts_realtime_context rt;
	ts_plan    *plan;
	char	   *rows;
	ts_scan_context ctx;
	static const ts_option keep_a[] = {{"dt", "a"}, {NULL, NULL}};
	const ts_option *const filters[] = {keep_a};

	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, APPEND_SCHEMA("\"dt\""));
	w = writer(root);
	for (int i = 0; i < 5; i++)
		add_row(w, i, i < 3 ? "a" : "b", 100 + i);
	/* open files count nothing until flushed */
	assert_int_equal(ts_table_writer_files(w), 0);
	assert_true(ts_table_writer_flush(w, &err));
	assert_int_equal(ts_table_writer_files(w), 2);
	ts_arena_init(&a, 65536);
	assert_true(ts_table_writer_pending_entries(w, 2, &a, &e, &err));
	for (int i = 0; i < 2; i++)
	{
		int64_t		rows_of = e[i].file.row_count;

		assert_true(rows_of == 3 || rows_of == 2);
		assert_int_equal(e[i].file.min_sequence_number, 0);	/* per bucket, from 0 */
		assert_int_equal(e[i].file.max_sequence_number, rows_of - 1);
		assert_int_equal(e[i].total_buckets, -1);
		assert_int_equal(e[i].file.value_stats.nnull_counts, 3);
		assert_int_equal(e[i].file.value_stats.null_counts[2], 0);
		assert_int_equal(e[i].file.nvalue_stats_cols, -1);
	}

	/* no snapshot: without them nothing, with them every row */
	plan = plan_with(root, NULL);
	assert_null(plan->snapshot);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);
	rt.entries = e;
	rt.nentries = 2;
	plan = plan_with(root, &rt);
	assert_null(plan->snapshot);
	rows = plan_rows(plan, 3);
	assert_string_equal(rows, "0 | a | 100; 1 | a | 101; 2 | a | 102; 3 | b | 103; 4 | b | 104");
	free(rows);
	assert_int_equal(plan->metrics.files_total, 2);
	assert_int_equal(plan->pending_files_kept, 2);
	ts_plan_free(plan);

	/* partition_filter dt = a: the other pending file is pruned */
	context_of(&ctx, root, &rt);
	ctx.npartition_filters = 1;
	ctx.partition_filters = filters;
	plan = plan_of(&ctx);
	rows = plan_rows(plan, 3);
	assert_string_equal(rows, "0 | a | 100; 1 | a | 101; 2 | a | 102");
	free(rows);
	assert_int_equal(plan->pending_files_total, 2);
	assert_int_equal(plan->pending_files_kept, 1);
	assert_int_equal(plan->metrics.files_pruned_partition, 1);
	ts_plan_free(plan);

	/* LIMIT keeps whole splits until their row counts reach it */
	ctx.npartition_filters = 0;
	ctx.limit = 1;
	plan = plan_of(&ctx);
	assert_int_equal(plan->nsplits, 1);
	assert_int_equal(plan->pending_files_kept, 1);
	ts_plan_free(plan);

	ts_table_writer_abort(w);
	ts_arena_free(&a);
	remove_dir(dir);
}

/* A read that names its snapshots cannot take the transaction's files. */
static void
test_incremental_refuses(void **state)
{
	char		tmpl[] = "/tmp/ts-unit-rtctx.XXXXXX";
	char	   *dir = make_dir(tmpl);
	char		root[512];
	ts_err		err;
	ts_table_writer *w;
	ts_arena	a;
	ts_manifest_entry *e;
	ts_realtime_context rt;
	ts_scan_context ctx;
	int64_t		id;
	static const ts_option incr[] = {{"incremental-between", "1,2"}};

	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, APPEND_SCHEMA(""));
	for (int c = 0; c < 2; c++)
	{
		w = writer(root);
		add_row(w, c, "x", c);
		assert_true(ts_table_writer_commit(w, "u", &id, &err));
		ts_table_writer_free(w);
	}
	w = writer(root);
	add_row(w, 2, "x", 2);
	assert_true(ts_table_writer_flush(w, &err));
	ts_arena_init(&a, 65536);
	assert_true(ts_table_writer_pending_entries(w, 1, &a, &e, &err));
	rt.entries = e;
	rt.nentries = 1;
	context_of(&ctx, root, &rt);
	ctx.options = incr;
	ctx.noptions = 1;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "rows written by this transaction"));
	assert_non_null(strstr(err.msg, "incremental"));
	/* without them the same read plans */
	ctx.realtime = NULL;
	ts_plan_free(plan_of(&ctx));
	ts_table_writer_abort(w);
	ts_arena_free(&a);
	remove_dir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pk_merge),
		cmocka_unit_test(test_append_without_snapshot),
		cmocka_unit_test(test_incremental_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
