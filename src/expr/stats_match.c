/*
 * stats_match.c - decide from min / max / null counts whether some row of
 * a unit may satisfy a predicate.
 *
 * Owns: the rules shared by file pruning (scan/stats_prune.c: a data file's
 * _VALUE_STATS) and row-group / stripe skipping (read/rowgroup_filter.c:
 * Parquet and ORC statistics).  The caller says what it knows of each
 * column (ts_unit_stats) and how values order; everything it does not know
 * keeps the unit.  NULL never satisfies a comparison, so a column that is
 * all NULL fails every leaf but IS NULL.  Values compare as SQL does
 * (-0.0 = 0.0, which Java's order of the stats tells apart; NaN above
 * every number, which writers' float bounds may leave out).  AND / OR /
 * NOT: predicate.c.
 */
#include <math.h>

#include "expr/stats_match.h"

/* a <=> b as SQL compares them: the source's order, with -0.0 = 0.0 */
static bool
sql_compare(const ts_stats_source *src, const ts_type *t, const ts_value *a,
			const ts_value *b, int *c)
{
	if (!src->compare(t, a, b, c))
		return false;
	if (ts_predicate_equal_zeros(t, a, b))
		*c = 0;
	return true;
}

static bool
is_nan(const ts_type *t, const ts_value *v)
{
	return t->kind == TS_FLOAT ? isnan(v->v.f) : t->kind == TS_DOUBLE && isnan(v->v.d);
}

/* May some row satisfy leaf p? */
static bool
leaf_may_match(const ts_predicate *p, void *arg)
{
	const ts_stats_source *src = arg;
	const ts_type *t;
	ts_unit_stats cs;
	bool		all_null;
	bool		floating;
	int			c1,
				c2;

	if (p->field < 0)
		return true;
	src->column(src->arg, p->field, &cs);
	if (!cs.known)
		return true;
	t = src->field_type(src->arg, p->field);
	all_null = cs.null_count >= 0 && cs.row_count >= 0 && cs.null_count >= cs.row_count;
	floating = t->kind == TS_FLOAT || t->kind == TS_DOUBLE;

	/*
	 * NaN is above every number in SQL, but writers leave it out of min /
	 * max (Arrow's Parquet writer, ORC's) or let it take a bound when it
	 * comes first (ORC's): a NaN bound says nothing, and a max below the
	 * literal does not rule out NaN rows for > / >= / = NaN.
	 */
	if (floating && cs.has_min_max && (is_nan(t, &cs.min) || is_nan(t, &cs.max)))
		cs.has_min_max = false;

	switch (p->op)
	{
		case TS_PRED_IS_NULL:
			return cs.null_count != 0;
		case TS_PRED_IS_NOT_NULL:
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_STARTS_WITH:
			return !all_null;
		case TS_PRED_EQ:
		case TS_PRED_IN:
			if (all_null)
				return false;
			if (!cs.has_min_max)
				return true;
			for (int i = 0; i < p->nliterals; i++)
			{
				const ts_value *lit = &p->literals[i];

				if (lit->isnull)
					continue;	/* never equal */
				if ((floating && is_nan(t, lit)) ||
					!ts_predicate_literal_usable(t, p, lit) ||
					!sql_compare(src, t, &cs.min, lit, &c1) ||
					!sql_compare(src, t, &cs.max, lit, &c2))
					return true;
				if (c1 <= 0 && c2 >= 0)
					return true;
			}
			return false;
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
			if (all_null)
				return false;
			if (!cs.has_min_max || p->nliterals < 1 ||
				!ts_predicate_literal_usable(t, p, &p->literals[0]))
				return true;
			if (p->op == TS_PRED_LT || p->op == TS_PRED_LE)
			{
				if (!sql_compare(src, t, &cs.min, &p->literals[0], &c1))
					return true;
				return p->op == TS_PRED_LT ? c1 < 0 : c1 <= 0;
			}
			if (floating)
				return true;	/* NaN rows may lie above the max */
			if (!sql_compare(src, t, &cs.max, &p->literals[0], &c2))
				return true;
			return p->op == TS_PRED_GT ? c2 > 0 : c2 >= 0;
		default:
			return true;
	}
}

bool
ts_stats_may_match(const ts_predicate *p, const ts_stats_source *src)
{
	return ts_predicate_may_match(p, leaf_may_match, (void *) src);
}
