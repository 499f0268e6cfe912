/*
 * test_row_ids.c - the row-id range set (src/scan/row_ids.c) and pruning
 * splits of a row-tracking table by it (src/scan/row_id_prune.c).
 *
 * Every set is checked against a brute-force model: for each id of a
 * window, does the predicate accept it, and does the set hold it?  The
 * set must hold every accepted id (superset), and for the shapes it
 * understands (=, IN, ranges under AND / OR) exactly those.
 */
#include <stdlib.h>

#include "unit.h"

#include "expr/predicate.h"
#include "scan/row_ids.h"
#include "scan/scan_internal.h"

static ts_type bigint_type = {.kind = TS_BIGINT, .nullable = false};
static ts_type int_type = {.kind = TS_INT, .nullable = false};

static bool
set_has(const ts_row_ids *s, int64_t v)
{
	return ts_row_ids_overlaps(s, v, v);
}

static ts_predicate
leaf(ts_predicate_op op, int field, int n, ts_value *lits)
{
	ts_predicate p = {0};

	p.op = op;
	p.field = field;
	p.nliterals = n;
	p.literals = lits;
	return p;
}

static ts_value
lit(int64_t v)
{
	ts_value x = {0};

	x.v.i = v;
	return x;
}

/* Does p accept row id v (leaves on field 0 only)? */
static bool
model(const ts_predicate *p, int64_t v)
{
	switch (p->op)
	{
		case TS_PRED_AND:
			for (int i = 0; i < p->nchildren; i++)
				if (!model(&p->children[i], v))
					return false;
			return true;
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (model(&p->children[i], v))
					return true;
			return false;
		case TS_PRED_NOT:
			return !model(&p->children[0], v);
		case TS_PRED_EQ:
		case TS_PRED_IN:
			for (int i = 0; i < p->nliterals; i++)
				if (!p->literals[i].isnull && p->literals[i].v.i == v)
					return true;
			return false;
		case TS_PRED_NE:
			return p->literals[0].v.i != v;
		case TS_PRED_LT:
			return v < p->literals[0].v.i;
		case TS_PRED_LE:
			return v <= p->literals[0].v.i;
		case TS_PRED_GT:
			return v > p->literals[0].v.i;
		case TS_PRED_GE:
			return v >= p->literals[0].v.i;
		default:
			return true;
	}
}

static void
check(const ts_predicate *p, bool exact)
{
	ts_row_ids s;
	ts_err		err = {0};
	int64_t		count = 0;

	assert_true(ts_row_ids_from_predicate(p, 0, &s, &err));
	for (int64_t v = -50; v <= 250; v++)
	{
		bool		want = model(p, v);

		if (want)
			assert_true(set_has(&s, v));
		else if (exact)
			assert_false(set_has(&s, v));
		count += set_has(&s, v);
	}
	if (exact && !s.all)
	{
		/* sorted, disjoint, not adjacent */
		for (int i = 0; i < s.n; i++)
		{
			assert_true(s.ranges[i].from <= s.ranges[i].to);
			if (i > 0)
				assert_true(s.ranges[i - 1].to + 1 < s.ranges[i].from);
		}
		if (s.n == 0 || (s.ranges[0].from >= -50 && s.ranges[s.n - 1].to <= 250))
			assert_int_equal(ts_row_ids_count(&s), count);
	}
	ts_row_ids_free(&s);
}

static void
test_leaves(void **state)
{
	ts_value v[6] = {lit(7), lit(3), lit(8), lit(7), lit(100), lit(-3)};
	ts_predicate p;

	p = leaf(TS_PRED_EQ, 0, 1, v);
	check(&p, true);
	p = leaf(TS_PRED_IN, 0, 6, v);
	check(&p, true);
	for (ts_predicate_op op = TS_PRED_LT; op <= TS_PRED_GE; op++)
	{
		p = leaf(op, 0, 1, &v[4]);
		check(&p, true);
	}
	/* <>: every row id */
	p = leaf(TS_PRED_NE, 0, 1, v);
	check(&p, false);
	/* a leaf on another field constrains nothing */
	{
		ts_row_ids s;
		ts_err		err = {0};

		p = leaf(TS_PRED_EQ, 1, 1, v);
		assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
		assert_true(s.all);
		assert_int_equal(ts_row_ids_count(&s), -1);
		/* a literal of another type (INT) is not used */
		p = leaf(TS_PRED_EQ, 0, 1, v);
		p.literal_type = &int_type;
		assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
		assert_true(s.all);
		p.literal_type = &bigint_type;
		assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
		assert_false(s.all);
		assert_int_equal(ts_row_ids_count(&s), 1);
		ts_row_ids_free(&s);
	}
}

