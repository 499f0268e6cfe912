/*
 * test_write_types.c - every type the reader supports, written by
 * pq_writer and read back by the project's Parquet reader.
 *
 * The Parquet schema elements we write for a table's fields (names,
 * physical types, FIXED lengths, repetition, converted types, decimal
 * scale / precision, field ids of LIST elements and MAP keys / values)
 * equal those of Java-written data files of ../shared/testdata with the
 * same Paimon schema (nested ROW / ARRAY / MAP, TIMESTAMP(0..9) and LTZ,
 * DECIMAL(23, 5)); rows of TIME, DECIMAL(38), TIMESTAMP(9), ARRAY, nested
 * ARRAY, MAP of ROW, ROW of ROW and MULTISET with nulls at every level and
 * empty collections read back equal to what was written, through several
 * row groups; statistics are those Java's Parquet extractor gives (no
 * bounds for INT96 timestamps, nothing for nested columns); a nested bucket
 * key, a MULTISET of nested elements and types no writer stores are refused
 * naming the column.
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "format/parquet/pq_internal.h"
#include "format/parquet/pq_writer.h"
#include "meta/binary_row.h"
#include "meta/schema.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write_schema.h"

/* ---- helpers --------------------------------------------------------- */

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *b;
	long		n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t) n);
	assert_int_equal(fread(b, 1, (size_t) n, f), (size_t) n);
	fclose(f);
	*len = (size_t) n;
	return b;
}

/* the footer of the Parquet file in b[0..len) */
static void
footer(const uint8_t *b, size_t len, pq_file_meta *m)
{
	ts_err		err;
	uint32_t	mlen;

	assert_true(len > 12 && memcmp(b + len - 4, "PAR1", 4) == 0);
	mlen = (uint32_t) b[len - 8] | (uint32_t) b[len - 7] << 8 | (uint32_t) b[len - 6] << 16 |
		(uint32_t) b[len - 5] << 24;
	if (!pq_parse_file_meta(b + len - 8 - mlen, mlen, m, &err))
		fail_msg("footer: %s", err.msg);
}

static ts_schema *
schema_file(const char *rel)
{
	size_t		len;
	uint8_t    *b = slurp(unit_shared_path(rel), &len);
	ts_err		err;
	ts_schema  *s = ts_schema_parse((const char *) b, len, rel, &err);

	if (s == NULL)
		fail_msg("%s: %s", rel, err.msg);
	free(b);
	return s;
}

/* write rows[0..nrows) of fields to a Parquet file in out (row groups of rg_bytes) */
static void
write_file(const ts_field *fields, int n, ts_value *rows, int nrows, size_t rg_bytes, ts_buf *out)
{
	ts_err		err;
	ts_pq_writer *w = ts_pq_writer_create(fields, n, 3, rg_bytes, buf_sink, out, &err);

	if (w == NULL)
		fail_msg("create: %s", err.msg);
	for (int r = 0; r < nrows; r++)
		if (!ts_pq_writer_add(w, &rows[(size_t) r * n], &err))
			fail_msg("add row %d: %s", r, err.msg);
	if (!ts_pq_writer_finish(w, &err))
		fail_msg("finish: %s", err.msg);
	assert_int_equal(ts_pq_writer_rows(w), nrows);
	ts_pq_writer_free(w);
}

