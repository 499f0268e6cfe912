/*
 * test_manifest_avro.c - the compiled Avro path of manifest reading
 * (src/meta/manifest_avro.c) gives exactly what the generic reader gives:
 * every manifest list, manifest and index manifest of the shared real
 * tables (Paimon 0.8 to 1.3 writers: nullable-union records, fields added
 * in later versions) is read both ways and compared field by field (and
 * manifests a third way: compiled, with the schema and program kept from
 * the manifest read before); the compiled path must take every Avro
 * manifest and manifest list, and decode the entries of every Avro
 * manifest straight into their structs (the path compared above).  Plus
 * corrupt copies: both ways fail, neither crashes.
 */
#define _XOPEN_SOURCE 700
#include "unit.h"

#include <ftw.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/manifest.h"
#include "meta/manifest_avro.h"

static void
same_bytes(ts_bytes a, ts_bytes b)
{
	assert_int_equal(a.data == NULL, b.data == NULL);
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.data, b.data, a.len);
}

static void
same_str(const char *a, const char *b)
{
	assert_int_equal(a == NULL, b == NULL);
	if (a)
		assert_string_equal(a, b);
}

static void
same_strs(int na, char **a, int nb, char **b)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		same_str(a[i], b[i]);
}

static void
same_stats(const ts_simple_stats *a, const ts_simple_stats *b)
{
	same_bytes(a->min_values, b->min_values);
	same_bytes(a->max_values, b->max_values);
	assert_int_equal(a->nnull_counts, b->nnull_counts);
	for (int i = 0; i < a->nnull_counts; i++)
		assert_int_equal(a->null_counts[i], b->null_counts[i]);
}

static void
same_entry(const ts_manifest_entry *a, const ts_manifest_entry *b)
{
	const ts_data_file_meta *f = &a->file,
			   *g = &b->file;

	assert_int_equal(a->kind, b->kind);
	same_bytes(a->partition, b->partition);
	assert_int_equal(a->bucket, b->bucket);
	assert_int_equal(a->total_buckets, b->total_buckets);
	same_str(f->file_name, g->file_name);
	assert_int_equal(f->file_size, g->file_size);
	assert_int_equal(f->row_count, g->row_count);
	same_bytes(f->min_key, g->min_key);
	same_bytes(f->max_key, g->max_key);
	same_stats(&f->key_stats, &g->key_stats);
	same_stats(&f->value_stats, &g->value_stats);
	assert_int_equal(f->min_sequence_number, g->min_sequence_number);
	assert_int_equal(f->max_sequence_number, g->max_sequence_number);
	assert_int_equal(f->schema_id, g->schema_id);
	assert_int_equal(f->level, g->level);
	same_strs(f->nextra_files, f->extra_files, g->nextra_files, g->extra_files);
	assert_int_equal(f->has_creation_time, g->has_creation_time);
	assert_int_equal(f->creation_time_millis, g->creation_time_millis);
	assert_int_equal(f->delete_row_count, g->delete_row_count);
	same_bytes(f->embedded_file_index, g->embedded_file_index);
	assert_int_equal(f->file_source, g->file_source);
	same_strs(f->nvalue_stats_cols, f->value_stats_cols, g->nvalue_stats_cols, g->value_stats_cols);
	same_str(f->external_path, g->external_path);
	assert_int_equal(f->has_first_row_id, g->has_first_row_id);
	assert_int_equal(f->first_row_id, g->first_row_id);
	same_strs(f->nwrite_cols, f->write_cols, g->nwrite_cols, g->write_cols);
}

static void
same_meta(const ts_manifest_file_meta *a, const ts_manifest_file_meta *b)
{
	same_str(a->file_name, b->file_name);
	assert_int_equal(a->file_size, b->file_size);
	assert_int_equal(a->num_added_files, b->num_added_files);
	assert_int_equal(a->num_deleted_files, b->num_deleted_files);
	same_stats(&a->partition_stats, &b->partition_stats);
	assert_int_equal(a->schema_id, b->schema_id);
	assert_int_equal(a->has_bucket_range, b->has_bucket_range);
	assert_int_equal(a->min_bucket, b->min_bucket);
	assert_int_equal(a->max_bucket, b->max_bucket);
	assert_int_equal(a->has_level_range, b->has_level_range);
	assert_int_equal(a->min_level, b->min_level);
	assert_int_equal(a->max_level, b->max_level);
}

