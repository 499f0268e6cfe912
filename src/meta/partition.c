/*
 * partition.c - partition values as text: Java's partition path string,
 * parsing partition_filter values, display rendering (see partition.h).
 *
 * Sources of the rules: InternalRowPartitionComputer (legacy toString vs
 * cast-to-string), PartitionPathUtils (escaping), StringUtils
 * (isNullOrWhitespaceOnly), java.time LocalDate/LocalDateTime.toString,
 * DateTimeUtils.formatTimestamp.
 */
#include "base/ts_type_class.h"
#include "meta/partition.h"
#include "meta/core_options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* java.time.LocalDate.toString */
static bool
append_local_date(ts_buf *b, int64_t days)
{
	int64_t		y;
	int			m,
				d;

	ts_civil_from_days(days, &y, &m, &d);
	if (y > 9999)
		return ts_buf_printf(b, NULL, "+%lld-%02d-%02d", (long long) y, m, d);
	if (y < 0)
		return ts_buf_printf(b, NULL, "-%04lld-%02d-%02d", (long long) -y, m, d);
	return ts_buf_printf(b, NULL, "%04lld-%02d-%02d", (long long) y, m, d);
}

static void
split_timestamp(int64_t millis, int32_t nanos, int64_t *days, int *secs_of_day, int32_t *nano_of_sec)
{
	int64_t		ms_of_day;

	*days = ts_floor_div(millis, 86400000);
	ms_of_day = millis - *days * 86400000;
	*secs_of_day = (int) (ms_of_day / 1000);
	*nano_of_sec = (int32_t) ((ms_of_day % 1000) * 1000000 + nanos);
}

/* java.time.LocalDateTime.toString */
static bool
append_local_datetime(ts_buf *b, int64_t millis, int32_t nanos)
{
	int64_t		days;
	int			s;
	int32_t		ns;

	split_timestamp(millis, nanos, &days, &s, &ns);
	if (!append_local_date(b, days) ||
		!ts_buf_printf(b, NULL, "T%02d:%02d", s / 3600, (s / 60) % 60))
		return false;
	if (s % 60 > 0 || ns > 0)
	{
		if (!ts_buf_printf(b, NULL, ":%02d", s % 60))
			return false;
		if (ns > 0)
		{
			if (ns % 1000000 == 0)
				return ts_buf_printf(b, NULL, ".%03d", (int) (ns / 1000000));
			if (ns % 1000 == 0)
				return ts_buf_printf(b, NULL, ".%06d", (int) (ns / 1000));
			return ts_buf_printf(b, NULL, ".%09d", (int) ns);
		}
	}
	return true;
}

