/*
 * text_value.c - parse the text spelling of a Paimon value (see
 * text_value.h for the accepted forms).
 *
 * Owns: strict, bounds-checked parsers for integers, floats, exact
 * decimals, booleans, dates, times, timestamps and base64.  Never reads
 * past len; never allocates more than the input length (plus one).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/text/text_value.h"

static bool
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void
trim(const char **s, size_t *len)
{
	while (*len > 0 && is_ws(**s))
	{
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && is_ws((*s)[*len - 1]))
		(*len)--;
}

static bool
malformed(ts_err *err, const ts_type *t, const char *s, size_t len)
{
	int			show = len > 64 ? 64 : (int) len;

	return ts_error(err, TS_ERR_CORRUPT, "invalid %s value \"%.*s%s\"",
					ts_type_kind_name(t->kind), show, s, len > 64 ? "..." : "");
}

/* [+-]digits with range [min, max]; frac: allow and drop ".digits" */
static bool
parse_int(const char *s, size_t len, int64_t min, int64_t max, bool frac, int64_t *out)
{
	size_t		i = 0;
	bool		neg = false;
	uint64_t	acc = 0;
	uint64_t	limit;
	size_t		ndig = 0;

	if (len == 0)
		return false;
	if (s[0] == '+' || s[0] == '-')
	{
		neg = s[0] == '-';
		i++;
	}
	limit = neg ? (uint64_t) (-(min + 1)) + 1 : (uint64_t) max;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, ndig++)
	{
		uint64_t	d = (uint64_t) (s[i] - '0');

		if (acc > (limit - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	if (i < len && frac && s[i] == '.')
	{
		i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			ndig++;
	}
	if (i != len || ndig == 0)
		return false;
	*out = neg ? (int64_t) (0 - acc) : (int64_t) acc;
	return true;
}

static bool
parse_double(const char *s, size_t len, bool is_float, double *out)
{
	char		buf[128];
	char	   *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* Java accepts a type suffix: 1.5f, 2d */
	if (len > 1 && strchr("fFdD", buf[len - 1]) && (isdigit((unsigned char) buf[len - 2]) || buf[len - 2] == '.'))
		buf[--len] = '\0';
	errno = 0;
	if (is_float)
		*out = strtof(buf, &end);
	else
		*out = strtod(buf, &end);
	if (end != buf + len || end == buf)
		return false;
	return true;
}

/* exact decimal: round HALF_UP to scale; *overflow when > precision digits */
static bool
parse_decimal(const char *s, size_t len, int precision, int scale, ts_int128 *out, bool *overflow)
{
	size_t		i = 0;
	bool		neg = false;
	char		digits[80];
	int			nd = 0;			/* significant digits collected */
	int			point = -1;		/* digits before the point */
	int64_t		exp10 = 0;
	bool		any = false;
	int64_t		shift;
	ts_int128	v = 0;
	ts_int128	limit = 1;

	*overflow = false;
	if (len == 0)
		return false;
	if (s[0] == '+' || s[0] == '-')
	{
		neg = s[0] == '-';
		i++;
	}
	for (; i < len; i++)
	{
		char		c = s[i];

		if (c >= '0' && c <= '9')
		{
			any = true;
			if (nd == 0 && c == '0')
			{
				/* leading zero: only matters after the point */
				if (point >= 0)
					exp10--;
				continue;
			}
			if (nd >= (int) sizeof(digits))
			{
				/* beyond 80 significant digits: only the magnitude counts */
				if (point < 0)
					exp10++;
				continue;
			}
			digits[nd++] = c;
			if (point >= 0)
				exp10--;
		}
		else if (c == '.' && point < 0)
			point = nd;
		else
			break;
	}
	if (!any)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		int64_t		e;

		if (!parse_int(s + i + 1, len - i - 1, -1000000, 1000000, false, &e))
			return false;
		exp10 += e;
		i = len;
	}
	if (i != len)
		return false;
	/* value = digits * 10^exp10; want unscaled = value * 10^scale */
	shift = exp10 + scale;
	for (int k = 0; k < precision && k < 38; k++)
		limit *= 10;
	if (nd == 0)
	{
		*out = 0;
		return true;
	}
	if (shift >= 0)
	{
		if (nd + shift > precision)
		{
			*overflow = true;
			return true;
		}
		for (int k = 0; k < nd; k++)
			v = v * 10 + (digits[k] - '0');
		for (int64_t k = 0; k < shift; k++)
			v *= 10;
	}
	else
	{
		int64_t		keep = nd + shift;	/* digits kept before rounding */

		if (keep > precision)
		{
			*overflow = true;
			return true;
		}
		for (int64_t k = 0; k < keep; k++)
			v = v * 10 + (digits[k] - '0');
		if (keep >= 0 && keep < nd && digits[keep] >= '5')
			v += 1;				/* HALF_UP */
		if (v >= limit)
		{
			*overflow = true;
			return true;
		}
	}
	*out = neg ? -v : v;
	return true;
}

/* days since 1970-01-01 of a proleptic Gregorian date */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		era;
	int64_t		yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int64_t y, int m)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dm[m - 1];
}

