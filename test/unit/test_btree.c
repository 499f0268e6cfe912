/*
 * test_btree.c - the btree global index reader (src/format/fileindex/
 * fi_btree.c) on files laid out as Java's BTreeIndexWriter writes them:
 * one written byte by byte here from the layout, and larger ones from
 * src/tools/ts_btree_write.h (many blocks, versions 1 and 2, zstd),
 * checked against the rows computed from the values written; then
 * corrupt, truncated and unsupported files.
 */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "unit.h"
#include "format/fileindex/global_index.h"
#include "scan/predicate.h"
#include "tools/ts_btree_write.h"

static ts_type int_type = {.kind = TS_INT, .nullable = true};
static ts_type bigint_type = {.kind = TS_BIGINT, .nullable = true};
static ts_type string_type = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type double_type = {.kind = TS_DOUBLE, .nullable = true};
static ts_type ts6_type = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 6};

static ts_value
v_int(int64_t i)
{
	ts_value	v = {0};

	v.v.i = i;
	return v;
}

static ts_value
v_str(const char *s)
{
	ts_value	v = {0};

	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = (uint32_t) strlen(s);
	return v;
}

static ts_predicate
leaf(ts_predicate_op op, int n, const ts_value *lits)
{
	ts_predicate p = {0};

	p.op = op;
	p.nliterals = n;
	p.literals = lits;
	return p;
}

/* rows the index allows, as a bitmap; NULL = every row (*ok false on error) */
static roaring_bitmap_t *
look(const uint8_t *file, size_t len, const ts_type *t, const ts_predicate *p, bool *ok,
	 ts_err *err)
{
	bool		all;
	void	   *rows = NULL;

	memset(err, 0, sizeof(*err));
	*ok = ts_global_index_leaf("btree", file, len, t, p, &all, &rows, err);
	if (!*ok || all)
	{
		assert_null(rows);
		return NULL;
	}
	assert_non_null(rows);
	return rows;
}

/* rows as a bit mask (rows < 32) or -1 for every row */
static int64_t
mask(const uint8_t *file, size_t len, const ts_type *t, const ts_predicate *p)
{
	bool		ok;
	ts_err		err;
	roaring_bitmap_t *r = look(file, len, t, p, &ok, &err);
	int64_t		m = 0;

	if (!ok)
		fail_msg("%s", err.msg);
	if (r == NULL)
		return -1;
	for (uint32_t i = 0; i < 40; i++)
		if (roaring_bitmap_contains(r, i))
			m |= INT64_C(1) << i;
	assert_true(roaring_bitmap_get_cardinality(r) == (uint64_t) __builtin_popcountll((unsigned long long) m));
	roaring_bitmap_free(r);
	return m;
}

/* TS_BTREE_SEEDS=dir: keep file as a seed of the fuzz_btree corpus */
static void
seed(const char *name, const uint8_t *file, size_t len)
{
	const char *dir = getenv("TS_BTREE_SEEDS");
	char		path[4096];
	FILE	   *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(file, 1, len, f), len);
	fclose(f);
}

static void
put_crc(uint8_t *file, size_t at, size_t len)
{
	uint32_t	c = (uint32_t) crc32(0L, file + at, (uInt) (len + 1));

	file[at + len + 1] = (uint8_t) c;
	file[at + len + 2] = (uint8_t) (c >> 8);
	file[at + len + 3] = (uint8_t) (c >> 16);
	file[at + len + 4] = (uint8_t) (c >> 24);
}

/*
 * INT keys 5 -> rows {0, 2}, 7 -> {1}: one unaligned data block, an
 * aligned index block, the footer (version 1), byte by byte.
 */
