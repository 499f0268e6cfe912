/*
 * handler.c - the FDW callbacks, in the order PostgreSQL calls them.
 *
 * Owns: the handler function, planning (the Paimon scan is planned while
 * PostgreSQL plans, so estimates and EXPLAIN see the pruned file set:
 * sizes, costs, serial, parallel and parameterized paths, the plan node;
 * that plan is offered to the executor, plan_reuse.c),
 * the executor callbacks of a scan (Begin, Iterate, ReScan, Explain, End),
 * which read their rows from scan_rows.c, then those of a Parallel Foreign
 * Scan.  A ForeignScan that replaces an Aggregate (scanrelid 0) is
 * handed to upper.c.  What the planner hands the executor is numbered by
 * FdwScanPrivateIndex.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"

static void tablescanGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
									   Oid foreigntableid);
static void tablescanGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
									 Oid foreigntableid);
static ForeignScan *tablescanGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
											Oid foreigntableid, ForeignPath *best_path,
											List *tlist, List *scan_clauses,
											Plan *outer_plan);
static void tablescanBeginForeignScan(ForeignScanState *node, int eflags);
static TupleTableSlot *tablescanIterateForeignScan(ForeignScanState *node);
static void tablescanReScanForeignScan(ForeignScanState *node);
static void tablescanExplainForeignScan(ForeignScanState *node, ExplainState *es);
static void tablescanEndForeignScan(ForeignScanState *node);
static bool tablescanIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel,
											   RangeTblEntry *rte);
static Size tablescanEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt);
static void tablescanInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
											  void *coordinate);
static void tablescanReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
												void *coordinate);
static void tablescanInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc,
												 void *coordinate);
static void tablescanShutdownForeignScan(ForeignScanState *node);

PG_FUNCTION_INFO_V1(tablescan_fdw_handler);

Datum
tablescan_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	routine->GetForeignRelSize = tablescanGetForeignRelSize;
	routine->GetForeignPaths = tablescanGetForeignPaths;
	routine->GetForeignPlan = tablescanGetForeignPlan;
	routine->BeginForeignScan = tablescanBeginForeignScan;
	routine->IterateForeignScan = tablescanIterateForeignScan;
	routine->ReScanForeignScan = tablescanReScanForeignScan;
	routine->ExplainForeignScan = tablescanExplainForeignScan;
	routine->EndForeignScan = tablescanEndForeignScan;
	routine->IsForeignScanParallelSafe = tablescanIsForeignScanParallelSafe;
	routine->EstimateDSMForeignScan = tablescanEstimateDSMForeignScan;
	routine->InitializeDSMForeignScan = tablescanInitializeDSMForeignScan;
	routine->ReInitializeDSMForeignScan = tablescanReInitializeDSMForeignScan;
	routine->InitializeWorkerForeignScan = tablescanInitializeWorkerForeignScan;
	routine->ShutdownForeignScan = tablescanShutdownForeignScan;
	routine->GetForeignUpperPaths = tablescanGetForeignUpperPaths;
	routine->ImportForeignSchema = tablescanImportForeignSchema;
	routine->AnalyzeForeignTable = tablescanAnalyzeForeignTable;
	tablescan_modify_routines(routine);	/* INSERT / COPY FROM: modify.c */
	PG_RETURN_POINTER(routine);
}

/*
 * Is the foreign-data wrapper fdwid this extension's?  Its handler's
 * routine must be ours: a wrapper of another extension (or one without a
 * handler or validator, whose options nobody checked) is not.
 */
bool
tablescan_fdw_is_ours(Oid fdwid)
{
	ForeignDataWrapper *fdw = GetForeignDataWrapper(fdwid);

	return OidIsValid(fdw->fdwhandler) &&
		GetFdwRoutine(fdw->fdwhandler)->GetForeignRelSize == tablescanGetForeignRelSize;
}

/* ---- planning ---------------------------------------------------------- */

/*
 * The rows a LIMIT needs from this scan, when nothing between the scan and
 * the Limit node can drop, reorder or multiply rows: a single-relation query
 * without quals, ORDER BY, grouping or DISTINCT (PostgreSQL already clears
 * limit_tuples for grouping, aggregates, windows and SRFs).  -1 otherwise.
 * The scan then plans only files enough to hold that many rows.
 */
