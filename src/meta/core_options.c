/*
 * core_options.c - the registry of Paimon option keys (see core_options.h).
 *
 * Owns: the table below (every key Java Paimon defines in CoreOptions,
 * FileIndexOptions, the CSV / JSON / TEXT format options, the S3 / OSS
 * file-system options and CatalogOptions / RESTCatalogOptions), looking a
 * key up (exact, fallback key, or <placeholder> pattern), the Levenshtein
 * "did you mean", value checks by type, and parsing the keys a scan acts on
 * into ts_core_options.  Must not know PostgreSQL; must not read files.
 *
 * Values are checked only for keys we act on: for the others Java's parser
 * (durations, memory sizes, its enums) is the authority and we pass them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/core_options.h"

#define I64MAX INT64_MAX
#define I32MAX INT32_MAX

#define E(k, fb, t, al, lo, hi, d, sup, lay, fl, src) \
	{k, fb, t, al, lo, hi, d, sup, lay, fl, src, TS_STORE_NONE}
/* an object store key we act on: the setting st it gives (storage_options.c) */
#define STORE(k, fb, t, d, fl, st, src) \
	{k, fb, t, NULL, 0, 0, d, TS_OPT_ACTED, TS_LAYER_STORAGE, fl, src, st}
/* a CoreOptions key a read does not depend on */
#define CORE(k, t, d) E(k, NULL, t, NULL, 0, 0, d, TS_OPT_IGNORED, 0, 0, "CoreOptions")
#define CORE_FB(k, fb, t, d) E(k, fb, t, NULL, 0, 0, d, TS_OPT_IGNORED, 0, 0, "CoreOptions")
/* a CoreOptions key we ignore although a reader honouring it could return other rows */
#define CORE_ROWS(k, t, d) E(k, NULL, t, NULL, 0, 0, d, TS_OPT_IGNORED_ROWS, 0, 0, "CoreOptions")
/* a key a scan ignores and a stream (tablescan_changes, src/scan/stream.c) refuses when set */
#define STREAM(k, t, d) E(k, NULL, t, NULL, 0, 0, d, TS_OPT_IGNORED, TS_LAYER_SCAN, TS_OPTF_STREAM, "CoreOptions")
/* a key we act on */
#define ACT(k, fb, t, al, lo, hi, d, lay, src) E(k, fb, t, al, lo, hi, d, TS_OPT_ACTED, lay, 0, src)

#define SCAN_MODES "default|latest-full|full|latest|compacted-full|from-timestamp|" \
	"from-creation-timestamp|from-file-creation-time|from-snapshot|from-snapshot-full|incremental"