static size_t
hand_file(uint8_t *f)
{
	static const uint8_t bytes[] = {
		/* data block at 0, 30 bytes: key len, key, value len, count, ids */
		0x04, 0x05, 0x00, 0x00, 0x00, 0x03, 0x02, 0x00, 0x02,
		0x04, 0x07, 0x00, 0x00, 0x00, 0x02, 0x01, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00,	/* entry offsets 0, 9 */
		0x02, 0x00, 0x00, 0x00, 0x01,	/* 2 entries, unaligned */
		0x00, 0, 0, 0, 0,		/* trailer: no compression, CRC32 */
		/* index block at 35, 13 bytes: last key 7 -> offset 0, size 30 */
		0x04, 0x07, 0x00, 0x00, 0x00, 0x02, 0x00, 0x1e,
		0x08, 0x00, 0x00, 0x00, 0x00,	/* aligned, entries of 8 bytes */
		0x00, 0, 0, 0, 0,
		/* footer at 53: bloom filter none, index (35, 13), null bitmap none */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		35, 0, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x01, 0x00, 0x00, 0x00,	/* version 1 */
		0x49, 0x54, 0x42, 0x50	/* magic 0x50425449 */
	};

	memcpy(f, bytes, sizeof(bytes));
	put_crc(f, 0, 30);
	put_crc(f, 35, 13);
	return sizeof(bytes);
}

