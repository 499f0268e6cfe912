/*
 * csv_reader.c - ts_csv_open: CSV files of Paimon format tables.
 *
 * Owns: the Paimon CSV options (csv.* keys with Paimon's fallback keys),
 * splitting records into fields (quotes, doubled quotes, escape
 * character; a quoted field may span lines), mapping requested columns
 * to field positions and the PERMISSIVE / DROPMALFORMED / FAILFAST modes.
 *
 * Column resolution is by POSITION: CSV has no names.  For each requested
 * column, ts_read_column.field_id is the 0-based ordinal of the field in
 * the file's column order (the format table's non-partition columns in
 * schema order); field_id < 0 means "the column's own index in the
 * request".  A record with fewer fields reads NULL for the missing ones;
 * extra fields are ignored.
 *
 * Semantics follow Paimon's CsvParser: a field equal to csv.null-literal
 * (default "", so an empty field, quoted or not) is NULL; a blank record
 * is a row of NULLs; a lone escape character not followed by the quote or
 * escape character is dropped.  Differences: a field is also NULL when
 * its raw text (before unquoting/unescaping) equals a non-empty null
 * literal, so the Hive-style "\N" works with the default escape "\"; PERMISSIVE sets only the
 * malformed field to NULL (Java also nulls the fields after it), a
 * quoted field may contain line breaks, DROPMALFORMED and FAILFAST judge
 * every field of a record (ts_reader_options.record_types), not only the
 * columns read (Java parses the projected ones), and a decimal with more
 * digits than its precision is malformed (Java's cast reads NULL).  A
 * record that is not UTF-8 text (a NUL byte, an invalid sequence: a
 * binary file read as CSV) is an error in every mode.
 */
#include <string.h>
#include <strings.h>

#include "base/ts_type_class.h"
#include "format/text/text_internal.h"

typedef enum csv_mode
{
	CSV_PERMISSIVE,
	CSV_DROPMALFORMED,
	CSV_FAILFAST
} csv_mode;

typedef struct csv_field
{
	size_t		off;			/* in the record, or in fbuf when copied */
	size_t		len;
	size_t		raw_off;		/* the field as written, in the record */
	size_t		raw_len;
	bool		present;
	bool		copied;			/* unquoted / unescaped into fbuf */
} csv_field;

typedef struct csv_reader
{
	ts_line_reader lr;			/* first: the base (line_reader.c) */
	int		   *ord;			/* file field ordinal of each requested column */
	int			nfields;		/* fields split from a record */
	/* DROPMALFORMED / FAILFAST: every field of a record is checked */
	const ts_type *const *rec_types;	/* nrec field types in file order */
	int			nrec;
	bool	   *projected;		/* [nrec]: read as a requested column anyway */
	char		delim;
	char		quote;
	char		escape;
	char	   *null_literal;
	size_t		null_literal_len;
	bool		header;
	csv_mode	mode;
	ts_arena	arena;
	ts_buf		rec;			/* a record assembled from several lines */
	const uint8_t *rec_p;		/* the current record: a line, or rec's bytes */
	size_t		rec_n;
	ts_buf		fbuf;			/* unquoted / unescaped field bytes */
	csv_field  *fields;
	int64_t		record_line;	/* first line of the current record */
	bool		started;
} csv_reader;

static int	csv_next(ts_format_reader *r, ts_batch *batch, ts_err *err);
static void csv_close(ts_format_reader *r);

static const ts_format_reader_ops csv_ops = {csv_next, csv_close};

static const char *const K_FIELD_DELIM[] = {"csv.field-delimiter", "field-delimiter", "seq", "delimiter", NULL};
static const char *const K_LINE_DELIM[] = {"csv.line-delimiter", "lineSep", NULL};
static const char *const K_QUOTE[] = {"csv.quote-character", "quote", NULL};
static const char *const K_ESCAPE[] = {"csv.escape-character", "escape", NULL};
static const char *const K_HEADER[] = {"csv.include-header", "header", NULL};
static const char *const K_NULL[] = {"csv.null-literal", "nullvalue", NULL};
static const char *const K_MODE[] = {"csv.mode", "mode", NULL};

