/*
 * fuzz_meta.c - libFuzzer harness for the metadata decoders that take a
 * buffer: schema JSON, snapshot JSON, BinaryRow (with a fixed set of
 * field types covering every slot encoding) and SimpleStats (min/max rows
 * and null counts over the same types, all columns or a named subset),
 * and the source files of a primary-key global index payload
 * (_GLOBAL_INDEX._SOURCE_META, meta/pk_index_source.c).
 * The first input byte picks the decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "meta/binary_row.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "meta/pk_index_source.h"
#include "meta/stats.h"

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

static const ts_type *types[10];

static void
init_types(void)
{
	static bool init = false;

	if (init)
		return;
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
	switch (data[0] % 5)
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
				ts_value	out[10];
				ts_arena	arena;

				init_types();
				ts_arena_init(&arena, 4096);
				ts_binary_row_decode(data + 1, size - 1, types, 10, out, NULL, &arena, &err);
				ts_arena_free(&arena);
				break;
			}
		case 4:
			{
				ts_pk_source_meta m;

				if (ts_pk_source_meta_parse(data + 1, size - 1, &m, &err))
				{
					int64_t		total = 0;

					for (int i = 0; i < m.nfiles; i++)
						total += m.files[i].rows + (int64_t) strlen(m.files[i].name);
					(void) total;
					ts_pk_source_meta_free(&m);
				}
				break;
			}
		case 3:
			{
				/*
				 * data[1]: where min ends and max begins, bit 7 = stats for
				 * a named subset of columns; then min, max, and the last 8
				 * bytes as null counts (-1 = unknown when 0xff).
				 */
				static char *const names[10] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"};
				static char *const subset[4] = {"c3", "c1", "c9", "nope"};
				ts_simple_stats st;
				ts_column_stats out[10];
				int64_t		nulls[8];
				ts_arena	arena;
				size_t		body,
							split;
				int			nsub;
				uint8_t    *minb,
						   *maxb;

				if (size < 2)
					break;
				init_types();
				body = size - 2;
				split = body ? (size_t) data[1] % (body + 1) : 0;
				memset(&st, 0, sizeof(st));
				/* separate exact-size copies: an overread of one shows */
				minb = split ? malloc(split) : NULL;
				maxb = body > split ? malloc(body - split) : NULL;
				if (minb)
					memcpy(minb, data + 2, split);
				if (maxb)
					memcpy(maxb, data + 2 + split, body - split);
				st.min_values.data = minb;
				st.min_values.len = (uint32_t) split;
				st.max_values.data = maxb;
				st.max_values.len = (uint32_t) (body - split);
				st.nnull_counts = body >= 8 ? 8 : -1;
				for (int i = 0; i < 8 && body >= 8; i++)
					nulls[i] = data[size - 8 + i] == 0xff ? -1 : data[size - 8 + i];
				st.null_counts = nulls;
				nsub = data[1] & 0x80 ? (data[1] & 0x40 ? 4 : 3) : -1;
				ts_arena_init(&arena, 4096);
				ts_stats_decode(&st, types, (const char *const *) names, 10,
								subset, nsub, &arena, out, &err);
				ts_arena_free(&arena);
				free(minb);
				free(maxb);
				break;
			}
	}
	free(text);
	return 0;
}