static void
test_hand_built(void **state)
{
	uint8_t		f[128];
	size_t		n = hand_file(f);
	ts_value	l5 = v_int(5),
				l6 = v_int(6),
				l7 = v_int(7),
				l9 = v_int(9),
				in[3] = {v_int(7), v_int(4), v_int(5)};
	ts_predicate p;

	(void) state;
	assert_int_equal(n, 105);
	seed("hand", f, n);
	p = leaf(TS_PRED_EQ, 1, &l5);
	assert_int_equal(mask(f, n, &int_type, &p), 0x5);
	p = leaf(TS_PRED_EQ, 1, &l7);
	assert_int_equal(mask(f, n, &int_type, &p), 0x2);
	p = leaf(TS_PRED_EQ, 1, &l6);
	assert_int_equal(mask(f, n, &int_type, &p), 0);
	p = leaf(TS_PRED_IN, 3, in);
	assert_int_equal(mask(f, n, &int_type, &p), 0x7);
	p = leaf(TS_PRED_LT, 1, &l7);
	assert_int_equal(mask(f, n, &int_type, &p), 0x5);
	p = leaf(TS_PRED_LE, 1, &l7);
	assert_int_equal(mask(f, n, &int_type, &p), 0x7);
	p = leaf(TS_PRED_GT, 1, &l5);
	assert_int_equal(mask(f, n, &int_type, &p), 0x2);
	p = leaf(TS_PRED_GE, 1, &l9);
	assert_int_equal(mask(f, n, &int_type, &p), 0);
	/* NE, IS NULL: not read, every row */
	p = leaf(TS_PRED_NE, 1, &l5);
	assert_int_equal(mask(f, n, &int_type, &p), -1);
	p = leaf(TS_PRED_IS_NULL, 0, NULL);
	assert_int_equal(mask(f, n, &int_type, &p), -1);
	/* a literal of another type is not a key */
	p = leaf(TS_PRED_EQ, 1, &l5);
	p.literal_type = &bigint_type;
	assert_int_equal(mask(f, n, &int_type, &p), -1);
	/* keys of 4 bytes read as BIGINT ones: corrupt */
	{
		bool		ok;
		ts_err		err;

		p = leaf(TS_PRED_EQ, 1, &l5);
		assert_null(look(f, n, &bigint_type, &p, &ok, &err));
		assert_false(ok);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
}

/* value of row r in the generated files: r / 3 - 20 (3 rows per key) */
#define NROWS 300

static void
write_ints(btw_writer *w, int version, bool zstd, size_t block)
{
	btw_init(w, block, version, zstd);
	for (int k = 0; k < NROWS / 3; k++)
	{
		uint8_t		key[4];
		int64_t		rows[3] = {3 * k, 3 * k + 1, 3 * k + 2};

		btw_add(w, key, btw_key_int(4, k - 20, key), rows, 3);
	}
	btw_finish(w);
}

static roaring_bitmap_t *
expect_rows(const ts_predicate *p)
{
	roaring_bitmap_t *r = roaring_bitmap_create();

	for (int row = 0; row < NROWS; row++)
	{
		ts_value	v = v_int(row / 3 - 20);

		if (ts_predicate_leaf_decide(p, &int_type, &v) == 1)
			roaring_bitmap_add(r, (uint32_t) row);
	}
	return r;
}

static void
test_many_blocks(void **state)
{
	static const ts_predicate_op ops[] = {TS_PRED_EQ, TS_PRED_LT, TS_PRED_LE, TS_PRED_GT, TS_PRED_GE};

	(void) state;
	for (int version = 1; version <= 2; version++)
		for (int z = 0; z < 2; z++)
		{
			btw_writer	w;
			int			blocks = 0;

			write_ints(&w, version, z == 1, z ? 512 : 64);
			assert_true(z ? w.nzstd > 2 : w.nzstd == 0);
			/* several data blocks: the index block has one entry each */
			{
				const uint8_t *foot = w.out.p + w.out.len - 52;
				uint32_t	isize = foot[28] | foot[29] << 8;

				blocks = (int) isize;
				assert_true(blocks > (z ? 40 : 200));	/* bytes: many entries */
			}
			{
				char		name[32];

				snprintf(name, sizeof(name), "ints_v%d_z%d", version, z);
				seed(name, w.out.p, w.out.len);
			}
			for (int o = 0; o < 5; o++)
				for (int64_t x = -25; x <= 85; x += 3)
				{
					ts_value	lit = v_int(x);
					ts_predicate p = leaf(ops[o], 1, &lit);
					bool		ok;
					ts_err		err;
					roaring_bitmap_t *got = look(w.out.p, w.out.len, &int_type, &p, &ok, &err),
							   *want = expect_rows(&p);

					if (!ok)
						fail_msg("%s", err.msg);
					assert_non_null(got);
					if (!roaring_bitmap_equals(got, want))
						fail_msg("version %d zstd %d op %d literal %lld: %llu rows, want %llu",
								 version, z, o, (long long) x,
								 (unsigned long long) roaring_bitmap_get_cardinality(got),
								 (unsigned long long) roaring_bitmap_get_cardinality(want));
					roaring_bitmap_free(got);
					roaring_bitmap_free(want);
				}
			/* IN over several blocks, a NULL literal matches nothing */
			{
				ts_value	in[4] = {v_int(79), v_int(-20), v_int(30), v_int(0)};
				ts_predicate p;
				bool		ok;
				ts_err		err;
				roaring_bitmap_t *got;

				in[3].isnull = true;
				p = leaf(TS_PRED_IN, 4, in);
				got = look(w.out.p, w.out.len, &int_type, &p, &ok, &err);
				assert_true(ok);
				assert_int_equal(roaring_bitmap_get_cardinality(got), 9);
				assert_true(roaring_bitmap_contains(got, 0) && roaring_bitmap_contains(got, 299) &&
							roaring_bitmap_contains(got, 150));
				roaring_bitmap_free(got);
			}
			btw_free(&w);
		}
}

static void
test_strings(void **state)
{
	/* ascending as unsigned bytes: "\xc3\xa9" (é) after "z" */
	static const char *keys[] = {"", "Bob", "Bobby", "Lucy", "Tony", "b", "z", "\xc3\xa9t\xc3\xa9"};
	btw_writer	w;
	ts_value	bob = v_str("Bob"),
				e = v_str("\xc3\xa9"),
				z = v_str("z"),
				empty = v_str(""),
				ff = v_str("\xff");
	ts_predicate p;

	(void) state;
	btw_init(&w, 20, 1, false);
	for (int i = 0; i < 8; i++)
	{
		int64_t		row = i;

		btw_add(&w, (const uint8_t *) keys[i], strlen(keys[i]), &row, 1);
	}
	btw_finish(&w);
	seed("strings", w.out.p, w.out.len);
	p = leaf(TS_PRED_EQ, 1, &bob);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 1 << 1);
	p = leaf(TS_PRED_STARTS_WITH, 1, &bob);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), (1 << 1) | (1 << 2));
	p = leaf(TS_PRED_STARTS_WITH, 1, &e);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 1 << 7);
	p = leaf(TS_PRED_STARTS_WITH, 1, &ff);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 0);
	p = leaf(TS_PRED_GT, 1, &z);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 1 << 7);
	p = leaf(TS_PRED_LT, 1, &bob);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 1 << 0);
	p = leaf(TS_PRED_EQ, 1, &empty);
	assert_int_equal(mask(w.out.p, w.out.len, &string_type, &p), 1 << 0);
	/* DOUBLE and CHAR columns: not used */
	p = leaf(TS_PRED_EQ, 1, &bob);
	{
		ts_type		ch = {.kind = TS_CHAR, .nullable = true, .length = 5};

		assert_int_equal(mask(w.out.p, w.out.len, &ch, &p), -1);
	}
	btw_free(&w);
	{
		ts_value	d = {0};

		d.v.d = 1.0;
		p = leaf(TS_PRED_EQ, 1, &d);
		assert_int_equal(mask((const uint8_t *) "", 0, &double_type, &p), -1);
	}
}

