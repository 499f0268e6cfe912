/*
 * scan_aggregate.c - aggregates computed while scanning (aggregate pushdown).
 *
 * Owns: SELECT agg(col), ... FROM t [WHERE ...] without GROUP BY or HAVING,
 * where each aggregate is a built-in one we can run outside an Agg node
 * (count, sum, min, max, avg, bool_and, stddev ...: see agg_supported).
 * The ForeignScan that replaces the Aggregate (scanrelid 0) reads the rows
 * with the scan of handler.c, checks the quals on each (ExecQual, as the
 * scan node would) and feeds the aggregates' own transition functions
 * (scan_agg_trans.c), the way nodeAgg.c does for a plain aggregate: strict functions skip NULL
 * inputs and take the first input as their state, a by-reference state is
 * copied into the aggregation context, the final function runs once.  The
 * result is PostgreSQL's to the last digit; what changes is that no
 * executor node, slot or expression runs per row.  In a parallel plan
 * (UPPERREL_PARTIAL_GROUP_AGG) the same ForeignScan is parallel aware:
 * each process aggregates the rows of the Parallel Foreign Scan's tasks it
 * takes (handler.c shares them out) and returns its partial states,
 * serialized when internal, for the Gather and Finalize Aggregate above.
 * With GROUP BY the scan computes partial aggregates per group under a
 * Finalize Aggregate, serial or parallel: scan_group.c has the design.
 *
 * Not pushed: HAVING without GROUP BY, FILTER, DISTINCT, ORDER BY in aggregates,
 * arguments other than a column, aggregates of extensions or of
 * polymorphic types, quals with subqueries or outer Params.  Those are
 * aggregated by PostgreSQL over a normal scan.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/prep.h"
#include "optimizer/planmain.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "scan_aggregate.h"

/* What GetForeignUpperPaths leaves for GetForeignPlan in the upper rel's fdw_private. */
typedef struct TsAggScanPath
{
	TsUpperPath up;				/* TS_UPPER_SCAN */
	List	   *attnums;		/* attributes the aggregates, keys and quals read */
	List	   *keys;			/* GROUP BY keys: columns (maybe relabeled) of the target */
	List	   *const_keys;		/* GROUP BY keys that are constants (a view's, say) */
	List	   *shard_keys;		/* GROUP BY keys that are the pseudo-column _SHARD (Vars) */
	List	   *shard_values;	/* their value (Consts) */
	List	   *eqops;			/* their equality operators (OIDs) */
	List	   *aggs;			/* the Aggrefs of the target */
	bool		partial;		/* partial aggregates, for a Finalize Aggregate */
	bool		parallel;		/* in a parallel plan: each process's part */
} TsAggScanPath;

/* ---- planning ---------------------------------------------------------- */

/* Transition functions with an internal state that need no more of an Agg than its context. */
static bool
internal_state_ok(Oid transfn)
{
	switch (transfn)
	{
		case F_INT8_AVG_ACCUM:	/* sum(int8), avg(int8) */
		case F_NUMERIC_AVG_ACCUM:	/* sum(numeric), avg(numeric) */
		case F_INT2_ACCUM:		/* stddev / variance of ints and numeric */
		case F_INT4_ACCUM:
		case F_INT8_ACCUM:
		case F_NUMERIC_ACCUM:
			return true;
		default:
			return false;
	}
}

/* The column of relid an aggregate's argument is, or NULL. */
static Var *
argument_column(Expr *expr, Index relid)
{
	Var		   *var = argument_var(expr);

	if (var == NULL || var->varno != relid || var->varlevelsup != 0 || var->varattno <= 0)
		return NULL;
	return var;
}

/*
 * Can we run this aggregate ourselves: a built-in, plain aggregate of at
 * most one column, whose transition function needs nothing of an Agg node
 * but its memory context?
 */
