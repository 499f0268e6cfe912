/*
 * test_scan_table_options.c - a scan fails closed on the table's own
 * options (its schema's, written by Java) that we do not read although
 * they change the rows (ts_core_options_check_table, called while
 * planning by src/scan/table.c): refused keys and could-change-rows keys
 * set to other than Java's default are TS_ERR_UNSUPPORTED naming the key
 * and the table; write-side keys and defaults pass.
 */
#include "unit.h"

#include "meta/core_options.h"
#include "scan/scan.h"

/* hand-built options: keys[i] = values[i], n of them */
typedef struct kv
{
	const char *const *keys;
	const char *const *values;
	int			n;
} kv;

static const char *
kv_get(const void *arg, const char *key)
{
	const kv   *o = arg;

	for (int i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return o->values[i];
	return NULL;
}

/* check one schema option key = value; returns the error code */
static int
check_one(const char *key, const char *value, ts_err *err)
{
	const char *keys[] = {"bucket", key};
	const char *values[] = {"1", value};
	kv			o = {keys, values, 2};

	memset(err, 0, sizeof(*err));
	if (ts_core_options_check_table(keys, 2, kv_get, &o, "/w/db.db/t", err))
		return TS_OK;
	return err->code;
}

static void
test_check_table(void **state)
{
	ts_err		err;

	(void) state;
	/* could change rows, set to other than the default: refused, named */
	assert_int_equal(check_one("blob-as-descriptor", "true", &err), TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"blob-as-descriptor\""));
	assert_non_null(strstr(err.msg, "/w/db.db/t"));
	assert_non_null(strstr(err.msg, "not supported"));
	assert_int_equal(check_one("scan.creation-time-millis", "5", &err), TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "scan.creation-time-millis"));
	assert_int_equal(check_one("query-auth.enabled", "TRUE", &err), TS_ERR_UNSUPPORTED);
	assert_int_equal(check_one("fields.tags.list-agg-delimiter", ";", &err), TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "fields.tags.list-agg-delimiter"));
	/* ... set to Java's default (any case for booleans): nothing changes */
	assert_int_equal(check_one("blob-as-descriptor", "False", &err), TS_OK);
	assert_int_equal(check_one("incremental-between-tag-to-snapshot", "false", &err), TS_OK);
	assert_int_equal(check_one("fields.tags.list-agg-delimiter", ",", &err), TS_OK);
	/* refused features: any value */
	assert_int_equal(check_one("fields.g.sequence-group", "a,b", &err), TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "fields.g.sequence-group"));
	assert_int_equal(check_one("partial-update.remove-record-on-sequence-group", "g", &err),
					 TS_ERR_UNSUPPORTED);
	/* write-side only (see the registry), acted on, ignored, unknown: pass */
	assert_int_equal(check_one("rowkind.field", "op", &err), TS_OK);
	assert_int_equal(check_one("data-file.thin-mode", "true", &err), TS_OK);
	assert_int_equal(check_one("index-file-in-data-file-dir", "true", &err), TS_OK);
	assert_int_equal(check_one("write-buffer-size", "1 gb", &err), TS_OK);
	assert_int_equal(check_one("my.own-key", "x", &err), TS_OK);

	/* the value checked is the merged one: a user's override to the default passes */
	{
		const char *keys[] = {"blob-as-descriptor"};
		const char *merged[] = {"false"};
		kv			o = {keys, merged, 1};

		memset(&err, 0, sizeof(err));
		assert_true(ts_core_options_check_table(keys, 1, kv_get, &o, "t", &err));
	}
}

/* a plan of a table whose schema (given as JSON) sets options */
static ts_plan *
plan_with_options(const char *path, const char *options_json, ts_err *err)
{
	char		schema[1024];
	ts_scan_context ctx;

	snprintf(schema, sizeof(schema),
			 "{\"version\":3,\"id\":0,\"fields\":["
			 "{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
			 "{\"id\":1,\"name\":\"v\",\"type\":\"STRING\"}],"
			 "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[\"k\"],"
			 "\"options\":{\"bucket\":\"1\"%s}}", options_json);
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.table_schema_json = schema;
	ctx.limit = -1;
	memset(err, 0, sizeof(*err));
	return ts_scan_plan(&ctx, err);
}

static void
test_plan_refuses(void **state)
{
	ts_err		err;
	ts_plan    *plan;

	(void) state;
	/* refused while planning, before any file of the table is read */
	plan = plan_with_options("/nonexistent/db.db/blobs", ",\"blob-as-descriptor\":\"true\"", &err);
	assert_null(plan);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"blob-as-descriptor\""));
	assert_non_null(strstr(err.msg, "/nonexistent/db.db/blobs"));
	plan = plan_with_options("/nonexistent/db.db/pu", ",\"merge-engine\":\"partial-update\","
							 "\"fields.v.sequence-group\":\"k\"", &err);
	assert_null(plan);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "fields.v.sequence-group"));
	/* write-side keys and defaults pass: a table without snapshots, no splits */
	plan = plan_with_options("/nonexistent/db.db/thin", ",\"data-file.thin-mode\":\"true\","
							 "\"rowkind.field\":\"v\",\"blob-as-descriptor\":\"false\"", &err);
	if (plan == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(plan->nsplits, 0);
	ts_plan_free(plan);
}

/* Java's tables with index-file-in-data-file-dir=true plan, with their DVs */
static void
test_plan_index_in_data_dir(void **state)
{
	const char *rel[] = {
		"testdata/parquet/pk_dv_index_in_data_no_external.db/pk_dv_index_in_data_no_external",
		"testdata/orc/pk_dv_index_in_data_no_external.db/pk_dv_index_in_data_no_external",
	};

	(void) state;
	for (int i = 0; i < 2; i++)
	{
		ts_scan_context ctx;
		ts_err		err = {0};
		ts_plan    *plan;

		memset(&ctx, 0, sizeof(ctx));
		ctx.table_path = unit_shared_path(rel[i]);
		ctx.limit = -1;
		plan = ts_scan_plan(&ctx, &err);
		if (plan == NULL)
			fail_msg("%s: %s", rel[i], err.msg);
		assert_true(plan->nsplits > 0);
		ts_plan_free(plan);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_plan_refuses),
		cmocka_unit_test(test_plan_index_in_data_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
