/*
 * value_compare.c - ordering of two values of one Paimon type, as Java
 * orders them (PAIMON-FORMAT.md 7.3, 10.4).
 *
 * Owns: the order of two non-NULL scalar values (ts_value_order) that
 * pruning uses (partition filters against partition stats, predicates
 * against value and row-group stats, bucket literals) and that
 * merge-on-read's key order builds on (read/value_ops.c).
 * Strings and binaries compare as unsigned bytes then length; FLOAT/DOUBLE
 * by Java's Float/Double.compare (-0.0 < 0.0, NaN largest).  Types it does
 * not order return false so callers keep the file.
 */
#include <math.h>
#include <string.h>

#include "base/ts_type_class.h"
#include "expr/predicate.h"

static int
cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static int
cmp_double(double a, double b)
{
	bool		an = isnan(a),
				bn = isnan(b);

	if (an || bn)
		return an && bn ? 0 : an ? 1 : -1;
	if (a < b)
		return -1;
	if (a > b)
		return 1;
	/* -0.0 < 0.0 */
	if (signbit(a) != signbit(b))
		return signbit(a) ? -1 : 1;
	return 0;
}

static int
cmp_bytes(const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl)
{
	uint32_t	n = al < bl ? al : bl;
	int			c = n ? memcmp(a, b, n) : 0;

	if (c)
		return c < 0 ? -1 : 1;
	return al < bl ? -1 : al > bl ? 1 : 0;
}

bool
ts_value_orders_by_int(ts_type_kind kind)
{
	return ts_type_holds_int(kind);
}

bool
ts_value_order(const ts_type *t, const ts_value *a, const ts_value *b, int *result)
{
	if (ts_value_orders_by_int(t->kind))
	{
		*result = cmp_i64(a->v.i, b->v.i);
		return true;
	}
	switch (ts_type_class_of(t->kind)->phys)
	{
		case TS_PHYS_FLOAT:
			*result = cmp_double(a->v.f, b->v.f);
			return true;
		case TS_PHYS_DOUBLE:
			*result = cmp_double(a->v.d, b->v.d);
			return true;
		case TS_PHYS_DECIMAL:
			*result = a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec ? 1 : 0;
			return true;
		case TS_PHYS_BYTES:
			*result = cmp_bytes(a->v.s.p, a->v.s.len, b->v.s.p, b->v.s.len);
			return true;
		case TS_PHYS_TIMESTAMP:
			*result = cmp_i64(a->v.ts.millis, b->v.ts.millis);
			if (*result == 0)
				*result = cmp_i64(a->v.ts.nanos, b->v.ts.nanos);
			return true;
		default:
			return false;
	}
}

/*
 * Decide leaf p on one value v of type t (a partition value): 1 = holds,
 * 0 = does not (SQL semantics: NULL satisfies only IS NULL, a NULL
 * literal never matches), -1 = cannot be decided (a literal of another
 * type, an unordered type, an unknown operator).
 */
int
ts_predicate_leaf_decide(const ts_predicate *p, const ts_type *t, const ts_value *v)
{
	int			c;

	if (p->op == TS_PRED_IS_NULL)
		return v->isnull;
	if (p->op == TS_PRED_IS_NOT_NULL)
		return !v->isnull;
	if (v->isnull)
		return 0;
	if (p->literal_type && !ts_type_equal(p->literal_type, t))
		return -1;
	if (p->op == TS_PRED_STARTS_WITH)
	{
		const ts_value *lit = p->nliterals > 0 ? &p->literals[0] : NULL;

		if (lit == NULL || lit->isnull || !ts_type_is_bytes(t->kind))
			return -1;
		return v->v.s.len >= lit->v.s.len &&
			(lit->v.s.len == 0 || memcmp(v->v.s.p, lit->v.s.p, lit->v.s.len) == 0);
	}
	if (p->op == TS_PRED_IN || p->op == TS_PRED_NOT_IN)
	{
		bool		found = false,
					saw_null = false;

		for (int i = 0; i < p->nliterals; i++)
		{
			if (p->literals[i].isnull)
			{
				saw_null = true;
				continue;
			}
			if (!ts_value_order(t, v, &p->literals[i], &c))
				return -1;
			if (c == 0 || ts_predicate_equal_zeros(t, v, &p->literals[i]))
				found = true;
		}
		if (p->op == TS_PRED_IN)
			return found;
		return !found && !saw_null;	/* x NOT IN (.., NULL) is never true */
	}
	if (p->nliterals < 1 || p->literals[0].isnull)
		return 0;				/* comparison with NULL is never true */
	if (!ts_value_order(t, v, &p->literals[0], &c))
		return -1;
	if (ts_predicate_equal_zeros(t, v, &p->literals[0]))
		c = 0;					/* SQL: -0.0 = 0.0 */
	switch (p->op)
	{
		case TS_PRED_EQ:
			return c == 0;
		case TS_PRED_NE:
			return c != 0;
		case TS_PRED_LT:
			return c < 0;
		case TS_PRED_LE:
			return c <= 0;
		case TS_PRED_GT:
			return c > 0;
		case TS_PRED_GE:
			return c >= 0;
		default:
			return -1;
	}
}
