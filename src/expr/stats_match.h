/*
 * stats_match.h - "may some row of this unit satisfy the predicate?" from
 * the unit's column statistics (see stats_match.c).
 */
#ifndef TS_STATS_MATCH_H
#define TS_STATS_MATCH_H

#include "expr/predicate.h"

/* What the statistics of one unit (a file, a row group, a stripe) say about one column. */
typedef struct ts_unit_stats
{
	bool		known;			/* false: nothing can be concluded */
	bool		has_min_max;	/* min and max are usable non-NULL bounds */
	ts_value	min;
	ts_value	max;
	int64_t		null_count;		/* -1 unknown */
	int64_t		row_count;		/* -1 unknown */
} ts_unit_stats;

/* Where the statistics come from, and how their values order. */
typedef struct ts_stats_source
{
	/* fill *cs for a read-schema field of the predicate (any field index) */
	void		(*column) (void *arg, int field, ts_unit_stats *cs);
	/* order a against b (type t) into *cmp; false: not ordered, keep */
	bool		(*compare) (const ts_type *t, const ts_value *a, const ts_value *b, int *cmp);
	void	   *arg;
	const ts_type *(*field_type) (void *arg, int field);
} ts_stats_source;

/* false only when the statistics prove no row satisfies p */
bool		ts_stats_may_match(const ts_predicate *p, const ts_stats_source *src);

#endif							/* TS_STATS_MATCH_H */
