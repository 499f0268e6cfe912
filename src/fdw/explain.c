/*
 * explain.c - the EXPLAIN lines of a planned scan.
 *
 * Owns: the properties the planner leaves in fdw_private
 * (FdwScanPrivateExplain) for a scan and the upper scans, and printing
 * them.  A property's value is a String (text), a Float node holding an
 * int64 (an integer property: a number in JSON, YAML and XML), a list of
 * Float nodes ("kept of total": "k of n" in text, "<label> Kept" /
 * "<label> Total" integers otherwise), or a list of a String and labelled
 * parts (its text line, and separate properties otherwise: "Splits" 3,
 * "Splits Raw" 1...).  Numbers are never text outside the TEXT format.
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"

#include "tablescan_fdw.h"
#include "scan/format_plan.h"

/* An int64 as a copyable node (fdw_private must survive copyObject). */
static Node *
number_node(int64 v)
{
	return (Node *) makeFloat(psprintf(INT64_FORMAT, v));
}

static int64
node_number(Node *n)
{
	return pg_strtoint64(castNode(Float, n)->fval);
}

/*
 * A "kept of total" property: the label, then a list of the two numbers,
 * printed by tablescan_explain_print as "k of n" in text and as two integer
 * properties "<label> Kept" / "<label> Total" in JSON, YAML and XML.
 */
static List *
explain_pair(List *l, const char *label, int64 kept, int64 total)
{
	l = lappend(l, makeString((char *) label));
	return lappend(l, list_make2(number_node(kept), number_node(total)));
}

/* An integer property. */
static List *
explain_number(List *l, const char *label, int64 v)
{
	return lappend(lappend(l, makeString((char *) label)), number_node(v));
}

/*
 * A property of several parts: text is its TEXT line; in JSON, YAML and XML
 * each part (label, then an int64 or, with text_part, a string) is one
 * property, numbers as integers.  explain_part / explain_text_part add the parts.
 */
static List *
explain_parts(List *l, const char *label, char *text)
{
	l = lappend(l, makeString((char *) label));
	return lappend(l, list_make1(makeString(text)));
}

static List *
explain_part(List *l, const char *label, int64 v)
{
	llast(l) = lappend(lappend(llast(l), makeString((char *) label)), number_node(v));
	return l;
}

static List *
explain_text_part(List *l, const char *label, char *v)
{
	llast(l) = lappend(lappend(llast(l), makeString((char *) label)), makeString(v));
	return l;
}

static void
print_parts(const char *label, List *parts, ExplainState *es)
{
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		ExplainPropertyText(label, strVal(linitial(parts)), es);
		return;
	}
	for (int i = 1; i + 1 < list_length(parts); i += 2)
	{
		const char *part = strVal(list_nth(parts, i));
		Node	   *v = list_nth(parts, i + 1);

		if (IsA(v, Float))
			ExplainPropertyInteger(part, NULL, node_number(v), es);
		else
			ExplainPropertyText(part, strVal(v), es);
	}
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

		if (IsA(value, List) && IsA(linitial((List *) value), String))
			print_parts(label, (List *) value, es);
		else if (IsA(value, List))
			explain_kept_total_index(label,
									 node_number(linitial((List *) value)),
									 node_number(lsecond((List *) value)),
									 list_length((List *) value) > 2 ?
									 node_number(lthird((List *) value)) : 0, es);
		else if (IsA(value, Float))
			ExplainPropertyInteger(label, NULL, node_number(value), es);
		else
			ExplainPropertyText(label, strVal(value), es);
	}
}

/*
 * EXPLAIN ANALYZE: did the scan execute the plan made while planning
 * (plan_reuse.c)?  "yes" / "no" in text, a boolean otherwise.  A run-time
 * figure, as Bytes Read: not in the output of COSTS OFF.
 */
void
tablescan_explain_plan_reused(bool reused, ExplainState *es)
{
	if (!es->costs)
		return;
	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText("Plan Reused", reused ? "yes" : "no", es);
	else
		ExplainPropertyBool("Plan Reused", reused, es);
}

