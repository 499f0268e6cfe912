/*
 * test_file_index.c - the file-index reader (src/format/fileindex) over the
 * index files Java Paimon wrote in ../shared/testdata: container, bloom
 * filter (XXH64 against the oracle's vectors), bitmap v1 / v2 and BSI,
 * each evaluated against predicates whose rows the oracle lists (rows in
 * file order), plus small hand-made and corrupt indexes.
 */
#include <glob.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "unit.h"
#include "format/fileindex/file_index.h"
#include "scan/scan.h"
#include "read/read.h"

/* ---- helpers ------------------------------------------------------------ */

static ts_type t_string = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type t_int = {.kind = TS_INT, .nullable = true};
static ts_type t_double = {.kind = TS_DOUBLE, .nullable = true};
static ts_type t_ts9 = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 9};

/* the tables' columns f0 STRING, f1 INT, f2 INT, f3 DOUBLE, f4 TIMESTAMP(9) */
static const char *col_names[] = {"f0", "f1", "f2", "f3", "f4"};
static const ts_type *col_types[] = {&t_string, &t_int, &t_int, &t_double, &t_ts9};

static bool
column_of(void *arg, int field, const char **name, const ts_type **type)
{
	(void) arg;
	if (field < 0 || field > 4)
		return false;
	*name = col_names[field];
	*type = col_types[field];
	return true;
}

static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *b;
	long		n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t) n + 1);
	assert_int_equal(fread(b, 1, (size_t) n, f), (size_t) n);
	fclose(f);
	*len = (size_t) n;
	return b;
}

/* The one sidecar index under a table's bucket-0 directory. */
static uint8_t *
read_sidecar(const char *table_rel, size_t *len)
{
	char		pat[4096];
	glob_t		g;
	uint8_t    *b;

	snprintf(pat, sizeof(pat), "%s/bucket-0/*.index", unit_shared_path(table_rel));
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	b = read_file(g.gl_pathv[0], len);
	globfree(&g);
	return b;
}

static ts_predicate
leaf(ts_predicate_op op, int field, int n, const ts_value *lits)
{
	ts_predicate p;

	memset(&p, 0, sizeof(p));
	p.op = op;
	p.field = field;
	p.nliterals = n;
	p.literals = lits;
	return p;
}

static ts_predicate
node(ts_predicate_op op, int n, const ts_predicate *children)
{
	ts_predicate p;

	memset(&p, 0, sizeof(p));
	p.op = op;
	p.nchildren = n;
	p.children = children;
	return p;
}

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
v_double(double d)
{
	ts_value	v = {0};

	v.v.d = d;
	return v;
}

/*
 * Evaluate p on the index; expect: "skip" (no row), "all" (no selection),
 * or the selected rows as a list like "0,7".
 */
static void
expect(const ts_file_index *fi, const ts_predicate *p, const char *want)
{
	ts_file_index_eval how = {column_of, NULL, NULL, true};
	ts_file_index_result r;
	ts_err		err = {0};
	char		got[256] = "";

	if (!ts_file_index_evaluate(fi, p, &how, &r, &err))
		fail_msg("evaluate: %s", err.msg);
	if (!r.may_match)
		snprintf(got, sizeof(got), "skip");
	else if (ts_file_index_result_rows(&r) < 0)
		snprintf(got, sizeof(got), "all");
	else
	{
		for (uint32_t i = 0; i < 64; i++)
			if (ts_file_index_result_has_row(&r, i))
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", got[0] ? "," : "", i);
	}
	ts_file_index_result_free(&r);
	if (strcmp(got, want) != 0)
		fail_msg("expected %s, got %s", want, got);
}

/* ---- hashes --------------------------------------------------------------- */

