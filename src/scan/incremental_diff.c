/*
 * incremental_diff.c - incremental-between-scan-mode 'diff': the files the
 * end snapshot has and the start snapshot has not.
 *
 * Owns: the snapshot pair of a diff read, as Java's
 * AbstractDataTableScan / IncrementalDiffStartingScanner choose it (ids:
 * start <= end, start == end or no snapshot at all is an empty read, both
 * snapshots must exist; timestamps: the newest snapshot committed at or
 * before each, else the earliest for the start and the latest for the
 * end), the refusal of a bucket count that differs between their schemas
 * (TimeTravelUtil.checkRescaleBucketForIncrementalDiffQuery), and the file
 * set SnapshotReaderImpl.readIncrementalDiff plans: the live files of both
 * snapshots (ScanMode.ALL, with the batch scan's level-0 rule), per
 * (partition, bucket), minus the files both hold.  Append tables read the
 * end's remaining files with the end's deletion vectors and ignore the
 * start's (RawFileSplitRead reads only a split's data files): the rows of
 * the files added in between, deleted rows never show.  Primary-key tables
 * keep both sides, the start's files marked (ts_scan_file.diff_before), in
 * one split per partition and bucket, which merge.c merges per side and
 * compares per key (IncrementalDiffSplitRead): each side merges only the
 * files the other lacks, so a change hidden by a shared file does not show
 * (Java's diff is not a comparison of the two full states).  Any merge
 * engine; refused with deletion vectors (each side would need its own
 * snapshot's vectors).
 *
 * Also the plan of a stream's read of one OVERWRITE snapshot
 * (streaming-read-overwrite on a primary-key table,
 * streaming-read-append-overwrite on an append table), as Java's
 * SnapshotReaderImpl.readChanges plans it: the snapshot's delta entries per
 * partition and bucket, the DELETE ones the "before" side (marked as a
 * diff's start files are), minus the files both removed and added (its
 * "deduplicate": such a file is read by neither side); with
 * deletion-vectors.enabled the added files carry the snapshot's deletion
 * vectors and the removed ones those of the snapshot before it (the
 * previous index manifest).  merge.c reads the before side merged as -D
 * rows and the added files merged (IncrementalChangelogReadProvider), or
 * unmerged in a bucket the overwrite only added to.  An append table reads
 * only the added files (its raw read takes a split's data files alone).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan_internal.h"
#include "scan/stream.h"

static int64_t
bucket_option(const ts_schema *s)
{
	const char *v = ts_schema_option(s, "bucket");

	return v ? strtoll(v, NULL, 10) : -1;
}

/* Java's rescale check: both schemas' bucket options must agree. */
static bool
check_same_buckets(ts_plan *plan, const ts_snapshot *start, const ts_snapshot *end, ts_err *err)
{
	const ts_schema *a,
			   *b;

	if (start->schema_id == end->schema_id)
		return true;
	if ((a = ts_plan_schema(plan, start->schema_id, err)) == NULL ||
		(b = ts_plan_schema(plan, end->schema_id, err)) == NULL)
		return false;
	if (bucket_option(a) != bucket_option(b))
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": incremental diff between snapshots %lld and %lld is not supported: their bucket numbers differ (%lld, %lld)",
						plan->table_path, (long long) start->id, (long long) end->id,
						(long long) bucket_option(a), (long long) bucket_option(b));
	return true;
}

bool
scan_incremental_diff_range(ts_plan *plan, bool by_timestamp, int64_t a, int64_t b,
							int64_t earliest, int64_t latest, const char *opt,
							const char *val, ts_err *err)
{
	int64_t		start = a,
				end = b;
	ts_snapshot *s;
	bool		ok;

	plan->diff = true;
	plan->snapshot = NULL;
	plan->incremental_start = 0;
	if (by_timestamp)
	{
		int64_t		found;

		if (a > b)
			return ts_error(err, TS_ERR_INVALID,
							"%s \"%s\": the start must not be after the end", opt, val);
		if (latest <= 0)
			return true;
		if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, a, &found, err))
			return false;
		start = found == 0 ? earliest : found;
		if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, b, &found, err))
			return false;
		end = found == 0 ? latest : found;
	}
	else if (end < start)
		return ts_error(err, TS_ERR_INVALID,
						"%s \"%s\": the ending snapshot %lld must not be before the starting snapshot %lld",
						opt, val, (long long) end, (long long) start);
	plan->incremental_start = start;
	if (latest <= 0 || start == end)
		return true;			/* nothing can differ */
	if (start < earliest || end > latest)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"%s \"%s\" of table \"%s\": a diff reads snapshots %lld and %lld, but the table has snapshots %lld to %lld",
						opt, val, plan->table_path, (long long) start, (long long) end,
						(long long) earliest, (long long) latest);
	if ((s = ts_snapshot_load(plan->fs, plan->branch_root, start, err)) == NULL)
		return false;
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, end, err);
	ok = plan->snapshot != NULL && check_same_buckets(plan, s, plan->snapshot, err);
	ts_snapshot_free(s);
	return ok;
}

