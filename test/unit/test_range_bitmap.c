/*
 * test_range_bitmap.c - the range-bitmap file index (fi_range_bitmap.c).
 *
 * ../shared holds no table with a range-bitmap index, so this test writes
 * them itself (src/tools/ts_file_index_write.h, shared with ts_gen), following
 * Java's RangeBitmap.Appender, ChunkedDictionary
 * .Appender, Fixed/VariableLengthChunk and BitSliceIndexBitmap.Appender
 * byte for byte (random columns of TINYINT, SMALLINT, INT, BIGINT and
 * STRING with NULLs, chunk sizes from "0b" to "16kb"), wraps each in a
 * file-index container and checks every predicate's row selection against
 * the rows computed by brute force.  Truncated and flipped bytes must give
 * an error or an answer, never a crash.  With TS_RB_SEEDS=dir the indexes
 * are written there too (seeds of the fuzz_file_index corpus).  And end to
 * end: a copy of ../shared's one-row-per-stripe ORC table with its sidecar
 * replaced by range-bitmap indexes of f0 and f1, read through a plan with
 * range predicates (the rows, and the stripes the row selection skips).
 */
#include <roaring/roaring.h>

#include <unistd.h>

#include "unit.h"
#include "format/fileindex/file_index.h"
#include "read/read.h"
#include "scan/scan.h"
#include "tools/ts_file_index_write.h"

typedef fiw_buf wbuf;
#define put fiw_put
#define put_be fiw_put_be
#define put32 fiw_put32

/* ---- the column ---------------------------------------------------------- */

typedef struct col
{
	int			width;			/* 1, 2, 4, 8; -1 strings */
	int			n;
	bool		null[400];
	int64_t		i[400];
	char		s[400][8];
} col;

/* the shared writer (src/tools/ts_file_index_write.h) over a view of c */
static void
write_range_bitmap(wbuf *out, const col *c, int limit)
{
	const char *s[400];
	fiw_col		v = {.width = c->width, .n = c->n, .null = c->null, .i = c->i, .s = s};

	for (int r = 0; r < c->n; r++)
		s[r] = c->s[r];
	fiw_range_bitmap(out, &v, limit);
}

/*
 * The column's name in the index: as fuzz_file_index.c types its columns
 * (f0 STRING, f1 INT, f2 BIGINT), so that the seeds this test writes
 * decode there.
 */
static const char *col_name = "f1";

/* A file-index container with one index "range-bitmap" of column col_name. */
static void
write_container(wbuf *out, const wbuf *body)
{
	fiw_index	ix = {.column = col_name, .kind = "range-bitmap", .body = *body};

	fiw_container(out, &ix, 1);
}

/* ---- evaluation ---------------------------------------------------------- */

static ts_type t_col;

static bool
column_of(void *arg, int field, const char **name, const ts_type **type)
{
	(void) arg;
	if (field != 1)
		return false;
	*name = col_name;
	*type = &t_col;
	return true;
}

static bool
lit_is(const col *c, int row, const ts_value *l)
{
	if (c->width > 0)
		return c->i[row] == l->v.i;
	return strlen(c->s[row]) == l->v.s.len && memcmp(c->s[row], l->v.s.p, l->v.s.len) == 0;
}

static int
lit_cmp(const col *c, int row, const ts_value *l)
{
	if (c->width > 0)
		return c->i[row] < l->v.i ? -1 : c->i[row] > l->v.i;
	{
		size_t		la = strlen(c->s[row]);
		size_t		n = la < l->v.s.len ? la : l->v.s.len;
		int			r = n ? memcmp(c->s[row], l->v.s.p, n) : 0;

		if (r)
			return r < 0 ? -1 : 1;
		return la < l->v.s.len ? -1 : la > l->v.s.len;
	}
}

