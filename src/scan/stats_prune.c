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
 * merging.  Strings compare as unsigned bytes, and truncated string stats
 * are only used as bounds.  Any doubt keeps the file.
 */
#include <math.h>
#include <string.h>

#include "meta/binary_row.h"
#include "scan/scan_internal.h"

/* What the stats say about one read-schema column of one file. */
typedef struct col_stats
{
	bool		known;			/* false: nothing can be concluded */
	bool		has_min_max;
	ts_value	min;
	ts_value	max;
	int64_t		null_count;		/* -1 unknown */
} col_stats;

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
		return ts_error(err, TS_ERR_NOMEM, "out of memory");
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

static void
column_stats(file_stats *fst, int read_field, col_stats *cs)
{
	const ts_field *rf = &fst->plan->schema->fields[read_field];
	int			fi = ts_schema_field_index_by_id(fst->fs, rf->id);
	int			i;

	memset(cs, 0, sizeof(*cs));
	cs->null_count = -1;
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
	if (fst->decoded && !fst->mins[i].isnull && !fst->maxs[i].isnull)
	{
		cs->has_min_max = true;
		cs->min = fst->mins[i];
		cs->max = fst->maxs[i];
	}
}

/* May some row of the file satisfy leaf p? */
static bool
leaf_may_match(file_stats *fst, const ts_predicate *p)
{
	const ts_type *t;
	col_stats	cs;
	int64_t		rows = fst->e->file.row_count;
	bool		all_null;
	int			c1,
				c2,
				i;

	if (p->field < 0 || p->field >= fst->plan->schema->nfields)
		return true;
	/* an explicit partition_filter replaces the predicate's partition part (as Paimon) */
	if (fst->st->nfilters > 0 &&
		ts_schema_is_partition_key(fst->plan->schema, fst->plan->schema->fields[p->field].name))
		return true;
	t = fst->plan->schema->fields[p->field].type;
	column_stats(fst, p->field, &cs);
	if (!cs.known)
		return true;
	all_null = cs.null_count >= 0 && cs.null_count >= rows;

	switch (p->op)
	{
		case TS_PRED_IS_NULL:
			return cs.null_count != 0;
		case TS_PRED_IS_NOT_NULL:
			return !all_null;
		case TS_PRED_EQ:
		case TS_PRED_IN:
			if (all_null)
				return p->op == TS_PRED_IN ? false : false;
			if (!cs.has_min_max)
				return true;
			for (i = 0; i < p->nliterals; i++)
			{
				const ts_value *lit = &p->literals[i];

				if (lit->isnull)
					continue;
				if (!ts_predicate_literal_usable(t, p, lit) ||
					!scan_value_compare(t, &cs.min, lit, &c1) ||
					!scan_value_compare(t, &cs.max, lit, &c2))
					return true;
				if (c1 <= 0 && c2 >= 0)
					return true;
			}
			return false;
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
			if (all_null)
				return false;
			if (!cs.has_min_max || p->nliterals < 1 || !ts_predicate_literal_usable(t, p, &p->literals[0]))
				return true;
			if (p->op == TS_PRED_LT || p->op == TS_PRED_LE)
			{
				if (!scan_value_compare(t, &cs.min, &p->literals[0], &c1))
					return true;
				return p->op == TS_PRED_LT ? c1 < 0 : c1 <= 0;
			}
			if (!scan_value_compare(t, &cs.max, &p->literals[0], &c2))
				return true;
			return p->op == TS_PRED_GT ? c2 > 0 : c2 >= 0;
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_STARTS_WITH:
			if (all_null)
				return false;	/* NULL never satisfies them */
			return true;
		default:
			return true;
	}
}

static bool
may_match(file_stats *fst, const ts_predicate *p)
{
	int			i;

	switch (p->op)
	{
		case TS_PRED_AND:
			for (i = 0; i < p->nchildren; i++)
				if (!may_match(fst, &p->children[i]))
					return false;
			return true;
		case TS_PRED_OR:
			for (i = 0; i < p->nchildren; i++)
				if (may_match(fst, &p->children[i]))
					return true;
			return p->nchildren == 0;
		case TS_PRED_NOT:
			return true;
		default:
			return leaf_may_match(fst, p);
	}
}

bool
scan_stats_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
				bool *keep, ts_err *err)
{
	file_stats	fst;
	const char *engine;

	*keep = true;
	if (st->ctx->predicate == NULL || !st->ctx->enable_pruning)
		return true;
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		/* per-file value stats are only safe where files are never merged */
		engine = ts_plan_option(plan, "merge-engine");
		if (!st->skip_level0)
			return true;
		if (engine && (strcmp(engine, "partial-update") == 0 || strcmp(engine, "aggregation") == 0))
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
	*keep = may_match(&fst, st->ctx->predicate);
	return true;
}
