/*
 * test_scan_cache.c - the live manifest-entry cache (cache.c): a second plan
 * of a snapshot reads no manifest and plans the same files; LRU eviction
 * under a tiny bound; a snapshot committed between two plans is seen;
 * inferred-bucket candidates on a rescaled table (files of another
 * _TOTAL_BUCKETS stay candidates and are pruned with their own count,
 * checked against ts_bucket_compute); plans identical with and without the
 * cache on the real Java-written tables; plans never point into the cache;
 * planning builds no data file path, whether the entries come from the
 * manifests, the metadata cache's records or this cache (a count(*)
 * answered from metadata builds none either), and reading a split builds
 * its files' paths only; a damaged data file name is refused when its file
 * is read.
 * Generated tables come from build/.../tools/ts_gen (or $TS_GEN).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_meta_cache.h"
#include "base/ts_shared_region.h"
#include "meta/manifest_cache.h"
#include "meta/bucket.h"
#include "expr/predicate.h"
#include "scan/scan.h"
#include "read/read.h"
#include "gen_tables.h"
#include "scan_plan.h"

/* format.c references readers weakly: pull them out of the archive */
ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;

/* One line per planned file: split order, everything a reader uses. */
static char *
plan_text(const ts_plan *plan)
{
	ts_buf		b;
	ts_err		err = {0};
	char	   *s;

	ts_buf_init(&b);
	ts_buf_printf(&b, &err, "snapshot %lld splits %d\n",
				  plan->snapshot ? (long long) plan->snapshot->id : -1LL, plan->nsplits);
	for (int i = 0; i < plan->nsplits; i++)
	{
		const ts_split *sp = &plan->splits[i];

		ts_buf_printf(&b, &err, "split p%u b%d/%d raw%d\n", sp->partition.len, sp->bucket,
					  sp->total_buckets, (int) sp->raw_convertible);
		for (uint32_t k = 0; k < sp->partition.len; k++)
			ts_buf_printf(&b, &err, "%02x", sp->partition.data[k]);
		for (int f = 0; f < sp->nfiles; f++)
		{
			const ts_scan_file *sf = &sp->files[f];
			const ts_data_file_meta *m = &sf->entry->file;

			ts_buf_printf(&b, &err, " %s L%d rows %lld seq %lld-%lld schema %lld dv %s@%lld+%lld/%lld\n",
						  ts_scan_file_label(plan, sf), m->level, (long long) m->row_count,
						  (long long) m->min_sequence_number, (long long) m->max_sequence_number,
						  (long long) m->schema_id, sf->dv_path ? sf->dv_path : "-",
						  (long long) sf->dv_offset, (long long) sf->dv_length,
						  (long long) sf->dv_cardinality);
		}
	}
	ts_buf_append(&b, "", 1, &err);
	s = strdup((const char *) b.data);
	ts_buf_free(&b);
	return s;
}

static int64_t
plan_rows(const ts_plan *plan)
{
	int64_t		n = 0;

	for (int i = 0; i < plan->nsplits; i++)
		for (int f = 0; f < plan->splits[i].nfiles; f++)
			n += plan->splits[i].files[f].entry->file.row_count;
	return n;
}

static void
cache_reset(size_t limit)
{
	ts_scan_cache_set_limit(0);
	ts_scan_cache_set_limit(limit);
}

/* ---- hit / miss -------------------------------------------------------- */

static void
test_hit_miss(void **state)
{
	const char *path = gen_table("db.db/hm", "--column id:INT --column name:STRING --column p:INT "
						   "--partition p --buckets 2 --bucket-key id --rows 20 --snapshots 3");
	ts_scan_context ctx;
	ts_plan    *a,
			   *b,
			   *c;
	char	   *ta,
			   *tb,
			   *tc;
	ts_scan_cache_stats st;

	(void) state;
	cache_reset(64 << 20);
	scan_ctx_init(&ctx, path, NULL, 0);
	a = scan_plan_ok(&ctx);
	assert_false(a->metrics.cache_hit);
	assert_int_equal(a->metrics.manifests_read, 3);
	ta = plan_text(a);
	ts_plan_free(a);			/* the cache does not live in a plan */

	b = scan_plan_ok(&ctx);
	assert_true(b->metrics.cache_hit);
	assert_int_equal(b->metrics.manifests_read, 0);
	assert_int_equal(b->metrics.entries_read, 0);
	assert_int_equal(b->metrics.files_total, 12);	/* 3 commits x 2 partitions x 2 buckets */
	/* the plan keeps copies: clearing the cache must not touch it (ASan) */
	ts_scan_cache_clear();
	tb = plan_text(b);
	assert_string_equal(ta, tb);
	assert_int_equal(plan_rows(b), 60);

	ctx.no_cache = true;
	c = scan_plan_ok(&ctx);
	assert_false(c->metrics.cache_hit);
	assert_int_equal(c->metrics.manifests_read, 3);
	tc = plan_text(c);
	assert_string_equal(ta, tc);
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.items, 0);

	/* disabled (bound 0): never a hit */
	ctx.no_cache = false;
	ts_scan_cache_set_limit(0);
	ts_plan_free(c);
	c = scan_plan_ok(&ctx);
	ts_plan_free(c);
	c = scan_plan_ok(&ctx);
	assert_false(c->metrics.cache_hit);
	assert_int_equal(c->metrics.manifests_read, 3);
	free(ta);
	free(tb);
	free(tc);
	ts_plan_free(b);
	ts_plan_free(c);
}

/* ---- pinned entries ---------------------------------------------------- */

/*
 * A plan that hit the cache points into it: evicting or clearing the cache
 * must leave its entries alone until the plan lets them go (ASan/valgrind
 * see a use after free otherwise), and the cache's byte count drops at once.
 */
static void
test_pinned_entries(void **state)
{
	const char *path = gen_table("db.db/pin", "--column id:INT --column name:STRING --column p:INT "
						   "--partition p --buckets 2 --bucket-key id --rows 20 --snapshots 2");
	ts_scan_context ctx;
	ts_plan    *a,
			   *b,
			   *c;
	char	   *ta,
			   *tb;
	ts_scan_cache_stats st;
	int64_t		hits;

	(void) state;
	cache_reset(64 << 20);
	scan_ctx_init(&ctx, path, NULL, 0);
	a = scan_plan_ok(&ctx);
	ta = plan_text(a);
	ts_plan_free(a);
	b = scan_plan_ok(&ctx);
	c = scan_plan_ok(&ctx);
	assert_true(b->metrics.cache_hit);
	assert_true(c->metrics.cache_hit);
	assert_ptr_equal(b->splits[0].files[0].entry, c->splits[0].files[0].entry);	/* shared */
	ts_scan_cache_set_limit(0);	/* evicts the item both plans pin */
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, 0);
	assert_int_equal(st.bytes_used, 0);
	tb = plan_text(b);
	assert_string_equal(ta, tb);
	free(tb);
	ts_plan_release(b);
	ts_plan_release(b);			/* idempotent */
	ts_plan_free(b);
	tb = plan_text(c);			/* still pinned by c */
	assert_string_equal(ta, tb);
	free(tb);
	ts_plan_free(c);			/* the last pin: freed now */

	/*
	 * a plan that missed goes on with the copy it cached (no hit counted):
	 * it pins it like a hit, and eviction waits for it too
	 */
	cache_reset(64 << 20);
	ts_scan_cache_get_stats(&st);
	hits = st.hits;
	a = scan_plan_ok(&ctx);
	assert_false(a->metrics.cache_hit);
	assert_non_null(a->cache_pin);
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.hits, hits);
	assert_int_equal(st.items, 1);
	ts_scan_cache_set_limit(0);
	tb = plan_text(a);
	assert_string_equal(ta, tb);
	free(tb);
	ts_plan_free(a);
	free(ta);
}

