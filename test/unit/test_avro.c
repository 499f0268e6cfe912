/*
 * test_avro.c - the Avro reader and writer against real Java-written files.
 *
 * (a) data files of the oracle (avro_all_types, avro_with_null, the
 *     multiple-timestamp-precision table) compared value by value with the
 *     oracle JSON; (b) the four Java manifests / manifest lists decoded
 *     generically by column name and compared with the oracle; (c) write
 *     then read every type with every codec; (d) corrupt files give errors.
 */
#define _GNU_SOURCE
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>

#include <cjson/cJSON.h>
#include <zstd.h>

#include "base/ts_background.h"
#include "format/format.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_flat.h"
#include "format/avro/avro_schema.h"
#include "format/avro/avro_writer.h"

/* ---- tiny type pool (freed at exit so LeakSanitizer stays quiet) ------ */

#define POOL_MAX 4096
static void *pool[POOL_MAX];
static int	npool;

static void *
palloc0(size_t n)
{
	void	   *p = calloc(1, n);

	assert_non_null(p);
	assert_true(npool < POOL_MAX);
	pool[npool++] = p;
	return p;
}

static void
pool_free(void)
{
	while (npool > 0)
		free(pool[--npool]);
}

static ts_type *
T(ts_type_kind k)
{
	ts_type    *t = palloc0(sizeof(ts_type));

	t->kind = k;
	t->nullable = true;
	if (k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	return t;
}

static ts_type *
T_nn(ts_type_kind k)
{
	ts_type    *t = T(k);

	t->nullable = false;
	return t;
}

static ts_type *
T_p(ts_type_kind k, int p, int s)
{
	ts_type    *t = T(k);

	t->precision = p;
	t->scale = s;
	if (k == TS_CHAR || k == TS_BINARY || k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = p;
	return t;
}

static ts_type *
T_array(ts_type *e)
{
	ts_type    *t = T(TS_ARRAY);

	t->element = e;
	return t;
}

static ts_type *
T_multiset(ts_type *e)
{
	ts_type    *t = T(TS_MULTISET);

	t->element = e;
	return t;
}

static ts_type *
T_map(ts_type *k, ts_type *v)
{
	ts_type    *t = T(TS_MAP);

	t->key = k;
	t->value = v;
	return t;
}

/* ROW from "name", type, "name", type ..., NULL */
static ts_type *
T_row(const char *name,...)
{
	ts_type    *t = T(TS_ROW);
	va_list		ap;
	const char *n = name;

	t->fields = palloc0(sizeof(ts_field) * 32);
	va_start(ap, name);
	while (n)
	{
		assert_true(t->nfields < 32);
		t->fields[t->nfields].id = -1;
		t->fields[t->nfields].name = (char *) n;
		t->fields[t->nfields].type = va_arg(ap, ts_type *);
		t->nfields++;
		n = va_arg(ap, const char *);
	}
	va_end(ap);
	return t;
}

/* ---- oracle helpers --------------------------------------------------- */

static cJSON *
load_json(const char *rel)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err;
	cJSON	   *j;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err))
		fail_msg("cannot read %s: %s", rel, err.msg);
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	return j;
}

static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t		era;
	unsigned	yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned) (y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t) doe - 719468;
}

/* "YYYY-MM-DD[ T]HH:MM[:SS[.f*]][Z]" -> millis + nanos-in-milli */
static void
parse_ts(const char *s, int64_t *millis, int32_t *nanos)
{
	int			y,
				mo,
				d,
				h = 0,
				mi = 0,
				sec = 0,
				n = 0;
	int64_t		frac_ns = 0;
	const char *p;

	assert_true(sscanf(s, "%d-%d-%d%*c%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) >= 5);
	p = strchr(s, '.');
	if (p)
	{
		int			digits = 0;

		p++;
		while (*p >= '0' && *p <= '9')
		{
			if (digits < 9)
				frac_ns = frac_ns * 10 + (*p - '0');
			digits++;
			p++;
		}
		for (; digits < 9; digits++)
			frac_ns *= 10;
	}
	*millis = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 1000 + frac_ns / 1000000;
	*nanos = (int32_t) (frac_ns % 1000000);
}

static ts_int128
parse_decimal(const char *s, int scale)
{
	ts_int128	v = 0;
	bool		neg = false;
	int			frac = -1;

	if (*s == '-')
	{
		neg = true;
		s++;
	}
	for (; *s; s++)
	{
		if (*s == '.')
		{
			frac = 0;
			continue;
		}
		assert_true(*s >= '0' && *s <= '9');
		v = v * 10 + (*s - '0');
		if (frac >= 0)
			frac++;
	}
	if (frac < 0)
		frac = 0;
	assert_true(frac <= scale);
	for (; frac < scale; frac++)
		v *= 10;
	return neg ? -v : v;
}

static void
check_value(const ts_value *v, const ts_type *t, const cJSON *e, const char *where)
{
	if (cJSON_IsNull(e))
	{
		if (!v->isnull)
			fail_msg("%s: expected NULL", where);
		return;
	}
	if (v->isnull)
		fail_msg("%s: unexpected NULL", where);
	switch (t->kind)
	{
		case TS_BOOLEAN:
			assert_true(cJSON_IsBool(e));
			if ((v->v.i != 0) != cJSON_IsTrue(e))
				fail_msg("%s: boolean mismatch", where);
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_TIME:
			assert_true(cJSON_IsNumber(e));
			if (v->v.i != (int64_t) e->valuedouble)
				fail_msg("%s: %lld != %.0f", where, (long long) v->v.i, e->valuedouble);
			break;
		case TS_DATE:
			if (cJSON_IsString(e))
			{
				int			y,
							m,
							d;

				assert_int_equal(sscanf(e->valuestring, "%d-%d-%d", &y, &m, &d), 3);
				assert_int_equal(v->v.i, days_from_civil(y, m, d));
			}
			else
				assert_int_equal(v->v.i, (int64_t) e->valuedouble);
			break;
		case TS_FLOAT:
			assert_true(cJSON_IsNumber(e));
			if (v->v.f != (float) e->valuedouble)
				fail_msg("%s: %g != %g", where, v->v.f, (float) e->valuedouble);
			break;
		case TS_DOUBLE:
			assert_true(cJSON_IsNumber(e));
			if (v->v.d != e->valuedouble)
				fail_msg("%s: %.17g != %.17g", where, v->v.d, e->valuedouble);
			break;
		case TS_DECIMAL:
			assert_true(cJSON_IsString(e));
			if (v->v.dec != parse_decimal(e->valuestring, t->scale))
				fail_msg("%s: decimal mismatch (expected %s)", where, e->valuestring);
			break;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			assert_true(cJSON_IsString(e));
			if (v->v.s.len != strlen(e->valuestring) ||
				memcmp(v->v.s.p, e->valuestring, v->v.s.len) != 0)
				fail_msg("%s: \"%.*s\" != \"%s\"", where, (int) v->v.s.len, v->v.s.p, e->valuestring);
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		ms;
				int32_t		ns;

				assert_true(cJSON_IsString(e));
				parse_ts(e->valuestring, &ms, &ns);
				if (v->v.ts.millis != ms || v->v.ts.nanos != ns)
					fail_msg("%s: timestamp %lld.%06d != %s", where, (long long) v->v.ts.millis,
							 v->v.ts.nanos, e->valuestring);
			}
			break;
		case TS_ARRAY:
		case TS_MULTISET:
			{
				char		sub[256];

				assert_true(cJSON_IsArray(e));
				if (v->v.nested.n != cJSON_GetArraySize(e))
					fail_msg("%s: %d elements, expected %d", where, v->v.nested.n, cJSON_GetArraySize(e));
				for (int i = 0; i < v->v.nested.n; i++)
				{
					snprintf(sub, sizeof(sub), "%s[%d]", where, i);
					check_value(&v->v.nested.items[i], t->element, cJSON_GetArrayItem(e, i), sub);
				}
			}
			break;
		case TS_MAP:
			{
				char		sub[256];

				assert_true(cJSON_IsArray(e));
				assert_int_equal(v->v.nested.n, cJSON_GetArraySize(e));
				for (int i = 0; i < v->v.nested.n; i++)
				{
					const cJSON *pair = cJSON_GetArrayItem(e, i);

					snprintf(sub, sizeof(sub), "%s{key %d}", where, i);
					check_value(&v->v.nested.items[2 * i], t->key, cJSON_GetArrayItem(pair, 0), sub);
					snprintf(sub, sizeof(sub), "%s{value %d}", where, i);
					check_value(&v->v.nested.items[2 * i + 1], t->value, cJSON_GetArrayItem(pair, 1), sub);
				}
			}
			break;
		case TS_ROW:
			{
				char		sub[256];

				assert_int_equal(v->v.nested.n, t->nfields);
				for (int i = 0; i < t->nfields; i++)
				{
					const cJSON *fe = cJSON_IsArray(e) ? cJSON_GetArrayItem(e, i) :
						cJSON_GetObjectItemCaseSensitive(e, t->fields[i].name);

					assert_non_null(fe);
					snprintf(sub, sizeof(sub), "%s.%s", where, t->fields[i].name);
					check_value(&v->v.nested.items[i], t->fields[i].type, fe, sub);
				}
			}
			break;
		default:
			fail_msg("%s: type kind %d not compared", where, t->kind);
	}
}

/* Read all rows of a file into a callback-free flat check against rows. */
static void
check_file_against_rows(const char *rel, const ts_read_column *cols, int ncols,
						const cJSON *rows, int oracle_cols, int64_t *nread)
{
	ts_err		err;
	ts_format_reader *r = ts_avro_open(unit_shared_path(rel), cols, ncols, unit_local_read(), &err);
	ts_batch	b;
	int			n,
				row = 0;

	if (r == NULL)
		fail_msg("open %s: %s", rel, err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		assert_int_equal(b.ncols, ncols);
		for (int i = 0; i < n; i++, row++)
		{
			const cJSON *erow = cJSON_GetArrayItem(rows, row);

			assert_non_null(erow);
			for (int c = 0; c < ncols; c++)
			{
				char		where[256];

				snprintf(where, sizeof(where), "%s row %d col %s", rel, row, cols[c].name);
				if (c < oracle_cols)
					check_value(ts_batch_at(&b, i, c), cols[c].type, cJSON_GetArrayItem(erow, c), where);
				else if (!ts_batch_at(&b, i, c)->isnull)
					fail_msg("%s: column missing in the file must be NULL", where);
			}
		}
	}
	if (n < 0)
		fail_msg("read %s: %s", rel, err.msg);
	assert_int_equal(row, cJSON_GetArraySize(rows));
	assert_int_equal(r->metrics.rows_read, row);
	assert_true(r->metrics.row_groups_total >= 1);
	assert_true(r->metrics.bytes_read > 0);
	if (nread)
		*nread = row;
	ts_format_close(r);
}

/* ---- (a) oracle data files -------------------------------------------- */

static void
test_all_types(void **state)
{
	cJSON	   *o = load_json("oracle/avro__data_file__avro_all_types.json");
	const cJSON *rows = cJSON_GetObjectItem(o, "rows");
	ts_read_column cols[17];
	const char *names[] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f10", "f11",
	"f12", "f13", "f14", "f15", "f16", "f9"};
	ts_type    *types[17];

	(void) state;
	types[0] = T(TS_BOOLEAN);
	types[1] = T(TS_TINYINT);
	types[2] = T(TS_SMALLINT);
	types[3] = T(TS_INT);
	types[4] = T(TS_BIGINT);
	types[5] = T(TS_FLOAT);
	types[6] = T(TS_DOUBLE);
	types[7] = T(TS_VARCHAR);
	types[8] = T(TS_VARBINARY);
	types[9] = T_array(T(TS_FLOAT));
	types[10] = T_row("f0", T(TS_BOOLEAN), "f1", T(TS_BIGINT), NULL);
	types[11] = T_p(TS_TIMESTAMP, 6, 0);
	types[12] = T(TS_DATE);
	types[13] = T_p(TS_DECIMAL, 2, 2);
	types[14] = T_p(TS_DECIMAL, 10, 10);
	types[15] = T_p(TS_DECIMAL, 19, 19);
	types[16] = T(TS_VARCHAR);	/* f9: not in the file => NULL */
	for (int i = 0; i < 17; i++)
	{
		cols[i].field_id = -1;
		cols[i].name = names[i];
		cols[i].type = types[i];
	}
	/* the oracle's columns are exactly these names in this order */
	for (int i = 0; i < 16; i++)
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "columns"), i), "name")->valuestring,
							names[i]);
	check_file_against_rows("testdata/avro/data/avro_all_types", cols, 17, rows, 16, NULL);
	cJSON_Delete(o);
	pool_free();
}

