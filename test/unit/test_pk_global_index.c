/*
 * test_pk_global_index.c - Paimon 2.0 primary-key global indexes in the
 * scan (src/scan/pk_global_index.c) on a table of our generator with a
 * pk-btree index (ts_gen_pk_gi.h): for every value of the indexed column
 * and for ranges / AND / OR, the files the plan keeps and the row positions
 * it gives each (ts_scan_file.index_rows) are checked against the
 * generator's write stream (<table>.ops.jsonl) alone: a COMPACT file of
 * level > 0 keeps exactly the positions whose row satisfies the predicate
 * (the btree answers =, IN and ranges exactly, deleted rows included), is
 * dropped when there is none, and a file of APPEND source is read whole.
 * Without the definition option, with index use off, or with a definition
 * on another column, nothing changes.  The same on a table whose groups are
 * rotated into several payloads (sorted-index.records-per-range 4): a
 * leaf's ordinals are the union of the payloads'.
 */
#include <cJSON.h>

#include "unit.h"

#include "expr/predicate.h"
#include "scan/row_ids.h"
#include "scan/scan.h"
#include "gen_tables.h"

#define MAXR 4096
#define MAXF 256

typedef struct rec
{
	char		file[128];
	int			pos;
	int64_t		n;
	int32_t		id;
} rec;

typedef struct lfile
{
	char		name[128];
	bool		live;
	int			level;
	bool		compact;		/* first added at level > 0 */
	bool		seen;
} lfile;

static rec	recs[MAXR];
static int	nrecs;
static lfile files[MAXF];
static int	nfiles;
static const char *table;

static ts_type bigint_type = {.kind = TS_BIGINT, .nullable = true};

static lfile *
file_of(const char *name)
{
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].name, name) == 0)
			return &files[i];
	assert_true(nfiles < MAXF);
	snprintf(files[nfiles].name, sizeof(files[nfiles].name), "%s", name);
	return &files[nfiles++];
}

static void
load_ops(const char *path)
{
	char		ops[4200];
	FILE	   *f;
	static char line[1 << 16];

	snprintf(ops, sizeof(ops), "%s.ops.jsonl", path);
	f = fopen(ops, "r");
	assert_non_null(f);
	nrecs = nfiles = 0;
	while (fgets(line, sizeof(line), f))
	{
		cJSON	   *j = cJSON_Parse(line);
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(j, "op"));

		assert_non_null(j);
		if (strcmp(op, "record") == 0)
		{
			rec		   *r = &recs[nrecs++];

			assert_true(nrecs < MAXR);
			snprintf(r->file, sizeof(r->file), "%s",
					 cJSON_GetStringValue(cJSON_GetObjectItem(j, "file")));
			r->pos = (int) cJSON_GetNumberValue(cJSON_GetObjectItem(j, "pos"));
			r->n = (int64_t) cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "values"), "n"));
			r->id = (int32_t) cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "values"), "id"));
		}
		else if (strcmp(op, "file") == 0)
		{
			lfile	   *lf = file_of(cJSON_GetStringValue(cJSON_GetObjectItem(j, "file")));
			int			level = (int) cJSON_GetNumberValue(cJSON_GetObjectItem(j, "level"));

			if (!lf->seen)
				lf->compact = level > 0;
			lf->seen = true;
			lf->live = strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "action")), "ADD") == 0;
			lf->level = level;
		}
		cJSON_Delete(j);
	}
	fclose(f);
}

/* does the row of record r satisfy leaf-or-tree p (fields: 0 id, 1 v, 2 n)? */
static bool
row_matches(const rec *r, const ts_predicate *p)
{
	int64_t		x = p->field == 0 ? r->id : r->n;

	switch (p->op)
	{
		case TS_PRED_AND:
			for (int i = 0; i < p->nchildren; i++)
				if (!row_matches(r, &p->children[i]))
					return false;
			return true;
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (row_matches(r, &p->children[i]))
					return true;
			return false;
		case TS_PRED_EQ:
			return x == p->literals[0].v.i;
		case TS_PRED_LT:
			return x < p->literals[0].v.i;
		case TS_PRED_GE:
			return x >= p->literals[0].v.i;
		case TS_PRED_IN:
			for (int i = 0; i < p->nliterals; i++)
				if (x == p->literals[i].v.i)
					return true;
			return false;
		default:
			fail_msg("operator not modelled");
	}
	return false;
}