/* ---- a pooled plan's fill: the cache takes the decoded entries --------- */

static ts_plan *
plan_pooled(const ts_scan_context *ctx)
{
	ts_err		err = {0};
	ts_plan    *p = ts_scan_prepare(ctx, &err);

	if (p == NULL)
		fail_msg("plan of %s failed: %s", ctx->table_path, err.msg);
	ts_arena_set_pooled(&p->arena, true);
	if (!ts_scan_execute(p, ctx, &err))
		fail_msg("plan of %s failed: %s", ctx->table_path, err.msg);
	return p;
}

static void
test_owned_fill(void **state)
{
	const char *path = gen_table("db.db/own", "--column id:INT --column name:STRING --column p:INT "
						   "--partition p --partitions 5 --buckets 3 --bucket-key id "
						   "--rows 60 --snapshots 4");
	ts_scan_context ctx;
	ts_plan    *ref,
			   *a,
			   *b;
	char	   *tref,
			   *t;
	ts_scan_cache_stats st;

	(void) state;
	scan_ctx_init(&ctx, path, NULL, 0);
	ctx.no_cache = true;
	ref = scan_plan_ok(&ctx);
	tref = plan_text(ref);
	ts_plan_free(ref);
	ctx.no_cache = false;

	cache_reset(64 << 20);
	a = plan_pooled(&ctx);		/* fills: its entries move into the cache */
	assert_false(a->metrics.cache_hit);
	assert_null(a->fill_arena.head);
	t = plan_text(a);
	assert_string_equal(tref, t);
	free(t);
	b = plan_pooled(&ctx);
	assert_true(b->metrics.cache_hit);
	assert_ptr_equal(a->splits[0].files[0].entry, b->splits[0].files[0].entry);
	ts_plan_free(a);
	ts_scan_cache_get_stats(&st);
	/* the entries in the arena it took over are counted */
	assert_true(st.entries > 0);
	assert_true(st.bytes_used >= (size_t) st.entries * sizeof(ts_manifest_entry));
	ts_scan_cache_set_limit(0); /* evicted while b pins it */
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, 0);
	assert_int_equal(st.bytes_used, 0);
	t = plan_text(b);
	assert_string_equal(tref, t);
	free(t);
	ts_plan_free(b);			/* the last pin: the owned arena goes back */

	/* too big to cache: the plan keeps its own fill arena until it is freed */
	cache_reset(4096);
	a = plan_pooled(&ctx);
	assert_non_null(a->fill_arena.head);
	t = plan_text(a);
	assert_string_equal(tref, t);
	free(t);
	ts_plan_release(a);
	assert_null(a->fill_arena.head);
	ts_plan_free(a);
	free(tref);
	ts_chunk_pool_clear();
	cache_reset(64 << 20);		/* as the other tests expect */
}

/* ---- a commit between two plans --------------------------------------- */

static void
write_latest(const char *path, int id)
{
	gen_sh("printf %d > %s/snapshot/LATEST", id, path);
}

static void
test_new_snapshot_seen(void **state)
{
	const char *path = gen_table("db.db/ns", "--column id:INT --column v:BIGINT --buckets -1 "
						   "--rows 7 --snapshots 3");
	ts_scan_context ctx;
	ts_plan    *p;

	(void) state;
	cache_reset(64 << 20);
	/* hide the third commit: the table is at snapshot 2 */
	gen_sh("mv %s/snapshot/snapshot-3 %s/snapshot3.hidden", path, path);
	write_latest(path, 2);
	scan_ctx_init(&ctx, path, NULL, 0);
	p = scan_plan_ok(&ctx);
	assert_int_equal(p->snapshot->id, 2);
	assert_int_equal(plan_rows(p), 14);
	ts_plan_free(p);
	p = scan_plan_ok(&ctx);
	assert_true(p->metrics.cache_hit);
	assert_int_equal(plan_rows(p), 14);
	ts_plan_free(p);

	/* commit snapshot 3 */
	gen_sh("mv %s/snapshot3.hidden %s/snapshot/snapshot-3", path, path);
	write_latest(path, 3);
	p = scan_plan_ok(&ctx);
	assert_int_equal(p->snapshot->id, 3);
	assert_false(p->metrics.cache_hit);
	assert_int_equal(plan_rows(p), 21);
	ts_plan_free(p);
	p = scan_plan_ok(&ctx);
	assert_true(p->metrics.cache_hit);
	assert_int_equal(plan_rows(p), 21);
	ts_plan_free(p);

	/* time travel to 2 is still answered by its own entry */
	{
		ts_option	o = {"scan.snapshot-id", "2"};

		ctx.options = &o;
		ctx.noptions = 1;
		p = scan_plan_ok(&ctx);
		assert_true(p->metrics.cache_hit);
		assert_int_equal(plan_rows(p), 14);
		ts_plan_free(p);
	}
}

/* ---- eviction ---------------------------------------------------------- */

