/*
 * core_options.h - the registry of Paimon option keys, and the options of
 * one scan parsed once into a typed struct.
 *
 * Owns: the table of every option key Java Paimon defines (CoreOptions,
 * FileIndexOptions, the CSV / JSON / TEXT format options, the S3 / OSS
 * file-system options and the catalog / REST catalog options), each with
 * its fallback keys, type, allowed values or range, default, whether we
 * act on it and which layer reads it (as paimon-cpp's CoreOptions and
 * paimon-rust's core_options.rs); checking a value against its entry; the
 * "did you mean" suggestion for a misspelt key; ts_core_options, the
 * options a scan acts on, parsed once from its merged options.
 *
 * Knows nothing of PostgreSQL: src/fdw/options.c turns a failed check into
 * an ereport, the scan and read layers read ts_core_options fields or use
 * the TS_OPT_* key constants below instead of string literals.
 */
#ifndef TS_CORE_OPTIONS_H
#define TS_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ts_base.h"

/* ---- keys read by more than one place (Java constant names in comments) ---- */
#define TS_OPT_BUCKET "bucket"	/* CoreOptions.BUCKET */
#define TS_OPT_BUCKET_FUNCTION_TYPE "bucket-function.type"
#define TS_OPT_MERGE_ENGINE "merge-engine"
#define TS_OPT_FILE_FORMAT "file.format"
#define TS_OPT_DATA_EVOLUTION "data-evolution.enabled"
#define TS_OPT_ROW_TRACKING "row-tracking.enabled"
#define TS_OPT_DELETION_VECTORS "deletion-vectors.enabled"
#define TS_OPT_DV_MERGE_ON_READ "deletion-vectors.merge-on-read"
#define TS_OPT_SEQUENCE_SNAPSHOT_ORDERING "sequence.snapshot-ordering"
#define TS_OPT_PARTITION_DEFAULT_NAME "partition.default-name"
#define TS_OPT_PARTITION_LEGACY_NAME "partition.legacy-name"
#define TS_OPT_DATA_FILE_PATH_DIRECTORY "data-file.path-directory"
#define TS_OPT_EXTERNAL_PATH_MAP "external-path-map"
#define TS_OPT_DATA_FILE_EXTERNAL_PATHS "data-file.external-paths"
#define TS_OPT_TYPE "type"
#define TS_OPT_BRANCH "branch"
#define TS_OPT_PATH "path"
#define TS_OPT_SCAN_MODE "scan.mode"
#define TS_OPT_SCAN_SNAPSHOT_ID "scan.snapshot-id"
#define TS_OPT_SCAN_TAG_NAME "scan.tag-name"
#define TS_OPT_SCAN_TIMESTAMP "scan.timestamp"
#define TS_OPT_SCAN_TIMESTAMP_MILLIS "scan.timestamp-millis"
#define TS_OPT_SCAN_VERSION "scan.version"
#define TS_OPT_SCAN_WATERMARK "scan.watermark"
#define TS_OPT_SCAN_FALLBACK_BRANCH "scan.fallback-branch"
#define TS_OPT_SCAN_PRIMARY_BRANCH "scan.primary-branch"
#define TS_OPT_INCREMENTAL_BETWEEN "incremental-between"
#define TS_OPT_INCREMENTAL_BETWEEN_TIMESTAMP "incremental-between-timestamp"
#define TS_OPT_INCREMENTAL_BETWEEN_SCAN_MODE "incremental-between-scan-mode"
#define TS_OPT_FORMAT_TABLE_PATH_ONLY_VALUE "format-table.partition-path-only-value"
#define TS_OPT_FORMAT "format"	/* FOREIGN TABLE option: file.format of a format table */
#define TS_OPT_CHANGELOG_PRODUCER "changelog-producer"
#define TS_OPT_FILE_INDEX_READ_ENABLED "file-index.read.enabled"
#define TS_OPT_INDEX_FILE_IN_DATA_FILE_DIR "index-file-in-data-file-dir"
#define TS_OPT_CONSUMER_ID "consumer-id"
#define TS_OPT_PK_BTREE_INDEX_COLUMNS "pk-btree.index.columns"
#define TS_OPT_PK_BITMAP_INDEX_COLUMNS "pk-bitmap.index.columns"
#define TS_OPT_BUCKET_KEY "bucket-key"
/* REST catalogs (src/fdw/rest.c, src/scan/rest_catalog.c) */
#define TS_OPT_TOKEN_PROVIDER "token.provider"
#define TS_OPT_DATA_TOKEN_ENABLED "data-token.enabled"
#define TS_OPT_REST_PREFIX "prefix"
/* merge on read (src/read/merge.c) */
#define TS_OPT_SEQUENCE_FIELD "sequence.field"
#define TS_OPT_SEQUENCE_FIELD_SORT_ORDER "sequence.field.sort-order"
#define TS_OPT_IGNORE_DELETE "ignore-delete"	/* and its fallback keys: */
#define TS_OPT_DEDUPLICATE_IGNORE_DELETE "deduplicate.ignore-delete"
#define TS_OPT_FIRST_ROW_IGNORE_DELETE "first-row.ignore-delete"
#define TS_OPT_PARTIAL_UPDATE_IGNORE_DELETE "partial-update.ignore-delete"
#define TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE "partial-update.remove-record-on-delete"
#define TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP "partial-update.remove-record-on-sequence-group"
#define TS_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE "aggregation.remove-record-on-delete"
#define TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION "fields.default-aggregate-function"
/* per-field keys "fields.<field>.<suffix>" (TS_OPT_FIELD_KEY_FORMAT, field, suffix) */
#define TS_OPT_FIELDS_PREFIX "fields."
#define TS_OPT_FIELD_KEY_FORMAT "fields.%s.%s"
#define TS_OPT_FIELD_AGGREGATE_FUNCTION "aggregate-function"
#define TS_OPT_FIELD_IGNORE_RETRACT "ignore-retract"
#define TS_OPT_FIELD_DISTINCT "distinct"
#define TS_OPT_FIELD_LIST_AGG_DELIMITER "list-agg-delimiter"
#define TS_OPT_FIELD_SEQUENCE_GROUP "sequence-group"

