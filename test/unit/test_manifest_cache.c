/*
 * test_manifest_cache.c - decoded manifests shared through the metadata
 * cache (src/meta/manifest_cache.c, records of src/base/meta_cache.c):
 * every manifest of the shared tables encodes and decodes to the same
 * entries, field by field, as do entries whose integers sit at the varint
 * boundaries, decoded into dirty memory; a plan's read through the cache
 * stores a record, then takes the same entries from it; a record torn, of
 * another version, with a flipped bit, of another source size or renamed
 * by hand is rejected (removed, rebuilt from the manifest), never used; a
 * changed file (mtime) or a scope that does not allow the manifest finds
 * nothing; a record changed and sealed again (checksum recomputed) is
 * rejected by its structure or decodes within itself, never past its end;
 * records are evicted under the size limit; processes reading and storing
 * the same records at once all get the right entries.  Runs in a fresh
 * directory under /tmp.
 */
#define _GNU_SOURCE				/* nftw */
#include "unit.h"
#include "forked_child.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_meta_cache.h"
#include "format/fileindex/file_index.h"
#include "meta/manifest_cache.h"
#include "manifest_equal.h"

static char dir[128];
static char work[128];

/* the sample manifest of the shared tables (several entries) copied to path */
static void
copy_sample(const char *to)
{
	char		cmd[8192 + 700];

	snprintf(cmd, sizeof(cmd), "cp %s %s", unit_shared_path("testdata/avro/manifest/avro_manifest_11"), to);
	assert_int_equal(system(cmd), 0);
}

static void
run(const char *fmt, const char *arg)
{
	char		cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg);
	assert_int_equal(system(cmd), 0);
}

static int
setup(void **state)
{
	ts_err		err = {0};

	(void) state;
	snprintf(dir, sizeof(dir), "/tmp/ts-unit-mfcache-%d", (int) getpid());
	snprintf(work, sizeof(work), "/tmp/ts-unit-mfcache-work-%d", (int) getpid());
	{
		char		cmd[1024];

		snprintf(cmd, sizeof(cmd), "rm -rf %s %s && mkdir -p %s", dir, work, work);
		if (system(cmd) != 0)
			return -1;
	}
	return ts_mcache_configure(dir, 64 << 20, &err) ? 0 : -1;
}

static int
teardown(void **state)
{
	char		cmd[600];

	(void) state;
	ts_mcache_configure(NULL, 0, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", dir, work);
	return system(cmd) == 0 ? 0 : -1;
}

static void
same_entries(const ts_manifest_entry *a, int na, const ts_manifest_entry *b, int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		same_entry(&a[i], &b[i]);
}

/* ---- every manifest of the shared tables round trips ------------------- */

static int	nround = 0;
static int	nround_entries = 0;
static const char *NAME64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/* the entries as a light record gives them: every statistic null */
static ts_manifest_entry *
without_stats(const ts_manifest_entry *m, int n, ts_arena *arena)
{
	ts_manifest_entry *out = ts_arena_dup(arena, m, sizeof(*m) * (size_t) (n ? n : 1));
	const ts_simple_stats none = {{NULL, 0}, {NULL, 0}, -1, NULL};

	assert_non_null(out);
	for (int i = 0; i < n; i++)
	{
		out[i].file.key_stats = none;
		out[i].file.value_stats = none;
		out[i].file.nvalue_stats_cols = -1;
		out[i].file.value_stats_cols = NULL;
	}
	return out;
}

/*
 * A light record of the entries: every field but the statistics round
 * trips; a light record is no full one and a full one no light one.
 */
static void
light_round_trip(const ts_manifest_entry *m, int n, int64_t size, ts_arena *arena)
{
	uint8_t    *rec,
			   *full,
			   *copy;
	size_t		len,
				full_len;
	ts_manifest_entry *back;
	int			nback;

	assert_true(ts_manifest_cache_encode_light(m, n, NAME64, size, &rec, &len));
	assert_true(ts_manifest_cache_encode(m, n, NAME64, size, &full, &full_len));
	assert_true(len <= full_len);
	copy = ts_arena_dup(arena, rec, len);
	assert_true(ts_manifest_cache_decode_light(copy, len, NAME64, size, arena, &back, &nback));
	same_entries(without_stats(m, n, arena), n, back, nback);
	assert_false(ts_manifest_cache_decode(copy, len, NAME64, size, arena, &back, &nback));
	assert_false(ts_manifest_cache_decode_light(copy, len, NAME64, size + 1, arena, &back, &nback));
	copy = ts_arena_dup(arena, full, full_len);
	assert_false(ts_manifest_cache_decode_light(copy, full_len, NAME64, size, arena, &back, &nback));
	ts_free(rec);
	ts_free(full);
}

static int
round_trip_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	ts_arena	arena;
	ts_err		err = {0};
	ts_manifest_entry *m,
			   *back;
	int			n,
				nback;
	uint8_t    *rec,
			   *copy;
	size_t		len;

	if (flag != FTW_F || strncmp(base, "manifest-", 9) != 0 ||
		strncmp(base, "manifest-list-", 14) == 0 || strstr(path, "/manifest/") == NULL)
		return 0;
	ts_arena_init(&arena, 4096);
	if (ts_manifest_read(ts_fs_local_unconfined(), path, &arena, &m, &n, &err))
	{
		assert_true(ts_manifest_cache_encode(m, n, NAME64, st->st_size, &rec, &len));
		copy = ts_arena_dup(&arena, rec, len);
		assert_true(ts_manifest_cache_decode(copy, len, NAME64, st->st_size, &arena, &back, &nback));
		same_entries(m, n, back, nback);
		/* another source size, another name: not this record */
		assert_false(ts_manifest_cache_decode(copy, len, NAME64, st->st_size + 1, &arena, &back, &nback));
		assert_false(ts_manifest_cache_decode(copy, len, "f123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
											  st->st_size, &arena, &back, &nback));
		ts_free(rec);
		light_round_trip(m, n, st->st_size, &arena);
		nround++;
		nround_entries += n;
	}
	ts_arena_free(&arena);
	return 0;
}

