/*
 * predicate.h - the predicate tree the scan prunes with (paimon-cpp's
 * Predicate / PredicateBuilder).
 *
 * Owns: the shape of a filter over the read schema handed in by src/fdw
 * (from PostgreSQL quals) or by tests.  Leaves compare one column (an index
 * into the plan's read schema fields) with literals; AND / OR / NOT combine
 * them.  The scan uses it only to prune (partitions, buckets, files by
 * statistics) and always conservatively: rows are still filtered by the
 * executor, so a predicate the scan does not understand keeps everything.
 * It lives in src/expr, below format (file indexes), meta, read (row
 * filters, row-group skipping) and scan, which all decide it.
 */
#ifndef TS_PREDICATE_H
#define TS_PREDICATE_H

#include "base/ts_value.h"

typedef enum ts_predicate_op
{
	/* leaves: column <op> literal(s) */
	TS_PRED_EQ,
	TS_PRED_NE,
	TS_PRED_LT,
	TS_PRED_LE,
	TS_PRED_GT,
	TS_PRED_GE,
	TS_PRED_IN,					/* column IN (literals[0..n-1]) */
	TS_PRED_NOT_IN,
	TS_PRED_IS_NULL,			/* no literal */
	TS_PRED_IS_NOT_NULL,
	TS_PRED_STARTS_WITH,		/* string/binary prefix literal */
	/* compounds */
	TS_PRED_AND,
	TS_PRED_OR,
	TS_PRED_NOT					/* exactly one child */
} ts_predicate_op;

typedef struct ts_predicate
{
	ts_predicate_op op;

	/* leaves */
	int			field;			/* index into the read schema's fields */
	/*
	 * Type of the literals; NULL = the column's own type.  A literal of
	 * another type (e.g. a DECIMAL with another scale, a BIGINT for an INT
	 * column) is converted by the scan only when that is exact, otherwise
	 * the leaf does not prune.
	 */
	const ts_type *literal_type;
	int			nliterals;
	const ts_value *literals;	/* a NULL literal never matches (SQL) */

	/* AND / OR / NOT */
	int			nchildren;
	const struct ts_predicate *children;
} ts_predicate;

/*
 * Can a literal of leaf p be compared with statistics of type t?  Not
 * when it is NULL, of another type (converted only where exact by the
 * caller), or a NaN (ordering of NaN in stats is not reliable).
 */
static inline bool
ts_predicate_literal_usable(const ts_type *t, const ts_predicate *p, const ts_value *lit)
{
	if (lit->isnull)
		return false;
	if (p->literal_type && !ts_type_equal(p->literal_type, t))
		return false;
	if (t->kind == TS_FLOAT && lit->v.f != lit->v.f)
		return false;
	if (t->kind == TS_DOUBLE && lit->v.d != lit->v.d)
		return false;
	return true;
}

/*
 * a <=> b for two non-NULL values of type t, as Java orders them
 * (value_compare.c: unsigned bytes then length, Float/Double.compare);
 * false when t has no such order (nested types, ...).
 */
bool		ts_value_order(const ts_type *t, const ts_value *a, const ts_value *b, int *result);
/* Kinds ts_value_order orders by the integer v.i alone (callers may compare it inline). */
bool		ts_value_orders_by_int(ts_type_kind kind);

/*
 * Are a and b two zeros of a FLOAT / DOUBLE type t?  ts_value_order puts
 * -0.0 before 0.0 (Java), but SQL's comparisons, which the predicate
 * stands for, find them equal: deciding a leaf must take them as equal.
 */
static inline bool
ts_predicate_equal_zeros(const ts_type *t, const ts_value *a, const ts_value *b)
{
	if (t->kind == TS_FLOAT)
		return a->v.f == 0 && b->v.f == 0;
	if (t->kind == TS_DOUBLE)
		return a->v.d == 0 && b->v.d == 0;
	return false;
}

/*
 * Decide leaf p on one concrete value v of type t (a partition value, a
 * row's value): 1 = holds, 0 = does not (SQL semantics: NULL satisfies only
 * IS NULL, a NULL literal never matches, -0.0 = 0.0, NaN equal to itself
 * and above every number), -1 = cannot be decided (value_compare.c).
 */
int			ts_predicate_leaf_decide(const ts_predicate *p, const ts_type *t, const ts_value *v);

/* A leaf's own test: false only when no row can satisfy it. */
typedef bool (*ts_leaf_may_match_fn) (const ts_predicate *leaf, void *arg);

/*
 * May some row satisfy p?  AND / OR / NOT walked here (predicate.c), the
 * leaves decided by leaf.
 */
bool		ts_predicate_may_match(const ts_predicate *p, ts_leaf_may_match_fn leaf, void *arg);

#endif							/* TS_PREDICATE_H */
