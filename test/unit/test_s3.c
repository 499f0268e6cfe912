/*
 * test_s3.c - the pure parts of the object store layer (src/base/s3_uri.c,
 * s3_list.c) and the scope of object URIs: URI parsing and refusals,
 * request URLs in both addressings, ListObjectsV2 pages (entries, common
 * prefixes, pagination, keys outside the prefix), error codes, the check
 * of a ranged answer's length, and the lexical confinement of s3 paths;
 * path-style addressing of IP and localhost endpoints, the cap of a whole
 * GET by kind of object, the pagination guard (repeated tokens, pages,
 * keys) and the refusal of control characters in settings (s3_limits.c).
 * No server: requests are tested by the regress suite s3 against s3rver.
 */
#include "unit.h"

#include "base/ts_fs.h"
#include "base/ts_s3.h"

static void
test_uri_schemes(void **state)
{
	ts_err		err = {0};

	(void) state;
	assert_true(ts_uri_is_object("s3://b/k"));
	assert_true(ts_uri_is_object("S3A://b/k"));
	assert_true(ts_uri_is_object("oss://b"));
	assert_false(ts_uri_is_object("/tmp/x"));
	assert_false(ts_uri_is_object("file:/tmp/x"));
	assert_false(ts_uri_is_object("s3:/b/k"));
	assert_true(ts_uri_check_scheme("/tmp/x", &err));
	assert_true(ts_uri_check_scheme("file:///tmp/x", &err));
	assert_true(ts_uri_check_scheme("s3://b/x", &err));
	assert_false(ts_uri_check_scheme("hdfs://nn:8020/wh", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"hdfs\""));
	assert_false(ts_uri_check_scheme("gs://b/wh", &err));
	assert_non_null(strstr(err.msg, "\"gs\""));
	/* Azure's schemes are read by their own store (fs_azure.c) */
	assert_true(ts_uri_check_scheme("abfs://c@acct.dfs.core.windows.net/wh", &err));
	assert_false(ts_uri_check_scheme("adl://acct.azuredatalakestore.net/wh", &err));
	assert_non_null(strstr(err.msg, "\"adl\""));
}

