/*
 * deletion_vector.c - load and query Paimon deletion vectors.
 *
 * Owns: the two on-disk DV layouts of PAIMON-FORMAT.md 7.6.
 *   32-bit: int32 BE size | int32 BE magic 1581511376 | portable Roaring
 *           | int32 BE CRC32(magic + bitmap)
 *   64-bit: int32 BE size | LE { int32 magic 1681511377, int64 count,
 *           count x (int32 key, portable Roaring) } | int32 BE CRC32
 * Roaring bitmaps are checked (base/ts_roaring_check.h) before libroaring's
 * portable deserializer reads them; every length is checked before use.
 */
#include <string.h>
#include <zlib.h>
#include <roaring/roaring.h>

#include "base/ts_fs.h"
#include "base/ts_ranges.h"
#include "base/ts_roaring_check.h"
#include "read/deletion_vector.h"

#define DV_MAGIC32 1581511376u
#define DV_MAGIC64 1681511377u
/* a DV larger than this is not something Paimon writes: refuse */
#define DV_MAX_BYTES ((int64_t) 1 << 30)

#define Min64(a, b) ((a) < (b) ? (a) : (b))

struct ts_deletion_vector
{
	bool		is64;
	int			nbitmaps;		/* 1 for 32-bit */
	uint32_t   *keys;			/* high 32 bits per bitmap (64-bit only) */
	roaring_bitmap_t **bitmaps;
	int64_t		cardinality;
};

void
ts_dv_free(ts_deletion_vector *dv)
{
	if (dv == NULL)
		return;
	for (int i = 0; i < dv->nbitmaps; i++)
		if (dv->bitmaps[i])
			roaring_bitmap_free(dv->bitmaps[i]);
	ts_free(dv->bitmaps);
	ts_free(dv->keys);
	ts_free(dv);
}

/*
 * Deserialize one portable Roaring bitmap, consuming exactly its bytes.
 * Its structure is checked first: libroaring 0.2 accepts bitmaps (a run
 * past 65535, unsorted arrays) that later make it read out of bounds.
 */
static roaring_bitmap_t *
read_roaring(ts_cursor *c, const char *what, ts_err *err)
{
	size_t		left = ts_cursor_left(c);
	size_t		used = 0;
	roaring_bitmap_t *rb;

	if (left == 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": truncated bitmap", what);
		return NULL;
	}
	rb = ts_roaring_read(c->p, left, &used);
	if (rb == NULL)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": invalid Roaring bitmap", what);
		return NULL;
	}
	c->p += used;
	return rb;
}

ts_deletion_vector *
ts_dv_decode(const uint8_t *bytes, size_t len, int64_t length, const char *what, ts_err *err)
{
	ts_cursor	c;
	uint32_t	size,
				magic_be,
				crc_stored;
	uint32_t	crc;
	const uint8_t *body;
	ts_deletion_vector *dv;

	ts_cursor_init(&c, bytes, len);
	if (!ts_cursor_be32(&c, &size, err))
	{
		ts_error_context(err, "deletion vector in \"%s\"", what);
		return NULL;
	}
	if (size < 4 || (size_t) size > ts_cursor_left(&c) || ts_cursor_left(&c) - size < 4)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": size %u out of range", what, size);
		return NULL;
	}
	body = c.p;
	crc_stored = ts_load_be32(body + size);
	crc = (uint32_t) crc32(0L, body, size);
	if (crc != crc_stored)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": CRC mismatch (stored %08x, computed %08x)",
				 what, crc_stored, crc);
		return NULL;
	}
	magic_be = ts_load_be32(body);

	dv = ts_calloc(1, sizeof(*dv));
	if (dv == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_cursor_init(&c, body + 4, size - 4);

	if (magic_be == DV_MAGIC32)
	{
		if (length >= 0 && length != (int64_t) size)
		{
			ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": length %lld does not match size %u",
					 what, (long long) length, size);
			goto fail;
		}
		dv->is64 = false;
		dv->nbitmaps = 1;
		dv->bitmaps = ts_calloc(1, sizeof(roaring_bitmap_t *));
		if (dv->bitmaps == NULL)
		{
			ts_error_nomem(err, NULL);
			goto fail;
		}
		dv->bitmaps[0] = read_roaring(&c, what, err);
		if (dv->bitmaps[0] == NULL)
			goto fail;
		dv->cardinality = (int64_t) roaring_bitmap_get_cardinality(dv->bitmaps[0]);
	}
	else if (ts_load_le32(body) == DV_MAGIC64)
	{
		uint64_t	count;

		if (length >= 0 && length != (int64_t) size + 8)
		{
			ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": length %lld does not match size %u",
					 what, (long long) length, size);
			goto fail;
		}
		dv->is64 = true;
		if (!ts_cursor_le64(&c, &count, err))
		{
			ts_error_context(err, "deletion vector in \"%s\"", what);
			goto fail;
		}
		/* each bitmap needs at least a 4-byte key and an 8-byte header */
		if (count > ts_cursor_left(&c) / 12)
		{
			ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": bitmap count %llu out of range",
					 what, (unsigned long long) count);
			goto fail;
		}
		if (count > 0)
		{
			dv->keys = ts_calloc(count, sizeof(uint32_t));
			dv->bitmaps = ts_calloc(count, sizeof(roaring_bitmap_t *));
			if (dv->keys == NULL || dv->bitmaps == NULL)
			{
				ts_error_nomem(err, NULL);
				goto fail;
			}
		}
		for (uint64_t i = 0; i < count; i++)
		{
			uint32_t	key;

			if (!ts_cursor_le32(&c, &key, err))
			{
				ts_error_context(err, "deletion vector in \"%s\"", what);
				goto fail;
			}
			if (i > 0 && key <= dv->keys[i - 1])
			{
				ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": bitmap keys not ascending", what);
				goto fail;
			}
			dv->keys[i] = key;
			dv->bitmaps[i] = read_roaring(&c, what, err);
			dv->nbitmaps = (int) i + 1;
			if (dv->bitmaps[i] == NULL)
				goto fail;
			dv->cardinality += (int64_t) roaring_bitmap_get_cardinality(dv->bitmaps[i]);
		}
	}
	else
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": bad magic number %08x", what, magic_be);
		goto fail;
	}
	if (ts_cursor_left(&c) != 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": %zu trailing bytes",
				 what, ts_cursor_left(&c));
		goto fail;
	}
	return dv;

