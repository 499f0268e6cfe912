/*
 * plan.c - ts_scan_plan: the planning steps in order.
 *
 * Owns: the order of the steps (resolve table, choose snapshot, read live
 * files, prune each live file, attach deletion vectors, build splits), the
 * per-file pruning decisions that need no I/O (level 0 of DV / first-row
 * tables, explicit bucket filter, partition filter, inferred bucket, value
 * stats), the LIMIT cut-off for append tables, metrics and freeing a plan.
 * The live files come from the cache (cache.c) or, for incremental-between,
 * from the delta manifests of a snapshot range (incremental.c) or the
 * difference of two snapshots' live files (incremental_diff.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/ts_prefetch.h"
#include "scan/format_plan.h"
#include "scan/scan_internal.h"
#include "scan/stream.h"

static bool
setup_state(ts_plan *plan, const ts_scan_context *ctx, scan_state *st, ts_err *err)
{
	memset(st, 0, sizeof(*st));
	st->ctx = ctx;
	/* what scan_stats_keep reads statistics for, and nothing else does */
	st->light_ok = ctx->predicate == NULL || !ctx->enable_pruning;
	st->table_bucket = plan->core.bucket;
	st->data_evolution = plan->core.data_evolution;
	st->level_max = INT32_MAX;
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		st->dv_enabled = plan->core.deletion_vectors;
		st->first_row = plan->core.merge_engine == TS_MERGE_FIRST_ROW;
		st->skip_level0 = ((st->dv_enabled && !plan->core.dv_merge_on_read) || st->first_row) &&
			!plan->unmerged && !plan->overwrite;	/* unmerged reads and streams see level 0 */
		if (!plan->incremental && scan_option_bool(plan, TS_OPT_STREAM_FULL_START, false))
			scan_stream_full_start(plan, st);
	}
	if (ctx->has_bucket_filter)
	{
		if (ctx->bucket_filter < 0)
			return ts_error(err, TS_ERR_INVALID, "bucket_filter must not be negative (got %d)",
							ctx->bucket_filter);
		if (st->table_bucket == -1)
		{
			ts_error(err, TS_ERR_INVALID,
					 "bucket_filter cannot be used on table \"%s\": it has no fixed buckets (bucket = -1, %s)",
					 plan->table_path,
					 plan->kind == TS_TABLE_APPEND ? "bucket-unaware append table" :
					 "dynamic-bucket primary-key table");
			return ts_error_hint(err, "Remove option bucket_filter: only tables with a fixed bucket count (option bucket > 0) have buckets to choose.");
		}
		st->has_bucket_filter = true;
		st->bucket_filter = ctx->bucket_filter;
	}
	if (!scan_partition_setup(plan, st, err))
		return false;
	if (!scan_bucket_setup(plan, st, err))
		return false;
	scan_index_setup(plan, st);
	return true;
}

static bool
prune_files(ts_plan *plan, scan_state *st, const ts_manifest_entry **live, int nlive,
			const ts_manifest_entry **kept, int *nkept, ts_err *err)
{
	int			i;

	*nkept = 0;
	for (i = 0; i < nlive; i++)
	{
		const ts_manifest_entry *e = live[i];
		bool		keep;

		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
		/* level 0 is invisible to batch reads of DV / first-row tables */
		if (st->skip_level0 && e->file.level == 0)
			continue;
		/* a stream's full start of a lookup / full-compaction table */
		if (e->file.level < st->level_min || e->file.level > st->level_max)
			continue;
		/* postpone mode: only real buckets */
		if (st->table_bucket == -2 && e->bucket < 0)
			continue;
		plan->metrics.files_total++;
		if (!scan_partition_filter_match(plan, st, e->partition, &keep, err))
			return false;
		if (keep && !scan_partition_predicate_keep(plan, st, e->partition, &keep, err))
			return false;
		if (!keep)
		{
			plan->metrics.files_pruned_partition++;
			continue;
		}
		if (st->has_bucket_filter && e->bucket != st->bucket_filter)
		{
			plan->metrics.files_pruned_bucket++;
			continue;
		}
		if (!scan_bucket_keep(plan, st, e, &keep, err))
			return false;
		if (!keep)
		{
			plan->metrics.files_pruned_bucket++;
			continue;
		}
		if (!scan_shard_keep(plan, e->bucket, e->file.file_name))
		{
			plan->metrics.files_pruned_shard++;
			continue;
		}
		if (!scan_stats_keep(plan, st, e, &keep, err))
			return false;
		if (!keep)
		{
			plan->metrics.files_pruned_stats++;
			continue;
		}
		if (!scan_index_keep(plan, st, e, &keep, err))
			return false;
		if (!keep)
		{
			plan->metrics.files_pruned_index++;
			continue;
		}
		kept[(*nkept)++] = e;
	}
	plan->metrics.files_kept = *nkept;
	return true;
}

