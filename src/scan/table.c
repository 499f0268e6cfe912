/*
 * table.c - resolve the table a scan reads and the snapshot it reads.
 *
 * Owns: the read schema (latest schema file, or the JSON handed in), the
 * merged options (schema options < context options), the branch root,
 * the table kind, and the snapshot choice: latest, scan.snapshot-id,
 * scan.tag-name, scan.timestamp-millis, scan.version (incremental ranges
 * are chosen by incremental.c).  When time
 * travelling the snapshot's own schema becomes the read schema (Java's
 * tryTimeTravel).  Also the plan's schema cache (ts_plan_schema).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "scan/format_plan.h"
#include "scan/scan_internal.h"

const char *
ts_plan_option(const ts_plan *plan, const char *key)
{
	int			i;

	if (!ts_core_option_readable(key))
		return NULL;
	for (i = plan->noptions - 1; i >= 0; i--)
		if (strcmp(plan->options[i].key, key) == 0)
			return plan->options[i].value;
	return NULL;
}

bool
scan_option_bool(const ts_plan *plan, const char *key, bool dflt)
{
	const char *v = ts_plan_option(plan, key);

	if (v == NULL)
		return dflt;
	return strcasecmp(v, "true") == 0;
}

/* Context option (highest priority), NULL if absent. */
static const char *
ctx_option(const ts_scan_context *ctx, const char *key)
{
	int			i;

	if (!ts_core_option_readable(key))
		return NULL;
	for (i = ctx->noptions - 1; i >= 0; i--)
		if (ctx->options[i].key && strcmp(ctx->options[i].key, key) == 0)
			return ctx->options[i].value;
	return NULL;
}

/* Add a schema to the plan's list (the plan owns it from now on). */
static bool
plan_add_schema(ts_plan *plan, ts_schema *s, ts_err *err)
{
	ts_schema **n = ts_realloc(plan->schemas, sizeof(ts_schema *) * (plan->nschemas + 1));

	if (n == NULL)
	{
		ts_schema_free(s);
		return ts_error_nomem(err, "loading schemas");
	}
	plan->schemas = n;
	plan->schemas[plan->nschemas++] = s;
	return true;
}

const ts_schema *
ts_plan_schema(ts_plan *plan, int64_t schema_id, ts_err *err)
{
	ts_schema  *s;
	int			i;

	for (i = 0; i < plan->nschemas; i++)
		if (plan->schemas[i]->id == schema_id)
			return plan->schemas[i];
	s = ts_schema_load(plan->fs, plan->branch_root, schema_id, err);
	if (s == NULL)
		return NULL;
	if (!plan_add_schema(plan, s, err))
		return NULL;
	return s;
}

static const char *
plan_option_getter(const void *arg, const char *key)
{
	return ts_plan_option((const ts_plan *) arg, key);
}

/* Merged options: schema options, then context options (later wins). */
static bool
merge_options(ts_plan *plan, const ts_schema *schema, const ts_scan_context *ctx, ts_err *err)
{
	int			cap = schema->noptions + ctx->noptions;
	int			i;

	plan->options = ts_arena_alloc(&plan->arena, sizeof(ts_option) * (size_t) (cap ? cap : 1));
	if (plan->options == NULL)
		return ts_error_nomem(err, "merging options");
	plan->noptions = 0;
	for (i = 0; i < schema->noptions + ctx->noptions; i++)
	{
		const char *k,
				   *v;
		int			j;

		if (i < schema->noptions)
		{
			k = schema->option_keys[i];
			v = schema->option_values[i];
		}
		else
		{
			k = ctx->options[i - schema->noptions].key;
			v = ctx->options[i - schema->noptions].value;
		}
		if (k == NULL)
			continue;
		for (j = 0; j < plan->noptions; j++)
			if (strcmp(plan->options[j].key, k) == 0)
				break;
		if (j == plan->noptions)
		{
			plan->options[j].key = ts_arena_strdup(&plan->arena, k);
			plan->noptions++;
		}
		plan->options[j].value = v ? ts_arena_strdup(&plan->arena, v) : NULL;
		if (plan->options[j].key == NULL || (v && plan->options[j].value == NULL))
			return ts_error_nomem(err, "merging options");
	}
	if (!ts_core_options_parse(&plan->core, plan_option_getter, plan, err))
		return ts_error_context(err, "table \"%s\"", plan->table_path);
	/* the table's own options we do not read but that change rows: refuse */
	return ts_core_options_check_table((const char *const *) schema->option_keys, schema->noptions,
									   plan_option_getter, plan, plan->table_path, err);
}

