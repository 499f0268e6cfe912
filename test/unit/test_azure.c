/*
 * test_azure.c - the pure parts of the Azure Blob client (src/base/azure_uri.c,
 * azure_auth.c, azure_list.c): URI parsing and its refusals by name, request
 * URLs on Azure and on an emulator endpoint, the checks of settings (no
 * secret in their errors), the SharedKey string to sign against one written
 * out by hand from Microsoft's format and signatures against an independent
 * implementation (test/azure/blob.mjs, node's crypto), HTTP dates, List
 * Blobs pages, Azure error bodies, and the listing bounds an Azure listing
 * shares with S3.  Requests are tested against azurite by
 * test/azure/azure-client.sh.
 */
#include "unit.h"

#include <unistd.h>

#include "base/ts_azure.h"

static void
assert_refused(const char *uri, const char *words)
{
	ts_azure_uri u;
	ts_err		err = {0};

	if (ts_azure_parse_uri(uri, &u, &err))
		fail_msg("\"%s\" was accepted", uri);
	assert_int_equal(err.code, TS_ERR_INVALID);
	if (strstr(err.msg, words) == NULL)
		fail_msg("refusal of \"%s\" says \"%s\", not \"%s\"", uri, err.msg, words);
}

static void
test_uri_parse(void **state)
{
	ts_azure_uri u;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_uri_is_azure("abfs://c@a.dfs.core.windows.net/x"));
	assert_true(ts_uri_is_azure("ABFSS://c@a.dfs.core.windows.net/x"));
	assert_true(ts_uri_is_azure("wasbs://c@a.blob.core.windows.net"));
	assert_false(ts_uri_is_azure("s3://b/k"));
	assert_false(ts_uri_is_azure("abfs:/c@a"));
	assert_false(ts_uri_is_azure(NULL));

	assert_true(ts_azure_parse_uri("abfss://lake-1@acct01.dfs.core.windows.net/wh/db.db/t/snapshot/LATEST",
								   &u, &err));
	assert_string_equal(u.account, "acct01");
	assert_string_equal(u.container, "lake-1");
	assert_string_equal(u.blob, "wh/db.db/t/snapshot/LATEST");
	assert_string_equal(u.suffix, "core.windows.net");
	ts_azure_uri_free(&u);
	assert_true(ts_azure_parse_uri("wasb://lake@acct.blob.core.chinacloudapi.cn", &u, &err));
	assert_string_equal(u.blob, "");
	assert_string_equal(u.suffix, "core.chinacloudapi.cn");
	ts_azure_uri_free(&u);
	assert_true(ts_azure_parse_uri("abfs://lake@acct.dfs.core.windows.net/wh/dir/", &u, &err));
	assert_string_equal(u.blob, "wh/dir/");
	ts_azure_uri_free(&u);

	assert_refused("s3://lake/wh", "is not an abfs://");
	assert_refused("abfs://acct.dfs.core.windows.net/wh", "names no container");
	assert_refused("abfs://@acct.dfs.core.windows.net/wh", "names no container");
	assert_refused("abfs://lake@/wh", "names no account");
	assert_refused("abfs://lake@.dfs.core.windows.net/wh", "names no account");
	assert_refused("abfs://lake@Acct.dfs.core.windows.net/wh", "invalid account name");
	assert_refused("abfs://lake@ac.dfs.core.windows.net/wh", "invalid account name");
	assert_refused("abfs://la--ke@acct.dfs.core.windows.net/wh", "invalid container name");
	assert_refused("abfs://Lake@acct.dfs.core.windows.net/wh", "invalid container name");
	assert_refused("abfs://lake@acct.s3.amazonaws.com/wh", "has a host other than");
	assert_refused("abfs://lake@acct.dfs./wh", "has a host other than");
	assert_refused("abfs://lake@acct.dfs.core.windows.net:443/wh", "invalid host name");
	assert_refused("abfs://lake@acct.dfs.core.windows.net/wh/../other", "\"..\" segment");
	assert_refused("abfs://lake@acct.dfs.core.windows.net/wh/./t", "\".\" or");
	assert_refused("abfs://lake@acct.dfs.core.windows.net/wh//t", "an empty,");
	assert_refused("abfs://lake@acct.dfs.core.windows.net/wh/t\r\nx-ms-foo: 1", "control character");
}

