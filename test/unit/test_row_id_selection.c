/*
 * test_row_id_selection.c - row positions of wanted row ids inside a file
 * (src/read/row_id_selection.c), the split's set the scan keeps for them
 * (src/scan/row_id_prune.c, ts_row_ids_clip in src/scan/row_ids.c), and reading a row-tracking table with them
 * (src/read/data_file.c: row groups skipped, other rows dropped).
 *
 * The mapping is checked against a brute-force model (is first + pos in
 * the set?); the reads against the ids computed here, on a table of our
 * generator whose _ROW_ID equals its id column (Parquet / ORC files of 333
 * and 334 rows, row groups / stripes of 64; ORC of one stripe, Avro).
 */
#include <stdlib.h>

#include "unit.h"

#include "read/read.h"
#include "read/read_internal.h"
#include "scan/row_ids.h"
#include "scan/scan_internal.h"
#include "gen_tables.h"

/* format.c references readers weakly: pull them out of the archive */
ts_format_reader *(*volatile force_parquet_reader) (const char *, const ts_read_column *, int,
													const ts_reader_options *, ts_err *) = ts_parquet_open;
ts_format_reader *(*volatile force_orc_reader) (const char *, const ts_read_column *, int,
												 const ts_reader_options *, ts_err *) = ts_orc_open;
ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;

static bool
set_has(const ts_row_ids *s, int64_t v)
{
	return s->all || ts_row_ids_overlaps(s, v, v);
}

/* The selection of (first, rows) must be exactly the set's ids there. */
static void
check_mapping(const ts_row_ids *ids, int64_t first, int64_t rows)
{
	ts_data_file_meta m;
	void	   *sel = NULL;
	ts_err		err = {0};
	int64_t		want = 0;

	memset(&m, 0, sizeof(m));
	m.has_first_row_id = true;
	m.first_row_id = first;
	m.row_count = rows;
	assert_true(ts_row_id_selection(ids, &m, &sel, &err));
	for (int64_t pos = 0; pos < rows; pos++)
	{
		bool		in = set_has(ids, first + pos);

		want += in;
		if (sel)
			assert_int_equal(ts_row_selection_has(sel, pos), in);
		else
			assert_true(in);	/* no selection: every row wanted */
	}
	if (sel)
	{
		assert_int_equal(ts_row_selection_count(sel, 0, rows), want);
		/* nothing outside the file */
		assert_false(ts_row_selection_has(sel, rows));
		assert_false(ts_row_selection_has(sel, -1));
	}
	ts_row_selection_free(sel);
}

static void
test_mapping_edges(void **state)
{
	ts_row_range r[] = {{0, 0}, {63, 64}, {199, 205}, {332, 332}, {1000, 1000}};
	ts_row_ids	ids,
				all;
	ts_data_file_meta m;
	void	   *sel;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_row_ids_from_ranges(r, 5, &ids, &err));
	/* the first and last row of a file, ids across a row-group boundary */
	check_mapping(&ids, 0, 333);
	check_mapping(&ids, 200, 133);
	check_mapping(&ids, 333, 333);	/* none: an empty selection */
	check_mapping(&ids, 1000, 1);	/* the whole file: none needed */
	check_mapping(&ids, 999, 3);
	/* open at either end */
	ts_row_ids_free(&ids);
	r[0] = (ts_row_range) {INT64_MIN, 10};
	r[1] = (ts_row_range) {300, INT64_MAX};
	assert_true(ts_row_ids_from_ranges(r, 2, &ids, &err));
	check_mapping(&ids, 0, 333);
	check_mapping(&ids, 5, 3);
	check_mapping(&ids, 299, 2);
	check_mapping(&ids, 100, 100);
	ts_row_ids_free(&ids);
	/* an empty set (= ANY of NULL / '{}'): nothing selected */
	assert_true(ts_row_ids_from_ranges(r, 0, &ids, &err));
	check_mapping(&ids, 0, 50);
	ts_row_ids_free(&ids);

	/* no selection: all, NULL, no _FIRST_ROW_ID, a range past INT64_MAX */
	ts_row_ids_init_all(&all);
	memset(&m, 0, sizeof(m));
	m.has_first_row_id = true;
	m.row_count = 10;
	sel = &m;
	assert_true(ts_row_id_selection(&all, &m, &sel, &err));
	assert_null(sel);
	sel = &m;
	assert_true(ts_row_id_selection(NULL, &m, &sel, &err));
	assert_null(sel);
	r[0] = (ts_row_range) {3, 3};
	assert_true(ts_row_ids_from_ranges(r, 1, &ids, &err));
	m.has_first_row_id = false;
	sel = &m;
	assert_true(ts_row_id_selection(&ids, &m, &sel, &err));
	assert_null(sel);
	m.has_first_row_id = true;
	m.first_row_id = INT64_MAX - 5;
	sel = &m;
	assert_true(ts_row_id_selection(&ids, &m, &sel, &err));
	assert_null(sel);
	ts_row_ids_free(&ids);
}

