/*
 * table_writer_internal.h - the table writer's state, shared by
 * table_writer.c (routing, data files, commit) and table_writer_options.c
 * (the options read and refused when a table is opened); not for other
 * files.
 */
#ifndef TS_TABLE_WRITER_INTERNAL_H
#define TS_TABLE_WRITER_INTERNAL_H

#include "base/ts_hash_index.h"
#include "format/file_writer.h"
#include "meta/bucket.h"
#include "meta/partition.h"
#include "write/write.h"
#include "write/write_internal.h"

/* the open file of one partition and bucket (table_writer.c) */
typedef struct bucket_writer bucket_writer;

struct ts_table_writer
{
	char	   *table_path;
	ts_fs	   *fs;				/* every file is read and written through it (owned) */
	ts_schema  *schema;
	const ts_option *options;
	int			noptions;
	/* how files are written */
	int32_t		total_buckets;
	ts_bucket_function bucket_fn;
	int		   *bucket_keys;
	int			nbucket_keys;
	const ts_type **bucket_key_types;
	ts_value   *bucket_key_values;
	int		   *partition_fields;
	const ts_type **partition_types;
	const char **partition_names;
	int			npartition_keys;
	ts_value   *partition_values;
	ts_partition_options popts;
	int64_t		target_file_size;
	ts_file_writer_options file_opts;	/* file.format, file.compression */
	ts_stats_mode stats_mode;
	int			stats_truncate;
	const char *data_prefix;
	const char *data_dir;		/* data-file.path-directory (NULL: none) */
	bool		changelog_input;	/* changelog-producer input: records also as changelog files */
	const char *changelog_prefix;
	int			max_retries;
	int64_t		min_retry_wait_ms;
	int64_t		max_retry_wait_ms;
	int64_t		commit_timeout_ms;	/* commit.timeout (INT64_MAX: none) */
	ts_manifest_merge_options merge;	/* manifest.* */
	int			manifest_codec; /* manifest.compression or avro.codec (ts_avro_codec) */
	int			manifest_zstd_level;	/* its zstandard level (file.compression.zstd-level) */
	ts_kv_layout *kv;			/* primary-key tables (kv_writer.c), else NULL */
	int64_t		write_buffer_size;	/* primary-key records buffered before a flush */
	bool		atomic_checked; /* the store can commit atomically (check_atomic) */
	size_t		buffered;		/* bytes the buffers hold */
	/* state */
	bucket_writer **writers;
	int			nwriters;
	int			cap_writers;
	ts_hash_index writer_index;	/* (partition, bucket) -> position in writers */
	bucket_writer *last_writer; /* the last row's, tried first */
	int32_t		last_writer_pos;
	/*
	 * The writers with an open data file, most recently written first: at
	 * most max_open_files (0: no bound); opening one more finishes the
	 * least recently written one's file first (ts_table_writer_set_max_open_files).
	 */
	bucket_writer *open_first;
	bucket_writer *open_last;
	int			nopen;
	int			max_open_files;
	int64_t		bound_extra_files;	/* files opened for a bucket whose file max_open_files had finished */
	ts_new_file **files;		/* finished, not committed */
	int			nfiles;
	int			cap_files;
	ts_new_file **changelog_files;	/* the same for changelog files */
	int			nchangelog_files;
	int			cap_changelog_files;
	/*
	 * Files whose last request (the whole-object PUT, the multipart
	 * completion) failed: the store may hold them all the same (a cancel
	 * after the body was sent, a lost answer).  Never committed; deleted
	 * when the writer's files are released.
	 */
	char	  **unsure;
	int			nunsure;
	int			cap_unsure;
	int64_t		rows;
	ts_buf		scratch;
	/* a catalog that commits (REST), when has_catalog */
	bool		has_catalog;
	ts_catalog_commit catalog;
};

/*
 * Read the options of w's table (foreign-table options over the schema's)
 * into w, refusing what this writer cannot write exactly as Java would,
 * before any file exists.
 */
bool		ts_table_writer_check_options(ts_table_writer *w, ts_err *err);

#endif							/* TS_TABLE_WRITER_INTERNAL_H */
