/*
 * ts_pq_register.c - register existing Parquet files as the data files of a
 * Paimon APPEND table (benchmark helper, bench/run.sh).
 *
 * USAGE
 *   ts_pq_register [--bloom NAME:ID:TYPE] <table_dir> <ncols> <file>:<rows> [<file>:<rows>]...
 *
 * <table_dir> must already hold schema/schema-0 (bench/run.sh writes it with
 * ts_gen and the same columns); the files must already lie in
 * <table_dir>/bucket-0/ (unaware bucket, no partitions) and carry Paimon
 * field ids (DuckDB's COPY ... FIELD_IDS).  <ncols> is the number of columns
 * of schema-0.  Writes one manifest (Paimon 1.1 layout, _VERSION 2, zstd)
 * with one ADD entry per file, the base/delta manifest lists, snapshot-1 and
 * the LATEST/EARLIEST hints, replacing any snapshot-1 already there.  Value
 * stats are written as unknown (min/max NULL, null counts NULL) so nothing
 * is pruned.  The manifest layout follows src/tools/ts_gen.c.
 *
 * --bloom NAME:ID:TYPE (TYPE INT, BIGINT or STRING; ID its field id) also
 * writes, next to each file, a sidecar file index "<file>.index" holding a
 * bloom filter of that column (Paimon's BloomFilterFileIndex layout: int32
 * hash count, then the bit set; values hashed as Java's FastHash does:
 * Thomas Wang's hash of integers, XXH64 of string bytes; 10 bits per row,
 * 7 hash functions) and lists it in the entry's _EXTRA_FILES, as Java does
 * for an index above file-index.in-manifest-threshold.  <rows> may then be
 * left empty ("<file>:"): the rows read from the file are used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "format/avro/avro_writer.h"
#include "format/fileindex/file_index.h"
#include "format/format.h"
#include "meta/binary_row.h"
#include "meta/schema.h"

#define TS_TOOL_NAME "ts_pq_register"
#include "tools/ts_tool_util.h"

#include "tools/ts_manifest_records.h"
#include "tools/ts_tool_commit.h"

/* SimpleStats with n unknown columns: min/max all NULL, null counts NULL */
static void
unknown_stats(int n, ts_value *out)
{
	const ts_type **types = xcalloc((size_t) n, sizeof(ts_type *));
	ts_value   *nulls = xcalloc((size_t) n, sizeof(ts_value));
	ts_value   *items = xcalloc(3, sizeof(ts_value));
	ts_value   *counts = xcalloc((size_t) n, sizeof(ts_value));
	ts_buf		b;
	ts_err		err;

	for (int i = 0; i < n; i++)
	{
		types[i] = mk(TS_INT, true);
		nulls[i].isnull = true;
		counts[i].isnull = true;
	}
	ts_buf_init(&b);
	if (!ts_binary_row_encode(types, nulls, n, true, &b, &err))
		die("BinaryRow: %s", err.msg);
	items[0].v.s.p = b.data;
	items[0].v.s.len = (uint32_t) b.len;
	items[1] = items[0];
	items[2].v.nested.n = n;
	items[2].v.nested.items = counts;
	out->isnull = false;
	out->v.nested.n = 3;
	out->v.nested.items = items;
}

static void
buf_add(ts_buf *b, const void *p, size_t n)
{
	ts_err		err;

	if (!ts_buf_append(b, p, n, &err))
		die("out of memory");
}

static void
put_be(ts_buf *b, uint64_t v, int width)
{
	uint8_t		x[8];

	for (int i = width - 1; i >= 0; i--)
	{
		x[i] = (uint8_t) v;
		v >>= 8;
	}
	buf_add(b, x, (size_t) width);
}

/* Set the bits of one hash, as BloomFilter64 (the reader's probe, fi_bloom.c). */
static void
bloom_add(uint8_t *bits, uint32_t nbits, int nhash, uint64_t hash)
{
	int32_t		h1 = (int32_t) (uint32_t) hash;
	int32_t		h2 = (int32_t) (uint32_t) (hash >> 32);

	for (int32_t i = 1; i <= nhash; i++)
	{
		int32_t		combined = (int32_t) ((uint32_t) h1 + (uint32_t) i * (uint32_t) h2);
		uint32_t	pos;

		if (combined < 0)
			combined = ~combined;
		pos = (uint32_t) combined % nbits;
		bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
	}
}

/*
 * Read column NAME (field id, type) of a Parquet file, write "<file>.index"
 * with its bloom filter; returns the rows read.
 */
