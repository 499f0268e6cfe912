/*
 * test_rest.c - the REST catalog client's parsing (src/scan/rest_catalog.c)
 * and URL encoding (src/base/http.c), without a server: GetTableResponse
 * into a schema file's JSON that the schema parser reads, paged name lists,
 * and answers of the wrong shape refused with the endpoint named.
 */
#include "unit.h"

#include "base/ts_fs.h"
#include "base/ts_http.h"
#include "meta/schema.h"
#include "scan/ts_rest.h"

static void
test_parse_table(void **state)
{
	const char *body =
		"{\"id\":\"x\",\"name\":\"t\",\"path\":\"file:/wh/db.db/t\",\"isExternal\":false,"
		"\"schemaId\":4,\"schema\":{\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT NOT NULL\"},"
		"{\"id\":1,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"id\":7,\"name\":\"x\",\"type\":\"STRING\"}]}},"
		"{\"id\":2,\"name\":\"l\",\"type\":{\"type\":\"ARRAY\",\"element\":{\"type\":\"ROW\",\"fields\":[{\"id\":9,\"name\":\"y\",\"type\":\"INT\"}]}}}],"
		"\"partitionKeys\":[],\"options\":{\"type\":\"format-table\",\"file.format\":\"csv\"},"
		"\"comment\":\"hello\"}}";
	ts_rest_table t;
	ts_err		err = {0};
	ts_schema  *s;

	(void) state;
	assert_true(ts_rest_parse_table("GET t", body, &t, &err));
	assert_string_equal(t.path, "file:/wh/db.db/t");
	assert_int_equal(t.schema_id, 4);
	assert_true(t.format_table);
	assert_false(t.is_external);
	assert_string_equal(t.comment, "hello");
	assert_non_null(strstr(t.schema_json, "\"highestFieldId\":9"));
	assert_non_null(strstr(t.schema_json, "\"primaryKeys\":[]"));
	s = ts_schema_parse(t.schema_json, strlen(t.schema_json), "catalog schema", &err);
	assert_non_null(s);
	assert_int_equal(s->id, 4);
	assert_int_equal(s->nfields, 3);
	assert_string_equal(s->comment, "hello");
	ts_schema_free(s);
	ts_rest_table_free(&t);
}

