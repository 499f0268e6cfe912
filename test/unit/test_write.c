/*
 * test_write.c - the write layer without a server.
 *
 * The manifest and manifest-list Avro schemas we write equal those in the
 * headers of Java-written manifests of ../shared/testdata; the exclusive
 * create never replaces a file and leaves no temporary file; deferred
 * directory syncs keep one descriptor per directory until synced; truncated
 * string statistics stay true bounds (TruncateSimpleColStatsCollector's
 * rule); a table written twice has two APPEND snapshots whose manifests
 * carry what was written (row counts, sequence numbers, partitions,
 * buckets as meta/bucket.h computes them) and whose base list holds the
 * previous snapshot's manifests; data-file.path-directory places the data
 * files below that directory of the table, and a value leading out of it
 * is refused.
 */
#include "unit.h"

#include <dirent.h>
#include <unistd.h>

#include "base/fs_impl.h"
#include "base/ts_fs.h"
#include "base/ts_fs_write.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_writer.h"
#include "meta/binary_row.h"
#include "meta/bucket.h"
#include "meta/manifest.h"
#include "meta/manifest_schema.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write_schema.h"

#define JAVA_TABLE "testdata/orc/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch/manifest/"

static void
test_manifest_schemas_match_java(void **state)
{
	const char *entry_path = unit_shared_path(JAVA_TABLE "manifest-03e069c1-2251-47d4-be1d-73116e6b3ced-0");
	const char *list_path = unit_shared_path(JAVA_TABLE "manifest-list-10f6b65d-7580-42b7-9c56-c9c46bf2a3bd-1");
	char	   *java_entry = avro_schema_of(entry_path);
	char	   *java_list = avro_schema_of(list_path);
	int			n;
	ts_err		err;
	ts_field   *f;
	char	   *ours;

	f = ts_manifest_entry_fields(false, &n);
	assert_non_null(f);
	ours = ts_avro_schema_json_for_fields(f, n, &err);
	assert_non_null(ours);
	assert_string_equal(ours, java_entry);
	ts_free(ours);
	f = ts_manifest_list_fields(&n);
	assert_non_null(f);
	ours = ts_avro_schema_json_for_fields(f, n, &err);
	assert_non_null(ours);
	assert_string_equal(ours, java_list);
	ts_free(ours);
	free(java_entry);
	free(java_list);
}

static void
test_create_exclusive(void **state)
{
	char	   *dir = scratch_dir();
	char		path[512],
				sub[512];
	ts_err		err;
	uint8_t    *data;
	size_t		len;
	ts_fs_writer *w;
	ts_fs	   *fs = local_fs(dir);

	snprintf(path, sizeof(path), "%s/a/b/snapshot-1", dir);
	assert_true(ts_fs_create_exclusive(fs, path, "first", 5, &err));
	assert_false(ts_fs_create_exclusive(fs, path, "second", 6, &err));
	assert_int_equal(err.code, TS_ERR_EXISTS);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err));
	assert_int_equal(len, 5);
	assert_memory_equal(data, "first", 5);
	ts_free(data);
	/* an aborted stream leaves nothing, temporary names included */
	snprintf(sub, sizeof(sub), "%s/a/b/data-x-0.parquet", dir);
	w = ts_fs_writer_open(fs, sub, &err);
	assert_non_null(w);
	assert_true(ts_fs_writer_write(w, "abc", 3, &err));
	ts_fs_writer_abort(w);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_int_equal(count_entries(sub, ""), 3);	/* ".", "..", snapshot-1 */
	/* delete: the file goes; a missing directory is no error and is not created */
	snprintf(path, sizeof(path), "%s/a/b/snapshot-1", dir);
	assert_true(ts_fs_delete(fs, path, &err));
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/nowhere/x", dir);
	assert_true(ts_fs_delete(fs, path, &err));
	snprintf(path, sizeof(path), "%s/nowhere", dir);
	assert_int_equal(access(path, F_OK), -1);
	/*
	 * an fs confined to a scope refuses a path outside it before creating
	 * anything, saying "write"; the process's scope plays no part
	 */
	{
		ts_fs_scope scope;
		const char *roots[1] = {sub};
		ts_fs	   *confined;
		ts_fs_writer *w2;

		assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
		confined = ts_fs_open_for(sub, NULL, &scope, &err);
		assert_non_null(confined);
		snprintf(path, sizeof(path), "%s/elsewhere/f", dir);
		assert_false(ts_fs_create_exclusive(confined, path, "x", 1, &err));
		assert_int_equal(err.code, TS_ERR_DENIED);
		assert_non_null(strstr(err.msg, "permission denied to write"));
		assert_null((w2 = ts_fs_writer_open(confined, path, &err)));
		assert_int_equal(err.code, TS_ERR_DENIED);
		assert_false(ts_fs_put(confined, path, "x", 1, &err));
		assert_int_equal(err.code, TS_ERR_DENIED);
		snprintf(path, sizeof(path), "%s/elsewhere", dir);
		assert_int_equal(access(path, F_OK), -1);
		/* inside it: written */
		snprintf(path, sizeof(path), "%.400s/LATEST", sub);
		assert_true(ts_fs_put(confined, path, "7", 1, &err));
		assert_true(ts_fs_put(confined, path, "8", 1, &err));
		assert_true(ts_read_whole_file(confined, path, &data, &len, &err));
		assert_int_equal(len, 1);
		assert_int_equal(data[0], '8');
		ts_free(data);
		/* a local store creates atomically */
		assert_true(ts_fs_check_atomic_create(confined, sub, &err));
		ts_fs_free(confined);
		ts_fs_scope_free(&scope);
	}
	ts_fs_free(fs);
	free(dir);
}

