/*
 * row_id_prune.c - keep only the data files that hold wanted row ids.
 *
 * Owns: applying ts_scan_context.row_ids (quals on _ROW_ID, paimon-cpp's
 * ScanContextBuilder::SetGlobalIndexResult) and the row ids the global
 * indexes allow (global_index.c, per partition) to the splits of a
 * row-tracking append table, as Java's DataEvolutionFileStoreScan /
 * AppendOnlyFileStoreScan do with row ranges: a file's row ids are
 * [_FIRST_ROW_ID, _FIRST_ROW_ID + row count).
 * Files are kept or dropped by row-id group (files whose ranges overlap,
 * as data_evolution.c reads them together: a data-evolution group's data
 * and BLOB files stay together), so the reader always sees whole groups.
 * A file without _FIRST_ROW_ID is always kept.  Each split kept keeps the
 * row ids wanted of its files (ts_split.row_ids, the quals' set AND the
 * global index's, cut to the split's file ranges, in the plan's arena):
 * the readers read only those rows' positions (src/read/row_id_selection.c).
 * Both are optimizations only: the executor rechecks the quals, so the
 * rows returned never change.
 */
#include <stdlib.h>
#include <string.h>

#include "scan/row_ids.h"
#include "scan/scan_internal.h"

typedef struct file_range
{
	int64_t		from;
	int64_t		to;				/* inclusive; from - 1 for an empty file */
	int			index;			/* in the split */
} file_range;

