/*
 * cast.h - Paimon's cast semantics (CastExecutors) for schema evolution.
 *
 * Owns: converting a value read in the type a file was written with into
 * the type of the table's read schema after ALTER TABLE ... MODIFY COLUMN.
 * Follows org.apache.paimon.casting.* for the rules implemented; every
 * other pair of types is TS_ERR_UNSUPPORTED (checked once per file, before
 * any row is produced).  Nested ROW values are re-mapped by field id.
 */
#ifndef TS_CAST_H
#define TS_CAST_H

#include "base/ts_value.h"

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