/* "Parallel Tasks": the tasks a parallel scan is shared out in (handler.c, upper scans). */
List *
tablescan_explain_parallel_tasks(List *props, int ntasks)
{
	return explain_number(props, "Parallel Tasks", ntasks);
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
		if (plan->snapshot)
			l = explain_number(l, "Snapshot", plan->snapshot->id);
		else
			l = lappend(lappend(l, makeString("Snapshot")), makeString("none"));
	}
	if (plan->incremental)
	{
		int64		end = plan->snapshot ? plan->snapshot->id : plan->incremental_start;

		l = explain_parts(l, "Incremental", psprintf("snapshots (" INT64_FORMAT ", " INT64_FORMAT "]",
													 plan->incremental_start, end));
		l = explain_part(l, "Incremental After Snapshot", plan->incremental_start);
		l = explain_part(l, "Incremental To Snapshot", end);
	}
	if (ps->predicate)
	{
		l = lappend(l, makeString("Predicate"));
		l = lappend(l, makeString(pstrdup(ps->predicate)));	/* not the plan's memory */
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
		l = explain_parts(l, "Shard",
						  psprintf("%d of %d (%s, kept " INT64_FORMAT " files, other shards' " INT64_FORMAT ")",
								   plan->shard_k, plan->shard_n, plan->shard_rule,
								   plan->metrics.files_kept, plan->metrics.files_pruned_shard));
		l = explain_part(l, "Shard", plan->shard_k);
		l = explain_part(l, "Shard Count", plan->shard_n);
		l = explain_text_part(l, "Shard Rule", pstrdup(plan->shard_rule));
		l = explain_part(l, "Shard Files Kept", plan->metrics.files_kept);
		l = explain_part(l, "Other Shards' Files", plan->metrics.files_pruned_shard);
	}
	if (plan->no_files)			/* a _SHARD qual of another shard (shard_column.c) */
	{
		l = lappend(l, makeString("Shard Quals"));
		l = lappend(l, makeString(psprintf("false for _SHARD = %d: no file kept",
										   plan->shard_n > 0 ? plan->shard_k : 1)));
	}
	if (ps->limit >= 0)
		l = explain_number(l, "Limit", ps->limit);
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
		l = explain_parts(l, "Splits", psprintf("%d (raw %d, merge %d, with deletion vectors %d)",
												plan->nsplits, raw, plan->nsplits - raw, dv));
		l = explain_part(l, "Splits", plan->nsplits);
		l = explain_part(l, "Splits Raw", raw);
		l = explain_part(l, "Splits Merge", plan->nsplits - raw);
		l = explain_part(l, "Splits With Deletion Vectors", dv);
	}
	if (plan->fallback_branch)
	{
		/* scan.fallback-branch: which branch contributes which partitions */
		l = explain_parts(l, "Fallback Branch",
						  psprintf("%s (partitions read: " INT64_FORMAT " from this branch, "
								   INT64_FORMAT " from %s)",
								   plan->fallback_branch, plan->main_partitions,
								   plan->fallback_partitions, plan->fallback_branch));
		l = explain_text_part(l, "Fallback Branch", pstrdup(plan->fallback_branch));
		l = explain_part(l, "Partitions From This Branch", plan->main_partitions);
		l = explain_part(l, "Partitions From Fallback Branch", plan->fallback_partitions);
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
		l = explain_parts(l, "Row IDs", psprintf(INT64_FORMAT " in %d ranges", plan->row_ids_count,
												 plan->row_id_ranges));
		l = explain_part(l, "Row IDs", plan->row_ids_count);
		l = explain_part(l, "Row ID Ranges", plan->row_id_ranges);
	}
	if (plan->pending_files_total > 0)	/* the transaction's own rows (modify.c) */
		l = explain_pair(l, "Pending Files", plan->pending_files_kept, plan->pending_files_total);
	l = explain_pair(l, "Data Files", files, Max(plan->metrics.files_total, files));
	if (plan->metrics.files_pruned_index > 0)
		llast(l) = lappend(llast(l), number_node(plan->metrics.files_pruned_index));
	return l;
}
