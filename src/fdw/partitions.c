/*
 * partitions.c - tablescan_partitions(regclass): paimon-cpp's ListPartitions.
 *
 * Owns: one jsonb row per partition of a format-table foreign table, its
 * partition values keyed by field name (typed: numbers as numbers, dates
 * as ISO strings, the default partition as null), in the stable order of the
 * listing (by values in key order, NULL first).  The table's
 * partition_filter applies (the partitions the scan can see).  A table
 * without partition keys has none; any other table raises
 * feature_not_supported (paimon-cpp's NotImplemented).  A format table of
 * a REST catalog lists the partitions the catalog knows (rest.c), or the
 * file system's when the catalog answers 501.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "tablescan_fdw.h"
#include "scan/format_plan.h"

PG_FUNCTION_INFO_V1(tablescan_partitions);

Datum
tablescan_partitions(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	ts_ft_listing *l;
	const ts_type **types;
	ForeignServer *server;
	char	   *database,
			   *table;

	tablescan_check_foreign_table(relid);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	tablescan_make_context(tablescan_get_options(relid), &ctx);
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	if (plan->kind != TS_TABLE_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablescan_partitions is not implemented for \"%s\": it is not a format table",
						get_rel_name(relid)),
				 errhint("Only format tables (type = format-table) list their partitions; use tablescan_files() for Paimon tables.")));
	/* a catalog's format table: the catalog's partitions, the file system's if it has none (501) */
	l = NULL;
	if (tablescan_rest_table_of(relid, &server, &database, &table))
		l = tablescan_rest_format_partitions(server, database, table, plan, &ctx);
	if (l == NULL)
		l = ts_format_plan_partitions(plan, &ctx, &err);
	if (l == NULL)
		tablescan_report(&err);
	types = palloc(sizeof(ts_type *) * Max(l->nkeys, 1));
	for (int k = 0; k < l->nkeys; k++)
	{
		int			f = ts_schema_field_index(plan->schema, l->key_names[k]);

		types[k] = f >= 0 ? plan->schema->fields[f].type : NULL;
	}
	for (int p = 0; p < l->npartitions; p++)
	{
		const ts_ft_partition *part = &l->partitions[p];
		StringInfoData buf;
		Datum		value;
		bool		isnull = false;

		CHECK_FOR_INTERRUPTS();
		initStringInfo(&buf);
		appendStringInfoChar(&buf, '{');
		for (int k = 0; k < l->nkeys; k++)
		{
			if (k)
				appendStringInfoChar(&buf, ',');
			escape_json(&buf, l->key_names[k]);
			appendStringInfoChar(&buf, ':');
			if (part->values[k] == NULL)
				appendStringInfoString(&buf, "null");
			else if (types[k] == NULL || part->typed[k].isnull)
				escape_json(&buf, part->values[k]);
			else if (types[k]->kind == TS_DATE)
			{
				int			y,
							m,
							d;

				/* ISO whatever DateStyle says: the form Paimon writes in paths */
				j2date((int) (part->typed[k].v.i + UNIX_EPOCH_JDATE), &y, &m, &d);
				appendStringInfo(&buf, "\"%04d-%02d-%02d\"", y, m, d);
			}
			else
				tablescan_value_to_json(&buf, &part->typed[k], types[k]);
		}
		appendStringInfoChar(&buf, '}');
		value = DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
		pfree(buf.data);
	}
	ts_ft_listing_free(l);
	ts_plan_free(plan);
	return (Datum) 0;
}