static int
cmp_file_range(const void *a, const void *b)
{
	const file_range *x = a,
			   *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Mark the files of one split to keep; returns how many are kept. */
static int
mark_split(const ts_split *s, const ts_row_ids *ids, const ts_row_ids *gids, file_range *fr,
		   bool *keep)
{
	int			n = 0,
				kept = 0;

	for (int i = 0; i < s->nfiles; i++)
	{
		const ts_data_file_meta *m = s->files[i].entry ? &s->files[i].entry->file : NULL;

		keep[i] = m == NULL || !m->has_first_row_id || m->row_count < 0 ||
			m->first_row_id > INT64_MAX - m->row_count;
		if (!keep[i])
		{
			fr[n].from = m->first_row_id;
			fr[n].to = m->first_row_id + m->row_count - 1;
			fr[n].index = i;
			n++;
		}
	}
	qsort(fr, n, sizeof(*fr), cmp_file_range);
	for (int i = 0; i < n;)
	{
		int64_t		from = fr[i].from,
					to = fr[i].to;
		int			j = i + 1;
		bool		any;

		/* a group: the files whose ranges overlap (data_evolution.c) */
		while (j < n && fr[j].from <= to)
		{
			if (fr[j].to > to)
				to = fr[j].to;
			j++;
		}
		any = (ids == NULL || ts_row_ids_overlaps(ids, from, to)) &&
			(gids == NULL || ts_row_ids_overlaps(gids, from, to));
		for (int k = i; k < j; k++)
			keep[fr[k].index] = any;
		i = j;
	}
	for (int i = 0; i < s->nfiles; i++)
		kept += keep[i];
	return kept;
}

/*
 * sp->row_ids: ids AND gids (either NULL = all) within the row-id ranges
 * of the split's files, copied into the plan's arena (so that all splits
 * together hold about the wanted ids once, however many splits there are).
 * Left NULL when no file of the split has a usable range.
 */
static bool
keep_split_row_ids(ts_plan *plan, ts_split *sp, const ts_row_ids *ids, const ts_row_ids *gids,
				   ts_err *err)
{
	ts_row_range *fr;
	int			n = 0;
	ts_row_ids	files,
				a = {0},
				b = {0},
				both;
	ts_row_ids *out;
	bool		ok;

	sp->row_ids = NULL;
	fr = ts_malloc(sizeof(*fr) * (size_t) (sp->nfiles > 0 ? sp->nfiles : 1));
	if (fr == NULL)
		return ts_error_nomem(err, "row-id ranges");
	for (int i = 0; i < sp->nfiles; i++)
	{
		const ts_manifest_entry *e = sp->files[i].entry;

		if (e == NULL || !e->file.has_first_row_id || e->file.row_count <= 0 ||
			e->file.first_row_id > INT64_MAX - e->file.row_count)
			continue;			/* such a file is read whole (row_id_selection.c) */
		fr[n].from = e->file.first_row_id;
		fr[n].to = e->file.first_row_id + e->file.row_count - 1;
		n++;
	}
	ok = ts_row_ids_from_ranges(fr, n, &files, err);
	ts_free(fr);
	if (!ok)
		return false;
	if (n == 0)
	{
		ts_row_ids_free(&files);
		return true;
	}
	/* each set cut to the files' ranges first: small, whatever the sets' size */
	ok = ts_row_ids_clip(ids ? ids : &files, files.ranges, files.n, &a, err) &&
		ts_row_ids_clip(gids ? gids : &files, files.ranges, files.n, &b, err) &&
		ts_row_ids_intersect(&a, &b, &both, err);
	ts_row_ids_free(&files);
	ts_row_ids_free(&a);
	ts_row_ids_free(&b);
	if (!ok)
		return false;
	out = ts_arena_alloc(&plan->arena, sizeof(*out));
	if (out)
	{
		*out = both;
		out->ranges = both.n ? ts_arena_dup(&plan->arena, both.ranges,
											sizeof(ts_row_range) * both.n) : NULL;
	}
	ts_row_ids_free(&both);
	if (out == NULL || (out->n > 0 && out->ranges == NULL))
		return ts_error_nomem(err, "row-id ranges");
	sp->row_ids = out;
	return true;
}

bool
scan_row_ids_prune(ts_plan *plan, const ts_scan_context *ctx, const scan_gi_result *gi,
				   ts_err *err)
{
	const ts_row_ids *ids = ctx->row_ids;
	int			maxfiles = 0,
				out = 0;
	file_range *fr;
	bool	   *keep;

	if (ids != NULL && ids->all)
		ids = NULL;
	if ((ids == NULL && (gi == NULL || gi->nparts == 0)) || plan->kind != TS_TABLE_APPEND ||
		!(plan->core.row_tracking || plan->core.data_evolution))
		return true;
	if (ids == NULL)
		goto prune;
	/*
	 * What EXPLAIN counts: the wanted ids a file of the plan can hold, from
	 * 0 to the end of the highest file range (snapshots' nextRowId is not
	 * reliable: Java wrote 0 into some with rows).
	 */
	{
		ts_row_range possible = {0, -1};
		ts_row_ids	bound,
					clipped;

		for (int s = 0; s < plan->nsplits; s++)
			for (int i = 0; i < plan->splits[s].nfiles; i++)
			{
				const ts_manifest_entry *e = plan->splits[s].files[i].entry;

				if (e == NULL || !e->file.has_first_row_id || e->file.row_count < 0 ||
					e->file.first_row_id > INT64_MAX - e->file.row_count)
					possible.to = INT64_MAX;
				else if (e->file.first_row_id + e->file.row_count - 1 > possible.to)
					possible.to = e->file.first_row_id + e->file.row_count - 1;
			}
		if (!ts_row_ids_from_ranges(&possible, 1, &bound, err))
			return false;
		if (!ts_row_ids_intersect(ids, &bound, &clipped, err))
		{
			ts_row_ids_free(&bound);
			return false;
		}
		plan->row_ids_used = true;
		plan->row_ids_count = ts_row_ids_count(&clipped);
		plan->row_id_ranges = clipped.n;
		ts_row_ids_free(&bound);
		ts_row_ids_free(&clipped);
	}
prune:
	for (int s = 0; s < plan->nsplits; s++)
		if (plan->splits[s].nfiles > maxfiles)
			maxfiles = plan->splits[s].nfiles;
	fr = ts_malloc(sizeof(*fr) * (size_t) (maxfiles ? maxfiles : 1));
	keep = ts_malloc(sizeof(*keep) * (size_t) (maxfiles ? maxfiles : 1));
	if (fr == NULL || keep == NULL)
	{
		ts_free(fr);
		ts_free(keep);
		return ts_error_nomem(err, "row-id pruning");
	}
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split   *sp = &plan->splits[s];
		const ts_row_ids *gids = scan_global_index_ids(gi, sp->partition);
		int			kept,
					k = 0;

		if ((s & 255) == 255 && !TS_CHECK_INTERRUPTS(err))
		{
			ts_free(fr);
			ts_free(keep);
			return false;
		}
		if (ids == NULL && gids == NULL)
		{
			plan->splits[out++] = *sp;
			continue;
		}
		kept = mark_split(sp, ids, gids, fr, keep);
		plan->metrics.files_pruned_row_id += sp->nfiles - kept;
		plan->metrics.files_kept -= sp->nfiles - kept;
		for (int i = 0; i < sp->nfiles; i++)
			if (keep[i])
				sp->files[k++] = sp->files[i];
		sp->nfiles = k;
		if (k > 0 && !keep_split_row_ids(plan, sp, ids, gids, err))
		{
			ts_free(fr);
			ts_free(keep);
			return false;
		}
		if (k > 0)
			plan->splits[out++] = *sp;
	}
	plan->nsplits = out;
	ts_free(fr);
	ts_free(keep);
	return true;
}