/* Does row satisfy leaf p (SQL: NULL is not true)? */
static bool
row_matches(const col *c, int row, const ts_predicate *p)
{
	bool		any = false;

	if (p->op == TS_PRED_IS_NULL)
		return c->null[row];
	if (p->op == TS_PRED_IS_NOT_NULL)
		return !c->null[row];
	if (c->null[row])
		return false;
	switch (p->op)
	{
		case TS_PRED_EQ:
			return lit_is(c, row, &p->literals[0]);
		case TS_PRED_NE:
			return !lit_is(c, row, &p->literals[0]);
		case TS_PRED_LT:
			return lit_cmp(c, row, &p->literals[0]) < 0;
		case TS_PRED_LE:
			return lit_cmp(c, row, &p->literals[0]) <= 0;
		case TS_PRED_GT:
			return lit_cmp(c, row, &p->literals[0]) > 0;
		case TS_PRED_GE:
			return lit_cmp(c, row, &p->literals[0]) >= 0;
		case TS_PRED_IN:
		case TS_PRED_NOT_IN:
			for (int i = 0; i < p->nliterals; i++)
				any |= lit_is(c, row, &p->literals[i]);
			return p->op == TS_PRED_IN ? any : !any;
		default:
			return true;
	}
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *words[] = {"", "a", "ab", "abc", "b", "ba", "bob", "c", "lucy", "tony", "z", "zz"};

static void
random_value(col *c, int r, int domain)
{
	if (c->width > 0)
	{
		int64_t		lim = c->width == 8 ? INT64_C(1) << 40 : INT64_C(1) << (c->width * 8 - 1);
		int64_t		v = (int64_t) (next_rand() % (uint64_t) domain) - domain / 2;

		if (next_rand() % 20 == 0)
			v = (int64_t) (next_rand() % (uint64_t) (2 * lim)) - lim;
		c->i[r] = v < -lim ? -lim : v >= lim ? lim - 1 : v;
	}
	else
		snprintf(c->s[r], sizeof(c->s[r]), "%s", words[next_rand() % (sizeof(words) / sizeof(*words))]);
}

static ts_value
random_literal(col *c, int domain)
{
	ts_value	v = {0};

	if (c->width > 0)
	{
		int64_t		lim = c->width == 8 ? INT64_C(1) << 40 : INT64_C(1) << (c->width * 8 - 1);

		v.v.i = (int64_t) (next_rand() % (uint64_t) (domain + 4)) - domain / 2 - 2;
		if (v.v.i < -lim)
			v.v.i = -lim;
		if (v.v.i >= lim)
			v.v.i = lim - 1;
	}
	else
	{
		const char *w = words[next_rand() % (sizeof(words) / sizeof(*words))];

		if (next_rand() % 4 == 0)
			w = next_rand() % 2 ? "aa" : "zzz";	/* between / above stored values */
		v.v.s.p = (const uint8_t *) w;
		v.v.s.len = (uint32_t) strlen(w);
	}
	return v;
}

/*
 * How exact an index kind is: EXACT selects just the matching rows for
 * every operator (range-bitmap, BSI); POINT for =, IN, <>, NOT IN and
 * IS [NOT] NULL only, the others leave rows in (bitmap); SUPERSET never
 * drops a matching row (bloom filter).
 */
typedef enum exactness
{
	EXACT,
	POINT,
	SUPERSET
} exactness;

static void
check_predicates_as(const ts_file_index *fi, col *c, int domain, exactness how_exact)
{
	static const ts_predicate_op ops[] = {TS_PRED_EQ, TS_PRED_NE, TS_PRED_LT, TS_PRED_LE,
		TS_PRED_GT, TS_PRED_GE, TS_PRED_IN, TS_PRED_NOT_IN, TS_PRED_IS_NULL, TS_PRED_IS_NOT_NULL};

	for (int t = 0; t < 60; t++)
	{
		ts_value	lits[3];
		ts_predicate p;
		ts_file_index_eval how = {column_of, NULL, NULL, true};
		ts_file_index_result r;
		ts_err		err = {0};

		memset(&p, 0, sizeof(p));
		p.op = ops[t % 10];
		p.field = 1;
		p.nliterals = p.op == TS_PRED_IN || p.op == TS_PRED_NOT_IN ? 1 + (int) (next_rand() % 3) :
			p.op == TS_PRED_IS_NULL || p.op == TS_PRED_IS_NOT_NULL ? 0 : 1;
		for (int i = 0; i < p.nliterals; i++)
		{
			lits[i] = random_literal(c, domain);
			/* a stored value half the time */
			if (next_rand() % 2 && c->n > 0)
			{
				int			row = (int) (next_rand() % (uint64_t) c->n);

				if (!c->null[row])
				{
					if (c->width > 0)
						lits[i].v.i = c->i[row];
					else
					{
						lits[i].v.s.p = (const uint8_t *) c->s[row];
						lits[i].v.s.len = (uint32_t) strlen(c->s[row]);
					}
				}
			}
		}
		p.literals = lits;
		if (!ts_file_index_evaluate(fi, &p, &how, &r, &err))
			fail_msg("evaluate: %s", err.msg);
		if (how_exact == EXACT)
			assert_true(ts_file_index_result_rows(&r) >= 0 || !r.may_match);
		for (int row = 0; row < c->n; row++)
		{
			bool		want = row_matches(c, row, &p);
			bool		got = r.may_match && ts_file_index_result_has_row(&r, (uint32_t) row);
			bool		exact = how_exact == EXACT ||
				(how_exact == POINT && p.op != TS_PRED_LT && p.op != TS_PRED_LE &&
				 p.op != TS_PRED_GT && p.op != TS_PRED_GE);

			if (want ? !got : got && exact)
				fail_msg("width %d, op %d, row %d: want %d, got %d", c->width, (int) p.op, row,
						 want, got);
		}
		ts_file_index_result_free(&r);
	}
}

static void
check_predicates(const ts_file_index *fi, col *c, int domain)
{
	check_predicates_as(fi, c, domain, EXACT);
}

/*
 * The other kinds the shared writer makes (bitmap v1 and v2, BSI, bloom
 * filter) over the same column, each in a container of its own, read back.
 */
static void
check_other_kinds(col *c, int domain)
{
	/* bitmap v2 twice: Java's 16 KiB index blocks, and blocks of one or two values */
	static const char *kinds[] = {"bitmap", "bsi", "bloom-filter", "bitmap", "bitmap"};
	const char *s[400];
	fiw_col		v = {.width = c->width, .n = c->n, .null = c->null, .i = c->i, .s = s};
	int			small = 0;

	for (int r = 0; r < c->n; r++)
	{
		s[r] = c->s[r];
		if (!c->null[r] && 12 + (int) fiw_key_size(&v, r) > small)
			small = 12 + (int) fiw_key_size(&v, r);
	}
	small += c->n % 16;
	for (int k = 0; k < 5; k++)
	{
		fiw_index	ix = {.column = col_name, .kind = kinds[k]};
		wbuf		file = {0};
		ts_file_index fi;
		ts_err		err = {0};

		if (k == 1 && c->width < 0)
			continue;			/* BSI: integers only */
		if (k == 0)
			fiw_bitmap_v1(&ix.body, &v);
		else if (k == 1)
			fiw_bsi(&ix.body, &v);
		else if (k == 2)
			fiw_bloom(&ix.body, &v, c->n, 0.05);
		else
			fiw_bitmap(&ix.body, &v, 2, k == 3 ? 16384 : small);
		if (k >= 3)
			assert_int_equal(ix.body.p[0], 2);
		fiw_container(&file, &ix, 1);
		if (!ts_file_index_parse(file.p, file.len, &fi, &err))
			fail_msg("parse %s: %s", kinds[k], err.msg);
		check_predicates_as(&fi, c, domain,
							k == 0 || k >= 3 ? POINT : k == 1 ? EXACT : SUPERSET);
		ts_file_index_free(&fi);
		free(ix.body.p);
		free(file.p);
	}
}

static void
type_for(int width)
{
	memset(&t_col, 0, sizeof(t_col));
	t_col.nullable = true;
	t_col.kind = width == 1 ? TS_TINYINT : width == 2 ? TS_SMALLINT : width == 4 ? TS_INT :
		width == 8 ? TS_BIGINT : TS_VARCHAR;
	if (width < 0)
		t_col.length = TS_STRING_LENGTH;
}

static void
test_range_bitmap_random(void **state)
{
	static const int widths[] = {1, 2, 4, 8, -1};
	static const int limits[] = {0, 8, 16, 16384};
	const char *seeds = getenv("TS_RB_SEEDS");
	int			nseeds = 0;

	(void) state;
	for (int round = 0; round < 200; round++)
	{
		col		   *c = calloc(1, sizeof(col));
		wbuf		body = {0},
					file = {0};
		ts_file_index fi;
		ts_err		err = {0};
		int			domain = 1 + (int) (next_rand() % 60);
		int			nulls = (int) (next_rand() % 4);	/* 0: none, 3: about half */

		c->width = widths[round % 5];
		c->n = (int) (next_rand() % 300);
		if (round % 37 == 0)
			nulls = 4;			/* every row NULL */
		for (int r = 0; r < c->n; r++)
		{
			c->null[r] = nulls == 4 || (nulls > 0 && next_rand() % 6 < (uint64_t) nulls);
			if (!c->null[r])
				random_value(c, r, domain);
		}
		type_for(c->width);
		col_name = c->width < 0 ? "f0" : c->width == 8 ? "f2" : "f1";
		write_range_bitmap(&body, c, limits[(round / 5) % 4]);
		write_container(&file, &body);
		if (seeds && nseeds < 9 && round % 5 >= 2 && c->n > 0)
		{
			char		path[4096];
			FILE	   *f;

			snprintf(path, sizeof(path), "%s/range_bitmap_%d", seeds, nseeds++);
			f = fopen(path, "wb");
			assert_non_null(f);
			assert_int_equal(fwrite(file.p, 1, file.len, f), file.len);
			fclose(f);
		}
		if (!ts_file_index_parse(file.p, file.len, &fi, &err))
			fail_msg("parse: %s", err.msg);
		check_predicates(&fi, c, domain);
		ts_file_index_free(&fi);
		check_other_kinds(c, domain);

		/* truncated and flipped bodies: an error or an answer, never a crash */
		for (size_t cut = 16; cut < file.len && round % 10 == 0; cut += 1 + cut / 8)
		{
			ts_file_index f2;

			if (ts_file_index_parse(file.p, cut, &f2, &err))
			{
				ts_value	l = random_literal(c, domain);
				ts_predicate p = {.op = TS_PRED_GE, .field = 1, .nliterals = 1, .literals = &l};
				ts_file_index_eval how = {column_of, NULL, NULL, true};
				ts_file_index_result r;

				if (ts_file_index_evaluate(&f2, &p, &how, &r, &err))
					ts_file_index_result_free(&r);
				ts_file_index_free(&f2);
			}
		}
		for (size_t i = 40; i < file.len && round % 10 == 5; i++)
		{
			ts_file_index f2;

			file.p[i] ^= 0x5a;
			if (ts_file_index_parse(file.p, file.len, &f2, &err))
			{
				for (int op = TS_PRED_EQ; op <= TS_PRED_GE; op++)
				{
					ts_value	l = random_literal(c, domain);
					ts_predicate p = {.op = (ts_predicate_op) op, .field = 1, .nliterals = 1, .literals = &l};
					ts_file_index_eval how = {column_of, NULL, NULL, true};
					ts_file_index_result r;

					if (ts_file_index_evaluate(&f2, &p, &how, &r, &err))
						ts_file_index_result_free(&r);
				}
				ts_file_index_free(&f2);
			}
			file.p[i] ^= 0x5a;
		}
		free(body.p);
		free(file.p);
		free(c);
	}
}

/* Types the index does not read decide nothing (every row may match). */
static void
test_range_bitmap_other_types(void **state)
{
	col		   *c = calloc(1, sizeof(col));
	wbuf		body = {0},
				file = {0};
	ts_file_index fi;
	ts_err		err = {0};
	ts_value	l = {0};
	ts_predicate p = {.op = TS_PRED_EQ, .field = 1, .nliterals = 1, .literals = &l};
	ts_file_index_eval how = {column_of, NULL, NULL, true};
	ts_file_index_result r;

	(void) state;
	c->width = 8;
	c->n = 3;
	c->i[0] = 1;
	c->i[1] = 2;
	c->i[2] = 3;
	col_name = "f1";
	write_range_bitmap(&body, c, 16);
	write_container(&file, &body);
	assert_true(ts_file_index_parse(file.p, file.len, &fi, &err));
	memset(&t_col, 0, sizeof(t_col));
	t_col.kind = TS_DOUBLE;
	l.v.d = 7.0;
	assert_true(ts_file_index_evaluate(&fi, &p, &how, &r, &err));
	assert_true(r.may_match);
	assert_int_equal(ts_file_index_result_rows(&r), -1);
	/* BIGINT 7: in no row, the file is skipped */
	type_for(8);
	l.v.i = 7;
	assert_true(ts_file_index_evaluate(&fi, &p, &how, &r, &err));
	assert_false(r.may_match);
	l.v.i = 2;
	assert_true(ts_file_index_evaluate(&fi, &p, &how, &r, &err));
	assert_true(r.may_match);
	assert_int_equal(ts_file_index_result_rows(&r), 1);
	assert_true(ts_file_index_result_has_row(&r, 1));
	ts_file_index_result_free(&r);
	ts_file_index_free(&fi);
	free(body.p);
	free(file.p);
	free(c);
}

/* ---- end to end: a table whose sidecar holds range-bitmap indexes -------------- */

#define MULTI_STRIPES "testdata/append_with_bitmap_multi_stripes.db/append_with_bitmap_multi_stripes"

/* Plan the table at dir with pred and read columns f0, f3: rows, rows skipped by the index. */
static void
read_table(const char *dir, const ts_predicate *pred, int64_t *rows, int64_t *skipped)
{
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	int			cols[2] = {0, 3};

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = dir;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ctx.no_cache = true;
	ctx.predicate = pred;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	plan->predicate = pred;
	*rows = *skipped = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 2, &err);
		ts_batch	b;
		int			n;

		if (r == NULL)
			fail_msg("open: %s", err.msg);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			*rows += n;
		if (n < 0)
			fail_msg("read: %s", err.msg);
		*skipped += ts_split_reader_metrics(r)->rows_skipped_index;
		ts_split_reader_close(r);
	}
	ts_plan_free(plan);
}

