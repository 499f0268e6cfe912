/*
 * test_scan_paths.c - data file names (src/scan/paths.c): the format of a
 * data file from its name (scan_format_from_file_name: the names Paimon
 * writes, other extensions by name and any case, compression suffixes,
 * names without a usable extension), and the path of a data file of an
 * unpartitioned table from its bucket and name, names that would leave
 * the bucket directory refused.
 */
#include "unit.h"

#include "scan/scan_internal.h"

static void
test_format_from_file_name(void **state)
{
	static const struct
	{
		const char *name;
		ts_file_format format;
	}			cases[] = {
		{"data-1d099556-215d-4e80-9f98-3f090412a2c7-0.avro", TS_FORMAT_AVRO},
		{"data-0.parquet", TS_FORMAT_PARQUET},
		{"data-0.orc", TS_FORMAT_ORC},
		{"x.tar.avro", TS_FORMAT_AVRO},
		{".avro", TS_FORMAT_AVRO},
		{".orc", TS_FORMAT_ORC},
		{"x.AVRO", TS_FORMAT_AVRO},
		{"x.Parquet", TS_FORMAT_PARQUET},
		{"x.avro.zst", TS_FORMAT_AVRO},
		{"x.csv.gz", TS_FORMAT_CSV},
		{"x.json", TS_FORMAT_JSON},
		{"x.txt", TS_FORMAT_TEXT},
		{"avro", TS_FORMAT_UNKNOWN},
		{"orc", TS_FORMAT_UNKNOWN},
		{"xavro", TS_FORMAT_UNKNOWN},
		{"x.", TS_FORMAT_UNKNOWN},
		{"x.gz", TS_FORMAT_UNKNOWN},
		{"x.unknown", TS_FORMAT_UNKNOWN},
		{"d.avro/x", TS_FORMAT_UNKNOWN},
		{"", TS_FORMAT_UNKNOWN},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (scan_format_from_file_name(cases[i].name) != cases[i].format)
			fail_msg("\"%s\": format %d, expected %d", cases[i].name,
					 (int) scan_format_from_file_name(cases[i].name), (int) cases[i].format);
}

static void
test_data_file_path(void **state)
{
	static const char *const bad[] = {"", ".", "..", "a/b", "/x", "x/", "../x"};
	static const char *const good[] = {"data-0.avro", "...", ".x", "..x", "x.."};
	ts_plan		plan;
	scan_state	st;
	ts_manifest_entry e;
	ts_err		err = {0};
	char	   *path;
	char		want[256];

	(void) state;
	memset(&plan, 0, sizeof(plan));
	memset(&st, 0, sizeof(st));
	memset(&e, 0, sizeof(e));
	ts_arena_init(&plan.arena, 0);
	plan.table_path = "/wh/db.db/t";
	e.bucket = 3;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		e.file.file_name = (char *) good[i];
		assert_true(scan_data_file_path(&plan, &st, &e, &path, &err));
		snprintf(want, sizeof(want), "/wh/db.db/t/bucket-3/%s", good[i]);
		assert_string_equal(path, want);
	}
	e.file.file_name = NULL;
	assert_false(scan_data_file_path(&plan, &st, &e, &path, &err));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		e.file.file_name = (char *) bad[i];
		memset(&err, 0, sizeof(err));
		if (scan_data_file_path(&plan, &st, &e, &path, &err))
			fail_msg("\"%s\" taken as a data file name", bad[i]);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
	ts_arena_free(&plan.arena);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_from_file_name),
		cmocka_unit_test(test_data_file_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
