/*
 * test_type_class.c - the table of type classes (src/base/ts_type_class.c):
 * every kind has its own row (a kind added to ts_type_kind without one
 * fails here), the rows agree with the type parser and with each other,
 * the integer helpers keep Java's ranges, and keys of a type that cannot
 * be a key are refused when a schema is read.
 */
#include "unit.h"

#include <string.h>

#include "base/ts_type_class.h"
#include "expr/predicate.h"
#include "meta/schema.h"

/* A type string of each kind as a schema file spells it. */
static const char *const spelled[TS_TYPE_KIND_COUNT] = {
	[TS_BOOLEAN] = "BOOLEAN",[TS_TINYINT] = "TINYINT",[TS_SMALLINT] = "SMALLINT",
	[TS_INT] = "INT",[TS_BIGINT] = "BIGINT",[TS_FLOAT] = "FLOAT",[TS_DOUBLE] = "DOUBLE",
	[TS_DECIMAL] = "DECIMAL(10, 2)",[TS_CHAR] = "CHAR(3)",[TS_VARCHAR] = "VARCHAR(5)",
	[TS_BINARY] = "BINARY(4)",[TS_VARBINARY] = "BYTES",[TS_DATE] = "DATE",
	[TS_TIME] = "TIME(3)",[TS_TIMESTAMP] = "TIMESTAMP(6)",
	[TS_TIMESTAMP_LTZ] = "TIMESTAMP(3) WITH LOCAL TIME ZONE",[TS_ARRAY] = "ARRAY<INT>",
	[TS_MULTISET] = "MULTISET<STRING>",[TS_MAP] = "MAP<INT, STRING>",[TS_ROW] = "ROW<a INT>",
	[TS_VARIANT] = "VARIANT",[TS_BLOB] = "BLOB",[TS_VECTOR] = "VECTOR<FLOAT, 3>",
	[TS_GEOMETRY] = "GEOMETRY",[TS_GEOGRAPHY] = "GEOGRAPHY",
};

static void
test_every_kind_has_its_row(void **state)
{
	(void) state;
	for (int k = 0; k < TS_TYPE_KIND_COUNT; k++)
	{
		const ts_type_class *c = ts_type_class_of((ts_type_kind) k);
		ts_err		err;
		ts_type    *t;

		if (c->kind != (ts_type_kind) k || strcmp(c->name, "UNKNOWN") == 0)
			fail_msg("kind %d has no row in ts_type_class.c", k);
		assert_string_equal(ts_type_kind_name((ts_type_kind) k), c->name);
		/* the parser, which has its own spelling of each kind, agrees */
		if (spelled[k] == NULL)
			fail_msg("kind %d (%s) has no spelling in this test", k, c->name);
		t = ts_type_parse(spelled[k], &err);
		if (t == NULL)
			fail_msg("\"%s\": %s", spelled[k], err.msg);
		assert_int_equal(t->kind, k);
		ts_type_free(t);

		/* the facts agree with each other */
		assert_true(c->readable == (c->phys != TS_PHYS_UNSUPPORTED));
		assert_true(c->phys != TS_PHYS_NESTED || (!c->key && c->stats == 0 && c->row_width == 0));
		assert_true(!ts_type_is_nested((ts_type_kind) k) || c->phys == TS_PHYS_NESTED);
		assert_true(!ts_type_is_bytes((ts_type_kind) k) || (c->phys == TS_PHYS_BYTES && c->row_width == 0));
		assert_true(c->key == false || c->stats & TS_STATS_IN_ROW);
		assert_true(!(c->stats & (TS_STATS_EXACT | TS_STATS_FORMAT)) || c->stats & TS_STATS_IN_ROW);
		assert_true(c->readable == (c->pg_type != NULL));
		if (ts_type_holds_int((ts_type_kind) k))
			assert_true(c->row_width == 1 || c->row_width == 2 || c->row_width == 4 || c->row_width == 8);
	}
	/* out of range: a row of its own, never another kind's */
	assert_string_equal(ts_type_kind_name(TS_TYPE_KIND_COUNT), "UNKNOWN");
	assert_false(ts_type_class_of((ts_type_kind) -1)->readable);
	assert_int_equal(ts_type_class_of((ts_type_kind) 999)->phys, TS_PHYS_UNSUPPORTED);
}

