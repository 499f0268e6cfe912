/*
 * pq_writer.h - a streaming Parquet writer for Paimon rows.
 *
 * Owns: writing one Parquet file as Java Paimon's ParquetSchemaConverter
 * lays out columns of every type the reader maps, nested ARRAY / MAP /
 * MULTISET / ROW included (field ids in the schema, the physical and
 * converted types Paimon uses), PLAIN data pages (v1) of about
 * parquet.page.size bytes (or 20,000 rows) in row groups of a given size,
 * as Java's parquet-mr lays them out, repetition and definition levels
 * RLE-encoded, pages compressed with zstd or stored.  A leaf's page is
 * buffered until full, then compressed into the row group's chunk; the row
 * group is written through the caller's sink when its data (counted
 * uncompressed) reaches the row group size: memory is bounded per row
 * group, not per file.  Types
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
 * Row groups: 8 MiB unless told (a writer is open per partition and bucket
 * written: memory per open file stays small); Java's parquet.block.size
 * default (ParquetWriter.DEFAULT_BLOCK_SIZE) is TS_PQ_JAVA_ROW_GROUP_BYTES.
 * Pages: Java's parquet.page.size and page row count limit defaults.
 */
#define TS_PQ_ROW_GROUP_BYTES ((size_t) 8 << 20)
#define TS_PQ_JAVA_ROW_GROUP_BYTES ((size_t) 128 << 20)
#define TS_PQ_PAGE_BYTES ((size_t) 1 << 20)
#define TS_PQ_PAGE_ROWS 20000

/*
 * A writer of fields[0..n) (they must outlive it).  zstd_level 0: pages
 * stored uncompressed; row_group_bytes: bytes of data (uncompressed, as
 * buffered) at which a row group is written (0: TS_PQ_ROW_GROUP_BYTES).
 * Pages: TS_PQ_PAGE_BYTES / TS_PQ_PAGE_ROWS unless
 * ts_pq_writer_set_page_size says otherwise before the first row.
 */
ts_pq_writer *ts_pq_writer_create(const ts_field *fields, int n, int zstd_level,
								  size_t row_group_bytes, ts_pq_sink sink, void *arg,
								  ts_err *err);
/* Pages of page_bytes buffered bytes or page_rows rows (0: the default). */
void		ts_pq_writer_set_page_size(ts_pq_writer *w, size_t page_bytes, int64_t page_rows);
/* One row: row[0..n); strings are copied. */
bool		ts_pq_writer_add(ts_pq_writer *w, const ts_value *row, ts_err *err);
/* Bytes the file will have so far: written plus buffered (uncompressed). */
int64_t		ts_pq_writer_bytes(const ts_pq_writer *w);
int64_t		ts_pq_writer_rows(const ts_pq_writer *w);
/* Write the last row group and the footer. */
bool		ts_pq_writer_finish(ts_pq_writer *w, ts_err *err);
void		ts_pq_writer_free(ts_pq_writer *w);

#endif							/* TS_PQ_WRITER_H */