static void
test_parse_partitions(void **state)
{
	ts_rest_partition *p;
	int			n;
	char	   *next;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_rest_parse_partitions("GET p",
										 "{\"partitions\":[{\"spec\":{\"dt\":\"2024-06-01\",\"hr\":\"3\"},"
										 "\"recordCount\":10,\"fileSizeInBytes\":2048,\"fileCount\":2},"
										 "{\"spec\":{\"dt\":\"2024-06-02\",\"hr\":\"0\"}}],"
										 "\"nextPageToken\":\"2\"}", &p, &n, &next, &err));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].nspec, 2);
	assert_string_equal(p[0].spec[0].key, "dt");
	assert_string_equal(p[0].spec[0].value, "2024-06-01");
	assert_string_equal(p[0].spec[1].value, "3");
	assert_int_equal(p[0].record_count, 10);
	assert_int_equal(p[0].file_size, 2048);
	assert_int_equal(p[0].file_count, 2);
	assert_int_equal(p[1].record_count, -1);
	assert_string_equal(next, "2");
	ts_free(next);
	ts_rest_partitions_free(p, n);

	/* the last page, an empty one */
	assert_true(ts_rest_parse_partitions("GET p", "{\"partitions\":[]}", &p, &n, &next, &err));
	assert_int_equal(n, 0);
	assert_null(next);
	ts_rest_partitions_free(p, n);

	/* wrong shapes name the endpoint and the field */
	assert_false(ts_rest_parse_partitions("GET p", "{\"partitions\":{}}", &p, &n, &next, &err));
	assert_non_null(strstr(err.msg, "GET p"));
	assert_false(ts_rest_parse_partitions("GET p", "{\"partitions\":[{\"spec\":[]}]}", &p, &n,
										  &next, &err));
	assert_non_null(strstr(err.msg, "partitions[].spec"));
	assert_false(ts_rest_parse_partitions("GET p", "{\"partitions\":[{\"spec\":{\"dt\":1}}]}", &p,
										  &n, &next, &err));
	assert_non_null(strstr(err.msg, "\"dt\""));
	assert_false(ts_rest_parse_partitions("GET p", "{\"partitions\":[{\"spec\":{},\"recordCount\":\"x\"}]}",
										  &p, &n, &next, &err));
	assert_non_null(strstr(err.msg, "recordCount"));
	assert_false(ts_rest_parse_partitions("GET p", "{\"partitions\":[{\"spec\":{}}, 3]}", &p, &n,
										  &next, &err));
	assert_false(ts_rest_parse_partitions("GET p", "{\"nextPageToken\":5}", &p, &n, &next, &err));
	assert_non_null(strstr(err.msg, "nextPageToken"));
	assert_false(ts_rest_parse_partitions("GET p", "nope", &p, &n, &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
}

static void
test_parse_table_refused(void **state)
{
	ts_rest_table t;
	ts_err		err = {0};

	(void) state;
	assert_false(ts_rest_parse_table("GET t", "[]", &t, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_rest_parse_table("GET t", "{\"path\":3,\"schema\":{\"fields\":[]}}", &t, &err));
	assert_non_null(strstr(err.msg, "\"path\""));
	assert_false(ts_rest_parse_table("GET t", "{\"path\":\"/x\",\"schema\":{}}", &t, &err));
	assert_non_null(strstr(err.msg, "schema.fields"));
	assert_false(ts_rest_parse_table("GET t", "{\"path\":\"/x\",\"isExternal\":\"no\",\"schema\":{\"fields\":[]}}",
									 &t, &err));
	assert_non_null(strstr(err.msg, "isExternal"));
	assert_non_null(strstr(err.msg, "GET t"));
}

/* A NUL escaped in any string is refused naming its field; CR/LF in a location too. */
static void
test_parse_table_nul(void **state)
{
	ts_rest_table t;
	ts_err		err = {0};

	(void) state;
	assert_false(ts_rest_parse_table("GET t", "{\"path\":\"s3://b/t\\u0000/x\",\"schema\":{\"fields\":[]}}",
									 &t, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "field \"path\" contains a NUL"));
	assert_false(ts_rest_parse_table("GET t",
									 "{\"path\":\"s3://b/t\",\"schema\":{\"fields\":[{\"id\":0,"
									 "\"name\":\"a\\u0000b\",\"type\":\"INT\"}]}}", &t, &err));
	assert_non_null(strstr(err.msg, "field \"schema.fields[0].name\" contains a NUL"));
	assert_false(ts_rest_parse_table("GET t", "{\"path\":\"s3://b/t\",\"sch\\u0000ema\":1,"
									 "\"schema\":{\"fields\":[]}}", &t, &err));
	assert_non_null(strstr(err.msg, "contains a NUL"));
	assert_false(ts_rest_parse_table("GET t", "{\"path\":\"s3://b/t\\r\\nHost: x\",\"schema\":{\"fields\":[]}}",
									 &t, &err));
	assert_non_null(strstr(err.msg, "field \"path\" contains a control character"));
	/* an escaped backslash before "u0000" is no NUL */
	assert_true(ts_rest_parse_table("GET t", "{\"path\":\"s3://b/t\\\\u0000\",\"schema\":{\"fields\":[]}}",
									&t, &err));
	assert_string_equal(t.path, "s3://b/t\\u0000");
	ts_rest_table_free(&t);
}

static void
test_parse_names(void **state)
{
	char	  **names;
	int			n;
	char	   *next;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_rest_parse_names("GET d", "{\"tables\":[\"a\",\"b\"],\"nextPageToken\":\"2\"}",
									"tables", &names, &n, &next, &err));
	assert_int_equal(n, 2);
	assert_string_equal(names[1], "b");
	assert_string_equal(next, "2");
	ts_free_names(names, n);
	ts_free(next);
	assert_true(ts_rest_parse_names("GET d", "{\"tables\":[]}", "tables", &names, &n, &next, &err));
	assert_int_equal(n, 0);
	assert_null(next);
	ts_free_names(names, n);
	assert_false(ts_rest_parse_names("GET d", "{\"tables\":[1]}", "tables", &names, &n, &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_rest_parse_names("GET d", "{\"tables\":\"a\"}", "tables", &names, &n, &next, &err));
	assert_false(ts_rest_parse_names("GET d", "{\"tables\":[],\"nextPageToken\":5}", "tables",
									 &names, &n, &next, &err));
	assert_non_null(strstr(err.msg, "nextPageToken"));
}

/* CommitTableResponse and the conflict / error answers of the commit endpoint */
static void
test_parse_commit_answer(void **state)
{
	ts_err		err = {0};
	bool		committed = false;

	(void) state;
	assert_true(ts_rest_parse_commit_answer("POST c", 200, "{\"success\":true}", &committed, &err));
	assert_true(committed);
	assert_true(ts_rest_parse_commit_answer("POST c", 200, "{\"success\":false}", &committed, &err));
	assert_false(committed);
	committed = true;
	assert_true(ts_rest_parse_commit_answer("POST c", 409, "{\"message\":\"exists\"}", &committed, &err));
	assert_false(committed);
	assert_false(ts_rest_parse_commit_answer("POST c", 500, "{\"message\":\"boom\",\"code\":500}",
											 &committed, &err));
	assert_int_equal(err.code, TS_ERR_IO);
	assert_non_null(strstr(err.msg, "HTTP 500: boom"));
	assert_false(ts_rest_parse_commit_answer("POST c", 403, "{\"message\":\"token abc\"}", &committed, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_null(strstr(err.msg, "abc"));
	assert_false(ts_rest_parse_commit_answer("POST c", 200, "{\"success\":\"yes\"}", &committed, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "success"));
	assert_false(ts_rest_parse_commit_answer("POST c", 200, "", &committed, &err));
	assert_false(committed);
}

/* CommitTableRequest: the snapshot's JSON kept as written (a Long stays exact) */
static void
test_commit_body(void **state)
{
	char	   *b;

	(void) state;
	b = ts_rest_commit_body("id\"1", NULL, "{\"id\":3,\"commitIdentifier\":9223372036854775807}",
							"[{\"spec\":{}}]");
	assert_string_equal(b, "{\"tableId\":\"id\\\"1\",\"baseSnapshotUuid\":null,"
						"\"snapshot\":{\"id\":3,\"commitIdentifier\":9223372036854775807},"
						"\"statistics\":[{\"spec\":{}}]}");
	ts_free(b);
	b = ts_rest_commit_body(NULL, "u-1", "{}", "[]");
	assert_string_equal(b, "{\"tableId\":null,\"baseSnapshotUuid\":\"u-1\",\"snapshot\":{},\"statistics\":[]}");
	ts_free(b);
}

/* GetTableResponse's id: what a commit names as tableId */
static void
test_parse_table_id(void **state)
{
	ts_rest_table t;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_rest_parse_table("GET t", "{\"id\":\"uuid-1\",\"path\":\"/p\",\"schema\":{\"fields\":[]}}",
									&t, &err));
	assert_string_equal(t.table_id, "uuid-1");
	ts_rest_table_free(&t);
	assert_true(ts_rest_parse_table("GET t", "{\"path\":\"/p\",\"schema\":{\"fields\":[]}}", &t, &err));
	assert_null(t.table_id);
	ts_rest_table_free(&t);
}

static void
test_url_encode(void **state)
{
	char	   *e;

	(void) state;
	e = ts_url_encode("a b/c%d~e.f-g_h");
	assert_string_equal(e, "a%20b%2Fc%25d~e.f-g_h");
	ts_free(e);
	e = ts_url_encode("\xc3\xa9");
	assert_string_equal(e, "%C3%A9");
	ts_free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_table_refused),
		cmocka_unit_test(test_parse_table_nul),
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_parse_partitions),
		cmocka_unit_test(test_parse_commit_answer),
		cmocka_unit_test(test_parse_table_id),
		cmocka_unit_test(test_commit_body),
		cmocka_unit_test(test_url_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
