/*
 * test_manifest_orc.c - manifest lists and manifests stored as ORC files
 * (manifest.format=orc), against the oracle's orc__manifest_* cases.
 * Needs the ORC reader (src/format/orc).
 */
#include "unit.h"

#include <cjson/cJSON.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"

ts_format_reader *(*volatile force_orc_reader) (const char *, const ts_read_column *, int,
												 const ts_reader_options *, ts_err *) = ts_orc_open;

static cJSON *
load_case(const char *name, const char **file)
{
	char		rel[512];
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	cJSON	   *j;

	snprintf(rel, sizeof(rel), "oracle/%s", name);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err));
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	snprintf(rel, sizeof(rel), "testdata/%s", cJSON_GetObjectItem(j, "file")->valuestring);
	*file = unit_shared_path(rel);
	return j;
}

static int64_t
jint(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_true(cJSON_IsNumber(v));
	return (int64_t) v->valuedouble;
}

/* INT partition value(s) of a serialized row against a JSON array of ints. */
static void
check_int_row(const ts_bytes *row, const cJSON *want)
{
	int			n = cJSON_GetArraySize(want);
	ts_type    *t = ts_type_new(TS_INT, true);
	const ts_type *types[8];
	ts_value	vals[8];
	ts_arena	arena;
	ts_err		err = {0};

	assert_true(n <= 8);
	for (int i = 0; i < n; i++)
		types[i] = t;
	ts_arena_init(&arena, 1024);
	assert_true(ts_binary_row_decode(row->data, row->len, types, n, vals, NULL, &arena, &err));
	for (int i = 0; i < n; i++)
		assert_int_equal(vals[i].v.i, (int64_t) cJSON_GetArrayItem(want, i)->valuedouble);
	ts_arena_free(&arena);
	ts_type_free(t);
}

static void
check_list(const char *case_name)
{
	const char *path;
	cJSON	   *o = load_case(case_name, &path);
	const cJSON *exp = cJSON_GetObjectItem(o, "expected_manifest_file_metas");
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_file_meta *m;
	int			n;

	ts_arena_init(&arena, 4096);
	if (!ts_manifest_list_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err))
		fail_msg("%s: %s", case_name, err.msg);
	assert_int_equal(n, cJSON_GetArraySize(exp));
	for (int i = 0; i < n; i++)
	{
		const cJSON *e = cJSON_GetArrayItem(exp, i);
		const cJSON *ps = cJSON_GetObjectItem(e, "partition_stats");

		assert_string_equal(m[i].file_name, cJSON_GetObjectItem(e, "file_name")->valuestring);
		assert_int_equal(m[i].file_size, jint(e, "file_size"));
		assert_int_equal(m[i].num_added_files, jint(e, "num_added_files"));
		assert_int_equal(m[i].num_deleted_files, jint(e, "num_deleted_files"));
		assert_int_equal(m[i].schema_id, jint(e, "schema_id"));
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "min_bucket")))
		{
			assert_true(m[i].has_bucket_range);
			assert_int_equal(m[i].min_bucket, jint(e, "min_bucket"));
			assert_int_equal(m[i].max_bucket, jint(e, "max_bucket"));
			assert_true(m[i].has_level_range);
			assert_int_equal(m[i].min_level, jint(e, "min_level"));
			assert_int_equal(m[i].max_level, jint(e, "max_level"));
		}
		/* _MIN_ROW_ID/_MAX_ROW_ID: set exactly when the case states them */
		assert_int_equal(m[i].has_row_id_range,
						 cJSON_IsNumber(cJSON_GetObjectItem(e, "min_row_id")));
		if (m[i].has_row_id_range)
		{
			assert_int_equal(m[i].min_row_id, jint(e, "min_row_id"));
			assert_int_equal(m[i].max_row_id, jint(e, "max_row_id"));
		}
		if (cJSON_IsObject(ps))
		{
			const cJSON *nc = cJSON_GetObjectItem(ps, "null_counts");

			check_int_row(&m[i].partition_stats.min_values, cJSON_GetObjectItem(ps, "min"));
			check_int_row(&m[i].partition_stats.max_values, cJSON_GetObjectItem(ps, "max"));
			assert_int_equal(m[i].partition_stats.nnull_counts, cJSON_GetArraySize(nc));
			for (int k = 0; k < cJSON_GetArraySize(nc); k++)
				assert_int_equal(m[i].partition_stats.null_counts[k],
								 (int64_t) cJSON_GetArrayItem(nc, k)->valuedouble);
		}
		else
			assert_int_equal(ts_binary_row_arity(m[i].partition_stats.min_values.data,
												 m[i].partition_stats.min_values.len), 0);
	}
	ts_arena_free(&arena);
	cJSON_Delete(o);
}

static void
check_manifest(const char *case_name)
{
	const char *path;
	cJSON	   *o = load_case(case_name, &path);
	const cJSON *exp = cJSON_GetObjectItem(o, "expected_entries");
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_entry *m;
	int			n;

	ts_arena_init(&arena, 4096);
	if (!ts_manifest_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err))
		fail_msg("%s: %s", case_name, err.msg);
	assert_int_equal(n, cJSON_GetArraySize(exp));
	for (int i = 0; i < n; i++)
	{
		const cJSON *e = cJSON_GetArrayItem(exp, i);
		const cJSON *part = cJSON_GetObjectItem(e, "partition");
		cJSON	   *vals = cJSON_CreateArray();
		const cJSON *kv;

		assert_int_equal(m[i].kind, strcmp(cJSON_GetObjectItem(e, "kind")->valuestring, "ADD") == 0 ?
						 TS_FILE_ADD : TS_FILE_DELETE);
		cJSON_ArrayForEach(kv, part)
			cJSON_AddItemToArray(vals, cJSON_CreateNumber(kv->valuedouble));
		check_int_row(&m[i].partition, vals);
		cJSON_Delete(vals);
		assert_int_equal(m[i].bucket, jint(e, "bucket"));
		assert_int_equal(m[i].total_buckets, jint(e, "total_buckets"));
		assert_string_equal(m[i].file.file_name, cJSON_GetObjectItem(e, "file")->valuestring);
		assert_int_equal(m[i].file.file_size, jint(e, "file_size"));
		assert_int_equal(m[i].file.row_count, jint(e, "row_count"));
		assert_int_equal(m[i].file.min_sequence_number, jint(e, "min_sequence_number"));
		assert_int_equal(m[i].file.max_sequence_number, jint(e, "max_sequence_number"));
		assert_int_equal(m[i].file.schema_id, jint(e, "schema_id"));
		assert_int_equal(m[i].file.level, jint(e, "level"));
		assert_int_equal(m[i].file.delete_row_count, jint(e, "delete_row_count"));
		assert_int_equal(m[i].file.file_source,
						 strcmp(cJSON_GetObjectItem(e, "file_source")->valuestring, "Append") == 0 ? 0 : 1);
	}
	ts_arena_free(&arena);
	cJSON_Delete(o);
}

static void
test_orc_manifest_lists(void **state)
{
	(void) state;
	check_list("orc__manifest_list__append_09__empty.json");
	check_list("orc__manifest_list__append_09__snapshot_with_4_manifests.json");
	check_list("orc__manifest_list__append_with_global_index__row_id_range.json");
}

static void
test_orc_manifests(void **state)
{
	(void) state;
	check_manifest("orc__manifest_file__append_09__3a44a0da.json");
	check_manifest("orc__manifest_file__append_09__3ea5ee21.json");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orc_manifest_lists),
		cmocka_unit_test(test_orc_manifests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
