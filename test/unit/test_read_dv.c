/*
 * test_read_dv.c - deletion vectors: the real index files of the shared
 * test tables, a hand-built 64-bit DV, and corrupt inputs.
 *
 * Expected positions come from the index files' bytes decoded by hand
 * (PAIMON-FORMAT.md 7.6) and from the oracle notes (pk_with_bitmap_dv:
 * "cardinality 2: keys 0 and 4 deleted" = rows 0 and 4).
 */
#include "unit.h"

#include <zlib.h>
#include <roaring/roaring.h>

#include "base/ts_fs.h"
#include "base/ts_roaring_check.h"
#include "read/deletion_vector.h"

static void
expect_dv(const char *rel, int64_t offset, int64_t length, int64_t card,
		  const int64_t *deleted, int ndeleted, int64_t nrows)
{
	ts_err		err = {0};
	ts_deletion_vector *dv = ts_dv_load(ts_fs_local_unconfined(), unit_shared_path(rel), offset, length, &err);

	if (dv == NULL)
		fail_msg("%s: %s", rel, err.msg);
	assert_false(ts_dv_is_64bit(dv));
	assert_int_equal(ts_dv_cardinality(dv), card);
	for (int64_t p = 0; p < nrows; p++)
	{
		bool		want = false;

		for (int i = 0; i < ndeleted; i++)
			if (deleted[i] == p)
				want = true;
		assert_int_equal(ts_dv_is_deleted(dv, p), want);
	}
	assert_false(ts_dv_is_deleted(dv, ((int64_t) 1 << 32)));
	ts_dv_free(dv);
}

static void
test_real_index_files(void **state)
{
	static const int64_t d0[] = {0};
	static const int64_t d4[] = {4};
	static const int64_t d01[] = {0, 1};
	static const int64_t d04[] = {0, 4};
	static const int64_t d45[] = {4, 5};

	(void) state;
	/* 7.6 verified example: row 0 deleted, f1=1, f2=22 */
	expect_dv("testdata/parquet/pk_dv_index_in_data_with_external.db/external/f1=10/bucket-0/"
			  "index-770fb595-864b-4f3c-b921-a32972f01df0-0", 1, 22, 1, d0, 1, 100);
	expect_dv("testdata/parquet/pk_dv_index_in_data_with_external.db/external/f1=10/bucket-1/"
			  "index-770fb595-864b-4f3c-b921-a32972f01df0-1", 1, 22, 1, d4, 1, 100);
	expect_dv("testdata/orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/index/"
			  "index-9bb71660-7904-4690-b0fa-eaa921b89480-1", 1, -1, 1, d4, 1, 100);
	expect_dv("testdata/orc/pk_09_with_dv.db/pk_09_with_dv/index/"
			  "index-e1bac517-5e97-41ed-a719-e7ee11594946-0", 1, 24, 2, d01, 2, 100);
	expect_dv("testdata/orc/pk_with_bitmap_dv.db/pk_with_bitmap_dv/index/"
			  "index-73ec72e9-489e-49d9-a96c-f6db9b56fa07-0", 1, 24, 2, d04, 2, 100);
	expect_dv("testdata/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/index/"
			  "index-62372b7b-d1cf-4dde-a162-c9d9d35006b4-1", 1, 24, 2, d45, 2, 100);
	/* two DVs back to back in one index file: second at offset 1 + 4 + 22 + 4 */
	expect_dv("testdata/parquet/pk_09.db/pk_09/index/index-ff7801ad-df90-49b2-9619-586eab9c68e3-0",
			  1, 22, 1, d0, 1, 10);
	expect_dv("testdata/parquet/pk_09.db/pk_09/index/index-ff7801ad-df90-49b2-9619-586eab9c68e3-0",
			  31, 22, 1, d0, 1, 10);
}

