/*
 * test_pk_index_source.c - _GLOBAL_INDEX._SOURCE_META of Paimon 2.0
 * primary-key index payloads (src/meta/pk_index_source.c): both layouts
 * writers have used (with the data level: pypaimon / paimon-cpp /
 * paimon-rust; without: Java's first, version 1 and 2 with a fingerprint),
 * built here byte by byte as Java's DataOutput writes them, and every way
 * the bytes can fail to fit (each must be rejected, never half-read).
 */
#include "unit.h"

#include "meta/pk_index_source.h"

typedef struct bb
{
	uint8_t		b[512];
	size_t		n;
} bb;

static void
put32(bb *x, int32_t v)
{
	x->b[x->n++] = (uint8_t) ((uint32_t) v >> 24);
	x->b[x->n++] = (uint8_t) ((uint32_t) v >> 16);
	x->b[x->n++] = (uint8_t) ((uint32_t) v >> 8);
	x->b[x->n++] = (uint8_t) v;
}

static void
put64(bb *x, int64_t v)
{
	put32(x, (int32_t) ((uint64_t) v >> 32));
	put32(x, (int32_t) (uint32_t) v);
}

static void
put_utf(bb *x, const char *s)
{
	size_t		l = strlen(s);

	x->b[x->n++] = (uint8_t) (l >> 8);
	x->b[x->n++] = (uint8_t) l;
	memcpy(x->b + x->n, s, l);
	x->n += l;
}

static bb
level_layout(int32_t version, int32_t level, int count, const char *const *names,
			 const int64_t *rows)
{
	bb			x = {{0}, 0};

	put32(&x, version);
	put32(&x, level);
	put32(&x, count);
	for (int i = 0; i < count; i++)
	{
		put_utf(&x, names[i]);
		put64(&x, rows[i]);
	}
	return x;
}

static const char *const names2[] = {"data-a.parquet", "data-b.parquet"};
static const int64_t rows2[] = {3, 5};

static void
test_level_layout(void **state)
{
	bb			x = level_layout(1, 4, 2, names2, rows2);
	ts_pk_source_meta m;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_pk_source_meta_parse(x.b, x.n, &m, &err));
	assert_int_equal(m.level, 4);
	assert_int_equal(m.nfiles, 2);
	assert_string_equal(m.files[0].name, "data-a.parquet");
	assert_int_equal(m.files[0].rows, 3);
	assert_string_equal(m.files[1].name, "data-b.parquet");
	assert_int_equal(m.files[1].rows, 5);
	assert_int_equal(m.total_rows, 8);
	ts_pk_source_meta_free(&m);
}

static void
test_plain_layouts(void **state)
{
	bb			x = {{0}, 0};
	ts_pk_source_meta m;
	ts_err		err = {0};

	(void) state;
	/* Java's first layout, version 1: version, count, files */
	put32(&x, 1);
	put32(&x, 1);
	put_utf(&x, "data-c.orc");
	put64(&x, 7);
	assert_true(ts_pk_source_meta_parse(x.b, x.n, &m, &err));
	assert_int_equal(m.level, 0);
	assert_int_equal(m.nfiles, 1);
	assert_string_equal(m.files[0].name, "data-c.orc");
	assert_int_equal(m.total_rows, 7);
	ts_pk_source_meta_free(&m);
	/* version 2: a definition fingerprint follows */
	x.n = 0;
	put32(&x, 2);
	put32(&x, 2);
	put_utf(&x, "f0");
	put64(&x, 1);
	put_utf(&x, "f1");
	put64(&x, 2);
	put_utf(&x, "btree:{}");
	assert_true(ts_pk_source_meta_parse(x.b, x.n, &m, &err));
	assert_int_equal(m.nfiles, 2);
	assert_int_equal(m.total_rows, 3);
	ts_pk_source_meta_free(&m);
}

static void
expect_rejected(const bb *x, const char *what)
{
	ts_pk_source_meta m;
	ts_err		err = {0};

	print_message("rejecting: %s\n", what);
	assert_false(ts_pk_source_meta_parse(x->b, x->n, &m, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_int_equal(m.nfiles, 0);
	assert_null(m.files);
}

static void
test_rejected(void **state)
{
	bb			x;
	static const int64_t neg[] = {3, -1};

	(void) state;
	x = level_layout(1, 4, 2, names2, rows2);
	x.b[x.n++] = 0;
	expect_rejected(&x, "a trailing byte");
	x = level_layout(1, 4, 2, names2, rows2);
	for (size_t cut = 0; cut < x.n; cut++)
	{
		bb			y = x;

		y.n = cut;
		expect_rejected(&y, "truncated");
	}
	x = level_layout(3, 4, 2, names2, rows2);
	expect_rejected(&x, "version 3");
	x = level_layout(1, 0, 2, names2, rows2);
	expect_rejected(&x, "data level 0");
	x = level_layout(1, 4, 0, names2, rows2);
	expect_rejected(&x, "no source file");
	x = level_layout(1, 4, 2, names2, neg);
	expect_rejected(&x, "a negative row count");
	x = level_layout(1, 4, 2, names2, rows2);
	x.b[11] = 0x7f;				/* count far past the bytes */
	expect_rejected(&x, "a count past the bytes");
	expect_rejected(&(bb) {{0}, 0}, "no bytes");
	{
		ts_pk_source_meta m;
		ts_err		err = {0};

		assert_false(ts_pk_source_meta_parse(NULL, 0, &m, &err));
	}
}

static void
test_equal(void **state)
{
	static const char *const other[] = {"data-b.parquet", "data-a.parquet"};
	static const int64_t rows_other[] = {3, 6};
	bb			a = level_layout(1, 4, 2, names2, rows2),
				b = level_layout(1, 4, 2, names2, rows2),
				c = level_layout(1, 4, 2, other, rows2),
				d = level_layout(1, 4, 2, names2, rows_other),
				e = level_layout(1, 5, 2, names2, rows2);
	ts_pk_source_meta ma,
				mb,
				mc,
				md,
				me;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_pk_source_meta_parse(a.b, a.n, &ma, &err));
	assert_true(ts_pk_source_meta_parse(b.b, b.n, &mb, &err));
	assert_true(ts_pk_source_meta_parse(c.b, c.n, &mc, &err));
	assert_true(ts_pk_source_meta_parse(d.b, d.n, &md, &err));
	assert_true(ts_pk_source_meta_parse(e.b, e.n, &me, &err));
	assert_true(ts_pk_source_meta_equal(&ma, &mb));
	assert_false(ts_pk_source_meta_equal(&ma, &mc));	/* order */
	assert_false(ts_pk_source_meta_equal(&ma, &md));	/* rows */
	assert_false(ts_pk_source_meta_equal(&ma, &me));	/* level */
	ts_pk_source_meta_free(&ma);
	ts_pk_source_meta_free(&mb);
	ts_pk_source_meta_free(&mc);
	ts_pk_source_meta_free(&md);
	ts_pk_source_meta_free(&me);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_layout),
		cmocka_unit_test(test_plain_layouts),
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
