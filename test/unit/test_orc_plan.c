/*
 * test_orc_plan.c - which bytes of an ORC stripe the reader asks for
 * (format/orc/orc_plan.c): the columns a projection reads, the streams it
 * needs of a stripe, the stripe whose footer is read ahead.
 */
#include "unit.h"
#include "format/orc/orc_decode.h"

/* c (id 3, a list) with child 4; d (id 6) alone; e (id 1) absent */
static void
test_mark_columns(void **state)
{
	orc_col		child = {.id = 4};
	orc_col    *kids[2] = {&child, NULL};
	orc_col		list = {.id = 3, .children = kids, .nchildren = 2};
	orc_col		d = {.id = 6};
	orc_col		far = {.id = 40};
	bool		used[8] = {false};

	(void) state;
	orc_plan_mark_columns(&list, used, 8);
	orc_plan_mark_columns(&d, used, 8);
	orc_plan_mark_columns(NULL, used, 8);
	orc_plan_mark_columns(&far, used, 8);	/* past the types: left alone */
	for (int i = 0; i < 8; i++)
		assert_int_equal(used[i], i == 3 || i == 4 || i == 6);
}

static void
test_stripe_streams(void **state)
{
	orc_stream_info streams[] = {
		{ORC_STREAM_ROW_INDEX, 1, 50, 0},	/* 0: index: never */
		{ORC_STREAM_PRESENT, 1, 10, 0},		/* 1: column 1 PRESENT */
		{ORC_STREAM_DATA, 1, 100, 0},		/* 2 */
		{ORC_STREAM_DATA, 2, 100, 0},		/* 3: column 2 not read */
		{ORC_STREAM_LENGTH, 3, 0, 0},		/* 4: empty */
		{ORC_STREAM_DICTIONARY_DATA, 3, 30, 0},	/* 5 */
		{ORC_STREAM_DICTIONARY_COUNT, 3, 5, 0},	/* 6: not read */
		{ORC_STREAM_SECONDARY, 3, 7, 0},	/* 7 */
		{8, 3, 9, 0},						/* 8: a bloom filter kind: never */
		{ORC_STREAM_DATA, 9, 9, 0},			/* 9: a column id past the types */
		{-1, 3, 9, 0},						/* 10: a bad kind */
	};
	orc_stripe_footer sf = {.streams = streams, .nstreams = 11};
	bool		used[4] = {false, true, false, true};
	int			sel[11];
	int			n;

	(void) state;
	n = orc_plan_stripe_streams(&sf, used, 4, sel);
	assert_int_equal(n, 4);
	assert_int_equal(sel[0], 1);
	assert_int_equal(sel[1], 2);
	assert_int_equal(sel[2], 5);
	assert_int_equal(sel[3], 7);
	memset(used, 0, sizeof(used));
	assert_int_equal(orc_plan_stripe_streams(&sf, used, 4, sel), 0);
	sf.nstreams = 0;
	used[1] = true;
	assert_int_equal(orc_plan_stripe_streams(&sf, used, 4, sel), 0);
}

static void
test_next_stripe(void **state)
{
	orc_stripe_info stripes[] = {
		{3, 0, 100, 10, 5},
		{113, 0, 100, 10, 0},		/* no rows: passed over */
		{223, 0, 100, 10, 5},
		{333, 0, 100, 10, 5},
	};
	orc_tail	tail = {.stripes = stripes, .nstripes = 4};

	(void) state;
	assert_int_equal(orc_plan_next_stripe(&tail, -1, 0, 0), 0);
	assert_int_equal(orc_plan_next_stripe(&tail, 0, 0, 0), 2);
	assert_int_equal(orc_plan_next_stripe(&tail, 2, 0, 0), 3);
	assert_int_equal(orc_plan_next_stripe(&tail, 3, 0, 0), -1);
	/* a split of the file [200, 300): only stripe 2 starts in it */
	assert_int_equal(orc_plan_next_stripe(&tail, -1, 200, 300), 2);
	assert_int_equal(orc_plan_next_stripe(&tail, 2, 200, 300), -1);
	assert_int_equal(orc_plan_next_stripe(&tail, 0, 300, 1000), 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_columns),
		cmocka_unit_test(test_stripe_streams),
		cmocka_unit_test(test_next_stripe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
