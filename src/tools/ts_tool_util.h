/*
 * ts_tool_util.h - the small helpers of our command-line tools: report and
 * exit on any failure (die), allocation that never returns NULL, paths,
 * directories and whole-file writes.  Each tool is one .c file that
 * defines TS_TOOL_NAME (the prefix of its messages) and includes this
 * (src/tools/ts_gen.c, bench/ts_pq_register.c).
 */
#ifndef TS_TOOL_UTIL_H
#define TS_TOOL_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ts_base.h"

#ifndef TS_TOOL_NAME
#error "define TS_TOOL_NAME before including tools/ts_tool_util.h"
#endif

/* not every tool uses every helper */
#define TOOL_UTIL __attribute__((unused))

TOOL_UTIL static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", TS_TOOL_NAME);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

TOOL_UTIL static void
die_err(const char *what, const ts_err *err)
{
	die("%s: %s", what, err->msg);
}

TOOL_UTIL static void *
xcalloc(size_t n, size_t s)
{
	void	   *p = calloc(n ? n : 1, s ? s : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

TOOL_UTIL static char *
xstrdup(const char *s)
{
	char	   *r = strdup(s);

	if (r == NULL)
		die("out of memory");
	return r;
}

TOOL_UTIL static void
mkdirs(const char *path)
{
	char	   *p = xstrdup(path);

	for (char *s = p + 1; *s; s++)
	{
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			die("mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", p, strerror(errno));
	free(p);
}

TOOL_UTIL static void
write_bytes(const char *path, const void *data, size_t len)
{
	FILE	   *f = fopen(path, "wb");

	if (f == NULL)
		die("cannot create %s: %s", path, strerror(errno));
	if (len && fwrite(data, 1, len, f) != len)
		die("cannot write %s", path);
	if (fclose(f) != 0)
		die("cannot close %s", path);
}

TOOL_UTIL static char *
pathf(const char *fmt,...)
{
	va_list		ap;
	char	   *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

#endif							/* TS_TOOL_UTIL_H */
