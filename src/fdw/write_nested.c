/*
 * write_nested.c - written values beyond the scalar ones: TIME and nested
 * columns.
 *
 * Owns: the conversions INSERT / COPY / UPDATE need beyond the exact
 * scalar ones (write_values.c's fast path, types.c's
 * tablescan_datum_to_field_value): TIME from time, ARRAY<T> from a
 * one-dimensional T[], and ARRAY, MAP, MULTISET and ROW values at any
 * depth from the jsonb the reader shows them as (README "Type mapping": a
 * MAP an array of [key, value] pairs, a MULTISET an array, a ROW an object
 * keyed by field name; timestamps, dates, times and bytes as strings,
 * decimals as numbers).  Values are palloc'd in the current memory
 * context.  A JSON shape that does not fit the Paimon type is an ERROR
 * naming the column; a value that cannot be stored exactly returns false
 * (the caller's ERROR).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "tablescan_fdw.h"

static bool json_to_value(JsonbValue *jv, const ts_type *t, ts_value *out, const char *colname);

static void
shape_error(const char *colname, const ts_type *t, const char *what)
{
	char	   *tn = ts_type_to_string(t);

	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("value of column \"%s\" does not fit Paimon type %s: %s", colname,
					tn ? tn : ts_type_kind_name(t->kind), what),
			 errhint("A MAP is a JSON array of [key, value] pairs, a MULTISET or ARRAY a JSON array, a ROW a JSON object keyed by field name.")));
}

/* TIME: microseconds of the day to Paimon's milliseconds, when exact at t's precision */
static bool
time_value(TimeADT micros, const ts_type *t, ts_value *out)
{
	int64		unit = 1000;

	for (int p = t->precision; p < 3; p++)
		unit *= 10;
	if (micros % unit != 0)
		return false;
	out->v.i = micros / 1000;
	return true;
}

/* a JSON string as a scalar of type t, through the PostgreSQL input function of its type */
static bool
json_string_value(const char *s, const ts_type *t, ts_value *out, const char *colname)
{
	Datum		d;
	Oid			typid;

	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
			out->v.s.p = (const uint8 *) s;
			out->v.s.len = strlen(s);
			return true;
		case TS_BINARY:
		case TS_VARBINARY:
			d = DirectFunctionCall1(byteain, CStringGetDatum(s));
			typid = BYTEAOID;
			break;
		case TS_DATE:
			d = DirectFunctionCall1(date_in, CStringGetDatum(s));
			typid = DATEOID;
			break;
		case TS_TIME:
			return time_value(DatumGetTimeADT(DirectFunctionCall3(time_in, CStringGetDatum(s),
																  ObjectIdGetDatum(InvalidOid),
																  Int32GetDatum(-1))), t, out);
		case TS_TIMESTAMP:
			d = DirectFunctionCall3(timestamp_in, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid),
									Int32GetDatum(-1));
			typid = TIMESTAMPOID;
			break;
		case TS_TIMESTAMP_LTZ:
			d = DirectFunctionCall3(timestamptz_in, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid),
									Int32GetDatum(-1));
			typid = TIMESTAMPTZOID;
			break;
		case TS_FLOAT:
		case TS_DOUBLE:
			/* NaN, Infinity, -Infinity */
			d = DirectFunctionCall1(float8in, CStringGetDatum(s));
			typid = FLOAT8OID;
			if (t->kind == TS_FLOAT)
			{
				out->v.f = (float) DatumGetFloat8(d);
				return true;
			}
			break;
		default:				/* numbers are JSON numbers, nested values containers */
			shape_error(colname, t, psprintf("a JSON string \"%s\"", s));
			return false;
	}
	return tablescan_datum_to_field_value(d, typid, t, out);
}

