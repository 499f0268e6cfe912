/*
 * test_core_options.c - the Paimon option registry (src/meta/core_options.c)
 * and README.md's option tables checked against it.
 *
 * The registry: entries well formed (unique keys, acted keys name the layer
 * that reads them, enums list their values), look-ups by key, Java fallback
 * key and <placeholder> pattern, the "did you mean" of misspelt keys
 * ("scan.snapshotid", "scan.snapshot_id", "scan.tag"), value checks as Java
 * parses them, secrets flagged, and parsing the options of a scan.
 * The object store keys: each alias gives its setting, secrets are the
 * keys, a key only the extension sets is flagged.  Reads through the
 * registry: a key it lacks reads as unset and is named.
 * README: every Paimon key its tables document is a registry key, and every
 * key we act on is documented (object store keys in "Object stores").  Run with --readme to print the rows of the
 * README's "Paimon options read" table from the registry.
 */
#include "unit.h"

#include <strings.h>

#include "base/ts_fs.h"
#include "meta/core_options.h"

static void
test_entries_well_formed(void **state)
{
	(void) state;
	assert_true(ts_core_option_count > 250);
	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];

		assert_non_null(o->key);
		assert_true(o->key[0] != '\0');
		assert_non_null(o->source);
		if (o->support == TS_OPT_ACTED)
		{
			if (o->layers == 0)
				fail_msg("acted key \"%s\" names no layer", o->key);
			if (o->type == TS_OPT_ENUM && o->allowed == NULL)
				fail_msg("acted enum \"%s\" lists no values", o->key);
		}
		assert_int_equal((o->flags & TS_OPTF_PATTERN) != 0, strchr(o->key, '<') != NULL);
		for (int j = 0; j < i; j++)
			if (strcmp(ts_core_option_table[j].key, o->key) == 0)
				fail_msg("key \"%s\" twice", o->key);
		/* a key is found as itself (patterns: by an instance) */
		if (!(o->flags & TS_OPTF_PATTERN))
			assert_ptr_equal(ts_core_option_find(o->key), o);
	}
}

static void
test_find(void **state)
{
	const ts_core_option *o;

	(void) state;
	o = ts_core_option_find("scan.snapshot-id");
	assert_non_null(o);
	assert_int_equal(o->type, TS_OPT_LONG);
	assert_int_equal(o->support, TS_OPT_ACTED);
	assert_true(o->layers & TS_LAYER_SCAN);
	/* Java's fallback keys find their option */
	assert_string_equal(ts_core_option_find("log.scan")->key, "scan.mode");
	assert_string_equal(ts_core_option_find("deduplicate.ignore-delete")->key, "ignore-delete");
	assert_string_equal(ts_core_option_find("snapshot.expire.clean-empty-directories")->key,
						"snapshot.clean-empty-directories");
	/* dynamic keys by pattern */
	assert_string_equal(ts_core_option_find("fields.price.aggregate-function")->key,
						"fields.<field>.aggregate-function");
	assert_string_equal(ts_core_option_find("fields.price.ignore-retract")->key,
						"fields.<field>.ignore-retract");
	assert_string_equal(ts_core_option_find("file-index.bloom-filter.columns")->key,
						"file-index.<type>.columns");
	assert_string_equal(ts_core_option_find("file-index.bloom-filter.f0.items")->key,
						"file-index.<type>.<column>.<option>");
	assert_string_equal(ts_core_option_find("commit.callback.com.x.Cb.param")->key,
						"commit.callback.<class>.param");
	/* fixed keys win over patterns; misspellings find nothing */
	assert_string_equal(ts_core_option_find("fields.default-aggregate-function")->key,
						"fields.default-aggregate-function");
	assert_string_equal(ts_core_option_find("file-index.read.enabled")->key, "file-index.read.enabled");
	assert_null(ts_core_option_find("scan.snapshotid"));
	assert_null(ts_core_option_find("scan.snapshot_id"));
	assert_null(ts_core_option_find("scan.tag"));
	assert_null(ts_core_option_find("fields.price"));
	assert_null(ts_core_option_find("file-index.bloom-filter"));
	assert_null(ts_core_option_find("my.own-key"));
}

