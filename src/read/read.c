/*
 * read.c - the split reader: rows of the read schema from one split.
 *
 * Owns: choosing how a split is read (PAIMON-FORMAT.md 7.4): append and
 * format tables, and raw-convertible primary-key splits, read their files
 * one after the other (deletion vectors applied, retract rows dropped for
 * key-value files); other primary-key splits go through merge-on-read
 * (merge.c); splits of row-tracking / data-evolution append tables, and
 * reads of the system columns, go through data_evolution.c.  Splits of a
 * fallback branch (scan.fallback-branch) are read with that branch's plan.
 * Refuses table features it cannot read correctly.
 */
#include <string.h>

#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "read/read_internal.h"

struct ts_split_reader
{
	ts_plan    *plan;
	const ts_split *split;
	int		   *columns;
	int			ncolumns;
	bool		key_value;		/* primary-key table: files are key-value files */
	ts_merge_reader *merge;		/* merge-on-read, or NULL */
	ts_evolution_reader *evolution; /* row tracking / data evolution, or NULL */
	int			next_file;
	ts_data_file_reader *cur;
	ts_bufpool *buffers;		/* file readers' large buffers, kept between files */
	bool		own_buffers;	/* buffers is ours to free */
	ts_reader_metrics metrics;	/* of closed files */
	ts_reader_metrics snapshot; /* returned by ts_split_reader_metrics */
	ts_prefetch *window;		/* small object files fetched whole ahead */
	int			window_end;		/* first file after the window */
	int64_t		file_max;		/* ... up to this size (ts_read_whole_file_max) */
	ts_prefetch *sizes;			/* the manifests' sizes of its object files: no HEAD */
	ts_split_window *ahead;		/* a serial scan's window (ts_split_reader_set_window), or NULL */
};

/*
 * On an object store, register the sizes the metadata gives for the
 * split's files and their deletion vectors' index files: a file read by
 * ranges (too large to be fetched whole, a parallel task's part) is then
 * opened with no HEAD, and a HEAD that would lie about its size is never
 * asked.  Nothing to register: no set.
 */
static bool
register_sizes(ts_split_reader *r, ts_err *err)
{
	const ts_split *split = r->split;

	for (int i = 0; i < split->nfiles; i++)
	{
		const ts_scan_file *f = &split->files[i];
		const char *path;
		bool		ok = true;

		if (f->entry == NULL || f->entry->file.file_size <= 0)
			continue;
		if ((path = ts_scan_file_path(r->plan, f, err)) == NULL)
			return false;
		if (!(ts_fs_path_caps(r->plan->fs, path) & TS_FS_CAP_REMOTE))
			continue;
		if (r->sizes == NULL && (r->sizes = ts_prefetch_new(r->plan->fs)) == NULL)
			return ts_error_nomem(err, NULL);
		ok = ts_prefetch_add_size(r->sizes, path, f->entry->file.file_size);
		if (ok && f->dv_path != NULL && f->dv_file_size > 0)
			ok = ts_prefetch_add_size(r->sizes, f->dv_path, f->dv_file_size);
		if (!ok)
			return ts_error_nomem(err, NULL);
	}
	return true;
}

/*
 * On an object store, fetch the split's small files from 'from' on whole
 * and concurrently (ts_prefetch_window: each at most TS_PREFETCH_FILE_MAX
 * by the size the manifest gives, or r->file_max for files a scan of every
 * column reads whole anyway, TS_PREFETCH_WINDOW_BYTES in all): one
 * round trip for the lot instead of a HEAD, a footer and the column chunks
 * of each, one after the other.  Files read in byte ranges (a parallel
 * scan's tasks) and larger files are read by ranges as before.  The
 * deletion vectors' index files and sidecar file indexes of those files
 * (of the first one when it is large) come in the same batch
 * (ts_side_files): the window is fetched before the first file's sidecar
 * is read.  Nothing
 * here is an error but a cancel or out of memory: a file that could not be
 * fetched is read (and its failure reported) when opened.
 */
