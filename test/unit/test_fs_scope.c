/*
 * test_fs_scope.c - the file scope of src/base/fs_scope.c and fs.c: paths
 * under the roots open, paths that leave them by "..", by an absolute name
 * or by a symbolic link (to a file, to a directory, listed or opened) are
 * TS_ERR_DENIED without being opened, and a name outside reveals nothing
 * (the same error whether it exists or not).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/ts_fs.h"

static char base[256];
static char inside[300];
static char outside[300];

static void
write_file(const char *path, const char *text)
{
	FILE	   *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	char		p[512];

	(void) state;
	snprintf(base, sizeof(base), "/tmp/ts_unit_scope_%d", (int) getpid());
	snprintf(inside, sizeof(inside), "%s/wh", base);
	snprintf(outside, sizeof(outside), "%s/secret", base);
	mkdir(base, 0700);
	mkdir(inside, 0700);
	mkdir(outside, 0700);
	snprintf(p, sizeof(p), "%s/sub", inside);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sub/ok.txt", inside);
	write_file(p, "inside");
	snprintf(p, sizeof(p), "%s/pw.txt", outside);
	write_file(p, "secret");
	/* links out of the root: to a file and to a directory */
	snprintf(p, sizeof(p), "%s/sub/link_file", inside);
	assert_int_equal(symlink("../../secret/pw.txt", p), 0);
	snprintf(p, sizeof(p), "%s/link_dir", inside);
	assert_int_equal(symlink(outside, p), 0);
	/* a link that stays inside is fine */
	snprintf(p, sizeof(p), "%s/sub/link_in", inside);
	assert_int_equal(symlink("ok.txt", p), 0);
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

/* The fs of the running test, confined to its scope. */
static ts_fs *confined;

static void
confine_to_inside(void)
{
	ts_fs_scope scope;
	const char *roots[] = {inside};
	ts_err		err = {0};

	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	confined = ts_fs_open_for(inside, NULL, &scope, &err);
	assert_non_null(confined);
	/* the fs holds a copy: the caller's scope may go */
	ts_free((void *) scope.lexical[0]);
	ts_free((void *) scope.resolved[0]);
	ts_free((void *) scope.lexical);
	ts_free((void *) scope.resolved);
}

static void
test_normalize(void **state)
{
	char	   *n;

	(void) state;
	n = ts_path_normalize("/a//b/./c/../d/");
	assert_string_equal(n, "/a/b/d");
	ts_free(n);
	n = ts_path_normalize("/a/../../..");
	assert_string_equal(n, "/");
	ts_free(n);
	assert_null(ts_path_normalize("relative/x"));
}

static void
expect_denied(const char *path)
{
	ts_err		err = {0};
	ts_file    *f = ts_file_open(confined, path, &err);

	assert_null(f);
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "permission denied"));
}

static void
test_open_confined(void **state)
{
	char		p[512];
	ts_err		err = {0};
	ts_file    *f;
	uint8_t    *data;
	size_t		len;

	(void) state;
	confine_to_inside();
	snprintf(p, sizeof(p), "%s/sub/ok.txt", inside);
	f = ts_file_open(confined, p, &err);
	assert_non_null(f);
	ts_file_close(f);
	snprintf(p, sizeof(p), "%s/sub/link_in", inside);
	assert_true(ts_read_whole_file(confined, p, &data, &len, &err));
	assert_int_equal(len, 6);
	ts_free(data);

	/* "..", absolute names and links leading out */
	snprintf(p, sizeof(p), "%s/sub/../../secret/pw.txt", inside);
	expect_denied(p);
	snprintf(p, sizeof(p), "%s/pw.txt", outside);
	expect_denied(p);
	expect_denied("/etc/passwd");
	expect_denied("relative.txt");
	snprintf(p, sizeof(p), "%s/sub/link_file", inside);
	expect_denied(p);
	snprintf(p, sizeof(p), "%s/link_dir/pw.txt", inside);
	expect_denied(p);

	/* outside: the same error for a file that does not exist */
	snprintf(p, sizeof(p), "%s/no_such_file", outside);
	expect_denied(p);
	/* inside, missing: not found as usual */
	snprintf(p, sizeof(p), "%s/sub/missing", inside);
	assert_null(ts_file_open(confined, p, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);

	/* existence checks reveal nothing outside */
	assert_false(ts_path_is_file(confined, "/etc/passwd"));
	assert_false(ts_path_is_dir(confined, outside));
	snprintf(p, sizeof(p), "%s/link_dir", inside);
	assert_false(ts_path_is_dir(confined, p));
	snprintf(p, sizeof(p), "%s/sub", inside);
	assert_true(ts_path_is_dir(confined, p));
	ts_fs_free(confined);
	assert_true(ts_path_is_dir(ts_fs_local_unconfined(), outside));
}

static void
test_list_confined(void **state)
{
	char		p[512];
	char	  **names;
	int			n;
	ts_err		err = {0};

	(void) state;
	confine_to_inside();
	/* a listing holding a link that leads out is an error, not a silent skip */
	snprintf(p, sizeof(p), "%s/sub", inside);
	assert_false(ts_list_dir(confined, p, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_non_null(strstr(err.msg, "link_file"));
	assert_false(ts_list_dir(confined, inside, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	snprintf(p, sizeof(p), "%s/link_dir", inside);
	assert_false(ts_list_dir(confined, p, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_list_dir(confined, outside, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);

	/* unconfined, the same listing works */
	ts_fs_free(confined);
	snprintf(p, sizeof(p), "%s/sub", inside);
	assert_true(ts_list_dir(ts_fs_local_unconfined(), p, &names, &n, &err));
	assert_int_equal(n, 3);
	ts_free_names(names, n);
}

static void
test_no_roots_allows_nothing(void **state)
{
	ts_fs_scope scope;
	ts_err		err = {0};
	char		p[512];

	(void) state;
	assert_true(ts_fs_scope_make(&scope, NULL, 0, &err));
	confined = ts_fs_open_for(inside, NULL, &scope, &err);
	assert_non_null(confined);
	snprintf(p, sizeof(p), "%s/sub/ok.txt", inside);
	expect_denied(p);
	/* a system file is read whatever the scope */
	{
		uint8_t    *data;
		size_t		len;

		assert_true(ts_read_system_file(p, &data, &len, &err));
		ts_free(data);
	}
	expect_denied(p);
	ts_fs_free(confined);
	ts_free((void *) scope.lexical);
	ts_free((void *) scope.resolved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_open_confined),
		cmocka_unit_test(test_list_confined),
		cmocka_unit_test(test_no_roots_allows_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
