/*
 * orc_reader.c - ts_orc_open: the ORC implementation of format.h.
 *
 * Owns: the reader object -- opening the file and its tail, resolving the
 * requested top-level columns, walking the stripes (asking the caller's
 * stats filter per stripe), loading one stripe's projected streams at a
 * time and returning row-major batches that never span stripes.  The
 * streams orc_plan.c picks are read for two stripes at a time, with the
 * footers of the two after them (ts_file_pread_many: on an object store
 * one round trip, coalesced), so a file of N stripes costs 1 + N / 2
 * round trips after its tail, not one per stream (N with a row or stats
 * filter, which may leave a stripe out: one stripe at a time then).  On
 * an object store without a filter the stripes ahead are read by
 * orc_window.c (footers together, then the streams of as many stripes as
 * fit in TS_RANGE_AHEAD_BYTES); should that stop (a read failed, a footer
 * does not parse) the pairs go on from there, the next pair's reads
 * started, not waited for, once the current pair's second stripe is
 * loaded, and waited for when the reader gets to that pair
 * (start_next_pair).  Memory: two
 * stripes' streams and two footers at most, three stripes' streams while
 * a pair is started ahead.  Strings
 * point into the current stripe's decompressed streams and nested items
 * into an arena reset per batch: both valid until the next call.
 */
#include <string.h>

#include "base/ts_ranges.h"
#include "format/format.h"
#include "format/orc/orc_decode.h"

typedef struct orc_reader
{
	ts_format_reader base;
	char	   *path;
	ts_file    *file;
	orc_tail	tail;
	const ts_read_column *columns;
	int			ncols;
	orc_col   **top;			/* per requested column; NULL = not in file */
	ts_reader_settings set;		/* what the options say (format.c) */
	int			stripe;			/* index of the current stripe, -1 before */
	int64_t		rows_left;		/* in the current stripe */
	int64_t		stripe_first_row;	/* file position of its first row */
	int			pos_stripe;		/* stripe_first_row()'s cache: stripe pos_stripe */
	int64_t		pos_first;		/* starts at row pos_first */
	orc_stripe	st;				/* the current stripe's streams and decoding state */
	bool	   *used;			/* per ORC column id: read by the projection */
	int			nused;
	/* read ahead: the file bytes of up to two stripes' footers (stripe -1: none) */
	uint8_t    *ahead_footer[2];
	int			ahead_footer_stripe[2];
	/* read ahead: the next stripe's parsed footer and stream bytes (stripe -1: none) */
	orc_stripe_footer ahead_sf;
	uint8_t   **ahead_raw;
	int			ahead_nraw;
	int			ahead_stripe;

	/*
	 * On an object store, without a filter: the next pair started ahead
	 * once the current pair's second stripe is loaded (its reads in
	 * flight: pend_reads) -- stripe pend_stripe's footer and streams here,
	 * the second one's in ahead_* (ahead_stripe set once they are in: to
	 * pend_ahead), the footers after them in ahead_footer; -1: none.
	 */
	int			pend_stripe;
	int			pend_ahead;
	orc_stripe_footer pend_sf;
	uint8_t   **pend_raw;
	int			pend_nraw;
	int64_t		pend_bytes;
	ts_file_reads *pend_reads;
	orc_window	win;			/* on an object store, without a filter: the stripes ahead */
	ts_value   *values;
	ts_column_stats *stats;
} orc_reader;

static const ts_format_reader_ops orc_ops;

/* ---- stripes ---------------------------------------------------------- */

/* Does stripe s start in the reader's byte range (all do without one)? */
static bool
in_range(const orc_reader *r, int s)
{
	int64_t		off = (int64_t) r->tail.stripes[s].offset;

	return r->set.range_end <= 0 || (off >= r->set.range_start && off < r->set.range_end);
}

/* Does stripe s lie in the file? */
static bool
stripe_in_file(const orc_reader *r, int s)
{
	return orc_stripe_in_file(&r->tail.stripes[s], (uint64_t) ts_file_size(r->file));
}

static uint64_t
footer_offset(const orc_reader *r, int s)
{
	const orc_stripe_info *si = &r->tail.stripes[s];

	return si->offset + si->index_length + si->data_length;
}

