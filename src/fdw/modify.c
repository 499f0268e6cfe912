/*
 * modify.c - INSERT and COPY FROM into Paimon tables, committed with the
 * transaction.
 *
 * Owns: the FDW's modify callbacks (IsForeignRelUpdatable with the
 * "updatable" option as postgres_fdw, PlanForeignModify refusing ON
 * CONFLICT and, through modify_pk.c, UPDATE and DELETE where they cannot
 * be written, Begin/Exec/EndForeignModify, batch insert with
 * "batch_size", Begin/EndForeignInsert for COPY FROM), turning each row's
 * Datums into Paimon values, and the transaction's pending writes: one
 * table writer (src/write) per foreign table per transaction, in a memory
 * context of the transaction.  At XACT_EVENT_PRE_COMMIT each is committed
 * as one Paimon snapshot (so a failed commit aborts the transaction); an
 * abort removes the data files written; PREPARE TRANSACTION with pending
 * writes is refused; a rolled-back subtransaction that wrote rows into a
 * table the outer transaction also wrote makes the commit fail (its rows
 * cannot be taken back out of the files).  Reads of the transaction's own
 * rows (tablescan_pending_files): the files of the earlier statements'
 * rows, finished for the read, as the realtime context of a scan.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "base/ts_fs_write.h"
#include "write/write.h"
#include "tablescan_fdw.h"

/* One foreign table written by the current transaction. */
typedef struct TsPendingWrite
{
	Oid			relid;
	char	   *relname;
	TsTableOptions *opts;		/* in write_cxt */
	ts_table_writer *writer;
	int			birth_level;	/* transaction nesting level that created it */
	/* rows written when each open subtransaction began ([level]) */
	int64	   *rows_at_level;
	int			nlevels;
	bool		poisoned;		/* a rolled-back subtransaction wrote into it */
	/* reads of the transaction's own rows (tablescan_pending_files) */
	bool		read;			/* a scan has read its files */
	bool		has_write_cid;
	CommandId	write_cid;		/* the last statement that wrote rows */
	int			files_before_cid;	/* finished files when write_cid began */
	bool		mixed;			/* earlier statements' rows unfinished when it began */
	int64		rows_in_files;	/* rows in finished files at the last flush */
} TsPendingWrite;

/* Executor state of one result relation. */
typedef struct TsModifyState
{
	TsPendingWrite *pw;
	Relation	rel;
	int		   *field_of_att;	/* attno-1 -> schema field (-1: none) */
	Const	  **shard_of_att;	/* attno-1 -> the value of the pseudo-column _SHARD */
	int		   *att_of_field;	/* schema field -> attno-1 (-1: not a column) */
	ts_value   *values;			/* one row, schema order */
	ts_value   *old_values;		/* the row an UPDATE / DELETE replaces */
	int			nfields;
	int			batch_size;
	MemoryContext row_cxt;		/* reset per row: detoasted values, conversions */
	ts_table_writer *writer_at_start;	/* pw->writer when the statement began */
	int64		extra_at_start; /* its extra files (bound) by then */
} TsModifyState;

static MemoryContext write_cxt = NULL;	/* child of TopTransactionContext */
static List *pending = NIL;		/* TsPendingWrite *, in write_cxt */
static bool callbacks_registered = false;

static void xact_callback(XactEvent event, void *arg);
static void subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							 SubTransactionId parentSubid, void *arg);

/* ---- options --------------------------------------------------------------- */

/* A FOREIGN TABLE option, else its SERVER's, else NULL (updatable, batch_size). */
static const char *
table_or_server_option(Oid relid, const char *name)
{
	ForeignTable *ft = GetForeignTable(relid);
	const char *v = tablescan_table_option(ft, name);

	return v != NULL ? v : tablescan_server_option(GetForeignServer(ft->serverid), name);
}

/*
 * The "updatable" option: a FOREIGN TABLE's 'false' or, failing that, its
 * SERVER's.  Unlike postgres_fdw (whose remote server has its own rights),
 * a table's 'true' does not override a server's 'false': any role with
 * USAGE on the server can create a foreign table, and the server's owner
 * made the lake behind it read-only.
 */
