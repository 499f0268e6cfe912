/*
 * pq_column_internal.h - what the files that read a Parquet column chunk
 * share: the pages (pq_column.c), the buffers that hold them and the
 * values pointing into them (pq_leaf_memory.c), and the decoding of
 * values into the requested Paimon representation (pq_values.c).  Not
 * used outside src/format/parquet.
 */
#ifndef TS_PQ_COLUMN_INTERNAL_H
#define TS_PQ_COLUMN_INTERNAL_H

#include "format/parquet/pq_internal.h"

static inline bool
leaf_error(const pq_leaf *l, ts_err *err, ts_errcode code, const char *what)
{
	return ts_error(err, code, "%s (column \"%s\")", what, l->path);
}

/* pq_leaf_memory.c */
bool		pq_mem_push(pq_mem **arr, int *n, int *cap, void *p, size_t size, ts_err *err);
bool		pq_leaf_retire_page(pq_leaf *l, ts_err *err);

/* pq_values.c: decode n PLAIN values from *pp (bounded by end), unconverted */
bool		pq_decode_plain(pq_leaf *l, const uint8_t **pp, const uint8_t *end, uint64_t *bitpos,
							ts_value *out, int n, ts_err *err);

#endif							/* TS_PQ_COLUMN_INTERNAL_H */
