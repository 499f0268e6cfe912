/*
 * test_format_table.c - format-table partition discovery, pruning and
 * file listing (src/scan/format_table.c).
 *
 * The test builds partitioned directory trees in a temporary directory
 * (key=value and value-only layouts, default partitions, %XY-escaped
 * values, staging and hidden entries, stray files, wrong keys, values
 * that are not of the key's type) and checks exactly which partitions
 * and files come back, in which order, and how much was listed.
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "scan/format_table.h"

static char root[256];

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
touch(const char *rel)
{
	char		p[2048];
	char		dir[512];
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
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

static const char *
rel(const char *path)
{
	size_t		n = strlen(root);

	return strncmp(path, root, n) == 0 ? path + n + 1 : path;
}

/* "v1|v2" with NULL as "<null>" */
static const char *
pvals(const ts_ft_listing *l, int p)
{
	static char buf[512];

	buf[0] = '\0';
	for (int k = 0; k < l->nkeys; k++)
	{
		const char *v = l->partitions[p].values[k];

		if (k)
			strcat(buf, "|");
		strcat(buf, v ? v : "<null>");
	}
	return buf;
}

static ts_type *int_t,
		   *str_t;
static const char *keys2[] = {"year", "city"};
static const ts_type *types2[2];

static void
build_kv_tree(void)
{
	touch("t1/year=2023/city=Paris/part-0.csv");
	touch("t1/year=2023/city=Paris/part-1.csv");
	touch("t1/year=2023/city=a%2Fb/part-0.csv");
	touch("t1/year=2023/city=x%3Dy/part-0.csv");
	touch("t1/year=2024/city=__DEFAULT_PARTITION__/f.csv");
	touch("t1/year=__DEFAULT_PARTITION__/city=Rome/f.csv");
	touch("t1/year=9/city=Oslo/f.csv");
	touch("t1/year=2024/city=Paris/_SUCCESS");
	touch("t1/year=2024/city=Paris/.part-0.csv.crc");
	touch("t1/year=2024/city=Paris/part-0.csv");
	touch("t1/year=2024/city=Paris/data/part-1.csv");
	touch("t1/year=2024/city=Paris/.hidden/part-x.csv");
	touch("t1/year=2024/city=Paris/_temporary/0/part-y.csv");
	touch("t1/year=2024/_temporary/city=Nope/f.csv");
	touch("t1/.hive-staging_hive_2024/year=2024/city=Nope/f.csv");
	touch("t1/__magic_job-1/year=2024/city=Nope/f.csv");
	touch("t1/year=2024/stray.txt");		/* a file at a partition level */
	touch("t1/year=2024/Paris/f.csv");		/* not key=value: ignored */
	touch("t1/_SUCCESS");
}

static ts_ft_request
kv_request(void)
{
	ts_ft_request r;
	static char path[512];

	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "%s/t1", root);
	r.table_path = path;
	r.fs = ts_fs_local_unconfined();
	r.nkeys = 2;
	r.key_names = keys2;
	r.key_types = types2;
	r.list_files = true;
	return r;
}

