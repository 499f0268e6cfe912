/*
 * consumer.c - Paimon's consumer files (consumer.h).
 *
 * Owns: consumer ids as file names, the path of a consumer's file, its
 * JSON (Java's Consumer: {"nextSnapshot" : N}, written pretty-printed as
 * JsonSerdeUtil does, unknown keys ignored when read), reading it through
 * a file system object (the scan's when read; one built for the table
 * with the reading role's scope and keys when written): replaced
 * atomically on a local file system, by one PUT on an object store.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/ts_fs_write.h"
#include "meta/consumer.h"
#include "meta/meta_json.h"

/* a consumer file holds one small JSON object */
#define CONSUMER_FILE_MAX_BYTES 65536
#define CONSUMER_ID_MAX_BYTES 200

bool
ts_consumer_id_check(const char *id, ts_err *err)
{
	size_t		n = id ? strlen(id) : 0;

	if (n == 0)
		return ts_error(err, TS_ERR_INVALID, "a consumer id must not be empty");
	if (n > CONSUMER_ID_MAX_BYTES)
		return ts_error(err, TS_ERR_INVALID,
						"consumer id \"%.40s...\" is too long for a consumer file name (at most %d bytes)",
						id, CONSUMER_ID_MAX_BYTES);
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) id[i];

		if (c < 0x20 || c == 0x7f)
			return ts_error(err, TS_ERR_INVALID,
							"consumer id must not contain control characters (byte %zu is 0x%02x)",
							i, c);
	}
	if (strchr(id, '/') != NULL || strstr(id, "..") != NULL)
		return ts_error(err, TS_ERR_INVALID,
						"invalid consumer id \"%s\": a consumer file name must not contain '/' or \"..\"",
						id);
	return true;
}

char *
ts_consumer_path(const char *branch_root, const char *id)
{
	return ts_psprintf("%s/consumer/consumer-%s", branch_root, id);
}

bool
ts_consumer_parse(const char *json, size_t len, const char *what, int64_t *next_snapshot,
				  ts_err *err)
{
	cJSON	   *root = ts_json_parse(json, len, what, err);
	bool		ok;

	if (root == NULL)
		return false;
	if (!cJSON_IsObject(root))
	{
		cJSON_Delete(root);
		return ts_error(err, TS_ERR_CORRUPT, "%s: a consumer file must hold a JSON object", what);
	}
	err->code = TS_OK;
	ok = ts_json_int64(root, "nextSnapshot", next_snapshot, what, err);
	cJSON_Delete(root);
	if (!ok)
		return err->code != TS_OK ? false :
			ts_error(err, TS_ERR_CORRUPT, "%s: no nextSnapshot", what);
	if (*next_snapshot <= 0)
		return ts_error(err, TS_ERR_CORRUPT, "%s: nextSnapshot %" PRId64 " is not a snapshot id",
						what, *next_snapshot);
	return true;
}

bool
ts_consumer_read(ts_fs *fs, const char *branch_root, const char *id, bool *exists,
				 int64_t *next_snapshot, ts_err *err)
{
	char	   *path = ts_consumer_path(branch_root, id);
	char	   *what;
	uint8_t    *data = NULL;
	size_t		len = 0;
	bool		ok;

	*exists = false;
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	if (!ts_fs_read_whole(fs, path, CONSUMER_FILE_MAX_BYTES, &data, &len, err))
	{
		ok = err->code == TS_ERR_NOT_FOUND;
		if (ok)
			err->code = TS_OK;
		ts_free(path);
		return ok;
	}
	*exists = true;
	what = ts_psprintf("consumer file \"%s\"", path);
	ok = what != NULL ? ts_consumer_parse((const char *) data, len, what, next_snapshot, err) :
		ts_error_nomem(err, NULL);
	ts_free(what);
	ts_free(data);
	ts_free(path);
	return ok;
}

bool
ts_consumer_writable(ts_fs *fs, const char *branch_root, ts_err *err)
{
	char	   *dir = ts_psprintf("%s/consumer", branch_root);
	bool		ok;

	if (dir == NULL)
		return ts_error_nomem(err, NULL);
	ok = ts_fs_check_writes(fs, dir, err);
	ts_free(dir);
	return ok;
}

bool
ts_consumer_write(ts_fs *fs, const char *path, int64_t next_snapshot, ts_err *err)
{
	char		json[64];
	int			n = snprintf(json, sizeof(json), "{\n  \"nextSnapshot\" : %" PRId64 "\n}",
							 next_snapshot);

	return ts_fs_put(fs, path, json, (size_t) n, err);
}
