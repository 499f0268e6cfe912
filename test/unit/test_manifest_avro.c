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
 * corrupt copies: both ways fail, neither crashes; and hand-written
 * 0.8-style manifests with nulls everywhere: null fields and elements and
 * absent fields read alike, a null required field fails alike.
 */
#define _XOPEN_SOURCE 700
#include "unit.h"

#include <ftw.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "avro_fixture.h"
#include "meta/manifest.h"
#include "meta/manifest_avro.h"
#include "manifest_equal.h"

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

	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err));
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
	ok = ts_manifest_read_kept(ts_fs_local_unconfined(), path, 0, shared_keep, &a, &x, &n, &e);
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
	ok1 = k == K_LIST ? ts_manifest_list_read(ts_fs_local_unconfined(), path, &a1, (ts_manifest_file_meta **) &x1, &n1, &e1) :
		k == K_MANIFEST ? ts_manifest_read(ts_fs_local_unconfined(), path, &a1, (ts_manifest_entry **) &x1, &n1, &e1) :
		ts_index_manifest_read(ts_fs_local_unconfined(), path, &a1, (ts_index_manifest_entry **) &x1, &n1, &e1);
	ts_manifest_use_compiled_avro(false);
	ok2 = k == K_LIST ? ts_manifest_list_read(ts_fs_local_unconfined(), path, &a2, (ts_manifest_file_meta **) &x2, &n2, &e2) :
		k == K_MANIFEST ? ts_manifest_read(ts_fs_local_unconfined(), path, &a2, (ts_manifest_entry **) &x2, &n2, &e2) :
		ts_index_manifest_read(ts_fs_local_unconfined(), path, &a2, (ts_index_manifest_entry **) &x2, &n2, &e2);
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
	r = ts_meta_avro_open(ts_fs_local_unconfined(), path, cols, 3, &mine, &err);
	if (r == NULL)
		fail_msg("%s: not taken by the compiled path (%s)", path, err.msg);
	ts_meta_avro_close(r);
	/* manifests: their entries are decoded straight into the structs */
	if (strncmp(base, "manifest-list-", 14) != 0 && !ts_manifest_decodes_direct(ts_fs_local_unconfined(), path))
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
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), first_manifest, &data, &len, &err));
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

/* ---- hand-written manifests: nulls where a field must have a value ---- */

/*
 * A 0.8-style manifest (every field a ["null", T] union, fields added later
 * absent), written with our Avro writer.
 */
#define N(t) "[\"null\"," t "]"
#define F(name, t) "{\"name\":\"" name "\",\"type\":" N(t) ",\"default\":null}"
#define STATS(name) "{\"type\":\"record\",\"name\":\"" name "\",\"fields\":[" \
	F("_MIN_VALUES", "\"bytes\"") "," F("_MAX_VALUES", "\"bytes\"") "," \
	F("_NULL_COUNTS", "{\"type\":\"array\",\"items\":" N("\"long\"") "}") "]}"
#define ME08_SCHEMA "{\"type\":\"record\",\"name\":\"record\",\"fields\":[" \
	"{\"name\":\"_VERSION\",\"type\":\"int\"}," F("_KIND", "\"int\"") "," \
	F("_PARTITION", "\"bytes\"") "," F("_BUCKET", "\"int\"") "," F("_TOTAL_BUCKETS", "\"int\"") "," \
	F("_FILE", "{\"type\":\"record\",\"name\":\"record__FILE\",\"fields\":[" \
	  F("_FILE_NAME", "\"string\"") "," F("_FILE_SIZE", "\"long\"") "," F("_ROW_COUNT", "\"long\"") "," \
	  F("_MIN_KEY", "\"bytes\"") "," F("_MAX_KEY", "\"bytes\"") "," \
	  F("_KEY_STATS", STATS("record__KEY_STATS")) "," F("_VALUE_STATS", STATS("record__VALUE_STATS")) "," \
	  F("_MIN_SEQUENCE_NUMBER", "\"long\"") "," F("_MAX_SEQUENCE_NUMBER", "\"long\"") "," \
	  F("_SCHEMA_ID", "\"long\"") "," F("_LEVEL", "\"int\"") "," \
	  F("_EXTRA_FILES", "{\"type\":\"array\",\"items\":" N("\"string\"") "}") "," \
	  F("_CREATION_TIME", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}") "," \
	  F("_DELETE_ROW_COUNT", "\"long\"") "," F("_FILE_SOURCE", "\"int\"") "]}") "]}"

enum
{
	R_VERSION, R_KIND, R_PARTITION, R_BUCKET, R_TOTAL_BUCKETS, R_FILE, R_NCOLS
};
enum
{
	D_FILE_NAME, D_FILE_SIZE, D_ROW_COUNT, D_MIN_KEY, D_MAX_KEY, D_KEY_STATS, D_VALUE_STATS,
	D_MIN_SEQ, D_MAX_SEQ, D_SCHEMA_ID, D_LEVEL, D_EXTRA_FILES, D_CREATION_TIME,
	D_DELETE_ROW_COUNT, D_FILE_SOURCE, D_NFIELDS
};

