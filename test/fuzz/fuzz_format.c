/*
 * fuzz_format.c - libFuzzer harness for the file format readers.
 *
 * Built once per format (-DFUZZ_FORMAT=TS_FORMAT_AVRO, ...): the input is
 * written to a temporary file and read back through ts_format_open with a
 * projection of common column types, draining every batch.  Any crash,
 * sanitizer report or leak is a bug; errors are the expected outcome for
 * most inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT TS_FORMAT_AVRO
#endif

static ts_type *
mk(ts_type_kind k, int p, int s)
{
	ts_type    *t = ts_type_new(k, true);

	t->precision = p;
	t->scale = s;
	t->length = TS_STRING_LENGTH;
	return t;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static ts_read_column cols[8];
	static bool init = false;
	FILE	   *f;
	ts_err		err;
	ts_format_reader *r;
	ts_batch	batch;

	if (!init)
	{
		static const char *names[8] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"};

		snprintf(path, sizeof(path), "/tmp/ts_fuzz_%d", (int) getpid());
		cols[0] = (ts_read_column) {0, names[0], mk(TS_VARCHAR, 0, 0)};
		cols[1] = (ts_read_column) {1, names[1], mk(TS_INT, 0, 0)};
		cols[2] = (ts_read_column) {2, names[2], mk(TS_BIGINT, 0, 0)};
		cols[3] = (ts_read_column) {3, names[3], mk(TS_DOUBLE, 0, 0)};
		cols[4] = (ts_read_column) {4, names[4], mk(TS_DECIMAL, 20, 2)};
		cols[5] = (ts_read_column) {5, names[5], mk(TS_TIMESTAMP, 6, 0)};
		cols[6] = (ts_read_column) {6, names[6], mk(TS_DATE, 0, 0)};
		cols[7] = (ts_read_column) {7, names[7], mk(TS_VARBINARY, 0, 0)};
		init = true;
	}
	f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);

	memset(&err, 0, sizeof(err));
	r = ts_format_open(FUZZ_FORMAT, path, cols, 8, NULL, &err);
	if (r)
	{
		int			n;

		while ((n = ts_format_next(r, &batch, &err)) > 0)
			;
		ts_format_close(r);
	}
	return 0;
}
