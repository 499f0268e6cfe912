/*
 * test_sha256.c - base/sha256.c: the FIPS 180-4 example digests, and the
 * same digest as OpenSSL's for every length around the block boundaries,
 * fed whole and in pieces.
 */
#include "unit.h"

#include <openssl/evp.h>

#include "base/ts_sha256.h"

static void
to_hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
check_hex(const void *data, size_t len, const char *want)
{
	uint8_t		d[32];
	char		hex[65];

	ts_sha256_digest(data, len, d);
	to_hex(d, hex);
	assert_string_equal(hex, want);
}

/* FIPS 180-4 / NIST CSRC examples */
static void
test_known_vectors(void **state)
{
	static char million[1000000];

	(void) state;
	check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
			  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	check_hex(million, sizeof(million),
			  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* every length 0..300 (padding in one or two blocks), whole and split at every third byte */
static void
test_same_as_openssl(void **state)
{
	uint8_t		data[300];

	(void) state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t) (i * 131 + 7);
	for (size_t len = 0; len <= sizeof(data); len++)
	{
		uint8_t		want[32],
					whole[32],
					pieces[32];
		unsigned int n = 32;
		ts_sha256	c;

		assert_int_equal(EVP_Digest(data, len, want, &n, EVP_sha256(), NULL), 1);
		ts_sha256_digest(data, len, whole);
		assert_memory_equal(whole, want, 32);
		ts_sha256_init(&c);
		for (size_t at = 0; at < len; at += 3)
			ts_sha256_update(&c, data + at, len - at < 3 ? len - at : 3);
		ts_sha256_final(&c, pieces);
		assert_memory_equal(pieces, want, 32);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_vectors),
		cmocka_unit_test(test_same_as_openssl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
