/*
 * scan_vector.c - aggregates computed by columns over the scan's batches.
 *
 * Owns: the aggregation of a pushed aggregate scan (scan_aggregate.c,
 * scan_group.c) straight from the batches the readers return, a column at
 * a time, when every input is a fixed-width column and every aggregate's
 * transition is one computed here.  Per chunk of up to VEC_ROWS rows of a
 * batch: each column read is converted into an array of Datums and NULL
 * flags with datum.c's own conversion (the Datums the row path would build,
 * bit for bit, and its errors for a value out of range); with GROUP BY,
 * each row's group is found once (scan_group.c's index of the key's bits);
 * then each aggregate runs over the chunk.  No window of rows.
 *
 * Taken: no quals, or quals the row filter decides (with or without
 * GROUP BY): a batch whose rows are exactly those the quals keep
 * (tablescan_scan_batch_exact: read/row_filter.c decided every qual on
 * them, exactly) is aggregated by columns, its columns the quals read
 * converted too (their errors are the row path's); any other batch is
 * aggregated row by row, the quals checked on each row (ExecQual), each
 * kept row's group found by its key, in row order as ever.  No GROUP BY
 * key or one column of a type below; at least
 * one aggregate with a loop of its own: count(*), count(col), sum of int2 / int4 (int2_sum /
 * int4_sum: an int8, added without an overflow check as they add) and of
 * float4 / float8 (float4pl / float8pl, their overflow check), min / max
 * of int2 / int4 / int8 / float4 / float8 / date / timestamp /
 * timestamptz, bool_and / bool_or, of columns of type bool, int2, int4,
 * int8, float4, float8, date, timestamp, timestamptz.  Each loop is the
 * transition function's own formula on the same values in the same order
 * (a group's rows in row order), so results are PostgreSQL's to the last
 * bit: float sums added as float8pl adds them, max / min of floats keeping
 * what float8larger keeps (NaN above everything, of 0.0 and -0.0 the later
 * input).  sum(int8) and avg(int8) (int8_avg_accum, whose state is
 * numeric.c's internal Int128AggState under HAVE_INT128, its layout
 * probed with two inputs first) make a group's state through the
 * function, which the loop checks against the layout it knows, then add
 * as do_int128_accum does (N + 1, the int128 sum; a
 * state of another layout: value by value through the function).  The
 * max / min of a text column under a collation that orders by bytes
 * (scan_agg_trans.c's bytes_minmax) read the strings where they lie in the
 * batch, each checked as its conversion checks it (datum.c,
 * tablescan_text_bytes: the same ERROR for bytes that are not UTF-8), and
 * copy only a string that becomes a state: such a column is converted to
 * Datums only when something else reads it.  sum(numeric) without GROUP BY
 * adds a chunk's unscaled decimals exactly and hands their sum to
 * numeric_avg_accum as one input (vector_sum_decimal says why the result
 * is the same).  The
 * other aggregates of the scan (avg of int2 / int4 / floats, other text
 * aggregates, numeric ...) take the chunk's values one by one through
 * scan_aggregate.c's advance.  Anything else (two keys, a
 * key of another type) goes row by row.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "common/int.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "scan_aggregate.h"

#define VEC_ROWS 1024
#define VEC_CACHE 256			/* a power of two */

typedef enum VecOp
{
	VEC_NONE = 0,
	VEC_COUNT_STAR,				/* int8inc */
	VEC_COUNT,					/* int8inc_any */
	VEC_SUM_INT,				/* int2_sum, int4_sum */
	VEC_SUM_FLOAT4,				/* float4pl */
	VEC_SUM_FLOAT8,				/* float8pl */
	VEC_MAX_INT,				/* int2/4/8larger, date_larger, timestamp(tz)_larger */
	VEC_MIN_INT,
	VEC_MAX_FLOAT4,				/* float4larger */
	VEC_MIN_FLOAT4,
	VEC_MAX_FLOAT8,				/* float8larger */
	VEC_MIN_FLOAT8,
	VEC_BOOL_AND,				/* booland_statefunc */
	VEC_BOOL_OR,
	VEC_SUM_INT8,				/* int8_avg_accum: sum(int8), avg(int8) */
	VEC_BYTES_MINMAX,			/* text_larger / text_smaller ordering by bytes: no Datums */
	VEC_SUM_DECIMAL,			/* sum(numeric): numeric_avg_accum of a chunk's exact sum */
	VEC_CALL					/* any other: scan_aggregate.c's advance, value by value */
} VecOp;

