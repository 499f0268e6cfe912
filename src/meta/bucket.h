/*
 * bucket.h - Paimon bucket functions (PAIMON-FORMAT.md 6).
 *
 * Owns: DEFAULT (MurmurHash3_x86_32 seed 42 over the BinaryRow of the
 * bucket-key values, abs(hash % n)), MOD and HIVE bucket functions.
 * Pure functions; the pruning rules that decide *when* to use them live in
 * src/scan.
 */
#ifndef TS_BUCKET_H
#define TS_BUCKET_H

#include "base/ts_value.h"

typedef enum ts_bucket_function
{
	TS_BUCKET_FN_DEFAULT,
	TS_BUCKET_FN_MOD,
	TS_BUCKET_FN_HIVE
} ts_bucket_function;

/* From the "bucket-function.type" option value (NULL => default). */
bool		ts_bucket_function_parse(const char *value, ts_bucket_function *fn, ts_err *err);

/* Paimon's MurmurHash3_x86_32 over 4-byte words (length multiple of 4), seed 42. */
int32_t		ts_murmur_hash_words(const uint8_t *data, size_t len, uint32_t seed);

/*
 * The bucket of one row of bucket-key values under 'total_buckets'
 * (> 0).  TS_ERR_UNSUPPORTED when the function cannot take a key type
 * (e.g. MOD on a non-integer key).
 */
bool		ts_bucket_compute(ts_bucket_function fn,
							  const ts_type *const *key_types, const ts_value *key_values, int nkeys,
							  int32_t total_buckets, int32_t *bucket, ts_err *err);

#endif							/* TS_BUCKET_H */