bool
ts_csv_parse_syntax(const ts_reader_options *o, ts_csv_syntax *out, ts_err *err)
{
	if (!ts_text_option_char(o, K_FIELD_DELIM, ',', &out->delim, err) ||
		!ts_text_option_char(o, K_QUOTE, '"', &out->quote, err) ||
		!ts_text_option_char(o, K_ESCAPE, '\\', &out->escape, err))
		return false;
	if (out->delim == '\0' || out->delim == '\n' || out->delim == '\r')
		return ts_error(err, TS_ERR_INVALID, "option \"csv.field-delimiter\" cannot be empty, NUL or a line break");
	if (out->delim == out->quote)
		return ts_error(err, TS_ERR_INVALID, "separator and quote character cannot be the same");
	if (out->delim == out->escape)
		return ts_error(err, TS_ERR_INVALID, "separator and escape character cannot be the same");
	if (out->quote != '\0' && out->quote == out->escape)
		return ts_error(err, TS_ERR_INVALID, "quote and escape character cannot be the same");
	return true;
}

static bool
csv_parse_options(csv_reader *r, const ts_reader_options *o, ts_err *err)
{
	const char *v;
	ts_csv_syntax syntax;

	if (!ts_csv_parse_syntax(o, &syntax, err) ||
		!ts_text_option_bool(o, K_HEADER, false, &r->header, err))
		return false;
	r->delim = syntax.delim;
	r->quote = syntax.quote;
	r->escape = syntax.escape;
	if (!ts_text_option_line_delimiter(o, K_LINE_DELIM, &r->lr.line_delim, err))
		return false;
	v = ts_text_option(o, K_NULL);
	r->null_literal = ts_strdup(v ? v : "");
	if (r->null_literal == NULL)
		return ts_error_nomem(err, NULL);
	r->null_literal_len = strlen(r->null_literal);
	v = ts_text_option(o, K_MODE);
	if (v == NULL || strcasecmp(v, "permissive") == 0)
		r->mode = CSV_PERMISSIVE;
	else if (strcasecmp(v, "dropmalformed") == 0)
		r->mode = CSV_DROPMALFORMED;
	else if (strcasecmp(v, "failfast") == 0)
		r->mode = CSV_FAILFAST;
	else
		return ts_error(err, TS_ERR_INVALID,
						"invalid value \"%s\" for option \"csv.mode\": expected PERMISSIVE, DROPMALFORMED or FAILFAST", v);
	return true;
}

