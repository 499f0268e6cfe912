/*
 * cast.c - Paimon cast semantics for reading files of older schemas.
 *
 * Owns: the subset of org.apache.paimon.casting.CastExecutors a reader
 * meets after ALTER TABLE ... MODIFY COLUMN: numeric primitive casts with
 * Java's narrowing rules, DECIMAL rescale (HALF_UP, overflow -> NULL),
 * numeric/boolean/date/timestamp/binary -> STRING (Java toString forms,
 * CHAR/VARCHAR pad/trim), STRING -> boolean/numeric/decimal/date/timestamp
 * parsing, TIMESTAMP -> DATE/TIME/TIMESTAMP/BIGINT/INT, DATE -> TIMESTAMP,
 * BINARY <-> BINARY/STRING, and nested ROW (by field id) / ARRAY / MAP.
 * Casts that depend on the JVM's default time zone (TIMESTAMP WITH LOCAL
 * TIME ZONE <-> wall clock) are refused.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/cast.h"
#include "base/ts_text_scan.h"

#define MILLIS_PER_DAY 86400000LL
/* BigDecimal's exponent is an int: its text form takes up to 9 digits */
#define CAST_MAX_EXPONENT 999999999

static bool
is_int(ts_type_kind k)
{
	return k == TS_TINYINT || k == TS_SMALLINT || k == TS_INT || k == TS_BIGINT;
}

static bool
is_numprim(ts_type_kind k)
{
	return is_int(k) || k == TS_FLOAT || k == TS_DOUBLE;
}

static bool
is_char(ts_type_kind k)
{
	return k == TS_CHAR || k == TS_VARCHAR;
}

static bool
is_bin(ts_type_kind k)
{
	return k == TS_BINARY || k == TS_VARBINARY;
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

/* ---- support check ---------------------------------------------------- */

static bool
supported(const ts_type *from, const ts_type *to)
{
	ts_type_kind f = from->kind,
				t = to->kind;

	if (!ts_cast_needed(from, to))
		return true;
	if (is_numprim(f) && is_numprim(t))
		return true;
	if ((is_numprim(f) || f == TS_DECIMAL) && t == TS_DECIMAL)
		return true;
	if (f == TS_DECIMAL && is_numprim(t))
		return true;
	if (f == TS_BOOLEAN && is_numprim(t))
		return true;
	if (is_int(f) && t == TS_BOOLEAN)
		return true;
	if (is_char(t) && (is_numprim(f) || f == TS_DECIMAL || f == TS_BOOLEAN || f == TS_DATE ||
					   f == TS_TIMESTAMP || is_char(f) || is_bin(f)))
		return true;
	if (is_char(f) && (t == TS_BOOLEAN || is_numprim(t) || t == TS_DECIMAL || t == TS_DATE ||
					   t == TS_TIMESTAMP || is_bin(t)))
		return true;
	if (f == TS_TIMESTAMP && (t == TS_DATE || t == TS_TIME || t == TS_TIMESTAMP ||
							  t == TS_BIGINT || t == TS_INT))
		return true;
	if (f == TS_TIMESTAMP_LTZ && t == TS_TIMESTAMP_LTZ)
		return true;
	if (f == TS_DATE && t == TS_TIMESTAMP)
		return true;
	if (f == TS_TIME && t == TS_TIME)
		return true;
	if (is_bin(f) && is_bin(t))
		return true;
	if ((f == TS_ARRAY && t == TS_ARRAY) || (f == TS_MULTISET && t == TS_MULTISET))
		return supported(from->element, to->element);
	if (f == TS_MAP && t == TS_MAP)
		return supported(from->key, to->key) && supported(from->value, to->value);
	if (f == TS_ROW && t == TS_ROW)
	{
		for (int i = 0; i < to->nfields; i++)
		{
			int			j = row_field_match(from, &to->fields[i]);

			if (j >= 0 && !supported(from->fields[j].type, to->fields[i].type))
				return false;
		}
		return true;
	}
	return false;
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
			 "column \"%s\": reading a file written with type %s as type %s (cast) is not supported",
			 column ? column : "?", a ? a : "?", b ? b : "?");
	ts_free(a);
	ts_free(b);
	return false;
}

