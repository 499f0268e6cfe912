/*
 * ts_snappy.h - libsnappy's C API, loaded on first use (snappy.c).
 */
#ifndef TS_SNAPPY_H
#define TS_SNAPPY_H

#include <snappy-c.h>

#include "base/ts_base.h"

typedef struct ts_snappy_api
{
	snappy_status (*uncompressed_length) (const char *compressed, size_t compressed_length,
										  size_t *result);
	snappy_status (*uncompress) (const char *compressed, size_t compressed_length,
								 char *uncompressed, size_t *uncompressed_length);
	size_t		(*max_compressed_length) (size_t source_length);
	snappy_status (*compress) (const char *input, size_t input_length,
							   char *compressed, size_t *compressed_length);
} ts_snappy_api;

/*
 * The functions, libsnappy loaded the first time; NULL with err set
 * (TS_ERR_UNSUPPORTED, naming the library) when it cannot be loaded.
 */
const ts_snappy_api *ts_snappy(ts_err *err);

/*
 * Tests: load 'soname' instead of libsnappy.so.1 from now on (NULL: the
 * default); forgets what was loaded.
 */
void		ts_snappy_set_library(const char *soname);

#endif
