/*
 * stats_prune.c - skip data files whose value statistics prove the
 * predicate false (PAIMON-FORMAT.md 10).
 *
 * Owns: the per-file decision from _VALUE_STATS: expanding dense stats
 * (_VALUE_STATS_COLS) to the file schema, mapping read-schema columns to
 * file columns by field id (a column added later is all NULL; a column
 * whose type changed is unknown), and evaluating the predicate as "may
 * some row match?".  Used for append tables and for primary-key tables
 * whose batch reads skip level 0 (DV / first-row), where files never need
 * merging.  The decision itself is stats_match.c's.  Strings compare as
 * unsigned bytes, and truncated string stats are only used as bounds.
 * Timestamp min / max of ORC files are not used: Java Paimon takes them
 * from the ORC footer through java.sql.Timestamp in the writer's zone, so
 * TIMESTAMP WITH LOCAL TIME ZONE bounds come out shifted by the zone offset
 * and TIMESTAMP bounds shifted where the zone's historical offset differs
 * (1899 in Asia/Shanghai: 5 min 43 s).  Any doubt keeps the file.
 */
#include <string.h>

#include "meta/binary_row.h"
#include "scan/scan_internal.h"
#include "expr/stats_match.h"

typedef struct file_stats
{
	ts_plan    *plan;
	scan_state *st;
	const ts_manifest_entry *e;
	const ts_schema *fs;		/* schema the file was written with */
	int			ncols;			/* stats columns */
	int		   *col_field;		/* stats column -> file schema field index */
	ts_value   *mins;
	ts_value   *maxs;
	bool		decoded;
} file_stats;

static bool
load_stats(file_stats *fst, ts_err *err)
{
	ts_plan    *plan = fst->plan;
	const ts_data_file_meta *f = &fst->e->file;
	const ts_type **types;
	ts_err		ignored;
	int			i;

	fst->fs = ts_plan_schema(plan, f->schema_id, err);
	if (fst->fs == NULL)
		return false;
	fst->ncols = f->nvalue_stats_cols < 0 ? fst->fs->nfields : f->nvalue_stats_cols;
	fst->col_field = ts_arena_alloc(&plan->arena, sizeof(int) * (fst->ncols + 1));
	types = ts_arena_alloc(&plan->arena, sizeof(ts_type *) * (fst->ncols + 1));
	fst->mins = ts_arena_alloc(&plan->arena, sizeof(ts_value) * (fst->ncols + 1));
	fst->maxs = ts_arena_alloc(&plan->arena, sizeof(ts_value) * (fst->ncols + 1));
	if (!fst->col_field || !types || !fst->mins || !fst->maxs)
		return ts_error_nomem(err, NULL);
	for (i = 0; i < fst->ncols; i++)
	{
		int			fi = f->nvalue_stats_cols < 0 ? i :
			ts_schema_field_index(fst->fs, f->value_stats_cols[i]);

		fst->col_field[i] = fi;
		types[i] = fi >= 0 ? fst->fs->fields[fi].type : NULL;
		if (fi < 0)
		{
			/* stats of a column we cannot name: decode nothing */
			fst->decoded = false;
			return true;
		}
	}
	fst->decoded =
		f->value_stats.min_values.data && f->value_stats.max_values.data &&
		ts_binary_row_decode(f->value_stats.min_values.data, f->value_stats.min_values.len,
							 types, fst->ncols, fst->mins, NULL, &plan->arena, &ignored) &&
		ts_binary_row_decode(f->value_stats.max_values.data, f->value_stats.max_values.len,
							 types, fst->ncols, fst->maxs, NULL, &plan->arena, &ignored);
	return true;
}

/* Are the file's min / max of a column of this type what its rows hold? */
static bool
min_max_trusted(const ts_manifest_entry *e, const ts_type *t)
{
	ts_file_format format;

	if (t->kind != TS_TIMESTAMP && t->kind != TS_TIMESTAMP_LTZ)
		return true;
	/* collected from the values (Avro) or read from Parquet's UTC numbers */
	format = scan_format_from_file_name(e->file.file_name);
	return format == TS_FORMAT_AVRO || format == TS_FORMAT_PARQUET;
}

/* ts_stats_source.column: the file's stats of one read-schema column */
static void
column_stats(void *arg, int read_field, ts_unit_stats *cs)
{
	file_stats *fst = arg;
	const ts_field *rf;
	int			fi;
	int			i;

	memset(cs, 0, sizeof(*cs));
	cs->null_count = -1;
	cs->row_count = fst->e->file.row_count;
	if (read_field >= fst->plan->schema->nfields)
		return;
	rf = &fst->plan->schema->fields[read_field];
	/* an explicit partition_filter replaces the predicate's partition part (as Paimon) */
	if (fst->st->nfilters > 0 && ts_schema_is_partition_key(fst->plan->schema, rf->name))
		return;
	fi = ts_schema_field_index_by_id(fst->fs, rf->id);
	if (fi < 0)
	{
		/* added after the file was written: every row is NULL */
		cs->known = true;
		cs->null_count = fst->e->file.row_count;
		return;
	}
	if (!ts_type_equal(fst->fs->fields[fi].type, rf->type))
		return;					/* type changed: unsafe */
	for (i = 0; i < fst->ncols; i++)
		if (fst->col_field[i] == fi)
			break;
	if (i == fst->ncols)
		return;					/* no stats for this column */
	cs->known = true;
	if (fst->e->file.value_stats.nnull_counts > i)
		cs->null_count = fst->e->file.value_stats.null_counts[i];
	if (fst->decoded && !fst->mins[i].isnull && !fst->maxs[i].isnull &&
		min_max_trusted(fst->e, rf->type))
	{
		cs->has_min_max = true;
		cs->min = fst->mins[i];
		cs->max = fst->maxs[i];
	}
}

static const ts_type *
read_field_type(void *arg, int field)
{
	return ((file_stats *) arg)->plan->schema->fields[field].type;
}

bool
scan_stats_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
				bool *keep, ts_err *err)
{
	file_stats	fst;
	ts_stats_source src;
	*keep = true;
	if (st->ctx->predicate == NULL || !st->ctx->enable_pruning)
		return true;
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		/* per-file value stats are only safe where files are never merged */
		if (!st->skip_level0)
			return true;
		if (plan->core.merge_engine == TS_MERGE_PARTIAL_UPDATE ||
			plan->core.merge_engine == TS_MERGE_AGGREGATION)
			return true;
	}
	if (e->file.nwrite_cols >= 0 || st->data_evolution)
		return true;			/* data evolution: a file holds only some columns */
	memset(&fst, 0, sizeof(fst));
	fst.plan = plan;
	fst.st = st;
	fst.e = e;
	if (!load_stats(&fst, err))
		return false;
	src.column = column_stats;
	src.compare = ts_value_order;
	src.arg = &fst;
	src.field_type = read_field_type;
	*keep = ts_stats_may_match(st->ctx->predicate, &src);
	return true;
}
