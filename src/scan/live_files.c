/*
 * live_files.c - from a snapshot's manifest lists to its live data files.
 *
 * Owns: reading the base then delta manifest list, skipping whole
 * manifests that cannot hold a wanted file (explicit bucket filter against
 * _MIN/_MAX_BUCKET, level-0-only manifests when level 0 is not read,
 * partition filter against _PARTITION_STATS), reading the manifests, and
 * Java's merge (AbstractFileStoreScan.readAndMergeFileEntries): collect the
 * identifiers of all DELETE entries, then keep every ADD entry whose
 * identifier was not deleted.  The identifier is (partition bytes, bucket,
 * level, file name, extra files, embedded index, external path).  With the
 * metadata cache on, a manifest's entries come from its decoded record
 * (meta/manifest_cache.c) and it is not fetched ahead.  When the
 * result fills the cache (st->cache_fill) only the rules that are part of
 * the cache key (level 0, postpone) skip manifests.
 */
#include <string.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "meta/manifest_cache.h"
#include "scan/scan_internal.h"

/*
 * An entry with its names and stats, decoded: about this many bytes (the
 * struct, 320, and its record's share; bench/plan_cache.sh's table fills
 * 631 an entry), so that a cache fill's first block holds the live set.
 */
#define ENTRY_BYTES_GUESS 640
#define ENTRIES_HINT_MAX ((size_t) 1 << 20)	/* beyond: the arena's largest block anyway */

