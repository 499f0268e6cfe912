/*
 * orc_stats.c - stripe statistics offered to the caller's stats filter.
 *
 * Owns: turning the metadata section's ColumnStatistics of one stripe and
 * one requested top-level column into ts_column_stats in the requested
 * Paimon type (integers, dates, floating point, strings, decimals).  When
 * unsure (booleans, CHAR padding, binaries, timestamps with writer-zone
 * rules, NaN) it offers no min/max, which keeps the stripe.
 */
#include <string.h>

#include "base/ts_text_scan.h"
#include "format/orc/orc_decode.h"

void
orc_fill_stats(const orc_tail *tail, int stripe, const orc_col *c, ts_column_stats *cs)
{
	uint64_t	nrows = tail->stripes[stripe].nrows;
	const orc_col_stats *s;
	const ts_type *t;

	memset(cs, 0, sizeof(*cs));
	cs->null_count = -1;
	cs->row_count = (int64_t) nrows;
	if (!c)
	{
		cs->null_count = (int64_t) nrows;
		return;
	}
	if (stripe >= tail->nstripe_stats ||
		c->id >= (uint32_t) tail->stripe_stats[stripe].ncols)
		return;
	s = &tail->stripe_stats[stripe].cols[c->id];
	if (s->has_number_of_values && s->number_of_values <= nrows)
		cs->null_count = (int64_t) (nrows - s->number_of_values);
	else if (s->has_has_null && !s->has_null)
		cs->null_count = 0;
	if (!s->has_min || !s->has_max)
		return;
	t = c->want;
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_TIME:
			if (s->kind != ORC_STATS_INT)
				return;
			cs->min.v.i = s->imin;
			cs->max.v.i = s->imax;
			break;
		case TS_DATE:
			if (s->kind != ORC_STATS_DATE)
				return;
			cs->min.v.i = s->imin;
			cs->max.v.i = s->imax;
			break;
		case TS_FLOAT:
		case TS_DOUBLE:
			if (s->kind != ORC_STATS_DOUBLE || s->dmin != s->dmin || s->dmax != s->dmax)
				return;
			if (t->kind == TS_FLOAT)
			{
				cs->min.v.f = (float) s->dmin;
				cs->max.v.f = (float) s->dmax;
				/* conservative: float rounding must not narrow the range */
				if ((double) cs->min.v.f > s->dmin || (double) cs->max.v.f < s->dmax)
					return;
			}
			else
			{
				cs->min.v.d = s->dmin;
				cs->max.v.d = s->dmax;
			}
			break;
		case TS_VARCHAR:
			if (s->kind != ORC_STATS_STRING)
				return;
			cs->min.v.s.p = s->smin;
			cs->min.v.s.len = s->smin_len;
			cs->max.v.s.p = s->smax;
			cs->max.v.s.len = s->smax_len;
			break;
		case TS_DECIMAL:
			if (s->kind != ORC_STATS_DECIMAL ||
				ts_scan_decimal_exact((const char *) s->smin, s->smin_len, 38, t->scale,
									  &cs->min.v.dec) != 1 ||
				ts_scan_decimal_exact((const char *) s->smax, s->smax_len, 38, t->scale,
									  &cs->max.v.dec) != 1)
				return;
			break;
		default:
			/* booleans, CHAR (padding), binaries, timestamps (zone rules): none */
			return;
	}
	cs->has_min_max = true;
}