static void
test_kv_full_listing(void **state)
{
	ts_ft_request req = kv_request();
	ts_err		err = {0};
	ts_ft_listing *l;

	(void) state;
	l = ts_format_table_list(&req, &err);
	if (l == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(l->npartitions, 7);
	/* sorted by values in key order: NULL first, INT numerically */
	assert_string_equal(pvals(l, 0), "<null>|Rome");
	assert_string_equal(pvals(l, 1), "9|Oslo");
	assert_string_equal(pvals(l, 2), "2023|Paris");
	assert_string_equal(pvals(l, 3), "2023|a/b");
	assert_string_equal(pvals(l, 4), "2023|x=y");
	assert_string_equal(pvals(l, 5), "2024|<null>");
	assert_string_equal(pvals(l, 6), "2024|Paris");
	assert_true(l->partitions[0].typed[0].isnull);
	assert_int_equal(l->partitions[1].typed[0].v.i, 9);
	assert_string_equal(rel(l->partitions[3].path), "t1/year=2023/city=a%2Fb");
	/* files, in partition order then path order */
	assert_int_equal(l->nfiles, 9);
	assert_string_equal(rel(l->files[0].path), "t1/year=__DEFAULT_PARTITION__/city=Rome/f.csv");
	assert_string_equal(rel(l->files[2].path), "t1/year=2023/city=Paris/part-0.csv");
	assert_string_equal(rel(l->files[3].path), "t1/year=2023/city=Paris/part-1.csv");
	assert_int_equal(l->files[3].partition, 2);
	assert_string_equal(rel(l->files[7].path), "t1/year=2024/city=Paris/data/part-1.csv");
	assert_string_equal(rel(l->files[8].path), "t1/year=2024/city=Paris/part-0.csv");
	assert_int_equal(l->files[8].partition, 6);
	assert_int_equal(l->metrics.partitions_listed, 7);
	assert_int_equal(l->metrics.partitions_kept, 7);
	assert_int_equal(l->metrics.files, 9);
	assert_int_equal(l->metrics.start_depth, 0);
	/* ignored: .hive-staging, __magic, _temporary (twice), Paris */
	assert_true(l->metrics.dirs_ignored >= 5);
	ts_ft_listing_free(l);

	/* no file system: refused, naming the directory, nothing listed */
	req.fs = NULL;
	assert_null(ts_format_table_list(&req, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "no file system"));
	assert_non_null(strstr(err.msg, "/t1"));
}

/* partitions a catalog names: typed, filtered, sorted; bad answers are errors */
static void
test_partitions_given(void **state)
{
	ts_ft_request req = kv_request();
	ts_err		err = {0};
	ts_ft_listing *l;
	ts_option	p0[] = {{"year", "2024"}, {"city", "Oslo"}};
	ts_option	p1[] = {{"city", "Paris"}, {"year", "999"}};
	ts_option	p2[] = {{"year", "__DEFAULT_PARTITION__"}, {"city", "a/b"}};
	ts_option	p3[] = {{"year", "2024"}, {"city", "Apia"}};
	ts_option	nokey[] = {{"year", "2024"}};
	ts_option	notint[] = {{"year", "soon"}, {"city", "x"}};
	const ts_option *specs[] = {p0, p1, p2, p3};
	int			n[] = {2, 2, 2, 2};
	ts_option	f2024[] = {{"year", "2024"}, {NULL, NULL}};
	const ts_option *one[1] = {f2024};
	const ts_option *bad[1];
	int			nbad[1] = {1};

	(void) state;
	/* nothing is listed: these need not exist under the table path */
	l = ts_format_table_partitions_given(&req, 4, specs, n, "catalog", &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 4);
	/* NULL first, then year as a number (999 < 2024), then city */
	assert_string_equal(pvals(l, 0), "<null>|a/b");
	assert_string_equal(pvals(l, 1), "999|Paris");
	assert_string_equal(pvals(l, 2), "2024|Apia");
	assert_string_equal(pvals(l, 3), "2024|Oslo");
	assert_non_null(strstr(l->partitions[0].path, "/year=__DEFAULT_PARTITION__/city=a%2Fb"));
	assert_int_equal(l->partitions[1].typed[0].v.i, 999);
	assert_int_equal(l->nfiles, 0);
	ts_ft_listing_free(l);

	/* the request's filter applies */
	req.nfilters = 1;
	req.filters = one;
	l = ts_format_table_partitions_given(&req, 4, specs, n, "catalog", &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 2);
	assert_int_equal(l->metrics.partitions_listed, 4);
	assert_string_equal(pvals(l, 0), "2024|Apia");
	ts_ft_listing_free(l);
	req.nfilters = 0;

	/* a spec without a key, a value not of the key's type: errors naming the source */
	bad[0] = nokey;
	assert_null(ts_format_table_partitions_given(&req, 1, bad, nbad, "GET x/partitions", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "GET x/partitions"));
	assert_non_null(strstr(err.msg, "city"));
	bad[0] = notint;
	nbad[0] = 2;
	assert_null(ts_format_table_partitions_given(&req, 1, bad, nbad, "catalog", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "soon"));
}

static void
test_kv_filters(void **state)
{
	ts_ft_request req = kv_request();
	ts_err		err = {0};
	ts_ft_listing *l;
	ts_option	f2023[] = {{"year", "2023"}, {NULL, NULL}};
	ts_option	fab[] = {{"city", "a/b"}, {"year", "2023"}, {NULL, NULL}};
	ts_option	f2024[] = {{"year", "2024"}, {NULL, NULL}};
	ts_option	fparis[] = {{"city", "Paris"}, {NULL, NULL}};
	ts_option	fnull[] = {{"year", "__DEFAULT_PARTITION__"}, {NULL, NULL}};
	ts_option	fpad[] = {{"year", "02023"}, {"city", "x=y"}, {NULL, NULL}};
	ts_option	fnone[] = {{"year", "1999"}, {NULL, NULL}};
	ts_option	foslo[] = {{"city", "Oslo"}, {NULL, NULL}};
	const ts_option *one[1];
	const ts_option *two[2];
	int64_t		full_listed;

	(void) state;
	/* baseline: directories listed without a filter */
	l = ts_format_table_list_partitions(&req, &err);
	assert_non_null(l);
	full_listed = l->metrics.dirs_listed;
	assert_int_equal(l->nfiles, 0);		/* ListPartitions lists no files */
	assert_int_equal(l->npartitions, 7);
	ts_ft_listing_free(l);

	/* leading equality: start at t1/year=2023, root not listed */
	one[0] = f2023;
	req.nfilters = 1;
	req.filters = one;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 3);
	assert_string_equal(pvals(l, 0), "2023|Paris");
	assert_int_equal(l->metrics.start_depth, 1);
	/* year=2023 itself + the file walk of its 3 partitions */
	assert_int_equal(l->metrics.dirs_listed, 1 + 3);
	assert_true(full_listed > 1);
	assert_int_equal(l->nfiles, 4);
	ts_ft_listing_free(l);

	/* OR of ANDs, both fully/partly fixed: two start prefixes */
	two[0] = fab;
	two[1] = f2024;
	req.nfilters = 2;
	req.filters = two;
	req.list_files = false;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 3);
	assert_string_equal(pvals(l, 0), "2023|a/b");
	assert_string_equal(pvals(l, 1), "2024|<null>");
	assert_string_equal(pvals(l, 2), "2024|Paris");
	assert_int_equal(l->metrics.start_prefixes, 2);
	assert_int_equal(l->metrics.start_depth, 1);
	ts_ft_listing_free(l);

	/* no equality on the first key: list from the root, filter on city */
	one[0] = fparis;
	req.nfilters = 1;
	req.filters = one;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 2);
	assert_string_equal(pvals(l, 0), "2023|Paris");
	assert_string_equal(pvals(l, 1), "2024|Paris");
	assert_int_equal(l->metrics.start_depth, 0);
	ts_ft_listing_free(l);

	/* default partition name selects the NULL partition */
	one[0] = fnull;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 1);
	assert_string_equal(pvals(l, 0), "<null>|Rome");
	ts_ft_listing_free(l);

	/*
	 * year=02023 does not exist on disk: the listing falls back to that
	 * level and compares typed, so "02023" = 2023 as from the root
	 */
	one[0] = fpad;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 1);
	assert_string_equal(pvals(l, 0), "2023|x=y");
	ts_ft_listing_free(l);

	/* ... and while descending from the root values compare typed: "02023" = 2023 */
	two[0] = fpad;
	two[1] = foslo;
	req.nfilters = 2;
	req.filters = two;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 2);
	assert_string_equal(pvals(l, 0), "9|Oslo");
	assert_string_equal(pvals(l, 1), "2023|x=y");
	ts_ft_listing_free(l);
	req.nfilters = 1;
	req.filters = one;

	/* a prefix that does not exist: empty, not an error */
	one[0] = fnone;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 0);
	ts_ft_listing_free(l);
}

