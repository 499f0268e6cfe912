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

/*
 * Several processes at once, as backends use the region: each publishes,
 * finds, holds, unpins and abandons blocks under a few names in a region
 * with room for about three, so that eviction runs all the time.  A block
 * is filled with its name's letter and a length of its own; a reader checks
 * every byte of what it pinned while it holds the pin, again before giving
 * it back: a block evicted or reused under a pin would show another letter.
 */
#define CONC_CHILDREN 4
#define CONC_ROUNDS 20000
#define CONC_NAMES 12

static int *conc_ready;			/* children at the start line, in the shared mapping */

static uint64_t
conc_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static bool
conc_intact(const char *b, size_t len, char c)
{
	if (len < 128 || *(char *const *) b != b + 64)
		return false;
	for (size_t i = 64; i < len; i++)
		if (b[i] != c)
			return false;
	return true;
}

static void
conc_child(int id)
{
	uint64_t	x = 0x9e3779b97f4a7c15ULL * (uint64_t) (id + 1);
	ts_shr_pin	held[4];
	const char *held_b[4];
	size_t		held_len[4];
	char		held_c[4];
	int			nheld = 0;

	ts_shr_attach((char *) mem + 4096, spin_lock, spin_unlock);
	/* all start together */
	__atomic_add_fetch(conc_ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(conc_ready, __ATOMIC_SEQ_CST) < CONC_CHILDREN)
		sched_yield();
	for (int r = 0; r < CONC_ROUNDS; r++)
	{
		char		c = (char) ('a' + conc_rand(&x) % CONC_NAMES);
		uint64_t	what = conc_rand(&x) % 8;
		ts_shr_pin	pin;
		size_t		len;

		if (what < 3)
		{
			/* publish (or give up) a block of 128 bytes to 1.5 blocks */
			size_t		want = 128 + conc_rand(&x) % (BLOCK + BLOCK / 2);
			char	   *b = ts_shr_reserve(name_of(c), want, &pin);

			if (b == NULL)
				continue;
			*(char **) b = b + 64;
			memset(b + 64, c, want - 64);
			if (what == 0)
			{
				ts_shr_abandon(pin);
				continue;
			}
			ts_shr_publish(pin);
			ts_shr_unpin(pin);
		}
		else if (nheld < 4 && (held_b[nheld] = ts_shr_get(name_of(c), &len, &pin)) != NULL)
		{
			if (!conc_intact(held_b[nheld], len, c))
				_exit(10);
			held[nheld] = pin;
			held_len[nheld] = len;
			held_c[nheld] = c;
			nheld++;
		}
		/* give back the oldest pin now and then, checking its block first */
		if (nheld > 0 && (nheld == 4 || conc_rand(&x) % 3 == 0))
		{
			if (!conc_intact(held_b[0], held_len[0], held_c[0]))
				_exit(11);
			ts_shr_unpin(held[0]);
			for (int i = 1; i < nheld; i++)
			{
				held[i - 1] = held[i];
				held_b[i - 1] = held_b[i];
				held_len[i - 1] = held_len[i];
				held_c[i - 1] = held_c[i];
			}
			nheld--;
		}
	}
	for (int i = 0; i < nheld; i++)
		if (!conc_intact(held_b[i], held_len[i], held_c[i]))
			_exit(12);
	/* one reservation left unfinished: the release gives it back too */
	(void) ts_shr_reserve(name_of('z'), 128, &held[0]);
	ts_shr_release_all();
	_exit(0);
}

static void
test_concurrent(void **state)
{
	pid_t		parent = getpid();
	pid_t		pids[CONC_CHILDREN];
	ts_shr_stats st;
	int			found = 0;

	(void) state;
	conc_ready = (int *) ((char *) mem + 64);
	*conc_ready = 0;
	for (int i = 0; i < CONC_CHILDREN; i++)
	{
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
		{
			unit_forked_child(parent, 1);
			conc_child(i);
		}
	}
	for (int i = 0; i < CONC_CHILDREN; i++)
	{
		int			status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	/* every pin and reservation given back; what is left is whole */
	st = ts_shr_get_stats();
	assert_int_equal(st.pinned, 0);
	assert_true(st.published > 0 && st.evicted > 0 && st.hits > 0);
	assert_true(st.bytes_used <= st.bytes_size);
	for (char c = 'a'; c < 'a' + CONC_NAMES; c++)
	{
		ts_shr_pin	pin;
		size_t		len;
		const char *b = ts_shr_get(name_of(c), &len, &pin);

		if (b == NULL)
			continue;
		assert_true(conc_intact(b, len, c));
		ts_shr_unpin(pin);
		found++;
	}
	assert_int_equal(found, st.blocks);
	assert_null(ts_shr_get(name_of('z'), &(size_t) {0}, &(ts_shr_pin) {0}));
	/* the room of every block that is not there can be had again */
	ts_shr_release_all();
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
		cmocka_unit_test_setup_teardown(test_concurrent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
