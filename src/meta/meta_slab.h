/*
 * meta_slab.h - packed copies of the small fields of metadata records.
 *
 * Owns: carving the copies that decoding a manifest keeps (strings, byte
 * fields, small arrays) from 8 KB slabs of the caller's arena, aligned
 * only as much as each needs (1 for bytes and strings, 8 for arrays), so
 * that the many small copies of a manifest are packed, not each rounded
 * up to the arena's 16 bytes.  Used by manifest.c (values from a reader)
 * and manifest_avro.c (fields decoded straight into a record).  Freed
 * with the arena.
 */
#ifndef TS_META_SLAB_H
#define TS_META_SLAB_H

#include "base/ts_value.h"

#define TS_META_SLAB_SIZE 8192

typedef struct ts_meta_slab
{
	ts_arena   *arena;
	uint8_t    *p;				/* the rest of the current slab */
	size_t		left;
} ts_meta_slab;

static inline void
ts_meta_slab_init(ts_meta_slab *s, ts_arena *arena)
{
	s->arena = arena;
	s->p = NULL;
	s->left = 0;
}

/* 'size' bytes aligned to 'align' (a power of two <= 16); NULL when out of memory. */
static inline __attribute__((always_inline)) void *
ts_meta_slab_alloc(ts_meta_slab *s, size_t size, size_t align)
{
	size_t		pad = (size_t) (-(uintptr_t) s->p & (align - 1));
	void	   *p;

	if (s->p == NULL || pad + size > s->left)
	{
		if (size > TS_META_SLAB_SIZE / 4)
			return ts_arena_alloc(s->arena, size);	/* large: on its own */
		s->p = ts_arena_alloc(s->arena, TS_META_SLAB_SIZE);
		if (s->p == NULL)
			return NULL;
		s->left = TS_META_SLAB_SIZE;
		pad = 0;
	}
	p = s->p + pad;
	s->p += pad + size;
	s->left -= pad + size;
	return p;
}

#endif							/* TS_META_SLAB_H */