/* predicate: year >= 2024 (or NULL), decided at depth 1 */
static int	pred_calls_depth1;

static bool
year_ge_2024(void *arg, int depth, const char *const *values, const ts_value *typed)
{
	(void) arg;
	(void) values;
	if (depth == 1)
		pred_calls_depth1++;
	return typed[0].isnull || typed[0].v.i >= 2024;
}

static void
test_kv_predicate(void **state)
{
	ts_ft_request req = kv_request();
	ts_err		err = {0};
	ts_ft_listing *l;

	(void) state;
	req.pred = year_ge_2024;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 3);
	assert_string_equal(pvals(l, 0), "<null>|Rome");
	assert_string_equal(pvals(l, 1), "2024|<null>");
	assert_string_equal(pvals(l, 2), "2024|Paris");
	/* year=9 and year=2023 were pruned before being listed */
	assert_int_equal(l->metrics.partitions_listed, 3);
	assert_int_equal(pred_calls_depth1, 4);	/* __DEFAULT__, 9, 2023, 2024 */
	ts_ft_listing_free(l);
}

static void
test_value_only_layout(void **state)
{
	ts_ft_request req;
	ts_err		err = {0};
	ts_ft_listing *l;
	char		path[512];
	ts_option	opts[] = {{"format-table.partition-path-only-value", "true"},
	{"partition.default-name", "NULLP"}};
	ts_option	f[] = {{"year", "2023"}, {NULL, NULL}};
	const ts_option *one[] = {f};

	(void) state;
	touch("t2/2023/Paris/a.json");
	touch("t2/2023/a%2Fb/a.json");
	touch("t2/NULLP/Rome/a.json");
	touch("t2/2024/NULLP/a.json");
	touch("t2/_tmp/x/a.json");
	touch("t2/.staging/x/a.json");
	memset(&req, 0, sizeof(req));
	snprintf(path, sizeof(path), "%s/t2", root);
	req.table_path = path;
	req.fs = ts_fs_local_unconfined();
	req.nkeys = 2;
	req.key_names = keys2;
	req.key_types = types2;
	req.list_files = true;
	assert_true(ts_ft_request_set_options(&req, opts, 2, &err));
	assert_true(req.path_only_value);
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 4);
	assert_string_equal(pvals(l, 0), "<null>|Rome");
	assert_string_equal(pvals(l, 1), "2023|Paris");
	assert_string_equal(pvals(l, 2), "2023|a/b");
	assert_string_equal(pvals(l, 3), "2024|<null>");
	assert_int_equal(l->nfiles, 4);
	ts_ft_listing_free(l);

	req.nfilters = 1;
	req.filters = one;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 2);
	assert_int_equal(l->metrics.start_depth, 1);
	ts_ft_listing_free(l);

	/* a value that is not of the key's type is an error naming it */
	touch("t2b/notanint/x/a.json");
	snprintf(path, sizeof(path), "%s/t2b", root);
	req.nfilters = 0;
	req.filters = NULL;
	assert_null(ts_format_table_list(&req, &err));
	assert_non_null(strstr(err.msg, "t2b/notanint\""));

	/* the default name of a value-only layout starting with '_' is kept */
	touch("t3/__DEFAULT_PARTITION__/a.csv");
	touch("t3/_x/a.csv");
	touch("t3/b/a.csv");
	{
		const char *k1[] = {"p"};
		const ts_type *t1[] = {str_t};

		memset(&req, 0, sizeof(req));
		snprintf(path, sizeof(path), "%s/t3", root);
		req.table_path = path;
		req.fs = ts_fs_local_unconfined();
		req.nkeys = 1;
		req.key_names = k1;
		req.key_types = t1;
		req.path_only_value = true;
		l = ts_format_table_list(&req, &err);
		assert_non_null(l);
		assert_int_equal(l->npartitions, 2);
		assert_null(l->partitions[0].values[0]);
		assert_string_equal(l->partitions[1].values[0], "b");
		ts_ft_listing_free(l);
	}
}