static void
test_urls(void **state)
{
	ts_azure_uri u;
	ts_err		err = {0};
	ts_azure_config azure = {0};
	ts_azure_config emulator = {.endpoint = "http://127.0.0.1:10000/acct/"};
	char	   *url;

	(void) state;
	assert_true(ts_azure_parse_uri("abfss://lake@acct.dfs.core.windows.net/wh/a b%/c~d.parquet", &u, &err));
	/* an abfs (dfs) location is read through the Blob endpoint of its account */
	url = ts_azure_url(&azure, &u, u.blob);
	assert_string_equal(url, "https://acct.blob.core.windows.net/lake/wh/a%20b%25/c~d.parquet");
	ts_free(url);
	url = ts_azure_url(&emulator, &u, u.blob);
	assert_string_equal(url, "http://127.0.0.1:10000/acct/lake/wh/a%20b%25/c~d.parquet");
	ts_free(url);
	url = ts_azure_url(&emulator, &u, NULL);
	assert_string_equal(url, "http://127.0.0.1:10000/acct/lake");
	ts_free(url);
	ts_azure_uri_free(&u);
}

static void
test_config_checks(void **state)
{
	ts_err		err = {0};
	ts_azure_config c = {0};

	(void) state;
	assert_true(ts_azure_check_config(&c, &err));
	c.endpoint = "ftp://127.0.0.1/acct";
	assert_false(ts_azure_check_config(&c, &err));
	assert_non_null(strstr(err.msg, "\"azure.endpoint\""));
	c.endpoint = "http://user@127.0.0.1/acct";
	assert_false(ts_azure_check_config(&c, &err));
	c.endpoint = "http://127.0.0.1:10000/acct";
	c.account_key = "c2VjcmV0LWtleS12YWx1ZQ==\r\nx-ms-injected: 1";
	assert_false(ts_azure_check_config(&c, &err));
	assert_non_null(strstr(err.msg, "\"azure.account-key\""));
	assert_null(strstr(err.msg, "c2VjcmV0"));
	c.account_key = "c2VjcmV0LWtleS12YWx1ZQ==";
	assert_true(ts_azure_check_config(&c, &err));
	c.sas_token = "sv=2019-12-12&sig=SECRETSIG";
	assert_false(ts_azure_check_config(&c, &err));
	assert_non_null(strstr(err.msg, "give one"));
	assert_null(strstr(err.msg, "SECRETSIG"));
	c.account_key = NULL;
	c.sas_token = "sv=2019-12-12&sig=SECRET\nSIG";
	assert_false(ts_azure_check_config(&c, &err));
	assert_non_null(strstr(err.msg, "\"azure.sas-token\""));
	assert_null(strstr(err.msg, "SECRET"));
	c.sas_token = "";
	assert_false(ts_azure_check_config(&c, &err));
}

/* The string to sign of a ranged GET, written out from Microsoft's format by hand. */
static void
test_string_to_sign_by_hand(void **state)
{
	ts_azure_header h[] = {
		{"x-ms-version", "2020-10-02"},
		{"Range", "bytes=0-99"},
		{"X-MS-Date", "Sat, 05 Dec 2026 19:46:40 GMT"},
		{"x-ms-client-request-id", "  a   b "},
	};
	ts_azure_sign_input in = {"GET", "acct", "http://127.0.0.1:10000/acct/lake/wh/a%20b?timeout=20&Comp=x&comp=a",
	h, 4};
	char	   *s = ts_azure_string_to_sign(&in);

	(void) state;
	assert_string_equal(s,
						"GET\n" "\n" "\n" "\n" "\n" "\n" "\n" "\n" "\n" "\n" "\n"
						"bytes=0-99\n"
						"x-ms-client-request-id:a b\n"
						"x-ms-date:Sat, 05 Dec 2026 19:46:40 GMT\n"
						"x-ms-version:2020-10-02\n"
						"/acct/acct/lake/wh/a%20b\n"
						"comp:a,x\n"
						"timeout:20");
	ts_free(s);
}