/* DateTimeUtils.formatTimestamp(ts, precision): "yyyy-MM-dd HH:mm:ss[.f]" */
static bool
append_sql_timestamp(ts_buf *b, int64_t millis, int32_t nanos, int precision)
{
	int64_t		days;
	int			s;
	int32_t		ns;
	char		frac[16];
	int			flen;

	split_timestamp(millis, nanos, &days, &s, &ns);
	if (!append_local_date(b, days) ||
		!ts_buf_printf(b, NULL, " %02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60))
		return false;
	snprintf(frac, sizeof(frac), "%09d", (int) ns);
	flen = 9;
	while (flen > precision && frac[flen - 1] == '0')
		flen--;
	if (flen > 0)
		return ts_buf_printf(b, NULL, ".%.*s", flen, frac);
	return true;
}

/* ---- (a) path strings ------------------------------------------------ */

bool
ts_partition_options_from_schema(const ts_schema *s, ts_partition_options *opts, ts_err *err)
{
	const char *v = s ? ts_schema_option(s, TS_OPT_PARTITION_LEGACY_NAME) : NULL;
	const char *d = s ? ts_schema_option(s, TS_OPT_PARTITION_DEFAULT_NAME) : NULL;

	opts->legacy_name = true;
	opts->default_name = d ? d : TS_DEFAULT_PARTITION_NAME;
	if (v != NULL)
	{
		if (strcasecmp(v, "true") == 0)
			opts->legacy_name = true;
		else if (strcasecmp(v, "false") == 0)
			opts->legacy_name = false;
		else
			return ts_error(err, TS_ERR_INVALID,
							"option \"partition.legacy-name\" must be true or false, not \"%s\"", v);
	}
	return true;
}

static bool
buf_finish(ts_buf *b, char **out, ts_err *err)
{
	if (!ts_buf_append(b, "", 1, err))
	{
		ts_buf_free(b);
		return false;
	}
	*out = (char *) b->data;
	return true;
}

bool
ts_partition_value_string(const ts_value *v, const ts_type *t, bool legacy_name,
						  char **out, ts_err *err)
{
	ts_buf		b;
	bool		ok;

	*out = NULL;
	if (v->isnull)
		return true;
	ts_buf_init(&b);
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
			ok = ts_buf_append(&b, v->v.s.p, v->v.s.len, err);
			break;
		case TS_BINARY:
		case TS_VARBINARY:
			if (legacy_name)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"partition paths of %s partition keys with partition.legacy-name=true are not reproducible",
								ts_type_kind_name(t->kind));
			ok = ts_buf_append(&b, v->v.s.p, v->v.s.len, err);
			break;
		case TS_BOOLEAN:
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_FLOAT:
		case TS_DOUBLE:
		case TS_DECIMAL:
			{
				char	   *s = ts_value_to_string(v, t);

				if (s == NULL)
					return ts_error_nomem(err, NULL);
				*out = s;
				return true;
			}
		case TS_DATE:
			if (legacy_name)
				ok = ts_buf_printf(&b, err, "%lld", (long long) v->v.i);
			else
				ok = append_local_date(&b, v->v.i);
			break;
		case TS_TIME:
			if (legacy_name)
				ok = ts_buf_printf(&b, err, "%lld", (long long) v->v.i);
			else
			{
				int64_t		ms = v->v.i;
				int			p = t->precision > 3 ? 3 : t->precision;

				ok = ts_buf_printf(&b, err, "%02d:%02d:%02d", (int) (ms / 3600000),
								   (int) ((ms / 60000) % 60), (int) ((ms / 1000) % 60));
				if (ok && p > 0)
				{
					char		digits[8];

					snprintf(digits, sizeof(digits), "%03d", (int) (ms % 1000));
					ok = ts_buf_printf(&b, err, ".%.*s", p, digits);
				}
			}
			break;
		case TS_TIMESTAMP:
			if (legacy_name)
				ok = append_local_datetime(&b, v->v.ts.millis, v->v.ts.nanos);
			else
				ok = append_sql_timestamp(&b, v->v.ts.millis, v->v.ts.nanos, t->precision);
			break;
		case TS_TIMESTAMP_LTZ:
			if (!legacy_name)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"partition paths of TIMESTAMP WITH LOCAL TIME ZONE keys with partition.legacy-name=false depend on the writer's time zone");
			ok = append_local_datetime(&b, v->v.ts.millis, v->v.ts.nanos);
			break;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "%s partition keys are not supported",
							ts_type_kind_name(t->kind));
	}
	if (!ok)
	{
		ts_buf_free(&b);
		return err && err->code != TS_OK ? false : ts_error_nomem(err, NULL);
	}
	return buf_finish(&b, out, err);
}

/* Decode one UTF-8 code point; invalid bytes count as themselves. */
static uint32_t
utf8_next(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint32_t	c = p[0];
	int			n = 0;

	if (c < 0x80)
		n = 0;
	else if ((c & 0xe0) == 0xc0)
	{
		c &= 0x1f;
		n = 1;
	}
	else if ((c & 0xf0) == 0xe0)
	{
		c &= 0x0f;
		n = 2;
	}
	else if ((c & 0xf8) == 0xf0)
	{
		c &= 0x07;
		n = 3;
	}
	for (int i = 1; i <= n; i++)
	{
		if ((p[i] & 0xc0) != 0x80)
		{
			*pp = p + 1;
			return 0xfffd;
		}
		c = (c << 6) | (p[i] & 0x3f);
	}
	*pp = p + 1 + n;
	return c;
}

static bool
java_is_whitespace(uint32_t c)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))
		return true;
	/* Unicode space separators except no-break spaces, line/para sep */
	if (c == 0x1680 || (c >= 0x2000 && c <= 0x200a && c != 0x2007) ||
		c == 0x2028 || c == 0x2029 || c == 0x205f || c == 0x3000)
		return true;
	return false;
}

bool
ts_partition_is_blank(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	if (s == NULL)
		return true;
	while (*p)
		if (!java_is_whitespace(utf8_next(&p)))
			return false;
	return true;
}

