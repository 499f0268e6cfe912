/*
 * orc_writer.h - a streaming ORC writer for Paimon rows.
 *
 * Owns: writing one ORC file as Java Paimon's ORC writer lays out a row
 * (OrcTypeUtil.convertToOrcType: the ORC type of each Paimon type, the
 * attribute paimon.id on every column, Paimon's ids on ARRAY elements and
 * MAP keys / values), stripes of buffered rows written through the
 * caller's sink when the stripe is full (memory bounded per stripe, not
 * per file), streams compressed in ORC's chunks (none, zlib, snappy, lz4,
 * zstd), and column statistics per stripe (metadata) and per file
 * (footer): value counts, hasNull, integer / date / floating point /
 * string min and max.  Integers are RLE v1 (DIRECT), strings DIRECT,
 * timestamps with writer time zone UTC.
 */
#ifndef TS_ORC_WRITER_H
#define TS_ORC_WRITER_H

#include "base/ts_types.h"
#include "base/ts_value.h"

typedef struct ts_orc_writer ts_orc_writer;

/* ORC's CompressionKind values (orc_proto.proto) this writer produces */
typedef enum ts_orc_codec
{
	TS_ORC_CODEC_NONE = 0,
	TS_ORC_CODEC_ZLIB = 1,
	TS_ORC_CODEC_SNAPPY = 2,
	TS_ORC_CODEC_LZ4 = 4,
	TS_ORC_CODEC_ZSTD = 5
} ts_orc_codec;

/* Where the bytes go: false + err stops the writer. */
typedef bool (*ts_orc_sink) (void *arg, const void *data, size_t len, ts_err *err);

/*
 * Can the writer store a column of type t (Paimon's ORC writer takes no
 * BINARY(n) / VARBINARY(n), MULTISET, VARIANT, ...)?  TS_ERR_UNSUPPORTED
 * names col.
 */
bool		ts_orc_writer_supports(const char *col, const ts_type *t, ts_err *err);

/*
 * A writer of fields[0..n) (they must outlive it).  level: the zstd level
 * (zstd only); stripe_bytes: buffered bytes at which a stripe is written
 * (0: 8 MiB); stripe_rows: rows at which a stripe is written (0: no limit).
 */
ts_orc_writer *ts_orc_writer_create(const ts_field *fields, int n, ts_orc_codec codec, int level,
									size_t stripe_bytes, int64_t stripe_rows,
									ts_orc_sink sink, void *arg, ts_err *err);
/* One row: row[0..n); bytes and nested values are copied. */
bool		ts_orc_writer_add(ts_orc_writer *w, const ts_value *row, ts_err *err);
/* Bytes the file will have so far: written plus buffered (uncompressed). */
int64_t		ts_orc_writer_bytes(const ts_orc_writer *w);
int64_t		ts_orc_writer_rows(const ts_orc_writer *w);
/* Write the last stripe, the metadata, the footer and the postscript. */
bool		ts_orc_writer_finish(ts_orc_writer *w, ts_err *err);
void		ts_orc_writer_free(ts_orc_writer *w);

#endif							/* TS_ORC_WRITER_H */
