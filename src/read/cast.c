/*
 * cast.c - Paimon cast semantics for reading files of older schemas.
 *
 * Owns: the cast matrix of Java Paimon's schema evolution.  A column whose
 * type changed by ALTER TABLE ... MODIFY COLUMN is read from an older file
 * in the file's type and cast to the read schema's type as Java reads it:
 * SchemaManager allows a change when DataTypeCasts.supportsCast(explicit)
 * holds and CastExecutors resolves a rule; the reader then applies that
 * rule (org.apache.paimon.casting.*CastRule).  The table cast_matrix below
 * names, per pair of type kinds, the Java rule reproduced; every other
 * pair is TS_ERR_UNSUPPORTED naming both types (checked once per file,
 * before any row is produced).  Nested ARRAY / MAP / ROW / MULTISET values
 * are cast element by element (CastedArray / CastedMap / CastedRow), ROW
 * fields re-mapped by field id.
 *
 * Java's text forms and parsers (to and from STRING) are in cast_text.c.
 *
 * Casts between TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE (and LTZ ->
 * DATE / TIME / STRING, DATE / TIME / INT / BIGINT /
 * STRING -> LTZ) use Java's TimeZone.getDefault(); here that is the
 * session time zone the caller installs with ts_cast_set_session_zone
 * (PostgreSQL's TimeZone in the FDW), UTC when none is installed.
 * LTZ -> INT / BIGINT is the instant's epoch seconds in every zone.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_type_class.h"
#include "read/cast_internal.h"
#include "base/ts_text_scan.h"

/* ---- the session time zone (Java's TimeZone.getDefault()) -------------- */

static ts_zone_offset_fn session_zone;

void
ts_cast_set_session_zone(ts_zone_offset_fn fn)
{
	session_zone = fn;
}

/* Offset east of UTC, in milliseconds, in force at the UTC instant. */
static int64_t
zone_offset_ms(int64_t utc_ms)
{
	if (session_zone == NULL)
		return 0;
	return (int64_t) session_zone(ts_floor_div(utc_ms, 1000)) * 1000;
}

/* Instant -> wall clock of the session zone (LocalDateTime.ofInstant). */
int64_t
ts_cast_utc_to_local_ms(int64_t utc_ms)
{
	return utc_ms + zone_offset_ms(utc_ms);
}

/*
 * Wall clock -> instant, as LocalDateTime.atZone(zone).toInstant(): in an
 * overlap the earlier offset (the one before the transition), in a gap the
 * wall clock moved forward by the gap (= the offset before the gap).
 */
int64_t
ts_cast_local_to_utc_ms(int64_t local_ms)
{
	int64_t		before,
				after;

	if (session_zone == NULL)
		return local_ms;
	before = zone_offset_ms(local_ms - MILLIS_PER_DAY);
	after = zone_offset_ms(local_ms + MILLIS_PER_DAY);
	if (zone_offset_ms(local_ms - before) == before)
		return local_ms - before;
	if (zone_offset_ms(local_ms - after) == after)
		return local_ms - after;
	return local_ms - before;	/* in a gap */
}

/* ---- "is a cast needed" ---------------------------------------------- */

bool
ts_cast_needed(const ts_type *from, const ts_type *to)
{
	if (from->kind != to->kind)
		return true;
	switch (to->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return from->length != to->length;
		case TS_DECIMAL:
			return from->precision != to->precision || from->scale != to->scale;
		case TS_TIME:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			/* values carry full precision; a smaller target truncates */
			return to->precision < from->precision;
		case TS_ARRAY:
		case TS_MULTISET:
			return ts_cast_needed(from->element, to->element);
		case TS_MAP:
			return ts_cast_needed(from->key, to->key) || ts_cast_needed(from->value, to->value);
		case TS_ROW:
			if (from->nfields != to->nfields)
				return true;
			for (int i = 0; i < to->nfields; i++)
			{
				if (from->fields[i].id != to->fields[i].id)
					return true;
				if (from->fields[i].id < 0 &&
					strcmp(from->fields[i].name, to->fields[i].name) != 0)
					return true;
				if (ts_cast_needed(from->fields[i].type, to->fields[i].type))
					return true;
			}
			return false;
		default:
			return false;
	}
}