/* Every DV of every real index file decodes (walk size ints). */
static void
test_walk_all_index_files(void **state)
{
	static const char *const files[] = {
		"testdata/orc/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external/index/index-aa60193d-d7cd-434f-bc1a-c1adb210e1f7-0",
		"testdata/orc/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external/index/index-aa60193d-d7cd-434f-bc1a-c1adb210e1f7-1",
		"testdata/orc/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/index/index-86356766-3238-46e6-990b-656cd7409eaa-1",
		"testdata/orc/pk_dv_index_in_data_no_external.db/pk_dv_index_in_data_no_external/f1=10/bucket-0/index-e0fc43ad-ea1c-4ce5-a5d0-89f13d4e5ab0-0",
		"testdata/orc/pk_09.db/pk_09/index/index-7badd250-6c0b-49e9-8e40-2449ae9a2539-0",
		"testdata/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv/index/index-16bec1d6-fa31-49bd-a240-deadcfff6003-0",
		"testdata/parquet/pk_with_bitmap_dv.db/pk_with_bitmap_dv/index/index-daed25d2-8e68-45ba-aaad-ff342666ef27-0",
	};

	(void) state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
	{
		uint8_t    *data;
		size_t		len;
		ts_err		err = {0};
		size_t		off = 1;
		int			n = 0;

		if (!ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(files[i]), &data, &len, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(data[0], 1);
		while (off + 4 <= len)
		{
			uint32_t	size = ts_load_be32(data + off);
			ts_deletion_vector *dv = ts_dv_load(ts_fs_local_unconfined(), unit_shared_path(files[i]), (int64_t) off,
												(int64_t) size, &err);

			if (dv == NULL)
				fail_msg("%s@%zu: %s", files[i], off, err.msg);
			assert_true(ts_dv_cardinality(dv) >= 1);
			ts_dv_free(dv);
			off += 4 + (size_t) size + 4;
			n++;
		}
		assert_int_equal(off, len);
		assert_true(n >= 1);
		ts_free(data);
	}
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Build a 64-bit DV {3, 7, 2^32 + 5} the way Bitmap64DeletionVector writes it. */
static size_t
build_dv64(uint8_t *buf, size_t cap)
{
	roaring_bitmap_t *lo = roaring_bitmap_create();
	roaring_bitmap_t *hi = roaring_bitmap_create();
	size_t		p = 4;
	size_t		n1,
				n2;
	uint32_t	crc;

	roaring_bitmap_add(lo, 3);
	roaring_bitmap_add(lo, 7);
	roaring_bitmap_add(hi, 5);
	put_le32(buf + p, 1681511377u);
	p += 4;
	put_le32(buf + p, 2);		/* int64 count, LE */
	put_le32(buf + p + 4, 0);
	p += 8;
	put_le32(buf + p, 0);
	p += 4;
	n1 = roaring_bitmap_portable_serialize(lo, (char *) buf + p);
	p += n1;
	put_le32(buf + p, 1);
	p += 4;
	n2 = roaring_bitmap_portable_serialize(hi, (char *) buf + p);
	p += n2;
	assert_true(p + 4 <= cap);
	put_be32(buf, (uint32_t) (p - 4));
	crc = (uint32_t) crc32(0L, buf + 4, (uInt) (p - 4));
	put_be32(buf + p, crc);
	roaring_bitmap_free(lo);
	roaring_bitmap_free(hi);
	return p + 4;
}

static void
test_dv64(void **state)
{
	uint8_t		buf[512];
	size_t		len = build_dv64(buf, sizeof(buf));
	ts_err		err = {0};
	ts_deletion_vector *dv;

	(void) state;
	/* meta length of a 64-bit DV = size + 8 */
	dv = ts_dv_decode(buf, len, (int64_t) len, "mem", &err);
	if (dv == NULL)
		fail_msg("%s", err.msg);
	assert_true(ts_dv_is_64bit(dv));
	assert_int_equal(ts_dv_cardinality(dv), 3);
	assert_true(ts_dv_is_deleted(dv, 3));
	assert_true(ts_dv_is_deleted(dv, 7));
	assert_false(ts_dv_is_deleted(dv, 5));
	assert_true(ts_dv_is_deleted(dv, ((int64_t) 1 << 32) + 5));
	assert_false(ts_dv_is_deleted(dv, ((int64_t) 1 << 32) + 3));
	/* deleted positions below n: what a file of n rows loses */
	assert_int_equal(ts_dv_count_below(dv, 0), 0);
	assert_int_equal(ts_dv_count_below(dv, 3), 0);
	assert_int_equal(ts_dv_count_below(dv, 4), 1);
	assert_int_equal(ts_dv_count_below(dv, 8), 2);
	assert_int_equal(ts_dv_count_below(dv, ((int64_t) 1 << 32) + 5), 2);
	assert_int_equal(ts_dv_count_below(dv, ((int64_t) 1 << 32) + 6), 3);
	assert_int_equal(ts_dv_count_below(dv, INT64_MAX), 3);
	assert_int_equal(ts_dv_count_below(NULL, 10), 0);
	ts_dv_free(dv);

	/* flipping any byte of magic/bitmap/CRC must fail as corrupt */
	for (size_t i = 4; i < len; i++)
	{
		buf[i] ^= 0x40;
		dv = ts_dv_decode(buf, len, -1, "mem", &err);
		assert_null(dv);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		buf[i] ^= 0x40;
	}
	/* truncation at every length */
	for (size_t l = 0; l < len; l++)
	{
		dv = ts_dv_decode(buf, l, -1, "mem", &err);
		assert_null(dv);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
	/* wrong meta length */
	dv = ts_dv_decode(buf, len, (int64_t) len - 8, "mem", &err);
	assert_null(dv);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
}

static void
test_corrupt_32(void **state)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	ts_deletion_vector *dv;
	const char *path = unit_shared_path("testdata/orc/pk_with_bitmap_dv.db/pk_with_bitmap_dv/index/"
										"index-73ec72e9-489e-49d9-a96c-f6db9b56fa07-0");

	(void) state;
	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err))
		fail_msg("%s", err.msg);
	/* bad magic / bitmap / crc bytes */
	for (size_t i = 5; i < len; i++)
	{
		data[i] ^= 0x01;
		dv = ts_dv_decode(data + 1, len - 1, -1, "mem", &err);
		assert_null(dv);
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		assert_non_null(strstr(err.msg, "mem"));
		data[i] ^= 0x01;
	}
	/* absurd size */
	put_be32(data + 1, 0x7fffffff);
	assert_null(ts_dv_decode(data + 1, len - 1, -1, "mem", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_free(data);

	/* offsets out of range, wrong length; errors name the file */
	assert_null(ts_dv_load(ts_fs_local_unconfined(), path, 100, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index-73ec72e9"));
	assert_null(ts_dv_load(ts_fs_local_unconfined(), path, 0, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load(ts_fs_local_unconfined(), path, 2, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load(ts_fs_local_unconfined(), path, 1, 23, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load(ts_fs_local_unconfined(), "/nonexistent/index-x", 1, -1, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
}

/*
 * Portable Roaring bitmaps that libroaring 0.2 accepts but that make its
 * later operations read out of bounds (the crash fuzz_file_index found:
 * test/fuzz/regressions/fuzz_file_index/run_past_65535): a run container
 * whose run goes past 65535, and an unsorted array container.
 */
static const uint8_t run_past_65535[] = {
	0x3b, 0x30, 0x00, 0x00,		/* cookie 12347, 1 container */
	0x01,						/* container 0 is a run container */
	0x00, 0x00, 0x06, 0x00,		/* key 0, cardinality 7 */
	0x01, 0x00,					/* 1 run */
	0xfc, 0xff, 0x06, 0x00		/* start 65532, length 6: past 65535 */
};
static const uint8_t unsorted_array[] = {
	0x3a, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* cookie 12346, 1 container */
	0x00, 0x00, 0x02, 0x00,		/* key 0, cardinality 3 */
	0x10, 0x00, 0x00, 0x00,		/* offset 16 */
	0x09, 0x00, 0x03, 0x00, 0x05, 0x00	/* 9, 3, 5: not sorted */
};

/* A 32-bit DV (size, magic, bitmap, CRC) around the given bitmap bytes. */
static size_t
build_dv32(uint8_t *buf, const uint8_t *bitmap, size_t n)
{
	put_be32(buf, (uint32_t) (4 + n));
	put_be32(buf + 4, 1581511376u);
	memcpy(buf + 8, bitmap, n);
	put_be32(buf + 8 + n, (uint32_t) crc32(0L, buf + 4, (uInt) (4 + n)));
	return 8 + n + 4;
}

/* A 64-bit DV with one bitmap (key 0) of the given bytes. */
static size_t
build_dv64_raw(uint8_t *buf, const uint8_t *bitmap, size_t n)
{
	size_t		body = 4 + 8 + 4 + n;

	put_be32(buf, (uint32_t) body);
	put_le32(buf + 4, 1681511377u);
	put_le32(buf + 8, 1);
	put_le32(buf + 12, 0);
	put_le32(buf + 16, 0);
	memcpy(buf + 20, bitmap, n);
	put_be32(buf + 4 + body, (uint32_t) crc32(0L, buf + 4, (uInt) body));
	return 4 + body + 4;
}

static void
expect_malformed(const uint8_t *bitmap, size_t n)
{
	uint8_t		buf[128];
	size_t		len;
	ts_err		err = {0};

	/* libroaring alone takes these bytes as a bitmap of exactly n bytes */
	assert_int_equal(roaring_bitmap_portable_deserialize_size((const char *) bitmap, n), n);
	assert_int_equal(ts_roaring_check(bitmap, n), 0);
	assert_null(ts_roaring_read(bitmap, n, NULL));

	len = build_dv32(buf, bitmap, n);
	assert_null(ts_dv_decode(buf, len, (int64_t) len - 8, "index-bad-32", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index-bad-32"));
	assert_non_null(strstr(err.msg, "invalid Roaring bitmap"));

	memset(&err, 0, sizeof(err));
	len = build_dv64_raw(buf, bitmap, n);
	assert_null(ts_dv_decode(buf, len, (int64_t) len - 8, "index-bad-64", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index-bad-64"));
}

static void
test_malformed_bitmap(void **state)
{
	uint8_t		ok[sizeof(run_past_65535)];
	uint8_t		buf[128];
	size_t		len;
	ts_err		err = {0};
	ts_deletion_vector *dv;

	(void) state;
	expect_malformed(run_past_65535, sizeof(run_past_65535));
	expect_malformed(unsorted_array, sizeof(unsorted_array));

	/* the same run kept inside the container (65529..65535) is read */
	memcpy(ok, run_past_65535, sizeof(ok));
	ok[11] = 0xf9;
	assert_int_equal(ts_roaring_check(ok, sizeof(ok)), sizeof(ok));
	len = build_dv32(buf, ok, sizeof(ok));
	dv = ts_dv_decode(buf, len, (int64_t) len - 8, "index-ok", &err);
	if (dv == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(ts_dv_cardinality(dv), 7);
	assert_true(ts_dv_is_deleted(dv, 65535));
	assert_true(ts_dv_is_deleted(dv, 65529));
	assert_false(ts_dv_is_deleted(dv, 65528));
	ts_dv_free(dv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_index_files),
		cmocka_unit_test(test_walk_all_index_files),
		cmocka_unit_test(test_dv64),
		cmocka_unit_test(test_corrupt_32),
		cmocka_unit_test(test_malformed_bitmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
