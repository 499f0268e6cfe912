/*
 * file_index.h - Paimon's file indexes (spec fileindex.mdx): the container
 * and the per-column indexes inside it, evaluated against the scan's
 * predicate tree.
 *
 * Owns: parsing the container (magic 1493475289347502, version 1, a head
 * naming per column its indexes with offset and length, big-endian) and
 * deciding, from the bloom-filter, bitmap (v1, v2), BSI and range-bitmap
 * indexes of one data file, whether some row may satisfy a predicate, and
 * for bitmap-like indexes which rows may.  Index kinds it does not read
 * (ngram ...) and values it cannot map exactly to an index
 * key leave the rows in ("remain"): an index never removes a row that
 * could match.  Bytes that do not decode are an error (TS_ERR_CORRUPT);
 * the caller names the file.  Knows nothing of schemas: the caller maps a
 * predicate's field to the index column (its name in the file's schema)
 * and the column's type, or says it has none.
 */
#ifndef TS_FILE_INDEX_H
#define TS_FILE_INDEX_H

#include "base/ts_value.h"
#include "expr/predicate.h"

#define TS_FILE_INDEX_MAGIC INT64_C(1493475289347502)

/* One index of one column in the container. */
typedef struct ts_file_index_entry
{
	const uint8_t *column;		/* modified UTF-8 bytes, not terminated */
	uint32_t	column_len;
	const uint8_t *kind;		/* "bloom-filter", "bitmap", "bsi", ... */
	uint32_t	kind_len;
	uint32_t	offset;			/* from the start of the container */
	uint32_t	length;
} ts_file_index_entry;

/* A parsed container: points into the caller's bytes. */
typedef struct ts_file_index
{
	const uint8_t *data;
	size_t		len;
	int			nentries;
	ts_file_index_entry *entries;	/* ts_malloc'd */
} ts_file_index;

bool		ts_file_index_parse(const uint8_t *data, size_t len, ts_file_index *fi, ts_err *err);
void		ts_file_index_free(ts_file_index *fi);
/*
 * The indexes of a parsed container as text, "kind column" each, in the
 * container's order, ", " between them ("bitmap f0, bloom-filter f1");
 * ts_malloc'd, NULL when out of memory.
 */
char	   *ts_file_index_describe(const ts_file_index *fi);

/*
 * How the evaluation finds a predicate field's index column: true with
 * the column's name in the index and its type (equal to the predicate's
 * column type), false when the field has no usable index column.
 */
typedef bool (*ts_file_index_column_fn) (void *arg, int field, const char **name,
										 const ts_type **type);

/* Kinds the evaluation reads (for EXPLAIN), as bits. */
#define TS_FILE_INDEX_BLOOM		0x1
#define TS_FILE_INDEX_BITMAP	0x2
#define TS_FILE_INDEX_BSI		0x4
#define TS_FILE_INDEX_RANGE_BITMAP	0x8

/* Called for each index an evaluation used (kind bit, column name). */
typedef void (*ts_file_index_used_fn) (void *arg, int kind, const char *column);

typedef struct ts_file_index_result
{
	bool		may_match;		/* false: no row of the file satisfies p */
	/*
	 * With want_rows: the rows (positions 0..row_count-1) that may satisfy
	 * p, or NULL when every row may (a roaring_bitmap_t *, free with
	 * ts_file_index_result_free).
	 */
	void	   *rows;
} ts_file_index_result;

typedef struct ts_file_index_eval
{
	ts_file_index_column_fn column;
	ts_file_index_used_fn used; /* may be NULL */
	void	   *arg;
	bool		want_rows;
} ts_file_index_eval;

bool		ts_file_index_evaluate(const ts_file_index *fi, const ts_predicate *p,
								   const ts_file_index_eval *how, ts_file_index_result *out,
								   ts_err *err);
void		ts_file_index_result_free(ts_file_index_result *r);
/* Rows in the result's selection (-1: every row). */
int64_t		ts_file_index_result_rows(const ts_file_index_result *r);
/* Is row pos selected (true when there is no selection)? */
bool		ts_file_index_result_has_row(const ts_file_index_result *r, uint32_t pos);

/* Paimon's hashes for bloom filters (FastHash): exposed for tests. */
uint64_t	ts_xxh64(const void *p, size_t len, uint64_t seed);
int64_t		ts_thomas_wang_hash64(int64_t key);

#endif							/* TS_FILE_INDEX_H */