static void
test_round_trip_shared_manifests(void **state)
{
	(void) state;
	nround = nround_entries = 0;
	assert_int_equal(nftw(unit_shared_path("testdata"), round_trip_one, 16, FTW_PHYS), 0);
	print_message("%d manifests, %d entries round-tripped\n", nround, nround_entries);
	assert_true(nround >= 100);
	assert_true(nround_entries >= 400);
}

/* ---- the packed format's own checks ------------------------------------- */

static void read_plain(const char *path, ts_arena *arena, ts_manifest_entry **m, int *n);

/* the checksum of a record changed on purpose: only the structure can reject it */
static void
reseal(uint8_t *rec, size_t len)
{
	uint64_t	sum;
	uint64_t	payload = len - 104;

	memcpy(rec + 24, &payload, 8);
	sum = ts_xxh64(rec + 104, len - 104, ts_xxh64(rec, 32, 0));
	memcpy(rec + 32, &sum, 8);
}

static bool
inside(const void *p, const uint8_t *rec, size_t len)
{
	return p == NULL || ((const uint8_t *) p >= rec && (const uint8_t *) p < rec + len);
}

/* every pointer of the entries into the record, none past it */
static bool
entries_inside(const ts_manifest_entry *m, int n, const uint8_t *rec, size_t len)
{
	for (int i = 0; i < n; i++)
	{
		const ts_data_file_meta *f = &m[i].file;

		if (!inside(m[i].partition.data, rec, len) || !inside(f->file_name, rec, len) ||
			!inside(f->min_key.data, rec, len) || !inside(f->max_key.data, rec, len) ||
			!inside(f->value_stats.min_values.data, rec, len) ||
			!inside(f->value_stats.max_values.data, rec, len) ||
			!inside(f->value_stats.null_counts, rec, len) ||
			!inside(f->key_stats.null_counts, rec, len) ||
			!inside(f->external_path, rec, len) || !inside(f->embedded_file_index.data, rec, len))
			return false;
		if (f->file_name && !inside(f->file_name + strlen(f->file_name), rec, len))
			return false;
		if (f->value_stats.null_counts &&
			!inside((const uint8_t *) (f->value_stats.null_counts + f->value_stats.nnull_counts) - 1, rec, len))
			return false;
	}
	return true;
}

static void
test_packed_structure(void **state)
{
	char		path[600];
	ts_arena	arena;
	ts_manifest_entry *m,
			   *back;
	int			n,
				nback;
	uint8_t    *rec,
			   *copy;
	size_t		len,
				fields_len;
	int			rejected = 0,
				accepted = 0;
	uint64_t	v;

	(void) state;
	snprintf(path, sizeof(path), "%s/manifest-packed-0", work);
	copy_sample(path);
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &m, &n);
	assert_true(ts_manifest_cache_encode(m, n, NAME64, 1234, &rec, &len));
	memcpy(&v, rec + 104, 8);
	fields_len = (size_t) v;
	/* packed: well under the 8-byte references and integers of version 1 */
	assert_true(fields_len < (size_t) n * 100);
	copy = ts_arena_alloc(&arena, len + 64);

	/* any length short of the whole: rejected */
	for (size_t cut = 0; cut < len; cut += 13)
	{
		memcpy(copy, rec, len);
		assert_false(ts_manifest_cache_decode(copy, cut, NAME64, 1234, &arena, &back, &nback));
	}
	/* a byte more in the table, sealed again: the walk does not end at its end */
	memcpy(copy, rec, len);
	copy[len] = 0;
	reseal(copy, len + 1);
	assert_false(ts_manifest_cache_decode(copy, len + 1, NAME64, 1234, &arena, &back, &nback));
	/* a fields length past the payload */
	memcpy(copy, rec, len);
	v = len;
	memcpy(copy + 104, &v, 8);
	reseal(copy, len);
	assert_false(ts_manifest_cache_decode(copy, len, NAME64, 1234, &arena, &back, &nback));
	/* fields of nothing but continuation bytes: an overlong varint */
	memcpy(copy, rec, len);
	memset(copy + 112, 0xFF, fields_len);
	reseal(copy, len);
	assert_false(ts_manifest_cache_decode(copy, len, NAME64, 1234, &arena, &back, &nback));

	/*
	 * every byte of the first entries' fields set to other values, the
	 * checksum sealed again (a writer's bug, not a torn file): the record
	 * is rejected or decodes with every reference inside it, never past it
	 */
	for (size_t at = 112; at < 112 + fields_len && at < 112 + 400; at++)
		for (int val = 0; val < 256; val += 37)
		{
			memcpy(copy, rec, len);
			if (copy[at] == (uint8_t) val)
				continue;
			copy[at] = (uint8_t) val;
			reseal(copy, len);
			if (ts_manifest_cache_decode(copy, len, NAME64, 1234, &arena, &back, &nback))
			{
				assert_int_equal(nback, n);
				assert_true(entries_inside(back, nback, copy, len));
				accepted++;
			}
			else
				rejected++;
		}
	print_message("changed fields: %d rejected, %d decoded within the record\n", rejected, accepted);
	assert_true(rejected > 0);
	/* the untouched record still decodes to the same entries */
	memcpy(copy, rec, len);
	assert_true(ts_manifest_cache_decode(copy, len, NAME64, 1234, &arena, &back, &nback));
	same_entries(m, n, back, nback);
	ts_free(rec);
	ts_arena_free(&arena);
}

