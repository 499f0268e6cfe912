/*
 * types.c - the mapping between Paimon types and PostgreSQL types.
 *
 * Owns: the README's type mapping in both directions (Paimon type ->
 * PostgreSQL type name for IMPORT FOREIGN SCHEMA and hints; a format
 * table's column type -> Paimon type string), the column type a qual's
 * column must have to be pushed, and PostgreSQL Datums -> Paimon values
 * for quals and bucket keys (a literal of the value's own type, or exactly
 * a field's type).  Values of rows go the other way in datum.c.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "tablescan_fdw.h"
#include "base/ts_type_class.h"

/* days between 1970-01-01 and 2000-01-01 */
#define UNIX_TO_PG_DAYS (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define UNIX_TO_PG_MICROS ((int64) UNIX_TO_PG_DAYS * USECS_PER_DAY)

/* ---- type names ------------------------------------------------------- */

char *
tablescan_pg_type_name(const ts_type *t)
{
	const ts_type_class *c = ts_type_class_of(t->kind);
	const ts_type *e = t->element;

	if (c->pg_type == NULL)
		return NULL;
	if (t->kind == TS_ARRAY)
	{
		char	   *inner;

		/* an ARRAY of VECTORs too: PostgreSQL has no arrays of arrays */
		if (ts_type_is_nested(e->kind) || e->kind == TS_VARIANT || e->kind == TS_VECTOR)
			return "jsonb";
		if ((inner = tablescan_pg_type_name(e)) == NULL)
			return NULL;
		/* typmods do not apply to array elements in a useful way */
		if (e->kind == TS_DECIMAL)
			inner = "numeric";
		else if (e->kind == TS_CHAR || e->kind == TS_VARCHAR)
			inner = "text";
		return psprintf(c->pg_type, inner);
	}
	if (t->kind == TS_VECTOR)
	{
		/* VECTOR<E, n>: a one-dimensional array of E (real[] for FLOAT) */
		if (e == NULL || ts_type_is_nested(e->kind) || e->kind == TS_VECTOR ||
			tablescan_pg_type_name(e) == NULL)
			return NULL;
		return psprintf(c->pg_type, tablescan_pg_type_name(e));
	}
	if (t->kind == TS_VARCHAR && (t->length >= TS_STRING_LENGTH || t->length > 10485760))
		return "text";
	switch (c->pg_typmod)
	{
		case TS_PGMOD_PRECISION_SCALE:
			return psprintf(c->pg_type, t->precision, t->scale);
		case TS_PGMOD_LENGTH:
			return psprintf(c->pg_type, t->length);
		case TS_PGMOD_PRECISION_6:
			return psprintf(c->pg_type, Min(t->precision, 6));
		case TS_PGMOD_NONE:
			break;
	}
	return (char *) c->pg_type;
}

/*
 * Paimon type string for a column of a format table declared in SQL;
 * ERROR for a column type no Paimon type maps to.
 */
char *
tablescan_paimon_type_name(Form_pg_attribute att)
{
	int32		typmod = att->atttypmod;

	switch (att->atttypid)
	{
		case BOOLOID:
			return "BOOLEAN";
		case INT2OID:
			return "SMALLINT";
		case INT4OID:
			return "INT";
		case INT8OID:
			return "BIGINT";
		case FLOAT4OID:
			return "FLOAT";
		case FLOAT8OID:
			return "DOUBLE";
		case NUMERICOID:
			/*
			 * Unconstrained numeric: no DECIMAL(p, s) holds every value
			 * exactly, so the field is read as text and converted by
			 * numeric's own input function (the exact value, or an error)
			 */
			if (typmod < VARHDRSZ)
				return "STRING";
			return psprintf("DECIMAL(%d, %d)", ((typmod - VARHDRSZ) >> 16) & 0xffff,
							(typmod - VARHDRSZ) & 0xffff);
		case TEXTOID:
			return "STRING";
		case VARCHAROID:
			return typmod >= VARHDRSZ ? psprintf("VARCHAR(%d)", typmod - VARHDRSZ) : "STRING";
		case BPCHAROID:
			return typmod >= VARHDRSZ ? psprintf("CHAR(%d)", typmod - VARHDRSZ) : "CHAR(1)";
		case BYTEAOID:
			return "BYTES";
		case DATEOID:
			return "DATE";
		case TIMEOID:
			return psprintf("TIME(%d)", typmod >= 0 ? typmod : 6);
		case TIMESTAMPOID:
			return psprintf("TIMESTAMP(%d)", typmod >= 0 ? typmod : 6);
		case TIMESTAMPTZOID:
			return psprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", typmod >= 0 ? typmod : 6);
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("column \"%s\" of type %s cannot be read from a format table",
							NameStr(att->attname), format_type_be(att->atttypid)),
					 errhint("Use boolean, integers, real, double precision, numeric, text, varchar, char, bytea, date, time, timestamp or timestamptz.")));
	}
	return NULL;
}

