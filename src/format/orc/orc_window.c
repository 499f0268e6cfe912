/*
 * orc_window.c - the stripes after the current one, read ahead on an
 * object store.
 *
 * Owns: reading ahead, for a reader without a row or statistics filter
 * (which would be asked about each stripe in turn), the stripes it will
 * read: the footers of the next ORC_WINDOW_SLOTS stripes in one batch,
 * then the streams the projection reads of as many of them as fit in
 * TS_RANGE_AHEAD_BYTES (always the next one), each stripe its own
 * coalesced batch (ts_file_pread_many_start); as the reader takes a
 * stripe, the next ones are started behind the last.  A file of N stripes
 * (N <= ORC_WINDOW_SLOTS) waits for its footers once and its streams
 * about N / K times, not N / 2 + 1.  When the projection reads every
 * column, a stripe's index, data and footer (contiguous) are read as one
 * range instead, the footer with the streams: as many stripes as fit in
 * TS_RANGE_AHEAD_BYTES (always the next one) in one batch, so such a file
 * waits once per batch, not twice (the index bytes read and dropped).  Nothing here is an error: reads that
 * fail, or a footer that does not parse, drop the window, and from then on
 * the reader reads each stripe in turn, which reports what is wrong.
 * Memory: at most TS_RANGE_AHEAD_BYTES of streams (or the next stripe's)
 * and ORC_WINDOW_SLOTS footers.  Also: what the window would read first
 * of another file of the same types (orc_window_ranges_like), for a scan
 * to fetch before it opens that file.
 */
#include <string.h>

#include "base/ts_ranges.h"
#include "format/orc/orc_decode.h"

void
orc_window_init(orc_window *w, ts_file *file, const orc_tail *tail, const bool *used, int nused,
				int64_t range_start, int64_t range_end, int64_t *bytes_read, bool off)
{
	memset(w, 0, sizeof(*w));
	w->file = file;
	w->tail = tail;
	w->used = used;
	w->nused = nused;
	w->range_start = range_start;
	w->range_end = range_end;
	w->bytes_read = bytes_read;
	w->last = -1;
	w->off = off;
	w->whole = nused > 1;
	for (int i = 1; i < nused; i++)	/* column 0: the root struct */
		w->whole &= used[i];
}

static orc_window_slot *
slot_at(orc_window *w, int i)
{
	return &w->slots[(w->first + i) % ORC_WINDOW_SLOTS];
}

/* Stop a slot's reads and free what it holds. */
static void
slot_free(orc_window_slot *s)
{
	ts_file_pread_many_cancel(s->reads);	/* before its buffers go */
	for (int i = 0; i < s->nraw; i++)
		ts_free(s->raw[i]);
	ts_free(s->raw);
	ts_free(s->footer);
	ts_free(s->block);
	orc_stripe_footer_free(&s->sf);
	memset(s, 0, sizeof(*s));
}

/* Drop every stripe ahead: from now on each is read in turn. */
static void
window_drop(orc_window *w)
{
	ts_file_pread_many_cancel(w->footer_reads);	/* before the footers go */
	w->footer_reads = NULL;
	for (int i = 0; w->slots && i < w->n; i++)
		slot_free(slot_at(w, i));
	w->n = 0;
	w->bytes = 0;
	w->off = true;
}

/*
 * Slots for the stripes after the last one given a slot, their footers
 * read in one batch (whole: the stripes, within the byte budget).
 */