static void
test_facts(void **state)
{
	(void) state;
	/* widths of a BinaryRow's fixed part (PAIMON-FORMAT.md 5.7) */
	assert_int_equal(ts_type_class_of(TS_SMALLINT)->row_width, 2);
	assert_int_equal(ts_type_class_of(TS_DATE)->row_width, 4);
	assert_int_equal(ts_type_class_of(TS_DOUBLE)->row_width, 8);
	/* NaN: floats never prove a partition or a row group out */
	assert_false(ts_type_stats(TS_FLOAT, TS_STATS_EXACT));
	assert_false(ts_type_stats(TS_DOUBLE, TS_STATS_FORMAT));
	assert_true(ts_type_stats(TS_DOUBLE, TS_STATS_IN_ROW));
	assert_true(ts_type_stats(TS_TIMESTAMP_LTZ, TS_STATS_EXACT | TS_STATS_FORMAT));
	assert_false(ts_type_stats(TS_BLOB, TS_STATS_IN_ROW));
	/* Java's SchemaValidation: no nested keys */
	assert_false(ts_type_class_of(TS_MAP)->key);
	assert_true(ts_type_class_of(TS_DECIMAL)->key);
	assert_false(ts_type_class_of(TS_GEOMETRY)->readable);
	assert_true(ts_type_holds_int(TS_TIME));
	assert_false(ts_type_holds_int(TS_TIMESTAMP));
	assert_true(ts_type_is_integer(TS_TINYINT));
	assert_false(ts_type_is_integer(TS_DATE));
	assert_string_equal(ts_type_class_of(TS_TIMESTAMP_LTZ)->pg_type, "timestamp(%d) with time zone");
	assert_int_equal(ts_type_class_of(TS_DECIMAL)->pg_typmod, TS_PGMOD_PRECISION_SCALE);
}

static void
test_integer_ranges(void **state)
{
	(void) state;
	assert_true(ts_type_int_fits(TS_TINYINT, 127));
	assert_true(ts_type_int_fits(TS_TINYINT, -128));
	assert_false(ts_type_int_fits(TS_TINYINT, 128));
	assert_false(ts_type_int_fits(TS_TINYINT, -129));
	assert_true(ts_type_int_fits(TS_SMALLINT, -32768));
	assert_false(ts_type_int_fits(TS_SMALLINT, 32768));
	assert_true(ts_type_int_fits(TS_INT, INT32_MIN));
	assert_false(ts_type_int_fits(TS_INT, (int64_t) INT32_MAX + 1));
	assert_true(ts_type_int_fits(TS_BIGINT, INT64_MIN));
	assert_true(ts_type_int_fits(TS_VARCHAR, INT64_MAX));
	/* Java's narrowing: (byte) 200 = -56, (short) 40000 = -25536, (int) 2^32+5 = 5 */
	assert_int_equal(ts_type_int_wrap(TS_TINYINT, 200), -56);
	assert_int_equal(ts_type_int_wrap(TS_SMALLINT, 40000), -25536);
	assert_int_equal(ts_type_int_wrap(TS_INT, ((int64_t) 1 << 32) + 5), 5);
	assert_true(ts_type_int_wrap(TS_BIGINT, INT64_MIN) == INT64_MIN);
}

static void
test_value_order_by_class(void **state)
{
	ts_type		t = {0};
	ts_value	a = {0},
				b = {0};
	int			c = 0;

	(void) state;
	t.kind = TS_BLOB;			/* bytes: unsigned, then length */
	a.v.s.p = (const uint8_t *) "\x80";
	a.v.s.len = 1;
	b.v.s.p = (const uint8_t *) "\x7f\x00";
	b.v.s.len = 2;
	assert_true(ts_value_order(&t, &a, &b, &c));
	assert_int_equal(c, 1);
	t.kind = TS_TIMESTAMP_LTZ;	/* millis, then nanos */
	a.v.ts.millis = 5;
	a.v.ts.nanos = 1;
	b.v.ts.millis = 5;
	b.v.ts.nanos = 2;
	assert_true(ts_value_order(&t, &a, &b, &c));
	assert_int_equal(c, -1);
	t.kind = TS_MAP;
	assert_false(ts_value_order(&t, &a, &b, &c));
	t.kind = TS_VARIANT;
	assert_false(ts_value_order(&t, &a, &b, &c));
}

