/*
 * unit.h - what every server-free unit test includes: cmocka, plus where
 * the shared real tables and oracle live (../shared, or $TS_SHARED).
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

static inline const char *
unit_shared_dir(void)
{
	const char *d = getenv("TS_SHARED");

	return d && *d ? d : "../shared";
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

#endif