static void
test_null_and_extremes(void **state)
{
	ts_value v[3] = {lit(5), {.isnull = true}, lit(9)};
	ts_value ext[2] = {lit(INT64_MIN), lit(INT64_MAX)};
	ts_predicate p;
	ts_row_ids s;
	ts_err		err = {0};

	/* IN (5, NULL, 9): the NULL matches nothing */
	p = leaf(TS_PRED_IN, 0, 3, v);
	check(&p, true);
	p = leaf(TS_PRED_LT, 0, 1, &ext[0]);
	assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
	assert_false(s.all);
	assert_int_equal(s.n, 0);
	ts_row_ids_free(&s);
	p = leaf(TS_PRED_GT, 0, 1, &ext[1]);
	assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
	assert_int_equal(s.n, 0);
	ts_row_ids_free(&s);
	/* >= INT64_MIN: one range of 2^64 ids, counted saturating */
	p = leaf(TS_PRED_GE, 0, 1, &ext[0]);
	assert_true(ts_row_ids_from_predicate(&p, 0, &s, &err));
	assert_int_equal(s.n, 1);
	assert_true(ts_row_ids_count(&s) == INT64_MAX);
	assert_true(ts_row_ids_overlaps(&s, INT64_MAX, INT64_MAX));
	ts_row_ids_free(&s);
}

static void
test_compounds_random(void **state)
{
	srand(23);
	for (int round = 0; round < 400; round++)
	{
		ts_predicate kids[4];
		ts_value	lits[4][5];
		ts_predicate top = {0};
		int			nk = 1 + rand() % 4;
		bool		exact = true;

		for (int k = 0; k < nk; k++)
		{
			int			kind = rand() % 7;
			int			n = kind == 0 ? 1 + rand() % 5 : 1;

			for (int i = 0; i < n; i++)
				lits[k][i] = lit(rand() % 200 - 20);
			kids[k] = leaf(kind == 0 ? TS_PRED_IN : kind == 1 ? TS_PRED_EQ :
						   kind == 2 ? TS_PRED_LT : kind == 3 ? TS_PRED_LE :
						   kind == 4 ? TS_PRED_GT : kind == 5 ? TS_PRED_GE : TS_PRED_NE,
						   0, n, lits[k]);
			if (kind == 6)
				exact = false;
		}
		top.op = rand() % 2 ? TS_PRED_AND : TS_PRED_OR;
		top.nchildren = nk;
		top.children = kids;
		/* AND with a <> child is still a superset; the exact check needs no <> */
		check(&top, exact);
		/* NOT: conservative, every row id */
		{
			ts_predicate not = {0};

			not.op = TS_PRED_NOT;
			not.nchildren = 1;
			not.children = &top;
			check(&not, false);
		}
	}
}

static void
test_union_intersect(void **state)
{
	ts_row_range a[] = {{10, 20}, {0, 3}, {21, 25}, {40, 40}, {2, 5}};
	ts_row_range b[] = {{4, 12}, {24, 41}};
	ts_row_ids sa,
				sb,
				u,
				x;
	ts_err		err = {0};

	assert_true(ts_row_ids_from_ranges(a, 5, &sa, &err));
	/* {0..5}, {10..25}, {40} */
	assert_int_equal(sa.n, 3);
	assert_int_equal(sa.ranges[0].to, 5);
	assert_int_equal(sa.ranges[1].from, 10);
	assert_int_equal(sa.ranges[1].to, 25);
	assert_int_equal(ts_row_ids_count(&sa), 6 + 16 + 1);
	assert_true(ts_row_ids_from_ranges(b, 2, &sb, &err));
	assert_true(ts_row_ids_intersect(&sa, &sb, &x, &err));
	/* {4..5}, {10..12}, {24..25}, {40} */
	assert_int_equal(x.n, 4);
	assert_int_equal(ts_row_ids_count(&x), 2 + 3 + 2 + 1);
	assert_true(ts_row_ids_union(&sa, &sb, &u, &err));
	/* {0..41} */
	assert_int_equal(u.n, 1);
	assert_int_equal(u.ranges[0].from, 0);
	assert_int_equal(u.ranges[0].to, 41);
	assert_false(ts_row_ids_overlaps(&x, 6, 9));
	assert_true(ts_row_ids_overlaps(&x, 6, 10));
	assert_false(ts_row_ids_overlaps(&x, 41, 1000));
	assert_false(ts_row_ids_overlaps(&x, -100, 3));
	ts_row_ids_free(&sa);
	ts_row_ids_free(&sb);
	ts_row_ids_free(&x);
	ts_row_ids_free(&u);
}

