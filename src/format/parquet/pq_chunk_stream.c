/*
 * pq_chunk_stream.c - a column chunk read page by page through a bounded
 * buffer.
 *
 * Owns: reading a large column chunk of a local file (Java's parquet-mr
 * writes pages of parquet.page.size = 1 MB in row groups of up to 128 MB)
 * into the leaf's chunk buffer a window at a time, refilled when the next
 * page header or page is not in it: what is left of the buffer moves to its
 * front and the rest of the window is read behind it; a page larger than
 * the window is read whole (the buffer grows to it).  A reader of many
 * columns of many files (a merge of sorted runs) then holds a window and
 * its current pages per column, not every projected chunk whole.
 *
 * Values of the current batch may point into the buffer (byte arrays of an
 * uncompressed v2 data page): the buffer is then retired (recycled at the
 * next batch, pq_leaf_memory.c) and the window continues in another one.
 * The page after the current one, queued for decompression ahead
 * (pq_ahead.c), is queued when it lies in the buffer; before the buffer
 * moves, its job is finished (or taken back when not started) and what it
 * decompressed is kept for it.  A ZSTD data page larger than half the
 * window is not brought into the buffer at all when the helper thread is
 * on: its job reads it from the file, and the reader passes over its bytes
 * (pq_leaf_stream_skip).  So the header of a page the job may read is
 * brought in alone (pq_leaf_stream_peek), not with a window of the page's
 * bytes the backend would copy for the job.
 */
#include <string.h>

#include "format/parquet/pq_column_internal.h"

bool
pq_leaf_start_stream(pq_leaf *l, ts_file *f, int64_t off, int64_t len, size_t window,
					 const pq_column_chunk *cc, ts_err *err)
{
	if (!pq_leaf_start(l, 0, cc, err))
		return false;
	l->stream_file = f;
	l->stream_off = off;
	l->stream_left = len;
	l->stream_window = window > 0 ? window : 1;
	l->stream_pinned = false;
	return true;
}

/*
 * At least need bytes at l->cur: the window (or need when larger) with
 * whole_window, else need alone; never past the chunk.
 */
static bool
stream_fill(pq_leaf *l, size_t need, bool whole_window, ts_err *err)
{
	size_t		have = ts_cursor_left(&l->cur);
	const uint8_t *from = l->cur.p;
	size_t		fill;
	size_t		n;

	if (l->stream_file == NULL || have >= need || l->stream_left <= 0)
		return true;
	if (!TS_CHECK_INTERRUPTS(err))
		return false;
	fill = whole_window && l->stream_window > need ? l->stream_window : need;
	if ((uint64_t) (fill - have) > (uint64_t) l->stream_left)
		fill = have + (size_t) l->stream_left;
	pq_ahead_settle_next_page(l);	/* its source is about to move */
	if (l->stream_pinned || l->chunk == NULL || l->chunk_cap < fill)
	{
		size_t		cap;
		/* fresh memory: one call, not a fault per 4 KB of the read */
		uint8_t    *p = ts_bufpool_get_faulted(l->shared, fill, &cap, fill);

		if (p == NULL)
			return ts_error_nomemf(err, "reading column \"%s\" (%zu bytes)", l->path, fill);
		if (have > 0)
			memcpy(p, l->cur.p, have);
		if (!l->stream_pinned)
			ts_bufpool_put(l->shared, l->chunk, l->chunk_cap);
		else if (!pq_mem_push(&l->retired, &l->nretired, &l->capretired, l->chunk, l->chunk_cap, err))
		{
			ts_bufpool_put(l->shared, p, cap);
			l->chunk = NULL;	/* pq_mem_push freed it */
			l->chunk_cap = 0;
			return false;
		}
		l->chunk = p;
		l->chunk_cap = cap;
		l->stream_pinned = false;
	}
	else if (have > 0)
		memmove(l->chunk, l->cur.p, have);
	pq_ahead_move_next_page(l, from, have, l->chunk);
	n = fill - have;
	if (!ts_file_pread(l->stream_file, l->chunk + have, n, l->stream_off, err))
	{
		ts_cursor_init(&l->cur, l->chunk, 0);
		l->stream_left = 0;
		return ts_error_context(err, "column \"%s\"", l->path);
	}
	l->stream_off += (int64_t) n;
	l->stream_left -= (int64_t) n;
	ts_cursor_init(&l->cur, l->chunk, have + n);
	return true;
}

bool
pq_leaf_stream_ensure(pq_leaf *l, size_t need, ts_err *err)
{
	return stream_fill(l, need, true, err);
}

bool
pq_leaf_stream_peek(pq_leaf *l, size_t need, ts_err *err)
{
	return stream_fill(l, need, false, err);
}

bool
pq_leaf_stream_skip(pq_leaf *l, size_t n, ts_err *err)
{
	size_t		have = ts_cursor_left(&l->cur);

	if (n <= have)
	{
		l->cur.p += n;
		return true;
	}
	if (l->stream_file == NULL || (uint64_t) (n - have) > (uint64_t) l->stream_left)
		return leaf_error(l, err, TS_ERR_CORRUPT, "page extends past the column chunk");
	l->cur.p += have;
	l->stream_off += (int64_t) (n - have);
	l->stream_left -= (int64_t) (n - have);
	return true;
}
