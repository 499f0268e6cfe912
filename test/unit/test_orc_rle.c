/*
 * test_orc_rle.c - ORC run-length decoders against the worked examples of
 * the ORC v1 specification (site/specification/ORCv1.md), plus hostile
 * inputs that must fail without reading out of bounds; and the writer
 * time-zone offsets (tz database facts for Asia/Shanghai).
 */
#include "unit.h"

#include <unistd.h>

#include "base/ts_value.h"
#include "format/orc/orc_internal.h"
#include "format/orc/orc_tz.h"

static void
expect_ints(const uint8_t *p, size_t len, bool is_signed, bool v2,
			const int64_t *want, int n)
{
	orc_int_rle d;
	ts_err		err = {0};
	int			i;

	orc_int_rle_init(&d, p, len, is_signed, v2);
	for (i = 0; i < n; i++)
	{
		int64_t		v;

		if (!orc_int_rle_next(&d, &v, &err))
			fail_msg("value %d: %s", i, err.msg);
		assert_int_equal(v, want[i]);
	}
	/* the run is used up exactly: one more value is an error */
	{
		int64_t		v;

		assert_false(orc_int_rle_next(&d, &v, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
}

static void
test_rle_v2_spec_examples(void **state)
{
	(void) state;
	/* short repeat: [10000 x 5] */
	{
		static const uint8_t p[] = {0x0a, 0x27, 0x10};
		static const int64_t w[] = {10000, 10000, 10000, 10000, 10000};

		expect_ints(p, sizeof(p), false, true, w, 5);
	}
	/* direct: [23713, 43806, 57005, 48879] */
	{
		static const uint8_t p[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef};
		static const int64_t w[] = {23713, 43806, 57005, 48879};

		expect_ints(p, sizeof(p), false, true, w, 4);
	}
	/* patched base */
	{
		static const uint8_t p[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
			0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa,
		0xb4, 0xbe, 0xfc, 0xe8};
		static const int64_t w[] = {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080,
			2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190};

		expect_ints(p, sizeof(p), false, true, w, 20);
	}
	/* delta: primes */
	{
		static const uint8_t p[] = {0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46};
		static const int64_t w[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};

		expect_ints(p, sizeof(p), false, true, w, 10);
	}
}

static void
test_rle_v1_spec_examples(void **state)
{
	(void) state;
	/* 100 x 7 */
	{
		static const uint8_t p[] = {0x61, 0x00, 0x07};
		int64_t		w[100];
		int			i;

		for (i = 0; i < 100; i++)
			w[i] = 7;
		expect_ints(p, sizeof(p), false, false, w, 100);
	}
	/* 100 down to 1 */
	{
		static const uint8_t p[] = {0x61, 0xff, 0x64};
		int64_t		w[100];
		int			i;

		for (i = 0; i < 100; i++)
			w[i] = 100 - i;
		expect_ints(p, sizeof(p), false, false, w, 100);
	}
	/* literals [2, 3, 4, 7, 11] */
	{
		static const uint8_t p[] = {0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b};
		static const int64_t w[] = {2, 3, 4, 7, 11};

		expect_ints(p, sizeof(p), false, false, w, 5);
	}
	/* signed literals: zigzag [0, -1, 1, -2, 2] */
	{
		static const uint8_t p[] = {0xfb, 0x00, 0x01, 0x02, 0x03, 0x04};
		static const int64_t w[] = {0, -1, 1, -2, 2};

		expect_ints(p, sizeof(p), true, false, w, 5);
	}
}

static void
test_byte_and_bool_rle(void **state)
{
	ts_err		err = {0};

	(void) state;
	/* a hundred 0's = [0x61, 0x00]; then literals 0x44 0x45 = [0xfe, 0x44, 0x45] */
	{
		static const uint8_t p[] = {0x61, 0x00, 0xfe, 0x44, 0x45};
		orc_byte_rle d;
		uint8_t		b;
		int			i;

		orc_byte_rle_init(&d, p, sizeof(p));
		for (i = 0; i < 100; i++)
		{
			assert_true(orc_byte_rle_next(&d, &b, &err));
			assert_int_equal(b, 0);
		}
		assert_true(orc_byte_rle_next(&d, &b, &err));
		assert_int_equal(b, 0x44);
		assert_true(orc_byte_rle_next(&d, &b, &err));
		assert_int_equal(b, 0x45);
		assert_false(orc_byte_rle_next(&d, &b, &err));
	}
	/* booleans: bytes [0xff, 0x80] = 8 trues, then one true and seven falses */
	{
		static const uint8_t p[] = {0xfe, 0xff, 0x80};
		orc_bool_rle d;
		bool		v;
		int			i;

		orc_bool_rle_init(&d, p, sizeof(p));
		for (i = 0; i < 16; i++)
		{
			assert_true(orc_bool_rle_next(&d, &v, &err));
			assert_int_equal(v, i < 9);
		}
		assert_false(orc_bool_rle_next(&d, &v, &err));
	}
}

static void
test_varint128(void **state)
{
	ts_err		err = {0};
	ts_cursor	c;
	ts_int128	v;

	(void) state;
	/* zigzag: 3 -> -2, 0x96 0x01 = 150 -> 75 */
	{
		static const uint8_t p[] = {0x03, 0x96, 0x01};

		ts_cursor_init(&c, p, sizeof(p));
		assert_true(orc_read_varint128(&c, &v, &err));
		assert_true(v == -2);
		assert_true(orc_read_varint128(&c, &v, &err));
		assert_true(v == 75);
		assert_false(orc_read_varint128(&c, &v, &err));
	}
	/* 10^38 - 1 (max DECIMAL(38)) zigzag-encoded round trip */
	{
		ts_int128	big = 1;
		unsigned __int128 u;
		uint8_t		buf[32];
		size_t		n = 0;
		int			i;

		for (i = 0; i < 38; i++)
			big *= 10;
		big -= 1;
		u = (unsigned __int128) big << 1;
		do
		{
			buf[n++] = (uint8_t) ((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
			u >>= 7;
		} while (u);
		ts_cursor_init(&c, buf, n);
		assert_true(orc_read_varint128(&c, &v, &err));
		assert_true(v == big);
	}
	/* longer than 128 bits */
	{
		uint8_t		p[20];

		memset(p, 0xff, sizeof(p));
		p[19] = 0x01;
		ts_cursor_init(&c, p, sizeof(p));
		assert_false(orc_read_varint128(&c, &v, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
}

/* truncated / hostile runs: errors, never reads past the buffer (ASan) */
static void
test_rle_hostile(void **state)
{
	ts_err		err = {0};
	int64_t		v;
	orc_int_rle d;
	int			len;

	(void) state;
	/* every prefix of the patched-base example fails before its values end */
	for (len = 0; len < 28; len++)
	{
		static const uint8_t full[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
			0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa,
		0xb4, 0xbe, 0xfc, 0xe8};
		uint8_t    *p = malloc(len ? len : 1);
		int			i;
		bool		ok = true;

		memcpy(p, full, len);
		orc_int_rle_init(&d, p, len, false, true);
		for (i = 0; i < 20 && ok; i++)
			ok = orc_int_rle_next(&d, &v, &err);
		assert_false(ok);
		free(p);
	}
	/* patched base whose patch gap points past the run */
	{
		/* width 8, length 2, base width 1, patch width 8, gap width 8, 1 patch */
		static const uint8_t p[] = {0x8e, 0x01, 0x07, 0xe1, 0x00, 0x01, 0x02, 0x05, 0x01};

		orc_int_rle_init(&d, p, sizeof(p), false, true);
		assert_false(orc_int_rle_next(&d, &v, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
	/* all 256 one-byte headers followed by garbage, every length */
	{
		uint8_t		p[64];
		int			h,
					l;

		for (h = 0; h < 256; h++)
			for (l = 1; l <= 12; l++)
			{
				int			i;

				memset(p, 0xa5, sizeof(p));
				p[0] = (uint8_t) h;
				orc_int_rle_init(&d, p, l, true, true);
				for (i = 0; i < 600; i++)
					if (!orc_int_rle_next(&d, &v, &err))
						break;
				orc_int_rle_init(&d, p, l, true, false);
				for (i = 0; i < 600; i++)
					if (!orc_int_rle_next(&d, &v, &err))
						break;
			}
	}
}

static void
test_writer_time_zones(void **state)
{
	ts_err		err = {0};
	orc_tz	   *tz;

	(void) state;
	assert_true(orc_tz_load("GMT", &tz, &err));
	assert_int_equal(orc_tz_offset(tz, 0), 0);
	orc_tz_free(tz);
	assert_true(orc_tz_load("GMT+08:00", &tz, &err));
	assert_int_equal(orc_tz_offset(tz, 0), 8 * 3600);
	orc_tz_free(tz);
	assert_true(orc_tz_load("UTC-05:30", &tz, &err));
	assert_int_equal(orc_tz_offset(tz, 0), -(5 * 3600 + 1800));
	orc_tz_free(tz);
	if (access("/usr/share/zoneinfo/Asia/Shanghai", R_OK) == 0)
	{
		assert_true(orc_tz_load("Asia/Shanghai", &tz, &err));
		assert_int_equal(orc_tz_offset(tz, 0), 8 * 3600);				/* 1970 CST */
		assert_int_equal(orc_tz_offset(tz, 1420070400), 8 * 3600);		/* 2015 */
		assert_int_equal(orc_tz_offset(tz, 583718400), 9 * 3600);		/* 1988-07-01 CDT */
		assert_int_equal(orc_tz_offset(tz, -2240524800LL), 29143);		/* 1899: LMT +8:05:43 */
		orc_tz_free(tz);
	}
	assert_false(orc_tz_load("../etc/passwd", &tz, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_false(orc_tz_load("Mars/Olympus_Mons", &tz, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle_v2_spec_examples),
		cmocka_unit_test(test_rle_v1_spec_examples),
		cmocka_unit_test(test_byte_and_bool_rle),
		cmocka_unit_test(test_varint128),
		cmocka_unit_test(test_rle_hostile),
		cmocka_unit_test(test_writer_time_zones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