static void
test_xxh64_vectors(void **state)
{
	size_t		len;
	char	   *text;
	cJSON	   *arr,
			   *it;
	int			n = 0;

	(void) state;
	text = (char *) read_file(unit_shared_path("oracle/xxhash_vectors.json"), &len);
	text[len] = '\0';
	arr = cJSON_Parse(text);
	assert_non_null(arr);
	cJSON_ArrayForEach(it, arr)
	{
		const char *in = cJSON_GetObjectItem(it, "input_utf8")->valuestring;
		const char *hex = cJSON_GetObjectItem(it, "xxh64_seed0_hex")->valuestring;
		unsigned long long want = strtoull(hex, NULL, 16);
		unsigned long long got = ts_xxh64(in, strlen(in), 0);

		if (got != want)
			fail_msg("xxh64(\"%s\") = %llx, expected %s", in, got, hex);
		n++;
	}
	assert_true(n >= 1000);
	/* the empty input, XXH64's published value */
	assert_true(ts_xxh64("", 0, 0) == UINT64_C(0xEF46DB3751D8E999));
	cJSON_Delete(arr);
	free(text);
}

static void
test_thomas_wang(void **state)
{
	(void) state;
	/* Java's FastHash.getLongHash (arithmetic shifts) */
	assert_true(ts_thomas_wang_hash64(0) == 0);
	assert_true(ts_thomas_wang_hash64(1) == INT64_C(6614235796240398542));
	assert_true(ts_thomas_wang_hash64(-1) == INT64_C(6614246905173314819));
	assert_true(ts_thomas_wang_hash64(100) == INT64_C(-2656722120339171202));
}

/* ---- container -------------------------------------------------------------- */

static void
test_container(void **state)
{
	size_t		len;
	uint8_t    *b = read_sidecar("testdata/parquet/append_with_bsi_bitmap_bloomfilter.db/append_with_bsi_bitmap_bloomfilter", &len);
	ts_file_index fi;
	ts_err		err = {0};
	int			bloom = 0,
				bitmap = 0,
				bsi = 0;

	(void) state;
	assert_true(ts_file_index_parse(b, len, &fi, &err));
	for (int i = 0; i < fi.nentries; i++)
	{
		const ts_file_index_entry *e = &fi.entries[i];

		assert_int_equal(e->column_len, 2);
		assert_true(e->column[0] == 'f');
		if (e->kind_len == 12 && memcmp(e->kind, "bloom-filter", 12) == 0)
			bloom++;
		else if (e->kind_len == 6 && memcmp(e->kind, "bitmap", 6) == 0)
			bitmap++;
		else if (e->kind_len == 3 && memcmp(e->kind, "bsi", 3) == 0)
			bsi++;
	}
	/* as the table's options ask: bloom f0-f4, bitmap f0,f1,f2,f4, bsi f1,f2,f4 */
	assert_int_equal(bloom, 5);
	assert_int_equal(bitmap, 4);
	assert_int_equal(bsi, 3);
	ts_file_index_free(&fi);

	/* truncations and a bad magic are errors, never a crash */
	for (size_t cut = 0; cut < 40 && cut < len; cut++)
	{
		if (ts_file_index_parse(b, cut, &fi, &err))
			ts_file_index_free(&fi);
	}
	b[0] ^= 1;
	assert_false(ts_file_index_parse(b, len, &fi, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	free(b);
}

/* ---- bitmap ------------------------------------------------------------------ */

static void
check_bitmap_index(const uint8_t *b, size_t len)
{
	ts_file_index fi;
	ts_err		err = {0};
	ts_value	alice = v_str("Alice"),
				in3[3] = {v_str("Alice"), v_str("Bob"), v_str("Lucy")},
				i20 = v_int(20),
				i30 = v_int(30),
				i10 = v_int(10),
				i6 = v_int(6),
				d141 = v_double(14.1);
	ts_predicate p,
				kids[3];

	assert_true(ts_file_index_parse(b, len, &fi, &err));
	/* rows: Alice Bob Emily Tony Lucy Bob Tony Alice; f1 10 10 10 10 20 10 20 20; f2 1 1 0 0 1 1 0 NULL */
	p = leaf(TS_PRED_EQ, 0, 1, &alice);
	expect(&fi, &p, "0,7");
	p = leaf(TS_PRED_NE, 0, 1, &alice);
	expect(&fi, &p, "1,2,3,4,5,6");
	p = leaf(TS_PRED_EQ, 1, 1, &i20);
	expect(&fi, &p, "4,6,7");
	p = leaf(TS_PRED_IS_NULL, 2, 0, NULL);
	expect(&fi, &p, "7");
	p = leaf(TS_PRED_IS_NOT_NULL, 2, 0, NULL);
	expect(&fi, &p, "0,1,2,3,4,5,6");
	p = leaf(TS_PRED_IN, 0, 3, in3);
	expect(&fi, &p, "0,1,4,5,7");
	p = leaf(TS_PRED_NOT_IN, 0, 3, in3);
	expect(&fi, &p, "2,3,6");
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &alice);
	kids[1] = leaf(TS_PRED_EQ, 1, 1, &i20);
	p = node(TS_PRED_AND, 2, kids);
	expect(&fi, &p, "7");
	p = node(TS_PRED_OR, 2, kids);
	expect(&fi, &p, "0,4,6,7");
	p = leaf(TS_PRED_EQ, 1, 1, &i30);
	expect(&fi, &p, "skip");
	kids[0] = leaf(TS_PRED_EQ, 1, 1, &i10);
	kids[1] = leaf(TS_PRED_EQ, 2, 1, &i6);
	kids[2] = leaf(TS_PRED_EQ, 0, 1, &alice);
	p = node(TS_PRED_AND, 3, kids);
	expect(&fi, &p, "skip");
	/* a range and an unindexed column decide nothing; NOT is never used */
	p = leaf(TS_PRED_GT, 1, 1, &i10);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 3, 1, &d141);
	expect(&fi, &p, "all");
	kids[0] = leaf(TS_PRED_EQ, 1, 1, &i30);
	p = node(TS_PRED_NOT, 1, kids);
	expect(&fi, &p, "all");
	ts_file_index_free(&fi);
}

