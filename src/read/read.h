/*
 * read.h - turn a split of a plan into rows of the read schema.
 *
 * Owns: per-file readers chosen by format, schema evolution by field id
 * (renamed / reordered / dropped columns, added columns -> NULL, type
 * changes through Paimon cast rules), partition columns filled from the
 * manifest's partition row, deletion vectors, and (for primary-key tables)
 * merge-on-read.  Unsupported table features fail closed with
 * TS_ERR_UNSUPPORTED naming them: merge engines other than deduplicate /
 * first-row / partial-update / aggregation, sequence groups, aggregate
 * functions outside sum, product, min, max, last_value,
 * last_non_null_value, first_value, first_non_null_value, bool_and,
 * bool_or, listagg; casts outside cast.h.  Corrupt deletion vectors are
 * TS_ERR_CORRUPT.  Row tracking and data evolution (row-tracking.enabled,
 * data-evolution.enabled, _FIRST_ROW_ID / _WRITE_COLS) are read by
 * data_evolution.c, which also provides the system columns _ROW_ID and
 * _SEQUENCE_NUMBER of row-tracking append tables.
 */
#ifndef TS_READ_H
#define TS_READ_H

#include "scan/scan.h"

typedef struct ts_split_reader ts_split_reader;

/*
 * Pseudo column indexes for Paimon's row-tracking system fields, usable in
 * the 'columns' of ts_split_reader_open next to real field indexes (only
 * on append tables with row-tracking.enabled): _ROW_ID = the value stored
 * in the file, else the file's _FIRST_ROW_ID + the row's position in the
 * file; _SEQUENCE_NUMBER = the stored value, else the file's max sequence
 * number.  Both BIGINT.
 */
#define TS_COLUMN_ROW_ID (-2)
#define TS_COLUMN_SEQUENCE_NUMBER (-3)

/* TS_COLUMN_ROW_ID / TS_COLUMN_SEQUENCE_NUMBER for their names, else 0. */
int			ts_system_column(const char *name);

/* Type of a system column (BIGINT) and its name; NULL for other values. */
const ts_type *ts_system_column_type(int column);
const char *ts_system_column_name(int column);

/*
 * Open a reader over one split.  'columns' are indexes into
 * plan->schema->fields, in output order (nproj may be 0, e.g. count(*):
 * batches then carry only row counts).
 */
ts_split_reader *ts_split_reader_open(ts_plan *plan, const ts_split *split,
									  const int *columns, int ncolumns, ts_err *err);

/*
 * Next batch: rows (>0), 0 at the end, -1 on error.  Values are in the
 * read schema's types and valid until the next call.
 */
int			ts_split_reader_next(ts_split_reader *r, ts_batch *batch, ts_err *err);

/*
 * Bytes / rows / row groups read from data files and files_opened so far
 * (for EXPLAIN ANALYZE); includes files still open.
 */
const ts_reader_metrics *ts_split_reader_metrics(const ts_split_reader *r);

void		ts_split_reader_close(ts_split_reader *r);

#endif							/* TS_READ_H */
