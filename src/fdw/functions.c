/*
 * functions.c - SQL functions over a foreign table's Paimon scan.
 *
 * Owns: tablescan_files(regclass), the live data files the scan of a
 * foreign table would read under its options (paimon-cpp's Plan, as rows),
 * each with the deletion vector the scan applies to it.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "tablescan_fdw.h"
#include "meta/bucket.h"

/*
 * The regclass argument of the metadata functions: a foreign table of this
 * extension (another wrapper's options were never checked by our
 * validator: a "path" there needs no privilege) that the caller may SELECT
 * from (its files, partitions and manifests are what a SELECT would read).
 */
Oid
tablescan_check_foreign_table(Oid relid)
{
	char		relkind = get_rel_relkind(relid);
	AclResult	aclresult;

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a foreign table", get_rel_name(relid))));
	if (!tablescan_fdw_is_ours(GetForeignServer(GetForeignTable(relid)->serverid)->fdwid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a foreign table of tablescan_fdw", get_rel_name(relid))));
	aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FOREIGN_TABLE, get_rel_name(relid));
	return relid;
}

void
tablescan_partition_keys(const ts_plan *plan, TsPartitionKeys *pk)
{
	const ts_schema *schema = plan->schema;

	pk->n = schema->npartition_keys;
	pk->names = palloc(sizeof(char *) * Max(pk->n, 1));
	pk->types = palloc(sizeof(ts_type *) * Max(pk->n, 1));
	for (int k = 0; k < pk->n; k++)
	{
		int			fi = ts_schema_field_index(schema, schema->partition_keys[k]);

		if (fi < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("table \"%s\": partition key \"%s\" is not a field of the schema",
							plan->table_path, schema->partition_keys[k])));
		pk->names[k] = schema->partition_keys[k];
		pk->types[k] = schema->fields[fi].type;
	}
}

Datum
tablescan_partition_jsonb(const TsPartitionKeys *pk, const ts_value *values)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int k = 0; k < pk->n; k++)
	{
		if (k)
			appendStringInfoChar(&buf, ',');
		escape_json(&buf, pk->names[k]);
		appendStringInfoChar(&buf, ':');
		if (values == NULL)
			appendStringInfoString(&buf, "null");
		else
			tablescan_value_to_json(&buf, &values[k], pk->types[k]);
	}
	appendStringInfoChar(&buf, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
}

PG_FUNCTION_INFO_V1(tablescan_files);

