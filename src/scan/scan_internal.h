/*
 * scan_internal.h - what the files of src/scan share and nobody else sees.
 *
 * Owns: the planning steps as functions over a ts_plan under construction
 * (table.c resolves the table and snapshot, live_files.c merges manifest
 * entries, prune.c drops files, deletion_vectors.c attaches DVs, splits.c
 * groups files, paths.c computes file paths).  Everything allocated here
 * lives in plan->arena unless said otherwise.
 */
#ifndef TS_SCAN_INTERNAL_H
#define TS_SCAN_INTERNAL_H

#include "scan/scan.h"
#include "expr/predicate.h"

/* Decisions taken once per plan and read by the later steps. */
typedef struct scan_state
{
	const ts_scan_context *ctx;
	/* realtime.c: the copies of ctx->realtime's entries among the live ones */
	const ts_manifest_entry *realtime;
	int			nrealtime;
	bool		skip_level0;	/* DV (without merge-on-read) or first-row */
	bool		dv_enabled;
	bool		first_row;
	/*
	 * A diff read of a primary-key table: the start snapshot's files among
	 * the plan's (sorted by address), marked by scan_incremental_diff_mark.
	 */
	const ts_manifest_entry **diff_before;
	int			ndiff_before;
	/* only files of levels level_min .. level_max (a stream's full start) */
	int32_t		level_min;
	int32_t		level_max;
	/*
	 * data-evolution.enabled: files of one row-id range are stitched
	 * column-wise when read, so a file's own stats say nothing about the
	 * rows' values and its row count not how many rows it adds.
	 */
	bool		data_evolution;
	int32_t		table_bucket;	/* "bucket" option: N, -1 dynamic/unaware, -2 postpone */
	bool		has_bucket_filter;
	int32_t		bucket_filter;
	int			npartition_keys;
	int		   *partition_key_fields;	/* indexes into plan->schema->fields */
	const ts_type **partition_types;
	/* partition_filter parsed into typed values (partition.c) */
	int			nfilters;
	struct scan_partition_filter *filters;
	/* bucket inference from the predicate (bucket_prune.c) */
	void	   *bucket_selector;
	/* reading a complete live set for the cache: no per-scan manifest skipping */
	bool		cache_fill;
	/*
	 * The plan uses no statistics of its entries (no predicate to prune
	 * by: stats_prune.c is their only reader), so a manifest may come from
	 * its light record (meta/manifest_cache.c); entries_light: some did
	 * (set by scan_read_live_files; the entry cache keeps it with them).
	 */
	bool		light_ok;
	bool		entries_light;
	/* where manifest entries are decoded (NULL: the plan arena) */
	ts_arena   *entry_arena;
	/*
	 * paths.c: the last partition directory and bucket directory built
	 * (files come grouped by partition, then bucket)
	 */
	bool		dir_valid;		/* prefix (and partition key) valid */
	bool		dir_partition_null;
	uint8_t    *dir_partition;	/* copy of the partition bytes (plan arena) */
	uint32_t	dir_partition_len;
	char	   *dir_prefix;		/* <table>[/<data dir>][/<partition path>] */
	size_t		dir_prefix_len;
	bool		dir_bucket_valid;	/* dir (and dir_bucket) valid */
	int32_t		dir_bucket;
	char	   *dir;			/* <prefix>/bucket-<b> (a reused buffer) */
	size_t		dir_len;
	size_t		dir_cap;
} scan_state;

/* One live data file with its pruning state. */
typedef struct scan_live_file
{
	const ts_manifest_entry *entry;
	ts_value   *partition_values;	/* decoded lazily (NULL until then) */
} scan_live_file;

/* ---- global_index.c ---- */
/*
 * The index kinds and fields a scan used, for EXPLAIN ("btree f0, bitmap
 * f1"): each pair once; what does not fit is left out.
 */
typedef struct scan_index_used
{
	char		text[256];
	size_t		len;
} scan_index_used;

void		scan_note_index_used(scan_index_used *u, const char *kind, const char *field);

