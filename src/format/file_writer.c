/*
 * file_writer.c - the data-file writer of a table's file.format.
 *
 * Codecs as Java Paimon passes `file.compression` on: Parquet through
 * its CompressionCodecName (zstd or none here), ORC as orc.compress
 * (CompressionKind: none, zlib, snappy, lz4, zstd; LZO refused), Avro
 * as AvroFileFormat.createCodecFactory: the table's `avro.codec` first,
 * then CodecFactory with "zstd" meaning zstandard at
 * `file.compression.zstd-level` (null, deflate, snappy, zstandard;
 * bzip2 and xz refused).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_base.h"
#include "base/ts_fs_write.h"
#include "format/avro/avro_writer.h"
#include "format/file_writer.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/pq_writer.h"

struct ts_file_writer
{
	ts_file_format format;
	ts_pq_writer *pq;
	ts_orc_writer *orc;
	ts_avro_writer *avro;
};

static bool
refuse_codec(const char *format, const char *compression, const char *supported, ts_err *err)
{
	ts_error(err, TS_ERR_UNSUPPORTED,
			 "writing %s data files with \"file.compression\" = \"%s\" is not supported",
			 format, compression);
	return ts_error_hint(err, "%s data files are written with %s.", format, supported);
}

/* file.compression's and manifest.compression's Avro names: zstd, zstandard, deflate, snappy, none */
static bool
avro_compression_codec(const char *c, int *codec)
{
	if (strcasecmp(c, "none") == 0 || strcasecmp(c, "uncompressed") == 0 ||
		strcasecmp(c, "null") == 0)
		*codec = TS_AVRO_CODEC_NULL;
	else if (strcasecmp(c, "zstd") == 0 || strcasecmp(c, "zstandard") == 0)
		*codec = TS_AVRO_CODEC_ZSTANDARD;
	else if (strcasecmp(c, "deflate") == 0)
		*codec = TS_AVRO_CODEC_DEFLATE;
	else if (strcasecmp(c, "snappy") == 0)
		*codec = TS_AVRO_CODEC_SNAPPY;
	else
		return false;
	return true;
}

bool
ts_file_writer_avro_codec(const char *avro_codec, const char *key, const char *compression,
						  int zstd_level, const char *files, int *codec, int *level, ts_err *err)
{
	static const char *const avro_names[] = {"null", "deflate", "snappy", "zstandard"};
	const char *c = compression ? compression : "zstd";

	if (avro_codec != NULL)
	{
		/* Avro's CodecFactory.fromString: its registered names, exact case */
		for (int i = 0; i < (int) (sizeof(avro_names) / sizeof(avro_names[0])); i++)
			if (strcmp(avro_codec, avro_names[i]) == 0)
			{
				avro_compression_codec(avro_codec, codec);
				*level = 3;		/* CodecFactory.DEFAULT_ZSTANDARD_LEVEL */
				return true;
			}
		if (strcmp(avro_codec, "bzip2") == 0 || strcmp(avro_codec, "xz") == 0)
		{
			ts_error(err, TS_ERR_UNSUPPORTED, "writing Avro %s with \"avro.codec\" = \"%s\" is not supported",
					 files, avro_codec);
			return ts_error_hint(err, "Avro files are written with the codecs null, deflate, snappy or zstandard.");
		}
		ts_error(err, TS_ERR_INVALID, "invalid value for option \"avro.codec\": \"%s\"", avro_codec);
		return ts_error_hint(err, "Avro's codecs are null, deflate, snappy, bzip2, xz and zstandard, spelt so.");
	}
	if (!avro_compression_codec(c, codec))
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "writing Avro %s with \"%s\" = \"%s\" is not supported",
				 files, key, c);
		return ts_error_hint(err, "Avro %s are written with zstd, deflate, snappy or none.", files);
	}
	/* Java: "zstd" at file.compression.zstd-level, any other name by CodecFactory.fromString */
	*level = strcasecmp(c, "zstd") == 0 ? zstd_level : 3;
	return true;
}