fail:
	ts_dv_free(dv);
	return NULL;
}

ts_deletion_vector *
ts_dv_load(ts_fs *fs, const char *path, int64_t offset, int64_t length, ts_err *err)
{
	ts_file    *f;
	int64_t		fsize;
	uint8_t		version;
	uint32_t	size;
	uint8_t    *buf = NULL;
	int64_t		have = 4;		/* bytes of the DV read at offset */
	ts_range	rng[2];
	ts_deletion_vector *dv = NULL;

	f = ts_file_open(fs, path, err);
	if (f == NULL)
		return NULL;
	fsize = ts_file_size(f);
	if (fsize < 1)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector file \"%s\" is empty", path);
		goto done;
	}
	if (offset < 1 || offset > fsize - 4)
	{
		if (!ts_file_pread(f, &version, 1, 0, err))
			goto done;
		if (version != 1)
			ts_error(err, TS_ERR_CORRUPT, "deletion vector file \"%s\": unsupported version %d", path, version);
		else
			ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\": offset %lld out of range (file has %lld bytes)",
					 path, (long long) offset, (long long) fsize);
		goto done;
	}

	/*
	 * The version byte and the DV in one read (on an object store one
	 * round trip): with the index manifest's length, length + 8 bytes
	 * cover a 32-bit DV (size int, magic and bitmap = length, CRC) and a
	 * 64-bit one (length covers it all), as far as the file goes; without
	 * it, the size int first.
	 */
	if (length > 0 && length <= DV_MAX_BYTES)
		have = length + 8 < fsize - offset ? length + 8 : fsize - offset;
	buf = ts_malloc((size_t) have);
	if (buf == NULL)
	{
		ts_error_nomemf(err, "reading deletion vector \"%s\"", path);
		goto done;
	}
	rng[0].offset = 0;
	rng[0].len = 1;
	rng[0].buf = &version;
	rng[1].offset = offset;
	rng[1].len = (size_t) have;
	rng[1].buf = buf;
	if (!ts_file_pread_many(f, rng, 2, err))
		goto done;
	if (version != 1)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector file \"%s\": unsupported version %d", path, version);
		goto done;
	}
	size = ts_load_be32(buf);
	if ((int64_t) size > DV_MAX_BYTES || offset + 4 + (int64_t) size + 4 > fsize)
	{
		ts_error(err, TS_ERR_CORRUPT, "deletion vector in \"%s\" at offset %lld: size %u out of range",
				 path, (long long) offset, size);
		goto done;
	}
	if ((int64_t) size + 8 > have)
	{
		/* the length did not cover it (or was not known): read the rest */
		uint8_t    *nb = ts_realloc(buf, (size_t) size + 8);

		if (nb == NULL)
		{
			ts_error_nomemf(err, "reading deletion vector \"%s\"", path);
			goto done;
		}
		buf = nb;
		if (!ts_file_pread(f, buf + have, (size_t) (size + 8 - have), offset + have, err))
			goto done;
	}
	dv = ts_dv_decode(buf, (size_t) size + 8, length, path, err);

done:
	ts_free(buf);
	ts_file_close(f);
	return dv;
}

bool
ts_dv_is_deleted(const ts_deletion_vector *dv, int64_t position)
{
	uint32_t	hi,
				lo;

	if (dv == NULL || position < 0)
		return false;
	hi = (uint32_t) ((uint64_t) position >> 32);
	lo = (uint32_t) position;
	if (!dv->is64)
		return hi == 0 && roaring_bitmap_contains(dv->bitmaps[0], lo);
	/* binary search the key */
	{
		int			a = 0,
					b = dv->nbitmaps - 1;

		while (a <= b)
		{
			int			m = a + (b - a) / 2;

			if (dv->keys[m] == hi)
				return roaring_bitmap_contains(dv->bitmaps[m], lo);
			if (dv->keys[m] < hi)
				a = m + 1;
			else
				b = m - 1;
		}
	}
	return false;
}

int64_t
ts_dv_cardinality(const ts_deletion_vector *dv)
{
	return dv ? dv->cardinality : 0;
}

int64_t
ts_dv_count_below(const ts_deletion_vector *dv, int64_t n)
{
	int64_t		count = 0;

	if (dv == NULL || n <= 0)
		return 0;
	if (!dv->is64)
		return (int64_t) roaring_bitmap_range_cardinality(dv->bitmaps[0], 0,
														  (uint64_t) Min64(n, (int64_t) 1 << 32));
	for (int i = 0; i < dv->nbitmaps; i++)
	{
		int64_t		base = (int64_t) dv->keys[i] << 32;

		if (base >= n)
			break;				/* keys are ascending */
		count += (int64_t) roaring_bitmap_range_cardinality(dv->bitmaps[i], 0,
															(uint64_t) Min64(n - base, (int64_t) 1 << 32));
	}
	return count;
}

bool
ts_dv_is_64bit(const ts_deletion_vector *dv)
{
	return dv && dv->is64;
}