bool
tablescan_foreign_table_updatable(Oid relid)
{
	ForeignTable *ft = GetForeignTable(relid);
	const char *mine = tablescan_table_option(ft, "updatable");
	const char *server = tablescan_server_option(GetForeignServer(ft->serverid), "updatable");

	if (server != NULL && !tablescan_option_bool(server))
		return false;
	return mine == NULL || tablescan_option_bool(mine);
}

static int
batch_size_of(Oid relid)
{
	const char *v = table_or_server_option(relid, "batch_size");

	return v == NULL ? 1 : pg_strtoint32(v);
}

static int
tablescanIsForeignRelUpdatable(Relation rel)
{
	/* UPDATE and DELETE: primary-key tables only, checked when planned */
	return tablescan_foreign_table_updatable(RelationGetRelid(rel)) ?
		(1 << CMD_INSERT) | (1 << CMD_UPDATE) | (1 << CMD_DELETE) : 0;
}

/* ---- planning ---------------------------------------------------------------- */

static List *
tablescanPlanForeignModify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
						   int subplan_index)
{
	RangeTblEntry *rte = planner_rt_fetch(resultRelation, root);
	char	   *name = get_rel_name(rte->relid);

	if (plan->operation == CMD_UPDATE || plan->operation == CMD_DELETE)
		tablescan_modify_pk_check(rte->relid, plan->operation);
	if (plan->onConflictAction != ONCONFLICT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ON CONFLICT is not supported for Paimon table \"%s\"", name)));
	return NIL;
}

/* ---- the transaction's writers ----------------------------------------------- */

static void
report_write_error(const ts_err *err, const char *relname)
{
	/*
	 * A write stopped by an interrupt: PostgreSQL's own error (statement
	 * timeout, user request, terminate).  The files written so far are
	 * deleted by the abort that follows either error.  Ours stays for an
	 * interrupt that cannot be processed here (interrupts held).
	 */
	if (err->code == TS_ERR_CANCELED)
		CHECK_FOR_INTERRUPTS();
	ereport(ERROR,
			(errcode(err->code == TS_ERR_UNSUPPORTED ? ERRCODE_FEATURE_NOT_SUPPORTED :
					 err->code == TS_ERR_DENIED ? ERRCODE_INSUFFICIENT_PRIVILEGE :
					 err->code == TS_ERR_INVALID ? ERRCODE_INVALID_PARAMETER_VALUE :
					 err->code == TS_ERR_NOMEM ? ERRCODE_OUT_OF_MEMORY :
					 err->code == TS_ERR_CANCELED ? ERRCODE_QUERY_CANCELED :
					 err->code == TS_ERR_RANGE ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE :
					 ERRCODE_FDW_ERROR),
			 errmsg("could not write into foreign table \"%s\": %s", relname, err->msg),
			 err->detail[0] ? errdetail("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0));
}

/*
 * The most data files one write keeps open: tablescan.max_open_writers, and
 * at most a third of the descriptors this backend may use (max_safe_fds, from
 * max_files_per_process and the process's open-file limit): PostgreSQL's own
 * share for descriptors an extension holds (AcquireExternalFD), so that a
 * write into many partitions does not run the server out of descriptors.
 */
static int
open_writers_bound(void)
{
	return Min(tablescan_max_open_writers, Max(1, max_safe_fds / 3));
}

/* Everything a writer needs that options alone decide: refused before any file. */
static void
check_writable(TsTableOptions *o, const char *relname)
{
	char	   *why = NULL;

	if (o->catalog != NULL && (o->rest == NULL || o->rest->format_table))
		why = o->rest ? "format tables of a REST catalog" : "REST catalog tables";
	else if (o->format != NULL)
		why = "format tables (plain directories)";
	else if (o->table_schema != NULL)
		why = "foreign tables with option \"table_schema\"";
	if (why == NULL)
	{
		ListCell   *lk;

		foreach(lk, o->paimon_keys)
		{
			const char *k = lfirst(lk);

			if (strcmp(k, "branch") == 0 || strncmp(k, "scan.", 5) == 0 ||
				strncmp(k, "incremental-between", 19) == 0)
			{
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot write into foreign table \"%s\": option \"%s\" selects what is read",
								relname, k),
						 errhint("Write through a foreign table without scan, branch or incremental options.")));
			}
		}
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("writes to %s are not supported yet", why),
			 errdetail("Foreign table \"%s\" is %s.", relname, o->qualified_name)));
}

