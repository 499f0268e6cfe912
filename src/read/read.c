/*
 * read.c - the split reader: rows of the read schema from one split.
 *
 * Owns: choosing how a split is read (PAIMON-FORMAT.md 7.4): append and
 * format tables, and raw-convertible primary-key splits, read their files
 * one after the other (deletion vectors applied, retract rows dropped for
 * key-value files); other primary-key splits go through merge-on-read
 * (merge.c).  Refuses table features it cannot read correctly.
 */
#include <string.h>

#include "read/read_internal.h"

struct ts_split_reader
{
	ts_plan    *plan;
	const ts_split *split;
	int		   *columns;
	int			ncolumns;
	bool		key_value;		/* primary-key table: files are key-value files */
	ts_merge_reader *merge;		/* merge-on-read, or NULL */
	int			next_file;
	ts_data_file_reader *cur;
	ts_bufpool *buffers;		/* file readers' large buffers, kept between files */
	bool		own_buffers;	/* buffers is ours to free */
	ts_reader_metrics metrics;	/* of closed files */
	ts_reader_metrics snapshot; /* returned by ts_split_reader_metrics */
};

ts_split_reader *
ts_split_reader_open(ts_plan *plan, const ts_split *split, const int *columns, int ncolumns,
					 ts_err *err)
{
	ts_split_reader *r;

	if (plan == NULL || split == NULL || plan->schema == NULL || ncolumns < 0 ||
		(ncolumns > 0 && columns == NULL) || split->nfiles < 0)
	{
		ts_error(err, TS_ERR_INVALID, "invalid arguments to ts_split_reader_open");
		return NULL;
	}
	for (int i = 0; i < ncolumns; i++)
		if (columns[i] < 0 || columns[i] >= plan->schema->nfields)
		{
			ts_error(err, TS_ERR_INVALID, "column index %d out of range", columns[i]);
			return NULL;
		}
	if (plan->kind != TS_TABLE_FORMAT && ts_read_option_bool(plan, "data-evolution.enabled", false))
	{
		/* files sharing a row-id range must be stitched column-wise */
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "tables with 'data-evolution.enabled'='true' (data evolution) are not supported yet");
		return NULL;
	}
	for (int i = 0; i < split->nfiles; i++)
	{
		const ts_manifest_entry *e = split->files[i].entry;

		if (e && e->file.nwrite_cols >= 0)
		{
			ts_error(err, TS_ERR_UNSUPPORTED,
					 "data file \"%s\" holds only some columns (_WRITE_COLS): data evolution is not supported",
					 split->files[i].path);
			return NULL;
		}
	}

	r = ts_calloc(1, sizeof(*r));
	if (r == NULL)
	{
		ts_error(err, TS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->plan = plan;
	r->split = split;
	r->ncolumns = ncolumns;
	r->columns = ts_calloc(ncolumns ? ncolumns : 1, sizeof(int));
	if (r->columns == NULL)
	{
		ts_free(r);
		ts_error(err, TS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (ncolumns)
		memcpy(r->columns, columns, sizeof(int) * ncolumns);
	r->key_value = plan->kind == TS_TABLE_PRIMARY_KEY;
	if (r->key_value && !split->raw_convertible && split->nfiles > 0)
	{
		r->merge = ts_merge_reader_open(plan, split, columns, ncolumns, err);
		if (r->merge == NULL)
		{
			ts_error_context(err, "split of bucket %d", split->bucket);
			ts_split_reader_close(r);
			return NULL;
		}
	}
	return r;
}

/* Drop retract rows of a key-value batch in place. */
static int
drop_retracts(ts_data_file_batch *b)
{
	int			kept = 0;

	for (int i = 0; i < b->nrows; i++)
	{
		if (ts_row_kind_is_retract(b->kind[i]))
			continue;
		if (kept != i && b->ncols > 0)
			memcpy(&b->values[(size_t) kept * b->ncols], &b->values[(size_t) i * b->ncols],
				   sizeof(ts_value) * b->ncols);
		kept++;
	}
	b->nrows = kept;
	return kept;
}

int
ts_split_reader_next(ts_split_reader *r, ts_batch *batch, ts_err *err)
{
	memset(batch, 0, sizeof(*batch));
	batch->ncols = r->ncolumns;
	if (r->merge)
		return ts_merge_reader_next(r->merge, batch, err);

	for (;;)
	{
		ts_data_file_batch fb;
		int			n;

		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		if (r->cur == NULL)
		{
			if (r->next_file >= r->split->nfiles)
				return 0;
			if (r->buffers == NULL)
			{
				/* without a pool every file reader allocates afresh: fine too */
				r->buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
				r->own_buffers = r->buffers != NULL;
			}
			r->cur = ts_data_file_open_with(r->plan, r->split, &r->split->files[r->next_file],
											r->columns, r->ncolumns, r->key_value,
											r->buffers, err);
			r->next_file++;
			if (r->cur == NULL)
				return -1;
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
		batch->nrows = fb.nrows;
		batch->ncols = r->ncolumns;
		batch->values = fb.values;
		return fb.nrows;
	}
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
	return &w->snapshot;
}

void
ts_split_reader_close(ts_split_reader *r)
{
	if (r == NULL)
		return;
	ts_data_file_close(r->cur, &r->metrics);
	ts_merge_reader_close(r->merge, &r->metrics);
	if (r->own_buffers)
		ts_bufpool_free(r->buffers);
	ts_free(r->columns);
	ts_free(r);
}