/* up to maxd digits, at least 1; advances *i */
static bool
digits(const char *s, size_t len, size_t *i, int maxd, int64_t *out)
{
	int			n = 0;
	int64_t		v = 0;

	while (*i < len && n < maxd && s[*i] >= '0' && s[*i] <= '9')
	{
		v = v * 10 + (s[*i] - '0');
		(*i)++;
		n++;
	}
	*out = v;
	return n > 0;
}

static bool
parse_date_part(const char *s, size_t len, size_t *i, int64_t *days)
{
	int64_t		y,
				m,
				d;

	if (!digits(s, len, i, 4, &y) || *i >= len || s[*i] != '-')
		return false;
	(*i)++;
	if (!digits(s, len, i, 2, &m) || *i >= len || s[*i] != '-')
		return false;
	(*i)++;
	if (!digits(s, len, i, 2, &d))
		return false;
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (int) m))
		return false;
	*days = days_from_civil(y, (int) m, (int) d);
	return true;
}

/* H:m[:s[.f]] -> nanos of day */
static bool
parse_time_part(const char *s, size_t len, size_t *i, int64_t *nanos)
{
	int64_t		h,
				mi,
				sec = 0,
				frac = 0;
	int			fd = 0;

	if (!digits(s, len, i, 2, &h) || *i >= len || s[*i] != ':')
		return false;
	(*i)++;
	if (!digits(s, len, i, 2, &mi))
		return false;
	if (*i < len && s[*i] == ':')
	{
		(*i)++;
		if (!digits(s, len, i, 2, &sec))
			return false;
		if (*i < len && s[*i] == '.')
		{
			(*i)++;
			while (*i < len && s[*i] >= '0' && s[*i] <= '9')
			{
				if (fd < 9)
				{
					frac = frac * 10 + (s[*i] - '0');
					fd++;
				}
				(*i)++;
			}
			if (fd == 0)
				return false;
		}
	}
	if (h > 23 || mi > 59 || sec > 59)
		return false;
	while (fd < 9)
	{
		frac *= 10;
		fd++;
	}
	*nanos = ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
	return true;
}

static int64_t
truncate_nanos(int64_t nanos, int precision)
{
	int64_t		unit = 1;

	if (precision < 0)
		precision = 6;
	for (int k = precision; k < 9; k++)
		unit *= 10;
	return nanos - nanos % unit;
}

