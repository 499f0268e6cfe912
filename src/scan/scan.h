/*
 * scan.h - the table scan: from a table path and scan options to a plan.
 *
 * Owns: paimon-cpp's ScanContextBuilder / TableScan / Plan / Split in C.
 * Resolves the table (schema, merged options, branch), picks the snapshot,
 * reads manifest lists and manifests, merges ADD/DELETE into the live file
 * set, prunes (partition filter, predicate, bucket, stats), attaches
 * deletion vectors and groups the surviving files into splits.  Knows
 * nothing about PostgreSQL; all results live in the plan's arena.
 */
#ifndef TS_SCAN_H
#define TS_SCAN_H

#include "base/ts_fs.h"
#include "base/ts_s3.h"
#include "base/ts_value.h"
#include "format/format.h"
#include "meta/core_options.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "meta/manifest.h"

struct ts_predicate;			/* expr/predicate.h */

/* One option as a key/value pair (Paimon's own keys, e.g. scan.snapshot-id). */
typedef struct ts_option
{
	const char *key;
	const char *value;
} ts_option;

/* What the caller asks for (paimon-cpp's ScanContextBuilder). */
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
	/* scan.shard 'K/N' (shard.c): read only shard K of N; 0/0 = the whole table */
	int32_t		shard_k;
	int32_t		shard_n;
	/*
	 * The caller's quals are false for the whole scan (src/fdw: a qual on
	 * the _SHARD pseudo-column naming another shard): keep no file.
	 */
	bool		no_files;
	int64_t		limit;			/* -1 = unlimited */
	bool		enable_pruning;
	bool		no_cache;		/* bypass the live manifest-entry cache (cache.c) */
	/*
	 * A read of the latest snapshot reads snapshot pinned_snapshot_id
	 * instead (0 = the table had none), so that every process of a
	 * parallel scan plans the same snapshot.  Time travel and incremental
	 * options, which name their snapshots, ignore it.
	 */
	bool		pin_snapshot;
	int64_t		pinned_snapshot_id;
	/*
	 * Where the scan may read files (ts_fs.h), NULL = everywhere; and the
	 * object store settings (ts_s3.h) of a table in one, NULL = none.
	 * The plan's file system (ts_plan.fs) is built from them and the table
	 * path: every file of the plan is read through it.
	 */
	const ts_fs_scope *fs_scope;
	const ts_s3_config *s3;
	const struct ts_azure_config *azure;	/* a table in Azure (ts_azure.h), else NULL */
	/*
	 * Do not use Paimon's file indexes (embedded while planning, sidecar
	 * .index files while reading): GUC tablescan.enable_file_index off.
	 */
	bool		no_file_index;
	/*
	 * The row ids the caller wants (quals on _ROW_ID, a global index
	 * result; row_ids.h), NULL = all.  On row-tracking append tables the
	 * scan keeps only files whose row-id range [_FIRST_ROW_ID, + row count)
	 * holds one of them (row_id_prune.c); rows are not filtered.
	 */
	const struct ts_row_ids *row_ids;
	/*
	 * paimon-cpp's WithRealtimeContext: data files of this process not yet
	 * committed (a transaction's own writes, write.h
	 * ts_table_writer_pending_entries), read as files of the latest
	 * snapshot (realtime.c), NULL = none.  Refused with reads that name
	 * their snapshots (incremental, diff, changelog, stream reads).
	 */
	const struct ts_realtime_context *realtime;
} ts_scan_context;

/* Files of this process not committed yet: ADD entries (level 0), copied by the plan. */
typedef struct ts_realtime_context
{
	const ts_manifest_entry *entries;
	int			nentries;
} ts_realtime_context;

/* One data file the executor will read. */
typedef struct ts_scan_file
{
	const ts_manifest_entry *entry;
	/*
	 * The full path (external path resolved) once built, NULL until then:
	 * planning builds none (a plan answered from metadata opens no file),
	 * ts_scan_file_path() builds it on first use.  Read it only through
	 * that; set directly only where a path is known first (format tables).
	 */
	char	   *built_path;
	ts_file_format format;		/* from the file name's extension */
	/* deletion vector, if any */
	char	   *dv_path;
	int64_t		dv_offset;
	int64_t		dv_length;
	int64_t		dv_cardinality;	/* -1 unknown */
	int64_t		dv_file_size;	/* the index file's (index manifest); <= 0 unknown */
	/*
	 * Read only the row groups that start in [range_start, range_end) (a
	 * parallel scan's task, see ts_split_file_reads_in_ranges); range_end
	 * 0: the whole file.
	 */
	int64_t		range_start;
	int64_t		range_end;
	/*
	 * The row positions a primary-key global index allows (pk_global_index.c;
	 * in the plan's arena), NULL = every row: only those are decoded.
	 */
	const struct ts_row_ids *index_rows;
	/*
	 * The file's sidecar file index (the _EXTRA_FILES name ending in
	 * ".index", next to the data file; in the plan's arena), NULL = none
	 * listed: read before the file is opened (read/file_index_read.c) and
	 * fetched with it on an object store (read/split_window.c).
	 */
	char	   *index_path;
	/*
	 * A diff read of a primary-key table (incremental_diff.c): a file of the
	 * start snapshot, merged apart from the end snapshot's (merge.c).
	 */
	bool		diff_before;
} ts_scan_file;

