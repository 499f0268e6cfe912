/*
 * rowgroup_filter.h - the row-group / stripe statistics filter of a data
 * file reader (see rowgroup_filter.c).
 */
#ifndef TS_ROWGROUP_FILTER_H
#define TS_ROWGROUP_FILTER_H

#include "format/format.h"
#include "meta/schema.h"

struct ts_predicate;

typedef struct ts_rowgroup_filter
{
	const struct ts_predicate *predicate;
	const ts_schema *schema;	/* read schema the predicate refers to */
	int			nfields;
	int		   *col_of_field;	/* read field -> requested file column, -1 */
} ts_rowgroup_filter;

/* ts_stats_filter_fn: false when no row of the row group can match. */
bool		ts_rowgroup_may_match(void *arg, const ts_column_stats *stats, int ncols);

#endif							/* TS_ROWGROUP_FILTER_H */
