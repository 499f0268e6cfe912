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
#include "scan/predicate.h"

/* Decisions taken once per plan and read by the later steps. */
typedef struct scan_state
{
	const ts_scan_context *ctx;
	bool		skip_level0;	/* DV (without merge-on-read) or first-row */
	bool		dv_enabled;
	bool		first_row;
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
} scan_state;

/* One live data file with its pruning state. */
typedef struct scan_live_file
{
	const ts_manifest_entry *entry;
	ts_value   *partition_values;	/* decoded lazily (NULL until then) */
} scan_live_file;

/* ---- table.c ---- */
bool		scan_resolve_table(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);
bool		scan_choose_snapshot(ts_plan *plan, ts_err *err);
char	   *scan_arena_strdup(ts_arena *a, const char *s);
char	   *scan_arena_printf(ts_arena *a, const char *fmt,...) __attribute__((format(printf, 2, 3)));
bool		scan_option_bool(const ts_plan *plan, const char *key, bool dflt);

/* ---- live_files.c ---- */
bool		scan_read_live_files(ts_plan *plan, scan_state *st,
								 const ts_manifest_entry ***live, int *nlive, ts_err *err);
bool		scan_entry_same_file(const ts_manifest_entry *a, const ts_manifest_entry *b);
uint32_t	scan_hash_bytes(uint32_t h, const void *p, size_t n);

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

/* ---- value_compare.c ---- */
/* a <=> b for two non-null values of type t; false if t is not ordered */
bool		scan_value_compare(const ts_type *t, const ts_value *a, const ts_value *b, int *result);

/* ---- paths.c ---- */
char	   *scan_normalize_external_path(ts_plan *plan, const char *external_path);
bool		scan_bucket_dir(ts_plan *plan, scan_state *st, ts_bytes partition, int32_t bucket,
							char **dir, ts_err *err);
bool		scan_data_file_path(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
								char **path, ts_err *err);
ts_file_format scan_format_from_file_name(const char *name);

/* ---- bucket_prune.c ---- */
bool		scan_bucket_setup(ts_plan *plan, scan_state *st, ts_err *err);
bool		scan_bucket_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
							 bool *keep, ts_err *err);

/* ---- stats_prune.c ---- */
bool		scan_stats_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
							bool *keep, ts_err *err);

/* ---- deletion_vectors.c ---- */
typedef struct scan_dv_index scan_dv_index;
bool		scan_dv_load(ts_plan *plan, scan_state *st, scan_dv_index **index, ts_err *err);
/* Find the DV of a data file; false if none. */
bool		scan_dv_lookup(const scan_dv_index *index, const ts_manifest_entry *e,
						   ts_scan_file *file);

/* ---- splits.c ---- */
bool		scan_build_splits(ts_plan *plan, scan_state *st,
							  const ts_manifest_entry **files, int nfiles,
							  const scan_dv_index *dvs, ts_err *err);

#endif							/* TS_SCAN_INTERNAL_H */
