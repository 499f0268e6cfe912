/*
 * changes.c - following a table's changes in SQL, with exactly-once progress.
 *
 * Owns: tablescan_changes(row, consumer, from_snapshot, to_snapshot,
 * max_snapshots), which returns the rows of the snapshots a consumer has
 * not read yet (or of an explicit range) in the foreign table's row type;
 * the consumer's next snapshot is kept in the extension's table
 * tablescan_consumers, locked (SELECT ... FOR UPDATE) and moved in the
 * reading transaction, so a rollback leaves it where it was and a
 * concurrent reader of the same consumer waits for the first one's commit
 * and then reads what follows.  tablescan_consumer_reset / _drop manage
 * positions; tablescan_wait_for_snapshot sleeps on the latch until a
 * snapshot after a given one exists.
 *
 * The rows are read by running SELECT * FROM the foreign table through SPI
 * while an option override for that table is active
 * (tablescan_changes_adjust_options, called by tablescan_get_options): the
 * table's starting options (scan.mode, scan.snapshot-id, ...) are taken
 * out and replaced by incremental-between 'next-1,end' (incremental.c) or,
 * for a full start, scan.snapshot-id.  Where a stream starts and how far a
 * batch goes is decided below PostgreSQL, in src/scan/stream.c.
 */
#include "postgres.h"
#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "tablescan_fdw.h"
#include "scan/stream.h"
#include "meta/consumer.h"

/* The column that holds the snapshot of each change (not a Paimon field). */
#define SNAPSHOT_ID_COLUMN "_SNAPSHOT_ID"

/* The starting options a stream takes over from the table. */
static const char *const start_keys[] = {
	"scan.mode", "scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis",
	"scan.timestamp", "scan.watermark", "scan.version", "incremental-between",
	"incremental-between-timestamp", "incremental-between-scan-mode", NULL
};

/* The override of a read in progress (InvalidOid: none): options added */
static Oid	override_relid = InvalidOid;
static int	override_n;
static const char *const *override_keys;
static const char *const *override_values;

static bool
is_start_key(const char *key)
{
	for (int i = 0; start_keys[i]; i++)
		if (strcmp(key, start_keys[i]) == 0)
			return true;
	return false;
}

/* Remove the starting options from o; their last values into so. */
static void
take_start_options(TsTableOptions *o, ts_stream_options *so)
{
	List	   *keys = NIL,
			   *values = NIL;
	ListCell   *k,
			   *v;

	if (so)
		memset(so, 0, sizeof(*so));
	forboth(k, o->paimon_keys, v, o->paimon_values)
	{
		const char *key = lfirst(k);

		if (!is_start_key(key))
		{
			keys = lappend(keys, lfirst(k));
			values = lappend(values, lfirst(v));
			continue;
		}
		if (so == NULL)
			continue;
		if (strcmp(key, "scan.mode") == 0)
			so->mode = lfirst(v);
		else if (strcmp(key, "scan.snapshot-id") == 0)
			so->snapshot_id = lfirst(v);
		else if (strcmp(key, "scan.timestamp-millis") == 0)
			so->timestamp_millis = lfirst(v);
		else if (strcmp(key, "scan.tag-name") == 0 || strcmp(key, "scan.timestamp") == 0 ||
				 strcmp(key, "scan.watermark") == 0 || strcmp(key, "scan.version") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("option \"%s\" cannot start a stream of changes", key),
					 errhint("Start with scan.mode and scan.snapshot-id or scan.timestamp-millis.")));
	}
	o->paimon_keys = keys;
	o->paimon_values = values;
}

void
tablescan_changes_adjust_options(Oid relid, TsTableOptions *o)
{
	if (!OidIsValid(override_relid) || relid != override_relid)
		return;
	take_start_options(o, NULL);
	for (int i = 0; i < override_n; i++)
	{
		o->paimon_keys = lappend(o->paimon_keys, pstrdup(override_keys[i]));
		o->paimon_values = lappend(o->paimon_values, pstrdup(override_values[i]));
	}
	o->cache = false;
}

/*
 * The table's plan (no manifest read) and its starting options; *opts: its
 * options (a REST data token is renewed through them).
 */
