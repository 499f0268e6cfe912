/*
 * test_manifest.c - manifest list / manifest / index manifest decoding
 * against the oracle's avro__manifest_* cases (every field they state) and
 * real index manifests, plus error paths (missing, truncated, garbage).
 */
#include "unit.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "avro_fixture.h"

static cJSON *
load_oracle(const char *name)
{
	char		rel[512];
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	cJSON	   *j;

	snprintf(rel, sizeof(rel), "oracle/%s", name);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err));
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	return j;
}

static const char *
testdata_path(const cJSON *oracle)
{
	char		rel[512];
	const cJSON *f = cJSON_GetObjectItem(oracle, "file");

	assert_true(cJSON_IsString(f));
	snprintf(rel, sizeof(rel), "testdata/%s", f->valuestring);
	return unit_shared_path(rel);
}

static int64_t
jint(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_true(cJSON_IsNumber(v));
	return (int64_t) v->valuedouble;
}

static bool
jnull(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_non_null(v);
	return cJSON_IsNull(v);
}

/* ---- manifest lists ---- */

static void
check_manifest_list(const char *case_file)
{
	cJSON	   *o = load_oracle(case_file);
	const cJSON *exp = cJSON_GetObjectItem(o, "expected_manifest_file_metas");
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_file_meta *m;
	int			n,
				i;

	ts_arena_init(&arena, 4096);
	if (!ts_manifest_list_read(ts_fs_local_unconfined(), testdata_path(o), &arena, &m, &n, &err))
		fail_msg("%s: %s", case_file, err.msg);
	assert_int_equal(n, cJSON_GetArraySize(exp));
	for (i = 0; i < n; i++)
	{
		const cJSON *e = cJSON_GetArrayItem(exp, i);

		assert_string_equal(m[i].file_name, cJSON_GetObjectItem(e, "file_name")->valuestring);
		assert_int_equal(m[i].file_size, jint(e, "file_size"));
		assert_int_equal(m[i].num_added_files, jint(e, "num_added_files"));
		assert_int_equal(m[i].num_deleted_files, jint(e, "num_deleted_files"));
		assert_int_equal(m[i].schema_id, jint(e, "schema_id"));
		if (jnull(e, "min_bucket"))
			assert_false(m[i].has_bucket_range);
		else
		{
			assert_true(m[i].has_bucket_range);
			assert_int_equal(m[i].min_bucket, jint(e, "min_bucket"));
			assert_int_equal(m[i].max_bucket, jint(e, "max_bucket"));
		}
		if (jnull(e, "min_level"))
			assert_false(m[i].has_level_range);
		else
		{
			assert_true(m[i].has_level_range);
			assert_int_equal(m[i].min_level, jint(e, "min_level"));
			assert_int_equal(m[i].max_level, jint(e, "max_level"));
		}
		/* "empty (no partition)": stats rows of arity 0 */
		assert_string_equal(cJSON_GetObjectItem(e, "partition_stats")->valuestring,
							"empty (no partition)");
		assert_non_null(m[i].partition_stats.min_values.data);
		assert_int_equal(ts_binary_row_arity(m[i].partition_stats.min_values.data,
											 m[i].partition_stats.min_values.len), 0);
		assert_int_equal(ts_binary_row_arity(m[i].partition_stats.max_values.data,
											 m[i].partition_stats.max_values.len), 0);
	}
	ts_arena_free(&arena);
	cJSON_Delete(o);
}

static void
test_manifest_list_09(void **state)
{
	(void) state;
	check_manifest_list("avro__manifest_list__java_0_9.json");
}

static void
test_manifest_list_11(void **state)
{
	(void) state;
	check_manifest_list("avro__manifest_list__java_1_1.json");
}

/* ---- manifests ---- */

