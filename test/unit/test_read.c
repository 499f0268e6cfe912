/*
 * test_read.c - the split reader over real tables, through hand-built
 * plans and splits (the file lists of the oracle's "read_splits"), so it
 * does not depend on src/scan.
 *
 * Cases: schema evolution by field id (append_table_with_alter_table,
 * ORC and Parquet), primary-key raw reads with deletion vectors
 * (pk_with_bitmap_dv, pk_table_with_dv_cardinality), merge-on-read of the
 * same files without the DV, count(*)-style reads, and failures (corrupt
 * DV, unsupported cast, unsupported merge engine).
 */
#include "read_oracle.h"

#include "meta/schema.h"
#include "read/deletion_vector.h"

/*
 * The plan's schema cache normally lives in src/scan; the hand-built plans
 * below preload every schema, found here.  Weak so that the
 * real one wins when src/scan is linked.
 */
__attribute__((weak)) const ts_schema *
ts_plan_schema(ts_plan *plan, int64_t schema_id, ts_err *err)
{
	for (int i = 0; i < plan->nschemas; i++)
		if (plan->schemas[i]->id == schema_id)
			return plan->schemas[i];
	return ts_error(err, TS_ERR_NOT_FOUND, "schema %lld not preloaded", (long long) schema_id), NULL;
}

typedef struct test_table
{
	ts_plan		plan;
	ts_split	split;
	ts_manifest_entry entries[8];
	ts_scan_file files[8];
	ts_value	partition[4];
	char	   *paths[8];
} test_table;

static void
table_init(test_table *t, const char *table_rel, int nschemas, ts_table_kind kind)
{
	ts_err		err = {0};
	char		rel[512];

	memset(t, 0, sizeof(*t));
	snprintf(rel, sizeof(rel), "testdata/%s", table_rel);
	t->plan.table_path = ts_strdup(unit_shared_path(rel));
	t->plan.branch_root = t->plan.table_path;
	t->plan.kind = kind;
	t->plan.fs = ts_fs_local_unconfined();
	t->plan.nschemas = nschemas;
	t->plan.schemas = ts_calloc(nschemas, sizeof(ts_schema *));
	for (int i = 0; i < nschemas; i++)
	{
		t->plan.schemas[i] = ts_schema_load(ts_fs_local_unconfined(), t->plan.table_path, i, &err);
		if (t->plan.schemas[i] == NULL)
			fail_msg("%s", err.msg);
	}
	t->plan.schema = t->plan.schemas[nschemas - 1];
}

static void
table_add_file(test_table *t, const char *bucket_dir, const char *file, int64_t schema_id,
			   int level)
{
	int			i = t->split.nfiles++;
	char		rel[1024];

	snprintf(rel, sizeof(rel), "%s/%s", bucket_dir, file);
	t->paths[i] = ts_path_join(t->plan.table_path, rel);
	t->entries[i].file.file_name = (char *) file;
	t->entries[i].file.schema_id = schema_id;
	t->entries[i].file.level = level;
	t->entries[i].file.nwrite_cols = -1;
	t->entries[i].file.file_source = -1;
	t->entries[i].file.delete_row_count = 0;
	t->files[i].entry = &t->entries[i];
	t->files[i].built_path = t->paths[i];
	t->files[i].format = ts_format_from_name(strrchr(file, '.') + 1);
	t->files[i].dv_cardinality = -1;
	t->split.files = t->files;
}

static void
table_free(test_table *t)
{
	for (int i = 0; i < t->split.nfiles; i++)
	{
		ts_free(t->paths[i]);
		ts_free(t->files[i].dv_path);
	}
	for (int i = 0; i < t->plan.nschemas; i++)
		ts_schema_free(t->plan.schemas[i]);
	ts_free(t->plan.schemas);
	ts_free(t->plan.table_path);
}

/* ---- schema evolution ------------------------------------------------- */

