/*
 * json_reader.c - ts_json_open: JSON-lines files of Paimon format tables.
 *
 * Owns: one JSON object per line (cJSON), requested columns matched by
 * NAME (object keys, case-sensitive; a missing key or JSON null is NULL),
 * conversion of JSON values into the requested Paimon types (nested
 * objects/arrays into ROW / ARRAY / MULTISET / MAP), and the json.*
 * options.
 *
 * Numbers keep their exact text: cJSON only offers a double, so the line
 * is also tokenised and the k-th number item of the tree (in document
 * order) is paired with the k-th number token; BIGINT and DECIMAL are
 * parsed from that text, never through a double.
 *
 * Conversions (Jackson-like, stricter on overflow): BOOLEAN from true/
 * false, numbers (!= 0) or the string "true"; integers from integral
 * numbers or numeric strings (1e3 and 2.0 are integral; a fraction such as
 * 3.7 or out of range is malformed, where Java's asInt truncates); FLOAT/DOUBLE/DECIMAL from numbers or strings; strings from
 * any scalar's text (objects/arrays as compact JSON); BINARY from base64
 * strings; DATE/TIME/TIMESTAMP from strings (text_value.h forms).  A
 * malformed line or value fails the read naming the file and line, or
 * with json.ignore-parse-errors=true drops that line.  Blank lines are
 * skipped.  MAP keys are object keys (never null in JSON text), so
 * json.map-null-key-mode/-literal are validated but never needed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "base/ts_type_class.h"
#include "format/text/text_internal.h"

#define JSON_MAX_DEPTH 200

typedef struct num_span
{
	uint32_t	off;
	uint32_t	len;
} num_span;

typedef struct json_reader
{
	ts_line_reader lr;			/* first: the base (line_reader.c) */
	bool		ignore_errors;
	ts_arena	arena;
	/* number tokens of the current line */
	const char *line;
	num_span   *spans;
	int			nspans;
	int			cap_spans;
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
	if (!ts_line_reader_open_stream(&r->lr, err))
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
	ts_arena_free(&r->arena);
	ts_free(r->spans);
	ts_line_reader_free(&r->lr);
}

/* Record the spans of number tokens outside strings, in document order. */
static bool
collect_numbers(json_reader *r, const char *p, size_t n, ts_err *err)
{
	size_t		i = 0;

	r->nspans = 0;
	r->line = p;
	while (i < n)
	{
		char		c = p[i];

		if (c == '"')
		{
			i++;
			while (i < n && p[i] != '"')
				i += (p[i] == '\\') ? 2 : 1;
			i++;
		}
		else if (c == '-' || (c >= '0' && c <= '9'))
		{
			size_t		st = i;

			while (i < n && (p[i] == '-' || p[i] == '+' || p[i] == '.' || p[i] == 'e' ||
							 p[i] == 'E' || (p[i] >= '0' && p[i] <= '9')))
				i++;
			if (r->nspans == r->cap_spans)
			{
				int			nc = r->cap_spans ? r->cap_spans * 2 : 64;
				num_span   *ns = ts_realloc(r->spans, sizeof(num_span) * nc);

				if (ns == NULL)
					return ts_error_nomem(err, NULL);
				r->spans = ns;
				r->cap_spans = nc;
			}
			r->spans[r->nspans].off = (uint32_t) st;
			r->spans[r->nspans].len = (uint32_t) (i - st);
			r->nspans++;
		}
		else
			i++;
	}
	return true;
}

/* Number the number items in document order (stored in valueint). */
static void
index_numbers(cJSON *item, int *k)
{
	for (; item; item = item->next)
	{
		if (cJSON_IsNumber(item))
			item->valueint = (*k)++;
		else if (item->child)
			index_numbers(item->child, k);
	}
}

static bool
number_text(json_reader *r, const cJSON *item, const char **s, size_t *len)
{
	if (item->valueint < 0 || item->valueint >= r->nspans)
		return false;
	*s = r->line + r->spans[item->valueint].off;
	*len = r->spans[item->valueint].len;
	return true;
}