/* ---- the column type of a pushed qual ---------------------------------- */

/* The PostgreSQL type a column must have for its quals to be pushed. */
bool
tablescan_column_type_matches(Oid typid, const ts_type *t)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return typid == BOOLOID;
		case TS_TINYINT:
		case TS_SMALLINT:
			return typid == INT2OID;
		case TS_INT:
			return typid == INT4OID;
		case TS_BIGINT:
			return typid == INT8OID;
		case TS_FLOAT:
			return typid == FLOAT4OID;
		case TS_DOUBLE:
			return typid == FLOAT8OID;
		case TS_DECIMAL:
			return typid == NUMERICOID;
		case TS_CHAR:
			/* blank-padding rules differ (char(n) ignores trailing blanks): never push */
			return false;
		case TS_VARCHAR:
			return typid == TEXTOID || typid == VARCHAROID;
		case TS_BINARY:
		case TS_VARBINARY:
			return typid == BYTEAOID;
		case TS_DATE:
			return typid == DATEOID;
		case TS_TIMESTAMP:
			return typid == TIMESTAMPOID;
		case TS_TIMESTAMP_LTZ:
			return typid == TIMESTAMPTZOID;
		default:
			return false;
	}
}

/* ---- Datum -> ts_value ---------------------------------------------- */

ts_type *
tablescan_literal_type(ts_type_kind kind, int precision, int scale)
{
	ts_type    *t = palloc0(sizeof(ts_type));

	t->kind = kind;
	t->nullable = true;
	t->precision = precision;
	t->scale = scale;
	t->length = TS_STRING_LENGTH;
	return t;
}

/* numeric -> unscaled int128 + scale; false if it does not fit 38 digits */
static bool
numeric_to_decimal(Datum d, ts_int128 *unscaled, int *scale)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
	ts_int128	v = 0;
	bool		neg = false,
				frac = false;
	int			digits = 0,
				sc = 0;

	if (*s == '-')
	{
		neg = true;
		s++;
	}
	for (; *s; s++)
	{
		if (*s == '.')
		{
			frac = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return false;		/* NaN, Infinity */
		if (++digits > 38)
			return false;
		v = v * 10 + (*s - '0');
		if (frac)
			sc++;
	}
	*unscaled = neg ? -v : v;
	*scale = sc;
	return true;
}

/*
 * Convert a non-null Datum of PostgreSQL type typid into a literal.  The
 * literal's type is the Paimon type that represents the value exactly.
 */
bool
tablescan_datum_to_literal(Datum d, Oid typid, ts_value *out, ts_type **type)
{
	memset(out, 0, sizeof(*out));
	switch (typid)
	{
		case BOOLOID:
			out->v.i = DatumGetBool(d);
			*type = tablescan_literal_type(TS_BOOLEAN, 0, 0);
			return true;
		case INT2OID:
			out->v.i = DatumGetInt16(d);
			*type = tablescan_literal_type(TS_SMALLINT, 0, 0);
			return true;
		case INT4OID:
			out->v.i = DatumGetInt32(d);
			*type = tablescan_literal_type(TS_INT, 0, 0);
			return true;
		case INT8OID:
			out->v.i = DatumGetInt64(d);
			*type = tablescan_literal_type(TS_BIGINT, 0, 0);
			return true;
		case FLOAT4OID:
			out->v.f = DatumGetFloat4(d);
			*type = tablescan_literal_type(TS_FLOAT, 0, 0);
			return true;
		case FLOAT8OID:
			out->v.d = DatumGetFloat8(d);
			*type = tablescan_literal_type(TS_DOUBLE, 0, 0);
			return true;
		case NUMERICOID:
			{
				int			scale;

				if (!numeric_to_decimal(d, &out->v.dec, &scale))
					return false;
				*type = tablescan_literal_type(TS_DECIMAL, 38, scale);
				return true;
			}
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case BYTEAOID:
			{
				struct varlena *v = PG_DETOAST_DATUM(d);

				out->v.s.p = (const uint8 *) VARDATA_ANY(v);
				out->v.s.len = VARSIZE_ANY_EXHDR(v);
				if (typid == BPCHAROID)
				{
					/* char(n) compares without trailing blanks */
					while (out->v.s.len > 0 && out->v.s.p[out->v.s.len - 1] == ' ')
						out->v.s.len--;
				}
				*type = tablescan_literal_type(typid == BYTEAOID ? TS_VARBINARY :
									 typid == BPCHAROID ? TS_CHAR : TS_VARCHAR, 0, 0);
				return true;
			}
		case DATEOID:
			{
				DateADT		date = DatumGetDateADT(d);

				if (DATE_NOT_FINITE(date))
					return false;
				out->v.i = (int64) date + UNIX_TO_PG_DAYS;
				*type = tablescan_literal_type(TS_DATE, 0, 0);
				return true;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				Timestamp	ts = DatumGetTimestamp(d);
				int64		micros;

				if (TIMESTAMP_NOT_FINITE(ts))
					return false;
				micros = ts + UNIX_TO_PG_MICROS;
				ts_value_set_micros(out, micros);
				*type = tablescan_literal_type(typid == TIMESTAMPOID ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ, 6, 0);
				return true;
			}
		default:
			return false;
	}
}