static ts_type *
type_for(const char *name)
{
	ts_type    *t = NULL;

	if (strcmp(name, "BOOLEAN") == 0)
		t = ts_type_new(TS_BOOLEAN, true);
	else if (strcmp(name, "TINYINT") == 0)
		t = ts_type_new(TS_TINYINT, true);
	else if (strcmp(name, "SMALLINT") == 0)
		t = ts_type_new(TS_SMALLINT, true);
	else if (strcmp(name, "INT") == 0)
		t = ts_type_new(TS_INT, true);
	else if (strcmp(name, "BIGINT") == 0)
		t = ts_type_new(TS_BIGINT, true);
	else if (strcmp(name, "FLOAT") == 0)
		t = ts_type_new(TS_FLOAT, true);
	else if (strcmp(name, "DOUBLE") == 0)
		t = ts_type_new(TS_DOUBLE, true);
	else if (strcmp(name, "STRING") == 0)
	{
		t = ts_type_new(TS_VARCHAR, true);
		t->length = TS_STRING_LENGTH;
	}
	else if (strcmp(name, "DATE(days)") == 0)
		t = ts_type_new(TS_DATE, true);
	else if (strncmp(name, "TIMESTAMP(", 10) == 0)
	{
		t = ts_type_new(TS_TIMESTAMP, true);
		t->precision = atoi(name + 10);
	}
	else if (strncmp(name, "DECIMAL(", 8) == 0)
	{
		t = ts_type_new(TS_DECIMAL, true);
		t->precision = atoi(name + 8);
		t->scale = atoi(strchr(name, ',') + 1);
	}
	else
		t = ts_type_new(TS_INT, true);	/* "? (no stats)": min/max are null */
	assert_non_null(t);
	return t;
}

/* unscaled value of a decimal literal like "-0.1234567890" */
static ts_int128
decimal_unscaled(const char *s)
{
	ts_int128	v = 0;
	bool		neg = *s == '-';

	if (neg)
		s++;
	for (; *s; s++)
		if (*s != '.')
			v = v * 10 + (*s - '0');
	return neg ? -v : v;
}

/* "1970-01-01T00:02:03.123123" (epoch day 0 in the test data) -> millis, nanos */
static void
timestamp_parts(const char *s, int64_t *millis, int32_t *nanos)
{
	int			h,
				mi,
				sec;
	const char *frac;
	int64_t		ns = 0;
	int			digits = 0;

	assert_int_equal(strncmp(s, "1970-01-01T", 11), 0);
	assert_int_equal(sscanf(s + 11, "%d:%d:%d", &h, &mi, &sec), 3);
	frac = strchr(s + 11, '.');
	if (frac)
		for (frac++; *frac && digits < 9; frac++, digits++)
			ns = ns * 10 + (*frac - '0');
	for (; digits < 9; digits++)
		ns *= 10;
	*millis = ((int64_t) h * 3600 + mi * 60 + sec) * 1000 + ns / 1000000;
	*nanos = (int32_t) (ns % 1000000);
}

static void
check_stats_value(const ts_type *t, const ts_value *v, const cJSON *e)
{
	if (cJSON_IsNull(e))
	{
		assert_true(v->isnull);
		return;
	}
	assert_false(v->isnull);
	switch (t->kind)
	{
		case TS_BOOLEAN:
			assert_int_equal(v->v.i, cJSON_IsTrue(e) ? 1 : 0);
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
			assert_int_equal(v->v.i, (int64_t) e->valuedouble);
			break;
		case TS_FLOAT:
			assert_true(v->v.f == (float) e->valuedouble);
			break;
		case TS_DOUBLE:
			assert_true(v->v.d == e->valuedouble);
			break;
		case TS_VARCHAR:
			assert_int_equal(v->v.s.len, strlen(e->valuestring));
			assert_memory_equal(v->v.s.p, e->valuestring, v->v.s.len);
			break;
		case TS_DECIMAL:
			assert_true(v->v.dec == decimal_unscaled(e->valuestring));
			break;
		case TS_TIMESTAMP:
			{
				int64_t		ms;
				int32_t		ns;

				timestamp_parts(e->valuestring, &ms, &ns);
				assert_int_equal(v->v.ts.millis, ms);
				assert_int_equal(v->v.ts.nanos, ns);
				break;
			}
		default:
			fail_msg("unexpected stats type");
	}
}

