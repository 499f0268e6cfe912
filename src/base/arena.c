/*
 * arena.c - bump allocation released all at once (per batch, per plan).
 *
 * Chunks come from ts_malloc, or, for a pooled arena (ts_arena_set_pooled),
 * from the chunk pool (chunk_pool.c) in power-of-two sizes, and go back
 * where they came from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/ts_value.h"

struct ts_arena_chunk
{
	ts_arena_chunk *next;
	size_t		size;			/* usable bytes after the header */
	size_t		used;
	size_t		pooled;			/* whole block size if from the pool, else 0 */
	/* data follows, 16-aligned */
};

#define CHUNK_HDR ((sizeof(ts_arena_chunk) + 15) & ~(size_t) 15)

void
ts_arena_init(ts_arena *a, size_t chunk_size)
{
	a->head = NULL;
	a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
	a->pooled = false;
}

void
ts_arena_size_hint(ts_arena *a, size_t bytes)
{
	if (a->head != NULL)
		return;
	if (bytes > TS_CHUNK_POOL_MAX)
		bytes = TS_CHUNK_POOL_MAX;
	if (bytes > a->chunk_size)
		a->chunk_size = bytes;
}

void
ts_arena_set_pooled(ts_arena *a, bool pooled)
{
	a->pooled = pooled;
}

static void
chunk_free(ts_arena_chunk *c)
{
	if (c->pooled)
		ts_chunk_pool_put(c, c->pooled);
	else
		ts_free(c);
}

/*
 * The size of a pooled arena's next block: the chunk size first, then a
 * huge page, then twice its newest pooled block (chunks it had before it
 * was pooled do not count), or a huge page at once for a request larger
 * than the chunk size.  An arena that outgrows its first block, or is asked
 * for more than it holds, is likely to need much more (a plan's arrays over
 * thousands of files and its splits, a cache fill), and one 2 MB huge
 * block costs less to fault in than the 4 KB pages of the blocks in
 * between (chunk_pool.c: on this project's VM ~10 us a 4 KB page even
 * populated at once, 0.06-0.15 ms a huge page).
 */
static size_t
pooled_next(const ts_arena *a, size_t need)
{
	const ts_arena_chunk *c = a->head;

	while (c != NULL && c->pooled == 0)
		c = c->next;
	if (c == NULL)
		return CHUNK_HDR + need > a->chunk_size && a->chunk_size < TS_HUGE_PAGE ?
			TS_HUGE_PAGE : a->chunk_size;
	if (c->pooled < TS_HUGE_PAGE)
		return TS_HUGE_PAGE;
	return c->pooled < TS_CHUNK_POOL_MAX ? c->pooled * 2 : TS_CHUNK_POOL_MAX;
}

void *
ts_arena_alloc(ts_arena *a, size_t size)
{
	ts_arena_chunk *c = a->head;
	size_t		need = (size + 15) & ~(size_t) 15;

	if (size == 0)
		need = 16;
	if (need < size)
		return NULL;
	if (c == NULL || c->size - c->used < need)
	{
		size_t		csize = a->chunk_size ? a->chunk_size : 64 * 1024;
		size_t		block = 0,
					next;

		while (csize < need)
		{
			if (csize > ((size_t) 1 << 30))
				return NULL;
			csize *= 2;
		}
		/*
		 * pooled: the smallest pool block that holds the header and the
		 * request, and at least twice the last one (chunk_size first), so
		 * that a large plan soon takes blocks big enough for huge pages
		 */
		if (a->pooled &&
			(block = ts_chunk_pool_round(CHUNK_HDR + need > (next = pooled_next(a, need)) ?
										 CHUNK_HDR + need : next)) != 0)
		{
			c = ts_chunk_pool_get(block);
			csize = block - CHUNK_HDR;
		}
		else
		{
			block = 0;
			c = ts_malloc(CHUNK_HDR + csize);
		}
		if (c == NULL)
			return NULL;
		c->size = csize;
		c->used = 0;
		c->pooled = block;
		c->next = a->head;
		a->head = c;
	}
	{
		void	   *p = (char *) c + CHUNK_HDR + c->used;

		c->used += need;
		return p;
	}
}

void *
ts_arena_dup(ts_arena *a, const void *p, size_t size)
{
	void	   *r = ts_arena_alloc(a, size);

	if (r && size)
		memcpy(r, p, size);
	return r;
}

char *
ts_arena_strdup(ts_arena *a, const char *s)
{
	return s ? ts_arena_dup(a, s, strlen(s) + 1) : NULL;
}

char *
ts_arena_vprintf(ts_arena *a, const char *fmt, va_list ap)
{
	va_list		ap2;
	int			n;
	char	   *r;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	r = ts_arena_alloc(a, (size_t) n + 1);
	if (r == NULL)
		return NULL;
	vsnprintf(r, (size_t) n + 1, fmt, ap);
	return r;
}

char *
ts_arena_printf(ts_arena *a, const char *fmt,...)
{
	va_list		ap;
	char	   *r;

	va_start(ap, fmt);
	r = ts_arena_vprintf(a, fmt, ap);
	va_end(ap);
	return r;
}

void
ts_arena_reset(ts_arena *a)
{
	ts_arena_chunk *c = a->head;
	ts_arena_chunk *keep = NULL;

	/* keep the largest (first allocated) chunk? keep the newest one */
	if (c)
	{
		keep = c;
		c = c->next;
		keep->next = NULL;
		keep->used = 0;
	}
	while (c)
	{
		ts_arena_chunk *n = c->next;

		chunk_free(c);
		c = n;
	}
	a->head = keep;
}

void
ts_arena_free(ts_arena *a)
{
	ts_arena_chunk *c = a->head;

	while (c)
	{
		ts_arena_chunk *n = c->next;

		chunk_free(c);
		c = n;
	}
	a->head = NULL;
}

void
ts_arena_release_pooled(ts_arena *a)
{
	ts_arena_chunk **pp = &a->head;

	while (*pp)
	{
		ts_arena_chunk *c = *pp;

		if (c->pooled)
		{
			*pp = c->next;
			ts_chunk_pool_put(c, c->pooled);
		}
		else
			pp = &c->next;
	}
	a->pooled = false;
}

size_t
ts_arena_bytes(const ts_arena *a)
{
	size_t		n = 0;

	for (const ts_arena_chunk *c = a->head; c; c = c->next)
		n += CHUNK_HDR + c->size;
	return n;
}
