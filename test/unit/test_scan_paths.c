/*
 * test_scan_paths.c - the format of a data file from its name
 * (scan_format_from_file_name, src/scan/paths.c): the names Paimon
 * writes (a fast look at the end), other extensions by name and any case,
 * compression suffixes, and names without a usable extension.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_from_file_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