/* Index of the field of 'row' matching target field 'f' (by id, else name). */
static int
row_field_match(const ts_type *row, const ts_field *f)
{
	for (int i = 0; i < row->nfields; i++)
	{
		if (f->id >= 0 && row->fields[i].id >= 0)
		{
			if (row->fields[i].id == f->id)
				return i;
		}
		else if (strcmp(row->fields[i].name, f->name) == 0)
			return i;
	}
	return -1;
}

/* ---- the cast matrix ---------------------------------------------------- */

typedef enum cast_rule
{
	CR_DECIMAL_TO_DECIMAL,
	CR_NUMPRIM_TO_DECIMAL,
	CR_DECIMAL_TO_NUMPRIM,
	CR_NUMPRIM,
	CR_INT_TO_TIMESTAMP,
	CR_BOOLEAN_TO_NUMERIC,
	CR_INT_TO_BOOLEAN,
	CR_NUMERIC_TO_STRING,
	CR_BOOLEAN_TO_STRING,
	CR_TIMESTAMP_TO_STRING,
	CR_TIME_TO_STRING,
	CR_DATE_TO_STRING,
	CR_STRING_TO_STRING,
	CR_NESTED_TO_STRING,
	CR_STRING_TO_OTHER,
	CR_TIMESTAMP_TO_TIMESTAMP,
	CR_TIMESTAMP_TO_DATE,
	CR_TIMESTAMP_TO_TIME,
	CR_DATE_TO_TIMESTAMP,
	CR_TIME_TO_TIMESTAMP,
	CR_TIMESTAMP_TO_INT,
	CR_BINARY_TO_BINARY,
	CR_BINARY_TO_STRING,
	CR_TIME_TO_TIME,
	CR_NESTED
} cast_rule;

#define K(k) (UINT64_C(1) << (k))
#define K_INT (K(TS_TINYINT) | K(TS_SMALLINT) | K(TS_INT) | K(TS_BIGINT))
#define K_NUMPRIM (K_INT | K(TS_FLOAT) | K(TS_DOUBLE))
#define K_NUMERIC (K_NUMPRIM | K(TS_DECIMAL))
#define K_STR (K(TS_CHAR) | K(TS_VARCHAR))
#define K_BIN (K(TS_BINARY) | K(TS_VARBINARY))
#define K_TS (K(TS_TIMESTAMP) | K(TS_TIMESTAMP_LTZ))

/*
 * Every pair of type kinds Java Paimon lets ALTER TABLE change a column
 * between (DataTypeCasts.supportsCast(explicit) and a CastExecutors rule
 * that gives an executor), with the rule it reads by.  Pairs Java refuses
 * are absent: TINYINT / SMALLINT / FLOAT / DOUBLE / DECIMAL -> TIMESTAMP
 * (NumericPrimitiveToTimestamp gives no executor), TIMESTAMP -> DECIMAL /
 * FLOAT / DOUBLE / TINYINT / SMALLINT (no rule), DATE <-> TIME, DATE /
 * TIME -> numbers, FLOAT / DOUBLE / DECIMAL -> BOOLEAN, BOOLEAN <->
 * temporal, STRING -> ARRAY / MAP / ROW (DataTypeCasts refuses), MULTISET
 * / VARIANT / BLOB / VECTOR to or from anything else.
 */
