/*
 * test_blob.c - the .blob file reader (src/format/blob) over the real
 * Java-written files and over hand-built files for the cases the shared
 * tables do not have (NULL entries, placeholders, damaged records, other
 * versions).
 */
#include "unit.h"
#include "unit_fs.h"

#include <unistd.h>
#include <zlib.h>

#include "base/ts_fs.h"
#include "format/format.h"

static const ts_type blob_type = {.kind = TS_BLOB, .nullable = true};
static const ts_type int_type = {.kind = TS_INT, .nullable = true};

/* Read every row of a blob file; values rendered as their bytes, NULL as "<null>". */
static int
read_all(const char *path, int batch_rows, char ***rows, size_t **lens, ts_err *err)
{
	ts_read_column col = {8, "f5", &blob_type};
	ts_reader_options opts = {.fs = ts_fs_local_unconfined()};
	ts_format_reader *r;
	ts_batch	b;
	int			n = 0,
				k;

	opts.batch_rows = batch_rows;
	r = ts_format_open(TS_FORMAT_BLOB, path, &col, 1, &opts, err);
	if (r == NULL)
		return -1;
	*rows = NULL;
	*lens = NULL;
	while ((k = ts_format_next(r, &b, err)) > 0)
	{
		assert_int_equal(b.ncols, 1);
		assert_true(batch_rows == 0 || k <= batch_rows);
		*rows = realloc(*rows, (n + k) * sizeof(char *));
		*lens = realloc(*lens, (n + k) * sizeof(size_t));
		for (int i = 0; i < k; i++, n++)
		{
			const ts_value *v = ts_batch_at(&b, i, 0);

			if (v->isnull)
			{
				(*rows)[n] = strdup("<null>");
				(*lens)[n] = 0;
				continue;
			}
			(*rows)[n] = malloc(v->v.s.len + 1);
			memcpy((*rows)[n], v->v.s.p, v->v.s.len);
			(*rows)[n][v->v.s.len] = '\0';
			(*lens)[n] = v->v.s.len;
		}
	}
	assert_int_equal(r->metrics.rows_read, k < 0 ? r->metrics.rows_read : n);
	ts_format_close(r);
	return k < 0 ? -1 : n;
}

static void
free_rows(char **rows, size_t *lens, int n)
{
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
	free(lens);
}

/* The one blob file of a small data-evolution table: "Lily", "Alice". */
static void
test_real_small(void **state)
{
	const char *path = unit_shared_path("testdata/parquet/blob_data_evolution_with_dense_stats.db/"
										"blob_data_evolution_with_dense_stats/bucket-0/"
										"data-d007a81e-4682-42da-b458-eb0423a64511-1.blob");
	ts_err		err = {0};
	char	  **rows;
	size_t	   *lens;

	(void) state;
	for (int batch = 0; batch <= 1; batch++)
	{
		int			n = read_all(path, batch, &rows, &lens, &err);

		if (n < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(n, 2);
		assert_string_equal(rows[0], "Lily");
		assert_string_equal(rows[1], "Alice");
		free_rows(rows, lens, n);
	}
}

/* Multi-megabyte blobs: each value equals the source file it was written from. */
static void
test_real_large(void **state)
{
	static const struct
	{
		const char *blob;
		const char *const bins[4];
	}			files[] = {
		{"data-d7816e8e-6c6d-4e28-9137-837cdf706350-1.blob",
		{"blob_0_811d5dab.bin", "blob_1_b81cf9f4.bin", "blob_2_470e1dfe.bin"}},
		{"data-d7816e8e-6c6d-4e28-9137-837cdf706350-2.blob",
		{"blob_3_07b08c4d.bin", "blob_4_67007c96.bin"}},
		{"data-d7816e8e-6c6d-4e28-9137-837cdf706350-3.blob",
		{"blob_5_f7099dea.bin", "blob_6_6b6706ef.bin", "blob_7_6bcae65e.bin", "blob_8_5fba0737.bin"}},
		{"data-d7816e8e-6c6d-4e28-9137-837cdf706350-4.blob",
		{"blob_9_f54d253c.bin"}},
	};
	const char *dir = "testdata/db_with_blob.db/table_with_blob";

	(void) state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++)
	{
		char		rel[512];
		ts_err		err = {0};
		char	  **rows;
		size_t	   *lens;
		int			n,
					want = 0;

		snprintf(rel, sizeof(rel), "%s/bucket-0/%s", dir, files[f].blob);
		n = read_all(unit_shared_path(rel), 2, &rows, &lens, &err);
		if (n < 0)
			fail_msg("%s", err.msg);
		while (want < 4 && files[f].bins[want])
			want++;
		assert_int_equal(n, want);
		for (int i = 0; i < n; i++)
		{
			uint8_t    *data;
			size_t		len;

			snprintf(rel, sizeof(rel), "%s/%s", dir, files[f].bins[i]);
			if (!ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err))
				fail_msg("%s", err.msg);
			assert_true(len > 100000);
			assert_int_equal(lens[i], len);
			assert_memory_equal(rows[i], data, len);
			ts_free(data);
		}
		free_rows(rows, lens, n);
	}
}

/* ---- hand-built files ------------------------------------------------- */

typedef struct blob_builder
{
	uint8_t		buf[4096];
	size_t		len;
	int64_t		entries[64];
	int			n;
} blob_builder;

static void
put_le(blob_builder *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->buf[b->len++] = (uint8_t) (v >> (8 * i));
}

