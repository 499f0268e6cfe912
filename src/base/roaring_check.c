/*
 * roaring_check.c - checking a portable Roaring bitmap before libroaring
 * reads it (file indexes and deletion vectors both come from files that
 * may be corrupt or hostile).
 *
 * Owns: the structural check of the portable format (RoaringFormatSpec:
 * cookie 12346 with a container count, or 12347 with the count and a
 * run-container bitset; per container a 16-bit key and cardinality - 1;
 * the offsets; array, bitset and run containers) that Debian's libroaring
 * 0.2 does not do: its "safe" deserializer checks lengths only, and a run
 * past 65535, an unsorted array or keys out of order make its later
 * operations read out of bounds.  Keys must increase, arrays be sorted,
 * runs be sorted, apart and inside 0..65535, and every cardinality match
 * the container.  Returns the bytes the bitmap takes, 0 when it is not
 * well-formed.  ts_roaring_read() checks, then deserializes.
 */
#include <string.h>

#include "base/ts_bytes.h"
#include "base/ts_roaring_check.h"

#define COOKIE_NO_RUN 12346
#define COOKIE_RUN 12347
#define NO_OFFSET_THRESHOLD 4
#define ARRAY_MAX 4096

size_t
ts_roaring_check(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf;
	const uint8_t *end = buf + len;
	const uint8_t *runflags = NULL;
	const uint8_t *header;
	uint32_t	cookie,
				n;
	int64_t		prev_key = -1;

	if (len < 4)
		return 0;
	cookie = ts_load_le32(p);
	if ((cookie & 0xFFFF) == COOKIE_RUN)
	{
		n = (cookie >> 16) + 1;
		p += 4;
		if ((size_t) (end - p) < (n + 7) / 8)
			return 0;
		runflags = p;
		p += (n + 7) / 8;
	}
	else if (cookie == COOKIE_NO_RUN)
	{
		if (len < 8)
			return 0;
		n = ts_load_le32(p + 4);
		p += 8;
		if (n > 65536)
			return 0;
	}
	else
		return 0;
	if ((size_t) (end - p) < (size_t) n * 4)
		return 0;
	header = p;
	p += (size_t) n * 4;
	if (runflags == NULL || n >= NO_OFFSET_THRESHOLD)
	{
		if ((size_t) (end - p) < (size_t) n * 4)
			return 0;
		p += (size_t) n * 4;	/* offsets: the containers follow in order */
	}
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	key = ts_load_le16(header + 4 * i);
		uint32_t	card = ts_load_le16(header + 4 * i + 2) + 1;
		bool		run = runflags && (runflags[i / 8] >> (i % 8)) & 1;

		if ((int64_t) key <= prev_key)
			return 0;
		prev_key = key;
		if (run)
		{
			uint32_t	nruns,
						total = 0;
			int64_t		prev_end = -2;

			if (end - p < 2)
				return 0;
			nruns = ts_load_le16(p);
			p += 2;
			if ((size_t) (end - p) < (size_t) nruns * 4 || nruns == 0)
				return 0;
			for (uint32_t r = 0; r < nruns; r++)
			{
				uint32_t	start = ts_load_le16(p + 4 * r);
				uint32_t	length = ts_load_le16(p + 4 * r + 2);

				/* sorted, apart (not even adjacent), inside the container */
				if ((int64_t) start <= prev_end + 1 || start + length > 65535)
					return 0;
				prev_end = start + length;
				total += length + 1;
			}
			if (total != card)
				return 0;
			p += (size_t) nruns * 4;
		}
		else if (card > ARRAY_MAX)
		{
			uint32_t	bits = 0;

			if (end - p < 8192)
				return 0;
			for (int w = 0; w < 8192; w++)
				bits += (uint32_t) __builtin_popcount(p[w]);
			if (bits != card)
				return 0;
			p += 8192;
		}
		else
		{
			int64_t		prev = -1;

			if ((size_t) (end - p) < (size_t) card * 2)
				return 0;
			for (uint32_t v = 0; v < card; v++)
			{
				uint32_t	x = ts_load_le16(p + 2 * v);

				if ((int64_t) x <= prev)
					return 0;
				prev = x;
			}
			p += (size_t) card * 2;
		}
	}
	return (size_t) (p - buf);
}

roaring_bitmap_t *
ts_roaring_read(const uint8_t *p, size_t max, size_t *used)
{
	size_t		n;
	roaring_bitmap_t *b;

	if (max == 0)
		return NULL;
	/* libroaring 0.2 checks lengths, not contents: check them first */
	n = ts_roaring_check(p, max);
	if (n == 0 || n != roaring_bitmap_portable_deserialize_size((const char *) p, max))
		return NULL;
	b = roaring_bitmap_portable_deserialize_safe((const char *) p, n);
	if (b != NULL && used)
		*used = n;
	return b;
}