static void
check_value_stats(const ts_simple_stats *st, const cJSON *exp)
{
	const cJSON *types = cJSON_GetObjectItem(exp, "field_types");
	const cJSON *mins = cJSON_GetObjectItem(exp, "min");
	const cJSON *maxs = cJSON_GetObjectItem(exp, "max");
	const cJSON *ncs = cJSON_GetObjectItem(exp, "null_counts");
	int			n = cJSON_GetArraySize(types),
				i,
				arity;
	ts_type   **tv = calloc(n, sizeof(ts_type *));
	ts_value   *minv = calloc(n, sizeof(ts_value));
	ts_value   *maxv = calloc(n, sizeof(ts_value));
	ts_arena	arena;
	ts_err		err = {0};

	ts_arena_init(&arena, 4096);
	for (i = 0; i < n; i++)
		tv[i] = type_for(cJSON_GetArrayItem(types, i)->valuestring);
	if (!ts_binary_row_decode(st->min_values.data, st->min_values.len, (const ts_type *const *) tv,
							  n, minv, &arity, &arena, &err))
		fail_msg("min: %s", err.msg);
	assert_int_equal(arity, n);
	if (!ts_binary_row_decode(st->max_values.data, st->max_values.len, (const ts_type *const *) tv,
							  n, maxv, &arity, &arena, &err))
		fail_msg("max: %s", err.msg);
	for (i = 0; i < n; i++)
	{
		check_stats_value(tv[i], &minv[i], cJSON_GetArrayItem(mins, i));
		check_stats_value(tv[i], &maxv[i], cJSON_GetArrayItem(maxs, i));
	}
	assert_int_equal(st->nnull_counts, cJSON_GetArraySize(ncs));
	for (i = 0; i < st->nnull_counts; i++)
		assert_int_equal(st->null_counts[i], (int64_t) cJSON_GetArrayItem(ncs, i)->valuedouble);
	for (i = 0; i < n; i++)
		ts_type_free(tv[i]);
	free(tv);
	free(minv);
	free(maxv);
	ts_arena_free(&arena);
}

