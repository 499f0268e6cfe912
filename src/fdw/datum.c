/*
 * datum.c - Paimon values to PostgreSQL Datums: the rows of a scan.
 *
 * Owns: the conversion of ts_values into Datums of the column's declared
 * type (which types may hold which: types.c): one value, or a column of a
 * batch at a time.  Decimals stay exact (no float round trip);
 * timestamps with more than microsecond precision are rounded to the
 * nearest microsecond, as PostgreSQL's own input does.  Paimon strings are
 * UTF-8: text is checked (UTF8 database) or converted (any other encoding)
 * before PostgreSQL sees it, so a damaged string is an ERROR, never an
 * invalid text value.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "tablescan_fdw.h"
#include "base/ts_type_class.h"

/*
 * ASCII without NUL is the usual string and the cheap one to accept: the
 * high bit of a byte of ascii_bits(w) is set when that byte of w is not
 * ASCII or is NUL (the borrow of the zero-byte test can also flag the byte
 * above a NUL or a non-ASCII byte, which is already refused).
 */
#define ONE_BYTES UINT64CONST(0x0101010101010101)
#define HIGH_BITS UINT64CONST(0x8080808080808080)

static inline uint64
ascii_bits(uint64 w)
{
	return w | ((w - ONE_BYTES) & ~w);
}

/*
 * Valid UTF-8 text (UTF8 database): ASCII without NUL, eight bytes at a time,
 * else PostgreSQL's own check.
 */
static inline bool
utf8_text_ok(const char *p, uint32 len)
{
	uint64		bad = 0;
	uint32		i = 0;

	for (; i + 8 <= len; i += 8)
	{
		uint64		w;

		memcpy(&w, p + i, 8);
		bad |= ascii_bits(w);
	}
	for (; i < len; i++)
		bad |= (unsigned char) p[i] == 0 ? 0x80 : (unsigned char) p[i];
	if ((bad & HIGH_BITS) == 0)
		return true;
	return pg_verifymbstr(p, (int) len, true);
}

/*
 * A Paimon string (UTF-8) as text of the database encoding: p itself when it
 * is valid UTF-8 in a UTF8 database, else converted; an ERROR naming the
 * column when the bytes are not UTF-8 (or hold a NUL, which text cannot).
 */
static const char *
server_text(const char *p, int *len, const char *colname)
{
	if (GetDatabaseEncoding() != PG_UTF8)
	{
		const char *s = pg_any_to_server(p, *len, PG_UTF8);

		if (s != p)
			*len = strlen(s);
		return s;
	}
	if (!utf8_text_ok(p, (uint32) *len))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("column \"%s\": a string value read is not valid UTF-8", colname),
				 errdetail("Paimon strings are UTF-8 without NUL bytes; the data file is damaged, or holds binary data (declare the column bytea).")));
	return p;
}

static Datum
server_text_datum(const char *p, int len, const char *colname)
{
	p = server_text(p, &len, colname);
	return PointerGetDatum(cstring_to_text_with_len(p, len));
}

/* days between 1970-01-01 and 2000-01-01 */
#define UNIX_TO_PG_DAYS (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define UNIX_TO_PG_MICROS ((int64) UNIX_TO_PG_DAYS * USECS_PER_DAY)

/* ---- numbers ---------------------------------------------------------- */

/*
 * Decimal digits of |unscaled| into out (most significant first), at least
 * scale + 1 of them (leading zeros added); returns how many.  out must hold
 * 80 bytes.  64-bit arithmetic when the value fits (the common case).
 */