static void
check_bitmap_table(const char *rel)
{
	size_t		len;
	uint8_t    *b = read_sidecar(rel, &len);

	check_bitmap_index(b, len);
	free(b);
}

static void
test_bitmap_v2(void **state)
{
	(void) state;
	check_bitmap_table("testdata/parquet/append_with_bitmap_no_embedding.db/append_with_bitmap_no_embedding");
}

static void
test_bitmap_v1(void **state)
{
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	const ts_manifest_entry *e;

	(void) state;
	/* the v1 table's index is embedded in its manifest entry */
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = unit_shared_path("testdata/parquet/append_with_bitmap_v1.db/append_with_bitmap_v1");
	ctx.limit = -1;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	assert_int_equal(plan->nsplits, 1);
	assert_int_equal(plan->splits[0].nfiles, 1);
	e = plan->splits[0].files[0].entry;
	assert_non_null(e->file.embedded_file_index.data);
	/* version byte 1 in the bitmap bodies */
	check_bitmap_index(e->file.embedded_file_index.data, e->file.embedded_file_index.len);
	ts_plan_free(plan);
}

/* ---- BSI ---------------------------------------------------------------------- */

static void
test_bsi(void **state)
{
	size_t		len;
	uint8_t    *b = read_sidecar("testdata/parquet/append_with_bsi.db/append_with_bsi", &len);
	ts_file_index fi;
	ts_err		err = {0};
	ts_value	i100 = v_int(100),
				m2 = v_int(-2),
				m1 = v_int(-1),
				z = v_int(0),
				in3[3] = {v_int(-1), v_int(2), v_int(-2)},
				nin3[3] = {v_int(100), v_int(400), v_int(200)},
				ts = {0};
	ts_predicate p,
				kids[3];

	(void) state;
	assert_true(ts_file_index_parse(b, len, &fi, &err));
	/* f1 100 200 300 50 500 100 NULL 20; f2 -2 -3 1 1 -1 2 -2 NULL; f4 NULL at row 5 */
	p = leaf(TS_PRED_IS_NULL, 4, 0, NULL);
	expect(&fi, &p, "5");
	p = leaf(TS_PRED_EQ, 1, 1, &i100);
	expect(&fi, &p, "0,5");
	p = leaf(TS_PRED_NE, 2, 1, &m2);
	expect(&fi, &p, "1,2,3,4,5");
	p = leaf(TS_PRED_GT, 1, 1, &i100);
	expect(&fi, &p, "1,2,4");
	p = leaf(TS_PRED_GE, 2, 1, &m1);
	expect(&fi, &p, "2,3,4,5");
	p = leaf(TS_PRED_LT, 2, 1, &m1);
	expect(&fi, &p, "0,1,6");
	p = leaf(TS_PRED_LE, 1, 1, &i100);
	expect(&fi, &p, "0,3,5,7");
	p = leaf(TS_PRED_IN, 2, 3, in3);
	expect(&fi, &p, "0,4,5,6");
	p = leaf(TS_PRED_NOT_IN, 1, 3, nin3);
	expect(&fi, &p, "2,3,4,7");
	kids[0] = leaf(TS_PRED_GT, 1, 1, &i100);
	kids[1] = leaf(TS_PRED_LE, 2, 1, &z);
	p = node(TS_PRED_AND, 2, kids);
	expect(&fi, &p, "1,4");
	kids[0] = leaf(TS_PRED_IS_NOT_NULL, 1, 0, NULL);
	kids[1] = leaf(TS_PRED_IS_NOT_NULL, 2, 0, NULL);
	kids[2] = leaf(TS_PRED_IS_NOT_NULL, 4, 0, NULL);
	p = node(TS_PRED_AND, 3, kids);
	expect(&fi, &p, "0,1,2,3,4");
	/* TIMESTAMP(9): microsecond keys stand for 1000 values each: = only */
	ts.v.ts.millis = INT64_C(1745542802000);	/* 2025-04-25T01:00:02 */
	ts.v.ts.nanos = 123000;
	p = leaf(TS_PRED_EQ, 4, 1, &ts);
	expect(&fi, &p, "0,6");
	p = leaf(TS_PRED_LT, 4, 1, &ts);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_NE, 4, 1, &ts);
	expect(&fi, &p, "all");
	/* a literal between two keys decides nothing */
	ts.v.ts.nanos = 123001;
	p = leaf(TS_PRED_EQ, 4, 1, &ts);
	expect(&fi, &p, "all");
	/* strings have no BSI */
	{
		ts_value	a = v_str("Alice");

		p = leaf(TS_PRED_EQ, 0, 1, &a);
		expect(&fi, &p, "all");
	}
	ts_file_index_free(&fi);
	free(b);
}

