/*
 * file_writer.h - one data-file writer interface over the formats written.
 *
 * Owns: choosing the writer of a table's `file.format` (Parquet, ORC,
 * Avro) and its codec from `file.compression` as Java Paimon maps it for
 * that format (refusing a format or codec it cannot write, naming it;
 * the Avro mapping, `avro.codec` first, also gives the manifests' codec
 * from manifest.compression),
 * the file name extension, the types each format takes, and forwarding
 * rows to the chosen streaming writer.  Knows nothing of tables,
 * partitions or statistics (src/write does).
 */
#ifndef TS_FILE_WRITER_H
#define TS_FILE_WRITER_H

#include "base/ts_types.h"
#include "base/ts_value.h"
#include "format/format.h"

/* How data files are written: format and codec. */
typedef struct ts_file_writer_options
{
	ts_file_format format;		/* TS_FORMAT_PARQUET, _ORC or _AVRO */
	int			codec;			/* the format's codec (ts_orc_codec, ts_avro_codec); Parquet: unused */
	int			zstd_level;		/* zstd: its level; Parquet: 0 = uncompressed */
	int64_t		pq_row_group_bytes; /* Parquet: parquet.block.size (0: the writer's 8 MiB) */
	int64_t		pq_page_bytes;	/* Parquet: parquet.page.size (0: Java's default) */
} ts_file_writer_options;

typedef struct ts_file_writer ts_file_writer;

/* Where the bytes go: false + err stops the writer. */
typedef bool (*ts_file_sink) (void *arg, const void *data, size_t len, ts_err *err);

/*
 * The options of `file.format` (NULL: parquet), `file.compression` (NULL:
 * zstd), `file.compression.zstd-level` (NULL: 1) and, for Avro,
 * `avro.codec` (NULL: unset); TS_ERR_UNSUPPORTED naming the format or
 * codec this writer does not produce.
 */
bool		ts_file_writer_options_parse(const char *format, const char *compression,
										 const char *zstd_level, const char *avro_codec,
										 ts_file_writer_options *o, ts_err *err);
/* `file.compression.zstd-level` (NULL: Java's default 1): 1..22, else TS_ERR_INVALID naming it. */
bool		ts_file_writer_zstd_level(const char *value, int *level, ts_err *err);
/*
 * The Parquet row group and page sizes of `parquet.block.size` and
 * `parquet.page.size` (NULL: 8 MiB, and Java's 1 MB), byte counts as
 * Hadoop's Configuration reads them; TS_ERR_INVALID naming the option.
 */
bool		ts_file_writer_parquet_sizes(const char *block_size, const char *page_size,
										 ts_file_writer_options *o, ts_err *err);
/*
 * The codec of Avro files (data files and manifests alike) as Java's
 * AvroFileFormat.createCodecFactory picks it: the table's `avro.codec`
 * (NULL: unset) wins, by Avro's CodecFactory.fromString names, exact case
 * (null, deflate, snappy, zstandard at Avro's level 3; bzip2 and xz
 * TS_ERR_UNSUPPORTED, another name TS_ERR_INVALID); otherwise the value
 * of option key (compression, NULL: zstd): "zstd" is zstandard at
 * zstd_level, "none" null.  files ("data files", "manifests") names them
 * in errors.  *codec: a ts_avro_codec; *level: its zstandard level.
 */
bool		ts_file_writer_avro_codec(const char *avro_codec, const char *key,
									  const char *compression, int zstd_level, const char *files,
									  int *codec, int *level, ts_err *err);
/* "parquet", "orc", "avro": the file name extension (and _FILE_FORMAT). */
const char *ts_file_writer_extension(const ts_file_writer_options *o);
/* Can the format store a column of type t?  TS_ERR_UNSUPPORTED names col and the format. */
bool		ts_file_writer_supports(const ts_file_writer_options *o, const char *col,
									const ts_type *t, ts_err *err);

ts_file_writer *ts_file_writer_create(const ts_file_writer_options *o, const ts_field *fields,
									  int n, ts_file_sink sink, void *arg, ts_err *err);
bool		ts_file_writer_add(ts_file_writer *w, const ts_value *row, ts_err *err);
/* Bytes the file will have so far (written plus buffered, uncompressed). */
int64_t		ts_file_writer_bytes(const ts_file_writer *w);
int64_t		ts_file_writer_rows(const ts_file_writer *w);
bool		ts_file_writer_finish(ts_file_writer *w, ts_err *err);
void		ts_file_writer_free(ts_file_writer *w);

#endif							/* TS_FILE_WRITER_H */
