/*
 * unit_values.h - one decoded value the same as another, as two decoders
 * of the same bytes must give it: FLOAT / DOUBLE by their bits, strings and
 * binaries by their bytes, nested values item by item in order.
 */
#ifndef TS_UNIT_VALUES_H
#define TS_UNIT_VALUES_H

#include <stdbool.h>
#include <string.h>

#include "base/ts_value.h"
#include "base/ts_types.h"

static inline bool
unit_value_same(const ts_type *t, const ts_value *a, const ts_value *b)
{
	if (a->isnull != b->isnull)
		return false;
	if (a->isnull)
		return true;
	switch (t->kind)
	{
		case TS_FLOAT:
			return memcmp(&a->v.f, &b->v.f, sizeof(float)) == 0;
		case TS_DOUBLE:
			return memcmp(&a->v.d, &b->v.d, sizeof(double)) == 0;
		case TS_DECIMAL:
			return a->v.dec == b->v.dec;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return a->v.s.len == b->v.s.len && memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_MAP:
		case TS_ROW:
			if (a->v.nested.n != b->v.nested.n)
				return false;
			for (int k = 0; k < a->v.nested.n * (t->kind == TS_MAP ? 2 : 1); k++)
			{
				const ts_type *et = t->kind == TS_ROW ? t->fields[k].type :
					t->kind == TS_MAP ? (k % 2 ? t->value : t->key) : t->element;

				if (!unit_value_same(et, &a->v.nested.items[k], &b->v.nested.items[k]))
					return false;
			}
			return true;
		default:
			return a->v.i == b->v.i;
	}
}

#endif							/* TS_UNIT_VALUES_H */
