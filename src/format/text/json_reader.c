/*
 * json_reader.c - ts_json_open: JSON-lines files of Paimon format tables.
 *
 * Owns: the file's lines in batches, blank lines skipped, and the json.*
 * options.  Each line, one JSON object, becomes a row in json_line.c
 * (columns matched by name, values converted to the columns' types).  A
 * malformed line or value fails the read naming the file and line, or
 * with json.ignore-parse-errors=true drops that line.  MAP keys are object
 * keys (never null in JSON text), so json.map-null-key-mode/-literal are
 * validated but never needed.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/ts_type_class.h"
#include "format/text/text_internal.h"

typedef struct json_reader
{
	ts_line_reader lr;			/* first: the base (line_reader.c) */
	bool		ignore_errors;
	ts_arena	arena;			/* the batch's strings and nested values */
	ts_json_line jl;
} json_reader;

static int	json_next(ts_format_reader *r, ts_batch *batch, ts_err *err);
static void json_close(ts_format_reader *r);

static const ts_format_reader_ops json_ops = {json_next, json_close};

static const char *const K_IGNORE[] = {"json.ignore-parse-errors", NULL};
static const char *const K_NULL_MODE[] = {"json.map-null-key-mode", NULL};
static const char *const K_LINE_DELIM[] = {"json.line-delimiter", NULL};

ts_format_reader *
ts_json_open(const char *path, const ts_read_column *columns, int ncols,
			 const ts_reader_options *options, ts_err *err)
{
	json_reader *r = ts_line_reader_new(sizeof(json_reader), &json_ops, "JSON", path,
										columns, ncols, options, err);
	const char *v;

	if (r == NULL)
		return NULL;
	ts_arena_init(&r->arena, 64 * 1024);
	if (!ts_text_option_bool(options, K_IGNORE, false, &r->ignore_errors, err))
	{
		ts_error_context(err, "JSON file \"%s\"", path);
		goto fail;
	}
	v = ts_text_option(options, K_NULL_MODE);
	if (v && strcasecmp(v, "fail") != 0 && strcasecmp(v, "drop") != 0 && strcasecmp(v, "literal") != 0)
	{
		ts_error(err, TS_ERR_INVALID,
				 "invalid value \"%s\" for option \"json.map-null-key-mode\": expected FAIL, DROP or LITERAL", v);
		goto fail;
	}
	if (!ts_text_option_line_delimiter(options, K_LINE_DELIM, &r->lr.line_delim, err))
		goto fail;
	for (int i = 0; i < ncols; i++)
	{
		if (columns[i].type == NULL || columns[i].name == NULL ||
			!(ts_type_is_plain_scalar(columns[i].type->kind) || ts_type_is_nested(columns[i].type->kind)))
		{
			ts_error(err, TS_ERR_UNSUPPORTED, "JSON file \"%s\": column \"%s\" cannot be read from JSON",
					 path, columns[i].name ? columns[i].name : "?");
			goto fail;
		}
	}
	if (!ts_json_line_init(&r->jl, r->lr.cols, r->lr.ncols, &r->arena, err) ||
		!ts_line_reader_open_stream(&r->lr, err))
		goto fail;
	return &r->lr.base;
fail:
	json_close(&r->lr.base);
	return NULL;
}

static void
json_close(ts_format_reader *base)
{
	json_reader *r = (json_reader *) base;

	if (r == NULL)
		return;
	ts_json_line_free(&r->jl);
	ts_arena_free(&r->arena);
	ts_line_reader_free(&r->lr);
}

static bool
is_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
	return true;
}

static int
json_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	json_reader *r = (json_reader *) base;
	int			nrows = 0;

	if (!ts_line_reader_begin_batch(&r->lr, batch, err))
		return -1;
	ts_arena_reset(&r->arena);
	r->lr.base.metrics.files_opened = 1;
	while (!r->lr.eof && nrows < r->lr.batch_rows)
	{
		const uint8_t *line;
		size_t		len;
		ts_value   *row = &r->lr.values[(size_t) nrows * r->lr.ncols];

		if ((nrows & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			goto fail;
		if (!ts_text_stream_next_line(r->lr.s, r->lr.line_delim, &line, &len, err))
			goto fail;
		if (line == NULL)
		{
			r->lr.eof = true;
			break;
		}
		if (is_blank(line, len))
			continue;
		if (!ts_json_line_read(&r->jl, line, len, row, err))
		{
			if (err && err->code == TS_ERR_NOMEM)
				goto fail;
			if (r->ignore_errors)
			{
				if (err)
					err->code = TS_OK;
				continue;
			}
			{
				char		where[96];

				ts_error_context(err, "JSON file \"%s\" %s", r->lr.path,
								 ts_text_stream_where(r->lr.s, ts_text_stream_line_number(r->lr.s),
													  where, sizeof(where)));
			}
			goto fail;
		}
		nrows++;
	}
	return ts_line_reader_end_batch(&r->lr, batch, nrows);
fail:
	r->lr.failed = true;
	return -1;
}
