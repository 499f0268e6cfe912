/*
 * count_metadata.c - count(*) answered from Paimon metadata (aggregate
 * pushdown): its upper path, plan node and executor callbacks, which
 * upper.c calls.
 *
 * The count: SELECT count(*) FROM t [WHERE quals on partition keys] [GROUP
 * BY partition keys] over an append table becomes a ForeignScan (scanrelid
 * 0, one row of count(*) values per group).  At execution the Paimon scan
 * is planned again (its own snapshot, as every scan) and the answer is the
 * manifests' row counts minus deletion vectors over the partitions the
 * quals select (src/read/row_count.c): no data file is opened.
 *
 * Pushed only when that is exact: every qual must turn into a predicate on
 * partition keys that can be decided per partition (no LIKE, no NOT, no
 * literal of another type, no Param), and the table must be append-only
 * without data evolution.
 */
#include "postgres.h"

#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"
#include "read/read.h"
#include "expr/predicate.h"

/* What GetForeignUpperPaths leaves for GetForeignPlan in output_rel->fdw_private. */
typedef struct TsCountPath
{
	TsUpperPath up;				/* TS_UPPER_COUNT */
	List	   *group_vars;		/* GROUP BY columns (Vars of partition keys) */
	List	   *group_fields;	/* their read-schema fields (Integer) */
	List	   *aggs;			/* the count(*) Aggrefs of the target */
	double		groups;			/* estimated rows */
} TsCountPath;

/* Executor state of the count(*) scan. */
typedef struct TsCountState
{
	MemoryContext cxt;			/* plan and counts of one execution */
	MemoryContext rowcxt;		/* Datums of the current row */
	bool		started;
	const ts_schema *schema;
	int			nkeys;
	int		   *key_fields;		/* read-schema field of each GROUP BY key */
	int		   *column_key;		/* per scan column: key index, -1 = the count, -2 = _SHARD */
	Datum	   *column_shard;	/* per scan column of _SHARD: its value */
	bool		shard_key;		/* GROUP BY _SHARD */
	ts_count_group *groups;
	int			ngroups;
	int			next;
	bool		counted;		/* for EXPLAIN ANALYZE */
	TsPlanOffer *offer;			/* the plan made while planning, taken (plan_reuse.c) */
	bool		plan_reused;	/* the last count's plan is that one */
	bool		cache_hit;
	bool		cache_on;
	ts_count_metrics metrics;
} TsCountState;

/* count(*) with nothing that changes its meaning */
static bool
is_plain_count_star(Node *node)
{
	Aggref	   *agg;

	if (!IsA(node, Aggref))
		return false;
	agg = (Aggref *) node;
	return agg->aggfnoid == F_COUNT_ && agg->aggstar && agg->agglevelsup == 0 &&
		agg->aggfilter == NULL && agg->aggdistinct == NIL && agg->aggorder == NIL &&
		agg->aggsplit == AGGSPLIT_SIMPLE;
}

/*
 * The count(*) Aggrefs of the grouping target, or NIL when the target holds
 * anything else that depends on the rows (other aggregates, columns that
 * are not grouped by).
 */
static List *
count_star_aggs(PathTarget *target, List *group_vars)
{
	List	   *aggs = NIL;
	ListCell   *lc;

	foreach(lc, target->exprs)
	{
		List	   *vars = pull_var_clause((Node *) lfirst(lc),
										   PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
										   PVC_INCLUDE_PLACEHOLDERS);
		ListCell   *v;

		foreach(v, vars)
		{
			if (IsA(lfirst(v), Var) && list_member(group_vars, lfirst(v)))
				continue;
			if (!is_plain_count_star(lfirst(v)))
				return NIL;
			aggs = lappend(aggs, lfirst(v));
		}
	}
	return aggs;
}

/*
 * GROUP BY keys we can form from partition values: plain columns of
 * partition keys whose PostgreSQL equality is the equality of Paimon values
 * (no floats, no decimals or timestamps a typmod could round, no
 * nondeterministic collation).  False when some key is anything else.
 */
