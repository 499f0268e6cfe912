/*
 * pq_ahead.c - the next row group's first pages, decompressed ahead.
 *
 * Owns: taking a column's next chunk, read before the reader reaches it
 * (pq_window.c), and handing its leading ZSTD data pages to the helper thread
 * (base/background.c), so that they are decompressed while the reader still
 * decodes the row group before; giving those pages to pq_leaf_next_page;
 * taking them back (waiting for a running job) when they will not be used.
 * Writers such as DuckDB put a whole column chunk in one page, so the unit
 * is the row group; others (Java's parquet-mr: 1 MB pages) write many, and
 * the page after the current one in a chunk is queued too, and kept when a
 * chunk read page by page moves it (pq_ahead_settle_next_page).
 *
 * Nothing here is an error: a chunk that cannot be read or parsed ahead is
 * simply read again, in place, when the reader gets to it, which reports
 * what is wrong.  Memory: a leaf holds at most one chunk and PQ_AHEAD_PAGES
 * + 1 pages ahead (pq_window.c holds the row groups further ahead).
 */
#include <string.h>
#include <zstd.h>

#include "format/parquet/pq_internal.h"

static int64_t pages_taken;		/* the calling thread's only */

int64_t
pq_ahead_pages_taken(void)
{
	return pages_taken;
}

/* Finish (or take back) the jobs ahead and keep their buffers for reuse. */
void
pq_ahead_cancel(pq_leaf *l)
{
	for (int i = 0; i < l->nahead; i++)
	{
		pq_ahead_page *a = &l->ahead[i];

		ts_bg_finish(&a->job);
		pq_leaf_page_recycle(l, a->buf, a->cap);	/* NULL once taken */
		a->buf = NULL;
		a->job.src = NULL;
	}
	l->nahead = 0;
	l->ahead_rg = -1;
	l->ahead_current = false;
}

void
pq_ahead_cancel_next_page(pq_leaf *l)
{
	if (!l->next_page_queued)
		return;
	if (!l->next_page_settled)
		ts_bg_finish(&l->next_page.job);
	pq_leaf_page_recycle(l, l->next_page.buf, l->next_page.cap);
	l->next_page.buf = NULL;
	pq_leaf_page_recycle(l, l->next_page.src_buf, l->next_page.src_cap);
	l->next_page.src_buf = NULL;
	l->next_page_queued = false;
	l->next_page_settled = false;
}

void
pq_ahead_settle_next_page(pq_leaf *l)
{
	ts_bg_job  *job = &l->next_page.job;

	if (!l->next_page_queued || l->next_page_settled || l->next_page.src_buf != NULL)
		return;					/* a page the job reads itself does not use the buffer */
	/* the job reads the bytes about to move: done with them now, or never */
	if (ts_bg_finish(job) && !ZSTD_isError(job->result) && job->result == job->dst_len)
		l->next_page_settled = true;
	else
		pq_ahead_cancel_next_page(l);
}

void
pq_ahead_move_next_page(pq_leaf *l, const uint8_t *from, size_t have, const uint8_t *to)
{
	ts_bg_job  *job = &l->next_page.job;

	if (!l->next_page_queued || l->next_page.src_buf != NULL)
		return;
	if (!l->next_page_settled || job->src < from || job->src + job->src_len > from + have)
	{
		pq_ahead_cancel_next_page(l);	/* not settled first, or not among the bytes kept */
		return;
	}
	/* only compared with the page's place by pq_ahead_take_page from now on */
	job->src = to + (job->src - from);
}

void
pq_ahead_free(pq_leaf *l)
{
	pq_ahead_cancel(l);
	pq_ahead_cancel_next_page(l);
	ts_bufpool_put(l->shared, l->ahead_chunk, l->ahead_chunk_cap);
	l->ahead_chunk = NULL;
	l->ahead_chunk_cap = 0;
}

/*
 * Queue the decompression of [src, src + len) into a page buffer of ulen
 * bytes in slot a; with fd >= 0, the job first reads the bytes of src
 * from 'have' on, at off + have of fd (the first 'have' are there already).
 */
