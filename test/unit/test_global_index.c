/*
 * test_global_index.c - the bitmap global index (src/format/fileindex/
 * global_index.c, src/scan/global_index.c) on the tables Java Paimon wrote
 * (../shared/testdata/parquet/append_with_global_index and its partitioned twin).
 *
 * append_with_global_index: one data file, row ids 0..7, rows (f0, f1, f2)
 * Alice 10 1, Bob 10 1, Emily 10 0, Tony 10 0, Lucy 20 1, Bob 10 1,
 * Tony 20 0, Alice 20 NULL (README of the table); snapshot 2 indexes f0,
 * 3 also f1, 4 also f2 (bitmap kind).  The rows each lookup selects are
 * checked against that list; planning keeps the file exactly when some
 * row id survives.
 */
#include <glob.h>
#include <roaring/roaring.h>
#include <stdlib.h>

#include "unit.h"

#include "base/ts_fs.h"
#include "format/fileindex/global_index.h"
#include "expr/predicate.h"
#include "scan/scan.h"

#define GI_TABLE "testdata/parquet/append_with_global_index.db/append_with_global_index"
#define GI_PART "testdata/parquet/append_with_global_index_with_partition.db/append_with_global_index_with_partition"

static ts_type string_type = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type int_type = {.kind = TS_INT, .nullable = true};

static ts_value
v_str(const char *s)
{
	ts_value	v = {0};

	v.v.s.p = (const uint8_t *) s;
	v.v.s.len = (uint32_t) strlen(s);
	return v;
}

static ts_value
v_int(int64_t i)
{
	ts_value	v = {0};

	v.v.i = i;
	return v;
}

static ts_predicate
leaf(ts_predicate_op op, int field, int n, const ts_value *lits)
{
	ts_predicate p = {0};

	p.op = op;
	p.field = field;
	p.nliterals = n;
	p.literals = lits;
	return p;
}

/* The index file of the table's field (by its size in the index manifest: 176 f0, 102 f1, 108 f2). */
static const char *
index_file(int field)
{
	static char path[4096];
	static const long sizes[3] = {176, 102, 108};
	glob_t		g;

	snprintf(path, sizeof(path), "%s/index/bitmap-global-index-*.index", unit_shared_path(GI_TABLE));
	assert_int_equal(glob(path, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++)
	{
		FILE	   *f = fopen(g.gl_pathv[i], "rb");
		long		n;

		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fclose(f);
		if (n == sizes[field])
		{
			snprintf(path, sizeof(path), "%s", g.gl_pathv[i]);
			globfree(&g);
			return path;
		}
	}
	globfree(&g);
	fail_msg("no index file for field %d", field);
	return NULL;
}

/* The positions a leaf selects, as a bit mask of rows 0..7; -1: every row. */
static int
lookup(int field, const ts_type *t, const ts_predicate *p)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	bool		all;
	void	   *rows;
	int			mask = 0;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), index_file(field), &data, &len, &err))
		fail_msg("%s", err.msg);
	if (!ts_global_index_leaf("bitmap", data, len, t, p, &all, &rows, &err))
		fail_msg("%s", err.msg);
	ts_free(data);
	if (all)
		return -1;
	for (int i = 0; i < 32; i++)
		if (roaring_bitmap_contains(rows, i))
			mask |= 1 << i;
	ts_global_index_rows_free(rows);
	return mask;
}