static int
decimal_digits(ts_int128 unscaled, int scale, bool *neg, char *out)
{
	char		rev[80];
	int			n = 0;
	unsigned __int128 u;

	*neg = unscaled < 0;
	u = *neg ? -(unsigned __int128) unscaled : (unsigned __int128) unscaled;
	while (u > UINT64_MAX)
	{
		rev[n++] = '0' + (int) (u % 10);
		u /= 10;
	}
	{
		uint64		w = (uint64) u;

		do
		{
			rev[n++] = '0' + (int) (w % 10);
			w /= 10;
		} while (w != 0);
	}
	while (n <= scale && n < (int) sizeof(rev))
		rev[n++] = '0';
	for (int i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	return n;
}

static char *
int128_to_decimal_string(ts_int128 unscaled, int scale)
{
	char		digits[80];
	bool		neg;
	int			n = decimal_digits(unscaled, scale, &neg, digits);
	char	   *out = palloc(n + 3);
	char	   *p = out;
	int			intlen = n - scale;

	if (neg)
		*p++ = '-';
	memcpy(p, digits, intlen);
	p += intlen;
	if (scale > 0)
	{
		*p++ = '.';
		memcpy(p, digits + intlen, scale);
		p += scale;
	}
	*p = '\0';
	return out;
}

/*
 * The numeric Datum of a decimal, built without text parsing: the value's
 * base-10000 digits in numeric's binary wire format, through numeric_recv
 * (which checks them, applies the typmod exactly as numeric_in would, and
 * builds the Numeric).  Same result as numeric_in of the text form.
 */
static Datum
decimal_datum(const ts_value *v, const ts_type *t, int32 typmod)
{
	char		digits[80];
	bool		neg;
	int			scale = t->scale;
	int			n;
	int			intlen;
	int			intgroups;
	int			fracgroups;
	int			ngroups;
	int16		groups[48];
	char		wire[8 + 2 * 48];
	StringInfoData buf;
	int			k = 0;

	if (scale < 0 || scale > 38)
	{
		/* not a Paimon decimal scale: the text path reports it */
		char	   *s = int128_to_decimal_string(v->v.dec, scale);

		return DirectFunctionCall3(numeric_in, CStringGetDatum(s),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(typmod));
	}
	n = decimal_digits(v->v.dec, scale, &neg, digits);
	intlen = n - scale;
	intgroups = (intlen + 3) / 4;
	fracgroups = (scale + 3) / 4;
	ngroups = intgroups + fracgroups;
	/* integer part: groups aligned on the decimal point, from the left */
	for (int g = 0; g < intgroups; g++)
	{
		int			hi = intlen - 4 * (intgroups - 1 - g);	/* end of group */
		int			lo = hi - 4;
		int			d = 0;

		for (int i = lo < 0 ? 0 : lo; i < hi; i++)
			d = d * 10 + (digits[i] - '0');
		groups[k++] = (int16) d;
	}
	/* fraction: groups from the decimal point, zero-padded on the right */
	for (int g = 0; g < fracgroups; g++)
	{
		int			d = 0;

		for (int i = 0; i < 4; i++)
		{
			int			pos = intlen + 4 * g + i;

			d = d * 10 + (pos < n ? digits[pos] - '0' : 0);
		}
		groups[k++] = (int16) d;
	}
	{
		uint8	   *w = (uint8 *) wire;
		uint16		hdr[4];

		hdr[0] = (uint16) ngroups;
		hdr[1] = (uint16) (int16) (intgroups - 1);	/* weight */
		hdr[2] = neg ? 0x4000 : 0x0000; /* NUMERIC_NEG / NUMERIC_POS */
		hdr[3] = (uint16) scale;	/* dscale */
		for (int i = 0; i < 4; i++)
		{
			*w++ = (uint8) (hdr[i] >> 8);
			*w++ = (uint8) hdr[i];
		}
		for (int i = 0; i < ngroups; i++)
		{
			*w++ = (uint8) ((uint16) groups[i] >> 8);
			*w++ = (uint8) groups[i];
		}
		buf.data = wire;
		buf.len = (int) (w - (uint8 *) wire);
		buf.maxlen = buf.len;
		buf.cursor = 0;
	}
	return DirectFunctionCall3(numeric_recv, PointerGetDatum(&buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(typmod));
}

/*
 * The numeric Datum of a decimal whose unscaled value fits int64: the
 * number unscaled / 10^scale with display scale 'scale', exactly what
 * numeric_recv builds from the same digits when the typmod keeps the scale
 * (see numeric_limit in tablescan_datum_converter_init).
 */
static inline Datum
decimal_datum_int64(int64 unscaled, int scale)
{
	return NumericGetDatum(int64_div_fast_to_numeric(unscaled, scale));
}

static int64
timestamp_micros(const ts_value *v)
{
	/* round nanos to micros, half up */
	int64		micros = (int64) ((v->v.ts.nanos + 500) / 1000);

	return v->v.ts.millis * 1000 + micros - UNIX_TO_PG_MICROS;
}

/*
 * Copy a string's bytes into a text being built and check them on the way
 * (one pass over the bytes, not two): true when they are valid UTF-8 for a
 * text.  Short strings (most column values) move in 16-, 8- or 4-byte words
 * without a call, never reading outside [src, src + len) or writing outside
 * [dst, dst + len): the last word overlaps the one before.
 */
#define MOVE_WORD(type, off) \
	do { \
		type		w_; \
		memcpy(&w_, src + (off), sizeof(type)); \
		memcpy(dst + (off), &w_, sizeof(type)); \
		word = (sizeof(type) == 8) ? (uint64) w_ : (word << 32) | (uint64) w_; \
	} while (0)

static inline bool
copy_text_checked(char *dst, const uint8_t *src, uint32 len)
{
	uint64		bad = 0;
	uint64		word = 0;

	if (len >= 8)
	{
		uint32		i;

		for (i = 0; i + 8 < len; i += 8)
		{
			MOVE_WORD(uint64, i);
			bad |= ascii_bits(word);
		}
		MOVE_WORD(uint64, len - 8);
		bad |= ascii_bits(word);
	}
	else if (len >= 4)
	{
		MOVE_WORD(uint32, 0);
		MOVE_WORD(uint32, len - 4);
		bad = ascii_bits(word);
	}
	else if (len > 0)
	{
		uint8_t		a = src[0],
					m = src[len >> 1],
					z = src[len - 1];

		dst[0] = (char) a;
		dst[len >> 1] = (char) m;
		dst[len - 1] = (char) z;
		/* the other five bytes 0x01: neither NUL nor beyond ASCII */
		bad = ascii_bits(UINT64CONST(0x0101010101000000) | a | (uint64) m << 8 | (uint64) z << 16);
	}
	if ((bad & HIGH_BITS) == 0)
		return true;
	return pg_verifymbstr((const char *) src, (int) len, true);
}

#undef MOVE_WORD

static void
overflow(const char *colname, const char *pgtype)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value of column \"%s\" is out of range for type %s", colname, pgtype)));
}

