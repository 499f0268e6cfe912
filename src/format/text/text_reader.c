/*
 * text_reader.c - ts_text_open: TEXT files of Paimon format tables.
 *
 * Owns: the TEXT format (Paimon's TextFileFormat): every line of the file
 * is one row whose single STRING column is the line without its
 * terminator.  Empty lines are rows with an empty string; a last line
 * without terminator counts; an empty file has no rows.  Lines end at \n,
 * \r\n or \r (text.line-delimiter unset or one of those, as Java's
 * BufferedReader), else at exactly the text.line-delimiter string (falling
 * back to the option lineSep).  Every requested column reads the line (a
 * TEXT file has one column; a count(*) requests none) and must be a
 * character string type.
 */
#include <string.h>

#include "format/text/text_internal.h"

typedef struct text_reader
{
	ts_line_reader lr;			/* first: the base (line_reader.c) */
	ts_buf		lines;			/* the bytes of this batch's lines */
	size_t	   *offs;			/* where line k of the batch starts in lines */
} text_reader;

static int	text_next(ts_format_reader *r, ts_batch *batch, ts_err *err);
static void text_close(ts_format_reader *r);

static const ts_format_reader_ops text_ops = {text_next, text_close};

static const char *const K_LINE_DELIM[] = {"text.line-delimiter", "lineSep", NULL};

ts_format_reader *
ts_text_open(const char *path, const ts_read_column *columns, int ncols,
			 const ts_reader_options *options, ts_err *err)
{
	text_reader *r = ts_line_reader_new(sizeof(text_reader), &text_ops, "TEXT", path,
										columns, ncols, options, err);

	if (r == NULL)
		return NULL;
	ts_buf_init(&r->lines);
	for (int i = 0; i < ncols; i++)
	{
		const ts_type *t = columns[i].type;

		if (t == NULL || (t->kind != TS_VARCHAR && t->kind != TS_CHAR))
		{
			char	   *tn = t ? ts_type_to_string(t) : NULL;

			ts_error(err, TS_ERR_UNSUPPORTED,
					 "TEXT file \"%s\": column \"%s\" is %s; a TEXT file has one STRING column",
					 path, columns[i].name ? columns[i].name : "?", tn ? tn : "of an unknown type");
			ts_free(tn);
			goto fail;
		}
	}
	if (!ts_text_option_line_delimiter(options, K_LINE_DELIM, &r->lr.line_delim, err))
		goto fail;
	r->offs = ts_calloc((size_t) r->lr.batch_rows + 1, sizeof(size_t));
	if (r->offs == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	if (!ts_line_reader_open_stream(&r->lr, err))
		goto fail;
	return &r->lr.base;
fail:
	text_close(&r->lr.base);
	return NULL;
}

static void
text_close(ts_format_reader *base)
{
	text_reader *r = (text_reader *) base;

	if (r == NULL)
		return;
	ts_buf_free(&r->lines);
	ts_free(r->offs);
	ts_line_reader_free(&r->lr);
}

static int
text_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	text_reader *r = (text_reader *) base;
	ts_line_reader *lr = &r->lr;
	int			nrows = 0;
	const uint8_t *base_bytes;

	if (!ts_line_reader_begin_batch(lr, batch, err))
		return -1;
	lr->base.metrics.files_opened = 1;
	ts_buf_reset(&r->lines);
	/* the stream's line is valid until the next one: collect the batch's */
	while (!lr->eof && nrows < lr->batch_rows)
	{
		const uint8_t *line;
		size_t		len;

		if ((nrows & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			goto fail;
		if (!ts_text_stream_next_line(lr->s, lr->line_delim, &line, &len, err))
			goto fail;
		if (line == NULL)
		{
			lr->eof = true;
			break;
		}
		if (len > TS_TEXT_MAX_LINE)
		{
			char		where[96];

			ts_error(err, TS_ERR_CORRUPT, "line longer than %d bytes", TS_TEXT_MAX_LINE);
			ts_error_context(err, "TEXT file \"%s\" %s", lr->path,
							 ts_text_stream_where(lr->s, ts_text_stream_line_number(lr->s),
												  where, sizeof(where)));
			goto fail;
		}
		r->offs[nrows] = r->lines.len;
		if (lr->ncols > 0 && !ts_buf_append(&r->lines, line, len, err))
			goto fail;
		nrows++;
	}
	r->offs[nrows] = r->lines.len;
	/* the buffer stops moving once the batch is complete (NULL: all empty) */
	base_bytes = r->lines.data ? r->lines.data : (const uint8_t *) "";
	for (int row = 0; row < nrows; row++)
		for (int c = 0; c < lr->ncols; c++)
		{
			ts_value   *v = &lr->values[(size_t) row * lr->ncols + c];

			v->isnull = false;
			v->v.s.p = base_bytes + r->offs[row];
			v->v.s.len = (uint32_t) (r->offs[row + 1] - r->offs[row]);
		}
	return ts_line_reader_end_batch(lr, batch, nrows);
fail:
	lr->failed = true;
	return -1;
}
