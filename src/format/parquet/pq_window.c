/*
 * pq_window.c - the row groups after the current one, read ahead.
 *
 * Owns: picking the row groups the reader reads next (in file order, past
 * those its filters leave out) and reading their projected column chunks
 * before the reader gets to them.  On an object store they are requested
 * together from the first row group on, each row group its own coalesced
 * batch (ts_file_pread_many_start), as many as fit in TS_RANGE_AHEAD_BYTES
 * (always the next one) and PQ_WINDOW_SLOTS; as the reader takes one,
 * the next is started behind the last: a file of N row groups waits for
 * about 1 + N / K round trips, not N.  On a local file (background
 * decompression on) one row group is read ahead, once the current one's
 * first batch is out, for its ZSTD pages to be decompressed ahead (of the
 * chunks read page by page, pq_chunk_streamed, only those of at most
 * PQ_AHEAD_CHUNK_MAX, and none of the first row group, read at once).
 *
 * A row group's chunks go to its leaves (pq_ahead_adopt, which queues their
 * first pages for the helper thread) once they are in and the current row
 * group's first batch is out (the pages queued ahead for the current one
 * are taken by then), or when the reader comes to it.  Nothing here is an
 * error: reads that fail or cannot start leave their chunks to be read
 * again in place, which reports why.  Memory: the current row group and
 * at most TS_RANGE_AHEAD_BYTES ahead (or the one next row group).
 */
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

/* the largest chunk of a local file read ahead whole (the writer's old row group size) */
#define PQ_AHEAD_CHUNK_MAX ((int64_t) 8 << 20)

static pq_window_slot *
slot_at(pq_reader *r, int i)
{
	return &r->win.slots[(r->win.first + i) % PQ_WINDOW_SLOTS];
}

/* Stop slot s's reads and give its buffers back. */
static void
slot_clear(pq_reader *r, pq_window_slot *s)
{
	ts_file_pread_many_cancel(s->reads);	/* before its buffers go */
	s->reads = NULL;
	for (int k = 0; k < s->n; k++)
	{
		ts_bufpool_put(r->leaves[s->leaf[k]]->shared, s->buf[k], s->cap[k]);
		s->buf[k] = NULL;
		s->cap[k] = 0;
	}
	s->n = 0;
}

/*
 * Is chunk cc (len bytes) read by the window?  On a local file a chunk read
 * page by page (pq_chunk_streamed) is not when its row group is read at
 * once (no row group being decoded: the first one), nor when it is larger
 * than PQ_AHEAD_CHUNK_MAX (a Java row group of up to 128 MB); the next row
 * group's smaller chunks are, whole, for their pages to be decompressed
 * ahead (one page per chunk as DuckDB writes them).
 */
static bool
read_by_window(pq_reader *r, const pq_column_chunk *cc, int64_t len, bool remote)
{
	if (!pq_ahead_wanted(cc, remote))
		return false;
	return !pq_chunk_streamed(r, len) || (r->rows_left > 0 && len <= PQ_AHEAD_CHUNK_MAX);
}

/* The bytes of row group rg's chunks that would be read ahead. */
static int64_t
slot_need(pq_reader *r, int rg, bool remote)
{
	int64_t		need = 0;

	for (int i = 0; i < r->nleaves && i < PQ_WINDOW_LEAVES; i++)
	{
		const pq_column_chunk *cc;
		int64_t		start,
					len;
		ts_err		err;

		if (pq_chunk_extent(r, &r->meta.row_groups[rg], r->leaves[i], &cc, &start, &len, &err) &&
			read_by_window(r, cc, len, remote))
			need += len;
	}
	return need;
}

/* Start reading slot s's row group's chunks (those worth it, of the first 64 leaves). */
static void
slot_start(pq_reader *r, pq_window_slot *s, bool remote)
{
	const pq_row_group *rg = &r->meta.row_groups[s->rg];
	ts_range	ranges[PQ_WINDOW_LEAVES];
	ts_err		err;

	s->started = true;
	for (int i = 0; i < r->nleaves && s->n < PQ_WINDOW_LEAVES; i++)
	{
		int			k = s->n;
		int64_t		start;

		if (!pq_chunk_extent(r, rg, r->leaves[i], &s->cc[k], &start, &s->len[k], &err) ||
			!read_by_window(r, s->cc[k], s->len[k], remote) ||
			!pq_leaf_reserve(r->leaves[i], &s->buf[k], &s->cap[k], (size_t) s->len[k]))
			continue;			/* read in place, which reports what is wrong */
		ranges[k].offset = start;
		ranges[k].len = (size_t) s->len[k];
		ranges[k].buf = s->buf[k];
		s->leaf[k] = i;
		s->bytes += s->len[k];
		s->n++;
	}
	if (s->n > 0 && (s->reads = ts_file_pread_many_start(r->file, ranges, s->n, &err)) == NULL)
	{
		slot_clear(r, s);		/* read in place, where the failure is reported */
		s->bytes = 0;
	}
	r->win.bytes += s->bytes;
}