ts_prefetch *
scan_latest_hint_ahead(ts_plan *plan, const ts_scan_context *ctx)
{
	size_t		len = ctx->table_path ? strlen(ctx->table_path) : 0;
	char	   *path;
	ts_prefetch *p = NULL;
	ts_err		ignore = {0};

	if (len == 0 || ctx->pin_snapshot || !(ts_fs_caps(plan->fs) & TS_FS_CAP_REMOTE))
		return NULL;
	for (int i = 0; i < ctx->noptions; i++)
	{
		const char *k = ctx->options[i].key;

		/* a branch, time travel, an incremental or streaming read: no LATEST of the table's own */
		if (k && (strncmp(k, "scan.", 5) == 0 || strncmp(k, "incremental", 11) == 0 ||
				  strcmp(k, TS_OPT_BRANCH) == 0))
			return NULL;
	}
	while (len > 1 && ctx->table_path[len - 1] == '/')
		len--;
	path = ts_psprintf("%.*s/snapshot/LATEST", (int) len, ctx->table_path);
	if (path != NULL)
		p = ts_prefetch_start(plan->fs, (const char *const *) &path, 1, &ignore);
	ts_free(path);
	return p;
}

/*
 * With the LATEST hint in (it came with the schema listing), begin the
 * latest snapshot's choice now: its GET and the HEAD of the one after it
 * then share a round trip with the schema's GET instead of following it.
 * Nothing begun (early->begun false) without a hint or on a failure:
 * scan_choose_snapshot then does it all and reports what failed.
 */
static void
begin_latest_early(ts_plan *plan, ts_prefetch *hint, ts_snapshot_latest *early)
{
	ts_err		ignore = {0};

	memset(early, 0, sizeof(*early));
	if (hint == NULL || !ts_prefetch_wait(hint, &ignore) || ts_prefetch_count(hint) != 1)
		return;					/* no LATEST: the listing goes in its own turn, as before */
	if (!ts_snapshot_latest_begin(plan->fs, plan->branch_root, early, &ignore))
		memset(early, 0, sizeof(*early));
}

