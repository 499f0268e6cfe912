/*
 * plan.c - planning the Paimon scan of a foreign table.
 *
 * Owns: the scan context made from the merged options (partition_filter
 * JSON, scan.timestamp in the session's time zone), the mapping of the
 * relation's columns to Paimon fields, planning with the relation's quals
 * as a predicate, the guard that releases a plan's cache pins with its
 * memory context, and the metrics of the last plan.
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include <cjson/cJSON.h>

#include "tablescan_fdw.h"
#include "read/read.h"
#include "expr/predicate.h"
#include "scan/row_ids.h"

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
		else if (map[i] < 0 && tablescan_is_shard_name(name))
		{
			tablescan_shard_column_check(rel, i);	/* shard_column.c */
			map[i] = TS_COLUMN_SHARD;
		}
		else if (map[i] < 0 && tablescan_changes_fills_column(RelationGetRelid(rel), name))
			continue;			/* tablescan_changes sets it (changes.c) */
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

/*
 * partition_filter JSON: [{"k1":"1","k2":"10"}, ...] = OR of ANDs.  Values
 * are partition path strings; numbers and null are accepted too.  Parsed
 * in one pass (linear in its size, interruptible) and bounded: it is
 * checked by the validator when set, and parsed again for each scan.
 */
#define PARTITION_FILTER_MAX_ALTERNATIVES 100000

static void pg_attribute_noreturn()
bad_partition_filter(cJSON *root, const char *what, const char *hint)
{
	if (root)
		cJSON_Delete(root);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"partition_filter\": %s", what),
			 errhint("%s", hint)));
}

/* An escaped NUL (\u0000) would end the C string of a value early. */
static bool
has_escaped_nul(const char *text)
{
	for (const char *p = text; (p = strstr(p, "u0000")) != NULL; p++)
	{
		int			backslashes = 0;

		for (const char *b = p - 1; b >= text && *b == '\\'; b--)
			backslashes++;
		if (backslashes % 2 == 1)
			return true;
	}
	return false;
}

void
tablescan_parse_partition_filter(const char *text, int *nfilters, ts_option ***filters_out)
{
	const char *array_hint = "Use a JSON array of objects, e.g. [{\"dt\":\"2024-01-01\",\"hr\":\"10\"}], an OR of ANDs.";
	cJSON	   *root;
	cJSON	   *obj;
	ts_option **filters;
	int			n = 0,
				i = 0;

	if (has_escaped_nul(text))
		bad_partition_filter(NULL, "a value holds \\u0000",
							 "Partition values are text of a directory name, which cannot hold a NUL byte.");
	root = cJSON_Parse(text);
	if (root == NULL || !cJSON_IsArray(root))
		bad_partition_filter(root, "not a JSON array", array_hint);
	cJSON_ArrayForEach(obj, root)
	{
		if (++n > PARTITION_FILTER_MAX_ALTERNATIVES)
			bad_partition_filter(root, psprintf("more than %d alternatives",
												PARTITION_FILTER_MAX_ALTERNATIVES),
								 "Use a WHERE clause on the partition keys for long lists of partitions.");
	}
	filters = palloc0(sizeof(ts_option *) * Max(n, 1));
	cJSON_ArrayForEach(obj, root)
	{
		cJSON	   *kv;
		int			m = 0,
					j = 0;
		ts_option  *list;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!cJSON_IsObject(obj))
			bad_partition_filter(root, psprintf("element %d is not a JSON object", i + 1),
								 "Use a JSON array of objects, e.g. [{\"dt\":\"2024-01-01\"}].");
		cJSON_ArrayForEach(kv, obj)
			m++;
		list = palloc0(sizeof(ts_option) * (m + 1));
		cJSON_ArrayForEach(kv, obj)
		{
			list[j].key = pstrdup(kv->string);
			if (cJSON_IsString(kv))
				list[j].value = pstrdup(kv->valuestring);
			else if (cJSON_IsNull(kv))
				list[j].value = NULL;
			else if (cJSON_IsNumber(kv) || cJSON_IsBool(kv))
			{
				char	   *p = cJSON_PrintUnformatted(kv);

				list[j].value = pstrdup(p);
				cJSON_free(p);
			}
			else
				bad_partition_filter(root, psprintf("the value of \"%s\" in element %d is not a string, number or null",
													kv->string, i + 1),
									 "Give each partition value as it appears in the partition's directory name.");
			j++;
		}
		filters[i++] = list;
	}
	cJSON_Delete(root);
	*nfilters = n;
	*filters_out = filters;
}

