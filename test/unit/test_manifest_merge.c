/*
 * test_manifest_merge.c - merging the base manifest list at commit
 * (src/write/manifest_merge.c) and the commit's retry options.
 *
 * The selection rule on hand-made manifest sizes (runs that reach the
 * target size, the trailing run only at manifest.merge-min-count, a run of
 * one left alone; the full-compaction trigger); 45 one-row commits into a
 * partitioned table, each base list checked against a model of the rule
 * for tiny manifests (the previous base and delta carried until they
 * number merge-min-count, then one manifest holding all their entries,
 * with the partition stats of its entries) while every data file stays
 * live once; ADD and DELETE entries of one file cancelling in a minor and
 * in a full compaction, an unmatched DELETE kept; a commit that loses the
 * race (a catalog answering "another writer first") merges again on each
 * attempt and leaves no merged manifest of a lost attempt; Java's duration
 * syntax and RetryWaiter's backoff; commit.timeout (when to give up, a
 * catalog that never lets the commit in: stopped past the timeout with
 * nothing left, a bad value refused); manifest.compression deflate
 * written into every manifest and list header and read back, bzip2
 * refused with nothing written.
 */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_fs_write.h"
#include "format/avro/avro_writer.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "meta/manifest_schema.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write_schema.h"

static void
remove_dir(char *dir)
{
	char		cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static ts_manifest_file_meta *
sized(const int64_t *sizes, int n)
{
	ts_manifest_file_meta *m = calloc((size_t) n, sizeof(*m));

	for (int i = 0; i < n; i++)
		m[i].file_size = sizes[i];
	return m;
}

static void
expect_plan(const int64_t *sizes, int n, int64_t target, int min_count, const int *want,
			int want_runs)
{
	ts_manifest_merge_options o = {target, min_count, 1 << 30};
	ts_manifest_file_meta *m = sized(sizes, n);
	int			run[16];

	assert_int_equal(ts_manifest_minor_plan(m, n, &o, run), want_runs);
	assert_memory_equal(run, want, sizeof(int) * (size_t) n);
	free(m);
}

static void
test_selection_rule(void **state)
{
	const int	K = TS_MERGE_KEEP;

	/* the trailing run: merged at min-count, left alone below it */
	expect_plan((int64_t[]) {10, 10, 10}, 3, 100, 3, (int[]) {0, 0, 0}, 1);
	expect_plan((int64_t[]) {10, 10}, 2, 100, 3, (int[]) {K, K}, 0);
	/* runs reaching the target merge; the short tail stays */
	expect_plan((int64_t[]) {60, 50, 10, 200, 5, 5}, 6, 100, 3, (int[]) {0, 0, 1, 1, K, K}, 2);
	/* a manifest alone at the target is listed as it is */
	expect_plan((int64_t[]) {150, 10, 10, 10}, 4, 100, 3, (int[]) {K, 0, 0, 0}, 1);
	/* one manifest is never rewritten alone, whatever min-count says */
	expect_plan((int64_t[]) {10}, 1, 100, 1, (int[]) {K}, 0);
	expect_plan((int64_t[]) {10, 10}, 2, 100, 1, (int[]) {0, 0}, 1);

	/* full compaction: must-change = with DELETE entries or under the target */
	{
		ts_manifest_file_meta *m = sized((int64_t[]) {5, 200, 50, 300}, 4);
		ts_manifest_merge_options o = {100, 30, 55};

		m[3].num_deleted_files = 1;
		assert_true(ts_manifest_must_change(&m[0], &o));
		assert_false(ts_manifest_must_change(&m[1], &o));
		assert_true(ts_manifest_must_change(&m[3], &o));
		/* 5 + 50 + 300 */
		o.full_threshold = 355;
		assert_true(ts_manifest_full_triggered(m, 4, &o));
		o.full_threshold = 356;
		assert_false(ts_manifest_full_triggered(m, 4, &o));
		free(m);
	}
	(void) state;
}

static void
test_retry_options(void **state)
{
	int64_t		ms;
	ts_err		err;
	static const struct
	{
		const char *text;
		int64_t		ms;
	}			good[] = {
		{"10 ms", 10}, {"10 s", 10000}, {"2min", 120000}, {"1 h", 3600000}, {"5", 5},
		{"3 seconds", 3000}, {"2 days", 172800000}, {" 7 MS ", 7}, {"1 m", 60000},
		{"2500 micros", 2}, {"100 nanos", 0}, {"4 minutes", 240000},
	};
	static const char *const bad[] = {"", "x", "10 parsecs", "-1 s", "1.5 s", "10 s x", "ms"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		if (!ts_write_parse_duration_ms("commit.min-retry-wait", good[i].text, &ms, &err))
			fail_msg("%s: %s", good[i].text, err.msg);
		assert_int_equal(ms, good[i].ms);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		assert_false(ts_write_parse_duration_ms("commit.max-retry-wait", bad[i], &ms, &err));
		assert_non_null(strstr(err.msg, "commit.max-retry-wait"));
	}
	/* min(min * 2^retry, max) + random % max(1, (int) (0.2 * that)) */
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 0, 0), 10);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 0, 3), 11);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 3, 0), 80);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 3, 15), 80 + 15);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 3, 16), 80);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 20, 1999), 11999);
	assert_int_equal(ts_commit_retry_wait_ms(10, 10000, 60, 2000), 10000);
	assert_int_equal(ts_commit_retry_wait_ms(0, 100, 5, 7), 0);
	assert_int_equal(ts_commit_retry_wait_ms(3, 100, 0, 7), 3);
	(void) state;
}

