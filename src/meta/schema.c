/*
 * schema.c - Paimon table schemas (schema/schema-N JSON, PAIMON-FORMAT.md 2).
 *
 * Owns: schema parsing with the read-time compatibility defaults, listing
 * schema ids, and lookups; the types of its fields are parsed by
 * schema_type.c.  Knows nothing about snapshots or data files.
 */
#include "meta/schema.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_fs.h"
#include "base/ts_s3.h"
#include "base/ts_type_class.h"
#include "meta/core_options.h"
#include "meta/meta_json.h"
#include "meta/schema_internal.h"

/* ---- schema ---------------------------------------------------------- */

void
ts_schema_free(ts_schema *s)
{
	if (s == NULL)
		return;
	if (s->fields)
	{
		for (int i = 0; i < s->nfields; i++)
		{
			ts_free(s->fields[i].name);
			ts_free(s->fields[i].description);
			ts_type_free(s->fields[i].type);
		}
		ts_free(s->fields);
	}
	for (int i = 0; i < s->npartition_keys; i++)
		ts_free(s->partition_keys[i]);
	ts_free(s->partition_keys);
	for (int i = 0; i < s->nprimary_keys; i++)
		ts_free(s->primary_keys[i]);
	ts_free(s->primary_keys);
	for (int i = 0; i < s->noptions; i++)
	{
		ts_free(s->option_keys[i]);
		ts_free(s->option_values[i]);
	}
	ts_free(s->option_keys);
	ts_free(s->option_values);
	ts_free(s->comment);
	ts_free(s);
}

static bool
string_list(const cJSON *root, const char *key, char ***out, int *n, const char *what, ts_err *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
	const cJSON *it;
	int			cnt,
				i = 0;

	*out = NULL;
	*n = 0;
	if (arr == NULL || cJSON_IsNull(arr))
		return true;
	if (!cJSON_IsArray(arr))
		return ts_error(err, TS_ERR_CORRUPT, "%s: \"%s\" is not an array", what, key);
	cnt = cJSON_GetArraySize(arr);
	if (cnt == 0)
		return true;
	*out = ts_calloc(cnt, sizeof(char *));
	if (*out == NULL)
		return ts_error_nomem(err, NULL);
	cJSON_ArrayForEach(it, arr)
	{
		if (i >= cnt)
			break;
		if (!cJSON_IsString(it) || it->valuestring == NULL)
			return ts_error(err, TS_ERR_CORRUPT, "%s: \"%s\" has a non-string element", what, key);
		if (((*out)[i] = ts_strdup(it->valuestring)) == NULL)
			return ts_error_nomem(err, NULL);
		i++;
		*n = i;
	}
	return true;
}

static bool
add_option(ts_schema *s, const char *k, const char *v, ts_err *err)
{
	char	  **nk = ts_realloc(s->option_keys, sizeof(char *) * (s->noptions + 1));

	if (nk == NULL)
		return ts_error_nomem(err, NULL);
	s->option_keys = nk;
	nk = ts_realloc(s->option_values, sizeof(char *) * (s->noptions + 1));
	if (nk == NULL)
		return ts_error_nomem(err, NULL);
	s->option_values = nk;
	s->option_keys[s->noptions] = ts_strdup(k);
	s->option_values[s->noptions] = ts_strdup(v);
	s->noptions++;
	if (s->option_keys[s->noptions - 1] == NULL || s->option_values[s->noptions - 1] == NULL)
		return ts_error_nomem(err, NULL);
	return true;
}

/*
 * A column whose type this reader does not know: named as a user sees it
 * (the column, the table as `what` names it, the type as the schema writes
 * it); the parser's words (which type name, at which nesting) in the detail.
 */
static bool
unknown_column_type(ts_err *err, const cJSON *field, const char *name, const char *what)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(field, "type");
	char		inner[TS_ERR_DETAIL_LEN];
	char		shown[128];
	char	   *printed = NULL;
	const char *text = "?";
	size_t		skip = 0;
	char		prefix[TS_ERR_DETAIL_LEN];

	/* json_field's own context, "field \"name\": ", is said by the message */
	snprintf(prefix, sizeof(prefix), "field \"%s\": ", name);
	if (strncmp(err->msg, prefix, strlen(prefix)) == 0)
		skip = strlen(prefix);
	snprintf(inner, sizeof(inner), "%.*s", (int) sizeof(inner) - 1, err->msg + skip);
	if (cJSON_IsString(type) && type->valuestring)
		text = type->valuestring;
	else if (type != NULL && (printed = cJSON_PrintUnformatted(type)) != NULL)
		text = printed;
	if (strlen(text) >= sizeof(shown))
		snprintf(shown, sizeof(shown), "%.*s...", (int) sizeof(shown) - 4, text);
	else
		snprintf(shown, sizeof(shown), "%s", text);
	if (printed)
		cJSON_free(printed);
	ts_error(err, TS_ERR_UNKNOWN_TYPE, "column \"%s\" of %s has type %s, which this reader does not know",
			 name, what, shown);
	return ts_error_detail(err, "%s", inner);
}

