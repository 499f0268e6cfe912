/*
 * manifest_avro.h - the fast path for Avro metadata files (manifest_avro.c).
 *
 * A row source for manifest.c: the requested columns of each record of an
 * Avro manifest, manifest list or index manifest, decoded by a program
 * compiled from the file's writer schema, with the values the generic
 * reader (src/format) would give.  Files it does not compile (ORC, other
 * Avro shapes) are left to the generic reader.
 */
#ifndef TS_MANIFEST_AVRO_H
#define TS_MANIFEST_AVRO_H

#include "format/format.h"

typedef struct ts_meta_avro ts_meta_avro;

/*
 * What one open leaves for the next when many files of one writer schema
 * are read in a row (the manifests of a table): the parsed schema and the
 * program compiled from it, reused while the schema text and the requested
 * columns (the same array) are the same.  Used by one open file at a time.
 * NULL from ts_meta_avro_keep_new when out of memory: then nothing is kept.
 */
typedef struct ts_meta_avro_keep ts_meta_avro_keep;

ts_meta_avro_keep *ts_meta_avro_keep_new(void);
void		ts_meta_avro_keep_free(ts_meta_avro_keep *keep);

/*
 * Open 'path' for the columns cols[0..ncols-1] (types: INT, TINYINT,
 * BIGINT, VARCHAR, VARBINARY, TIMESTAMP(3), ARRAY of those, ROW of all
 * these).  Returns NULL with *mine = false when the file is not one this
 * path compiles (use the generic reader), NULL with *mine = true and err
 * set on an error (a bad Avro header).
 */
ts_meta_avro *ts_meta_avro_open(ts_fs *fs, const char *path, const ts_read_column *cols, int ncols,
								bool *mine, ts_err *err);
/* The same, with what the previous open left in 'keep' (may be NULL). */
ts_meta_avro *ts_meta_avro_open_kept(ts_fs *fs, const char *path, const ts_read_column *cols, int ncols,
									 ts_meta_avro_keep *keep, bool *mine, ts_err *err);

/*
 * Decoding straight into the caller's record struct (a manifest entry)
 * instead of values: a requested column (or a field of a requested ROW)
 * may say where its value goes.  What a null or absent field leaves there
 * is what the struct held before (the caller's defaults).  Only the shapes
 * named here; any other pairing of writer field and destination is "not
 * mine" at open (the generic reader and the caller's own conversion).
 */
typedef enum ts_meta_dest_kind
{
	TS_DEST_VALUE = 0,			/* a ts_value in the row, as without dests */
	TS_DEST_I32,				/* int32_t: an INT or TINYINT column */
	TS_DEST_I64,				/* int64_t: BIGINT, or TIMESTAMP(3) as its millis */
	TS_DEST_STRING,				/* char *: a NUL-terminated copy */
	TS_DEST_BYTES,				/* ts_bytes: a copy (data not NULL when not null) */
	TS_DEST_STRINGS,			/* char ** + int count (null elements read "") */
	TS_DEST_LONGS,				/* int64_t * + int count (null elements read -1) */
	TS_DEST_ROW					/* a ROW whose fields all have dests, relative to off */
} ts_meta_dest_kind;

typedef struct ts_meta_dest
{
	ts_meta_dest_kind kind;
	int			off;			/* offset of the value in the record */
	int			count_off;		/* arrays: offset of the int count */
	int			flag_off;		/* >= 0: offset of a bool set when not null */
	int			bit;			/* >= 0: bit set in *seen when not null */
	const struct ts_meta_dest *fields;	/* ROW: one per field of its type */
} ts_meta_dest;

/*
 * ts_meta_avro_open_kept with dests[0..ncols-1] (NULL: values only);
 * copies are carved from 'copies'.  Read with ts_meta_avro_next_into.
 */
ts_meta_avro *ts_meta_avro_open_into(ts_fs *fs, const char *path, const ts_read_column *cols,
									 const ts_meta_dest *dests, int ncols,
									 ts_meta_avro_keep *keep, ts_arena *copies,
									 bool *mine, ts_err *err);

/*
 * The next record: 1 with *row = ncols values (valid until the next call:
 * bytes point into the current block, nested rows and arrays into the
 * reader), 0 at the end, -1 on error (TS_ERR_CORRUPT naming file, block,
 * object).
 */
int			ts_meta_avro_next(ts_meta_avro *r, const ts_value **row, ts_err *err);
/*
 * The same, the columns with dests decoded into 'record' (its fields that
 * stay null keep what they held); *seen = the bits of the dests that were
 * not null.  The values of those columns in *row are not set.
 */
int			ts_meta_avro_next_into(ts_meta_avro *r, void *record, const ts_value **row,
								   uint64_t *seen, ts_err *err);
void		ts_meta_avro_close(ts_meta_avro *r);

#endif							/* TS_MANIFEST_AVRO_H */