typedef struct ts_split
{
	ts_bytes	partition;		/* serialized BinaryRow */
	ts_value   *partition_values;	/* decoded, one per partition key (shared
									 * by the splits of a partition) */
	int32_t		bucket;
	int32_t		total_buckets;
	int			nfiles;
	ts_scan_file *files;
	bool		raw_convertible;	/* files can be read one by one */
	bool		fallback;		/* of plan->fallback (scan.fallback-branch) */
	/*
	 * The row ids wanted of its files (quals on _ROW_ID and global indexes,
	 * row_id_prune.c; in the plan's arena), NULL = every row: the readers
	 * read only those rows' positions (_ROW_ID - _FIRST_ROW_ID).
	 */
	const struct ts_row_ids *row_ids;
} ts_split;

/* paimon-cpp's Metrics: what planning did. */
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
	int64_t		files_pruned_index;	/* by their embedded file index */
	int64_t		files_pruned_row_id;	/* by ts_scan_context.row_ids or a global index */
	int64_t		files_pruned_shard; /* other shards' files (scan.shard) */
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
	ts_fs	   *fs;				/* every file of the plan is read through it */
	char	   *table_path;
	char	   *branch_root;
	ts_table_kind kind;
	ts_schema  *schema;			/* read schema (latest, or the snapshot's) */
	ts_snapshot *snapshot;		/* NULL: table has no snapshot (0 rows) */
	/* merged options: schema < context */
	int			noptions;
	ts_option  *options;
	/* the options the scan acts on, parsed once from 'options' (core_options.h) */
	ts_core_options core;
	int			nsplits;
	ts_split   *splits;
	ts_scan_metrics metrics;
	/* why bucket pruning did or did not happen, for EXPLAIN */
	char	   *bucket_pruning;
	/* loaded schemas by id, for reading files of older schemas */
	int			nschemas;
	ts_schema **schemas;
	/*
	 * incremental-between(-timestamp): the plan holds the files ADDed by
	 * the APPEND snapshots incremental_start+1 .. snapshot->id (exclusive
	 * start, inclusive end), not the live files of one snapshot.
	 */
	bool		incremental;
	int64_t		incremental_start;
	/*
	 * Scan mode changelog (incremental.c): the files are the changelog
	 * files of the snapshots of the range, read unmerged (merge.c), each
	 * row with its kind, as a Java stream reads them.
	 */
	bool		changelog;
	/*
	 * Scan mode diff (incremental_diff.c): the plan holds the live files of
	 * snapshot->id that snapshot incremental_start does not hold.
	 */
	bool		diff;
	/*
	 * A stream's read of one OVERWRITE snapshot of a primary-key table
	 * (option TS_OPT_STREAM_OVERWRITE, set by src/fdw/changes.c only), a
	 * diff plan too: the files the overwrite removed (diff_before) and
	 * those it added, per partition and bucket (incremental_diff.c).
	 */
	bool		overwrite;
	/*
	 * Read the files unmerged, every record a row with its kind (merge.c):
	 * changelog reads, and the reads of a stream (option
	 * TS_OPT_STREAM_UNMERGED, set by src/fdw/changes.c only), as Java's
	 * streaming splits are read.
	 */
	bool		unmerged;
	/*
	 * The predicate the plan was pruned with (owned by the caller, who
	 * keeps it alive as long as the plan): readers use it to skip row
	 * groups / stripes of append-table files by their statistics.
	 */
	const struct ts_predicate *predicate;
	/*
	 * Private: the cached live entries this plan points into (cache.c),
	 * released by ts_plan_release.  on_free, when set, is called by
	 * ts_plan_free before anything is freed (a caller that registered its
	 * own cleanup for the plan forgets it there).
	 */
	void	   *cache_pin;
	/*
	 * Private: the manifest entries of a cache fill, decoded here (pooled
	 * chunks) for the cache to take over; freed by ts_plan_release when
	 * the cache did not take them.
	 */
	ts_arena	fill_arena;
	void		(*on_free) (void *arg);
	void	   *on_free_arg;
	/*
	 * scan.fallback-branch (fallback_branch.c, Java's
	 * FallbackReadFileStoreTable): partitions the main branch lacks are
	 * read from the fallback branch.  Its splits follow the main ones in
	 * 'splits' with fallback = true and are read with 'fallback', the plan
	 * of that branch (its own schemas, kind and options; same row type).
	 */
	char	   *fallback_branch;	/* NULL: none */
	struct ts_plan *fallback;
	int64_t		main_partitions;	/* partitions read from each branch */
	int64_t		fallback_partitions;
	/*
	 * File indexes (index_prune.c): whether the scan uses them, and the
	 * ones that decided something while planning, "bloom f0, bitmap f1"
	 * (NULL: none), for EXPLAIN.
	 */
	bool		use_file_index;
	char	   *file_index_used;
	/*
	 * ts_scan_context.row_ids applied (a row-tracking append table): how
	 * many row ids in how many ranges, for EXPLAIN ("Row IDs: n in k
	 * ranges"), counting only ids from 0 to the end of the highest file
	 * range.
	 */
	bool		row_ids_used;
	int64_t		row_ids_count;
	int			row_id_ranges;
	/*
	 * Global indexes (global_index.c) that narrowed the row ids read,
	 * "bitmap f0, bitmap f1" (NULL: none), for EXPLAIN; the files they
	 * ruled out are in metrics.files_pruned_row_id.
	 */
	char	   *global_index_used;
	/*
	 * scan.shard 'K/N' (shard.c): shard K of N (0 = none), and how files
	 * were assigned ("by bucket", "by file path hash"), for EXPLAIN.
	 */
	int32_t		shard_k;
	int32_t		shard_n;
	const char *shard_rule;
	bool		no_files;		/* ts_scan_context.no_files: nothing kept */
	/*
	 * ts_scan_context.realtime (realtime.c): its files considered with the
	 * live ones, and those kept, for EXPLAIN ("Pending Files").
	 */
	int64_t		pending_files_total;
	int64_t		pending_files_kept;
	/*
	 * Private (paths.c): what building a file's path after planning needs
	 * (the partition keys) and the last directory built.
	 */
	struct scan_state *path_state;
} ts_plan;