static void
test_mapping_random(void **state)
{
	(void) state;
	srand(23);
	for (int round = 0; round < 300; round++)
	{
		ts_row_range r[12];
		int			n = rand() % 12;
		ts_row_ids	ids;
		ts_err		err = {0};

		for (int i = 0; i < n; i++)
		{
			r[i].from = rand() % 600 - 50;
			r[i].to = r[i].from + (rand() % 4 == 0 ? rand() % 200 : rand() % 3) - 1;
		}
		assert_true(ts_row_ids_from_ranges(r, n, &ids, &err));
		check_mapping(&ids, rand() % 500, 1 + rand() % 300);
		ts_row_ids_free(&ids);
	}
}

/* ts_row_ids_clip against the model: s AND bound, id by id */
static void
test_clip_random(void **state)
{
	(void) state;
	srand(4);
	for (int round = 0; round < 300; round++)
	{
		ts_row_range r[10],
					b[6];
		int			n = rand() % 10,
					nb = rand() % 6;
		ts_row_ids	s,
					bound,
					out,
					all;
		ts_err		err = {0};

		for (int i = 0; i < n; i++)
		{
			r[i].from = rand() % 300;
			r[i].to = r[i].from + rand() % 40 - 2;
		}
		for (int i = 0; i < nb; i++)
		{
			b[i].from = rand() % 300;
			b[i].to = b[i].from + rand() % 60;
		}
		assert_true(ts_row_ids_from_ranges(r, n, &s, &err));
		assert_true(ts_row_ids_from_ranges(b, nb, &bound, &err));
		assert_true(ts_row_ids_clip(&s, bound.ranges, bound.n, &out, &err));
		assert_false(out.all);
		for (int i = 0; i < out.n; i++)
		{
			assert_true(out.ranges[i].from <= out.ranges[i].to);
			if (i > 0)
				assert_true(out.ranges[i].from > out.ranges[i - 1].to + 1);
		}
		for (int64_t v = -5; v < 400; v++)
			assert_int_equal(set_has(&out, v), set_has(&s, v) && set_has(&bound, v));
		ts_row_ids_free(&out);
		/* all AND bound = bound */
		ts_row_ids_init_all(&all);
		assert_true(ts_row_ids_clip(&all, bound.ranges, bound.n, &out, &err));
		for (int64_t v = -5; v < 400; v++)
			assert_int_equal(set_has(&out, v), set_has(&bound, v));
		ts_row_ids_free(&out);
		ts_row_ids_free(&s);
		ts_row_ids_free(&bound);
	}
}