/* File position of stripe s's first row (stripes are asked for in order). */
static int64_t
stripe_first_row(orc_reader *r, int s)
{
	if (s < r->pos_stripe)
		r->pos_stripe = 0, r->pos_first = 0;
	for (; r->pos_stripe < s; r->pos_stripe++)
		r->pos_first += (int64_t) r->tail.stripes[r->pos_stripe].nrows;
	return r->pos_first;
}

/*
 * Does next_stripe keep stripe s (rows, byte range, row filter, stats
 * filter)?  Asked once per stripe, in order: the caller's filters may
 * count their calls.
 */
static bool
stripe_kept(orc_reader *r, int s)
{
	if (r->tail.stripes[s].nrows == 0 || !in_range(r, s))
		return false;
	if (r->set.rows_filter &&
		!r->set.rows_filter(r->set.rows_filter_arg, stripe_first_row(r, s),
							(int64_t) r->tail.stripes[s].nrows))
		return false;
	if (r->set.stats_filter)
	{
		for (int i = 0; i < r->ncols; i++)
			orc_fill_stats(&r->tail, s, r->top[i], &r->stats[i]);
		return r->set.stats_filter(r->set.stats_filter_arg, r->stats, r->ncols);
	}
	return true;
}

/*
 * The stripe likely read after stripe 'after' (rows, in the byte range;
 * the filters are not asked ahead), -1: none.
 */
static int
next_kept(orc_reader *r, int after)
{
	return orc_plan_next_stripe(&r->tail, after, r->set.range_start, r->set.range_end);
}

/* The footer bytes of stripe s read ahead (taken: the caller frees them), or NULL. */
static uint8_t *
take_footer(orc_reader *r, int s)
{
	for (int k = 0; k < 2; k++)
		if (r->ahead_footer_stripe[k] == s && r->ahead_footer[k] != NULL)
		{
			uint8_t    *p = r->ahead_footer[k];

			r->ahead_footer[k] = NULL;
			r->ahead_footer_stripe[k] = -1;
			return p;
		}
	return NULL;
}

static void
drop_footers(orc_reader *r)
{
	for (int k = 0; k < 2; k++)
	{
		ts_free(r->ahead_footer[k]);
		r->ahead_footer[k] = NULL;
		r->ahead_footer_stripe[k] = -1;
	}
}

static void
drop_ahead_streams(orc_reader *r)
{
	for (int i = 0; i < r->ahead_nraw; i++)
		ts_free(r->ahead_raw[i]);
	ts_free(r->ahead_raw);
	r->ahead_raw = NULL;
	r->ahead_nraw = 0;
	orc_stripe_footer_free(&r->ahead_sf);
	r->ahead_stripe = -1;
}

/* Add the footer of stripe s (when there is one in the file) to ranges, into slot k. */
static bool
plan_footer(orc_reader *r, int s, int k, ts_range *ranges, int *n, ts_err *err)
{
	if (s < 0 || !stripe_in_file(r, s) || r->tail.stripes[s].footer_length == 0)
		return true;			/* read in turn, which reports what is wrong */
	if ((r->ahead_footer[k] = ts_malloc((size_t) r->tail.stripes[s].footer_length)) == NULL)
		return ts_error_nomem(err, NULL);
	r->ahead_footer_stripe[k] = s;
	ranges[*n].offset = (int64_t) footer_offset(r, s);
	ranges[*n].len = (size_t) r->tail.stripes[s].footer_length;
	ranges[*n].buf = r->ahead_footer[k];
	(*n)++;
	return true;
}

static bool
read_ranges(orc_reader *r, ts_range *ranges, int n, ts_err *err)
{
	if (!ts_file_pread_many(r->file, ranges, n, err))
		return false;
	for (int k = 0; k < n; k++)
		r->base.metrics.bytes_read += (int64_t) ranges[k].len;
	return true;
}

/*
 * Read the streams of stripe idx (footer parsed in r->st.sf) that the
 * projection needs, in one ts_file_pread_many with: when the next stripe's
 * footer was read ahead, that stripe's streams too (parsed into
 * r->ahead_sf) and the footers of the two stripes after it; else the
 * footers of the next two stripes.  So stripes go in pairs: a round trip
 * reads two stripes' streams and the two footers after them.  With a
 * row or statistics filter (which may leave the next stripe out) a
 * stripe's streams are read alone, with the next footers.
 */