/* open descriptors of this process */
static int
open_fds(void)
{
	return count_entries("/proc/self/fd", "");
}

/*
 * Deferred directory syncs: files finished in two directories keep no
 * descriptor (the directories are remembered by path, once each, until
 * ts_fs_sync_dirs fsyncs them); an open writer holds one descriptor, its
 * file's, not its directory's too; the files are there meanwhile.  A hint
 * put replaces the file as a put does.
 */
static void
test_deferred_dir_syncs(void **state)
{
	char	   *dir = scratch_dir();
	char		path[512];
	ts_err		err;
	uint8_t    *data;
	size_t		len;
	ts_fs	   *fs = local_fs(dir);
	int			before;

	snprintf(path, sizeof(path), "%s/a/x", dir);
	assert_true(ts_fs_create_exclusive(fs, path, "x", 1, &err));	/* directories made */
	snprintf(path, sizeof(path), "%s/b/x", dir);
	assert_true(ts_fs_create_exclusive(fs, path, "x", 1, &err));
	before = open_fds();
	ts_fs_defer_dir_syncs(fs);
	for (int i = 0; i < 3; i++)
	{
		ts_fs_writer *w;

		snprintf(path, sizeof(path), "%s/a/f%d", dir, i);
		assert_true(ts_fs_create_exclusive(fs, path, "abc", 3, &err));
		snprintf(path, sizeof(path), "%s/b/f%d", dir, i);
		assert_non_null(w = ts_fs_writer_open(fs, path, &err));
		assert_int_equal(open_fds(), before + 1);
		assert_true(ts_fs_writer_write(w, "de", 2, &err));
		assert_true(ts_fs_writer_finish(w, &err));
	}
	assert_int_equal(open_fds(), before);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(count_entries(path, "f"), 3);
	snprintf(path, sizeof(path), "%s/b/f2", dir);
	assert_true(ts_read_whole_file(fs, path, &data, &len, &err));
	assert_int_equal(len, 2);
	ts_free(data);
	assert_true(ts_fs_sync_dirs(fs, &err));
	assert_int_equal(open_fds(), before);
	assert_true(ts_fs_sync_dirs(fs, &err));	/* nothing left: nothing to do */
	snprintf(path, sizeof(path), "%s/a/LATEST", dir);
	assert_true(ts_fs_put_hint(fs, path, "1", 1, &err));
	assert_true(ts_fs_put_hint(fs, path, "22", 2, &err));
	assert_true(ts_read_whole_file(fs, path, &data, &len, &err));
	assert_int_equal(len, 2);
	assert_memory_equal(data, "22", 2);
	ts_free(data);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(count_entries(path, ".LATEST"), 0);	/* no temporary name left */
	ts_fs_free(fs);
	free(dir);
}

