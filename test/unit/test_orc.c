/*
 * test_orc.c - the ORC reader against real files written by Java Paimon.
 *
 * Data files are compared value by value with the oracle rows
 * (../shared/oracle); ORC manifest lists and manifests of append_09 are
 * read by name (nested _FILE row, arrays) and the live file set of the
 * latest snapshot is compared with the oracle's expected splits and with
 * the files on disk; corrupted copies must fail cleanly.
 */
/* paths are built in fixed buffers far larger than any test path */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "unit.h"
#include "unit_fs.h"

#include <cJSON.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "format/orc/orc.h"

/* ---- a small parser for the oracle's type strings --------------------- */

static ts_type *parse_type(const char **s);

static void
skip_ws(const char **s)
{
	while (**s == ' ')
		(*s)++;
}

static bool
take(const char **s, const char *word)
{
	size_t		n = strlen(word);

	skip_ws(s);
	if (strncmp(*s, word, n) == 0)
	{
		*s += n;
		return true;
	}
	return false;
}

static int
parse_int(const char **s)
{
	int			v = 0;

	skip_ws(s);
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (*(*s)++ - '0');
	return v;
}

static ts_type *
parse_type(const char **s)
{
	ts_type    *t = NULL;

	skip_ws(s);
	if (take(s, "BIGINT"))
		t = ts_type_new(TS_BIGINT, true);
	else if (take(s, "INT"))
		t = ts_type_new(TS_INT, true);
	else if (take(s, "SMALLINT"))
		t = ts_type_new(TS_SMALLINT, true);
	else if (take(s, "TINYINT"))
		t = ts_type_new(TS_TINYINT, true);
	else if (take(s, "BOOLEAN"))
		t = ts_type_new(TS_BOOLEAN, true);
	else if (take(s, "DOUBLE"))
		t = ts_type_new(TS_DOUBLE, true);
	else if (take(s, "FLOAT"))
		t = ts_type_new(TS_FLOAT, true);
	else if (take(s, "DATE"))
		t = ts_type_new(TS_DATE, true);
	else if (take(s, "STRING"))
	{
		t = ts_type_new(TS_VARCHAR, true);
		t->length = TS_STRING_LENGTH;
	}
	else if (take(s, "BYTES"))
	{
		t = ts_type_new(TS_VARBINARY, true);
		t->length = TS_STRING_LENGTH;
	}
	else if (take(s, "DECIMAL("))
	{
		t = ts_type_new(TS_DECIMAL, true);
		t->precision = parse_int(s);
		take(s, ",");
		t->scale = parse_int(s);
		take(s, ")");
	}
	else if (take(s, "TIMESTAMP("))
	{
		int			p = parse_int(s);

		take(s, ")");
		t = ts_type_new(take(s, "WITH LOCAL TIME ZONE") ? TS_TIMESTAMP_LTZ : TS_TIMESTAMP, true);
		t->precision = p;
	}
	else if (take(s, "ARRAY<"))
	{
		t = ts_type_new(TS_ARRAY, true);
		t->element = parse_type(s);
		take(s, ">");
	}
	else if (take(s, "MAP<"))
	{
		t = ts_type_new(TS_MAP, true);
		t->key = parse_type(s);
		take(s, ",");
		t->value = parse_type(s);
		take(s, ">");
	}
	else if (take(s, "ROW<"))
	{
		t = ts_type_new(TS_ROW, true);
		t->fields = ts_calloc(16, sizeof(ts_field));
		while (!take(s, ">"))
		{
			const char *b;
			ts_field   *f = &t->fields[t->nfields++];

			take(s, ",");
			skip_ws(s);
			b = *s;
			while (**s != ' ')
				(*s)++;
			f->name = ts_strndup(b, *s - b);
			f->id = -1;
			f->type = parse_type(s);
		}
	}
	if (!t)
		fail_msg("cannot parse type %s", *s);
	if (take(s, "NOT NULL"))
		t->nullable = false;
	return t;
}

static ts_type *
type_from_string(const char *str)
{
	return parse_type(&str);
}

/* ---- oracle value comparison ------------------------------------------ */

static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		era;
	int64_t		yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SS[.fff...][Z]" -> millis + nanos of milli */
