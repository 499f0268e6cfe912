/*
 * scan_group.c - GROUP BY computed while scanning: partial aggregates per
 * group in a hash table, under PostgreSQL's Finalize Aggregate.
 *
 * Owns: the plan of a serial GROUP BY query pushed into the scan (a
 * Finalize HashAggregate over the ForeignScan of scan_aggregate.c), and
 * the scan's hash table of groups at execution (rows one by one, or the
 * group of one key for scan_vector.c's aggregation by columns).
 *
 * Design.  The scan never returns the final values of a GROUP BY query: it
 * is a *partial* aggregation, as a Partial HashAggregate would be, and
 * PostgreSQL's Finalize Aggregate above it combines the rows of one group
 * (combine and final functions), applies HAVING, and ORDER BY / LIMIT stay
 * above.  In a parallel plan that is PostgreSQL's own plan
 * (UPPERREL_PARTIAL_GROUP_AGG, Gather, Finalize: upper.c and
 * scan_aggregate.c); a serial plan has no partially grouped rel (it is
 * made only when partial paths exist), so for UPPERREL_GROUP_AGG we build
 * the same thing ourselves: the partial target (as planner.c's
 * make_partial_grouping_target does), a ForeignPath for it, and a Finalize
 * HashAggregate path (AGGSPLIT_FINAL_DESERIAL) over it.
 *
 * The hash table is PostgreSQL's TupleHashTable keyed by the GROUP BY
 * columns, with the hash and equality functions of each key's operator and
 * its collation, as nodeAgg.c's; per group, the transition state of each
 * aggregate.  Its memory (buckets, keys, states) stays under work_mem *
 * hash_mem_multiplier: when a new group takes it over, the scan returns
 * every group's partial state, empties the table and reads on; a group may
 * so come out more than once, and the Finalize Aggregate combines the
 * duplicates.  Results are PostgreSQL's: the same transition, combine,
 * serialization and final functions.  (Floating-point sums of one group
 * are added in row order, then combined across flushes and workers, as a
 * parallel plan of PostgreSQL's own does.)
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/selfuncs.h"

#include "scan_aggregate.h"

/* ---- planning ---------------------------------------------------------- */

/*
 * What a partial aggregation of the grouping target returns: the GROUP BY
 * keys, and the Vars and Aggrefs (as partial ones) of the rest and of
 * HAVING.  planner.c's make_partial_grouping_target, which is static.
 */
static PathTarget *
partial_grouping_target(PlannerInfo *root, PathTarget *grouping_target, Node *having)
{
	Query	   *parse = root->parse;
	PathTarget *partial = create_empty_pathtarget();
	List	   *others = NIL;
	List	   *exprs;
	ListCell   *lc;
	int			i = 0;

	foreach(lc, grouping_target->exprs)
	{
		Index		sgref = get_pathtarget_sortgroupref(grouping_target, i++);

		if (sgref && get_sortgroupref_clause_noerr(sgref, parse->groupClause) != NULL)
			add_column_to_pathtarget(partial, lfirst(lc), sgref);
		else
			others = lappend(others, lfirst(lc));
	}
	if (having)
		others = lappend(others, having);
	exprs = pull_var_clause((Node *) others, PVC_INCLUDE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	add_new_columns_to_pathtarget(partial, exprs);
	foreach(lc, partial->exprs)
	{
		if (IsA(lfirst(lc), Aggref))
		{
			Aggref	   *agg = makeNode(Aggref);

			memcpy(agg, lfirst(lc), sizeof(Aggref));
			mark_partial_aggref(agg, AGGSPLIT_INITIAL_SERIAL);
			lfirst(lc) = agg;
		}
	}
	return set_pathtarget_cost_width(root, partial);
}

/*
 * A serial GROUP BY query: a Finalize HashAggregate over our ForeignScan
 * of partial aggregates per group, when the scan can compute them (see
 * tablescan_agg_scan_path).  The ForeignPath's parent is a rel of its own,
 * a copy of the grouped rel with the partial target: PostgreSQL makes no
 * partially grouped rel without partial paths, and the parallel plan's (if
 * any) holds its own path.
 */
bool
tablescan_group_add_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel,
						 Node *having)
{
	Query	   *parse = root->parse;
	RelOptInfo *prel;
	ForeignPath *scan;
	AggClauseCosts costs;
	double		groups;

	if (parse->groupClause == NIL || !grouping_is_hashable(parse->groupClause))
		return false;
	prel = makeNode(RelOptInfo);
	memcpy(prel, grouped_rel, sizeof(RelOptInfo));
	prel->reltarget = partial_grouping_target(root, grouped_rel->reltarget, having);
	prel->pathlist = NIL;
	prel->partial_pathlist = NIL;
	prel->cheapest_startup_path = NULL;
	prel->cheapest_total_path = NULL;
	prel->cheapest_unique_path = NULL;
	prel->cheapest_parameterized_paths = NIL;
	prel->fdw_private = NULL;
	groups = estimate_num_groups(root, get_sortgrouplist_exprs(parse->groupClause,
															   parse->targetList),
								 input_rel->rows, NULL, NULL);
	scan = tablescan_agg_scan_path(root, input_rel, prel, true, false, groups);
	if (scan == NULL)
		return false;
	groups = Min(groups, scan->path.rows);	/* one, when every key is a constant */
	MemSet(&costs, 0, sizeof(costs));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &costs);
	add_path(grouped_rel, (Path *) create_agg_path(root, grouped_rel, (Path *) scan,
												   grouped_rel->reltarget, AGG_HASHED,
												   AGGSPLIT_FINAL_DESERIAL, parse->groupClause,
												   (List *) having, &costs, groups));
	return true;
}

