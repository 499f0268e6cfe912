/*
 * test_format_plan.c - format tables end to end below the FDW:
 * ts_scan_plan over a format table (src/scan/format_plan.c), its splits
 * read with ts_split_reader (src/read), ListPartitions, pruning by
 * partition_filter and by predicate (with the listing starting below the
 * leading equality), and the errors.
 *
 * The test writes its own CSV / JSON trees in a temporary directory from
 * a table of rows kept here (the expected values), so every assertion
 * compares with data written independently of the code under test.
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "read/read.h"
#include "scan/format_plan.h"
#include "expr/predicate.h"

static char root[256];

/* ---- the rows of the CSV table ------------------------------------------ */

typedef struct row
{
	int			id;
	const char *dt;				/* partition dir value, NULL = default */
	int			dt_days;		/* days since epoch */
	const char *name;			/* NULL = empty field = NULL */
	const char *region;			/* NULL = default partition */
	const char *region_dir;		/* as written in the path */
	const char *file;
} row;

static const row rows[] = {
	{1, "2024-01-01", 19723, "alice", "eu", "eu", "part-0.csv"},
	{2, "2024-01-01", 19723, "bob", "eu", "eu", "part-0.csv"},
	{3, "2024-01-01", 19723, "carol", "us", "us", "part-0.csv"},
	{4, "2024-01-02", 19724, "dave", "eu", "eu", "part-0.csv"},
	{5, "2024-01-02", 19724, NULL, "eu", "eu", "part-1.csv"},
	{6, "2024-01-02", 19724, "erin", NULL, "__DEFAULT_PARTITION__", "part-0.csv"},
	{7, "2024-01-03", 19725, "frank, jr", "a/b", "a%2Fb", "x.csv"},
};
#define NROWS ((int) (sizeof(rows) / sizeof(rows[0])))

/* fields: id INT, dt DATE (partition), name STRING, region STRING (partition) */
static const char *csv_schema =
"{\"version\":3,\"id\":0,\"fields\":["
"{\"id\":0,\"name\":\"id\",\"type\":\"INT\"},"
"{\"id\":1,\"name\":\"dt\",\"type\":\"DATE\"},"
"{\"id\":2,\"name\":\"name\",\"type\":\"STRING\"},"
"{\"id\":3,\"name\":\"region\",\"type\":\"STRING\"}],"
"\"highestFieldId\":3,\"partitionKeys\":[\"dt\",\"region\"],\"primaryKeys\":[],"
"\"options\":{\"type\":\"format-table\",\"file.format\":\"csv\"}}";

