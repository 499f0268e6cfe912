/*
 * file_listing.c - what a user sees of the data files a scan keeps and of
 * their file indexes.
 *
 * Owns: the EXPLAIN (VERBOSE) line "Data File Names" (the names of the
 * first 20 data files the plan kept, and how many more; shown only with
 * VERBOSE: its label carries TS_EXPLAIN_VERBOSE_ONLY), and the two
 * columns tablescan_files() gives each file about its file index:
 * file_index ("bitmap f0, bloom-filter f1": kind and column, as the index
 * names the column) and index_file (the sidecar .index file's name, NULL
 * when the index is embedded in the manifest entry or there is none).
 */
#include "postgres.h"

#include "commands/explain.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "tablescan_fdw.h"
#include "read/read.h"

#define LISTED_FILES 20

List *
tablescan_explain_files(const ts_plan *plan, List *props)
{
	StringInfoData buf;
	int64		n = 0;

	initStringInfo(&buf);
	for (int s = 0; s < plan->nsplits; s++)
		for (int f = 0; f < plan->splits[s].nfiles; f++)
		{
			const ts_scan_file *sf = &plan->splits[s].files[f];
			const char *name = sf->entry ? sf->entry->file.file_name : NULL;
			const char *path;

			if (name == NULL && (path = ts_scan_file_path(plan, sf, NULL)) != NULL)
				name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
			if (n < LISTED_FILES)
				appendStringInfo(&buf, "%s%s", n > 0 ? ", " : "", name ? name : "?");
			n++;
		}
	if (n == 0)
		appendStringInfoString(&buf, "none");
	else if (n > LISTED_FILES)
		appendStringInfo(&buf, " and " INT64_FORMAT " more", n - LISTED_FILES);
	props = lappend(props, makeString(TS_EXPLAIN_VERBOSE_ONLY "Data File Names"));
	return lappend(props, makeString(buf.data));
}

bool
tablescan_explain_hidden(const char **label, struct ExplainState *es)
{
	size_t		n = strlen(TS_EXPLAIN_VERBOSE_ONLY);

	if (strncmp(*label, TS_EXPLAIN_VERBOSE_ONLY, n) != 0)
		return false;
	*label += n;
	return !es->verbose;
}

void
tablescan_files_index(ts_plan *plan, const ts_scan_file *file, Datum *values, bool *nulls)
{
	ts_err		err = {0};
	char	   *desc;
	const char *sidecar;

	if (!ts_read_file_index_describe(plan, file, &desc, &sidecar, &err))
		tablescan_report(&err);
	nulls[0] = desc == NULL;
	if (desc)
	{
		values[0] = CStringGetTextDatum(desc);
		ts_free(desc);
	}
	nulls[1] = sidecar == NULL;
	if (sidecar)
		values[1] = CStringGetTextDatum(sidecar);
}