static bool
read_stripe_streams(orc_reader *r, int idx, ts_err *err)
{
	int			next = next_kept(r, idx);
	uint8_t    *nraw = next >= 0 ? take_footer(r, next) : NULL;
	bool		pair = false;
	ts_range   *ranges = NULL;
	int			n = 0;
	int			f1,
				f2;
	bool		ok;

	drop_footers(r);
	drop_ahead_streams(r);
	if (nraw != NULL && (r->set.rows_filter || r->set.stats_filter))
	{
		/* a filter may leave the next stripe out: its streams are read in turn */
		ts_free(nraw);
		nraw = NULL;
	}
	if (nraw != NULL)
	{
		ts_err		e2 = {0};

		/* a footer that does not parse is read again in turn, and reported then */
		pair = orc_stripe_footer_from(&r->tail, next, &nraw, &r->ahead_sf, &e2);
		ts_free(nraw);
		if (!pair)
			orc_stripe_footer_free(&r->ahead_sf);
	}
	f1 = pair ? next_kept(r, next) : next;
	f2 = f1 >= 0 ? next_kept(r, f1) : -1;
	ranges = ts_malloc(sizeof(ts_range) * (size_t) (r->st.sf.nstreams + r->ahead_sf.nstreams + 2));
	ok = ranges != NULL || ts_error_nomem(err, NULL);
	ok = ok && orc_plan_stream_ranges(r->used, r->nused, &r->st.sf, &r->st.raw, &r->st.nraw,
									  ranges, &n, err);
	if (ok && pair)
		ok = orc_plan_stream_ranges(r->used, r->nused, &r->ahead_sf, &r->ahead_raw,
									&r->ahead_nraw, ranges, &n, err);
	ok = ok && plan_footer(r, f1, 0, ranges, &n, err) && plan_footer(r, f2, 1, ranges, &n, err) &&
		read_ranges(r, ranges, n, err);
	ts_free(ranges);
	if (!ok)
	{
		drop_footers(r);
		drop_ahead_streams(r);
		return false;
	}
	if (pair)
		r->ahead_stripe = next;
	return true;
}

/* Stop the pair started ahead and drop what it was read into. */
static void
drop_pending(orc_reader *r)
{
	if (r->pend_stripe < 0)
		return;
	ts_file_pread_many_cancel(r->pend_reads);	/* before its buffers go */
	r->pend_reads = NULL;
	for (int i = 0; i < r->pend_nraw; i++)
		ts_free(r->pend_raw[i]);
	ts_free(r->pend_raw);
	r->pend_raw = NULL;
	r->pend_nraw = 0;
	orc_stripe_footer_free(&r->pend_sf);
	drop_ahead_streams(r);
	drop_footers(r);
	r->pend_stripe = -1;
	r->pend_ahead = -1;
}

/*
 * Stripe idx (the second of a pair) is loaded: on an object store, start
 * the next pair's reads as read_stripe_streams plans them (the two
 * stripes' streams and the two footers after them, one round trip), from
 * the footers read ahead, without waiting; load_stripe waits for them
 * when the reader gets there.  Anything amiss: nothing is started, the
 * pair is read in turn (which reports it).  Memory: the current stripe and
 * the pair ahead.
 */
