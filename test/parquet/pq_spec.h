/*
 * pq_spec.h - shared by test/parquet/pq_dump.c and test/unit/test_parquet.c:
 * parse Paimon DataField JSON (the schema-file type grammar) into ts_type
 * trees, and print ts_values in the canonical JSON form the differential
 * and oracle tests compare (see pq_dump.c for the form).
 */
#ifndef PQ_SPEC_H
#define PQ_SPEC_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "format/format.h"

static inline ts_type *parse_type(cJSON *j);

static inline ts_type *
parse_type_string(const char *s)
{
	ts_type    *t;
	char		word[64];
	int			i = 0;
	int			a = -1,
				b = -1;
	const char *p = s;

	while (isalpha((unsigned char) *p) || *p == '_')
	{
		if (i < 63)
			word[i++] = *p;
		p++;
	}
	word[i] = 0;
	if (*p == '(')
	{
		a = atoi(p + 1);
		if (strchr(p, ','))
			b = atoi(strchr(p, ',') + 1);
	}
	if (!strcmp(word, "BOOLEAN"))
		t = ts_type_new(TS_BOOLEAN, true);
	else if (!strcmp(word, "TINYINT"))
		t = ts_type_new(TS_TINYINT, true);
	else if (!strcmp(word, "SMALLINT"))
		t = ts_type_new(TS_SMALLINT, true);
	else if (!strcmp(word, "INT") || !strcmp(word, "INTEGER"))
		t = ts_type_new(TS_INT, true);
	else if (!strcmp(word, "BIGINT"))
		t = ts_type_new(TS_BIGINT, true);
	else if (!strcmp(word, "FLOAT"))
		t = ts_type_new(TS_FLOAT, true);
	else if (!strcmp(word, "DOUBLE"))
		t = ts_type_new(TS_DOUBLE, true);
	else if (!strcmp(word, "STRING") || !strcmp(word, "VARCHAR") || !strcmp(word, "CHAR"))
	{
		t = ts_type_new(!strcmp(word, "CHAR") ? TS_CHAR : TS_VARCHAR, true);
		t->length = a > 0 ? a : TS_STRING_LENGTH;
	}
	else if (!strcmp(word, "BLOB"))
		t = ts_type_new(TS_BLOB, true);
	else if (!strcmp(word, "BYTES") || !strcmp(word, "VARBINARY") || !strcmp(word, "BINARY"))
	{
		t = ts_type_new(!strcmp(word, "BINARY") ? TS_BINARY : TS_VARBINARY, true);
		t->length = a > 0 ? a : TS_STRING_LENGTH;
	}
	else if (!strcmp(word, "DATE"))
		t = ts_type_new(TS_DATE, true);
	else if (!strcmp(word, "TIME"))
	{
		t = ts_type_new(TS_TIME, true);
		t->precision = a >= 0 ? a : 0;
	}
	else if (!strcmp(word, "TIMESTAMP"))
	{
		t = ts_type_new(strstr(s, "LOCAL TIME ZONE") ? TS_TIMESTAMP_LTZ : TS_TIMESTAMP, true);
		t->precision = a >= 0 ? a : 6;
	}
	else if (!strcmp(word, "DECIMAL"))
	{
		t = ts_type_new(TS_DECIMAL, true);
		t->precision = a >= 0 ? a : 10;
		t->scale = b >= 0 ? b : 0;
	}
	else
	{
		fprintf(stderr, "pq_dump: unknown type \"%s\"\n", s);
		exit(2);
	}
	if (strstr(s, "NOT NULL"))
		t->nullable = false;
	return t;
}

static inline ts_field *
parse_fields(cJSON *arr, int *n)
{
	int			cnt = cJSON_GetArraySize(arr);
	ts_field   *f = calloc(cnt ? cnt : 1, sizeof(ts_field));

	for (int i = 0; i < cnt; i++)
	{
		cJSON	   *o = cJSON_GetArrayItem(arr, i);
		cJSON	   *id = cJSON_GetObjectItem(o, "id");
		cJSON	   *name = cJSON_GetObjectItem(o, "name");

		f[i].id = cJSON_IsNumber(id) ? id->valueint : -1;
		f[i].name = strdup(cJSON_IsString(name) ? name->valuestring : "");
		f[i].type = parse_type(cJSON_GetObjectItem(o, "type"));
	}
	*n = cnt;
	return f;
}