static void
mkpath(const char *rel)
{
	char		p[2048];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/')
		{
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void
append_file(const char *rel, const char *text)
{
	char		p[2048],
				dir[1024];
	char	   *slash;
	FILE	   *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash)
	{
		*slash = '\0';
		mkpath(dir);
	}
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "a");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	char		rel[512],
				line[256];

	(void) state;
	snprintf(root, sizeof(root), "/tmp/test_format_plan.%d", (int) getpid());
	mkdir(root, 0755);
	for (int i = 0; i < NROWS; i++)
	{
		snprintf(rel, sizeof(rel), "csv/dt=%s/region=%s/%s", rows[i].dt, rows[i].region_dir,
				 rows[i].file);
		if (rows[i].name && strchr(rows[i].name, ','))
			snprintf(line, sizeof(line), "%d,\"%s\"\n", rows[i].id, rows[i].name);
		else
			snprintf(line, sizeof(line), "%d,%s\n", rows[i].id, rows[i].name ? rows[i].name : "");
		append_file(rel, line);
	}
	/* not data: staging, hidden, markers */
	append_file("csv/_SUCCESS", "");
	append_file("csv/dt=2024-01-02/_temporary/0/region=eu/p.csv", "99,ghost\n");
	append_file("csv/dt=2024-01-01/region=eu/.part-0.csv.crc", "junk");

	/* (a) a table directory whose schema says format-table: JSON, INT key */
	append_file("jt/schema/schema-0",
				"{\"version\":3,\"id\":0,\"fields\":["
				"{\"id\":0,\"name\":\"k\",\"type\":\"INT\"},"
				"{\"id\":1,\"name\":\"v\",\"type\":\"STRING\"},"
				"{\"id\":2,\"name\":\"n\",\"type\":\"BIGINT\"}],"
				"\"highestFieldId\":2,\"partitionKeys\":[\"k\"],\"primaryKeys\":[],"
				"\"options\":{\"type\":\"format-table\",\"file.format\":\"json\"}}");
	append_file("jt/k=10/a.json", "{\"v\":\"x\",\"n\":9007199254740993}\n{\"n\":2,\"v\":null}\n");
	append_file("jt/k=2/a.json", "{\"v\":\"y\",\"n\":-1}\n");
	/* unpartitioned, files next to the schema directory */
	append_file("ut/schema/schema-0",
				"{\"version\":3,\"id\":0,\"fields\":["
				"{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},"
				"{\"id\":1,\"name\":\"b\",\"type\":\"STRING\"}],"
				"\"highestFieldId\":1,\"partitionKeys\":[],\"primaryKeys\":[],"
				"\"options\":{\"type\":\"format-table\",\"file.format\":\"csv\","
				"\"csv.field-delimiter\":\";\",\"csv.include-header\":\"true\"}}");
	append_file("ut/data.csv", "a;b\n1;one\n2;two\n");
	/* a malformed CSV row */
	append_file("bad/schema/schema-0",
				"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],"
				"\"highestFieldId\":0,\"partitionKeys\":[],\"primaryKeys\":[],"
				"\"options\":{\"type\":\"format-table\",\"file.format\":\"csv\",\"csv.mode\":\"FAILFAST\"}}");
	append_file("bad/d.csv", "1\nxyz\n");
	return 0;
}

static int
teardown(void **state)
{
	char		cmd[512];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}

static void
csv_context(ts_scan_context *ctx, char *path, size_t n)
{
	snprintf(path, n, "%s/csv", root);
	memset(ctx, 0, sizeof(*ctx));
	ctx->table_path = path;
	ctx->table_schema_json = csv_schema;
	ctx->limit = -1;
	ctx->enable_pruning = true;
}

static const row *
row_by_id(int id)
{
	for (int i = 0; i < NROWS; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

static bool
str_eq(const ts_value *v, const char *s)
{
	if (s == NULL)
		return v->isnull;
	return !v->isnull && v->v.s.len == strlen(s) && memcmp(v->v.s.p, s, v->v.s.len) == 0;
}

/* Read every split with all 4 columns; check each row; returns the id set as a bitmask. */
static unsigned
read_all_checked(ts_plan *plan)
{
	const int	cols[] = {0, 1, 2, 3};
	unsigned	seen = 0;
	ts_err		err = {0};

	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 4, &err);
		ts_batch	b;
		int			n;

		assert_non_null(r);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++)
			{
				const ts_value *id = ts_batch_at(&b, i, 0);
				const row  *want;

				assert_false(id->isnull);
				want = row_by_id((int) id->v.i);
				assert_non_null(want);
				assert_false(seen & (1u << want->id));
				seen |= 1u << want->id;
				assert_false(ts_batch_at(&b, i, 1)->isnull);
				assert_int_equal(ts_batch_at(&b, i, 1)->v.i, want->dt_days);
				assert_true(str_eq(ts_batch_at(&b, i, 2), want->name));
				assert_true(str_eq(ts_batch_at(&b, i, 3), want->region));
			}
		assert_int_equal(n, 0);
		ts_split_reader_close(r);
	}
	return seen;
}

static unsigned
ids_mask(bool (*pick) (const row *))
{
	unsigned	m = 0;

	for (int i = 0; i < NROWS; i++)
		if (pick(&rows[i]))
			m |= 1u << rows[i].id;
	return m;
}

static bool
pick_all(const row *r)
{
	(void) r;
	return true;
}

