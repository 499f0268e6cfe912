/*
 * scan_plan.h - the scan context and the planning step shared by the unit
 * tests that plan tables: a context over a table directory with pruning on
 * and no limit, and a plan that fails the test (naming the table and the
 * error) instead of returning NULL.
 */
#ifndef TEST_SCAN_PLAN_H
#define TEST_SCAN_PLAN_H

#include "unit.h"

#include <string.h>

#include "scan/scan.h"

static inline void
scan_ctx_init(ts_scan_context *ctx, const char *path, ts_option *opts, int nopts)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->table_path = path;
	ctx->limit = -1;
	ctx->enable_pruning = true;
	ctx->options = opts;
	ctx->noptions = nopts;
}

static inline ts_plan *
scan_plan_ok(const ts_scan_context *ctx)
{
	ts_err		err = {0};
	ts_plan    *plan = ts_scan_plan(ctx, &err);

	if (plan == NULL)
		fail_msg("planning %s failed: %s", ctx->table_path, err.msg);
	return plan;
}

#endif							/* TEST_SCAN_PLAN_H */
