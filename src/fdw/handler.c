/*
 * handler.c - the FDW callbacks, in the order PostgreSQL calls them.
 *
 * Owns: planning (the Paimon scan is planned while PostgreSQL plans, so
 * estimates and EXPLAIN see the pruned file set), the executor iteration
 * over splits and batches (tablescan_scan_next_row / _next_values, which
 * the aggregates computed while scanning read too: scan_aggregate.c),
 * rescans, EXPLAIN output and module setup (_PG_init: GUCs and library
 * hooks).  What the planner hands the executor is numbered by
 * FdwScanPrivateIndex.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"
#include "base/ts_background.h"
#include "read/read.h"
#include "scan/format_plan.h"

PG_MODULE_MAGIC;

extern char *tablescan_scan_options;
bool		tablescan_enable_pruning = true;
bool		tablescan_enable_file_index = true;
bool		tablescan_enable_aggregate_pushdown = true;
static int	tablescan_parallel_task_size_kb = 16384;

/* Executor-side state. */
/*
 * A batch is converted to Datums a window of rows at a time, column by
 * column; a window ends at the batch's end or once its strings pass
 * WINDOW_BYTES.  The row context (values converted one by one) is emptied
 * with each window, or sooner past ROW_CONTEXT_LIMIT.
 */
#define WINDOW_BYTES (1024 * 1024)
#define ROW_CONTEXT_LIMIT (1024 * 1024)

struct TsScanState
{
	/* what is scanned: the node's relation, or the aggregate scan's (scan_aggregate.c) */
	Relation	rel;
	Index		relid;			/* its range-table index in the quals */
	List	   *quals;			/* to prune with (PostgreSQL checks them on the rows) */
	List	   *attnums;		/* attributes needed (0 = all) */
	int64		limit;			/* rows a LIMIT needs, -1 */
	ExprContext *econtext;		/* evaluates Params while pruning */
	bool		quals_have_params;	/* pruned again at run time: EXPLAIN ANALYZE says how */
	MemoryContext cxt;			/* plan, readers */
	MemoryContext rowcxt;		/* Datums of the current row */
	TsTableOptions *opts;
	ts_plan    *plan;
	int			natts;
	int		   *att_field;		/* per attribute: position in columns, -1 */
	int		   *columns;		/* read-schema field indexes to read */
	int			ncolumns;
	const ts_type **col_types;
	TsDatumConverter *conv;		/* per attribute (att_field >= 0) */
	int		   *read_atts;		/* attributes read, in order */
	int			nread_atts;
	int			next_split;
	ts_split_reader *reader;
	ts_bufpool *buffers;		/* file readers' large buffers, kept between files */
	ts_batch	batch;
	int			batch_pos;
	/* the window: rows [win_first, win_end) of the batch as Datums */
	MemoryContext wincxt;		/* their strings and numerics */
	int			win_first;
	int			win_end;
	int			win_capacity;	/* rows of win_values / win_isnull */
	Datum	   *win_values;		/* row r's attributes at r * natts, as in a slot */
	bool	   *win_isnull;
	int		   *win_done;		/* rows converted; the rest one by one */
	Datum	   *row_values;		/* a row past win_done, or of no attribute read */
	bool	   *row_isnull;
	int			win_all_done;	/* the least of win_done */
	int		   *string_fields;	/* batch columns converted as strings in windows */
	int			nstring_fields;
	ts_row_filter *row_filter;	/* rows the predicate rejects, out before conversion */
	int64		rejected_counted;	/* of them, in Rows Removed by Filter already */
	bool		row_allocs;		/* values converted one by one since rowcxt was emptied */
	/* a Parallel Foreign Scan: shared state (parallel.c) and this process's tasks */
	TsParallelScan *pscan;
	TsParallelTask *tasks;
	int			ntasks;
	ts_split	task_split;		/* the split of a one-file task being read */
	ts_scan_file task_file;		/* its file, with the task's byte range */
	/* EXPLAIN ANALYZE figures (of the workers too, once they are done) */
	int64		figures[TS_PARALLEL_NFIGURES];
};

#define FIG_FILES 0
#define FIG_ROWS 1
#define FIG_BYTES 2
#define FIG_ROW_GROUPS_TOTAL 3
#define FIG_ROW_GROUPS_KEPT 4
#define FIG_FILES_INDEX 5

static int	count_parallel_tasks(const ts_plan *plan, const int *columns, int ncolumns);
static void drain_background_before_reset(MemoryContext cxt);
static void close_reader(TsScanState *st);

/* ---- module setup ------------------------------------------------------ */

void		_PG_init(void);

static int	tablescan_cache_size_mb = 64;
static bool tablescan_decompress_ahead = true;

static void
assign_cache_size(int newval, void *extra)
{
	ts_scan_cache_set_limit((size_t) newval << 20);
}

void
_PG_init(void)
{
	DefineCustomStringVariable("tablescan.scan_options",
							   "Paimon scan options for the queries of this session (key=value,...).",
							   "They take precedence over server and foreign table options.",
							   &tablescan_scan_options, "",
							   PGC_USERSET, 0, tablescan_check_scan_options, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_pruning",
							 "Prune partitions, buckets and files while planning Paimon scans.",
							 NULL, &tablescan_enable_pruning, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_file_index",
							 "Use Paimon's file indexes (bloom filter, bitmap, BSI) to skip data files.",
							 "Embedded indexes while planning, sidecar .index files before a file is read.",
							 &tablescan_enable_file_index, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_aggregate_pushdown",
							 "Push aggregates down into Paimon scans.",
							 "When on, count(*) over an append table with no filter or filters on "
							 "partition keys only sums the manifests' row counts instead of reading "
							 "data files, and other plain aggregates of columns are computed while "
							 "scanning, in place of an Aggregate node.",
							 &tablescan_enable_aggregate_pushdown, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.parallel_task_size",
							"Size of the parts a parallel scan reads a large Parquet or ORC file in.",
							"A Parquet or ORC data file of an append or format table larger than this "
							"is handed out to the processes of a parallel scan in parts of this "
							"size (the row groups or stripes that start in each part).",
							&tablescan_parallel_task_size_kb, 16384, 1, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.cache_size",
							"Size of the per-backend cache of live Paimon manifest entries.",
							"0 turns the cache off.",
							&tablescan_cache_size_mb, 64, 0, 1048576,
							PGC_USERSET, GUC_UNIT_MB, NULL, assign_cache_size, NULL);
	DefineCustomBoolVariable("tablescan.decompress_ahead",
							 "Decompress ZSTD Parquet pages and Avro blocks ahead in a helper thread.",
							 "While a serial scan decodes a Parquet page or row group, or an Avro "
							 "block, a helper thread of the backend decompresses the ones it "
							 "will need next.",
							 &tablescan_decompress_ahead, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	tablescan_storage_define_gucs();
	MarkGUCPrefixReserved("tablescan");
	tablescan_install_hooks();
	tablescan_install_session_zone();
	ts_scan_cache_set_limit((size_t) tablescan_cache_size_mb << 20);
}

/* ---- column mapping ---------------------------------------------------- */

/* The Paimon field name a column reads: option column_name, else attname. */
static char *
column_paimon_name(Relation rel, AttrNumber attnum)
{
	List	   *options = GetForeignColumnOptions(RelationGetRelid(rel), attnum);
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "column_name") == 0)
			return defGetString(def);
	}
	return NameStr(TupleDescAttr(RelationGetDescr(rel), attnum - 1)->attname);
}

