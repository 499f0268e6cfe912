/*
 * test_parquet.c - the native Parquet reader against real Paimon files.
 *
 * Reads Parquet data files written by Java Paimon (../shared/testdata)
 * and compares the rows with the oracle's expected rows (../shared/oracle),
 * converting the oracle's textual values (ISO timestamps, dates, decimal
 * strings...) independently of the reader.  Also: field-id vs name
 * resolution, missing columns, projection, the statistics filter, and
 * corrupt files (truncation, bad magic, byte flips) that must fail cleanly.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "unit.h"
#include "unit_fs.h"

#include <ftw.h>
#include <unistd.h>

#include "../parquet/pq_spec.h"

/* ---- helpers -------------------------------------------------------- */

static cJSON *
load_json(const char *path)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err;
	cJSON	   *j;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err))
		fail_msg("%s", err.msg);
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	return j;
}

/* latest schema-N file of a table */
static cJSON *
load_schema(const char *table_rel)
{
	char		dir[4096];
	char	  **names;
	int			n,
				best = -1;
	ts_err		err;
	char		path[4096];

	snprintf(dir, sizeof(dir), "%s/testdata/%s/schema", unit_shared_dir(), table_rel);
	assert_true(ts_list_dir(ts_fs_local_unconfined(), dir, &names, &n, &err));
	for (int i = 0; i < n; i++)
		if (strncmp(names[i], "schema-", 7) == 0 && atoi(names[i] + 7) > best)
			best = atoi(names[i] + 7);
	ts_free_names(names, n);
	assert_true(best >= 0);
	snprintf(path, sizeof(path), "%s/schema-%d", dir, best);
	return load_json(path);
}

typedef struct rowset
{
	char	  **rows;
	int			n;
} rowset;

