/*
 * gen_tables.h - unit tests over tables written by our generator
 * (build/.../tools/ts_gen, or $TS_GEN) into a temporary directory.
 *
 * gen_main() finds the generator next to the test binary, makes the
 * directory, runs the cmocka group and removes the directory; gen_table()
 * writes one table below it and returns its path.  One test program
 * includes it once.
 */
#ifndef TS_UNIT_GEN_TABLES_H
#define TS_UNIT_GEN_TABLES_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char gen_bin[4096];
static char gen_dir[] = "/tmp/ts_unit_gen_XXXXXX";

/* Run a shell command built like printf; fail the test when it fails. */
static void
gen_sh(const char *fmt,...)
{
	char		cmd[16384];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* Write table (a path below the directory) with generator arguments args. */
static const char *
gen_table(const char *table, const char *args)
{
	static char path[8][4096];
	static int	next = 0;
	char	   *p = path[next++ & 7];

	snprintf(p, 4096, "%s/%s", gen_dir, table);
	gen_sh("%s %s %s >/dev/null", gen_bin, p, args);
	return p;
}

/* main() of a test program that generates tables. */
static int
gen_main(const char *argv0, const struct CMUnitTest *tests, size_t ntests)
{
	const char *g = getenv("TS_GEN");
	int			rc;
	char		cmd[8192];

	if (g && *g)
		snprintf(gen_bin, sizeof(gen_bin), "%s", g);
	else
	{
		const char *slash = strrchr(argv0, '/');

		snprintf(gen_bin, sizeof(gen_bin), "%.*s/../tools/ts_gen",
				 slash ? (int) (slash - argv0) : 1, slash ? argv0 : ".");
	}
	if (access(gen_bin, X_OK) != 0)
	{
		fprintf(stderr, "ts_gen not found at %s (set TS_GEN)\n", gen_bin);
		return 1;
	}
	if (mkdtemp(gen_dir) == NULL)
		return 1;
	rc = _cmocka_run_group_tests("tests", tests, ntests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", gen_dir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	return rc;
}

#endif							/* TS_UNIT_GEN_TABLES_H */
