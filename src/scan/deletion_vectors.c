/*
 * deletion_vectors.c - the deletion vectors of a snapshot, by data file.
 *
 * Owns: reading the snapshot's index manifest (the complete index state),
 * keeping DELETION_VECTORS entries (ADD minus DELETE of the same index
 * file), and mapping each data file named in _DELETIONS_VECTORS_RANGES of
 * the same (partition, bucket) to (index file path, offset, length,
 * cardinality).  Index file path (PAIMON-FORMAT.md 1.8): _EXTERNAL_PATH,
 * else <bucket dir>/<name> with index-file-in-data-file-dir=true, else
 * <root>/index/<name>.  Reading the DV bytes is src/read's job.
 */
#include <string.h>

#include "scan/scan_internal.h"

typedef struct dv_slot
{
	const ts_index_manifest_entry *ie;
	const ts_dv_range *range;
	const char *index_path;
} dv_slot;

struct scan_dv_index
{
	dv_slot    *slots;
	uint32_t	mask;
	uint32_t	n;
};

static uint32_t
dv_hash(ts_bytes partition, int32_t bucket, const char *file)
{
	uint32_t	h = 2166136261u;

	h = scan_hash_bytes(h, partition.data ? partition.data : (const uint8_t *) "", partition.len);
	h = scan_hash_bytes(h, &bucket, sizeof(bucket));
	h = scan_hash_bytes(h, file, strlen(file));
	return h;
}

static bool
same_partition(ts_bytes a, ts_bytes b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* The entries of the snapshot's index manifest (which it must name), in plan's arena. */
bool
scan_read_index_manifest(ts_plan *plan, ts_index_manifest_entry **entries, int *n,
						 char **path_out, ts_err *err)
{
	char	   *path;

	if (!scan_check_file_name(plan, "index manifest", plan->snapshot->index_manifest, err))
		return ts_error_context(err, "snapshot %lld", (long long) plan->snapshot->id);
	path = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path,
						   plan->snapshot->index_manifest);
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	if (!ts_index_manifest_read(plan->fs, path, &plan->arena, entries, n, err))
		return ts_error_context(err, "snapshot %lld", (long long) plan->snapshot->id);
	if (path_out)
		*path_out = path;
	return true;
}

bool
scan_same_index_file(const ts_index_manifest_entry *a, const ts_index_manifest_entry *b)
{
	return a->bucket == b->bucket && same_partition(a->partition, b->partition) &&
		strcmp(a->file_name, b->file_name) == 0 && strcmp(a->index_type, b->index_type) == 0;
}

bool
scan_dv_lookup(const scan_dv_index *index, const ts_manifest_entry *e, ts_scan_file *file)
{
	uint32_t	i;

	if (index == NULL || index->n == 0)
		return false;
	i = dv_hash(e->partition, e->bucket, e->file.file_name) & index->mask;
	while (index->slots[i].ie)
	{
		const dv_slot *s = &index->slots[i];

		if (s->ie->bucket == e->bucket && same_partition(s->ie->partition, e->partition) &&
			strcmp(s->range->data_file, e->file.file_name) == 0)
		{
			file->dv_path = (char *) s->index_path;
			file->dv_offset = s->range->offset;
			file->dv_length = s->range->length;
			file->dv_cardinality = s->range->cardinality;
			file->dv_file_size = s->ie->file_size;
			return true;
		}
		i = (i + 1) & index->mask;
	}
	return false;
}

