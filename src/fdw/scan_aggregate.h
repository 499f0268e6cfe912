/*
 * scan_aggregate.h - what scan_aggregate.c (aggregates computed while
 * scanning), scan_agg_trans.c (their transition functions), scan_group.c (the same per GROUP BY group, in a hash table)
 * and scan_vector.c (the same by columns over the batches) share: the aggregates' transitions and the executor state of the scan.
 */
#ifndef TABLESCAN_SCAN_AGGREGATE_H
#define TABLESCAN_SCAN_AGGREGATE_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"

#include "tablescan_fdw.h"

/* One aggregate's transition state: a plain aggregate's, or one group's. */
typedef struct TsAggValue
{
	Datum		value;			/* in the aggregation context */
	bool		isnull;
	bool		novalue;		/* strict with NULL init: no input yet */
} TsAggValue;

/* One aggregate while scanning: nodeAgg.c's per-transition state, reduced. */
/* Transition functions computed in place of the call (by-value states, as the functions do). */
#define TS_INLINE_INT8INC 1		/* count(*), count(col): int8inc, int8inc_any */
#define TS_INLINE_FLOAT8PL 2	/* sum(float8): float8pl */

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
	int8		bytes_minmax;	/* max (1) / min (-1) of text compared by bytes; 0: no */
	int8		inline_fn;		/* a transition computed here (TS_INLINE_*), 0: called */
} TsAggTrans;

typedef struct TsGroupTable TsGroupTable;	/* scan_group.c */

/* Executor state of the scan. */
typedef struct TsAggScanState
{
	TsScanState *scan;			/* the rows: scan_rows.c's scan, maybe parallel */
	Relation	rel;
	TupleTableSlot *slot;		/* a row, for the quals */
	ExprState  *qual;			/* NULL: none */
	ExprContext *aggcontext;	/* its per-tuple memory: the states */
	AggState   *aggstate;		/* what the transition functions see as their caller */
	int			naggs;
	TsAggTrans *trans;
	TsAggValue *values;			/* without GROUP BY: the states, one per aggregate */
	int			ncolumns;		/* of the scan tuple */
	int		   *column_agg;		/* per scan column: its aggregate, or -1 */
	int		   *column_key;		/* per scan column: its GROUP BY key, or -1 */
	Datum	   *column_const;	/* per scan column neither: the _SHARD key's value */
	int			nkeys;			/* GROUP BY keys (0: none) */
	AttrNumber *key_attnos;		/* per key: the column it is */
	List	   *key_exprs;		/* per key: its expression (a column, relabeled) */
	List	   *key_eqops;		/* per key: its equality operator (OIDs) */
	TsGroupTable *groups;		/* with GROUP BY: scan_group.c's hash table */
	bool		done;			/* the row was returned */
	bool		const_groups;	/* GROUP BY constants only: no row read, no group */
	bool		computed;		/* for EXPLAIN ANALYZE */
	bool		parallel;		/* this process aggregates part of the rows */
	int64		rows_aggregated;
	int8		vector;			/* aggregated by columns (scan_vector.c): 1, -1 not, 0 undecided */
	struct TsVectorState *vec;	/* scan_vector.c's plan */
	int64		rows_by_column;	/* of rows_aggregated, by columns */
} TsAggScanState;

/* What tablescan_vector_aggregate did. */
typedef enum TsVectorResult
{
	TS_VECTOR_NO,				/* nothing: not an aggregation by columns */
	TS_VECTOR_DONE,				/* every row */
	TS_VECTOR_FULL				/* rows until the groups were full */
} TsVectorResult;

/* The Var an aggregate's argument is (binary coercions aside), or NULL. */
static inline Var *
argument_var(Expr *expr)
{
	while (expr && IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return expr && IsA(expr, Var) ? (Var *) expr : NULL;
}

/* scan_agg_trans.c */
extern void tablescan_agg_init(ForeignScanState *node, TsAggScanState *st);
extern void tablescan_agg_start(TsAggScanState *st, TsAggValue *values);
extern void tablescan_agg_advance_all(TsAggScanState *st, TsAggValue *states,
									  const Datum *values, const bool *isnull);
extern void tablescan_agg_advance_rows(TsAggScanState *st, int a, TsAggValue **states,
									   const Datum *args, const bool *argnulls, int n);
extern void tablescan_agg_bytes_minmax(TsAggScanState *st, int a, TsAggValue *v,
									   const char *p, int len);
extern Datum tablescan_agg_result(const TsAggTrans *t, const TsAggValue *v, bool *isnull);

/* scan_aggregate.c */
extern bool tablescan_agg_next_row(ForeignScanState *node, TsAggScanState *st,
								   Datum **values, bool **isnull);
extern ForeignPath *tablescan_agg_scan_path(PlannerInfo *root, RelOptInfo *input_rel,
											RelOptInfo *rel, bool partial, bool parallel,
											double groups);

/* scan_group.c */
extern TupleTableSlot *tablescan_group_iterate(ForeignScanState *node, TsAggScanState *st);
extern TsAggValue *tablescan_group_of_key(TsAggScanState *st, Datum key, bool isnull,
										  bool *isnew, bool *full);
extern void tablescan_group_rescan(TsAggScanState *st);
extern void tablescan_group_explain(TsAggScanState *st, struct ExplainState *es);

/* scan_vector.c */
extern TsVectorResult tablescan_vector_aggregate(ForeignScanState *node, TsAggScanState *st);

#endif							/* TABLESCAN_SCAN_AGGREGATE_H */