/*
 * What the global indexes say about the predicate: per partition (the
 * index manifest's _PARTITION bytes), the row ids that may satisfy it.
 * A partition not listed: every row id.
 */
typedef struct scan_gi_part
{
	ts_bytes	partition;
	struct ts_row_ids *ids;
} scan_gi_part;

typedef struct scan_gi_result
{
	int			nparts;
	scan_gi_part *parts;
	char	   *used;			/* "bitmap f0, bitmap f1" for EXPLAIN; NULL: none */
} scan_gi_result;

bool		scan_global_index_eval(ts_plan *plan, scan_state *st, const ts_scan_context *ctx,
								   scan_gi_result **out, ts_err *err);
void		scan_global_index_free(scan_gi_result *r);
/* The row ids of partition part the result allows (NULL: all). */
const struct ts_row_ids *scan_global_index_ids(const scan_gi_result *r, ts_bytes partition);

/* ---- pk_global_index.c ---- */
/*
 * Primary-key tables with pk-btree / pk-bitmap payloads (Paimon 2.0): drop
 * the files no row of which the predicate's indexed leaves allow, and give
 * the others their allowed positions (ts_scan_file.index_rows).
 */
bool		scan_pk_global_index(ts_plan *plan, scan_state *st, const ts_scan_context *ctx,
								 ts_err *err);

/* ---- row_id_prune.c ---- */
/*
 * Drop the files of the plan's splits that hold none of ctx->row_ids, or
 * none of the row ids the global indexes (gi, may be NULL) allow.
 */
bool		scan_row_ids_prune(ts_plan *plan, const ts_scan_context *ctx,
							   const scan_gi_result *gi, ts_err *err);

/* ---- fallback_branch.c ---- */
/* Add the fallback branch's splits of partitions the main branch lacks. */
bool		scan_fallback_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);

/* ---- stream.c ---- */
/* The levels a stream's full start reads (TS_OPT_STREAM_FULL_START). */
void		scan_stream_full_start(const ts_plan *plan, scan_state *st);

/* ---- table.c ---- */
/*
 * On an object store, the table's snapshot/LATEST hint started, so that it
 * comes in with the schema listing (a plan's first round trip) when the
 * latest snapshot will be read (no branch, time travel, incremental or
 * pinned snapshot in ctx); the caller frees it once the snapshot is chosen.
 * NULL: nothing started.
 */
struct ts_prefetch *scan_latest_hint_ahead(ts_plan *plan, const ts_scan_context *ctx);
/*
 * With hint (scan_latest_hint_ahead's) and early, the latest snapshot's
 * choice is begun with the schema's GET (ts_snapshot_latest_begin) and
 * scan_choose_snapshot finishes it when it reads the latest snapshot; the
 * caller frees early (ts_snapshot_latest_free) after both.  NULL early:
 * each in its turn.
 */
bool		scan_resolve_table(ts_plan *plan, const ts_scan_context *ctx, struct ts_prefetch *hint,
							   ts_snapshot_latest *early, ts_err *err);
bool		scan_choose_snapshot(ts_plan *plan, const ts_scan_context *ctx,
								 ts_snapshot_latest *early, ts_err *err);
bool		scan_option_bool(const ts_plan *plan, const char *key, bool dflt);

/* ---- live_files.c ---- */
bool		scan_read_live_files(ts_plan *plan, scan_state *st,
								 const ts_manifest_entry ***live, int *nlive, ts_err *err);
/* Append the manifests of one manifest list (name under <table>/manifest). */
bool		scan_read_manifest_list(ts_plan *plan, const char *list_name, int64_t snapshot_id,
									ts_manifest_file_meta **all, int *nall, int *cap, ts_err *err);
bool		scan_entry_same_file(const ts_manifest_entry *a, const ts_manifest_entry *b);
uint32_t	scan_hash_bytes(uint32_t h, const void *p, size_t n);

