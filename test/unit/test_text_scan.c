/*
 * test_text_scan.c - the shared text scanners and calendar (src/base/
 * text_scan.c) and partition path escaping (src/base/path_escape.c).
 *
 * Each case states the edge a caller relies on: the CSV/JSON readers
 * (strict ints, 4-digit years, H:m times), Paimon's STRING casts (Java's
 * toLong accepting ".", 9-digit years up to 9999, seconds required) and
 * partition values (signed years, two-digit minutes and seconds).
 * Expected day numbers are well-known constants (2024-01-01 = 19723).
 */
#include "unit.h"

#include "base/ts_path_escape.h"
#include "base/ts_text_scan.h"

static const ts_date_syntax csv_date = {false, 4, 0};
static const ts_date_syntax cast_date = {false, 9, 9999};
static const ts_date_syntax part_date = {true, 9, 0};
static const ts_time_syntax csv_time = {1, false};
static const ts_time_syntax cast_time = {1, true};
static const ts_time_syntax part_time = {2, false};

static bool
int_of(const char *s, int64_t lo, int64_t hi, ts_int_fraction f, int64_t *v)
{
	*v = 12345;
	return ts_scan_int(s, strlen(s), lo, hi, f, v);
}

static void
test_calendar(void **state)
{
	int64_t		y;
	int			m,
				d;

	(void) state;
	assert_int_equal(ts_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(ts_days_from_civil(2024, 1, 1), 19723);
	assert_int_equal(ts_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(ts_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(ts_days_from_civil(0, 1, 1), -719528);
	ts_civil_from_days(19723 + 59, &y, &m, &d);	/* leap day */
	assert_int_equal(y, 2024);
	assert_int_equal(m, 2);
	assert_int_equal(d, 29);
	ts_civil_from_days(-719528, &y, &m, &d);
	assert_int_equal(y, 0);
	assert_int_equal(m, 1);
	assert_int_equal(d, 1);
	for (int64_t z = -800000; z < 3000000; z += 997)
	{
		ts_civil_from_days(z, &y, &m, &d);
		assert_int_equal(ts_days_from_civil(y, m, d), z);
	}
	assert_int_equal(ts_days_in_month(2024, 2), 29);
	assert_int_equal(ts_days_in_month(2023, 2), 28);
	assert_int_equal(ts_days_in_month(1900, 2), 28);
	assert_int_equal(ts_days_in_month(2000, 2), 29);
	assert_int_equal(ts_days_in_month(-4, 2), 29);
	assert_int_equal(ts_days_in_month(2023, 4), 30);
	assert_int_equal(ts_floor_div(-1, 86400000), -1);
	assert_int_equal(ts_floor_div(-86400000, 86400000), -1);
	assert_int_equal(ts_floor_div(86399999, 86400000), 0);
	assert_int_equal(ts_floor_div(7, -2), -4);
}

static void
test_digits(void **state)
{
	size_t		i = 1;
	int64_t		v = -1;

	(void) state;
	assert_true(ts_scan_digits("x123y", 5, &i, 1, 2, &v));
	assert_int_equal(v, 12);
	assert_int_equal(i, 3);
	/* too few digits: position and value stay */
	i = 0;
	v = -1;
	assert_false(ts_scan_digits("7:", 2, &i, 2, 2, &v));
	assert_int_equal(i, 0);
	assert_int_equal(v, -1);
	/* never reads past len */
	i = 0;
	assert_true(ts_scan_digits("1234", 2, &i, 1, 9, &v));
	assert_int_equal(v, 12);
}

static void
test_int(void **state)
{
	int64_t		v;

	(void) state;
	assert_true(int_of("-128", INT8_MIN, INT8_MAX, TS_INT_NO_FRACTION, &v));
	assert_int_equal(v, -128);
	assert_false(int_of("128", INT8_MIN, INT8_MAX, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("-129", INT8_MIN, INT8_MAX, TS_INT_NO_FRACTION, &v));
	assert_true(int_of("+2147483647", INT32_MIN, INT32_MAX, TS_INT_NO_FRACTION, &v));
	assert_int_equal(v, INT32_MAX);
	assert_true(int_of("-9223372036854775808", INT64_MIN, INT64_MAX, TS_INT_NO_FRACTION, &v));
	assert_true(v == INT64_MIN);
	assert_false(int_of("9223372036854775808", INT64_MIN, INT64_MAX, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("-9223372036854775809", INT64_MIN, INT64_MAX, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("99999999999999999999", INT64_MIN, INT64_MAX, TS_INT_NO_FRACTION, &v));
	/* a range that does not contain its own negation (partition TIME) */
	assert_true(int_of("-0", 0, 86399999, TS_INT_NO_FRACTION, &v));
	assert_int_equal(v, 0);
	assert_false(int_of("-1", 0, 86399999, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("86400000", 0, 86399999, TS_INT_NO_FRACTION, &v));
	/* no whitespace, no lone sign, no empty text */
	assert_false(int_of(" 1", INT32_MIN, INT32_MAX, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("1 ", INT32_MIN, INT32_MAX, TS_INT_NO_FRACTION, &v));
	assert_false(int_of("", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_false(int_of("-", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_false(int_of("+", INT32_MIN, INT32_MAX, TS_INT_DROP_FRACTION, &v));
	/* fractions: the CSV flavour refuses, the cast flavours drop them */
	assert_false(int_of("1.9", INT32_MIN, INT32_MAX, TS_INT_NO_FRACTION, &v));
	assert_true(int_of("1.9", INT32_MIN, INT32_MAX, TS_INT_DROP_FRACTION, &v));
	assert_int_equal(v, 1);
	assert_true(int_of("-1.9", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_int_equal(v, -1);
	assert_true(int_of("5.", INT32_MIN, INT32_MAX, TS_INT_DROP_FRACTION, &v));
	assert_int_equal(v, 5);
	assert_true(int_of(".5", INT32_MIN, INT32_MAX, TS_INT_DROP_FRACTION, &v));
	assert_int_equal(v, 0);
	assert_false(int_of("1.2.3", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_false(int_of("1.x", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	/* a bare point: only Java's toLong takes it (as 0) */
	assert_false(int_of(".", INT32_MIN, INT32_MAX, TS_INT_DROP_FRACTION, &v));
	assert_true(int_of(".", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_int_equal(v, 0);
	assert_true(int_of("-.", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_int_equal(v, 0);
	/* the range is checked on the integral part */
	assert_false(int_of("2147483648.0", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_true(int_of("-2147483648.99", INT32_MIN, INT32_MAX, TS_INT_JAVA_TOLONG, &v));
	assert_int_equal(v, INT32_MIN);
}

static int
dec_of(const char *s, int p, int sc, int64_t maxexp, ts_int128 *v)
{
	*v = 777;
	return ts_scan_decimal(s, strlen(s), p, sc, maxexp, v);
}

static void
test_decimal(void **state)
{
	ts_int128	v;

	(void) state;
	assert_int_equal(dec_of("999.994", 5, 2, 1000000, &v), 1);
	assert_true(v == 99999);
	/* HALF_UP into overflow */
	assert_int_equal(dec_of("999.995", 5, 2, 1000000, &v), 0);
	assert_true(v == 777);
	assert_int_equal(dec_of("-0.005", 5, 2, 1000000, &v), 1);
	assert_true(v == -1);
	assert_int_equal(dec_of("0.004", 5, 2, 1000000, &v), 1);
	assert_true(v == 0);
	assert_int_equal(dec_of("1.5e2", 5, 2, 1000000, &v), 1);
	assert_true(v == 15000);
	assert_int_equal(dec_of("1.E2", 5, 0, 1000000, &v), 1);
	assert_true(v == 100);
	assert_int_equal(dec_of("+12.3400", 10, 4, 1000000, &v), 1);
	assert_true(v == 123400);
	assert_int_equal(dec_of("1000", 3, 0, 1000000, &v), 0);
	/* far below the scale: 0, far above: overflow */
	assert_int_equal(dec_of("1e-1000000", 5, 2, 1000000, &v), 1);
	assert_true(v == 0);
	assert_int_equal(dec_of("1e1000000", 38, 0, 1000000, &v), 0);
	/* the exponent bound is the caller's (text: 10^6; cast: an int) */
	assert_int_equal(dec_of("1e1000001", 38, 0, 1000000, &v), -1);
	assert_int_equal(dec_of("1e1000001", 38, 0, 999999999, &v), 0);
	assert_int_equal(dec_of("1e1000000000", 38, 0, 999999999, &v), -1);
	/* 38 digits fit DECIMAL(38,0), 39 do not */
	assert_int_equal(dec_of("99999999999999999999999999999999999999", 38, 0, 1000000, &v), 1);
	assert_int_equal(dec_of("100000000000000000000000000000000000000", 38, 0, 1000000, &v), 0);
	/* more than 80 significant digits still round on the right digit */
	assert_int_equal(dec_of("0.12500000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
							5, 2, 1000000, &v), 1);
	assert_true(v == 13);
	/* malformed */
	assert_int_equal(dec_of("", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of(".", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of("-", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of("e5", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of("1e", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of("1e5.0", 38, 2, 1000000, &v), -1);
	assert_int_equal(dec_of("1.2.3", 5, 2, 1000000, &v), -1);
	assert_int_equal(dec_of(" 1", 5, 2, 1000000, &v), -1);
	/* the 64-bit path (<= 18 digits, no exponent, no rounding) */
	assert_int_equal(dec_of(".5", 5, 2, 1000000, &v), 1);
	assert_true(v == 50);
	assert_int_equal(dec_of("5.", 5, 2, 1000000, &v), 1);
	assert_true(v == 500);
	assert_int_equal(dec_of("-000.01", 5, 2, 1000000, &v), 1);
	assert_true(v == -1);
	assert_int_equal(dec_of("999999999999999999", 18, 0, 1000000, &v), 1);
	assert_true(v == 999999999999999999LL);
	assert_int_equal(dec_of("99999999999999.9999", 18, 4, 1000000, &v), 1);
	assert_true(v == 999999999999999999LL);
	assert_int_equal(dec_of("999.99", 4, 2, 1000000, &v), 0);
	assert_true(v == 777);
}

/*
 * The 64-bit path against the general one: "e0" appended sends the same
 * value through the general path; both must agree on every input.
 */
static void
test_decimal_paths_agree(void **state)
{
	static const char *const inputs[] = {"0", "-0", "1", "12.5", "0.0001", "123456789012345678",
		"1234567890123456789", "12345678901234.5678", "99999.99", "100000.00", "-99999.995", "7.",
		".07", "000000000000000000001.5", "-12345678901234567.8", "3.14159", NULL};
	static const int shapes[][2] = {{5, 2}, {7, 2}, {18, 4}, {18, 0}, {38, 10}, {10, 0}, {19, 1}};

	(void) state;
	for (int k = 0; inputs[k]; k++)
		for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++)
		{
			char		slow[64];
			ts_int128	a,
						b;
			int			ra,
						rb;

			snprintf(slow, sizeof(slow), "%se0", inputs[k]);
			ra = dec_of(inputs[k], shapes[j][0], shapes[j][1], 1000000, &a);
			rb = dec_of(slow, shapes[j][0], shapes[j][1], 1000000, &b);
			if (ra != rb || (ra == 1 && a != b))
				fail_msg("\"%s\" as DECIMAL(%d, %d): %d vs %d", inputs[k], shapes[j][0], shapes[j][1], ra, rb);
		}
}

static int
exact_of(const char *s, int p, int sc, ts_int128 *v)
{
	*v = 777;
	return ts_scan_decimal_exact(s, strlen(s), p, sc, v);
}

static void
test_decimal_exact(void **state)
{
	ts_int128	v;

	(void) state;
	assert_int_equal(exact_of("12.3400", 10, 4, &v), 1);
	assert_true(v == 123400);
	assert_int_equal(exact_of("-12.3", 10, 4, &v), 1);
	assert_true(v == -123000);
	assert_int_equal(exact_of("+.5", 3, 1, &v), 1);
	assert_true(v == 5);
	assert_int_equal(exact_of("7.", 3, 0, &v), 1);
	assert_true(v == 7);
	/* zeros past the scale are exact, any other digit is not */
	assert_int_equal(exact_of("1.2500", 5, 2, &v), 1);
	assert_true(v == 125);
	assert_int_equal(exact_of("1.251", 5, 2, &v), -2);
	assert_true(v == 777);
	assert_int_equal(exact_of("9.99", 2, 1, &v), -2);	/* not rounded into overflow */
	/* too many digits for the precision */
	assert_int_equal(exact_of("1000", 3, 0, &v), 0);
	assert_true(v == 777);
	assert_int_equal(exact_of("99999999999999999999999999999999999999", 38, 0, &v), 1);
	assert_int_equal(exact_of("100000000000000000000000000000000000000", 38, 0, &v), 0);
	/* malformed: no exponent, no blanks, one point, a digit somewhere */
	assert_int_equal(exact_of("1e2", 5, 0, &v), -1);
	assert_int_equal(exact_of("1E0", 5, 0, &v), -1);
	assert_int_equal(exact_of(" 1", 5, 0, &v), -1);
	assert_int_equal(exact_of("1.2.0", 5, 2, &v), -1);
	assert_int_equal(exact_of(".", 5, 2, &v), -1);
	assert_int_equal(exact_of("", 5, 2, &v), -1);
	assert_int_equal(exact_of("1.00x", 5, 1, &v), -1);
}

static bool
date_of(const char *s, const ts_date_syntax *syn, int64_t *days, size_t *end)
{
	*end = 0;
	return ts_scan_date(s, strlen(s), end, syn, days);
}

static void
test_date(void **state)
{
	int64_t		d;
	size_t		n;

	(void) state;
	assert_true(date_of("2024-1-1", &csv_date, &d, &n));
	assert_int_equal(d, 19723);
	assert_int_equal(n, 8);
	/* stops after the day: what follows is the caller's business */
	assert_true(date_of("2024-01-01T10:00", &csv_date, &d, &n));
	assert_int_equal(n, 10);
	assert_true(date_of("2024-02-29", &cast_date, &d, &n));
	assert_false(date_of("2023-02-29", &part_date, &d, &n));
	assert_false(date_of("2024-13-01", &csv_date, &d, &n));
	assert_false(date_of("2024-04-31", &csv_date, &d, &n));
	assert_false(date_of("2024-01-00", &csv_date, &d, &n));
	assert_false(date_of("2024-001-01", &csv_date, &d, &n));
	assert_false(date_of("2024-01", &csv_date, &d, &n));
	/* year digits: CSV reads at most 4, the cast up to 9 but <= 9999 */
	assert_false(date_of("00001-01-01", &csv_date, &d, &n));
	assert_true(date_of("00001-01-01", &cast_date, &d, &n));
	assert_int_equal(d, ts_days_from_civil(1, 1, 1));
	assert_false(date_of("10000-01-01", &cast_date, &d, &n));
	assert_true(date_of("10000-01-01", &part_date, &d, &n));
	assert_int_equal(d, ts_days_from_civil(10000, 1, 1));
	assert_false(date_of("1234567890-01-01", &part_date, &d, &n));
	/* a signed year: only partition values */
	assert_false(date_of("-0001-01-01", &cast_date, &d, &n));
	assert_true(date_of("-0004-02-29", &part_date, &d, &n));
	assert_int_equal(d, ts_days_from_civil(-4, 2, 29));
	assert_true(date_of("+2024-01-01", &part_date, &d, &n));
	assert_int_equal(d, 19723);
}

static bool
time_of(const char *s, const ts_time_syntax *syn, int64_t *nanos, size_t *end)
{
	*end = 0;
	return ts_scan_time(s, strlen(s), end, syn, nanos);
}

static void
test_time(void **state)
{
	int64_t		t;
	size_t		n;

	(void) state;
	assert_true(time_of("1:2", &csv_time, &t, &n));
	assert_int_equal(t, 3720 * 1000000000LL);
	assert_int_equal(n, 3);
	/* seconds: the cast requires them */
	assert_false(time_of("12:30", &cast_time, &t, &n));
	assert_true(time_of("1:2:3", &cast_time, &t, &n));
	assert_int_equal(t, 3723 * 1000000000LL);
	/* partition values want two-digit minutes and seconds */
	assert_false(time_of("12:3", &part_time, &t, &n));
	assert_false(time_of("12:30:4", &part_time, &t, &n));
	assert_true(time_of("9:30", &part_time, &t, &n));
	assert_int_equal(t, 34200 * 1000000000LL);
	/* fraction: the first 9 digits count, at least one needed */
	assert_true(time_of("23:59:59.1234567891", &csv_time, &t, &n));
	assert_int_equal(t, 86399 * 1000000000LL + 123456789);
	assert_int_equal(n, 19);
	assert_true(time_of("00:00:00.5", &part_time, &t, &n));
	assert_int_equal(t, 500000000);
	assert_false(time_of("12:30:45.", &csv_time, &t, &n));
	/* ranges */
	assert_false(time_of("24:00:00", &csv_time, &t, &n));
	assert_false(time_of("23:60:00", &csv_time, &t, &n));
	assert_false(time_of("23:59:60", &csv_time, &t, &n));
	/* stops after the time */
	assert_true(time_of("10:00:00Z", &csv_time, &t, &n));
	assert_int_equal(n, 8);
	assert_true(time_of("123:00", &csv_time, &t, &n) == false);
}

static void
test_date_time(void **state)
{
	int64_t		d,
				t = -1;
	size_t		n = 0;

	(void) state;
	/* no time: nanos 0, stops after the date */
	assert_true(ts_scan_date_time("2024-01-01x", 11, &n, &csv_date, &csv_time, true, &d, &t));
	assert_int_equal(d, 19723);
	assert_int_equal(t, 0);
	assert_int_equal(n, 10);
	n = 0;
	assert_true(ts_scan_date_time("2024-01-01T01:00", 16, &n, &part_date, &part_time, true, &d, &t));
	assert_int_equal(t, 3600 * 1000000000LL);
	assert_int_equal(n, 16);
	/* 'T' only when iso_t (the cast takes ' ' alone) */
	n = 0;
	assert_true(ts_scan_date_time("2024-01-01T01:00:00", 19, &n, &cast_date, &cast_time, false, &d, &t));
	assert_int_equal(n, 10);
	n = 0;
	assert_true(ts_scan_date_time("2024-01-01 01:00:00", 19, &n, &cast_date, &cast_time, false, &d, &t));
	assert_int_equal(n, 19);
	/* a separator needs a time */
	n = 0;
	assert_false(ts_scan_date_time("2024-01-01 ", 11, &n, &csv_date, &csv_time, true, &d, &t));
	assert_false(ts_scan_date_time("2024-01-01 01:00", 16, &n, &cast_date, &cast_time, false, &d, &t));
	assert_int_equal(n, 0);
}

static void
test_escape(void **state)
{
	char	   *e,
			   *u;

	(void) state;
	e = ts_partition_escape("a/b:c=d%e f#\x01{}[]^\"'*?\\\x7f\xc3\xa9");
	assert_string_equal(e, "a%2Fb%3Ac%3Dd%25e f%23%01%7B%7D%5B%5D%5E%22%27%2A%3F%5C%7F\xc3\xa9");
	u = ts_partition_unescape(e);
	assert_string_equal(u, "a/b:c=d%e f#\x01{}[]^\"'*?\\\x7f\xc3\xa9");
	ts_free(e);
	ts_free(u);
	e = ts_partition_escape("");
	assert_string_equal(e, "");
	ts_free(e);
	/* lower-case hex decodes; malformed and truncated escapes stay */
	u = ts_partition_unescape("%2f%zz%4%");
	assert_string_equal(u, "/%zz%4%");
	ts_free(u);
	u = ts_partition_unescape("x%41");
	assert_string_equal(u, "xA");
	ts_free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calendar),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_decimal_paths_agree),
		cmocka_unit_test(test_decimal_exact),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_date_time),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
