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
#include "base/ts_roaring_check.h"
#include "expr/predicate.h"
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
	/* NE, IS NOT NULL: the row range is not known here, every row */
	p = leaf(TS_PRED_NE, 1, &l5);
	assert_int_equal(mask(f, n, &int_type, &p), -1);
	p = leaf(TS_PRED_IS_NOT_NULL, 0, NULL);
	assert_int_equal(mask(f, n, &int_type, &p), -1);
	/* IS NULL: no null bitmap, no NULL row */
	p = leaf(TS_PRED_IS_NULL, 0, NULL);
	assert_int_equal(mask(f, n, &int_type, &p), 0);
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

/* ---- the null bitmap ------------------------------------------------------- */

/* rows of leaf p on a file whose row range has nrows rows, as a mask (-1 = every row) */
static int64_t
mask_n(const uint8_t *file, size_t len, int64_t nrows, const ts_type *t, const ts_predicate *p)
{
	bool		all;
	void	   *rows = NULL;
	ts_err		err;
	int64_t		m = 0;

	memset(&err, 0, sizeof(err));
	if (!ts_global_index_leaf_n("btree", file, len, nrows, t, p, &all, &rows, &err))
		fail_msg("%s", err.msg);
	if (all)
	{
		assert_null(rows);
		return -1;
	}
	for (uint32_t i = 0; i < 48; i++)
		if (roaring_bitmap_contains(rows, i))
			m |= INT64_C(1) << i;
	assert_true(roaring_bitmap_get_cardinality(rows) == (uint64_t) __builtin_popcountll((unsigned long long) m));
	ts_global_index_rows_free(rows);
	return m;
}

static void
expect_bytes(const btw_buf *b, const uint8_t *want, size_t n)
{
	if (b->len != n)
		fail_msg("%zu bytes, want %zu", b->len, n);
	for (size_t i = 0; i < n; i++)
		if (b->p[i] != want[i])
			fail_msg("byte %zu: %02x, want %02x", i, b->p[i], want[i]);
}

/* the portable 32-bit part of a 64-bit map with one high key 0, read by libroaring */
static roaring_bitmap_t *
read_back(const btw_buf *b)
{
	size_t		used = 0;
	roaring_bitmap_t *r;

	assert_true(b->len > 12);
	assert_int_equal(b->p[0], 1);
	assert_int_equal(b->p[8] | b->p[9] | b->p[10] | b->p[11], 0);
	r = ts_roaring_read(b->p + 12, b->len - 12, &used);
	assert_non_null(r);
	assert_int_equal(used, b->len - 12);
	return r;
}

/*
 * Roaring64NavigableMap bytes as Java writes them after runOptimize:
 * Java keeps an array where a run is no smaller (2 * card > 2 + 4 * runs
 * converts; CRoaring's own threshold differs at card = 2 * runs + 1).
 */