/*
 * A writer of the table of o after check_writable, reading and writing
 * through a file system built for it (its scope, the caller's storage
 * settings and keys), as a scan's is; ERROR when it cannot be opened
 * (nothing written then).
 */
ts_table_writer *
tablescan_open_table_writer(TsTableOptions *o, const char *relname)
{
	ts_fs_settings settings = {0};
	ts_option  *options;
	int			n = list_length(o->paimon_keys),
				i = 0;
	ListCell   *lk,
			   *lv;
	ts_err		err = {0};
	ts_fs	   *fs;
	ts_table_writer *w;

	check_writable(o, relname);
	options = palloc0(sizeof(ts_option) * Max(n, 1));
	forboth(lk, o->paimon_keys, lv, o->paimon_values)
	{
		options[i].key = lfirst(lk);
		options[i].value = lfirst(lv);
		i++;
	}
	settings.s3 = o->s3;
	settings.azure = o->azure;
	fs = ts_fs_open_for(o->table_path, &settings, o->fs_scope, &err);
	if (fs && o->rest)
		w = tablescan_rest_open_writer(o, fs, options, n, &err);
	else
		w = fs ? ts_table_writer_open(fs, o->table_path, options, n, &err) : NULL;
	if (w == NULL)
		report_write_error(&err, relname);
	ts_table_writer_set_max_open_files(w, open_writers_bound());
	return w;
}

static TsPendingWrite *
pending_write_for(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	ListCell   *lc;
	TsPendingWrite *pw;
	MemoryContext old;

	foreach(lc, pending)
	{
		pw = lfirst(lc);
		if (pw->relid == relid)
			return pw;
	}
	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		RegisterSubXactCallback(subxact_callback, NULL);
		callbacks_registered = true;
	}
	if (write_cxt == NULL)
		write_cxt = AllocSetContextCreate(TopTransactionContext, "tablescan_fdw writes",
										  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(write_cxt);
	pw = palloc0(sizeof(TsPendingWrite));
	pw->relid = relid;
	pw->relname = pstrdup(RelationGetRelationName(rel));
	pw->opts = tablescan_get_options(relid);
	pw->writer = tablescan_open_table_writer(pw->opts, pw->relname);
	MemoryContextSwitchTo(old);
	pw->birth_level = GetCurrentTransactionNestLevel();
	/* plans cached before this write replan: their scans must not run in parallel workers */
	CacheInvalidateRelcacheByRelid(relid);
	old = MemoryContextSwitchTo(write_cxt);
	pending = lappend(pending, pw);
	MemoryContextSwitchTo(old);
	return pw;
}

/* A random commit user, with commit.user-prefix as Java's createCommitUser. */
static char *
commit_user(TsPendingWrite *pw)
{
	char		uuid[37];
	ts_err		err = {0};
	ListCell   *lk,
			   *lv;
	const char *prefix = NULL;

	if (!ts_random_uuid(uuid, &err))
		report_write_error(&err, pw->relname);
	forboth(lk, pw->opts->paimon_keys, lv, pw->opts->paimon_values)
		if (strcmp(lfirst(lk), "commit.user-prefix") == 0)
		prefix = lfirst(lv);
	return prefix ? psprintf("%s_%s", prefix, uuid) : pstrdup(uuid);
}

