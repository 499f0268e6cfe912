/*
 * test_scan_reuse.c - what decides whether a plan made earlier may serve a
 * scan now (scan/reuse.c, used by src/fdw/plan_reuse.c): a plan of the
 * latest snapshot stops being current once a newer snapshot file exists,
 * a plan of a named snapshot (scan.snapshot-id, scan.tag-name) stays
 * current; a format table's never is.  The context fingerprint changes with
 * every input of planning and not with the predicate, the LIMIT or the row
 * ids; a field added to ts_scan_context or ts_s3_config fails the size
 * check until ts_scan_context_fingerprint hashes it.
 * Generated tables come from build/.../tools/ts_gen (or $TS_GEN).
 */
#include "unit.h"

#include "base/ts_azure.h"
#include "scan/scan.h"
#include "read/read.h"
#include "gen_tables.h"
#include "scan_plan.h"

/* format.c references readers weakly: pull them out of the archive */
ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;

/* A commit of snapshot 'id' as far as the check can see: its file appears. */
static void
add_snapshot_file(const char *table, int from, int id)
{
	gen_sh("cp %s/snapshot/snapshot-%d %s/snapshot/snapshot-%d", table, from, table, id);
}

static void
test_latest_current_until_commit(void **state)
{
	const char *path = gen_table("db.db/latest", "--column id:INT --rows 5 --snapshots 3");
	ts_scan_context ctx;
	ts_plan    *p;

	(void) state;
	scan_ctx_init(&ctx, path, NULL, 0);
	p = scan_plan_ok(&ctx);
	assert_int_equal(p->snapshot->id, 3);
	assert_true(ts_plan_is_current(p));
	assert_true(ts_plan_is_current(p));	/* a check changes nothing */
	add_snapshot_file(path, 3, 4);
	assert_false(ts_plan_is_current(p));
	gen_sh("rm %s/snapshot/snapshot-4", path);
	assert_true(ts_plan_is_current(p));
	ts_plan_free(p);
}

static void
test_named_snapshot_stays_current(void **state)
{
	const char *path = gen_table("db.db/named", "--column id:INT --rows 5 --snapshots 3");
	ts_option	by_id = {"scan.snapshot-id", "1"};
	ts_scan_context ctx;
	ts_plan    *p;

	(void) state;
	scan_ctx_init(&ctx, path, NULL, 0);
	ctx.noptions = 1;
	ctx.options = &by_id;
	p = scan_plan_ok(&ctx);
	assert_int_equal(p->snapshot->id, 1);
	assert_true(ts_plan_is_current(p));
	add_snapshot_file(path, 3, 4);
	assert_true(ts_plan_is_current(p));
	ts_plan_free(p);
	gen_sh("rm %s/snapshot/snapshot-4", path);
	/* a timestamp chooses among the snapshots up to the latest: not vouched for */
	{
		ts_option	by_time = {"scan.timestamp-millis", "9999999999999"};

		ctx.options = &by_time;
		p = scan_plan_ok(&ctx);
		assert_int_equal(p->snapshot->id, 3);
		assert_true(ts_plan_is_current(p));
		add_snapshot_file(path, 3, 4);
		assert_false(ts_plan_is_current(p));
		ts_plan_free(p);
	}
}

static void
test_empty_and_null(void **state)
{
	(void) state;
	assert_false(ts_plan_is_current(NULL));
}

/* ---- the fingerprint ----------------------------------------------------- */

