/*
 * test_scan.c - table scan planning on the real Java-written tables with
 * Avro manifests (../shared/testdata), checked against the oracle:
 * read_splits (file sets, bucket directories, deletion vectors), row
 * counts of full-table reads (sum of file row counts minus DV
 * cardinalities where the plan needs no merge), time travel, branches,
 * partition / bucket filters, bucket inference, external paths, errors.
 */
#include "scan_oracle.h"

#include "meta/bucket.h"
#include "expr/predicate.h"

/* format.c references readers weakly: pull the Avro reader out of the archive */
ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;

static void
test_oracle_read_splits(void **state)
{
	(void) state;
	/* pk_09 x4, append_table_with_alter_table x4, partial_update x3, dv_cardinality, complex_data */
	assert_true(oracle_check_read_splits(TS_FORMAT_AVRO) >= 12);
}

static void
test_oracle_row_counts(void **state)
{
	(void) state;
	assert_true(oracle_check_row_counts(TS_FORMAT_AVRO) >= 15);
}

/* ---- specific behaviours --------------------------------------------- */

static void
ctx_init(ts_scan_context *ctx, const char *table_rel)
{
	char		rel[1024];

	memset(ctx, 0, sizeof(*ctx));
	snprintf(rel, sizeof(rel), "testdata/%s", table_rel);
	ctx->table_path = strdup(unit_shared_path(rel));
	ctx->limit = -1;
	ctx->enable_pruning = true;
}

static void
ctx_done(ts_scan_context *ctx)
{
	free((void *) ctx->table_path);
}

#define PK_DV "parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"

/* Snapshot 1 of a DV table holds only level-0 files: a batch plan is empty. */
static void
test_dv_level0_invisible(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", "1"};
	ts_plan    *plan;

	(void) state;
	ctx_init(&ctx, PK_DV);
	ctx.noptions = 1;
	ctx.options = &o;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->kind, TS_TABLE_PRIMARY_KEY);
	assert_non_null(plan->snapshot);
	assert_int_equal(plan->snapshot->id, 1);
	/* level-0-only manifests are skipped by _MAX_LEVEL, or read and dropped */
	assert_true(plan->metrics.manifests_skipped + plan->metrics.entries_read > 0);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);
	ctx_done(&ctx);
}

static void
test_missing_snapshot(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", "99"};
	ts_err		err = {0};
	int64_t		latest = 0;

	(void) state;
	ctx_init(&ctx, PK_DV);
	ctx.noptions = 1;
	ctx.options = &o;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "99"));
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), ctx.table_path, &latest, &err));
	{
		char		range[64];

		snprintf(range, sizeof(range), "1 to %lld", (long long) latest);
		assert_non_null(strstr(err.msg, range));
	}
	ctx_done(&ctx);
}

/* scan.timestamp-millis picks the newest snapshot committed at or before t. */
static void
test_timestamp_travel(void **state)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_snapshot *s3;
	char		t[32];
	ts_option	o = {"scan.timestamp-millis", t};
	ts_plan    *plan;

	(void) state;
	ctx_init(&ctx, PK_DV);
	s3 = ts_snapshot_load(ts_fs_local_unconfined(), ctx.table_path, 3, &err);
	assert_non_null(s3);
	ctx.noptions = 1;
	ctx.options = &o;
	snprintf(t, sizeof(t), "%lld", (long long) s3->time_millis);
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->snapshot->id, 3);
	ts_plan_free(plan);
	snprintf(t, sizeof(t), "%lld", (long long) s3->time_millis - 1);
	plan = scan_plan_ok(&ctx);
	assert_true(plan->snapshot->id < 3);
	ts_plan_free(plan);
	snprintf(t, sizeof(t), "1000");
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	ts_snapshot_free(s3);
	ctx_done(&ctx);
}

