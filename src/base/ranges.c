/*
 * ranges.c - coalescing byte ranges and choosing prefetch windows (see
 * ts_ranges.h).  Pure: no I/O, no allocation.
 */
#include "base/ts_ranges.h"

int
ts_ranges_coalesce(const ts_range *ranges, int n, int64_t max_gap, int64_t max_run,
				   int *order, ts_range_run *runs)
{
	int			m = 0;
	int			nruns = 0;

	/* insertion sort by offset (a row group has tens of chunks, not thousands) */
	for (int i = 0; i < n; i++)
	{
		int			j;

		if (ranges[i].len == 0)
			continue;
		j = m++;
		while (j > 0 && ranges[order[j - 1]].offset > ranges[i].offset)
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (int k = 0; k < m; k++)
	{
		const ts_range *r = &ranges[order[k]];
		int64_t		end = r->offset + (int64_t) r->len;

		if (nruns > 0)
		{
			ts_range_run *run = &runs[nruns - 1];
			int64_t		run_end = run->offset + run->len;
			int64_t		new_end = end > run_end ? end : run_end;

			if (r->offset <= run_end + max_gap && new_end - run->offset <= max_run)
			{
				run->len = new_end - run->offset;
				run->count++;
				continue;
			}
		}
		runs[nruns].offset = r->offset;
		runs[nruns].len = (int64_t) r->len;
		runs[nruns].first = k;
		runs[nruns].count = 1;
		nruns++;
	}
	return nruns;
}

int
ts_prefetch_window(const int64_t *sizes, int n, int64_t max_each, int64_t max_total,
				   int max_count)
{
	int64_t		total = 0;
	int			k = 0;

	while (k < n && k < max_count && sizes[k] >= 0 && sizes[k] <= max_each &&
		   total + sizes[k] <= max_total)
		total += sizes[k++];
	return k;
}
