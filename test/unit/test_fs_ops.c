/*
 * test_fs_ops.c - the file system object (ts_fs.h): local files through
 * the operations table (scope denial, capabilities, a whole read with a
 * byte cap, sorted listings, several ranges at once), an unknown scheme
 * refused when the fs is built and when a path names it, a path of another
 * store read by that store with the fs's own settings,
 * and two fs objects with different scopes or credentials used in turn in
 * one process, each giving its own answers (what the process-wide scope
 * and settings could not).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "format/format.h"

static char base[256];
static char dir_a[300];
static char dir_b[300];

static void
write_file(const char *dir, const char *name, const char *text)
{
	char		p[600];
	FILE	   *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *
path_in(const char *dir, const char *name)
{
	static char p[4][600];
	static int	next = 0;

	next = (next + 1) % 4;
	snprintf(p[next], sizeof(p[next]), "%s/%s", dir, name);
	return p[next];
}

static int
setup(void **state)
{
	(void) state;
	snprintf(base, sizeof(base), "/tmp/ts_unit_fs_ops_%d", (int) getpid());
	snprintf(dir_a, sizeof(dir_a), "%s/a", base);
	snprintf(dir_b, sizeof(dir_b), "%s/b", base);
	mkdir(base, 0700);
	mkdir(dir_a, 0700);
	mkdir(dir_b, 0700);
	/* created out of order: a listing sorts them */
	write_file(dir_a, "zeta", "last");
	write_file(dir_a, "alpha", "0123456789");
	write_file(dir_a, "mid", "m");
	mkdir(path_in(dir_a, "sub"), 0700);
	write_file(dir_b, "only-b", "bee");
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

/* A local fs confined to dir. */
static ts_fs *
confined_fs(const char *dir)
{
	ts_fs_scope scope;
	const char *roots[] = {dir};
	ts_err		err = {0};
	ts_fs	   *fs;

	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for(dir, NULL, &scope, &err);
	assert_non_null(fs);
	/* the fs owns a copy: the caller's scope may go */
	ts_free((void *) scope.lexical[0]);
	ts_free((void *) scope.resolved[0]);
	ts_free((void *) scope.lexical);
	ts_free((void *) scope.resolved);
	return fs;
}

