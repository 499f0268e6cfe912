/*
 * format.h - the one reader interface every data/metadata file format offers.
 *
 * Owns: how a caller asks a file for columns and gets batches of ts_value
 * rows back, whatever the format (Avro, Parquet, ORC, CSV, JSON, and the
 * single-column Paimon BLOB files).  A
 * format reader knows nothing about snapshots, manifests or PostgreSQL.
 *
 * Column resolution: each requested column carries the Paimon field id and
 * the name it had when the file was written, and the Paimon type it was
 * written with.  A reader matches by field id when the file carries ids
 * (Parquet field_id, ORC "paimon.id"), otherwise by name (Avro always;
 * Paimon manifests are matched by name with field_id = -1).  Nested ROW
 * fields are matched the same way, recursively.  A requested column the
 * file does not have reads as NULL in every row (schema evolution: added
 * column; manifest format versions: field added later).
 *
 * Values come out in the requested Paimon type (e.g. an Avro int read as
 * TINYINT, a Parquet INT64 timestamp-micros as TIMESTAMP(6)); if the
 * file's physical type cannot represent the requested type the open fails
 * with TS_ERR_UNSUPPORTED naming the column.
 */
#ifndef TS_FORMAT_H
#define TS_FORMAT_H

#include "base/ts_value.h"
#include "base/ts_fs.h"
#include "base/ts_ranges.h"

typedef enum ts_file_format
{
	TS_FORMAT_UNKNOWN = 0,
	TS_FORMAT_AVRO,
	TS_FORMAT_PARQUET,
	TS_FORMAT_ORC,
	TS_FORMAT_CSV,
	TS_FORMAT_JSON,
	TS_FORMAT_TEXT,
	TS_FORMAT_BLOB				/* Paimon .blob files (one BLOB column) */
} ts_file_format;

typedef struct ts_read_column
{
	int32_t		field_id;		/* -1: match by name only */
	const char *name;			/* name in the file's (write-time) schema */
	const ts_type *type;		/* Paimon type the file was written with */
} ts_read_column;

/* Per-column statistics a reader offers to the row-group/stripe filter. */
typedef struct ts_column_stats
{
	bool		has_min_max;
	ts_value	min;
	ts_value	max;
	int64_t		null_count;		/* -1 = unknown */
	int64_t		row_count;
} ts_column_stats;

/*
 * Optional: called by Parquet/ORC once per row group/stripe with the stats
 * of each requested column (stats[i] for columns[i]; NULL entries when the
 * file has none).  Return false to skip the row group/stripe.  Must be
 * conservative: when unsure keep it.
 */
typedef bool (*ts_stats_filter_fn) (void *arg, const ts_column_stats *stats, int ncols);

/*
 * Optional: called by Parquet/ORC once per row group/stripe (before the
 * statistics filter), by Avro once per block, with the file position of
 * its first row and its row count.  Return false to skip it: a row
 * selection (a file index's result, wanted row ids) holds none of its
 * rows.
 */
typedef bool (*ts_rows_filter_fn) (void *arg, int64_t first_row, int64_t nrows);

/* Parquet: the default buffer a large column chunk is read through (64 KiB) */
#define TS_CHUNK_BUFFER_BYTES ((size_t) 64 << 10)

typedef struct ts_reader_options
{
	ts_stats_filter_fn stats_filter;	/* may be NULL */
	void	   *stats_filter_arg;
	ts_rows_filter_fn rows_filter;	/* may be NULL */
	void	   *rows_filter_arg;
	int			batch_rows;		/* 0 = TS_BATCH_ROWS */
	/* large buffers to take from and give back at close; may be NULL */
	ts_bufpool *buffers;
	/*
	 * A byte range of the file [range_start, range_end): only the row
	 * groups / stripes that start in it are read (Parquet, ORC; range_end
	 * 0 = the whole file).  Ranges that cover a file read each row group exactly once
	 * (a parallel scan's tasks); row positions then are not the file's.
	 */
	int64_t		range_start;
	int64_t		range_end;
	/*
	 * A Parquet or ORC object read by ranges: the bytes from its start
	 * requested with its tail, in the same round trip (ts_file_hold_ends),
	 * so that its first row group / stripe is in when its footer is; a file
	 * that this and the tail cover is read whole.  0: TS_HEAD_BYTES_DEFAULT;
	 * < 0: none (only the tail).
	 */
	int64_t		head_bytes;
	/* CSV / JSON text options, as Paimon option key/value pairs */
	int			ntext_options;
	const char *const *text_option_keys;
	const char *const *text_option_values;

	/*
	 * CSV: the types of all fields of a record, in file order (a format
	 * table's non-partition columns).  With them DROPMALFORMED and FAILFAST
	 * judge whole records, so which rows a scan returns never depends on
	 * the columns it reads; nrecord_fields 0 = only the requested ones.
	 */
	int			nrecord_fields;
	const ts_type *const *record_types;

	/*
	 * the file system the file is read through: required (the scan's; a
	 * tool's or unit test's ts_fs_local_unconfined); without it every open
	 * fails naming the file
	 */
	ts_fs	   *fs;

	/*
	 * Parquet: a column chunk of a local file larger than this is read
	 * page by page through a buffer of this many bytes (refilled as its
	 * pages are consumed; a larger page is read whole); 0 =
	 * TS_CHUNK_BUFFER_BYTES.  Smaller chunks are read whole.
	 */
	size_t		chunk_buffer_bytes;
} ts_reader_options;