static const struct
{
	uint64_t	from;
	uint64_t	to;
	cast_rule	rule;
	const char *java;
}			cast_matrix[] =
{
	{K(TS_DECIMAL), K(TS_DECIMAL), CR_DECIMAL_TO_DECIMAL,
	"DecimalToDecimalCastRule: rescale HALF_UP; does not fit -> NULL"},
	{K_NUMPRIM, K(TS_DECIMAL), CR_NUMPRIM_TO_DECIMAL,
	"NumericPrimitiveToDecimalCastRule: DecimalUtils.castFrom; does not fit -> NULL"},
	{K(TS_DECIMAL), K_NUMPRIM, CR_DECIMAL_TO_NUMPRIM,
	"DecimalToNumericPrimitiveCastRule: integral part, Java narrowing; doubleValue"},
	{K_NUMPRIM, K_NUMPRIM, CR_NUMPRIM,
	"NumericPrimitiveCastRule: Java primitive conversions (wrap / saturate)"},
	{K(TS_INT) | K(TS_BIGINT), K_TS, CR_INT_TO_TIMESTAMP,
	"NumericPrimitiveToTimestamp: epoch seconds (LTZ: wall clock of the session zone)"},
	{K(TS_BOOLEAN), K_NUMERIC, CR_BOOLEAN_TO_NUMERIC,
	"BooleanToNumericCastRule: true 1, false 0"},
	{K_INT, K(TS_BOOLEAN), CR_INT_TO_BOOLEAN,
	"NumericToBooleanCastRule: != 0"},
	{K_NUMERIC, K_STR, CR_NUMERIC_TO_STRING,
	"NumericToStringCastRule: Java toString; CHAR pads, lengths trim"},
	{K(TS_BOOLEAN), K_STR, CR_BOOLEAN_TO_STRING,
	"BooleanToStringCastRule: true / false"},
	{K_TS, K_STR, CR_TIMESTAMP_TO_STRING,
	"TimestampToStringCastRule: formatTimestamp (LTZ in the session zone)"},
	{K(TS_TIME), K_STR, CR_TIME_TO_STRING,
	"TimeToStringCastRule: formatTimestampMillis"},
	{K(TS_DATE), K_STR, CR_DATE_TO_STRING,
	"DateToStringCastRule: yyyy-MM-dd"},
	{K_STR, K_STR, CR_STRING_TO_STRING,
	"StringToStringCastRule: CHAR pads, lengths trim"},
	{K(TS_ARRAY) | K(TS_MAP) | K(TS_ROW), K_STR, CR_NESTED_TO_STRING,
	"ArrayToStringCastRule / MapToStringCastRule / RowToStringCastRule: [a, b] / {k -> v} / {a, b}"},
	{K_STR, K(TS_BOOLEAN) | K_NUMERIC | K(TS_DATE) | K(TS_TIME) | K_TS | K_BIN, CR_STRING_TO_OTHER,
	"StringTo{Boolean,Decimal,NumericPrimitive,Date,Time,Timestamp,Binary}CastRule: parse; unparsable -> error"},
	{K_TS, K_TS, CR_TIMESTAMP_TO_TIMESTAMP,
	"TimestampToTimestampCastRule: wall clock <-> instant in the session zone; truncate"},
	{K_TS, K(TS_DATE), CR_TIMESTAMP_TO_DATE,
	"TimestampToDateCastRule: day (LTZ: in the session zone)"},
	{K_TS, K(TS_TIME), CR_TIMESTAMP_TO_TIME,
	"TimestampToTimeCastRule: millis of the day (LTZ: in the session zone)"},
	{K(TS_DATE), K_TS, CR_DATE_TO_TIMESTAMP,
	"DateToTimestampCastRule: midnight (LTZ: midnight in the session zone)"},
	{K(TS_TIME), K_TS, CR_TIME_TO_TIMESTAMP,
	"TimeToTimestampCastRule: 1970-01-01 + time (LTZ: in the session zone)"},
	{K_TS, K(TS_INT) | K(TS_BIGINT), CR_TIMESTAMP_TO_INT,
	"TimestampToNumericPrimitiveCastRule: epoch seconds (LTZ: of the instant, any session zone)"},
	{K_BIN, K_BIN, CR_BINARY_TO_BINARY,
	"BinaryToBinaryCastRule: BINARY zero-pads, lengths trim"},
	{K_BIN, K_STR, CR_BINARY_TO_STRING,
	"BinaryToStringCastRule: the bytes as they are"},
	{K(TS_TIME), K(TS_TIME), CR_TIME_TO_TIME,
	"TIME(p) -> TIME(q): same millis, truncated to q digits"},
	{K(TS_ARRAY), K(TS_ARRAY), CR_NESTED, "CastedArray: element cast"},
	{K(TS_MULTISET), K(TS_MULTISET), CR_NESTED, "CastedMap: element cast"},
	{K(TS_MAP), K(TS_MAP), CR_NESTED, "CastedMap: key and value casts"},
	{K(TS_ROW), K(TS_ROW), CR_NESTED, "CastedRow: fields by id, each cast"},
};

