/*
 * fuzz_rest.c - libFuzzer harness for the REST catalog answers the client
 * parses (src/scan/rest_catalog.c): a GetTableResponse turned into a
 * schema file's JSON (then parsed as a schema), a paged name list, and a
 * ListPartitionsResponse.
 * The first input byte picks the parser.
 */
#include <stdlib.h>
#include <string.h>

#include "base/ts_fs.h"
#include "meta/schema.h"
#include "scan/ts_rest.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *body;
	ts_err		err = {0};

	if (size < 1)
		return 0;
	body = malloc(size);
	memcpy(body, data + 1, size - 1);
	body[size - 1] = '\0';
	if (data[0] & 1)
	{
		ts_rest_table t;

		if (ts_rest_parse_table("GET t", body, &t, &err))
		{
			ts_schema  *s = ts_schema_parse(t.schema_json, strlen(t.schema_json), "fuzz", &err);

			ts_schema_free(s);
			ts_rest_table_free(&t);
		}
	}
	else if (data[0] & 2)
	{
		ts_rest_partition *parts;
		int			n;
		char	   *next;

		if (ts_rest_parse_partitions("GET p", body, &parts, &n, &next, &err))
		{
			ts_rest_partitions_free(parts, n);
			ts_free(next);
		}
	}
	else
	{
		char	  **names;
		int			n;
		char	   *next;

		if (ts_rest_parse_names("GET d", body, "tables", &names, &n, &next, &err))
		{
			ts_free_names(names, n);
			ts_free(next);
		}
	}
	free(body);
	return 0;
}
