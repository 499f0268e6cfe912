/*
 * reuse.c - may a plan made earlier serve a scan now?
 *
 * Owns: the fingerprint of a scan context (every input of planning except
 * the predicate, the LIMIT and the row ids, which the caller compares
 * itself), and whether the snapshot a plan read is still the one a scan
 * with the same context would read.  The FDW plans while PostgreSQL plans
 * and executes that plan when both hold (src/fdw/plan_reuse.c).
 */
#include <string.h>

#include "base/ts_azure.h"
#include "scan/scan_internal.h"

/* FNV-1a, 64 bits, over bytes; a NULL string hashes apart from "". */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t
mix_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
	{
		h ^= b[i];
		h *= FNV_PRIME;
	}
	return h;
}

static uint64_t
mix_str(uint64_t h, const char *s)
{
	unsigned char tag = s ? 1 : 0;

	h = mix_bytes(h, &tag, 1);
	return s ? mix_bytes(h, s, strlen(s) + 1) : h;
}

static uint64_t
mix_i64(uint64_t h, int64_t v)
{
	return mix_bytes(h, &v, sizeof(v));
}

static uint64_t
mix_scope(uint64_t h, const ts_fs_scope *s)
{
	h = mix_i64(h, s == NULL ? -1 : s->confined);
	if (s == NULL)
		return h;
	h = mix_i64(h, s->nroots);
	for (int i = 0; i < s->nroots; i++)
	{
		h = mix_str(h, s->lexical ? s->lexical[i] : NULL);
		h = mix_str(h, s->resolved ? s->resolved[i] : NULL);
	}
	return h;
}

static uint64_t
mix_s3(uint64_t h, const ts_s3_config *c)
{
	h = mix_i64(h, c != NULL);
	if (c == NULL)
		return h;
	h = mix_str(h, c->endpoint);
	h = mix_str(h, c->region);
	h = mix_i64(h, c->path_style);
	h = mix_i64(h, c->path_style_set);
	h = mix_str(h, c->ca_file);
	h = mix_str(h, c->access_key);
	h = mix_str(h, c->secret_key);
	h = mix_str(h, c->session_token);
	h = mix_i64(h, c->max_attempts);
	h = mix_i64(h, c->max_retry_ms);
	h = mix_i64(h, c->timeout_ms);
	h = mix_i64(h, c->max_in_flight);
	h = mix_str(h, c->credentials_source);
	return mix_i64(h, c->expires_at_ms);
}

static uint64_t
mix_azure(uint64_t h, const ts_azure_config *c)
{
	h = mix_i64(h, c != NULL);
	if (c == NULL)
		return h;
	h = mix_str(h, c->endpoint);
	h = mix_str(h, c->account_key);
	h = mix_str(h, c->sas_token);
	h = mix_str(h, c->ca_file);
	h = mix_i64(h, c->max_attempts);
	h = mix_i64(h, c->max_retry_ms);
	h = mix_i64(h, c->timeout_ms);
	return mix_i64(h, c->list_page_size);
}

/*
 * Every field of ts_scan_context but predicate, limit and row_ids.  A field
 * added to ts_scan_context, ts_s3_config or ts_azure_config is added here too (the unit test
 * test_scan_reuse fails on a size it does not know).
 */
uint64_t
ts_scan_context_fingerprint(const ts_scan_context *ctx)
{
	uint64_t	h = FNV_OFFSET;

	h = mix_str(h, ctx->table_path);
	h = mix_i64(h, ctx->noptions);
	for (int i = 0; i < ctx->noptions; i++)
	{
		h = mix_str(h, ctx->options[i].key);
		h = mix_str(h, ctx->options[i].value);
	}
	h = mix_str(h, ctx->table_schema_json);
	h = mix_i64(h, ctx->npartition_filters);
	for (int i = 0; i < ctx->npartition_filters; i++)
	{
		const ts_option *f = ctx->partition_filters[i];

		for (; f->key != NULL; f++)
		{
			h = mix_str(h, f->key);
			h = mix_str(h, f->value);
		}
		h = mix_str(h, NULL);	/* the end of one alternative */
	}
	h = mix_i64(h, ctx->has_bucket_filter);
	h = mix_i64(h, ctx->bucket_filter);
	h = mix_i64(h, ctx->shard_k);
	h = mix_i64(h, ctx->shard_n);
	h = mix_i64(h, ctx->no_files);
	h = mix_i64(h, ctx->enable_pruning);
	h = mix_i64(h, ctx->no_cache);
	h = mix_i64(h, ctx->pin_snapshot);
	h = mix_i64(h, ctx->pinned_snapshot_id);
	h = mix_scope(h, ctx->fs_scope);
	h = mix_s3(h, ctx->s3);
	h = mix_azure(h, ctx->azure);
	/* the pending files of this process (realtime.c): their names */
	h = mix_i64(h, ctx->realtime ? ctx->realtime->nentries : -1);
	for (int i = 0; ctx->realtime && i < ctx->realtime->nentries; i++)
		h = mix_str(h, ctx->realtime->entries[i].file.file_name);
	return mix_i64(h, ctx->no_file_index);
}

/* Does the plan name its snapshot (a snapshot id, a tag, a version)? */
static bool
names_its_snapshot(const ts_plan *plan)
{
	return ts_plan_option(plan, TS_OPT_SCAN_SNAPSHOT_ID) != NULL ||
		ts_plan_option(plan, TS_OPT_SCAN_TAG_NAME) != NULL ||
		ts_plan_option(plan, TS_OPT_SCAN_VERSION) != NULL;
}

/*
 * A plan of the latest snapshot (or of one chosen among those up to the
 * latest: a timestamp, scan.mode compacted-full) stays current while no
 * snapshot after the one it read exists: snapshot ids are consecutive, so
 * one existence check answers.  Plans the check cannot vouch for are not
 * current: format tables (no snapshots: a new file may have come),
 * incremental, diff and unmerged (stream) reads, a table without a
 * snapshot.
 */
bool
ts_plan_is_current(ts_plan *plan)
{
	char	   *next;
	bool		newer;

	if (plan == NULL || plan->kind == TS_TABLE_FORMAT || plan->snapshot == NULL ||
		plan->incremental || plan->diff || plan->changelog || plan->unmerged)
		return false;
	if (plan->fallback && !ts_plan_is_current(plan->fallback))
		return false;
	if (names_its_snapshot(plan))
		return true;
	next = ts_psprintf("%s/snapshot/snapshot-%lld", plan->branch_root,
					   (long long) plan->snapshot->id + 1);
	if (next == NULL)
		return false;
	newer = ts_path_is_file(plan->fs, next);
	ts_free(next);
	return !newer;
}