static void
test_eviction(void **state)
{
	const char *args = "--column id:INT --column name:STRING --column p:INT --partition p "
		"--buckets 2 --bucket-key id --rows 20 --snapshots 2";
	const char *t1 = gen_table("db.db/e1", args);
	const char *t2 = gen_table("db.db/e2", args);
	ts_scan_context c1,
				c2;
	ts_scan_cache_stats st;
	size_t		one;
	int64_t		evictions;
	ts_plan    *p;

	(void) state;
	scan_ctx_init(&c1, t1, NULL, 0);
	scan_ctx_init(&c2, t2, NULL, 0);
	cache_reset(64 << 20);
	ts_plan_free(scan_plan_ok(&c1));
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, 1);
	one = st.bytes_used;
	assert_true(one > 0);

	/* room for one table's entries, not two */
	cache_reset(one + one / 2);
	ts_plan_free(scan_plan_ok(&c1));
	ts_scan_cache_get_stats(&st);
	evictions = st.evictions;
	ts_plan_free(scan_plan_ok(&c2));	/* evicts t1 (least recently used) */
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, 1);
	assert_int_equal(st.evictions - evictions, 1);
	assert_true(st.bytes_used <= one + one / 2);
	p = scan_plan_ok(&c2);
	assert_true(p->metrics.cache_hit);
	ts_plan_free(p);
	p = scan_plan_ok(&c1);
	assert_false(p->metrics.cache_hit);	/* was evicted; now evicts t2 */
	ts_plan_free(p);
	p = scan_plan_ok(&c1);
	assert_true(p->metrics.cache_hit);
	ts_plan_free(p);
	p = scan_plan_ok(&c2);
	assert_false(p->metrics.cache_hit);
	ts_plan_free(p);

	/* LRU, not FIFO: with room for two, touching t1 makes t2 the victim */
	{
		const char *t3 = gen_table("db.db/e3", args);
		ts_scan_context c3;

		scan_ctx_init(&c3, t3, NULL, 0);
		cache_reset(2 * one + one / 2);
		ts_plan_free(scan_plan_ok(&c1));
		ts_plan_free(scan_plan_ok(&c2));
		ts_plan_free(scan_plan_ok(&c1));	/* hit: t1 most recent */
		ts_plan_free(scan_plan_ok(&c3));	/* evicts t2 */
		p = scan_plan_ok(&c1);
		assert_true(p->metrics.cache_hit);
		ts_plan_free(p);
		p = scan_plan_ok(&c2);
		assert_false(p->metrics.cache_hit);
		ts_plan_free(p);
	}

	/* smaller than one item: nothing is cached */
	cache_reset(one / 2);
	ts_plan_free(scan_plan_ok(&c1));
	p = scan_plan_ok(&c1);
	assert_false(p->metrics.cache_hit);
	ts_plan_free(p);
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, 0);
	assert_int_equal(st.bytes_used, 0);
}

/* ---- inferred buckets on a rescaled table ---------------------------- */

static int
find_field(const ts_plan *plan, const char *name)
{
	for (int i = 0; i < plan->schema->nfields; i++)
		if (strcmp(plan->schema->fields[i].name, name) == 0)
			return i;
	fail_msg("no field %s", name);
	return -1;
}

/* Plan with predicate id = k [AND p = part] (no_cache as given). */
static ts_plan *
plan_id_eq_part(const char *path, int64_t k, int64_t part, bool no_cache)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *p;
	static ts_value lit[2];
	static ts_predicate leaves[2],
				pred;

	scan_ctx_init(&ctx, path, NULL, 0);
	ctx.no_cache = no_cache;
	p = ts_scan_prepare(&ctx, &err);
	assert_non_null(p);
	memset(lit, 0, sizeof(lit));
	memset(leaves, 0, sizeof(leaves));
	memset(&pred, 0, sizeof(pred));
	lit[0].v.i = k;
	lit[1].v.i = part;
	for (int i = 0; i < 2; i++)
	{
		leaves[i].op = TS_PRED_EQ;
		leaves[i].field = find_field(p, i == 0 ? "id" : "p");
		leaves[i].nliterals = 1;
		leaves[i].literals = &lit[i];
	}
	if (part < 0)
		ctx.predicate = &leaves[0];
	else
	{
		pred.op = TS_PRED_AND;
		pred.nchildren = 2;
		pred.children = leaves;
		ctx.predicate = &pred;
	}
	if (!ts_scan_execute(p, &ctx, &err))
		fail_msg("%s", err.msg);
	return p;
}

static ts_plan *
plan_id_eq(const char *path, int64_t k, bool no_cache)
{
	return plan_id_eq_part(path, k, -1, no_cache);
}

/* Rows with id = k in the files of a plan (read through src/read). */
static int
count_id_rows(ts_plan *plan, int64_t k)
{
	int			col = find_field(plan, "id");
	int			n = 0;

	for (int i = 0; i < plan->nsplits; i++)
	{
		ts_err		err = {0};
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[i], &col, 1, &err);
		ts_batch	b;
		int			got;

		if (r == NULL)
			fail_msg("%s", err.msg);
		while ((got = ts_split_reader_next(r, &b, &err)) > 0)
			for (int row = 0; row < b.nrows; row++)
			{
				const ts_value *v = ts_batch_at(&b, row, 0);

				n += !v->isnull && v->v.i == k;
			}
		if (got < 0)
			fail_msg("%s", err.msg);
		ts_split_reader_close(r);
	}
	return n;
}

/*
 * Snapshot 3 of a 2-bucket table whose delta is replaced by the first
 * commit of a 3-bucket table (same columns): files of both bucket counts.
 */
static const char *
make_rescaled(void)
{
	const char *cols = "--column id:INT --column name:STRING --column p:INT --partition p "
		"--bucket-key id --rows 24";
	char		args[1024];
	const char *t,
			   *u;
	ts_err		err = {0};
	ts_snapshot *s3,
			   *u1;

	snprintf(args, sizeof(args), "%s --buckets 2 --snapshots 3 --seed 1", cols);
	t = gen_table("db.db/rescaled", args);
	snprintf(args, sizeof(args), "%s --buckets 3 --snapshots 1 --seed 7", cols);
	u = gen_table("db.db/other", args);
	s3 = ts_snapshot_load(ts_fs_local_unconfined(), t, 3, &err);
	u1 = ts_snapshot_load(ts_fs_local_unconfined(), u, 1, &err);
	assert_non_null(s3);
	assert_non_null(u1);
	gen_sh("cp %s/manifest/%s %s/manifest/%s", u, u1->delta_manifest_list, t, s3->delta_manifest_list);
	gen_sh("cd %s/manifest && for f in manifest-*; do case $f in manifest-list-*) ;; *) cp $f %s/manifest/;; esac; done",
	   u, t);
	gen_sh("cd %s && cp -r p=* %s/", u, t);
	ts_snapshot_free(s3);
	ts_snapshot_free(u1);
	return t;
}

