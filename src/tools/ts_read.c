/*
 * ts_read.c - plan and read a Paimon table without a server, printing rows.
 *
 * USAGE
 *   ts_read <table_path> [-o key=value]... [-c column]... [--files]
 *
 * Prints one line per row, values separated by " | " (ts_value_to_string),
 * or with --files the planned data files.  -c accepts the system columns
 * _ROW_ID and _SEQUENCE_NUMBER of row-tracking tables.  For debugging, benchmarks and
 * comparing against the FDW.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ts_tool_read.h"

/* what print_batch needs */
typedef struct print_ctx
{
	const ts_plan *plan;
	const int  *cols;
	int			ncols;
} print_ctx;

/* One line per row, values separated by " | ". */
static void
print_batch(const ts_batch *b, void *arg)
{
	const print_ctx *pc = arg;

	for (int row = 0; row < b->nrows; row++)
	{
		for (int c = 0; c < pc->ncols; c++)
		{
			char	   *t = ts_value_to_string(ts_batch_at(b, row, c),
											   tool_column_type(pc->plan, pc->cols[c]));

			printf("%s%s", c ? " | " : "", t ? t : "?");
			ts_free(t);
		}
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	ts_option	opts[64];
	int			nopts = 0;
	const char *colnames[256];
	int			ncolnames = 0;
	bool		files = false;
	const char *path = NULL;
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	int		   *cols;
	int			ncols;
	int64_t		rows = 0;
	print_ctx	pc;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc && nopts < 64)
		{
			char	   *kv = strdup(argv[++i]);
			char	   *eq = strchr(kv, '=');

			if (!eq)
			{
				fprintf(stderr, "bad option %s\n", kv);
				return 2;
			}
			*eq = '\0';
			opts[nopts].key = kv;
			opts[nopts].value = eq + 1;
			nopts++;
		}
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && ncolnames < 256)
			colnames[ncolnames++] = argv[++i];
		else if (strcmp(argv[i], "--files") == 0)
			files = true;
		else if (path == NULL)
			path = argv[i];
		else
		{
			fprintf(stderr, "usage: ts_read <table_path> [-o key=value]... [-c column]... [--files]\n");
			return 2;
		}
	}
	if (path == NULL)
	{
		fprintf(stderr, "usage: ts_read <table_path> [-o key=value]... [-c column]... [--files]\n");
		return 2;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = path;
	ctx.options = opts;
	ctx.noptions = nopts;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL)
	{
		fprintf(stderr, "ERROR: %s\n", err.msg);
		return 1;
	}
	if (files)
	{
		for (int s = 0; s < plan->nsplits; s++)
			for (int f = 0; f < plan->splits[s].nfiles; f++)
				printf("bucket=%d level=%d rows=%lld %s\n", plan->splits[s].bucket,
					   plan->splits[s].files[f].entry->file.level,
					   (long long) plan->splits[s].files[f].entry->file.row_count,
					   ts_scan_file_label(plan, &plan->splits[s].files[f]));
		ts_plan_free(plan);
		return 0;
	}
	cols = tool_read_columns(plan, colnames, ncolnames, &ncols);
	if (cols == NULL)
		return 1;
	pc.plan = plan;
	pc.cols = cols;
	pc.ncols = ncols;
	if (!tool_read_all(plan, cols, ncols, print_batch, &pc, &rows))
		return 1;
	fprintf(stderr, "%lld rows\n", (long long) rows);
	free(cols);
	ts_plan_free(plan);
	return 0;
}