/* ---- bloom filter -------------------------------------------------------------- */

static void
test_bloom(void **state)
{
	size_t		len;
	uint8_t    *b = read_sidecar("testdata/parquet/append_with_bloomfilter.db/append_with_bloomfilter", &len);
	ts_file_index fi;
	ts_err		err = {0};
	ts_value	alice = v_str("Alice"),
				alice2 = v_str("Alice2"),
				i200 = v_int(200),
				i201 = v_int(201),
				m1 = v_int(-1),
				z = v_int(0),
				d131 = v_double(13.1),
				d132 = v_double(13.2),
				absent[3] = {v_int(-1000), v_int(0), v_int(1000)},
				present[3] = {v_int(-1000), v_int(2), v_int(1000)},
				ts = {0};
	ts_predicate p,
				kids[2];

	(void) state;
	assert_true(ts_file_index_parse(b, len, &fi, &err));
	p = leaf(TS_PRED_EQ, 1, 1, &i200);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 0, 1, &alice);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 0, 1, &alice2);
	expect(&fi, &p, "skip");
	p = leaf(TS_PRED_EQ, 1, 1, &i200);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 1, 1, &i201);
	expect(&fi, &p, "skip");
	p = leaf(TS_PRED_EQ, 2, 1, &m1);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 2, 1, &z);
	expect(&fi, &p, "skip");
	p = leaf(TS_PRED_EQ, 3, 1, &d131);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_EQ, 3, 1, &d132);
	expect(&fi, &p, "skip");
	p = leaf(TS_PRED_IN, 2, 3, absent);
	expect(&fi, &p, "skip");
	p = leaf(TS_PRED_IN, 2, 3, present);
	expect(&fi, &p, "all");
	p = leaf(TS_PRED_NE, 1, 1, &i201);
	expect(&fi, &p, "all");
	kids[0] = leaf(TS_PRED_EQ, 1, 1, &i200);
	kids[1] = leaf(TS_PRED_EQ, 0, 1, &alice2);
	p = node(TS_PRED_AND, 2, kids);
	expect(&fi, &p, "skip");
	p = node(TS_PRED_OR, 2, kids);
	expect(&fi, &p, "all");
	/* TIMESTAMP(9) bloom filters are not used (older writers hashed milliseconds) */
	ts.v.ts.millis = 1;
	p = leaf(TS_PRED_EQ, 4, 1, &ts);
	expect(&fi, &p, "all");
	ts_file_index_free(&fi);
	free(b);
}