static void
same_index(const ts_index_manifest_entry *a, const ts_index_manifest_entry *b)
{
	assert_int_equal(a->kind, b->kind);
	same_bytes(a->partition, b->partition);
	assert_int_equal(a->bucket, b->bucket);
	same_str(a->index_type, b->index_type);
	same_str(a->file_name, b->file_name);
	assert_int_equal(a->file_size, b->file_size);
	assert_int_equal(a->row_count, b->row_count);
	assert_int_equal(a->ndv_ranges, b->ndv_ranges);
	for (int i = 0; i < a->ndv_ranges; i++)
	{
		same_str(a->dv_ranges[i].data_file, b->dv_ranges[i].data_file);
		assert_int_equal(a->dv_ranges[i].offset, b->dv_ranges[i].offset);
		assert_int_equal(a->dv_ranges[i].length, b->dv_ranges[i].length);
		assert_int_equal(a->dv_ranges[i].cardinality, b->dv_ranges[i].cardinality);
	}
	same_str(a->external_path, b->external_path);
}

typedef enum file_kind
{
	K_LIST, K_MANIFEST, K_INDEX
} file_kind;

/* what the walk saw */
static int	nfiles[3],
			navro[3];

static bool
is_avro(const char *path)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	bool		avro;

	assert_true(ts_read_whole_file(path, &data, &len, &err));
	avro = len >= 4 && memcmp(data, "Obj\x01", 4) == 0;
	ts_free(data);
	return avro;
}

/*
 * One keep for every manifest the tests read, in walk order: tables of
 * different writers follow one another, so a kept schema and program are
 * reused (the same schema text) or replaced; either way a manifest must
 * read as the generic reader reads it.
 */
static ts_manifest_keep *shared_keep;

static void
compare_kept(const char *path, bool ok2, const ts_manifest_entry *x2, int n2, const ts_err *e2)
{
	ts_arena	a;
	ts_err		e = {0};
	ts_manifest_entry *x;
	int			n;
	bool		ok;

	if (shared_keep == NULL)
		assert_non_null(shared_keep = ts_manifest_keep_new());
	ts_arena_init(&a, 0);
	ok = ts_manifest_read_kept(path, 0, shared_keep, &a, &x, &n, &e);
	if (ok != ok2)
		fail_msg("%s: kept %s (%s), generic %s (%s)", path, ok ? "ok" : "failed", e.msg,
				 ok2 ? "ok" : "failed", e2->msg);
	if (ok)
	{
		assert_int_equal(n, n2);
		for (int i = 0; i < n; i++)
			same_entry(&x[i], &x2[i]);
	}
	else
		assert_string_equal(e.msg, e2->msg);
	ts_arena_free(&a);
}

static void
compare_file(const char *path, file_kind k)
{
	ts_arena	a1,
				a2;
	ts_err		e1 = {0},
				e2 = {0};
	void	   *x1,
			   *x2;
	int			n1,
				n2;
	bool		ok1,
				ok2;

	ts_arena_init(&a1, 0);
	ts_arena_init(&a2, 0);
	ts_manifest_use_compiled_avro(true);
	ok1 = k == K_LIST ? ts_manifest_list_read(path, &a1, (ts_manifest_file_meta **) &x1, &n1, &e1) :
		k == K_MANIFEST ? ts_manifest_read(path, &a1, (ts_manifest_entry **) &x1, &n1, &e1) :
		ts_index_manifest_read(path, &a1, (ts_index_manifest_entry **) &x1, &n1, &e1);
	ts_manifest_use_compiled_avro(false);
	ok2 = k == K_LIST ? ts_manifest_list_read(path, &a2, (ts_manifest_file_meta **) &x2, &n2, &e2) :
		k == K_MANIFEST ? ts_manifest_read(path, &a2, (ts_manifest_entry **) &x2, &n2, &e2) :
		ts_index_manifest_read(path, &a2, (ts_index_manifest_entry **) &x2, &n2, &e2);
	ts_manifest_use_compiled_avro(true);
	if (ok1 != ok2)
		fail_msg("%s: compiled %s (%s), generic %s (%s)", path, ok1 ? "ok" : "failed", e1.msg,
				 ok2 ? "ok" : "failed", e2.msg);
	if (ok1)
	{
		assert_int_equal(n1, n2);
		for (int i = 0; i < n1; i++)
		{
			if (k == K_LIST)
				same_meta(&((ts_manifest_file_meta *) x1)[i], &((ts_manifest_file_meta *) x2)[i]);
			else if (k == K_MANIFEST)
				same_entry(&((ts_manifest_entry *) x1)[i], &((ts_manifest_entry *) x2)[i]);
			else
				same_index(&((ts_index_manifest_entry *) x1)[i], &((ts_index_manifest_entry *) x2)[i]);
		}
	}
	else
		assert_string_equal(e1.msg, e2.msg);
	if (k == K_MANIFEST)
		compare_kept(path, ok2, x2, n2, &e2);
	ts_arena_free(&a1);
	ts_arena_free(&a2);
}

