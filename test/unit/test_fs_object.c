/*
 * test_fs_object.c - the object store layer every remote store shares
 * (src/base/fs_object.c), through a fake store that counts its requests:
 * immutable metadata objects (manifests, index files) are fetched whole
 * once and then served from the one-object memo or the on-disk metadata
 * cache without a request, keyed by the fs's credentials (other keys: a
 * request again); everything else (snapshots, data files) goes to the
 * store every time (a HEAD for a data file's size, a GET for a whole
 * read); a missing object is NOT_FOUND naming the store's noun; a path
 * outside the fs's scope sends nothing.
 */
#include "unit.h"

#include <unistd.h>

#include "base/fs_impl.h"
#include "base/ts_meta_cache.h"

/* ---- the fake store: a few objects in memory, every request counted ---- */

typedef struct fake_object
{
	const char *path;
	const char *bytes;
} fake_object;

static const fake_object objects[] = {
	{"fake://b/t/manifest/manifest-aaa-0", "manifest aaa"},
	{"fake://b/t/manifest/manifest-bbb-0", "manifest bbb"},
	{"fake://b/t/manifest/manifest-ccc-0", "manifest ccc"},
	{"fake://b/t/index/index-ddd-0", "index ddd"},
	{"fake://b/t/snapshot/snapshot-1", "{\"id\": 1}"},
	{"fake://b/t/bucket-0/data-eee-0.parquet", "0123456789"},
};

static int	heads,
			gets,
			lists,
			preads;
static const char *credential = "key-1";

static const fake_object *
find(const char *path)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (strcmp(objects[i].path, path) == 0)
			return &objects[i];
	return NULL;
}

static bool
fake_head(ts_fs *fs, const char *path, bool *exists, int64_t *size, ts_err *err)
{
	const fake_object *o = find(path);

	(void) fs;
	(void) err;
	heads++;
	*exists = o != NULL;
	*size = o ? (int64_t) strlen(o->bytes) : -1;
	return true;
}

static bool
fake_get(ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	const fake_object *o = find(path);

	(void) fs;
	gets++;
	if (o == NULL)
		return ts_error(err, TS_ERR_NOT_FOUND, "GET \"%s\": (HTTP 404, NoSuchThing)", path);
	*len = strlen(o->bytes);
	*data = (uint8_t *) ts_strdup(o->bytes);
	return true;
}

static bool
fake_list(ts_fs *fs, const char *path, bool max_one, char ***names, int *count, ts_err *err)
{
	(void) fs;
	(void) max_one;
	lists++;
	*names = NULL;
	*count = 0;
	return ts_error(err, TS_ERR_NOT_FOUND, "LIST \"%s\": nothing below it", path);
}

static int
fake_cache_key(const ts_fs *fs, const char *path, const char *parts[8])
{
	(void) fs;
	parts[0] = "fake";
	parts[1] = credential;
	parts[2] = path;
	return 3;
}

static const fs_object_ops fake_object_ops = {
	.noun = "thing",
	.head = fake_head,
	.get = fake_get,
	.list = fake_list,
	.cache_key = fake_cache_key,
};

static bool
fake_owns(const char *uri)
{
	return strncmp(uri, "fake://", 7) == 0;
}

static bool
fake_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	const fake_object *o = find(ts_file_path(f));

	preads++;
	if (o == NULL)
		return ts_error(err, TS_ERR_NOT_FOUND, "gone");
	memcpy(buf, o->bytes + offset, len);
	return true;
}

static const ts_fs_ops fake_ops = {
	.name = "fake",
	.caps = TS_FS_CAP_REMOTE,
	.object = &fake_object_ops,
	.owns = fake_owns,
	.pread = fake_pread,
};

static ts_fs fake_fs = {.ops = &fake_ops};

static char dir[256];