/*
 * Partitions and buckets of the kept files, from the splits (every kept
 * file is in one): the splits of a (partition, bucket) are next to each
 * other, and those of a partition too.
 */
static void
count_kept_groups(ts_plan *plan)
{
	plan->metrics.partitions_kept = 0;
	plan->metrics.buckets_kept = 0;
	for (int i = 0; i < plan->nsplits; i++)
	{
		const ts_split *a = &plan->splits[i];
		const ts_split *b = i > 0 ? &plan->splits[i - 1] : NULL;

		if (b == NULL || a->partition.len != b->partition.len ||
			(a->partition.len > 0 && memcmp(a->partition.data, b->partition.data, a->partition.len) != 0))
		{
			plan->metrics.partitions_kept++;
			plan->metrics.buckets_kept++;
		}
		else if (a->bucket != b->bucket)
			plan->metrics.buckets_kept++;
	}
}

/*
 * LIMIT on an append table without predicate: keep whole splits until
 * their rows (files without deletion vectors) reach the limit.
 */
static void
apply_limit(ts_plan *plan, const scan_state *st, const ts_scan_context *ctx)
{
	int64_t		rows = 0;
	int			i;

	if (ctx->limit < 0 || ctx->predicate != NULL || plan->kind != TS_TABLE_APPEND ||
		st->data_evolution || plan->fallback_branch || ctx->row_ids != NULL)
		return;
	for (i = 0; i < plan->nsplits; i++)
	{
		const ts_split *s = &plan->splits[i];
		int			k;

		if (rows >= ctx->limit)
		{
			int64_t		files = 0;

			plan->nsplits = i;
			for (k = 0; k < i; k++)
				files += plan->splits[k].nfiles;
			plan->metrics.files_kept = files;
			return;
		}
		for (k = 0; k < s->nfiles; k++)
			if (s->files[k].dv_path == NULL)
				rows += s->files[k].entry->file.row_count;
	}
}

bool
ts_plan_set_s3(ts_plan *plan, const ts_s3_config *cfg, ts_err *err)
{
	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID, "no object store settings for \"%s\"", plan->table_path);
	/* the keys replaced are zeroed (ts_fs_set_s3) */
	return ts_fs_set_s3(plan->fs, cfg, err);
}

/*
 * The plan's file system: the table's store, with the context's settings
 * and scope.  Every file of the plan is read through it.
 */
static bool
open_fs(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	ts_fs_settings settings = {0};

	settings.s3 = ctx->s3;
	settings.azure = ctx->azure;
	plan->fs = ts_fs_open_for(ctx->table_path, &settings, ctx->fs_scope, err);
	return plan->fs != NULL;
}

ts_plan *
ts_scan_prepare(const ts_scan_context *ctx, ts_err *err)
{
	ts_plan    *plan;
	ts_prefetch *hint;
	ts_snapshot_latest early = {0};
	double		start = ts_monotonic_us() / 1000.0;

	if (ctx == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "no scan context");
		return NULL;
	}
	plan = ts_calloc(1, sizeof(ts_plan));
	if (plan == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_arena_init(&plan->arena, 64 * 1024);
	if (ctx->table_path == NULL || ctx->table_path[0] == '\0')
	{
		ts_error(err, TS_ERR_INVALID, "table path is required");
		ts_plan_free(plan);
		return NULL;
	}
	if (!open_fs(plan, ctx, err))
	{
		ts_plan_free(plan);
		return NULL;
	}
	hint = scan_latest_hint_ahead(plan, ctx);
	if (!scan_resolve_table(plan, ctx, hint, hint ? &early : NULL, err) ||
		(plan->kind != TS_TABLE_FORMAT && !scan_choose_snapshot(plan, ctx, &early, err)))
	{
		ts_snapshot_latest_free(&early);
		ts_prefetch_free(hint);
		ts_plan_free(plan);
		return NULL;
	}
	ts_snapshot_latest_free(&early);
	ts_prefetch_free(hint);
	plan->metrics.planning_ms = ts_monotonic_us() / 1000.0 - start;
	return plan;
}

