/*
 * index_prune.c - skip data files whose Paimon file index rules the
 * predicate out (LAKE-ACCESS.md 3, format/fileindex/file_index.h).
 *
 * Owns: where file indexes are used (as Java: append tables, and
 * primary-key tables with deletion vectors whose batch reads skip level 0,
 * where files are never merged; not data-evolution files, which hold only
 * some columns; 'file-index.read.enabled', default true; the scan
 * context's no_file_index, GUC tablescan.enable_file_index), the mapping
 * of a predicate's read-schema fields to the index columns (by field id to
 * the column's name in the schema the file was written with, and only
 * when its type there is the read type: an index of a column whose type
 * changed says nothing about the values read), the planning step over the
 * embedded index (_EMBEDDED_FILE_INDEX) and the "Index: bloom f0, ..." list
 * EXPLAIN shows.  A corrupt index is an error naming the file: Java fails
 * the same way, and a wrong answer is never an option.
 */
#include <stdio.h>
#include <string.h>

#include "format/fileindex/file_index.h"
#include "scan/scan_internal.h"

#define MAX_USED 16

typedef struct index_probe
{
	ts_plan    *plan;
	const ts_schema *fs;		/* schema the file was written with */
	scan_state *st;				/* planning: partition_filter rules; NULL at read time */
	bool		record;			/* note the indexes used for EXPLAIN */
	const char *read_name;		/* the read-schema name of the last column probed */
} index_probe;

static bool
probe_column(void *arg, int field, const char **name, const ts_type **type)
{
	index_probe *pr = arg;
	const ts_field *rf;
	int			fi;

	if (field < 0 || field >= pr->plan->schema->nfields)
		return false;
	rf = &pr->plan->schema->fields[field];
	/* as stats_prune.c: an explicit partition_filter replaces the predicate's partition part */
	if (pr->st && pr->st->nfilters > 0 && ts_schema_is_partition_key(pr->plan->schema, rf->name))
		return false;
	fi = ts_schema_field_index_by_id(pr->fs, rf->id);
	if (fi < 0 || !ts_type_equal(pr->fs->fields[fi].type, rf->type))
		return false;
	*name = pr->fs->fields[fi].name;
	*type = rf->type;
	pr->read_name = rf->name;
	return true;
}

static const char *
kind_name(int kind)
{
	return kind == TS_FILE_INDEX_BLOOM ? "bloom" : kind == TS_FILE_INDEX_BITMAP ? "bitmap" :
		kind == TS_FILE_INDEX_BSI ? "bsi" : "range-bitmap";
}

/*
 * Add "kind column" to plan->file_index_used unless it is there; the
 * column by its name in the read schema (the index may name it as an
 * older schema did).
 */
static void
note_used(void *arg, int kind, const char *column)
{
	index_probe *pr = arg;
	ts_plan    *plan = pr->plan;
	char		item[300];
	const char *old = plan->file_index_used;
	size_t		n;

	if (!pr->record)
		return;
	snprintf(item, sizeof(item), "%s %s", kind_name(kind), pr->read_name ? pr->read_name : column);
	n = strlen(item);
	if (old)
	{
		int			count = 0;

		for (const char *p = old; p != NULL; count++)
		{
			const char *end = strstr(p, ", ");
			size_t		len = end ? (size_t) (end - p) : strlen(p);

			if (len == n && memcmp(p, item, n) == 0)
				return;
			p = end ? end + 2 : NULL;
		}
		if (count >= MAX_USED)
			return;
		plan->file_index_used = ts_arena_printf(&plan->arena, "%s, %s", old, item);
	}
	else
		plan->file_index_used = ts_arena_strdup(&plan->arena, item);
	if (plan->file_index_used == NULL)
		plan->file_index_used = (char *) old;	/* out of memory: keep what was */
}

static bool
may_match(ts_plan *plan, scan_state *st, const ts_manifest_entry *e, const ts_predicate *pred,
		  const uint8_t *bytes, size_t len, bool *may, void **rows, ts_err *err)
{
	ts_file_index fi;
	index_probe pr;
	ts_file_index_eval how;
	ts_file_index_result r;

	*may = true;
	if (rows)
		*rows = NULL;
	memset(&pr, 0, sizeof(pr));
	pr.plan = plan;
	pr.st = st;
	pr.record = st != NULL;
	pr.fs = ts_plan_schema(plan, e->file.schema_id, err);
	if (pr.fs == NULL)
		return false;
	if (!ts_file_index_parse(bytes, len, &fi, err))
		return ts_error_context(err, "file index of data file \"%s\"", e->file.file_name);
	how.column = probe_column;
	how.used = note_used;
	how.arg = &pr;
	how.want_rows = rows != NULL;
	if (!ts_file_index_evaluate(&fi, pred, &how, &r, err))
	{
		ts_file_index_free(&fi);
		return ts_error_context(err, "file index of data file \"%s\"", e->file.file_name);
	}
	ts_file_index_free(&fi);
	*may = r.may_match;
	if (rows)
		*rows = r.rows;
	else
		ts_file_index_result_free(&r);
	return true;
}

bool
ts_plan_file_index_may_match(ts_plan *plan, const ts_manifest_entry *e,
							 const ts_predicate *pred, const uint8_t *bytes, size_t len,
							 bool *may, void **rows, ts_err *err)
{
	*may = true;
	if (rows)
		*rows = NULL;
	if (pred == NULL || !plan->use_file_index || e->file.nwrite_cols >= 0)
		return true;
	return may_match(plan, NULL, e, pred, bytes, len, may, rows, err);
}

bool
ts_plan_uses_file_index(const ts_plan *plan)
{
	return plan->use_file_index;
}

void
scan_index_setup(ts_plan *plan, const scan_state *st)
{
	const ts_scan_context *ctx = st->ctx;

	plan->use_file_index = false;
	if (ctx->no_file_index || !ctx->enable_pruning || st->data_evolution ||
		!scan_option_bool(plan, TS_OPT_FILE_INDEX_READ_ENABLED, true))
		return;
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		/* files are read one by one only where deletion vectors replace merging */
		if (!st->dv_enabled || !st->skip_level0)
			return;
		if (plan->core.merge_engine == TS_MERGE_PARTIAL_UPDATE ||
			plan->core.merge_engine == TS_MERGE_AGGREGATION)
			return;
	}
	else if (plan->kind != TS_TABLE_APPEND)
		return;
	plan->use_file_index = true;
}

bool
scan_index_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e, bool *keep,
				ts_err *err)
{
	const ts_bytes *idx = &e->file.embedded_file_index;

	*keep = true;
	if (st->ctx->predicate == NULL || !plan->use_file_index || idx->data == NULL ||
		e->file.nwrite_cols >= 0)
		return true;
	return may_match(plan, st, e, st->ctx->predicate, idx->data, idx->len, keep, NULL, err);
}