static void
check_manifest(const char *case_file)
{
	cJSON	   *o = load_oracle(case_file);
	const cJSON *exp = cJSON_GetObjectItem(o, "expected_entries");
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_entry *m;
	int			n,
				i;

	ts_arena_init(&arena, 4096);
	if (!ts_manifest_read(ts_fs_local_unconfined(), testdata_path(o), &arena, &m, &n, &err))
		fail_msg("%s: %s", case_file, err.msg);
	assert_int_equal(n, cJSON_GetArraySize(exp));
	for (i = 0; i < n; i++)
	{
		const cJSON *e = cJSON_GetArrayItem(exp, i);
		const ts_data_file_meta *f = &m[i].file;

		assert_int_equal(m[i].kind, strcmp(cJSON_GetObjectItem(e, "kind")->valuestring, "ADD") == 0 ?
						 TS_FILE_ADD : TS_FILE_DELETE);
		/* "partition": {} -> unpartitioned: arity 0 */
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(e, "partition")), 0);
		assert_int_equal(ts_binary_row_arity(m[i].partition.data, m[i].partition.len), 0);
		assert_int_equal(m[i].bucket, jint(e, "bucket"));
		assert_int_equal(m[i].total_buckets, jint(e, "total_buckets"));
		assert_string_equal(f->file_name, cJSON_GetObjectItem(e, "file_name")->valuestring);
		assert_int_equal(f->file_size, jint(e, "file_size"));
		assert_int_equal(f->row_count, jint(e, "row_count"));
		assert_string_equal(cJSON_GetObjectItem(e, "min_key")->valuestring, "empty row");
		assert_int_equal(ts_binary_row_arity(f->min_key.data, f->min_key.len), 0);
		assert_int_equal(ts_binary_row_arity(f->max_key.data, f->max_key.len), 0);
		assert_string_equal(cJSON_GetObjectItem(e, "key_stats")->valuestring, "empty");
		assert_int_equal(ts_binary_row_arity(f->key_stats.min_values.data, f->key_stats.min_values.len), 0);
		assert_int_equal(f->key_stats.nnull_counts, 0);
		check_value_stats(&f->value_stats, cJSON_GetObjectItem(e, "value_stats"));
		assert_int_equal(f->min_sequence_number, jint(e, "min_sequence_number"));
		assert_int_equal(f->max_sequence_number, jint(e, "max_sequence_number"));
		assert_int_equal(f->schema_id, jint(e, "schema_id"));
		assert_int_equal(f->level, jint(e, "level"));
		assert_int_equal(f->nextra_files, cJSON_GetArraySize(cJSON_GetObjectItem(e, "extra_files")));
		assert_true(f->has_creation_time);
		assert_int_equal(f->creation_time_millis, jint(e, "creation_time_epoch_millis"));
		assert_int_equal(f->delete_row_count, jint(e, "delete_row_count"));
		assert_true(jnull(e, "embedded_index"));
		assert_null(f->embedded_file_index.data);
		assert_string_equal(cJSON_GetObjectItem(e, "file_source")->valuestring, "APPEND");
		assert_int_equal(f->file_source, 0);
		assert_true(jnull(e, "value_stats_cols"));
		assert_int_equal(f->nvalue_stats_cols, -1);
		assert_true(jnull(e, "external_path"));
		assert_null(f->external_path);
		assert_true(jnull(e, "first_row_id"));
		assert_false(f->has_first_row_id);
		assert_true(jnull(e, "write_cols"));
		assert_int_equal(f->nwrite_cols, -1);
	}
	/* told how many entries to expect (fewer, exact, more): the same entries */
	for (int hint = n > 1 ? n - 1 : 1; hint <= n + 3; hint += 2)
	{
		ts_manifest_entry *m2;
		int			n2;

		if (!ts_manifest_read_expect(ts_fs_local_unconfined(), testdata_path(o), hint, &arena, &m2, &n2, &err))
			fail_msg("%s (expecting %d): %s", case_file, hint, err.msg);
		assert_int_equal(n2, n);
		for (i = 0; i < n; i++)
		{
			const ts_data_file_meta *a = &m[i].file,
					   *b = &m2[i].file;

			assert_int_equal(m2[i].kind, m[i].kind);
			assert_int_equal(m2[i].bucket, m[i].bucket);
			assert_int_equal(m2[i].partition.len, m[i].partition.len);
			assert_memory_equal(m2[i].partition.data, m[i].partition.data, m[i].partition.len);
			assert_string_equal(b->file_name, a->file_name);
			assert_int_equal(b->file_size, a->file_size);
			assert_int_equal(b->row_count, a->row_count);
			assert_int_equal(b->value_stats.min_values.len, a->value_stats.min_values.len);
			assert_memory_equal(b->value_stats.min_values.data, a->value_stats.min_values.data,
								a->value_stats.min_values.len);
			assert_int_equal(b->value_stats.nnull_counts, a->value_stats.nnull_counts);
			assert_int_equal(b->max_sequence_number, a->max_sequence_number);
			assert_int_equal(b->creation_time_millis, a->creation_time_millis);
		}
	}
	ts_arena_free(&arena);
	cJSON_Delete(o);
}

static void
test_manifest_09(void **state)
{
	(void) state;
	check_manifest("avro__manifest_file__java_0_9.json");
}

static void
test_manifest_11(void **state)
{
	(void) state;
	check_manifest("avro__manifest_file__java_1_1.json");
}

/* ---- index manifests ---- */

/*
 * parquet/pk_09 (Java 0.9, ["null", record] schema without _CARDINALITY):
 * the oracle case parquet__pk_09__read_p10_b0_snapshot6_with_dv names the
 * DVs of two data files in index file index-ff7801ad-...-0 at offsets 31
 * and 1, length 22, cardinality null.
 */