static void
test_inferred_bucket_rescaled(void **state)
{
	const char *path = make_rescaled();
	ts_scan_context ctx;
	ts_plan    *all;
	int			n2 = 0,
				n3 = 0;
	int64_t		misses;
	bool		seen[2] = {false, false};
	ts_scan_cache_stats st;

	(void) state;
	/* every live file, no pruning, no cache */
	scan_ctx_init(&ctx, path, NULL, 0);
	ctx.no_cache = true;
	all = scan_plan_ok(&ctx);
	for (int i = 0; i < all->nsplits; i++)
		for (int f = 0; f < all->splits[i].nfiles; f++)
		{
			int32_t		tb = all->splits[i].files[f].entry->total_buckets;

			n2 += tb == 2;
			n3 += tb == 3;
		}
	assert_true(n2 > 0 && n3 > 0);

	cache_reset(64 << 20);
	ts_scan_cache_get_stats(&st);
	misses = st.misses;
	for (int64_t k = 0; k < 12; k++)
	{
		ts_plan    *ref = plan_id_eq(path, k, true);
		ts_plan    *miss = plan_id_eq(path, k, false);
		ts_plan    *hit = plan_id_eq(path, k, false);
		char	   *tr = plan_text(ref),
				   *tm = plan_text(miss),
				   *th = plan_text(hit);
		int			got = 0,
					got3 = 0;

		{
			/* candidates are keyed by id's bucket under the current count (2) */
			const ts_type *kt = miss->schema->fields[find_field(miss, "id")].type;
			ts_value	v;
			int32_t		cur;
			ts_err		err = {0};

			memset(&v, 0, sizeof(v));
			v.v.i = k;
			assert_true(ts_bucket_compute(TS_BUCKET_FN_DEFAULT, &kt, &v, 1, 2, &cur, &err));
			assert_int_equal(miss->metrics.cache_hit, seen[cur]);
			seen[cur] = true;
		}
		assert_true(hit->metrics.cache_hit);
		assert_int_equal(hit->metrics.manifests_read, 0);
		assert_string_equal(tr, tm);
		assert_string_equal(tr, th);
		/* a hit on candidates reports what a cold plan reports */
		assert_int_equal(hit->metrics.files_total, ref->metrics.files_total);
		assert_int_equal(hit->metrics.files_total, all->metrics.files_total);
		assert_int_equal(hit->metrics.files_kept, ref->metrics.files_kept);
		assert_int_equal(hit->metrics.files_pruned_partition, ref->metrics.files_pruned_partition);
		assert_int_equal(hit->metrics.files_pruned_bucket, ref->metrics.files_pruned_bucket);
		assert_int_equal(hit->metrics.files_pruned_stats, ref->metrics.files_pruned_stats);
		assert_int_equal(hit->metrics.partitions_total, ref->metrics.partitions_total);
		assert_int_equal(hit->metrics.partitions_kept, ref->metrics.partitions_kept);
		assert_int_equal(hit->metrics.buckets_total, ref->metrics.buckets_total);
		assert_int_equal(hit->metrics.buckets_kept, ref->metrics.buckets_kept);
		/* independently: every kept file is in id's bucket under its own count */
		for (int i = 0; i < hit->nsplits; i++)
			for (int f = 0; f < hit->splits[i].nfiles; f++)
			{
				const ts_manifest_entry *e = hit->splits[i].files[f].entry;
				const ts_type *kt = hit->schema->fields[find_field(hit, "id")].type;
				ts_value	v;
				int32_t		b;
				ts_err		err = {0};

				memset(&v, 0, sizeof(v));
				v.v.i = k;
				assert_true(ts_bucket_compute(TS_BUCKET_FN_DEFAULT, &kt, &v, 1, e->total_buckets, &b, &err));
				assert_int_equal(b, e->bucket);
				got++;
				got3 += e->total_buckets == 3;
			}
		assert_true(got > 0);
		/*
		 * and no needed file was dropped: id = k (k < 24) is row k of the
		 * 2-bucket table's first commit and of the 3-bucket table's commit
		 */
		assert_int_equal(count_id_rows(hit, k), 2);
		assert_true(got3 > 0);	/* other bucket counts survived the cached candidates */
		free(tr);
		free(tm);
		free(th);
		ts_plan_free(ref);
		ts_plan_free(miss);
		ts_plan_free(hit);
	}
	/* candidate sets are keyed by bucket: at most 2 sets under 2 buckets */
	ts_scan_cache_get_stats(&st);
	assert_int_equal(st.items, (int) seen[0] + (int) seen[1]);
	/* each candidate set holds fewer entries than the live set */
	assert_true(st.entries < st.items * all->metrics.files_total);
	assert_int_equal(st.misses - misses, st.items);

	/* with a partition predicate too: the same plan and metrics as without the cache */
	for (int64_t k = 0; k < 6; k++)
	{
		ts_plan    *ref = plan_id_eq_part(path, k, k % 2, true);
		ts_plan    *hit = plan_id_eq_part(path, k, k % 2, false);
		char	   *tr = plan_text(ref),
				   *th = plan_text(hit);

		assert_true(hit->metrics.cache_hit);
		assert_string_equal(tr, th);
		assert_true(ref->metrics.files_pruned_partition > 0);
		assert_int_equal(hit->metrics.files_total, ref->metrics.files_total);
		assert_int_equal(hit->metrics.files_pruned_partition, ref->metrics.files_pruned_partition);
		assert_int_equal(hit->metrics.files_pruned_bucket, ref->metrics.files_pruned_bucket);
		assert_int_equal(hit->metrics.files_pruned_stats, ref->metrics.files_pruned_stats);
		assert_int_equal(hit->metrics.partitions_total, ref->metrics.partitions_total);
		assert_int_equal(hit->metrics.buckets_total, ref->metrics.buckets_total);
		assert_int_equal(count_id_rows(hit, k), 2);
		free(tr);
		free(th);
		ts_plan_free(ref);
		ts_plan_free(hit);
	}

	/* a full plan is another key; afterwards it serves inferred scans too */
	{
		ts_plan    *p;

		cache_reset(64 << 20);
		ctx.no_cache = false;
		ts_plan_free(scan_plan_ok(&ctx));
		p = plan_id_eq(path, 5, false);
		assert_true(p->metrics.cache_hit);
		ts_plan_free(p);
	}
	ts_plan_free(all);
}

/* ---- real tables: same plans with and without the cache -------------- */

static void
compare_cached(const char *rel, const ts_option *opts, int nopts, bool has_bucket_filter,
			   int32_t bucket_filter)
{
	char		r[1024];
	ts_scan_context ctx;
	ts_plan    *ref,
			   *a,
			   *b;
	char	   *tr,
			   *ta,
			   *tb;

	snprintf(r, sizeof(r), "testdata/%s", rel);
	scan_ctx_init(&ctx, unit_shared_path(r), NULL, 0);
	ctx.options = opts;
	ctx.noptions = nopts;
	ctx.has_bucket_filter = has_bucket_filter;
	ctx.bucket_filter = bucket_filter;
	ctx.no_cache = true;
	ref = scan_plan_ok(&ctx);
	ctx.no_cache = false;
	a = scan_plan_ok(&ctx);
	b = scan_plan_ok(&ctx);
	if (ref->snapshot != NULL)
	{
		assert_true(b->metrics.cache_hit);
		assert_int_equal(b->metrics.manifests_read, 0);
	}
	tr = plan_text(ref);
	ta = plan_text(a);
	tb = plan_text(b);
	if (strcmp(tr, ta) != 0 || strcmp(tr, tb) != 0)
		fail_msg("%s: plans differ with the cache:\n--- no cache\n%s--- fill\n%s--- hit\n%s",
				 rel, tr, ta, tb);
	free(tr);
	free(ta);
	free(tb);
	ts_plan_free(ref);
	ts_plan_free(a);
	ts_plan_free(b);
}

