/*
 * incremental.c - incremental reads: the rows added between two snapshots.
 *
 * Owns: the options incremental-between = 'S1,S2' and
 * incremental-between-timestamp = 'T1,T2', as Java's
 * IncrementalDeltaStartingScanner plans them in batch mode with
 * incremental-between-scan-mode = auto (= delta for append tables and for
 * primary-key tables without a changelog producer) or delta: the range is
 * start-exclusive and end-inclusive, start may be earliest - 1, and the
 * files are the ADD entries of the delta manifest lists of the APPEND
 * snapshots S1+1 .. S2 (COMPACT and OVERWRITE snapshots add no new rows
 * and are skipped; a stream over a primary-key table with
 * streaming-read-overwrite, or over an append table with
 * streaming-read-append-overwrite, reads each OVERWRITE snapshot alone,
 * taking its ADD and DELETE entries, see incremental_diff.c).  Timestamps map to the newest snapshot committed at or
 * before them (start: earliest - 1 when none is; end: latest when none
 * is).  On primary-key tables those files (level 0, written by APPEND
 * commits) form one split per partition and bucket, which merge.c merges
 * by key keeping -U/-D results as rows (Java's forceKeepDelete, as its
 * audit_log table reads them); each row's kind is the system column
 * _ROW_KIND.  Tables with deletion vectors are read so only under
 * 'deletion-vectors.merge-on-read' = 'true': that is when Java's batch scan
 * reads level-0 files (CoreOptions.batchScanSkipLevel0; the level filter
 * of DataTableBatchScan also applies to the delta manifests
 * IncrementalDeltaStartingScanner reads: AbstractFileStoreScan's entry row
 * filter), and the splits then carry no deletion vectors, as Java's do
 * not.  It is also what a Java stream reads for each APPEND snapshot
 * (DataTableStreamScan sets no level filter; its delta splits are read
 * unmerged, equal to this read when no key repeats in the range).  Without
 * merge-on-read, and on first-row tables, the level filter hides level 0 as
 * in Java: only files of higher levels that APPEND snapshots added are read
 * (Java writers add none; the read is then empty, as Java's).  Every merge
 * engine merges so, over the range's files only (Java's batch splits of
 * IncrementalStartingScanner read by MergeFileSplitRead): partial-update
 * gives the columns the range set, aggregation the aggregate of the
 * range's records, each key's result a -D row where Java's merge function
 * returns DELETE (merge_engine.c).
 * Tag ranges fail closed; scan mode diff is incremental_diff.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan/scan_internal.h"
#include "scan/stream.h"

static bool
parse_i64(const char *s, const char *end, int64_t *out)
{
	char		buf[32];
	char	   *e;
	size_t		n;
	long long	v;

	while (s < end && isspace((unsigned char) *s))
		s++;
	while (end > s && isspace((unsigned char) end[-1]))
		end--;
	n = (size_t) (end - s);
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (size_t i = (buf[0] == '-'); i < n; i++)
		if (!isdigit((unsigned char) buf[i]))
			return false;
	errno = 0;
	v = strtoll(buf, &e, 10);
	if (errno != 0 || *e != '\0')
		return false;
	*out = v;
	return true;
}

/* "A,B" into two integers; false if not that shape. */
static bool
parse_pair(const char *v, int64_t *a, int64_t *b)
{
	const char *comma = strchr(v, ',');

	if (comma == NULL || strchr(comma + 1, ',') != NULL)
		return false;
	return parse_i64(v, comma, a) && parse_i64(comma + 1, comma + strlen(comma), b);
}

/*
 * Scan mode changelog: explicitly, or auto on a table with a changelog
 * producer (Java's toSnapshotScanMode).
 */
static bool
scan_incremental_reads_changelog(const ts_plan *plan)
{
	const char *mode = ts_plan_option(plan, TS_OPT_INCREMENTAL_BETWEEN_SCAN_MODE);
	const char *producer = ts_plan_option(plan, TS_OPT_CHANGELOG_PRODUCER);

	if (mode && strcasecmp(mode, "changelog") == 0)
		return true;
	return (mode == NULL || strcasecmp(mode, "auto") == 0) &&
		producer && strcasecmp(producer, "none") != 0 && plan->kind == TS_TABLE_PRIMARY_KEY;
}