static void
test_with_null(void **state)
{
	cJSON	   *o = load_json("oracle/avro__data_file__avro_with_null.json");
	const cJSON *ocols = cJSON_GetObjectItem(o, "columns");
	ts_read_column cols[7];
	ts_type    *types[7];

	(void) state;
	types[0] = T(TS_VARCHAR);
	types[1] = T(TS_BIGINT);
	types[2] = T(TS_INT);
	types[3] = T(TS_VARCHAR);
	types[4] = T(TS_VARCHAR);
	types[5] = T(TS_INT);
	types[6] = T(TS_DOUBLE);
	for (int i = 0; i < 7; i++)
	{
		cols[i].field_id = -1;
		cols[i].name = cJSON_GetObjectItem(cJSON_GetArrayItem(ocols, i), "name")->valuestring;
		cols[i].type = types[i];
	}
	check_file_against_rows("testdata/avro/data/avro_with_null", cols, 7,
							cJSON_GetObjectItem(o, "rows"), 7, NULL);

	/* a projection in another order, with _VALUE_KIND as TINYINT */
	{
		ts_read_column pc[2] = {{-1, "f3", types[6]}, {-1, "_VALUE_KIND", T(TS_TINYINT)}};
		ts_err		err;
		ts_format_reader *r = ts_avro_open(unit_shared_path("testdata/avro/data/avro_with_null"),
										   pc, 2, unit_local_read(), &err);
		ts_batch	b;

		assert_non_null(r);
		assert_int_equal(ts_format_next(r, &b, &err), 3);
		assert_true(ts_batch_at(&b, 2, 0)->v.d == 14.1);
		assert_int_equal(ts_batch_at(&b, 0, 1)->v.i,
						 (int64_t) cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "rows"), 0), 2)->valuedouble);
		assert_int_equal(ts_format_next(r, &b, &err), 0);
		ts_format_close(r);
	}
	cJSON_Delete(o);
	pool_free();
}

static void
test_ts_precisions(void **state)
{
	cJSON	   *o = load_json("oracle/avro__append_with_multiple_ts_precision_and_timezone__batch_latest.json");
	const cJSON *ocols = cJSON_GetObjectItem(o, "columns");
	ts_read_column cols[6];
	const int	prec[6] = {0, 3, 6, 0, 3, 6};
	char		rel[512];

	(void) state;
	for (int i = 0; i < 6; i++)
	{
		cols[i].field_id = i;
		cols[i].name = cJSON_GetObjectItem(cJSON_GetArrayItem(ocols, i), "name")->valuestring;
		cols[i].type = T_p(i < 3 ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ, prec[i], 0);
	}
	snprintf(rel, sizeof(rel), "testdata/%s/%s", cJSON_GetObjectItem(o, "table")->valuestring,
			 cJSON_GetArrayItem(cJSON_GetObjectItem(o, "files"), 0)->valuestring);
	check_file_against_rows(rel, cols, 6, cJSON_GetObjectItem(o, "rows"), 6, NULL);
	cJSON_Delete(o);
	pool_free();
}

/* ---- (b) manifests ----------------------------------------------------- */

static ts_type *
simple_stats_type(void)
{
	return T_row("_MIN_VALUES", T(TS_VARBINARY), "_MAX_VALUES", T(TS_VARBINARY),
				 "_NULL_COUNTS", T_array(T(TS_BIGINT)), NULL);
}

static void
check_empty_row(const ts_value *v)
{
	/* an empty BinaryRow in manifest form: BE arity 0 + 8-byte null bits */
	assert_false(v->isnull);
	assert_int_equal(v->v.s.len, 12);
	for (int i = 0; i < 12; i++)
		assert_int_equal(v->v.s.p[i], 0);
}

static void
check_manifest(const char *oracle, const char *rel)
{
	cJSON	   *o = load_json(oracle);
	const cJSON *exp = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "expected_entries"), 0);
	ts_type    *file_t = T_row("_FILE_NAME", T(TS_VARCHAR), "_FILE_SIZE", T(TS_BIGINT),
							   "_ROW_COUNT", T(TS_BIGINT), "_MIN_KEY", T(TS_VARBINARY),
							   "_MAX_KEY", T(TS_VARBINARY), "_KEY_STATS", simple_stats_type(),
							   "_VALUE_STATS", simple_stats_type(),
							   "_MIN_SEQUENCE_NUMBER", T(TS_BIGINT), "_MAX_SEQUENCE_NUMBER", T(TS_BIGINT),
							   "_SCHEMA_ID", T(TS_BIGINT), "_LEVEL", T(TS_INT),
							   "_EXTRA_FILES", T_array(T(TS_VARCHAR)),
							   "_CREATION_TIME", T_p(TS_TIMESTAMP, 3, 0),
							   "_DELETE_ROW_COUNT", T(TS_BIGINT),
							   "_EMBEDDED_FILE_INDEX", T(TS_VARBINARY),
							   "_FILE_SOURCE", T(TS_TINYINT),
							   "_VALUE_STATS_COLS", T_array(T(TS_VARCHAR)),
							   "_EXTERNAL_PATH", T(TS_VARCHAR),
							   "_FIRST_ROW_ID", T(TS_BIGINT),
							   "_WRITE_COLS", T_array(T(TS_VARCHAR)), NULL);
	ts_read_column cols[] = {
		{-1, "_VERSION", T(TS_INT)}, {-1, "_KIND", T(TS_TINYINT)}, {-1, "_PARTITION", T(TS_VARBINARY)},
		{-1, "_BUCKET", T(TS_INT)}, {-1, "_TOTAL_BUCKETS", T(TS_INT)}, {-1, "_FILE", file_t},
	};
	ts_err		err;
	ts_format_reader *r = ts_avro_open(unit_shared_path(rel), cols, 6, unit_local_read(), &err);
	ts_batch	b;
	const ts_value *f;
	const ts_value *stats;

	if (r == NULL)
		fail_msg("%s: %s", rel, err.msg);
	assert_int_equal(ts_format_next(r, &b, &err), 1);
	assert_int_equal(ts_batch_at(&b, 0, 0)->v.i, 2);
	assert_int_equal(ts_batch_at(&b, 0, 1)->v.i,
					 strcmp(cJSON_GetObjectItem(exp, "kind")->valuestring, "ADD") == 0 ? 0 : 1);
	check_empty_row(ts_batch_at(&b, 0, 2));
	check_value(ts_batch_at(&b, 0, 3), T(TS_INT), cJSON_GetObjectItem(exp, "bucket"), "bucket");
	check_value(ts_batch_at(&b, 0, 4), T(TS_INT), cJSON_GetObjectItem(exp, "total_buckets"), "total_buckets");
	f = ts_batch_at(&b, 0, 5);
	assert_false(f->isnull);
	assert_int_equal(f->v.nested.n, file_t->nfields);
#define FLD(i) (&f->v.nested.items[i])
	check_value(FLD(0), T(TS_VARCHAR), cJSON_GetObjectItem(exp, "file_name"), "file_name");
	check_value(FLD(1), T(TS_BIGINT), cJSON_GetObjectItem(exp, "file_size"), "file_size");
	check_value(FLD(2), T(TS_BIGINT), cJSON_GetObjectItem(exp, "row_count"), "row_count");
	check_empty_row(FLD(3));
	check_empty_row(FLD(4));
	check_value(FLD(7), T(TS_BIGINT), cJSON_GetObjectItem(exp, "min_sequence_number"), "min_seq");
	check_value(FLD(8), T(TS_BIGINT), cJSON_GetObjectItem(exp, "max_sequence_number"), "max_seq");
	check_value(FLD(9), T(TS_BIGINT), cJSON_GetObjectItem(exp, "schema_id"), "schema_id");
	check_value(FLD(10), T(TS_INT), cJSON_GetObjectItem(exp, "level"), "level");
	check_value(FLD(11), T_array(T(TS_VARCHAR)), cJSON_GetObjectItem(exp, "extra_files"), "extra_files");
	assert_false(FLD(12)->isnull);
	assert_int_equal(FLD(12)->v.ts.millis,
					 (int64_t) cJSON_GetObjectItem(exp, "creation_time_epoch_millis")->valuedouble);
	check_value(FLD(13), T(TS_BIGINT), cJSON_GetObjectItem(exp, "delete_row_count"), "delete_row_count");
	check_value(FLD(14), T(TS_VARBINARY), cJSON_GetObjectItem(exp, "embedded_index"), "embedded_index");
	assert_int_equal(FLD(15)->v.i,
					 strcmp(cJSON_GetObjectItem(exp, "file_source")->valuestring, "APPEND") == 0 ? 0 : 1);
	check_value(FLD(16), T_array(T(TS_VARCHAR)), cJSON_GetObjectItem(exp, "value_stats_cols"), "value_stats_cols");
	check_value(FLD(17), T(TS_VARCHAR), cJSON_GetObjectItem(exp, "external_path"), "external_path");
	check_value(FLD(18), T(TS_BIGINT), cJSON_GetObjectItem(exp, "first_row_id"), "first_row_id");
	check_value(FLD(19), T_array(T(TS_VARCHAR)), cJSON_GetObjectItem(exp, "write_cols"), "write_cols");
	/* value stats: the null counts, and the BinaryRow arity of min/max */
	stats = FLD(6);
	check_value(&stats->v.nested.items[2], T_array(T(TS_BIGINT)),
				cJSON_GetObjectItem(cJSON_GetObjectItem(exp, "value_stats"), "null_counts"), "null_counts");
	assert_int_equal(ts_load_be32(stats->v.nested.items[0].v.s.p),
					 cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(exp, "value_stats"), "min")));
	/* key stats of an append table: empty rows, empty null counts */
	check_empty_row(&FLD(5)->v.nested.items[0]);
	assert_int_equal(FLD(5)->v.nested.items[2].v.nested.n, 0);
