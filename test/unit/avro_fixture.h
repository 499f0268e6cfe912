/*
 * avro_fixture.h - Avro files written by our own writer for unit tests:
 * rows (ncols values each) under an explicit writer schema, into a new
 * temporary file.  Included by the tests that need it (after unit.h).
 */
#ifndef TS_UNIT_AVRO_FIXTURE_H
#define TS_UNIT_AVRO_FIXTURE_H

#include <unistd.h>

#include "format/avro/avro_writer.h"

/*
 * Write the rows to a new file /tmp/<prefix>XXXXXX; returns its path (free
 * it).  ncols >= 0: the schema must have that many fields; < 0: one row of
 * the schema's own width.
 */
static inline char *
unit_write_avro(const char *prefix, const char *schema_json, const ts_value *rows, int nrows,
				int ncols)
{
	ts_err		err = {0};
	ts_avro_writer *w = ts_avro_writer_create(schema_json, TS_AVRO_CODEC_NULL, &err);
	ts_buf		out;
	char	   *path = malloc(strlen(prefix) + 16);
	FILE	   *f;
	int			fd;

	if (w == NULL)
		fail_msg("%s", err.msg);
	assert_non_null(path);
	sprintf(path, "/tmp/%sXXXXXX", prefix);
	if (ncols >= 0)
		assert_int_equal(ts_avro_writer_ncols(w), ncols);
	else
		ncols = ts_avro_writer_ncols(w);
	for (int r = 0; r < nrows; r++)
		if (!ts_avro_writer_add(w, rows + (size_t) r * ncols, &err))
			fail_msg("%s", err.msg);
	ts_buf_init(&out);
	if (!ts_avro_writer_finish(w, &out, &err))
		fail_msg("%s", err.msg);
	ts_avro_writer_free(w);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
	fclose(f);
	ts_buf_free(&out);
	return path;
}

#endif							/* TS_UNIT_AVRO_FIXTURE_H */