static void
test_unpartitioned_and_errors(void **state)
{
	ts_ft_request req;
	ts_err		err = {0};
	ts_ft_listing *l;
	char		path[512];

	(void) state;
	touch("t4/a.csv");
	touch("t4/b.csv.gz");
	touch("t4/sub/c.csv");
	touch("t4/_SUCCESS");
	touch("t4/.a.csv.crc");
	touch("t4/_temporary/0/d.csv");
	memset(&req, 0, sizeof(req));
	snprintf(path, sizeof(path), "%s/t4", root);
	req.table_path = path;
	req.fs = ts_fs_local_unconfined();
	req.list_files = true;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 0);
	assert_int_equal(l->nfiles, 3);
	assert_string_equal(rel(l->files[0].path), "t4/a.csv");
	assert_string_equal(rel(l->files[1].path), "t4/b.csv.gz");
	assert_string_equal(rel(l->files[2].path), "t4/sub/c.csv");
	assert_int_equal(l->files[0].partition, -1);
	ts_ft_listing_free(l);

	/* a missing table directory is an error naming it */
	snprintf(path, sizeof(path), "%s/missing", root);
	req.nkeys = 2;
	req.key_names = keys2;
	l = ts_format_table_list(&req, &err);
	assert_null(l);
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "missing"));

	/* untyped keys: values stay strings, sorted by strcmp */
	snprintf(path, sizeof(path), "%s/t1", root);
	req.key_types = NULL;
	l = ts_format_table_list_partitions(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 7);
	assert_string_equal(pvals(l, 1), "2023|Paris");
	assert_string_equal(pvals(l, 6), "9|Oslo");
	ts_ft_listing_free(l);
}