static void
parse_ts(const char *s, int64_t *millis, int32_t *nanos)
{
	int			y,
				mo,
				d,
				h,
				mi,
				se;
	int64_t		frac = 0;
	int			digits = 0;
	const char *p;

	assert_int_equal(sscanf(s, "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &se), 6);
	p = strchr(s, '.');
	if (p)
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			frac = frac * 10 + (*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*millis = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) * 1000 + frac / 1000000;
	*nanos = (int32_t) (frac % 1000000);
}

static ts_int128
parse_dec(const char *s, int scale)
{
	ts_int128	v = 0;
	bool		neg = *s == '-';
	int			frac = -1;

	if (neg)
		s++;
	for (; *s; s++)
	{
		if (*s == '.')
		{
			frac = 0;
			continue;
		}
		v = v * 10 + (*s - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < scale; frac++)
		v *= 10;
	return neg ? -v : v;
}

static bool
value_matches(const cJSON *j, const ts_type *t, const ts_value *v, char *why, size_t whylen)
{
	if (cJSON_IsNull(j) || v->isnull)
	{
		if (cJSON_IsNull(j) && v->isnull)
			return true;
		snprintf(why, whylen, "null mismatch (oracle %s, value %s)",
				 cJSON_IsNull(j) ? "null" : "not null", v->isnull ? "null" : "not null");
		return false;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			if ((cJSON_IsTrue(j) ? 1 : 0) == v->v.i)
				return true;
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (cJSON_IsNumber(j) && (int64_t) j->valuedouble == v->v.i)
				return true;
			snprintf(why, whylen, "int %lld vs oracle %g", (long long) v->v.i, j->valuedouble);
			return false;
		case TS_DOUBLE:
			if (cJSON_IsNumber(j) && j->valuedouble == v->v.d)
				return true;
			snprintf(why, whylen, "double %.17g vs oracle %.17g", v->v.d, j->valuedouble);
			return false;
		case TS_FLOAT:
			if (cJSON_IsNumber(j) && (float) j->valuedouble == v->v.f)
				return true;
			break;
		case TS_VARCHAR:
		case TS_CHAR:
			if (cJSON_IsString(j) && strlen(j->valuestring) == v->v.s.len &&
				memcmp(j->valuestring, v->v.s.p, v->v.s.len) == 0)
				return true;
			snprintf(why, whylen, "string \"%.*s\" vs oracle \"%s\"", (int) v->v.s.len,
					 (const char *) v->v.s.p, cJSON_IsString(j) ? j->valuestring : "?");
			return false;
		case TS_VARBINARY:
		case TS_BINARY:
			{
				char		hex[1024] = "\\x";
				uint32_t	i;

				for (i = 0; i < v->v.s.len && i < 500; i++)
					sprintf(hex + 2 + 2 * i, "%02x", v->v.s.p[i]);
				if (cJSON_IsString(j) && strcmp(hex, j->valuestring) == 0)
					return true;
				snprintf(why, whylen, "bytes %s vs oracle %s", hex,
						 cJSON_IsString(j) ? j->valuestring : "?");
				return false;
			}
		case TS_DATE:
			{
				int			y,
							m,
							d;

				if (cJSON_IsString(j) && sscanf(j->valuestring, "%d-%d-%d", &y, &m, &d) == 3 &&
					days_from_civil(y, m, d) == v->v.i)
					return true;
				snprintf(why, whylen, "date %lld vs oracle %s", (long long) v->v.i,
						 cJSON_IsString(j) ? j->valuestring : "?");
				return false;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		ms;
				int32_t		ns;

				if (!cJSON_IsString(j))
					break;
				parse_ts(j->valuestring, &ms, &ns);
				if (ms == v->v.ts.millis && ns == v->v.ts.nanos)
					return true;
				snprintf(why, whylen, "timestamp %lld ms + %d ns vs oracle %s (%lld ms + %d ns)",
						 (long long) v->v.ts.millis, v->v.ts.nanos, j->valuestring,
						 (long long) ms, ns);
				return false;
			}
		case TS_DECIMAL:
			if (cJSON_IsString(j) && parse_dec(j->valuestring, t->scale) == v->v.dec)
				return true;
			snprintf(why, whylen, "decimal %lld vs oracle %s", (long long) v->v.dec,
					 cJSON_IsString(j) ? j->valuestring : "?");
			return false;
		case TS_ARRAY:
			{
				int			i;

				if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != v->v.nested.n)
					break;
				for (i = 0; i < v->v.nested.n; i++)
					if (!value_matches(cJSON_GetArrayItem(j, i), t->element,
									   &v->v.nested.items[i], why, whylen))
						return false;
				return true;
			}
		case TS_MAP:
			{
				int			i;

				if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != v->v.nested.n)
					break;
				for (i = 0; i < v->v.nested.n; i++)
				{
					const cJSON *kv = cJSON_GetArrayItem(j, i);

					if (!value_matches(cJSON_GetArrayItem(kv, 0), t->key,
									   &v->v.nested.items[2 * i], why, whylen) ||
						!value_matches(cJSON_GetArrayItem(kv, 1), t->value,
									   &v->v.nested.items[2 * i + 1], why, whylen))
						return false;
				}
				return true;
			}
		case TS_ROW:
			{
				int			i;

				if (!cJSON_IsObject(j) || v->v.nested.n != t->nfields)
					break;
				for (i = 0; i < t->nfields; i++)
					if (!value_matches(cJSON_GetObjectItemCaseSensitive(j, t->fields[i].name),
									   t->fields[i].type, &v->v.nested.items[i], why, whylen))
						return false;
				return true;
			}
		default:
			break;
	}
	snprintf(why, whylen, "mismatch for type %s", ts_type_kind_name(t->kind));
	return false;
}

/* ---- helpers ---------------------------------------------------------- */

static cJSON *
load_json(const char *path)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	cJSON	   *j;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err))
		fail_msg("%s", err.msg);
	j = cJSON_Parse((const char *) data);
	ts_free(data);
	assert_non_null(j);
	return j;
}

typedef struct oracle_cols
{
	int			n;
	ts_type    *types[32];
	ts_read_column cols[32];
} oracle_cols;

static void
oracle_columns(const cJSON *case_json, oracle_cols *oc, bool skip_special)
{
	const cJSON *c;

	memset(oc, 0, sizeof(*oc));
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(case_json, "columns"))
	{
		const char *ty = cJSON_GetObjectItem(c, "type")->valuestring;

		if (skip_special && strstr(ty, "special field"))
			continue;
		oc->types[oc->n] = type_from_string(ty);
		oc->cols[oc->n].field_id = -1;
		oc->cols[oc->n].name = cJSON_GetObjectItem(c, "name")->valuestring;
		oc->cols[oc->n].type = oc->types[oc->n];
		oc->n++;
	}
}

static void
oracle_columns_free(oracle_cols *oc)
{
	int			i;

	for (i = 0; i < oc->n; i++)
		ts_type_free(oc->types[i]);
}

/* read every row of a file into a freshly allocated array of row copies */
typedef struct rows
{
	int			n;
	int			ncols;
	ts_value   *v;				/* top-level only; nested pointers die at next batch */
} rows;

/* Compare all rows of the file with oracle rows, in order. */
static void
compare_file_with_rows(const char *path, const oracle_cols *oc, const cJSON *orows)
{
	ts_err		err = {0};
	ts_format_reader *r = ts_orc_open(path, oc->cols, oc->n, unit_local_read(), &err);
	ts_batch	b;
	int			n,
				row = 0;

	if (!r)
		fail_msg("open %s: %s", path, err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		int			i,
					c;

		for (i = 0; i < n; i++, row++)
		{
			const cJSON *orow = cJSON_GetArrayItem(orows, row);

			if (!orow)
				fail_msg("%s: more rows than the oracle (%d)", path, cJSON_GetArraySize(orows));
			for (c = 0; c < oc->n; c++)
			{
				char		why[2048];

				if (!value_matches(cJSON_GetArrayItem(orow, c), oc->types[c],
								   ts_batch_at(&b, i, c), why, sizeof(why)))
					fail_msg("%s row %d column %s: %s", path, row, oc->cols[c].name, why);
			}
		}
	}
	if (n < 0)
		fail_msg("read %s: %s", path, err.msg);
	assert_int_equal(row, cJSON_GetArraySize(orows));
	assert_int_equal(r->metrics.rows_read, row);
	assert_true(r->metrics.bytes_read > 0);
	ts_format_close(r);
}