/* partition_filter and bucket_filter select exactly the matching files. */
static void
test_partition_and_bucket_filter(void **state)
{
	ts_scan_context ctx,
				full;
	ts_option	o = {"scan.snapshot-id", "6"};
	ts_option	kv[2] = {{"f1", "10"}, {NULL, NULL}};
	const ts_option *pf[1] = {kv};
	ts_plan    *plan,
			   *all;
	int64_t		want = 0;
	char		buf[4096];

	(void) state;
	ctx_init(&full, PK_DV);
	full.noptions = 1;
	full.options = &o;
	all = scan_plan_ok(&full);
	for (int s = 0; s < all->nsplits; s++)
		if (strcmp(plan_file_bucket_dir(all, &all->splits[s].files[0], buf, sizeof(buf)),
				   "f1=10/bucket-1") == 0)
			want += all->splits[s].nfiles;
	assert_true(want > 0);

	ctx_init(&ctx, PK_DV);
	ctx.noptions = 1;
	ctx.options = &o;
	ctx.npartition_filters = 1;
	ctx.partition_filters = pf;
	ctx.has_bucket_filter = true;
	ctx.bucket_filter = 1;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 1);
	assert_string_equal(plan_file_bucket_dir(plan, &plan->splits[0].files[0], buf, sizeof(buf)),
						"f1=10/bucket-1");
	assert_int_equal(plan->splits[0].partition_values[0].v.i, 10);
	assert_int_equal(plan_total_files(plan), want);
	assert_string_equal(plan->bucket_pruning, "explicit bucket_filter 1");
	assert_int_equal(plan->metrics.files_kept, want);
	assert_int_equal(plan->metrics.files_total, plan_total_files(all));
	assert_int_equal(plan->metrics.files_total - want,
					 plan->metrics.files_pruned_partition + plan->metrics.files_pruned_bucket);
	ts_plan_free(plan);

	/* bucket 7 exists nowhere: no files, no error (CLARIFICATIONS 1) */
	ctx.bucket_filter = 7;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);

	/* a partition that does not exist */
	kv[0].value = "99";
	ctx.has_bucket_filter = false;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);

	ts_plan_free(all);
	ctx_done(&ctx);
	ctx_done(&full);
}

/*
 * no_files (src/fdw: a _SHARD qual naming another shard): the table and
 * its snapshot resolved, no manifest read, no file kept; the same table
 * without it keeps files.
 */
static void
test_no_files(void **state)
{
	ts_scan_context ctx;
	ts_plan    *plan;

	(void) state;
	ctx_init(&ctx, PK_DV);
	plan = scan_plan_ok(&ctx);
	assert_true(plan->nsplits > 0);
	assert_false(plan->no_files);
	ts_plan_free(plan);
	ctx.no_files = true;
	ctx.shard_k = 2;
	ctx.shard_n = 3;
	plan = scan_plan_ok(&ctx);
	assert_true(plan->no_files);
	assert_non_null(plan->snapshot);
	assert_int_equal(plan->nsplits, 0);
	assert_int_equal(plan->metrics.manifests_read, 0);
	assert_int_equal(plan->metrics.files_kept, 0);
	assert_int_equal(plan->shard_k, 2);	/* EXPLAIN still names the shard */
	ts_plan_free(plan);
	ctx_done(&ctx);
}

static void
test_bucket_filter_errors(void **state)
{
	ts_scan_context ctx;
	ts_err		err = {0};

	(void) state;
	ctx_init(&ctx, PK_DV);
	ctx.has_bucket_filter = true;
	ctx.bucket_filter = -1;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	ctx_done(&ctx);

	/* bucket-unaware append table */
	ctx_init(&ctx, "parquet/append_complex_data.db/append_complex_data");
	ctx.has_bucket_filter = true;
	ctx.bucket_filter = 0;
	memset(&err, 0, sizeof(err));
	{
		ts_plan    *p = ts_scan_plan(&ctx, &err);

		/* append_complex_data has fixed buckets: allowed; check the table */
		if (p)
		{
			const char *b = ts_plan_option(p, "bucket");

			assert_true(b && atoi(b) > 0);
			ts_plan_free(p);
		}
	}
	ctx_done(&ctx);

	ctx_init(&ctx, "parquet/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone");
	ctx.has_bucket_filter = true;
	ctx.bucket_filter = 0;
	memset(&err, 0, sizeof(err));
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "bucket"));
	ctx_done(&ctx);
}

