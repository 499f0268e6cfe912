/*
 * text_value.h - one Paimon value from its text spelling.
 *
 * Owns: the string -> type conversions that CSV fields, JSON string values
 * and format-table partition directory values go through (Paimon's
 * CsvParser.parseField and STRING -> type cast rules), and base64.
 *
 * Accepted spellings (after trimming ASCII whitespace, except for strings
 * and for integers in the CSV flavour, which are strict like Java's
 * Integer.parseInt):
 *   BOOLEAN   CSV: "true" (any case) = true, anything else false (Java
 *             Boolean.parseBoolean); CAST: t/true/y/yes/1, f/false/n/no/0.
 *   TINYINT..BIGINT  [+-]digits, range-checked; CAST also drops a
 *             fractional part ("1.9" -> 1).
 *   FLOAT/DOUBLE  strtof/strtod syntax incl. NaN, Infinity, inf, hex;
 *             a trailing f/F/d/D is allowed (Java).
 *   DECIMAL(p,s)  [+-]digits[.digits][e[+-]digits], rounded HALF_UP to s;
 *             more than p digits is an error (TS_ERR_RANGE; Paimon's cast
 *             would give NULL, which a reader must not do silently).
 *   CHAR/VARCHAR  the bytes as they are.
 *   BINARY/VARBINARY  base64 (RFC 4648, padding optional).
 *   DATE      yyyy-m-d (a time part after ' ' or 'T' is ignored).
 *   TIME      H:m[:s[.fffffffff]] -> millis of the day.
 *   TIMESTAMP yyyy-m-d[( |T)H:m[:s[.f{1,9}]]], fraction truncated to the
 *             type's precision.  TIMESTAMP_LTZ also takes a trailing Z or
 *             +hh[:mm] / -hh[:mm] offset and is otherwise read as UTC.
 * Nested types have no text form here (JSON builds them from its tree).
 */
#ifndef TS_TEXT_VALUE_H
#define TS_TEXT_VALUE_H

#include "base/ts_value.h"

typedef enum ts_text_flavor
{
	TS_TEXT_CAST,				/* Paimon STRING -> type cast (partition values, JSON) */
	TS_TEXT_CSV					/* CsvParser.parseField */
} ts_text_flavor;

/*
 * Parse s[0..len) as type t into *out.  Strings and binaries are copied
 * into arena (required for them).  Returns false with err set
 * (TS_ERR_CORRUPT, "invalid INT value \"x\"") when the text is malformed,
 * (TS_ERR_RANGE) when a decimal does not fit its precision.
 */
bool		ts_text_parse_value(const char *s, size_t len, const ts_type *t,
								ts_text_flavor flavor, ts_arena *arena,
								ts_value *out, ts_err *err);

/* Base64 decode (standard alphabet, '=' padding optional); false if malformed. */
bool		ts_base64_decode(const char *s, size_t len, uint8_t *dst, size_t *dst_len);

#endif							/* TS_TEXT_VALUE_H */
