/*
 * global_index.h - reading Paimon's global index files (Paimon 1.3+,
 * index/<kind>-global-index-<uuid>.index, listed in the index manifest
 * with the row-id range they cover and the field they index).
 *
 * Owns: deciding one predicate leaf on one global index file.  The
 * "bitmap" kind is the bitmap file-index body (fileindex.mdx, v1 / v2,
 * read by fi_bitmap.c) over the positions 0 .. n-1 of the file's row-id
 * range, as Java's BitmapGlobalIndexer writes it; it is read whole.  The
 * "btree" kind (fi_btree.c) is a sorted key -> row ids file read block by
 * block.  Other kinds (vector and full-text ones) are not read here.
 */
#ifndef TS_GLOBAL_INDEX_H
#define TS_GLOBAL_INDEX_H

#include "base/ts_value.h"
#include "expr/predicate.h"

/*
 * Where an index file's bytes come from: len bytes at offset of size
 * bytes; nrows = the rows of its row range (0 = not known: then no leaf
 * answered by the rows an index does not list, IS NOT NULL, <>, NOT IN,
 * uses it).
 */
typedef struct ts_gi_source
{
	bool		(*read) (void *arg, void *buf, size_t len, int64_t offset, ts_err *err);
	void	   *arg;
	int64_t		size;
	int64_t		nrows;
} ts_gi_source;

/* Is an index of this _INDEX_TYPE read by ts_global_index_leaf? */
bool		ts_global_index_kind_supported(const char *index_type);

/*
 * Which positions of the index's row range may satisfy leaf p on a column
 * of type t: *rows = a roaring_bitmap_t * of them (free with
 * ts_global_index_rows_free), or NULL with *all true when the index cannot
 * tell (every row may).  Bytes that do not decode: TS_ERR_CORRUPT.
 */
bool		ts_global_index_leaf_src(const char *index_type, const ts_gi_source *src,
									 const ts_type *t, const ts_predicate *p, bool *all,
									 void **rows, ts_err *err);
/* The same on a file held in memory (its row range not known). */
bool		ts_global_index_leaf(const char *index_type, const uint8_t *body, size_t len,
								 const ts_type *t, const ts_predicate *p, bool *all, void **rows,
								 ts_err *err);
/* The same on a file held in memory whose row range has nrows rows. */
bool		ts_global_index_leaf_n(const char *index_type, const uint8_t *body, size_t len,
								   int64_t nrows, const ts_type *t, const ts_predicate *p,
								   bool *all, void **rows, ts_err *err);
void		ts_global_index_rows_free(void *rows);

#endif							/* TS_GLOBAL_INDEX_H */
