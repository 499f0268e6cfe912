/*
 * stream.c - where a stream over a table starts and how far one batch of
 * it goes, as Java's DataTableStreamScan decides (WRITES-AND-STREAMS.md §5).
 *
 * Owns: the starting scanners of scan.mode (latest-full / full / default,
 * latest, from-snapshot, from-snapshot-full, from-timestamp,
 * compacted-full), the check that a follower's next snapshot has not
 * expired, the end of a bounded batch, the files a full start reads
 * (scan_stream_full_start: all levels of first-row and deletion-vector
 * tables, only some of lookup / full-compaction tables), the OVERWRITE
 * snapshots a stream with streaming-read-overwrite (primary-key tables) or
 * streaming-read-append-overwrite (append tables) reads apart (their
 * changes: incremental_diff.c), and the refusals of what a stream cannot
 * yet read exactly as Java would (delayed or bounded reading).
 * The rows of a batch are read by the incremental path (incremental.c:
 * the ADD files of the APPEND snapshots of the range, which is what Java's
 * DeltaFollowUpScanner plans, or with a changelog producer the changelog
 * files of its snapshots, ChangelogFollowUpScanner's), unmerged as Java
 * reads streaming splits (TS_OPT_STREAM_UNMERGED), or, for a full start,
 * by a batch read of one snapshot.  No
 * PostgreSQL here: the consumer's position is kept by src/fdw/changes.c.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan/scan_internal.h"
#include "scan/stream.h"

static bool
is_mode(const char *mode, const char *name)
{
	return mode != NULL && strcasecmp(mode, name) == 0;
}

/* Integer option key, dflt when unset or not an integer (the validator checked it). */
static int64_t
option_int(const ts_plan *plan, const char *key, int64_t dflt)
{
	const char *v = ts_plan_option(plan, key);
	char	   *end;
	long long	n;

	if (v == NULL)
		return dflt;
	n = strtoll(v, &end, 10);
	return end == v || *end != '\0' ? dflt : n;
}

/*
 * A stream's full start, as Java's DataTableStreamScan plans it: no batch
 * level-0 skip (first-row and deletion-vector tables merge their level-0
 * files), and the level filter createFollowUpScanner sets on the snapshot
 * reader: levels > 0 with changelog-producer lookup, only the top level
 * (num-levels - 1, num-levels defaulting to
 * num-sorted-run.compaction-trigger + 1) with full-compaction, because the
 * other files' rows come later as changelog.
 */
void
scan_stream_full_start(const ts_plan *plan, scan_state *st)
{
	const char *producer = ts_plan_option(plan, TS_OPT_CHANGELOG_PRODUCER);

	st->skip_level0 = false;
	if (is_mode(producer, "lookup"))
		st->level_min = 1;
	else if (is_mode(producer, "full-compaction"))
	{
		int64_t		levels = option_int(plan, "num-levels",
										option_int(plan, "num-sorted-run.compaction-trigger", 5) + 1);

		st->level_min = st->level_max = (int32_t) (levels - 1);
	}
}

bool
ts_stream_check_table(const ts_plan *plan, ts_err *err)
{
	static const char *const refused[] = {
		"streaming.read.snapshot.delay", "scan.bounded.watermark",
		"scan.file-creation-time-millis", "scan.creation-time-millis", NULL
	};
	const char *producer = ts_plan_option(plan, TS_OPT_CHANGELOG_PRODUCER);

	if (plan->kind == TS_TABLE_FORMAT)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": a format table has no snapshots to follow",
						plan->table_path);
	if (producer && strcasecmp(producer, "none") != 0 && strcasecmp(producer, "input") != 0 &&
		strcasecmp(producer, "lookup") != 0 && strcasecmp(producer, "full-compaction") != 0)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": following changes of tables with changelog-producer \"%s\" is not supported",
						plan->table_path, producer);
	/* append tables read an overwrite's added files */
	if (scan_option_bool(plan, TS_OPT_STREAM_APPEND_OVERWRITE, false) &&
		plan->kind != TS_TABLE_APPEND)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": following changes with option %s is not supported on primary-key tables",
						plan->table_path, TS_OPT_STREAM_APPEND_OVERWRITE);
	if (scan_option_bool(plan, TS_OPT_STREAM_READ_OVERWRITE, false))
	{
		/* Java refuses both in SchemaValidation */
		if (plan->kind != TS_TABLE_PRIMARY_KEY)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"table \"%s\": option %s needs a primary-key table (append tables: %s)",
							plan->table_path, TS_OPT_STREAM_READ_OVERWRITE,
							TS_OPT_STREAM_APPEND_OVERWRITE);
		if (producer && (strcasecmp(producer, "lookup") == 0 ||
						 strcasecmp(producer, "full-compaction") == 0))
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"table \"%s\": option %s cannot be used with changelog-producer \"%s\" (the overwrite's changes would be read twice)",
							plan->table_path, TS_OPT_STREAM_READ_OVERWRITE, producer);
	}
	for (int i = 0; refused[i]; i++)
	{
		const char *v = ts_plan_option(plan, refused[i]);

		if (v != NULL && strcasecmp(v, "false") != 0)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"table \"%s\": following changes with option %s is not supported yet",
							plan->table_path, refused[i]);
	}
	return true;
}

bool
ts_stream_reads_overwrite(const ts_plan *plan)
{
	if (plan->kind == TS_TABLE_APPEND)
		return scan_option_bool(plan, TS_OPT_STREAM_APPEND_OVERWRITE, false);
	return plan->kind == TS_TABLE_PRIMARY_KEY &&
		scan_option_bool(plan, TS_OPT_STREAM_READ_OVERWRITE, false);
}

