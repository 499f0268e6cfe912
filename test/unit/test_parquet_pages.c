/*
 * test_parquet_pages.c - column chunks of many pages: written in Java's
 * layout, read page by page through a bounded buffer.
 *
 * The writer cuts a leaf's pages at parquet.page.size bytes or the page
 * row limit (every page of a 4 KiB page size within a row's bytes of it;
 * every page of a 100-row limit at most 100 entries) inside one row group,
 * its entries adding up to the chunk's; the
 * reader gives back every value written, whole chunks or read through a
 * buffer of 1 byte (every page larger than it), exactly one page, a few
 * pages and a window that cuts pages and headers anywhere, with and without
 * decompression ahead (every page decompressed ahead used, none decompressed
 * again when the buffer moves; pages larger than half the window read by the
 * helper thread, or in place when it never gets to them; a file cut short
 * meanwhile an error); its leaf buffers stay below the chunk they stream.
 * Java-written files with dictionary pages and nested columns read the
 * same through such buffers as whole.  The table options parquet.block.size
 * / parquet.page.size are parsed as Hadoop does and refused naming the
 * option when they are not positive byte counts.
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>

#include "base/ts_background.h"
#include "base/ts_fs.h"
#include "format/file_writer.h"
#include "format/format.h"
#include "format/parquet/pq_reader_internal.h"
#include "format/parquet/pq_writer.h"
#include "meta/schema.h"
#include "write_schema.h"

static const char *SCHEMA =
"{\"version\":3,\"id\":0,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
"{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
"{\"id\":2,\"name\":\"d\",\"type\":\"DOUBLE\"},"
"{\"id\":3,\"name\":\"b\",\"type\":\"BOOLEAN\"},"
"{\"id\":4,\"name\":\"ai\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}}"
"],\"highestFieldId\":4,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

#define NF 5
#define NROWS 20000

static char strs[NROWS][24];
static ts_value items[NROWS][3];

/* row i: nulls at different strides per column, arrays of 0..3 items */
static void
make_row(int i, ts_value *row)
{
	memset(row, 0, sizeof(ts_value) * NF);
	row[0].v.i = (int64_t) i * 7919;
	if (i % 7 == 3)
		row[1].isnull = true;
	else
	{
		int			n = snprintf(strs[i], sizeof(strs[i]), "s%d", i * 31);

		row[1].v.s.p = (const uint8_t *) strs[i];
		row[1].v.s.len = (uint32_t) n;
	}
	row[2].isnull = i % 11 == 5;
	row[2].v.d = i * 0.25;
	row[3].isnull = i % 13 == 1;
	row[3].v.i = i % 3 == 0;
	row[4].isnull = i % 17 == 2;
	row[4].v.nested.n = i % 4 == 0 ? 0 : i % 4;
	row[4].v.nested.items = items[i];
	for (int k = 0; k < 3; k++)
	{
		items[i][k].isnull = (i + k) % 9 == 0;
		items[i][k].v.i = i * 3 + k;
	}
}

/* The NROWS rows to a temporary file in pages of page_bytes / page_rows; its path. */
static char *
write_table(const ts_schema *s, size_t page_bytes, int64_t page_rows, int zstd)
{
	static char path[64];
	ts_err		err;
	ts_buf		out;
	ts_value	row[NF];
	ts_pq_writer *w;

	ts_buf_init(&out);
	w = ts_pq_writer_create(s->fields, s->nfields, zstd, 0, buf_sink, &out, &err);
	if (w == NULL)
		fail_msg("create: %s", err.msg);
	ts_pq_writer_set_page_size(w, page_bytes, page_rows);
	for (int i = 0; i < NROWS; i++)
	{
		make_row(i, row);
		if (!ts_pq_writer_add(w, row, &err))
			fail_msg("add %d: %s", i, err.msg);
	}
	if (!ts_pq_writer_finish(w, &err))
		fail_msg("finish: %s", err.msg);
	ts_pq_writer_free(w);
	snprintf(path, sizeof(path), "/tmp/ts-unit-pqpages.XXXXXX");
	buf_to_temp_file(path, &out);
	return path;
}

static void
footer(const uint8_t *b, size_t len, pq_file_meta *m)
{
	ts_err		err;
	uint32_t	mlen;

	assert_true(len > 12 && memcmp(b + len - 4, "PAR1", 4) == 0);
	mlen = ts_load_le32(b + len - 8);
	if (!pq_parse_file_meta(b + len - 8 - mlen, mlen, m, &err))
		fail_msg("footer: %s", err.msg);
}

