/*
 * quals.c - PostgreSQL quals to the scan's predicate tree.
 *
 * Owns: the qual walker: deciding, node by node, which restriction clauses
 * can be handed to the Paimon scan for pruning, building the ts_predicate
 * for them, and its text for EXPLAIN.  Which column types may be pushed
 * and how a Datum becomes a Paimon literal: types.c.
 * Every clause stays a local qual too (PostgreSQL rechecks), so a
 * conversion only has to be conservative: a clause we do not understand is
 * simply not pushed; inside an OR that makes the whole OR unpushed.
 *
 * Values: Consts, and (when an ExprContext is given, i.e. in the
 * executor) Params and stable expressions without Vars of the scanned
 * relation, evaluated once.  String range comparisons are pushed only
 * under the C collation, because Paimon orders strings by their bytes.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/pg_locale.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "tablescan_fdw.h"
#include "expr/predicate.h"

typedef struct QualContext
{
	Index		relid;
	const int  *att_field;		/* attno-1 -> read-schema field, -1 */
	int			natts;
	const ts_schema *schema;
	ExprContext *econtext;		/* NULL while planning */
	int			dropped;		/* conjuncts left out of an AND */
} QualContext;

/* Var of our relation (maybe under a binary-compatible relabel) -> field. */
static int
var_field(QualContext *qc, Node *node, Oid *typid)
{
	Var		   *var;
	const ts_type *t;
	int			field;

	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || !IsA(node, Var))
		return -1;
	var = (Var *) node;
	if (var->varno != qc->relid || var->varlevelsup != 0 || var->varattno <= 0 ||
		var->varattno > qc->natts)
		return -1;
	field = qc->att_field[var->varattno - 1];
	if (field < 0)
		return -1;
	t = qc->schema->fields[field].type;
	if (!tablescan_column_type_matches(var->vartype, t))
		return -1;
	*typid = var->vartype;
	return field;
}

/* A value the scan can use: Const, or evaluable in the executor. */
static bool
value_of(QualContext *qc, Node *node, Datum *value, bool *isnull, Oid *typid)
{
	if (node == NULL)
		return false;
	if (IsA(node, Const))
	{
		*value = ((Const *) node)->constvalue;
		*isnull = ((Const *) node)->constisnull;
		*typid = ((Const *) node)->consttype;
		return true;
	}
	if (qc->econtext == NULL)
		return false;
	if (contain_var_clause(node) || contain_volatile_functions(node) ||
		contain_subplans(node))
		return false;
	{
		ExprState  *es = ExecInitExpr((Expr *) node, NULL);

		*value = ExecEvalExpr(es, qc->econtext, isnull);
		*typid = exprType(node);
	}
	return true;
}

/*
 * Does PostgreSQL see this column's values rounded?  TIMESTAMP(7..9) values
 * are shown rounded to microseconds (datum.c), so a literal equal to the
 * value PostgreSQL compares may differ from the value stored, its stats,
 * its partition value and the bucket it hashed to (1970-01-01 00:00:00 is
 * what PostgreSQL sees of a stored 00:00:00.000000001).  Comparisons with
 * such columns become comparisons with the nanosecond bounds of what
 * rounds to the literal (rounded_timestamp_leaf), IN lists an OR of those
 * ranges; NOT IN keeps a literal of another type, which never prunes.
 */
static bool
column_values_rounded(const ts_type *t)
{
	return (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ) && t->precision > 6;
}

/* v moved by delta nanoseconds (|delta| < 1 ms), nanos kept in 0..999999 */
static ts_value
timestamp_moved(ts_value v, int32 delta)
{
	v.v.ts.nanos += delta;
	if (v.v.ts.nanos < 0)
	{
		v.v.ts.nanos += 1000000;
		v.v.ts.millis--;
	}
	else if (v.v.ts.nanos >= 1000000)
	{
		v.v.ts.nanos -= 1000000;
		v.v.ts.millis++;
	}
	return v;
}

static ts_predicate *make_leaf(ts_predicate_op op, int field, ts_type *ltype, int n,
							   ts_value *lits);

/*
 * col op t on a TIMESTAMP(7..9) column: PostgreSQL compares the stored
 * nanoseconds N rounded half up to microseconds, floor((N + 500) / 1000)
 * (datum.c).  With T = t in nanoseconds that value is t exactly when
 * T - 500 <= N <= T + 499, below t when N <= T - 501, at most t when
 * N <= T + 499, above t when N >= T + 500 and at least t when N >= T - 500:
 * the same rows as those comparisons of the stored values, which prune
 * like any other (under NOT as well: each is an equivalence).  <> is left
 * to PostgreSQL.
 */
