/*
 * orc_plan.c - which bytes of an ORC file a reader asks for (no I/O).
 *
 * Owns: the ORC column ids a projection reads (the requested columns and
 * their children), the streams of a stripe those columns need (PRESENT,
 * DATA, LENGTH, DICTIONARY_DATA, SECONDARY: never row indexes, bloom
 * filters or DICTIONARY_COUNT), and the stripe read after a given one
 * (whose footer, and streams, are read ahead); a stripe footer parsed
 * from its file bytes, and the ranges of the streams it lists that a
 * projection reads.  orc_reader.c sends the
 * ranges planned here for two stripes together (ts_file_pread_many: one
 * round trip on an object store), so two stripes cost one round trip, not
 * one per stream.
 */
#include "format/orc/orc_decode.h"
#include "base/ts_ranges.h"

void
orc_plan_mark_columns(const orc_col *c, bool *used, int nused)
{
	if (c == NULL)
		return;
	if (c->id < (uint32_t) nused)
		used[c->id] = true;
	for (int i = 0; i < c->nchildren; i++)
		orc_plan_mark_columns(c->children[i], used, nused);
}

int
orc_plan_stripe_streams(const orc_stripe_footer *sf, const bool *used, int nused, int *sel)
{
	int			n = 0;

	for (int i = 0; i < sf->nstreams; i++)
	{
		const orc_stream_info *st = &sf->streams[i];

		if (st->column >= (uint32_t) nused || !used[st->column] || st->length == 0 ||
			st->kind < 0 || st->kind >= ORC_NSTREAMS || st->kind == ORC_STREAM_DICTIONARY_COUNT)
			continue;
		sel[n++] = i;
	}
	return n;
}

bool
orc_stripe_in_file(const orc_stripe_info *si, uint64_t fsize)
{
	return si->offset <= fsize && si->index_length <= fsize && si->data_length <= fsize &&
		si->footer_length <= fsize &&
		si->offset + si->index_length + si->data_length + si->footer_length <= fsize;
}

int
orc_plan_next_stripe(const orc_tail *tail, int after, int64_t range_start, int64_t range_end)
{
	for (int s = after + 1; s < tail->nstripes; s++)
	{
		int64_t		off = (int64_t) tail->stripes[s].offset;

		if (tail->stripes[s].nrows == 0)
			continue;
		if (range_end > 0 && (off < range_start || off >= range_end))
			continue;
		return s;
	}
	return -1;
}

/*
 * Stripe s's footer from its file bytes *raw (taken over) into *sf, with
 * every stream's file offset (each must lie in the stripe's data).
 */
bool
orc_stripe_footer_from(const orc_tail *tail, int s, uint8_t **raw, orc_stripe_footer *sf,
					   ts_err *err)
{
	const orc_stripe_info *si = &tail->stripes[s];
	uint64_t	data_end = si->offset + si->index_length + si->data_length;
	uint64_t	cur = si->offset;
	ts_buf		fb;
	bool		ok;

	ok = orc_section_from(tail, raw, (size_t) si->footer_length, ORC_MAX_META, &fb, err) &&
		orc_parse_stripe_footer(fb.data ? fb.data : (const uint8_t *) "", fb.len, sf, err);
	ts_buf_free(&fb);
	if (!ok)
		return ts_error_context(err, "stripe footer");
	for (int i = 0; i < sf->nstreams; i++)
	{
		orc_stream_info *st = &sf->streams[i];

		if (st->length > data_end - cur)
			return ts_error(err, TS_ERR_CORRUPT,
							"stream %d (column %u, kind %d, %llu bytes) overflows the stripe",
							i, st->column, st->kind, (unsigned long long) st->length);
		st->offset = cur;
		cur += st->length;
	}
	return true;
}

/*
 * The streams sel[0..m-1] of footer sf (orc_plan_stripe_streams) added to
 * ranges (*n), their bytes into a fresh *raw (one slot per stream of sf).
 */
bool
orc_plan_selected_ranges(const orc_stripe_footer *sf, const int *sel, int m, uint8_t ***raw,
						 int *nraw, ts_range *ranges, int *n, ts_err *err)
{
	*raw = ts_calloc(sf->nstreams > 0 ? (size_t) sf->nstreams : 1, sizeof(uint8_t *));
	*nraw = sf->nstreams;
	if (*raw == NULL)
		return ts_error_nomem(err, NULL);
	for (int k = 0; k < m; k++)
	{
		const orc_stream_info *st = &sf->streams[sel[k]];

		if (((*raw)[sel[k]] = ts_malloc((size_t) st->length)) == NULL)
			return ts_error_nomem(err, NULL);
		ranges[*n].offset = (int64_t) st->offset;
		ranges[*n].len = (size_t) st->length;
		ranges[*n].buf = (*raw)[sel[k]];
		(*n)++;
	}
	return true;
}

/*
 * Add the streams of footer sf the projection needs to ranges (*n), their
 * bytes into a fresh *raw (one slot per stream of sf).
 */
bool
orc_plan_stream_ranges(const bool *used, int nused, const orc_stripe_footer *sf, uint8_t ***raw,
					   int *nraw, ts_range *ranges, int *n, ts_err *err)
{
	int		   *sel = ts_malloc(sizeof(int) * (size_t) (sf->nstreams + 1));
	bool		ok;

	if (sel == NULL)
	{
		*raw = NULL;
		*nraw = 0;
		return ts_error_nomem(err, NULL);
	}
	ok = orc_plan_selected_ranges(sf, sel, orc_plan_stripe_streams(sf, used, nused, sel), raw,
								  nraw, ranges, n, err);
	ts_free(sel);
	return ok;
}
