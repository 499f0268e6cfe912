/*
 * pq_leaf_memory.c - the buffers of a Parquet leaf column: pages,
 * decompressed pages and the values materialised from them.
 *
 * Owns: page buffers handed out and recycled, the chunk buffer, and when
 * a buffer may go.  Byte values point into page buffers; a buffer that is
 * done with is "retired" and recycled only at the start of the next batch,
 * so the values of the current batch stay valid (the pages of numeric
 * columns, whose values are copies, are recycled at once).
 */
#include <stddef.h>
#include <string.h>

#include "format/parquet/pq_column_internal.h"

bool
pq_mem_push(pq_mem **arr, int *n, int *cap, void *p, size_t size, ts_err *err)
{
	if (!p)
		return true;
	if (*n == *cap)
	{
		int			nc = *cap ? *cap * 2 : 8;
		pq_mem	   *na = ts_realloc(*arr, sizeof(pq_mem) * nc);

		if (!na)
		{
			ts_free(p);
			return ts_error_nomem(err, NULL);
		}
		*arr = na;
		*cap = nc;
	}
	(*arr)[*n].p = p;
	(*arr)[*n].cap = size;
	(*n)++;
	return true;
}

static bool
retire(pq_leaf *l, void *p, size_t cap, ts_err *err)
{
	return pq_mem_push(&l->retired, &l->nretired, &l->capretired, p, cap, err);
}

/* a page buffer of at least size bytes, from the pool when possible */
static uint8_t *
page_alloc(pq_leaf *l, size_t size, size_t *cap, ts_err *err)
{
	size_t		c = 65536;
	uint8_t    *p;
	int			best = -1;

	/*
	 * the smallest that fits: a leaf reading pages ahead holds compressed
	 * and decompressed pages of different sizes, and a large buffer taken
	 * for a small page leaves the next large page none
	 */
	for (int i = 0; i < l->npool; i++)
		if (l->pool[i].cap >= size && (best < 0 || l->pool[i].cap < l->pool[best].cap))
			best = i;
	if (best >= 0)
	{
		p = l->pool[best].p;
		*cap = l->pool[best].cap;
		l->pool[best] = l->pool[--l->npool];
		return p;
	}
	while (c < size)
		c *= 2;
	/*
	 * Fresh memory (the first page of a column of the first run, or one
	 * larger than any before) faults in with one call, as far as the page
	 * fills it, instead of a fault per 4 KB as the decompressor writes it;
	 * a buffer the pool kept is mapped already (asking again walks its
	 * page tables for nothing).
	 */
	p = ts_bufpool_get_faulted(l->shared, c, cap, size);
	if (!p)
		ts_error_nomemf(err, "(page of %zu bytes, column \"%s\")", size, l->path);
	return p;
}

/* a page buffer nothing points into any more: keep it for the next page */
static void
recycle(pq_leaf *l, pq_mem m)
{
	if (l->npool < (int) (sizeof(l->pool) / sizeof(l->pool[0])))
		l->pool[l->npool++] = m;
	else
		ts_bufpool_put(l->shared, m.p, m.cap);
}

uint8_t *
pq_leaf_page_alloc(pq_leaf *l, size_t size, size_t *cap, ts_err *err)
{
	return page_alloc(l, size, cap, err);
}

void
pq_leaf_page_recycle(pq_leaf *l, void *p, size_t cap)
{
	pq_mem		m = {p, cap};

	if (p)
		recycle(l, m);
}

/* values of the previous batch are dead: recycle their page buffers */
void
pq_leaf_release(pq_leaf *l)
{
	for (int i = 0; i < l->nretired; i++)
		recycle(l, l->retired[i]);
	l->nretired = 0;
}

/*
 * Values of these physical types are copied into their ts_value (numbers,
 * converted or not): no value points into a page, so a page's buffer can
 * be reused as soon as the page is decoded.  The next page then lands in
 * memory that is mapped and likely still in the cache, and a column needs
 * one page buffer instead of two.
 */
