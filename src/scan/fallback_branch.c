/*
 * fallback_branch.c - scan.fallback-branch: partitions missing from the
 * branch being read come from another branch.
 *
 * Owns: Java's FallbackReadFileStoreTable / FallbackReadScan.plan() for
 * batch scans.  The branch being read ("main") is planned as usual with
 * the full predicate, partition filter and bucket filter.  Its complete
 * partitions are those holding live files that pass the partition filter
 * and the partition part of the predicate only (its top-level AND
 * conjuncts on partition keys), not the bucket filter or stats.  The
 * fallback branch is planned with the same predicate and filters, as its
 * own table (its schemas, primary keys, bucket option and other schema
 * options), with the context's options rewritten as Java's
 * rewriteFallbackOptions does (branch = the fallback, no bucket option,
 * scan.snapshot-id turned into the fallback's newest snapshot at or before
 * the main snapshot's time, else 1), and without its own fallback.  Its
 * splits of partitions that are not complete in main are appended to the
 * plan, marked fallback; src/read reads them with the fallback's plan.
 *
 * Java requires the same row type (types by position, ignoring
 * nullability) and, when main has primary keys, the same primary keys.
 * We also require the same field ids and partition keys (the read columns
 * and the predicate are applied to the fallback by position): a fallback
 * that differs there is refused.  Incremental reads with a fallback branch
 * are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/predicate.h"
#include "scan/scan_internal.h"

/* ---- partition sets ---------------------------------------------------- */

static int
cmp_bytes(const void *pa, const void *pb)
{
	const ts_bytes *a = pa,
			   *b = pb;
	size_t		n = a->len < b->len ? a->len : b->len;
	int			c = n ? memcmp(a->data, b->data, n) : 0;

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Distinct partitions of splits[0..n), sorted (malloc'd). */
static bool
split_partitions(const ts_split *splits, int n, ts_bytes **out, int *nout, ts_err *err)
{
	ts_bytes   *p = ts_calloc(n ? n : 1, sizeof(ts_bytes));
	int			k = 0;

	if (p == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < n; i++)
		p[i] = splits[i].partition;
	qsort(p, n, sizeof(ts_bytes), cmp_bytes);
	for (int i = 0; i < n; i++)
		if (k == 0 || cmp_bytes(&p[k - 1], &p[i]) != 0)
			p[k++] = p[i];
	*out = p;
	*nout = k;
	return true;
}

static bool
contains(const ts_bytes *set, int n, ts_bytes key)
{
	return bsearch(&key, set, n, sizeof(ts_bytes), cmp_bytes) != NULL;
}

/* ---- the partition part of a predicate ---------------------------------- */

static bool
only_partition_fields(const ts_schema *s, const ts_predicate *p)
{
	if (p->op == TS_PRED_AND || p->op == TS_PRED_OR || p->op == TS_PRED_NOT)
	{
		for (int i = 0; i < p->nchildren; i++)
			if (!only_partition_fields(s, &p->children[i]))
				return false;
		return p->nchildren > 0;
	}
	return p->field >= 0 && p->field < s->nfields &&
		ts_schema_is_partition_key(s, s->fields[p->field].name);
}

/*
 * The conjuncts of 'p' on partition keys alone (Java's
 * splitPartitionPredicatesAndDataPredicates), NULL if none.
 */
static const ts_predicate *
partition_part(ts_plan *plan, const ts_predicate *p)
{
	ts_predicate *and;
	ts_predicate *kids;
	int			n = 0;

	if (p == NULL)
		return NULL;
	if (only_partition_fields(plan->schema, p))
		return p;
	if (p->op != TS_PRED_AND)
		return NULL;
	and = ts_arena_alloc(&plan->arena, sizeof(*and));
	kids = ts_arena_alloc(&plan->arena, sizeof(*kids) * (p->nchildren ? p->nchildren : 1));
	if (and == NULL || kids == NULL)
		return NULL;			/* no partition part: lists more, never fewer */
	for (int i = 0; i < p->nchildren; i++)
		if (only_partition_fields(plan->schema, &p->children[i]))
			kids[n++] = p->children[i];
	if (n == 0)
		return NULL;
	memset(and, 0, sizeof(*and));
	and->op = TS_PRED_AND;
	and->nchildren = n;
	and->children = kids;
	return and;
}

/* ---- contexts ---------------------------------------------------------- */

/* ctx's options without 'drop' keys, plus 'add' pairs (malloc'd). */
static ts_option *
rewrite_options(const ts_scan_context *ctx, const char *const *drop,
				const ts_option *add, int nadd, int *n)
{
	ts_option  *o = ts_calloc(ctx->noptions + nadd + 1, sizeof(ts_option));

	*n = 0;
	if (o == NULL)
		return NULL;
	for (int i = 0; i < ctx->noptions; i++)
	{
		bool		skip = ctx->options[i].key == NULL;

		for (int d = 0; !skip && drop[d]; d++)
			skip = strcmp(ctx->options[i].key, drop[d]) == 0;
		if (!skip)
			o[(*n)++] = ctx->options[i];
	}
	for (int i = 0; i < nadd; i++)
		o[(*n)++] = add[i];
	return o;
}

/* Newest snapshot of the branch at or before 't', else 1 (Java's FIRST_SNAPSHOT_ID). */
static bool
snapshot_at_or_before(ts_fs *fs, const char *branch_root, int64_t t, int64_t *id, ts_err *err)
{
	int64_t		earliest,
				latest,
				found;

	*id = 1;
	if (!ts_snapshot_latest_id(fs, branch_root, &latest, err) ||
		!ts_snapshot_earliest_id(fs, branch_root, &earliest, err))
		return false;
	if (latest <= 0)
		return true;
	if (!ts_snapshot_at_or_before(fs, branch_root, earliest, latest, t, &found, err))
		return false;
	if (found > 0)
		*id = found;
	return true;
}

static const char *
ctx_option(const ts_scan_context *ctx, const char *key)
{
	if (!ts_core_option_readable(key))
		return NULL;
	for (int i = ctx->noptions - 1; i >= 0; i--)
		if (ctx->options[i].key && strcmp(ctx->options[i].key, key) == 0)
			return ctx->options[i].value;
	return NULL;
}

/* ---- checks ------------------------------------------------------------ */

static bool
check_schemas(const ts_plan *main, const ts_plan *fb, ts_err *err)
{
	const ts_schema *m = main->schema,
			   *f = fb->schema;
	const char *name = main->fallback_branch;

	if (m->nfields != f->nfields)
		return ts_error(err, TS_ERR_INVALID,
						"table \"%s\": the branch and its fallback branch \"%s\" do not have the same row type (%d and %d fields)",
						main->table_path, name, m->nfields, f->nfields);
	for (int i = 0; i < m->nfields; i++)
		if (!ts_type_equal(m->fields[i].type, f->fields[i].type))
			return ts_error(err, TS_ERR_INVALID,
							"table \"%s\": the branch and its fallback branch \"%s\" do not have the same row type (field %d: \"%s\" and \"%s\")",
							main->table_path, name, i + 1, m->fields[i].name, f->fields[i].name);
	if (m->nprimary_keys > 0)
	{
		bool		same = m->nprimary_keys == f->nprimary_keys;

		for (int i = 0; same && i < m->nprimary_keys; i++)
			same = strcmp(m->primary_keys[i], f->primary_keys[i]) == 0;
		if (!same)
			return ts_error(err, TS_ERR_INVALID,
							"table \"%s\": the branch has primary keys and its fallback branch \"%s\" does not have the same ones",
							main->table_path, name);
	}
	for (int i = 0; i < m->nfields; i++)
		if (m->fields[i].id != f->fields[i].id)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"table \"%s\": fallback branch \"%s\" numbers field %d (\"%s\") differently (id %d, not %d): not supported",
							main->table_path, name, i + 1, f->fields[i].name,
							(int) f->fields[i].id, (int) m->fields[i].id);
	{
		bool		same = m->npartition_keys == f->npartition_keys;

		for (int i = 0; same && i < m->npartition_keys; i++)
			same = strcmp(m->partition_keys[i], f->partition_keys[i]) == 0;
		if (!same)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"table \"%s\": fallback branch \"%s\" has other partition keys: not supported",
							main->table_path, name);
	}
	return true;
}