int *
tablescan_map_columns(Relation rel, const ts_schema *schema)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int		   *map = palloc(sizeof(int) * Max(desc->natts, 1));

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		char	   *name;

		map[i] = -1;
		if (att->attisdropped)
			continue;
		name = column_paimon_name(rel, i + 1);
		map[i] = ts_schema_field_index(schema, name);
		/* a system column (_ROW_ID, ...): a negative pseudo field, never -1 */
		if (map[i] < 0 && ts_system_column(name))
			map[i] = ts_system_column(name);
		else if (map[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("column \"%s\" of foreign table \"%s\" does not exist in the Paimon table",
							name, RelationGetRelationName(rel)),
					 errhint("Paimon field names are case-sensitive; use option column_name to map a column to a field.")));
	}
	return map;
}

const ts_type *
tablescan_column_type(const ts_plan *plan, int field)
{
	return field >= 0 ? plan->schema->fields[field].type : ts_system_column_type(field);
}

/* ---- planning ---------------------------------------------------------- */

/*
 * The rows a LIMIT needs from this scan, when nothing between the scan and
 * the Limit node can drop, reorder or multiply rows: a single-relation query
 * without quals, ORDER BY, grouping or DISTINCT (PostgreSQL already clears
 * limit_tuples for grouping, aggregates, windows and SRFs).  -1 otherwise.
 * The scan then plans only files enough to hold that many rows.
 */
static int64
scan_limit(PlannerInfo *root, RelOptInfo *baserel)
{
	Query	   *parse = root->parse;

	if (root->limit_tuples <= 0 || root->limit_tuples > (double) PG_INT64_MAX / 2)
		return -1;
	if (parse->sortClause != NIL || parse->distinctClause != NIL ||
		parse->hasAggs || parse->groupClause != NIL || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || parse->rowMarks != NIL || parse->setOperations != NULL)
		return -1;
	if (baserel->baserestrictinfo != NIL || baserel->reloptkind != RELOPT_BASEREL ||
		bms_membership(root->all_baserels) != BMS_SINGLETON)
		return -1;
	return (int64) root->limit_tuples;
}

static void
tablescanGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	TsPlanState *ps = palloc0(sizeof(TsPlanState));
	double		rows = 0,
				bytes = 0;
	int		   *att_field;
	List	   *residual = NIL;
	ListCell   *lc;

	Relation	rel;
	RangeTblEntry *rte = planner_rt_fetch(baserel->relid, root);

	/*
	 * PostgreSQL checks the SELECT privilege when the executor starts, after
	 * planning; but planning reads the table's metadata (and leaves it in
	 * tablescan_last_metrics), so a role without the privilege is stopped
	 * here, with the error the executor would raise.
	 */
	if (rte->requiredPerms != 0)
		ExecCheckRTPerms(list_make1(rte), true);
	rel = table_open(foreigntableid, NoLock);
	ps->opts = tablescan_get_options(foreigntableid);
	ps->limit = scan_limit(root, baserel);
	ps->plan = tablescan_plan_relation(ps->opts, rel, baserel->relid,
									   extract_actual_clauses(baserel->baserestrictinfo, false),
									   NULL, ps->limit, &att_field, &ps->predicate);
	ps->att_field = att_field;
	ps->natts = RelationGetDescr(rel)->natts;
	table_close(rel, NoLock);

	/*
	 * Quals on partition keys alone were applied exactly by partition
	 * pruning (the row counts below are those of the kept partitions), so
	 * only the others reduce the estimate further.
	 */
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		Bitmapset  *attrs = NULL;
		bool		partition_only = tablescan_enable_pruning;
		int			x = -1;

		pull_varattnos((Node *) ri->clause, baserel->relid, &attrs);
		if (bms_is_empty(attrs))
			partition_only = false;
		while (partition_only && (x = bms_next_member(attrs, x)) >= 0)
		{
			AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;
			int			field = attno > 0 ? att_field[attno - 1] : -1;

			if (field < 0 ||
				!ts_schema_is_partition_key(ps->plan->schema, ps->plan->schema->fields[field].name))
				partition_only = false;
		}
		if (!partition_only)
			residual = lappend(residual, ri);
	}
	for (int s = 0; s < ps->plan->nsplits; s++)
		for (int f = 0; f < ps->plan->splits[s].nfiles; f++)
		{
			const ts_data_file_meta *fm = &ps->plan->splits[s].files[f].entry->file;

			rows += fm->row_count;
			bytes += fm->file_size;
		}
	ps->rows = rows;
	ps->bytes = bytes;
	baserel->fdw_private = ps;
	/* selectivity of the quals PostgreSQL keeps */
	baserel->rows = clamp_row_est(rows * clauselist_selectivity(root, residual,
																 0, JOIN_INNER, NULL));
	baserel->tuples = rows;
}

/*
 * Cost of reading 'fraction' of the (already pruned) files, the CPU part
 * shared by cpu_divisor processes (1 for a serial scan).
 */
static void
scan_costs(TsPlanState *ps, double fraction, double cpu_divisor, Cost *startup, Cost *total)
{
	*startup = 10;
	*total = *startup + fraction * (seq_page_cost * (ps->bytes / BLCKSZ) +
									cpu_tuple_cost * 2 * ps->rows / cpu_divisor);
}

/*
 * Is this join clause "our column = expression of other rels" with an
 * operator we can push?  Then a nested loop can hand us the value as a
 * Param and we prune per outer row (bucket inference, partition and stats
 * pruning run again at each rescan).
 */
static bool
is_param_join_clause(RelOptInfo *baserel, RestrictInfo *rinfo)
{
	OpExpr	   *op;
	Node	   *l,
			   *r;
	char	   *name;

	if (!IsA(rinfo->clause, OpExpr) || rinfo->pseudoconstant)
		return false;
	op = (OpExpr *) rinfo->clause;
	if (list_length(op->args) != 2 || op->opno >= FirstNormalObjectId)
		return false;
	name = get_opname(op->opno);
	if (name == NULL || strcmp(name, "=") != 0)
		return false;
	l = linitial(op->args);
	r = lsecond(op->args);
	if (IsA(l, Var) && ((Var *) l)->varno == baserel->relid &&
		!bms_is_member(baserel->relid, pull_varnos(NULL, r)))
		return true;
	if (IsA(r, Var) && ((Var *) r)->varno == baserel->relid &&
		!bms_is_member(baserel->relid, pull_varnos(NULL, l)))
		return true;
	return false;
}

