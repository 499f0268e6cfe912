/*
 * cast_internal.h - what cast.c (the matrix and the dispatch) and
 * cast_text.c (Java's text forms and parsers) share.
 */
#ifndef TS_CAST_INTERNAL_H
#define TS_CAST_INTERNAL_H

#include "read/cast.h"

#define MILLIS_PER_DAY 86400000LL
/* BigDecimal's exponent is an int: its text form takes up to 9 digits */
#define CAST_MAX_EXPONENT 999999999

static inline bool
ts_cast_is_char(ts_type_kind k)
{
	return k == TS_CHAR || k == TS_VARCHAR;
}

static inline bool
ts_cast_is_bin(ts_type_kind k)
{
	return k == TS_BINARY || k == TS_VARBINARY;
}

/* cast.c: the session zone (UTC when none is installed) */
int64_t		ts_cast_utc_to_local_ms(int64_t utc_ms);
int64_t		ts_cast_local_to_utc_ms(int64_t local_ms);

/* cast_text.c */

/* DateTimeUtils.truncate(ts, precision) */
void		ts_cast_truncate(int64_t *millis, int32_t *nanos, int precision);

/* BinaryStringUtils.toCharacterString / toBinaryString (pad, trim) */
bool		ts_cast_to_character_string(const ts_type *to, const uint8_t *p, uint32_t len,
										ts_value *out, ts_arena *arena, ts_err *err);
bool		ts_cast_to_binary_string(const ts_type *to, const uint8_t *p, uint32_t len,
									 ts_value *out, ts_arena *arena, ts_err *err);

/* TS_ERR_INVALID "cannot cast string '...' to TYPE"; returns false */
bool		ts_cast_bad_input(ts_err *err, const uint8_t *p, uint32_t len, const ts_type *to);

/* a value's ts_value_to_string text (Java toString forms) into the arena */
bool		ts_cast_value_text(const ts_value *in, const ts_type *from, ts_arena *arena,
							   const uint8_t **p, uint32_t *len, ts_err *err);

/* StringTo*CastRule: parse text into a value of 'to' (not CHAR / VARCHAR) */
bool		ts_cast_from_string(const uint8_t *p, uint32_t len, const ts_type *to,
								ts_value *out, ts_arena *arena, ts_err *err);

/* *ToStringCastRule: Java's text of a value (no pad / trim) into the arena */
bool		ts_cast_string_form(const ts_value *in, const ts_type *from, ts_arena *arena,
								const uint8_t **p, uint32_t *len, ts_err *err);

#endif							/* TS_CAST_INTERNAL_H */
