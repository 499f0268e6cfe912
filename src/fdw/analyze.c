/*
 * analyze.c - ANALYZE on a Paimon foreign table.
 *
 * Owns: AnalyzeForeignTable / the sample-row callback.  Reads every live
 * row of the current snapshot through the same scan and split readers a
 * query uses, keeping a reservoir sample (Vitter's algorithm, as
 * file_fdw does), so PostgreSQL gets column statistics for join planning.
 * On an object store the small files of the next splits come in together
 * and ahead of their readers (read/split_window.c), as in a serial scan:
 * a round trip per window of splits, not per split; the file readers'
 * large buffers pass from one split to the next (base/bufpool.c).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/vacuum.h"
#include "foreign/fdwapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"

#include "tablescan_fdw.h"
#include "base/ts_s3.h"
#include "read/read.h"

static int
acquire_sample_rows(Relation rel, int elevel, HeapTuple *rows, int targrows,
					double *totalrows, double *totaldeadrows)
{
	TupleDesc	desc = RelationGetDescr(rel);
	MemoryContext scancxt = AllocSetContextCreate(CurrentMemoryContext, "tablescan_fdw analyze",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "tablescan_fdw analyze row",
												 ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(scancxt);
	TsTableOptions *opts = tablescan_get_options(RelationGetRelid(rel));
	ts_plan    *plan = tablescan_plan_relation(opts, rel, 1, NIL, NULL, -1, NULL, NULL);
	int		   *att_field = tablescan_map_columns(rel, plan->schema);
	int		   *columns = palloc(sizeof(int) * Max(desc->natts, 1));
	int		   *pos_of_att = palloc(sizeof(int) * Max(desc->natts, 1));
	int			ncolumns = 0;
	Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(desc->natts, 1));
	ReservoirStateData rstate;
	double		seen = 0;
	double		rowstoskip = -1;
	int			numrows = 0;
	ts_split_window window = {0};	/* in scancxt's lifetime: freed before it */
	int64		file_max;
	/* the file readers' large buffers, kept from one split to the next (in scancxt) */
	ts_bufpool *buffers = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);

	for (int i = 0; i < desc->natts; i++)
	{
		pos_of_att[i] = -1;
		if (att_field[i] != -1 && att_field[i] != TS_COLUMN_SHARD)	/* -1: dropped; other negatives: system columns */
		{
			pos_of_att[i] = ncolumns;
			columns[ncolumns++] = att_field[i];
		}
	}
	reservoir_init_selection_state(&rstate, targrows);
	/* every column, no predicate: files read whole anyway come whole with the window */
	file_max = ts_read_whole_file_max(plan, columns, ncolumns);

	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_err		err = {0};
		ts_split_reader *r;
		ts_batch	batch;
		int			n;

		/* the readers before are closed: the window may move on */
		if (!ts_split_window_move(&window, plan, s, -1, file_max, &err))
			tablescan_report(&err);
		r = ts_split_reader_open_buffers(plan, &plan->splits[s], columns, ncolumns, buffers, &err);
		if (r == NULL)
			tablescan_report(&err);
		for (;;)
		{
			ts_s3_drive();		/* files fetched ahead move on meanwhile */
			if ((n = ts_split_reader_next(r, &batch, &err)) <= 0)
				break;
			for (int row = 0; row < n; row++)
			{
				int			slot;

				vacuum_delay_point();
				/* reservoir sampling, as file_fdw and postgres_fdw do it */
				if (numrows < targrows)
					slot = numrows++;
				else
				{
					if (rowstoskip < 0)
						rowstoskip = reservoir_get_next_S(&rstate, seen, targrows);
					if (rowstoskip <= 0)
					{
						slot = (int) (targrows * sampler_random_fract(&rstate.randstate));
						heap_freetuple(rows[slot]);
					}
					else
						slot = -1;
					rowstoskip -= 1;
				}
				seen += 1;
				if (slot < 0)
					continue;
				MemoryContextSwitchTo(rowcxt);
				for (int i = 0; i < desc->natts; i++)
				{
					Form_pg_attribute att = TupleDescAttr(desc, i);

					if (att_field[i] == TS_COLUMN_SHARD)
					{
						/* the pseudo-column _SHARD: its constant (shard_column.c) */
						values[i] = tablescan_shard_const_of(opts, rel, i)->constvalue;
						nulls[i] = false;
						continue;
					}
					if (pos_of_att[i] < 0)
					{
						nulls[i] = true;
						values[i] = (Datum) 0;
						continue;
					}
					values[i] = tablescan_value_to_datum(ts_batch_at(&batch, row, pos_of_att[i]),
														 tablescan_column_type(plan, columns[pos_of_att[i]]),
														 att->atttypid, att->atttypmod,
														 NameStr(att->attname), &nulls[i]);
				}
				MemoryContextSwitchTo(old);
				rows[slot] = heap_form_tuple(desc, values, nulls);
				MemoryContextReset(rowcxt);
				MemoryContextSwitchTo(scancxt);
			}
		}
		if (n < 0)
			tablescan_report(&err);
		ts_split_reader_close(r);
	}
	ts_split_window_free(&window);
	ts_bufpool_free(buffers);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(rowcxt);
	MemoryContextDelete(scancxt);

	*totalrows = seen;
	*totaldeadrows = 0;
	ereport(elevel,
			(errmsg("\"%s\": Paimon table contains %.0f rows; %d rows in sample",
					RelationGetRelationName(rel), seen, numrows)));
	return numrows;
}

bool
tablescanAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
							 BlockNumber *totalpages)
{
	*func = acquire_sample_rows;
	*totalpages = 1;
	return true;
}