static void
test_parse_uri(void **state)
{
	ts_err		err = {0};
	char	   *bucket,
			   *key;

	(void) state;
	assert_true(ts_s3_parse_uri("s3://lake/wh/sales.db/orders", &bucket, &key, &err));
	assert_string_equal(bucket, "lake");
	assert_string_equal(key, "wh/sales.db/orders");
	ts_free(bucket);
	ts_free(key);
	assert_true(ts_s3_parse_uri("s3a://lake", &bucket, &key, &err));
	assert_string_equal(bucket, "lake");
	assert_string_equal(key, "");
	ts_free(bucket);
	ts_free(key);
	assert_false(ts_s3_parse_uri("s3:///key", &bucket, &key, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_false(ts_s3_parse_uri("s3://lake/wh/../other", &bucket, &key, &err));
	assert_non_null(strstr(err.msg, ".."));
	assert_false(ts_s3_parse_uri("s3://lake/wh/./x", &bucket, &key, &err));
	assert_false(ts_s3_parse_uri("s3://la:ke/x", &bucket, &key, &err));
	assert_false(ts_s3_parse_uri("s3://lake/a\nb", &bucket, &key, &err));
	assert_false(ts_s3_parse_uri("/tmp/x", &bucket, &key, &err));
	/* ".." inside a name is a name */
	assert_true(ts_s3_parse_uri("s3://lake/a..b/c", &bucket, &key, &err));
	assert_string_equal(key, "a..b/c");
	ts_free(bucket);
	ts_free(key);
}

static void
test_canonical(void **state)
{
	char	   *c;

	(void) state;
	c = ts_s3_canonical_uri("S3A://lake/wh/");
	assert_string_equal(c, "s3://lake/wh");
	ts_free(c);
	c = ts_s3_canonical_uri("oss://lake");
	assert_string_equal(c, "oss://lake");
	ts_free(c);
	assert_null(ts_s3_canonical_uri("s3://lake/x/../y"));
}

/* The request URL of bucket / key under cfg is expected. */
static void
assert_url(const ts_s3_config *cfg, const char *bucket, const char *key, const char *expected)
{
	char	   *u = ts_s3_object_url(cfg, bucket, key);

	assert_string_equal(u, expected);
	ts_free(u);
}

static void
test_urls(void **state)
{
	ts_s3_config cfg = {0};

	(void) state;
	cfg.endpoint = "http://127.0.0.1:9000/";
	cfg.path_style = true;
	assert_url(&cfg, "lake", "wh/dt=2024-01-01/a b+c.parquet", "http://127.0.0.1:9000/lake/wh/dt%3D2024-01-01/a%20b%2Bc.parquet");
	assert_url(&cfg, "lake", NULL, "http://127.0.0.1:9000/lake/");
	cfg.path_style = false;
	cfg.endpoint = "https://s3.eu-west-1.amazonaws.com";
	assert_url(&cfg, "lake", "wh/x", "https://lake.s3.eu-west-1.amazonaws.com/wh/x");
	cfg.endpoint = NULL;
	cfg.region = "ap-south-1";
	assert_url(&cfg, "lake", "k", "https://lake.s3.ap-south-1.amazonaws.com/k");
	cfg.endpoint = "minio.local:9000";
	cfg.path_style = true;
	assert_url(&cfg, "lake", "k", "https://minio.local:9000/lake/k");
}

/* IP and localhost endpoints are path-style unless the user chose the addressing */
static void
test_ip_endpoints(void **state)
{
	ts_s3_config cfg = {0};

	(void) state;
	assert_true(ts_s3_endpoint_is_ip_or_localhost("http://127.0.0.1:9000"));
	assert_true(ts_s3_endpoint_is_ip_or_localhost("10.1.2.3"));
	assert_true(ts_s3_endpoint_is_ip_or_localhost("https://[::1]:9000/"));
	assert_true(ts_s3_endpoint_is_ip_or_localhost("http://LOCALHOST:9000"));
	assert_false(ts_s3_endpoint_is_ip_or_localhost("http://localhost.example.com"));
	assert_false(ts_s3_endpoint_is_ip_or_localhost("https://s3.eu-west-1.amazonaws.com"));
	assert_false(ts_s3_endpoint_is_ip_or_localhost("http://1.2.3.4.nip.io"));
	assert_false(ts_s3_endpoint_is_ip_or_localhost(NULL));

	cfg.endpoint = "http://127.0.0.1:9000";
	assert_url(&cfg, "lake", "k", "http://127.0.0.1:9000/lake/k");
	cfg.endpoint = "http://localhost:9000";
	assert_url(&cfg, "lake", "k", "http://localhost:9000/lake/k");
	/* chosen: virtual-hosted stays */
	cfg.path_style_set = true;
	assert_url(&cfg, "lake", "k", "http://lake.localhost:9000/k");
	/* a host name is virtual-hosted by default */
	cfg.path_style_set = false;
	cfg.endpoint = "http://minio.local:9000";
	assert_url(&cfg, "lake", "k", "http://lake.minio.local:9000/k");
}

/* the cap of a whole GET by the kind of object its key names */
static void
test_whole_caps(void **state)
{
	const char *kind;
	ts_s3_limits l = {(int64_t) 5 << 20, 0, 0};
	ts_s3_limits back = *ts_s3_get_limits();

	(void) state;
	ts_s3_set_limits(&l);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/snapshot/LATEST", 0, &kind), TS_S3_SMALL_OBJECT_MAX);
	assert_non_null(strstr(kind, "snapshot"));
	assert_int_equal(ts_s3_whole_cap("s3://b/t/snapshot/snapshot-7", 0, &kind), TS_S3_SMALL_OBJECT_MAX);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/schema/schema-0", 0, &kind), TS_S3_SMALL_OBJECT_MAX);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/tag/tag-v1", 0, &kind), TS_S3_SMALL_OBJECT_MAX);
	assert_int_equal(ts_s3_whole_cap("s3://b/x.json", 123, &kind), TS_S3_SMALL_OBJECT_MAX);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/manifest/manifest-list-a-0", 0, &kind), 5 << 20);
	assert_non_null(strstr(kind, "tablescan.max_metadata_object_size"));
	assert_int_equal(ts_s3_whole_cap("s3://b/t/index/index-a-0", 0, &kind), 5 << 20);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/bucket-0/data-a-0.parquet.index", 0, &kind), 5 << 20);
	/* a data file read whole: the size the metadata gives, else the metadata cap */
	assert_int_equal(ts_s3_whole_cap("s3://b/t/bucket-0/data-a-0.parquet", 4000, &kind), 4000);
	assert_int_equal(ts_s3_whole_cap("s3://b/t/bucket-0/data-a-0.parquet", 0, &kind), 5 << 20);
	ts_s3_set_limits(&back);
}

