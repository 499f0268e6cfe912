/*
 * ts_scan_bench.c - plan and read a Paimon table without a server and without
 * printing: the target for profilers (valgrind --tool=callgrind, perf) and a
 * server-free throughput figure.
 *
 * USAGE
 *   ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--pool]
 *
 * Reads every split with ts_split_reader (all columns, or the -c ones) and
 * folds each value into a checksum so that nothing is optimized away; prints
 * rows, checksum, planning and reading seconds.  --plan-only N plans the
 * table N times and reads nothing.  --cache MB turns the live
 * manifest-entry cache on (off by default): the first plan fills it, the
 * others hit it; --plan-only then prints the first (cold) plan's time and
 * the mean of the others (warm) apart.  --pool plans with pooled arena
 * chunks (chunk_pool.c), as the FDW does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/read.h"
#include "scan/scan.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	double		first_ms = 0;
	const char *path = NULL;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	int		   *cols;
	int			ncols;
	int64_t		rows = 0;
	uint64_t	sum = 0;
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
		else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
			cache_mb = atoi(argv[++i]);
		else if (path == NULL)
			path = argv[i];
		else
		{
			fprintf(stderr, "usage: ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--pool]\n");
			return 2;
		}
	}
	if (path == NULL)
	{
		fprintf(stderr, "usage: ts_scan_bench <table_path> [-c column]... [--plan-only N] [--cache MB] [--pool]\n");
		return 2;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	ts_scan_cache_set_limit((size_t) cache_mb << 20);
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
			first_ms = (now_s() - t0) * 1000;
	}
	plan = plan_once(&ctx, pool, &err);
	if (plan == NULL)
	{
		fprintf(stderr, "ERROR: %s\n", err.msg);
		return 1;
	}
	t1 = now_s();
	if (plan_only > 0)
	{
		if (cache_mb > 0 && plan_only > 1)
			printf("planned %d time(s): first (cold, fills the cache) %.3f ms, then (warm) %.3f ms each, %d split(s)\n",
				   plan_only, first_ms, ((t1 - t0) * 1000 - first_ms) / (plan_only - 1), plan->nsplits);
		else
			printf("planned %d time(s): %.3f ms each, %d split(s)\n", plan_only,
				   (t1 - t0) * 1000 / plan_only, plan->nsplits);
		ts_plan_free(plan);
		return 0;
	}
	ncols = ncolnames ? ncolnames : plan->schema->nfields;
	cols = calloc(ncols ? ncols : 1, sizeof(int));
	for (int i = 0; i < ncols; i++)
	{
		cols[i] = ncolnames ? ts_schema_field_index(plan->schema, colnames[i]) : i;
		if (cols[i] < 0)
		{
			fprintf(stderr, "ERROR: no column %s\n", colnames[i]);
			return 1;
		}
	}
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split_reader *r = ts_split_reader_open(plan, &plan->splits[s], cols, ncols, &err);
		ts_batch	b;
		int			n;

		if (r == NULL)
		{
			fprintf(stderr, "ERROR: %s\n", err.msg);
			return 1;
		}
		while ((n = ts_split_reader_next(r, &b, &err)) > 0)
		{
			for (int row = 0; row < n; row++)
				for (int c = 0; c < ncols; c++)
				{
					const ts_value *v = ts_batch_at(&b, row, c);
					ts_type_kind k = plan->schema->fields[cols[c]].type->kind;
					uint64_t	x;

					if (v->isnull)
						x = 1;
					else if (ts_type_is_bytes(k))
						x = v->v.s.len ? v->v.s.len * 257 + v->v.s.p[v->v.s.len - 1] : 0;
					else if (k == TS_FLOAT)
						x = (uint64_t) (v->v.f * 4);
					else
						memcpy(&x, &v->v, sizeof(x));	/* i, d, ts.millis, low half of dec */
					sum = sum * 31 + x;
				}
			rows += n;
		}
		if (n < 0)
		{
			fprintf(stderr, "ERROR: %s\n", err.msg);
			return 1;
		}
		ts_split_reader_close(r);
	}
	t2 = now_s();
	printf("%lld rows, %d column(s), checksum %016llx, plan %.3f s, read %.3f s (%.0f rows/s)\n",
		   (long long) rows, ncols, (unsigned long long) sum, t1 - t0, t2 - t1,
		   rows / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
	free(cols);
	ts_plan_free(plan);
	return 0;
}