/* ---- tests: data files ------------------------------------------------ */

static void
test_oracle_data_files(void **state)
{
	glob_t		g;
	size_t		i;
	int			ncases = 0;

	(void) state;
	assert_int_equal(glob(unit_shared_path("oracle/orc__*data_file*.json"), 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
	{
		cJSON	   *cj = load_json(g.gl_pathv[i]);
		const char *table = cJSON_GetObjectItem(cj, "table")->valuestring;
		const cJSON *f;
		oracle_cols oc;

		oracle_columns(cj, &oc, false);
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(cj, "files"))
		{
			char		rel[8192];

			snprintf(rel, sizeof(rel), "testdata/%s/%s", table, f->valuestring);
			compare_file_with_rows(unit_shared_path(rel), &oc, cJSON_GetObjectItem(cj, "rows"));
			ncases++;
		}
		oracle_columns_free(&oc);
		cJSON_Delete(cj);
	}
	globfree(&g);
	assert_true(ncases >= 3);
}

/*
 * Single-data-file tables whose table-level oracle rows are exactly the
 * file's rows: TIMESTAMP(0/3/6/9) and LTZ written in Asia/Shanghai by Java
 * and in GMT by the C++ writer; negative timestamps and nulls.
 */
static void
check_single_file_case(const char *case_name, const char *file_rel)
{
	char		p[512];
	cJSON	   *cj;
	oracle_cols oc;

	snprintf(p, sizeof(p), "oracle/%s.json", case_name);
	cj = load_json(unit_shared_path(p));
	oracle_columns(cj, &oc, false);
	compare_file_with_rows(unit_shared_path(file_rel), &oc, cJSON_GetObjectItem(cj, "rows"));
	oracle_columns_free(&oc);
	cJSON_Delete(cj);
}

static void
test_timestamps_precision_and_zone(void **state)
{
	(void) state;
	/* Java writer, writer time zone Asia/Shanghai */
	check_single_file_case("orc__append_with_multiple_ts_precision_and_timezone__batch_latest",
						   "testdata/orc/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/bucket-0/data-3f58c403-1672-49a3-93c0-d90cfff9bd8a-0.orc");
	/* C++ writer, GMT: same values */
	check_single_file_case("orc__append_with_multiple_ts_precision_and_timezone__batch_latest",
						   "testdata/orc/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/bucket-0/cpp_paimon_write_apache_orc_9.orc");
}

static void
test_negative_timestamps(void **state)
{
	(void) state;
	check_single_file_case("orc__append_with_bloomfilter__read_with_index_predicates",
						   "testdata/orc/append_with_bloomfilter.db/append_with_bloomfilter/bucket-0/data-34e8acb2-110b-4c32-9dc6-d6435178d0ad-0.orc");
}

/*
 * Nested ROW<f0 STRING, f1 INT, f2 ARRAY<INT>> and MAP<INT, INT> in the
 * primary-key table's data files: every row the oracle returns after the
 * merge must be one of the rows stored in one of the table's data files.
 */
static void
test_nested_types(void **state)
{
	cJSON	   *cj = load_json(unit_shared_path("oracle/orc__pk_table_nested_type__batch_latest.json"));
	const cJSON *orows = cJSON_GetObjectItem(cj, "rows");
	oracle_cols oc;
	glob_t		g;
	size_t		fi;
	int			nrows = cJSON_GetArraySize(orows);
	bool		found[16] = {0};
	int			total = 0;
	int			i;

	(void) state;
	oracle_columns(cj, &oc, false);
	assert_true(nrows <= 16);
	assert_int_equal(glob(unit_shared_path("testdata/orc/pk_table_nested_type.db/pk_table_nested_type/dt=*/hr=*/bucket-*/*.orc"),
						  0, NULL, &g), 0);
	for (fi = 0; fi < g.gl_pathc; fi++)
	{
		ts_err		err = {0};
		ts_format_reader *r = ts_orc_open(g.gl_pathv[fi], oc.cols, oc.n, unit_local_read(), &err);
		ts_batch	b;
		int			n;

		if (!r)
			fail_msg("%s", err.msg);
		while ((n = ts_format_next(r, &b, &err)) > 0)
		{
			int			row;

			total += n;
			for (row = 0; row < n; row++)
			{
				/* every stored row has a non-null nested ROW with 3 fields */
				const ts_value *rv = ts_batch_at(&b, row, 4);

				assert_false(rv->isnull);
				assert_int_equal(rv->v.nested.n, 3);
				for (i = 0; i < nrows; i++)
				{
					const cJSON *orow = cJSON_GetArrayItem(orows, i);
					int			c;
					char		why[2048];

					for (c = 0; c < oc.n; c++)
						if (!value_matches(cJSON_GetArrayItem(orow, c), oc.types[c],
										   ts_batch_at(&b, row, c), why, sizeof(why)))
							break;
					if (c == oc.n)
						found[i] = true;
				}
			}
		}
		if (n < 0)
			fail_msg("%s", err.msg);
		ts_format_close(r);
	}
	globfree(&g);
	assert_true(total >= nrows);
	for (i = 0; i < nrows; i++)
		if (!found[i])
			fail_msg("oracle row %d not found in any data file", i);
	oracle_columns_free(&oc);
	cJSON_Delete(cj);
}

#define MULTI_STRIPES "testdata/append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes/bucket-0/data-55e21ed3-d118-4d75-a0fd-cd52039cb634-0.orc"
#define COMPLEX_FILE "testdata/orc/append_complex_data.db/append_complex_data/f1=10/bucket-0/data-14a30421-7650-486c-9876-66a1fa4356ff-0.orc"

/*
 * Field ids win over names: the file's f3 (DATE) carries paimon.id 2 and
 * f5 (DECIMAL) paimon.id 4 (see schema-0 of the table); ask for them under
 * other names, and for an id the file lacks (reads NULL).
 */
static void
test_field_id_resolution(void **state)
{
	cJSON	   *cj = load_json(unit_shared_path("oracle/orc__append_complex_data__data_file_p10_b0_snapshot4.json"));
	cJSON	   *schema = load_json(unit_shared_path("testdata/orc/append_complex_data.db/append_complex_data/schema/schema-0"));
	const cJSON *orows = cJSON_GetObjectItem(cj, "rows");
	const cJSON *f;
	int32_t		id_f3 = -1,
				id_f5 = -1;
	ts_type    *tdate = ts_type_new(TS_DATE, true);
	ts_type    *tdec = type_from_string("DECIMAL(23, 5)");
	ts_type    *tint = ts_type_new(TS_INT, true);
	ts_read_column cols[3];
	ts_err		err = {0};
	ts_format_reader *r;
	ts_batch	b;
	int			n,
				row = 0;

	(void) state;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(schema, "fields"))
	{
		const char *name = cJSON_GetObjectItem(f, "name")->valuestring;

		if (strcmp(name, "f3") == 0)
			id_f3 = cJSON_GetObjectItem(f, "id")->valueint;
		if (strcmp(name, "f5") == 0)
			id_f5 = cJSON_GetObjectItem(f, "id")->valueint;
	}
	assert_true(id_f3 >= 0 && id_f5 >= 0);
	cols[0] = (ts_read_column) {id_f3, "renamed_date", tdate};
	cols[1] = (ts_read_column) {id_f5, "f1", tdec};	/* wrong name, right id */
	cols[2] = (ts_read_column) {9999, "f2", tint};	/* id absent: NULL */
	r = ts_orc_open(unit_shared_path(COMPLEX_FILE), cols, 3, unit_local_read(), &err);
	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		int			i;

		for (i = 0; i < n; i++, row++)
		{
			const cJSON *orow = cJSON_GetArrayItem(orows, row);
			char		why[2048];

			/* oracle columns: f1 f2 f3 f4 f5 f6 */
			if (!value_matches(cJSON_GetArrayItem(orow, 2), tdate, ts_batch_at(&b, i, 0), why, sizeof(why)) ||
				!value_matches(cJSON_GetArrayItem(orow, 4), tdec, ts_batch_at(&b, i, 1), why, sizeof(why)))
				fail_msg("row %d: %s", row, why);
			assert_true(ts_batch_at(&b, i, 2)->isnull);
		}
	}
	assert_int_equal(n, 0);
	assert_int_equal(row, cJSON_GetArraySize(orows));
	ts_format_close(r);

	/* a type the file cannot give: DATE column asked as STRING */
	{
		ts_type    *ts = type_from_string("STRING");

		cols[0] = (ts_read_column) {id_f3, "f3", ts};
		r = ts_orc_open(unit_shared_path(COMPLEX_FILE), cols, 1, unit_local_read(), &err);
		assert_null(r);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "f3"));
		ts_type_free(ts);
	}
	ts_type_free(tdate);
	ts_type_free(tdec);
	ts_type_free(tint);
	cJSON_Delete(schema);
	cJSON_Delete(cj);
}

