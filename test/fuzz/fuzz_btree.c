/*
 * fuzz_btree.c - libFuzzer harness for the btree global index reader
 * (src/format/fileindex/fi_btree.c): the input is one index file, read
 * through an in-memory ts_gi_source, with =, IN, <, >=, STARTS_WITH, NE,
 * IS NULL, IS NOT NULL and NOT IN leaves (the last three and NE also with
 * a row range of 64 rows, reading the null bitmap) on INT, BIGINT, STRING
 * and TIMESTAMP(6) columns (the keys of one type read as another are
 * corrupt, not a crash).  Seeded with the
 * files test_btree.c writes into test/fuzz/seeds/fuzz_btree
 * (TS_BTREE_SEEDS=dir build/unit/test_btree).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/fileindex/global_index.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ts_type t_int = {.kind = TS_INT, .nullable = true};
static ts_type t_bigint = {.kind = TS_BIGINT, .nullable = true};
static ts_type t_string = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type t_ts6 = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 6};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ts_predicate_op ops[] = {TS_PRED_EQ, TS_PRED_IN, TS_PRED_LT, TS_PRED_GE,
	TS_PRED_STARTS_WITH, TS_PRED_NE, TS_PRED_IS_NULL, TS_PRED_IS_NOT_NULL, TS_PRED_NOT_IN};
	const ts_type *types[] = {&t_int, &t_bigint, &t_string, &t_ts6};
	uint8_t    *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	for (int t = 0; t < 4; t++)
		for (int o = 0; o < 9; o++)
		{
			ts_value	lits[2];
			ts_predicate p;
			ts_err		err;
			bool		all;
			void	   *rows = NULL;

			memset(lits, 0, sizeof(lits));
			memset(&p, 0, sizeof(p));
			memset(&err, 0, sizeof(err));
			if (types[t] == &t_string)
			{
				lits[0].v.s.p = (const uint8_t *) "Bob";
				lits[0].v.s.len = 3;
				lits[1].v.s.p = (const uint8_t *) "";
			}
			else if (types[t] == &t_ts6)
			{
				lits[0].v.ts.millis = 1002;
				lits[0].v.ts.nanos = 500000;
				lits[1].v.ts.millis = -1;
			}
			else
			{
				lits[0].v.i = 10;
				lits[1].v.i = -20;
			}
			p.op = ops[o];
			p.nliterals = ops[o] == TS_PRED_IN || ops[o] == TS_PRED_NOT_IN ? 2 :
				ops[o] == TS_PRED_IS_NULL || ops[o] == TS_PRED_IS_NOT_NULL ? 0 : 1;
			p.literals = lits;
			if (ts_global_index_leaf("btree", copy, size, types[t], &p, &all, &rows, &err))
				ts_global_index_rows_free(rows);
			rows = NULL;
			memset(&err, 0, sizeof(err));
			if (o >= 5 &&
				ts_global_index_leaf_n("btree", copy, size, 64, types[t], &p, &all, &rows, &err))
				ts_global_index_rows_free(rows);
		}
	free(copy);
	return 0;
}
