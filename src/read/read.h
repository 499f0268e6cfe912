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
 * bool_or, listagg; data evolution (_WRITE_COLS, data-evolution.enabled);
 * casts outside cast.h.  Corrupt deletion vectors are TS_ERR_CORRUPT.
 */
#ifndef TS_READ_H
#define TS_READ_H

#include "scan/scan.h"

typedef struct ts_split_reader ts_split_reader;

/*
 * Open a reader over one split.  'columns' are indexes into
 * plan->schema->fields, in output order (nproj may be 0, e.g. count(*):
 * batches then carry only row counts).
 */
ts_split_reader *ts_split_reader_open(ts_plan *plan, const ts_split *split,
									  const int *columns, int ncolumns, ts_err *err);

/*
 * Optional, before the first ts_split_reader_next: keep the large buffers
 * of the file readers (Parquet pages and column chunks) in 'buffers' from
 * one data file to the next, and from split to split when the caller
 * gives every split reader the same pool (which must outlive them).
 * Without it a split reader keeps a pool of its own.
 */
void		ts_split_reader_set_buffers(ts_split_reader *r, ts_bufpool *buffers);

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
