/*
 * test_shard.c - scan.shard 'K/N' (src/scan/shard.c): the values accepted,
 * and the shard of a file: bucket mod N for tables with buckets, the
 * published FNV-1a 64 test vectors mod N for file names.
 */
#include "unit.h"

#include "scan/scan.h"

static void
test_parse(void **state)
{
	const char *good[] = {"1/1", "1/4", "4/4", "2/3", "10/64"};
	const int	gk[] = {1, 1, 4, 2, 10};
	const int	gn[] = {1, 4, 4, 3, 64};
	const char *bad[] = {"", "0/2", "3/2", "1/0", "x", "2", "1/2x", "-1/2", " 1/2",
	"1/ 2", "1/-2", "1//2", "/2", "1/", "99999999999/2", "1/2000000"};

	(void) state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		int32_t		k = 0,
					n = 0;

		assert_true(ts_shard_parse(good[i], &k, &n));
		assert_int_equal(k, gk[i]);
		assert_int_equal(n, gn[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		int32_t		k = -7,
					n = -7;

		if (ts_shard_parse(bad[i], &k, &n))
			fail_msg("\"%s\" accepted as %d/%d", bad[i], k, n);
		assert_int_equal(k, -7);
	}
	assert_false(ts_shard_parse(NULL, NULL, NULL));
}

static void
test_by_bucket(void **state)
{
	(void) state;
	/* bucket b of any bucket count: shard b mod N + 1 */
	assert_int_equal(ts_shard_of_file(0, true, "ignored", 4), 1);
	assert_int_equal(ts_shard_of_file(5, true, NULL, 4), 2);
	assert_int_equal(ts_shard_of_file(7, true, "x", 3), 2);
	assert_int_equal(ts_shard_of_file(12345, true, "x", 1), 1);
}

static void
test_by_name(void **state)
{
	/* FNV-1a 64 of "" is 0xcbf29ce484222325, of "a" 0xaf63dc4c8601ec8c, of "foobar" 0x85944171f73967e8 */
	const uint64_t h_empty = UINT64_C(0xcbf29ce484222325),
				h_a = UINT64_C(0xaf63dc4c8601ec8c),
				h_foobar = UINT64_C(0x85944171f73967e8);

	(void) state;
	for (int32_t n = 1; n <= 70; n++)
	{
		assert_int_equal(ts_shard_of_file(3, false, "", n), (int32_t) (h_empty % (uint64_t) n) + 1);
		assert_int_equal(ts_shard_of_file(3, false, "a", n), (int32_t) (h_a % (uint64_t) n) + 1);
		assert_int_equal(ts_shard_of_file(0, false, "foobar", n), (int32_t) (h_foobar % (uint64_t) n) + 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_by_bucket),
		cmocka_unit_test(test_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