static ts_predicate *
rounded_timestamp_leaf(ts_predicate_op pop, int field, const ts_type *ft, Datum value,
					   Oid consttype)
{
	ts_value	t;
	ts_value   *lit = palloc0(sizeof(ts_value) * 2);
	ts_predicate *and,
			   *kids;

	if (!tablescan_datum_to_field_value(value, consttype, ft, &t))
		return NULL;
	switch (pop)
	{
		case TS_PRED_LT:
			lit[0] = timestamp_moved(t, -501);
			return make_leaf(TS_PRED_LE, field, NULL, 1, lit);
		case TS_PRED_LE:
			lit[0] = timestamp_moved(t, 499);
			return make_leaf(TS_PRED_LE, field, NULL, 1, lit);
		case TS_PRED_GT:
			lit[0] = timestamp_moved(t, 500);
			return make_leaf(TS_PRED_GE, field, NULL, 1, lit);
		case TS_PRED_GE:
			lit[0] = timestamp_moved(t, -500);
			return make_leaf(TS_PRED_GE, field, NULL, 1, lit);
		case TS_PRED_EQ:
			lit[0] = timestamp_moved(t, -500);
			lit[1] = timestamp_moved(t, 499);
			kids = palloc0(sizeof(ts_predicate) * 2);
			kids[0] = *make_leaf(TS_PRED_GE, field, NULL, 1, &lit[0]);
			kids[1] = *make_leaf(TS_PRED_LE, field, NULL, 1, &lit[1]);
			and = palloc0(sizeof(ts_predicate));
			and->op = TS_PRED_AND;
			and->nchildren = 2;
			and->children = kids;
			return and;
		default:
			return NULL;
	}
}

/* ---- clause walker ------------------------------------------------------ */

static ts_predicate *convert(QualContext *qc, Node *node);

static ts_predicate *
make_leaf(ts_predicate_op op, int field, ts_type *ltype, int n, ts_value *lits)
{
	ts_predicate *p = palloc0(sizeof(ts_predicate));

	p->op = op;
	p->field = field;
	p->literal_type = ltype;
	p->nliterals = n;
	p->literals = lits;
	return p;
}

static bool
is_string_kind(ts_type_kind k)
{
	return k == TS_CHAR || k == TS_VARCHAR;
}

static bool
collation_is_bytewise(Oid coll)
{
	return !OidIsValid(coll) || coll == C_COLLATION_OID || coll == POSIX_COLLATION_OID ||
		lc_collate_is_c(coll);
}

static bool
collation_is_deterministic(Oid coll)
{
	return !OidIsValid(coll) || get_collation_isdeterministic(coll);
}