static void
test_real_tables_identical(void **state)
{
	static const char *const tables[] = {
		"parquet/append_09.db/append_09",
		"orc/append_09.db/append_09",
		"orc/pk_09.db/pk_09",
		"orc/pk_09_with_dv.db/pk_09_with_dv",
		"orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
		"orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor",
		"orc/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row",
		"orc/pk_table_partial_update.db/pk_table_partial_update",
		"orc/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality",
		"orc/pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external",
		"parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
		"parquet/append_table_with_alter_table.db/append_table_with_alter_table",
		"orc/append_with_empty_partition_with_empty_value.db/append_with_empty_partition_with_empty_value",
		NULL
	};
	int			checked = 0;

	(void) state;
	cache_reset(64 << 20);
	for (int t = 0; tables[t]; t++)
	{
		char		r[1024];
		int64_t		latest = 0,
					earliest = 0;
		ts_err		err = {0};
		const char *path;

		snprintf(r, sizeof(r), "testdata/%s", tables[t]);
		path = unit_shared_path(r);
		if (!ts_path_is_dir(ts_fs_local_unconfined(), path))
			fail_msg("missing table %s", path);
		assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), path, &latest, &err));
		assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), path, &earliest, &err));
		compare_cached(tables[t], NULL, 0, false, 0);
		for (int64_t id = earliest; id <= latest && id > 0; id++)
		{
			char		v[32];
			ts_option	o = {"scan.snapshot-id", v};

			snprintf(v, sizeof(v), "%lld", (long long) id);
			compare_cached(tables[t], &o, 1, false, 0);
			/* explicit bucket filter on a full cached set (it skips no manifest now) */
			if (strstr(tables[t], "append_09") || strstr(tables[t], "pk_"))
				compare_cached(tables[t], &o, 1, true, 1);
			checked++;
		}
	}
	assert_true(checked >= 20);
}

/* ---- a separate allocator --------------------------------------------- */

static int64_t alloc_live = 0;

/* Files of the plan whose path is built (ts_scan_file.built_path set). */
static int
paths_built(const ts_plan *plan, int *nfiles)
{
	int			n = 0;

	*nfiles = 0;
	for (int i = 0; i < plan->nsplits; i++)
		for (int f = 0; f < plan->splits[i].nfiles; f++)
		{
			(*nfiles)++;
			n += plan->splits[i].files[f].built_path != NULL;
		}
	return n;
}

/* Rows of split s read from its data files (no column: counts only). */
static int64_t
read_split_count(ts_plan *plan, int s)
{
	ts_err		err = {0};
	ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], NULL, 0, &err);
	ts_batch	batch;
	int64_t		rows = 0;
	int			n;

	if (r == NULL)
		fail_msg("opening split %d: %s", s, err.msg);
	while ((n = ts_split_reader_next(r, &batch, &err)) > 0)
		rows += n;
	if (n < 0)
		fail_msg("reading split %d: %s", s, err.msg);
	ts_split_reader_close(r);
	return rows;
}

static void
test_paths_built_when_opened(void **state)
{
	const char *path = gen_table("db.db/lazy", "--column id:INT --column name:STRING --column p:INT "
								 "--partition p --buckets 2 --bucket-key id --rows 20 --snapshots 3");
	char		mdir[] = "/tmp/ts_unit_mcache_XXXXXX";
	ts_scan_context ctx;
	ts_err		err = {0};
	int64_t		record_hits;

	(void) state;
	cache_reset(64 << 20);
	assert_non_null(mkdtemp(mdir));
	assert_true(ts_mcache_configure(mdir, 16 << 20, &err));
	ts_live_set_set_enabled(false);	/* the per-manifest records (live sets: below) */
	scan_ctx_init(&ctx, path, NULL, 0);
	record_hits = ts_manifest_cache_get_stats().hits;
	/* 0: manifests decoded; 1: from the records; 2: from this cache */
	for (int round = 0; round < 3; round++)
	{
		ts_plan    *plan;
		int64_t		counted = -1,
					read = 0;
		int			nfiles;
		char		want[64];

		if (round == 1)
			ts_scan_cache_clear();
		plan = scan_plan_ok(&ctx);
		assert_true(plan->metrics.cache_hit == (round == 2));
		if (round == 1)
			assert_int_equal(ts_manifest_cache_get_stats().hits, record_hits + 3);
		assert_int_equal(paths_built(plan, &nfiles), 0);
		assert_int_equal(nfiles, 12);	/* 3 commits x 2 partitions x 2 buckets */
		/* count(*) from the metadata: no file opened, no path built */
		assert_true(ts_plan_countable(plan, NULL));
		if (!ts_plan_count_rows(plan, NULL, &counted, NULL, &err))
			fail_msg("counting: %s", err.msg);
		assert_int_equal(counted, 60);
		assert_int_equal(paths_built(plan, &nfiles), 0);
		/* reading split 0 builds the paths of its files, no other */
		read = read_split_count(plan, 0);
		assert_int_equal(paths_built(plan, &nfiles), plan->splits[0].nfiles);
		for (int f = 0; f < plan->splits[0].nfiles; f++)
		{
			const ts_scan_file *sf = &plan->splits[0].files[f];
			const char *p = ts_scan_file_path(plan, sf, &err);

			assert_ptr_equal(p, sf->built_path);	/* built once */
			assert_true(ts_path_is_file(ts_fs_local_unconfined(), p));
			snprintf(want, sizeof(want), "/bucket-%d/", plan->splits[0].bucket);
			assert_non_null(strstr(p, want));
			assert_string_equal(strrchr(p, '/') + 1, sf->entry->file.file_name);
			assert_int_equal(strncmp(p, path, strlen(path)), 0);
		}
		for (int s = 1; s < plan->nsplits; s++)
			read += read_split_count(plan, s);
		assert_int_equal(read, 60);
		assert_int_equal(paths_built(plan, &nfiles), 12);
		ts_plan_free(plan);
	}
	ts_live_set_set_enabled(true);
	ts_mcache_configure(NULL, 0, NULL);
	gen_sh("rm -rf %s", mdir);
}