static bool
values_are_copies(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_BOOLEAN:
		case PQ_INT32:
		case PQ_INT64:
		case PQ_FLOAT:
		case PQ_DOUBLE:
			return true;
		default:
			return false;
	}
}

/* end of a page: its buffers may still be pointed to by the current batch */
bool
pq_leaf_retire_page(pq_leaf *l, ts_err *err)
{
	bool		ok = true;
	bool		dead = values_are_copies(l);

	if (l->page_buf)
	{
		pq_mem		m = {l->page_buf, l->page_buf_cap};

		if (dead)
			recycle(l, m);
		else
			ok = retire(l, l->page_buf, l->page_buf_cap, err);
	}
	l->page_buf = NULL;
	for (int i = 0; i < l->npage_owned; i++)
	{
		if (dead)
			recycle(l, l->page_owned[i]);
		else if (!retire(l, l->page_owned[i].p, l->page_owned[i].cap, err))
			ok = false;
	}
	l->npage_owned = 0;
	l->blob = NULL;
	l->blob_used = l->blob_cap = l->blob_total = 0;
	return ok;
}

/*
 * End of a column chunk (row group).  The chunk and dictionary buffers are
 * kept for the next row group: they are only overwritten by a later call
 * to the reader, when the values pointing into them are dead.
 */
void
pq_leaf_end_chunk(pq_leaf *l)
{
	ts_err		dummy;

	/* on allocation failure retire() frees at once: acceptable at this point */
	pq_leaf_retire_page(l, &dummy);
	if (l->ahead_current)
		pq_ahead_cancel(l);		/* pages of this chunk not needed after all */
	pq_ahead_cancel_next_page(l);
	l->has_dict = false;
	l->ndict = 0;
	l->page_left = 0;
	l->values_left = 0;
	l->nbuf = l->pos = l->nvals = l->vpos = 0;
	ts_cursor_init(&l->cur, NULL, 0);
	l->stream_file = NULL;
	l->stream_left = 0;
}

pq_leaf *
pq_leaf_new(ts_bufpool *shared)
{
	size_t		cap = 0;
	pq_leaf    *l = ts_bufpool_get(shared, sizeof(pq_leaf), &cap);

	if (!l)
		return NULL;
	/* everything but the scratch arrays def .. vals */
	memset(l, 0, offsetof(pq_leaf, def));
	memset(&l->retired, 0, sizeof(pq_leaf) - offsetof(pq_leaf, retired));
	l->shared = shared;
	l->self_cap = cap;
	return l;
}

void
pq_leaf_free(pq_leaf *l)
{
	if (!l)
		return;
	pq_leaf_end_chunk(l);
	pq_ahead_free(l);
	pq_leaf_release(l);
	/* the next file's reader takes these back (or they are freed) */
	for (int i = 0; i < l->npool; i++)
		ts_bufpool_put(l->shared, l->pool[i].p, l->pool[i].cap);
	ts_bufpool_put(l->shared, l->chunk, l->chunk_cap);
	ts_bufpool_put(l->shared, l->dict, l->dict_cap * sizeof(ts_value));
	ts_bufpool_put(l->shared, l->dict_buf, l->dict_buf_cap);
	ts_free(l->retired);
	ts_free(l->page_owned);
	ts_bufpool_put(l->shared, l, l->self_cap);
}

bool
pq_leaf_reserve(pq_leaf *l, uint8_t **p, size_t *cap, size_t len)
{
	if (*p && len <= *cap)
		return true;
	ts_bufpool_put(l->shared, *p, *cap);
	*cap = 0;
	*p = ts_bufpool_get(l->shared, len ? len : 1, cap);
	if (*p == NULL)
	{
		*cap = 0;
		return false;
	}
	return true;
}

uint8_t *
pq_leaf_chunk_buffer(pq_leaf *l, size_t len, ts_err *err)
{
	if (!pq_leaf_reserve(l, &l->chunk, &l->chunk_cap, len))
	{
		ts_error_nomemf(err, "reading column \"%s\" (%zu bytes)", l->path, len);
		return NULL;
	}
	return l->chunk;
}
