/*
 * snapshot.c - Paimon snapshots, LATEST/EARLIEST hints and tags
 * (PAIMON-FORMAT.md 1.11, 3.1, 3.2).
 *
 * Owns: parsing snapshot JSON (unknown keys ignored, explicit nulls
 * tolerated, 64-bit ids exact), the hint rules with the directory-listing
 * fallback (names that are not snapshot-<long> are ignored), and tag files
 * (a snapshot JSON plus tag fields, which are ignored here).
 */
#include "meta/snapshot.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"
#include "meta/meta_json.h"

void
ts_snapshot_free(ts_snapshot *s)
{
	if (s == NULL)
		return;
	ts_free(s->base_manifest_list);
	ts_free(s->delta_manifest_list);
	ts_free(s->changelog_manifest_list);
	ts_free(s->index_manifest);
	ts_free(s->commit_user);
	ts_free(s->commit_kind);
	ts_free(s->uuid);
	ts_free(s);
}

static bool
dup_string(const cJSON *root, const char *key, char **out, bool required,
		   const char *what, ts_err *err)
{
	const char *v = NULL;

	err->code = TS_OK;
	if (!ts_json_string(root, key, &v, what, err))
	{
		if (err->code != TS_OK)
			return false;
		if (required)
			return ts_error(err, TS_ERR_CORRUPT, "%s: snapshot has no \"%s\"", what, key);
		return true;
	}
	if ((*out = ts_strdup(v)) == NULL)
		return ts_error_nomem(err, NULL);
	return true;
}

static bool
get_int64(const cJSON *root, const char *key, int64_t *out, bool *present, bool required,
		  const char *what, ts_err *err)
{
	bool		got;

	err->code = TS_OK;
	got = ts_json_int64(root, key, out, what, err);
	if (!got && err->code != TS_OK)
		return false;
	if (!got && required)
		return ts_error(err, TS_ERR_CORRUPT, "%s: snapshot has no \"%s\"", what, key);
	if (present)
		*present = got;
	return true;
}

ts_snapshot *
ts_snapshot_parse(const char *json, size_t len, const char *what, ts_err *err)
{
	cJSON	   *root;
	ts_snapshot *s;
	ts_err		local;
	int64_t		v;
	bool		present;

	if (err == NULL)
		err = &local;
	if (what == NULL)
		what = "snapshot";
	root = ts_json_parse(json, len, what, err);
	if (root == NULL)
		return NULL;
	if (!cJSON_IsObject(root))
	{
		cJSON_Delete(root);
		ts_error(err, TS_ERR_CORRUPT, "%s: snapshot is not a JSON object", what);
		return NULL;
	}
	s = ts_calloc(1, sizeof(ts_snapshot));
	if (s == NULL)
	{
		cJSON_Delete(root);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	s->version = 1;
	s->total_record_count = -1;
	s->delta_record_count = -1;
	s->base_manifest_list_size = -1;
	s->delta_manifest_list_size = -1;
	s->changelog_manifest_list_size = -1;
	v = 1;
	if (!get_int64(root, "version", &v, NULL, false, what, err))
		goto fail;
	s->version = (int) v;
	if (!get_int64(root, "id", &s->id, NULL, true, what, err) ||
		!get_int64(root, "schemaId", &s->schema_id, NULL, true, what, err) ||
		!dup_string(root, "baseManifestList", &s->base_manifest_list, true, what, err) ||
		!dup_string(root, "deltaManifestList", &s->delta_manifest_list, true, what, err) ||
		!dup_string(root, "changelogManifestList", &s->changelog_manifest_list, false, what, err) ||
		!get_int64(root, "baseManifestListSize", &s->base_manifest_list_size, NULL, false, what, err) ||
		!get_int64(root, "deltaManifestListSize", &s->delta_manifest_list_size, NULL, false, what, err) ||
		!get_int64(root, "changelogManifestListSize", &s->changelog_manifest_list_size, NULL, false,
				   what, err) ||
		!dup_string(root, "indexManifest", &s->index_manifest, false, what, err) ||
		!dup_string(root, "commitUser", &s->commit_user, false, what, err) ||
		!get_int64(root, "commitIdentifier", &s->commit_identifier, NULL, false, what, err) ||
		!dup_string(root, "commitKind", &s->commit_kind, false, what, err) ||
		!get_int64(root, "timeMillis", &s->time_millis, NULL, false, what, err) ||
		!get_int64(root, "totalRecordCount", &s->total_record_count, NULL, false, what, err) ||
		!get_int64(root, "deltaRecordCount", &s->delta_record_count, NULL, false, what, err) ||
		!dup_string(root, "uuid", &s->uuid, false, what, err))
		goto fail;
	if (!get_int64(root, "watermark", &v, &present, false, what, err))
		goto fail;
	/* Long.MIN_VALUE means "no watermark" */
	if (present && v != INT64_MIN)
	{
		s->has_watermark = true;
		s->watermark = v;
	}
	if (!get_int64(root, "nextRowId", &s->next_row_id, &s->has_next_row_id, false, what, err))
		goto fail;
	if (s->id < 0 || s->schema_id < 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "%s: negative snapshot or schema id", what);
		goto fail;
	}
	cJSON_Delete(root);
	return s;
fail:
	cJSON_Delete(root);
	ts_snapshot_free(s);
	return NULL;
}

