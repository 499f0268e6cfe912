/*
 * fi_bsi.c - the bit-sliced index (BitSliceIndexBitmapFileIndex).
 *
 * Owns: the body (version byte 1, int32 row count, then a positive and a
 * negative part, each present after a flag byte: version byte, int64 min
 * and max, the existence bitmap, int32 slice count and one portable
 * Roaring bitmap per bit of value - min; negative values are stored by
 * their absolute value) and O'Neil's comparison over the slices for
 * =, <>, <, <=, >, >=, IN, NOT IN, IS [NOT] NULL on integers, DATE, TIME,
 * compact DECIMAL and TIMESTAMP keys (fi_literal_key).  Lossy keys
 * (TIMESTAMP(7..9)) are used for = and IN only.
 */
#include <string.h>

#include "format/fileindex/fi_internal.h"

#define MAX_SLICES 64

typedef struct bsi
{
	int64_t		min;
	int64_t		max;
	roaring_bitmap_t *ebm;		/* rows with a value in this part */
	int			nslices;
	roaring_bitmap_t *slices[MAX_SLICES];
} bsi;

typedef enum bsi_op
{
	OP_EQ,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE
} bsi_op;

static void
bsi_free(bsi *b)
{
	if (b->ebm)
		roaring_bitmap_free(b->ebm);
	for (int i = 0; i < b->nslices; i++)
		if (b->slices[i])
			roaring_bitmap_free(b->slices[i]);
	memset(b, 0, sizeof(*b));
}

static bool
take_roaring(ts_cursor *c, roaring_bitmap_t **out, ts_err *err)
{
	size_t		used;

	*out = fi_read_roaring(c->p, ts_cursor_left(c), &used, err);
	if (*out == NULL)
		return false;
	c->p += used;
	return true;
}

static bool
read_bsi(ts_cursor *c, bsi *b, ts_err *err)
{
	uint8_t		version;
	uint64_t	min,
				max;
	uint32_t	n;

	memset(b, 0, sizeof(*b));
	if (!ts_cursor_u8(c, &version, err) || !ts_cursor_be64(c, &min, err) ||
		!ts_cursor_be64(c, &max, err))
		return false;
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "bsi index version %u", version);
	b->min = (int64_t) min;
	b->max = (int64_t) max;
	if (b->min < 0 || b->min > b->max)
		return ts_error(err, TS_ERR_CORRUPT, "bsi index: min %lld, max %lld",
						(long long) b->min, (long long) b->max);
	if (!take_roaring(c, &b->ebm, err) || !ts_cursor_be32(c, &n, err))
		return false;
	if (n > MAX_SLICES)
		return ts_error(err, TS_ERR_CORRUPT, "bsi index: %u slices", n);
	for (uint32_t i = 0; i < n; i++)
	{
		if (!take_roaring(c, &b->slices[i], err))
			return false;
		b->nslices = (int) i + 1;
	}
	return true;
}

static roaring_bitmap_t *
empty(void)
{
	return roaring_bitmap_create();
}