/*
 * A column read: attribute, a chunk's values as Datums (when anything but
 * the bytes loops reads it: datums).
 */
typedef struct VecColumn
{
	AttrNumber	attno;
	bool		datums;
	Datum	   *values;
	bool	   *isnull;
} VecColumn;

typedef struct VecAgg
{
	VecOp		op;
	int			column;			/* in columns; -1 for count(*) */
} VecAgg;

struct TsVectorState
{
	int			ncolumns;
	VecColumn  *columns;
	int			key;			/* the GROUP BY key's column, -1: no GROUP BY */
	VecAgg	   *aggs;			/* per aggregate */
	TsAggValue **groups;		/* per row of the chunk: its group's states */
	/*
	 * The groups of keys met lately, by their bits (a key bit for bit equal
	 * is the same group: scan_group.c's index), spared a call; valid for
	 * one call of tablescan_vector_aggregate (the groups go out after it).
	 */
	Datum		cache_key[VEC_CACHE];
	TsAggValue *cache_states[VEC_CACHE];	/* NULL: empty */
	TsAggValue *cache_null;		/* the group of the NULL key */
};

/* Is a column of this type one we aggregate by columns (by value, fixed width)? */
static bool
vector_type(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

/* The loop of a transition function on an argument of type argtype (InvalidOid: none). */
static VecOp
vector_op(Oid transfn, Oid argtype)
{
	if (!OidIsValid(argtype))
		return transfn == F_INT8INC ? VEC_COUNT_STAR : VEC_NONE;
	switch (transfn)
	{
		case F_INT8INC_ANY:
			return VEC_COUNT;
		case F_INT2_SUM:
			return argtype == INT2OID ? VEC_SUM_INT : VEC_NONE;
		case F_INT4_SUM:
			return argtype == INT4OID ? VEC_SUM_INT : VEC_NONE;
		case F_FLOAT4PL:
			return argtype == FLOAT4OID ? VEC_SUM_FLOAT4 : VEC_NONE;
		case F_FLOAT8PL:
			return argtype == FLOAT8OID ? VEC_SUM_FLOAT8 : VEC_NONE;
		case F_INT2LARGER:
			return argtype == INT2OID ? VEC_MAX_INT : VEC_NONE;
		case F_INT2SMALLER:
			return argtype == INT2OID ? VEC_MIN_INT : VEC_NONE;
		case F_INT4LARGER:
			return argtype == INT4OID ? VEC_MAX_INT : VEC_NONE;
		case F_INT4SMALLER:
			return argtype == INT4OID ? VEC_MIN_INT : VEC_NONE;
		case F_INT8LARGER:
			return argtype == INT8OID ? VEC_MAX_INT : VEC_NONE;
		case F_INT8SMALLER:
			return argtype == INT8OID ? VEC_MIN_INT : VEC_NONE;
		case F_DATE_LARGER:
			return argtype == DATEOID ? VEC_MAX_INT : VEC_NONE;
		case F_DATE_SMALLER:
			return argtype == DATEOID ? VEC_MIN_INT : VEC_NONE;
		case F_TIMESTAMP_LARGER:
			return argtype == TIMESTAMPOID ? VEC_MAX_INT : VEC_NONE;
		case F_TIMESTAMP_SMALLER:
			return argtype == TIMESTAMPOID ? VEC_MIN_INT : VEC_NONE;
		case F_TIMESTAMPTZ_LARGER:
			return argtype == TIMESTAMPTZOID ? VEC_MAX_INT : VEC_NONE;
		case F_TIMESTAMPTZ_SMALLER:
			return argtype == TIMESTAMPTZOID ? VEC_MIN_INT : VEC_NONE;
		case F_FLOAT4LARGER:
			return argtype == FLOAT4OID ? VEC_MAX_FLOAT4 : VEC_NONE;
		case F_FLOAT4SMALLER:
			return argtype == FLOAT4OID ? VEC_MIN_FLOAT4 : VEC_NONE;
		case F_FLOAT8LARGER:
			return argtype == FLOAT8OID ? VEC_MAX_FLOAT8 : VEC_NONE;
		case F_FLOAT8SMALLER:
			return argtype == FLOAT8OID ? VEC_MIN_FLOAT8 : VEC_NONE;
		case F_BOOLAND_STATEFUNC:
			return argtype == BOOLOID ? VEC_BOOL_AND : VEC_NONE;
		case F_BOOLOR_STATEFUNC:
			return argtype == BOOLOID ? VEC_BOOL_OR : VEC_NONE;
#ifdef HAVE_INT128
		case F_INT8_AVG_ACCUM:
			return argtype == INT8OID ? VEC_SUM_INT8 : VEC_NONE;
#endif
		default:
			return VEC_NONE;
	}
}

#ifdef HAVE_INT128
/*
 * numeric.c's Int128AggState (PolyNumAggState with HAVE_INT128), the state
 * of int8_avg_accum: not exported.  The layout is probed before the loop
 * is taken (vector_int8_probe) and each state int8_avg_accum makes is
 * checked after the call that made it (vector_int8_state); otherwise the
 * aggregate goes value by value through the function.
 */
typedef struct VecInt128AggState
{
	bool		calcSumX2;
	int64		N;
	int128		sumX;
	int128		sumX2;
} VecInt128AggState;

/*
 * Does int8_avg_accum (t's transition, called in the scan's aggregation
 * context) make and grow the layout above?  Two inputs into a new state:
 * N 1 then 2, sumX the input then the sum, calcSumX2 false.  The state is
 * freed after.
 */
static bool
vector_int8_probe(const TsAggTrans *t)
{
	FunctionCallInfo fc = t->trans;
	const int64 in1 = INT64CONST(0x0123456789ABCDEF);
	const int64 in2 = INT64CONST(-0x7EDCBA9876543210);
	VecInt128AggState *state;
	bool		ok;

	fc->args[0].value = (Datum) 0;
	fc->args[0].isnull = true;
	fc->args[1].value = Int64GetDatum(in1);
	fc->args[1].isnull = false;
	fc->isnull = false;
	state = (VecInt128AggState *) DatumGetPointer(FunctionCallInvoke(fc));
	if (fc->isnull || state == NULL)
		return false;
	ok = !state->calcSumX2 && state->N == 1 && state->sumX == (int128) in1;
	fc->args[0].value = PointerGetDatum(state);
	fc->args[0].isnull = false;
	fc->args[1].value = Int64GetDatum(in2);
	fc->isnull = false;
	ok = ok && DatumGetPointer(FunctionCallInvoke(fc)) == (Pointer) state && !fc->isnull &&
		!state->calcSumX2 && state->N == 2 && state->sumX == (int128) in1 + (int128) in2;
	pfree(state);
	return ok;
}
#endif

/*
 * The loop of aggregate t (its argument of type argtype), VEC_CALL when
 * none: a loop of ours where the initial state is what it assumes (0 for
 * counts, NULL for the others), the state by value (int8_avg_accum's:
 * a pointer to its internal state, checked as it is made).
 */
static VecOp
vector_loop(const TsAggScanState *st, const TsAggTrans *t, Oid argtype)
{
	VecOp		op = vector_op(t->trans->flinfo->fn_oid, argtype);

	/* max / min of a text column by its bytes (vector_bytes_minmax) */
	if (t->bytes_minmax != 0 && t->attno > 0 && argtype == TEXTOID)
		return VEC_BYTES_MINMAX;
	/* sum of a decimal column without GROUP BY, finalized here (vector_sum_decimal) */
	if (t->trans->flinfo->fn_oid == F_NUMERIC_AVG_ACCUM && argtype == NUMERICOID &&
		t->attno > 0 && st->nkeys == 0 && t->final != NULL &&
		t->final->flinfo->fn_oid == F_NUMERIC_SUM)
		return VEC_SUM_DECIMAL;

	if (op == VEC_NONE || (t->attno > 0 && !vector_type(argtype)) ||
		(op != VEC_SUM_INT8 && !t->transbyval) ||
		t->init_isnull != (op != VEC_COUNT_STAR && op != VEC_COUNT))
		return VEC_CALL;
#ifdef HAVE_INT128
	if (op == VEC_SUM_INT8 && !vector_int8_probe(t))
		return VEC_CALL;
#endif
	return op;
}

/* The column of attno in v, added when new; datums: its Datums are read. */
static int
vector_column(struct TsVectorState *v, AttrNumber attno, bool datums)
{
	for (int c = 0; c < v->ncolumns; c++)
		if (v->columns[c].attno == attno)
		{
			v->columns[c].datums |= datums;
			return c;
		}
	v->columns[v->ncolumns].attno = attno;
	v->columns[v->ncolumns].datums = datums;
	v->columns[v->ncolumns].values = palloc(sizeof(Datum) * VEC_ROWS);
	v->columns[v->ncolumns].isnull = palloc(sizeof(bool) * VEC_ROWS);
	return v->ncolumns++;
}

/*
 * The plan of the aggregation by columns for this scan, in the query's
 * memory, or NULL when something in it is not taken (see the top).
 */
static struct TsVectorState *
vector_plan(ForeignScanState *node, TsAggScanState *st)
{
	TupleDesc	desc = RelationGetDescr(st->rel);
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	List	   *attnums = (List *) list_nth(fs->fdw_private, FdwScanPrivateAttnums);
	MemoryContext old;
	struct TsVectorState *v;
	int			nloops = 0;

	if (!tablescan_enable_columnar_aggregate || st->nkeys > 1)
		return NULL;
	if (st->nkeys == 1)
	{
		Oid			typid = TupleDescAttr(desc, st->key_attnos[0] - 1)->atttypid;

		if (!vector_type(typid) || exprType(linitial(st->key_exprs)) != typid)
			return NULL;
	}
	for (int i = 0; i < st->naggs; i++)
	{
		TsAggTrans *t = &st->trans[i];
		Oid			argtype = InvalidOid;
		VecOp		op;

		if (t->attno > 0)
			argtype = TupleDescAttr(desc, t->attno - 1)->atttypid;
		op = vector_loop(st, t, argtype);
		if (op != VEC_CALL)
			nloops++;
	}
	/* nothing gained without a loop of ours: the rows go by as Datums anyway */
	if (nloops == 0)
		return NULL;

	old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	v = palloc0(sizeof(struct TsVectorState));
	v->columns = palloc0(sizeof(VecColumn) * (st->naggs + 1 + list_length(attnums)));
	v->aggs = palloc0(sizeof(VecAgg) * Max(st->naggs, 1));
	v->groups = palloc(sizeof(TsAggValue *) * VEC_ROWS);
	v->key = st->nkeys == 1 ? vector_column(v, st->key_attnos[0], true) : -1;
	for (int i = 0; i < st->naggs; i++)
	{
		TsAggTrans *t = &st->trans[i];

		Oid			argtype = t->attno > 0 ?
			TupleDescAttr(desc, t->attno - 1)->atttypid : InvalidOid;

		v->aggs[i].op = vector_loop(st, t, argtype);
		v->aggs[i].column = t->attno > 0 ?
			vector_column(v, t->attno, v->aggs[i].op != VEC_BYTES_MINMAX &&
						  v->aggs[i].op != VEC_SUM_DECIMAL) : -1;
	}
	/* with quals, every column read is converted: what the row path cannot convert errs here too */
	if (st->qual != NULL)
	{
		ListCell   *lc;

		foreach(lc, attnums)
			(void) vector_column(v, (AttrNumber) lfirst_int(lc), true);
	}
	MemoryContextSwitchTo(old);
	return v;
}

/*
 * Rows [first, first + n) of column c of the batch into c's arrays: the
 * Datums of datum.c's conversion, in a loop where it has one, else (and
 * from a value it leaves, whose ERROR it raises) one by one.
 */
static void
vector_convert(TsScanState *scan, VecColumn *c, const ts_batch *b, int first, int n)
{
	const TsDatumConverter *conv;
	int			col;
	int			done;
	ErrorContextCallback errcb;

	if (!tablescan_scan_attribute(scan, c->attno, &col, &conv))
		elog(ERROR, "tablescan_fdw: attribute %d of an aggregate is not read", c->attno);
	/* a value it cannot convert: the ERROR names the data file */
	tablescan_scan_context_push(scan, &errcb);
	done = tablescan_convert_column(conv, b, col, first, n, 1, c->values, c->isnull);
	for (int r = done; r < n; r++)
		c->values[r] = tablescan_convert_value(conv, ts_batch_at(b, first + r, col),
											   &c->isnull[r]);
	tablescan_scan_context_pop(&errcb);
}

/*
 * The first input of a strict transition is its state; a NULL state stays
 * (advance in scan_aggregate.c).  By-value states: no copy.
 */
#define STRICT_START(s, x) \
	if ((s)->novalue) \
	{ \
		(s)->value = (x); \
		(s)->isnull = false; \
		(s)->novalue = false; \
		continue; \
	} \
	if ((s)->isnull) \
		continue

#ifdef HAVE_INT128
/*
 * Is the state int8_avg_accum just made from one input (x, or NULL) the
 * layout above?  calcSumX2 false, N and sumX the input's.
 */
static bool
vector_int8_state(const TsAggValue *s, Datum x, bool isnull)
{
	const VecInt128AggState *st = (const VecInt128AggState *) DatumGetPointer(s->value);

	if (s->isnull || st == NULL || st->calcSumX2)
		return false;
	return isnull ? st->N == 0 && st->sumX == 0 :
		st->N == 1 && st->sumX == (int128) DatumGetInt64(x);
}
#endif

/*
 * sum(int8) / avg(int8) (int8_avg_accum, HAVE_INT128): a group's first
 * input through the function (it makes the state in the aggregate's
 * memory), checked against the layout; then do_int128_accum's own
 * additions (N + 1, sumX + x; sumX2 is not kept for these aggregates).
 * Returns false from the row whose state is not the layout: the caller
 * takes that row and the rest value by value (*done: the rows before it).
 */
static bool
vector_sum_int8(TsAggScanState *st, int a, TsAggValue **groups, const VecColumn *c, int n,
				int *done)
{
#ifdef HAVE_INT128
	for (int r = 0; r < n; r++)
	{
		TsAggValue *s = &groups[r][a];

		if (s->isnull)
		{
			tablescan_agg_advance_rows(st, a, &groups[r], &c->values[r], &c->isnull[r], 1);
			if (!vector_int8_state(s, c->values[r], c->isnull[r]))
			{
				/* not the layout: after this row, the function (the state it made is its own) */
				*done = r + 1;
				return false;
			}
			continue;
		}
		if (c->isnull[r])
			continue;
		{
			VecInt128AggState *state = (VecInt128AggState *) DatumGetPointer(s->value);

			state->sumX += (int128) DatumGetInt64(c->values[r]);
			state->N++;
		}
	}
	*done = n;
	return true;
#else
	*done = 0;
	return false;
#endif
}

/* n rows into aggregate a: the transition's loop over the chunk. */
static void
vector_advance(const VecAgg *agg, int a, TsAggValue **groups, const VecColumn *c, int n)
{
	const Datum *x = c ? c->values : NULL;
	const bool *nul = c ? c->isnull : NULL;

	switch (agg->op)
	{
		case VEC_COUNT_STAR:
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];
				int64		count;

				if (unlikely(pg_add_s64_overflow(DatumGetInt64(s->value), 1, &count)))
					ereport(ERROR,
							(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							 errmsg("bigint out of range")));
				s->value = Int64GetDatum(count);
			}
			break;
		case VEC_COUNT:
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];
				int64		count;

				if (nul[r])
					continue;
				if (unlikely(pg_add_s64_overflow(DatumGetInt64(s->value), 1, &count)))
					ereport(ERROR,
							(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							 errmsg("bigint out of range")));
				s->value = Int64GetDatum(count);
			}
			break;
		case VEC_SUM_INT:
			/* int2_sum / int4_sum (not strict): the first input, then + without a check */
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];
				/* an int2's Datum is sign-extended as an int4's: DatumGetInt32 reads both */
				int64		in = (int64) DatumGetInt32(x[r]);

				if (nul[r])
					continue;
				if (s->isnull)
				{
					s->value = Int64GetDatum(in);
					s->isnull = false;
					s->novalue = false;
				}
				else
					s->value = Int64GetDatum((int64) ((uint64) DatumGetInt64(s->value) + (uint64) in));
			}
			break;
		case VEC_SUM_FLOAT4:
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				s->value = Float4GetDatum(float4_pl(DatumGetFloat4(s->value),
													DatumGetFloat4(x[r])));
			}
			break;
		case VEC_SUM_FLOAT8:
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				s->value = Float8GetDatum(float8_pl(DatumGetFloat8(s->value),
													DatumGetFloat8(x[r])));
			}
			break;
		case VEC_MAX_INT:
		case VEC_MIN_INT:
			/* int2/int4/date Datums are sign-extended: all compare as int64 */
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				if (agg->op == VEC_MAX_INT ? (int64) x[r] > (int64) s->value :
					(int64) x[r] < (int64) s->value)
					s->value = x[r];
			}
			break;
		case VEC_MAX_FLOAT4:
		case VEC_MIN_FLOAT4:
			/* float4larger: float4_gt(state, x) ? state : x (smaller: float4_lt) */
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];
				float4		cur,
							in;

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				cur = DatumGetFloat4(s->value);
				in = DatumGetFloat4(x[r]);
				if (!(agg->op == VEC_MAX_FLOAT4 ? float4_gt(cur, in) : float4_lt(cur, in)))
					s->value = x[r];
			}
			break;
		case VEC_MAX_FLOAT8:
		case VEC_MIN_FLOAT8:
			/* float8larger: float8_gt(state, x) ? state : x (smaller: float8_lt) */
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];
				float8		cur,
							in;

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				cur = DatumGetFloat8(s->value);
				in = DatumGetFloat8(x[r]);
				if (!(agg->op == VEC_MAX_FLOAT8 ? float8_gt(cur, in) : float8_lt(cur, in)))
					s->value = x[r];
			}
			break;
		case VEC_BOOL_AND:
		case VEC_BOOL_OR:
			for (int r = 0; r < n; r++)
			{
				TsAggValue *s = &groups[r][a];

				if (nul[r])
					continue;
				STRICT_START(s, x[r]);
				s->value = BoolGetDatum(agg->op == VEC_BOOL_AND ?
										DatumGetBool(s->value) && DatumGetBool(x[r]) :
										DatumGetBool(s->value) || DatumGetBool(x[r]));
			}
			break;
		case VEC_SUM_INT8:
		case VEC_BYTES_MINMAX:
		case VEC_SUM_DECIMAL:
		case VEC_CALL:
		case VEC_NONE:
			elog(ERROR, "tablescan_fdw: no loop for an aggregate");
	}
}

