/*
 * test_curl_dl.c - libcurl loaded on first use (src/base/curl_dl.c).  The
 * binary does not link libcurl: a local read and a transaction's end
 * (ts_prefetch_forget_all) leave it unmapped; with the library missing,
 * an S3 request, a REST catalog's GET and the plain init fail with an
 * error naming it instead of crashing; then it loads, once, and the
 * library cannot be swapped any more.  The tests run in order in one
 * process.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <unistd.h>

#include "unit.h"

#include "base/ts_curl.h"
#include "base/ts_fs.h"
#include "base/ts_http.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

#define MISSING "libts-no-such-curl.so.4"

static int
seen_libcurl(struct dl_phdr_info *info, size_t size, void *data)
{
	(void) size;
	(void) data;
	return info->dlpi_name != NULL && strstr(info->dlpi_name, "libcurl") != NULL;
}

/* Is libcurl mapped into this process? */
static bool
libcurl_mapped(void)
{
	return dl_iterate_phdr(seen_libcurl, NULL) != 0;
}

static void
test_local_use_loads_nothing(void **state)
{
	char		path[] = "/tmp/ts-curl-dl-XXXXXX";
	int			fd = mkstemp(path);
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};

	(void) state;
	assert_false(libcurl_mapped());
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{}", 2), 2);
	close(fd);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), path, &data, &len, &err));
	assert_int_equal(len, 2);
	ts_free(data);
	unlink(path);
	/* what every transaction's end calls */
	ts_prefetch_forget_all();
	ts_s3_batch_forget_all();
	assert_false(ts_curl_loaded());
	assert_false(libcurl_mapped());
}

static void
test_missing_library(void **state)
{
	ts_s3_config cfg = {.endpoint = "http://127.0.0.1:1", .max_attempts = 1};
	ts_http_request req = {.url = "http://127.0.0.1:1/v1/config", .what = "GET /v1/config"};
	ts_http_response resp = {0};
	bool		exists = false;
	int64_t		size = -1;
	ts_err		err = {0};

	(void) state;
	assert_true(ts_curl_set_library(MISSING));
	assert_false(ts_curl_global_init(&err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, MISSING));
	/* the requests that needed it say so */
	memset(&err, 0, sizeof(err));
	assert_false(ts_s3_head(&cfg, "s3://bucket/key", &exists, &size, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, MISSING));
	memset(&err, 0, sizeof(err));
	assert_false(ts_http_get(&req, &resp, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, MISSING));
	ts_prefetch_forget_all();
	assert_false(ts_curl_loaded());
	assert_false(libcurl_mapped());
}

static void
test_loads_once(void **state)
{
	ts_err		err = {0};
	CURL	   *h;

	(void) state;
	assert_true(ts_curl_set_library(NULL));
	assert_true(ts_curl_global_init(&err));
	assert_true(ts_curl_loaded());
	assert_true(libcurl_mapped());
	assert_true(ts_curl_global_init(&err));	/* once */
	assert_false(ts_curl_set_library(MISSING));	/* handles made with it live on */
	assert_true(ts_curl_global_init(&err));
	h = ts_curl_fn.easy_init();
	assert_non_null(h);
	assert_int_equal(ts_curl_fn.easy_setopt(h, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
	assert_string_equal(ts_curl_fn.easy_strerror(CURLE_OK), "No error");
	ts_prefetch_forget_all();	/* with the library loaded and no batch */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_use_loads_nothing),
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_loads_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