/* ---- groups.c ---- */
/* The distinct partitions and (partition, bucket) groups of a file list. */
typedef struct scan_groups
{
	int			nfiles;
	int			npartitions;
	int			ngroups;
	int		   *group_of;		/* per file: its group, numbered by first appearance */
	int		   *group_partition;	/* per group: its partition, likewise numbered */
	int		   *group_first;	/* per group: its first file */
	ts_arena   *arena;			/* where these and the scratch live; NULL: ts_malloc */
} scan_groups;

/*
 * Arrays and scratch in 'arena' (a plan's: its pooled blocks are memory
 * faulted in already, or huge pages) or, when NULL, from ts_malloc.
 */
bool		scan_groups_build(const ts_manifest_entry *const *files, int n, ts_arena *arena,
							  scan_groups *g, ts_err *err);
/* Reorder 'files' (the list g was built from) into split order. */
bool		scan_groups_order(const scan_groups *g, const ts_manifest_entry **files, ts_err *err);
/* The same as a permutation: perm[k] = list index of the k-th file in split order. */
bool		scan_groups_permutation(const scan_groups *g, int *perm, ts_err *err);
void		scan_groups_free(scan_groups *g);
/* Count distinct partitions and (partition, bucket) groups. */
bool		scan_count_groups(const ts_manifest_entry *const *files, int n, ts_arena *arena,
							  int64_t *partitions, int64_t *buckets, ts_err *err);

/* ---- partition_filter.c ---- */
bool		scan_partition_setup(ts_plan *plan, scan_state *st, ts_err *err);
bool		scan_partition_decode(ts_plan *plan, scan_state *st, ts_bytes partition,
								  ts_value **values, ts_err *err);
/* Partition path "k1=v1/k2=v2" (no trailing slash; "" when unpartitioned). */
bool		scan_partition_path(ts_plan *plan, scan_state *st, ts_bytes partition,
								char **path, ts_err *err);
/* Does the partition match the OR-of-ANDs filter of the context? */
bool		scan_partition_filter_match(ts_plan *plan, scan_state *st, ts_bytes partition,
										bool *match, ts_err *err);
/* May rows of this partition satisfy the context's predicate (partition leaves exactly)? */
bool		scan_partition_predicate_keep(ts_plan *plan, scan_state *st, ts_bytes partition,
										  bool *keep, ts_err *err);
/* May a manifest with these partition stats contain a matching partition? */
bool		scan_partition_filter_may_match_stats(ts_plan *plan, scan_state *st,
												  const ts_simple_stats *stats,
												  int64_t nrows, bool *may, ts_err *err);

/* Leaf p on a concrete value (partition values) for pruning: 1 = may hold (or unsure), 0 = does not (expr/value_compare.c). */
static inline int
scan_predicate_leaf_may_hold(const ts_predicate *p, const ts_type *t, const ts_value *v)
{
	return ts_predicate_leaf_decide(p, t, v) != 0;
}

/* ---- paths.c ---- */
char	   *scan_normalize_external_path(ts_plan *plan, const char *external_path);

/*
 * A file name written in metadata (manifest list, manifest, data or index
 * file) is one name inside its directory: not empty, no '/', not "." or
 * "..".  false + TS_ERR_CORRUPT naming what and where otherwise.
 */
bool		scan_check_file_name(const ts_plan *plan, const char *what, const char *name,
								 ts_err *err);
bool		scan_bucket_dir(ts_plan *plan, scan_state *st, ts_bytes partition, int32_t bucket,
							char **dir, ts_err *err);
bool		scan_data_file_path(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
								char **path, ts_err *err);
/*
 * plan->path_state: st's partition keys, for ts_scan_file_path to build
 * the plan's paths when its files are opened (planning builds none).
 */
bool		scan_path_state_setup(ts_plan *plan, const scan_state *st, ts_err *err);
/*
 * The path of a data file in parts: *dir (st's buffer, valid until the
 * next call) + "/" + *name (*namelen bytes); for an external path the
 * whole path in *dir (plan arena) and *name = NULL.  scan_path_join
 * writes them to out (room for dirlen + 1 + namelen + 1) and returns the
 * bytes written.
 */
