/*
 * explain.c - the EXPLAIN lines of a planned scan.
 *
 * Owns: the properties the planner leaves in fdw_private
 * (FdwScanPrivateExplain) for a scan and the upper scans, and printing
 * them: "k of n" in text, separate integer properties in JSON, YAML and
 * XML.
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"

#include "tablescan_fdw.h"
#include "scan/format_plan.h"

/*
 * A "kept of total" property: the label, then a list of the two numbers
 * (as strings: fdw_private must be copyable), printed by
 * tablescan_explain_print as "k of n" in text and as two integer
 * properties "<label> Kept" / "<label> Total" in JSON, YAML and XML.
 */
static List *
explain_pair(List *l, const char *label, int64 kept, int64 total)
{
	l = lappend(l, makeString((char *) label));
	return lappend(l, list_make2(makeString(psprintf(INT64_FORMAT, kept)),
								 makeString(psprintf(INT64_FORMAT, total))));
}

/* "k of n", and "(index skipped m)" when index_skipped > 0 */
static void
explain_kept_total_index(const char *label, int64 kept, int64 total, int64 index_skipped,
						 ExplainState *es)
{
	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText(label,
							index_skipped > 0 ?
							psprintf(INT64_FORMAT " of " INT64_FORMAT " (index skipped " INT64_FORMAT ")",
									 kept, total, index_skipped) :
							psprintf(INT64_FORMAT " of " INT64_FORMAT, kept, total), es);
	else
	{
		ExplainPropertyInteger(psprintf("%s Kept", label), NULL, kept, es);
		ExplainPropertyInteger(psprintf("%s Total", label), NULL, total, es);
		if (index_skipped > 0)
			ExplainPropertyInteger(psprintf("%s Index Skipped", label), NULL, index_skipped, es);
	}
}

void
tablescan_explain_kept_total(const char *label, int64 kept, int64 total, ExplainState *es)
{
	explain_kept_total_index(label, kept, total, 0, es);
}

/* Print what tablescan_explain_properties (and the upper paths) made. */
void
tablescan_explain_print(List *props, ExplainState *es)
{
	for (int i = 0; i + 1 < list_length(props); i += 2)
	{
		const char *label = strVal(list_nth(props, i));
		Node	   *value = list_nth(props, i + 1);

		if (tablescan_explain_hidden(&label, es))
			continue;

		if (IsA(value, List))
			explain_kept_total_index(label,
									 pg_strtoint64(strVal(linitial((List *) value))),
									 pg_strtoint64(strVal(lsecond((List *) value))),
									 list_length((List *) value) > 2 ?
									 pg_strtoint64(strVal(lthird((List *) value))) : 0, es);
		else
			ExplainPropertyText(label, strVal(value), es);
	}
}