bool
ts_file_writer_zstd_level(const char *value, int *level, ts_err *err)
{
	char	   *end;
	long		n;

	*level = 1;
	if (value == NULL)
		return true;
	n = strtol(value, &end, 10);
	if (end == value || *end != '\0' || n < 1 || n > 22)
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"",
						"file.compression.zstd-level", value);
	*level = (int) n;
	return true;
}

bool
ts_file_writer_options_parse(const char *format, const char *compression, const char *zstd_level,
							 const char *avro_codec, ts_file_writer_options *o, ts_err *err)
{
	const char *c = compression ? compression : "zstd";
	bool		none = strcasecmp(c, "none") == 0 || strcasecmp(c, "uncompressed") == 0;
	bool		zstd = strcasecmp(c, "zstd") == 0;

	o->codec = 0;
	if (!ts_file_writer_zstd_level(zstd_level, &o->zstd_level, err))
		return false;
	o->pq_row_group_bytes = 0;
	o->pq_page_bytes = 0;
	if (format == NULL || strcasecmp(format, "parquet") == 0)
	{
		o->format = TS_FORMAT_PARQUET;
		if (none)
			o->zstd_level = 0;
		else if (!zstd)
			return refuse_codec("Parquet", c, "zstd or none", err);
	}
	else if (strcasecmp(format, "orc") == 0)
	{
		o->format = TS_FORMAT_ORC;
		if (none)
			o->codec = TS_ORC_CODEC_NONE;
		else if (zstd)
			o->codec = TS_ORC_CODEC_ZSTD;
		else if (strcasecmp(c, "zlib") == 0)
			o->codec = TS_ORC_CODEC_ZLIB;
		else if (strcasecmp(c, "snappy") == 0)
			o->codec = TS_ORC_CODEC_SNAPPY;
		else if (strcasecmp(c, "lz4") == 0)
			o->codec = TS_ORC_CODEC_LZ4;
		else
			return refuse_codec("ORC", c, "zstd, zlib, snappy, lz4 or none", err);
	}
	else if (strcasecmp(format, "avro") == 0)
	{
		o->format = TS_FORMAT_AVRO;
		if (!ts_file_writer_avro_codec(avro_codec, "file.compression", compression, o->zstd_level,
									   "data files", &o->codec, &o->zstd_level, err))
			return false;
	}
	else
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "writing to a table with \"file.format\" = \"%s\" is not supported yet", format);
		return ts_error_hint(err, "This writer writes Parquet, ORC and Avro data files.");
	}
	return true;
}

const char *
ts_file_writer_extension(const ts_file_writer_options *o)
{
	return o->format == TS_FORMAT_ORC ? "orc" : o->format == TS_FORMAT_AVRO ? "avro" : "parquet";
}

bool
ts_file_writer_supports(const ts_file_writer_options *o, const char *col, const ts_type *t,
						ts_err *err)
{
	if (o->format == TS_FORMAT_ORC)
		return ts_orc_writer_supports(col, t, err);
	if (o->format == TS_FORMAT_AVRO)
	{
		ts_field	f = {0, (char *) col, (ts_type *) t, NULL};
		char	   *json = ts_avro_schema_json_for_fields(&f, 1, err);

		if (json == NULL)
		{
			ts_err		why = *err;

			ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\": type %s is not supported in Avro data files",
					 col, ts_type_kind_name(t->kind));
			return ts_error_detail(err, "%s", why.msg);
		}
		ts_free(json);
		return true;
	}
	return ts_pq_writer_supports(col, t, err);
}

static int
hex_digit(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0';
}

/* A random sync marker, as Java's DataFileWriter picks one per file. */
static bool
random_sync(uint8_t sync[16], ts_err *err)
{
	char		uuid[37];
	int			k = 0;

	if (!ts_random_uuid(uuid, err))
		return false;
	for (int i = 0; uuid[i] != '\0' && k < 16; i++)
		if (uuid[i] != '-')
		{
			sync[k++] = (uint8_t) (hex_digit(uuid[i]) << 4 | hex_digit(uuid[i + 1]));
			i++;
		}
	return k == 16;
}