/* ---- execution --------------------------------------------------------- */

/*
 * A GROUP BY of one by-value key (an integer, a date, a float ...): an
 * index of the groups by the key's bits, in front of the hash table.  A key
 * bit for bit equal to an indexed one is that group whatever the equality
 * function says (it holds a value equal to itself), as same_as_last has
 * it; a key not indexed asks the hash table (the key's own hash and
 * equality: it may find a group of equal keys with other bits, -0.0 for
 * 0.0) and is indexed.  It spares a lookup (a hash function call, a slot,
 * the equality expression) per row.  Open addressing, at most half full,
 * in the groups' memory (so under work_mem with them), emptied with them.
 */
typedef struct BitsEntry
{
	Datum		key;
	TsAggValue *states;			/* NULL: empty */
} BitsEntry;

#define BITS_INITIAL 256

static inline uint32
bits_hash(Datum key)
{
	return (uint32) (((uint64) key * UINT64CONST(0x9E3779B97F4A7C15)) >> 32);
}

struct TsGroupTable
{
	MemoryContext metacxt;		/* the hash table and its buckets */
	MemoryContext tablecxt;		/* the groups: keys and state arrays */
	MemoryContext outcxt;		/* the row being returned */
	TupleHashTable table;
	TupleTableSlot *keyslot;	/* a row's keys, for the lookup */
	TupleTableSlot *entryslot;	/* a group's keys, when returned */
	TupleTableSlot *lastslot;	/* the keys of the group of the last row */
	TsAggValue *last;			/* that group's states (NULL: none; an entry moves) */
	bool		use_bits;		/* one by-value key: the index by its bits */
	BitsEntry  *bits;			/* in tablecxt */
	uint32		bits_mask;		/* entries - 1 */
	uint32		bits_used;
	TsAggValue *bits_null;		/* the group of the NULL key, once indexed */
	int16	   *keylen;			/* per key: its type's length and byval */
	bool	   *keybyval;
	size_t		limit;			/* work_mem * hash_mem_multiplier */
	TupleHashIterator iter;
	bool		emitting;		/* returning the groups of the table */
	bool		rows_done;		/* every row was read */
	/* for EXPLAIN ANALYZE */
	int64		groups_out;
	int64		flushes;		/* the table was full */
};