/* Splits of a row-tracking append table pruned by row ids, groups kept whole. */
static void
test_prune_splits(void **state)
{
	/* split 0: [0,9] [10,19] [20,29]; split 1: data [30,49] + blob [30,39] [40,49], and no first id */
	ts_manifest_entry e[7];
	ts_scan_file f0[3],
				f1[4];
	ts_split	splits[2];
	ts_plan		plan;
	ts_scan_context ctx;
	ts_row_range want[] = {{12, 12}, {45, 45}};
	ts_row_ids ids;
	ts_err		err = {0};
	int64_t		first[7] = {0, 10, 20, 30, 30, 40, -1};
	int64_t		rows[7] = {10, 10, 10, 20, 10, 10, 5};

	memset(e, 0, sizeof(e));
	for (int i = 0; i < 7; i++)
	{
		e[i].file.has_first_row_id = first[i] >= 0;
		e[i].file.first_row_id = first[i];
		e[i].file.row_count = rows[i];
	}
	memset(f0, 0, sizeof(f0));
	memset(f1, 0, sizeof(f1));
	for (int i = 0; i < 3; i++)
		f0[i].entry = &e[i];
	for (int i = 0; i < 4; i++)
		f1[i].entry = &e[3 + i];
	memset(splits, 0, sizeof(splits));
	splits[0].nfiles = 3;
	splits[0].files = f0;
	splits[1].nfiles = 4;
	splits[1].files = f1;
	memset(&plan, 0, sizeof(plan));
	ts_arena_init(&plan.arena, 0);	/* the splits' wanted row ids live there */
	plan.kind = TS_TABLE_APPEND;
	plan.core.row_tracking = true;
	plan.nsplits = 2;
	plan.splits = splits;
	plan.metrics.files_kept = 7;
	memset(&ctx, 0, sizeof(ctx));
	assert_true(ts_row_ids_from_ranges(want, 2, &ids, &err));
	ctx.row_ids = &ids;
	assert_true(scan_row_ids_prune(&plan, &ctx, NULL, &err));
	assert_true(plan.row_ids_used);
	assert_int_equal(plan.row_ids_count, 2);
	assert_int_equal(plan.row_id_ranges, 2);
	assert_int_equal(plan.nsplits, 2);
	assert_int_equal(plan.splits[0].nfiles, 1);
	assert_ptr_equal(plan.splits[0].files[0].entry, &e[1]);
	/* the group [30,49] overlaps 45: every file of it kept, and the one without _FIRST_ROW_ID */
	assert_int_equal(plan.splits[1].nfiles, 4);
	assert_int_equal(plan.metrics.files_pruned_row_id, 2);
	assert_int_equal(plan.metrics.files_kept, 5);
	ts_row_ids_free(&ids);

	/* nothing wanted in split 0: the split goes */
	want[0].from = want[0].to = 35;
	assert_true(ts_row_ids_from_ranges(want, 1, &ids, &err));
	splits[0].nfiles = 3;
	splits[0].files = f0;
	plan.nsplits = 1;
	plan.splits = splits;
	/* EXPLAIN counts ids up to the end of the highest file range (29) only */
	assert_true(scan_row_ids_prune(&plan, &ctx, NULL, &err));
	assert_int_equal(plan.nsplits, 0);
	assert_int_equal(plan.row_ids_count, 0);
	assert_int_equal(plan.row_id_ranges, 0);
	/* a table without row tracking is not pruned */
	splits[0].nfiles = 3;
	plan.nsplits = 1;
	plan.core.row_tracking = false;
	assert_true(scan_row_ids_prune(&plan, &ctx, NULL, &err));
	assert_int_equal(plan.nsplits, 1);
	assert_int_equal(plan.splits[0].nfiles, 3);
	ts_row_ids_free(&ids);
	ts_arena_free(&plan.arena);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaves),
		cmocka_unit_test(test_null_and_extremes),
		cmocka_unit_test(test_compounds_random),
		cmocka_unit_test(test_union_intersect),
		cmocka_unit_test(test_prune_splits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
