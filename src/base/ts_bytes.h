/*
 * ts_bytes.h - fixed-width integers loaded from raw bytes.
 *
 * Owns: the one little- and big-endian byte reader of every decoder (file
 * indexes, blobs, roaring bitmaps, BinaryRow, the bounds-checked cursor of
 * ts_base.h).  The caller has checked that the bytes are there.
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

#endif							/* TS_BYTES_H */
