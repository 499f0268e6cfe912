/*
 * error.c - the ts_err record: setting an error, its detail and hint, the
 * out-of-memory error, and adding context to a message.
 *
 * Owns nothing else; the FDW layer maps ts_errcode to PostgreSQL errcodes
 * and detail / hint to errdetail / errhint.
 */
#include <stdio.h>
#include <string.h>

#include "base/ts_base.h"

bool
ts_error(ts_err *err, ts_errcode code, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return false;
	err->code = code;
	err->detail[0] = '\0';
	err->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return false;
}

bool
ts_error_detail(ts_err *err, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return false;
	va_start(ap, fmt);
	vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
	return false;
}

bool
ts_error_hint(ts_err *err, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return false;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
	return false;
}

bool
ts_error_nomem(ts_err *err, const char *what)
{
	if (what && what[0])
		return ts_error(err, TS_ERR_NOMEM, "out of memory %s", what);
	return ts_error(err, TS_ERR_NOMEM, "out of memory");
}

bool
ts_error_nomemf(ts_err *err, const char *fmt,...)
{
	char		what[TS_ERR_MSG_LEN];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ts_error_nomem(err, what);
}

bool
ts_error_context(ts_err *err, const char *fmt,...)
{
	char		prefix[TS_ERR_MSG_LEN];
	char		old[TS_ERR_MSG_LEN];
	va_list		ap;

	if (err == NULL)
		return false;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	{
		size_t		plen = strnlen(prefix, sizeof(err->msg) - 3);
		size_t		olen = strnlen(old, sizeof(old) - 1);

		memcpy(err->msg, prefix, plen);
		memcpy(err->msg + plen, ": ", 2);
		if (olen > sizeof(err->msg) - plen - 3)
			olen = sizeof(err->msg) - plen - 3;
		memcpy(err->msg + plen + 2, old, olen);
		err->msg[plen + 2 + olen] = '\0';
	}
	return false;
}