/* Rows of part b whose value compares with v as op (v >= 0). */
static roaring_bitmap_t *
bsi_compare(const bsi *b, bsi_op op, int64_t v)
{
	roaring_bitmap_t *gt,
			   *lt,
			   *eq,
			   *res = NULL;
	uint64_t	pred;

	if (b->ebm == NULL)
		return empty();
	/* min / max first (and every value the slices cannot hold) */
	switch (op)
	{
		case OP_EQ:
			if (v < b->min || v > b->max)
				return empty();
			if (b->min == b->max)
				return roaring_bitmap_copy(b->ebm);
			break;
		case OP_GE:
			if (v <= b->min)
				return roaring_bitmap_copy(b->ebm);
			if (v > b->max)
				return empty();
			break;
		case OP_GT:
			if (v < b->min)
				return roaring_bitmap_copy(b->ebm);
			if (v >= b->max)
				return empty();
			break;
		case OP_LE:
			if (v >= b->max)
				return roaring_bitmap_copy(b->ebm);
			if (v < b->min)
				return empty();
			break;
		case OP_LT:
			if (v > b->max)
				return roaring_bitmap_copy(b->ebm);
			if (v <= b->min)
				return empty();
			break;
	}
	pred = (uint64_t) v - (uint64_t) b->min;
	if (b->nslices < 64 && (pred >> b->nslices) != 0)
	{
		/* above every value the slices can hold: the max was wrong */
		return op == OP_LT || op == OP_LE ? roaring_bitmap_copy(b->ebm) : empty();
	}
	gt = roaring_bitmap_create();
	lt = roaring_bitmap_create();
	eq = roaring_bitmap_copy(b->ebm);
	if (gt == NULL || lt == NULL || eq == NULL)
		goto out;
	for (int i = b->nslices - 1; i >= 0; i--)
	{
		roaring_bitmap_t *part;

		if ((pred >> i) & 1)
		{
			part = roaring_bitmap_andnot(eq, b->slices[i]);
			if (part == NULL)
				goto out;
			roaring_bitmap_or_inplace(lt, part);
			roaring_bitmap_and_inplace(eq, b->slices[i]);
		}
		else
		{
			part = roaring_bitmap_and(eq, b->slices[i]);
			if (part == NULL)
				goto out;
			roaring_bitmap_or_inplace(gt, part);
			roaring_bitmap_andnot_inplace(eq, b->slices[i]);
		}
		roaring_bitmap_free(part);
	}
	switch (op)
	{
		case OP_EQ:
			res = eq;
			eq = NULL;
			break;
		case OP_LT:
			res = lt;
			lt = NULL;
			break;
		case OP_GT:
			res = gt;
			gt = NULL;
			break;
		case OP_LE:
			roaring_bitmap_or_inplace(lt, eq);
			res = lt;
			lt = NULL;
			break;
		case OP_GE:
			roaring_bitmap_or_inplace(gt, eq);
			res = gt;
			gt = NULL;
			break;
	}
out:
	if (gt)
		roaring_bitmap_free(gt);
	if (lt)
		roaring_bitmap_free(lt);
	if (eq)
		roaring_bitmap_free(eq);
	return res;
}

static roaring_bitmap_t *
copy_or_empty(const bsi *b)
{
	return b->ebm ? roaring_bitmap_copy(b->ebm) : empty();
}

/* acc |= x; frees x; false when x is NULL (out of memory) */
static bool
absorb(roaring_bitmap_t *acc, roaring_bitmap_t *x)
{
	if (x == NULL)
		return false;
	roaring_bitmap_or_inplace(acc, x);
	roaring_bitmap_free(x);
	return true;
}

/* Rows whose value compares with key as op, over both parts. */
static bool
compare_key(const bsi *pos, const bsi *neg, bsi_op op, int64_t key, roaring_bitmap_t *acc)
{
	int64_t		a;

	if (key >= 0)
	{
		switch (op)
		{
			case OP_EQ:
			case OP_GT:
			case OP_GE:
				return absorb(acc, bsi_compare(pos, op, key));
			case OP_LT:
			case OP_LE:
				return absorb(acc, bsi_compare(pos, op, key)) && absorb(acc, copy_or_empty(neg));
		}
		return false;
	}
	a = -key;					/* key > INT64_MIN: checked by the caller */
	switch (op)
	{
		case OP_EQ:
			return absorb(acc, bsi_compare(neg, OP_EQ, a));
		case OP_LT:
			return absorb(acc, bsi_compare(neg, OP_GT, a));
		case OP_LE:
			return absorb(acc, bsi_compare(neg, OP_GE, a));
		case OP_GT:
			return absorb(acc, copy_or_empty(pos)) && absorb(acc, bsi_compare(neg, OP_LT, a));
		case OP_GE:
			return absorb(acc, copy_or_empty(pos)) && absorb(acc, bsi_compare(neg, OP_LE, a));
	}
	return false;
}

