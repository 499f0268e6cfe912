/*
 * text_parts.c - which CSV, JSON-lines and TEXT files a parallel scan may
 * read in parts (byte ranges cut at line starts).
 *
 * Owns: the rule.  A file is read in parts when it is not compressed (a
 * compressed stream has no place to start in the middle) and its lines end
 * at \n, \r\n or \r (no line delimiter of its own).  Each part reads the
 * lines that start in its bytes (text_stream.c).  JSON lines and TEXT
 * lines are records (a JSON string escapes its line breaks), so any byte
 * may start a part.  A CSV record spans lines where a quoted field holds a
 * line break: a CSV file's parts start only at records, found by a pass
 * over the file (csv_part_starts.c); the CSV reader of a part checks that
 * it starts at a line and that its last record ends within it.
 */
#include "format/text/text_internal.h"

static const char *const K_CSV_LINE_DELIM[] = {"csv.line-delimiter", "lineSep", NULL};
static const char *const K_JSON_LINE_DELIM[] = {"json.line-delimiter", NULL};
static const char *const K_TEXT_LINE_DELIM[] = {"text.line-delimiter", "lineSep", NULL};

bool
ts_text_file_reads_in_parts(ts_file_format format, const char *path,
							const ts_reader_options *options)
{
	const char *const *keys;
	char	   *delim = NULL;
	ts_err		err;

	if (format == TS_FORMAT_CSV)
		keys = K_CSV_LINE_DELIM;
	else if (format == TS_FORMAT_JSON)
		keys = K_JSON_LINE_DELIM;
	else if (format == TS_FORMAT_TEXT)
		keys = K_TEXT_LINE_DELIM;
	else
		return false;
	if (path == NULL || ts_text_codec_from_path(path) != TS_TEXT_CODEC_NONE)
		return false;
	/* an invalid option is the reader's error: read the file whole */
	if (!ts_text_option_line_delimiter(options, keys, &delim, &err))
		return false;
	if (delim != NULL)
	{
		ts_free(delim);
		return false;
	}
	return true;
}