static bool
prefetch_files(ts_split_reader *r, int from, ts_err *err)
{
	const ts_split *split = r->split;
	int			n = split->nfiles - from;
	int64_t    *sizes;
	const char **paths;
	int			k;
	int			m;

	ts_prefetch_free(r->window);
	r->window = NULL;
	r->window_end = from + 1;
	if (n <= 0)
		return true;
	if (n > TS_PREFETCH_WINDOW_FILES)
		n = TS_PREFETCH_WINDOW_FILES;
	/* the window's paths: built now, they are about to be read */
	for (int i = 0; i < n; i++)
		if (ts_scan_file_path(r->plan, &split->files[from + i], err) == NULL)
			return false;
	if (!(ts_fs_path_caps(r->plan->fs, ts_scan_file_path(r->plan, &split->files[from], err)) &
		  TS_FS_CAP_REMOTE))
		return true;
	sizes = ts_malloc(sizeof(int64_t) * (size_t) n * 3);	/* and the side files' */
	paths = ts_malloc(sizeof(char *) * (size_t) n);
	if (sizes == NULL || paths == NULL)
	{
		ts_free(sizes);
		ts_free(paths);
		return ts_error_nomem(err, NULL);
	}
	for (int i = 0; i < n; i++)
	{
		const ts_scan_file *f = &split->files[from + i];

		paths[i] = ts_scan_file_path(r->plan, f, err);	/* built above */
		sizes[i] = ts_read_file_fetched_whole(r->plan, f, r->file_max) &&
			(ts_fs_path_caps(r->plan->fs, paths[i]) & TS_FS_CAP_REMOTE) ?
			f->entry->file.file_size : -1;
	}
	k = ts_prefetch_window(sizes, n, r->file_max, TS_PREFETCH_WINDOW_BYTES,
						   TS_PREFETCH_WINDOW_FILES);
	{
		/* the side files (deletion vectors) of those files, or of the first one */
		int64_t		side_bytes = 0;
		int			nside = k > 0 ? k : 1;
		const char **all = ts_malloc(sizeof(char *) * (size_t) (k + 2 * nside));

		if (all == NULL)
		{
			ts_free(sizes);
			ts_free(paths);
			return ts_error_nomem(err, NULL);
		}
		memcpy(all, paths, sizeof(char *) * (size_t) k);
		ts_free(paths);
		paths = all;
		m = ts_side_files(r->plan->fs, r->plan, &split->files[from], nside, TS_PREFETCH_FILE_MAX,
						  TS_PREFETCH_WINDOW_BYTES, &side_bytes, paths, sizes, k, k + 2 * nside);
	}
	if (m > 0)
	{
		/* the sizes the manifests give: a body of another length is refused */
		r->window = ts_prefetch_objects_sized(r->plan->fs, paths, sizes, m, err);
		if (r->window == NULL)
		{
			ts_free(sizes);
			ts_free(paths);
			return false;
		}
		if (k > 0)
			r->window_end = from + k;
	}
	ts_free(sizes);
	ts_free(paths);
	return true;
}

bool
ts_read_check_columns(const ts_plan *plan, const int *columns, int ncolumns, ts_err *err)
{
	for (int i = 0; i < ncolumns; i++)
	{
		if (columns[i] == TS_COLUMN_ROW_KIND)
		{
			if (plan->kind != TS_TABLE_PRIMARY_KEY || !plan->incremental)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"system column _ROW_KIND is only supported on incremental reads (incremental-between) of primary-key tables");
		}
		else if (ts_system_column_type(columns[i]))
		{
			if (plan->kind != TS_TABLE_APPEND ||
				!ts_read_option_bool(plan, TS_OPT_ROW_TRACKING, false))
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"system column %s is only supported on append tables with 'row-tracking.enabled'='true'",
								ts_system_column_name(columns[i]));
		}
		else if (columns[i] < 0 || columns[i] >= plan->schema->nfields)
			return ts_error(err, TS_ERR_INVALID, "column index %d out of range", columns[i]);
	}
	return true;
}

/*
 * Is the split read by row-id ranges (the evolution reader: data evolution,
 * _WRITE_COLS files, row-tracking system columns) rather than file by file?
 */
static bool
reads_row_ranges(const ts_plan *plan, const ts_split *split, const int *columns, int ncolumns)
{
	for (int i = 0; i < ncolumns; i++)
		if (columns[i] == TS_COLUMN_ROW_ID || columns[i] == TS_COLUMN_SEQUENCE_NUMBER)
			return true;
	if (plan->kind == TS_TABLE_FORMAT)
		return false;
	if (plan->core.data_evolution)
		return true;
	for (int i = 0; i < split->nfiles; i++)
		if (split->files[i].entry && split->files[i].entry->file.nwrite_cols >= 0)
			return true;
	return false;
}

