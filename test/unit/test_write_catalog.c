/*
 * test_write_catalog.c - a table writer whose snapshots a catalog commits
 * (the REST catalog's path, src/write/commit_catalog.c), with a fake
 * catalog in place of the HTTP call.
 *
 * The writer never creates snapshot-N itself; the catalog gets snapshot
 * id, the JSON (its uuid) and the base snapshot's uuid, and Java's
 * per-partition statistics of the files; "another writer first" answers
 * are retried (their manifests removed) up to commit.max-retries; an error
 * answer fails the commit with nothing of the attempt left, unless the
 * store shows the snapshot landed (an answer lost after the commit); the
 * catalog's state is released once with the writer.
 */
#include "unit.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write_schema.h"

typedef struct fake_catalog
{
	const char *root;
	int			conflicts;		/* answer "another writer first" this many times */
	bool		fail;			/* answer an error */
	bool		land_then_fail; /* create snapshot-N, then answer an error */
	int			calls;
	int			released;
	int64_t		last_id;
	char		last_base[64];	/* "" for NULL */
	char		last_stats[2048];
} fake_catalog;

static void
store_snapshot(fake_catalog *c, int64_t id, const char *json)
{
	char		path[700];
	int			fd;

	snprintf(path, sizeof(path), "%s/snapshot", c->root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/snapshot/snapshot-%lld", c->root, (long long) id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t) strlen(json));
	close(fd);
}

static bool
fake_commit(void *arg, int64_t id, const char *base_uuid, const char *json, const char *stats,
			bool *committed, ts_err *err)
{
	fake_catalog *c = arg;

	c->calls++;
	c->last_id = id;
	snprintf(c->last_base, sizeof(c->last_base), "%s", base_uuid ? base_uuid : "");
	snprintf(c->last_stats, sizeof(c->last_stats), "%s", stats);
	*committed = false;
	if (c->fail || c->land_then_fail)
	{
		if (c->land_then_fail)
			store_snapshot(c, id, json);
		return ts_error(err, TS_ERR_IO, "fake catalog: HTTP 500");
	}
	if (c->conflicts > 0)
	{
		c->conflicts--;
		return true;
	}
	store_snapshot(c, id, json);
	*committed = true;
	return true;
}

static void
fake_release(void *arg)
{
	((fake_catalog *) arg)->released++;
}

static int
count_files(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static char *
new_table(void)
{
	char		tmpl[] = "/tmp/ts-unit-write-catalog.XXXXXX";
	char	   *d = mkdtemp(tmpl);
	char		root[512];

	assert_non_null(d);
	snprintf(root, sizeof(root), "%s/t", d);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"p\", \"type\": \"STRING\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [\"p\"], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\", \"commit.max-retries\": \"3\"}}");
	return strdup(root);
}

/* rows 0..n-1 into partitions p0 / p1 (even / odd), row n-1 with a NULL partition */
static bool
write_and_commit(const char *root, fake_catalog *c, int n, int64_t *id, ts_err *err)
{
	ts_catalog_commit cc = {fake_commit, fake_release, c};
	ts_table_writer *w = ts_table_writer_open_in_catalog(local_fs(root), root, NULL, 0, &cc, err);
	bool		ok;

	if (w == NULL)
		fail_msg("%s", err->msg);
	for (int i = 0; i < n; i++)
	{
		ts_value	row[2];

		memset(row, 0, sizeof(row));
		row[0].v.i = i;
		row[1].isnull = i == n - 1;
		row[1].v.s.p = (const uint8_t *) (i % 2 ? "p1" : "p0");
		row[1].v.s.len = 2;
		if (!ts_table_writer_add(w, row, err))
			fail_msg("%s", err->msg);
	}
	ok = ts_table_writer_commit(w, "unit-user", id, err);
	if (ok)
		ts_table_writer_free(w);
	else
		ts_table_writer_abort(w);
	return ok;
}

static int64_t
stat_records(const char *stats, const char *partition)
{
	cJSON	   *j = cJSON_Parse(stats);
	cJSON	   *e;
	int64_t		n = -1;

	cJSON_ArrayForEach(e, j)
	{
		cJSON	   *v = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "spec"), "p");

		if (cJSON_IsString(v) && strcmp(v->valuestring, partition) == 0)
		{
			n = (int64_t) cJSON_GetObjectItem(e, "recordCount")->valuedouble;
			assert_int_equal((int) cJSON_GetObjectItem(e, "fileCount")->valuedouble, 1);
			assert_int_equal((int) cJSON_GetObjectItem(e, "totalBuckets")->valuedouble, -1);
			assert_true(cJSON_GetObjectItem(e, "fileSizeInBytes")->valuedouble > 0);
		}
	}
	cJSON_Delete(j);
	return n;
}