/*
 * On an object store, the snapshot's index manifest (deletion vectors,
 * indexes) started now, before the manifest lists, so that it comes in
 * with them rather than after the manifests: every batch plan of a
 * snapshot reads it (scan_dv_load).  NULL: nothing started (a local fs,
 * none, an incremental read, a plan that reads no file).
 */
static ts_prefetch *
index_manifest_ahead(ts_plan *plan, const ts_scan_context *ctx)
{
	const char *name;
	char	   *path;
	ts_prefetch *p = NULL;
	ts_err		ignore = {0};

	if (plan == NULL || ctx == NULL || plan->snapshot == NULL || plan->incremental ||
		ctx->no_files || plan->kind == TS_TABLE_FORMAT || plan->splits != NULL ||
		plan->metrics.manifests_read > 0 || !(ts_fs_caps(plan->fs) & TS_FS_CAP_REMOTE))
		return NULL;
	name = plan->snapshot->index_manifest;
	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL ||
		!scan_check_file_name(plan, "index manifest", name, &ignore))
		return NULL;			/* scan_read_index_manifest reports it */
	path = ts_psprintf("%s/manifest/%s", plan->table_path, name);
	if (path != NULL)
		p = ts_prefetch_start(plan->fs, (const char *const *) &path, 1, &ignore);
	ts_free(path);
	return p;
}

static bool execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err);

bool
ts_scan_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	ts_prefetch *index_ahead = index_manifest_ahead(plan, ctx);
	bool		ok = execute(plan, ctx, err);

	ts_prefetch_free(index_ahead);
	return ok;
}