/* Java's ConfigOption types (what a value must parse as). */
typedef enum ts_opt_type
{
	TS_OPT_STRING,
	TS_OPT_BOOL,				/* "true" / "false", any case (Java) */
	TS_OPT_INT,					/* Integer.parseInt after trim */
	TS_OPT_LONG,
	TS_OPT_DOUBLE,
	TS_OPT_ENUM,				/* one of 'allowed', any case */
	TS_OPT_DURATION,			/* "10 s", "1 h", "100ms"... */
	TS_OPT_MEMORY,				/* "64 mb", "500 B"... */
	TS_OPT_MAP,					/* "k:v,k:v" */
} ts_opt_type;

/* What we do with a key. */
typedef enum ts_opt_support
{
	TS_OPT_IGNORED,				/* writer / streaming / compaction: no effect on a read */
	TS_OPT_ACTED,				/* honoured by this reader */
	TS_OPT_IGNORED_ROWS,		/* ignored, and ignoring it can change the rows: NOTICE */
	TS_OPT_REFUSED,				/* a feature we do not read: a scan of it is an ERROR */
} ts_opt_support;

/* Which layer reads a key (bit set; 0 = none). */
#define TS_LAYER_FDW		0x01	/* src/fdw (option merging, catalogs) */
#define TS_LAYER_SCAN		0x02	/* src/scan (snapshot, pruning, splits) */
#define TS_LAYER_READ		0x04	/* src/read (merge on read, row tracking) */
#define TS_LAYER_FORMAT		0x08	/* src/format (CSV / JSON / TEXT readers) */
#define TS_LAYER_META		0x10	/* src/meta (partition names, schemas) */
#define TS_LAYER_STORAGE	0x20	/* object-store access (S3 / OSS) */

/* Flags. */
#define TS_OPTF_SECRET		0x01	/* USER MAPPING only; never shown */
#define TS_OPTF_PATH		0x02	/* names files: needs pg_read_server_files */
#define TS_OPTF_PATTERN		0x04	/* key has a <placeholder> part */
#define TS_OPTF_INTERNAL	0x08	/* set by the extension itself: not a user's registry key */
#define TS_OPTF_STREAM		0x10	/* ignored by a scan, refused by a stream when set */

/*
 * The object store setting a key gives (src/fdw/storage_options.c).  The
 * keys of one setting are aliases of each other (s3.endpoint,
 * fs.s3a.endpoint, s3a.endpoint, fs.oss.endpoint...); the first in the
 * table is the one documented.
 */
typedef enum ts_opt_store
{
	TS_STORE_NONE = 0,
	TS_STORE_ENDPOINT,
	TS_STORE_REGION,
	TS_STORE_PATH_STYLE,
	TS_STORE_CA_FILE,
	TS_STORE_CREDENTIALS,		/* 'anonymous' | 'environment' (no user mapping) */
	TS_STORE_ACCESS_KEY,
	TS_STORE_SECRET_KEY,
	TS_STORE_SESSION_TOKEN,
	/* Azure Blob Storage (src/base/ts_azure.h, fs_azure.c) */
	TS_STORE_AZURE_ENDPOINT,
	TS_STORE_AZURE_ACCOUNT_KEY,
	TS_STORE_AZURE_SAS_TOKEN	/* the last setting (arrays by setting) */
} ts_opt_store;