static bool
agg_supported(Aggref *agg, Index relid, bool partial)
{
	HeapTuple	tup;
	Form_pg_aggregate form;
	Oid		   *argtypes;
	int			nargs;
	Oid			rettype;
	bool		ok;

	if (agg->agglevelsup != 0 ||
		agg->aggsplit != (partial ? AGGSPLIT_INITIAL_SERIAL : AGGSPLIT_SIMPLE) ||
		agg->aggfilter != NULL || agg->aggdistinct != NIL || agg->aggorder != NIL ||
		agg->aggkind != AGGKIND_NORMAL || agg->aggvariadic ||
		agg->aggfnoid >= FirstNormalObjectId)
		return false;
	if (list_length(agg->args) > 1 || (agg->args == NIL && !agg->aggstar))
		return false;
	if (agg->args != NIL &&
		argument_column(((TargetEntry *) linitial(agg->args))->expr, relid) == NULL)
		return false;
	/* no polymorphic aggregate: the functions would ask for their call's types */
	rettype = get_func_signature(agg->aggfnoid, &argtypes, &nargs);
	if (IsPolymorphicType(rettype))
		return false;
	for (int i = 0; i < nargs; i++)
		if (IsPolymorphicType(argtypes[i]))
			return false;
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	form = (Form_pg_aggregate) GETSTRUCT(tup);
	ok = !form->aggfinalextra && !IsPolymorphicType(form->aggtranstype) &&
		(form->aggtranstype != INTERNALOID ||
		 (internal_state_ok(form->aggtransfn) && (!partial || OidIsValid(form->aggserialfn))));
	ReleaseSysCache(tup);
	return ok;
}

/* Does this expression hold an outer Param (one a rescan may change)? */
static bool
has_exec_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	return expression_tree_walker(node, has_exec_param, context);
}

/* Is this path a Gather (maybe under a projection)? */
static bool
has_gather(Path *path)
{
	while (IsA(path, ProjectionPath))
		path = ((ProjectionPath *) path)->subpath;
	return IsA(path, GatherPath) || IsA(path, GatherMergePath);
}

/* The GROUP BY clause of the target's i-th expression, or NULL when it is no key. */
static SortGroupClause *
target_group_clause(PlannerInfo *root, PathTarget *target, int i)
{
	Index		sgref = get_pathtarget_sortgroupref(target, i);

	if (sgref == 0 || root->parse->groupClause == NIL)
		return NULL;
	return get_sortgroupref_clause_noerr(sgref, root->parse->groupClause);
}

/*
 * The ForeignPath of rel (an upper rel whose reltarget is what the scan
 * returns): when every GROUP BY key of the target is a column (maybe
 * relabeled: a COLLATE) with a hash opclass, every aggregate can be run
 * here and every qual checked on the rows we read.  NULL otherwise.
 * partial: the target's aggregates are partial ones (their states, for a
 * Finalize Aggregate above); GROUP BY keys only then.  parallel: in a
 * parallel plan (rel is the partially grouped rel), each process
 * aggregating the rows of a Parallel Foreign Scan's tasks it takes, a
 * Gather and a Finalize Aggregate combining them.  groups: the rows.
 * The caller adds the path.
 */