/* pagination: a repeated or missing token stops at once; pages and keys bounded */
static void
test_pager(void **state)
{
	ts_s3_pager p = {0};
	ts_s3_listing l = {0};
	ts_err		err = {0};
	ts_s3_limits small = {0, 3, 4};
	ts_s3_limits back = *ts_s3_get_limits();
	char		tok[16];

	(void) state;
	l.truncated = true;
	l.next_token = "A";
	assert_true(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	l.next_token = "B";
	assert_true(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	l.next_token = "A";			/* a cycle A, B, A */
	assert_false(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "page 3 repeats a continuation token"));
	assert_non_null(strstr(err.msg, "s3://b/t"));
	ts_s3_pager_free(&p);
	l.next_token = "";
	assert_false(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	assert_non_null(strstr(err.msg, "no continuation token"));
	ts_s3_pager_free(&p);

	/* many distinct tokens: no false repeat (the set grows) */
	for (int i = 0; i < 5000; i++)
	{
		snprintf(tok, sizeof(tok), "t%d", i);
		l.next_token = tok;
		assert_true(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	}
	ts_s3_pager_free(&p);

	ts_s3_set_limits(&small);
	for (int i = 0; i < 3; i++)
	{
		snprintf(tok, sizeof(tok), "t%d", i);
		l.next_token = tok;
		assert_true(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	}
	l.next_token = "t3";
	assert_false(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "more than 4 pages"));
	assert_non_null(strstr(err.hint, "tablescan.max_list_pages"));
	ts_s3_pager_free(&p);
	l.truncated = false;
	l.count = 4;
	assert_false(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	assert_int_equal(err.code, TS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "more than 3 keys"));
	l.count = 3;
	assert_true(ts_s3_pager_next(&p, &l, "s3://b/t", &err));
	ts_s3_pager_free(&p);
	ts_s3_set_limits(&back);
}

/* a control character in a setting is refused by the setting's name, never its value */
static void
test_config_control_chars(void **state)
{
	ts_s3_config cfg = {0};
	ts_err		err = {0};

	(void) state;
	cfg.endpoint = "http://127.0.0.1:9000";
	cfg.access_key = "AKID";
	cfg.secret_key = "s3cr3t";
	cfg.session_token = "tok";
	assert_true(ts_s3_check_config(&cfg, &err));
	cfg.session_token = "tok\r\nX-Injected: yes";
	assert_false(ts_s3_check_config(&cfg, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "\"s3.session-token\""));
	assert_null(strstr(err.msg, "Injected"));
	cfg.session_token = NULL;
	cfg.secret_key = "sec\nQWZ";
	assert_false(ts_s3_check_config(&cfg, &err));
	assert_non_null(strstr(err.msg, "\"s3.secret-key\""));
	assert_null(strstr(err.msg, "QWZ"));
	cfg.secret_key = "s3cr3t";
	cfg.region = "eu\x01";
	assert_false(ts_s3_check_config(&cfg, &err));
	assert_non_null(strstr(err.msg, "\"s3.region\""));
	cfg.region = NULL;
	cfg.endpoint = "http://h\r\n:1";
	assert_false(ts_s3_check_config(&cfg, &err));
	assert_non_null(strstr(err.msg, "\"s3.endpoint\""));
}

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
	"<Name>lake</Name><Prefix>wh/t/snapshot/</Prefix><KeyCount>3</KeyCount>"
	"<IsTruncated>true</IsTruncated><NextContinuationToken>tok/en+1</NextContinuationToken>"
	"<Contents><Key>wh/t/snapshot/snapshot-2</Key><Size>10</Size></Contents>"
	"<Contents><Key>wh/t/snapshot/LATEST</Key><Size>1</Size></Contents>"
	"<CommonPrefixes><Prefix>wh/t/snapshot/sub/</Prefix></CommonPrefixes>"
	"</ListBucketResult>";
static const char page2[] =
	"<ListBucketResult><IsTruncated>false</IsTruncated>"
	"<Contents><Key>wh/t/snapshot/</Key></Contents>"
	"<Contents><Key>wh/t/snapshot/snapshot-1</Key></Contents></ListBucketResult>";

static void
test_list_pages(void **state)
{
	ts_err		err = {0};
	ts_s3_listing l = {0};

	(void) state;
	assert_true(ts_s3_parse_list_page(page1, strlen(page1), "wh/t/snapshot/", &l, &err));
	assert_true(l.truncated);
	assert_string_equal(l.next_token, "tok/en+1");
	assert_int_equal(l.count, 3);
	assert_string_equal(l.names[0], "snapshot-2");
	assert_string_equal(l.names[1], "LATEST");
	assert_string_equal(l.names[2], "sub");
	/* the next page adds to the entries; the marker object is no entry */
	assert_true(ts_s3_parse_list_page(page2, strlen(page2), "wh/t/snapshot/", &l, &err));
	assert_false(l.truncated);
	assert_null(l.next_token);
	assert_int_equal(l.count, 4);
	assert_string_equal(l.names[3], "snapshot-1");
	ts_s3_listing_free(&l);
}

static void
test_list_refusals(void **state)
{
	ts_err		err = {0};
	ts_s3_listing l = {0};
	static const char outside[] =
		"<ListBucketResult><Contents><Key>other/x</Key></Contents></ListBucketResult>";
	static const char deep[] =
		"<ListBucketResult><Contents><Key>wh/a/b</Key></Contents></ListBucketResult>";
	static const char no_token[] =
		"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>";
	static const char other_root[] = "<Error><Code>NoSuchBucket</Code></Error>";

	(void) state;
	assert_false(ts_s3_parse_list_page(outside, strlen(outside), "wh/", &l, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_s3_parse_list_page(deep, strlen(deep), "wh/", &l, &err));
	assert_false(ts_s3_parse_list_page(no_token, strlen(no_token), "wh/", &l, &err));
	assert_non_null(strstr(err.msg, "continuation"));
	assert_false(ts_s3_parse_list_page(other_root, strlen(other_root), "wh/", &l, &err));
	assert_false(ts_s3_parse_list_page("<a", 2, "wh/", &l, &err));
	ts_s3_listing_free(&l);
}

static void
test_error_code(void **state)
{
	static const char body[] =
		"<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>m</Message></Error>";
	static const char odd[] = "<Error><Code>a b&lt;c</Code></Error>";
	char	   *c;

	(void) state;
	c = ts_s3_error_code(body, strlen(body));
	assert_string_equal(c, "SignatureDoesNotMatch");
	ts_free(c);
	assert_null(ts_s3_error_code(odd, strlen(odd)));
	assert_null(ts_s3_error_code("not xml", 7));
	assert_null(ts_s3_error_code(NULL, 0));
}

static void
test_range_answer(void **state)
{
	ts_err		err = {0};

	(void) state;
	assert_true(ts_s3_check_range_answer("s3://b/k", 206, 100, 100, 50, 1000, &err));
	assert_false(ts_s3_check_range_answer("s3://b/k", 206, 99, 100, 50, 1000, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "short"));
	assert_non_null(strstr(err.msg, "s3://b/k"));
	/* a 200 (range ignored): right when the range was all in the object */
	assert_true(ts_s3_check_range_answer("s3://b/k", 200, 100, 100, 0, 1000, &err));
	assert_false(ts_s3_check_range_answer("s3://b/k", 200, 40, 100, 960, 1000, &err));
	assert_non_null(strstr(err.msg, "short"));
	assert_false(ts_s3_check_range_answer("s3://b/k", 304, 0, 100, 0, 1000, &err));
	assert_false(ts_s3_check_range_answer("s3://b/k", 416, 0, 100, 2000, 1000, &err));
	assert_non_null(strstr(err.msg, "past its end (it was opened as 1000 bytes)"));
	assert_false(ts_s3_check_range_answer("s3://b/k", 416, 0, 100, 2000, -1, &err));
	assert_non_null(strstr(err.msg, "past its end"));
	assert_null(strstr(err.msg, "opened as"));
}

static void
test_scope(void **state)
{
	ts_err		err = {0};
	ts_fs_scope scope;
	const char *roots[] = {"s3://lake/wh/sales.db/orders"};
	ts_fs	   *fs;
	char	   *n;

	(void) state;
	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for(roots[0], NULL, &scope, &err);
	assert_non_null(fs);
	assert_true(ts_fs_allows_name(fs, "s3://lake/wh/sales.db/orders/snapshot/LATEST", &err));
	assert_true(ts_fs_allows_name(fs, "s3a://lake/wh/sales.db/orders", &err));
	assert_false(ts_fs_allows_name(fs, "s3://lake/wh/sales.db/orders2/x", &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_fs_allows_name(fs, "s3://lake/wh/sales.db/orders/../customers/x", &err));
	assert_false(ts_fs_allows_name(fs, "s3://other/wh/sales.db/orders/x", &err));
	assert_false(ts_fs_allows_name(fs, "oss://lake/wh/sales.db/orders/x", &err));
	assert_false(ts_fs_allows_name(fs, "/tmp/wh/sales.db/orders/x", &err));
	/* listing and opening outside are refused before any request */
	{
		char	  **names;
		int			count;

		assert_false(ts_list_dir(fs, "s3://lake/wh/sales.db", &names, &count, &err));
		assert_int_equal(err.code, TS_ERR_DENIED);
		assert_null(ts_file_open(fs, "s3://lake/wh/x", &err));
		assert_int_equal(err.code, TS_ERR_DENIED);
	}
	ts_fs_free(fs);
	ts_fs_scope_free(&scope);
	n = ts_path_join("s3://lake/wh/", "/sales.db");
	assert_string_equal(n, "s3://lake/wh/sales.db");
	ts_free(n);
	/* other schemes are refused by name, before anything is read */
	assert_null(ts_file_open(ts_fs_local_unconfined(), "hdfs://nn/wh/x", &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri_schemes),
		cmocka_unit_test(test_parse_uri),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_list_pages),
		cmocka_unit_test(test_list_refusals),
		cmocka_unit_test(test_error_code),
		cmocka_unit_test(test_range_answer),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_ip_endpoints),
		cmocka_unit_test(test_whole_caps),
		cmocka_unit_test(test_pager),
		cmocka_unit_test(test_config_control_chars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