static void
forget_all(bool remove_files)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		TsPendingWrite *pw = lfirst(lc);

		if (pw->writer == NULL)
			continue;
		if (remove_files)
			ts_table_writer_abort(pw->writer);
		else
			ts_table_writer_free(pw->writer);
		pw->writer = NULL;
	}
	pending = NIL;
	write_cxt = NULL;			/* went (or goes) with TopTransactionContext */
}

static void
commit_all(void)
{
	ListCell   *lc;

	/* refuse before any table of the transaction commits */
	foreach(lc, pending)
	{
		TsPendingWrite *pw = lfirst(lc);

		if (pw->writer != NULL && pw->poisoned)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot commit the rows written into foreign table \"%s\"", pw->relname),
					 errdetail("A subtransaction that wrote rows into it was rolled back; its rows cannot be taken out of the data files."),
					 errhint("Roll back the transaction, or do not roll back to savepoints after writing into Paimon tables.")));
	}
	foreach(lc, pending)
	{
		TsPendingWrite *pw = lfirst(lc);
		ts_err		err = {0};
		int64_t		id;
		MemoryContext old;
		bool		ok;

		if (pw->writer == NULL)
			continue;
		old = MemoryContextSwitchTo(write_cxt);
		ok = ts_table_writer_commit(pw->writer, commit_user(pw), &id, &err);
		MemoryContextSwitchTo(old);
		if (!ok)
			report_write_error(&err, pw->relname);
		ts_table_writer_free(pw->writer);
		pw->writer = NULL;
	}
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			commit_all();
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (pending != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that has written into a Paimon table")));
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			forget_all(true);
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			forget_all(false);
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid,
				 void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	ListCell   *lc;

	foreach(lc, pending)
	{
		TsPendingWrite *pw = lfirst(lc);
		int64		rows;

		if (pw->writer == NULL)
			continue;
		rows = ts_table_writer_rows(pw->writer);
		if (event == SUBXACT_EVENT_START_SUB)
		{
			if (level >= pw->nlevels)
			{
				int			n = Max(level + 1, pw->nlevels * 2);

				pw->rows_at_level = pw->rows_at_level ?
					repalloc(pw->rows_at_level, sizeof(int64) * n) :
					MemoryContextAlloc(write_cxt, sizeof(int64) * n);
				pw->nlevels = n;
			}
			pw->rows_at_level[level] = rows;
		}
		else if (event == SUBXACT_EVENT_ABORT_SUB)
		{
			if (pw->birth_level >= level)
			{
				/* made inside the aborted subtransaction: all its rows go */
				ts_table_writer_abort(pw->writer);
				pw->writer = NULL;
				pending = foreach_delete_current(pending, lc);
			}
			else if (level < pw->nlevels && pw->rows_at_level[level] != rows)
				pw->poisoned = true;
		}
		else if (event == SUBXACT_EVENT_COMMIT_SUB && pw->birth_level >= level)
			pw->birth_level = level - 1;	/* now the parent's */
	}
}

/* ---- reads of the transaction's own rows ----------------------------------------- */

/*
 * Does a scan with opts read the table a pending write writes, at its
 * latest snapshot?  Scans with options that choose what is read (a branch,
 * time travel, incremental reads) read without the transaction's rows.
 */
static bool
reads_pending(TsTableOptions *opts, TsPendingWrite *pw)
{
	ListCell   *lk;

	if (pw->writer == NULL || strcmp(pw->opts->table_path, opts->table_path) != 0 ||
		opts->format != NULL || opts->table_schema != NULL)
		return false;
	foreach(lk, opts->paimon_keys)
	{
		const char *k = lfirst(lk);

		if (strcmp(k, "branch") == 0 || strncmp(k, "scan.", 5) == 0 ||
			strncmp(k, "incremental-between", 19) == 0)
			return false;
	}
	return true;
}

bool
tablescan_has_pending_writes(TsTableOptions *opts)
{
	ListCell   *lc;

	if (opts == NULL)			/* into any table */
		return pending != NIL;

	foreach(lc, pending)
		if (reads_pending(opts, lfirst(lc)))
		return true;
	return false;
}