static void
test_local_ops(void **state)
{
	ts_fs	   *fs = confined_fs(dir_a);
	ts_err		err = {0};
	ts_file    *f;
	char		buf[16] = {0};
	char		r1[3] = {0},
				r2[2] = {0};
	ts_range	ranges[2];
	ts_file_reads *rd;
	uint8_t    *data = NULL;
	size_t		len = 0;
	char	  **names;
	int			n;

	(void) state;
	assert_string_equal(ts_fs_store_name(fs), "local");
	assert_int_equal(ts_fs_caps(fs) & TS_FS_CAP_REMOTE, 0);
	assert_true(ts_fs_caps(fs) & TS_FS_CAP_ATOMIC_CREATE);
	assert_true(ts_fs_caps(fs) & TS_FS_CAP_RENAME);
	assert_null(ts_fs_s3_config(fs));

	/* open, size, positional read; "file:" names the same file */
	f = ts_file_open(fs, path_in(dir_a, "alpha"), &err);
	assert_non_null(f);
	assert_int_equal(ts_file_size(f), 10);
	assert_false(ts_file_is_remote(f));
	assert_true(ts_file_mtime_ns(f) > 0);
	assert_true(ts_file_pread(f, buf, 4, 3, &err));
	assert_string_equal(buf, "3456");
	assert_false(ts_file_pread(f, buf, 4, 8, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "alpha"));
	memset(&err, 0, sizeof(err));

	/* several ranges: read now on a local file, the handle only a token */
	ranges[0] = (ts_range) {.offset = 0, .len = 3, .buf = r1};
	ranges[1] = (ts_range) {.offset = 8, .len = 2, .buf = r2};
	rd = ts_file_pread_many_start(f, ranges, 2, &err);
	assert_non_null(rd);
	assert_true(ts_file_pread_many_ready(rd));
	assert_true(ts_file_pread_many_finish(rd, &err));
	assert_memory_equal(r1, "012", 3);
	assert_memory_equal(r2, "89", 2);
	ts_file_close(f);
	{
		char		uri[700];

		snprintf(uri, sizeof(uri), "file://%s", path_in(dir_a, "mid"));
		f = ts_file_open(fs, uri, &err);
		assert_non_null(f);
		assert_int_equal(ts_file_size(f), 1);
		ts_file_close(f);
	}

	/* a whole read: under the cap, at it, past it */
	assert_true(ts_fs_read_whole(fs, path_in(dir_a, "alpha"), 0, &data, &len, &err));
	assert_int_equal(len, 10);
	assert_string_equal((char *) data, "0123456789");
	ts_free(data);
	assert_true(ts_fs_read_whole(fs, path_in(dir_a, "alpha"), 10, &data, &len, &err));
	ts_free(data);
	assert_false(ts_fs_read_whole(fs, path_in(dir_a, "alpha"), 9, &data, &len, &err));
	assert_null(data);
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "alpha"));
	assert_non_null(strstr(err.msg, "at most 9"));
	memset(&err, 0, sizeof(err));

	/* a listing is sorted, whatever the order of creation */
	assert_true(ts_list_dir(fs, dir_a, &names, &n, &err));
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "mid");
	assert_string_equal(names[2], "sub");
	assert_string_equal(names[3], "zeta");
	ts_free_names(names, n);
	assert_true(ts_path_is_dir(fs, path_in(dir_a, "sub")));
	assert_false(ts_path_is_file(fs, path_in(dir_a, "sub")));
	assert_true(ts_path_is_file(fs, path_in(dir_a, "zeta")));
	assert_false(ts_path_is_file(fs, path_in(dir_a, "nothing")));

	/* outside the scope: denied, not opened, and nothing revealed */
	assert_null(ts_file_open(fs, path_in(dir_b, "only-b"), &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_null(ts_file_open(fs, path_in(dir_b, "missing"), &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_false(ts_list_dir(fs, dir_b, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_false(ts_fs_read_whole(fs, path_in(dir_a, "../b/only-b"), 0, &data, &len, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_path_is_file(fs, path_in(dir_b, "only-b")));
	ts_fs_free(fs);
}

static void
test_unknown_scheme(void **state)
{
	ts_err		err = {0};
	ts_fs	   *fs;

	(void) state;
	assert_null(ts_fs_open_for("hdfs://namenode:8020/warehouse/db.db/t", NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"hdfs\""));
	memset(&err, 0, sizeof(err));
	assert_null(ts_fs_open_for("gs://bucket/t", NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"gs\""));
	memset(&err, 0, sizeof(err));

	/*
	 * A file of another known store (external-path-map) is read by that
	 * store with this fs's settings: none here, so nothing is sent.
	 */
	fs = ts_fs_open_for(dir_a, NULL, NULL, &err);
	assert_non_null(fs);
	assert_null(ts_file_open(fs, "s3://lake/t/snapshot/LATEST", &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "s3://lake/t/snapshot/LATEST"));
	assert_non_null(strstr(err.msg, "no object store settings"));
	assert_true(ts_fs_path_is_remote(fs, "s3://lake/t/x"));
	assert_false(ts_fs_path_is_remote(fs, path_in(dir_a, "alpha")));
	memset(&err, 0, sizeof(err));
	assert_null(ts_file_open(fs, "hdfs://nn/x", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	ts_fs_free(fs);
}

/*
 * Two scans' file systems, used in turn: each keeps its own scope, and
 * neither follows the process-wide scope (set here to allow nothing).
 */
static void
test_two_scopes_interleaved(void **state)
{
	static const ts_fs_scope deny_all = {true, 0, NULL, NULL};
	ts_fs	   *fa = confined_fs(dir_a);
	ts_fs	   *fb = confined_fs(dir_b);
	ts_err		err = {0};
	ts_fs	   *fnone = ts_fs_open_for(dir_a, NULL, &deny_all, &err);
	ts_file    *a,
			   *b;
	char		buf[8] = {0};
	uint8_t    *data;
	size_t		len;

	(void) state;
	assert_non_null(fnone);
	a = ts_file_open(fa, path_in(dir_a, "alpha"), &err);
	assert_non_null(a);
	b = ts_file_open(fb, path_in(dir_b, "only-b"), &err);
	assert_non_null(b);
	/* a's reads after b's open, and the other way round */
	assert_true(ts_file_pread(a, buf, 2, 0, &err));
	assert_memory_equal(buf, "01", 2);
	assert_true(ts_file_pread(b, buf, 3, 0, &err));
	assert_memory_equal(buf, "bee", 3);
	/* each refuses the other's directory, in turn */
	assert_null(ts_file_open(fa, path_in(dir_b, "only-b"), &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_true(ts_read_whole_file(fb, path_in(dir_b, "only-b"), &data, &len, &err));
	assert_int_equal(len, 3);
	ts_free(data);
	assert_null(ts_file_open(fb, path_in(dir_a, "alpha"), &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_true(ts_read_whole_file(fa, path_in(dir_a, "mid"), &data, &len, &err));
	assert_int_equal(len, 1);
	ts_free(data);
	/* an fs of no roots, used in between, still allows nothing */
	assert_null(ts_file_open(fnone, path_in(dir_a, "alpha"), &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	ts_file_close(a);
	ts_file_close(b);
	ts_fs_free(fa);
	ts_fs_free(fb);
	ts_fs_free(fnone);
}

/* Two object store fs objects keep their own credentials; renewal replaces one's. */
static void
test_two_credentials(void **state)
{
	ts_s3_config c1 = {0},
				c2 = {0};
	ts_fs_settings s1 = {&c1},
				s2 = {&c2};
	ts_err		err = {0};
	ts_fs	   *f1,
			   *f2;
	uint64_t	g1;

	(void) state;
	c1.endpoint = c2.endpoint = "http://127.0.0.1:1";
	c1.access_key = "AKIDONE";
	c1.secret_key = "secret-one";
	c2.access_key = "AKIDTWO";
	c2.secret_key = "secret-two";
	f1 = ts_fs_open_for("s3://lake/one", &s1, NULL, &err);
	f2 = ts_fs_open_for("s3a://lake/two", &s2, NULL, &err);
	assert_non_null(f1);
	assert_non_null(f2);
	assert_string_equal(ts_fs_store_name(f1), "s3");
	assert_true(ts_fs_caps(f1) & TS_FS_CAP_REMOTE);
	assert_true(ts_fs_path_is_remote(f1, "oss://lake/one/x"));
	assert_false(ts_fs_path_is_remote(f1, "/tmp/x"));
	/* copies: the caller's settings may change or go */
	c1.access_key = "CHANGED";
	assert_string_equal(ts_fs_s3_config(f1)->access_key, "AKIDONE");
	assert_string_equal(ts_fs_s3_config(f2)->access_key, "AKIDTWO");
	assert_true(ts_fs_generation(f1) != ts_fs_generation(f2));
	/* a renewed token: f1's keys and generation change, f2's do not */
	g1 = ts_fs_generation(f1);
	c1.access_key = "AKIDRENEWED";
	assert_true(ts_fs_set_s3(f1, &c1, &err));
	assert_string_equal(ts_fs_s3_config(f1)->access_key, "AKIDRENEWED");
	assert_true(ts_fs_generation(f1) != g1);
	assert_string_equal(ts_fs_s3_config(f2)->access_key, "AKIDTWO");
	ts_fs_free(f1);
	ts_fs_free(f2);
}

/*
 * There is no process-wide file system: a read without one is an error
 * naming the path (TS_ERR_INVALID), never a crash nor a read through some
 * default; a format reader's options must carry it.
 */
static void
test_no_fs_refused(void **state)
{
	ts_err		err = {0};
	const char *alpha = path_in(dir_a, "alpha");
	uint8_t    *data;
	size_t		len;
	char	  **names;
	int			n;
	ts_reader_options no_fs = {0};

	(void) state;
	assert_null(ts_file_open(NULL, alpha, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "alpha\": no file system was given"));
	memset(&err, 0, sizeof(err));
	assert_false(ts_read_whole_file(NULL, alpha, &data, &len, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	memset(&err, 0, sizeof(err));
	assert_false(ts_list_dir(NULL, dir_a, &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_false(ts_path_is_file(NULL, alpha));
	assert_true(ts_path_is_file(ts_fs_local_unconfined(), alpha));
	/* readers: no options, or options without an fs */
	memset(&err, 0, sizeof(err));
	assert_null(ts_format_open(TS_FORMAT_UNKNOWN, alpha, NULL, 0, NULL, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "alpha"));
	memset(&err, 0, sizeof(err));
	assert_null(ts_format_open(TS_FORMAT_PARQUET, alpha, NULL, 0, &no_fs, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "no file system"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_ops),
		cmocka_unit_test(test_unknown_scheme),
		cmocka_unit_test(test_two_scopes_interleaved),
		cmocka_unit_test(test_two_credentials),
		cmocka_unit_test(test_no_fs_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
