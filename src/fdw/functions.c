/*
 * functions.c - SQL functions over a foreign table's Paimon scan.
 *
 * Owns: tablescan_files(regclass), the live data files the scan of a
 * foreign table would read under its options (the seed's Plan, as rows).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "tablescan_fdw.h"

static Oid
check_foreign_table(Oid relid)
{
	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a foreign table", get_rel_name(relid))));
	return relid;
}

/* Partition values of a split as a jsonb object keyed by partition key. */
static Datum
partition_jsonb(const ts_plan *plan, const ts_split *split)
{
	StringInfoData buf;
	const ts_schema *schema = plan->schema;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int k = 0; k < schema->npartition_keys; k++)
	{
		int			fi = ts_schema_field_index(schema, schema->partition_keys[k]);

		if (k)
			appendStringInfoChar(&buf, ',');
		escape_json(&buf, schema->partition_keys[k]);
		appendStringInfoChar(&buf, ':');
		if (fi < 0 || split->partition_values == NULL)
			appendStringInfoString(&buf, "null");
		else
			tablescan_value_to_json(&buf, &split->partition_values[k], schema->fields[fi].type);
	}
	appendStringInfoChar(&buf, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
}

PG_FUNCTION_INFO_V1(tablescan_files);

Datum
tablescan_files(PG_FUNCTION_ARGS)
{
	Oid			relid = check_foreign_table(PG_GETARG_OID(0));
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ts_plan    *plan;

	InitMaterializedSRF(fcinfo, 0);
	plan = tablescan_plan(tablescan_get_options(relid), NULL);
	for (int s = 0; s < plan->nsplits; s++)
	{
		const ts_split *split = &plan->splits[s];
		Datum		partition = partition_jsonb(plan, split);

		for (int f = 0; f < split->nfiles; f++)
		{
			const ts_data_file_meta *fm = &split->files[f].entry->file;
			Datum		values[8];
			bool		nulls[8] = {0};

			CHECK_FOR_INTERRUPTS();
			values[0] = partition;
			values[1] = Int32GetDatum(split->bucket);
			values[2] = Int32GetDatum(split->total_buckets);
			values[3] = CStringGetTextDatum(fm->file_name);
			values[4] = Int32GetDatum(fm->level);
			values[5] = Int64GetDatum(fm->row_count);
			values[6] = Int64GetDatum(fm->file_size);
			values[7] = Int64GetDatum(fm->schema_id);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	ts_plan_free(plan);
	return (Datum) 0;
}
