/*
 * scan_aggregate.c - aggregates computed while scanning (aggregate pushdown).
 *
 * Owns: SELECT agg(col), ... FROM t [WHERE ...] without GROUP BY or HAVING,
 * where each aggregate is a built-in one we can run outside an Agg node
 * (count, sum, min, max, avg, bool_and, stddev ...: see agg_supported).
 * The ForeignScan that replaces the Aggregate (scanrelid 0) reads the rows
 * with the scan of handler.c, checks the quals on each (ExecQual, as the
 * scan node would) and feeds the aggregates' own transition functions, the
 * way nodeAgg.c does for a plain aggregate: strict functions skip NULL
 * inputs and take the first input as their state, a by-reference state is
 * copied into the aggregation context, the final function runs once.  The
 * result is PostgreSQL's to the last digit; what changes is that no
 * executor node, slot or expression runs per row.  In a parallel plan
 * (UPPERREL_PARTIAL_GROUP_AGG) the same ForeignScan is parallel aware:
 * each process aggregates the rows of the Parallel Foreign Scan's tasks it
 * takes (handler.c shares them out) and returns its partial states,
 * serialized when internal, for the Gather and Finalize Aggregate above.
 *
 * Not pushed: GROUP BY, HAVING, FILTER, DISTINCT, ORDER BY in aggregates,
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
#include "utils/syscache.h"

#include "tablescan_fdw.h"

/* What GetForeignUpperPaths leaves for GetForeignPlan in output_rel->fdw_private. */
typedef struct TsAggScanPath
{
	TsUpperPath up;				/* TS_UPPER_SCAN */
	List	   *attnums;		/* attributes the aggregates and quals read */
	List	   *aggs;			/* the Aggrefs of the target */
	bool		partial;		/* partial aggregates, in a parallel plan */
} TsAggScanPath;

/* One aggregate while scanning: nodeAgg.c's per-transition state, reduced. */
typedef struct TsAggTrans
{
	int			attno;			/* the argument's attribute, 0 = none (count(*)) */
	bool		strict;			/* transition function */
	int16		translen;
	bool		transbyval;
	FunctionCallInfo trans;		/* state, argument */
	FunctionCallInfo final;		/* state; NULL: the state is the result */
	bool		final_strict;
	FunctionCallInfo serial;	/* a partial internal state: to bytea (NULL: none) */
	bool		serial_strict;
	Datum		init_value;
	bool		init_isnull;
	Datum		value;			/* the state, in the aggregation context */
	bool		isnull;
	bool		novalue;		/* strict with NULL init: no input yet */
} TsAggTrans;

/* Executor state of the scan. */
typedef struct TsAggScanState
{
	TsScanState *scan;			/* the rows: handler.c's scan, maybe parallel */
	Relation	rel;
	TupleTableSlot *slot;		/* a row, for the quals */
	ExprState  *qual;			/* NULL: none */
	ExprContext *aggcontext;	/* its per-tuple memory: the states */
	AggState   *aggstate;		/* what the transition functions see as their caller */
	int			naggs;
	TsAggTrans *trans;
	bool		done;			/* the row was returned */
	bool		computed;		/* for EXPLAIN ANALYZE */
	bool		parallel;		/* this process aggregates part of the rows */
	int64		rows_aggregated;
} TsAggScanState;

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

