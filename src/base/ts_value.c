/*
 * ts_value.c - rendering one Paimon value as text (for messages, tests and
 * display).
 *
 * Owns: ts_value_to_string.  The arena functions declared in ts_value.h
 * live in arena.c.  Conventions (close to the oracle's value encodings):
 * BOOLEAN true/false; FLOAT/DOUBLE as Java's Float/Double.toString
 * (shortest round-trip digits); DECIMAL plain with the type's scale; DATE
 * yyyy-mm-dd; TIME HH:MM:SS[.fff]; TIMESTAMP yyyy-mm-ddTHH:MM:SS[.f..]
 * with 'precision' fraction digits (LTZ adds "Z"); strings raw at top
 * level and JSON-quoted inside nested values; binaries \x<hex>; ARRAY
 * [a, b]; MAP [[k, v], ...]; ROW {"name": v, ...}; NULL "NULL" (top
 * level) / null (nested).
 */
#include "base/ts_value.h"
#include "base/ts_text_scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
print_year(ts_buf *b, int64_t y)
{
	/* java.time.LocalDate style: 4 digits min, '+' above 9999 */
	if (y > 9999)
		return ts_buf_printf(b, NULL, "+%lld", (long long) y);
	if (y < 0)
		return ts_buf_printf(b, NULL, "-%04lld", (long long) -y);
	return ts_buf_printf(b, NULL, "%04lld", (long long) y);
}

static bool
print_date(ts_buf *b, int64_t days)
{
	int64_t		y;
	int			m,
				d;

	ts_civil_from_days(days, &y, &m, &d);
	return print_year(b, y) && ts_buf_printf(b, NULL, "-%02d-%02d", m, d);
}

static bool
print_timestamp(ts_buf *b, int64_t millis, int32_t nanos, int precision, bool ltz)
{
	int64_t		days = ts_floor_div(millis, 86400000);
	int64_t		msday = millis - days * 86400000;
	int64_t		frac9 = (msday % 1000) * 1000000 + nanos;
	int			secs = (int) (msday / 1000);

	if (!print_date(b, days) ||
		!ts_buf_printf(b, NULL, "T%02d:%02d:%02d", secs / 3600, (secs / 60) % 60, secs % 60))
		return false;
	if (precision > 9)
		precision = 9;
	if (precision > 0)
	{
		char		digits[16];

		snprintf(digits, sizeof(digits), "%09lld", (long long) frac9);
		if (!ts_buf_printf(b, NULL, ".%.*s", precision, digits))
			return false;
	}
	return ltz ? ts_buf_printf(b, NULL, "Z") : true;
}

