/*
 * zstd_context.c - zstd decompression contexts in our memory.
 *
 * Owns: creating a ZSTD_DCtx whose memory comes from the allocation hooks
 * (memory contexts in a backend, so it is released with them on ERROR),
 * for the readers that keep one per file or per scan (Avro, Parquet).
 */
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_createDCtx_advanced */
#include <zstd.h>

#include "base/ts_base.h"

static void *
zstd_alloc(void *opaque, size_t size)
{
	(void) opaque;
	return ts_malloc(size);
}

static void
zstd_free(void *opaque, void *p)
{
	(void) opaque;
	ts_free(p);
}

void *
ts_zstd_dctx_create(void)
{
	ZSTD_customMem mem = {zstd_alloc, zstd_free, NULL};

	return ZSTD_createDCtx_advanced(mem);
}