bool
scan_resolve_table(ts_plan *plan, const ts_scan_context *ctx, ts_prefetch *hint,
				   ts_snapshot_latest *early, ts_err *err)
{
	const char *branch;
	ts_schema  *schema;
	size_t		len;

	if (ctx->table_path == NULL || ctx->table_path[0] == '\0')
		return ts_error(err, TS_ERR_INVALID, "table path is required");

	/* strip trailing slashes so that joined paths stay canonical */
	len = strlen(ctx->table_path);
	while (len > 1 && ctx->table_path[len - 1] == '/')
		len--;
	plan->table_path = ts_arena_alloc(&plan->arena, len + 1);
	if (plan->table_path == NULL)
		return ts_error_nomem(err, NULL);
	memcpy(plan->table_path, ctx->table_path, len);
	plan->table_path[len] = '\0';

	branch = ctx_option(ctx, TS_OPT_BRANCH);
	if (branch && branch[0] && strcmp(branch, "main") != 0)
	{
		if (strchr(branch, '/') || strcmp(branch, "..") == 0 || strcmp(branch, ".") == 0)
			return ts_error(err, TS_ERR_INVALID, "invalid branch name \"%s\"", branch);
		plan->branch_root = ts_arena_printf(&plan->arena, "%s/branch/branch-%s",
											  plan->table_path, branch);
		if (plan->branch_root && !ts_path_is_dir(plan->fs, plan->branch_root))
			return ts_error(err, TS_ERR_NOT_FOUND,
							"branch \"%s\" of table \"%s\" does not exist (no directory \"%s\")",
							branch, plan->table_path, plan->branch_root);
	}
	else
		plan->branch_root = ts_arena_strdup(&plan->arena, plan->table_path);
	if (plan->branch_root == NULL)
		return ts_error_nomem(err, NULL);

	if (ctx->table_schema_json)
	{
		if (early)
			begin_latest_early(plan, hint, early);
		schema = ts_schema_parse(ctx->table_schema_json, strlen(ctx->table_schema_json),
								 "table schema given to the scan", err);
		if (schema == NULL)
			return false;
	}
	else
	{
		int64_t    *ids = NULL;
		int			nids = 0;
		ts_prefetch *schema_ahead = NULL;

		if (!ts_schema_list_ids(plan->fs, plan->branch_root, &ids, &nids, err))
			return false;
		if (nids == 0)
		{
			ts_free(ids);
			ts_error(err, TS_ERR_NOT_FOUND,
					 "\"%s\" is not a Paimon table: no schema file in \"%s/schema\"",
					 plan->table_path, plan->branch_root);
			return ts_error_hint(err, "A Paimon table's directory holds schema/schema-<id> files (Java's SchemaManager); give the table's root, not its warehouse or database directory.");
		}
		if (early)
		{
			/* the schema's GET and the snapshot's (begin_latest_early) in one round trip */
			char	   *path = ts_psprintf("%s/schema/schema-%lld", plan->branch_root,
										   (long long) ids[nids - 1]);
			ts_err		ignore = {0};

			if (path != NULL)
				schema_ahead = ts_prefetch_start(plan->fs, (const char *const *) &path, 1, &ignore);
			ts_free(path);
			begin_latest_early(plan, hint, early);
		}
		schema = ts_schema_load(plan->fs, plan->branch_root, ids[nids - 1], err);
		ts_prefetch_free(schema_ahead);
		ts_free(ids);
		if (schema == NULL)
			return false;
	}
	if (!plan_add_schema(plan, schema, err))
		return false;
	plan->schema = schema;

	if (!merge_options(plan, schema, ctx, err))
		return false;

	{
		const char *type = ts_plan_option(plan, TS_OPT_TYPE);

		/* format tables: no snapshots, the listing is the table (format_plan.c) */
		if (type && strcasecmp(type, "format-table") == 0)
			return ts_format_plan_resolve(plan, ctx, err);
	}
	plan->kind = schema->nprimary_keys > 0 ? TS_TABLE_PRIMARY_KEY : TS_TABLE_APPEND;

	/* fail closed on options that change which files a batch scan sees */
	{
		const char *v = ts_plan_option(plan, TS_OPT_SCAN_PRIMARY_BRANCH);

		if (v && *v)
		{
			ts_error(err, TS_ERR_UNSUPPORTED,
					 "table \"%s\": option scan.primary-branch=%s (primary branch reads) is not supported yet",
					 plan->table_path, v);
			return ts_error_hint(err, "Read the branch with option branch instead.");
		}
	}
	/* scan.fallback-branch: planned by fallback_branch.c */
	{
		const char *v = ts_plan_option(plan, TS_OPT_SCAN_FALLBACK_BRANCH);
		const char *cur = ctx_option(ctx, TS_OPT_BRANCH);

		if (v && *v)
		{
			if (strchr(v, '/') || strcmp(v, "..") == 0 || strcmp(v, ".") == 0)
				return ts_error(err, TS_ERR_INVALID, "invalid scan.fallback-branch \"%s\"", v);
			if (strcmp(v, cur && *cur ? cur : "main") == 0)
				return ts_error(err, TS_ERR_INVALID,
								"table \"%s\": scan.fallback-branch \"%s\" is the branch being read",
								plan->table_path, v);
			plan->fallback_branch = ts_arena_strdup(&plan->arena, v);
			if (plan->fallback_branch == NULL)
				return ts_error_nomem(err, NULL);
		}
	}
	return true;
}

/* ---- snapshot choice ------------------------------------------------- */

static bool
parse_int64(const char *s, int64_t *out)
{
	char	   *end;
	long long	v;

	if (s == NULL || *s == '\0')
		return false;
	while (isspace((unsigned char) *s))
		s++;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s)
		return false;
	while (isspace((unsigned char) *end))
		end++;
	if (*end != '\0')
		return false;
	*out = v;
	return true;
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char) *s))
			return false;
	return true;
}

