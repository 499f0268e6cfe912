/*
 * commit_catalog.c - handing a commit's snapshot to a catalog that commits
 * (the REST catalog, WRITES-AND-STREAMS.md 2.4).
 *
 * Owns: Java's per-partition statistics of a commit (PartitionEntry of
 * each ADD entry, merged per partition: records, bytes, files, the last
 * file's creation time as epoch ms, total buckets; the spec's values as
 * Java's InternalRowPartitionComputer renders them, a NULL or blank value
 * as the default partition name) and the call of the catalog.  When the
 * catalog's answer is an error (maybe lost after it committed), the
 * store is asked whether snapshot-<id> is ours (its uuid): then it did.
 */
#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "base/ts_base.h"
#include "meta/partition.h"
#include "meta/snapshot.h"
#include "write/write_internal.h"

/* The local zone's offset now, in ms (creation times are local wall clocks written as UTC). */
static int64_t
local_offset_ms(void)
{
	time_t		now = time(NULL);
	struct tm	tm;

	if (localtime_r(&now, &tm) == NULL)
		return 0;
	return (int64_t) tm.tm_gmtoff * 1000;
}

/* {"k": "v", ...} of a file's partition; NULL with err. */
static cJSON *
partition_spec(const ts_commit_input *in, const ts_new_file *f, const ts_partition_options *opts,
			   ts_err *err)
{
	cJSON	   *spec = cJSON_CreateObject();

	if (spec == NULL)
	{
		ts_error_nomem(err, "partition statistics");
		return NULL;
	}
	for (int i = 0; i < in->npartition_keys; i++)
	{
		char	   *text = NULL;
		const char *value;
		bool		ok;

		if (!ts_partition_value_string(&f->partition_values[i], in->partition_types[i],
									   opts->legacy_name, &text, err))
		{
			cJSON_Delete(spec);
			return NULL;
		}
		value = text == NULL || ts_partition_is_blank(text) ?
			(opts->default_name ? opts->default_name : TS_DEFAULT_PARTITION_NAME) : text;
		ok = cJSON_AddStringToObject(spec, in->schema->partition_keys[i], value) != NULL;
		ts_free(text);
		if (!ok)
		{
			cJSON_Delete(spec);
			ts_error_nomem(err, "partition statistics");
			return NULL;
		}
	}
	return spec;
}

char *
ts_commit_statistics_json(const ts_commit_input *in, ts_err *err)
{
	cJSON	   *list = cJSON_CreateArray();
	ts_partition_options opts;
	int64_t		offset = local_offset_ms();
	char	   *text;

	if (list == NULL)
	{
		ts_error_nomem(err, "partition statistics");
		return NULL;
	}
	if (!ts_partition_options_from_schema(in->schema, &opts, err))
	{
		cJSON_Delete(list);
		return NULL;
	}
	for (int i = 0; i < in->nfiles; i++)
	{
		const ts_new_file *f = in->files[i];
		int64_t		records = 0,
					bytes = 0,
					files = 0,
					last = INT64_MIN;
		bool		seen = false;
		cJSON	   *entry,
				   *spec;

		/* once per partition: at its first file */
		for (int j = 0; j < i && !seen; j++)
			seen = in->files[j]->partition_len == f->partition_len &&
				memcmp(in->files[j]->partition, f->partition, f->partition_len) == 0;
		if (seen)
			continue;
		for (int j = i; j < in->nfiles; j++)
		{
			const ts_new_file *g = in->files[j];

			if (g->partition_len != f->partition_len ||
				memcmp(g->partition, f->partition, f->partition_len) != 0)
				continue;
			records += g->rows;
			bytes += g->size;
			files++;
			if (g->creation_millis - offset > last)
				last = g->creation_millis - offset;
		}
		spec = partition_spec(in, f, &opts, err);
		entry = spec ? cJSON_CreateObject() : NULL;
		if (entry == NULL)
		{
			if (spec)
				ts_error_nomem(err, "partition statistics");
			cJSON_Delete(spec);
			cJSON_Delete(list);
			return NULL;
		}
		cJSON_AddItemToObject(entry, "spec", spec);
		cJSON_AddNumberToObject(entry, "recordCount", (double) records);
		cJSON_AddNumberToObject(entry, "fileSizeInBytes", (double) bytes);
		cJSON_AddNumberToObject(entry, "fileCount", (double) files);
		cJSON_AddNumberToObject(entry, "lastFileCreationTime", (double) last);
		cJSON_AddNumberToObject(entry, "totalBuckets", (double) in->total_buckets);
		cJSON_AddItemToArray(list, entry);
	}
	text = cJSON_PrintUnformatted(list);
	cJSON_Delete(list);
	if (text == NULL)
		ts_error_nomem(err, "partition statistics");
	return text;
}

/* Is snapshot-<id> in the store the one of snapshot_json (the same uuid)? */
static bool
landed(const ts_commit_input *in, int64_t id, const char *snapshot_json)
{
	cJSON	   *j = cJSON_Parse(snapshot_json);
	cJSON	   *uuid = j ? cJSON_GetObjectItemCaseSensitive(j, "uuid") : NULL;
	ts_err		ignore = {0};
	ts_snapshot *s;
	bool		ours = false;

	if (cJSON_IsString(uuid))
	{
		s = ts_snapshot_load(in->fs, in->table_path, id, &ignore);
		ours = s != NULL && s->uuid != NULL && strcmp(s->uuid, uuid->valuestring) == 0;
		ts_snapshot_free(s);
	}
	cJSON_Delete(j);
	return ours;
}

bool
ts_commit_through_catalog(const ts_commit_input *in, int64_t id, const char *base_uuid,
						  const char *snapshot_json, bool *committed, ts_err *err)
{
	char	   *statistics = ts_commit_statistics_json(in, err);
	bool		ok;

	*committed = false;
	if (statistics == NULL)
		return false;
	ok = in->catalog->commit(in->catalog->arg, id, base_uuid, snapshot_json, statistics,
							 committed, err);
	cJSON_free(statistics);
	if (!ok && err->code != TS_ERR_CANCELED && landed(in, id, snapshot_json))
	{
		/* the answer was lost, the commit was not */
		memset(err, 0, sizeof(*err));
		*committed = true;
		return true;
	}
	return ok;
}