static bool
group_keys(PlannerInfo *root, RelOptInfo *rel, TsPlanState *ps, List **vars, List **fields)
{
	Query	   *parse = root->parse;
	ListCell   *lc;

	*vars = NIL;
	*fields = NIL;
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		Node	   *expr = get_sortgroupclause_expr(sgc, parse->targetList);
		Var		   *var;
		int			field;
		const ts_type *t;

		if (!IsA(expr, Var))
			return false;
		var = (Var *) expr;
		if (var->varno != rel->relid || var->varlevelsup != 0 || var->varattno <= 0 ||
			var->varattno > ps->natts)
			return false;
		field = ps->att_field[var->varattno - 1];
		if (field == TS_COLUMN_SHARD)
		{
			/* the pseudo-column _SHARD: one value, every row's (shard_column.c) */
			if (!list_member(*vars, var))
			{
				*vars = lappend(*vars, var);
				*fields = lappend_int(*fields, field);
			}
			continue;
		}
		if (field < 0 ||
			!ts_schema_is_partition_key(ps->plan->schema, ps->plan->schema->fields[field].name))
			return false;
		t = ps->plan->schema->fields[field].type;
		switch (t->kind)
		{
			case TS_BOOLEAN:
			case TS_TINYINT:
			case TS_SMALLINT:
			case TS_INT:
			case TS_BIGINT:
			case TS_VARCHAR:
			case TS_DATE:
				break;
			case TS_TIMESTAMP:
			case TS_TIMESTAMP_LTZ:
				if (var->vartypmod >= 0)
					return false;
				break;
			default:
				return false;
		}
		if (!tablescan_column_type_matches(var->vartype, t))
			return false;
		if (OidIsValid(var->varcollid) && !get_collation_isdeterministic(var->varcollid))
			return false;
		if (!list_member(*vars, var))
		{
			*vars = lappend(*vars, var);
			*fields = lappend_int(*fields, field);
		}
	}
	return true;
}

bool
tablescan_count_add_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	TsPlanState *ps = input_rel->fdw_private;
	TsCountPath *cp;
	List	   *aggs;
	List	   *group_vars,
			   *group_fields;
	List	   *quals = NIL;
	ts_predicate *pred;
	ListCell   *lc;
	int64		files = 0,
				dvs = 0;
	Cost		cost;

	if (!ts_plan_countable(ps->plan, NULL))
		return false;
	if (!group_keys(root, input_rel, ps, &group_vars, &group_fields))
		return false;
	aggs = count_star_aggs(output_rel->reltarget, group_vars);
	if (aggs == NIL)
		return false;
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (ri->pseudoconstant)
			return false;
		quals = lappend(quals, ri->clause);
	}
	if (!tablescan_quals_convert_all(quals, input_rel->relid, ps->att_field, ps->natts,
									 ps->plan->schema, NULL, &pred) ||
		(pred && !ts_predicate_exact_on_partitions(pred, ps->plan->schema)))
		return false;

	cp = palloc0(sizeof(TsCountPath));
	tablescan_upper_path_init(&cp->up, TS_UPPER_COUNT, root, input_rel, quals);
	cp->group_vars = group_vars;
	cp->group_fields = group_fields;
	cp->aggs = aggs;
	cp->groups = group_vars == NIL ? 1 : Max(ps->plan->metrics.partitions_kept, 1);
	output_rel->fdw_private = cp;

	/* reading metadata only: far below any scan */
	for (int s = 0; s < ps->plan->nsplits; s++)
		for (int f = 0; f < ps->plan->splits[s].nfiles; f++)
		{
			files++;
			dvs += ps->plan->splits[s].files[f].dv_path != NULL;
		}
	cost = 1 + 0.001 * files + seq_page_cost * dvs + cpu_tuple_cost * cp->groups;
	add_path(output_rel, (Path *) create_foreign_upper_path(root, output_rel,
															output_rel->reltarget, cp->groups,
															cost, cost, NIL, NULL, NIL));
	return true;
}