bool
fi_bsi_leaf(const uint8_t *body, size_t len, const ts_type *t, const ts_predicate *p,
			fi_res *out, ts_err *err)
{
	ts_cursor	c;
	uint8_t		version,
				flag;
	uint32_t	rows;
	bsi			pos,
				neg;
	roaring_bitmap_t *acc = NULL;
	bool		negate = false;
	bool		ok = true;
	bsi_op		op = OP_EQ;

	out->state = FI_REMAIN;
	out->rows = NULL;
	switch (p->op)
	{
		case TS_PRED_EQ:
		case TS_PRED_IN:
		case TS_PRED_IS_NOT_NULL:
			break;
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
		case TS_PRED_IS_NULL:
			negate = true;
			break;
		case TS_PRED_LT:
			op = OP_LT;
			break;
		case TS_PRED_LE:
			op = OP_LE;
			break;
		case TS_PRED_GT:
			op = OP_GT;
			break;
		case TS_PRED_GE:
			op = OP_GE;
			break;
		default:
			return true;
	}
	/* every literal first: one that is no exact key decides nothing */
	for (int i = 0; i < p->nliterals; i++)
	{
		int64_t		key;
		bool		lossy;

		if (p->literals[i].isnull)
			continue;
		if (!fi_literal_key(t, p, &p->literals[i], &key, &lossy) || key == INT64_MIN)
			return true;
		if (lossy && p->op != TS_PRED_EQ && p->op != TS_PRED_IN)
			return true;
	}
	if ((p->op == TS_PRED_IS_NULL || p->op == TS_PRED_IS_NOT_NULL) ? false : p->nliterals < 1)
		return true;

	memset(&pos, 0, sizeof(pos));
	memset(&neg, 0, sizeof(neg));
	ts_cursor_init(&c, body, len);
	if (!ts_cursor_u8(&c, &version, err) || !ts_cursor_be32(&c, &rows, err))
		return false;
	if (version != 1)
		return true;			/* a later version: not read */
	if (rows > INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "bsi index: %u rows", rows);
	if (!ts_cursor_u8(&c, &flag, err))
		return false;
	if (flag && !read_bsi(&c, &pos, err))
		goto fail;
	if (!ts_cursor_u8(&c, &flag, err))
		goto fail;
	if (flag && !read_bsi(&c, &neg, err))
		goto fail;

	acc = roaring_bitmap_create();
	if (acc == NULL)
		goto nomem;
	if (p->op == TS_PRED_IS_NULL || p->op == TS_PRED_IS_NOT_NULL)
		ok = absorb(acc, copy_or_empty(&pos)) && absorb(acc, copy_or_empty(&neg));
	else if (p->op == TS_PRED_EQ || p->op == TS_PRED_IN || negate)
	{
		for (int i = 0; i < p->nliterals && ok; i++)
		{
			int64_t		key;
			bool		lossy;

			if (p->literals[i].isnull)
				continue;
			(void) fi_literal_key(t, p, &p->literals[i], &key, &lossy);
			ok = compare_key(&pos, &neg, OP_EQ, key, acc);
		}
	}
	else
	{
		int64_t		key;
		bool		lossy;

		if (p->literals[0].isnull)
			;					/* compares with nothing: no row */
		else
		{
			(void) fi_literal_key(t, p, &p->literals[0], &key, &lossy);
			ok = compare_key(&pos, &neg, op, key, acc);
		}
	}
	if (!ok)
		goto nomem;
	if (negate)
	{
		/* NOT IN / <>: rows with a value but none of these; IS NULL: rows without */
		roaring_bitmap_t *base = roaring_bitmap_create();

		if (base == NULL)
			goto nomem;
		if (p->op == TS_PRED_IS_NULL)
		{
			if (rows > 0)
				roaring_bitmap_add_range(base, 0, rows);
		}
		else if (!absorb(base, copy_or_empty(&pos)) || !absorb(base, copy_or_empty(&neg)))
		{
			roaring_bitmap_free(base);
			goto nomem;
		}
		roaring_bitmap_andnot_inplace(base, acc);
		roaring_bitmap_free(acc);
		acc = base;
	}
	bsi_free(&pos);
	bsi_free(&neg);
	return fi_res_rows(out, acc, err);

nomem:
	ts_error_nomem(err, NULL);
fail:
	if (acc)
		roaring_bitmap_free(acc);
	bsi_free(&pos);
	bsi_free(&neg);
	return false;
}