static int
cmp_entry_name(const void *pa, const void *pb)
{
	const ts_manifest_entry *a = *(const ts_manifest_entry *const *) pa;
	const ts_manifest_entry *b = *(const ts_manifest_entry *const *) pb;

	return strcmp(a->file.file_name ? a->file.file_name : "",
				  b->file.file_name ? b->file.file_name : "");
}

/*
 * The index of an entry of sorted (by name) for the same file as e and not
 * yet taken (used: NULL, or one flag per entry), else -1.
 */
static int
find_same(const ts_manifest_entry *e, const ts_manifest_entry **sorted, int n, const bool *used)
{
	const char *name = e->file.file_name ? e->file.file_name : "";
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const char *m = sorted[mid]->file.file_name ? sorted[mid]->file.file_name : "";

		if (strcmp(m, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n; lo++)
	{
		const ts_manifest_entry *s = sorted[lo];

		if (strcmp(s->file.file_name ? s->file.file_name : "", name) != 0)
			break;
		if (scan_entry_same_file(s, e) && s->total_buckets == e->total_buckets &&
			(used == NULL || !used[lo]))
			return lo;
	}
	return -1;
}

/* Is e (an entry of the end snapshot) also one of the start's (sorted)? */
static bool
in_start(const ts_manifest_entry *e, const ts_manifest_entry **sorted, int n)
{
	return find_same(e, sorted, n, NULL) >= 0;
}

static int
cmp_address(const void *pa, const void *pb)
{
	uintptr_t	a = (uintptr_t) *(const ts_manifest_entry *const *) pa;
	uintptr_t	b = (uintptr_t) *(const ts_manifest_entry *const *) pb;

	return a < b ? -1 : a > b;
}

/* A copy of n entries (plan arena) sorted by file name. */
static const ts_manifest_entry **
sorted_by_name(ts_plan *plan, const ts_manifest_entry **e, int n, ts_err *err)
{
	const ts_manifest_entry **s = ts_arena_alloc(&plan->arena, sizeof(*s) * (size_t) (n ? n : 1));

	if (s == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (n)
		memcpy(s, e, sizeof(*s) * (size_t) n);
	qsort(s, (size_t) n, sizeof(*s), cmp_entry_name);
	return s;
}

bool
scan_incremental_diff_files(ts_plan *plan, scan_state *st,
							const ts_manifest_entry ***live, int *nlive, ts_err *err)
{
	ts_snapshot *end = plan->snapshot;
	const ts_manifest_entry **after = NULL,
			  **before = NULL,
			  **sorted_before,
			  **sorted_after = NULL,
			  **out,
			  **mine;
	int			nafter = 0,
				nbefore = 0,
				n = 0,
				nmine = 0;
	bool		pk = plan->kind == TS_TABLE_PRIMARY_KEY;
	bool		ok;

	*live = NULL;
	*nlive = 0;
	if (pk && st->dv_enabled)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": incremental-between-scan-mode diff on primary-key tables with deletion vectors is not supported (Java's diff there drops a file both snapshots hold even when its deletion vector changed: apache/paimon issue 11257)",
						plan->table_path);
	if (!scan_read_live_files(plan, st, &after, &nafter, err))
		return false;
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, plan->incremental_start, err);
	ok = plan->snapshot != NULL && scan_read_live_files(plan, st, &before, &nbefore, err);
	ts_snapshot_free(plan->snapshot);
	plan->snapshot = end;
	if (!ok)
		return false;
	if ((sorted_before = sorted_by_name(plan, before, nbefore, err)) == NULL ||
		(pk && (sorted_after = sorted_by_name(plan, after, nafter, err)) == NULL))
		return false;
	out = ts_arena_alloc(&plan->arena, sizeof(*out) * (size_t) (nafter + nbefore + 1));
	mine = ts_arena_alloc(&plan->arena, sizeof(*mine) * (size_t) (nbefore + 1));
	if (out == NULL || mine == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < nafter; i++)
	{
		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
		if (!in_start(after[i], sorted_before, nbefore))
			out[n++] = after[i];
	}
	/* primary-key tables: the start's files the end has not, merged apart */
	for (int i = 0; pk && i < nbefore; i++)
	{
		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
		if (!in_start(before[i], sorted_after, nafter))
			mine[nmine++] = out[n++] = before[i];
	}
	qsort(mine, (size_t) nmine, sizeof(*mine), cmp_address);
	st->diff_before = mine;
	st->ndiff_before = nmine;
	*live = out;
	*nlive = n;
	return true;
}