static bool
submit_into(pq_leaf *l, pq_ahead_page *a, const uint8_t *src, size_t len, size_t ulen, int fd,
			int64_t off, size_t have)
{
	ts_err		err;

	a->buf = pq_leaf_page_alloc(l, ulen, &a->cap, &err);
	if (a->buf == NULL)
		return false;
	memset(&a->job, 0, sizeof(a->job));
	a->job.src = src;
	a->job.src_len = len;
	a->job.dst = a->buf;
	a->job.dst_len = ulen;
	if (fd >= 0)
	{
		a->job.read_first = true;
		a->job.read_fd = fd;
		a->job.read_off = off + (int64_t) have;
		a->job.read_into = (uint8_t *) src + have;
		a->job.read_len = len - have;
	}
	if (!ts_bg_submit(&a->job))
	{
		pq_leaf_page_recycle(l, a->buf, a->cap);
		a->buf = NULL;
		return false;
	}
	return true;
}

/* The same into the next slot of the next chunk's pages. */
static bool
submit(pq_leaf *l, const uint8_t *src, size_t len, size_t ulen)
{
	if (!submit_into(l, &l->ahead[l->nahead], src, len, ulen, -1, 0, 0))
		return false;
	l->nahead++;
	return true;
}

/*
 * The page at *cur (the cursor moves past it) as pq_leaf_next_page will find
 * it: 1 when it has bytes to queue (a dictionary page, a data page, the
 * values of a compressed v2 data page): [*src, *src + *len) decompressing to
 * *ulen bytes; 0 for a page without (index pages, uncompressed v2 values);
 * PAGE_BEYOND when its header parses but its bytes run past *cur (a chunk
 * read page by page): [*src, *src + *len) the part of them that is there,
 * the cursor left after the header; -1 at the end of the chunk or on
 * anything unsound (the reader, coming to it, says what).
 */
#define PAGE_BEYOND 2

static int
page_to_queue(ts_cursor *cur, int64_t max_page, pq_page_header *h,
			  const uint8_t **src, size_t *len, size_t *ulen)
{
	ts_err		err;
	const uint8_t *data;
	int64_t		levels = 0;

	if (ts_cursor_left(cur) == 0 || !pq_parse_page_header(cur, h, &err) ||
		h->compressed_size < 0 || h->uncompressed_size < 0 || h->uncompressed_size > max_page)
		return -1;
	if ((uint64_t) h->compressed_size > ts_cursor_left(cur))
	{
		*src = cur->p;			/* the part of its bytes that is here */
		*len = ts_cursor_left(cur);
		return PAGE_BEYOND;
	}
	data = cur->p;
	cur->p += h->compressed_size;
	if (h->type == PQ_PAGE_DATA_V2)
	{
		levels = (int64_t) h->rep_len + h->def_len;
		if (!h->has_data_header || h->rep_len < 0 || h->def_len < 0 ||
			levels > h->compressed_size || levels > h->uncompressed_size)
			return -1;
		if (!h->is_compressed)
			return 0;
	}
	else if (h->type == PQ_PAGE_DATA)
	{
		if (!h->has_data_header)
			return -1;
	}
	else if (h->type != PQ_PAGE_DICT)
		return 0;
	*src = data + levels;
	*len = (size_t) (h->compressed_size - levels);
	*ulen = (size_t) (h->uncompressed_size - levels);
	return 1;
}

bool
pq_ahead_wanted(const pq_column_chunk *cc, bool remote)
{
	return remote || (ts_bg_enabled() && cc->codec == PQ_CODEC_ZSTD);
}

