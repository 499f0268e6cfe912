/*
 * fuzz_meta.c - libFuzzer harness for the metadata decoders that take a
 * buffer: schema JSON, snapshot JSON and BinaryRow (with a fixed set of
 * field types covering every slot encoding).  The first input byte picks
 * the decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "meta/binary_row.h"
#include "meta/schema.h"
#include "meta/snapshot.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ts_type *
mk(ts_type_kind k, int p, int s)
{
	ts_type    *t = ts_type_new(k, true);

	t->precision = p;
	t->scale = s;
	t->length = TS_STRING_LENGTH;
	return t;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ts_err		err;
	char	   *text;

	if (size < 1)
		return 0;
	memset(&err, 0, sizeof(err));
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3)
	{
		case 0:
			{
				ts_schema  *s = ts_schema_parse(text, size - 1, "fuzz", &err);

				if (s)
					ts_schema_free(s);
				break;
			}
		case 1:
			{
				ts_snapshot *s = ts_snapshot_parse(text, size - 1, "fuzz", &err);

				if (s)
					ts_snapshot_free(s);
				break;
			}
		case 2:
			{
				static const ts_type *types[10];
				static bool init = false;
				ts_value	out[10];
				ts_arena	arena;

				if (!init)
				{
					types[0] = mk(TS_BOOLEAN, 0, 0);
					types[1] = mk(TS_INT, 0, 0);
					types[2] = mk(TS_BIGINT, 0, 0);
					types[3] = mk(TS_VARCHAR, 0, 0);
					types[4] = mk(TS_DECIMAL, 10, 2);
					types[5] = mk(TS_DECIMAL, 30, 5);
					types[6] = mk(TS_TIMESTAMP, 3, 0);
					types[7] = mk(TS_TIMESTAMP, 9, 0);
					types[8] = mk(TS_DOUBLE, 0, 0);
					types[9] = mk(TS_VARBINARY, 0, 0);
					init = true;
				}
				ts_arena_init(&arena, 4096);
				ts_binary_row_decode(data + 1, size - 1, types, 10, out, NULL, &arena, &err);
				ts_arena_free(&arena);
				break;
			}
	}
	free(text);
	return 0;
}