#undef FLD
	assert_int_equal(ts_format_next(r, &b, &err), 0);
	ts_format_close(r);
	cJSON_Delete(o);
	pool_free();
}

static void
test_manifest_09(void **state)
{
	(void) state;
	check_manifest("oracle/avro__manifest_file__java_0_9.json", "testdata/avro/manifest/avro_manifest_09");
}

static void
test_manifest_11(void **state)
{
	(void) state;
	check_manifest("oracle/avro__manifest_file__java_1_1.json", "testdata/avro/manifest/avro_manifest_11");
}

static void
check_manifest_list(const char *oracle, const char *rel)
{
	cJSON	   *o = load_json(oracle);
	const cJSON *exp = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "expected_manifest_file_metas"), 0);
	ts_read_column cols[] = {
		{-1, "_FILE_NAME", T(TS_VARCHAR)}, {-1, "_FILE_SIZE", T(TS_BIGINT)},
		{-1, "_NUM_ADDED_FILES", T(TS_BIGINT)}, {-1, "_NUM_DELETED_FILES", T(TS_BIGINT)},
		{-1, "_PARTITION_STATS", simple_stats_type()}, {-1, "_SCHEMA_ID", T(TS_BIGINT)},
		{-1, "_MIN_BUCKET", T(TS_INT)}, {-1, "_MAX_BUCKET", T(TS_INT)},
		{-1, "_MIN_LEVEL", T(TS_INT)}, {-1, "_MAX_LEVEL", T(TS_INT)},
		{-1, "_MIN_ROW_ID", T(TS_BIGINT)}, {-1, "_MAX_ROW_ID", T(TS_BIGINT)},
	};
	const char *keys[] = {"file_name", "file_size", "num_added_files", "num_deleted_files", NULL,
	"schema_id", "min_bucket", "max_bucket", "min_level", "max_level", "min_row_id", "max_row_id"};
	ts_err		err;
	ts_format_reader *r = ts_avro_open(unit_shared_path(rel), cols, 12, unit_local_read(), &err);
	ts_batch	b;

	if (r == NULL)
		fail_msg("%s: %s", rel, err.msg);
	assert_int_equal(ts_format_next(r, &b, &err), 1);
	for (int c = 0; c < 12; c++)
		if (keys[c])
			check_value(ts_batch_at(&b, 0, c), cols[c].type, cJSON_GetObjectItem(exp, keys[c]), keys[c]);
	/* no partition: empty min/max rows, no null counts */
	check_empty_row(&ts_batch_at(&b, 0, 4)->v.nested.items[0]);
	check_empty_row(&ts_batch_at(&b, 0, 4)->v.nested.items[1]);
	assert_int_equal(ts_format_next(r, &b, &err), 0);
	ts_format_close(r);
	cJSON_Delete(o);
	pool_free();
}

static void
test_manifest_list_09(void **state)
{
	(void) state;
	check_manifest_list("oracle/avro__manifest_list__java_0_9.json", "testdata/avro/manifest/avro_manifest_list_09");
}

static void
test_manifest_list_11(void **state)
{
	(void) state;
	check_manifest_list("oracle/avro__manifest_list__java_1_1.json", "testdata/avro/manifest/avro_manifest_list_11");
}

/* Our schema generator reproduces Java's manifest schema byte for byte. */
static void
test_schema_json_matches_java(void **state)
{
	ts_type    *stats = T_row("_MIN_VALUES", T_nn(TS_VARBINARY), "_MAX_VALUES", T_nn(TS_VARBINARY),
							  "_NULL_COUNTS", T_array(T(TS_BIGINT)), NULL);
	ts_type    *file_t;
	ts_type    *extra = T_array(T_nn(TS_VARCHAR));
	ts_field   *fields = palloc0(sizeof(ts_field) * 6);
	ts_avro_container *c;
	ts_err		err;
	char	   *json;

	(void) state;
	stats->nullable = false;
	extra->nullable = false;
	file_t = T_row("_FILE_NAME", T_nn(TS_VARCHAR), "_FILE_SIZE", T_nn(TS_BIGINT),
				   "_ROW_COUNT", T_nn(TS_BIGINT), "_MIN_KEY", T_nn(TS_VARBINARY),
				   "_MAX_KEY", T_nn(TS_VARBINARY), "_KEY_STATS", stats, "_VALUE_STATS", stats,
				   "_MIN_SEQUENCE_NUMBER", T_nn(TS_BIGINT), "_MAX_SEQUENCE_NUMBER", T_nn(TS_BIGINT),
				   "_SCHEMA_ID", T_nn(TS_BIGINT), "_LEVEL", T_nn(TS_INT), "_EXTRA_FILES", extra,
				   "_CREATION_TIME", T_p(TS_TIMESTAMP, 3, 0), "_DELETE_ROW_COUNT", T(TS_BIGINT),
				   "_EMBEDDED_FILE_INDEX", T(TS_VARBINARY), "_FILE_SOURCE", T(TS_TINYINT),
				   "_VALUE_STATS_COLS", T_array(T_nn(TS_VARCHAR)), "_EXTERNAL_PATH", T(TS_VARCHAR), NULL);
	file_t->nullable = false;
	fields[0] = (ts_field) {0, "_VERSION", T_nn(TS_INT), NULL};
	fields[1] = (ts_field) {1, "_KIND", T_nn(TS_TINYINT), NULL};
	fields[2] = (ts_field) {2, "_PARTITION", T_nn(TS_VARBINARY), NULL};
	fields[3] = (ts_field) {3, "_BUCKET", T_nn(TS_INT), NULL};
	fields[4] = (ts_field) {4, "_TOTAL_BUCKETS", T_nn(TS_INT), NULL};
	fields[5] = (ts_field) {5, "_FILE", file_t, NULL};
	json = ts_avro_schema_json_for_fields(fields, 6, &err);
	assert_non_null(json);
	c = ts_avro_container_open(ts_fs_local_unconfined(), unit_shared_path("testdata/avro/manifest/avro_manifest_11"), &err);
	assert_non_null(c);
	assert_string_equal(json, c->schema_json);
	assert_int_equal(c->codec, TS_AVRO_CODEC_ZSTANDARD);
	ts_avro_container_close(c);
	ts_free(json);

	/* and the data-file schema of avro_all_types (nested record naming) */
	{
		ts_field	df[3];

		df[0] = (ts_field) {0, "f10", T_array(T(TS_FLOAT)), NULL};
		df[1] = (ts_field) {1, "f11", T_row("f0", T(TS_BOOLEAN), "f1", T(TS_BIGINT), NULL), NULL};
		df[2] = (ts_field) {2, "f16", T_p(TS_DECIMAL, 19, 19), NULL};
		json = ts_avro_schema_json_for_fields(df, 3, &err);
		assert_non_null(json);
		c = ts_avro_container_open(ts_fs_local_unconfined(), unit_shared_path("testdata/avro/data/avro_all_types"), &err);
		assert_non_null(c);
		/* each of our field definitions appears verbatim in Java's schema */
		{
			const char *p = strstr(json, "\"fields\":[") + 10;

			assert_non_null(strstr(c->schema_json, "{\"name\":\"f10\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"float\"]}],\"default\":null}"));
			assert_non_null(strstr(json, "{\"name\":\"f10\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"float\"]}],\"default\":null}"));
			assert_non_null(p);
			/* f11 and f16 definitions, cut from our JSON, are found in Java's */
			{
				const char *f11 = strstr(json, "{\"name\":\"f11\"");
				const char *f16 = strstr(json, "{\"name\":\"f16\"");
				char	   *part = strndup(f11, (size_t) (f16 - f11 - 1));

				assert_non_null(strstr(c->schema_json, part));
				free(part);
				part = strndup(f16, strlen(f16) - 2);
				assert_non_null(strstr(c->schema_json, part));
				free(part);
			}
		}
		ts_avro_container_close(c);
		ts_free(json);
	}
	pool_free();
}

/* ---- (c) round trip ----------------------------------------------------- */

#define RT_ROWS 3000

static bool
write_file(const char *path, const ts_buf *b)
{
	FILE	   *f = fopen(path, "wb");
	bool		ok;

	if (f == NULL)
		return false;
	ok = fwrite(b->data, 1, b->len, f) == b->len;
	return fclose(f) == 0 && ok;
}

static const char *
tmp_path(const char *name)
{
	static char buf[4][512];
	static int	k;
	char	   *b = buf[k++ & 3];
	const char *dir = getenv("TMPDIR");

	snprintf(b, 512, "%s/ts_avro_%d_%s", dir && *dir ? dir : "/tmp", (int) getpid(), name);
	return b;
}

typedef struct rt_schema
{
	ts_field	fields[24];
	int			n;
} rt_schema;

static void
rt_fields(rt_schema *s)
{
	int			n = 0;

#define ADD(nm, ty) (s->fields[n].id = n, s->fields[n].name = (nm), s->fields[n].type = (ty), n++)
	ADD("b", T(TS_BOOLEAN));
	ADD("t", T(TS_TINYINT));
	ADD("s", T(TS_SMALLINT));
	ADD("i", T_nn(TS_INT));
	ADD("l", T(TS_BIGINT));
	ADD("f", T(TS_FLOAT));
	ADD("d", T(TS_DOUBLE));
	ADD("dec_small", T_p(TS_DECIMAL, 10, 2));
	ADD("dec_big", T_p(TS_DECIMAL, 38, 5));
	ADD("c", T_p(TS_CHAR, 5, 0));
	ADD("str", T(TS_VARCHAR));
	ADD("bin", T(TS_VARBINARY));
	ADD("date", T(TS_DATE));
	ADD("time", T_p(TS_TIME, 3, 0));
	ADD("ts3", T_p(TS_TIMESTAMP, 3, 0));
	ADD("ts6", T_p(TS_TIMESTAMP, 6, 0));
	ADD("ltz3", T_p(TS_TIMESTAMP_LTZ, 3, 0));
	ADD("ltz6", T_p(TS_TIMESTAMP_LTZ, 6, 0));
	ADD("arr", T_array(T(TS_INT)));
	ADD("smap", T_map(T_nn(TS_VARCHAR), T(TS_BIGINT)));
	ADD("imap", T_map(T_nn(TS_INT), T(TS_VARCHAR)));
	ADD("row", T_row("x", T(TS_INT), "y", T_row("z", T(TS_VARCHAR), NULL), NULL));
	ADD("mset", T_multiset(T_nn(TS_VARCHAR)));
	ADD("imset", T_multiset(T_nn(TS_INT)));
#undef ADD
	s->n = n;
}

/* deterministic value of column c in row i (NULL every 7th row for nullable) */
static char strbuf[RT_ROWS][24][32];

