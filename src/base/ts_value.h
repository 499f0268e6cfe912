/*
 * ts_value.h - one Paimon value in memory, and batches of rows of them.
 *
 * Owns: the value representation shared by the format readers (which
 * produce values in the type the file was written with), src/read (which
 * casts them to the table's read type) and src/fdw (which turns them into
 * Datums).  Bytes and nested values point into memory owned by whoever
 * produced the batch (a reader's buffers or a ts_arena) and stay valid
 * until that producer's next call.
 */
#ifndef TS_VALUE_H
#define TS_VALUE_H

#include "base/ts_types.h"

/*
 * 128-bit decimals, but only 8-byte aligned: ts_values live in memory from
 * palloc (MAXALIGN = 8) as well as malloc, and a 16-byte alignment would
 * let the compiler use aligned SSE moves that fault on palloc'd memory.
 */
typedef __int128 ts_int128 __attribute__((aligned(8)));

typedef struct ts_value ts_value;

/*
 * Nested values: ARRAY/MULTISET: n elements in items[0..n-1].
 * MAP: n entries, items[2*i] = key, items[2*i+1] = value.
 * ROW: n = number of fields of the row type, items[i] = field i.
 */
typedef struct ts_nested
{
	int32_t		n;
	ts_value   *items;
} ts_nested;

struct ts_value
{
	bool		isnull;
	union
	{
		/*
		 * BOOLEAN (0/1), TINYINT, SMALLINT, INT, BIGINT; DATE = days since
		 * 1970-01-01; TIME = milliseconds of the day (Paimon's internal form).
		 */
		int64_t		i;
		float		f;			/* FLOAT */
		double		d;			/* DOUBLE */
		struct
		{
			const uint8_t *p;
			uint32_t	len;
		}			s;			/* CHAR, VARCHAR, STRING, BINARY, VARBINARY, BYTES */
		ts_int128	dec;		/* DECIMAL: unscaled value; scale from the type */
		struct
		{
			int64_t		millis; /* since 1970-01-01 00:00:00 (UTC for LTZ) */
			int32_t		nanos;	/* nanos within the millisecond, 0..999999 */
		}			ts;			/* TIMESTAMP, TIMESTAMP_LTZ */
		ts_nested	nested;		/* ARRAY, MULTISET, MAP, ROW */
	}			v;
};

_Static_assert(_Alignof(ts_value) == 8, "ts_value must be 8-byte aligned");

/* ---- arena: bump allocation, freed all at once ---------------------- */

typedef struct ts_arena_chunk ts_arena_chunk;

typedef struct ts_arena
{
	ts_arena_chunk *head;
	size_t		chunk_size;
	bool		pooled;			/* new chunks from the chunk pool */
} ts_arena;