/* does fs remember dir for ts_fs_sync_dirs? */
static bool
sync_pending(ts_fs *fs, const char *dir)
{
	for (int i = 0; i < fs->unsynced_dirs.n; i++)
		if (strcmp(fs->unsynced_dirs.paths[i], dir) == 0)
			return true;
	return false;
}

/*
 * A directory a write creates (a new partition's, its bucket's) is itself a
 * new name in its parent: the parent is synced with the files' directories,
 * else a crash after the commit could lose the directory and the committed
 * files in it.  A directory that was already there adds nothing.
 */
static void
test_new_dirs_synced_in_parents(void **state)
{
	char	   *dir = scratch_dir();
	char		path[512];
	ts_err		err;
	ts_fs	   *fs = local_fs(dir);

	ts_fs_defer_dir_syncs(fs);
	snprintf(path, sizeof(path), "%s/p=1/bucket-0/f", dir);
	assert_true(ts_fs_create_exclusive(fs, path, "x", 1, &err));
	assert_true(sync_pending(fs, dir));		/* p=1 is new in it */
	snprintf(path, sizeof(path), "%s/p=1", dir);
	assert_true(sync_pending(fs, path));	/* bucket-0 is new in it */
	snprintf(path, sizeof(path), "%s/p=1/bucket-0", dir);
	assert_true(sync_pending(fs, path));	/* f is new in it */
	assert_int_equal(fs->unsynced_dirs.n, 3);
	assert_true(ts_fs_sync_dirs(fs, &err));
	assert_int_equal(fs->unsynced_dirs.n, 0);

	/* the same directories again: only the file's own directory */
	snprintf(path, sizeof(path), "%s/p=1/bucket-0/g", dir);
	assert_true(ts_fs_create_exclusive(fs, path, "x", 1, &err));
	assert_int_equal(fs->unsynced_dirs.n, 1);
	assert_true(ts_fs_sync_dirs(fs, &err));
	ts_fs_free(fs);
	free(dir);
}

static void
test_truncated_string_stats(void **state)
{
	ts_type    *t = ts_type_new(TS_VARCHAR, true);
	ts_col_stats s;
	ts_value	v = {0};
	ts_buf		mn,
				mx;
	int64_t		nulls;
	ts_err		err;
	const ts_type *types[1];
	ts_value	out[2];
	ts_arena	a;
	/* 17 code points; the 16th is U+00FF (2 bytes), incremented to U+0100 */
	const char *longv = "aaaaaaaaaaaaaaa\xc3\xbfzz";

	t->length = 100;
	types[0] = t;
	ts_col_stats_init(&s, t, TS_STATS_TRUNCATE, 16);
	v.v.s.p = (const uint8_t *) longv;
	v.v.s.len = (uint32_t) strlen(longv);
	assert_true(ts_col_stats_add(&s, &v, &err));
	v.v.s.p = (const uint8_t *) "aaa";
	v.v.s.len = 3;
	assert_true(ts_col_stats_add(&s, &v, &err));
	v.isnull = true;
	assert_true(ts_col_stats_add(&s, &v, &err));
	ts_buf_init(&mn);
	ts_buf_init(&mx);
	assert_true(ts_col_stats_encode(&s, 1, &mn, &mx, &nulls, &err));
	assert_int_equal(nulls, 1);
	ts_arena_init(&a, 4096);
	assert_true(ts_binary_row_decode(mn.data, mn.len, types, 1, &out[0], NULL, &a, &err));
	assert_true(ts_binary_row_decode(mx.data, mx.len, types, 1, &out[1], NULL, &a, &err));
	assert_int_equal(out[0].v.s.len, 3);
	assert_int_equal(out[1].v.s.len, 17);	/* 15 x 'a' + U+0100 (2 bytes) */
	assert_memory_equal(out[1].v.s.p, "aaaaaaaaaaaaaaa\xc4\x80", 17);
	ts_arena_free(&a);
	ts_buf_free(&mn);
	ts_buf_free(&mx);
	ts_col_stats_free(&s);
	ts_type_free(t);
}

static void
add_rows(ts_table_writer *w, int from, int to)
{
	ts_err		err;

	for (int i = from; i < to; i++)
	{
		ts_value	row[3];
		char		p[8];

		memset(row, 0, sizeof(row));
		row[0].v.i = i;
		snprintf(p, sizeof(p), "p%d", i % 2);
		row[1].v.s.p = (const uint8_t *) p;
		row[1].v.s.len = 2;
		row[2].isnull = i % 3 == 0;
		row[2].v.i = i * 10;
		if (!ts_table_writer_add(w, row, &err))
			fail_msg("%s", err.msg);
	}
}

