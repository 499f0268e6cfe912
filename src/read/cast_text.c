/*
 * cast_text.c - Java Paimon's text side of the casts of schema evolution.
 *
 * Owns: the text forms of *ToStringCastRule (Java toString of numbers,
 * DateTimeUtils.formatTimestamp / formatTimestampMillis, [a, b] / {k -> v}
 * / {a, b} of nested values), the parsers of StringTo*CastRule
 * (BinaryStringUtils.toBoolean / toLong / toDecimal / toDate / toTime /
 * toTimestamp, DateTimeUtils.parseTime), and CHAR / BINARY padding and
 * length trimming (BinaryStringUtils.toCharacterString / toBinaryString).
 * The matrix and the dispatch are in cast.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/cast_internal.h"
#include "base/ts_text_scan.h"

/* Value as text via ts_value_to_string (Java toString forms) into arena. */
bool
ts_cast_value_text(const ts_value *in, const ts_type *from, ts_arena *arena,
		   const uint8_t **p, uint32_t *len, ts_err *err)
{
	char	   *s = ts_value_to_string(in, from);
	size_t		n;

	if (s == NULL)
		return ts_error_nomem(err, NULL);
	n = strlen(s);
	*p = ts_arena_dup(arena, s, n ? n : 1);
	*len = (uint32_t) n;
	ts_free(s);
	if (*p == NULL)
		return ts_error_nomem(err, NULL);
	return true;
}

/* ---- date/time helpers ------------------------------------------------ */

/* The forms BinaryStringUtils.toDate / toTimestamp accept. */
static const ts_date_syntax cast_date = {false, 9, 9999};
static const ts_time_syntax cast_time = {1, true};

/* Paimon DateTimeUtils.truncate(ts, precision) */
void
ts_cast_truncate(int64_t *millis, int32_t *nanos, int precision)
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
bool
ts_cast_to_character_string(const ts_type *to, const uint8_t *p, uint32_t len, ts_value *out,
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
			return ts_error_nomem(err, NULL);
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
bool
ts_cast_to_binary_string(const ts_type *to, const uint8_t *p, uint32_t len, ts_value *out,
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
			return ts_error_nomem(err, NULL);
		memcpy(b, p, len);
		memset(b + len, 0, target - len);
		out->v.s.p = b;
		out->v.s.len = target;
	}
	return true;
}

bool
ts_cast_bad_input(ts_err *err, const uint8_t *p, uint32_t len, const ts_type *to)
{
	char	   *tn = ts_type_to_string(to);

	ts_error(err, TS_ERR_INVALID, "cannot cast string '%.*s' to %s",
			 (int) (len > 200 ? 200 : len), (const char *) p, tn ? tn : ts_type_kind_name(to->kind));
	ts_free(tn);
	return false;
}

