/*
 * test_stats_match.c - pruning decisions on FLOAT / DOUBLE values compare
 * as SQL does (src/scan/stats_match.c, src/scan/value_compare.c).
 *
 * The predicate stands for PostgreSQL's quals, where -0.0 = 0.0; the
 * statistics and partition values are ordered the Java way (-0.0 before
 * 0.0).  A file whose values are all -0.0 must be kept by "= 0", one whose
 * values are all 0.0 by "<= -0.0", and a partition -0.0 satisfies "= 0".
 * Proper pruning around zero stays: "< 0" skips a file of zeros.  NaN:
 * float bounds may leave it out (or be NaN themselves), so "> x", ">= x"
 * and "= NaN" keep the unit, as does any bound that is NaN.
 */
#include <math.h>

#include "unit.h"

#include "scan/scan_internal.h"
#include "expr/stats_match.h"

static ts_type float8_type = {.kind = TS_DOUBLE, .nullable = true};
static ts_type float4_type = {.kind = TS_FLOAT, .nullable = true};

/* one column of one unit: min / max of type t, no NULLs */
typedef struct one_column
{
	const ts_type *t;
	ts_value	min;
	ts_value	max;
} one_column;

static void
column(void *arg, int field, ts_unit_stats *cs)
{
	const one_column *c = arg;

	(void) field;
	memset(cs, 0, sizeof(*cs));
	cs->known = true;
	cs->has_min_max = true;
	cs->min = c->min;
	cs->max = c->max;
	cs->null_count = 0;
	cs->row_count = 10;
}

static const ts_type *
field_type(void *arg, int field)
{
	(void) field;
	return ((const one_column *) arg)->t;
}

/* may a unit whose column c has bounds c->min .. c->max hold a row "op lit"? */
static bool
may_match(one_column *c, ts_predicate_op op, ts_value lit)
{
	ts_predicate p = {.op = op, .field = 0, .nliterals = 1, .literals = &lit};
	ts_stats_source src = {column, ts_value_order, c, field_type};

	return ts_stats_may_match(&p, &src);
}

static bool
may_match_double(double min, double max, ts_predicate_op op, double literal)
{
	one_column c = {&float8_type, {.v.d = min}, {.v.d = max}};

	return may_match(&c, op, (ts_value) {.v.d = literal});
}

static bool
may_match_float(float min, float max, ts_predicate_op op, float literal)
{
	one_column c = {&float4_type, {.v.f = min}, {.v.f = max}};

	return may_match(&c, op, (ts_value) {.v.f = literal});
}

static void
test_file_stats_signed_zero(void **state)
{
	(void) state;
	/* values all -0.0: "= 0", ">= 0", "IN (0)" hold for them in SQL */
	assert_true(may_match_double(-0.0, -0.0, TS_PRED_EQ, 0.0));
	assert_true(may_match_double(-0.0, -0.0, TS_PRED_GE, 0.0));
	assert_true(may_match_double(-0.0, -0.0, TS_PRED_IN, 0.0));
	assert_true(may_match_float(-0.0f, -0.0f, TS_PRED_EQ, 0.0f));
	/* values all 0.0: "= -0", "<= -0" hold */
	assert_true(may_match_double(0.0, 0.0, TS_PRED_EQ, -0.0));
	assert_true(may_match_double(0.0, 0.0, TS_PRED_LE, -0.0));
	assert_true(may_match_float(0.0f, 0.0f, TS_PRED_LE, -0.0f));
	assert_true(may_match_double(0.0, 5.0, TS_PRED_LE, -0.0));
	assert_true(may_match_double(-3.0, -0.0, TS_PRED_GE, 0.0));
	/* still pruned: nothing is < 0 among zeros, nothing = 0 in [1, 2] */
	assert_false(may_match_double(-0.0, 0.0, TS_PRED_LT, 0.0));
	assert_false(may_match_double(-0.0, 0.0, TS_PRED_LT, -0.0));
	assert_false(may_match_float(-0.0f, 0.0f, TS_PRED_LT, -0.0f));
	assert_false(may_match_double(1.0, 2.0, TS_PRED_EQ, 0.0));
	assert_false(may_match_double(1.0, 2.0, TS_PRED_LE, -0.0));
}

static void
test_file_stats_nan(void **state)
{
	(void) state;

	/*
	 * Bounds without NaN (Arrow's and ORC's writers leave it out): NaN rows
	 * may lie above the max, and NaN > 5, >= 5 and = NaN hold for them.
	 */
	assert_true(may_match_double(1.0, 3.0, TS_PRED_GT, 5.0));
	assert_true(may_match_double(1.0, 3.0, TS_PRED_GE, 5.0));
	assert_true(may_match_float(1.0f, 3.0f, TS_PRED_GT, 5.0f));
	assert_true(may_match_double(1.0, 3.0, TS_PRED_EQ, NAN));
	assert_true(may_match_double(1.0, 3.0, TS_PRED_IN, NAN));
	assert_true(may_match_float(1.0f, 3.0f, TS_PRED_EQ, NAN));
	/* a NaN bound (ORC's when NaN came first) says nothing of the others */
	assert_true(may_match_double(NAN, NAN, TS_PRED_LT, 5.0));
	assert_true(may_match_double(NAN, 3.0, TS_PRED_LE, 0.0));
	assert_true(may_match_double(1.0, NAN, TS_PRED_EQ, 7.0));
	assert_true(may_match_float(NAN, NAN, TS_PRED_LT, 5.0f));
	/* NaN is never below a number nor equal to one: those still prune */
	assert_false(may_match_double(1.0, 3.0, TS_PRED_LT, 1.0));
	assert_false(may_match_double(1.0, 3.0, TS_PRED_LE, 0.5));
	assert_false(may_match_double(1.0, 3.0, TS_PRED_EQ, 5.0));
	assert_false(may_match_float(1.0f, 3.0f, TS_PRED_IN, 5.0f));
}

static void
test_partition_value_signed_zero(void **state)
{
	ts_value	v = {0},
				lits[2] = {{0}};
	ts_predicate p = {.field = 0, .nliterals = 1, .literals = lits};

	(void) state;
	v.v.d = -0.0;
	lits[0].v.d = 0.0;
	p.op = TS_PRED_EQ;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 1);
	p.op = TS_PRED_NE;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 0);
	p.op = TS_PRED_LT;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 0);
	p.op = TS_PRED_GE;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 1);
	p.op = TS_PRED_IN;
	p.nliterals = 2;
	lits[1].v.d = 7.0;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 1);
	p.op = TS_PRED_NOT_IN;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 0);

	v.v.f = 0.0f;
	lits[0].v.f = -0.0f;
	p.nliterals = 1;
	p.op = TS_PRED_LE;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float4_type, &v), 1);
	p.op = TS_PRED_GT;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float4_type, &v), 0);
	/* NaN equals NaN in SQL, as in the Java order */
	v.v.d = NAN;
	lits[0].v.d = NAN;
	p.op = TS_PRED_EQ;
	assert_int_equal(ts_predicate_leaf_decide(&p, &float8_type, &v), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_stats_signed_zero),
		cmocka_unit_test(test_file_stats_nan),
		cmocka_unit_test(test_partition_value_signed_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
