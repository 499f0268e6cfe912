/*
 * ends_ahead.c - the ends and the first chunks of a serial scan's next
 * files read by ranges, fetched before their readers open them.
 *
 * Owns: the part of the scan's window (read/split_window.c) for Parquet /
 * ORC objects too large to be fetched whole (or not read whole): their
 * ends, which their readers open them with (the first 1 MiB with the last
 * 256 KiB: ORC's tail, Parquet's footer), requested for a group of the
 * next splits (at most ENDS_FILES files) and for the group after it, so a
 * file opens with no round trip; and then, once a file's ends are in, the
 * bytes the reader of the current file would read first from it
 * (ts_split_reader_ranges_like: a Parquet file's first column chunks; an
 * ORC file's stripe footers, and once those are in, a second look names
 * the streams they list), so that a narrow projection over the next file
 * does not wait for them either.  Those requests are started, not waited
 * for; a reader's reads find their bytes in the registry (base/prefetch.c,
 * asked by fs.c before a request).  Bytes
 * wrongly guessed are only a waste: a reader uses only parts of its own
 * object at the offsets it asks for.  Not under a LIMIT (which may stop
 * in the first file), nor for a scan whose windows take such files whole.
 * Memory: two groups' ends (at most 2 x 16 x 1.25 MiB) and at most
 * TS_RANGE_AHEAD_BYTES of chunks.
 */
#include <string.h>

#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "format/format.h"
#include "read/read_internal.h"

/*
 * The ends of a file read by ranges fetched ahead (ts_prefetch_start_ends):
 * the head its reader asks for with its tail (TS_HEAD_BYTES_DEFAULT) and a
 * tail that covers both readers' (ORC's 256 KiB, Parquet's 64 KiB); at most
 * ENDS_FILES files (~20 MiB) and ENDS_SPLITS splits a group.
 */
#define ENDS_TAIL ((int64_t) 256 << 10)
#define ENDS_FILES 16
#define ENDS_SPLITS 64

/* Chunk ranges named for one file, and parts requested at a time. */
#define CHUNK_RANGES 256
#define CHUNK_PARTS 64

/*
 * Is f a Parquet / ORC file its reader reads by ranges (larger than
 * TS_PREFETCH_FILE_MAX, of known size, not a part), an object at *path?
 */
static bool
read_by_ranges(ts_plan *plan, const ts_scan_file *f, const char **path)
{
	return f->entry != NULL && f->range_end == 0 && f->entry->file.file_size > TS_PREFETCH_FILE_MAX &&
		(f->format == TS_FORMAT_PARQUET || f->format == TS_FORMAT_ORC) &&
		(*path = ts_scan_file_path(plan, f, NULL)) != NULL && ts_fs_path_is_remote(plan->fs, *path);
}

/*
 * How many files of split are read by ranges; the first max of them (and
 * their paths) into files[] and paths[].
 */
static int
files_by_ranges(ts_plan *plan, const ts_split *split, const ts_scan_file **files,
				const char **paths, int max)
{
	int			n = 0;

	for (int i = 0; i < split->nfiles; i++)
	{
		const char *path;

		if (!read_by_ranges(plan, &split->files[i], &path))
			continue;
		if (n < max)
		{
			files[n] = &split->files[i];
			paths[n] = path;
		}
		n++;
	}
	return n;
}

/*
 * The ends of the files read by ranges of the splits from 'from' on (whole
 * splits while they fit in ENDS_FILES files, at least one split, its first
 * ENDS_FILES files), started; *end the split after the group.  NULL with
 * err->code TS_OK when there is none.
 */
static ts_prefetch *
ends_group(ts_plan *plan, int from, int *end, ts_err *err)
{
	const ts_scan_file *files[ENDS_FILES];
	const char *paths[ENDS_FILES];
	int64_t		sizes[ENDS_FILES];
	int			n = 0;
	int			s;

	for (s = from; s < plan->nsplits && s < from + ENDS_SPLITS; s++)
	{
		/* collected after the ones before; counted only when the split fits */
		int			m = files_by_ranges(plan, &plan->splits[s], files + n, paths + n,
										ENDS_FILES - n);

		if (s > from && n + m > ENDS_FILES)
			break;
		n += m < ENDS_FILES - n ? m : ENDS_FILES - n;
	}
	*end = s;
	if (n == 0)
		return NULL;
	for (int i = 0; i < n; i++)
		sizes[i] = files[i]->entry->file.file_size;
	return ts_prefetch_start_ends(plan->fs, paths, sizes, n, TS_HEAD_BYTES_DEFAULT, ENDS_TAIL, err);
}

