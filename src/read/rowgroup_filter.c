/*
 * rowgroup_filter.c - skip row groups / stripes by their statistics.
 *
 * Owns: the callback a Parquet or ORC reader calls once per row group or
 * stripe (ts_stats_filter_fn): the reader's column statistics handed to
 * the shared decision (scan/stats_match.c) "may some row of it satisfy
 * the pushed predicate?".  Used only where skipping rows can never change
 * an answer: append-table files without deletion vectors (row positions
 * do not matter) and columns read without a cast (the stats are in the
 * read type).  Every qual is rechecked by the executor anyway; any doubt
 * keeps the row group.
 */
#include <string.h>

#include "base/ts_type_class.h"
#include "read/read_internal.h"
#include "read/rowgroup_filter.h"
#include "expr/stats_match.h"

/*
 * Only types whose reader stats order like ts_value_order are used (not
 * floats: NaN, -0.0; not binaries, booleans, CHAR, TIME: keep the group).
 */
static bool
comparable_kind(ts_type_kind k)
{
	return ts_type_stats(k, TS_STATS_FORMAT);
}

/* what ts_stats_may_match asks of one row group */
typedef struct rowgroup_stats
{
	const ts_rowgroup_filter *f;
	const ts_column_stats *stats;
	int			ncols;
} rowgroup_stats;

static void
rowgroup_column(void *arg, int field, ts_unit_stats *us)
{
	const rowgroup_stats *rg = arg;
	const ts_column_stats *cs;
	int			c;

	memset(us, 0, sizeof(*us));
	if (field >= rg->f->nfields)
		return;
	c = rg->f->col_of_field[field];
	if (c < 0 || c >= rg->ncols)
		return;
	cs = &rg->stats[c];
	us->known = true;
	us->null_count = cs->null_count;
	us->row_count = cs->row_count > 0 ? cs->row_count : -1;
	us->has_min_max = cs->has_min_max && !cs->min.isnull && !cs->max.isnull &&
		comparable_kind(rg->f->schema->fields[field].type->kind);
	if (us->has_min_max)
	{
		us->min = cs->min;
		us->max = cs->max;
	}
}

static const ts_type *
rowgroup_field_type(void *arg, int field)
{
	return ((const rowgroup_stats *) arg)->f->schema->fields[field].type;
}


bool
ts_rowgroup_may_match(void *arg, const ts_column_stats *stats, int ncols)
{
	const ts_rowgroup_filter *f = arg;

	rowgroup_stats rg = {f, stats, ncols};
	ts_stats_source src = {rowgroup_column, ts_value_order, &rg, rowgroup_field_type};

	if (f == NULL || f->predicate == NULL || stats == NULL)
		return true;
	return ts_stats_may_match(f->predicate, &src);
}
