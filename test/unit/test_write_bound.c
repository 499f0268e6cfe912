/*
 * test_write_bound.c - a write into many partitions and buckets, without a
 * server.
 *
 * The hash index finds entries whose hashes collide by the caller's
 * equality, across its growth.  A table writer bounded to 2 open data
 * files writing rows round-robin into 5 partitions never holds more than
 * 2 files (nor descriptors) open, and writes the same rows as an unbounded
 * one, in several files per bucket whose sequence numbers follow each other
 * in the order written (fixed buckets too; so are the uncommitted files a
 * scan of the same transaction reads).  An aborted write removes the
 * partition and bucket directories it created and left empty, and no
 * other: not one that was there before, empty or not; a committed write
 * keeps its directories.
 */
#include "unit.h"
#include "unit_fs.h"

#include <dirent.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_fs_write.h"
#include "base/ts_hash_index.h"
#include "format/format.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write_schema.h"

/* ---- the hash index ------------------------------------------------------- */

static const char *const KEYS[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
	"k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"};

static bool
key_is(void *arg, int32_t pos)
{
	return strcmp(KEYS[pos], (const char *) arg) == 0;
}

static void
test_hash_index_collisions(void **state)
{
	ts_hash_index ix;
	ts_err		err;
	int			n = (int) (sizeof(KEYS) / sizeof(KEYS[0]));

	ts_hash_index_init(&ix);
	assert_int_equal(ts_hash_index_find(&ix, 7, key_is, (void *) "a"), -1);
	/* every key under one of two hashes: found by equality, through several growths */
	for (int i = 0; i < n; i++)
	{
		assert_true(ts_hash_index_add(&ix, (uint64_t) (i % 2), i, &err));
		for (int j = 0; j <= i; j++)
			assert_int_equal(ts_hash_index_find(&ix, (uint64_t) (j % 2), key_is, (void *) KEYS[j]), j);
	}
	assert_true(ix.cap >= 2 * ix.n);
	/* the right key under the wrong hash, and an absent key under a used hash: not found */
	assert_int_equal(ts_hash_index_find(&ix, 1, key_is, (void *) "a"), -1);
	assert_int_equal(ts_hash_index_find(&ix, 0, key_is, (void *) "zz"), -1);
	ts_hash_index_free(&ix);
	assert_int_equal(ts_hash_index_find(&ix, 0, key_is, (void *) "a"), -1);
}

/* ---- the bound on open files ---------------------------------------------- */

#define NPART 5
#define NROWS 100

static int
open_fds(void)
{
	return count_entries("/proc/self/fd", "");
}

static ts_table_writer *
open_writer(const char *root, const char *bucket)
{
	char		json[1024];
	ts_err		err;
	ts_table_writer *w;

	snprintf(json, sizeof(json), "{\"version\": 3, \"id\": 0, \"fields\": ["
			 "{\"id\": 0, \"name\": \"p\", \"type\": \"INT\"},"
			 "{\"id\": 1, \"name\": \"id\", \"type\": \"INT NOT NULL\"}],"
			 "\"highestFieldId\": 1, \"partitionKeys\": [\"p\"], \"primaryKeys\": [],"
			 "\"options\": {\"bucket\": \"%s\", \"bucket-key\": \"id\", \"file.format\": \"parquet\"}}",
			 bucket);
	if (strcmp(bucket, "-1") == 0)
		snprintf(json, sizeof(json), "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"p\", \"type\": \"INT\"},"
				 "{\"id\": 1, \"name\": \"id\", \"type\": \"INT NOT NULL\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [\"p\"], \"primaryKeys\": [],"
				 "\"options\": {\"bucket\": \"-1\", \"file.format\": \"parquet\"}}");
	write_schema(root, json);
	w = ts_table_writer_open(local_fs(root), root, NULL, 0, &err);
	if (w == NULL)
		fail_msg("%s", err.msg);
	return w;
}

/* rows id 0..NROWS-1 into partition id % NPART, round-robin; at most bound files open */
static void
add_rows(ts_table_writer *w, int bound)
{
	ts_err		err;
	int			fds = open_fds();

	for (int i = 0; i < NROWS; i++)
	{
		ts_value	row[2];

		memset(row, 0, sizeof(row));
		row[0].v.i = i % NPART;
		row[1].v.i = i;
		if (!ts_table_writer_add(w, row, &err))
			fail_msg("%s", err.msg);
		if (bound > 0)
		{
			assert_true(ts_table_writer_open_files(w) <= bound);
			assert_true(open_fds() <= fds + bound);
		}
	}
}

typedef struct seen
{
	int			files[NPART][4];	/* per partition and bucket */
	int			id_count[NROWS];
	int64_t		extra_files; /* files opened again for a bucket the bound had finished */
} seen;

