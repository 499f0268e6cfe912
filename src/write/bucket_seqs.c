/*
 * bucket_seqs.c - what a writer needs to know of a snapshot's buckets, from
 * one walk of its manifests.
 *
 * Owns: reading every entry of a snapshot's base and delta manifest lists
 * once (ADD and DELETE entries: a removed file's sequence numbers stay
 * taken) into, per (partition, bucket), the largest sequence number and
 * the smallest and largest bucket count its ADD entries were written with.
 * A primary-key writer numbers its records from it (kv_writer.c) and the
 * commit (commit.c) checks bucket counts and numbers files from the same
 * walk when no other writer committed in between.
 */
#include <string.h>

#include "base/ts_base.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "write/write_internal.h"

static ts_bucket_seq *
find(const ts_bucket_seqs *s, const uint8_t *partition, uint32_t partition_len, int32_t bucket)
{
	for (int i = 0; i < s->nseqs; i++)
	{
		ts_bucket_seq *b = &s->seqs[i];

		if (b->bucket == bucket && b->partition_len == partition_len &&
			memcmp(b->partition, partition, partition_len) == 0)
			return b;
	}
	return NULL;
}

static bool
note(ts_bucket_seqs *s, const ts_manifest_entry *e, ts_err *err)
{
	ts_bucket_seq *b = find(s, e->partition.data, (uint32_t) e->partition.len, e->bucket);

	if (b == NULL)
	{
		ts_bucket_seq *ns = ts_realloc(s->seqs, sizeof(ts_bucket_seq) * (size_t) (s->nseqs + 1));

		if (ns == NULL)
			return ts_error_nomem(err, "sequence numbers");
		s->seqs = ns;
		b = &s->seqs[s->nseqs];
		memset(b, 0, sizeof(*b));
		b->partition = ts_malloc(e->partition.len ? e->partition.len : 1);
		if (b->partition == NULL)
			return ts_error_nomem(err, "sequence numbers");
		memcpy(b->partition, e->partition.data, e->partition.len);
		b->partition_len = (uint32_t) e->partition.len;
		b->bucket = e->bucket;
		b->max_seq = -1;
		s->nseqs++;
	}
	if (e->file.max_sequence_number > b->max_seq)
		b->max_seq = e->file.max_sequence_number;
	if (e->kind == TS_FILE_ADD && e->total_buckets > 0)
	{
		if (b->min_buckets == 0 || e->total_buckets < b->min_buckets)
			b->min_buckets = e->total_buckets;
		if (e->total_buckets > b->max_buckets)
			b->max_buckets = e->total_buckets;
	}
	return true;
}

bool
ts_bucket_seqs_walk(ts_fs *fs, const char *table_path, const ts_snapshot *L, ts_bucket_seqs *out,
					ts_err *err)
{
	ts_arena	arena;
	bool		ok = true;

	memset(out, 0, sizeof(*out));
	if (L == NULL)
		return true;
	out->snapshot_id = L->id;
	ts_arena_init(&arena, 64 * 1024);
	for (int li = 0; ok && li < 2; li++)
	{
		const char *list = li == 0 ? L->base_manifest_list : L->delta_manifest_list;
		ts_manifest_file_meta *metas;
		int			nmetas = 0;
		char	   *path = ts_psprintf("%s/manifest/%s", table_path, list);

		ok = path != NULL || ts_error_nomem(err, "a path");
		ok = ok && ts_manifest_list_read(fs, path, &arena, &metas, &nmetas, err);
		ts_free(path);
		for (int m = 0; ok && m < nmetas; m++)
		{
			ts_manifest_entry *e;
			int			ne;

			path = ts_psprintf("%s/manifest/%s", table_path, metas[m].file_name);
			ok = path != NULL || ts_error_nomem(err, "a path");
			ok = ok && ts_check_interrupts(err) && ts_manifest_read(fs, path, &arena, &e, &ne, err);
			ts_free(path);
			for (int k = 0; ok && k < ne; k++)
				ok = note(out, &e[k], err);
		}
	}
	ts_arena_free(&arena);
	if (!ok)
		ts_bucket_seqs_free(out);
	return ok;
}

int64_t
ts_bucket_seqs_max(const ts_bucket_seqs *s, const uint8_t *partition, uint32_t partition_len,
				   int32_t bucket)
{
	const ts_bucket_seq *b = find(s, partition, partition_len, bucket);

	return b != NULL ? b->max_seq : -1;
}

int32_t
ts_bucket_seqs_other_count(const ts_bucket_seqs *s, const uint8_t *partition,
						   uint32_t partition_len, int32_t total_buckets)
{
	for (int i = 0; i < s->nseqs; i++)
	{
		const ts_bucket_seq *b = &s->seqs[i];

		if (b->partition_len != partition_len || memcmp(b->partition, partition, partition_len) != 0)
			continue;
		if (b->min_buckets > 0 && b->min_buckets != total_buckets)
			return b->min_buckets;
		if (b->max_buckets > 0 && b->max_buckets != total_buckets)
			return b->max_buckets;
	}
	return 0;
}

void
ts_bucket_seqs_free(ts_bucket_seqs *s)
{
	for (int i = 0; i < s->nseqs; i++)
		ts_free(s->seqs[i].partition);
	ts_free(s->seqs);
	memset(s, 0, sizeof(*s));
}