Datum
tablescan_files(PG_FUNCTION_ARGS)
{
	Oid			relid = tablescan_check_foreign_table(PG_GETARG_OID(0));
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ts_plan    *plan;
	TsPartitionKeys pk;

	InitMaterializedSRF(fcinfo, 0);
	plan = tablescan_plan(tablescan_get_options(relid), NULL);
	tablescan_partition_keys(plan, &pk);
	for (int s = 0; s < plan->nsplits; s++)
	{
		const ts_split *split = &plan->splits[s];
		Datum		partition = tablescan_partition_jsonb(&pk, split->partition_values);

		for (int f = 0; f < split->nfiles; f++)
		{
			const ts_scan_file *sf = &split->files[f];
			const ts_data_file_meta *fm = &sf->entry->file;
			Datum		values[14];
			bool		nulls[14] = {0};

			CHECK_FOR_INTERRUPTS();
			values[0] = partition;
			values[1] = Int32GetDatum(split->bucket);
			values[2] = Int32GetDatum(split->total_buckets);
			values[3] = CStringGetTextDatum(fm->file_name);
			values[4] = Int32GetDatum(fm->level);
			values[5] = Int64GetDatum(fm->row_count);
			nulls[5] = plan->kind == TS_TABLE_FORMAT;	/* unknown before reading */
			values[6] = Int64GetDatum(fm->file_size);
			values[7] = Int64GetDatum(fm->schema_id);
			/* the deletion vector: file, byte range, deleted rows (NULL if unknown) */
			nulls[8] = nulls[9] = nulls[10] = nulls[11] = sf->dv_path == NULL;
			if (sf->dv_path != NULL)
			{
				values[8] = CStringGetTextDatum(sf->dv_path);
				values[9] = Int64GetDatum(sf->dv_offset);
				values[10] = Int64GetDatum(sf->dv_length);
				values[11] = Int64GetDatum(sf->dv_cardinality);
				nulls[11] = sf->dv_cardinality < 0;
			}
			tablescan_files_index(plan, sf, &values[12], &nulls[12]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	ts_plan_free(plan);
	return (Datum) 0;
}

/*
 * tablescan_bucket(regclass, VARIADIC "any"): the bucket the table's bucket
 * function assigns to the given bucket-key values (in bucket-key order),
 * under the table's current bucket count.
 */
PG_FUNCTION_INFO_V1(tablescan_bucket);

Datum
tablescan_bucket(PG_FUNCTION_ARGS)
{
	Oid			relid;
	TsTableOptions *opts;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	int		   *keys;
	int			nkeys;
	const char *bucket_opt;
	int32		nbuckets,
				bucket;
	ts_bucket_function fn;
	const ts_type **types;
	ts_value   *values;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	relid = tablescan_check_foreign_table(PG_GETARG_OID(0));
	opts = tablescan_get_options(relid);
	tablescan_make_context(opts, &ctx);
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	bucket_opt = ts_plan_option(plan, TS_OPT_BUCKET);
	nbuckets = bucket_opt ? pg_strtoint32(bucket_opt) : -1;
	if (nbuckets <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has no fixed bucket count (bucket = %d)",
						get_rel_name(relid), nbuckets),
				 errhint("Buckets are computed only for fixed-bucket tables (option bucket > 0).")));
	if (!ts_schema_bucket_keys(plan->schema, &keys, &nkeys, &err) ||
		!ts_bucket_function_parse(ts_plan_option(plan, TS_OPT_BUCKET_FUNCTION_TYPE), &fn, &err))
		tablescan_report(&err);
	if (PG_NARGS() - 1 != nkeys)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has %d bucket key(s), %d value(s) given",
						get_rel_name(relid), nkeys, PG_NARGS() - 1)));
	types = palloc(sizeof(ts_type *) * Max(nkeys, 1));
	values = palloc0(sizeof(ts_value) * Max(nkeys, 1));
	for (int i = 0; i < nkeys; i++)
	{
		const ts_field *f = &plan->schema->fields[keys[i]];

		types[i] = f->type;
		if (PG_ARGISNULL(i + 1))
			values[i].isnull = true;
		else if (!tablescan_datum_to_field_value(PG_GETARG_DATUM(i + 1),
												 get_fn_expr_argtype(fcinfo->flinfo, i + 1),
												 f->type, &values[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("value %d cannot be represented exactly as bucket key \"%s\" of type %s",
							i + 1, f->name, ts_type_to_string(f->type))));
	}
	if (!ts_bucket_compute(fn, types, values, nkeys, nbuckets, &bucket, &err))
		tablescan_report(&err);
	PG_RETURN_INT32(bucket);
}

/*
 * tablescan_last_metrics(): what the last Paimon scan planned in this
 * backend did (paimon-cpp's GetMetrics), as a point-in-time copy.
 */
PG_FUNCTION_INFO_V1(tablescan_last_metrics);

Datum
tablescan_last_metrics(PG_FUNCTION_ARGS)
{
	ts_scan_metrics m;
	TupleDesc	desc;
	Datum		values[14];
	bool		nulls[14] = {0};

	if (!tablescan_last_plan_metrics(&m))
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int64GetDatum(m.manifests_read);
	values[1] = Int64GetDatum(m.manifests_skipped);
	values[2] = Int64GetDatum(m.entries_read);
	values[3] = Int64GetDatum(m.files_total);
	values[4] = Int64GetDatum(m.files_kept);
	values[5] = Int64GetDatum(m.files_pruned_partition);
	values[6] = Int64GetDatum(m.files_pruned_bucket);
	values[7] = Int64GetDatum(m.files_pruned_stats);
	values[8] = Int64GetDatum(m.partitions_total);
	values[9] = Int64GetDatum(m.partitions_kept);
	values[10] = Int64GetDatum(m.buckets_total);
	values[11] = Int64GetDatum(m.buckets_kept);
	values[12] = Float8GetDatum(m.planning_ms);
	values[13] = BoolGetDatum(m.cache_hit);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* tablescan_cache_reset(): empty this backend's live manifest-entry cache. */
PG_FUNCTION_INFO_V1(tablescan_cache_reset);

Datum
tablescan_cache_reset(PG_FUNCTION_ARGS)
{
	ts_scan_cache_clear();
	PG_RETURN_VOID();
}