/* The dictionary page, if any, and the first data page of the chunk read ahead, queued. */
static void
queue_first_pages(pq_leaf *l, int64_t len, const pq_column_chunk *cc)
{
	ts_cursor	cur;
	int64_t		max_page;

	if (!ts_bg_enabled() || cc->codec != PQ_CODEC_ZSTD)
		return;					/* read ahead for its bytes alone (an object store) */

	/*
	 * Both are needed by the first batch of the row group, so no job is left
	 * when the reader reads the row group after it ahead.
	 */
	max_page = pq_leaf_max_page_size(cc);
	ts_cursor_init(&cur, l->ahead_chunk, (size_t) len);
	while (l->nahead < PQ_AHEAD_PAGES)
	{
		pq_page_header h;
		const uint8_t *src;
		size_t		clen,
					ulen;
		int			rc = page_to_queue(&cur, max_page, &h, &src, &clen, &ulen);

		if (rc < 0 || rc == PAGE_BEYOND || (rc > 0 && h.type == PQ_PAGE_DICT && l->nahead > 0))
			break;
		if (rc > 0 && !submit(l, src, clen, ulen))
			break;
		if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2)
			break;
	}
}

void
pq_ahead_adopt(pq_leaf *l, int rg, uint8_t **buf, size_t *cap, int64_t len,
			   const pq_column_chunk *cc)
{
	uint8_t    *p = l->ahead_chunk;
	size_t		c = l->ahead_chunk_cap;

	pq_ahead_cancel(l);
	l->ahead_chunk = *buf;
	l->ahead_chunk_cap = *cap;
	*buf = p;
	*cap = c;
	l->ahead_rg = rg;
	queue_first_pages(l, len, cc);
}

bool
pq_ahead_take_chunk(pq_leaf *l, int rg)
{
	uint8_t    *p;
	size_t		cap;

	if (l->ahead_rg != rg || l->ahead_current)
	{
		pq_ahead_cancel(l);
		return false;
	}
	/* swap: the chunk read ahead becomes the current one, its jobs with it */
	p = l->chunk;
	cap = l->chunk_cap;
	l->chunk = l->ahead_chunk;
	l->chunk_cap = l->ahead_chunk_cap;
	l->ahead_chunk = p;
	l->ahead_chunk_cap = cap;
	l->ahead_current = true;
	return true;
}

/*
 * Slot a's page, queued for [src, src + len) -> ulen bytes, into *buf: 1,
 * or -1 + *err when its data is bad.  A job the thread did not start, or
 * could not decompress (or read), is read if it was to read its bytes and
 * decompressed here (so a damaged page, or a file cut short, fails with the
 * message it has without the thread).
 */
static int
take(pq_leaf *l, pq_ahead_page *a, bool settled, const uint8_t *src, size_t len, size_t ulen,
	 uint8_t **buf, size_t *cap, ts_err *err)
{
	/* the job is known by its address: it never moves while queued */
	bool		done = (settled || ts_bg_finish(&a->job)) &&
		!ZSTD_isError(a->job.result) && a->job.result == ulen;
	uint8_t    *p = a->buf;
	size_t		c = a->cap;

	a->buf = NULL;
	a->cap = 0;
	a->job.src = NULL;
	if (!done &&
		((a->src_buf != NULL && !ts_file_pread(l->stream_file, a->src_buf, len, a->src_off, err)) ||
		 !pq_decompress_with(l->zstd_ctx, PQ_CODEC_ZSTD, src, len, p, ulen, err)))
	{
		pq_leaf_page_recycle(l, p, c);
		return -1;
	}
	if (done)
		pages_taken++;
	*buf = p;
	*cap = c;
	return 1;
}

int
pq_ahead_take_page(pq_leaf *l, const uint8_t *src, size_t len, size_t ulen,
				   uint8_t **buf, size_t *cap, ts_err *err)
{
	pq_ahead_page *a = &l->next_page;

	if (l->next_page_queued && a->job.src == src && a->job.src_len == len && a->job.dst_len == ulen)
	{
		bool		settled = l->next_page_settled;

		l->next_page_queued = false;
		l->next_page_settled = false;
		return take(l, a, settled, src, len, ulen, buf, cap, err);
	}
	for (int i = 0; l->ahead_current && i < l->nahead; i++)
	{
		a = &l->ahead[i];
		if (a->job.src == src && a->job.src_len == len && a->job.dst_len == ulen)
			return take(l, a, false, src, len, ulen, buf, cap, err);
	}
	return 0;
}