List *
tablescan_explain_properties(TsPlanState *ps)
{
	ts_plan    *plan = ps->plan;
	List	   *l = NIL;
	int64		files = 0;

	for (int s = 0; s < plan->nsplits; s++)
		files += plan->splits[s].nfiles;
	if (plan->kind == TS_TABLE_FORMAT)
	{
		/* a directory of plain files, not a Paimon table: say which */
		l = lappend(l, makeString("Format Table"));
		l = lappend(l, makeString(pstrdup(ps->opts->qualified_name)));
		if (ps->opts->catalog)	/* a REST catalog's table: which catalog */
		{
			l = lappend(l, makeString("Catalog"));
			l = lappend(l, makeString(pstrdup(ps->opts->catalog)));
		}
		l = lappend(l, makeString("File Format"));
		l = lappend(l, makeString(pstrdup(ts_format_name(ts_format_plan_file_format(plan)))));
	}
	else
	{
		l = lappend(l, makeString("Paimon Table"));
		l = lappend(l, makeString(pstrdup(ps->opts->qualified_name)));
		if (ps->opts->catalog)	/* a REST catalog's table: which catalog */
		{
			l = lappend(l, makeString("Catalog"));
			l = lappend(l, makeString(pstrdup(ps->opts->catalog)));
		}
		l = lappend(l, makeString("Snapshot"));
		l = lappend(l, makeString(plan->snapshot ? psprintf(INT64_FORMAT, plan->snapshot->id) : "none"));
	}
	if (plan->incremental)
	{
		l = lappend(l, makeString("Incremental"));
		l = lappend(l, makeString(psprintf("snapshots (" INT64_FORMAT ", " INT64_FORMAT "]",
										   plan->incremental_start,
										   plan->snapshot ? plan->snapshot->id : plan->incremental_start)));
	}
	if (ps->predicate)
	{
		l = lappend(l, makeString("Predicate"));
		l = lappend(l, makeString(ps->predicate));
	}
	if (plan->metrics.partitions_total > 0)
	{
		l = explain_pair(l, "Partitions", plan->metrics.partitions_kept,
						 plan->metrics.partitions_total);
	}
	if (plan->metrics.buckets_total > 0)
	{
		l = explain_pair(l, "Buckets", plan->metrics.buckets_kept, plan->metrics.buckets_total);
	}
	if (plan->bucket_pruning)
	{
		l = lappend(l, makeString("Bucket Pruning"));
		l = lappend(l, makeString(pstrdup(plan->bucket_pruning)));
	}
	if (plan->shard_n > 0)		/* scan.shard: the share of this node */
	{
		l = lappend(l, makeString("Shard"));
		l = lappend(l, makeString(psprintf("%d of %d (%s, kept " INT64_FORMAT " files, other shards' " INT64_FORMAT ")",
										   plan->shard_k, plan->shard_n, plan->shard_rule,
										   plan->metrics.files_kept, plan->metrics.files_pruned_shard)));
	}
	if (ps->limit >= 0)
	{
		l = lappend(l, makeString("Limit"));
		l = lappend(l, makeString(psprintf(INT64_FORMAT, ps->limit)));
	}
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		int			raw = 0,
					dv = 0;

		for (int s = 0; s < plan->nsplits; s++)
		{
			bool		has_dv = false;

			raw += plan->splits[s].raw_convertible;
			for (int f = 0; f < plan->splits[s].nfiles; f++)
				has_dv |= plan->splits[s].files[f].dv_path != NULL;
			dv += has_dv;
		}
		l = lappend(l, makeString("Splits"));
		l = lappend(l, makeString(psprintf("%d (raw %d, merge %d, with deletion vectors %d)",
										   plan->nsplits, raw, plan->nsplits - raw, dv)));
	}
	if (plan->fallback_branch)
	{
		/* scan.fallback-branch: which branch contributes which partitions */
		l = lappend(l, makeString("Fallback Branch"));
		l = lappend(l, makeString(psprintf("%s (partitions read: " INT64_FORMAT " from this branch, "
										   INT64_FORMAT " from %s)",
										   plan->fallback_branch, plan->main_partitions,
										   plan->fallback_partitions, plan->fallback_branch)));
	}
	if (plan->file_index_used)
	{
		l = lappend(l, makeString("Index"));
		l = lappend(l, makeString(pstrdup(plan->file_index_used)));
	}
	if (plan->global_index_used)
	{
		l = lappend(l, makeString("Global Index"));
		l = lappend(l, makeString(pstrdup(plan->global_index_used)));
	}
	if (plan->row_ids_used)		/* quals on _ROW_ID (row_id_quals.c) */
	{
		l = lappend(l, makeString("Row IDs"));
		l = lappend(l, makeString(psprintf(INT64_FORMAT " in %d ranges", plan->row_ids_count,
										   plan->row_id_ranges)));
	}
	l = explain_pair(l, "Data Files", files, Max(plan->metrics.files_total, files));
	if (plan->metrics.files_pruned_index > 0)
		llast(l) = lappend(llast(l), makeString(psprintf(INT64_FORMAT,
														 plan->metrics.files_pruned_index)));
	return l;
}