/*
 * A value longer than char(n) / varchar(n) (beyond trailing blanks) is an
 * error naming the column, as COPY reports it: never cut silently.
 */
static void
check_char_length(Datum d, Oid typid, int32 typmod, const char *colname)
{
	text	   *t = DatumGetTextPP(d);
	const char *s = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	int			maxlen = typmod - VARHDRSZ;
	int			keep;

	if (maxlen < 0 || len <= maxlen)
		return;
	keep = pg_mbcharcliplen(s, len, maxlen);
	for (int i = keep; i < len; i++)
		if (s[i] != ' ')
			ereport(ERROR,
					(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
					 errmsg("value too long for type %s", format_type_with_typemod(typid, typmod)),
					 errdetail("Column \"%s\" holds a value of %d characters.", colname,
							   pg_mbstrlen_with_len(s, len))));
}

/* ---- JSON rendering (jsonb columns and text fallback) ------------------ */

static void
json_string(StringInfo buf, const char *p, size_t len)
{
	char	   *s = pnstrdup(p, len);

	escape_json(buf, s);
	pfree(s);
}

static void
append_timestamp_iso(StringInfo buf, const ts_value *v, bool ltz)
{
	Timestamp	ts = timestamp_micros(v);
	struct pg_tm tm;
	fsec_t		fsec;

	if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
	{
		appendStringInfoString(buf, "null");
		return;
	}
	appendStringInfo(buf, "\"%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year, tm.tm_mon, tm.tm_mday,
					 tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (fsec)
		appendStringInfo(buf, ".%06d", (int) fsec);
	appendStringInfoString(buf, ltz ? "Z\"" : "\"");
}

void
tablescan_value_to_json(StringInfo buf, const ts_value *v, const ts_type *t)
{
	if (v->isnull)
	{
		appendStringInfoString(buf, "null");
		return;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			appendStringInfoString(buf, v->v.i ? "true" : "false");
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			appendStringInfo(buf, INT64_FORMAT, (int64) v->v.i);
			break;
		case TS_FLOAT:
			if (isnan(v->v.f) || isinf(v->v.f))
				appendStringInfo(buf, "\"%s\"", isnan(v->v.f) ? "NaN" : (v->v.f > 0 ? "Infinity" : "-Infinity"));
			else
				appendStringInfoString(buf, DatumGetCString(DirectFunctionCall1(float4out, Float4GetDatum(v->v.f))));
			break;
		case TS_DOUBLE:
			if (isnan(v->v.d) || isinf(v->v.d))
				appendStringInfo(buf, "\"%s\"", isnan(v->v.d) ? "NaN" : (v->v.d > 0 ? "Infinity" : "-Infinity"));
			else
				appendStringInfoString(buf, float8out_internal(v->v.d));
			break;
		case TS_DECIMAL:
			appendStringInfoString(buf, int128_to_decimal_string(v->v.dec, t->scale));
			break;
		case TS_CHAR:
		case TS_VARCHAR:
			json_string(buf, (const char *) v->v.s.p, v->v.s.len);
			break;
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			{
				static const char hex[] = "0123456789abcdef";

				appendStringInfoString(buf, "\"\\\\x");
				for (uint32 i = 0; i < v->v.s.len; i++)
				{
					appendStringInfoChar(buf, hex[v->v.s.p[i] >> 4]);
					appendStringInfoChar(buf, hex[v->v.s.p[i] & 15]);
				}
				appendStringInfoChar(buf, '"');
			}
			break;
		case TS_DATE:
			{
				/* ISO yyyy-mm-dd whatever the DateStyle */
				int			y,
							m,
							d;

				j2date((int) (v->v.i + UNIX_EPOCH_JDATE), &y, &m, &d);
				if (y <= 0)
					appendStringInfo(buf, "\"%04d-%02d-%02d BC\"", 1 - y, m, d);
				else
					appendStringInfo(buf, "\"%04d-%02d-%02d\"", y, m, d);
			}
			break;
		case TS_TIME:
			{
				char	   *s = DatumGetCString(DirectFunctionCall1(time_out,
																	TimeADTGetDatum((TimeADT) v->v.i * 1000)));

				appendStringInfo(buf, "\"%s\"", s);
			}
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			append_timestamp_iso(buf, v, t->kind == TS_TIMESTAMP_LTZ);
			break;
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_VECTOR:
			appendStringInfoChar(buf, '[');
			for (int i = 0; i < v->v.nested.n; i++)
			{
				if (i)
					appendStringInfoChar(buf, ',');
				tablescan_value_to_json(buf, &v->v.nested.items[i], t->element);
			}
			appendStringInfoChar(buf, ']');
			break;
		case TS_MAP:
			appendStringInfoChar(buf, '[');
			for (int i = 0; i < v->v.nested.n; i++)
			{
				if (i)
					appendStringInfoChar(buf, ',');
				appendStringInfoChar(buf, '[');
				tablescan_value_to_json(buf, &v->v.nested.items[2 * i], t->key);
				appendStringInfoChar(buf, ',');
				tablescan_value_to_json(buf, &v->v.nested.items[2 * i + 1], t->value);
				appendStringInfoChar(buf, ']');
			}
			appendStringInfoChar(buf, ']');
			break;
		case TS_ROW:
			appendStringInfoChar(buf, '{');
			for (int i = 0; i < t->nfields && i < v->v.nested.n; i++)
			{
				if (i)
					appendStringInfoChar(buf, ',');
				escape_json(buf, t->fields[i].name);
				appendStringInfoChar(buf, ':');
				tablescan_value_to_json(buf, &v->v.nested.items[i], t->fields[i].type);
			}
			appendStringInfoChar(buf, '}');
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("Paimon type %s is not supported yet", ts_type_kind_name(t->kind))));
	}
}