/*
 * A partition or primary key must be a column, of a type that can be a key
 * (as Java's SchemaValidation: no ARRAY, MULTISET, MAP or ROW; nor the
 * newer types, which Java does not key on either).
 */
static bool
key_column_ok(const ts_schema *s, const char *key, const char *role, const char *what, ts_err *err)
{
	int			f = ts_schema_field_index(s, key);
	const ts_type *t;

	if (f < 0)
		return ts_error(err, TS_ERR_CORRUPT, "%s: %s \"%s\" is not a column", what, role, key);
	t = s->fields[f].type;
	if (t != NULL && !ts_type_class_of(t->kind)->key)
		return ts_error(err, TS_ERR_UNSUPPORTED, "%s: %s column \"%s\" of type %s cannot be a key",
						what, role, key, ts_type_kind_name(t->kind));
	return true;
}

static bool
schema_from_json(ts_schema *s, const cJSON *root, const char *what, ts_err *err)
{
	const cJSON *fields,
			   *opts,
			   *it;
	int64_t		v;
	const char *str;
	int			nf,
				i;

	if (!cJSON_IsObject(root))
		return ts_error(err, TS_ERR_CORRUPT, "%s: schema is not a JSON object", what);
	err->code = TS_OK;
	s->version = 1;
	if (ts_json_int64(root, "version", &v, what, err))
		s->version = (int) v;
	else if (err->code != TS_OK)
		return false;
	if (ts_json_int64(root, "id", &v, what, err))
		s->id = v;
	else
		return err->code != TS_OK ? false :
			ts_error(err, TS_ERR_CORRUPT, "%s: schema has no \"id\"", what);
	if (ts_json_int64(root, "highestFieldId", &v, what, err))
		s->highest_field_id = (int32_t) v;
	else if (err->code != TS_OK)
		return false;
	if (ts_json_int64(root, "timeMillis", &v, what, err))
		s->time_millis = v;
	else if (err->code != TS_OK)
		return false;
	if (ts_json_string(root, "comment", &str, what, err))
	{
		if ((s->comment = ts_strdup(str)) == NULL)
			return ts_error_nomem(err, NULL);
	}
	else if (err->code != TS_OK)
		return false;

	fields = cJSON_GetObjectItemCaseSensitive(root, "fields");
	if (!cJSON_IsArray(fields))
		return ts_error(err, TS_ERR_CORRUPT, "%s: schema has no \"fields\" array", what);
	nf = cJSON_GetArraySize(fields);
	if (nf > 0)
	{
		s->fields = ts_calloc(nf, sizeof(ts_field));
		if (s->fields == NULL)
			return ts_error_nomem(err, NULL);
	}
	i = 0;
	cJSON_ArrayForEach(it, fields)
	{
		if (i >= nf)
			break;
		s->nfields = i + 1;
		if (!ts_type_json_field(it, &s->fields[i], 0, err))
		{
			if (err->code == TS_ERR_UNKNOWN_TYPE && s->fields[i].name != NULL)
				return unknown_column_type(err, it, s->fields[i].name, what);
			return ts_error_context(err, "%s", what);
		}
		i++;
	}

	if (!string_list(root, "partitionKeys", &s->partition_keys, &s->npartition_keys, what, err) ||
		!string_list(root, "primaryKeys", &s->primary_keys, &s->nprimary_keys, what, err))
		return false;

	opts = cJSON_GetObjectItemCaseSensitive(root, "options");
	if (opts != NULL && !cJSON_IsNull(opts))
	{
		if (!cJSON_IsObject(opts))
			return ts_error(err, TS_ERR_CORRUPT, "%s: \"options\" is not an object", what);
		cJSON_ArrayForEach(it, opts)
		{
			char		numbuf[64];
			const char *val;

			if (it->string == NULL)
				continue;
			if (cJSON_IsString(it) && it->valuestring)
				val = it->valuestring;
			else if (cJSON_IsBool(it))
				val = cJSON_IsTrue(it) ? "true" : "false";
			else if (cJSON_IsNumber(it))
			{
				int64_t		iv;

				if (ts_json_item_int64(it, &iv))
					snprintf(numbuf, sizeof(numbuf), "%lld", (long long) iv);
				else
					snprintf(numbuf, sizeof(numbuf), "%.17g", it->valuedouble);
				val = numbuf;
			}
			else if (cJSON_IsNull(it))
				continue;
			else
				return ts_error(err, TS_ERR_CORRUPT, "%s: option \"%s\" is not a string", what, it->string);
			if (!add_option(s, it->string, val, err))
				return false;
		}
	}

	/* read-time compatibility defaults (SchemaSerializer) */
	if (s->version <= 1 && ts_schema_option(s, TS_OPT_BUCKET) == NULL &&
		!add_option(s, TS_OPT_BUCKET, "1", err))
		return false;
	if (s->version <= 2 && ts_schema_option(s, TS_OPT_FILE_FORMAT) == NULL &&
		!add_option(s, TS_OPT_FILE_FORMAT, "orc", err))
		return false;

	/* keys must name columns of a type that can be a key */
	for (i = 0; i < s->npartition_keys; i++)
		if (!key_column_ok(s, s->partition_keys[i], "partition key", what, err))
			return false;
	for (i = 0; i < s->nprimary_keys; i++)
		if (!key_column_ok(s, s->primary_keys[i], "primary key", what, err))
			return false;
	return true;
}

