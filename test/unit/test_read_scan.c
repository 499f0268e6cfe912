/*
 * test_read_scan.c - src/read driven by real plans (ts_scan_plan) over the
 * shared tables, compared with the oracle rows: merge-on-read
 * (deduplicate, partial-update with ignore-delete / remove-record-on-delete,
 * aggregation sum, first-row), deletion-vector tables, schema evolution,
 * plain append tables and data-evolution tables with BLOB files; Parquet
 * files read in byte parts.
 *
 * Cases whose rows depend on a row filter (a predicate the reader does
 * not apply) or on LIMIT are not listed.
 */
#include "read_oracle.h"

#include "scan/scan.h"
#include "read/read_internal.h"
#include "base/ts_background.h"

/*
 * Extra read options per case.  The two partial-update "override" cases
 * come from a C++ test whose options replace the table's (so the table's
 * ignore-delete=true is not in effect there): say so explicitly.  The
 * external-path tables point at /tmp/external, mapped to the copy under
 * <table>.db/external (oracle INDEX.md).
 */
static const struct
{
	const char *name;
	const char *key;
	const char *value;
}			extra_options[] = {
	{"parquet__pk_table_partial_update__deduplicate_override", "ignore-delete", "false"},
	{"parquet__pk_table_partial_update__remove_record_on_delete_override", "ignore-delete", "false"},
	{"orc__pk_dv_index_in_data_with_external__batch_latest", "external-path-map",
	"/tmp/external=>testdata/orc/pk_dv_index_in_data_with_external.db/external"},
	{"parquet__pk_dv_index_in_data_with_external__batch_latest", "external-path-map",
	"/tmp/external=>testdata/parquet/pk_dv_index_in_data_with_external.db/external"},
};

static const char *const cases[] = {
	/* merge-on-read, deduplicate */
	"orc__pk_table_scan_and_read_mor__batch_latest",
	"parquet__pk_table_scan_and_read_mor__batch_latest",
	"orc__pk_table_scan_and_read_mor__batch_snapshot2",
	"parquet__pk_table_scan_and_read_mor__batch_snapshot2",
	"orc__pk_table_scan_and_read_mor__batch_snapshot5_part10_bucket1",
	"parquet__pk_table_scan_and_read_mor__batch_snapshot5_part10_bucket1",
	/* read-time merge engine overrides */
	"orc__pk_table_scan_and_read_mor__partial_update_snapshot3_part10_bucket1",
	"parquet__pk_table_scan_and_read_mor__partial_update_snapshot3_part10_bucket1",
	"orc__pk_table_scan_and_read_mor__aggregate_sum_snapshot3_part10_bucket1",
	"parquet__pk_table_scan_and_read_mor__aggregate_sum_snapshot3_part10_bucket1",
	/* partial-update tables */
	"orc__pk_table_partial_update__batch_latest",
	"parquet__pk_table_partial_update__read_latest_ignore_delete",
	"parquet__pk_table_partial_update__deduplicate_override",
	"parquet__pk_table_partial_update__remove_record_on_delete_override",
	/* first-row */
	"orc__pk_table_scan_and_read_first_row__batch_snapshot5",
	"parquet__pk_table_scan_and_read_first_row__batch_snapshot5",
	/* deletion vectors */
	"orc__pk_table_scan_and_read_dv__batch_snapshot1_empty",
	"parquet__pk_table_scan_and_read_dv__batch_snapshot1_empty",
	"orc__pk_table_scan_and_read_dv__batch_snapshot6",
	"parquet__pk_table_scan_and_read_dv__batch_snapshot6",
	"orc__pk_table_scan_and_read_dv__batch_snapshot6_part10_bucket1",
	"parquet__pk_table_scan_and_read_dv__batch_snapshot6_part10_bucket1",
	"orc__pk_09_with_dv__batch_latest",
	"orc__pk_dv_index_in_data_no_external__batch_latest",
	"parquet__pk_dv_index_in_data_no_external__batch_latest",
	"orc__pk_dv_index_not_in_data_no_external__batch_latest",
	"parquet__pk_dv_index_not_in_data_no_external__batch_latest",
	"orc__pk_dv_index_in_data_with_external__batch_latest",
	"parquet__pk_dv_index_in_data_with_external__batch_latest",
	"orc__pk_with_bitmap_dv__read_level5_with_dv",
	"parquet__pk_with_bitmap_dv__read_level5_with_dv",
	/* nested types in a PK table */
	"orc__pk_table_nested_type__batch_latest",
	"parquet__pk_table_nested_type__batch_latest",
	/* append tables, schema evolution */
	"orc__append_09__batch_snapshot1",
	"orc__append_09__batch_snapshot3",
	"orc__append_09__batch_snapshot5",
	"parquet__append_09__batch_snapshot1",
	"parquet__append_09__batch_snapshot5",
	"orc__append_table_with_alter_table__read_snapshot2_all",
	"parquet__append_table_with_alter_table__read_snapshot2_all",
	"orc__append_table_with_alter_table_build_in_fieldid__read_snapshot2_builtin_fieldid",
	"parquet__append_table_with_alter_table__read_snapshot2_builtin_fieldid",
	/* data evolution with BLOB columns in .blob files (rolled: several per range) */
	"orc__blob_data_evolution_with_dense_stats__scan_read",
	"parquet__blob_data_evolution_with_dense_stats__scan_read",
	"orc__blob_append_table_alter_table_with_cast_with_data_evolution__scan_read",
	"parquet__blob_append_table_alter_table_with_cast_with_data_evolution__scan_read",
};