/* The Var an aggregate's argument is (binary coercions aside), or NULL. */
static Var *
argument_var(Expr *expr)
{
	while (expr && IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return expr && IsA(expr, Var) ? (Var *) expr : NULL;
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

/*
 * The path: when every aggregate of the target can be run here and every
 * qual checked on the rows we read.  False (no path) otherwise.  partial:
 * the partial aggregates of a parallel plan (output_rel is the partially
 * grouped rel), each process aggregating the rows of a Parallel Foreign
 * Scan's tasks it takes; a Gather and a Finalize Aggregate combine them.
 */
bool
tablescan_agg_scan_add_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
							bool partial)
{
	TsAggScanPath *ap;
	List	   *aggs = NIL;
	List	   *quals = NIL;
	Bitmapset  *attrs = NULL;
	List	   *attnums = NIL;
	ListCell   *lc;
	Path	   *input = input_rel->cheapest_total_path;
	ForeignPath *path;
	ListCell   *p;
	Cost		cost;
	int			x;

	if (partial)
	{
		/* the Parallel Foreign Scan's path: its workers and cost */
		input = NULL;
		foreach(p, input_rel->partial_pathlist)
			if (((Path *) lfirst(p))->parallel_aware && IsA(lfirst(p), ForeignPath) &&
				(input == NULL || ((Path *) lfirst(p))->total_cost < input->total_cost))
				input = lfirst(p);
	}
	if (root->parse->groupClause != NIL || input == NULL)
		return false;
	foreach(lc, output_rel->reltarget->exprs)
	{
		List	   *vars = pull_var_clause((Node *) lfirst(lc),
										   PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
										   PVC_INCLUDE_PLACEHOLDERS);
		ListCell   *v;

		foreach(v, vars)
		{
			if (!IsA(lfirst(v), Aggref) || !agg_supported(lfirst(v), input_rel->relid, partial))
				return false;
			aggs = lappend(aggs, lfirst(v));
			pull_varattnos((Node *) lfirst(v), input_rel->relid, &attrs);
		}
	}
	if (aggs == NIL)
		return false;
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (ri->pseudoconstant || ri->security_level != 0 ||
			contain_subplans((Node *) ri->clause) || has_exec_param((Node *) ri->clause, NULL))
			return false;
		quals = lappend(quals, ri->clause);
		pull_varattnos((Node *) ri->clause, input_rel->relid, &attrs);
	}
	x = -1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;

		if (attno <= 0)
			return false;		/* whole row or system column */
		attnums = lappend_int(attnums, attno);
	}

	ap = palloc0(sizeof(TsAggScanPath));
	tablescan_upper_path_init(&ap->up, TS_UPPER_SCAN, root, input_rel, quals);
	ap->attnums = attnums;
	ap->aggs = aggs;
	ap->partial = partial;
	output_rel->fdw_private = ap;

	/*
	 * The scan, plus half a transition call per aggregate and row: below
	 * an Aggregate over the same scan, which also pays a node per row.
	 */
	cost = input->total_cost + 0.5 * cpu_operator_cost * list_length(aggs) * input->rows +
		cpu_tuple_cost;
	path = create_foreign_upper_path(root, output_rel, output_rel->reltarget, 1,
									 cost, cost, NIL, NULL, NIL);
	if (partial)
	{
		path->path.parallel_aware = true;
		path->path.parallel_safe = true;
		path->path.parallel_workers = input->parallel_workers;
		add_partial_path(output_rel, (Path *) path);
	}
	else
	{
		/* as a serial scan: a copy in a worker would plan a snapshot of its own */
		path->path.parallel_safe = false;
		add_path(output_rel, (Path *) path);
	}
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
	List	   *scan_tlist = add_to_flat_tlist(NIL, ap->aggs);

	/* executed from fdw_private, which set_plan_references does not visit */
	fix_opfuncids((Node *) ap->up.quals);

	/* the quals first, where a scan node shows them */
	if (ap->up.quals != NIL)
		props = list_make2(makeString("Filter"),
						   makeString(quals_text(ap->up.quals, ap->up.relid, ap->up.table)));
	props = list_concat(props, tablescan_explain_properties(ap->up.base));
	if (ap->partial)
		props = lappend(lappend(props, makeString("Parallel Tasks")),
						makeString(psprintf("%d", ap->up.base->ntasks)));
	props = lappend(props, makeString("Aggregate Pushdown"));
	props = lappend(props, makeString(ap->partial ? "partial aggregates computed while scanning" :
									  "computed while scanning"));
	return make_foreignscan(tlist, NIL, 0, NIL,
							tablescan_upper_private(&ap->up, ap->attnums, props, NIL),
							scan_tlist, NIL, NULL);
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

/* A function's call frame for one of our aggregates, nargs arguments. */
static FunctionCallInfo
call_frame(TsAggScanState *st, Oid fn, int nargs, Oid collation, MemoryContext cxt)
{
	FmgrInfo   *flinfo = MemoryContextAllocZero(cxt, sizeof(FmgrInfo));
	FunctionCallInfo fc = MemoryContextAllocZero(cxt, SizeForFunctionCallInfo(nargs));

	fmgr_info_cxt(fn, flinfo, cxt);
	InitFunctionCallInfoData(*fc, flinfo, nargs, collation, (Node *) st->aggstate, NULL);
	return fc;
}