/* Text form of a value, for text columns declared over any Paimon type. */
static char *
value_to_text(const ts_value *v, const ts_type *t)
{
	StringInfoData buf;

	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return pnstrdup((const char *) v->v.s.p, v->v.s.len);
		case TS_DECIMAL:
			return int128_to_decimal_string(v->v.dec, t->scale);
		default:
			break;
	}
	initStringInfo(&buf);
	tablescan_value_to_json(&buf, v, t);
	/* strip quotes of scalar JSON strings */
	if (!ts_type_is_nested(t->kind) && buf.len >= 2 && buf.data[0] == '"')
	{
		buf.data[buf.len - 1] = '\0';
		return pstrdup(buf.data + 1);
	}
	return buf.data;
}

static Datum
array_datum(const ts_value *v, const ts_type *t, Oid typid, const char *colname)
{
	Oid			elemtype = get_element_type(typid);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			n = v->v.nested.n;
	Datum	   *elems;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};

	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" is a Paimon %s but its PostgreSQL type is not an array",
						colname, ts_type_kind_name(t->kind))));
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	elems = palloc(sizeof(Datum) * Max(n, 1));
	nulls = palloc(sizeof(bool) * Max(n, 1));
	for (int i = 0; i < n; i++)
		elems[i] = tablescan_value_to_datum(&v->v.nested.items[i], t->element, elemtype, -1,
											colname, &nulls[i]);
	dims[0] = n;
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, elemtype,
											  typlen, typbyval, typalign));
}