/* Run one case; returns NULL on success or a ts_malloc'd failure message. */
static char *
run_case(const char *name)
{
	cJSON	   *j = oracle_load(name);
	const cJSON *opts = cJSON_GetObjectItem(j, "options");
	const cJSON *snap = cJSON_GetObjectItem(j, "snapshot");
	const cJSON *pf = cJSON_GetObjectItem(j, "partition_filter");
	const cJSON *bf = cJSON_GetObjectItem(j, "bucket_filter");
	const cJSON *o;
	ts_option	options[32];
	ts_option	pfilters[8][8];
	const ts_option *pflist[8];
	char		snapbuf[32];
	char		mapbuf[1024];
	char		rel[512];
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	row_set		got = {0},
				want = {0};
	int			cols[64],
				ncols;
	char	   *failure = NULL;
	bool		has_snapshot_opt = false;

	memset(&ctx, 0, sizeof(ctx));
	snprintf(rel, sizeof(rel), "testdata/%s", cJSON_GetObjectItem(j, "table")->valuestring);
	ctx.table_path = unit_shared_path(rel);
	cJSON_ArrayForEach(o, opts)
	{
		if (strcmp(o->string, "limit") == 0)
			continue;
		if (strcmp(o->string, "scan.snapshot-id") == 0)
			has_snapshot_opt = true;
		options[ctx.noptions].key = o->string;
		options[ctx.noptions].value = o->valuestring;
		ctx.noptions++;
	}
	if (!has_snapshot_opt && cJSON_IsNumber(snap))
	{
		snprintf(snapbuf, sizeof(snapbuf), "%d", snap->valueint);
		options[ctx.noptions].key = "scan.snapshot-id";
		options[ctx.noptions].value = snapbuf;
		ctx.noptions++;
	}
	for (size_t i = 0; i < sizeof(extra_options) / sizeof(extra_options[0]); i++)
	{
		if (strcmp(extra_options[i].name, name) != 0)
			continue;
		options[ctx.noptions].key = extra_options[i].key;
		if (strcmp(extra_options[i].key, "external-path-map") == 0)
		{
			const char *arrow = strstr(extra_options[i].value, "=>");

			snprintf(mapbuf, sizeof(mapbuf), "%.*s=>%s", (int) (arrow - extra_options[i].value),
					 extra_options[i].value, unit_shared_path(arrow + 2));
			options[ctx.noptions].value = mapbuf;
		}
		else
			options[ctx.noptions].value = extra_options[i].value;
		ctx.noptions++;
	}
	ctx.options = options;
	if (cJSON_IsArray(pf))
	{
		const cJSON *alt;

		cJSON_ArrayForEach(alt, pf)
		{
			int			k = 0;
			const cJSON *kv;

			cJSON_ArrayForEach(kv, alt)
			{
				pfilters[ctx.npartition_filters][k].key = kv->string;
				pfilters[ctx.npartition_filters][k].value = kv->valuestring;
				k++;
			}
			pfilters[ctx.npartition_filters][k].key = NULL;
			pfilters[ctx.npartition_filters][k].value = NULL;
			pflist[ctx.npartition_filters] = pfilters[ctx.npartition_filters];
			ctx.npartition_filters++;
		}
		ctx.partition_filters = pflist;
	}
	if (cJSON_IsNumber(bf))
	{
		ctx.has_bucket_filter = true;
		ctx.bucket_filter = bf->valueint;
	}
	ctx.limit = -1;
	ctx.enable_pruning = true;

	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
	{
		failure = ts_psprintf("%s: plan: %s", name, err.msg);
		goto done;
	}
	ncols = oracle_columns(j, plan, cols);
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_reader_metrics m;

		if (read_split_rows(plan, &plan->splits[s], cols, ncols, &got, &err, &m) < 0)
		{
			failure = ts_psprintf("%s: read: %s", name, err.msg);
			goto done;
		}
		assert_int_equal(m.files_opened, plan->splits[s].nfiles);
	}
	oracle_rows(cJSON_GetObjectItem(j, "rows"), plan, cols, ncols, &want);
	if (got.n > 1)
		qsort(got.rows, got.n, sizeof(char *), cmp_str);
	if (want.n > 1)
		qsort(want.rows, want.n, sizeof(char *), cmp_str);
	if (got.n != want.n)
		failure = ts_psprintf("%s: %d rows, oracle %d", name, got.n, want.n);
	else
		for (int i = 0; i < got.n && !failure; i++)
			if (strcmp(got.rows[i], want.rows[i]) != 0)
				failure = ts_psprintf("%s: got [%s] want [%s]", name, got.rows[i], want.rows[i]);
	if (failure)
	{
		for (int i = 0; i < got.n; i++)
			fprintf(stderr, "  got : %s\n", got.rows[i]);
		for (int i = 0; i < want.n; i++)
			fprintf(stderr, "  want: %s\n", want.rows[i]);
	}