/*
 * Look up each aggregate's functions and initial state (nodeAgg.c's
 * ExecInitAgg, reduced), in the query's memory: they serve every rescan.
 */
static void
init_transitions(ForeignScanState *node, TsAggScanState *st)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	MemoryContext cxt = node->ss.ps.state->es_query_cxt;
	ListCell   *lc;
	int			i = 0;

	st->naggs = list_length(fs->fdw_scan_tlist);
	st->trans = MemoryContextAllocZero(cxt, sizeof(TsAggTrans) * Max(st->naggs, 1));
	foreach(lc, fs->fdw_scan_tlist)
	{
		Aggref	   *agg = (Aggref *) ((TargetEntry *) lfirst(lc))->expr;
		TsAggTrans *t = &st->trans[i++];
		HeapTuple	tup;
		Form_pg_aggregate form;
		Oid			transfn,
					finalfn,
					serialfn,
					transtype;
		Datum		initval;
		bool		initnull;

		if (!IsA(agg, Aggref))
			elog(ERROR, "tablescan_fdw: aggregate scan column is not an aggregate");
		tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for aggregate %u", agg->aggfnoid);
		form = (Form_pg_aggregate) GETSTRUCT(tup);
		transfn = form->aggtransfn;
		finalfn = form->aggfinalfn;
		serialfn = form->aggserialfn;
		transtype = form->aggtranstype;
		initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
		t->init_isnull = initnull;
		if (!initnull)
		{
			Oid			typinput,
						typioparam;
			MemoryContext old = MemoryContextSwitchTo(cxt);

			getTypeInputInfo(transtype, &typinput, &typioparam);
			t->init_value = OidInputFunctionCall(typinput, TextDatumGetCString(initval),
												 typioparam, -1);
			MemoryContextSwitchTo(old);
		}
		ReleaseSysCache(tup);

		get_typlenbyval(transtype, &t->translen, &t->transbyval);
		if (agg->args == NIL)
			t->attno = 0;
		else
		{
			Var		   *var = argument_var(((TargetEntry *) linitial(agg->args))->expr);

			if (var == NULL || var->varattno <= 0)
				elog(ERROR, "tablescan_fdw: aggregate argument is not a column");
			t->attno = var->varattno;
		}
		t->trans = call_frame(st, transfn, t->attno > 0 ? 2 : 1, agg->inputcollid, cxt);
		t->strict = t->trans->flinfo->fn_strict;
		/* a partial aggregate's result is its state (serialized when internal) */
		if (!DO_AGGSPLIT_SKIPFINAL(agg->aggsplit) && OidIsValid(finalfn))
		{
			t->final = call_frame(st, finalfn, 1, agg->inputcollid, cxt);
			t->final_strict = t->final->flinfo->fn_strict;
		}
		if (DO_AGGSPLIT_SERIALIZE(agg->aggsplit) && transtype == INTERNALOID)
		{
			t->serial = call_frame(st, serialfn, 1, InvalidOid, cxt);
			t->serial_strict = t->serial->flinfo->fn_strict;
		}
	}
}

/* Each aggregate's state before the first row. */
static void
start_transitions(TsAggScanState *st)
{
	MemoryContext old = MemoryContextSwitchTo(st->aggcontext->ecxt_per_tuple_memory);

	for (int i = 0; i < st->naggs; i++)
	{
		TsAggTrans *t = &st->trans[i];

		t->isnull = t->init_isnull;
		t->novalue = t->init_isnull;
		t->value = t->init_isnull ? (Datum) 0 :
			datumCopy(t->init_value, t->transbyval, t->translen);
	}
	MemoryContextSwitchTo(old);
}

