/*
 * scan.h - the table scan: from a table path and scan options to a plan.
 *
 * Owns: the seed's ScanContextBuilder / TableScan / Plan / Split in C.
 * Resolves the table (schema, merged options, branch), picks the snapshot,
 * reads manifest lists and manifests, merges ADD/DELETE into the live file
 * set, prunes (partition filter, predicate, bucket, stats), attaches
 * deletion vectors and groups the surviving files into splits.  Knows
 * nothing about PostgreSQL; all results live in the plan's arena.
 */
#ifndef TS_SCAN_H
#define TS_SCAN_H

#include "base/ts_value.h"
#include "format/format.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "meta/manifest.h"

struct ts_predicate;			/* scan/predicate.h */

/* One option as a key/value pair (Paimon's own keys, e.g. scan.snapshot-id). */
typedef struct ts_option
{
	const char *key;
	const char *value;
} ts_option;

/* What the caller asks for (the seed's ScanContextBuilder). */
typedef struct ts_scan_context
{
	const char *table_path;		/* table root (required) */
	/*
	 * Options in increasing priority, already merged by the caller except
	 * for the table schema's own options, which the scan puts below them.
	 */
	int			noptions;
	const ts_option *options;
	const char *table_schema_json;	/* SetTableSchema; NULL = load from disk */
	const struct ts_predicate *predicate;	/* over the read schema; may be NULL */
	/* partition_filter: OR of ANDs of key = partition path string */
	int			npartition_filters;
	const ts_option *const *partition_filters;	/* each a list terminated by {NULL,NULL} */
	bool		has_bucket_filter;
	int32_t		bucket_filter;
	int64_t		limit;			/* -1 = unlimited */
	bool		enable_pruning;
} ts_scan_context;

/* One data file the executor will read. */
typedef struct ts_scan_file
{
	const ts_manifest_entry *entry;
	char	   *path;			/* full path (external path resolved) */
	ts_file_format format;		/* from the file name's extension */
	/* deletion vector, if any */
	char	   *dv_path;
	int64_t		dv_offset;
	int64_t		dv_length;
	int64_t		dv_cardinality;	/* -1 unknown */
} ts_scan_file;

typedef struct ts_split
{
	ts_bytes	partition;		/* serialized BinaryRow */
	ts_value   *partition_values;	/* decoded, one per partition key */
	int32_t		bucket;
	int32_t		total_buckets;
	int			nfiles;
	ts_scan_file *files;
	bool		raw_convertible;	/* files can be read one by one */
} ts_split;

/* The seed's Metrics: what planning did. */
typedef struct ts_scan_metrics
{
	int64_t		manifests_read;
	int64_t		manifests_skipped;
	int64_t		entries_read;
	int64_t		files_total;		/* live files considered */
	int64_t		files_kept;
	int64_t		files_pruned_partition;
	int64_t		files_pruned_bucket;
	int64_t		files_pruned_stats;
	int64_t		partitions_total;
	int64_t		partitions_kept;
	int64_t		buckets_total;
	int64_t		buckets_kept;
	bool		cache_hit;
	double		planning_ms;
} ts_scan_metrics;

typedef enum ts_table_kind
{
	TS_TABLE_APPEND,
	TS_TABLE_PRIMARY_KEY,
	TS_TABLE_FORMAT
} ts_table_kind;

typedef struct ts_plan
{
	ts_arena	arena;
	char	   *table_path;
	char	   *branch_root;
	ts_table_kind kind;
	ts_schema  *schema;			/* read schema (latest, or the snapshot's) */
	ts_snapshot *snapshot;		/* NULL: table has no snapshot (0 rows) */
	/* merged options: schema < context */
	int			noptions;
	ts_option  *options;
	int			nsplits;
	ts_split   *splits;
	ts_scan_metrics metrics;
	/* why bucket pruning did or did not happen, for EXPLAIN */
	char	   *bucket_pruning;
	/* loaded schemas by id, for reading files of older schemas */
	int			nschemas;
	ts_schema **schemas;
	/*
	 * The predicate the plan was pruned with (owned by the caller, who
	 * keeps it alive as long as the plan): readers use it to skip row
	 * groups / stripes of append-table files by their statistics.
	 */
	const struct ts_predicate *predicate;
} ts_plan;

ts_plan    *ts_scan_plan(const ts_scan_context *ctx, ts_err *err);

/*
 * ts_scan_plan in two steps, for callers that need the read schema before
 * they can build the predicate (the FDW maps columns to fields first):
 * prepare resolves the table, options, read schema and snapshot without
 * reading manifests; execute reads manifests, prunes with ctx->predicate
 * and builds the splits.  ctx must be the same in both calls except for
 * the predicate.
 */
ts_plan    *ts_scan_prepare(const ts_scan_context *ctx, ts_err *err);
bool		ts_scan_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);
void		ts_plan_free(ts_plan *plan);

/* Merged option value, NULL if absent. */
const char *ts_plan_option(const ts_plan *plan, const char *key);

/* The schema a file was written with (loaded lazily and kept in the plan). */
const ts_schema *ts_plan_schema(ts_plan *plan, int64_t schema_id, ts_err *err);

/* Tables of a database directory <warehouse>/<db>.db, sorted. */
bool		ts_list_tables(const char *database_dir, char ***names, int *count, ts_err *err);

#endif							/* TS_SCAN_H */
