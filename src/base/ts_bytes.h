/*
 * ts_bytes.h - fixed-width integers loaded from and stored to raw bytes.
 *
 * Owns: the one little- and big-endian byte reader of every decoder (file
 * indexes, blobs, roaring bitmaps, BinaryRow, the bounds-checked cursor of
 * ts_base.h), and the one byte writer of every encoder (BinaryRow, the
 * Parquet, ORC and Avro writers).  The caller has checked that the bytes
 * are there (or reserved them).
 */
#ifndef TS_BYTES_H
#define TS_BYTES_H

#include <stdint.h>

static inline uint16_t
ts_load_le16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
ts_load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline uint64_t
ts_load_le64(const uint8_t *p)
{
	return (uint64_t) ts_load_le32(p) | ((uint64_t) ts_load_le32(p + 4) << 32);
}

static inline uint16_t
ts_load_be16(const uint8_t *p)
{
	return (uint16_t) ((p[0] << 8) | p[1]);
}

static inline uint32_t
ts_load_be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline uint64_t
ts_load_be64(const uint8_t *p)
{
	return ((uint64_t) ts_load_be32(p) << 32) | ts_load_be32(p + 4);
}

/* v little-endian in the n bytes at p (n <= 8), low byte first */
static inline void
ts_store_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
ts_store_le16(uint8_t *p, uint16_t v)
{
	ts_store_le(p, v, 2);
}

static inline void
ts_store_le32(uint8_t *p, uint32_t v)
{
	ts_store_le(p, v, 4);
}

static inline void
ts_store_le64(uint8_t *p, uint64_t v)
{
	ts_store_le(p, v, 8);
}

/* v big-endian in the n bytes at p (n <= 8), high byte first */
static inline void
ts_store_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--)
	{
		p[i] = (uint8_t) v;
		v >>= 8;
	}
}

static inline void
ts_store_be32(uint8_t *p, uint32_t v)
{
	ts_store_be(p, v, 4);
}

#endif							/* TS_BYTES_H */
