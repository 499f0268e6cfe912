/*
 * partition.h - Paimon partition values as text (PAIMON-FORMAT.md 1.4).
 *
 * Owns: (a) the partition path string Java computes for a partition row
 * ("k1=v1/k2=v2/", legacy-name or cast-to-string values, default-name
 * substitution for null/empty/whitespace-only values, %XY escaping);
 * (b) the reverse for user input: a partition_filter value string (as it
 * appears in a path, e.g. "10", "__DEFAULT_PARTITION__", "2024-01-01")
 * parsed into a ts_value of the key's type; (c) a display rendering of a
 * partition value (for jsonb / messages).  Also the small text parsers
 * (decimal, date, timestamp) they need, shared with tests and src/scan;
 * escaping (ts_partition_escape) and the digit-level scanners and
 * calendar (ts_days_from_civil) live in src/base.
 * Values always come from the _PARTITION BinaryRow; paths are computed,
 * never parsed back into values.
 */
#ifndef TS_PARTITION_H
#define TS_PARTITION_H

#include "base/ts_path_escape.h"
#include "base/ts_text_scan.h"
#include "base/ts_value.h"
#include "meta/schema.h"

#define TS_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

typedef struct ts_partition_options
{
	bool		legacy_name;	/* partition.legacy-name (default true) */
	const char *default_name;	/* partition.default-name (not copied) */
} ts_partition_options;

/*
 * Options from a schema (partition.legacy-name, partition.default-name);
 * default_name points into the schema.  TS_ERR_INVALID for a
 * legacy-name value other than true/false.
 */
bool		ts_partition_options_from_schema(const ts_schema *s, ts_partition_options *opts, ts_err *err);

/*
 * The string Java puts in the path for one partition value, before
 * escaping and before default-name substitution (*out = NULL for a NULL
 * value).  ts_malloc'd.  TS_ERR_UNSUPPORTED for types whose Java text is
 * not reproducible (BINARY with legacy names, TIMESTAMP_LTZ with
 * non-legacy names, nested types).
 */
bool		ts_partition_value_string(const ts_value *v, const ts_type *t, bool legacy_name,
									  char **out, ts_err *err);

/* Java StringUtils.isNullOrWhitespaceOnly over UTF-8 text (NULL => true). */
bool		ts_partition_is_blank(const char *s);

/*
 * "k1=v1/k2=v2/" for n partition keys (empty string for n = 0), exactly
 * as FileStorePathFactory.getPartitionString computes it.  ts_malloc'd.
 */
char	   *ts_partition_path(const char *const *keys, const ts_type *const *types,
							  const ts_value *values, int n,
							  const ts_partition_options *opts, ts_err *err);

/*
 * Parse one partition_filter value (path-style text, unescaped) into a
 * value of type t.  The default name gives a NULL value.  Strings and
 * binaries are copied into 'arena' (or point into 'text' when arena is
 * NULL).  DATE accepts days since epoch ("19723", the legacy path form)
 * or yyyy-mm-dd; TIMESTAMP accepts yyyy-mm-dd[T| ]HH:MM[:SS[.fffffffff]];
 * TIME accepts millis of day or HH:MM:SS[.fff].  TS_ERR_INVALID names the
 * value when it does not parse or fit.
 */
bool		ts_partition_parse_value(const char *text, const ts_type *t,
									 const ts_partition_options *opts,
									 ts_value *out, ts_arena *arena, ts_err *err);

/*
 * Display text of a partition value for jsonb/EXPLAIN: *out = NULL for
 * NULL; strings as is; DATE yyyy-mm-dd; TIMESTAMP yyyy-mm-dd HH:MM:SS[.f]
 * (LTZ in UTC with "+00"); DECIMAL plain; binaries \x hex.  ts_malloc'd.
 */
bool		ts_partition_value_display(const ts_value *v, const ts_type *t, char **out, ts_err *err);

/* ---- text parsers shared with tests / src/scan ------------------------ */

/* "[-]digits[.digits]" scaled to 'scale' exactly; must fit 'precision'. */
bool		ts_parse_decimal_text(const char *s, size_t len, int precision, int scale,
								  ts_int128 *out, ts_err *err);
/* "[+-]yyyy-mm-dd" -> days since epoch. */
bool		ts_parse_date_text(const char *s, size_t len, int64_t *days, ts_err *err);
/* "yyyy-mm-dd[T| ]HH:MM[:SS[.f{1,9}]][Z]" -> epoch millis + nanos of milli. */
bool		ts_parse_timestamp_text(const char *s, size_t len, int64_t *millis, int32_t *nanos,
									ts_err *err);

#endif							/* TS_PARTITION_H */
