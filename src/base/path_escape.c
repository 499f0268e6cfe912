/*
 * path_escape.c - PartitionPathUtils.escapePathName / unescapePathName
 * (see ts_path_escape.h).
 *
 * Owns: which bytes a partition path escapes, and the %XY round trip.
 */
#include "base/ts_path_escape.h"

#include <string.h>

/* The ASCII bytes escaped: control characters, DEL and  " # % ' * / : = ? \ { } [ ] ^ */
static const bool escaped[128] = {
	[0x01] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x05] = true,
	[0x06] = true, [0x07] = true, [0x08] = true, [0x09] = true, [0x0A] = true,
	[0x0B] = true, [0x0C] = true, [0x0D] = true, [0x0E] = true, [0x0F] = true,
	[0x10] = true, [0x11] = true, [0x12] = true, [0x13] = true, [0x14] = true,
	[0x15] = true, [0x16] = true, [0x17] = true, [0x18] = true, [0x19] = true,
	[0x1A] = true, [0x1B] = true, [0x1C] = true, [0x1D] = true, [0x1E] = true,
	[0x1F] = true, [0x7F] = true,
	['"'] = true, ['#'] = true, ['%'] = true, ['\''] = true, ['*'] = true, ['/'] = true,
	[':'] = true, ['='] = true, ['?'] = true, ['\\'] = true, ['{'] = true, ['}'] = true,
	['['] = true, [']'] = true, ['^'] = true,
};

static inline bool
needs_escape(unsigned char c)
{
	return c < 128 && escaped[c];
}

/* Write the escaped form of s to o (room enough); the end of what was written. */
static char *
escape_into(char *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const char *p = s; *p; p++)
	{
		unsigned char c = (unsigned char) *p;

		if (needs_escape(c))
		{
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
		else
			*o++ = (char) c;
	}
	return o;
}

static size_t
escaped_length(const char *s)
{
	size_t		n = 0;

	for (const char *p = s; *p; p++)
		n += needs_escape((unsigned char) *p) ? 3 : 1;
	return n;
}

char *
ts_partition_escape(const char *s)
{
	char	   *out = ts_malloc(escaped_length(s) + 1);

	if (out == NULL)
		return NULL;
	*escape_into(out, s) = '\0';
	return out;
}

bool
ts_partition_escape_append(ts_buf *b, const char *s, ts_err *err)
{
	size_t		n = escaped_length(s);

	if (!ts_buf_reserve(b, n + 1, err))
		return false;
	escape_into((char *) b->data + b->len, s);
	b->len += n;
	return true;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
ts_partition_unescape(const char *s)
{
	size_t		n = strlen(s);
	char	   *out = ts_malloc(n + 1);
	char	   *o = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		if (s[i] == '%' && i + 2 < n &&
			hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0)
		{
			*o++ = (char) (hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		}
		else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}