static bool
pick_jan2(const row *r)
{
	return r->dt_days == 19724;
}

static bool
pick_null_region(const row *r)
{
	return r->region == NULL;
}

static void
test_full_scan(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;

	(void) state;
	csv_context(&ctx, path, sizeof(path));
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->kind, TS_TABLE_FORMAT);
	assert_null(plan->snapshot);
	/* 5 partition directories (_temporary ignored), 6 files */
	assert_int_equal(plan->metrics.partitions_total, 5);
	assert_int_equal(plan->metrics.partitions_kept, 5);
	assert_int_equal(plan->nsplits, 6);
	assert_int_equal(plan->metrics.files_total, 6);
	for (int s = 0; s < plan->nsplits; s++)
	{
		assert_int_equal(plan->splits[s].nfiles, 1);
		assert_int_equal(plan->splits[s].files[0].format, TS_FORMAT_CSV);
		assert_non_null(plan->splits[s].files[0].entry);
		assert_true(plan->splits[s].files[0].entry->file.file_size > 0);
		assert_int_equal(plan->splits[s].files[0].entry->file.nwrite_cols, -1);
	}
	/* first split: the NULL-first order puts 2024-01-01/eu first; relative name */
	assert_string_equal(plan->splits[0].files[0].entry->file.file_name,
						"dt=2024-01-01/region=eu/part-0.csv");
	assert_int_equal(read_all_checked(plan), ids_mask(pick_all));
	ts_plan_free(plan);
}

static void
test_projection_by_position(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	const int	cols[] = {2, 3};	/* name, region: name is CSV field 1 */
	int			total = 0;

	(void) state;
	csv_context(&ctx, path, sizeof(path));
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 2, &err);
		ts_batch	b;
		int			n;

		assert_non_null(r);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++)
			{
				bool		found = false;

				/* the (name, region) pair exists in the written rows */
				for (int k = 0; k < NROWS && !found; k++)
					found = str_eq(ts_batch_at(&b, i, 0), rows[k].name) &&
						str_eq(ts_batch_at(&b, i, 1), rows[k].region);
				assert_true(found);
				total++;
			}
		assert_int_equal(n, 0);
		ts_split_reader_close(r);
	}
	assert_int_equal(total, NROWS);
	ts_plan_free(plan);
}

static void
test_predicate_prunes_and_starts_deeper(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	ts_value	lit = {.isnull = false, .v.i = 19724};
	ts_predicate eq = {.op = TS_PRED_EQ, .field = 1, .nliterals = 1, .literals = &lit};
	ts_predicate isnull = {.op = TS_PRED_IS_NULL, .field = 3};

	(void) state;
	csv_context(&ctx, path, sizeof(path));
	ctx.predicate = &eq;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	/* only below dt=2024-01-02 was listed: 2 partitions reached, both kept */
	assert_int_equal(plan->metrics.partitions_total, 2);
	assert_int_equal(plan->metrics.partitions_kept, 2);
	assert_int_equal(plan->nsplits, 3);
	assert_int_equal(read_all_checked(plan), ids_mask(pick_jan2));
	ts_plan_free(plan);

	/* region IS NULL: all 5 listed, the default partition kept */
	ctx.predicate = &isnull;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->metrics.partitions_total, 5);
	assert_int_equal(plan->metrics.partitions_kept, 1);
	assert_int_equal(read_all_checked(plan), ids_mask(pick_null_region));
	ts_plan_free(plan);

	/* pruning off: everything */
	ctx.predicate = &eq;
	ctx.enable_pruning = false;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->metrics.partitions_kept, 5);
	ts_plan_free(plan);
}

