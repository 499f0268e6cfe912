/*
 * split_window.c - the small data files of a scan's next splits, fetched
 * whole and together before their readers open them.
 *
 * Owns: choosing the window (whole splits from the one about to be read,
 * while every file of each is a small object of known size, or one of up
 * to 32 MiB that the scan reads whole anyway (ts_read_whole_file_max: every
 * column, nothing that leaves a row group out; not under a LIMIT), within
 * the bounds of read.c's per-split window and a LIMIT's rows) and moving it
 * along the splits.  The split reader (read.c) then finds those files in
 * the registry (base/prefetch.c) and sends no request for them: a table of
 * many one-file splits costs a round trip per window, not one per split.
 * A window's requests are started, not waited for: they move on while the
 * scan decodes (base/s3_batch.c, ts_s3_drive at each batch), and a file
 * is waited for alone when its reader opens it (ts_prefetch_find).  The
 * window after it is started the same way at once, so that its files are
 * on their way while the first window's are decoded (a scan of two
 * windows waits for the network once, not once per window): at most two
 * windows' bytes are held (or in flight); the one after them starts when
 * the scan moves into the second.  The window's sets are the caller's (freed with
 * ts_split_window_free once the readers of its splits are closed).  A
 * parallel scan's process does not know which splits it takes next: it
 * fetches the files of the tasks it has claimed (ts_split_window_fetch,
 * fdw/scan_rows.c).
 * The files read by ranges (larger, or not a scan that reads them whole)
 * have their ends and first chunks fetched ahead instead (ends_ahead.c).
 * The window also holds the splits' side files (ts_side_files: the
 * deletion vectors' index files, each once, and the sidecar file indexes
 * read before their data files are opened), so that a table with deletion
 * vectors or sidecar indexes does not pay a round trip (and a HEAD) per
 * index file either.
 */
#include <string.h>

#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "format/format.h"
#include "read/read_internal.h"

/*
 * Are all files of the split objects of known size a window of max_each
 * fetches (ts_read_file_fetched_whole)?  Their bytes and rows added.  (A
 * path that cannot be built: no, its open says why.)
 */
static bool
split_fits(const ts_plan *plan, const ts_split *split, int64_t max_each, int64_t *bytes,
		   int64_t *rows)
{
	for (int i = 0; i < split->nfiles; i++)
	{
		const ts_scan_file *f = &split->files[i];
		const char *path = ts_scan_file_path(plan, f, NULL);

		if (!ts_read_file_fetched_whole(plan, f, max_each) || path == NULL ||
			!ts_fs_path_is_remote(plan->fs, path))
			return false;
		*bytes += f->entry->file.file_size;
		*rows += f->entry->file.row_count > 0 ? f->entry->file.row_count : 0;
	}
	return true;
}

int
ts_split_window_size(const ts_plan *plan, const ts_split *splits, int nsplits, int from,
					 int64_t row_limit, int max_files, int64_t max_each, int64_t max_bytes)
{
	int64_t		bytes = 0;
	int64_t		rows = 0;
	int			files = 0;
	int			k = 0;

	for (int s = from; s >= 0 && s < nsplits; s++)
	{
		int64_t		b = 0;
		int64_t		r = 0;

		if (!split_fits(plan, &splits[s], max_each, &b, &r) || files + splits[s].nfiles > max_files ||
			bytes + b > max_bytes)
			break;
		files += splits[s].nfiles;
		bytes += b;
		rows += r;
		k++;
		if (row_limit >= 0 && rows >= row_limit)
			break;				/* enough rows for the LIMIT */
	}
	return k;
}

