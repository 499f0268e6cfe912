/*
 * pq_assemble.c - a Parquet column's values of a batch: flat columns
 * decoded straight into the batch by pq_flat.c, nested ARRAY / MAP /
 * MULTISET / ROW values assembled from the leaves' definition and
 * repetition levels.
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

#define PQ_MAX_MULTISET 10000000	/* elements of one multiset value */

/* ---- assembly ------------------------------------------------------- */

/* 1 = an entry is available, 0 = chunk ended, -1 = error */
static inline int
peek(pq_leaf *l, ts_err *err)
{
	if (l->pos < l->nbuf)
		return 1;
	if (!pq_leaf_fill(l, err))
		return -1;
	return l->nbuf > 0;
}

static bool
ended_early(const pq_leaf *l, ts_err *err)
{
	return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" has fewer values than the row group has rows",
					l->path);
}

/* consume one entry in every leaf of [lo, hi) (a null or empty position) */
static bool
skip_slot(pq_reader *r, int lo, int hi, ts_err *err)
{
	for (int i = lo; i < hi; i++)
	{
		pq_leaf    *l = r->leaves[i];
		int			rc = peek(l, err);

		if (rc < 0)
			return false;
		if (rc == 0)
			return ended_early(l, err);
		if (l->def[l->pos] == l->max_def)
			l->vpos++;
		l->pos++;
	}
	return true;
}

static bool
stack_push(pq_reader *r, const ts_value *v, ts_err *err)
{
	if (r->stack_len == r->stack_cap)
	{
		size_t		nc = r->stack_cap ? r->stack_cap * 2 : 256;
		ts_value   *ns = ts_realloc(r->stack, nc * sizeof(ts_value));

		if (!ns)
			return ts_error_nomem(err, NULL);
		r->stack = ns;
		r->stack_cap = nc;
	}
	r->stack[r->stack_len++] = *v;
	return true;
}

static bool read_value(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err);

static bool
read_repeated(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err)
{
	pq_leaf    *first = r->leaves[a->leaf_lo];
	size_t		base = r->stack_len;
	int			rc;
	int			d;
	size_t		n;
	ts_value   *items;

	rc = peek(first, err);
	if (rc <= 0)
		return rc < 0 ? false : ended_early(first, err);
	d = first->def[first->pos];
	if (d < a->def)
	{
		out->isnull = true;
		return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
	}
	out->isnull = false;
	if (d < a->rep_def)
	{
		out->v.nested.n = 0;
		out->v.nested.items = NULL;
		return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
	}
	for (;;)
	{
		ts_value	v;

		if (a->kind == PQ_A_LIST)
		{
			if (!read_value(r, &a->children[0], &v, err) || !stack_push(r, &v, err))
				return false;
		}
		else
		{
			ts_value	k;

			if (!read_value(r, &a->children[0], &k, err) ||
				!read_value(r, &a->children[1], &v, err))
				return false;
			if (a->multiset)
			{
				int64_t		cnt = v.isnull ? 1 : v.v.i;

				if (cnt < 0 || cnt > PQ_MAX_MULTISET - (int64_t) (r->stack_len - base))
					return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": multiset count %lld out of range",
									first->path, (long long) cnt);
				for (int64_t i = 0; i < cnt; i++)
					if (!stack_push(r, &k, err))
						return false;
			}
			else if (!stack_push(r, &k, err) || !stack_push(r, &v, err))
				return false;
		}
		rc = peek(first, err);
		if (rc < 0)
			return false;
		if (rc == 0 || first->rep[first->pos] != a->rep)
			break;
	}
	n = r->stack_len - base;
	if (a->kind == PQ_A_MAP && !a->multiset)
		n /= 2;
	if (n > INT32_MAX / 2)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": too many elements", first->path);
	items = ts_arena_alloc(&r->arena, (r->stack_len - base) * sizeof(ts_value) + 1);
	if (!items)
		return ts_error_nomem(err, NULL);
	memcpy(items, r->stack + base, (r->stack_len - base) * sizeof(ts_value));
	r->stack_len = base;
	out->v.nested.n = (int32_t) n;
	out->v.nested.items = items;
	return true;
}

static bool
read_value(pq_reader *r, const pq_asm *a, ts_value *out, ts_err *err)
{
	switch (a->kind)
	{
		case PQ_A_MISSING:
			out->isnull = true;
			return true;
		case PQ_A_LEAF:
			{
				pq_leaf    *l = r->leaves[a->leaf_lo];
				int			rc = peek(l, err);

				if (rc <= 0)
					return rc < 0 ? false : ended_early(l, err);
				if (l->def[l->pos] == l->max_def)
				{
					if (l->vpos >= l->nvals)
						return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": values out of step with levels", l->path);
					*out = l->vals[l->vpos++];
				}
				else
					out->isnull = true;
				l->pos++;
				return true;
			}
		case PQ_A_ROW:
			{
				ts_value   *items;

				if (a->leaf_lo == a->leaf_hi)
				{
					out->isnull = true;
					return true;
				}
				{
					pq_leaf    *first = r->leaves[a->leaf_lo];
					int			rc = peek(first, err);

					if (rc <= 0)
						return rc < 0 ? false : ended_early(first, err);
					if (first->def[first->pos] < a->def)
					{
						out->isnull = true;
						return skip_slot(r, a->leaf_lo, a->leaf_hi, err);
					}
				}
				items = ts_arena_alloc(&r->arena, sizeof(ts_value) * (a->nchildren ? a->nchildren : 1));
				if (!items)
					return ts_error_nomem(err, NULL);
				for (int i = 0; i < a->nchildren; i++)
					if (!read_value(r, &a->children[i], &items[i], err))
						return false;
				out->isnull = false;
				out->v.nested.n = a->nchildren;
				out->v.nested.items = items;
				return true;
			}
		case PQ_A_LIST:
		case PQ_A_MAP:
			if (a->leaf_lo == a->leaf_hi)
			{
				out->isnull = true;
				return true;
			}
			return read_repeated(r, a, out, err);
	}
	return true;
}

/* fill rows [0, n) of column c */
bool
pq_fill_column(pq_reader *r, int c, int n, ts_err *err)
{
	const pq_asm *a = &r->asms[c];
	int			ncols = r->ncols;
	ts_value   *out = r->values + c;

	if (a->kind == PQ_A_MISSING || a->leaf_lo == a->leaf_hi)
	{
		for (int i = 0; i < n; i++)
			out[(size_t) i * ncols].isnull = true;
		return true;
	}
	if (a->kind == PQ_A_LEAF && r->leaves[a->leaf_lo]->max_rep == 0)
		return pq_leaf_read_flat(r->leaves[a->leaf_lo], out, (size_t) ncols, n, err);
	for (int i = 0; i < n; i++)
	{
		/* each row starts at repetition level 0 in every leaf */
		for (int k = a->leaf_lo; k < a->leaf_hi; k++)
		{
			pq_leaf    *l = r->leaves[k];
			int			rc = peek(l, err);

			if (rc <= 0)
				return rc < 0 ? false : ended_early(l, err);
			if (l->rep[l->pos] != 0)
				return ts_error(err, TS_ERR_CORRUPT, "column \"%s\": row does not start at repetition level 0",
								l->path);
		}
		if (!read_value(r, a, &out[(size_t) i * ncols], err))
			return false;
		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			return false;
	}
	return true;
}

