/*
 * test_parquet_like.c - the column chunks an open Parquet reader names in
 * another file of the same layout (ts_format_ranges_like), which a scan
 * fetches before it opens that file.
 *
 * Given only the other file's tail, the ranges are exactly that file's
 * chunks of the reader's leaves (a nested column's leaf included), row
 * group by row group in file order, the first always and the next while
 * they fit the budget; nothing for a file of another schema, a tail that
 * does not hold the footer or is not Parquet, or a reader whose filters
 * may leave row groups out (statistics, row selection, a byte range).
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "format/parquet/pq_internal.h"
#include "format/parquet/pq_writer.h"
#include "meta/schema.h"
#include "write_schema.h"

static const char *SCHEMA =
"{\"version\":3,\"id\":0,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
"{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
"{\"id\":2,\"name\":\"ai\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}}"
"],\"highestFieldId\":2,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

/* the same with one more column */
static const char *WIDER =
"{\"version\":3,\"id\":1,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
"{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
"{\"id\":2,\"name\":\"ai\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
"{\"id\":3,\"name\":\"x\",\"type\":\"INT\"}"
"],\"highestFieldId\":3,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

/* rows of seed's values to a temporary file in row groups of about 64 KiB; its path */
static char *
write_file(const ts_schema *s, int nrows, int seed)
{
	char	   *path = strdup("/tmp/ts-unit-pqlike.XXXXXX");
	ts_err		err;
	ts_buf		out;
	ts_pq_writer *w;
	int			fd;
	char		str[32];
	ts_value	items[3];

	ts_buf_init(&out);
	w = ts_pq_writer_create(s->fields, s->nfields, 1, 64 << 10, buf_sink, &out, &err);
	if (w == NULL)
		fail_msg("create: %s", err.msg);
	for (int i = 0; i < nrows; i++)
	{
		ts_value	row[4];
		int			n = snprintf(str, sizeof(str), "v%d-%d", seed, i * 7 + seed);

		memset(row, 0, sizeof(row));
		row[0].v.i = (int64_t) i * 31 + seed;
		row[1].isnull = (i + seed) % 5 == 0;
		row[1].v.s.p = (const uint8_t *) str;
		row[1].v.s.len = (uint32_t) n;
		row[2].v.nested.n = i % 3;
		row[2].v.nested.items = items;
		for (int k = 0; k < 3; k++)
			items[k].v.i = i + k + seed;
		row[3].v.i = i;
		if (!ts_pq_writer_add(w, row, &err))
			fail_msg("add %d: %s", i, err.msg);
	}
	if (!ts_pq_writer_finish(w, &err))
		fail_msg("finish: %s", err.msg);
	ts_pq_writer_free(w);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, out.data, out.len), (ssize_t) out.len);
	close(fd);
	ts_buf_free(&out);
	return path;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	ts_err		err;
	uint8_t    *data;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &data, len, &err))
		fail_msg("%s: %s", path, err.msg);
	return data;
}

static ts_format_reader *
open_reader(const char *path, const ts_read_column *cols, int n, const ts_reader_options *given)
{
	ts_reader_options opts;
	ts_err		err;
	ts_format_reader *r;

	if (given)
		opts = *given;
	else
		memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	r = ts_format_open(TS_FORMAT_PARQUET, path, cols, n, &opts, &err);
	if (r == NULL)
		fail_msg("open %s: %s", path, err.msg);
	return r;
}

/* The chunk of column c of row group g of the file b (len bytes), as its reader reads it. */
static void
chunk_of(const pq_file_meta *m, int g, int c, int64_t *start, int64_t *len)
{
	const pq_column_chunk *cc = &m->row_groups[g].columns[c];

	*start = cc->data_page_offset;
	if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < *start)
		*start = cc->dictionary_page_offset;
	*len = cc->total_compressed_size;
}

static bool
keep_none(void *arg, const ts_column_stats *stats, int ncols)
{
	(void) arg;
	(void) stats;
	(void) ncols;
	return true;
}

static bool
rows_all(void *arg, int64_t first, int64_t n)
{
	(void) arg;
	(void) first;
	(void) n;
	return true;
}