static ts_plan *
stream_plan(Oid relid, ts_stream_options *so, TsTableOptions **opts)
{
	TsTableOptions *o = *opts = tablescan_get_options(relid);
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;

	take_start_options(o, so);
	tablescan_make_context(o, &ctx);
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	if (so->mode == NULL && ts_plan_option(plan, TS_OPT_SCAN_MODE))
		so->mode = pstrdup(ts_plan_option(plan, TS_OPT_SCAN_MODE));
	if (!ts_stream_check_table(plan, &err))
	{
		ts_plan_free(plan);
		tablescan_report(&err);
	}
	return plan;
}

/* A REST data token due for renewal, renewed before the next request. */
static void
renew_token(TsTableOptions *o, ts_plan *plan)
{
	if (o->token)
		tablescan_rest_renew_token(o, plan);
}

/* The table beside the calling function (the extension's schema). */
static Oid	calling_function = InvalidOid;

static char *
consumers_table(void)
{
	Oid			nsp = get_func_namespace(calling_function);

	return quote_qualified_identifier(get_namespace_name(nsp), "tablescan_consumers");
}

/*
 * Lock the consumer's row (made if missing); its next snapshot, or
 * *started = false when it has not started yet.
 */
static int64
lock_consumer(Oid relid, const char *consumer, bool *started)
{
	char	   *tab = consumers_table();
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		args[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(consumer)};
	bool		isnull;
	Datum		d;

	if (SPI_execute_with_args(psprintf("INSERT INTO %s (table_oid, consumer) VALUES ($1, $2) ON CONFLICT DO NOTHING", tab),
							  2, types, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not register consumer \"%s\"", consumer);
	if (SPI_execute_with_args(psprintf("SELECT next_snapshot FROM %s WHERE table_oid = $1 AND consumer = $2 FOR UPDATE", tab),
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not lock consumer \"%s\"", consumer);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*started = !isnull;
	return isnull ? 0 : DatumGetInt64(d);
}

static void
move_consumer(Oid relid, const char *consumer, int64 next)
{
	Oid			types[3] = {OIDOID, TEXTOID, INT8OID};
	Datum		args[3] = {ObjectIdGetDatum(relid), CStringGetTextDatum(consumer), Int64GetDatum(next)};

	if (SPI_execute_with_args(psprintf("UPDATE %s SET next_snapshot = $3, updated_at = now() WHERE table_oid = $1 AND consumer = $2",
									   consumers_table()),
							  3, types, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not move consumer \"%s\"", consumer);
}

bool
tablescan_changes_fills_column(Oid relid, const char *name)
{
	return OidIsValid(override_relid) && relid == override_relid &&
		strcmp(name, SNAPSHOT_ID_COLUMN) == 0;
}

/* The table's _SNAPSHOT_ID column (a bigint), else InvalidAttrNumber. */
static AttrNumber
snapshot_id_column(Oid relid)
{
	AttrNumber	att = get_attnum(relid, SNAPSHOT_ID_COLUMN);

	if (att != InvalidAttrNumber && get_atttype(relid, att) != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of foreign table \"%s\" must be of type bigint",
						SNAPSHOT_ID_COLUMN, get_rel_name(relid))));
	return att;
}

/*
 * SELECT the table's columns with the n options keys = values in place of
 * its starting options, each row into the tuplestore in the table's row
 * type (NULLs for dropped columns); its _SNAPSHOT_ID column, if it has
 * one, is not read but set to snapshot_id.
 */
static void
read_rows(Oid relid, int n, const char *const *keys, const char *const *vals,
		  int64 snapshot_id, ReturnSetInfo *rsinfo)
{
	TupleDesc	desc = rsinfo->setDesc;
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	AttrNumber	snap_att = snapshot_id_column(relid);
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	for (int a = 0, first = 1; a < desc->natts; a++)
	{
		if (TupleDescAttr(desc, a)->attisdropped || a + 1 == snap_att)
			continue;
		appendStringInfo(&q, "%s%s", first ? "" : ", ",
						 quote_identifier(NameStr(TupleDescAttr(desc, a)->attname)));
		first = 0;
	}
	appendStringInfo(&q, " FROM %s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));

	override_relid = relid;
	override_n = n;
	override_keys = keys;
	override_values = vals;
	PG_TRY();
	{
		/* no parallel plan: workers would not see the override */
		SPIPlanPtr	plan = SPI_prepare_cursor(q.data, 0, NULL, 0);
		Portal		portal;

		if (plan == NULL)
			elog(ERROR, "could not prepare \"%s\"", q.data);
		portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
		for (;;)
		{
			SPI_cursor_fetch(portal, true, 1000);
			if (SPI_processed == 0)
				break;
			for (uint64 r = 0; r < SPI_processed; r++)
			{
				HeapTuple	t = SPI_tuptable->vals[r];
				int			src = 1;

				CHECK_FOR_INTERRUPTS();
				for (int a = 0; a < desc->natts; a++)
				{
					if (TupleDescAttr(desc, a)->attisdropped || a + 1 == snap_att)
					{
						values[a] = Int64GetDatum(snapshot_id);
						nulls[a] = TupleDescAttr(desc, a)->attisdropped;
						continue;
					}
					values[a] = SPI_getbinval(t, SPI_tuptable->tupdesc, src++, &nulls[a]);
				}
				tuplestore_putvalues(rsinfo->setResult, desc, values, nulls);
			}
			SPI_freetuptable(SPI_tuptable);
		}
		SPI_cursor_close(portal);
		SPI_freeplan(plan);		/* a batch may read snapshot by snapshot */
	}
	PG_FINALLY();
	{
		override_relid = InvalidOid;
	}
	PG_END_TRY();
}

static Oid
relid_of_row_arg(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			relid = OidIsValid(typid) ? get_typ_typrelid(typid) : InvalidOid;

	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the first argument of tablescan_changes must be a row of a foreign table"),
				 errhint("Pass NULL cast to the table's row type, e.g. tablescan_changes(NULL::orders, consumer => 'c').")));
	return tablescan_check_foreign_table(relid);
}