int
ts_side_files(ts_fs *fs, const ts_plan *plan, const ts_scan_file *files, int n, int64_t max_each,
			  int64_t max_bytes, int64_t *bytes, const char **paths, int64_t *sizes, int npaths,
			  int max_paths)
{
	for (int i = 0; i < n && npaths < max_paths; i++)
	{
		const ts_scan_file *f = &files[i];
		bool		have = false;

		/* the sidecar file index, read just before the file (one per file) */
		if (ts_read_file_index_wants_sidecar(plan, f) && ts_fs_path_is_remote(fs, f->index_path))
		{
			if (sizes)
				sizes[npaths] = -1;
			paths[npaths++] = f->index_path;
			if (npaths >= max_paths)
				break;
		}
		if (f->dv_path == NULL || !ts_fs_path_is_remote(fs, f->dv_path) || f->dv_file_size <= 0 ||
			f->dv_file_size > max_each)
			continue;
		for (int k = 0; k < npaths && !have; k++)
			have = strcmp(paths[k], f->dv_path) == 0;
		if (have || *bytes + f->dv_file_size > max_bytes)
			continue;
		*bytes += f->dv_file_size;
		if (sizes)
			sizes[npaths] = f->dv_file_size;
		paths[npaths++] = f->dv_path;
	}
	return npaths;
}

/*
 * The set of the small files of splits[0..k-1] (paths of a split with a
 * file that does not fit skipped): fetched (wait) or started.  NULL with
 * err->code TS_OK when there is nothing to fetch.
 */
static ts_prefetch *
window_set(ts_plan *plan, const ts_split *const *splits, int k, int64_t file_max, bool wait,
		   ts_err *err)
{
	const char **paths;
	int64_t    *sizes;
	int			n = 0;
	int64_t		side_bytes = 0;
	ts_prefetch *set;

	paths = ts_malloc(sizeof(char *) * TS_PREFETCH_WINDOW_FILES * 3);
	sizes = ts_malloc(sizeof(int64_t) * TS_PREFETCH_WINDOW_FILES * 3);
	if (paths == NULL || sizes == NULL)
	{
		ts_free(paths);
		ts_free(sizes);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < k; i++)
	{
		int64_t		b = 0;
		int64_t		r = 0;

		if (!split_fits(plan, splits[i], file_max, &b, &r) ||
			n + splits[i]->nfiles > TS_PREFETCH_WINDOW_FILES)
			continue;
		for (int f = 0; f < splits[i]->nfiles; f++)
		{
			sizes[n] = splits[i]->files[f].entry->file.file_size;	/* split_fits: known */
			paths[n++] = ts_scan_file_path(plan, &splits[i]->files[f], NULL);	/* split_fits: built */
		}
	}
	/*
	 * their side files: a sidecar index and a deletion vector file per
	 * file at most, the latter TS_PREFETCH_WINDOW_BYTES more at most
	 */
	for (int i = 0; i < k; i++)
		n = ts_side_files(plan->fs, plan, splits[i]->files, splits[i]->nfiles, TS_PREFETCH_FILE_MAX,
						  TS_PREFETCH_WINDOW_BYTES, &side_bytes, paths, sizes, n,
						  TS_PREFETCH_WINDOW_FILES * 3);
	if (n == 0)
	{
		ts_free(paths);
		ts_free(sizes);
		return NULL;
	}
	/* the sizes the manifests give: a body of another length is refused */
	set = wait ? ts_prefetch_objects_sized(plan->fs, paths, sizes, n, err) :
		ts_prefetch_start_sized(plan->fs, paths, sizes, n, err);
	ts_free(paths);
	ts_free(sizes);
	return set;
}

/* The window of plan's splits [s, s + k): fetched (wait) or started. */
static ts_prefetch *
plan_window_set(ts_plan *plan, int s, int k, int64_t file_max, bool wait, ts_err *err)
{
	const ts_split **splits = ts_malloc(sizeof(ts_split *) * (size_t) (k > 0 ? k : 1));
	ts_prefetch *set;

	if (splits == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < k; i++)
		splits[i] = &plan->splits[s + i];
	set = window_set(plan, splits, k, file_max, wait, err);
	ts_free(splits);
	return set;
}

