/*
 * unit.h - what every server-free unit test includes: cmocka, plus where
 * the shared real tables and oracle live (../shared, or $TS_SHARED).
 * A test that needs them is skipped (cmocka skip, counted as skipped by
 * test/run-unit.sh) when that directory is absent, instead of failing.
 */
#ifndef TS_UNIT_H
#define TS_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>

/* The shared tables' directory; skips the calling test when it is absent. */
static inline const char *
unit_shared_dir(void)
{
	const char *d = getenv("TS_SHARED");
	struct stat st;

	if (!(d && *d))
		d = "../shared";
	if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
	{
		print_message("skipping: the shared tables (%s, or $TS_SHARED) are absent\n", d);
		skip();
	}
	return d;
}

/* snprintf a path under the shared dir into a static buffer ring */
static inline const char *
unit_shared_path(const char *rel)
{
	static char bufs[8][4096];
	static int	next = 0;
	char	   *b = bufs[next++ & 7];

	snprintf(b, 4096, "%s/%s", unit_shared_dir(), rel);
	return b;
}

/* How many lines of file path start with prefix (0 when it cannot be read)? */
static inline int
unit_lines_starting(const char *path, const char *prefix)
{
	FILE	   *f = fopen(path, "r");
	char		line[16384];
	int			n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			n++;
	fclose(f);
	return n;
}

#endif
