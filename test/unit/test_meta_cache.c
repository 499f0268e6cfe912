/*
 * test_meta_cache.c - the on-disk metadata cache (src/base/meta_cache.c):
 * which objects it keeps, entries found again only under the same key
 * (credentials included), the directory's mode and owner checks, entries
 * that do not check (truncated, flipped, renamed by hand) removed and
 * reported as misses, least-recently-used eviction under the size limit,
 * and processes storing and reading the same entries at once (rename:
 * never a partial entry).  Runs in a fresh directory under /tmp.
 */
#include "unit.h"
#include "forked_child.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/ts_meta_cache.h"

static char dir[256];

static int
setup(void **state)
{
	ts_err		err = {0};

	(void) state;
	snprintf(dir, sizeof(dir), "/tmp/ts-unit-mcache-%d", (int) getpid());
	{
		char		cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			return -1;
	}
	return ts_mcache_configure(dir, 1 << 20, &err) ? 0 : -1;
}

static int
teardown(void **state)
{
	char		cmd[300];

	(void) state;
	ts_mcache_configure(NULL, 0, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#define KEY(cred, uri) const char *key_##cred[] = {"http://store", "us-east-1", "path", #cred, "secret", NULL, uri}

static char *
entry_file(const char *const *parts, int n)
{
	static char path[400];
	char		name[65];

	ts_mcache_entry_name(parts, n, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void
test_wanted(void **state)
{
	(void) state;
	assert_true(ts_mcache_wanted("s3://b/wh/db.db/t/manifest/manifest-6f1c2e1a-0000-4000-8000-000000000000-0"));
	assert_true(ts_mcache_wanted("s3a://b/wh/db.db/t/manifest/manifest-list-6f1c2e1a-0000-4000-8000-000000000000-1"));
	assert_true(ts_mcache_wanted("oss://b/t/manifest/index-manifest-6f1c2e1a-0000-4000-8000-000000000000-0"));
	assert_true(ts_mcache_wanted("s3://b/t/index/index-5d2fa83f-c4f7-4fbe-90cd-43b1ead19024-0"));
	assert_true(ts_mcache_wanted("s3://b/t/branch/branch-x/manifest/manifest-a-0"));
	assert_true(ts_mcache_wanted("s3://b/t/dt=1/bucket-0/data-d77394c5-8f82-4fca-93ca-d4da892e7f4f-0.orc.index"));
	/* never: snapshots, hints, schemas, data files */
	assert_false(ts_mcache_wanted("s3://b/t/snapshot/LATEST"));
	assert_false(ts_mcache_wanted("s3://b/t/snapshot/EARLIEST"));
	assert_false(ts_mcache_wanted("s3://b/t/snapshot/snapshot-3"));
	assert_false(ts_mcache_wanted("s3://b/t/schema/schema-0"));
	assert_false(ts_mcache_wanted("s3://b/t/bucket-0/data-d77394c5-8f82-4fca-93ca-d4da892e7f4f-0.parquet"));
	assert_false(ts_mcache_wanted("s3://b/t/manifest/LATEST"));
	assert_false(ts_mcache_wanted("s3://b/t/manifest/"));
	/* the name decides, whatever the store (only object stores use the cache: test_fs_object) */
	assert_true(ts_mcache_wanted("abfs://c@a.dfs.core.windows.net/t/manifest/manifest-a-0"));
	assert_false(ts_mcache_wanted("abfs://c@a.dfs.core.windows.net/t/snapshot/snapshot-1"));
}

static void
test_round_trip(void **state)
{
	KEY(alice, "s3://b/t/manifest/manifest-a-0");
	KEY(bob, "s3://b/t/manifest/manifest-a-0");
	const char *other_endpoint[] = {"http://other", "us-east-1", "path", "alice", "secret", NULL,
	"s3://b/t/manifest/manifest-a-0"};
	uint8_t    *data;
	size_t		len;
	ts_mcache_stats before = ts_mcache_get_stats();

	(void) state;
	assert_true(ts_mcache_enabled());
	assert_false(ts_mcache_get(key_alice, 7, &data, &len));
	ts_mcache_put(key_alice, 7, (const uint8_t *) "Obj\001hello", 9);
	assert_true(ts_mcache_get(key_alice, 7, &data, &len));
	assert_int_equal(len, 9);
	assert_memory_equal(data, "Obj\001hello", 9);
	assert_int_equal(data[9], 0);
	ts_free(data);
	/* other credentials or another store: not found */
	assert_false(ts_mcache_get(key_bob, 7, &data, &len));
	assert_false(ts_mcache_get(other_endpoint, 7, &data, &len));
	/* an empty object */
	{
		KEY(alice2, "s3://b/t/index/index-e-0");

		ts_mcache_put(key_alice2, 7, (const uint8_t *) "", 0);
		assert_true(ts_mcache_get(key_alice2, 7, &data, &len));
		assert_int_equal(len, 0);
		ts_free(data);
	}
	assert_int_equal(ts_mcache_get_stats().hits - before.hits, 2);
	assert_int_equal(ts_mcache_get_stats().stores - before.stores, 2);
	/* the file holds no secret */
	{
		char		cmd[512];

		snprintf(cmd, sizeof(cmd), "grep -rq secret %s", dir);
		assert_int_not_equal(system(cmd), 0);
	}
}

static void
test_directory_checks(void **state)
{
	char		other[300];
	struct stat st;
	ts_err		err = {0};

	(void) state;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(other, sizeof(other), "%s-open", dir);
	rmdir(other);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(chmod(other, 0755), 0);
	assert_false(ts_mcache_configure(other, 1 << 20, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_mcache_enabled());
	rmdir(other);
	/* a missing parent */
	assert_false(ts_mcache_configure("/nonexistent-ts-dir/cache", 1 << 20, &err));
	assert_int_equal(err.code, TS_ERR_IO);
	/* off */
	assert_true(ts_mcache_configure("", 1 << 20, &err));
	assert_false(ts_mcache_enabled());
	assert_int_equal(ts_mcache_disk_bytes(), -1);
	assert_true(ts_mcache_configure(dir, 1 << 20, &err));
	assert_true(ts_mcache_enabled());
}

static void
write_bytes(const char *path, const void *b, size_t n, off_t at)
{
	int			fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, n, at), (ssize_t) n);
	close(fd);
}

static void
test_corrupt_entries(void **state)
{
	KEY(alice, "s3://b/t/manifest/manifest-c-0");
	KEY(alice_b, "s3://b/t/manifest/manifest-c-1");
	uint8_t		body[1000];
	uint8_t    *data;
	size_t		len;
	char		path[400];
	char		path_b[400];
	int64_t		corrupt0 = ts_mcache_get_stats().corrupt;
	struct stat st;

	(void) state;
	for (int i = 0; i < 1000; i++)
		body[i] = (uint8_t) (i * 7);
	/* truncated: removed, a miss */
	ts_mcache_put(key_alice, 7, body, sizeof(body));
	snprintf(path, sizeof(path), "%s", entry_file(key_alice, 7));
	assert_int_equal(truncate(path, 500), 0);
	assert_false(ts_mcache_get(key_alice, 7, &data, &len));
	assert_int_not_equal(stat(path, &st), 0);
	/* one flipped byte of the body */
	ts_mcache_put(key_alice, 7, body, sizeof(body));
	write_bytes(path, "\xff", 1, 80 + 123);
	assert_false(ts_mcache_get(key_alice, 7, &data, &len));
	assert_int_not_equal(stat(path, &st), 0);
	/* a flipped length */
	ts_mcache_put(key_alice, 7, body, sizeof(body));
	write_bytes(path, "\x01", 1, 9);
	assert_false(ts_mcache_get(key_alice, 7, &data, &len));
	/* a good entry copied under another key's name */
	ts_mcache_put(key_alice, 7, body, sizeof(body));
	snprintf(path_b, sizeof(path_b), "%s", entry_file(key_alice_b, 7));
	assert_int_equal(link(path, path_b), 0);
	assert_false(ts_mcache_get(key_alice_b, 7, &data, &len));
	/* a file that is only a header's worth of garbage */
	{
		int			fd = open(path_b, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		assert_true(fd >= 0);
		close(fd);
	}
	assert_false(ts_mcache_get(key_alice_b, 7, &data, &len));
	assert_int_equal(ts_mcache_get_stats().corrupt - corrupt0, 5);
	/* the good one still reads */
	assert_true(ts_mcache_get(key_alice, 7, &data, &len));
	assert_memory_equal(data, body, sizeof(body));
	ts_free(data);
}

static void
set_used(const char *path, time_t when)
{
	struct timespec t[2] = {{when, 0}, {when, 0}};

	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static void
test_eviction(void **state)
{
	char		uri[64];
	const char *parts[7] = {"http://store", "r", "path", "k", "s", NULL, uri};
	static uint8_t body[10000];
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	time_t		now = time(NULL);

	(void) state;
	/* 64 kB: six entries of ~10 kB fit */
	assert_true(ts_mcache_configure("", 0, &err));
	assert_true(ts_mcache_configure(dir, 64 * 1024, &err));
	ts_mcache_evict();
	for (int i = 0; i < 6; i++)
	{
		snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-%d", i);
		ts_mcache_put(parts, 7, body, sizeof(body));
		/* entry i last used i minutes ago... except 0, used just now */
		set_used(entry_file(parts, 7), now - 600 + i * 60);
	}
	snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-0");
	set_used(entry_file(parts, 7), now);
	assert_true(ts_mcache_disk_bytes() <= 64 * 1024);
	/* two more: the least recently used (1, then 2) go */
	for (int i = 6; i < 8; i++)
	{
		snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-%d", i);
		ts_mcache_put(parts, 7, body, sizeof(body));
		assert_true(ts_mcache_disk_bytes() <= 64 * 1024);
	}
	snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-0");
	assert_true(ts_mcache_get(parts, 7, &data, &len));
	ts_free(data);
	snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-1");
	assert_false(ts_mcache_get(parts, 7, &data, &len));
	snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-e-7");
	assert_true(ts_mcache_get(parts, 7, &data, &len));
	ts_free(data);
	assert_true(ts_mcache_get_stats().evicted >= 2);
	/* an object larger than half the cache is not kept */
	{
		static uint8_t big[40000];

		snprintf(uri, sizeof(uri), "s3://b/t/manifest/manifest-big-0");
		ts_mcache_put(parts, 7, big, sizeof(big));
		assert_false(ts_mcache_get(parts, 7, &data, &len));
	}
	/* a temporary file left by a dead process goes at the next scan */
	{
		char		tmp[400];
		int			fd;
		struct stat st;

		snprintf(tmp, sizeof(tmp), "%s/tmp-1-1-1", dir);
		fd = open(tmp, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		close(fd);
		set_used(tmp, now - 3600);
		ts_mcache_evict();
		assert_int_not_equal(stat(tmp, &st), 0);
	}
	assert_true(ts_mcache_configure(dir, 1 << 20, &err));
}

/*
 * Four processes store the same keys (each with bytes of its own length
 * pattern, all valid) while reading them: every hit is a whole, checked
 * entry.  Then the parent finds every key.
 */
static void
test_concurrent(void **state)
{
	pid_t		kids[4];
	uint8_t    *data;
	size_t		len;
	int64_t		corrupt0 = ts_mcache_get_stats().corrupt;
	pid_t		self = getpid();
	int			status[4];

	(void) state;
	for (int k = 0; k < 4; k++)
	{
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0)
		{
			static uint8_t body[50000];
			char		uri[64];
			const char *parts[7] = {"e", "r", "path", "k", "s", NULL, uri};
			int			bad = 0;

			unit_forked_child(self, 1);
			for (int round = 0; round < 30; round++)
				for (int i = 0; i < 8; i++)
				{
					size_t		n = 1000 + (size_t) ((k * 7 + round * 3 + i) % 40) * 1000;

					snprintf(uri, sizeof(uri), "s3://b/t/index/index-c-%d", i);
					memset(body, i, n);
					ts_mcache_put(parts, 7, body, n);
					if (ts_mcache_get(parts, 7, &data, &len))
					{
						for (size_t j = 0; j < len; j++)
							if (data[j] != (uint8_t) i)
							{
								bad++;
								break;
							}
						ts_free(data);
					}
				}
			_exit(bad == 0 && ts_mcache_get_stats().corrupt == corrupt0 ? 0 : 1);
		}
	}
	/* every kid reaped before any assertion can leave the test */
	for (int k = 0; k < 4; k++)
		if (waitpid(kids[k], &status[k], 0) != kids[k])
			status[k] = -1;
	for (int k = 0; k < 4; k++)
	{
		assert_true(status[k] != -1 && WIFEXITED(status[k]));
		assert_int_equal(WEXITSTATUS(status[k]), 0);
	}
	for (int i = 0; i < 8; i++)
	{
		char		uri[64];
		const char *parts[7] = {"e", "r", "path", "k", "s", NULL, uri};

		snprintf(uri, sizeof(uri), "s3://b/t/index/index-c-%d", i);
		assert_true(ts_mcache_get(parts, 7, &data, &len));
		assert_true(len >= 1000);
		assert_int_equal(data[len - 1], i);
		ts_free(data);
	}
	/* no temporary file left behind */
	{
		char		cmd[400];

		snprintf(cmd, sizeof(cmd), "ls %s | grep -q '^tmp-'", dir);
		assert_int_not_equal(system(cmd), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_directory_checks),
		cmocka_unit_test(test_corrupt_entries),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_concurrent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