void		ts_arena_init(ts_arena *a, size_t chunk_size);
void	   *ts_arena_alloc(ts_arena *a, size_t size);	/* 16-aligned; NULL on OOM */
void	   *ts_arena_dup(ts_arena *a, const void *p, size_t size);
/* A copy of s (NULL for NULL), a printf-formatted string; NULL on OOM. */
char	   *ts_arena_strdup(ts_arena *a, const char *s);
char	   *ts_arena_printf(ts_arena *a, const char *fmt,...) __attribute__((format(printf, 2, 3)));
char	   *ts_arena_vprintf(ts_arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void		ts_arena_reset(ts_arena *a);	/* keep the first chunk */
void		ts_arena_free(ts_arena *a);
/*
 * From now on take new chunks from the chunk pool (and give them back
 * there when freed).  The owner must then free the arena, or release its
 * pooled chunks, on every path (errors included): pooled chunks do not
 * belong to the memory the ts_malloc hooks allocate in.
 */
void		ts_arena_set_pooled(ts_arena *a, bool pooled);
/*
 * Before its first allocation: about 'bytes' will be allocated, so make
 * the first chunk that large (at most TS_CHUNK_POOL_MAX); ignored later.
 */
void		ts_arena_size_hint(ts_arena *a, size_t bytes);
/* Hand the pooled chunks back (what they held is gone); the others stay. */
void		ts_arena_release_pooled(ts_arena *a);
/* Bytes of all its chunks (headers included). */
size_t		ts_arena_bytes(const ts_arena *a);

/*
 * chunk_pool.c: blocks of 64 KB .. 8 MB (powers of two) kept for reuse,
 * at most TS_CHUNK_POOL_IDLE bytes idle, from a long-lived allocator
 * (NULL, NULL = ts_malloc / ts_free; setting it empties the pool, and must
 * happen before any pooled arena exists: blocks go back to the allocator
 * the pool has when they are freed).
 */
#define TS_CHUNK_POOL_IDLE ((size_t) 16 << 20)
#define TS_CHUNK_POOL_MAX ((size_t) 8 << 20)	/* the largest block */
size_t		ts_chunk_pool_round(size_t size);	/* pooled size for size, 0 if too big */
void	   *ts_chunk_pool_get(size_t size);	/* size from ts_chunk_pool_round */
void		ts_chunk_pool_put(void *p, size_t size);
void		ts_chunk_pool_clear(void);
size_t		ts_chunk_pool_idle(void);
void		ts_chunk_pool_set_alloc(void *(*alloc_fn) (size_t size), void (*free_fn) (void *p));
/*
 * huge_block.c.  ts_prefault: fault the whole pages inside [p, p + size)
 * in with one call, contents unchanged, for fresh memory about to be
 * filled (Linux 5.14+; a no-op elsewhere or on failure).  Returns p.
 */
void	   *ts_prefault(void *p, size_t size);

/*
 * A fresh block of at least *size bytes from alloc_fn (NULL = ts_malloc):
 * below 512 KB faulted in; from 512 KB up rounded up to whole huge pages
 * (*size tells how much is usable), on a TS_HUGE_PAGE boundary and advised
 * for transparent huge pages (faulted in only where those are off).  NULL
 * when out of memory.  Free it with ts_huge_block_free
 * and the free function of that allocator (NULL = ts_free), never
 * otherwise.
 */
#define TS_HUGE_PAGE ((size_t) 2 << 20)
void	   *ts_huge_block_alloc(size_t *size, void *(*alloc_fn) (size_t size));
void		ts_huge_block_free(void *p, void (*free_fn) (void *p));

/* ---- batch ---------------------------------------------------------- */

#define TS_BATCH_ROWS 1024

/*
 * A batch of rows, row-major: the value of column c in row r is
 * values[r * stride + c], where stride is ncols unless the producer set a
 * larger one (a split reader handing on a key-value file's rows with
 * _SEQUENCE_NUMBER / _VALUE_KIND still behind the columns).  Column order
 * is the order the reader was asked for.  Index rows with ts_batch_at or
 * ts_batch_stride, never with ncols.
 */
typedef struct ts_batch
{
	int			nrows;
	int			ncols;
	ts_value   *values;
	int			stride;			/* 0 = ncols */
} ts_batch;

static inline int
ts_batch_stride(const ts_batch *b)
{
	return b->stride > 0 ? b->stride : b->ncols;
}

static inline ts_value *
ts_batch_at(const ts_batch *b, int row, int col)
{
	return &b->values[(size_t) row * ts_batch_stride(b) + col];
}

/* A TIMESTAMP value of micros since 1970 (floor to millis, the rest in nanos). */
static inline void
ts_value_set_micros(ts_value *v, int64_t micros)
{
	v->v.ts.millis = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
	v->v.ts.nanos = (int32_t) (micros - v->v.ts.millis * 1000) * 1000;
}

/* Render a value as text for messages and tests (ts_malloc'd). */
char	   *ts_value_to_string(const ts_value *v, const ts_type *t);

#endif							/* TS_VALUE_H */
