/*
 * ts_utf8.h - a code point written as UTF-8.
 *
 * Owns: the one UTF-8 encoder of the code: a statistics bound's last code
 * point incremented (write/write_stats.c) and a JSON string's escapes
 * decoded (format/text/json_scan.c).  cp is a Unicode scalar value
 * (<= U+10FFFF, not a surrogate): the callers check that.
 */
#ifndef TS_UTF8_H
#define TS_UTF8_H

#include <stdint.h>

/* cp as 1 to 4 bytes at o; returns how many. */
static inline int
ts_utf8_put(uint32_t cp, uint8_t *o)
{
	if (cp < 0x80)
	{
		o[0] = (uint8_t) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		o[0] = (uint8_t) (0xC0 | (cp >> 6));
		o[1] = (uint8_t) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		o[0] = (uint8_t) (0xE0 | (cp >> 12));
		o[1] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
		o[2] = (uint8_t) (0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (uint8_t) (0xF0 | (cp >> 18));
	o[1] = (uint8_t) (0x80 | ((cp >> 12) & 0x3F));
	o[2] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
	o[3] = (uint8_t) (0x80 | (cp & 0x3F));
	return 4;
}

#endif							/* TS_UTF8_H */
