/*
 * test_prefetch_levels.c - prefetch sets across subtransactions, without a
 * server: the abort of a subtransaction drops the registrations its sets
 * made (never touching those sets: their memory may be gone) and keeps the
 * sets of the levels above it serving their objects; a commit hands its
 * sets to its parent; a top-level abort forgets everything.
 *
 * The sets of an "aborted" level are allocated by a tracking allocator and
 * poisoned (0xff) before the abort, as a freed memory context would leave
 * them: the registry must not read them.
 */
#include "unit.h"

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

/* ---- a tracking allocator: one "memory context" of blocks to poison ---- */
#define MAX_BLOCKS 256

typedef struct block
{
	void	   *p;
	size_t		size;
} block;

static block blocks[MAX_BLOCKS];
static int	nblocks = 0;
static bool tracking = false;

static void *
track_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p && tracking && nblocks < MAX_BLOCKS)
	{
		blocks[nblocks].p = p;
		blocks[nblocks].size = size;
		nblocks++;
	}
	return p;
}

static void
track_free(void *p)
{
	for (int i = 0; i < nblocks; i++)
		if (blocks[i].p == p)
		{
			blocks[i] = blocks[--nblocks];
			break;
		}
	free(p);
}

static void *
track_realloc(void *p, size_t size)
{
	void	   *n = track_alloc(size);

	if (n == NULL)
		return NULL;
	if (p)
	{
		size_t		old = size;

		for (int i = 0; i < nblocks; i++)
			if (blocks[i].p == p && blocks[i].size < old)
				old = blocks[i].size;
		memcpy(n, p, old);
		track_free(p);
	}
	return n;
}

/* What deleting the tracked context does to the memory (kept allocated: poisoned). */
static void
poison_tracked(void)
{
	for (int i = 0; i < nblocks; i++)
		memset(blocks[i].p, 0xff, blocks[i].size);
}

static void
free_tracked(void)
{
	for (int i = 0; i < nblocks; i++)
		free(blocks[i].p);
	nblocks = 0;
}

static int	level = 1;

static int
current_level(void)
{
	return level;
}

static uint8_t *
dup_bytes(const char *s)
{
	uint8_t    *d = ts_malloc(strlen(s) + 1);

	memcpy(d, s, strlen(s) + 1);
	return d;
}

static bool
served(const char *path, const char *want)
{
	const uint8_t *data;
	size_t		len;

	if (!ts_prefetch_find(ts_fs_local_unconfined(), path, &data, &len))
		return false;
	return len == strlen(want) && memcmp(data, want, len) == 0;
}

static int
setup(void **state)
{
	static const ts_alloc_hooks hooks = {track_alloc, track_realloc, track_free};

	(void) state;
	ts_set_alloc_hooks(&hooks);
	ts_prefetch_set_nest_level_hook(current_level);
	return 0;
}

static void
test_abort_keeps_outer_sets(void **state)
{
	ts_prefetch *outer,
			   *inner,
			   *deeper;

	(void) state;
	level = 1;
	outer = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(outer, "s3://lake/t/outer", dup_bytes("outer"), 5));

	/* SAVEPOINT a; a query's set; SAVEPOINT b; another */
	tracking = true;
	level = 2;
	inner = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(inner, "s3://lake/t/inner", dup_bytes("inner"), 5));
	level = 3;
	deeper = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(deeper, "s3://lake/t/deeper", dup_bytes("deeper"), 6));
	tracking = false;
	assert_int_equal(ts_prefetch_registered(), 3);
	assert_true(served("s3://lake/t/inner", "inner"));

	/* ERROR; ROLLBACK TO a: the query contexts of levels 2 and 3 are gone first */
	poison_tracked();
	ts_prefetch_forget_level(2);
	level = 1;
	assert_int_equal(ts_prefetch_registered(), 1);
	assert_false(served("s3://lake/t/inner", "inner"));
	assert_false(served("s3://lake/t/deeper", "deeper"));
	/* the outer transaction's set (a cursor's) still serves */
	assert_true(served("s3://lake/t/outer", "outer"));
	free_tracked();

	/* a later set works, and frees unregister */
	inner = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(inner, "s3://lake/t/later", dup_bytes("later"), 5));
	assert_true(served("s3://lake/t/later", "later"));
	ts_prefetch_free(inner);
	assert_false(served("s3://lake/t/later", "later"));
	ts_prefetch_free(outer);
	assert_int_equal(ts_prefetch_registered(), 0);
	(void) deeper;
}

static void
test_commit_hands_sets_to_parent(void **state)
{
	ts_prefetch *a,
			   *b;

	(void) state;
	/* SAVEPOINT (2); a cursor's set; RELEASE: the set is level 1's */
	level = 2;
	a = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(a, "s3://lake/t/a", dup_bytes("a"), 1));
	ts_prefetch_commit_level(2);
	/* SAVEPOINT (2 again); a set; ROLLBACK TO: only that one goes */
	tracking = true;
	b = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(b, "s3://lake/t/b", dup_bytes("b"), 1));
	tracking = false;
	poison_tracked();
	ts_prefetch_forget_level(2);
	assert_true(served("s3://lake/t/a", "a"));
	assert_false(served("s3://lake/t/b", "b"));
	free_tracked();
	/* the top-level abort forgets everything (the sets are their owners' to free) */
	level = 1;
	ts_prefetch_forget_all();
	assert_int_equal(ts_prefetch_registered(), 0);
	assert_false(served("s3://lake/t/a", "a"));
	ts_prefetch_free(a);
}

/* A set started ahead whose transfers an abort took: what it has stays, the rest is its reads' */
static void
test_kept_set_after_forget(void **state)
{
	ts_err		err = {0};
	const char *paths[] = {"/tmp/not-an-object"};
	ts_prefetch *p;

	(void) state;
	level = 1;
	p = ts_prefetch_start(ts_fs_local_unconfined(), paths, 1, &err);
	assert_non_null(p);
	assert_true(ts_prefetch_add(p, "s3://lake/t/kept", dup_bytes("kept"), 4));
	ts_prefetch_forget_level(2);
	assert_true(ts_prefetch_ready(p));
	assert_true(ts_prefetch_wait(p, &err));
	assert_true(served("s3://lake/t/kept", "kept"));
	ts_prefetch_free(p);
	assert_int_equal(ts_prefetch_registered(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abort_keeps_outer_sets),
		cmocka_unit_test(test_commit_hands_sets_to_parent),
		cmocka_unit_test(test_kept_set_after_forget),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