static bool
load_snapshot_id(ts_plan *plan, int64_t id, ts_err *err)
{
	int64_t		earliest = 0,
				latest = 0;
	ts_err		e2;

	if (ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, &e2) &&
		ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, &e2) &&
		latest > 0 && id >= earliest && id <= latest)
	{
		plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, id, err);
		return plan->snapshot != NULL;
	}
	if (latest <= 0)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"snapshot %lld of table \"%s\" does not exist: the table has no snapshot",
						(long long) id, plan->table_path);
	return ts_error(err, TS_ERR_NOT_FOUND,
					"snapshot %lld of table \"%s\" does not exist: available snapshots are %lld to %lld",
					(long long) id, plan->table_path, (long long) earliest, (long long) latest);
}

static bool
load_tag(ts_plan *plan, const char *tag, ts_err *err)
{
	plan->snapshot = ts_tag_load(plan->fs, plan->branch_root, tag, err);
	return plan->snapshot != NULL;
}

/* Newest snapshot with timeMillis <= t (binary search over [earliest, latest]). */
static bool
load_by_timestamp(ts_plan *plan, int64_t t, ts_err *err)
{
	int64_t		earliest,
				latest,
				found;

	if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, err))
		return false;
	if (latest <= 0)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"table \"%s\" has no snapshot at or before timestamp %lld: it has no snapshot",
						plan->table_path, (long long) t);
	if (!ts_snapshot_at_or_before(plan->fs, plan->branch_root, earliest, latest, t, &found, err))
		return false;
	if (found <= 0)
		return ts_error(err, TS_ERR_NOT_FOUND,
						"table \"%s\" has no snapshot at or before timestamp %lld (earliest snapshot is %lld)",
						plan->table_path, (long long) t, (long long) earliest);
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, found, err);
	return plan->snapshot != NULL;
}

/* scan.mode=compacted-full: the latest COMPACT snapshot, else the latest. */
static bool
choose_compacted_full(ts_plan *plan, ts_err *err)
{
	int64_t		earliest,
				latest,
				id;

	if (!ts_snapshot_latest_id(plan->fs, plan->branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(plan->fs, plan->branch_root, &earliest, err))
		return false;
	if (latest <= 0)
	{
		plan->snapshot = NULL;
		return true;
	}
	for (id = latest; id >= earliest && id > 0; id--)
	{
		ts_snapshot *s;

		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		s = ts_snapshot_load(plan->fs, plan->branch_root, id, err);
		if (s == NULL)
			return false;
		if (s->commit_kind && strcmp(s->commit_kind, "COMPACT") == 0)
		{
			plan->snapshot = s;
			return true;
		}
		ts_snapshot_free(s);
	}
	plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, latest, err);
	return plan->snapshot != NULL;
}

