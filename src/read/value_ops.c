/*
 * value_ops.c - comparing and copying values by Paimon type, option lookup.
 *
 * Owns: the key order of merge-on-read (PAIMON-FORMAT.md 7.3: NULL first,
 * scalars by scan/value_compare.c's Java order, rows and arrays element
 * by element) and deep copies of
 * values into an arena (so merged rows outlive the file batches they came
 * from).
 */
#include <string.h>
#include <strings.h>

#include "read/read_internal.h"
#include "expr/predicate.h"

int
ts_value_compare(const ts_value *a, const ts_value *b, const ts_type *t)
{
	int			c;

	if (a->isnull || b->isnull)
		return a->isnull && b->isnull ? 0 : (a->isnull ? -1 : 1);
	if (ts_value_order(t, a, b, &c))
		return c;
	switch (t->kind)
	{
		case TS_ROW:
			for (int i = 0; i < t->nfields && i < a->v.nested.n && i < b->v.nested.n; i++)
			{
				c = ts_value_compare(&a->v.nested.items[i], &b->v.nested.items[i],
									 t->fields[i].type);
				if (c)
					return c;
			}
			return 0;
		case TS_ARRAY:
		case TS_MULTISET:
			for (int i = 0; i < a->v.nested.n && i < b->v.nested.n; i++)
			{
				c = ts_value_compare(&a->v.nested.items[i], &b->v.nested.items[i],
									 t->element);
				if (c)
					return c;
			}
			return a->v.nested.n < b->v.nested.n ? -1 : a->v.nested.n > b->v.nested.n;
		default:
			return 0;
	}
}

bool
ts_value_copy(ts_value *dst, const ts_value *src, const ts_type *t, ts_arena *arena, ts_err *err)
{
	*dst = *src;
	if (src->isnull)
		return true;
	if (ts_type_is_bytes(t->kind))
	{
		if (src->v.s.len == 0)
			return true;
		dst->v.s.p = ts_arena_dup(arena, src->v.s.p, src->v.s.len);
		if (dst->v.s.p == NULL)
			return ts_error_nomem(err, NULL);
		return true;
	}
	if (ts_type_is_nested(t->kind))
	{
		int64_t		n = src->v.nested.n;
		int64_t		nitems = t->kind == TS_MAP ? n * 2 : n;
		ts_value   *items;

		if (n < 0)
			return ts_error(err, TS_ERR_CORRUPT, "invalid nested value");
		if (nitems == 0)
		{
			dst->v.nested.items = NULL;
			return true;
		}
		items = ts_arena_alloc(arena, sizeof(ts_value) * (size_t) nitems);
		if (items == NULL)
			return ts_error_nomem(err, NULL);
		for (int64_t i = 0; i < nitems; i++)
		{
			const ts_type *et;

			if (t->kind == TS_MAP)
				et = (i % 2 == 0) ? t->key : t->value;
			else if (t->kind == TS_ROW)
				et = i < t->nfields ? t->fields[i].type : NULL;
			else
				et = t->element;
			if (et == NULL)
			{
				items[i] = src->v.nested.items[i];
				continue;
			}
			if (!ts_value_copy(&items[i], &src->v.nested.items[i], et, arena, err))
				return false;
		}
		dst->v.nested.items = items;
	}
	return true;
}

const char *
ts_read_option(const ts_plan *plan, const char *key)
{
	const char *v = NULL;

	if (!ts_core_option_readable(key))
		return NULL;
	/* later entries win (plan->options is merged; be safe anyway) */
	for (int i = 0; i < plan->noptions; i++)
		if (plan->options[i].key && strcmp(plan->options[i].key, key) == 0)
			v = plan->options[i].value;
	if (v == NULL && plan->schema)
	{
		for (int i = 0; i < plan->schema->noptions; i++)
			if (strcmp(plan->schema->option_keys[i], key) == 0)
				v = plan->schema->option_values[i];
	}
	return v;
}

int
ts_read_text_options(const ts_plan *plan, const char **keys, const char **values)
{
	int			n = 0;

	for (int i = 0; i < plan->noptions; i++)
	{
		const ts_core_option *o = plan->options[i].key ? ts_core_option_find(plan->options[i].key) : NULL;

		if (o == NULL || !(o->layers & TS_LAYER_FORMAT))
			continue;
		keys[n] = plan->options[i].key;
		values[n++] = plan->options[i].value;
	}
	return n;
}

bool
ts_read_option_bool(const ts_plan *plan, const char *key, bool dflt)
{
	const char *v = ts_read_option(plan, key);

	if (v == NULL)
		return dflt;
	return strcasecmp(v, "true") == 0;
}
