/*
 * test_bytes.c - the one byte reader and writer (src/base/ts_bytes.h):
 * fixed-width integers loaded from bytes in both orders, every byte in its
 * place, the top bits kept (no sign extension, no overflow of a promoted
 * int), and unaligned addresses; stores that write exactly their n bytes
 * and load back to the value.
 */
#include "unit.h"

#include <string.h>

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

static void
test_stores(void **state)
{
	uint8_t		b[10];

	(void) state;
	memset(b, 0xaa, sizeof(b));
	ts_store_le32(b + 1, UINT32_C(0x98badcfe));
	assert_memory_equal(b, "\xaa\xfe\xdc\xba\x98\xaa", 6);
	assert_true(ts_load_le32(b + 1) == UINT32_C(0x98badcfe));
	ts_store_le64(b + 1, UINT64_C(0x1032547698badcfe));
	assert_memory_equal(b + 1, "\xfe\xdc\xba\x98\x76\x54\x32\x10\xaa", 9);
	assert_true(ts_load_le64(b + 1) == UINT64_C(0x1032547698badcfe));
	ts_store_le16(b, 0x8010);
	assert_int_equal(ts_load_le16(b), 0x8010);
	/* n bytes only: an ORC chunk header is 3 */
	memset(b, 0xaa, sizeof(b));
	ts_store_le(b, UINT64_C(0x11223344), 3);
	assert_memory_equal(b, "\x44\x33\x22\xaa", 4);
	ts_store_be32(b, UINT32_C(0xfedcba98));
	assert_memory_equal(b, "\xfe\xdc\xba\x98", 4);
	assert_true(ts_load_be32(b) == UINT32_C(0xfedcba98));
	memset(b, 0xaa, sizeof(b));
	ts_store_be(b, UINT64_C(0x0102030405060708), 8);
	assert_true(ts_load_be64(b) == UINT64_C(0x0102030405060708));
	ts_store_be(b, 0x0304, 2);
	assert_memory_equal(b, "\x03\x04\x03\x04", 4);
	assert_int_equal(b[8], 0xaa);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_little_endian),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_stores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