/* The schema of a table (id INT NOT NULL, p STRING, n BIGINT) partitioned by p, with options (JSON members). */
static void
write_idpn_schema(const char *root, const char *options)
{
	char		json[1024];

	snprintf(json, sizeof(json), "{\"version\": 3, \"id\": 0, \"fields\": ["
			 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
			 "{\"id\": 1, \"name\": \"p\", \"type\": \"STRING\"},"
			 "{\"id\": 2, \"name\": \"n\", \"type\": \"BIGINT\"}],"
			 "\"highestFieldId\": 2, \"partitionKeys\": [\"p\"], \"primaryKeys\": [],"
			 "\"options\": {%s}}", options);
	write_schema(root, json);
}

/* Rows from..to-1 (add_rows) into the table at root, committed as snapshot id. */
static void
write_committed(const char *root, int from, int to, int64_t id)
{
	ts_err		err;
	int64_t		got;
	ts_table_writer *w = ts_table_writer_open(local_fs(root), root, NULL, 0, &err);

	if (w == NULL)
		fail_msg("%s", err.msg);
	add_rows(w, from, to);
	if (!ts_table_writer_commit(w, "unit-user", &got, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(got, id);
	ts_table_writer_free(w);
}

/* The entries of the one manifest of s's delta list (*added: its added files). */
static ts_manifest_entry *
delta_entries(const char *root, const ts_snapshot *s, ts_arena *a, int *ne, int64_t *added)
{
	char		path[1024];
	ts_err		err;
	ts_manifest_file_meta *metas;
	int			nmetas;
	ts_manifest_entry *e;

	snprintf(path, sizeof(path), "%s/manifest/%s", root, s->delta_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, a, &metas, &nmetas, &err));
	assert_int_equal(nmetas, 1);
	if (added)
		*added = metas[0].num_added_files;
	snprintf(path, sizeof(path), "%s/manifest/%s", root, metas[0].file_name);
	assert_true(ts_manifest_read(ts_fs_local_unconfined(), path, a, &e, ne, &err));
	return e;
}

static void
test_table_written_twice(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				path[1024];
	ts_err		err;
	int64_t		id;
	ts_snapshot *s;
	ts_arena	a;
	ts_manifest_file_meta *metas;
	int			nmetas;
	ts_manifest_entry *e;
	int			ne;
	int64_t		rows = 0,
				added;
	ts_type    *ptype = ts_type_new(TS_VARCHAR, true);
	ts_type    *itype = ts_type_new(TS_INT, false);

	snprintf(root, sizeof(root), "%s/t", dir);
	write_idpn_schema(root, "\"bucket\": \"2\", \"bucket-key\": \"id\"");
	for (int round = 0; round < 2; round++)
		write_committed(root, round * 100, round * 100 + 100, round + 1);
	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 2, &err);
	assert_non_null(s);
	assert_string_equal(s->commit_kind, "APPEND");
	assert_string_equal(s->commit_user, "unit-user");
	assert_int_equal(s->total_record_count, 200);
	assert_int_equal(s->delta_record_count, 100);
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 2);
	ts_arena_init(&a, 65536);
	/* the base list of snapshot 2 = snapshot 1's base (empty) + delta */
	snprintf(path, sizeof(path), "%s/manifest/%s", root, s->base_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &metas, &nmetas, &err));
	assert_int_equal(nmetas, 1);
	{
		ts_snapshot *s1 = ts_snapshot_load(ts_fs_local_unconfined(), root, 1, &err);
		ts_manifest_file_meta *m1;
		int			n1;

		snprintf(path, sizeof(path), "%s/manifest/%s", root, s1->delta_manifest_list);
		assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &m1, &n1, &err));
		assert_int_equal(n1, 1);
		assert_string_equal(m1[0].file_name, metas[0].file_name);
		assert_int_equal(m1[0].num_added_files, metas[0].num_added_files);
		ts_snapshot_free(s1);
	}
	e = delta_entries(root, s, &a, &ne, &added);
	assert_int_equal(added, 4);	/* 2 partitions x 2 buckets */
	assert_int_equal(ne, 4);
	for (int k = 0; k < ne; k++)
	{
		ts_value	pv;
		ts_table_writer *dummy = NULL;

		(void) dummy;
		assert_int_equal(e[k].kind, TS_FILE_ADD);
		assert_int_equal(e[k].total_buckets, 2);
		assert_int_equal(e[k].file.level, 0);
		assert_int_equal(e[k].file.schema_id, 0);
		assert_int_equal(e[k].file.file_source, 0);
		/* round 2 continues each bucket's sequence numbers after round 1's */
		assert_true(e[k].file.min_sequence_number > 0);
		assert_int_equal(e[k].file.max_sequence_number - e[k].file.min_sequence_number + 1,
						 e[k].file.row_count);
		assert_true(ts_binary_row_decode(e[k].partition.data, e[k].partition.len,
										 (const ts_type *const *) &ptype, 1, &pv, NULL, &a, &err));
		assert_int_equal(pv.v.s.len, 2);
		rows += e[k].file.row_count;
		/* the file exists under <partition>/bucket-<b> */
		snprintf(path, sizeof(path), "%s/p=%.*s/bucket-%d/%s", root, (int) pv.v.s.len,
				 (const char *) pv.v.s.p, e[k].bucket, e[k].file.file_name);
		assert_int_equal(access(path, F_OK), 0);
	}
	assert_int_equal(rows, 100);
	/* every id 100..199 hashes to the bucket of a file that holds as many rows */
	{
		int			per_bucket[2][2] = {{0}};
		int			in_files[2][2] = {{0}};

		for (int i = 100; i < 200; i++)
		{
			ts_value	key = {0};
			int32_t		b;

			key.v.i = i;
			assert_true(ts_bucket_compute(TS_BUCKET_FN_DEFAULT, (const ts_type *const *) &itype,
										  &key, 1, 2, &b, &err));
			per_bucket[i % 2][b]++;
		}
		for (int k = 0; k < ne; k++)
		{
			ts_value	pv;

			assert_true(ts_binary_row_decode(e[k].partition.data, e[k].partition.len,
											 (const ts_type *const *) &ptype, 1, &pv, NULL, &a, &err));
			in_files[pv.v.s.p[1] - '0'][e[k].bucket] += (int) e[k].file.row_count;
		}
		assert_memory_equal(per_bucket, in_files, sizeof(per_bucket));
	}
	/* no temporary file left behind */
	snprintf(path, sizeof(path), "%s/snapshot", root);
	assert_int_equal(count_entries(path, "."), 2);
	ts_arena_free(&a);
	ts_snapshot_free(s);
	ts_type_free(ptype);
	ts_type_free(itype);
	free(dir);
}

