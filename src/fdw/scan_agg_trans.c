/*
 * scan_agg_trans.c - the aggregates a scan computes, run the way nodeAgg.c
 * runs a plain aggregate (for scan_aggregate.c, scan_group.c and
 * scan_vector.c).
 *
 * Owns: looking up each aggregate's transition, final and serialization
 * functions and initial state, their call frames, and feeding them:
 * strict functions skip NULL inputs and take the first input as their
 * state, a by-reference state is copied into the aggregation context, the
 * final function runs once.  A few transitions are computed here inline
 * (count, sum(float8), min / max of text compared by bytes where the
 * collation allows it), with PostgreSQL's results.  Knows nothing of
 * paths, plans or how the rows are read.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "scan_aggregate.h"
#include "base/ts_bytes.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <locale.h>

#include "catalog/pg_collation.h"
#include "common/int.h"
#include "mb/pg_wchar.h"
#include "utils/float.h"
#include "utils/pg_locale.h"

/* A function's call frame for one of our aggregates, nargs arguments. */
static FunctionCallInfo
call_frame(TsAggScanState *st, Oid fn, int nargs, Oid collation, MemoryContext cxt)
{
	FmgrInfo   *flinfo = MemoryContextAllocZero(cxt, sizeof(FmgrInfo));
	FunctionCallInfo fc = MemoryContextAllocZero(cxt, SizeForFunctionCallInfo(nargs));

	fmgr_info_cxt(fn, flinfo, cxt);
	InitFunctionCallInfoData(*fc, flinfo, nargs, collation, (Node *) st->aggstate, NULL);
	return fc;
}

/*
 * Does collation coll order text as its bytes do (memcmp, then length), as
 * varstr_cmp would find?  The C and POSIX collations (lc_collate_is_c),
 * and libc's C.UTF-8 in a UTF-8 database on glibc 2.35 or later, whose
 * strcoll compares code points (strcmp, the order of UTF-8's bytes): two
 * strings are equal only when their bytes are, so varstr_cmp's tiebreak
 * changes nothing either.
 */
static bool
collation_orders_by_bytes(Oid coll)
{
	const char *name = NULL;
	char	   *owned = NULL;
	bool		bytes;

	if (!OidIsValid(coll))
		return false;
	if (lc_collate_is_c(coll))
		return true;
#ifdef __GLIBC__
	{
		int			major,
					minor;

		if (GetDatabaseEncoding() != PG_UTF8 ||
			sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2 ||
			major < 2 || (major == 2 && minor < 35))
			return false;
	}
	if (coll == DEFAULT_COLLATION_OID)
	{
		/* the database's: libc's LC_COLLATE unless its provider is ICU */
		if (pg_newlocale_from_collation(coll) != 0)
			return false;
		name = setlocale(LC_COLLATE, NULL);
	}
	else
	{
		HeapTuple	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
		Form_pg_collation form;
		Datum		d;
		bool		isnull;

		if (!HeapTupleIsValid(tup))
			return false;
		form = (Form_pg_collation) GETSTRUCT(tup);
		if (form->collprovider == COLLPROVIDER_LIBC && form->collisdeterministic)
		{
			d = SysCacheGetAttr(COLLOID, tup, Anum_pg_collation_collcollate, &isnull);
			if (!isnull)
				name = owned = TextDatumGetCString(d);
		}
		ReleaseSysCache(tup);
	}
	bytes = name != NULL && (strcmp(name, "C.UTF-8") == 0 || strcmp(name, "C.utf8") == 0);
	if (owned)
		pfree(owned);
	return bytes;
#else
	return false;
#endif
}

