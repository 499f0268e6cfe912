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
#include <stdlib.h>
#include <string.h>

#include "read/deletion_vector.h"
#include "read/read.h"
#include "read/read_internal.h"
#include "expr/predicate.h"

bool
ts_plan_countable(const ts_plan *plan, const char **why)
{
	const char *reason = NULL;

	if (plan->kind == TS_TABLE_PRIMARY_KEY)
		reason = "primary-key tables are merged on read";
	else if (plan->kind == TS_TABLE_FORMAT)
		reason = "format tables have no row counts in metadata";
	else if (plan->core.data_evolution)
		reason = "data-evolution tables share row ranges between files";
	else if (plan->fallback && !ts_plan_countable(plan->fallback, &reason))
		;						/* the fallback branch's reason */
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
file_rows(const ts_plan *plan, const ts_scan_file *file, int64_t *rows, ts_err *err)
{
	ts_deletion_vector *dv;
	int64_t		n = file->entry->file.row_count;

	*rows = n;
	if (file->dv_path == NULL)
		return true;
	dv = ts_dv_load(plan->fs, file->dv_path, file->dv_offset, file->dv_length, err);
	if (dv == NULL)
		return ts_error_context(err, "data file \"%s\"", ts_scan_file_label(plan, file));
	if (file->dv_cardinality >= 0 && ts_dv_cardinality(dv) != file->dv_cardinality)
	{
		ts_error(err, TS_ERR_CORRUPT,
				 "deletion vector \"%s\" of data file \"%s\": cardinality %lld, index manifest says %lld",
				 file->dv_path, ts_scan_file_label(plan, file), (long long) ts_dv_cardinality(dv),
				 (long long) file->dv_cardinality);
		ts_dv_free(dv);
		return false;
	}
	*rows = n - ts_dv_count_below(dv, n);
	ts_dv_free(dv);
	return true;
}

/* Is the plan countable with pred?  (the shared checks of both counts) */
static bool
check_countable(ts_plan *plan, const struct ts_predicate *pred, ts_err *err)
{
	const char *why;

	if (!ts_plan_countable(plan, &why))
		return ts_error(err, TS_ERR_UNSUPPORTED, "table \"%s\": cannot count rows from metadata: %s",
						plan->table_path, why);
	if (pred && !ts_predicate_exact_on_partitions(pred, plan->schema))
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": cannot count rows from metadata: the filter is not on partition keys alone",
						plan->table_path);
	return true;
}

/* Rows of one split whose partition satisfies pred (0 when it does not). */
static bool
split_rows(ts_plan *plan, const ts_split *split, const struct ts_predicate *pred,
		   int64_t *rows, ts_count_metrics *metrics, ts_err *err)
{
	*rows = 0;
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
			return true;
	}
	for (int f = 0; f < split->nfiles; f++)
	{
		int64_t		n;

		if (!file_rows(plan, &split->files[f], &n, err))
			return false;
		*rows += n;
		if (metrics)
		{
			metrics->files_counted++;
			metrics->deletion_vectors_read += split->files[f].dv_path != NULL;
		}
	}
	return true;
}

bool
ts_plan_count_rows(ts_plan *plan, const struct ts_predicate *pred, int64_t *rows,
				   ts_count_metrics *metrics, ts_err *err)
{
	int64_t		total = 0;

	*rows = 0;
	if (!check_countable(plan, pred, err))
		return false;
	for (int s = 0; s < plan->nsplits; s++)
	{
		int64_t		n;

		if (!split_rows(plan, &plan->splits[s], pred, &n, metrics, err))
			return false;
		total += n;
	}
	*rows = total;
	return true;
}

/* ---- counts per group of partition-key values --------------------------- */

typedef struct split_count
{
	const ts_value *const *values;	/* per key */
	int64_t		rows;
} split_count;

static const ts_type *const *sort_types;	/* qsort context */
static int	sort_nkeys;