static void
test_fingerprint(void **state)
{
	char		path_a[] = "/tmp/a/t",
				path_b[] = "/tmp/a/t";
	ts_option	opts_a[] = {{"scan.snapshot-id", "1"}, {"bucket", "4"}};
	ts_option	opts_b[] = {{"scan.snapshot-id", "1"}, {"bucket", "4"}};
	ts_option	opts_c[] = {{"scan.snapshot-id", "2"}, {"bucket", "4"}};
	ts_option	f1[] = {{"dt", "2024-01-01"}, {NULL, NULL}};
	ts_option	f2[] = {{"dt", "2024-01-02"}, {NULL, NULL}};
	const ts_option *filters1[] = {f1};
	const ts_option *filters2[] = {f2};
	ts_s3_config s3a = {.endpoint = "http://127.0.0.1:9000", .access_key = "AK", .secret_key = "SK"};
	ts_s3_config s3b = s3a;
	ts_azure_config aza = {.endpoint = "http://127.0.0.1:10000/acct", .account_key = "K1"};
	ts_azure_config azb = aza;
	const char *roots1[] = {"/tmp/a"};
	const char *roots2[] = {"/tmp/b"};
	ts_fs_scope scope1 = {.confined = true, .nroots = 1, .lexical = roots1, .resolved = roots1};
	ts_fs_scope scope2 = {.confined = true, .nroots = 1, .lexical = roots2, .resolved = roots2};
	ts_scan_context a,
				b;
	uint64_t	base;

	(void) state;
	scan_ctx_init(&a, path_a, NULL, 0);
	a.noptions = 2;
	a.options = opts_a;
	a.s3 = &s3a;
	a.fs_scope = &scope1;
	a.npartition_filters = 1;
	a.partition_filters = filters1;
	base = ts_scan_context_fingerprint(&a);

	/* the same inputs in other memory: the same fingerprint */
	b = a;
	b.table_path = path_b;
	b.options = opts_b;
	b.s3 = &s3b;
	assert_true(ts_scan_context_fingerprint(&b) == base);
	/* not an input of the comparison: predicate, LIMIT, row ids */
	b.limit = 10;
	b.predicate = (const struct ts_predicate *) &b;
	assert_true(ts_scan_context_fingerprint(&b) == base);

#define CHANGED(stmt) do { b = a; stmt; assert_true(ts_scan_context_fingerprint(&b) != base); } while (0)
	CHANGED(b.table_path = "/tmp/a/u");
	CHANGED(b.options = opts_c);
	CHANGED(b.noptions = 1);
	CHANGED(b.table_schema_json = "{}");
	CHANGED(b.partition_filters = filters2);
	CHANGED(b.npartition_filters = 0);
	CHANGED(b.has_bucket_filter = true);
	CHANGED(b.bucket_filter = 3);
	CHANGED(b.shard_k = 1; b.shard_n = 2);
	CHANGED(b.no_files = true);
	CHANGED(b.enable_pruning = false);
	CHANGED(b.no_cache = true);
	CHANGED(b.pin_snapshot = true);
	CHANGED(b.pinned_snapshot_id = 7);
	CHANGED(b.fs_scope = &scope2);
	CHANGED(b.fs_scope = NULL);
	CHANGED(b.s3 = NULL);
	CHANGED(s3b.secret_key = "SK2"; b.s3 = &s3b);
	CHANGED(s3b = s3a; s3b.access_key = "AK2"; b.s3 = &s3b);
	CHANGED(s3b = s3a; s3b.session_token = "T"; b.s3 = &s3b);
	CHANGED(s3b = s3a; s3b.endpoint = "http://127.0.0.1:9001"; b.s3 = &s3b);
	CHANGED(s3b = s3a; s3b.expires_at_ms = 1; b.s3 = &s3b);
	CHANGED(b.no_file_index = true);
	CHANGED(b.azure = &aza);
	{
		ts_manifest_entry pe[2];
		ts_realtime_context rt = {pe, 1};

		memset(pe, 0, sizeof(pe));
		pe[0].file.file_name = "data-1.parquet";
		pe[1].file.file_name = "data-2.parquet";
		CHANGED(b.realtime = &rt);
		b = a;
		b.realtime = &rt;
		base = ts_scan_context_fingerprint(&b);
		CHANGED(b.realtime = &rt; rt.nentries = 2);	/* one more pending file */
		rt.nentries = 1;
		CHANGED(b.realtime = &rt; pe[0].file.file_name = "data-3.parquet");
		base = ts_scan_context_fingerprint(&a);
	}
#undef CHANGED
	{
		ts_scan_context c1 = a,
					c2 = a;

		c1.azure = &aza;
		c2.azure = &azb;
		azb.account_key = "K2";
		assert_true(ts_scan_context_fingerprint(&c1) != ts_scan_context_fingerprint(&c2));
		azb = aza;
		azb.sas_token = "sv=x&sig=y";
		assert_true(ts_scan_context_fingerprint(&c1) != ts_scan_context_fingerprint(&c2));
		azb = aza;
		assert_true(ts_scan_context_fingerprint(&c1) == ts_scan_context_fingerprint(&c2));
	}

	/*
	 * A field added to either struct must be hashed by
	 * ts_scan_context_fingerprint (or said there why not): then update
	 * these sizes.
	 */
	assert_int_equal(sizeof(ts_scan_context), 152);
	assert_int_equal(sizeof(ts_s3_config), 104);
	assert_int_equal(sizeof(ts_azure_config), 64);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latest_current_until_commit),
		cmocka_unit_test(test_named_snapshot_stays_current),
		cmocka_unit_test(test_empty_and_null),
		cmocka_unit_test(test_fingerprint),
	};

	(void) argc;
	return gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
}