ForeignScan *
tablescan_count_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist)
{
	TsCountPath *cp = upper_rel->fdw_private;
	List	   *props = tablescan_explain_properties(cp->up.base);
	List	   *scan_tlist = add_to_flat_tlist(add_to_flat_tlist(NIL, cp->group_vars), cp->aggs);
	List	   *columns = NIL;
	ListCell   *lc;

	/*
	 * per scan column: the read-schema field of a GROUP BY key,
	 * TS_COLUMN_SHARD for _SHARD, or -1 for count(*)
	 */
	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		int			field = -1;
		ListCell   *v,
				   *f;

		forboth(v, cp->group_vars, f, cp->group_fields)
			if (equal(lfirst(v), tle->expr))
				field = lfirst_int(f);
		columns = lappend_int(columns, field);
	}
	props = lappend(props, makeString("Aggregate Pushdown"));
	props = lappend(props, makeString(cp->group_vars == NIL ?
									  "count(*) from manifest row counts" :
									  "count(*) per partition from manifest row counts"));
	return make_foreignscan(tlist, NIL, 0, NIL,
							tablescan_upper_private(&cp->up, NIL, props, columns),
							scan_tlist, NIL, NULL);
}

/* ---- execution --------------------------------------------------------- */

void
tablescan_count_begin(ForeignScanState *node, int eflags)
{
	TsCountState *st;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	st = palloc0(sizeof(TsCountState));
	st->cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
									"tablescan_fdw count", ALLOCSET_DEFAULT_SIZES);
	st->rowcxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
									   "tablescan_fdw count row", ALLOCSET_SMALL_SIZES);
	st->offer = tablescan_plan_take(list_nth(((ForeignScan *) node->ss.ps.plan)->fdw_private,
											 FdwScanPrivatePlanKey),
									node->ss.ps.state->es_query_cxt);
	node->fdw_state = st;
}

/* Plan the table's scan now and count its rows (per group) from metadata. */
static void
count_rows(ForeignScanState *node, TsCountState *st)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	Index		relid = (Index) intVal(list_nth(fs->fdw_private, FdwScanPrivateUpperRelid));
	Oid			table = (Oid) strtoul(strVal(list_nth(fs->fdw_private, FdwScanPrivateUpperTable)),
									  NULL, 10);
	List	   *quals = (List *) list_nth(fs->fdw_private, FdwScanPrivateUpperQuals);
	List	   *columns = (List *) list_nth(fs->fdw_private, FdwScanPrivateCountColumns);
	TsTableOptions *opts;
	Relation	rel;
	ts_plan    *plan;
	ts_predicate *pred;
	int		   *att_field;
	ts_err		err = {0};
	MemoryContext old;
	ListCell   *lc;
	int			i = 0;

	MemoryContextReset(st->cxt);
	old = MemoryContextSwitchTo(st->cxt);
	rel = table_open(table, AccessShareLock);
	opts = tablescan_get_options_as(table, tablescan_scan_user(node->ss.ps.state, relid));
	/* the plan made while planning, when it holds (freed with cxt); once */
	plan = tablescan_plan_reuse(&st->offer, rel, quals, opts, st->cxt, &att_field);
	st->plan_reused = plan != NULL;
	if (plan == NULL)
		plan = tablescan_plan_relation(opts, rel, relid, quals, node->ss.ps.ps_ExprContext, -1,
									   &att_field, NULL);

	/*
	 * The predicate is built again here, whatever tablescan.enable_pruning
	 * says: the count applies it itself, partition by partition.  It was
	 * exact at planning; a table changed since (e.g. under a prepared
	 * statement) might not be, and then we refuse rather than guess.
	 */
	if (!tablescan_quals_convert_all(quals, relid, att_field, RelationGetDescr(rel)->natts,
									 plan->schema, NULL, &pred) ||
		(pred && !ts_predicate_exact_on_partitions(pred, plan->schema)))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INCONSISTENT_DESCRIPTOR_INFORMATION),
				 errmsg("tablescan_fdw: foreign table \"%s\": count(*) can no longer be answered from metadata",
						RelationGetRelationName(rel)),
				 errhint("The Paimon table changed since the query was planned; run the query again.")));

	/* the GROUP BY keys, and where each scan column comes from */
	st->column_key = palloc(sizeof(int) * Max(list_length(columns), 1));
	st->key_fields = palloc(sizeof(int) * Max(list_length(columns), 1));
	st->column_shard = palloc0(sizeof(Datum) * Max(list_length(columns), 1));
	st->nkeys = 0;
	st->shard_key = false;
	foreach(lc, columns)
	{
		int			field = lfirst_int(lc);
		Form_pg_attribute att = TupleDescAttr(node->ss.ss_ScanTupleSlot->tts_tupleDescriptor, i);

		if (field == TS_COLUMN_SHARD)
		{
			/* GROUP BY _SHARD: its value beside the counts */
			st->column_shard[i] = tablescan_shard_const(opts, att->atttypid,
														att->atttypmod)->constvalue;
			st->column_key[i++] = -2;
			st->shard_key = true;
			continue;
		}
		st->column_key[i++] = field < 0 ? -1 : st->nkeys;
		if (field >= 0)
		{
			if (field >= plan->schema->nfields ||
				!ts_schema_is_partition_key(plan->schema, plan->schema->fields[field].name))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INCONSISTENT_DESCRIPTOR_INFORMATION),
						 errmsg("tablescan_fdw: foreign table \"%s\": count(*) can no longer be answered from metadata",
								RelationGetRelationName(rel)),
						 errhint("The Paimon table changed since the query was planned; run the query again.")));
			st->key_fields[st->nkeys++] = field;
		}
	}
	memset(&st->metrics, 0, sizeof(st->metrics));
	if (!ts_plan_count_groups(plan, pred, st->key_fields, st->nkeys, &st->groups, &st->ngroups,
							  &st->metrics, &err))
		tablescan_report(&err);
	if (st->nkeys == 0 && st->shard_key && st->ngroups == 1 && st->groups[0].rows == 0)
		st->ngroups = 0;		/* GROUP BY _SHARD alone over no row: no group */
	else if (st->nkeys == 0 && st->ngroups == 0 && !st->shard_key)
	{
		/* no GROUP BY: one row even when nothing is counted */
		static ts_count_group zero = {NULL, 0};

		st->groups = &zero;
		st->ngroups = 1;
	}
	st->schema = plan->schema;
	st->next = 0;
	st->cache_on = opts->cache;
	st->cache_hit = plan->metrics.cache_hit;
	st->counted = true;
	table_close(rel, NoLock);
	MemoryContextSwitchTo(old);
}