/* A plan of id >= k (pruned by the files' value statistics; no bucket inferred). */
static ts_plan *
plan_id_ge(const char *path, int64_t k)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *p;
	static ts_value lit;
	static ts_predicate pred;

	scan_ctx_init(&ctx, path, NULL, 0);
	p = ts_scan_prepare(&ctx, &err);
	assert_non_null(p);
	memset(&lit, 0, sizeof(lit));
	memset(&pred, 0, sizeof(pred));
	lit.v.i = k;
	pred.op = TS_PRED_GE;
	pred.field = find_field(p, "id");
	pred.nliterals = 1;
	pred.literals = &lit;
	ctx.predicate = &pred;
	if (!ts_scan_execute(p, &ctx, &err))
		fail_msg("%s", err.msg);
	return p;
}

/*
 * A table of 4 snapshots whose plan of id >= 40 prunes files by statistics,
 * its reference plans decoded from the manifests with no cache of any kind
 * (with that predicate and without), and an empty metadata cache directory
 * configured; the entry cache empty.  Torn down by pred_table_done.
 */
typedef struct pred_table
{
	const char *path;
	char		mdir[64];
	ts_scan_context ctx;		/* no predicate */
	ts_plan    *ref_pred;
	ts_plan    *ref_all;
	char	   *want_pred;
	char	   *want_all;
} pred_table;

static void
pred_table_init(pred_table *t, const char *name)
{
	ts_err		err = {0};
	char		rel[64];

	memset(t, 0, sizeof(*t));
	snprintf(rel, sizeof(rel), "db.db/%s", name);
	t->path = gen_table(rel, "--column id:INT --column name:STRING --column p:INT "
						"--partition p --buckets 2 --bucket-key id --rows 40 --snapshots 4");
	cache_reset(64 << 20);
	t->ref_pred = plan_id_ge(t->path, 40);
	assert_true(t->ref_pred->metrics.files_pruned_stats > 0);
	t->want_pred = plan_text(t->ref_pred);
	scan_ctx_init(&t->ctx, t->path, NULL, 0);
	ts_scan_cache_clear();
	t->ref_all = scan_plan_ok(&t->ctx);
	t->want_all = plan_text(t->ref_all);
	ts_scan_cache_clear();
	snprintf(t->mdir, sizeof(t->mdir), "/tmp/ts_unit_%s_XXXXXX", name);
	assert_non_null(mkdtemp(t->mdir));
	assert_true(ts_mcache_configure(t->mdir, 16 << 20, &err));
}

static void
pred_table_done(pred_table *t)
{
	free(t->want_pred);
	free(t->want_all);
	ts_plan_free(t->ref_pred);
	ts_plan_free(t->ref_all);
	ts_live_set_set_enabled(true);
	ts_mcache_configure(NULL, 0, NULL);
	gen_sh("rm -rf %s", t->mdir);
}

/*
 * Light records (no statistics, meta/manifest_cache.c) serve plans without
 * a predicate only: a plan pruning by statistics after one, whether its
 * entries would come from the records or from the entry cache that plan
 * filled, prunes the same files as a plan decoding the manifests.
 */
static void
test_stats_never_from_light(void **state)
{
	pred_table	t;
	const char *path;
	ts_scan_context ctx;
	ts_manifest_cache_stats s0,
				s;
	ts_plan    *ref,
			   *plan;
	char	   *want,
			   *got;

	(void) state;
	pred_table_init(&t, "lite");
	path = t.path;
	ctx = t.ctx;
	ref = t.ref_pred;
	want = t.want_pred;
	ts_live_set_set_enabled(false);	/* the per-manifest records (live sets: below) */
	s0 = ts_manifest_cache_get_stats();
	/* no predicate: decoded, stored as full and light records */
	plan = scan_plan_ok(&ctx);
	ts_plan_free(plan);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.misses - s0.misses, 4);
	assert_int_equal(s.stores - s0.stores, 4);
	assert_int_equal(s.light_stores - s0.light_stores, 4);
	/* a new process's plan without a predicate: from the light records */
	ts_scan_cache_clear();
	s0 = s;
	plan = scan_plan_ok(&ctx);
	assert_false(plan->metrics.cache_hit);
	ts_plan_free(plan);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.light_hits - s0.light_hits, 4);
	assert_int_equal(s.hits - s0.hits, 4);
	/* a plan with a predicate next: not the light entries the entry cache holds */
	s0 = s;
	plan = plan_id_ge(path, 40);
	assert_false(plan->metrics.cache_hit);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.light_hits - s0.light_hits, 0);
	assert_int_equal(s.hits - s0.hits, 4);	/* the full records */
	assert_int_equal(plan->metrics.files_pruned_stats, ref->metrics.files_pruned_stats);
	got = plan_text(plan);
	assert_string_equal(got, want);
	free(got);
	ts_plan_free(plan);
	/* the entry cache now holds whole entries: both kinds of plan hit them */
	plan = plan_id_ge(path, 40);
	assert_true(plan->metrics.cache_hit);
	assert_int_equal(plan->metrics.files_pruned_stats, ref->metrics.files_pruned_stats);
	ts_plan_free(plan);
	plan = scan_plan_ok(&ctx);
	assert_true(plan->metrics.cache_hit);
	ts_plan_free(plan);
	/* a new process's plan with a predicate: the full records, never the light ones */
	ts_scan_cache_clear();
	s0 = ts_manifest_cache_get_stats();
	plan = plan_id_ge(path, 40);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.light_hits - s0.light_hits, 0);
	assert_int_equal(s.hits - s0.hits, 4);
	assert_int_equal(plan->metrics.files_pruned_stats, ref->metrics.files_pruned_stats);
	got = plan_text(plan);
	assert_string_equal(got, want);
	free(got);
	ts_plan_free(plan);
	pred_table_done(&t);
}

/* the plan's counts a live set hands out, equal to a plan's that read the manifests */
static void
same_counts(const ts_plan *a, const ts_plan *b)
{
	assert_int_equal(a->metrics.partitions_total, b->metrics.partitions_total);
	assert_int_equal(a->metrics.buckets_total, b->metrics.buckets_total);
	assert_int_equal(a->metrics.files_total, b->metrics.files_total);
	assert_int_equal(a->metrics.files_kept, b->metrics.files_kept);
	assert_int_equal(a->metrics.files_pruned_stats, b->metrics.files_pruned_stats);
}

/* a plan's text and counts against the reference's; the plan freed */
static void
same_as(ts_plan *plan, const ts_plan *ref, const char *want)
{
	char	   *got = plan_text(plan);

	assert_string_equal(got, want);
	free(got);
	same_counts(plan, ref);
	ts_plan_free(plan);
}

/*
 * A new process's plan of t (the entry cache cleared) from the live-set
 * record: no manifest list or manifest read, the reference's splits, order
 * and counts, one live set taken from a record, its name computed once;
 * then the process's next plan hits the entry cache it filled.  pooled: as
 * the server plans (the record decoded in the fill's arena, its array of
 * entries adopted by the entry cache as its live set and split order).
 */
