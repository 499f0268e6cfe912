/*
 * ts_gen_stats.h - the value statistics the fixture generator writes into
 * manifest entries (included by src/tools/ts_gen.c).
 *
 * Owns: per column the min / max of atomic non-binary values (strings only
 * when every value is <= 16 characters, as Paimon's truncate(16) mode would
 * keep) and the null count, and their BinaryRow-ready values.
 */
#ifndef TS_GEN_STATS_H
#define TS_GEN_STATS_H


typedef struct col_stats
{
	const ts_type *type;
	bool		has;			/* min/max seen */
	bool		usable;			/* min/max kept for this type/values */
	ts_value	min;
	ts_value	max;
	int64_t		nulls;
} col_stats;

static bool
stats_type_ok(ts_type_kind k)
{
	return !(ts_type_is_nested(k) || k == TS_BINARY || k == TS_VARBINARY || k >= TS_VARIANT);
}

static int
cmp_values(const ts_value *a, const ts_value *b, const ts_type *t)
{
	switch (t->kind)
	{
		case TS_FLOAT:
			return a->v.f < b->v.f ? -1 : a->v.f > b->v.f;
		case TS_DOUBLE:
			return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
		case TS_DECIMAL:
			return a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec;
		case TS_CHAR:
		case TS_VARCHAR:
			{
				uint32_t	n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
				int			c = memcmp(a->v.s.p, b->v.s.p, n);

				if (c)
					return c < 0 ? -1 : 1;
				return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (a->v.ts.millis != b->v.ts.millis)
				return a->v.ts.millis < b->v.ts.millis ? -1 : 1;
			return a->v.ts.nanos < b->v.ts.nanos ? -1 : a->v.ts.nanos > b->v.ts.nanos;
		default:
			return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
	}
}

static void
stats_init(col_stats *s, const ts_type *t)
{
	memset(s, 0, sizeof(*s));
	s->type = t;
	s->usable = stats_type_ok(t->kind);
}

/* values are copied shallowly: strings must outlive the stats (same arena) */
static void
stats_add(col_stats *s, const ts_value *v)
{
	if (v->isnull)
	{
		s->nulls++;
		return;
	}
	if (!s->usable)
		return;
	if ((s->type->kind == TS_CHAR || s->type->kind == TS_VARCHAR) && v->v.s.len > 16)
	{
		s->usable = false;
		return;
	}
	if (!s->has || cmp_values(v, &s->min, s->type) < 0)
		s->min = *v;
	if (!s->has || cmp_values(v, &s->max, s->type) > 0)
		s->max = *v;
	s->has = true;
}

/* SimpleStats row value: {_MIN_VALUES, _MAX_VALUES, _NULL_COUNTS} */
static void
stats_value(col_stats *st, int n, ts_value *out, ts_arena *a)
{
	const ts_type **types = ts_arena_alloc(a, sizeof(ts_type *) * (size_t) (n ? n : 1));
	ts_value   *mins = arena_values(a, n);
	ts_value   *maxs = arena_values(a, n);
	ts_value   *items = arena_values(a, 3);
	ts_value   *counts = arena_values(a, n);
	ts_err		err;

	if (types == NULL)
		die("out of memory");
	for (int i = 0; i < n; i++)
	{
		ts_type    *nt = ts_arena_alloc(a, sizeof(ts_type));

		if (nt == NULL)
			die("out of memory");
		*nt = *st[i].type;
		nt->nullable = true;
		types[i] = nt;
		mins[i].isnull = maxs[i].isnull = !(st[i].usable && st[i].has);
		if (!mins[i].isnull)
		{
			mins[i] = st[i].min;
			maxs[i] = st[i].max;
		}
		counts[i].isnull = false;
		counts[i].v.i = st[i].nulls;
	}
	for (int k = 0; k < 2; k++)
	{
		ts_buf		b;

		ts_buf_init(&b);
		if (!ts_binary_row_encode(types, k == 0 ? mins : maxs, n, true, &b, &err))
			die_err("BinaryRow", &err);
		items[k].v.s.p = ts_arena_dup(a, b.data, b.len);
		items[k].v.s.len = (uint32_t) b.len;
		ts_buf_free(&b);
	}
	items[2].v.nested.n = n;
	items[2].v.nested.items = counts;
	out->isnull = false;
	out->v.nested.n = 3;
	out->v.nested.items = items;
}
#endif							/* TS_GEN_STATS_H */