static void
parse_partition_filter(const char *text, ts_scan_context *ctx)
{
	ts_option **filters;
	int			n;

	tablescan_parse_partition_filter(text, &n, &filters);
	ctx->npartition_filters = n;
	ctx->partition_filters = (const ts_option *const *) filters;
}

void
tablescan_make_context(TsTableOptions *opts, ts_scan_context *ctx)
{
	int			n = list_length(opts->paimon_keys);
	ts_option  *options = palloc0(sizeof(ts_option) * Max(n, 1));
	ListCell   *lk,
			   *lv;
	int			i = 0;

	memset(ctx, 0, sizeof(*ctx));
	ctx->table_path = opts->table_path;
	ctx->fs_scope = opts->fs_scope;
	ctx->s3 = opts->s3;
	ctx->azure = opts->azure;
	forboth(lk, opts->paimon_keys, lv, opts->paimon_values)
	{
		options[i].key = lfirst(lk);
		options[i].value = lfirst(lv);
		if (strcmp(options[i].key, TS_OPT_SCAN_TIMESTAMP) == 0)
		{
			/*
			 * Java reads 'yyyy-MM-dd HH:mm:ss' in the JVM's time zone; we
			 * read it as a timestamptz in the session's TimeZone and hand
			 * the scan the instant.
			 */
			TimestampTz ts = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in,
																	 CStringGetDatum(options[i].value),
																	 ObjectIdGetDatum(InvalidOid),
																	 Int32GetDatum(-1)));

			if (TIMESTAMP_NOT_FINITE(ts))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for option \"scan.timestamp\": \"%s\"", options[i].value)));
			options[i].key = TS_OPT_SCAN_TIMESTAMP_MILLIS;
			options[i].value = psprintf(INT64_FORMAT,
										(int64) (ts / 1000) +
										(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000);
		}
		i++;
	}
	ctx->noptions = n;
	ctx->options = options;
	ctx->table_schema_json = opts->table_schema;
	ctx->has_bucket_filter = opts->has_bucket_filter;
	ctx->bucket_filter = opts->bucket_filter;
	ctx->shard_k = opts->shard_k;
	ctx->shard_n = opts->shard_n;
	ctx->limit = -1;
	ctx->enable_pruning = true;
	ctx->no_file_index = !tablescan_enable_file_index;
	ctx->no_cache = !opts->cache;
	ctx->pin_snapshot = opts->pin_snapshot;
	ctx->pinned_snapshot_id = opts->pinned_snapshot_id;
	if (opts->partition_filter)
		parse_partition_filter(opts->partition_filter, ctx);
}

/*
 * Plan the scan of a foreign table: resolve the table and its read schema,
 * map the relation's columns to fields, turn the clauses into a predicate
 * (with econtext: Params and stable expressions evaluated too) and prune.
 */
/* The metrics of the last plan made in this backend (tablescan_last_metrics). */
static ts_scan_metrics last_metrics;
static bool have_last_metrics = false;

static void
remember_metrics(const ts_plan *plan)
{
	last_metrics = plan->metrics;
	have_last_metrics = true;
}

bool
tablescan_last_plan_metrics(ts_scan_metrics *out)
{
	if (have_last_metrics)
		*out = last_metrics;
	return have_last_metrics;
}

/*
 * A plan that hits the live-entry cache pins the cached entries
 * (ts_plan_release lets them go).  Plans die with their memory context,
 * on ERROR too, usually without ts_plan_free: a reset callback on that
 * context releases the pin.  It is registered before the plan is executed
 * (an interrupt may leave ts_scan_execute by longjmp), and forgets the
 * plan if ts_plan_free runs first.
 */
typedef struct PlanGuard
{
	MemoryContextCallback cb;
	ts_plan    *plan;
} PlanGuard;

static void
plan_guard_release(void *arg)
{
	PlanGuard  *g = arg;

	if (g->plan)
	{
		ts_plan_release(g->plan);
		ts_arena_release_pooled(&g->plan->arena);
	}
	g->plan = NULL;
}

static void
plan_guard_forget(void *arg)
{
	((PlanGuard *) arg)->plan = NULL;
}

/*
 * plan was allocated in CurrentMemoryContext.  Once guarded, the plan's
 * arena takes its new chunks from the chunk pool (chunk_pool.c): the
 * guard gives them back when the context goes, ts_plan_free otherwise.
 */