static void
plan_from_live_record(const ts_scan_context *ctx, const pred_table *t, bool pooled)
{
	ts_manifest_cache_stats s0 = ts_manifest_cache_get_stats(),
				s;
	ts_plan    *plan;

	ts_scan_cache_clear();
	plan = pooled ? plan_pooled(ctx) : scan_plan_ok(ctx);
	assert_false(plan->metrics.cache_hit);
	assert_int_equal(plan->metrics.manifests_read, 0);
	same_as(plan, t->ref_all, t->want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 1);
	assert_int_equal(s.hits - s0.hits, 0);
	assert_int_equal(s.live_stores - s0.live_stores, 0);
	assert_int_equal(s.live_names - s0.live_names, 1);
	plan = pooled ? plan_pooled(ctx) : scan_plan_ok(ctx);
	assert_true(plan->metrics.cache_hit);
	same_as(plan, t->ref_all, t->want_all);
}

/* a one-process region's lock: never taken twice, always given back */
static int	shm_lock_depth;

static void
shm_lock(void)
{
	assert_int_equal(shm_lock_depth, 0);
	shm_lock_depth++;
}

static void
shm_unlock(void)
{
	assert_int_equal(shm_lock_depth, 1);
	shm_lock_depth--;
}

/*
 * Live sets in shared memory (meta/live_set_shared.c over a region of
 * base/shared_region.c, as the server's when preloaded), the on-disk cache
 * off: the plan that fills a set publishes it; a new process's plan (the
 * entry cache cleared) reads it there in place, with no manifest list,
 * manifest or record read and the reference's splits, order and counts; the
 * entry cache's item pins the block while it lives (a reservation needing
 * its room is refused) and lets it go when dropped (the same reservation
 * then evicts it); a plan pruning by statistics never takes the light set;
 * without the region nothing comes from it.
 */
static void
test_live_set_shared(void **state)
{
	pred_table	t;
	size_t		size = ts_shr_region_size(4 << 20);
	void	   *mem = aligned_alloc(64, size);
	ts_manifest_cache_stats s0,
				s;
	ts_shr_stats r;
	ts_shr_pin	pin;
	ts_plan    *plan;
	char		other[65];

	(void) state;
	assert_non_null(mem);
	pred_table_init(&t, "shm");
	ts_mcache_configure(NULL, 0, NULL);
	ts_shr_init(mem, size);
	ts_shr_attach(mem, shm_lock, shm_unlock);

	/* filled from the manifests: published (the light kind), nothing on disk */
	s0 = ts_manifest_cache_get_stats();
	plan = scan_plan_ok(&t.ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_shared_stores - s0.live_shared_stores, 1);
	assert_int_equal(s.live_stores - s0.live_stores, 0);
	assert_int_equal(ts_shr_get_stats().blocks, 1);

	/* a new process, pooled as in the server: in place, then its entry cache's hit */
	ts_scan_cache_clear();
	s0 = s;
	plan = plan_pooled(&t.ctx);
	assert_false(plan->metrics.cache_hit);
	assert_int_equal(plan->metrics.manifests_read, 0);
	same_as(plan, t.ref_all, t.want_all);
	plan = plan_pooled(&t.ctx);
	assert_true(plan->metrics.cache_hit);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_shared_hits - s0.live_shared_hits, 1);
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	assert_int_equal(s.hits - s0.hits, 0);

	/* pinned by the entry cache: its room cannot be taken; dropped: evicted for it */
	memset(other, 'f', 64);
	other[64] = '\0';
	r = ts_shr_get_stats();
	assert_int_equal(r.pinned, 1);
	assert_null(ts_shr_reserve(other, (size_t) r.bytes_size, &pin));
	assert_int_equal(ts_shr_get_stats().no_room, r.no_room + 1);
	ts_scan_cache_clear();
	assert_int_equal(ts_shr_get_stats().pinned, 0);
	assert_non_null(ts_shr_reserve(other, (size_t) r.bytes_size, &pin));
	ts_shr_abandon(pin);
	r = ts_shr_get_stats();
	assert_int_equal(r.evicted, 1);
	assert_int_equal(r.blocks, 0);
	assert_int_equal(r.bytes_used, 0);

	/* gone: read from the manifests again, and published again */
	s0 = ts_manifest_cache_get_stats();
	plan = plan_pooled(&t.ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_shared_stores - s0.live_shared_stores, 1);

	/* a predicate: not the light set; the whole one published, then read in place */
	ts_scan_cache_clear();
	s0 = s;
	plan = plan_id_ge(t.path, 40);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_pred, t.want_pred);
	ts_scan_cache_clear();
	plan = plan_id_ge(t.path, 40);
	assert_int_equal(plan->metrics.manifests_read, 0);
	same_as(plan, t.ref_pred, t.want_pred);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_shared_hits - s0.live_shared_hits, 1);
	assert_int_equal(s.live_shared_stores - s0.live_shared_stores, 1);
	assert_int_equal(ts_shr_get_stats().blocks, 2);

	/* this process's pins given back, the region let go: plans read the manifests */
	ts_scan_cache_clear();
	ts_shr_release_all();
	ts_shr_attach(NULL, NULL, NULL);
	plan = scan_plan_ok(&t.ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	assert_int_equal(shm_lock_depth, 0);
	pred_table_done(&t);
	free(mem);
}

/*
 * A snapshot's live set as one record (meta/manifest_cache.c): a new
 * process's cold plan takes it instead of the manifest lists and the
 * manifests' records, with the same splits, order and counts as a plan
 * that decoded the manifests; a plan pruning by statistics never takes
 * the light one (fails when ts_live_set_read or its caller is made to
 * give light sets to every plan: checked); torn records are rejected and
 * written again; a re-created table (same snapshot ids, other manifest
 * lists) never takes the old table's.
 */