done:
	row_set_free(&got);
	row_set_free(&want);
	ts_plan_free(plan);
	cJSON_Delete(j);
	return failure;
}

static void
test_oracle_cases(void **state)
{
	int			failed = 0;

	(void) state;
	/*
	 * every case with default batches, then with 1, 2 and 3 rows per batch;
	 * the last two with background decompression allowed (base/background.c:
	 * nothing to do for these tables, whose Parquet files have one row group
	 * or none compressed with ZSTD, but the rows must not change; the
	 * DuckDB difftest reads ZSTD row groups ahead)
	 */
	for (int pass = 0; pass < 4; pass++)
	{
		ts_read_batch_rows = pass;
		ts_bg_set_enabled(pass >= 2);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			char	   *f = run_case(cases[i]);

			if (f)
			{
				fprintf(stderr, "FAIL (batch rows %d) %s\n", pass, f);
				ts_free(f);
				failed++;
			}
			else if (pass == 0)
				fprintf(stderr, "ok   %s\n", cases[i]);
		}
	}
	ts_read_batch_rows = 0;
	ts_bg_set_enabled(false);
	assert_int_equal(failed, 0);
}

/*
 * Aggregation overrides over pk_table_scan_and_read_mor at snapshot 5,
 * partition f1=10, bucket 1.  Expected values worked out by hand from the
 * table's README: +I Bob 12.1, Emily 13.1, Tony 14.1, Alex 16.1, David
 * 17.1 (snapshot 1); -D Tony (snapshot 2); +I Skye 21.0, Marco 21.1, +U Alex
 * 21.2 (snapshot 4); +I Skye2 31.0, Marco2 31.1, -D Alex 31.2 (snapshot 5).
 * Tony and Alex have several records; aggregation always yields +I
 * (AggregateMergeFunction), so retracted keys stay with retracted values.
 */
static void
run_expect(const char *const *opts, int nopts, const char *const *rows, int nrows,
		   const char *expect_error)
{
	ts_option	options[8];
	const ts_option pf[2] = {{"f1", "10"}, {NULL, NULL}};
	const ts_option *pfl[1] = {pf};
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	int			cols[4] = {0, 1, 2, 3};
	row_set		got = {0},
				want = {0};
	bool		failed = false;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = unit_shared_path("testdata/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor");
	options[0].key = "scan.snapshot-id";
	options[0].value = "5";
	for (int i = 0; i < nopts; i++)
	{
		options[1 + i].key = opts[2 * i];
		options[1 + i].value = opts[2 * i + 1];
	}
	ctx.noptions = 1 + nopts;
	ctx.options = options;
	ctx.npartition_filters = 1;
	ctx.partition_filters = pfl;
	ctx.has_bucket_filter = true;
	ctx.bucket_filter = 1;
	ctx.limit = -1;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("%s", err.msg);
	for (int s = 0; s < plan->nsplits; s++)
		if (read_split_rows(plan, &plan->splits[s], cols, 4, &got, &err, NULL) < 0)
			failed = true;
	if (expect_error)
	{
		assert_true(failed);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		if (strstr(err.msg, expect_error) == NULL)
			fail_msg("message does not name %s: %s", expect_error, err.msg);
	}
	else
	{
		if (failed)
			fail_msg("%s", err.msg);
		for (int i = 0; i < nrows; i++)
			row_set_add(&want, strdup(rows[i]));
		assert_same_rows(&got, &want, opts[nopts * 2 - 1]);
	}
	row_set_free(&got);
	row_set_free(&want);
	ts_plan_free(plan);
}