typedef struct page_census
{
	int			data_pages;
	int			dict_pages;
	int64_t		values;			/* of the data pages */
	int32_t		max_uncompressed;
	int32_t		max_values;
	int32_t		first_page_bytes;	/* header and body of the chunk's first page */
} page_census;

/* Walk the pages of column chunk cc of the file in b. */
static page_census
census(const uint8_t *b, const pq_column_chunk *cc)
{
	page_census pc = {0};
	int64_t		start = cc->data_page_offset;
	ts_cursor	c;

	if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < start)
		start = cc->dictionary_page_offset;
	ts_cursor_init(&c, b + start, (size_t) cc->total_compressed_size);
	while (ts_cursor_left(&c) > 0)
	{
		const uint8_t *at = c.p;
		pq_page_header h;
		ts_err		err;

		if (!pq_parse_page_header(&c, &h, &err))
			fail_msg("page header: %s", err.msg);
		c.p += h.compressed_size;
		if (pc.first_page_bytes == 0)
			pc.first_page_bytes = (int32_t) (c.p - at);
		if (h.type == PQ_PAGE_DICT)
		{
			pc.dict_pages++;
			continue;
		}
		pc.data_pages++;
		pc.values += h.num_values;
		if (h.uncompressed_size > pc.max_uncompressed)
			pc.max_uncompressed = h.uncompressed_size;
		if (h.num_values > pc.max_values)
			pc.max_values = h.num_values;
	}
	return pc;
}

/* ---- values --------------------------------------------------------------- */

static void
assert_same(const ts_value *a, const ts_value *b, const ts_type *t, const char *col, int row)
{
	if (a->isnull != b->isnull)
		fail_msg("row %d %s: null %d, read %d", row, col, a->isnull, b->isnull);
	if (a->isnull)
		return;
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (a->v.s.len != b->v.s.len || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) != 0)
				fail_msg("row %d %s: bytes differ", row, col);
			return;
		case TS_FLOAT:
			if (memcmp(&a->v.f, &b->v.f, sizeof(float)) != 0)
				fail_msg("row %d %s: float differs", row, col);
			return;
		case TS_DOUBLE:
			if (memcmp(&a->v.d, &b->v.d, sizeof(double)) != 0)
				fail_msg("row %d %s: %g, read %g", row, col, a->v.d, b->v.d);
			return;
		case TS_DECIMAL:
			if (a->v.dec != b->v.dec)
				fail_msg("row %d %s: decimal differs", row, col);
			return;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (a->v.ts.millis != b->v.ts.millis || a->v.ts.nanos != b->v.ts.nanos)
				fail_msg("row %d %s: timestamp differs", row, col);
			return;
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_MAP:
		case TS_ROW:
			{
				int			per = t->kind == TS_MAP ? 2 : 1;

				if (a->v.nested.n != b->v.nested.n)
					fail_msg("row %d %s: %d items, read %d", row, col, a->v.nested.n, b->v.nested.n);
				for (int i = 0; i < a->v.nested.n * per; i++)
					assert_same(&a->v.nested.items[i], &b->v.nested.items[i],
								t->kind == TS_ROW ? t->fields[i].type :
								t->kind == TS_MAP ? (i % 2 ? t->value : t->key) : t->element,
								col, row);
				return;
			}
		default:
			if (a->v.i != b->v.i)
				fail_msg("row %d %s: %lld, read %lld", row, col, (long long) a->v.i,
						 (long long) b->v.i);
	}
}

static ts_read_column *
columns_of(const ts_schema *s)
{
	ts_read_column *cols = calloc((size_t) s->nfields, sizeof(ts_read_column));

	for (int c = 0; c < s->nfields; c++)
		cols[c] = (ts_read_column) {s->fields[c].id, s->fields[c].name, s->fields[c].type};
	return cols;
}

static ts_format_reader *
open_with(const char *path, const ts_read_column *cols, int n, size_t buffer)
{
	ts_reader_options o = *unit_local_read();
	ts_format_reader *r;
	ts_err		err;

	o.chunk_buffer_bytes = buffer;
	r = ts_parquet_open(path, cols, n, &o, &err);
	if (r == NULL)
		fail_msg("open %s: %s", path, err.msg);
	return r;
}