/*
 * Bucket inference: f2 = v on a table with bucket-key f2 keeps only the
 * files of bucket(v); every other file of the full plan is pruned, and
 * the kept files are exactly the full plan's files in that bucket.
 */
static void
test_bucket_inference(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", "6"};
	ts_plan    *all,
			   *plan;
	ts_value	lit;
	ts_predicate pred;
	int			f2;
	int32_t		want_bucket;
	ts_err		err = {0};
	int64_t		want = 0;

	(void) state;
	ctx_init(&ctx, PK_DV);
	ctx.noptions = 1;
	ctx.options = &o;
	all = scan_plan_ok(&ctx);
	assert_string_equal(ts_plan_option(all, "bucket-key"), "f2");
	f2 = ts_schema_field_index(all->schema, "f2");
	assert_true(f2 >= 0);

	memset(&lit, 0, sizeof(lit));
	lit.v.i = 1;
	memset(&pred, 0, sizeof(pred));
	pred.op = TS_PRED_EQ;
	pred.field = f2;
	pred.nliterals = 1;
	pred.literals = &lit;
	ctx.predicate = &pred;
	plan = scan_plan_ok(&ctx);
	assert_string_equal(plan->bucket_pruning, "inferred from f2");
	{
		const ts_type *kt = all->schema->fields[f2].type;

		assert_true(ts_bucket_compute(TS_BUCKET_FN_DEFAULT, &kt, &lit, 1, 2, &want_bucket, &err));
	}
	for (int s = 0; s < all->nsplits; s++)
		if (all->splits[s].bucket == want_bucket)
			want += all->splits[s].nfiles;
	assert_true(want > 0 && want < plan_total_files(all));
	assert_int_equal(plan_total_files(plan), want);
	for (int s = 0; s < plan->nsplits; s++)
		assert_int_equal(plan->splits[s].bucket, want_bucket);
	assert_int_equal(plan->metrics.files_pruned_bucket, plan_total_files(all) - want);
	ts_plan_free(plan);

	/* a range predicate cannot pin the bucket (and f2 > -1000 prunes no stats) */
	pred.op = TS_PRED_GT;
	lit.v.i = -1000;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan_total_files(plan), plan_total_files(all));
	assert_non_null(strstr(plan->bucket_pruning, "none: bucket key f2"));
	ts_plan_free(plan);

	/* IN over both buckets' values keeps everything */
	{
		ts_value	lits[8];
		int			k;

		memset(lits, 0, sizeof(lits));
		for (k = 0; k < 8; k++)
			lits[k].v.i = k;
		pred.op = TS_PRED_IN;
		pred.nliterals = 8;
		pred.literals = lits;
		plan = scan_plan_ok(&ctx);
		assert_int_equal(plan_total_files(plan), plan_total_files(all));
		assert_string_equal(plan->bucket_pruning, "inferred from f2");
		ts_plan_free(plan);
	}
	ts_plan_free(all);
	ctx_done(&ctx);
}

/*
 * The predicate's partition part prunes exactly, even on a merge-on-read
 * table where value stats may not be used: f1 = 10 keeps exactly the
 * f1=10 files of the full plan; f1 IS NULL keeps none (f1 is NOT NULL).
 */