static void
rowset_add(rowset *rs, char *s)
{
	rs->rows = realloc(rs->rows, sizeof(char *) * (rs->n + 1));
	rs->rows[rs->n++] = s;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
rowset_free(rowset *rs)
{
	for (int i = 0; i < rs->n; i++)
		free(rs->rows[i]);
	free(rs->rows);
	rs->rows = NULL;
	rs->n = 0;
}

/* read every row of a file as canonical strings; returns metrics */
static ts_reader_metrics
read_file_rows(const char *path, const ts_read_column *cols, int ncols,
			   const ts_reader_options *opts, rowset *out)
{
	ts_err		err;
	ts_format_reader *r = ts_parquet_open(path, cols, ncols, opts ? opts : unit_local_read(), &err);
	ts_batch	b;
	int			rc;
	ts_reader_metrics m;

	if (!r)
		fail_msg("open %s: %s", path, err.msg);
	while ((rc = ts_format_next(r, &b, &err)) > 0)
	{
		assert_int_equal(b.ncols, ncols);
		for (int row = 0; row < b.nrows; row++)
		{
			char	   *s = NULL;
			size_t		sl = 0;
			FILE	   *o = open_memstream(&s, &sl);

			fputc('[', o);
			for (int c = 0; c < ncols; c++)
			{
				if (c)
					fputc(',', o);
				print_value(o, ts_batch_at(&b, row, c), cols[c].type);
			}
			fputc(']', o);
			fclose(o);
			rowset_add(out, s);
		}
	}
	if (rc < 0)
		fail_msg("read %s: %s", path, err.msg);
	m = r->metrics;
	ts_format_close(r);
	return m;
}

/* ---- oracle values, converted independently ------------------------- */

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

/* "HH:MM:SS[.fraction]" -> nanos of day */
static int64_t
parse_clock(const char *s)
{
	int			h = 0,
				mi = 0,
				se = 0;
	int64_t		frac = 0;
	int			digits = 0;
	const char *dot;

	assert_true(sscanf(s, "%d:%d:%d", &h, &mi, &se) >= 2);
	dot = strchr(s, '.');
	if (dot)
		for (const char *p = dot + 1; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
			frac = frac * 10 + (*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	return ((int64_t) h * 3600 + mi * 60 + se) * 1000000000LL + frac;
}

static void
oracle_value(FILE *o, const cJSON *v, const ts_type *t)
{
	if (!v || cJSON_IsNull(v))
	{
		fprintf(o, "null");
		return;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			fprintf(o, cJSON_IsTrue(v) ? "true" : "false");
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			fprintf(o, "\"%lld\"", (long long) v->valuedouble);
			break;
		case TS_FLOAT:
			fprintf(o, "\"%.9g\"", (double) (float) v->valuedouble);
			break;
		case TS_DOUBLE:
			fprintf(o, "\"%.17g\"", v->valuedouble);
			break;
		case TS_DECIMAL:
			{
				char		digits[80];
				int			n = 0;
				bool		neg = false;
				const char *p = v->valuestring;

				assert_non_null(p);
				for (; *p; p++)
				{
					if (*p == '-')
						neg = true;
					else if (*p >= '0' && *p <= '9' && (n > 0 || *p != '0'))
						digits[n++] = *p;
				}
				digits[n] = 0;
				fprintf(o, "\"%s%s\"", n && neg ? "-" : "", n ? digits : "0");
				break;
			}
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			print_json_string(o, (const uint8_t *) v->valuestring, strlen(v->valuestring));
			break;
		case TS_DATE:
			{
				int			y,
							m,
							d;

				assert_int_equal(sscanf(v->valuestring, "%d-%d-%d", &y, &m, &d), 3);
				fprintf(o, "\"%lld\"", (long long) days_from_civil(y, m, d));
				break;
			}
		case TS_TIME:
			fprintf(o, "\"%lld\"", (long long) (parse_clock(v->valuestring) / 1000000));
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int			y,
							m,
							d;
				const char *tpos = strchr(v->valuestring, 'T');
				ts_int128	ns;

				assert_non_null(tpos);
				assert_int_equal(sscanf(v->valuestring, "%d-%d-%d", &y, &m, &d), 3);
				ns = (ts_int128) days_from_civil(y, m, d) * 86400 * 1000000000LL + parse_clock(tpos + 1);
				print_int128(o, ns);
				break;
			}
		case TS_ARRAY:
		case TS_MULTISET:
			{
				int			i = 0;
				const cJSON *e;

				fputc('[', o);
				cJSON_ArrayForEach(e, v)
				{
					if (i++)
						fputc(',', o);
					oracle_value(o, e, t->element);
				}
				fputc(']', o);
				break;
			}
		case TS_MAP:
			{
				int			i = 0;
				const cJSON *e;

				fputc('[', o);
				cJSON_ArrayForEach(e, v)
				{
					if (i++)
						fputc(',', o);
					fputc('[', o);
					oracle_value(o, cJSON_GetArrayItem(e, 0), t->key);
					fputc(',', o);
					oracle_value(o, cJSON_GetArrayItem(e, 1), t->value);
					fputc(']', o);
				}
				fputc(']', o);
				break;
			}
		case TS_ROW:
			fputc('[', o);
			for (int i = 0; i < t->nfields; i++)
			{
				if (i)
					fputc(',', o);
				oracle_value(o, cJSON_GetObjectItem(v, t->fields[i].name), t->fields[i].type);
			}
			fputc(']', o);
			break;
		default:
			fail_msg("type not handled in the test");
	}
}

/* ---- oracle cases ---------------------------------------------------- */

typedef struct pq_case
{
	const char *oracle;			/* case file name without .json */
	const char *files[8];		/* relative to the table; NULL: read_splits or the table's only file */
	bool		subset;			/* oracle rows must all be among the file rows */
	const char *notes;
} pq_case;

static const char *nftw_found[64];
static int	nftw_nfound;
static char nftw_store[64][4096];

static int
collect_parquet(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	size_t		n = strlen(path);

	(void) sb;
	(void) ftw;
	if (flag == FTW_F && n > 8 && strcmp(path + n - 8, ".parquet") == 0 && nftw_nfound < 64)
	{
		snprintf(nftw_store[nftw_nfound], 4096, "%s", path);
		nftw_found[nftw_nfound] = nftw_store[nftw_nfound];
		nftw_nfound++;
	}
	return 0;
}

static int
run_case(const pq_case *pc, ts_bufpool *buffers)
{
	char		path[4096];
	cJSON	   *oracle,
			   *schema,
			   *jcols,
			   *fields,
			   *jrow;
	const char *table;
	int			ncols;
	ts_field   *sfields;
	int			nsfields;
	ts_read_column *cols;
	rowset		got = {0},
				want = {0};
	const char *files[64];
	int			nfiles = 0;
	int			matched = 0;
	char		tabledir[4096];

	snprintf(path, sizeof(path), "oracle/%s.json", pc->oracle);
	oracle = load_json(unit_shared_path(path));
	table = cJSON_GetObjectItem(oracle, "table")->valuestring;
	snprintf(tabledir, sizeof(tabledir), "%s/testdata/%s", unit_shared_dir(), table);
	schema = load_schema(table);
	fields = cJSON_GetObjectItem(schema, "fields");
	sfields = parse_fields(fields, &nsfields);
	jcols = cJSON_GetObjectItem(oracle, "columns");
	ncols = cJSON_GetArraySize(jcols);
	cols = calloc(ncols, sizeof(ts_read_column));
	for (int c = 0; c < ncols; c++)
	{
		const char *name = cJSON_GetObjectItem(cJSON_GetArrayItem(jcols, c), "name")->valuestring;
		int			k;

		for (k = 0; k < nsfields; k++)
			if (strcmp(sfields[k].name, name) == 0)
				break;
		if (k == nsfields)
			fail_msg("%s: column %s not in the schema", pc->oracle, name);
		cols[c].field_id = sfields[k].id;
		cols[c].name = sfields[k].name;
		cols[c].type = sfields[k].type;
	}

	/* which files */
	if (pc->files[0])
	{
		for (int i = 0; pc->files[i]; i++)
		{
			char	   *p = malloc(4096);

			snprintf(p, 4096, "%s/%s", tabledir, pc->files[i]);
			files[nfiles++] = p;
		}
	}
	else if (cJSON_GetObjectItem(oracle, "read_splits"))
	{
		const cJSON *sp;

		cJSON_ArrayForEach(sp, cJSON_GetObjectItem(oracle, "read_splits"))
		{
			const cJSON *f;

			cJSON_ArrayForEach(f, cJSON_GetObjectItem(sp, "files"))
			{
				char	   *p = malloc(4096);

				snprintf(p, 4096, "%s/%s/%s", tabledir,
						 cJSON_GetObjectItem(sp, "bucket_dir")->valuestring, f->valuestring);
				files[nfiles++] = p;
			}
		}
	}
	else
	{
		nftw_nfound = 0;
		nftw(tabledir, collect_parquet, 16, FTW_PHYS);
		assert_int_equal(nftw_nfound, 1);	/* a single-file table */
		files[nfiles++] = strdup(nftw_found[0]);
	}

	for (int i = 0; i < nfiles; i++)
	{
		ts_reader_options opts;

		memset(&opts, 0, sizeof(opts));

		opts.fs = ts_fs_local_unconfined();
		opts.batch_rows = 3;	/* several batches even for tiny files */
		opts.buffers = buffers;
		read_file_rows(files[i], cols, ncols, &opts, &got);
		free((void *) files[i]);
	}

	cJSON_ArrayForEach(jrow, cJSON_GetObjectItem(oracle, "rows"))
	{
		char	   *s = NULL;
		size_t		sl = 0;
		FILE	   *o = open_memstream(&s, &sl);

		fputc('[', o);
		for (int c = 0; c < ncols; c++)
		{
			if (c)
				fputc(',', o);
			oracle_value(o, cJSON_GetArrayItem(jrow, c), cols[c].type);
		}
		fputc(']', o);
		fclose(o);
		rowset_add(&want, s);
	}
	assert_true(want.n > 0);
	qsort(got.rows, got.n, sizeof(char *), cmp_str);
	qsort(want.rows, want.n, sizeof(char *), cmp_str);
	if (!pc->subset)
	{
		if (got.n != want.n)
			fail_msg("%s: %d rows, oracle has %d", pc->oracle, got.n, want.n);
		for (int i = 0; i < got.n; i++)
			if (strcmp(got.rows[i], want.rows[i]) != 0)
				fail_msg("%s: row differs\n  got  %s\n  want %s", pc->oracle, got.rows[i], want.rows[i]);
		matched = got.n;
	}
	else
	{
		for (int i = 0; i < want.n; i++)
		{
			bool		found = false;

			for (int k = 0; k < got.n && !found; k++)
				found = strcmp(got.rows[k], want.rows[i]) == 0;
			if (!found)
				fail_msg("%s: oracle row not found: %s", pc->oracle, want.rows[i]);
			matched++;
		}
	}
	rowset_free(&got);
	rowset_free(&want);
	free(cols);
	for (int i = 0; i < nsfields; i++)
	{
		free(sfields[i].name);
		ts_type_free(sfields[i].type);
	}
	free(sfields);
	cJSON_Delete(schema);
	cJSON_Delete(oracle);
	return matched;
}

static const pq_case cases[] = {
	/* field ids present; every timestamp precision (INT64 millis/micros, INT96), LTZ */
	{"parquet__append_with_multiple_ts_precision_and_timezone__batch_latest", {NULL}, false, NULL},
	/* field ids present; STRING/INT/DOUBLE/TIMESTAMP(9) INT96 incl. pre-1970 */
	{"parquet__append_with_bsi__read_with_index_predicates", {NULL}, false, NULL},
	{"parquet__append_with_bloomfilter__read_with_index_predicates", {NULL}, false, NULL},
	{"parquet__append_with_bsi_bitmap_bloomfilter__read_with_index_predicates", {NULL}, false, NULL},
	{"parquet__append_with_bitmap_v1__read_with_index_predicates", {NULL}, false, NULL},
	{"parquet__append_with_global_index__batch_latest", {NULL}, false, NULL},
	/* no field ids (older writer): resolved by name; explicit split of 2 files */
	{"parquet__append_09__read_split_p20_b0_snapshot3", {NULL}, false, NULL},
	{"parquet__append_09__read_splits_p10b0_p20b0", {NULL}, false, NULL},
	/*
	 * schema evolution inside the files: read with schema-1 (b->c and d->a
	 * renamed, a/c dropped, d/e added): matched by field id, added columns NULL
	 */
	{"parquet__append_table_with_alter_table__read_snapshot2_all", {NULL}, false, NULL},
	/* DATE, TIMESTAMP(9), DECIMAL(23,5) in FIXED_LEN_BYTE_ARRAY, BYTES: the live files */
	{"parquet__append_complex_data__batch_latest",
		{"f1=10/bucket-0/data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet",
			"f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet",
		"f1=20/bucket-1/data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet", NULL}, false, NULL},
	/* nested ROW<STRING, INT, ARRAY<INT>> and MAP<INT,INT> in a PK table: every
	 * merged oracle row must be one of the rows of its data files */
	{"parquet__pk_table_nested_type__batch_latest",
		{"dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
			"dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-1.parquet",
			"dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-0.parquet",
		"dt=2025-04-14/hr=10/bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet", NULL}, true, NULL},
};

static void
test_oracle_cases(void **state)
{
	int			total = 0;
	ts_bufpool *buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);

	(void) state;
	assert_non_null(buffers);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int			n = run_case(&cases[i], NULL);

		assert_true(n > 0);
		print_message("%s: %d oracle rows matched\n", cases[i].oracle, n);
		total += n;
	}
	assert_true(total >= 50);

	/*
	 * Again, every file reader taking its buffers from one pool: buffers
	 * that earlier files and tables filled are reused and must not show.
	 */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_true(run_case(&cases[i], buffers) > 0);
	assert_true(ts_bufpool_bytes(buffers) > 0);
	ts_bufpool_free(buffers);
}