bool
ts_split_reads_files_alone(const ts_plan *plan, const ts_split *split, const int *columns,
						   int ncolumns)
{
	if (split->fallback)
	{
		if (plan->fallback == NULL)
			return false;
		plan = plan->fallback;
	}
	if (reads_row_ranges(plan, split, columns, ncolumns))
		return false;
	return plan->kind != TS_TABLE_PRIMARY_KEY || split->raw_convertible;
}

bool
ts_split_file_reads_in_ranges(const ts_plan *plan, const ts_split *split, int f,
							  const int *columns, int ncolumns)
{
	const ts_scan_file *file = &split->files[f];

	if (!ts_split_reads_files_alone(plan, split, columns, ncolumns))
		return false;
	if (split->fallback)
		plan = plan->fallback;
	if (plan->kind == TS_TABLE_FORMAT && file->dv_path == NULL &&
		(file->format == TS_FORMAT_CSV || file->format == TS_FORMAT_JSON ||
		 file->format == TS_FORMAT_TEXT))
		return ts_plan_text_file_reads_in_parts(plan, file);
	return (plan->kind == TS_TABLE_APPEND || plan->kind == TS_TABLE_FORMAT) &&
		(file->format == TS_FORMAT_PARQUET || file->format == TS_FORMAT_ORC) &&
		file->dv_path == NULL;
}

#define MAX_TEXT_OPTIONS 64

/* The plan's options as a text reader's (keys / values: MAX_TEXT_OPTIONS) */
static bool
text_options(const ts_plan *plan, const char **keys, const char **values, ts_reader_options *o)
{
	if (plan->noptions > MAX_TEXT_OPTIONS)
		return false;
	memset(o, 0, sizeof(*o));
	o->fs = plan->fs;
	o->ntext_options = ts_read_text_options(plan, keys, values);
	o->text_option_keys = keys;
	o->text_option_values = values;
	return true;
}

bool
ts_plan_text_file_reads_in_parts(const ts_plan *plan, const ts_scan_file *file)
{
	const char *keys[MAX_TEXT_OPTIONS],
			   *values[MAX_TEXT_OPTIONS];
	ts_reader_options o;
	const char *path = ts_scan_file_path(plan, file, NULL);

	/* a path that cannot be built: read whole, its open says why */
	return path != NULL && text_options(plan, keys, values, &o) &&
		ts_text_file_reads_in_parts(file->format, path, &o);
}

bool
ts_scan_file_parts_start_at_records(const ts_scan_file *file)
{
	return file->format == TS_FORMAT_CSV;
}

int
ts_split_file_part_starts(const ts_plan *plan, const ts_split *split, int f, int nparts,
						  int64_t *starts, ts_err *err)
{
	const ts_scan_file *file = &split->files[f];
	const char *keys[MAX_TEXT_OPTIONS],
			   *values[MAX_TEXT_OPTIONS];
	ts_reader_options o;
	const char *path;

	starts[0] = 0;
	if (split->fallback)
		plan = plan->fallback;
	if ((path = ts_scan_file_path(plan, file, err)) == NULL)
		return -1;
	if (!text_options(plan, keys, values, &o))
		return 1;
	return ts_csv_part_starts(path, &o, nparts, starts, err);
}

ts_split_reader *
ts_split_reader_open(ts_plan *plan, const ts_split *split, const int *columns, int ncolumns,
					 ts_err *err)
{
	return ts_split_reader_open_buffers(plan, split, columns, ncolumns, NULL, err);
}

