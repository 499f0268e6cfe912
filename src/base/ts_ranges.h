/*
 * ts_ranges.h - planning the reads of many byte ranges (pure, no I/O).
 *
 * Owns: coalescing the ranges one reader needs of a file (the column
 * chunks of a row group) into fewer, larger requests, and choosing how
 * many of the next files of a scan are fetched whole at once.  Used for
 * object stores, where a request costs a round trip and a few hundred
 * kilobytes more of one answer cost less than another request.
 */
#ifndef TS_RANGES_H
#define TS_RANGES_H

#include "base/ts_base.h"

/* One range a reader wants: len bytes at offset into buf. */
typedef struct ts_range
{
	int64_t		offset;
	size_t		len;
	void	   *buf;
} ts_range;

/* One request covering the ranges order[first .. first+count-1]. */
typedef struct ts_range_run
{
	int64_t		offset;
	int64_t		len;
	int			first;
	int			count;
} ts_range_run;

/*
 * Ranges closer than this are read by one request (the bytes between are
 * read and dropped): at ~100 MB/s 1 MiB costs ~10 ms, less than a request
 * to a distant store.  A run grows to TS_RANGE_MAX_RUN bytes at most (a
 * single range larger than that is one run of its own), so large row
 * groups still go out as several concurrent requests.
 */
#define TS_RANGE_GAP ((int64_t) 1 << 20)
#define TS_RANGE_MAX_RUN ((int64_t) 16 << 20)

/*
 * Sort the n ranges by offset into order[] (indexes into ranges; stable for
 * equal offsets) and group neighbours into runs: the next range joins the
 * run when it starts at most max_gap bytes after the run's end (overlaps
 * included) and the run stays within max_run bytes.  Empty ranges are left
 * out.  Returns the number of runs written to runs[] (at most n).
 */
int			ts_ranges_coalesce(const ts_range *ranges, int n, int64_t max_gap, int64_t max_run,
							   int *order, ts_range_run *runs);

/*
 * Files of a scan fetched whole, together, when the first of them is
 * opened (prefetch.c): each at most TS_PREFETCH_FILE_MAX bytes, the window
 * at most TS_PREFETCH_WINDOW_BYTES and TS_PREFETCH_WINDOW_FILES files.
 * Larger files are read by ranges.
 */
#define TS_PREFETCH_FILE_MAX ((int64_t) 8 << 20)
#define TS_PREFETCH_WINDOW_BYTES ((int64_t) 64 << 20)
#define TS_PREFETCH_WINDOW_FILES 64

/*
 * A file read by ranges on an object store (a large Parquet or ORC file):
 * the row groups / stripes after the current one are requested together,
 * as many as fit in TS_RANGE_AHEAD_BYTES of projected bytes (always the
 * next one), so that a file of N of them waits for about 1 + N / K round
 * trips, not N.  Memory: the current one and this many bytes ahead.
 */
#define TS_RANGE_AHEAD_BYTES ((int64_t) 32 << 20)

/*
 * Manifests of a plan fetched together (scan/live_files.c): started at
 * once, decoded in order as each comes in, within TS_PREFETCH_WINDOW_BYTES
 * by the sizes the manifest lists give.
 */
#define TS_MANIFEST_WINDOW_FILES 1024

/*
 * How many of the n next files (sizes[i] < 0: unknown or not an object)
 * to fetch together: from the first on, while each has a known size of at
 * most max_each and the total stays within max_total, at most max_count;
 * 0 when the first one is not such a file.
 */
int			ts_prefetch_window(const int64_t *sizes, int n, int64_t max_each, int64_t max_total,
							   int max_count);

#endif							/* TS_RANGES_H */