/*
 * Every ORC data file in the test data reads completely with its own
 * schema (ts_orc_file_schema), requested by field id, and again with only
 * its last column; both reads give the same number of rows.
 */
static int64_t
read_count(const char *path, const ts_read_column *cols, int ncols)
{
	ts_err		err = {0};
	ts_format_reader *r = ts_orc_open(path, cols, ncols, unit_local_read(), &err);
	ts_batch	b;
	int			n;
	int64_t		rows = 0;

	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		assert_int_equal(b.ncols, ncols);
		rows += n;
	}
	if (n < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(r->metrics.rows_read, rows);
	ts_format_close(r);
	return rows;
}

static void
test_all_data_files_decode(void **state)
{
	glob_t		g;
	size_t		i;
	int			nfiles = 0;
	int64_t		total = 0;

	(void) state;
	assert_int_equal(glob(unit_shared_path("testdata/orc/*.db/*/*/*.orc"), 0, NULL, &g), 0);
	assert_int_equal(glob(unit_shared_path("testdata/orc/*.db/*/*/*/*.orc"), GLOB_APPEND, NULL, &g), 0);
	assert_int_equal(glob(unit_shared_path("testdata/orc/*.db/*/*/*/*/*.orc"), GLOB_APPEND, NULL, &g), 0);
	assert_int_equal(glob(unit_shared_path(MULTI_STRIPES), GLOB_APPEND, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
	{
		ts_err		err = {0};
		ts_type    *row = ts_orc_file_schema(ts_fs_local_unconfined(), g.gl_pathv[i], &err);
		ts_read_column cols[64];
		int			c;
		int64_t		n1,
					n2;

		if (!row)
			fail_msg("%s", err.msg);
		assert_int_equal(row->kind, TS_ROW);
		assert_true(row->nfields > 0 && row->nfields <= 64);
		for (c = 0; c < row->nfields; c++)
			cols[c] = (ts_read_column) {row->fields[c].id, row->fields[c].name, row->fields[c].type};
		n1 = read_count(g.gl_pathv[i], cols, row->nfields);
		n2 = read_count(g.gl_pathv[i], &cols[row->nfields - 1], 1);
		assert_int_equal(n1, n2);
		total += n1;
		nfiles++;
		ts_type_free(row);
	}
	globfree(&g);
	assert_true(nfiles >= 140);
	assert_true(total > 0);
}

/* ---- tests: statistics filter ----------------------------------------- */

typedef struct stats_probe
{
	int			calls;
	bool		keep;
	ts_column_stats got[4];
} stats_probe;

static bool
probe_filter(void *arg, const ts_column_stats *stats, int ncols)
{
	stats_probe *p = arg;

	p->calls++;
	memcpy(p->got, stats, sizeof(ts_column_stats) * (ncols < 4 ? ncols : 4));
	return p->keep;
}

static void
test_stats_filter(void **state)
{
	const char *path = unit_shared_path("testdata/orc/append_09.db/append_09/f1=10/bucket-1/data-b9e7c41f-66e8-4dad-b25a-e6e1963becc4-0.orc");
	ts_type    *tstr = type_from_string("STRING");
	ts_type    *tint = ts_type_new(TS_INT, true);
	ts_type    *tdbl = ts_type_new(TS_DOUBLE, true);
	ts_read_column cols[4] = {
		{-1, "f0", tstr}, {-1, "f1", tint}, {-1, "f3", tdbl}, {-1, "nope", tint}
	};
	stats_probe probe = {0};
	ts_reader_options opt = {.fs = ts_fs_local_unconfined()};
	ts_err		err = {0};
	ts_format_reader *r;
	ts_batch	b;
	int			n,
				i;
	double		dmin = 1e300,
				dmax = -1e300;
	char		smin[64] = "\x7f",
				smax[64] = "";

	(void) state;
	opt.stats_filter = probe_filter;
	opt.stats_filter_arg = &probe;

	/* keep: stats must agree with the values actually read */
	probe.keep = true;
	r = ts_orc_open(path, cols, 4, &opt, &err);
	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
		for (i = 0; i < n; i++)
		{
			const ts_value *s = ts_batch_at(&b, i, 0);
			const ts_value *d = ts_batch_at(&b, i, 2);
			char		tmp[64];

			snprintf(tmp, sizeof(tmp), "%.*s", (int) s->v.s.len, (const char *) s->v.s.p);
			if (strcmp(tmp, smin) < 0)
				strcpy(smin, tmp);
			if (strcmp(tmp, smax) > 0)
				strcpy(smax, tmp);
			if (d->v.d < dmin)
				dmin = d->v.d;
			if (d->v.d > dmax)
				dmax = d->v.d;
			assert_int_equal(ts_batch_at(&b, i, 1)->v.i, 10);
		}
	assert_int_equal(n, 0);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(r->metrics.row_groups_total, 1);
	assert_int_equal(r->metrics.row_groups_kept, 1);
	assert_int_equal(r->metrics.rows_read, 8);
	assert_true(probe.got[0].has_min_max);
	assert_int_equal(probe.got[0].min.v.s.len, strlen(smin));
	assert_memory_equal(probe.got[0].min.v.s.p, smin, strlen(smin));
	assert_memory_equal(probe.got[0].max.v.s.p, smax, strlen(smax));
	assert_true(probe.got[1].has_min_max);
	assert_int_equal(probe.got[1].min.v.i, 10);
	assert_int_equal(probe.got[1].max.v.i, 10);
	assert_true(probe.got[2].has_min_max);
	assert_true(probe.got[2].min.v.d == dmin);
	assert_true(probe.got[2].max.v.d == dmax);
	assert_int_equal(probe.got[2].null_count, 0);
	assert_int_equal(probe.got[2].row_count, 8);
	/* column absent from the file: all null */
	assert_false(probe.got[3].has_min_max);
	assert_int_equal(probe.got[3].null_count, 8);
	ts_format_close(r);

	/* skip: no rows, nothing kept */
	probe.keep = false;
	probe.calls = 0;
	r = ts_orc_open(path, cols, 4, &opt, &err);
	assert_non_null(r);
	assert_int_equal(ts_format_next(r, &b, &err), 0);
	assert_int_equal(probe.calls, 1);
	assert_int_equal(r->metrics.row_groups_kept, 0);
	assert_int_equal(r->metrics.rows_read, 0);
	ts_format_close(r);

	ts_type_free(tstr);
	ts_type_free(tint);
	ts_type_free(tdbl);
}

/*
 * append_with_bitmap_multi_stripes: one row per stripe (8 stripes), so a
 * stripe filter over the reader's statistics answers simple predicates
 * exactly; compare with the oracle's subcase rows.
 */

typedef struct pred_filter
{
	const char *label;
	int			calls;
} pred_filter;

static int
bytes_cmp(const ts_value *v, const char *lit)
{
	size_t		l = strlen(lit);
	int			c = memcmp(v->v.s.p, lit, v->v.s.len < l ? v->v.s.len : l);

	return c ? c : (v->v.s.len < l ? -1 : v->v.s.len > l ? 1 : 0);
}

static bool
pred_keep(void *arg, const ts_column_stats *st, int ncols)
{
	pred_filter *pf = arg;
	const char *l = pf->label;

	assert_int_equal(ncols, 4);
	pf->calls++;
	assert_int_equal(st[0].row_count, 1);
	if (strcmp(l, "f1 = 20") == 0)
		return !st[1].has_min_max || (st[1].min.v.i <= 20 && st[1].max.v.i >= 20);
	if (strncmp(l, "f1 > 10", 7) == 0)
		return !st[1].has_min_max || st[1].max.v.i > 10;
	if (strncmp(l, "f1 > 30", 7) == 0)
		return !st[1].has_min_max || st[1].max.v.i > 30;
	if (strncmp(l, "f3 = 14.1", 9) == 0)
		return !st[3].has_min_max || (st[3].min.v.d <= 14.1 && st[3].max.v.d >= 14.1);
	if (strcmp(l, "f2 is null") == 0)
		return st[2].null_count != 0;
	if (strcmp(l, "f2 is not null") == 0)
		return st[2].null_count < 0 || st[2].null_count < st[2].row_count;
	if (strcmp(l, "f0 = Alice") == 0)
		return !st[0].has_min_max ||
			(bytes_cmp(&st[0].min, "Alice") <= 0 && bytes_cmp(&st[0].max, "Alice") >= 0);
	fail_msg("no filter for %s", l);
	return true;
}

static void
test_multi_stripe_pushdown(void **state)
{
	cJSON	   *cj = load_json(unit_shared_path("oracle/orc__append_with_bitmap_multi_stripes__read_with_index_predicates.json"));
	oracle_cols oc;
	const cJSON *sc;
	int			checked = 0;

	(void) state;
	oracle_columns(cj, &oc, false);
	compare_file_with_rows(unit_shared_path(MULTI_STRIPES), &oc, cJSON_GetObjectItem(cj, "rows"));
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(cj, "subcases"))
	{
		const char *label = cJSON_GetObjectItem(sc, "label")->valuestring;
		pred_filter pf = {label, 0};
		ts_reader_options opt = {.fs = ts_fs_local_unconfined()};
		ts_err		err = {0};
		ts_format_reader *r;
		const cJSON *orows = cJSON_GetObjectItem(sc, "rows");
		ts_batch	b;
		int			n,
					row = 0;

		if (strcmp(label, "f1 = 20") != 0 && strncmp(label, "f1 > 10", 7) != 0 &&
			strncmp(label, "f1 > 30", 7) != 0 && strncmp(label, "f3 = 14.1", 9) != 0 &&
			strcmp(label, "f2 is null") != 0 && strcmp(label, "f2 is not null") != 0 &&
			strcmp(label, "f0 = Alice") != 0)
			continue;
		opt.stats_filter = pred_keep;
		opt.stats_filter_arg = &pf;
		r = ts_orc_open(unit_shared_path(MULTI_STRIPES), oc.cols, oc.n, &opt, &err);
		if (!r)
			fail_msg("%s", err.msg);
		while ((n = ts_format_next(r, &b, &err)) > 0)
		{
			int			i,
						c;

			for (i = 0; i < n; i++, row++)
			{
				const cJSON *orow = cJSON_GetArrayItem(orows, row);
				char		why[2048];

				if (!orow)
					fail_msg("%s: more rows than the oracle", label);
				for (c = 0; c < oc.n; c++)
					if (!value_matches(cJSON_GetArrayItem(orow, c), oc.types[c],
									   ts_batch_at(&b, i, c), why, sizeof(why)))
						fail_msg("%s row %d: %s", label, row, why);
			}
		}
		assert_int_equal(n, 0);
		assert_int_equal(row, cJSON_GetArraySize(orows));
		assert_int_equal(pf.calls, 8);
		assert_int_equal(r->metrics.row_groups_total, 8);
		assert_int_equal(r->metrics.row_groups_kept, row);
		ts_format_close(r);
		checked++;
	}
	assert_int_equal(checked, 7);
	oracle_columns_free(&oc);
	cJSON_Delete(cj);
}

/* ---- tests: manifests ------------------------------------------------- */

#define APPEND09 "testdata/orc/append_09.db/append_09"

typedef struct live_file
{
	char		name[128];
	char		partition_hex[128];
	int			bucket;
	int			level;
	int64_t		size;
	int64_t		rows;
	int64_t		min_seq,
				max_seq;
	int			source;
	int			extra_files;
	bool		deleted;
} live_file;

static ts_type *
manifest_entry_type(void)
{
	return type_from_string("ROW<_KIND INT, _PARTITION BYTES, _BUCKET INT, _TOTAL_BUCKETS INT, "
							"_FILE ROW<_FILE_NAME STRING, _FILE_SIZE BIGINT, _ROW_COUNT BIGINT, "
							"_MIN_SEQUENCE_NUMBER BIGINT, _MAX_SEQUENCE_NUMBER BIGINT, _LEVEL INT, "
							"_EXTRA_FILES ARRAY<STRING>, _FILE_SOURCE INT, _NOT_THERE STRING, "
							"_VALUE_STATS ROW<_MIN_VALUES BYTES, _MAX_VALUES BYTES, _NULL_COUNTS ARRAY<BIGINT>>>>");
}

static void
hexify(const ts_value *v, char *out, size_t outlen)
{
	uint32_t	i;

	out[0] = '\0';
	for (i = 0; i < v->v.s.len && 2 * i + 3 < outlen; i++)
		sprintf(out + 2 * i, "%02x", v->v.s.p[i]);
}

/* read a manifest file's entries (by name, top-level columns = row fields) */
static void
read_manifest(const char *path, live_file *files, int *nfiles, int maxfiles)
{
	ts_type    *row = manifest_entry_type();
	ts_read_column cols[8];
	ts_err		err = {0};
	ts_format_reader *r;
	ts_batch	b;
	int			n,
				c;

	for (c = 0; c < row->nfields; c++)
		cols[c] = (ts_read_column) {-1, row->fields[c].name, row->fields[c].type};
	r = ts_orc_open(path, cols, row->nfields, unit_local_read(), &err);
	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		int			i;

		for (i = 0; i < n; i++)
		{
			const ts_value *kind = ts_batch_at(&b, i, 0);
			const ts_value *file = ts_batch_at(&b, i, 4);
			const ts_value *fv = file->v.nested.items;
			live_file	lf;
			int			k;

			assert_false(kind->isnull);
			assert_false(file->isnull);
			assert_int_equal(file->v.nested.n, 10);
			memset(&lf, 0, sizeof(lf));
			snprintf(lf.name, sizeof(lf.name), "%.*s", (int) fv[0].v.s.len, (const char *) fv[0].v.s.p);
			hexify(ts_batch_at(&b, i, 1), lf.partition_hex, sizeof(lf.partition_hex));
			lf.bucket = (int) ts_batch_at(&b, i, 2)->v.i;
			lf.size = fv[1].v.i;
			lf.rows = fv[2].v.i;
			lf.min_seq = fv[3].v.i;
			lf.max_seq = fv[4].v.i;
			lf.level = (int) fv[5].v.i;
			assert_false(fv[6].isnull);		/* _EXTRA_FILES is non-null */
			lf.extra_files = fv[6].v.nested.n;
			lf.source = fv[7].isnull ? -1 : (int) fv[7].v.i;
			assert_true(fv[8].isnull);		/* field not in the file */
			/* _VALUE_STATS: BinaryRows + one null count per column (4) */
			assert_false(fv[9].isnull);
			assert_int_equal(fv[9].v.nested.n, 3);
			assert_int_equal(fv[9].v.nested.items[2].v.nested.n, 4);
			if (kind->v.i == 0)
			{
				assert_true(*nfiles < maxfiles);
				files[(*nfiles)++] = lf;
			}
			else
			{
				assert_int_equal(kind->v.i, 1);
				for (k = 0; k < *nfiles; k++)
					if (!files[k].deleted && strcmp(files[k].name, lf.name) == 0 &&
						files[k].bucket == lf.bucket && files[k].level == lf.level &&
						strcmp(files[k].partition_hex, lf.partition_hex) == 0)
					{
						files[k].deleted = true;
						break;
					}
				assert_true(k < *nfiles);
			}
		}
	}
	if (n < 0)
		fail_msg("%s", err.msg);
	ts_format_close(r);
	ts_type_free(row);
}

