/*
 * row_filter.c - the rows of a batch that the scan's predicate certainly
 * rejects, taken out before the caller converts a value of them.
 *
 * Owns: deciding the predicate's conjuncts on a row's values (the values
 * of the read schema's types, as the readers return them), and compacting
 * the batch to the rows left.  The predicate stands for PostgreSQL's quals
 * (src/fdw/quals.c builds it only from clauses it converts exactly, or
 * into a weaker form: a row it rejects fails the quals too), and a leaf is
 * decided with SQL's semantics by scan/value_compare.c: a comparison with
 * NULL is not true, -0.0 = 0.0, NaN equals NaN and is above every number,
 * strings compare by bytes (ranges are converted only under the C
 * collation, equality only under a deterministic one), and a string that
 * is not valid UTF-8 is left to the conversion and its ERROR.  A leaf it cannot
 * decide (a literal of another type, an unordered type) keeps the row; NOT
 * is never decided.  The caller still checks its quals on every row kept:
 * this only spares the rows the quals would drop their conversion to
 * Datums, their slot and the expression evaluation.
 *
 * Exact (ts_row_filter_exact): the filter also says when the rows it kept
 * of a batch are exactly the rows the predicate holds on, so that a caller
 * whose predicate is all of its quals (nothing dropped or weakened) may
 * skip checking them.  Only at setup when every conjunct of the predicate
 * is a check here made of leaves it decides exactly (leaf_exact: =, <>,
 * <, <=, >, >=, IN, IS [NOT] NULL on a column of the batch with a literal
 * of the column's own type, of a type whose order here is PostgreSQL's:
 * no CHAR (bpchar ignores trailing blanks), no LIKE prefix, no NOT); and
 * per batch only when no leaf of a row kept said "cannot decide" (a string
 * not valid UTF-8, say) and the batch was compacted.
 */
#include <string.h>

#include "read/read.h"
#include "expr/predicate.h"

/* One conjunct: a leaf on batch column col, or (col < 0) a compound walked. */
typedef struct rf_check
{
	const ts_predicate *p;
	int			col;
	const ts_type *type;
} rf_check;

struct ts_row_filter
{
	int			nchecks;
	rf_check   *checks;
	int			ncolumns;
	int		   *columns;		/* batch column -> read-schema field */
	const ts_type **types;
	ts_value   *buf;			/* the rows kept of the last batch */
	size_t		cap;			/* values buf holds */
	int64_t		rejected;
	bool		exact;			/* every conjunct a check of exact leaves */
	bool		batch_exact;	/* and the last batch decided on every row kept */
};

/*
 * Is a string value UTF-8 without NUL bytes (RFC 3629: no overlong forms,
 * surrogates or code points past U+10FFFF)?  A value that is not must reach
 * the conversion, whose ERROR names the damaged file: the filter decides
 * nothing on it.
 */
