/*
 * test_chunk_pool.c - the chunk pool (src/base/chunk_pool.c) and pooled
 * arenas (src/base/arena.c): blocks come back for reuse, the idle bound
 * holds, release hands back only pooled chunks, sizes out of range are
 * not pooled.  Blocks are counted through the pool's own allocator.
 */
#include "unit.h"

#include "base/ts_value.h"

static int	live_blocks;

static void *
count_alloc(size_t n)
{
	live_blocks++;
	return malloc(n);
}

static void
count_free(void *p)
{
	live_blocks--;
	free(p);
}

static int
setup(void **state)
{
	(void) state;
	ts_chunk_pool_set_alloc(count_alloc, count_free);
	live_blocks = 0;
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	ts_chunk_pool_clear();
	assert_int_equal(live_blocks, 0);
	ts_chunk_pool_set_alloc(NULL, NULL);
	return 0;
}

static void
test_round(void **state)
{
	(void) state;
	assert_int_equal(ts_chunk_pool_round(1), 64 << 10);
	assert_int_equal(ts_chunk_pool_round(64 << 10), 64 << 10);
	assert_int_equal(ts_chunk_pool_round((64 << 10) + 1), 128 << 10);
	assert_int_equal(ts_chunk_pool_round(8 << 20), 8 << 20);
	assert_int_equal(ts_chunk_pool_round((8 << 20) + 1), 0);
	assert_null(ts_chunk_pool_get(1000));	/* not a pool size */
}

static void
test_reuse(void **state)
{
	ts_arena	a;
	void	   *first;
	char	   *p;

	(void) state;
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	first = ts_arena_alloc(&a, 100);
	assert_non_null(first);
	memset(first, 'x', 100);
	/* a second chunk, and a bigger one for a big request */
	p = ts_arena_alloc(&a, 65400);
	assert_non_null(p);
	p = ts_arena_alloc(&a, 300 * 1024);
	assert_non_null(p);
	memset(p, 'y', 300 * 1024);
	assert_int_equal(live_blocks, 3);
	ts_arena_free(&a);
	assert_int_equal(live_blocks, 3);	/* kept idle */
	assert_int_equal(ts_chunk_pool_idle(), (64 << 10) * 2 + (512 << 10));

	/* the next arena takes them back without allocating */
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	assert_non_null(ts_arena_alloc(&a, 100));
	assert_non_null(ts_arena_alloc(&a, 65400));
	assert_non_null(ts_arena_alloc(&a, 300 * 1024));
	assert_int_equal(live_blocks, 3);
	assert_int_equal(ts_chunk_pool_idle(), 0);
	ts_arena_free(&a);
}

static void
test_release_keeps_unpooled(void **state)
{
	ts_arena	a;
	char	   *own;
	char	   *more;

	(void) state;
	ts_arena_init(&a, 64 * 1024);
	own = ts_arena_alloc(&a, 50 * 1024);	/* a ts_malloc chunk */
	assert_non_null(own);
	ts_arena_set_pooled(&a, true);
	assert_non_null(ts_arena_alloc(&a, 50 * 1024));	/* pooled */
	assert_int_equal(live_blocks, 1);
	ts_arena_release_pooled(&a);
	assert_int_equal(ts_chunk_pool_idle(), 64 << 10);
	memset(own, 'z', 50 * 1024);	/* still there */
	/* no longer pooled: new chunks from ts_malloc */
	more = ts_arena_alloc(&a, 50 * 1024);
	assert_non_null(more);
	assert_int_equal(ts_chunk_pool_idle(), 64 << 10);
	ts_arena_free(&a);
	assert_int_equal(live_blocks, 1);
}

static void
test_idle_bound_and_oversize(void **state)
{
	enum
	{
		N = (int) (TS_CHUNK_POOL_IDLE / (1 << 20)) + 4
	};
	void	   *b[N];
	ts_arena	a;
	char	   *big;

	(void) state;
	for (int i = 0; i < N; i++)
		assert_non_null(b[i] = ts_chunk_pool_get(1 << 20));
	assert_int_equal(live_blocks, N);
	for (int i = 0; i < N; i++)
		ts_chunk_pool_put(b[i], 1 << 20);
	assert_true(ts_chunk_pool_idle() <= TS_CHUNK_POOL_IDLE);
	assert_int_equal(live_blocks, (int) (TS_CHUNK_POOL_IDLE / (1 << 20)));

	/* beyond the largest class: an ordinary chunk */
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	big = ts_arena_alloc(&a, 9 << 20);
	assert_non_null(big);
	memset(big, 1, 9 << 20);
	assert_int_equal(live_blocks, (int) (TS_CHUNK_POOL_IDLE / (1 << 20)));
	ts_arena_free(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_keeps_unpooled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_bound_and_oversize, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
