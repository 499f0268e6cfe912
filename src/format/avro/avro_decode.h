/*
 * avro_decode.h - decode Avro binary records straight into ts_value.
 *
 * Owns: the "read plan" that pairs a writer schema node with the Paimon
 * type a caller wants (resolution by name, type conversions decided once
 * at open), the bounds-checked decoder that follows it, and the skipper
 * for fields nobody asked for.  Knows nothing about files or blocks.
 */
#ifndef TS_AVRO_DECODE_H
#define TS_AVRO_DECODE_H

#include "format/avro/avro_schema.h"

typedef struct ts_avro_plan ts_avro_plan;

/*
 * Build the plan for the top-level writer schema 'root' (a record, or a
 * union ["null", record]) and the requested columns (names + Paimon
 * types).  Columns the record lacks read as NULL.  Plan memory lives in
 * 'arena'.  TS_ERR_UNSUPPORTED naming the column when a conversion is
 * impossible; 'what' (the file) is named too.
 */
ts_avro_plan *ts_avro_plan_top(const ts_avro_node *root,
							   const char *const *names, const ts_type *const *types, int ncols,
							   ts_arena *arena, const char *what, ts_err *err);

/*
 * Decode one top-level object from cur into out[0..ncols-1] (which must
 * be ncols values).  Bytes point into cur's buffer; nested values are
 * allocated in 'arena'.
 */
bool		ts_avro_decode_top(const ts_avro_plan *plan, ts_cursor *cur,
							   ts_value *out, ts_arena *arena, ts_err *err);

/* Skip one value of writer node n. */
bool		ts_avro_skip(const ts_avro_node *n, ts_cursor *cur, ts_err *err);

#endif							/* TS_AVRO_DECODE_H */