static bool
utf8_ok(const uint8_t *p, uint32_t len)
{
	uint32_t	i = 0;

	while (i < len)
	{
		uint8_t		c = p[i];
		int			n;
		uint32_t	cp;

		if (c >= 0x01 && c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			n = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			n = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			n = 3, cp = c & 0x07;
		else
			return false;		/* NUL, a continuation byte, 0xC0/0xC1, 0xF5.. */
		if (len - i <= (uint32_t) n)
			return false;
		for (int k = 1; k <= n; k++)
		{
			if ((p[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + k] & 0x3F);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
			(n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
		i += n + 1;
	}
	return true;
}

/* Leaf p decided on v of type t: 0 only when it certainly does not hold. */
static inline int
leaf_decide(const ts_predicate *p, const ts_type *t, const ts_value *v)
{
	if (!v->isnull && (t->kind == TS_CHAR || t->kind == TS_VARCHAR) &&
		!utf8_ok(v->v.s.p, v->v.s.len))
		return -1;
	return ts_predicate_leaf_decide(p, t, v);
}

static int
column_of_field(const ts_row_filter *f, int field)
{
	for (int c = 0; c < f->ncolumns; c++)
		if (f->columns[c] == field)
			return c;
	return -1;
}

/* May a compound hold on this row?  Leaves off the batch's columns may. */
typedef struct rf_row
{
	const ts_row_filter *f;
	const ts_value *row;
	bool		undecided;		/* a leaf could not be decided */
} rf_row;

static bool
row_leaf_may_hold(const ts_predicate *leaf, void *arg)
{
	rf_row	   *r = arg;
	int			c = column_of_field(r->f, leaf->field);
	int			d;

	if (c < 0)
	{
		r->undecided = true;
		return true;
	}
	d = leaf_decide(leaf, r->f->types[c], &r->row[c]);
	if (d < 0)
		r->undecided = true;
	return d != 0;
}

/*
 * Is p, on this filter's columns, decided exactly by leaf_decide where it
 * decides at all: the leaves of PostgreSQL's meaning (see the top)?
 */
static bool
leaf_exact(const ts_row_filter *f, const ts_predicate *p)
{
	int			c;

	switch (p->op)
	{
		case TS_PRED_AND:
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (!leaf_exact(f, &p->children[i]))
					return false;
			return p->nchildren > 0;
		case TS_PRED_EQ:
		case TS_PRED_NE:
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
		case TS_PRED_IN:
		case TS_PRED_IS_NULL:
		case TS_PRED_IS_NOT_NULL:
			break;
		default:
			return false;		/* NOT, LIKE's prefix, NOT IN ... */
	}
	c = column_of_field(f, p->field);
	if (c < 0 || p->literal_type != NULL)
		return false;
	switch (f->types[c]->kind)
	{
		case TS_BOOLEAN:
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_FLOAT:
		case TS_DOUBLE:
		case TS_DECIMAL:
		case TS_VARCHAR:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return true;
		default:
			return false;
	}
}

/* Is every conjunct of p a check of exact leaves (add_conjuncts keeps no other)? */
static bool
predicate_exact(const ts_row_filter *f, const ts_predicate *p)
{
	if (p->op == TS_PRED_AND)
	{
		for (int i = 0; i < p->nchildren; i++)
			if (!predicate_exact(f, &p->children[i]))
				return false;
		return true;
	}
	return leaf_exact(f, p);
}

/* Does a compound decide anything here: a leaf on one of the columns, not under NOT? */
static bool
compound_useful(const ts_row_filter *f, const ts_predicate *p)
{
	switch (p->op)
	{
		case TS_PRED_AND:
		case TS_PRED_OR:
			for (int i = 0; i < p->nchildren; i++)
				if (compound_useful(f, &p->children[i]))
					return true;
			return false;
		case TS_PRED_NOT:
			return false;
		default:
			return column_of_field(f, p->field) >= 0;
	}
}

static bool
add_conjuncts(ts_row_filter *f, const ts_predicate *p, int *room)
{
	if (p->op == TS_PRED_AND)
	{
		for (int i = 0; i < p->nchildren; i++)
			if (!add_conjuncts(f, &p->children[i], room))
				return false;
		return true;
	}
	if (p->op == TS_PRED_NOT || !compound_useful(f, p))
		return true;
	if (f->nchecks == *room)
	{
		int			n = *room ? *room * 2 : 4;
		rf_check   *c = ts_realloc(f->checks, sizeof(rf_check) * n);

		if (c == NULL)
			return false;
		f->checks = c;
		*room = n;
	}
	f->checks[f->nchecks].p = p;
	f->checks[f->nchecks].col = -1;
	f->checks[f->nchecks].type = NULL;
	if (p->op != TS_PRED_OR)
	{
		int			c = column_of_field(f, p->field);

		f->checks[f->nchecks].col = c;
		f->checks[f->nchecks].type = f->types[c];
	}
	f->nchecks++;
	return true;
}

ts_row_filter *
ts_row_filter_new(const ts_predicate *p, const int *columns, const ts_type *const *types,
				  int ncolumns)
{
	ts_row_filter *f;
	int			room = 0;

	if (p == NULL || ncolumns <= 0)
		return NULL;
	f = ts_calloc(1, sizeof(ts_row_filter));
	if (f == NULL)
		return NULL;
	f->ncolumns = ncolumns;
	f->columns = ts_malloc(sizeof(int) * ncolumns);
	f->types = ts_malloc(sizeof(ts_type *) * ncolumns);
	if (f->columns == NULL || f->types == NULL)
	{
		ts_row_filter_free(f);
		return NULL;
	}
	memcpy(f->columns, columns, sizeof(int) * ncolumns);
	memcpy(f->types, types, sizeof(ts_type *) * ncolumns);
	if (!add_conjuncts(f, p, &room) || f->nchecks == 0)
	{
		ts_row_filter_free(f);
		return NULL;
	}
	f->exact = predicate_exact(f, p);
	return f;
}

/*
 * Is the row kept: no conjunct certainly fails on it?  *undecided: a
 * conjunct of a row kept may not hold (set, never cleared).
 */
static inline bool
row_kept(const ts_row_filter *f, const ts_value *row, bool *undecided)
{
	bool		maybe = false;

	for (int i = 0; i < f->nchecks; i++)
	{
		const rf_check *c = &f->checks[i];

		if (c->col >= 0)
		{
			int			d = leaf_decide(c->p, c->type, &row[c->col]);

			if (d == 0)
				return false;
			maybe |= d < 0;
		}
		else
		{
			rf_row		r = {f, row, false};

			if (!ts_predicate_may_match(c->p, row_leaf_may_hold, &r))
				return false;
			maybe |= r.undecided;
		}
	}
	*undecided |= maybe;
	return true;
}

int
ts_row_filter_apply(ts_row_filter *f, ts_batch *batch)
{
	int			n = batch->nrows;
	int			stride = ts_batch_stride(batch);
	const ts_value *src = batch->values;
	int			out = -1;		/* rows kept so far, once one was rejected */
	bool		undecided = false;

	if (f == NULL)
		return n;
	f->batch_exact = f->exact && (src != NULL || n <= 0);
	if (src == NULL || n <= 0)
		return n;
	for (int r = 0; r < n; r++)
	{
		const ts_value *row = src + (size_t) r * stride;
		bool		keep = row_kept(f, row, &undecided);

		if (out < 0)
		{
			if (keep)
				continue;
			/* the first row rejected: the rows before it are kept as they are */
			if (f->cap < (size_t) n * stride)
			{
				ts_value   *b = ts_realloc(f->buf, sizeof(ts_value) * (size_t) n * stride);

				if (b == NULL)
				{
					/* no room: keep every row (the quals decide) */
					f->batch_exact = false;
					return n;
				}
				f->buf = b;
				f->cap = (size_t) n * stride;
			}
			memcpy(f->buf, src, sizeof(ts_value) * (size_t) r * stride);
			out = r;
			continue;
		}
		if (keep)
			memcpy(f->buf + (size_t) out++ * stride, row, sizeof(ts_value) * stride);
	}
	if (undecided)
		f->batch_exact = false;
	if (out < 0)
		return n;
	f->rejected += n - out;
	batch->values = f->buf;
	batch->nrows = out;
	return out;
}

bool
ts_row_filter_exact(const ts_row_filter *f)
{
	return f != NULL && f->batch_exact;
}

int64_t
ts_row_filter_rejected(const ts_row_filter *f)
{
	return f ? f->rejected : 0;
}

void
ts_row_filter_free(ts_row_filter *f)
{
	if (f == NULL)
		return;
	ts_free(f->checks);
	ts_free(f->columns);
	ts_free(f->types);
	ts_free(f->buf);
	ts_free(f);
}
