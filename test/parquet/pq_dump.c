/*
 * pq_dump.c - print a Parquet file through ts_parquet_open as JSON lines.
 *
 * Owns: the small CLI used by test/parquet/run.sh to compare our reader
 * with DuckDB.  Usage:
 *   pq_dump FILE SPEC [--batch N] [--metrics] [--count] [--ranges K] [--ahead]
 * SPEC is a JSON array of Paimon DataFields ({"id", "name", "type"} with
 * the schema-file type grammar), or @path of a Paimon schema file / such
 * an array.  Each row is printed as a JSON array in a canonical form:
 * integers, DATE (days), TIME (millis of day), TIMESTAMP (nanoseconds since
 * the epoch) and DECIMAL (unscaled) as decimal strings; FLOAT/DOUBLE as
 * %.9g/%.17g strings; strings as JSON strings; binaries as "\\x<hex>";
 * ARRAY as arrays, MAP as arrays of [key, value], ROW as arrays.  On error
 * prints "ERROR <code> <message>" to stdout and exits 1.  --ranges K reads
 * the file as K byte ranges one after the other (as the tasks of a parallel
 * scan do): the rows must be the same, in the same order.  --ahead reads
 * ZSTD row groups ahead in the helper thread (base/background.c), as the
 * FDW does; --metrics then also prints how many pages it decompressed.
 */
#include <sys/stat.h>

#include "pq_spec.h"
#include "base/ts_background.h"

static char *
slurp(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	long		n;
	char	   *s;

	if (!f)
	{
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t) n)
		exit(2);
	s[n] = 0;
	fclose(f);
	return s;
}

int
main(int argc, char **argv)
{
	const char *spec;
	cJSON	   *j,
			   *arr;
	ts_field   *fields;
	int			n;
	ts_read_column *cols;
	ts_reader_options opts;
	ts_format_reader *r;
	ts_err		err;
	ts_batch	b;
	int			rc;
	bool		metrics = false;
	bool		count_only = false;
	int64_t		total = 0;
	int			nranges = 1;
	struct stat sb;
	int64_t		rows_read = 0,
				bytes_read = 0;
	int			rg_kept = 0,
				rg_total = 0;

	if (argc < 3)
	{
		fprintf(stderr, "usage: pq_dump FILE SPEC [--batch N] [--metrics]\n");
		return 2;
	}
	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	for (int i = 3; i < argc; i++)
	{
		if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			opts.batch_rows = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--metrics"))
			metrics = true;
		else if (!strcmp(argv[i], "--count"))
			count_only = true;
		else if (!strcmp(argv[i], "--ranges") && i + 1 < argc)
			nranges = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else if (!strcmp(argv[i], "--ahead"))
			ts_bg_set_enabled(true);
	}
	spec = argv[2][0] == '@' ? slurp(argv[2] + 1) : argv[2];
	j = cJSON_Parse(spec);
	if (!j)
	{
		fprintf(stderr, "pq_dump: bad spec JSON\n");
		return 2;
	}
	arr = cJSON_IsObject(j) ? cJSON_GetObjectItem(j, "fields") : j;
	fields = parse_fields(arr, &n);
	cols = calloc(n ? n : 1, sizeof(ts_read_column));
	for (int i = 0; i < n; i++)
	{
		cols[i].field_id = fields[i].id;
		cols[i].name = fields[i].name;
		cols[i].type = fields[i].type;
	}
	if (stat(argv[1], &sb) != 0)
	{
		printf("ERROR stat %s\n", argv[1]);
		return 1;
	}
	for (int k = 0; k < nranges; k++)
	{
		if (nranges > 1)
		{
			opts.range_start = (int64_t) sb.st_size * k / nranges;
			opts.range_end = k == nranges - 1 ? INT64_MAX : (int64_t) sb.st_size * (k + 1) / nranges;
		}
		memset(&err, 0, sizeof(err));
		r = ts_parquet_open(argv[1], cols, n, &opts, &err);
		if (!r)
		{
			printf("ERROR %d %s\n", err.code, err.msg);
			return 1;
		}
		while ((rc = ts_format_next(r, &b, &err)) > 0)
		{
			total += b.nrows;
			if (count_only)
				continue;
			for (int row = 0; row < b.nrows; row++)
			{
				fputc('[', stdout);
				for (int c = 0; c < n; c++)
				{
					if (c)
						putchar(',');
					print_value(stdout, ts_batch_at(&b, row, c), cols[c].type);
				}
				printf("]\n");
			}
		}
		if (rc < 0)
		{
			printf("ERROR %d %s\n", err.code, err.msg);
			ts_format_close(r);
			return 1;
		}
		rows_read += r->metrics.rows_read;
		bytes_read += r->metrics.bytes_read;
		rg_kept += r->metrics.row_groups_kept;
		rg_total += r->metrics.row_groups_total;
		ts_format_close(r);
	}
	if (count_only)
		printf("%lld\n", (long long) total);
	if (metrics)
		fprintf(stderr, "rows_read=%lld bytes_read=%lld row_groups=%d/%d ahead=%lld\n",
				(long long) rows_read, (long long) bytes_read, rg_kept, rg_total,
				(long long) ts_bg_jobs_done());
	cJSON_Delete(j);
	return 0;
}
