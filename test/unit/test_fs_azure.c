/*
 * test_fs_azure.c - the Azure store of ts_fs (src/base/fs_azure.c) without a
 * server: abfs://, abfss://, wasb://, wasbs:// locations accepted where a
 * scheme is checked and routed to the store "azure" (its capabilities: remote,
 * conditional put, no batch fetch), also as a file of another store
 * (external-path-map); the scope compares abfs:// and wasb:// names of one
 * blob as equal and refuses a path outside before anything is sent; an fs
 * without Azure settings refuses by name; a failed request names the blob
 * and never the key; Hadoop's per-account key option matched against a
 * URI's account and suffix; the settings copied and freed.  Requests are
 * tested against azurite by test/azure/store.sh and conformance-azure.
 */
#include "unit.h"

#include "base/ts_azure.h"
#include "base/ts_fs.h"
#include "base/ts_s3.h"

#define KEY "c2VjcmV0LWtleS1vZi10aGUtdW5pdC10ZXN0"
#define WH "abfs://lake@acct.dfs.core.windows.net/wh"

/* settings that reach nothing: port 1 on the loopback refuses at once */
static const ts_azure_config nowhere = {"http://127.0.0.1:1/acct", KEY, NULL, NULL, 1, 1, 2000, 0};

static void
test_schemes_and_routing(void **state)
{
	ts_err		err = {0};
	ts_fs_settings settings = {NULL, &nowhere};
	ts_fs	   *fs;
	ts_fs	   *local;

	(void) state;
	assert_true(ts_uri_check_scheme(WH, &err));
	assert_true(ts_uri_check_scheme("wasbs://lake@acct.blob.core.windows.net/wh", &err));
	assert_false(ts_uri_check_scheme("gs://b/wh", &err));
	assert_non_null(strstr(err.msg, "abfs://"));	/* the message lists what is read */

	fs = ts_fs_open_for(WH "/db.db/t", &settings, NULL, &err);
	assert_non_null(fs);
	assert_string_equal(ts_fs_store_name(fs), "azure");
	assert_true(ts_fs_caps(fs) & TS_FS_CAP_REMOTE);
	assert_true(ts_fs_caps(fs) & TS_FS_CAP_CONDITIONAL_PUT);
	assert_false(ts_fs_caps(fs) & TS_FS_CAP_BATCH_FETCH);
	/* the S3 store fetches whole objects in batches; the local one reads no requests */
	assert_true(ts_fs_path_caps(fs, "s3://b/k") & TS_FS_CAP_BATCH_FETCH);
	assert_false(ts_fs_path_is_remote(fs, "/tmp/x"));
	ts_fs_free(fs);

	/* a blob named by a local table's metadata (external-path-map): the Azure store's */
	local = ts_fs_open_for("/tmp", NULL, NULL, &err);
	assert_non_null(local);
	assert_true(ts_fs_path_is_remote(local, "wasb://lake@acct.blob.core.windows.net/x"));
	memset(&err, 0, sizeof(err));
	assert_null(ts_file_open(local, WH "/t/snapshot/LATEST", &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "no Azure settings"));
	assert_non_null(strstr(err.msg, WH "/t/snapshot/LATEST"));
	ts_fs_free(local);
}

/* A failed request names the blob and the store's failure, never the key. */
static void
test_failure_hides_key(void **state)
{
	ts_err		err = {0};
	ts_fs_settings settings = {NULL, &nowhere};
	ts_fs	   *fs = ts_fs_open_for(WH, &settings, NULL, &err);
	uint8_t    *data;
	size_t		len;

	(void) state;
	assert_non_null(fs);
	assert_null(ts_file_open(fs, WH "/t/snapshot/snapshot-1", &err));
	assert_int_equal(err.code, TS_ERR_IO);
	assert_non_null(strstr(err.msg, WH "/t/snapshot/snapshot-1"));
	assert_null(strstr(err.msg, KEY));
	memset(&err, 0, sizeof(err));
	assert_false(ts_fs_read_whole(fs, WH "/t/schema/schema-0", 0, &data, &len, &err));
	assert_null(data);
	assert_null(strstr(err.msg, KEY));
	/* no answer is neither yes nor no: the read that follows reports it */
	assert_true(ts_path_is_file(fs, WH "/t/snapshot/LATEST"));
	ts_fs_free(fs);
}