/*
 * The full path of a planned data file (external path resolved), built on
 * first use into the plan's arena and kept in file->built_path (the plan
 * and file are const for their readers; only that memo is written).  NULL
 * when it cannot be built (out of memory, a damaged manifest entry), with
 * *err saying why (err may be NULL).  Files of a fallback branch's splits
 * have theirs built already (fallback_branch.c).
 */
const char *ts_scan_file_path(const ts_plan *plan, const ts_scan_file *file, ts_err *err);

/* For messages: the path, or else the file's name; never NULL. */
const char *ts_scan_file_label(const ts_plan *plan, const ts_scan_file *file);

ts_plan    *ts_scan_plan(const ts_scan_context *ctx, ts_err *err);

/*
 * scan.shard 'K/N' (shard.c): parse "K/N" (1 <= K <= N), false when it is
 * not one; and the shard (1..N) of a file: by its bucket, or by a stable
 * hash of its name relative to the table root.
 */
bool		ts_shard_parse(const char *text, int32_t *k, int32_t *n);
int32_t		ts_shard_of_file(int32_t bucket, bool by_bucket, const char *name, int32_t n);

/*
 * ts_scan_plan in two steps, for callers that need the read schema before
 * they can build the predicate (the FDW maps columns to fields first):
 * prepare resolves the table, options, read schema and snapshot without
 * reading manifests; execute reads manifests, prunes with ctx->predicate
 * and builds the splits.  ctx must be the same in both calls except for
 * the predicate.
 */
ts_plan    *ts_scan_prepare(const ts_scan_context *ctx, ts_err *err);
/*
 * Replace the object store settings of the plan's file system by cfg
 * (copied; the keys replaced are zeroed): a data token renewed while the
 * plan is read.  Files fetched ahead under the old ones are fetched again
 * (ts_fs_generation).
 */