static void
test_bitmap_lookups(void **state)
{
	ts_value	bob = v_str("Bob"),
				names[2] = {v_str("Tony"), v_str("Lucy")},
				nobody = v_str("Zed"),
				i20 = v_int(20),
				i0 = v_int(0);
	ts_predicate p;

	(void) state;
	unit_shared_dir();
	p = leaf(TS_PRED_EQ, 0, 1, &bob);
	assert_int_equal(lookup(0, &string_type, &p), (1 << 1) | (1 << 5));
	p = leaf(TS_PRED_IN, 0, 2, names);
	assert_int_equal(lookup(0, &string_type, &p), (1 << 3) | (1 << 4) | (1 << 6));
	p = leaf(TS_PRED_EQ, 0, 1, &nobody);
	assert_int_equal(lookup(0, &string_type, &p), 0);
	p = leaf(TS_PRED_EQ, 1, 1, &i20);
	assert_int_equal(lookup(1, &int_type, &p), (1 << 4) | (1 << 6) | (1 << 7));
	p = leaf(TS_PRED_EQ, 2, 1, &i0);
	assert_int_equal(lookup(2, &int_type, &p), (1 << 2) | (1 << 3) | (1 << 6));
	p = leaf(TS_PRED_IS_NULL, 2, 0, NULL);
	assert_int_equal(lookup(2, &int_type, &p), 1 << 7);
	/* ranges: the bitmap cannot tell */
	p = leaf(TS_PRED_GT, 1, 1, &i20);
	assert_int_equal(lookup(1, &int_type, &p), -1);
	/* a kind not read says nothing */
	{
		uint8_t		junk[4] = {0};
		bool		all;
		void	   *rows;
		ts_err		err = {0};

		assert_true(ts_global_index_kind_supported("btree"));
		assert_false(ts_global_index_kind_supported("lumina-vector-ann"));
		p = leaf(TS_PRED_EQ, 1, 1, &i20);
		assert_true(ts_global_index_leaf("lumina-vector-ann", junk, 4, &int_type, &p, &all, &rows, &err));
		assert_true(all);
		/* a btree file of 4 bytes: corrupt (test_btree.c tests the kind) */
		assert_false(ts_global_index_leaf("btree", junk, 4, &int_type, &p, &all, &rows, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		memset(&err, 0, sizeof(err));
		/* a bitmap cut short: an error, never "no rows" */
		{
			uint8_t    *data;
			size_t		len;

			assert_true(ts_read_whole_file(ts_fs_local_unconfined(), index_file(1), &data, &len, &err));
			assert_false(ts_global_index_leaf("bitmap", data, 30, &int_type, &p, &all, &rows, &err));
			assert_int_equal(err.code, TS_ERR_CORRUPT);
			ts_free(data);
		}
	}
}

static int
plan_files(const char *rel, const char *snapshot, const ts_predicate *pred, bool no_index,
		   char **used)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.snapshot-id", snapshot};
	ts_plan    *plan;
	ts_err		err = {0};
	int			n = 0;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = unit_shared_path(rel);
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
	if (used)
		*used = plan->global_index_used ? strdup(plan->global_index_used) : NULL;
	ts_plan_free(plan);
	return n;
}

static void
test_plan(void **state)
{
	ts_value	bob = v_str("Bob"),
				alice = v_str("Alice"),
				nobody = v_str("Zed"),
				i20 = v_int(20);
	ts_predicate kids[2],
				and,
				or,
				p;
	char	   *used = NULL;

	(void) state;
	unit_shared_dir();
	/* a name no row has: the file is not read; with indexes off it is */
	p = leaf(TS_PRED_EQ, 0, 1, &nobody);
	assert_int_equal(plan_files(GI_TABLE, NULL, &p, false, &used), 0);
	assert_string_equal(used, "bitmap f0");
	free(used);
	assert_int_equal(plan_files(GI_TABLE, NULL, &p, true, NULL), 1);
	/* snapshot 1 has no global index */
	assert_int_equal(plan_files(GI_TABLE, "1", &p, false, NULL), 1);
	p = leaf(TS_PRED_EQ, 0, 1, &bob);
	assert_int_equal(plan_files(GI_TABLE, NULL, &p, false, NULL), 1);
	/* Bob (rows 1, 5) AND f1 = 20 (rows 4, 6, 7): no row has both */
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &bob);
	kids[1] = leaf(TS_PRED_EQ, 1, 1, &i20);
	and = (ts_predicate) {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	assert_int_equal(plan_files(GI_TABLE, NULL, &and, false, &used), 0);
	assert_non_null(used);
	free(used);
	/* ... but snapshot 2 indexes only f0: f1 = 20 allows every row */
	assert_int_equal(plan_files(GI_TABLE, "2", &and, false, NULL), 1);
	/* OR: either may hold */
	or = (ts_predicate) {.op = TS_PRED_OR, .nchildren = 2, .children = kids};
	assert_int_equal(plan_files(GI_TABLE, NULL, &or, false, NULL), 1);
	/* Alice (rows 0, 7) AND f2 IS NULL (row 7) */
	kids[0] = leaf(TS_PRED_EQ, 0, 1, &alice);
	kids[1] = leaf(TS_PRED_IS_NULL, 2, 0, NULL);
	assert_int_equal(plan_files(GI_TABLE, NULL, &and, false, NULL), 1);
	/* NOT says nothing */
	p = leaf(TS_PRED_EQ, 0, 1, &nobody);
	{
		ts_predicate not = {.op = TS_PRED_NOT, .nchildren = 1, .children = &p};

		assert_int_equal(plan_files(GI_TABLE, NULL, &not, false, NULL), 1);
	}
	/*
	 * Partitions: f1=10 holds Alice Bob Emily Tony Bob (f0 indexed in
	 * snapshot 2, partition f1=10 only), f1=20 Lucy Tony Alice; both files
	 * start at row id 0, so an index applies only to its own partition.
	 */
	/* Lucy is in f1=20 only: f1=10's index rules its file out, not f1=20's */
	p = leaf(TS_PRED_EQ, 0, 1, (ts_value[]) {v_str("Lucy")});
	assert_int_equal(plan_files(GI_PART, NULL, &p, false, NULL), 1);
	p = leaf(TS_PRED_EQ, 0, 1, &nobody);
	assert_int_equal(plan_files(GI_PART, NULL, &p, false, NULL), 1);
	/* Bob: f1=10's index finds him, f1=20 has no index */
	p = leaf(TS_PRED_EQ, 0, 1, &bob);
	assert_int_equal(plan_files(GI_PART, NULL, &p, false, NULL), 2);
}

static void
put_be(uint8_t *b, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t) v;
}