ts_split_reader *
ts_split_reader_open_buffers(ts_plan *plan, const ts_split *split, const int *columns,
							 int ncolumns, ts_bufpool *buffers, ts_err *err)
{
	ts_split_reader *r;
	bool		evolution = false;

	if (plan == NULL || split == NULL || plan->schema == NULL || ncolumns < 0 ||
		(ncolumns > 0 && columns == NULL) || split->nfiles < 0)
	{
		ts_error(err, TS_ERR_INVALID, "invalid arguments to ts_split_reader_open");
		return NULL;
	}
	if (split->fallback)
	{
		/* scan.fallback-branch: read with that branch's plan (same row type) */
		if (plan->fallback == NULL || plan->fallback->schema->nfields != plan->schema->nfields)
		{
			ts_error(err, TS_ERR_INVALID, "fallback split without the fallback branch's plan");
			return NULL;
		}
		plan = plan->fallback;
	}
	if (!ts_read_check_columns(plan, columns, ncolumns, err))
		return NULL;
	evolution = reads_row_ranges(plan, split, columns, ncolumns);
	if (evolution && plan->kind != TS_TABLE_APPEND)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "data evolution (data-evolution.enabled, _WRITE_COLS) on primary-key tables is not supported");
		return NULL;
	}

	r = ts_calloc(1, sizeof(*r));
	if (r == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->plan = plan;
	r->split = split;
	r->buffers = buffers;		/* not ours: own_buffers stays false */
	r->ncolumns = ncolumns;
	r->columns = ts_calloc(ncolumns ? ncolumns : 1, sizeof(int));
	if (r->columns == NULL)
	{
		ts_free(r);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (ncolumns)
		memcpy(r->columns, columns, sizeof(int) * ncolumns);
	r->key_value = plan->kind == TS_TABLE_PRIMARY_KEY;
	r->file_max = ts_read_whole_file_max(plan, columns, ncolumns);
	if (!register_sizes(r, err))
	{
		ts_split_reader_close(r);
		return NULL;
	}
	/* readers that open several files at once: their small ones fetched together */
	if ((evolution || (r->key_value && !split->raw_convertible && split->nfiles > 0)) &&
		!prefetch_files(r, 0, err))
	{
		ts_split_reader_close(r);
		return NULL;
	}
	if (evolution)
	{
		r->evolution = ts_evolution_reader_open(plan, split, r->columns, ncolumns, err);
		if (r->evolution == NULL)
		{
			ts_error_context(err, "split of bucket %d", split->bucket);
			ts_split_reader_close(r);
			return NULL;
		}
	}
	else if (r->key_value && !split->raw_convertible && split->nfiles > 0)
	{
		r->merge = ts_merge_reader_open(plan, split, columns, ncolumns, buffers, err);
		if (r->merge == NULL)
		{
			ts_error_context(err, "split of bucket %d", split->bucket);
			ts_split_reader_close(r);
			return NULL;
		}
	}
	return r;
}

/*
 * Drop retract rows of a key-value batch in place (the columns of each
 * kept row move; what lies behind them in a strided batch is not read).
 */
static int
drop_retracts(ts_data_file_batch *b)
{
	int			kept = 0;

	for (int i = 0; i < b->nrows; i++)
	{
		if (ts_row_kind_is_retract(b->kind[i]))
			continue;
		if (kept != i && b->ncols > 0)
			memcpy(&b->values[(size_t) kept * b->stride], &b->values[(size_t) i * b->stride],
				   sizeof(ts_value) * b->ncols);
		kept++;
	}
	b->nrows = kept;
	return kept;
}

const char *
ts_split_reader_current_file(const ts_split_reader *r)
{
	if (r == NULL || r->merge || r->evolution || r->cur == NULL || r->next_file == 0)
		return NULL;
	/* opened: its path is built */
	return ts_scan_file_path(r->plan, &r->split->files[r->next_file - 1], NULL);
}

int
ts_split_reader_ranges_like(const ts_split_reader *r, const ts_scan_file *other,
							const uint8_t *tail, size_t tail_len, const ts_held_bytes *held,
							int64_t budget, ts_range *out, int max)
{
	if (r == NULL || r->merge || r->evolution || r->cur == NULL)
		return 0;
	return ts_data_file_ranges_like(r->cur, other, tail, tail_len, held, budget, out, max);
}

const char *
ts_split_reader_current_part(const ts_split_reader *r, int32_t *part)
{
	if (ts_split_reader_current_file(r) == NULL)
		return NULL;
	return ts_data_file_current_part(r->cur, part);
}

int
ts_split_reader_next(ts_split_reader *r, ts_batch *batch, ts_err *err)
{
	memset(batch, 0, sizeof(*batch));
	batch->ncols = r->ncolumns;
	if (r->merge)
		return ts_merge_reader_next(r->merge, batch, err);
	if (r->evolution)
		return ts_evolution_reader_next(r->evolution, batch, err);

	for (;;)
	{
		ts_data_file_batch fb;
		int			n;

		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		if (r->cur == NULL)
		{
			bool		skip;
			void	   *selection;

			if (r->next_file >= r->split->nfiles)
				return 0;
			/*
			 * The file before is closed: the window may move on, fetching
			 * this file's sidecar index with the data files (before it is
			 * read just below: one round trip for both).
			 */
			if (r->next_file >= r->window_end && !prefetch_files(r, r->next_file, err))
				return -1;
			if (!ts_read_file_index(r->plan, &r->split->files[r->next_file], &skip, &selection,
									err))
				return -1;
			if (skip)
			{
				r->metrics.files_skipped_index++;
				r->next_file++;
				continue;
			}
			/* a primary-key global index's positions (scan/pk_global_index.c) */
			if (!ts_index_rows_restrict(r->split->files[r->next_file].index_rows, &selection,
										err))
			{
				ts_row_selection_free(selection);
				return -1;
			}
			if (r->buffers == NULL)
			{
				/* without a pool every file reader allocates afresh: fine too */
				r->buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
				r->own_buffers = r->buffers != NULL;
			}
			/* the positions of the split's wanted row ids (row_id_selection.c) */
			{
				const ts_scan_file *f = &r->split->files[r->next_file];
				void	   *rid = NULL;

				if (r->split->row_ids && f->entry &&
					!ts_row_id_selection(r->split->row_ids, &f->entry->file, &rid, err))
				{
					ts_row_selection_free(selection);
					return -1;
				}
				r->cur = ts_data_file_open_rows(r->plan, r->split, f, r->columns, r->ncolumns,
												r->key_value, r->buffers, selection, rid, err);
			}
			r->next_file++;
			if (r->cur == NULL)
				return -1;
			/* the next splits' first chunks, named by this file's reader */
			if (r->ahead && !ts_split_window_chunks_ahead(r->ahead, r->plan, r, true, err))
				return -1;
			/* raw-convertible key-value files: rows handed on, not copied */
			if (r->key_value)
				ts_data_file_allow_stride(r->cur);
		}
		n = ts_data_file_next(r->cur, &fb, err);
		if (n < 0)
			return -1;
		if (n == 0)
		{
			ts_data_file_close(r->cur, &r->metrics);
			r->cur = NULL;
			continue;
		}
		if (r->key_value && fb.kind && drop_retracts(&fb) == 0)
			continue;
		if (r->ahead && !ts_split_window_chunks_ahead(r->ahead, r->plan, r, false, err))
			return -1;			/* (those whose ends came in since) */
		batch->nrows = fb.nrows;
		batch->ncols = r->ncolumns;
		batch->values = fb.values;
		batch->stride = fb.stride;
		return fb.nrows;
	}
}

void
ts_split_reader_set_window(ts_split_reader *r, ts_split_window *w)
{
	r->ahead = w;
}

void
ts_split_reader_set_buffers(ts_split_reader *r, ts_bufpool *buffers)
{
	if (r->own_buffers)
		ts_bufpool_free(r->buffers);
	r->buffers = buffers;
	r->own_buffers = false;
}

const ts_reader_metrics *
ts_split_reader_metrics(const ts_split_reader *r)
{
	ts_split_reader *w = (ts_split_reader *) r;

	w->snapshot = r->metrics;
	if (r->cur)
		ts_data_file_add_metrics(r->cur, &w->snapshot);
	if (r->merge)
		ts_merge_reader_add_metrics(r->merge, &w->snapshot);
	if (r->evolution)
		ts_evolution_reader_add_metrics(r->evolution, &w->snapshot);
	return &w->snapshot;
}

void
ts_split_reader_close(ts_split_reader *r)
{
	if (r == NULL)
		return;
	ts_data_file_close(r->cur, &r->metrics);
	ts_merge_reader_close(r->merge, &r->metrics);
	ts_evolution_reader_close(r->evolution, &r->metrics);
	ts_prefetch_free(r->window);
	ts_prefetch_free(r->sizes);
	if (r->own_buffers)
		ts_bufpool_free(r->buffers);
	ts_free(r->columns);
	ts_free(r);
}
