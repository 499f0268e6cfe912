/*
 * pq_writer.h - a streaming Parquet writer for Paimon rows.
 *
 * Owns: writing one Parquet file as Java Paimon's ParquetSchemaConverter
 * lays out columns of every type the reader maps, nested ARRAY / MAP /
 * MULTISET / ROW included (field ids in the schema, the physical and
 * converted types Paimon uses), one PLAIN data page (v1) per leaf column
 * per row group, repetition and definition levels RLE-encoded, pages
 * compressed with zstd or stored.  Rows are buffered per leaf only until
 * the row group is full (by rows or bytes), then written through the
 * caller's sink: memory is bounded per row group, not per file.  Types
 * the reader does not map (VARIANT, BLOB, VECTOR, ...) and MULTISETs of
 * nested elements are refused by ts_pq_writer_supports.
 */
#ifndef TS_PQ_WRITER_H
#define TS_PQ_WRITER_H

#include "base/ts_types.h"
#include "base/ts_value.h"

typedef struct ts_pq_writer ts_pq_writer;

/* Where the bytes go: false + err stops the writer. */
typedef bool (*ts_pq_sink) (void *arg, const void *data, size_t len, ts_err *err);

/* Can the writer store a column of type t?  TS_ERR_UNSUPPORTED names col. */
bool		ts_pq_writer_supports(const char *col, const ts_type *t, ts_err *err);

/*
 * A writer of fields[0..n) (they must outlive it).  zstd_level 0: pages
 * stored uncompressed; row_group_bytes: buffered bytes at which a row
 * group is written (0: 8 MiB).
 */
ts_pq_writer *ts_pq_writer_create(const ts_field *fields, int n, int zstd_level,
								  size_t row_group_bytes, ts_pq_sink sink, void *arg,
								  ts_err *err);
/* One row: row[0..n); strings are copied. */
bool		ts_pq_writer_add(ts_pq_writer *w, const ts_value *row, ts_err *err);
/* Bytes the file will have so far: written plus buffered (uncompressed). */
int64_t		ts_pq_writer_bytes(const ts_pq_writer *w);
int64_t		ts_pq_writer_rows(const ts_pq_writer *w);
/* Write the last row group and the footer. */
bool		ts_pq_writer_finish(ts_pq_writer *w, ts_err *err);
void		ts_pq_writer_free(ts_pq_writer *w);

#endif							/* TS_PQ_WRITER_H */
