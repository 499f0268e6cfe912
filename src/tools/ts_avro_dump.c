/*
 * ts_avro_dump.c - print an Avro object container file (debugging aid).
 *
 * USAGE
 *   ts_avro_dump [--schema] <file.avro> [column ...]
 *
 * Prints the codec and, with --schema, the writer schema JSON; then every
 * row, one line each, "col=value" for the requested top-level columns (all
 * by default), rendered with ts_value_to_string under the Paimon type each
 * Avro field stands for (ts_avro_node_to_paimon).  Exit status 1 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_schema.h"

int
main(int argc, char **argv)
{
	ts_err		err;
	ts_avro_container *c;
	const ts_avro_node *rec;
	int			nb;
	bool		show_schema = false;
	int			argi = 1;
	const char *path;
	ts_read_column *cols;
	ts_type   **types;
	int			ncols = 0;
	ts_format_reader *r;
	ts_reader_options opts = {0};
	ts_batch	b;
	int			n;
	int64_t		total = 0;

	if (argi < argc && strcmp(argv[argi], "--schema") == 0)
	{
		show_schema = true;
		argi++;
	}
	if (argi >= argc)
	{
		fprintf(stderr, "usage: ts_avro_dump [--schema] <file.avro> [column ...]\n");
		return 2;
	}
	path = argv[argi++];
	c = ts_avro_container_open(ts_fs_local_unconfined(), path, &err);
	if (c == NULL)
	{
		fprintf(stderr, "ts_avro_dump: %s\n", err.msg);
		return 1;
	}
	printf("codec: %s\n", ts_avro_codec_name(c->codec));
	if (show_schema)
		printf("schema: %s\n", c->schema_json);
	rec = ts_avro_unwrap_nullable(c->schema->root, &nb);
	if (rec == NULL || rec->kind != TS_AVRO_RECORD)
	{
		fprintf(stderr, "ts_avro_dump: top level is not a record\n");
		return 1;
	}
	cols = calloc((size_t) rec->nchildren + argc, sizeof(ts_read_column));
	types = calloc((size_t) rec->nchildren + argc, sizeof(ts_type *));
	for (int i = 0; i < rec->nchildren; i++)
	{
		bool		want = argi >= argc;

		for (int k = argi; k < argc; k++)
			if (strcmp(argv[k], rec->field_names[i]) == 0)
				want = true;
		if (!want)
			continue;
		types[ncols] = ts_avro_node_to_paimon(rec->children[i], &err);
		if (types[ncols] == NULL)
		{
			fprintf(stderr, "ts_avro_dump: field %s: %s\n", rec->field_names[i], err.msg);
			return 1;
		}
		cols[ncols].field_id = -1;
		cols[ncols].name = rec->field_names[i];
		cols[ncols].type = types[ncols];
		ncols++;
	}
	opts.fs = ts_fs_local_unconfined();
	r = ts_avro_open(path, cols, ncols, &opts, &err);
	if (r == NULL)
	{
		fprintf(stderr, "ts_avro_dump: %s\n", err.msg);
		return 1;
	}
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		for (int i = 0; i < n; i++)
		{
			for (int k = 0; k < ncols; k++)
			{
				char	   *s = ts_value_to_string(ts_batch_at(&b, i, k), types[k]);

				printf("%s%s=%s", k ? " " : "", cols[k].name, s ? s : "?");
				ts_free(s);
			}
			printf("\n");
		}
		total += n;
	}
	if (n < 0)
	{
		fprintf(stderr, "ts_avro_dump: %s\n", err.msg);
		return 1;
	}
	printf("rows: %lld, blocks: %d\n", (long long) total, (int) r->metrics.row_groups_total);
	ts_format_close(r);
	for (int k = 0; k < ncols; k++)
		ts_avro_type_free(types[k]);
	free(types);
	free(cols);
	ts_avro_container_close(c);
	return 0;
}