/* ---- planning with embedded indexes ------------------------------------------ */

static int
plan_files(const char *rel, const char *snapshot, const ts_predicate *pred, bool no_index,
		   ts_plan **out)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", snapshot};
	ts_plan    *plan;
	ts_err		err = {0};
	int			n = 0;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = rel[0] == '/' ? rel : unit_shared_path(rel);
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ctx.no_cache = true;
	ctx.no_file_index = no_index;
	ctx.predicate = pred;
	ctx.noptions = snapshot ? 1 : 0;
	ctx.options = &o;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan %s: %s", rel, err.msg);
	for (int i = 0; i < plan->nsplits; i++)
		n += plan->splits[i].nfiles;
	assert_int_equal(plan->metrics.files_kept, n);
	if (out)
		*out = plan;
	else
		ts_plan_free(plan);
	return n;
}

#define BITMAP_ORC "testdata/orc/append_with_bitmap.db/append_with_bitmap"

static void
test_plan_embedded(void **state)
{
	ts_value	lucy = v_str("Lucy"),
				tony = v_str("Tony"),
				i10 = v_int(10),
				i100 = v_int(100),
				david = v_str("David");
	ts_predicate kids[2],
				p;
	ts_plan    *plan;

	(void) state;
	/* oracle plan_snapshot1_lucy_and_f1_10_empty: the bitmaps rule the file out */
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &lucy);
	kids[1] = leaf(TS_PRED_EQ, 1, 1, &i10);
	p = node(TS_PRED_AND, 2, kids);
	assert_int_equal(plan_files(BITMAP_ORC, "1", &p, false, &plan), 0);
	assert_int_equal(plan->metrics.files_pruned_index, 1);
	assert_non_null(plan->file_index_used);
	assert_non_null(strstr(plan->file_index_used, "bitmap f0"));
	assert_non_null(strstr(plan->file_index_used, "bitmap f1"));
	ts_plan_free(plan);
	/* the same with index use off, and Tony AND f1 = 10 (plan_snapshot1_tony_and_f1_10) */
	assert_int_equal(plan_files(BITMAP_ORC, "1", &p, true, NULL), 1);
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &tony);
	assert_int_equal(plan_files(BITMAP_ORC, "1", &p, false, NULL), 1);

	/*
	 * plan_snapshot2_f1_eq_100_and_f4_eq_David_empty: f4 was renamed from
	 * f0 (same field id): the schema-0 file's index names it f0
	 */
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &i100);	/* f1 BIGINT (INT in schema 0) */
	kids[1] = leaf(TS_PRED_EQ, 1, 1, &david);	/* f4 */
	p = node(TS_PRED_AND, 2, kids);
	assert_int_equal(plan_files("testdata/orc/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table",
								"2", &p, false, NULL), 0);
}