static ts_schema *
schema_with(const char *type, const char *keys, ts_err *err)
{
	char		json[512];

	snprintf(json, sizeof(json),
			 "{\"version\": 3, \"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"k\", \"type\": \"%s\"},"
			 "{\"id\": 1, \"name\": \"v\", \"type\": \"INT\"}], %s, \"options\": {\"bucket\": \"2\"}}",
			 type, keys);
	return ts_schema_parse(json, strlen(json), "schema \"x\"", err);
}

static void
test_keys_of_a_type_that_cannot_be_one(void **state)
{
	ts_err		err;
	ts_schema  *s;
	int		   *idx = NULL;
	int			n = 0;

	(void) state;
	s = schema_with("ARRAY<INT>", "\"partitionKeys\": [\"k\"]", &err);
	assert_null(s);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "schema \"x\": partition key column \"k\" of type ARRAY cannot be a key");
	s = schema_with("MAP<INT, INT>", "\"primaryKeys\": [\"k\"]", &err);
	assert_null(s);
	assert_string_equal(err.msg, "schema \"x\": primary key column \"k\" of type MAP cannot be a key");
	s = schema_with("DATE", "\"partitionKeys\": [\"zz\"]", &err);
	assert_null(s);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_string_equal(err.msg, "schema \"x\": partition key \"zz\" is not a column");
	/* a scalar key is fine */
	s = schema_with("DECIMAL(20, 2)", "\"partitionKeys\": [\"k\"], \"primaryKeys\": [\"k\", \"v\"]", &err);
	assert_non_null(s);
	ts_schema_free(s);

	/* bucket-key: checked where it is resolved */
	{
		const char *json = "{\"version\": 3, \"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"k\", \"type\": \"ROW<a INT>\"},"
			"{\"id\": 1, \"name\": \"v\", \"type\": \"INT\"}], \"options\": {\"bucket\": \"2\", \"bucket-key\": \"v,k\"}}";

		s = ts_schema_parse(json, strlen(json), "schema \"x\"", &err);
		assert_non_null(s);
		assert_false(ts_schema_bucket_keys(s, &idx, &n, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_string_equal(err.msg, "bucket key column \"k\" of type ROW cannot be a key");
		assert_null(idx);
		ts_schema_free(s);
	}
}

/*
 * ts_type_is_plain_scalar replaced tests of the enum's order ("kind >=
 * TS_VARIANT") in the CSV and JSON readers and the writer's statistics:
 * it holds for exactly the kinds that test held for, named here one by one.
 */
static void
test_plain_scalars(void **state)
{
	static const ts_type_kind plain[] = {TS_BOOLEAN, TS_TINYINT, TS_SMALLINT, TS_INT, TS_BIGINT,
		TS_FLOAT, TS_DOUBLE, TS_DECIMAL, TS_CHAR, TS_VARCHAR, TS_BINARY, TS_VARBINARY, TS_DATE,
	TS_TIME, TS_TIMESTAMP, TS_TIMESTAMP_LTZ};
	int			nplain = 0;

	(void) state;
	for (int k = 0; k < TS_TYPE_KIND_COUNT; k++)
	{
		bool		listed = false;

		for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
			listed |= plain[i] == (ts_type_kind) k;
		assert_int_equal(ts_type_is_plain_scalar((ts_type_kind) k), listed);
		assert_int_equal(ts_type_is_plain_scalar((ts_type_kind) k),
						 !ts_type_is_nested((ts_type_kind) k) && k < TS_VARIANT);
		nplain += listed;
	}
	assert_int_equal(nplain, 16);
	assert_false(ts_type_is_plain_scalar(TS_TYPE_KIND_COUNT));	/* out of range: unsupported */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_has_its_row),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_integer_ranges),
		cmocka_unit_test(test_value_order_by_class),
		cmocka_unit_test(test_keys_of_a_type_that_cannot_be_one),
		cmocka_unit_test(test_plain_scalars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