static void
rt_value(ts_value *v, const ts_type *t, int c, int i, ts_value *scratch)
{
	char	   *sb = strbuf[i][c];

	memset(v, 0, sizeof(*v));
	if (t->nullable && (i + c) % 7 == 0)
	{
		v->isnull = true;
		return;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			v->v.i = i % 2;
			break;
		case TS_TINYINT:
			v->v.i = (int8_t) (i * 3);
			break;
		case TS_SMALLINT:
			v->v.i = (int16_t) (i * 1001);
			break;
		case TS_INT:
			v->v.i = (int32_t) (i * 2654435761u);
			break;
		case TS_BIGINT:
			v->v.i = (int64_t) i * 1000000007LL * (i % 2 ? -1 : 1);
			break;
		case TS_FLOAT:
			v->v.f = (float) i * 1.5f;
			break;
		case TS_DOUBLE:
			v->v.d = i / 3.0;
			break;
		case TS_DECIMAL:
			v->v.dec = t->precision > 18 ? ((ts_int128) i * 1000000000000000000LL * 1000 + i) * (i % 2 ? -1 : 1)
				: (ts_int128) (i * 12345 - 100000);
			break;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_VARBINARY:
			snprintf(sb, 32, i % 10 == 3 ? "" : "v%d_%d", c, i);
			v->v.s.p = (const uint8_t *) sb;
			v->v.s.len = (uint32_t) strlen(sb);
			break;
		case TS_DATE:
			v->v.i = i - 1500;
			break;
		case TS_TIME:
			v->v.i = (i * 37 % 86400) * 1000 + i % 1000;
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			v->v.ts.millis = (int64_t) (i - 1500) * 86400123LL;
			v->v.ts.nanos = t->precision > 3 ? (i % 1000) * 1000 : 0;
			break;
		case TS_ARRAY:
			v->v.nested.n = i % 4;
			v->v.nested.items = scratch;
			for (int k = 0; k < v->v.nested.n; k++)
			{
				scratch[k].isnull = k == 2;
				scratch[k].v.i = i * 10 + k;
			}
			break;
		case TS_MULTISET:
			/* elements with duplicates: {e0, e1, e0} */
			v->v.nested.n = i % 4;
			v->v.nested.items = scratch;
			for (int k = 0; k < v->v.nested.n; k++)
			{
				scratch[k].isnull = false;
				if (t->element->kind == TS_INT)
					scratch[k].v.i = k % 2;
				else
				{
					scratch[k].v.s.p = (const uint8_t *) (k % 2 ? "odd" : "even");
					scratch[k].v.s.len = k % 2 ? 3 : 4;
				}
			}
			break;
		case TS_MAP:
			v->v.nested.n = i % 3;
			v->v.nested.items = scratch;
			for (int k = 0; k < v->v.nested.n; k++)
			{
				ts_value   *key = &scratch[2 * k],
						   *val = &scratch[2 * k + 1];

				key->isnull = false;
				val->isnull = k == 1;
				if (t->key->kind == TS_INT)
				{
					key->v.i = i + k;
					val->v.s.p = (const uint8_t *) "mv";
					val->v.s.len = 2;
				}
				else
				{
					key->v.s.p = (const uint8_t *) (k ? "k1" : "k0");
					key->v.s.len = 2;
					val->v.i = i * 100 + k;
				}
			}
			break;
		case TS_ROW:
			v->v.nested.n = 2;
			v->v.nested.items = scratch;
			scratch[0].isnull = i % 5 == 0;
			scratch[0].v.i = -i;
			scratch[1].isnull = i % 11 == 0;
			scratch[1].v.nested.n = 1;
			scratch[1].v.nested.items = &scratch[2];
			scratch[2].isnull = false;
			scratch[2].v.s.p = (const uint8_t *) "zz";
			scratch[2].v.s.len = 2;
			break;
		default:
			fail();
	}
}

static bool
value_eq(const ts_value *a, const ts_value *b, const ts_type *t)
{
	if (a->isnull || b->isnull)
		return a->isnull == b->isnull;
	switch (t->kind)
	{
		case TS_FLOAT:
			return a->v.f == b->v.f;
		case TS_DOUBLE:
			return a->v.d == b->v.d;
		case TS_DECIMAL:
			return a->v.dec == b->v.dec;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return a->v.s.len == b->v.s.len && memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
		case TS_ARRAY:
			if (a->v.nested.n != b->v.nested.n)
				return false;
			for (int k = 0; k < a->v.nested.n; k++)
				if (!value_eq(&a->v.nested.items[k], &b->v.nested.items[k], t->element))
					return false;
			return true;
		case TS_MULTISET:
			{
				/* same multiset: equal counts of every element (n small) */
				if (a->v.nested.n != b->v.nested.n)
					return false;
				for (int k = 0; k < a->v.nested.n; k++)
				{
					int			ca = 0,
								cb = 0;

					for (int m = 0; m < a->v.nested.n; m++)
					{
						ca += value_eq(&a->v.nested.items[k], &a->v.nested.items[m], t->element);
						cb += value_eq(&a->v.nested.items[k], &b->v.nested.items[m], t->element);
					}
					if (ca != cb)
						return false;
				}
				return true;
			}
		case TS_MAP:
			if (a->v.nested.n != b->v.nested.n)
				return false;
			for (int k = 0; k < a->v.nested.n; k++)
				if (!value_eq(&a->v.nested.items[2 * k], &b->v.nested.items[2 * k], t->key) ||
					!value_eq(&a->v.nested.items[2 * k + 1], &b->v.nested.items[2 * k + 1], t->value))
					return false;
			return true;
		case TS_ROW:
			if (a->v.nested.n != b->v.nested.n)
				return false;
			for (int k = 0; k < t->nfields; k++)
				if (!value_eq(&a->v.nested.items[k], &b->v.nested.items[k], t->fields[k].type))
					return false;
			return true;
		default:
			return a->v.i == b->v.i;
	}
}

static void
round_trip(ts_avro_codec codec, int batch_rows)
{
	rt_schema	s;
	ts_err		err;
	ts_avro_writer *w;
	ts_buf		out;
	ts_value	row[24];
	ts_value	scratch[24][8];
	ts_read_column cols[25];
	const char *path = tmp_path(ts_avro_codec_name(codec));
	ts_format_reader *r;
	ts_reader_options opts;
	ts_batch	b;
	int			n,
				seen = 0;

	rt_fields(&s);
	w = ts_avro_writer_create_for_fields(s.fields, s.n, codec, &err);
	if (w == NULL)
		fail_msg("writer: %s", err.msg);
	ts_avro_writer_set_block_size(w, 16 * 1024);	/* several blocks */
	assert_int_equal(ts_avro_writer_ncols(w), s.n);
	for (int i = 0; i < RT_ROWS; i++)
	{
		for (int c = 0; c < s.n; c++)
			rt_value(&row[c], s.fields[c].type, c, i, scratch[c]);
		if (!ts_avro_writer_add(w, row, &err))
			fail_msg("add row %d: %s", i, err.msg);
	}
	/* a NULL in a NOT NULL column is refused */
	row[3].isnull = true;
	assert_false(ts_avro_writer_add(w, row, &err));
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);

	/* read back all columns in reverse order plus one missing column */
	for (int c = 0; c < s.n; c++)
	{
		cols[c].field_id = -1;
		cols[c].name = s.fields[s.n - 1 - c].name;
		cols[c].type = s.fields[s.n - 1 - c].type;
	}
	cols[s.n].field_id = -1;
	cols[s.n].name = "not_there";
	cols[s.n].type = T(TS_INT);
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	opts.batch_rows = batch_rows;
	r = ts_avro_open(path, cols, s.n + 1, &opts, &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		assert_true(n <= batch_rows);
		for (int i = 0; i < n; i++, seen++)
		{
			for (int c = 0; c < s.n; c++)
			{
				int			fc = s.n - 1 - c;
				ts_value	expect;

				rt_value(&expect, s.fields[fc].type, fc, seen, scratch[fc]);
				if (!value_eq(ts_batch_at(&b, i, c), &expect, s.fields[fc].type))
					fail_msg("codec %s row %d column %s differs", ts_avro_codec_name(codec), seen,
							 s.fields[fc].name);
			}
			assert_true(ts_batch_at(&b, i, s.n)->isnull);
		}
	}
	if (n < 0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(seen, RT_ROWS);
	assert_true(r->metrics.row_groups_total > 1);
	assert_int_equal(r->metrics.rows_read, RT_ROWS);
	ts_format_close(r);

	/* widening conversions: INT read as BIGINT/DOUBLE, FLOAT as DOUBLE */
	{
		ts_read_column wc[3] = {{-1, "i", T(TS_BIGINT)}, {-1, "i", T(TS_BIGINT)}, {-1, "f", T(TS_DOUBLE)}};

		r = ts_avro_open(path, wc, 3, unit_local_read(), &err);
		assert_non_null(r);
		assert_true(ts_format_next(r, &b, &err) > 0);
		assert_int_equal(ts_batch_at(&b, 5, 0)->v.i, (int32_t) (5 * 2654435761u));
		assert_int_equal(ts_batch_at(&b, 5, 1)->v.i, (int32_t) (5 * 2654435761u));
		assert_true(ts_batch_at(&b, 5, 2)->v.d == 7.5);
		ts_format_close(r);
	}
	/* impossible conversions fail at open naming the column */
	{
		ts_read_column bad[1] = {{-1, "str", T(TS_INT)}};

		r = ts_avro_open(path, bad, 1, unit_local_read(), &err);
		assert_null(r);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "\"str\""));
		bad[0].name = "l";
		r = ts_avro_open(path, bad, 1, unit_local_read(), &err);
		assert_null(r);
		bad[0].name = "dec_small";
		bad[0].type = T_p(TS_DECIMAL, 10, 3);
		r = ts_avro_open(path, bad, 1, unit_local_read(), &err);
		assert_null(r);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	}
	unlink(path);
	pool_free();
}

static void
test_round_trip_null(void **state)
{
	(void) state;
	round_trip(TS_AVRO_CODEC_NULL, TS_BATCH_ROWS);
}

static void
test_round_trip_deflate(void **state)
{
	(void) state;
	round_trip(TS_AVRO_CODEC_DEFLATE, 100);
}

static void
test_round_trip_snappy(void **state)
{
	(void) state;
	round_trip(TS_AVRO_CODEC_SNAPPY, 1);
}

static void
test_round_trip_zstd(void **state)
{
	(void) state;
	round_trip(TS_AVRO_CODEC_ZSTANDARD, 7);
}

/*
 * The same with the blocks after the current one decompressed ahead in the
 * helper thread (avro_ahead.c): the same rows, and the thread did work.
 */
static void
test_round_trip_zstd_ahead(void **state)
{
	int64_t		before = ts_bg_jobs_done() + ts_bg_jobs_taken_back();

	(void) state;
	ts_bg_set_enabled(true);
	round_trip(TS_AVRO_CODEC_ZSTANDARD, 7);
	round_trip(TS_AVRO_CODEC_ZSTANDARD, TS_BATCH_ROWS);
	ts_bg_set_enabled(false);
	assert_true(ts_bg_jobs_done() + ts_bg_jobs_taken_back() > before);
}