/*
 * The files holding the rows this transaction wrote into the table of
 * opts so far, as the realtime context of a scan (ts_scan_context.realtime),
 * entries in arena; false when it wrote none.  A scan sees the rows of the
 * statements before its own: the rows of earlier statements still in open
 * files or buffers are finished into files first (primary-key records as
 * level-0 files, numbered as written), those the current statement writes
 * are not read.
 */
bool
tablescan_pending_files(TsTableOptions *opts, ts_arena *arena, ts_realtime_context *out)
{
	CommandId	cid = GetCurrentCommandId(false);
	ListCell   *lc;
	ts_manifest_entry *all = NULL;
	int			nall = 0;

	memset(out, 0, sizeof(*out));
	foreach(lc, pending)
	{
		TsPendingWrite *pw = lfirst(lc);
		ts_err		err = {0};
		ts_manifest_entry *entries;
		int			n;

		if (!reads_pending(opts, pw))
			continue;
		if (pw->poisoned)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot read foreign table \"%s\" in this transaction", pw->relname),
					 errdetail("A subtransaction that wrote rows into it was rolled back; its rows cannot be taken out of the data files."),
					 errhint("Roll back the transaction.")));
		if (pw->has_write_cid && pw->write_cid == cid)
		{
			/* this statement writes the table too: what the earlier ones wrote */
			if (pw->mixed)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot read foreign table \"%s\" in a statement that writes it after earlier statements of the transaction wrote it",
								pw->relname),
						 errdetail("The rows of the earlier statements are not yet apart from this statement's."),
						 errhint("Read the table in a statement of its own first, or write and read it in separate statements.")));
			n = pw->files_before_cid;
		}
		else
		{
			/* the writer's memory is the transaction's (ts_malloc: the current context) */
			MemoryContext old = MemoryContextSwitchTo(write_cxt);
			bool		ok = ts_table_writer_flush(pw->writer, &err);

			MemoryContextSwitchTo(old);
			if (!ok)
				report_write_error(&err, pw->relname);
			pw->rows_in_files = ts_table_writer_rows(pw->writer);
			n = ts_table_writer_files(pw->writer);
		}
		pw->read = true;
		if (n == 0)
			continue;
		if (!ts_table_writer_pending_entries(pw->writer, n, arena, &entries, &err))
			report_write_error(&err, pw->relname);
		if (all == NULL)
			all = entries;
		else
		{
			ts_manifest_entry *both = ts_arena_alloc(arena, sizeof(*both) * (nall + n));

			if (both == NULL)
				ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
			memcpy(both, all, sizeof(*both) * nall);
			memcpy(both + nall, entries, sizeof(*both) * n);
			all = both;
		}
		nall += n;
	}
	out->entries = all;
	out->nentries = nall;
	return nall > 0;
}

/* ---- execution ---------------------------------------------------------------- */

static TsModifyState *
begin_insert(ResultRelInfo *rinfo)
{
	Relation	rel = rinfo->ri_RelationDesc;
	TupleDesc	desc = RelationGetDescr(rel);
	TsModifyState *st = palloc0(sizeof(TsModifyState));
	const ts_schema *schema;
	int		   *map;

	st->rel = rel;
	st->pw = pending_write_for(rel);
	st->writer_at_start = st->pw->writer;
	st->extra_at_start = ts_table_writer_bound_extra_files(st->pw->writer);
	schema = ts_table_writer_schema(st->pw->writer);
	map = tablescan_map_columns(rel, schema);
	st->nfields = schema->nfields;
	st->field_of_att = map;
	st->att_of_field = palloc(sizeof(int) * Max(schema->nfields, 1));
	for (int f = 0; f < schema->nfields; f++)
		st->att_of_field[f] = -1;
	st->shard_of_att = palloc0(sizeof(Const *) * Max(desc->natts, 1));
	for (int a = 0; a < desc->natts; a++)
		if (map[a] >= 0)
			st->att_of_field[map[a]] = a;
		else if (map[a] == TS_COLUMN_SHARD)
			st->shard_of_att[a] =
				tablescan_shard_const_of(tablescan_get_options(RelationGetRelid(rel)), rel, a);
	for (int f = 0; f < schema->nfields; f++)
		if (st->att_of_field[f] < 0 && !schema->fields[f].type->nullable)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("foreign table \"%s\" has no column for NOT NULL field \"%s\" of the Paimon table",
							RelationGetRelationName(rel), schema->fields[f].name)));
	st->values = palloc0(sizeof(ts_value) * Max(schema->nfields, 1));
	st->old_values = palloc0(sizeof(ts_value) * Max(schema->nfields, 1));
	st->batch_size = batch_size_of(RelationGetRelid(rel));
	st->row_cxt = AllocSetContextCreate(CurrentMemoryContext, "tablescan_fdw insert row",
										ALLOCSET_DEFAULT_SIZES);
	return st;
}

