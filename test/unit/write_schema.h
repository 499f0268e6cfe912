/*
 * write_schema.h - for the write-layer unit tests: the schema file of an
 * empty table, <root>/schema/schema-0 holding json, written by hand so that
 * what a test reads back does not depend on a table the code under test
 * made; and the local fs a table writer is given.
 */
#ifndef TS_UNIT_WRITE_SCHEMA_H
#define TS_UNIT_WRITE_SCHEMA_H

#include <sys/stat.h>

#include "base/ts_fs.h"

static void
write_schema(const char *root, const char *json)
{
	char		path[600];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/schema", root);
	mkdir(root, 0700);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/schema/schema-0", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
}

/* An unconfined fs of the local store, for root's files. */
static ts_fs *
local_fs(const char *root)
{
	ts_err		err;
	ts_fs	   *fs = ts_fs_open_for(root, NULL, NULL, &err);

	if (fs == NULL)
		fail_msg("%s", err.msg);
	return fs;
}

#endif							/* TS_UNIT_WRITE_SCHEMA_H */
