/*
 * file_index_read.c - file indexes consulted while a data file is read
 * (Java's FileIndexEvaluator at read time, and its BitmapIndexResult
 * applied as a row selection).
 *
 * Owns: finding a data file's index (the embedded one of its manifest
 * entry, else the sidecar: the _EXTRA_FILES name ending in ".index", next
 * to the data file, external paths included; ts_scan_file.index_path),
 * reading it, and asking the
 * plan's file-index evaluation (scan/index_prune.c) whether the file may
 * hold rows of the predicate and, where bitmap-like indexes (bitmap, BSI,
 * range-bitmap) answer, which rows may: the row selection the data file
 * reader applies (ts_row_selection_*, below); and the indexes of a file
 * as text (tablescan_files()).  A selection is a superset
 * of the rows satisfying the predicate (an index never drops a row that
 * could match), and PostgreSQL rechecks every qual, so it changes what is
 * decoded, never what a query returns.  Only where the plan uses file
 * indexes and the file is read on its own.  A sidecar that does not exist
 * is not used (it cannot make rows appear or vanish); one that does not
 * decode is an error naming it.
 */
#include <string.h>

#include <roaring/roaring.h>

#include "base/ts_fs.h"
#include "base/ts_s3.h"
#include "format/fileindex/file_index.h"
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
ts_read_file_index(ts_plan *plan, const ts_scan_file *file, bool *skip, void **selection,
				   ts_err *err)
{
	const ts_bytes *embedded;
	const char *name;
	const char *slash;
	char	   *path;
	uint8_t    *data = NULL;
	size_t		len = 0;
	bool		may = true;
	bool		ok;
	ts_err		rerr = {0};

	*skip = false;
	*selection = NULL;
	if (plan->predicate == NULL || !ts_plan_uses_file_index(plan) || file->entry == NULL)
		return true;
	embedded = &file->entry->file.embedded_file_index;
	if (embedded->data != NULL)
	{
		/* planning excluded the file if this index rules it out: rows only */
		ok = ts_plan_file_index_may_match(plan, file->entry, plan->predicate, embedded->data,
										  embedded->len, &may, selection, err);
		*skip = ok && !may;
		return ok;
	}
	if (file->index_path != NULL)
		path = ts_psprintf("%s", file->index_path);	/* the plan's (scan/splits.c) */
	else
	{
		const char *fpath;

		name = sidecar_name(file->entry);
		if (name == NULL)
			return true;
		if ((fpath = ts_scan_file_path(plan, file, err)) == NULL)
			return false;
		slash = strrchr(fpath, '/');
		if (slash == NULL)
			return true;
		path = ts_psprintf("%.*s/%s", (int) (slash - fpath), fpath, name);
	}
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	/*
	 * An object is read at once (a missing one answers 404: a request less
	 * than asking first), from the window its data file was fetched with
	 * when there is one (ts_side_files); a local file is checked first, as
	 * before.
	 */
	if (!ts_fs_path_is_remote(plan->fs, path) && !ts_path_is_file(plan->fs, path))
	{
		ts_free(path);
		return true;
	}
	if (!ts_read_whole_file(plan->fs, path, &data, &len, &rerr))
	{
		ts_free(path);
		if (rerr.code == TS_ERR_NOT_FOUND || rerr.code == TS_ERR_DENIED)
			return true;		/* no index file (or none we may read): the data file is read */
		if (err)
			*err = rerr;
		return false;
	}
	ok = ts_plan_file_index_may_match(plan, file->entry, plan->predicate, data, len, &may,
									  selection, err);
	if (!ok)
		ts_error_context(err, "index file \"%s\"", path);
	ts_free(data);
	ts_free(path);
	*skip = ok && !may;
	if (*skip)
		ts_row_selection_free(*selection), *selection = NULL;
	return ok;
}

bool
ts_read_file_index_wants_sidecar(const ts_plan *plan, const ts_scan_file *file)
{
	return file->index_path != NULL && plan != NULL && plan->predicate != NULL &&
		ts_plan_uses_file_index(plan) && file->entry != NULL &&
		file->entry->file.embedded_file_index.data == NULL;
}

bool
ts_read_file_index_describe(ts_plan *plan, const ts_scan_file *file, char **desc,
							const char **sidecar, ts_err *err)
{
	const ts_bytes *embedded;
	const char *name;
	const char *slash;
	char	   *path;
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_file_index fi;
	bool		ok = true;
	const char *fpath;

	*desc = NULL;
	*sidecar = NULL;
	if (file->entry == NULL)
		return true;
	embedded = &file->entry->file.embedded_file_index;
	if (embedded->data != NULL)
	{
		if (!ts_file_index_parse(embedded->data, embedded->len, &fi, err))
			return ts_error_context(err, "file index of data file \"%s\"",
									file->entry->file.file_name);
		*desc = ts_file_index_describe(&fi);
		ts_file_index_free(&fi);
		return *desc != NULL || ts_error_nomem(err, NULL);
	}
	name = sidecar_name(file->entry);
	if (name == NULL)
		return true;
	if ((fpath = ts_scan_file_path(plan, file, err)) == NULL)
		return false;
	if ((slash = strrchr(fpath, '/')) == NULL)
		return true;
	*sidecar = name;
	path = ts_psprintf("%.*s/%s", (int) (slash - fpath), fpath, name);
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	if (!ts_path_is_file(plan->fs, path))
	{
		ts_free(path);
		return true;			/* listed but absent: described as nothing */
	}
	if (!ts_read_whole_file(plan->fs, path, &data, &len, err))
		ok = false;
	else if (!ts_file_index_parse(data, len, &fi, err))
		ok = false;
	else
	{
		*desc = ts_file_index_describe(&fi);
		ts_file_index_free(&fi);
		if (*desc == NULL)
			ok = ts_error_nomem(err, NULL);
	}
	if (!ok)
		ts_error_context(err, "index file \"%s\"", path);
	ts_free(data);
	ts_free(path);
	return ok;
}

/* ---- row selections --------------------------------------------------- */

bool
ts_row_selection_has(const void *sel, int64_t pos)
{
	if (sel == NULL)
		return true;
	return pos >= 0 && pos <= UINT32_MAX && roaring_bitmap_contains(sel, (uint32_t) pos);
}

int64_t
ts_row_selection_count(const void *sel, int64_t first, int64_t n)
{
	uint64_t	start,
				end;

	if (sel == NULL)
		return n;
	if (n <= 0 || first > UINT32_MAX)
		return 0;
	start = first < 0 ? 0 : (uint64_t) first;
	end = (uint64_t) first + (uint64_t) n;
	if (end > (uint64_t) UINT32_MAX + 1)
		end = (uint64_t) UINT32_MAX + 1;
	return start >= end ? 0 : (int64_t) roaring_bitmap_range_cardinality(sel, start, end);
}

void
ts_row_selection_free(void *sel)
{
	if (sel)
		roaring_bitmap_free(sel);
}
