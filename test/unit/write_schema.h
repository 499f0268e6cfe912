/*
 * write_schema.h - for the write-layer unit tests: the schema file of an
 * empty table, <root>/schema/schema-0 holding json, written by hand so that
 * what a test reads back does not depend on a table the code under test
 * made; the local fs a table writer is given; the entries of a directory
 * whose names start with a prefix; the writer schema of an Avro file; a new
 * scratch directory; a schema parsed from JSON; a file writer's sink into a
 * ts_buf, and that buffer to a temporary file.
 */
#ifndef TS_UNIT_WRITE_SCHEMA_H
#define TS_UNIT_WRITE_SCHEMA_H

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "format/avro/avro_container.h"
#include "meta/schema.h"

/* A new empty directory under /tmp (strdup'd). */
static __attribute__((unused)) char *
scratch_dir(void)
{
	char		tmpl[] = "/tmp/ts-unit-write.XXXXXX";
	char	   *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

/* A schema from its JSON text (the test fails when it does not parse). */
static __attribute__((unused)) ts_schema *
schema_json(const char *json)
{
	ts_err		err;
	ts_schema  *s = ts_schema_parse(json, strlen(json), "test", &err);

	if (s == NULL)
		fail_msg("schema: %s", err.msg);
	return s;
}

/* A file writer's sink appending to the ts_buf arg. */
static __attribute__((unused)) bool
buf_sink(void *arg, const void *data, size_t len, ts_err *err)
{
	return ts_buf_append((ts_buf *) arg, data, len, err);
}

/* out's bytes to a new file made from tmpl ("/tmp/x.XXXXXX", changed in place); out freed. */
static __attribute__((unused)) void
buf_to_temp_file(char *tmpl, ts_buf *out)
{
	int			fd = mkstemp(tmpl);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, out->data, out->len), (ssize_t) out->len);
	close(fd);
	ts_buf_free(out);
}

static __attribute__((unused)) void
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
static __attribute__((unused)) ts_fs *
local_fs(const char *root)
{
	ts_err		err;
	ts_fs	   *fs = ts_fs_open_for(root, NULL, NULL, &err);

	if (fs == NULL)
		fail_msg("%s", err.msg);
	return fs;
}

/* The entries of dir whose names start with prefix ("" counts "." and ".."). */
static __attribute__((unused)) int
count_entries(const char *dir, const char *prefix)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/* The writer schema (JSON) in the header of the Avro file at path; free it. */
static __attribute__((unused)) char *
avro_schema_of(const char *path)
{
	ts_err		err;
	ts_avro_container *c = ts_avro_container_open(ts_fs_local_unconfined(), path, &err);
	char	   *s;

	if (c == NULL)
		fail_msg("%s: %s", path, err.msg);
	s = strdup(c->schema_json);
	ts_avro_container_close(c);
	return s;
}

#endif							/* TS_UNIT_WRITE_SCHEMA_H */