static void
test_live_set_plans(void **state)
{
	pred_table	t;
	const char *path;
	const char *mdir;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_manifest_cache_stats s0,
				s;
	ts_plan    *plan;
	int64_t		read;

	(void) state;
	pred_table_init(&t, "liveset");
	path = t.path;
	mdir = t.mdir;
	ctx = t.ctx;
	/* filled from the manifests: the live set stored, as the light kind this plan reads */
	s0 = ts_manifest_cache_get_stats();
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	assert_int_equal(s.live_hits - s0.live_hits, 0);

	/* a new process: one record, no manifest list or manifest read */
	plan_from_live_record(&ctx, &t, false);
	/*
	 * a pooled plan (as in the server): the record decoded in the fill's
	 * arena, which the entry cache takes over with the record's array of
	 * entries as its live set and split order; then its hit
	 */
	plan_from_live_record(&ctx, &t, true);
	/*
	 * the live set's record damaged (its last byte): rejected, the fill's
	 * arena emptied of it, the set read from the manifests' records into
	 * that arena and written again; its name computed once for the read
	 * of both kinds and the store
	 */
	gen_sh("for f in $(grep -l TSLIV %s/*.tsm); do printf '\\377' | "
		   "dd of=$f bs=1 seek=$(($(stat -c %%s $f) - 1)) conv=notrunc 2>/dev/null; done", t.mdir);
	ts_scan_cache_clear();
	s0 = ts_manifest_cache_get_stats();
	plan = plan_pooled(&ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	assert_int_equal(s.rejected - s0.rejected, 1);
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	assert_int_equal(s.live_names - s0.live_names, 2);	/* light, whole; the light one stored */
	plan = plan_pooled(&ctx);
	assert_true(plan->metrics.cache_hit);
	same_as(plan, t.ref_all, t.want_all);
	plan_from_live_record(&ctx, &t, true);	/* the record written again */

	/*
	 * a predicate next: neither the light set the entry cache holds nor the
	 * light record: the manifests' whole records, then the whole live set stored
	 */
	s0 = ts_manifest_cache_get_stats();
	plan = plan_id_ge(path, 40);
	read = plan->metrics.manifests_read;
	same_as(plan, t.ref_pred, t.want_pred);	/* the same files pruned by statistics */
	assert_int_equal(read, 4);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	assert_int_equal(s.light_hits - s0.light_hits, 0);
	assert_int_equal(s.hits - s0.hits, 4);
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	/* a new process's first plan with a predicate: the whole set */
	ts_scan_cache_clear();
	s0 = s;
	plan = plan_id_ge(path, 40);
	assert_int_equal(plan->metrics.manifests_read, 0);
	same_as(plan, t.ref_pred, t.want_pred);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 1);

	/* every record torn: rejected, never used, the live set written again */
	gen_sh("for f in %s/*.tsm; do printf xx > $f; done", mdir);
	ts_scan_cache_clear();
	s0 = ts_manifest_cache_get_stats();
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	assert_true(s.rejected - s0.rejected >= 2);
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	ts_scan_cache_clear();
	s0 = s;
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->metrics.manifests_read, 0);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 1);
	/* the whole kind, torn and removed above, is written by the next predicate plan */
	ts_scan_cache_clear();
	s0 = s;
	plan = plan_id_ge(path, 40);
	same_as(plan, t.ref_pred, t.want_pred);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	ts_scan_cache_clear();
	s0 = s;
	plan = plan_id_ge(path, 40);
	same_as(plan, t.ref_pred, t.want_pred);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 1);

	/* the table re-created (same snapshot ids, other lists): not the old set */
	free(t.want_all);
	ts_plan_free(t.ref_all);
	gen_sh("rm -rf %s", path);
	path = gen_table("db.db/liveset", "--column id:INT --column name:STRING --column p:INT "
					 "--partition p --buckets 2 --bucket-key id --rows 24 --snapshots 4");
	ts_mcache_configure(NULL, 0, NULL);
	ts_scan_cache_clear();
	scan_ctx_init(&ctx, path, NULL, 0);
	t.ref_all = scan_plan_ok(&ctx);
	t.want_all = plan_text(t.ref_all);
	assert_true(ts_mcache_configure(mdir, 16 << 20, &err));
	ts_scan_cache_clear();
	s0 = ts_manifest_cache_get_stats();
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->metrics.manifests_read, 4);
	same_as(plan, t.ref_all, t.want_all);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 0);

	pred_table_done(&t);
}

/* A manifest entry naming a file outside its bucket directory: an error once read, not a path. */
static void
test_damaged_name_refused_when_read(void **state)
{
	const char *path = gen_table("db.db/damaged", "--column id:INT --rows 5 --snapshots 2");
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	ts_manifest_entry *e;
	ts_split_reader *r;
	ts_batch	batch;

	(void) state;
	scan_ctx_init(&ctx, path, NULL, 0);
	ctx.no_cache = true;		/* the plan's own entries, changed below */
	plan = scan_plan_ok(&ctx);
	assert_int_equal(plan->nsplits, 1);
	assert_int_equal(plan->splits[0].nfiles, 2);
	e = (ts_manifest_entry *) plan->splits[0].files[1].entry;
	e->file.file_name = "../../escape.parquet";
	/* the split's reader is refused, naming the table and the name */
	r = ts_split_reader_open(plan, &plan->splits[0], NULL, 0, &err);
	if (r != NULL)
	{
		while (ts_split_reader_next(r, &batch, &err) > 0)
			;
		ts_split_reader_close(r);
	}
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "invalid data file name \"../../escape.parquet\""));
	assert_non_null(strstr(err.msg, path));
	assert_null(plan->splits[0].files[1].built_path);
	memset(&err, 0, sizeof(err));
	assert_null(ts_scan_file_path(plan, &plan->splits[0].files[1], &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_plan_free(plan);
}

static void *
count_alloc(size_t n)
{
	size_t	   *p = malloc(n + 16);

	if (p == NULL)
		return NULL;
	*p = n;
	alloc_live++;
	return (char *) p + 16;
}

static void
count_free(void *p)
{
	if (p == NULL)
		return;
	alloc_live--;
	free((char *) p - 16);
}

static void
test_own_allocator(void **state)
{
	const char *path = gen_table("db.db/al", "--column id:INT --rows 5 --snapshots 2");
	ts_scan_context ctx;
	ts_plan    *p;

	(void) state;
	cache_reset(64 << 20);
	ts_scan_cache_set_alloc(count_alloc, count_free);
	scan_ctx_init(&ctx, path, NULL, 0);
	ts_plan_free(scan_plan_ok(&ctx));
	assert_int_equal(alloc_live, 1);	/* per cached snapshot: its block (plans build the paths) */
	p = scan_plan_ok(&ctx);
	assert_true(p->metrics.cache_hit);
	ts_plan_free(p);
	ts_scan_cache_clear();
	assert_int_equal(alloc_live, 0);
	ts_plan_free(scan_plan_ok(&ctx));
	ts_scan_cache_set_alloc(NULL, NULL);	/* clears with the old allocator */
	assert_int_equal(alloc_live, 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_miss),
		cmocka_unit_test(test_pinned_entries),
		cmocka_unit_test(test_owned_fill),
		cmocka_unit_test(test_new_snapshot_seen),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_inferred_bucket_rescaled),
		cmocka_unit_test(test_real_tables_identical),
		cmocka_unit_test(test_own_allocator),
		cmocka_unit_test(test_paths_built_when_opened),
		cmocka_unit_test(test_damaged_name_refused_when_read),
		cmocka_unit_test(test_stats_never_from_light),
		cmocka_unit_test(test_live_set_plans),
		cmocka_unit_test(test_live_set_shared),
	};
	int			rc;

	(void) argc;
	rc = gen_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
	ts_scan_cache_set_limit(0);
	return rc;
}