static void
test_index_manifest_09(void **state)
{
	cJSON	   *o = load_oracle("parquet__pk_09__read_p10_b0_snapshot6_with_dv.json");
	const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "read_splits"), 0);
	const cJSON *files = cJSON_GetObjectItem(rs, "files");
	const cJSON *dvs = cJSON_GetObjectItem(rs, "deletion_files");
	const char *dir = unit_shared_path("testdata/parquet/pk_09.db/pk_09/manifest");
	char	  **names;
	int			nnames,
				i,
				found = 0;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_list_dir(ts_fs_local_unconfined(), dir, &names, &nnames, &err));
	for (i = 0; i < nnames; i++)
	{
		char		path[4096];
		ts_arena	arena;
		ts_index_manifest_entry *ie;
		int			n;

		if (strncmp(names[i], "index-manifest-", 15) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ts_arena_init(&arena, 4096);
		if (!ts_index_manifest_read(ts_fs_local_unconfined(), path, &arena, &ie, &n, &err))
			fail_msg("%s", err.msg);
		for (int k = 0; k < n; k++)
		{
			assert_true(strcmp(ie[k].index_type, "DELETION_VECTORS") == 0 ||
						strcmp(ie[k].index_type, "HASH") == 0);
			assert_null(ie[k].external_path);
			for (int r = 0; r < ie[k].ndv_ranges; r++)
				for (int f = 0; f < cJSON_GetArraySize(files); f++)
				{
					const cJSON *dv = cJSON_GetArrayItem(dvs, f);
					const char *want;

					if (cJSON_IsNull(dv) ||
						strcmp(ie[k].dv_ranges[r].data_file,
							   cJSON_GetArrayItem(files, f)->valuestring) != 0)
						continue;
					want = strrchr(cJSON_GetObjectItem(dv, "path")->valuestring, '/') + 1;
					if (strcmp(ie[k].file_name, want) != 0)
						continue;
					assert_int_equal(ie[k].dv_ranges[r].offset, jint(dv, "offset"));
					assert_int_equal(ie[k].dv_ranges[r].length, jint(dv, "length"));
					assert_true(jnull(dv, "cardinality"));
					assert_int_equal(ie[k].dv_ranges[r].cardinality, -1);
					found++;
				}
		}
		ts_arena_free(&arena);
	}
	ts_free_names(names, nnames);
	assert_int_equal(found, 2);
	cJSON_Delete(o);
}

/*
 * pk_dv_index_in_data_with_external (1.x schema with _CARDINALITY and
 * _EXTERNAL_PATH): PAIMON-FORMAT.md 7.6 states the DV of data file
 * data-851c...-0 is at offset 1, length 22, cardinality 1 in index file
 * index-770f...-0 whose external path is FILE:/tmp/external/f1=10/bucket-0/...
 */
static void
test_index_manifest_external(void **state)
{
	const char *dir = unit_shared_path("testdata/parquet/pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external/manifest");
	char	  **names;
	int			nnames,
				i,
				found = 0;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_list_dir(ts_fs_local_unconfined(), dir, &names, &nnames, &err));
	for (i = 0; i < nnames; i++)
	{
		char		path[4096];
		ts_arena	arena;
		ts_index_manifest_entry *ie;
		int			n;

		if (strncmp(names[i], "index-manifest-", 15) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ts_arena_init(&arena, 4096);
		if (!ts_index_manifest_read(ts_fs_local_unconfined(), path, &arena, &ie, &n, &err))
			fail_msg("%s", err.msg);
		for (int k = 0; k < n; k++)
			if (strncmp(ie[k].file_name, "index-770fb595-864b-4f3c-b921-a32972f01df0-0", 44) == 0)
			{
				assert_string_equal(ie[k].index_type, "DELETION_VECTORS");
				assert_int_equal(ie[k].file_size, 31);	/* file is 31 bytes */
				assert_non_null(ie[k].external_path);
				assert_int_equal(strncmp(ie[k].external_path, "FILE:/tmp/external/f1=10/bucket-0/index-770f", 44), 0);
				assert_int_equal(ie[k].ndv_ranges, 1);
				assert_int_equal(strncmp(ie[k].dv_ranges[0].data_file, "data-851c16e1-cb99-4a36-8b24-b58bb3e94d19-", 42), 0);
				assert_int_equal(ie[k].dv_ranges[0].offset, 1);
				assert_int_equal(ie[k].dv_ranges[0].length, 22);
				assert_int_equal(ie[k].dv_ranges[0].cardinality, 1);
				found++;
			}
		ts_arena_free(&arena);
	}
	ts_free_names(names, nnames);
	assert_int_equal(found, 1);
}

/* ---- errors ---- */