/*
 * Read snapshot 1 of root: every data file's rows (p, id) into s, checking
 * that each row's partition is its file's, and that the files of a bucket
 * number their rows on from 0 without gap or overlap, in the order written.
 */
static void
read_back(const char *root, seen *s)
{
	ts_err		err;
	ts_snapshot *snap = ts_snapshot_load(ts_fs_local_unconfined(), root, 1, &err);
	ts_schema  *schema = ts_schema_load(ts_fs_local_unconfined(), root, 0, &err);
	ts_arena	a;
	ts_manifest_file_meta *metas;
	int			nmetas;
	char		path[1024];
	int64_t		next_seq[NPART][4];
	const ts_type *ptype[1];

	assert_non_null(snap);
	assert_non_null(schema);
	ptype[0] = schema->fields[0].type;
	memset(s, 0, sizeof(*s));
	memset(next_seq, 0, sizeof(next_seq));
	ts_arena_init(&a, 65536);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, snap->delta_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &metas, &nmetas, &err));
	for (int m = 0; m < nmetas; m++)
	{
		ts_manifest_entry *e;
		int			ne;

		snprintf(path, sizeof(path), "%s/manifest/%s", root, metas[m].file_name);
		assert_true(ts_manifest_read(ts_fs_local_unconfined(), path, &a, &e, &ne, &err));
		for (int k = 0; k < ne; k++)
		{
			ts_value	pv;
			ts_read_column cols[2];
			ts_format_reader *r;
			ts_batch	batch;
			int			got;
			int64_t		rows = 0;

			assert_true(ts_binary_row_decode(e[k].partition.data, e[k].partition.len, ptype, 1,
											 &pv, NULL, &a, &err));
			assert_in_range(pv.v.i, 0, NPART - 1);
			assert_in_range(e[k].bucket, 0, 3);
			s->files[pv.v.i][e[k].bucket]++;
			assert_int_equal(e[k].file.min_sequence_number, next_seq[pv.v.i][e[k].bucket]);
			assert_int_equal(e[k].file.max_sequence_number,
							 e[k].file.min_sequence_number + e[k].file.row_count - 1);
			next_seq[pv.v.i][e[k].bucket] = e[k].file.max_sequence_number + 1;
			for (int c = 0; c < 2; c++)
			{
				cols[c].field_id = schema->fields[c].id;
				cols[c].name = schema->fields[c].name;
				cols[c].type = schema->fields[c].type;
			}
			snprintf(path, sizeof(path), "%s/p=%d/bucket-%d/%s", root, (int) pv.v.i, e[k].bucket,
					 e[k].file.file_name);
			r = ts_format_open(TS_FORMAT_UNKNOWN, path, cols, 2, unit_local_read(), &err);
			if (r == NULL)
				fail_msg("%s", err.msg);
			while ((got = ts_format_next(r, &batch, &err)) > 0)
				for (int i = 0; i < got; i++)
				{
					const ts_value *row = batch.values + (size_t) i * ts_batch_stride(&batch);

					assert_int_equal(row[0].v.i, pv.v.i);
					assert_in_range(row[1].v.i, 0, NROWS - 1);
					assert_int_equal(row[1].v.i % NPART, pv.v.i);
					s->id_count[row[1].v.i]++;
					rows++;
				}
			assert_int_equal(got, 0);
			assert_int_equal(rows, e[k].file.row_count);
			ts_format_close(r);
		}
	}
	ts_arena_free(&a);
	ts_schema_free(schema);
	ts_snapshot_free(snap);
}

/*
 * The files w finished, as a scan of the same transaction reads them
 * (ts_table_writer_pending_entries): each bucket's numbered from 0 on, in
 * the order written, as the commit numbers them after the committed rows.
 */
static void
pending_numbered(ts_table_writer *w, const char *root)
{
	ts_err		err;
	ts_arena	a;
	ts_manifest_entry *e;
	int64_t		next_seq[NPART][4];
	int64_t		rows = 0;
	ts_schema  *schema = ts_schema_load(ts_fs_local_unconfined(), root, 0, &err);
	const ts_type *ptype[1];

	assert_non_null(schema);
	ptype[0] = schema->fields[0].type;
	memset(next_seq, 0, sizeof(next_seq));
	assert_true(ts_table_writer_flush(w, &err));
	ts_arena_init(&a, 65536);
	assert_true(ts_table_writer_pending_entries(w, ts_table_writer_files(w), &a, &e, &err));
	for (int k = 0; k < ts_table_writer_files(w); k++)
	{
		ts_value	pv;

		assert_true(ts_binary_row_decode(e[k].partition.data, e[k].partition.len, ptype, 1, &pv,
										 NULL, &a, &err));
		assert_int_equal(e[k].file.min_sequence_number, next_seq[pv.v.i][e[k].bucket]);
		next_seq[pv.v.i][e[k].bucket] += e[k].file.row_count;
		rows += e[k].file.row_count;
	}
	assert_int_equal(rows, NROWS);
	ts_arena_free(&a);
	ts_schema_free(schema);
}