/* The hash table of the keys (nodeAgg.c's build_hash_table, reduced). */
static TsGroupTable *
group_table_create(ForeignScanState *node, TsAggScanState *st)
{
	MemoryContext qcxt = node->ss.ps.state->es_query_cxt;
	MemoryContext old = MemoryContextSwitchTo(qcxt);
	TsGroupTable *g = palloc0(sizeof(TsGroupTable));
	Oid		   *eqops = palloc(sizeof(Oid) * st->nkeys);
	Oid		   *collations = palloc(sizeof(Oid) * st->nkeys);
	AttrNumber *keycols = palloc(sizeof(AttrNumber) * st->nkeys);
	Oid		   *eqfuncs;
	FmgrInfo   *hashfns;
	TupleDesc	desc;
	ListCell   *e,
			   *o;
	int			k = 0;

	g->keylen = palloc(sizeof(int16) * st->nkeys);
	g->keybyval = palloc(sizeof(bool) * st->nkeys);
	forboth(e, st->key_exprs, o, st->key_eqops)
	{
		eqops[k] = lfirst_oid(o);
		collations[k] = exprCollation(lfirst(e));
		keycols[k] = k + 1;
		get_typlenbyval(exprType(lfirst(e)), &g->keylen[k], &g->keybyval[k]);
		k++;
	}
	execTuplesHashPrepare(st->nkeys, eqops, &eqfuncs, &hashfns);
	desc = ExecTypeFromExprList(st->key_exprs);
	/* a minimal-tuple slot holding virtual rows, as nodeAgg.c's hashslot */
	g->keyslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	g->entryslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	g->lastslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	g->metacxt = AllocSetContextCreate(qcxt, "tablescan_fdw group table",
									   ALLOCSET_DEFAULT_SIZES);
	g->tablecxt = AllocSetContextCreate(qcxt, "tablescan_fdw groups", ALLOCSET_DEFAULT_SIZES);
	g->outcxt = AllocSetContextCreate(qcxt, "tablescan_fdw group row", ALLOCSET_SMALL_SIZES);
	g->limit = get_hash_memory_limit();
	g->use_bits = st->nkeys == 1 && g->keybyval[0];
	g->table = BuildTupleHashTableExt(&node->ss.ps, desc, st->nkeys, keycols, eqfuncs, hashfns,
									  collations, 256, sizeof(TsAggValue) * st->naggs,
									  g->metacxt, g->tablecxt,
									  node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory, false);
	MemoryContextSwitchTo(old);
	return g;
}

/* The memory the groups take: buckets, keys, states. */
static size_t
group_memory(TsAggScanState *st, TsGroupTable *g)
{
	return MemoryContextMemAllocated(g->metacxt, true) +
		MemoryContextMemAllocated(g->tablecxt, true) +
		MemoryContextMemAllocated(st->aggcontext->ecxt_per_tuple_memory, true);
}

/* Forget every group (the states included). */
static void
group_table_clear(TsAggScanState *st, TsGroupTable *g)
{
	g->last = NULL;
	ExecClearTuple(g->lastslot);
	g->bits = NULL;				/* (was in tablecxt) */
	g->bits_used = 0;
	g->bits_null = NULL;
	ResetTupleHashTable(g->table);
	MemoryContextReset(g->tablecxt);
	ReScanExprContext(st->aggcontext);
	g->emitting = false;
}

/*
 * Has this row the keys of the last row's group, bit for bit?  Then it is
 * that group whatever the equality functions say (they hold a value equal
 * to itself): rows come in runs of one group (partition keys are constant
 * in a file), and the run costs no hash lookup.  Otherwise the lookup
 * decides, with the keys' own functions.
 */
static inline bool
same_as_last(TsAggScanState *st, TsGroupTable *g, const Datum *values, const bool *isnull)
{
	TupleTableSlot *last = g->lastslot;

	if (g->last == NULL)
		return false;
	for (int k = 0; k < st->nkeys; k++)
	{
		int			a = st->key_attnos[k] - 1;

		if (isnull[a] != last->tts_isnull[k])
			return false;
		if (isnull[a])
			continue;
		if (g->keybyval[k] ? values[a] != last->tts_values[k] :
			!datumIsEqual(values[a], last->tts_values[k], false, g->keylen[k]))
			return false;
	}
	return true;
}