static void
start_next_pair(orc_reader *r, int idx)
{
	int			s = next_kept(r, idx);
	int			s2,
				f1,
				f2,
				n = 0;
	uint8_t    *raw;
	bool		pair = false;
	ts_range   *ranges;
	ts_err		err;

	if (s < 0 || r->set.rows_filter || r->set.stats_filter || !ts_file_is_remote(r->file) ||
		r->ahead_stripe >= 0 || r->pend_stripe >= 0 || (raw = take_footer(r, s)) == NULL)
		return;
	r->pend_stripe = s;
	r->pend_ahead = -1;
	if (!orc_stripe_footer_from(&r->tail, s, &raw, &r->pend_sf, &err))
	{
		ts_free(raw);
		drop_pending(r);
		return;
	}
	ts_free(raw);
	s2 = next_kept(r, s);
	if (s2 >= 0 && (raw = take_footer(r, s2)) != NULL)
	{
		pair = orc_stripe_footer_from(&r->tail, s2, &raw, &r->ahead_sf, &err);
		ts_free(raw);
		if (!pair)
			orc_stripe_footer_free(&r->ahead_sf);
	}
	drop_footers(r);
	f1 = pair ? next_kept(r, s2) : s2;
	f2 = f1 >= 0 ? next_kept(r, f1) : -1;
	ranges = ts_malloc(sizeof(ts_range) * (size_t) (r->pend_sf.nstreams + r->ahead_sf.nstreams + 2));
	if (ranges == NULL ||
		!orc_plan_stream_ranges(r->used, r->nused, &r->pend_sf, &r->pend_raw, &r->pend_nraw,
								ranges, &n, &err) ||
		(pair && !orc_plan_stream_ranges(r->used, r->nused, &r->ahead_sf, &r->ahead_raw,
										 &r->ahead_nraw, ranges, &n, &err)) ||
		!plan_footer(r, f1, 0, ranges, &n, &err) || !plan_footer(r, f2, 1, ranges, &n, &err) ||
		(r->pend_reads = ts_file_pread_many_start(r->file, ranges, n, &err)) == NULL)
	{
		ts_free(ranges);
		drop_pending(r);
		return;
	}
	r->pend_bytes = 0;
	for (int k = 0; k < n; k++)
		r->pend_bytes += (int64_t) ranges[k].len;
	ts_free(ranges);
	if (pair)
		r->pend_ahead = s2;
}

/*
 * Stripe idx was started ahead (start_next_pair): wait for its reads and
 * make it current (true), or drop them (false: it is read in turn).
 */
static bool
take_pending(orc_reader *r, int idx)
{
	ts_err		err;

	if (r->pend_stripe < 0)
		return false;
	if (r->pend_stripe != idx || !ts_file_pread_many_finish(r->pend_reads, &err))
	{
		if (r->pend_stripe == idx)
			r->pend_reads = NULL;	/* finished (failed) */
		drop_pending(r);
		return false;
	}
	r->pend_reads = NULL;
	r->base.metrics.bytes_read += r->pend_bytes;
	r->st.sf = r->pend_sf;
	memset(&r->pend_sf, 0, sizeof(r->pend_sf));
	r->st.raw = r->pend_raw;
	r->st.nraw = r->pend_nraw;
	r->pend_raw = NULL;
	r->pend_nraw = 0;
	r->ahead_stripe = r->pend_ahead;
	r->pend_stripe = -1;
	r->pend_ahead = -1;
	return true;
}

/*
 * Make stripe idx current: its footer and streams, read ahead with the
 * stripe before or read now (the footer of the first one with the next
 * one's, then the streams), and every requested column started on them.
 */
static bool
load_stripe(orc_reader *r, int idx, ts_err *err)
{
	const orc_stripe_info *si = &r->tail.stripes[idx];
	int			i;

	orc_stripe_release(&r->st);
	if (!stripe_in_file(r, idx))
	{
		drop_pending(r);
		return ts_error(err, TS_ERR_CORRUPT, "stripe extends past the end of the file");
	}
	if (orc_window_take(&r->win, idx, &r->st))
		;						/* read ahead with the stripes before, now in */
	else if (take_pending(r, idx))
		;						/* started ahead, now in */
	else if (r->ahead_stripe == idx)
	{
		/* read with the stripe before */
		r->st.sf = r->ahead_sf;
		memset(&r->ahead_sf, 0, sizeof(r->ahead_sf));
		r->st.raw = r->ahead_raw;
		r->st.nraw = r->ahead_nraw;
		r->ahead_raw = NULL;
		r->ahead_nraw = 0;
		r->ahead_stripe = -1;
		start_next_pair(r, idx);	/* the pair after, while this one is decoded */
	}
	else
	{
		uint8_t    *raw = take_footer(r, idx);
		bool		ok;

		drop_ahead_streams(r);
		if (raw == NULL)
		{
			/* this footer and the next stripe's, together */
			ts_range	ranges[2];
			int			n = 1;

			drop_footers(r);
			if ((raw = ts_malloc(si->footer_length ? (size_t) si->footer_length : 1)) == NULL)
				return ts_error_nomem(err, NULL);
			ranges[0].offset = (int64_t) footer_offset(r, idx);
			ranges[0].len = (size_t) si->footer_length;
			ranges[0].buf = raw;
			if (!plan_footer(r, next_kept(r, idx), 0, ranges, &n, err) ||
				!read_ranges(r, ranges, n, err))
			{
				ts_free(raw);
				drop_footers(r);
				return ts_error_context(err, "stripe footer");
			}
		}
		ok = orc_stripe_footer_from(&r->tail, idx, &raw, &r->st.sf, err);
		ts_free(raw);
		if (!ok || !read_stripe_streams(r, idx, err))
			return false;
	}
	for (i = 0; i < r->ncols; i++)
		if (r->top[i] && !orc_col_load(&r->st, r->top[i], err))
			return ts_error_context(err, "column \"%s\"", r->columns[i].name);
	r->rows_left = (int64_t) si->nrows;
	return true;
}

