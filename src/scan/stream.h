/*
 * stream.h - following a table's changes (stream.c): where a stream starts
 * per scan.mode and how far one bounded batch goes.
 */
#ifndef TS_STREAM_H
#define TS_STREAM_H

#include "scan/scan.h"

/*
 * Internal option of the reads of a stream (never a user's: the option
 * validator refuses keys Paimon does not define): the files of the range
 * are read unmerged, as Java reads streaming splits.
 */
#define TS_OPT_STREAM_UNMERGED "tablescan.stream-unmerged"

/*
 * Internal option of the read of a stream's full start (set by
 * src/fdw/changes.c only): the snapshot is read as Java's streaming starting
 * scanner reads it, without the level-0 skip of batch scans (first-row and
 * deletion-vector tables) and, with changelog-producer lookup, only levels
 * above 0, with full-compaction only the top level (scan_stream_full_start).
 */
#define TS_OPT_STREAM_FULL_START "tablescan.stream-full-start"

/*
 * Paimon's option: a stream over an append table reads the files an
 * OVERWRITE snapshot added (the rows it removed are not retracted; a file
 * it both removed and added is not read), as Java's DataTableStreamScan
 * with streaming-read-append-overwrite.
 */
#define TS_OPT_STREAM_APPEND_OVERWRITE "streaming-read-append-overwrite"

/*
 * Paimon's option: a stream over a primary-key table reads each OVERWRITE
 * snapshot as the rows it removed (-D) and the rows it added, as Java's
 * OverwriteFollowUpScanner and IncrementalChangelogReadProvider do.
 */
#define TS_OPT_STREAM_READ_OVERWRITE "streaming-read-overwrite"

/*
 * Internal option of a stream's read of one OVERWRITE snapshot (set by
 * src/fdw/changes.c only, with incremental-between 'S-1,S'): the plan of
 * that snapshot's changes (incremental_diff.c, merge.c).
 */
#define TS_OPT_STREAM_OVERWRITE "tablescan.stream-overwrite"

/* The starting options of a stream (NULL: not set). */
typedef struct ts_stream_options
{
	const char *mode;				/* scan.mode */
	const char *snapshot_id;		/* scan.snapshot-id */
	const char *timestamp_millis;	/* scan.timestamp-millis */
} ts_stream_options;

typedef struct ts_stream_start_result
{
	const char *mode;			/* the mode resolved (default -> ...) */
	bool		started;		/* false: no snapshot to start from yet */
	int64_t		full_snapshot;	/* > 0: first read all of this snapshot */
	int64_t		next;			/* then follow from this snapshot on */
} ts_stream_start_result;

/* Refuse tables a stream cannot follow exactly as Java's would. */
bool		ts_stream_check_table(const ts_plan *plan, ts_err *err);

/* Does a stream over this table read its OVERWRITE snapshots' changes? */
bool		ts_stream_reads_overwrite(const ts_plan *plan);

/*
 * The first OVERWRITE snapshot in from..to, *found 0 when none is; used
 * when ts_stream_reads_overwrite, to read those snapshots apart.
 */
bool		ts_stream_next_overwrite(const ts_plan *plan, int64_t from, int64_t to,
									 int64_t *found, ts_err *err);

/* The starting scanner of so->mode (Java's, WRITES-AND-STREAMS.md §5.2). */
bool		ts_stream_start(const ts_plan *plan, const ts_stream_options *so,
							ts_stream_start_result *out, ts_err *err);

/*
 * The last snapshot of the batch that starts at 'next': latest, or fewer
 * when max_snapshots > 0; next - 1 when nothing is new.  A next snapshot
 * before the earliest one has expired: TS_ERR_NOT_FOUND saying so.
 */
bool		ts_stream_batch(const ts_plan *plan, int64_t next, int64_t max_snapshots,
							int64_t *end, ts_err *err);

#endif							/* TS_STREAM_H */