static bool
execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	scan_state	st;
	const ts_manifest_entry **live = NULL,
			  **kept;
	int			nlive = 0,
				nkept = 0;
	scan_dv_index *dvs = NULL;
	bool		from_cache = false;
	bool		kept_ordered = false;	/* kept is in split order already */
	scan_cache_hit hit = {0};
	double		start = ts_monotonic_us() / 1000.0;

	if (plan == NULL || ctx == NULL)
		return ts_error(err, TS_ERR_INVALID, "no plan or scan context");
	if (plan->splits != NULL || plan->metrics.manifests_read > 0)
		return ts_error(err, TS_ERR_INVALID, "scan plan of \"%s\" was already executed",
						plan->table_path);
	if (!scan_shard_setup(plan, ctx, err))
		return false;
	if (ctx->no_files)
	{
		/* quals false for every row: no manifest to read, no file kept */
		plan->no_files = true;
		plan->metrics.planning_ms += ts_monotonic_us() / 1000.0 - start;
		return true;
	}
	if (plan->kind == TS_TABLE_FORMAT)
	{
		if (!ts_format_plan_execute(plan, ctx, err))
			return false;
		plan->metrics.planning_ms += ts_monotonic_us() / 1000.0 - start;
		return true;
	}
	if (!setup_state(plan, ctx, &st, err) || !scan_path_state_setup(plan, &st, err))
		return false;
	if (!scan_realtime_check(plan, ctx, err))
		return false;
	if (plan->snapshot == NULL && (ctx->realtime == NULL || ctx->realtime->nentries == 0))
	{
		if (plan->bucket_pruning == NULL || strncmp(plan->bucket_pruning, "explicit", 8) != 0)
			plan->bucket_pruning = ts_arena_strdup(&plan->arena, "none: table has no snapshot");
		if (plan->fallback_branch && !scan_fallback_execute(plan, ctx, err))
			return false;
		plan->metrics.planning_ms += ts_monotonic_us() / 1000.0 - start;
		return true;
	}

	if (plan->diff && !plan->overwrite)
	{
		if (!scan_incremental_diff_files(plan, &st, &live, &nlive, err))
			return false;
	}
	else if (plan->incremental)
	{
		if (!scan_read_incremental_files(plan, &st, &live, &nlive, err))
			return false;
		if (plan->overwrite && !scan_incremental_overwrite_files(plan, &st, &live, &nlive, err))
			return false;
	}
	else if (plan->snapshot != NULL &&
			 !scan_read_live_files_cached(plan, &st, &live, &nlive, &from_cache, &hit, err))
		return false;
	if (!scan_realtime_add(plan, &st, ctx, &live, &nlive, err))
		return false;
	kept = ts_arena_alloc(&plan->arena, sizeof(*kept) * (size_t) (nlive ? nlive : 1));
	if (kept == NULL)
		return ts_error_nomem(err, NULL);
	if (!prune_files(plan, &st, live, nlive, kept, &nkept, err))
		return false;
	/* partitions and buckets of the live files: counted when the cache filled */
	if (hit.counted && st.nrealtime == 0)
	{
		plan->metrics.partitions_total = hit.partitions_live;
		plan->metrics.buckets_total = hit.buckets_live;
	}
	else
	{
		scan_groups g;

		if (!scan_groups_build(live, nlive, &plan->arena, &g, err))
			return false;
		plan->metrics.partitions_total = g.npartitions;
		plan->metrics.buckets_total = g.ngroups;
		/* every live file kept, in live order: their groups give the split order */
		if (nkept == nlive && nkept > 0)
		{
			kept_ordered = scan_groups_order(&g, kept, err);
			if (!kept_ordered)
			{
				scan_groups_free(&g);
				return false;
			}
		}
		scan_groups_free(&g);
	}
	/* a hit on inferred-bucket candidates: count the other live files as a cold plan does */
	if (from_cache && hit.has_totals &&
		!scan_cache_count_excluded(plan, &st, &hit, err))
		return false;

	/*
	 * delta splits carry no deletion vectors (IncrementalDeltaStartingScanner);
	 * a diff's files carry the end snapshot's, an overwrite's added files
	 * too with deletion-vectors.enabled (its removed ones: below)
	 */
	if ((!plan->incremental || (plan->diff && !plan->overwrite) ||
		 (plan->overwrite && plan->core.deletion_vectors)) &&
		!scan_dv_load(plan, &st, &dvs, err))
		return false;
	/* every cached entry kept: their split order and paths are known */
	if (from_cache && hit.ordered != NULL && nkept == nlive && st.nrealtime == 0)
	{
		if (!scan_build_splits(plan, &st, (const ts_manifest_entry **) hit.ordered, nkept,
							   true, dvs, err))
			return false;
	}
	else if (!scan_build_splits(plan, &st, kept, nkept, kept_ordered, dvs, err))
		return false;
	if (plan->diff)
		scan_incremental_diff_mark(plan, &st);
	if (plan->overwrite && plan->core.deletion_vectors &&
		!scan_incremental_overwrite_before_dvs(plan, &st, err))
		return false;
	{
		scan_gi_result *gi = NULL;
		bool		ok = scan_global_index_eval(plan, &st, ctx, &gi, err) &&
			scan_row_ids_prune(plan, ctx, gi, err) &&
			scan_pk_global_index(plan, &st, ctx, err);

		if (gi && gi->used)
			plan->global_index_used = gi->used;
		scan_global_index_free(gi);
		if (!ok)
			return false;
	}
	count_kept_groups(plan);
	apply_limit(plan, &st, ctx);
	scan_realtime_count_kept(plan, &st);
	if (plan->fallback_branch && !scan_fallback_execute(plan, ctx, err))
		return false;
	plan->metrics.planning_ms += ts_monotonic_us() / 1000.0 - start;
	return true;
}

ts_plan *
ts_scan_plan(const ts_scan_context *ctx, ts_err *err)
{
	ts_plan    *plan = ts_scan_prepare(ctx, err);

	if (plan == NULL)
		return NULL;
	if (!ts_scan_execute(plan, ctx, err))
	{
		ts_plan_free(plan);
		return NULL;
	}
	return plan;
}

void
ts_plan_release(ts_plan *plan)
{
	if (plan == NULL)
		return;
	ts_plan_release(plan->fallback);	/* the fallback branch's own plan */
	ts_arena_free(&plan->fill_arena);
	if (plan->cache_pin == NULL)
		return;
	scan_cache_unpin(plan->cache_pin);
	plan->cache_pin = NULL;
}

void
ts_plan_free(ts_plan *plan)
{
	int			i;

	if (plan == NULL)
		return;
	if (plan->on_free)
		plan->on_free(plan->on_free_arg);
	ts_plan_release(plan);
	ts_plan_free(plan->fallback);
	for (i = 0; i < plan->nschemas; i++)
		ts_schema_free(plan->schemas[i]);
	ts_free(plan->schemas);
	ts_snapshot_free(plan->snapshot);
	ts_fs_free(plan->fs);
	ts_arena_free(&plan->arena);
	ts_free(plan);
}
