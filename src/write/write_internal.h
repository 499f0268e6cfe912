/*
 * write_internal.h - what the files of src/write share.
 *
 * Column statistics (write_stats.c), the data files a table writer has
 * finished (table_writer.c) and the commit that publishes them (commit.c).
 */
#ifndef TS_WRITE_INTERNAL_H
#define TS_WRITE_INTERNAL_H

#include "base/ts_hash_index.h"
#include "base/ts_value.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "write/write.h"

/* metadata.stats-mode */
typedef enum ts_stats_mode
{
	TS_STATS_NONE,
	TS_STATS_COUNTS,
	TS_STATS_TRUNCATE,
	TS_STATS_FULL
} ts_stats_mode;

/* min / max / null count of one column of one file */
typedef struct ts_col_stats
{
	const ts_type *type;
	ts_stats_mode mode;
	int			truncate;		/* code points (strings) for TRUNCATE */
	bool		has;			/* a non-null value seen */
	ts_value	min;
	ts_value	max;
	ts_buf		min_bytes;		/* string copies of min / max */
	ts_buf		max_bytes;
	int64_t		nulls;
	/* how add compares: 0 none kept, 1 v.i, 2 v.dec, 3 v.ts, 4 ts_value_order */
	int			order;
} ts_col_stats;

bool		ts_stats_mode_parse(const char *value, ts_stats_mode *mode, int *truncate, ts_err *err);
void		ts_col_stats_init(ts_col_stats *s, const ts_type *t, ts_stats_mode mode, int truncate);
bool		ts_col_stats_add(ts_col_stats *s, const ts_value *v, ts_err *err);
void		ts_col_stats_free(ts_col_stats *s);
/*
 * The SimpleStats of n columns as BinaryRows with arity prefix (min, max)
 * and null counts (counts[i] = -1: unknown), after truncation.
 */
bool		ts_col_stats_encode(ts_col_stats *s, int n, ts_buf *min_row, ts_buf *max_row,
								int64_t *counts, ts_err *err);

/* A finished data file of one partition and bucket, not yet committed. */
typedef struct ts_new_file
{
	char	   *name;			/* data-<uuid>-<n>.<ext> */
	char	   *path;
	int64_t		size;
	int64_t		rows;
	ts_buf		min_values;		/* _VALUE_STATS */
	ts_buf		max_values;
	int64_t    *null_counts;	/* nfields, -1 = unknown */
	bool		stats_cols_empty;	/* mode none: _VALUE_STATS_COLS = [] */
	int64_t		creation_millis;	/* local wall clock as if UTC, as Java */
	/* where it belongs */
	const uint8_t *partition;	/* BinaryRow with arity prefix (its writer's) */
	uint32_t	partition_len;
	const ts_value *partition_values;	/* decoded, one per partition key */
	int32_t		bucket;
	int64_t		min_seq;		/* set by the commit, unless numbered */
	int64_t		max_seq;
	/* primary-key tables (kv_writer.c): numbered as written, key stats */
	bool		numbered;
	ts_buf		min_key;		/* BinaryRow of the first / last key */
	ts_buf		max_key;
	ts_buf		key_min_values; /* _KEY_STATS */
	ts_buf		key_max_values;
	int64_t    *key_null_counts;	/* nkeys */
	int			nkeys;
	int64_t		delete_rows;	/* -U / -D rows */
} ts_new_file;

/* The files a writer has finished and not committed, in the order finished. */
ts_new_file *const *ts_table_writer_finished(const ts_table_writer *w, int *n);

/* What a commit publishes (commit.c). */
/* ---- a snapshot's buckets, from one walk of its manifests (bucket_seqs.c) ---- */

typedef struct ts_bucket_seq
{
	uint8_t    *partition;		/* BinaryRow with arity prefix */
	uint32_t	partition_len;
	int32_t		bucket;
	int64_t		max_seq;		/* largest sequence number of its entries */
	int32_t		min_buckets;	/* bucket counts of its ADD entries (0: none given) */
	int32_t		max_buckets;
	int32_t		next_in_partition;	/* the partition's next bucket in seqs, or -1 */
} ts_bucket_seq;

typedef struct ts_bucket_seqs
{
	int64_t		snapshot_id;	/* the snapshot walked; 0: none (an empty table) */
	ts_bucket_seq *seqs;
	int			nseqs;
	int			cap_seqs;
	ts_hash_index buckets;		/* (partition, bucket) -> position in seqs */
	ts_hash_index partitions;	/* partition -> its first bucket's position */
} ts_bucket_seqs;

struct ts_snapshot;

/* Every entry of L's manifests (L NULL: nothing); out is freed on failure. */
bool		ts_bucket_seqs_walk(ts_fs *fs, const char *table_path, const struct ts_snapshot *L,
								ts_bucket_seqs *out, ts_err *err);