static void
test_closest(void **state)
{
	static const char *const fdw_names[] = {"warehouse", "partition_filter", NULL};

	(void) state;
	assert_string_equal(ts_core_option_closest("scan.snapshotid", false, NULL), "scan.snapshot-id");
	assert_string_equal(ts_core_option_closest("scan.snapshot_id", false, NULL), "scan.snapshot-id");
	/* a key in no namespace: the hint of trust issue item 6 */
	assert_string_equal(ts_core_option_closest("scan-snapshot-id", false, NULL), "scan.snapshot-id");
	assert_string_equal(ts_core_option_closest("scan.tag", false, NULL), "scan.tag-name");
	assert_string_equal(ts_core_option_closest("s3.endpiont", false, NULL), "s3.endpoint");
	assert_string_equal(ts_core_option_closest("csv.field-delimter", false, NULL), "csv.field-delimiter");
	assert_string_equal(ts_core_option_closest("fs.s3a.acess.key", false, NULL), "fs.s3a.access.key");
	assert_null(ts_core_option_closest("scan.zzzzzzzzzzzzzzzzzzzz", false, NULL));
	assert_null(ts_core_option_closest("qq", false, NULL));
	/* the caller's own names compete with the registry's */
	assert_string_equal(ts_core_option_closest("warehose", false, fdw_names), "warehouse");
	assert_string_equal(ts_core_option_closest("partition-filter", false, fdw_names), "partition_filter");
	/* only secrets: what a USER MAPPING takes */
	assert_string_equal(ts_core_option_closest("s3.secret-kye", true, NULL), "s3.secret-key");
	assert_string_equal(ts_core_option_closest("tokn", true, NULL), "token");
	assert_null(ts_core_option_closest("scan.snapshotid", true, NULL));
}

static bool
check(const char *key, const char *value, char *hint, size_t len)
{
	const ts_core_option *o = ts_core_option_find(key);

	assert_non_null(o);
	hint[0] = '\0';
	return ts_core_option_check_value(o, value, hint, len);
}

static void
test_values(void **state)
{
	char		hint[256];

	(void) state;
	assert_true(check("data-evolution.enabled", "TRUE", hint, sizeof(hint)));
	assert_true(check("data-evolution.enabled", "false", hint, sizeof(hint)));
	assert_false(check("data-evolution.enabled", "yes", hint, sizeof(hint)));
	assert_string_equal(hint, "The value must be true or false.");

	assert_true(check("scan.snapshot-id", "5", hint, sizeof(hint)));
	assert_true(check("scan.snapshot-id", "9223372036854775807", hint, sizeof(hint)));
	assert_false(check("scan.snapshot-id", "0", hint, sizeof(hint)));
	assert_string_equal(hint, "The value must be an integer >= 1.");
	assert_false(check("scan.snapshot-id", "+3", hint, sizeof(hint)));
	assert_false(check("scan.snapshot-id", " 1", hint, sizeof(hint)));
	assert_false(check("scan.snapshot-id", "1 ", hint, sizeof(hint)));
	assert_false(check("scan.snapshot-id", "9223372036854775808", hint, sizeof(hint)));
	assert_false(check("scan.snapshot-id", "", hint, sizeof(hint)));
	assert_true(check("scan.timestamp-millis", "0", hint, sizeof(hint)));
	assert_false(check("scan.timestamp-millis", "-1", hint, sizeof(hint)));
	assert_true(check("bucket", "-2", hint, sizeof(hint)));
	assert_false(check("bucket", "-3", hint, sizeof(hint)));
	assert_false(check("bucket", "2147483648", hint, sizeof(hint)));
	assert_string_equal(hint, "The value must be an integer between -2 and 2147483647.");

	assert_true(check("scan.mode", "LATEST", hint, sizeof(hint)));
	assert_true(check("scan.mode", "from-snapshot-full", hint, sizeof(hint)));
	assert_false(check("scan.mode", "from-snapshot-ful", hint, sizeof(hint)));
	assert_non_null(strstr(hint, "Valid values are: default, latest-full, full, latest,"));
	assert_non_null(strstr(hint, "incremental."));
	assert_true(check("csv.mode", "failfast", hint, sizeof(hint)));
	assert_false(check("csv.mode", "lenient", hint, sizeof(hint)));
	assert_string_equal(hint, "Valid values are: PERMISSIVE, DROPMALFORMED, FAILFAST.");
	assert_true(check("merge-engine", "first-row", hint, sizeof(hint)));
	assert_false(check("merge-engine", "last-row", hint, sizeof(hint)));
	/* a short hint buffer stays terminated */
	assert_false(check("scan.mode", "x", hint, 20));
	assert_true(strlen(hint) < 20);

	/* secrets, path keys, what we ignore */
	assert_true(ts_core_option_find("s3.secret-key")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("s3.access-key")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("s3.session-token")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("fs.s3a.secret.key")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("fs.oss.accessKeySecret")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("token")->flags & TS_OPTF_SECRET);
	assert_false(ts_core_option_find("s3.endpoint")->flags & TS_OPTF_SECRET);
	assert_true(ts_core_option_find("external-path-map")->flags & TS_OPTF_PATH);
	assert_true(ts_core_option_find("data-file.external-paths")->flags & TS_OPTF_PATH);
	assert_int_equal(ts_core_option_find("write-buffer-size")->support, TS_OPT_IGNORED);
	assert_int_equal(ts_core_option_find("scan.file-creation-time-millis")->support, TS_OPT_IGNORED_ROWS);
	assert_int_equal(ts_core_option_find("fields.g.sequence-group")->support, TS_OPT_REFUSED);

	/* the keys merge.c reads are the registry's */
	{
		static const char *const merge_keys[] = {
			TS_OPT_MERGE_ENGINE, TS_OPT_SEQUENCE_FIELD, TS_OPT_SEQUENCE_FIELD_SORT_ORDER,
			TS_OPT_IGNORE_DELETE, TS_OPT_DEDUPLICATE_IGNORE_DELETE, TS_OPT_FIRST_ROW_IGNORE_DELETE,
			TS_OPT_PARTIAL_UPDATE_IGNORE_DELETE, TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE,
			TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP,
			TS_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE, TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION,
		};
		static const char *const field_suffixes[] = {
			TS_OPT_FIELD_AGGREGATE_FUNCTION, TS_OPT_FIELD_IGNORE_RETRACT, TS_OPT_FIELD_DISTINCT,
			TS_OPT_FIELD_LIST_AGG_DELIMITER, TS_OPT_FIELD_SEQUENCE_GROUP,
		};
		char		key[128];

		for (size_t i = 0; i < sizeof(merge_keys) / sizeof(merge_keys[0]); i++)
			assert_non_null(ts_core_option_find(merge_keys[i]));
		for (size_t i = 0; i < sizeof(field_suffixes) / sizeof(field_suffixes[0]); i++)
		{
			snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, "some_field", field_suffixes[i]);
			assert_non_null(ts_core_option_find(key));
		}
	}
}