static int64_t
write_bloom_sidecar(const char *path, const char *name, int32_t id, const ts_type *type)
{
	ts_read_column col = {id, name, type};
	ts_reader_options opts = {0};
	ts_format_reader *r;
	ts_err		err;
	ts_batch	b;
	int			n;
	int64_t		rows = 0;
	uint64_t   *hashes = NULL;
	size_t		nh = 0,
				cap = 0;
	uint32_t	nbytes;
	uint8_t    *bits;
	const int	nhash = 7;
	ts_buf		body,
				out;

	opts.fs = ts_fs_local_unconfined();
	r = ts_format_open(TS_FORMAT_PARQUET, path, &col, 1, &opts, &err);
	if (r == NULL)
		die("%s: %s", path, err.msg);
	while ((n = ts_format_next(r, &b, &err)) > 0)
	{
		for (int i = 0; i < n; i++)
		{
			const ts_value *v = ts_batch_at(&b, i, 0);

			rows++;
			if (v->isnull)
				continue;
			if (nh == cap)
			{
				cap = cap ? cap * 2 : 4096;
				hashes = realloc(hashes, cap * sizeof(uint64_t));
				if (hashes == NULL)
					die("out of memory");
			}
			hashes[nh++] = type->kind == TS_VARCHAR ? ts_xxh64(v->v.s.p, v->v.s.len, 0) :
				(uint64_t) ts_thomas_wang_hash64(v->v.i);
		}
	}
	if (n < 0)
		die("%s: %s", path, err.msg);
	ts_format_close(r);
	nbytes = (uint32_t) ((nh * 10 + 63) / 64 * 8);
	if (nbytes == 0)
		nbytes = 8;
	bits = xcalloc(nbytes, 1);
	for (size_t i = 0; i < nh; i++)
		bloom_add(bits, nbytes * 8, nhash, hashes[i]);
	free(hashes);

	/* the container: magic, version 1, head length, one column, one index */
	ts_buf_init(&body);
	put_be(&body, (uint64_t) nhash, 4);
	buf_add(&body, bits, nbytes);
	free(bits);
	ts_buf_init(&out);
	{
		size_t		nlen = strlen(name);
		size_t		head = 16 + 4 + 2 + nlen + 4 + 2 + 12 + 4 + 4;

		put_be(&out, (uint64_t) TS_FILE_INDEX_MAGIC, 8);
		put_be(&out, 1, 4);
		put_be(&out, head, 4);
		put_be(&out, 1, 4);
		put_be(&out, nlen, 2);
		buf_add(&out, name, nlen);
		put_be(&out, 1, 4);
		put_be(&out, 12, 2);
		buf_add(&out, "bloom-filter", 12);
		put_be(&out, head, 4);
		put_be(&out, body.len, 4);
		buf_add(&out, body.data, body.len);
	}
	write_bytes(pathf("%s.index", path), out.data, out.len);
	ts_buf_free(&body);
	ts_buf_free(&out);
	return rows;
}

