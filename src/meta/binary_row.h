/*
 * binary_row.h - Paimon BinaryRow: decode and encode (PAIMON-FORMAT.md 5).
 *
 * Owns: the byte layout of BinaryRow as stored in manifests (4-byte
 * big-endian arity prefix + row bytes) for partitions, keys and stats,
 * and building rows for bucket hashing and for our own fixture writer.
 */
#ifndef TS_BINARY_ROW_H
#define TS_BINARY_ROW_H

#include "base/ts_value.h"

/*
 * Decode a serialized row (with the 4-byte BE arity prefix) into
 * out[0..ntypes-1] using the given field types.  If the stored arity is
 * smaller than ntypes the remaining values are NULL; if larger, the extra
 * fields are ignored.  Strings/binaries point into 'bytes'; nested values
 * and non-compact decimals are allocated in 'arena'.  *arity (may be NULL)
 * receives the stored arity.
 */
bool		ts_binary_row_decode(const uint8_t *bytes, size_t len,
								 const ts_type *const *types, int ntypes,
								 ts_value *out, int *arity, ts_arena *arena, ts_err *err);

/* Arity of a serialized row, -1 if it is shorter than 4 bytes. */
int			ts_binary_row_arity(const uint8_t *bytes, size_t len);

/*
 * Encode values as a BinaryRow (row kind 0).  With with_arity_prefix the
 * 4-byte BE arity is written first (manifest form); without it the bytes
 * are exactly what Paimon hashes for bucket assignment.  Null non-compact
 * decimals/timestamps reserve their var-part space as Java does.
 */
bool		ts_binary_row_encode(const ts_type *const *types, const ts_value *values, int n,
								 bool with_arity_prefix, ts_buf *out, ts_err *err);

#endif							/* TS_BINARY_ROW_H */