static void
test_partition_filter_and_list_partitions(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	ts_ft_listing *l;
	ts_option	f1[] = {{"dt", "2024-01-01"}, {"region", "us"}, {NULL, NULL}};
	ts_option	f2[] = {{"region", NULL}, {NULL, NULL}};
	const ts_option *filters[] = {f1, f2};
	/* expected order: by dt, then region with NULL first */
	static const char *const want[][2] = {
		{"2024-01-01", "eu"}, {"2024-01-01", "us"}, {"2024-01-02", NULL},
		{"2024-01-02", "eu"}, {"2024-01-03", "a/b"}
	};

	(void) state;
	csv_context(&ctx, path, sizeof(path));
	plan = ts_scan_prepare(&ctx, &err);
	assert_non_null(plan);
	l = ts_format_plan_partitions(plan, &ctx, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 5);
	assert_int_equal(l->nkeys, 2);
	assert_string_equal(l->key_names[0], "dt");
	assert_string_equal(l->key_names[1], "region");
	for (int p = 0; p < 5; p++)
	{
		assert_string_equal(l->partitions[p].values[0], want[p][0]);
		if (want[p][1] == NULL)
			assert_null(l->partitions[p].values[1]);
		else
			assert_string_equal(l->partitions[p].values[1], want[p][1]);
	}
	ts_ft_listing_free(l);
	ts_plan_free(plan);

	/* OR of ANDs, the NULL partition by a JSON null */
	ctx.npartition_filters = 2;
	ctx.partition_filters = filters;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->metrics.partitions_kept, 2);
	assert_int_equal(plan->nsplits, 2);
	assert_int_equal(read_all_checked(plan), (1u << 3) | (1u << 6));
	ts_plan_free(plan);

	/* a filter on a column that is not a partition key */
	f2[0].key = "name";
	plan = ts_scan_plan(&ctx, &err);
	assert_null(plan);
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "not a partition key"));
}

static void
test_schema_dir_json_and_unpartitioned(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	const int	cols[] = {0, 1, 2};
	int64_t		sum_k = 0,
				sum_n = 0;
	int			nrows = 0,
				nullv = 0;

	(void) state;
	snprintf(path, sizeof(path), "%s/jt", root);
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->kind, TS_TABLE_FORMAT);
	assert_int_equal(plan->nsplits, 2);
	/* typed order: k=2 before k=10 */
	assert_int_equal(plan->splits[0].partition_values[0].v.i, 2);
	assert_int_equal(plan->splits[1].partition_values[0].v.i, 10);
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 3, &err);
		ts_batch	b;
		int			n;

		assert_non_null(r);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			for (int i = 0; i < n; i++)
			{
				sum_k += ts_batch_at(&b, i, 0)->v.i;
				nullv += ts_batch_at(&b, i, 1)->isnull;
				sum_n += ts_batch_at(&b, i, 2)->v.i;
				nrows++;
			}
		assert_int_equal(n, 0);
		ts_split_reader_close(r);
	}
	assert_int_equal(nrows, 3);
	assert_int_equal(sum_k, 10 + 10 + 2);
	assert_int_equal(nullv, 1);
	assert_true(sum_n == 9007199254740993LL + 2 - 1);	/* exact BIGINT, no double */
	ts_plan_free(plan);

	/* unpartitioned: schema/schema-0 is not data; header and ';' from the schema */
	snprintf(path, sizeof(path), "%s/ut", root);
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->nsplits, 1);
	assert_null(plan->splits[0].partition_values);
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[0], cols, 2, &err);
		ts_batch	b;
		int			n = ts_split_reader_next(r, &b, &err);

		assert_int_equal(n, 2);
		assert_int_equal(ts_batch_at(&b, 0, 0)->v.i, 1);
		assert_true(str_eq(ts_batch_at(&b, 1, 1), "two"));
		ts_split_reader_close(r);
	}
	/* ListPartitions of an unpartitioned format table: none */
	{
		ts_ft_listing *l = ts_format_plan_partitions(plan, &ctx, &err);

		assert_non_null(l);
		assert_int_equal(l->npartitions, 0);
		ts_ft_listing_free(l);
	}
	ts_plan_free(plan);
}

