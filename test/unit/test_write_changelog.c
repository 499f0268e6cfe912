/*
 * test_write_changelog.c - changelog files of changelog-producer input.
 *
 * A primary-key table with changelog-producer input, written twice: the
 * second commit (an UPDATE, a DELETE and an INSERT) has a changelog
 * manifest list naming one manifest of one ADD entry: a file
 * changelog-<uuid>-<n>.parquet in the bucket directory, with the data
 * file's uuid (one path factory per bucket, as Java's), the input's
 * records (-U, +U, -D, +I: 4 rows, 2 retracts), sequence numbers that
 * cover the data file's, level 0; the snapshot's changelogRecordCount and
 * changelogManifestListSize match; the Avro schemas of the changelog
 * manifest and its list are those of Java-written manifests; a commit
 * without the producer has no changelog; an aborted writer leaves no
 * changelog file; an append table with a producer, producers lookup and
 * full-compaction and changelog-file.format are refused, naming them.
 */
#include "unit.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write_schema.h"

#define JAVA_MANIFESTS "testdata/orc/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch/manifest/"

#define SCHEMA(options) \
	"{\"version\": 3, \"id\": 0, \"fields\": [" \
	"{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"}," \
	"{\"id\": 1, \"name\": \"v\", \"type\": \"BIGINT\"}]," \
	"\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [%s]," \
	"\"options\": {%s}}"

static char *
scratch_table(const char *pk, const char *options)
{
	char		tmpl[] = "/tmp/ts-unit-write-cl.XXXXXX";
	char	   *dir = mkdtemp(tmpl);
	char		json[1024];
	char	   *root;

	assert_non_null(dir);
	root = malloc(strlen(dir) + 4);
	sprintf(root, "%s/t", dir);
	snprintf(json, sizeof(json), SCHEMA(options), pk, options);
	write_schema(root, json);
	return root;
}

static void
remove_table(char *root)
{
	char		cmd[600];

	root[strlen(root) - 2] = '\0';	/* <scratch dir>/t */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

static void
row(ts_value *v, int64_t id, int64_t val)
{
	memset(v, 0, sizeof(ts_value) * 2);
	v[0].v.i = id;
	v[1].v.i = val;
}

static ts_table_writer *
open_writer(const char *root, ts_err *err)
{
	return ts_table_writer_open(local_fs(root), root, NULL, 0, err);
}

static void
test_input_changelog(void **state)
{
	char	   *root = scratch_table("\"id\"", "\"bucket\": \"1\", \"changelog-producer\": \"input\"");
	char		path[1024];
	ts_err		err;
	ts_table_writer *w;
	ts_value	v[2],
				old[2];
	int64_t		id;
	ts_snapshot *s;
	ts_arena	a;
	ts_manifest_file_meta *metas;
	int			nmetas;
	ts_manifest_entry *e,
			   *d;
	int			ne,
				nd;
	char	   *java,
			   *ours;

	/* commit 1: ids 1..3 (sequence numbers 0..2) */
	w = open_writer(root, &err);
	assert_non_null(w);
	assert_true(ts_table_writer_writes_changelog(w));
	for (int i = 1; i <= 3; i++)
	{
		row(v, i, i * 10);
		assert_true(ts_table_writer_add(w, v, &err));
	}
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	assert_int_equal(id, 1);
	ts_table_writer_free(w);

	/* commit 2: UPDATE 1 (10 -> 11), DELETE 2, INSERT 4 */
	w = open_writer(root, &err);
	assert_non_null(w);
	row(old, 1, 10);
	row(v, 1, 11);
	assert_true(ts_table_writer_add_change(w, TS_ROW_UPDATE_AFTER, v, old, &err));
	row(v, 2, 20);
	assert_true(ts_table_writer_add_change(w, TS_ROW_DELETE, v, NULL, &err));
	row(v, 4, 40);
	assert_true(ts_table_writer_add(w, v, &err));
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	assert_int_equal(id, 2);
	ts_table_writer_free(w);

	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 2, &err);
	assert_non_null(s);
	assert_non_null(s->changelog_manifest_list);
	ts_arena_init(&a, 65536);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, s->changelog_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &metas, &nmetas, &err));
	assert_int_equal(nmetas, 1);
	assert_int_equal(metas[0].num_added_files, 1);
	assert_int_equal(metas[0].num_deleted_files, 0);
	{
		struct stat st;

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(s->changelog_manifest_list_size, st.st_size);
	}
	/* Java's ManifestList / ManifestFile schemas, changelog or not */
	java = avro_schema_of(unit_shared_path(JAVA_MANIFESTS "manifest-list-10f6b65d-7580-42b7-9c56-c9c46bf2a3bd-1"));
	ours = avro_schema_of(path);
	assert_string_equal(ours, java);
	free(java);
	free(ours);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, metas[0].file_name);
	java = avro_schema_of(unit_shared_path(JAVA_MANIFESTS "manifest-03e069c1-2251-47d4-be1d-73116e6b3ced-0"));
	ours = avro_schema_of(path);
	assert_string_equal(ours, java);
	free(java);
	free(ours);
	assert_true(ts_manifest_read(ts_fs_local_unconfined(), path, &a, &e, &ne, &err));
	assert_int_equal(ne, 1);
	assert_int_equal(e[0].kind, TS_FILE_ADD);
	assert_int_equal(e[0].bucket, 0);
	assert_int_equal(e[0].total_buckets, 1);
	assert_int_equal(e[0].file.level, 0);
	assert_int_equal(e[0].file.row_count, 4);	/* -U 1, +U 1, -D 2, +I 4 */
	assert_int_equal(e[0].file.delete_row_count, 2);
	assert_int_equal(e[0].file.min_sequence_number, 3);
	assert_int_equal(e[0].file.max_sequence_number, 6);
	assert_int_equal(strncmp(e[0].file.file_name, "changelog-", 10), 0);
	assert_non_null(strstr(e[0].file.file_name, ".parquet"));
	snprintf(path, sizeof(path), "%s/bucket-0/%s", root, e[0].file.file_name);
	assert_int_equal(access(path, F_OK), 0);

	/* the data file: the +U, -D, +I (3 rows), same uuid as the changelog file */
	snprintf(path, sizeof(path), "%s/manifest/%s", root, s->delta_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &metas, &nmetas, &err));
	assert_int_equal(nmetas, 1);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, metas[0].file_name);
	assert_true(ts_manifest_read(ts_fs_local_unconfined(), path, &a, &d, &nd, &err));
	assert_int_equal(nd, 1);
	assert_int_equal(d[0].file.row_count, 3);
	assert_int_equal(d[0].file.delete_row_count, 1);
	assert_int_equal(d[0].file.min_sequence_number, 4);
	assert_int_equal(d[0].file.max_sequence_number, 6);
	assert_int_equal(strncmp(d[0].file.file_name, "data-", 5), 0);
	/* data-<uuid>-<n> and changelog-<uuid>-<n>: 36 characters of uuid */
	assert_memory_equal(d[0].file.file_name + 5, e[0].file.file_name + 10, 36);

	/* the snapshot JSON's counts */
	{
		uint8_t    *json;
		size_t		len;
		cJSON	   *j;

		snprintf(path, sizeof(path), "%s/snapshot/snapshot-2", root);
		assert_true(ts_read_whole_file(ts_fs_local_unconfined(), path, &json, &len, &err));
		j = cJSON_ParseWithLength((const char *) json, len);
		assert_non_null(j);
		assert_int_equal((int) cJSON_GetObjectItem(j, "changelogRecordCount")->valuedouble, 4);
		assert_int_equal((int) cJSON_GetObjectItem(j, "deltaRecordCount")->valuedouble, 3);
		assert_string_equal(cJSON_GetObjectItem(j, "commitKind")->valuestring, "APPEND");
		cJSON_Delete(j);
		ts_free(json);
	}
	ts_snapshot_free(s);
	/* the first commit (inserts only) has its changelog too: 3 +I rows */
	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 1, &err);
	assert_non_null(s);
	assert_non_null(s->changelog_manifest_list);
	ts_snapshot_free(s);

	/* an aborted writer leaves no file, changelog or data */
	snprintf(path, sizeof(path), "%s/bucket-0", root);
	assert_int_equal(count_entries(path, "changelog-"), 2);
	assert_int_equal(count_entries(path, "data-"), 2);
	w = open_writer(root, &err);
	assert_non_null(w);
	row(v, 9, 90);
	assert_true(ts_table_writer_add(w, v, &err));
	assert_true(ts_table_writer_flush(w, &err));
	assert_int_equal(count_entries(path, "changelog-"), 3);
	ts_table_writer_abort(w);
	assert_int_equal(count_entries(path, "changelog-"), 2);
	assert_int_equal(count_entries(path, "data-"), 2);
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 2);

	ts_arena_free(&a);
	remove_table(root);
}