bool
scan_choose_snapshot(ts_plan *plan, const ts_scan_context *ctx, ts_snapshot_latest *early,
					 ts_err *err)
{
	const char *snapshot_id = ts_plan_option(plan, TS_OPT_SCAN_SNAPSHOT_ID);
	const char *tag = ts_plan_option(plan, TS_OPT_SCAN_TAG_NAME);
	const char *ts_millis = ts_plan_option(plan, TS_OPT_SCAN_TIMESTAMP_MILLIS);
	const char *version = ts_plan_option(plan, TS_OPT_SCAN_VERSION);
	const char *watermark = ts_plan_option(plan, TS_OPT_SCAN_WATERMARK);
	const char *timestamp = ts_plan_option(plan, TS_OPT_SCAN_TIMESTAMP);
	int			nset = (snapshot_id != NULL) + (tag != NULL) + (ts_millis != NULL) +
		(version != NULL) + (watermark != NULL) + (timestamp != NULL);
	bool		time_travel = nset > 0;
	int64_t		v;
	bool		incremental;

	/* incremental-between(-timestamp): a snapshot range instead (incremental.c) */
	if (!scan_incremental_choose(plan, &incremental, err))
		return false;
	if (incremental)
		return true;

	if (nset > 1)
		return ts_error(err, TS_ERR_INVALID,
						"only one of scan.snapshot-id, scan.tag-name, scan.timestamp-millis, scan.timestamp, scan.watermark and scan.version may be set");
	const char *mode = ts_plan_option(plan, TS_OPT_SCAN_MODE);

	if (mode && strcmp(mode, "default") != 0 && strcmp(mode, "latest") != 0 &&
		strcmp(mode, "latest-full") != 0 && strcmp(mode, "full") != 0 &&
		strcmp(mode, "from-snapshot") != 0 && strcmp(mode, "from-snapshot-full") != 0 &&
		strcmp(mode, "from-timestamp") != 0 && strcmp(mode, "compacted-full") != 0)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"scan.mode \"%s\" is not supported by batch scans", mode);
	if (mode && strcmp(mode, "compacted-full") == 0 && nset == 0)
		return choose_compacted_full(plan, err);
	if (watermark)
		return ts_error(err, TS_ERR_UNSUPPORTED, "scan.watermark is not supported");
	if (timestamp)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"scan.timestamp is not supported (it depends on the JVM time zone); use scan.timestamp-millis");

	if (snapshot_id)
	{
		if (!parse_int64(snapshot_id, &v) || v <= 0)
			return ts_error(err, TS_ERR_INVALID,
							"invalid value for option scan.snapshot-id: \"%s\" (expected a positive integer)",
							snapshot_id);
		if (!load_snapshot_id(plan, v, err))
			return false;
	}
	else if (tag)
	{
		if (!load_tag(plan, tag, err))
			return false;
	}
	else if (ts_millis)
	{
		if (!parse_int64(ts_millis, &v))
			return ts_error(err, TS_ERR_INVALID,
							"invalid value for option scan.timestamp-millis: \"%s\" (expected epoch milliseconds)",
							ts_millis);
		if (!load_by_timestamp(plan, v, err))
			return false;
	}
	else if (version)
	{
		char	   *tagpath = ts_arena_printf(&plan->arena, "%s/tag/tag-%s",
												plan->branch_root, version);

		if (tagpath && strchr(version, '/') == NULL && ts_path_is_file(plan->fs, tagpath))
		{
			if (!load_tag(plan, version, err))
				return false;
		}
		else if (strncmp(version, "watermark-", 10) == 0)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"scan.version \"%s\": watermark time travel is not supported", version);
		else if (all_digits(version) && parse_int64(version, &v))
		{
			if (!load_snapshot_id(plan, v, err))
				return false;
		}
		else
			return ts_error(err, TS_ERR_INVALID,
							"scan.version \"%s\" is neither a tag of table \"%s\" nor a snapshot id",
							version, plan->table_path);
	}
	else
	{
		if (!ctx->pin_snapshot)
		{
			/* the hint's snapshot read directly (a HEAD less on an object store) */
			if (early && early->begun ?
				!ts_snapshot_latest_finish(plan->fs, plan->branch_root, early, &plan->snapshot, err) :
				!ts_snapshot_load_latest(plan->fs, plan->branch_root, &plan->snapshot, err))
				return false;
			if (plan->snapshot == NULL)
				return true;
		}
		else if ((v = ctx->pinned_snapshot_id) <= 0)
		{
			plan->snapshot = NULL;
			return true;
		}
		else if ((plan->snapshot = ts_snapshot_load(plan->fs, plan->branch_root, v, err)) == NULL)
			return false;
	}

	/* time travel reads with the snapshot's schema (and current options) */
	if (time_travel && plan->snapshot->schema_id != plan->schema->id)
	{
		const ts_schema *s = ts_plan_schema(plan, plan->snapshot->schema_id, err);

		if (s == NULL)
			return ts_error_context(err, "schema %lld of snapshot %lld",
									(long long) plan->snapshot->schema_id,
									(long long) plan->snapshot->id);
		plan->schema = (ts_schema *) s;
		plan->kind = s->nprimary_keys > 0 ? TS_TABLE_PRIMARY_KEY : TS_TABLE_APPEND;
	}
	return true;
}
