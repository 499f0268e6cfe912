/*
 * ts_tool_read.h - read a planned table without a server, for the tools
 * that do (src/tools/ts_read.c prints rows, bench/ts_scan_bench.c folds
 * them into a checksum): the -c column names resolved to read-schema
 * fields (or the _ROW_ID / _SEQUENCE_NUMBER system columns), and every
 * split read batch by batch into a callback.  Errors are printed as
 * "ERROR: ..." and returned as false / NULL.
 */
#ifndef TS_TOOL_READ_H
#define TS_TOOL_READ_H

#include <stdio.h>
#include <stdlib.h>

#include "base/ts_background.h"
#include "base/ts_s3.h"
#include "read/read.h"
#include "scan/scan.h"

/* The fields to read: the named ones, or all when nnames is 0. */
static int *
tool_read_columns(const ts_plan *plan, const char *const *names, int nnames, int *ncols)
{
	int			n = nnames ? nnames : plan->schema->nfields;
	int		   *cols = calloc(n ? n : 1, sizeof(int));

	if (cols == NULL)
	{
		fprintf(stderr, "ERROR: out of memory\n");
		return NULL;
	}
	for (int i = 0; i < n; i++)
	{
		cols[i] = nnames ? ts_schema_field_index(plan->schema, names[i]) : i;
		if (cols[i] < 0 && ts_system_column(names[i]))
			cols[i] = ts_system_column(names[i]);	/* _ROW_ID, _SEQUENCE_NUMBER */
		else if (cols[i] < 0)
		{
			fprintf(stderr, "ERROR: no column %s\n", names[i]);
			free(cols);
			return NULL;
		}
	}
	*ncols = n;
	return cols;
}

/* The type of a column tool_read_columns returned. */
static inline const ts_type *
tool_column_type(const ts_plan *plan, int col)
{
	return col < 0 ? ts_system_column_type(col) : plan->schema->fields[col].type;
}

/*
 * With the helper thread on (ts_bg_set_enabled): on only around
 * ts_split_reader_next, off while a split's readers open, as the FDW has
 * it (scan_rows.c); false: on throughout.
 */
static bool tool_ahead_next_only = false;

/* Every split of the plan, each batch handed to fn; *rows counts them. */
static bool
tool_read_all(ts_plan *plan, const int *cols, int ncols,
			  void (*fn) (const ts_batch *b, void *arg), void *arg, int64_t *rows)
{
	bool		ahead = ts_bg_enabled();
	ts_err		err = {0};
	ts_split_window window = {0};	/* small files of the next splits, fetched ahead */
	/* large file buffers handed from split to split, as in the FDW (scan_rows.c) */
	ts_bufpool *buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
	bool		ok = true;
	/* files the scan reads whole anyway fetched whole ahead, as in the FDW */
	int64_t		file_max = ts_read_whole_file_max(plan, cols, ncols);

	*rows = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = NULL;
		ts_batch	b;
		int			n;

		if (tool_ahead_next_only)
			ts_bg_set_enabled(false);
		if (ts_split_window_move(&window, plan, s, -1, file_max, &err))
			r = ts_split_reader_open_buffers(plan, &plan->splits[s], cols, ncols, buffers, &err);
		if (r == NULL)
		{
			fprintf(stderr, "ERROR: %s\n", err.msg);
			ok = false;
			break;
		}
		ts_split_reader_set_window(r, &window);	/* the next files' chunks, as in the FDW */
		for (;;)
		{
			ts_s3_drive();		/* files fetched ahead move on, as in the FDW */
			if (tool_ahead_next_only)
				ts_bg_set_enabled(ahead);
			n = ts_split_reader_next(r, &b, &err);
			if (tool_ahead_next_only)
				ts_bg_set_enabled(false);
			if (n <= 0)
				break;
			fn(&b, arg);
			*rows += n;
		}
		ts_split_reader_close(r);
		if (n < 0)
		{
			fprintf(stderr, "ERROR: %s\n", err.msg);
			ok = false;
			break;
		}
	}
	ts_bg_set_enabled(ahead);
	ts_split_window_free(&window);
	ts_bufpool_free(buffers);
	return ok;
}

#endif							/* TS_TOOL_READ_H */