static ts_predicate *
convert_opexpr(QualContext *qc, OpExpr *op)
{
	Node	   *l,
			   *r;
	Oid			opno = op->opno;
	Oid			vartype,
				consttype;
	int			field;
	Datum		value;
	bool		isnull;
	char	   *name;
	ts_predicate_op pop;
	ts_value   *lit;
	ts_type    *ltype;

	if (list_length(op->args) != 2 || opno >= FirstNormalObjectId)
		return NULL;
	l = linitial(op->args);
	r = lsecond(op->args);
	field = var_field(qc, l, &vartype);
	if (field < 0)
	{
		/* const op var: commute */
		field = var_field(qc, r, &vartype);
		if (field < 0)
			return NULL;
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return NULL;
		r = l;
	}
	if (!value_of(qc, r, &value, &isnull, &consttype))
		return NULL;
	name = get_opname(opno);
	if (name == NULL)
		return NULL;
	if (strcmp(name, "=") == 0)
		pop = TS_PRED_EQ;
	else if (strcmp(name, "<>") == 0)
		pop = TS_PRED_NE;
	else if (strcmp(name, "<") == 0)
		pop = TS_PRED_LT;
	else if (strcmp(name, "<=") == 0)
		pop = TS_PRED_LE;
	else if (strcmp(name, ">") == 0)
		pop = TS_PRED_GT;
	else if (strcmp(name, ">=") == 0)
		pop = TS_PRED_GE;
	else if (strcmp(name, "~~") == 0)
		pop = TS_PRED_STARTS_WITH;
	else
		return NULL;

	if (isnull)
		return NULL;			/* col op NULL is never true; leave it to PG */
	if (pop != TS_PRED_STARTS_WITH && column_values_rounded(qc->schema->fields[field].type))
		return rounded_timestamp_leaf(pop, field, qc->schema->fields[field].type, value, consttype);
	lit = palloc0(sizeof(ts_value));
	if (pop != TS_PRED_STARTS_WITH &&
		!column_values_rounded(qc->schema->fields[field].type) &&
		tablescan_datum_to_field_value(value, consttype, qc->schema->fields[field].type, lit))
		ltype = NULL;			/* exactly a value of the column's own type */
	else if (!tablescan_datum_to_literal(value, consttype, lit, &ltype))
		return NULL;

	/*
	 * LIKE and equality do not depend on a deterministic collation (equal
	 * strings are equal bytes); ranges do.  A nondeterministic one (ICU,
	 * case- or accent-insensitive) finds other bytes equal: never pushed.
	 */
	if (is_string_kind(qc->schema->fields[field].type->kind) &&
		(!collation_is_deterministic(op->inputcollid) ||
		 (pop != TS_PRED_EQ && pop != TS_PRED_NE && pop != TS_PRED_STARTS_WITH &&
		  !collation_is_bytewise(op->inputcollid))))
		return NULL;

	if (pop == TS_PRED_STARTS_WITH)
	{
		/*
		 * LIKE 'prefix%': the literal prefix before the first wildcard, with
		 * backslash escapes (LIKE's default escape) taken literally.
		 */
		const uint8 *p = lit->v.s.p;
		uint8	   *prefix = palloc(lit->v.s.len + 1);
		uint32		n = 0;

		if (!is_string_kind(qc->schema->fields[field].type->kind))
			return NULL;
		for (uint32 i = 0; i < lit->v.s.len; i++)
		{
			if (p[i] == '%' || p[i] == '_')
				break;
			if (p[i] == '\\')
			{
				if (++i >= lit->v.s.len)
					break;
			}
			prefix[n++] = p[i];
		}
		if (n == 0)
			return NULL;
		lit->v.s.p = prefix;
		lit->v.s.len = n;
	}
	return make_leaf(pop, field, ltype, 1, lit);
}

static ts_predicate *
convert_array_op(QualContext *qc, ScalarArrayOpExpr *op)
{
	Node	   *l = linitial(op->args);
	Node	   *r = lsecond(op->args);
	Oid			vartype,
				arraytype;
	int			field = var_field(qc, l, &vartype);
	Datum		value;
	bool		isnull;
	char	   *name;
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				k = 0;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Oid			elemtype;
	ts_value   *lits;
	ts_type    *ltype = NULL;
	ts_predicate_op pop;

	if (field < 0 || op->opno >= FirstNormalObjectId)
		return NULL;
	/* a nondeterministic collation finds other bytes equal (convert_opexpr) */
	if (is_string_kind(qc->schema->fields[field].type->kind) &&
		!collation_is_deterministic(op->inputcollid))
		return NULL;
	if (!value_of(qc, r, &value, &isnull, &arraytype) || isnull)
		return NULL;
	name = get_opname(op->opno);
	if (name && strcmp(name, "=") == 0 && op->useOr)
		pop = TS_PRED_IN;
	else if (name && strcmp(name, "<>") == 0 && !op->useOr)
		pop = TS_PRED_NOT_IN;
	else
		return NULL;
	arr = DatumGetArrayTypeP(value);
	elemtype = ARR_ELEMTYPE(arr);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
	lits = palloc0(sizeof(ts_value) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		ts_type    *t;

		if (nulls[i])
		{
			if (pop == TS_PRED_NOT_IN)
				return NULL;	/* x <> ALL(.., NULL) is never true */
			continue;			/* a NULL element never matches */
		}
		if (!tablescan_datum_to_literal(elems[i], elemtype, &lits[k], &t))
			return NULL;
		/* all literals share one type; decimals may differ in scale */
		if (ltype == NULL || (t->kind == TS_DECIMAL && t->scale > ltype->scale))
			ltype = t;
		k++;
	}
	if (ltype == NULL)
		return NULL;
	if (pop == TS_PRED_IN && column_values_rounded(qc->schema->fields[field].type))
	{
		/* TIMESTAMP(7..9): an OR of the nanosecond ranges that round to each */
		ts_predicate *kids = palloc0(sizeof(ts_predicate) * Max(n, 1));
		ts_predicate *or = palloc0(sizeof(ts_predicate));
		int			e = 0;

		for (int i = 0; i < n; i++)
		{
			ts_predicate *range;

			if (nulls[i])
				continue;
			range = rounded_timestamp_leaf(TS_PRED_EQ, field, qc->schema->fields[field].type,
										   elems[i], elemtype);
			if (range == NULL)
				return NULL;
			kids[e++] = *range;
		}
		if (e == 0)
			return NULL;
		or->op = TS_PRED_OR;
		or->nchildren = e;
		or->children = kids;
		return or;
	}
	{
		/* when every element is exactly a value of the column's type, use that */
		const ts_type *ft = qc->schema->fields[field].type;
		ts_value   *exact = palloc0(sizeof(ts_value) * Max(n, 1));
		int			e = 0;
		bool		all_exact = !column_values_rounded(ft);

		for (int i = 0; i < n && all_exact; i++)
		{
			if (nulls[i])
				continue;
			all_exact = tablescan_datum_to_field_value(elems[i], elemtype, ft, &exact[e++]);
		}
		if (all_exact)
			return make_leaf(pop, field, NULL, e, exact);
	}
	if (ltype->kind == TS_DECIMAL)
	{
		/* one literal type for the list: push only when all scales agree */
		for (int i = 0; i < n; i++)
		{
			ts_type    *t;
			ts_value	tmp;

			if (!nulls[i] && tablescan_datum_to_literal(elems[i], elemtype, &tmp, &t) &&
				t->scale != ltype->scale)
				return NULL;
		}
	}
	return make_leaf(pop, field, ltype, k, lits);
}