static void
test_missing_file(void **state)
{
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_entry *m;
	int			n;

	(void) state;
	ts_arena_init(&arena, 4096);
	assert_false(ts_manifest_read(ts_fs_local_unconfined(), "/nonexistent/manifest-x", &arena, &m, &n, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "/nonexistent/manifest-x"));
	ts_arena_free(&arena);
}

/* Every truncation of a real manifest fails cleanly (or, if whole blocks remain, reads a prefix). */
static void
test_truncated(void **state)
{
	const char *src = unit_shared_path("testdata/avro/manifest/avro_manifest_11");
	uint8_t    *data;
	size_t		len,
				cut;
	ts_err		err = {0};
	char		tmp[] = "/tmp/ts_manifest_trunc_XXXXXX";
	int			fd = mkstemp(tmp);

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), src, &data, &len, &err));
	for (cut = 0; cut < len; cut += (cut < 64 ? 1 : 7))
	{
		FILE	   *f = fopen(tmp, "wb");
		ts_arena	arena;
		ts_manifest_entry *m;
		int			n;

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, cut, f), cut);
		fclose(f);
		ts_arena_init(&arena, 4096);
		memset(&err, 0, sizeof(err));
		if (!ts_manifest_read(ts_fs_local_unconfined(), tmp, &arena, &m, &n, &err))
		{
			assert_int_not_equal(err.code, TS_OK);
			assert_non_null(strstr(err.msg, tmp));
		}
		else
			assert_true(n <= 1);
		ts_arena_free(&arena);
	}
	/* a data file is not a manifest: wrong records */
	ts_free(data);
	unlink(tmp);
}

/* A manifest list read as a manifest misses required fields: clean error. */
static void
test_wrong_kind(void **state)
{
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_entry *m;
	int			n;
	const char *p = unit_shared_path("testdata/avro/manifest/avro_manifest_list_11");

	(void) state;
	ts_arena_init(&arena, 4096);
	assert_false(ts_manifest_read(ts_fs_local_unconfined(), p, &arena, &m, &n, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, p));
	ts_arena_free(&arena);
}

/* ---- fixtures written with our Avro writer ---- */

/* Write rows with an explicit writer schema to a temp file; returns its path. */
static char *
write_avro(const char *schema_json, const ts_value *rows, int nrows, int ncols)
{
	return unit_write_avro("ts_manifest_fixture_", schema_json, rows, nrows, ncols);
}

static ts_value
vint(int64_t i)
{
	ts_value	v;

	memset(&v, 0, sizeof(v));
	v.v.i = i;
	return v;
}

static ts_value
vstr(const char *s)
{
	ts_value	v;

	memset(&v, 0, sizeof(v));
	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = strlen(s);
	return v;
}

static ts_value
vnull(void)
{
	ts_value	v;

	memset(&v, 0, sizeof(v));
	v.isnull = true;
	return v;
}

/* Manifest list in the 0.9 shape (no bucket/level ranges), _VERSION as given. */
#define ML09_SCHEMA "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":[" \
	"{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_FILE_NAME\",\"type\":\"string\"}," \
	"{\"name\":\"_FILE_SIZE\",\"type\":\"long\"},{\"name\":\"_NUM_ADDED_FILES\",\"type\":\"long\"}," \
	"{\"name\":\"_NUM_DELETED_FILES\",\"type\":\"long\"},{\"name\":\"_PARTITION_STATS\",\"type\":[\"null\"," \
	"{\"type\":\"record\",\"name\":\"record__PARTITION_STATS\",\"fields\":[{\"name\":\"_MIN_VALUES\",\"type\":\"bytes\"}," \
	"{\"name\":\"_MAX_VALUES\",\"type\":\"bytes\"},{\"name\":\"_NULL_COUNTS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],\"default\":null}]}],\"default\":null}," \
	"{\"name\":\"_SCHEMA_ID\",\"type\":\"long\"}]}"

