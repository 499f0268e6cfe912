/*
 * test_bufpool.c - the buffer pool that hands large buffers from one file
 * reader to the next (src/base/bufpool.c): reuse, best fit, its bound.
 */
#include "unit.h"

#include "base/ts_base.h"

static void
test_reuse_best_fit(void **state)
{
	ts_bufpool *pool = ts_bufpool_new(1 << 20);
	size_t		cap_small,
				cap_large,
				cap;
	void	   *small,
			   *large,
			   *p;

	(void) state;
	assert_non_null(pool);
	small = ts_bufpool_get(pool, 1000, &cap_small);
	large = ts_bufpool_get(pool, 100000, &cap_large);
	assert_non_null(small);
	assert_non_null(large);
	assert_true(cap_small >= 1000);
	assert_true(cap_large >= 100000);
	ts_bufpool_put(pool, large, cap_large);
	ts_bufpool_put(pool, small, cap_small);
	assert_int_equal(ts_bufpool_bytes(pool), cap_small + cap_large);

	/* the smallest buffer that fits comes back, with its real size */
	p = ts_bufpool_get(pool, 500, &cap);
	assert_ptr_equal(p, small);
	assert_int_equal(cap, cap_small);
	p = ts_bufpool_get(pool, 2000, &cap);
	assert_ptr_equal(p, large);
	assert_int_equal(cap, cap_large);
	assert_int_equal(ts_bufpool_bytes(pool), 0);
	memset(p, 0x5a, cap);		/* all of it is usable */
	ts_bufpool_put(pool, p, cap);
	ts_bufpool_put(pool, small, cap_small);
	ts_bufpool_free(pool);
}

static void
test_bound(void **state)
{
	ts_bufpool *pool = ts_bufpool_new(10000);
	size_t		cap;
	void	   *a,
			   *b,
			   *c,
			   *big;

	(void) state;
	a = ts_bufpool_get(pool, 4000, &cap);
	ts_bufpool_put(pool, a, 4000);
	b = ts_bufpool_get(pool, 5000, &cap);	/* a is too small: freed, b is new */
	assert_int_equal(ts_bufpool_bytes(pool), 0);
	c = ts_bufpool_get(pool, 3000, &cap);
	ts_bufpool_put(pool, b, 5000);
	ts_bufpool_put(pool, c, 3000);
	assert_int_equal(ts_bufpool_bytes(pool), 8000);

	/* over the bound: the smallest kept buffer makes room for a larger one */
	a = ts_bufpool_get(pool, 6000, &cap);	/* nothing fits: b (largest) freed */
	assert_int_equal(ts_bufpool_bytes(pool), 3000);
	ts_bufpool_put(pool, a, 6000);
	assert_int_equal(ts_bufpool_bytes(pool), 9000);
	big = ts_bufpool_get(pool, 7000, &cap);	/* none fits: a freed */
	ts_bufpool_put(pool, big, 7000);
	assert_int_equal(ts_bufpool_bytes(pool), 10000);
	a = ts_bufpool_get(pool, 2000, &cap);	/* c, best fit */
	assert_int_equal(cap, 3000);
	b = ts_bufpool_get(pool, 2000, &cap);	/* then big */
	assert_int_equal(cap, 7000);
	ts_bufpool_put(pool, b, 7000);
	ts_bufpool_put(pool, a, 3000);
	big = ts_bufpool_get(pool, 20000, &cap);
	assert_int_equal(ts_bufpool_bytes(pool), 3000);
	ts_bufpool_put(pool, big, 20000);	/* larger than the bound: freed */
	assert_int_equal(ts_bufpool_bytes(pool), 3000);
	ts_bufpool_free(pool);
}

static void
test_many_slots(void **state)
{
	ts_bufpool *pool = ts_bufpool_new((size_t) 1 << 30);
	void	   *bufs[100];
	size_t		cap;

	(void) state;
	for (int i = 0; i < 100; i++)
		bufs[i] = ts_bufpool_get(pool, 100 + i, &cap);
	for (int i = 0; i < 100; i++)
		ts_bufpool_put(pool, bufs[i], 100 + i);
	/* a bounded number of buffers is kept: the largest ones */
	assert_true(ts_bufpool_bytes(pool) < 100 * 200);
	bufs[0] = ts_bufpool_get(pool, 199, &cap);
	assert_non_null(bufs[0]);
	assert_int_equal(cap, 199);
	ts_free(bufs[0]);
	ts_bufpool_free(pool);
}

/* ts_bufpool_get_zeroed: a kept buffer comes back zeroed; overflow refused. */
static void
test_zeroed(void **state)
{
	ts_bufpool *pool = ts_bufpool_new(1 << 20);
	size_t		cap;
	uint8_t    *p;

	(void) state;
	p = ts_bufpool_get_zeroed(pool, 1000, 8, &cap);
	assert_non_null(p);
	assert_int_equal(cap, 8000);
	for (size_t i = 0; i < 8000; i++)
		assert_int_equal(p[i], 0);
	memset(p, 0xab, cap);
	ts_bufpool_put(pool, p, cap);
	p = ts_bufpool_get_zeroed(pool, 500, 10, &cap);	/* the same buffer, written before */
	assert_int_equal(cap, 8000);
	assert_int_equal(ts_bufpool_bytes(pool), 0);
	for (size_t i = 0; i < 5000; i++)
		assert_int_equal(p[i], 0);
	ts_bufpool_put(pool, p, cap);
	assert_null(ts_bufpool_get_zeroed(pool, SIZE_MAX / 2, 4, &cap));
	assert_int_equal(ts_bufpool_bytes(pool), 8000);
	p = ts_bufpool_get_zeroed(NULL, 3, 5, &cap);
	assert_non_null(p);
	assert_int_equal(cap, 15);
	ts_bufpool_put(NULL, p, cap);
	ts_bufpool_free(pool);
}

static void
test_null_pool(void **state)
{
	size_t		cap = 0;
	void	   *p = ts_bufpool_get(NULL, 123, &cap);

	(void) state;
	assert_non_null(p);
	assert_int_equal(cap, 123);
	ts_bufpool_put(NULL, p, cap);	/* frees */
	ts_bufpool_put(NULL, NULL, 0);
	assert_int_equal(ts_bufpool_bytes(NULL), 0);
	ts_bufpool_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse_best_fit),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_many_slots),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_null_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