/* A row's Datums (attribute order) as Paimon values (schema order), in the current context. */
static void
row_values(TsModifyState *st, const Datum *datums, const bool *isnull, ts_value *values)
{
	const ts_schema *schema = ts_table_writer_schema(st->pw->writer);
	TupleDesc	desc = RelationGetDescr(st->rel);

	for (int a = 0; a < desc->natts; a++)
		if (st->field_of_att[a] < -1 && !isnull[a] &&
			!(st->shard_of_att[a] && tablescan_shard_value_is(st->shard_of_att[a], datums[a])))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot write system column \"%s\" of foreign table \"%s\"",
							NameStr(TupleDescAttr(desc, a)->attname), RelationGetRelationName(st->rel)),
					 st->field_of_att[a] == TS_COLUMN_SHARD ?
					 errhint("_SHARD is the pseudo-column holding K of option \"scan.shard\", not a Paimon field: leave it out, or give NULL, DEFAULT or its own value.") : 0));
	for (int f = 0; f < st->nfields; f++)
	{
		int			a = st->att_of_field[f];
		const ts_field *fld = &schema->fields[f];
		ts_value   *v = &values[f];

		memset(v, 0, sizeof(*v));
		if (a < 0 || isnull[a])
		{
			if (!fld->type->nullable)
				ereport(ERROR,
						(errcode(ERRCODE_NOT_NULL_VIOLATION),
						 errmsg("null value in column \"%s\" of foreign table \"%s\" violates the Paimon field's NOT NULL",
								fld->name, RelationGetRelationName(st->rel))));
			v->isnull = true;
			continue;
		}
		if (!tablescan_write_value(datums[a], TupleDescAttr(desc, a)->atttypid,
								   fld->type, v, NameStr(TupleDescAttr(desc, a)->attname)))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("value of column \"%s\" of foreign table \"%s\" cannot be stored exactly as Paimon type %s",
							NameStr(TupleDescAttr(desc, a)->attname), RelationGetRelationName(st->rel),
							ts_type_kind_name(fld->type->kind)),
					 errhint("Declare the column with a type that matches the Paimon field (see IMPORT FOREIGN SCHEMA).")));
	}
}

/*
 * Before a row is written: when it is the first of a statement, what the
 * earlier statements wrote becomes what this statement's scans see
 * (tablescan_pending_files).  After a read of the table their rows are
 * finished into files now; otherwise they stay with this statement's (a
 * scan in this statement then refuses to read).
 */
static void
note_write_command(TsPendingWrite *pw)
{
	CommandId	cid = GetCurrentCommandId(true);
	ts_err		err = {0};
	bool		unfinished;

	if (pw->has_write_cid && pw->write_cid == cid)
		return;
	unfinished = ts_table_writer_rows(pw->writer) != pw->rows_in_files;
	if (unfinished && pw->read)
	{
		if (!ts_table_writer_flush(pw->writer, &err))
			report_write_error(&err, pw->relname);
		pw->rows_in_files = ts_table_writer_rows(pw->writer);
		unfinished = false;
	}
	pw->mixed = unfinished;
	pw->files_before_cid = ts_table_writer_files(pw->writer);
	pw->write_cid = cid;
	pw->has_write_cid = true;
}