/* ---- tables ----------------------------------------------------------------- */

static void
commit_row(const char *root, int id, const char *p)
{
	ts_err		err;
	ts_table_writer *w = ts_table_writer_open(local_fs(root), root, NULL, 0, &err);
	ts_value	row[2];
	int64_t		sid;

	if (w == NULL)
		fail_msg("%s", err.msg);
	memset(row, 0, sizeof(row));
	row[0].v.i = id;
	row[1].isnull = p == NULL;
	if (p != NULL)
	{
		row[1].v.s.p = (const uint8_t *) p;
		row[1].v.s.len = (uint32_t) strlen(p);
	}
	if (!ts_table_writer_add(w, row, &err) || !ts_table_writer_commit(w, "unit-user", &sid, &err))
		fail_msg("%s", err.msg);
	ts_table_writer_free(w);
}

static void
read_list(const char *root, const char *name, ts_arena *a, ts_manifest_file_meta **m, int *n)
{
	char		path[1024];
	ts_err		err;

	snprintf(path, sizeof(path), "%s/manifest/%s", root, name);
	if (!ts_manifest_list_read(ts_fs_local_unconfined(), path, a, m, n, &err))
		fail_msg("%s", err.msg);
}

static ts_manifest_entry *
read_manifest(const char *root, const char *name, ts_arena *a, int *n)
{
	char		path[1024];
	ts_err		err;
	ts_manifest_entry *e;

	snprintf(path, sizeof(path), "%s/manifest/%s", root, name);
	if (!ts_manifest_read(ts_fs_local_unconfined(), path, a, &e, n, &err))
		fail_msg("%s", err.msg);
	return e;
}

static ts_snapshot *
snapshot(const char *root, int64_t id)
{
	ts_err		err;
	ts_snapshot *s = ts_snapshot_load(ts_fs_local_unconfined(), root, id, &err);

	if (s == NULL)
		fail_msg("%s", err.msg);
	return s;
}

static bool
listed(const ts_manifest_file_meta *m, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(m[i].file_name, name) == 0)
			return true;
	return false;
}

/* the string of partition stats row r (arity 1) */
static void
expect_partition(const ts_bytes *row, const char *want)
{
	ts_type    *t = ts_type_new(TS_VARCHAR, true);
	ts_value	v;
	ts_arena	a;
	ts_err		err;

	ts_arena_init(&a, 1024);
	assert_true(ts_binary_row_decode(row->data, row->len, (const ts_type *const *) &t, 1, &v, NULL,
									 &a, &err));
	assert_false(v.isnull);
	assert_int_equal(v.v.s.len, strlen(want));
	assert_memory_equal(v.v.s.p, want, strlen(want));
	ts_arena_free(&a);
	ts_type_free(t);
}

#define COMMITS 45
#define MIN_COUNT 30			/* manifest.merge-min-count's default */