static int
cmp_split_count(const void *a, const void *b)
{
	const split_count *x = a;
	const split_count *y = b;

	for (int k = 0; k < sort_nkeys; k++)
	{
		int			c = ts_value_compare(x->values[k], y->values[k], sort_types[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

bool
ts_plan_count_groups(ts_plan *plan, const struct ts_predicate *pred,
					 const int *key_fields, int nkeys,
					 ts_count_group **groups, int *ngroups,
					 ts_count_metrics *metrics, ts_err *err)
{
	const ts_schema *schema = plan->schema;
	int		   *key_index = NULL;
	const ts_type **types = NULL;
	split_count *counts = NULL;
	const ts_value **slots = NULL;
	ts_count_group *out = NULL;
	int			n = 0,
				g = 0;
	bool		ok = false;

	*groups = NULL;
	*ngroups = 0;
	if (!check_countable(plan, pred, err))
		return false;
	key_index = ts_calloc(nkeys > 0 ? nkeys : 1, sizeof(int));
	types = ts_calloc(nkeys > 0 ? nkeys : 1, sizeof(ts_type *));
	counts = ts_calloc(plan->nsplits > 0 ? plan->nsplits : 1, sizeof(split_count));
	slots = ts_calloc((size_t) (plan->nsplits > 0 ? plan->nsplits : 1) * (nkeys > 0 ? nkeys : 1),
					  sizeof(ts_value *));
	if (!key_index || !types || !counts || !slots)
	{
		ts_error_nomem(err, NULL);
		goto done;
	}
	for (int k = 0; k < nkeys; k++)
	{
		key_index[k] = -1;
		if (key_fields[k] >= 0 && key_fields[k] < schema->nfields)
			for (int p = 0; p < schema->npartition_keys; p++)
				if (strcmp(schema->partition_keys[p], schema->fields[key_fields[k]].name) == 0)
					key_index[k] = p;
		if (key_index[k] < 0)
		{
			ts_error(err, TS_ERR_INVALID, "table \"%s\": group key %d is not a partition key",
					 plan->table_path, k);
			goto done;
		}
		types[k] = schema->fields[key_fields[k]].type;
	}

	/* rows per split, keeping the splits that have some */
	for (int s = 0; s < plan->nsplits; s++)
	{
		const ts_split *split = &plan->splits[s];
		int64_t		rows;

		if (!split_rows(plan, split, pred, &rows, metrics, err))
			goto done;
		if (rows == 0)
			continue;
		if (split->partition_values == NULL && nkeys > 0)
		{
			ts_error(err, TS_ERR_CORRUPT, "table \"%s\": split without partition values",
					 plan->table_path);
			goto done;
		}
		for (int k = 0; k < nkeys; k++)
			slots[(size_t) n * nkeys + k] = &split->partition_values[key_index[k]];
		counts[n].values = &slots[(size_t) n * nkeys];
		counts[n].rows = rows;
		n++;
	}

	/* sort by the key values and add up equal neighbours */
	sort_types = types;
	sort_nkeys = nkeys;
	if (n > 1)
		qsort(counts, n, sizeof(split_count), cmp_split_count);
	out = ts_arena_alloc(&plan->arena, sizeof(ts_count_group) * (n > 0 ? n : 1));
	if (out == NULL)
	{
		ts_error_nomem(err, NULL);
		goto done;
	}
	for (int i = 0; i < n; i++)
	{
		if (g > 0 && cmp_split_count(&counts[i - 1], &counts[i]) == 0)
		{
			out[g - 1].rows += counts[i].rows;
			continue;
		}
		out[g].values = ts_arena_alloc(&plan->arena, sizeof(ts_value) * (nkeys > 0 ? nkeys : 1));
		if (out[g].values == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
		for (int k = 0; k < nkeys; k++)
			out[g].values[k] = *counts[i].values[k];
		out[g].rows = counts[i].rows;
		g++;
	}
	*groups = out;
	*ngroups = g;
	ok = true;

done:
	ts_free(key_index);
	ts_free(types);
	ts_free(counts);
	ts_free(slots);
	return ok;
}