/*
 * BitmapFileIndexMetaV2 byte by byte: INT rows 5, 7, 5, NULL, 9 with index
 * blocks of at most 24 bytes (4 + one entry of 8 + 4 bytes each): one NULL
 * row (offset -1 - 3, length 18: its bitmap's size, though not stored), 5
 * -> {0, 2} at body offset 0 (20 bytes), 7 and 9 one row each (-1 - row,
 * length -1); three blocks at 0, 16, 32, 48 bytes in all.
 */
static void
test_bitmap_v2_bytes(void **state)
{
	static const bool nulls[5] = {false, false, false, true, false};
	static const int64_t ints[5] = {5, 7, 5, 0, 9};
	static const uint8_t want[] = {
		2, 0, 0, 0, 5, 0, 0, 0, 3, 1, 0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 18,
		0, 0, 0, 3,				/* blocks */
		0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 16, 0, 0, 0, 9, 0, 0, 0, 32,
		0, 0, 0, 48,			/* their bytes */
		0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 20,
		0, 0, 0, 1, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 1, 0, 0, 0, 9, 0xff, 0xff, 0xff, 0xfb, 0xff, 0xff, 0xff, 0xff
	};
	fiw_col		v = {.width = 4, .n = 5, .null = nulls, .i = ints};
	fiw_index	ix = {.column = "f1", .kind = "bitmap"};

	(void) state;
	fiw_bitmap(&ix.body, &v, 2, 24);
	assert_int_equal(ix.body.len, sizeof(want) + 20);
	for (size_t i = 0; i < sizeof(want); i++)
		if (ix.body.p[i] != want[i])
			fail_msg("byte %zu: %02x, want %02x", i, ix.body.p[i], want[i]);
	/* the body: the portable bitmap {0, 2} */
	{
		roaring_bitmap_t *b = roaring_bitmap_portable_deserialize_safe((const char *) ix.body.p + sizeof(want), 20);

		assert_non_null(b);
		assert_int_equal(roaring_bitmap_get_cardinality(b), 2);
		assert_true(roaring_bitmap_contains(b, 0) && roaring_bitmap_contains(b, 2));
		roaring_bitmap_free(b);
	}
	free(ix.body.p);
}

