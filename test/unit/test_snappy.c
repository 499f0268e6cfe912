/*
 * test_snappy.c - libsnappy loaded on first use (src/base/snappy.c): a
 * library that cannot be loaded is an error naming it, and every reader
 * that meets snappy data then fails with it instead of crashing; once
 * loaded, data goes through and back, and bad data is told apart.
 */
#include "unit.h"

#include "base/ts_snappy.h"
#include "format/avro/avro_container.h"

static void
test_missing_library(void **state)
{
	ts_err		err = {0};
	ts_buf		out;
	/* "abcd" as snappy (length 4, a literal of 4) and a CRC */
	static const uint8_t block[] = {0x04, 0x0c, 'a', 'b', 'c', 'd', 0, 0, 0, 0};

	(void) state;
	ts_snappy_set_library("libts-no-such-snappy.so.1");
	assert_null(ts_snappy(&err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "libts-no-such-snappy.so.1"));
	assert_non_null(strstr(err.msg, "snappy-compressed data"));
	/* a reader meeting snappy data says so */
	memset(&err, 0, sizeof(err));
	ts_buf_init(&out);
	assert_false(ts_avro_decompress(TS_AVRO_CODEC_SNAPPY, block, sizeof(block), &out, NULL, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	ts_buf_free(&out);
	ts_snappy_set_library(NULL);
}

static void
test_round_trip(void **state)
{
	ts_err		err = {0};
	const ts_snappy_api *s;
	char		in[5000];
	char		packed[8000];
	char		back[5000];
	size_t		plen = sizeof(packed),
				ulen;

	(void) state;
	ts_snappy_set_library(NULL);
	s = ts_snappy(&err);
	assert_non_null(s);
	assert_ptr_equal(ts_snappy(&err), s);	/* loaded once */
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (char) ("paimon"[i % 6] + (i % 97 == 0));
	assert_true(s->max_compressed_length(sizeof(in)) <= sizeof(packed));
	assert_int_equal(s->compress(in, sizeof(in), packed, &plen), SNAPPY_OK);
	assert_true(plen < sizeof(in));
	assert_int_equal(s->uncompressed_length(packed, plen, &ulen), SNAPPY_OK);
	assert_int_equal(ulen, sizeof(in));
	assert_int_equal(s->uncompress(packed, plen, back, &ulen), SNAPPY_OK);
	assert_memory_equal(in, back, sizeof(in));
	/* truncated data is refused, not read past */
	ulen = sizeof(back);
	assert_int_not_equal(s->uncompress(packed, plen / 2, back, &ulen), SNAPPY_OK);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