TupleTableSlot *
tablescan_count_iterate(ForeignScanState *node)
{
	TsCountState *st = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	const ts_count_group *g;
	MemoryContext old;

	ExecClearTuple(slot);
	MemoryContextReset(st->rowcxt);
	if (!st->started)
	{
		count_rows(node, st);
		st->started = true;
	}
	if (st->next >= st->ngroups)
		return slot;
	g = &st->groups[st->next++];
	old = MemoryContextSwitchTo(st->rowcxt);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			k = st->column_key[i];

		if (k == -2)
		{
			slot->tts_values[i] = st->column_shard[i];
			slot->tts_isnull[i] = false;
		}
		else if (k < 0)
		{
			slot->tts_values[i] = Int64GetDatum(g->rows);
			slot->tts_isnull[i] = false;
		}
		else
			slot->tts_values[i] = tablescan_value_to_datum(&g->values[k],
														   st->schema->fields[st->key_fields[k]].type,
														   att->atttypid, att->atttypmod,
														   NameStr(att->attname),
														   &slot->tts_isnull[i]);
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	return slot;
}

void
tablescan_count_rescan(ForeignScanState *node)
{
	TsCountState *st = node->fdw_state;

	st->started = false;		/* count again: a new snapshot may have come */
}

void
tablescan_count_end(ForeignScanState *node)
{
	TsCountState *st = node->fdw_state;

	if (st == NULL)
		return;
	MemoryContextDelete(st->rowcxt);
	MemoryContextDelete(st->cxt);
	node->fdw_state = NULL;
}

void
tablescan_count_explain(ForeignScanState *node, ExplainState *es)
{
	TsCountState *st = node->fdw_state;

	if (!es->analyze || st == NULL || !st->counted)
		return;
	tablescan_explain_plan_reused(st->plan_reused, es);
	ExplainPropertyText("Cache", !st->cache_on ? "off" : st->cache_hit ? "hit" : "miss", es);
	ExplainPropertyInteger("Files Counted", NULL, st->metrics.files_counted, es);
	ExplainPropertyInteger("Files Read", NULL, 0, es);
	ExplainPropertyInteger("Deletion Vectors Read", NULL, st->metrics.deletion_vectors_read, es);
}