/* Look up an aggregate's functions and initial state (nodeAgg.c's ExecInitAgg, reduced). */
static void
init_transition(TsAggScanState *st, TsAggTrans *t, Aggref *agg, MemoryContext cxt)
{
	HeapTuple	tup;
	Form_pg_aggregate form;
	Oid			transfn,
				finalfn,
				serialfn,
				transtype;
	Datum		initval;
	bool		initnull;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", agg->aggfnoid);
	form = (Form_pg_aggregate) GETSTRUCT(tup);
	transfn = form->aggtransfn;
	finalfn = form->aggfinalfn;
	serialfn = form->aggserialfn;
	transtype = form->aggtranstype;
	initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	t->init_isnull = initnull;
	if (!initnull)
	{
		Oid			typinput,
					typioparam;
		MemoryContext old = MemoryContextSwitchTo(cxt);

		getTypeInputInfo(transtype, &typinput, &typioparam);
		t->init_value = OidInputFunctionCall(typinput, TextDatumGetCString(initval),
											 typioparam, -1);
		MemoryContextSwitchTo(old);
	}
	ReleaseSysCache(tup);

	get_typlenbyval(transtype, &t->translen, &t->transbyval);
	if (agg->args == NIL)
		t->attno = 0;
	else
	{
		Var		   *var = argument_var(((TargetEntry *) linitial(agg->args))->expr);

		if (var == NULL || var->varattno <= 0)
			elog(ERROR, "tablescan_fdw: aggregate argument is not a column");
		t->attno = var->varattno;
	}
	t->trans = call_frame(st, transfn, t->attno > 0 ? 2 : 1, agg->inputcollid, cxt);
	t->strict = t->trans->flinfo->fn_strict;
	/* the commonest by-value transitions, computed here as they compute them */
	if (t->strict && t->transbyval && transtype == INT8OID &&
		(transfn == F_INT8INC || transfn == F_INT8INC_ANY))
		t->inline_fn = TS_INLINE_INT8INC;
	else if (t->strict && t->transbyval && transtype == FLOAT8OID && transfn == F_FLOAT8PL)
		t->inline_fn = TS_INLINE_FLOAT8PL;
	/* max / min of text where the collation orders by bytes: compared here */
	if ((transfn == F_TEXT_LARGER || transfn == F_TEXT_SMALLER) &&
		collation_orders_by_bytes(agg->inputcollid))
		t->bytes_minmax = transfn == F_TEXT_LARGER ? 1 : -1;
	/* a partial aggregate's result is its state (serialized when internal) */
	if (!DO_AGGSPLIT_SKIPFINAL(agg->aggsplit) && OidIsValid(finalfn))
	{
		t->final = call_frame(st, finalfn, 1, agg->inputcollid, cxt);
		t->final_strict = t->final->flinfo->fn_strict;
	}
	if (DO_AGGSPLIT_SERIALIZE(agg->aggsplit) && transtype == INTERNALOID)
	{
		t->serial = call_frame(st, serialfn, 1, InvalidOid, cxt);
		t->serial_strict = t->serial->flinfo->fn_strict;
	}
}

/*
 * What each scan column is: an aggregate (its functions and initial state)
 * or a GROUP BY key (its column and equality operator), in the query's
 * memory: they serve every rescan.
 */
void
tablescan_agg_init(ForeignScanState *node, TsAggScanState *st)
{
	ForeignScan *fs = (ForeignScan *) node->ss.ps.plan;
	MemoryContext cxt = node->ss.ps.state->es_query_cxt;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ListCell   *eqop = list_head((List *) list_nth(fs->fdw_private, FdwScanPrivateCountColumns));
	ListCell   *lc;
	int			ncols = list_length(fs->fdw_scan_tlist);
	int			col = 0;
	List	   *shard = list_length(fs->fdw_private) > FdwScanPrivateShardKeys ?
		(List *) list_nth(fs->fdw_private, FdwScanPrivateShardKeys) : NIL;

	st->ncolumns = ncols;
	st->trans = palloc0(sizeof(TsAggTrans) * Max(ncols, 1));
	st->column_agg = palloc(sizeof(int) * Max(ncols, 1));
	st->column_key = palloc(sizeof(int) * Max(ncols, 1));
	st->column_const = palloc0(sizeof(Datum) * Max(ncols, 1));
	st->key_attnos = palloc(sizeof(AttrNumber) * Max(ncols, 1));
	st->naggs = 0;
	st->nkeys = 0;
	foreach(lc, fs->fdw_scan_tlist)
	{
		Expr	   *expr = ((TargetEntry *) lfirst(lc))->expr;

		st->column_agg[col] = -1;
		st->column_key[col] = -1;
		if (IsA(expr, Aggref))
		{
			init_transition(st, &st->trans[st->naggs], (Aggref *) expr, cxt);
			st->column_agg[col] = st->naggs++;
		}
		else if (IsA(expr, Var) && shard != NIL &&
				 list_member_int(linitial(shard), ((Var *) expr)->varattno))
		{
			/* a GROUP BY key that is the pseudo-column _SHARD: its value */
			ListCell   *a,
					   *v;

			forboth(a, (List *) linitial(shard), v, (List *) lsecond(shard))
				if (lfirst_int(a) == ((Var *) expr)->varattno)
					st->column_const[col] = ((Const *) lfirst(v))->constvalue;
		}
		else
		{
			/* a GROUP BY key: a column */
			Var		   *var = argument_var(expr);

			if (var == NULL || var->varattno <= 0 || eqop == NULL)
				elog(ERROR, "tablescan_fdw: aggregate scan column is neither an aggregate nor a key");
			st->key_attnos[st->nkeys] = var->varattno;
			st->key_exprs = lappend(st->key_exprs, expr);
			st->key_eqops = lappend_oid(st->key_eqops, lfirst_oid(eqop));
			eqop = lnext((List *) list_nth(fs->fdw_private, FdwScanPrivateCountColumns), eqop);
			st->column_key[col] = st->nkeys++;
		}
		col++;
	}
	if (st->nkeys == 0)
		st->values = palloc0(sizeof(TsAggValue) * Max(st->naggs, 1));
	st->const_groups = list_length(fs->fdw_private) > FdwScanPrivateConstGroups &&
		intVal(list_nth(fs->fdw_private, FdwScanPrivateConstGroups)) != 0;
	MemoryContextSwitchTo(old);
}