/* ---- synthetic entries: integers at the varint boundaries, lists ------- */

static const int64_t edge_values[] = {
	0, 1, -1, 63, 64, -64, -65, 127, 128, 8191, 8192, -8192, -8193, 16383, 16384,
	1048575, 1048576, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 1733480000000
};
#define NEDGE ((int) (sizeof(edge_values) / sizeof(edge_values[0])))

static int32_t
edge32(int i)
{
	int64_t		v = edge_values[i % NEDGE];

	return v < INT32_MIN || v > INT32_MAX ? (int32_t) (v & 0x3FFF) : (int32_t) v;
}

/*
 * Entries whose integers take 1, 2, 3 ... 10 bytes as varints (the
 * decoder reads one and two bytes inline), lists absent, empty and full,
 * decoded into an arena whose memory was dirty: the decoder sets every
 * field of an entry without clearing it first.
 */
static void
test_edge_values(void **state)
{
	enum
	{
	N = 3 * NEDGE
	};
	ts_manifest_entry in[N];
	ts_manifest_entry *back;
	char	   *names[2] = {"extra-a", "extra-b"};
	ts_arena	arena;
	uint8_t    *rec,
			   *copy;
	size_t		len;
	int			nback;
	void	   *dirt;

	(void) state;
	memset(in, 0, sizeof(in));
	for (int i = 0; i < N; i++)
	{
		ts_manifest_entry *e = &in[i];
		ts_data_file_meta *f = &e->file;
		int			lists = i % 3;	/* 0: absent, 1: empty, 2: two names */

		e->kind = i % 5 == 0 ? TS_FILE_DELETE : TS_FILE_ADD;
		e->bucket = edge32(i);
		e->total_buckets = edge32(i + 1);
		f->file_name = "data-edge.parquet";
		f->file_size = edge_values[i % NEDGE];
		f->row_count = edge_values[(i + 3) % NEDGE];
		f->key_stats.nnull_counts = -1;
		f->value_stats.nnull_counts = -1;
		f->min_sequence_number = edge_values[(i + 5) % NEDGE];
		f->max_sequence_number = edge_values[(i + 7) % NEDGE];
		f->schema_id = edge_values[(i + 9) % NEDGE];
		f->level = edge32(i + 2);
		f->nextra_files = lists == 0 ? -1 : lists == 1 ? 0 : 2;
		f->extra_files = lists == 0 ? NULL : names;
		f->has_creation_time = i % 2;
		f->creation_time_millis = edge_values[(i + 11) % NEDGE];
		f->delete_row_count = edge_values[(i + 13) % NEDGE];
		f->file_source = edge32(i + 4);
		f->nvalue_stats_cols = lists == 1 ? -1 : lists == 2 ? 0 : 2;
		f->value_stats_cols = lists == 1 ? NULL : names;
		f->has_first_row_id = i % 3 == 0;
		f->first_row_id = edge_values[(i + 15) % NEDGE];
		f->nwrite_cols = lists == 2 ? -1 : lists == 0 ? 0 : 1;
		f->write_cols = lists == 2 ? NULL : names;
	}
	assert_true(ts_manifest_cache_encode(in, N, NAME64, 99, &rec, &len));
	ts_arena_init(&arena, 1 << 20);
	/* the arena's chunk written over, then handed out again */
	dirt = ts_arena_alloc(&arena, (1 << 20) - 4096);
	assert_non_null(dirt);
	memset(dirt, 0xA5, (1 << 20) - 4096);
	ts_arena_reset(&arena);
	copy = ts_arena_dup(&arena, rec, len);
	assert_non_null(copy);
	assert_true(ts_manifest_cache_decode(copy, len, NAME64, 99, &arena, &back, &nback));
	assert_int_equal(nback, N);
	for (int i = 0; i < N; i++)
	{
		const ts_data_file_meta *f = &back[i].file;

		same_entry(&in[i], &back[i]);
		/* an empty list stays a list (not null), an absent one null */
		assert_int_equal(f->extra_files == NULL, in[i].file.extra_files == NULL);
		assert_int_equal(f->value_stats_cols == NULL, in[i].file.value_stats_cols == NULL);
		assert_int_equal(f->write_cols == NULL, in[i].file.write_cols == NULL);
		assert_true(inside(f->file_name, copy, len));
		assert_null(back[i].partition.data);
		assert_null(f->external_path);
		assert_null(f->embedded_file_index.data);
		assert_null(f->key_stats.null_counts);
	}
	/* any length short of the whole: rejected */
	for (size_t cut = 0; cut < len; cut++)
		assert_false(ts_manifest_cache_decode(copy, cut, NAME64, 99, &arena, &back, &nback));
	ts_free(rec);
	ts_arena_free(&arena);
}

/* ---- reading through the cache ------------------------------------------ */

/* a manifest of the shared tables with several entries, copied into work/ */
static const char *
local_manifest(void)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/manifest-cached-0", work);
	copy_sample(path);
	return path;
}

static void
read_plain(const char *path, ts_arena *arena, ts_manifest_entry **m, int *n)
{
	ts_err		err = {0};

	if (!ts_manifest_read(ts_fs_local_unconfined(), path, arena, m, n, &err))
		fail_msg("%s", err.msg);
}

static void
read_cached(const char *path, ts_arena *arena, ts_manifest_entry **m, int *n)
{
	ts_err		err = {0};

	if (!ts_manifest_read_cached(ts_fs_local_unconfined(), path, 0, 0, NULL, false, arena, m, n, NULL, &err))
		fail_msg("%s", err.msg);
}

