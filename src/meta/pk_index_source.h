/*
 * pk_index_source.h - the source data files of a Paimon 2.0 primary-key
 * global index payload (Java's PrimaryKeyIndexSourceMeta, the bytes of
 * _GLOBAL_INDEX._SOURCE_META in the index manifest).
 *
 * A pk-btree / pk-bitmap payload indexes an ordered list of data files of
 * one bucket; its "row ids" are ordinals over those files concatenated in
 * order (file i owns [sum(rows[..i]), sum(rows[..=i])) ), so an ordinal is
 * a physical row position in one of them.  The bytes are Java DataOutput
 * (big-endian ints / longs, writeUTF names).  Writers have used two
 * layouts: int version (1 or 2), int count, count x (UTF name, long rows),
 * then a UTF fingerprint when version 2 (Java's first one); and int
 * version 1, int data level (> 0), int count, count x (UTF name, long rows)
 * (pypaimon, paimon-cpp, paimon-rust and later Java).  Both are tried; a
 * layout is accepted only if it uses every byte.  The names are compared
 * byte for byte with the data files' names (modified UTF-8 equals UTF-8
 * for names without NUL or characters beyond the BMP).
 */
#ifndef TS_PK_INDEX_SOURCE_H
#define TS_PK_INDEX_SOURCE_H

#include "base/ts_base.h"

typedef struct ts_pk_source_file
{
	char	   *name;			/* NUL-terminated copy */
	int64_t		rows;
} ts_pk_source_file;

typedef struct ts_pk_source_meta
{
	int32_t		level;			/* 0 = not recorded (first layout) */
	int			nfiles;
	ts_pk_source_file *files;
	int64_t		total_rows;
} ts_pk_source_meta;

/*
 * Parse the bytes; false (with err, TS_ERR_CORRUPT) when no layout fits.
 * Memory: ts_malloc'd, freed by ts_pk_source_meta_free.
 */
bool		ts_pk_source_meta_parse(const uint8_t *data, size_t len, ts_pk_source_meta *out,
									ts_err *err);
void		ts_pk_source_meta_free(ts_pk_source_meta *m);

/* Is a equal to b (same files, same rows, same order)? */
bool		ts_pk_source_meta_equal(const ts_pk_source_meta *a, const ts_pk_source_meta *b);

#endif							/* TS_PK_INDEX_SOURCE_H */
