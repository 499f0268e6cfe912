/*
 * row_ids.h - a set of row ids as sorted ranges (paimon-cpp's
 * ScanContextBuilder::SetGlobalIndexResult without scores, Java's
 * List<Range> of row ranges).
 *
 * Owns: the set of _ROW_ID values a scan of a row-tracking table may
 * return, built from the predicate quals on _ROW_ID give (=, IN, ranges,
 * AND / OR of them), and the questions the scan asks of it (does a file's
 * row-id range [first, last] hold one of them?).  Ranges are inclusive,
 * sorted, disjoint and never adjacent; 'all' marks the unconstrained set.
 * Memory: ts_malloc'd ranges, freed by ts_row_ids_free.
 */
#ifndef TS_ROW_IDS_H
#define TS_ROW_IDS_H

#include "base/ts_base.h"

struct ts_predicate;

typedef struct ts_row_range
{
	int64_t		from;			/* inclusive */
	int64_t		to;				/* inclusive */
} ts_row_range;

typedef struct ts_row_ids
{
	bool		all;			/* unconstrained: every row id */
	int			n;				/* ranges (0 and !all: no row id at all) */
	ts_row_range *ranges;
} ts_row_ids;

/* The unconstrained set. */
void		ts_row_ids_init_all(ts_row_ids *s);
void		ts_row_ids_free(ts_row_ids *s);

/*
 * The set of the given ranges (any order, may overlap or be empty with
 * from > to): sorted and merged.  False on OOM.
 */
bool		ts_row_ids_from_ranges(const ts_row_range *r, int n, ts_row_ids *out, ts_err *err);

/* out = a AND b, a OR b (out may not be a or b). */
bool		ts_row_ids_intersect(const ts_row_ids *a, const ts_row_ids *b, ts_row_ids *out,
								 ts_err *err);
bool		ts_row_ids_union(const ts_row_ids *a, const ts_row_ids *b, ts_row_ids *out,
							 ts_err *err);
/* *acc = *acc AND / OR *kid (and_ selects); both inputs freed, also on failure. */
bool		ts_row_ids_combine(ts_row_ids *acc, ts_row_ids *kid, bool and_, ts_err *err);

/*
 * The row ids predicate p allows, with leaf(arg, leaf, out, err) answering
 * each comparison leaf: AND is the intersection of its children's sets, OR
 * their union, NOT allows every row id (a superset is always safe), p NULL:
 * all.  The walk every row-id source shares (_ROW_ID quals, the global
 * index, the primary-key global index); false on error (leaf's or OOM).
 */
typedef bool (*ts_row_ids_leaf_fn) (void *arg, const struct ts_predicate *leaf, ts_row_ids *out,
									ts_err *err);
bool		ts_row_ids_eval(const struct ts_predicate *p, ts_row_ids_leaf_fn leaf, void *arg,
							ts_row_ids *out, ts_err *err);

/*
 * The row ids predicate p allows for column 'field' (a BIGINT column whose
 * values are never NULL, _ROW_ID): leaves on that field with =, IN, <, <=,
 * >, >= and integer literals of the column's type (literal_type NULL or
 * BIGINT), combined by AND (intersection) and OR (union).  Anything else
 * (other fields, <>, NOT, other literal types) allows every row id, so the
 * result is always a superset of the rows p accepts.  p NULL: all.
 */
bool		ts_row_ids_from_predicate(const struct ts_predicate *p, int field, ts_row_ids *out,
									  ts_err *err);

/*
 * out = s AND bound, bound being sorted, disjoint, non-adjacent ranges (a
 * ts_row_ids' own): in time of bound's ranges (log of s's) and the pieces
 * kept, however large s is.
 */
bool		ts_row_ids_clip(const ts_row_ids *s, const ts_row_range *bound, int nbound,
							ts_row_ids *out, ts_err *err);

/* Does the set hold a row id in [from, to]? */
bool		ts_row_ids_overlaps(const ts_row_ids *s, int64_t from, int64_t to);

/* Row ids in the set (saturating at INT64_MAX; -1 for 'all'). */
int64_t		ts_row_ids_count(const ts_row_ids *s);

/* The first range of s ending at or after v (s->n if none): binary search. */
int			ts_row_ids_first_ending_at_or_after(const ts_row_ids *s, int64_t v);

#endif							/* TS_ROW_IDS_H */