char *
ts_partition_path(const char *const *keys, const ts_type *const *types,
				  const ts_value *values, int n,
				  const ts_partition_options *opts, ts_err *err)
{
	ts_buf		b;
	ts_partition_options def = {true, TS_DEFAULT_PARTITION_NAME};
	char	   *res;

	if (opts == NULL)
		opts = &def;
	ts_buf_init(&b);
	if (!ts_buf_append(&b, "", 1, err))	/* allocate even for n = 0 */
		return NULL;
	b.len = 0;
	for (int i = 0; i < n; i++)
	{
		char	   *val = NULL;
		const char *use;
		bool		ok;

		if (!ts_partition_value_string(&values[i], types[i], opts->legacy_name, &val, err))
		{
			ts_error_context(err, "partition key \"%s\"", keys[i]);
			ts_buf_free(&b);
			return NULL;
		}
		use = ts_partition_is_blank(val) ? opts->default_name : val;
		ok = ts_partition_escape_append(&b, keys[i], err) &&
			ts_buf_append(&b, "=", 1, err) &&
			ts_partition_escape_append(&b, use, err) &&
			ts_buf_append(&b, "/", 1, err);
		ts_free(val);
		if (!ok)
		{
			ts_buf_free(&b);
			ts_error_nomem(err, "building a partition path");
			return NULL;
		}
	}
	if (!buf_finish(&b, &res, err))
		return NULL;
	return res;
}

/* ---- text parsers ------------------------------------------------------ */

/* The forms of partition path values and partition_filter values. */
static const ts_date_syntax partition_date = {true, 9, 0};
static const ts_time_syntax partition_time = {2, false};

bool
ts_parse_date_text(const char *s, size_t len, int64_t *days, ts_err *err)
{
	size_t		i = 0;

	if (!ts_scan_date(s, len, &i, &partition_date, days) || i != len)
		return ts_error(err, TS_ERR_INVALID, "invalid DATE value \"%.*s\"", (int) len, s);
	return true;
}

bool
ts_parse_timestamp_text(const char *s, size_t len, int64_t *millis, int32_t *nanos, ts_err *err)
{
	size_t		i = 0,
				end = len;
	int64_t		days,
				nod;

	while (end > 0 && isspace((unsigned char) s[end - 1]))
		end--;
	while (i < end && isspace((unsigned char) s[i]))
		i++;
	if (!ts_scan_date_time(s, end, &i, &partition_date, &partition_time, true, &days, &nod))
		goto bad;
	if (i < end && s[i] == 'Z')
		i++;
	if (i != end)
		goto bad;
	if (days > 106751991167LL / 1000 || days < -106751991167LL / 1000)
		goto bad;
	*millis = days * 86400000LL + nod / 1000000;
	*nanos = (int32_t) (nod % 1000000);
	return true;
bad:
	return ts_error(err, TS_ERR_INVALID, "invalid TIMESTAMP value \"%.*s\"", (int) len, s);
}

bool
ts_parse_decimal_text(const char *s, size_t len, int precision, int scale,
					  ts_int128 *out, ts_err *err)
{
	size_t		i = 0,
				end = len;

	while (i < end && isspace((unsigned char) s[i]))
		i++;
	while (end > i && isspace((unsigned char) s[end - 1]))
		end--;
	switch (ts_scan_decimal_exact(s + i, end - i, precision, scale, out))
	{
		case 1:
			return true;
		case 0:
			return ts_error(err, TS_ERR_INVALID, "DECIMAL value \"%.*s\" does not fit DECIMAL(%d, %d)",
							(int) len, s, precision, scale);
		case -2:
			return ts_error(err, TS_ERR_INVALID,
							"DECIMAL value \"%.*s\" has more than %d fraction digits",
							(int) len, s, scale);
		default:
			return ts_error(err, TS_ERR_INVALID, "invalid DECIMAL value \"%.*s\"", (int) len, s);
	}
}

/* ---- (b) partition_filter values --------------------------------------- */

/* strtoll's form: [+-]digits between optional whitespace */
static bool
parse_int_text(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	size_t		len;

	while (isspace((unsigned char) *s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char) s[len - 1]))
		len--;
	return ts_scan_int(s, len, lo, hi, TS_INT_NO_FRACTION, out);
}