/* read a manifest list: the manifest file names, in order */
static int
read_manifest_list(const char *path, char names[][128], int max, int64_t *added_total)
{
	ts_type    *tstr = type_from_string("STRING");
	ts_type    *tbig = ts_type_new(TS_BIGINT, true);
	ts_type    *tstats = type_from_string("ROW<_MIN_VALUES BYTES, _MAX_VALUES BYTES, _NULL_COUNTS ARRAY<BIGINT>>");
	ts_read_column cols[5] = {
		{-1, "_FILE_NAME", tstr}, {-1, "_FILE_SIZE", tbig}, {-1, "_NUM_ADDED_FILES", tbig},
		{-1, "_NUM_DELETED_FILES", tbig}, {-1, "_PARTITION_STATS", tstats}
	};
	ts_err		err = {0};
	ts_format_reader *r = ts_orc_open(path, cols, 5, unit_local_read(), &err);
	ts_batch	b;
	int			n,
				count = 0;

	if (!r)
		fail_msg("%s", err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		int			i;

		for (i = 0; i < n; i++)
		{
			const ts_value *name = ts_batch_at(&b, i, 0);
			char		mpath[8192];
			struct stat st;

			assert_true(count < max);
			snprintf(names[count], 128, "%.*s", (int) name->v.s.len, (const char *) name->v.s.p);
			/* the manifest exists with the recorded size */
			snprintf(mpath, sizeof(mpath), "%s/manifest/%s", unit_shared_path(APPEND09), names[count]);
			assert_int_equal(stat(mpath, &st), 0);
			assert_int_equal(st.st_size, ts_batch_at(&b, i, 1)->v.i);
			*added_total += ts_batch_at(&b, i, 2)->v.i;
			assert_false(ts_batch_at(&b, i, 4)->isnull);
			count++;
		}
	}
	if (n < 0)
		fail_msg("%s", err.msg);
	ts_format_close(r);
	ts_type_free(tstr);
	ts_type_free(tbig);
	ts_type_free(tstats);
	return count;
}