/* The bucket's largest sequence number; -1 when it has no entry. */
int64_t		ts_bucket_seqs_max(const ts_bucket_seqs *s, const uint8_t *partition,
							   uint32_t partition_len, int32_t bucket);
/* A bucket count other than total_buckets that an ADD entry of the partition has; 0 if none. */
int32_t		ts_bucket_seqs_other_count(const ts_bucket_seqs *s, const uint8_t *partition,
									   uint32_t partition_len, int32_t total_buckets);
void		ts_bucket_seqs_free(ts_bucket_seqs *s);

/*
 * Append files numbered on per (partition, bucket), in the order given: each
 * file's first number comes after the rows of the earlier files of its
 * bucket (one hash lookup a file, not a pass over the earlier ones).
 */
typedef struct ts_append_numbering
{
	ts_new_file *const *files;
	int64_t    *taken;			/* per first file of a bucket: rows numbered so far */
	ts_hash_index first;		/* (partition, bucket) -> its first file */
} ts_append_numbering;

bool		ts_append_numbering_init(ts_append_numbering *n, ts_new_file *const *files, int nfiles,
									 ts_arena *arena, ts_err *err);
/* files[i]'s first number counted from its bucket's first (0); -1 on error */
int64_t		ts_append_numbering_next(ts_append_numbering *n, int i, ts_err *err);
void		ts_append_numbering_free(ts_append_numbering *n);

/* ---- manifest merging at commit (manifest_merge.c) ---- */

typedef struct ts_manifest_merge_options
{
	int64_t		target_size;	/* manifest.target-file-size */
	int			min_count;		/* manifest.merge-min-count */
	int64_t		full_threshold; /* manifest.full-compaction-threshold-size */
} ts_manifest_merge_options;

#define TS_MANIFEST_MERGE_DEFAULTS {(int64_t) 8 << 20, 30, (int64_t) 16 << 20}
#define TS_MERGE_KEEP (-1)

/* Java's mustChange: a manifest with DELETE entries or under the target size. */
bool		ts_manifest_must_change(const ts_manifest_file_meta *m, const ts_manifest_merge_options *o);
/* Does a full compaction run: the must-change manifests reach the threshold? */
bool		ts_manifest_full_triggered(const ts_manifest_file_meta *m, int n,
									   const ts_manifest_merge_options *o);
/*
 * Minor compaction: run[i] = the run manifest i is merged in (runs numbered
 * from 0, in order), TS_MERGE_KEEP when it stays listed as it is.  Returns
 * the number of runs.
 */
int			ts_manifest_minor_plan(const ts_manifest_file_meta *m, int n,
								   const ts_manifest_merge_options *o, int *run);

/* Store a new manifest file's bytes under a fresh name (*name, the caller's). */
typedef bool (*ts_manifest_store_fn) (void *arg, const uint8_t *data, size_t len, char **name,
									  ts_err *err);

typedef struct ts_manifest_merge_ctx
{
	ts_fs	   *fs;
	const char *table_path;
	const ts_type *const *partition_types;
	int			npartition_keys;
	ts_manifest_merge_options opts;
	int			codec;			/* manifest.compression: a ts_avro_codec */
	int			zstd_level;		/* its zstandard level */
	ts_manifest_store_fn store;
	void	   *store_arg;
	ts_arena   *arena;			/* the resulting metas */
} ts_manifest_merge_ctx;

/* The manifests of the next base list: in merged as Java's ManifestFileMerger does. */
bool		ts_manifest_merge(const ts_manifest_merge_ctx *c, const ts_manifest_file_meta *in, int n,
							  ts_manifest_file_meta **out, int *nout, ts_err *err);

/* n zeroed values in a (at least one); NULL: no memory (commit.c) */
ts_value   *ts_write_values(ts_arena *a, int n);
/* SimpleStats {min, max, null counts (ncounts < 0: null)} as an Avro record value (commit.c) */
bool		ts_write_stats_value(ts_value *out, const uint8_t *min, size_t minlen, const uint8_t *max,
								 size_t maxlen, const int64_t *counts, int ncounts, ts_arena *a);
/* A decoded ManifestEntry as a row of ts_manifest_entry_fields(row_tracking) (in a); NULL: no memory. */
ts_value   *ts_manifest_entry_value(const ts_manifest_entry *e, bool row_tracking, ts_arena *a);
/* commit_options.c - RetryWaiter: min(min * 2^retry, max) plus random % max(1, 20% of that), in ms. */
int64_t		ts_commit_retry_wait_ms(int64_t min_ms, int64_t max_ms, int retry, uint32_t random);
/* Java TimeUtils.parseDuration in ms: digits, optional unit (ms when none). */
bool		ts_write_parse_duration_ms(const char *key, const char *value, int64_t *ms, ts_err *err);