/* ---- numeric helpers -------------------------------------------------- */

static int64_t
wrap_int(int64_t v, ts_type_kind k)
{
	switch (k)
	{
		case TS_TINYINT:
			return (int8_t) v;
		case TS_SMALLINT:
			return (int16_t) v;
		case TS_INT:
			return (int32_t) v;
		default:
			return v;
	}
}

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

/* Value as text via ts_value_to_string (Java toString forms) into arena. */
static bool
value_text(const ts_value *in, const ts_type *from, ts_arena *arena,
		   const uint8_t **p, uint32_t *len, ts_err *err)
{
	char	   *s = ts_value_to_string(in, from);
	size_t		n;

	if (s == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory");
	n = strlen(s);
	*p = ts_arena_dup(arena, s, n ? n : 1);
	*len = (uint32_t) n;
	ts_free(s);
	if (*p == NULL)
		return ts_error(err, TS_ERR_NOMEM, "out of memory");
	return true;
}

/* ---- date/time helpers ------------------------------------------------ */

/* The forms BinaryStringUtils.toDate / toTimestamp accept. */
static const ts_date_syntax cast_date = {false, 9, 9999};
static const ts_time_syntax cast_time = {1, true};

/* Paimon DateTimeUtils.truncate(ts, precision) */
static void
ts_truncate(int64_t *millis, int32_t *nanos, int precision)
{
	int64_t		ms_of_sec = *millis % 1000;
	int64_t		nano_of_sec;
	int			digits = 1;

	if (precision >= 9)
		return;
	/* Java: Integer.toString(nanoOfSecond).length() <= precision -> unchanged */
	if (ms_of_sec < 0)
		ms_of_sec += 1000;
	nano_of_sec = ms_of_sec * 1000000 + *nanos;
	for (int64_t x = nano_of_sec; x >= 10; x /= 10)
		digits++;
	if (digits <= precision)
		return;
	if (precision <= 3)
	{
		int64_t		m = 1;

		for (int i = 0; i < 3 - precision; i++)
			m *= 10;
		*millis = *millis / m * m;	/* Java truncation, as Paimon */
		*nanos = 0;
	}
	else
	{
		int32_t		m = 1;

		for (int i = 0; i < 9 - precision; i++)
			m *= 10;
		*nanos = *nanos / m * m;
	}
}

/* "yyyy-MM-dd HH:mm:ss[.fraction]" (DateTimeUtils.formatTimestamp, UTC) */
static int
format_timestamp(char *buf, size_t cap, int64_t millis, int32_t nanos_of_milli, int precision)
{
	int64_t		days = ts_floor_div(millis, MILLIS_PER_DAY);
	int64_t		ms = millis - days * MILLIS_PER_DAY;
	int64_t		y;
	int			mo,
				d;
	int			nano = (int) ((ms % 1000) * 1000000 + nanos_of_milli);
	char		frac[10];
	int			flen = 9;
	int			n;

	ts_civil_from_days(days, &y, &mo, &d);
	snprintf(frac, sizeof(frac), "%09d", nano);
	while (flen > precision && frac[flen - 1] == '0')
		flen--;
	frac[flen] = '\0';
	n = snprintf(buf, cap, "%04lld-%02d-%02d %02d:%02d:%02d%s%s",
				 (long long) y, mo, d, (int) (ms / 3600000), (int) (ms / 60000 % 60),
				 (int) (ms / 1000 % 60), flen ? "." : "", frac);
	return n;
}

/* ---- string helpers --------------------------------------------------- */

/* Java String.trim: strip chars <= ' ' */
static void
trim(const uint8_t **p, uint32_t *len)
{
	while (*len > 0 && (*p)[0] <= ' ')
		(*p)++, (*len)--;
	while (*len > 0 && (*p)[*len - 1] <= ' ')
		(*len)--;
}

static uint32_t
utf8_chars(const uint8_t *p, uint32_t len)
{
	uint32_t	n = 0;

	for (uint32_t i = 0; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			n++;
	return n;
}

/* byte length of the first 'chars' UTF-8 characters */
static uint32_t
utf8_prefix(const uint8_t *p, uint32_t len, uint32_t chars)
{
	uint32_t	n = 0;

	for (uint32_t i = 0; i < len; i++)
	{
		if ((p[i] & 0xC0) != 0x80)
		{
			if (n == chars)
				return i;
			n++;
		}
	}
	return len;
}

/* BinaryStringUtils.toCharacterString: trim to length, pad CHAR with blanks */
static bool
to_character_string(const ts_type *to, const uint8_t *p, uint32_t len, ts_value *out,
					ts_arena *arena, ts_err *err)
{
	uint32_t	target = to->length > 0 ? (uint32_t) to->length : (uint32_t) TS_STRING_LENGTH;
	uint32_t	nchars = utf8_chars(p, len);

	out->isnull = false;
	if (nchars > target)
	{
		out->v.s.p = p;
		out->v.s.len = utf8_prefix(p, len, target);
		return true;
	}
	if (nchars < target && to->kind == TS_CHAR)
	{
		uint32_t	pad = target - nchars;
		uint8_t    *b;

		if (pad > (1u << 20))
			return ts_error(err, TS_ERR_UNSUPPORTED, "CHAR(%u) padding too large", target);
		b = ts_arena_alloc(arena, (size_t) len + pad);
		if (b == NULL)
			return ts_error(err, TS_ERR_NOMEM, "out of memory");
		if (len)
			memcpy(b, p, len);
		memset(b + len, ' ', pad);
		out->v.s.p = b;
		out->v.s.len = len + pad;
		return true;
	}
	out->v.s.p = p;
	out->v.s.len = len;
	return true;
}

/* BinaryStringUtils.toBinaryString */
static bool
to_binary_string(const ts_type *to, const uint8_t *p, uint32_t len, ts_value *out,
				 ts_arena *arena, ts_err *err)
{
	uint32_t	target = to->length > 0 ? (uint32_t) to->length : (uint32_t) TS_STRING_LENGTH;

	out->isnull = false;
	if (len == target || (to->kind == TS_VARBINARY && len <= target))
	{
		out->v.s.p = p;
		out->v.s.len = len;
		return true;
	}
	if (len > target)
	{
		out->v.s.p = p;
		out->v.s.len = target;
		return true;
	}
	/* BINARY(n): zero-pad */
	if (target > (1u << 20))
		return ts_error(err, TS_ERR_UNSUPPORTED, "BINARY(%u) padding too large", target);
	{
		uint8_t    *b = ts_arena_alloc(arena, target);

		if (b == NULL)
			return ts_error(err, TS_ERR_NOMEM, "out of memory");
		memcpy(b, p, len);
		memset(b + len, 0, target - len);
		out->v.s.p = b;
		out->v.s.len = target;
	}
	return true;
}

static bool
bad_input(ts_err *err, const uint8_t *p, uint32_t len, const ts_type *to)
{
	return ts_error(err, TS_ERR_INVALID, "cannot cast string '%.*s' to %s",
					(int) (len > 200 ? 200 : len), (const char *) p, ts_type_kind_name(to->kind));
}

/* BinaryStringUtils.toLong / toInt: digits, optional sign, ignored fraction */
static bool
parse_integral(const uint8_t *p, uint32_t len, int64_t lo, int64_t hi, int64_t *out)
{
	return ts_scan_int((const char *) p, len, lo, hi, TS_INT_JAVA_TOLONG, out);
}

static bool
is_numeric_str(const uint8_t *p, uint32_t len)
{
	if (len == 0)
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

static bool
cast_from_string(const uint8_t *p0, uint32_t len0, const ts_type *to, ts_value *out,
				 ts_arena *arena, ts_err *err)
{
	const uint8_t *p = p0;
	uint32_t	len = len0;
	int64_t		iv;

	out->isnull = false;
	if (is_char(to->kind))
		return to_character_string(to, p0, len0, out, arena, err);
	if (is_bin(to->kind))
		return to_binary_string(to, p0, len0, out, arena, err);
	trim(&p, &len);
	switch (to->kind)
	{
		case TS_BOOLEAN:
			{
				static const char *const t[] = {"t", "true", "y", "yes", "1"};
				static const char *const f[] = {"f", "false", "n", "no", "0"};

				for (int k = 0; k < 5; k++)
				{
					if (len == strlen(t[k]) && strncasecmp((const char *) p, t[k], len) == 0)
					{
						out->v.i = 1;
						return true;
					}
					if (len == strlen(f[k]) && strncasecmp((const char *) p, f[k], len) == 0)
					{
						out->v.i = 0;
						return true;
					}
				}
				return bad_input(err, p0, len0, to);
			}
		case TS_TINYINT:
			if (!parse_integral(p, len, INT8_MIN, INT8_MAX, &iv))
				return bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_SMALLINT:
			if (!parse_integral(p, len, INT16_MIN, INT16_MAX, &iv))
				return bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_INT:
			if (!parse_integral(p, len, INT32_MIN, INT32_MAX, &iv))
				return bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_BIGINT:
			if (!parse_integral(p, len, INT64_MIN, INT64_MAX, &iv))
				return bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_FLOAT:
		case TS_DOUBLE:
			{
				char		buf[128];
				char	   *end;
				double		d;

				if (len == 0 || len >= sizeof(buf))
					return bad_input(err, p0, len0, to);
				memcpy(buf, p, len);
				buf[len] = '\0';
				/* Java spellings; strtod would also take "inf"/"nan"/hex */
				if (strcmp(buf, "NaN") == 0)
					d = NAN;
				else if (strcmp(buf, "Infinity") == 0 || strcmp(buf, "+Infinity") == 0)
					d = INFINITY;
				else if (strcmp(buf, "-Infinity") == 0)
					d = -INFINITY;
				else
				{
					for (uint32_t k = 0; k < len; k++)
						if (!(isdigit((unsigned char) buf[k]) || strchr("+-.eE", buf[k]) ||
							  (k == len - 1 && strchr("dDfF", buf[k]))))
							return bad_input(err, p0, len0, to);
					if (strchr("dDfF", buf[len - 1]))
						buf[len - 1] = '\0';
					errno = 0;
					if (to->kind == TS_FLOAT)
						d = strtof(buf, &end);
					else
						d = strtod(buf, &end);
					if (end == buf || *end != '\0')
						return bad_input(err, p0, len0, to);
				}
				if (to->kind == TS_FLOAT)
					out->v.f = (float) d;
				else
					out->v.d = d;
				return true;
			}
		case TS_DECIMAL:
			{
				int			r = ts_scan_decimal((const char *) p, len, to->precision, to->scale,
											CAST_MAX_EXPONENT, &out->v.dec);

				if (r < 0)
					return bad_input(err, p0, len0, to);
				if (r == 0)
					out->isnull = true;
				return true;
			}
		case TS_DATE:
			{
				int64_t		days;
				size_t		n = 0;

				if (is_numeric_str(p, len))
				{
					if (!parse_integral(p, len, INT32_MIN, INT32_MAX, &iv))
						return bad_input(err, p0, len0, to);
					out->v.i = iv;
					return true;
				}
				if (!ts_scan_date((const char *) p, len, &n, &cast_date, &days) ||
					(n < len && p[n] != ' '))
					return bad_input(err, p0, len0, to);
				out->v.i = days;
				return true;
			}
		case TS_TIMESTAMP:
			{
				int64_t		days,
							nod,
							millis;
				int32_t		nanos;
				size_t		n = 0;

				if (is_numeric_str(p, len))
				{
					if (!parse_integral(p, len, INT64_MIN, INT64_MAX, &iv))
						return bad_input(err, p0, len0, to);
					switch (to->precision)
					{
						case 0:
							out->v.ts.millis = iv * 1000;
							out->v.ts.nanos = 0;
							return true;
						case 3:
							out->v.ts.millis = iv;
							out->v.ts.nanos = 0;
							return true;
						case 6:
							out->v.ts.millis = iv / 1000;
							out->v.ts.nanos = (int32_t) (iv % 1000 * 1000);
							return true;
						case 9:
							out->v.ts.millis = iv / 1000000;
							out->v.ts.nanos = (int32_t) (iv % 1000000);
							return true;
						default:
							return ts_error(err, TS_ERR_UNSUPPORTED,
											"cannot cast numeric string to TIMESTAMP(%d)", to->precision);
					}
				}
				if (!ts_scan_date_time((const char *) p, len, &n, &cast_date, &cast_time,
									   false, &days, &nod) || n != len)
					return bad_input(err, p0, len0, to);
				millis = days * MILLIS_PER_DAY + nod / 1000000;
				nanos = (int32_t) (nod % 1000000);
				ts_truncate(&millis, &nanos, to->precision);
				out->v.ts.millis = millis;
				out->v.ts.nanos = nanos;
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "cast from string to %s is not supported",
							ts_type_kind_name(to->kind));
	}
}

/* ---- the cast --------------------------------------------------------- */

static bool cast_nested(const ts_value *in, const ts_type *from, const ts_type *to,
						ts_value *out, ts_arena *arena, ts_err *err, int depth);

static bool
cast_one(const ts_value *in, const ts_type *from, const ts_type *to, ts_value *out,
		 ts_arena *arena, ts_err *err, int depth)
{
	ts_type_kind f = from->kind,
				t = to->kind;

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

	if (ts_type_is_nested(f))
		return cast_nested(in, from, to, out, arena, err, depth);

	/* numeric primitive <-> numeric primitive (NumericPrimitiveCastRule) */
	if (is_numprim(f) && is_numprim(t))
	{
		if (is_int(f))
		{
			int64_t		v = in->v.i;

			if (is_int(t))
				out->v.i = wrap_int(v, t);
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
			else if (is_int(t))
				out->v.i = wrap_int(java_d2i(d), t);
			else if (t == TS_FLOAT)
				out->v.f = (float) d;
			else
				out->v.d = d;
		}
		return true;
	}
	if (t == TS_DECIMAL)
	{
		if (is_int(f))
		{
			ts_int128	v;

			if (!decimal_rescale((ts_int128) in->v.i, 0, to->scale, &v) ||
				!decimal_fits(v, to->precision))
				out->isnull = true;
			else
				out->v.dec = v;
			return true;
		}
		if (f == TS_DECIMAL)
		{
			ts_int128	v;

			if (!decimal_rescale(in->v.dec, from->scale, to->scale, &v) ||
				!decimal_fits(v, to->precision))
				out->isnull = true;
			else
				out->v.dec = v;
			return true;
		}
		if (f == TS_FLOAT || f == TS_DOUBLE)
		{
			/* BigDecimal.valueOf(double) goes through Double.toString */
			const uint8_t *p;
			uint32_t	len;
			int			r;
			double		d = f == TS_FLOAT ? (double) in->v.f : in->v.d;

			if (isnan(d) || isinf(d))
				return ts_error(err, TS_ERR_INVALID, "cannot cast %s to DECIMAL", isnan(d) ? "NaN" : "Infinity");
			if (!value_text(in, from, arena, &p, &len, err))
				return false;
			r = ts_scan_decimal((const char *) p, len, to->precision, to->scale, CAST_MAX_EXPONENT,
								&out->v.dec);
			if (r < 0)
				return bad_input(err, p, len, to);
			out->isnull = r == 0;
			return true;
		}
	}
	if (f == TS_DECIMAL && is_numprim(t))
	{
		if (is_int(t))
		{
			ts_int128	q = in->v.dec / pow10_128(from->scale);

			out->v.i = wrap_int((int64_t) q, t);
		}
		else
		{
			const uint8_t *p;
			uint32_t	len;
			char		buf[64];

			if (!value_text(in, from, arena, &p, &len, err))
				return false;
			snprintf(buf, sizeof(buf), "%.*s", (int) len, (const char *) p);
			if (t == TS_FLOAT)
				out->v.f = strtof(buf, NULL);
			else
				out->v.d = strtod(buf, NULL);
		}
		return true;
	}
	if (f == TS_BOOLEAN && is_numprim(t))
	{
		if (t == TS_FLOAT)
			out->v.f = in->v.i ? 1.0f : 0.0f;
		else if (t == TS_DOUBLE)
			out->v.d = in->v.i ? 1.0 : 0.0;
		else
			out->v.i = in->v.i ? 1 : 0;
		return true;
	}
	if (is_int(f) && t == TS_BOOLEAN)
	{
		out->v.i = in->v.i != 0;
		return true;
	}
	/* to string */
	if (is_char(t))
	{
		const uint8_t *p;
		uint32_t	len;

		if (is_char(f) || is_bin(f))
			return to_character_string(to, in->v.s.p, in->v.s.len, out, arena, err);
		if (f == TS_BOOLEAN)
		{
			p = (const uint8_t *) (in->v.i ? "true" : "false");
			len = in->v.i ? 4 : 5;
		}
		else if (f == TS_TIMESTAMP)
		{
			char		buf[64];
			int			n = format_timestamp(buf, sizeof(buf), in->v.ts.millis, in->v.ts.nanos,
											 from->precision);

			p = ts_arena_dup(arena, buf, (size_t) n);
			if (p == NULL)
				return ts_error(err, TS_ERR_NOMEM, "out of memory");
			len = (uint32_t) n;
		}
		else if (is_numprim(f) || f == TS_DECIMAL || f == TS_DATE)
		{
			if (!value_text(in, from, arena, &p, &len, err))
				return false;
		}
		else
			goto unsupported;
		return to_character_string(to, p, len, out, arena, err);
	}
	if (is_char(f))
		return cast_from_string(in->v.s.p, in->v.s.len, to, out, arena, err);
	if (is_bin(f) && is_bin(t))
		return to_binary_string(to, in->v.s.p, in->v.s.len, out, arena, err);
	if (f == TS_TIMESTAMP)
	{
		switch (t)
		{
			case TS_DATE:
				out->v.i = ts_floor_div(in->v.ts.millis, MILLIS_PER_DAY);
				return true;
			case TS_TIME:
				out->v.i = in->v.ts.millis - ts_floor_div(in->v.ts.millis, MILLIS_PER_DAY) * MILLIS_PER_DAY;
				return true;
			case TS_BIGINT:
				out->v.i = in->v.ts.millis / 1000;
				return true;
			case TS_INT:
				out->v.i = (int32_t) (in->v.ts.millis / 1000);
				return true;
			case TS_TIMESTAMP:
				out->v.ts = in->v.ts;
				ts_truncate(&out->v.ts.millis, &out->v.ts.nanos, to->precision);
				return true;
			default:
				break;
		}
	}
	if (f == TS_TIMESTAMP_LTZ && t == TS_TIMESTAMP_LTZ)
	{
		out->v.ts = in->v.ts;
		ts_truncate(&out->v.ts.millis, &out->v.ts.nanos, to->precision);
		return true;
	}
	if (f == TS_TIME && t == TS_TIME)
	{
		int64_t		m = 1;

		for (int i = to->precision; i < 3; i++)
			m *= 10;
		out->v.i = in->v.i / m * m;
		return true;
	}
	if (f == TS_DATE && t == TS_TIMESTAMP)
	{
		out->v.ts.millis = in->v.i * MILLIS_PER_DAY;
		out->v.ts.nanos = 0;
		return true;
	}

unsupported:
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
			return ts_error(err, TS_ERR_NOMEM, "out of memory");
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
			return ts_error(err, TS_ERR_NOMEM, "out of memory");
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
