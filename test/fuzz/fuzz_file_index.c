/*
 * fuzz_file_index.c - libFuzzer harness for the file-index reader
 * (src/format/fileindex): the container head, then bloom-filter, bitmap,
 * BSI and range-bitmap bodies evaluated against predicates on columns f0..f5 (STRING,
 * INT, BIGINT, DOUBLE, TIMESTAMP(9), TIMESTAMP(3)) with and without row
 * selections.  The input is the index file's bytes (seeded from the
 * sidecar .index files of ../shared/testdata, and the range-bitmap indexes
 * test_range_bitmap.c wrote into test/fuzz/seeds/fuzz_file_index).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/fileindex/file_index.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ts_type t_string = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type t_int = {.kind = TS_INT, .nullable = true};
static ts_type t_bigint = {.kind = TS_BIGINT, .nullable = true};
static ts_type t_double = {.kind = TS_DOUBLE, .nullable = true};
static ts_type t_ts9 = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 9};
static ts_type t_ts3 = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 3};

static const char *names[] = {"f0", "f1", "f2", "f3", "f4", "f5"};
static const ts_type *types[] = {&t_string, &t_int, &t_bigint, &t_double, &t_ts9, &t_ts3};

static bool
column_of(void *arg, int field, const char **name, const ts_type **type)
{
	(void) arg;
	if (field < 0 || field > 5)
		return false;
	*name = names[field];
	*type = types[field];
	return true;
}

static ts_value
lit_for(int field, int k)
{
	ts_value	v;

	memset(&v, 0, sizeof(v));
	switch (field)
	{
		case 0:
			v.v.s.p = (const uint8_t *) (k ? "Alice" : "");
			v.v.s.len = k ? 5 : 0;
			break;
		case 3:
			v.v.d = k ? 13.1 : 0.0;
			break;
		case 4:
		case 5:
			v.v.ts.millis = k ? INT64_C(1745542802000) : -1;
			v.v.ts.nanos = field == 4 ? 123000 : 0;
			break;
		default:
			v.v.i = k ? 100 : -2;
			break;
	}
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ts_predicate_op ops[] = {TS_PRED_EQ, TS_PRED_NE, TS_PRED_LT, TS_PRED_LE,
		TS_PRED_GT, TS_PRED_GE, TS_PRED_IN, TS_PRED_NOT_IN, TS_PRED_IS_NULL, TS_PRED_IS_NOT_NULL};
	uint8_t    *copy = malloc(size ? size : 1);
	ts_file_index fi;
	ts_err		err;

	memcpy(copy, data, size);
	memset(&err, 0, sizeof(err));
	if (ts_file_index_parse(copy, size, &fi, &err))
	{
		for (int f = 0; f < 6; f++)
		{
			ts_value	lits[2] = {lit_for(f, 1), lit_for(f, 0)};
			ts_predicate leaves[10];
			ts_predicate and_all,
						or_all;

			for (int o = 0; o < 10; o++)
			{
				memset(&leaves[o], 0, sizeof(leaves[o]));
				leaves[o].op = ops[o];
				leaves[o].field = f;
				leaves[o].nliterals = ops[o] == TS_PRED_IS_NULL || ops[o] == TS_PRED_IS_NOT_NULL ? 0 :
					ops[o] == TS_PRED_IN || ops[o] == TS_PRED_NOT_IN ? 2 : 1;
				leaves[o].literals = lits;
			}
			memset(&and_all, 0, sizeof(and_all));
			and_all.op = TS_PRED_AND;
			and_all.nchildren = 10;
			and_all.children = leaves;
			or_all = and_all;
			or_all.op = TS_PRED_OR;
			for (int w = 0; w < 2; w++)
			{
				ts_file_index_eval how = {column_of, NULL, NULL, w == 1};
				ts_file_index_result r;

				if (ts_file_index_evaluate(&fi, &and_all, &how, &r, &err))
				{
					(void) ts_file_index_result_rows(&r);
					(void) ts_file_index_result_has_row(&r, 3);
					ts_file_index_result_free(&r);
				}
				if (ts_file_index_evaluate(&fi, &or_all, &how, &r, &err))
					ts_file_index_result_free(&r);
			}
		}
		ts_file_index_free(&fi);
	}
	free(copy);
	return 0;
}
