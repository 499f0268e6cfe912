/*
 * avro_flat.h - the fast path of the Avro decoder for flat top-level records.
 *
 * Owns: compiling a top-level record plan whose writer fields are all
 * primitives or ["null", primitive] unions (what Paimon writes for tables
 * of scalar columns) into a list of steps, one per writer field, and
 * decoding rows by walking that list: no plan nodes, no per-field choice
 * between skipping, unions and conversions.  Same results and the same
 * checks as the general decoder (avro_decode.c), which handles every
 * other shape.  Private to src/format/avro.
 */
#ifndef TS_AVRO_FLAT_H
#define TS_AVRO_FLAT_H

#include "format/avro/avro_plan.h"

/*
 * The step list of record plan 'rec' (CV_RECORD, top level), in 'arena';
 * NULL when the record is not flat (the general decoder reads it), or out
 * of memory (*err set, returns false through *ok).
 */
const ts_avro_flat *ts_avro_flat_build(const ts_avro_plan *rec, ts_arena *arena,
									   bool *ok, ts_err *err);

/*
 * Decode nrows objects from cur into out (nout values per row, row after
 * row).  Returns the number of objects decoded: nrows, or fewer with *err
 * set on the first bad one (cur is then left inside it).
 */
int			ts_avro_flat_decode(const ts_avro_flat *f, ts_cursor *cur, ts_value *out,
								int nrows, ts_err *err);

#endif							/* TS_AVRO_FLAT_H */