/* Run test/azure/blob.mjs sign on one request: the Authorization it computes. */
static char *
node_authorization(const char *verb, const char *account, const char *key, const char *url,
				   const ts_azure_header *h, int n)
{
	char		path[] = "/tmp/ts-azure-sign-XXXXXX";
	int			fd = mkstemp(path);
	FILE	   *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	char		cmd[512];
	char		line[512] = {0};
	FILE	   *p;

	assert_non_null(f);
	fprintf(f, "{\"verb\": \"%s\", \"account\": \"%s\", \"key\": \"%s\", \"url\": \"%s\", \"headers\": [",
			verb, account, key, url);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s[\"%s\", \"%s\"]", i ? ", " : "", h[i].name, h[i].value);
	fprintf(f, "]}\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "node %s/test/azure/blob.mjs sign < %s",
			 getenv("TS_SRC_ROOT") ? getenv("TS_SRC_ROOT") : ".", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(line, sizeof(line), p) == NULL)
		line[0] = '\0';
	pclose(p);
	unlink(path);
	line[strcspn(line, "\n")] = '\0';
	if (line[0] == '\0')
		fail_msg("node test/azure/blob.mjs sign gave nothing (node and the project root, or TS_SRC_ROOT, are needed)");
	return strdup(line);
}

static void
check_against_node(const char *verb, const char *url, const ts_azure_header *h, int n)
{
	const char *key = "dGhlIHRlc3RzJyBvd24ga2V5LCAzMiBieXRlcyBsb25nIQ==";
	ts_azure_sign_input in = {verb, "tsacct1", url, h, n};
	char	   *sts = ts_azure_string_to_sign(&in);
	char		ours[TS_AZURE_AUTH_LEN];
	char	   *theirs = node_authorization(verb, "tsacct1", key, url, h, n);
	ts_err		err = {0};

	assert_non_null(sts);
	assert_true(ts_azure_authorization("tsacct1", key, sts, ours, &err));
	if (strcmp(ours, theirs) != 0)
		fail_msg("%s %s: ours \"%s\", node's \"%s\"", verb, url, ours, theirs);
	ts_free(sts);
	free(theirs);
}

static void
test_signature_against_node(void **state)
{
	ts_azure_header get[] = {{"x-ms-date", "Sat, 05 Dec 2026 19:46:40 GMT"},
	{"x-ms-version", "2020-10-02"}, {"Range", "bytes=100-4195"}};
	ts_azure_header put[] = {{"x-ms-date", "Sat, 05 Dec 2026 19:46:41 GMT"},
	{"x-ms-version", "2020-10-02"}, {"x-ms-blob-type", "BlockBlob"}, {"If-None-Match", "*"},
	{"Content-Type", "application/octet-stream"}, {"Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="},
	{"Content-Length", "1234"}};
	ts_azure_header empty[] = {{"x-ms-date", "Sat, 05 Dec 2026 19:46:42 GMT"},
	{"x-ms-version", "2020-10-02"}, {"Content-Length", "0"}};

	(void) state;
	check_against_node("GET", "https://tsacct1.blob.core.windows.net/lake/wh/db.db/t/data-1.parquet", get, 3);
	check_against_node("PUT", "http://127.0.0.1:10000/tsacct1/lake/wh/t/snapshot/snapshot-2", put, 7);
	check_against_node("HEAD", "http://127.0.0.1:10000/tsacct1/lake/a%20b/c", empty, 3);
	check_against_node("GET",
					   "http://127.0.0.1:10000/tsacct1/lake?comp=list&delimiter=%2F&marker=2%21abc%3D&maxresults=2&prefix=wh%2Fdb.db%2F&restype=container",
					   get, 2);
}

static void
test_bad_key(void **state)
{
	char		out[TS_AZURE_AUTH_LEN];
	ts_err		err = {0};

	(void) state;
	assert_false(ts_azure_authorization("acct", "not*base64!", "GET\n", out, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "\"azure.account-key\""));
	assert_null(strstr(err.msg, "base64!"));
	assert_false(ts_azure_authorization("acct", "abc", "GET\n", out, &err));
	assert_true(ts_azure_authorization("acct", "a2V5", "GET\n", out, &err));
	assert_memory_equal(out, "SharedKey acct:", 15);
}

static void
test_http_date(void **state)
{
	char		d[32];

	(void) state;
	ts_azure_http_date(0, d);
	assert_string_equal(d, "Thu, 01 Jan 1970 00:00:00 GMT");
	ts_azure_http_date(1796500000, d);
	assert_string_equal(d, "Sat, 05 Dec 2026 19:46:40 GMT");
}

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>"
	"<EnumerationResults ServiceEndpoint=\"http://127.0.0.1/acct\" ContainerName=\"lake\">"
	"<Prefix>wh/t/</Prefix><MaxResults>3</MaxResults><Delimiter>/</Delimiter><Blobs>"
	"<Blob><Name>wh/t/a.txt</Name><Properties><Content-Length>3</Content-Length></Properties></Blob>"
	"<BlobPrefix><Name>wh/t/snapshot/</Name></BlobPrefix>"
	"<Blob><Name>wh/t/</Name></Blob>"
	"</Blobs><NextMarker>2!16!d2gvdC96</NextMarker></EnumerationResults>";