/* ---- resolution, projection, stats filter --------------------------- */

#define BSI_FILE "testdata/parquet/append_with_bsi.db/append_with_bsi/bucket-0/data-af9e31b7-b44d-4a0e-85ae-5877d224ec9f-0.parquet"

static void
test_missing_and_projection(void **state)
{
	ts_type    *tint = ts_type_new(TS_INT, true);
	ts_type    *tstr = ts_type_new(TS_VARCHAR, true);
	ts_read_column cols[3];
	rowset		rs = {0};
	ts_reader_metrics m;
	ts_file    *f;
	ts_err		err;
	int64_t		size;

	(void) state;
	tstr->length = TS_STRING_LENGTH;
	/* f1 has id 1 in the schema; id 99 does not exist; f0 by id 0 */
	cols[0] = (ts_read_column)
	{
		1, "f1", tint
	};
	cols[1] = (ts_read_column)
	{
		99, "nope", tint
	};
	cols[2] = (ts_read_column)
	{
		0, "renamed_f0", tstr	/* id wins over the name */
	};
	m = read_file_rows(unit_shared_path(BSI_FILE), cols, 3, NULL, &rs);
	assert_int_equal(rs.n, 8);
	/* oracle row 1: Alice, 100; row 7: Tony, NULL */
	assert_string_equal(rs.rows[0], "[\"100\",null,\"Alice\"]");
	assert_string_equal(rs.rows[6], "[null,null,\"Tony\"]");
	assert_int_equal(m.rows_read, 8);
	assert_int_equal(m.row_groups_total, 1);
	assert_int_equal(m.row_groups_kept, 1);
	f = ts_file_open(ts_fs_local_unconfined(), unit_shared_path(BSI_FILE), &err);
	assert_non_null(f);
	size = ts_file_size(f);
	ts_file_close(f);
	/* projection: only the footer and two column chunks are read */
	assert_true(m.bytes_read > 0 && m.bytes_read < size);
	rowset_free(&rs);

	/* a requested type the physical type cannot hold */
	{
		ts_type    *tts = ts_type_new(TS_DATE, true);
		ts_read_column bad = {3, "f3", tts};	/* f3 is DOUBLE */
		ts_format_reader *r = ts_parquet_open(unit_shared_path(BSI_FILE), &bad, 1, unit_local_read(), &err);

		assert_null(r);
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "f3"));
		ts_type_free(tts);
	}
	ts_type_free(tint);
	ts_type_free(tstr);
}