static ts_snapshot *
load_snapshot_file(ts_fs *fs, const char *path, const char *missing_msg, ts_err *err)
{
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_snapshot *s;

	if (!ts_read_whole_file(fs, path, &data, &len, err))
	{
		if (err && err->code == TS_ERR_NOT_FOUND && missing_msg)
			ts_error(err, TS_ERR_NOT_FOUND, "%s", missing_msg);
		return NULL;
	}
	s = ts_snapshot_parse((const char *) data, len, path, err);
	ts_free(data);
	return s;
}

ts_snapshot *
ts_snapshot_load(ts_fs *fs, const char *branch_root, int64_t id, ts_err *err)
{
	char	   *path = ts_psprintf("%s/snapshot/snapshot-%lld", branch_root, (long long) id);
	char	   *msg = ts_psprintf("snapshot %lld of table \"%s\" does not exist", (long long) id, branch_root);
	ts_snapshot *s = NULL;

	if (path == NULL || msg == NULL)
		ts_error_nomem(err, NULL);
	else
	{
		s = load_snapshot_file(fs, path, msg, err);
		if (s != NULL && s->id != id)
		{
			ts_error(err, TS_ERR_CORRUPT, "%s: snapshot id %lld does not match the file name",
					 path, (long long) s->id);
			ts_snapshot_free(s);
			s = NULL;
		}
	}
	ts_free(path);
	ts_free(msg);
	return s;
}

ts_snapshot *
ts_tag_load(ts_fs *fs, const char *branch_root, const char *tag_name, ts_err *err)
{
	char	   *path;
	char	   *msg;
	ts_snapshot *s = NULL;

	if (tag_name == NULL || *tag_name == '\0' || strchr(tag_name, '/') != NULL)
	{
		ts_error(err, TS_ERR_INVALID, "invalid tag name \"%s\"", tag_name ? tag_name : "");
		return NULL;
	}
	path = ts_psprintf("%s/tag/tag-%s", branch_root, tag_name);
	msg = ts_psprintf("tag \"%s\" of table \"%s\" does not exist", tag_name, branch_root);
	if (path == NULL || msg == NULL)
		ts_error_nomem(err, NULL);
	else
		s = load_snapshot_file(fs, path, msg, err);
	ts_free(path);
	ts_free(msg);
	return s;
}

/*
 * Read a hint file (decimal text, possibly with surrounding whitespace).
 * Returns false when missing or unparsable (Java tolerates both).
 */
