/*
 * row_count.c - the rows of an append-table plan, from metadata alone.
 *
 * Owns: what count(*) pushdown executes.  For an append-only table every
 * row of a live data file is a row of the table except those its deletion
 * vector deletes, so the count is the manifests' row counts minus the
 * deleted positions, over the files whose partition satisfies a predicate
 * on partition keys.  No data file is opened; deletion vectors are loaded
 * (and checked against the index manifest as the reader does).  Tables
 * whose files do not each hold distinct rows are not countable this way:
 * primary-key tables (merge), format tables (no row counts) and data
 * evolution (files share row-id ranges).
 */
#include "read/deletion_vector.h"
#include "read/read.h"
#include "read/read_internal.h"
#include "scan/predicate.h"

bool
ts_plan_countable(const ts_plan *plan, const char **why)
{
	const char *reason = NULL;

	if (plan->kind == TS_TABLE_PRIMARY_KEY)
		reason = "primary-key tables are merged on read";
	else if (plan->kind == TS_TABLE_FORMAT)
		reason = "format tables have no row counts in metadata";
	else if (ts_read_option_bool(plan, "data-evolution.enabled", false))
		reason = "data-evolution tables share row ranges between files";
	else
		for (int s = 0; s < plan->nsplits && reason == NULL; s++)
			for (int f = 0; f < plan->splits[s].nfiles; f++)
			{
				const ts_manifest_entry *e = plan->splits[s].files[f].entry;

				if (e == NULL || e->file.nwrite_cols >= 0 || e->file.row_count < 0)
				{
					reason = "a data file holds only some columns or has no row count";
					break;
				}
			}
	if (why)
		*why = reason;
	return reason == NULL;
}

/* Rows of one file that its deletion vector (if any) leaves. */
static bool
file_rows(const ts_scan_file *file, int64_t *rows, ts_err *err)
{
	ts_deletion_vector *dv;
	int64_t		n = file->entry->file.row_count;

	*rows = n;
	if (file->dv_path == NULL)
		return true;
	dv = ts_dv_load(file->dv_path, file->dv_offset, file->dv_length, err);
	if (dv == NULL)
		return ts_error_context(err, "data file \"%s\"", file->path);
	if (file->dv_cardinality >= 0 && ts_dv_cardinality(dv) != file->dv_cardinality)
	{
		ts_error(err, TS_ERR_CORRUPT,
				 "deletion vector \"%s\" of data file \"%s\": cardinality %lld, index manifest says %lld",
				 file->dv_path, file->path, (long long) ts_dv_cardinality(dv),
				 (long long) file->dv_cardinality);
		ts_dv_free(dv);
		return false;
	}
	*rows = n - ts_dv_count_below(dv, n);
	ts_dv_free(dv);
	return true;
}

bool
ts_plan_count_rows(ts_plan *plan, const struct ts_predicate *pred, int64_t *rows,
				   ts_count_metrics *metrics, ts_err *err)
{
	const char *why;
	int64_t		total = 0;

	*rows = 0;
	if (!ts_plan_countable(plan, &why))
		return ts_error(err, TS_ERR_UNSUPPORTED, "table \"%s\": cannot count rows from metadata: %s",
						plan->table_path, why);
	if (pred && !ts_predicate_exact_on_partitions(pred, plan->schema))
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": cannot count rows from metadata: the filter is not on partition keys alone",
						plan->table_path);
	for (int s = 0; s < plan->nsplits; s++)
	{
		const ts_split *split = &plan->splits[s];

		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		if (pred)
		{
			int			holds = ts_split_partition_satisfies(plan, split, pred);

			if (holds < 0)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"table \"%s\": cannot decide the filter on a partition exactly",
								plan->table_path);
			if (holds == 0)
				continue;
		}
		for (int f = 0; f < split->nfiles; f++)
		{
			int64_t		n;

			if (!file_rows(&split->files[f], &n, err))
				return false;
			total += n;
			if (metrics)
			{
				metrics->files_counted++;
				metrics->deletion_vectors_read += split->files[f].dv_path != NULL;
			}
		}
	}
	*rows = total;
	return true;
}