/* the record file of path (as the unconfined local fs names it) */
static char *
record_file(const char *path)
{
	static char out[600];
	char		name[65];
	int64_t		size;

	assert_true(ts_fs_cache_name(ts_fs_local_unconfined(), path, "tablescan decoded manifest 2", 0, name, &size));
	snprintf(out, sizeof(out), "%s/%s.tsm", dir, name);
	return out;
}

static void
test_hit_after_store(void **state)
{
	const char *path = local_manifest();
	ts_manifest_cache_stats s0 = ts_manifest_cache_get_stats(),
				s;
	ts_arena	arena;
	ts_manifest_entry *plain,
			   *m1,
			   *m2;
	int			n0,
				n1,
				n2;
	struct stat st;

	(void) state;
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &plain, &n0);
	assert_true(n0 > 0);
	read_cached(path, &arena, &m1, &n1);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.misses - s0.misses, 1);
	assert_int_equal(s.stores - s0.stores, 1);
	assert_int_equal(s.hits - s0.hits, 0);
	assert_int_equal(stat(record_file(path), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	read_cached(path, &arena, &m2, &n2);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.hits - s0.hits, 1);
	assert_int_equal(s.stores - s0.stores, 1);
	same_entries(plain, n0, m1, n1);
	same_entries(plain, n0, m2, n2);
	/* the file changed (its mtime): another key, decoded again */
	{
		struct timespec later[2] = {{0, UTIME_OMIT}, {time(NULL) + 5, 0}};

		assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
	}
	read_cached(path, &arena, &m2, &n2);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.hits - s0.hits, 1);
	assert_int_equal(s.misses - s0.misses, 2);
	same_entries(plain, n0, m2, n2);
	ts_arena_free(&arena);
}

/* damage the record of path with cmd (%s: the record file), then read: rejected and rebuilt */
static void
damaged_is_rebuilt(const char *path, const char *cmd)
{
	ts_manifest_cache_stats s0,
				s;
	ts_arena	arena;
	ts_manifest_entry *plain,
			   *m;
	int			n0,
				n;
	char	   *rec;
	struct stat st;

	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &plain, &n0);
	read_cached(path, &arena, &m, &n);	/* stored (or hit) */
	rec = record_file(path);
	assert_int_equal(stat(rec, &st), 0);
	run(cmd, rec);
	s0 = ts_manifest_cache_get_stats();
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.rejected - s0.rejected, 1);
	assert_int_equal(s.hits - s0.hits, 0);
	assert_int_equal(s.stores - s0.stores, 1);
	same_entries(plain, n0, m, n);
	/* the rebuilt record is whole again: a hit */
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.hits - s0.hits, 1);
	same_entries(plain, n0, m, n);
	ts_arena_free(&arena);
}

static void
test_torn_record(void **state)
{
	(void) state;
	/* half of it, as a writer that died without rename could never leave, but a disk might */
	damaged_is_rebuilt(local_manifest(), "truncate -s $(( $(stat -c %%s %s) / 2 )) %s");
}

static void
test_wrong_version(void **state)
{
	(void) state;
	/* this version -> the one before (byte 8) */
	assert_int_equal(TS_MANIFEST_CACHE_VERSION, 2);
	damaged_is_rebuilt(local_manifest(), "printf '\\001' | dd of=%s bs=1 seek=8 conv=notrunc status=none #%s");
}

/* the light record of path (as the unconfined local fs names it) */
static char *
light_record_file(const char *path)
{
	static char out[600];
	char		name[65];
	int64_t		size;

	assert_true(ts_fs_cache_name(ts_fs_local_unconfined(), path, "tablescan decoded manifest light 2", 0,
								 name, &size));
	snprintf(out, sizeof(out), "%s/%s.tsm", dir, name);
	return out;
}

static void
read_light_ok(const char *path, ts_arena *arena, ts_manifest_entry **m, int *n, bool *light)
{
	ts_err		err = {0};

	if (!ts_manifest_read_cached(ts_fs_local_unconfined(), path, 0, 0, NULL, true, arena, m, n, light, &err))
		fail_msg("%s", err.msg);
}

/* a light record: any length short of the whole rejected */
static void
test_light_truncated(void **state)
{
	char		path[600];
	ts_arena	arena;
	ts_manifest_entry *m,
			   *back;
	int			n,
				nback;
	uint8_t    *rec,
			   *copy;
	size_t		len;

	(void) state;
	snprintf(path, sizeof(path), "%s/manifest-light-cut-0", work);
	copy_sample(path);
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &m, &n);
	assert_true(n > 0);
	assert_true(ts_manifest_cache_encode_light(m, n, NAME64, 77, &rec, &len));
	copy = ts_arena_alloc(&arena, len);
	for (size_t cut = 0; cut < len; cut++)
	{
		memcpy(copy, rec, len);
		assert_false(ts_manifest_cache_decode_light(copy, cut, NAME64, 77, &arena, &back, &nback));
	}
	memcpy(copy, rec, len);
	assert_true(ts_manifest_cache_decode_light(copy, len, NAME64, 77, &arena, &back, &nback));
	same_entries(without_stats(m, n, &arena), n, back, nback);
	ts_free(rec);
	ts_arena_free(&arena);
}

/*
 * Reading through the cache: a decode stores both records; a caller that
 * uses no statistics gets the light one, any other the full one; a torn
 * light record is rejected and made again from the full record.
 */
