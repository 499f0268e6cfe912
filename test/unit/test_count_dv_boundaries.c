/*
 * test_count_dv_boundaries.c - count(*) from metadata (ts_plan_count_rows,
 * src/read/row_count.c) at the edges of deletion vectors, against a full
 * read of the same deletion vector (every position of the file asked
 * ts_dv_is_deleted) and against the count the test knows it built.
 *
 * Shapes (trust issue, clarification 16): the deleted row is the file's
 * first row or its last row, every row deleted, an empty bitmap, positions
 * past the file's end, an empty file; each as a 32-bit (Paimon DV v1,
 * RoaringBitmap) and a 64-bit (Roaring64) deletion vector.  The index
 * files are written here, as Paimon writes them: a version byte, then per
 * vector its size, magic, bitmap and CRC.
 */
#include <unistd.h>
#include <zlib.h>
#include <roaring/roaring.h>

#include "unit.h"

#include "read/deletion_vector.h"
#include "read/read.h"
#include "scan/scan.h"

#define DV32_MAGIC 1581511376u
#define DV64_MAGIC 1681511377u
#define MAX_DV_BYTES 4096

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

static void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

/*
 * An index file holding one deletion vector of the given positions (all
 * below 2^32), 64-bit or not; returns its length as the index manifest has it.
 */
static int64_t
write_index_file(const char *path, const uint32_t *pos, int npos, bool is64)
{
	static uint8_t file[1 + MAX_DV_BYTES];
	uint8_t    *dv = file + 1;
	roaring_bitmap_t *bm = roaring_bitmap_create();
	size_t		n,
				body,
				total;
	FILE	   *f;

	for (int i = 0; i < npos; i++)
		roaring_bitmap_add(bm, pos[i]);
	n = roaring_bitmap_portable_size_in_bytes(bm);
	assert_true(n + 32 < MAX_DV_BYTES);
	file[0] = 1;				/* index file version */
	if (!is64)
	{
		body = 4 + n;
		put_be32(dv + 4, DV32_MAGIC);
		roaring_bitmap_portable_serialize(bm, (char *) dv + 8);
	}
	else
	{
		/* magic, the number of bitmaps (64-bit), then key 0 and its bitmap */
		body = 4 + 8 + 4 + n;
		memset(dv + 4, 0, 16);
		put_le32(dv + 4, DV64_MAGIC);
		put_le32(dv + 8, 1);
		roaring_bitmap_portable_serialize(bm, (char *) dv + 20);
	}
	put_be32(dv, (uint32_t) body);
	put_be32(dv + 4 + body, (uint32_t) crc32(0L, dv + 4, (uInt) body));
	total = 4 + body + 4;
	roaring_bitmap_free(bm);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(file, 1, 1 + total, f), 1 + total);
	fclose(f);
	/* the index manifest's length: the size field, + 8 for a 64-bit vector */
	return (int64_t) (is64 ? body + 8 : body);
}

typedef struct dv_case
{
	const char *name;
	int64_t		rows;			/* the file's row count */
	uint32_t	deleted[16];
	int			ndeleted;		/* -1: the file has no deletion vector */
} dv_case;

/* rows of [0, rows) not among deleted: what the test built */
static int64_t
rows_left(const dv_case *c)
{
	int64_t		left = c->rows;

	for (int i = 0; i < c->ndeleted; i++)
		if ((int64_t) c->deleted[i] < c->rows)
			left--;
	return left;
}

/* rows a full read returns: every position asked of the loaded vector */
static int64_t
rows_read(const char *path, int64_t offset, int64_t length, int64_t rows)
{
	ts_err		err = {0};
	ts_deletion_vector *dv = ts_dv_load(ts_fs_local_unconfined(), path, offset, length, &err);
	int64_t		left = 0;

	assert_non_null(dv);
	for (int64_t p = 0; p < rows; p++)
		left += !ts_dv_is_deleted(dv, p);
	ts_dv_free(dv);
	return left;
}

static const dv_case cases[] = {
	{"last row deleted", 10, {9}, 1},
	{"first row deleted", 10, {0}, 1},
	{"first and last rows deleted", 10, {0, 9}, 2},
	{"every row deleted", 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10},
	{"empty bitmap", 10, {0}, 0},
	{"positions past the file's end", 10, {9, 10, 4095}, 3},
	{"one-row file, its row deleted", 1, {0}, 1},
	{"a container boundary: last row 65535", 65536, {0, 65535}, 2},
	{"the last row just past a container", 65537, {65536}, 1},
	{"empty file", 0, {0}, -1},
	{"no deletion vector", 7, {0}, -1},
};

#define NCASES ((int) (sizeof(cases) / sizeof(cases[0])))

/* Count one file alone, then all files in one split: equal to both oracles. */
static void
check_counts(bool is64)
{
	char		dir[] = "/tmp/ts_unit_count_dv.XXXXXX";
	char		paths[NCASES][64];
	ts_manifest_entry entries[NCASES];
	ts_scan_file files[NCASES];
	int64_t		expect_all = 0;

	assert_non_null(mkdtemp(dir));
	memset(entries, 0, sizeof(entries));
	memset(files, 0, sizeof(files));
	for (int i = 0; i < NCASES; i++)
	{
		const dv_case *c = &cases[i];

		entries[i].kind = TS_FILE_ADD;
		entries[i].file.row_count = c->rows;
		entries[i].file.nwrite_cols = -1;
		entries[i].file.delete_row_count = -1;
		files[i].entry = &entries[i];
		files[i].built_path = (char *) c->name;
		files[i].dv_cardinality = -1;
		snprintf(paths[i], sizeof(paths[i]), "%s/index-%d", dir, i);
		if (c->ndeleted >= 0)
		{
			files[i].dv_path = paths[i];
			files[i].dv_offset = 1;
			files[i].dv_length = write_index_file(paths[i], c->deleted, c->ndeleted, is64);
			files[i].dv_cardinality = c->ndeleted;
		}
		expect_all += rows_left(c);
	}

	for (int i = 0; i <= NCASES; i++)
	{
		/* i < NCASES: file i alone; i == NCASES: every file in one split */
		ts_split	split = {0};
		ts_plan		plan = {0};
		ts_err		err = {0};
		int64_t		counted = -1,
					expect;

		split.nfiles = i < NCASES ? 1 : NCASES;
		split.files = i < NCASES ? &files[i] : files;
		plan.kind = TS_TABLE_APPEND;
		plan.fs = ts_fs_local_unconfined();
		plan.table_path = dir;
		plan.nsplits = 1;
		plan.splits = &split;
		if (!ts_plan_count_rows(&plan, NULL, &counted, NULL, &err))
			fail_msg("%s: %s", i < NCASES ? cases[i].name : "all files", err.msg);
		expect = i < NCASES ? rows_left(&cases[i]) : expect_all;
		if (counted != expect)
			fail_msg("%s (%s): counted %lld rows, the file has %lld", i < NCASES ? cases[i].name : "all files",
					 is64 ? "64-bit" : "32-bit", (long long) counted, (long long) expect);
		if (i < NCASES && cases[i].ndeleted >= 0)
			assert_int_equal(rows_read(files[i].dv_path, 1, files[i].dv_length, cases[i].rows), expect);
	}
	for (int i = 0; i < NCASES; i++)
		unlink(paths[i]);
	rmdir(dir);
}

static void
test_count_dv32(void **state)
{
	(void) state;
	check_counts(false);
}

static void
test_count_dv64(void **state)
{
	(void) state;
	check_counts(true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_dv32),
		cmocka_unit_test(test_count_dv64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