/* A positive byte count of option key (Hadoop's getLong / getInt: digits); NULL keeps *out. */
static bool
parse_size(const char *key, const char *v, int64_t max, int64_t *out, ts_err *err)
{
	char	   *end;
	long long	n;

	if (v == NULL)
		return true;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || n < 1 || n > max)
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
	*out = n;
	return true;
}

bool
ts_file_writer_parquet_sizes(const char *block_size, const char *page_size,
							 ts_file_writer_options *o, ts_err *err)
{
	return parse_size("parquet.block.size", block_size, INT64_MAX, &o->pq_row_group_bytes, err) &&
		parse_size("parquet.page.size", page_size, INT32_MAX, &o->pq_page_bytes, err);
}

ts_file_writer *
ts_file_writer_create(const ts_file_writer_options *o, const ts_field *fields, int n,
					  ts_file_sink sink, void *arg, ts_err *err)
{
	ts_file_writer *w = ts_calloc(1, sizeof(ts_file_writer));
	uint8_t		sync[16];

	if (w == NULL)
	{
		ts_error_nomem(err, "a data file writer");
		return NULL;
	}
	w->format = o->format;
	switch (o->format)
	{
		case TS_FORMAT_ORC:
			w->orc = ts_orc_writer_create(fields, n, (ts_orc_codec) o->codec, o->zstd_level, 0, 0,
										  sink, arg, err);
			if (w->orc != NULL)
				return w;
			break;
		case TS_FORMAT_AVRO:
			w->avro = ts_avro_writer_create_for_fields(fields, n, (ts_avro_codec) o->codec, err);
			if (w->avro != NULL && random_sync(sync, err))
			{
				ts_avro_writer_set_sync(w->avro, sync);
				ts_avro_writer_set_zstd_level(w->avro, o->zstd_level);
				if (ts_avro_writer_stream(w->avro, sink, arg, err))
					return w;
			}
			break;
		default:
			w->pq = ts_pq_writer_create(fields, n, o->zstd_level, (size_t) o->pq_row_group_bytes,
										sink, arg, err);
			if (w->pq != NULL)
			{
				ts_pq_writer_set_page_size(w->pq, (size_t) o->pq_page_bytes, 0);
				return w;
			}
			break;
	}
	ts_file_writer_free(w);
	return NULL;
}

bool
ts_file_writer_add(ts_file_writer *w, const ts_value *row, ts_err *err)
{
	if (w->orc)
		return ts_orc_writer_add(w->orc, row, err);
	if (w->avro)
		return ts_avro_writer_add(w->avro, row, err);
	return ts_pq_writer_add(w->pq, row, err);
}

int64_t
ts_file_writer_bytes(const ts_file_writer *w)
{
	if (w->orc)
		return ts_orc_writer_bytes(w->orc);
	if (w->avro)
		return ts_avro_writer_bytes(w->avro);
	return ts_pq_writer_bytes(w->pq);
}

int64_t
ts_file_writer_rows(const ts_file_writer *w)
{
	if (w->orc)
		return ts_orc_writer_rows(w->orc);
	if (w->avro)
		return ts_avro_writer_rows(w->avro);
	return ts_pq_writer_rows(w->pq);
}

bool
ts_file_writer_finish(ts_file_writer *w, ts_err *err)
{
	if (w->orc)
		return ts_orc_writer_finish(w->orc, err);
	if (w->avro)
		return ts_avro_writer_finish(w->avro, NULL, err);
	return ts_pq_writer_finish(w->pq, err);
}

void
ts_file_writer_free(ts_file_writer *w)
{
	if (w == NULL)
		return;
	ts_orc_writer_free(w->orc);
	ts_avro_writer_free(w->avro);
	ts_pq_writer_free(w->pq);
	ts_free(w);
}
