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

#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
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

/*
 * _ROW_KIND: the row kind of each row of an incremental read of a
 * primary-key table (incremental-between), as text '+I', '-U', '+U' or
 * '-D' (Paimon's RowKind short strings).  STRING NOT NULL.
 */
#define TS_COLUMN_ROW_KIND (-4)

/* TS_COLUMN_ROW_ID / _SEQUENCE_NUMBER / _ROW_KIND for their names, else 0. */
int			ts_system_column(const char *name);

/*
 * Type of a system column (BIGINT, or STRING for _ROW_KIND) and its name;
 * NULL for other values.
 */
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
 * The same, the file readers' large buffers (Parquet pages and column
 * chunks) kept in 'buffers' (NULL: as ts_split_reader_open) from one data
 * file to the next and from split to split, as ts_split_reader_set_buffers
 * does; given at open, it also serves the files a merge-on-read opens at
 * once (several runs of a primary-key bucket), which set_buffers, called
 * after, cannot reach.  'buffers' must outlive the reader.
 */
ts_split_reader *ts_split_reader_open_buffers(ts_plan *plan, const ts_split *split,
											  const int *columns, int ncolumns,
											  ts_bufpool *buffers, ts_err *err);

/*
 * Whether the reader of this split reads each of its files on its own (no
 * merge by key, no stitching of row-id ranges): then a split holding any
 * one of those files (same partition, bucket and flags) reads that file's
 * rows of the whole split.  A parallel scan hands out such files one by one.
 */
bool		ts_split_reads_files_alone(const ts_plan *plan, const ts_split *split,
									   const int *columns, int ncolumns);

/*
 * Whether file f of such a split can also be read in parts, byte ranges of
 * the file that each hold the row groups starting in them (ts_scan_file
 * range_start / range_end): a Parquet or ORC file of an append or format table,
 * without deletion vector (row positions do not matter), or a format table's
 * CSV / JSON / TEXT file that ts_text_file_reads_in_parts allows (the lines
 * starting in them).  A parallel scan
 * hands out the ranges of a large file as tasks.
 */
bool		ts_split_file_reads_in_ranges(const ts_plan *plan, const ts_split *split, int f,
										  const int *columns, int ncolumns);
/* A format table's CSV / JSON / TEXT file a parallel scan may read in parts. */
bool		ts_plan_text_file_reads_in_parts(const ts_plan *plan, const ts_scan_file *file);
/*
 * Must the parts of such a file start where records start (a CSV file: a
 * quoted field may hold line breaks), not at any byte (a part reads the
 * row groups, stripes or lines that start in it)?
 */
bool		ts_scan_file_parts_start_at_records(const ts_scan_file *file);
/*
 * For such a CSV file f of a split: the number of parts it may be cut into
 * (at most nparts; 1: read whole) and in starts their first bytes,
 * records' starts (ts_csv_part_starts); -1 with err set when the file
 * cannot be read.
 */
int			ts_split_file_part_starts(const ts_plan *plan, const ts_split *split, int f,
									  int nparts, int64_t *starts, ts_err *err);

/*
 * Whether the plan can read these columns: system columns are refused
 * (TS_ERR_UNSUPPORTED naming them) where they mean nothing: _ROW_ID and
 * _SEQUENCE_NUMBER outside row-tracking append tables, _ROW_KIND outside
 * incremental reads of primary-key tables.  ts_split_reader_open checks
 * this too; callers check it once even when the plan has no split.
 */
bool		ts_read_check_columns(const ts_plan *plan, const int *columns, int ncolumns,
								  ts_err *err);

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

/*
 * split_window.c: on an object store, the small data files of the next
 * splits fetched whole and together (base/prefetch.c), so that a scan of
 * many small splits costs a round trip per window instead of one per
 * split.  A window holds whole splits from the one about to be opened on,
 * while every file of each is an object of known size (manifest) of at
 * most max_each bytes (beyond TS_PREFETCH_FILE_MAX only when written with
 * the plan's schema: ts_read_file_fetched_whole), at most max_files files
 * and max_bytes in all; it ends at the split whose files reach row_limit
 * rows (>= 0: a LIMIT's).
 * ts_split_window_size says how many splits from 'from' on (0: the first
 * does not fit; its reader fetches what it can by itself).
 */
#define TS_CHUNK_SETS 4
typedef struct ts_split_window
{
	ts_prefetch *set;			/* NULL: nothing fetched */
	int			start;			/* splits [start, end) */
	int			end;
	ts_prefetch *ahead;			/* the next window, started; NULL: none */
	int			ahead_start;	/* its splits [ahead_start, ahead_end) */
	int			ahead_end;
	int64_t		file_max;		/* ts_split_window_move's */
	/* files read by ranges: their ends and first chunks, fetched ahead (ends_ahead.c) */
	int			current;		/* the split being read */
	ts_prefetch *ends;			/* the ends of the files of splits [ends_start, ends_end) */
	int			ends_start;
	int			ends_end;
	ts_prefetch *ends_ahead;	/* ... of splits [ends_end, ends_ahead_end), started */
	int			ends_ahead_end;
	ts_prefetch *chunks[TS_CHUNK_SETS]; /* first chunks of the next splits' files, started */
	int			chunks_from[TS_CHUNK_SETS]; /* ... of splits [from, until) */
	int			chunks_until[TS_CHUNK_SETS];
	int64_t		chunks_bytes[TS_CHUNK_SETS];
	bool		chunks_again[TS_CHUNK_SETS];	/* a second look once in (ORC: streams) */
	int			chunks_next;	/* the first split whose chunks were not tried */
} ts_split_window;