ts_format_reader *
ts_csv_open(const char *path, const ts_read_column *columns, int ncols,
			const ts_reader_options *options, ts_err *err)
{
	csv_reader *r = ts_line_reader_new(sizeof(csv_reader), &csv_ops, "CSV", path,
									   columns, ncols, options, err);

	if (r == NULL)
		return NULL;
	ts_arena_init(&r->arena, 64 * 1024);
	ts_buf_init(&r->rec);
	ts_buf_init(&r->fbuf);
	if (!csv_parse_options(r, options, err))
	{
		ts_error_context(err, "CSV file \"%s\"", path);
		goto fail;
	}
	r->ord = ts_calloc(ncols > 0 ? ncols : 1, sizeof(int));
	if (r->ord == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (int i = 0; i < ncols; i++)
	{
		const ts_type *t = columns[i].type;

		if (t == NULL || !ts_type_is_plain_scalar(t->kind))
		{
			ts_error(err, TS_ERR_UNSUPPORTED, "CSV file \"%s\": column \"%s\" of type %s cannot be read from CSV",
					 path, columns[i].name ? columns[i].name : "?",
					 t ? ts_type_kind_name(t->kind) : "(none)");
			goto fail;
		}
		r->ord[i] = columns[i].field_id >= 0 ? columns[i].field_id : i;
		if (r->ord[i] > 100000)
		{
			ts_error(err, TS_ERR_INVALID, "CSV file \"%s\": field position %d out of range", path, r->ord[i]);
			goto fail;
		}
		if (r->ord[i] + 1 > r->nfields)
			r->nfields = r->ord[i] + 1;
	}
	if (options && options->nrecord_fields > 0 && options->record_types &&
		r->mode != CSV_PERMISSIVE)
	{
		/*
		 * The mode decides on whole records, as if every column were read:
		 * the rows returned never depend on the projection.
		 */
		r->rec_types = options->record_types;
		r->nrec = options->nrecord_fields;
		r->projected = ts_calloc(r->nrec, sizeof(bool));
		if (r->projected == NULL)
		{
			ts_error_nomem(err, NULL);
			goto fail;
		}
		for (int i = 0; i < ncols; i++)
			if (r->ord[i] < r->nrec)
				r->projected[r->ord[i]] = true;
		if (r->nrec > r->nfields)
			r->nfields = r->nrec;
	}
	r->fields = ts_calloc(r->nfields > 0 ? r->nfields : 1, sizeof(csv_field));
	if (r->fields == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	if (!ts_line_reader_open_stream(&r->lr, err))
		goto fail;
	if (r->lr.in_part && !ts_text_stream_part_starts_line(r->lr.s))
	{
		/* only a record start is a part's start (csv_part_starts.c) */
		ts_error(err, TS_ERR_CORRUPT,
				 "CSV file \"%s\": the parallel part from byte %lld does not start at a record",
				 path, (long long) r->lr.range_start);
		ts_error_detail(err, "Parts are cut where records start: this is an internal error, "
						"or the file changed while it was read.");
		goto fail;
	}
	r->lr.base.metrics.files_opened = 0;
	return &r->lr.base;
fail:
	csv_close(&r->lr.base);
	return NULL;
}

static void
csv_close(ts_format_reader *base)
{
	csv_reader *r = (csv_reader *) base;

	if (r == NULL)
		return;
	ts_arena_free(&r->arena);
	ts_buf_free(&r->rec);
	ts_buf_free(&r->fbuf);
	ts_free(r->fields);
	ts_free(r->ord);
	ts_free(r->projected);
	ts_free(r->null_literal);
	ts_line_reader_free(&r->lr);
}

/*
 * One field from p[*pos] that needs unquoting or unescaping, copied into
 * fbuf (*off, *flen there); *pos moves to the delimiter after it or to n.
 * The rules are CsvParser's: an escape character drops itself and keeps a
 * quote or escape character after it (inside quotes or not), a quote opens
 * a quoted field only as its first character, a doubled quote inside
 * quotes is one quote, and a quote later in an unquoted field is text.
 * Returns 1, 0 when the record ends inside quotes, -1 out of memory.
 */
static int
split_field_copy(csv_reader *r, const uint8_t *p, size_t n, size_t *pos,
				 size_t *off, size_t *flen, ts_err *err)
{
	const uint8_t quote = (uint8_t) r->quote,
				escape = (uint8_t) r->escape,
				delim = (uint8_t) r->delim;
	size_t		i = *pos;
	bool		in_quotes = false,
				at_start = true;

	*off = r->fbuf.len;
	while (i < n)
	{
		uint8_t		c = p[i];
		size_t		j;

		if (escape && c == escape)
		{
			if (i + 1 < n && ((quote && p[i + 1] == quote) || p[i + 1] == escape))
			{
				if (!ts_buf_append(&r->fbuf, &p[i + 1], 1, err))
					return -1;
				i++;
			}
			i++;
			at_start = false;
			continue;
		}
		if (in_quotes)
		{
			if (c == quote)
			{
				if (i + 1 < n && p[i + 1] == quote)
				{
					if (!ts_buf_append(&r->fbuf, &c, 1, err))
						return -1;
					i++;
				}
				else
					in_quotes = false;
				i++;
				continue;
			}
			j = ts_text_find_byte2(p, i + 1, n, quote, escape);
		}
		else if (quote && c == quote && at_start)
		{
			in_quotes = true;
			at_start = false;
			i++;
			continue;
		}
		else if (c == delim)
			break;
		else
			j = ts_text_find_byte2(p, i + 1, n, delim, escape);
		/* a run of plain bytes */
		if (!ts_buf_append(&r->fbuf, &p[i], j - i, err))
			return -1;
		at_start = false;
		i = j;
	}
	*pos = i;
	*flen = r->fbuf.len - *off;
	return in_quotes ? 0 : 1;
}

/*
 * Split one record into fields.  A field without quote or escape
 * characters stays where it is in the record (no copy); the others are
 * copied into fbuf unquoted.  Returns 1 when complete, 0 when it ends
 * inside a quoted field (the caller appends the next line and retries),
 * -1 out of memory.
 */
static int
csv_split(csv_reader *r, const uint8_t *p, size_t n, ts_err *err)
{
	int			col = 0;
	size_t		i = 0;

	ts_buf_reset(&r->fbuf);
	for (int k = 0; k < r->nfields; k++)
		r->fields[k].present = false;
	for (;;)
	{
		size_t		start = i,
					off,
					flen,
					j;
		bool		plain,
					copied = false;

		if (r->quote && i < n && p[i] == (uint8_t) r->quote)
			plain = false;		/* quoted */
		else
		{
			j = ts_text_find_byte2(p, i, n, (uint8_t) r->delim, (uint8_t) r->escape);
			plain = j == n || p[j] == (uint8_t) r->delim;
		}
		if (plain)
		{
			off = i;
			flen = j - i;
			i = j;
		}
		else
		{
			int			rc = split_field_copy(r, p, n, &i, &off, &flen, err);

			if (rc <= 0)
				return rc;
			copied = true;
		}
		if (col < r->nfields)
		{
			csv_field  *f = &r->fields[col];

			f->off = off;
			f->len = flen;
			f->raw_off = start;
			f->raw_len = i - start;
			f->present = true;
			f->copied = copied;
		}
		if (i >= n)
			break;
		i++;					/* the delimiter */
		col++;
	}
	return 1;
}

/*
 * Is p[0..n) UTF-8 text without NUL bytes?  CSV files are text (Java reads
 * them as UTF-8): a record that is not is a file of another format (a
 * Parquet file under format 'csv'), an error in every mode, never rows.
 */
static bool
is_utf8_text(const uint8_t *p, size_t n)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);
	size_t		i = 0;

	while (i < n)
	{
		uint8_t		c;
		int			k;
		uint32_t	cp;
		uint64_t	x;

		/* eight ASCII bytes, none NUL, at a time */
		if (i + 8 <= n)
		{
			memcpy(&x, p + i, 8);
			if (((x | ((x - ones) & ~x)) & highs) == 0)
			{
				i += 8;
				continue;
			}
		}
		c = p[i];
		if (c >= 0x01 && c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
		{
			k = 1;
			cp = c & 0x1F;
		}
		else if (c >= 0xE0 && c <= 0xEF)
		{
			k = 2;
			cp = c & 0x0F;
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			k = 3;
			cp = c & 0x07;
		}
		else
			return false;		/* NUL, a continuation byte, 0xC0/0xC1, > 0xF4 */
		if (i + (size_t) k >= n)
			return false;		/* truncated sequence */
		for (int j = 1; j <= k; j++)
		{
			if ((p[i + j] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + j] & 0x3F);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
			(k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
		i += (size_t) k + 1;
	}
	return true;
}

static bool
is_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n' && p[i] != '\f' && p[i] != '\v')
			return false;
	return true;
}

/*
 * Read the next record and split it: r->rec_p is the stream's line, or
 * r->rec when a quoted field spans lines.  *got = false at end of input.
 * *blank = the record is whitespace only.
 */
static bool
csv_read_record(csv_reader *r, bool *got, bool *blank, ts_err *err)
{
	const uint8_t *line;
	size_t		len;
	int			rc;
	char		where[96];

	*got = false;
	if (!ts_text_stream_next_line(r->lr.s, r->lr.line_delim, &line, &len, err))
		return false;
	if (line == NULL)
		return true;
	r->record_line = ts_text_stream_line_number(r->lr.s);
	rc = csv_split(r, line, len, err);
	if (rc < 0)
		return false;
	r->rec_p = line;
	r->rec_n = len;
	if (rc == 0)
	{
		/* a quoted field continues on the next line: assemble the record */
		ts_buf_reset(&r->rec);
		if (!ts_buf_append(&r->rec, line, len, err))
			return false;
		for (;;)
		{
			if (!ts_text_stream_next_line(r->lr.s, r->lr.line_delim, &line, &len, err))
				return false;
			if (line == NULL && ts_text_stream_stopped_at_part_end(r->lr.s))
			{
				/*
				 * A parallel part ends where a record starts (csv_part_starts.c):
				 * this one runs on into the next part.
				 */
				ts_error(err, TS_ERR_CORRUPT,
						 "CSV file \"%s\": the record at %s runs past the end of its parallel part at byte %lld",
						 r->lr.path, ts_text_stream_where(r->lr.s, r->record_line, where, sizeof(where)),
						 (long long) r->lr.range_end);
				return ts_error_detail(err, "Parts are cut where records start: this is an internal error, "
									   "or the file changed while it was read.");
			}
			if (line == NULL)
			{
				/* unterminated quote at EOF: Java ignores the last field */
				int			last = 0;

				for (int i = 0; i < r->nfields; i++)
					if (r->fields[i].present)
						last = i + 1;
				if (last < r->nfields)
					r->fields[last].present = false;
				break;
			}
			if (r->rec.len + len + 1 > TS_TEXT_MAX_LINE)
				return ts_error(err, TS_ERR_CORRUPT, "CSV file \"%s\": record at %s is longer than %d bytes",
								r->lr.path, ts_text_stream_where(r->lr.s, r->record_line, where, sizeof(where)),
								TS_TEXT_MAX_LINE);
			if (!ts_buf_append(&r->rec, r->lr.line_delim ? r->lr.line_delim : "\n",
							   r->lr.line_delim ? strlen(r->lr.line_delim) : 1, err) ||
				!ts_buf_append(&r->rec, line, len, err))
				return false;
			rc = csv_split(r, r->rec.data, r->rec.len, err);
			if (rc < 0)
				return false;
			if (rc == 1)
				break;
			if (!TS_CHECK_INTERRUPTS(err))
				return false;
		}
		r->rec_p = r->rec.data ? r->rec.data : (const uint8_t *) "";
		r->rec_n = r->rec.len;
	}
	if (!is_utf8_text(r->rec_p, r->rec_n))
		return ts_error(err, TS_ERR_CORRUPT,
						"CSV file \"%s\" %s is not UTF-8 text (a NUL byte or an invalid byte sequence): "
						"the file is damaged or in another format",
						r->lr.path, ts_text_stream_where(r->lr.s, r->record_line, where, sizeof(where)));
	*blank = is_blank(r->rec_p, r->rec_n);
	*got = true;
	return true;
}

/* The text of field f of the current record (unquoted). */
static const char *
field_text(const csv_reader *r, const csv_field *f)
{
	if (f->copied)
		return r->fbuf.data ? (const char *) r->fbuf.data + f->off : "";
	return (const char *) r->rec_p + f->off;
}

/* Is field f of the current record NULL (missing, blank record, null literal)? */
static bool
field_is_null(const csv_reader *r, const csv_field *f, bool blank)
{
	const char *text = field_text(r, f);

	return blank || !f->present ||
		(f->len == r->null_literal_len && (f->len == 0 || memcmp(text, r->null_literal, f->len) == 0)) ||
		(r->null_literal_len > 0 && f->raw_len == r->null_literal_len &&
		 memcmp(r->rec_p + f->raw_off, r->null_literal, f->raw_len) == 0);
}

/*
 * DROPMALFORMED / FAILFAST: check the record's fields that are not read
 * as requested columns.  Returns 1 when they all parse, 0 when one is
 * malformed (err set, *bad its position), -1 on out of memory.
 */
static int
check_unread_fields(csv_reader *r, bool blank, int *bad, ts_err *err)
{
	for (int f = 0; f < r->nrec; f++)
	{
		const csv_field *fl = &r->fields[f];
		const ts_type *t = r->rec_types[f];
		ts_value	v;

		if (r->projected[f] || t == NULL || t->kind == TS_CHAR || t->kind == TS_VARCHAR ||
			field_is_null(r, fl, blank))
			continue;
		if (!ts_text_parse_value(field_text(r, fl), fl->len, t, TS_TEXT_CSV, &r->arena, &v, err))
		{
			*bad = f;
			return err && err->code == TS_ERR_NOMEM ? -1 : 0;
		}
	}
	return 1;
}

static int
csv_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	csv_reader *r = (csv_reader *) base;
	int			nrows = 0;

	if (!ts_line_reader_begin_batch(&r->lr, batch, err))
		return -1;
	ts_arena_reset(&r->arena);
	if (!r->started)
	{
		r->started = true;
		r->lr.base.metrics.files_opened = 1;
		if (r->header && !r->lr.in_part)
		{
			bool		got,
						blank;

			if (!csv_read_record(r, &got, &blank, err))
				goto fail;
			if (!got)
				r->lr.eof = true;
		}
	}
	while (!r->lr.eof && nrows < r->lr.batch_rows)
	{
		bool		got,
					blank;
		ts_value   *row = &r->lr.values[(size_t) nrows * r->lr.ncols];
		bool		drop = false;

		if ((nrows & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			goto fail;
		if (!csv_read_record(r, &got, &blank, err))
			goto fail;
		if (!got)
		{
			r->lr.eof = true;
			break;
		}
		if (r->nrec > 0)
		{
			int			bad = 0;
			int			rc = check_unread_fields(r, blank, &bad, err);

			if (rc < 0)
				goto fail;
			if (rc == 0 && r->mode == CSV_FAILFAST)
			{
				char		where[96];

				ts_error_context(err, "CSV file \"%s\" %s, field %d", r->lr.path,
								 ts_text_stream_where(r->lr.s, r->record_line, where, sizeof(where)),
								 bad + 1);
				goto fail;
			}
			if (rc == 0)
			{
				if (err)
					err->code = TS_OK;
				continue;		/* DROPMALFORMED */
			}
		}
		for (int c = 0; c < r->lr.ncols; c++)
		{
			csv_field  *f = &r->fields[r->ord[c]];
			const char *text = field_text(r, f);

			memset(&row[c], 0, sizeof(ts_value));
			if (field_is_null(r, f, blank))
			{
				row[c].isnull = true;
				continue;
			}
			if (!ts_text_parse_value(text, f->len, r->lr.cols[c].type, TS_TEXT_CSV, &r->arena, &row[c], err))
			{
				if (err && err->code == TS_ERR_NOMEM)
					goto fail;
				if (r->mode == CSV_FAILFAST)
				{
					char		where[96];

					ts_error_context(err, "CSV file \"%s\" %s, column %d (\"%s\")", r->lr.path,
									 ts_text_stream_where(r->lr.s, r->record_line, where, sizeof(where)),
									 r->ord[c] + 1,
									 r->lr.cols[c].name ? r->lr.cols[c].name : "");
					goto fail;
				}
				if (r->mode == CSV_DROPMALFORMED)
				{
					drop = true;
					break;
				}
				memset(&row[c], 0, sizeof(ts_value));
				row[c].isnull = true;
			}
		}
		if (err)
			err->code = TS_OK;
		if (drop)
			continue;
		nrows++;
	}
	return ts_line_reader_end_batch(&r->lr, batch, nrows);
fail:
	r->lr.failed = true;
	return -1;
}