static void
test_range_bitmap_table(void **state)
{
	/* the table's rows (its README): f0, f1 */
	static const char *f0[] = {"Alice", "Bob", "Emily", "Tony", "Lucy", "Bob", "Tony", "Alice"};
	static const int f1[] = {10, 10, 10, 10, 20, 10, 20, 20};
	col		   *c0 = calloc(1, sizeof(col)),
			   *c1 = calloc(1, sizeof(col));
	wbuf		b0 = {0},
				b1 = {0},
				file = {0};
	char		dir[] = "/tmp/ts_unit_rb_XXXXXX";
	char		table[64],
				cmd[8400],
				index[4200];
	ts_value	i10 = {0},
				i20 = {0},
				lucy = {0},
				bob = {0},
				tony = {0};
	ts_predicate p,
				kids[2];
	int64_t		rows,
				skipped;

	(void) state;
	c0->width = -1;
	c1->width = 4;
	c0->n = c1->n = 8;
	for (int r = 0; r < 8; r++)
	{
		snprintf(c0->s[r], sizeof(c0->s[r]), "%s", f0[r]);
		c1->i[r] = f1[r];
	}
	write_range_bitmap(&b0, c0, 8);
	write_range_bitmap(&b1, c1, 16384);
	/* the container: f0 and f1, one range-bitmap each */
	{
		fiw_index	ix[2] = {{"f0", "range-bitmap", b0}, {"f1", "range-bitmap", b1}};

		fiw_container(&file, ix, 2);
	}

	/* a copy of the table with this sidecar */
	assert_non_null(mkdtemp(dir));
	snprintf(table, sizeof(table), "%s/t", dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && chmod -R u+w '%s'",
			 unit_shared_path(MULTI_STRIPES), table, table);
	assert_int_equal(system(cmd), 0);
	snprintf(index, sizeof(index),
			 "%s/bucket-0/data-55e21ed3-d118-4d75-a0fd-cd52039cb634-0.orc.index", table);
	{
		FILE	   *f = fopen(index, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(file.p, 1, file.len, f), file.len);
		fclose(f);
	}
	i10.v.i = 10;
	i20.v.i = 20;
	lucy.v.s.p = (const uint8_t *) "Lucy";
	lucy.v.s.len = 4;
	bob.v.s.p = (const uint8_t *) "Bob";
	bob.v.s.len = 3;
	tony.v.s.p = (const uint8_t *) "Tony";
	tony.v.s.len = 4;

	/* f1 > 10: rows 4, 6, 7 */
	p = (ts_predicate) {.op = TS_PRED_GT, .field = 1, .nliterals = 1, .literals = &i10};
	read_table(table, &p, &rows, &skipped);
	assert_int_equal(rows, 3);
	assert_int_equal(skipped, 5);
	/* f0 >= 'Lucy': rows 3, 4, 6 */
	p = (ts_predicate) {.op = TS_PRED_GE, .field = 0, .nliterals = 1, .literals = &lucy};
	read_table(table, &p, &rows, &skipped);
	assert_int_equal(rows, 3);
	assert_int_equal(skipped, 5);
	/* f0 < 'Bob': rows 0, 7 */
	p = (ts_predicate) {.op = TS_PRED_LT, .field = 0, .nliterals = 1, .literals = &bob};
	read_table(table, &p, &rows, &skipped);
	assert_int_equal(rows, 2);
	assert_int_equal(skipped, 6);
	/* f1 IN (20) AND f0 <> 'Tony': rows 4, 7 */
	kids[0] = (ts_predicate) {.op = TS_PRED_IN, .field = 1, .nliterals = 1, .literals = &i20};
	kids[1] = (ts_predicate) {.op = TS_PRED_NE, .field = 0, .nliterals = 1, .literals = &tony};
	p = (ts_predicate) {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	read_table(table, &p, &rows, &skipped);
	assert_int_equal(rows, 2);
	assert_int_equal(skipped, 6);
	/* f1 <= 20: every row, nothing skipped */
	p = (ts_predicate) {.op = TS_PRED_LE, .field = 1, .nliterals = 1, .literals = &i20};
	read_table(table, &p, &rows, &skipped);
	assert_int_equal(rows, 8);
	assert_int_equal(skipped, 0);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(b0.p);
	free(b1.p);
	free(file.p);
	free(c0);
	free(c1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_bitmap_random),
		cmocka_unit_test(test_range_bitmap_other_types),
		cmocka_unit_test(test_range_bitmap_table),
		cmocka_unit_test(test_bitmap_v2_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