static void
run_override(const char *const *opts, int nopts, const char *alex_f3, const char *tony_f3,
			 const char *expect_error)
{
	char		alex[64],
				tony[64];
	const char *rows[9] = {
		alex, "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
		"Marco | 10 | 0 | 21.1", "Marco2 | 10 | 0 | 31.1", "Skye | 10 | 0 | 21.0",
		"Skye2 | 10 | 0 | 31.0", tony,
	};

	snprintf(alex, sizeof(alex), "Alex | 10 | 0 | %s", alex_f3 ? alex_f3 : "");
	snprintf(tony, sizeof(tony), "Tony | 10 | 0 | %s", tony_f3 ? tony_f3 : "");
	run_expect(opts, nopts, rows, 9, expect_error);
}

static void
test_aggregate_overrides(void **state)
{
	static const char *const dflt[] = {"merge-engine", "aggregation"};
	static const char *const max_ir[] = {"merge-engine", "aggregation",
		"fields.f3.aggregate-function", "max", "fields.f3.ignore-retract", "true"};
	static const char *const min_ir[] = {"merge-engine", "aggregation",
		"fields.default-aggregate-function", "min", "fields.f3.ignore-retract", "true"};
	static const char *const first_ir[] = {"merge-engine", "aggregation",
		"fields.f3.aggregate-function", "first_value", "fields.f3.ignore-retract", "true"};
	static const char *const last[] = {"merge-engine", "aggregation",
		"fields.f3.aggregate-function", "last_value"};
	static const char *const max_no_ir[] = {"merge-engine", "aggregation",
		"fields.f3.aggregate-function", "max"};
	static const char *const pu[] = {"merge-engine", "partial-update"};

	(void) state;
	run_override(dflt, 1, "NULL", "NULL", NULL);	/* last_non_null_value retracted by -D */
	run_override(max_ir, 3, "21.2", "14.1", NULL);
	run_override(min_ir, 3, "16.1", "14.1", NULL);
	run_override(first_ir, 3, "16.1", "14.1", NULL);
	run_override(last, 2, "NULL", "NULL", NULL);	/* last_value retract -> NULL */
	run_override(max_no_ir, 2, NULL, NULL, "ignore-retract");
	run_override(pu, 1, NULL, NULL, "partial-update");	/* -D without ignore-delete */
}

/*
 * sequence.field overrides write order (deduplicate).  Alex: +I 16.1,
 * +U 21.2, -D 31.2; Tony: +I 14.1, -D 14.1 (equal f3: _SEQUENCE_NUMBER
 * decides, -D last).  Ascending f3: Alex and Tony deleted.  Descending f3:
 * Alex's last record is +I 16.1; Tony still deleted.
 */
static void
test_sequence_field(void **state)
{
	static const char *const asc[] = {"sequence.field", "f3"};
	static const char *const desc[] = {"sequence.field", "f3", "sequence.field.sort-order", "descending"};
	static const char *const common[] = {
		"Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
		"Marco | 10 | 0 | 21.1", "Marco2 | 10 | 0 | 31.1", "Skye | 10 | 0 | 21.0",
		"Skye2 | 10 | 0 | 31.0", "Alex | 10 | 0 | 16.1",
	};

	(void) state;
	run_expect(asc, 1, common, 7, NULL);
	run_expect(desc, 2, common, 8, NULL);
}

