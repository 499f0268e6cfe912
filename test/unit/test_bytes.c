/*
 * test_bytes.c - the one byte reader (src/base/ts_bytes.h): fixed-width
 * integers loaded from bytes in both orders, every byte in its place, the
 * top bits kept (no sign extension, no overflow of a promoted int), and
 * unaligned addresses.
 */
#include "unit.h"

#include "base/ts_bytes.h"

static const uint8_t counting[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};
static const uint8_t high[] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x80};

static void
test_little_endian(void **state)
{
	(void) state;
	assert_int_equal(ts_load_le16(counting), 0x0201);
	assert_int_equal(ts_load_le32(counting), 0x04030201);
	assert_true(ts_load_le64(counting) == UINT64_C(0x0807060504030201));
	assert_int_equal(ts_load_le16(high), 0xdcfe);
	assert_true(ts_load_le32(high) == UINT32_C(0x98badcfe));
	assert_true(ts_load_le64(high) == UINT64_C(0x1032547698badcfe));
	/* the top byte set: an unsigned value, as signed the writer's negative */
	assert_true(ts_load_le64(high + 1) == UINT64_C(0x801032547698badc));
	assert_true((int64_t) ts_load_le64(high + 1) < 0);
	assert_int_equal((int16_t) ts_load_le16(high + 7), (int16_t) 0x8010);
}

static void
test_big_endian(void **state)
{
	(void) state;
	assert_int_equal(ts_load_be16(counting), 0x0102);
	assert_int_equal(ts_load_be32(counting), 0x01020304);
	assert_true(ts_load_be64(counting) == UINT64_C(0x0102030405060708));
	assert_int_equal(ts_load_be16(high), 0xfedc);
	assert_true(ts_load_be32(high) == UINT32_C(0xfedcba98));
	assert_true(ts_load_be64(high) == UINT64_C(0xfedcba9876543210));
	/* unaligned */
	assert_true(ts_load_be64(counting + 1) == UINT64_C(0x0203040506070809));
	assert_true(ts_load_be32(high + 5) == UINT32_C(0x54321080));
	assert_int_equal((int32_t) ts_load_be32(high), -0x01234568);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_little_endian),
		cmocka_unit_test(test_big_endian),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
