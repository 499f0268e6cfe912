/*
 * rest_table.c - a REST catalog's table: GET databases/{db}/tables/{t}.
 *
 * Owns: turning a GetTableResponse into what the scan needs: the table's
 * location, options, and a schema in the JSON of a Paimon schema file (the
 * catalog's schema has no version, id or highest field id: they are added),
 * so that a format table whose schema lives only in the catalog is planned
 * like any other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "scan/rest_internal.h"

/* The largest field id in fields, nested ROW fields included. */
static int64_t
highest_field_id(const cJSON *fields)
{
	const cJSON *f;
	int64_t		hi = -1;

	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(f, "id");
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(f, "type");

		if (rest_is_int64(id) && (int64_t) id->valuedouble > hi)
			hi = (int64_t) id->valuedouble;
		/* ROW<...> fields, also inside ARRAY / MAP / MULTISET */
		while (cJSON_IsObject(type))
		{
			const cJSON *nested = cJSON_GetObjectItemCaseSensitive(type, "fields");
			const cJSON *next;

			if (cJSON_IsArray(nested))
			{
				int64_t		n = highest_field_id(nested);

				if (n > hi)
					hi = n;
			}
			next = cJSON_GetObjectItemCaseSensitive(type, "element");
			if (next == NULL)
				next = cJSON_GetObjectItemCaseSensitive(type, "value");
			type = next;
		}
	}
	return hi;
}

bool
ts_rest_parse_table(const char *endpoint, const char *body, ts_rest_table *out, ts_err *err)
{
	cJSON	   *j = rest_parse_object(endpoint, body, err);
	cJSON	   *path,
			   *ext,
			   *sid,
			   *schema,
			   *fields,
			   *opts,
			   *type,
			   *comment;
	cJSON	   *copy = NULL;
	char	   *text;

	memset(out, 0, sizeof(*out));
	if (j == NULL)
		return false;
	path = cJSON_GetObjectItemCaseSensitive(j, "path");
	ext = cJSON_GetObjectItemCaseSensitive(j, "isExternal");
	sid = cJSON_GetObjectItemCaseSensitive(j, "schemaId");
	schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
	if (!cJSON_IsString(path) || path->valuestring[0] == '\0')
		goto bad_path;
	/* a location becomes the URLs of the table's files */
	if (ts_has_control_char(path->valuestring))
	{
		cJSON_Delete(j);
		return ts_error(err, TS_ERR_CORRUPT,
						"REST catalog: %s: field \"path\" contains a control character (CR, LF or another)",
						endpoint);
	}
	if (ext != NULL && !cJSON_IsNull(ext) && !cJSON_IsBool(ext))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "isExternal", "a boolean", err);
	}
	if (sid != NULL && !cJSON_IsNull(sid) && !rest_is_int64(sid))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "schemaId", "an integer", err);
	}
	if (!cJSON_IsObject(schema))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "schema", "an object", err);
	}
	fields = cJSON_GetObjectItemCaseSensitive(schema, "fields");
	if (!cJSON_IsArray(fields))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "schema.fields", "an array", err);
	}
	opts = cJSON_GetObjectItemCaseSensitive(schema, "options");
	if (opts != NULL && !cJSON_IsNull(opts) && !cJSON_IsObject(opts))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "schema.options", "an object", err);
	}
	type = opts ? cJSON_GetObjectItemCaseSensitive(opts, "type") : NULL;
	comment = cJSON_GetObjectItemCaseSensitive(schema, "comment");

	/* a schema file's JSON: the catalog's schema with version, id, highestFieldId */
	copy = cJSON_Duplicate(schema, 1);
	if (copy == NULL ||
		!cJSON_AddNumberToObject(copy, "version", 3) ||
		!cJSON_AddNumberToObject(copy, "id", cJSON_IsNumber(sid) ? sid->valuedouble : 0) ||
		(cJSON_GetObjectItemCaseSensitive(copy, "highestFieldId") == NULL &&
		 !cJSON_AddNumberToObject(copy, "highestFieldId", (double) highest_field_id(fields))) ||
		(cJSON_GetObjectItemCaseSensitive(copy, "partitionKeys") == NULL &&
		 !cJSON_AddArrayToObject(copy, "partitionKeys")) ||
		(cJSON_GetObjectItemCaseSensitive(copy, "primaryKeys") == NULL &&
		 !cJSON_AddArrayToObject(copy, "primaryKeys")))
		goto nomem;
	text = cJSON_PrintUnformatted(copy);
	if (text == NULL)
		goto nomem;
	out->schema_json = ts_strdup(text);
	cJSON_free(text);
	out->path = ts_strdup(path->valuestring);
	out->is_external = cJSON_IsTrue(ext);
	out->schema_id = cJSON_IsNumber(sid) ? (int64_t) sid->valuedouble : 0;
	out->format_table = cJSON_IsString(type) && strcmp(type->valuestring, "format-table") == 0;
	out->comment = cJSON_IsString(comment) ? rest_dupstr(comment->valuestring) : NULL;
	{
		cJSON	   *id = cJSON_GetObjectItemCaseSensitive(j, "id");

		out->table_id = cJSON_IsString(id) ? rest_dupstr(id->valuestring) : NULL;
	}
	cJSON_Delete(copy);
	cJSON_Delete(j);
	if (out->schema_json == NULL || out->path == NULL)
	{
		ts_rest_table_free(out);
		return ts_error_nomem(err, NULL);
	}
	return true;
bad_path:
	cJSON_Delete(j);
	return rest_bad_field(endpoint, "path", "a string", err);
nomem:
	if (copy)
		cJSON_Delete(copy);
	cJSON_Delete(j);
	return ts_error_nomem(err, NULL);
}

void
ts_rest_table_free(ts_rest_table *t)
{
	ts_free(t->path);
	ts_free(t->schema_json);
	ts_free(t->comment);
	ts_free(t->table_id);
	memset(t, 0, sizeof(*t));
}

bool
ts_rest_get_table(ts_rest_catalog *c, const char *database, const char *table,
				  ts_rest_table *out, ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, table, "");
	char	   *endpoint = ts_psprintf("GET databases/%s/tables/%s", database, table);
	ts_http_response r;
	char	   *url;
	bool		ok;

	memset(out, 0, sizeof(*out));
	url = path ? ts_psprintf("%s%s", c->uri, path) : NULL;
	ts_free(path);
	if (url == NULL || endpoint == NULL)
	{
		ts_free(url);
		ts_free(endpoint);
		return ts_error_nomem(err, NULL);
	}
	ok = rest_get_ok(c, url, endpoint, &r, err);
	ts_free(url);
	if (ok)
	{
		ok = ts_rest_parse_table(endpoint, r.body, out, err);
		ts_http_response_free(&r);
	}
	ts_free(endpoint);
	return ok;
}