/* The entry of key in the index: its own, or the empty one it would take. */
static inline BitsEntry *
bits_find(TsGroupTable *g, Datum key)
{
	uint32		i = bits_hash(key) & g->bits_mask;

	for (;;)
	{
		BitsEntry  *e = &g->bits[i];

		if (e->states == NULL || e->key == key)
			return e;
		i = (i + 1) & g->bits_mask;
	}
}

/* Index key's group (a new array, twice the size, when half full). */
static void
bits_insert(TsGroupTable *g, Datum key, TsAggValue *states)
{
	BitsEntry  *e;

	if (g->bits == NULL || (g->bits_used + 1) * 2 > g->bits_mask + 1)
	{
		BitsEntry  *old = g->bits;
		uint32		oldsize = old ? g->bits_mask + 1 : 0;
		uint32		size = old ? oldsize * 2 : BITS_INITIAL;

		g->bits = MemoryContextAllocZero(g->tablecxt, sizeof(BitsEntry) * size);
		g->bits_mask = size - 1;
		for (uint32 i = 0; i < oldsize; i++)
			if (old[i].states != NULL)
				*bits_find(g, old[i].key) = old[i];
		if (old)
			pfree(old);
	}
	e = bits_find(g, key);
	if (e->states == NULL)
		g->bits_used++;
	e->key = key;
	e->states = states;
}

/*
 * The states of the group of the key row's keys in keyslot (stored): the
 * hash table's lookup, a new group's states started (*isnew).
 */
static TsAggValue *
group_lookup(TsAggScanState *st, TsGroupTable *g, bool *isnew)
{
	TupleHashEntry entry;

	entry = LookupTupleHashEntry(g->table, g->keyslot, isnew, NULL);
	if (*isnew)
	{
		entry->additional = MemoryContextAlloc(g->tablecxt,
											   sizeof(TsAggValue) * Max(st->naggs, 1));
		tablescan_agg_start(st, entry->additional);
	}
	if (!g->use_bits)
	{
		/* its keys as stored (in the table's memory), for the next rows */
		ExecStoreMinimalTuple(entry->firstTuple, g->lastslot, false);
		slot_getallattrs(g->lastslot);
	}
	return entry->additional;
}

/*
 * For the aggregation by columns (scan_vector.c), GROUP BY one by-value
 * key: the states of key's group, by the index of the keys' bits or else
 * the hash table; *isnew when the group is new, *full when it took the
 * groups past their memory (the caller stops after this row: its groups
 * go out, tablescan_group_iterate reads on afterwards).  NULL when the
 * groups are not indexed by the bits of one key: rows go one by one.
 */
TsAggValue *
tablescan_group_of_key(TsAggScanState *st, Datum key, bool isnull, bool *isnew, bool *full)
{
	TsGroupTable *g = st->groups;
	TsAggValue *found;

	*isnew = false;
	*full = false;
	if (g == NULL || !g->use_bits)
		return NULL;
	found = isnull ? g->bits_null : g->bits ? bits_find(g, key)->states : NULL;
	if (found)
		return found;
	ExecClearTuple(g->keyslot);
	g->keyslot->tts_values[0] = key;
	g->keyslot->tts_isnull[0] = isnull;
	ExecStoreVirtualTuple(g->keyslot);
	found = group_lookup(st, g, isnew);
	if (isnull)
		g->bits_null = found;
	else
		bits_insert(g, key, found);
	if (*isnew && group_memory(st, g) > g->limit)
	{
		g->flushes++;
		*full = true;
	}
	return found;
}

/*
 * Read rows into the groups until every row is read or a new group takes
 * the table over its memory (then the groups go out and it starts again).
 */
