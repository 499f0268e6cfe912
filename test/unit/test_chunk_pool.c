/*
 * test_chunk_pool.c - the chunk pool (src/base/chunk_pool.c), pooled
 * arenas (src/base/arena.c) and huge blocks (src/base/huge_block.c):
 * blocks come back for reuse, the idle bound holds, release hands back
 * only pooled chunks, sizes out of range are not pooled, a pooled arena's
 * blocks grow (a huge page second, then doubling) and its first follows a
 * size hint, blocks of 2 MB and more sit on a 2 MB boundary and go back
 * to the allocator as it gave them.  Blocks are counted through the pool's own allocator.
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

/* an allocator whose blocks are only 8-aligned (malloc's 16 plus 8) */
static void *
odd_alloc(size_t n)
{
	char	   *p = malloc(n + 8);

	live_blocks++;
	return p ? p + 8 : NULL;
}

static void
odd_free(void *p)
{
	live_blocks--;
	free((char *) p - 8);
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
	/* the second block is a huge page, and the third request fits in it */
	assert_int_equal(live_blocks, 2);
	p = ts_arena_alloc(&a, 3 << 20);	/* more than it has left: 4 MB */
	assert_non_null(p);
	memset(p, 'z', 3 << 20);
	assert_int_equal(live_blocks, 3);
	ts_arena_free(&a);
	assert_int_equal(live_blocks, 3);	/* kept idle */
	assert_int_equal(ts_chunk_pool_idle(), (64 << 10) + (2 << 20) + (4 << 20));

	/* the next arena takes them back without allocating */
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	assert_non_null(ts_arena_alloc(&a, 100));
	assert_non_null(ts_arena_alloc(&a, 65400));
	assert_non_null(ts_arena_alloc(&a, 300 * 1024));
	assert_non_null(ts_arena_alloc(&a, 3 << 20));
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

/* a zeroed arena (never ts_arena_init'ed) allocates: chunk size 0 once
 * doubled to 0 forever */
static void
test_zeroed_arena(void **state)
{
	ts_arena	a;
	char	   *p;

	(void) state;
	memset(&a, 0, sizeof(a));
	p = ts_arena_alloc(&a, 100);
	assert_non_null(p);
	memset(p, 1, 100);
	assert_non_null(ts_arena_alloc(&a, 200 * 1024));
	ts_arena_free(&a);
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

/*
 * A pooled arena's second block is a huge page, the next ones double, up
 * to the largest class; chunks it had before it was pooled do not count.
 */
static void
test_growth(void **state)
{
	ts_arena	a;
	size_t		expect;

	(void) state;
	ts_arena_init(&a, 64 * 1024);
	assert_non_null(ts_arena_alloc(&a, 60 * 1024));	/* before pooling: ts_malloc */
	expect = ts_arena_bytes(&a);
	ts_arena_set_pooled(&a, true);
	for (size_t block = 64 << 10; block <= TS_CHUNK_POOL_MAX;
		 block = block < TS_HUGE_PAGE ? TS_HUGE_PAGE : block * 2)
	{
		/* fills this block's room and opens the next one */
		assert_non_null(ts_arena_alloc(&a, block - 4096));
		expect += block;
		assert_int_equal(ts_arena_bytes(&a), expect);
	}
	assert_non_null(ts_arena_alloc(&a, 8192));	/* more than the last block has left */
	assert_int_equal(ts_arena_bytes(&a), expect + TS_CHUNK_POOL_MAX);	/* no larger */
	ts_arena_free(&a);
	/* unpooled arenas keep their chunk size */
	ts_arena_init(&a, 64 * 1024);
	assert_non_null(ts_arena_alloc(&a, 60 * 1024));
	assert_non_null(ts_arena_alloc(&a, 60 * 1024));
	assert_true(ts_arena_bytes(&a) < 2 * (64 << 10) + 1024);
	ts_arena_free(&a);
	/*
	 * a pooled arena's first pooled request larger than its chunk size (a
	 * plan's array of 11,200 pointers): a huge page, not 128 KB of 4 KB pages
	 */
	ts_arena_init(&a, 64 * 1024);
	assert_non_null(ts_arena_alloc(&a, 60 * 1024));	/* before pooling: ts_malloc */
	expect = ts_arena_bytes(&a);
	ts_arena_set_pooled(&a, true);
	assert_non_null(ts_arena_alloc(&a, 90 * 1024));
	assert_int_equal(ts_arena_bytes(&a), expect + TS_HUGE_PAGE);
	ts_arena_free(&a);
	/* one that fits the chunk size: the chunk size, as before */
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	assert_non_null(ts_arena_alloc(&a, 60 * 1024));
	assert_int_equal(ts_arena_bytes(&a), 64 << 10);
	ts_arena_free(&a);
}

/* The size hint sets the first block only, and no larger than the largest class. */
static void
test_size_hint(void **state)
{
	ts_arena	a;

	(void) state;
	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	ts_arena_size_hint(&a, 5 << 20);
	assert_non_null(ts_arena_alloc(&a, 100));
	assert_int_equal(ts_arena_bytes(&a), 8 << 20);
	ts_arena_size_hint(&a, 64 << 20);	/* too late: ignored */
	assert_non_null(ts_arena_alloc(&a, 100));
	assert_int_equal(ts_arena_bytes(&a), 8 << 20);
	ts_arena_free(&a);

	ts_arena_init(&a, 64 * 1024);
	ts_arena_set_pooled(&a, true);
	ts_arena_size_hint(&a, (size_t) 1 << 40);
	assert_non_null(ts_arena_alloc(&a, 100));
	assert_int_equal(ts_arena_bytes(&a), TS_CHUNK_POOL_MAX);
	ts_arena_free(&a);
}

/*
 * Blocks of 2 MB and more start on a 2 MB boundary and are wholly
 * writable; each goes back to the allocator as the pointer it gave (free
 * of any other pointer fails here, in malloc or under a sanitizer).
 */
static void
test_huge_pool_blocks(void **state)
{
	void	   *b[3];
	size_t		sizes[3] = {2 << 20, 4 << 20, 8 << 20};

	(void) state;
	for (int i = 0; i < 3; i++)
	{
		b[i] = ts_chunk_pool_get(sizes[i]);
		assert_non_null(b[i]);
		assert_int_equal((uintptr_t) b[i] % TS_HUGE_PAGE, 0);
		memset(b[i], 0x5a, sizes[i]);
	}
	assert_int_equal(live_blocks, 3);
	for (int i = 0; i < 3; i++)
		ts_chunk_pool_put(b[i], sizes[i]);
	assert_int_equal(ts_chunk_pool_idle(), (2 << 20) + (4 << 20) + (8 << 20));
	/* taken back as they are: the same block, still aligned */
	assert_ptr_equal(ts_chunk_pool_get(4 << 20), b[1]);
	ts_chunk_pool_put(b[1], 4 << 20);
	/* beyond the idle bound: freed at once */
	for (int i = 0; i < 3; i++)
		b[i] = ts_chunk_pool_get(8 << 20);
	assert_int_equal(live_blocks, 5);
	for (int i = 0; i < 3; i++)
		ts_chunk_pool_put(b[i], 8 << 20);
	assert_true(ts_chunk_pool_idle() <= TS_CHUNK_POOL_IDLE);
	assert_int_equal(live_blocks, 3);
	/* teardown checks that clearing frees every block */
}

static void
test_huge_block_alloc(void **state)
{
	size_t		size;
	char	   *p;

	(void) state;
	/* small: the size asked for, freed through the same allocator */
	size = 1000;
	p = ts_huge_block_alloc(&size, count_alloc);
	assert_non_null(p);
	assert_int_equal(size, 1000);
	memset(p, 1, size);
	assert_int_equal(live_blocks, 1);
	ts_huge_block_free(p, count_free);
	assert_int_equal(live_blocks, 0);
	/* from 512 KB: whole huge pages, aligned */
	size = (512 << 10) - 1;
	p = ts_huge_block_alloc(&size, count_alloc);
	assert_non_null(p);
	assert_int_equal(size, (512 << 10) - 1);
	ts_huge_block_free(p, count_free);
	size = 512 << 10;
	p = ts_huge_block_alloc(&size, count_alloc);
	assert_non_null(p);
	assert_int_equal(size, TS_HUGE_PAGE);
	assert_int_equal((uintptr_t) p % TS_HUGE_PAGE, 0);
	ts_huge_block_free(p, count_free);
	size = (1 << 20) + 1;
	p = ts_huge_block_alloc(&size, count_alloc);
	assert_non_null(p);
	assert_int_equal(size, TS_HUGE_PAGE);
	assert_int_equal((uintptr_t) p % TS_HUGE_PAGE, 0);
	memset(p, 2, size);
	ts_huge_block_free(p, count_free);
	size = 5 << 20;
	p = ts_huge_block_alloc(&size, count_alloc);
	assert_non_null(p);
	assert_int_equal(size, 3 * TS_HUGE_PAGE);
	memset(p, 3, size);
	ts_huge_block_free(p, count_free);
	assert_int_equal(live_blocks, 0);
	/* an allocator giving 8-aligned memory: the block is still aligned, usable, freed as given */
	size = 2 << 20;
	p = ts_huge_block_alloc(&size, odd_alloc);
	assert_non_null(p);
	assert_int_equal((uintptr_t) p % TS_HUGE_PAGE, 0);
	memset(p, 4, size);			/* every byte inside the allocation (ASan checks) */
	ts_huge_block_free(p, odd_free);
	assert_int_equal(live_blocks, 0);
	/* default allocator, NULL freed quietly, absurd sizes refused */
	size = 3 << 20;
	p = ts_huge_block_alloc(&size, NULL);
	assert_non_null(p);
	ts_huge_block_free(p, NULL);
	ts_huge_block_free(NULL, count_free);
	size = SIZE_MAX - 8;
	assert_null(ts_huge_block_alloc(&size, count_alloc));
	size = SIZE_MAX / 2 + 1;
	assert_null(ts_huge_block_alloc(&size, count_alloc));
	assert_int_equal(live_blocks, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_keeps_unpooled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zeroed_arena, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_bound_and_oversize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_pool_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_block_alloc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
