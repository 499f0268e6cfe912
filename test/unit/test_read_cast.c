/*
 * test_read_cast.c - Paimon cast semantics used for schema evolution.
 *
 * Expected values follow Java/Paimon behaviour (CastExecutors rules,
 * Java narrowing, BigDecimal HALF_UP, Double.toString) and the oracle rows
 * of append_table_alter_table_with_cast_with_data_evolution (DATE ->
 * TIMESTAMP(9), TIMESTAMP(9) -> STRING, DECIMAL(5,2) -> DECIMAL(6,3),
 * STRING -> INT, STRING -> BOOLEAN).
 */
#include "unit.h"

#include <math.h>

#include "read/cast.h"

static ts_type *
ty(ts_type_kind k, int len_or_prec, int scale)
{
	ts_type    *t = ts_type_new(k, true);

	if (k == TS_CHAR || k == TS_VARCHAR || k == TS_BINARY || k == TS_VARBINARY)
		t->length = len_or_prec;
	else
		t->precision = len_or_prec;
	t->scale = scale;
	return t;
}

static ts_arena arena;

static ts_value
do_cast(const ts_value *in, ts_type *from, ts_type *to)
{
	ts_value	out;
	ts_err		err = {0};

	if (!ts_cast_check(from, to, "c", &err))
		fail_msg("check: %s", err.msg);
	if (!ts_cast_value(in, from, to, &out, &arena, &err))
		fail_msg("cast: %s", err.msg);
	return out;
}

static ts_value
ival(int64_t i)
{
	ts_value	v = {0};

	v.v.i = i;
	return v;
}

static ts_value
sval(const char *s)
{
	ts_value	v = {0};

	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = (uint32_t) strlen(s);
	return v;
}

static void
assert_str(const ts_value *v, const char *want)
{
	assert_false(v->isnull);
	if (v->v.s.len != strlen(want) || memcmp(v->v.s.p, want, v->v.s.len) != 0)
		fail_msg("got '%.*s' want '%s'", (int) v->v.s.len, (const char *) v->v.s.p, want);
}

static ts_value
cast_str(const char *s, ts_type *to)
{
	ts_type    *from = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	ts_value	in = sval(s);
	ts_value	out = do_cast(&in, from, to);

	ts_type_free(from);
	return out;
}

static void
test_numeric(void **state)
{
	ts_type    *i32 = ty(TS_INT, 0, 0),
			   *i64 = ty(TS_BIGINT, 0, 0),
			   *i8 = ty(TS_TINYINT, 0, 0),
			   *f64 = ty(TS_DOUBLE, 0, 0),
			   *f32 = ty(TS_FLOAT, 0, 0);
	ts_value	v,
				o;

	(void) state;
	v = ival(383);
	o = do_cast(&v, i32, i8);	/* (byte) 383 = 127 */
	assert_int_equal(o.v.i, 127);
	v = ival(-129);
	o = do_cast(&v, i32, i8);
	assert_int_equal(o.v.i, 127);
	v = ival(5000000000LL);
	o = do_cast(&v, i64, i32);	/* (int) 5e9 = 705032704 */
	assert_int_equal(o.v.i, 705032704);
	v = ival(-7);
	o = do_cast(&v, i32, i64);
	assert_int_equal(o.v.i, -7);
	v.v.d = 12.9;
	o = do_cast(&v, f64, i32);	/* truncation */
	assert_int_equal(o.v.i, 12);
	v.v.d = -12.9;
	o = do_cast(&v, f64, i32);
	assert_int_equal(o.v.i, -12);
	v.v.d = 1e20;
	o = do_cast(&v, f64, i32);	/* saturates */
	assert_int_equal(o.v.i, 2147483647);
	v.v.d = NAN;
	o = do_cast(&v, f64, i64);
	assert_int_equal(o.v.i, 0);
	v.v.d = 1e20;
	o = do_cast(&v, f64, i8);	/* (byte)(int) 1e20 = (byte) 0x7fffffff = -1 */
	assert_int_equal(o.v.i, -1);
	v = ival(16777217);
	o = do_cast(&v, i32, f32);
	assert_true(o.v.f == 16777216.0f);
	v.v.f = 1.5f;
	o = do_cast(&v, f32, f64);
	assert_true(o.v.d == 1.5);
	ts_type_free(i32);
	ts_type_free(i64);
	ts_type_free(i8);
	ts_type_free(f64);
	ts_type_free(f32);
}