static void
test_timestamps(void **state)
{
	btw_writer	w;
	ts_value	lit = {0};
	ts_predicate p;

	(void) state;
	btw_init(&w, 32, 1, false);
	for (int i = 0; i < 10; i++)
	{
		uint8_t		key[16];
		int64_t		row = i;

		/* millis 1000 + i / 2, nanos (i % 2) * 500000 */
		btw_add(&w, key, btw_key_ts(6, 1000 + i / 2, (i % 2) * 500000, key), &row, 1);
	}
	btw_finish(&w);
	seed("timestamps", w.out.p, w.out.len);
	lit.v.ts.millis = 1002;
	lit.v.ts.nanos = 500000;
	p = leaf(TS_PRED_EQ, 1, &lit);
	assert_int_equal(mask(w.out.p, w.out.len, &ts6_type, &p), 1 << 5);
	p = leaf(TS_PRED_GT, 1, &lit);
	assert_int_equal(mask(w.out.p, w.out.len, &ts6_type, &p), 0x3c0);
	lit.v.ts.nanos = 0;
	p = leaf(TS_PRED_LT, 1, &lit);
	assert_int_equal(mask(w.out.p, w.out.len, &ts6_type, &p), 0xf);
	/* TIMESTAMP(9): PostgreSQL compares microseconds, not used */
	{
		ts_type		ts9 = ts6_type;

		ts9.precision = 9;
		assert_int_equal(mask(w.out.p, w.out.len, &ts9, &p), -1);
	}
	btw_free(&w);
}

/* version 2 with a Roaring posting: rows 0..99 and 1000 under key 1 */
static void
test_roaring_posting(void **state)
{
	roaring_bitmap_t *b = roaring_bitmap_from_range(0, 100, 1);
	btw_buf		v = {0};
	btw_writer	w;
	uint8_t		key[4],
				tag = 2;
	ts_value	one = v_int(1);
	ts_predicate p = leaf(TS_PRED_EQ, 1, &one);
	bool		ok;
	ts_err		err;
	roaring_bitmap_t *got;

	(void) state;
	roaring_bitmap_add(b, 1000);
	btw_put(&v, &tag, 1);
	btw_le64(&v, 1);
	btw_le32(&v, 0);
	{
		size_t		n = roaring_bitmap_portable_size_in_bytes(b);
		uint8_t    *s = malloc(n);

		roaring_bitmap_portable_serialize(b, (char *) s);
		btw_put(&v, s, n);
		free(s);
	}
	btw_init(&w, 4096, 2, false);
	btw_key_int(4, 1, key);
	btw_block_add(&w.data, key, 4, v.p, v.len);
	w.last_key = malloc(4);
	memcpy(w.last_key, key, 4);
	w.last_klen = 4;
	btw_finish(&w);
	seed("roaring", w.out.p, w.out.len);
	got = look(w.out.p, w.out.len, &int_type, &p, &ok, &err);
	assert_true(ok);
	assert_true(roaring_bitmap_equals(got, b));
	roaring_bitmap_free(got);
	/* a high key of 1: row ids beyond 32 bits, the index is not used */
	{
		const uint8_t *foot = w.out.p + w.out.len - 52;
		size_t		ioff = foot[20] | foot[21] << 8;
		size_t		at = 1 + 4 + (v.len >= 128 ? 2 : 1) + 1 + 8;

		assert_int_equal(w.out.p[at - 9], 2);	/* the Roaring tag */
		w.out.p[at] = 1;
		put_crc(w.out.p, 0, ioff - 5);	/* the data block ends where the index starts */
	}
	assert_null(look(w.out.p, w.out.len, &int_type, &p, &ok, &err));
	assert_true(ok);
	roaring_bitmap_free(b);
	free(v.p);
	btw_free(&w);
}

