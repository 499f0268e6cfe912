/*
 * test_row_filter.c - rows the predicate certainly rejects are taken out of
 * a batch before conversion (src/read/row_filter.c), with SQL's semantics:
 * NULL fails every comparison, -0.0 = 0.0, NaN = NaN and NaN above every
 * number, strings by bytes; what cannot be decided (NOT, a literal of
 * another type, a column not read) keeps the row.  And whether a batch's
 * rows kept are exactly those the predicate holds on (ts_row_filter_exact).
 */
#include <math.h>

#include "unit.h"

#include "read/read.h"
#include "expr/predicate.h"

static ts_type int_type = {.kind = TS_INT, .nullable = true};
static ts_type bigint_type = {.kind = TS_BIGINT, .nullable = true};
static ts_type double_type = {.kind = TS_DOUBLE, .nullable = true};
static ts_type string_type = {.kind = TS_VARCHAR, .nullable = true};

/* batch columns: fields 3 (INT), 5 (DOUBLE), 7 (STRING); a fourth value per row behind them */
static const int columns[] = {3, 5, 7};
static const ts_type *const types[] = {&int_type, &double_type, &string_type};

#define NROWS 8
static ts_value rows[NROWS][4];

static void
fill(void)
{
	static const char *strs[NROWS] = {"a", "b", "ab", "", "b", NULL, "ba", "a"};
	static const double ds[NROWS] = {1.5, -0.0, 0.0, NAN, -1e300, 2.0, NAN, 7.0};

	memset(rows, 0, sizeof(rows));
	for (int r = 0; r < NROWS; r++)
	{
		rows[r][0].v.i = r;
		rows[r][0].isnull = (r == 4);
		rows[r][1].v.d = ds[r];
		rows[r][1].isnull = (r == 7);
		rows[r][2].isnull = strs[r] == NULL;
		if (strs[r])
		{
			rows[r][2].v.s.p = (const uint8_t *) strs[r];
			rows[r][2].v.s.len = (uint32_t) strlen(strs[r]);
		}
		rows[r][3].v.i = 100 + r;	/* the row's tag, behind the columns */
	}
}

static ts_batch
batch(void)
{
	ts_batch	b = {.nrows = NROWS, .ncols = 3, .values = &rows[0][0], .stride = 4};

	fill();
	return b;
}

/* the tags of the rows left, as a string "0,3,5" */
static const char *
kept(const ts_batch *b)
{
	static char out[64];
	int			n = 0;

	out[0] = '\0';
	for (int r = 0; r < b->nrows; r++)
		n += snprintf(out + n, sizeof(out) - n, "%s%d", r ? "," : "",
					  (int) (ts_batch_at(b, r, 3)->v.i - 100));
	return out;
}

static const char *
apply(const ts_predicate *p)
{
	ts_batch	b = batch();
	ts_row_filter *f = ts_row_filter_new(p, columns, types, 3);
	static char out[64];

	ts_row_filter_apply(f, &b);
	snprintf(out, sizeof(out), "%s", kept(&b));
	ts_row_filter_free(f);
	return out;
}

static ts_predicate
leaf(ts_predicate_op op, int field, const ts_value *lit)
{
	ts_predicate p = {.op = op, .field = field, .nliterals = lit ? 1 : 0, .literals = lit};

	return p;
}

static void
test_int_range_and_nulls(void **state)
{
	ts_value	lit = {.v.i = 5};
	ts_predicate p = leaf(TS_PRED_LT, 3, &lit);

	(void) state;
	/* row 4's value is NULL: "< 5" is not true */
	assert_string_equal(apply(&p), "0,1,2,3");
	p.op = TS_PRED_GE;
	assert_string_equal(apply(&p), "5,6,7");
	p.op = TS_PRED_IS_NULL;
	assert_string_equal(apply(&p), "4");
	p.op = TS_PRED_NE;
	assert_string_equal(apply(&p), "0,1,2,3,6,7");
}