static ts_plan *
plan_with(const ts_predicate *p, bool no_index, const char *definition)
{
	ts_scan_context ctx;
	ts_option	o = {"pk-btree.index.columns", definition};
	ts_err		err = {0};
	ts_plan    *plan;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = table;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ctx.no_cache = true;
	ctx.no_file_index = no_index;
	ctx.predicate = p;
	ctx.options = &o;
	ctx.noptions = definition ? 1 : 0;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
		fail_msg("plan: %s", err.msg);
	return plan;
}

static const ts_scan_file *
find_file(const ts_plan *plan, const char *name)
{
	for (int s = 0; s < plan->nsplits; s++)
		for (int i = 0; i < plan->splits[s].nfiles; i++)
			if (strcmp(plan->splits[s].files[i].entry->file.file_name, name) == 0)
				return &plan->splits[s].files[i];
	return NULL;
}

/*
 * The plan's files against the model of predicate p: of the files the plan
 * with index use off keeps (statistics prune too), a COMPACT one keeps
 * exactly the positions matching p and is dropped without any (when the
 * index decides p: index_used), the others are read whole.
 */
static void
check_plan(const ts_predicate *p, bool index_used)
{
	ts_plan    *base = plan_with(p, true, NULL);
	ts_plan    *plan = plan_with(p, false, NULL);
	int			want_kept = 0,
				n = 0;
	bool		want_used = false;

	for (int f = 0; f < nfiles; f++)
	{
		const lfile *lf = &files[f];
		const ts_scan_file *sf = find_file(plan, lf->name);
		int			want = 0;

		if (!lf->live || lf->level == 0 || find_file(base, lf->name) == NULL)
		{
			assert_null(sf);
			continue;
		}
		for (int r = 0; r < nrecs; r++)
			if (strcmp(recs[r].file, lf->name) == 0 && row_matches(&recs[r], p))
				want++;
		if (!index_used || !lf->compact)
		{
			assert_non_null(sf);
			assert_null(sf->index_rows);
			want_kept++;
			continue;
		}
		want_used = true;
		if (want == 0)
		{
			assert_null(sf);	/* no row of it may match: not read */
			continue;
		}
		want_kept++;
		assert_non_null(sf);
		for (int r = 0; r < nrecs; r++)
			if (strcmp(recs[r].file, lf->name) == 0)
			{
				bool		in = sf->index_rows == NULL ||
					ts_row_ids_overlaps(sf->index_rows, recs[r].pos, recs[r].pos);

				if (in != row_matches(&recs[r], p))
					fail_msg("file %s position %d: index says %d, row %s", lf->name, recs[r].pos,
							 in, row_matches(&recs[r], p) ? "matches" : "does not");
			}
	}
	for (int s = 0; s < plan->nsplits; s++)
		n += plan->splits[s].nfiles;
	assert_int_equal(n, want_kept);
	assert_int_equal(plan->metrics.files_kept, n);
	if (want_used)
		assert_string_equal(plan->global_index_used, "btree n");
	else
		assert_null(plan->global_index_used);
	ts_plan_free(plan);
	ts_plan_free(base);
}

static ts_predicate
leaf(ts_predicate_op op, int field, int n, const ts_value *lits)
{
	ts_predicate p = {0};

	p.op = op;
	p.field = field;
	p.literal_type = &bigint_type;
	p.nliterals = n;
	p.literals = lits;
	return p;
}

#define ITEMS_ARGS "--column id:INT --column v:STRING --column n:BIGINT --primary-key id " \
	"--buckets 2 --rows 60 --keys 40 --snapshots 8 --files 2 --compact-every 2 " \
	"--levels 2 --compact-file-rows 5 --delete-every 6 --deletion-vectors " \
	"--option pk-btree.index.columns=n"

/* the table with one payload per group, and one whose groups are rotated into payloads of ~4 */
static const char *tables[2];

static void
use_table(int k)
{
	if (tables[k] == NULL)
		tables[k] = k == 0 ? gen_table("items", ITEMS_ARGS) :
			gen_table("items_rotated", ITEMS_ARGS " --option "
					  "'fields.n.pk-btree.index.options={\"sorted-index.records-per-range\":\"4\"}'");
	table = tables[k];
	load_ops(table);
}