static void
test_list_pages(void **state)
{
	ts_s3_listing l = {0};
	ts_s3_pager pager = {0};
	ts_err		err = {0};
	static const char last[] =
		"<EnumerationResults><Blobs><Blob><Name>wh/t/z</Name></Blob></Blobs><NextMarker/></EnumerationResults>";
	static const char outside[] =
		"<EnumerationResults><Blobs><Blob><Name>wh/other</Name></Blob></Blobs></EnumerationResults>";
	static const char deeper[] =
		"<EnumerationResults><Blobs><Blob><Name>wh/t/x/y</Name></Blob></Blobs></EnumerationResults>";

	(void) state;
	assert_true(ts_azure_parse_list_page(page1, sizeof(page1) - 1, "wh/t/", &l, &err));
	assert_int_equal(l.count, 2);	/* the directory marker blob "wh/t/" is no entry */
	assert_string_equal(l.names[0], "a.txt");
	assert_string_equal(l.names[1], "snapshot");
	assert_true(l.truncated);
	assert_string_equal(l.next_token, "2!16!d2gvdC96");
	assert_true(ts_s3_pager_next(&pager, &l, "abfs://lake@acct.dfs.core.windows.net/wh/t", &err));
	/* a store that hands out the same marker again stops the listing at once */
	assert_true(ts_azure_parse_list_page(page1, sizeof(page1) - 1, "wh/t/", &l, &err));
	assert_false(ts_s3_pager_next(&pager, &l, "abfs://lake@acct.dfs.core.windows.net/wh/t", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "repeats a continuation token"));
	assert_true(ts_azure_parse_list_page(last, sizeof(last) - 1, "wh/t/", &l, &err));
	assert_false(l.truncated);
	assert_null(l.next_token);
	assert_int_equal(l.count, 5);
	assert_false(ts_azure_parse_list_page(outside, sizeof(outside) - 1, "wh/t/", &l, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "outside it"));
	assert_false(ts_azure_parse_list_page(deeper, sizeof(deeper) - 1, "wh/t/", &l, &err));
	assert_non_null(strstr(err.msg, "not an entry directly below it"));
	assert_false(ts_azure_parse_list_page(page1, 60, "wh/t/", &l, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_false(ts_azure_parse_list_page("<ListBucketResult/>", 19, "wh/t/", &l, &err));
	assert_non_null(strstr(err.msg, "not an EnumerationResults"));
	ts_s3_pager_free(&pager);
	ts_s3_listing_free(&l);
}

/* An Azure error body has S3's shape: ts_s3_error_code reads its code, a word or nothing. */
static void
test_error_codes(void **state)
{
	static const char e[] = "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>BlobNotFound</Code>"
		"<Message>The specified blob does not exist.\nRequestId:4e3c\nTime:2026-12-05T19:46:40Z</Message></Error>";
	static const char odd[] = "<Error><Code>sig=SECRET&amp;x</Code></Error>";
	char	   *c = ts_s3_error_code(e, sizeof(e) - 1);

	(void) state;
	assert_string_equal(c, "BlobNotFound");
	ts_free(c);
	assert_null(ts_s3_error_code(odd, sizeof(odd) - 1));
}

/* Whole reads of Azure blobs are capped by their kind, as S3 objects are. */
static void
test_whole_caps(void **state)
{
	const char *kind;

	(void) state;
	assert_int_equal(ts_s3_whole_cap("abfs://lake@acct.dfs.core.windows.net/wh/t/snapshot/snapshot-3", -1, &kind),
					 TS_S3_SMALL_OBJECT_MAX);
	assert_int_equal(ts_s3_whole_cap("abfs://lake@acct.dfs.core.windows.net/wh/t/manifest/manifest-1", -1, &kind),
					 (size_t) ts_s3_get_limits()->max_metadata_object);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri_parse),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_config_checks),
		cmocka_unit_test(test_string_to_sign_by_hand),
		cmocka_unit_test(test_signature_against_node),
		cmocka_unit_test(test_bad_key),
		cmocka_unit_test(test_http_date),
		cmocka_unit_test(test_list_pages),
		cmocka_unit_test(test_error_codes),
		cmocka_unit_test(test_whole_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