static void
test_light_read_cached(void **state)
{
	char		path[600];
	ts_manifest_cache_stats s0,
				s;
	ts_arena	arena;
	ts_manifest_entry *plain,
			   *m;
	int			n0,
				n;
	bool		light = true;
	struct stat st;

	(void) state;
	snprintf(path, sizeof(path), "%s/manifest-light-0", work);
	copy_sample(path);
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &plain, &n0);
	s0 = ts_manifest_cache_get_stats();
	read_light_ok(path, &arena, &m, &n, &light);
	s = ts_manifest_cache_get_stats();
	assert_false(light);		/* decoded: whole */
	assert_int_equal(s.misses - s0.misses, 1);
	assert_int_equal(s.stores - s0.stores, 1);
	assert_int_equal(s.light_stores - s0.light_stores, 1);
	same_entries(plain, n0, m, n);
	assert_int_equal(stat(record_file(path), &st), 0);
	assert_int_equal(stat(light_record_file(path), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* no statistics needed: the light record */
	read_light_ok(path, &arena, &m, &n, &light);
	s = ts_manifest_cache_get_stats();
	assert_true(light);
	assert_int_equal(s.light_hits - s0.light_hits, 1);
	assert_int_equal(s.hits - s0.hits, 1);
	same_entries(without_stats(plain, n0, &arena), n0, m, n);
	/* statistics needed: the full record, whole entries */
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.light_hits - s0.light_hits, 1);
	assert_int_equal(s.hits - s0.hits, 2);
	same_entries(plain, n0, m, n);
	/* the light record torn: rejected, the full record read, the light one made again */
	run("truncate -s $(( $(stat -c %%s %s) / 2 )) %s", light_record_file(path));
	s0 = ts_manifest_cache_get_stats();
	read_light_ok(path, &arena, &m, &n, &light);
	s = ts_manifest_cache_get_stats();
	assert_false(light);
	assert_int_equal(s.rejected - s0.rejected, 1);
	assert_int_equal(s.hits - s0.hits, 1);
	assert_int_equal(s.misses - s0.misses, 0);
	assert_int_equal(s.light_stores - s0.light_stores, 1);
	same_entries(plain, n0, m, n);
	read_light_ok(path, &arena, &m, &n, &light);
	assert_true(light);
	same_entries(without_stats(plain, n0, &arena), n0, m, n);
	/* the full record torn: a caller needing statistics never takes the light one */
	run("truncate -s $(( $(stat -c %%s %s) / 2 )) %s", record_file(path));
	s0 = ts_manifest_cache_get_stats();
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.rejected - s0.rejected, 1);
	assert_int_equal(s.light_hits - s0.light_hits, 0);
	assert_int_equal(s.misses - s0.misses, 1);
	same_entries(plain, n0, m, n);
	ts_arena_free(&arena);
}

/* ---- a snapshot's live set (the entry cache's fill) as one record -------- */

/* an entry cache key as src/scan/cache.c makes it: NULs inside */
static const char LIVE_KEY[] = "/wh/db.db/t\0" "5/0/0/" "manifest-list-a\0manifest-list-b\0F";
static const char LIVE_KEY_SNAP[] = "/wh/db.db/t\0" "6/0/0/" "manifest-list-a\0manifest-list-b\0F";
static const char LIVE_KEY_LISTS[] = "/wh/db.db/t\0" "5/0/0/" "manifest-list-c\0manifest-list-d\0F";

/*
 * Round trip in the order given (a split order, not the manifest's), with
 * the counts; light and full refuse each other; a record for another
 * snapshot or a re-created table (other list names), another name or
 * source size is never decoded; every truncation and every flipped byte
 * rejected.
 */
