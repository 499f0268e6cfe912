/*
 * line_reader.c - what the CSV, JSON-lines and TEXT readers have in common.
 *
 * Owns: the base of a reader of lines (ts_line_reader): checking the
 * requested columns' list, the batch size, the path, the batch's values,
 * the decompressing line stream (text_stream.c), closing, and the start
 * and end of each batch (its values, the error of a reader used after a
 * failure, rows and bytes read).  Each reader embeds it first and keeps
 * its own options and what it makes of a line.
 */
#include <string.h>

#include "format/text/text_internal.h"

void *
ts_line_reader_new(size_t size, const ts_format_reader_ops *ops, const char *what,
				   const char *path, const ts_read_column *columns, int ncols,
				   const ts_reader_options *options, ts_err *err)
{
	ts_line_reader *r;

	if (ncols < 0 || (ncols > 0 && columns == NULL))
	{
		ts_error(err, TS_ERR_INVALID, "invalid column list");
		return NULL;
	}
	r = ts_calloc(1, size);
	if (r == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->base.ops = ops;
	r->what = what;
	r->cols = columns;
	r->ncols = ncols;
	r->batch_rows = ts_reader_batch_rows(options);
	r->fs = ts_reader_fs(options);
	if (options && options->range_end > 0)
	{
		r->range_start = options->range_start;
		r->range_end = options->range_end;
		r->in_part = options->range_start > 0;
	}
	r->path = ts_strdup(path);
	if (r->path == NULL)
	{
		ts_error_nomem(err, NULL);
		ts_free(r);
		return NULL;
	}
	return r;
}

bool
ts_line_reader_open_stream(ts_line_reader *r, ts_err *err)
{
	r->values = ts_calloc((size_t) r->batch_rows * (r->ncols > 0 ? r->ncols : 1), sizeof(ts_value));
	if (r->values == NULL)
		return ts_error_nomem(err, NULL);
	r->s = ts_text_stream_open(r->fs, r->path, err);
	if (r->s == NULL)
		return false;
	if (r->range_end > 0)
	{
		if (r->line_delim != NULL)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"%s file \"%s\" with a line delimiter of its own cannot be read in parts",
							r->what, r->path);
		return ts_text_stream_set_range(r->s, r->range_start, r->range_end, err);
	}
	return true;
}

void
ts_line_reader_free(ts_line_reader *r)
{
	if (r == NULL)
		return;
	ts_text_stream_close(r->s);
	ts_free(r->values);
	ts_free(r->line_delim);
	ts_free(r->path);
	ts_free(r);
}

bool
ts_line_reader_begin_batch(ts_line_reader *r, ts_batch *batch, ts_err *err)
{
	batch->nrows = 0;
	batch->ncols = r->ncols;
	batch->values = r->values;
	if (r->failed)
		return ts_error(err, TS_ERR_INVALID, "%s reader used after an error", r->what);
	return true;
}

int
ts_line_reader_end_batch(ts_line_reader *r, ts_batch *batch, int nrows)
{
	r->base.metrics.rows_read += nrows;
	r->base.metrics.bytes_read = ts_text_stream_bytes_read(r->s);
	batch->nrows = nrows;
	return nrows;
}