/*
 * A full start of a primary-key table: a merged read of the snapshot, which
 * gives no row kinds.
 */
static void
check_full_start(Oid relid, const ts_plan *plan, const char *mode)
{
	if (plan->kind == TS_TABLE_PRIMARY_KEY && get_attnum(relid, "_ROW_KIND") != InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("scan.mode \"%s\" of foreign table \"%s\" starts with a full read, which has no column _ROW_KIND",
						mode, get_rel_name(relid)),
				 errhint("Start with scan.mode 'latest', 'from-snapshot' or 'from-timestamp', or read through a foreign table without _ROW_KIND.")));
}

/* Paimon's consumer.ignore-progress: do not start from the consumer file. */
static bool
ignore_progress(const ts_plan *plan)
{
	const char *v = ts_plan_option(plan, "consumer.ignore-progress");

	return v != NULL && tablescan_option_bool(v);
}

/*
 * The changes of snapshots from..to (snapshot_id: every row's _SNAPSHOT_ID,
 * see read_rows): one unmerged read of the range, as Java's follow-up
 * scanners plan it; with streaming-read-overwrite on a primary-key table
 * (streaming-read-append-overwrite on an append table) its OVERWRITE
 * snapshots are read apart, in snapshot order, each as the changes it made
 * (Java's OverwriteFollowUpScanner: incremental_diff.c).
 */
static void
read_changes(Oid relid, const ts_plan *plan, int64 from, int64 to, int64 snapshot_id,
			 ReturnSetInfo *rsinfo)
{
	const char *delta_keys[] = {"incremental-between", TS_OPT_STREAM_UNMERGED};
	const char *overwrite_keys[] = {"incremental-between", TS_OPT_STREAM_OVERWRITE};

	while (from <= to)
	{
		int64_t		overwrite = 0;
		int64		run_end;
		ts_err		err = {0};

		if (ts_stream_reads_overwrite(plan) &&
			!ts_stream_next_overwrite(plan, from, to, &overwrite, &err))
			tablescan_report(&err);
		run_end = overwrite > 0 ? overwrite - 1 : to;
		if (run_end >= from)
		{
			const char *values[] = {psprintf(INT64_FORMAT "," INT64_FORMAT, from - 1, run_end), "true"};

			read_rows(relid, 2, delta_keys, values, snapshot_id, rsinfo);
		}
		if (overwrite == 0)
			break;
		{
			const char *values[] = {psprintf(INT64_FORMAT "," INT64_FORMAT, (int64) overwrite - 1,
											 (int64) overwrite), "true"};

			read_rows(relid, 2, overwrite_keys, values, snapshot_id, rsinfo);
		}
		from = overwrite + 1;
	}
}

