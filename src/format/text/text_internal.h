/*
 * text_internal.h - what the CSV, JSON-lines and TEXT readers share.
 *
 * Owns: the base of a line reader (line_reader.c), the decompressing line
 * stream (text_stream.c), the option lookup over ts_reader_options' Paimon
 * key/value pairs (text_options.c) and base64 decoding.  Value parsing from text lives in text_value.h (public:
 * the format-table scan parses partition values with it).
 */
#ifndef TS_TEXT_INTERNAL_H
#define TS_TEXT_INTERNAL_H

#include <string.h>

#include "format/format.h"
#include "format/text/text_value.h"

/* Longest line (record) we accept; a longer one is a corrupt file. */
#define TS_TEXT_MAX_LINE (256 * 1024 * 1024)

/* Codec of a text file, inferred from the file name's extension. */
typedef enum ts_text_codec
{
	TS_TEXT_CODEC_NONE,
	TS_TEXT_CODEC_GZIP,			/* .gz: gzip members (zlib) */
	TS_TEXT_CODEC_DEFLATE,		/* .deflate: zlib stream (Hadoop DeflateCodec) */
	TS_TEXT_CODEC_ZSTD,			/* .zst: zstd frames */
	TS_TEXT_CODEC_SNAPPY,		/* .snappy: Hadoop block framing of raw snappy */
	TS_TEXT_CODEC_LZ4,			/* .lz4: Hadoop block framing of raw lz4 */
	TS_TEXT_CODEC_BZIP2			/* .bz2: bzip2 streams (libbz2) */
} ts_text_codec;

ts_text_codec ts_text_codec_from_path(const char *path);
const char *ts_text_codec_name(ts_text_codec codec);

typedef struct ts_text_stream ts_text_stream;

/* Open a (possibly compressed) text file; the codec comes from the name. */
ts_text_stream *ts_text_stream_open(ts_fs *fs, const char *path, ts_err *err);

/*
 * Next line without its terminator.  delim NULL (or "\n", "\r\n", "\r")
 * splits like Java's BufferedReader.readLine (\n, \r\n or \r); any other
 * string splits on exactly that string.  A final line without terminator
 * counts; an empty file has no lines.  *line points into the stream's
 * buffer, valid until the next call.  Returns false on error; at end of
 * input returns true with *line = NULL.
 */
bool		ts_text_stream_next_line(ts_text_stream *s, const char *delim,
									 const uint8_t **line, size_t *len, ts_err *err);
int64_t		ts_text_stream_line_number(const ts_text_stream *s);	/* 1-based, of the last line */
int64_t		ts_text_stream_bytes_read(const ts_text_stream *s);	/* compressed bytes */
const char *ts_text_stream_path(const ts_text_stream *s);

/*
 * Read only the lines that start in [start, end) of an uncompressed file
 * (a parallel part), before the first line is read: a line starts at byte
 * 0 or after a line break.  Parts that cover a file read each line once.
 * Line numbers then count from the part's first line.
 */
bool		ts_text_stream_set_range(ts_text_stream *s, int64_t start, int64_t end, ts_err *err);
/*
 * In a part: does range_start start a line (0, or the byte before it ends
 * one)?  Did the stream stop at range_end, the next line starting there or
 * after (not at the end of the file)?
 */
bool		ts_text_stream_part_starts_line(const ts_text_stream *s);
bool		ts_text_stream_stopped_at_part_end(const ts_text_stream *s);
/* "line N", or in a part "line N of the part from byte B", in buf. */
const char *ts_text_stream_where(const ts_text_stream *s, int64_t lineno, char *buf, size_t size);
void		ts_text_stream_close(ts_text_stream *s);

/*
 * The first byte equal to a or b (b 0: a only), or zero when nul, in
 * p[i..n), or n: eight bytes at a time (a word holds c when some byte of
 * it XOR c is zero).
 */
