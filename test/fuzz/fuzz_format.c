/*
 * fuzz_format.c - libFuzzer harness for the file format readers.
 *
 * Built once per format (-DFUZZ_FORMAT=TS_FORMAT_AVRO, ...): the input is
 * written to a temporary file and read back through ts_format_open with a
 * projection of common column types, draining every batch.  Any crash,
 * sanitizer report or leak is a bug; errors are the expected outcome for
 * most inputs.  Columns f8..f10 are nested (ARRAY<INT>, MAP<STRING, INT>,
 * ROW<x INT, y STRING>).
 *
 * For the text formats (-DFUZZ_TEXT, with TS_FORMAT_CSV / TS_FORMAT_JSON)
 * the first input byte picks a set of csv.* / json.* options and a small
 * batch size (and, its bit 3 set, for JSON only the scalar columns f0..f7,
 * whose values no cJSON tree parses: json_scan.c alone), the second (when
 * odd) a byte range of the file to read as a parallel part does; the rest
 * is the file.
 *
 * Background decompression is on (base/background.c): ZSTD Avro blocks
 * after the current one and Parquet row groups after the current one are
 * decompressed ahead; Parquet is read in batches of 2 rows so that a row
 * group of more rows is (pq_ahead.c).
 *
 * Avro is read with a rows filter that passes every other block over
 * unread (a row selection: only its header and sync marker are read).
 *
 * For BLOB files (-DFUZZ_BLOB, with TS_FORMAT_BLOB) the projection is the
 * one BLOB column such a file holds, read in batches of 2 rows.
 *
 * A Parquet or ORC reader that opens also names what it would read first
 * of the input as another file of its layout (ts_format_ranges_like), from
 * the whole input and from its last half, the input's bytes held: every
 * range named must lie in the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "base/ts_background.h"

/* rows read from one input at most (see LLVMFuzzerTestOneInput) */
#define FUZZ_MAX_ROWS ((int64_t) 1 << 20)

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT TS_FORMAT_AVRO
#endif

/* a rows filter keeping every other block / row group (arg: a counter) */
static bool __attribute__((unused))
every_other_block(void *arg, int64_t first_row, int64_t nrows)
{
	int		   *n = arg;

	(void) first_row;
	(void) nrows;
	return (*n)++ % 2 == 0;
}

static ts_type *
mk(ts_type_kind k, int p, int s)
{
	ts_type    *t = ts_type_new(k, true);

	t->precision = p;
	t->scale = s;
	t->length = TS_STRING_LENGTH;
	return t;
}

static ts_type *
mk_nested(void)
{
	static int	n = 0;
	ts_type    *t;

	switch (n++)
	{
		case 0:
			t = ts_type_new(TS_ARRAY, true);
			t->element = mk(TS_INT, 0, 0);
			return t;
		case 1:
			t = ts_type_new(TS_MAP, true);
			t->key = mk(TS_VARCHAR, 0, 0);
			t->key->nullable = false;
			t->value = mk(TS_INT, 0, 0);
			return t;
		default:
			t = ts_type_new(TS_ROW, true);
			t->nfields = 2;
			t->fields = calloc(2, sizeof(ts_field));
			t->fields[0] = (ts_field) {0, "x", mk(TS_INT, 0, 0), NULL};
			t->fields[1] = (ts_field) {1, "y", mk(TS_VARCHAR, 0, 0), NULL};
			return t;
	}
}

#ifdef FUZZ_TEXT
/* option sets for the text formats; the first input byte picks one */
static const char *const opt_keys[][4] = {
	{NULL},
	{"csv.include-header", "csv.field-delimiter", "csv.null-literal", "csv.mode"},
	{"csv.field-delimiter", "csv.quote-character", "csv.escape-character", "csv.mode"},
	{"csv.line-delimiter", "csv.mode", NULL},
	{"json.ignore-parse-errors", "json.map-null-key-mode", NULL},
	{"json.ignore-parse-errors", "json.line-delimiter", NULL},
	{"text.line-delimiter", NULL},
};
static const char *const opt_vals[][4] = {
	{NULL},
	{"true", ";", "NULL", "DROPMALFORMED"},
	{"\t", "'", "#", "FAILFAST"},
	{"##", "PERMISSIVE", NULL},
	{"true", "DROP", NULL},
	{"false", "|", NULL},
	{"##", NULL},
};
#define NOPTSETS ((int) (sizeof(opt_keys) / sizeof(opt_keys[0])))
#endif

static char path[64];

#if (FUZZ_FORMAT == TS_FORMAT_PARQUET || FUZZ_FORMAT == TS_FORMAT_ORC) && !defined(FUZZ_TEXT)
/* the input's bytes as those held of "another file" (ts_format_ranges_like) */
typedef struct held_input
{
	const uint8_t *data;
	size_t		size;
} held_input;

static const uint8_t *
held_input_at(void *arg, int64_t offset, size_t len)
{
	const held_input *h = arg;

	return offset >= 0 && (uint64_t) offset <= h->size && len <= h->size - (size_t) offset ?
		h->data + offset : NULL;
}

/*
 * What r names of the input read as another file of its layout, from its
 * whole bytes and from its last half: every range must lie in the file.
 */