PG_FUNCTION_INFO_V1(tablescan_changes);

Datum
tablescan_changes(PG_FUNCTION_ARGS)
{
	Oid			relid = relid_of_row_arg(fcinfo);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *consumer = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	int64		max_snapshots = PG_ARGISNULL(4) ? 0 : PG_GETARG_INT32(4);
	bool		paimon_consumer = PG_NARGS() > 5 && !PG_ARGISNULL(5) && PG_GETARG_BOOL(5);
	ts_stream_options so;
	TsTableOptions *o;
	ts_plan    *volatile plan;
	ts_err		err = {0};

	calling_function = fcinfo->flinfo->fn_oid;

	if (!PG_ARGISNULL(4) && max_snapshots <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_snapshots must be positive")));
	if (consumer && (!PG_ARGISNULL(2) || !PG_ARGISNULL(3)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablescan_changes takes a consumer or a snapshot range, not both")));
	if (paimon_consumer && (!PG_ARGISNULL(2) || !PG_ARGISNULL(3)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("paimon_consumer needs a consumer, not a snapshot range")));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	plan = stream_plan(relid, &so, &o);
	/* Paimon's option consumer-id names the consumer when none is given */
	if (consumer == NULL && PG_ARGISNULL(2) && PG_ARGISNULL(3) && ts_plan_option(plan, TS_OPT_CONSUMER_ID))
		consumer = pstrdup(ts_plan_option(plan, TS_OPT_CONSUMER_ID));
	if (consumer == NULL && PG_ARGISNULL(2))
	{
		ts_plan_free(plan);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablescan_changes needs a consumer (or the table option consumer-id) or from_snapshot")));
	}
	if (paimon_consumer)
		tablescan_consumer_file_check(relid, o, consumer);
	SPI_connect();
	PG_TRY();
	{
		int64		next,
					end;
		bool		started = true;

		if (consumer)
			next = lock_consumer(relid, consumer, &started);
		else
			next = PG_GETARG_INT64(2);
		/* as Java's starting scanner: a consumer file is where it goes on */
		if (!started && paimon_consumer && !ignore_progress(plan))
		{
			if (!ts_consumer_read(plan->fs, plan->branch_root, consumer, &started, &next, &err))
				tablescan_report(&err);
		}
		if (!started)
		{
			ts_stream_start_result st;

			if (!ts_stream_start(plan, &so, &st, &err))
				tablescan_report(&err);
			if (st.started && st.full_snapshot > 0)
			{
				/*
				 * As Java's streaming full start: level 0 of DV and first-row
				 * tables merged, only some levels of lookup / full-compaction
				 * tables (TS_OPT_STREAM_FULL_START)
				 */
				const char *keys[] = {"scan.snapshot-id", TS_OPT_STREAM_FULL_START,
				"deletion-vectors.merge-on-read"};
				const char *values[] = {psprintf(INT64_FORMAT, st.full_snapshot), "true", "true"};

				check_full_start(relid, plan, st.mode);
				read_rows(relid, plan->core.deletion_vectors ? 3 : 2, keys, values,
						  st.full_snapshot, rsinfo);
				if (max_snapshots == 1)
				{
					move_consumer(relid, consumer, st.next);
					if (paimon_consumer)
						tablescan_consumer_file_promise(o, plan->branch_root, consumer, st.next);
					goto done;
				}
				if (max_snapshots > 0)
					max_snapshots--;
			}
			if (!st.started)
				goto done;		/* no snapshot yet: start on a later call */
			next = st.next;
		}
		renew_token(o, plan);
		if (!ts_stream_batch(plan, next, max_snapshots, &end, &err))
			tablescan_report(&err);
		if (!PG_ARGISNULL(3))
		{
			int64		to = PG_GETARG_INT64(3);
			int64_t		latest;

			if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, &err))
				tablescan_report(&err);
			if (to < next || to > latest)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("snapshot range " INT64_FORMAT " to " INT64_FORMAT " of \"%s\" is not within its snapshots (latest " INT64_FORMAT ")",
								next, to, get_rel_name(relid), (int64) latest)));
			end = Min(end, to);
		}
		if (snapshot_id_column(relid) != InvalidAttrNumber)
		{
			/* one read per snapshot, to tell each change's snapshot */
			for (int64 s = next; s <= end; s++)
			{
				CHECK_FOR_INTERRUPTS();
				read_changes(relid, plan, s, s, s, rsinfo);
			}
		}
		else
			read_changes(relid, plan, next, end, 0, rsinfo);
		if (consumer)
		{
			move_consumer(relid, consumer, Max(next, end + 1));
			/* written when this transaction commits (consumer_file.c) */
			if (paimon_consumer)
				tablescan_consumer_file_promise(o, plan->branch_root, consumer,
												Max(next, end + 1));
		}
done:
		;
	}
	PG_FINALLY();
	{
		ts_plan_free(plan);
	}
	PG_END_TRY();
	SPI_finish();
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tablescan_consumer_reset);

