/*
 * test_row_count.c - rows counted from metadata (src/read/row_count.c,
 * src/scan/partition_exact.c) against rows actually read.
 *
 * For every table of the shared corpus that plans and reads at its latest
 * snapshot: if the plan is countable, ts_plan_count_rows must equal the
 * rows the split readers return; with predicates on the first partition
 * key (= / <> / IS NULL / OR of them, literals taken from the partitions
 * present), the count must equal the rows read whose partition column
 * satisfies the same condition.  Tables that are not countable (primary
 * keys, data evolution) must say why and fail to count with
 * TS_ERR_UNSUPPORTED.  Also: which predicates are "exact on partitions".
 */
#include <dirent.h>
#include <sys/stat.h>

#include "unit.h"

#include "read/read.h"
#include "expr/predicate.h"
#include "scan/scan.h"

typedef struct read_result
{
	int64_t		rows;
	int64_t		matching;		/* rows whose column 0 satisfies the test */
} read_result;

typedef enum test_kind
{
	T_ALL, T_EQ, T_NE, T_IS_NULL, T_EQ_OR_NULL
} test_kind;

/* Does a value (rendered) satisfy the test against lit (rendered)? */
static bool
satisfies(test_kind k, const char *v, const char *lit)
{
	switch (k)
	{
		case T_ALL:
			return true;
		case T_EQ:
			return v != NULL && strcmp(v, lit) == 0;
		case T_NE:
			return v != NULL && strcmp(v, lit) != 0;
		case T_IS_NULL:
			return v == NULL;
		case T_EQ_OR_NULL:
			return v == NULL || strcmp(v, lit) == 0;
	}
	return false;
}

/* Read every split (column 'col' or none); count rows and matching rows. */
static bool
read_all(ts_plan *plan, int col, test_kind k, const char *lit, read_result *out, ts_err *err)
{
	out->rows = out->matching = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], &col, col >= 0 ? 1 : 0, err);
		ts_batch	b;
		int			n;

		if (r == NULL)
			return false;
		while ((n = ts_split_reader_next(r, &b, err)) > 0)
		{
			out->rows += b.nrows;
			for (int row = 0; row < b.nrows; row++)
			{
				char	   *v = NULL;
				const ts_value *x;

				if (col < 0)
				{
					out->matching++;
					continue;
				}
				x = ts_batch_at(&b, row, 0);
				if (!x->isnull)
					v = ts_value_to_string(x, plan->schema->fields[col].type);
				out->matching += satisfies(k, v, lit);
				ts_free(v);
			}
		}
		ts_split_reader_close(r);
		if (n < 0)
			return false;
	}
	return true;
}

static ts_plan *
plan_table(const char *path, ts_err *err)
{
	ts_scan_context ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	return ts_scan_plan(&ctx, err);
}

static int	tables_counted,
			tables_refused,
			predicates_checked,
			groups_checked;

/* Count with one predicate on partition key field 'field' and compare. */
static void
check_predicate(ts_plan *plan, const char *path, int field, test_kind k, const ts_value *lit)
{
	ts_predicate leaves[2];
	ts_predicate or;
	ts_predicate *p = &leaves[0];
	char	   *lit_text = lit->isnull ? NULL : ts_value_to_string(lit, plan->schema->fields[field].type);
	read_result rr;
	int64_t		count;
	ts_err		err = {0};

	if (lit->isnull && k != T_IS_NULL)
		return;
	memset(leaves, 0, sizeof(leaves));
	memset(&or, 0, sizeof(or));
	leaves[0].field = leaves[1].field = field;
	leaves[0].nliterals = 1;
	leaves[0].literals = lit;
	switch (k)
	{
		case T_EQ:
			leaves[0].op = TS_PRED_EQ;
			break;
		case T_NE:
			leaves[0].op = TS_PRED_NE;
			break;
		case T_IS_NULL:
			leaves[0].op = TS_PRED_IS_NULL;
			leaves[0].nliterals = 0;
			break;
		case T_EQ_OR_NULL:
			leaves[0].op = TS_PRED_EQ;
			leaves[1].op = TS_PRED_IS_NULL;
			or.op = TS_PRED_OR;
			or.nchildren = 2;
			or.children = leaves;
			p = &or;
			break;
		case T_ALL:
			p = NULL;
			break;
	}
	if (p && !ts_predicate_exact_on_partitions(p, plan->schema))
	{
		ts_free(lit_text);
		return;					/* e.g. a DOUBLE partition key */
	}
	if (!ts_plan_count_rows(plan, p, &count, NULL, &err))
		fail_msg("%s: count with predicate %d: %s", path, (int) k, err.msg);
	if (!read_all(plan, field, k, lit_text, &rr, &err))
		fail_msg("%s: read: %s", path, err.msg);
	if (count != rr.matching)
		fail_msg("%s: predicate %d on %s (literal %s): counted %lld, read %lld", path, (int) k,
				 plan->schema->fields[field].name, lit_text ? lit_text : "NULL",
				 (long long) count, (long long) rr.matching);
	predicates_checked++;
	ts_free(lit_text);
}