static void
test_null_bitmap_bytes(void **state)
{
	static const uint8_t head[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	(void) state;
	{
		/* {0, 2, 4}: an array (3 runs) */
		int64_t		ids[] = {0, 2, 4};
		uint8_t		want[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x3a, 0x30, 0, 0, 1, 0, 0, 0,	/* cookie 12346, 1 container */
			0, 0, 2, 0,			/* key 0, 3 values */
		16, 0, 0, 0, 0, 0, 2, 0, 4, 0};

		btw_buf		b = {0};

		btw_roaring64(&b, ids, 3);
		expect_bytes(&b, want, sizeof(want));
		free(b.p);
	}
	{
		/* {5, 6, 7}: one run, but no smaller than the array (6 > 6 is false): an array */
		int64_t		ids[] = {5, 6, 7};
		uint8_t		want[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0,
		5, 0, 6, 0, 7, 0};
		btw_buf		b = {0};

		btw_roaring64(&b, ids, 3);
		expect_bytes(&b, want, sizeof(want));
		free(b.p);
	}
	{
		/* {5, 6, 7, 8}: a run (8 > 6); cookie 12347, run flags, no offsets below 4 containers */
		int64_t		ids[] = {5, 6, 7, 8};
		uint8_t		want[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x3b, 0x30, 0, 0, 0x01, 0, 0, 3, 0,
		1, 0, 5, 0, 3, 0};
		btw_buf		b = {0};

		btw_roaring64(&b, ids, 4);
		expect_bytes(&b, want, sizeof(want));
		free(b.p);
	}
	{
		/* 4 containers of runs {k << 16 .. +3}: offsets from 4 + 8 * 4 + 1 = 37, 6 bytes each */
		int64_t		ids[16];
		btw_buf		b = {0};
		roaring_bitmap_t *r;

		for (int i = 0; i < 16; i++)
			ids[i] = ((int64_t) (i / 4) << 16) + i % 4;
		btw_roaring64(&b, ids, 16);
		assert_int_equal(b.len, 12 + 37 + 24);
		assert_int_equal(b.p[12 + 2] | b.p[12 + 3] << 8, 3);	/* 4 containers - 1 */
		assert_int_equal(b.p[12 + 4], 0x0f);
		for (int c = 0; c < 4; c++)
			assert_int_equal(b.p[12 + 21 + 4 * c], 37 + 6 * c);
		r = read_back(&b);
		assert_int_equal(roaring_bitmap_get_cardinality(r), 16);
		for (int i = 0; i < 16; i++)
			assert_true(roaring_bitmap_contains(r, (uint32_t) ids[i]));
		roaring_bitmap_free(r);
		free(b.p);
	}
	{
		/* every other of 10000 values: a bitmap container (5000 > 4096, 5000 runs); then
		 * 70000 .. 79999 (a run) and a value of another high key */
		int64_t    *ids = malloc(sizeof(int64_t) * 15002);
		int64_t		n = 0;
		btw_buf		b = {0};
		roaring_bitmap_t *r;

		for (int64_t i = 0; i < 10000; i += 2)
			ids[n++] = i;
		for (int64_t i = 70000; i < 80000; i++)
			ids[n++] = i;
		btw_roaring64(&b, ids, n);
		r = read_back(&b);
		assert_int_equal(roaring_bitmap_get_cardinality(r), (uint64_t) n);
		for (int64_t i = 0; i < n; i++)
			assert_true(roaring_bitmap_contains(r, (uint32_t) ids[i]));
		assert_false(roaring_bitmap_contains(r, 1));
		roaring_bitmap_free(r);
		free(b.p);
		/* a second high key */
		ids[n++] = (INT64_C(1) << 32) + 7;
		b = (btw_buf) {0};
		btw_roaring64(&b, ids, n);
		assert_int_equal(b.p[0], 2);
		free(b.p);
		free(ids);
	}
	(void) head;
}

/* INT keys: row r (of 40) NULL when r % 5 == 0 or r >= 36, else r / 4 (version, zstd, block) */
static void
write_nulls(btw_writer *w, int version, bool zstd, size_t block)
{
	btw_init(w, block, version, zstd);
	for (int k = 0; k < 9; k++)
	{
		int64_t		rows[4];
		int			n = 0;
		uint8_t		key[4];

		for (int r = 4 * k; r < 4 * k + 4; r++)
			if (r % 5 != 0)
				rows[n++] = r;
		btw_add(w, key, btw_key_int(4, k, key), rows, n);
	}
	for (int r = 39; r >= 0; r--)
		if (r % 5 == 0 || r >= 36)
			btw_null(w, r);
	btw_finish(w);
}

static int64_t
null_mask(void)
{
	int64_t		m = 0;

	for (int r = 0; r < 40; r++)
		if (r % 5 == 0 || r >= 36)
			m |= INT64_C(1) << r;
	return m;
}

/* rows whose key is k */
static int64_t
key_mask(int k)
{
	int64_t		m = 0;

	for (int r = 4 * k; r < 4 * k + 4 && k >= 0 && k < 9; r++)
		if (r % 5 != 0)
			m |= INT64_C(1) << r;
	return m;
}

static void
test_nulls(void **state)
{
	const int64_t all40 = (INT64_C(1) << 40) - 1,
				nulls = null_mask();

	(void) state;
	for (int version = 1; version <= 2; version++)
		for (int z = 0; z < 2; z++)
		{
			btw_writer	w;
			ts_value	l3 = v_int(3),
						in[3] = {v_int(0), v_int(8), v_int(42)},
						in_null[2] = {v_int(1), v_int(0)};
			ts_predicate p;
			btw_buf		meta = {0};
			char		name[32];

			write_nulls(&w, version, z == 1, z ? 64 : 24);
			snprintf(name, sizeof(name), "nulls_v%d_z%d", version, z);
			seed(name, w.out.p, w.out.len);
			/* the footer's handle: after the data blocks, its size without the CRC */
			{
				const uint8_t *foot = w.out.p + w.out.len - 52;
				uint32_t	off = foot[32] | foot[33] << 8,
							size = foot[40] | foot[41] << 8;
				uint32_t	ioff = foot[20] | foot[21] << 8;
				uint32_t	crc = (uint32_t) crc32(0L, w.out.p + off, size);

				assert_int_equal(off + size + 4, ioff);
				assert_int_equal(w.out.p[off + size] | w.out.p[off + size + 1] << 8 |
								 w.out.p[off + size + 2] << 16 | (uint32_t) w.out.p[off + size + 3] << 24,
								 crc);
			}
			btw_meta(&w, &meta);
			assert_int_equal(meta.p[meta.len - 1], 1);	/* has nulls */
			free(meta.p);

			p = leaf(TS_PRED_IS_NULL, 0, NULL);
			assert_int_equal(mask(w.out.p, w.out.len, &int_type, &p), nulls);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p), nulls);
			/* the null bitmap alone: also for a key type not read (DOUBLE) */
			assert_int_equal(mask(w.out.p, w.out.len, &double_type, &p), nulls);
			p = leaf(TS_PRED_IS_NOT_NULL, 0, NULL);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &double_type, &p), all40 & ~nulls);
			p = leaf(TS_PRED_IS_NULL, 0, NULL);
			p = leaf(TS_PRED_IS_NOT_NULL, 0, NULL);
			assert_int_equal(mask(w.out.p, w.out.len, &int_type, &p), -1);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p), all40 & ~nulls);
			/* a longer range: its rows past the file's are not NULL ones */
			assert_int_equal(mask_n(w.out.p, w.out.len, 41, &int_type, &p),
							 (all40 & ~nulls) | INT64_C(1) << 40);
			p = leaf(TS_PRED_EQ, 1, &l3);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p), key_mask(3));
			p = leaf(TS_PRED_NE, 1, &l3);
			assert_int_equal(mask(w.out.p, w.out.len, &int_type, &p), -1);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p),
							 all40 & ~nulls & ~key_mask(3));
			p = leaf(TS_PRED_NOT_IN, 3, in);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p),
							 all40 & ~nulls & ~key_mask(0) & ~key_mask(8));
			/* NOT IN with a NULL literal: left to the executor */
			in_null[1].isnull = true;
			p = leaf(TS_PRED_NOT_IN, 2, in_null);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p), -1);
			/* ranges and IN still leave the NULL rows out */
			p = leaf(TS_PRED_GE, 1, &l3);
			assert_int_equal(mask_n(w.out.p, w.out.len, 40, &int_type, &p),
							 all40 & ~nulls & ~key_mask(0) & ~key_mask(1) & ~key_mask(2));
			btw_free(&w);
		}
	/* a file of NULLs only: an empty index block, both keys -1 in the meta */
	{
		btw_writer	w;
		btw_buf		meta = {0};
		ts_value	l3 = v_int(3);
		ts_predicate p;
		static const uint8_t want_meta[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1};

		btw_init(&w, 64, 1, false);
		for (int r = 0; r < 7; r++)
			btw_null(&w, r);
		btw_finish(&w);
		seed("nulls_only", w.out.p, w.out.len);
		btw_meta(&w, &meta);
		expect_bytes(&meta, want_meta, sizeof(want_meta));
		free(meta.p);
		p = leaf(TS_PRED_IS_NULL, 0, NULL);
		assert_int_equal(mask(w.out.p, w.out.len, &int_type, &p), 0x7f);
		p = leaf(TS_PRED_IS_NOT_NULL, 0, NULL);
		assert_int_equal(mask_n(w.out.p, w.out.len, 7, &int_type, &p), 0);
		p = leaf(TS_PRED_EQ, 1, &l3);
		assert_int_equal(mask(w.out.p, w.out.len, &int_type, &p), 0);
		p = leaf(TS_PRED_NE, 1, &l3);
		assert_int_equal(mask_n(w.out.p, w.out.len, 7, &int_type, &p), 0);
		btw_free(&w);
	}
}