/*
 * The first snapshot of commit kind `kind` going from `from` to `to` (either
 * direction, ids > 0 only), *found 0 when none is.
 */
static bool
find_commit_kind(const ts_plan *plan, int64_t from, int64_t to, const char *kind,
				 int64_t *found, ts_err *err)
{
	int64_t		step = from <= to ? 1 : -1;

	*found = 0;
	for (int64_t id = from; id > 0 && (step > 0 ? id <= to : id >= to); id += step)
	{
		ts_snapshot *s;
		bool		match;

		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		s = ts_snapshot_load(plan->fs, plan->branch_root, id, err);
		if (s == NULL)
			return false;
		match = s->commit_kind && strcmp(s->commit_kind, kind) == 0;
		ts_snapshot_free(s);
		if (match)
		{
			*found = id;
			return true;
		}
	}
	return true;
}

bool
ts_stream_next_overwrite(const ts_plan *plan, int64_t from, int64_t to, int64_t *found,
						 ts_err *err)
{
	return find_commit_kind(plan, from, to, "OVERWRITE", found, err);
}

/* The newest COMPACT snapshot at or before latest, else latest. */
static bool
latest_compact(const ts_plan *plan, int64_t earliest, int64_t latest, int64_t *out,
			   ts_err *err)
{
	if (!find_commit_kind(plan, latest, earliest, "COMPACT", out, err))
		return false;
	if (*out == 0)
		*out = latest;
	return true;
}

static bool
parse_id(const char *key, const char *v, int64_t *out, ts_err *err)
{
	char	   *end;
	long long	n;

	if (v == NULL)
		return ts_error(err, TS_ERR_INVALID, "scan.mode needs option %s", key);
	n = strtoll(v, &end, 10);
	if (end == v || *end != '\0')
		return ts_error(err, TS_ERR_INVALID, "invalid value for option %s: \"%s\"", key, v);
	*out = n;
	return true;
}

bool
ts_stream_start(const ts_plan *plan, const ts_stream_options *so, ts_stream_start_result *out,
				ts_err *err)
{
	const char *mode = so->mode;
	int64_t		earliest,
				latest,
				v;

	memset(out, 0, sizeof(*out));
	if (mode == NULL || is_mode(mode, "default"))
		mode = so->snapshot_id ? "from-snapshot" :
			so->timestamp_millis ? "from-timestamp" : "latest-full";
	if (is_mode(mode, "full"))
		mode = "latest-full";
	out->mode = mode;
	if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, err))
		return false;
	if (is_mode(mode, "latest"))
	{
		/* no initial data; the next snapshot is the one after latest */
		out->started = true;
		out->next = latest + 1;
		return true;
	}
	if (is_mode(mode, "from-snapshot") || is_mode(mode, "from-snapshot-full"))
	{
		bool		full = is_mode(mode, "from-snapshot-full");

		if (!parse_id(TS_OPT_SCAN_SNAPSHOT_ID, so->snapshot_id, &v, err))
			return false;
		if (v <= 0)
			return ts_error(err, TS_ERR_INVALID,
							"invalid value for option scan.snapshot-id: \"%s\" (expected a positive integer)",
							so->snapshot_id);
		if (latest > 0 && v < earliest)
			v = earliest;		/* as Java: max(id, earliest) */
		if (!full)
		{
			/* snapshot v's own changes are the first ones read */
			out->started = true;
			out->next = v;
			return true;
		}
		if (latest == 0 || v > latest)
			return true;		/* nothing to scan yet: start on a later call */
		out->started = true;
		out->full_snapshot = v;
		out->next = v + 1;
		return true;
	}
	if (is_mode(mode, "from-timestamp"))
	{
		ts_snapshot *first;
		int64_t		found;
		bool		first_after;

		if (!parse_id(TS_OPT_SCAN_TIMESTAMP_MILLIS, so->timestamp_millis, &v, err))
			return false;
		out->started = true;
		if (latest == 0)
		{
			out->next = 1;
			return true;
		}
		first = ts_snapshot_load(plan->fs, plan->branch_root, earliest, err);
		if (first == NULL)
			return false;
		first_after = first->time_millis >= v;
		ts_snapshot_free(first);
		if (first_after)
		{
			out->next = earliest;
			return true;
		}
		/* the newest snapshot committed strictly before v, then the next */
		if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, v - 1, &found, err))
			return false;
		out->next = (found == 0 ? earliest - 1 : found) + 1;
		return true;
	}
	if (is_mode(mode, "latest-full") || is_mode(mode, "compacted-full"))
	{
		if (latest == 0)
			return true;		/* no snapshot yet: start on a later call */
		v = latest;
		if (is_mode(mode, "compacted-full") &&
			!latest_compact(plan, earliest, latest, &v, err))
			return false;
		out->started = true;
		out->full_snapshot = v;
		out->next = v + 1;
		return true;
	}
	return ts_error(err, TS_ERR_UNSUPPORTED,
					"scan.mode \"%s\" is not supported for following changes (latest-full, latest, from-snapshot, from-snapshot-full, from-timestamp and compacted-full are)",
					mode);
}

bool
ts_stream_batch(const ts_plan *plan, int64_t next, int64_t max_snapshots, int64_t *end,
				ts_err *err)
{
	int64_t		earliest,
				latest;

	if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, err))
		return false;
	*end = next - 1;
	if (latest == 0 || next > latest)
		return true;			/* nothing new */
	if (next < earliest)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"table \"%s\": snapshot %lld, the next one to read, has expired (the earliest snapshot is %lld); changes in between are lost",
						plan->table_path, (long long) next, (long long) earliest);
	*end = latest;
	if (max_snapshots > 0 && latest - next + 1 > max_snapshots)
		*end = next + max_snapshots - 1;
	return true;
}
