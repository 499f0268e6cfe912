/*
 * rowgroup_filter.c - skip row groups / stripes by their statistics.
 *
 * Owns: the callback a Parquet or ORC reader calls once per row group or
 * stripe (ts_stats_filter_fn) and the decision "may some row of it satisfy
 * the pushed predicate?".  Used only where skipping rows can never change
 * an answer: append-table files without deletion vectors (row positions
 * do not matter) and columns read without a cast (the stats are in the
 * read type).  Every qual is rechecked by the executor anyway; any doubt
 * keeps the row group.
 */
#include <math.h>
#include <string.h>

#include "read/read_internal.h"
#include "read/rowgroup_filter.h"
#include "scan/predicate.h"

/* Only types whose reader stats order like ts_value_compare are used. */
static bool
comparable_kind(ts_type_kind k)
{
	switch (k)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_DECIMAL:
		case TS_VARCHAR:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return true;
		default:
			return false;		/* floats (NaN, -0.0), binaries, booleans: keep */
	}
}

static bool
leaf_may_match(const ts_rowgroup_filter *f, const ts_predicate *p,
			   const ts_column_stats *stats, int ncols)
{
	const ts_type *t;
	const ts_column_stats *cs;
	int			c;
	bool		all_null;

	if (p->field < 0 || p->field >= f->nfields)
		return true;
	c = f->col_of_field[p->field];
	if (c < 0 || c >= ncols)
		return true;
	cs = &stats[c];
	t = f->schema->fields[p->field].type;
	all_null = cs->null_count >= 0 && cs->row_count > 0 && cs->null_count >= cs->row_count;

	switch (p->op)
	{
		case TS_PRED_IS_NULL:
			return cs->null_count != 0;
		case TS_PRED_IS_NOT_NULL:
			return !all_null;
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_STARTS_WITH:
			return !all_null;
		case TS_PRED_EQ:
		case TS_PRED_IN:
			if (all_null)
				return false;
			if (!cs->has_min_max || !comparable_kind(t->kind) ||
				cs->min.isnull || cs->max.isnull)
				return true;
			for (int i = 0; i < p->nliterals; i++)
			{
				const ts_value *lit = &p->literals[i];

				if (lit->isnull)
					continue;
				if (!ts_predicate_literal_usable(t, p, lit))
					return true;
				if (ts_value_compare(&cs->min, lit, t) <= 0 &&
					ts_value_compare(&cs->max, lit, t) >= 0)
					return true;
			}
			return false;
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
			if (all_null)
				return false;
			if (!cs->has_min_max || !comparable_kind(t->kind) || p->nliterals < 1 ||
				cs->min.isnull || cs->max.isnull || !ts_predicate_literal_usable(t, p, &p->literals[0]))
				return true;
			if (p->op == TS_PRED_LT)
				return ts_value_compare(&cs->min, &p->literals[0], t) < 0;
			if (p->op == TS_PRED_LE)
				return ts_value_compare(&cs->min, &p->literals[0], t) <= 0;
			if (p->op == TS_PRED_GT)
				return ts_value_compare(&cs->max, &p->literals[0], t) > 0;
			return ts_value_compare(&cs->max, &p->literals[0], t) >= 0;
		default:
			return true;
	}
}

static bool
may_match(const ts_rowgroup_filter *f, const ts_predicate *p,
		  const ts_column_stats *stats, int ncols)
{
	switch (p->op)
	{
		case TS_PRED_AND:
			for (int i = 0; i < p->nchildren; i++)
				if (!may_match(f, &p->children[i], stats, ncols))
					return false;
			return true;
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (may_match(f, &p->children[i], stats, ncols))
					return true;
			return p->nchildren == 0;
		case TS_PRED_NOT:
			return true;
		default:
			return leaf_may_match(f, p, stats, ncols);
	}
}

bool
ts_rowgroup_may_match(void *arg, const ts_column_stats *stats, int ncols)
{
	const ts_rowgroup_filter *f = arg;

	if (f == NULL || f->predicate == NULL || stats == NULL)
		return true;
	return may_match(f, f->predicate, stats, ncols);
}
