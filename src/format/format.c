/*
 * format.c - choose a format reader by file magic or by name.
 *
 * Owns: format detection (magic bytes, Paimon option values, file name
 * extensions) and dispatch to the per-format constructors.  A format whose
 * reader is not built in fails closed with TS_ERR_UNSUPPORTED.
 */
#include <string.h>
#include <strings.h>

#include "format/format.h"


ts_file_format
ts_format_from_magic(const uint8_t *head, size_t len)
{
	if (len >= 4 && memcmp(head, "Obj\x01", 4) == 0)
		return TS_FORMAT_AVRO;
	if (len >= 4 && memcmp(head, "PAR1", 4) == 0)
		return TS_FORMAT_PARQUET;
	if (len >= 3 && memcmp(head, "ORC", 3) == 0)
		return TS_FORMAT_ORC;
	return TS_FORMAT_UNKNOWN;
}

ts_file_format
ts_format_from_name(const char *name)
{
	if (name == NULL)
		return TS_FORMAT_UNKNOWN;
	if (strcasecmp(name, "avro") == 0)
		return TS_FORMAT_AVRO;
	if (strcasecmp(name, "parquet") == 0)
		return TS_FORMAT_PARQUET;
	if (strcasecmp(name, "orc") == 0)
		return TS_FORMAT_ORC;
	if (strcasecmp(name, "csv") == 0)
		return TS_FORMAT_CSV;
	if (strcasecmp(name, "json") == 0)
		return TS_FORMAT_JSON;
	if (strcasecmp(name, "text") == 0 || strcasecmp(name, "txt") == 0)
		return TS_FORMAT_TEXT;
	return TS_FORMAT_UNKNOWN;
}

const char *
ts_format_name(ts_file_format fmt)
{
	switch (fmt)
	{
		case TS_FORMAT_AVRO:
			return "avro";
		case TS_FORMAT_PARQUET:
			return "parquet";
		case TS_FORMAT_ORC:
			return "orc";
		case TS_FORMAT_CSV:
			return "csv";
		case TS_FORMAT_JSON:
			return "json";
		case TS_FORMAT_TEXT:
			return "text";
		case TS_FORMAT_BLOB:
			return "blob";
		default:
			return "unknown";
	}
}

static ts_file_format
sniff(ts_fs *fs, const char *path, ts_err *err)
{
	ts_file    *f = ts_file_open(fs, path, err);
	uint8_t		head[4] = {0};
	size_t		n;
	ts_file_format fmt;

	if (f == NULL)
		return TS_FORMAT_UNKNOWN;
	n = ts_file_size(f) < 4 ? (size_t) ts_file_size(f) : 4;
	if (!ts_file_pread(f, head, n, 0, err))
	{
		ts_file_close(f);
		return TS_FORMAT_UNKNOWN;
	}
	ts_file_close(f);
	fmt = ts_format_from_magic(head, n);
	if (fmt == TS_FORMAT_UNKNOWN)
		ts_error(err, TS_ERR_CORRUPT,
				 "file \"%s\" is not an Avro, Parquet or ORC file (unrecognised magic bytes)", path);
	return fmt;
}

ts_format_reader *
ts_format_open(ts_file_format fmt, const char *path,
			   const ts_read_column *columns, int ncols,
			   const ts_reader_options *options, ts_err *err)
{
	ts_format_reader *(*open_fn) (const char *, const ts_read_column *, int,
								  const ts_reader_options *, ts_err *) = NULL;
	static const ts_reader_options no_options;

	if (options == NULL)
		options = &no_options;
	if (fmt == TS_FORMAT_UNKNOWN)
	{
		fmt = sniff(ts_reader_fs(options), path, err);
		if (fmt == TS_FORMAT_UNKNOWN)
			return NULL;
	}
	switch (fmt)
	{
		case TS_FORMAT_AVRO:
			open_fn = ts_avro_open;
			break;
		case TS_FORMAT_PARQUET:
			open_fn = ts_parquet_open;
			break;
		case TS_FORMAT_ORC:
			open_fn = ts_orc_open;
			break;
		case TS_FORMAT_CSV:
			open_fn = ts_csv_open;
			break;
		case TS_FORMAT_JSON:
			open_fn = ts_json_open;
			break;
		case TS_FORMAT_TEXT:
			open_fn = ts_text_open;
			break;
		case TS_FORMAT_BLOB:
			open_fn = ts_blob_open;
			break;
		default:
			break;
	}
	if (open_fn == NULL)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "file \"%s\": file format '%s' is not supported yet",
				 path, ts_format_name(fmt));
		return NULL;
	}
	return open_fn(path, columns, ncols, options, err);
}

int
ts_format_ranges_like(const ts_format_reader *r, const uint8_t *tail, size_t tail_len,
					  int64_t file_size, const ts_held_bytes *held, int64_t budget, ts_range *out,
					  int max)
{
	if (r == NULL || r->ops->ranges_like == NULL || tail == NULL || max <= 0)
		return 0;
	return r->ops->ranges_like(r, tail, tail_len, file_size, held, budget, out, max);
}
