/*
 * scan_rows.c - the rows of a scan of a foreign table, as Datums.
 *
 * Owns: the row source that both the plain scan (handler.c) and the
 * aggregates computed while scanning (scan_aggregate.c, scan_group.c)
 * read: planning the Paimon scan at the first fetch (again after a rescan
 * with changed Params), unless the plan made while planning still holds
 * (plan_reuse.c), iterating over splits and batches, converting a
 * window of rows to Datums column by column (or handing the batches over
 * unconverted, to scan_vector.c's aggregation by columns), its part of a Parallel
 * Foreign Scan (the tasks parallel.c hands out), the errcontext while
 * reading and the EXPLAIN ANALYZE figures.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"
#include "base/ts_background.h"
#include "read/read.h"

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
	TsPlanOffer *offer;			/* the plan made while planning, taken (plan_reuse.c) */
	bool		plan_reused;	/* the plan read is that one */
	MemoryContext cxt;			/* plan, readers */
	/*
	 * The plan made while planning, once taken: older than cxt, so that it
	 * goes after cxt's callbacks (the window, the helper thread) when the
	 * query's memory goes at an ERROR, as a plan in cxt would.
	 */
	MemoryContext offered_cxt;
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
	int		   *shard_atts;		/* attributes of the pseudo-column _SHARD needed */
	Datum	   *shard_values;	/* their value, the same on every row */
	int			nshard_atts;
	int			next_split;
	ts_split_reader *reader;
	ts_split_window window;		/* small files of the next splits, fetched ahead */
	int64		whole_file_max; /* ... and those up to this size (read.h) */
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
	bool		quals_whole;	/* the predicate is every qual, none dropped */
	bool		batch_exact;	/* the batch's rows are exactly those the quals keep */
	int64		rejected_counted;	/* of them, in Rows Removed by Filter already */
	bool		row_allocs;		/* values converted one by one since rowcxt was emptied */
	/* a Parallel Foreign Scan: shared state (parallel.c) and this process's tasks */
	TsParallelScan *pscan;
	TsParallelTask *tasks;
	int			ntasks;
	ts_split	task_split;		/* the split of a one-file task being read */
	ts_scan_file task_file;		/* its file, with the task's byte range */
	int			group_next;		/* tasks claimed: [group_next, group_end) to read */
	int			group_end;		/* (their files in window.set) */
	int			ahead_first;	/* the next group, claimed: its files in window.ahead */
	int			ahead_n;
	bool		ahead_started;	/* window.ahead holds its files' requests */
	/* EXPLAIN ANALYZE figures (of the workers too, once they are done) */
	int64		figures[TS_PARALLEL_NFIGURES];
};

#define FIG_FILES 0
#define FIG_ROWS 1
#define FIG_BYTES 2
#define FIG_ROW_GROUPS_TOTAL 3
#define FIG_ROW_GROUPS_KEPT 4
#define FIG_FILES_INDEX 5
#define FIG_ROWS_INDEX 6
#define FIG_ROWS_ROW_ID 7
#define FIG_AGG_ROWS 8			/* scan_aggregate.c's, the workers' */
#define FIG_AGG_BY_COLUMN 9

static void drain_background_before_reset(MemoryContext cxt);
static void free_window_before_reset(TsScanState *st);
static void close_reader(TsScanState *st);