static inline size_t
ts_text_find_bytes(const uint8_t *p, size_t i, size_t n, uint8_t a, uint8_t b, bool nul)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);
	const uint64_t ma = ones * a;
	const uint64_t mb = ones * (b ? b : a);

	while (i + 8 <= n)
	{
		uint64_t	x,
					xa,
					xb,
					hit;

		memcpy(&x, p + i, 8);
		xa = x ^ ma;
		xb = x ^ mb;
		hit = ((xa - ones) & ~xa) | ((xb - ones) & ~xb);
		if (nul)
			hit |= (x - ones) & ~x;
		if (hit & highs)
			break;
		i += 8;
	}
	while (i < n && p[i] != a && (b == 0 || p[i] != b) && (!nul || p[i] != 0))
		i++;
	return i;
}

/* The first byte equal to a or b (b 0: a only) in p[i..n), or n. */
static inline size_t
ts_text_find_byte2(const uint8_t *p, size_t i, size_t n, uint8_t a, uint8_t b)
{
	return ts_text_find_bytes(p, i, n, a, b, false);
}

/* ---- line_reader.c: the base of the CSV, JSON and TEXT readers ------- */

typedef struct ts_line_reader
{
	ts_format_reader base;
	const char *what;			/* "CSV", "JSON", "TEXT": for messages */
	ts_text_stream *s;
	char	   *path;
	ts_fs	   *fs;				/* the file is read through it */
	const ts_read_column *cols;
	int			ncols;
	char	   *line_delim;		/* NULL: \n, \r\n or \r (readLine) */
	int			batch_rows;
	ts_value   *values;			/* batch_rows rows of ncols */
	bool		eof;
	bool		failed;
	/* a parallel part: the lines that start in [range_start, range_end) */
	int64_t		range_start;
	int64_t		range_end;		/* 0: the whole file */
	bool		in_part;		/* range_start > 0: the file's first line is another part's */
} ts_line_reader;

/*
 * A zeroed reader of size bytes (a struct whose first member is a
 * ts_line_reader) with ops, the column list checked, the path and the
 * batch size set; NULL on error.
 */
void	   *ts_line_reader_new(size_t size, const ts_format_reader_ops *ops, const char *what,
							   const char *path, const ts_read_column *columns, int ncols,
							   const ts_reader_options *options, ts_err *err);
/* The last step of opening: the batch's values, and the file's line stream. */
bool		ts_line_reader_open_stream(ts_line_reader *r, ts_err *err);
/* Free what the base holds, and the reader (after the reader's own parts). */
void		ts_line_reader_free(ts_line_reader *r);
/* The start of a batch: *batch empty, its values; false after a failure. */
bool		ts_line_reader_begin_batch(ts_line_reader *r, ts_batch *batch, ts_err *err);
/* The end of a batch of nrows rows: metrics; returns nrows. */
int			ts_line_reader_end_batch(ts_line_reader *r, ts_batch *batch, int nrows);

/* ---- CSV syntax (csv_reader.c), shared with csv_part_starts.c ---------- */

/* The characters that decide where CSV fields and records end (0: none). */
typedef struct ts_csv_syntax
{
	char		delim;
	char		quote;
	char		escape;
} ts_csv_syntax;

/* csv.field-delimiter, csv.quote-character, csv.escape-character, checked. */
bool		ts_csv_parse_syntax(const ts_reader_options *o, ts_csv_syntax *out, ts_err *err);

/*
 * The read size of ts_csv_part_starts' pass (csv_part_starts.c); 0: the
 * default (1 MiB).  Tests make it small to cross block ends everywhere.
 */
void		ts_csv_part_starts_set_block(size_t bytes);

/* ---- JSON lines (json_scan.c, json_line.c) ---------------------------- */

/* What a top-level key's value is, as the strict scan found it. */
typedef enum ts_json_kind
{
	TS_JSON_MISSING = 0,		/* the key is not in the object */
	TS_JSON_NULL,
	TS_JSON_FALSE,
	TS_JSON_TRUE,
	TS_JSON_NUMBER,
	TS_JSON_STRING,
	TS_JSON_NESTED				/* an object or an array */
} ts_json_kind;

