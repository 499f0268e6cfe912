/*
 * test_avro_flat.c - the flat-record fast path of the Avro decoder against
 * the general decoder.
 *
 * Rows of a record of every primitive and ["null", T] / [T, "null"] field
 * are encoded here (with random values, short and overlong varints and
 * branch indexes), then decoded twice: by ts_avro_decode_rows, which takes
 * the flat step list, and object by object by ts_avro_decode_top, which
 * follows the plan tree.  Both must decode the same number of objects to
 * the same values and stop at the same position, and fail alike (same
 * message) on truncated and corrupted copies.  Several projections: all
 * fields, two, a missing column and a column asked twice, ints narrowed to
 * TINYINT / SMALLINT, conversions that take the plan's own code
 * (FLOAT -> DOUBLE, fixed, enum).
 */
#include "unit.h"
#include "unit_values.h"

#include "format/avro/avro_decode.h"
#include "format/avro/avro_plan.h"

static const char *flat_schema =
"{\"type\":\"record\",\"name\":\"r\",\"fields\":["
"{\"name\":\"a\",\"type\":\"int\"},"
"{\"name\":\"b\",\"type\":[\"null\",\"long\"]},"
"{\"name\":\"c\",\"type\":[\"string\",\"null\"]},"
"{\"name\":\"d\",\"type\":\"double\"},"
"{\"name\":\"e\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":18,\"scale\":4}]},"
"{\"name\":\"f\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}]},"
"{\"name\":\"g\",\"type\":\"boolean\"},"
"{\"name\":\"h\",\"type\":\"float\"},"
"{\"name\":\"i\",\"type\":[\"null\",\"int\"]},"
"{\"name\":\"j\",\"type\":{\"type\":\"fixed\",\"name\":\"f3\",\"size\":3}},"
"{\"name\":\"k\",\"type\":{\"type\":\"enum\",\"name\":\"en\",\"symbols\":[\"x\",\"y\",\"z\"]}},"
"{\"name\":\"l\",\"type\":\"null\"},"
"{\"name\":\"m\",\"type\":\"bytes\"},"
"{\"name\":\"n\",\"type\":[\"null\",\"double\"]}"
"]}";

#define MAXCOLS 16
#define NROWS 200

typedef struct projection
{
	int			ncols;
	const char *names[MAXCOLS];
	ts_type		types[MAXCOLS];
} projection;

static ts_type
ty(ts_type_kind k, int p, int s)
{
	ts_type		t;

	memset(&t, 0, sizeof(t));
	t.kind = k;
	t.nullable = true;
	t.precision = p;
	t.scale = s;
	return t;
}

/* ---- a tiny encoder ---------------------------------------------------- */

typedef struct enc
{
	uint8_t    *b;
	size_t		len;
	size_t		cap;
	unsigned	seed;
} enc;

static unsigned
rnd(enc *e)
{
	e->seed = e->seed * 1103515245u + 12345u;
	return e->seed >> 8;
}

static void
put(enc *e, uint8_t x)
{
	if (e->len == e->cap)
	{
		e->cap = e->cap ? e->cap * 2 : 4096;
		e->b = realloc(e->b, e->cap);
		assert_non_null(e->b);
	}
	e->b[e->len++] = x;
}

/* zig-zag varint; now and then overlong (extra zero groups, 10 bytes at most) */
static void
put_long(enc *e, int64_t v)
{
	uint64_t	u = ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
	int			pad = rnd(e) % 16 == 0 ? 1 + rnd(e) % 3 : 0;
	uint8_t		g[10];
	int			n = 0;

	do
	{
		g[n++] = u & 0x7f;
		u >>= 7;
	} while (u != 0);
	while (pad-- > 0 && n < 10)
		g[n++] = 0;
	for (int i = 0; i < n - 1; i++)
		put(e, g[i] | 0x80);
	put(e, g[n - 1]);
}

static int64_t
rnd_long(enc *e)
{
	int			bits = rnd(e) % 64;
	int64_t		v = (int64_t) (((uint64_t) rnd(e) << 40) ^ ((uint64_t) rnd(e) << 20) ^ rnd(e));

	v = bits == 63 ? v : (int64_t) ((uint64_t) v & ((UINT64_C(1) << bits) - 1));
	return rnd(e) % 2 ? v : -v;
}

static void
put_bytes(enc *e, int n)
{
	put_long(e, n);
	for (int i = 0; i < n; i++)
		put(e, (uint8_t) ('a' + rnd(e) % 26));
}

/* the branch of a two-branch union whose null branch is null_branch */
static bool
put_branch(enc *e, int null_branch)
{
	bool		isnull = rnd(e) % 5 == 0;

	put_long(e, isnull ? null_branch : 1 - null_branch);
	return isnull;
}

