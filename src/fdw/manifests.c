/*
 * manifests.c - metadata views of a Paimon table's snapshot as SQL
 * functions (Paimon's t$manifests system table and the entries under it).
 *
 * Owns: tablescan_manifests(regclass), one row per manifest of the base
 * and delta manifest lists of the snapshot the foreign table's options
 * select (the same resolution as tablescan_files: scan.snapshot-id, tags,
 * branches, ...), in list order; and tablescan_manifest_entries(regclass),
 * every entry of those manifests, in manifest-list then file order.
 * Partitions and partition statistics are decoded with the read schema's
 * partition keys into jsonb objects keyed by key name.  One manifest is
 * decoded at a time: memory is bounded by the largest manifest.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tablescan_fdw.h"
#include "meta/binary_row.h"

/* The snapshot's manifest lists, in the order Paimon reads them. */
typedef struct ListRef
{
	const char *kind;			/* "base" / "delta" */
	const char *name;
} ListRef;

/*
 * Resolve the table and its snapshot (no manifest is read).  NULL plan
 * snapshot: the table has none (no rows).
 */
static ts_plan *
prepare_plan(Oid relid, const char *fn)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;

	tablescan_check_foreign_table(relid);
	tablescan_make_context(tablescan_get_options(relid), &ctx);
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	if (plan->kind == TS_TABLE_FORMAT)
	{
		ts_plan_free(plan);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is not implemented for \"%s\": a format table has no manifests",
						fn, get_rel_name(relid))));
	}
	return plan;
}

static int
snapshot_lists(const ts_plan *plan, ListRef *lists)
{
	int			n = 0;

	if (plan->snapshot == NULL)
		return 0;
	if (plan->snapshot->base_manifest_list && plan->snapshot->base_manifest_list[0])
		lists[n++] = (ListRef) {"base", plan->snapshot->base_manifest_list};
	if (plan->snapshot->delta_manifest_list && plan->snapshot->delta_manifest_list[0])
		lists[n++] = (ListRef) {"delta", plan->snapshot->delta_manifest_list};
	return n;
}

/* <table>/manifest/<name>, refusing names that leave the directory. */
static char *
manifest_path(const ts_plan *plan, const char *name)
{
	if (strchr(name, '/') != NULL || strcmp(name, "..") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("table \"%s\", snapshot %lld: manifest file name \"%s\" contains a slash",
						plan->table_path, (long long) plan->snapshot->id, name)));
	return psprintf("%s/manifest/%s", plan->table_path, name);
}

static void
read_list(const ts_plan *plan, const char *name, ts_arena *arena,
		  ts_manifest_file_meta **metas, int *n)
{
	ts_err		err = {0};

	if (!ts_manifest_list_read(plan->fs, manifest_path(plan, name), arena, metas, n, &err))
	{
		ts_arena_free(arena);
		tablescan_report(&err);
	}
}

/*
 * What both functions emit rows into: the result set, the partition keys,
 * a context for one row's temporary values (reset after each row) and an
 * arena for one manifest's entries.
 */
typedef struct RowSink
{
	ReturnSetInfo *rsinfo;
	TsPartitionKeys pk;
	MemoryContext rowcxt;
	ts_arena	entries;
} RowSink;

/*
 * Called for each manifest of the snapshot's lists with its list and the
 * arena the list was decoded in (alive while the list is visited).
 */
typedef void (*ManifestVisit) (const ts_plan *plan, const ListRef *list,
							   const ts_manifest_file_meta *m, ts_arena *list_arena,
							   RowSink *sink);

/*
 * Visit every manifest of the plan's snapshot, base list then delta list,
 * in file order, one list decoded at a time.
 */
static void
for_each_manifest(const ts_plan *plan, ManifestVisit visit, RowSink *sink)
{
	ListRef		lists[2];
	int			nlists = snapshot_lists(plan, lists);

	for (int l = 0; l < nlists; l++)
	{
		ts_arena	arena;
		ts_manifest_file_meta *metas;
		int			n;

		ts_arena_init(&arena, 0);
		read_list(plan, lists[l].name, &arena, &metas, &n);
		for (int i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			visit(plan, &lists[l], &metas[i], &arena, sink);
		}
		ts_arena_free(&arena);
	}
}