static void
ranges_like_input(const ts_format_reader *r, const uint8_t *data, size_t size)
{
	held_input	h = {data, size};
	ts_held_bytes held = {held_input_at, &h};
	ts_range	out[64];

	for (int k = 0; k < 2; k++)
	{
		size_t		tail = k == 0 ? size : size / 2;
		int			n = ts_format_ranges_like(r, data + size - tail, tail, (int64_t) size, &held,
											  (int64_t) 1 << 30, out, 64);

		for (int i = 0; i < n; i++)
			if (out[i].offset < 0 || out[i].len > size || (size_t) out[i].offset > size - out[i].len)
				abort();		/* a range outside the file */
	}
}
#define FUZZ_RANGES_LIKE(r, d, n) ranges_like_input(r, d, n)
#else
#define FUZZ_RANGES_LIKE(r, d, n) ((void) 0)
#endif

static void
remove_input(void)
{
	unlink(path);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ts_read_column cols[11];
	static bool init = false;
	FILE	   *f;
	ts_err		err;
	ts_format_reader *r;
	ts_batch	batch;

	if (!init)
	{
		static const char *names[11] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7",
		"f8", "f9", "f10"};

		snprintf(path, sizeof(path), "%s/ts_fuzz_%d",
				 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int) getpid());
		atexit(remove_input);
		cols[0] = (ts_read_column) {0, names[0], mk(TS_VARCHAR, 0, 0)};
		cols[1] = (ts_read_column) {1, names[1], mk(TS_INT, 0, 0)};
		cols[2] = (ts_read_column) {2, names[2], mk(TS_BIGINT, 0, 0)};
		cols[3] = (ts_read_column) {3, names[3], mk(TS_DOUBLE, 0, 0)};
		cols[4] = (ts_read_column) {4, names[4], mk(TS_DECIMAL, 20, 2)};
		cols[5] = (ts_read_column) {5, names[5], mk(TS_TIMESTAMP, 6, 0)};
		cols[6] = (ts_read_column) {6, names[6], mk(TS_DATE, 0, 0)};
		cols[7] = (ts_read_column) {7, names[7], mk(TS_VARBINARY, 0, 0)};
		for (int i = 8; i < 11; i++)
			cols[i] = (ts_read_column) {i, names[i], mk_nested()};
		ts_bg_set_enabled(true);	/* ZSTD Avro blocks, Parquet row groups ahead */
		init = true;
	}
#ifdef FUZZ_TEXT
	ts_reader_options opts;
	int			set;
	int			nopt = 0;
	bool		scalars_only;

	if (size < 1)
		return 0;
	set = data[0] % NOPTSETS;
	scalars_only = FUZZ_FORMAT == TS_FORMAT_JSON && (data[0] & 8);
	while (nopt < 4 && opt_keys[set][nopt])
		nopt++;
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	opts.batch_rows = 1 + (data[0] >> 4);
	opts.ntext_options = nopt;
	opts.text_option_keys = opt_keys[set];
	opts.text_option_values = opt_vals[set];
	data++;
	size--;
	/* an odd second byte reads a byte range (a parallel part) of the rest */
	if (size >= 1 && (data[0] & 1))
	{
		opts.range_start = (data[0] >> 1) % 16;
		opts.range_end = opts.range_start + 1 + (data[0] >> 5);
	}
	if (size >= 1)
	{
		data++;
		size--;
	}
#define FUZZ_OPTS (&opts)
#elif FUZZ_FORMAT == TS_FORMAT_PARQUET
	/* batches of 2 rows: a row group of more is read ahead in the helper thread */
	ts_reader_options opts;

	memset(&opts, 0, sizeof(opts));

	opts.fs = ts_fs_local_unconfined();
	opts.batch_rows = 2;
#define FUZZ_OPTS (&opts)
#elif FUZZ_FORMAT == TS_FORMAT_AVRO && !defined(FUZZ_BLOB)
	/* every other block passed over unread */
	ts_reader_options opts;
	int			blocks = 0;

	memset(&opts, 0, sizeof(opts));

	opts.fs = ts_fs_local_unconfined();
	opts.rows_filter = every_other_block;
	opts.rows_filter_arg = &blocks;
#define FUZZ_OPTS (&opts)
#else
#define FUZZ_OPTS (&(ts_reader_options) {.fs = ts_fs_local_unconfined()})
#endif
	f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);

	memset(&err, 0, sizeof(err));
#ifdef FUZZ_BLOB
	{
		static ts_read_column blob_col;
		ts_reader_options blob_opts;

		if (blob_col.type == NULL)
			blob_col = (ts_read_column) {0, "b", mk(TS_BLOB, 0, 0)};
		memset(&blob_opts, 0, sizeof(blob_opts));
		blob_opts.fs = ts_fs_local_unconfined();
		blob_opts.batch_rows = 2;
		r = ts_format_open(FUZZ_FORMAT, path, &blob_col, 1, &blob_opts, &err);
	}
#else
	/* a TEXT file has one STRING column */
#ifdef FUZZ_TEXT
	r = ts_format_open(FUZZ_FORMAT, path, cols, FUZZ_FORMAT == TS_FORMAT_TEXT ? 1 : scalars_only ? 8 : 11,
					   FUZZ_OPTS, &err);
#else
	r = ts_format_open(FUZZ_FORMAT, path, cols, 11, FUZZ_OPTS, &err);
#endif
#endif
	if (r)
	{
		int			n;
		int64_t		rows = 0;

		/*
		 * A few hundred bytes can claim billions of rows of a column the
		 * file lacks (read as NULLs, a batch at a time: bounded memory, and
		 * the server can cancel between batches).  Reading them all is no
		 * bug to find, only a libFuzzer timeout: stop after FUZZ_MAX_ROWS.
		 */
		FUZZ_RANGES_LIKE(r, data, size);
		while ((n = ts_format_next(r, &batch, &err)) > 0 && (rows += n) < FUZZ_MAX_ROWS)
			;
		ts_format_close(r);
	}
	return 0;
}