static void
add_slots(orc_window *w)
{
	ts_range	ranges[ORC_WINDOW_SLOTS];
	int			nr = 0;
	int64_t		total;
	ts_err		err;

	if (w->footer_reads != NULL || w->end)
		return;
	while (w->n < ORC_WINDOW_SLOTS)
	{
		int			s = orc_plan_next_stripe(w->tail, w->last, w->range_start, w->range_end);
		const orc_stripe_info *si;
		orc_window_slot *slot;

		if (s < 0)
		{
			w->end = true;
			break;
		}
		si = &w->tail->stripes[s];
		/* one that does not lie in the file is not read ahead: in turn, it is reported */
		if (si->footer_length == 0 || !orc_stripe_in_file(si, (uint64_t) ts_file_size(w->file)))
		{
			w->end = true;
			break;
		}
		total = (int64_t) (si->index_length + si->data_length + si->footer_length);
		if (w->whole && w->n > 0 && w->bytes + total > TS_RANGE_AHEAD_BYTES)
			break;				/* given a slot once the reader takes one */
		slot = slot_at(w, w->n);
		memset(slot, 0, sizeof(*slot));
		if (w->whole ? (slot->block = ts_malloc((size_t) total)) == NULL :
			(slot->footer = ts_malloc((size_t) si->footer_length)) == NULL)
		{
			w->end = true;
			break;
		}
		slot->stripe = s;
		w->last = s;
		w->n++;
		if (w->whole)
		{
			ranges[nr] = (ts_range) {(int64_t) si->offset, (size_t) total, slot->block};
			slot->bytes = total;
			w->bytes += total;
		}
		else
		{
			ranges[nr].offset = (int64_t) (si->offset + si->index_length + si->data_length);
			ranges[nr].len = (size_t) si->footer_length;
			ranges[nr].buf = slot->footer;
		}
		nr++;
	}
	if (nr > 0 && (w->footer_reads = ts_file_pread_many_start(w->file, ranges, nr, &err)) == NULL)
		window_drop(w);
}

/*
 * Copy the ranges of stripe si from its whole bytes block; false when one
 * does not lie in them (read in turn, which reports it).
 */
static bool
copy_from_block(const orc_stripe_info *si, const uint8_t *block, const ts_range *ranges, int n)
{
	uint64_t	len = si->index_length + si->data_length;

	for (int k = 0; k < n; k++)
	{
		uint64_t	at = (uint64_t) ranges[k].offset - si->offset;

		if ((uint64_t) ranges[k].offset < si->offset || at > len || ranges[k].len > len - at)
			return false;
		memcpy(ranges[k].buf, block + at, ranges[k].len);
	}
	return true;
}

/*
 * Start the streams of the slots whose footers are in, in order, within
 * the byte budget (whole: copy them from the stripe's bytes, read already).
 */
static void
start_streams(orc_window *w)
{
	for (int i = 0; i < w->n; i++)
	{
		orc_window_slot *s = slot_at(w, i);
		ts_range   *ranges;
		int		   *sel;
		int64_t		need = 0;
		int			m,
					nr = 0;
		bool		ok;
		ts_err		err;

		if (s->started)
			continue;
		if (!s->parsed)
			break;
		ranges = ts_malloc(sizeof(ts_range) * (size_t) (s->sf.nstreams + 1));
		sel = ts_malloc(sizeof(int) * (size_t) (s->sf.nstreams + 1));
		if (ranges == NULL || sel == NULL)
		{
			ts_free(ranges);
			ts_free(sel);
			window_drop(w);
			return;
		}
		m = orc_plan_stripe_streams(&s->sf, w->used, w->nused, sel);
		for (int k = 0; k < m; k++)
			need += (int64_t) s->sf.streams[sel[k]].length;
		if (!w->whole && w->bytes > 0 && w->bytes + need > TS_RANGE_AHEAD_BYTES)
		{
			ts_free(ranges);
			ts_free(sel);
			break;
		}
		ok = orc_plan_selected_ranges(&s->sf, sel, m, &s->raw, &s->nraw, ranges, &nr, &err);
		if (ok && w->whole)
		{
			ok = copy_from_block(&w->tail->stripes[s->stripe], s->block, ranges, nr);
			ts_free(s->block);
			s->block = NULL;
		}
		else if (ok)
			ok = (s->reads = ts_file_pread_many_start(w->file, ranges, nr, &err)) != NULL;
		ts_free(ranges);
		ts_free(sel);
		if (!ok)
		{
			window_drop(w);
			return;
		}
		s->started = true;
		if (!w->whole)
		{
			s->bytes = need;
			w->bytes += need;
		}
	}
}

