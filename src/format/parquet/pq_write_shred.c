/*
 * pq_write_shred.c - a row's values shredded into the Parquet leaves.
 *
 * Owns: each value appended to its leaf's buffers of the current row
 * group (PLAIN encoded, with its repetition and definition levels), NULLs
 * and empty collections as levels only, and nested values (ROW, ARRAY,
 * MAP, MULTISET) walked down the schema tree (Dremel shredding).
 */
#include <string.h>

#include "base/ts_type_class.h"
#include "format/parquet/pq_write_internal.h"

/* One PLAIN value appended to c->values (room reserved once per value). */
static bool
add_value(pq_column *c, const ts_value *v)
{
	const ts_type *t = c->type;
	uint64_t	u;
	int			n;

	switch (c->physical)
	{
		case PQW_BOOLEAN:
			if (v->v.i)
				c->bit_acc |= (uint8_t) (1 << c->bit_n);
			if (++c->bit_n == 8)
			{
				if (!ts_buf_append(&c->values, &c->bit_acc, 1, NULL))
					return false;
				c->bit_acc = 0;
				c->bit_n = 0;
			}
			return true;
		case PQW_INT32:
			u = (uint32_t) (t->kind == TS_DECIMAL ? (int32_t) v->v.dec : (int32_t) v->v.i);
			n = 4;
			break;
		case PQW_INT64:
			if (t->kind == TS_DECIMAL)
				u = (uint64_t) (int64_t) v->v.dec;
			else if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
				u = (uint64_t) (t->precision <= 3 ? v->v.ts.millis :
								v->v.ts.millis * 1000 + v->v.ts.nanos / 1000);
			else
				u = (uint64_t) v->v.i;
			n = 8;
			break;
		case PQW_INT96:
			{
				/* as Java's timestampToInt96: Java's truncating / and % on the millis */
				int64_t		ms = v->v.ts.millis;
				int64_t		nanos_of_day = (ms % MILLIS_PER_DAY) * 1000000 + v->v.ts.nanos;
				int32_t		julian = (int32_t) (ms / MILLIS_PER_DAY + JULIAN_EPOCH_DAY);

				if (!ts_buf_reserve(&c->values, 12, NULL))
					return false;
				ts_store_le(c->values.data + c->values.len, (uint64_t) nanos_of_day, 8);
				ts_store_le(c->values.data + c->values.len + 8, (uint32_t) julian, 4);
				c->values.len += 12;
				return true;
			}
		case PQW_FIXED:
			{
				/* the unscaled value, big-endian two's complement in type_length bytes */
				unsigned __int128 be = (unsigned __int128) v->v.dec;
				uint8_t    *p;

				if (!ts_buf_reserve(&c->values, (size_t) c->type_length, NULL))
					return false;
				p = c->values.data + c->values.len;
				for (int i = c->type_length - 1; i >= 0; i--)
				{
					p[i] = (uint8_t) be;
					be >>= 8;
				}
				c->values.len += (size_t) c->type_length;
				return true;
			}
		case PQW_FLOAT:
			{
				uint32_t	f;

				memcpy(&f, &v->v.f, 4);
				u = f;
				n = 4;
				break;
			}
		case PQW_DOUBLE:
			memcpy(&u, &v->v.d, 8);
			n = 8;
			break;
		default:				/* BYTE_ARRAY: length, then the bytes */
			if (!ts_buf_reserve(&c->values, 4 + (size_t) v->v.s.len, NULL))
				return false;
			ts_store_le(c->values.data + c->values.len, v->v.s.len, 4);
			if (v->v.s.len > 0)
				memcpy(c->values.data + c->values.len + 4, v->v.s.p, v->v.s.len);
			c->values.len += 4 + (size_t) v->v.s.len;
			return true;
	}
	if (c->values.cap - c->values.len < (size_t) n && !ts_buf_reserve(&c->values, (size_t) n, NULL))
		return false;
	ts_store_le(c->values.data + c->values.len, u, n);
	c->values.len += (size_t) n;
	return true;
}

/* One level entry (and the value, unless NULL) of leaf c. */
static bool
put_entry(ts_pq_writer *w, pq_column *c, int rep, int def, const ts_value *v, ts_err *err)
{
	size_t		before = c->values.len;

	if (c->nlevels == c->levels_cap)
	{
		size_t		cap = c->levels_cap ? c->levels_cap * 2 : 1024;
		uint8_t    *d = ts_realloc(c->defs, cap);

		if (d != NULL)
			c->defs = d;
		d = d ? ts_realloc(c->reps, cap) : NULL;
		if (d == NULL)
			return ts_error_nomem(err, "a Parquet column buffer");
		c->reps = d;
		c->levels_cap = cap;
	}
	c->defs[c->nlevels] = (uint8_t) def;
	c->reps[c->nlevels] = (uint8_t) rep;
	c->nlevels++;
	w->buffered += (c->max_def > 0) + (c->max_rep > 0);
	if (v != NULL && !add_value(c, v))
		return ts_error_nomem(err, "a Parquet column buffer");
	w->buffered += c->values.len - before;
	return true;
}