void
tablescan_datum_converter_init(TsDatumConverter *c, const ts_type *t, Oid typid, int32 typmod,
							   const char *colname)
{
	memset(c, 0, sizeof(*c));
	c->path = TS_DATUM_GENERIC;
	c->type = t;
	c->typid = typid;
	c->typmod = typmod;
	c->colname = colname;
	switch (typid)
	{
		case BOOLOID:
			if (t->kind == TS_BOOLEAN)
				c->path = TS_DATUM_BOOL;
			break;
		case INT4OID:
			if (ts_type_is_integer(t->kind))
				c->path = TS_DATUM_INT4;
			break;
		case INT8OID:
			if (ts_type_is_integer(t->kind))
				c->path = TS_DATUM_INT8;
			break;
		case FLOAT8OID:
			if (t->kind == TS_DOUBLE)
				c->path = TS_DATUM_FLOAT8;
			break;
		case DATEOID:
			if (t->kind == TS_DATE)
				c->path = TS_DATUM_DATE;
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
			{
				c->path = TS_DATUM_TIMESTAMP;
				/* typmod -1 and 6 (MAX_TIMESTAMP_PRECISION) leave a value as it is */
				c->adjust_typmod = typmod >= 0 && typmod != MAX_TIMESTAMP_PRECISION;
			}
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			/*
			 * char(n)/varchar(n) apply length rules, other encodings need a
			 * conversion: the generic path does
			 */
			if (ts_type_is_bytes(t->kind) && (typid == TEXTOID || typmod < 0) &&
				GetDatabaseEncoding() == PG_UTF8)
				c->path = TS_DATUM_TEXT;
			break;
		case NUMERICOID:
			if (t->kind == TS_DECIMAL && t->scale >= 0 && t->scale <= 38)
			{
				c->path = TS_DATUM_NUMERIC;

				/*
				 * numeric_recv keeps the value's scale without a typmod; with
				 * numeric(p, s) it rounds to s (nothing to do when s is the
				 * decimal's scale) and refuses a value of p digits or more.
				 * So the int64 path takes |unscaled| < 10^p, any int64 when
				 * p >= 19; other typmods always take the exact path.
				 */
				if (typmod < (int32) VARHDRSZ)
					c->numeric_limit = PG_INT64_MAX;
				else
				{
					int			p = ((typmod - VARHDRSZ) >> 16) & 0xffff;
					int			s = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;

					if (s == t->scale && p >= 19)
						c->numeric_limit = PG_INT64_MAX;
					else if (s == t->scale && p >= 1)
					{
						c->numeric_limit = 1;
						for (int i = 0; i < p; i++)
							c->numeric_limit *= 10;
					}
				}
			}
			break;
		default:
			break;
	}
}