static void
test_decimal(void **state)
{
	ts_type    *d52 = ty(TS_DECIMAL, 5, 2),
			   *d63 = ty(TS_DECIMAL, 6, 3),
			   *d41 = ty(TS_DECIMAL, 4, 1),
			   *d30 = ty(TS_DECIMAL, 3, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *f64 = ty(TS_DOUBLE, 0, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	ts_value	v = {0},
				o;

	(void) state;
	v.v.dec = 2;				/* 0.02 */
	o = do_cast(&v, d52, d63);
	assert_false(o.isnull);
	assert_true(o.v.dec == 20);	/* 0.020 (oracle) */
	v.v.dec = 1112;				/* 11.12 -> 11.120 */
	o = do_cast(&v, d52, d63);
	assert_true(o.v.dec == 11120);
	v.v.dec = 99995;			/* 999.95 -> DECIMAL(4,1): 1000.0 does not fit -> NULL */
	o = do_cast(&v, d52, d41);
	assert_true(o.isnull);
	v.v.dec = 1235;				/* 12.35 -> 12.4 (HALF_UP) */
	o = do_cast(&v, d52, d41);
	assert_true(o.v.dec == 124);
	v.v.dec = -1235;			/* -12.35 -> -12.4 */
	o = do_cast(&v, d52, d41);
	assert_true(o.v.dec == -124);
	v.v.dec = -1299;			/* -12.99 -> INT -12 (truncation) */
	o = do_cast(&v, d52, i32);
	assert_int_equal(o.v.i, -12);
	v.v.dec = 1234;
	o = do_cast(&v, d52, f64);
	assert_true(o.v.d == 12.34);
	o = do_cast(&v, d52, str);
	assert_str(&o, "12.34");
	v.v.dec = -5;
	o = do_cast(&v, d52, str);
	assert_str(&o, "-0.05");
	v = ival(1000);				/* INT 1000 -> DECIMAL(3,0): overflow -> NULL */
	o = do_cast(&v, i32, d30);
	assert_true(o.isnull);
	v = ival(42);
	o = do_cast(&v, i32, d52);
	assert_true(o.v.dec == 4200);
	v.v.d = 0.125;				/* BigDecimal.valueOf(0.125) -> 0.13 HALF_UP */
	o = do_cast(&v, f64, d52);
	assert_true(o.v.dec == 13);
	o = cast_str(" 1.005 ", d52);	/* 1.01 */
	assert_true(o.v.dec == 101);
	o = cast_str("1e2", d52);
	assert_true(o.v.dec == 10000);
	o = cast_str("123456", d52);	/* overflow -> NULL */
	assert_true(o.isnull);
	ts_type_free(d52);
	ts_type_free(d63);
	ts_type_free(d41);
	ts_type_free(d30);
	ts_type_free(i32);
	ts_type_free(f64);
	ts_type_free(str);
}

static void
test_to_string(void **state)
{
	ts_type    *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0),
			   *vc3 = ty(TS_VARCHAR, 3, 0),
			   *ch5 = ty(TS_CHAR, 5, 0),
			   *f64 = ty(TS_DOUBLE, 0, 0),
			   *f32 = ty(TS_FLOAT, 0, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *b = ty(TS_BOOLEAN, 0, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *ts9 = ty(TS_TIMESTAMP, 9, 0),
			   *ts3 = ty(TS_TIMESTAMP, 3, 0);
	ts_value	v = {0},
				o;

	(void) state;
	v.v.d = 12.1;
	o = do_cast(&v, f64, str);
	assert_str(&o, "12.1");
	v.v.d = 1e7;
	o = do_cast(&v, f64, str);
	assert_str(&o, "1.0E7");
	v.v.d = 0.001;
	o = do_cast(&v, f64, str);
	assert_str(&o, "0.001");
	v.v.d = 100.0;
	o = do_cast(&v, f64, str);
	assert_str(&o, "100.0");
	v.v.f = 0.1f;
	o = do_cast(&v, f32, str);
	assert_str(&o, "0.1");
	v = ival(-42);
	o = do_cast(&v, i32, str);
	assert_str(&o, "-42");
	v = ival(12345);
	o = do_cast(&v, i32, vc3);	/* VARCHAR(3) trims */
	assert_str(&o, "123");
	v = ival(1);
	o = do_cast(&v, b, str);
	assert_str(&o, "true");
	v = ival(0);
	o = do_cast(&v, b, ch5);	/* CHAR(5) pads */
	assert_str(&o, "false");
	v = ival(1);
	o = do_cast(&v, b, ch5);
	assert_str(&o, "true ");
	v = ival(20053);			/* 2024-11-26 */
	o = do_cast(&v, date, str);
	assert_str(&o, "2024-11-26");
	/* 2024-11-26 06:38:56.001000001 */
	v.v.ts.millis = 1732603136001LL;
	v.v.ts.nanos = 1;
	o = do_cast(&v, ts9, str);
	assert_str(&o, "2024-11-26 06:38:56.001000001");
	v.v.ts.millis = 1732603136000LL;
	v.v.ts.nanos = 0;
	o = do_cast(&v, ts9, str);	/* trailing zeros trimmed only beyond precision */
	assert_str(&o, "2024-11-26 06:38:56.000000000");
	o = do_cast(&v, ts3, str);
	assert_str(&o, "2024-11-26 06:38:56.000");
	v.v.ts.millis = 1732603136100LL;
	v.v.ts.nanos = 500;			/* more digits than the type: kept, then trimmed */
	o = do_cast(&v, ts3, str);
	assert_str(&o, "2024-11-26 06:38:56.1000005");
	v.v.ts.nanos = 0;
	v.v.ts.millis = -1;			/* 1969-12-31 23:59:59.999 */
	o = do_cast(&v, ts3, str);
	assert_str(&o, "1969-12-31 23:59:59.999");
	v = sval("h\xc3\xa9llo");	/* 5 chars, 6 bytes */
	o = do_cast(&v, str, vc3);
	assert_str(&o, "h\xc3\xa9l");
	ts_type_free(str);
	ts_type_free(vc3);
	ts_type_free(ch5);
	ts_type_free(f64);
	ts_type_free(f32);
	ts_type_free(i32);
	ts_type_free(b);
	ts_type_free(date);
	ts_type_free(ts9);
	ts_type_free(ts3);
}

static void
test_from_string(void **state)
{
	ts_type    *i32 = ty(TS_INT, 0, 0),
			   *i8 = ty(TS_TINYINT, 0, 0),
			   *i64 = ty(TS_BIGINT, 0, 0),
			   *b = ty(TS_BOOLEAN, 0, 0),
			   *f64 = ty(TS_DOUBLE, 0, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *ts9 = ty(TS_TIMESTAMP, 9, 0),
			   *ts3 = ty(TS_TIMESTAMP, 3, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	ts_value	o,
				in;
	ts_err		err = {0};

	(void) state;
	o = cast_str("100", i32);
	assert_int_equal(o.v.i, 100);
	o = cast_str("-12.7", i32);	/* fraction ignored */
	assert_int_equal(o.v.i, -12);
	o = cast_str("+7", i64);
	assert_int_equal(o.v.i, 7);
	o = cast_str("True", b);
	assert_int_equal(o.v.i, 1);
	o = cast_str("n", b);
	assert_int_equal(o.v.i, 0);
	o = cast_str("1.5e3", f64);
	assert_true(o.v.d == 1500.0);
	o = cast_str("2024-11-26", date);
	assert_int_equal(o.v.i, 20053);
	o = cast_str("2024-1-2 10:00:00", date);
	assert_int_equal(o.v.i, 19724);
	o = cast_str("2024-11-26 15:28:31", ts9);
	assert_int_equal(o.v.ts.millis, 1732634911000LL);
	assert_int_equal(o.v.ts.nanos, 0);
	o = cast_str("2024-11-26 06:38:56.001000001", ts9);
	assert_int_equal(o.v.ts.millis, 1732603136001LL);
	assert_int_equal(o.v.ts.nanos, 1);
	o = cast_str("2024-11-26 06:38:56.001999", ts3);	/* truncated to millis */
	assert_int_equal(o.v.ts.millis, 1732603136001LL);
	assert_int_equal(o.v.ts.nanos, 0);
	o = cast_str("1000", ts3);	/* numeric: epoch millis at precision 3 */
	assert_int_equal(o.v.ts.millis, 1000);

	/* errors: value named, TS_ERR_INVALID */
	in = sval("I'm strange");
	assert_false(ts_cast_value(&in, str, i32, &o, &arena, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "I'm strange"));
	in = sval("128");
	assert_false(ts_cast_value(&in, str, i8, &o, &arena, &err));
	in = sval("2147483648");
	assert_false(ts_cast_value(&in, str, i32, &o, &arena, &err));
	in = sval("2024-02-30");
	assert_false(ts_cast_value(&in, str, date, &o, &arena, &err));
	in = sval("2024-11-26T06:38:56");	/* Paimon's formatter wants a space */
	assert_false(ts_cast_value(&in, str, ts9, &o, &arena, &err));
	in = sval("2024-11-26 06:38");		/* seconds required */
	assert_false(ts_cast_value(&in, str, ts9, &o, &arena, &err));
	in = sval("maybe");
	assert_false(ts_cast_value(&in, str, b, &o, &arena, &err));
	ts_type_free(i32);
	ts_type_free(i8);
	ts_type_free(i64);
	ts_type_free(b);
	ts_type_free(f64);
	ts_type_free(date);
	ts_type_free(ts9);
	ts_type_free(ts3);
	ts_type_free(str);
}

static void
test_temporal(void **state)
{
	ts_type    *date = ty(TS_DATE, 0, 0),
			   *ts9 = ty(TS_TIMESTAMP, 9, 0),
			   *ts6 = ty(TS_TIMESTAMP, 6, 0),
			   *ts0 = ty(TS_TIMESTAMP, 0, 0),
			   *i64 = ty(TS_BIGINT, 0, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *time = ty(TS_TIME, 3, 0);
	ts_value	v = {0},
				o;

	(void) state;
	v = ival(4);				/* DATE 1970-01-05 -> TIMESTAMP(9) (oracle) */
	o = do_cast(&v, date, ts9);
	assert_int_equal(o.v.ts.millis, 4 * 86400000LL);
	assert_int_equal(o.v.ts.nanos, 0);
	v = ival(-44);				/* 1969-11-18 */
	o = do_cast(&v, date, ts9);
	assert_int_equal(o.v.ts.millis, -44 * 86400000LL);
	v.v.ts.millis = -1;			/* 1969-12-31T23:59:59.999 -> DATE -1 (floor) */
	v.v.ts.nanos = 0;
	o = do_cast(&v, ts9, date);
	assert_int_equal(o.v.i, -1);
	o = do_cast(&v, ts9, time);
	assert_int_equal(o.v.i, 86399999);
	v.v.ts.millis = 1732603136001LL;
	v.v.ts.nanos = 123456;
	o = do_cast(&v, ts9, ts6);
	assert_int_equal(o.v.ts.millis, 1732603136001LL);
	assert_int_equal(o.v.ts.nanos, 123000);
	o = do_cast(&v, ts9, ts0);
	assert_int_equal(o.v.ts.millis, 1732603136000LL);
	assert_int_equal(o.v.ts.nanos, 0);
	o = do_cast(&v, ts9, i64);	/* epoch seconds */
	assert_int_equal(o.v.i, 1732603136);
	o = do_cast(&v, ts9, i32);
	assert_int_equal(o.v.i, 1732603136);
	ts_type_free(date);
	ts_type_free(ts9);
	ts_type_free(ts6);
	ts_type_free(ts0);
	ts_type_free(i64);
	ts_type_free(i32);
	ts_type_free(time);
}

static void
test_nested_and_unsupported(void **state)
{
	ts_err		err = {0};
	ts_type    *from = ts_type_new(TS_ROW, true),
			   *to = ts_type_new(TS_ROW, true);
	ts_type    *ltz = ty(TS_TIMESTAMP_LTZ, 6, 0),
			   *ts = ty(TS_TIMESTAMP, 6, 0),
			   *arr_i = ts_type_new(TS_ARRAY, true),
			   *arr_s = ts_type_new(TS_ARRAY, true);
	ts_value	in = {0},
				items[2],
				o,
				elems[2],
				arr = {0};

	(void) state;
	/* ROW<a INT id 10, b STRING id 11> read as ROW<b STRING id 11, a BIGINT id 10, c INT id 12> */
	from->nfields = 2;
	from->fields = ts_calloc(2, sizeof(ts_field));
	from->fields[0] = (ts_field) {10, ts_strdup("a"), ty(TS_INT, 0, 0), NULL};
	from->fields[1] = (ts_field) {11, ts_strdup("b"), ty(TS_VARCHAR, TS_STRING_LENGTH, 0), NULL};
	to->nfields = 3;
	to->fields = ts_calloc(3, sizeof(ts_field));
	to->fields[0] = (ts_field) {11, ts_strdup("b"), ty(TS_VARCHAR, TS_STRING_LENGTH, 0), NULL};
	to->fields[1] = (ts_field) {10, ts_strdup("a"), ty(TS_BIGINT, 0, 0), NULL};
	to->fields[2] = (ts_field) {12, ts_strdup("c"), ty(TS_INT, 0, 0), NULL};
	assert_true(ts_cast_needed(from, to));
	items[0] = ival(7);
	items[1] = sval("x");
	in.v.nested.n = 2;
	in.v.nested.items = items;
	o = do_cast(&in, from, to);
	assert_int_equal(o.v.nested.n, 3);
	assert_str(&o.v.nested.items[0], "x");
	assert_int_equal(o.v.nested.items[1].v.i, 7);
	assert_true(o.v.nested.items[2].isnull);

	/* ARRAY<INT> -> ARRAY<STRING> */
	arr_i->element = ty(TS_INT, 0, 0);
	arr_s->element = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	elems[0] = ival(1);
	elems[1] = ival(0);
	elems[1].isnull = true;
	arr.v.nested.n = 2;
	arr.v.nested.items = elems;
	o = do_cast(&arr, arr_i, arr_s);
	assert_int_equal(o.v.nested.n, 2);
	assert_str(&o.v.nested.items[0], "1");
	assert_true(o.v.nested.items[1].isnull);

	/* LTZ <-> TIMESTAMP is a Java cast (TimestampToTimestampCastRule) */
	assert_true(ts_cast_check(ltz, ts, "col_x", &err));
	assert_true(ts_cast_check(ts, ltz, "col_x", &err));
	assert_false(ts_cast_check(arr_i, ts, "col_y", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	/* identical types need no cast */
	assert_false(ts_cast_needed(from, from));
	assert_false(ts_cast_needed(ts, ts));

	ts_type_free(from);
	ts_type_free(to);
	ts_type_free(ltz);
	ts_type_free(ts);
	ts_type_free(arr_i);
	ts_type_free(arr_s);
}

/*
 * Session zones for the LTZ casts (Java's TimeZone.getDefault()).  A
 * synthetic New York: EDT (-4h) from 2024-03-10 07:00Z to 2024-11-03
 * 06:00Z, EST (-5h) at every other instant (enough for the dates used).
 * Expected instants are America/New_York's (computed with Python's
 * zoneinfo, whose fold=0 resolves gaps and overlaps as Java's atZone).
 */
static int32_t
zone_new_york(int64_t utc_secs)
{
	return (utc_secs >= 1710054000 && utc_secs < 1730613600) ? -4 * 3600 : -5 * 3600;
}

static int32_t
zone_kolkata(int64_t utc_secs)
{
	(void) utc_secs;
	return 5 * 3600 + 30 * 60;
}

static ts_value
tsval(int64_t millis, int32_t nanos)
{
	ts_value	v = {0};

	v.v.ts.millis = millis;
	v.v.ts.nanos = nanos;
	return v;
}

static void
test_session_zone_new_york(void **state)
{
	ts_type    *ts6 = ty(TS_TIMESTAMP, 6, 0),
			   *ts3 = ty(TS_TIMESTAMP, 3, 0),
			   *ltz6 = ty(TS_TIMESTAMP_LTZ, 6, 0),
			   *ltz3 = ty(TS_TIMESTAMP_LTZ, 3, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *time = ty(TS_TIME, 3, 0),
			   *i64 = ty(TS_BIGINT, 0, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	ts_value	v,
				o;

	(void) state;
	ts_cast_set_session_zone(zone_new_york);

	/* TimestampToTimestampCastRule: timestampToTimestampWithLocalZone */
	v = tsval(1719835200123LL, 456000);	/* wall 2024-07-01 12:00:00.123456 */
	o = do_cast(&v, ts6, ltz6);
	assert_int_equal(o.v.ts.millis, 1719849600123LL);	/* 16:00:00.123456Z */
	assert_int_equal(o.v.ts.nanos, 456000);
	/* a wall clock in the spring-forward gap moves forward (02:30 -> 07:30Z) */
	v = tsval(1710037800000LL, 0);	/* 2024-03-10 02:30 */
	o = do_cast(&v, ts6, ltz6);
	assert_int_equal(o.v.ts.millis, 1710055800000LL);
	/* an overlapping wall clock takes the earlier offset (EDT: 01:30 -> 05:30Z) */
	v = tsval(1730597400000LL, 0);	/* 2024-11-03 01:30 */
	o = do_cast(&v, ts6, ltz6);
	assert_int_equal(o.v.ts.millis, 1730611800000LL);

	/* LTZ -> TIMESTAMP(3): the wall clock, truncated (testTimestampData) */
	v = tsval(1719849600123LL, 456000);
	o = do_cast(&v, ltz6, ts3);
	assert_int_equal(o.v.ts.millis, 1719835200123LL);
	assert_int_equal(o.v.ts.nanos, 0);

	/* TimestampToDateCastRule / TimestampToTimeCastRule on LTZ: in the zone */
	v = tsval(1719802800000LL, 0);	/* 2024-07-01 03:00Z = 06-30 23:00 EDT */
	o = do_cast(&v, ltz3, date);
	assert_int_equal(o.v.i, 19904);
	o = do_cast(&v, ltz3, time);
	assert_int_equal(o.v.i, 23 * 3600000);
	/* TimestampToStringCastRule: formatTimestamp(value, default zone, p) */
	o = do_cast(&v, ltz3, str);
	assert_str(&o, "2024-06-30 23:00:00.000");
	/*
	 * TimestampToNumericPrimitiveCastRule: the instant's epoch seconds (Java's
	 * value.toLocalDateTime() is UTC), not the zone's wall clock (12:00 EDT)
	 */
	v = tsval(1719849600123LL, 0);	/* 2024-07-01 16:00:00.123Z */
	o = do_cast(&v, ltz3, i64);
	assert_int_equal(o.v.i, 1719849600);
	o = do_cast(&v, ltz3, i32);
	assert_int_equal(o.v.i, 1719849600);
	/* TIMESTAMP (no zone) -> BIGINT: its own wall clock, unchanged by the zone */
	o = do_cast(&v, ts3, i64);
	assert_int_equal(o.v.i, 1719849600);
	/* before the epoch: Java's division truncates toward zero (-1.5 s -> -1) */
	v = tsval(-1500LL, 0);
	o = do_cast(&v, ltz3, i64);
	assert_int_equal(o.v.i, -1);

	/* NumericPrimitiveToTimestamp (testNumericToTimestamp): 1721898748 */
	v = ival(1721898748);
	o = do_cast(&v, i64, ts3);	/* "2024-07-25 09:12:28.000" */
	assert_int_equal(o.v.ts.millis, 1721898748000LL);
	o = do_cast(&v, i64, ltz3);	/* the NY wall clock 05:12:28 read as UTC */
	assert_int_equal(o.v.ts.millis, 1721884348000LL);
	o = do_cast(&v, i32, ltz3);
	assert_int_equal(o.v.ts.millis, 1721884348000LL);

	/* DateToTimestampCastRule (testDateToTimestamp): 2024-06-06 */
	v = ival(19880);
	o = do_cast(&v, date, ts6);
	assert_int_equal(o.v.ts.millis, 19880 * 86400000LL);
	o = do_cast(&v, date, ltz6);	/* midnight EDT = 04:00Z */
	assert_int_equal(o.v.ts.millis, 1717646400000LL);

	/* TimeToTimestampCastRule (testTimeToTimestamp): 12:00:00.123 */
	v = ival(43200123);
	o = do_cast(&v, time, ts3);
	assert_int_equal(o.v.ts.millis, 43200123);
	o = do_cast(&v, time, ltz3);	/* 1970-01-01 12:00:00.123 EST */
	assert_int_equal(o.v.ts.millis, 61200123);

	/* StringToTimestampCastRule (testStringToTimestamp): LTZ in the zone */
	o = cast_str("2017-12-12 09:30:00.0", ltz3);
	assert_int_equal(o.v.ts.millis, 1513089000000LL);
	o = cast_str("2017-12-12 09:30:00.0", ts3);
	assert_int_equal(o.v.ts.millis, 1513071000000LL);

	ts_cast_set_session_zone(NULL);
	/* UTC without a session zone */
	v = tsval(1719835200123LL, 0);
	o = do_cast(&v, ts3, ltz3);
	assert_int_equal(o.v.ts.millis, 1719835200123LL);

	ts_type_free(ts6);
	ts_type_free(ts3);
	ts_type_free(ltz6);
	ts_type_free(ltz3);
	ts_type_free(date);
	ts_type_free(time);
	ts_type_free(i64);
	ts_type_free(i32);
	ts_type_free(str);
}

static void
test_session_zone_east(void **state)
{
	ts_type    *ts3 = ty(TS_TIMESTAMP, 3, 0),
			   *ltz3 = ty(TS_TIMESTAMP_LTZ, 3, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *i64 = ty(TS_BIGINT, 0, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	ts_value	v,
				o;

	(void) state;
	ts_cast_set_session_zone(zone_kolkata);
	v = tsval(1719835200000LL, 0);	/* wall 2024-07-01 12:00 +05:30 */
	o = do_cast(&v, ts3, ltz3);
	assert_int_equal(o.v.ts.millis, 1719815400000LL);
	v = tsval(1719864000000LL, 0);	/* 2024-07-01 20:00Z = 07-02 01:30 IST */
	o = do_cast(&v, ltz3, date);
	assert_int_equal(o.v.i, 19906);
	o = do_cast(&v, ltz3, str);
	assert_str(&o, "2024-07-02 01:30:00.000");
	/* clarification 10: 2 s after the epoch is 2, not the +05:30 wall clock */
	v = tsval(2000LL, 0);
	o = do_cast(&v, ltz3, i64);
	assert_int_equal(o.v.i, 2);
	o = do_cast(&v, ltz3, i32);
	assert_int_equal(o.v.i, 2);
	ts_cast_set_session_zone(NULL);
	ts_type_free(ts3);
	ts_type_free(ltz3);
	ts_type_free(date);
	ts_type_free(i64);
	ts_type_free(i32);
	ts_type_free(str);
}

static void
test_java_rules_more(void **state)
{
	ts_type    *time2 = ty(TS_TIME, 2, 0),
			   *time3 = ty(TS_TIME, 3, 0),
			   *ts6 = ty(TS_TIMESTAMP, 6, 0),
			   *ts3 = ty(TS_TIMESTAMP, 3, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0),
			   *vc10 = ty(TS_VARCHAR, 10, 0),
			   *vc5 = ty(TS_VARCHAR, 5, 0),
			   *vb20 = ty(TS_VARBINARY, 20, 0),
			   *b = ty(TS_BOOLEAN, 0, 0),
			   *d10 = ty(TS_DECIMAL, 1, 0),
			   *d11 = ty(TS_DECIMAL, 1, 1),
			   *i32 = ty(TS_INT, 0, 0),
			   *arr = ts_type_new(TS_ARRAY, true),
			   *map = ts_type_new(TS_MAP, true),
			   *row = ts_type_new(TS_ROW, true),
			   *inner = ts_type_new(TS_ROW, true),
			   *map2 = ts_type_new(TS_MAP, true),
			   *arr2 = ts_type_new(TS_ARRAY, true);
	ts_value	v,
				o,
				items[4],
				kv[4],
				ritems[2],
				inner_items[3],
				m2[2];

	(void) state;
	/* TimeToStringCastRule (testTimeToString): TIME(2) 36115615 */
	v = ival(36115615);
	o = do_cast(&v, time2, str);
	assert_str(&o, "10:01:55.61");
	v = ival(36000000);			/* formatTimestampMillis stops at zeros */
	o = do_cast(&v, time3, str);
	assert_str(&o, "10:00:00.0");
	/* StringToTimeCastRule (testStringToTime): parseTime */
	o = cast_str("09:30:00.0", time2);
	assert_int_equal(o.v.i, 34200000);
	o = cast_str("12:00:00+01:00", time3);	/* parseTime: hour += +1 */
	assert_int_equal(o.v.i, 46800000);
	o = cast_str("12:00:00-01:00", time3);	/* hour += -1 */
	assert_int_equal(o.v.i, 39600000);
	o = cast_str("7", time3);
	assert_int_equal(o.v.i, 7 * 3600000);
	o = cast_str("10:01:55.6159", time3);	/* parseFraction rounds the 4th digit */
	assert_int_equal(o.v.i, 36115616);

	/* TimestampToDateCastRule (testTimestampToDatePreEpoch): floored day */
	v = tsval(-1000, 0);		/* 1969-12-31 23:59:59 */
	o = do_cast(&v, ts6, date);
	assert_int_equal(o.v.i, -1);
	v = tsval(-301239000000LL, 0);	/* 1960-06-15 10:30 */
	o = do_cast(&v, ts6, date);
	assert_int_equal(o.v.i, -3487);
	/* TimestampToTimeCastRule (testTimestampToTimePreEpoch) */
	v = tsval(-41103211, 0);	/* 1969-12-31 12:34:56.789 */
	o = do_cast(&v, ts3, time3);
	assert_int_equal(o.v.i, 45296789);

	/* BooleanToNumericCastRule (testBooleanToNumeric): DECIMAL(1, 0) */
	v = ival(1);
	o = do_cast(&v, b, d10);
	assert_false(o.isnull);
	assert_true(o.v.dec == 1);
	o = do_cast(&v, b, d11);	/* DecimalUtils.castFrom: 1 does not fit -> NULL */
	assert_true(o.isnull);

	/* BinaryToStringCastRule (testBinaryToString): the bytes, no trim */
	v = sval("12345678");
	o = do_cast(&v, vb20, vc10);
	assert_str(&o, "12345678");
	v = sval("1234567890AB");
	o = do_cast(&v, vb20, vc5);
	assert_str(&o, "1234567890AB");

	/* ArrayToStringCastRule (testArrayToString): [1, null, 2] */
	arr->element = ty(TS_INT, 0, 0);
	items[0] = ival(1);
	items[1] = ival(0);
	items[1].isnull = true;
	items[2] = ival(2);
	v = (ts_value) {0};
	v.v.nested.n = 3;
	v.v.nested.items = items;
	o = do_cast(&v, arr, str);
	assert_str(&o, "[1, null, 2]");

	/* MapToStringCastRule (testMapToString) */
	map->key = ty(TS_INT, 0, 0);
	map->value = ty(TS_VARCHAR, TS_STRING_LENGTH, 0);
	kv[0] = ival(1);
	kv[1] = sval("i");
	kv[2] = ival(4);
	kv[3] = sval("");
	kv[3].isnull = true;
	v = (ts_value) {0};
	v.v.nested.n = 2;
	v.v.nested.items = kv;
	o = do_cast(&v, map, str);
	assert_str(&o, "{1 -> i, 4 -> null}");

	/*
	 * RowToStringCastRule (testRowToString): ROW<f0 INT, f1 ROW<f0 DATE,
	 * f1 MAP<INT, ARRAY<INT>>, f2 INT>> -> "{1, {2025-01-06, {1 -> [1,
	 * null, 2]}, null}}"
	 */
	arr2->element = ty(TS_INT, 0, 0);
	map2->key = ty(TS_INT, 0, 0);
	map2->value = arr2;
	inner->nfields = 3;
	inner->fields = ts_calloc(3, sizeof(ts_field));
	inner->fields[0] = (ts_field) {2, ts_strdup("f0"), ty(TS_DATE, 0, 0), NULL};
	inner->fields[1] = (ts_field) {3, ts_strdup("f1"), map2, NULL};
	inner->fields[2] = (ts_field) {4, ts_strdup("f2"), ty(TS_INT, 0, 0), NULL};
	row->nfields = 2;
	row->fields = ts_calloc(2, sizeof(ts_field));
	row->fields[0] = (ts_field) {0, ts_strdup("f0"), ty(TS_INT, 0, 0), NULL};
	row->fields[1] = (ts_field) {1, ts_strdup("f1"), inner, NULL};
	m2[0] = ival(1);
	m2[1] = (ts_value) {0};
	m2[1].v.nested.n = 3;
	m2[1].v.nested.items = items;
	inner_items[0] = ival(20094);	/* 2025-01-06 */
	inner_items[1] = (ts_value) {0};
	inner_items[1].v.nested.n = 1;
	inner_items[1].v.nested.items = m2;
	inner_items[2] = ival(0);
	inner_items[2].isnull = true;
	ritems[0] = ival(1);
	ritems[1] = (ts_value) {0};
	ritems[1].v.nested.n = 3;
	ritems[1].v.nested.items = inner_items;
	v = (ts_value) {0};
	v.v.nested.n = 2;
	v.v.nested.items = ritems;
	o = do_cast(&v, row, str);
	assert_str(&o, "{1, {2025-01-06, {1 -> [1, null, 2]}, null}}");

	/* StringToStringCastRule (testStringToString): lengths trim, CHAR pads */
	{
		ts_type    *vc10s = ty(TS_VARCHAR, 10, 0),
				   *ch5 = ty(TS_CHAR, 5, 0),
				   *ch20 = ty(TS_CHAR, 20, 0),
				   *ch10 = ty(TS_CHAR, 10, 0),
				   *vb5 = ty(TS_VARBINARY, 5, 0),
				   *bn10 = ty(TS_BINARY, 10, 0),
				   *bn20 = ty(TS_BINARY, 20, 0);
		static const uint8_t padded[20] = {'1', '2', '3', '4', '5', '6', '7', '8'};

		v = sval("1234567890");
		o = do_cast(&v, vc10s, vc5);
		assert_str(&o, "12345");
		o = do_cast(&v, vc10s, ch5);
		assert_str(&o, "12345");
		o = do_cast(&v, vc10s, ch20);
		assert_str(&o, "1234567890          ");
		v = sval("12345678  ");
		o = do_cast(&v, ch10, vc10);
		assert_str(&o, "12345678  ");
		o = do_cast(&v, ch10, ch20);
		assert_str(&o, "12345678            ");
		/* StringToBinaryCastRule (testStringToBinary) */
		v = sval("12345678");
		o = do_cast(&v, vc10s, vb5);
		assert_int_equal(o.v.s.len, 5);
		assert_memory_equal(o.v.s.p, "12345", 5);
		o = do_cast(&v, vc10s, vb20);
		assert_int_equal(o.v.s.len, 8);
		/* BinaryToBinaryCastRule (testBinaryToBinary): BINARY(20) zero-pads */
		o = do_cast(&v, bn10, bn20);
		assert_int_equal(o.v.s.len, 20);
		assert_memory_equal(o.v.s.p, padded, 20);
		v = sval("1234567890");
		o = do_cast(&v, bn10, vb5);
		assert_int_equal(o.v.s.len, 5);
		ts_type_free(vc10s);
		ts_type_free(ch5);
		ts_type_free(ch20);
		ts_type_free(ch10);
		ts_type_free(vb5);
		ts_type_free(bn10);
		ts_type_free(bn20);
	}

	/* unparsable text fails the read, as Java's parsers throw */
	{
		ts_type    *from = ty(TS_VARCHAR, TS_STRING_LENGTH, 0),
				   *ltz = ty(TS_TIMESTAMP_LTZ, 3, 0);
		ts_value	in;
		ts_err		err = {0};

		in = sval("12:xx:00");
		assert_false(ts_cast_value(&in, from, time3, &o, &arena, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "TIME(3)"));
		in = sval("25:00:00");	/* Java's parseTime gives 90000000: no time of day */
		assert_false(ts_cast_value(&in, from, time3, &o, &arena, &err));
		in = sval("1000");		/* epoch numbers only for TIMESTAMP, not LTZ */
		assert_false(ts_cast_value(&in, from, ltz, &o, &arena, &err));
		assert_non_null(strstr(err.msg, "TIMESTAMP(3) WITH LOCAL TIME ZONE"));
		ts_type_free(from);
		ts_type_free(ltz);
	}

	/* the rule named per pair */
	assert_string_equal(ts_cast_rule_name(i32, str),
						"NumericToStringCastRule: Java toString; CHAR pads, lengths trim");
	assert_string_equal(ts_cast_rule_name(str, str), "identity");

	ts_type_free(time2);
	ts_type_free(time3);
	ts_type_free(ts6);
	ts_type_free(ts3);
	ts_type_free(date);
	ts_type_free(str);
	ts_type_free(vc10);
	ts_type_free(vc5);
	ts_type_free(vb20);
	ts_type_free(b);
	ts_type_free(d10);
	ts_type_free(d11);
	ts_type_free(i32);
	ts_type_free(arr);
	ts_type_free(map);
	ts_type_free(row);
}

static void
refused(ts_type *from, ts_type *to, const char *from_name, const char *to_name)
{
	ts_err		err = {0};

	assert_null(ts_cast_rule_name(from, to));
	assert_false(ts_cast_check(from, to, "col_z", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "col_z"));
	if (strstr(err.msg, from_name) == NULL || strstr(err.msg, to_name) == NULL)
		fail_msg("message \"%s\" does not name %s and %s", err.msg, from_name, to_name);
}

/*
 * Pairs DataTypeCasts / CastExecutors refuse stay errors naming both types
 * exactly (TIMESTAMP(9) WITH LOCAL TIME ZONE, not TIMESTAMP(9)).
 */
static void
test_refused_pairs(void **state)
{
	ts_type    *ltz9 = ty(TS_TIMESTAMP_LTZ, 9, 0),
			   *ts9 = ty(TS_TIMESTAMP, 9, 0),
			   *d102 = ty(TS_DECIMAL, 10, 2),
			   *i8 = ty(TS_TINYINT, 0, 0),
			   *f64 = ty(TS_DOUBLE, 0, 0),
			   *b = ty(TS_BOOLEAN, 0, 0),
			   *date = ty(TS_DATE, 0, 0),
			   *i32 = ty(TS_INT, 0, 0),
			   *time = ty(TS_TIME, 3, 0),
			   *str = ty(TS_VARCHAR, TS_STRING_LENGTH, 0),
			   *arr = ts_type_new(TS_ARRAY, true);

	(void) state;
	refused(ltz9, d102, "TIMESTAMP(9) WITH LOCAL TIME ZONE", "DECIMAL(10, 2)");
	refused(ts9, f64, "TIMESTAMP(9)", "DOUBLE");
	refused(i8, ltz9, "TINYINT", "TIMESTAMP(9) WITH LOCAL TIME ZONE");
	refused(f64, ts9, "DOUBLE", "TIMESTAMP(9)");
	refused(f64, b, "DOUBLE", "BOOLEAN");
	refused(date, i32, "DATE", "INT");
	refused(date, time, "DATE", "TIME(3)");
	refused(b, date, "BOOLEAN", "DATE");
	arr->element = ty(TS_INT, 0, 0);
	refused(str, arr, "STRING", "ARRAY<INT>");
	refused(arr, ts9, "ARRAY<INT>", "TIMESTAMP(9)");
	ts_type_free(ltz9);
	ts_type_free(ts9);
	ts_type_free(d102);
	ts_type_free(i8);
	ts_type_free(f64);
	ts_type_free(b);
	ts_type_free(date);
	ts_type_free(i32);
	ts_type_free(time);
	ts_type_free(str);
	ts_type_free(arr);
}

static int
setup(void **state)
{
	(void) state;
	ts_arena_init(&arena, 0);
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	ts_arena_free(&arena);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_to_string),
		cmocka_unit_test(test_from_string),
		cmocka_unit_test(test_temporal),
		cmocka_unit_test(test_nested_and_unsupported),
		cmocka_unit_test(test_session_zone_new_york),
		cmocka_unit_test(test_session_zone_east),
		cmocka_unit_test(test_java_rules_more),
		cmocka_unit_test(test_refused_pairs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