static void
test_catalog_commits(void **state)
{
	char	   *root = new_table();
	char		dir[700];
	fake_catalog c = {0};
	ts_err		err = {0};
	int64_t		id;
	ts_snapshot *s1,
			   *s2;

	(void) state;
	c.root = root;
	assert_true(write_and_commit(root, &c, 5, &id, &err));
	assert_int_equal(id, 1);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.released, 1);
	assert_string_equal(c.last_base, "");
	/* rows 0, 2 in p0; 1, 3 in p1; 4 NULL */
	assert_int_equal(stat_records(c.last_stats, "p0"), 2);
	assert_int_equal(stat_records(c.last_stats, "p1"), 2);
	assert_int_equal(stat_records(c.last_stats, "__DEFAULT_PARTITION__"), 1);
	/* the writer wrote no hint: only the catalog's snapshot is there */
	snprintf(dir, sizeof(dir), "%s/snapshot", root);
	assert_int_equal(count_files(dir), 1);
	s1 = ts_snapshot_load(ts_fs_local_unconfined(), root, 1, &err);
	assert_non_null(s1);
	assert_non_null(s1->uuid);
	assert_int_equal(s1->total_record_count, 5);

	/* two conflicts, then committed on snapshot 1: only the winner's manifests stay */
	c.conflicts = 2;
	c.calls = 0;
	assert_true(write_and_commit(root, &c, 3, &id, &err));
	assert_int_equal(id, 2);
	assert_int_equal(c.calls, 3);
	assert_int_equal(c.released, 2);
	assert_string_equal(c.last_base, s1->uuid);
	s2 = ts_snapshot_load(ts_fs_local_unconfined(), root, 2, &err);
	assert_non_null(s2);
	assert_int_equal(s2->total_record_count, 8);
	snprintf(dir, sizeof(dir), "%s/manifest", root);
	assert_int_equal(count_files(dir), 6);	/* manifest, base and delta list per snapshot */

	/* conflicts past commit.max-retries (3): an error, nothing of it left */
	c.conflicts = 100;
	c.calls = 0;
	assert_false(write_and_commit(root, &c, 3, &id, &err));
	assert_non_null(strstr(err.msg, "failed after 3 retries"));
	assert_int_equal(c.calls, 4);
	assert_int_equal(c.released, 3);
	assert_int_equal(count_files(dir), 6);

	/* an error answer: the commit fails, its files removed */
	c.conflicts = 0;
	c.fail = true;
	memset(&err, 0, sizeof(err));
	assert_false(write_and_commit(root, &c, 3, &id, &err));
	assert_non_null(strstr(err.msg, "HTTP 500"));
	assert_int_equal(count_files(dir), 6);
	snprintf(dir, sizeof(dir), "%s/p=p0/bucket-0", root);
	assert_int_equal(count_files(dir), 2);	/* the data files of snapshots 1 and 2 */

	/* an error answer after the snapshot landed: committed after all */
	c.fail = false;
	c.land_then_fail = true;
	memset(&err, 0, sizeof(err));
	assert_true(write_and_commit(root, &c, 3, &id, &err));
	assert_int_equal(id, 3);
	assert_int_equal(count_files(dir), 3);
	ts_snapshot_free(s1);
	ts_snapshot_free(s2);
	free(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_commits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
