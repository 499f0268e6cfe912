/*
 * test_consumer_file.c - Paimon consumer files (src/meta/consumer.c):
 * which consumer ids make a file name, the file's path, the JSON Java's
 * ConsumerManager writes read back (unknown keys ignored, a missing or
 * non-positive nextSnapshot refused as corrupt), a missing file told apart
 * from an error, a write that replaces the file atomically (no temporary
 * file left) and stays inside the scope, and object stores refused by
 * name.
 */
#include "unit.h"

#include <dirent.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/consumer.h"

static char base[256];

static int
setup(void **state)
{
	(void) state;
	snprintf(base, sizeof(base), "/tmp/ts_unit_consumer_%d", (int) getpid());
	mkdir(base, 0700);
	return 0;
}

static int
teardown(void **state)
{
	char		cmd[600];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : 1;
}

static void
test_ids(void **state)
{
	ts_err		err = {0};
	char		longid[300];

	(void) state;
	assert_true(ts_consumer_id_check("totals", &err));
	assert_true(ts_consumer_id_check("my-consumer.v2_x", &err));
	assert_false(ts_consumer_id_check("", &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_false(ts_consumer_id_check(NULL, &err));
	assert_false(ts_consumer_id_check("a/b", &err));
	assert_non_null(strstr(err.msg, "a/b"));
	assert_false(ts_consumer_id_check("..", &err));
	assert_false(ts_consumer_id_check("x..y", &err));
	assert_false(ts_consumer_id_check("tab\there", &err));
	assert_non_null(strstr(err.msg, "control"));
	assert_false(ts_consumer_id_check("del\x7f", &err));
	memset(longid, 'c', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_false(ts_consumer_id_check(longid, &err));
	longid[200] = '\0';
	assert_true(ts_consumer_id_check(longid, &err));
}

static void
test_path_and_parse(void **state)
{
	ts_err		err = {0};
	int64_t		next = -1;
	char	   *p = ts_consumer_path("/wh/db.db/t/branch/branch-b1", "c1");
	const char *java = "{\n  \"nextSnapshot\" : 42\n}";

	(void) state;
	assert_string_equal(p, "/wh/db.db/t/branch/branch-b1/consumer/consumer-c1");
	ts_free(p);
	assert_true(ts_consumer_parse(java, strlen(java), "f", &next, &err));
	assert_int_equal(next, 42);
	/* unknown keys are ignored, as Java's @JsonIgnoreProperties */
	assert_true(ts_consumer_parse("{\"other\": \"x\", \"nextSnapshot\": 9000000000}", 43, "f",
								  &next, &err));
	assert_int_equal(next, 9000000000LL);
	assert_false(ts_consumer_parse("{\"other\": 1}", 12, "f", &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "nextSnapshot"));
	assert_false(ts_consumer_parse("{\"nextSnapshot\": 0}", 19, "f", &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_consumer_parse("{\"nextSnapshot\": -3}", 20, "f", &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_consumer_parse("{\"nextSnapshot\": true}", 22, "f", &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_consumer_parse("[1]", 3, "f", &next, &err));
	assert_false(ts_consumer_parse("{\"nextSnap", 10, "f", &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
}

/* the names in dir (no "." / ".."), joined by ',' */
static void
names_in(const char *dir, char *out, size_t cap)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;

	out[0] = '\0';
	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
	{
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		strncat(out, e->d_name, cap - strlen(out) - 2);
		strcat(out, ",");
	}
	closedir(d);
}

static void
test_write_read(void **state)
{
	ts_err		err = {0};
	char		table[300],
				cmd[700],
				cdir[400],
				names[400],
				text[100] = {0};
	const char *roots[1];
	ts_fs_scope scope;
	ts_fs	   *fs;
	bool		exists = true;
	int64_t		next = 0;
	char	   *path;
	FILE	   *f;

	(void) state;
	snprintf(table, sizeof(table), "%s/db.db/t", base);
	snprintf(cdir, sizeof(cdir), "%s/consumer", table);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", table);
	assert_int_equal(system(cmd), 0);
	roots[0] = table;
	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for(table, NULL, &scope, &err);
	assert_non_null(fs);

	/* no file yet: not an error */
	assert_true(ts_consumer_read(fs, table, "c1", &exists, &next, &err));
	assert_false(exists);

	/* written (the consumer directory made), read back, replaced */
	assert_true(ts_consumer_writable(fs, table, &err));
	path = ts_consumer_path(table, "c1");
	assert_true(ts_consumer_write(fs, path, 7, &err));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	assert_string_equal(text, "{\n  \"nextSnapshot\" : 7\n}");
	assert_true(ts_consumer_read(fs, table, "c1", &exists, &next, &err));
	assert_true(exists);
	assert_int_equal(next, 7);
	assert_true(ts_consumer_write(fs, path, 12, &err));
	assert_true(ts_consumer_read(fs, table, "c1", &exists, &next, &err));
	assert_int_equal(next, 12);
	/* only the file: no temporary one left beside it */
	names_in(cdir, names, sizeof(names));
	assert_string_equal(names, "consumer-c1,");
	ts_free(path);

	/* a damaged file is an error naming it, not "no file" */
	snprintf(cmd, sizeof(cmd), "printf '{\"nextSnapshot\": ' > '%s/consumer-bad'", cdir);
	assert_int_equal(system(cmd), 0);
	assert_false(ts_consumer_read(fs, table, "bad", &exists, &next, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "consumer-bad"));

	/* outside the fs's scope nothing is written, and the check says so first */
	snprintf(cmd, sizeof(cmd), "%s/elsewhere", base);
	assert_false(ts_consumer_writable(fs, cmd, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "permission denied to write"));
	snprintf(cmd, sizeof(cmd), "%s/elsewhere/consumer/consumer-c1", base);
	assert_false(ts_consumer_write(fs, cmd, 3, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	snprintf(cmd, sizeof(cmd), "%s/elsewhere", base);
	assert_int_equal(access(cmd, F_OK), -1);
	ts_fs_free(fs);
	ts_fs_scope_free(&scope);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_path_and_parse),
		cmocka_unit_test(test_write_read),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