static void
add_value(blob_builder *b, const char *s)
{
	size_t		start = b->len,
				n = strlen(s);
	int64_t		reclen = (int64_t) n + 16;

	put_le(b, 0x584E11CFu, 4);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	put_le(b, (uint64_t) reclen, 8);
	put_le(b, (uint32_t) crc32(0L, b->buf + start, (uInt) (b->len - start)), 4);
	b->entries[b->n++] = reclen;
}

static void
add_entry(blob_builder *b, int64_t length)
{
	b->entries[b->n++] = length;
}

/* Index (delta, zig-zag, varint), index length, version; written to a temp file. */
static char *
finish(blob_builder *b, int version)
{
	static char path[64];
	int64_t		prev = 0;
	size_t		start = b->len;
	FILE	   *f;

	for (int i = 0; i < b->n; i++)
	{
		int64_t		d = b->entries[i] - prev;
		uint64_t	z = ((uint64_t) d << 1) ^ (uint64_t) (d >> 63);

		prev = b->entries[i];
		while (z >= 0x80)
		{
			b->buf[b->len++] = (uint8_t) (z | 0x80);
			z >>= 7;
		}
		b->buf[b->len++] = (uint8_t) z;
	}
	put_le(b, (uint32_t) (b->len - start), 4);
	b->buf[b->len++] = (uint8_t) version;
	snprintf(path, sizeof(path), "/tmp/ts_test_blob_%d.blob", (int) getpid());
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->buf, 1, b->len, f), b->len);
	fclose(f);
	return path;
}

static void
test_nulls(void **state)
{
	blob_builder b = {0};
	ts_err		err = {0};
	char	  **rows;
	size_t	   *lens;
	const char *path;
	int			n;

	(void) state;
	add_entry(&b, -1);
	add_value(&b, "one");
	add_entry(&b, -1);
	add_value(&b, "");
	add_value(&b, "three and more");
	add_entry(&b, -1);
	path = finish(&b, 1);
	for (int batch = 0; batch <= 2; batch++)
	{
		n = read_all(path, batch, &rows, &lens, &err);
		if (n < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(n, 6);
		assert_string_equal(rows[0], "<null>");
		assert_string_equal(rows[1], "one");
		assert_string_equal(rows[2], "<null>");
		assert_string_equal(rows[3], "");
		assert_string_equal(rows[4], "three and more");
		assert_string_equal(rows[5], "<null>");
		free_rows(rows, lens, n);
	}
	unlink(path);

	/* no rows at all */
	memset(&b, 0, sizeof(b));
	path = finish(&b, 1);
	n = read_all(path, 0, &rows, &lens, &err);
	assert_int_equal(n, 0);
	free_rows(rows, lens, 0);
	unlink(path);
}

static void
expect_error(blob_builder *b, int version, ts_errcode code, const char *needle)
{
	const char *path = finish(b, version);
	ts_err		err = {0};
	char	  **rows = NULL;
	size_t	   *lens = NULL;

	assert_int_equal(read_all(path, 0, &rows, &lens, &err), -1);
	assert_int_equal(err.code, code);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("\"%s\" not in \"%s\"", needle, err.msg);
	free_rows(rows, lens, 0);
	unlink(path);
}

static void
test_errors(void **state)
{
	blob_builder b;
	ts_read_column col = {0, "x", &int_type};
	ts_err		err = {0};
	const char *path;

	(void) state;

	/* a placeholder (partial BLOB update): Java's fallback read is not done */
	memset(&b, 0, sizeof(b));
	add_value(&b, "a");
	add_entry(&b, -2);
	expect_error(&b, 1, TS_ERR_UNSUPPORTED, "placeholder");

	/* another version */
	memset(&b, 0, sizeof(b));
	add_value(&b, "a");
	expect_error(&b, 2, TS_ERR_UNSUPPORTED, "version 2");

	/* a damaged byte fails the CRC */
	memset(&b, 0, sizeof(b));
	add_value(&b, "hello");
	b.buf[6] ^= 1;
	expect_error(&b, 1, TS_ERR_CORRUPT, "damaged");

	/* a record length the file does not hold */
	memset(&b, 0, sizeof(b));
	add_value(&b, "hello");
	b.entries[0] = 400;
	expect_error(&b, 1, TS_ERR_CORRUPT, "index entry 0");

	/* a length below the record overhead, and an unknown negative entry */
	memset(&b, 0, sizeof(b));
	add_entry(&b, 3);
	expect_error(&b, 1, TS_ERR_CORRUPT, "length 3");
	memset(&b, 0, sizeof(b));
	add_entry(&b, -3);
	expect_error(&b, 1, TS_ERR_CORRUPT, "length -3");

	/* an index length larger than the file */
	memset(&b, 0, sizeof(b));
	add_value(&b, "a");
	path = finish(&b, 1);
	{
		FILE	   *f = fopen(path, "r+b");
		uint8_t		big[4] = {0xff, 0xff, 0, 0};

		assert_non_null(f);
		fseek(f, -5, SEEK_END);
		fwrite(big, 1, 4, f);
		fclose(f);
	}
	assert_null(ts_format_open(TS_FORMAT_BLOB, path, NULL, 0, unit_local_read(), &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "index length"));

	/* only a BLOB column can be read */
	memset(&err, 0, sizeof(err));
	assert_null(ts_format_open(TS_FORMAT_BLOB, path, &col, 1, unit_local_read(), &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	unlink(path);

	/* too short to hold a footer */
	memset(&b, 0, sizeof(b));
	path = finish(&b, 1);
	assert_int_equal(truncate(path, 3), 0);
	memset(&err, 0, sizeof(err));
	assert_null(ts_format_open(TS_FORMAT_BLOB, path, NULL, 0, unit_local_read(), &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_small),
		cmocka_unit_test(test_real_large),
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