static int
visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	file_kind	k;

	(void) sb;
	if (type != FTW_F || strstr(path, "/manifest/") == NULL)
		return 0;
	if (strncmp(base, "manifest-list-", 14) == 0)
		k = K_LIST;
	else if (strncmp(base, "index-manifest-", 15) == 0)
		k = K_INDEX;
	else if (strncmp(base, "manifest-", 9) == 0)
		k = K_MANIFEST;
	else
		return 0;
	nfiles[k]++;
	compare_file(path, k);
	if (is_avro(path))
		navro[k]++;
	return 0;
}

static void
test_real_tables_read_alike(void **state)
{
	(void) state;
	assert_int_equal(nftw(unit_shared_path("testdata"), visit, 16, FTW_PHYS), 0);
	printf("manifest lists %d (avro %d), manifests %d (avro %d), index manifests %d (avro %d)\n",
		   nfiles[K_LIST], navro[K_LIST], nfiles[K_MANIFEST], navro[K_MANIFEST],
		   nfiles[K_INDEX], navro[K_INDEX]);
	assert_true(nfiles[K_LIST] > 100);
	assert_true(nfiles[K_MANIFEST] > 100);
	assert_true(navro[K_MANIFEST] > 50);
	assert_true(nfiles[K_INDEX] > 0);
}

/* The compiled path takes every Avro manifest list and manifest of the real tables. */
static int
visit_fast(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	static ts_type t_int = {.kind = TS_INT, .nullable = true};
	static ts_type t_bytes = {.kind = TS_VARBINARY, .nullable = true, .length = TS_STRING_LENGTH};
	static ts_type t_bigint = {.kind = TS_BIGINT, .nullable = true};
	static const ts_read_column cols[] = {
		{-1, "_VERSION", &t_int}, {-1, "_PARTITION", &t_bytes}, {-1, "_FILE_SIZE", &t_bigint},
	};
	ts_meta_avro *r;
	ts_err		err = {0};
	bool		mine;

	(void) sb;
	if (type != FTW_F || strstr(path, "/manifest/") == NULL ||
		strncmp(base, "index-manifest-", 15) == 0 || strncmp(base, "manifest-", 9) != 0 ||
		!is_avro(path))
		return 0;
	r = ts_meta_avro_open(path, cols, 3, &mine, &err);
	if (r == NULL)
		fail_msg("%s: not taken by the compiled path (%s)", path, err.msg);
	ts_meta_avro_close(r);
	/* manifests: their entries are decoded straight into the structs */
	if (strncmp(base, "manifest-list-", 14) != 0 && !ts_manifest_decodes_direct(path))
		fail_msg("%s: entries not decoded straight into their structs", path);
	return 0;
}

static void
test_compiled_path_takes_real_files(void **state)
{
	(void) state;
	assert_int_equal(nftw(unit_shared_path("testdata"), visit_fast, 16, FTW_PHYS), 0);
}

/* Truncated and bit-flipped copies of a real manifest: both paths fail or agree. */
static char first_manifest[4096];

static int
find_manifest(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void) sb;
	if (type == FTW_F && strstr(path, "/manifest/") && strncmp(path + ftw->base, "manifest-", 9) == 0 &&
		strncmp(path + ftw->base, "manifest-list-", 14) != 0 && is_avro(path))
	{
		snprintf(first_manifest, sizeof(first_manifest), "%s", path);
		return 1;
	}
	return 0;
}

static void
test_corrupt_copies(void **state)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	char		tmp[] = "/tmp/ts_manifest_avro_XXXXXX";
	int			fd;

	(void) state;
	assert_int_equal(nftw(unit_shared_path("testdata"), find_manifest, 16, FTW_PHYS), 1);
	assert_true(ts_read_whole_file(first_manifest, &data, &len, &err));
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	for (size_t cut = 0; cut < len; cut += len / 40 + 1)
	{
		FILE	   *f = fopen(tmp, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, cut, f), cut);
		fclose(f);
		compare_file(tmp, K_MANIFEST);
	}
	for (size_t pos = 0; pos < len; pos += len / 60 + 1)
	{
		FILE	   *f = fopen(tmp, "wb");

		data[pos] ^= 0x5a;
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, len, f), len);
		fclose(f);
		compare_file(tmp, K_MANIFEST);
		data[pos] ^= 0x5a;
	}
	unlink(tmp);
	ts_free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_tables_read_alike),
		cmocka_unit_test(test_compiled_path_takes_real_files),
		cmocka_unit_test(test_corrupt_copies),
	};

	int			failed = cmocka_run_group_tests(tests, NULL, NULL);

	ts_manifest_keep_free(shared_keep);
	return failed;
}