/* The split's set: quals AND global index, cut to its files' ranges. */
static void
test_split_row_ids(void **state)
{
	ts_manifest_entry e[3];
	ts_scan_file f[3];
	ts_split	sp;
	ts_plan		plan;
	ts_scan_context ctx;
	ts_row_range want[] = {{5, 5}, {12, 14}, {40, 60}};
	ts_row_ids	ids;
	ts_err		err = {0};

	(void) state;
	memset(e, 0, sizeof(e));
	memset(f, 0, sizeof(f));
	for (int i = 0; i < 3; i++)
	{
		e[i].file.has_first_row_id = true;
		e[i].file.first_row_id = 10 * i;
		e[i].file.row_count = 10;
		f[i].entry = &e[i];
	}
	memset(&sp, 0, sizeof(sp));
	sp.nfiles = 3;
	sp.files = f;
	memset(&plan, 0, sizeof(plan));
	ts_arena_init(&plan.arena, 0);
	plan.kind = TS_TABLE_APPEND;
	plan.core.row_tracking = true;
	plan.nsplits = 1;
	plan.splits = &sp;
	memset(&ctx, 0, sizeof(ctx));
	assert_true(ts_row_ids_from_ranges(want, 3, &ids, &err));
	ctx.row_ids = &ids;
	assert_true(scan_row_ids_prune(&plan, &ctx, NULL, &err));
	assert_int_equal(plan.nsplits, 1);
	assert_int_equal(plan.splits[0].nfiles, 2);	/* [0,9] and [10,19] */
	assert_non_null(plan.splits[0].row_ids);
	assert_false(plan.splits[0].row_ids->all);
	assert_int_equal(plan.splits[0].row_ids->n, 2);
	assert_int_equal(plan.splits[0].row_ids->ranges[0].from, 5);
	assert_int_equal(plan.splits[0].row_ids->ranges[1].from, 12);
	assert_int_equal(plan.splits[0].row_ids->ranges[1].to, 14);
	ts_row_ids_free(&ids);
	/* 15 is between the kept files [0,9] and [20,29], in no file: left out */
	want[0] = (ts_row_range) {5, 5};
	want[1] = (ts_row_range) {15, 15};
	want[2] = (ts_row_range) {25, 25};
	sp.nfiles = 3;
	sp.files = f;
	f[0].entry = &e[0];
	f[1].entry = &e[1];
	f[2].entry = &e[2];
	plan.nsplits = 1;
	plan.splits = &sp;
	e[1].file.first_row_id = 100;	/* [100,109]: pruned */
	assert_true(ts_row_ids_from_ranges(want, 3, &ids, &err));
	ctx.row_ids = &ids;
	assert_true(scan_row_ids_prune(&plan, &ctx, NULL, &err));
	assert_int_equal(plan.splits[0].nfiles, 2);
	assert_int_equal(plan.splits[0].row_ids->n, 2);
	assert_int_equal(plan.splits[0].row_ids->ranges[0].from, 5);
	assert_int_equal(plan.splits[0].row_ids->ranges[1].from, 25);
	ts_row_ids_free(&ids);
	ts_arena_free(&plan.arena);
}

/* ---- reading a generated table ----------------------------------------- */

static const char *groups_table;

/*
 * Read every split of a plan of the generated table with row ids *ids
 * (NULL: none): columns id and _ROW_ID (the row-range reader,
 * data_evolution.c), or id alone (file by file, read.c; as a global
 * index's ids are read); every row must have id = _ROW_ID; marks the
 * ids seen, counts the rows and what the readers skipped.
 */
static int64_t
read_with(const ts_row_ids *ids, bool with_row_id, bool *seen, ts_reader_metrics *acc)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	int			cols[2] = {0, TS_COLUMN_ROW_ID};
	int64_t		rows = 0;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = groups_table;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ctx.no_cache = true;
	ctx.row_ids = ids;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	memset(acc, 0, sizeof(*acc));
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols,
												  with_row_id ? 2 : 1, &err);
		ts_batch	b;
		int			n;

		if (r == NULL)
			fail_msg("open: %s", err.msg);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++)
			{
				int64_t		id = ts_batch_at(&b, i, 0)->v.i;
				int64_t		rid = with_row_id ? ts_batch_at(&b, i, 1)->v.i : id;

				assert_int_equal(id, rid);
				assert_true(rid >= 0 && rid < 2000);
				assert_false(seen[rid]);
				seen[rid] = true;
				rows++;
			}
		if (n < 0)
			fail_msg("read: %s", err.msg);
		{
			const ts_reader_metrics *m = ts_split_reader_metrics(r);

			acc->row_groups_total += m->row_groups_total;
			acc->row_groups_kept += m->row_groups_kept;
			acc->rows_skipped_row_id += m->rows_skipped_row_id;
		}
		ts_split_reader_close(r);
	}
	ts_plan_free(plan);
	return rows;
}