_Static_assert(TS_GEOGRAPHY < 64, "type kinds fit a 64-bit set");

/* The matrix row for the pair, or -1 when Java refuses it. */
static int
matrix_row(const ts_type *from, const ts_type *to)
{
	for (size_t i = 0; i < sizeof(cast_matrix) / sizeof(cast_matrix[0]); i++)
		if ((cast_matrix[i].from & K(from->kind)) && (cast_matrix[i].to & K(to->kind)))
			return (int) i;
	return -1;
}

const char *
ts_cast_rule_name(const ts_type *from, const ts_type *to)
{
	int			r;

	if (!ts_cast_needed(from, to))
		return "identity";
	r = matrix_row(from, to);
	return r < 0 ? NULL : cast_matrix[r].java;
}

/* Whether Java can render every value of t as STRING (nested -> STRING). */
static bool
string_form_supported(const ts_type *t)
{
	ts_type		str = {0};

	str.kind = TS_VARCHAR;
	str.length = TS_STRING_LENGTH;
	if (ts_cast_is_char(t->kind))
		return true;
	switch (t->kind)
	{
		case TS_ARRAY:
			return string_form_supported(t->element);
		case TS_MAP:
			return string_form_supported(t->key) && string_form_supported(t->value);
		case TS_ROW:
			for (int i = 0; i < t->nfields; i++)
				if (!string_form_supported(t->fields[i].type))
					return false;
			return true;
		default:
			return matrix_row(t, &str) >= 0;
	}
}

/* ---- support check ---------------------------------------------------- */

static bool
supported(const ts_type *from, const ts_type *to)
{
	int			r;

	if (!ts_cast_needed(from, to))
		return true;
	r = matrix_row(from, to);
	if (r < 0)
		return false;
	switch (cast_matrix[r].rule)
	{
		case CR_NESTED_TO_STRING:
			return string_form_supported(from);
		case CR_NESTED:
			if (from->kind == TS_ARRAY || from->kind == TS_MULTISET)
				return supported(from->element, to->element);
			if (from->kind == TS_MAP)
				return supported(from->key, to->key) && supported(from->value, to->value);
			for (int i = 0; i < to->nfields; i++)
			{
				int			j = row_field_match(from, &to->fields[i]);

				if (j >= 0 && !supported(from->fields[j].type, to->fields[i].type))
					return false;
			}
			return true;
		default:
			return true;
	}
}

bool
ts_cast_check(const ts_type *from, const ts_type *to, const char *column, ts_err *err)
{
	char	   *a,
			   *b;

	if (supported(from, to))
		return true;
	a = ts_type_to_string(from);
	b = ts_type_to_string(to);
	ts_error(err, TS_ERR_UNSUPPORTED,
			 "column \"%s\": reading a file written with type %s as type %s (cast) is not supported (Java Paimon has no cast for this type change)",
			 column ? column : "?", a ? a : "?", b ? b : "?");
	ts_free(a);
	ts_free(b);
	return false;
}

/* ---- numeric helpers -------------------------------------------------- */

/* Java (long) d and (int) d: NaN -> 0, saturating. */
static int64_t
java_d2l(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t) d;
}

static int64_t
java_d2i(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 2147483647.0)
		return INT32_MAX;
	if (d <= -2147483648.0)
		return INT32_MIN;
	return (int32_t) d;
}

static ts_int128
pow10_128(int n)
{
	ts_int128	r = 1;

	for (int i = 0; i < n; i++)
		r *= 10;
	return r;
}

static bool
decimal_fits(ts_int128 v, int precision)
{
	ts_int128	lim = pow10_128(precision > 38 ? 38 : precision);

	return v < lim && v > -lim;
}