static int
setup(void **state)
{
	use_table(0);
	*state = NULL;
	return 0;
}

static int
setup_rotated(void **state)
{
	use_table(1);
	*state = NULL;
	return 0;
}

static void
test_every_value(void **state)
{
	int			tried = 0,
				deleted_rows = 0;

	(void) state;
	for (int r = 0; r < nrecs; r++)
	{
		const lfile *lf = file_of(recs[r].file);
		ts_value	lit = {0};
		ts_predicate p;

		if (!lf->live || lf->level == 0)
			continue;
		lit.v.i = recs[r].n;
		p = leaf(TS_PRED_EQ, 2, 1, &lit);
		check_plan(&p, true);
		tried++;
	}
	/* a value no row has: every COMPACT file dropped */
	{
		ts_value	lit = {0};
		ts_predicate p;

		lit.v.i = -7;
		p = leaf(TS_PRED_EQ, 2, 1, &lit);
		check_plan(&p, true);
	}
	(void) deleted_rows;
	print_message("%d values tried\n", tried);
	assert_true(tried >= 30);
}

static void
test_ranges_and_or(void **state)
{
	ts_value	lits[3] = {{0}};
	ts_predicate kids[2],
				p;
	int64_t		mid = 0;

	(void) state;
	for (int r = 0; r < nrecs; r++)
		if (r == nrecs / 2)
			mid = recs[r].n;
	lits[0].v.i = mid;
	p = leaf(TS_PRED_LT, 2, 1, lits);
	check_plan(&p, true);
	p = leaf(TS_PRED_GE, 2, 1, lits);
	check_plan(&p, true);
	lits[1].v.i = recs[1].n;
	lits[2].v.i = recs[nrecs - 1].n;
	p = leaf(TS_PRED_IN, 2, 3, lits);
	check_plan(&p, true);
	/* AND of two indexed leaves: the intersection */
	kids[0] = leaf(TS_PRED_GE, 2, 1, &lits[0]);
	kids[1] = leaf(TS_PRED_IN, 2, 3, lits);
	p = (ts_predicate) {.op = TS_PRED_AND, .nchildren = 2, .children = kids};
	check_plan(&p, true);
	/* OR with a leaf on id (not indexed): every row may match, nothing narrowed */
	kids[1] = leaf(TS_PRED_EQ, 0, 1, &lits[0]);
	p = (ts_predicate) {.op = TS_PRED_OR, .nchildren = 2, .children = kids};
	check_plan(&p, false);
}

static void
test_not_used(void **state)
{
	ts_value	lit = {0};
	ts_predicate p;
	const char *defs[] = {"", "v", "id"};
	ts_plan    *base;
	int			nbase = 0;

	(void) state;
	for (int r = 0; r < nrecs; r++)
		if (file_of(recs[r].file)->live && file_of(recs[r].file)->level > 0)
			lit.v.i = recs[r].n;
	p = leaf(TS_PRED_EQ, 2, 1, &lit);
	base = plan_with(&p, true, NULL);
	for (int s = 0; s < base->nsplits; s++)
		nbase += base->splits[s].nfiles;
	assert_true(nbase > 0);
	/* definitions that are not the payloads': the plan of index use off */
	for (int k = 0; k < 3; k++)
	{
		ts_plan    *plan = plan_with(&p, false, defs[k]);
		int			n = 0;

		for (int s = 0; s < plan->nsplits; s++)
			for (int i = 0; i < plan->splits[s].nfiles; i++, n++)
			{
				assert_null(plan->splits[s].files[i].index_rows);
				assert_non_null(find_file(base, plan->splits[s].files[i].entry->file.file_name));
			}
		assert_int_equal(n, nbase);
		assert_null(plan->global_index_used);
		ts_plan_free(plan);
	}
	/* and the table's own definition narrows it */
	{
		ts_plan    *plan = plan_with(&p, false, NULL);

		assert_non_null(plan->global_index_used);
		ts_plan_free(plan);
	}
	ts_plan_free(base);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_every_value, setup),
		cmocka_unit_test_setup(test_ranges_and_or, setup),
		cmocka_unit_test_setup(test_not_used, setup),
		cmocka_unit_test_setup(test_every_value, setup_rotated),
		cmocka_unit_test_setup(test_ranges_and_or, setup_rotated),
	};

	(void) argc;
	return gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
}
