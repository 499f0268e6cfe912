/*
 * orc_reader.c - ts_orc_open: the ORC implementation of format.h.
 *
 * Owns: the reader object -- opening the file and its tail, resolving the
 * requested top-level columns, walking the stripes (asking the caller's
 * stats filter per stripe), loading one stripe's projected streams at a
 * time and returning row-major batches that never span stripes.  A
 * stripe's streams (those orc_plan.c picks) are read together with the
 * next stripe's footer (ts_file_pread_many: on an object store one round
 * trip, coalesced), so a stripe costs one round trip, not one per stream;
 * memory holds one stripe's streams and the next footer.  Strings
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
	uint8_t    *ahead_footer;	/* file bytes of stripe ahead_stripe's footer */
	int			ahead_stripe;	/* -1: none read ahead */
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

/*
 * Stripe idx's footer (read ahead with the stripe before, or now) parsed
 * into r->st.sf.
 */
static bool
load_footer(orc_reader *r, int idx, uint64_t data_end, ts_err *err)
{
	const orc_stripe_info *si = &r->tail.stripes[idx];
	ts_buf		fb;
	bool		ok;

	if (r->ahead_stripe == idx && r->ahead_footer != NULL)
		ok = orc_section_from(&r->tail, &r->ahead_footer, (size_t) si->footer_length, ORC_MAX_META,
							  &fb, err);
	else
		ok = orc_read_section(r->file, &r->tail, data_end, si->footer_length, ORC_MAX_META, &fb,
							  &r->base.metrics.bytes_read, err);
	ts_free(r->ahead_footer);
	r->ahead_footer = NULL;
	r->ahead_stripe = -1;
	if (!ok)
	{
		ts_buf_free(&fb);
		return ts_error_context(err, "stripe footer");
	}
	ok = orc_parse_stripe_footer(fb.data ? fb.data : (const uint8_t *) "", fb.len, &r->st.sf, err);
	ts_buf_free(&fb);
	if (!ok)
		return ts_error_context(err, "stripe footer");
	return true;
}

/*
 * Read the streams of stripe idx the projection needs and the footer of
 * the stripe after it, all at once (orc_plan.c picks them).  A next footer
 * that does not lie in the file is not read ahead: reading it in turn
 * reports that.
 */
static bool
read_stripe_streams(orc_reader *r, int idx, ts_err *err)
{
	const orc_stripe_footer *sf = &r->st.sf;
	int64_t		fsize = ts_file_size(r->file);
	int		   *sel;
	ts_range   *ranges;
	int			n;
	int			next;
	bool		ok = true;

	sel = ts_malloc(sizeof(int) * (size_t) (sf->nstreams + 1));
	ranges = ts_malloc(sizeof(ts_range) * (size_t) (sf->nstreams + 1));
	r->st.raw = ts_calloc(sf->nstreams > 0 ? (size_t) sf->nstreams : 1, sizeof(uint8_t *));
	if (sel == NULL || ranges == NULL || r->st.raw == NULL)
	{
		ts_free(sel);
		ts_free(ranges);
		return ts_error_nomem(err, NULL);
	}
	r->st.nraw = sf->nstreams;
	n = orc_plan_stripe_streams(sf, r->used, r->nused, sel);
	for (int k = 0; ok && k < n; k++)
	{
		const orc_stream_info *st = &sf->streams[sel[k]];

		if ((r->st.raw[sel[k]] = ts_malloc((size_t) st->length)) == NULL)
			ok = ts_error_nomem(err, NULL);
		ranges[k].offset = (int64_t) st->offset;
		ranges[k].len = (size_t) st->length;
		ranges[k].buf = r->st.raw[sel[k]];
	}
	next = orc_plan_next_stripe(&r->tail, idx, r->set.range_start, r->set.range_end);
	if (ok && next >= 0)
	{
		const orc_stripe_info *ni = &r->tail.stripes[next];

		if (ni->offset <= (uint64_t) fsize && ni->index_length <= (uint64_t) fsize &&
			ni->data_length <= (uint64_t) fsize && ni->footer_length <= (uint64_t) fsize &&
			ni->footer_length > 0 &&
			ni->offset + ni->index_length + ni->data_length + ni->footer_length <= (uint64_t) fsize &&
			(r->ahead_footer = ts_malloc((size_t) ni->footer_length)) != NULL)
		{
			ranges[n].offset = (int64_t) (ni->offset + ni->index_length + ni->data_length);
			ranges[n].len = (size_t) ni->footer_length;
			ranges[n].buf = r->ahead_footer;
			r->ahead_stripe = next;
			n++;
		}
	}
	if (ok)
		ok = ts_file_pread_many(r->file, ranges, n, err);
	for (int k = 0; ok && k < n; k++)
		r->base.metrics.bytes_read += (int64_t) ranges[k].len;
	if (!ok)
	{
		ts_free(r->ahead_footer);
		r->ahead_footer = NULL;
		r->ahead_stripe = -1;
	}
	ts_free(sel);
	ts_free(ranges);
	return ok;
}