/* Every truncation and every bit flip: an error or an answer, never a crash or a hang. */
static void
test_corrupt(void **state)
{
	btw_writer	w;
	ts_value	lit = v_int(10);
	ts_predicate ps[3];
	int			errors = 0;

	(void) state;
	write_ints(&w, 1, false, 64);
	ps[0] = leaf(TS_PRED_EQ, 1, &lit);
	ps[1] = leaf(TS_PRED_GE, 1, &lit);
	ps[2] = leaf(TS_PRED_LT, 1, &lit);
	for (size_t n = 0; n < w.out.len; n++)
	{
		bool		ok;
		ts_err		err;
		roaring_bitmap_t *r = look(w.out.p, n, &int_type, &ps[n % 3], &ok, &err);

		if (r)
			roaring_bitmap_free(r);
		errors += !ok;
	}
	assert_true(errors >= (int) w.out.len - 1);
	for (size_t i = 0; i < w.out.len; i += 3)
	{
		uint8_t    *c = malloc(w.out.len);
		bool		ok;
		ts_err		err;
		roaring_bitmap_t *r;

		memcpy(c, w.out.p, w.out.len);
		c[i] ^= (uint8_t) (1 << (i % 8));
		r = look(c, w.out.len, &int_type, &ps[i % 3], &ok, &err);
		if (r)
			roaring_bitmap_free(r);
		if (!ok)
			assert_true(err.code == TS_ERR_CORRUPT || err.code == TS_ERR_NOMEM);
		free(c);
	}
	/* bad magic: an error; a later version, an LZ4 block: not read */
	{
		uint8_t    *c = malloc(w.out.len);
		bool		ok;
		ts_err		err;

		memcpy(c, w.out.p, w.out.len);
		c[w.out.len - 1] ^= 1;
		assert_null(look(c, w.out.len, &int_type, &ps[0], &ok, &err));
		assert_false(ok);
		assert_non_null(strstr(err.msg, "magic"));
		memcpy(c, w.out.p, w.out.len);
		c[w.out.len - 8] = 3;
		assert_null(look(c, w.out.len, &int_type, &ps[0], &ok, &err));
		assert_true(ok);
		/* the earlier 48-byte footer (magic 198732882): not read */
		c[w.out.len - 4] = 0x52;
		c[w.out.len - 3] = 0x6c;
		c[w.out.len - 2] = 0xd8;
		c[w.out.len - 1] = 0x0b;
		assert_null(look(c, w.out.len, &int_type, &ps[0], &ok, &err));
		assert_true(ok);
		free(c);
	}
	btw_free(&w);
	{
		uint8_t		f[128];
		size_t		n = hand_file(f);
		bool		ok;
		ts_err		err;

		f[35 + 13] = 2;			/* the index block "LZ4" */
		put_crc(f, 35, 13);
		assert_null(look(f, n, &int_type, &ps[0], &ok, &err));
		assert_true(ok);
		f[35 + 13] = 9;			/* no such codec: corrupt */
		put_crc(f, 35, 13);
		assert_null(look(f, n, &int_type, &ps[0], &ok, &err));
		assert_false(ok);
		n = hand_file(f);
		f[6] = 0;				/* a row-id count of 0 */
		put_crc(f, 0, 30);
		lit = v_int(5);
		ps[0] = leaf(TS_PRED_EQ, 1, &lit);
		assert_null(look(f, n, &int_type, &ps[0], &ok, &err));
		assert_false(ok);
		n = hand_file(f);
		f[1] = 8;				/* keys out of order: 8 then 7 */
		put_crc(f, 0, 30);
		ps[0] = leaf(TS_PRED_GE, 1, &lit);
		assert_null(look(f, n, &int_type, &ps[0], &ok, &err));
		assert_false(ok);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_roaring_posting),
		cmocka_unit_test(test_corrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