/* advance to the next stripe the filter keeps; false+err on error, *done at end */
static bool
next_stripe(orc_reader *r, bool *done, ts_err *err)
{
	*done = false;
	for (;;)
	{
		r->stripe++;
		if (r->stripe >= r->tail.nstripes)
		{
			orc_stripe_release(&r->st);
			*done = true;
			return true;
		}
		if (!stripe_kept(r, r->stripe))
			continue;
		r->base.metrics.row_groups_kept++;
		r->stripe_first_row = stripe_first_row(r, r->stripe);
		if (!load_stripe(r, r->stripe, err))
			return ts_error_context(err, "stripe %d", r->stripe);
		r->base.part_name = "stripe";
		r->base.part = r->stripe;
		return true;
	}
}

/* ---- reader ops ------------------------------------------------------- */

static int
orc_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	orc_reader *r = (orc_reader *) base;
	int			n;
	int			ci;

	batch->nrows = 0;
	batch->ncols = r->ncols;
	batch->values = r->values;
	if (!TS_CHECK_INTERRUPTS(err))
		return -1;
	while (r->rows_left <= 0)
	{
		bool		done;

		if (!next_stripe(r, &done, err))
		{
			ts_error_context(err, "ORC file \"%s\"", r->path);
			r->rows_left = 0;
			r->stripe = r->tail.nstripes;	/* stay failed */
			return -1;
		}
		if (done)
			return 0;
	}
	orc_window_drive(&r->win);
	ts_arena_reset(&r->st.arena);
	r->st.nested_items = 0;
	n = r->rows_left < r->set.batch_rows ? (int) r->rows_left : r->set.batch_rows;
	for (ci = 0; ci < r->ncols; ci++)
	{
		ts_value   *out = r->values + ci;

		if (!r->top[ci])
		{
			int			i;

			for (i = 0; i < n; i++)
			{
				memset(&out[(size_t) i * r->ncols], 0, sizeof(ts_value));
				out[(size_t) i * r->ncols].isnull = true;
			}
			continue;
		}
		if (!orc_col_read(&r->st, r->top[ci], n, out, (size_t) r->ncols, err))
		{
			ts_error_context(err, "ORC file \"%s\": stripe %d, column \"%s\"",
							 r->path, r->stripe, r->columns[ci].name);
			r->rows_left = 0;
			r->stripe = r->tail.nstripes;
			orc_stripe_release(&r->st);
			return -1;
		}
	}
	r->base.row_position = r->stripe_first_row + (int64_t) r->tail.stripes[r->stripe].nrows -
		r->rows_left;
	r->rows_left -= n;
	r->base.metrics.rows_read += n;
	batch->nrows = n;
	return n;
}

static void
orc_close(ts_format_reader *base)
{
	orc_reader *r = (orc_reader *) base;
	int			i;

	if (!r)
		return;
	drop_pending(r);			/* its reads stopped before the buffers go */
	orc_window_free(&r->win);
	orc_stripe_release(&r->st);
	ts_free(r->st.bufs);
	drop_footers(r);
	drop_ahead_streams(r);
	ts_free(r->used);
	if (r->top)
		for (i = 0; i < r->ncols; i++)
			orc_col_free(r->top[i]);
	ts_free(r->top);
	orc_tail_free(&r->tail);
	ts_file_close(r->file);
	ts_arena_free(&r->st.arena);
	ts_free(r->values);
	ts_free(r->stats);
	orc_tz_free(r->st.tz);
	ts_free(r->path);
	ts_free(r);
}