void
scan_incremental_diff_mark(ts_plan *plan, const scan_state *st)
{
	for (int s = 0; s < plan->nsplits && st->ndiff_before > 0; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			const ts_manifest_entry *e = plan->splits[s].files[f].entry;

			plan->splits[s].files[f].diff_before =
				bsearch(&e, st->diff_before, (size_t) st->ndiff_before, sizeof(e),
						cmp_address) != NULL;
		}
}

bool
scan_incremental_overwrite_range(ts_plan *plan, int64_t a, int64_t b, ts_err *err)
{
	bool		overwrite;

	plan->incremental = plan->diff = plan->overwrite = true;
	plan->changelog = plan->unmerged = false;
	plan->incremental_start = a;
	if (a != b - 1)
		return ts_error(err, TS_ERR_INVALID,
						"the changes of an overwrite are read one snapshot at a time (got %lld,%lld)",
						(long long) a, (long long) b);
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, b, err);
	if (plan->snapshot == NULL)
		return false;
	overwrite = plan->snapshot->commit_kind &&
		strcmp(plan->snapshot->commit_kind, "OVERWRITE") == 0;
	if (!overwrite)
		return ts_error(err, TS_ERR_INVALID,
						"snapshot %lld of table \"%s\" is not an OVERWRITE snapshot",
						(long long) b, plan->table_path);
	return true;
}

bool
scan_incremental_overwrite_files(ts_plan *plan, scan_state *st,
								 const ts_manifest_entry ***files, int *nfiles, ts_err *err)
{
	const ts_manifest_entry **in = *files,
			  **added,
			  **removed,
			  **out,
			  **mine;
	int			nadded = 0,
				nremoved = 0,
				n = 0,
				nmine = 0;
	bool	   *used;

	added = ts_arena_alloc(&plan->arena, sizeof(*added) * (size_t) (*nfiles + 1));
	removed = ts_arena_alloc(&plan->arena, sizeof(*removed) * (size_t) (*nfiles + 1));
	out = ts_arena_alloc(&plan->arena, sizeof(*out) * (size_t) (*nfiles + 1));
	mine = ts_arena_alloc(&plan->arena, sizeof(*mine) * (size_t) (*nfiles + 1));
	used = ts_arena_alloc(&plan->arena, sizeof(*used) * (size_t) (*nfiles + 1));
	if (added == NULL || removed == NULL || out == NULL || mine == NULL || used == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < *nfiles; i++)
	{
		if (in[i]->kind == TS_FILE_ADD)
			added[nadded++] = in[i];
		else
			removed[nremoved++] = in[i];
	}
	qsort(removed, (size_t) nremoved, sizeof(*removed), cmp_entry_name);
	memset(used, 0, sizeof(*used) * (size_t) (nremoved + 1));
	/*
	 * a file both removed and added takes no part (Java's deduplicate), even
	 * if its deletion vector changed (as in Java's diff, issue 11257; Java's
	 * overwrites never re-add a file)
	 */
	for (int i = 0; i < nadded; i++)
	{
		int			same;

		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
		same = find_same(added[i], removed, nremoved, used);
		if (same >= 0)
			used[same] = true;
		else
			out[n++] = added[i];
	}
	/* an append table's read takes the added files alone */
	for (int i = 0; i < nremoved && plan->kind != TS_TABLE_APPEND; i++)
		if (!used[i])
			mine[nmine++] = out[n++] = removed[i];
	qsort(mine, (size_t) nmine, sizeof(*mine), cmp_address);
	st->diff_before = mine;
	st->ndiff_before = nmine;
	*files = out;
	*nfiles = n;
	return true;
}

/*
 * The removed files of an overwrite read with the deletion vectors of the
 * snapshot before it (Java's beforeDeletionFiles: the index manifest of
 * snapshot s - 1); the splits were built with snapshot s's.
 */
bool
scan_incremental_overwrite_before_dvs(ts_plan *plan, scan_state *st, ts_err *err)
{
	ts_snapshot *end = plan->snapshot;
	scan_dv_index *before = NULL;
	bool		ok;

	if (st->ndiff_before == 0)
		return true;
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, plan->incremental_start, err);
	ok = plan->snapshot != NULL && scan_dv_load(plan, st, &before, err);
	ts_snapshot_free(plan->snapshot);
	plan->snapshot = end;
	if (!ok)
		return false;
	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			ts_scan_file *file = &plan->splits[s].files[f];

			if (!file->diff_before)
				continue;
			file->dv_path = NULL;
			file->dv_offset = file->dv_length = file->dv_file_size = 0;
			file->dv_cardinality = -1;
			scan_dv_lookup(before, file->entry, file);
		}
	return true;
}