/* a JSON container (array or object) as a nested value of type t */
static bool
json_container_value(JsonbContainer *jc, const ts_type *t, ts_value *out, const char *colname)
{
	int			n = JsonContainerSize(jc);

	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_MULTISET:
		case TS_MAP:
			{
				int			per = t->kind == TS_MAP ? 2 : 1;

				if (!JsonContainerIsArray(jc))
					shape_error(colname, t, "not a JSON array");
				out->v.nested.n = n;
				out->v.nested.items = palloc0(sizeof(ts_value) * Max(n * per, 1));
				for (int i = 0; i < n; i++)
				{
					JsonbValue *e = getIthJsonbValueFromContainer(jc, (uint32) i);

					CHECK_FOR_INTERRUPTS();
					if (t->kind != TS_MAP)
					{
						if (!json_to_value(e, t->element, &out->v.nested.items[i], colname))
							return false;
						continue;
					}
					/* a [key, value] pair */
					if (e->type != jbvBinary || !JsonContainerIsArray(e->val.binary.data) ||
						JsonContainerSize(e->val.binary.data) != 2)
						shape_error(colname, t, "a map entry is not a [key, value] array");
					for (int k = 0; k < 2; k++)
						if (!json_to_value(getIthJsonbValueFromContainer(e->val.binary.data, (uint32) k),
										   k == 0 ? t->key : t->value,
										   &out->v.nested.items[2 * i + k], colname))
							return false;
					if (out->v.nested.items[2 * i].isnull)
						shape_error(colname, t, "a map key is null");
				}
				return true;
			}
		case TS_ROW:
			{
				JsonbIterator *it;
				JsonbValue	kv;
				JsonbIteratorToken tok;

				if (!JsonContainerIsObject(jc))
					shape_error(colname, t, "not a JSON object");
				/* every key names a field */
				it = JsonbIteratorInit(jc);
				while ((tok = JsonbIteratorNext(&it, &kv, true)) != WJB_DONE)
				{
					bool		known = false;

					if (tok != WJB_KEY)
						continue;
					for (int f = 0; f < t->nfields && !known; f++)
						known = strlen(t->fields[f].name) == (size_t) kv.val.string.len &&
							memcmp(t->fields[f].name, kv.val.string.val, kv.val.string.len) == 0;
					if (!known)
						shape_error(colname, t, psprintf("key \"%.*s\" is no field of the ROW",
														 kv.val.string.len, kv.val.string.val));
				}
				out->v.nested.n = t->nfields;
				out->v.nested.items = palloc0(sizeof(ts_value) * Max(t->nfields, 1));
				for (int f = 0; f < t->nfields; f++)
				{
					JsonbValue	fv;
					const char *name = t->fields[f].name;

					if (getKeyJsonValueFromContainer(jc, name, strlen(name), &fv) == NULL)
						out->v.nested.items[f].isnull = true;	/* absent: null */
					else if (!json_to_value(&fv, t->fields[f].type, &out->v.nested.items[f], colname))
						return false;
				}
				return true;
			}
		default:
			shape_error(colname, t, JsonContainerIsArray(jc) ? "a JSON array" : "a JSON object");
			return false;
	}
}

static bool
json_to_value(JsonbValue *jv, const ts_type *t, ts_value *out, const char *colname)
{
	memset(out, 0, sizeof(*out));
	switch (jv->type)
	{
		case jbvNull:
			out->isnull = true;
			if (!t->nullable)
				shape_error(colname, t, "null in a NOT NULL part");
			return true;
		case jbvBinary:
			return json_container_value(jv->val.binary.data, t, out, colname);
		case jbvString:
			return json_string_value(pnstrdup(jv->val.string.val, jv->val.string.len), t, out, colname);
		case jbvNumeric:
			if (t->kind == TS_FLOAT || t->kind == TS_DOUBLE)
				return tablescan_datum_to_field_value(DirectFunctionCall1(numeric_float8,
																		  NumericGetDatum(jv->val.numeric)),
													  FLOAT8OID, t, out);
			if (ts_type_is_nested(t->kind) || ts_type_is_bytes(t->kind))
				shape_error(colname, t, "a JSON number");
			return tablescan_datum_to_field_value(NumericGetDatum(jv->val.numeric), NUMERICOID, t, out);
		case jbvBool:
			if (t->kind != TS_BOOLEAN)
				shape_error(colname, t, "a JSON boolean");
			out->v.i = jv->val.boolean;
			return true;
		default:
			shape_error(colname, t, "an unexpected JSON value");
			return false;
	}
}

/* ARRAY<T> from a T[] of at most one dimension */
static bool
array_value(Datum d, Oid typid, const ts_type *t, ts_value *out, const char *colname)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(arr) > 1)
		shape_error(colname, t, "a multidimensional array (declare nested arrays as jsonb)");
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
	out->v.nested.n = n;
	out->v.nested.items = palloc0(sizeof(ts_value) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
		{
			if (!t->element->nullable)
				shape_error(colname, t, "a null element in an array of NOT NULL elements");
			out->v.nested.items[i].isnull = true;
		}
		else if (!tablescan_write_value(elems[i], elemtype, t->element,
										&out->v.nested.items[i], colname))
			return false;
	}
	return true;
}

bool
tablescan_datum_to_stored_value(Datum d, Oid typid, const ts_type *target, ts_value *out,
								const char *colname)
{
	memset(out, 0, sizeof(*out));
	if (ts_type_is_nested(target->kind) && typid == JSONBOID)
	{
		Jsonb	   *jb = DatumGetJsonbP(d);
		JsonbValue	jv;

		if (JB_ROOT_IS_SCALAR(jb))
		{
			JsonbExtractScalar(&jb->root, &jv);
			return json_to_value(&jv, target, out, colname);
		}
		return json_container_value(&jb->root, target, out, colname);
	}
	if (target->kind == TS_ARRAY && type_is_array(typid))
		return array_value(d, typid, target, out, colname);
	if (target->kind == TS_TIME && typid == TIMEOID)
		return time_value(DatumGetTimeADT(d), target, out);
	if (ts_type_is_nested(target->kind))
		return false;
	return tablescan_datum_to_field_value(d, typid, target, out);
}