static int64
scan_limit(PlannerInfo *root, RelOptInfo *baserel)
{
	Query	   *parse = root->parse;

	if (root->limit_tuples <= 0 || root->limit_tuples > (double) PG_INT64_MAX / 2)
		return -1;
	if (parse->sortClause != NIL || parse->distinctClause != NIL ||
		parse->hasAggs || parse->groupClause != NIL || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || parse->rowMarks != NIL || parse->setOperations != NULL)
		return -1;
	if (baserel->baserestrictinfo != NIL || baserel->reloptkind != RELOPT_BASEREL ||
		bms_membership(root->all_baserels) != BMS_SINGLETON)
		return -1;
	return (int64) root->limit_tuples;
}

static void
tablescanGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	TsPlanState *ps = palloc0(sizeof(TsPlanState));
	double		rows = 0,
				bytes = 0;
	int		   *att_field;
	List	   *residual = NIL;
	ListCell   *lc;
	MemoryContext plan_cxt,
				old;

	Relation	rel;
	RangeTblEntry *rte = planner_rt_fetch(baserel->relid, root);

	/*
	 * PostgreSQL checks the SELECT privilege when the executor starts, after
	 * planning; but planning reads the table's metadata (and leaves it in
	 * tablescan_last_metrics), so a role without the privilege is stopped
	 * here, with the error the executor would raise.
	 */
	if (rte->requiredPerms != 0)
		ExecCheckRTPerms(list_make1(rte), true);
	rel = table_open(foreigntableid, NoLock);
	ps->limit = scan_limit(root, baserel);

	/*
	 * The plan lives in a context of its own, offered to the executor
	 * (plan_reuse.c): its first fetch runs it when it still holds.
	 */
	plan_cxt = tablescan_plan_context_create();
	old = MemoryContextSwitchTo(plan_cxt);
	ps->opts = tablescan_get_options_as(foreigntableid, baserel->userid);
	ps->plan = tablescan_plan_relation(ps->opts, rel, baserel->relid,
									   extract_actual_clauses(baserel->baserestrictinfo, false),
									   NULL, ps->limit, &att_field, &ps->predicate);
	MemoryContextSwitchTo(old);
	ps->plan_key = tablescan_plan_offer(plan_cxt, ps->opts, ps->plan, att_field);
	ps->att_field = att_field;
	ps->natts = RelationGetDescr(rel)->natts;
	table_close(rel, NoLock);
	/* quals on the pseudo-column _SHARD: decided now, for the whole scan */
	tablescan_shard_rewrite_quals(root, baserel, att_field, ps->natts, ps->opts);

	/*
	 * Quals on partition keys alone were applied exactly by partition
	 * pruning (the row counts below are those of the kept partitions), so
	 * only the others reduce the estimate further.
	 */
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		Bitmapset  *attrs = NULL;
		bool		partition_only = tablescan_enable_pruning;
		int			x = -1;

		pull_varattnos((Node *) ri->clause, baserel->relid, &attrs);
		if (bms_is_empty(attrs))
			partition_only = false;
		while (partition_only && (x = bms_next_member(attrs, x)) >= 0)
		{
			AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;
			int			field = attno > 0 ? att_field[attno - 1] : -1;

			if (field < 0 ||
				!ts_schema_is_partition_key(ps->plan->schema, ps->plan->schema->fields[field].name))
				partition_only = false;
		}
		if (!partition_only)
			residual = lappend(residual, ri);
	}
	for (int s = 0; s < ps->plan->nsplits; s++)
		for (int f = 0; f < ps->plan->splits[s].nfiles; f++)
		{
			const ts_data_file_meta *fm = &ps->plan->splits[s].files[f].entry->file;

			rows += fm->row_count;
			bytes += fm->file_size;
		}
	ps->rows = rows;
	ps->bytes = bytes;
	baserel->fdw_private = ps;
	/* selectivity of the quals PostgreSQL keeps */
	baserel->rows = clamp_row_est(rows * clauselist_selectivity(root, residual,
																 0, JOIN_INNER, NULL));
	baserel->tuples = rows;
}