const ts_core_option ts_core_option_table[] = {
	/* ---- CoreOptions: what a read acts on ---- */
	ACT("type", NULL, TS_OPT_STRING, NULL, 0, 0, "table", TS_LAYER_SCAN | TS_LAYER_FDW, "CoreOptions"),
	ACT("bucket", NULL, TS_OPT_INT, NULL, -2, I32MAX, "-1", TS_LAYER_SCAN, "CoreOptions"),
	ACT("bucket-key", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("bucket-function.type", NULL, TS_OPT_ENUM, "default|mod", 0, 0, "default", TS_LAYER_SCAN, "CoreOptions"),
	E("path", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, TS_OPTF_PATH, "CoreOptions"),
	ACT("branch", NULL, TS_OPT_STRING, NULL, 0, 0, "main", TS_LAYER_FDW | TS_LAYER_SCAN, "CoreOptions"),
	ACT("file.format", NULL, TS_OPT_STRING, NULL, 0, 0, "parquet", TS_LAYER_SCAN, "CoreOptions"),
	ACT("data-file.path-directory", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("partition.default-name", NULL, TS_OPT_STRING, NULL, 0, 0, "__DEFAULT_PARTITION__",
		TS_LAYER_META | TS_LAYER_SCAN, "CoreOptions"),
	ACT("partition.legacy-name", NULL, TS_OPT_BOOL, NULL, 0, 0, "true", TS_LAYER_META | TS_LAYER_SCAN, "CoreOptions"),
	ACT("merge-engine", NULL, TS_OPT_ENUM, "deduplicate|partial-update|aggregation|first-row", 0, 0,
		"deduplicate", TS_LAYER_SCAN | TS_LAYER_READ, "CoreOptions"),
	ACT("ignore-delete", "first-row.ignore-delete|deduplicate.ignore-delete|partial-update.ignore-delete",
		TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_READ, "CoreOptions"),
	ACT("sequence.field", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_READ, "CoreOptions"),
	ACT("sequence.field.sort-order", NULL, TS_OPT_ENUM, "ascending|descending", 0, 0, "ascending",
		TS_LAYER_READ, "CoreOptions"),
	ACT("aggregation.remove-record-on-delete", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_READ, "CoreOptions"),
	ACT("partial-update.remove-record-on-delete", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_READ, "CoreOptions"),
	E("partial-update.remove-record-on-sequence-group", NULL, TS_OPT_STRING, NULL, 0, 0, NULL,
	  TS_OPT_REFUSED, TS_LAYER_READ, 0, "CoreOptions"),
	ACT("fields.default-aggregate-function", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_READ, "CoreOptions"),
	E("fields.<field>.aggregate-function", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_READ,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.ignore-retract", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_ACTED, TS_LAYER_READ,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.sequence-group", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_REFUSED, TS_LAYER_READ,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.nested-key", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED_ROWS, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.count-limit", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED_ROWS, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.distinct", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_IGNORED_ROWS, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.list-agg-delimiter", NULL, TS_OPT_STRING, NULL, 0, 0, ",", TS_OPT_IGNORED_ROWS, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.stats-mode", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	ACT("scan.mode", "log.scan", TS_OPT_ENUM, SCAN_MODES, 0, 0, "default", TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.timestamp", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_FDW | TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.timestamp-millis", "log.scan.timestamp-millis", TS_OPT_LONG, NULL, 0, I64MAX, NULL,
		TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.watermark", NULL, TS_OPT_LONG, NULL, INT64_MIN, I64MAX, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.snapshot-id", NULL, TS_OPT_LONG, NULL, 1, I64MAX, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.tag-name", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.version", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.fallback-branch", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("scan.primary-branch", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("incremental-between", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("incremental-between-timestamp", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	/* auto and delta are read; changelog and diff are refused at plan time */
	ACT("incremental-between-scan-mode", NULL, TS_OPT_ENUM, "auto|delta|changelog|diff", 0, 0, "auto",
		TS_LAYER_SCAN, "CoreOptions"),
	ACT("deletion-vectors.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	ACT("deletion-vectors.merge-on-read", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	ACT("sequence.snapshot-ordering", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_READ, "CoreOptions"),
	ACT("row-tracking.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_READ, "CoreOptions"),
	ACT("data-evolution.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN | TS_LAYER_READ, "CoreOptions"),
	ACT("format-table.partition-path-only-value", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	E("external-path-map", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW | TS_LAYER_SCAN,
	  TS_OPTF_PATH, "CoreOptions"),
	E("data-file.external-paths", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, TS_OPTF_PATH,
	  "CoreOptions"),

	/*
	 * Index files (deletion vectors) in the bucket directory instead of
	 * <table>/index: src/scan/deletion_vectors.c resolves their paths so.
	 */
	ACT("index-file-in-data-file-dir", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	/* file indexes prune files unless this is false (src/scan/index_prune.c) */
	ACT("file-index.read.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "true", TS_LAYER_SCAN, "CoreOptions"),
	/*
	 * Paimon 2.0's source-backed primary-key global indexes: the btree and
	 * bitmap ones prune files (src/scan/pk_global_index.c); vector and
	 * full-text ones serve other queries, and a read without them returns
	 * the same rows.
	 */
	ACT("pk-btree.index.columns", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	ACT("pk-bitmap.index.columns", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_SCAN, "CoreOptions"),
	CORE("pk-vector.index.columns", TS_OPT_STRING, NULL),
	CORE("pk-full-text.index.columns", TS_OPT_STRING, NULL),
	E("fields.<field>.pk-btree.index.options", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	E("fields.<field>.pk-bitmap.index.options", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0,
	  TS_OPTF_PATTERN, "CoreOptions"),
	/* which files hold a table's changes (src/scan/stream.c, incremental.c) */
	ACT("changelog-producer", NULL, TS_OPT_ENUM, "none|input|full-compaction|lookup", 0, 0, "none", TS_LAYER_SCAN,
		"CoreOptions"),
	/* the FOREIGN TABLE option of a format table, file.format's fallback (src/scan/format_plan.c) */
	E("format", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_SCAN, TS_OPTF_INTERNAL, "tablescan_fdw"),
	/* the consumer tablescan_changes() follows when none is given (src/fdw/changes.c) */
	ACT("consumer-id", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_LAYER_FDW, "CoreOptions"),
	/* a consumer file is not where a consumer starts (src/fdw/changes.c) */
	ACT("consumer.ignore-progress", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_FDW, "CoreOptions"),
	/*
	 * Set by tablescan_changes() on the reads of a stream (src/scan/stream.h),
	 * never by a user: the files of the range are read unmerged.
	 */
	E("tablescan.stream-unmerged", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_ACTED, TS_LAYER_SCAN,
	  TS_OPTF_INTERNAL, "tablescan_fdw"),
	/* Set by tablescan_changes() on the read of one OVERWRITE snapshot's changes */
	E("tablescan.stream-overwrite", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_ACTED, TS_LAYER_SCAN,
	  TS_OPTF_INTERNAL, "tablescan_fdw"),
	/* Set by tablescan_changes() on a full start's read: the levels Java's stream reads */
	E("tablescan.stream-full-start", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_ACTED, TS_LAYER_SCAN,
	  TS_OPTF_INTERNAL, "tablescan_fdw"),

	/*
	 * ---- CoreOptions a read ignores, but honouring them could change the rows ----
	 * Set by a user: a NOTICE (src/fdw/options.c).  Set in the table's schema
	 * to other than the default: the scan is refused
	 * (ts_core_options_check_table).  scan.*-millis choose the starting
	 * snapshot / files (CoreOptions.startupMode), the incremental-* keys the
	 * range read, query-auth.enabled lets the REST catalog filter rows and
	 * mask columns, blob-as-descriptor returns BLOB descriptors instead of
	 * the bytes.
	 */
	CORE_ROWS("scan.file-creation-time-millis", TS_OPT_LONG, NULL),
	CORE_ROWS("scan.creation-time-millis", TS_OPT_LONG, NULL),
	CORE_ROWS("incremental-to-auto-tag", TS_OPT_STRING, NULL),
	CORE_ROWS("incremental-between-tag-to-snapshot", TS_OPT_BOOL, "false"),
	CORE_ROWS("query-auth.enabled", TS_OPT_BOOL, "false"),
	CORE_ROWS("blob-as-descriptor", TS_OPT_BOOL, "false"),

	/*
	 * Write-side only, checked in Java's code: rowkind.field is read by
	 * RowKindGenerator, which only TableWriteImpl uses (newWrite); the row
	 * kind it derives is stored as _VALUE_KIND, which is what a read uses.
	 * data-file.thin-mode makes KeyValueFileWriterFactory leave out the
	 * _KEY_ columns (when every key is a value field, supportsThinMode);
	 * our reader never reads _KEY_ columns but the value fields by id, so
	 * thin and full files read alike.
	 */
	CORE("rowkind.field", TS_OPT_STRING, NULL),
	CORE("data-file.thin-mode", TS_OPT_BOOL, "false"),

	/* ---- CoreOptions for writers, compaction, streaming, catalogs: no effect on a read ---- */
	CORE("bucket-append-ordered", TS_OPT_BOOL, "true"),
	CORE("data-file.external-paths.strategy", TS_OPT_ENUM, "none"),
	CORE("data-file.external-paths.specific-fs", TS_OPT_STRING, NULL),
	CORE("compaction.force-rewrite-all-files", TS_OPT_BOOL, "false"),
	CORE("file.compression.per.level", TS_OPT_MAP, NULL),
	CORE("file.format.per.level", TS_OPT_MAP, NULL),
	CORE("file.compression", TS_OPT_STRING, "zstd"),
	CORE("file.compression.zstd-level", TS_OPT_INT, "1"),
	CORE("data-file.prefix", TS_OPT_STRING, "data-"),
	CORE("changelog-file.prefix", TS_OPT_STRING, "changelog-"),
	CORE("changelog-file.format", TS_OPT_STRING, NULL),
	CORE("changelog-file.compression", TS_OPT_STRING, NULL),
	CORE("changelog-file.stats-mode", TS_OPT_STRING, NULL),
	CORE("file.suffix.include.compression", TS_OPT_BOOL, "false"),
	CORE("file.block-size", TS_OPT_MEMORY, NULL),
	CORE("file-index.in-manifest-threshold", TS_OPT_MEMORY, "500 B"),
	CORE("manifest.format", TS_OPT_STRING, "avro"),
	CORE("manifest.compression", TS_OPT_STRING, "zstd"),
	/* the Avro codec of data files and manifests, over the two above (the writer: file_writer.c) */
	E("avro.codec", NULL, TS_OPT_STRING, NULL, 0, 0, "snappy", TS_OPT_IGNORED, 0, 0, "AvroFileFormat"),
	CORE("manifest.target-file-size", TS_OPT_MEMORY, "8 mb"),
	CORE("manifest.full-compaction-threshold-size", TS_OPT_MEMORY, "16 mb"),
	CORE("manifest.merge-min-count", TS_OPT_INT, "30"),
	CORE("manifest.delete-file-drop-stats", TS_OPT_BOOL, "false"),
	CORE("upsert-key", TS_OPT_STRING, NULL),
	CORE("snapshot.num-retained.min", TS_OPT_INT, "10"),
	CORE("snapshot.num-retained.max", TS_OPT_INT, NULL),
	CORE("snapshot.time-retained", TS_OPT_DURATION, "1 h"),
	CORE("changelog.num-retained.min", TS_OPT_INT, NULL),
	CORE("changelog.num-retained.max", TS_OPT_INT, NULL),
	CORE("changelog.time-retained", TS_OPT_DURATION, NULL),
	CORE("snapshot.expire.execution-mode", TS_OPT_ENUM, "sync"),
	CORE("snapshot.expire.limit", TS_OPT_INT, "50"),
	CORE_FB("snapshot.clean-empty-directories", "snapshot.expire.clean-empty-directories", TS_OPT_BOOL, "false"),
	CORE("snapshot.watermark-idle-timeout", TS_OPT_DURATION, NULL),
	CORE("snapshot.ignore-empty-commit", TS_OPT_BOOL, NULL),
	CORE("continuous.discovery-interval", TS_OPT_DURATION, "10 s"),
	CORE("scan.max-splits-per-task", TS_OPT_INT, "10"),
	STREAM("scan.bounded.watermark", TS_OPT_LONG, NULL),
	CORE("scan.manifest.parallelism", TS_OPT_INT, NULL),
	CORE("scan.plan-sort-partition", TS_OPT_BOOL, "false"),
	CORE("ignore-update-before", TS_OPT_BOOL, "false"),
	CORE("sort-engine", TS_OPT_ENUM, "loser-tree"),
	CORE("sort-spill-threshold", TS_OPT_INT, NULL),
	CORE("sort-spill-buffer-size", TS_OPT_MEMORY, "64 mb"),
	CORE("spill-compression", TS_OPT_STRING, "zstd"),
	CORE("spill-compression.zstd-level", TS_OPT_INT, "1"),
	CORE_FB("write-only", "write.compaction-skip", TS_OPT_BOOL, "false"),
	CORE("source.split.target-size", TS_OPT_MEMORY, "128 mb"),
	CORE("source.split.open-file-cost", TS_OPT_MEMORY, "4 mb"),
	CORE("write-buffer-size", TS_OPT_MEMORY, "256 mb"),
	CORE("write-buffer-spill.max-disk-size", TS_OPT_MEMORY, NULL),
	CORE("write-buffer-spillable", TS_OPT_BOOL, "true"),
	CORE("write-buffer-for-append", TS_OPT_BOOL, "false"),
	CORE("write-max-writers-to-spill", TS_OPT_INT, "10"),
	CORE("local-sort.max-num-file-handles", TS_OPT_INT, "128"),
	CORE("page-size", TS_OPT_MEMORY, "64 kb"),
	CORE("cache-page-size", TS_OPT_MEMORY, "64 kb"),
	CORE("target-file-size", TS_OPT_MEMORY, NULL),
	CORE("blob.target-file-size", TS_OPT_MEMORY, NULL),
	CORE("blob-field", TS_OPT_STRING, NULL),
	/* the top level a full-compaction table's stream starts from (src/scan/stream.c) */
	ACT("num-sorted-run.compaction-trigger", NULL, TS_OPT_INT, NULL, 1, I32MAX, "5", TS_LAYER_SCAN, "CoreOptions"),
	CORE("num-sorted-run.stop-trigger", TS_OPT_INT, NULL),
	ACT("num-levels", NULL, TS_OPT_INT, NULL, 1, I32MAX, NULL, TS_LAYER_SCAN, "CoreOptions"),
	CORE("commit.force-compact", TS_OPT_BOOL, "false"),
	CORE("commit.timeout", TS_OPT_DURATION, NULL),
	CORE("commit.max-retries", TS_OPT_INT, "10"),
	CORE("commit.min-retry-wait", TS_OPT_DURATION, "10 ms"),
	CORE("commit.max-retry-wait", TS_OPT_DURATION, "10 s"),
	CORE("commit.force-create-snapshot", TS_OPT_BOOL, "false"),
	CORE("commit.callbacks", TS_OPT_STRING, ""),
	E("commit.callback.<class>.param", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, TS_OPTF_PATTERN, "CoreOptions"),
	CORE("commit.user-prefix", TS_OPT_STRING, NULL),
	CORE("commit.strict-mode.last-safe-snapshot", TS_OPT_LONG, NULL),
	CORE("compaction.max-size-amplification-percent", TS_OPT_INT, "200"),
	CORE("compaction.force-up-level-0", TS_OPT_BOOL, "false"),
	CORE("compaction.size-ratio", TS_OPT_INT, "1"),
	CORE("compaction.offpeak.start.hour", TS_OPT_INT, "-1"),
	CORE("compaction.offpeak.end.hour", TS_OPT_INT, "-1"),
	CORE("compaction.offpeak-ratio", TS_OPT_INT, "0"),
	CORE("compaction.optimization-interval", TS_OPT_DURATION, NULL),
	CORE("compaction.total-size-threshold", TS_OPT_MEMORY, NULL),
	CORE("compaction.min.file-num", TS_OPT_INT, "5"),
	CORE("compaction.delete-ratio-threshold", TS_OPT_DOUBLE, "0.2"),
	CORE("changelog-producer.row-deduplicate", TS_OPT_BOOL, "false"),
	CORE("changelog-producer.row-deduplicate-ignore-fields", TS_OPT_STRING, NULL),
	STREAM("streaming.read.snapshot.delay", TS_OPT_DURATION, NULL),
	CORE("log.consistency", TS_OPT_ENUM, "transactional"),
	CORE("log.changelog-mode", TS_OPT_ENUM, "auto"),
	CORE("log.key.format", TS_OPT_STRING, "json"),
	CORE("log.format", TS_OPT_STRING, "debezium-json"),
	CORE("log.ignore-delete", TS_OPT_BOOL, "false"),
	CORE("auto-create", TS_OPT_BOOL, "false"),
	/* a stream over a primary-key table reads an overwrite's changes (src/scan/stream.c) */
	ACT("streaming-read-overwrite", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	/* a stream over an append table reads an overwrite's added files (src/scan/incremental.c) */
	ACT("streaming-read-append-overwrite", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_SCAN, "CoreOptions"),
	CORE("dynamic-partition-overwrite", TS_OPT_BOOL, "true"),
	CORE("partition.expiration-strategy", TS_OPT_ENUM, "values-time"),
	CORE("partition.expiration-time", TS_OPT_DURATION, NULL),
	CORE("partition.expiration-check-interval", TS_OPT_DURATION, "1 h"),
	CORE("partition.expiration-max-num", TS_OPT_INT, "100"),
	CORE("partition.expiration-batch-size", TS_OPT_INT, NULL),
	CORE("partition.timestamp-formatter", TS_OPT_STRING, NULL),
	CORE("partition.timestamp-pattern", TS_OPT_STRING, NULL),
	CORE("partition.end-input-to-done", TS_OPT_BOOL, "false"),
	CORE("partition.mark-done-action", TS_OPT_STRING, "success-file"),
	CORE("partition.mark-done-action.custom.class", TS_OPT_STRING, NULL),
	CORE("partition.mark-done-action.http.url", TS_OPT_STRING, NULL),
	CORE("partition.mark-done-action.http.params", TS_OPT_STRING, NULL),
	CORE("partition.sink-strategy", TS_OPT_ENUM, "none"),
	CORE("partition.idle-time-to-report-statistic", TS_OPT_DURATION, "0 ms"),
	CORE("primary-key", TS_OPT_STRING, NULL),
	CORE("partition", TS_OPT_STRING, NULL),
	CORE("lookup.local-file-type", TS_OPT_ENUM, "sort"),
	CORE("lookup.hash-load-factor", TS_OPT_DOUBLE, "0.75"),
	CORE("lookup.cache-file-retention", TS_OPT_DURATION, "1 h"),
	CORE("lookup.cache-max-disk-size", TS_OPT_MEMORY, NULL),
	CORE("lookup.cache-spill-compression", TS_OPT_STRING, "zstd"),
	CORE("lookup.cache-max-memory-size", TS_OPT_MEMORY, "256 mb"),
	CORE("lookup.cache.high-priority-pool-ratio", TS_OPT_DOUBLE, "0.25"),
	CORE("lookup.cache.bloom.filter.enabled", TS_OPT_BOOL, "true"),
	CORE("lookup.cache.bloom.filter.fpp", TS_OPT_DOUBLE, "0.05"),
	CORE("lookup.merge-buffer-size", TS_OPT_MEMORY, "8 mb"),
	CORE("lookup.merge-records-threshold", TS_OPT_INT, "1024"),
	CORE_FB("lookup-wait", "changelog-producer.lookup-wait", TS_OPT_BOOL, "true"),
	CORE("lookup-compact", TS_OPT_ENUM, "radical"),
	CORE("lookup-compact.max-interval", TS_OPT_INT, NULL),
	CORE("force-lookup", TS_OPT_BOOL, "false"),
	CORE("read.batch-size", TS_OPT_INT, "1024"),
	CORE_FB("write.batch-size", "orc.write.batch-size", TS_OPT_INT, "1024"),
	CORE("write.batch-memory", TS_OPT_MEMORY, "128 mb"),
	CORE("consumer.expiration-time", TS_OPT_DURATION, NULL),
	CORE("consumer.mode", TS_OPT_ENUM, "exactly-once"),
	CORE("full-compaction.delta-commits", TS_OPT_INT, NULL),
	CORE("stream-scan-mode", TS_OPT_ENUM, "none"),
	CORE("streaming-read-mode", TS_OPT_ENUM, NULL),
	CORE("batch-scan-mode", TS_OPT_ENUM, "none"),
	CORE("dynamic-bucket.target-row-num", TS_OPT_LONG, "2000000"),
	CORE("dynamic-bucket.initial-buckets", TS_OPT_INT, NULL),
	CORE("dynamic-bucket.max-buckets", TS_OPT_INT, "-1"),
	CORE("dynamic-bucket.assigner-parallelism", TS_OPT_INT, NULL),
	CORE("end-input.check-partition-expire", TS_OPT_BOOL, "false"),
	CORE("metadata.stats-mode", TS_OPT_STRING, "truncate(16)"),
	CORE("metadata.stats-mode.per.level", TS_OPT_MAP, NULL),
	CORE("metadata.stats-dense-store", TS_OPT_BOOL, "true"),
	CORE("metadata.stats-keep-first-n-columns", TS_OPT_INT, "-1"),
	CORE("tag.callbacks", TS_OPT_STRING, ""),
	E("tag.callback.<class>.param", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, TS_OPTF_PATTERN, "CoreOptions"),
	CORE("metastore.partitioned-table", TS_OPT_BOOL, "false"),
	CORE("metastore.tag-to-partition", TS_OPT_STRING, NULL),
	CORE("metastore.tag-to-partition.preview", TS_OPT_ENUM, "none"),
	CORE("tag.automatic-creation", TS_OPT_ENUM, "none"),
	CORE("tag.automatic-creation-without-delay", TS_OPT_BOOL, "false"),
	CORE("tag.create-success-file", TS_OPT_BOOL, "false"),
	CORE("tag.creation-period", TS_OPT_ENUM, "daily"),
	CORE("tag.creation-delay", TS_OPT_DURATION, "0 ms"),
	CORE("tag.period-formatter", TS_OPT_ENUM, "with_dashes"),
	CORE("tag.creation-period-duration", TS_OPT_DURATION, NULL),
	CORE("tag.num-retained-max", TS_OPT_INT, NULL),
	CORE("tag.default-time-retained", TS_OPT_DURATION, NULL),
	CORE("tag.automatic-completion", TS_OPT_BOOL, "false"),
	CORE("tag.batch.customized-name", TS_OPT_STRING, NULL),
	CORE("parquet.enable.dictionary", TS_OPT_INT, NULL),
	/* Parquet writer sizes Paimon passes on to parquet-mr (read by src/write) */
	E("parquet.block.size", NULL, TS_OPT_LONG, NULL, 0, 0, "134217728", TS_OPT_IGNORED, 0, 0,
	  "ParquetOutputFormat"),
	E("parquet.page.size", NULL, TS_OPT_INT, NULL, 0, 0, "1048576", TS_OPT_IGNORED, 0, 0,
	  "ParquetOutputFormat"),
	CORE("sink.watermark-time-zone", TS_OPT_STRING, "UTC"),
	CORE("sink.process-time-zone", TS_OPT_STRING, NULL),
	CORE("local-merge-buffer-size", TS_OPT_MEMORY, NULL),
	CORE("cross-partition-upsert.index-ttl", TS_OPT_DURATION, NULL),
	CORE("cross-partition-upsert.bootstrap-parallelism", TS_OPT_INT, "10"),
	CORE("zorder.var-length-contribution", TS_OPT_INT, "8"),
	CORE("file-reader-async-threshold", TS_OPT_MEMORY, "10 mb"),
	CORE("deletion-vector.index-file.target-size", TS_OPT_MEMORY, "2 mb"),
	CORE("deletion-vectors.bitmap64", TS_OPT_BOOL, "false"),
	CORE("delete.force-produce-changelog", TS_OPT_BOOL, "false"),
	CORE("sort-compaction.range-strategy", TS_OPT_ENUM, "quantity"),
	CORE("sort-compaction.local-sample.magnification", TS_OPT_INT, "1000"),
	CORE("record-level.expire-time", TS_OPT_DURATION, NULL),
	CORE("record-level.time-field", TS_OPT_STRING, NULL),
	CORE_FB("file-operation.thread-num", "delete-file.thread-num", TS_OPT_INT, NULL),
	CORE("async-file-write", TS_OPT_BOOL, "true"),
	CORE("materialized-table.definition-query", TS_OPT_STRING, NULL),
	CORE("materialized-table.interval-freshness", TS_OPT_STRING, NULL),
	CORE("materialized-table.interval-freshness.time-unit", TS_OPT_ENUM, NULL),
	CORE("materialized-table.logical-refresh-mode", TS_OPT_ENUM, NULL),
	CORE("materialized-table.refresh-mode", TS_OPT_ENUM, NULL),
	CORE("materialized-table.refresh-status", TS_OPT_ENUM, NULL),
	CORE("materialized-table.refresh-handler-description", TS_OPT_STRING, NULL),
	CORE("materialized-table.refresh-handler-bytes", TS_OPT_STRING, NULL),
	CORE("alter-column-null-to-not-null.disabled", TS_OPT_BOOL, "true"),
	CORE("disable-explicit-type-casting", TS_OPT_BOOL, "false"),
	CORE_FB("clustering.columns", "sink.clustering.by-columns", TS_OPT_STRING, NULL),
	CORE_FB("clustering.strategy", "sink.clustering.strategy", TS_OPT_STRING, "auto"),
	CORE("clustering.incremental", TS_OPT_BOOL, "false"),
	CORE("format-table.implementation", TS_OPT_ENUM, "engine"),

	/* ---- FileIndexOptions: file-index.<type>.columns, file-index.<type>.<column>.<option> ---- */
	E("file-index.<type>.columns", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0,
	  TS_OPTF_PATTERN, "FileIndexOptions"),
	E("file-index.<type>.<column>.<option>", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0,
	  TS_OPTF_PATTERN, "FileIndexOptions"),

	/* ---- format tables: CsvOptions, JsonOptions, TextOptions (fallbacks: Hive / Spark names) ---- */
	ACT("csv.field-delimiter", "field-delimiter|seq|delimiter", TS_OPT_STRING, NULL, 0, 0, ",",
		TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.line-delimiter", "lineSep", TS_OPT_STRING, NULL, 0, 0, "\n", TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.quote-character", "quote", TS_OPT_STRING, NULL, 0, 0, "\"", TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.escape-character", "escape", TS_OPT_STRING, NULL, 0, 0, "\\", TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.include-header", "header", TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.null-literal", "nullvalue", TS_OPT_STRING, NULL, 0, 0, "", TS_LAYER_FORMAT, "CsvOptions"),
	ACT("csv.mode", "mode", TS_OPT_ENUM, "PERMISSIVE|DROPMALFORMED|FAILFAST", 0, 0, "PERMISSIVE",
		TS_LAYER_FORMAT, "CsvOptions"),
	ACT("json.ignore-parse-errors", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_LAYER_FORMAT, "JsonOptions"),
	ACT("json.map-null-key-mode", NULL, TS_OPT_ENUM, "FAIL|DROP|LITERAL", 0, 0, "FAIL", TS_LAYER_FORMAT, "JsonOptions"),
	ACT("json.line-delimiter", NULL, TS_OPT_STRING, NULL, 0, 0, "\n", TS_LAYER_FORMAT, "JsonOptions"),
	E("json.map-null-key-literal", NULL, TS_OPT_STRING, NULL, 0, 0, "null", TS_OPT_IGNORED, 0, 0, "JsonOptions"),
	E("json.timestamp-format.standard", NULL, TS_OPT_ENUM, NULL, 0, 0, "SQL", TS_OPT_IGNORED, 0, 0, "JsonOptions"),
	E("json.encode.decimal-as-plain-number", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_IGNORED, 0, 0,
	  "JsonOptions"),
	ACT("text.line-delimiter", "lineSep", TS_OPT_STRING, NULL, 0, 0, "\n", TS_LAYER_FORMAT, "TextOptions"),

	/*
	 * ---- object stores: S3FileIO (s3.* mirrored to Hadoop's fs.s3a.*) and
	 * OSSFileIO; read by the storage layer (src/fdw/storage_options.c, by
 * the setting each gives; the keys it does not read are ignored) when
	 * present).  Secrets belong in USER MAPPING only.
	 */
	STORE("s3.endpoint", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_ENDPOINT, "S3FileIO"),
	STORE("s3.region", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_REGION, "S3FileIO"),
	STORE("s3.path.style.access", NULL, TS_OPT_BOOL, "false", 0, TS_STORE_PATH_STYLE, "S3FileIO"),
	STORE("s3.access-key", "s3.access.key", TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_ACCESS_KEY, "S3FileIO"),
	STORE("s3.secret-key", "s3.secret.key", TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SECRET_KEY, "S3FileIO"),
	STORE("s3.session-token", "s3.session.token", TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SESSION_TOKEN,
		  "S3FileIO"),
	E("s3.connection.ssl.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "true", TS_OPT_IGNORED, TS_LAYER_STORAGE, 0, "S3FileIO"),
	E("s3.connection.maximum", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED, TS_LAYER_STORAGE, 0, "S3FileIO"),
	E("s3.connection.timeout", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_IGNORED, TS_LAYER_STORAGE, 0, "S3FileIO"),
	E("s3.attempts.maximum", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED, TS_LAYER_STORAGE, 0, "S3FileIO"),
	/*
	 * Where the keys come from (a provider class, a role to assume): not
	 * implemented, and ignoring them would read with other credentials than
	 * the ones asked for.  Refused, as a feature we do not read.
	 */
	E("s3.aws.credentials.provider", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_REFUSED, TS_LAYER_STORAGE, 0,
	  "S3FileIO"),
	E("s3.assumed.role.arn", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_REFUSED, TS_LAYER_STORAGE, 0, "S3FileIO"),
	STORE("fs.s3a.endpoint", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_ENDPOINT, "S3AFileSystem"),
	STORE("fs.s3a.endpoint.region", "fs.s3a.region", TS_OPT_STRING, NULL, 0, TS_STORE_REGION, "S3AFileSystem"),
	STORE("fs.s3a.path.style.access", NULL, TS_OPT_BOOL, "false", 0, TS_STORE_PATH_STYLE, "S3AFileSystem"),
	STORE("fs.s3a.access.key", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_ACCESS_KEY, "S3AFileSystem"),
	STORE("fs.s3a.secret.key", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SECRET_KEY, "S3AFileSystem"),
	STORE("fs.s3a.session.token", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SESSION_TOKEN,
		  "S3AFileSystem"),
	E("fs.s3a.connection.ssl.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "true", TS_OPT_IGNORED, TS_LAYER_STORAGE, 0,
	  "S3AFileSystem"),
	E("fs.s3a.aws.credentials.provider", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_REFUSED, TS_LAYER_STORAGE, 0,
	  "S3AFileSystem"),	/* as s3.aws.credentials.provider */
	E("fs.s3a.connection.maximum", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED, TS_LAYER_STORAGE, 0,
	  "S3AFileSystem"),
	E("fs.s3a.attempts.maximum", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED, TS_LAYER_STORAGE, 0,
	  "S3AFileSystem"),
	STORE("fs.oss.endpoint", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_ENDPOINT, "OSSFileIO"),
	STORE("fs.oss.region", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_REGION, "OSSFileIO"),
	STORE("fs.oss.accessKeyId", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_ACCESS_KEY, "OSSFileIO"),
	STORE("fs.oss.accessKeySecret", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SECRET_KEY, "OSSFileIO"),
	STORE("fs.oss.securityToken", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SESSION_TOKEN, "OSSFileIO"),
	/*
	 * Ours: the s3a.* short forms of the keys above, the CA file that
	 * verifies the store's certificate, and where a role without a user
	 * mapping gets keys (SERVER only).
	 */
	STORE("s3a.endpoint", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_ENDPOINT, "tablescan_fdw"),
	STORE("s3a.region", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_REGION, "tablescan_fdw"),
	STORE("s3a.path.style.access", NULL, TS_OPT_BOOL, "false", 0, TS_STORE_PATH_STYLE, "tablescan_fdw"),
	STORE("s3a.access-key", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_ACCESS_KEY, "tablescan_fdw"),
	STORE("s3a.secret-key", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SECRET_KEY, "tablescan_fdw"),
	STORE("s3a.session-token", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_SESSION_TOKEN, "tablescan_fdw"),
	STORE("ca_file", NULL, TS_OPT_STRING, NULL, TS_OPTF_PATH, TS_STORE_CA_FILE, "tablescan_fdw"),
	{"credentials", NULL, TS_OPT_ENUM, "anonymous|environment", 0, 0, "anonymous", TS_OPT_ACTED, TS_LAYER_STORAGE,
	0, "tablescan_fdw", TS_STORE_CREDENTIALS},

	/*
	 * Azure Blob Storage / ADLS Gen2 (src/base/ts_azure.h): an emulator's
	 * endpoint (path-style, "http://127.0.0.1:10000/<account>"), the account
	 * key or a SAS token (ABFS's fixed token), Hadoop's per-account key
	 * fs.azure.account.key.<account>.dfs.core.windows.net (used only for
	 * that account: src/fdw/storage_options.c).  Read by src/base/fs_azure.c.
	 */
	STORE("azure.endpoint", NULL, TS_OPT_STRING, NULL, 0, TS_STORE_AZURE_ENDPOINT, "tablescan_fdw"),
	STORE("azure.account-key", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET, TS_STORE_AZURE_ACCOUNT_KEY,
		  "tablescan_fdw"),
	STORE("azure.sas-token", "fs.azure.sas.fixed.token", TS_OPT_STRING, NULL, TS_OPTF_SECRET,
		  TS_STORE_AZURE_SAS_TOKEN, "tablescan_fdw"),
	STORE("fs.azure.account.key.<account>", NULL, TS_OPT_STRING, NULL, TS_OPTF_SECRET | TS_OPTF_PATTERN,
		  TS_STORE_AZURE_ACCOUNT_KEY, "AzureBlobFileSystem"),

	/* ---- catalogs: CatalogOptions, RESTCatalogOptions ---- */
	E("warehouse", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, TS_OPTF_PATH, "CatalogOptions"),
	E("uri", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, TS_OPTF_PATH, "RESTCatalogOptions"),
	E("token", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, TS_OPTF_SECRET, "RESTCatalogOptions"),
	E("token.provider", NULL, TS_OPT_ENUM, "bear|dlf", 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, 0,
	  "RESTCatalogOptions"),
	/* a server option, else the catalog's config (src/fdw/rest.c) */
	E("data-token.enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "false", TS_OPT_ACTED, TS_LAYER_FDW, 0, "RESTCatalogOptions"),
	/* the catalog's path prefix, from its config (src/scan/rest_catalog.c) */
	E("prefix", NULL, TS_OPT_STRING, NULL, 0, 0, NULL, TS_OPT_ACTED, TS_LAYER_FDW, 0, "RESTCatalogInternalOptions"),
	E("rest.client.connection-timeout", NULL, TS_OPT_DURATION, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, 0,
	  "RESTCatalogOptions"),
	E("rest.client.read-timeout", NULL, TS_OPT_DURATION, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, 0, "RESTCatalogOptions"),
	E("rest.client.num-threads", NULL, TS_OPT_INT, NULL, 0, 0, NULL, TS_OPT_IGNORED, 0, 0, "RESTCatalogOptions"),
	E("metastore", NULL, TS_OPT_STRING, NULL, 0, 0, "filesystem", TS_OPT_IGNORED, 0, 0, "CatalogOptions"),
	E("cache-enabled", NULL, TS_OPT_BOOL, NULL, 0, 0, "true", TS_OPT_IGNORED, 0, 0, "CatalogOptions"),
};

const int	ts_core_option_count = (int) (sizeof(ts_core_option_table) / sizeof(ts_core_option_table[0]));

/*
 * Does key match pattern, where each "<...>" part of the pattern matches one
 * or more characters (a Java class name in commit.callback.<class>.param
 * has dots of its own)?
 */
static bool
pattern_match(const char *pat, const char *key)
{
	while (*pat)
	{
		if (*pat == '<')
		{
			const char *close = strchr(pat, '>');

			if (close == NULL)
				return false;
			/* every non-empty span of key for this placeholder */
			for (const char *k = key + 1; k <= key + strlen(key); k++)
				if (key[0] != '\0' && pattern_match(close + 1, k))
					return true;
			return false;
		}
		if (*pat != *key)
			return false;
		pat++;
		key++;
	}
	return *key == '\0';
}

static bool
in_list(const char *list, const char *word, bool nocase)
{
	size_t		n = strlen(word);

	while (list && *list)
	{
		const char *bar = strchr(list, '|');
		size_t		len = bar ? (size_t) (bar - list) : strlen(list);

		if (len == n && (nocase ? strncasecmp(list, word, n) : strncmp(list, word, n)) == 0)
			return true;
		list = bar ? bar + 1 : NULL;
	}
	return false;
}

const ts_core_option *
ts_core_option_find(const char *key)
{
	const ts_core_option *pattern = NULL;

	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];

		if (o->flags & TS_OPTF_PATTERN)
		{
			if (pattern == NULL && pattern_match(o->key, key))
				pattern = o;
		}
		else if (strcmp(o->key, key) == 0 || in_list(o->fallback, key, false))
			return o;
	}
	return pattern;
}

/* the last key read that the registry lacks (for tests: only a bug of ours writes it) */
static char unregistered_read[128];

bool
ts_core_option_readable(const char *key)
{
	if (key != NULL && ts_core_option_find(key) != NULL)
		return true;
	snprintf(unregistered_read, sizeof(unregistered_read), "%s", key ? key : "(null)");
	return false;
}

const char *
ts_core_option_unregistered_read(void)
{
	return unregistered_read[0] ? unregistered_read : NULL;
}

/* Levenshtein distance, insert / delete / substitute cost 1 (as PostgreSQL's). */
static int
levenshtein(const char *a, const char *b)
{
	size_t		la = strlen(a),
				lb = strlen(b);
	int			row[128];

	if (la >= 127 || lb >= 127)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int) j;
	for (size_t i = 1; i <= la; i++)
	{
		int			diag = row[0];

		row[0] = (int) i;
		for (size_t j = 1; j <= lb; j++)
		{
			int			up = row[j];
			int			best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* How far key is from candidate: the start of a key ("scan.tag") counts as close. */
static int
key_distance(const char *key, size_t klen, const char *candidate)
{
	if (strncmp(candidate, key, klen) == 0 && (candidate[klen] == '-' || candidate[klen] == '.'))
		return 1;
	return levenshtein(key, candidate);
}

const char *
ts_core_option_closest(const char *key, bool secrets, const char *const *extra)
{
	const char *best = NULL;
	int			best_d = 1000;
	size_t		klen = strlen(key);
	/* as PostgreSQL's getClosestMatch: a few edits, and not most of the word */
	int			max_d = klen / 2 < 4 ? (int) (klen / 2) : 4;

	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];
		int			d;

		if ((o->flags & (TS_OPTF_PATTERN | TS_OPTF_INTERNAL)) || (secrets && !(o->flags & TS_OPTF_SECRET)))
			continue;
		d = key_distance(key, klen, o->key);
		if (d < best_d)
		{
			best_d = d;
			best = o->key;
		}
	}
	for (int i = 0; extra && extra[i]; i++)
	{
		int			d = key_distance(key, klen, extra[i]);

		if (d < best_d)
		{
			best_d = d;
			best = extra[i];
		}
	}
	return best_d <= max_d ? best : NULL;
}

/*
 * An integer as the option checks have always read one: an optional '-'
 * and decimal digits, nothing else (no spaces, '+' or other bases), within
 * 64 bits.
 */
static bool
parse_java_long(const char *v, int64_t *out)
{
	char	   *end;
	long long	n;
	const char *p = v[0] == '-' ? v + 1 : v;

	if (!isdigit((unsigned char) *p))
		return false;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = n;
	return true;
}

static bool
java_bool(const char *v, bool *out)
{
	if (strcasecmp(v, "true") == 0)
		*out = true;
	else if (strcasecmp(v, "false") == 0)
		*out = false;
	else
		return false;
	return true;
}

bool
ts_core_option_check_value(const ts_core_option *o, const char *value, char *hint, size_t hintlen)
{
	bool		b;
	int64_t		n;
	char	   *end;

	switch (o->type)
	{
		case TS_OPT_BOOL:
			if (java_bool(value, &b))
				return true;
			snprintf(hint, hintlen, "The value must be true or false.");
			return false;
		case TS_OPT_INT:
		case TS_OPT_LONG:
			{
				int64_t		lo = o->min,
							hi = o->max;

				if (lo == 0 && hi == 0)
				{
					lo = o->type == TS_OPT_INT ? INT32_MIN : INT64_MIN;
					hi = o->type == TS_OPT_INT ? INT32_MAX : INT64_MAX;
				}
				if (parse_java_long(value, &n) && n >= lo && n <= hi)
					return true;
				if (hi == INT64_MAX && lo == INT64_MIN)
					snprintf(hint, hintlen, "The value must be an integer.");
				else if (hi == INT64_MAX)
					snprintf(hint, hintlen, "The value must be an integer >= %lld.", (long long) lo);
				else
					snprintf(hint, hintlen, "The value must be an integer between %lld and %lld.",
							 (long long) lo, (long long) hi);
				return false;
			}
		case TS_OPT_DOUBLE:
			if (value[0] != '\0')
			{
				(void) strtod(value, &end);
				if (*end == '\0')
					return true;
			}
			snprintf(hint, hintlen, "The value must be a number.");
			return false;
		case TS_OPT_ENUM:
			if (o->allowed == NULL || in_list(o->allowed, value, true))
				return true;
			{
				size_t		w = (size_t) snprintf(hint, hintlen, "Valid values are: ");
				const char *p = o->allowed;

				for (; *p && w + 3 < hintlen; p++)
					w += (size_t) snprintf(hint + w, hintlen - w, *p == '|' ? ", " : "%c", *p);
				if (w + 2 < hintlen)
					snprintf(hint + w, hintlen - w, ".");
			}
			return false;
		case TS_OPT_STRING:
		case TS_OPT_DURATION:
		case TS_OPT_MEMORY:
		case TS_OPT_MAP:
			return true;
	}
	return true;
}

/* get(key), then the entry's fallback keys in order */
static const char *
lookup(ts_option_getter get, const void *arg, const char *key)
{
	const ts_core_option *o;
	const char *v;
	char		fb[128];

	if (!ts_core_option_readable(key))
		return NULL;
	if ((v = get(arg, key)) != NULL)
		return v;
	o = ts_core_option_find(key);
	if (o->fallback == NULL)
		return NULL;
	for (const char *p = o->fallback; p && *p;)
	{
		const char *bar = strchr(p, '|');
		size_t		len = bar ? (size_t) (bar - p) : strlen(p);

		if (len < sizeof(fb))
		{
			memcpy(fb, p, len);
			fb[len] = '\0';
			if ((v = get(arg, fb)) != NULL)
				return v;
		}
		p = bar ? bar + 1 : NULL;
	}
	return NULL;
}

static bool
parse_bool(ts_option_getter get, const void *arg, const char *key, bool dflt, bool *out, ts_err *err)
{
	const char *v = lookup(get, arg, key);

	*out = dflt;
	if (v == NULL)
		return true;
	if (!java_bool(v, out))
	{
		ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
		return ts_error_detail(err, "Paimon reads a boolean option as true or false (any case).");
	}
	return true;
}

bool
ts_core_options_parse(ts_core_options *out, ts_option_getter get, const void *arg, ts_err *err)
{
	const char *v;
	int64_t		n;

	memset(out, 0, sizeof(*out));
	out->bucket = -1;
	if ((v = lookup(get, arg, TS_OPT_BUCKET)) != NULL)
	{
		if (!parse_java_long(v, &n) || n < -2 || n > INT32_MAX)
			return ts_error(err, TS_ERR_INVALID, "invalid bucket option \"%s\"", v);
		out->bucket = (int32_t) n;
	}
	out->bucket_function_type = lookup(get, arg, TS_OPT_BUCKET_FUNCTION_TYPE);
	out->merge_engine = TS_MERGE_DEDUPLICATE;
	if ((v = lookup(get, arg, TS_OPT_MERGE_ENGINE)) != NULL)
	{
		if (strcasecmp(v, "deduplicate") == 0)
			out->merge_engine = TS_MERGE_DEDUPLICATE;
		else if (strcasecmp(v, "partial-update") == 0)
			out->merge_engine = TS_MERGE_PARTIAL_UPDATE;
		else if (strcasecmp(v, "aggregation") == 0)
			out->merge_engine = TS_MERGE_AGGREGATION;
		else if (strcasecmp(v, "first-row") == 0)
			out->merge_engine = TS_MERGE_FIRST_ROW;
		else
			return ts_error(err, TS_ERR_UNSUPPORTED, "merge-engine \"%s\" is not supported", v);
	}
	out->file_format = lookup(get, arg, TS_OPT_FILE_FORMAT);
	v = lookup(get, arg, TS_OPT_PARTITION_DEFAULT_NAME);
	out->partition_default_name = v ? v : "__DEFAULT_PARTITION__";
	out->data_file_path_directory = lookup(get, arg, TS_OPT_DATA_FILE_PATH_DIRECTORY);
	return parse_bool(get, arg, TS_OPT_DATA_EVOLUTION, false, &out->data_evolution, err) &&
		parse_bool(get, arg, TS_OPT_ROW_TRACKING, false, &out->row_tracking, err) &&
		parse_bool(get, arg, TS_OPT_DELETION_VECTORS, false, &out->deletion_vectors, err) &&
		parse_bool(get, arg, TS_OPT_DV_MERGE_ON_READ, false, &out->dv_merge_on_read, err) &&
		parse_bool(get, arg, TS_OPT_SEQUENCE_SNAPSHOT_ORDERING, false, &out->sequence_snapshot_ordering, err) &&
		parse_bool(get, arg, TS_OPT_IGNORE_DELETE, false, &out->ignore_delete, err) &&
		parse_bool(get, arg, TS_OPT_PARTITION_LEGACY_NAME, true, &out->partition_legacy_name, err);
}

/* v is Java's default of o (booleans in any case, as Java parses them) */
static bool
is_default_value(const ts_core_option *o, const char *v)
{
	bool		a,
				b;

	if (o->dflt == NULL)
		return false;
	if (o->type == TS_OPT_BOOL)
		return java_bool(v, &a) && java_bool(o->dflt, &b) && a == b;
	return strcmp(v, o->dflt) == 0;
}

bool
ts_core_options_check_table(const char *const *keys, int nkeys, ts_option_getter get,
							const void *arg, const char *table, ts_err *err)
{
	for (int i = 0; i < nkeys; i++)
	{
		const ts_core_option *o;
		const char *v;

		if (keys[i] == NULL || (o = ts_core_option_find(keys[i])) == NULL)
			continue;
		if (o->support != TS_OPT_REFUSED && o->support != TS_OPT_IGNORED_ROWS)
			continue;
		v = get(arg, keys[i]);
		if (v == NULL || is_default_value(o, v))
			continue;
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "table \"%s\": option \"%s\" = \"%s\" is not supported", table, keys[i], v);
		if (o->support == TS_OPT_REFUSED)
			ts_error_detail(err, "The table's schema sets it; reading the table with it would need a feature tablescan_fdw does not implement.");
		else
			ts_error_detail(err, "The table's schema sets it; tablescan_fdw does not implement it, and Java Paimon would return other rows.");
		return false;
	}
	return true;
}