static bool
read_hint(ts_fs *fs, const char *dir, const char *name, int64_t *out)
{
	char	   *path = ts_path_join(dir, name);
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err;
	bool		ok = false;

	if (path == NULL)
		return false;
	/* an object is read at once (a missing hint is just not used): a request less */
	if (((ts_fs_path_caps(fs, path) & TS_FS_CAP_REMOTE) || ts_path_is_file(fs, path)) &&
		ts_read_whole_file(fs, path, &data, &len, &err))
	{
		char	   *p = (char *) data;
		char	   *end;
		long long	v;

		while (isspace((unsigned char) *p))
			p++;
		if (isdigit((unsigned char) *p) || *p == '-')
		{
			errno = 0;
			v = strtoll(p, &end, 10);
			while (isspace((unsigned char) *end))
				end++;
			if (errno == 0 && *end == '\0' && (size_t) (end - (char *) data) == len)
			{
				*out = v;
				ok = true;
			}
		}
	}
	ts_free(data);
	ts_free(path);
	return ok;
}

static bool
snapshot_exists(ts_fs *fs, const char *dir, int64_t id)
{
	char	   *path = ts_psprintf("%s/snapshot-%lld", dir, (long long) id);
	bool		r = path && ts_path_is_file(fs, path);

	ts_free(path);
	return r;
}

/*
 * On an object store, start fetching snapshot-<id> of dir whole, so that
 * it comes in while the HEAD of the snapshot after it is answered (one
 * round trip for both).  NULL: not started (a local fs, or no memory):
 * the snapshot is then read by its own request.
 */
static ts_prefetch *
start_snapshot_fetch(ts_fs *fs, const char *dir, int64_t id)
{
	char	   *path;
	ts_prefetch *p = NULL;
	ts_err		ignore = {0};

	if (!(ts_fs_path_caps(fs, dir) & TS_FS_CAP_REMOTE))
		return NULL;
	path = ts_psprintf("%s/snapshot-%lld", dir, (long long) id);
	if (path != NULL)
		p = ts_prefetch_start(fs, (const char *const *) &path, 1, &ignore);
	ts_free(path);
	return p;
}

/*
 * *id: the latest (or earliest) snapshot id, 0 when there is none.  With
 * hint_only (latest only), a LATEST hint with no snapshot after it is given
 * without checking that its own file exists, and *from_hint says so: the
 * caller GETs it directly and lists on a 404 (ts_snapshot_load_latest);
 * *ahead (hint_only) is then that GET, started with the HEAD of the
 * snapshot after it, for the caller to free once it is loaded.
 */
static bool
find_snapshot_id(ts_fs *fs, const char *branch_root, bool latest, bool hint_only, int64_t *id,
				 bool *from_hint, ts_prefetch **ahead, ts_err *err)
{
	char	   *dir = ts_path_join(branch_root, "snapshot");
	int64_t		hint;
	int64_t    *ids = NULL;
	int			n = 0;
	bool		ok;

	*id = 0;
	if (from_hint)
		*from_hint = false;
	if (dir == NULL)
		return ts_error_nomem(err, NULL);

	/*
	 * No snapshot directory: no snapshot at all.  On an object store that
	 * probe is a listing, and the hint's GET and the listing below answer
	 * it anyway (no hint, nothing listed: id 0): a round trip less.
	 */
	if (!(ts_fs_path_caps(fs, dir) & TS_FS_CAP_REMOTE) && !ts_path_is_dir(fs, dir))
	{
		ts_free(dir);
		return true;
	}
	if (latest)
	{
		bool		have_hint = read_hint(fs, dir, "LATEST", &hint) && hint > 0;

		/*
		 * Java does not check that snapshot-N exists; we do: a hint past
		 * the last snapshot (damaged, or a commit that failed after writing
		 * it) falls back to listing.  With no snapshot file at all, the hint
		 * is kept so that loading it reports the missing snapshot.
		 */
		if (have_hint && hint_only)
			*ahead = start_snapshot_fetch(fs, dir, hint);
		if (have_hint && !snapshot_exists(fs, dir, hint + 1))
		{
			if (hint_only)
			{
				*id = hint;
				*from_hint = true;
				ts_free(dir);
				return true;
			}
			if (snapshot_exists(fs, dir, hint))
			{
				*id = hint;
				ts_free(dir);
				return true;
			}
			ok = ts_list_versioned_ids(fs, dir, "snapshot-", &ids, &n, err);
			*id = ok && n > 0 ? ids[n - 1] : hint;
			ts_free(ids);
			ts_free(dir);
			return ok;
		}
	}
	else if (read_hint(fs, dir, "EARLIEST", &hint) && snapshot_exists(fs, dir, hint))
	{
		*id = hint;
		ts_free(dir);
		return true;
	}
	ok = ts_list_versioned_ids(fs, dir, "snapshot-", &ids, &n, err);
	if (ok && n > 0)
		*id = latest ? ids[n - 1] : ids[0];
	ts_free(ids);
	ts_free(dir);
	return ok;
}