static ts_value
v_int(int64_t i)
{
	ts_value	v = {0};

	v.v.i = i;
	return v;
}

static ts_value
v_str(const char *s)
{
	ts_value	v = {0};

	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = (uint32_t) strlen(s);
	return v;
}

static ts_value
v_null(void)
{
	ts_value	v = {0};

	v.isnull = true;
	return v;
}

static ts_value
v_nested(ts_value *items, int n)
{
	ts_value	v = {0};

	v.v.nested.items = items;
	v.v.nested.n = n;
	return v;
}

/* One row, written; its path (free it). */
static char *
write_manifest(const ts_value *row)
{
	return unit_write_avro("ts_manifest_avro_nulls_", ME08_SCHEMA, row, 1, -1);
}

/* Read 'path' both ways: the same entries or the same error; ok or not as 'want_ok'. */
static void
read_both_ways(const char *path, bool want_ok, const char *want_field,
			   void (*check) (const ts_manifest_entry *e))
{
	ts_arena	a1,
				a2;
	ts_err		e1 = {0},
				e2 = {0};
	ts_manifest_entry *x1,
			   *x2;
	int			n1,
				n2;
	bool		ok1,
				ok2;

	assert_true(ts_manifest_decodes_direct(ts_fs_local_unconfined(), path));
	ts_arena_init(&a1, 0);
	ts_arena_init(&a2, 0);
	ok1 = ts_manifest_read(ts_fs_local_unconfined(), path, &a1, &x1, &n1, &e1);
	ts_manifest_use_compiled_avro(false);
	ok2 = ts_manifest_read(ts_fs_local_unconfined(), path, &a2, &x2, &n2, &e2);
	ts_manifest_use_compiled_avro(true);
	if (ok1 != want_ok || ok2 != want_ok)
		fail_msg("%s: direct %s (%s), generic %s (%s)", path, ok1 ? "ok" : "failed", e1.msg,
				 ok2 ? "ok" : "failed", e2.msg);
	if (ok1)
	{
		assert_int_equal(n1, 1);
		assert_int_equal(n2, 1);
		same_entry(&x1[0], &x2[0]);
		check(&x1[0]);
	}
	else
	{
		char		field[64];

		assert_string_equal(e1.msg, e2.msg);
		assert_int_equal(e1.code, TS_ERR_CORRUPT);
		snprintf(field, sizeof(field), "required field %s", want_field);
		if (strstr(e1.msg, field) == NULL)
			fail_msg("\"%s\" does not name %s", e1.msg, want_field);
	}
	ts_arena_free(&a1);
	ts_arena_free(&a2);
}

static void
check_full(const ts_manifest_entry *e)
{
	const ts_data_file_meta *f = &e->file;

	assert_int_equal(e->kind, TS_FILE_DELETE);
	assert_int_equal(e->partition.len, 3);
	assert_int_equal(e->bucket, 5);
	assert_int_equal(e->total_buckets, 16);
	assert_string_equal(f->file_name, "data-0.orc");
	assert_int_equal(f->file_size, 1000);
	assert_int_equal(f->row_count, 10);
	assert_int_equal(f->nextra_files, 2);
	assert_string_equal(f->extra_files[0], "x.index");
	assert_string_equal(f->extra_files[1], "");	/* a null element */
	assert_int_equal(f->value_stats.nnull_counts, 3);
	assert_int_equal(f->value_stats.null_counts[1], -1);	/* a null element */
	assert_int_equal(f->value_stats.null_counts[2], 300);
	assert_int_equal(f->key_stats.nnull_counts, 0);
	assert_true(f->has_creation_time);
	assert_int_equal(f->creation_time_millis, 1700000000123);
	assert_int_equal(f->delete_row_count, 2);
	assert_int_equal(f->file_source, -3);	/* a TINYINT: 253 read as -3 */
	/* fields this writer did not have */
	assert_null(f->embedded_file_index.data);
	assert_int_equal(f->nvalue_stats_cols, -1);
	assert_null(f->external_path);
	assert_false(f->has_first_row_id);
	assert_int_equal(f->nwrite_cols, -1);
}

static void
check_nulls(const ts_manifest_entry *e)
{
	const ts_data_file_meta *f = &e->file;

	assert_int_equal(e->kind, TS_FILE_ADD);
	assert_null(f->min_key.data);
	assert_null(f->key_stats.min_values.data);
	assert_int_equal(f->key_stats.nnull_counts, -1);
	assert_non_null(f->value_stats.min_values.data);
	assert_int_equal(f->value_stats.min_values.len, 0);
	assert_int_equal(f->value_stats.nnull_counts, -1);
	assert_int_equal(f->nextra_files, 0);
	assert_false(f->has_creation_time);
	assert_int_equal(f->delete_row_count, -1);
	assert_int_equal(f->file_source, -1);
}

