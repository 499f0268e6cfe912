/*
 * fuzz_dv.c - libFuzzer harness for deletion vector decoding
 * (ts_dv_decode): 32-bit Roaring and 64-bit Roaring64 bitmaps with their
 * size int, magic number and CRC.  The first input byte picks the length
 * the index manifest would claim (unknown, exact or off by a little);
 * the rest is the DV as it sits in an index file (from its size int).
 * A decoded DV is probed at a few positions and freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/deletion_vector.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ts_err		err;
	ts_deletion_vector *dv;
	uint8_t    *copy;
	int64_t		length;
	size_t		n;

	if (size < 1)
		return 0;
	n = size - 1;
	switch (data[0] % 4)
	{
		case 0:
			length = -1;
			break;
		case 1:
			length = (int64_t) n - 4;	/* 32-bit: magic + bitmap */
			break;
		case 2:
			length = (int64_t) n;	/* 64-bit: size + magic + bitmap + CRC */
			break;
		default:
			length = (int64_t) (data[0] >> 2) - 8;
			break;
	}
	/* an exact-size heap copy so that ASan sees any overread */
	copy = malloc(n ? n : 1);
	memcpy(copy, data + 1, n);
	memset(&err, 0, sizeof(err));
	dv = ts_dv_decode(copy, n, length, "fuzz", &err);
	if (dv)
	{
		static const int64_t probes[] = {0, 1, 2, 63, 64, 65535, 65536, 1 << 20,
		INT32_MAX, (int64_t) INT32_MAX + 1, INT64_MAX, -1};

		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			(void) ts_dv_is_deleted(dv, probes[i]);
		(void) ts_dv_cardinality(dv);
		(void) ts_dv_is_64bit(dv);
		ts_dv_free(dv);
	}
	free(copy);
	return 0;
}