typedef struct ts_commit_input
{
	const char *table_path;
	ts_fs	   *fs;				/* what the table's metadata is read and written through */
	const ts_schema *schema;	/* the files' schema */
	int32_t		total_buckets;	/* -1 unaware, N fixed */
	const ts_type *const *partition_types;
	int			npartition_keys;
	ts_new_file **files;
	int			nfiles;
	ts_new_file **changelog_files;	/* changelog-producer input, numbered as written */
	int			nchangelog_files;
	int			max_retries;	/* commit.max-retries */
	int64_t		min_retry_wait_ms;
	int64_t		max_retry_wait_ms;
	int64_t		timeout_ms;		/* commit.timeout: no retry once this has passed */
	ts_manifest_merge_options merge;	/* manifest.* merging of the base list */
	int			manifest_codec; /* manifest.compression: a ts_avro_codec */
	int			manifest_zstd_level;	/* its zstandard level */
	const char *commit_user;
	const ts_catalog_commit *catalog;	/* non-NULL: the catalog commits (REST) */
	/* the buckets of a snapshot already walked (a primary-key writer's), or NULL */
	const ts_bucket_seqs *known;
} ts_commit_input;

bool		ts_write_commit(const ts_commit_input *in, int64_t *snapshot_id, ts_err *err);
/* commit_options.c - stop after failed attempt retry (elapsed_ms in)?  err then says why. */
bool		ts_commit_give_up(const ts_commit_input *in, int retry, int64_t elapsed_ms, ts_err *err);

/*
 * commit_catalog.c: hand snapshot id (its JSON built on the snapshot of
 * base_uuid) to in->catalog with the statistics of the commit's files;
 * *committed false: another writer's came first.
 */
bool		ts_commit_through_catalog(const ts_commit_input *in, int64_t id, const char *base_uuid,
									  const char *snapshot_json, bool *committed, ts_err *err);
/* Java's PartitionStatistics of the commit's files as a JSON array, cJSON_free it; NULL with err. */
char	   *ts_commit_statistics_json(const ts_commit_input *in, ts_err *err);

/* ---- primary-key tables (kv_writer.c) ---- */


/* A table option's value (the writer's options over the schema's), or NULL. */
typedef const char *(*ts_write_option_fn) (const void *arg, const char *key);

typedef struct ts_kv_layout ts_kv_layout;
typedef struct ts_kv_buffer ts_kv_buffer;

/* NULL with err when the table is one this writer refuses (naming the option). */
ts_kv_layout *ts_kv_layout_create(const ts_schema *schema, ts_write_option_fn option,
								  const void *arg, ts_err *err);
void		ts_kv_layout_free(ts_kv_layout *l);
const ts_field *ts_kv_layout_fields(const ts_kv_layout *l, int *n);
int			ts_kv_layout_nkeys(const ts_kv_layout *l);
bool		ts_kv_check_kind(const ts_kv_layout *l, ts_row_kind kind, ts_err *err);
/* Can values replace old_values (schema order): the same key, nothing a merge would not read? */
bool		ts_kv_check_update(const ts_kv_layout *l, const ts_value *values,
							   const ts_value *old_values, ts_err *err);
/* The key BinaryRow (arity prefix) of a file row (keys first). */
bool		ts_kv_key_row(const ts_kv_layout *l, const ts_value *file_row, ts_buf *out, ts_err *err);
/* The first sequence number of a bucket: after the latest snapshot's largest. */
bool		ts_kv_first_seq(ts_kv_layout *l, ts_fs *fs, const char *table_path,
							const uint8_t *partition, uint32_t partition_len, int32_t bucket,
							int64_t *first, ts_err *err);
/* The buckets of the snapshot ts_kv_first_seq walked (for the commit), NULL before. */
const ts_bucket_seqs *ts_kv_bucket_seqs(const ts_kv_layout *l);

ts_kv_buffer *ts_kv_buffer_create(const ts_kv_layout *l, ts_err *err);
void		ts_kv_buffer_free(ts_kv_buffer *b);
bool		ts_kv_buffer_add(ts_kv_buffer *b, const ts_value *values, ts_row_kind kind, int64_t seq,
							 ts_err *err);
int			ts_kv_buffer_count(const ts_kv_buffer *b);
size_t		ts_kv_buffer_bytes(const ts_kv_buffer *b);
/* Sort into layers; then ts_kv_buffer_next hands out each layer's file rows in key order. */
void		ts_kv_buffer_sort(ts_kv_buffer *b);
int			ts_kv_buffer_layers(const ts_kv_buffer *b);
#define TS_KV_ALL_RECORDS (-2)	/* ts_kv_buffer_next: every record, any layer */
const ts_value *ts_kv_buffer_next(ts_kv_buffer *b, int layer, int *pos);
void		ts_kv_buffer_reset(ts_kv_buffer *b);

#endif							/* TS_WRITE_INTERNAL_H */