static bool json_convert(json_reader *r, const cJSON *item, const ts_type *t, ts_value *out,
						 int depth, ts_err *err);

static bool
mismatch(ts_err *err, const ts_type *t, const char *what)
{
	return ts_error(err, TS_ERR_CORRUPT, "expected a %s value, found %s", ts_type_kind_name(t->kind), what);
}

static const char *
json_kind(const cJSON *item)
{
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "an invalid value";
}

/* text of a scalar (string or number) for the text parsers */
static bool
scalar_text(json_reader *r, const cJSON *item, const char **s, size_t *len)
{
	if (cJSON_IsString(item) && item->valuestring)
	{
		*s = item->valuestring;
		*len = strlen(item->valuestring);
		return true;
	}
	if (cJSON_IsNumber(item))
		return number_text(r, item, s, len);
	return false;
}

static bool
json_convert(json_reader *r, const cJSON *item, const ts_type *t, ts_value *out,
			 int depth, ts_err *err)
{
	const char *s;
	size_t		len;

	memset(out, 0, sizeof(*out));
	if (item == NULL || cJSON_IsNull(item))
	{
		out->isnull = true;
		return true;
	}
	if (depth > JSON_MAX_DEPTH)
		return ts_error(err, TS_ERR_CORRUPT, "JSON nested too deeply");
	switch (t->kind)
	{
		case TS_BOOLEAN:
			if (cJSON_IsBool(item))
				out->v.i = cJSON_IsTrue(item);
			else if (cJSON_IsNumber(item))
				out->v.i = item->valuedouble != 0;
			else if (cJSON_IsString(item))
				out->v.i = strcasecmp(item->valuestring, "true") == 0;
			else
				return mismatch(err, t, json_kind(item));
			return true;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (cJSON_IsBool(item))
			{
				out->v.i = cJSON_IsTrue(item);
				return true;
			}
			if (!scalar_text(r, item, &s, &len))
				return mismatch(err, t, json_kind(item));
			/* digits only: a fraction is malformed, not dropped (3.7 is no INT) */
			while (len > 0 && (*s == ' ' || *s == '\t'))
			{
				s++;
				len--;
			}
			while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
				len--;
			if (ts_text_parse_value(s, len, t, TS_TEXT_CSV, NULL, out, err))
				return true;
			/* 1e3, 2.0 and friends: accept when integral and in range */
			if (cJSON_IsNumber(item) && isfinite(item->valuedouble) &&
				item->valuedouble == floor(item->valuedouble) && fabs(item->valuedouble) < 9.0e15)
			{
				char		buf[32];

				snprintf(buf, sizeof(buf), "%.0f", item->valuedouble);
				return ts_text_parse_value(buf, strlen(buf), t, TS_TEXT_CAST, NULL, out, err);
			}
			return false;
		case TS_FLOAT:
		case TS_DOUBLE:
		case TS_DECIMAL:
		case TS_DATE:
		case TS_TIME:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
		case TS_BINARY:
		case TS_VARBINARY:
			if (!scalar_text(r, item, &s, &len))
				return mismatch(err, t, json_kind(item));
			if (cJSON_IsNumber(item) && t->kind != TS_FLOAT && t->kind != TS_DOUBLE && t->kind != TS_DECIMAL)
				return mismatch(err, t, "a number");
			return ts_text_parse_value(s, len, t, TS_TEXT_CAST, &r->arena, out, err);
		case TS_CHAR:
		case TS_VARCHAR:
			if (cJSON_IsBool(item))
			{
				s = cJSON_IsTrue(item) ? "true" : "false";
				len = strlen(s);
			}
			else if (cJSON_IsArray(item) || cJSON_IsObject(item))
			{
				char	   *txt = cJSON_PrintUnformatted(item);
				bool		ok;

				if (txt == NULL)
					return ts_error_nomem(err, NULL);
				ok = ts_text_parse_value(txt, strlen(txt), t, TS_TEXT_CAST, &r->arena, out, err);
				cJSON_free(txt);
				return ok;
			}
			else if (!scalar_text(r, item, &s, &len))
				return mismatch(err, t, json_kind(item));
			return ts_text_parse_value(s, len, t, TS_TEXT_CAST, &r->arena, out, err);
		case TS_ARRAY:
		case TS_MULTISET:
			{
				int			n = cJSON_GetArraySize(item);
				int			i = 0;
				const cJSON *e;

				if (!cJSON_IsArray(item))
					return mismatch(err, t, json_kind(item));
				out->v.nested.n = n;
				out->v.nested.items = ts_arena_alloc(&r->arena, sizeof(ts_value) * (n > 0 ? n : 1));
				if (out->v.nested.items == NULL)
					return ts_error_nomem(err, NULL);
				cJSON_ArrayForEach(e, item)
				{
					if (i >= n || !json_convert(r, e, t->element, &out->v.nested.items[i++], depth + 1, err))
						return i >= n ? ts_error(err, TS_ERR_CORRUPT, "array size changed") : false;
				}
				return true;
			}
		case TS_MAP:
			{
				int			n = cJSON_GetArraySize(item);
				int			i = 0;
				const cJSON *e;

				if (!cJSON_IsObject(item))
					return mismatch(err, t, json_kind(item));
				out->v.nested.items = ts_arena_alloc(&r->arena, sizeof(ts_value) * 2 * (n > 0 ? n : 1));
				if (out->v.nested.items == NULL)
					return ts_error_nomem(err, NULL);
				cJSON_ArrayForEach(e, item)
				{
					ts_value   *kv = &out->v.nested.items[2 * i];

					if (i >= n)
						return ts_error(err, TS_ERR_CORRUPT, "object size changed");
					if (e->string == NULL)
						return ts_error(err, TS_ERR_CORRUPT, "map key is null and json.map-null-key-mode is FAIL");
					if (!ts_text_parse_value(e->string, strlen(e->string), t->key, TS_TEXT_CAST,
											 &r->arena, &kv[0], err) ||
						!json_convert(r, e, t->value, &kv[1], depth + 1, err))
						return false;
					i++;
				}
				out->v.nested.n = i;
				return true;
			}
		case TS_ROW:
			if (!cJSON_IsObject(item))
				return mismatch(err, t, json_kind(item));
			out->v.nested.n = t->nfields;
			out->v.nested.items = ts_arena_alloc(&r->arena, sizeof(ts_value) * (t->nfields > 0 ? t->nfields : 1));
			if (out->v.nested.items == NULL)
				return ts_error_nomem(err, NULL);
			for (int f = 0; f < t->nfields; f++)
			{
				const cJSON *fv = cJSON_GetObjectItemCaseSensitive(item, t->fields[f].name);

				if (!json_convert(r, fv, t->fields[f].type, &out->v.nested.items[f], depth + 1, err))
				{
					ts_error_context(err, "field \"%s\"", t->fields[f].name);
					return false;
				}
			}
			return true;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "type %s cannot be read from JSON",
							ts_type_kind_name(t->kind));
	}
}

static bool
is_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
	return true;
}

/* Convert one line into row; false on a malformed line (err set). */
static bool
json_line(json_reader *r, const uint8_t *line, size_t len, ts_value *row, ts_err *err)
{
	cJSON	   *root;
	int			k = 0;
	bool		ok = true;

	if (!collect_numbers(r, (const char *) line, len, err))
		return false;
	root = cJSON_ParseWithLength((const char *) line, len);
	if (root == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "invalid JSON");
	if (!cJSON_IsObject(root))
	{
		ts_error(err, TS_ERR_CORRUPT, "expected a JSON object, found %s", json_kind(root));
		cJSON_Delete(root);
		return false;
	}
	index_numbers(root->child, &k);
	for (int c = 0; c < r->lr.ncols && ok; c++)
	{
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, r->lr.cols[c].name);

		if (!json_convert(r, item, r->lr.cols[c].type, &row[c], 0, err))
		{
			ts_error_context(err, "column \"%s\"", r->lr.cols[c].name);
			ok = false;
		}
	}
	cJSON_Delete(root);
	return ok;
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
		if (!json_line(r, line, len, row, err))
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