static inline ts_type *
parse_type(cJSON *j)
{
	ts_type    *t;
	const char *k;

	if (cJSON_IsString(j))
		return parse_type_string(j->valuestring);
	if (!cJSON_IsObject(j) || !cJSON_IsString(cJSON_GetObjectItem(j, "type")))
	{
		fprintf(stderr, "pq_dump: bad type\n");
		exit(2);
	}
	k = cJSON_GetObjectItem(j, "type")->valuestring;
	if (!strncmp(k, "ARRAY", 5) || !strncmp(k, "MULTISET", 8))
	{
		t = ts_type_new(k[0] == 'A' ? TS_ARRAY : TS_MULTISET, !strstr(k, "NOT NULL"));
		t->element = parse_type(cJSON_GetObjectItem(j, "element"));
	}
	else if (!strncmp(k, "MAP", 3))
	{
		t = ts_type_new(TS_MAP, !strstr(k, "NOT NULL"));
		t->key = parse_type(cJSON_GetObjectItem(j, "key"));
		t->value = parse_type(cJSON_GetObjectItem(j, "value"));
	}
	else if (!strncmp(k, "ROW", 3))
	{
		t = ts_type_new(TS_ROW, !strstr(k, "NOT NULL"));
		t->fields = parse_fields(cJSON_GetObjectItem(j, "fields"), &t->nfields);
	}
	else
		return parse_type_string(k);
	return t;
}

static inline void
print_json_string(FILE *o, const uint8_t *p, uint32_t len)
{
	fputc('"', o);
	for (uint32_t i = 0; i < len; i++)
	{
		uint8_t		c = p[i];

		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static inline void
print_int128(FILE *o, ts_int128 v)
{
	char		buf[64];
	int			i = 63;
	unsigned __int128 u = v < 0 ? -(unsigned __int128) v : (unsigned __int128) v;

	buf[i] = 0;
	do
	{
		buf[--i] = (char) ('0' + (int) (u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		buf[--i] = '-';
	fprintf(o, "\"%s\"", buf + i);
}

static inline void
print_value(FILE *o, const ts_value *v, const ts_type *t)
{
	if (v->isnull)
	{
		fprintf(o, "null");
		return;
	}
	switch (t->kind)
	{
		case TS_BOOLEAN:
			fprintf(o, v->v.i ? "true" : "false");
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_TIME:
			fprintf(o, "\"%lld\"", (long long) v->v.i);
			break;
		case TS_FLOAT:
			fprintf(o, "\"%.9g\"", (double) v->v.f);
			break;
		case TS_DOUBLE:
			fprintf(o, "\"%.17g\"", v->v.d);
			break;
		case TS_DECIMAL:
			print_int128(o, v->v.dec);
			break;
		case TS_CHAR:
		case TS_VARCHAR:
			print_json_string(o, v->v.s.p, v->v.s.len);
			break;
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			fprintf(o, "\"\\\\x");
			for (uint32_t i = 0; i < v->v.s.len; i++)
				fprintf(o, "%02x", v->v.s.p[i]);
			fprintf(o, "\"");
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			print_int128(o, (ts_int128) v->v.ts.millis * 1000000 + v->v.ts.nanos);
			break;
		case TS_ARRAY:
		case TS_MULTISET:
			fputc('[', o);
			for (int i = 0; i < v->v.nested.n; i++)
			{
				if (i)
					fputc(',', o);
				print_value(o, &v->v.nested.items[i], t->element);
			}
			fputc(']', o);
			break;
		case TS_MAP:
			fputc('[', o);
			for (int i = 0; i < v->v.nested.n; i++)
			{
				if (i)
					fputc(',', o);
				fputc('[', o);
				print_value(o, &v->v.nested.items[2 * i], t->key);
				fputc(',', o);
				print_value(o, &v->v.nested.items[2 * i + 1], t->value);
				fputc(']', o);
			}
			fputc(']', o);
			break;
		case TS_ROW:
			fputc('[', o);
			for (int i = 0; i < v->v.nested.n && i < t->nfields; i++)
			{
				if (i)
					fputc(',', o);
				print_value(o, &v->v.nested.items[i], t->fields[i].type);
			}
			fputc(']', o);
			break;
		default:
			fprintf(o, "\"?\"");
	}
}

#endif
