/*
 * upper.c - the foreign upper paths: which computes the aggregates.
 *
 * Owns: GetForeignUpperPaths (count(*) from metadata where that is exact:
 * count_metadata.c; else the aggregates computed while scanning:
 * scan_aggregate.c, per group with GROUP BY: scan_group.c), the head every
 * upper path and its fdw_private share, and the dispatch of the executor
 * callbacks of a ForeignScan that replaces an Aggregate (scanrelid 0) to
 * the one that computes it.
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"

#include "tablescan_fdw.h"

/*
 * Aggregates over one foreign table: count(*) from metadata where that is
 * exact, else the aggregates computed while scanning (scan_aggregate.c;
 * with GROUP BY partial ones per group under a Finalize Aggregate,
 * scan_group.c) where they can be; else PostgreSQL aggregates the rows of
 * a scan.
 */
void
tablescanGetForeignUpperPaths(PlannerInfo *root, UpperRelationKind stage,
							  RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	GroupPathExtraData *gx = extra;

	if (!tablescan_enable_aggregate_pushdown)
		return;
	if ((stage != UPPERREL_GROUP_AGG && stage != UPPERREL_PARTIAL_GROUP_AGG) ||
		output_rel->fdw_private != NULL ||
		input_rel->reloptkind != RELOPT_BASEREL || input_rel->fdw_private == NULL)
		return;
	if (gx->patype != PARTITIONWISE_AGGREGATE_NONE ||
		parse->groupingSets != NIL || parse->hasTargetSRFs)
		return;
	if (stage == UPPERREL_PARTIAL_GROUP_AGG)
	{
		/*
		 * the partial aggregates of a parallel plan, computed by each
		 * process's scan (per group with GROUP BY); HAVING is the Finalize's
		 */
		if (gx->havingQual == NULL || parse->groupClause != NIL)
			tablescan_agg_scan_add_path(root, input_rel, output_rel, true);
	}
	else if (gx->havingQual != NULL || !tablescan_count_add_path(root, input_rel, output_rel))
	{
		if (parse->groupClause != NIL)
			/* partial aggregates per group, under a Finalize HashAggregate (scan_group.c) */
			tablescan_group_add_path(root, input_rel, output_rel, gx->havingQual);
		else if (gx->havingQual == NULL)
			tablescan_agg_scan_add_path(root, input_rel, output_rel, false);
	}
}


ForeignScan *
tablescan_upper_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist)
{
	if (((TsUpperPath *) upper_rel->fdw_private)->kind == TS_UPPER_SCAN)
		return tablescan_agg_scan_plan(root, upper_rel, tlist);
	return tablescan_count_plan(root, upper_rel, tlist);
}

/* The head of an upper path over the foreign table of input_rel. */
void
tablescan_upper_path_init(TsUpperPath *up, TsUpperKind kind, PlannerInfo *root,
						  RelOptInfo *input_rel, List *quals)
{
	up->kind = kind;
	up->base = input_rel->fdw_private;
	up->relid = input_rel->relid;
	up->table = planner_rt_fetch(input_rel->relid, root)->relid;
	up->quals = quals;
}

/* fdw_private of an upper scan (FdwScanPrivateIndex): attnums, props, then the upper part. */
List *
tablescan_upper_private(const TsUpperPath *up, List *attnums, List *props, List *columns)
{
	List	   *private = list_make5(attnums, props, makeString("-1"), copyObject(up->base->plan_key),
									 makeInteger((int) up->relid));

	private = lappend(private, makeString(psprintf("%u", up->table)));
	private = lappend(private, up->quals);
	private = lappend(private, columns);
	return lappend(private, makeInteger(up->kind));
}

/* ---- execution --------------------------------------------------------- */

/* Is this upper scan one of scan_aggregate.c's? */
static bool
is_agg_scan(ForeignScanState *node)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;

	return intVal(list_nth(fs->fdw_private, FdwScanPrivateUpperKind)) == TS_UPPER_SCAN;
}

/* The entry points of the upper scans: count_metadata.c's, or scan_aggregate.c's. */
void
tablescan_upper_begin(ForeignScanState *node, int eflags)
{
	if (is_agg_scan(node))
		tablescan_agg_scan_begin(node, eflags);
	else
		tablescan_count_begin(node, eflags);
}

TupleTableSlot *
tablescan_upper_iterate(ForeignScanState *node)
{
	return is_agg_scan(node) ? tablescan_agg_scan_iterate(node) : tablescan_count_iterate(node);
}

void
tablescan_upper_rescan(ForeignScanState *node)
{
	if (is_agg_scan(node))
		tablescan_agg_scan_rescan(node);
	else
		tablescan_count_rescan(node);
}

void
tablescan_upper_end(ForeignScanState *node)
{
	if (is_agg_scan(node))
		tablescan_agg_scan_end(node);
	else
		tablescan_count_end(node);
}

void
tablescan_upper_explain(ForeignScanState *node, ExplainState *es)
{
	if (is_agg_scan(node))
		tablescan_agg_scan_explain(node, es);
	else
		tablescan_count_explain(node, es);
}

/* A worker's shutdown of an upper scan (an aggregate's figures). */
void
tablescan_upper_shutdown(ForeignScanState *node)
{
	if (is_agg_scan(node))
		tablescan_agg_scan_shutdown(node);
}

/* The row scan of an upper scan that reads rows (a parallel one), else NULL. */
TsScanState *
tablescan_upper_rows(ForeignScanState *node)
{
	return is_agg_scan(node) ? tablescan_agg_scan_rows(node) : NULL;
}