/* A value in the line: a string's content without its quotes. */
typedef struct ts_json_span
{
	ts_json_kind kind;
	bool		escaped;		/* a string holding a backslash escape */
	uint32_t	off;
	uint32_t	len;
} ts_json_span;

/* Members whose column is remembered from the line before (key order). */
#define TS_JSON_ORDER_MAX 64

/* The keys looked for: the requested columns' names. */
typedef struct ts_json_keys
{
	int			n;
	const char *const *names;
	const size_t *lens;
	int16_t		order[TS_JSON_ORDER_MAX];	/* member -> column last time, or -1 */
} ts_json_keys;

/*
 * Scan the JSON object p[0..n) in place: found[c] (keys->n of them) gets
 * the value of the last member named keys->names[c].  Returns false when
 * the line is not in the strict subset json_scan.c's header describes
 * (then nothing is decided: the tree parser reads the line).
 */
bool		ts_json_scan_object(const uint8_t *p, size_t n, ts_json_keys *keys, ts_json_span *found);
/*
 * The bytes of a string the scan accepted, its escapes decoded (UTF-8) into
 * out (at least len bytes); returns the length written.
 */
size_t		ts_json_unescape(const uint8_t *s, size_t len, char *out);

/* One line into a row of the requested columns (json_line.c). */
typedef struct ts_json_line
{
	const ts_read_column *cols;
	int			ncols;
	ts_arena   *arena;			/* strings, nested items; reset by the owner */
	bool		tree_only;		/* tests: every line through cJSON */
	int64_t		tree_lines;		/* lines the tree parser read */
	ts_json_keys keys;			/* the columns' distinct names */
	const char **key_names;
	size_t	   *key_lens;
	int		   *key_of;			/* column -> its name's key */
	ts_json_span *found;		/* per key */
	/* the tree parser's number tokens of the current line */
	const char *line;
	struct json_num_span *spans;
	int			nspans;
	int			cap_spans;
} ts_json_line;

bool		ts_json_line_init(ts_json_line *jl, const ts_read_column *cols, int ncols,
							  ts_arena *arena, ts_err *err);
void		ts_json_line_free(ts_json_line *jl);
/*
 * Convert one JSON object into row[0..ncols); false with err set when the
 * line is not valid JSON, not an object, or a value does not convert (the
 * column is named in the error context).
 */
bool		ts_json_line_read(ts_json_line *jl, const uint8_t *line, size_t len, ts_value *row,
							  ts_err *err);

/* ---- options -------------------------------------------------------- */

/*
 * Value of the first key found (keys tried in order, NULL-terminated);
 * later pairs in the options win over earlier ones.  NULL if absent.
 */
const char *ts_text_option(const ts_reader_options *o, const char *const *keys);
/* Boolean option: "true"/"false" (case-insensitive); error otherwise. */
bool		ts_text_option_bool(const ts_reader_options *o, const char *const *keys,
								bool def, bool *out, ts_err *err);
/*
 * A single-character option such as csv.field-delimiter: one byte, or an
 * escape spelled \t \n \r \0 \\ or \uXXXX (< 0x80), or "" (= disabled, 0).
 */
bool		ts_text_option_char(const ts_reader_options *o, const char *const *keys,
								char def, char *out, ts_err *err);
/*
 * A line delimiter option (csv. / json. / text.line-delimiter, lineSep):
 * *out NULL when unset or a standard line end (\n, \r\n or \r, also spelled
 * with backslash escapes), where lines split as Java's readLine does;
 * else a copy of the string (ts_free), split on exactly.
 */
bool		ts_text_option_line_delimiter(const ts_reader_options *o, const char *const *keys,
										  char **out, ts_err *err);

#endif							/* TS_TEXT_INTERNAL_H */