/* The file system of options (NULL options: none, so opening fails). */
ts_fs	   *ts_reader_fs(const ts_reader_options *options);

/*
 * What a reader keeps of ts_reader_options (options may be NULL):
 * ts_reader_settings_init is the one place that copies them, for the
 * Parquet, ORC and Avro readers; ts_reader_batch_rows the batch size alone.
 */
typedef struct ts_reader_settings
{
	ts_stats_filter_fn stats_filter;	/* may be NULL */
	void	   *stats_filter_arg;
	ts_rows_filter_fn rows_filter;	/* may be NULL */
	void	   *rows_filter_arg;
	ts_bufpool *buffers;		/* the caller's, or NULL */
	int64_t		range_start;	/* row groups / stripes starting in [start, end); end 0: all */
	int64_t		range_end;
	int64_t		head_bytes;		/* ts_reader_options': 0 there = the default, here none */
	int			batch_rows;		/* never 0 */
	size_t		chunk_buffer_bytes; /* never 0 */
} ts_reader_settings;

/*
 * The bytes from an object's start read with its tail when the caller
 * does not say (ts_reader_options.head_bytes): TS_RANGE_GAP's worth, what
 * a request costs in transfer, so a narrow projection wastes at most that
 * much per file read by ranges.
 */
#define TS_HEAD_BYTES_DEFAULT ((int64_t) 1 << 20)

void		ts_reader_settings_init(ts_reader_settings *s, const ts_reader_options *options);
int			ts_reader_batch_rows(const ts_reader_options *options);

/* What a reader read, for EXPLAIN ANALYZE and benchmarks. */
typedef struct ts_reader_metrics
{
	int64_t		bytes_read;
	int64_t		rows_read;
	int32_t		row_groups_total;	/* row groups / stripes / blocks */
	int32_t		row_groups_kept;
	int32_t		files_opened;	/* set by src/read (split readers) */
	int32_t		files_skipped_index;	/* by their sidecar file index (src/read) */
	int64_t		rows_skipped_index; /* left out by a file index's row selection (src/read) */
	int64_t		rows_skipped_row_id;	/* left out as holding no wanted row id (src/read) */
} ts_reader_metrics;

typedef struct ts_format_reader ts_format_reader;

/*
 * Bytes of a file held in memory already (fetched ahead): at(arg, offset,
 * len) gives [offset, offset + len) or NULL; it never waits.
 */
typedef struct ts_held_bytes
{
	const uint8_t *(*at) (void *arg, int64_t offset, size_t len);
	void	   *arg;
} ts_held_bytes;

typedef struct ts_format_reader_ops
{
	/* fill *batch; return rows (>0), 0 at end, -1 on error */
	int			(*next) (ts_format_reader *r, ts_batch *batch, ts_err *err);
	void		(*close) (ts_format_reader *r);
	/* optional: ts_format_ranges_like */
	int			(*ranges_like) (const ts_format_reader *r, const uint8_t *tail, size_t tail_len,
								int64_t file_size, const struct ts_held_bytes *held,
								int64_t budget, ts_range *out, int max);
} ts_format_reader_ops;

