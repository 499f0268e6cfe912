/*
 * write_values.c - a written row's Datums as Paimon values, per value
 * without allocations.
 *
 * Owns: the conversion an INSERT / COPY / UPDATE makes for every value of
 * every row (tablescan_write_value), with a fast path for the common pairs
 * of PostgreSQL type and Paimon field type (integers, floats, text and
 * bytea, date, timestamp into TIMESTAMP(6..9), numeric into DECIMAL(p <=
 * 18)), giving exactly what tablescan_datum_to_field_value (types.c) gives
 * but without its palloc'd literal type, numeric_out and detoasted copy of
 * a short string.  Numerics are read from PostgreSQL's on-disk format
 * (numeric.c's NumericShort / NumericLong, stable on disk), as
 * numeric_short.c writes them.  TIME and nested columns go to
 * write_nested.c; every other pair, and a numeric too large for the fast
 * path, to tablescan_datum_to_field_value.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include "tablescan_fdw.h"
#include "base/ts_type_class.h"

/* numeric.c's private layout (stable on disk) */
#define NUMERIC_SIGN_MASK 0xC000
#define NUMERIC_NEG 0x4000
#define NUMERIC_SHORT 0x8000
#define NUMERIC_SPECIAL 0xC000
#define NUMERIC_SHORT_SIGN_MASK 0x2000
#define NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define NUMERIC_SHORT_WEIGHT_MASK 0x003F
#define DEC_DIGITS 4
#define MAX_FAST_DIGITS 9		/* 10000^9 < 2^127: the digits fit in int128 */

#define UNIX_TO_PG_DAYS (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define UNIX_TO_PG_MICROS ((int64) UNIX_TO_PG_DAYS * USECS_PER_DAY)

typedef enum
{
	NUMERIC_EXACT,				/* *unscaled holds the value */
	NUMERIC_INEXACT,			/* cannot be stored in the field */
	NUMERIC_SLOW				/* too many digits here: ask types.c */
} numeric_result;

/* A numeric Datum as unscaled at scale with fewer than precision digits (precision <= 18). */
static numeric_result
numeric_unscaled(Datum d, int scale, int precision, ts_int128 *unscaled)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
	const char *p = VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	uint16		head;
	int			weight,
				ndigits,
				shift;
	bool		neg;
	const char *digits;
	ts_int128	acc = 0,
				limit = 1;

	if (len < sizeof(uint16))
		return NUMERIC_SLOW;
	memcpy(&head, p, sizeof(uint16));
	if ((head & NUMERIC_SIGN_MASK) == NUMERIC_SPECIAL)
		return NUMERIC_INEXACT;	/* NaN, Infinity */
	if (head & NUMERIC_SHORT)
	{
		neg = (head & NUMERIC_SHORT_SIGN_MASK) != 0;
		weight = (head & NUMERIC_SHORT_WEIGHT_SIGN_MASK ? ~NUMERIC_SHORT_WEIGHT_MASK : 0) |
			(head & NUMERIC_SHORT_WEIGHT_MASK);
		digits = p + sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < 2 * sizeof(uint16))
			return NUMERIC_SLOW;
		neg = (head & NUMERIC_SIGN_MASK) == NUMERIC_NEG;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		weight = w;
		digits = p + 2 * sizeof(uint16);
	}
	ndigits = (int) ((len - (size_t) (digits - p)) / sizeof(int16));
	if (ndigits > MAX_FAST_DIGITS)
		return NUMERIC_SLOW;
	for (int i = 0; i < ndigits; i++)
	{
		int16		dg;

		memcpy(&dg, digits + i * sizeof(int16), sizeof(int16));
		acc = acc * 10000 + dg;
	}
	for (int i = 0; i < precision; i++)
		limit *= 10;
	/* value = acc * 10^(4 * (weight - ndigits + 1)); unscaled = value * 10^scale */
	shift = DEC_DIGITS * (weight - ndigits + 1) + scale;
	if (acc == 0)
		shift = 0;
	for (; shift > 0; shift--)
	{
		acc *= 10;
		if (acc >= limit)
			return NUMERIC_INEXACT;
	}
	for (; shift < 0; shift++)
	{
		if (acc % 10 != 0)
			return NUMERIC_INEXACT;
		acc /= 10;
	}
	if (acc >= limit)
		return NUMERIC_INEXACT;
	*unscaled = neg ? -acc : acc;
	return NUMERIC_EXACT;
}