/* A null (or empty) n at levels rep / def: one entry in every leaf below. */
static bool
put_absent(ts_pq_writer *w, const pq_node *n, int rep, int def, ts_err *err)
{
	for (int i = n->first_leaf; i < n->first_leaf + n->nleaves; i++)
		if (!put_entry(w, &w->cols[i], rep, def, NULL, err))
			return false;
	return true;
}

/* Are scalar values a and b of type t the same (a MULTISET's equal elements)? */
static bool
same_scalar(const ts_type *t, const ts_value *a, const ts_value *b)
{
	if (a->isnull || b->isnull)
		return a->isnull && b->isnull;
	switch (ts_type_class_of(t->kind)->phys)
	{
		case TS_PHYS_FLOAT:
			return memcmp(&a->v.f, &b->v.f, sizeof(float)) == 0;
		case TS_PHYS_DOUBLE:
			return memcmp(&a->v.d, &b->v.d, sizeof(double)) == 0;
		case TS_PHYS_DECIMAL:
			return a->v.dec == b->v.dec;
		case TS_PHYS_TIMESTAMP:
			return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
		default:
			if (ts_type_is_bytes(t->kind))
				return a->v.s.len == b->v.s.len &&
					(a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
			return a->v.i == b->v.i;
	}
}

/*
 * A MULTISET's elements as MAP<element, INT> entries, as Java writes it:
 * each distinct element once with its count, in the order first seen.
 */
static bool
shred_multiset(ts_pq_writer *w, const pq_node *g, const ts_value *v, int rep, int def, ts_err *err)
{
	const ts_type *et = g->children[0].type;
	int			entries = 0;

	for (int i = 0; i < v->v.nested.n; i++)
	{
		const ts_value *e = &v->v.nested.items[i];
		ts_value	count;
		bool		seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = same_scalar(et, e, &v->v.nested.items[j]);
		if (seen)
			continue;
		memset(&count, 0, sizeof(count));
		for (int j = i; j < v->v.nested.n; j++)
			count.v.i += same_scalar(et, e, &v->v.nested.items[j]);
		if (!pqw_shred(w, &g->children[0], e, entries == 0 ? rep : g->rep, def, err) ||
			!pqw_shred(w, &g->children[1], &count, entries == 0 ? rep : g->rep, def, err))
			return false;
		entries++;
		if ((entries & 1023) == 0 && !ts_check_interrupts(err))
			return false;
	}
	return true;
}

/* The entries of v (of n's type) in n's leaves; rep / def: the levels of n's parent. */
bool
pqw_shred(ts_pq_writer *w, const pq_node *n, const ts_value *v, int rep, int def, ts_err *err)
{
	if (v->isnull)
	{
		if (n->repetition == PQW_REQUIRED)
			return ts_error(err, TS_ERR_INVALID, "null value in NOT NULL %s \"%s\"",
							n->kind == PQN_LEAF && strcmp(n->name, "key") == 0 ? "map key" : "field",
							n->name);
		return put_absent(w, n, rep, def, err);
	}
	if (n->repetition == PQW_OPTIONAL)
		def++;
	switch (n->kind)
	{
		case PQN_LEAF:
			return put_entry(w, &w->cols[n->first_leaf], rep, def, v, err);
		case PQN_ROW:
			if (v->v.nested.n != n->nchildren)
				return ts_error(err, TS_ERR_INVALID, "a value of ROW field \"%s\" has %d fields, not %d",
								n->name, (int) v->v.nested.n, n->nchildren);
			for (int i = 0; i < n->nchildren; i++)
				if (!pqw_shred(w, &n->children[i], &v->v.nested.items[i], rep, def, err))
					return false;
			return true;
		case PQN_LIST:
		case PQN_MAP:
			{
				const pq_node *g = &n->children[0];
				bool		multiset = n->type->kind == TS_MULTISET;
				int			per = n->kind == PQN_MAP && !multiset ? 2 : 1;

				if (v->v.nested.n == 0)
					return put_absent(w, g, rep, def, err);
				if (multiset)
					return shred_multiset(w, g, v, rep, def + 1, err);
				for (int i = 0; i < v->v.nested.n; i++)
				{
					int			r = i == 0 ? rep : g->rep;

					for (int k = 0; k < g->nchildren; k++)
						if (!pqw_shred(w, &g->children[k], &v->v.nested.items[i * per + k], r, def + 1, err))
							return false;
				}
				return true;
			}
		default:
			return ts_error(err, TS_ERR_CORRUPT, "unexpected Parquet schema node");
	}
}