static void
test_ranges_like(void **state)
{
	ts_schema  *s = schema_json(SCHEMA);
	ts_schema  *wide = schema_json(WIDER);
	char	   *a = write_file(s, 30000, 1);
	char	   *b = write_file(s, 45000, 2);
	char	   *c = write_file(wide, 30000, 3);
	ts_read_column cols[2] = {{1, "s", s->fields[1].type}, {2, "ai", s->fields[2].type}};
	ts_format_reader *r = open_reader(a, cols, 2, NULL);
	size_t		blen,
				clen;
	uint8_t    *bb = slurp(b, &blen);
	uint8_t    *cb = slurp(c, &clen);
	pq_file_meta m = {0};
	ts_err		err;
	uint32_t	flen = ts_load_le32(bb + blen - 8);
	ts_range	out[64];
	int			n,
				all;
	int64_t		first = 0,
				two = 0;

	(void) state;
	assert_true(pq_parse_file_meta(bb + blen - 8 - flen, flen, &m, &err));
	assert_true(m.nrow_groups >= 4);	/* several row groups, at other offsets than a's */

	/* every row group, in order: the chunks of s (column 1) and ai's element (2) */
	all = ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64);
	assert_int_equal(all, 2 * m.nrow_groups);
	for (int g = 0; g < m.nrow_groups; g++)
		for (int k = 0; k < 2; k++)
		{
			int64_t		start,
						len;

			chunk_of(&m, g, 1 + k, &start, &len);
			assert_int_equal(out[2 * g + k].offset, start);
			assert_int_equal((int64_t) out[2 * g + k].len, len);
			assert_null(out[2 * g + k].buf);
			if (g == 0)
				first += len;
			if (g <= 1)
				two += len;
		}
	/* only the tail is needed: the last 64 KiB hold the footer */
	n = ts_format_ranges_like(r, bb + blen - (64 << 10), 64 << 10, (int64_t) blen,
							  (int64_t) 1 << 40, out, 64);
	assert_int_equal(n, all);
	/* the budget: the first row group always, the next while they fit */
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, 1, out, 64), 2);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, first, out, 64), 2);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, two, out, 64), 4);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, two - 1, out, 64), 2);
	/* at most max ranges, whole row groups */
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 5), 4);

	/* nothing: another schema, a tail without the whole footer, not Parquet */
	assert_int_equal(ts_format_ranges_like(r, cb, clen, (int64_t) clen, (int64_t) 1 << 40, out, 64), 0);
	assert_int_equal(ts_format_ranges_like(r, bb + blen - flen, flen, (int64_t) blen,
										   (int64_t) 1 << 40, out, 64), 0);
	{
		uint8_t    *bad = malloc(blen);

		memcpy(bad, bb, blen);
		memcpy(bad + blen - 4, "PAR2", 4);
		assert_int_equal(ts_format_ranges_like(r, bad, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64), 0);
		memcpy(bad + blen - 4, "PAR1", 4);
		memset(bad + blen - 8 - flen, 0xff, 16);	/* a footer that does not parse */
		assert_int_equal(ts_format_ranges_like(r, bad, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64), 0);
		free(bad);
	}
	ts_format_close(r);

	/* a reader whose filters may leave row groups out names nothing */
	{
		ts_reader_options o;

		memset(&o, 0, sizeof(o));
		o.stats_filter = keep_none;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.rows_filter = rows_all;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.range_start = 0;
		o.range_end = 4;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
	}
	/* the first column alone: its chunk only */
	r = open_reader(a, cols, 1, NULL);
	n = ts_format_ranges_like(r, bb, blen, (int64_t) blen, (int64_t) 1 << 40, out, 64);
	assert_int_equal(n, m.nrow_groups);
	for (int g = 0; g < m.nrow_groups; g++)
	{
		int64_t		start,
					len;

		chunk_of(&m, g, 1, &start, &len);
		assert_int_equal(out[g].offset, start);
	}
	ts_format_close(r);

	pq_free_file_meta(&m);
	ts_free(bb);
	ts_free(cb);
	unlink(a);
	unlink(b);
	unlink(c);
	free(a);
	free(b);
	free(c);
	ts_schema_free(s);
	ts_schema_free(wide);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_like),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