ts_schema *
ts_schema_parse(const char *json, size_t len, const char *what, ts_err *err)
{
	cJSON	   *root;
	ts_schema  *s;
	ts_err		local;

	if (err == NULL)
		err = &local;
	if (what == NULL)
		what = "schema";
	root = ts_json_parse(json, len, what, err);
	if (root == NULL)
		return NULL;
	s = ts_calloc(1, sizeof(ts_schema));
	if (s == NULL)
	{
		cJSON_Delete(root);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (!schema_from_json(s, root, what, err))
	{
		cJSON_Delete(root);
		ts_schema_free(s);
		return NULL;
	}
	cJSON_Delete(root);
	return s;
}

ts_schema *
ts_schema_load(ts_fs *fs, const char *branch_root, int64_t id, ts_err *err)
{
	return ts_schema_load_as(fs, branch_root, id, NULL, err);
}

ts_schema *
ts_schema_load_as(ts_fs *fs, const char *branch_root, int64_t id, const char *what, ts_err *err)
{
	char	   *path = ts_psprintf("%s/schema/schema-%lld", branch_root, (long long) id);
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_schema  *s;

	if (path == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (!ts_read_whole_file(fs, path, &data, &len, err))
	{
		if (err && err->code == TS_ERR_NOT_FOUND)
		{
			char		cause[TS_ERR_MSG_LEN];

			/* an object store's answer (HTTP status, error code) stays as the detail */
			memcpy(cause, err->msg, sizeof(cause));
			ts_error(err, TS_ERR_NOT_FOUND, "schema %lld of table \"%s\" does not exist (no file \"%s\")",
					 (long long) id, branch_root, path);
			if ((ts_fs_path_caps(fs, path) & TS_FS_CAP_REMOTE))
				ts_error_detail(err, "%s", cause);
		}
		ts_free(path);
		return NULL;
	}
	s = ts_schema_parse((const char *) data, len, what ? what : path, err);
	if (s != NULL && s->id != id)
	{
		ts_error(err, TS_ERR_CORRUPT, "%s: schema id %lld does not match the file name",
				 what ? what : path, (long long) s->id);
		ts_schema_free(s);
		s = NULL;
	}
	ts_free(data);
	ts_free(path);
	return s;
}

/*
 * Parse "<prefix><long>" exactly as Java Long.parseLong would (optional
 * sign, digits, in range).  Used by the versioned-file listing rule.
 */
static bool
parse_versioned_name(const char *name, const char *prefix, int64_t *id)
{
	size_t		pl = strlen(prefix);
	const char *p;
	char	   *end;
	long long	v;

	if (strncmp(name, prefix, pl) != 0)
		return false;
	p = name + pl;
	if (*p == '\0')
		return false;
	if ((*p == '-' || *p == '+') && p[1] == '\0')
		return false;
	for (const char *q = (*p == '-' || *p == '+') ? p + 1 : p; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*id = v;
	return true;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

bool
ts_list_versioned_ids(ts_fs *fs, const char *dir, const char *prefix, int64_t **ids, int *count, ts_err *err)
{
	char	  **names = NULL;
	int			n = 0,
				k = 0;
	int64_t    *arr;

	*ids = NULL;
	*count = 0;

	/*
	 * On an object store a missing "directory" lists as empty (or not
	 * found): no probe first, one listing instead of two.
	 */
	if ((ts_fs_path_caps(fs, dir) & TS_FS_CAP_REMOTE) ? !ts_fs_allows_name(fs, dir, NULL) : !ts_path_is_dir(fs, dir))
		return true;
	if (!ts_list_dir(fs, dir, &names, &n, err))
	{
		if (err && err->code == TS_ERR_NOT_FOUND)
			return true;
		return false;
	}
	arr = ts_malloc(sizeof(int64_t) * (n > 0 ? n : 1));
	if (arr == NULL)
	{
		ts_free_names(names, n);
		return ts_error_nomem(err, NULL);
	}
	for (int i = 0; i < n; i++)
	{
		int64_t		id;

		if (parse_versioned_name(names[i], prefix, &id))
			arr[k++] = id;
	}
	ts_free_names(names, n);
	if (k > 1)
		qsort(arr, k, sizeof(int64_t), cmp_i64);
	if (k == 0)
	{
		ts_free(arr);
		arr = NULL;
	}
	*ids = arr;
	*count = k;
	return true;
}

bool
ts_schema_list_ids(ts_fs *fs, const char *branch_root, int64_t **ids, int *count, ts_err *err)
{
	char	   *dir = ts_path_join(branch_root, "schema");
	bool		ok;

	if (dir == NULL)
		return ts_error_nomem(err, NULL);
	ok = ts_list_versioned_ids(fs, dir, "schema-", ids, count, err);
	ts_free(dir);
	return ok;
}

const char *
ts_schema_option(const ts_schema *s, const char *key)
{
	if (!ts_core_option_readable(key))
		return NULL;
	for (int i = 0; i < s->noptions; i++)
		if (strcmp(s->option_keys[i], key) == 0)
			return s->option_values[i];
	return NULL;
}

int
ts_schema_field_index(const ts_schema *s, const char *name)
{
	for (int i = 0; i < s->nfields; i++)
		if (s->fields[i].name && strcmp(s->fields[i].name, name) == 0)
			return i;
	return -1;
}

int
ts_schema_field_index_by_id(const ts_schema *s, int32_t id)
{
	for (int i = 0; i < s->nfields; i++)
		if (s->fields[i].id == id)
			return i;
	return -1;
}

bool
ts_schema_is_partition_key(const ts_schema *s, const char *name)
{
	for (int i = 0; i < s->npartition_keys; i++)
		if (strcmp(s->partition_keys[i], name) == 0)
			return true;
	return false;
}

bool
ts_schema_trimmed_primary_keys(const ts_schema *s, int **field_indexes, int *n, ts_err *err)
{
	int		   *arr;
	int			k = 0;

	*field_indexes = NULL;
	*n = 0;
	if (s->nprimary_keys == 0)
		return true;
	arr = ts_malloc(sizeof(int) * s->nprimary_keys);
	if (arr == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < s->nprimary_keys; i++)
	{
		int			idx;

		if (ts_schema_is_partition_key(s, s->primary_keys[i]))
			continue;
		idx = ts_schema_field_index(s, s->primary_keys[i]);
		if (idx < 0)
		{
			ts_free(arr);
			return ts_error(err, TS_ERR_CORRUPT, "primary key \"%s\" is not a column", s->primary_keys[i]);
		}
		arr[k++] = idx;
	}
	if (k == 0)
	{
		ts_free(arr);
		return true;
	}
	*field_indexes = arr;
	*n = k;
	return true;
}

bool
ts_schema_bucket_keys(const ts_schema *s, int **field_indexes, int *n, ts_err *err)
{
	const char *bk = ts_schema_option(s, TS_OPT_BUCKET_KEY);
	int		   *arr;
	int			k = 0,
				cap;
	const char *p;

	*field_indexes = NULL;
	*n = 0;
	if (bk == NULL || *bk == '\0')
		return ts_schema_trimmed_primary_keys(s, field_indexes, n, err);
	cap = 1;
	for (p = bk; *p; p++)
		if (*p == ',')
			cap++;
	arr = ts_malloc(sizeof(int) * cap);
	if (arr == NULL)
		return ts_error_nomem(err, NULL);
	p = bk;
	for (;;)
	{
		const char *q = strchr(p, ',');
		size_t		len = q ? (size_t) (q - p) : strlen(p);
		int			idx = -1;

		for (int i = 0; i < s->nfields; i++)
			if (s->fields[i].name && strlen(s->fields[i].name) == len &&
				strncmp(s->fields[i].name, p, len) == 0)
			{
				idx = i;
				break;
			}
		if (idx < 0)
		{
			ts_free(arr);
			return ts_error(err, TS_ERR_INVALID, "bucket-key \"%.*s\" is not a column of the table",
							(int) len, p);
		}
		if (s->fields[idx].type != NULL && !ts_type_class_of(s->fields[idx].type->kind)->key)
		{
			ts_free(arr);
			return ts_error(err, TS_ERR_UNSUPPORTED, "bucket key column \"%.*s\" of type %s cannot be a key",
							(int) len, p, ts_type_kind_name(s->fields[idx].type->kind));
		}
		arr[k++] = idx;
		if (q == NULL)
			break;
		p = q + 1;
	}
	*field_indexes = arr;
	*n = k;
	return true;
}