bool
pq_ahead_reads_itself(const pq_leaf *l, const pq_page_header *h)
{
	return l->stream_file != NULL && ts_bg_enabled() && l->codec == PQ_CODEC_ZSTD &&
		h->type == PQ_PAGE_DATA && h->has_data_header &&
		h->compressed_size > (int64_t) (l->stream_window / 2) &&
		h->compressed_size <= l->max_page_size &&
		h->uncompressed_size >= 0 && h->uncompressed_size <= l->max_page_size &&
		ts_file_read_fd(l->stream_file) >= 0;
}

/*
 * Queue the page of header h, whose bytes start at data_off in the file
 * and at 'at' in the buffer, which holds 'have' of them (fewer than all):
 * those are copied, the job reads the rest.
 */
static void
queue_read(pq_leaf *l, const pq_page_header *h, int64_t data_off, const uint8_t *at, size_t have)
{
	pq_ahead_page *a = &l->next_page;
	size_t		len = (size_t) h->compressed_size;
	ts_err		err;

	/* within the chunk: the reader says what is wrong with a page that is not */
	if (!pq_ahead_reads_itself(l, h) || data_off + h->compressed_size > l->stream_off + l->stream_left)
		return;
	a->src_buf = pq_leaf_page_alloc(l, len, &a->src_cap, &err);
	if (a->src_buf == NULL)
		return;
	memcpy(a->src_buf, at, have);
	if (!submit_into(l, a, a->src_buf, len, (size_t) h->uncompressed_size, ts_file_read_fd(l->stream_file),
					 data_off, have))
	{
		pq_leaf_page_recycle(l, a->src_buf, a->src_cap);
		a->src_buf = NULL;
		return;
	}
	a->src_off = data_off;
	l->next_page_queued = true;
}

void
pq_ahead_next_page(pq_leaf *l)
{
	ts_cursor	cur = l->cur;
	pq_page_header h;
	const uint8_t *src;
	size_t		clen,
				ulen;
	int			rc;

	if (l->next_page_queued || !ts_bg_enabled() || l->codec != PQ_CODEC_ZSTD ||
		l->values_left <= 0)
		return;
	rc = page_to_queue(&cur, l->max_page_size, &h, &src, &clen, &ulen);
	if (rc == 1 && h.type != PQ_PAGE_DICT)
		l->next_page_queued = submit_into(l, &l->next_page, src, clen, ulen, -1, 0, 0);
	else if (rc == PAGE_BEYOND && l->stream_file != NULL)
		queue_read(l, &h, l->stream_off - (int64_t) clen, src, clen);	/* read by the job */
}

bool
pq_ahead_first_page(pq_leaf *l, ts_err *err)
{
	if (l->stream_file == NULL || !ts_bg_enabled() || l->codec != PQ_CODEC_ZSTD)
		return true;
	/* the page whole, or its header alone when the job reads it */
	if (!pq_leaf_stream_page_ahead(l, 0, err))
		return false;
	pq_ahead_next_page(l);
	return true;
}

bool
pq_ahead_reads_page(const pq_leaf *l, const pq_page_header *h, int64_t data_off)
{
	const pq_ahead_page *a = &l->next_page;

	return l->next_page_queued && a->src_buf != NULL && a->src_off == data_off &&
		h->type == PQ_PAGE_DATA && a->job.src_len == (size_t) h->compressed_size &&
		a->job.dst_len == (size_t) h->uncompressed_size;
}

int
pq_ahead_take_read_page(pq_leaf *l, uint8_t **buf, size_t *cap, ts_err *err)
{
	pq_ahead_page *a = &l->next_page;
	int			rc;

	l->next_page_queued = false;
	l->next_page_settled = false;
	rc = take(l, a, false, a->src_buf, a->job.src_len, a->job.dst_len, buf, cap, err);
	pq_leaf_page_recycle(l, a->src_buf, a->src_cap);
	a->src_buf = NULL;
	a->src_cap = 0;
	return rc;
}
