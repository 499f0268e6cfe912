/*
 * ts_scan_bench.c - plan and read a Paimon table without a server and without
 * printing: the target for profilers (valgrind --tool=callgrind, perf) and a
 * server-free throughput figure.
 *
 * USAGE
 *   ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--metadata-cache DIR] [--pool] [--ahead | --ahead-next]
 *
 * Reads every split with ts_split_reader (all columns, or the -c ones) and
 * folds each value into a checksum so that nothing is optimized away; prints
 * rows, checksum, planning and reading seconds.  --plan-only N plans the
 * table N times and reads nothing.  --cache MB turns the live
 * manifest-entry cache on (off by default): the first plan fills it, the
 * others hit it; --plan-only then prints the first (cold) plan's time and
 * the mean of the others (warm) apart.  --pool plans with pooled arena
 * chunks (chunk_pool.c), as the FDW does.  --ahead decompresses the next
 * Parquet row group in the helper thread (base/background.c), as the FDW
 * does with tablescan.decompress_ahead on, and prints the pages it did;
 * --ahead has it on throughout, split readers opened with it on, as the FDW
 * does (scan_rows.c); --ahead-next only around ts_split_reader_next, as the
 * FDW did before session 28 (a merge's open then queued nothing).
 * A table_path that is an s3:// URI is read from the object store named by
 * TS_S3_ENDPOINT (path style), with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
 * / AWS_REGION, the CA file TS_S3_CA_FILE and TS_S3_MAX_IN_FLIGHT (requests
 * at once, as tablescan.s3_max_in_flight; default 64); the requests sent are printed
 * with the round trips (a request alone or a concurrent batch counts one)
 * (bench/s3.sh, test/s3/tls.sh).  --metadata-cache DIR reads and fills the
 * on-disk metadata cache there (256 MB), as tablescan.metadata_cache_dir:
 * object store metadata, and decoded manifests of any table
 * (bench/plan_cache.sh).  With --plan-only, the first plan's CPU time
 * (user + system, page faults included) and minor page faults are printed
 * too: on a loaded machine they vary far less than its wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/ts_background.h"
#include "base/ts_meta_cache.h"
#include "base/ts_s3.h"
#include "format/parquet/pq_internal.h"	/* pq_ahead_pages_taken */
#include "tools/ts_tool_read.h"

/* what fold_batch needs, and the checksum it folds */
typedef struct fold_ctx
{
	const ts_plan *plan;
	const int  *cols;
	int			ncols;
	uint64_t	sum;
} fold_ctx;