/* The footers read ahead, once in (waited for when wait): parsed, and streams started. */
static void
footers_in(orc_window *w, bool wait)
{
	ts_err		err;

	if (w->footer_reads != NULL)
	{
		bool		ok;

		if (!wait && !ts_file_pread_many_ready(w->footer_reads))
			return;
		ok = ts_file_pread_many_finish(w->footer_reads, &err);
		w->footer_reads = NULL;
		if (!ok)
		{
			window_drop(w);
			return;
		}
		for (int i = 0; i < w->n; i++)
		{
			orc_window_slot *s = slot_at(w, i);
			bool		parsed;

			if (s->parsed)
				continue;
			if (s->block != NULL)
			{
				const orc_stripe_info *si = &w->tail->stripes[s->stripe];

				/* whole: the footer is the stripe's last bytes (counted with its streams) */
				if ((s->footer = ts_malloc((size_t) si->footer_length)) == NULL)
				{
					window_drop(w);
					return;
				}
				memcpy(s->footer, s->block + si->index_length + si->data_length,
					   (size_t) si->footer_length);
			}
			else
				*w->bytes_read += (int64_t) w->tail->stripes[s->stripe].footer_length;
			parsed = orc_stripe_footer_from(w->tail, s->stripe, &s->footer, &s->sf, &err);
			ts_free(s->footer);
			s->footer = NULL;
			if (!parsed)
			{
				window_drop(w);
				return;
			}
			s->parsed = true;
		}
	}
	start_streams(w);
}

bool
orc_window_take(orc_window *w, int idx, orc_stripe *st)
{
	orc_window_slot *s;
	ts_err		err;
	bool		ok;

	if (w->off)
		return false;
	if (w->slots == NULL &&
		(w->slots = ts_calloc(ORC_WINDOW_SLOTS, sizeof(orc_window_slot))) == NULL)
	{
		w->off = true;
		return false;
	}
	add_slots(w);
	if (w->n == 0 || slot_at(w, 0)->stripe != idx)
	{
		window_drop(w);
		return false;
	}
	s = slot_at(w, 0);
	if (!s->parsed)
		footers_in(w, true);
	if (w->off || !s->started)
	{
		window_drop(w);
		return false;
	}
	ok = ts_file_pread_many_finish(s->reads, &err);
	s->reads = NULL;
	if (!ok)
	{
		window_drop(w);
		return false;
	}
	*w->bytes_read += s->bytes;
	st->sf = s->sf;
	st->raw = s->raw;
	st->nraw = s->nraw;
	memset(&s->sf, 0, sizeof(s->sf));
	s->raw = NULL;
	s->nraw = 0;
	w->bytes -= s->bytes;
	slot_free(s);
	w->first = (w->first + 1) % ORC_WINDOW_SLOTS;
	w->n--;
	/* the next ones behind the last, now */
	add_slots(w);
	footers_in(w, false);
	return true;
}

void
orc_window_drive(orc_window *w)
{
	if (w->off || w->slots == NULL)
		return;
	if (w->footer_reads != NULL)
		footers_in(w, false);
	else if (w->n > 0 && slot_at(w, 0)->reads != NULL)
		(void) ts_file_pread_many_ready(slot_at(w, 0)->reads);	/* moves every batch on */
}

void
orc_window_free(orc_window *w)
{
	window_drop(w);
	ts_free(w->slots);
	w->slots = NULL;
}