/* Schema elements a[0..n) and b[0..n) are the same, element by element. */
static void
assert_elements_equal(const pq_schema_elem *a, const pq_schema_elem *b, int n)
{
	for (int i = 0; i < n; i++)
	{
		const char *name = b[i].name;

		if (strcmp(a[i].name, b[i].name) != 0)
			fail_msg("element %d: name %s, Java %s", i, a[i].name, b[i].name);
#define SAME(f) do { if (a[i].f != b[i].f) \
			fail_msg("element %d (%s): " #f " %d, Java %d", i, name, (int) a[i].f, (int) b[i].f); } while (0)
		SAME(type);
		SAME(repetition);
		SAME(num_children);
		SAME(converted_type);
		SAME(has_field_id);
		if (b[i].has_field_id)
			SAME(field_id);
		if (b[i].type == PQ_FIXED)
			SAME(type_length);
		if (b[i].converted_type == 5)	/* DECIMAL */
		{
			SAME(scale);
			SAME(precision);
		}
#undef SAME
	}
}

/* our file for schema s, compared with the Java file's elements from java_first on */
static void
compare_with_java(const char *schema_rel, const char *data_rel, int java_first)
{
	ts_schema  *s = schema_file(schema_rel);
	ts_buf		ours;
	pq_file_meta om = {0},
				jm = {0};
	size_t		jlen;
	uint8_t    *jb = slurp(unit_shared_path(data_rel), &jlen);

	ts_buf_init(&ours);
	write_file(s->fields, s->nfields, NULL, 0, 0, &ours);
	footer(ours.data, ours.len, &om);
	footer(jb, jlen, &jm);
	assert_int_equal(om.nschema, jm.nschema - java_first);
	/* the roots: one child per field */
	assert_int_equal(om.schema[0].num_children, s->nfields);
	assert_elements_equal(om.schema + 1, jm.schema + 1 + java_first, om.nschema - 1);
	pq_free_file_meta(&om);
	pq_free_file_meta(&jm);
	ts_buf_free(&ours);
	free(jb);
	ts_schema_free(s);
}

/* ---- schemas as Java writes them --------------------------------------- */

#define NESTED_TABLE "testdata/parquet/pk_table_nested_type.db/pk_table_nested_type/"
#define COMPLEX_TABLE "testdata/parquet/append_complex_data.db/append_complex_data/"
#define TS_TABLE "testdata/parquet/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/"

static void
test_nested_schema_as_java(void **state)
{
	(void) state;
	/* a primary-key file: _KEY_shopId, _SEQUENCE_NUMBER, _VALUE_KIND come first */
	compare_with_java(NESTED_TABLE "schema/schema-0",
					  NESTED_TABLE "dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
					  3);
}

static void
test_decimal_and_int96_schema_as_java(void **state)
{
	(void) state;
	compare_with_java(COMPLEX_TABLE "schema/schema-0",
					  COMPLEX_TABLE "f1=10/bucket-0/data-35f2719c-ffae-4697-960e-af95a0b4bd51-1.parquet", 0);
	compare_with_java(TS_TABLE "schema/schema-0",
					  TS_TABLE "bucket-0/data-9b8abdde-df4d-4655-bb4c-ffda164ef9d4-0.parquet", 0);
}

/* ---- round trip ----------------------------------------------------------- */

static const char *ROUND_SCHEMA =
"{\"version\":3,\"id\":0,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"INT NOT NULL\"},"
"{\"id\":1,\"name\":\"t\",\"type\":\"TIME(3)\"},"
"{\"id\":2,\"name\":\"d38\",\"type\":\"DECIMAL(38, 0)\"},"
"{\"id\":3,\"name\":\"d20\",\"type\":\"DECIMAL(20, 6)\"},"
"{\"id\":4,\"name\":\"ts9\",\"type\":\"TIMESTAMP(9)\"},"
"{\"id\":5,\"name\":\"ltz7\",\"type\":\"TIMESTAMP(7) WITH LOCAL TIME ZONE\"},"
"{\"id\":6,\"name\":\"ai\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
"{\"id\":7,\"name\":\"aas\",\"type\":{\"type\":\"ARRAY\",\"element\":{\"type\":\"ARRAY\",\"element\":\"STRING\"}}},"
"{\"id\":8,\"name\":\"m\",\"type\":{\"type\":\"MAP\",\"key\":\"STRING\",\"value\":{\"type\":\"ROW\",\"fields\":["
"{\"id\":9,\"name\":\"a\",\"type\":\"INT\"},"
"{\"id\":10,\"name\":\"b\",\"type\":{\"type\":\"ARRAY\",\"element\":\"DECIMAL(38, 10)\"}}]}}},"
"{\"id\":11,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":["
"{\"id\":12,\"name\":\"x\",\"type\":\"TIME(0)\"},"
"{\"id\":13,\"name\":\"y\",\"type\":\"TIMESTAMP(9)\"},"
"{\"id\":14,\"name\":\"z\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"id\":15,\"name\":\"q\",\"type\":\"BOOLEAN\"}]}}]}},"
"{\"id\":16,\"name\":\"ms\",\"type\":{\"type\":\"MULTISET\",\"element\":\"INT\"}},"
"{\"id\":17,\"name\":\"an\",\"type\":{\"type\":\"ARRAY NOT NULL\",\"element\":\"BIGINT NOT NULL\"}}"
"],\"highestFieldId\":17,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{}}";

#define NCOLS 13

static ts_int128
max38(void)
{
	ts_int128	v = 1;

	for (int i = 0; i < 38; i++)
		v *= 10;
	return v - 1;
}

static ts_value *
items(int n)
{
	return calloc((size_t) (n ? n : 1), sizeof(ts_value));
}

static ts_value
null_value(void)
{
	ts_value	v = {0};

	v.isnull = true;
	return v;
}

static ts_value
str_value(const char *s)
{
	ts_value	v = {0};

	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = (uint32_t) strlen(s);
	return v;
}

static ts_value
nested(int n, ts_value *it)
{
	ts_value	v = {0};

	v.v.nested.n = n;
	v.v.nested.items = it;
	return v;
}

static char strings[4000][16];

/* row r, a function of r with nulls and empties at every level */
static void
make_row(int r, ts_value *row)
{
	ts_value   *it;

	memset(row, 0, sizeof(ts_value) * NCOLS);
	row[0].v.i = r;
	/* TIME(3): millis of the day */
	if (r % 6 == 0)
		row[1] = null_value();
	else
		row[1].v.i = (int64_t) r * 1237 % 86400000;
	/* DECIMAL(38, 0): the extremes and small values */
	if (r % 7 == 0)
		row[2] = null_value();
	else
		row[2].v.dec = r % 3 == 0 ? max38() : r % 3 == 1 ? -max38() : (ts_int128) (r - 50);
	row[3].v.dec = (ts_int128) r * 1000003 * (r % 2 ? -1 : 1) * (ts_int128) 100000000000LL;
	/* TIMESTAMP(9): before and after the epoch, nanos within the millisecond */
	row[4].v.ts.millis = (int64_t) (r - 100) * 86400001LL - 1;
	row[4].v.ts.nanos = (r * 7919) % 1000000;
	if (r % 5 == 0)
		row[5] = null_value();
	else
	{
		row[5].v.ts.millis = -(int64_t) r * 1000 - 3;
		row[5].v.ts.nanos = (r % 10) * 100;	/* 7 digits */
	}
	/* ARRAY<INT>: null, empty, with a null element */
	if (r % 5 == 0)
		row[6] = null_value();
	else if (r % 5 == 1)
		row[6] = nested(0, items(0));
	else
	{
		it = items(3);
		it[0].v.i = r;
		it[1] = null_value();
		it[2].v.i = -r;
		row[6] = nested(3, it);
	}
	/* ARRAY<ARRAY<STRING>>: null, [[]], [null, ["s<r>", null]], [] */
	snprintf(strings[r], sizeof(strings[r]), "s%d", r);
	switch (r % 4)
	{
		case 0:
			row[7] = null_value();
			break;
		case 1:
			it = items(1);
			it[0] = nested(0, items(0));
			row[7] = nested(1, it);
			break;
		case 2:
			{
				ts_value   *inner = items(2);

				inner[0] = str_value(strings[r]);
				inner[1] = null_value();
				it = items(2);
				it[0] = null_value();
				it[1] = nested(2, inner);
				row[7] = nested(2, it);
				break;
			}
		default:
			row[7] = nested(0, items(0));
	}
	/* MAP<STRING, ROW<a INT, b ARRAY<DECIMAL(38, 10)>>> */
	if (r % 3 == 0)
		row[8] = null_value();
	else if (r % 3 == 1)
		row[8] = nested(0, items(0));
	else
	{
		ts_value   *rowv = items(2);
		ts_value   *decs = items(3);

		decs[0].v.dec = max38();
		decs[1] = null_value();
		decs[2].v.dec = -(ts_int128) r;
		rowv[0] = r % 9 == 2 ? null_value() : (ts_value) {.v.i = r * 3};
		rowv[1] = nested(3, decs);
		it = items(4);
		it[0] = str_value("k");
		it[1] = null_value();
		it[2] = str_value(strings[r]);
		it[3] = nested(2, rowv);
		row[8] = nested(2, it);
	}
	/* ROW<x TIME(0), y TIMESTAMP(9), z ROW<q BOOLEAN>> */
	if (r % 2)
		row[9] = null_value();
	else
	{
		ts_value   *z = items(1);

		it = items(3);
		it[0].v.i = (int64_t) (r % 86400) * 1000;
		it[1].v.ts.millis = (int64_t) r * 1000 + 1;
		it[1].v.ts.nanos = 999999;
		z[0].v.i = r % 8 == 0;
		if (r % 4 == 0)
		{
			free(z);
			it[2] = null_value();
		}
		else
			it[2] = nested(1, z);
		row[9] = nested(3, it);
	}
	/* MULTISET<INT>: duplicates are counted */
	if (r % 4 == 3)
		row[10] = null_value();
	else
	{
		it = items(4);
		it[0].v.i = 1;
		it[1].v.i = r % 2;
		it[2].v.i = r % 4 == 2 ? 3 : 1;
		it[3].v.i = 2;
		row[10] = nested(4, it);
	}
	/* ARRAY<BIGINT NOT NULL> NOT NULL */
	it = items(r % 3);
	for (int i = 0; i < r % 3; i++)
		it[i].v.i = (int64_t) r << 33;
	row[11] = nested(r % 3, it);
	row[12] = null_value();		/* unused: NCOLS - 1 fields written */
}

static void
free_value(ts_value *v, const ts_type *t)
{
	if (v->isnull || !ts_type_is_nested(t->kind))
		return;
	for (int i = 0; i < v->v.nested.n * (t->kind == TS_MAP ? 2 : 1); i++)
		free_value(&v->v.nested.items[i], t->kind == TS_ROW ? t->fields[i].type :
				   t->kind == TS_MAP ? (i % 2 ? t->value : t->key) : t->element);
	free(v->v.nested.items);
}

static int
cmp_int_values(const void *a, const void *b)
{
	const ts_value *x = a,
			   *y = b;

	if (x->isnull || y->isnull)
		return (int) y->isnull - (int) x->isnull;
	return x->v.i < y->v.i ? -1 : x->v.i > y->v.i;
}

/* Is the value read (got) the value written (want)?  path names where for messages. */
static void
assert_same(const ts_value *want, const ts_value *got, const ts_type *t, const char *path, int row)
{
	if (want->isnull != got->isnull)
		fail_msg("row %d %s: null %d, read %d", row, path, want->isnull, got->isnull);
	if (want->isnull)
		return;
	switch (t->kind)
	{
		case TS_DECIMAL:
			if (want->v.dec != got->v.dec)
				fail_msg("row %d %s: decimal differs", row, path);
			return;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (want->v.ts.millis != got->v.ts.millis || want->v.ts.nanos != got->v.ts.nanos)
				fail_msg("row %d %s: timestamp %lld.%06d, read %lld.%06d", row, path,
						 (long long) want->v.ts.millis, want->v.ts.nanos,
						 (long long) got->v.ts.millis, got->v.ts.nanos);
			return;
		case TS_VARCHAR:
			if (want->v.s.len != got->v.s.len || memcmp(want->v.s.p, got->v.s.p, want->v.s.len) != 0)
				fail_msg("row %d %s: string differs", row, path);
			return;
		case TS_MULTISET:
			{
				/* the same elements, in any order */
				int			n = want->v.nested.n;
				ts_value   *a = items(n),
						   *b = items(n);

				if (got->v.nested.n != n)
					fail_msg("row %d %s: %d elements, read %d", row, path, n, got->v.nested.n);
				memcpy(a, want->v.nested.items, sizeof(ts_value) * (size_t) n);
				memcpy(b, got->v.nested.items, sizeof(ts_value) * (size_t) n);
				qsort(a, (size_t) n, sizeof(ts_value), cmp_int_values);
				qsort(b, (size_t) n, sizeof(ts_value), cmp_int_values);
				for (int i = 0; i < n; i++)
					assert_same(&a[i], &b[i], t->element, path, row);
				free(a);
				free(b);
				return;
			}
		case TS_ARRAY:
		case TS_MAP:
		case TS_ROW:
			{
				int			per = t->kind == TS_MAP ? 2 : 1;

				if (want->v.nested.n != got->v.nested.n)
					fail_msg("row %d %s: %d items, read %d", row, path, want->v.nested.n,
							 got->v.nested.n);
				for (int i = 0; i < want->v.nested.n * per; i++)
				{
					char		sub[200];
					const ts_type *it = t->kind == TS_ROW ? t->fields[i].type :
						t->kind == TS_MAP ? (i % 2 ? t->value : t->key) : t->element;

					snprintf(sub, sizeof(sub), "%s[%d]", path, i);
					assert_same(&want->v.nested.items[i], &got->v.nested.items[i], it, sub, row);
				}
				return;
			}
		default:
			if (want->v.i != got->v.i)
				fail_msg("row %d %s: %lld, read %lld", row, path, (long long) want->v.i,
						 (long long) got->v.i);
	}
}

static void
test_round_trip(void **state)
{
	ts_schema  *s = schema_json(ROUND_SCHEMA);
	int			n = s->nfields;
	int			nrows = 3000;
	ts_value   *rows = calloc((size_t) nrows * n, sizeof(ts_value));
	ts_value   *scratch = calloc(NCOLS, sizeof(ts_value));
	ts_read_column *cols = calloc((size_t) n, sizeof(ts_read_column));
	char		path[] = "/tmp/ts-unit-wtypes.XXXXXX";
	int			fd = mkstemp(path);
	ts_buf		out;
	pq_file_meta m = {0};
	ts_format_reader *r;
	ts_batch	b;
	ts_err		err;
	int			rc,
				seen = 0;

	(void) state;
	assert_int_equal(n, NCOLS - 1);
	for (int i = 0; i < nrows; i++)
	{
		make_row(i, scratch);
		memcpy(&rows[(size_t) i * n], scratch, sizeof(ts_value) * (size_t) n);
	}
	ts_buf_init(&out);
	/* small row groups: levels and values restart at each */
	write_file(s->fields, n, rows, nrows, 64 << 10, &out);
	footer(out.data, out.len, &m);
	assert_true(m.nrow_groups > 2);
	assert_int_equal(m.num_rows, nrows);
	pq_free_file_meta(&m);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, out.data, out.len), (ssize_t) out.len);
	close(fd);
	for (int c = 0; c < n; c++)
		cols[c] = (ts_read_column) {s->fields[c].id, s->fields[c].name, s->fields[c].type};
	r = ts_parquet_open(path, cols, n, unit_local_read(), &err);
	if (r == NULL)
		fail_msg("open: %s", err.msg);
	while ((rc = ts_format_next(r, &b, &err)) > 0)
		for (int row = 0; row < b.nrows; row++, seen++)
			for (int c = 0; c < n; c++)
				assert_same(&rows[(size_t) seen * n + c], ts_batch_at(&b, row, c), s->fields[c].type,
							s->fields[c].name, seen);
	if (rc < 0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(seen, nrows);
	ts_format_close(r);
	unlink(path);
	for (int i = 0; i < nrows; i++)
		for (int c = 0; c < n; c++)
			free_value(&rows[(size_t) i * n + c], s->fields[c].type);
	free(rows);
	free(scratch);
	free(cols);
	ts_buf_free(&out);
	ts_schema_free(s);
}

/* A null in a NOT NULL part is an error naming it, never a file readers misread. */
static void
test_not_null_parts(void **state)
{
	ts_schema  *s = schema_json(ROUND_SCHEMA);
	ts_buf		out;
	ts_err		err;
	ts_value	row[NCOLS];
	ts_value   *it = items(1);
	ts_pq_writer *w;

	(void) state;
	ts_buf_init(&out);
	make_row(4, row);
	w = ts_pq_writer_create(s->fields, s->nfields, 0, 0, buf_sink, &out, &err);
	assert_non_null(w);
	free_value(&row[11], s->fields[11].type);
	it[0] = null_value();
	row[11] = nested(1, it);	/* ARRAY<BIGINT NOT NULL> with a null element */
	assert_false(ts_pq_writer_add(w, row, &err));
	assert_non_null(strstr(err.msg, "element"));
	ts_pq_writer_free(w);
	/* types no writer stores are refused naming the column and the type */
	{
		const char *bad[] = {"MULTISET<ARRAY<INT>>", "ARRAY<VARIANT>", "ROW<a INT, b BLOB>"};

		for (int i = 0; i < 3; i++)
		{
			ts_type    *t = ts_type_parse(bad[i], &err);

			assert_non_null(t);
			assert_false(ts_pq_writer_supports("col", t, &err));
			assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
			assert_non_null(strstr(err.msg, "\"col\""));
			ts_type_free(t);
		}
	}
	for (int c = 0; c < s->nfields; c++)
		free_value(&row[c], s->fields[c].type);
	ts_buf_free(&out);
	ts_schema_free(s);
}

/* ---- statistics and keys -------------------------------------------------- */

static void
test_stats_as_java(void **state)
{
	ts_schema  *s = schema_json(ROUND_SCHEMA);
	ts_col_stats st[4];
	int			pick[4] = {1, 2, 4, 6};	/* TIME, DECIMAL(38), TIMESTAMP(9), ARRAY */
	ts_value	row[NCOLS];
	int64_t		counts[4];
	ts_buf		min,
				max;
	ts_value	mins[4],
				maxs[4];
	const ts_type *types[4];
	ts_arena	arena;
	ts_err		err;
	int			nulls[4] = {0};

	(void) state;
	for (int k = 0; k < 4; k++)
	{
		types[k] = s->fields[pick[k]].type;
		ts_col_stats_init(&st[k], types[k], TS_STATS_TRUNCATE, 16);
	}
	for (int r = 1; r < 40; r++)
	{
		make_row(r, row);
		for (int k = 0; k < 4; k++)
		{
			assert_true(ts_col_stats_add(&st[k], &row[pick[k]], &err));
			nulls[k] += row[pick[k]].isnull;
		}
		for (int c = 0; c < s->nfields; c++)
			free_value(&row[c], s->fields[c].type);
	}
	ts_buf_init(&min);
	ts_buf_init(&max);
	assert_true(ts_col_stats_encode(st, 4, &min, &max, counts, &err));
	ts_arena_init(&arena, 4096);
	assert_true(ts_binary_row_decode(min.data, min.len, types, 4, mins, NULL, &arena, &err));
	assert_true(ts_binary_row_decode(max.data, max.len, types, 4, maxs, NULL, &arena, &err));
	/* TIME and DECIMAL(38): bounds and null counts */
	assert_int_equal(counts[0], nulls[0]);
	assert_false(mins[0].isnull);
	assert_int_equal(counts[1], nulls[1]);
	assert_true(mins[1].v.dec == -max38() && maxs[1].v.dec == max38());
	/* TIMESTAMP(9) (INT96): a null count, no bounds */
	assert_int_equal(counts[2], nulls[2]);
	assert_true(mins[2].isnull && maxs[2].isnull);
	/* a nested column: nothing */
	assert_int_equal(counts[3], -1);
	assert_true(mins[3].isnull && maxs[3].isnull);
	for (int k = 0; k < 4; k++)
		ts_col_stats_free(&st[k]);
	ts_buf_free(&min);
	ts_buf_free(&max);
	ts_arena_free(&arena);
	ts_schema_free(s);
}

static void
test_nested_key_refused(void **state)
{
	char		tmpl[] = "/tmp/ts-unit-wtypes-t.XXXXXX";
	char	   *root = mkdtemp(tmpl);
	char		table[300];
	ts_err		err;
	ts_table_writer *w;

	(void) state;
	assert_non_null(root);
	snprintf(table, sizeof(table), "%s/t", root);
	write_schema(table,
				 "{\"version\":3,\"id\":0,\"fields\":["
				 "{\"id\":0,\"name\":\"id\",\"type\":\"INT\"},"
				 "{\"id\":1,\"name\":\"tags\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}}],"
				 "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],"
				 "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"tags\"}}");
	w = ts_table_writer_open(local_fs(table), table, NULL, 0, &err);
	assert_null(w);
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "bucket key column \"tags\""));
	/* a nested value column is written */
	write_schema(table,
				 "{\"version\":3,\"id\":0,\"fields\":["
				 "{\"id\":0,\"name\":\"id\",\"type\":\"INT\"},"
				 "{\"id\":1,\"name\":\"tags\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}}],"
				 "\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],"
				 "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\"}}");
	w = ts_table_writer_open(local_fs(table), table, NULL, 0, &err);
	if (w == NULL)
		fail_msg("open: %s", err.msg);
	ts_table_writer_abort(w);
	{
		char		cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_schema_as_java),
		cmocka_unit_test(test_decimal_and_int96_schema_as_java),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_null_parts),
		cmocka_unit_test(test_stats_as_java),
		cmocka_unit_test(test_nested_key_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
