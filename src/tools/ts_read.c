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

#include "read/read.h"
#include "scan/scan.h"

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
					   plan->splits[s].files[f].path);
		ts_plan_free(plan);
		return 0;
	}
	ncols = ncolnames ? ncolnames : plan->schema->nfields;
	cols = calloc(ncols ? ncols : 1, sizeof(int));
	for (int i = 0; i < ncols; i++)
	{
		cols[i] = ncolnames ? ts_schema_field_index(plan->schema, colnames[i]) : i;
		if (cols[i] < 0 && ts_system_column(colnames[i]))
			cols[i] = ts_system_column(colnames[i]);	/* _ROW_ID, _SEQUENCE_NUMBER */
		else if (cols[i] < 0)
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
			{
				for (int c = 0; c < ncols; c++)
				{
					const ts_type *type = cols[c] < 0 ? ts_system_column_type(cols[c]) :
						plan->schema->fields[cols[c]].type;
					char	   *t = ts_value_to_string(ts_batch_at(&b, row, c), type);

					printf("%s%s", c ? " | " : "", t ? t : "?");
					ts_free(t);
				}
				printf("\n");
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
	fprintf(stderr, "%lld rows\n", (long long) rows);
	free(cols);
	ts_plan_free(plan);
	return 0;
}
