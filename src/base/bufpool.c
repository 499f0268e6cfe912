/*
 * bufpool.c - large buffers handed from one data file's reader to the next.
 *
 * Owns: a small, bounded set of released buffers (Parquet page, column
 * chunk and dictionary buffers, a Parquet column's pq_leaf, the readers'
 * and the merge's batch arrays) that the reader of the next file of a scan
 * takes back instead of allocating.  A fresh large allocation is new memory to the
 * kernel (mmap, or a heap grown again after a trim), and every page of it
 * is faulted in on first write: for a scan over many files that costs more
 * than decompressing the data.  The pool is owned by whoever outlives the
 * file readers (a split reader, a scan) and is allocated like everything
 * else here (ts_malloc, i.e. in the scan's memory context in a backend);
 * freeing it frees what it holds.  Never shared between threads.
 */
#include <stdint.h>
#include <string.h>

#include "base/ts_base.h"
#include "base/ts_value.h"		/* ts_prefault */

/*
 * A merge of k runs hands back about three buffers (chunk, page, dictionary)
 * per column per run when its split ends, all wanted by the next split's
 * merge: 64 slots dropped most of those of a 4-run, 11-column merge.
 */
#define TS_BUFPOOL_SLOTS 256

typedef struct pool_slot
{
	void	   *p;
	size_t		cap;
} pool_slot;

struct ts_bufpool
{
	size_t		max_bytes;		/* most bytes kept */
	size_t		bytes;			/* bytes kept now */
	int			n;
	pool_slot	slots[TS_BUFPOOL_SLOTS];
};

ts_bufpool *
ts_bufpool_new(size_t max_bytes)
{
	ts_bufpool *pool = ts_calloc(1, sizeof(ts_bufpool));

	if (pool)
		pool->max_bytes = max_bytes;
	return pool;
}

static void
drop_slot(ts_bufpool *pool, int i)
{
	pool->bytes -= pool->slots[i].cap;
	pool->slots[i] = pool->slots[--pool->n];
}

/* As ts_bufpool_get; *fresh: the buffer is new memory, not one kept. */
static void *
get(ts_bufpool *pool, size_t size, size_t *cap, bool *fresh)
{
	int			best = -1;
	int			largest = -1;
	void	   *p;

	if (size == 0)
		size = 1;
	if (pool)
	{
		/* the smallest buffer that is large enough */
		for (int i = 0; i < pool->n; i++)
		{
			if (pool->slots[i].cap >= size &&
				(best < 0 || pool->slots[i].cap < pool->slots[best].cap))
				best = i;
			if (largest < 0 || pool->slots[i].cap > pool->slots[largest].cap)
				largest = i;
		}
		if (best >= 0)
		{
			p = pool->slots[best].p;
			*cap = pool->slots[best].cap;
			drop_slot(pool, best);
			*fresh = false;
			return p;
		}

		/*
		 * Nothing fits: the request replaces the largest buffer kept (too
		 * small for it), so that what the pool holds plus what is in use
		 * does not grow when the files' sizes drift upwards.
		 */
		if (largest >= 0)
		{
			ts_free(pool->slots[largest].p);
			drop_slot(pool, largest);
		}
	}
	p = ts_malloc(size);
	if (p)
		*cap = size;
	*fresh = true;
	return p;
}

void *
ts_bufpool_get(ts_bufpool *pool, size_t size, size_t *cap)
{
	bool		fresh;

	return get(pool, size, cap, &fresh);
}

void *
ts_bufpool_get_faulted(ts_bufpool *pool, size_t size, size_t *cap, size_t fault_bytes)
{
	bool		fresh;
	void	   *p = get(pool, size, cap, &fresh);

	if (p != NULL && fresh)
		ts_prefault(p, fault_bytes < *cap ? fault_bytes : *cap);
	return p;
}

void *
ts_bufpool_get_zeroed(ts_bufpool *pool, size_t n, size_t size, size_t *cap)
{
	bool		fresh;
	void	   *p;

	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	p = get(pool, n * size, cap, &fresh);
	if (p == NULL)
		return NULL;
	if (fresh)
		ts_prefault(p, n * size);	/* one call, not a fault per 4 KB of the memset */
	memset(p, 0, n * size);
	return p;
}

void
ts_bufpool_put(ts_bufpool *pool, void *p, size_t cap)
{
	if (p == NULL)
		return;
	if (pool == NULL || cap > pool->max_bytes)
	{
		ts_free(p);
		return;
	}
	/* make room by dropping the smallest buffers kept */
	while (pool->n > 0 && (pool->n == TS_BUFPOOL_SLOTS || pool->bytes + cap > pool->max_bytes))
	{
		int			smallest = 0;

		for (int i = 1; i < pool->n; i++)
			if (pool->slots[i].cap < pool->slots[smallest].cap)
				smallest = i;
		if (pool->slots[smallest].cap >= cap)
		{
			/* everything kept is at least as large: keep those instead */
			ts_free(p);
			return;
		}
		ts_free(pool->slots[smallest].p);
		drop_slot(pool, smallest);
	}
	pool->slots[pool->n].p = p;
	pool->slots[pool->n].cap = cap;
	pool->n++;
	pool->bytes += cap;
}

size_t
ts_bufpool_bytes(const ts_bufpool *pool)
{
	return pool ? pool->bytes : 0;
}

void
ts_bufpool_free(ts_bufpool *pool)
{
	if (pool == NULL)
		return;
	for (int i = 0; i < pool->n; i++)
		ts_free(pool->slots[i].p);
	ts_free(pool);
}