static void
test_version_check(void **state)
{
	ts_value	row[7];
	char	   *path;
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_file_meta *m;
	int			n;

	(void) state;
	row[0] = vint(2);
	row[1] = vstr("manifest-abc-0");
	row[2] = vint(1234);
	row[3] = vint(3);
	row[4] = vint(1);
	row[5] = vnull();
	row[6] = vint(7);
	path = write_avro(ML09_SCHEMA, row, 1, 7);
	ts_arena_init(&arena, 4096);
	if (!ts_manifest_list_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].file_name, "manifest-abc-0");
	assert_int_equal(m[0].file_size, 1234);
	assert_int_equal(m[0].num_added_files, 3);
	assert_int_equal(m[0].num_deleted_files, 1);
	assert_int_equal(m[0].schema_id, 7);
	assert_null(m[0].partition_stats.min_values.data);
	assert_int_equal(m[0].partition_stats.nnull_counts, -1);
	assert_false(m[0].has_bucket_range);
	assert_false(m[0].has_level_range);
	unlink(path);
	free(path);

	/* _VERSION 3 is refused, naming the file */
	row[0] = vint(3);
	path = write_avro(ML09_SCHEMA, row, 1, 7);
	assert_false(ts_manifest_list_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "_VERSION 3"));
	unlink(path);
	free(path);

	/* _VERSION 1 (pre-Paimon table store) is refused with a hint */
	row[0] = vint(1);
	path = write_avro(ML09_SCHEMA, row, 1, 7);
	assert_false(ts_manifest_list_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "recreated"));
	unlink(path);
	free(path);
	ts_arena_free(&arena);
}

#define IM_SCHEMA "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":[" \
	"{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_KIND\",\"type\":\"int\"},{\"name\":\"_PARTITION\",\"type\":\"bytes\"}," \
	"{\"name\":\"_BUCKET\",\"type\":\"int\"},{\"name\":\"_INDEX_TYPE\",\"type\":\"string\"},{\"name\":\"_FILE_NAME\",\"type\":\"string\"}," \
	"{\"name\":\"_FILE_SIZE\",\"type\":\"long\"},{\"name\":\"_ROW_COUNT\",\"type\":\"long\"}]}"

/* An index manifest without _DELETIONS_VECTORS_RANGES (HASH index): ranges null; bad _KIND refused. */
static void
test_index_manifest_fixture(void **state)
{
	ts_value	row[8];
	uint8_t		part[12] = {0, 0, 0, 0};
	char	   *path;
	ts_arena	arena;
	ts_err		err = {0};
	ts_index_manifest_entry *ie;
	int			n;

	(void) state;
	row[0] = vint(1);
	row[1] = vint(0);
	memset(&row[2], 0, sizeof(ts_value));
	row[2].v.s.p = part;
	row[2].v.s.len = 12;
	row[3] = vint(4);
	row[4] = vstr("HASH");
	row[5] = vstr("index-x-0");
	row[6] = vint(40);
	row[7] = vint(10);
	path = write_avro(IM_SCHEMA, row, 1, 8);
	ts_arena_init(&arena, 4096);
	if (!ts_index_manifest_read(ts_fs_local_unconfined(), path, &arena, &ie, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 1);
	assert_int_equal(ie[0].kind, TS_FILE_ADD);
	assert_int_equal(ie[0].partition.len, 12);
	assert_int_equal(ie[0].bucket, 4);
	assert_string_equal(ie[0].index_type, "HASH");
	assert_string_equal(ie[0].file_name, "index-x-0");
	assert_int_equal(ie[0].file_size, 40);
	assert_int_equal(ie[0].row_count, 10);
	assert_int_equal(ie[0].ndv_ranges, -1);
	assert_null(ie[0].external_path);
	unlink(path);
	free(path);

	row[1] = vint(5);
	path = write_avro(IM_SCHEMA, row, 1, 8);
	assert_false(ts_index_manifest_read(ts_fs_local_unconfined(), path, &arena, &ie, &n, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "_KIND"));
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	free(path);
	ts_arena_free(&arena);
}

/* format.c references readers weakly: pull the Avro reader out of the archive */
ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_list_09),
		cmocka_unit_test(test_manifest_list_11),
		cmocka_unit_test(test_manifest_09),
		cmocka_unit_test(test_manifest_11),
		cmocka_unit_test(test_index_manifest_09),
		cmocka_unit_test(test_index_manifest_external),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_wrong_kind),
		cmocka_unit_test(test_version_check),
		cmocka_unit_test(test_index_manifest_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