static void
run_alter_table(const char *fmt)
{
	char		name[256],
				table[256];
	cJSON	   *j;
	const cJSON *sp;
	row_set		got = {0},
				want = {0};
	int			cols[16],
				ncols;

	snprintf(name, sizeof(name), "%s__append_table_with_alter_table__read_snapshot2_all", fmt);
	snprintf(table, sizeof(table), "%s/append_table_with_alter_table.db/append_table_with_alter_table", fmt);
	j = oracle_load(name);

	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(j, "read_splits"))
	{
		test_table t;
		ts_err		err = {0};
		const cJSON *f;
		int			k = 0;

		table_init(&t, table, 2, TS_TABLE_APPEND);
		ncols = oracle_columns(j, &t.plan, cols);
		t.partition[0].v.i = cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "partition"), "key0")->valueint;
		t.partition[1].v.i = cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "partition"), "key1")->valueint;
		t.split.partition_values = t.partition;
		t.split.raw_convertible = true;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(sp, "files"))
		{
			int64_t		sid = cJSON_GetArrayItem(cJSON_GetObjectItem(sp, "schema_ids"), k++)->valueint;

			table_add_file(&t, cJSON_GetObjectItem(sp, "bucket_dir")->valuestring, f->valuestring, sid, 0);
		}
		if (read_split_rows(&t.plan, &t.split, cols, ncols, &got, &err, NULL) < 0)
			fail_msg("%s: %s", name, err.msg);
		if (want.n == 0)
			oracle_rows(cJSON_GetObjectItem(j, "rows"), &t.plan, cols, ncols, &want);
		table_free(&t);
	}
	assert_same_rows(&got, &want, name);
	row_set_free(&got);
	row_set_free(&want);
	cJSON_Delete(j);
}

static void
test_alter_table_orc(void **state)
{
	(void) state;
	run_alter_table("orc");
}

static void
test_alter_table_parquet(void **state)
{
	(void) state;
	run_alter_table("parquet");
}

/* Projection of a renamed column, a partition column and an added column. */
static void
test_alter_table_projection(void **state)
{
	test_table	t;
	ts_err		err = {0};
	row_set		got = {0};
	ts_reader_metrics m;
	int			cols[3];

	(void) state;
	table_init(&t, "orc/append_table_with_alter_table.db/append_table_with_alter_table", 2, TS_TABLE_APPEND);
	/* schema-1: key0 key1 k c d a e -> read a (id 5, was d), key1, e (added) */
	cols[0] = 5;
	cols[1] = 1;
	cols[2] = 6;
	t.partition[0].v.i = 0;
	t.partition[1].v.i = 1;
	t.split.partition_values = t.partition;
	t.split.raw_convertible = true;
	table_add_file(&t, "key0=0/key1=1/bucket-0", "data-2190cec3-ce87-4175-8d19-9268becf4440-0.orc", 0, 0);
	if (read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, &m) < 0)
		fail_msg("%s", err.msg);
	/* schema-0 file of partition (0,1): a <- d = 15, 25, 35 (oracle rows) */
	qsort(got.rows, got.n, sizeof(char *), cmp_str);
	assert_int_equal(got.n, 3);
	assert_string_equal(got.rows[0], "15 | 1 | NULL");
	assert_string_equal(got.rows[1], "25 | 1 | NULL");
	assert_string_equal(got.rows[2], "35 | 1 | NULL");
	assert_int_equal(m.files_opened, 1);
	assert_true(m.bytes_read > 0);
	row_set_free(&got);

	/* count(*): no columns, only row counts */
	{
		ts_split_reader *r = ts_split_reader_open(&t.plan, &t.split, NULL, 0, &err);
		ts_batch	b;
		int			n,
					total = 0;

		assert_non_null(r);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
		{
			assert_int_equal(b.ncols, 0);
			total += n;
		}
		assert_int_equal(n, 0);
		assert_int_equal(total, 3);
		ts_split_reader_close(r);
	}
	table_free(&t);
}

/* ---- primary-key tables with deletion vectors -------------------------- */

