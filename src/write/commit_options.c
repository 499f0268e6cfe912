/*
 * commit_options.c - the waits of Java's commit retry loop.
 *
 * Owns: parsing a duration option as Java's TimeUtils.parseDuration does
 * (digits, an optional unit label: ms when none; singular labels d, h,
 * min, m, s, ms, µs, ns and plural ones day(s), hour(s), minute(s), ...),
 * for commit.min-retry-wait / commit.max-retry-wait / commit.timeout,
 * RetryWaiter's backoff between two attempts of a commit (commit.c), and
 * when to stop retrying (commit.max-retries, commit.timeout).
 */
#include <string.h>

#include "base/ts_base.h"
#include "write/write_internal.h"

int64_t
ts_commit_retry_wait_ms(int64_t min_ms, int64_t max_ms, int retry, uint32_t random)
{
	int64_t		wait = min_ms;
	int64_t		jitter;

	for (int i = 0; i < retry && wait < max_ms; i++)
		wait *= 2;
	if (wait > max_ms)
		wait = max_ms;
	jitter = wait / 5;			/* (int) (retryWait * 0.2) */
	return wait + (int64_t) (random % (uint64_t) (jitter > 1 ? jitter : 1));
}

/*
 * After failed attempt number retry (0: the first), elapsed_ms after the
 * first began: give up?  As Java's tryCommit: once more than commit.timeout
 * has passed, or commit.max-retries retries were made; err says which.
 */
bool
ts_commit_give_up(const ts_commit_input *in, int retry, int64_t elapsed_ms, ts_err *err)
{
	if (retry >= in->max_retries)
	{
		ts_error(err, TS_ERR_IO, "commit to \"%s\" failed after %d retries", in->table_path, retry);
		ts_error_hint(err, "Other writers committed to the table meanwhile; raise \"commit.max-retries\" or try again.");
		return true;
	}
	if (elapsed_ms > in->timeout_ms)
	{
		ts_error(err, TS_ERR_IO,
				 "commit to \"%s\" was not made: \"commit.timeout\" (%lld ms) passed after %d retries",
				 in->table_path, (long long) in->timeout_ms, retry);
		ts_error_hint(err, "Other writers committed to the table meanwhile; raise \"commit.timeout\" or try again.");
		return true;
	}
	return false;
}

/* Java's TimeUtils units: singular labels, and plural ones that take an "s". */
static const struct
{
	const char *label;
	bool		plural;
	int64_t		nanos;
}			units[] = {
	{"d", false, 86400000000000LL}, {"day", true, 86400000000000LL},
	{"h", false, 3600000000000LL}, {"hour", true, 3600000000000LL},
	{"min", false, 60000000000LL}, {"m", false, 60000000000LL}, {"minute", true, 60000000000LL},
	{"s", false, 1000000000LL}, {"sec", true, 1000000000LL}, {"second", true, 1000000000LL},
	{"ms", false, 1000000LL}, {"milli", true, 1000000LL}, {"millisecond", true, 1000000LL},
	{"\xc2\xb5s", false, 1000LL}, {"micro", true, 1000LL}, {"microsecond", true, 1000LL},
	{"ns", false, 1LL}, {"nano", true, 1LL}, {"nanosecond", true, 1LL},
};

bool
ts_write_parse_duration_ms(const char *key, const char *value, int64_t *ms, ts_err *err)
{
	const char *p = value;
	char		unit[16];
	size_t		len = 0;
	int64_t		n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (n > (INT64_MAX - 9) / 10)
			goto bad;
		n = n * 10 + (*p - '0');
	}
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p && *p != ' ' && *p != '\t' && len + 1 < sizeof(unit); p++)
		unit[len++] = (char) ((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p);
	unit[len] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0')
		goto bad;
	if (len == 0)
	{
		*ms = n;
		return true;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
	{
		size_t		l = strlen(units[i].label);

		if (strcmp(unit, units[i].label) == 0 ||
			(units[i].plural && len == l + 1 && strncmp(unit, units[i].label, l) == 0 && unit[l] == 's'))
		{
			if (units[i].nanos >= 1000000 && n > INT64_MAX / (units[i].nanos / 1000000))
				goto bad;
			*ms = units[i].nanos >= 1000000 ? n * (units[i].nanos / 1000000) : n / (1000000 / units[i].nanos);
			return true;
		}
	}
bad:
	ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, value);
	return ts_error_hint(err, "A duration is a number with an optional unit: ms (the default), s, min, h or d.");
}