static void
test_commits_merge(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512];
	int			model = 0;		/* base list length the rule predicts */
	int			merges = 0;
	ts_arena	a;

	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"p\", \"type\": \"STRING\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [\"p\"], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\"}}");
	ts_arena_init(&a, 65536);
	for (int k = 1; k <= COMMITS; k++)
	{
		ts_snapshot *s;
		ts_manifest_file_meta *base,
				   *prev_base = NULL,
				   *prev_delta = NULL;
		int			nbase,
					nprev_base = 0,
					nprev_delta = 0;

		commit_row(root, k, k % 2 ? "p1" : "p0");
		s = snapshot(root, k);
		read_list(root, s->base_manifest_list, &a, &base, &nbase);
		if (k > 1)
		{
			ts_snapshot *p = snapshot(root, k - 1);

			read_list(root, p->base_manifest_list, &a, &prev_base, &nprev_base);
			read_list(root, p->delta_manifest_list, &a, &prev_delta, &nprev_delta);
			ts_snapshot_free(p);
		}
		/* tiny manifests: carried until they number min-count, then one */
		model = nprev_base + nprev_delta >= MIN_COUNT ? 1 : nprev_base + nprev_delta;
		assert_int_equal(nbase, model);
		if (nprev_base + nprev_delta >= MIN_COUNT)
		{
			int64_t		added = 0;
			int			ne;
			ts_manifest_entry *e = read_manifest(root, base[0].file_name, &a, &ne);

			merges++;
			assert_false(listed(prev_base, nprev_base, base[0].file_name));
			assert_false(listed(prev_delta, nprev_delta, base[0].file_name));
			for (int i = 0; i < nprev_base; i++)
				added += prev_base[i].num_added_files;
			for (int i = 0; i < nprev_delta; i++)
				added += prev_delta[i].num_added_files;
			assert_int_equal(base[0].num_added_files, added);
			assert_int_equal(base[0].num_deleted_files, 0);
			assert_int_equal(ne, added);
			/* every entry of the inputs, in their order */
			for (int i = 0, at = 0; i < nprev_base + nprev_delta; i++)
			{
				const ts_manifest_file_meta *m = i < nprev_base ? &prev_base[i] : &prev_delta[i - nprev_base];
				int			nm;
				ts_manifest_entry *me = read_manifest(root, m->file_name, &a, &nm);

				for (int j = 0; j < nm; j++, at++)
				{
					assert_string_equal(e[at].file.file_name, me[j].file.file_name);
					assert_memory_equal(e[at].partition.data, me[j].partition.data, me[j].partition.len);
					assert_int_equal(e[at].file.row_count, me[j].file.row_count);
					assert_int_equal(e[at].file.min_sequence_number, me[j].file.min_sequence_number);
					assert_int_equal(e[at].file.creation_time_millis, me[j].file.creation_time_millis);
					assert_memory_equal(e[at].file.value_stats.min_values.data,
										me[j].file.value_stats.min_values.data,
										me[j].file.value_stats.min_values.len);
				}
			}
			expect_partition(&base[0].partition_stats.min_values, "p0");
			expect_partition(&base[0].partition_stats.max_values, "p1");
			assert_int_equal(base[0].partition_stats.null_counts[0], 0);
			assert_int_equal(base[0].min_bucket, 0);
			assert_int_equal(base[0].max_bucket, 0);
		}
		else
			for (int i = 0; i < nbase; i++)
				assert_string_equal(base[i].file_name,
									i < nprev_base ? prev_base[i].file_name :
									prev_delta[i - nprev_base].file_name);
		assert_int_equal(s->total_record_count, k);
		ts_snapshot_free(s);
	}
	assert_true(merges >= 1);
	/* the live files of the last snapshot: each data file once */
	{
		ts_snapshot *s = snapshot(root, COMMITS);
		ts_manifest_file_meta *lists[2];
		int			nl[2],
					live = 0;
		char	  **names = calloc(COMMITS + 1, sizeof(char *));

		read_list(root, s->base_manifest_list, &a, &lists[0], &nl[0]);
		read_list(root, s->delta_manifest_list, &a, &lists[1], &nl[1]);
		for (int l = 0; l < 2; l++)
			for (int i = 0; i < nl[l]; i++)
			{
				int			ne;
				ts_manifest_entry *e = read_manifest(root, lists[l][i].file_name, &a, &ne);

				for (int j = 0; j < ne; j++)
				{
					assert_int_equal(e[j].kind, TS_FILE_ADD);
					for (int x = 0; x < live; x++)
						assert_string_not_equal(names[x], e[j].file.file_name);
					assert_true(live < COMMITS);
					names[live++] = e[j].file.file_name;
				}
			}
		assert_int_equal(live, COMMITS);
		free(names);
		ts_snapshot_free(s);
	}
	ts_arena_free(&a);
	remove_dir(dir);
	(void) state;
}

