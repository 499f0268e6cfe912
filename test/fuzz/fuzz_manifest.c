/*
 * fuzz_manifest.c - libFuzzer harness for manifest decoding: the input
 * (after its first byte) is written to a file and read back as a manifest
 * list, a manifest or an index manifest (first byte % 3), Avro or ORC by
 * magic, every _VERSION (manifests with first byte & 4 through one
 * ts_manifest_keep for the whole run).  Decoded entries are walked
 * (partition bytes, stats, file names) so that bad lengths show up under
 * ASan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta/manifest.h"

static char path[64];
static ts_manifest_keep *keep;	/* kept from input to input */

static void
remove_input(void)
{
	unlink(path);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void
touch(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; p && i < len; i++)
		sink += b[i];
}

static void
touch_str(const char *s)
{
	if (s)
		sink += strlen(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE	   *f;
	ts_err		err;
	ts_arena	arena;
	int			count = 0;

	if (size < 1)
		return 0;
	if (path[0] == '\0')
	{
		snprintf(path, sizeof(path), "%s/ts_fuzz_manifest_%d",
				 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int) getpid());
		atexit(remove_input);
	}
	f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);

	memset(&err, 0, sizeof(err));
	ts_arena_init(&arena, 4096);
	switch (data[0] % 3)
	{
		case 0:
			{
				ts_manifest_file_meta *m = NULL;

				if (ts_manifest_list_read(ts_fs_local_unconfined(), path, &arena, &m, &count, &err))
					for (int i = 0; i < count; i++)
					{
						touch_str(m[i].file_name);
						touch(m[i].partition_stats.min_values.data, m[i].partition_stats.min_values.len);
						touch(m[i].partition_stats.max_values.data, m[i].partition_stats.max_values.len);
					}
				break;
			}
		case 1:
			{
				ts_manifest_entry *e = NULL;
				bool		ok;

				/*
				 * odd inputs through one keep for the whole run: a schema
				 * text seen before is reused with whatever body follows it
				 */
				if (keep == NULL)
					keep = ts_manifest_keep_new();
				ok = data[0] & 4 ? ts_manifest_read_kept(ts_fs_local_unconfined(), path, 0, keep, &arena, &e, &count, &err) :
					ts_manifest_read(ts_fs_local_unconfined(), path, &arena, &e, &count, &err);
				if (ok)
					for (int i = 0; i < count; i++)
					{
						touch(e[i].partition.data, e[i].partition.len);
						touch_str(e[i].file.file_name);
						touch(e[i].file.value_stats.min_values.data, e[i].file.value_stats.min_values.len);
						touch(e[i].file.value_stats.max_values.data, e[i].file.value_stats.max_values.len);
						if (e[i].file.value_stats.nnull_counts > 0)
							touch(e[i].file.value_stats.null_counts, e[i].file.value_stats.nnull_counts * sizeof(int64_t));
						for (int j = 0; j < e[i].file.nextra_files; j++)
							touch_str(e[i].file.extra_files[j]);
						for (int j = 0; j < e[i].file.nvalue_stats_cols; j++)
							touch_str(e[i].file.value_stats_cols[j]);
						touch(e[i].file.min_key.data, e[i].file.min_key.len);
					}
				break;
			}
		default:
			{
				ts_index_manifest_entry *e = NULL;

				if (ts_index_manifest_read(ts_fs_local_unconfined(), path, &arena, &e, &count, &err))
					for (int i = 0; i < count; i++)
					{
						touch(e[i].partition.data, e[i].partition.len);
						touch_str(e[i].file_name);
						touch_str(e[i].index_type);
						for (int j = 0; j < e[i].ndv_ranges; j++)
							touch_str(e[i].dv_ranges[j].data_file);
					}
				break;
			}
	}
	ts_arena_free(&arena);
	return 0;
}