typedef struct filter_seen
{
	int			calls;
	bool		keep;
	ts_column_stats st[2];
} filter_seen;

static bool
record_filter(void *arg, const ts_column_stats *stats, int ncols)
{
	filter_seen *fs = arg;

	assert_int_equal(ncols, 2);
	fs->calls++;
	fs->st[0] = stats[0];
	fs->st[1] = stats[1];
	return fs->keep;
}

static void
test_stats_filter(void **state)
{
	ts_type    *tint = ts_type_new(TS_INT, true);
	ts_type    *tdbl = ts_type_new(TS_DOUBLE, true);
	ts_read_column cols[2] = {{1, "f1", tint}, {3, "f3", tdbl}};
	ts_reader_options opts;
	filter_seen fs;
	rowset		rs = {0};
	ts_reader_metrics m;

	(void) state;
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	memset(&fs, 0, sizeof(fs));
	opts.stats_filter = record_filter;
	opts.stats_filter_arg = &fs;
	fs.keep = false;
	m = read_file_rows(unit_shared_path(BSI_FILE), cols, 2, &opts, &rs);
	assert_int_equal(fs.calls, 1);
	assert_int_equal(rs.n, 0);
	assert_int_equal(m.row_groups_kept, 0);
	assert_int_equal(m.row_groups_total, 1);
	/* oracle f1 values: 100 200 300 50 500 100 NULL 20; f3: 11.1 .. 18.1 */
	assert_true(fs.st[0].has_min_max);
	assert_int_equal(fs.st[0].min.v.i, 20);
	assert_int_equal(fs.st[0].max.v.i, 500);
	assert_int_equal(fs.st[0].null_count, 1);
	assert_int_equal(fs.st[0].row_count, 8);
	assert_true(fs.st[1].has_min_max);
	assert_true(fs.st[1].min.v.d == 11.1);
	assert_true(fs.st[1].max.v.d == 18.1);
	assert_int_equal(fs.st[1].null_count, 0);

	fs.keep = true;
	m = read_file_rows(unit_shared_path(BSI_FILE), cols, 2, &opts, &rs);
	assert_int_equal(rs.n, 8);
	assert_int_equal(m.row_groups_kept, 1);
	rowset_free(&rs);
	ts_type_free(tint);
	ts_type_free(tdbl);
}