/* Each aggregate's state before the first row, in the aggregation context. */
void
tablescan_agg_start(TsAggScanState *st, TsAggValue *values)
{
	MemoryContext old = MemoryContextSwitchTo(st->aggcontext->ecxt_per_tuple_memory);

	for (int i = 0; i < st->naggs; i++)
	{
		TsAggTrans *t = &st->trans[i];
		TsAggValue *v = &values[i];

		v->isnull = t->init_isnull;
		v->novalue = t->init_isnull;
		v->value = t->init_isnull ? (Datum) 0 :
			datumCopy(t->init_value, t->transbyval, t->translen);
	}
	MemoryContextSwitchTo(old);
}

/*
 * Byte strings in memcmp's order; the first 8 bytes compared as one number
 * when both have them (random strings mostly differ there: no call).
 */
static inline int
bytes_compare(const char *a, int la, const char *b, int lb)
{
	int			c;

	if (la >= 8 && lb >= 8)
	{
		uint64		x = ts_load_be64((const uint8_t *) a),
					y = ts_load_be64((const uint8_t *) b);

		if (x != y)
			return x < y ? -1 : 1;
	}
	c = memcmp(a, b, Min(la, lb));
	return c != 0 ? c : (la > lb) - (la < lb);
}

/* A text of the bytes p[0..len) in cxt. */
static text *
text_in_context(MemoryContext cxt, const char *p, int len)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	text	   *t = cstring_to_text_with_len(p, len);

	MemoryContextSwitchTo(old);
	return t;
}

/*
 * text_larger / text_smaller (t->bytes_minmax: strict, under a collation
 * that orders by bytes) on a non-NULL state and the input's bytes: the
 * state is replaced by a greater (smaller) string only, an equal one being
 * the same bytes; the new state is a text in aggcxt.
 */
static inline void
bytes_minmax_step(MemoryContext aggcxt, const TsAggTrans *t, TsAggValue *v, const char *p, int len)
{
	text	   *cur = DatumGetTextPP(v->value);
	int			c = bytes_compare(p, len, VARDATA_ANY(cur), VARSIZE_ANY_EXHDR(cur));

	if (t->bytes_minmax > 0 ? c > 0 : c < 0)
	{
		text	   *copy = text_in_context(aggcxt, p, len);

		pfree(DatumGetPointer(v->value));
		v->value = PointerGetDatum(copy);
	}
}

/*
 * One input (arg: the argument's value, ignored for count(*)) into one
 * aggregate's state (nodeAgg.c's advance_transition_function).
 */