int
main(int argc, char **argv)
{
	const char *dir;
	int			ncols;
	int			nfiles;
	int			nme;
	ts_field   *me_fields;
	ts_avro_writer *w;
	ts_buf		out;
	ts_err		err;
	static const uint8_t empty_row[12] = {0};
	ts_value	no_stats,
				key_stats;
	const int64_t time_millis = 1700000001000LL;
	const char *manifest = "manifest-00000000-0000-0000-0000-00000000bench-0";
	const char *lists[2] = {"manifest-list-00000000-0000-0000-0000-00000000bench-0",
	"manifest-list-00000000-0000-0000-0000-00000000bench-1"};
	int64_t		manifest_size;
	int64_t		list_sizes[2];
	int64_t		total = 0;
	int64_t		seq = 0;
	char	   *bloom_name = NULL;
	int32_t		bloom_id = -1;
	ts_type    *bloom_type = NULL;

	if (argc > 2 && strcmp(argv[1], "--bloom") == 0)
	{
		char	   *spec = strdup(argv[2]);
		char	   *c1 = strchr(spec, ':');
		char	   *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 == NULL)
			die("--bloom NAME:ID:TYPE, got %s", argv[2]);
		*c1 = *c2 = '\0';
		bloom_name = spec;
		bloom_id = atoi(c1 + 1);
		bloom_type = mk(strcmp(c2 + 1, "STRING") == 0 ? TS_VARCHAR :
						strcmp(c2 + 1, "INT") == 0 ? TS_INT : TS_BIGINT, true);
		if (bloom_type->kind == TS_VARCHAR)
			bloom_type->length = TS_STRING_LENGTH;
		argv += 2;
		argc -= 2;
	}
	if (argc < 4)
	{
		fprintf(stderr, "usage: ts_pq_register [--bloom NAME:ID:TYPE] <table_dir> <ncols> <file>:<rows>...\n");
		return 2;
	}
	dir = argv[1];
	ncols = atoi(argv[2]);
	if (ncols <= 0 || ncols > 1000)
		die("bad column count %s", argv[2]);
	nfiles = argc - 3;
	me_fields = manifest_entry_fields(&nme);
	unknown_stats(ncols, &no_stats);
	unknown_stats(0, &key_stats);

	w = ts_avro_writer_create_for_fields(me_fields, nme, TS_AVRO_CODEC_ZSTANDARD, &err);
	if (w == NULL)
		die("manifest writer: %s", err.msg);
	for (int f = 0; f < nfiles; f++)
	{
		char	   *arg = strdup(argv[3 + f]);
		char	   *colon = strrchr(arg, ':');
		char	   *path;
		struct stat st;
		int64_t		rows;
		ts_value	row[6];
		ts_value   *fi = xcalloc(18, sizeof(ts_value));

		if (colon == NULL)
			die("expected <file>:<rows>, got %s", arg);
		*colon = '\0';
		rows = strtoll(colon + 1, NULL, 10);
		path = pathf("%s/bucket-0/%s", dir, arg);
		if (stat(path, &st) != 0)
			die("%s: %s", path, strerror(errno));
		if (bloom_name)
		{
			int64_t		read = write_bloom_sidecar(path, bloom_name, bloom_id, bloom_type);

			if (colon[1] == '\0')
				rows = read;
			else if (read != rows)
				die("%s: %lld rows, %lld given", path, (long long) read, (long long) rows);
		}
		memset(row, 0, sizeof(row));
		row[0].v.i = 2;			/* _VERSION */
		row[1].v.i = 0;			/* ADD */
		{						/* no partition keys: an empty BinaryRow */
			ts_buf		pb;

			ts_buf_init(&pb);
			if (!ts_binary_row_encode(NULL, NULL, 0, true, &pb, &err))
				die("partition BinaryRow: %s", err.msg);
			row[2].v.s.p = pb.data;
			row[2].v.s.len = (uint32_t) pb.len;
		}
		row[3].v.i = 0;			/* bucket */
		row[4].v.i = -1;		/* unaware */
		row[5].v.nested.n = 18;
		row[5].v.nested.items = fi;
		fi[0].v.s.p = (const uint8_t *) arg;
		fi[0].v.s.len = (uint32_t) strlen(arg);
		fi[1].v.i = (int64_t) st.st_size;
		fi[2].v.i = rows;
		fi[3].v.s.p = empty_row;
		fi[3].v.s.len = 12;
		fi[4] = fi[3];
		fi[5] = key_stats;
		fi[6] = no_stats;
		fi[7].v.i = seq;
		fi[8].v.i = seq + rows - 1;
		seq += rows;
		fi[9].v.i = 0;			/* schema id */
		fi[10].v.i = 0;			/* level */
		fi[11].v.nested.n = 0;
		fi[11].v.nested.items = xcalloc(1, sizeof(ts_value));
		if (bloom_name)
		{
			char	   *x = pathf("%s.index", arg);

			fi[11].v.nested.n = 1;
			fi[11].v.nested.items[0].v.s.p = (const uint8_t *) x;
			fi[11].v.nested.items[0].v.s.len = (uint32_t) strlen(x);
		}
		fi[12].v.ts.millis = time_millis;
		fi[13].v.i = 0;
		fi[14].isnull = true;
		fi[15].v.i = 0;
		fi[16].isnull = true;
		fi[17].isnull = true;
		if (!ts_avro_writer_add(w, row, &err))
			die("manifest entry: %s", err.msg);
		total += rows;
		free(path);
	}
	ts_buf_init(&out);
	if (!ts_avro_writer_finish(w, &out, &err))
		die("manifest finish: %s", err.msg);
	ts_avro_writer_free(w);
	{
		char	   *path = pathf("%s/manifest/%s", dir, manifest);

		mkdir(pathf("%s/manifest", dir), 0755);
		write_bytes(path, out.data, out.len);
		manifest_size = (int64_t) out.len;
	}
	ts_buf_free(&out);

	/* base list (empty) and delta list (the one manifest), the snapshot */
	{
		tool_manifest_meta meta = {.name = manifest, .size = manifest_size, .added = nfiles};
		tool_snapshot sn = {0};

		unknown_stats(0, &meta.partition_stats);
		list_sizes[0] = tool_write_manifest_list(dir, lists[0], NULL, 0, TS_AVRO_CODEC_ZSTANDARD);
		list_sizes[1] = tool_write_manifest_list(dir, lists[1], &meta, 1, TS_AVRO_CODEC_ZSTANDARD);
		mkdir(pathf("%s/snapshot", dir), 0755);
		sn = (tool_snapshot) {
			.id = 1, .base_list = lists[0], .base_list_size = list_sizes[0],
			.delta_list = lists[1], .delta_list_size = list_sizes[1],
			.commit_user = "ts_pq_register", .commit_kind = "APPEND", .time_millis = time_millis,
			.total_records = total, .delta_records = total
		};
		tool_write_snapshot(dir, &sn);
	}
	printf("ts_pq_register: %s: %d Parquet file(s), %lld rows\n", dir, nfiles, (long long) total);
	return 0;
}