/* value-only layout (v1/v2/), an equality on the first key starts below it */
static void
test_value_only_layout(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	ts_option	opts[] = {{"format-table.partition-path-only-value", "true"}};
	ts_value	lit = {.isnull = false, .v.i = 7};
	ts_predicate eq = {.op = TS_PRED_EQ, .field = 1, .nliterals = 1, .literals = &lit};
	const int	cols[] = {0, 1, 2};
	int			n = 0;
	static const char *schema =
	"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},"
	"{\"id\":1,\"name\":\"p\",\"type\":\"INT\"},{\"id\":2,\"name\":\"q\",\"type\":\"STRING\"}],"
	"\"partitionKeys\":[\"p\",\"q\"],\"primaryKeys\":[],"
	"\"options\":{\"type\":\"format-table\",\"file.format\":\"csv\"}}";

	(void) state;
	/* 20 x 5 partitions, one row each: a = p * 100 + q */
	for (int p = 0; p < 20; p++)
		for (int q = 0; q < 5; q++)
		{
			char		rel[128],
						line[32];

			snprintf(rel, sizeof(rel), "vo/%d/q%d/f.csv", p, q);
			snprintf(line, sizeof(line), "%d\n", p * 100 + q);
			append_file(rel, line);
		}
	snprintf(path, sizeof(path), "%s/vo", root);
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.table_schema_json = schema;
	ctx.noptions = 1;
	ctx.options = opts;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->metrics.partitions_total, 100);
	ts_plan_free(plan);

	ctx.predicate = &eq;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	/* only the subtree 7/ was listed */
	assert_int_equal(plan->metrics.partitions_total, 5);
	assert_int_equal(plan->metrics.partitions_kept, 5);
	assert_int_equal(plan->nsplits, 5);
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, 3, &err);
		ts_batch	b;

		assert_non_null(r);
		assert_int_equal(ts_split_reader_next(r, &b, &err), 1);
		assert_int_equal(ts_batch_at(&b, 0, 1)->v.i, 7);
		/* a (from the file) agrees with p and q (from the path) */
		assert_int_equal(ts_batch_at(&b, 0, 0)->v.i,
						 700 + (ts_batch_at(&b, 0, 2)->v.s.p[1] - '0'));
		n++;
		ts_split_reader_close(r);
	}
	assert_int_equal(n, 5);
	ts_plan_free(plan);
}

static void
test_errors(void **state)
{
	ts_scan_context ctx;
	char		path[512];
	ts_err		err = {0};
	ts_plan    *plan;
	ts_option	tt[] = {{"scan.snapshot-id", "1"}};
	const int	cols[] = {0};

	(void) state;
	/* ListPartitions of a Paimon table: NotImplemented */
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = unit_shared_path("testdata/parquet/append_09.db/append_09");
	ctx.limit = -1;
	plan = ts_scan_prepare(&ctx, &err);
	assert_non_null(plan);
	assert_int_not_equal(plan->kind, TS_TABLE_FORMAT);
	assert_null(ts_format_plan_partitions(plan, &ctx, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	ts_plan_free(plan);

	/* time travel on a format table */
	csv_context(&ctx, path, sizeof(path));
	ctx.noptions = 1;
	ctx.options = tt;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "scan.snapshot-id"));

	/* no file format */
	csv_context(&ctx, path, sizeof(path));
	ctx.table_schema_json =
		"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"}],"
		"\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{\"type\":\"format-table\"}}";
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "file.format"));

	/* missing directory */
	snprintf(path, sizeof(path), "%s/nope", root);
	ctx.table_schema_json = csv_schema;
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);

	/* FAILFAST on a malformed field: an error naming the file */
	snprintf(path, sizeof(path), "%s/bad", root);
	ctx.table_schema_json = NULL;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(plan->nsplits, 1);
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[0], cols, 1, &err);
		ts_batch	b;
		int			n;

		assert_non_null(r);
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
			;
		assert_int_equal(n, -1);
		assert_non_null(strstr(err.msg, "d.csv"));
		ts_split_reader_close(r);
	}
	ts_plan_free(plan);
}

