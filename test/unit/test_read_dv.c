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
#include "read/deletion_vector.h"

static void
expect_dv(const char *rel, int64_t offset, int64_t length, int64_t card,
		  const int64_t *deleted, int ndeleted, int64_t nrows)
{
	ts_err		err = {0};
	ts_deletion_vector *dv = ts_dv_load(unit_shared_path(rel), offset, length, &err);

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

		if (!ts_read_whole_file(unit_shared_path(files[i]), &data, &len, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(data[0], 1);
		while (off + 4 <= len)
		{
			uint32_t	size = ts_load_be32(data + off);
			ts_deletion_vector *dv = ts_dv_load(unit_shared_path(files[i]), (int64_t) off,
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
	if (!ts_read_whole_file(path, &data, &len, &err))
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
	assert_null(ts_dv_load(path, 100, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index-73ec72e9"));
	assert_null(ts_dv_load(path, 0, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load(path, 2, -1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load(path, 1, 23, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_dv_load("/nonexistent/index-x", 1, -1, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_index_files),
		cmocka_unit_test(test_walk_all_index_files),
		cmocka_unit_test(test_dv64),
		cmocka_unit_test(test_corrupt_32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