/*
 * Start the window after w's, unless there is one or a LIMIT (which the
 * first window serves).
 */
static bool
start_ahead(ts_split_window *w, ts_plan *plan, int64_t row_limit, ts_err *err)
{
	int			k;

	if (w->ahead != NULL || row_limit >= 0 || plan == NULL || w->end >= plan->nsplits ||
		w->ahead_end > w->end)
		return true;
	k = ts_split_window_size(plan, plan->splits, plan->nsplits, w->end, -1,
							 TS_PREFETCH_WINDOW_FILES, w->file_max, TS_PREFETCH_WINDOW_BYTES);
	w->ahead_start = w->end;
	w->ahead_end = w->end + (k > 0 ? k : 1);	/* tried: not again for this window */
	if (k == 0)
		return true;
	w->ahead = plan_window_set(plan, w->end, k, w->file_max, false, err);
	return w->ahead != NULL || err->code == TS_OK;
}

/* ts_split_window_move's window of whole files (its ends apart) */
static bool
move_window(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit, ts_err *err)
{
	int			k;

	if (s >= w->start && s < w->end)
		return start_ahead(w, plan, row_limit, err);	/* in the window already */
	ts_prefetch_free(w->set);
	w->set = NULL;
	if (w->ahead != NULL && s == w->ahead_start)
	{
		/* the window started ahead: its files are waited for as they are opened */
		w->set = w->ahead;
		w->ahead = NULL;
		w->start = w->ahead_start;
		w->end = w->ahead_end;
	}
	else
	{
		ts_prefetch_free(w->ahead);
		w->ahead = NULL;
		w->ahead_start = w->ahead_end = 0;
		w->start = s;
		w->end = s + 1;
		if (plan == NULL || s < 0 || s >= plan->nsplits)
			return true;
		k = ts_split_window_size(plan, plan->splits, plan->nsplits, s, row_limit,
								 TS_PREFETCH_WINDOW_FILES, w->file_max, TS_PREFETCH_WINDOW_BYTES);
		if (k == 0)
			return true;		/* the split reader fetches what it can by itself */
		w->set = plan_window_set(plan, s, k, w->file_max, false, err);
		if (w->set == NULL && err->code != TS_OK)
			return false;
		w->end = s + k;
	}
	return start_ahead(w, plan, row_limit, err);
}

bool
ts_split_window_move(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit,
					 int64_t file_max, ts_err *err)
{
	/* a LIMIT may stop in a file's first row group: only small files whole */
	w->file_max = row_limit >= 0 || file_max < TS_PREFETCH_FILE_MAX ? TS_PREFETCH_FILE_MAX : file_max;
	return move_window(w, plan, s, row_limit, err) &&
		ts_split_window_move_ends(w, plan, s, row_limit, err);
}

ts_prefetch *
ts_split_window_fetch(ts_plan *plan, const ts_split *const *splits, int n, int64_t file_max,
					  bool wait, ts_err *err)
{
	int64_t		bytes = 0;
	int			files = 0;
	int			k = 0;

	/* the leading splits within the window's bounds */
	for (; k < n; k++)
	{
		int64_t		b = 0;
		int64_t		r = 0;

		if (!split_fits(plan, splits[k], file_max, &b, &r))
			continue;			/* read by its reader */
		if (files + splits[k]->nfiles > TS_PREFETCH_WINDOW_FILES ||
			bytes + b > TS_PREFETCH_WINDOW_BYTES)
			break;
		files += splits[k]->nfiles;
		bytes += b;
	}
	return window_set(plan, splits, k, file_max, wait, err);
}

void
ts_split_window_free(ts_split_window *w)
{
	ts_prefetch_free(w->set);
	ts_prefetch_free(w->ahead);
	ts_split_window_free_ends(w);
	memset(w, 0, sizeof(*w));
}