/* explicit schema with a ["null", record] top level, enum and fixed */
static void
test_explicit_schema(void **state)
{
	const char *schema =
	"[\"null\",{\"type\":\"record\",\"name\":\"r\",\"namespace\":\"x.y\",\"fields\":["
	"{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"BB\"]}},"
	"{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}},"
	"{\"name\":\"fd\",\"type\":{\"type\":\"fixed\",\"name\":\"D\",\"size\":9,\"logicalType\":\"decimal\",\"precision\":20,\"scale\":3}},"
	"{\"name\":\"fx2\",\"type\":\"F\"},"
	"{\"name\":\"u\",\"type\":[\"null\",\"long\",\"string\"]},"
	"{\"name\":\"tm\",\"type\":{\"type\":\"long\",\"logicalType\":\"time-micros\"}},"
	"{\"name\":\"tn\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}}"
	"]}]";
	ts_err		err;
	ts_avro_writer *w = ts_avro_writer_create(schema, TS_AVRO_CODEC_ZSTANDARD, &err);
	ts_value	v[7];
	ts_buf		out;
	const char *path = tmp_path("explicit");
	ts_format_reader *r;
	ts_batch	b;

	(void) state;
	if (w == NULL)
		fail_msg("%s", err.msg);
	memset(v, 0, sizeof(v));
	v[0].v.s.p = (const uint8_t *) "BB";
	v[0].v.s.len = 2;
	v[1].v.s.p = (const uint8_t *) "abc";
	v[1].v.s.len = 3;
	v[2].v.dec = -123456789012345LL;
	v[3].v.s.p = (const uint8_t *) "xyz";
	v[3].v.s.len = 3;
	v[4].v.i = -77;
	v[5].v.i = 3723004;			/* millis of day */
	v[6].v.ts.millis = -1;
	v[6].v.ts.nanos = 999999;
	assert_true(ts_avro_writer_add(w, v, &err));
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);
	{
		ts_read_column cols[7] = {
			{-1, "e", T(TS_VARCHAR)}, {-1, "fx", T(TS_VARBINARY)}, {-1, "fd", T_p(TS_DECIMAL, 20, 3)},
			{-1, "fx2", T(TS_VARBINARY)}, {-1, "u", T(TS_BIGINT)}, {-1, "tm", T_p(TS_TIME, 3, 0)},
			{-1, "tn", T_p(TS_TIMESTAMP, 9, 0)}
		};

		/* the union has a string branch: BIGINT cannot read it */
		r = ts_avro_open(path, cols, 7, unit_local_read(), &err);
		assert_null(r);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		cols[4].name = "missing";
		r = ts_avro_open(path, cols, 7, unit_local_read(), &err);
		if (r == NULL)
			fail_msg("%s", err.msg);
		assert_int_equal(ts_format_next(r, &b, &err), 1);
		assert_int_equal(ts_batch_at(&b, 0, 0)->v.s.len, 2);
		assert_memory_equal(ts_batch_at(&b, 0, 0)->v.s.p, "BB", 2);
		assert_memory_equal(ts_batch_at(&b, 0, 1)->v.s.p, "abc", 3);
		assert_true(ts_batch_at(&b, 0, 2)->v.dec == -123456789012345LL);
		assert_memory_equal(ts_batch_at(&b, 0, 3)->v.s.p, "xyz", 3);
		assert_true(ts_batch_at(&b, 0, 4)->isnull);
		assert_int_equal(ts_batch_at(&b, 0, 5)->v.i, 3723004);
		assert_int_equal(ts_batch_at(&b, 0, 6)->v.ts.millis, -1);
		assert_int_equal(ts_batch_at(&b, 0, 6)->v.ts.nanos, 999999);
		assert_int_equal(ts_format_next(r, &b, &err), 0);
		ts_format_close(r);
	}
	unlink(path);
	pool_free();
}

/* ---- blocks passed over by a rows filter ----------------------------------- */

typedef struct skip_log
{
	int64_t		first[256],
				count[256];
	int			n;
	const int64_t *wanted;		/* sorted positions; NULL = every block kept */
	int			nwanted;
} skip_log;

static bool
skip_filter(void *arg, int64_t first_row, int64_t nrows)
{
	skip_log   *l = arg;

	assert_true(l->n < 256);
	l->first[l->n] = first_row;
	l->count[l->n++] = nrows;
	if (l->wanted == NULL)
		return true;
	for (int i = 0; i < l->nwanted; i++)
		if (l->wanted[i] >= first_row && l->wanted[i] < first_row + nrows)
			return true;
	return false;
}

/*
 * A file of 2000 rows (id = position) in blocks of a few dozen rows: with a
 * rows filter the blocks holding no wanted position are passed over (the
 * filter sees every block once, in order, with its first position), the
 * others are read whole, and each batch reports its first row's position;
 * for every codec, and for count(*) (no column).
 */
static void
test_block_skip(void **state)
{
	/* ZSTD twice: the second time decompressed ahead by the helper thread */
	static const ts_avro_codec codecs[] = {TS_AVRO_CODEC_NULL, TS_AVRO_CODEC_ZSTANDARD,
	TS_AVRO_CODEC_ZSTANDARD, TS_AVRO_CODEC_DEFLATE};
	const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
		"{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"}]}";
	const char *path = tmp_path("block_skip");

	(void) state;
	for (int ci = 0; ci < 4; ci++)
	{
		ts_err		err;
		ts_avro_writer *w = ts_avro_writer_create(schema, codecs[ci], &err);

		ts_bg_set_enabled(ci == 2);
		ts_buf		out;
		skip_log	all;
		int			nblocks;

		if (w == NULL)
			fail_msg("%s", err.msg);
		ts_avro_writer_set_block_size(w, 256);
		for (int i = 0; i < 2000; i++)
		{
			ts_value	v[2];
			char		str[16];

			memset(v, 0, sizeof(v));
			v[0].v.i = i;
			snprintf(str, sizeof(str), "s%d", i);
			v[1].v.s.p = (const uint8_t *) str;
			v[1].v.s.len = (uint32_t) strlen(str);
			assert_true(ts_avro_writer_add(w, v, &err));
		}
		ts_buf_init(&out);
		assert_true(ts_avro_writer_finish(w, &out, &err));
		ts_avro_writer_free(w);
		assert_true(write_file(path, &out));
		ts_buf_free(&out);

		/* every block kept: the filter sees each once, positions consecutive */
		memset(&all, 0, sizeof(all));
		{
			ts_read_column cols[1] = {{-1, "id", T(TS_BIGINT)}};
			ts_reader_options opts;
			ts_format_reader *r;
			ts_batch	b;
			int			n;
			int64_t		seen = 0;

			memset(&opts, 0, sizeof(opts));

			opts.fs = ts_fs_local_unconfined();
			opts.rows_filter = skip_filter;
			opts.rows_filter_arg = &all;
			r = ts_avro_open(path, cols, 1, &opts, &err);
			if (r == NULL)
				fail_msg("%s", err.msg);
			assert_true(r->reports_positions);
			while ((n = ts_format_next(r, &b, &err)) > 0)
			{
				assert_int_equal(r->row_position, seen);
				for (int i = 0; i < n; i++, seen++)
					assert_int_equal(ts_batch_at(&b, i, 0)->v.i, seen);
			}
			assert_int_equal(n, 0);
			assert_int_equal(seen, 2000);
			assert_int_equal(r->metrics.row_groups_total, all.n);
			assert_int_equal(r->metrics.row_groups_kept, all.n);
			ts_format_close(r);
		}
		nblocks = all.n;
		assert_true(nblocks > 20);
		for (int i = 0; i < nblocks; i++)
			assert_int_equal(all.first[i], i == 0 ? 0 : all.first[i - 1] + all.count[i - 1]);
		assert_int_equal(all.first[nblocks - 1] + all.count[nblocks - 1], 2000);

		/* wanted: the first and last rows of block 3, the last of block 7, row 1999 */
		for (int ncols = 1; ncols >= 0; ncols--)
		{
			int64_t		wanted[4] = {all.first[3], all.first[3] + all.count[3] - 1,
			all.first[7] + all.count[7] - 1, 1999};
			skip_log	l;
			ts_read_column cols[1] = {{-1, "id", T(TS_BIGINT)}};
			ts_reader_options opts;
			ts_format_reader *r;
			ts_batch	b;
			int			n;
			int64_t		got = 0,
						want = all.count[3] + all.count[7] + all.count[nblocks - 1];

			memset(&l, 0, sizeof(l));
			l.wanted = wanted;
			l.nwanted = 4;
			memset(&opts, 0, sizeof(opts));
			opts.fs = ts_fs_local_unconfined();
			opts.rows_filter = skip_filter;
			opts.rows_filter_arg = &l;
			opts.batch_rows = 7;
			r = ts_avro_open(path, cols, ncols, &opts, &err);
			if (r == NULL)
				fail_msg("%s", err.msg);
			while ((n = ts_format_next(r, &b, &err)) > 0)
			{
				int64_t		pos = r->row_position;

				/* inside a kept block */
				assert_true((pos >= all.first[3] && pos + n <= all.first[4]) ||
							(pos >= all.first[7] && pos + n <= all.first[8]) ||
							pos >= all.first[nblocks - 1]);
				for (int i = 0; i < n && ncols == 1; i++)
					assert_int_equal(ts_batch_at(&b, i, 0)->v.i, pos + i);
				got += n;
			}
			if (n < 0)
				fail_msg("%s", err.msg);
			assert_int_equal(got, want);
			assert_int_equal(l.n, nblocks);
			assert_int_equal(r->metrics.row_groups_total, nblocks);
			assert_int_equal(r->metrics.row_groups_kept, 3);
			assert_int_equal(r->metrics.rows_read, want);
			ts_format_close(r);
		}
	}
	ts_bg_set_enabled(false);
	unlink(path);
	pool_free();
}

/* ---- (d) corruption ----------------------------------------------------- */

static uint8_t *
read_all(const char *path, size_t *len)
{
	uint8_t    *d;
	ts_err		err;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &d, len, &err))
		fail_msg("%s", err.msg);
	return d;
}

/* Open + read everything; returns true if no error (value checks not needed). */
static bool
read_everything(const char *path, ts_err *err)
{
	static ts_read_column cols[3] = {{-1, "f11", NULL}, {-1, "f10", NULL}, {-1, "f16", NULL}};
	ts_format_reader *r;
	ts_batch	b;
	int			n;

	if (npool == 0)
	{
		cols[0].type = T_row("f0", T(TS_BOOLEAN), "f1", T(TS_BIGINT), NULL);
		cols[1].type = T_array(T(TS_FLOAT));
		cols[2].type = T_p(TS_DECIMAL, 19, 19);
	}
	r = ts_avro_open(path, cols, 3, unit_local_read(), err);
	if (r == NULL)
		return false;
	while ((n = ts_format_next(r, &b, err)) > 0)
		;
	ts_format_close(r);
	return n == 0;
}

static void
corrupt_variants(const char *src, const char *name)
{
	size_t		len;
	uint8_t    *orig = read_all(unit_shared_path(src), &len);
	uint8_t    *d = malloc(len);
	const char *path = tmp_path(name);
	ts_err		err;
	int			failures = 0;
	ts_buf		b;

	/* truncated at every length */
	for (size_t cut = 0; cut < len; cut++)
	{
		b.data = orig;
		b.len = cut;
		assert_true(write_file(path, &b));
		if (!read_everything(path, &err))
		{
			assert_true(err.code == TS_ERR_CORRUPT || err.code == TS_ERR_UNSUPPORTED);
			assert_non_null(strstr(err.msg, path));
			failures++;
		}
	}
	/* every strict prefix is an error, except the header alone (0 blocks) */
	assert_true(failures >= (int) len - 1);

	/* every byte flipped, in turn: no crash; errors name the file */
	for (size_t pos = 0; pos < len; pos++)
	{
		memcpy(d, orig, len);
		d[pos] ^= 0x5a;
		b.data = d;
		b.len = len;
		assert_true(write_file(path, &b));
		if (!read_everything(path, &err))
			assert_true(err.code == TS_ERR_CORRUPT || err.code == TS_ERR_UNSUPPORTED ||
						err.code == TS_ERR_NOMEM);
	}

	/* a bad sync marker after the block: the last 16 bytes */
	memcpy(d, orig, len);
	d[len - 1] ^= 1;
	b.data = d;
	b.len = len;
	assert_true(write_file(path, &b));
	assert_false(read_everything(path, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "sync"));
	/* blocks are counted from 0, as Parquet row groups and ORC stripes */
	assert_non_null(strstr(err.msg, "block 0"));
	unlink(path);
	free(d);
	ts_free(orig);
	pool_free();
}