/* One row of kind (TS_ROW_INSERT: ts_table_writer_add) into the transaction's writer. */
static void
write_row(TsModifyState *st, int kind, TupleTableSlot *slot, HeapTupleHeader old_row)
{
	ts_err		err = {0};
	MemoryContext old;
	bool		ok;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(st->row_cxt);
	old = MemoryContextSwitchTo(st->row_cxt);
	if (slot != NULL)
	{
		slot_getallattrs(slot);
		row_values(st, slot->tts_values, slot->tts_isnull, st->values);
	}
	if (old_row != NULL)
	{
		TupleDesc	desc = RelationGetDescr(st->rel);
		HeapTupleData tuple;
		Datum	   *datums = palloc(sizeof(Datum) * Max(desc->natts, 1));
		bool	   *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));

		tuple.t_len = HeapTupleHeaderGetDatumLength(old_row);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = RelationGetRelid(st->rel);
		tuple.t_data = old_row;
		heap_deform_tuple(&tuple, desc, datums, isnull);
		row_values(st, datums, isnull, st->old_values);
	}
	MemoryContextSwitchTo(write_cxt);
	note_write_command(st->pw);
	if (kind == TS_ROW_INSERT)
		ok = ts_table_writer_add(st->pw->writer, st->values, &err);
	else if (slot == NULL)
		ok = ts_table_writer_add_change(st->pw->writer, kind, st->old_values, NULL, &err);
	else
		ok = ts_table_writer_add_change(st->pw->writer, kind, st->values, st->old_values, &err);
	MemoryContextSwitchTo(old);
	if (!ok)
		report_write_error(&err, st->pw->relname);
}

static void
insert_row(TsModifyState *st, TupleTableSlot *slot)
{
	write_row(st, TS_ROW_INSERT, slot, NULL);
}

void
tablescan_modify_change(ResultRelInfo *rinfo, int kind, TupleTableSlot *new_slot,
						HeapTupleHeader old_row)
{
	write_row(rinfo->ri_FdwState, kind, new_slot, old_row);
}

/* An UPDATE or DELETE that writes whole rows: every field needs a column (why: detail). */
static void
require_every_field(TsModifyState *st, Relation rel, const char *verb, const char *detail)
{
	for (int f = 0; f < st->nfields; f++)
		if (st->att_of_field[f] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot %s foreign table \"%s\": field \"%s\" of the Paimon table has no column",
							verb, RelationGetRelationName(rel),
							ts_table_writer_schema(st->pw->writer)->fields[f].name),
					 errdetail("%s", detail),
					 errhint("Declare a column for every field (see IMPORT FOREIGN SCHEMA).")));
}

static void
tablescanBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo, List *fdw_private,
							int subplan_index, int eflags)
{
	TsModifyState *st;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	st = begin_insert(rinfo);
	rinfo->ri_FdwState = st;
	/* an UPDATE writes whole rows: a field without a column would be written NULL */
	if (mtstate->operation == CMD_UPDATE)
		require_every_field(st, rinfo->ri_RelationDesc, "update",
							"An UPDATE writes the whole new row; the field's value would be lost.");
	/* changelog-producer input: the -D row in the changelog is the whole deleted row */
	if (mtstate->operation == CMD_DELETE && ts_table_writer_writes_changelog(st->pw->writer))
		require_every_field(st, rinfo->ri_RelationDesc, "delete from",
							"The table's changelog-producer \"input\" writes the whole deleted row as its -D change; the field's value would be lost.");
}

static TupleTableSlot *
tablescanExecForeignInsert(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
						   TupleTableSlot *planSlot)
{
	insert_row(rinfo->ri_FdwState, slot);
	return slot;
}

static TupleTableSlot **
tablescanExecForeignBatchInsert(EState *estate, ResultRelInfo *rinfo, TupleTableSlot **slots,
								TupleTableSlot **planSlots, int *numSlots)
{
	for (int i = 0; i < *numSlots; i++)
		insert_row(rinfo->ri_FdwState, slots[i]);
	return slots;
}