/* Are a's types b's (kinds, children, field names)? */
static bool
same_types(const orc_tail *a, const orc_tail *b)
{
	if (a->ntypes != b->ntypes)
		return false;
	for (int i = 0; i < a->ntypes; i++)
	{
		const orc_type *x = &a->types[i];
		const orc_type *y = &b->types[i];

		if (x->kind != y->kind || x->nsubtypes != y->nsubtypes ||
			x->nfield_names != y->nfield_names || x->paimon_id != y->paimon_id ||
			(x->nsubtypes > 0 &&
			 memcmp(x->subtypes, y->subtypes, sizeof(uint32_t) * (size_t) x->nsubtypes) != 0))
			return false;
		for (int k = 0; k < x->nfield_names; k++)
			if (strcmp(x->field_names[k], y->field_names[k]) != 0)
				return false;
	}
	return true;
}

/*
 * The streams w's projection reads of stripe s of t, whose footer's file
 * bytes are fb, into out[0..max); their count (*bytes their bytes), or -1
 * when the footer does not parse or they are more than max.
 */
static int
streams_of(const orc_window *w, const orc_tail *t, int s, const uint8_t *fb, ts_range *out,
		   int max, int64_t *bytes)
{
	uint8_t    *raw = ts_malloc((size_t) t->stripes[s].footer_length);
	orc_stripe_footer sf;
	int		   *sel = NULL;
	int			m = -1;

	memset(&sf, 0, sizeof(sf));
	*bytes = 0;
	if (raw == NULL)
		return -1;
	memcpy(raw, fb, (size_t) t->stripes[s].footer_length);
	if (orc_stripe_footer_from(t, s, &raw, &sf, NULL) &&
		(sel = ts_malloc(sizeof(int) * (size_t) (sf.nstreams + 1))) != NULL)
	{
		m = orc_plan_stripe_streams(&sf, w->used, w->nused, sel);
		if (m > max)
			m = -1;
		for (int k = 0; k < m; k++)
		{
			const orc_stream_info *st = &sf.streams[sel[k]];

			out[k] = (ts_range) {(int64_t) st->offset, (size_t) st->length, NULL};
			*bytes += (int64_t) st->length;
		}
	}
	ts_free(sel);
	ts_free(raw);				/* when not taken over */
	orc_stripe_footer_free(&sf);
	return m;
}

int
orc_window_ranges_like(const orc_window *w, const uint8_t *tail, size_t tail_len,
					   int64_t file_size, const ts_held_bytes *held, int64_t budget,
					   ts_range *out, int max)
{
	orc_tail	t;
	uint64_t	need;
	int			n = 0;
	int64_t		bytes = 0;

	if (tail_len < 4 || (int64_t) tail_len > file_size || w->range_end > 0)
		return 0;
	memset(&t, 0, sizeof(t));
	if (!orc_tail_from_bytes(tail, tail_len, (uint64_t) file_size, &t, &need, NULL) ||
		!same_types(&t, w->tail))
	{
		orc_tail_free(&t);
		return 0;
	}
	/* as add_slots gives the first ones slots, and start_streams starts them */
	for (int s = 0; s < t.nstripes && n < max && s < ORC_WINDOW_SLOTS; s++)
	{
		const orc_stripe_info *si = &t.stripes[s];
		int64_t		footer_at = (int64_t) (si->offset + si->index_length + si->data_length);
		int64_t		total = (int64_t) (si->index_length + si->data_length + si->footer_length);
		const uint8_t *fb = NULL;
		int			k = 1;

		if (si->footer_length == 0 || !orc_stripe_in_file(si, (uint64_t) file_size))
			break;
		if (si->nrows == 0)
			continue;			/* not read */
		if (w->whole)
			out[n] = (ts_range) {(int64_t) si->offset, (size_t) total, NULL};
		else if (held == NULL ||
				 (fb = held->at(held->arg, footer_at, (size_t) si->footer_length)) == NULL)
		{
			out[n] = (ts_range) {footer_at, (size_t) si->footer_length, NULL};
			total = (int64_t) si->footer_length;
		}
		else if ((k = streams_of(w, &t, s, fb, out + n, max - n, &total)) < 0)
			break;
		if (n > 0 && bytes + total > budget)
			break;
		bytes += total;
		n += k;
	}
	orc_tail_free(&t);
	return n;
}
