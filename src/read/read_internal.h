/*
 * read_internal.h - pieces of src/read shared between its files.
 *
 * Owns: value comparison/copy by Paimon type (value_ops.c), the reader of
 * one data file in the read schema (data_file.c: field-id mapping,
 * partition values, casts, deletion vector) and the merge-on-read reader
 * of a primary-key split (merge.c).  Not used outside src/read.
 */
#ifndef TS_READ_INTERNAL_H
#define TS_READ_INTERNAL_H

#include "read/read.h"
#include "read/deletion_vector.h"

/* Special key-value fields (PAIMON-FORMAT.md 7.1) */
#define TS_SEQUENCE_NUMBER_ID 2147483646
#define TS_VALUE_KIND_ID 2147483645
#define TS_ROW_ID_ID 2147483642		/* row tracking (SpecialFields.ROW_ID) */
#define TS_ROW_KIND_INSERT 0
#define TS_ROW_KIND_UPDATE_BEFORE 1
#define TS_ROW_KIND_UPDATE_AFTER 2
#define TS_ROW_KIND_DELETE 3

static inline bool
ts_row_kind_is_retract(int kind)
{
	return kind == TS_ROW_KIND_UPDATE_BEFORE || kind == TS_ROW_KIND_DELETE;
}

/*
 * Rows per batch asked of file readers and produced by merge-on-read;
 * 0 = TS_BATCH_ROWS.  Tests set it to 1..3 to cross batch boundaries.
 */
extern int	ts_read_batch_rows;

/*
 * merge.c packs a row's merge order into one number while sequence numbers
 * stay below this (2^55, never reached by Paimon's counters).  Tests lower
 * it: 0 merges with the general comparison only, a small value switches
 * to it in the middle of a merge.
 */
extern int64_t ts_merge_fast_seq_limit;

/* ---- value_ops.c ------------------------------------------------------ */

/*
 * Order of two values of type t as Paimon sorts keys: NULL first, numbers
 * by value (FLOAT/DOUBLE like Java's compare: -0.0 < 0.0, NaN largest),
 * strings/binaries by unsigned bytes then length, booleans false < true.
 */
int			ts_value_compare(const ts_value *a, const ts_value *b, const ts_type *t);

/* Deep copy (bytes and nested values into arena). */
bool		ts_value_copy(ts_value *dst, const ts_value *src, const ts_type *t,
						  ts_arena *arena, ts_err *err);

/* Merged option lookup over plan->options (NULL if absent). */
const char *ts_read_option(const ts_plan *plan, const char *key);
bool		ts_read_option_bool(const ts_plan *plan, const char *key, bool dflt);
/*
 * The plan's options a text format reader may read (keys[0..n) /
 * values[0..n), at most plan->noptions): the registry's format-layer keys
 * only, so a reader never acts on a key the registry lacks.  Returns n.
 */
int			ts_read_text_options(const ts_plan *plan, const char **keys, const char **values);

/* ---- data_file.c ------------------------------------------------------ */

typedef struct ts_data_file_reader ts_data_file_reader;

/* One batch of one data file, already in the read schema. */
typedef struct ts_data_file_batch
{
	int			nrows;
	int			ncols;
	ts_value   *values;			/* row-major: row r's ncols values start at r * stride */
	int			stride;			/* >= ncols; > ncols only after ts_data_file_allow_stride */
	int64_t    *seq;			/* key-value files only: _SEQUENCE_NUMBER */
	int8_t	   *kind;			/* key-value files only: _VALUE_KIND */
} ts_data_file_batch;

/*
 * Open one data file of a split.  'fields' index plan->schema->fields.
 * With key_value the file's _SEQUENCE_NUMBER and _VALUE_KIND are read too.
 * Rows deleted by the file's deletion vector are dropped.
 */
/*
 * file_index_read.c: does the file's index (embedded, else its sidecar
 * .index) rule plan->predicate out (*skip: then it need not be read), or
 * select the rows that may satisfy it (*selection, NULL = every row; free
 * with ts_row_selection_free)?
 */
bool		ts_read_file_index(ts_plan *plan, const ts_scan_file *file, bool *skip,
							   void **selection, ts_err *err);
/* Is row position pos selected (always, without a selection)? */
bool		ts_row_selection_has(const void *sel, int64_t pos);
/* Selected rows among positions [first, first + n). */
int64_t		ts_row_selection_count(const void *sel, int64_t first, int64_t n);
void		ts_row_selection_free(void *sel);

/*
 * row_id_selection.c: the positions of the file that hold row ids of ids
 * (position = _ROW_ID - _FIRST_ROW_ID), as a row selection (*selection;
 * NULL = every row: ids NULL or all, the file has no _FIRST_ROW_ID, or
 * every row of it is wanted; an empty one when none is).
 */
struct ts_row_ids;
bool		ts_row_id_selection(const struct ts_row_ids *ids, const ts_data_file_meta *file,
								void **selection, ts_err *err);
/*
 * *selection (a file index's, NULL = every row) AND the positions pos (a
 * primary-key global index's, NULL = every row), in place.
 */
bool		ts_index_rows_restrict(const struct ts_row_ids *pos, void **selection, ts_err *err);

ts_data_file_reader *ts_data_file_open(ts_plan *plan, const ts_split *split,
									   const ts_scan_file *file,
									   const int *fields, int nfields,
									   bool key_value, ts_err *err);
