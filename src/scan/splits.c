/*
 * splits.c - group the surviving files into splits.
 *
 * Owns: one split per (partition, bucket), in Java's order (partitions by
 * first appearance in manifest order, then buckets likewise, files in
 * manifest order: the oracle's expected_splits assert it);
 * each file's path, format and deletion vector; the raw_convertible flag
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

/* A live file with its position in manifest order and its group's first positions. */
typedef struct ordered_file
{
	const ts_manifest_entry *e;
	int			idx;			/* position among the surviving entries */
	int			partition_first;	/* first idx of its partition */
	int			group_first;	/* first idx of its (partition, bucket) */
} ordered_file;

static int
cmp_by_group(const void *pa, const void *pb)
{
	const ordered_file *a = pa,
			   *b = pb;
	int			c = cmp_partition(a->e->partition, b->e->partition);

	if (c)
		return c;
	if (a->e->bucket != b->e->bucket)
		return a->e->bucket < b->e->bucket ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int
cmp_by_appearance(const void *pa, const void *pb)
{
	const ordered_file *a = pa,
			   *b = pb;

	if (a->partition_first != b->partition_first)
		return a->partition_first < b->partition_first ? -1 : 1;
	if (a->group_first != b->group_first)
		return a->group_first < b->group_first ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/*
 * Order files as Java's SnapshotReaderImpl groups them (LinkedHashMaps):
 * partitions in order of first appearance, buckets likewise within a
 * partition, files in manifest order.
 */
static bool
order_files(ts_plan *plan, const ts_manifest_entry **files, int nfiles, ts_err *err)
{
	ordered_file *of = ts_malloc(sizeof(ordered_file) * (size_t) nfiles);
	int			i,
				j;

	if (of == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory building splits");
	for (i = 0; i < nfiles; i++)
	{
		of[i].e = files[i];
		of[i].idx = i;
	}
	qsort(of, (size_t) nfiles, sizeof(*of), cmp_by_group);
	for (i = 0; i < nfiles; i = j)
	{
		int			pfirst = of[i].idx;

		/* one partition: of[i..j) ; entries sorted by bucket, then idx */
		for (j = i; j < nfiles && cmp_partition(of[j].e->partition, of[i].e->partition) == 0; j++)
			if (of[j].idx < pfirst)
				pfirst = of[j].idx;
		for (int k = i; k < j; k++)
		{
			of[k].partition_first = pfirst;
			of[k].group_first = (k > i && of[k].e->bucket == of[k - 1].e->bucket) ?
				of[k - 1].group_first : of[k].idx;
		}
	}
	qsort(of, (size_t) nfiles, sizeof(*of), cmp_by_appearance);
	for (i = 0; i < nfiles; i++)
		files[i] = of[i].e;
	ts_free(of);
	(void) plan;
	return true;
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

bool
scan_build_splits(ts_plan *plan, scan_state *st,
				  const ts_manifest_entry **files, int nfiles,
				  const scan_dv_index *dvs, ts_err *err)
{
	int			i,
				nsplits = 0;

	plan->nsplits = 0;
	plan->splits = NULL;
	if (nfiles == 0)
		return true;
	if (!order_files(plan, files, nfiles, err))
		return false;

	for (i = 0; i < nfiles; i++)
		if (i == 0 || files[i]->bucket != files[i - 1]->bucket ||
			cmp_partition(files[i]->partition, files[i - 1]->partition) != 0)
			nsplits++;
	plan->splits = ts_arena_alloc(&plan->arena, sizeof(ts_split) * (size_t) nsplits);
	if (plan->splits == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory building splits");
	memset(plan->splits, 0, sizeof(ts_split) * (size_t) nsplits);

	for (i = 0; i < nfiles;)
	{
		ts_split   *split = &plan->splits[plan->nsplits];
		int			j = i,
					k;

		while (j < nfiles && files[j]->bucket == files[i]->bucket &&
			   cmp_partition(files[j]->partition, files[i]->partition) == 0)
			j++;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		split->partition = files[i]->partition;
		split->bucket = files[i]->bucket;
		split->total_buckets = files[i]->total_buckets;
		if (!scan_partition_decode(plan, st, split->partition, &split->partition_values, err))
			return false;
		split->nfiles = j - i;
		split->files = ts_arena_alloc(&plan->arena, sizeof(ts_scan_file) * (size_t) split->nfiles);
		if (split->files == NULL)
			return ts_error(err, TS_ERR_NOMEM, "out of memory building splits");
		memset(split->files, 0, sizeof(ts_scan_file) * (size_t) split->nfiles);
		for (k = 0; k < split->nfiles; k++)
		{
			ts_scan_file *f = &split->files[k];
			const ts_manifest_entry *e = files[i + k];

			f->entry = e;
			if (e->total_buckets > split->total_buckets)
				split->total_buckets = e->total_buckets;
			if (!scan_data_file_path(plan, st, e, &f->path, err))
				return false;
			f->format = scan_format_from_file_name(e->file.file_name);
			f->dv_cardinality = -1;
			scan_dv_lookup(dvs, e, f);
		}
		split->raw_convertible = plan->kind == TS_TABLE_APPEND ? true :
			pk_raw_convertible(st, split);
		plan->nsplits++;
		i = j;
	}
	return true;
}