/* A scan of nothing yet, its memory contexts in the query's. */
TsScanState *
tablescan_scan_create(EState *estate)
{
	TsScanState *st = palloc0(sizeof(TsScanState));

	st->offered_cxt = AllocSetContextCreate(estate->es_query_cxt,
											"tablescan_fdw planned", ALLOCSET_SMALL_SIZES);
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
void
tablescan_scan_set_source(TsScanState *st, Relation rel, Index relid, List *quals,
						  List *attnums, ExprContext *econtext)
{
	st->rel = rel;
	st->relid = relid;
	st->quals = quals;
	st->attnums = attnums;
	st->econtext = econtext;
	st->quals_have_params = tablescan_expr_has_params((Node *) quals);
	close_reader(st);
	st->plan = NULL;			/* planned at the first row */
}

/*
 * Take the plan made while PostgreSQL planned (key: fdw_private's), kept in
 * the query's memory until the first fetch decides whether it holds.
 */
void
tablescan_scan_take_plan(TsScanState *st, Node *key)
{
	st->offer = tablescan_plan_take(key, st->offered_cxt);
}

/* The rows a LIMIT needs from the scan, -1 = all. */
void
tablescan_scan_set_limit(TsScanState *st, int64 limit)
{
	st->limit = limit;
}

/*
 * Plan the Paimon scan for this execution: one snapshot per execution,
 * never a stale one.  Done at the first fetch (and again after a rescan
 * with changed parameters) rather than in BeginForeignScan, because only
 * then do the Params of a nested loop's inner side have their values, and
 * pruning with them is what makes such a join cheap.  The plan made while
 * PostgreSQL planned is executed instead when it still holds (plan_reuse.c).
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
	if (st->offer == NULL)
		MemoryContextReset(st->offered_cxt);	/* a plan reused before: after cxt's callbacks */
	old = MemoryContextSwitchTo(st->cxt);
	free_window_before_reset(st);	/* callbacks run last first: after the drain */
	drain_background_before_reset(st->cxt);
	st->ncolumns = 0;
	st->next_split = 0;
	st->group_next = st->group_end = st->ahead_n = 0;
	st->ahead_started = false;
	st->reader = NULL;
	st->batch.nrows = 0;
	st->batch_pos = 0;
	st->win_first = st->win_end = 0;
	st->win_capacity = 0;
	st->buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
	st->opts = tablescan_get_options_as(RelationGetRelid(rel),
										 tablescan_scan_user(st->econtext->ecxt_estate, st->relid));
	if (st->pscan && !publish)
		tablescan_parallel_pin(st->pscan, st->opts);	/* the leader's snapshot */
	/* the plan made while planning, when it holds (taken once: a rescan plans) */
	st->plan = tablescan_plan_reuse(&st->offer, rel, st->quals, st->opts, NULL, &field_of_att);
	st->plan_reused = st->plan != NULL;
	if (st->plan == NULL)
		st->plan = tablescan_plan_relation(st->opts, rel, st->relid, st->quals, st->econtext,
										   st->limit, &field_of_att, NULL);

	st->natts = desc->natts;
	st->att_field = palloc(sizeof(int) * Max(desc->natts, 1));
	st->columns = palloc(sizeof(int) * Max(desc->natts, 1));
	st->col_types = palloc(sizeof(ts_type *) * Max(desc->natts, 1));
	st->conv = palloc0(sizeof(TsDatumConverter) * Max(desc->natts, 1));
	st->read_atts = palloc(sizeof(int) * Max(desc->natts, 1));
	st->nread_atts = 0;
	st->shard_atts = palloc(sizeof(int) * Max(desc->natts, 1));
	st->shard_values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	st->nshard_atts = 0;
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
		if (field_of_att[i] == TS_COLUMN_SHARD)
		{
			/* not read: the constant, in every row (shard_column.c) */
			st->shard_atts[st->nshard_atts] = i;
			st->shard_values[st->nshard_atts++] =
				tablescan_shard_const_of(st->opts, rel, i)->constvalue;
			st->row_values[i] = st->shard_values[st->nshard_atts - 1];
			st->row_isnull[i] = false;
			continue;
		}
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
	st->whole_file_max = ts_read_whole_file_max(st->plan, st->columns, st->ncolumns);
	st->string_fields = palloc(sizeof(int) * Max(st->ncolumns, 1));
	st->nstring_fields = 0;
	for (int k = 0; k < st->nread_atts; k++)
		if (st->conv[st->read_atts[k]].path == TS_DATUM_TEXT)
			st->string_fields[st->nstring_fields++] = st->att_field[st->read_atts[k]];
	st->row_filter = ts_row_filter_new(st->plan->predicate, st->columns,
									   (const ts_type *const *) st->col_types, st->ncolumns);
	st->rejected_counted = 0;
	{
		/* is the filter's predicate all of the quals (nothing dropped)? */
		struct ts_predicate *whole;

		st->quals_whole = st->quals == NIL ||
			(st->row_filter != NULL && tablescan_enable_pruning &&
			 tablescan_quals_convert_all(st->quals, st->relid, field_of_att, desc->natts,
										 st->plan->schema, st->econtext, &whole));
	}
	st->batch_exact = false;
	if (st->pscan)
	{
		st->ntasks = tablescan_parallel_tasks(st->pscan, publish, st->plan, st->columns,
											  st->ncolumns, &st->tasks);
		if (publish)
			tablescan_parallel_publish(st->pscan, st->plan, st->tasks, st->ntasks);
		else
			tablescan_parallel_check(st->pscan, st->plan, st->tasks, st->ntasks, rel);
	}
	MemoryContextSwitchTo(old);
}