/* Equivalence-class member callback: is it our column 'arg'? */
static bool
ec_member_is_column(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
					EquivalenceMember *em, void *arg)
{
	Expr	   *e = em->em_expr;

	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e && IsA(e, Var) && ((Var *) e)->varno == rel->relid &&
		((Var *) e)->varattno == *(AttrNumber *) arg;
}

static List *
param_join_clauses(PlannerInfo *root, RelOptInfo *baserel)
{
	List	   *result = NIL;
	ListCell   *lc;
	int			natts = baserel->max_attr;

	foreach(lc, baserel->joininfo)
		if (is_param_join_clause(baserel, lfirst(lc)))
			result = lappend(result, lfirst(lc));
	if (!baserel->has_eclass_joins)
		return result;
	for (AttrNumber attno = 1; attno <= natts; attno++)
	{
		List	   *clauses = generate_implied_equalities_for_column(root, baserel,
																	 ec_member_is_column,
																	 &attno,
																	 baserel->lateral_referencers);

		foreach(lc, clauses)
			if (is_param_join_clause(baserel, lfirst(lc)))
				result = lappend(result, lfirst(lc));
	}
	return result;
}

/*
 * A partial path: a Parallel Foreign Scan whose tasks (parallel_tasks) are
 * shared out between the leader and the workers.  The number of workers is
 * PostgreSQL's rule for a table of the files' size (min_parallel_table_scan_size
 * and up) or the option parallel_workers (0: no parallel scan), at most one
 * per task beyond the leader's; the CPU part of the
 * cost is divided as for a parallel sequential scan, but by no more than
 * the number of tasks.  A scan of one task has a partial path too (costed
 * as a serial scan): under a Parallel Append, one process reads it while
 * others read the other partitions.
 */
static void
add_parallel_path(PlannerInfo *root, RelOptInfo *baserel, TsPlanState *ps)
{
	int			ntasks;
	int			workers;
	double		divisor;
	Cost		startup,
				total;
	ForeignPath *path;

	if (!baserel->consider_parallel || max_parallel_workers_per_gather <= 0)
		return;
	ntasks = ps->ntasks = count_parallel_tasks(ps->plan, NULL, 0);
	baserel->rel_parallel_workers = ps->opts->parallel_workers;	/* as the heap's reloption */
	workers = Min(compute_parallel_worker(baserel, ps->bytes / BLCKSZ, -1,
										  max_parallel_workers_per_gather),
				  Max(ntasks - 1, 1));
	if (ntasks == 0 || workers <= 0)
		return;
	divisor = workers;
	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;	/* the leader's share, as costsize.c */
	divisor = Min(divisor, ntasks);		/* one task: no faster than a serial scan */
	scan_costs(ps, 1.0, divisor, &startup, &total);
	path = create_foreignscan_path(root, baserel, NULL, clamp_row_est(baserel->rows / divisor),
								   startup, total, NIL, NULL, NULL, NIL);
	path->path.parallel_aware = true;
	path->path.parallel_safe = true;
	path->path.parallel_workers = workers;
	add_partial_path(baserel, (Path *) path);
}

/*
 * A serial (non-partial) path.  It is not parallel safe: a copy of it in a
 * worker (a parallel hash join's inner side, say) would plan the latest
 * snapshot on its own, where the Parallel Foreign Scan pins the leader's.
 */
static void
add_serial_path(RelOptInfo *baserel, ForeignPath *path)
{
	path->path.parallel_safe = false;
	add_path(baserel, (Path *) path);
}

static void
tablescanGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	TsPlanState *ps = baserel->fdw_private;
	Cost		startup,
				total;
	ListCell   *lc;

	scan_costs(ps, 1.0, 1.0, &startup, &total);
	add_serial_path(baserel, create_foreignscan_path(root, baserel, NULL, baserel->rows,
													 startup, total, NIL, NULL, NULL, NIL));
	add_parallel_path(root, baserel, ps);

	/*
	 * Parameterized paths: one per pushable equality join clause, those in
	 * joininfo and those implied by equivalence classes (a = b joins).
	 */
	foreach(lc, param_join_clauses(root, baserel))
	{
		RestrictInfo *rinfo = lfirst(lc);
		Relids		required_outer;
		ParamPathInfo *ppi;
		double		rows;

		if (!is_param_join_clause(baserel, rinfo))
			continue;
		required_outer = bms_difference(rinfo->clause_relids, baserel->relids);
		if (bms_is_empty(required_outer))
			continue;
		ppi = get_baserel_parampathinfo(root, baserel, required_outer);
		rows = ppi->ppi_rows;
		/*
		 * An equality on a value of the data typically reads a small part of
		 * the files (one bucket, one partition, or files whose stats fit);
		 * assume the per-row fraction PostgreSQL's selectivity gives, but
		 * never less than one file's worth.
		 */
		scan_costs(ps, Max(rows / Max(baserel->tuples, 1), 0.01), 1.0, &startup, &total);
		add_serial_path(baserel, create_foreignscan_path(root, baserel, NULL, rows,
														 startup, total, NIL,
														 required_outer, NULL, NIL));
	}
}

/*
 * A "kept of total" property: the label, then a list of the two numbers
 * (as strings: fdw_private must be copyable), printed by
 * tablescan_explain_print as "k of n" in text and as two integer
 * properties "<label> Kept" / "<label> Total" in JSON, YAML and XML.
 */
static List *
explain_pair(List *l, const char *label, int64 kept, int64 total)
{
	l = lappend(l, makeString((char *) label));
	return lappend(l, list_make2(makeString(psprintf(INT64_FORMAT, kept)),
								 makeString(psprintf(INT64_FORMAT, total))));
}

/* "k of n", and "(index skipped m)" when index_skipped > 0 */
static void
explain_kept_total_index(const char *label, int64 kept, int64 total, int64 index_skipped,
						 ExplainState *es)
{
	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText(label,
							index_skipped > 0 ?
							psprintf(INT64_FORMAT " of " INT64_FORMAT " (index skipped " INT64_FORMAT ")",
									 kept, total, index_skipped) :
							psprintf(INT64_FORMAT " of " INT64_FORMAT, kept, total), es);
	else
	{
		ExplainPropertyInteger(psprintf("%s Kept", label), NULL, kept, es);
		ExplainPropertyInteger(psprintf("%s Total", label), NULL, total, es);
		if (index_skipped > 0)
			ExplainPropertyInteger(psprintf("%s Index Skipped", label), NULL, index_skipped, es);
	}
}

static void
explain_kept_total(const char *label, int64 kept, int64 total, ExplainState *es)
{
	explain_kept_total_index(label, kept, total, 0, es);
}