static void
test_manifests(void **state)
{
	cJSON	   *snap = load_json(unit_shared_path(APPEND09 "/snapshot/snapshot-5"));
	cJSON	   *plan = load_json(unit_shared_path("oracle/orc__append_09__plan_latest_mode.json"));
	cJSON	   *rows5 = load_json(unit_shared_path("oracle/orc__append_09__batch_snapshot5.json"));
	const char *lists[2];
	live_file	files[64];
	int			nfiles = 0;
	int			l,
				i;
	int64_t		added = 0,
				live_rows = 0;
	int			nlive = 0,
				nexpected = 0;
	const cJSON *split;

	(void) state;
	lists[0] = cJSON_GetObjectItem(snap, "baseManifestList")->valuestring;
	lists[1] = cJSON_GetObjectItem(snap, "deltaManifestList")->valuestring;
	for (l = 0; l < 2; l++)
	{
		char		lpath[8192];
		char		names[16][128];
		int			nm;

		snprintf(lpath, sizeof(lpath), "%s/manifest/%s", unit_shared_path(APPEND09), lists[l]);
		nm = read_manifest_list(lpath, names, 16, &added);
		for (i = 0; i < nm; i++)
		{
			char		mpath[8192];

			snprintf(mpath, sizeof(mpath), "%s/manifest/%s", unit_shared_path(APPEND09), names[i]);
			read_manifest(mpath, files, &nfiles, 64);
		}
	}
	assert_int_equal(added, nfiles);	/* _NUM_ADDED_FILES adds up */

	/* live files exist on disk under <table>/f1=*\/bucket-<b>/ with their size */
	for (i = 0; i < nfiles; i++)
	{
		char		pattern[8192];
		glob_t		g;
		struct stat st;

		if (files[i].deleted)
			continue;
		nlive++;
		live_rows += files[i].rows;
		assert_int_equal(files[i].extra_files, 0);
		snprintf(pattern, sizeof(pattern), "%s/f1=*/bucket-%d/%s", unit_shared_path(APPEND09),
				 files[i].bucket, files[i].name);
		assert_int_equal(glob(pattern, 0, NULL, &g), 0);
		assert_int_equal(g.gl_pathc, 1);
		assert_int_equal(stat(g.gl_pathv[0], &st), 0);
		assert_int_equal(st.st_size, files[i].size);
		globfree(&g);
	}
	/* the row counts add up to the snapshot's rows */
	assert_int_equal(live_rows, cJSON_GetArraySize(cJSON_GetObjectItem(rows5, "rows")));
	assert_int_equal(live_rows, cJSON_GetObjectItem(snap, "totalRecordCount")->valuedouble);

	/* and the live set is exactly the oracle's plan (file meta included) */
	cJSON_ArrayForEach(split, cJSON_GetObjectItem(plan, "expected_splits"))
	{
		const cJSON *fm;
		int			bucket = cJSON_GetObjectItem(split, "bucket")->valueint;

		cJSON_ArrayForEach(fm, cJSON_GetObjectItem(split, "file_meta"))
		{
			const char *name = cJSON_GetObjectItem(fm, "file")->valuestring;
			const char *src = cJSON_GetObjectItem(fm, "file_source")->valuestring;

			nexpected++;
			for (i = 0; i < nfiles; i++)
				if (!files[i].deleted && strcmp(files[i].name, name) == 0)
					break;
			if (i == nfiles)
				fail_msg("planned file %s not live in the manifests", name);
			assert_int_equal(files[i].bucket, bucket);
			assert_int_equal(files[i].size, cJSON_GetObjectItem(fm, "file_size")->valuedouble);
			assert_int_equal(files[i].rows, cJSON_GetObjectItem(fm, "row_count")->valuedouble);
			assert_int_equal(files[i].level, cJSON_GetObjectItem(fm, "level")->valueint);
			assert_int_equal(files[i].min_seq, cJSON_GetObjectItem(fm, "min_sequence_number")->valuedouble);
			assert_int_equal(files[i].max_seq, cJSON_GetObjectItem(fm, "max_sequence_number")->valuedouble);
			assert_int_equal(files[i].source, strcmp(src, "Append") == 0 ? 0 : 1);
		}
	}
	assert_int_equal(nexpected, nlive);
	cJSON_Delete(snap);
	cJSON_Delete(plan);
	cJSON_Delete(rows5);
}