static void
test_double_zero_and_nan(void **state)
{
	ts_value	zero = {.v.d = 0.0};
	ts_value	nan = {.v.d = NAN};
	ts_value	big = {.v.d = 1e308};
	ts_predicate p = leaf(TS_PRED_EQ, 5, &zero);

	(void) state;
	/* -0.0 = 0.0 */
	assert_string_equal(apply(&p), "1,2");
	p.op = TS_PRED_LT;
	assert_string_equal(apply(&p), "4");
	/* NaN = NaN; NaN above every number */
	p = leaf(TS_PRED_EQ, 5, &nan);
	assert_string_equal(apply(&p), "3,6");
	p = leaf(TS_PRED_GT, 5, &big);
	assert_string_equal(apply(&p), "3,6");
	p = leaf(TS_PRED_GE, 5, &nan);
	assert_string_equal(apply(&p), "3,6");
}

static void
test_strings_by_bytes(void **state)
{
	ts_value	b = {.v.s = {(const uint8_t *) "b", 1}};
	ts_value	pre = {.v.s = {(const uint8_t *) "a", 1}};
	ts_predicate p = leaf(TS_PRED_EQ, 7, &b);

	(void) state;
	assert_string_equal(apply(&p), "1,4");
	p.op = TS_PRED_GE;
	assert_string_equal(apply(&p), "1,4,6");
	p = leaf(TS_PRED_STARTS_WITH, 7, &pre);
	assert_string_equal(apply(&p), "0,2,7");
}

static void
test_invalid_utf8_kept(void **state)
{
	static const char *bad[] = {"\xff", "b\xc0\xaf", "\xed\xa0\x80", "b\0", "\xf4\x90\x80\x80", "\xe2\x82"};
	ts_value	b = {.v.s = {(const uint8_t *) "b", 1}};
	ts_predicate p = leaf(TS_PRED_EQ, 7, &b);
	ts_row_filter *f = ts_row_filter_new(&p, columns, types, 3);

	(void) state;
	/* not UTF-8 (or a NUL): left for the conversion to refuse, never decided */
	for (int k = 0; k < 6; k++)
	{
		ts_batch	bt = batch();

		rows[0][2].v.s.p = (const uint8_t *) bad[k];
		rows[0][2].v.s.len = (uint32_t) (k == 3 ? 2 : strlen(bad[k]));
		ts_row_filter_apply(f, &bt);
		assert_string_equal(kept(&bt), "0,1,4");
	}
	/* valid multi-byte UTF-8 is decided */
	{
		ts_batch	bt = batch();

		rows[0][2].v.s.p = (const uint8_t *) "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
		rows[0][2].v.s.len = 9;
		ts_row_filter_apply(f, &bt);
		assert_string_equal(kept(&bt), "1,4");
	}
	ts_row_filter_free(f);
}