/* Every leaf's buffer holds less than its chunk (of more than 8 KiB): it is streamed. */
static void
assert_streamed(ts_format_reader *fr)
{
	pq_reader  *r = (pq_reader *) fr;

	for (int i = 0; i < r->nleaves; i++)
	{
		const pq_leaf *l = r->leaves[i];
		int64_t		len = r->meta.row_groups[r->cur_rg].columns[l->column_index].total_compressed_size;

		if (len > 8192 && (int64_t) l->chunk_cap >= len)
			fail_msg("column %s: a buffer of %zu bytes for a chunk of %lld", l->path, l->chunk_cap,
					 (long long) len);
	}
}

/* The file at path read through a buffer of buffer bytes gives the rows made by make_row. */
static void
read_back(const char *path, const ts_schema *s, size_t buffer, bool streamed)
{
	ts_read_column *cols = columns_of(s);
	ts_format_reader *r = open_with(path, cols, s->nfields, buffer);
	ts_value	want[NF];
	ts_batch	b;
	ts_err		err;
	int			rc,
				seen = 0;

	while ((rc = ts_format_next(r, &b, &err)) > 0)
	{
		for (int row = 0; row < b.nrows; row++, seen++)
		{
			make_row(seen, want);
			for (int c = 0; c < NF; c++)
				assert_same(&want[c], ts_batch_at(&b, row, c), s->fields[c].type,
							s->fields[c].name, seen);
		}
		if (streamed)
			assert_streamed(r);
	}
	if (rc < 0)
		fail_msg("read through %zu bytes: %s", buffer, err.msg);
	assert_int_equal(seen, NROWS);
	ts_format_close(r);
	free(cols);
}

/* ---- tests ---------------------------------------------------------------- */

static void
test_pages_as_java_cuts_them(void **state)
{
	ts_schema  *s = schema_json(SCHEMA);
	pq_file_meta m = {0};
	size_t		len;
	uint8_t    *b;
	char	   *path;

	(void) state;
	/* by bytes: zstd pages of about 4 KiB uncompressed, one row group (8 MiB default) */
	path = write_table(s, 4096, 0, 1);
	b = unit_slurp(path, &len);
	footer(b, len, &m);
	assert_int_equal(m.nrow_groups, 1);
	assert_int_equal(m.row_groups[0].num_rows, NROWS);
	for (int c = 0; c < m.row_groups[0].ncolumns; c++)
	{
		const pq_column_chunk *cc = &m.row_groups[0].columns[c];
		page_census pc = census(b, cc);

		assert_true(pc.data_pages >= (c == 3 ? 5 : 30));	/* booleans: bits */
		assert_int_equal(pc.dict_pages, 0);
		assert_int_equal(pc.values, cc->num_values);
		/* a page is cut at the row that takes it to 4096 buffered bytes */
		if (pc.max_uncompressed > 4096 + 64)
			fail_msg("column %d: a page of %d bytes", c, pc.max_uncompressed);
	}
	pq_free_file_meta(&m);
	free(b);
	unlink(path);

	/* by rows: 100 rows a page (Java's parquet.page.row-count-limit) */
	path = write_table(s, 0, 100, 0);
	b = unit_slurp(path, &len);
	footer(b, len, &m);
	assert_int_equal(m.nrow_groups, 1);
	for (int c = 0; c < m.row_groups[0].ncolumns; c++)
	{
		page_census pc = census(b, &m.row_groups[0].columns[c]);

		assert_int_equal(pc.data_pages, NROWS / 100);
		if (c < 4)
			assert_int_equal(pc.max_values, 100);	/* flat: one entry a row */
		else
			assert_true(pc.max_values > 100);	/* an array: its items */
	}
	pq_free_file_meta(&m);
	free(b);
	unlink(path);
	ts_schema_free(s);
}