/* corrupt null bitmaps: errors naming it, never rows */
static void
test_nulls_corrupt(void **state)
{
	btw_writer	w;
	ts_predicate isnull = leaf(TS_PRED_IS_NULL, 0, NULL),
				notnull = leaf(TS_PRED_IS_NOT_NULL, 0, NULL);
	uint8_t    *c;
	uint32_t	off,
				size;
	bool		ok;
	ts_err		err;
	bool		all;
	void	   *rows;

	(void) state;
	write_nulls(&w, 1, false, 24);
	c = malloc(w.out.len);
	off = w.out.p[w.out.len - 52 + 32];
	off |= (uint32_t) w.out.p[w.out.len - 52 + 33] << 8;
	size = w.out.p[w.out.len - 52 + 40];
	/* each byte of the bitmap or its CRC flipped: a checksum mismatch */
	for (uint32_t i = off; i < off + size + 4; i++)
	{
		memcpy(c, w.out.p, w.out.len);
		c[i] ^= 0x10;
		assert_null(look(c, w.out.len, &int_type, &isnull, &ok, &err));
		assert_false(ok);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		assert_non_null(strstr(err.msg, "checksum mismatch in the null bitmap"));
		memset(&err, 0, sizeof(err));
		rows = NULL;
		assert_false(ts_global_index_leaf_n("btree", c, w.out.len, 40, &int_type, &notnull,
											&all, &rows, &err));
		assert_null(rows);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
	/* a bitmap that is not one, with a right CRC: corrupt */
	memcpy(c, w.out.p, w.out.len);
	c[off + 12] = 0x77;			/* the cookie */
	{
		uint32_t	crc = (uint32_t) crc32(0L, c + off, size);

		c[off + size] = (uint8_t) crc;
		c[off + size + 1] = (uint8_t) (crc >> 8);
		c[off + size + 2] = (uint8_t) (crc >> 16);
		c[off + size + 3] = (uint8_t) (crc >> 24);
	}
	assert_null(look(c, w.out.len, &int_type, &isnull, &ok, &err));
	assert_false(ok);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* a size past the index block: outside the file part it may be in */
	memcpy(c, w.out.p, w.out.len);
	c[w.out.len - 52 + 40] = 0xff;
	c[w.out.len - 52 + 41] = 0xff;
	assert_null(look(c, w.out.len, &int_type, &isnull, &ok, &err));
	assert_false(ok);
	assert_non_null(strstr(err.msg, "outside the file"));
	/* = does not read the null bitmap: a broken one does not matter */
	memcpy(c, w.out.p, w.out.len);
	c[off + 2] ^= 1;
	{
		ts_value	l3 = v_int(3);
		ts_predicate p = leaf(TS_PRED_EQ, 1, &l3);

		assert_int_equal(mask(c, w.out.len, &int_type, &p), key_mask(3));
	}
	free(c);
	btw_free(&w);
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
		cmocka_unit_test(test_null_bitmap_bytes),
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_nulls_corrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