bool
ts_partition_parse_value(const char *text, const ts_type *t,
						 const ts_partition_options *opts,
						 ts_value *out, ts_arena *arena, ts_err *err)
{
	const char *defname = opts && opts->default_name ? opts->default_name : TS_DEFAULT_PARTITION_NAME;
	size_t		len;

	memset(out, 0, sizeof(ts_value));
	if (text == NULL || strcmp(text, defname) == 0)
	{
		out->isnull = true;
		return true;
	}
	len = strlen(text);
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (arena != NULL && len > 0)
			{
				void	   *c = ts_arena_dup(arena, text, len);

				if (c == NULL)
					return ts_error_nomem(err, NULL);
				out->v.s.p = c;
			}
			else
				out->v.s.p = (const uint8_t *) text;
			out->v.s.len = (uint32_t) len;
			return true;
		case TS_BOOLEAN:
			if (strcasecmp(text, "true") == 0 || strcasecmp(text, "t") == 0 ||
				strcmp(text, "1") == 0 || strcasecmp(text, "yes") == 0)
				out->v.i = 1;
			else if (strcasecmp(text, "false") == 0 || strcasecmp(text, "f") == 0 ||
					 strcmp(text, "0") == 0 || strcasecmp(text, "no") == 0)
				out->v.i = 0;
			else
				break;
			return true;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (!parse_int_text(text, INT64_MIN, INT64_MAX, &out->v.i) ||
				!ts_type_int_fits(t->kind, out->v.i))
				break;
			return true;
		case TS_FLOAT:
		case TS_DOUBLE:
			{
				char	   *end;
				double		d;

				if (strcmp(text, "NaN") == 0)
					d = NAN;
				else if (strcmp(text, "Infinity") == 0)
					d = INFINITY;
				else if (strcmp(text, "-Infinity") == 0)
					d = -INFINITY;
				else
				{
					if (len == 0 || isspace((unsigned char) text[0]))
						break;
					errno = 0;
					if (t->kind == TS_FLOAT)
						d = strtof(text, &end);
					else
						d = strtod(text, &end);
					if (*end != '\0' || isnan(d) || isinf(d))
						break;
				}
				if (t->kind == TS_FLOAT)
					out->v.f = (float) d;
				else
					out->v.d = d;
				return true;
			}
		case TS_DECIMAL:
			if (!ts_parse_decimal_text(text, len, t->precision, t->scale, &out->v.dec, err))
				return ts_error_context(err, "partition value");
			return true;
		case TS_DATE:
			{
				int64_t		days;

				if (parse_int_text(text, INT32_MIN, INT32_MAX, &days))
				{
					out->v.i = days;
					return true;
				}
				if (!ts_parse_date_text(text, len, &days, NULL) || days < INT32_MIN || days > INT32_MAX)
					break;
				out->v.i = days;
				return true;
			}
		case TS_TIME:
			{
				int64_t		v;
				size_t		i = 0;

				if (parse_int_text(text, 0, 86399999, &v))
				{
					out->v.i = v;
					return true;
				}
				if (!ts_scan_time(text, len, &i, &partition_time, &v) || i != len)
					break;
				out->v.i = v / 1000000;
				return true;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (!ts_parse_timestamp_text(text, len, &out->v.ts.millis, &out->v.ts.nanos, NULL))
				break;
			return true;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "%s partition keys are not supported",
							ts_type_kind_name(t->kind));
	}
	return ts_error(err, TS_ERR_INVALID, "invalid %s partition value \"%s\"",
					ts_type_kind_name(t->kind), text);
}

/* ---- (c) display --------------------------------------------------------- */

bool
ts_partition_value_display(const ts_value *v, const ts_type *t, char **out, ts_err *err)
{
	ts_buf		b;
	bool		ok;

	*out = NULL;
	if (v->isnull)
		return true;
	ts_buf_init(&b);
	switch (t->kind)
	{
		case TS_DATE:
			ok = append_local_date(&b, v->v.i);
			break;
		case TS_TIMESTAMP:
			ok = append_sql_timestamp(&b, v->v.ts.millis, v->v.ts.nanos, 0);
			break;
		case TS_TIMESTAMP_LTZ:
			ok = append_sql_timestamp(&b, v->v.ts.millis, v->v.ts.nanos, 0) &&
				ts_buf_printf(&b, NULL, "+00");
			break;
		default:
			{
				char	   *s = ts_value_to_string(v, t);

				if (s == NULL)
					return ts_error_nomem(err, NULL);
				*out = s;
				return true;
			}
	}
	if (!ok)
	{
		ts_buf_free(&b);
		return ts_error_nomem(err, NULL);
	}
	return buf_finish(&b, out, err);
}