ForeignPath *
tablescan_agg_scan_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *rel,
						bool partial, bool parallel, double groups)
{
	PathTarget *target = rel->reltarget;
	TsAggScanPath *ap;
	List	   *aggs = NIL;
	List	   *keys = NIL;
	List	   *const_keys = NIL;
	List	   *shard_keys = NIL;
	List	   *shard_values = NIL;
	TsPlanState *ps = input_rel->fdw_private;
	List	   *eqops = NIL;
	List	   *quals = NIL;
	Bitmapset  *attrs = NULL;
	List	   *attnums = NIL;
	ListCell   *lc;
	Path	   *input = input_rel->cheapest_total_path;
	ForeignPath *path;
	ListCell   *p;
	Cost		cost;
	int			i = 0;
	int			x;

	if (parallel)
	{
		/* the Parallel Foreign Scan's path: its workers and cost */
		input = NULL;
		foreach(p, input_rel->partial_pathlist)
		{
			Path	   *scan = lfirst(p);

			/* maybe under a projection (of a COLLATE, say) */
			while (IsA(scan, ProjectionPath))
				scan = ((ProjectionPath *) scan)->subpath;
			if (scan->parallel_aware && IsA(scan, ForeignPath) &&
				(input == NULL || ((Path *) lfirst(p))->total_cost < input->total_cost))
				input = lfirst(p);
		}
	}
	else if (root->parse->groupClause != NIL && has_gather(input))
	{
		/* the serial scan's cost, not a Gather's (the cheapest path may be one) */
		input = NULL;
		foreach(p, input_rel->pathlist)
			if (!has_gather(lfirst(p)) && ((Path *) lfirst(p))->param_info == NULL &&
				(input == NULL || ((Path *) lfirst(p))->total_cost < input->total_cost))
				input = lfirst(p);
	}
	if (input == NULL)
		return NULL;
	foreach(lc, target->exprs)
	{
		SortGroupClause *sgc = target_group_clause(root, target, i++);
		List	   *vars;
		ListCell   *v;

		if (sgc != NULL)
		{
			/*
			 * A constant key (a view's constant column: scale-out's _SHARD)
			 * is the same for every row: the scan groups by the other keys
			 * and its node returns the constant beside them.
			 */
			if (partial && sgc->hashable && IsA(strip_implicit_coercions(lfirst(lc)), Const))
			{
				if (!list_member(const_keys, lfirst(lc)))
					const_keys = lappend(const_keys, lfirst(lc));
				continue;
			}
			/* the pseudo-column _SHARD: a constant too, returned as its column */
			if (partial && sgc->hashable && IsA(lfirst(lc), Var) &&
				tablescan_is_shard_var(lfirst(lc), input_rel->relid, ps->att_field, ps->natts))
			{
				Var		   *var = lfirst(lc);

				if (!list_member(shard_keys, var))
				{
					shard_keys = lappend(shard_keys, var);
					shard_values = lappend(shard_values,
										   tablescan_shard_const(ps->opts, var->vartype,
																 var->vartypmod));
				}
				continue;
			}
			/* a GROUP BY key: a column, hashed with its type's own functions */
			if (!partial || !sgc->hashable ||
				argument_column(lfirst(lc), input_rel->relid) == NULL)
				return NULL;
			if (!list_member(keys, lfirst(lc)))
			{
				keys = lappend(keys, lfirst(lc));
				eqops = lappend_oid(eqops, sgc->eqop);
				pull_varattnos((Node *) lfirst(lc), input_rel->relid, &attrs);
			}
			continue;
		}
		vars = pull_var_clause((Node *) lfirst(lc),
							   PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
							   PVC_INCLUDE_PLACEHOLDERS);
		foreach(v, vars)
		{
			if (!IsA(lfirst(v), Aggref) || !agg_supported(lfirst(v), input_rel->relid, partial))
				return NULL;
			aggs = lappend(aggs, lfirst(v));
			pull_varattnos((Node *) lfirst(v), input_rel->relid, &attrs);
		}
	}
	if (aggs == NIL && keys == NIL && const_keys == NIL && shard_keys == NIL)
		return NULL;
	if (list_length(keys) + list_length(const_keys) + list_length(shard_keys) !=
		list_length(root->parse->groupClause))
		return NULL;			/* a key the target does not hold */
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (ri->pseudoconstant || ri->security_level != 0 ||
			contain_subplans((Node *) ri->clause) || has_exec_param((Node *) ri->clause, NULL))
			return NULL;
		quals = lappend(quals, ri->clause);
		pull_varattnos((Node *) ri->clause, input_rel->relid, &attrs);
	}
	x = -1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;

		if (attno <= 0)
			return NULL;		/* whole row or system column */
		if (attno <= ps->natts && ps->att_field[attno - 1] == TS_COLUMN_SHARD)
			return NULL;		/* _SHARD as an aggregate's argument */
		attnums = lappend_int(attnums, attno);
	}

	ap = palloc0(sizeof(TsAggScanPath));
	tablescan_upper_path_init(&ap->up, TS_UPPER_SCAN, root, input_rel, quals);
	ap->attnums = attnums;
	ap->keys = keys;
	ap->const_keys = const_keys;
	ap->shard_keys = shard_keys;
	ap->shard_values = shard_values;
	ap->eqops = eqops;
	ap->aggs = aggs;
	ap->partial = partial;
	ap->parallel = parallel;
	rel->fdw_private = ap;

	if (keys == NIL)
	{
		/*
		 * The scan, plus half a call per aggregate (its transition) and row,
		 * and the one row returned: below an Aggregate over the same scan,
		 * which also pays a node per row.  One group at most: the keys, if
		 * any, are constants (_SHARD), whatever PostgreSQL estimated for a
		 * column without statistics.
		 */
		groups = 1;
		cost = input->total_cost +
			0.5 * cpu_operator_cost * list_length(aggs) * input->rows + cpu_tuple_cost;
	}
	else
	{
		/*
		 * With GROUP BY, the scan's group table does per row what a
		 * HashAggregate would (hash and compare the keys, run the
		 * transitions) and per group it serializes the states, which the
		 * Finalize Aggregate above deserializes and combines.  What it saves
		 * is a row returned per row read, less one per group.  So it wins
		 * when the groups are well below the rows and loses when they
		 * approach them (a near-unique key: each row is aggregated twice).
		 */
		AggClauseCosts agg_costs;

		MemSet(&agg_costs, 0, sizeof(agg_costs));
		get_agg_clause_costs(root, AGGSPLIT_INITIAL_SERIAL, &agg_costs);
		cost = input->total_cost - cpu_tuple_cost * input->rows +
			(cpu_operator_cost * list_length(keys) + agg_costs.transCost.per_tuple) * input->rows +
			(cpu_tuple_cost + agg_costs.finalCost.per_tuple) * groups;
	}
	path = create_foreign_upper_path(root, rel, target, groups, cost, cost, NIL, NULL, NIL);
	if (parallel)
	{
		path->path.parallel_aware = true;
		path->path.parallel_safe = true;
		path->path.parallel_workers = input->parallel_workers;
	}
	else
	{
		/* as a serial scan: a copy in a worker would plan a snapshot of its own */
		path->path.parallel_safe = false;
	}
	return path;
}

