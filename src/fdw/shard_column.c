/*
 * shard_column.c - the _SHARD pseudo-column of a foreign table.
 *
 * Owns: recognizing a column named _SHARD (by attname or option
 * column_name) that the Paimon table has no field of (a real field of
 * that name wins), the types it may have, its value (K of "scan.shard"
 * 'K/N', 1 without the option: '1/1' is the whole table), and resolving
 * the quals on it at plan time: the value is one constant for the whole
 * scan, so each restriction clause that reads it is folded with the
 * constant in its place, dropped when that makes it true, and turned
 * into a constant false (a gating One-Time Filter; the Paimon plan keeps
 * no file) when it makes it false.  The scans fill the column with the
 * constant (scan_rows.c, scan_agg_trans.c, count_metadata.c); nothing
 * below src/fdw ever sees it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"

#include "tablescan_fdw.h"

bool
tablescan_is_shard_name(const char *name)
{
	return strcmp(name, TS_SHARD_COLUMN_NAME) == 0;
}

/* The types a user declares a shard number as; another one is an ERROR naming it. */
void
tablescan_shard_column_check(Relation rel, int attidx)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attidx);

	switch (att->atttypid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
			return;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("column \"%s\" of foreign table \"%s\" is the pseudo-column _SHARD and cannot be of type %s",
							NameStr(att->attname), RelationGetRelationName(rel),
							format_type_be(att->atttypid)),
					 errhint("Declare _SHARD as smallint, integer, bigint or numeric: it holds K of option \"scan.shard\" 'K/N' (1 without the option).")));
	}
}

/* K of "scan.shard" 'K/N'; 1 without the option ('1/1', the whole table). */
static int32
shard_number(const TsTableOptions *opts)
{
	return opts->shard_n > 0 ? opts->shard_k : 1;
}

/* The value of the pseudo-column as a Const of its attribute's type. */
Const *
tablescan_shard_const(const TsTableOptions *opts, Oid typid, int32 typmod)
{
	int32		k = shard_number(opts);
	Datum		value;
	int16		len;
	bool		byval;

	switch (typid)
	{
		case INT2OID:
			value = DirectFunctionCall1(i4toi2, Int32GetDatum(k));	/* ERROR past int2 */
			break;
		case INT4OID:
			value = Int32GetDatum(k);
			break;
		case INT8OID:
			value = Int64GetDatum((int64) k);
			break;
		case NUMERICOID:
			value = NumericGetDatum(int64_to_numeric(k));
			if (typmod >= 0)	/* numeric(p,s): ERROR when K does not fit */
				value = DirectFunctionCall2(numeric, value, Int32GetDatum(typmod));
			break;
		default:
			elog(ERROR, "tablescan_fdw: _SHARD of type %u", typid);
	}
	get_typlenbyval(typid, &len, &byval);
	return makeConst(typid, typmod, InvalidOid, len, value, false, byval);
}

/* The pseudo-column's value for attribute attidx (0-based) of rel. */
Const *
tablescan_shard_const_of(const TsTableOptions *opts, Relation rel, int attidx)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attidx);

	return tablescan_shard_const(opts, att->atttypid, att->atttypmod);
}

/*
 * Is a value written into the pseudo-column (INSERT, or the row an UPDATE
 * carries over) its own value?  Writing it changes nothing then.
 */
bool
tablescan_shard_value_is(const Const *shard, Datum value)
{
	switch (shard->consttype)
	{
		case INT2OID:
			return DatumGetInt16(value) == DatumGetInt16(shard->constvalue);
		case INT4OID:
			return DatumGetInt32(value) == DatumGetInt32(shard->constvalue);
		case INT8OID:
			return DatumGetInt64(value) == DatumGetInt64(shard->constvalue);
		case NUMERICOID:
			return DatumGetBool(DirectFunctionCall2(numeric_eq, value, shard->constvalue));
		default:
			return false;
	}
}

/* Is expr (maybe relabeled) a Var of relid's pseudo-column _SHARD? */
bool
tablescan_is_shard_var(Node *expr, Index relid, const int *att_field, int natts)
{
	Var		   *var;

	while (expr && IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	if (expr == NULL || !IsA(expr, Var))
		return false;
	var = (Var *) expr;
	return var->varno == relid && var->varlevelsup == 0 && var->varattno > 0 &&
		var->varattno <= natts && att_field[var->varattno - 1] == TS_COLUMN_SHARD;
}

typedef struct ShardSubst
{
	Index		relid;
	const int  *att_field;
	int			natts;
	const TsTableOptions *opts;
	bool		found;
} ShardSubst;

static Node *
substitute_mutator(Node *node, ShardSubst *s)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && tablescan_is_shard_var(node, s->relid, s->att_field, s->natts))
	{
		Var		   *var = (Var *) node;

		s->found = true;
		return (Node *) tablescan_shard_const(s->opts, var->vartype, var->vartypmod);
	}
	return expression_tree_mutator(node, substitute_mutator, (void *) s);
}

/*
 * The clause with the pseudo-column's value in place of its Vars, folded;
 * NULL when it does not read the pseudo-column.
 */
static Node *
substitute(PlannerInfo *root, Node *clause, Index relid, const int *att_field, int natts,
		   const TsTableOptions *opts)
{
	ShardSubst	s = {relid, att_field, natts, opts, false};
	Node	   *out = substitute_mutator(clause, &s);

	return s.found ? eval_const_expressions(root, out) : NULL;
}

/* Is this folded clause false (or NULL) for every row? */
static bool
is_false(Node *clause)
{
	return clause && IsA(clause, Const) &&
		(((Const *) clause)->constisnull || !DatumGetBool(((Const *) clause)->constvalue));
}

/* Is this folded clause true for every row? */
static bool
is_true(Node *clause)
{
	return clause && IsA(clause, Const) &&
		!((Const *) clause)->constisnull && DatumGetBool(((Const *) clause)->constvalue);
}

/* Is some clause false for the whole scan once the pseudo-column is its value? */
bool
tablescan_shard_quals_false(List *clauses, Index relid, const int *att_field, int natts,
							const TsTableOptions *opts)
{
	ListCell   *lc;

	foreach(lc, clauses)
		if (is_false(substitute(NULL, lfirst(lc), relid, att_field, natts, opts)))
			return true;
	return false;
}

/*
 * Rewrite baserel's restriction clauses that read the pseudo-column: true
 * ones go, false ones become a pseudoconstant false (PostgreSQL puts a
 * One-Time Filter above the scan), the others stay with the value in
 * place of the column.
 */
void
tablescan_shard_rewrite_quals(PlannerInfo *root, RelOptInfo *baserel, const int *att_field,
							  int natts, const TsTableOptions *opts)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		Node	   *folded = substitute(root, (Node *) ri->clause, baserel->relid, att_field,
										natts, opts);

		if (folded == NULL)
			out = lappend(out, ri);
		else if (is_true(folded))
			continue;
		else
		{
			bool		constant = is_false(folded);

			if (constant)
			{
				folded = makeBoolConst(false, false);
				root->hasPseudoConstantQuals = true;
			}
			out = lappend(out, make_restrictinfo(root, (Expr *) folded, ri->is_pushed_down,
												 ri->outerjoin_delayed, constant,
												 ri->security_level, ri->required_relids,
												 ri->outer_relids, ri->nullable_relids));
		}
	}
	baserel->baserestrictinfo = out;
}