static void
put_row(enc *e)
{
	put_long(e, (int32_t) rnd_long(e));	/* a */
	if (!put_branch(e, 0))		/* b */
		put_long(e, rnd_long(e));
	if (!put_branch(e, 1))		/* c */
		put_bytes(e, rnd(e) % 90);
	for (int i = 0; i < 8; i++) /* d */
		put(e, (uint8_t) rnd(e));
	if (!put_branch(e, 0))		/* e: 0 to 9 bytes */
	{
		int			n = rnd(e) % 10;

		put_long(e, n);
		for (int i = 0; i < n; i++)
			put(e, (uint8_t) rnd(e));
	}
	if (!put_branch(e, 0))		/* f */
		put_long(e, rnd_long(e));
	put(e, (uint8_t) (rnd(e) % 2));	/* g */
	for (int i = 0; i < 4; i++) /* h */
		put(e, (uint8_t) rnd(e));
	if (!put_branch(e, 0))		/* i */
		put_long(e, (int16_t) rnd_long(e));
	for (int i = 0; i < 3; i++) /* j */
		put(e, (uint8_t) rnd(e));
	put_long(e, rnd(e) % 3);	/* k */
	/* l: null, no bytes */
	put_bytes(e, rnd(e) % 5);	/* m */
	if (!put_branch(e, 0))		/* n */
		for (int i = 0; i < 8; i++)
			put(e, (uint8_t) rnd(e));
}

/* ---- decoding both ways ------------------------------------------------ */

typedef struct outcome
{
	int			nrows;			/* objects decoded */
	const uint8_t *pos;			/* cursor after them */
	ts_err		err;			/* when nrows < the objects asked */
	ts_value	v[NROWS * MAXCOLS];
} outcome;

static void
decode_general(const ts_avro_plan *plan, const uint8_t *b, size_t len, int nrows, int ncols,
			   ts_arena *arena, outcome *o)
{
	ts_cursor	cur;

	ts_cursor_init(&cur, b, len);
	memset(o, 0, sizeof(*o));
	for (o->nrows = 0; o->nrows < nrows; o->nrows++)
		if (!ts_avro_decode_top(plan, &cur, &o->v[o->nrows * ncols], arena, &o->err))
			break;
	o->pos = cur.p;
}

static void
decode_flat(const ts_avro_plan *plan, const uint8_t *b, size_t len, int nrows,
			ts_arena *arena, outcome *o)
{
	ts_cursor	cur;

	ts_cursor_init(&cur, b, len);
	memset(o, 0, sizeof(*o));
	o->nrows = ts_avro_decode_rows(plan, &cur, o->v, nrows, arena, &o->err);
	o->pos = cur.p;
}

static outcome og,
			of;

/* Decode b both ways; both outcomes must match.  Returns objects decoded. */
static int
check_same(const ts_avro_plan *plan, const projection *pr, const uint8_t *b, size_t len,
		   int nrows, const char *what)
{
	ts_arena	arena;

	ts_arena_init(&arena, 4096);
	decode_general(plan, b, len, nrows, pr->ncols, &arena, &og);
	decode_flat(plan, b, len, nrows, &arena, &of);
	if (og.nrows != of.nrows)
		fail_msg("%s: general decoded %d objects (%s), flat %d (%s)", what,
				 og.nrows, og.err.msg, of.nrows, of.err.msg);
	if (og.nrows < nrows && strcmp(og.err.msg, of.err.msg) != 0)
		fail_msg("%s: object %d: general says \"%s\", flat \"%s\"", what, og.nrows,
				 og.err.msg, of.err.msg);
	if (og.nrows == nrows && og.pos != of.pos)
		fail_msg("%s: general stops at %td, flat at %td", what, og.pos - b, of.pos - b);
	for (int r = 0; r < og.nrows; r++)
		for (int c = 0; c < pr->ncols; c++)
			if (!unit_value_same(&pr->types[c], &og.v[r * pr->ncols + c], &of.v[r * pr->ncols + c]))
				fail_msg("%s: object %d column %s differs", what, r, pr->names[c]);
	ts_arena_free(&arena);
	return og.nrows;
}