/* The set-returning function's start: result set, row context, plan. */
static ts_plan *
start_rows(FunctionCallInfo fcinfo, const char *fn, RowSink *sink)
{
	ts_plan    *plan;

	InitMaterializedSRF(fcinfo, 0);
	sink->rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	sink->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "tablescan_fdw metadata row",
										 ALLOCSET_SMALL_SIZES);
	ts_arena_init(&sink->entries, 0);
	plan = prepare_plan(PG_GETARG_OID(0), fn);
	tablescan_partition_keys(plan, &sink->pk);
	return plan;
}

/*
 * A serialized partition row as a jsonb object keyed by partition key
 * (decoded with the partition keys' types); NULL bytes give SQL NULL.
 */
static bool
row_jsonb(const TsPartitionKeys *pk, ts_bytes row, ts_arena *arena, const char *what,
		  Datum *out)
{
	ts_value   *values;
	ts_err		err = {0};

	if (row.data == NULL)
		return false;
	values = palloc0(sizeof(ts_value) * Max(pk->n, 1));
	if (pk->n > 0 &&
		!ts_binary_row_decode(row.data, row.len, pk->types, pk->n, values, NULL, arena, &err))
	{
		ts_error_context(&err, "%s", what);
		tablescan_report(&err);
	}
	*out = tablescan_partition_jsonb(pk, values);
	return true;
}

/*
 * Partition null counts as {key: count} (null for an unknown count): the
 * partition object of BIGINT values.
 */
static bool
null_counts_jsonb(const TsPartitionKeys *pk, const ts_simple_stats *st, Datum *out)
{
	static const ts_type bigint = {.kind = TS_BIGINT};
	TsPartitionKeys counted = *pk;
	const ts_type **types;
	ts_value   *counts;

	if (st->nnull_counts < 0)
		return false;
	types = palloc(sizeof(*types) * Max(pk->n, 1));
	counts = palloc0(sizeof(ts_value) * Max(pk->n, 1));
	for (int k = 0; k < pk->n; k++)
	{
		types[k] = &bigint;
		counts[k].isnull = k >= st->nnull_counts || st->null_counts[k] < 0;
		if (!counts[k].isnull)
			counts[k].v.i = st->null_counts[k];
	}
	counted.types = types;
	*out = tablescan_partition_jsonb(&counted, counts);
	return true;
}