/*
 * Java's later BitmapGlobalIndexFormat (48-byte footer, version, magic
 * "BGIX"): left unused (all rows), never decoded as a BitmapFileIndex body;
 * the same bytes with another version, or a block past the footer, are not
 * taken for it.
 */
static void
test_bgix_unused(void **state)
{
	uint8_t		buf[16 + 48] = {0};
	uint8_t    *f = buf + 16;
	ts_value	i20 = v_int(20);
	ts_predicate p = leaf(TS_PRED_EQ, 0, 1, &i20);

	(void) state;
	for (int round = 0; round < 4; round++)
	{
		bool		all = true;
		void	   *rows = NULL;
		ts_err		err = {0};
		bool		ok;

		memset(buf, 0, sizeof(buf));
		buf[0] = 0xff;
		put_be(f, 0, 8);		/* null rows */
		put_be(f + 8, 4, 4);
		put_be(f + 12, 4, 8);	/* non-null rows */
		put_be(f + 20, 4, 4);
		put_be(f + 24, 8, 8);	/* dictionary block index */
		put_be(f + 32, round == 3 ? 9 : 8, 4);
		put_be(f + 36, 1, 4);	/* value count */
		put_be(f + 40, round == 2 ? 3 : 1 + round % 2, 4);
		put_be(f + 44, 0x42474958, 4);
		ok = ts_global_index_leaf("bitmap", buf, sizeof(buf), &int_type, &p, &all, &rows, &err);
		if (round < 2)
		{
			assert_true(ok);
			assert_true(all);
			assert_null(rows);
		}
		else					/* decoded as a BitmapFileIndex body (version 0xff: no filtering) */
			assert_true(ok ? all : strstr(err.msg, "BGIX") == NULL);
		ts_global_index_rows_free(rows);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bitmap_lookups),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_bgix_unused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