static void
run_pk_dv(const char *fmt, const char *table, const char *bucket_dir, const char *file,
		  const char *dv_rel, const char *oracle, int64_t cardinality)
{
	test_table	t;
	ts_err		err = {0};
	row_set		got = {0},
				want = {0};
	int			cols[16],
				ncols;
	cJSON	   *j = oracle_load(oracle);
	char		rel[512];

	table_init(&t, table, 1, TS_TABLE_PRIMARY_KEY);
	ncols = oracle_columns(j, &t.plan, cols);
	t.partition[0].v.i = 10;
	t.split.partition_values = t.partition;
	t.split.raw_convertible = true;
	table_add_file(&t, bucket_dir, file, 0, 5);
	snprintf(rel, sizeof(rel), "testdata/%s/%s", table, dv_rel);
	t.files[0].dv_path = ts_strdup(unit_shared_path(rel));
	t.files[0].dv_offset = 1;
	t.files[0].dv_length = 24;
	t.files[0].dv_cardinality = cardinality;
	if (read_split_rows(&t.plan, &t.split, cols, ncols, &got, &err, NULL) < 0)
		fail_msg("%s: %s", oracle, err.msg);
	oracle_rows(cJSON_GetObjectItem(j, "rows"), &t.plan, cols, ncols, &want);
	assert_same_rows(&got, &want, oracle);
	row_set_free(&got);
	row_set_free(&want);

	/* the same file merged on read (one sorted run): same rows */
	t.split.raw_convertible = false;
	if (read_split_rows(&t.plan, &t.split, cols, ncols, &got, &err, NULL) < 0)
		fail_msg("%s (merge): %s", oracle, err.msg);
	oracle_rows(cJSON_GetObjectItem(j, "rows"), &t.plan, cols, ncols, &want);
	assert_same_rows(&got, &want, oracle);
	row_set_free(&got);
	row_set_free(&want);

	/* wrong cardinality in the index manifest -> corrupt, naming the DV file */
	t.split.raw_convertible = true;
	t.files[0].dv_cardinality = cardinality + 1;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, ncols, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index-"));
	row_set_free(&got);

	/* a DV pointing into a data file: bad version/magic -> corrupt */
	ts_free(t.files[0].dv_path);
	t.files[0].dv_path = ts_strdup(t.files[0].built_path);
	t.files[0].dv_cardinality = -1;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, ncols, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, file));
	row_set_free(&got);
	(void) fmt;
	table_free(&t);
	cJSON_Delete(j);
}

static void
test_pk_bitmap_dv(void **state)
{
	(void) state;
	run_pk_dv("orc", "orc/pk_with_bitmap_dv.db/pk_with_bitmap_dv", "bucket-0",
			  "data-0da0dc51-797c-4c82-9b08-269b2ce400dc-0.orc",
			  "index/index-73ec72e9-489e-49d9-a96c-f6db9b56fa07-0",
			  "orc__pk_with_bitmap_dv__read_level5_with_dv", 2);
	run_pk_dv("parquet", "parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv", "bucket-0",
			  "data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet",
			  "index/index-daed25d2-8e68-45ba-aaad-ff342666ef27-0",
			  "parquet__pk_with_bitmap_dv__read_level5_with_dv", 2);
}

static void
test_pk_dv_cardinality(void **state)
{
	(void) state;
	run_pk_dv("orc", "orc/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality", "f1=10/bucket-1",
			  "data-2ffe7ae9-2cf7-41e9-944b-2065585cde31-0.orc",
			  "index/index-86356766-3238-46e6-990b-656cd7409eaa-1",
			  "orc__pk_table_with_dv_cardinality__read_p10_b1_with_dv", 2);
}

/* ---- casts on real files ------------------------------------------------ */

/*
 * append_table_alter_table_with_cast_with_data_evolution: the two schema-0
 * files (each written with some columns) read with schema-1 exercise
 * STRING->INT, TIMESTAMP(9)->STRING, DECIMAL(5,2)->DECIMAL(6,3),
 * STRING->BOOLEAN and DATE->TIMESTAMP(9).  Rows 0-4 of the oracle; the
 * columns a file did not write read as NULL.  (Stitching the files by row
 * id is data evolution, refused by the reader; here each file is read on
 * its own with the table's data-evolution option hidden.)
 */