/* Every ORC manifest / manifest list in the test data opens and reads. */
static void
test_all_orc_manifests_decode(void **state)
{
	glob_t		g;
	size_t		i;
	ts_type    *tstr = type_from_string("STRING");
	ts_type    *tfile = type_from_string("ROW<_FILE_NAME STRING, _ROW_COUNT BIGINT, _EXTRA_FILES ARRAY<STRING>, "
										 "_KEY_STATS ROW<_MIN_VALUES BYTES, _NULL_COUNTS ARRAY<BIGINT>>>");
	int			nfiles = 0;

	(void) state;
	assert_int_equal(glob(unit_shared_path("testdata/orc/*.db/*/manifest/manifest-*"), 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
	{
		uint8_t		head[3];
		FILE	   *fp = fopen(g.gl_pathv[i], "rb");
		ts_read_column cols[3] = {
			{-1, "_FILE_NAME", tstr}, {-1, "_FILE", tfile}, {-1, "_INDEX_TYPE", tstr}
		};
		ts_err		err = {0};
		ts_format_reader *r;
		ts_batch	b;
		int			n;
		int64_t		rows = 0;

		assert_non_null(fp);
		if (fread(head, 1, 3, fp) != 3 || memcmp(head, "ORC", 3) != 0)
		{
			fclose(fp);
			continue;
		}
		fclose(fp);
		r = ts_orc_open(g.gl_pathv[i], cols, 3, unit_local_read(), &err);
		if (!r)
			fail_msg("%s", err.msg);
		while ((n = ts_format_next(r, &b, &err)) > 0)
		{
			int			k;

			for (k = 0; k < n; k++)
			{
				const ts_value *fn = ts_batch_at(&b, k, 0);
				const ts_value *fl = ts_batch_at(&b, k, 1);

				/* manifest lists and index manifests have _FILE_NAME, manifests _FILE */
				assert_true(!fn->isnull || !fl->isnull);
				if (!fl->isnull)
				{
					assert_int_equal(fl->v.nested.n, 4);
					assert_false(fl->v.nested.items[0].isnull);
					assert_true(fl->v.nested.items[0].v.s.len > 0);
					assert_true(fl->v.nested.items[1].v.i >= 0);
				}
			}
			rows += n;
		}
		if (n < 0)
			fail_msg("%s: %s", g.gl_pathv[i], err.msg);
		assert_int_equal(r->metrics.rows_read, rows);
		ts_format_close(r);
		nfiles++;
	}
	globfree(&g);
	assert_true(nfiles > 50);
	ts_type_free(tstr);
	ts_type_free(tfile);
}

/* ---- tests: corruption ------------------------------------------------ */

static int
read_all(const char *path, const ts_read_column *cols, int ncols, ts_err *err)
{
	ts_format_reader *r = ts_orc_open(path, cols, ncols, unit_local_read(), err);
	ts_batch	b;
	int			n,
				total = 0;

	if (!r)
		return -1;
	while ((n = ts_format_next(r, &b, err)) > 0)
		total += n;
	ts_format_close(r);
	return n < 0 ? -1 : total;
}

static void
write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE	   *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, len, fp), len);
	fclose(fp);
}