/* Rescale with HALF_UP; false on overflow. */
static bool
decimal_rescale(ts_int128 v, int from_s, int to_s, ts_int128 *out)
{
	if (to_s >= from_s)
	{
		int			d = to_s - from_s;
		ts_int128	m;
		ts_int128	lim;

		if (d > 38)
			return v == 0 ? (*out = 0, true) : false;
		m = pow10_128(d);
		lim = pow10_128(38);
		if (v != 0 && (v >= lim / m || v <= -lim / m))
			return false;
		*out = v * m;
		return true;
	}
	else
	{
		int			d = from_s - to_s;
		ts_int128	m,
					q,
					r;

		if (d > 38)
		{
			*out = 0;
			return true;
		}
		m = pow10_128(d);
		q = v / m;
		r = v % m;
		if (r < 0)
			r = -r;
		if (r * 2 >= m)
			q += v < 0 ? -1 : 1;
		*out = q;
		return true;
	}
}

/* ---- the cast --------------------------------------------------------- */

static bool cast_nested(const ts_value *in, const ts_type *from, const ts_type *to,
						ts_value *out, ts_arena *arena, ts_err *err, int depth);

/* DecimalUtils.castFrom(long, p, s): does not fit -> NULL */
static void
integral_to_decimal(int64_t v, const ts_type *to, ts_value *out)
{
	ts_int128	d;

	if (!decimal_rescale((ts_int128) v, 0, to->scale, &d) || !decimal_fits(d, to->precision))
		out->isnull = true;
	else
		out->v.dec = d;
}