void
pq_window_fill(pq_reader *r)
{
	bool		remote = ts_file_is_remote(r->file);
	int			max = remote ? PQ_WINDOW_SLOTS : 1;

	if (!remote && !ts_bg_enabled())
		return;
	if (r->win.slots == NULL &&
		(r->win.slots = ts_calloc(PQ_WINDOW_SLOTS, sizeof(pq_window_slot))) == NULL)
		return;					/* each row group read in place */
	while (r->win.n < max && !r->win.end)
	{
		int			rg = pq_pick_row_group(r);
		pq_window_slot *s;

		if (rg < 0)
		{
			r->win.end = true;
			break;
		}
		s = slot_at(r, r->win.n++);
		s->rg = rg;
		s->started = false;
		s->handed = false;
		s->bytes = 0;
	}
	for (int i = 0; i < r->win.n; i++)
	{
		pq_window_slot *s = slot_at(r, i);

		if (s->started)
			continue;
		if (r->meta.row_groups[s->rg].num_rows <= 0)
		{
			s->started = true;	/* read in place: a negative count is reported then */
			continue;
		}
		if (r->win.bytes > 0 && r->win.bytes + slot_need(r, s->rg, remote) > TS_RANGE_AHEAD_BYTES)
			break;
		slot_start(r, s, remote);
	}
}

int
pq_window_next(pq_reader *r)
{
	if (ts_file_is_remote(r->file))
		pq_window_fill(r);
	if (r->win.n > 0)
		return slot_at(r, 0)->rg;
	if (r->win.end)
		return -1;
	return pq_pick_row_group(r);
}

/*
 * Slot s's chunks to their leaves, once in (waiting for them when wait);
 * chunks whose reads failed are dropped, to be read again in place.
 */
static void
hand_over(pq_reader *r, pq_window_slot *s, bool wait)
{
	ts_err		err;

	if (s->handed || s->n == 0)
		return;
	if (s->reads != NULL)
	{
		bool		ok;

		if (!wait && !ts_file_pread_many_ready(s->reads))
			return;
		ok = ts_file_pread_many_finish(s->reads, &err);
		s->reads = NULL;
		if (!ok)
		{
			slot_clear(r, s);
			return;
		}
	}
	for (int k = 0; k < s->n; k++)
	{
		/* the leaf's buffer ahead before (dead) comes back into the slot */
		pq_ahead_adopt(r->leaves[s->leaf[k]], s->rg, &s->buf[k], &s->cap[k], s->len[k], s->cc[k]);
	}
	slot_clear(r, s);
	s->handed = true;
}

void
pq_window_queue(pq_reader *r)
{
	if (r->win.n == 0)
		return;
	if (r->ahead_ok)
		hand_over(r, slot_at(r, 0), false);
	/* the reads further ahead move on between batches too (all with any one) */
	for (int i = 0; i < r->win.n; i++)
		if (slot_at(r, i)->reads != NULL)
		{
			(void) ts_file_pread_many_ready(slot_at(r, i)->reads);
			break;
		}
}

void
pq_window_take(pq_reader *r, int rg)
{
	pq_window_slot *s;

	if (r->win.n == 0 || (s = slot_at(r, 0))->rg != rg)
		return;
	hand_over(r, s, true);
	slot_clear(r, s);
	r->win.bytes -= s->bytes;
	r->win.first = (r->win.first + 1) % PQ_WINDOW_SLOTS;
	r->win.n--;
	if (ts_file_is_remote(r->file))
		pq_window_fill(r);		/* the next one behind the last, now */
}

void
pq_window_free(pq_reader *r)
{
	if (r->win.slots == NULL)
		return;
	for (int i = 0; i < r->win.n; i++)
		slot_clear(r, slot_at(r, i));
	ts_free(r->win.slots);
	r->win.slots = NULL;
	r->win.n = 0;
}