/*
 * longs of every varint length (1 to 10 bytes, both signs, each length's
 * first and last value) and nullable ints around them, read back exactly:
 * the decoder has separate paths for 1-byte, up to 8-byte (with 10 bytes
 * of data left) and longer varints or the end of a block.
 */
static void
test_varint_lengths(void **state)
{
	ts_field	fields[2] = {{0, "l", T_nn(TS_BIGINT)}, {1, "i", T(TS_INT)}};
	ts_read_column cols[2] = {{-1, "l", fields[0].type}, {-1, "i", fields[1].type}};
	int64_t		vals[300];
	int			nvals = 0;
	const char *path = tmp_path("varints");
	ts_avro_writer *w;
	ts_format_reader *r;
	ts_buf		out;
	ts_batch	b;
	ts_err		err;
	int			n,
				seen = 0;

	(void) state;
	for (int bits = 0; bits <= 63; bits++)
	{
		int64_t		hi = bits == 63 ? INT64_MAX : (int64_t) ((UINT64_C(1) << bits) - 1);
		int64_t		lo = bits == 0 ? 0 : (int64_t) (UINT64_C(1) << (bits - 1));

		vals[nvals++] = hi;
		vals[nvals++] = -hi - 1;
		vals[nvals++] = lo;
		vals[nvals++] = -lo;
	}
	w = ts_avro_writer_create_for_fields(fields, 2, TS_AVRO_CODEC_NULL, &err);
	assert_non_null(w);
	ts_avro_writer_set_block_size(w, 512);	/* varints near block ends too */
	for (int k = 0; k < nvals; k++)
	{
		ts_value	row[2];

		memset(row, 0, sizeof(row));
		row[0].v.i = vals[k];
		row[1].isnull = k % 3 == 0;
		row[1].v.i = (int32_t) vals[k];
		assert_true(ts_avro_writer_add(w, row, &err));
	}
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);

	r = ts_avro_open(path, cols, 2, unit_local_read(), &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
		for (int i = 0; i < n; i++, seen++)
		{
			assert_false(ts_batch_at(&b, i, 0)->isnull);
			if (ts_batch_at(&b, i, 0)->v.i != vals[seen])
				fail_msg("long %d: read %lld, wrote %lld", seen,
						 (long long) ts_batch_at(&b, i, 0)->v.i, (long long) vals[seen]);
			assert_int_equal(ts_batch_at(&b, i, 1)->isnull, seen % 3 == 0);
			if (seen % 3 != 0)
				assert_int_equal(ts_batch_at(&b, i, 1)->v.i, (int32_t) vals[seen]);
		}
	if (n < 0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(seen, nvals);
	assert_true(r->metrics.row_groups_total > 2);
	ts_format_close(r);
	unlink(path);
	pool_free();
}

/*
 * zstd blocks that decompress to far more than 4 times their size, growing
 * from block to block: the reader decompresses into its output buffer and
 * doubles it (starting the block again) whenever a block does not fit.
 */
static void
test_zstd_growing_blocks(void **state)
{
	ts_field	fields[2] = {{0, "n", T_nn(TS_INT)}, {1, "s", T(TS_VARCHAR)}};
	ts_read_column cols[2] = {{-1, "n", fields[0].type}, {-1, "s", fields[1].type}};
	const char *path = tmp_path("zstd_growing");
	static char text[70000];
	ts_avro_writer *w;
	ts_format_reader *r;
	ts_buf		out;
	ts_batch	b;
	ts_err		err;
	int			n,
				seen = 0;
	int64_t		counted_bytes;
	const int	rows = 60;

	(void) state;
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char) ('a' + (i / 1000) % 26);
	w = ts_avro_writer_create_for_fields(fields, 2, TS_AVRO_CODEC_ZSTANDARD, &err);
	assert_non_null(w);
	ts_avro_writer_set_block_size(w, 100 * 1024);
	for (int i = 0; i < rows; i++)
	{
		ts_value	row[2];

		memset(row, 0, sizeof(row));
		row[0].v.i = i;
		row[1].v.s.p = (const uint8_t *) text;
		row[1].v.s.len = (uint32_t) (i * 1000 + i);	/* rows and blocks grow */
		assert_true(ts_avro_writer_add(w, row, &err));
	}
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(path, &out));

	/*
	 * No column asked for (count(*)): rows are counted from the blocks'
	 * headers, their bytes are not read; a damaged sync marker still shows.
	 */
	r = ts_avro_open(path, cols, 0, unit_local_read(), &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
		seen += n;
	assert_int_equal(n, 0);
	assert_int_equal(seen, rows);
	assert_true(r->metrics.row_groups_total > 3);
	counted_bytes = r->metrics.bytes_read;
	ts_format_close(r);
	seen = 0;
	out.data[out.len - 1] ^= 1;
	assert_true(write_file(path, &out));
	r = ts_avro_open(path, cols, 0, unit_local_read(), &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
		;
	assert_int_equal(n, -1);
	assert_non_null(strstr(err.msg, "sync marker"));
	ts_format_close(r);
	out.data[out.len - 1] ^= 1;
	assert_true(write_file(path, &out));
	ts_buf_free(&out);

	r = ts_avro_open(path, cols, 2, unit_local_read(), &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
		for (int i = 0; i < n; i++, seen++)
		{
			const ts_value *s = ts_batch_at(&b, i, 1);

			assert_int_equal(ts_batch_at(&b, i, 0)->v.i, seen);
			assert_int_equal(s->v.s.len, seen * 1000 + seen);
			assert_memory_equal(s->v.s.p, text, s->v.s.len);
		}
	if (n < 0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(seen, rows);
	assert_true(r->metrics.row_groups_total > 3);
	assert_true(counted_bytes < r->metrics.bytes_read);	/* the blocks' bytes were skipped */
	ts_format_close(r);
	unlink(path);
	pool_free();
}

/*
 * Blocks are taken from a read-ahead window of the file
 * (TS_AVRO_READ_AHEAD): a file of several windows whose blocks grow from a few bytes to several times
 * the window, with every codec, reads back exactly (blocks straddling the
 * window's end, blocks larger than it); cut anywhere in its last block it
 * fails naming the truncation, not reading past the end.
 */
static void
test_read_ahead_window(void **state)
{
	ts_field	fields[2] = {{0, "n", T_nn(TS_INT)}, {1, "s", T(TS_VARBINARY)}};
	ts_read_column cols[2] = {{-1, "n", fields[0].type}, {-1, "s", fields[1].type}};
	const char *path = tmp_path("read_ahead");
	static uint8_t blob[TS_AVRO_READ_AHEAD * 5 / 2 + 4096];	/* values: up to 2.5 windows */
	/* the last: ZSTD with blocks decompressed ahead (avro_ahead.c) */
	const ts_avro_codec codecs[3] = {TS_AVRO_CODEC_NULL, TS_AVRO_CODEC_ZSTANDARD,
	TS_AVRO_CODEC_ZSTANDARD};

	(void) state;
	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t) (i * 7 + i / 4099);
	for (int k = 0; k < 3; k++)
	{
		ts_avro_writer *w;
		ts_format_reader *r;
		ts_buf		out;
		ts_batch	b;
		ts_err		err;
		int			n,
					seen = 0,
					rows = 0;
		size_t		lens[400];

		ts_bg_set_enabled(k == 2);
		w = ts_avro_writer_create_for_fields(fields, 2, codecs[k], &err);
		assert_non_null(w);
		ts_avro_writer_set_block_size(w, 1);	/* one row per block */
		for (size_t len = 1; len <= sizeof(blob) - 4096; len = len * 5 / 4 + 1)
		{
			ts_value	row[2];

			memset(row, 0, sizeof(row));
			row[0].v.i = rows;
			row[1].v.s.p = blob + rows;
			row[1].v.s.len = (uint32_t) (len - rows % 2 * (len / 3));
			lens[rows++] = row[1].v.s.len;
			assert_true(ts_avro_writer_add(w, row, &err));
		}
		ts_buf_init(&out);
		assert_true(ts_avro_writer_finish(w, &out, &err));
		ts_avro_writer_free(w);
		if (codecs[k] == TS_AVRO_CODEC_NULL)
			assert_true(out.len > 4 * TS_AVRO_READ_AHEAD);
		assert_true(write_file(path, &out));

		r = ts_avro_open(path, cols, 2, unit_local_read(), &err);
		if (r == NULL)
			fail_msg("open: %s", err.msg);
		while ((n = ts_format_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++, seen++)
			{
				const ts_value *v = ts_batch_at(&b, i, 1);

				assert_int_equal(ts_batch_at(&b, i, 0)->v.i, seen);
				assert_int_equal(v->v.s.len, lens[seen]);
				assert_memory_equal(v->v.s.p, blob + seen, v->v.s.len);
			}
		if (n < 0)
			fail_msg("read: %s", err.msg);
		assert_int_equal(seen, rows);
		assert_int_equal(r->metrics.row_groups_total, rows);
		ts_format_close(r);

		/* cut inside the last block (its header, payload or sync marker) */
		for (size_t cut = out.len - lens[rows - 1] / 2; cut < out.len; cut += (out.len - cut + 1) / 2)
		{
			size_t		len = out.len;

			out.len = cut;
			assert_true(write_file(path, &out));
			out.len = len;
			r = ts_avro_open(path, cols, 2, unit_local_read(), &err);
			if (r == NULL)
				fail_msg("open: %s", err.msg);
			while ((n = ts_format_next(r, &b, &err)) > 0)
				;
			assert_int_equal(n, -1);
			if (strstr(err.msg, "truncated block") == NULL || strstr(err.msg, path) == NULL)
				fail_msg("cut at %zu: %s", cut, err.msg);
			ts_format_close(r);
		}
		ts_buf_free(&out);
	}
	ts_bg_set_enabled(false);
	unlink(path);
	pool_free();
}

/*
 * A block appended by hand: its object count and byte length (zig-zag
 * varints of non-negative values), its bytes, the file's sync marker.
 */
static void
append_block(ts_buf *out, int64_t count, const uint8_t *bytes, size_t len, const uint8_t *sync)
{
	ts_err		err;

	for (int f = 0; f < 2; f++)
	{
		uint64_t	u = (uint64_t) (f == 0 ? count : (int64_t) len) << 1;
		uint8_t		byte;

		for (; u >= 0x80; u >>= 7)
		{
			byte = (uint8_t) (u | 0x80);
			assert_true(ts_buf_append(out, &byte, 1, &err));
		}
		byte = (uint8_t) u;
		assert_true(ts_buf_append(out, &byte, 1, &err));
	}
	assert_true(ts_buf_append(out, bytes, len, &err));
	assert_true(ts_buf_append(out, sync, 16, &err));
}

/* ---- objects decoded ahead with their blocks (avro_ahead.c) ---------- */

#define DA_ROWS 6000
#define DA_COLS 5

static const char *const da_names[DA_COLS] = {"k", "b", "d", "s", "m"};

static void
da_types(const ts_type **types)
{
	types[0] = T_nn(TS_INT);
	types[1] = T(TS_BIGINT);
	types[2] = T(TS_DOUBLE);
	types[3] = T(TS_VARCHAR);
	types[4] = T_p(TS_DECIMAL, 18, 4);
}

/* One value as text, enough to tell any two apart. */
static void
da_format(ts_buf *out, const ts_value *v, int col)
{
	ts_err		err;

	if (v->isnull)
		assert_true(ts_buf_printf(out, &err, "N|"));
	else if (col == 2)
		assert_true(ts_buf_printf(out, &err, "%a|", v->v.d));
	else if (col == 3)
		assert_true(ts_buf_printf(out, &err, "%.*s|", (int) v->v.s.len, (const char *) v->v.s.p));
	else if (col == 4)
		assert_true(ts_buf_printf(out, &err, "%lld|", (long long) v->v.dec));
	else
		assert_true(ts_buf_printf(out, &err, "%lld|", (long long) v->v.i));
}

/*
 * A flat ZSTD file of DA_ROWS rows in blocks of ~2 KB, re-framed by hand
 * (the writer's blocks, uncompressed, then compressed one by one) so that
 * block number bad_block can announce delta objects more than it holds.
 */
static void
da_write(const char *path, int bad_block, int delta)
{
	const ts_type *types[DA_COLS];
	ts_field	fields[DA_COLS];
	const char *plain = tmp_path("decode_ahead_plain");
	ts_avro_writer *w;
	ts_avro_container *c;
	ts_buf		out;
	ts_err		err;
	uint8_t		sync[16];
	char		text[64];
	int			rc,
				block = 0;

	da_types(types);
	for (int i = 0; i < DA_COLS; i++)
	{
		fields[i].id = i;
		fields[i].name = (char *) da_names[i];
		fields[i].type = (ts_type *) types[i];
	}
	w = ts_avro_writer_create_for_fields(fields, DA_COLS, TS_AVRO_CODEC_NULL, &err);
	assert_non_null(w);
	ts_avro_writer_set_block_size(w, 2048);
	for (int i = 0; i < DA_ROWS; i++)
	{
		ts_value	row[DA_COLS];

		memset(row, 0, sizeof(row));
		row[0].v.i = i;
		row[1].isnull = i % 5 == 0;
		row[1].v.i = (int64_t) i * 7919 - 1000000;
		row[2].isnull = i % 7 == 3;
		row[2].v.d = i / 3.0;
		snprintf(text, sizeof(text), "row-%d-%.*s", i, i % 23, "abcdefghijklmnopqrstuvwxyz");
		row[3].isnull = i % 6 == 1;
		row[3].v.s.p = (const uint8_t *) text;
		row[3].v.s.len = (uint32_t) strlen(text);
		row[4].isnull = i % 11 == 4;
		row[4].v.dec = (ts_int128) i * 13 - 5000;
		assert_true(ts_avro_writer_add(w, row, &err));
	}
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(plain, &out));
	ts_buf_free(&out);

	/* the header of a ZSTD file of the same schema, then the blocks */
	c = ts_avro_container_open(ts_fs_local_unconfined(), plain, &err);
	assert_non_null(c);
	w = ts_avro_writer_create(c->schema_json, TS_AVRO_CODEC_ZSTANDARD, &err);
	assert_non_null(w);
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	memcpy(sync, out.data + out.len - 16, 16);
	while ((rc = ts_avro_container_next_block(c, &err)) == 1)
	{
		size_t		bound = ZSTD_compressBound(c->block_len);
		uint8_t    *z = malloc(bound);
		size_t		zlen;

		assert_non_null(z);
		zlen = ZSTD_compress(z, bound, c->block, c->block_len, 3);
		assert_false(ZSTD_isError(zlen));
		append_block(&out, c->block_count + (block == bad_block ? delta : 0), z, zlen, sync);
		free(z);
		block++;
	}
	assert_int_equal(rc, 0);
	assert_true(block > 20);
	ts_avro_container_close(c);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);
	unlink(plain);
}

/*
 * Every row of path read by the reader, as text (into rows), with the
 * helper thread on or off; false with *err at the first error.  With the
 * thread on, a pause after each batch lets it get ahead.
 */
static bool
da_read(const char *path, bool ahead, ts_buf *rows, ts_err *err)
{
	const ts_type *types[DA_COLS];
	ts_read_column cols[DA_COLS];
	ts_reader_options opts;
	ts_format_reader *r;
	ts_batch	b;
	int			n;

	da_types(types);
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	opts.batch_rows = 7;		/* batches inside a block, not only at its start */
	for (int i = 0; i < DA_COLS; i++)
	{
		/* in another order than the file's */
		cols[i].field_id = -1;
		cols[i].name = da_names[(i + 2) % DA_COLS];
		cols[i].type = types[(i + 2) % DA_COLS];
	}
	ts_bg_set_enabled(ahead);
	r = ts_avro_open(path, cols, DA_COLS, &opts, err);
	if (r == NULL)
		return false;
	while ((n = ts_format_next(r, &b, err)) > 0)
	{
		assert_true(n <= 7);
		for (int i = 0; i < n; i++)
		{
			for (int c = 0; c < DA_COLS; c++)
				da_format(rows, ts_batch_at(&b, i, c), (c + 2) % DA_COLS);
			assert_true(ts_buf_append(rows, "\n", 1, err));
		}
		if (ahead)
			usleep(200);
	}
	ts_format_close(r);
	ts_bg_set_enabled(false);
	return n == 0;
}

/*
 * The helper thread decodes a block's objects when it decompresses it, for
 * a flat record: at the container, every block handed out with its objects
 * (block_values) has exactly the values of decoding its bytes in place,
 * and most blocks come so; through the reader, the same rows with the
 * thread on as off; and a block that announces an object more or fewer
 * than it holds fails the same way with the thread on (the decoding ahead
 * notices, and the scan decodes it again to report).
 */
/*
 * One pass over the container with the thread decoding ahead: every block
 * handed out with its objects must hold exactly what decoding its bytes in
 * place gives; the blocks seen and those that came decoded are counted.
 */
static void
decode_ahead_pass(const char *path, int *blocks, int *with_values)
{
	const ts_type *types[DA_COLS];
	ts_avro_container *c;
	ts_avro_plan *plan;
	ts_arena	arena;
	ts_err		err;
	ts_buf		a,
				b;
	ts_value   *scratch;
	int			rc;

	*blocks = *with_values = 0;
	da_types(types);
	ts_arena_init(&arena, 4096);
	c = ts_avro_container_open(ts_fs_local_unconfined(), path, &err);
	assert_non_null(c);
	plan = ts_avro_plan_top(c->schema->root, da_names, types, DA_COLS, &arena, path, &err);
	assert_non_null(plan);
	assert_non_null(plan->flat);
	c->decode_ahead = plan->flat;
	c->decode_nout = DA_COLS;
	scratch = calloc((size_t) DA_ROWS * DA_COLS, sizeof(ts_value));
	assert_non_null(scratch);
	ts_bg_set_enabled(true);
	while ((rc = ts_avro_container_next_block(c, &err)) == 1)
	{
		(*blocks)++;
		if (c->block_values != NULL)
		{
			ts_cursor	cur;

			(*with_values)++;
			ts_cursor_init(&cur, c->block, c->block_len);
			assert_int_equal(ts_avro_flat_decode(plan->flat, &cur, scratch, (int) c->block_count, &err),
							 c->block_count);
			assert_int_equal(ts_cursor_left(&cur), 0);
			for (int64_t i = 0; i < c->block_count * DA_COLS; i++)
			{
				ts_buf_init(&a);
				ts_buf_init(&b);
				da_format(&a, &c->block_values[i], (int) (i % DA_COLS));
				da_format(&b, &scratch[i], (int) (i % DA_COLS));
				if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
					fail_msg("block %d value %lld: ahead %.*s, in place %.*s", *blocks - 1,
							 (long long) i, (int) a.len, (char *) a.data, (int) b.len, (char *) b.data);
				ts_buf_free(&a);
				ts_buf_free(&b);
			}
		}
		usleep(500);			/* the thread gets ahead */
	}
	assert_int_equal(rc, 0);
	ts_bg_set_enabled(false);
	assert_int_equal(c->blocks_decoded_ahead, *with_values);
	ts_avro_container_close(c);
	free(scratch);
	ts_arena_free(&arena);
}

static void
test_decode_ahead(void **state)
{
	const char *path = tmp_path("decode_ahead");
	ts_err		err,
				err_ahead;
	ts_buf		a,
				b;
	int			blocks = 0,
				with_values = 0;

	(void) state;
	da_write(path, -1, 0);

	/*
	 * At the container.  How many blocks the thread gets to first is timing
	 * (on a loaded machine the reader may overtake it): passes are repeated,
	 * a bounded number of times, until most blocks came decoded.
	 */
	for (int attempt = 0; attempt < 20; attempt++)
	{
		decode_ahead_pass(path, &blocks, &with_values);
		if (with_values >= blocks / 2)
			break;
	}
	if (with_values < blocks / 2)
		fail_msg("%d of %d blocks came decoded (the last of 20 passes)", with_values, blocks);

	/* through the reader: the same rows */
	ts_buf_init(&a);
	ts_buf_init(&b);
	if (!da_read(path, false, &a, &err))
		fail_msg("read: %s", err.msg);
	if (!da_read(path, true, &b, &err))
		fail_msg("read ahead: %s", err.msg);
	assert_true(a.len > (size_t) DA_ROWS * 10);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	ts_buf_free(&a);
	ts_buf_free(&b);

	/* a block that miscounts its objects: the same error either way */
	for (int delta = -1; delta <= 1; delta += 2)
	{
		da_write(path, 7, delta);
		ts_buf_init(&a);
		ts_buf_init(&b);
		assert_false(da_read(path, false, &a, &err));
		assert_false(da_read(path, true, &b, &err_ahead));
		assert_string_equal(err.msg, err_ahead.msg);
		assert_non_null(strstr(err.msg, "block 7"));
		assert_int_equal(a.len, b.len);	/* the rows before it, the same */
		assert_memory_equal(a.data, b.data, a.len);
		ts_buf_free(&a);
		ts_buf_free(&b);
	}
	unlink(path);
	pool_free();
}

/*
 * With a buffer pool (options->buffers, as a split reader or a scan gives),
 * a reader's large buffers (the values of a batch, the read-ahead window,
 * the decompressed block) go back to the pool at close and the reader of
 * the next file takes them again: nothing new is allocated, and the rows
 * read are the same.
 */
static void
test_buffers_from_pool(void **state)
{
	ts_field	fields[2] = {{0, "n", T_nn(TS_INT)}, {1, "s", T(TS_VARCHAR)}};
	ts_read_column cols[2] = {{-1, "n", fields[0].type}, {-1, "s", fields[1].type}};
	const char *path = tmp_path("pooled");
	ts_bufpool *pool = ts_bufpool_new(64 << 20);
	ts_reader_options opts;
	ts_avro_writer *w;
	ts_buf		out;
	ts_err		err;
	size_t		kept = 0;
	const int	rows = 5000;

	(void) state;
	assert_non_null(pool);
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	opts.buffers = pool;
	w = ts_avro_writer_create_for_fields(fields, 2, TS_AVRO_CODEC_ZSTANDARD, &err);
	assert_non_null(w);
	for (int i = 0; i < rows; i++)
	{
		ts_value	row[2];
		char		text[32];

		memset(row, 0, sizeof(row));
		row[0].v.i = i;
		snprintf(text, sizeof(text), "value %d", i * 7);
		row[1].v.s.p = (const uint8_t *) text;
		row[1].v.s.len = (uint32_t) strlen(text);
		assert_true(ts_avro_writer_add(w, row, &err));
	}
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);

	for (int pass = 0; pass < 3; pass++)
	{
		ts_format_reader *r = ts_avro_open(path, cols, 2, &opts, &err);
		ts_batch	b;
		int			n,
					seen = 0;

		if (r == NULL)
			fail_msg("open: %s", err.msg);
		while ((n = ts_format_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++, seen++)
			{
				char		text[32];

				snprintf(text, sizeof(text), "value %d", seen * 7);
				assert_int_equal(ts_batch_at(&b, i, 0)->v.i, seen);
				assert_int_equal(ts_batch_at(&b, i, 1)->v.s.len, strlen(text));
				assert_memory_equal(ts_batch_at(&b, i, 1)->v.s.p, text, strlen(text));
			}
		assert_int_equal(n, 0);
		assert_int_equal(seen, rows);
		/* while a reader is open, it holds what the last one gave back */
		assert_int_equal(ts_bufpool_bytes(pool), 0);
		ts_format_close(r);
		if (pass == 0)
			kept = ts_bufpool_bytes(pool);
		else
			assert_int_equal(ts_bufpool_bytes(pool), kept);	/* the same buffers */
		assert_true(kept >= sizeof(ts_value) * 2 * TS_BATCH_ROWS);
	}
	ts_bufpool_free(pool);
	unlink(path);
	pool_free();
}

/*
 * A zstd block as Java writes it (a frame without its content size) that
 * decompresses to 20 times its size or more: decompressed in one pass into
 * a buffer sized by the frame's block count (at most one zstd block, 128
 * KB, more than the data), not by a guess that is doubled and retried.
 */
static void
test_zstd_block_without_content_size(void **state)
{
	const size_t plain_len = 700 * 1000;
	uint8_t    *plain = malloc(plain_len);
	size_t		bound = ZSTD_compressBound(plain_len);
	uint8_t    *packed = malloc(bound);
	ZSTD_CCtx  *cctx = ZSTD_createCCtx();
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	ts_buf		out;
	ts_err		err;

	(void) state;
	assert_non_null(plain);
	assert_non_null(packed);
	assert_non_null(cctx);
	for (size_t i = 0; i < plain_len; i++)
		plain[i] = (uint8_t) ("manifest-entry-"[i % 15] + (i / 4096) % 7);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0)));
	ib = (ZSTD_inBuffer) {plain, plain_len, 0};
	ob = (ZSTD_outBuffer) {packed, bound, 0};
	assert_int_equal(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_end), 0);
	ZSTD_freeCCtx(cctx);
	assert_int_equal(ZSTD_getFrameContentSize(packed, ob.pos), ZSTD_CONTENTSIZE_UNKNOWN);
	assert_true(ob.pos * 20 < plain_len);

	ts_buf_init(&out);
	memset(&err, 0, sizeof(err));
	if (!ts_avro_decompress(TS_AVRO_CODEC_ZSTANDARD, packed, ob.pos, &out, NULL, &err))
		fail_msg("decompress: %s", err.msg);
	assert_int_equal(out.len, plain_len);
	assert_memory_equal(out.data, plain, plain_len);
	assert_true(out.cap < plain_len + 2 * 128 * 1024);

	/* the same buffer again: kept, the same bytes */
	if (!ts_avro_decompress(TS_AVRO_CODEC_ZSTANDARD, packed, ob.pos, &out, NULL, &err))
		fail_msg("decompress again: %s", err.msg);
	assert_int_equal(out.len, plain_len);
	assert_memory_equal(out.data, plain, plain_len);

	/* cut short: an error, never a crash */
	ts_buf_reset(&out);
	assert_false(ts_avro_decompress(TS_AVRO_CODEC_ZSTANDARD, packed, ob.pos / 2, &out, NULL, &err));
	ts_buf_free(&out);
	free(packed);
	free(plain);
}