static void
check_table(const char *path)
{
	ts_err		err = {0};
	ts_plan    *plan = plan_table(path, &err);
	read_result rr;
	int64_t		count;
	const char *why;
	int			field;

	if (plan == NULL)
		return;					/* tables that need options to plan */
	if (!read_all(plan, -1, T_ALL, NULL, &rr, &err))
	{
		/* needs options to read (external paths) or is refused: nothing to compare */
		ts_plan_free(plan);
		return;
	}
	if (!ts_plan_countable(plan, &why))
	{
		assert_non_null(why);
		assert_false(ts_plan_count_rows(plan, NULL, &count, NULL, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		tables_refused++;
		ts_plan_free(plan);
		return;
	}
	if (!ts_plan_count_rows(plan, NULL, &count, NULL, &err))
		fail_msg("%s: count: %s", path, err.msg);
	if (count != rr.rows)
		fail_msg("%s: counted %lld rows, read %lld", path, (long long) count, (long long) rr.rows);
	tables_counted++;

	/* groups by every partition key, then by the first: they add up to the total, */
	/* and each group's rows are what an equality on its values counts */
	if (plan->schema->npartition_keys > 0)
	{
		int			keys[8];
		int			nkeys = plan->schema->npartition_keys < 8 ? plan->schema->npartition_keys : 8;

		for (int k = 0; k < nkeys; k++)
			keys[k] = ts_schema_field_index(plan->schema, plan->schema->partition_keys[k]);
		for (int pass = 0; pass < 2; pass++)
		{
			int			n = pass == 0 ? nkeys : 1;
			ts_count_group *groups;
			int			ngroups;
			int64_t		sum = 0;

			if (!ts_plan_count_groups(plan, NULL, keys, n, &groups, &ngroups, NULL, &err))
				fail_msg("%s: count groups: %s", path, err.msg);
			for (int g = 0; g < ngroups; g++)
			{
				ts_predicate leaves[8];
				ts_predicate and = {.op = TS_PRED_AND, .nchildren = n, .children = leaves};
				int64_t		c;

				assert_true(groups[g].rows > 0);
				memset(leaves, 0, sizeof(leaves));
				for (int k = 0; k < n; k++)
				{
					leaves[k].field = keys[k];
					leaves[k].op = groups[g].values[k].isnull ? TS_PRED_IS_NULL : TS_PRED_EQ;
					leaves[k].nliterals = groups[g].values[k].isnull ? 0 : 1;
					leaves[k].literals = &groups[g].values[k];
				}
				if (ts_predicate_exact_on_partitions(&and, plan->schema))
				{
					if (!ts_plan_count_rows(plan, &and, &c, NULL, &err))
						fail_msg("%s: count: %s", path, err.msg);
					if (c != groups[g].rows)
						fail_msg("%s: group %d: %lld rows, its equality counts %lld", path, g,
								 (long long) groups[g].rows, (long long) c);
				}
				sum += groups[g].rows;
				groups_checked++;
			}
			if (sum != rr.rows)
				fail_msg("%s: groups add up to %lld rows, read %lld", path, (long long) sum,
						 (long long) rr.rows);
		}
	}

	/* predicates on the first partition key, literals from the partitions present */
	field = plan->schema->npartition_keys > 0 ?
		ts_schema_field_index(plan->schema, plan->schema->partition_keys[0]) : -1;
	if (field >= 0)
		for (int s = 0; s < plan->nsplits && s < 4; s++)
		{
			const ts_value *lit = &plan->splits[s].partition_values[0];

			check_predicate(plan, path, field, T_EQ, lit);
			check_predicate(plan, path, field, T_NE, lit);
			check_predicate(plan, path, field, T_IS_NULL, lit);
			check_predicate(plan, path, field, T_EQ_OR_NULL, lit);
		}
	ts_plan_free(plan);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every <dir>/<db>.db/<table> with a schema directory. */
static void
walk(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
	{
		char		db[4096];
		DIR		   *t;
		struct dirent *te;
		size_t		len = strlen(e->d_name);

		if (len < 4 || strcmp(e->d_name + len - 3, ".db") != 0)
			continue;
		snprintf(db, sizeof(db), "%s/%s", dir, e->d_name);
		if ((t = opendir(db)) == NULL)
			continue;
		while ((te = readdir(t)) != NULL)
		{
			char		table[4096 + 256],
						schema[4096 + 300];

			if (te->d_name[0] == '.')
				continue;
			snprintf(table, sizeof(table), "%s/%s", db, te->d_name);
			snprintf(schema, sizeof(schema), "%s/schema", table);
			if (is_dir(schema))
				check_table(table);
		}
		closedir(t);
	}
	closedir(d);
}

static void
test_corpus_counts(void **state)
{
	(void) state;
	walk(unit_shared_path("testdata"));
	walk(unit_shared_path("testdata/avro"));
	walk(unit_shared_path("testdata/orc"));
	walk(unit_shared_path("testdata/parquet"));
	fprintf(stderr, "counted %d tables (%d predicates, %d groups), %d not countable\n",
			tables_counted, predicates_checked, groups_checked, tables_refused);
	/* the corpus has partitioned append tables and primary-key tables */
	assert_true(tables_counted >= 10);
	assert_true(predicates_checked >= 10);
	assert_true(groups_checked >= 10);
	assert_true(tables_refused >= 5);
}

/* Which predicate shapes are exact on partitions. */
static void
test_exact_shapes(void **state)
{
	static ts_type t_int = {.kind = TS_INT, .nullable = true};
	static ts_type t_double = {.kind = TS_DOUBLE, .nullable = true};
	static ts_type t_bigint = {.kind = TS_BIGINT, .nullable = true};
	ts_field	fields[3] = {
		{0, "p", &t_int, NULL},
		{1, "v", &t_int, NULL},
		{2, "d", &t_double, NULL},
	};
	char	   *pkeys[2] = {"p", "d"};
	ts_schema	schema = {.nfields = 3, .fields = fields, .npartition_keys = 2, .partition_keys = pkeys};
	ts_value	lit = {.v.i = 7};
	ts_predicate p_eq = {.op = TS_PRED_EQ, .field = 0, .nliterals = 1, .literals = &lit};
	ts_predicate v_eq = {.op = TS_PRED_EQ, .field = 1, .nliterals = 1, .literals = &lit};
	ts_predicate d_eq = {.op = TS_PRED_EQ, .field = 2, .nliterals = 1, .literals = &lit};
	ts_predicate p_big = {.op = TS_PRED_EQ, .field = 0, .literal_type = &t_bigint,
	.nliterals = 1, .literals = &lit};
	ts_predicate p_like = {.op = TS_PRED_STARTS_WITH, .field = 0, .nliterals = 1, .literals = &lit};
	ts_predicate two[2];
	ts_predicate and = {.op = TS_PRED_AND, .nchildren = 2, .children = two};
	ts_predicate not = {.op = TS_PRED_NOT, .nchildren = 1, .children = &p_eq};

	(void) state;
	assert_true(ts_predicate_exact_on_partitions(&p_eq, &schema));
	assert_false(ts_predicate_exact_on_partitions(&v_eq, &schema));	/* not a partition key */
	assert_false(ts_predicate_exact_on_partitions(&d_eq, &schema));	/* DOUBLE: NaN */
	assert_false(ts_predicate_exact_on_partitions(&p_big, &schema));	/* literal of another type */
	assert_false(ts_predicate_exact_on_partitions(&p_like, &schema));
	assert_false(ts_predicate_exact_on_partitions(&not, &schema));
	two[0] = p_eq;
	two[1] = p_eq;
	assert_true(ts_predicate_exact_on_partitions(&and, &schema));
	two[1] = v_eq;
	assert_false(ts_predicate_exact_on_partitions(&and, &schema));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_shapes),
		cmocka_unit_test(test_corpus_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