static void
test_partition_predicate(void **state)
{
	ts_scan_context ctx;
	ts_plan    *all,
			   *plan;
	ts_value	lit;
	ts_predicate pred;
	int64_t		want = 0;
	char		buf[4096];

	(void) state;
	ctx_init(&ctx, "parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor");
	all = scan_plan_ok(&ctx);
	assert_int_equal(all->kind, TS_TABLE_PRIMARY_KEY);
	for (int s = 0; s < all->nsplits; s++)
		if (strncmp(plan_file_bucket_dir(all, &all->splits[s].files[0], buf, sizeof(buf)), "f1=10/", 6) == 0)
			want += all->splits[s].nfiles;
	assert_true(want > 0 && want < plan_total_files(all));

	memset(&lit, 0, sizeof(lit));
	lit.v.i = 10;
	memset(&pred, 0, sizeof(pred));
	pred.op = TS_PRED_EQ;
	pred.field = ts_schema_field_index(all->schema, "f1");
	pred.nliterals = 1;
	pred.literals = &lit;
	ctx.predicate = &pred;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan_total_files(plan), want);
	for (int s = 0; s < plan->nsplits; s++)
		assert_int_equal(plan->splits[s].partition_values[0].v.i, 10);
	assert_int_equal(plan->metrics.files_pruned_partition, plan_total_files(all) - want);
	ts_plan_free(plan);

	pred.op = TS_PRED_IS_NULL;
	pred.nliterals = 0;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);

	/* with enable_pruning off the predicate prunes nothing */
	ctx.enable_pruning = false;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan_total_files(plan), plan_total_files(all));
	ts_plan_free(plan);
	ts_plan_free(all);
	ctx_done(&ctx);
}

/* External data paths map through external-path-map; DV index files too. */
static void
test_external_paths(void **state)
{
	ts_scan_context ctx;
	char		map[4096];
	ts_option	o = {"external-path-map", map};
	ts_plan    *plan;
	int			external = 0,
				dvs = 0;

	(void) state;
	ctx_init(&ctx, "parquet/pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external");
	snprintf(map, sizeof(map), "FILE:/tmp/external=>%s/testdata/parquet/pk_dv_index_in_data_with_external.db/external",
			 unit_shared_dir());
	ctx.noptions = 1;
	ctx.options = &o;
	plan = scan_plan_ok(&ctx);
	plan_assert_paths_exist(plan);
	for (int s = 0; s < plan->nsplits; s++)
		for (int k = 0; k < plan->splits[s].nfiles; k++)
		{
			const ts_scan_file *f = &plan->splits[s].files[k];

			if (f->entry->file.external_path)
			{
				external++;
				assert_non_null(strstr(ts_scan_file_label(plan, f), "pk_dv_index_in_data_with_external.db/external/f1="));
			}
			if (f->dv_path)
				dvs++;
			assert_int_equal(f->format, TS_FORMAT_PARQUET);
		}
	assert_true(external > 0);
	assert_true(dvs > 0);
	ts_plan_free(plan);
	ctx_done(&ctx);
}

/* A table with a schema but no snapshot plans to nothing. */
static void
test_no_snapshot(void **state)
{
	ts_scan_context ctx;
	ts_plan    *plan;

	(void) state;
	ctx_init(&ctx, "orc/append_table_with_nested_type.db/append_table_with_nested_type");
	plan = scan_plan_ok(&ctx);
	assert_null(plan->snapshot);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);
	ctx_done(&ctx);
}

static void
test_not_a_table(void **state)
{
	ts_scan_context ctx;
	ts_err		err = {0};

	(void) state;
	ctx_init(&ctx, "parquet/no_such_table.db/nothing");
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "no_such_table"));
	ctx_done(&ctx);
}

/* Branch "test": schema/snapshots from branch/branch-test, files from the root. */
static void
test_branch(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"branch", "test"};
	ts_plan    *plan;
	cJSON	   *oc = oracle_load("parquet__append_table_with_append_pt_branch__branch_test_batch.json");
	int64_t		rows = 0;

	(void) state;
	ctx_init(&ctx, "parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch");
	ctx.noptions = 1;
	ctx.options = &o;
	plan = scan_plan_ok(&ctx);
	assert_non_null(strstr(plan->branch_root, "/branch/branch-test"));
	plan_assert_paths_exist(plan);
	assert_true(plan_raw_rows(plan, &rows));
	assert_int_equal(rows, cJSON_GetArraySize(cJSON_GetObjectItem(oc, "rows")));
	ts_plan_free(plan);

	o.value = "nope";
	{
		ts_err		err = {0};

		assert_null(ts_scan_plan(&ctx, &err));
		assert_int_equal(err.code, TS_ERR_NOT_FOUND);
		assert_non_null(strstr(err.msg, "nope"));
	}
	cJSON_Delete(oc);
	ctx_done(&ctx);
}