/*
 * Entries decoded straight into their structs read as the generic reader
 * reads them: every field set, null fields and elements, fields the writer
 * lacks; a null where a value is required fails alike, naming the first
 * such field in the order the generic conversion checks them.
 */
static void
test_nulls_direct_and_generic(void **state)
{
	ts_value	key_stats[3],
				value_stats[3],
				counts[3],
				extra[2],
				file[D_NFIELDS],
				row[R_NCOLS];
	ts_value	ts = {0};
	char	   *path;
	static const struct
	{
		int			top;		/* R_ column set null, or -1 */
		int			nested;		/* D_ field set null, or -1 */
		const char *field;
	}			missing[] = {
		{R_KIND, -1, "_KIND"},
		{R_PARTITION, -1, "_PARTITION"},
		{R_BUCKET, D_FILE_NAME, "_BUCKET"},
		{R_TOTAL_BUCKETS, -1, "_TOTAL_BUCKETS"},
		{R_FILE, -1, "_FILE"},
		{-1, D_FILE_NAME, "_FILE_NAME"},
		{-1, D_FILE_SIZE, "_FILE_SIZE"},
		{-1, D_ROW_COUNT, "_ROW_COUNT"},
		{-1, D_MIN_SEQ, "_MIN_SEQUENCE_NUMBER"},
		{-1, D_MAX_SEQ, "_MAX_SEQUENCE_NUMBER"},
		{-1, D_SCHEMA_ID, "_SCHEMA_ID"},
		{-1, D_LEVEL, "_LEVEL"},
	};

	(void) state;
	counts[0] = v_int(0);
	counts[1] = v_null();
	counts[2] = v_int(300);
	key_stats[0] = v_str("k");
	key_stats[1] = v_str("kk");
	key_stats[2] = v_nested(NULL, 0);
	value_stats[0] = v_str("");
	value_stats[1] = v_str("max");
	value_stats[2] = v_nested(counts, 3);
	extra[0] = v_str("x.index");
	extra[1] = v_null();
	ts.v.ts.millis = 1700000000123;
	file[D_FILE_NAME] = v_str("data-0.orc");
	file[D_FILE_SIZE] = v_int(1000);
	file[D_ROW_COUNT] = v_int(10);
	file[D_MIN_KEY] = v_str("a");
	file[D_MAX_KEY] = v_str("z");
	file[D_KEY_STATS] = v_nested(key_stats, 3);
	file[D_VALUE_STATS] = v_nested(value_stats, 3);
	file[D_MIN_SEQ] = v_int(1);
	file[D_MAX_SEQ] = v_int(9);
	file[D_SCHEMA_ID] = v_int(0);
	file[D_LEVEL] = v_int(2);
	file[D_EXTRA_FILES] = v_nested(extra, 2);
	file[D_CREATION_TIME] = ts;
	file[D_DELETE_ROW_COUNT] = v_int(2);
	file[D_FILE_SOURCE] = v_int(253);
	row[R_VERSION] = v_int(2);
	row[R_KIND] = v_int(1);
	row[R_PARTITION] = v_str("p=1");
	row[R_BUCKET] = v_int(5);
	row[R_TOTAL_BUCKETS] = v_int(16);
	row[R_FILE] = v_nested(file, D_NFIELDS);
	path = write_manifest(row);
	read_both_ways(path, true, NULL, check_full);
	unlink(path);
	free(path);

	/* the optional fields null */
	row[R_KIND] = v_int(0);
	file[D_MIN_KEY] = v_null();
	file[D_KEY_STATS] = v_null();
	value_stats[2] = v_null();
	file[D_EXTRA_FILES] = v_null();
	file[D_CREATION_TIME] = v_null();
	file[D_DELETE_ROW_COUNT] = v_null();
	file[D_FILE_SOURCE] = v_null();
	path = write_manifest(row);
	read_both_ways(path, true, NULL, check_nulls);
	unlink(path);
	free(path);

	/* a required field null (and, once, a later one too: the first is named) */
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
	{
		ts_value	saved_top = {0},
					saved_nested = {0};

		if (missing[i].top >= 0)
		{
			saved_top = row[missing[i].top];
			row[missing[i].top] = v_null();
		}
		if (missing[i].nested >= 0)
		{
			saved_nested = file[missing[i].nested];
			file[missing[i].nested] = v_null();
		}
		path = write_manifest(row);
		read_both_ways(path, false, missing[i].field, NULL);
		unlink(path);
		free(path);
		if (missing[i].top >= 0)
			row[missing[i].top] = saved_top;
		if (missing[i].nested >= 0)
			file[missing[i].nested] = saved_nested;
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_tables_read_alike),
		cmocka_unit_test(test_compiled_path_takes_real_files),
		cmocka_unit_test(test_corrupt_copies),
		cmocka_unit_test(test_nulls_direct_and_generic),
	};

	int			failed = cmocka_run_group_tests(tests, NULL, NULL);

	ts_manifest_keep_free(shared_keep);
	return failed;
}