static bool
cast_one(const ts_value *in, const ts_type *from, const ts_type *to, ts_value *out,
		 ts_arena *arena, ts_err *err, int depth)
{
	ts_type_kind f = from->kind,
				t = to->kind;
	int			r;

	if (in->isnull)
	{
		memset(out, 0, sizeof(*out));
		out->isnull = true;
		return true;
	}
	if (!ts_cast_needed(from, to))
	{
		*out = *in;
		return true;
	}
	memset(out, 0, sizeof(*out));
	out->isnull = false;
	r = matrix_row(from, to);
	if (r < 0)
		return ts_cast_check(from, to, NULL, err);

	switch (cast_matrix[r].rule)
	{
		case CR_NESTED:
			return cast_nested(in, from, to, out, arena, err, depth);

		case CR_NUMPRIM:
			if (ts_type_is_integer(f))
			{
				int64_t		v = in->v.i;

				if (ts_type_is_integer(t))
					out->v.i = ts_type_int_wrap(t, v);
				else if (t == TS_FLOAT)
					out->v.f = (float) v;
				else
					out->v.d = (double) v;
			}
			else
			{
				double		d = f == TS_FLOAT ? (double) in->v.f : in->v.d;

				if (t == TS_BIGINT)
					out->v.i = java_d2l(d);
				else if (ts_type_is_integer(t))
					out->v.i = ts_type_int_wrap(t, java_d2i(d));
				else if (t == TS_FLOAT)
					out->v.f = (float) d;
				else
					out->v.d = d;
			}
			return true;

		case CR_DECIMAL_TO_DECIMAL:
			{
				ts_int128	v;

				if (!decimal_rescale(in->v.dec, from->scale, to->scale, &v) ||
					!decimal_fits(v, to->precision))
					out->isnull = true;
				else
					out->v.dec = v;
				return true;
			}

		case CR_NUMPRIM_TO_DECIMAL:
			if (ts_type_is_integer(f))
			{
				integral_to_decimal(in->v.i, to, out);
				return true;
			}
			else
			{
				/* BigDecimal.valueOf(double) goes through Double.toString */
				const uint8_t *p;
				uint32_t	len;
				int			res;
				double		d = f == TS_FLOAT ? (double) in->v.f : in->v.d;

				if (isnan(d) || isinf(d))
					return ts_error(err, TS_ERR_INVALID, "cannot cast %s to DECIMAL",
									isnan(d) ? "NaN" : "Infinity");
				if (!ts_cast_value_text(in, from, arena, &p, &len, err))
					return false;
				res = ts_scan_decimal((const char *) p, len, to->precision, to->scale,
									  CAST_MAX_EXPONENT, &out->v.dec);
				if (res < 0)
					return ts_cast_bad_input(err, p, len, to);
				out->isnull = res == 0;
				return true;
			}

		case CR_DECIMAL_TO_NUMPRIM:
			if (ts_type_is_integer(t))
			{
				ts_int128	q = in->v.dec / pow10_128(from->scale);

				out->v.i = ts_type_int_wrap(t, (int64_t) q);
			}
			else
			{
				const uint8_t *p;
				uint32_t	len;
				char		buf[64];

				if (!ts_cast_value_text(in, from, arena, &p, &len, err))
					return false;
				snprintf(buf, sizeof(buf), "%.*s", (int) len, (const char *) p);
				if (t == TS_FLOAT)
					out->v.f = strtof(buf, NULL);
				else
					out->v.d = strtod(buf, NULL);
			}
			return true;

		case CR_BOOLEAN_TO_NUMERIC:
			if (t == TS_FLOAT)
				out->v.f = in->v.i ? 1.0f : 0.0f;
			else if (t == TS_DOUBLE)
				out->v.d = in->v.i ? 1.0 : 0.0;
			else if (t == TS_DECIMAL)
				integral_to_decimal(in->v.i ? 1 : 0, to, out);
			else
				out->v.i = in->v.i ? 1 : 0;
			return true;

		case CR_INT_TO_BOOLEAN:
			out->v.i = in->v.i != 0;
			return true;

		case CR_STRING_TO_STRING:
			return ts_cast_to_character_string(to, in->v.s.p, in->v.s.len, out, arena, err);

		case CR_BINARY_TO_STRING:
		case CR_NESTED_TO_STRING:
			{
				/* BinaryString.fromBytes / StringBuilder: no pad, no trim */
				const uint8_t *p;
				uint32_t	len;

				if (f != TS_ARRAY && f != TS_MAP && f != TS_ROW)
				{
					out->v.s = in->v.s;
					return true;
				}
				if (!ts_cast_string_form(in, from, arena, &p, &len, err))
					return false;
				out->v.s.p = p;
				out->v.s.len = len;
				return true;
			}

		case CR_NUMERIC_TO_STRING:
		case CR_BOOLEAN_TO_STRING:
		case CR_TIMESTAMP_TO_STRING:
		case CR_TIME_TO_STRING:
		case CR_DATE_TO_STRING:
			{
				const uint8_t *p;
				uint32_t	len;

				if (!ts_cast_string_form(in, from, arena, &p, &len, err))
					return false;
				return ts_cast_to_character_string(to, p, len, out, arena, err);
			}

		case CR_STRING_TO_OTHER:
			return ts_cast_from_string(in->v.s.p, in->v.s.len, to, out, arena, err);

		case CR_BINARY_TO_BINARY:
			return ts_cast_to_binary_string(to, in->v.s.p, in->v.s.len, out, arena, err);

		case CR_TIMESTAMP_TO_TIMESTAMP:
			out->v.ts = in->v.ts;
			if (f == TS_TIMESTAMP && t == TS_TIMESTAMP_LTZ)
				out->v.ts.millis = ts_cast_local_to_utc_ms(in->v.ts.millis);
			else if (f == TS_TIMESTAMP_LTZ && t == TS_TIMESTAMP)
				out->v.ts.millis = ts_cast_utc_to_local_ms(in->v.ts.millis);
			if (to->precision < from->precision)
				ts_cast_truncate(&out->v.ts.millis, &out->v.ts.nanos, to->precision);
			return true;

		case CR_TIMESTAMP_TO_DATE:
			{
				int64_t		ms = f == TS_TIMESTAMP_LTZ ?
					ts_cast_utc_to_local_ms(in->v.ts.millis) : in->v.ts.millis;

				/* CastExecutorTest.testTimestampToDatePreEpoch: the day, floored */
				out->v.i = ts_floor_div(ms, MILLIS_PER_DAY);
				return true;
			}

		case CR_TIMESTAMP_TO_TIME:
			{
				int64_t		ms = f == TS_TIMESTAMP_LTZ ?
					ts_cast_utc_to_local_ms(in->v.ts.millis) : in->v.ts.millis;

				out->v.i = ms - ts_floor_div(ms, MILLIS_PER_DAY) * MILLIS_PER_DAY;
				return true;
			}

		case CR_TIMESTAMP_TO_INT:
			{
				/*
				 * DateTimeUtils.unixTimestamp: millis / 1000 (Java division).
				 * For LTZ Java takes Timestamp.toLocalDateTime(), the instant's
				 * UTC wall clock: the epoch seconds of the instant, whatever the
				 * session zone.
				 */
				int64_t		ms = in->v.ts.millis;

				out->v.i = t == TS_INT ? (int32_t) (ms / 1000) : ms / 1000;
				return true;
			}

		case CR_INT_TO_TIMESTAMP:
			{
				/*
				 * Timestamp.fromLocalDateTime(toLocalDateTime(v * 1000, zone)):
				 * the wall clock of that instant, in UTC or the session zone.
				 */
				int64_t		ms = (int64_t) ((uint64_t) in->v.i * 1000u);

				out->v.ts.millis = t == TS_TIMESTAMP_LTZ ? ts_cast_utc_to_local_ms(ms) : ms;
				out->v.ts.nanos = 0;
				return true;
			}

		case CR_DATE_TO_TIMESTAMP:
			out->v.ts.millis = in->v.i * MILLIS_PER_DAY;
			if (t == TS_TIMESTAMP_LTZ)
				out->v.ts.millis = ts_cast_local_to_utc_ms(out->v.ts.millis);
			out->v.ts.nanos = 0;
			return true;

		case CR_TIME_TO_TIMESTAMP:
			out->v.ts.millis = t == TS_TIMESTAMP_LTZ ? ts_cast_local_to_utc_ms(in->v.i) : in->v.i;
			out->v.ts.nanos = 0;
			return true;

		case CR_TIME_TO_TIME:
			{
				int64_t		m = 1;

				for (int i = to->precision; i < 3; i++)
					m *= 10;
				out->v.i = in->v.i / m * m;
				return true;
			}
	}
	return ts_cast_check(from, to, NULL, err);
}