static int
tablescanGetForeignModifyBatchSize(ResultRelInfo *rinfo)
{
	TsModifyState *st = rinfo->ri_FdwState;

	/* RETURNING and row triggers need a row at a time (as postgres_fdw) */
	if (st == NULL || rinfo->ri_projectReturning != NULL ||
		(rinfo->ri_TrigDesc && (rinfo->ri_TrigDesc->trig_insert_after_row ||
								rinfo->ri_TrigDesc->trig_insert_before_row)))
		return 1;
	return st->batch_size;
}

/*
 * A statement that wrote into more partitions and buckets at once than
 * tablescan.max_open_writers allows open, in an order that came back to a
 * bucket after its file was finished: those buckets got more (smaller)
 * files than their rows needed.  Said once per statement.
 */
static void
notice_extra_files(TsModifyState *st)
{
	int64		n;

	if (st == NULL || st->pw == NULL || st->pw->writer == NULL)
		return;
	n = ts_table_writer_bound_extra_files(st->pw->writer) -
		(st->pw->writer == st->writer_at_start ? st->extra_at_start : 0);
	if (n > 0)
		ereport(NOTICE,
				(errmsg("%lld more data files were written into foreign table \"%s\" than its partitions and buckets needed",
						(long long) n, st->pw->relname),
				 errdetail("Rows came back to a partition and bucket whose file had been finished to keep at most tablescan.max_open_writers data files open (at most a third of max_files_per_process)."),
				 errhint("Order the rows by the partition keys, or raise tablescan.max_open_writers.")));
}

static void
tablescanEndForeignModify(EState *estate, ResultRelInfo *rinfo)
{
	/* the writer stays open until the transaction commits or aborts */
	notice_extra_files(rinfo->ri_FdwState);
}

static void
tablescanBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	rinfo->ri_FdwState = begin_insert(rinfo);
}

static void
tablescanEndForeignInsert(EState *estate, ResultRelInfo *rinfo)
{
	notice_extra_files(rinfo->ri_FdwState);
}

static void
tablescanExplainForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo, List *fdw_private,
							  int subplan_index, struct ExplainState *es)
{
	Relation	rel = rinfo->ri_RelationDesc;
	TsTableOptions *o = tablescan_get_options(RelationGetRelid(rel));
	ts_table_writer *w;
	int32		buckets;
	const char *format;

	/* what the INSERT would write, refusals included (no data file is written) */
	w = tablescan_open_table_writer(o, RelationGetRelationName(rel));
	buckets = ts_table_writer_total_buckets(w);
	format = ts_table_writer_file_format(w);	/* a static string */
	ts_table_writer_free(w);
	ExplainPropertyText("Paimon Table", o->qualified_name, es);
	ExplainPropertyText("Data Files", format, es);
	if (buckets > 0)
		ExplainPropertyInteger("Buckets", NULL, buckets, es);
	else
		ExplainPropertyText("Buckets", "unaware (-1)", es);
	ExplainPropertyText("Commit", o->rest ? "one APPEND snapshot at transaction commit, through the REST catalog" :
						"one APPEND snapshot at transaction commit", es);
}

void
tablescan_modify_routines(FdwRoutine *routine)
{
	routine->IsForeignRelUpdatable = tablescanIsForeignRelUpdatable;
	routine->PlanForeignModify = tablescanPlanForeignModify;
	routine->BeginForeignModify = tablescanBeginForeignModify;
	routine->ExecForeignInsert = tablescanExecForeignInsert;
	routine->ExecForeignBatchInsert = tablescanExecForeignBatchInsert;
	routine->GetForeignModifyBatchSize = tablescanGetForeignModifyBatchSize;
	routine->EndForeignModify = tablescanEndForeignModify;
	routine->BeginForeignInsert = tablescanBeginForeignInsert;
	routine->EndForeignInsert = tablescanEndForeignInsert;
	routine->ExplainForeignModify = tablescanExplainForeignModify;
	tablescan_modify_pk_routines(routine);
}