bool
scan_incremental_choose(ts_plan *plan, bool *handled, ts_err *err)
{
	static const char *const exclusive[] = {
		TS_OPT_SCAN_SNAPSHOT_ID, TS_OPT_SCAN_TAG_NAME, TS_OPT_SCAN_TIMESTAMP_MILLIS,
		TS_OPT_SCAN_TIMESTAMP, TS_OPT_SCAN_WATERMARK, TS_OPT_SCAN_VERSION, NULL
	};
	const char *between = ts_plan_option(plan, TS_OPT_INCREMENTAL_BETWEEN);
	const char *between_ts = ts_plan_option(plan, TS_OPT_INCREMENTAL_BETWEEN_TIMESTAMP);
	const char *mode = ts_plan_option(plan, TS_OPT_INCREMENTAL_BETWEEN_SCAN_MODE);
	const char *opt = between ? "incremental-between" : "incremental-between-timestamp";
	const char *val = between ? between : between_ts;
	int64_t		earliest,
				latest,
				a,
				b,
				start,
				end;

	*handled = false;
	if (between == NULL && between_ts == NULL)
		return true;
	*handled = true;
	if (between && between_ts)
		return ts_error(err, TS_ERR_INVALID,
						"only one of incremental-between and incremental-between-timestamp may be set");
	for (int i = 0; exclusive[i]; i++)
		if (ts_plan_option(plan, exclusive[i]) != NULL)
			return ts_error(err, TS_ERR_INVALID, "%s cannot be combined with %s",
							opt, exclusive[i]);
	if (mode && strcasecmp(mode, "auto") != 0 && strcasecmp(mode, "delta") != 0 &&
		strcasecmp(mode, "changelog") != 0 && strcasecmp(mode, "diff") != 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "incremental-between-scan-mode \"%s\" is not supported (auto, delta, changelog and diff are)",
				 mode);
		return ts_error_hint(err, "Set incremental-between-scan-mode to 'delta' (the files the snapshots added), 'changelog' (their changelog files), 'diff' (what differs between the two snapshots) or leave it unset.");
	}
	if (!parse_pair(val, &a, &b))
	{
		if (between && strchr(val, ',') != NULL)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"incremental-between \"%s\": ranges of tags are not supported yet (give two snapshot ids)",
							val);
		return ts_error(err, TS_ERR_INVALID,
						"invalid value for option %s: \"%s\" (expected \"%s\")", opt, val,
						between ? "start-snapshot-id,end-snapshot-id" :
						"start-epoch-millis,end-epoch-millis");
	}

	plan->incremental = true;
	plan->changelog = scan_incremental_reads_changelog(plan);
	plan->unmerged = plan->changelog || scan_option_bool(plan, TS_OPT_STREAM_UNMERGED, false);
	if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, err))
		return false;
	if (scan_option_bool(plan, TS_OPT_STREAM_OVERWRITE, false))
		return scan_incremental_overwrite_range(plan, a, b, err);
	if (mode && strcasecmp(mode, "diff") == 0)
	{
		plan->changelog = plan->unmerged = false;
		return scan_incremental_diff_range(plan, between == NULL, a, b, earliest, latest,
										   opt, val, err);
	}
	if (latest <= 0)
	{
		plan->snapshot = NULL;	/* no snapshot yet: nothing was added */
		plan->incremental_start = 0;
		return true;
	}
	if (between)
	{
		start = a;
		end = b;
	}
	else
	{
		ts_snapshot *first;
		int64_t		found;

		if (a > b)
			return ts_error(err, TS_ERR_INVALID,
							"incremental-between-timestamp \"%s\": the start must not be after the end", val);
		first = ts_snapshot_load(plan->fs, plan->branch_root, earliest, err);
		if (first == NULL)
			return false;
		if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, a, &found, err))
		{
			ts_snapshot_free(first);
			return false;
		}
		start = (found == 0 || first->time_millis > a) ? earliest - 1 : found;
		ts_snapshot_free(first);
		if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, b, &found, err))
			return false;
		end = found == 0 ? latest : found;
	}
	if (start > end)
		return ts_error(err, TS_ERR_INVALID,
						"%s \"%s\": starting snapshot %lld must not be after ending snapshot %lld",
						opt, val, (long long) start, (long long) end);
	if (start < earliest - 1 || end > latest)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"%s \"%s\" of table \"%s\": snapshot range (%lld, %lld] is out of the available snapshots %lld to %lld",
						opt, val, plan->table_path, (long long) start, (long long) end,
						(long long) earliest, (long long) latest);
	plan->incremental_start = start;
	if (end < earliest)
	{
		/* (earliest-1, earliest-1]: empty range before every snapshot */
		plan->snapshot = NULL;
		return true;
	}
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, end, err);
	return plan->snapshot != NULL;
}