Datum
tablescan_convert_value(const TsDatumConverter *c, const ts_value *v, bool *isnull)
{
	*isnull = v->isnull;
	if (v->isnull)
		return (Datum) 0;
	switch (c->path)
	{
		case TS_DATUM_BOOL:
			return BoolGetDatum(v->v.i != 0);
		case TS_DATUM_INT4:
			if (v->v.i < PG_INT32_MIN || v->v.i > PG_INT32_MAX)
				overflow(c->colname, "integer");
			return Int32GetDatum((int32) v->v.i);
		case TS_DATUM_INT8:
			return Int64GetDatum(v->v.i);
		case TS_DATUM_FLOAT8:
			return Float8GetDatum(v->v.d);
		case TS_DATUM_DATE:
			return DateADTGetDatum((DateADT) (v->v.i - UNIX_TO_PG_DAYS));
		case TS_DATUM_TIMESTAMP:
			{
				Timestamp	ts = timestamp_micros(v);

				if (c->adjust_typmod)
					AdjustTimestampForTypmod(&ts, c->typmod);
				return TimestampGetDatum(ts);
			}
		case TS_DATUM_TEXT:
			return server_text_datum((const char *) v->v.s.p, (int) v->v.s.len, c->colname);
		case TS_DATUM_NUMERIC:
			if (v->v.dec > -(ts_int128) c->numeric_limit && v->v.dec < (ts_int128) c->numeric_limit)
				return decimal_datum_int64((int64) v->v.dec, c->type->scale);
			return decimal_datum(v, c->type, c->typmod);
		case TS_DATUM_GENERIC:
			break;
	}
	return tablescan_value_to_datum(v, c->type, c->typid, c->typmod, c->colname, isnull);
}

/*
 * The numeric Datum of unscaled / 10^scale for decimal column c (path
 * TS_DATUM_NUMERIC), display scale the column's, without the typmod's
 * limit: a sum of the column's values (each within numeric_limit, so the
 * typmod keeps their scale).
 */
Datum
tablescan_decimal_sum_datum(const TsDatumConverter *c, ts_int128 unscaled)
{
	ts_value	v = {.isnull = false};

	Assert(c->path == TS_DATUM_NUMERIC);
	v.v.dec = unscaled;
	return decimal_datum(&v, c->type, -1);
}

/*
 * The bytes of a string value that c's text Datum would hold (c's path is
 * TS_DATUM_TEXT), without making the Datum: checked as the conversion
 * checks them, with its ERROR for bytes that are not UTF-8.  They point
 * into the batch.
 */
const char *
tablescan_text_bytes(const TsDatumConverter *c, const ts_value *v, int *len)
{
	Assert(c->path == TS_DATUM_TEXT && !v->isnull);
	*len = (int) v->v.s.len;
	return server_text((const char *) v->v.s.p, len, c->colname);
}

/*
 * Convert rows [first, first + n) of column col of a batch into
 * values[r * out_stride] / isnull[r * out_stride], giving the Datums
 * tablescan_convert_value gives, in a tight loop per column path.  Strings
 * and decimals are laid out one after the other in a single block of the
 * current memory context (one palloc per column, not one per value; decimals
 * by numeric_short.c).  Stops before the first value that could raise an error here (an
 * integer out of range, a decimal past the int64 path) and converts nothing
 * for paths without a loop here (generic, rounded timestamps): returns the
 * number of rows converted, and the caller converts the rest one by one, so
 * that an error is raised at the row it belongs to.
 */