/* Files: [0,333) [333,666) [666,1000) [1000,1333) [1333,1666) [1666,2000). */
static const int64_t file_start[] = {0, 333, 666, 1000, 1333, 1666, 2000};

static void
check_read_as(const ts_row_range *r, int n, int expect_groups_kept, bool with_row_id)
{
	ts_row_ids	ids;
	ts_err		err = {0};
	bool		seen[2000];
	ts_reader_metrics m;
	int64_t		rows,
				want = 0,
				file_rows = 0;

	assert_true(ts_row_ids_from_ranges(r, n, &ids, &err));
	memset(seen, 0, sizeof(seen));
	rows = read_with(&ids, with_row_id, seen, &m);
	for (int id = 0; id < 2000; id++)
	{
		assert_int_equal(seen[id], set_has(&ids, id));
		want += seen[id];
	}
	assert_int_equal(rows, want);
	/* every row of the files read is either returned or skipped by row id */
	for (int f = 0; f < 6; f++)
		if (ts_row_ids_overlaps(&ids, file_start[f], file_start[f + 1] - 1))
			file_rows += file_start[f + 1] - file_start[f];
	assert_int_equal(m.rows_skipped_row_id, file_rows - rows);
	if (expect_groups_kept >= 0)
		assert_int_equal(m.row_groups_kept, expect_groups_kept);
	ts_row_ids_free(&ids);
}

static void
check_read(const ts_row_range *r, int n, int expect_groups_kept)
{
	check_read_as(r, n, expect_groups_kept, true);
	check_read_as(r, n, expect_groups_kept, false);
}

/* Parquet row groups / ORC stripes of 64 rows */
static void
read_groups(const char *format)
{
	bool		seen[2000];
	ts_reader_metrics m;
	char		args[512];

	snprintf(args, sizeof(args),
			 "--column 'id:INT NOT NULL' --column name:STRING --rows 1000 --files 3 "
			 "--snapshots 2 --format %s --row-group-rows 64 "
			 "--option row-tracking.enabled=true", format);
	groups_table = gen_table(format, args);
	/* without ids: all 2000 rows, 6 files x 6 row groups */
	memset(seen, 0, sizeof(seen));
	assert_int_equal(read_with(NULL, true, seen, &m), 2000);
	assert_int_equal(m.row_groups_total, 36);
	assert_int_equal(m.row_groups_kept, 36);
	assert_int_equal(m.rows_skipped_row_id, 0);

	/* one id: one row group of one file */
	check_read((ts_row_range[]) {{700, 700}}, 1, 1);
	/* the first and last row of a file; the last row of a row group and the next one */
	check_read((ts_row_range[]) {{333, 333}, {665, 665}}, 2, 2);
	check_read((ts_row_range[]) {{63, 64}}, 1, 2);
	check_read((ts_row_range[]) {{0, 0}, {1999, 1999}}, 2, 2);
	/* ids beyond any file, and below */
	check_read((ts_row_range[]) {{-5, -1}, {1999, 5000}}, 2, 1);
	/* ranges open at either end */
	check_read((ts_row_range[]) {{INT64_MIN, 70}}, 1, 2);
	check_read((ts_row_range[]) {{1990, INT64_MAX}}, 1, 1);
	/* a range over a whole file and parts of its neighbours */
	check_read((ts_row_range[]) {{300, 700}}, 1, -1);
	/* a thousand scattered ids */
	{
		ts_row_range r[1000];

		for (int i = 0; i < 1000; i++)
			r[i].from = r[i].to = (int64_t) (i * 7919) % 2600;
		check_read(r, 1000, -1);
	}
}

static void
test_read_groups(void **state)
{
	(void) state;
	read_groups("parquet");
	read_groups("orc");
}

/*
 * With a file index's row selection too (a bitmap index of k = id % 128,
 * read file by file as a global index's ids are): only rows both select
 * are read, and every other row of the files read is counted skipped by
 * one of them.
 */