/*
 * Rows [first, first + n) of text column attno into aggregate a, a max /
 * min by bytes: each string checked as its conversion would check it, then
 * compared where it lies in the batch; only a new state is copied.  Returns
 * n, or -1 with nothing done when the column is not converted by datum.c's
 * text path (a database encoding other than UTF-8, a length rule).
 */
static int
vector_bytes_minmax(TsAggScanState *st, int a, TsAggValue **groups, AttrNumber attno,
					const ts_batch *b, int first, int n)
{
	const TsDatumConverter *conv;
	int			col;
	ErrorContextCallback errcb;

	if (!tablescan_scan_attribute(st->scan, attno, &col, &conv))
		elog(ERROR, "tablescan_fdw: attribute %d of an aggregate is not read", attno);
	if (conv->path != TS_DATUM_TEXT)
		return -1;
	/* a string that is not text: the ERROR names the data file */
	tablescan_scan_context_push(st->scan, &errcb);
	for (int r = 0; r < n; r++)
	{
		const ts_value *x = ts_batch_at(b, first + r, col);
		const char *p;
		int			len;

		if (x->isnull)
			continue;
		p = tablescan_text_bytes(conv, x, &len);
		tablescan_agg_bytes_minmax(st, a, &groups[r][a], p, len);
	}
	tablescan_scan_context_pop(&errcb);
	return n;
}