/* Print what tablescan_explain_properties (and the upper paths) made. */
void
tablescan_explain_print(List *props, ExplainState *es)
{
	for (int i = 0; i + 1 < list_length(props); i += 2)
	{
		const char *label = strVal(list_nth(props, i));
		Node	   *value = list_nth(props, i + 1);

		if (IsA(value, List))
			explain_kept_total_index(label,
									 pg_strtoint64(strVal(linitial((List *) value))),
									 pg_strtoint64(strVal(lsecond((List *) value))),
									 list_length((List *) value) > 2 ?
									 pg_strtoint64(strVal(lthird((List *) value))) : 0, es);
		else
			ExplainPropertyText(label, strVal(value), es);
	}
}

List *
tablescan_explain_properties(TsPlanState *ps)
{
	ts_plan    *plan = ps->plan;
	List	   *l = NIL;
	int64		files = 0;

	for (int s = 0; s < plan->nsplits; s++)
		files += plan->splits[s].nfiles;
	if (plan->kind == TS_TABLE_FORMAT)
	{
		/* a directory of plain files, not a Paimon table: say which */
		l = lappend(l, makeString("Format Table"));
		l = lappend(l, makeString(pstrdup(ps->opts->qualified_name)));
		if (ps->opts->catalog)	/* a REST catalog's table: which catalog */
		{
			l = lappend(l, makeString("Catalog"));
			l = lappend(l, makeString(pstrdup(ps->opts->catalog)));
		}
		l = lappend(l, makeString("File Format"));
		l = lappend(l, makeString(pstrdup(ts_format_name(ts_format_plan_file_format(plan)))));
	}
	else
	{
		l = lappend(l, makeString("Paimon Table"));
		l = lappend(l, makeString(pstrdup(ps->opts->qualified_name)));
		if (ps->opts->catalog)	/* a REST catalog's table: which catalog */
		{
			l = lappend(l, makeString("Catalog"));
			l = lappend(l, makeString(pstrdup(ps->opts->catalog)));
		}
		l = lappend(l, makeString("Snapshot"));
		l = lappend(l, makeString(plan->snapshot ? psprintf(INT64_FORMAT, plan->snapshot->id) : "none"));
	}
	if (plan->incremental)
	{
		l = lappend(l, makeString("Incremental"));
		l = lappend(l, makeString(psprintf("snapshots (" INT64_FORMAT ", " INT64_FORMAT "]",
										   plan->incremental_start,
										   plan->snapshot ? plan->snapshot->id : plan->incremental_start)));
	}
	if (ps->predicate)
	{
		l = lappend(l, makeString("Predicate"));
		l = lappend(l, makeString(ps->predicate));
	}
	if (plan->metrics.partitions_total > 0)
	{
		l = explain_pair(l, "Partitions", plan->metrics.partitions_kept,
						 plan->metrics.partitions_total);
	}
	if (plan->metrics.buckets_total > 0)
	{
		l = explain_pair(l, "Buckets", plan->metrics.buckets_kept, plan->metrics.buckets_total);
	}
	if (plan->bucket_pruning)
	{
		l = lappend(l, makeString("Bucket Pruning"));
		l = lappend(l, makeString(pstrdup(plan->bucket_pruning)));
	}
	if (ps->limit >= 0)
	{
		l = lappend(l, makeString("Limit"));
		l = lappend(l, makeString(psprintf(INT64_FORMAT, ps->limit)));
	}
	if (plan->kind == TS_TABLE_PRIMARY_KEY)
	{
		int			raw = 0,
					dv = 0;

		for (int s = 0; s < plan->nsplits; s++)
		{
			bool		has_dv = false;

			raw += plan->splits[s].raw_convertible;
			for (int f = 0; f < plan->splits[s].nfiles; f++)
				has_dv |= plan->splits[s].files[f].dv_path != NULL;
			dv += has_dv;
		}
		l = lappend(l, makeString("Splits"));
		l = lappend(l, makeString(psprintf("%d (raw %d, merge %d, with deletion vectors %d)",
										   plan->nsplits, raw, plan->nsplits - raw, dv)));
	}
	if (plan->fallback_branch)
	{
		/* scan.fallback-branch: which branch contributes which partitions */
		l = lappend(l, makeString("Fallback Branch"));
		l = lappend(l, makeString(psprintf("%s (partitions read: " INT64_FORMAT " from this branch, "
										   INT64_FORMAT " from %s)",
										   plan->fallback_branch, plan->main_partitions,
										   plan->fallback_partitions, plan->fallback_branch)));
	}
	if (plan->file_index_used)
	{
		l = lappend(l, makeString("Index"));
		l = lappend(l, makeString(pstrdup(plan->file_index_used)));
	}
	l = explain_pair(l, "Data Files", files, Max(plan->metrics.files_total, files));
	if (plan->metrics.files_pruned_index > 0)
		llast(l) = lappend(llast(l), makeString(psprintf(INT64_FORMAT,
														 plan->metrics.files_pruned_index)));
	return l;
}

static ForeignScan *
tablescanGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
						ForeignPath *best_path, List *tlist, List *scan_clauses,
						Plan *outer_plan)
{
	TsPlanState *ps = baserel->fdw_private;
	Bitmapset  *attrs = NULL;
	List	   *attnums = NIL;
	List	   *explain;
	ListCell   *lc;
	int			x;

	if (IS_UPPER_REL(baserel))
		return tablescan_upper_plan(root, baserel, tlist);

	/* every qual is rechecked by PostgreSQL */
	scan_clauses = extract_actual_clauses(scan_clauses, false);

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
	foreach(lc, baserel->baserestrictinfo)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, baserel->relid, &attrs);
	x = -1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	attno = x + FirstLowInvalidHeapAttributeNumber;

		if (attno == 0)
		{
			attnums = list_make1_int(0);
			break;
		}
		if (attno > 0)
			attnums = lappend_int(attnums, attno);
	}

	explain = tablescan_explain_properties(ps);
	if (best_path->path.parallel_aware)
		explain = lappend(lappend(explain, makeString("Parallel Tasks")),
						  makeString(psprintf("%d", ps->ntasks)));
	return make_foreignscan(tlist, scan_clauses, baserel->relid, NIL,
							list_make3(attnums, explain,
									   makeString(psprintf(INT64_FORMAT, ps->limit))),
							NIL, NIL, outer_plan);
}

/* ---- execution --------------------------------------------------------- */

static void
tablescanBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	TsScanState *st;

	if (fs->scan.scanrelid == 0)
	{
		tablescan_upper_begin(node, eflags);
		return;
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;

	st = tablescan_scan_create(node->ss.ps.state);
	node->fdw_state = st;
	tablescan_scan_set_source(st, node->ss.ss_currentRelation, fs->scan.scanrelid,
							  fs->scan.plan.qual,
							  (List *) list_nth(fs->fdw_private, FdwScanPrivateAttnums),
							  node->ss.ps.ps_ExprContext);
	st->limit = pg_strtoint64(strVal(list_nth(fs->fdw_private, FdwScanPrivateLimit)));
}