static void
guard_plan(ts_plan *plan)
{
	PlanGuard  *g = palloc(sizeof(PlanGuard));

	g->plan = plan;
	g->cb.func = plan_guard_release;
	g->cb.arg = g;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &g->cb);
	plan->on_free = plan_guard_forget;
	plan->on_free_arg = g;
	ts_arena_set_pooled(&plan->arena, true);
}

/*
 * Report a failed plan.  A parallel worker plans the snapshot its leader
 * planned; when that snapshot (or a manifest of it) is gone, a writer expired
 * it after the leader read it: a retryable serialization failure, not a
 * missing table.
 */
static void
report_plan_error(const TsTableOptions *opts, const ts_err *err)
{
	if (opts->pin_snapshot && err->code == TS_ERR_NOT_FOUND)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("%s", err->msg),
				 errdetail("A parallel worker reads snapshot %lld, which its leader planned; it was expired before the worker read it.",
						   (long long) opts->pinned_snapshot_id),
				 errhint("Run the query again, or SET max_parallel_workers_per_gather = 0.")));
	tablescan_report(err);
}

/*
 * The entries of the transaction's pending files live in an arena
 * (ts_malloc) that is freed after planning, or with the current memory
 * context when planning ends in an ERROR.
 */
typedef struct PendingArena
{
	MemoryContextCallback cb;
	ts_arena	arena;
	bool		freed;
} PendingArena;

static void
pending_arena_free(void *arg)
{
	PendingArena *p = arg;

	if (!p->freed)
		ts_arena_free(&p->arena);
	p->freed = true;
}

static PendingArena *
pending_arena_create(void)
{
	PendingArena *p = palloc0(sizeof(PendingArena));

	ts_arena_init(&p->arena, 16 * 1024);
	p->cb.func = pending_arena_free;
	p->cb.arg = p;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &p->cb);
	return p;
}

ts_plan *
tablescan_plan_relation(TsTableOptions *opts, Relation rel, Index relid, List *clauses,
						struct ExprContext *econtext, int64 limit, int **att_field,
						char **predicate_text)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	ts_predicate *pred = NULL;
	int		   *map;
	ts_row_ids	row_ids;
	ts_realtime_context realtime;
	PendingArena *pending = pending_arena_create();

	tablescan_make_context(opts, &ctx);
	ctx.enable_pruning = tablescan_enable_pruning;
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		report_plan_error(opts, &err);
	guard_plan(plan);
	map = tablescan_map_columns(rel, plan->schema);
	if (tablescan_enable_pruning)
		pred = tablescan_quals_to_predicate(clauses, relid, map, RelationGetDescr(rel)->natts,
											plan->schema, econtext);
	ctx.predicate = pred;
	ctx.limit = limit;
	/* a qual on _SHARD naming another shard: no file to read */
	ctx.no_files = tablescan_shard_quals_false(clauses, relid, map, RelationGetDescr(rel)->natts,
											   opts);
	/* quals on _ROW_ID: read only the files holding those row ids */
	if (tablescan_enable_pruning &&
		tablescan_quals_row_ids(clauses, relid, map, RelationGetDescr(rel)->natts, econtext,
								&row_ids))
		ctx.row_ids = &row_ids;
	/* the rows this transaction wrote into the table: read with the latest snapshot's */
	if (tablescan_pending_files(opts, &pending->arena, &realtime))
		ctx.realtime = &realtime;
	if (!ts_scan_execute(plan, &ctx, &err))
	{
		ts_plan_free(plan);
		report_plan_error(opts, &err);
	}
	pending_arena_free(pending);	/* the plan copied what it kept */
	if (ctx.row_ids)
		ts_row_ids_free(&row_ids);
	remember_metrics(plan);
	plan->predicate = pred;		/* for row-group skipping by the readers */
	if (att_field)
		*att_field = map;
	if (predicate_text)
		*predicate_text = pred ? tablescan_predicate_text(pred, plan->schema) : NULL;
	return plan;
}

ts_plan *
tablescan_plan(TsTableOptions *opts, const struct ts_predicate *pred)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;

	tablescan_make_context(opts, &ctx);
	ctx.predicate = pred;
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	guard_plan(plan);
	if (!ts_scan_execute(plan, &ctx, &err))
	{
		ts_plan_free(plan);
		tablescan_report(&err);
	}
	remember_metrics(plan);
	return plan;
}
