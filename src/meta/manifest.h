/*
 * manifest.h - manifest lists, manifest entries and index manifests.
 *
 * Owns: decoding the three metadata file kinds into plain structs, for
 * every version found in the wild (0.8/0.9 nullable-union records,
 * _VERSION, fields added in 1.0-1.3), whatever their container format
 * (Avro or ORC, chosen by the file's magic, through src/format).  Results
 * are allocated in the caller's arena: a plan frees them all at once.
 * Byte fields (_PARTITION, keys, stats rows) are kept serialized; decode
 * them with binary_row.h when needed.
 */
#ifndef TS_MANIFEST_H
#define TS_MANIFEST_H

#include "base/ts_fs.h"
#include "base/ts_value.h"

typedef struct ts_bytes
{
	const uint8_t *data;		/* NULL when the field was null/absent */
	uint32_t	len;
} ts_bytes;

/* SimpleStats: min/max rows (BinaryRow bytes) and per-column null counts. */
typedef struct ts_simple_stats
{
	ts_bytes	min_values;
	ts_bytes	max_values;
	int			nnull_counts;	/* -1 when _NULL_COUNTS is null */
	int64_t    *null_counts;	/* element -1 = unknown */
} ts_simple_stats;

typedef struct ts_manifest_file_meta
{
	char	   *file_name;
	int64_t		file_size;
	int64_t		num_added_files;
	int64_t		num_deleted_files;
	ts_simple_stats partition_stats;
	int64_t		schema_id;
	bool		has_bucket_range;	/* _MIN_BUCKET/_MAX_BUCKET (1.1+) */
	int32_t		min_bucket;
	int32_t		max_bucket;
	bool		has_level_range;
	int32_t		min_level;
	int32_t		max_level;
	bool		has_row_id_range;	/* _MIN_ROW_ID/_MAX_ROW_ID (row tracking) */
	int64_t		min_row_id;
	int64_t		max_row_id;
} ts_manifest_file_meta;

typedef struct ts_data_file_meta
{
	char	   *file_name;
	int64_t		file_size;
	int64_t		row_count;
	ts_bytes	min_key;
	ts_bytes	max_key;
	ts_simple_stats key_stats;
	ts_simple_stats value_stats;
	int64_t		min_sequence_number;
	int64_t		max_sequence_number;
	int64_t		schema_id;
	int32_t		level;
	int			nextra_files;
	char	  **extra_files;
	bool		has_creation_time;
	int64_t		creation_time_millis;
	int64_t		delete_row_count;	/* -1 = null */
	ts_bytes	embedded_file_index;
	int32_t		file_source;		/* -1 = null; 0 APPEND, 1 COMPACT */
	int			nvalue_stats_cols;	/* -1 = null (stats for all columns) */
	char	  **value_stats_cols;
	char	   *external_path;		/* NULL if none */
	bool		has_first_row_id;
	int64_t		first_row_id;
	int			nwrite_cols;		/* -1 = null */
	char	  **write_cols;
} ts_data_file_meta;

typedef enum ts_file_kind
{
	TS_FILE_ADD = 0,
	TS_FILE_DELETE = 1
} ts_file_kind;

typedef struct ts_manifest_entry
{
	ts_file_kind kind;
	ts_bytes	partition;
	int32_t		bucket;
	int32_t		total_buckets;
	ts_data_file_meta file;
} ts_manifest_entry;

typedef struct ts_dv_range
{
	char	   *data_file;		/* f0 */
	int32_t		offset;			/* f1 */
	int32_t		length;			/* f2 */
	int64_t		cardinality;	/* -1 = null */
} ts_dv_range;

typedef struct ts_index_manifest_entry
{
	ts_file_kind kind;
	ts_bytes	partition;
	int32_t		bucket;
	char	   *index_type;		/* DELETION_VECTORS, HASH, ... */
	char	   *file_name;
	int64_t		file_size;
	int64_t		row_count;
	int			ndv_ranges;		/* -1 = null */
	ts_dv_range *dv_ranges;
	char	   *external_path;	/* NULL if none */
	/* _GLOBAL_INDEX (Paimon 1.3+): row ids start..end (inclusive) of field id */
	bool		has_global_index;
	int64_t		gi_row_start;
	int64_t		gi_row_end;
	int32_t		gi_field_id;
	/*
	 * _GLOBAL_INDEX._SOURCE_META (Paimon 2.0 primary-key tables: the ordered
	 * source data files of a pk-btree / pk-bitmap payload, meta/pk_index_source.h);
	 * data NULL when absent (every row-tracking index)
	 */
	ts_bytes	gi_source_meta;
} ts_index_manifest_entry;

/* All entries of one file, in file order.  'path' is the full path. */
bool		ts_manifest_list_read(ts_fs *fs, const char *path, ts_arena *arena,
								  ts_manifest_file_meta **metas, int *count, ts_err *err);
bool		ts_manifest_read(ts_fs *fs, const char *path, ts_arena *arena,
							 ts_manifest_entry **entries, int *count, ts_err *err);
/*
 * The same, told how many entries the manifest list says the file holds
 * (_NUM_ADDED_FILES + _NUM_DELETED_FILES): they are decoded in place in
 * the arena.  Only a hint: a file that holds more or fewer reads the same.
 */
bool		ts_manifest_read_expect(ts_fs *fs, const char *path, int64_t expected, ts_arena *arena,
									ts_manifest_entry **entries, int *count, ts_err *err);
/*
 * Reading the manifests of one table one after the other: what a read
 * leaves for the next (the parsed Avro schema they share and the reader
 * compiled from it; a file with another schema replaces them).  One read
 * at a time; NULL (ts_manifest_keep_new out of memory) keeps nothing.
 */
typedef struct ts_meta_avro_keep ts_manifest_keep;

ts_manifest_keep *ts_manifest_keep_new(void);
void		ts_manifest_keep_free(ts_manifest_keep *keep);
bool		ts_manifest_read_kept(ts_fs *fs, const char *path, int64_t expected, ts_manifest_keep *keep,
								  ts_arena *arena, ts_manifest_entry **entries, int *count,
								  ts_err *err);
bool		ts_index_manifest_read(ts_fs *fs, const char *path, ts_arena *arena,
								   ts_index_manifest_entry **entries, int *count, ts_err *err);

/*
 * Avro files of the usual shapes are decoded by manifest_avro.c (on by
 * default); off, everything goes through the generic readers.  For tests
 * that compare the two.
 */
void		ts_manifest_use_compiled_avro(bool on);

/*
 * For tests: whether the manifest at 'path' is decoded by the compiled
 * path straight into its entries' structs (false for other files, errors
 * included).
 */
bool		ts_manifest_decodes_direct(ts_fs *fs, const char *path);

#endif							/* TS_MANIFEST_H */