static ts_predicate *
convert_bool(QualContext *qc, BoolExpr *b)
{
	ts_predicate *children = palloc0(sizeof(ts_predicate) * list_length(b->args));
	ts_predicate *p;
	int			n = 0;
	ListCell   *lc;

	foreach(lc, b->args)
	{
		ts_predicate *c = convert(qc, lfirst(lc));

		if (c == NULL)
		{
			if (b->boolop == AND_EXPR)
			{
				qc->dropped++;
				continue;		/* dropping a conjunct only widens */
			}
			return NULL;
		}
		children[n++] = *c;
	}
	if (n == 0)
		return NULL;
	if (b->boolop == AND_EXPR && n == 1)
		return &children[0];
	p = palloc0(sizeof(ts_predicate));
	p->op = b->boolop == AND_EXPR ? TS_PRED_AND : b->boolop == OR_EXPR ? TS_PRED_OR : TS_PRED_NOT;
	p->nchildren = n;
	p->children = children;
	return p;
}

static ts_predicate *
convert(QualContext *qc, Node *node)
{
	Oid			vartype;
	int			field;

	if (node == NULL)
		return NULL;
	switch (nodeTag(node))
	{
		case T_OpExpr:
			return convert_opexpr(qc, (OpExpr *) node);
		case T_ScalarArrayOpExpr:
			return convert_array_op(qc, (ScalarArrayOpExpr *) node);
		case T_BoolExpr:
			return convert_bool(qc, (BoolExpr *) node);
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) node;

				if (nt->argisrow)
					return NULL;
				field = var_field(qc, (Node *) nt->arg, &vartype);
				if (field < 0)
					return NULL;
				return make_leaf(nt->nulltesttype == IS_NULL ? TS_PRED_IS_NULL : TS_PRED_IS_NOT_NULL,
								 field, NULL, 0, NULL);
			}
		case T_Var:
			field = var_field(qc, node, &vartype);
			if (field >= 0 && vartype == BOOLOID)
			{
				ts_value   *lit = palloc0(sizeof(ts_value));

				lit->v.i = 1;
				return make_leaf(TS_PRED_EQ, field, tablescan_literal_type(TS_BOOLEAN, 0, 0), 1, lit);
			}
			return NULL;
		default:
			return NULL;
	}
}

/*
 * Convert a list of clauses (implicitly ANDed) into one predicate, or NULL
 * when none can be pushed.
 */
ts_predicate *
tablescan_quals_to_predicate(List *clauses, Index relid, const int *att_field, int natts,
							 const ts_schema *schema, ExprContext *econtext)
{
	QualContext qc = {relid, att_field, natts, schema, econtext, 0};
	BoolExpr   *and;

	if (clauses == NIL)
		return NULL;
	and = (BoolExpr *) makeBoolExpr(AND_EXPR, clauses, -1);
	return convert_bool(&qc, and);
}

