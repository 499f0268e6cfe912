/*
 * test_ranges_like.c - the bytes an open reader names in another file of
 * the same layout (ts_format_ranges_like), which a scan fetches before it
 * opens that file.
 *
 * Parquet: given only the other file's tail, the ranges are exactly that
 * file's chunks of the reader's leaves (a nested column's leaf included),
 * row group by row group in file order, the first always and the next
 * while they fit the budget.  ORC: the other file's first 16 stripe
 * footers (its window's first request), or its first stripes whole within
 * the budget when every column is read.  Nothing, in both, for a file of
 * another schema, a tail that does not hold the footer or is not of the
 * format, or a reader whose filters may leave row groups / stripes out
 * (statistics, row selection, a byte range).
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "format/orc/orc_decode.h"
#include "format/orc/orc_writer.h"
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
	buf_to_temp_file(path, &out);
	return path;
}

static ts_format_reader *
open_reader_of(ts_file_format fmt, const char *path, const ts_read_column *cols, int n,
			   const ts_reader_options *given)
{
	ts_reader_options opts;
	ts_err		err;
	ts_format_reader *r;

	if (given)
		opts = *given;
	else
		memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	r = ts_format_open(fmt, path, cols, n, &opts, &err);
	if (r == NULL)
		fail_msg("open %s: %s", path, err.msg);
	return r;
}

static ts_format_reader *
open_reader(const char *path, const ts_read_column *cols, int n, const ts_reader_options *given)
{
	return open_reader_of(TS_FORMAT_PARQUET, path, cols, n, given);
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
	uint8_t    *bb = unit_slurp(b, &blen);
	uint8_t    *cb = unit_slurp(c, &clen);
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
	all = ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64);
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
	n = ts_format_ranges_like(r, bb + blen - (64 << 10), 64 << 10, (int64_t) blen, NULL,
							  (int64_t) 1 << 40, out, 64);
	assert_int_equal(n, all);
	/* the budget: the first row group always, the next while they fit */
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, 1, out, 64), 2);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, first, out, 64), 2);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, two, out, 64), 4);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, two - 1, out, 64), 2);
	/* at most max ranges, whole row groups */
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 5), 4);

	/* nothing: another schema, a tail without the whole footer, not Parquet */
	assert_int_equal(ts_format_ranges_like(r, cb, clen, (int64_t) clen, NULL, (int64_t) 1 << 40, out, 64), 0);
	assert_int_equal(ts_format_ranges_like(r, bb + blen - flen, flen, (int64_t) blen, NULL,
										   (int64_t) 1 << 40, out, 64), 0);
	{
		uint8_t    *bad = malloc(blen);

		memcpy(bad, bb, blen);
		memcpy(bad + blen - 4, "PAR2", 4);
		assert_int_equal(ts_format_ranges_like(r, bad, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		memcpy(bad + blen - 4, "PAR1", 4);
		memset(bad + blen - 8 - flen, 0xff, 16);	/* a footer that does not parse */
		assert_int_equal(ts_format_ranges_like(r, bad, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		free(bad);
	}
	ts_format_close(r);

	/* a reader whose filters may leave row groups out names nothing */
	{
		ts_reader_options o;

		memset(&o, 0, sizeof(o));
		o.stats_filter = keep_none;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.rows_filter = rows_all;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.range_start = 0;
		o.range_end = 4;
		r = open_reader(a, cols, 2, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
	}
	/* the first column alone: its chunk only */
	r = open_reader(a, cols, 1, NULL);
	n = ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64);
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


static const char *ORC_SCHEMA =
"{\"version\":3,\"id\":0,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
"{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
"{\"id\":2,\"name\":\"d\",\"type\":\"DOUBLE\"}"
"],\"highestFieldId\":2,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

static const char *ORC_WIDER =
"{\"version\":3,\"id\":1,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
"{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
"{\"id\":2,\"name\":\"d\",\"type\":\"DOUBLE\"},"
"{\"id\":3,\"name\":\"x\",\"type\":\"INT\"}"
"],\"highestFieldId\":3,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

/* nrows rows of seed's values to a temporary ORC file in stripes of 1,000 rows; its path */
static char *
write_orc(const ts_schema *s, int nrows, int seed)
{
	char	   *path = strdup("/tmp/ts-unit-orclike.XXXXXX");
	ts_err		err;
	ts_buf		out;
	ts_orc_writer *w;
	char		str[32];

	ts_buf_init(&out);
	w = ts_orc_writer_create(s->fields, s->nfields, TS_ORC_CODEC_ZSTD, 1, 0, 1000, buf_sink, &out, &err);
	if (w == NULL)
		fail_msg("create: %s", err.msg);
	for (int i = 0; i < nrows; i++)
	{
		ts_value	row[4];
		int			n = snprintf(str, sizeof(str), "o%d-%d", seed, i * 3 + seed);

		memset(row, 0, sizeof(row));
		row[0].v.i = (int64_t) i * 17 + seed;
		row[1].isnull = (i + seed) % 4 == 0;
		row[1].v.s.p = (const uint8_t *) str;
		row[1].v.s.len = (uint32_t) n;
		row[2].v.d = i * 0.5 + seed;
		row[3].v.i = i;
		if (!ts_orc_writer_add(w, row, &err))
			fail_msg("add %d: %s", i, err.msg);
	}
	if (!ts_orc_writer_finish(w, &err))
		fail_msg("finish: %s", err.msg);
	ts_orc_writer_free(w);
	buf_to_temp_file(path, &out);
	return path;
}

/* A file's bytes, of which the footers of its first nstripes stripes are held. */
typedef struct held_file
{
	const uint8_t *bytes;
	int			nstripes;
} held_file;

static orc_tail held_tail;		/* the file's, for held_first */

static const uint8_t *
held_first(void *arg, int64_t offset, size_t len)
{
	const held_file *h = arg;

	for (int i = 0; i < h->nstripes && i < held_tail.nstripes; i++)
	{
		const orc_stripe_info *si = &held_tail.stripes[i];

		if ((uint64_t) offset == si->offset + si->index_length + si->data_length &&
			len == si->footer_length)
			return h->bytes + offset;
	}
	return NULL;
}

static void
test_orc_ranges_like(void **state)
{
	ts_schema  *s = schema_json(ORC_SCHEMA);
	ts_schema  *wide = schema_json(ORC_WIDER);
	char	   *a = write_orc(s, 5000, 1);
	char	   *b = write_orc(s, 20500, 2);
	char	   *c = write_orc(wide, 5000, 3);
	ts_read_column cols[3] = {{1, "s", s->fields[1].type}, {0, "id", s->fields[0].type},
	{2, "d", s->fields[2].type}};
	ts_format_reader *r = open_reader_of(TS_FORMAT_ORC, a, cols, 1, NULL);
	size_t		blen,
				clen;
	uint8_t    *bb = unit_slurp(b, &blen);
	uint8_t    *cb = unit_slurp(c, &clen);
	orc_tail	t;
	uint64_t	need;
	ts_range	out[64];
	int			n;
	int64_t		first,
				two;

	(void) state;
	memset(&t, 0, sizeof(t));
	assert_true(orc_tail_from_bytes(bb, blen, blen, &t, &need, NULL));
	assert_int_equal(t.nstripes, 21);
	held_tail = t;

	/* one column: the first 16 stripes' footers, in order, from the tail alone */
	n = ts_format_ranges_like(r, bb + blen - (64 << 10), 64 << 10, (int64_t) blen, NULL,
							  (int64_t) 1 << 40, out, 64);
	assert_int_equal(n, 16);
	for (int i = 0; i < n; i++)
	{
		const orc_stripe_info *si = &t.stripes[i];

		assert_int_equal(out[i].offset, (int64_t) (si->offset + si->index_length + si->data_length));
		assert_int_equal((int64_t) out[i].len, (int64_t) si->footer_length);
	}
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 5), 5);	/* at most max */
	/* within the budget, the first always */
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, 1, out, 64), 1);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL,
										   (int64_t) (t.stripes[0].footer_length + t.stripes[1].footer_length),
										   out, 64), 2);
	/* stripes whose footers are held: the streams of s read instead of the footer */
	{
		held_file	h = {bb, 3};
		ts_held_bytes held = {held_first, &h};
		int			k = 0;

		n = ts_format_ranges_like(r, bb, blen, (int64_t) blen, &held, (int64_t) 1 << 40, out, 64);
		for (int i = 0; i < 16; i++)
		{
			const orc_stripe_info *si = &t.stripes[i];
			uint64_t	footer_at = si->offset + si->index_length + si->data_length;

			if (i < 3)
			{
				/* the stripe's streams of column 2 (s), as its footer lists them */
				uint8_t    *raw = malloc(si->footer_length);
				orc_stripe_footer sf;
				int			m = 0;

				memset(&sf, 0, sizeof(sf));
				memcpy(raw, bb + footer_at, si->footer_length);
				assert_true(orc_stripe_footer_from(&t, i, &raw, &sf, NULL));
				for (int j = 0; j < sf.nstreams; j++)
				{
					const orc_stream_info *st = &sf.streams[j];

					/* the kinds a reader decodes (no row index, bloom filter, dictionary count) */
					if (st->column != 2 || st->length == 0 || st->kind < 0 ||
						st->kind >= ORC_NSTREAMS || st->kind == ORC_STREAM_DICTIONARY_COUNT)
						continue;
					assert_true(k < n);
					assert_int_equal(out[k].offset, (int64_t) st->offset);
					assert_int_equal((int64_t) out[k].len, (int64_t) st->length);
					assert_true(st->offset >= si->offset && st->offset + st->length <= footer_at);
					k++;
					m++;
				}
				assert_true(m >= 2);	/* PRESENT and DATA at least (a column with nulls) */
				orc_stripe_footer_free(&sf);
				free(raw);
			}
			else
			{
				assert_true(k < n);
				assert_int_equal(out[k].offset, (int64_t) footer_at);
				assert_int_equal((int64_t) out[k].len, (int64_t) si->footer_length);
				k++;
			}
		}
		assert_int_equal(k, n);
		/* a footer that does not parse: nothing from it on */
		{
			uint8_t    *bad = malloc(blen);
			held_file	hb = {bad, 3};
			ts_held_bytes heldb = {held_first, &hb};
			const orc_stripe_info *s1 = &t.stripes[1];

			memcpy(bad, bb, blen);
			memset(bad + s1->offset + s1->index_length + s1->data_length, 0xff, s1->footer_length);
			n = ts_format_ranges_like(r, bb, blen, (int64_t) blen, &heldb, (int64_t) 1 << 40, out, 64);
			for (int i = 0; i < n; i++)
				assert_true((uint64_t) out[i].offset < s1->offset);	/* stripe 0's streams only */
			assert_true(n >= 1);
			free(bad);
		}
	}
	/* nothing: another schema, a tail without the footer, not ORC */
	assert_int_equal(ts_format_ranges_like(r, cb, clen, (int64_t) clen, NULL, (int64_t) 1 << 40, out, 64), 0);
	assert_int_equal(ts_format_ranges_like(r, bb + blen - 8, 8, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
	{
		uint8_t    *bad = malloc(blen);

		memcpy(bad, bb, blen);
		bad[blen - 1] = 0;		/* no postscript */
		assert_int_equal(ts_format_ranges_like(r, bad, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		free(bad);
	}
	ts_format_close(r);

	/* every column: whole stripes within the budget, the first always */
	r = open_reader_of(TS_FORMAT_ORC, a, cols, 3, NULL);
	first = (int64_t) (t.stripes[0].index_length + t.stripes[0].data_length + t.stripes[0].footer_length);
	two = first + (int64_t) (t.stripes[1].index_length + t.stripes[1].data_length +
							 t.stripes[1].footer_length);
	n = ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, two, out, 64);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].offset, (int64_t) t.stripes[0].offset);
	assert_int_equal((int64_t) out[0].len, first);
	assert_int_equal(out[1].offset, (int64_t) t.stripes[1].offset);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, two - 1, out, 64), 1);
	assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, 1, out, 64), 1);
	ts_format_close(r);

	/* a filter that may leave stripes out, a byte range: nothing */
	{
		ts_reader_options o;

		memset(&o, 0, sizeof(o));
		o.stats_filter = keep_none;
		r = open_reader_of(TS_FORMAT_ORC, a, cols, 1, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.rows_filter = rows_all;
		r = open_reader_of(TS_FORMAT_ORC, a, cols, 1, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
		memset(&o, 0, sizeof(o));
		o.range_start = 0;
		o.range_end = 4;
		r = open_reader_of(TS_FORMAT_ORC, a, cols, 1, &o);
		assert_int_equal(ts_format_ranges_like(r, bb, blen, (int64_t) blen, NULL, (int64_t) 1 << 40, out, 64), 0);
		ts_format_close(r);
	}
	orc_tail_free(&t);
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
		cmocka_unit_test(test_orc_ranges_like),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
