/*
 * test_partition_is_null.c - pruning for IS NULL on a partition column
 * keeps the NULL (default-name) partition (clarification 16).
 *
 * A partition column's NULL is written as the default partition name
 * (__DEFAULT_PARTITION__) in the path and as a NULL field of the
 * _PARTITION BinaryRow.  The scan decides a leaf on a decoded partition
 * value with ts_predicate_leaf_decide, whole trees with
 * ts_predicate_may_match, and a manifest from its _PARTITION_STATS with
 * ts_stats_may_match: each must keep the NULL partition for IS NULL (and
 * for an OR holding IS NULL), and drop it for = / IS NOT NULL.
 */
#include "unit.h"

#include "expr/predicate.h"
#include "expr/stats_match.h"

static ts_type int_type = {.kind = TS_INT, .nullable = true};
static ts_type text_type = {.kind = TS_VARCHAR, .precision = TS_STRING_LENGTH, .nullable = true};

/* ---- a decoded partition value ------------------------------------------ */

typedef struct partition_row
{
	const ts_type *t;
	ts_value	v;
} partition_row;

static bool
leaf_on_partition(const ts_predicate *leaf, void *arg)
{
	const partition_row *row = arg;

	return ts_predicate_leaf_decide(leaf, row->t, &row->v) != 0;
}

static void
test_leaf_on_null_partition(void **state)
{
	ts_value	null_value = {.isnull = true};
	ts_value	five = {.v.i = 5};
	ts_predicate is_null = {.op = TS_PRED_IS_NULL, .field = 0};
	ts_predicate not_null = {.op = TS_PRED_IS_NOT_NULL, .field = 0};
	ts_predicate eq5 = {.op = TS_PRED_EQ, .field = 0, .nliterals = 1, .literals = &five};
	ts_predicate either[2];
	ts_predicate or = {.op = TS_PRED_OR, .nchildren = 2, .children = either};
	ts_predicate not_is_null = {.op = TS_PRED_NOT, .nchildren = 1, .children = &is_null};
	partition_row null_int = {&int_type, null_value};
	partition_row null_text = {&text_type, null_value};
	partition_row five_row = {&int_type, five};

	(void) state;
	/* the NULL partition: IS NULL holds, = and IS NOT NULL do not */
	assert_int_equal(ts_predicate_leaf_decide(&is_null, &int_type, &null_value), 1);
	assert_int_equal(ts_predicate_leaf_decide(&is_null, &text_type, &null_value), 1);
	assert_int_equal(ts_predicate_leaf_decide(&not_null, &int_type, &null_value), 0);
	assert_int_equal(ts_predicate_leaf_decide(&eq5, &int_type, &null_value), 0);
	/* a partition with a value: the other way round */
	assert_int_equal(ts_predicate_leaf_decide(&is_null, &int_type, &five), 0);
	assert_int_equal(ts_predicate_leaf_decide(&eq5, &int_type, &five), 1);

	/* whole trees on a partition: kept / pruned */
	assert_true(ts_predicate_may_match(&is_null, leaf_on_partition, &null_int));
	assert_true(ts_predicate_may_match(&is_null, leaf_on_partition, &null_text));
	assert_false(ts_predicate_may_match(&is_null, leaf_on_partition, &five_row));
	either[0] = eq5;
	either[1] = is_null;
	assert_true(ts_predicate_may_match(&or, leaf_on_partition, &null_int));
	assert_true(ts_predicate_may_match(&or, leaf_on_partition, &five_row));
	assert_false(ts_predicate_may_match(&not_null, leaf_on_partition, &null_int));
	/* NOT is kept whatever its child says (may-match), so never prunes the partition wrongly */
	assert_true(ts_predicate_may_match(&not_is_null, leaf_on_partition, &five_row));
}

/* ---- a manifest's _PARTITION_STATS -------------------------------------- */

typedef struct partition_stats
{
	int64_t		null_count;		/* partitions of the manifest with a NULL key */
	int64_t		row_count;		/* partitions (entries) of the manifest */
	bool		has_min_max;
} partition_stats;

static void
column(void *arg, int field, ts_unit_stats *cs)
{
	const partition_stats *s = arg;

	(void) field;
	memset(cs, 0, sizeof(*cs));
	cs->known = true;
	cs->has_min_max = s->has_min_max;
	cs->min.v.i = 1;
	cs->max.v.i = 2;
	cs->null_count = s->null_count;
	cs->row_count = s->row_count;
}

static const ts_type *
field_type(void *arg, int field)
{
	(void) arg;
	(void) field;
	return &int_type;
}

static bool
manifest_may_hold(partition_stats s, const ts_predicate *p)
{
	ts_stats_source src = {column, ts_value_order, &s, field_type};

	return ts_stats_may_match(p, &src);
}

static void
test_manifest_with_null_partition(void **state)
{
	ts_value	five = {.v.i = 5};
	ts_predicate is_null = {.op = TS_PRED_IS_NULL, .field = 0};
	ts_predicate eq5 = {.op = TS_PRED_EQ, .field = 0, .nliterals = 1, .literals = &five};
	ts_predicate either[2] = {eq5, is_null};
	ts_predicate or = {.op = TS_PRED_OR, .nchildren = 2, .children = either};
	partition_stats some_null = {1, 3, true};	/* partitions 1, 2 and NULL */
	partition_stats only_null = {1, 1, false};	/* just the NULL partition */
	partition_stats no_null = {0, 2, true};
	partition_stats unknown = {-1, 2, true};

	(void) state;
	assert_true(manifest_may_hold(some_null, &is_null));
	assert_true(manifest_may_hold(only_null, &is_null));
	assert_true(manifest_may_hold(unknown, &is_null));
	assert_false(manifest_may_hold(no_null, &is_null));
	assert_true(manifest_may_hold(some_null, &or));
	assert_true(manifest_may_hold(only_null, &or));
	assert_false(manifest_may_hold(no_null, &or));	/* 5 is outside 1..2, no NULL */
	assert_false(manifest_may_hold(only_null, &eq5));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_on_null_partition),
		cmocka_unit_test(test_manifest_with_null_partition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