/* Free the chunk sets of splits before s (all of them: s < 0). */
static void
free_chunks_before(ts_split_window *w, int s)
{
	for (int i = 0; i < TS_CHUNK_SETS; i++)
		if (w->chunks[i] != NULL && (s < 0 || w->chunks_until[i] <= s))
		{
			ts_prefetch_free(w->chunks[i]);
			w->chunks[i] = NULL;
			w->chunks_bytes[i] = 0;
			w->chunks_again[i] = false;
		}
}

bool
ts_split_window_move_ends(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit,
						  ts_err *err)
{
	bool		wanted = plan != NULL && s >= 0 && s < plan->nsplits && row_limit < 0 &&
		w->file_max <= TS_PREFETCH_FILE_MAX;
	bool		next_in_turn = s == w->current + 1 || s == w->current;

	w->current = s;
	if (!next_in_turn || !wanted)
	{
		/* a rescan, a jump: what was fetched ahead is not what comes next */
		free_chunks_before(w, -1);
		w->chunks_next = s + 1;
	}
	else
		free_chunks_before(w, s);
	if (w->chunks_next <= s)
		w->chunks_next = s + 1;
	if (s >= w->ends_start && s < w->ends_end && wanted)
		return true;			/* in the group already */
	ts_prefetch_free(w->ends);
	w->ends = NULL;
	if (w->ends_ahead != NULL && s == w->ends_end && wanted)
	{
		w->ends = w->ends_ahead;	/* its requests went out before */
		w->ends_start = w->ends_end;
		w->ends_end = w->ends_ahead_end;
		w->ends_ahead = NULL;
	}
	else
	{
		ts_prefetch_free(w->ends_ahead);
		w->ends_ahead = NULL;
		w->ends_start = w->ends_end = w->ends_ahead_end = s;
		if (!wanted)
			return true;
		w->ends = ends_group(plan, s, &w->ends_end, err);
		if (w->ends == NULL && err->code != TS_OK)
			return false;
	}
	/* the group after it, started now: its ends come while this one is read */
	w->ends_ahead_end = w->ends_end;
	if (w->ends_end < plan->nsplits)
	{
		w->ends_ahead = ends_group(plan, w->ends_end, &w->ends_ahead_end, err);
		if (w->ends_ahead == NULL && err->code != TS_OK)
			return false;
	}
	return true;
}

/* One object's bytes in the registry, for ts_format_ranges_like (never waits). */
typedef struct held_object
{
	ts_fs	   *fs;
	const char *path;
} held_object;

static const uint8_t *
held_at(void *arg, int64_t offset, size_t len)
{
	const held_object *h = arg;
	const uint8_t *data;

	return ts_prefetch_held_range(h->fs, h->path, offset, len, &data) ? data : NULL;
}

/*
 * What reader would read first of file f (an object at path), named from
 * the file's tail in the ends fetched and what else of it is in, less
 * what is fetched or on its way already, coalesced as a reader's ranges
 * are, added to parts[*n..CHUNK_PARTS) while *bytes stays within budget.
 * False once the bounds are reached.
 */
static bool
add_chunks(const ts_split_reader *reader, ts_plan *plan, const ts_scan_file *f, const char *path,
		   int64_t budget, ts_prefetch_part *parts, int *n, int64_t *bytes)
{
	int64_t		size = f->entry->file.file_size;
	held_object obj = {plan->fs, path};
	ts_held_bytes held = {held_at, &obj};
	const uint8_t *tail;
	ts_range	ranges[CHUNK_RANGES];
	int			order[CHUNK_RANGES];
	ts_range_run runs[CHUNK_RANGES];
	int			k,
				m = 0,
				nruns;

	/* its ends are in (the caller waited, or saw them ready): never a wait here */
	if (!ts_prefetch_held_range(plan->fs, path, size - ENDS_TAIL, (size_t) ENDS_TAIL, &tail))
		return true;			/* its request failed: its reader's own reports why */
	k = ts_split_reader_ranges_like(reader, f, tail, (size_t) ENDS_TAIL, &held, budget - *bytes,
									ranges, CHUNK_RANGES);
	for (int i = 0; i < k; i++)
		if (!ts_prefetch_covers(plan->fs, path, ranges[i].offset, ranges[i].len))
			ranges[m++] = ranges[i];	/* not in an end, nor asked for before */
	nruns = ts_ranges_coalesce(ranges, m, TS_RANGE_GAP, TS_RANGE_MAX_RUN, order, runs);
	for (int i = 0; i < nruns; i++)
	{
		if (*n >= CHUNK_PARTS || *bytes + runs[i].len > budget)
			return false;
		parts[(*n)++] = (ts_prefetch_part) {path, size, runs[i].offset, runs[i].len};
		*bytes += runs[i].len;
	}
	return true;
}

