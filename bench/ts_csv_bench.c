/*
 * ts_csv_bench.c - write the CSV benchmark file, and read a CSV file with
 * the core library's CSV reader without a server: the target for profilers
 * and the server-free MB/s figure of bench/csv.sh.
 *
 * USAGE
 *   ts_csv_bench gen ROWS FILE      write ROWS rows of the benchmark shape
 *   ts_csv_bench read FILE [START END] [key=value]...
 *   ts_csv_bench starts FILE NPARTS
 *
 * A FILE whose name ends in ".json" is JSON lines (one object per row, the
 * same columns as keys, a NULL as null) written by gen and read by the
 * JSON reader; one ending in ".txt" holds the CSV lines, read by the TEXT
 * reader as one STRING column "line"; any other name is CSV.
 *
 * The shape: id INT, big BIGINT, amount DECIMAL(18,4), s STRING, day DATE,
 * ts TIMESTAMP(6); every seventh value of a column but id is empty (NULL).
 * read folds every value into a checksum (so nothing is optimized away)
 * and prints rows, checksum, seconds and MB/s; START END read that byte
 * range as a parallel task would (a CSV part starts at a record); key=value
 * pairs are CSV options.  starts times the pass that finds where a parallel
 * scan may cut the file into NPARTS parts (ts_csv_part_starts, the first
 * call of the process: nothing cached) and prints the parts, seconds and
 * MB/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/format.h"

#define NCOLS 6

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool
ends_with(const char *path, const char *suffix)
{
	size_t		n = strlen(path),
				k = strlen(suffix);

	return n > k && strcmp(path + n - k, suffix) == 0;
}

static bool
is_json(const char *path)
{
	return ends_with(path, ".json");
}

/* one row as a JSON object: the CSV row's values, strings quoted, NULL as null */
static void
gen_json_row(FILE *f, long i, int y, int m, int d)
{
	fprintf(f, "{\"id\":%ld,\"big\":", i);
	if (i % 7 != 1)
		fprintf(f, "%lld", (long long) i * 1000000007LL);
	else
		fputs("null", f);
	fputs(",\"amount\":", f);
	if (i % 7 != 2)
		fprintf(f, "%ld.%04ld", i / 100, (i * 37) % 10000);
	else
		fputs("null", f);
	fputs(",\"s\":", f);
	if (i % 7 != 3)
		fprintf(f, "\"name_%ld_%s\"", i, (i & 1) ? "odd" : "even value");
	else
		fputs("null", f);
	fputs(",\"day\":", f);
	if (i % 7 != 4)
		fprintf(f, "\"%04d-%02d-%02d\"", y, m, d);
	else
		fputs("null", f);
	fputs(",\"ts\":", f);
	if (i % 7 != 5)
		fprintf(f, "\"%04d-%02d-%02d %02ld:%02ld:%02ld.%06ld\"", y, m, d, (i / 3600) % 24,
				(i / 60) % 60, i % 60, (i * 7919) % 1000000);
	else
		fputs("null", f);
	fputs("}\n", f);
}

static int
gen(long rows, const char *path)
{
	FILE	   *f = fopen(path, "w");
	static char buf[1 << 20];

	if (f == NULL)
	{
		perror(path);
		return 1;
	}
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	for (long i = 0; i < rows; i++)
	{
		long		day = i % 20000;
		int			y = 1990 + (int) (day / 366),
					m = 1 + (int) (day % 12),
					d = 1 + (int) (day % 28);

		if (is_json(path))
		{
			gen_json_row(f, i, y, m, d);
			continue;
		}
		fprintf(f, "%ld,", i);
		if (i % 7 != 1)
			fprintf(f, "%lld", (long long) i * 1000000007LL);
		fputc(',', f);
		if (i % 7 != 2)
			fprintf(f, "%ld.%04ld", i / 100, (i * 37) % 10000);
		fputc(',', f);
		if (i % 7 != 3)
			fprintf(f, "name_%ld_%s", i, (i & 1) ? "odd" : "even value");
		fputc(',', f);
		if (i % 7 != 4)
			fprintf(f, "%04d-%02d-%02d", y, m, d);
		fputc(',', f);
		if (i % 7 != 5)
			fprintf(f, "%04d-%02d-%02d %02ld:%02ld:%02ld.%06ld", y, m, d, (i / 3600) % 24,
					(i / 60) % 60, i % 60, (i * 7919) % 1000000);
		fputc('\n', f);
	}
	return fclose(f) == 0 ? 0 : 1;
}

