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

bool
scan_groups_build(const ts_manifest_entry *const *files, int n, ts_arena *arena,
				  scan_groups *g, ts_err *err)
{
	uint32_t	cap = 16;
	int		   *pslot = NULL;	/* partition table: first file of the partition + 1 */
	int		   *gslot = NULL;	/* group table: group id + 1 */
	int		   *pid_of_first = NULL;	/* partition id of a partition's first file */
	uint32_t   *phash = NULL;
	bool		ok = false;

	memset(g, 0, sizeof(*g));
	g->arena = arena;
	if (n <= 0)
		return true;
	while (cap < (uint32_t) n * 2)
		cap <<= 1;
	g->group_of = scratch_alloc(arena, sizeof(int) * (size_t) n, false);
	g->group_partition = scratch_alloc(arena, sizeof(int) * (size_t) n, false);
	g->group_first = scratch_alloc(arena, sizeof(int) * (size_t) n, false);
	pslot = scratch_alloc(arena, sizeof(int) * (size_t) cap, true);
	gslot = scratch_alloc(arena, sizeof(int) * (size_t) cap, true);
	pid_of_first = scratch_alloc(arena, sizeof(int) * (size_t) n, false);
	phash = scratch_alloc(arena, sizeof(uint32_t) * (size_t) n, false);
	if (!g->group_of || !g->group_partition || !g->group_first || !pslot || !gslot ||
		!pid_of_first || !phash)
	{
		ts_error_nomemf(err, "grouping %d files", n);
		goto done;
	}
	for (int i = 0; i < n; i++)
	{
		const ts_manifest_entry *e = files[i];
		uint32_t	h = partition_hash(e->partition);
		uint32_t	k = h & (cap - 1);
		int			pid,
					first;

		if ((i & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			goto done;
		/* the partition: its id and its first file */
		while (pslot[k] != 0 &&
			   !(phash[pslot[k] - 1] == h &&
				 partition_equal(files[pslot[k] - 1]->partition, e->partition)))
			k = (k + 1) & (cap - 1);
		phash[i] = h;
		if (pslot[k] == 0)
		{
			pslot[k] = i + 1;
			pid_of_first[i] = g->npartitions++;
		}
		first = pslot[k] - 1;
		pid = pid_of_first[first];
		/* the group (partition id, bucket) */
		k = mix((uint32_t) pid, e->bucket) & (cap - 1);
		while (gslot[k] != 0 &&
			   !(g->group_partition[gslot[k] - 1] == pid &&
				 files[g->group_first[gslot[k] - 1]]->bucket == e->bucket))
			k = (k + 1) & (cap - 1);
		if (gslot[k] == 0)
		{
			g->group_partition[g->ngroups] = pid;
			g->group_first[g->ngroups] = i;
			gslot[k] = ++g->ngroups;
		}
		g->group_of[i] = gslot[k] - 1;
	}
	g->nfiles = n;
	ok = true;

done:
	scratch_free(arena, pslot);
	scratch_free(arena, gslot);
	scratch_free(arena, pid_of_first);
	scratch_free(arena, phash);
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