static void
run_projection(const projection *pr, bool expect_flat)
{
	ts_err		err;
	ts_avro_schema *schema = ts_avro_schema_parse(flat_schema, strlen(flat_schema), "test", &err);
	const ts_type *types[MAXCOLS];
	ts_arena	plan_arena;
	ts_avro_plan *plan;
	enc			e = {NULL, 0, 0, 12345u};
	int			corrupt_failed = 0;

	if (schema == NULL)
		fail_msg("schema: %s", err.msg);
	for (int c = 0; c < pr->ncols; c++)
		types[c] = &pr->types[c];
	ts_arena_init(&plan_arena, 4096);
	plan = ts_avro_plan_top(schema->root, pr->names, types, pr->ncols, &plan_arena, "test", &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	assert_int_equal(plan->flat != NULL, expect_flat);

	for (int i = 0; i < NROWS; i++)
		put_row(&e);
	assert_int_equal(check_same(plan, pr, e.b, e.len, NROWS, "intact"), NROWS);

	/* every truncation of the first rows */
	for (size_t cut = 0; cut < 400 && cut < e.len; cut++)
		assert_true(check_same(plan, pr, e.b, cut, NROWS, "truncated") < NROWS);

	/* random byte changes */
	for (int k = 0; k < 3000; k++)
	{
		uint8_t    *copy = malloc(e.len);
		int			nflips = 1 + rnd(&e) % 3;

		memcpy(copy, e.b, e.len);
		for (int f = 0; f < nflips; f++)
		{
			size_t		at = rnd(&e) % e.len;
			uint8_t		to = (uint8_t) rnd(&e);

			switch (rnd(&e) % 4)
			{
				case 0:
					to = 0x80 | to;	/* a varint goes on */
					break;
				case 1:
					to = to % 8;	/* small values, bad branch indexes */
					break;
				default:
					break;
			}
			copy[at] = to;
		}
		corrupt_failed += check_same(plan, pr, copy, e.len, NROWS, "corrupted") < NROWS;
		free(copy);
	}
	assert_true(corrupt_failed > 0);	/* some changes must be caught */
	free(e.b);
	ts_arena_free(&plan_arena);
	ts_avro_schema_free(schema);
}

static void
test_all_fields(void **state)
{
	projection	pr = {14, {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"}};

	(void) state;
	pr.types[0] = ty(TS_INT, 0, 0);
	pr.types[1] = ty(TS_BIGINT, 0, 0);
	pr.types[2] = ty(TS_VARCHAR, 0, 0);
	pr.types[3] = ty(TS_DOUBLE, 0, 0);
	pr.types[4] = ty(TS_DECIMAL, 18, 4);
	pr.types[5] = ty(TS_TIMESTAMP, 6, 0);
	pr.types[6] = ty(TS_BOOLEAN, 0, 0);
	pr.types[7] = ty(TS_FLOAT, 0, 0);
	pr.types[8] = ty(TS_SMALLINT, 0, 0);	/* narrowed (FOP_NARROW) */
	pr.types[9] = ty(TS_BINARY, 3, 0);
	pr.types[10] = ty(TS_VARCHAR, 0, 0);
	pr.types[11] = ty(TS_INT, 0, 0);	/* writer null */
	pr.types[12] = ty(TS_VARBINARY, 0, 0);
	pr.types[13] = ty(TS_DOUBLE, 0, 0);
	run_projection(&pr, true);
}

static void
test_two_fields(void **state)
{
	projection	pr = {2, {"b", "c"}};

	(void) state;
	pr.types[0] = ty(TS_BIGINT, 0, 0);
	pr.types[1] = ty(TS_VARCHAR, 0, 0);
	run_projection(&pr, true);
}

/* a column the file lacks (NULL), one asked twice, other conversions */
static void
test_missing_and_twice(void **state)
{
	projection	pr = {7, {"n", "zz", "a", "f", "a", "h", "i"}};

	(void) state;
	pr.types[0] = ty(TS_DOUBLE, 0, 0);
	pr.types[1] = ty(TS_INT, 0, 0);
	pr.types[2] = ty(TS_BIGINT, 0, 0);
	pr.types[3] = ty(TS_TIMESTAMP, 3, 0);
	pr.types[4] = ty(TS_BIGINT, 0, 0);
	pr.types[5] = ty(TS_DOUBLE, 0, 0);	/* float -> double */
	pr.types[6] = ty(TS_DATE, 0, 0);
	run_projection(&pr, true);
}

/* ints narrowed to TINYINT / SMALLINT (truncated alike; an int past 32 bits fails alike) */
static void
test_narrowed(void **state)
{
	projection	pr = {2, {"a", "i"}};
	projection	pr2 = {2, {"i", "a"}};

	(void) state;
	pr.types[0] = ty(TS_TINYINT, 0, 0);
	pr.types[1] = ty(TS_SMALLINT, 0, 0);
	run_projection(&pr, true);
	pr2.types[0] = ty(TS_TINYINT, 0, 0);
	pr2.types[1] = ty(TS_SMALLINT, 0, 0);
	run_projection(&pr2, true);
}

/* no column but the last: every other field is skipped */
static void
test_skip_all_but_one(void **state)
{
	projection	pr = {1, {"n"}};

	(void) state;
	pr.types[0] = ty(TS_DOUBLE, 0, 0);
	run_projection(&pr, true);
}

/* a record with an array field is not flat: the general decoder reads it */
static void
test_not_flat(void **state)
{
	const char *json = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
		"{\"name\":\"a\",\"type\":\"int\"},"
		"{\"name\":\"x\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}]}";
	const char *names[1] = {"a"};
	ts_type		t = ty(TS_INT, 0, 0);
	const ts_type *types[1] = {&t};
	ts_err		err;
	ts_avro_schema *schema = ts_avro_schema_parse(json, strlen(json), "test", &err);
	ts_arena	arena;
	ts_avro_plan *plan;
	/* a = -3, x = [1, 2], a = 5, x = [] */
	const uint8_t bytes[] = {0x05, 0x04, 0x02, 0x04, 0x00, 0x0a, 0x00};
	ts_value	out[2];
	ts_cursor	cur;

	(void) state;
	assert_non_null(schema);
	ts_arena_init(&arena, 4096);
	plan = ts_avro_plan_top(schema->root, names, types, 1, &arena, "test", &err);
	assert_non_null(plan);
	assert_null(plan->flat);
	ts_cursor_init(&cur, bytes, sizeof(bytes));
	assert_int_equal(ts_avro_decode_rows(plan, &cur, out, 2, &arena, &err), 2);
	assert_int_equal(out[0].v.i, -3);
	assert_int_equal(out[1].v.i, 5);
	assert_int_equal(ts_cursor_left(&cur), 0);
	ts_arena_free(&arena);
	ts_avro_schema_free(schema);
}

/* hand-made bytes: overlong branch indexes, a bad one, an int out of range */
static void
test_flat_errors(void **state)
{
	const char *json = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
		"{\"name\":\"a\",\"type\":\"int\"},"
		"{\"name\":\"b\",\"type\":[\"null\",\"long\"]}]}";
	const char *names[2] = {"a", "b"};
	ts_type		ta = ty(TS_INT, 0, 0),
				tb = ty(TS_BIGINT, 0, 0);
	const ts_type *types[2] = {&ta, &tb};
	ts_err		err;
	ts_avro_schema *schema = ts_avro_schema_parse(json, strlen(json), "test", &err);
	ts_arena	arena;
	ts_avro_plan *plan;
	ts_value	out[4];
	ts_cursor	cur;
	/* a = 1, b: branch 1 as 2 bytes, 7; a = 2, b: branch 0 as 3 bytes */
	const uint8_t good[] = {0x02, 0x82, 0x00, 0x0e, 0x04, 0x80, 0x80, 0x00};
	/* a = 1, b: branch 2 */
	const uint8_t bad_branch[] = {0x02, 0x04, 0x00};
	/* a = 2^31 */
	const uint8_t big_int[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0x00};

	(void) state;
	assert_non_null(schema);
	ts_arena_init(&arena, 4096);
	plan = ts_avro_plan_top(schema->root, names, types, 2, &arena, "test", &err);
	assert_non_null(plan);
	assert_non_null(plan->flat);

	ts_cursor_init(&cur, good, sizeof(good));
	assert_int_equal(ts_avro_decode_rows(plan, &cur, out, 2, &arena, &err), 2);
	assert_int_equal(out[0].v.i, 1);
	assert_false(out[1].isnull);
	assert_int_equal(out[1].v.i, 7);
	assert_int_equal(out[2].v.i, 2);
	assert_true(out[3].isnull);
	assert_int_equal(ts_cursor_left(&cur), 0);

	ts_cursor_init(&cur, bad_branch, sizeof(bad_branch));
	assert_int_equal(ts_avro_decode_rows(plan, &cur, out, 1, &arena, &err), 0);
	assert_string_equal(err.msg, "union branch 2 out of range");

	ts_cursor_init(&cur, big_int, sizeof(big_int));
	assert_int_equal(ts_avro_decode_rows(plan, &cur, out, 1, &arena, &err), 0);
	assert_string_equal(err.msg, "Avro int out of range");
	ts_arena_free(&arena);
	ts_avro_schema_free(schema);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_fields),
		cmocka_unit_test(test_two_fields),
		cmocka_unit_test(test_missing_and_twice),
		cmocka_unit_test(test_narrowed),
		cmocka_unit_test(test_skip_all_but_one),
		cmocka_unit_test(test_not_flat),
		cmocka_unit_test(test_flat_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