static void
group_fill(ForeignScanState *node, TsAggScanState *st, TsGroupTable *g)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *keyslot = g->keyslot;
	Datum	   *values;
	bool	   *isnull;

	switch (tablescan_vector_aggregate(node, st))
	{
		case TS_VECTOR_DONE:
			g->rows_done = true;
			return;
		case TS_VECTOR_FULL:
			return;
		case TS_VECTOR_NO:
			break;				/* row by row */
	}
	while (tablescan_agg_next_row(node, st, &values, &isnull))
	{
		bool		isnew = false;
		MemoryContext old;

		if (g->use_bits)
		{
			int			a = st->key_attnos[0] - 1;
			TsAggValue *found = isnull[a] ? g->bits_null :
				g->bits ? bits_find(g, values[a])->states : NULL;

			if (found)
			{
				g->last = found;
				goto advance;
			}
		}
		if (g->use_bits || !same_as_last(st, g, values, isnull))
		{
			ExecClearTuple(keyslot);
			for (int k = 0; k < st->nkeys; k++)
			{
				int			a = st->key_attnos[k] - 1;

				keyslot->tts_values[k] = values[a];
				keyslot->tts_isnull[k] = isnull[a];
			}
			ExecStoreVirtualTuple(keyslot);
			g->last = group_lookup(st, g, &isnew);
			if (g->use_bits)
			{
				int			a = st->key_attnos[0] - 1;

				if (isnull[a])
					g->bits_null = g->last;
				else
					bits_insert(g, values[a], g->last);
			}
		}
advance:
		st->rows_aggregated++;
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		tablescan_agg_advance_all(st, g->last, values, isnull);
		MemoryContextSwitchTo(old);
		if (isnew && group_memory(st, g) > g->limit)
		{
			g->flushes++;
			return;
		}
	}
	g->rows_done = true;
}

/* A group's row: its keys, and each aggregate's partial state (or result). */
static void
group_row(TsAggScanState *st, TsGroupTable *g, TupleHashEntry entry, TupleTableSlot *slot)
{
	TsAggValue *states = entry->additional;
	MemoryContext old;

	ExecStoreMinimalTuple(entry->firstTuple, g->entryslot, false);
	slot_getallattrs(g->entryslot);
	old = MemoryContextSwitchTo(g->outcxt);
	for (int i = 0; i < st->ncolumns; i++)
	{
		int			k = st->column_key[i];

		if (k >= 0)
		{
			slot->tts_values[i] = g->entryslot->tts_values[k];
			slot->tts_isnull[i] = g->entryslot->tts_isnull[k];
		}
		else if (st->column_agg[i] < 0)
		{
			/* the pseudo-column _SHARD of GROUP BY */
			slot->tts_values[i] = st->column_const[i];
			slot->tts_isnull[i] = false;
		}
		else
		{
			int			a = st->column_agg[i];

			slot->tts_values[i] = tablescan_agg_result(&st->trans[a], &states[a],
													   &slot->tts_isnull[i]);
		}
	}
	MemoryContextSwitchTo(old);
	ExecStoreVirtualTuple(slot);
	g->groups_out++;
}

/* The next group's row, or an empty slot after the last. */
TupleTableSlot *
tablescan_group_iterate(ForeignScanState *node, TsAggScanState *st)
{
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	TsGroupTable *g = st->groups;

	if (g == NULL)
		g = st->groups = group_table_create(node, st);
	ExecClearTuple(slot);
	MemoryContextReset(g->outcxt);
	for (;;)
	{
		TupleHashEntry entry;

		if (!g->emitting)
		{
			if (g->rows_done)
				return slot;
			group_fill(node, st, g);
			st->computed = true;
			InitTupleHashIterator(g->table, &g->iter);
			g->emitting = true;
		}
		entry = ScanTupleHashTable(g->table, &g->iter);
		if (entry != NULL)
		{
			group_row(st, g, entry, slot);
			return slot;
		}
		/* every group is out: empty the table and read on */
		group_table_clear(st, g);
	}
}

/* Aggregate again from the first row. */
void
tablescan_group_rescan(TsAggScanState *st)
{
	TsGroupTable *g = st->groups;

	st->rows_aggregated = 0;
	if (g == NULL)
		return;
	group_table_clear(st, g);
	g->rows_done = false;
	g->groups_out = 0;
	g->flushes = 0;
}

void
tablescan_group_explain(TsAggScanState *st, ExplainState *es)
{
	TsGroupTable *g = st->groups;

	if (g == NULL)
		return;
	ExplainPropertyInteger("Groups Returned", NULL, g->groups_out, es);
	ExplainPropertyInteger("Group Table Flushes", NULL, g->flushes, es);
}
