/*
 * deletion_vector.h - Paimon deletion vectors (PAIMON-FORMAT.md 7.6).
 *
 * Owns: loading one deletion vector from an index file (the 32-bit
 * Roaring "BitmapDeletionVector" and the 64-bit "Bitmap64DeletionVector"),
 * checking its size, magic number and CRC, and answering "is row
 * position p of the data file deleted?".
 */
#ifndef TS_DELETION_VECTOR_H
#define TS_DELETION_VECTOR_H

#include "base/ts_base.h"
#include "base/ts_fs.h"

typedef struct ts_deletion_vector ts_deletion_vector;

/*
 * Load the DV stored at 'offset' (the position of its 4-byte size int) of
 * the index file 'path'.  'length' is the index manifest's length (f2):
 * magic + bitmap for 32-bit DVs, size int + magic + bitmap + CRC for
 * 64-bit ones; -1 = unknown (not checked).  Errors name the file.
 */
ts_deletion_vector *ts_dv_load(ts_fs *fs, const char *path, int64_t offset, int64_t length,
							   ts_err *err);

/*
 * Decode a DV from memory: 'bytes' starts at the size int and holds
 * 'len' bytes (at least size + 8).  'what' names the source in errors.
 */
ts_deletion_vector *ts_dv_decode(const uint8_t *bytes, size_t len, int64_t length,
								 const char *what, ts_err *err);

bool		ts_dv_is_deleted(const ts_deletion_vector *dv, int64_t position);
int64_t		ts_dv_cardinality(const ts_deletion_vector *dv);
bool		ts_dv_is_64bit(const ts_deletion_vector *dv);
/* How many deleted positions are below n (the rows of a file of n rows it deletes). */
int64_t		ts_dv_count_below(const ts_deletion_vector *dv, int64_t n);
void		ts_dv_free(ts_deletion_vector *dv);

#endif							/* TS_DELETION_VECTOR_H */