static void
test_live_set_record(void **state)
{
	char		path[600];
	ts_arena	arena;
	ts_manifest_entry *m,
			   *back;
	const ts_manifest_entry **order;
	int			n,
				total,
				nback,
				parts,
				buckets;
	uint8_t    *rec,
			   *light,
			   *copy;
	size_t		len,
				light_len;
	size_t		klen = sizeof(LIVE_KEY) - 1;

	(void) state;
	snprintf(path, sizeof(path), "%s/manifest-live-0", work);
	copy_sample(path);
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &m, &n);
	assert_true(n > 0);
	/* the manifest's entries, repeated, last first: an order of its own */
	total = 2 * n + 1;
	order = ts_arena_alloc(&arena, sizeof(*order) * (size_t) total);
	for (int i = 0; i < total; i++)
		order[i] = &m[n - 1 - i % n];
	assert_true(ts_live_set_encode(order, total, false, NAME64, 77, LIVE_KEY, klen, 3, 7, &rec, &len));
	assert_true(ts_live_set_encode(order, total, true, NAME64, 77, LIVE_KEY, klen, 3, 7,
								   &light, &light_len));
	assert_true(light_len < len);
	copy = ts_arena_alloc(&arena, len);

	/* full: every field, in the order given, and the counts */
	memcpy(copy, rec, len);
	assert_true(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY, klen, &arena,
								   &back, &nback, &parts, &buckets));
	assert_int_equal(nback, total);
	assert_int_equal(parts, 3);
	assert_int_equal(buckets, 7);
	for (int i = 0; i < total; i++)
		same_entry(order[i], &back[i]);
	/* light: every field but the statistics */
	memcpy(copy, light, light_len);
	assert_true(ts_live_set_decode(copy, light_len, true, NAME64, 77, LIVE_KEY, klen, &arena,
								   &back, &nback, &parts, &buckets));
	{
		ts_manifest_entry *rev = ts_arena_alloc(&arena, sizeof(*rev) * (size_t) total);

		for (int i = 0; i < total; i++)
			rev[i] = *order[i];
		same_entries(without_stats(rev, total, &arena), total, back, nback);
	}
	/* neither kind taken for the other, nor for a manifest's record */
	memcpy(copy, rec, len);
	assert_false(ts_live_set_decode(copy, len, true, NAME64, 77, LIVE_KEY, klen, &arena,
									&back, &nback, &parts, &buckets));
	memcpy(copy, light, light_len);
	assert_false(ts_live_set_decode(copy, light_len, false, NAME64, 77, LIVE_KEY, klen, &arena,
									&back, &nback, &parts, &buckets));
	memcpy(copy, rec, len);
	assert_false(ts_manifest_cache_decode(copy, len, NAME64, 77, &arena, &back, &nback));
	/* another snapshot, a re-created table (other lists), a key cut short */
	memcpy(copy, rec, len);
	assert_false(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY_SNAP, klen, &arena,
									&back, &nback, &parts, &buckets));
	assert_false(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY_LISTS, klen, &arena,
									&back, &nback, &parts, &buckets));
	assert_false(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY, klen - 1, &arena,
									&back, &nback, &parts, &buckets));
	/* another name or source size */
	assert_false(ts_live_set_decode(copy, len, false,
									"1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
									77, LIVE_KEY, klen, &arena, &back, &nback, &parts, &buckets));
	assert_false(ts_live_set_decode(copy, len, false, NAME64, 78, LIVE_KEY, klen, &arena,
									&back, &nback, &parts, &buckets));
	/* every truncation, of both kinds */
	for (size_t cut = 0; cut < len; cut++)
	{
		memcpy(copy, rec, len);
		assert_false(ts_live_set_decode(copy, cut, false, NAME64, 77, LIVE_KEY, klen, &arena,
										&back, &nback, &parts, &buckets));
	}
	for (size_t cut = 0; cut < light_len; cut++)
	{
		memcpy(copy, light, light_len);
		assert_false(ts_live_set_decode(copy, cut, true, NAME64, 77, LIVE_KEY, klen, &arena,
										&back, &nback, &parts, &buckets));
	}
	/* every byte flipped (header, key, counts, fields, table, padding) */
	for (size_t at = 0; at < len; at++)
	{
		memcpy(copy, rec, len);
		copy[at] ^= 0x20;
		assert_false(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY, klen, &arena,
										&back, &nback, &parts, &buckets));
	}
	memcpy(copy, rec, len);
	assert_true(ts_live_set_decode(copy, len, false, NAME64, 77, LIVE_KEY, klen, &arena,
								   &back, &nback, &parts, &buckets));
	ts_free(rec);
	ts_free(light);
	ts_arena_free(&arena);
}

/*
 * Through the directory: stored as the kind asked for; read by kind (a caller that needs
 * statistics never gets the light one); a torn record rejected, removed,
 * counted, never used; another key or another list file finds nothing.
 */
static void
test_live_set_read_store(void **state)
{
	char		path[600],
				list[600],
				list2[600];
	ts_arena	arena;
	ts_manifest_entry *m;
	const ts_manifest_entry **order,
			  **back;
	int			n,
				nback,
				parts,
				buckets;
	bool		light;
	size_t		klen = sizeof(LIVE_KEY) - 1;
	ts_manifest_cache_stats s0,
				s;
	ts_fs	   *fs = ts_fs_local_unconfined();

	(void) state;
	snprintf(path, sizeof(path), "%s/manifest-live-1", work);
	snprintf(list, sizeof(list), "%s/manifest-list-live-1", work);
	snprintf(list2, sizeof(list2), "%s/manifest-list-live-2", work);
	copy_sample(path);
	copy_sample(list);			/* any file: the record is named after it */
	copy_sample(list2);
	ts_arena_init(&arena, 4096);
	read_plain(path, &arena, &m, &n);
	order = ts_arena_alloc(&arena, sizeof(*order) * (size_t) n);
	for (int i = 0; i < n; i++)
		order[i] = &m[i];
	s0 = ts_manifest_cache_get_stats();
	assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	/* light entries: the light kind only */
	ts_live_set_store(fs, list, 0, LIVE_KEY, klen, order, n, true, 2, 4, NULL);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_stores - s0.live_stores, 1);
	assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, false, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								 &parts, &buckets, &light, NULL, NULL));
	assert_true(light);
	assert_int_equal(nback, n);
	assert_int_equal(parts, 2);
	assert_int_equal(buckets, 4);
	/* whole entries: the whole kind; a caller needing statistics gets whole ones */
	ts_live_set_store(fs, list, 0, LIVE_KEY, klen, order, n, false, 2, 4, NULL);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_stores - s0.live_stores, 2);
	assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, false, &arena, &back, &nback,
								 &parts, &buckets, &light, NULL, NULL));
	assert_false(light);
	assert_int_equal(nback, n);
	for (int i = 0; i < n; i++)
		same_entry(&m[i], back[i]);
	assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								 &parts, &buckets, &light, NULL, NULL));
	assert_true(light);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.live_hits - s0.live_hits, 3);
	/* another key (snapshot), another list file: nothing */
	assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY_SNAP, klen, true, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	assert_false(ts_live_set_read(fs, list2, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	/* every record torn: both rejected and removed, nothing used */
	run("for f in %s/*.tsm; do printf xx > $f; done #%s", dir);
	s0 = ts_manifest_cache_get_stats();
	assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.rejected - s0.rejected, 2);
	assert_int_equal(s.live_hits - s0.live_hits, 0);
	/* records off: neither read nor stored */
	ts_live_set_set_enabled(false);
	ts_live_set_store(fs, list, 0, LIVE_KEY, klen, order, n, false, 2, 4, NULL);
	ts_live_set_set_enabled(true);
	assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
								  &parts, &buckets, &light, NULL, NULL));
	/*
	 * names computed once per plan: a cold miss tries both kinds (two
	 * names), then stores one under the name it has; a new plan finds it
	 */
	{
		ts_live_set_names names = {0};
		ts_live_set_names names2 = {0};

		s0 = ts_manifest_cache_get_stats();
		assert_false(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
									  &parts, &buckets, &light, &names, NULL));
		ts_live_set_store(fs, list, 0, LIVE_KEY, klen, order, n, true, 2, 4, &names);
		s = ts_manifest_cache_get_stats();
		assert_int_equal(s.live_names - s0.live_names, 2);
		assert_int_equal(s.live_stores - s0.live_stores, 1);
		assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
									 &parts, &buckets, &light, &names2, NULL));
		assert_true(light);
		assert_int_equal(nback, n);
		assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
									 &parts, &buckets, &light, &names2, NULL));
		s = ts_manifest_cache_get_stats();
		assert_int_equal(s.live_names - s0.live_names, 3);
		assert_int_equal(s.live_hits - s0.live_hits, 2);
		/* without names: each call its own */
		assert_true(ts_live_set_read(fs, list, 0, LIVE_KEY, klen, true, &arena, &back, &nback,
									 &parts, &buckets, &light, NULL, NULL));
		s = ts_manifest_cache_get_stats();
		assert_int_equal(s.live_names - s0.live_names, 4);
	}
	ts_arena_free(&arena);
}