/*
 * Rows [first, first + n) of decimal column attno into aggregate a,
 * sum(numeric) without GROUP BY (every row's state is groups[0]'s): their
 * unscaled values added exactly (at most VEC_ROWS values below 2^63: no
 * overflow of 128 bits), then the sum given to numeric_avg_accum as one
 * input.  numeric_sum, its final function, reads of the state only the sum
 * (the same, numeric addition being exact) and whether any input came
 * (N > 0), so the result is the one of value-by-value accumulation, to the
 * display scale (the column's, every input's).  Stops at a value beyond
 * the conversion's int64 path (its exact path, or its error, is the
 * caller's): returns the rows done; -1 with nothing done when the column
 * is not datum.c's decimal path (a typmod of another scale).
 */
static int
vector_sum_decimal(TsAggScanState *st, int a, TsAggValue **groups, AttrNumber attno,
				   const ts_batch *b, int first, int n)
{
	const TsDatumConverter *conv;
	int			col;
	ts_int128	sum = 0;
	bool		any = false;
	int			r;

	if (!tablescan_scan_attribute(st->scan, attno, &col, &conv))
		elog(ERROR, "tablescan_fdw: attribute %d of an aggregate is not read", attno);
	if (conv->path != TS_DATUM_NUMERIC || conv->numeric_limit <= 0)
		return -1;
	Assert(n <= VEC_ROWS);
	for (r = 0; r < n; r++)
	{
		const ts_value *x = ts_batch_at(b, first + r, col);

		if (x->isnull)
			continue;
		if (x->v.dec <= -(ts_int128) conv->numeric_limit ||
			x->v.dec >= (ts_int128) conv->numeric_limit)
			break;
		sum += x->v.dec;
		any = true;
	}
	if (any)
	{
		Datum		d = tablescan_decimal_sum_datum(conv, sum);
		bool		isnull = false;

		tablescan_agg_advance_rows(st, a, groups, &d, &isnull, 1);
	}
	return r;
}

