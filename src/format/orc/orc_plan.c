/*
 * orc_plan.c - which bytes of an ORC file a reader asks for (pure, no I/O).
 *
 * Owns: the ORC column ids a projection reads (the requested columns and
 * their children), the streams of a stripe those columns need (PRESENT,
 * DATA, LENGTH, DICTIONARY_DATA, SECONDARY: never row indexes, bloom
 * filters or DICTIONARY_COUNT), and the stripe read after a given one
 * (whose footer, and streams, are read ahead).  orc_reader.c sends the
 * ranges planned here for two stripes together (ts_file_pread_many: one
 * round trip on an object store), so two stripes cost one round trip, not
 * one per stream.
 */
#include "format/orc/orc_decode.h"

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
