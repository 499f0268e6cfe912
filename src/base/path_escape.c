/*
 * path_escape.c - PartitionPathUtils.escapePathName / unescapePathName
 * (see ts_path_escape.h).
 *
 * Owns: which bytes a partition path escapes, and the %XY round trip.
 */
#include "base/ts_path_escape.h"

#include <string.h>

static bool
needs_escape(unsigned char c)
{
	if (c >= 128)
		return false;
	if (c < 0x20 || c == 0x7F)
		return true;
	return strchr("\"#%'*/:=?\\{}[]^", c) != NULL;
}

char *
ts_partition_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		n = 0;
	char	   *out,
			   *o;

	for (const char *p = s; *p; p++)
		n += needs_escape((unsigned char) *p) ? 3 : 1;
	out = ts_malloc(n + 1);
	if (out == NULL)
		return NULL;
	o = out;
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
	*o = '\0';
	return out;
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
