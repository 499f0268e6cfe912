/*
 * ts_tool_commit.h - the files that make a commit visible, as our tools
 * write them: a manifest list (ManifestFileMeta records) and a snapshot
 * JSON file with its LATEST / EARLIEST hints.
 *
 * Included after tools/ts_manifest_records.h by the tools that write
 * Paimon tables (src/tools/ts_gen.c with ts_gen_pk_write.h,
 * bench/ts_pq_register.c); each tool is one .c file.
 */
#ifndef TS_TOOL_COMMIT_H
#define TS_TOOL_COMMIT_H

#include <cjson/cJSON.h>

#include "format/avro/avro_writer.h"

/* One ManifestFileMeta record of a manifest list. */
typedef struct tool_manifest_meta
{
	const char *name;
	int64_t		size;
	int64_t		added;			/* _NUM_ADDED_FILES */
	int64_t		deleted;		/* _NUM_DELETED_FILES */
	ts_value	partition_stats;
	int64_t		schema_id;
	int64_t		min_bucket;
	int64_t		max_bucket;
	int64_t		min_level;
	int64_t		max_level;
} tool_manifest_meta;

/* Write metas[0..n) as dir/manifest/name; returns the file's size. */
static int64_t
tool_write_manifest_list(const char *dir, const char *name, const tool_manifest_meta *metas,
						 int n, ts_avro_codec codec)
{
	int			nml;
	ts_field   *fields = manifest_list_fields(&nml);
	ts_avro_writer *w;
	ts_err		err;
	ts_buf		out;
	char	   *path;
	int64_t		size;

	w = ts_avro_writer_create_for_fields(fields, nml, codec, &err);
	if (w == NULL)
		die("manifest list writer: %s", err.msg);
	for (int i = 0; i < n; i++)
	{
		const tool_manifest_meta *m = &metas[i];
		ts_value	v[11];

		memset(v, 0, sizeof(v));
		v[0].v.i = 2;			/* _VERSION */
		v[1].v.s.p = (const uint8_t *) m->name;
		v[1].v.s.len = (uint32_t) strlen(m->name);
		v[2].v.i = m->size;
		v[3].v.i = m->added;
		v[4].v.i = m->deleted;
		v[5] = m->partition_stats;
		v[6].v.i = m->schema_id;
		v[7].v.i = m->min_bucket;
		v[8].v.i = m->max_bucket;
		v[9].v.i = m->min_level;
		v[10].v.i = m->max_level;
		if (!ts_avro_writer_add(w, v, &err))
			die("manifest list entry: %s", err.msg);
	}
	ts_buf_init(&out);
	if (!ts_avro_writer_finish(w, &out, &err))
		die("manifest list finish: %s", err.msg);
	ts_avro_writer_free(w);
	path = pathf("%s/manifest/%s", dir, name);
	write_bytes(path, out.data, out.len);
	size = (int64_t) out.len;
	ts_buf_free(&out);
	free(path);
	return size;
}

/* What a snapshot file says. */
typedef struct tool_snapshot
{
	int64_t		id;
	int64_t		schema_id;
	const char *base_list;
	int64_t		base_list_size;
	const char *delta_list;
	int64_t		delta_list_size;
	const char *index_manifest; /* NULL: none */
	const char *commit_user;
	const char *commit_kind;	/* APPEND, COMPACT, OVERWRITE */
	int64_t		time_millis;
	int64_t		total_records;
	int64_t		delta_records;
	const char *changelog_list; /* NULL: none */
	int64_t		changelog_list_size;
	int64_t		changelog_records;
} tool_snapshot;

/* Write dir/snapshot/snapshot-<id>, LATEST, and EARLIEST for the first. */
static void
tool_write_snapshot(const char *dir, const tool_snapshot *s)
{
	cJSON	   *j = cJSON_CreateObject();
	char	   *text;
	char	   *path;
	char	   *hint;

	cJSON_AddNumberToObject(j, "version", 3);
	cJSON_AddNumberToObject(j, "id", (double) s->id);
	cJSON_AddNumberToObject(j, "schemaId", (double) s->schema_id);
	cJSON_AddStringToObject(j, "baseManifestList", s->base_list);
	cJSON_AddNumberToObject(j, "baseManifestListSize", (double) s->base_list_size);
	cJSON_AddStringToObject(j, "deltaManifestList", s->delta_list);
	cJSON_AddNumberToObject(j, "deltaManifestListSize", (double) s->delta_list_size);
	if (s->changelog_list)
	{
		cJSON_AddStringToObject(j, "changelogManifestList", s->changelog_list);
		cJSON_AddNumberToObject(j, "changelogManifestListSize", (double) s->changelog_list_size);
	}
	else
		cJSON_AddNullToObject(j, "changelogManifestList");
	if (s->index_manifest)
		cJSON_AddStringToObject(j, "indexManifest", s->index_manifest);
	cJSON_AddStringToObject(j, "commitUser", s->commit_user);
	cJSON_AddNumberToObject(j, "commitIdentifier", (double) s->id);
	cJSON_AddStringToObject(j, "commitKind", s->commit_kind);
	cJSON_AddNumberToObject(j, "timeMillis", (double) s->time_millis);
	cJSON_AddNumberToObject(j, "totalRecordCount", (double) s->total_records);
	cJSON_AddNumberToObject(j, "deltaRecordCount", (double) s->delta_records);
	cJSON_AddNumberToObject(j, "changelogRecordCount", (double) s->changelog_records);
	text = cJSON_Print(j);
	if (text == NULL)
		die("out of memory");
	path = pathf("%s/snapshot/snapshot-%lld", dir, (long long) s->id);
	write_bytes(path, text, strlen(text));
	free(path);
	cJSON_free(text);
	cJSON_Delete(j);
	hint = pathf("%lld", (long long) s->id);
	path = pathf("%s/snapshot/LATEST", dir);
	write_bytes(path, hint, strlen(hint));
	free(path);
	free(hint);
	if (s->id == 1)
	{
		path = pathf("%s/snapshot/EARLIEST", dir);
		write_bytes(path, "1", 1);
		free(path);
	}
}

#endif							/* TS_TOOL_COMMIT_H */
