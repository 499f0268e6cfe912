/*
 * test_bucket.c - bucket functions against Java-computed results.
 *
 * Reproduces every row of oracle/bucket_vectors.json (15,010 rows: Java
 * FixedBucketRowKeyExtractor buckets of paimon-cpp's record_*_for_bucket_id
 * data with 12345 buckets, TestVariantType extremes, unaware -1 /
 * postpone -2), plus the Java unit-test results quoted in
 * PAIMON-FORMAT.md 6.4-6.6 (FixedBucketRowKeyExtractorTest,
 * ModBucketFunction javadoc, HiveBucketFunctionTest).
 */
#include "unit.h"

#include "base/ts_fs.h"
#include "meta/binary_row.h"
#include "meta/bucket.h"
#include "meta/meta_json.h"
#include "meta/partition.h"
#include "meta/schema.h"

/* Build a value of type t from one oracle JSON item. */
static bool
value_from_json(const cJSON *j, const ts_type *t, ts_value *v, char *why, size_t whylen)
{
	ts_err		err;
	int64_t		i64;

	memset(v, 0, sizeof(*v));
	if (j == NULL || cJSON_IsNull(j))
	{
		v->isnull = true;
		return true;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			v->v.i = cJSON_IsTrue(j) ? 1 : 0;
			return cJSON_IsBool(j);
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
			if (!ts_json_item_int64(j, &i64))
				break;
			v->v.i = i64;
			return true;
		case TS_FLOAT:
			if (!cJSON_IsNumber(j))
				break;
			v->v.f = (float) j->valuedouble;
			return true;
		case TS_DOUBLE:
			if (!cJSON_IsNumber(j))
				break;
			v->v.d = j->valuedouble;
			return true;
		case TS_DECIMAL:
			if (!cJSON_IsString(j))
				break;
			/*
			 * Parse with precision 38: two TestVariantType extremes hold 38
			 * digits in a DECIMAL(30, 20) column, and paimon-cpp writes such
			 * an unscaled value as is (its non-compact bytes fit 16 bytes).
			 */
			if (!ts_parse_decimal_text(j->valuestring, strlen(j->valuestring),
									   38, t->scale, &v->v.dec, &err))
			{
				snprintf(why, whylen, "%s", err.msg);
				return false;
			}
			return true;
		case TS_VARCHAR:
		case TS_VARBINARY:
			if (!cJSON_IsString(j))
				break;
			v->v.s.p = (const uint8_t *) j->valuestring;
			v->v.s.len = (uint32_t) strlen(j->valuestring);
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (cJSON_IsString(j) && !ts_json_item_int64(j, &i64))
			{
				if (!ts_parse_timestamp_text(j->valuestring, strlen(j->valuestring),
											 &v->v.ts.millis, &v->v.ts.nanos, &err))
				{
					snprintf(why, whylen, "%s", err.msg);
					return false;
				}
				return true;
			}
			/* epoch nanoseconds, floor-split into millis + nanos of milli */
			if (!ts_json_item_int64(j, &i64))
				break;
			v->v.ts.millis = i64 / 1000000;
			v->v.ts.nanos = (int32_t) (i64 % 1000000);
			if (v->v.ts.nanos < 0)
			{
				v->v.ts.millis--;
				v->v.ts.nanos += 1000000;
			}
			return true;
		default:
			break;
	}
	snprintf(why, whylen, "cannot build a %s value from the JSON item", ts_type_kind_name(t->kind));
	return false;
}

static void
test_bucket_vectors(void **state)
{
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	cJSON	   *root;
	const cJSON *row;
	int			total = 0,
				mismatches = 0,
				failures = 0;

	(void) state;
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path("oracle/bucket_vectors.json"), &data, &len, &err));
	root = ts_json_parse((const char *) data, len, "bucket_vectors.json", &err);
	assert_non_null(root);
	assert_true(cJSON_IsArray(root));

	cJSON_ArrayForEach(row, root)
	{
		const cJSON *types = cJSON_GetObjectItem(row, "types");
		const cJSON *values = cJSON_GetObjectItem(row, "values");
		int64_t		nb = 0,
					expected = 0;
		int			n = cJSON_GetArraySize(types);
		ts_type    *tps[16] = {0};
		ts_value	vals[16];
		int32_t		bucket = -999;
		char		why[1200] = "";
		bool		ok = n <= 16 && n == cJSON_GetArraySize(values);

		assert_true(ts_json_item_int64(cJSON_GetObjectItem(row, "num_buckets"), &nb));
		assert_true(ts_json_item_int64(cJSON_GetObjectItem(row, "bucket"), &expected));
		for (int i = 0; ok && i < n; i++)
		{
			tps[i] = ts_type_parse(cJSON_GetArrayItem(types, i)->valuestring, &err);
			if (tps[i] == NULL)
			{
				snprintf(why, sizeof(why), "type: %s", err.msg);
				ok = false;
				break;
			}
			ok = value_from_json(cJSON_GetArrayItem(values, i), tps[i], &vals[i], why, sizeof(why));
		}
		if (ok)
			ok = ts_bucket_compute(TS_BUCKET_FN_DEFAULT, (const ts_type *const *) tps, vals, n,
								   (int32_t) nb, &bucket, &err);
		if (!ok)
		{
			if (failures++ < 5)
				print_message("row %d: failed: %s %s\n", total, why, err.msg);
		}
		else if (bucket != expected)
		{
			if (mismatches < 5)
				print_message("row %d (%s): bucket %d, Java %lld\n", total,
							  cJSON_GetObjectItem(row, "source_file")->valuestring,
							  (int) bucket, (long long) expected);
			mismatches++;
		}
		for (int i = 0; i < n && i < 16; i++)
			ts_type_free(tps[i]);
		total++;
	}
	print_message("bucket vectors: %d rows, %d mismatches, %d failures\n", total, mismatches, failures);
	assert_int_equal(total, 15010);
	assert_int_equal(failures, 0);
	assert_int_equal(mismatches, 0);
	cJSON_Delete(root);
	ts_free(data);
}

