/*
 * splits.c - group the surviving files into splits.
 *
 * Owns: one split per (partition, bucket), in Java's order (partitions by
 * first appearance in manifest order, then buckets likewise, files in
 * manifest order: the oracle's expected_splits assert it);
 * each file's format, deletion vector and sidecar index (its path is
 * built when it is opened: ts_scan_file_path); the raw_convertible flag
 * (PAIMON-FORMAT.md 7.4 step 2, MergeTreeSplitGenerator.splitForBatch):
 * append tables always; primary-key splits when every file is free of
 * delete rows (a known 0, not null) and either the split has one file or
 * no file is at level 0 and (DV enabled, or first-row, or all files are in
 * one level).
 */
#include <stdlib.h>
#include <string.h>

#include "scan/scan_internal.h"

static int
cmp_partition(ts_bytes a, ts_bytes b)
{
	size_t		n = a.len < b.len ? a.len : b.len;
	int			c = n ? memcmp(a.data, b.data, n) : 0;

	if (c)
		return c;
	return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

/*
 * Order files as Java's SnapshotReaderImpl groups them (LinkedHashMaps):
 * partitions in order of first appearance, buckets likewise within a
 * partition, files in manifest order (groups.c).
 */
static bool
order_files(ts_plan *plan, const ts_manifest_entry **files, int nfiles, ts_err *err)
{
	scan_groups g;
	bool		ok;

	if (!scan_groups_build(files, nfiles, &plan->arena, &g, err))
		return false;
	ok = scan_groups_order(&g, files, err);
	scan_groups_free(&g);
	return ok;
}

static bool
pk_raw_convertible(const scan_state *st, const ts_split *split)
{
	bool		no_level0 = true;
	bool		one_level = true;
	int			i;

	for (i = 0; i < split->nfiles; i++)
	{
		const ts_data_file_meta *f = &split->files[i].entry->file;

		if (f->delete_row_count != 0)	/* -1 (unknown) is not raw either */
			return false;
		if (f->level == 0)
			no_level0 = false;
		if (f->level != split->files[0].entry->file.level)
			one_level = false;
	}
	if (split->nfiles == 1)
		return true;
	return no_level0 && (st->dv_enabled || st->first_row || one_level);
}

/*
 * f->index_path: the sidecar file index the entry lists (an _EXTRA_FILES
 * name ending in ".index", without a directory) next to the data file
 * (whose path is built for it now).
 */
static bool
sidecar_path(ts_plan *plan, const ts_manifest_entry *e, ts_scan_file *f, ts_err *err)
{
	const char *path;
	const char *slash;

	f->index_path = NULL;
	if (e->file.nextra_files <= 0)
		return true;			/* most files: no path to search */
	for (int i = 0; i < e->file.nextra_files; i++)
	{
		const char *x = e->file.extra_files[i];
		size_t		n = x ? strlen(x) : 0;
		size_t		dir;

		if (n > 6 && strcmp(x + n - 6, ".index") == 0 && strchr(x, '/') == NULL)
		{
			if ((path = ts_scan_file_path(plan, f, err)) == NULL)
				return false;
			if ((slash = strrchr(path, '/')) == NULL)
				return true;
			dir = (size_t) (slash - path);
			f->index_path = ts_arena_alloc(&plan->arena, dir + 1 + n + 1);
			if (f->index_path == NULL)
				return ts_error_nomem(err, NULL);
			memcpy(f->index_path, path, dir);
			f->index_path[dir] = '/';
			memcpy(f->index_path + dir + 1, x, n + 1);
			return true;
		}
	}
	return true;
}

bool
scan_build_splits(ts_plan *plan, scan_state *st,
				  const ts_manifest_entry **files, int nfiles, bool ordered,
				  const scan_dv_index *dvs, ts_err *err)
{
	int			i,
				nsplits = 0;
	ts_scan_file *all;			/* the files of every split, in split order */

	plan->nsplits = 0;
	plan->splits = NULL;
	if (nfiles == 0)
		return true;
	if (!ordered && !order_files(plan, files, nfiles, err))
		return false;

	for (i = 0; i < nfiles; i++)
	{
		if (i + 16 < nfiles)
			scan_prefetch_entry(files[i + 16]);
		if (i + 8 < nfiles)
			scan_prefetch_entry_data(files[i + 8]);
		if (i == 0 || files[i]->bucket != files[i - 1]->bucket ||
			cmp_partition(files[i]->partition, files[i - 1]->partition) != 0)
			nsplits++;
	}
	plan->splits = ts_arena_alloc(&plan->arena, sizeof(ts_split) * (size_t) nsplits);
	if (plan->splits == NULL)
		return ts_error_nomem(err, "building splits");
	memset(plan->splits, 0, sizeof(ts_split) * (size_t) nsplits);
	all = ts_arena_alloc(&plan->arena, sizeof(ts_scan_file) * (size_t) nfiles);
	if (all == NULL)
		return ts_error_nomem(err, "building splits");

	for (i = 0; i < nfiles;)
	{
		ts_split   *split = &plan->splits[plan->nsplits];
		int			j = i,
					k;

		while (j < nfiles && files[j]->bucket == files[i]->bucket &&
			   cmp_partition(files[j]->partition, files[i]->partition) == 0)
		{
			if (j + 16 < nfiles)
				scan_prefetch_entry(files[j + 16]);
			if (j + 8 < nfiles)
				scan_prefetch_entry_data(files[j + 8]);
			j++;
		}
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		split->partition = files[i]->partition;
		split->bucket = files[i]->bucket;
		split->total_buckets = files[i]->total_buckets;
		/* the splits of a partition are next to each other: decode it once */
		if (plan->nsplits > 0 && cmp_partition(split[-1].partition, split->partition) == 0 &&
			(split[-1].partition.data == NULL) == (split->partition.data == NULL))
			split->partition_values = split[-1].partition_values;
		else if (!scan_partition_decode(plan, st, split->partition, &split->partition_values, err))
			return false;
		split->nfiles = j - i;
		split->files = all + i;
		for (k = 0; k < split->nfiles; k++)
		{
			ts_scan_file *f = &split->files[k];
			const ts_manifest_entry *e = files[i + k];

			*f = (ts_scan_file)
			{
				.entry = e
			};
			if (e->total_buckets > split->total_buckets)
				split->total_buckets = e->total_buckets;
			f->format = scan_format_from_file_name(e->file.file_name);
			if (!sidecar_path(plan, e, f, err))
				return false;
			f->dv_cardinality = -1;
			scan_dv_lookup(dvs, e, f);
		}
		/* incremental primary-key reads merge keeping retracts (merge.c) */
		split->raw_convertible = plan->kind == TS_TABLE_APPEND ? true :
			!plan->incremental && pk_raw_convertible(st, split);
		plan->nsplits++;
		i = j;
	}
	return true;
}