bool		scan_data_file_path_parts(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
									  const char **dir, size_t *dirlen, const char **name,
									  size_t *namelen, ts_err *err);
size_t		scan_path_join(char *out, const char *dir, size_t dirlen, const char *name,
						   size_t namelen);

/*
 * Walking entries in split order (groups.c) jumps between manifests: each
 * entry's struct, and its file name and partition in the record or
 * decoded block, are a cache miss away.  A loop over such a list asks for
 * them some entries ahead: scan_prefetch_entry(list[k + 16]) for the
 * struct's lines, scan_prefetch_entry_data(list[k + 8]) for what they
 * point to (the struct is in cache by then).
 */
static inline void
scan_prefetch_entry(const ts_manifest_entry *e)
{
	__builtin_prefetch(&e->partition);		/* partition, bucket, file name */
	__builtin_prefetch(&e->file.extra_files);	/* level, extra files, delete rows */
	__builtin_prefetch(&e->file.external_path);
}

static inline void
scan_prefetch_entry_data(const ts_manifest_entry *e)
{
	__builtin_prefetch(e->file.file_name);
	__builtin_prefetch(e->partition.data);
}
ts_file_format scan_format_from_file_name(const char *name);

/* ---- bucket_prune.c ---- */
bool		scan_bucket_setup(ts_plan *plan, scan_state *st, ts_err *err);
bool		scan_bucket_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
							 bool *keep, ts_err *err);

/* The sorted distinct buckets the predicate's values hash to under 'total'. */
bool		scan_bucket_current_set(ts_plan *plan, scan_state *st, int32_t total,
									const int32_t **buckets, int *nbuckets, ts_err *err);

/* ---- shard.c ---- */
/*
 * realtime.c: may this plan read ctx->realtime's files (an error naming the
 * read that cannot)?  Its files appended to the live ones (*live
 * replaced by a longer array in the plan's arena); the pending files the
 * plan kept (plan->pending_files_kept), once its splits are built.
 */
bool		scan_realtime_check(const ts_plan *plan, const ts_scan_context *ctx, ts_err *err);
bool		scan_realtime_add(ts_plan *plan, scan_state *st, const ts_scan_context *ctx,
							  const ts_manifest_entry ***live, int *nlive, ts_err *err);
void		scan_realtime_count_kept(ts_plan *plan, const scan_state *st);

/* scan.shard of the context into the plan (after the table kind is known). */
bool		scan_shard_setup(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);
/* Whether a file (its bucket, its name relative to the table root) is in the plan's shard. */
bool		scan_shard_keep(const ts_plan *plan, int32_t bucket, const char *name);

/* ---- cache.c ---- */
/*
 * scan_read_live_files through the cache.  *from_cache: the entries point
 * into the cache, pinned by the plan (plan->cache_pin) until
 * ts_plan_release; so does *live itself: read it, never write it.
 */
typedef struct scan_cache_excluded
{
	ts_bytes	partition;
	int64_t		nfiles;			/* live files of it that are no candidate */
} scan_cache_excluded;

typedef struct scan_cache_hit
{
	/* partitions and buckets of the live entries handed out (or just read) */
	bool		counted;
	int64_t		partitions_live;
	int64_t		buckets_live;
	bool		has_totals;		/* a candidate set: the fields below are set */
	int64_t		partitions_total;	/* of the whole live set */
	int64_t		buckets_total;
	int			nexcluded;		/* by partition, valid like the entries */
	const scan_cache_excluded *excluded;
	/*
	 * The entries in split order (NULL: not known), valid like them.  For
	 * a plan that keeps every entry.
	 */
	const ts_manifest_entry *const *ordered;
} scan_cache_hit;

bool		scan_read_live_files_cached(ts_plan *plan, scan_state *st,
										const ts_manifest_entry ***live, int *nlive,
										bool *from_cache, scan_cache_hit *hit, ts_err *err);