static bool
load_stripe(orc_reader *r, int idx, ts_err *err)
{
	const orc_stripe_info *si = &r->tail.stripes[idx];
	uint64_t	data_end;
	uint64_t	cur;
	int64_t		fsize = ts_file_size(r->file);
	int			i;

	orc_stripe_release(&r->st);
	/* overflow-safe bounds: offset + index + data + footer <= file size */
	if (si->offset > (uint64_t) fsize || si->index_length > (uint64_t) fsize ||
		si->data_length > (uint64_t) fsize || si->footer_length > (uint64_t) fsize ||
		si->offset + si->index_length + si->data_length + si->footer_length > (uint64_t) fsize)
		return ts_error(err, TS_ERR_CORRUPT, "stripe extends past the end of the file");
	data_end = si->offset + si->index_length + si->data_length;
	if (!load_footer(r, idx, data_end, err))
		return false;
	cur = si->offset;
	for (i = 0; i < r->st.sf.nstreams; i++)
	{
		orc_stream_info *st = &r->st.sf.streams[i];

		if (st->length > data_end - cur)
			return ts_error(err, TS_ERR_CORRUPT,
							"stream %d (column %u, kind %d, %llu bytes) overflows the stripe",
							i, st->column, st->kind, (unsigned long long) st->length);
		st->offset = cur;
		cur += st->length;
	}
	if (!read_stripe_streams(r, idx, err))
		return false;
	for (i = 0; i < r->ncols; i++)
		if (r->top[i] && !orc_col_load(&r->st, r->top[i], err))
			return ts_error_context(err, "column \"%s\"", r->columns[i].name);
	r->rows_left = (int64_t) si->nrows;
	return true;
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

/* advance to the next stripe the filter keeps; false+err on error, *done at end */
static bool
next_stripe(orc_reader *r, bool *done, ts_err *err)
{
	*done = false;
	for (;;)
	{
		int			i;
		bool		keep = true;

		r->stripe++;
		if (r->stripe >= r->tail.nstripes)
		{
			orc_stripe_release(&r->st);
			*done = true;
			return true;
		}
		if (r->tail.stripes[r->stripe].nrows == 0 || !in_range(r, r->stripe))
			continue;
		if (r->set.rows_filter &&
			!r->set.rows_filter(r->set.rows_filter_arg, stripe_first_row(r, r->stripe),
							(int64_t) r->tail.stripes[r->stripe].nrows))
			continue;
		if (r->set.stats_filter)
		{
			for (i = 0; i < r->ncols; i++)
				orc_fill_stats(&r->tail, r->stripe, r->top[i], &r->stats[i]);
			keep = r->set.stats_filter(r->set.stats_filter_arg, r->stats, r->ncols);
		}
		if (!keep)
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
	orc_stripe_release(&r->st);
	ts_free(r->st.bufs);
	ts_free(r->ahead_footer);
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

static const ts_format_reader_ops orc_ops = {
	.next = orc_next,
	.close = orc_close
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
	r->file = ts_file_open(path, err);
	if (!r->file)
		goto fail;
	r->st.file = r->file;
	r->st.tail = &r->tail;
	r->st.bytes_read = &r->base.metrics.bytes_read;
	if (!orc_read_tail(r->file, &r->tail, &r->base.metrics.bytes_read, err))
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
	r->base.metrics.row_groups_total = 0;
	for (int s = 0; s < r->tail.nstripes; s++)
		if (in_range(r, s))
			r->base.metrics.row_groups_total++;
	return &r->base;
fail:
	orc_close(&r->base);
	return NULL;
}
