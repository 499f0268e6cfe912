/*
 * text_value.c - parse the text spelling of a Paimon value (see
 * text_value.h for the accepted forms).
 *
 * Owns: which forms the CSV and CAST flavours accept for each type, and
 * the float, boolean, time zone offset and base64 parsing; the integer,
 * decimal, date and time scanners are base/text_scan.c's.  Never reads
 * past len; never allocates more than the input length (plus one).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/text/text_value.h"
#include "base/ts_text_scan.h"

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

/* The text forms of the CSV/JSON flavours (see text_value.h). */
static const ts_date_syntax text_date = {false, 4, 0};
static const ts_time_syntax text_time = {1, false};

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
				tn,
				offset_min = 0;

	if (!ts_scan_date_time(s, len, &i, &text_date, &text_time, true, &days, &tn))
		return false;
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
			if (!ts_scan_digits(s, len, &i, 1, 2, &oh))
				return false;
			if (i < len && s[i] == ':')
				i++;
			if (i < len && !ts_scan_digits(s, len, &i, 1, 2, &om))
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

				if (!ts_scan_int(s, len, lo, hi,
								 flavor == TS_TEXT_CAST ? TS_INT_DROP_FRACTION : TS_INT_NO_FRACTION,
								 &iv))
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
				/*
				 * exponent within +-10^6; more digits than fit is an error
				 * (TS_ERR_RANGE), not Paimon's cast-to-NULL: a CSV reader
				 * applies its mode to it like to any malformed field
				 */
				int			r = ts_scan_decimal(s, len, t->precision, t->scale, 1000000,
												&out->v.dec);
				int			show = olen > 64 ? 64 : (int) olen;

				if (r < 0)
					return malformed(err, t, os, olen);
				if (r == 0)
					return ts_error(err, TS_ERR_RANGE, "value \"%.*s%s\" is out of range for DECIMAL(%d, %d)",
									show, os, olen > 64 ? "..." : "", t->precision, t->scale);
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
					return ts_error_nomem(err, NULL);
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
					return ts_error_nomem(err, NULL);
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

				if (!ts_scan_date(s, len, &i, &text_date, &days) ||
					(i < len && s[i] != ' ' && s[i] != 'T'))
					return malformed(err, t, os, olen);
				out->v.i = days;
				return true;
			}
		case TS_TIME:
			{
				size_t		i = 0;
				int64_t		nanos;

				if (!ts_scan_time(s, len, &i, &text_time, &nanos) || i != len)
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