/* Metrics of the non-candidates of a hit (pruned by partition or bucket). */
bool		scan_cache_count_excluded(ts_plan *plan, scan_state *st,
									  const scan_cache_hit *hit, ts_err *err);
/* Let go of a pin taken by a hit (NULL: nothing). */
void		scan_cache_unpin(void *pin);

/* ---- incremental.c ---- */
/* incremental-between(-timestamp): choose start and end snapshot; *handled if set. */
bool		scan_incremental_choose(ts_plan *plan, bool *handled, ts_err *err);
/* The ADD entries of the delta manifest lists of APPEND snapshots start+1..end. */
/* ---- incremental_diff.c ---- */
/* The snapshots of a diff read (a, b: ids, or epoch millis by_timestamp). */
bool		scan_incremental_diff_range(ts_plan *plan, bool by_timestamp, int64_t a, int64_t b,
										int64_t earliest, int64_t latest, const char *opt,
										const char *val, ts_err *err);
/*
 * The live files of the end snapshot that the start snapshot has not, and
 * on primary-key tables also those of the start the end has not (then in
 * st->diff_before, for scan_incremental_diff_mark).
 */
bool		scan_incremental_diff_files(ts_plan *plan, scan_state *st,
										const ts_manifest_entry ***live, int *nlive, ts_err *err);
/* A stream's read of OVERWRITE snapshot b's changes (a = b - 1). */
bool		scan_incremental_overwrite_range(ts_plan *plan, int64_t a, int64_t b, ts_err *err);
/*
 * The ADD and DELETE entries of that snapshot (*files) without the files
 * both removed and added; the DELETE ones also in st->diff_before.
 */
bool		scan_incremental_overwrite_files(ts_plan *plan, scan_state *st,
											 const ts_manifest_entry ***files, int *nfiles,
											 ts_err *err);
/* The removed files of an overwrite: the previous snapshot's deletion vectors. */
bool		scan_incremental_overwrite_before_dvs(ts_plan *plan, scan_state *st, ts_err *err);
/* Mark the files of the plan's splits that are the start snapshot's. */
void		scan_incremental_diff_mark(ts_plan *plan, const scan_state *st);

bool		scan_read_incremental_files(ts_plan *plan, scan_state *st,
										const ts_manifest_entry ***files, int *nfiles,
										ts_err *err);

/* ---- index_prune.c ---- */
/* plan->use_file_index from the context, options and table kind */
void		scan_index_setup(ts_plan *plan, const scan_state *st);
/* false in *keep when the file's embedded index rules the predicate out */
bool		scan_index_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
							bool *keep, ts_err *err);

/* ---- stats_prune.c ---- */
bool		scan_stats_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
							bool *keep, ts_err *err);

/* ---- deletion_vectors.c ---- */
typedef struct scan_dv_index scan_dv_index;
bool		scan_dv_load(ts_plan *plan, scan_state *st, scan_dv_index **index, ts_err *err);
/* Path of an index file of the index manifest (in the plan's arena). */
bool		scan_index_file_path(ts_plan *plan, scan_state *st, const ts_index_manifest_entry *ie,
								 const char **path, ts_err *err);
/* Find the DV of a data file; false if none. */
/* Do two index manifest entries name the same index file (bucket, partition, name, type)? */
bool		scan_read_index_manifest(ts_plan *plan, ts_index_manifest_entry **entries, int *n,
									 char **path_out, ts_err *err);
bool		scan_same_index_file(const ts_index_manifest_entry *a, const ts_index_manifest_entry *b);
bool		scan_dv_lookup(const scan_dv_index *index, const ts_manifest_entry *e,
						   ts_scan_file *file);

/* ---- splits.c ---- */
/*
 * ordered: files are in split order already (and are not written).  The
 * files' paths are left to ts_scan_file_path.
 */
bool		scan_build_splits(ts_plan *plan, scan_state *st,
							  const ts_manifest_entry **files, int nfiles, bool ordered,
							  const scan_dv_index *dvs, ts_err *err);

#endif							/* TS_SCAN_INTERNAL_H */