/* One row into one aggregate (nodeAgg.c's advance_transition_function). */
static inline void
advance(TsAggScanState *st, TsAggTrans *t, const Datum *values, const bool *isnull)
{
	FunctionCallInfo fc = t->trans;
	Datum		arg = (Datum) 0;
	bool		argnull = false;
	Datum		newval;
	MemoryContext aggcxt = st->aggcontext->ecxt_per_tuple_memory;

	if (t->attno > 0)
	{
		arg = values[t->attno - 1];
		argnull = isnull[t->attno - 1];
	}
	if (t->strict)
	{
		if (argnull)
			return;
		if (t->novalue)
		{
			/* the first input is the state (the input's type is the state's) */
			MemoryContext old = MemoryContextSwitchTo(aggcxt);

			t->value = datumCopy(arg, t->transbyval, t->translen);
			MemoryContextSwitchTo(old);
			t->isnull = false;
			t->novalue = false;
			return;
		}
		if (t->isnull)
			return;
	}
	fc->args[0].value = t->value;
	fc->args[0].isnull = t->isnull;
	if (t->attno > 0)
	{
		fc->args[1].value = arg;
		fc->args[1].isnull = argnull;
	}
	fc->isnull = false;
	newval = FunctionCallInvoke(fc);
	if (!t->transbyval && DatumGetPointer(newval) != DatumGetPointer(t->value))
	{
		/* a new by-reference state: keep a copy, free the old one */
		if (!fc->isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(aggcxt);

			newval = datumCopy(newval, t->transbyval, t->translen);
			MemoryContextSwitchTo(old);
		}
		if (!t->isnull)
			pfree(DatumGetPointer(t->value));
	}
	t->value = newval;
	t->isnull = fc->isnull;
}

/* Call fc on the state: a final or serialization function (strict: NULL for NULL). */
static Datum
call_on_state(FunctionCallInfo fc, bool strict, const TsAggTrans *t, bool *isnull)
{
	if (strict && t->isnull)
	{
		*isnull = true;
		return (Datum) 0;
	}
	fc->args[0].value = t->value;
	fc->args[0].isnull = t->isnull;
	fc->isnull = false;
	{
		Datum		result = FunctionCallInvoke(fc);

		*isnull = fc->isnull;
		return result;
	}
}

/* Read every row the quals keep into the aggregates. */
static void
aggregate_rows(ForeignScanState *node, TsAggScanState *st)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *slot = st->slot;
	MemoryContext old;

	if (st->trans == NULL)
		init_transitions(node, st);
	ReScanExprContext(st->aggcontext);	/* the states of an earlier scan */
	start_transitions(st);
	st->rows_aggregated = 0;
	for (;;)
	{
		Datum	   *values;
		bool	   *isnull;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		if (st->qual)
		{
			/* the quals read a slot */
			if (!tablescan_scan_next_row(st->scan, slot))
				break;
			econtext->ecxt_scantuple = slot;
			if (!ExecQual(st->qual, econtext))
				continue;
			values = slot->tts_values;
			isnull = slot->tts_isnull;
		}
		else if (!tablescan_scan_next_values(st->scan, &values, &isnull))
			break;
		st->rows_aggregated++;
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		for (int i = 0; i < st->naggs; i++)
			advance(st, &st->trans[i], values, isnull);
		MemoryContextSwitchTo(old);
	}
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = NULL;
	ExecClearTuple(slot);
	st->computed = true;
}

/*
 * The one row: each aggregate's result (final function), or in a parallel
 * plan its partial state (serialized when internal) for the Finalize
 * Aggregate above the Gather (nodeAgg.c's finalize_aggregate and
 * finalize_partialaggregate).
 */
TupleTableSlot *
tablescan_agg_scan_iterate(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;

	ExecClearTuple(slot);
	if (st->done)
		return slot;
	aggregate_rows(node, st);
	old = MemoryContextSwitchTo(st->aggcontext->ecxt_per_tuple_memory);
	for (int i = 0; i < st->naggs; i++)
	{
		TsAggTrans *t = &st->trans[i];

		if (t->final)
			slot->tts_values[i] = call_on_state(t->final, t->final_strict, t,
												&slot->tts_isnull[i]);
		else if (t->serial)
			slot->tts_values[i] = call_on_state(t->serial, t->serial_strict, t,
												&slot->tts_isnull[i]);
		else
		{
			slot->tts_values[i] = t->value;
			slot->tts_isnull[i] = t->isnull;
		}
	}
	MemoryContextSwitchTo(old);
	st->done = true;
	ExecStoreVirtualTuple(slot);
	return slot;
}

void
tablescan_agg_scan_rescan(ForeignScanState *node)
{
	TsAggScanState *st = node->fdw_state;

	/* aggregate again: a new snapshot may have come */
	st->done = false;
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

	if (!es->analyze || st == NULL || !st->computed)
		return;
	tablescan_scan_explain(st->scan, es);
	/* in a parallel plan, the leader's rows only: not shown */
	if (!st->parallel)
		ExplainPropertyInteger("Rows Aggregated", NULL, st->rows_aggregated, es);
}