/*
 * Cost of reading 'fraction' of the (already pruned) files, the CPU part
 * shared by cpu_divisor processes (1 for a serial scan).
 */
static void
scan_costs(TsPlanState *ps, double fraction, double cpu_divisor, Cost *startup, Cost *total)
{
	*startup = 10;
	*total = *startup + fraction * (seq_page_cost * (ps->bytes / BLCKSZ) +
									cpu_tuple_cost * 2 * ps->rows / cpu_divisor);
}

/*
 * Is this join clause "our column = expression of other rels" with an
 * operator we can push?  Then a nested loop can hand us the value as a
 * Param and we prune per outer row (bucket inference, partition and stats
 * pruning run again at each rescan).
 */
static bool
is_param_join_clause(RelOptInfo *baserel, RestrictInfo *rinfo)
{
	OpExpr	   *op;
	Node	   *l,
			   *r;
	char	   *name;

	if (!IsA(rinfo->clause, OpExpr) || rinfo->pseudoconstant)
		return false;
	op = (OpExpr *) rinfo->clause;
	if (list_length(op->args) != 2 || op->opno >= FirstNormalObjectId)
		return false;
	name = get_opname(op->opno);
	if (name == NULL || strcmp(name, "=") != 0)
		return false;
	l = linitial(op->args);
	r = lsecond(op->args);
	if (IsA(l, Var) && ((Var *) l)->varno == baserel->relid &&
		!bms_is_member(baserel->relid, pull_varnos(NULL, r)))
		return true;
	if (IsA(r, Var) && ((Var *) r)->varno == baserel->relid &&
		!bms_is_member(baserel->relid, pull_varnos(NULL, l)))
		return true;
	return false;
}

/* Equivalence-class member callback: is it our column 'arg'? */
static bool
ec_member_is_column(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
					EquivalenceMember *em, void *arg)
{
	Expr	   *e = em->em_expr;

	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e && IsA(e, Var) && ((Var *) e)->varno == rel->relid &&
		((Var *) e)->varattno == *(AttrNumber *) arg;
}

static List *
param_join_clauses(PlannerInfo *root, RelOptInfo *baserel)
{
	List	   *result = NIL;
	ListCell   *lc;
	int			natts = baserel->max_attr;

	foreach(lc, baserel->joininfo)
		if (is_param_join_clause(baserel, lfirst(lc)))
			result = lappend(result, lfirst(lc));
	if (!baserel->has_eclass_joins)
		return result;
	for (AttrNumber attno = 1; attno <= natts; attno++)
	{
		List	   *clauses = generate_implied_equalities_for_column(root, baserel,
																	 ec_member_is_column,
																	 &attno,
																	 baserel->lateral_referencers);

		foreach(lc, clauses)
			if (is_param_join_clause(baserel, lfirst(lc)))
				result = lappend(result, lfirst(lc));
	}
	return result;
}

/*
 * A partial path: a Parallel Foreign Scan whose tasks (parallel.c) are
 * shared out between the leader and the workers.  The number of workers is
 * PostgreSQL's rule for a table of the files' size (min_parallel_table_scan_size
 * and up) or the option parallel_workers (0: no parallel scan), at most one
 * per task beyond the leader's; the CPU part of the
 * cost is divided as for a parallel sequential scan, but by no more than
 * the number of tasks.  A scan of one task has a partial path too (costed
 * as a serial scan): under a Parallel Append, one process reads it while
 * others read the other partitions.
 */
static void
add_parallel_path(PlannerInfo *root, RelOptInfo *baserel, TsPlanState *ps)
{
	int			ntasks;
	int			workers;
	double		divisor;
	Cost		startup,
				total;
	ForeignPath *path;

	if (!baserel->consider_parallel || max_parallel_workers_per_gather <= 0)
		return;
	ntasks = ps->ntasks = tablescan_parallel_count_tasks(ps->plan, NULL, 0);
	baserel->rel_parallel_workers = ps->opts->parallel_workers;	/* as the heap's reloption */
	workers = Min(compute_parallel_worker(baserel, ps->bytes / BLCKSZ, -1,
										  max_parallel_workers_per_gather),
				  Max(ntasks - 1, 1));
	if (ntasks == 0 || workers <= 0)
		return;
	divisor = workers;
	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;	/* the leader's share, as costsize.c */
	divisor = Min(divisor, ntasks);		/* one task: no faster than a serial scan */
	scan_costs(ps, 1.0, divisor, &startup, &total);
	path = create_foreignscan_path(root, baserel, NULL, clamp_row_est(baserel->rows / divisor),
								   startup, total, NIL, NULL, NULL, NIL);
	path->path.parallel_aware = true;
	path->path.parallel_safe = true;
	path->path.parallel_workers = workers;
	add_partial_path(baserel, (Path *) path);
}