/* Write NROWS rows with this bound (0: none) into a new table; read them back. */
static void
write_bounded(const char *bucket, int bound, seen *s)
{
	char	   *dir = scratch_dir();
	char		root[600];
	ts_table_writer *w;
	ts_err		err;
	int64_t		id;
	int64_t		early;

	snprintf(root, sizeof(root), "%s/t", dir);
	w = open_writer(root, bucket);
	ts_table_writer_set_max_open_files(w, bound);
	add_rows(w, bound);
	pending_numbered(w, root);
	early = ts_table_writer_bound_extra_files(w);
	if (!ts_table_writer_commit(w, "unit-user", &id, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(id, 1);
	assert_int_equal(ts_table_writer_open_files(w), 0);
	ts_table_writer_free(w);
	read_back(root, s);
	s->extra_files = early;
	free(dir);
}

static void
test_bound_of_two_over_five_partitions(void **state)
{
	seen		free_run,
				bounded;
	int			files = 0;

	write_bounded("-1", 0, &free_run);
	write_bounded("-1", 2, &bounded);
	for (int i = 0; i < NROWS; i++)
	{
		assert_int_equal(free_run.id_count[i], 1);
		assert_int_equal(bounded.id_count[i], 1);
	}
	for (int p = 0; p < NPART; p++)
	{
		assert_int_equal(free_run.files[p][0], 1);
		/* round-robin over 5 with 2 open: every row finds its file finished */
		assert_int_equal(bounded.files[p][0], NROWS / NPART);
		files += bounded.files[p][0];
	}
	assert_int_equal(files, NROWS);
	/* every file after a partition's first was opened because the bound finished the one before */
	assert_int_equal(free_run.extra_files, 0);
	assert_int_equal(bounded.extra_files, NROWS - NPART);
}

static void
test_bound_with_fixed_buckets(void **state)
{
	seen		free_run,
				bounded;
	int			more = 0;

	write_bounded("4", 0, &free_run);
	write_bounded("4", 3, &bounded);
	for (int i = 0; i < NROWS; i++)
		assert_int_equal(bounded.id_count[i], 1);
	for (int p = 0; p < NPART; p++)
		for (int b = 0; b < 4; b++)
		{
			assert_true(free_run.files[p][b] <= 1);
			assert_true(bounded.files[p][b] >= free_run.files[p][b]);
			more += bounded.files[p][b] > 1;
		}
	assert_true(more > 0);
}

/* ---- the directories of an aborted write ---------------------------------- */

static bool
exists(const char *root, const char *rel)
{
	char		path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) == 0;
}

static void
test_abort_removes_created_dirs(void **state)
{
	char	   *dir = scratch_dir();
	char		root[600],
				path[1024];
	ts_table_writer *w;
	ts_err		err;
	int64_t		id;
	FILE	   *f;

	snprintf(root, sizeof(root), "%s/t", dir);
	w = open_writer(root, "-1");
	/* someone else's: p=1 with an empty bucket-0, p=2/bucket-0 holding a file */
	snprintf(path, sizeof(path), "%s/p=1", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/p=1/bucket-0", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/p=2", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/p=2/bucket-0", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/p=2/bucket-0/other", root);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	ts_table_writer_set_max_open_files(w, 2);
	add_rows(w, 2);				/* files finished in every partition, two still open */
	assert_true(exists(root, "p=0/bucket-0"));
	assert_true(exists(root, "p=4/bucket-0"));
	ts_table_writer_abort(w);
	assert_false(exists(root, "p=0"));
	assert_false(exists(root, "p=3"));
	assert_false(exists(root, "p=4"));
	assert_true(exists(root, "p=1/bucket-0"));	/* empty, but not ours */
	assert_true(exists(root, "p=2/bucket-0/other"));
	assert_int_equal(count_entries(root, "p="), 2);
	assert_true(exists(root, "schema/schema-0"));

	/* a committed write keeps its directories */
	w = open_writer(root, "-1");
	add_rows(w, 0);
	if (!ts_table_writer_commit(w, "unit-user", &id, &err))
		fail_msg("%s", err.msg);
	ts_table_writer_free(w);
	assert_int_equal(count_entries(root, "p="), NPART);
	assert_true(exists(root, "p=0/bucket-0"));
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_index_collisions),
		cmocka_unit_test(test_bound_of_two_over_five_partitions),
		cmocka_unit_test(test_bound_with_fixed_buckets),
		cmocka_unit_test(test_abort_removes_created_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