static void
test_casts_real_files(void **state)
{
	static const struct
	{
		const char *file;
		bool		has[5];		/* f4 key0 key1 f3 f1 f2 f0 -> which of f4,f3,f1,f2,f0 */
	}			files[] = {
		{"data-681d7bef-2feb-47b6-81cf-e9a520be7a6f-0.parquet", {false, true, true, true, false}},
		{"data-33b8e5a6-9dac-4da4-9ce5-b8674d5ce6c3-0.parquet", {true, false, false, false, true}},
	};
	/* oracle column positions of f4, f3, f1, f2, f0 */
	static const int opos[5] = {0, 3, 4, 5, 6};
	cJSON	   *j = oracle_load("parquet__append_table_alter_table_with_cast_with_data_evolution__scan_read");

	(void) state;
	for (int fi = 0; fi < 2; fi++)
	{
		test_table	t;
		ts_err		err = {0};
		row_set		got = {0},
					want = {0};
		int			cols[5];
		int			saved_nopts;

		table_init(&t, "parquet/append_table_alter_table_with_cast_with_data_evolution.db/"
				   "append_table_alter_table_with_cast_with_data_evolution", 2, TS_TABLE_APPEND);
		saved_nopts = t.plan.schema->noptions;
		t.plan.schema->noptions = 0;
		for (int c = 0; c < 5; c++)
		{
			const char *names[5] = {"f4", "f3", "f1", "f2", "f0"};

			cols[c] = -1;
			for (int i = 0; i < t.plan.schema->nfields; i++)
				if (strcmp(t.plan.schema->fields[i].name, names[c]) == 0)
					cols[c] = i;
			assert_true(cols[c] >= 0);
		}
		t.partition[0].v.i = 0;
		t.partition[1].v.i = 1;
		t.split.partition_values = t.partition;
		t.split.raw_convertible = true;
		table_add_file(&t, "key0=0/key1=1/bucket-0", files[fi].file, 0, 0);
		if (read_split_rows(&t.plan, &t.split, cols, 5, &got, &err, NULL) < 0)
			fail_msg("%s: %s", files[fi].file, err.msg);
		for (int r = 0; r < 5; r++)
		{
			const cJSON *orow = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), r);
			char	   *cells[5];

			for (int c = 0; c < 5; c++)
			{
				const ts_type *ty = t.plan.schema->fields[cols[c]].type;

				cells[c] = files[fi].has[c] ?
					oracle_cell(cJSON_GetArrayItem(orow, opos[c]), ty) : ts_strdup("NULL");
				normalize_cell(cells[c], ty);
			}
			row_set_add(&want, join_cells(cells, 5));
			for (int c = 0; c < 5; c++)
				ts_free(cells[c]);
		}
		assert_same_rows(&got, &want, files[fi].file);
		row_set_free(&got);
		row_set_free(&want);
		t.plan.schema->noptions = saved_nopts;
		table_free(&t);
	}
	cJSON_Delete(j);
}

/* ---- failures ------------------------------------------------------------ */

/*
 * BLOB files join the data files of their row-id range: the dense-stats
 * table's split (two data files of row ids 0..1 and one blob file) read
 * as Java does, then the grouping rules broken one at a time.
 */
static void
test_blob_bunches(void **state)
{
	static const char *const data_cols0[] = {"f1", "f2"};
	static const char *const data_cols1[] = {"f2", "f3"};
	static const char *const blob_cols[] = {"f0"};
	static const ts_option opt = {"data-evolution.enabled", "true"};
	static const ts_option no_evolution = {"data-evolution.enabled", "false"};
	const char *dir = "bucket-0";
	test_table	t;
	ts_err		err = {0};
	row_set		got = {0};
	int			cols[3] = {0, 2, TS_COLUMN_ROW_ID};	/* f0 (BLOB), f2, _ROW_ID */

	(void) state;
	table_init(&t, "parquet/blob_data_evolution_with_dense_stats.db/blob_data_evolution_with_dense_stats",
			   1, TS_TABLE_APPEND);
	t.plan.noptions = 1;
	t.plan.options = (ts_option *) &opt;
	t.plan.core.data_evolution = true;	/* parsed from the options, as ts_scan_prepare does */
	t.split.raw_convertible = true;
	table_add_file(&t, dir, "data-d007a81e-4682-42da-b458-eb0423a64511-1.blob", 0, 0);
	table_add_file(&t, dir, "data-d007a81e-4682-42da-b458-eb0423a64511-0.parquet", 0, 0);
	table_add_file(&t, dir, "data-9c5c3529-ead7-4c18-979a-d08a4030383c-0.parquet", 0, 0);
	for (int i = 0; i < 3; i++)
	{
		t.entries[i].file.has_first_row_id = true;
		t.entries[i].file.first_row_id = 0;
		t.entries[i].file.row_count = 2;
		t.entries[i].file.max_sequence_number = i < 2 ? 1 : 2;
		t.entries[i].file.nwrite_cols = i == 0 ? 1 : 2;
	}
	t.entries[0].file.write_cols = (char **) blob_cols;
	t.entries[1].file.write_cols = (char **) data_cols0;
	t.entries[2].file.write_cols = (char **) data_cols1;

	if (read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(got.n, 2);
	qsort(got.rows, got.n, sizeof(char *), cmp_str);
	assert_string_equal(got.rows[0], "\\x416c696365 | 104 | 1");
	assert_string_equal(got.rows[1], "\\x4c696c79 | 102 | 0");
	row_set_free(&got);

	/* the blob file does not start where the data files do */
	t.entries[0].file.first_row_id = 1;
	t.entries[0].file.row_count = 1;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "starts at row id 1, expected 0"));

	/* it covers fewer rows than the data files */
	t.entries[0].file.first_row_id = 0;
	t.entries[0].file.row_count = 1;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "cover row ids 0..0, the data files 0..1"));

	/* two blob files of one field with different sequence numbers */
	t.entries[0].file.row_count = 2;
	table_add_file(&t, dir, "data-d007a81e-4682-42da-b458-eb0423a64511-1.blob", 0, 0);
	t.entries[3] = t.entries[0];
	t.files[3].entry = &t.entries[3];
	t.entries[3].file.max_sequence_number = 3;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "different sequence numbers"));
	t.split.nfiles = 3;
	ts_free(t.paths[3]);

	/* a blob file without its data files */
	t.split.nfiles = 1;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "has no data file"));

	/* blob files outside data-evolution tables */
	t.split.nfiles = 3;
	t.plan.options = (ts_option *) &no_evolution;
	t.plan.core.data_evolution = false;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 3, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "BLOB file (.blob)"));
	table_free(&t);
}