/*
 * The small files of tasks [first, first + n), started (read/split_window.c:
 * a file is waited for when its reader opens it); NULL when none.
 */
static ts_prefetch *
group_files(TsScanState *st, int first, int n)
{
	ts_err		err = {0};
	ts_split   *splits = palloc(sizeof(ts_split) * n);
	ts_scan_file *files = palloc(sizeof(ts_scan_file) * n);
	const ts_split **ptrs = palloc(sizeof(ts_split *) * n);
	ts_prefetch *set;

	for (int i = 0; i < n; i++)
		ptrs[i] = tablescan_parallel_task_split(st->plan, &st->tasks[first + i],
												&splits[i], &files[i]);
	set = ts_split_window_fetch(st->plan, ptrs, n, st->whole_file_max, false, &err);
	if (set == NULL && err.code != TS_OK)
		tablescan_report(&err);
	pfree(splits);
	pfree(files);
	pfree(ptrs);
	return set;
}

/*
 * A parallel scan's next task (parallel.c's header): the next of the group
 * claimed, else the group claimed ahead or, the first time, a group
 * claimed now.  Starting a group claims the next one (on an object store);
 * that group's files are started once this group's are all in.  -1 when no task is left.
 * The readers of the tasks before are closed.
 */
static int
next_task(TsScanState *st)
{
	if (st->group_next >= st->group_end)
	{
		int			first = 0;
		int			n;

		ts_prefetch_free(st->window.set);
		st->window.set = NULL;
		if (st->ahead_n > 0)
		{
			st->group_next = st->ahead_first;
			st->group_end = st->ahead_first + st->ahead_n;
			st->ahead_n = 0;
			st->window.set = st->ahead_started ? st->window.ahead :
				group_files(st, st->group_next, st->group_end - st->group_next);
			st->window.ahead = NULL;
		}
		else
		{
			n = tablescan_parallel_claim(st->pscan, st->plan, st->tasks, &first);
			if (n == 0)
				return -1;
			st->group_next = first;
			st->group_end = first + n;
			st->window.set = group_files(st, first, n);
		}
		/* claimed ahead only where files are fetched ahead: an object store */
		n = (ts_fs_caps(st->plan->fs) & TS_FS_CAP_REMOTE) ?
			tablescan_parallel_claim(st->pscan, st->plan, st->tasks, &first) : 0;
		st->ahead_first = first;
		st->ahead_n = Max(n, 0);
		st->ahead_started = false;
	}
	/* the next group's files, once this group's are all in (one group in flight) */
	if (st->ahead_n > 0 && !st->ahead_started && ts_prefetch_ready(st->window.set))
	{
		st->window.ahead = group_files(st, st->ahead_first, st->ahead_n);
		st->ahead_started = true;
	}
	return st->group_next++;
}