/* ---- corruption ------------------------------------------------------ */

static uint8_t *
slurp_file(const char *path, size_t *len)
{
	uint8_t    *d;
	ts_err		err;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &d, len, &err))
		fail_msg("%s", err.msg);
	return d;
}

static void
write_tmp(const char *path, const uint8_t *d, size_t len)
{
	FILE	   *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	fclose(f);
}

/* open + read everything; return the error code (TS_OK when it read) */
static ts_errcode
try_read(const char *path, ts_read_column *cols, int ncols, ts_err *err)
{
	ts_format_reader *r = ts_parquet_open(path, cols, ncols, unit_local_read(), err);
	ts_batch	b;
	int			rc;

	if (!r)
		return err->code;
	while ((rc = ts_format_next(r, &b, err)) > 0)
	{
		/* touch every byte value so ASAN sees a dangling pointer */
		for (int i = 0; i < b.nrows * b.ncols; i++)
		{
			ts_value   *v = &b.values[i];
			volatile uint8_t sink = 0;

			if (!v->isnull && (cols[i % ncols].type->kind == TS_VARCHAR))
				for (uint32_t k = 0; k < v->v.s.len; k++)
					sink ^= v->v.s.p[k];
			(void) sink;
		}
	}
	ts_format_close(r);
	return rc < 0 ? err->code : TS_OK;
}