/* Fold every value of the batch into the checksum. */
static void
fold_batch(const ts_batch *b, void *arg)
{
	fold_ctx   *fc = arg;

	for (int row = 0; row < b->nrows; row++)
		for (int c = 0; c < fc->ncols; c++)
		{
			const ts_value *v = ts_batch_at(b, row, c);
			ts_type_kind k = tool_column_type(fc->plan, fc->cols[c])->kind;
			uint64_t	x;

			if (v->isnull)
				x = 1;
			else if (ts_type_is_bytes(k))
				x = v->v.s.len ? v->v.s.len * 257 + v->v.s.p[v->v.s.len - 1] : 0;
			else if (k == TS_FLOAT)
				x = (uint64_t) (v->v.f * 4);
			else if (ts_type_is_nested(k))
				x = (uint64_t) v->v.nested.n;	/* not the padding after n */
			else
				memcpy(&x, &v->v, sizeof(x));	/* i, d, ts.millis, low half of dec */
			fc->sum = fc->sum * 31 + x;
		}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* ts_scan_plan, optionally with the plan's arena in the chunk pool */
static ts_plan *
plan_once(const ts_scan_context *ctx, bool pool, ts_err *err)
{
	ts_plan    *plan = ts_scan_prepare(ctx, err);

	if (plan == NULL)
		return NULL;
	ts_arena_set_pooled(&plan->arena, pool);
	if (!ts_scan_execute(plan, ctx, err))
	{
		ts_plan_free(plan);
		return NULL;
	}
	return plan;
}

int
main(int argc, char **argv)
{
	const char *colnames[256];
	int			ncolnames = 0;
	int			plan_only = 0;
	bool		pool = false;
	int			cache_mb = 0;
	const char *metadata_cache = NULL;
	double		first_ms = 0;
	const char *path = NULL;
	ts_scan_context ctx;
	ts_s3_config s3 = {0};
	ts_err		err = {0};
	ts_plan    *plan;
	int		   *cols;
	int			ncols;
	int64_t		rows = 0;
	uint64_t	sum = 0;
	fold_ctx	fc = {0};
	struct rusage ru0,
				ru1;
	double		t0,
				t1,
				t2;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && ncolnames < 256)
			colnames[ncolnames++] = argv[++i];
		else if (strcmp(argv[i], "--plan-only") == 0 && i + 1 < argc)
			plan_only = atoi(argv[++i]);
		else if (strcmp(argv[i], "--pool") == 0)
			pool = true;
		else if (strcmp(argv[i], "--ahead") == 0)
			ts_bg_set_enabled(true);
		else if (strcmp(argv[i], "--ahead-next") == 0)
		{
			ts_bg_set_enabled(true);
			tool_ahead_next_only = true;
		}
		else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
			cache_mb = atoi(argv[++i]);
		else if (strcmp(argv[i], "--metadata-cache") == 0 && i + 1 < argc)
			metadata_cache = argv[++i];
		else if (path == NULL)
			path = argv[i];
		else
		{
			fprintf(stderr, "usage: ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--metadata-cache DIR] [--pool] [--ahead | --ahead-next]\n");
			return 2;
		}
	}
	if (path == NULL)
	{
		fprintf(stderr, "usage: ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--metadata-cache DIR] [--pool] [--ahead | --ahead-next]\n");
		return 2;
	}
	memset(&ctx, 0, sizeof(ctx));
	if (ts_uri_is_object(path))
	{
		s3.endpoint = getenv("TS_S3_ENDPOINT");
		s3.path_style = true;
		s3.region = getenv("AWS_REGION");
		s3.access_key = getenv("AWS_ACCESS_KEY_ID");
		s3.secret_key = getenv("AWS_SECRET_ACCESS_KEY");
		s3.ca_file = getenv("TS_S3_CA_FILE");
		s3.max_in_flight = getenv("TS_S3_MAX_IN_FLIGHT") ? atoi(getenv("TS_S3_MAX_IN_FLIGHT")) : 0;
		ctx.s3 = &s3;			/* the plan's file system reads with them */
	}
	/* object store metadata and decoded manifests (local tables too) */
	if (metadata_cache && !ts_mcache_configure(metadata_cache, (int64_t) 256 << 20, &err))
	{
		fprintf(stderr, "ERROR: %s\n", err.msg);
		return 1;
	}
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ts_scan_cache_set_limit((size_t) cache_mb << 20);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_s();
	for (int k = 1; k < plan_only; k++)
	{
		plan = plan_once(&ctx, pool, &err);
		if (plan == NULL)
		{
			fprintf(stderr, "ERROR: %s\n", err.msg);
			return 1;
		}
		ts_plan_free(plan);
		if (k == 1)
		{
			first_ms = (now_s() - t0) * 1000;
			getrusage(RUSAGE_SELF, &ru1);
		}
	}
	plan = plan_once(&ctx, pool, &err);
	if (plan == NULL)
	{
		fprintf(stderr, "ERROR: %s\n", err.msg);
		return 1;
	}
	t1 = now_s();
	if (plan_only == 1)
		getrusage(RUSAGE_SELF, &ru1);
	if (plan_only > 0)
	{
		printf("first plan: CPU %.3f ms, %ld minor page faults\n",
			   (tv_s(ru1.ru_utime) + tv_s(ru1.ru_stime) - tv_s(ru0.ru_utime) - tv_s(ru0.ru_stime)) * 1000,
			   ru1.ru_minflt - ru0.ru_minflt);
		if (cache_mb > 0 && plan_only > 1)
			printf("planned %d time(s): first (cold, fills the cache) %.3f ms, then (warm) %.3f ms each, %d split(s)\n",
				   plan_only, first_ms, ((t1 - t0) * 1000 - first_ms) / (plan_only - 1), plan->nsplits);
		else
			printf("planned %d time(s): %.3f ms each, %d split(s)\n", plan_only,
				   (t1 - t0) * 1000 / plan_only, plan->nsplits);
		if (ts_uri_is_object(path))
			printf("object store requests: %lld, round trips: %lld\n", (long long) ts_s3_request_count(),
				   (long long) ts_s3_round_trip_count());
		if (ts_mcache_enabled())
			printf("metadata cache: %lld hit(s), %lld stored\n",
				   (long long) ts_mcache_get_stats().hits, (long long) ts_mcache_get_stats().stores);
		ts_plan_free(plan);
		return 0;
	}
	cols = tool_read_columns(plan, colnames, ncolnames, &ncols);
	if (cols == NULL)
		return 1;
	fc.plan = plan;
	fc.cols = cols;
	fc.ncols = ncols;
	if (!tool_read_all(plan, cols, ncols, fold_batch, &fc, &rows))
		return 1;
	sum = fc.sum;
	t2 = now_s();
	printf("%lld rows, %d column(s), checksum %016llx, plan %.3f s, read %.3f s (%.0f rows/s)\n",
		   (long long) rows, ncols, (unsigned long long) sum, t1 - t0, t2 - t1,
		   rows / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
	if (ts_bg_enabled())
		printf("pages decompressed ahead: %lld (Parquet pages taken: %lld), taken back: %lld\n",
			   (long long) ts_bg_jobs_done(), (long long) pq_ahead_pages_taken(),
			   (long long) ts_bg_jobs_taken_back());
	if (ts_uri_is_object(path))
		printf("object store requests: %lld, round trips: %lld\n", (long long) ts_s3_request_count(),
				   (long long) ts_s3_round_trip_count());
	free(cols);
	ts_plan_free(plan);
	return 0;
}
