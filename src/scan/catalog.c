/*
 * catalog.c - the filesystem catalog's table listing (PAIMON-FORMAT.md 1.1).
 *
 * Owns: ts_list_tables: the child directories of <warehouse>/<db>.db that
 * are Paimon tables (schema/schema-0 exists, or any schema/schema-<N>).
 */
#include <string.h>

#include "base/ts_fs.h"
#include "scan/scan.h"

static bool
is_table_dir(ts_fs *fs, const char *dir, ts_err *err, bool *is_table)
{
	char	   *schema_dir = ts_path_join(dir, "schema");
	int64_t    *ids = NULL;
	int			n = 0;
	ts_err		ignored;

	*is_table = false;
	if (schema_dir == NULL)
		return ts_error_nomem(err, NULL);
	if (ts_path_is_dir(fs, schema_dir) && ts_schema_list_ids(fs, dir, &ids, &n, &ignored) && n > 0)
		*is_table = true;
	ts_free(ids);
	ts_free(schema_dir);
	return true;
}

bool
ts_list_tables(ts_fs *fs, const char *database_dir, char ***names, int *count, ts_err *err)
{
	char	  **children = NULL;
	int			nchildren = 0,
				i,
				n = 0;
	char	  **out;

	*names = NULL;
	*count = 0;
	if (!ts_path_is_dir(fs, database_dir))
		return ts_error(err, TS_ERR_NOT_FOUND, "database directory \"%s\" does not exist",
						database_dir);
	if (!ts_list_dir(fs, database_dir, &children, &nchildren, err))
		return false;
	out = ts_calloc(nchildren ? nchildren : 1, sizeof(char *));
	if (out == NULL)
	{
		ts_free_names(children, nchildren);
		return ts_error_nomem(err, NULL);
	}
	for (i = 0; i < nchildren; i++)
	{
		char	   *path;
		bool		is_table;

		if (children[i][0] == '.')
			continue;
		path = ts_path_join(database_dir, children[i]);
		if (path == NULL || !is_table_dir(fs, path, err, &is_table))
		{
			ts_free(path);
			ts_free_names(out, n);
			ts_free_names(children, nchildren);
			return path ? false : ts_error_nomem(err, NULL);
		}
		ts_free(path);
		if (is_table)
		{
			out[n++] = children[i];
			children[i] = NULL;
		}
	}
	ts_free_names(children, nchildren);
	*names = out;
	*count = n;
	return true;
}
