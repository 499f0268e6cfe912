/*
 * shard.c - scan.shard 'K/N': which live files belong to shard K of N.
 *
 * Owns: parsing the option and the assignment rule.  A file of a table with
 * buckets (fixed-bucket tables, dynamic-bucket and postpone primary-key
 * tables: every file has a bucket >= 0) goes to shard (bucket mod N) + 1,
 * by its bucket number alone, so a primary-key bucket's merge stays on one
 * shard and the rule does not depend on totalBuckets (which can differ per
 * manifest entry after a rescale).  A file of a bucket-unaware append table
 * or a format table goes to shard (hash of its name mod N) + 1: a Paimon
 * data file's name (unique in a table), a format table file's path
 * relative to the table root, so copies of a table shard alike.
 * Data-evolution tables, whose rows are stitched from several files, are
 * refused (N > 1).  Both rules give every file
 * exactly one shard: the N shares are disjoint and cover the table for
 * every snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "scan/scan_internal.h"

bool
ts_shard_parse(const char *text, int32_t *k, int32_t *n)
{
	long		kk,
				nn;
	char	   *end;

	if (text == NULL || *text < '0' || *text > '9')
		return false;
	kk = strtol(text, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return false;
	nn = strtol(end + 1, &end, 10);
	if (*end != '\0' || nn < 1 || nn > 1000000 || kk < 1 || kk > nn)
		return false;
	*k = (int32_t) kk;
	*n = (int32_t) nn;
	return true;
}

/* 64-bit FNV-1a: stable across platforms and versions (no seed). */
static uint64_t
name_hash(const char *s)
{
	uint64_t	h = UINT64_C(14695981039346656037);

	for (; *s; s++)
	{
		h ^= (unsigned char) *s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

int32_t
ts_shard_of_file(int32_t bucket, bool by_bucket, const char *name, int32_t n)
{
	if (by_bucket)
		return (int32_t) ((uint32_t) bucket % (uint32_t) n) + 1;
	return (int32_t) (name_hash(name ? name : "") % (uint64_t) n) + 1;
}

/* Files of a bucket-unaware append table are spread by name, others by bucket. */
static bool
shard_by_bucket(const ts_plan *plan)
{
	return !(plan->kind == TS_TABLE_FORMAT ||
			 (plan->kind == TS_TABLE_APPEND && plan->core.bucket == -1));
}

bool
scan_shard_setup(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	plan->shard_k = plan->shard_n = 0;
	plan->shard_rule = NULL;
	if (ctx->shard_n == 0)
		return true;
	if (ctx->shard_n < 1 || ctx->shard_k < 1 || ctx->shard_k > ctx->shard_n)
		return ts_error(err, TS_ERR_INVALID, "scan.shard %d/%d is not a shard (1 <= K <= N)",
						ctx->shard_k, ctx->shard_n);
	/* the files of a row-id range are stitched together: one shard must read them all */
	if (plan->core.data_evolution && ctx->shard_n > 1)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"scan.shard cannot split table \"%s\": with data-evolution.enabled several files make up each row",
						plan->table_path);
	plan->shard_k = ctx->shard_k;
	plan->shard_n = ctx->shard_n;
	plan->shard_rule = shard_by_bucket(plan) ? "by bucket" : "by file path hash";
	return true;
}

bool
scan_shard_keep(const ts_plan *plan, int32_t bucket, const char *name)
{
	if (plan->shard_n <= 1)
		return true;
	return ts_shard_of_file(bucket, shard_by_bucket(plan), name, plan->shard_n) == plan->shard_k;
}