static void
test_corrupt_zstd_file(void **state)
{
	(void) state;
	corrupt_variants("testdata/avro/data/avro_all_types", "corrupt_zstd");
}

/* the same with an uncompressed file, where flipped bytes hit the decoder */
static void
test_corrupt_null_codec(void **state)
{
	const char *src = unit_shared_path("testdata/avro/data/avro_all_types");
	const char *plain = tmp_path("plain_all_types");
	ts_avro_container *c;
	ts_avro_writer *w;
	ts_err		err;
	ts_buf		out;
	size_t		len;
	uint8_t    *orig;
	uint8_t    *d;
	int			errors = 0;

	(void) state;
	/* re-frame the Java file's block uncompressed (same schema, same bytes) */
	c = ts_avro_container_open(ts_fs_local_unconfined(), src, &err);
	assert_non_null(c);
	assert_int_equal(ts_avro_container_next_block(c, &err), 1);
	w = ts_avro_writer_create(c->schema_json, TS_AVRO_CODEC_NULL, &err);
	assert_non_null(w);
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	/* header only so far; append the block by hand */
	{
		uint8_t		sync[16];

		memcpy(sync, out.data + out.len - 16, 16);
		append_block(&out, c->block_count, c->block, c->block_len, sync);
	}
	ts_avro_writer_free(w);
	ts_avro_container_close(c);
	assert_true(write_file(plain, &out));
	ts_buf_free(&out);
	assert_true(read_everything(plain, &err));

	orig = read_all(plain, &len);
	d = malloc(len);
	for (size_t pos = 0; pos < len; pos++)
	{
		for (int bit = 0; bit < 8; bit++)
		{
			ts_buf		b;

			memcpy(d, orig, len);
			d[pos] ^= (uint8_t) (1 << bit);
			b.data = d;
			b.len = len;
			assert_true(write_file(plain, &b));
			if (!read_everything(plain, &err))
			{
				assert_true(err.code == TS_ERR_CORRUPT || err.code == TS_ERR_UNSUPPORTED ||
							err.code == TS_ERR_NOMEM);
				errors++;
			}
		}
	}
	assert_true(errors > 0);
	unlink(plain);
	free(d);
	ts_free(orig);
	pool_free();
}