static int32_t
int_key_bucket(const int32_t *keys, int n, int32_t nb)
{
	ts_type    *t = ts_type_new(TS_INT, true);
	const ts_type *tps[3] = {t, t, t};
	ts_value	v[3];
	int32_t		b = -1;
	ts_err		err;

	memset(v, 0, sizeof(v));
	for (int i = 0; i < n; i++)
		v[i].v.i = keys[i];
	assert_true(ts_bucket_compute(TS_BUCKET_FN_DEFAULT, tps, v, n, nb, &b, &err));
	ts_type_free(t);
	return b;
}

/* FixedBucketRowKeyExtractorTest: (a,b,c) = (5,6,7), 100 buckets. */
static void
test_java_fixed_bucket_extractor(void **state)
{
	int32_t		k[3] = {5, 6, 7};

	(void) state;
	assert_int_equal(int_key_bucket(k, 1, 100), 96);
	assert_int_equal(int_key_bucket(k, 2, 100), 27);
	assert_int_equal(int_key_bucket(k, 3, 100), 40);
}

/* ModBucketFunction javadoc (numBuckets 5): 17 -> 2, -3 -> 2, 5 -> 0. */
static void
test_mod_bucket(void **state)
{
	ts_type    *ti = ts_type_new(TS_INT, true);
	ts_type    *tb = ts_type_new(TS_BIGINT, true);
	ts_type    *ts = ts_type_new(TS_VARCHAR, true);
	const ts_type *tps[1];
	ts_value	v;
	int32_t		b;
	ts_err		err;
	int64_t		in[3] = {17, -3, 5};
	int32_t		out[3] = {2, 2, 0};
	ts_bucket_function fn;

	(void) state;
	assert_true(ts_bucket_function_parse("mod", &fn, &err));
	assert_int_equal(fn, TS_BUCKET_FN_MOD);
	assert_false(ts_bucket_function_parse("bogus", &fn, &err));
	for (int i = 0; i < 3; i++)
	{
		memset(&v, 0, sizeof(v));
		v.v.i = in[i];
		tps[0] = ti;
		assert_true(ts_bucket_compute(TS_BUCKET_FN_MOD, tps, &v, 1, 5, &b, &err));
		assert_int_equal(b, out[i]);
		tps[0] = tb;
		assert_true(ts_bucket_compute(TS_BUCKET_FN_MOD, tps, &v, 1, 5, &b, &err));
		assert_int_equal(b, out[i]);
	}
	tps[0] = ts;
	assert_false(ts_bucket_compute(TS_BUCKET_FN_MOD, tps, &v, 1, 5, &b, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	ts_type_free(ti);
	ts_type_free(tb);
	ts_type_free(ts);
}

/*
 * HiveBucketFunctionTest: (INT 7, STRING 'hello', BYTES {1,2,3},
 * DECIMAL(10,4) 12.3400), 8 buckets -> bucket 1.
 */
static void
test_hive_bucket(void **state)
{
	ts_err		err;
	ts_type    *t[4];
	ts_value	v[4];
	static const uint8_t bytes[3] = {1, 2, 3};
	int32_t		b = -1;

	(void) state;
	t[0] = ts_type_parse("INT", &err);
	t[1] = ts_type_parse("STRING", &err);
	t[2] = ts_type_parse("BYTES", &err);
	t[3] = ts_type_parse("DECIMAL(10, 4)", &err);
	memset(v, 0, sizeof(v));
	v[0].v.i = 7;
	v[1].v.s.p = (const uint8_t *) "hello";
	v[1].v.s.len = 5;
	v[2].v.s.p = bytes;
	v[2].v.s.len = 3;
	assert_true(ts_parse_decimal_text("12.3400", 7, 10, 4, &v[3].v.dec, &err));
	assert_true(ts_bucket_compute(TS_BUCKET_FN_HIVE, (const ts_type *const *) t, v, 4, 8, &b, &err));
	assert_int_equal(b, 1);
	/* timestamps are not Hive-hashable */
	ts_type_free(t[3]);
	t[3] = ts_type_parse("TIMESTAMP(3)", &err);
	assert_false(ts_bucket_compute(TS_BUCKET_FN_HIVE, (const ts_type *const *) t, v, 4, 8, &b, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	for (int i = 0; i < 4; i++)
		ts_type_free(t[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_vectors),
		cmocka_unit_test(test_java_fixed_bucket_extractor),
		cmocka_unit_test(test_mod_bucket),
		cmocka_unit_test(test_hive_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