static void
test_refusals(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512];
	ts_err		err;
	ts_option	opt = {"file.format", "csv"};

	snprintf(root, sizeof(root), "%s/pk", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"}],"
				 "\"highestFieldId\": 0, \"partitionKeys\": [], \"primaryKeys\": [\"id\"],"
				 "\"options\": {\"bucket\": \"-1\"}}");
	assert_null(ts_table_writer_open(local_fs(root), root, NULL, 0, &err));	/* dynamic buckets */
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"bucket\" = \"-1\""));
	snprintf(root, sizeof(root), "%s/ap", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT\"}],"
				 "\"highestFieldId\": 0, \"partitionKeys\": [], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\"}}");
	assert_null(ts_table_writer_open(local_fs(root), root, &opt, 1, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "file.format"));
	free(dir);
}

/*
 * data-file.path-directory (a table option): the data files go below that
 * directory of the table, <table>/<dir>/<partition>/bucket-<b>, where Java
 * and our reader look for them (PAIMON-FORMAT.md 1.4), not beside it; a
 * value that is no directory below the table is refused before anything
 * is written.
 */
static void
test_data_file_path_directory(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				path[1024];
	ts_err		err;
	ts_snapshot *s;
	ts_arena	a;
	ts_manifest_entry *e;
	int			ne;
	ts_type    *ptype = ts_type_new(TS_VARCHAR, true);
	static const char *const bad[] = {"../escape", "/tmp", "data/../../escape", "a//b", ".", "data/"};

	(void) state;
	snprintf(root, sizeof(root), "%s/t", dir);
	write_idpn_schema(root, "\"bucket\": \"2\", \"bucket-key\": \"id\","
					  " \"data-file.path-directory\": \"data/files\"");
	write_committed(root, 0, 50, 1);
	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 1, &err);
	assert_non_null(s);
	ts_arena_init(&a, 65536);
	e = delta_entries(root, s, &a, &ne, NULL);
	assert_int_equal(ne, 4);	/* 2 partitions x 2 buckets */
	for (int k = 0; k < ne; k++)
	{
		ts_value	pv;

		assert_null(e[k].file.external_path);
		assert_true(ts_binary_row_decode(e[k].partition.data, e[k].partition.len,
										 (const ts_type *const *) &ptype, 1, &pv, NULL, &a, &err));
		snprintf(path, sizeof(path), "%s/data/files/p=%.*s/bucket-%d/%s", root, (int) pv.v.s.len,
				 (const char *) pv.v.s.p, e[k].bucket, e[k].file.file_name);
		if (access(path, F_OK) != 0)
			fail_msg("no data file %s", path);
	}
	/* nothing beside the directory */
	assert_int_equal(count_entries(root, "p="), 0);
	ts_arena_free(&a);
	ts_snapshot_free(s);

	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
	{
		char		options[200];

		snprintf(root, sizeof(root), "%s/bad%zu", dir, b);
		snprintf(options, sizeof(options), "\"bucket\": \"-1\", \"data-file.path-directory\": \"%s\"",
				 bad[b]);
		write_idpn_schema(root, options);
		memset(&err, 0, sizeof(err));
		assert_null(ts_table_writer_open(local_fs(root), root, NULL, 0, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		if (strstr(err.msg, "data-file.path-directory") == NULL)
			fail_msg("%s: %s", bad[b], err.msg);
		assert_int_equal(count_entries(root, ""), 3);	/* ".", ".." and schema */
	}
	snprintf(path, sizeof(path), "%s/escape", dir);
	assert_int_equal(access(path, F_OK), -1);
	ts_type_free(ptype);
	free(dir);
}

/*
 * A nested key column is refused when the writer opens, by the schema's
 * load (primary and partition keys) or by ts_schema_bucket_keys (bucket
 * keys), naming the column and its type, before any file is written.
 */
static void
test_nested_keys_refused(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512];
	char		path[600];
	ts_err		err;
	static const char *const tables[][3] = {
		{"pk", "\"primaryKeys\": [\"k\"], \"partitionKeys\": []", "primary key column \"k\" of type MAP cannot be a key"},
		{"part", "\"primaryKeys\": [], \"partitionKeys\": [\"k\"]", "partition key column \"k\" of type MAP cannot be a key"},
		{"bucket", "\"primaryKeys\": [], \"partitionKeys\": []", "bucket key column \"k\" of type MAP cannot be a key"},
	};

	(void) state;
	for (int t = 0; t < 3; t++)
	{
		char		json[700];

		snprintf(root, sizeof(root), "%s/%s", dir, tables[t][0]);
		snprintf(json, sizeof(json), "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"k\", \"type\": \"MAP<INT, INT>\"},"
				 "{\"id\": 1, \"name\": \"v\", \"type\": \"INT\"}],"
				 "\"highestFieldId\": 1, %s, \"options\": {\"bucket\": \"2\"%s}}",
				 tables[t][1], t == 2 ? ", \"bucket-key\": \"k\"" : "");
		write_schema(root, json);
		memset(&err, 0, sizeof(err));
		assert_null(ts_table_writer_open(local_fs(root), root, NULL, 0, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		if (strstr(err.msg, tables[t][2]) == NULL)
			fail_msg("%s: %s", tables[t][0], err.msg);
		snprintf(path, sizeof(path), "%s/bucket-0", root);
		assert_int_equal(access(path, F_OK), -1);	/* nothing written */
	}
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_schemas_match_java),
		cmocka_unit_test(test_create_exclusive),
		cmocka_unit_test(test_deferred_dir_syncs),
		cmocka_unit_test(test_new_dirs_synced_in_parents),
		cmocka_unit_test(test_truncated_string_stats),
		cmocka_unit_test(test_table_written_twice),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_data_file_path_directory),
		cmocka_unit_test(test_nested_keys_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