static void
test_unknown_codec(void **state)
{
	const char *path = tmp_path("bzip2");
	ts_avro_writer *w;
	ts_err		err;
	ts_buf		out;
	ts_format_reader *r;
	ts_read_column col = {-1, "a", NULL};
	uint8_t    *p;

	(void) state;
	col.type = T(TS_INT);
	w = ts_avro_writer_create("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}",
							  TS_AVRO_CODEC_SNAPPY, &err);
	assert_non_null(w);
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	/* rename the codec in place: "snappy" -> "bzip2x" (same length) */
	p = memmem(out.data, out.len, "snappy", 6);
	assert_non_null(p);
	memcpy(p, "bzip2x", 6);
	assert_true(write_file(path, &out));
	ts_buf_free(&out);
	r = ts_avro_open(path, &col, 1, unit_local_read(), &err);
	assert_null(r);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "bzip2x"));
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	pool_free();
}

/* A hostile header: huge metadata count and huge array counts must not allocate wildly. */
static void
test_hostile_lengths(void **state)
{
	const char *path = tmp_path("hostile");
	const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"null\"}}]}";
	ts_avro_writer *w;
	ts_err		err;
	ts_buf		out;
	ts_read_column col = {-1, "a", NULL};
	ts_format_reader *r;
	ts_batch	b;
	ts_value	v;
	ts_value	items[3];

	(void) state;
	col.type = T_array(T(TS_INT));
	w = ts_avro_writer_create(schema, TS_AVRO_CODEC_NULL, &err);
	assert_non_null(w);
	memset(&v, 0, sizeof(v));
	memset(items, 0, sizeof(items));
	for (int i = 0; i < 3; i++)
		items[i].isnull = true;
	v.v.nested.n = 3;
	v.v.nested.items = items;
	assert_true(ts_avro_writer_add(w, &v, &err));
	ts_buf_init(&out);
	assert_true(ts_avro_writer_finish(w, &out, &err));
	ts_avro_writer_free(w);
	/* the block is: count 1, size 2, [06 00] (3 nulls, end); make it 2^40 nulls */
	{
		ts_buf		h;
		static const uint8_t block[] = {0x02, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0x00};

		ts_buf_init(&h);
		assert_true(ts_buf_append(&h, out.data, out.len - 2 - 2 - 16, &err));
		assert_true(ts_buf_append(&h, block, 2, &err));
		/* replace payload: varint of 2^40 * 2 (zigzag) ... */
		assert_true(ts_buf_append(&h, block + 2, sizeof(block) - 2, &err));
		assert_true(ts_buf_append(&h, out.data + out.len - 16, 16, &err));
		assert_true(write_file(path, &h));
		ts_buf_free(&h);
	}
	ts_buf_free(&out);
	r = ts_avro_open(path, &col, 1, unit_local_read(), &err);
	assert_non_null(r);
	assert_int_equal(ts_format_next(r, &b, &err), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_format_close(r);
	unlink(path);
	pool_free();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_types),
		cmocka_unit_test(test_with_null),
		cmocka_unit_test(test_ts_precisions),
		cmocka_unit_test(test_manifest_09),
		cmocka_unit_test(test_manifest_11),
		cmocka_unit_test(test_manifest_list_09),
		cmocka_unit_test(test_manifest_list_11),
		cmocka_unit_test(test_schema_json_matches_java),
		cmocka_unit_test(test_round_trip_null),
		cmocka_unit_test(test_round_trip_deflate),
		cmocka_unit_test(test_round_trip_snappy),
		cmocka_unit_test(test_round_trip_zstd),
		cmocka_unit_test(test_round_trip_zstd_ahead),
		cmocka_unit_test(test_explicit_schema),
		cmocka_unit_test(test_unknown_codec),
		cmocka_unit_test(test_hostile_lengths),
		cmocka_unit_test(test_varint_lengths),
		cmocka_unit_test(test_zstd_growing_blocks),
		cmocka_unit_test(test_read_ahead_window),
		cmocka_unit_test(test_decode_ahead),
		cmocka_unit_test(test_buffers_from_pool),
		cmocka_unit_test(test_zstd_block_without_content_size),
		cmocka_unit_test(test_corrupt_zstd_file),
		cmocka_unit_test(test_corrupt_null_codec),
		cmocka_unit_test(test_block_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