bool
ts_snapshot_latest_begin(ts_fs *fs, const char *branch_root, ts_snapshot_latest *L, ts_err *err)
{
	memset(L, 0, sizeof(*L));
	if (!find_snapshot_id(fs, branch_root, true, true, &L->id, &L->from_hint, &L->ahead, err))
	{
		ts_prefetch_free(L->ahead);
		L->ahead = NULL;
		return false;
	}
	L->begun = true;
	return true;
}

void
ts_snapshot_latest_free(ts_snapshot_latest *L)
{
	if (L == NULL)
		return;
	ts_prefetch_free(L->ahead);
	L->ahead = NULL;
	L->begun = false;
}

bool
ts_snapshot_latest_finish(ts_fs *fs, const char *branch_root, ts_snapshot_latest *L,
						  ts_snapshot **out, ts_err *err)
{
	int64_t		id = L->id;
	ts_err		e2 = {0};
	int64_t    *ids = NULL;
	int			n = 0;
	char	   *dir;
	bool		ok;

	*out = NULL;
	if (id <= 0 || !L->from_hint)
	{
		ts_snapshot_latest_free(L);	/* a hint behind the last snapshot: not that one */
		if (id <= 0)
			return true;
		return (*out = ts_snapshot_load(fs, branch_root, id, err)) != NULL;
	}
	/* the hint's snapshot GET directly (started with the HEAD): a 404 is the HEAD's "missing" */
	*out = ts_snapshot_load(fs, branch_root, id, &e2);
	ts_snapshot_latest_free(L);
	if (*out != NULL)
		return true;
	if (e2.code != TS_ERR_NOT_FOUND)
	{
		if (err)
			*err = e2;
		return false;
	}
	dir = ts_path_join(branch_root, "snapshot");
	if (dir == NULL)
		return ts_error_nomem(err, NULL);
	ok = ts_list_versioned_ids(fs, dir, "snapshot-", &ids, &n, err);
	ts_free(dir);
	if (!ok)
		return false;
	if (n > 0 && ids[n - 1] != id)
		*out = ts_snapshot_load(fs, branch_root, ids[n - 1], err);
	else if (err)
		*err = e2;				/* no snapshot file at all: the hint's is missing */
	ts_free(ids);
	return *out != NULL;
}

bool
ts_snapshot_load_latest(ts_fs *fs, const char *branch_root, ts_snapshot **out, ts_err *err)
{
	ts_snapshot_latest L;

	*out = NULL;
	if (!ts_snapshot_latest_begin(fs, branch_root, &L, err))
		return false;
	return ts_snapshot_latest_finish(fs, branch_root, &L, out, err);
}

bool
ts_snapshot_latest_id(ts_fs *fs, const char *branch_root, int64_t *id, ts_err *err)
{
	return find_snapshot_id(fs, branch_root, true, false, id, NULL, NULL, err);
}

bool
ts_snapshot_earliest_id(ts_fs *fs, const char *branch_root, int64_t *id, ts_err *err)
{
	return find_snapshot_id(fs, branch_root, false, false, id, NULL, NULL, err);
}

bool
ts_snapshot_at_or_before(ts_fs *fs, const char *branch_root, int64_t earliest, int64_t latest,
						 int64_t t, int64_t *found, ts_err *err)
{
	int64_t		lo = earliest,
				hi = latest;

	*found = 0;
	while (lo <= hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;
		ts_snapshot *s;
		int64_t		tm;

		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		s = ts_snapshot_load(fs, branch_root, mid, err);
		if (s == NULL)
			return false;
		tm = s->time_millis;
		ts_snapshot_free(s);
		if (tm <= t)
		{
			*found = mid;
			lo = mid + 1;
		}
		else
			hi = mid - 1;
	}
	return true;
}