/* an integer of a PostgreSQL integer type into an integer field: range-checked */
static bool
integer_value(int64 i, ts_type_kind k, ts_value *out)
{
	int64		lo = k == TS_TINYINT ? PG_INT8_MIN : k == TS_SMALLINT ? PG_INT16_MIN :
		k == TS_INT ? PG_INT32_MIN : PG_INT64_MIN;
	int64		hi = k == TS_TINYINT ? PG_INT8_MAX : k == TS_SMALLINT ? PG_INT16_MAX :
		k == TS_INT ? PG_INT32_MAX : PG_INT64_MAX;

	if (i < lo || i > hi)
		return false;
	out->v.i = i;
	return true;
}

/*
 * A non-null Datum of type typid, written to column colname, as a value of
 * the field's type target, only when exact (as tablescan_datum_to_field_value);
 * strings point into the Datum (or into a detoasted copy in the current
 * memory context), nested values are palloc'd there (write_nested.c).
 */
bool
tablescan_write_value(Datum d, Oid typid, const ts_type *target, ts_value *out,
					  const char *colname)
{
	ts_type_kind k = target->kind;

	memset(out, 0, sizeof(*out));
	switch (typid)
	{
		case INT2OID:
			if (ts_type_is_integer(k))
				return integer_value(DatumGetInt16(d), k, out);
			break;
		case INT4OID:
			if (ts_type_is_integer(k))
				return integer_value(DatumGetInt32(d), k, out);
			break;
		case INT8OID:
			if (ts_type_is_integer(k))
				return integer_value(DatumGetInt64(d), k, out);
			break;
		case FLOAT8OID:
			if (k == TS_DOUBLE)
			{
				out->v.d = DatumGetFloat8(d);
				return true;
			}
			break;
		case FLOAT4OID:
			if (k == TS_FLOAT || k == TS_DOUBLE)
			{
				if (k == TS_FLOAT)
					out->v.f = DatumGetFloat4(d);
				else
					out->v.d = DatumGetFloat4(d);
				return true;
			}
			break;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			if (ts_type_is_bytes(k))
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

				out->v.s.p = (const uint8 *) VARDATA_ANY(v);
				out->v.s.len = VARSIZE_ANY_EXHDR(v);
				return true;
			}
			break;
		case DATEOID:
			if (k == TS_DATE)
			{
				DateADT		date = DatumGetDateADT(d);

				if (DATE_NOT_FINITE(date))
					return false;
				out->v.i = (int64) date + UNIX_TO_PG_DAYS;
				return true;
			}
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (target->precision >= 6 &&
				k == (typid == TIMESTAMPOID ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ))
			{
				Timestamp	ts = DatumGetTimestamp(d);

				if (TIMESTAMP_NOT_FINITE(ts))
					return false;
				ts_value_set_micros(out, ts + UNIX_TO_PG_MICROS);
				return true;
			}
			break;
		case NUMERICOID:
			if (k == TS_DECIMAL && target->precision <= 18 && target->scale >= 0 &&
				target->scale <= target->precision)
			{
				switch (numeric_unscaled(d, target->scale, target->precision, &out->v.dec))
				{
					case NUMERIC_EXACT:
						return true;
					case NUMERIC_INEXACT:
						return false;
					case NUMERIC_SLOW:
						break;
				}
			}
			break;
		default:
			break;
	}
	return tablescan_datum_to_stored_value(d, typid, target, out, colname);
}