/* Open the reader of the next split; false when there is none. */
static bool
open_next_split(TsScanState *st)
{
	ts_err		err = {0};
	const ts_split *split;

	if (st->pscan)
	{
		/* a parallel scan: the next task of this process's */
		int			t = next_task(st);

		if (t < 0)
			return false;
		split = tablescan_parallel_task_split(st->plan, &st->tasks[t],
											  &st->task_split, &st->task_file);
	}
	else if (st->next_split < st->plan->nsplits)
	{
		/* the readers before are closed: the window may move on */
		if (!ts_split_window_move(&st->window, st->plan, st->next_split, st->limit,
								  st->whole_file_max, &err))
			tablescan_report(&err);
		split = &st->plan->splits[st->next_split++];
	}
	else
		return false;
	/* the pool given at open also serves a merge's files, all opened at once */
	st->reader = ts_split_reader_open_buffers(st->plan, split, st->columns, st->ncolumns,
											  st->buffers, &err);
	if (st->reader == NULL)
		tablescan_report(&err);
	if (st->pscan == NULL)
		ts_split_reader_set_window(st->reader, &st->window);	/* the next files' chunks */
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

		/*
		 * Attributes not read are NULL: set once here, as conversion writes
		 * only the slots of the attributes read (never per window).
		 */
		st->win_values = MemoryContextAllocZero(st->cxt, sizeof(Datum) * cap * st->natts);
		st->win_isnull = MemoryContextAlloc(st->cxt, sizeof(bool) * cap * st->natts);
		memset(st->win_isnull, true, sizeof(bool) * cap * st->natts);
		for (int row = 0; row < cap; row++)
			for (int k = 0; k < st->nshard_atts; k++)
			{
				st->win_values[(size_t) row * st->natts + st->shard_atts[k]] = st->shard_values[k];
				st->win_isnull[(size_t) row * st->natts + st->shard_atts[k]] = false;
			}
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

/*
 * The window of files fetched ahead across splits (read/split_window.c)
 * lives in st->cxt: it is freed, and unregistered, before that context is
 * reset or deleted (the end of the scan, a new plan, or an ERROR unwinding
 * the query; hooks.c forgets every set at an abort too), which stops the
 * requests of the one started ahead.  A serial rescan keeps it: its
 * splits are read again.  A parallel scan holds there the files of the
 * group of tasks it reads (set) and of the group it claimed next (ahead).
 */
static void
free_window(void *arg)
{
	TsScanState *st = arg;

	ts_split_window_free(&st->window);
}

static void
free_window_before_reset(TsScanState *st)
{
	MemoryContextCallback *cb = MemoryContextAlloc(st->cxt, sizeof(MemoryContextCallback));

	memset(&st->window, 0, sizeof(st->window));
	cb->func = free_window;
	cb->arg = st;
	MemoryContextRegisterResetCallback(st->cxt, cb);
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
	figures[FIG_ROWS_INDEX] += m->rows_skipped_index;
	figures[FIG_ROWS_ROW_ID] += m->rows_skipped_row_id;
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
 * The window is done (its Datums are dead): empty its memory, and when the
 * batch is done too, read the next batch that keeps rows.  False at the end.
 */
static bool
read_batch(TsScanState *st)
{
	MemoryContext old;

	if (st->row_allocs)
		MemoryContextReset(st->rowcxt);
	st->row_allocs = false;
	MemoryContextReset(st->wincxt);
	old = MemoryContextSwitchTo(st->cxt);
	while (st->batch_pos >= st->batch.nrows)
	{
		ts_err		err = {0};
		int			n;

		/* a data token due for renewal is renewed before another request */
		if (st->opts->token)
			tablescan_rest_renew_token(st->opts, st->plan);

		/*
		 * Pages decompressed ahead land in st->cxt: see drain_background
		 * (which also turns the thread off when an ERROR leaves it on).
		 * On while a split is opened too: a merge's open reads the first
		 * batch of every run, and the pages after those are queued then.
		 * Not in a parallel scan, whose processes keep the cores busy
		 * already (another thread each only adds switching).
		 */
		ts_bg_set_enabled(tablescan_decompress_ahead && st->pscan == NULL);
		if (st->reader == NULL && !open_next_split(st))
		{
			ts_bg_set_enabled(false);
			MemoryContextSwitchTo(old);
			return false;
		}
		ts_s3_drive();			/* files fetched ahead move on meanwhile */
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
			st->batch_exact = st->quals_whole &&
				(st->quals == NIL || ts_row_filter_exact(st->row_filter));
		}
	}
	MemoryContextSwitchTo(old);
	return true;
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
 * Rows the row filter (read/row_filter.c) dropped before conversion since
 * the last call: the executor counts them as Rows Removed by Filter.
 */
int64
tablescan_scan_rows_rejected(TsScanState *st)
{
	int64		r = st->row_filter ? ts_row_filter_rejected(st->row_filter) : 0;
	int64		d = r - st->rejected_counted;

	st->rejected_counted = r;
	return d;
}

/*
 * The next row of the scan: *values and *isnull, one per attribute of the
 * relation (NULL where not read), valid until the next call; false at the
 * end.  A row of the window is handed out in place.
 */
static pg_noinline bool next_values_slow(TsScanState *st, Datum **values, bool **isnull);

bool
tablescan_scan_next_values(TsScanState *st, Datum **values, bool **isnull)
{
	int			r = st->batch_pos - st->win_first;

	/*
	 * The common case apart (no register saving, no bookkeeping): the next
	 * row of the window is converted already, every attribute of it.
	 */
	if (likely(st->plan != NULL && st->batch_pos < st->win_end &&
			   r < st->win_all_done && st->nread_atts > 0 && !st->row_allocs))
	{
		st->batch_pos++;
		*values = st->win_values + (size_t) r * st->natts;
		*isnull = st->win_isnull + (size_t) r * st->natts;
		return true;
	}
	return next_values_slow(st, values, isnull);
}

/* The rest of tablescan_scan_next_values: a new window, or a row converted alone. */
static bool
next_values_slow(TsScanState *st, Datum **values, bool **isnull)
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
		if (!read_batch(st))
			return false;
		convert_window(st);
	}
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
		rowvals = ts_batch_at(&st->batch, st->batch_pos - 1, 0);
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

/*
 * The rows of the scan as the readers return them, for the aggregation by
 * columns (scan_vector.c): rows [*first, (*batch)->nrows) of the current
 * batch, not converted (the next batch when this one is done); false at the
 * end.  The rows stay the caller's to consume (tablescan_scan_consume);
 * the batch is valid until the next call.  Not to be mixed with the
 * Datum calls in the middle of a window.
 */
bool
tablescan_scan_batch(TsScanState *st, const ts_batch **batch, int *first)
{
	if (st->plan == NULL)
		start_scan(st, false);
	if (st->batch_pos >= st->batch.nrows && !read_batch(st))
		return false;
	/* nothing converted ahead: a Datum call after this one converts from batch_pos */
	st->win_first = st->win_end = st->batch_pos;
	*batch = &st->batch;
	*first = st->batch_pos;
	return true;
}

/*
 * Are the rows of tablescan_scan_batch's batch exactly the rows the scan's
 * quals keep?  The row filter decided every qual on each of them
 * (read/row_filter.c's ts_row_filter_exact), the quals having become its
 * predicate whole; true without quals.  Otherwise the caller checks them.
 */
bool
tablescan_scan_batch_exact(TsScanState *st)
{
	return st->batch_exact;
}

/* The next n rows of tablescan_scan_batch's batch are consumed. */
void
tablescan_scan_consume(TsScanState *st, int n)
{
	Assert(st->batch_pos + n <= st->batch.nrows);
	st->batch_pos += n;
	st->win_first = st->win_end = st->batch_pos;
}

/*
 * Attribute attno (1-based) of the relation as tablescan_scan_batch's
 * batches hold it: its column and its converter to Datums; false when it
 * is not read.  Valid once the scan is planned (after tablescan_scan_batch).
 */
bool
tablescan_scan_attribute(TsScanState *st, int attno, int *col, const TsDatumConverter **conv)
{
	if (st->plan == NULL || attno < 1 || attno > st->natts || st->att_field[attno - 1] < 0)
		return false;
	*col = st->att_field[attno - 1];
	*conv = &st->conv[attno - 1];
	return true;
}

/*
 * errcontext while reading rows (arg: the scan): the table, and the data
 * file where one is read alone, with its row group, stripe or Avro block
 * where known.
 */
void
tablescan_scan_error_context(void *arg)
{
	TsScanState *st = arg;
	const char *file = st->reader ? ts_split_reader_current_file(st->reader) : NULL;
	int32		part = 0;
	const char *part_name = file ? ts_split_reader_current_part(st->reader, &part) : NULL;

	if (st->plan == NULL)
		return;					/* planning: its errors name the table */
	if (file)
	{
		size_t		n = strlen(st->plan->table_path);

		/* inside the table's directory: relative to it, as Paimon's manifests name files */
		if (strncmp(file, st->plan->table_path, n) == 0 && file[n] == '/')
			file += n + 1;
		if (part_name)
			errcontext("reading %s \"%s\", data file \"%s\", %s %d",
					   st->plan->kind == TS_TABLE_FORMAT ? "format table" : "Paimon table",
					   st->opts->qualified_name, file, part_name, (int) part);
		else
			errcontext("reading %s \"%s\", data file \"%s\"",
					   st->plan->kind == TS_TABLE_FORMAT ? "format table" : "Paimon table",
					   st->opts->qualified_name, file);
	}
	else
		errcontext("reading %s \"%s\"",
				   st->plan->kind == TS_TABLE_FORMAT ? "format table" : "Paimon table",
				   st->opts->qualified_name);
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
	if (st->pscan)
	{
		/* the tasks are handed out again: those claimed before are not ours */
		ts_split_window_free(&st->window);
		st->group_next = st->group_end = st->ahead_n = 0;
		st->ahead_started = false;
	}
}

/* Close the reader and free the scan's memory. */
void
tablescan_scan_end(TsScanState *st)
{
	close_reader(st);
	MemoryContextDelete(st->rowcxt);
	MemoryContextDelete(st->wincxt);
	MemoryContextDelete(st->cxt);
	MemoryContextDelete(st->offered_cxt);	/* the plan reused, or taken and never fetched from */
	st->offer = NULL;
}

/*
 * A Parallel Foreign Scan, in the leader before its workers start (again
 * before a rescan's): plan, and publish snapshot and tasks.
 */
void
tablescan_scan_parallel_leader(TsScanState *st, TsParallelScan *pscan)
{
	close_reader(st);
	st->pscan = pscan;
	start_scan(st, true);
}

/* A Parallel Foreign Scan, in a worker: planned at the first fetch. */
void
tablescan_scan_parallel_worker(TsScanState *st, TsParallelScan *pscan)
{
	st->pscan = pscan;
}

/*
 * In a worker, the rows an aggregate computed while scanning took (of
 * them, by columns), left with the figures at its shutdown.
 */
void
tablescan_scan_count_aggregated(TsScanState *st, int64 rows, int64 by_column)
{
	st->figures[FIG_AGG_ROWS] += rows;
	st->figures[FIG_AGG_BY_COLUMN] += by_column;
}

/* In the leader, after the Gather's shutdown: the workers' aggregated rows. */
void
tablescan_scan_aggregated(TsScanState *st, int64 *rows, int64 *by_column)
{
	*rows = st->figures[FIG_AGG_ROWS];
	*by_column = st->figures[FIG_AGG_BY_COLUMN];
}

/* Workers leave their EXPLAIN ANALYZE figures; the leader takes them. */
void
tablescan_scan_parallel_shutdown(TsScanState *st)
{
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
			tablescan_explain_kept_total("Partitions (run time)", m->partitions_kept, m->partitions_total, es);
		tablescan_explain_kept_total("Data Files (run time)", files, Max(m->files_total, files), es);
	}
	if (st->plan)
		tablescan_explain_plan_reused(st->plan_reused, es);
	if (st->plan && st->plan->kind != TS_TABLE_FORMAT)
		ExplainPropertyText("Cache", !st->opts->cache || tablescan_cache_size_mb == 0 ? "off" :
							st->plan->metrics.cache_hit ? "hit" : "miss", es);
	ExplainPropertyInteger("Files Read", NULL, figures[FIG_FILES], es);
	if (figures[FIG_FILES_INDEX] > 0)
		ExplainPropertyInteger("Files Skipped By Index", NULL, figures[FIG_FILES_INDEX], es);
	if (figures[FIG_ROWS_INDEX] > 0)
		ExplainPropertyInteger("Rows Skipped By Index", NULL, figures[FIG_ROWS_INDEX], es);
	if (figures[FIG_ROWS_ROW_ID] > 0)
		ExplainPropertyInteger("Rows Skipped By Row ID", NULL, figures[FIG_ROWS_ROW_ID], es);
	ExplainPropertyInteger("Rows Read", NULL, figures[FIG_ROWS], es);
	if (figures[FIG_ROW_GROUPS_TOTAL] > 0)
		tablescan_explain_kept_total("Row Groups", figures[FIG_ROW_GROUPS_KEPT],
						   figures[FIG_ROW_GROUPS_TOTAL], es);
	if (es->costs)
		ExplainPropertyInteger("Bytes Read", NULL, figures[FIG_BYTES], es);
}