static int
read_file(const char *path, int argc, char **argv)
{
	ts_type    *types[NCOLS];
	static const ts_type_kind row_kinds[NCOLS] = {TS_INT, TS_BIGINT, TS_DECIMAL, TS_VARCHAR, TS_DATE, TS_TIMESTAMP};
	static const char *const row_names[NCOLS] = {"id", "big", "amount", "s", "day", "ts"};
	static const ts_type_kind line_kinds[1] = {TS_VARCHAR};
	static const char *const line_names[1] = {"line"};
	bool		text = ends_with(path, ".txt");
	const ts_type_kind *kinds = text ? line_kinds : row_kinds;
	const char *const *names = text ? line_names : row_names;
	int			ncols = text ? 1 : NCOLS;
	ts_read_column cols[NCOLS];
	ts_reader_options opts;
	const char *keys[32],
			   *values[32];
	int			nopt = 0;
	ts_err		err;
	ts_format_reader *r;
	ts_batch	batch;
	long		rows = 0;
	unsigned long long sum = 0;
	double		t0;
	int			n;
	FILE	   *f;
	long		size;

	memset(&opts, 0, sizeof(opts));
	opts.fs = ts_fs_local_unconfined();
	memset(&err, 0, sizeof(err));
	if (argc >= 2 && strchr(argv[0], '=') == NULL)
	{
		opts.range_start = atoll(argv[0]);
		opts.range_end = atoll(argv[1]);
		argc -= 2;
		argv += 2;
	}
	for (int i = 0; i < argc && nopt < 32; i++)
	{
		char	   *eq = strchr(argv[i], '=');

		if (eq == NULL)
			continue;
		*eq = '\0';
		keys[nopt] = argv[i];
		values[nopt++] = eq + 1;
	}
	opts.ntext_options = nopt;
	opts.text_option_keys = keys;
	opts.text_option_values = values;
	for (int c = 0; c < ncols; c++)
	{
		types[c] = ts_type_new(kinds[c], true);
		if (kinds[c] == TS_DECIMAL)
		{
			types[c]->precision = 18;
			types[c]->scale = 4;
		}
		if (kinds[c] == TS_TIMESTAMP)
			types[c]->precision = 6;
		cols[c].field_id = c;
		cols[c].name = names[c];
		cols[c].type = types[c];
	}
	f = fopen(path, "r");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0)
	{
		perror(path);
		return 1;
	}
	size = ftell(f);
	fclose(f);
	t0 = now();
	r = text ? ts_text_open(path, cols, ncols, &opts, &err)
		: is_json(path) ? ts_json_open(path, cols, ncols, &opts, &err)
		: ts_csv_open(path, cols, ncols, &opts, &err);
	if (r == NULL)
	{
		fprintf(stderr, "ts_csv_bench: %s\n", err.msg);
		return 1;
	}
	while ((n = r->ops->next(r, &batch, &err)) > 0)
	{
		for (int i = 0; i < n * ncols; i++)
		{
			const ts_value *v = &batch.values[i];

			if (v->isnull)
				continue;
			switch (kinds[i % ncols])
			{
				case TS_VARCHAR:
					sum += v->v.s.len + (v->v.s.len ? v->v.s.p[0] : 0);
					break;
				case TS_DECIMAL:
					sum += (unsigned long long) v->v.dec;
					break;
				case TS_TIMESTAMP:
					sum += (unsigned long long) v->v.ts.millis + (unsigned) v->v.ts.nanos;
					break;
				default:
					sum += (unsigned long long) v->v.i;
			}
		}
		rows += n;
	}
	if (n < 0)
	{
		fprintf(stderr, "ts_csv_bench: %s\n", err.msg);
		return 1;
	}
	r->ops->close(r);
	{
		double		s = now() - t0;
		long		bytes = opts.range_end > 0 ? (opts.range_end < size ? opts.range_end : size) - opts.range_start : size;

		printf("rows %ld checksum %llu seconds %.3f MB/s %.1f\n", rows, sum, s, bytes / 1e6 / s);
	}
	return 0;
}

static int
part_starts(const char *path, int nparts)
{
	int64_t    *starts = calloc(nparts > 0 ? nparts : 1, sizeof(int64_t));
	ts_err		err;
	double		t0;
	int			n;
	FILE	   *f = fopen(path, "r");
	long		size;
	ts_reader_options local_only = {.fs = ts_fs_local_unconfined()};

	memset(&err, 0, sizeof(err));
	if (starts == NULL || f == NULL || fseek(f, 0, SEEK_END) != 0)
	{
		perror(path);
		return 1;
	}
	size = ftell(f);
	fclose(f);
	t0 = now();
	n = ts_csv_part_starts(path, &local_only, nparts, starts, &err);
	if (n < 0)
	{
		fprintf(stderr, "ts_csv_bench: %s\n", err.msg);
		return 1;
	}
	{
		double		s = now() - t0;

		printf("parts %d seconds %.3f MB/s %.1f\n", n, s, size / 1e6 / s);
	}
	free(starts);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "gen") == 0)
		return gen(atol(argv[2]), argv[3]);
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return read_file(argv[2], argc - 3, argv + 3);
	if (argc == 4 && strcmp(argv[1], "starts") == 0)
		return part_starts(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: ts_csv_bench gen ROWS FILE | read FILE [START END] [key=value]... | starts FILE NPARTS\n");
	return 2;
}
