/*
 * test_parquet_levels.c - the writer's levels, encoded as parquet-mr
 * encodes them.
 *
 * pq_write_levels() against bytes worked out by hand from parquet-mr's
 * RunLengthBitPackingHybridEncoder rules (8 repeats counted since the last
 * group packed make an RLE run; otherwise groups of 8 bit-packed, 63 to a
 * run, the last one padded with zeros), and against the reader's decoders
 * (the general level decoder and the presence flags of flat columns) over
 * random levels of every bit width, null densities and lengths.
 */
#include "unit.h"

#include "format/parquet/pq_internal.h"
#include "format/parquet/pq_write_internal.h"

/* lv[0..n) encoded for max; checks the length prefix and the bytes after it */
static void
expect_levels(const uint8_t *lv, size_t n, int max, const uint8_t *want, size_t nwant)
{
	ts_buf		b;

	ts_buf_init(&b);
	assert_true(pq_write_levels(lv, n, max, &b));
	assert_int_equal(b.len, 4 + nwant);
	assert_int_equal(ts_load_le32((const uint8_t *) b.data), nwant);
	assert_memory_equal((const uint8_t *) b.data + 4, want, nwant);
	ts_buf_free(&b);
}

static void
test_runs_by_hand(void **state)
{
	uint8_t		lv[600];

	(void) state;

	/* 16 equal values: one RLE run (header 16 << 1, the value in a byte) */
	memset(lv, 1, 16);
	expect_levels(lv, 16, 1, (const uint8_t[]) {0x20, 0x01}, 2);

	/* 12 equal values: the 8th on is counted, never packed: still RLE */
	expect_levels(lv, 12, 1, (const uint8_t[]) {0x18, 0x01}, 2);

	/* 7 equal values: one packed group, padded with zeros */
	expect_levels(lv, 7, 1, (const uint8_t[]) {0x03, 0x7F}, 2);

	/* alternating: one group, least significant bit first */
	for (int i = 0; i < 8; i++)
		lv[i] = (uint8_t) (i % 2 == 0);
	expect_levels(lv, 8, 1, (const uint8_t[]) {0x03, 0x55}, 2);

	/* 1, 1, 0: a short last group */
	lv[0] = lv[1] = 1;
	lv[2] = 0;
	expect_levels(lv, 3, 1, (const uint8_t[]) {0x03, 0x03}, 2);

	/* alternating, then 20 ones: the packed run ends before the RLE run */
	for (int i = 0; i < 8; i++)
		lv[i] = (uint8_t) (i % 2 == 0);
	memset(lv + 8, 1, 20);
	expect_levels(lv, 28, 1, (const uint8_t[]) {0x03, 0x55, 0x28, 0x01}, 4);

	/*
	 * 0 then eight 1s: the first group (0 and seven 1s) is packed, which
	 * resets the count, so the eighth 1 starts a second group in the same
	 * run: two groups, not a run of eight.
	 */
	lv[0] = 0;
	memset(lv + 1, 1, 8);
	expect_levels(lv, 9, 1, (const uint8_t[]) {0x05, 0xFE, 0x01}, 3);

	/* bit width 2: 0, 1, 2, 3 twice, 2 bits each from the low end */
	for (int i = 0; i < 8; i++)
		lv[i] = (uint8_t) (i % 4);
	expect_levels(lv, 8, 3, (const uint8_t[]) {0x03, 0xE4, 0xE4}, 3);
	/* max 2 has the same width */
	for (int i = 0; i < 8; i++)
		lv[i] = (uint8_t) (i % 3);
	expect_levels(lv, 8, 2, (const uint8_t[]) {0x03, 0x24, 0x49}, 3);

	/* 512 alternating values: 63 groups under one header, then 1 more run */
	{
		uint8_t		want[70];

		for (int i = 0; i < 512; i++)
			lv[i] = (uint8_t) (i % 2 == 0);
		want[0] = 0x7F;
		memset(want + 1, 0x55, 63);
		want[64] = 0x03;
		want[65] = 0x55;
		expect_levels(lv, 512, 1, want, 66);
	}

	/* nothing: an empty body after the length */
	expect_levels(lv, 0, 1, (const uint8_t[]) {0}, 0);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t) (rng >> 11);
}

/* random levels read back by both decoders, and mixed levels cost about a bit each */
static void
test_round_trip(void **state)
{
	enum
	{
		N = 5000
	};
	static const int maxes[] = {1, 2, 3, 4, 7, 8, 100, 255};
	static const int one_in[] = {1, 2, 7, 50, 1000};
	uint8_t    *lv = malloc(N);
	uint32_t   *got = malloc(N * sizeof(uint32_t));
	uint8_t    *present = malloc(N);

	(void) state;
	for (size_t m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++)
		for (size_t d = 0; d < sizeof(one_in) / sizeof(one_in[0]); d++)
			for (int len = 0; len <= N; len += len < 40 ? 1 : 997)
			{
				int			max = maxes[m];
				int			width = pq_bit_width((uint64_t) max);
				ts_buf		b;
				pq_rle		r;
				ts_err		err;
				int			npresent = 0,
							want_present = 0;

				/* mostly max, a lower level one time in one_in[d] */
				for (int i = 0; i < len; i++)
				{
					lv[i] = next_random() % one_in[d] == 0 ?
						(uint8_t) (next_random() % max) : (uint8_t) max;
					want_present += lv[i] == max;
				}
				ts_buf_init(&b);
				assert_true(pq_write_levels(lv, (size_t) len, max, &b));
				assert_int_equal(ts_load_le32((const uint8_t *) b.data), b.len - 4);

				pq_rle_init(&r, (const uint8_t *) b.data + 4, b.len - 4, width);
				assert_true(pq_rle_get(&r, got, len, &err));
				for (int i = 0; i < len; i++)
					assert_int_equal(got[i], lv[i]);

				pq_rle_init(&r, (const uint8_t *) b.data + 4, b.len - 4, width);
				assert_true(pq_rle_get_present(&r, present, len, (uint32_t) max, &npresent, &err));
				assert_int_equal(npresent, want_present);
				for (int i = 0; i < len; i++)
					assert_int_equal(present[i], lv[i] == max);

				/*
				 * A null in seven: runs of 8 or more are rare, so mostly
				 * bit-packed: at most 3 bits a level at width 1 (an RLE run
				 * of 8 and the packed run header after it), where one RLE
				 * run per change of level would take ~4.5.
				 */
				if (one_in[d] == 7 && len == N)
					assert_true((b.len - 4) * 8 <= (size_t) len * (width > 3 ? width : 3) + 8 * (len / 504 + 16));
				ts_buf_free(&b);
			}
	free(lv);
	free(got);
	free(present);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_by_hand),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
