/*
 * test_text.c - CSV, JSON-lines and TEXT readers (src/format/text).
 *
 * Every file is written by the test itself (plain, or compressed with
 * zlib / zstd / bzip2 / snappy / lz4 in the framings the reader expects) into a
 * temporary directory.  Expected values are computed independently:
 * day numbers and epoch millis are well-known constants (2024-01-01 =
 * day 19723 = 1704067200000 ms), decimals are stated unscaled.
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <snappy-c.h>
#include <lz4.h>
#include <bzlib.h>

#include "format/format.h"
#include "format/text/text_internal.h"

static char tmpdir[256];

static const char *
tpath(const char *name)
{
	static char bufs[8][512];
	static int	next = 0;
	char	   *b = bufs[next++ & 7];

	snprintf(b, 512, "%s/%s", tmpdir, name);
	return b;
}

static void
write_bytes(const char *path, const void *p, size_t n)
{
	FILE	   *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void
write_text(const char *path, const char *s)
{
	write_bytes(path, s, strlen(s));
}

static ts_type *
ty(ts_type_kind k)
{
	ts_type    *t = ts_type_new(k, true);

	if (k == TS_VARCHAR)
		t->length = TS_STRING_LENGTH;
	if (k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	if (k == TS_TIMESTAMP || k == TS_TIMESTAMP_LTZ)
		t->precision = 6;
	return t;
}

static ts_type *
tdec(int p, int s)
{
	ts_type    *t = ts_type_new(TS_DECIMAL, true);

	t->precision = p;
	t->scale = s;
	return t;
}

static ts_type *
tts(ts_type_kind k, int p)
{
	ts_type    *t = ts_type_new(k, true);

	t->precision = p;
	return t;
}

/* all rows of a reader, row-major copies rendered as strings */
typedef struct rows
{
	int			n;
	int			ncols;
	char	  **cells;			/* n * ncols, "NULL" for nulls */
	ts_value   *raw;			/* scalar copies (nested pointers invalid) */
} rows;

static bool
read_all(ts_format_reader *r, const ts_read_column *cols, int ncols, rows *out, ts_err *err)
{
	ts_batch	b;
	int			got;

	memset(out, 0, sizeof(*out));
	out->ncols = ncols;
	while ((got = ts_format_next(r, &b, err)) > 0)
	{
		out->cells = realloc(out->cells, sizeof(char *) * (size_t) (out->n + got) * (ncols ? ncols : 1));
		out->raw = realloc(out->raw, sizeof(ts_value) * (size_t) (out->n + got) * (ncols ? ncols : 1));
		for (int i = 0; i < got; i++)
			for (int c = 0; c < ncols; c++)
			{
				ts_value   *v = ts_batch_at(&b, i, c);

				out->cells[(out->n + i) * ncols + c] = ts_value_to_string(v, cols[c].type);
				out->raw[(out->n + i) * ncols + c] = *v;
			}
		out->n += got;
	}
	return got == 0;
}

static void
rows_free(rows *r)
{
	for (int i = 0; i < r->n * r->ncols; i++)
		ts_free(r->cells[i]);
	free(r->cells);
	free(r->raw);
}

static const char *
cell(const rows *r, int row, int col)
{
	assert_true(row < r->n);
	return r->cells[row * r->ncols + col];
}

typedef ts_format_reader *(*open_fn) (const char *path, const ts_read_column *cols, int ncols,
									   const ts_reader_options *options, ts_err *err);

/* a text reader with nopt options (keys / vals) and batches of batch_rows (0: default) */
static ts_format_reader *
open_with(open_fn open, const char *path, const ts_read_column *cols, int ncols, int nopt,
		  const char *const *keys, const char *const *vals, int batch_rows, ts_err *err)
{
	ts_reader_options o;

	memset(&o, 0, sizeof(o));

	o.fs = ts_fs_local_unconfined();
	o.ntext_options = nopt;
	o.text_option_keys = keys;
	o.text_option_values = vals;
	o.batch_rows = batch_rows;
	return open(path, cols, ncols, &o, err);
}

static ts_format_reader *
open_csv(const char *path, const ts_read_column *cols, int ncols, int nopt,
		 const char *const *keys, const char *const *vals, ts_err *err)
{
	return open_with(ts_csv_open, path, cols, ncols, nopt, keys, vals, 0, err);
}

static ts_format_reader *
open_json(const char *path, const ts_read_column *cols, int ncols, int nopt,
		  const char *const *keys, const char *const *vals, ts_err *err)
{
	return open_with(ts_json_open, path, cols, ncols, nopt, keys, vals, 0, err);
}

/* ---- CSV: every scalar type --------------------------------------------- */

static void
test_csv_types(void **state)
{
	ts_read_column cols[] = {
		{0, "b", ty(TS_BOOLEAN)}, {1, "t", ty(TS_TINYINT)}, {2, "s", ty(TS_SMALLINT)},
		{3, "i", ty(TS_INT)}, {4, "l", ty(TS_BIGINT)}, {5, "f", ty(TS_FLOAT)},
		{6, "d", ty(TS_DOUBLE)}, {7, "dec", tdec(10, 2)}, {8, "str", ty(TS_VARCHAR)},
		{9, "bin", ty(TS_VARBINARY)}, {10, "dt", ty(TS_DATE)}, {11, "tm", tts(TS_TIME, 3)},
		{12, "ts", tts(TS_TIMESTAMP, 6)}, {13, "ts3", tts(TS_TIMESTAMP, 3)},
		{14, "ltz", tts(TS_TIMESTAMP_LTZ, 6)}, {15, "bigdec", tdec(38, 10)},
	};
	int			n = 16;
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_text(tpath("types.csv"),
			   "true,127,-32768,2147483647,-9223372036854775808,1.5,2.25,12.345,hello,aGVsbG8=,2024-01-01,"
			   "12:34:56.789,2024-01-01 00:00:01.123456,2024-01-01T10:00:00.123456,2024-01-01 00:00:00+01:00,"
			   "-1234567890123456789012345678.0123456789\n"
			   "FALSE,-128,0,0,0,-0.0,1e300,-0.005,\"a,b\"\"c\",,1970-01-01,00:00:00,1969-12-31 23:59:59.999999,"
			   "1970-01-01 00:00:00,1970-01-01T00:00:00Z,0\n");
	r = open_csv(tpath("types.csv"), cols, n, 0, NULL, NULL, &err);
	assert_non_null(r);
	assert_true(read_all(r, cols, n, &rs, &err));
	assert_int_equal(rs.n, 2);
	/* row 0 (raw string values point into the reader: still open) */
	assert_int_equal(rs.raw[0].v.i, 1);
	assert_int_equal(rs.raw[1].v.i, 127);
	assert_int_equal(rs.raw[2].v.i, -32768);
	assert_int_equal(rs.raw[3].v.i, 2147483647);
	assert_true(rs.raw[4].v.i == INT64_MIN);
	assert_true(rs.raw[5].v.f == 1.5f);
	assert_true(rs.raw[6].v.d == 2.25);
	assert_true(rs.raw[7].v.dec == 1235);	/* 12.345 HALF_UP to scale 2 */
	assert_string_equal(cell(&rs, 0, 8), "hello");
	assert_int_equal(rs.raw[9].v.s.len, 5);
	assert_memory_equal(rs.raw[9].v.s.p, "hello", 5);
	assert_int_equal(rs.raw[10].v.i, 19723);
	assert_int_equal(rs.raw[11].v.i, ((12 * 60 + 34) * 60 + 56) * 1000 + 789);
	assert_true(rs.raw[12].v.ts.millis == 1704067201123LL);
	assert_int_equal(rs.raw[12].v.ts.nanos, 456000);
	assert_true(rs.raw[13].v.ts.millis == 1704067200000LL + 10 * 3600000LL + 123);
	assert_int_equal(rs.raw[13].v.ts.nanos, 0);	/* truncated to precision 3 */
	assert_true(rs.raw[14].v.ts.millis == 1704067200000LL - 3600000LL);
	assert_string_equal(cell(&rs, 0, 15), "-1234567890123456789012345678.0123456789");
	/* row 1 */
	assert_int_equal(rs.raw[n + 0].v.i, 0);	/* Boolean.parseBoolean("FALSE") */
	assert_int_equal(rs.raw[n + 1].v.i, -128);
	assert_true(rs.raw[n + 6].v.d == 1e300);
	assert_true(rs.raw[n + 7].v.dec == -1);	/* -0.005 -> -0.01 (HALF_UP away from zero) */
	assert_string_equal(cell(&rs, 1, 8), "a,b\"c");
	assert_true(rs.raw[n + 9].isnull);	/* empty field = null-literal "" */
	assert_int_equal(rs.raw[n + 10].v.i, 0);
	assert_true(rs.raw[n + 12].v.ts.millis == -1);
	assert_int_equal(rs.raw[n + 12].v.ts.nanos, 999000);
	assert_true(rs.raw[n + 14].v.ts.millis == 0);
	assert_true(rs.raw[n + 15].v.dec == 0);
	ts_format_close(r);
	rows_free(&rs);
	for (int i = 0; i < n; i++)
		ts_type_free((ts_type *) cols[i].type);
}