/* A scan of nothing yet, its memory contexts in the query's. */
TsScanState *
tablescan_scan_create(EState *estate)
{
	TsScanState *st = palloc0(sizeof(TsScanState));

	st->cxt = AllocSetContextCreate(estate->es_query_cxt,
									"tablescan_fdw scan", ALLOCSET_DEFAULT_SIZES);
	st->rowcxt = AllocSetContextCreate(estate->es_query_cxt,
									   "tablescan_fdw row", ALLOCSET_SMALL_SIZES);
	st->wincxt = AllocSetContextCreate(estate->es_query_cxt,
									   "tablescan_fdw rows", ALLOCSET_DEFAULT_SIZES);
	st->limit = -1;
	return st;
}

/* What a scan of rel reads, for a scan made by tablescan_scan_create. */
/* Does the expression hold a Param (prepared statement, nested loop, InitPlan)? */
static bool
has_params(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_params, context);
}

void
tablescan_scan_set_source(TsScanState *st, Relation rel, Index relid, List *quals,
						  List *attnums, ExprContext *econtext)
{
	st->rel = rel;
	st->relid = relid;
	st->quals = quals;
	st->attnums = attnums;
	st->econtext = econtext;
	st->quals_have_params = has_params((Node *) quals, NULL);
	close_reader(st);
	st->plan = NULL;			/* planned at the first row */
}

typedef struct SizedTask
{
	TsParallelTask task;
	int64		bytes;
	int			order;
} SizedTask;

#define MAX_FILE_PARTS 1024

/* The size of file f of split s in the manifest (0 if unknown). */
static int64
file_bytes(const ts_split *split, int f)
{
	const ts_manifest_entry *e = split->files[f].entry;

	return e && e->file.file_size > 0 ? e->file.file_size : 0;
}

/*
 * The tasks of split s in a parallel scan, stored in out (when not NULL)
 * from out[0]; returns their number.  Each of its files where they are read
 * one by one on their own (append tables, compacted buckets of primary-key
 * tables, format tables), a large Parquet or ORC file of an append or format
 * table in parts of tablescan.parallel_task_size bytes; else the whole
 * split, one task (merged by key, or stitched by row-id range).
 */
static int
split_tasks(const ts_plan *plan, int s, const int *columns, int ncolumns, SizedTask *out)
{
	const ts_split *split = &plan->splits[s];
	int64		part_bytes = (int64) tablescan_parallel_task_size_kb * 1024;
	int			n = 0;

	if (!ts_split_reads_files_alone(plan, split, columns, ncolumns))
	{
		if (out)
		{
			out->task = (TsParallelTask) {s, -1, 0, 1};
			out->bytes = 0;
			for (int f = 0; f < split->nfiles; f++)
				out->bytes += file_bytes(split, f);
		}
		return 1;
	}
	for (int f = 0; f < split->nfiles; f++)
	{
		int64		bytes = file_bytes(split, f);
		int			nparts = 1;

		if (bytes > part_bytes && ts_split_file_reads_in_ranges(plan, split, f, columns, ncolumns))
			nparts = (int) Min((bytes + part_bytes - 1) / part_bytes, MAX_FILE_PARTS);
		for (int p = 0; p < nparts; p++, n++)
			if (out)
			{
				out[n].task = (TsParallelTask) {s, f, p, nparts};
				out[n].bytes = bytes / nparts;
			}
	}
	return n;
}

static int
count_parallel_tasks(const ts_plan *plan, const int *columns, int ncolumns)
{
	int			n = 0;

	for (int s = 0; s < plan->nsplits; s++)
		n += split_tasks(plan, s, columns, ncolumns, NULL);
	return n;
}

/* largest first, then plan order: the same order in every process */
static int
cmp_sized_task(const void *a, const void *b)
{
	const SizedTask *x = a;
	const SizedTask *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->order - y->order;
}

/*
 * The tasks of a parallel scan (split_tasks), the largest first, so that
 * the last tasks taken are short ones and the processes finish together.
 */
static int
parallel_tasks(const ts_plan *plan, const int *columns, int ncolumns, TsParallelTask **tasks_out)
{
	int			n = count_parallel_tasks(plan, columns, ncolumns);
	SizedTask  *sized = palloc(sizeof(SizedTask) * Max(n, 1));
	TsParallelTask *tasks = palloc(sizeof(TsParallelTask) * Max(n, 1));

	n = 0;
	for (int s = 0; s < plan->nsplits; s++)
		n += split_tasks(plan, s, columns, ncolumns, sized + n);
	for (int t = 0; t < n; t++)
		sized[t].order = t;
	qsort(sized, n, sizeof(SizedTask), cmp_sized_task);
	for (int t = 0; t < n; t++)
		tasks[t] = sized[t].task;
	pfree(sized);
	*tasks_out = tasks;
	return n;
}

/*
 * Plan the Paimon scan for this execution: one snapshot per execution,
 * never a stale one.  Done at the first fetch (and again after a rescan
 * with changed parameters) rather than in BeginForeignScan, because only
 * then do the Params of a nested loop's inner side have their values, and
 * pruning with them is what makes such a join cheap.
 *
 * In a parallel scan the leader plans when it sets up the shared state and
 * publishes its snapshot and tasks ('publish'); every other plan (the
 * workers', the leader's after a rescan) reads that snapshot and must come
 * to the same tasks (parallel.c).
 */
