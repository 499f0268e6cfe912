/*
 * fi_internal.h - what the file-index readers share (file_index.c walks
 * the predicate, fi_bloom.c / fi_bitmap.c / fi_bsi.c decide one leaf on
 * one index body; fi_range_bitmap.c for range-bitmap; fi_btree.c for the
 * btree global index).
 */
#ifndef TS_FI_INTERNAL_H
#define TS_FI_INTERNAL_H

#include <roaring/roaring.h>

#include "base/ts_roaring_check.h"
#include "format/fileindex/file_index.h"
#include "format/fileindex/global_index.h"

/* What an index says about a leaf or a subtree. */
typedef enum fi_state
{
	FI_REMAIN,					/* nothing known: every row may match */
	FI_SKIP,					/* no row matches */
	FI_ROWS						/* only the rows in 'rows' may match */
} fi_state;

typedef struct fi_res
{
	fi_state	state;
	roaring_bitmap_t *rows;		/* FI_ROWS only; owned */
} fi_res;

static inline void
fi_res_clear(fi_res *r)
{
	if (r->rows)
		roaring_bitmap_free(r->rows);
	r->rows = NULL;
	r->state = FI_REMAIN;
}

/* Take ownership of bitmap b (NULL = out of memory) as the result. */
bool		fi_res_rows(fi_res *r, roaring_bitmap_t *b, ts_err *err);
/* a = a AND b, a = a OR b; b is consumed. */
void		fi_res_and(fi_res *a, fi_res *b);
void		fi_res_or(fi_res *a, fi_res *b);

/*
 * A literal of leaf p as the 64-bit key the bitmap / BSI writers map a
 * value of type t to (integers, DATE, TIME, compact DECIMAL, TIMESTAMP as
 * milliseconds for precision <= 3, else microseconds).  false when the
 * literal is NULL, of another type, or not exactly a key.  *lossy: keys of
 * this type may stand for several values (TIMESTAMP(7..9)), so only
 * "equal" lookups are exact enough to use.
 */
bool		fi_literal_key(const ts_type *t, const ts_predicate *p, const ts_value *lit,
						   int64_t *key, bool *lossy);
bool		fi_type_keys_lossy(const ts_type *t);

/*
 * Deserialize one portable Roaring bitmap of at most max bytes, structure
 * checked first (base/ts_roaring_check.h); *used = bytes taken.
 */
roaring_bitmap_t *fi_read_roaring(const uint8_t *p, size_t max, size_t *used, ts_err *err);

bool		fi_bloom_leaf(const uint8_t *body, size_t len, const ts_type *t,
						  const ts_predicate *p, fi_res *out, ts_err *err);
bool		fi_bitmap_leaf(const uint8_t *body, size_t len, const ts_type *t,
						   const ts_predicate *p, fi_res *out, ts_err *err);
bool		fi_bsi_leaf(const uint8_t *body, size_t len, const ts_type *t,
						const ts_predicate *p, fi_res *out, ts_err *err);
bool		fi_range_bitmap_leaf(const uint8_t *body, size_t len, const ts_type *t,
								 const ts_predicate *p, fi_res *out, ts_err *err);
/* The btree global index (fi_btree.c): *out = the rows, or *all. */
bool		fi_btree_leaf(const ts_gi_source *src, const ts_type *t, const ts_predicate *p,
						  bool *all, roaring_bitmap_t **out, ts_err *err);

#endif							/* TS_FI_INTERNAL_H */