/* The object store keys: every alias gives its setting; secrets are keys. */
static void
test_store_keys(void **state)
{
	static const struct
	{
		const char *key;
		ts_opt_store store;
	}			aliases[] = {
		{"s3.endpoint", TS_STORE_ENDPOINT}, {"s3a.endpoint", TS_STORE_ENDPOINT},
		{"fs.s3a.endpoint", TS_STORE_ENDPOINT}, {"fs.oss.endpoint", TS_STORE_ENDPOINT},
		{"s3.region", TS_STORE_REGION}, {"s3a.region", TS_STORE_REGION},
		{"fs.s3a.endpoint.region", TS_STORE_REGION}, {"fs.s3a.region", TS_STORE_REGION},
		{"fs.oss.region", TS_STORE_REGION},
		{"s3.path.style.access", TS_STORE_PATH_STYLE}, {"s3a.path.style.access", TS_STORE_PATH_STYLE},
		{"fs.s3a.path.style.access", TS_STORE_PATH_STYLE},
		{"ca_file", TS_STORE_CA_FILE}, {"credentials", TS_STORE_CREDENTIALS},
		{"s3.access-key", TS_STORE_ACCESS_KEY}, {"s3a.access-key", TS_STORE_ACCESS_KEY},
		{"s3.access.key", TS_STORE_ACCESS_KEY}, {"fs.s3a.access.key", TS_STORE_ACCESS_KEY},
		{"fs.oss.accessKeyId", TS_STORE_ACCESS_KEY},
		{"s3.secret-key", TS_STORE_SECRET_KEY}, {"s3a.secret-key", TS_STORE_SECRET_KEY},
		{"s3.secret.key", TS_STORE_SECRET_KEY}, {"fs.s3a.secret.key", TS_STORE_SECRET_KEY},
		{"fs.oss.accessKeySecret", TS_STORE_SECRET_KEY},
		{"s3.session-token", TS_STORE_SESSION_TOKEN}, {"s3a.session-token", TS_STORE_SESSION_TOKEN},
		{"s3.session.token", TS_STORE_SESSION_TOKEN}, {"fs.s3a.session.token", TS_STORE_SESSION_TOKEN},
		{"fs.oss.securityToken", TS_STORE_SESSION_TOKEN},
		{"azure.endpoint", TS_STORE_AZURE_ENDPOINT}, {"azure.account-key", TS_STORE_AZURE_ACCOUNT_KEY},
		{"fs.azure.account.key.acct.dfs.core.windows.net", TS_STORE_AZURE_ACCOUNT_KEY},
		{"azure.sas-token", TS_STORE_AZURE_SAS_TOKEN}, {"fs.azure.sas.fixed.token", TS_STORE_AZURE_SAS_TOKEN},
	};
	int			nstore = 0;

	(void) state;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
	{
		const ts_core_option *o = ts_core_option_find(aliases[i].key);
		bool		secret = aliases[i].store == TS_STORE_ACCESS_KEY ||
			aliases[i].store == TS_STORE_SECRET_KEY || aliases[i].store == TS_STORE_SESSION_TOKEN ||
			aliases[i].store == TS_STORE_AZURE_ACCOUNT_KEY || aliases[i].store == TS_STORE_AZURE_SAS_TOKEN;

		if (o == NULL || o->store != aliases[i].store)
			fail_msg("\"%s\" does not give its object store setting", aliases[i].key);
		assert_int_equal(o->support, TS_OPT_ACTED);
		assert_true(o->layers & TS_LAYER_STORAGE);
		assert_int_equal((o->flags & TS_OPTF_SECRET) != 0, secret);
	}
	/* no other key gives a setting (the list above is every alias) */
	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];

		nstore += o->store != TS_STORE_NONE;
		/* a storage key we act on gives a setting: nothing acted on without one */
		if ((o->layers & TS_LAYER_STORAGE) && o->support == TS_OPT_ACTED && o->store == TS_STORE_NONE)
			fail_msg("storage key \"%s\" is acted on but gives no setting", o->key);
	}
	/* the list above less its 5 fallback keys */
	assert_int_equal(nstore, 29);
	/* what the storage layer does not read stays ignored; providers refused */
	assert_int_equal(ts_core_option_find("s3.connection.maximum")->support, TS_OPT_IGNORED);
	assert_int_equal(ts_core_option_find("s3.aws.credentials.provider")->support, TS_OPT_REFUSED);
	/* acted on now, no longer marked ignored */
	assert_int_equal(ts_core_option_find("data-token.enabled")->support, TS_OPT_ACTED);
	assert_int_equal(ts_core_option_find("file-index.read.enabled")->support, TS_OPT_ACTED);
	assert_int_equal(ts_core_option_find("pk-btree.index.columns")->support, TS_OPT_ACTED);
	assert_int_equal(ts_core_option_find("pk-vector.index.columns")->support, TS_OPT_IGNORED);
	/* set by the extension only: flagged, never a suggestion */
	assert_true(ts_core_option_find("tablescan.stream-unmerged")->flags & TS_OPTF_INTERNAL);
	assert_true(ts_core_option_find("tablescan.stream-full-start")->flags & TS_OPTF_INTERNAL);
	assert_null(ts_core_option_closest("tablescan.stream-unmergd", false, NULL));
}