bool
scan_read_incremental_files(ts_plan *plan, scan_state *st,
							const ts_manifest_entry ***files, int *nfiles, ts_err *err)
{
	const ts_manifest_entry **out = NULL;
	size_t		nout = 0,
				cap = 0;
	bool		ok = false;

	*files = NULL;
	*nfiles = 0;
	for (int64_t id = plan->incremental_start + 1; id <= plan->snapshot->id; id++)
	{
		ts_snapshot *s;
		ts_manifest_file_meta *manifests = NULL;
		int			nmanifests = 0,
					mcap = 0;
		const char *list;
		bool		append,
					overwrite = false;

		if (!TS_CHECK_INTERRUPTS(err))
			goto done;
		s = ts_snapshot_load(plan->fs, plan->branch_root, id, err);
		if (s == NULL)
		{
			ts_error_context(err, "incremental read of table \"%s\"", plan->table_path);
			goto done;
		}
		if (plan->changelog)
		{
			/* the changelog of every snapshot but overwrites, where it has one */
			list = s->changelog_manifest_list;
			append = list != NULL && !(s->commit_kind && strcmp(s->commit_kind, "OVERWRITE") == 0);
		}
		else
		{
			list = s->delta_manifest_list;
			append = s->commit_kind && strcmp(s->commit_kind, "APPEND") == 0;
			/* a stream's read of one overwrite's changes: its ADD and DELETE entries */
			overwrite = s->commit_kind && strcmp(s->commit_kind, "OVERWRITE") == 0 &&
				plan->overwrite;
			append = append || overwrite;
		}
		if (append &&
			!scan_read_manifest_list(plan, list, id, &manifests,
									 &nmanifests, &mcap, err))
		{
			ts_snapshot_free(s);
			ts_free(manifests);
			goto done;
		}
		ts_snapshot_free(s);
		for (int i = 0; i < nmanifests; i++)
		{
			const ts_manifest_file_meta *m = &manifests[i];
			ts_manifest_entry *me;
			char	   *path;
			int			n;

			if (!scan_check_file_name(plan, "manifest file", m->file_name, NULL))
			{
				ts_error(err, TS_ERR_CORRUPT, "snapshot %lld: invalid manifest file name \"%s\"",
						 (long long) id, m->file_name);
				ts_free(manifests);
				goto done;
			}
			path = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path, m->file_name);
			if (path == NULL || !ts_manifest_read(plan->fs, path, &plan->arena, &me, &n, err))
			{
				if (path == NULL)
					ts_error_nomem(err, NULL);
				else
					ts_error_context(err, "snapshot %lld", (long long) id);
				ts_free(manifests);
				goto done;
			}
			plan->metrics.manifests_read++;
			plan->metrics.entries_read += n;
			if (nout + (size_t) n > cap)
			{
				size_t		ncap = (nout + (size_t) n) * 2 + 16;
				const ts_manifest_entry **na = ts_realloc(out, sizeof(*out) * ncap);

				if (na == NULL)
				{
					ts_error_nomem(err, "collecting delta files");
					ts_free(manifests);
					goto done;
				}
				out = na;
				cap = ncap;
			}
			for (int j = 0; j < n; j++)
			{
				if (me[j].kind != TS_FILE_ADD && overwrite)
				{
					out[nout++] = &me[j];	/* incremental_diff.c pairs them */
					continue;
				}
				if (me[j].kind != TS_FILE_ADD)
				{
					ts_error(err, TS_ERR_CORRUPT,
							 "snapshot %lld of table \"%s\": %s manifest \"%s\" holds a DELETE entry (file \"%s\"); incremental reads expect only ADD entries",
							 (long long) id, plan->table_path,
							 plan->changelog ? "changelog" : "delta", m->file_name,
							 me[j].file.file_name ? me[j].file.file_name : "?");
					ts_free(manifests);
					goto done;
				}
				out[nout++] = &me[j];
			}
		}
		ts_free(manifests);
	}
	if (nout > (size_t) INT32_MAX)
	{
		ts_error(err, TS_ERR_NOMEM, "too many delta files");
		goto done;
	}
	{
		const ts_manifest_entry **arr = ts_arena_alloc(&plan->arena, sizeof(*out) * (nout ? nout : 1));

		if (arr == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
		if (nout)
			memcpy(arr, out, sizeof(*out) * nout);
		*files = arr;
	}
	*nfiles = (int) nout;
	ok = true;
done:
	ts_free(out);
	return ok;
}