/*
 * add_chunks for the files of split t read by ranges; false once the
 * bounds are reached.  *again: one is ORC (its stripe footers named, its
 * streams to be named once they are in).
 */
static bool
add_split(const ts_split_reader *reader, ts_plan *plan, int t, int64_t budget,
		  ts_prefetch_part *parts, int *n, int64_t *bytes, bool *again)
{
	const ts_scan_file *files[ENDS_FILES];
	const char *paths[ENDS_FILES];
	int			m = files_by_ranges(plan, &plan->splits[t], files, paths, ENDS_FILES);

	for (int i = 0; i < m && i < ENDS_FILES; i++)
	{
		*again |= files[i]->format == TS_FORMAT_ORC;
		if (!add_chunks(reader, plan, files[i], paths[i], budget, parts, n, bytes))
			return false;
	}
	return true;
}

/* The set holding the ends of split t's files, or NULL. */
static ts_prefetch *
ends_of(ts_split_window *w, int t)
{
	if (t >= w->ends_start && t < w->ends_end)
		return w->ends;
	if (t >= w->ends_end && t < w->ends_ahead_end)
		return w->ends_ahead;
	return NULL;
}

bool
ts_split_window_chunks_ahead(ts_split_window *w, ts_plan *plan, const ts_split_reader *reader,
							 bool opened, ts_err *err)
{
	ts_prefetch_part parts[CHUNK_PARTS];
	int			n = 0;
	int64_t		bytes = 0;
	int64_t		budget = TS_RANGE_AHEAD_BYTES;
	int			slot = -1;
	int			from = w->chunks_next;
	bool		room = true;
	bool		again = false;

	if (plan == NULL || reader == NULL)
		return true;
	for (int i = 0; i < TS_CHUNK_SETS; i++)
	{
		budget -= w->chunks_bytes[i];
		if (w->chunks[i] == NULL && slot < 0)
			slot = i;
	}
	if (slot < 0 || budget <= 0)
		return true;			/* when the scan moves past those held */

	/* a second look at the splits of a set now in (ORC: their streams) */
	for (int i = 0; i < TS_CHUNK_SETS && room; i++)
	{
		if (w->chunks[i] == NULL || !w->chunks_again[i] || !ts_prefetch_ready(w->chunks[i]))
			continue;
		w->chunks_again[i] = false;
		for (int t = w->chunks_from[i] > w->current ? w->chunks_from[i] : w->current + 1;
			 t < w->chunks_until[i] && room; t++)
		{
			bool		ignored = false;

			from = t < from ? t : from;
			room = add_split(reader, plan, t, budget, parts, &n, &bytes, &ignored);
		}
	}

	/* the splits not tried yet whose ends are in */
	while (room && w->chunks_next < w->ends_ahead_end)
	{
		int			t = w->chunks_next;
		ts_prefetch *ends = ends_of(w, t);

		if (ends == NULL)
			break;
		if (!ts_prefetch_ready(ends))
		{
			/*
			 * The current split's group was requested at once: once a file of
			 * it is open, the others' ends are in too, or about to be.
			 */
			const ts_scan_file *f;
			const char *path;

			if (!opened || ends != w->ends ||
				files_by_ranges(plan, &plan->splits[w->current], &f, &path, 0) == 0)
				break;
			if (!ts_prefetch_wait(ends, err))
				return false;
		}
		room = add_split(reader, plan, t, budget, parts, &n, &bytes, &again);
		w->chunks_next++;		/* tried: once */
	}
	if (n == 0)
		return true;
	w->chunks[slot] = ts_prefetch_start_parts(plan->fs, parts, n, err);
	if (w->chunks[slot] == NULL)
		return false;
	w->chunks_from[slot] = from;
	w->chunks_until[slot] = w->chunks_next;
	w->chunks_bytes[slot] = bytes;
	w->chunks_again[slot] = again;
	return true;
}

void
ts_split_window_free_ends(ts_split_window *w)
{
	ts_prefetch_free(w->ends);
	ts_prefetch_free(w->ends_ahead);
	w->ends = w->ends_ahead = NULL;
	free_chunks_before(w, -1);
}
