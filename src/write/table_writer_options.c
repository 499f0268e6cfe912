/*
 * table_writer_options.c - the options a table writer reads, and refuses.
 *
 * Owns: reading each write option of a table (the foreign table's over the
 * schema's) with Java's syntax (MemorySize, durations, integers):
 * bucket and target-file-size, file.format / file.compression, the
 * statistics mode, data-file.prefix, commit retries, waits and timeout,
 * the manifest.* merge options and manifest.compression (the manifests'
 * Avro codec), write-buffer-size; and refusing, before any
 * file is written, every option whose meaning this writer cannot give the
 * files exactly as Java would (dynamic and postpone buckets, deletion
 * vectors, changelog producers other than none / input, row tracking...),
 * each ERROR naming the option and its value.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_base.h"
#include "write/table_writer_internal.h"

static const char *
option(const ts_table_writer *w, const char *key)
{
	for (int i = w->noptions - 1; i >= 0; i--)
		if (strcmp(w->options[i].key, key) == 0)
			return w->options[i].value;
	return ts_schema_option(w->schema, key);
}

/* Java MemorySize: a number with an optional unit (b, k[b], m[b], g[b], t[b]). */
static bool
parse_memory(const char *key, const char *v, int64_t *out, ts_err *err)
{
	char	   *end;
	long long	n;
	int64_t		unit = 1;

	while (isspace((unsigned char) *v))
		v++;
	if (!isdigit((unsigned char) *v))
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
	n = strtoll(v, &end, 10);
	while (isspace((unsigned char) *end))
		end++;
	if (*end == '\0' || strcasecmp(end, "b") == 0 || strcasecmp(end, "bytes") == 0)
		unit = 1;
	else if (strcasecmp(end, "k") == 0 || strcasecmp(end, "kb") == 0 || strcasecmp(end, "kibibytes") == 0)
		unit = 1024;
	else if (strcasecmp(end, "m") == 0 || strcasecmp(end, "mb") == 0 || strcasecmp(end, "mebibytes") == 0)
		unit = 1024 * 1024;
	else if (strcasecmp(end, "g") == 0 || strcasecmp(end, "gb") == 0 || strcasecmp(end, "gibibytes") == 0)
		unit = (int64_t) 1 << 30;
	else if (strcasecmp(end, "t") == 0 || strcasecmp(end, "tb") == 0 || strcasecmp(end, "tebibytes") == 0)
		unit = (int64_t) 1 << 40;
	else
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
	if (n <= 0 || n > INT64_MAX / unit)
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
	*out = (int64_t) n * unit;
	return true;
}

static bool
parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out, ts_err *err)
{
	char	   *end;
	long long	n = strtoll(v, &end, 10);

	if (end == v || *end != '\0' || n < lo || n > hi)
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"%s\": \"%s\"", key, v);
	*out = n;
	return true;
}

static const char *
option_of(const void *w, const char *key)
{
	return option(w, key);
}

static bool
refuse(ts_err *err, const char *key, const char *value, const char *why)
{
	ts_error(err, TS_ERR_UNSUPPORTED, "writing to a table with \"%s\" = \"%s\" is not supported yet",
			 key, value);
	ts_error_hint(err, "%s", why);
	return false;
}

/*
 * changelog-producer: input on a primary-key table writes every record
 * also as a changelog file (as Java's MergeTreeWriter); lookup and
 * full-compaction need a compaction job; on an append table Java refuses
 * any producer (SchemaValidation), with the same words.
 */
static bool
check_changelog_producer(ts_table_writer *w, ts_err *err)
{
	static const char *const refused_file_options[] = {
		"changelog-file.format", "changelog-file.compression", "changelog-file.stats-mode"
	};
	const char *v = option(w, "changelog-producer");

	if (v == NULL || strcasecmp(v, "none") == 0)
		return true;
	if (w->schema->nprimary_keys == 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "writing to a table with \"changelog-producer\" = \"%s\" is not supported: the table has no primary key",
				 v);
		return ts_error_hint(err, "Java Paimon refuses such a table: \"Can not set changelog-producer on table without primary keys, please define primary keys.\"");
	}
	if (strcasecmp(v, "input") != 0)
		return refuse(err, "changelog-producer", v,
					  "Changelog producers lookup and full-compaction need a compaction job; only \"input\" is written.");
	for (size_t i = 0; i < sizeof(refused_file_options) / sizeof(refused_file_options[0]); i++)
		if ((v = option(w, refused_file_options[i])) != NULL)
			return refuse(err, refused_file_options[i], v,
						  "Changelog files are written in the data files' format, compression and statistics mode.");
	w->changelog_prefix = option(w, "changelog-file.prefix");
	if (w->changelog_prefix == NULL)
		w->changelog_prefix = "changelog-";
	if (strchr(w->changelog_prefix, '/') != NULL)
		return refuse(err, "changelog-file.prefix", w->changelog_prefix, "A prefix cannot name a directory.");
	w->changelog_input = true;
	return true;
}