static void
start_scan(TsScanState *st, bool publish)
{
	Relation	rel = st->rel;
	TupleDesc	desc = RelationGetDescr(rel);
	MemoryContext old;
	List	   *attnums;
	int		   *field_of_att;
	ListCell   *lc;
	bool		all = false;

	MemoryContextReset(st->cxt);
	old = MemoryContextSwitchTo(st->cxt);
	drain_background_before_reset(st->cxt);
	st->ncolumns = 0;
	st->next_split = 0;
	st->reader = NULL;
	st->batch.nrows = 0;
	st->batch_pos = 0;
	st->win_first = st->win_end = 0;
	st->win_capacity = 0;
	st->buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
	st->opts = tablescan_get_options(RelationGetRelid(rel));
	if (st->pscan && !publish)
		tablescan_parallel_pin(st->pscan, st->opts);	/* the leader's snapshot */
	st->plan = tablescan_plan_relation(st->opts, rel, st->relid, st->quals, st->econtext,
									   st->limit, &field_of_att, NULL);

	st->natts = desc->natts;
	st->att_field = palloc(sizeof(int) * Max(desc->natts, 1));
	st->columns = palloc(sizeof(int) * Max(desc->natts, 1));
	st->col_types = palloc(sizeof(ts_type *) * Max(desc->natts, 1));
	st->conv = palloc0(sizeof(TsDatumConverter) * Max(desc->natts, 1));
	st->read_atts = palloc(sizeof(int) * Max(desc->natts, 1));
	st->nread_atts = 0;
	st->win_done = palloc0(sizeof(int) * Max(desc->natts, 1));
	st->row_values = palloc0(sizeof(Datum) * Max(desc->natts, 1));
	st->row_isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	memset(st->row_isnull, true, sizeof(bool) * Max(desc->natts, 1));
	for (int i = 0; i < desc->natts; i++)
		st->att_field[i] = -1;

	attnums = st->attnums;
	foreach(lc, attnums)
		if (lfirst_int(lc) == 0)
			all = true;
	for (int i = 0; i < desc->natts; i++)
	{
		bool		needed = all;

		if (TupleDescAttr(desc, i)->attisdropped)
			continue;
		if (!needed)
			foreach(lc, attnums)
				if (lfirst_int(lc) == i + 1)
					needed = true;
		if (!needed)
			continue;
		st->att_field[i] = st->ncolumns;
		st->columns[st->ncolumns] = field_of_att[i];
		st->col_types[st->ncolumns] = tablescan_column_type(st->plan, field_of_att[i]);
		tablescan_datum_converter_init(&st->conv[i], st->col_types[st->ncolumns],
									   TupleDescAttr(desc, i)->atttypid,
									   TupleDescAttr(desc, i)->atttypmod,
									   pstrdup(NameStr(TupleDescAttr(desc, i)->attname)));
		st->read_atts[st->nread_atts++] = i;
		st->ncolumns++;
	}
	{
		/* system columns where they mean something (_ROW_KIND, _ROW_ID ...) */
		ts_err		err = {0};

		if (!ts_read_check_columns(st->plan, st->columns, st->ncolumns, &err))
			tablescan_report(&err);
	}
	st->string_fields = palloc(sizeof(int) * Max(st->ncolumns, 1));
	st->nstring_fields = 0;
	for (int k = 0; k < st->nread_atts; k++)
		if (st->conv[st->read_atts[k]].path == TS_DATUM_TEXT)
			st->string_fields[st->nstring_fields++] = st->att_field[st->read_atts[k]];
	st->row_filter = ts_row_filter_new(st->plan->predicate, st->columns,
									   (const ts_type *const *) st->col_types, st->ncolumns);
	st->rejected_counted = 0;
	if (st->pscan)
	{
		st->ntasks = parallel_tasks(st->plan, st->columns, st->ncolumns, &st->tasks);
		if (publish)
			tablescan_parallel_publish(st->pscan, st->plan, st->tasks, st->ntasks);
		else
			tablescan_parallel_check(st->pscan, st->plan, st->tasks, st->ntasks, rel);
	}
	MemoryContextSwitchTo(old);
}

/* Open the reader of the next split; false when there is none. */
static bool
open_next_split(TsScanState *st)
{
	ts_err		err = {0};
	const ts_split *split;

	if (st->pscan)
	{
		/* a parallel scan: the next task nobody took */
		int			t = tablescan_parallel_next_task(st->pscan);

		if (t < 0)
			return false;
		split = &st->plan->splits[st->tasks[t].split];
		if (st->tasks[t].file >= 0)
		{
			const TsParallelTask *task = &st->tasks[t];

			st->task_file = split->files[task->file];
			if (task->nparts > 1)
			{
				/* part p of n: the row groups that start in its bytes */
				int64		bytes = file_bytes(split, task->file);

				st->task_file.range_start = bytes / task->nparts * task->part;
				st->task_file.range_end = task->part == task->nparts - 1 ? PG_INT64_MAX :
					bytes / task->nparts * (task->part + 1);
			}
			st->task_split = *split;
			st->task_split.nfiles = 1;
			st->task_split.files = &st->task_file;
			split = &st->task_split;
		}
	}
	else if (st->next_split < st->plan->nsplits)
		split = &st->plan->splits[st->next_split++];
	else
		return false;
	st->reader = ts_split_reader_open(st->plan, split, st->columns, st->ncolumns, &err);
	if (st->reader == NULL)
		tablescan_report(&err);
	if (st->buffers)
		ts_split_reader_set_buffers(st->reader, st->buffers);
	return true;
}

/*
 * Convert the next window of the batch, from batch_pos: as many rows as keep
 * its strings within WINDOW_BYTES (at least one), column by column into
 * win_values / win_isnull, in wincxt.
 */
static void
convert_window(TsScanState *st)
{
	int			first = st->batch_pos;
	int			end = st->batch.nrows;
	MemoryContext old;

	if (st->nread_atts == 0)
	{
		st->win_first = first;
		st->win_end = end;
		st->win_all_done = end - first;
		return;
	}
	if (st->batch.nrows > st->win_capacity)
	{
		int			cap = Max(st->batch.nrows, TS_BATCH_ROWS);

		st->win_values = MemoryContextAlloc(st->cxt, sizeof(Datum) * cap * st->natts);
		st->win_isnull = MemoryContextAlloc(st->cxt, sizeof(bool) * cap * st->natts);
		st->win_capacity = cap;
	}
	/* a window ends where its strings pass WINDOW_BYTES */
	{
		Size		bytes = 0;

		for (int row = first; st->nstring_fields > 0 && row < end; row++)
		{
			const ts_value *rv = ts_batch_at(&st->batch, row, 0);

			for (int j = 0; j < st->nstring_fields; j++)
				if (!rv[st->string_fields[j]].isnull)
					bytes += VARHDRSZ + rv[st->string_fields[j]].v.s.len;
			if (bytes > WINDOW_BYTES && row > first)
			{
				end = row;
				break;
			}
		}
	}
	if (st->nread_atts < st->natts)
	{
		/* attributes not read are NULL */
		memset(st->win_values, 0, sizeof(Datum) * (end - first) * st->natts);
		memset(st->win_isnull, true, sizeof(bool) * (end - first) * st->natts);
	}
	old = MemoryContextSwitchTo(st->wincxt);
	st->win_all_done = end - first;
	for (int k = 0; k < st->nread_atts; k++)
	{
		int			i = st->read_atts[k];

		st->win_done[k] = tablescan_convert_column(&st->conv[i], &st->batch, st->att_field[i],
												   first, end - first, st->natts,
												   st->win_values + i, st->win_isnull + i);
		st->win_all_done = Min(st->win_all_done, st->win_done[k]);
	}
	MemoryContextSwitchTo(old);
	st->win_first = first;
	st->win_end = end;
}

/*
 * The helper thread (base/background.c) decompresses into page buffers of
 * the scan's readers, all in st->cxt: before that context is reset or
 * deleted (the end of the scan, a rescan, or an ERROR unwinding the query)
 * the thread must be done with them.  Reset callbacks run first.
 */
static void
drain_background(void *arg)
{
	ts_bg_set_enabled(false);
	ts_bg_drain();
}

static void
drain_background_before_reset(MemoryContext cxt)
{
	MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	cb->func = drain_background;
	cb->arg = NULL;
	MemoryContextRegisterResetCallback(cxt, cb);
}

