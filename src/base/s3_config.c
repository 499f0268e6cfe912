/*
 * s3_config.c - the storage settings of S3 requests, and their counters.
 *
 * Owns: the current settings (a private copy of what the caller set, its
 * secrets wiped when replaced), the generation number that tells cached
 * answers of other settings apart, copying and freeing a settings struct,
 * and the process's counts of requests sent and round trips waited
 * (tablescan_last_metrics, the latency benchmarks).
 */
#include <stdlib.h>
#include <string.h>

#include "base/s3_internal.h"

static ts_s3_config current;
static bool have_config = false;
static int64_t requests_sent = 0;
static int64_t round_trips = 0;
static uint64_t generation = 1;

static void
free_str(const char *s)
{
	if (s)
	{
		memset((char *) s, 0, strlen(s));
		free((char *) s);
	}
}

static void
free_config(void)
{
	free_str(current.endpoint);
	free_str(current.region);
	free_str(current.ca_file);
	free_str(current.access_key);
	free_str(current.secret_key);
	free_str(current.session_token);
	free_str(current.credentials_source);
	memset(&current, 0, sizeof(current));
	have_config = false;
}

static bool
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool
same_config(const ts_s3_config *c)
{
	return have_config && same_str(current.endpoint, c->endpoint) &&
		same_str(current.region, c->region) && current.path_style == c->path_style &&
		current.path_style_set == c->path_style_set &&
		same_str(current.ca_file, c->ca_file) && same_str(current.access_key, c->access_key) &&
		same_str(current.secret_key, c->secret_key) &&
		same_str(current.session_token, c->session_token) &&
		same_str(current.credentials_source, c->credentials_source) &&
		current.max_attempts == c->max_attempts && current.max_retry_ms == c->max_retry_ms &&
		current.timeout_ms == c->timeout_ms && current.max_in_flight == c->max_in_flight &&
		current.expires_at_ms == c->expires_at_ms;
}

static bool
dup_str(const char **to, const char *from)
{
	*to = NULL;
	if (from == NULL)
		return true;
	*to = strdup(from);
	return *to != NULL;
}

bool
ts_s3_set_config(const ts_s3_config *cfg)
{
	if (cfg == NULL)
	{
		if (have_config)
			generation++;
		free_config();
		return true;
	}
	if (same_config(cfg))
		return true;
	free_config();
	generation++;
	current.path_style = cfg->path_style;
	current.path_style_set = cfg->path_style_set;
	current.max_attempts = cfg->max_attempts;
	current.max_retry_ms = cfg->max_retry_ms;
	current.timeout_ms = cfg->timeout_ms;
	current.max_in_flight = cfg->max_in_flight;
	current.expires_at_ms = cfg->expires_at_ms;
	if (!dup_str(&current.endpoint, cfg->endpoint) || !dup_str(&current.region, cfg->region) ||
		!dup_str(&current.ca_file, cfg->ca_file) ||
		!dup_str(&current.access_key, cfg->access_key) ||
		!dup_str(&current.secret_key, cfg->secret_key) ||
		!dup_str(&current.session_token, cfg->session_token) ||
		!dup_str(&current.credentials_source, cfg->credentials_source))
	{
		free_config();
		return false;
	}
	have_config = true;
	return true;
}

const ts_s3_config *
ts_s3_get_config(void)
{
	return have_config ? &current : NULL;
}

uint64_t
ts_s3_config_generation(void)
{
	return generation;
}

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
