/*
 * test_error.c - the ts_err record (src/base/error.c): message, detail and
 * hint, context prefixes, and the one out-of-memory error with and without
 * its "what" (an allocation that fails returns TS_ERR_NOMEM "out of
 * memory", it does not recurse or crash).
 */
#include "unit.h"

#include <string.h>
#include <unistd.h>

#include "meta/schema.h"

static void
test_error_detail_hint_context(void **state)
{
	ts_err		err;

	(void) state;
	assert_false(ts_error(&err, TS_ERR_CORRUPT, "truncated block at %d", 7));
	assert_false(ts_error_detail(&err, "offset %d", 12));
	assert_false(ts_error_hint(&err, "rewrite the file"));
	assert_false(ts_error_context(&err, "manifest file \"%s\"", "m-1"));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_string_equal(err.msg, "manifest file \"m-1\": truncated block at 7");
	assert_string_equal(err.detail, "offset 12");
	assert_string_equal(err.hint, "rewrite the file");
	/* a new error clears the old detail and hint */
	assert_false(ts_error(&err, TS_ERR_IO, "x"));
	assert_string_equal(err.detail, "");
	assert_string_equal(err.hint, "");
	/* no record: nothing to fill, still false */
	assert_false(ts_error(NULL, TS_ERR_IO, "x"));
	assert_false(ts_error_nomem(NULL, NULL));
	assert_false(ts_error_nomem(NULL, "reading"));
}

static void
test_out_of_memory_words(void **state)
{
	ts_err		err;

	(void) state;
	alarm(20);					/* a helper that calls itself fails, not hangs */
	memset(&err, 0, sizeof(err));
	assert_false(ts_error_nomem(&err, NULL));
	assert_int_equal(err.code, TS_ERR_NOMEM);
	assert_string_equal(err.msg, "out of memory");
	assert_false(ts_error_nomem(&err, ""));
	assert_string_equal(err.msg, "out of memory");
	assert_false(ts_error_nomem(&err, "reading \"f\""));
	assert_string_equal(err.msg, "out of memory reading \"f\"");
	assert_false(ts_error_nomemf(&err, "growing a buffer to %d bytes", 64));
	assert_int_equal(err.code, TS_ERR_NOMEM);
	assert_string_equal(err.msg, "out of memory growing a buffer to 64 bytes");
	alarm(0);
}

static void *
refuse_alloc(size_t size)
{
	(void) size;
	return NULL;
}

static void *
refuse_realloc(void *p, size_t size)
{
	(void) p;
	(void) size;
	return NULL;
}

/* A caller whose allocation fails reports the plain out-of-memory error. */
static void
test_failed_allocation(void **state)
{
	static const ts_alloc_hooks refuse = {refuse_alloc, refuse_realloc, free};
	const char *json = "{\"version\": 3, \"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"k\", \"type\": \"INT\"}],"
		"\"options\": {\"bucket\": \"2\", \"bucket-key\": \"k\"}}";
	ts_err		err;
	ts_schema  *s = ts_schema_parse(json, strlen(json), "s", &err);
	int		   *idx = NULL;
	int			n = 0;
	bool		ok;

	(void) state;
	alarm(20);
	assert_non_null(s);
	ts_set_alloc_hooks(&refuse);
	ok = ts_schema_bucket_keys(s, &idx, &n, &err);
	ts_set_alloc_hooks(NULL);
	assert_false(ok);
	assert_int_equal(err.code, TS_ERR_NOMEM);
	assert_string_equal(err.msg, "out of memory");
	ts_schema_free(s);
	alarm(0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_detail_hint_context),
		cmocka_unit_test(test_out_of_memory_words),
		cmocka_unit_test(test_failed_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