static void
test_read_through_buffers(void **state)
{
	ts_schema  *s = schema_json(SCHEMA);
	char	   *path = write_table(s, 4096, 0, 1);
	pq_file_meta m = {0};
	size_t		len;
	uint8_t    *b = unit_slurp(path, &len);
	page_census first;

	(void) state;
	footer(b, len, &m);
	first = census(b, &m.row_groups[0].columns[0]);
	assert_true(m.row_groups[0].columns[0].total_compressed_size > 8 * first.first_page_bytes);
	/* whole chunks (the default buffer is larger than every chunk) */
	read_back(path, s, 0, false);
	/* every page larger than the buffer */
	read_back(path, s, 1, true);
	/* a buffer of exactly the first page of column 0 */
	read_back(path, s, (size_t) first.first_page_bytes, true);
	/* windows of a few pages, ending inside pages and page headers */
	read_back(path, s, 3001, true);
	read_back(path, s, 7777, true);
	/*
	 * with the next page decompressed ahead while the current one is decoded;
	 * the buffer refilled for the page after it keeps what was decompressed
	 * (it was thrown away, and the page decompressed again in place).  How
	 * many jobs the thread gets to before the reader takes them back is
	 * timing: every one it did is used.
	 */
	ts_bg_set_enabled(true);
	for (int k = 0; k < 2; k++)
	{
		int64_t		done = 0,
					taken = 0,
					read = 0;

		/*
		 * On a loaded machine the reader may take back every job before the
		 * thread starts one: read again (a bounded number of times) until
		 * the thread has done some.  Whatever it did must have been used.
		 */
		for (int attempt = 0; attempt < 50 && (done == 0 || (k == 0 && read == 0)); attempt++)
		{
			int64_t		d0 = ts_bg_jobs_done();
			int64_t		t0 = pq_ahead_pages_taken();
			int64_t		r0 = ts_bg_jobs_read();
			int64_t		d,
						t;

			read_back(path, s, k == 0 ? 1 : 5000, true);
			d = ts_bg_jobs_done() - d0;
			t = pq_ahead_pages_taken() - t0;
			if (t < d)
				fail_msg("window %d: %lld pages decompressed ahead, %lld of them used", k == 0 ? 1 : 5000,
						 (long long) d, (long long) t);
			done += d;
			taken += t;
			read += ts_bg_jobs_read() - r0;
		}
		if (done == 0)
			fail_msg("window %d: no page decompressed ahead in 50 reads", k == 0 ? 1 : 5000);
		/* through one byte every page is larger than half the window: the jobs read them */
		if (k == 0 && read == 0)
			fail_msg("window 1: no page read by the helper thread (%lld decompressed ahead)",
					 (long long) done);
	}
	/* jobs the thread never starts: taken back, their pages read and decompressed in place */
	ts_bg_hold(true);
	read_back(path, s, 1, true);
	/*
	 * Through a window of many small pages every data page is queued, the
	 * first of each chunk when its row group starts (brought in whole: it is
	 * not one the job reads), each other as the page before it is read:
	 * held, every one is taken back.
	 */
	{
		int64_t		pages = 0;
		int64_t		back = ts_bg_jobs_taken_back();

		for (int c = 0; c < m.row_groups[0].ncolumns; c++)
			pages += census(b, &m.row_groups[0].columns[c]).data_pages;
		read_back(path, s, 5000, true);
		back = ts_bg_jobs_taken_back() - back;
		if (back != pages)
			fail_msg("window 5000: %lld of %lld pages queued", (long long) back, (long long) pages);
	}
	ts_bg_hold(false);
	ts_bg_set_enabled(false);
	pq_free_file_meta(&m);
	free(b);
	unlink(path);

	/* stored pages (v1 pages copied out of the buffer) */
	path = write_table(s, 2048, 0, 0);
	read_back(path, s, 1, true);
	read_back(path, s, 2500, true);
	unlink(path);
	ts_schema_free(s);
}

/*
 * A file cut short while it is read page by page with the helper thread
 * reading pages ahead: an error naming the file, never rows made up from
 * bytes that are not there.
 */
static void
test_cut_short_while_read_ahead(void **state)
{
	ts_schema  *s = schema_json(SCHEMA);
	char	   *path = write_table(s, 4096, 0, 1);
	ts_read_column *cols = columns_of(s);
	ts_format_reader *r;
	ts_batch	b;
	ts_err		err;
	size_t		len;
	uint8_t    *whole = unit_slurp(path, &len);
	int			rc,
				seen = 0;

	(void) state;
	ts_bg_set_enabled(true);
	r = open_with(path, cols, s->nfields, 1);
	rc = ts_format_next(r, &b, &err);
	assert_true(rc > 0);
	seen += rc;
	assert_int_equal(truncate(path, (off_t) (len / 3)), 0);
	while ((rc = ts_format_next(r, &b, &err)) > 0)
		seen += rc;
	ts_format_close(r);
	ts_bg_set_enabled(false);
	assert_true(rc < 0);
	assert_true(seen < NROWS);
	assert_non_null(strstr(err.msg, path));
	free(whole);
	free(cols);
	unlink(path);
	ts_schema_free(s);
}

#define NESTED_TABLE "testdata/parquet/pk_table_nested_type.db/pk_table_nested_type/"
#define COMPLEX_TABLE "testdata/parquet/append_complex_data.db/append_complex_data/"