/*
 * The groups of rows [0, n) of the chunk (the key in column key); stops
 * after a row whose new group filled the groups' memory: returns the rows
 * done, *full then.
 */
static int
vector_groups(TsAggScanState *st, struct TsVectorState *v, int n, bool *full)
{
	const VecColumn *k = &v->columns[v->key];

	*full = false;
	for (int r = 0; r < n; r++)
	{
		bool		isnew;

		/* the same key as the row before (bit for bit): its group */
		if (r > 0 && k->isnull[r] == k->isnull[r - 1] &&
			(k->isnull[r] || k->values[r] == k->values[r - 1]))
		{
			v->groups[r] = v->groups[r - 1];
			continue;
		}
		if (k->isnull[r])
		{
			if (v->cache_null == NULL)
				v->cache_null = tablescan_group_of_key(st, (Datum) 0, true, &isnew, full);
			v->groups[r] = v->cache_null;
		}
		else
		{
			Datum		key = k->values[r];
			uint32		h = (uint32) (((uint64) key * UINT64CONST(0x9E3779B97F4A7C15)) >> 56) &
				(VEC_CACHE - 1);

			if (v->cache_states[h] == NULL || v->cache_key[h] != key)
			{
				v->cache_states[h] = tablescan_group_of_key(st, key, false, &isnew, full);
				v->cache_key[h] = key;
			}
			v->groups[r] = v->cache_states[h];
		}
		if (v->groups[r] == NULL)
			elog(ERROR, "tablescan_fdw: the groups of an aggregation by columns have no index");
		if (*full)
			return r + 1;
	}
	return n;
}

