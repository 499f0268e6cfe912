/*
 * test_scan_groups.c - partitions and (partition, bucket) groups of a file
 * list (src/scan/groups.c): counts, and the split order (partitions by
 * first appearance, buckets likewise within a partition, files in list
 * order) checked by hand and against a quadratic reference on random lists.
 */
#include "unit.h"

#include "scan/scan_internal.h"

static const uint8_t PA[] = {1, 0, 0, 0, 'a'};
static const uint8_t PB[] = {1, 0, 0, 0, 'b'};
static const uint8_t PC[] = {1, 0, 0, 0, 'a', 'a'};	/* PA is a prefix of it */

static void
set_entry(ts_manifest_entry *e, const uint8_t *p, uint32_t len, int32_t bucket)
{
	memset(e, 0, sizeof(*e));
	e->partition.data = p;
	e->partition.len = len;
	e->bucket = bucket;
}

static void
test_by_hand(void **state)
{
	ts_manifest_entry e[6];
	const ts_manifest_entry *files[6];
	/* (partition, bucket): (A,1) (B,0) (A,0) (C,1) (B,0) (A,1) */
	const int	want[6] = {0, 5, 2, 1, 4, 3};
	ts_err		err = {0};
	scan_groups g;
	int64_t		np,
				nb;

	(void) state;
	set_entry(&e[0], PA, sizeof(PA), 1);
	set_entry(&e[1], PB, sizeof(PB), 0);
	set_entry(&e[2], PA, sizeof(PA), 0);
	set_entry(&e[3], PC, sizeof(PC), 1);
	set_entry(&e[4], PB, sizeof(PB), 0);
	set_entry(&e[5], PA, sizeof(PA), 1);
	for (int i = 0; i < 6; i++)
		files[i] = &e[i];
	assert_true(scan_count_groups(files, 6, NULL, &np, &nb, &err));
	assert_int_equal(np, 3);
	assert_int_equal(nb, 4);
	assert_true(scan_groups_build(files, 6, NULL, &g, &err));
	assert_int_equal(g.npartitions, 3);
	assert_int_equal(g.ngroups, 4);
	assert_int_equal(g.group_of[0], g.group_of[5]);
	assert_int_equal(g.group_of[1], g.group_of[4]);
	assert_int_equal(g.group_partition[g.group_of[2]], g.group_partition[g.group_of[0]]);
	assert_true(scan_groups_order(&g, files, &err));
	scan_groups_free(&g);
	for (int i = 0; i < 6; i++)
		assert_ptr_equal(files[i], &e[want[i]]);

	/* a null partition and an empty one are the same (as elsewhere in src/scan) */
	set_entry(&e[0], NULL, 0, 0);
	set_entry(&e[1], PA, 0, 0);
	files[0] = &e[0];
	files[1] = &e[1];
	assert_true(scan_count_groups(files, 2, NULL, &np, &nb, &err));
	assert_int_equal(np, 1);
	assert_int_equal(nb, 1);

	/* nothing */
	assert_true(scan_count_groups(files, 0, NULL, &np, &nb, &err));
	assert_int_equal(np, 0);
	assert_int_equal(nb, 0);
}

static bool
same_partition(const ts_manifest_entry *a, const ts_manifest_entry *b)
{
	return a->partition.len == b->partition.len &&
		(a->partition.len == 0 || memcmp(a->partition.data, b->partition.data, a->partition.len) == 0);
}

/* index of the first file of i's partition / of i's group */
static int
first_of(const ts_manifest_entry *const *files, int i, bool group)
{
	for (int k = 0;; k++)
		if (same_partition(files[k], files[i]) && (!group || files[k]->bucket == files[i]->bucket))
			return k;
}

static void
test_random_against_reference(void **state)
{
	enum
	{
		N = 3000
	};
	static ts_manifest_entry e[N];
	static uint8_t parts[N][8];
	static const ts_manifest_entry *files[N];
	static int	kp[N],
				kg[N];
	ts_err		err = {0};
	scan_groups g;
	ts_arena	arena;
	unsigned	seed = 12345;

	(void) state;
	for (int round = 0; round < 4; round++)
	{
		int			nparts = round == 0 ? 1 : round == 1 ? 7 : round == 2 ? 200 : 2500;
		int			nbuckets = round == 3 ? 3 : 16;
		int64_t		np,
					nb,
					want_p = 0,
					want_b = 0;

		for (int i = 0; i < N; i++)
		{
			int			p,
						len;

			seed = seed * 1103515245u + 12345u;
			p = (int) ((seed >> 8) % (unsigned) nparts);
			len = 4 + p % 4;	/* different lengths, some bytes shared */
			memset(parts[i], 0, sizeof(parts[i]));
			memcpy(parts[i], &p, 4);
			seed = seed * 1103515245u + 12345u;
			set_entry(&e[i], parts[i], (uint32_t) len, (int32_t) ((seed >> 8) % (unsigned) nbuckets) - 1);
			files[i] = &e[i];
		}
		for (int i = 0; i < N; i++)
		{
			want_p += first_of(files, i, false) == i;
			want_b += first_of(files, i, true) == i;
		}
		assert_true(scan_count_groups(files, N, NULL, &np, &nb, &err));
		assert_int_equal(np, want_p);
		assert_int_equal(nb, want_b);
		/* the same in an arena (a plan's): its memory, not ts_malloc's */
		ts_arena_init(&arena, 4096);
		assert_true(scan_count_groups(files, N, &arena, &np, &nb, &err));
		assert_int_equal(np, want_p);
		assert_int_equal(nb, want_b);
		assert_true(ts_arena_bytes(&arena) >= sizeof(int) * N);	/* group_of at least */

		/* reference keys on the list order: first file of the partition, of the group */
		for (int i = 0; i < N; i++)
		{
			kp[i] = first_of(files, i, false);
			kg[i] = first_of(files, i, true);
		}
		/* the order: by (partition's first file, group's first file, position) */
		assert_true(scan_groups_build(files, N, round % 2 ? &arena : NULL, &g, &err));
		assert_true(scan_groups_order(&g, files, &err));
		scan_groups_free(&g);
		ts_arena_free(&arena);
		for (int i = 1; i < N; i++)
		{
			int			a = (int) (files[i - 1] - e),
						b = (int) (files[i] - e);

			assert_true(kp[a] < kp[b] ||
						(kp[a] == kp[b] && (kg[a] < kg[b] || (kg[a] == kg[b] && a < b))));
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_random_against_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