bool
scan_index_file_path(ts_plan *plan, scan_state *st, const ts_index_manifest_entry *ie,
				const char **path, ts_err *err)
{
	char	   *p;

	if (ie->external_path && ie->external_path[0])
		p = scan_normalize_external_path(plan, ie->external_path);
	else
	{
		if (!scan_check_file_name(plan, "index file", ie->file_name, err))
			return ts_error_context(err, "index manifest \"%s\"", plan->snapshot->index_manifest);
		if (scan_option_bool(plan, TS_OPT_INDEX_FILE_IN_DATA_FILE_DIR, false))
		{
			char	   *dir;

			if (!scan_bucket_dir(plan, st, ie->partition, ie->bucket, &dir, err))
				return false;
			p = ts_arena_printf(&plan->arena, "%s/%s", dir, ie->file_name);
		}
		else
			p = ts_arena_printf(&plan->arena, "%s/index/%s", plan->table_path, ie->file_name);
	}
	if (p == NULL)
		return ts_error_nomem(err, NULL);
	*path = p;
	return true;
}

bool
scan_dv_load(ts_plan *plan, scan_state *st, scan_dv_index **out, ts_err *err)
{
	ts_index_manifest_entry *entries;
	int			n,
				i,
				j;
	int64_t		nranges = 0;
	char	   *path;
	scan_dv_index *index;
	uint32_t	cap = 16;
	bool		any_delete = false;

	*out = NULL;
	if (plan->snapshot == NULL || plan->snapshot->index_manifest == NULL ||
		plan->snapshot->index_manifest[0] == '\0')
		return true;
	if (!scan_read_index_manifest(plan, &entries, &n, &path, err))
		return false;

	for (i = 0; i < n; i++)
	{
		if (entries[i].kind == TS_FILE_ADD && entries[i].ndv_ranges > 0 &&
			strcmp(entries[i].index_type, "DELETION_VECTORS") == 0)
			nranges += entries[i].ndv_ranges;
		if (entries[i].kind == TS_FILE_DELETE)
			any_delete = true;
	}
	if (nranges > (1 << 28))
		return ts_error(err, TS_ERR_NOMEM, "index manifest \"%s\": too many deletion vectors (%lld)",
						path, (long long) nranges);
	while (cap < (uint32_t) nranges * 2)
		cap <<= 1;

	index = ts_arena_alloc(&plan->arena, sizeof(*index));
	if (index == NULL)
		return ts_error_nomem(err, NULL);
	index->slots = ts_arena_alloc(&plan->arena, sizeof(dv_slot) * cap);
	if (index->slots == NULL)
		return ts_error_nomem(err, NULL);
	memset(index->slots, 0, sizeof(dv_slot) * cap);
	index->mask = cap - 1;
	index->n = 0;

	for (i = 0; i < n; i++)
	{
		const ts_index_manifest_entry *ie = &entries[i];
		const char *ipath = NULL;
		bool		deleted = false;

		if (ie->kind != TS_FILE_ADD || ie->ndv_ranges <= 0 ||
			strcmp(ie->index_type, "DELETION_VECTORS") != 0)
			continue;
		/* an index file deleted later in the same manifest is not live */
		for (j = i + 1; any_delete && j < n && !deleted; j++)
			if (entries[j].kind == TS_FILE_DELETE && scan_same_index_file(ie, &entries[j]))
				deleted = true;
		if (deleted)
			continue;
		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		if (!scan_index_file_path(plan, st, ie, &ipath, err))
			return false;
		for (j = 0; j < ie->ndv_ranges; j++)
		{
			const ts_dv_range *r = &ie->dv_ranges[j];
			uint32_t	h = dv_hash(ie->partition, ie->bucket, r->data_file) & index->mask;

			while (index->slots[h].ie)
			{
				dv_slot    *s = &index->slots[h];

				if (s->ie->bucket == ie->bucket && same_partition(s->ie->partition, ie->partition) &&
					strcmp(s->range->data_file, r->data_file) == 0)
					return ts_error(err, TS_ERR_CORRUPT,
									"index manifest \"%s\": data file \"%s\" has two deletion vectors",
									path, r->data_file);
				h = (h + 1) & index->mask;
			}
			index->slots[h].ie = ie;
			index->slots[h].range = r;
			index->slots[h].index_path = ipath;
			index->n++;
		}
	}
	*out = index;
	return true;
}