/* Engines/options the reader cannot do are refused, naming them. */
static void
test_refused_options(void **state)
{
	static const struct
	{
		const char *key;
		const char *value;
		const char *expect;
	}			refused[] = {
		{"merge-engine", "funky", "funky"},
		{"fields.f3.sequence-group", "f2", "sequence-group"},
		{"fields.f3.aggregate-function", "hll_sketch", "hll_sketch"},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		ts_option	options[3];
		ts_scan_context ctx;
		ts_plan    *plan;
		ts_err		err = {0};
		int			cols[4] = {0, 1, 2, 3};
		row_set		got = {0};
		int			bad = 0;

		memset(&ctx, 0, sizeof(ctx));
		ctx.table_path = unit_shared_path("testdata/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor");
		options[0].key = refused[i].key;
		options[0].value = refused[i].value;
		options[1].key = "merge-engine";
		options[1].value = "aggregation";
		ctx.noptions = strcmp(refused[i].key, "merge-engine") == 0 ? 1 : 2;
		ctx.options = options;
		ctx.limit = -1;
		plan = ts_scan_plan(&ctx, &err);
		if (plan == NULL && strcmp(refused[i].key, "merge-engine") == 0)
		{
			/* an unknown merge engine is refused once, when the options are parsed */
			assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
			assert_non_null(strstr(err.msg, refused[i].expect));
			continue;
		}
		if (plan == NULL)
			fail_msg("%s", err.msg);
		for (int s = 0; s < plan->nsplits; s++)
		{
			if (plan->splits[s].raw_convertible)
				continue;
			if (read_split_rows(plan, &plan->splits[s], cols, 4, &got, &err, NULL) >= 0)
				fail_msg("option %s=%s was not refused", refused[i].key, refused[i].value);
			assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
			if (strstr(err.msg, refused[i].expect) == NULL)
				fail_msg("message does not name %s: %s", refused[i].expect, err.msg);
			bad++;
		}
		assert_true(bad > 0);
		row_set_free(&got);
		ts_plan_free(plan);
	}
}

/*
 * A Parquet file of an append table read in byte parts (a parallel scan's
 * tasks): the parts together give the file's rows, each once.  Not for the
 * files of primary-key tables (row positions matter there), nor when
 * _ROW_ID is read.
 */
static void
test_file_parts(void **state)
{
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	int			cols[64];
	int			ncols;
	int			row_id[1] = {TS_COLUMN_ROW_ID};
	int			checked = 0;

	(void) state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = unit_shared_path("testdata/parquet/append_complex_data.db/append_complex_data");
	ctx.limit = -1;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("%s", err.msg);
	ncols = plan->schema->nfields;
	assert_true(ncols <= 64);
	for (int i = 0; i < ncols; i++)
		cols[i] = i;
	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			ts_split	one = plan->splits[s];
			ts_scan_file file = one.files[f];
			int64_t		size = file.entry->file.file_size;
			row_set		whole = {0},
						parts = {0};

			assert_true(ts_split_file_reads_in_ranges(plan, &plan->splits[s], f, cols, ncols));
			assert_false(ts_split_file_reads_in_ranges(plan, &plan->splits[s], f, row_id, 1));
			one.nfiles = 1;
			one.files = &file;
			if (read_split_rows(plan, &one, cols, ncols, &whole, &err, NULL) < 0)
				fail_msg("%s", err.msg);
			for (int p = 0; p < 3; p++)
			{
				file.range_start = size * p / 3;
				file.range_end = p == 2 ? INT64_MAX : size * (p + 1) / 3;
				if (read_split_rows(plan, &one, cols, ncols, &parts, &err, NULL) < 0)
					fail_msg("%s", err.msg);
			}
			assert_true(whole.n > 0);
			assert_same_rows(&parts, &whole, ts_scan_file_label(plan, &file));
			row_set_free(&whole);
			row_set_free(&parts);
			checked++;
		}
	assert_true(checked > 0);
	ts_plan_free(plan);

	/* a primary-key table's files: never in parts, refused if asked */
	ctx.table_path = unit_shared_path("testdata/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv");
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("%s", err.msg);
	assert_true(plan->nsplits > 0);
	{
		ts_split	one = plan->splits[0];
		ts_scan_file file = one.files[0];
		row_set		rows = {0};

		cols[0] = 0;
		assert_false(ts_split_file_reads_in_ranges(plan, &plan->splits[0], 0, cols, 1));
		one.nfiles = 1;
		one.files = &file;
		file.range_start = 0;
		file.range_end = INT64_MAX;
		assert_true(read_split_rows(plan, &one, cols, 1, &rows, &err, NULL) < 0);
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "byte ranges"));
		row_set_free(&rows);
	}
	ts_plan_free(plan);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_cases),
		cmocka_unit_test(test_aggregate_overrides),
		cmocka_unit_test(test_sequence_field),
		cmocka_unit_test(test_refused_options),
		cmocka_unit_test(test_file_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