static bool
cast_nested(const ts_value *in, const ts_type *from, const ts_type *to, ts_value *out,
			ts_arena *arena, ts_err *err, int depth)
{
	const ts_nested *src = &in->v.nested;

	if (depth > 64)
		return ts_error(err, TS_ERR_UNSUPPORTED, "nested type too deep");
	if (from->kind != to->kind)
		return ts_cast_check(from, to, NULL, err);
	if (src->n < 0 || (src->n > 0 && src->items == NULL))
		return ts_error(err, TS_ERR_CORRUPT, "invalid nested value");

	if (to->kind == TS_ROW)
	{
		ts_value   *items = ts_arena_alloc(arena, sizeof(ts_value) * (to->nfields ? to->nfields : 1));

		if (items == NULL)
			return ts_error_nomem(err, NULL);
		for (int i = 0; i < to->nfields; i++)
		{
			int			j = row_field_match(from, &to->fields[i]);

			if (j < 0 || j >= src->n)
			{
				memset(&items[i], 0, sizeof(ts_value));
				items[i].isnull = true;
			}
			else if (!cast_one(&src->items[j], from->fields[j].type, to->fields[i].type,
							   &items[i], arena, err, depth + 1))
				return false;
		}
		out->v.nested.n = to->nfields;
		out->v.nested.items = items;
		return true;
	}
	else
	{
		bool		is_map = to->kind == TS_MAP;
		int64_t		nitems = is_map ? (int64_t) src->n * 2 : src->n;
		ts_value   *items;

		items = ts_arena_alloc(arena, sizeof(ts_value) * (size_t) (nitems ? nitems : 1));
		if (items == NULL)
			return ts_error_nomem(err, NULL);
		for (int64_t i = 0; i < nitems; i++)
		{
			const ts_type *ft,
					   *tt;

			if (is_map)
			{
				ft = (i % 2 == 0) ? from->key : from->value;
				tt = (i % 2 == 0) ? to->key : to->value;
			}
			else
			{
				ft = from->element;
				tt = to->element;
			}
			if (!cast_one(&src->items[i], ft, tt, &items[i], arena, err, depth + 1))
				return false;
		}
		out->v.nested.n = src->n;
		out->v.nested.items = items;
		return true;
	}
}

bool
ts_cast_value(const ts_value *in, const ts_type *from, const ts_type *to,
			  ts_value *out, ts_arena *arena, ts_err *err)
{
	return cast_one(in, from, to, out, arena, err, 0);
}