int
tablescan_convert_column(const TsDatumConverter *c, const ts_batch *b, int col,
						 int first, int n, int out_stride, Datum *values, bool *isnull)
{
	int			stride = ts_batch_stride(b);
	const ts_value *v = b->values + (size_t) first * stride + col;
	int			r;

#define EACH_ROW for (r = 0; r < n; r++, v += stride, values += out_stride, isnull += out_stride)
	switch (c->path)
	{
		case TS_DATUM_BOOL:
			EACH_ROW
			{
				*isnull = v->isnull;
				*values = v->isnull ? (Datum) 0 : BoolGetDatum(v->v.i != 0);
			}
			return n;
		case TS_DATUM_INT4:
			EACH_ROW
			{
				*isnull = v->isnull;
				if (v->isnull)
					*values = (Datum) 0;
				else if (v->v.i < PG_INT32_MIN || v->v.i > PG_INT32_MAX)
					return r;
				else
					*values = Int32GetDatum((int32) v->v.i);
			}
			return n;
		case TS_DATUM_INT8:
			EACH_ROW
			{
				*isnull = v->isnull;
				*values = v->isnull ? (Datum) 0 : Int64GetDatum(v->v.i);
			}
			return n;
		case TS_DATUM_FLOAT8:
			EACH_ROW
			{
				*isnull = v->isnull;
				*values = v->isnull ? (Datum) 0 : Float8GetDatum(v->v.d);
			}
			return n;
		case TS_DATUM_DATE:
			EACH_ROW
			{
				*isnull = v->isnull;
				*values = v->isnull ? (Datum) 0 :
					DateADTGetDatum((DateADT) (v->v.i - UNIX_TO_PG_DAYS));
			}
			return n;
		case TS_DATUM_TIMESTAMP:
			if (c->adjust_typmod)
				return 0;
			EACH_ROW
			{
				*isnull = v->isnull;
				*values = v->isnull ? (Datum) 0 : TimestampGetDatum(timestamp_micros(v));
			}
			return n;
		case TS_DATUM_TEXT:
			{
				Size		total = 0;
				char	   *out;

				for (r = 0; r < n; r++)
					if (!v[r * stride].isnull)
						total += INTALIGN(VARHDRSZ + v[r * stride].v.s.len);
				if (total > MaxAllocSize)
					return 0;
				out = palloc(Max(total, 1));
				/* up to the first value that is not valid UTF-8 (its ERROR is the caller's) */
				EACH_ROW
				{
					*isnull = v->isnull;
					if (v->isnull)
						*values = (Datum) 0;
					else if (!copy_text_checked(out + VARHDRSZ, v->v.s.p, v->v.s.len))
						return r;
					else
					{
						SET_VARSIZE(out, VARHDRSZ + v->v.s.len);
						*values = PointerGetDatum(out);
						out += INTALIGN(VARHDRSZ + v->v.s.len);
					}
				}
				return n;
			}
		case TS_DATUM_NUMERIC:
			{
				/* written in place one after the other (numeric_short.c) */
				char	   *out = palloc((Size) Max(n, 1) * INTALIGN(TS_NUMERIC_SHORT_MAX));

				EACH_ROW
				{
					int			size;

					*isnull = v->isnull;
					if (v->isnull)
						*values = (Datum) 0;
					else if (v->v.dec <= -(ts_int128) c->numeric_limit ||
							 v->v.dec >= (ts_int128) c->numeric_limit)
						return r;
					else if ((size = tablescan_numeric_short((int64) v->v.dec, c->type->scale, out)) > 0)
					{
						*values = PointerGetDatum(out);
						out += INTALIGN(size);
					}
					else
						*values = decimal_datum_int64((int64) v->v.dec, c->type->scale);
				}
				return n;
			}
		case TS_DATUM_GENERIC:
			break;
	}
#undef EACH_ROW
	return 0;
}