/* Java isInteger (DateTimeUtils): digits only, at least one */
static bool
java_is_integer(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Integer.parseInt(s.substring(a, b).trim()) on digits only */
static bool
java_sub_int(const char *s, size_t a, size_t b, int64_t *out)
{
	int64_t		v = 0;

	if (a > b)
		return false;			/* Java: StringIndexOutOfBoundsException */
	while (a < b && (unsigned char) s[a] <= ' ')
		a++;
	while (b > a && (unsigned char) s[b - 1] <= ' ')
		b--;
	if (!java_is_integer(s + a, b - a) || b - a > 9)
		return false;
	for (size_t i = a; i < b; i++)
		v = v * 10 + (s[i] - '0');
	*out = v;
	return true;
}

static const char *
find_char(const char *s, size_t len, size_t from, char c)
{
	for (size_t i = from; i < len; i++)
		if (s[i] == c)
			return s + i;
	return NULL;
}

/* DateTimeUtils.parseFraction: millis from the fraction digits, rounded */
static int64_t
java_parse_fraction(const char *s, size_t a, size_t b)
{
	int			multiplier = 100;
	int64_t		r = 0;

	while (a < b && (unsigned char) s[a] <= ' ')
		a++;
	while (b > a && (unsigned char) s[b - 1] <= ' ')
		b--;
	for (size_t i = a; i < b; i++)
	{
		int			x = (s[i] < '0' || s[i] > '9') ? 0 : s[i] - '0';

		r += multiplier * x;
		if (multiplier < 10)
		{
			if (i + 1 < b && s[i + 1] >= '5')
				r++;
			break;
		}
		multiplier /= 10;
	}
	return r;
}

/*
 * DateTimeUtils.parseTime (StringToTimeCastRule): h[:m[:s[.fff]]] with an
 * optional [+-]hh[:mm] zone that is subtracted; no range checks in Java,
 * so values outside a day are refused here (no PostgreSQL time holds them).
 */
static bool
java_parse_time(const char *s, size_t len, int64_t *out)
{
	const char *c1 = find_char(s, len, 0, ':');
	const char *tz = find_char(s, len, 0, '-');
	int64_t		op = -1,
				tzh = 0,
				tzm = 0,
				h,
				m = 0,
				sec = 0,
				milli = 0,
				v;
	size_t		end = len;

	if (tz == NULL)
	{
		tz = find_char(s, len, 0, '+');
		op = 1;
	}
	if (tz != NULL)
	{
		size_t		t = (size_t) (tz - s);
		const char *c3 = find_char(s, len, t, ':');

		end = t;
		if (c3 == NULL)
		{
			if (!java_sub_int(s, t + 1, len, &tzh))
				return false;
		}
		else if (!java_sub_int(s, t + 1, (size_t) (c3 - s), &tzh) ||
				 !java_sub_int(s, (size_t) (c3 - s) + 1, len, &tzm))
			return false;
	}
	if (c1 == NULL)
	{
		if (!java_sub_int(s, 0, end, &h))
			return false;
	}
	else
	{
		size_t		i1 = (size_t) (c1 - s);
		const char *c2 = find_char(s, len, i1 + 1, ':');

		if (!java_sub_int(s, 0, i1, &h))
			return false;
		if (c2 == NULL)
		{
			if (!java_sub_int(s, i1 + 1, end, &m))
				return false;
		}
		else
		{
			size_t		i2 = (size_t) (c2 - s);
			const char *dot = find_char(s, len, i2, '.');

			if (!java_sub_int(s, i1 + 1, i2, &m))
				return false;
			if (dot == NULL)
			{
				if (!java_sub_int(s, i2 + 1, end, &sec))
					return false;
			}
			else
			{
				if (!java_sub_int(s, i2 + 1, (size_t) (dot - s), &sec))
					return false;
				if ((size_t) (dot - s) + 1 > end)
					return false;
				milli = java_parse_fraction(s, (size_t) (dot - s) + 1, end);
			}
		}
	}
	h += op * tzh;
	m += op * tzm;
	v = h * 3600000 + m * 60000 + sec * 1000 + milli;
	if (v < 0 || v > MILLIS_PER_DAY)
		return false;
	*out = v;
	return true;
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

bool
ts_cast_from_string(const uint8_t *p0, uint32_t len0, const ts_type *to, ts_value *out,
				 ts_arena *arena, ts_err *err)
{
	const uint8_t *p = p0;
	uint32_t	len = len0;
	int64_t		iv;

	out->isnull = false;
	if (ts_cast_is_char(to->kind))
		return ts_cast_to_character_string(to, p0, len0, out, arena, err);
	if (ts_cast_is_bin(to->kind))
		return ts_cast_to_binary_string(to, p0, len0, out, arena, err);
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
				return ts_cast_bad_input(err, p0, len0, to);
			}
		case TS_TINYINT:
			if (!parse_integral(p, len, INT8_MIN, INT8_MAX, &iv))
				return ts_cast_bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_SMALLINT:
			if (!parse_integral(p, len, INT16_MIN, INT16_MAX, &iv))
				return ts_cast_bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_INT:
			if (!parse_integral(p, len, INT32_MIN, INT32_MAX, &iv))
				return ts_cast_bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_BIGINT:
			if (!parse_integral(p, len, INT64_MIN, INT64_MAX, &iv))
				return ts_cast_bad_input(err, p0, len0, to);
			out->v.i = iv;
			return true;
		case TS_FLOAT:
		case TS_DOUBLE:
			{
				char		buf[128];
				char	   *end;
				double		d;

				if (len == 0 || len >= sizeof(buf))
					return ts_cast_bad_input(err, p0, len0, to);
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
							return ts_cast_bad_input(err, p0, len0, to);
					if (strchr("dDfF", buf[len - 1]))
						buf[len - 1] = '\0';
					errno = 0;
					if (to->kind == TS_FLOAT)
						d = strtof(buf, &end);
					else
						d = strtod(buf, &end);
					if (end == buf || *end != '\0')
						return ts_cast_bad_input(err, p0, len0, to);
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
					return ts_cast_bad_input(err, p0, len0, to);
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
						return ts_cast_bad_input(err, p0, len0, to);
					out->v.i = iv;
					return true;
				}
				if (!ts_scan_date((const char *) p, len, &n, &cast_date, &days) ||
					(n < len && p[n] != ' '))
					return ts_cast_bad_input(err, p0, len0, to);
				out->v.i = days;
				return true;
			}
		case TS_TIME:
			{
				/* BinaryStringUtils.toTime: DateTimeUtils.parseTime of the text */
				if (!java_parse_time((const char *) p0, len0, &iv))
					return ts_cast_bad_input(err, p0, len0, to);
				out->v.i = iv;
				return true;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		days,
							nod,
							millis;
				int32_t		nanos;
				size_t		n = 0;

				/* epoch numbers only for TIMESTAMP (BinaryStringUtils.toTimestamp) */
				if (to->kind == TS_TIMESTAMP && is_numeric_str(p, len))
				{
					if (!parse_integral(p, len, INT64_MIN, INT64_MAX, &iv))
						return ts_cast_bad_input(err, p0, len0, to);
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
					return ts_cast_bad_input(err, p0, len0, to);
				millis = days * MILLIS_PER_DAY + nod / 1000000;
				nanos = (int32_t) (nod % 1000000);
				ts_cast_truncate(&millis, &nanos, to->precision);
				/* LTZ: parseTimestampData(str, precision, zone): the wall clock there */
				out->v.ts.millis = to->kind == TS_TIMESTAMP_LTZ ? ts_cast_local_to_utc_ms(millis) : millis;
				out->v.ts.nanos = nanos;
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "cast from string to %s is not supported",
							ts_type_kind_name(to->kind));
	}
}