static inline void
advance_value(TsAggScanState *st, const TsAggTrans *t, TsAggValue *v, Datum arg, bool argnull)
{
	FunctionCallInfo fc = t->trans;
	Datum		newval;
	MemoryContext aggcxt = st->aggcontext->ecxt_per_tuple_memory;

	if (t->strict)
	{
		if (argnull)
			return;
		if (v->novalue)
		{
			/* the first input is the state (the input's type is the state's) */
			MemoryContext old = MemoryContextSwitchTo(aggcxt);

			v->value = datumCopy(arg, t->transbyval, t->translen);
			MemoryContextSwitchTo(old);
			v->isnull = false;
			v->novalue = false;
			return;
		}
		if (v->isnull)
			return;
	}
	if (t->inline_fn == TS_INLINE_INT8INC)
	{
		/* int8inc: the state (never NULL: initial 0) plus one */
		int64		result;

		if (unlikely(pg_add_s64_overflow(DatumGetInt64(v->value), 1, &result)))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
		v->value = Int64GetDatum(result);
		return;
	}
	if (t->inline_fn == TS_INLINE_FLOAT8PL)
	{
		/* float8pl: float8_pl, overflow checked as it checks it */
		v->value = Float8GetDatum(float8_pl(DatumGetFloat8(v->value), DatumGetFloat8(arg)));
		return;
	}
	if (t->bytes_minmax != 0)
	{
		text	   *in = DatumGetTextPP(arg);

		bytes_minmax_step(aggcxt, t, v, VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in));
		return;
	}
	fc->args[0].value = v->value;
	fc->args[0].isnull = v->isnull;
	if (t->attno > 0)
	{
		fc->args[1].value = arg;
		fc->args[1].isnull = argnull;
	}
	fc->isnull = false;
	newval = FunctionCallInvoke(fc);
	if (!t->transbyval && DatumGetPointer(newval) != DatumGetPointer(v->value))
	{
		/* a new by-reference state: keep a copy, free the old one */
		if (!fc->isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(aggcxt);

			newval = datumCopy(newval, t->transbyval, t->translen);
			MemoryContextSwitchTo(old);
		}
		if (!v->isnull)
			pfree(DatumGetPointer(v->value));
	}
	v->value = newval;
	v->isnull = fc->isnull;
}

/* One row into one aggregate's state. */
static inline void
advance(TsAggScanState *st, const TsAggTrans *t, TsAggValue *v, const Datum *values,
		const bool *isnull)
{
	if (t->attno > 0)
		advance_value(st, t, v, values[t->attno - 1], isnull[t->attno - 1]);
	else
		advance_value(st, t, v, (Datum) 0, false);
}

/*
 * The inputs of n rows into aggregate a, one by one: row r's argument
 * args[r] / argnulls[r] (NULL arrays for count(*)), its state in
 * states[r][a] (scan_vector.c, for the aggregates it has no loop of its
 * own for).
 */
void
tablescan_agg_advance_rows(TsAggScanState *st, int a, TsAggValue **states, const Datum *args,
						   const bool *argnulls, int n)
{
	const TsAggTrans *t = &st->trans[a];

	for (int r = 0; r < n; r++)
		advance_value(st, t, &states[r][a], args ? args[r] : (Datum) 0,
					  argnulls ? argnulls[r] : false);
}

/*
 * A string's bytes (checked as text already) into aggregate a, a max / min
 * of t->bytes_minmax, as advance_value would take its text Datum: the first
 * input becomes the state (a copy in the aggregation's memory).
 */
void
tablescan_agg_bytes_minmax(TsAggScanState *st, int a, TsAggValue *v, const char *p, int len)
{
	const TsAggTrans *t = &st->trans[a];
	MemoryContext aggcxt = st->aggcontext->ecxt_per_tuple_memory;

	Assert(t->bytes_minmax != 0 && t->strict);
	if (v->novalue)
	{
		v->value = PointerGetDatum(text_in_context(aggcxt, p, len));
		v->isnull = false;
		v->novalue = false;
	}
	else if (!v->isnull)
		bytes_minmax_step(aggcxt, t, v, p, len);
}

/* One row into every aggregate's state (states: one per aggregate). */
void
tablescan_agg_advance_all(TsAggScanState *st, TsAggValue *states, const Datum *values,
						  const bool *isnull)
{
	for (int i = 0; i < st->naggs; i++)
		advance(st, &st->trans[i], &states[i], values, isnull);
}

/* Call fc on the state: a final or serialization function (strict: NULL for NULL). */
static Datum
call_on_state(FunctionCallInfo fc, bool strict, const TsAggValue *v, bool *isnull)
{
	Datum		result;

	if (strict && v->isnull)
	{
		*isnull = true;
		return (Datum) 0;
	}
	fc->args[0].value = v->value;
	fc->args[0].isnull = v->isnull;
	fc->isnull = false;
	result = FunctionCallInvoke(fc);
	*isnull = fc->isnull;
	return result;
}

/*
 * An aggregate's result from its state: the final function's, or a partial
 * aggregate's state (serialized when internal) for a Finalize Aggregate
 * (nodeAgg.c's finalize_aggregate and finalize_partialaggregate), in the
 * current memory context.
 */
Datum
tablescan_agg_result(const TsAggTrans *t, const TsAggValue *v, bool *isnull)
{
	if (t->final)
		return call_on_state(t->final, t->final_strict, v, isnull);
	if (t->serial)
		return call_on_state(t->serial, t->serial_strict, v, isnull);
	*isnull = v->isnull;
	return v->value;
}