static void
test_no_producer_no_changelog(void **state)
{
	char	   *root = scratch_table("\"id\"", "\"bucket\": \"1\"");
	ts_err		err;
	ts_table_writer *w = open_writer(root, &err);
	ts_value	v[2],
				old[2];
	int64_t		id;
	ts_snapshot *s;
	char		path[1024];

	assert_non_null(w);
	assert_false(ts_table_writer_writes_changelog(w));
	row(old, 1, 10);
	row(v, 1, 11);
	assert_true(ts_table_writer_add_change(w, TS_ROW_UPDATE_AFTER, v, old, &err));
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	ts_table_writer_free(w);
	s = ts_snapshot_load(ts_fs_local_unconfined(), root, id, &err);
	assert_non_null(s);
	assert_null(s->changelog_manifest_list);
	ts_snapshot_free(s);
	snprintf(path, sizeof(path), "%s/bucket-0", root);
	assert_int_equal(count_entries(path, "changelog-"), 0);
	remove_table(root);
}

static void
test_refused(void **state)
{
	static const struct
	{
		const char *pk;
		const char *options;
		const char *words;
	}			cases[] = {
		{"", "\"bucket\": \"-1\", \"changelog-producer\": \"input\"",
		"has no primary key"},
		{"\"id\"", "\"bucket\": \"1\", \"changelog-producer\": \"lookup\"",
		"\"changelog-producer\" = \"lookup\""},
		{"\"id\"", "\"bucket\": \"1\", \"changelog-producer\": \"full-compaction\"",
		"\"changelog-producer\" = \"full-compaction\""},
		{"\"id\"", "\"bucket\": \"1\", \"changelog-producer\": \"input\", \"changelog-file.format\": \"avro\"",
		"\"changelog-file.format\" = \"avro\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *root = scratch_table(cases[i].pk, cases[i].options);
		ts_err		err;
		ts_table_writer *w = open_writer(root, &err);

		assert_null(w);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		if (strstr(err.msg, cases[i].words) == NULL)
			fail_msg("case %d: \"%s\" does not say %s", (int) i, err.msg, cases[i].words);
		if (i == 0)
			assert_non_null(strstr(err.hint, "Can not set changelog-producer on table without primary keys"));
		remove_table(root);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_changelog),
		cmocka_unit_test(test_no_producer_no_changelog),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
