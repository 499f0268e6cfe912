/*
 * stats.h - decoding SimpleStats (min/max BinaryRows + null counts) into
 * per-column values (PAIMON-FORMAT.md 4.6, 10.1, 10.2 step 1).
 *
 * Owns: expanding a file's value stats (dense _VALUE_STATS_COLS subsets
 * or all columns) or key stats to one entry per column of the file's
 * schema, with "unknown" wherever the stats say nothing (column absent
 * from a dense subset, arity shorter than expected, null min/max field,
 * null count null or missing, nested types).  Mapping the file schema's
 * columns to the read schema (by field id) and deciding what may be
 * skipped are src/scan's business.
 */
#ifndef TS_STATS_H
#define TS_STATS_H

#include "base/ts_value.h"
#include "meta/manifest.h"

typedef struct ts_column_stats
{
	ts_value	min;			/* isnull = unknown (or no non-null value) */
	ts_value	max;			/* isnull = unknown */
	int64_t		null_count;		/* -1 = unknown */
} ts_column_stats;

/*
 * Decode 'stats' for the ncols columns (names + types as of the file's
 * schema).  stats_cols/nstats_cols: the entry's _VALUE_STATS_COLS
 * (nstats_cols = -1 when null: stats cover all ncols columns in order;
 * 0 = no value stats).  out[0..ncols-1] is filled.  Values point into the
 * stats bytes; 'arena' is for anything else decoded.  Names in
 * stats_cols that are not columns are TS_ERR_CORRUPT; a malformed row is
 * TS_ERR_CORRUPT; types the BinaryRow decoder cannot read yet (nested
 * ARRAY/MAP/ROW, VARIANT...) are left unknown.
 */
bool		ts_stats_decode(const ts_simple_stats *stats,
							const ts_type *const *col_types, const char *const *col_names, int ncols,
							char *const *stats_cols, int nstats_cols,
							ts_arena *arena, ts_column_stats *out, ts_err *err);

#endif							/* TS_STATS_H */