/* Add what a split reader did (files it opened, bytes, row groups) to figures. */
static void
add_reader_figures(const ts_split_reader *reader, int64 *figures)
{
	const ts_reader_metrics *m = ts_split_reader_metrics(reader);

	figures[FIG_FILES] += m->files_opened;
	figures[FIG_BYTES] += m->bytes_read;
	figures[FIG_ROW_GROUPS_TOTAL] += m->row_groups_total;
	figures[FIG_ROW_GROUPS_KEPT] += m->row_groups_kept;
	figures[FIG_FILES_INDEX] += m->files_skipped_index;
}

/* Close the split reader, if any, in the scan's context (its allocations'). */
static void
close_reader(TsScanState *st)
{
	if (st->reader)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		add_reader_figures(st->reader, st->figures);
		ts_split_reader_close(st->reader);
		st->reader = NULL;
		MemoryContextSwitchTo(old);
	}
}

/*
 * The next row of the scan into slot (a virtual tuple of the relation's
 * attributes, valid until the next call); false at the end (slot empty).
 */
bool
tablescan_scan_next_row(TsScanState *st, TupleTableSlot *slot)
{
	Datum	   *values;
	bool	   *isnull;

	ExecClearTuple(slot);
	if (!tablescan_scan_next_values(st, &values, &isnull))
		return false;
	memcpy(slot->tts_values, values, sizeof(Datum) * st->natts);
	memcpy(slot->tts_isnull, isnull, sizeof(bool) * st->natts);
	ExecStoreVirtualTuple(slot);
	return true;
}

/*
 * The next row of the scan: *values and *isnull, one per attribute of the
 * relation (NULL where not read), valid until the next call; false at the
 * end.  A row of the window is handed out in place.
 */
bool
tablescan_scan_next_values(TsScanState *st, Datum **values, bool **isnull)
{
	MemoryContext old;
	const ts_value *rowvals;
	int			r;

	/*
	 * The Datums of the row returned last are dead now: the row context can
	 * be emptied, and the window's once the window is done.
	 */
	if (st->row_allocs && MemoryContextMemAllocated(st->rowcxt, false) > ROW_CONTEXT_LIMIT)
	{
		MemoryContextReset(st->rowcxt);
		st->row_allocs = false;
	}
	if (st->plan == NULL)
		start_scan(st, false);
	if (st->batch_pos >= st->win_end)
	{
		if (st->row_allocs)
			MemoryContextReset(st->rowcxt);
		st->row_allocs = false;
		MemoryContextReset(st->wincxt);
		old = MemoryContextSwitchTo(st->cxt);
		while (st->batch_pos >= st->batch.nrows)
		{
			ts_err		err = {0};
			int			n;

			if (st->reader == NULL && !open_next_split(st))
			{
				MemoryContextSwitchTo(old);
				return false;
			}
			/*
			 * Pages decompressed ahead land in st->cxt: see drain_background.
			 * Not in a parallel scan, whose processes keep the cores busy
			 * already (another thread each only adds switching).
			 */
			ts_bg_set_enabled(tablescan_decompress_ahead && st->pscan == NULL);
			n = ts_split_reader_next(st->reader, &st->batch, &err);
			ts_bg_set_enabled(false);
			if (n < 0)
				tablescan_report(&err);
			st->batch_pos = 0;
			if (n == 0)
			{
				st->batch.nrows = 0;
				close_reader(st);
			}
			else
			{
				st->figures[FIG_ROWS] += n;
				ts_row_filter_apply(st->row_filter, &st->batch);
			}
		}
		MemoryContextSwitchTo(old);
		convert_window(st);
	}
	rowvals = st->batch.values ? ts_batch_at(&st->batch, st->batch_pos, 0) : NULL;
	r = st->batch_pos - st->win_first;
	st->batch_pos++;
	if (st->nread_atts == 0)
	{
		/* no attribute read: all NULL */
		*values = st->row_values;
		*isnull = st->row_isnull;
		return true;
	}
	*values = st->win_values + (size_t) r * st->natts;
	*isnull = st->win_isnull + (size_t) r * st->natts;
	if (r >= st->win_all_done)
	{
		/* columns whose conversion stopped before this row: one value at a time */
		memcpy(st->row_values, *values, sizeof(Datum) * st->natts);
		memcpy(st->row_isnull, *isnull, sizeof(bool) * st->natts);
		for (int k = 0; k < st->nread_atts; k++)
		{
			int			i = st->read_atts[k];

			if (r < st->win_done[k])
				continue;
			old = MemoryContextSwitchTo(st->rowcxt);
			st->row_values[i] = tablescan_convert_value(&st->conv[i], &rowvals[st->att_field[i]],
														&st->row_isnull[i]);
			MemoryContextSwitchTo(old);
			st->row_allocs = true;
		}
		*values = st->row_values;
		*isnull = st->row_isnull;
	}
	return true;
}

/* errcontext while reading rows: the table, and the data file where one is read alone */
static void
scan_error_context(void *arg)
{
	TsScanState *st = arg;
	const char *file = st->reader ? ts_split_reader_current_file(st->reader) : NULL;

	if (st->plan == NULL)
		return;					/* planning: its errors name the table */
	if (file)
	{
		size_t		n = strlen(st->plan->table_path);

		/* inside the table's directory: relative to it, as Paimon's manifests name files */
		if (strncmp(file, st->plan->table_path, n) == 0 && file[n] == '/')
			file += n + 1;
		errcontext("reading %s \"%s\", data file \"%s\"",
				   st->plan->kind == TS_TABLE_FORMAT ? "format table" : "Paimon table",
				   st->opts->qualified_name, file);
	}
	else
		errcontext("reading %s \"%s\"",
				   st->plan->kind == TS_TABLE_FORMAT ? "format table" : "Paimon table",
				   st->opts->qualified_name);
}

static TupleTableSlot *
tablescanIterateForeignScan(ForeignScanState *node)
{
	ErrorContextCallback errcb;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
		return tablescan_upper_iterate(node);
	errcb.callback = scan_error_context;
	errcb.arg = node->fdw_state;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	tablescan_scan_next_row(node->fdw_state, node->ss.ss_ScanTupleSlot);
	error_context_stack = errcb.previous;
	if (node->ss.ps.instrument)
	{
		/* rows the quals drop before conversion are PostgreSQL's Rows Removed by Filter too */
		TsScanState *st = node->fdw_state;
		int64		r = ts_row_filter_rejected(st->row_filter);

		InstrCountFiltered1(node, r - st->rejected_counted);
		st->rejected_counted = r;
	}
	return node->ss.ss_ScanTupleSlot;
}

static void
tablescanReScanForeignScan(ForeignScanState *node)
{
	TsScanState *st = node->fdw_state;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
	{
		tablescan_upper_rescan(node);
		return;
	}
	tablescan_scan_rescan(st, node->ss.ps.chgParam != NULL);
}