/*
 * Convert every clause, leaving nothing out: true and *pred = their AND
 * (NULL for no clauses) when each clause, and each conjunct inside it,
 * became part of the predicate; false otherwise.  Whether the predicate
 * then means exactly what the clauses mean is the caller's question
 * (ts_predicate_exact_on_partitions): leaves may still carry literals of
 * another type or a LIKE prefix.
 */
bool
tablescan_quals_convert_all(List *clauses, Index relid, const int *att_field, int natts,
							const ts_schema *schema, ExprContext *econtext, ts_predicate **pred)
{
	QualContext qc = {relid, att_field, natts, schema, econtext, 0};
	int			n = list_length(clauses),
				i = 0;
	ts_predicate *children;
	ListCell   *lc;

	*pred = NULL;
	if (n == 0)
		return true;
	children = palloc0(sizeof(ts_predicate) * n);
	foreach(lc, clauses)
	{
		ts_predicate *c = convert(&qc, lfirst(lc));

		if (c == NULL)
			return false;
		children[i++] = *c;
	}
	if (qc.dropped > 0)
		return false;
	if (n == 1)
		*pred = &children[0];
	else
	{
		*pred = palloc0(sizeof(ts_predicate));
		(*pred)->op = TS_PRED_AND;
		(*pred)->nchildren = n;
		(*pred)->children = children;
	}
	return true;
}

/* ---- EXPLAIN text --------------------------------------------------------- */

static const char *
op_text(ts_predicate_op op)
{
	switch (op)
	{
		case TS_PRED_EQ:
			return "=";
		case TS_PRED_NE:
			return "<>";
		case TS_PRED_LT:
			return "<";
		case TS_PRED_LE:
			return "<=";
		case TS_PRED_GT:
			return ">";
		case TS_PRED_GE:
			return ">=";
		default:
			return "?";
	}
}

static void
literal_text(StringInfo buf, const ts_value *v, const ts_type *t)
{
	char	   *s = ts_value_to_string(v, t);

	if (ts_type_is_bytes(t->kind) || t->kind == TS_DATE || t->kind == TS_TIMESTAMP ||
		t->kind == TS_TIMESTAMP_LTZ)
		appendStringInfoString(buf, quote_literal_cstr(s ? s : ""));
	else
		appendStringInfoString(buf, s ? s : "?");
	ts_free(s);
}

static void
predicate_text(StringInfo buf, const ts_predicate *p, const ts_schema *schema, bool top)
{
	const char *col;
	const ts_type *lt;

	if (p->op == TS_PRED_AND || p->op == TS_PRED_OR)
	{
		if (!top)
			appendStringInfoChar(buf, '(');
		for (int i = 0; i < p->nchildren; i++)
		{
			if (i)
				appendStringInfoString(buf, p->op == TS_PRED_AND ? " AND " : " OR ");
			predicate_text(buf, &p->children[i], schema, false);
		}
		if (!top)
			appendStringInfoChar(buf, ')');
		return;
	}
	if (p->op == TS_PRED_NOT)
	{
		appendStringInfoString(buf, "NOT ");
		predicate_text(buf, &p->children[0], schema, false);
		return;
	}
	col = quote_identifier(schema->fields[p->field].name);
	lt = p->literal_type ? p->literal_type : schema->fields[p->field].type;
	appendStringInfoChar(buf, '(');
	switch (p->op)
	{
		case TS_PRED_IS_NULL:
			appendStringInfo(buf, "%s IS NULL", col);
			break;
		case TS_PRED_IS_NOT_NULL:
			appendStringInfo(buf, "%s IS NOT NULL", col);
			break;
		case TS_PRED_IN:
		case TS_PRED_NOT_IN:
			appendStringInfo(buf, "%s %s (", col, p->op == TS_PRED_IN ? "IN" : "NOT IN");
			for (int i = 0; i < p->nliterals; i++)
			{
				if (i)
					appendStringInfoString(buf, ", ");
				literal_text(buf, &p->literals[i], lt);
			}
			appendStringInfoChar(buf, ')');
			break;
		case TS_PRED_STARTS_WITH:
			appendStringInfo(buf, "%s STARTS WITH ", col);
			literal_text(buf, &p->literals[0], lt);
			break;
		default:
			appendStringInfo(buf, "%s %s ", col, op_text(p->op));
			literal_text(buf, &p->literals[0], lt);
			break;
	}
	appendStringInfoChar(buf, ')');
}

char *
tablescan_predicate_text(const ts_predicate *p, const ts_schema *schema)
{
	StringInfoData buf;

	initStringInfo(&buf);
	predicate_text(&buf, p, schema, true);
	return buf.data;
}