static void
test_unsupported(void **state)
{
	test_table	t;
	ts_err		err = {0};
	row_set		got = {0};
	int			cols[1] = {3};	/* c: INT in both schemas */
	ts_type    *saved;
	ts_option	opt = {"merge-engine", "first-row-of-something"};

	(void) state;
	table_init(&t, "orc/append_table_with_alter_table.db/append_table_with_alter_table", 2, TS_TABLE_APPEND);
	t.partition[0].v.i = 0;
	t.partition[1].v.i = 1;
	t.split.partition_values = t.partition;
	t.split.raw_convertible = true;
	table_add_file(&t, "key0=0/key1=1/bucket-0", "data-2190cec3-ce87-4175-8d19-9268becf4440-0.orc", 0, 0);

	/* pretend the read schema says ARRAY<INT>: INT -> ARRAY is no cast */
	saved = t.plan.schema->fields[3].type;
	t.plan.schema->fields[3].type = ts_type_new(TS_ARRAY, true);
	t.plan.schema->fields[3].type->element = ts_type_new(TS_INT, true);
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 1, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"c\""));
	assert_non_null(strstr(err.msg, "ARRAY"));
	ts_type_free(t.plan.schema->fields[3].type);
	t.plan.schema->fields[3].type = saved;

	/* unknown merge engine on a merge-on-read split */
	t.plan.kind = TS_TABLE_PRIMARY_KEY;
	t.plan.noptions = 1;
	t.plan.options = &opt;
	t.split.raw_convertible = false;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 1, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "first-row-of-something"));

	/* data evolution: a file without _FIRST_ROW_ID cannot be placed */
	opt.key = "data-evolution.enabled";
	opt.value = "true";
	t.plan.core.data_evolution = true;	/* parsed from the options, as ts_scan_prepare does */
	t.plan.kind = TS_TABLE_APPEND;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 1, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "_FIRST_ROW_ID"));
	t.plan.noptions = 0;
	t.plan.options = NULL;
	t.plan.core.data_evolution = false;

	/* system columns need row tracking */
	cols[0] = TS_COLUMN_ROW_ID;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 1, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "row-tracking.enabled"));

	/* column index out of range */
	cols[0] = 99;
	assert_int_equal(read_split_rows(&t.plan, &t.split, cols, 1, &got, &err, NULL), -1);
	assert_int_equal(err.code, TS_ERR_INVALID);
	row_set_free(&got);
	table_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alter_table_orc),
		cmocka_unit_test(test_alter_table_parquet),
		cmocka_unit_test(test_alter_table_projection),
		cmocka_unit_test(test_pk_bitmap_dv),
		cmocka_unit_test(test_pk_dv_cardinality),
		cmocka_unit_test(test_casts_real_files),
		cmocka_unit_test(test_blob_bunches),
		cmocka_unit_test(test_unsupported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