/*
 * The path of output_rel (the grouped rel, or the partially grouped one of
 * a parallel plan: partial), when tablescan_agg_scan_path finds one.
 */
bool
tablescan_agg_scan_add_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
							bool partial)
{
	Query	   *parse = root->parse;
	double		groups = 1;
	ForeignPath *path;

	if (parse->groupClause != NIL)
		groups = estimate_num_groups(root,
									 get_sortgrouplist_exprs(parse->groupClause,
															 parse->targetList),
									 input_rel->rows, NULL, NULL);
	path = tablescan_agg_scan_path(root, input_rel, output_rel, partial, partial, groups);
	if (path == NULL)
		return false;
	if (partial)
		add_partial_path(output_rel, (Path *) path);
	else
		add_path(output_rel, (Path *) path);
	return true;
}

/* The quals as SQL, for EXPLAIN (their Vars renumbered to a one-table context). */
static char *
quals_text(List *quals, Index relid, Oid table)
{
	List	   *copy = copyObject(quals);
	List	   *cxt = deparse_context_for(get_rel_name(table), table);

	ChangeVarNodes((Node *) copy, relid, 1, 0);
	return deparse_expression((Node *) make_ands_explicit(copy), cxt, false, false);
}

ForeignScan *
tablescan_agg_scan_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist)
{
	TsAggScanPath *ap = upper_rel->fdw_private;
	List	   *props = NIL;
	List	   *scan_tlist = add_to_flat_tlist(add_to_flat_tlist(add_to_flat_tlist(NIL, ap->keys),
														  ap->shard_keys),
										ap->aggs);
	List	   *shard_attnos = NIL;
	List	   *const_keys = list_concat_copy(ap->shard_keys, ap->const_keys);
	List	   *private;
	const char *how;

	/* executed from fdw_private, which set_plan_references does not visit */
	fix_opfuncids((Node *) ap->up.quals);

	/* the quals first, where a scan node shows them */
	if (ap->up.quals != NIL)
		props = list_make2(makeString("Filter"),
						   makeString(quals_text(ap->up.quals, ap->up.relid, ap->up.table)));
	props = list_concat(props, tablescan_explain_properties(ap->up.base));
	if (ap->parallel)
		props = tablescan_explain_parallel_tasks(props, ap->up.base->ntasks);
	if (ap->keys != NIL || const_keys != NIL)
	{
		StringInfoData keys;
		ListCell   *lc;

		initStringInfo(&keys);
		foreach(lc, list_concat_copy(ap->keys, const_keys))
			appendStringInfo(&keys, "%s%s", keys.len > 0 ? ", " : "",
							 quals_text(list_make1(lfirst(lc)), ap->up.relid, ap->up.table));
		props = lappend(lappend(props, makeString("Group Key")), makeString(keys.data));
		how = "partial aggregates per group computed while scanning";
	}
	else if (ap->partial)
		how = "partial aggregates computed while scanning";
	else
		how = "computed while scanning";
	props = lappend(lappend(props, makeString("Aggregate Pushdown")), makeString(pstrdup(how)));
	/* the keys' equality operators where a count(*) scan has its columns */
	private = tablescan_upper_private(&ap->up, ap->attnums, props, ap->eqops);
	Assert(list_length(private) == FdwScanPrivateConstGroups);
	private = lappend(private, makeInteger(ap->keys == NIL && const_keys != NIL));
	{
		ListCell   *lc;

		foreach(lc, ap->shard_keys)
			shard_attnos = lappend_int(shard_attnos, ((Var *) lfirst(lc))->varattno);
	}
	Assert(list_length(private) == FdwScanPrivateShardKeys);
	private = lappend(private, list_make2(shard_attnos, ap->shard_values));
	return make_foreignscan(tlist, NIL, 0, NIL, private, scan_tlist, NIL, NULL);
}

