/*
 * write_schema.h - the schema file of an empty table for the write-layer
 * unit tests: <root>/schema/schema-0 holding json, written by hand so that
 * what a test reads back does not depend on a table the code under test made.
 */
#ifndef TS_UNIT_WRITE_SCHEMA_H
#define TS_UNIT_WRITE_SCHEMA_H

#include <sys/stat.h>

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

#endif							/* TS_UNIT_WRITE_SCHEMA_H */
