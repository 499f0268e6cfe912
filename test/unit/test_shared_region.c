/*
 * test_shared_region.c - named, immutable blocks in shared memory
 * (src/base/shared_region.c): a block is visible only once published,
 * found by its name, and its pointers hold in another process; names are
 * taken once; eviction takes the least recently used unpinned block and
 * never a pinned one; a process's release gives back exactly its pins and
 * its unfinished reservation, and one that dies without it leaves its pins
 * (the server makes the region again then); stale pins are ignored.
 */
#include "unit.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "base/ts_shared_region.h"
#include "forked_child.h"

/* the lock: a spin lock in the shared mapping, with a count of takers */
typedef struct shared_lock
{
	int			held;
	int			taken;
} shared_lock;

static shared_lock *lk;

static void
spin_lock(void)
{
	while (__atomic_exchange_n(&lk->held, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	lk->taken++;
}

static void
spin_unlock(void)
{
	__atomic_store_n(&lk->held, 0, __ATOMIC_RELEASE);
}

#define BLOCK 4096

static void *mem;
static size_t mem_size;

/* a region with room for three blocks of BLOCK bytes, shared with children */
static int
setup(void **state)
{
	(void) state;
	mem_size = 4096 + ts_shr_region_size(3 * BLOCK);
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	lk = mem;
	ts_shr_init((char *) mem + 4096, mem_size - 4096);
	ts_shr_attach((char *) mem + 4096, spin_lock, spin_unlock);
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	assert_int_equal(lk->held, 0);
	ts_shr_attach(NULL, NULL, NULL);
	munmap(mem, mem_size);
	return 0;
}

static const char *
name_of(char c)
{
	static char names[4][65];
	static int	k;
	char	   *n = names[k++ % 4];

	memset(n, c, 64);
	n[64] = '\0';
	return n;
}

/* a block named c whose first word points at its own byte 64, which holds c */
static bool
publish(char c, size_t len, bool keep_pin, ts_shr_pin *pin)
{
	char	   *b = ts_shr_reserve(name_of(c), len, pin);

	if (b == NULL)
		return false;
	*(char **) b = b + 64;
	memset(b + 64, c, len - 64);
	ts_shr_publish(*pin);
	if (!keep_pin)
		ts_shr_unpin(*pin);
	return true;
}

static bool
present(char c)
{
	ts_shr_pin	pin;
	size_t		len;
	const char *b = ts_shr_get(name_of(c), &len, &pin);

	if (b == NULL)
		return false;
	assert_int_equal(**(char *const *) b, c);
	ts_shr_unpin(pin);
	return true;
}

static void
test_publish_and_find(void **state)
{
	ts_shr_pin	pin,
				p2;
	size_t		len;
	const char *b;
	ts_shr_stats st,
				st0 = ts_shr_get_stats();

	(void) state;
	assert_true(ts_shr_attached());
	b = ts_shr_reserve(name_of('a'), 100, &pin);
	assert_non_null(b);
	/* being written: invisible, and its name taken */
	assert_null(ts_shr_get(name_of('a'), &len, &p2));
	assert_int_equal(p2.slot, -1);
	assert_null(ts_shr_reserve(name_of('a'), 100, &p2));
	memset((char *) b, 'x', 100);
	ts_shr_publish(pin);
	ts_shr_unpin(pin);
	b = ts_shr_get(name_of('a'), &len, &p2);
	assert_non_null(b);
	assert_int_equal(len, 100);
	assert_int_equal(b[99], 'x');
	ts_shr_unpin(p2);
	/* published: still taken */
	assert_null(ts_shr_reserve(name_of('a'), 10, &p2));
	/* names are 64 characters; sizes beyond the room are refused */
	assert_null(ts_shr_get("a", &len, &p2));
	assert_null(ts_shr_reserve("abc", 10, &p2));
	assert_null(ts_shr_reserve(name_of('z'), 4 * BLOCK, &p2));
	/* abandoned: the name and the room free again */
	b = ts_shr_reserve(name_of('b'), 50, &pin);
	assert_non_null(b);
	ts_shr_abandon(pin);
	assert_null(ts_shr_get(name_of('b'), &len, &p2));
	st = ts_shr_get_stats();
	assert_int_equal(st.blocks, 1);
	assert_int_equal(st.bytes_used, 128);	/* 100 rounded to 64 */
	assert_int_equal(st.published, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.hits - st0.hits, 1);
	assert_true(lk->taken > 0);
}

static void
test_eviction(void **state)
{
	ts_shr_pin	pin,
				pa;
	ts_shr_stats st;

	(void) state;
	assert_true(publish('a', BLOCK, false, &pin));
	assert_true(publish('b', BLOCK, false, &pin));
	assert_true(publish('c', BLOCK, false, &pin));
	/* 'a' used last, 'b' the least recently: 'b' goes for 'd' */
	assert_true(present('a'));
	assert_true(publish('d', BLOCK, false, &pin));
	assert_false(present('b'));
	assert_true(present('a') && present('c') && present('d'));
	/* every block pinned: no room, nothing evicted */
	{
		ts_shr_pin	pins[3];
		size_t		len;

		assert_non_null(ts_shr_get(name_of('a'), &len, &pins[0]));
		assert_non_null(ts_shr_get(name_of('c'), &len, &pins[1]));
		assert_non_null(ts_shr_get(name_of('d'), &len, &pins[2]));
		st = ts_shr_get_stats();
		assert_false(publish('e', BLOCK, false, &pin));
		assert_int_equal(ts_shr_get_stats().no_room, st.no_room + 1);
		assert_int_equal(ts_shr_get_stats().evicted, st.evicted);
		pa = pins[0];
		ts_shr_unpin(pins[1]);
		ts_shr_unpin(pins[2]);
	}
	/* a block that could not fit beside the pinned one: refused, nothing evicted for it */
	st = ts_shr_get_stats();
	assert_false(publish('e', 3 * BLOCK, false, &pin));
	assert_int_equal(ts_shr_get_stats().evicted, st.evicted);
	assert_int_equal(ts_shr_get_stats().no_room, st.no_room + 1);
	assert_true(present('c') && present('d'));
	/* a block twice the size: two unpinned ones go, the pinned one stays */
	assert_true(publish('e', 2 * BLOCK, false, &pin));
	assert_true(present('a'));
	assert_false(present('c') || present('d'));
	/* the pinned one given back; a second unpin changes nothing */
	ts_shr_unpin(pa);
	ts_shr_unpin(pa);
	assert_true(publish('f', 3 * BLOCK, false, &pin));
	assert_false(present('a') || present('e'));
	/* a stale pin (its block gone, its slot reused) changes nothing */
	ts_shr_unpin(pa);
	assert_true(present('f'));
	st = ts_shr_get_stats();
	assert_int_equal(st.evicted, 5);
	assert_int_equal(st.blocks, 1);
}

/* a child: attach, find 'a' through its own pointer, pin it, open a reservation; release or not */
static void
child(bool release)
{
	ts_shr_pin	pin,
				w;
	size_t		len;
	const char *b;

	ts_shr_attach((char *) mem + 4096, spin_lock, spin_unlock);
	b = ts_shr_get(name_of('a'), &len, &pin);
	if (b == NULL || **(char *const *) b != 'a' || len != BLOCK)
		_exit(2);
	if (ts_shr_reserve(name_of('w'), BLOCK, &w) == NULL)
		_exit(3);
	if (release)
		ts_shr_release_all();
	_exit(0);
}

static void
run_child(bool release)
{
	pid_t		parent = getpid();
	pid_t		pid = fork();
	int			status;

	assert_true(pid >= 0);
	if (pid == 0)
	{
		unit_forked_child(parent, 1);
		child(release);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_processes(void **state)
{
	ts_shr_pin	pin;
	size_t		len;

	(void) state;
	assert_true(publish('a', BLOCK, false, &pin));
	/* released: its pin and its reservation given back; the whole room can be had */
	run_child(true);
	assert_int_equal(ts_shr_get_stats().pinned, 0);
	assert_null(ts_shr_get(name_of('w'), &len, &pin));
	assert_true(publish('b', 3 * BLOCK, false, &pin));
	assert_false(present('a'));
	/* a child that dies holding a pin: that block stays, whatever needs its room */
	ts_shr_init((char *) mem + 4096, mem_size - 4096);
	ts_shr_attach((char *) mem + 4096, spin_lock, spin_unlock);
	assert_true(publish('a', BLOCK, false, &pin));
	run_child(false);
	assert_int_equal(ts_shr_get_stats().pinned, 1);
	assert_false(publish('b', 3 * BLOCK, false, &pin));
	assert_true(present('a'));
	/* its reservation too: 'w' is still being written, invisible and taken */
	assert_null(ts_shr_get(name_of('w'), &len, &pin));
	assert_null(ts_shr_reserve(name_of('w'), 10, &pin));
	/* this process's own release gives back only its own */
	ts_shr_release_all();
	assert_true(present('a'));
	assert_false(publish('b', 2 * BLOCK, false, &pin));
}

/* not attached: nothing found or reserved */
static void
test_detached(void **state)
{
	ts_shr_pin	pin;
	size_t		len;

	(void) state;
	assert_true(publish('a', 64, false, &pin));
	ts_shr_attach(NULL, NULL, NULL);
	assert_false(ts_shr_attached());
	assert_null(ts_shr_get(name_of('a'), &len, &pin));
	assert_null(ts_shr_reserve(name_of('b'), 64, &pin));
	ts_shr_unpin(pin);
	ts_shr_release_all();
	/* a region never made: refused */
	ts_shr_attach((char *) mem + 4096 + 64, spin_lock, spin_unlock);
	assert_false(ts_shr_attached());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_and_find, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detached, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
