/*
 * file_index_read.c - sidecar file indexes consulted before a data file is
 * read (Java's FileIndexEvaluator at read time).
 *
 * Owns: finding a data file's sidecar index (the _EXTRA_FILES name ending
 * in ".index", next to the data file, external paths included), reading
 * it, and asking the plan's file-index evaluation (scan/index_prune.c)
 * whether the file may hold rows of the predicate.  Only where the plan
 * uses file indexes and the file is read on its own.  A sidecar that does
 * not exist is not used (it cannot make rows appear or vanish); one that
 * does not decode is an error naming it.
 */
#include <string.h>

#include "base/ts_fs.h"
#include "base/ts_s3.h"
#include "read/read_internal.h"

static const char *
sidecar_name(const ts_manifest_entry *e)
{
	for (int i = 0; i < e->file.nextra_files; i++)
	{
		const char *x = e->file.extra_files[i];
		size_t		n = x ? strlen(x) : 0;

		if (n > 6 && strcmp(x + n - 6, ".index") == 0 && strchr(x, '/') == NULL)
			return x;
	}
	return NULL;
}

bool
ts_read_file_index_skips(ts_plan *plan, const ts_scan_file *file, bool *skip, ts_err *err)
{
	const char *name;
	const char *slash;
	char	   *path;
	uint8_t    *data = NULL;
	size_t		len = 0;
	bool		may = true;
	bool		ok;
	ts_err		rerr = {0};

	*skip = false;
	if (plan->predicate == NULL || !ts_plan_uses_file_index(plan) || file->entry == NULL ||
		file->path == NULL || file->entry->file.embedded_file_index.data != NULL)
		return true;			/* an embedded index was used while planning */
	name = sidecar_name(file->entry);
	if (name == NULL)
		return true;
	slash = strrchr(file->path, '/');
	if (slash == NULL)
		return true;
	path = ts_psprintf("%.*s/%s", (int) (slash - file->path), file->path, name);
	if (path == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory");
	/*
	 * An object is read at once (a missing one answers 404: a request less
	 * than asking first); a local file is checked first, as before.
	 */
	if (!ts_uri_is_object(path) && !ts_path_is_file(path))
	{
		ts_free(path);
		return true;
	}
	if (!ts_read_whole_file(path, &data, &len, &rerr))
	{
		ts_free(path);
		if (rerr.code == TS_ERR_NOT_FOUND || rerr.code == TS_ERR_DENIED)
			return true;		/* no index file (or none we may read): the data file is read */
		if (err)
			*err = rerr;
		return false;
	}
	ok = ts_plan_file_index_may_match(plan, file->entry, plan->predicate, data, len, &may,
									  NULL, err);
	if (!ok)
		ts_error_context(err, "index file \"%s\"", path);
	ts_free(data);
	ts_free(path);
	*skip = ok && !may;
	return ok;
}