static bool
parse_timestamp(const char *s, size_t len, int precision, bool ltz, int64_t *millis, int32_t *nanos)
{
	size_t		i = 0;
	int64_t		days,
				tn = 0,
				offset_min = 0;

	if (!parse_date_part(s, len, &i, &days))
		return false;
	if (i < len && (s[i] == ' ' || s[i] == 'T'))
	{
		i++;
		if (!parse_time_part(s, len, &i, &tn))
			return false;
	}
	if (i < len && ltz)
	{
		if (s[i] == 'Z' && i + 1 == len)
			i++;
		else if (s[i] == '+' || s[i] == '-')
		{
			int			sign = s[i] == '-' ? -1 : 1;
			int64_t		oh,
						om = 0;

			i++;
			if (!digits(s, len, &i, 2, &oh))
				return false;
			if (i < len && s[i] == ':')
				i++;
			if (i < len && !digits(s, len, &i, 2, &om))
				return false;
			if (oh > 18 || om > 59)
				return false;
			offset_min = sign * (oh * 60 + om);
		}
	}
	if (i != len)
		return false;
	tn = truncate_nanos(tn, precision);
	*millis = days * 86400000LL + tn / 1000000 - offset_min * 60000;
	*nanos = (int32_t) (tn % 1000000);
	return true;
}

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool
ts_base64_decode(const char *s, size_t len, uint8_t *dst, size_t *dst_len)
{
	uint32_t	acc = 0;
	int			bits = 0,
				n = 0;
	size_t		o = 0;
	size_t		pad = 0;

	while (len > 0 && s[len - 1] == '=' && pad < 2)
	{
		len--;
		pad++;
	}
	for (size_t i = 0; i < len; i++)
	{
		int			v = b64val((unsigned char) s[i]);

		if (v < 0)
			return false;
		acc = (acc << 6) | (uint32_t) v;
		bits += 6;
		n++;
		if (bits >= 8)
		{
			bits -= 8;
			dst[o++] = (uint8_t) (acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (n % 4 == 1)
		return false;
	if (pad && (n + pad) % 4 != 0)
		return false;
	*dst_len = o;
	return true;
}

bool
ts_text_parse_value(const char *s, size_t len, const ts_type *t,
					ts_text_flavor flavor, ts_arena *arena,
					ts_value *out, ts_err *err)
{
	const char *os = s;
	size_t		olen = len;
	int64_t		iv;

	memset(out, 0, sizeof(*out));
	if (t->kind != TS_CHAR && t->kind != TS_VARCHAR &&
		!(flavor == TS_TEXT_CSV && t->kind >= TS_TINYINT && t->kind <= TS_BIGINT))
		trim(&s, &len);
	switch (t->kind)
	{
		case TS_BOOLEAN:
			if (flavor == TS_TEXT_CSV)
			{
				out->v.i = (len == 4 && strncasecmp(s, "true", 4) == 0);
				return true;
			}
			{
				static const char *const yes[] = {"t", "true", "y", "yes", "1"};
				static const char *const no[] = {"f", "false", "n", "no", "0"};

				for (int k = 0; k < 5; k++)
				{
					if (len == strlen(yes[k]) && strncasecmp(s, yes[k], len) == 0)
					{
						out->v.i = 1;
						return true;
					}
					if (len == strlen(no[k]) && strncasecmp(s, no[k], len) == 0)
					{
						out->v.i = 0;
						return true;
					}
				}
			}
			return malformed(err, t, os, olen);
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			{
				int64_t		lo = t->kind == TS_TINYINT ? INT8_MIN : t->kind == TS_SMALLINT ? INT16_MIN :
					t->kind == TS_INT ? INT32_MIN : INT64_MIN;
				int64_t		hi = t->kind == TS_TINYINT ? INT8_MAX : t->kind == TS_SMALLINT ? INT16_MAX :
					t->kind == TS_INT ? INT32_MAX : INT64_MAX;

				if (!parse_int(s, len, lo, hi, flavor == TS_TEXT_CAST, &iv))
					return malformed(err, t, os, olen);
				out->v.i = iv;
				return true;
			}
		case TS_FLOAT:
		case TS_DOUBLE:
			{
				double		d;

				if (!parse_double(s, len, t->kind == TS_FLOAT, &d))
					return malformed(err, t, os, olen);
				if (t->kind == TS_FLOAT)
					out->v.f = (float) d;
				else
					out->v.d = d;
				return true;
			}
		case TS_DECIMAL:
			{
				bool		overflow;

				if (!parse_decimal(s, len, t->precision, t->scale, &out->v.dec, &overflow))
					return malformed(err, t, os, olen);
				if (overflow)
					out->isnull = true;
				return true;
			}
		case TS_CHAR:
		case TS_VARCHAR:
			if (len > UINT32_MAX)
				return ts_error(err, TS_ERR_CORRUPT, "string value too long");
			if (arena)
			{
				uint8_t    *p = ts_arena_alloc(arena, len + 1);

				if (p == NULL)
					return ts_error(err, TS_ERR_NOMEM, "out of memory");
				memcpy(p, s, len);
				p[len] = '\0';
				out->v.s.p = p;
			}
			else
				out->v.s.p = (const uint8_t *) s;
			out->v.s.len = (uint32_t) len;
			return true;
		case TS_BINARY:
		case TS_VARBINARY:
			{
				uint8_t    *p;
				size_t		n;

				if (arena == NULL)
					return ts_error(err, TS_ERR_INVALID, "binary value needs an arena");
				p = ts_arena_alloc(arena, len / 4 * 3 + 3);
				if (p == NULL)
					return ts_error(err, TS_ERR_NOMEM, "out of memory");
				if (!ts_base64_decode(s, len, p, &n))
					return malformed(err, t, os, olen);
				out->v.s.p = p;
				out->v.s.len = (uint32_t) n;
				return true;
			}
		case TS_DATE:
			{
				size_t		i = 0;
				int64_t		days;

				if (!parse_date_part(s, len, &i, &days) ||
					(i < len && s[i] != ' ' && s[i] != 'T'))
					return malformed(err, t, os, olen);
				out->v.i = days;
				return true;
			}
		case TS_TIME:
			{
				size_t		i = 0;
				int64_t		nanos;

				if (!parse_time_part(s, len, &i, &nanos) || i != len)
					return malformed(err, t, os, olen);
				out->v.i = truncate_nanos(nanos, t->precision > 3 ? 3 : t->precision) / 1000000;
				return true;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (!parse_timestamp(s, len, t->precision, t->kind == TS_TIMESTAMP_LTZ,
								 &out->v.ts.millis, &out->v.ts.nanos))
				return malformed(err, t, os, olen);
			return true;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "type %s cannot be read from text",
							ts_type_kind_name(t->kind));
	}
}