/*
 * A serial (non-partial) path.  It is not parallel safe: a copy of it in a
 * worker (a parallel hash join's inner side, say) would plan the latest
 * snapshot on its own, where the Parallel Foreign Scan pins the leader's.
 */
static void
add_serial_path(RelOptInfo *baserel, ForeignPath *path)
{
	path->path.parallel_safe = false;
	add_path(baserel, (Path *) path);
}

static void
tablescanGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	TsPlanState *ps = baserel->fdw_private;
	Cost		startup,
				total;
	ListCell   *lc;

	scan_costs(ps, 1.0, 1.0, &startup, &total);
	add_serial_path(baserel, create_foreignscan_path(root, baserel, NULL, baserel->rows,
													 startup, total, NIL, NULL, NULL, NIL));
	add_parallel_path(root, baserel, ps);

	/*
	 * Parameterized paths: one per pushable equality join clause, those in
	 * joininfo and those implied by equivalence classes (a = b joins).
	 */
	foreach(lc, param_join_clauses(root, baserel))
	{
		RestrictInfo *rinfo = lfirst(lc);
		Relids		required_outer;
		ParamPathInfo *ppi;
		double		rows;

		if (!is_param_join_clause(baserel, rinfo))
			continue;
		required_outer = bms_difference(rinfo->clause_relids, baserel->relids);
		if (bms_is_empty(required_outer))
			continue;
		ppi = get_baserel_parampathinfo(root, baserel, required_outer);
		rows = ppi->ppi_rows;
		/*
		 * An equality on a value of the data typically reads a small part of
		 * the files (one bucket, one partition, or files whose stats fit);
		 * assume the per-row fraction PostgreSQL's selectivity gives, but
		 * never less than one file's worth.
		 */
		scan_costs(ps, Max(rows / Max(baserel->tuples, 1), 0.01), 1.0, &startup, &total);
		add_serial_path(baserel, create_foreignscan_path(root, baserel, NULL, rows,
														 startup, total, NIL,
														 required_outer, NULL, NIL));
	}
}

static ForeignScan *
tablescanGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
						ForeignPath *best_path, List *tlist, List *scan_clauses,
						Plan *outer_plan)
{
	TsPlanState *ps = baserel->fdw_private;
	Bitmapset  *attrs = NULL;
	List	   *attnums = NIL;
	List	   *explain;
	ListCell   *lc;
	int			x;

	if (IS_UPPER_REL(baserel))
		return tablescan_upper_plan(root, baserel, tlist);

	/* every qual is rechecked by PostgreSQL */
	scan_clauses = extract_actual_clauses(scan_clauses, false);

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
	foreach(lc, baserel->baserestrictinfo)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, baserel->relid, &attrs);
	x = -1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;

		if (attno == 0)
		{
			attnums = list_make1_int(0);
			break;
		}
		if (attno > 0)
			attnums = lappend_int(attnums, attno);
	}

	explain = tablescan_explain_files(ps->plan, tablescan_explain_properties(ps));
	if (best_path->path.parallel_aware)
		explain = tablescan_explain_parallel_tasks(explain, ps->ntasks);
	return make_foreignscan(tlist, scan_clauses, baserel->relid, NIL,
							list_make4(attnums, explain,
									   makeString(psprintf(INT64_FORMAT, ps->limit)),
									   ps->plan_key),
							NIL, NIL, outer_plan);
}

/* ---- execution --------------------------------------------------------- */

