/*
 * row_id_quals.c - quals on _ROW_ID to the set of row ids a scan reads.
 *
 * Owns: finding the restriction clauses on the _ROW_ID system column (=,
 * IN, = ANY($1), ranges, a nested loop's parameter) and turning them into
 * a ts_row_ids (src/scan/row_ids.h) that the scan uses to keep only the
 * data files holding those row ids (paimon-cpp's
 * ScanContextBuilder::SetGlobalIndexResult).
 * The clauses go through quals.c as the other quals do, against a schema
 * of one BIGINT field standing for _ROW_ID; they stay local quals, so
 * PostgreSQL rechecks every row.  Only with tablescan.enable_pruning.
 */
#include "postgres.h"

#include "tablescan_fdw.h"
#include "read/read.h"
#include "expr/predicate.h"
#include "scan/row_ids.h"

static ts_type row_id_type = {.kind = TS_BIGINT, .nullable = false};
static ts_field row_id_field = {.id = -1, .name = "_ROW_ID", .type = &row_id_type};
static ts_schema row_id_schema = {.nfields = 1, .fields = &row_id_field};

/*
 * The row ids the clauses allow: false (and *out untouched) when no clause
 * constrains _ROW_ID, or _ROW_ID is not a column of the foreign table.
 * The caller frees *out with ts_row_ids_free.
 */
bool
tablescan_quals_row_ids(List *clauses, Index relid, const int *att_field, int natts,
						struct ExprContext *econtext, ts_row_ids *out)
{
	int		   *map;
	bool		any = false;
	ts_predicate *pred;
	ts_err		err = {0};
	ts_row_ids	ids;

	if (clauses == NIL)
		return false;
	map = palloc(sizeof(int) * Max(natts, 1));
	for (int i = 0; i < natts; i++)
	{
		map[i] = att_field[i] == TS_COLUMN_ROW_ID ? 0 : -1;
		any |= map[i] == 0;
	}
	if (!any)
		return false;
	pred = tablescan_quals_to_predicate(clauses, relid, map, natts, &row_id_schema, econtext);
	if (pred == NULL)
		return false;
	if (!ts_row_ids_from_predicate(pred, 0, &ids, &err))
		tablescan_report(&err);
	if (ids.all)
		return false;
	*out = ids;
	return true;
}