int			ts_split_window_size(const ts_plan *plan, const ts_split *splits, int nsplits, int from,
								 int64_t row_limit, int max_files, int64_t max_each,
								 int64_t max_bytes);

/*
 * The side files of files[0..n) added to paths[0..npaths) (at most
 * max_paths) when not there yet; returns the new number of paths: their
 * deletion vectors' index files (objects of known size, at most max_each
 * bytes each, while *bytes stays within max_bytes; many data files of a
 * bucket share one index file: it is fetched once), and, when plan is not
 * NULL, the sidecar file indexes plan would read before opening them
 * (ts_read_file_index_wants_sidecar: objects of unknown size, one per
 * data file).  sizes (NULL: not wanted) gets each added file's size next
 * to its path (-1: unknown).
 */
int			ts_side_files(ts_fs *fs, const ts_plan *plan, const ts_scan_file *files, int n, int64_t max_each,
						  int64_t max_bytes, int64_t *bytes, const char **paths, int64_t *sizes,
						  int npaths, int max_paths);
/*
 * Will a read of file under plan read its sidecar file index (a predicate,
 * file indexes used, no embedded index, a sidecar listed)?
 */
bool		ts_read_file_index_wants_sidecar(const ts_plan *plan, const ts_scan_file *file);

/*
 * data_file.c: the largest data file a scan of columns[0..ncolumns) reads
 * whole anyway (every column of the table's schema, nothing that leaves a
 * row group out: TS_RANGE_AHEAD_BYTES), which its windows may then fetch
 * whole ahead of it; otherwise TS_PREFETCH_FILE_MAX.  And whether f is such
 * a file for a window of max_each: known size, at most TS_PREFETCH_FILE_MAX,
 * or at most max_each and written with the plan's schema.
 */
int64_t		ts_read_whole_file_max(const ts_plan *plan, const int *columns, int ncolumns);
bool		ts_read_file_fetched_whole(const ts_plan *plan, const ts_scan_file *f, int64_t max_each);

/*
 * Before split s of plan is opened (the readers of the splits before it
 * closed): when s is outside the window, free the window and start
 * fetching the next one from s on (files up to file_max, the scan's
 * ts_read_whole_file_max; TS_PREFETCH_WINDOW_FILES / _WINDOW_BYTES of
 * base/ts_ranges.h), or take the window started ahead when s begins it; a
 * file is waited for when opened.  The ends of the next files read by
 * ranges are requested too (ends_ahead.c).  Then,
 * unless row_limit >= 0, once the window's files are all in, start the
 * window after it.  A file that could not be fetched is read, and its
 * failure reported, when opened: false (err set) only for a cancel or out
 * of memory.  A zeroed ts_split_window is empty.
 */
bool		ts_split_window_move(ts_split_window *w, ts_plan *plan, int s, int64_t row_limit,
								 int64_t file_max, ts_err *err);

/*
 * A serial scan's split reader told of the scan's window: when it opens a
 * file and after each batch it asks for the first bytes of the next
 * splits' files (ts_split_window_chunks_ahead).
 */
void		ts_split_reader_set_window(ts_split_reader *r, ts_split_window *w);

/*
 * ends_ahead.c, while the split w moved to last is read by reader (when
 * reader opened a file, opened, and after each batch): for the next splits
 * whose files' ends are in, what reader would read first from those files
 * (ts_split_reader_ranges_like: Parquet / ORC files of the same schema, a
 * plain read with no filter that may leave row groups out) is requested,
 * not waited for, at most TS_RANGE_AHEAD_BYTES held at a time: their
 * readers then find it in (fs.c asks the registry before a request).
 * Each split is tried once, and looked at once more when what was asked
 * for it is in (ORC: the streams its stripe footers list).  False (err
 * set) only for a cancel or out of memory.
 */
bool		ts_split_window_chunks_ahead(ts_split_window *w, ts_plan *plan,
										 const ts_split_reader *reader, bool opened, ts_err *err);

/*
 * The small files of splits[0..n-1] (the leading ones within the window's
 * bounds; a split with a file that ts_read_file_fetched_whole with
 * file_max refuses skipped), fetched whole (wait) or started ahead
 * (ts_prefetch_start): for a parallel scan's claimed tasks.  NULL with
 * err->code TS_OK when there is nothing to fetch; else NULL only for a
 * cancel or out of memory.
 */
