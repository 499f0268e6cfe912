/*
 * orc_schema.c - an ORC file's own schema in Paimon terms.
 *
 * Owns: ts_orc_file_schema (orc.h): the ORC type tree mapped to a Paimon
 * ROW type with field ids from the "paimon.id" attributes.
 */
#include <string.h>

#include "format/orc/orc.h"
#include "format/orc/orc_decode.h"

static ts_type *
paimon_type_of(const orc_tail *tail, uint32_t id, int depth, ts_err *err)
{
	const orc_type *ot = &tail->types[id];
	ts_type    *t = NULL;
	int			i;

	if (depth > 64)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "ORC types nested too deeply");
		return NULL;
	}
	switch (ot->kind)
	{
		case ORC_BOOLEAN:
			t = ts_type_new(TS_BOOLEAN, true);
			break;
		case ORC_BYTE:
			t = ts_type_new(TS_TINYINT, true);
			break;
		case ORC_SHORT:
			t = ts_type_new(TS_SMALLINT, true);
			break;
		case ORC_INT:
			t = ts_type_new(TS_INT, true);
			break;
		case ORC_LONG:
			t = ts_type_new(TS_BIGINT, true);
			break;
		case ORC_FLOAT:
			t = ts_type_new(TS_FLOAT, true);
			break;
		case ORC_DOUBLE:
			t = ts_type_new(TS_DOUBLE, true);
			break;
		case ORC_STRING:
		case ORC_VARCHAR:
		case ORC_CHAR:
			t = ts_type_new(ot->kind == ORC_CHAR ? TS_CHAR : TS_VARCHAR, true);
			if (t)
				t->length = ot->kind == ORC_STRING || ot->max_length == 0 ?
					TS_STRING_LENGTH : (int32_t) ot->max_length;
			break;
		case ORC_BINARY:
			t = ts_type_new(TS_VARBINARY, true);
			if (t)
				t->length = TS_STRING_LENGTH;
			break;
		case ORC_DECIMAL:
			t = ts_type_new(TS_DECIMAL, true);
			if (t)
			{
				t->precision = ot->precision ? (int32_t) ot->precision : 38;
				t->scale = (int32_t) ot->scale;
			}
			break;
		case ORC_DATE:
			t = ts_type_new(TS_DATE, true);
			break;
		case ORC_TIMESTAMP:
		case ORC_TIMESTAMP_INSTANT:
			t = ts_type_new(ot->kind == ORC_TIMESTAMP ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ, true);
			if (t)
				t->precision = 9;
			break;
		case ORC_LIST:
			t = ts_type_new(TS_ARRAY, true);
			if (t && !(t->element = paimon_type_of(tail, ot->subtypes[0], depth + 1, err)))
				goto fail;
			break;
		case ORC_MAP:
			t = ts_type_new(TS_MAP, true);
			if (t && (!(t->key = paimon_type_of(tail, ot->subtypes[0], depth + 1, err)) ||
					  !(t->value = paimon_type_of(tail, ot->subtypes[1], depth + 1, err))))
				goto fail;
			break;
		case ORC_STRUCT:
			t = ts_type_new(TS_ROW, true);
			if (!t)
				break;
			t->fields = ts_calloc(ot->nsubtypes ? ot->nsubtypes : 1, sizeof(ts_field));
			if (!t->fields)
				goto nomem;
			for (i = 0; i < ot->nsubtypes; i++)
			{
				ts_field   *f = &t->fields[i];

				t->nfields = i + 1;
				f->id = tail->types[ot->subtypes[i]].paimon_id;
				f->name = ts_strdup(ot->field_names[i]);
				if (!f->name)
					goto nomem;
				if (!(f->type = paimon_type_of(tail, ot->subtypes[i], depth + 1, err)))
					goto fail;
			}
			break;
		default:
			ts_error(err, TS_ERR_UNSUPPORTED, "ORC %s column %u has no Paimon type",
					 orc_type_kind_name(ot->kind), id);
			return NULL;
	}
	if (!t)
		goto nomem;
	return t;
nomem:
	ts_error_nomem(err, NULL);
fail:
	ts_type_free(t);
	return NULL;
}

ts_type *
ts_orc_file_schema(ts_fs *fs, const char *path, ts_err *err)
{
	ts_file    *f = ts_file_open(fs, path, err);
	orc_tail	tail;
	int64_t		bytes_read = 0;
	ts_type    *t = NULL;

	if (!f)
		return NULL;
	memset(&tail, 0, sizeof(tail));
	if (orc_read_tail(f, &tail, &bytes_read, err))
		t = paimon_type_of(&tail, 0, 0, err);
	if (!t)
		ts_error_context(err, "ORC file \"%s\"", path);
	orc_tail_free(&tail);
	ts_file_close(f);
	return t;
}