Datum
tablescan_value_to_datum(const ts_value *v, const ts_type *t, Oid typid, int32 typmod,
						 const char *colname, bool *isnull)
{
	*isnull = v->isnull;
	if (v->isnull)
		return (Datum) 0;

	switch (typid)
	{
		case BOOLOID:
			if (t->kind == TS_BOOLEAN)
				return BoolGetDatum(v->v.i != 0);
			break;
		case INT2OID:
			if (ts_type_is_integer(t->kind))
			{
				if (v->v.i < PG_INT16_MIN || v->v.i > PG_INT16_MAX)
					overflow(colname, "smallint");
				return Int16GetDatum((int16) v->v.i);
			}
			break;
		case INT4OID:
			if (ts_type_is_integer(t->kind))
			{
				if (v->v.i < PG_INT32_MIN || v->v.i > PG_INT32_MAX)
					overflow(colname, "integer");
				return Int32GetDatum((int32) v->v.i);
			}
			break;
		case INT8OID:
			if (ts_type_is_integer(t->kind))
				return Int64GetDatum(v->v.i);
			break;
		case FLOAT4OID:
			if (t->kind == TS_FLOAT)
				return Float4GetDatum(v->v.f);
			if (t->kind == TS_DOUBLE)
				return Float4GetDatum((float4) v->v.d);
			if (ts_type_is_integer(t->kind))
				return Float4GetDatum((float4) v->v.i);
			break;
		case FLOAT8OID:
			if (t->kind == TS_DOUBLE)
				return Float8GetDatum(v->v.d);
			if (t->kind == TS_FLOAT)
				return Float8GetDatum((float8) v->v.f);
			if (ts_type_is_integer(t->kind))
				return Float8GetDatum((float8) v->v.i);
			break;
		case NUMERICOID:
			if (t->kind == TS_DECIMAL)
				return decimal_datum(v, t, typmod);
			if (ts_type_is_integer(t->kind))
				return DirectFunctionCall1(int8_numeric, Int64GetDatum(v->v.i));
			if (t->kind == TS_CHAR || t->kind == TS_VARCHAR)
			{
				/* text read as numeric, as COPY would: exact, or an error */
				int			len = (int) v->v.s.len;
				const char *p = server_text((const char *) v->v.s.p, &len, colname);

				return DirectFunctionCall3(numeric_in, CStringGetDatum(pnstrdup(p, len)),
										   ObjectIdGetDatum(InvalidOid), Int32GetDatum(typmod));
			}
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			{
				Datum		d;

				if (ts_type_is_bytes(t->kind))
					d = server_text_datum((const char *) v->v.s.p, (int) v->v.s.len, colname);
				else
				{
					char	   *text = value_to_text(v, t);

					d = server_text_datum(text, strlen(text), colname);
				}
				if (typid != TEXTOID && typmod >= 0)
				{
					/*
					 * char(n)/varchar(n) length rules as COPY applies them (an
					 * implicit cast): a longer value is an error (22001), only
					 * trailing blanks are cut, char(n) pads
					 */
					check_char_length(d, typid, typmod, colname);
					if (typid == BPCHAROID)
						d = DirectFunctionCall3(bpchar, d, Int32GetDatum(typmod), BoolGetDatum(false));
					else
						d = DirectFunctionCall3(varchar, d, Int32GetDatum(typmod), BoolGetDatum(false));
				}
				return d;
			}
		case BYTEAOID:
			if (ts_type_is_bytes(t->kind))
			{
				bytea	   *b = palloc(VARHDRSZ + v->v.s.len);

				SET_VARSIZE(b, VARHDRSZ + v->v.s.len);
				memcpy(VARDATA(b), v->v.s.p, v->v.s.len);
				return PointerGetDatum(b);
			}
			break;
		case DATEOID:
			if (t->kind == TS_DATE)
				return DateADTGetDatum((DateADT) (v->v.i - UNIX_TO_PG_DAYS));
			break;
		case TIMEOID:
			if (t->kind == TS_TIME)
			{
				TimeADT		tm = (TimeADT) v->v.i * 1000;

				if (typmod >= 0)
					AdjustTimeForTypmod(&tm, typmod);
				return TimeADTGetDatum(tm);
			}
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
			{
				Timestamp	ts = timestamp_micros(v);

				if (typmod >= 0)
					AdjustTimestampForTypmod(&ts, typmod);
				return TimestampGetDatum(ts);
			}
			break;
		case JSONBOID:
			{
				StringInfoData buf;

				initStringInfo(&buf);
				tablescan_value_to_json(&buf, v, t);
				return DirectFunctionCall1(jsonb_in,
										   CStringGetDatum(server_text(buf.data, &buf.len, colname)));
			}
		default:
			if ((t->kind == TS_ARRAY || t->kind == TS_MULTISET || t->kind == TS_VECTOR) &&
				OidIsValid(get_element_type(typid)))
				return array_datum(v, t, typid, colname);
			break;
	}
	{
		const char *want = tablescan_pg_type_name(t);
		bool		is_text = want == NULL || strcmp(want, "text") == 0;

		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of type %s cannot hold Paimon type %s",
						colname, format_type_with_typemod(typid, typmod),
						ts_type_kind_name(t->kind)),
				 is_text ?
				 errhint("Declare the column as text (see the type mapping in the README).") :
				 errhint("Declare the column as %s (see the type mapping in the README), or as text.",
						 want)));
	}
	return (Datum) 0;
}
