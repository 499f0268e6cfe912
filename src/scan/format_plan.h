/*
 * format_plan.h - planning a scan of a format table (PAIMON-FORMAT.md 8).
 *
 * Owns: what ts_scan_prepare / ts_scan_execute do when the table's merged
 * options say type=format-table: the data directory (option "path" of the
 * schema, else the table directory itself, whose "schema" directory is
 * then not data), the file format (file.format, or format), the partition
 * keys and their types from the read schema, partition pruning while
 * listing (partition_filter, and the predicate's leaves on partition
 * keys; leading equalities / IN lists start the listing deeper), one
 * split per data file with the partition values typed from the path, and
 * paimon-cpp's ListPartitions over a prepared plan.  Format tables have no
 * snapshot: time travel, branches and bucket_filter are refused.
 *
 * A format table's ts_scan_file carries a synthesized manifest entry
 * (file_name = path relative to the data directory, file_size from the
 * file system, row_count = an estimate of file_size / 64 bytes per row,
 * schema_id = the read schema's id, level 0, bucket 0, total_buckets -1)
 * so that code written for Paimon tables can show it; src/read treats
 * TS_TABLE_FORMAT files by the rules of format tables (partition columns
 * from the split, CSV columns by position among non-partition columns).
 */
#ifndef TS_FORMAT_PLAN_H
#define TS_FORMAT_PLAN_H

#include "scan/scan.h"
#include "scan/format_table.h"

/* Average bytes per row assumed for a format table's row_count estimate. */
#define TS_FT_EST_ROW_BYTES 64

/* Is this merged option list a format table's (type = format-table)? */
bool		ts_format_table_options(const ts_option *options, int noptions);

/*
 * Called by scan_resolve_table once the schema and merged options are
 * known and type = format-table: sets plan->kind, checks the file format,
 * the partition keys and the options a format table cannot honour.
 */
bool		ts_format_plan_resolve(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);

/* Called by ts_scan_execute for TS_TABLE_FORMAT: list, prune, build splits. */
bool		ts_format_plan_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);

/*
 * paimon-cpp's ListPartitions over a prepared format-table plan: the kept
 * partitions (ctx's partition_filter and predicate applied), sorted by
 * values in key order, NULL first; listing->key_names are the partition
 * keys.  TS_ERR_UNSUPPORTED ("NotImplemented") for other tables.  Free
 * with ts_ft_listing_free.
 */
ts_ft_listing *ts_format_plan_partitions(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);

/*
 * The same over the partitions a catalog names (REST list-partitions):
 * ts_format_table_partitions_given with the plan's keys, their types, the
 * filter and predicate.  Free with ts_ft_listing_free.
 */
ts_ft_listing *ts_format_plan_partitions_given(ts_plan *plan, const ts_scan_context *ctx,
											   int nparts, const ts_option *const *specs,
											   const int *nspecs, const char *what, ts_err *err);

/* The file format of a format-table plan (TS_FORMAT_UNKNOWN otherwise). */
ts_file_format ts_format_plan_file_format(const ts_plan *plan);

/*
 * A format table's schema JSON from a column list, for foreign tables
 * declared over a plain directory: fields get ids 0..n-1 in order, types
 * are Paimon type strings ("INT", "VARCHAR(20)", "DECIMAL(10, 2)",
 * "DATE"...), partition_keys is a comma-separated list of column names
 * (NULL or "" = unpartitioned), options get type=format-table and
 * file.format=format added.  Returns ts_malloc'd JSON or NULL with err
 * (a partition key that is not a column, an unknown type, an unknown
 * format).
 */
char	   *ts_format_table_schema_json(int ncolumns, const char *const *names,
										const char *const *types, const char *partition_keys,
										const char *format, ts_err *err);

#endif							/* TS_FORMAT_PLAN_H */