/* ---- the plan ---------------------------------------------------------- */

/* Main's complete partitions (partition filter + partition predicate only). */
static bool
complete_partitions(ts_plan *plan, const ts_scan_context *ctx,
					ts_bytes **parts, int *nparts, ts_plan **listing, ts_err *err)
{
	static const char *const drop[] = {TS_OPT_SCAN_FALLBACK_BRANCH, NULL};
	static const ts_option add[] = {{TS_OPT_SCAN_FALLBACK_BRANCH, ""}};
	ts_scan_context lc;
	ts_option  *opts;
	int			nopts;
	const ts_predicate *pp = partition_part(plan, ctx->predicate);
	bool		ok;

	*listing = NULL;
	/* planned with nothing but partition pruning: its own splits say it */
	if (pp == ctx->predicate && !ctx->has_bucket_filter && ctx->limit < 0)
		return split_partitions(plan->splits, plan->nsplits, parts, nparts, err);

	opts = rewrite_options(ctx, drop, add, 1, &nopts);
	if (opts == NULL)
		return ts_error_nomem(err, NULL);
	lc = *ctx;
	lc.options = opts;
	lc.noptions = nopts;
	lc.predicate = pp;
	lc.has_bucket_filter = false;
	lc.limit = -1;
	*listing = ts_scan_plan(&lc, err);
	ts_free(opts);
	if (*listing == NULL)
		return ts_error_context(err, "listing the partitions of table \"%s\"", plan->table_path);
	ok = split_partitions((*listing)->splits, (*listing)->nsplits, parts, nparts, err);
	return ok;
}

