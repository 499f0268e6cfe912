/*
 * ts_types.c - Paimon data types in memory: construct, copy, free, compare
 * and print them.
 *
 * Owns: the lifetime of ts_type/ts_field trees and their SQL-ish spelling
 * ("DECIMAL(10, 2)", "ARRAY<INT>", "TIMESTAMP(6) WITH LOCAL TIME ZONE").
 * Parsing the schema JSON grammar lives in src/meta/schema.c.
 */
#include "base/ts_types.h"
#include "base/ts_type_class.h"

#include <string.h>

ts_type *
ts_type_new(ts_type_kind kind, bool nullable)
{
	ts_type    *t = ts_calloc(1, sizeof(ts_type));

	if (t == NULL)
		return NULL;
	t->kind = kind;
	t->nullable = nullable;
	return t;
}

static void
field_clear(ts_field *f)
{
	ts_free(f->name);
	ts_free(f->description);
	ts_type_free(f->type);
}

void
ts_type_free(ts_type *t)
{
	if (t == NULL)
		return;
	ts_type_free(t->element);
	ts_type_free(t->key);
	ts_type_free(t->value);
	if (t->fields != NULL)
	{
		for (int i = 0; i < t->nfields; i++)
			field_clear(&t->fields[i]);
		ts_free(t->fields);
	}
	ts_free(t);
}

ts_type *
ts_type_copy(const ts_type *t)
{
	ts_type    *c;

	if (t == NULL)
		return NULL;
	c = ts_type_new(t->kind, t->nullable);
	if (c == NULL)
		return NULL;
	c->length = t->length;
	c->precision = t->precision;
	c->scale = t->scale;
	if ((t->element && (c->element = ts_type_copy(t->element)) == NULL) ||
		(t->key && (c->key = ts_type_copy(t->key)) == NULL) ||
		(t->value && (c->value = ts_type_copy(t->value)) == NULL))
		goto fail;
	if (t->nfields > 0 && t->fields != NULL)
	{
		c->fields = ts_calloc(t->nfields, sizeof(ts_field));
		if (c->fields == NULL)
			goto fail;
		c->nfields = t->nfields;
		for (int i = 0; i < t->nfields; i++)
		{
			const ts_field *s = &t->fields[i];
			ts_field   *d = &c->fields[i];

			d->id = s->id;
			if ((s->name && (d->name = ts_strdup(s->name)) == NULL) ||
				(s->description && (d->description = ts_strdup(s->description)) == NULL) ||
				(s->type && (d->type = ts_type_copy(s->type)) == NULL))
				goto fail;
		}
	}
	return c;
fail:
	ts_type_free(c);
	return NULL;
}

bool
ts_type_equal(const ts_type *a, const ts_type *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->kind != b->kind)
		return false;
	switch (a->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return a->length == b->length;
		case TS_DECIMAL:
			return a->precision == b->precision && a->scale == b->scale;
		case TS_TIME:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return a->precision == b->precision;
		case TS_ARRAY:
		case TS_MULTISET:
			return ts_type_equal(a->element, b->element);
		case TS_VECTOR:
			return a->length == b->length && ts_type_equal(a->element, b->element);
		case TS_MAP:
			return ts_type_equal(a->key, b->key) && ts_type_equal(a->value, b->value);
		case TS_ROW:
			if (a->nfields != b->nfields)
				return false;
			for (int i = 0; i < a->nfields; i++)
				if (!ts_type_equal(a->fields[i].type, b->fields[i].type))
					return false;
			return true;
		default:
			return true;
	}
}

const char *
ts_type_kind_name(ts_type_kind kind)
{
	return ts_type_class_of(kind)->name;
}

static bool
type_print(ts_buf *b, const ts_type *t)
{
	bool		ok = true;

	if (t == NULL)
		return ts_buf_printf(b, NULL, "NULL-TYPE");
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_BINARY:
			ok = ts_buf_printf(b, NULL, "%s(%d)", ts_type_kind_name(t->kind), (int) t->length);
			break;
		case TS_VARCHAR:
			if (t->length == TS_STRING_LENGTH)
				ok = ts_buf_printf(b, NULL, "STRING");
			else
				ok = ts_buf_printf(b, NULL, "VARCHAR(%d)", (int) t->length);
			break;
		case TS_VARBINARY:
			if (t->length == TS_STRING_LENGTH)
				ok = ts_buf_printf(b, NULL, "BYTES");
			else
				ok = ts_buf_printf(b, NULL, "VARBINARY(%d)", (int) t->length);
			break;
		case TS_DECIMAL:
			ok = ts_buf_printf(b, NULL, "DECIMAL(%d, %d)", (int) t->precision, (int) t->scale);
			break;
		case TS_TIME:
			ok = ts_buf_printf(b, NULL, "TIME(%d)", (int) t->precision);
			break;
		case TS_TIMESTAMP:
			ok = ts_buf_printf(b, NULL, "TIMESTAMP(%d)", (int) t->precision);
			break;
		case TS_TIMESTAMP_LTZ:
			ok = ts_buf_printf(b, NULL, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", (int) t->precision);
			break;
		case TS_ARRAY:
		case TS_MULTISET:
			ok = ts_buf_printf(b, NULL, "%s<", ts_type_kind_name(t->kind)) &&
				type_print(b, t->element) && ts_buf_printf(b, NULL, ">");
			break;
		case TS_VECTOR:
			ok = ts_buf_printf(b, NULL, "VECTOR<") &&
				type_print(b, t->element) &&
				ts_buf_printf(b, NULL, ", %d>", (int) t->length);
			break;
		case TS_MAP:
			ok = ts_buf_printf(b, NULL, "MAP<") && type_print(b, t->key) &&
				ts_buf_printf(b, NULL, ", ") && type_print(b, t->value) &&
				ts_buf_printf(b, NULL, ">");
			break;
		case TS_ROW:
			ok = ts_buf_printf(b, NULL, "ROW<");
			for (int i = 0; ok && i < t->nfields; i++)
				ok = ts_buf_printf(b, NULL, "%s%s ", i ? ", " : "",
								   t->fields[i].name ? t->fields[i].name : "?") &&
					type_print(b, t->fields[i].type);
			ok = ok && ts_buf_printf(b, NULL, ">");
			break;
		default:
			ok = ts_buf_printf(b, NULL, "%s", ts_type_kind_name(t->kind));
			break;
	}
	if (ok && !t->nullable)
		ok = ts_buf_printf(b, NULL, " NOT NULL");
	return ok;
}

char *
ts_type_to_string(const ts_type *t)
{
	ts_buf		b;
	char	   *s;

	ts_buf_init(&b);
	if (!type_print(&b, t) || !ts_buf_append(&b, "", 1, NULL))
	{
		ts_buf_free(&b);
		return NULL;
	}
	s = (char *) b.data;
	return s;
}