/* ---- ADD / DELETE cancelling ---------------------------------------------------- */

typedef struct store
{
	const char *root;
	int			n;
} store;

static bool
store_file(void *arg, const uint8_t *data, size_t len, char **name, ts_err *err)
{
	store	   *st = arg;
	char		path[1024];
	FILE	   *f;

	*name = malloc(32);
	snprintf(*name, 32, "merged-%d", st->n++);
	snprintf(path, sizeof(path), "%s/manifest/%s", st->root, *name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	(void) err;
	return true;
}

/* a manifest "deletes" holding a DELETE entry for e, and its list entry */
static ts_manifest_file_meta
delete_manifest(const char *root, ts_manifest_entry e, const ts_manifest_file_meta *like)
{
	int			nfields;
	ts_field   *fields = ts_manifest_entry_fields(false, &nfields);
	ts_err		err;
	ts_avro_writer *w = ts_avro_writer_create_for_fields(fields, nfields, TS_AVRO_CODEC_NULL, &err);
	ts_arena	a;
	ts_buf		out;
	ts_manifest_file_meta m = *like;
	char		path[1024];
	FILE	   *f;

	ts_arena_init(&a, 4096);
	ts_buf_init(&out);
	e.kind = TS_FILE_DELETE;
	assert_non_null(w);
	assert_true(ts_avro_writer_add(w, ts_manifest_entry_value(&e, false, &a), &err));
	assert_true(ts_avro_writer_finish(w, &out, &err));
	snprintf(path, sizeof(path), "%s/manifest/deletes", root);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
	fclose(f);
	m.file_name = "deletes";
	m.file_size = (int64_t) out.len;
	m.num_added_files = 0;
	m.num_deleted_files = 1;
	ts_avro_writer_free(w);
	ts_buf_free(&out);
	ts_arena_free(&a);
	return m;
}

/* merge in[n] with opts; one new manifest expected: its entries' names (ADD / DELETE) */
static void
expect_merged(const char *root, const ts_manifest_file_meta *in, int n, ts_manifest_merge_options o,
			  const char *want_add, const char *want_del)
{
	store		st = {root, 0};
	ts_manifest_merge_ctx c;
	ts_arena	a;
	ts_manifest_file_meta *out;
	int			nout,
				ne;
	ts_err		err;
	ts_manifest_entry *e;
	char		adds[512] = "",
				dels[512] = "";

	ts_arena_init(&a, 65536);
	memset(&c, 0, sizeof(c));
	c.fs = ts_fs_local_unconfined();
	c.table_path = root;
	c.opts = o;
	c.store = store_file;
	c.store_arg = &st;
	c.arena = &a;
	if (!ts_manifest_merge(&c, in, n, &out, &nout, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(nout, 1);
	assert_int_equal(st.n, 1);
	e = read_manifest(root, out[0].file_name, &a, &ne);
	for (int i = 0; i < ne; i++)
	{
		char	   *to = e[i].kind == TS_FILE_ADD ? adds : dels;

		strcat(to, to[0] ? " " : "");
		strcat(to, e[i].file.file_name);
	}
	assert_string_equal(adds, want_add);
	assert_string_equal(dels, want_del);
	assert_int_equal(out[0].num_deleted_files, want_del[0] ? 1 : 0);
	free(out[0].file_name);
	ts_arena_free(&a);
}

static void
test_add_delete_cancel(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				want[512];
	ts_arena	a;
	ts_snapshot *s;
	ts_manifest_file_meta *base,
			   *delta,
				in[4];
	ts_manifest_entry *e[3];
	int			nbase,
				ndelta,
				ne;

	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"s\", \"type\": \"STRING\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\"}}");
	for (int k = 1; k <= 3; k++)
		commit_row(root, k, "x");
	ts_arena_init(&a, 65536);
	s = snapshot(root, 3);
	read_list(root, s->base_manifest_list, &a, &base, &nbase);
	read_list(root, s->delta_manifest_list, &a, &delta, &ndelta);
	assert_int_equal(nbase, 2);
	assert_int_equal(ndelta, 1);
	in[0] = base[0];
	in[1] = base[1];
	in[2] = delta[0];
	for (int i = 0; i < 3; i++)
	{
		e[i] = read_manifest(root, in[i].file_name, &a, &ne);
		assert_int_equal(ne, 1);
	}
	/* the first file deleted after its ADD */
	in[3] = delete_manifest(root, e[0][0], &in[0]);
	snprintf(want, sizeof(want), "%s %s", e[1][0].file.file_name, e[2][0].file.file_name);

	/* minor: four manifests at min-count 4, the pair cancels */
	expect_merged(root, in, 4, (ts_manifest_merge_options) {8 << 20, 4, 16 << 20}, want, "");
	/* full: the must-change manifests pass a 1-byte threshold */
	expect_merged(root, in, 4, (ts_manifest_merge_options) {8 << 20, 30, 1}, want, "");
	/* minor without the ADD: the DELETE stays */
	expect_merged(root, in + 1, 3, (ts_manifest_merge_options) {8 << 20, 3, 16 << 20}, want,
				  e[0][0].file.file_name);
	/* below min-count and threshold: every manifest listed as it was */
	{
		store		st = {root, 0};
		ts_manifest_merge_ctx c = {0};
		ts_manifest_file_meta *out;
		int			nout;
		ts_err		err;

		c.fs = ts_fs_local_unconfined();
		c.table_path = root;
		c.opts = (ts_manifest_merge_options) TS_MANIFEST_MERGE_DEFAULTS;
		c.store = store_file;
		c.store_arg = &st;
		c.arena = &a;
		assert_true(ts_manifest_merge(&c, in, 4, &out, &nout, &err));
		assert_int_equal(nout, 4);
		assert_int_equal(st.n, 0);
		for (int i = 0; i < 4; i++)
			assert_string_equal(out[i].file_name, in[i].file_name);
	}
	ts_snapshot_free(s);
	ts_arena_free(&a);
	remove_dir(dir);
	(void) state;
}

/* ---- a retry merges again ------------------------------------------------------- */

/* a catalog that answers "another writer first" conflicts times, then stores the snapshot */
typedef struct catalog
{
	const char *root;
	int			conflicts;
	int			calls;
} catalog;

static bool
catalog_commit(void *arg, int64_t id, const char *base_uuid, const char *json, const char *stats,
			   bool *committed, ts_err *err)
{
	catalog    *c = arg;
	char		path[700];
	int			fd;

	c->calls++;
	*committed = false;
	if (c->conflicts-- > 0)
		return true;
	snprintf(path, sizeof(path), "%s/snapshot/snapshot-%lld", c->root, (long long) id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t) strlen(json));
	close(fd);
	*committed = true;
	(void) base_uuid;
	(void) stats;
	(void) err;
	return true;
}

static int
count_files(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* one row committed through catalog c by a writer with opts[n] */
static bool
catalog_commit_row_with(const char *root, catalog *c, int id, const ts_option *opts, int n,
						ts_err *err)
{
	ts_catalog_commit cc = {catalog_commit, NULL, c};
	ts_table_writer *w = ts_table_writer_open_in_catalog(local_fs(root), root, opts, n, &cc, err);
	ts_value	row[2];
	int64_t		sid;
	bool		ok;

	if (w == NULL)
		fail_msg("%s", err->msg);
	memset(row, 0, sizeof(row));
	row[0].v.i = id;
	row[1].isnull = true;
	ok = ts_table_writer_add(w, row, err) && ts_table_writer_commit(w, "unit-user", &sid, err);
	ts_table_writer_free(w);
	return ok;
}

static bool
catalog_commit_row(const char *root, catalog *c, int id, ts_err *err)
{
	static const ts_option opts[] = {
		{"manifest.merge-min-count", "2"}, {"commit.max-retries", "2"},
		{"commit.min-retry-wait", "1 ms"}, {"commit.max-retry-wait", "2 ms"},
	};

	return catalog_commit_row_with(root, c, id, opts, 4, err);
}

static const char *const two_columns =
"{\"version\": 3, \"id\": 0, \"fields\": ["
"{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
"{\"id\": 1, \"name\": \"s\", \"type\": \"STRING\"}],"
"\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [],"
"\"options\": {\"bucket\": \"-1\"}}";

static void
test_retry_merges_again(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				mdir[600];
	catalog		c;
	ts_err		err;
	ts_arena	a;
	ts_snapshot *s;
	ts_manifest_file_meta *base;
	int			nbase,
				before;

	snprintf(root, sizeof(root), "%s/t", dir);
	snprintf(mdir, sizeof(mdir), "%s/manifest", root);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"s\", \"type\": \"STRING\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\"}}");
	commit_row(root, 1, "a");
	commit_row(root, 2, "b");
	/* snapshot 2: one base and one delta manifest, min-count 2: the next commit merges */
	before = count_files(mdir);
	memset(&c, 0, sizeof(c));
	c.root = root;
	c.conflicts = 3;			/* past commit.max-retries 2 */
	assert_false(catalog_commit_row(root, &c, 3, &err));
	assert_int_equal(c.calls, 3);
	assert_int_equal(count_files(mdir), before);	/* every attempt's merged manifest removed */

	c.conflicts = 1;
	c.calls = 0;
	if (!catalog_commit_row(root, &c, 3, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.calls, 2);
	/* the second attempt's files only: merged manifest, manifest, two lists */
	assert_int_equal(count_files(mdir), before + 4);
	ts_arena_init(&a, 65536);
	s = snapshot(root, 3);
	read_list(root, s->base_manifest_list, &a, &base, &nbase);
	assert_int_equal(nbase, 1);
	assert_int_equal(base[0].num_added_files, 2);
	ts_snapshot_free(s);
	ts_arena_free(&a);
	remove_dir(dir);
	(void) state;
}

/* ---- commit.timeout and manifest.compression --------------------------------------- */

static void
test_commit_give_up(void **state)
{
	ts_commit_input in;
	ts_err		err;

	memset(&in, 0, sizeof(in));
	in.table_path = "/t";
	in.max_retries = 10;
	in.timeout_ms = INT64_MAX;	/* commit.timeout unset: the count alone */
	assert_false(ts_commit_give_up(&in, 0, 1000000, &err));
	assert_false(ts_commit_give_up(&in, 9, 1000000, &err));
	assert_true(ts_commit_give_up(&in, 10, 0, &err));
	assert_non_null(strstr(err.msg, "failed after 10 retries"));
	/* Java: more than the timeout has passed (not at it), whatever the count */
	in.timeout_ms = 500;
	assert_false(ts_commit_give_up(&in, 3, 500, &err));
	memset(&err, 0, sizeof(err));
	assert_true(ts_commit_give_up(&in, 3, 501, &err));
	assert_string_equal(err.msg, "commit to \"/t\" was not made: \"commit.timeout\" (500 ms) passed after 3 retries");
	assert_non_null(strstr(err.hint, "commit.timeout"));
	in.timeout_ms = 0;
	assert_true(ts_commit_give_up(&in, 0, 1, &err));
	(void) state;
}

/* a catalog that never lets the commit in: retries until commit.timeout, then nothing left */
static void
test_commit_timeout(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				mdir[600];
	catalog		c;
	ts_err		err;
	static const ts_option opts[] = {
		{"commit.max-retries", "1000"}, {"commit.timeout", "200 ms"},
		{"commit.min-retry-wait", "5 ms"}, {"commit.max-retry-wait", "5 ms"},
	};
	static const ts_option bad[] = {{"commit.timeout", "soon"}};
	int			before;

	snprintf(root, sizeof(root), "%s/t", dir);
	snprintf(mdir, sizeof(mdir), "%s/manifest", root);
	write_schema(root, two_columns);
	commit_row(root, 1, "a");
	before = count_files(mdir);
	memset(&c, 0, sizeof(c));
	c.root = root;
	c.conflicts = 1000000;
	memset(&err, 0, sizeof(err));
	assert_false(catalog_commit_row_with(root, &c, 2, opts, 4, &err));
	assert_non_null(strstr(err.msg, "was not made: \"commit.timeout\" (200 ms) passed"));
	/* 200 ms of 5-6 ms waits: more than one attempt, far fewer than max-retries */
	assert_in_range(c.calls, 2, 100);
	assert_int_equal(count_files(mdir), before);	/* every attempt's files removed */
	/* a value Java cannot parse: refused when the writer opens */
	assert_null(ts_table_writer_open(local_fs(root), root, bad, 1, &err));
	assert_non_null(strstr(err.msg, "\"commit.timeout\": \"soon\""));
	remove_dir(dir);
	(void) state;
}

/* does the Avro file at path say avro.codec = codec in its header (bytes, not our reader)? */
static bool
has_codec(const char *path, const char *codec)
{
	char		buf[4096],
				want[64];
	FILE	   *f = fopen(path, "rb");
	size_t		n,
				wn;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* the metadata map: key "avro.codec", then the value's zigzag length and bytes */
	wn = (size_t) snprintf(want, sizeof(want), "avro.codec%c%s", (char) (strlen(codec) * 2), codec);
	for (size_t i = 0; i + wn <= n; i++)
		if (memcmp(buf + i, want, wn) == 0)
			return true;
	return false;
}

static void
test_manifest_compression(void **state)
{
	char	   *dir = scratch_dir();
	char		root[512],
				mdir[600],
				path[1200];
	static const ts_option deflate[] = {{"manifest.compression", "deflate"}};
	static const ts_option bzip2[] = {{"manifest.compression", "bzip2"}};
	ts_table_writer *w;
	ts_err		err;
	ts_value	row[2];
	int64_t		sid;
	ts_arena	a;
	ts_snapshot *s;
	ts_manifest_file_meta *delta;
	ts_manifest_entry *e;
	int			ndelta,
				ne,
				nfiles = 0;
	DIR		   *d;
	struct dirent *de;

	snprintf(root, sizeof(root), "%s/t", dir);
	snprintf(mdir, sizeof(mdir), "%s/manifest", root);
	write_schema(root, two_columns);
	/* a codec no writer here produces: refused at open, nothing written */
	assert_null(ts_table_writer_open(local_fs(root), root, bzip2, 1, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"manifest.compression\" = \"bzip2\""));
	assert_int_equal(access(mdir, F_OK), -1);

	w = ts_table_writer_open(local_fs(root), root, deflate, 1, &err);
	if (w == NULL)
		fail_msg("%s", err.msg);
	memset(row, 0, sizeof(row));
	row[0].v.i = 7;
	row[1].isnull = true;
	if (!ts_table_writer_add(w, row, &err) || !ts_table_writer_commit(w, "unit-user", &sid, &err))
		fail_msg("%s", err.msg);
	ts_table_writer_free(w);
	/* every manifest and manifest list says deflate */
	d = opendir(mdir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
	{
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", mdir, de->d_name);
		if (!has_codec(path, "deflate"))
			fail_msg("%s: avro.codec is not deflate", de->d_name);
		nfiles++;
	}
	closedir(d);
	assert_int_equal(nfiles, 3);	/* manifest, base and delta list */
	/* and read back: the file with the row */
	ts_arena_init(&a, 65536);
	s = snapshot(root, sid);
	read_list(root, s->delta_manifest_list, &a, &delta, &ndelta);
	assert_int_equal(ndelta, 1);
	e = read_manifest(root, delta[0].file_name, &a, &ne);
	assert_int_equal(ne, 1);
	assert_int_equal(e[0].file.row_count, 1);
	/* the default stays zstandard */
	commit_row(root, 8, NULL);
	ts_snapshot_free(s);
	s = snapshot(root, sid + 1);
	read_list(root, s->delta_manifest_list, &a, &delta, &ndelta);
	snprintf(path, sizeof(path), "%s/%s", mdir, delta[0].file_name);
	assert_true(has_codec(path, "zstandard"));
	ts_snapshot_free(s);
	ts_arena_free(&a);
	remove_dir(dir);
	(void) state;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selection_rule),
		cmocka_unit_test(test_retry_options),
		cmocka_unit_test(test_commits_merge),
		cmocka_unit_test(test_add_delete_cancel),
		cmocka_unit_test(test_retry_merges_again),
		cmocka_unit_test(test_commit_give_up),
		cmocka_unit_test(test_commit_timeout),
		cmocka_unit_test(test_manifest_compression),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