/* ---- CSV: options, positions, quoting ----------------------------------- */

static void
test_csv_options(void **state)
{
	ts_type    *ti = ty(TS_INT),
			   *ts = ty(TS_VARCHAR);
	/* request file columns 2 and 0 (positions), in that order */
	ts_read_column cols[] = {{2, "c", ts}, {0, "a", ti}};
	const char *keys[] = {"csv.field-delimiter", "csv.include-header", "csv.null-literal",
	"csv.quote-character"};
	const char *vals[] = {"|", "true", "\\N", "'"};
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_text(tpath("opts.csv"),
			   "a|b|c\n"
			   "1|x|'quoted | pipe'\n"
			   "\\N|y|\\N\n"
			   "3|z|'it''s'\n"
			   "4|w|''\n"			/* empty string is not the null literal here */
			   "5\n"				/* missing fields -> NULL */
			   "6|v|multi 'not quote' here|extra|fields\n"
			   "   \n"				/* blank record -> all NULL */
			   "7|u|'line1\nline2'\n");
	r = open_csv(tpath("opts.csv"), cols, 2, 4, keys, vals, &err);
	assert_non_null(r);
	assert_true(read_all(r, cols, 2, &rs, &err));
	ts_format_close(r);
	assert_int_equal(rs.n, 8);
	assert_string_equal(cell(&rs, 0, 0), "quoted | pipe");
	assert_string_equal(cell(&rs, 0, 1), "1");
	assert_string_equal(cell(&rs, 1, 0), "NULL");
	assert_string_equal(cell(&rs, 1, 1), "NULL");
	assert_string_equal(cell(&rs, 2, 0), "it's");
	assert_string_equal(cell(&rs, 3, 0), "");
	assert_false(rs.raw[3 * 2].isnull);
	assert_string_equal(cell(&rs, 4, 0), "NULL");
	assert_string_equal(cell(&rs, 4, 1), "5");
	assert_string_equal(cell(&rs, 5, 0), "multi 'not quote' here");
	assert_string_equal(cell(&rs, 6, 0), "NULL");
	assert_string_equal(cell(&rs, 6, 1), "NULL");
	assert_string_equal(cell(&rs, 7, 0), "line1\nline2");
	assert_string_equal(cell(&rs, 7, 1), "7");
	rows_free(&rs);

	/* tab delimiter spelled \t, escape character, CRLF lines, custom line delimiter */
	{
		ts_read_column c2[] = {{0, "a", ts}, {1, "b", ts}};
		const char *k2[] = {"csv.field-delimiter"};
		const char *v2[] = {"\\t"};
		const char *k3[] = {"csv.line-delimiter", "csv.escape-character"};
		const char *v3[] = {"##", "^"};

		write_text(tpath("tab.csv"), "x\t\"a\\\"b\"\r\nc\\\\d\tlast\r\n");
		r = open_csv(tpath("tab.csv"), c2, 2, 1, k2, v2, &err);
		assert_non_null(r);
		assert_true(read_all(r, c2, 2, &rs, &err));
		ts_format_close(r);
		assert_int_equal(rs.n, 2);
		assert_string_equal(cell(&rs, 0, 0), "x");
		assert_string_equal(cell(&rs, 0, 1), "a\"b");
		assert_string_equal(cell(&rs, 1, 0), "c\\d");
		assert_string_equal(cell(&rs, 1, 1), "last");
		rows_free(&rs);

		write_text(tpath("hash.csv"), "a,b##c^,d,e##f,\"g^\"h\"");
		r = open_csv(tpath("hash.csv"), c2, 2, 2, k3, v3, &err);
		assert_non_null(r);
		assert_true(read_all(r, c2, 2, &rs, &err));
		ts_format_close(r);
		assert_int_equal(rs.n, 3);
		assert_string_equal(cell(&rs, 0, 1), "b");
		/* ^ before a non-special char is dropped; the ',' still separates */
		assert_string_equal(cell(&rs, 1, 0), "c");
		assert_string_equal(cell(&rs, 1, 1), "d");
		assert_string_equal(cell(&rs, 2, 1), "g\"h");
		rows_free(&rs);
	}

	/* invalid options */
	{
		const char *k4[] = {"csv.field-delimiter", "csv.quote-character"};
		const char *v4[] = {";", ";"};
		const char *k5[] = {"csv.mode"};
		const char *v5[] = {"lenient"};

		assert_null(open_csv(tpath("opts.csv"), cols, 2, 2, k4, v4, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_null(open_csv(tpath("opts.csv"), cols, 2, 1, k5, v5, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "csv.mode"));
	}
	ts_type_free(ti);
	ts_type_free(ts);
}

/* ---- CSV: malformed rows per mode ------------------------------------- */

static void
test_csv_modes(void **state)
{
	ts_type    *ti = ty(TS_INT),
			   *ts = ty(TS_VARCHAR),
			   *tt = ty(TS_TINYINT);
	ts_read_column cols[] = {{0, "id", ti}, {1, "name", ts}, {2, "small", tt}};
	const char *k[] = {"csv.mode"};
	const char *perm[] = {"PERMISSIVE"};
	const char *drop[] = {"dropmalformed"};
	const char *fail[] = {"FAILFAST"};
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_text(tpath("bad.csv"), "1,a,1\nx,b,2\n3,c,300\n4,d,4\n 5,e,5\n");
	/* PERMISSIVE (also the default) */
	for (int pass = 0; pass < 2; pass++)
	{
		r = open_csv(tpath("bad.csv"), cols, 3, pass, k, perm, &err);
		assert_non_null(r);
		assert_true(read_all(r, cols, 3, &rs, &err));
		ts_format_close(r);
		assert_int_equal(rs.n, 5);
		assert_string_equal(cell(&rs, 1, 0), "NULL");
		assert_string_equal(cell(&rs, 1, 1), "b");
		assert_string_equal(cell(&rs, 2, 2), "NULL");	/* 300 > TINYINT */
		assert_string_equal(cell(&rs, 4, 0), "NULL");	/* " 5": parseInt is strict */
		assert_string_equal(cell(&rs, 3, 2), "4");
		rows_free(&rs);
	}
	r = open_csv(tpath("bad.csv"), cols, 3, 1, k, drop, &err);
	assert_non_null(r);
	assert_true(read_all(r, cols, 3, &rs, &err));
	ts_format_close(r);
	assert_int_equal(rs.n, 2);
	assert_string_equal(cell(&rs, 0, 0), "1");
	assert_string_equal(cell(&rs, 1, 0), "4");
	rows_free(&rs);

	r = open_csv(tpath("bad.csv"), cols, 3, 1, k, fail, &err);
	assert_non_null(r);
	assert_false(read_all(r, cols, 3, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "bad.csv"));
	assert_non_null(strstr(err.msg, "line 2"));
	assert_non_null(strstr(err.msg, "\"x\""));
	ts_type_free(ti);
	ts_type_free(ts);
	ts_type_free(tt);
}

/*
 * DROPMALFORMED / FAILFAST decide on whole records: a malformed field that
 * is not read still drops (or fails) its record when the reader is given
 * the record's types, so every projection returns the same rows.
 */
static void
test_csv_modes_whole_record(void **state)
{
	ts_type    *ti = ty(TS_INT),
			   *ts = ty(TS_VARCHAR),
			   *td = tdec(10, 2);
	const ts_type *rec[] = {ti, ts, td};
	const char *k[] = {"csv.mode"};
	const char *drop[] = {"DROPMALFORMED"};
	const char *fail[] = {"FAILFAST"};
	const char *perm[] = {"PERMISSIVE"};
	/* projections: (id, name), (amount), () */
	ts_read_column p1[] = {{0, "id", ti}, {1, "name", ts}};
	ts_read_column p2[] = {{2, "amount", td}};
	ts_err		err = {0};
	ts_reader_options o;
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_text(tpath("whole.csv"), "1,a,1.00\n2,b,not-a-number\n3,c,3.00\n4,d,123456789.00\n");
	memset(&o, 0, sizeof(o));
	o.fs = ts_fs_local_unconfined();
	o.ntext_options = 1;
	o.text_option_keys = k;
	o.text_option_values = drop;
	o.nrecord_fields = 3;
	o.record_types = rec;
	for (int proj = 0; proj < 3; proj++)
	{
		const ts_read_column *c = proj == 0 ? p1 : proj == 1 ? p2 : NULL;
		int			n = proj == 0 ? 2 : proj == 1 ? 1 : 0;

		r = ts_csv_open(tpath("whole.csv"), c, n, &o, &err);
		assert_non_null(r);
		assert_true(read_all(r, c, n, &rs, &err));
		ts_format_close(r);
		/* line 2 is malformed, line 4 overflows DECIMAL(10, 2) */
		assert_int_equal(rs.n, 2);
		if (proj == 0)
		{
			assert_string_equal(cell(&rs, 0, 0), "1");
			assert_string_equal(cell(&rs, 1, 0), "3");
		}
		rows_free(&rs);
	}
	o.text_option_values = fail;
	r = ts_csv_open(tpath("whole.csv"), p1, 2, &o, &err);
	assert_non_null(r);
	assert_false(read_all(r, p1, 2, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_non_null(strstr(err.msg, "line 2, field 3"));
	/* PERMISSIVE keeps every record; the overflow reads NULL */
	o.text_option_values = perm;
	r = ts_csv_open(tpath("whole.csv"), p2, 1, &o, &err);
	assert_non_null(r);
	assert_true(read_all(r, p2, 1, &rs, &err));
	ts_format_close(r);
	assert_int_equal(rs.n, 4);
	assert_string_equal(cell(&rs, 1, 0), "NULL");
	assert_string_equal(cell(&rs, 3, 0), "NULL");
	rows_free(&rs);
	/* FAILFAST on a projected decimal overflow: out of range, not NULL */
	o.text_option_values = fail;
	write_text(tpath("over.csv"), "1,a,123456789.00\n");
	r = ts_csv_open(tpath("over.csv"), p2, 1, &o, &err);
	assert_non_null(r);
	assert_false(read_all(r, p2, 1, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_int_equal(err.code, TS_ERR_RANGE);
	ts_type_free(ti);
	ts_type_free(ts);
	ts_type_free(td);
}

/* A file that is not UTF-8 text (a Parquet file under format 'csv') is an error, not rows */
static void
test_csv_not_text(void **state)
{
	ts_type    *ts = ty(TS_VARCHAR);
	ts_read_column cols[] = {{0, "a", ts}};
	static const uint8_t parquet_like[] = {'P', 'A', 'R', '1', 0x15, 0x00, 0x15, 0x1c, '\n', 'x', '\n'};
	static const uint8_t latin1[] = {'o', 'k', '\n', 'c', 'a', 'f', 0xe9, '\n'};
	static const uint8_t utf8[] = {'c', 'a', 'f', 0xc3, 0xa9, ',', 0xf0, 0x9f, 0x98, 0x80, '\n'};
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_bytes(tpath("pq.csv"), parquet_like, sizeof(parquet_like));
	r = open_csv(tpath("pq.csv"), cols, 1, 0, NULL, NULL, &err);
	assert_non_null(r);
	assert_false(read_all(r, cols, 1, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "pq.csv\" line 1 is not UTF-8 text"));

	write_bytes(tpath("l1.csv"), latin1, sizeof(latin1));
	r = open_csv(tpath("l1.csv"), cols, 1, 0, NULL, NULL, &err);
	assert_non_null(r);
	assert_false(read_all(r, cols, 1, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_non_null(strstr(err.msg, "line 2"));

	write_bytes(tpath("u8.csv"), utf8, sizeof(utf8));
	r = open_csv(tpath("u8.csv"), cols, 1, 0, NULL, NULL, &err);
	assert_non_null(r);
	assert_true(read_all(r, cols, 1, &rs, &err));
	ts_format_close(r);
	assert_int_equal(rs.n, 1);
	assert_string_equal(cell(&rs, 0, 0), "caf\xc3\xa9");
	rows_free(&rs);
	ts_type_free(ts);
}

/* ---- compression ------------------------------------------------------ */

#define NROWS 100000

/* "i,name-i\n" for i in [0, NROWS) */
static char *
make_rows(size_t *len)
{
	size_t		cap = (size_t) NROWS * 24,
				n = 0;
	char	   *s = malloc(cap);

	for (int i = 0; i < NROWS; i++)
		n += (size_t) snprintf(s + n, cap - n, "%d,name-%d\n", i, i);
	*len = n;
	return s;
}

static void
check_rows_file(const char *path)
{
	ts_type    *tl = ty(TS_BIGINT),
			   *ts = ty(TS_VARCHAR);
	ts_read_column cols[] = {{0, "id", tl}, {1, "name", ts}};
	ts_err		err = {0};
	ts_format_reader *r = open_csv(path, cols, 2, 0, NULL, NULL, &err);
	ts_batch	b;
	int			got;
	int64_t		n = 0,
				sum = 0;
	bool		names_ok = true;

	if (r == NULL)
		fail_msg("%s: %s", path, err.msg);
	while ((got = ts_format_next(r, &b, &err)) > 0)
	{
		assert_true(got <= TS_BATCH_ROWS);
		for (int i = 0; i < got; i++)
		{
			char		expect[32];
			ts_value   *v = ts_batch_at(&b, i, 1);

			sum += ts_batch_at(&b, i, 0)->v.i;
			snprintf(expect, sizeof(expect), "name-%lld", (long long) ts_batch_at(&b, i, 0)->v.i);
			if (v->v.s.len != strlen(expect) || memcmp(v->v.s.p, expect, v->v.s.len) != 0)
				names_ok = false;
		}
		n += got;
	}
	if (got < 0)
		fail_msg("%s: %s", path, err.msg);
	ts_format_close(r);
	assert_int_equal(n, NROWS);
	assert_true(sum == (int64_t) NROWS * (NROWS - 1) / 2);
	assert_true(names_ok);
	ts_type_free(tl);
	ts_type_free(ts);
}

static void
hadoop_frame(const char *path, const char *data, size_t len, bool snappy)
{
	/* blocks of 256 KiB raw, each compressed as two chunks */
	size_t		cap = len * 2 + 1024,
				o = 0;
	unsigned char *out = malloc(cap);

	for (size_t off = 0; off < len; off += 256 * 1024)
	{
		size_t		raw = len - off < 256 * 1024 ? len - off : 256 * 1024;
		size_t		half = raw / 2;

		out[o++] = (unsigned char) (raw >> 24);
		out[o++] = (unsigned char) (raw >> 16);
		out[o++] = (unsigned char) (raw >> 8);
		out[o++] = (unsigned char) raw;
		for (int part = 0; part < 2; part++)
		{
			const char *src = data + off + (part ? half : 0);
			size_t		slen = part ? raw - half : half;
			size_t		clen;

			if (snappy)
			{
				clen = snappy_max_compressed_length(slen);
				assert_int_equal(snappy_compress(src, slen, (char *) out + o + 4, &clen), SNAPPY_OK);
			}
			else
				clen = (size_t) LZ4_compress_default(src, (char *) out + o + 4, (int) slen,
													 LZ4_compressBound((int) slen));
			out[o++] = (unsigned char) (clen >> 24);
			out[o++] = (unsigned char) (clen >> 16);
			out[o++] = (unsigned char) (clen >> 8);
			out[o++] = (unsigned char) clen;
			o += clen;
		}
	}
	write_bytes(path, out, o);
	free(out);
}

/* A truncated compressed file: an error naming it, not a crash or a short read. */
static void
check_truncated(const char *path)
{
	ts_type    *tl = ty(TS_BIGINT);
	ts_read_column cols[] = {{0, "id", tl}};
	ts_err		err = {0};
	ts_format_reader *r = open_csv(path, cols, 1, 0, NULL, NULL, &err);
	rows		rs;

	assert_non_null(r);
	assert_false(read_all(r, cols, 1, &rs, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, strrchr(path, '/') + 1));
	rows_free(&rs);
	ts_format_close(r);
	ts_type_free(tl);
}

static void
test_compressed(void **state)
{
	size_t		len;
	char	   *data = make_rows(&len);

	(void) state;
	write_bytes(tpath("rows.csv"), data, len);
	check_rows_file(tpath("rows.csv"));

	/* gzip, written as two concatenated members */
	{
		gzFile		g = gzopen(tpath("rows.csv.gz"), "wb");

		assert_non_null(g);
		assert_int_equal(gzwrite(g, data, (unsigned) (len / 2)), (int) (len / 2));
		gzclose(g);
		g = gzopen(tpath("rows2.gz"), "wb");
		assert_int_equal(gzwrite(g, data + len / 2, (unsigned) (len - len / 2)), (int) (len - len / 2));
		gzclose(g);
		{
			uint8_t    *a,
					   *b;
			size_t		la,
						lb;
			ts_err		err;

			assert_true(ts_read_whole_file(ts_fs_local_unconfined(), tpath("rows.csv.gz"), &a, &la, &err));
			assert_true(ts_read_whole_file(ts_fs_local_unconfined(), tpath("rows2.gz"), &b, &lb, &err));
			a = ts_realloc(a, la + lb);
			memcpy(a + la, b, lb);
			write_bytes(tpath("rows.csv.gz"), a, la + lb);
			ts_free(a);
			ts_free(b);
		}
		check_rows_file(tpath("rows.csv.gz"));
	}
	/* deflate = zlib stream (Hadoop DeflateCodec) */
	{
		uLongf		clen = compressBound(len);
		Bytef	   *c = malloc(clen);

		assert_int_equal(compress2(c, &clen, (const Bytef *) data, len, 6), Z_OK);
		write_bytes(tpath("rows.csv.deflate"), c, clen);
		check_rows_file(tpath("rows.csv.deflate"));
		/* truncated: an error, not a crash or a silent short read */
		write_bytes(tpath("trunc.csv.deflate"), c, clen / 2);
		free(c);
		check_truncated(tpath("trunc.csv.deflate"));
	}
	/* zstd, two frames */
	{
		size_t		cap = ZSTD_compressBound(len) + 64;
		char	   *c = malloc(cap);
		size_t		n1 = ZSTD_compress(c, cap, data, len / 3, 3);
		size_t		n2;

		assert_false(ZSTD_isError(n1));
		n2 = ZSTD_compress(c + n1, cap - n1, data + len / 3, len - len / 3, 1);
		assert_false(ZSTD_isError(n2));
		write_bytes(tpath("rows.csv.zst"), c, n1 + n2);
		check_rows_file(tpath("rows.csv.zst"));
		free(c);
	}
	hadoop_frame(tpath("rows.csv.snappy"), data, len, true);
	check_rows_file(tpath("rows.csv.snappy"));
	hadoop_frame(tpath("rows.csv.lz4"), data, len, false);
	check_rows_file(tpath("rows.csv.lz4"));
	/* bzip2, two concatenated streams; truncated: an error naming the file */
	{
		unsigned int cap = (unsigned int) (len + len / 50 + 1200);
		char	   *c = malloc((size_t) cap * 2);
		unsigned int n1 = cap,
					n2 = cap;

		assert_int_equal(BZ2_bzBuffToBuffCompress(c, &n1, data, (unsigned int) (len / 2), 9, 0, 0), BZ_OK);
		assert_int_equal(BZ2_bzBuffToBuffCompress(c + n1, &n2, data + len / 2,
												  (unsigned int) (len - len / 2), 1, 0, 0), BZ_OK);
		write_bytes(tpath("rows.csv.bz2"), c, n1 + n2);
		check_rows_file(tpath("rows.csv.bz2"));
		write_bytes(tpath("trunc.csv.bz2"), c, n1 / 2);
		free(c);
		check_truncated(tpath("trunc.csv.bz2"));
	}
	free(data);
}

/* ---- JSON ------------------------------------------------------------- */

static ts_field
fld(const char *name, ts_type *t)
{
	ts_field	f = {-1, ts_strdup(name), t, NULL};

	return f;
}

static void
test_json_types(void **state)
{
	ts_type    *tarr = ty(TS_ARRAY),
			   *tmap = ty(TS_MAP),
			   *trow = ty(TS_ROW);
	ts_field   *rf = ts_calloc(2, sizeof(ts_field));
	ts_read_column cols[] = {
		{-1, "b", ty(TS_BOOLEAN)}, {-1, "i", ty(TS_INT)}, {-1, "l", ty(TS_BIGINT)},
		{-1, "d", ty(TS_DOUBLE)}, {-1, "dec", tdec(38, 9)}, {-1, "s", ty(TS_VARCHAR)},
		{-1, "bin", ty(TS_VARBINARY)}, {-1, "dt", ty(TS_DATE)}, {-1, "ts", tts(TS_TIMESTAMP, 6)},
		{-1, "arr", tarr}, {-1, "m", tmap}, {-1, "r", trow}, {-1, "missing", ty(TS_INT)},
		{-1, "f", ty(TS_FLOAT)},
	};
	int			n = 14;
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	tarr->element = ty(TS_INT);
	tmap->key = ty(TS_VARCHAR);
	tmap->value = ty(TS_BIGINT);
	rf[0] = fld("x", ty(TS_INT));
	rf[1] = fld("y", ty(TS_VARCHAR));
	trow->nfields = 2;
	trow->fields = rf;
	write_text(tpath("types.json"),
			   "{\"b\":true,\"i\":-5,\"l\":9223372036854775807,\"d\":0.1,"
			   "\"dec\":12345678901234567890.123456789,\"s\":\"h\\u00e9\\\"llo\",\"bin\":\"AAEC\","
			   "\"dt\":\"2024-01-01\",\"ts\":\"2024-01-01 00:00:01.5\",\"arr\":[1,null,3],"
			   "\"m\":{\"k1\":1,\"k2\":-9007199254740993},\"r\":{\"y\":\"yy\",\"x\":7},\"f\":1.25}\n"
			   "\n"
			   "{\"b\":false,\"i\":\"42\",\"l\":-1,\"d\":-1e-300,\"dec\":\"-0.0000000005\",\"s\":123,"
			   "\"arr\":[],\"m\":{},\"r\":{\"x\":null},\"s2\":[1,2],\"dt\":null}\n"
			   "{\"s\":{\"a\":[1,2]},\"i\":1.0}\n");
	r = open_json(tpath("types.json"), cols, n, 0, NULL, NULL, &err);
	assert_non_null(r);
	if (!read_all(r, cols, n, &rs, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.raw[0].v.i, 1);
	assert_int_equal(rs.raw[1].v.i, -5);
	assert_true(rs.raw[2].v.i == INT64_MAX);
	assert_true(rs.raw[3].v.d == 0.1);
	assert_string_equal(cell(&rs, 0, 4), "12345678901234567890.123456789");
	assert_string_equal(cell(&rs, 0, 5), "h\xc3\xa9\"llo");
	assert_int_equal(rs.raw[6].v.s.len, 3);
	assert_memory_equal(rs.raw[6].v.s.p, "\x00\x01\x02", 3);
	assert_int_equal(rs.raw[7].v.i, 19723);
	assert_true(rs.raw[8].v.ts.millis == 1704067201500LL);
	assert_string_equal(cell(&rs, 0, 9), "[1, null, 3]");
	assert_string_equal(cell(&rs, 0, 10), "[[\"k1\", 1], [\"k2\", -9007199254740993]]");
	assert_string_equal(cell(&rs, 0, 11), "{\"x\": 7, \"y\": \"yy\"}");
	assert_string_equal(cell(&rs, 0, 12), "NULL");
	assert_true(rs.raw[13].v.f == 1.25f);
	/* row 1 (the blank line was skipped) */
	assert_int_equal(rs.raw[n + 0].v.i, 0);
	assert_int_equal(rs.raw[n + 1].v.i, 42);
	assert_true(rs.raw[n + 3].v.d == -1e-300);
	assert_true(rs.raw[n + 4].v.dec == -1);	/* -0.0000000005 HALF_UP at scale 9 */
	assert_string_equal(cell(&rs, 1, 5), "123");
	assert_string_equal(cell(&rs, 1, 6), "NULL");
	assert_string_equal(cell(&rs, 1, 7), "NULL");
	assert_string_equal(cell(&rs, 1, 9), "[]");
	assert_string_equal(cell(&rs, 1, 10), "[]");
	assert_string_equal(cell(&rs, 1, 11), "{\"x\": null, \"y\": null}");
	/* row 2: object as string, integral double as INT */
	assert_string_equal(cell(&rs, 2, 5), "{\"a\":[1,2]}");
	assert_int_equal(rs.raw[2 * n + 1].v.i, 1);
	ts_format_close(r);
	rows_free(&rs);
	for (int i = 0; i < n; i++)
		ts_type_free((ts_type *) cols[i].type);
}

static void
test_json_errors(void **state)
{
	ts_type    *ti = ty(TS_INT),
			   *td = ty(TS_DATE);
	ts_read_column cols[] = {{-1, "id", ti}, {-1, "d", td}};
	const char *k[] = {"json.ignore-parse-errors"};
	const char *yes[] = {"true"};
	ts_err		err = {0};
	ts_format_reader *r;
	rows		rs;

	(void) state;
	write_text(tpath("bad.json"),
			   "{\"id\":1}\n"
			   "{\"id\":2,\n"				/* broken JSON */
			   "[1,2]\n"				/* not an object */
			   "{\"id\":\"x\"}\n"		/* not an int */
			   "{\"id\":3000000000}\n"	/* out of range */
			   "{\"d\":\"2024-02-30\"}\n"	/* no such date */
			   "{\"id\":3.7}\n"			/* a fraction is no INT */
			   "{\"id\":\"4.5\"}\n"
			   "{\"id\":6,\"d\":\"2024-02-29\"}\n"
			   "{\"id\":7.0}\n"			/* integral: 7 */
			   "{\"id\":\" 8 \"}");
	r = open_json(tpath("bad.json"), cols, 2, 1, k, yes, &err);
	assert_non_null(r);
	assert_true(read_all(r, cols, 2, &rs, &err));
	ts_format_close(r);
	assert_int_equal(rs.n, 4);
	assert_string_equal(cell(&rs, 0, 0), "1");
	assert_string_equal(cell(&rs, 1, 0), "6");
	assert_int_equal(rs.raw[3].v.i, 19723 + 59);
	assert_string_equal(cell(&rs, 2, 0), "7");
	assert_string_equal(cell(&rs, 3, 0), "8");
	rows_free(&rs);

	r = open_json(tpath("bad.json"), cols, 2, 0, NULL, NULL, &err);
	assert_non_null(r);
	assert_false(read_all(r, cols, 2, &rs, &err));
	ts_format_close(r);
	rows_free(&rs);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "bad.json"));
	assert_non_null(strstr(err.msg, "line 2"));
	ts_type_free(ti);
	ts_type_free(td);
}

/* gzip-compressed JSON lines, read in small batches */
static void
test_json_gz(void **state)
{
	ts_type    *tl = ty(TS_BIGINT);
	ts_read_column cols[] = {{-1, "n", tl}};
	ts_reader_options o;
	gzFile		g = gzopen(tpath("n.json.gz"), "wb");
	ts_err		err = {0};
	ts_format_reader *r;
	ts_batch	b;
	int			got,
				batches = 0;
	int64_t		sum = 0,
				n = 0;

	(void) state;
	for (int i = 0; i < 5000; i++)
		gzprintf(g, "{\"n\": %d, \"pad\": \"%0100d\"}\n", i, i);
	gzclose(g);
	memset(&o, 0, sizeof(o));
	o.fs = ts_fs_local_unconfined();
	o.batch_rows = 7;
	r = ts_json_open(tpath("n.json.gz"), cols, 1, &o, &err);
	assert_non_null(r);
	while ((got = ts_format_next(r, &b, &err)) > 0)
	{
		assert_true(got <= 7);
		for (int i = 0; i < got; i++)
			sum += ts_batch_at(&b, i, 0)->v.i;
		n += got;
		batches++;
	}
	assert_int_equal(got, 0);
	assert_int_equal(n, 5000);
	assert_true(sum == 5000LL * 4999 / 2);
	assert_int_equal(batches, (5000 + 6) / 7);
	assert_true(r->metrics.rows_read == 5000);
	ts_format_close(r);
	ts_type_free(tl);
}

/* ---- value parser edge cases ------------------------------------------ */

static void
test_text_values(void **state)
{
	ts_type    *d52 = tdec(5, 2),
			   *tb = ty(TS_BOOLEAN),
			   *ti = ty(TS_INT),
			   *tbin = ty(TS_VARBINARY),
			   *tt = tts(TS_TIME, 0);
	ts_value	v;
	ts_err		err;
	ts_arena	a;
	uint8_t		out[8];
	size_t		n;

	(void) state;
	ts_arena_init(&a, 1024);
	assert_true(ts_text_parse_value("999.994", 7, d52, TS_TEXT_CAST, NULL, &v, &err));
	assert_true(v.v.dec == 99999);
	/* overflow is an error, never a silent NULL */
	assert_false(ts_text_parse_value("999.995", 7, d52, TS_TEXT_CAST, NULL, &v, &err));
	assert_int_equal(err.code, TS_ERR_RANGE);
	assert_false(ts_text_parse_value("1000", 4, d52, TS_TEXT_CSV, NULL, &v, &err));
	assert_int_equal(err.code, TS_ERR_RANGE);
	assert_true(ts_text_parse_value("1.5e2", 5, d52, TS_TEXT_CAST, NULL, &v, &err));
	assert_true(v.v.dec == 15000);
	assert_false(ts_text_parse_value("1.2.3", 5, d52, TS_TEXT_CAST, NULL, &v, &err));
	assert_true(ts_text_parse_value(" yes ", 5, tb, TS_TEXT_CAST, NULL, &v, &err));
	assert_int_equal(v.v.i, 1);
	assert_false(ts_text_parse_value("maybe", 5, tb, TS_TEXT_CAST, NULL, &v, &err));
	assert_true(ts_text_parse_value("maybe", 5, tb, TS_TEXT_CSV, NULL, &v, &err));
	assert_int_equal(v.v.i, 0);
	assert_false(ts_text_parse_value("2147483648", 10, ti, TS_TEXT_CSV, NULL, &v, &err));
	assert_true(ts_text_parse_value("-2147483648", 11, ti, TS_TEXT_CSV, NULL, &v, &err));
	assert_true(v.v.i == INT32_MIN);
	assert_false(ts_text_parse_value("1.9", 3, ti, TS_TEXT_CSV, NULL, &v, &err));
	assert_true(ts_text_parse_value("1.9", 3, ti, TS_TEXT_CAST, NULL, &v, &err));
	assert_int_equal(v.v.i, 1);
	assert_false(ts_text_parse_value("+", 1, ti, TS_TEXT_CSV, NULL, &v, &err));
	assert_true(ts_text_parse_value("YWJj", 4, tbin, TS_TEXT_CSV, &a, &v, &err));
	assert_memory_equal(v.v.s.p, "abc", 3);
	assert_false(ts_text_parse_value("YW!j", 4, tbin, TS_TEXT_CSV, &a, &v, &err));
	assert_true(ts_base64_decode("YQ", 2, out, &n));
	assert_int_equal(n, 1);
	assert_false(ts_base64_decode("Y", 1, out, &n));
	assert_true(ts_text_parse_value("23:59:59.999", 12, tt, TS_TEXT_CAST, NULL, &v, &err));
	assert_int_equal(v.v.i, 86399000);	/* TIME(0) drops the millis */
	assert_false(ts_text_parse_value("24:00:00", 8, tt, TS_TEXT_CAST, NULL, &v, &err));
	ts_arena_free(&a);
	ts_type_free(d52);
	ts_type_free(tb);
	ts_type_free(ti);
	ts_type_free(tbin);
	ts_type_free(tt);
}

/* ---- TEXT ------------------------------------------------------------- */

static ts_format_reader *
open_text(const char *path, const ts_read_column *cols, int ncols, int nopt,
		  const char *const *keys, const char *const *vals, int batch_rows, ts_err *err)
{
	return open_with(ts_text_open, path, cols, ncols, nopt, keys, vals, batch_rows, err);
}

/* the lines of a TEXT file joined with '|' (batches of batch_rows rows) */
static char *
text_lines(const char *path, int nopt, const char *const *keys, const char *const *vals,
		   int batch_rows)
{
	ts_type    *ts = ty(TS_VARCHAR);
	ts_read_column cols[] = {{0, "line", ts}};
	ts_err		err = {0};
	ts_format_reader *r = open_text(path, cols, 1, nopt, keys, vals, batch_rows, &err);
	ts_buf		out;
	ts_batch	b;
	int			got,
				n = 0;

	if (r == NULL)
		fail_msg("%s: %s", path, err.msg);
	ts_buf_init(&out);
	while ((got = ts_format_next(r, &b, &err)) > 0)
	{
		assert_true(got <= batch_rows);
		for (int i = 0; i < got; i++)
		{
			ts_value   *v = ts_batch_at(&b, i, 0);

			assert_false(v->isnull);
			if (n++ > 0)
				assert_true(ts_buf_append(&out, "|", 1, &err));
			assert_true(ts_buf_append(&out, v->v.s.p, v->v.s.len, &err));
		}
	}
	if (got < 0)
		fail_msg("%s: %s", path, err.msg);
	ts_format_close(r);
	ts_type_free(ts);
	assert_true(ts_buf_append(&out, "", 1, &err));
	return (char *) out.data;
}

/*
 * The rows of a reader of the byte range [start, end) (end 0: the whole
 * file), appended to *out as "cell,cell;" (NULL: "N"); false with err set
 * on an error.
 */
static bool
part_rows(open_fn open, const char *path, const ts_read_column *cols, int ncols,
		  int nopt, const char *const *keys, const char *const *vals,
		  int64_t start, int64_t end, ts_buf *out, ts_err *err)
{
	ts_reader_options o;
	ts_format_reader *r;
	ts_batch	b;
	int			got;

	memset(&o, 0, sizeof(o));

	o.fs = ts_fs_local_unconfined();
	o.ntext_options = nopt;
	o.text_option_keys = keys;
	o.text_option_values = vals;
	o.batch_rows = 3;
	o.range_start = start;
	o.range_end = end;
	r = open(path, cols, ncols, &o, err);
	if (r == NULL)
		return false;
	while ((got = ts_format_next(r, &b, err)) > 0)
		for (int i = 0; i < got; i++)
		{
			for (int c = 0; c < ncols; c++)
			{
				ts_value   *v = ts_batch_at(&b, i, c);
				char	   *t = v->isnull ? NULL : ts_value_to_string(v, cols[c].type);

				assert_true(ts_buf_append(out, t ? t : "N", strlen(t ? t : "N"), err));
				assert_true(ts_buf_append(out, ",", 1, err));
				ts_free(t);
			}
			assert_true(ts_buf_append(out, ";", 1, err));
		}
	ts_format_close(r);
	return got == 0;
}

/*
 * A file read in parts (a parallel scan's byte ranges) gives the rows of the
 * serial read, in order, wherever the cuts fall: in a line, on a \r of a
 * \r\n, right after one.  A CSV part starts only at a record (its cuts come
 * from ts_csv_part_starts): one that does not start at a line fails.
 */
static void
test_parts(void **state)
{
	static const char *const k_header[] = {"csv.include-header"};
	static const char *const v_true[] = {"true"};
	static const char *const k_lsep[] = {"text.line-delimiter"};
	static const char *const v_bars[] = {"||"};
	ts_type    *ts = ty(TS_VARCHAR);
	ts_type    *ti = ty(TS_INT);
	ts_read_column tcols[] = {{0, "line", ts}};
	ts_read_column ccols[] = {{0, "id", ti}, {1, "name", ts}};
	ts_read_column jcols[] = {{-1, "id", ti}};
	char		text[4096] = "",
				csv[4096] = "id,name\n",
				json[4096] = "";
	struct
	{
		open_fn		open;
		const char *name;
		const char *body;
		ts_read_column *cols;
		int			ncols;
		const char *const *keys;
		const char *const *vals;
	}			files[3];
	ts_err		err = {0};

	(void) state;
	for (int i = 0; i < 60; i++)
	{
		static const char *const ends[] = {"\n", "\r\n", "\r"};
		size_t		n;

		n = strlen(text);
		snprintf(text + n, sizeof(text) - n, "%.*s%s", i % 7, "abcdefg", ends[i % 3]);
		n = strlen(csv);
		snprintf(csv + n, sizeof(csv) - n, "%d,%s%s", i, i % 4 ? "x" : "\"q,\"\"z\"", ends[i % 3]);
		n = strlen(json);
		snprintf(json + n, sizeof(json) - n, "{\"id\": %d}%s", i, ends[i % 3]);
	}
	strcat(text, "last");
	files[0].open = ts_text_open; files[0].name = "p.text"; files[0].body = text;
	files[0].cols = tcols; files[0].ncols = 1; files[0].keys = NULL; files[0].vals = NULL;
	files[1].open = ts_csv_open; files[1].name = "p.csv"; files[1].body = csv;
	files[1].cols = ccols; files[1].ncols = 2; files[1].keys = k_header; files[1].vals = v_true;
	files[2].open = ts_json_open; files[2].name = "p.json"; files[2].body = json;
	files[2].cols = jcols; files[2].ncols = 1; files[2].keys = NULL; files[2].vals = NULL;
	for (int f = 0; f < 3; f++)
	{
		const char *path = tpath(files[f].name);
		int64_t		size = (int64_t) strlen(files[f].body);
		ts_buf		serial;

		write_text(path, files[f].body);
		ts_buf_init(&serial);
		if (!part_rows(files[f].open, path, files[f].cols, files[f].ncols, files[f].keys ? 1 : 0,
					   files[f].keys, files[f].vals, 0, 0, &serial, &err))
			fail_msg("%s: %s", path, err.msg);
		assert_true(serial.len > 100);
		/* two parts cut at every byte, and three parts */
		for (int64_t cut = 1; cut < size; cut++)
		{
			ts_buf		parts;
			int64_t		cut2 = cut + (size - cut) / 2;
			const char *b = files[f].body;

			ts_buf_init(&parts);
			if (files[f].open == ts_csv_open &&
				!((b[cut - 1] == '\n' || b[cut - 1] == '\r') &&
				  (cut2 == cut || b[cut2 - 1] == '\n' || b[cut2 - 1] == '\r')))
			{
				/* a CSV part not starting at a line: an internal error */
				if (part_rows(files[f].open, path, files[f].cols, files[f].ncols, 1,
							  files[f].keys, files[f].vals, cut, cut2 > cut ? cut2 : INT64_MAX, &parts, &err) &&
					(cut2 == cut || part_rows(files[f].open, path, files[f].cols, files[f].ncols, 1,
											  files[f].keys, files[f].vals, cut2, INT64_MAX, &parts, &err)))
					fail_msg("%s cut at %lld and %lld: no error", path, (long long) cut, (long long) cut2);
				assert_int_equal(err.code, TS_ERR_CORRUPT);
				assert_non_null(strstr(err.msg, "does not start at a record"));
				memset(&err, 0, sizeof(err));
				ts_buf_free(&parts);
				continue;
			}
			if (!part_rows(files[f].open, path, files[f].cols, files[f].ncols, files[f].keys ? 1 : 0,
						   files[f].keys, files[f].vals, 0, cut, &parts, &err) ||
				!part_rows(files[f].open, path, files[f].cols, files[f].ncols, files[f].keys ? 1 : 0,
						   files[f].keys, files[f].vals, cut, cut2 > cut ? cut2 : INT64_MAX, &parts, &err) ||
				(cut2 > cut && !part_rows(files[f].open, path, files[f].cols, files[f].ncols,
										  files[f].keys ? 1 : 0, files[f].keys, files[f].vals,
										  cut2, INT64_MAX, &parts, &err)))
				fail_msg("%s cut at %lld: %s", path, (long long) cut, err.msg);
			if (parts.len != serial.len || memcmp(parts.data, serial.data, serial.len) != 0)
				fail_msg("%s cut at %lld and %lld: other rows than read whole", path,
						 (long long) cut, (long long) cut2);
			ts_buf_free(&parts);
		}
		ts_buf_free(&serial);
	}
	/* a line delimiter of its own, or a compressed file: not in parts */
	write_text(tpath("bars.text"), "a||b||c");
	{
		ts_buf		out;

		ts_buf_init(&out);
		assert_false(part_rows(ts_text_open, tpath("bars.text"), tcols, 1, 1, k_lsep, v_bars, 2, 5, &out, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		ts_buf_free(&out);
	}
	assert_true(ts_text_file_reads_in_parts(TS_FORMAT_CSV, "/x/part-0.csv", NULL));
	assert_false(ts_text_file_reads_in_parts(TS_FORMAT_CSV, "/x/part-0.csv.gz", NULL));
	assert_false(ts_text_file_reads_in_parts(TS_FORMAT_PARQUET, "/x/part-0.parquet", NULL));
	{
		ts_reader_options o;

		memset(&o, 0, sizeof(o));

		o.fs = ts_fs_local_unconfined();
		o.ntext_options = 1;
		o.text_option_keys = k_lsep;
		o.text_option_values = v_bars;
		assert_false(ts_text_file_reads_in_parts(TS_FORMAT_TEXT, "/x/a.text", &o));
		assert_true(ts_text_file_reads_in_parts(TS_FORMAT_CSV, "/x/a.csv", &o));
	}
	ts_type_free(ts);
	ts_type_free(ti);
}

/*
 * The rows of CSV file path read in the parts ts_csv_part_starts gives for
 * nparts nominal parts (rows appended to *out as part_rows does); the
 * number of parts in *nout, their starts in starts (room for nparts).
 */
static void
csv_rows_in_parts(const char *path, const ts_read_column *cols, int ncols, int nopt,
				  const char *const *keys, const char *const *vals, int nparts,
				  int64_t *starts, int *nout, ts_buf *out)
{
	ts_reader_options o;
	ts_err		err = {0};
	int			m;

	memset(&o, 0, sizeof(o));

	o.fs = ts_fs_local_unconfined();
	o.ntext_options = nopt;
	o.text_option_keys = keys;
	o.text_option_values = vals;
	m = ts_csv_part_starts(path, &o, nparts, starts, &err);
	if (m < 1)
		fail_msg("%s: %s", path, err.msg);
	assert_true(m <= nparts);
	assert_int_equal(starts[0], 0);
	for (int k = 0; k < m; k++)
	{
		if (k > 0)
			assert_true(starts[k] > starts[k - 1]);
		if (!part_rows(ts_csv_open, path, cols, ncols, nopt, keys, vals, starts[k],
					   k + 1 < m ? starts[k + 1] : INT64_MAX, out, &err))
			fail_msg("%s part %d of %d from byte %lld: %s", path, k, m, (long long) starts[k], err.msg);
	}
	*nout = m;
}

/*
 * One tricky record at a file's start, the nominal cut of two parts at
 * byte `nominal` of it: the file is tricky + "m,1\n" + a padding line, of
 * 2 * nominal bytes.  The second part must start at the line `expect`
 * starts with (NULL: the file is one part), and the parts read the rows
 * of the whole file.
 */
static void
check_cut(const char *tricky, int64_t nominal, const char *expect, int nopt,
		  const char *const *keys, const char *const *vals)
{
	static int	seq;
	ts_type    *ts = ty(TS_VARCHAR);
	ts_read_column cols[] = {{0, "a", ts}, {1, "b", ts}};
	char		body[512],
				name[64];
	size_t		len = strlen(tricky);
	int64_t		size = 2 * nominal;
	int64_t		starts[2];
	int			m;
	ts_buf		whole,
				parts;
	ts_err		err = {0};

	assert_true(size >= (int64_t) len + 4 + 1 && size < (int64_t) sizeof(body));
	snprintf(body, sizeof(body), "%s%s%.*s\n", tricky, "m,1\n", (int) (size - len - 5),
			 "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
			 "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
	assert_int_equal((int64_t) strlen(body), size);
	snprintf(name, sizeof(name), "cut-%d.csv", seq++);
	write_text(tpath(name), body);
	ts_buf_init(&whole);
	ts_buf_init(&parts);
	assert_true(part_rows(ts_csv_open, tpath(name), cols, 2, nopt, keys, vals, 0, 0, &whole, &err));
	/* the pass reading 1, 2, 3, 5 bytes at a time and its default blocks */
	for (int b = 1; b <= 6; b++)
	{
		char		copy[96];

		/* a file of its own each time: the answers are cached by path */
		snprintf(copy, sizeof(copy), "%s.%d.csv", name, b);
		write_text(tpath(copy), body);
		ts_csv_part_starts_set_block(b == 6 ? 0 : b == 4 ? 5 : b);
		ts_buf_reset(&parts);
		csv_rows_in_parts(tpath(copy), cols, 2, nopt, keys, vals, 2, starts, &m, &parts);
		if (expect == NULL)
			assert_int_equal(m, 1);
		else
		{
			const char *at = strstr(body + 1, expect);

			assert_non_null(at);
			if (m != 2 || starts[1] != at - body)
				fail_msg("\"%s\": parts %d, cut at %lld, expected at %lld", tricky, m,
						 (long long) (m == 2 ? starts[1] : -1), (long long) (at - body));
		}
		assert_int_equal(parts.len, whole.len);
		assert_memory_equal(parts.data, whole.data, whole.len);
	}
	ts_csv_part_starts_set_block(0);
	ts_buf_free(&whole);
	ts_buf_free(&parts);
	ts_type_free(ts);
}

/* Deterministic bytes for the fuzz below. */
static uint32_t
next_random(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

/*
 * Where a parallel scan cuts a CSV file (ts_csv_part_starts): only at a
 * record start, the first at or after each nominal cut, by the reader's
 * rules (quotes open a field's quotes only as its first character, doubled
 * quotes, the escape character, \r\n and \r line ends); never where it
 * cannot be proved.  Checked on hand-made records, on random files of
 * quotes, escapes, delimiters and line breaks under four syntaxes (the
 * parts read exactly the rows of the whole file, with the pass reading
 * blocks of 1 byte and up), and for the files not cut at all.
 */
static void
test_csv_part_starts(void **state)
{
	static const char *const k_noesc[] = {"csv.escape-character"};
	static const char *const v_empty[] = {""};
	static const char *const k_noquote[] = {"csv.quote-character"};
	static const char *const k_swap[] = {"csv.quote-character", "csv.escape-character"};
	static const char *const v_swap[] = {"'", "\""};
	static const char *const v_lf[] = {"\\n"};
	static const char long30[] = "pppppppppppppppppppppppppppppp";
	char		t[256];
	int64_t		l1;

	(void) state;
	/* a quoted line break at the nominal cut: the cut moves past the record */
	snprintf(t, sizeof(t), "a,\"%s\nx\",1\n", long30);
	l1 = strchr(t, '\n') - t + 1;
	check_cut(t, l1 + 1, "m,1", 0, NULL, NULL);
	check_cut(t, l1, "m,1", 0, NULL, NULL);	/* the line after the break is no record */
	/* doubled quotes inside the quoted field */
	snprintf(t, sizeof(t), "a,\"p\"\"%s\n\"\"x\",1\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, "m,1", 0, NULL, NULL);
	/* an escaped quote: two quotes on the first line, still quoted */
	snprintf(t, sizeof(t), "a,\"p\\\"%s\nx\",1\n", long30);
	l1 = strchr(t, '\n') - t + 1;
	check_cut(t, l1, "m,1", 0, NULL, NULL);
	/* the same without an escape character: the quote after \ closes */
	check_cut(t, l1, "x\",1", 1, k_noesc, v_empty);
	/* a quote inside an unquoted field is text: the next line is a record */
	snprintf(t, sizeof(t), "a,b\"%s\nx,1\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, "x,1", 0, NULL, NULL);
	/* no quote character: every line is a record */
	snprintf(t, sizeof(t), "a,\"%s\nx\",1\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, "x\",1", 1, k_noquote, v_empty);
	/* \r\n: never between the \r and the \n; \r alone ends a line */
	snprintf(t, sizeof(t), "a,%s\r\n", long30);
	check_cut(t, strchr(t, '\n') - t, "m,1", 0, NULL, NULL);
	snprintf(t, sizeof(t), "a,%s\r", long30);
	check_cut(t, strchr(t, '\r') - t + 1, "m,1", 0, NULL, NULL);
	snprintf(t, sizeof(t), "a,\"%s\r\nx\",1\r\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, "m,1", 0, NULL, NULL);
	/* a quote that never closes: one part */
	snprintf(t, sizeof(t), "a,\"%s\nx,1\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, NULL, 0, NULL, NULL);
	/* a quote character that is a line break: not cut */
	snprintf(t, sizeof(t), "a,%s\nx,1\n", long30);
	check_cut(t, strchr(t, '\n') - t + 1, NULL, 1, k_noquote, v_lf);
	{
		int64_t		starts[4];
		ts_err		err = {0};

		/*
		 * The answers are kept by path, size and modification time: a file
		 * written again with another size is read again.
		 */
		write_text(tpath("again.csv"), "a,\"1\n2\n3\n4\n5\n6\n7\n");
		assert_int_equal(ts_csv_part_starts(tpath("again.csv"), unit_local_read(), 2, starts, &err), 1);
		assert_int_equal(ts_csv_part_starts(tpath("again.csv"), unit_local_read(), 2, starts, &err), 1);
		write_text(tpath("again.csv"), "a,\"1\"\n2\n3\n4\n5\n6\n7\n");
		assert_int_equal(ts_csv_part_starts(tpath("again.csv"), unit_local_read(), 2, starts, &err), 2);
		assert_int_equal(starts[1], strlen("a,\"1\"\n2\n3\n"));	/* nominal 9 */

		/* an object on a store, a compressed file: not cut, nothing read */
		assert_int_equal(ts_csv_part_starts("s3://bucket/t/part-0.csv", unit_local_read(), 4, starts, &err), 1);
		assert_int_equal(ts_csv_part_starts(tpath("none.csv.gz"), unit_local_read(), 4, starts, &err), 1);
		assert_int_equal(starts[0], 0);
		/* a local file that is missing: an error naming it */
		assert_int_equal(ts_csv_part_starts(tpath("none.csv"), unit_local_read(), 4, starts, &err), -1);
		assert_int_equal(err.code, TS_ERR_NOT_FOUND);
		assert_non_null(strstr(err.msg, "none.csv"));
	}

	/* random files: the parts read the rows of the whole file */
	{
		static const char alphabet[] = "aaaaaa,,,\"\"\"\"\\\\'\n\n\n\r\r";
		static const size_t blocks[] = {1, 2, 3, 7, 64, 0};
		struct
		{
			int			nopt;
			const char *const *keys;
			const char *const *vals;
		}			syntaxes[] = {{0, NULL, NULL}, {1, k_noesc, v_empty},
		{1, k_noquote, v_empty}, {2, k_swap, v_swap}};
		ts_type    *ts = ty(TS_VARCHAR);
		ts_read_column cols[] = {{0, "a", ts}, {1, "b", ts}, {2, "c", ts}};
		uint32_t	seed = 41;
		int			cut = 0;

		for (int s = 0; s < 4; s++)
			for (int iter = 0; iter < 150; iter++)
			{
				char		body[400],
							name[64];
				int			len = 1 + (int) (next_random(&seed) % 300);
				int			nparts = 2 + iter % 6;
				int64_t		starts[8];
				int			m;
				ts_buf		whole,
							parts;
				ts_err		err = {0};

				for (int i = 0; i < len; i++)
					body[i] = alphabet[next_random(&seed) % (sizeof(alphabet) - 1)];
				body[len] = '\0';
				snprintf(name, sizeof(name), "fuzz-%d-%d.csv", s, iter);
				write_text(tpath(name), body);
				ts_csv_part_starts_set_block(blocks[iter % 6]);
				ts_buf_init(&whole);
				ts_buf_init(&parts);
				if (!part_rows(ts_csv_open, tpath(name), cols, 3, syntaxes[s].nopt, syntaxes[s].keys,
							   syntaxes[s].vals, 0, 0, &whole, &err))
					fail_msg("%s: %s", name, err.msg);
				csv_rows_in_parts(tpath(name), cols, 3, syntaxes[s].nopt, syntaxes[s].keys,
								  syntaxes[s].vals, nparts, starts, &m, &parts);
				if (parts.len != whole.len || memcmp(parts.data, whole.data, whole.len) != 0)
					fail_msg("%s (syntax %d, %d parts): other rows than read whole", name, s, m);
				cut += m > 1;
				ts_buf_free(&whole);
				ts_buf_free(&parts);
			}
		ts_csv_part_starts_set_block(0);
		assert_true(cut > 300);	/* most files were cut */
		ts_type_free(ts);
	}
}

static void
test_text_format(void **state)
{
	static const char *const k_delim[] = {"text.line-delimiter"};
	static const char *const k_sep[] = {"lineSep"};
	static const char *const v_bars[] = {"||"};
	static const char *const v_escaped[] = {"\\n"};
	char	   *got;

	(void) state;
	/* \n, \r\n and \r end lines; empty lines are rows; the last line needs no end */
	write_text(tpath("a.text"), "one\n\ntwo\r\nthree\rfour,5\r\n\r\nlast");
	for (int batch = 1; batch <= 4; batch++)
	{
		got = text_lines(tpath("a.text"), 0, NULL, NULL, batch);
		assert_string_equal(got, "one||two|three|four,5||last");
		ts_free(got);
	}
	/* a final terminator adds no row; an empty file has none */
	write_text(tpath("b.text"), "x\n\n");
	got = text_lines(tpath("b.text"), 0, NULL, NULL, 2);
	assert_string_equal(got, "x|");
	ts_free(got);
	write_text(tpath("empty.text"), "");
	got = text_lines(tpath("empty.text"), 0, NULL, NULL, 2);
	assert_string_equal(got, "");
	ts_free(got);
	/* text.line-delimiter (or lineSep): exactly that string; an escaped \n is the default */
	write_text(tpath("c.text"), "a\nb||c||||d");
	got = text_lines(tpath("c.text"), 1, k_delim, v_bars, 3);
	assert_string_equal(got, "a\nb|c||d");
	ts_free(got);
	got = text_lines(tpath("c.text"), 1, k_sep, v_bars, 3);
	assert_string_equal(got, "a\nb|c||d");
	ts_free(got);
	got = text_lines(tpath("c.text"), 1, k_delim, v_escaped, 3);
	assert_string_equal(got, "a|b||c||||d");
	ts_free(got);
	/* compressed like CSV: gzip, bzip2 */
	{
		gzFile		g = gzopen(tpath("a.text.gz"), "wb");
		char		c[256];
		unsigned int clen = sizeof(c);

		assert_non_null(g);
		assert_int_equal(gzwrite(g, "p\nq\n\nr", 6), 6);
		gzclose(g);
		got = text_lines(tpath("a.text.gz"), 0, NULL, NULL, 2);
		assert_string_equal(got, "p|q||r");
		ts_free(got);
		assert_int_equal(BZ2_bzBuffToBuffCompress(c, &clen, (char *) "p\r\nq\n\nr\n", 8, 9, 0, 0), BZ_OK);
		write_bytes(tpath("a.text.bz2"), c, clen);
		got = text_lines(tpath("a.text.bz2"), 0, NULL, NULL, 2);
		assert_string_equal(got, "p|q||r");
		ts_free(got);
	}
	/* no column (count(*)): one row per line */
	{
		ts_err		err = {0};
		ts_format_reader *r = open_text(tpath("a.text"), NULL, 0, 0, NULL, NULL, 2, &err);
		ts_batch	b;
		int			got_rows,
					n = 0;

		assert_non_null(r);
		while ((got_rows = ts_format_next(r, &b, &err)) > 0)
			n += got_rows;
		assert_int_equal(got_rows, 0);
		assert_int_equal(n, 7);
		ts_format_close(r);
	}
	/* a column of another type is refused, naming it */
	{
		ts_type    *ti = ty(TS_INT);
		ts_read_column cols[] = {{0, "n", ti}};
		ts_err		err = {0};

		assert_null(open_text(tpath("a.text"), cols, 1, 0, NULL, NULL, 2, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "\"n\""));
		ts_type_free(ti);
	}
}

/* random and truncated bytes under every codec: an error or rows, never a crash */
static void
test_garbage(void **state)
{
	static const char *const names[] = {"g.csv", "g.csv.gz", "g.csv.deflate", "g.csv.zst",
	"g.csv.snappy", "g.csv.lz4", "g.json", "g.json.gz", "g.json.snappy", "g.csv.bz2", "g.text",
	"g.text.bz2"};
	ts_type    *ts = ty(TS_VARCHAR),
			   *ti = ty(TS_INT);
	ts_read_column cols[] = {{0, "a", ts}, {1, "b", ti}};
	unsigned	seed = 12345;

	(void) state;
	for (int round = 0; round < 60; round++)
	{
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		{
			uint8_t		buf[3000];
			size_t		n = (size_t) (rand_r(&seed) % sizeof(buf));
			ts_err		err = {0};
			ts_format_reader *r;
			ts_batch	b;

			for (size_t i = 0; i < n; i++)
			{
				/* mostly text-ish bytes, some framing-like big numbers */
				int			x = rand_r(&seed) % 10;

				buf[i] = x < 6 ? (uint8_t) ("a,\"{}:1\n\\ "[rand_r(&seed) % 11]) :
					(uint8_t) (rand_r(&seed) & 0xff);
			}
			if (round % 3 == 0 && n >= 4)
				buf[0] = buf[1] = 0x7f;	/* absurd Hadoop block length */
			write_bytes(tpath(names[k]), buf, n);
			r = strstr(names[k], ".json") ? open_json(tpath(names[k]), cols, 2, 0, NULL, NULL, &err)
				: strstr(names[k], ".text") ? open_text(tpath(names[k]), cols, 1, 0, NULL, NULL, 0, &err)
				: open_csv(tpath(names[k]), cols, 2, 0, NULL, NULL, &err);
			assert_non_null(r);
			while (ts_format_next(r, &b, &err) > 0)
				;
			ts_format_close(r);
		}
	}
	ts_type_free(ts);
	ts_type_free(ti);
}

static int
setup(void **state)
{
	(void) state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ts_text_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char		cmd[400];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_types),
		cmocka_unit_test(test_csv_options),
		cmocka_unit_test(test_csv_modes),
		cmocka_unit_test(test_csv_modes_whole_record),
		cmocka_unit_test(test_csv_not_text),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_json_types),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_json_gz),
		cmocka_unit_test(test_text_values),
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_csv_part_starts),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