static int
setup(void **state)
{
	ts_err		err = {0};
	char		cmd[300];

	(void) state;
	snprintf(dir, sizeof(dir), "/tmp/ts-unit-fs-object-%d", (int) getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return -1;
	return ts_mcache_configure(dir, 1 << 20, &err) ? 0 : -1;
}

static int
teardown(void **state)
{
	char		cmd[300];

	(void) state;
	ts_mcache_configure(NULL, 0, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Open path through the fake fs and check its bytes; the handle is closed. */
static void
open_and_check(const char *path, bool want_remote)
{
	ts_err		err = {0};
	ts_file    *f = ts_file_open(&fake_fs, path, &err);
	const fake_object *o = find(path);
	char		buf[64] = "";

	assert_non_null(f);
	assert_non_null(o);
	assert_int_equal(ts_file_size(f), (int64_t) strlen(o->bytes));
	assert_true(ts_file_is_remote(f) == want_remote);
	assert_true(ts_file_pread(f, buf, strlen(o->bytes), 0, &err));
	assert_string_equal(buf, o->bytes);
	ts_file_close(f);
}

static void
test_metadata_cached(void **state)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};

	(void) state;
	heads = gets = preads = 0;
	credential = "key-1";
	/* one GET, no HEAD, held in memory */
	open_and_check("fake://b/t/manifest/manifest-aaa-0", false);
	assert_int_equal(gets, 1);
	assert_int_equal(heads, 0);
	assert_int_equal(preads, 0);
	/* again at once: the memo */
	open_and_check("fake://b/t/manifest/manifest-aaa-0", false);
	assert_int_equal(gets, 1);
	/* another one replaces the memo; the first then comes from the disk cache */
	open_and_check("fake://b/t/manifest/manifest-bbb-0", false);
	assert_int_equal(gets, 2);
	open_and_check("fake://b/t/manifest/manifest-aaa-0", false);
	assert_int_equal(gets, 2);
	/* a whole read of a cached object sends nothing either */
	assert_true(ts_read_whole_file(&fake_fs, "fake://b/t/manifest/manifest-bbb-0", &data, &len, &err));
	assert_int_equal(len, strlen("manifest bbb"));
	assert_memory_equal(data, "manifest bbb", len);
	ts_free(data);
	assert_int_equal(gets, 2);
	/* index files too; the cache is filled by whole reads as well */
	assert_true(ts_read_whole_file(&fake_fs, "fake://b/t/index/index-ddd-0", &data, &len, &err));
	ts_free(data);
	open_and_check("fake://b/t/manifest/manifest-ccc-0", false);
	open_and_check("fake://b/t/index/index-ddd-0", false);
	assert_int_equal(gets, 4);
	assert_int_equal(heads, 0);
}

static void
test_other_credentials_fetch_again(void **state)
{
	(void) state;
	gets = 0;
	credential = "key-1";
	open_and_check("fake://b/t/manifest/manifest-aaa-0", false);
	open_and_check("fake://b/t/manifest/manifest-bbb-0", false);
	assert_int_equal(gets, 0);	/* cached by test_metadata_cached */
	credential = "key-2";
	open_and_check("fake://b/t/manifest/manifest-aaa-0", false);
	assert_int_equal(gets, 1);
	credential = "key-1";
}

static void
test_others_forwarded(void **state)
{
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};

	(void) state;
	heads = gets = preads = 0;
	/* a data file: a HEAD for its size, ranged reads sent to the store */
	open_and_check("fake://b/t/bucket-0/data-eee-0.parquet", true);
	open_and_check("fake://b/t/bucket-0/data-eee-0.parquet", true);
	assert_int_equal(heads, 2);
	assert_int_equal(preads, 2);
	assert_int_equal(gets, 0);
	/* a snapshot (mutable name): fetched every time */
	for (int i = 0; i < 2; i++)
	{
		assert_true(ts_read_whole_file(&fake_fs, "fake://b/t/snapshot/snapshot-1", &data, &len, &err));
		assert_memory_equal(data, "{\"id\": 1}", len);
		ts_free(data);
	}
	assert_int_equal(gets, 2);
}

static void
test_missing_and_scope(void **state)
{
	ts_err		err = {0};
	ts_fs_scope scope;
	const char *roots[] = {"/nowhere"};
	ts_fs		confined = {.ops = &fake_ops};

	(void) state;
	heads = gets = lists = 0;
	assert_null(ts_file_open(&fake_fs, "fake://b/t/manifest/manifest-zzz-0", &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "no such thing (HTTP 404, NoSuchThing)"));
	memset(&err, 0, sizeof(err));
	assert_null(ts_file_open(&fake_fs, "fake://b/t/bucket-0/data-zzz-0.parquet", &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "no such thing (HTTP 404 to HEAD)"));
	assert_false(ts_path_is_file(&fake_fs, "fake://b/t/snapshot/snapshot-9"));
	assert_true(ts_path_is_file(&fake_fs, "fake://b/t/snapshot/snapshot-1"));
	assert_false(ts_path_is_dir(&fake_fs, "fake://b/t/nothing"));
	assert_int_equal(gets, 1);
	assert_int_equal(heads, 3);
	assert_int_equal(lists, 1);
	/* out of scope: refused before any request, even for a cached object */
	heads = gets = lists = 0;
	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	confined.scope = scope;
	memset(&err, 0, sizeof(err));
	assert_null(ts_file_open(&confined, "fake://b/t/manifest/manifest-aaa-0", &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	assert_false(ts_path_is_file(&confined, "fake://b/t/snapshot/snapshot-1"));
	assert_false(ts_path_is_dir(&confined, "fake://b/t"));
	assert_int_equal(heads + gets + lists, 0);
	ts_fs_scope_free(&scope);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_cached),
		cmocka_unit_test(test_other_credentials_fetch_again),
		cmocka_unit_test(test_others_forwarded),
		cmocka_unit_test(test_missing_and_scope),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