/* manifest.* sizes and count that decide the merging of the base manifest list; the manifests' codec */
static bool
merge_options(ts_table_writer *w, ts_err *err)
{
	ts_manifest_merge_options defaults = TS_MANIFEST_MERGE_DEFAULTS;
	const char *v;
	int64_t		n;
	int			level;

	w->merge = defaults;
	if ((v = option(w, "manifest.target-file-size")) != NULL &&
		!parse_memory("manifest.target-file-size", v, &w->merge.target_size, err))
		return false;
	if ((v = option(w, "manifest.full-compaction-threshold-size")) != NULL &&
		!parse_memory("manifest.full-compaction-threshold-size", v, &w->merge.full_threshold, err))
		return false;
	if (w->merge.full_threshold <= 0)
	{
		ts_error(err, TS_ERR_INVALID,
				 "invalid value for option \"manifest.full-compaction-threshold-size\": \"%s\"", v);
		return ts_error_hint(err, "The size must be greater than zero.");
	}
	if ((v = option(w, "manifest.merge-min-count")) != NULL)
	{
		if (!parse_int("manifest.merge-min-count", v, INT32_MIN, INT32_MAX, &n, err))
			return false;
		w->merge.min_count = (int) n;
	}
	/*
	 * manifests and manifest lists: Java's manifest format is Avro with the
	 * table's options (avro.codec first, zstd at file.compression.zstd-level)
	 * and manifest.compression in place of file.compression
	 */
	return ts_file_writer_zstd_level(option(w, "file.compression.zstd-level"), &level, err) &&
		ts_file_writer_avro_codec(option(w, "avro.codec"), "manifest.compression",
								  option(w, "manifest.compression"), level, "manifests",
								  &w->manifest_codec, &w->manifest_zstd_level, err);
}

/*
 * Is dir a directory below the table (data-file.path-directory): relative,
 * its '/'-separated names neither empty nor "." or ".."?
 */