/* A Java-written file reads the same through small buffers as whole; *dict_pages counted. */
static void
java_file_same(const char *schema_rel, const char *data_rel, int *dict_pages)
{
	size_t		len;
	uint8_t    *sb = unit_slurp(unit_shared_path(schema_rel), &len);
	ts_err		err;
	ts_schema  *s = ts_schema_parse((const char *) sb, len, schema_rel, &err);
	const char *path = unit_shared_path(data_rel);
	uint8_t    *b = unit_slurp(path, &len);
	pq_file_meta m = {0};
	ts_read_column *cols;
	static const size_t buffers[] = {1, 37, 300};

	if (s == NULL)
		fail_msg("%s: %s", schema_rel, err.msg);
	footer(b, len, &m);
	for (int g = 0; g < m.nrow_groups; g++)
		for (int c = 0; c < m.row_groups[g].ncolumns; c++)
			*dict_pages += census(b, &m.row_groups[g].columns[c]).dict_pages;
	cols = columns_of(s);
	/* the second three with the helper thread on: pages read and decompressed by it */
	for (int k = 0; k < 6; k++)
	{
		ts_format_reader *whole,
				   *paged;
		int			rows = 0;

		ts_bg_set_enabled(k >= 3);
		whole = open_with(path, cols, s->nfields, 0);
		paged = open_with(path, cols, s->nfields, buffers[k % 3]);

		for (;;)
		{
			ts_batch	wb,
						pb;
			int			wn = ts_format_next(whole, &wb, &err);
			int			pn;

			if (wn < 0)
				fail_msg("%s: %s", data_rel, err.msg);
			pn = ts_format_next(paged, &pb, &err);
			if (pn < 0)
				fail_msg("%s through %zu bytes: %s", data_rel, buffers[k % 3], err.msg);
			assert_int_equal(pn, wn);
			if (wn == 0)
				break;
			for (int row = 0; row < wn; row++, rows++)
				for (int c = 0; c < s->nfields; c++)
					assert_same(ts_batch_at(&wb, row, c), ts_batch_at(&pb, row, c),
								s->fields[c].type, s->fields[c].name, rows);
		}
		assert_int_equal(rows, m.num_rows);
		ts_format_close(whole);
		ts_format_close(paged);
	}
	ts_bg_set_enabled(false);
	free(cols);
	pq_free_file_meta(&m);
	free(b);
	free(sb);
	ts_schema_free(s);
}

static void
test_java_files_through_buffers(void **state)
{
	int			dict_pages = 0;

	(void) state;
	java_file_same(NESTED_TABLE "schema/schema-0",
				   NESTED_TABLE "dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
				   &dict_pages);
	java_file_same(COMPLEX_TABLE "schema/schema-0",
				   COMPLEX_TABLE "f1=10/bucket-0/data-35f2719c-ffae-4697-960e-af95a0b4bd51-1.parquet",
				   &dict_pages);
	assert_true(dict_pages > 0);	/* parquet-mr's dictionary pages went through the buffers */
}

static void
test_size_options(void **state)
{
	ts_file_writer_options o;
	ts_err		err;
	const char *bad[] = {"0", "-1", "1mb", "", "12x"};

	(void) state;
	assert_true(ts_file_writer_options_parse("parquet", NULL, NULL, NULL, &o, &err));
	assert_true(ts_file_writer_parquet_sizes(NULL, NULL, &o, &err));
	assert_int_equal(o.pq_row_group_bytes, 0);	/* Java's defaults, in the writer */
	assert_int_equal(o.pq_page_bytes, 0);
	assert_true(ts_file_writer_parquet_sizes("67108864", "4096", &o, &err));
	assert_int_equal(o.pq_row_group_bytes, 67108864);
	assert_int_equal(o.pq_page_bytes, 4096);
	for (int i = 0; i < 5; i++)
	{
		assert_false(ts_file_writer_parquet_sizes(bad[i], NULL, &o, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "\"parquet.block.size\""));
		assert_false(ts_file_writer_parquet_sizes(NULL, bad[i], &o, &err));
		assert_non_null(strstr(err.msg, "\"parquet.page.size\""));
	}
	/* an int, as Hadoop's getInt reads it */
	assert_false(ts_file_writer_parquet_sizes(NULL, "4294967296", &o, &err));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_as_java_cuts_them),
		cmocka_unit_test(test_read_through_buffers),
		cmocka_unit_test(test_cut_short_while_read_ahead),
		cmocka_unit_test(test_java_files_through_buffers),
		cmocka_unit_test(test_size_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