/* ---- sidecar indexes while reading -------------------------------------------- */

/* Rows a full read of the plan returns; *skipped: files the sidecars ruled out. */
static int64_t
read_rows(ts_plan *plan, int *skipped)
{
	int64_t		rows = 0;
	int			cols[1] = {0};

	*skipped = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_err		err = {0};
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 1, &err);
		ts_batch	b;
		int			n;

		if (r == NULL)
			fail_msg("open: %s", err.msg);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			rows += n;
		if (n < 0)
			fail_msg("read: %s", err.msg);
		*skipped += ts_split_reader_metrics(r)->files_skipped_index;
		ts_split_reader_close(r);
	}
	return rows;
}

static void
test_read_sidecar(void **state)
{
	const char *rel = "testdata/parquet/append_with_bloomfilter.db/append_with_bloomfilter";
	ts_value	alice = v_str("Alice"),
				alice2 = v_str("Alice2"),
				i201 = v_int(201);
	ts_predicate p;
	ts_plan    *plan;
	int			skipped;

	(void) state;
	/* the index is a sidecar (in-manifest threshold 1 B): planning keeps the file */
	p = leaf(TS_PRED_EQ, 0, 1, &alice2);
	assert_int_equal(plan_files(rel, NULL, &p, false, &plan), 1);
	plan->predicate = &p;
	assert_int_equal(read_rows(plan, &skipped), 0);
	assert_int_equal(skipped, 1);
	ts_plan_free(plan);
	/* index use off: the file is read (the executor filters its rows) */
	assert_int_equal(plan_files(rel, NULL, &p, true, &plan), 1);
	plan->predicate = &p;
	assert_int_equal(read_rows(plan, &skipped), 8);
	assert_int_equal(skipped, 0);
	ts_plan_free(plan);
	p = leaf(TS_PRED_EQ, 1, 1, &i201);
	assert_int_equal(plan_files(rel, NULL, &p, false, &plan), 1);
	plan->predicate = &p;
	assert_int_equal(read_rows(plan, &skipped), 0);
	ts_plan_free(plan);
	p = leaf(TS_PRED_EQ, 0, 1, &alice);
	assert_int_equal(plan_files(rel, NULL, &p, false, &plan), 1);
	plan->predicate = &p;
	assert_int_equal(read_rows(plan, &skipped), 8);
	assert_int_equal(skipped, 0);
	ts_plan_free(plan);
}

/* ---- row selections, and corrupt sidecars while reading ------------------------ */

/*
 * Read every split of the plan (columns f0, f3); rows read, rows the index
 * selections left out; false with *msg on the first error.
 */
static bool
read_selected(ts_plan *plan, int64_t *rows, int64_t *skipped_rows, char *msg, size_t msglen)
{
	int			cols[2] = {0, 3};

	*rows = *skipped_rows = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_err		err = {0};
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 2, &err);
		ts_batch	b;
		int			n = -1;

		if (r != NULL)
		{
			while ((n = ts_split_reader_next(r, &b, &err)) > 0)
				*rows += n;
			*skipped_rows += ts_split_reader_metrics(r)->rows_skipped_index;
			ts_split_reader_close(r);
		}
		if (n < 0)
		{
			snprintf(msg, msglen, "%s", err.msg);
			return false;
		}
	}
	return true;
}

#define MULTI_STRIPES "testdata/append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes"