static void
tablescanBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	TsScanState *st;

	if (fs->scan.scanrelid == 0)
	{
		tablescan_upper_begin(node, eflags);
		return;
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;

	st = tablescan_scan_create(node->ss.ps.state);
	node->fdw_state = st;
	tablescan_scan_set_source(st, node->ss.ss_currentRelation, fs->scan.scanrelid,
							  fs->scan.plan.qual,
							  (List *) list_nth(fs->fdw_private, FdwScanPrivateAttnums),
							  node->ss.ps.ps_ExprContext);
	tablescan_scan_set_limit(st, pg_strtoint64(strVal(list_nth(fs->fdw_private,
																FdwScanPrivateLimit))));
	tablescan_scan_take_plan(st, list_nth(fs->fdw_private, FdwScanPrivatePlanKey));
}

static TupleTableSlot *
tablescanIterateForeignScan(ForeignScanState *node)
{
	ErrorContextCallback errcb;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
		return tablescan_upper_iterate(node);
	tablescan_scan_context_push(node->fdw_state, &errcb);
	tablescan_scan_next_row(node->fdw_state, node->ss.ss_ScanTupleSlot);
	tablescan_scan_context_pop(&errcb);
	/* rows the quals drop before conversion are PostgreSQL's Rows Removed by Filter too */
	if (node->ss.ps.instrument)
		InstrCountFiltered1(node, tablescan_scan_rows_rejected(node->fdw_state));
	return node->ss.ss_ScanTupleSlot;
}

static void
tablescanReScanForeignScan(ForeignScanState *node)
{
	TsScanState *st = node->fdw_state;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
	{
		tablescan_upper_rescan(node);
		return;
	}
	tablescan_scan_rescan(st, node->ss.ps.chgParam != NULL);
}

static void
tablescanExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	List	   *props = (List *) list_nth(fs->fdw_private, FdwScanPrivateExplain);

	tablescan_explain_print(props, es);
	if (fs->scan.scanrelid == 0)
		tablescan_upper_explain(node, es);
	else if (es->analyze && node->fdw_state)
		tablescan_scan_explain(node->fdw_state, es);
}

static void
tablescanEndForeignScan(ForeignScanState *node)
{
	TsScanState *st = node->fdw_state;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
	{
		tablescan_upper_end(node);
		return;
	}
	if (st == NULL)
		return;
	tablescan_scan_end(st);
	node->fdw_state = NULL;
}

/* ---- parallel scans (parallel.c has the shared state) -------------------- */

static bool
tablescanIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	/*
	 * Every process plans and reads on its own; but a worker has none of the
	 * rows this transaction wrote and has not committed (modify.c).
	 */
	if (tablescan_has_pending_writes(NULL) &&
		tablescan_has_pending_writes(tablescan_get_options(rte->relid)))
		return false;
	return true;
}

static Size
tablescanEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	return tablescan_parallel_size();
}

/*
 * The row scan of a parallel-aware node: a Parallel Foreign Scan's, or the
 * partial aggregates' computed while scanning (scan_aggregate.c).  NULL
 * for others (a count from metadata) and under EXPLAIN without ANALYZE.
 */
static TsScanState *
node_scan(ForeignScanState *node)
{
	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
		return tablescan_upper_rows(node);
	return node->fdw_state;
}

/* The leader, before the workers start: plan, and publish snapshot and tasks. */
static void
tablescanInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
								  void *coordinate)
{
	tablescan_parallel_init(coordinate, pcxt->nworkers);
	tablescan_scan_parallel_leader(node_scan(node), coordinate);
}

/*
 * The leader, before the workers of a rescan start: plan again (the Params
 * may have changed) and publish.  The ReScan that follows plans the
 * leader's own scan again at its first fetch, against what was published.
 */
static void
tablescanReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
									void *coordinate)
{
	tablescan_scan_parallel_leader(node_scan(node), coordinate);
}

static void
tablescanInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc, void *coordinate)
{
	tablescan_scan_parallel_worker(node_scan(node), coordinate);
}

/* Workers leave their EXPLAIN ANALYZE figures; the leader takes them. */
static void
tablescanShutdownForeignScan(ForeignScanState *node)
{
	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
		tablescan_upper_shutdown(node);
	tablescan_scan_parallel_shutdown(node_scan(node));
}