/* The fallback branch's context: Java's rewriteFallbackOptions. */
static bool
fallback_context(ts_plan *plan, const ts_scan_context *ctx, ts_scan_context *fc,
				 ts_option **opts, char *snapshot_buf, size_t buflen, ts_err *err)
{
	static const char *const drop[] = {
		TS_OPT_BRANCH, TS_OPT_BUCKET, TS_OPT_SCAN_FALLBACK_BRANCH, TS_OPT_SCAN_SNAPSHOT_ID, NULL
	};
	ts_option	add[3];
	int			nadd = 0,
				nopts;

	add[nadd].key = TS_OPT_BRANCH;
	add[nadd++].value = plan->fallback_branch;
	add[nadd].key = TS_OPT_SCAN_FALLBACK_BRANCH;	/* the fallback reads no fallback */
	add[nadd++].value = "";
	if (ctx_option(ctx, TS_OPT_SCAN_SNAPSHOT_ID) && plan->snapshot)
	{
		char	   *root = ts_arena_printf(&plan->arena, "%s/branch/branch-%s",
											 plan->table_path, plan->fallback_branch);
		int64_t		id;

		if (root == NULL)
			return ts_error_nomem(err, NULL);
		if (!snapshot_at_or_before(plan->fs, root, plan->snapshot->time_millis, &id, err))
			return ts_error_context(err, "fallback branch \"%s\"", plan->fallback_branch);
		snprintf(snapshot_buf, buflen, "%lld", (long long) id);
		add[nadd].key = TS_OPT_SCAN_SNAPSHOT_ID;
		add[nadd++].value = snapshot_buf;
	}
	*opts = rewrite_options(ctx, drop, add, nadd, &nopts);
	if (*opts == NULL)
		return ts_error_nomem(err, NULL);
	*fc = *ctx;
	fc->options = *opts;
	fc->noptions = nopts;
	fc->limit = -1;
	fc->pin_snapshot = false;	/* a snapshot id of the main branch */
	return true;
}

bool
scan_fallback_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	ts_bytes   *parts = NULL;
	int			nparts = 0;
	ts_plan    *listing = NULL;
	ts_plan    *fb = NULL;
	ts_scan_context fc;
	ts_option  *fopts = NULL;
	char		snapshot_buf[32];
	ts_split   *all;
	int			nkeep = 0;
	bool		ok = false;

	if (plan->incremental)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"table \"%s\": incremental reads with scan.fallback-branch are not supported",
						plan->table_path);
	if (!complete_partitions(plan, ctx, &parts, &nparts, &listing, err))
		goto done;
	if (!fallback_context(plan, ctx, &fc, &fopts, snapshot_buf, sizeof(snapshot_buf), err))
		goto done;
	fb = ts_scan_prepare(&fc, err);
	if (fb == NULL)
	{
		ts_error_context(err, "fallback branch \"%s\" of table \"%s\"",
						 plan->fallback_branch, plan->table_path);
		goto done;
	}
	if (fb->kind == TS_TABLE_FORMAT)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "fallback branch \"%s\" of table \"%s\" is a format table",
				 plan->fallback_branch, plan->table_path);
		goto done;
	}
	if (!check_schemas(plan, fb, err))
		goto done;
	if (!ts_scan_execute(fb, &fc, err))
	{
		ts_error_context(err, "fallback branch \"%s\" of table \"%s\"",
						 plan->fallback_branch, plan->table_path);
		goto done;
	}

	/* the fallback's splits of partitions main does not have */
	for (int i = 0; i < fb->nsplits; i++)
		if (!contains(parts, nparts, fb->splits[i].partition))
			nkeep++;
	all = ts_arena_alloc(&plan->arena, sizeof(ts_split) * (size_t) (plan->nsplits + nkeep + 1));
	if (all == NULL)
	{
		ts_error_nomem(err, NULL);
		goto done;
	}
	if (plan->nsplits)
		memcpy(all, plan->splits, sizeof(ts_split) * (size_t) plan->nsplits);
	for (int i = 0, k = plan->nsplits; i < fb->nsplits; i++)
		if (!contains(parts, nparts, fb->splits[i].partition))
		{
			/* built now, by the plan that knows where its files are */
			for (int f = 0; f < fb->splits[i].nfiles; f++)
				if (ts_scan_file_path(fb, &fb->splits[i].files[f], err) == NULL)
					goto done;
			all[k] = fb->splits[i];
			all[k].fallback = true;
			k++;
		}
	{
		ts_bytes   *p;
		int			n;

		if (!split_partitions(plan->splits, plan->nsplits, &p, &n, err))
			goto done;
		plan->main_partitions = n;
		ts_free(p);
		if (!split_partitions(all + plan->nsplits, nkeep, &p, &n, err))
			goto done;
		plan->fallback_partitions = n;
		ts_free(p);
	}
	plan->splits = all;
	plan->nsplits += nkeep;
	plan->metrics.files_total += fb->metrics.files_total;
	plan->fallback = fb;
	fb = NULL;
	ok = true;
done:
	ts_free(parts);
	ts_free(fopts);
	ts_plan_free(listing);
	ts_plan_free(fb);
	return ok;
}