/*
 * The next n rows of the scan (the rest of a batch) aggregated row by row
 * as the row path does (scan_aggregate.c's aggregate_rows, scan_group.c's
 * group_fill): converted to Datums, the quals checked on each; with GROUP
 * BY each kept row's group found by its key (tablescan_group_of_key).
 * Returns the rows consumed: fewer than n when a new group filled the
 * groups' memory (*full; that row is in, the rest of the batch waits for
 * the next call).
 */
static int
vector_rows_checked(ForeignScanState *node, TsAggScanState *st, int n, bool *full)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *slot = st->slot;
	int			key = st->nkeys == 1 ? st->key_attnos[0] - 1 : -1;
	int			r;

	*full = false;
	for (r = 0; r < n && !*full; r++)
	{
		TsAggValue *states = st->values;
		MemoryContext old;
		ErrorContextCallback errcb;
		bool		got;

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		tablescan_scan_context_push(st->scan, &errcb);
		got = tablescan_scan_next_row(st->scan, slot);
		tablescan_scan_context_pop(&errcb);
		if (!got)
			elog(ERROR, "tablescan_fdw: a batch ended before its rows");
		econtext->ecxt_scantuple = slot;
		if (!ExecQual(st->qual, econtext))
			continue;
		if (key >= 0)
		{
			bool		isnew;

			states = tablescan_group_of_key(st, slot->tts_values[key], slot->tts_isnull[key],
											&isnew, full);
			if (states == NULL)
				elog(ERROR, "tablescan_fdw: the groups of an aggregation by columns have no index");
		}
		st->rows_aggregated++;
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		tablescan_agg_advance_all(st, states, slot->tts_values, slot->tts_isnull);
		MemoryContextSwitchTo(old);
	}
	econtext->ecxt_scantuple = NULL;
	ExecClearTuple(slot);
	return r;
}

