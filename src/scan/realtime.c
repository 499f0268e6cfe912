/*
 * realtime.c - the files of this process not yet committed, read with the
 * latest snapshot's (paimon-cpp's ScanContextBuilder::WithRealtimeContext).
 *
 * Owns: adding ts_scan_context.realtime's entries (a transaction's own
 * writes, level-0 ADD entries described by the writer) to the live files of
 * a plan of the latest snapshot, copied into the plan's arena, so that
 * every later step (partition, bucket and stats pruning, deletion vectors,
 * splits, the primary-key merge by key and sequence number, LIMIT) treats
 * them as it will treat them once committed; and counting the ones the
 * plan kept, for EXPLAIN.  Reads that name their snapshots (incremental,
 * diff, changelog and stream reads) refuse them.
 */
#include <string.h>

#include "base/ts_base.h"
#include "scan/scan_internal.h"

static bool
copy_bytes(ts_arena *a, ts_bytes *b)
{
	if (b->data == NULL)
		return true;
	b->data = ts_arena_dup(a, b->data, b->len > 0 ? b->len : 1);
	return b->data != NULL;
}

static bool
copy_stats(ts_arena *a, ts_simple_stats *s)
{
	if (!copy_bytes(a, &s->min_values) || !copy_bytes(a, &s->max_values))
		return false;
	if (s->null_counts != NULL && s->nnull_counts > 0)
		s->null_counts = ts_arena_dup(a, s->null_counts, sizeof(int64_t) * (size_t) s->nnull_counts);
	return s->nnull_counts <= 0 || s->null_counts != NULL;
}

/* e, deep: its strings and bytes into the arena too. */
static bool
copy_entry(ts_arena *a, const ts_manifest_entry *src, ts_manifest_entry *e)
{
	ts_data_file_meta *m = &e->file;

	*e = *src;
	if (m->nextra_files > 0 || m->nvalue_stats_cols > 0 || m->nwrite_cols > 0 ||
		m->external_path != NULL || m->embedded_file_index.data != NULL)
		return false;			/* not what a writer of ours describes */
	m->file_name = ts_arena_strdup(a, src->file.file_name);
	return m->file_name != NULL && copy_bytes(a, &e->partition) && copy_bytes(a, &m->min_key) &&
		copy_bytes(a, &m->max_key) && copy_stats(a, &m->key_stats) && copy_stats(a, &m->value_stats);
}

bool
scan_realtime_check(const ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	if (ctx->realtime == NULL || ctx->realtime->nentries == 0)
		return true;
	if (plan->kind == TS_TABLE_FORMAT || plan->incremental || plan->diff || plan->changelog ||
		plan->unmerged)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "table \"%s\" has rows written by this transaction, which a %s read cannot see",
				 plan->table_path, plan->kind == TS_TABLE_FORMAT ? "format table" :
				 plan->diff ? "diff" : plan->incremental ? "incremental" :
				 plan->changelog ? "changelog" : "stream");
		return ts_error_hint(err, "Read the changes after the transaction commits.");
	}
	return true;
}

bool
scan_realtime_add(ts_plan *plan, scan_state *st, const ts_scan_context *ctx,
				  const ts_manifest_entry ***live, int *nlive, ts_err *err)
{
	const ts_realtime_context *rt = ctx->realtime;
	const ts_manifest_entry **all;
	ts_manifest_entry *copies;

	if (rt == NULL || rt->nentries == 0)
		return true;
	if (!scan_realtime_check(plan, ctx, err))
		return false;
	copies = ts_arena_alloc(&plan->arena, sizeof(ts_manifest_entry) * (size_t) rt->nentries);
	all = ts_arena_alloc(&plan->arena, sizeof(*all) * (size_t) (*nlive + rt->nentries));
	if (copies == NULL || all == NULL)
		return ts_error_nomem(err, "the files written by this transaction");
	for (int i = 0; i < *nlive; i++)
		all[i] = (*live)[i];
	for (int i = 0; i < rt->nentries; i++)
	{
		if (rt->entries[i].kind != TS_FILE_ADD || rt->entries[i].file.level != 0 ||
			!copy_entry(&plan->arena, &rt->entries[i], &copies[i]))
			return ts_error(err, TS_ERR_INVALID,
							"pending file \"%s\" of table \"%s\" is not a new level-0 data file",
							rt->entries[i].file.file_name ? rt->entries[i].file.file_name : "?",
							plan->table_path);
		all[*nlive + i] = &copies[i];
	}
	*live = all;
	*nlive += rt->nentries;
	st->realtime = copies;
	st->nrealtime = rt->nentries;
	plan->pending_files_total = rt->nentries;
	return true;
}

void
scan_realtime_count_kept(ts_plan *plan, const scan_state *st)
{
	plan->pending_files_kept = 0;
	if (st->nrealtime == 0)
		return;
	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			const ts_manifest_entry *e = plan->splits[s].files[f].entry;

			if (e >= st->realtime && e < st->realtime + st->nrealtime)
				plan->pending_files_kept++;
		}
}