static void
test_compounds(void **state)
{
	ts_value	five = {.v.i = 5};
	ts_value	b = {.v.s = {(const uint8_t *) "b", 1}};
	ts_value	lits_in[2] = {{.v.i = 1}, {.v.i = 6}};
	ts_predicate kids[2] = {leaf(TS_PRED_GE, 3, &five), leaf(TS_PRED_EQ, 7, &b)};
	ts_predicate and = {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	ts_predicate or = {.op = TS_PRED_OR, .nchildren = 2, .children = kids};
	ts_predicate not = {.op = TS_PRED_NOT, .nchildren = 1, .children = kids};
	ts_predicate in = {.op = TS_PRED_IN, .field = 3, .nliterals = 2, .literals = lits_in};

	(void) state;
	assert_string_equal(apply(&and), "");
	assert_string_equal(apply(&or), "1,4,5,6,7");
	/* NOT is never decided */
	assert_string_equal(apply(&not), "0,1,2,3,4,5,6,7");
	assert_string_equal(apply(&in), "1,6");
	in.op = TS_PRED_NOT_IN;
	assert_string_equal(apply(&in), "0,2,3,5,7");
}

static void
test_undecided_keeps(void **state)
{
	ts_value	five = {.v.i = 5};
	ts_predicate p = leaf(TS_PRED_LT, 4, &five);	/* field 4 is not read */
	ts_predicate q = leaf(TS_PRED_LT, 3, &five);
	ts_predicate kids[2];
	ts_predicate and = {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	ts_batch	b = batch();

	(void) state;
	/* no conjunct on the columns: no filter at all */
	assert_null(ts_row_filter_new(&p, columns, types, 3));
	assert_null(ts_row_filter_new(NULL, columns, types, 3));
	/* a literal of another type is not decided (a NULL still fails it) */
	q.literal_type = &bigint_type;
	assert_string_equal(apply(&q), "0,1,2,3,5,6,7");
	/* the conjunct it can decide still filters */
	kids[0] = p;
	kids[1] = leaf(TS_PRED_LT, 3, &five);
	assert_string_equal(apply(&and), "0,1,2,3");
	/* nothing rejected: the batch is untouched */
	{
		ts_value	hundred = {.v.i = 100};
		ts_predicate all = leaf(TS_PRED_LT, 3, &hundred);
		ts_row_filter *f = ts_row_filter_new(&all, columns, types, 3);
		const ts_value *before = b.values;

		/* row 4's NULL is rejected: make it a value first */
		rows[4][0].isnull = false;
		assert_int_equal(ts_row_filter_apply(f, &b), NROWS);
		assert_ptr_equal(b.values, before);
		assert_int_equal(ts_row_filter_rejected(f), 0);
		ts_row_filter_free(f);
	}
}

static void
test_every_row_rejected(void **state)
{
	ts_value	neg = {.v.i = -1};
	ts_predicate p = leaf(TS_PRED_LT, 3, &neg);
	ts_row_filter *f = ts_row_filter_new(&p, columns, types, 3);
	ts_batch	b = batch();

	(void) state;
	assert_int_equal(ts_row_filter_apply(f, &b), 0);
	assert_int_equal(b.nrows, 0);
	assert_int_equal(ts_row_filter_rejected(f), NROWS);
	/* a second batch, half kept */
	b = batch();
	neg.v.i = 4;
	assert_int_equal(ts_row_filter_apply(f, &b), 4);
	assert_string_equal(kept(&b), "0,1,2,3");
	assert_int_equal(ts_row_filter_rejected(f), NROWS + 4);
	ts_row_filter_free(f);
}

/* ts_row_filter_exact after p filtered the test batch; -1: no filter */
static int
exact_after(const ts_predicate *p)
{
	ts_batch	b = batch();
	ts_row_filter *f = ts_row_filter_new(p, columns, types, 3);
	int			exact;

	if (f == NULL)
		return -1;
	assert_false(ts_row_filter_exact(f));	/* no batch yet */
	ts_row_filter_apply(f, &b);
	exact = ts_row_filter_exact(f);
	ts_row_filter_free(f);
	return exact;
}

static void
test_exact_report(void **state)
{
	ts_value	five = {.v.i = 5};
	ts_value	nan = {.v.d = NAN};
	ts_value	b = {.v.s = {(const uint8_t *) "b", 1}};
	ts_value	lits_in[2] = {{.v.i = 1}, {.v.i = 6}};
	ts_predicate kids[2] = {leaf(TS_PRED_GE, 3, &five), leaf(TS_PRED_EQ, 7, &b)};
	ts_predicate and = {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	ts_predicate or = {.op = TS_PRED_OR, .nchildren = 2, .children = kids};
	ts_predicate not = {.op = TS_PRED_NOT, .nchildren = 1, .children = kids};
	ts_predicate in = {.op = TS_PRED_IN, .field = 3, .nliterals = 2, .literals = lits_in};
	ts_predicate p;
	ts_type		char_type = {.kind = TS_CHAR, .length = 1, .nullable = true};
	const ts_type *char_types[] = {&int_type, &double_type, &char_type};

	(void) state;
	assert_false(ts_row_filter_exact(NULL));
	/* comparisons, IN, IS [NOT] NULL, their AND and OR: decided exactly */
	for (ts_predicate_op op = TS_PRED_EQ; op <= TS_PRED_GE; op++)
	{
		p = leaf(op, 3, &five);
		assert_int_equal(exact_after(&p), 1);
	}
	p = leaf(TS_PRED_IS_NULL, 3, NULL);
	assert_int_equal(exact_after(&p), 1);
	p = leaf(TS_PRED_IS_NOT_NULL, 7, NULL);
	assert_int_equal(exact_after(&p), 1);
	assert_int_equal(exact_after(&in), 1);
	assert_int_equal(exact_after(&and), 1);
	assert_int_equal(exact_after(&or), 1);
	/* NaN and -0.0 are decided as PostgreSQL decides them */
	p = leaf(TS_PRED_EQ, 5, &nan);
	assert_int_equal(exact_after(&p), 1);
	/* a LIKE prefix, NOT, NOT IN only narrow the rows: never exact */
	p = leaf(TS_PRED_STARTS_WITH, 7, &b);
	assert_int_equal(exact_after(&p), 0);
	assert_int_equal(exact_after(&not), -1);	/* not even a filter */
	kids[1] = not;
	assert_int_equal(exact_after(&and), 0);
	kids[1] = leaf(TS_PRED_EQ, 7, &b);
	in.op = TS_PRED_NOT_IN;
	assert_int_equal(exact_after(&in), 0);
	/* a literal of another type */
	p = leaf(TS_PRED_LT, 3, &five);
	p.literal_type = &bigint_type;
	assert_int_equal(exact_after(&p), 0);
	/* a conjunct, or a side of an OR, off the batch's columns (field 4) */
	kids[1] = leaf(TS_PRED_LT, 4, &five);
	assert_int_equal(exact_after(&and), 0);
	assert_int_equal(exact_after(&or), 0);
	/* CHAR: PostgreSQL's bpchar ignores trailing blanks, bytes do not */
	{
		ts_batch	bt = batch();
		ts_predicate q = leaf(TS_PRED_EQ, 7, &b);
		ts_row_filter *f = ts_row_filter_new(&q, columns, char_types, 3);

		ts_row_filter_apply(f, &bt);
		assert_string_equal(kept(&bt), "1,4");
		assert_false(ts_row_filter_exact(f));
		ts_row_filter_free(f);
	}
}

static void
test_exact_per_batch(void **state)
{
	ts_value	b = {.v.s = {(const uint8_t *) "b", 1}};
	ts_value	two = {.v.i = 2};
	ts_predicate p = leaf(TS_PRED_EQ, 7, &b);
	ts_predicate kids[2] = {leaf(TS_PRED_LT, 3, &two), leaf(TS_PRED_EQ, 7, &b)};
	ts_predicate and = {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	ts_predicate or = {.op = TS_PRED_OR, .nchildren = 2, .children = kids};
	ts_row_filter *f = ts_row_filter_new(&p, columns, types, 3);
	ts_batch	bt = batch();

	(void) state;
	ts_row_filter_apply(f, &bt);
	assert_true(ts_row_filter_exact(f));
	/* a string not UTF-8 in a row: kept undecided, the batch is not exact */
	bt = batch();
	rows[3][2].v.s.p = (const uint8_t *) "ÿ";
	rows[3][2].v.s.len = 1;
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "1,3,4");
	assert_false(ts_row_filter_exact(f));
	/* the next batch, all valid, is exact again */
	bt = batch();
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "1,4");
	assert_true(ts_row_filter_exact(f));
	ts_row_filter_free(f);

	/* under an AND: a row another conjunct rejects decides nothing more */
	f = ts_row_filter_new(&and, columns, types, 3);
	bt = batch();
	rows[3][2].v.s.p = (const uint8_t *) "ÿ";
	rows[3][2].v.s.len = 1;
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "1");
	assert_true(ts_row_filter_exact(f));
	/* ... a row it keeps does */
	bt = batch();
	rows[0][2].v.s.p = (const uint8_t *) "ÿ";
	rows[0][2].v.s.len = 1;
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "0,1");
	assert_false(ts_row_filter_exact(f));
	ts_row_filter_free(f);

	/* under an OR: a row kept on an undecided side is not exact */
	f = ts_row_filter_new(&or, columns, types, 3);
	bt = batch();
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "0,1,4");
	assert_true(ts_row_filter_exact(f));
	bt = batch();
	rows[3][2].v.s.p = (const uint8_t *) "ÿ";
	rows[3][2].v.s.len = 1;
	ts_row_filter_apply(f, &bt);
	assert_string_equal(kept(&bt), "0,1,3,4");
	assert_false(ts_row_filter_exact(f));
	ts_row_filter_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_range_and_nulls),
		cmocka_unit_test(test_double_zero_and_nan),
		cmocka_unit_test(test_strings_by_bytes),
		cmocka_unit_test(test_invalid_utf8_kept),
		cmocka_unit_test(test_compounds),
		cmocka_unit_test(test_undecided_keeps),
		cmocka_unit_test(test_every_row_rejected),
		cmocka_unit_test(test_exact_report),
		cmocka_unit_test(test_exact_per_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
