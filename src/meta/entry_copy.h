/*
 * entry_copy.h - deep copies of manifest entries into one block of memory
 * (the entry cache's items, src/scan/cache.c; live sets in shared memory,
 * live_set_shared.c).
 */
#ifndef TS_ENTRY_COPY_H
#define TS_ENTRY_COPY_H

#include "meta/manifest.h"

/* Bytes an entry's pointed-to data needs (the struct itself not included), 8-aligned pieces. */
size_t		ts_entry_extra_size(const ts_manifest_entry *e);
/* *dst = *src with every pointer moved into the space at *cur (advanced past what it took). */
void		ts_entry_copy_into(ts_manifest_entry *dst, const ts_manifest_entry *src, char **cur);
/* bytes of a ts_bytes' data as ts_entry_copy_into lays it out; and that copy */
size_t		ts_entry_bytes_size(ts_bytes b);
void		ts_entry_copy_bytes(ts_bytes *b, char **cur);
/* n bytes from src at *cur (8-aligned advance); returns where they went */
void	   *ts_entry_take(char **cur, const void *src, size_t n);

#endif							/* TS_ENTRY_COPY_H */
