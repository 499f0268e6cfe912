/*
 * modify_pk.c - UPDATE and DELETE of Paimon primary-key tables.
 *
 * Owns: the planning check (an append table, or a primary-key table whose
 * options make the rows written misread, is an ERROR before any file is
 * written), the row identity (AddForeignUpdateTargets: the whole old row,
 * as PostgreSQL itself asks of foreign tables for UPDATE; the primary key
 * is read from it), and ExecForeignUpdate / ExecForeignDelete, which hand
 * the old and new rows to modify.c: an UPDATE is written as a +U row (its
 * key and partition must stay), a DELETE as a -D row carrying the deleted
 * row's values, as Java writes them; the reader's merge applies both.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "write/write.h"
#include "tablescan_fdw.h"

#define OLD_ROW_NAME "wholerow"	/* the name PostgreSQL gives the old row of an UPDATE */

void
tablescan_modify_pk_check(Oid relid, CmdType operation)
{
	TsTableOptions *o = tablescan_get_options(relid);
	char	   *name = get_rel_name(relid);
	struct ts_table_writer *w = tablescan_open_table_writer(o, name);
	ts_err		err = {0};
	bool		ok = ts_table_writer_check_kind(w, operation == CMD_DELETE ? TS_ROW_DELETE :
											TS_ROW_UPDATE_AFTER, &err);

	ts_table_writer_free(w);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot %s foreign table \"%s\": %s",
						operation == CMD_DELETE ? "delete from" : "update", name, err.msg),
				 err.hint[0] ? errhint("%s", err.hint) : 0));
}

static void
tablescanAddForeignUpdateTargets(PlannerInfo *root, Index rtindex, RangeTblEntry *target_rte,
								 Relation target_relation)
{
	/*
	 * The whole old row: its key identifies the row, its values fill the -D
	 * row.  PostgreSQL adds the same Var under the same name for an UPDATE.
	 */
	if (root->parse->commandType == CMD_DELETE)
		add_row_identity_var(root, makeVar(rtindex, InvalidAttrNumber, RECORDOID, -1, InvalidOid, 0),
							 rtindex, OLD_ROW_NAME);
}

/* The old row the scan found (the junk column of the plan's row). */
static HeapTupleHeader
old_row(TupleTableSlot *planSlot)
{
	TupleDesc	desc = planSlot->tts_tupleDescriptor;
	bool		isnull;

	for (int a = 0; a < desc->natts; a++)
		if (strcmp(NameStr(TupleDescAttr(desc, a)->attname), OLD_ROW_NAME) == 0)
		{
			Datum		d = slot_getattr(planSlot, a + 1, &isnull);

			if (isnull)
				break;
			return DatumGetHeapTupleHeader(d);
		}
	elog(ERROR, "tablescan_fdw: the old row of an UPDATE or DELETE is missing");
	return NULL;
}

static TupleTableSlot *
tablescanExecForeignUpdate(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
						   TupleTableSlot *planSlot)
{
	tablescan_modify_change(rinfo, TS_ROW_UPDATE_AFTER, slot, old_row(planSlot));
	return slot;
}

static TupleTableSlot *
tablescanExecForeignDelete(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
						   TupleTableSlot *planSlot)
{
	HeapTupleHeader row = old_row(planSlot);

	tablescan_modify_change(rinfo, TS_ROW_DELETE, NULL, row);
	if (rinfo->ri_projectReturning != NULL)
	{
		/* RETURNING shows the row deleted */
		HeapTupleData tuple;

		tuple.t_len = HeapTupleHeaderGetDatumLength(row);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = RelationGetRelid(rinfo->ri_RelationDesc);
		tuple.t_data = row;
		ExecForceStoreHeapTuple(heap_copytuple(&tuple), slot, true);
	}
	return slot;
}

void
tablescan_modify_pk_routines(FdwRoutine *routine)
{
	routine->AddForeignUpdateTargets = tablescanAddForeignUpdateTargets;
	routine->ExecForeignUpdate = tablescanExecForeignUpdate;
	routine->ExecForeignDelete = tablescanExecForeignDelete;
}