/* Every concrete reader embeds this first. */
struct ts_format_reader
{
	const ts_format_reader_ops *ops;
	ts_reader_metrics metrics;
	/*
	 * Where in the file the reader is, for error context: part_name "row
	 * group" (Parquet), "stripe" (ORC) or "block" (Avro) and the 0-based
	 * index of the one being read; part_name NULL when unknown or none.
	 */
	const char *part_name;
	int32_t		part;
	/*
	 * Readers that leave row groups / stripes / blocks out (Parquet, ORC, Avro) set
	 * reports_positions and, with each batch, row_position: the file
	 * position of the batch's first row (ranges and skipped row groups
	 * counted), so that callers keep row positions exact.
	 */
	bool		reports_positions;
	int64_t		row_position;
};

/* Format from file magic (Obj\x01, PAR1, ORC); TS_FORMAT_UNKNOWN otherwise. */
ts_file_format ts_format_from_magic(const uint8_t *head, size_t len);
/* Format from a Paimon option value / file extension ("parquet", "orc"...). */
ts_file_format ts_format_from_name(const char *name);
const char *ts_format_name(ts_file_format fmt);

/*
 * Open a file.  fmt may be TS_FORMAT_UNKNOWN for self-describing binary
 * formats (decided by magic).  The columns array (and the types it points
 * to) must outlive the reader.
 */
ts_format_reader *ts_format_open(ts_file_format fmt, const char *path,
								 const ts_read_column *columns, int ncols,
								 const ts_reader_options *options, ts_err *err);

static inline int
ts_format_next(ts_format_reader *r, ts_batch *batch, ts_err *err)
{
	batch->stride = 0;			/* format readers' rows are ncols apart */
	return r->ops->next(r, batch, err);
}

static inline void
ts_format_close(ts_format_reader *r)
{
	if (r)
		r->ops->close(r);
}

/*
 * The byte ranges a reader like r (its columns, opened with no filter that
 * leaves row groups out and no byte range) would read first from another
 * file of the same layout on an object store, given that file's last
 * tail_len bytes (file_size bytes in all), at most max ranges into out
 * (buf NULL): Parquet, its first row groups' projected column chunks, as
 * many row groups as fit in budget bytes (always the first); ORC, its
 * first 16 stripes' footers, or the streams r reads of those whose footers
 * held has (NULL: none), within budget (every column read: its first
 * stripes whole).  Only a hint for fetching them ahead: 0 when r's format
 * has none, r has such a filter, the footer is not within the tail, or the
 * other file's schema is not r's file's.  Nothing is read.
 */
int			ts_format_ranges_like(const ts_format_reader *r, const uint8_t *tail, size_t tail_len,
								  int64_t file_size, const ts_held_bytes *held, int64_t budget,
								  ts_range *out, int max);

/* Per-format constructors (called by ts_format_open). */
ts_format_reader *ts_avro_open(const char *path, const ts_read_column *columns, int ncols,
							   const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_parquet_open(const char *path, const ts_read_column *columns, int ncols,
								  const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_orc_open(const char *path, const ts_read_column *columns, int ncols,
							  const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_csv_open(const char *path, const ts_read_column *columns, int ncols,
							  const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_blob_open(const char *path, const ts_read_column *columns, int ncols,
							   const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_json_open(const char *path, const ts_read_column *columns, int ncols,
							   const ts_reader_options *options, ts_err *err);
ts_format_reader *ts_text_open(const char *path, const ts_read_column *columns, int ncols,
							   const ts_reader_options *options, ts_err *err);

/*
 * May a parallel scan read this CSV / JSON / TEXT file in byte ranges
 * (range_start / range_end: the lines that start in them)?  Uncompressed
 * files whose lines end at \n, \r\n or \r (format/text/text_parts.c).
 */
bool		ts_text_file_reads_in_parts(ts_file_format format, const char *path,
										const ts_reader_options *options);

/*
 * Where a parallel scan may cut such a CSV file into at most nparts parts,
 * each starting at a record (a quoted field may hold line breaks):
 * starts[0] = 0, and starts[k] the first record start at or after the
 * nominal cut size / nparts * k, strictly increasing, each before the end
 * of the file (format/text/csv_part_starts.c).  Returns the number of
 * parts, 1 (read whole) where no cut can be proved (a file on an object
 * store, a quote or escape character that is a line break, a quoted field
 * that never closes); -1 with err set when the file cannot be read.
 */
int			ts_csv_part_starts(const char *path, const ts_reader_options *options, int nparts,
							   int64_t *starts, ts_err *err);

#endif							/* TS_FORMAT_H */
