/*
 * ts_gen_schema_json.h - the schema files the fixture generator writes
 * (included by src/tools/ts_gen.c after its value formulas).
 *
 * Owns: Paimon's JSON of types and fields (nested field ids included) and
 * schema/schema-N with the table's columns, keys and options.
 */
#ifndef TS_GEN_SCHEMA_JSON_H
#define TS_GEN_SCHEMA_JSON_H

static cJSON *type_to_json(const ts_type *t);

static cJSON *
field_to_json(int32_t id, const char *name, const ts_type *t)
{
	cJSON	   *f = cJSON_CreateObject();

	cJSON_AddNumberToObject(f, "id", id);
	cJSON_AddStringToObject(f, "name", name);
	cJSON_AddItemToObject(f, "type", type_to_json(t));
	return f;
}

static cJSON *
type_to_json(const ts_type *t)
{
	cJSON	   *o;
	char	   *s;
	const char *nn = t->nullable ? "" : " NOT NULL";

	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_MULTISET:
			o = cJSON_CreateObject();
			s = pathf("%s%s", t->kind == TS_ARRAY ? "ARRAY" : "MULTISET", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "element", type_to_json(t->element));
			return o;
		case TS_VECTOR:
			o = cJSON_CreateObject();
			s = pathf("VECTOR%s", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "element", type_to_json(t->element));
			cJSON_AddNumberToObject(o, "length", t->length);
			return o;
		case TS_MAP:
			o = cJSON_CreateObject();
			s = pathf("MAP%s", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "key", type_to_json(t->key));
			cJSON_AddItemToObject(o, "value", type_to_json(t->value));
			return o;
		case TS_ROW:
			{
				cJSON	   *fs;

				o = cJSON_CreateObject();
				s = pathf("ROW%s", nn);
				cJSON_AddStringToObject(o, "type", s);
				free(s);
				fs = cJSON_AddArrayToObject(o, "fields");
				for (int i = 0; i < t->nfields; i++)
					cJSON_AddItemToArray(fs, field_to_json(t->fields[i].id, t->fields[i].name,
														   t->fields[i].type));
				return o;
			}
		default:
			s = ts_type_to_string(t);
			if (s == NULL)
				die("out of memory");
			o = cJSON_CreateString(s);
			ts_free(s);
			return o;
	}
}

static void
write_json(const char *path, cJSON *j)
{
	char	   *s = cJSON_Print(j);

	if (s == NULL)
		die("out of memory");
	write_bytes(path, s, strlen(s));
	cJSON_free(s);
}

static void
write_schema(const config *cfg, int id, int64_t time_millis)
{
	cJSON	   *j = cJSON_CreateObject();
	cJSON	   *fs,
			   *pk,
			   *opts;
	int32_t		highest = 0;
	char	   *path;

	cJSON_AddNumberToObject(j, "version", 3);
	cJSON_AddNumberToObject(j, "id", id);
	fs = cJSON_AddArrayToObject(j, "fields");
	for (int i = 0; i < cfg->ncols; i++)
	{
		const gcol *c = &cfg->cols[i];

		if (id == 0 ? !c->in0 : !c->in1)
			continue;
		cJSON_AddItemToArray(fs, field_to_json(c->id, id == 0 ? c->name0 : c->name1,
											   id == 0 ? c->type0 : c->type1));
	}
	/* highest id assigned so far (schema 0 ignores columns added later) */
	highest = id == 0 ? highest_id0 : next_id - 1;
	cJSON_AddNumberToObject(j, "highestFieldId", highest);
	pk = cJSON_AddArrayToObject(j, "partitionKeys");
	for (int i = 0; i < cfg->nparts; i++)
		cJSON_AddItemToArray(pk, cJSON_CreateString(cfg->parts[i]));
	pk = cJSON_AddArrayToObject(j, "primaryKeys");
	for (int i = 0; i < cfg->npk; i++)
		cJSON_AddItemToArray(pk, cJSON_CreateString(cfg->pk[i]));
	opts = cJSON_AddObjectToObject(j, "options");
	{
		char	   *b = pathf("%d", cfg->buckets);

		cJSON_AddStringToObject(opts, "bucket", b);
		free(b);
	}
	if (cfg->buckets > 0 && !cfg->bucket_key_implicit)
		cJSON_AddStringToObject(opts, "bucket-key", cfg->bucket_key);
	cJSON_AddStringToObject(opts, "file.format", cfg->parquet ? "parquet" : cfg->orc ? "orc" : "avro");
	cJSON_AddStringToObject(opts, "manifest.format", "avro");
	pk_schema_options(cfg, opts);
	/* append tables take only --option row-tracking.enabled=true */
	if (cfg->npk == 0 && pk_extra_true(cfg, "row-tracking.enabled"))
		cJSON_AddStringToObject(opts, "row-tracking.enabled", "true");
	/* ... and the file-index.* options (ts_gen_index.h) */
	for (int i = 0; i < cfg->nextra_opts && cfg->npk == 0; i++)
		if (strncmp(cfg->extra_opts[i], "file-index.", 11) == 0)
		{
			char	   *eq = strchr(cfg->extra_opts[i], '=');
			char	   *key = strndup(cfg->extra_opts[i], (size_t) (eq - cfg->extra_opts[i]));

			cJSON_DeleteItemFromObject(opts, key);
			cJSON_AddStringToObject(opts, key, eq + 1);
			free(key);
		}
	cJSON_AddNumberToObject(j, "timeMillis", (double) time_millis);
	path = pathf("%s/schema/schema-%d", cfg->dir, id);
	write_json(path, j);
	free(path);
	cJSON_Delete(j);
}

#endif							/* TS_GEN_SCHEMA_JSON_H */