/* ts_format_ranges_like: what its window would read first (no filter; the window: no byte range) */
static int
orc_ranges_like(const ts_format_reader *base, const uint8_t *tail, size_t tail_len,
				int64_t file_size, const ts_held_bytes *held, int64_t budget, ts_range *out,
				int max)
{
	const orc_reader *r = (const orc_reader *) base;

	if (r->set.rows_filter || r->set.stats_filter)
		return 0;
	return orc_window_ranges_like(&r->win, tail, tail_len, file_size, held, budget, out, max);
}

static const ts_format_reader_ops orc_ops = {
	.next = orc_next,
	.close = orc_close,
	.ranges_like = orc_ranges_like
};

/* ---- open ------------------------------------------------------------- */

ts_format_reader *
ts_orc_open(const char *path, const ts_read_column *columns, int ncols,
			const ts_reader_options *options, ts_err *err)
{
	orc_reader *r;
	int			i;

	r = ts_calloc(1, sizeof(orc_reader));
	if (!r)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->base.ops = &orc_ops;
	r->base.reports_positions = true;
	r->stripe = -1;
	r->ahead_stripe = -1;
	r->pend_stripe = r->pend_ahead = -1;
	r->ahead_footer_stripe[0] = r->ahead_footer_stripe[1] = -1;
	ts_arena_init(&r->st.arena, 64 * 1024);
	r->path = ts_strdup(path);
	r->columns = columns;
	r->ncols = ncols;
	ts_reader_settings_init(&r->set, options);
	if (!r->path)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	r->file = ts_file_open(ts_reader_fs(options), path, err);
	if (!r->file)
		goto fail;
	r->st.file = r->file;
	r->st.tail = &r->tail;
	r->st.bytes_read = &r->base.metrics.bytes_read;
	/* an object's first stripe (or all of it) comes in with its tail */
	if (!ts_file_hold_ends(r->file, r->set.head_bytes, (int64_t) ORC_TAIL_READ_REMOTE, err) ||
		!orc_read_tail(r->file, &r->tail, &r->base.metrics.bytes_read, err))
	{
		ts_error_context(err, "ORC file \"%s\"", path);
		goto fail;
	}
	r->top = ts_calloc(ncols > 0 ? ncols : 1, sizeof(orc_col *));
	r->values = ts_calloc((size_t) r->set.batch_rows * (ncols > 0 ? ncols : 1), sizeof(ts_value));
	r->stats = ts_calloc(ncols > 0 ? ncols : 1, sizeof(ts_column_stats));
	if (!r->top || !r->values || !r->stats)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (i = 0; i < ncols; i++)
	{
		int			k = orc_find_struct_child(&r->tail, 0, columns[i].field_id, columns[i].name);

		if (k < 0)
			continue;
		r->top[i] = orc_col_build(&r->tail, r->tail.types[0].subtypes[k], columns[i].type,
							  columns[i].name, err);
		if (!r->top[i])
		{
			ts_error_context(err, "ORC file \"%s\"", path);
			goto fail;
		}
	}
	r->nused = r->tail.ntypes;
	r->used = ts_calloc(r->nused > 0 ? (size_t) r->nused : 1, sizeof(bool));
	if (!r->used)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (i = 0; i < ncols; i++)
		orc_plan_mark_columns(r->top[i], r->used, r->nused);
	orc_window_init(&r->win, r->file, &r->tail, r->used, r->nused, r->set.range_start,
					r->set.range_end, &r->base.metrics.bytes_read,
					!ts_file_is_remote(r->file) || r->set.rows_filter || r->set.stats_filter);
	r->base.metrics.row_groups_total = 0;
	for (int s = 0; s < r->tail.nstripes; s++)
		if (in_range(r, s))
			r->base.metrics.row_groups_total++;
	return &r->base;
fail:
	orc_close(&r->base);
	return NULL;
}