static void
bsi_columns(ts_read_column *cols, ts_type **types)
{
	types[0] = ts_type_new(TS_VARCHAR, true);
	types[0]->length = TS_STRING_LENGTH;
	types[1] = ts_type_new(TS_INT, true);
	types[2] = ts_type_new(TS_INT, true);
	types[3] = ts_type_new(TS_DOUBLE, true);
	types[4] = ts_type_new(TS_TIMESTAMP, true);
	types[4]->precision = 9;
	for (int i = 0; i < 5; i++)
	{
		cols[i].field_id = i;
		cols[i].type = types[i];
	}
	cols[0].name = "f0";
	cols[1].name = "f1";
	cols[2].name = "f2";
	cols[3].name = "f3";
	cols[4].name = "f4";
}

static void
test_corrupt(void **state)
{
	size_t		len;
	uint8_t    *orig = slurp_file(unit_shared_path(BSI_FILE), &len);
	uint8_t    *d = malloc(len);
	char		tmp[] = "/tmp/ts_pq_corrupt_XXXXXX";
	int			fd = mkstemp(tmp);
	ts_read_column cols[5];
	ts_type    *types[5];
	ts_err		err;
	uint32_t	seed = 12345;
	int			failures = 0;

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	bsi_columns(cols, types);

	/* the original reads */
	write_tmp(tmp, orig, len);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_OK);

	/* truncated: the tail magic is gone */
	write_tmp(tmp, orig, len - 1);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, tmp));
	write_tmp(tmp, orig, 7);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_ERR_CORRUPT);

	/* wrong head magic */
	memcpy(d, orig, len);
	d[0] = 'X';
	write_tmp(tmp, d, len);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_ERR_CORRUPT);

	/* footer length larger than the file */
	memcpy(d, orig, len);
	d[len - 5] = 0x7f;
	write_tmp(tmp, d, len);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_ERR_CORRUPT);

	/* footer bytes zeroed */
	memcpy(d, orig, len);
	{
		uint32_t	flen = ts_load_le32(orig + len - 8);

		memset(d + len - 8 - flen, 0, flen);
	}
	write_tmp(tmp, d, len);
	assert_int_not_equal(try_read(tmp, cols, 5, &err), TS_OK);

	/* first page header (column f0 of row group 0) destroyed */
	memcpy(d, orig, len);
	memset(d + 4, 0xff, 12);
	write_tmp(tmp, d, len);
	assert_int_equal(try_read(tmp, cols, 5, &err), TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, tmp));
	assert_non_null(strstr(err.msg, "row group 0"));
	assert_non_null(strstr(err.msg, "f0"));

	/* data pages zeroed (footer intact): decompression / decode must fail */
	memcpy(d, orig, len);
	{
		uint32_t	flen = ts_load_le32(orig + len - 8);

		memset(d + 4, 0, len - 8 - flen - 4);
	}
	write_tmp(tmp, d, len);
	assert_int_not_equal(try_read(tmp, cols, 5, &err), TS_OK);

	/* random byte flips: never a crash, an error names the file */
	for (int it = 0; it < 3000; it++)
	{
		int			nflips = 1 + it % 4;
		ts_errcode	rc;

		memcpy(d, orig, len);
		for (int k = 0; k < nflips; k++)
		{
			seed = seed * 1103515245 + 12345;
			d[(seed >> 8) % len] ^= (uint8_t) (1 + ((seed >> 3) & 0xfe));
		}
		write_tmp(tmp, d, len);
		rc = try_read(tmp, cols, 5, &err);
		if (rc != TS_OK)
		{
			failures++;
			assert_non_null(strstr(err.msg, tmp));
			assert_true(rc == TS_ERR_CORRUPT || rc == TS_ERR_UNSUPPORTED || rc == TS_ERR_NOMEM);
		}
	}
	assert_true(failures > 100);
	unlink(tmp);
	for (int i = 0; i < 5; i++)
		ts_type_free(types[i]);
	free(d);
	ts_free(orig);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_cases),
		cmocka_unit_test(test_missing_and_projection),
		cmocka_unit_test(test_stats_filter),
		cmocka_unit_test(test_corrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