/* Read the rows again; plan again first when replan (Params changed). */
void
tablescan_scan_rescan(TsScanState *st, bool replan)
{
	if (st->plan == NULL)
		return;
	close_reader(st);
	if (replan)
	{
		/* parameter values changed: plan (and prune) again at next fetch */
		st->plan = NULL;
		return;
	}
	st->next_split = 0;
	st->batch.nrows = 0;
	st->batch_pos = 0;
	st->win_first = st->win_end = 0;
}

static void
tablescanEndForeignScan(ForeignScanState *node)
{
	TsScanState *st = node->fdw_state;

	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
	{
		tablescan_upper_end(node);
		return;
	}
	if (st == NULL)
		return;
	tablescan_scan_end(st);
	node->fdw_state = NULL;
}

/* Close the reader and free the scan's memory. */
void
tablescan_scan_end(TsScanState *st)
{
	close_reader(st);
	MemoryContextDelete(st->rowcxt);
	MemoryContextDelete(st->wincxt);
	MemoryContextDelete(st->cxt);
}

/* ---- parallel scans (parallel.c has the shared state) -------------------- */

static bool
tablescanIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	return true;				/* every process plans and reads on its own */
}

static Size
tablescanEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	return tablescan_parallel_size();
}

/*
 * The row scan of a parallel-aware node: a Parallel Foreign Scan's, or the
 * partial aggregates' computed while scanning (scan_aggregate.c).  NULL
 * for others (a count from metadata) and under EXPLAIN without ANALYZE.
 */
static TsScanState *
node_scan(ForeignScanState *node)
{
	if (((ForeignScan *) node->ss.ps.plan)->scan.scanrelid == 0)
		return tablescan_upper_rows(node);
	return node->fdw_state;
}

/* The leader, before the workers start: plan, and publish snapshot and tasks. */
static void
tablescanInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
								  void *coordinate)
{
	TsScanState *st = node_scan(node);

	tablescan_parallel_init(coordinate);
	st->pscan = coordinate;
	start_scan(st, true);
}

/*
 * The leader, before the workers of a rescan start: plan again (the Params
 * may have changed) and publish.  The ReScan that follows plans the
 * leader's own scan again at its first fetch, against what was published.
 */
static void
tablescanReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
									void *coordinate)
{
	TsScanState *st = node_scan(node);

	close_reader(st);
	st->pscan = coordinate;
	start_scan(st, true);
}

static void
tablescanInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc, void *coordinate)
{
	TsScanState *st = node_scan(node);

	st->pscan = coordinate;		/* planned at the first fetch */
}

/* Workers leave their EXPLAIN ANALYZE figures; the leader takes them. */
static void
tablescanShutdownForeignScan(ForeignScanState *node)
{
	TsScanState *st = node_scan(node);

	if (st == NULL || st->pscan == NULL)
		return;
	if (IsParallelWorker())
	{
		close_reader(st);		/* done: a reader a LIMIT left open counts too */
		tablescan_parallel_add_figures(st->pscan, st->figures);
	}
	else
	{
		tablescan_parallel_take_figures(st->pscan, st->figures);
		st->pscan = NULL;		/* the shared memory goes with the Gather */
	}
}

static void
tablescanExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	List	   *props = (List *) list_nth(fs->fdw_private, FdwScanPrivateExplain);

	tablescan_explain_print(props, es);
	if (fs->scan.scanrelid == 0)
		tablescan_upper_explain(node, es);
	else if (es->analyze && node->fdw_state)
		tablescan_scan_explain(node->fdw_state, es);
}

/* EXPLAIN ANALYZE figures of a scan: cache, files, rows, row groups, bytes. */
void
tablescan_scan_explain(TsScanState *st, ExplainState *es)
{
	int64		figures[TS_PARALLEL_NFIGURES];

	/* with the reader still open (a LIMIT stopped the scan) */
	memcpy(figures, st->figures, sizeof(figures));
	if (st->reader)
		add_reader_figures(st->reader, figures);

	if (st->plan && st->quals_have_params)
	{
		/*
		 * The executor pruned again with the parameters' values (of the last
		 * execution, for a rescanned scan): the plan-time lines above are
		 * what the plan knew without them.
		 */
		const ts_scan_metrics *m = &st->plan->metrics;
		int64		files = 0;

		for (int s = 0; s < st->plan->nsplits; s++)
			files += st->plan->splits[s].nfiles;
		if (m->partitions_total > 0)
			explain_kept_total("Partitions (run time)", m->partitions_kept, m->partitions_total, es);
		explain_kept_total("Data Files (run time)", files, Max(m->files_total, files), es);
	}
	if (st->plan && st->plan->kind != TS_TABLE_FORMAT)
		ExplainPropertyText("Cache", !st->opts->cache || tablescan_cache_size_mb == 0 ? "off" :
							st->plan->metrics.cache_hit ? "hit" : "miss", es);
	ExplainPropertyInteger("Files Read", NULL, figures[FIG_FILES], es);
	if (figures[FIG_FILES_INDEX] > 0)
		ExplainPropertyInteger("Files Skipped By Index", NULL, figures[FIG_FILES_INDEX], es);
	ExplainPropertyInteger("Rows Read", NULL, figures[FIG_ROWS], es);
	if (figures[FIG_ROW_GROUPS_TOTAL] > 0)
		explain_kept_total("Row Groups", figures[FIG_ROW_GROUPS_KEPT],
						   figures[FIG_ROW_GROUPS_TOTAL], es);
	if (es->costs)
		ExplainPropertyInteger("Bytes Read", NULL, figures[FIG_BYTES], es);
}

PG_FUNCTION_INFO_V1(tablescan_fdw_handler);

Datum
tablescan_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	routine->GetForeignRelSize = tablescanGetForeignRelSize;
	routine->GetForeignPaths = tablescanGetForeignPaths;
	routine->GetForeignPlan = tablescanGetForeignPlan;
	routine->BeginForeignScan = tablescanBeginForeignScan;
	routine->IterateForeignScan = tablescanIterateForeignScan;
	routine->ReScanForeignScan = tablescanReScanForeignScan;
	routine->EndForeignScan = tablescanEndForeignScan;
	routine->ExplainForeignScan = tablescanExplainForeignScan;
	routine->IsForeignScanParallelSafe = tablescanIsForeignScanParallelSafe;
	routine->EstimateDSMForeignScan = tablescanEstimateDSMForeignScan;
	routine->InitializeDSMForeignScan = tablescanInitializeDSMForeignScan;
	routine->ReInitializeDSMForeignScan = tablescanReInitializeDSMForeignScan;
	routine->InitializeWorkerForeignScan = tablescanInitializeWorkerForeignScan;
	routine->ShutdownForeignScan = tablescanShutdownForeignScan;
	routine->GetForeignUpperPaths = tablescanGetForeignUpperPaths;
	routine->ImportForeignSchema = tablescanImportForeignSchema;
	routine->AnalyzeForeignTable = tablescanAnalyzeForeignTable;
	PG_RETURN_POINTER(routine);
}
