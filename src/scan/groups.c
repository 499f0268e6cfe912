/*
 * groups.c - the partitions and (partition, bucket) groups of a file list.
 *
 * Owns: numbering the distinct partitions (by their BinaryRow bytes) and
 * (partition, bucket) groups of a list of manifest entries in order of
 * first appearance, in one pass with two hash tables instead of sorting:
 * the counts EXPLAIN shows and the order of splits (Java's
 * LinkedHashMaps: partitions by first appearance, buckets likewise within
 * a partition, files in list order) both follow from it.  Two partitions
 * are the same when their bytes are (a null partition and an empty one
 * alike, as the byte comparisons elsewhere in src/scan treat them).
 * Scratch memory comes from ts_malloc, faulted in at once, and is freed
 * by scan_groups_free.
 */
#include <string.h>

#include "scan/scan_internal.h"

/* eight bytes at a time: these tables only need a hash of their own */
static uint32_t
partition_hash(ts_bytes p)
{
	uint64_t	h = 0x9e3779b97f4a7c15u ^ p.len;
	size_t		i = 0;

	for (; i + 8 <= p.len; i += 8)
	{
		uint64_t	w;

		memcpy(&w, p.data + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	if (i < p.len)
	{
		uint64_t	w = 0;

		memcpy(&w, p.data + i, p.len - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	}
	h ^= h >> 29;
	return (uint32_t) h;
}

static bool
partition_equal(ts_bytes a, ts_bytes b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/*
 * Scratch of 'size' bytes (zeroed when asked) in the arena, or from
 * ts_malloc with its pages faulted in with one call: the tables here are
 * large and fresh (their first touch would otherwise trap once per page)
 * and are all written at once.
 */
static void *
scratch_alloc(ts_arena *arena, size_t size, bool zero)
{
	void	   *p = arena ? ts_arena_alloc(arena, size) : ts_prefault(ts_malloc(size), size);

	if (p != NULL && zero)
		memset(p, 0, size);
	return p;
}

static void
scratch_free(ts_arena *arena, void *p)
{
	if (arena == NULL)
		ts_free(p);
}

static uint32_t
mix(uint32_t h, int32_t bucket)
{
	h ^= (uint32_t) bucket * 0x9e3779b1u;
	h ^= h >> 15;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

void
scan_groups_free(scan_groups *g)
{
	scratch_free(g->arena, g->group_of);
	scratch_free(g->arena, g->group_partition);
	scratch_free(g->arena, g->group_first);
	memset(g, 0, sizeof(*g));
}

/* Move *arr (elements of 'size' bytes, 'used' in use) to room for ncap. */
static bool
scratch_grow(ts_arena *arena, void **arr, size_t size, int used, int ncap)
{
	void	   *na = scratch_alloc(arena, size * (size_t) ncap, false);

	if (na == NULL)
		return false;
	if (used > 0)
		memcpy(na, *arr, size * (size_t) used);
	scratch_free(arena, *arr);
	*arr = na;
	return true;
}

/* an open-addressing table of ids + 1 (0: empty), at most half full */
typedef struct id_table
{
	int		   *slot;
	uint32_t	mask;
} id_table;

static bool
id_table_init(ts_arena *arena, id_table *t, uint32_t cap)
{
	t->slot = scratch_alloc(arena, sizeof(int) * (size_t) cap, true);
	t->mask = cap - 1;
	return t->slot != NULL;
}

/* the empty slot where an id of hash h goes */
static uint32_t
id_table_free_slot(const id_table *t, uint32_t h)
{
	uint32_t	k = h & t->mask;

	while (t->slot[k] != 0)
		k = (k + 1) & t->mask;
	return k;
}

/*
 * The tables and per-id arrays start small and double as partitions and
 * groups appear: their size follows the groups, not the files (a cold
 * plan of 11,200 files in 1,120 groups touches ~60 kB, not ~500 kB).
 */
typedef struct grouping
{
	ts_arena   *arena;
	id_table	parts;			/* partition id + 1, by partition hash */
	id_table	groups;			/* group id + 1, by (partition id, bucket) */
	int			cap;			/* room in the per-id arrays (tables hold 2x) */
	int			gcap;
	int		   *part_first;		/* per partition: its first file */
	uint32_t   *part_hash;		/* per partition: its hash */
} grouping;

static bool
grow_partitions(grouping *w, scan_groups *g)
{
	int			ncap = w->cap * 2;
	id_table	t;

	if (!scratch_grow(w->arena, (void **) &w->part_first, sizeof(int), g->npartitions, ncap) ||
		!scratch_grow(w->arena, (void **) &w->part_hash, sizeof(uint32_t), g->npartitions, ncap) ||
		!id_table_init(w->arena, &t, (uint32_t) ncap * 2))
		return false;
	for (int pid = 0; pid < g->npartitions; pid++)
		t.slot[id_table_free_slot(&t, w->part_hash[pid])] = pid + 1;
	scratch_free(w->arena, w->parts.slot);
	w->parts = t;
	w->cap = ncap;
	return true;
}

static bool
grow_groups(grouping *w, scan_groups *g, const ts_manifest_entry *const *files)
{
	int			ncap = w->gcap * 2;
	id_table	t;

	if (!scratch_grow(w->arena, (void **) &g->group_partition, sizeof(int), g->ngroups, ncap) ||
		!scratch_grow(w->arena, (void **) &g->group_first, sizeof(int), g->ngroups, ncap) ||
		!id_table_init(w->arena, &t, (uint32_t) ncap * 2))
		return false;
	for (int q = 0; q < g->ngroups; q++)
		t.slot[id_table_free_slot(&t, mix((uint32_t) g->group_partition[q],
										  files[g->group_first[q]]->bucket))] = q + 1;
	scratch_free(w->arena, w->groups.slot);
	w->groups = t;
	w->gcap = ncap;
	return true;
}

bool
scan_groups_build(const ts_manifest_entry *const *files, int n, ts_arena *arena,
				  scan_groups *g, ts_err *err)
{
	grouping	w = {0};
	bool		ok = false;

	memset(g, 0, sizeof(*g));
	g->arena = arena;
	if (n <= 0)
		return true;
	w.arena = arena;
	w.cap = 32;
	w.gcap = 256;
	g->group_of = scratch_alloc(arena, sizeof(int) * (size_t) n, false);
	g->group_partition = scratch_alloc(arena, sizeof(int) * (size_t) w.gcap, false);
	g->group_first = scratch_alloc(arena, sizeof(int) * (size_t) w.gcap, false);
	w.part_first = scratch_alloc(arena, sizeof(int) * (size_t) w.cap, false);
	w.part_hash = scratch_alloc(arena, sizeof(uint32_t) * (size_t) w.cap, false);
	if (!g->group_of || !g->group_partition || !g->group_first || !w.part_first ||
		!w.part_hash || !id_table_init(arena, &w.parts, (uint32_t) w.cap * 2) ||
		!id_table_init(arena, &w.groups, (uint32_t) w.gcap * 2))
		goto nomem;
	for (int i = 0; i < n; i++)
	{
		const ts_manifest_entry *e = files[i];
		uint32_t	h = partition_hash(e->partition);
		uint32_t	k = h & w.parts.mask;
		int			pid;

		if ((i & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			goto done;
		/* the partition: its id */
		while (w.parts.slot[k] != 0 &&
			   !(w.part_hash[w.parts.slot[k] - 1] == h &&
				 partition_equal(files[w.part_first[w.parts.slot[k] - 1]]->partition,
								 e->partition)))
			k = (k + 1) & w.parts.mask;
		if (w.parts.slot[k] == 0)
		{
			if (g->npartitions == w.cap)
			{
				if (!grow_partitions(&w, g))
					goto nomem;
				k = id_table_free_slot(&w.parts, h);
			}
			w.part_first[g->npartitions] = i;
			w.part_hash[g->npartitions] = h;
			w.parts.slot[k] = ++g->npartitions;
		}
		pid = w.parts.slot[k] - 1;
		/* the group (partition id, bucket) */
		k = mix((uint32_t) pid, e->bucket) & w.groups.mask;
		while (w.groups.slot[k] != 0 &&
			   !(g->group_partition[w.groups.slot[k] - 1] == pid &&
				 files[g->group_first[w.groups.slot[k] - 1]]->bucket == e->bucket))
			k = (k + 1) & w.groups.mask;
		if (w.groups.slot[k] == 0)
		{
			if (g->ngroups == w.gcap)
			{
				if (!grow_groups(&w, g, files))
					goto nomem;
				k = id_table_free_slot(&w.groups, mix((uint32_t) pid, e->bucket));
			}
			g->group_partition[g->ngroups] = pid;
			g->group_first[g->ngroups] = i;
			w.groups.slot[k] = ++g->ngroups;
		}
		g->group_of[i] = w.groups.slot[k] - 1;
	}
	g->nfiles = n;
	ok = true;
	goto done;

nomem:
	ts_error_nomemf(err, "grouping %d files", n);
done:
	scratch_free(arena, w.parts.slot);
	scratch_free(arena, w.groups.slot);
	scratch_free(arena, w.part_first);
	scratch_free(arena, w.part_hash);
	if (!ok)
		scan_groups_free(g);
	return ok;
}

bool
scan_count_groups(const ts_manifest_entry *const *files, int n, ts_arena *arena,
				  int64_t *partitions, int64_t *buckets, ts_err *err)
{
	scan_groups g;

	*partitions = 0;
	*buckets = 0;
	if (!scan_groups_build(files, n, arena, &g, err))
		return false;
	*partitions = g.npartitions;
	*buckets = g.ngroups;
	scan_groups_free(&g);
	return true;
}

/*
 * The split order of the files as a permutation: perm[k] = the list index
 * of the k-th file in split order.  Groups by (partition's first
 * appearance, group's first appearance), files of a group in list order.
 * Two stable counting sorts: groups are numbered in order of first
 * appearance, so ordering them stably by partition id keeps that order
 * within a partition.
 */
bool
scan_groups_permutation(const scan_groups *g, int *perm, ts_err *err)
{
	int			n = g->nfiles;
	int		   *pstart = scratch_alloc(g->arena, sizeof(int) * ((size_t) g->npartitions + 1), true);
	int		   *gpos = scratch_alloc(g->arena, sizeof(int) * (size_t) (g->ngroups ? g->ngroups : 1),
									 false);
	int		   *gstart = scratch_alloc(g->arena, sizeof(int) * ((size_t) g->ngroups + 1), true);
	bool		ok = false;

	if (!pstart || !gpos || !gstart)
	{
		ts_error_nomemf(err, "ordering %d files", n);
		goto done;
	}
	/* position of each group: stable by partition id */
	for (int q = 0; q < g->ngroups; q++)
		pstart[g->group_partition[q] + 1]++;
	for (int p = 0; p < g->npartitions; p++)
		pstart[p + 1] += pstart[p];
	for (int q = 0; q < g->ngroups; q++)
		gpos[q] = pstart[g->group_partition[q]]++;
	/* first slot of each group position: stable by group position */
	for (int i = 0; i < n; i++)
		gstart[gpos[g->group_of[i]] + 1]++;
	for (int q = 0; q < g->ngroups; q++)
		gstart[q + 1] += gstart[q];
	for (int i = 0; i < n; i++)
		perm[gstart[gpos[g->group_of[i]]]++] = i;
	ok = true;

done:
	scratch_free(g->arena, pstart);
	scratch_free(g->arena, gpos);
	scratch_free(g->arena, gstart);
	return ok;
}

/* Reorder files (the list g was built from) into split order. */
bool
scan_groups_order(const scan_groups *g, const ts_manifest_entry **files, ts_err *err)
{
	int			n = g->nfiles;
	int		   *perm = scratch_alloc(g->arena, sizeof(int) * (size_t) (n ? n : 1), false);
	const ts_manifest_entry **out = scratch_alloc(g->arena, sizeof(*out) * (size_t) (n ? n : 1),
												  false);
	bool		ok = false;

	if (!perm || !out)
		ts_error_nomemf(err, "ordering %d files", n);
	else if (scan_groups_permutation(g, perm, err))
	{
		for (int k = 0; k < n; k++)
			out[k] = files[perm[k]];
		memcpy(files, out, sizeof(*out) * (size_t) n);
		ok = true;
	}
	scratch_free(g->arena, perm);
	scratch_free(g->arena, out);
	return ok;
}