/* ---- execution --------------------------------------------------------- */

/*
 * The relation is opened and the scan's source set here, before a parallel
 * plan's leader plans and publishes the scan (InitializeDSMForeignScan).
 */
void
tablescan_agg_scan_begin(ForeignScanState *node, int eflags)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	TsAggScanState *st;
	Oid			table;
	List	   *quals;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	st = palloc0(sizeof(TsAggScanState));
	st->scan = tablescan_scan_create(node->ss.ps.state);
	st->aggcontext = CreateExprContext(node->ss.ps.state);
	/* the transition functions ask AggCheckCallContext for this context */
	st->aggstate = makeNode(AggState);
	st->aggstate->curaggcontext = st->aggcontext;
	st->parallel = fs->scan.plan.parallel_aware;
	table = (Oid) strtoul(strVal(list_nth(fs->fdw_private, FdwScanPrivateUpperTable)), NULL, 10);
	st->rel = table_open(table, AccessShareLock);
	quals = (List *) list_nth(fs->fdw_private, FdwScanPrivateUpperQuals);
	tablescan_scan_set_source(st->scan, st->rel,
							  (Index) intVal(list_nth(fs->fdw_private, FdwScanPrivateUpperRelid)),
							  quals, (List *) list_nth(fs->fdw_private, FdwScanPrivateAttnums),
							  node->ss.ps.ps_ExprContext);
	tablescan_scan_take_plan(st->scan, list_nth(fs->fdw_private, FdwScanPrivatePlanKey));
	st->slot = MakeSingleTupleTableSlot(CreateTupleDescCopy(RelationGetDescr(st->rel)),
										&TTSOpsVirtual);

	/*
	 * No parent: the quals read our slot, not the node's, and PARAM_EXTERN
	 * values come from the ExprContext (outer Params were refused).
	 */
	st->qual = ExecInitQual(quals, NULL);
	node->fdw_state = st;
}

TsScanState *
tablescan_agg_scan_rows(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;

	return st ? st->scan : NULL;
}

/*
 * A worker's shutdown: its rows aggregated (by columns) go with the scan's
 * figures to the leader (tablescan_scan_parallel_shutdown, after this).
 */
void
tablescan_agg_scan_shutdown(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;

	if (st == NULL || st->scan == NULL || !st->parallel || !IsParallelWorker())
		return;
	tablescan_scan_count_aggregated(st->scan, st->rows_aggregated, st->rows_by_column);
	st->rows_aggregated = 0;
	st->rows_by_column = 0;
}

/*
 * The next row the quals keep (its values, valid until the next call), or
 * false after the last.  The node's per-tuple memory is reset per row.
 */
bool
tablescan_agg_next_row(ForeignScanState *node, TsAggScanState *st, Datum **values,
					   bool **isnull)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *slot = st->slot;
	ErrorContextCallback errcb;

	for (;;)
	{
		MemoryContext tuplecxt = econtext->ecxt_per_tuple_memory;
		bool		got;

		CHECK_FOR_INTERRUPTS();
		/* ResetExprContext, without the call when there is nothing to free */
		if (!tuplecxt->isReset || tuplecxt->firstchild != NULL)
			MemoryContextReset(tuplecxt);
		/* reading and converting: an ERROR names the data file, as a scan's does */
		tablescan_scan_context_push(st->scan, &errcb);
		got = st->qual ? tablescan_scan_next_row(st->scan, slot) :
			tablescan_scan_next_values(st->scan, values, isnull);
		tablescan_scan_context_pop(&errcb);
		if (!got)
			break;
		if (st->qual)
		{
			/* the quals read a slot */
			econtext->ecxt_scantuple = slot;
			if (!ExecQual(st->qual, econtext))
				continue;
			*values = slot->tts_values;
			*isnull = slot->tts_isnull;
		}
		return true;
	}
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = NULL;
	ExecClearTuple(slot);
	return false;
}

