/*
 * chunk_pool.c - large blocks kept for reuse by arenas that are filled and
 * freed over and over (scan plans).
 *
 * Owns: a bounded per-process free list of blocks by power-of-two size
 * class (64 KB .. 8 MB), from a long-lived allocator of its own (inside
 * PostgreSQL a child of TopMemoryContext; by default ts_malloc).  Memory
 * freed by an arena and handed back to the C library is often returned to
 * the operating system and faulted in again, page by page, by the next
 * plan; blocks kept here stay mapped.  At most TS_CHUNK_POOL_IDLE bytes
 * are kept idle: a block handed back beyond that is freed.  Blocks in use
 * are the arenas' business (ts_arena_set_pooled): whoever pools an arena
 * must free or release it on every path, errors included.  A block fresh
 * from the allocator is faulted in with one madvise(MADV_POPULATE_WRITE)
 * call (Linux 5.14+; elsewhere, or if it fails, pages fault in as they are
 * touched): a plan fills its blocks anyway, and one call costs far less
 * than a page fault per 4 KB.  Blocks of 2 MB and more are huge blocks
 * (huge_block.c): a plan's large arena then takes one fault per 2 MB.
 */
#include "base/ts_value.h"

#define POOL_MIN_SHIFT 16		/* 64 KB */
#define POOL_CLASSES 8			/* .. 8 MB */

typedef struct pool_block
{
	struct pool_block *next;
} pool_block;

static struct
{
	pool_block *free[POOL_CLASSES];
	size_t		idle;
	void	   *(*alloc_fn) (size_t size);
	void		(*free_fn) (void *p);
} pool;

/* The class of a block of exactly 'size' bytes, -1 if none. */
static int
size_class(size_t size)
{
	for (int c = 0; c < POOL_CLASSES; c++)
		if (size == ((size_t) 1 << (POOL_MIN_SHIFT + c)))
			return c;
	return -1;
}

size_t
ts_chunk_pool_round(size_t size)
{
	size_t		s = (size_t) 1 << POOL_MIN_SHIFT;

	for (int c = 0; c < POOL_CLASSES; c++, s <<= 1)
		if (size <= s)
			return s;
	return 0;
}

/* A fresh block of 'size' bytes: from 2 MB up, a huge block. */
static void *
block_alloc(size_t size)
{
	void	   *(*alloc_fn) (size_t) = pool.alloc_fn ? pool.alloc_fn : ts_malloc;

	if (size < TS_HUGE_PAGE)
		return ts_prefault(alloc_fn(size), size);
	return ts_huge_block_alloc(&size, alloc_fn);	/* size stays: a multiple of 2 MB */
}

static void
block_free(void *p, size_t size)
{
	void		(*free_fn) (void *) = pool.free_fn ? pool.free_fn : ts_free;

	if (size < TS_HUGE_PAGE)
		free_fn(p);
	else
		ts_huge_block_free(p, free_fn);
}

void *
ts_chunk_pool_get(size_t size)
{
	int			c = size_class(size);

	if (c < 0)
		return NULL;
	if (pool.free[c])
	{
		pool_block *b = pool.free[c];

		pool.free[c] = b->next;
		pool.idle -= size;
		return b;
	}
	return block_alloc(size);
}

void
ts_chunk_pool_put(void *p, size_t size)
{
	int			c = size_class(size);
	pool_block *b = p;

	if (p == NULL || c < 0)
		return;
	if (pool.idle + size > TS_CHUNK_POOL_IDLE)
	{
		block_free(p, size);
		return;
	}
	b->next = pool.free[c];
	pool.free[c] = b;
	pool.idle += size;
}

void
ts_chunk_pool_clear(void)
{
	for (int c = 0; c < POOL_CLASSES; c++)
		while (pool.free[c])
		{
			pool_block *b = pool.free[c];

			pool.free[c] = b->next;
			block_free(b, (size_t) 1 << (POOL_MIN_SHIFT + c));
		}
	pool.idle = 0;
}

size_t
ts_chunk_pool_idle(void)
{
	return pool.idle;
}

void
ts_chunk_pool_set_alloc(void *(*alloc_fn) (size_t size), void (*free_fn) (void *p))
{
	ts_chunk_pool_clear();
	pool.alloc_fn = alloc_fn;
	pool.free_fn = free_fn;
}
