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
 * walk when no other writer committed in between.  Also the numbering of
 * a write's own append files per bucket (ts_append_numbering), which the
 * commit and a transaction's pending entries share.
 */
#include <string.h>

#include "base/ts_base.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "write/write_internal.h"

/* what find looks for */
typedef struct seq_key
{
	const ts_bucket_seqs *s;
	const uint8_t *partition;
	uint32_t	partition_len;
	int32_t		bucket;			/* -1: any (the partitions index) */
} seq_key;

static bool
seq_is(void *arg, int32_t pos)
{
	const seq_key *k = arg;
	const ts_bucket_seq *b = &k->s->seqs[pos];

	return (k->bucket < 0 || b->bucket == k->bucket) && b->partition_len == k->partition_len &&
		memcmp(b->partition, k->partition, k->partition_len) == 0;
}

static uint64_t
partition_hash(const uint8_t *partition, uint32_t partition_len)
{
	return ts_hash_bytes(TS_HASH_SEED, partition, partition_len);
}

static uint64_t
bucket_hash(const uint8_t *partition, uint32_t partition_len, int32_t bucket)
{
	return ts_hash_bytes(TS_HASH_SEED ^ (uint32_t) bucket, partition, partition_len);
}

static ts_bucket_seq *
find(const ts_bucket_seqs *s, const uint8_t *partition, uint32_t partition_len, int32_t bucket)
{
	seq_key		k = {s, partition, partition_len, bucket};
	int32_t		pos = ts_hash_index_find(&s->buckets, bucket_hash(partition, partition_len, bucket),
										 seq_is, &k);

	return pos >= 0 ? &s->seqs[pos] : NULL;
}

static bool
note(ts_bucket_seqs *s, const ts_manifest_entry *e, ts_err *err)
{
	const uint8_t *part = e->partition.data;
	uint32_t	part_len = (uint32_t) e->partition.len;
	ts_bucket_seq *b = find(s, part, part_len, e->bucket);

	if (b == NULL)
	{
		seq_key		any = {s, part, part_len, -1};
		uint64_t	ph = partition_hash(part, part_len);
		int32_t		first = ts_hash_index_find(&s->partitions, ph, seq_is, &any);

		if (s->nseqs == s->cap_seqs)
		{
			int			cap = s->cap_seqs ? s->cap_seqs * 2 : 16;
			ts_bucket_seq *ns = ts_realloc(s->seqs, sizeof(ts_bucket_seq) * (size_t) cap);

			if (ns == NULL)
				return ts_error_nomem(err, "sequence numbers");
			s->seqs = ns;
			s->cap_seqs = cap;
		}
		b = &s->seqs[s->nseqs];
		memset(b, 0, sizeof(*b));
		b->partition = ts_malloc(part_len ? part_len : 1);
		if (b->partition == NULL)
			return ts_error_nomem(err, "sequence numbers");
		memcpy(b->partition, part, part_len);
		b->partition_len = part_len;
		b->bucket = e->bucket;
		b->max_seq = -1;
		b->next_in_partition = -1;
		if (!ts_hash_index_add(&s->buckets, bucket_hash(part, part_len, e->bucket), s->nseqs, err))
		{
			ts_free(b->partition);
			return false;
		}
		/* the partition's chain: the new bucket second (the index keeps the first) */
		if (first >= 0)
		{
			b->next_in_partition = s->seqs[first].next_in_partition;
			s->seqs[first].next_in_partition = s->nseqs;
		}
		else if (!ts_hash_index_add(&s->partitions, ph, s->nseqs, err))
		{
			ts_free(b->partition);
			return false;
		}
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
	seq_key		any = {s, partition, partition_len, -1};

	for (int32_t i = ts_hash_index_find(&s->partitions, partition_hash(partition, partition_len),
										seq_is, &any);
		 i >= 0; i = s->seqs[i].next_in_partition)
	{
		const ts_bucket_seq *b = &s->seqs[i];

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
	ts_hash_index_free(&s->buckets);
	ts_hash_index_free(&s->partitions);
	memset(s, 0, sizeof(*s));
}

/* ---- a write's own append files, numbered on per bucket ---- */

typedef struct file_in_bucket
{
	ts_new_file *const *files;
	const ts_new_file *f;
} file_in_bucket;

static bool
file_in_bucket_of(void *arg, int32_t pos)
{
	const file_in_bucket *k = arg;
	const ts_new_file *a = k->files[pos];

	return a->bucket == k->f->bucket && a->partition_len == k->f->partition_len &&
		memcmp(a->partition, k->f->partition, a->partition_len) == 0;
}

bool
ts_append_numbering_init(ts_append_numbering *n, ts_new_file *const *files, int nfiles,
						 ts_arena *arena, ts_err *err)
{
	n->files = files;
	ts_hash_index_init(&n->first);
	n->taken = ts_arena_alloc(arena, sizeof(int64_t) * (size_t) (nfiles > 0 ? nfiles : 1));
	return n->taken != NULL || ts_error_nomem(err, "sequence numbers");
}

int64_t
ts_append_numbering_next(ts_append_numbering *n, int i, ts_err *err)
{
	const ts_new_file *f = n->files[i];
	file_in_bucket key = {n->files, f};
	uint64_t	h = bucket_hash(f->partition, f->partition_len, f->bucket);
	int32_t		j = ts_hash_index_find(&n->first, h, file_in_bucket_of, &key);
	int64_t		at;

	if (j < 0)
	{
		j = i;
		n->taken[i] = 0;
		if (!ts_hash_index_add(&n->first, h, i, err))
			return -1;
	}
	at = n->taken[j];
	n->taken[j] += f->rows;
	return at;
}

void
ts_append_numbering_free(ts_append_numbering *n)
{
	ts_hash_index_free(&n->first);
}