/* Read every row the quals keep into the aggregates (no GROUP BY). */
static void
aggregate_rows(ForeignScanState *node, TsAggScanState *st)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	Datum	   *values;
	bool	   *isnull;
	MemoryContext old;

	ReScanExprContext(st->aggcontext);	/* the states of an earlier scan */
	tablescan_agg_start(st, st->values);
	st->rows_aggregated = 0;
	st->rows_by_column = 0;
	/* by columns where scan_vector.c takes the aggregates, else row by row */
	if (tablescan_vector_aggregate(node, st) != TS_VECTOR_NO)
	{
		st->computed = true;
		return;
	}
	while (tablescan_agg_next_row(node, st, &values, &isnull))
	{
		st->rows_aggregated++;
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		tablescan_agg_advance_all(st, st->values, values, isnull);
		MemoryContextSwitchTo(old);
	}
	st->computed = true;
}

/*
 * Without GROUP BY the one row: each aggregate's result (final function),
 * or in a parallel plan its partial state (serialized when internal) for
 * the Finalize Aggregate above the Gather.  With GROUP BY, a row per group
 * (scan_group.c).
 */
TupleTableSlot *
tablescan_agg_scan_iterate(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;

	if (st->trans == NULL)
		tablescan_agg_init(node, st);
	if (st->nkeys > 0)
		return tablescan_group_iterate(node, st);
	ExecClearTuple(slot);
	if (st->done)
		return slot;
	aggregate_rows(node, st);
	st->done = true;
	/* GROUP BY constants over no row: no group (an aggregate without GROUP BY has its row) */
	if (st->const_groups && st->rows_aggregated == 0)
		return slot;
	old = MemoryContextSwitchTo(st->aggcontext->ecxt_per_tuple_memory);
	for (int i = 0; i < st->ncolumns; i++)
	{
		int			a = st->column_agg[i];

		if (a < 0)
		{
			/* the pseudo-column _SHARD of GROUP BY */
			slot->tts_values[i] = st->column_const[i];
			slot->tts_isnull[i] = false;
			continue;
		}
		slot->tts_values[i] = tablescan_agg_result(&st->trans[a], &st->values[a],
												   &slot->tts_isnull[i]);
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	return slot;
}

void
tablescan_agg_scan_rescan(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;

	/* aggregate again: a new snapshot may have come */
	st->done = false;
	st->rows_by_column = 0;
	if (st->nkeys > 0)
		tablescan_group_rescan(st);
	tablescan_scan_rescan(st->scan, true);
}

void
tablescan_agg_scan_end(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;

	if (st == NULL)
		return;
	tablescan_scan_end(st->scan);
	ExecDropSingleTupleTableSlot(st->slot);
	table_close(st->rel, NoLock);
	node->fdw_state = NULL;
}

void
tablescan_agg_scan_explain(ForeignScanState *node, ExplainState *es)
{
	TsAggScanState *st = node->fdw_state;
	int64		rows,
				by_column;

	/* a parallel plan's leader may have read nothing (parallel_leader_participation off) */
	if (!es->analyze || st == NULL || (!st->computed && !st->parallel) || st->scan == NULL)
		return;
	tablescan_scan_explain(st->scan, es);
	/* in a parallel plan, the leader's rows and the workers' (left at their shutdown) */
	rows = st->rows_aggregated;
	by_column = st->rows_by_column;
	if (st->parallel)
	{
		int64		wrows,
					wby_column;

		tablescan_scan_aggregated(st->scan, &wrows, &wby_column);
		rows += wrows;
		by_column += wby_column;
	}
	ExplainPropertyInteger("Rows Aggregated", NULL, rows, es);
	if (by_column > 0)
		ExplainPropertyInteger("Rows Aggregated By Column", NULL, by_column, es);
	/* the groups: the leader's only, not shown in a parallel plan */
	if (st->nkeys > 0 && !st->parallel)
		tablescan_group_explain(st, es);
}