/* FNV-1a, continued from h */
uint32_t
scan_hash_bytes(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t
hash_str(uint32_t h, const char *s)
{
	if (s == NULL)
		return scan_hash_bytes(h, "\xff", 1);
	return scan_hash_bytes(h, s, strlen(s) + 1);
}

static uint32_t
entry_identity_hash(const ts_manifest_entry *e)
{
	uint32_t	h = 2166136261u;
	int			i;

	h = scan_hash_bytes(h, e->partition.data ? e->partition.data : (const uint8_t *) "", e->partition.len);
	h = scan_hash_bytes(h, &e->bucket, sizeof(e->bucket));
	h = scan_hash_bytes(h, &e->file.level, sizeof(e->file.level));
	h = hash_str(h, e->file.file_name);
	for (i = 0; i < e->file.nextra_files; i++)
		h = hash_str(h, e->file.extra_files[i]);
	if (e->file.embedded_file_index.data)
		h = scan_hash_bytes(h, e->file.embedded_file_index.data, e->file.embedded_file_index.len);
	h = hash_str(h, e->file.external_path);
	return h;
}

static bool
bytes_equal(ts_bytes a, ts_bytes b)
{
	if ((a.data == NULL) != (b.data == NULL))
		return false;
	return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static bool
str_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Same file identifier (FileEntry.Identifier). */
bool
scan_entry_same_file(const ts_manifest_entry *a, const ts_manifest_entry *b)
{
	int			i;

	if (a->bucket != b->bucket || a->file.level != b->file.level ||
		!str_equal(a->file.file_name, b->file.file_name) ||
		!bytes_equal(a->partition, b->partition) ||
		a->file.nextra_files != b->file.nextra_files ||
		!bytes_equal(a->file.embedded_file_index, b->file.embedded_file_index) ||
		!str_equal(a->file.external_path, b->file.external_path))
		return false;
	for (i = 0; i < a->file.nextra_files; i++)
		if (!str_equal(a->file.extra_files[i], b->file.extra_files[i]))
			return false;
	return true;
}

/* ---- identifier set (open addressing) ---- */

typedef struct id_set
{
	const ts_manifest_entry **slots;
	uint32_t	mask;
	uint32_t	n;
} id_set;

static bool
id_set_init(id_set *s, uint32_t expected, ts_err *err)
{
	uint32_t	cap = 16;

	if (expected > (1u << 28))
		return ts_error(err, TS_ERR_NOMEM, "too many DELETE manifest entries (%u)", expected);
	while (cap < expected * 2)
		cap <<= 1;
	s->slots = ts_calloc(cap, sizeof(*s->slots));
	if (s->slots == NULL)
		return ts_error_nomem(err, "merging manifest entries");
	s->mask = cap - 1;
	s->n = 0;
	return true;
}

static void
id_set_add(id_set *s, const ts_manifest_entry *e)
{
	uint32_t	i = entry_identity_hash(e) & s->mask;

	while (s->slots[i])
	{
		if (scan_entry_same_file(s->slots[i], e))
			return;
		i = (i + 1) & s->mask;
	}
	s->slots[i] = e;
	s->n++;
}

static bool
id_set_contains(const id_set *s, const ts_manifest_entry *e)
{
	uint32_t	i = entry_identity_hash(e) & s->mask;

	while (s->slots[i])
	{
		if (scan_entry_same_file(s->slots[i], e))
			return true;
		i = (i + 1) & s->mask;
	}
	return false;
}

/* ---- manifest selection ---- */

static bool
keep_manifest(ts_plan *plan, scan_state *st, const ts_manifest_file_meta *m,
			  bool *keep, ts_err *err)
{
	*keep = true;
	if (!st->cache_fill && st->has_bucket_filter && m->has_bucket_range &&
		(st->bucket_filter < m->min_bucket || st->bucket_filter > m->max_bucket))
	{
		*keep = false;
		return true;
	}
	if (st->table_bucket == -2 && m->has_bucket_range && m->max_bucket < 0)
	{
		*keep = false;			/* postpone mode: batch reads only real buckets */
		return true;
	}
	if (st->skip_level0 && m->has_level_range && m->max_level == 0)
	{
		*keep = false;
		return true;
	}
	if (!st->cache_fill && st->ctx->npartition_filters > 0 && st->npartition_keys > 0)
	{
		bool		may;

		if (!scan_partition_filter_may_match_stats(plan, st, &m->partition_stats,
												   m->num_added_files + m->num_deleted_files,
												   &may, err))
			return false;
		*keep = may;
	}
	return true;
}

/* Append the manifests of one manifest list to *all. */
bool
scan_read_manifest_list(ts_plan *plan, const char *list_name, int64_t snapshot_id,
						ts_manifest_file_meta **all, int *nall, int *cap, ts_err *err)
{
	char	   *path;
	ts_manifest_file_meta *metas;
	int			n,
				i;

	if (list_name == NULL || list_name[0] == '\0')
		return true;
	if (!scan_check_file_name(plan, "manifest list", list_name, err))
		return ts_error_context(err, "snapshot %lld", (long long) snapshot_id);
	path = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path, list_name);
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	if (!ts_manifest_list_read(plan->fs, path, &plan->arena, &metas, &n, err))
		return ts_error_context(err, "snapshot %lld", (long long) snapshot_id);
	if (*nall + n > *cap)
	{
		int			ncap = (*nall + n) * 2 + 8;
		ts_manifest_file_meta *na = ts_realloc(*all, sizeof(**all) * (size_t) ncap);

		if (na == NULL)
			return ts_error_nomemf(err, "reading manifest list \"%s\"", path);
		*all = na;
		*cap = ncap;
	}
	for (i = 0; i < n; i++)
		(*all)[(*nall)++] = metas[i];
	return true;
}

/*
 * On an object store, start fetching the manifests that the loop below
 * will read from manifests[from] on (up to TS_MANIFEST_WINDOW_FILES of
 * them, and TS_PREFETCH_WINDOW_BYTES by the sizes the lists give) whole
 * and concurrently, so that a cold plan costs a round trip per
 * tablescan.s3_max_in_flight manifests rather than per manifest.  The loop
 * then decodes them in order, each as soon as it is in (the others still
 * on their way), with the same results and errors: a manifest left out (a
 * selection or name the loop refuses, a failed fetch) is read there as
 * before.  *end: the first manifest after the window.  NULL window:
 * nothing to fetch (or err set for a cancel / out of memory).
 */
static bool
prefetch_manifests(ts_plan *plan, scan_state *st, const ts_manifest_file_meta *manifests,
				   int nmanifests, int from, ts_prefetch **window, int *end, ts_err *err)
{
	int			cap = nmanifests - from < TS_MANIFEST_WINDOW_FILES ? nmanifests - from :
		TS_MANIFEST_WINDOW_FILES;
	const char **paths = ts_malloc(sizeof(char *) * (size_t) (cap > 0 ? cap : 1));
	int64_t    *sizes = ts_malloc(sizeof(int64_t) * (size_t) (cap > 0 ? cap : 1));
	int			n = 0;
	int64_t		bytes = 0;
	int			i;

	*window = NULL;
	if (paths == NULL || sizes == NULL)
		goto nomem;
	for (i = from; i < nmanifests && n < cap; i++)
	{
		const ts_manifest_file_meta *m = &manifests[i];
		bool		keep;
		ts_err		ignore;

		if (!keep_manifest(plan, st, m, &keep, &ignore))
			break;				/* the loop reports it */
		if (!keep || (m->num_added_files == 0 && m->num_deleted_files == 0))
			continue;
		if (m->file_name == NULL || strchr(m->file_name, '/') != NULL ||
			!scan_check_file_name(plan, "manifest file", m->file_name, &ignore))
			break;
		if (n > 0 && m->file_size > 0 && bytes + m->file_size > TS_PREFETCH_WINDOW_BYTES)
			break;
		paths[n] = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path, m->file_name);
		if (paths[n] == NULL)
			goto nomem;
		/* decoded already (manifest_cache.c): not fetched */
		if (ts_manifest_cache_has(plan->fs, paths[n], m->file_size, st->light_ok))
			continue;
		bytes += m->file_size > 0 ? m->file_size : 0;
		sizes[n] = m->file_size;	/* the list's: a body of another length is refused */
		n++;
	}
	*end = i > from ? i : from + 1;
	/* one manifest: read alone, as before; more: started, each waited for when read */
	if (n >= 2)
		*window = ts_prefetch_start_sized(plan->fs, paths, sizes, n, err);
	ts_free(paths);
	ts_free(sizes);
	return n < 2 || *window != NULL;

nomem:
	ts_free(paths);
	ts_free(sizes);
	return ts_error_nomem(err, NULL);
}