/*
 * A format table's declared type is the type its files are read as: a
 * Java-written Parquet DECIMAL(23, 5) column declared DECIMAL(10, 2) is an
 * error naming the column, never values turned NULL (no Paimon cast).
 */
static int
read_all_rows(ts_plan *plan, const int *cols, int ncols, ts_err *err)
{
	int			total = 0;

	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, ncols, err);
		ts_batch	b;
		int			n;

		if (r == NULL)
			return -1;
		while ((n = ts_split_reader_next(r, &b, err)) > 0)
			total += n;
		ts_split_reader_close(r);
		if (n < 0)
			return -1;
	}
	return total;
}

static void
test_declared_type_too_narrow(void **state)
{
	ts_scan_context ctx;
	char		path[512],
				cmd[2048];
	ts_err		err = {0};
	ts_plan    *plan;
	const int	cols[] = {0, 1};
	const char *wide =
		"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"f2\",\"type\":\"INT\"},"
		"{\"id\":1,\"name\":\"f5\",\"type\":\"DECIMAL(23, 5)\"}],"
		"\"partitionKeys\":[],\"primaryKeys\":[],"
		"\"options\":{\"type\":\"format-table\",\"file.format\":\"parquet\"}}";
	const char *narrow =
		"{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"f2\",\"type\":\"INT\"},"
		"{\"id\":1,\"name\":\"f5\",\"type\":\"DECIMAL(10, 2)\"}],"
		"\"partitionKeys\":[],\"primaryKeys\":[],"
		"\"options\":{\"type\":\"format-table\",\"file.format\":\"parquet\"}}";

	(void) state;
	/* the f1=10 files hold 123456789987654321.45678 */
	snprintf(path, sizeof(path), "%s/pq_narrow", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s'/bucket-*/*.parquet '%s'/", path,
			 unit_shared_path("testdata/parquet/append_complex_data.db/append_complex_data/f1=10"),
			 path);
	assert_int_equal(system(cmd), 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.table_schema_json = wide;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_true(read_all_rows(plan, cols, 2, &err) > 0);
	ts_plan_free(plan);

	ctx.table_schema_json = narrow;
	plan = ts_scan_plan(&ctx, &err);
	assert_non_null(plan);
	assert_int_equal(read_all_rows(plan, cols, 2, &err), -1);
	assert_non_null(strstr(err.msg, "column \"f5\""));
	ts_plan_free(plan);
}

static void
test_schema_json_builder(void **state)
{
	const char *names[] = {"id", "name", "dt"};
	const char *types[] = {"INT", "VARCHAR(20)", "DATE"};
	ts_err		err = {0};
	char	   *json = ts_format_table_schema_json(3, names, types, "dt", "csv", &err);
	ts_schema  *s;

	(void) state;
	assert_non_null(json);
	s = ts_schema_parse(json, strlen(json), "built", &err);
	assert_non_null(s);
	assert_int_equal(s->nfields, 3);
	assert_int_equal(s->npartition_keys, 1);
	assert_string_equal(s->partition_keys[0], "dt");
	assert_int_equal(s->fields[1].type->kind, TS_VARCHAR);
	assert_int_equal(s->fields[2].type->kind, TS_DATE);
	assert_true(ts_format_table_options(
										(ts_option[]) {{"type", "format-table"}}, 1));
	ts_schema_free(s);
	ts_free(json);
	assert_null(ts_format_table_schema_json(3, names, types, "nope", "csv", &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_null(ts_format_table_schema_json(3, names, types, "dt", "xls", &err));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_scan),
		cmocka_unit_test(test_projection_by_position),
		cmocka_unit_test(test_predicate_prunes_and_starts_deeper),
		cmocka_unit_test(test_partition_filter_and_list_partitions),
		cmocka_unit_test(test_schema_dir_json_and_unpartitioned),
		cmocka_unit_test(test_value_only_layout),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_declared_type_too_narrow),
		cmocka_unit_test(test_schema_json_builder),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
