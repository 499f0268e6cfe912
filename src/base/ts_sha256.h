/*
 * ts_sha256.h - SHA-256 (FIPS 180-4) without OpenSSL.
 *
 * For digests computed where a plan may be the process's first use of
 * OpenSSL (the metadata cache's record names): OpenSSL's first digest
 * loads its configuration and providers, ~3 ms of CPU in a new backend.
 */
#ifndef TS_SHA256_H
#define TS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_sha256
{
	uint32_t	state[8];
	uint64_t	length;			/* bytes hashed so far */
	uint8_t		block[64];		/* the partial block */
	size_t		used;			/* bytes in block */
} ts_sha256;

void		ts_sha256_init(ts_sha256 *c);
void		ts_sha256_update(ts_sha256 *c, const void *data, size_t len);
void		ts_sha256_final(ts_sha256 *c, uint8_t out[32]);
void		ts_sha256_digest(const void *data, size_t len, uint8_t out[32]);

#endif