static void
test_read_selection(void **state)
{
	/* one ORC file of 8 stripes of one row; a sidecar bitmap index of f0, f1, f2 */
	ts_value	tony = v_str("Tony"),
				i10 = v_int(10),
				z = v_int(0);
	ts_predicate kids[2],
				p;
	ts_plan    *plan;
	int64_t		rows,
				skipped;
	char		msg[1100];
	char		dir[] = "/tmp/ts_unit_fi_XXXXXX";
	char		cmd[12288];
	char		table[64];
	char		index[4200];
	FILE	   *f;

	(void) state;
	/* f0 = 'Tony': rows 3 and 6; the other 6 stripes are not read */
	p = leaf(TS_PRED_EQ, 0, 1, &tony);
	assert_int_equal(plan_files(MULTI_STRIPES, NULL, &p, false, &plan), 1);
	plan->predicate = &p;
	assert_true(read_selected(plan, &rows, &skipped, msg, sizeof(msg)));
	assert_int_equal(rows, 2);
	assert_int_equal(skipped, 6);
	ts_plan_free(plan);
	/* f1 = 10 AND f2 = 0: rows 2 and 3 */
	kids[0] = leaf(TS_PRED_EQ, 1, 1, &i10);
	kids[1] = leaf(TS_PRED_EQ, 2, 1, &z);
	p = node(TS_PRED_AND, 2, kids);
	assert_int_equal(plan_files(MULTI_STRIPES, NULL, &p, false, &plan), 1);
	plan->predicate = &p;
	assert_true(read_selected(plan, &rows, &skipped, msg, sizeof(msg)));
	assert_int_equal(rows, 2);
	assert_int_equal(skipped, 6);
	ts_plan_free(plan);
	/*
	 * index use off: every row (statistics of f1, f2 are not used, as
	 * those columns are not read here); nothing skipped by an index
	 */
	assert_int_equal(plan_files(MULTI_STRIPES, NULL, &p, true, &plan), 1);
	plan->predicate = &p;
	assert_true(read_selected(plan, &rows, &skipped, msg, sizeof(msg)));
	assert_int_equal(rows, 8);
	assert_int_equal(skipped, 0);
	ts_plan_free(plan);

	/*
	 * A copy of the table with its sidecar damaged: truncated or with a bad
	 * magic it is an ERROR naming the index file; deleted, the file is read
	 * without it (the same rows)
	 */
	assert_non_null(mkdtemp(dir));
	snprintf(table, sizeof(table), "%s/t", dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && chmod -R u+w '%s'",
			 unit_shared_path(MULTI_STRIPES), table, table);
	assert_int_equal(system(cmd), 0);
	snprintf(index, sizeof(index),
			 "%s/bucket-0/data-55e21ed3-d118-4d75-a0fd-cd52039cb634-0.orc.index", table);
	p = leaf(TS_PRED_EQ, 0, 1, &tony);
	for (int damage = 0; damage < 3; damage++)
	{
		if (damage == 0)
			assert_int_equal(truncate(index, 20), 0);
		else if (damage == 1)
		{
			f = fopen(index, "r+b");
			assert_non_null(f);
			fputc(0x42, f);		/* the magic's first byte */
			fclose(f);
		}
		else
			assert_int_equal(unlink(index), 0);
		assert_int_equal(plan_files(table, NULL, &p, false, &plan), 1);
		plan->predicate = &p;
		if (damage < 2)
		{
			assert_false(read_selected(plan, &rows, &skipped, msg, sizeof(msg)));
			if (strstr(msg, ".orc.index") == NULL)
				fail_msg("error does not name the index file: %s", msg);
		}
		else
		{
			assert_true(read_selected(plan, &rows, &skipped, msg, sizeof(msg)));
			assert_int_equal(rows, 2);
			assert_int_equal(skipped, 0);
		}
		ts_plan_free(plan);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ts_rows_filter_fn keeping the row groups that start at rows 1, 5 and 6 */
static bool
keep_156(void *arg, int64_t first_row, int64_t nrows)
{
	int		   *calls = arg;

	(*calls)++;
	assert_int_equal(nrows, 1);
	return first_row == 1 || first_row == 5 || first_row == 6;
}

/*
 * The format readers' part of a row selection: row groups / stripes the
 * filter refuses are not read, and each batch says where its rows are in
 * the file (both files: 8 rows of one row group / stripe each).
 */
static void
test_rows_filter_positions(void **state)
{
	static const char *files[] = {
		MULTI_STRIPES "/bucket-0/data-multi-row-groups.parquet",
		MULTI_STRIPES "/bucket-0/data-55e21ed3-d118-4d75-a0fd-cd52039cb634-0.orc"
	};
	ts_type		t_dbl = {.kind = TS_DOUBLE, .nullable = true};
	ts_read_column col = {3, "f3", &t_dbl};

	(void) state;
	for (int i = 0; i < 2; i++)
	{
		ts_reader_options opts = {.fs = ts_fs_local_unconfined()};
		ts_err		err = {0};
		ts_format_reader *r;
		ts_batch	b;
		int			n,
					calls = 0;
		char		got[128] = "";

		opts.rows_filter = keep_156;
		opts.rows_filter_arg = &calls;
		r = ts_format_open(TS_FORMAT_UNKNOWN, unit_shared_path(files[i]), &col, 1, &opts, &err);
		if (r == NULL)
			fail_msg("open %s: %s", files[i], err.msg);
		assert_true(r->reports_positions);
		while ((n = ts_format_next(r, &b, &err)) > 0)
			for (int k = 0; k < n; k++)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld:%.1f",
						 got[0] ? " " : "", (long long) (r->row_position + k),
						 ts_batch_at(&b, k, 0)->v.d);
		assert_int_equal(n, 0);
		assert_int_equal(calls, 8);
		/* f3 = 11.1 + row (README of the table) */
		assert_string_equal(got, "1:12.1 5:16.1 6:17.1");
		ts_format_close(r);
	}
}

/* ---- corruption ----------------------------------------------------------------- */

static void
test_corrupt_bodies(void **state)
{
	size_t		len;
	uint8_t    *b = read_sidecar("testdata/parquet/append_with_bsi_bitmap_bloomfilter.db/append_with_bsi_bitmap_bloomfilter", &len);
	ts_value	lits[2] = {v_int(100), v_str("Alice")};
	int			errors = 0;

	(void) state;
	/* every byte of the bodies flipped in turn: an error or an answer, never a crash */
	for (size_t i = 0; i < len; i++)
	{
		ts_file_index fi;
		ts_err		err = {0};
		ts_predicate p[4];
		ts_predicate all;

		b[i] ^= 0x5a;
		if (ts_file_index_parse(b, len, &fi, &err))
		{
			ts_file_index_eval how = {column_of, NULL, NULL, true};
			ts_file_index_result r;

			p[0] = leaf(TS_PRED_EQ, 1, 1, &lits[0]);
			p[1] = leaf(TS_PRED_EQ, 0, 1, &lits[1]);
			p[2] = leaf(TS_PRED_GE, 2, 1, &lits[0]);
			p[3] = leaf(TS_PRED_IS_NULL, 4, 0, NULL);
			all = node(TS_PRED_OR, 4, p);
			if (ts_file_index_evaluate(&fi, &all, &how, &r, &err))
				ts_file_index_result_free(&r);
			else
				errors++;
			ts_file_index_free(&fi);
		}
		b[i] ^= 0x5a;
	}
	assert_true(errors > 0);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xxh64_vectors),
		cmocka_unit_test(test_thomas_wang),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_bitmap_v2),
		cmocka_unit_test(test_bitmap_v1),
		cmocka_unit_test(test_bsi),
		cmocka_unit_test(test_bloom),
		cmocka_unit_test(test_corrupt_bodies),
		cmocka_unit_test(test_plan_embedded),
		cmocka_unit_test(test_read_sidecar),
		cmocka_unit_test(test_read_selection),
		cmocka_unit_test(test_rows_filter_positions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