/*
 * Aggregate the scan's rows by columns, when the aggregation is one taken
 * here (decided at its first batch): until the rows are done
 * (TS_VECTOR_DONE) or the groups are full (TS_VECTOR_FULL: return them,
 * then call again).  TS_VECTOR_NO: not taken, the caller reads the rows
 * one by one (none is consumed).
 */
TsVectorResult
tablescan_vector_aggregate(ForeignScanState *node, TsAggScanState *st)
{
	MemoryContext tuplecxt = node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory;
	struct TsVectorState *v;
	const ts_batch *b;
	int			first;

	if (st->vector < 0)
		return TS_VECTOR_NO;
	if (st->vector == 0)
	{
		st->vec = vector_plan(node, st);
		st->vector = st->vec ? 1 : -1;
		if (st->vec == NULL)
			return TS_VECTOR_NO;
	}
	v = st->vec;
	/* the groups of an earlier call may have gone out */
	memset(v->cache_states, 0, sizeof(v->cache_states));
	v->cache_null = NULL;
	for (;;)
	{
		ErrorContextCallback errcb;
		bool		got;

		/* reading: an ERROR names the data file, as a scan's does */
		tablescan_scan_context_push(st->scan, &errcb);
		got = tablescan_scan_batch(st->scan, &b, &first);
		tablescan_scan_context_pop(&errcb);
		if (!got)
			break;
		CHECK_FOR_INTERRUPTS();
		if (st->qual != NULL && !tablescan_scan_batch_exact(st->scan))
		{
			/* quals the filter did not decide on every row: each checked */
			bool		full;

			(void) vector_rows_checked(node, st, b->nrows - first, &full);
			if (full)
			{
				MemoryContextReset(tuplecxt);
				return TS_VECTOR_FULL;
			}
			continue;
		}
		while (first < b->nrows)
		{
			int			n = Min(VEC_ROWS, b->nrows - first);
			bool		full = false;
			MemoryContext old;

			MemoryContextReset(tuplecxt);
			old = MemoryContextSwitchTo(tuplecxt);
			for (int c = 0; c < v->ncolumns; c++)
				if (v->columns[c].datums)
					vector_convert(st->scan, &v->columns[c], b, first, n);
			if (v->key >= 0)
				n = vector_groups(st, v, n, &full);
			else
				for (int r = 0; r < n; r++)
					v->groups[r] = st->values;
			for (int a = 0; a < st->naggs; a++)
			{
				VecColumn  *c = v->aggs[a].column >= 0 ?
					&v->columns[v->aggs[a].column] : NULL;

				if (v->aggs[a].op == VEC_SUM_INT8)
				{
					int			done;

					if (!vector_sum_int8(st, a, v->groups, c, n, &done))
					{
						/* the state is not the layout we know: value by value from here on */
						v->aggs[a].op = VEC_CALL;
						tablescan_agg_advance_rows(st, a, v->groups + done, c->values + done,
												   c->isnull + done, n - done);
					}
				}
				else if (v->aggs[a].op == VEC_SUM_DECIMAL || v->aggs[a].op == VEC_BYTES_MINMAX)
				{
					int			done = v->aggs[a].op == VEC_SUM_DECIMAL ?
						vector_sum_decimal(st, a, v->groups, c->attno, b, first, n) :
						vector_bytes_minmax(st, a, v->groups, c->attno, b, first, n);

					if (done < 0)
					{
						/* not datum.c's decimal / text path: by its Datums from here on */
						v->aggs[a].op = VEC_CALL;
						done = 0;
					}
					if (done < n)
					{
						/* (and a decimal past the int64 path: the rest of the chunk) */
						if (!c->datums)
						{
							c->datums = true;
							vector_convert(st->scan, c, b, first, n);
						}
						tablescan_agg_advance_rows(st, a, v->groups + done, c->values + done,
												   c->isnull + done, n - done);
					}
				}
				else if (v->aggs[a].op == VEC_CALL)
					tablescan_agg_advance_rows(st, a, v->groups, c ? c->values : NULL,
											   c ? c->isnull : NULL, n);
				else
					vector_advance(&v->aggs[a], a, v->groups, c, n);
			}
			MemoryContextSwitchTo(old);
			st->rows_aggregated += n;
			st->rows_by_column += n;
			tablescan_scan_consume(st->scan, n);
			first += n;
			if (full)
				return TS_VECTOR_FULL;
		}
	}
	MemoryContextReset(tuplecxt);
	return TS_VECTOR_DONE;
}