/* Splits of a plan read from the fallback branch / the branch itself. */
static void
count_branch_splits(const ts_plan *plan, int *main_splits, int *fallback_splits)
{
	*main_splits = *fallback_splits = 0;
	for (int i = 0; i < plan->nsplits; i++)
		(*(plan->splits[i].fallback ? fallback_splits : main_splits))++;
}

/*
 * scan.fallback-branch (schema option of both tables): partitions the
 * branch lacks come from the fallback branch, planned as its own table.
 */
/*
 * A pinned snapshot (every process of a parallel scan plans the leader's):
 * a latest read reads it, with the splits of that snapshot read by id;
 * pinned 0 reads no snapshot; time travel options name their own snapshot
 * and ignore the pin; a fallback branch's latest snapshot is not pinned.
 */
static void
test_pinned_snapshot(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", "2"};
	ts_plan    *pinned,
			   *by_id,
			   *plan;
	int64_t		latest = 0;
	ts_err		err = {0};

	(void) state;
	ctx_init(&ctx, PK_DV);
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), ctx.table_path, &latest, &err));
	assert_true(latest > 2);
	ctx.pin_snapshot = true;
	ctx.pinned_snapshot_id = 2;
	pinned = scan_plan_ok(&ctx);
	assert_non_null(pinned->snapshot);
	assert_int_equal(pinned->snapshot->id, 2);
	ctx.pin_snapshot = false;
	ctx.noptions = 1;
	ctx.options = &o;
	by_id = scan_plan_ok(&ctx);
	assert_int_equal(pinned->nsplits, by_id->nsplits);
	for (int i = 0; i < pinned->nsplits; i++)
	{
		assert_int_equal(pinned->splits[i].nfiles, by_id->splits[i].nfiles);
		for (int f = 0; f < pinned->splits[i].nfiles; f++)
			assert_string_equal(ts_scan_file_label(pinned, &pinned->splits[i].files[f]),
								ts_scan_file_label(by_id, &by_id->splits[i].files[f]));
	}
	ts_plan_free(pinned);
	ts_plan_free(by_id);

	/* time travel wins over the pin */
	ctx.pin_snapshot = true;
	ctx.pinned_snapshot_id = 1;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->snapshot->id, 2);
	ts_plan_free(plan);

	/* pinned 0: the leader's table had no snapshot */
	ctx.noptions = 0;
	ctx.options = NULL;
	ctx.pinned_snapshot_id = 0;
	plan = scan_plan_ok(&ctx);
	assert_null(plan->snapshot);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);

	/* the leader's snapshot expired before a worker read it: not found */
	ctx.pinned_snapshot_id = latest + 1000;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "does not exist"));
	ctx_done(&ctx);

	/* the main branch is pinned, its fallback branch reads its own latest (2) */
	ctx_init(&ctx, "parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch");
	ctx.pin_snapshot = true;
	ctx.pinned_snapshot_id = 1;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->snapshot->id, 1);
	assert_non_null(plan->fallback);
	assert_int_equal(plan->fallback->snapshot->id, 2);
	ts_plan_free(plan);
	ctx_done(&ctx);
}