/* Reads through the registry: a key it lacks reads as unset, and is named. */
static void
test_readable(void **state)
{
	(void) state;
	assert_true(ts_core_option_readable("scan.snapshot-id"));
	assert_true(ts_core_option_readable("fields.price.aggregate-function"));
	assert_true(ts_core_option_readable("first-row.ignore-delete"));
	assert_null(ts_core_option_unregistered_read());
	assert_false(ts_core_option_readable("scan.snapshotid"));
	assert_string_equal(ts_core_option_unregistered_read(), "scan.snapshotid");
	assert_false(ts_core_option_readable(NULL));
}

typedef struct kv
{
	const char *k;
	const char *v;
} kv;

static const char *
kv_get(const void *arg, const char *key)
{
	const char *v = NULL;

	for (const kv *p = arg; p->k; p++)
		if (strcmp(p->k, key) == 0)
			v = p->v;			/* later pairs win */
	return v;
}

static void
test_parse(void **state)
{
	ts_core_options c;
	ts_err		err = {0};
	static const kv none[] = {{NULL, NULL}};
	static const kv some[] = {
		{"bucket", "4"}, {"merge-engine", "FIRST-ROW"}, {"deletion-vectors.enabled", "true"},
		{"data-evolution.enabled", "True"}, {"partition.default-name", "__NULL__"},
		{"partition.legacy-name", "false"}, {"deduplicate.ignore-delete", "true"},
		{"bucket", "8"}, {"data-file.path-directory", "data"}, {NULL, NULL}
	};
	static const kv primary_wins[] = {
		{"ignore-delete", "false"}, {"first-row.ignore-delete", "true"}, {NULL, NULL}
	};
	static const kv bad_bool[] = {{"row-tracking.enabled", "yes"}, {NULL, NULL}};
	static const kv bad_bucket[] = {{"bucket", "x"}, {NULL, NULL}};
	static const kv bad_engine[] = {{"merge-engine", "last-row"}, {NULL, NULL}};

	(void) state;
	assert_true(ts_core_options_parse(&c, kv_get, none, &err));
	assert_int_equal(c.bucket, -1);
	assert_int_equal(c.merge_engine, TS_MERGE_DEDUPLICATE);
	assert_false(c.deletion_vectors);
	assert_false(c.data_evolution);
	assert_false(c.ignore_delete);
	assert_true(c.partition_legacy_name);
	assert_string_equal(c.partition_default_name, "__DEFAULT_PARTITION__");
	assert_null(c.file_format);
	assert_null(c.data_file_path_directory);

	assert_true(ts_core_options_parse(&c, kv_get, some, &err));
	assert_int_equal(c.bucket, 8);
	assert_int_equal(c.merge_engine, TS_MERGE_FIRST_ROW);
	assert_true(c.deletion_vectors);
	assert_true(c.data_evolution);
	assert_true(c.ignore_delete);	/* by its fallback key */
	assert_false(c.partition_legacy_name);
	assert_string_equal(c.partition_default_name, "__NULL__");
	assert_string_equal(c.data_file_path_directory, "data");

	/* as Java: the key itself, when set, wins over its fallback keys */
	assert_true(ts_core_options_parse(&c, kv_get, primary_wins, &err));
	assert_false(c.ignore_delete);

	assert_false(ts_core_options_parse(&c, kv_get, bad_bool, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "\"row-tracking.enabled\""));
	assert_false(ts_core_options_parse(&c, kv_get, bad_bucket, &err));
	assert_non_null(strstr(err.msg, "bucket"));
	assert_false(ts_core_options_parse(&c, kv_get, bad_engine, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "last-row"));
}