/* ---- exact conversion to a field's own type -------------------------- */

static ts_int128
pow10_128(int n)
{
	ts_int128	p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

/*
 * Convert a Datum of PostgreSQL type typid to a value of Paimon type
 * 'target', only when that is exact (no rounding, no overflow).  Used where
 * a wrong value would change an answer: the bucket of a key.
 */
bool
tablescan_datum_to_field_value(Datum d, Oid typid, const ts_type *target, ts_value *out)
{
	ts_value	lit;
	ts_type    *lt;

	if (!tablescan_datum_to_literal(d, typid, &lit, &lt))
		return false;
	memset(out, 0, sizeof(*out));
	switch (target->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (lt->kind == TS_DECIMAL)
			{
				ts_int128	p = pow10_128(lt->scale);

				if (lit.v.dec % p != 0)
					return false;
				lit.v.dec /= p;
				if (lit.v.dec < PG_INT64_MIN || lit.v.dec > PG_INT64_MAX ||
					!ts_type_int_fits(target->kind, (int64) lit.v.dec))
					return false;
				out->v.i = (int64) lit.v.dec;
				return true;
			}
			if (!ts_type_is_integer(lt->kind) || !ts_type_int_fits(target->kind, lit.v.i))
				return false;
			out->v.i = lit.v.i;
			return true;
		case TS_DECIMAL:
			{
				ts_int128	v;

				if (lt->kind == TS_DECIMAL)
				{
					if (lt->scale > target->scale)
					{
						ts_int128	p = pow10_128(lt->scale - target->scale);

						if (lit.v.dec % p != 0)
							return false;
						v = lit.v.dec / p;
					}
					else
						v = lit.v.dec * pow10_128(target->scale - lt->scale);
				}
				else if (lt->kind == TS_SMALLINT || lt->kind == TS_INT || lt->kind == TS_BIGINT)
					v = (ts_int128) lit.v.i * pow10_128(target->scale);
				else
					return false;
				{
					ts_int128	limit = pow10_128(target->precision);

					if (v >= limit || v <= -limit)
						return false;
				}
				out->v.dec = v;
				return true;
			}
		case TS_FLOAT:
			if (lt->kind == TS_FLOAT)
				out->v.f = lit.v.f;
			else if (lt->kind == TS_DOUBLE && (double) (float) lit.v.d == lit.v.d)
				out->v.f = (float) lit.v.d;
			else
				return false;
			return true;
		case TS_DOUBLE:
			if (lt->kind == TS_DOUBLE)
				out->v.d = lit.v.d;
			else if (lt->kind == TS_FLOAT)
				out->v.d = lit.v.f;
			else
				return false;
			return true;
		case TS_BOOLEAN:
		case TS_DATE:
			if (lt->kind != target->kind)
				return false;
			out->v.i = lit.v.i;
			return true;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (!ts_type_is_bytes(lt->kind))
				return false;
			out->v.s = lit.v.s;
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (lt->kind != target->kind)
				return false;
			out->v.ts = lit.v.ts;
			/* a value finer than the field's precision cannot be stored */
			if (target->precision < 6)
			{
				int64		unit = 1;

				for (int i = target->precision; i < 6; i++)
					unit *= 10;
				if (((out->v.ts.millis * 1000000 + out->v.ts.nanos) / 1000) % unit != 0)
					return false;
			}
			return true;
		default:
			return false;
	}
}