ts_prefetch *ts_split_window_fetch(ts_plan *plan, const ts_split *const *splits, int n,
								   int64_t file_max, bool wait, ts_err *err);

/* Free the window's sets (the files opened from them closed) and empty it. */
void		ts_split_window_free(ts_split_window *w);

/*
 * The data file a plain (file by file) read is in, for error context; NULL
 * between files and while merging several files (key merge, data evolution).
 */
const char *ts_split_reader_current_file(const ts_split_reader *r);
/*
 * The byte ranges the file a plain read is in (not a merge) would have
 * read first from other, a file of the same format and schema, given
 * other's last tail_len bytes and what held has of it
 * (ts_format_ranges_like): what to fetch before other is opened.  0 when
 * none can be named.
 */
struct ts_held_bytes;
int			ts_split_reader_ranges_like(const ts_split_reader *r, const ts_scan_file *other,
										const uint8_t *tail, size_t tail_len,
										const struct ts_held_bytes *held, int64_t budget,
										ts_range *out, int max);
/*
 * In that file, the part being read: "row group" (Parquet) or "stripe"
 * (ORC) with its 0-based index in *part; NULL when unknown.
 */
const char *ts_split_reader_current_part(const ts_split_reader *r, int32_t *part);

/*
 * file_index_read.c: the file indexes of one data file of the plan as
 * text, "kind column" each ("bitmap f0, bloom-filter f1"; *desc
 * ts_malloc'd, NULL when the file has none), from the embedded index or
 * else the sidecar .index file (*sidecar: its name, also when it is
 * absent).  An index that does not decode is an error naming it.
 */
bool		ts_read_file_index_describe(ts_plan *plan, const ts_scan_file *file, char **desc,
										const char **sidecar, ts_err *err);

/*
 * row_count.c: the rows a scan of the plan would return, from manifests and
 * deletion vectors alone (count(*) pushdown).  ts_plan_countable says
 * whether the table allows it (append-only, no data evolution; *why names
 * the reason if not).  ts_plan_count_rows counts the files whose partition
 * satisfies pred (NULL = all; it must pass ts_predicate_exact_on_partitions),
 * TS_ERR_UNSUPPORTED when the plan or pred does not allow an exact count.
 */
typedef struct ts_count_metrics
{
	int64_t		files_counted;
	int64_t		deletion_vectors_read;
} ts_count_metrics;

bool		ts_plan_countable(const ts_plan *plan, const char **why);
bool		ts_plan_count_rows(ts_plan *plan, const struct ts_predicate *pred, int64_t *rows,
							   ts_count_metrics *metrics, ts_err *err);

/*
 * The same count per group of partition-key values (GROUP BY partition
 * keys): key_fields are read-schema fields, all partition keys.  Groups
 * come sorted by their values (NULL first) and only with rows > 0;
 * values point into the plan's arena (one per key, in key order).
 */
typedef struct ts_count_group
{
	ts_value   *values;
	int64_t		rows;
} ts_count_group;

bool		ts_plan_count_groups(ts_plan *plan, const struct ts_predicate *pred,
								 const int *key_fields, int nkeys,
								 ts_count_group **groups, int *ngroups,
								 ts_count_metrics *metrics, ts_err *err);

/*
 * Rows a predicate rejects, taken out of the batches before the caller
 * converts them (row_filter.c).  Built for batches of these columns (field
 * indexes of the plan's read schema, in batch order, and their types): each
 * conjunct of p on those columns is decided on the row's values with SQL's
 * semantics (ts_predicate_leaf_decide); a row goes when one is certainly
 * not true (false, or NULL).  Rows kept may still fail p: the caller checks
 * its own quals on them.  NULL when no conjunct of p is on these columns.
 */
typedef struct ts_row_filter ts_row_filter;

ts_row_filter *ts_row_filter_new(const struct ts_predicate *p, const int *columns,
								 const ts_type *const *types, int ncolumns);

/*
 * Take the rows f rejects out of batch (f NULL: none): its values then
 * point into f's buffer, valid until the next call or the next batch.
 * Returns the rows left (maybe 0).
 */
int			ts_row_filter_apply(ts_row_filter *f, ts_batch *batch);

/*
 * Did the last ts_row_filter_apply keep exactly the rows p holds on?  True
 * only when every conjunct of p is decided here exactly (comparisons, IN,
 * IS [NOT] NULL with literals of the column's type, on columns of the
 * batch, of types ordered as PostgreSQL orders them: see row_filter.c) and
 * every row kept had each of them decided (no string that is not UTF-8,
 * no buffer missing).  False for f NULL.  Whether p is all of the
 * caller's quals is the caller's question.
 */
bool		ts_row_filter_exact(const ts_row_filter *f);

/* Rows taken out so far. */
int64_t		ts_row_filter_rejected(const ts_row_filter *f);

void		ts_row_filter_free(ts_row_filter *f);

#endif							/* TS_READ_H */