/* Java Double.toString / Float.toString layout of shortest digits. */
static bool
print_java_float(ts_buf *b, double v, bool is_float)
{
	char		tmp[64];
	char		digits[32];
	int			nd = 0;
	int			exp10;
	int			maxp = is_float ? 9 : 17;
	const char *p;

	if (isnan(v))
		return ts_buf_printf(b, NULL, "NaN");
	if (isinf(v))
		return ts_buf_printf(b, NULL, v > 0 ? "Infinity" : "-Infinity");
	if (v == 0)
		return ts_buf_printf(b, NULL, signbit(v) ? "-0.0" : "0.0");
	for (int prec = 0; prec < maxp; prec++)
	{
		snprintf(tmp, sizeof(tmp), "%.*e", prec, v);
		if (is_float ? (strtof(tmp, NULL) == (float) v) : (strtod(tmp, NULL) == v))
			break;
	}
	/* tmp = [-]d[.ddd]e[+-]xx */
	p = tmp;
	if (*p == '-')
	{
		if (!ts_buf_printf(b, NULL, "-"))
			return false;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	if (exp10 >= -3 && exp10 < 7)
	{
		/* plain notation */
		if (exp10 < 0)
		{
			if (!ts_buf_printf(b, NULL, "0."))
				return false;
			for (int i = 0; i < -exp10 - 1; i++)
				if (!ts_buf_printf(b, NULL, "0"))
					return false;
			return ts_buf_printf(b, NULL, "%s", digits);
		}
		else
		{
			int			intdigits = exp10 + 1;

			for (int i = 0; i < intdigits; i++)
				if (!ts_buf_printf(b, NULL, "%c", i < nd ? digits[i] : '0'))
					return false;
			if (!ts_buf_printf(b, NULL, "."))
				return false;
			if (nd > intdigits)
				return ts_buf_printf(b, NULL, "%s", digits + intdigits);
			return ts_buf_printf(b, NULL, "0");
		}
	}
	/* computerized scientific notation */
	if (!ts_buf_printf(b, NULL, "%c.", digits[0]))
		return false;
	if (!ts_buf_printf(b, NULL, "%s", nd > 1 ? digits + 1 : "0"))
		return false;
	return ts_buf_printf(b, NULL, "E%d", exp10);
}

static bool
print_decimal(ts_buf *b, ts_int128 unscaled, int scale)
{
	char		rev[64];
	int			n = 0;
	unsigned __int128 mag;
	bool		neg = unscaled < 0;

	mag = neg ? (unsigned __int128) 0 - (unsigned __int128) unscaled : (unsigned __int128) unscaled;
	do
	{
		rev[n++] = (char) ('0' + (int) (mag % 10));
		mag /= 10;
	} while (mag != 0 && n < 60);
	if (scale < 0)
		scale = 0;
	while (n <= scale && n < 60)
		rev[n++] = '0';
	if (neg && !ts_buf_printf(b, NULL, "-"))
		return false;
	for (int i = n - 1; i >= 0; i--)
	{
		if (i == scale - 1 && !ts_buf_printf(b, NULL, "."))
			return false;
		if (!ts_buf_printf(b, NULL, "%c", rev[i]))
			return false;
	}
	return true;
}

static bool
print_quoted(ts_buf *b, const uint8_t *p, uint32_t len)
{
	if (!ts_buf_printf(b, NULL, "\""))
		return false;
	for (uint32_t i = 0; i < len; i++)
	{
		uint8_t		c = p[i];
		bool		ok;

		if (c == '"' || c == '\\')
			ok = ts_buf_printf(b, NULL, "\\%c", c);
		else if (c < 0x20)
			ok = ts_buf_printf(b, NULL, "\\u%04x", c);
		else
			ok = ts_buf_append(b, &c, 1, NULL);
		if (!ok)
			return false;
	}
	return ts_buf_printf(b, NULL, "\"");
}

static bool print_value(ts_buf *b, const ts_value *v, const ts_type *t, bool nested, int depth);

static bool
print_value(ts_buf *b, const ts_value *v, const ts_type *t, bool nested, int depth)
{
	if (v->isnull)
		return ts_buf_printf(b, NULL, nested ? "null" : "NULL");
	if (t == NULL || depth > 64)
		return ts_buf_printf(b, NULL, "?");
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return ts_buf_printf(b, NULL, v->v.i ? "true" : "false");
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			{
				/* decimal digits without printf (partition paths of every file group) */
				char		digits[24];
				int			n = sizeof(digits);
				uint64_t	u = v->v.i < 0 ? (uint64_t) 0 - (uint64_t) v->v.i : (uint64_t) v->v.i;

				do
				{
					digits[--n] = (char) ('0' + u % 10);
					u /= 10;
				} while (u != 0);
				if (v->v.i < 0)
					digits[--n] = '-';
				return ts_buf_append(b, digits + n, sizeof(digits) - n, NULL);
			}
		case TS_FLOAT:
			return print_java_float(b, v->v.f, true);
		case TS_DOUBLE:
			return print_java_float(b, v->v.d, false);
		case TS_DECIMAL:
			return print_decimal(b, v->v.dec, t->scale);
		case TS_CHAR:
		case TS_VARCHAR:
			if (nested)
				return print_quoted(b, v->v.s.p, v->v.s.len);
			return ts_buf_append(b, v->v.s.p, v->v.s.len, NULL);
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			if (nested && !ts_buf_printf(b, NULL, "\""))
				return false;
			if (!ts_buf_printf(b, NULL, "\\x"))
				return false;
			for (uint32_t i = 0; i < v->v.s.len; i++)
				if (!ts_buf_printf(b, NULL, "%02x", v->v.s.p[i]))
					return false;
			return nested ? ts_buf_printf(b, NULL, "\"") : true;
		case TS_DATE:
			return print_date(b, v->v.i);
		case TS_TIME:
			{
				int64_t		ms = v->v.i;
				int64_t		s = ms / 1000;
				int			p = t->precision > 3 ? 3 : t->precision;

				if (!ts_buf_printf(b, NULL, "%02lld:%02lld:%02lld",
								   (long long) (s / 3600), (long long) ((s / 60) % 60),
								   (long long) (s % 60)))
					return false;
				if (p > 0)
				{
					char		digits[8];

					snprintf(digits, sizeof(digits), "%03lld", (long long) (ms % 1000));
					return ts_buf_printf(b, NULL, ".%.*s", p, digits);
				}
				return true;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (nested && !ts_buf_printf(b, NULL, "\""))
				return false;
			if (!print_timestamp(b, v->v.ts.millis, v->v.ts.nanos, t->precision,
								 t->kind == TS_TIMESTAMP_LTZ))
				return false;
			return nested ? ts_buf_printf(b, NULL, "\"") : true;
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_VECTOR:
			if (!ts_buf_printf(b, NULL, "["))
				return false;
			for (int32_t i = 0; i < v->v.nested.n; i++)
				if ((i && !ts_buf_printf(b, NULL, ", ")) ||
					!print_value(b, &v->v.nested.items[i], t->element, true, depth + 1))
					return false;
			return ts_buf_printf(b, NULL, "]");
		case TS_MAP:
			if (!ts_buf_printf(b, NULL, "["))
				return false;
			for (int32_t i = 0; i < v->v.nested.n; i++)
				if ((i && !ts_buf_printf(b, NULL, ", ")) ||
					!ts_buf_printf(b, NULL, "[") ||
					!print_value(b, &v->v.nested.items[2 * i], t->key, true, depth + 1) ||
					!ts_buf_printf(b, NULL, ", ") ||
					!print_value(b, &v->v.nested.items[2 * i + 1], t->value, true, depth + 1) ||
					!ts_buf_printf(b, NULL, "]"))
					return false;
			return ts_buf_printf(b, NULL, "]");
		case TS_ROW:
			if (!ts_buf_printf(b, NULL, "{"))
				return false;
			for (int32_t i = 0; i < v->v.nested.n && i < t->nfields; i++)
			{
				const char *name = t->fields[i].name ? t->fields[i].name : "?";

				if ((i && !ts_buf_printf(b, NULL, ", ")) ||
					!print_quoted(b, (const uint8_t *) name, (uint32_t) strlen(name)) ||
					!ts_buf_printf(b, NULL, ": ") ||
					!print_value(b, &v->v.nested.items[i], t->fields[i].type, true, depth + 1))
					return false;
			}
			return ts_buf_printf(b, NULL, "}");
		default:
			return ts_buf_printf(b, NULL, "<%s>", ts_type_kind_name(t->kind));
	}
}

char *
ts_value_to_string(const ts_value *v, const ts_type *t)
{
	ts_buf		b;

	ts_buf_init(&b);
	if (v == NULL || !print_value(&b, v, t, false, 0) || !ts_buf_append(&b, "", 1, NULL))
	{
		ts_buf_free(&b);
		return NULL;
	}
	return (char *) b.data;
}