typedef struct ts_core_option
{
	const char *key;			/* "file-index.<type>.columns": a pattern */
	const char *fallback;		/* Java's fallback keys, '|'-separated; NULL */
	ts_opt_type type;
	const char *allowed;		/* TS_OPT_ENUM: values, '|'-separated */
	int64_t		min;			/* TS_OPT_INT / TS_OPT_LONG range (acted keys) */
	int64_t		max;
	const char *dflt;			/* Java's default; NULL = none */
	ts_opt_support support;
	uint8_t		layers;
	uint8_t		flags;
	const char *source;			/* the Java class that defines it */
	ts_opt_store store;			/* object store keys: the setting it gives */
} ts_core_option;

/* The whole registry (ts_core_option_count entries). */
extern const ts_core_option ts_core_option_table[];
extern const int ts_core_option_count;

/*
 * The entry of a key: exact key, a fallback key, or a pattern
 * ("fields.<field>.aggregate-function").  NULL if Paimon defines no such key.
 */
const ts_core_option *ts_core_option_find(const char *key);

/*
 * May code read key?  True when the registry has it (exact, fallback or
 * pattern).  The option accessors of every layer (ts_plan_option,
 * ts_read_option, ts_schema_option, ts_rest_option, the text readers') ask
 * first and read a key the registry lacks as unset: a key is never acted on
 * without an entry saying so.  ts_core_option_unregistered_read() names the
 * last key refused (NULL: none), for tests.
 */
bool		ts_core_option_readable(const char *key);
const char *ts_core_option_unregistered_read(void);

/*
 * The key closest to key (Levenshtein; the start of a key counts as close)
 * among the registry's keys (only its secrets when secrets is set) and the
 * NULL-terminated extra keys (may be NULL), or NULL if none is close.
 */
const char *ts_core_option_closest(const char *key, bool secrets, const char *const *extra);

/*
 * Check value against o's type and range (whole values as Java parses them).
 * On failure fills hint (what a valid value looks like) and returns false.
 */
bool		ts_core_option_check_value(const ts_core_option *o, const char *value,
									   char *hint, size_t hintlen);

/* ---- the options of one scan, parsed once ---------------------------- */

typedef enum ts_merge_engine
{
	TS_MERGE_DEDUPLICATE,
	TS_MERGE_PARTIAL_UPDATE,
	TS_MERGE_AGGREGATION,
	TS_MERGE_FIRST_ROW
} ts_merge_engine;

typedef struct ts_core_options
{
	int32_t		bucket;			/* bucket: -1 dynamic / unaware, -2 postpone */
	const char *bucket_function_type;	/* NULL: default */
	ts_merge_engine merge_engine;
	const char *file_format;	/* NULL: Java's default (parquet) */
	bool		data_evolution;
	bool		row_tracking;
	bool		deletion_vectors;
	bool		dv_merge_on_read;
	bool		sequence_snapshot_ordering;
	bool		ignore_delete;	/* ignore-delete and its fallback keys */
	const char *partition_default_name; /* never NULL */
	bool		partition_legacy_name;
	const char *data_file_path_directory;	/* NULL: none */
} ts_core_options;

/* The value of key in the caller's merged options, NULL if absent. */
typedef const char *(*ts_option_getter) (const void *arg, const char *key);

/*
 * Parse the options a scan acts on, looking each key (then its fallback
 * keys) up with get(arg, key).  The strings point into the caller's
 * options.  A value of the wrong type is an error naming the key (Java
 * writes valid ones; this catches a broken or hand-written schema file).
 */
bool		ts_core_options_parse(ts_core_options *out, ts_option_getter get,
								  const void *arg, ts_err *err);

/*
 * Fail closed on the options of the table itself (the keys of its schema
 * file, keys[0..nkeys), their values looked up with get: the scan's merged
 * options).  A key we refuse, or one we ignore although it could change the
 * rows, whose value is not Java's default is TS_ERR_UNSUPPORTED naming the
 * key and table.  Keys set only by the user are checked by src/fdw.
 */
bool		ts_core_options_check_table(const char *const *keys, int nkeys, ts_option_getter get,
										const void *arg, const char *table, ts_err *err);

#endif							/* TS_CORE_OPTIONS_H */