/* (regclass, consumer, next_snapshot): NULL next = start again per scan.mode */
Datum
tablescan_consumer_reset(PG_FUNCTION_ARGS)
{
	Oid			types[3] = {OIDOID, TEXTOID, INT8OID};
	Datum		args[3];
	char		nulls[3] = {' ', ' ', PG_ARGISNULL(2) ? 'n' : ' '};

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tablescan_consumer_reset needs a table and a consumer")));
	args[0] = ObjectIdGetDatum(tablescan_check_foreign_table(PG_GETARG_OID(0)));
	args[1] = PointerGetDatum(PG_GETARG_TEXT_PP(1));
	args[2] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	calling_function = fcinfo->flinfo->fn_oid;

	if (!PG_ARGISNULL(2) && PG_GETARG_INT64(2) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("next_snapshot must be positive")));
	SPI_connect();
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (table_oid, consumer, next_snapshot) VALUES ($1, $2, $3) "
									   "ON CONFLICT (table_oid, consumer) DO UPDATE SET next_snapshot = excluded.next_snapshot, updated_at = now()",
									   consumers_table()),
							  3, types, args, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not reset consumer");
	SPI_finish();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(tablescan_consumer_drop);

Datum
tablescan_consumer_drop(PG_FUNCTION_ARGS)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		args[2] = {ObjectIdGetDatum(tablescan_check_foreign_table(PG_GETARG_OID(0))),
	PointerGetDatum(PG_GETARG_TEXT_PP(1))};
	bool		found;

	calling_function = fcinfo->flinfo->fn_oid;

	SPI_connect();
	if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE table_oid = $1 AND consumer = $2",
									   consumers_table()),
							  2, types, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not drop consumer");
	found = SPI_processed > 0;
	SPI_finish();
	PG_RETURN_BOOL(found);
}

/* Milliseconds of a non-negative interval (months as 30 days). */
static long
interval_ms(const Interval *iv)
{
	double		ms = iv->time / 1000.0 +
		((double) iv->day + (double) iv->month * DAYS_PER_MONTH) * SECS_PER_DAY * 1000.0;

	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeout must not be negative")));
	return ms > (double) LONG_MAX ? LONG_MAX : (long) ms;
}

PG_FUNCTION_INFO_V1(tablescan_wait_for_snapshot);

/*
 * (regclass, after, timeout): the latest snapshot id once it is after
 * 'after', NULL at the timeout.  Polls the LATEST hint every 200 ms (or
 * sooner at the end), sleeping on the latch so that a cancel ends it.
 */
Datum
tablescan_wait_for_snapshot(PG_FUNCTION_ARGS)
{
	Oid			relid = tablescan_check_foreign_table(PG_GETARG_OID(0));
	int64		after = PG_GETARG_INT64(1);
	long		timeout = interval_ms(PG_GETARG_INTERVAL_P(2));
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout);
	ts_stream_options so;
	TsTableOptions *o;
	ts_plan    *volatile plan = stream_plan(relid, &so, &o);
	volatile int64 found = -1;

	PG_TRY();
	{
		for (;;)
		{
			ts_err		err = {0};
			int64_t		latest;
			long		left;

			renew_token(o, plan);
			if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, &err))
				tablescan_report(&err);
			if (latest > after)
			{
				found = latest;
				break;
			}
			left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
			if (left <= 0)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 Min(left, 200L), PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_FINALLY();
	{
		ts_plan_free(plan);
	}
	PG_END_TRY();
	if (found < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(found);
}