bool		ts_plan_set_s3(ts_plan *plan, const ts_s3_config *cfg, ts_err *err);
bool		ts_scan_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);
void		ts_plan_free(ts_plan *plan);
/*
 * Let go of what a plan holds outside its own memory (its pin on cached
 * manifest entries), e.g. when its memory is about to be freed wholesale
 * instead of by ts_plan_free.  The plan's entries must not be used after.
 * Idempotent; ts_plan_free calls it.
 */
void		ts_plan_release(ts_plan *plan);

/* Merged option value, NULL if absent. */
const char *ts_plan_option(const ts_plan *plan, const char *key);

/*
 * reuse.c: may a plan made earlier serve a scan now?  The fingerprint of
 * every input of planning in ctx but predicate, limit and row_ids (equal
 * fingerprints: the same plan); and whether the snapshot the plan read is
 * still the one to read (false when that cannot be told cheaply).
 */
uint64_t	ts_scan_context_fingerprint(const ts_scan_context *ctx);
bool		ts_plan_is_current(ts_plan *plan);

/*
 * partition_exact.c: is p made only of comparisons of partition keys with
 * literals of the key's own type (=, <>, <, <=, >, >=, IN, NOT IN, IS [NOT]
 * NULL) under AND / OR, so that it can be decided exactly per partition?
 * And for one split of the plan: 1 = every row of its partition satisfies
 * p, 0 = none does, -1 = not decidable exactly.
 */
bool		ts_predicate_exact_on_partitions(const struct ts_predicate *p, const ts_schema *schema);
int			ts_split_partition_satisfies(const ts_plan *plan, const ts_split *split,
										 const struct ts_predicate *p);

/*
 * index_prune.c: may a data file of the plan (entry e) hold rows that
 * satisfy pred, by its file index (bytes: the embedded index, or its
 * sidecar .index file)?  Only the predicate's leaves on columns whose
 * field id and type are the same in the file's schema use the index.  With
 * rows, the positions that may (a roaring_bitmap_t *, NULL: all; the
 * caller frees it with roaring_bitmap_free).  Errors name the index.
 */
bool		ts_plan_file_index_may_match(ts_plan *plan, const ts_manifest_entry *e,
										 const struct ts_predicate *pred, const uint8_t *bytes,
										 size_t len, bool *may, void **rows, ts_err *err);
/* Does the plan use file indexes (GUC, file-index.read.enabled, table kind)? */
bool		ts_plan_uses_file_index(const ts_plan *plan);

/* The schema a file was written with (loaded lazily and kept in the plan). */
const ts_schema *ts_plan_schema(ts_plan *plan, int64_t schema_id, ts_err *err);

/*
 * Live manifest-entry cache (cache.c, paimon-cpp's WithCache): per process,
 * keyed by (branch root, snapshot id and its manifest lists, the scan's
 * level-0 / postpone rules), LRU-evicted within a byte bound.  Scans with
 * an inferred bucket cache only their candidates, keyed also by the
 * buckets, the current bucket count and the current schema id; files of
 * other bucket counts or schema ids stay candidates and are pruned after
 * lookup.  The snapshot is always resolved from disk first, so a new
 * commit is never answered from an older snapshot's entries.  A plan that
 * hit the cache points into it and pins the entries until ts_plan_release
 * (or ts_plan_free): eviction and clearing never free pinned entries.
 * Disabled until a bound > 0 is set; ctx->no_cache bypasses it per scan.
 */
typedef struct ts_scan_cache_stats
{
	int64_t		hits;
	int64_t		misses;
	int64_t		inserts;
	int64_t		evictions;
	int64_t		items;			/* cached snapshots / candidate sets */
	int64_t		entries;		/* manifest entries held */
	size_t		bytes_used;
	size_t		bytes_limit;
} ts_scan_cache_stats;

/* Byte bound; 0 disables the cache and frees it.  Shrinking evicts. */
void		ts_scan_cache_set_limit(size_t bytes);
/*
 * Allocator for the cache's memory, which outlives every plan (inside
 * PostgreSQL: a long-lived context such as a child of TopMemoryContext).
 * NULL, NULL = ts_malloc / ts_free.  Clears the cache first.
 */
void		ts_scan_cache_set_alloc(void *(*alloc_fn) (size_t size), void (*free_fn) (void *p));
void		ts_scan_cache_clear(void);
void		ts_scan_cache_get_stats(ts_scan_cache_stats *out);

/* Tables of a database directory <warehouse>/<db>.db, sorted. */
bool		ts_list_tables(ts_fs *fs, const char *database_dir, char ***names, int *count, ts_err *err);

#endif							/* TS_SCAN_H */