/* One row of tablescan_manifests. */
static void
manifest_row(const ts_plan *plan, const ListRef *list, const ts_manifest_file_meta *m,
			 ts_arena *list_arena, RowSink *sink)
{
	const ts_simple_stats *st = &m->partition_stats;
	MemoryContext old = MemoryContextSwitchTo(sink->rowcxt);
	char	   *what = psprintf("partition statistics of manifest \"%s\" in manifest list \"%s\"",
								m->file_name, list->name);
	Datum		values[17];
	bool		nulls[17] = {0};

	values[0] = CStringGetTextDatum(list->kind);
	values[1] = CStringGetTextDatum(list->name);
	values[2] = CStringGetTextDatum(m->file_name);
	values[3] = Int64GetDatum(m->file_size);
	values[4] = Int64GetDatum(m->num_added_files);
	values[5] = Int64GetDatum(m->num_deleted_files);
	nulls[6] = !row_jsonb(&sink->pk, st->min_values, list_arena, what, &values[6]);
	nulls[7] = !row_jsonb(&sink->pk, st->max_values, list_arena, what, &values[7]);
	nulls[8] = !null_counts_jsonb(&sink->pk, st, &values[8]);
	values[9] = Int64GetDatum(m->schema_id);
	nulls[10] = nulls[11] = !m->has_bucket_range;
	values[10] = Int32GetDatum(m->min_bucket);
	values[11] = Int32GetDatum(m->max_bucket);
	nulls[12] = nulls[13] = !m->has_level_range;
	values[12] = Int32GetDatum(m->min_level);
	values[13] = Int32GetDatum(m->max_level);
	nulls[14] = nulls[15] = !m->has_row_id_range;
	values[14] = Int64GetDatum(m->min_row_id);
	values[15] = Int64GetDatum(m->max_row_id);
	values[16] = Int64GetDatum(plan->snapshot->id);
	tuplestore_putvalues(sink->rsinfo->setResult, sink->rsinfo->setDesc, values, nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(sink->rowcxt);
}

PG_FUNCTION_INFO_V1(tablescan_manifests);

Datum
tablescan_manifests(PG_FUNCTION_ARGS)
{
	RowSink		sink;
	ts_plan    *plan = start_rows(fcinfo, "tablescan_manifests", &sink);

	for_each_manifest(plan, manifest_row, &sink);
	ts_plan_free(plan);
	return (Datum) 0;
}

static const char *
file_source_name(int32_t source)
{
	switch (source)
	{
		case 0:
			return "Append";
		case 1:
			return "Compact";
		default:
			return NULL;
	}
}

/* The rows of tablescan_manifest_entries for one manifest. */
static void
manifest_entry_rows(const ts_plan *plan, const ListRef *list, const ts_manifest_file_meta *m,
					ts_arena *list_arena, RowSink *sink)
{
	ts_manifest_entry *entries;
	int			n;
	ts_err		err = {0};
	Datum		manifest;

	/* as the scan does: a manifest the list says is empty is not read */
	if (m->num_added_files == 0 && m->num_deleted_files == 0)
		return;
	manifest = CStringGetTextDatum(m->file_name);
	if (!ts_manifest_read_expect(plan->fs, manifest_path(plan, m->file_name),
								 m->num_added_files + m->num_deleted_files,
								 &sink->entries, &entries, &n, &err))
	{
		ts_arena_free(&sink->entries);
		ts_arena_free(list_arena);
		tablescan_report(&err);
	}
	for (int e = 0; e < n; e++)
	{
		const ts_manifest_entry *me = &entries[e];
		const ts_data_file_meta *f = &me->file;
		const char *source = file_source_name(f->file_source);
		Datum		values[15];
		bool		nulls[15] = {0};
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(sink->rowcxt);
		values[0] = manifest;
		values[1] = CStringGetTextDatum(me->kind == TS_FILE_ADD ? "ADD" : "DELETE");
		nulls[2] = !row_jsonb(&sink->pk, me->partition, &sink->entries,
							  psprintf("partition of an entry of manifest \"%s\"", m->file_name),
							  &values[2]);
		values[3] = Int32GetDatum(me->bucket);
		values[4] = Int32GetDatum(me->total_buckets);
		values[5] = CStringGetTextDatum(f->file_name);
		values[6] = Int64GetDatum(f->file_size);
		values[7] = Int64GetDatum(f->row_count);
		values[8] = Int64GetDatum(f->min_sequence_number);
		values[9] = Int64GetDatum(f->max_sequence_number);
		values[10] = Int64GetDatum(f->schema_id);
		values[11] = Int32GetDatum(f->level);
		values[12] = Int64GetDatum(f->delete_row_count);
		nulls[12] = f->delete_row_count < 0;
		nulls[13] = source == NULL;
		if (source)
			values[13] = CStringGetTextDatum(source);
		values[14] = CStringGetTextDatum(list->name);
		tuplestore_putvalues(sink->rsinfo->setResult, sink->rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(sink->rowcxt);
	}
	ts_arena_reset(&sink->entries);
}

PG_FUNCTION_INFO_V1(tablescan_manifest_entries);

Datum
tablescan_manifest_entries(PG_FUNCTION_ARGS)
{
	RowSink		sink;
	ts_plan    *plan = start_rows(fcinfo, "tablescan_manifest_entries", &sink);

	for_each_manifest(plan, manifest_entry_rows, &sink);
	ts_arena_free(&sink.entries);
	ts_plan_free(plan);
	return (Datum) 0;
}
