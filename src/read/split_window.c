/*
 * split_window.c - the small data files of a scan's next splits, fetched
 * whole and together before their readers open them.
 *
 * Owns: choosing the window (whole splits from the one about to be read,
 * while every file of each is a small object of known size, within the
 * bounds of read.c's per-split window and a LIMIT's rows) and moving it
 * along the splits.  The split reader (read.c) then finds those files in
 * the registry (base/prefetch.c) and sends no request for them: a table of
 * many one-file splits costs a round trip per window, not one per split.
 * The window's set is the caller's (freed with ts_split_window_free once
 * the readers of its splits are closed).  A parallel scan's process does
 * not know which splits it takes next: it uses no window.  The window
 * also holds the splits' side files (ts_side_files: the deletion vectors'
 * index files, each once), so that a table with deletion vectors does not
 * pay a round trip (and a HEAD) per index file either.
 */
#include <string.h>

#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "read/read.h"

/* Are all files of the split small objects of known size?  Their bytes and rows added. */
static bool
split_fits(const ts_split *split, int64_t max_each, int64_t *bytes, int64_t *rows)
{
	for (int i = 0; i < split->nfiles; i++)
	{
		const ts_scan_file *f = &split->files[i];

		if (f->entry == NULL || f->range_end > 0 || !ts_uri_is_object(f->path) ||
			f->entry->file.file_size <= 0 || f->entry->file.file_size > max_each)
			return false;
		*bytes += f->entry->file.file_size;
		*rows += f->entry->file.row_count > 0 ? f->entry->file.row_count : 0;
	}
	return true;
}

int
ts_split_window_size(const ts_split *splits, int nsplits, int from, int64_t row_limit,
					 int max_files, int64_t max_each, int64_t max_bytes)
{
	int64_t		bytes = 0;
	int64_t		rows = 0;
	int			files = 0;
	int			k = 0;

	for (int s = from; s >= 0 && s < nsplits; s++)
	{
		int64_t		b = 0;
		int64_t		r = 0;

		if (!split_fits(&splits[s], max_each, &b, &r) || files + splits[s].nfiles > max_files ||
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
ts_side_files(const ts_scan_file *files, int n, int64_t max_each, int64_t max_bytes,
			  int64_t *bytes, const char **paths, int npaths, int max_paths)
{
	for (int i = 0; i < n && npaths < max_paths; i++)
	{
		const ts_scan_file *f = &files[i];
		bool		have = false;

		if (f->dv_path == NULL || !ts_uri_is_object(f->dv_path) || f->dv_file_size <= 0 ||
			f->dv_file_size > max_each)
			continue;
		for (int k = 0; k < npaths && !have; k++)
			have = strcmp(paths[k], f->dv_path) == 0;
		if (have || *bytes + f->dv_file_size > max_bytes)
			continue;
		*bytes += f->dv_file_size;
		paths[npaths++] = f->dv_path;
	}
	return npaths;
}

bool
ts_split_window_move(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit, ts_err *err)
{
	const char **paths;
	int			k;
	int			n = 0;
	int64_t		side_bytes = 0;

	if (s >= w->start && s < w->end)
		return true;			/* in the window already */
	ts_split_window_free(w);
	w->start = s;
	w->end = s + 1;
	if (plan == NULL || s < 0 || s >= plan->nsplits)
		return true;
	k = ts_split_window_size(plan->splits, plan->nsplits, s, row_limit,
							 TS_PREFETCH_WINDOW_FILES, TS_PREFETCH_FILE_MAX,
							 TS_PREFETCH_WINDOW_BYTES);
	if (k == 0)
		return true;			/* the split reader fetches what it can by itself */
	paths = ts_malloc(sizeof(char *) * TS_PREFETCH_WINDOW_FILES * 2);
	if (paths == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory");
	for (int i = s; i < s + k; i++)
		for (int f = 0; f < plan->splits[i].nfiles; f++)
			paths[n++] = plan->splits[i].files[f].path;
	/* their side files: as many more, TS_PREFETCH_WINDOW_BYTES more at most */
	for (int i = s; i < s + k; i++)
		n = ts_side_files(plan->splits[i].files, plan->splits[i].nfiles, TS_PREFETCH_FILE_MAX,
						  TS_PREFETCH_WINDOW_BYTES, &side_bytes, paths, n,
						  TS_PREFETCH_WINDOW_FILES * 2);
	ts_plan_enter(plan);		/* the table's scope and storage settings */
	w->set = ts_prefetch_objects(paths, n, err);
	ts_free(paths);
	if (w->set == NULL)
		return false;
	w->end = s + k;
	return true;
}

void
ts_split_window_free(ts_split_window *w)
{
	ts_prefetch_free(w->set);
	memset(w, 0, sizeof(*w));
}
