/*
 * row_ids.c - sets of row ids as sorted ranges (see row_ids.h).
 *
 * Owns: building, combining and querying ts_row_ids, and turning the
 * predicate quals on _ROW_ID give into one.  The set a predicate yields is
 * always a superset of the row ids it accepts (anything not understood
 * allows everything); the executor still checks every qual.
 */
#include <stdlib.h>
#include <string.h>

#include "expr/predicate.h"
#include "scan/row_ids.h"

void
ts_row_ids_init_all(ts_row_ids *s)
{
	memset(s, 0, sizeof(*s));
	s->all = true;
}

void
ts_row_ids_free(ts_row_ids *s)
{
	if (s == NULL)
		return;
	ts_free(s->ranges);
	s->ranges = NULL;
	s->n = 0;
}

static int
cmp_range(const void *a, const void *b)
{
	const ts_row_range *x = a,
			   *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

bool
ts_row_ids_from_ranges(const ts_row_range *r, int n, ts_row_ids *out, ts_err *err)
{
	ts_row_range *v;
	int			k = 0;

	memset(out, 0, sizeof(*out));
	v = ts_malloc(sizeof(ts_row_range) * (size_t) (n > 0 ? n : 1));
	if (v == NULL)
		return ts_error_nomem(err, "row-id ranges");
	for (int i = 0; i < n; i++)
		if (r[i].from <= r[i].to)
			v[k++] = r[i];
	qsort(v, k, sizeof(*v), cmp_range);
	out->n = 0;
	for (int i = 0; i < k; i++)
	{
		ts_row_range *last = out->n > 0 ? &v[out->n - 1] : NULL;

		/* merge overlapping and adjacent ranges (last->to + 1 without overflow) */
		if (last && (v[i].from <= last->to || (last->to < INT64_MAX && v[i].from == last->to + 1)))
		{
			if (v[i].to > last->to)
				last->to = v[i].to;
		}
		else
			v[out->n++] = v[i];
	}
	out->ranges = v;
	return true;
}

static bool
copy_set(const ts_row_ids *a, ts_row_ids *out, ts_err *err)
{
	if (a->all)
	{
		ts_row_ids_init_all(out);
		return true;
	}
	return ts_row_ids_from_ranges(a->ranges, a->n, out, err);
}

bool
ts_row_ids_intersect(const ts_row_ids *a, const ts_row_ids *b, ts_row_ids *out, ts_err *err)
{
	int			i = 0,
				j = 0;

	if (a->all)
		return copy_set(b, out, err);
	if (b->all)
		return copy_set(a, out, err);
	memset(out, 0, sizeof(*out));
	out->ranges = ts_malloc(sizeof(ts_row_range) * (size_t) (a->n + b->n + 1));
	if (out->ranges == NULL)
		return ts_error_nomem(err, "row-id ranges");
	while (i < a->n && j < b->n)
	{
		int64_t		from = a->ranges[i].from > b->ranges[j].from ? a->ranges[i].from : b->ranges[j].from;
		int64_t		to = a->ranges[i].to < b->ranges[j].to ? a->ranges[i].to : b->ranges[j].to;

		if (from <= to)
			out->ranges[out->n++] = (ts_row_range) {from, to};
		if (a->ranges[i].to < b->ranges[j].to)
			i++;
		else
			j++;
	}
	return true;
}

bool
ts_row_ids_union(const ts_row_ids *a, const ts_row_ids *b, ts_row_ids *out, ts_err *err)
{
	ts_row_range *all;
	bool		ok;

	if (a->all || b->all)
	{
		ts_row_ids_init_all(out);
		return true;
	}
	all = ts_malloc(sizeof(ts_row_range) * (size_t) (a->n + b->n + 1));
	if (all == NULL)
		return ts_error_nomem(err, "row-id ranges");
	if (a->n)
		memcpy(all, a->ranges, sizeof(ts_row_range) * a->n);
	if (b->n)
		memcpy(all + a->n, b->ranges, sizeof(ts_row_range) * b->n);
	ok = ts_row_ids_from_ranges(all, a->n + b->n, out, err);
	ts_free(all);
	return ok;
}

static const ts_type row_id_type = {.kind = TS_BIGINT, .nullable = false};

/* The literal of a leaf as a row id; false when it cannot be used. */
static bool
leaf_literal(const ts_predicate *p, const ts_value *lit, int64_t *v)
{
	if (p->literal_type && p->literal_type->kind != TS_BIGINT)
		return false;
	if (lit->isnull || !ts_predicate_literal_usable(&row_id_type, p, lit))
		return false;
	*v = lit->v.i;
	return true;
}

static bool
leaf_row_ids(const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	ts_row_range *r;
	int			k = 0;
	int64_t		v;
	bool		ok;

	ts_row_ids_init_all(out);
	switch (p->op)
	{
		case TS_PRED_EQ:
		case TS_PRED_IN:
			r = ts_malloc(sizeof(ts_row_range) * (size_t) (p->nliterals > 0 ? p->nliterals : 1));
			if (r == NULL)
				return ts_error_nomem(err, "row-id ranges");
			for (int i = 0; i < p->nliterals; i++)
			{
				if (p->literals[i].isnull)
					continue;	/* a NULL element never matches */
				if (!leaf_literal(p, &p->literals[i], &v))
				{
					ts_free(r);
					return true;	/* all */
				}
				r[k++] = (ts_row_range) {v, v};
			}
			ok = ts_row_ids_from_ranges(r, k, out, err);
			ts_free(r);
			return ok;
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
			{
				ts_row_range one = {INT64_MIN, INT64_MAX};

				if (p->nliterals != 1)
					return true;
				if (p->literals[0].isnull)
					return ts_row_ids_from_ranges(NULL, 0, out, err);	/* never true */
				if (!leaf_literal(p, &p->literals[0], &v))
					return true;
				if (p->op == TS_PRED_LT)
				{
					if (v == INT64_MIN)
						return ts_row_ids_from_ranges(NULL, 0, out, err);
					one.to = v - 1;
				}
				else if (p->op == TS_PRED_LE)
					one.to = v;
				else if (p->op == TS_PRED_GT)
				{
					if (v == INT64_MAX)
						return ts_row_ids_from_ranges(NULL, 0, out, err);
					one.from = v + 1;
				}
				else
					one.from = v;
				return ts_row_ids_from_ranges(&one, 1, out, err);
			}
		default:
			return true;		/* <>, NOT IN, IS [NOT] NULL, LIKE: all */
	}
}

bool
ts_row_ids_combine(ts_row_ids *acc, ts_row_ids *kid, bool and_, ts_err *err)
{
	ts_row_ids	next;
	bool		ok = and_ ? ts_row_ids_intersect(acc, kid, &next, err) :
		ts_row_ids_union(acc, kid, &next, err);

	ts_row_ids_free(acc);
	ts_row_ids_free(kid);
	if (ok)
		*acc = next;
	return ok;
}

bool
ts_row_ids_eval(const ts_predicate *p, ts_row_ids_leaf_fn leaf, void *arg, ts_row_ids *out,
				ts_err *err)
{
	ts_row_ids	acc,
				kid;

	ts_row_ids_init_all(out);
	if (p == NULL)
		return true;
	switch (p->op)
	{
		case TS_PRED_AND:
		case TS_PRED_OR:
			if (p->nchildren == 0)
				return true;
			if (!ts_row_ids_eval(&p->children[0], leaf, arg, &acc, err))
				return false;
			for (int i = 1; i < p->nchildren; i++)
			{
				if (p->op == TS_PRED_OR && acc.all)
					break;		/* all already */
				if (!ts_row_ids_eval(&p->children[i], leaf, arg, &kid, err))
				{
					ts_row_ids_free(&acc);
					return false;
				}
				if (!ts_row_ids_combine(&acc, &kid, p->op == TS_PRED_AND, err))
					return false;
			}
			*out = acc;
			return true;
		case TS_PRED_NOT:
			return true;		/* all: conservative */
		default:
			return leaf(arg, p, out, err);
	}
}

/* A leaf of ts_row_ids_from_predicate: comparisons on its field only. */
static bool
field_leaf(void *arg, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	if (p->field != *(const int *) arg)
	{
		ts_row_ids_init_all(out);
		return true;
	}
	return leaf_row_ids(p, out, err);
}

bool
ts_row_ids_from_predicate(const ts_predicate *p, int field, ts_row_ids *out, ts_err *err)
{
	return ts_row_ids_eval(p, field_leaf, &field, out, err);
}

bool
ts_row_ids_overlaps(const ts_row_ids *s, int64_t from, int64_t to)
{
	int			lo = 0,
				hi;

	if (s->all)
		return true;
	if (from > to)
		return false;
	/* the first range ending at or after 'from' */
	hi = s->n;
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (s->ranges[mid].to < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->ranges[lo].from <= to;
}

int64_t
ts_row_ids_count(const ts_row_ids *s)
{
	int64_t		n = 0;

	if (s->all)
		return -1;
	for (int i = 0; i < s->n; i++)
	{
		/* to - from + 1, saturating */
		uint64_t	w = (uint64_t) s->ranges[i].to - (uint64_t) s->ranges[i].from;

		if (w >= (uint64_t) INT64_MAX || n > INT64_MAX - (int64_t) w - 1)
			return INT64_MAX;
		n += (int64_t) w + 1;
	}
	return n;
}

int
ts_row_ids_first_ending_at_or_after(const ts_row_ids *s, int64_t v)
{
	int			lo = 0,
				hi = s->n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (s->ranges[mid].to < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
ts_row_ids_clip(const ts_row_ids *s, const ts_row_range *bound, int nbound, ts_row_ids *out,
				ts_err *err)
{
	int			cap = 0;

	memset(out, 0, sizeof(*out));
	if (s->all)
		return ts_row_ids_from_ranges(bound, nbound, out, err);
	/* pass 0 counts the pieces, pass 1 writes them */
	for (int pass = 0; pass < 2; pass++)
	{
		int			k = 0;

		if (pass == 1)
		{
			out->ranges = ts_malloc(sizeof(ts_row_range) * (size_t) (cap > 0 ? cap : 1));
			if (out->ranges == NULL)
				return ts_error_nomem(err, "row-id ranges");
		}
		for (int b = 0; b < nbound; b++)
			for (int i = ts_row_ids_first_ending_at_or_after(s, bound[b].from);
				 i < s->n && s->ranges[i].from <= bound[b].to; i++)
			{
				if (pass == 1)
				{
					out->ranges[k].from = s->ranges[i].from > bound[b].from ?
						s->ranges[i].from : bound[b].from;
					out->ranges[k].to = s->ranges[i].to < bound[b].to ?
						s->ranges[i].to : bound[b].to;
				}
				k++;
			}
		cap = k;
	}
	out->n = cap;
	return true;
}