static bool
relative_dir_ok(const char *dir)
{
	const char *p = dir;

	if (*p == '/')
		return false;
	for (;;)
	{
		size_t		n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

/* Everything that makes a plain writer produce a table others misread: refused. */
bool
ts_table_writer_check_options(ts_table_writer *w, ts_err *err)
{
	static const struct
	{
		const char *key;
		const char *ok;			/* the value that is fine (NULL: any set value is refused) */
		const char *why;
	}			refused[] = {
		{"deletion-vectors.enabled", "false", "Deletion-vector tables need files and index entries this writer does not produce."},
		{"row-tracking.enabled", "false", "Row tracking needs row ids assigned at commit."},
		{"data-evolution.enabled", "false", "Data evolution needs row ids and partial-column files."},
		{"manifest.format", "avro", "This writer writes Avro manifests only."},
		{"file.suffix.include.compression", "false", "Data file names carry no compression suffix here."},
		{"type", "table", "Format tables are plain directories, not Paimon tables."},
		{"merge-engine", "deduplicate", "Merge engines apply to primary-key tables."},
		{"chain-table.enabled", "false", "Chain tables are committed through a callback."},
		{"metadata.iceberg.storage", "disabled", "Iceberg metadata is written by a commit callback."},
		{"metastore.partitioned-table", "false", "Metastore partitions are registered by a commit callback."},
		{"commit.callbacks", NULL, "Commit callbacks run in Java only."},
		{"file.format.per.level", NULL, "Per-level formats are not applied by this writer."},
		{"file.compression.per.level", NULL, "Per-level compression is not applied by this writer."},
		{"metadata.stats-keep-first-n-columns", NULL, "Partial statistics are not written by this writer."},
		{"clustering.columns", NULL, "Clustering is not applied by this writer."},
		{"sequence.field", NULL, "Sequence fields apply to primary-key tables."},
	};
	const char *v;
	int64_t		n;

	if (w->schema->nprimary_keys > 0 &&
		(w->kv = ts_kv_layout_create(w->schema, option_of, w, err)) == NULL)
		return false;
	/* the layout is the table's: a FOREIGN TABLE / SERVER option cannot change it */
	for (int i = 0; i < w->noptions; i++)
	{
		static const char *const layout[] = {"bucket", "bucket-key", "bucket-function.type"};

		for (size_t k = 0; k < sizeof(layout) / sizeof(layout[0]); k++)
		{
			const char *mine = ts_schema_option(w->schema, layout[k]);

			if (strcmp(w->options[i].key, layout[k]) == 0 &&
				(mine == NULL || strcmp(mine, w->options[i].value) != 0))
				return refuse(err, layout[k], w->options[i].value,
							  "The table's schema decides its buckets; writes cannot override it.");
		}
	}

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		v = option(w, refused[i].key);
		if (w->kv != NULL && (strcmp(refused[i].key, "merge-engine") == 0 ||
							  strcmp(refused[i].key, "sequence.field") == 0))
			continue;			/* kv_writer.c decides */
		if (v != NULL && (refused[i].ok == NULL || strcasecmp(v, refused[i].ok) != 0))
			return refuse(err, refused[i].key, v, refused[i].why);
	}
	for (int i = 0; i < w->schema->noptions; i++)
	{
		const char *k = w->schema->option_keys[i];

		if (strncmp(k, "fields.", 7) == 0 && strstr(k, ".stats-mode") != NULL)
			return refuse(err, k, w->schema->option_values[i],
						  "Per-column statistics modes are not applied by this writer.");
	}
	for (int i = 0; i < w->noptions; i++)
		if (strncmp(w->options[i].key, "fields.", 7) == 0 && strstr(w->options[i].key, ".stats-mode"))
			return refuse(err, w->options[i].key, w->options[i].value,
						  "Per-column statistics modes are not applied by this writer.");

	if (!check_changelog_producer(w, err))
		return false;

	/* bucket mode */
	v = option(w, "bucket");
	n = -1;
	if (v != NULL && !parse_int("bucket", v, INT32_MIN, INT32_MAX, &n, err))
		return false;
	if (n == 0 || n < -1)
		return refuse(err, "bucket", v, "Only bucket = -1 (unaware) and fixed buckets are written.");
	w->total_buckets = (int32_t) n;
	if (!ts_bucket_function_parse(option(w, "bucket-function.type"), &w->bucket_fn, err))
		return false;
	if (n > 0)
	{
		if (!ts_schema_bucket_keys(w->schema, &w->bucket_keys, &w->nbucket_keys, err))
			return false;
		if (w->nbucket_keys == 0)
			return ts_error(err, TS_ERR_INVALID,
							"table with \"bucket\" = \"%s\" has no \"bucket-key\"", v) && false;
	}

	/* files */
	w->target_file_size = (int64_t) (w->kv ? 128 : 256) << 20;	/* CoreOptions.targetFileSize */
	w->write_buffer_size = (int64_t) 256 << 20;
	if ((v = option(w, "write-buffer-size")) != NULL &&
		!parse_memory("write-buffer-size", v, &w->write_buffer_size, err))
		return false;
	if ((v = option(w, "target-file-size")) != NULL &&
		!parse_memory("target-file-size", v, &w->target_file_size, err))
		return false;
	if (!ts_file_writer_options_parse(option(w, "file.format"), option(w, "file.compression"),
									  option(w, "file.compression.zstd-level"), option(w, "avro.codec"),
									  &w->file_opts, err) ||
		!ts_file_writer_parquet_sizes(option(w, "parquet.block.size"), option(w, "parquet.page.size"),
									  &w->file_opts, err))
		return false;
	for (int i = 0; i < w->schema->nfields; i++)
		if (!ts_file_writer_supports(&w->file_opts, w->schema->fields[i].name,
									 w->schema->fields[i].type, err))
			return false;
	if (!ts_stats_mode_parse(option(w, "metadata.stats-mode"), &w->stats_mode, &w->stats_truncate, err))
		return false;
	w->data_prefix = option(w, "data-file.prefix");
	if (w->data_prefix == NULL)
		w->data_prefix = "data-";
	if (strchr(w->data_prefix, '/') != NULL)
		return refuse(err, "data-file.prefix", w->data_prefix, "A prefix cannot name a directory.");
	w->data_dir = option(w, "data-file.path-directory");
	if (w->data_dir != NULL && w->data_dir[0] == '\0')
		w->data_dir = NULL;
	if (w->data_dir != NULL && !relative_dir_ok(w->data_dir))
	{
		ts_error(err, TS_ERR_INVALID, "invalid value for option \"data-file.path-directory\": \"%s\"",
				 w->data_dir);
		return ts_error_hint(err, "Give a directory relative to the table, without \".\" or \"..\".");
	}
	w->max_retries = 10;
	if ((v = option(w, "commit.max-retries")) != NULL)
	{
		if (!parse_int("commit.max-retries", v, 0, 1000, &n, err))
			return false;
		w->max_retries = (int) n;
	}
	w->min_retry_wait_ms = 10;
	w->max_retry_wait_ms = 10000;
	if ((v = option(w, "commit.min-retry-wait")) != NULL &&
		!ts_write_parse_duration_ms("commit.min-retry-wait", v, &w->min_retry_wait_ms, err))
		return false;
	if ((v = option(w, "commit.max-retry-wait")) != NULL &&
		!ts_write_parse_duration_ms("commit.max-retry-wait", v, &w->max_retry_wait_ms, err))
		return false;
	w->commit_timeout_ms = INT64_MAX;	/* Java: no default, retries bounded by count only */
	if ((v = option(w, "commit.timeout")) != NULL &&
		!ts_write_parse_duration_ms("commit.timeout", v, &w->commit_timeout_ms, err))
		return false;
	return merge_options(w, err);
}