/*
 * Directories whose rows would otherwise vanish are errors naming them: a
 * value that is not of the key's type, a key other than the level's (the
 * partition keys in another order than the nesting).
 */
static void
test_bad_partition_dirs(void **state)
{
	ts_ft_request req = kv_request();
	ts_err		err = {0};
	ts_ft_listing *l;
	static char path[512];
	ts_option	f2024[] = {{"year", "2024"}, {NULL, NULL}};
	const ts_option *one[1] = {f2024};

	(void) state;
	touch("t5/year=2024/city=Paris/f.csv");
	touch("t5/year=abc/city=Z/f.csv");
	touch("t6/year=2024/city=Paris/f.csv");
	touch("t6/month=1/city=Z/f.csv");
	touch("t7/city=Paris/year=2024/f.csv");
	req.table_path = path;

	snprintf(path, sizeof(path), "%s/t5", root);
	l = ts_format_table_list(&req, &err);
	assert_null(l);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "t5/year=abc\""));
	assert_non_null(strstr(err.msg, "\"year\" is not a INT"));
	/* a filter that starts below the bad directory never sees it */
	req.nfilters = 1;
	req.filters = one;
	l = ts_format_table_list(&req, &err);
	assert_non_null(l);
	assert_int_equal(l->npartitions, 1);
	ts_ft_listing_free(l);
	req.nfilters = 0;
	req.filters = NULL;

	snprintf(path, sizeof(path), "%s/t6", root);
	l = ts_format_table_list(&req, &err);
	assert_null(l);
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "t6/month=1\""));
	assert_non_null(strstr(err.msg, "key \"year\" is expected"));

	snprintf(path, sizeof(path), "%s/t7", root);
	l = ts_format_table_list(&req, &err);
	assert_null(l);
	assert_non_null(strstr(err.msg, "t7/city=Paris\""));
	assert_non_null(strstr(err.msg, "order of the directory nesting"));
}

static void
test_escaping(void **state)
{
	char	   *e,
			   *u;

	(void) state;
	e = ts_ft_escape("a/b:c=d%e f#\x01{}[]^\"'*?\\\xc3\xa9");
	assert_string_equal(e, "a%2Fb%3Ac%3Dd%25e f%23%01%7B%7D%5B%5D%5E%22%27%2A%3F%5C\xc3\xa9");
	u = ts_ft_unescape(e);
	assert_string_equal(u, "a/b:c=d%e f#\x01{}[]^\"'*?\\\xc3\xa9");
	ts_free(e);
	ts_free(u);
	u = ts_ft_unescape("%zz%4%2f%");
	assert_string_equal(u, "%zz%4/%");
	ts_free(u);
}

static int
setup(void **state)
{
	(void) state;
	snprintf(root, sizeof(root), "/tmp/ts_ft_XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	int_t = ts_type_new(TS_INT, true);
	str_t = ts_type_new(TS_VARCHAR, true);
	str_t->length = TS_STRING_LENGTH;
	types2[0] = int_t;
	types2[1] = str_t;
	build_kv_tree();
	return 0;
}

static int
teardown(void **state)
{
	char		cmd[400];

	(void) state;
	ts_type_free(int_t);
	ts_type_free(str_t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_full_listing),
		cmocka_unit_test(test_kv_filters),
		cmocka_unit_test(test_kv_predicate),
		cmocka_unit_test(test_value_only_layout),
		cmocka_unit_test(test_unpartitioned_and_errors),
		cmocka_unit_test(test_bad_partition_dirs),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_partitions_given),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