static void
test_checksum_flip(void **state)
{
	(void) state;
	/* one byte of the payload's table, near the end */
	damaged_is_rebuilt(local_manifest(),
					   "f=%s; printf '\\377' | dd of=$f bs=1 seek=$(( $(stat -c %%s $f) - 3 )) conv=notrunc status=none");
}

static void
test_source_size_field(void **state)
{
	(void) state;
	/* the source size in the header (byte 16) no longer the file's */
	damaged_is_rebuilt(local_manifest(), "printf '\\001' | dd of=%s bs=1 seek=17 conv=notrunc status=none #%s");
}

static void
test_renamed_record(void **state)
{
	const char *path = local_manifest();
	char		other[600];
	ts_arena	arena;
	ts_manifest_entry *m;
	int			n;
	ts_manifest_cache_stats s0,
				s;

	(void) state;
	ts_arena_init(&arena, 4096);
	/* a record of another manifest copied over this one's name */
	snprintf(other, sizeof(other), "%s/manifest-other-0", work);
	copy_sample(other);
	read_cached(other, &arena, &m, &n);
	read_cached(path, &arena, &m, &n);
	{
		char		cmd[1400];
		char		from[600];

		snprintf(from, sizeof(from), "%s", record_file(other));
		snprintf(cmd, sizeof(cmd), "cp %s %s", from, record_file(path));
		assert_int_equal(system(cmd), 0);
	}
	s0 = ts_manifest_cache_get_stats();
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.rejected - s0.rejected, 1);
	assert_int_equal(s.hits - s0.hits, 0);
	ts_arena_free(&arena);
}

static void
test_scope_and_sizes(void **state)
{
	const char *path = local_manifest();
	const char *roots[] = {"/nonexistent-root"};
	ts_fs_scope scope;
	ts_fs	   *fs;
	ts_err		err = {0};
	ts_arena	arena;
	ts_manifest_entry *m;
	int			n;
	char		name[65];
	int64_t		size;
	struct stat st;
	ts_manifest_cache_stats s0,
				s;

	(void) state;
	ts_arena_init(&arena, 4096);
	read_cached(path, &arena, &m, &n);	/* a record exists */
	assert_int_equal(stat(path, &st), 0);
	/* a size other than the file's (a manifest list that disagrees): no record */
	assert_false(ts_fs_cache_name(ts_fs_local_unconfined(), path, "k", st.st_size + 1, name, &size));
	assert_true(ts_fs_cache_name(ts_fs_local_unconfined(), path, "k", st.st_size, name, &size));
	assert_int_equal(size, st.st_size);
	/* a scope that does not hold the manifest: refused as a read is, nothing from the cache */
	assert_true(ts_fs_scope_make(&scope, roots, 1, &err));
	fs = ts_fs_open_for(path, NULL, &scope, &err);
	assert_non_null(fs);
	assert_false(ts_fs_cache_name(fs, path, "k", 0, name, &size));
	assert_false(ts_manifest_cache_has(fs, path, 0, true));
	s0 = ts_manifest_cache_get_stats();
	assert_false(ts_manifest_read_cached(fs, path, 0, 0, NULL, true, &arena, &m, &n, NULL, &err));
	assert_int_equal(err.code, TS_ERR_DENIED);
	s = ts_manifest_cache_get_stats();
	assert_int_equal(s.hits - s0.hits, 0);
	ts_fs_free(fs);
	ts_fs_scope_free(&scope);
	/* an object: named by store, credentials and the listed size; none without a size */
	assert_false(ts_fs_cache_name(ts_fs_local_unconfined(), "s3://bucket/t/manifest/manifest-x-0", "k", 0,
								  name, &size));
	ts_arena_free(&arena);
}

static int
count_records(int64_t *bytes)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	int			n = 0;

	*bytes = 0;
	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strlen(de->d_name) == 68 && strcmp(de->d_name + 64, ".tsm") == 0)
		{
			struct stat st;
			char		p[600];

			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			assert_int_equal(stat(p, &st), 0);
			*bytes += st.st_size;
			n++;
		}
	closedir(d);
	return n;
}

