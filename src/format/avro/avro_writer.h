/*
 * avro_writer.h - write Avro object container files (data files, fixtures, tests).
 *
 * Owns: turning Paimon fields into the Avro schema Java Paimon's
 * AvroSchemaConverter produces (record "record" in namespace
 * "org.apache.paimon.avro.generated", nested records "<parent>_<field>",
 * nullable => ["null", T] with "default": null, MAP with non-string keys
 * => array of record {key, value} with logicalType "map"), encoding rows of
 * ts_value with that schema (or with any explicitly given schema JSON),
 * and framing blocks (~64 KiB uncompressed) with codec null, deflate,
 * snappy or zstandard.  The file is produced in memory (a ts_buf), or
 * streamed block by block through the caller's sink (data files); this
 * layer never opens files for writing.
 *
 * Value conventions are those of ts_value.h for the Paimon type the Avro
 * node stands for (ts_avro_node_to_paimon): int => v.i, timestamp-* =>
 * v.ts, decimal => v.dec, string/bytes/fixed => v.s, record => v.nested
 * (n = number of fields), array => v.nested, map / array-map => v.nested
 * with 2*n items (key, value).  A MULTISET field (only with the fields
 * API) is written as Paimon does: distinct elements with their counts.
 */
#ifndef TS_AVRO_WRITER_H
#define TS_AVRO_WRITER_H

#include "format/avro/avro_container.h"

typedef struct ts_avro_writer ts_avro_writer;

/*
 * The Avro schema JSON (compact, field order as Java prints it) that Paimon
 * writes for a row of these fields.  ts_malloc'd; NULL + TS_ERR_UNSUPPORTED
 * for types Avro cannot hold (TIMESTAMP(p>6), TIME(p>3), VARIANT ...).
 */
char	   *ts_avro_schema_json_for_fields(const ts_field *fields, int nfields, ts_err *err);

/*
 * A writer for the Paimon fields (schema from ts_avro_schema_json_for_fields).
 * The fields (and their types) must outlive the writer.
 */
ts_avro_writer *ts_avro_writer_create_for_fields(const ts_field *fields, int nfields,
												 ts_avro_codec codec, ts_err *err);

/*
 * A writer for an explicit schema (top level: a record, or a union
 * ["null", record]); rows carry one value per top-level record field.
 */
ts_avro_writer *ts_avro_writer_create(const char *schema_json, ts_avro_codec codec, ts_err *err);

/* Optional: fixed sync marker (default: derived from the schema, deterministic). */
void		ts_avro_writer_set_sync(ts_avro_writer *w, const uint8_t sync[16]);
/* Optional: uncompressed bytes at which a block is flushed (default 64 KiB). */
void		ts_avro_writer_set_block_size(ts_avro_writer *w, size_t bytes);
/* Optional: objects at which a block is flushed as well (default 0: by size only). */
void		ts_avro_writer_set_block_rows(ts_avro_writer *w, int64_t rows);
/* Optional: the level of zstandard blocks (default 1, Paimon's file.compression.zstd-level). */
void		ts_avro_writer_set_zstd_level(ts_avro_writer *w, int level);

/* Number of values a row must have. */
int			ts_avro_writer_ncols(const ts_avro_writer *w);

/* Append one row (values[0..ncols-1]). */
bool		ts_avro_writer_add(ts_avro_writer *w, const ts_value *values, ts_err *err);

/* Where streamed bytes go: false + err stops the writer. */
typedef bool (*ts_avro_sink) (void *arg, const void *data, size_t len, ts_err *err);

/*
 * Stream the file instead: the header now, then each block as it is
 * framed, through sink (memory bounded by one block).  Call before the
 * first row; ts_avro_writer_finish then writes the last block (out unused).
 */
bool		ts_avro_writer_stream(ts_avro_writer *w, ts_avro_sink sink, void *arg, ts_err *err);
/* Bytes of the file so far: written plus framed plus the open block (uncompressed). */
int64_t		ts_avro_writer_bytes(const ts_avro_writer *w);
int64_t		ts_avro_writer_rows(const ts_avro_writer *w);

/* Flush and append the complete file to out. The writer stays usable only for free. */
bool		ts_avro_writer_finish(ts_avro_writer *w, ts_buf *out, ts_err *err);

void		ts_avro_writer_free(ts_avro_writer *w);

/* Compress one block payload with a codec (snappy adds its CRC32; zstandard at zstd_level). */
bool		ts_avro_compress(ts_avro_codec codec, int zstd_level, const uint8_t *in, size_t len,
							 ts_buf *out, ts_err *err);

#endif							/* TS_AVRO_WRITER_H */