/* ---- string forms --------------------------------------------------------- */

/* DateTimeUtils.formatTimestampMillis(time, precision) (TimeToStringCastRule) */
static int
format_time(char *buf, size_t cap, int64_t time, int precision)
{
	int64_t		ms;
	int			n;

	while (time < 0)
		time += MILLIS_PER_DAY;
	ms = time % 1000;
	n = snprintf(buf, cap, "%02d:%02d:%02d", (int) (time / 3600000 % 100),
				 (int) (time / 60000 % 60), (int) (time / 1000 % 60));
	if (precision > 0 && n + 5 < (int) cap)
	{
		buf[n++] = '.';
		while (precision > 0)
		{
			buf[n++] = (char) ('0' + ms / 100);
			ms = ms % 100 * 10;
			if (ms == 0)
				break;			/* "keep consistent with Timestamp.toString()" */
			precision--;
		}
		buf[n] = '\0';
	}
	return n;
}

/*
 * The text Java's cast to STRING gives for a value (no CHAR padding / length
 * trim: the caller applies toCharacterString where the rule does).
 */
static bool
string_form(ts_buf *b, const ts_value *in, const ts_type *from, int depth, ts_err *err)
{
	char		tmp[64];
	int			n;

	if (depth > 64)
		return ts_error(err, TS_ERR_UNSUPPORTED, "nested type too deep");
	if (in->isnull)
		return ts_buf_append(b, "null", 4, err);
	switch (from->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return ts_buf_append(b, in->v.s.p, in->v.s.len, err);
		case TS_BOOLEAN:
			return in->v.i ? ts_buf_append(b, "true", 4, err) : ts_buf_append(b, "false", 5, err);
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		ms = from->kind == TS_TIMESTAMP_LTZ ?
					ts_cast_utc_to_local_ms(in->v.ts.millis) : in->v.ts.millis;

				n = format_timestamp(tmp, sizeof(tmp), ms, in->v.ts.nanos, from->precision);
				return ts_buf_append(b, tmp, (size_t) n, err);
			}
		case TS_TIME:
			n = format_time(tmp, sizeof(tmp), in->v.i, from->precision);
			return ts_buf_append(b, tmp, (size_t) n, err);
		case TS_ARRAY:
		case TS_MAP:
		case TS_ROW:
			{
				const ts_nested *nv = &in->v.nested;
				bool		is_map = from->kind == TS_MAP;
				bool		is_row = from->kind == TS_ROW;
				int			count = is_row ? from->nfields : nv->n;

				if (nv->n < 0 || (nv->n > 0 && nv->items == NULL))
					return ts_error(err, TS_ERR_CORRUPT, "invalid nested value");
				if (!ts_buf_append(b, from->kind == TS_ARRAY ? "[" : "{", 1, err))
					return false;
				for (int i = 0; i < count; i++)
				{
					if (i && !ts_buf_append(b, ", ", 2, err))
						return false;
					if (is_map)
					{
						if (!string_form(b, &nv->items[2 * i], from->key, depth + 1, err) ||
							!ts_buf_append(b, " -> ", 4, err) ||
							!string_form(b, &nv->items[2 * i + 1], from->value, depth + 1, err))
							return false;
					}
					else if (is_row)
					{
						ts_value	nul = {0};

						nul.isnull = true;
						if (!string_form(b, i < nv->n ? &nv->items[i] : &nul,
										 from->fields[i].type, depth + 1, err))
							return false;
					}
					else if (!string_form(b, &nv->items[i], from->element, depth + 1, err))
						return false;
				}
				return ts_buf_append(b, from->kind == TS_ARRAY ? "]" : "}", 1, err);
			}
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_FLOAT:
		case TS_DOUBLE:
		case TS_DECIMAL:
		case TS_DATE:
			{
				char	   *s = ts_value_to_string(in, from);
				bool		ok;

				if (s == NULL)
					return ts_error_nomem(err, NULL);
				ok = ts_buf_append(b, s, strlen(s), err);
				ts_free(s);
				return ok;
			}
		default:
			{
				char	   *tn = ts_type_to_string(from);

				ts_error(err, TS_ERR_UNSUPPORTED, "cast of %s to STRING is not supported",
						 tn ? tn : "?");
				ts_free(tn);
				return false;
			}
	}
}

/* The string form of a value into the arena. */
bool
ts_cast_string_form(const ts_value *in, const ts_type *from, ts_arena *arena,
				  const uint8_t **p, uint32_t *len, ts_err *err)
{
	ts_buf		b;
	bool		ok;

	ts_buf_init(&b);
	ok = string_form(&b, in, from, 0, err);
	if (ok && b.len > UINT32_MAX / 2)
		ok = ts_error(err, TS_ERR_UNSUPPORTED, "cast to STRING: value too large");
	if (ok)
	{
		*p = ts_arena_dup(arena, b.len ? (const void *) b.data : (const void *) "", b.len ? b.len : 1);
		*len = (uint32_t) b.len;
		if (*p == NULL)
			ok = ts_error_nomem(err, NULL);
	}
	ts_buf_free(&b);
	return ok;
}