/* ---- README.md against the registry --------------------------------- */

static char *
read_readme(void)
{
	const char *p = getenv("TS_README");
	uint8_t    *data = NULL;
	size_t		len = 0;
	ts_err		err = {0};
	char	   *s;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), p && *p ? p : "README.md", &data, &len, &err))
	{
		print_message("skipping: README.md not found (run from the project root or set TS_README)\n");
		skip();
	}
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, data, len);
	s[len] = '\0';
	ts_free(data);
	return s;
}

/* Is `key` or `"key"` written in the README? */
static bool
documented(const char *readme, const char *key)
{
	char		a[256],
				b[256];

	snprintf(a, sizeof(a), "`%s`", key);
	snprintf(b, sizeof(b), "`\"%s\"", key);
	return strstr(readme, a) != NULL || strstr(readme, b) != NULL;
}

/* The FDW's own options (not Paimon keys) the README's option tables list. */
static bool
fdw_option(const char *k)
{
	static const char *const fdw[] = {
		"warehouse", "branch", "strict", "catalog", "uri", "token", "database", "table", "path",
		"bucket_filter", "scan.shard", "partition_filter", "table_schema", "cache", "parallel_workers",
		"format", "partition_keys", "column_name", "updatable", "batch_size", NULL
	};

	for (int i = 0; fdw[i]; i++)
		if (strcmp(k, fdw[i]) == 0)
			return true;
	return false;
}