static void
corrupt_one(const char *src, const ts_read_column *cols, int ncols)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	char		tmp[256];
	size_t		off;
	int			errors = 0,
				runs = 0;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), src, &data, &len, &err))
		fail_msg("%s", err.msg);
	/* many small files: prefer memory-backed /dev/shm when there is one */
	snprintf(tmp, sizeof(tmp), "%s/ts_orc_corrupt_%d.orc",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int) getpid());

	/* truncation: every length from 0 to len-1 */
	for (off = 0; off < len; off++)
	{
		write_file(tmp, data, off);
		memset(&err, 0, sizeof(err));
		if (read_all(tmp, cols, ncols, &err) < 0)
		{
			assert_int_not_equal(err.code, TS_OK);
			assert_true(err.msg[0] != '\0');
			errors++;
		}
		runs++;
	}
	/* truncated files never decode (the postscript moves) */
	assert_int_equal(errors, runs);

	/* flipped bytes everywhere: errors or (rarely) other values, never a crash */
	for (off = 0; off < len; off++)
	{
		static const uint8_t flips[] = {0xff, 0x80, 0x01};
		int			f;

		for (f = 0; f < 3; f++)
		{
			uint8_t		save = data[off];

			data[off] ^= flips[f];
			write_file(tmp, data, len);
			memset(&err, 0, sizeof(err));
			if (read_all(tmp, cols, ncols, &err) < 0)
				assert_int_not_equal(err.code, TS_OK);
			data[off] = save;
		}
	}
	/* the last byte is the postscript length: 0 and too large */
	data[len - 1] = 0;
	write_file(tmp, data, len);
	memset(&err, 0, sizeof(err));
	assert_int_equal(read_all(tmp, cols, ncols, &err), -1);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "postscript"));
	assert_non_null(strstr(err.msg, tmp));
	unlink(tmp);
	ts_free(data);
}

static void
test_corruption(void **state)
{
	cJSON	   *cj = load_json(unit_shared_path("oracle/orc__append_complex_data__data_file_p10_b0_snapshot4.json"));
	oracle_cols oc;
	ts_type    *mt = manifest_entry_type();
	ts_read_column mcols[8];
	int			c;

	(void) state;
	oracle_columns(cj, &oc, false);
	corrupt_one(unit_shared_path(COMPLEX_FILE), oc.cols, oc.n);
	for (c = 0; c < mt->nfields; c++)
		mcols[c] = (ts_read_column) {-1, mt->fields[c].name, mt->fields[c].type};
	corrupt_one(unit_shared_path(APPEND09 "/manifest/manifest-3a44a0da-1008-463c-914e-28d271375e24-0"),
				mcols, mt->nfields);
	ts_type_free(mt);
	oracle_columns_free(&oc);
	cJSON_Delete(cj);
}

static void
test_missing_file(void **state)
{
	ts_err		err = {0};
	ts_type    *t = ts_type_new(TS_INT, true);
	ts_read_column col = {-1, "a", t};

	(void) state;
	assert_null(ts_orc_open("/nonexistent/x.orc", &col, 1, unit_local_read(), &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	ts_type_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_data_files),
		cmocka_unit_test(test_timestamps_precision_and_zone),
		cmocka_unit_test(test_negative_timestamps),
		cmocka_unit_test(test_nested_types),
		cmocka_unit_test(test_field_id_resolution),
		cmocka_unit_test(test_all_data_files_decode),
		cmocka_unit_test(test_stats_filter),
		cmocka_unit_test(test_multi_stripe_pushdown),
		cmocka_unit_test(test_manifests),
		cmocka_unit_test(test_all_orc_manifests_decode),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
