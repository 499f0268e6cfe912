/*
 * value_compare.c - ordering of two values of one Paimon type, as Java
 * orders them (PAIMON-FORMAT.md 7.3, 10.4).
 *
 * Owns: the comparison the scan's pruning uses (partition filters against
 * partition stats, predicates against value stats, bucket literals).
 * Strings and binaries compare as unsigned bytes then length; FLOAT/DOUBLE
 * by Java's Float/Double.compare (-0.0 < 0.0, NaN largest).  Types it does
 * not order return false so callers keep the file.
 */
#include <math.h>
#include <string.h>

#include "scan/scan_internal.h"

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
scan_value_compare(const ts_type *t, const ts_value *a, const ts_value *b, int *result)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_TIME:
			*result = cmp_i64(a->v.i, b->v.i);
			return true;
		case TS_FLOAT:
			*result = cmp_double(a->v.f, b->v.f);
			return true;
		case TS_DOUBLE:
			*result = cmp_double(a->v.d, b->v.d);
			return true;
		case TS_DECIMAL:
			*result = a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec ? 1 : 0;
			return true;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			*result = cmp_bytes(a->v.s.p, a->v.s.len, b->v.s.p, b->v.s.len);
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			*result = cmp_i64(a->v.ts.millis, b->v.ts.millis);
			if (*result == 0)
				*result = cmp_i64(a->v.ts.nanos, b->v.ts.nanos);
			return true;
		default:
			return false;
	}
}