static void
test_readme(void **state)
{
	char	   *readme = read_readme();
	char	   *sec = strstr(readme, "\n## Options");
	char	   *end = sec ? strstr(sec + 1, "\n## ") : NULL;
	int			checked = 0;

	(void) state;
	assert_non_null(sec);
	if (end)
		*end = '\0';
	/* every key in the first column of the option tables */
	for (char *line = sec; line && *line; line = strchr(line + 1, '\n'))
	{
		char		key[256];
		const char *p = line + 1;
		size_t		n;

		if (strncmp(p, "| `", 3) != 0)
			continue;
		p += 3;
		if (*p == '"')
			p++;
		n = strcspn(p, "\"`");
		if (n == 0 || n >= sizeof(key))
			continue;
		memcpy(key, p, n);
		key[n] = '\0';
		if (fdw_option(key) || strncmp(key, "tablescan.", 10) == 0)
			continue;
		if (ts_core_option_find(key) == NULL)
			fail_msg("README documents \"%s\", which no Paimon option class defines", key);
		checked++;
	}
	assert_true(checked >= 10);
	/* every key we act on (and every one we refuse) is documented */
	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];

		if (o->store != TS_STORE_NONE || (o->flags & TS_OPTF_INTERNAL))
			continue;			/* below; never a user's */
		if ((o->support == TS_OPT_ACTED || o->support == TS_OPT_REFUSED) &&
			!fdw_option(o->key) && !documented(sec, o->key))
			fail_msg("README's options do not document \"%s\", which we act on", o->key);
	}
	if (end)
		*end = '\n';
	/* the object store keys, every alias, in the section "Object stores" */
	sec = strstr(readme, "\n## Object stores");
	assert_non_null(sec);
	end = strstr(sec + 1, "\n## ");
	if (end)
		*end = '\0';
	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];
		char		fb[128];

		if (o->store == TS_STORE_NONE)
			continue;
		if (!documented(sec, o->key))
			fail_msg("README's \"Object stores\" does not document \"%s\"", o->key);
		for (const char *p = o->fallback; p && *p;)
		{
			size_t		n = strcspn(p, "|");

			snprintf(fb, sizeof(fb), "%.*s", (int) n, p);
			if (!documented(sec, fb))
				fail_msg("README's \"Object stores\" does not document \"%s\"", fb);
			p = p[n] ? p + n + 1 : NULL;
		}
	}
	free(readme);
}

static const char *
type_name(const ts_core_option *o)
{
	switch (o->type)
	{
		case TS_OPT_STRING:
			return "string";
		case TS_OPT_BOOL:
			return "boolean";
		case TS_OPT_INT:
			return "int";
		case TS_OPT_LONG:
			return "long";
		case TS_OPT_DOUBLE:
			return "double";
		case TS_OPT_ENUM:
			return "enum";
		case TS_OPT_DURATION:
			return "duration";
		case TS_OPT_MEMORY:
			return "memory size";
		case TS_OPT_MAP:
			return "map";
	}
	return "?";
}

static void
print_readme_rows(void)
{
	static const char *const layer_names[] = {"fdw", "scan", "read", "format", "meta", "storage"};

	for (int i = 0; i < ts_core_option_count; i++)
	{
		const ts_core_option *o = &ts_core_option_table[i];
		char		layers[64] = "";

		if ((o->support != TS_OPT_ACTED && o->support != TS_OPT_REFUSED) || fdw_option(o->key) ||
			o->store != TS_STORE_NONE || (o->flags & TS_OPTF_INTERNAL))
			continue;			/* object store keys: their own table; internal ones: none */
		for (int b = 0; b < 6; b++)
			if (o->layers & (1 << b))
				snprintf(layers + strlen(layers), sizeof(layers) - strlen(layers), "%s%s",
						 layers[0] ? ", " : "", layer_names[b]);
		char		allowed[512] = "";
		char		dflt[128];

		if (o->dflt == NULL || o->dflt[0] == '\0')
			snprintf(dflt, sizeof(dflt), "-");
		else if (strcmp(o->dflt, "\n") == 0)
			snprintf(dflt, sizeof(dflt), "line break");
		else
			snprintf(dflt, sizeof(dflt), "`%s`", o->dflt);

		for (const char *a = o->allowed; a && *a && strlen(allowed) + 4 < sizeof(allowed); a++)
			snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), *a == '|' ? ", " : "%c", *a);
		printf("| `\"%s\"` | %s%s%s | %s | %s | %s |\n", o->key, type_name(o),
			   o->allowed ? ": " : "", allowed,
			   dflt,
			   o->support == TS_OPT_REFUSED ? "refused (ERROR)" : layers, o->source);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_well_formed),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_store_keys),
		cmocka_unit_test(test_readable),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_readme),
	};

	if (argc > 1 && strcmp(argv[1], "--readme") == 0)
	{
		print_readme_rows();
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