static void
test_scope(void **state)
{
	const char *roots[] = {"wasbs://lake@acct.blob.core.windows.net/wh/db.db/t/"};
	ts_fs_scope scope;
	ts_err		err = {0};
	ts_fs_settings settings = {NULL, &nowhere};
	ts_fs	   *fs;
	char	  **names;
	int			n;
	char	   *canon;

	(void) state;
	canon = ts_azure_canonical_uri("WASBS://lake@acct.blob.core.windows.net/wh/db.db/");
	assert_string_equal(canon, WH "/db.db");
	ts_free(canon);
	assert_null(ts_azure_canonical_uri("abfs://lake@acct.dfs.core.windows.net/wh/../x"));

	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for(WH "/db.db/t", &settings, &scope, &err);
	assert_non_null(fs);
	/* the abfs:// name of a blob under the wasbs:// root */
	assert_true(ts_fs_allows_name(fs, WH "/db.db/t/snapshot/LATEST", NULL));
	assert_true(ts_fs_allows_name(fs, "abfss://lake@acct.dfs.core.windows.net/wh/db.db/t", NULL));
	assert_false(ts_fs_allows_name(fs, WH "/db.db/t2/snapshot/LATEST", NULL));
	assert_false(ts_fs_allows_name(fs, "abfs://other@acct.dfs.core.windows.net/wh/db.db/t/x", NULL));
	assert_false(ts_fs_allows_name(fs, "abfs://lake@acct2.dfs.core.windows.net/wh/db.db/t/x", NULL));
	assert_false(ts_fs_allows_name(fs, WH "/db.db/t/../t2/x", NULL));
	/* refused before any request (a request would fail with TS_ERR_IO) */
	assert_null(ts_file_open(fs, WH "/db.db/secret/x", &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	memset(&err, 0, sizeof(err));
	assert_false(ts_list_dir(fs, WH "/db.db", &names, &n, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_path_is_file(fs, WH "/db.db/secret/x"));
	assert_false(ts_path_is_dir(fs, WH "/db.db"));
	ts_fs_free(fs);
	ts_fs_scope_free(&scope);
}

static void
test_account_key_options(void **state)
{
	ts_azure_uri u;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_azure_parse_uri("wasb://lake@acct.blob.core.windows.net/wh", &u, &err));
	assert_true(ts_azure_key_option_matches("fs.azure.account.key.acct.dfs.core.windows.net", &u));
	assert_true(ts_azure_key_option_matches("fs.azure.account.key.acct.blob.core.windows.net", &u));
	/* another account, a prefix of it, another cloud, no host, another key */
	assert_false(ts_azure_key_option_matches("fs.azure.account.key.acct2.dfs.core.windows.net", &u));
	assert_false(ts_azure_key_option_matches("fs.azure.account.key.acc.dfs.core.windows.net", &u));
	assert_false(ts_azure_key_option_matches("fs.azure.account.key.acct.dfs.core.chinacloudapi.cn", &u));
	assert_false(ts_azure_key_option_matches("fs.azure.account.key.acct", &u));
	assert_false(ts_azure_key_option_matches("fs.azure.account.keyacct.dfs.core.windows.net", &u));
	assert_false(ts_azure_key_option_matches("azure.account-key", &u));
	ts_azure_uri_free(&u);
}

static void
test_config_copy(void **state)
{
	ts_azure_config copy;

	(void) state;
	assert_true(ts_azure_config_copy(&copy, &nowhere));
	assert_string_equal(copy.endpoint, nowhere.endpoint);
	assert_string_equal(copy.account_key, KEY);
	assert_true(copy.account_key != nowhere.account_key);
	assert_null(copy.sas_token);
	assert_int_equal(copy.max_attempts, 1);
	assert_int_equal(copy.timeout_ms, 2000);
	ts_azure_config_free_copy(&copy);
	assert_null(copy.account_key);
	assert_null(copy.endpoint);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemes_and_routing),
		cmocka_unit_test(test_failure_hides_key),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_account_key_options),
		cmocka_unit_test(test_config_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