bool
scan_read_live_files(ts_plan *plan, scan_state *st,
					 const ts_manifest_entry ***live, int *nlive, ts_err *err)
{
	ts_manifest_file_meta *manifests = NULL;
	int			nmanifests = 0,
				cap = 0,
				i;
	const ts_manifest_entry **entries = NULL;
	size_t		nentries = 0,
				ecap = 0;
	uint32_t	ndeletes = 0;
	size_t		nadds = 0;
	id_set		deleted = {0};
	const ts_manifest_entry **out = NULL;
	int			nout = 0;
	ts_manifest_keep *schema_keep = NULL;	/* the manifests' schema, read once */
	ts_prefetch *window = NULL;	/* manifests fetched ahead (object stores) */
	int			window_end = 0;
	bool		remote = (ts_fs_caps(plan->fs) & TS_FS_CAP_REMOTE) != 0;
	bool		ok = false;

	*live = NULL;
	*nlive = 0;

	if (remote)
	{
		/*
		 * Both lists in one round trip (each would cost a HEAD and reads),
		 * with the sizes the snapshot gives when it does (Paimon 1.1+): a
		 * body of another length is retried, then left to the list's own
		 * read, never taken as the list.
		 */
		const char *lists[2];
		int64_t		sizes[2];
		int			nl = 0;

		if (plan->snapshot->base_manifest_list && plan->snapshot->base_manifest_list[0] &&
			strchr(plan->snapshot->base_manifest_list, '/') == NULL)
		{
			sizes[nl] = plan->snapshot->base_manifest_list_size;
			lists[nl++] = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path,
										  plan->snapshot->base_manifest_list);
		}
		if (plan->snapshot->delta_manifest_list && plan->snapshot->delta_manifest_list[0] &&
			strchr(plan->snapshot->delta_manifest_list, '/') == NULL)
		{
			sizes[nl] = plan->snapshot->delta_manifest_list_size;
			lists[nl++] = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path,
										  plan->snapshot->delta_manifest_list);
		}
		for (int k = 0; k < nl; k++)
			if (lists[k] == NULL)
			{
				ts_error_nomem(err, NULL);
				goto done;
			}
		if ((window = ts_prefetch_objects_sized(plan->fs, lists, sizes, nl, err)) == NULL)
			goto done;
	}
	if (!scan_read_manifest_list(plan, plan->snapshot->base_manifest_list, plan->snapshot->id,
								 &manifests, &nmanifests, &cap, err) ||
		!scan_read_manifest_list(plan, plan->snapshot->delta_manifest_list, plan->snapshot->id,
								 &manifests, &nmanifests, &cap, err))
		goto done;

	/*
	 * An arena of its own for the entries (a cache fill) starts as large as
	 * the lists say they are: a large live set then fills one large block
	 * (huge pages, chunk_pool.c) rather than a chain of small ones.
	 */
	{
		size_t		expected = 0;

		for (i = 0; i < nmanifests && expected < ENTRIES_HINT_MAX; i++)
			if (manifests[i].num_added_files >= 0 && manifests[i].num_deleted_files >= 0 &&
				manifests[i].num_added_files < ENTRIES_HINT_MAX &&
				manifests[i].num_deleted_files < ENTRIES_HINT_MAX)
				expected += (size_t) (manifests[i].num_added_files + manifests[i].num_deleted_files);
		if (st->entry_arena != NULL)
			ts_arena_size_hint(st->entry_arena, expected * ENTRY_BYTES_GUESS);
		/*
		 * the entries' pointers in one array of that size (grown below if
		 * the lists were wrong), in the plan's arena: the live entries are
		 * kept in it in place
		 */
		if (expected > 0 && expected < ENTRIES_HINT_MAX &&
			(entries = ts_arena_alloc(&plan->arena, sizeof(*entries) * expected)) != NULL)
			ecap = expected;
	}

	/* read every kept manifest once, in order */
	schema_keep = ts_manifest_keep_new();	/* NULL: nothing kept, the same result */
	for (i = 0; i < nmanifests; i++)
	{
		const ts_manifest_file_meta *m = &manifests[i];
		bool		keep;
		char	   *path;
		ts_manifest_entry *me;
		bool		light;
		int			n,
					j;

		if (!TS_CHECK_INTERRUPTS(err))
			goto done;
		if (!keep_manifest(plan, st, m, &keep, err))
			goto done;
		if (!keep)
		{
			plan->metrics.manifests_skipped++;
			continue;
		}
		if (m->num_added_files == 0 && m->num_deleted_files == 0)
			continue;
		if (!scan_check_file_name(plan, "manifest file", m->file_name, err))
			goto done;
		path = ts_arena_printf(&plan->arena, "%s/manifest/%s", plan->table_path, m->file_name);
		if (path == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
		if (strchr(m->file_name, '/') != NULL)
		{
			ts_error(err, TS_ERR_CORRUPT, "snapshot %lld: manifest file name \"%s\" contains a slash",
					 (long long) plan->snapshot->id, m->file_name);
			goto done;
		}
		if (remote && i >= window_end)
		{
			ts_prefetch_free(window);
			if (!prefetch_manifests(plan, st, manifests, nmanifests, i, &window, &window_end, err))
				goto done;
		}
		if (!ts_manifest_read_cached(plan->fs, path, m->file_size,
									 m->num_added_files + m->num_deleted_files, schema_keep,
									 st->light_ok, st->entry_arena ? st->entry_arena : &plan->arena,
									 &me, &n, &light, err))
		{
			ts_error_context(err, "snapshot %lld", (long long) plan->snapshot->id);
			goto done;
		}
		if (light)
			st->entries_light = true;
		plan->metrics.manifests_read++;
		plan->metrics.entries_read += n;
		if (nentries + (size_t) n > ecap)
		{
			size_t		ncap = (nentries + (size_t) n) * 2 + 16;
			const ts_manifest_entry **ne = ts_arena_alloc(&plan->arena, sizeof(*entries) * ncap);

			if (ne == NULL)
			{
				ts_error_nomem(err, "merging manifest entries");
				goto done;
			}
			if (nentries > 0)
				memcpy(ne, entries, sizeof(*entries) * nentries);
			entries = ne;
			ecap = ncap;
		}
		for (j = 0; j < n; j++)
		{
			entries[nentries++] = &me[j];
			if (me[j].kind == TS_FILE_DELETE)
				ndeletes++;
			else if (me[j].kind == TS_FILE_ADD)
				nadds++;
		}
	}

	/*
	 * The live entries are kept in 'entries' itself (out[nout] is written
	 * after entries[k] was read, nout <= k).  Only ADDs (append-only
	 * commits): all of them are live, in order, and the passes below,
	 * which would touch every entry again (a cache miss each on a large
	 * live set), have nothing to do.
	 */
	out = entries;
	if (nadds == nentries)
	{
		nout = (int) nentries;
		goto merged;
	}

	/* pass 1: identifiers of deleted files */
	if (!id_set_init(&deleted, ndeletes, err))
		goto done;
	for (size_t k = 0; k < nentries; k++)
	{
		if ((k & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			goto done;
		if (entries[k]->kind == TS_FILE_DELETE)
			id_set_add(&deleted, entries[k]);
	}

	/* pass 2: ADDs not deleted, in place */
	for (size_t k = 0; k < nentries; k++)
	{
		if ((k & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			goto done;
		if (entries[k]->kind != TS_FILE_ADD)
			continue;
		if (deleted.n > 0 && id_set_contains(&deleted, entries[k]))
			continue;
		out[nout++] = entries[k];
	}
merged:
	*live = out ? out : ts_arena_alloc(&plan->arena, sizeof(*out));	/* never NULL */
	if (*live == NULL)
	{
		ts_error_nomem(err, "merging manifest entries");
		goto done;
	}
	*nlive = nout;
	ok = true;

done:
	ts_prefetch_free(window);
	ts_manifest_keep_free(schema_keep);
	ts_free(manifests);
	ts_free(deleted.slots);
	return ok;
}
