/*
 * ts_roaring_check.h - reading a portable Roaring bitmap from untrusted
 * bytes without trusting libroaring 0.2 to check it (roaring_check.c).
 */
#ifndef TS_ROARING_CHECK_H
#define TS_ROARING_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <roaring/roaring.h>

/* Bytes of the well-formed portable Roaring bitmap at buf, 0 if it is not one. */
size_t		ts_roaring_check(const uint8_t *buf, size_t len);

/*
 * Deserialize the portable Roaring bitmap at p (at most max bytes) after
 * checking its structure; *used (if not NULL) = bytes taken.  NULL when the
 * bytes are not a well-formed bitmap (or out of memory); the caller names
 * the file in its error.
 */
roaring_bitmap_t *ts_roaring_read(const uint8_t *p, size_t max, size_t *used);

#endif
