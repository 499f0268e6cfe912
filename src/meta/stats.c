/*
 * stats.c - SimpleStats decoding into per-column min/max/null counts
 * (see stats.h).
 */
#include "meta/stats.h"

#include <string.h>

#include "base/ts_type_class.h"
#include "meta/binary_row.h"

static bool
row_readable(ts_type_kind k)
{
	return ts_type_stats(k, TS_STATS_IN_ROW);
}

static bool
decode_bound(const ts_bytes *b, const ts_type *const *types, const bool *readable, int n,
			 ts_value *vals, const char *which, ts_arena *arena, ts_err *err)
{
	for (int i = 0; i < n; i++)
		vals[i].isnull = true;
	if (b->data == NULL || n == 0)
		return true;
	if (!ts_binary_row_decode(b->data, b->len, types, n, vals, NULL, arena, err))
		return ts_error_context(err, "stats %s row", which);
	for (int i = 0; i < n; i++)
		if (!readable[i])
			vals[i].isnull = true;
	return true;
}

bool
ts_stats_decode(const ts_simple_stats *stats,
				const ts_type *const *col_types, const char *const *col_names, int ncols,
				char *const *stats_cols, int nstats_cols,
				ts_arena *arena, ts_column_stats *out, ts_err *err)
{
	int			n = nstats_cols < 0 ? ncols : nstats_cols;
	int		   *colidx = NULL;
	const ts_type **types = NULL;
	bool	   *readable = NULL;
	ts_value   *mins = NULL,
			   *maxs = NULL;
	ts_type    *placeholder = NULL;
	bool		ok = false;

	for (int c = 0; c < ncols; c++)
	{
		memset(&out[c], 0, sizeof(ts_column_stats));
		out[c].min.isnull = true;
		out[c].max.isnull = true;
		out[c].null_count = -1;
	}
	if (stats == NULL || n == 0)
		return true;

	colidx = ts_malloc(sizeof(int) * n);
	types = ts_malloc(sizeof(ts_type *) * n);
	readable = ts_malloc(sizeof(bool) * n);
	mins = ts_calloc(n, sizeof(ts_value));
	maxs = ts_calloc(n, sizeof(ts_value));
	placeholder = ts_type_new(TS_BIGINT, true);
	if (!colidx || !types || !readable || !mins || !maxs || !placeholder)
	{
		ts_error_nomem(err, "decoding stats");
		goto done;
	}

	/* stats column i -> file column colidx[i] */
	for (int i = 0; i < n; i++)
	{
		if (nstats_cols < 0)
			colidx[i] = i;
		else
		{
			colidx[i] = -1;
			for (int c = 0; c < ncols; c++)
				if (col_names[c] && stats_cols[i] && strcmp(col_names[c], stats_cols[i]) == 0)
				{
					colidx[i] = c;
					break;
				}
			if (colidx[i] < 0)
			{
				ts_error(err, TS_ERR_CORRUPT,
						 "_VALUE_STATS_COLS names \"%s\", which is not a column of the file's schema",
						 stats_cols[i] ? stats_cols[i] : "(null)");
				goto done;
			}
		}
		readable[i] = col_types[colidx[i]] != NULL && row_readable(col_types[colidx[i]]->kind);
		/* an unreadable type only reads its 8-byte slot, then is dropped */
		types[i] = readable[i] ? col_types[colidx[i]] : placeholder;
	}

	if (!decode_bound(&stats->min_values, types, readable, n, mins, "min", arena, err) ||
		!decode_bound(&stats->max_values, types, readable, n, maxs, "max", arena, err))
		goto done;

	for (int i = 0; i < n; i++)
	{
		ts_column_stats *cs = &out[colidx[i]];

		cs->min = mins[i];
		cs->max = maxs[i];
		if (stats->nnull_counts >= 0 && i < stats->nnull_counts && stats->null_counts != NULL)
			cs->null_count = stats->null_counts[i];
	}
	ok = true;
done:
	ts_free(colidx);
	ts_free(types);
	ts_free(readable);
	ts_free(mins);
	ts_free(maxs);
	ts_type_free(placeholder);
	return ok;
}
