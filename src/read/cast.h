/*
 * cast.h - Paimon's cast semantics (CastExecutors) for schema evolution.
 *
 * Owns: converting a value read in the type a file was written with into
 * the type of the table's read schema after ALTER TABLE ... MODIFY COLUMN,
 * for every pair Java Paimon allows (the matrix in cast.c names the
 * org.apache.paimon.casting rule of each); every other pair of types is
 * TS_ERR_UNSUPPORTED (checked once per file, before any row is produced).
 * Nested ROW values are re-mapped by field id.
 */
#ifndef TS_CAST_H
#define TS_CAST_H

#include "base/ts_value.h"

/*
 * The session time zone, as Java's TimeZone.getDefault() in the casts that
 * involve TIMESTAMP WITH LOCAL TIME ZONE: a function giving the offset east
 * of UTC, in seconds, in force at a UTC instant (seconds since the epoch).
 * NULL (the default) = UTC.  The FDW installs PostgreSQL's TimeZone.
 */
typedef int32_t (*ts_zone_offset_fn) (int64_t utc_secs);

void		ts_cast_set_session_zone(ts_zone_offset_fn fn);

/*
 * The Java rule (CastExecutors) a cast from 'from' to 'to' reproduces:
 * "identity" when no cast is needed, NULL when Java refuses the pair.
 */
const char *ts_cast_rule_name(const ts_type *from, const ts_type *to);

/*
 * True if a value of type 'from' must be converted to be a value of 'to'
 * (nullability ignored; nested ROW fields compared by field id, so a
 * reordered/added/dropped nested field needs a "cast").
 */
bool		ts_cast_needed(const ts_type *from, const ts_type *to);

/*
 * True if the cast is implemented; otherwise TS_ERR_UNSUPPORTED naming both
 * types and 'column'.
 */
bool		ts_cast_check(const ts_type *from, const ts_type *to, const char *column, ts_err *err);

/*
 * Cast one value.  Strings and nested values produced live in 'arena'.
 * Values that do not fit (decimal overflow) become NULL as in Paimon;
 * unparsable strings fail with TS_ERR_INVALID naming the value.
 */
bool		ts_cast_value(const ts_value *in, const ts_type *from, const ts_type *to,
						  ts_value *out, ts_arena *arena, ts_err *err);

#endif							/* TS_CAST_H */