static void
test_read_with_file_index(void **state)
{
	const char *table;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	ts_value	five = {0};
	ts_predicate p = {0};
	ts_row_range want[] = {{0, 700}, {1990, 1999}};
	ts_row_ids	ids;
	int			cols[1] = {0};
	int64_t		rows = 0,
				skipped = 0,
				file_rows = 0;
	int			kept = 0,
				total = 0;
	bool		seen[2000];

	(void) state;
	table = gen_table("indexed",
					  "--column 'id:INT NOT NULL' --column 'k:TINYINT NOT NULL' --rows 1000 --files 3 "
					  "--snapshots 2 --format parquet --row-group-rows 64 "
					  "--option row-tracking.enabled=true --option file-index.bitmap.columns=k");
	five.v.i = 5;
	p.op = TS_PRED_EQ;
	p.field = 1;
	p.nliterals = 1;
	p.literals = &five;
	assert_true(ts_row_ids_from_ranges(want, 2, &ids, &err));
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = table;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ctx.no_cache = true;
	ctx.predicate = &p;
	ctx.row_ids = &ids;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	plan->predicate = &p;
	memset(seen, 0, sizeof(seen));
	for (int s = 0; s < plan->nsplits; s++)
	{
		for (int f = 0; f < plan->splits[s].nfiles; f++)
			file_rows += plan->splits[s].files[f].entry->file.row_count;
		{
			ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 1, &err);
			ts_batch	b;
			int			n;
			const ts_reader_metrics *m;

			if (r == NULL)
				fail_msg("open: %s", err.msg);
			while ((n = ts_split_reader_next(r, &b, &err)) > 0)
				for (int i = 0; i < n; i++)
				{
					int64_t		id = ts_batch_at(&b, i, 0)->v.i;

					assert_true(id >= 0 && id < 2000);
					seen[id] = true;
					rows++;
				}
			if (n < 0)
				fail_msg("read: %s", err.msg);
			m = ts_split_reader_metrics(r);
			skipped += m->rows_skipped_row_id + m->rows_skipped_index;
			kept += m->row_groups_kept;
			total += m->row_groups_total;
			ts_split_reader_close(r);
		}
	}
	/* exactly the ids with id % 128 = 5 in 0..700 and 1990..1999 */
	for (int id = 0; id < 2000; id++)
		assert_int_equal(seen[id], id % 128 == 5 && set_has(&ids, id));
	assert_int_equal(rows, 6);	/* 5 133 261 389 517 645 */
	assert_int_equal(skipped, file_rows - rows);
	/* files [0,333) [333,666) [666,1000) [1666,2000): 6 row groups hold those ids */
	assert_int_equal(total, 24);
	assert_int_equal(kept, 6);
	ts_plan_free(plan);
	ts_row_ids_free(&ids);
}

/* ORC files of one stripe, Avro files: the rows are dropped one by one */
static void
test_read_orc_avro(void **state)
{
	const char *formats[] = {"orc1", "avro"};

	(void) state;
	for (int f = 0; f < 2; f++)
	{
		char		args[512];
		bool		seen[2000];
		ts_reader_metrics m;

		snprintf(args, sizeof(args),
				 "--column 'id:INT NOT NULL' --column name:STRING --rows 1000 --files 3 "
				 "--snapshots 2 --format %s --option row-tracking.enabled=true",
				 f == 0 ? "orc" : formats[f]);
		groups_table = gen_table(formats[f], args);
		memset(seen, 0, sizeof(seen));
		assert_int_equal(read_with(NULL, true, seen, &m), 2000);
		check_read((ts_row_range[]) {{0, 0}, {332, 333}, {1999, 1999}}, 3, -1);
		check_read((ts_row_range[]) {{INT64_MIN, 10}, {990, 1010}}, 2, -1);
		check_read((ts_row_range[]) {{-5, -1}}, 1, -1);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapping_edges),
		cmocka_unit_test(test_mapping_random),
		cmocka_unit_test(test_clip_random),
		cmocka_unit_test(test_split_row_ids),
		cmocka_unit_test(test_read_groups),
		cmocka_unit_test(test_read_with_file_index),
		cmocka_unit_test(test_read_orc_avro),
	};

	(void) argc;
	return gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
}