static void
test_eviction(void **state)
{
	ts_arena	arena;
	ts_manifest_entry *m;
	int			n;
	int64_t		bytes,
				one;
	ts_err		err = {0};
	char		first[600];

	(void) state;
	run("rm -rf %s/* #%s", dir);
	ts_arena_init(&arena, 4096);
	/* the size of one manifest's records (a full and a light one) */
	read_cached(local_manifest(), &arena, &m, &n);
	assert_int_equal(count_records(&one), 2);
	snprintf(first, sizeof(first), "%s", record_file(local_manifest()));
	run("rm -rf %s/* #%s", dir);
	/* room for about four manifests' records: twenty distinct manifests stored */
	assert_true(ts_mcache_configure(dir, one * 4 + one / 2, &err));
	for (int i = 0; i < 20; i++)
	{
		char		p[600];

		snprintf(p, sizeof(p), "%s/manifest-evict-%d", work, i);
		copy_sample(p);
		read_cached(p, &arena, &m, &n);
		if (i == 0)
			snprintf(first, sizeof(first), "%s", record_file(p));
		/* distinct last uses for the least-recently-used order */
		usleep(20000);
	}
	ts_mcache_evict();
	assert_true(count_records(&bytes) <= 8);
	assert_true(bytes <= one * 4 + one / 2);
	/* the oldest went first */
	assert_int_not_equal(access(first, F_OK), 0);
	assert_true(ts_mcache_get_stats().evicted > 0);
	assert_true(ts_mcache_configure(dir, 64 << 20, &err));
	ts_arena_free(&arena);
}

static void
test_concurrent_writers(void **state)
{
	pid_t		kids[4];
	int			status[4];
	pid_t		self = getpid();
	char		paths[4][600];
	ts_arena	arena;
	ts_manifest_entry *plain;
	int			n0;
	int64_t		rejected = ts_manifest_cache_get_stats().rejected;

	(void) state;
	run("rm -rf %s/* #%s", dir);
	for (int i = 0; i < 4; i++)
	{
		snprintf(paths[i], sizeof(paths[i]), "%s/manifest-conc-%d", work, i);
		copy_sample(paths[i]);
	}
	ts_arena_init(&arena, 4096);
	read_plain(paths[0], &arena, &plain, &n0);
	for (int k = 0; k < 4; k++)
	{
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0)
		{
			int			bad = 0;

			unit_forked_child(self, 1);
			for (int round = 0; round < 40; round++)
			{
				ts_arena	a;
				ts_manifest_entry *m;
				int			n;
				ts_err		err = {0};
				const char *p = paths[(k + round) % 4];

				ts_arena_init(&a, 4096);
				/* some rounds remove the record first: stores race with reads */
				if (round % 5 == k)
					unlink(record_file(p));
				if (!ts_manifest_read_cached(ts_fs_local_unconfined(), p, 0, 0, NULL, false, &a, &m, &n, NULL, &err) ||
					n != n0)
					bad++;
				else
					for (int i = 0; i < n; i++)
						if (strcmp(m[i].file.file_name, plain[i].file.file_name) != 0 ||
							m[i].file.row_count != plain[i].file.row_count)
							bad++;
				ts_arena_free(&a);
			}
			rejected = ts_manifest_cache_get_stats().rejected - rejected;
			if (bad != 0 || rejected != 0)
				fprintf(stderr, "child %d: %d wrong reads, %lld records rejected\n", k, bad,
						(long long) rejected);
			_exit(bad == 0 && rejected == 0 ? 0 : 1);
		}
	}
	for (int k = 0; k < 4; k++)
		if (waitpid(kids[k], &status[k], 0) != kids[k])
			status[k] = -1;
	for (int k = 0; k < 4; k++)
	{
		assert_true(status[k] != -1 && WIFEXITED(status[k]));
		assert_int_equal(WEXITSTATUS(status[k]), 0);
	}
	/* no temporary file left behind; the records check */
	{
		char		cmd[400];

		snprintf(cmd, sizeof(cmd), "ls %s | grep -q '^tmp-'", dir);
		assert_int_not_equal(system(cmd), 0);
	}
	for (int i = 0; i < 4; i++)
	{
		ts_manifest_entry *m;
		int			n;
		ts_manifest_cache_stats s0 = ts_manifest_cache_get_stats();

		read_cached(paths[i], &arena, &m, &n);
		assert_int_equal(ts_manifest_cache_get_stats().rejected, s0.rejected);
		same_entries(plain, n0, m, n);
	}
	ts_arena_free(&arena);
}

static void
test_off(void **state)
{
	const char *path = local_manifest();
	ts_manifest_cache_stats s0,
				s;
	ts_arena	arena;
	ts_manifest_entry *m;
	int			n;
	ts_err		err = {0};

	(void) state;
	ts_mcache_configure(NULL, 0, NULL);
	ts_arena_init(&arena, 4096);
	s0 = ts_manifest_cache_get_stats();
	read_cached(path, &arena, &m, &n);
	s = ts_manifest_cache_get_stats();
	assert_true(n > 0);
	assert_int_equal(s.hits + s.misses + s.stores, s0.hits + s0.misses + s0.stores);
	ts_arena_free(&arena);
	assert_true(ts_mcache_configure(dir, 64 << 20, &err));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_shared_manifests),
		cmocka_unit_test(test_hit_after_store),
		cmocka_unit_test(test_packed_structure),
		cmocka_unit_test(test_edge_values),
		cmocka_unit_test(test_torn_record),
		cmocka_unit_test(test_wrong_version),
		cmocka_unit_test(test_checksum_flip),
		cmocka_unit_test(test_light_truncated),
		cmocka_unit_test(test_light_read_cached),
		cmocka_unit_test(test_source_size_field),
		cmocka_unit_test(test_renamed_record),
		cmocka_unit_test(test_scope_and_sizes),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_live_set_record),
		cmocka_unit_test(test_live_set_read_store),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