/*
 * Let a key-value reader hand on the file reader's rows as they are, with
 * _SEQUENCE_NUMBER / _VALUE_KIND still behind the fields (batch stride >
 * ncols), when every field comes from the file in order, uncast (rows a
 * deletion vector deletes are taken out in place).  For callers that index
 * rows by the batch's stride.
 */
void		ts_data_file_allow_stride(ts_data_file_reader *r);
/* The same, the file reader taking its large buffers from (and giving them back to) buffers. */
ts_data_file_reader *ts_data_file_open_with(ts_plan *plan, const ts_split *split,
											const ts_scan_file *file,
											const int *fields, int nfields,
											bool key_value, ts_bufpool *buffers,
											ts_err *err);
/*
 * The same, reading only the rows of a file index's row selection (taken
 * over, NULL = every row): row groups / stripes holding none of them are
 * skipped undecoded (Parquet, ORC), other rows dropped before they are
 * handed on.
 */
ts_data_file_reader *ts_data_file_open_selected(ts_plan *plan, const ts_split *split,
												const ts_scan_file *file,
												const int *fields, int nfields,
												bool key_value, ts_bufpool *buffers,
												void *selection, ts_err *err);
/*
 * The same with a second selection, the row positions of the split's
 * wanted row ids (ts_row_id_selection, taken over, NULL = every row): only
 * the rows both select are read; the rows each leaves out are counted
 * apart (rows_skipped_row_id first, then rows_skipped_index).
 */
ts_data_file_reader *ts_data_file_open_rows(ts_plan *plan, const ts_split *split,
											const ts_scan_file *file,
											const int *fields, int nfields,
											bool key_value, ts_bufpool *buffers,
											void *selection, void *row_id_selection,
											ts_err *err);

/* rows (>0), 0 at end, -1 on error; values valid until the next call */
int			ts_data_file_next(ts_data_file_reader *r, ts_data_file_batch *out, ts_err *err);

/* Add what the file reader read so far to *acc (and count the file). */
void		ts_data_file_add_metrics(const ts_data_file_reader *r, ts_reader_metrics *acc);
/* The row group / stripe / Avro block being read (ts_format_reader.part_name / part), or NULL. */
const char *ts_data_file_current_part(const ts_data_file_reader *r, int32_t *part);

/*
 * The byte ranges r's format reader would read first from other, a file
 * of the same format and schema (ts_format_ranges_like), given other's last
 * tail_len bytes and what held has of it; 0 when none can be named.
 */
int			ts_data_file_ranges_like(const ts_data_file_reader *r, const ts_scan_file *other,
									 const uint8_t *tail, size_t tail_len,
									 const ts_held_bytes *held, int64_t budget, ts_range *out,
									 int max);

/* Close; adds what it read to *acc (may be NULL). */
void		ts_data_file_close(ts_data_file_reader *r, ts_reader_metrics *acc);

/* ---- ends_ahead.c (for split_window.c) --------------------------------- */

/*
 * Moving w to split s (row_limit >= 0: a LIMIT's): the ends of the files
 * of the next splits read by ranges requested, at most ENDS_FILES files a
 * group, the group after the one s is in started too; the chunk sets of
 * the splits before s freed.  False (err set) only for a cancel or out of
 * memory.
 */
bool		ts_split_window_move_ends(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit,
									  ts_err *err);
void		ts_split_window_free_ends(ts_split_window *w);

/* ---- merge.c ---------------------------------------------------------- */

typedef struct ts_merge_reader ts_merge_reader;

/*
 * Merge-on-read over all files of a primary-key split: k-way merge by
 * trimmed primary key, then sequence (sequence.field, _SEQUENCE_NUMBER),
 * then the merge engine.  Unsupported engines/options fail here.  Its file
 * readers take their large buffers from 'buffers' (NULL: none kept) and
 * give them back when closed, for the next split's merge.
 */
ts_merge_reader *ts_merge_reader_open(ts_plan *plan, const ts_split *split,
									  const int *columns, int ncolumns, ts_bufpool *buffers,
									  ts_err *err);
int			ts_merge_reader_next(ts_merge_reader *m, ts_batch *batch, ts_err *err);
void		ts_merge_reader_add_metrics(const ts_merge_reader *m, ts_reader_metrics *acc);
void		ts_merge_reader_close(ts_merge_reader *m, ts_reader_metrics *acc);

/* ---- data_evolution.c ------------------------------------------------ */

typedef struct ts_evolution_reader ts_evolution_reader;

/*
 * Reader of an append-table split whose files carry row-tracking metadata:
 * data-evolution tables (files of one row-id range stitched column-wise),
 * files with _WRITE_COLS, and reads of the system columns.  'columns' must
 * outlive the reader.
 */
ts_evolution_reader *ts_evolution_reader_open(ts_plan *plan, const ts_split *split,
											  const int *columns, int ncolumns, ts_err *err);
int			ts_evolution_reader_next(ts_evolution_reader *r, ts_batch *batch, ts_err *err);
void		ts_evolution_reader_add_metrics(const ts_evolution_reader *r, ts_reader_metrics *acc);
void		ts_evolution_reader_close(ts_evolution_reader *r, ts_reader_metrics *acc);

#endif							/* TS_READ_INTERNAL_H */
