/*
 * s3_config.c - the storage settings of S3 requests, and their counters.
 *
 * Owns: the generation numbers that tell cached answers of other settings
 * apart, copying and freeing a settings struct,
 * and the process's counts of requests sent and round trips waited
 * (tablescan_last_metrics, the latency benchmarks).
 */
#include <stdlib.h>
#include <string.h>

#include "base/s3_internal.h"

static int64_t requests_sent = 0;
static int64_t round_trips = 0;
static uint64_t generation = 1;

uint64_t
ts_s3_generation_next(void)
{
	return ++generation;
}

bool
ts_s3_config_copy(ts_s3_config *to, const ts_s3_config *from)
{
	const char **strs[] = {&to->endpoint, &to->region, &to->ca_file, &to->access_key,
	&to->secret_key, &to->session_token, &to->credentials_source};

	*to = *from;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (*strs[i] && (*strs[i] = ts_strdup(*strs[i])) == NULL)
		{
			for (size_t j = i + 1; j < sizeof(strs) / sizeof(strs[0]); j++)
				*strs[j] = NULL;
			ts_s3_config_free_copy(to);
			return false;
		}
	return true;
}

void
ts_s3_config_free_copy(ts_s3_config *c)
{
	const char *strs[] = {c->endpoint, c->region, c->ca_file, c->access_key, c->secret_key,
	c->session_token, c->credentials_source};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i])
		{
			memset((char *) strs[i], 0, strlen(strs[i]));
			ts_free((char *) strs[i]);
		}
	memset(c, 0, sizeof(*c));
}

int64_t
ts_s3_request_count(void)
{
	return requests_sent;
}

int64_t
ts_s3_round_trip_count(void)
{
	return round_trips;
}

void
s3_count_round_trip(void)
{
	round_trips++;
}
void
s3_count_request(void)
{
	requests_sent++;
}