static void
test_fallback_branch(void **state)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	int			nmain,
				nfb;
	ts_value	lit = {0};
	ts_predicate eq = {.op = TS_PRED_EQ, .field = 1, .nliterals = 1, .literals = &lit};
	ts_option	primary = {"scan.primary-branch", "test"};

	(void) state;
	ctx_init(&ctx, "parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch");
	plan = scan_plan_ok(&ctx);
	assert_string_equal(plan->fallback_branch, "test");
	assert_non_null(plan->fallback);
	assert_int_equal(plan->main_partitions, 1);
	assert_int_equal(plan->fallback_partitions, 1);
	count_branch_splits(plan, &nmain, &nfb);
	assert_int_equal(nmain, 1);
	assert_int_equal(nfb, 1);
	for (int i = 0; i < plan->nsplits; i++)
		assert_int_equal(plan->splits[i].partition_values[0].v.i, plan->splits[i].fallback ? 2 : 1);
	/* the fallback plan has the branch's own schema (schema-1 there has value2) */
	assert_int_equal(plan->fallback->schema->nfields, 3);
	assert_non_null(strstr(plan->fallback->branch_root, "branch/branch-test"));
	ts_plan_free(plan);

	/* scan.primary-branch stays refused */
	ctx.noptions = 1;
	ctx.options = &primary;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "scan.primary-branch"));
	ctx_done(&ctx);

	/*
	 * A partition is complete in the branch when it has files, whatever the
	 * data predicate prunes: name = 'peach' prunes the branch's files of
	 * dt=20240725 by stats, yet the fallback's peach (dt=20240725) is not
	 * read; only the fallback's dt=20240726 (stats may match) is.
	 */
	ctx_init(&ctx, "parquet/append_table_with_rt_branch.db/append_table_with_rt_branch");
	lit.v.s.p = (const uint8_t *) "peach";
	lit.v.s.len = 5;
	ctx.predicate = &eq;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->fallback->kind, TS_TABLE_PRIMARY_KEY);
	count_branch_splits(plan, &nmain, &nfb);
	assert_int_equal(nmain, 0);
	for (int i = 0; i < plan->nsplits; i++)
		assert_true(plan->splits[i].partition_values[0].v.s.len == 8 &&
					memcmp(plan->splits[i].partition_values[0].v.s.p, "20240726", 8) == 0);
	assert_int_equal(plan->main_partitions, 0);
	ts_plan_free(plan);
	ctx_done(&ctx);
}

/* LIMIT on an append table keeps whole splits until the limit is covered. */
static void
test_limit(void **state)
{
	ts_scan_context ctx;
	ts_plan    *all,
			   *plan;

	(void) state;
	ctx_init(&ctx, "parquet/append_complex_data.db/append_complex_data");
	all = scan_plan_ok(&ctx);
	assert_true(all->nsplits > 1);
	ctx.limit = 1;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 1);
	ts_plan_free(plan);
	ts_plan_free(all);
	ctx_done(&ctx);
}

static void
test_list_tables(void **state)
{
	char	  **names;
	int			n;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_list_tables(ts_fs_local_unconfined(), unit_shared_path("testdata/parquet/pk_09.db"), &names, &n, &err));
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "pk_09");
	ts_free_names(names, n);
	assert_false(ts_list_tables(ts_fs_local_unconfined(), unit_shared_path("testdata/parquet/none.db"), &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_read_splits),
		cmocka_unit_test(test_oracle_row_counts),
		cmocka_unit_test(test_dv_level0_invisible),
		cmocka_unit_test(test_missing_snapshot),
		cmocka_unit_test(test_timestamp_travel),
		cmocka_unit_test(test_partition_and_bucket_filter),
		cmocka_unit_test(test_bucket_filter_errors),
		cmocka_unit_test(test_bucket_inference),
		cmocka_unit_test(test_partition_predicate),
		cmocka_unit_test(test_external_paths),
		cmocka_unit_test(test_no_snapshot),
		cmocka_unit_test(test_not_a_table),
		cmocka_unit_test(test_branch),
		cmocka_unit_test(test_fallback_branch),
		cmocka_unit_test(test_pinned_snapshot),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_no_files),
		cmocka_unit_test(test_list_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
