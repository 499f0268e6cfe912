/*
 * test_s3_fetch.c - concurrent object store reads without a server: the
 * coalescing of ranges and the choice of prefetch windows (ranges.c), the
 * prefetch sets and the files fs.c serves from them (prefetch.c, fs.c),
 * the window of small files across splits (read/split_window.c),
 * ts_file_pread_many on local files, and the batch loop of s3_batch.c
 * against a closed local port (every request fails at once): a failure
 * among many is an error with no data kept, keep_going leaves each item's
 * code, a pending interrupt cancels.  Batches started ahead
 * (ts_s3_batch_start, ts_prefetch_start) against a small forked HTTP
 * server (every object is "hello world"; path /stall/... never answers):
 * moved on without waiting, one object waited for alone, finished while a
 * batch sent alone is waited for, canceled, abandoned after an abort; the
 * ranges of a file read ahead (ts_file_pread_many_start) served later, or
 * canceled.
 * Signing and stores' answers are tested by the regress suite s3 against
 * s3rver.
 */
#include "unit.h"
#include "forked_child.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_ranges.h"
#include "base/ts_s3.h"
#include "read/read.h"
#include "expr/predicate.h"

static void
test_coalesce(void **state)
{
	/* offsets out of order; 1000..1100 and 1150..1200 are 50 apart */
	ts_range	r[] = {
		{5000000, 100, NULL},	/* far: a run of its own */
		{1150, 50, NULL},
		{1000, 100, NULL},
		{1050, 10, NULL},		/* inside the first: overlap */
		{7000, 0, NULL},		/* empty: left out */
		{1300, 20, NULL},
	};
	int			order[6];
	ts_range_run runs[6];
	int			n;

	(void) state;
	n = ts_ranges_coalesce(r, 6, 100, 1 << 20, order, runs);
	assert_int_equal(n, 2);
	/* sorted: 1000 (2), 1050 (3), 1150 (1), 1300 (5), 5000000 (0) */
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 3);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 5);
	assert_int_equal(order[4], 0);
	assert_int_equal(runs[0].offset, 1000);
	assert_int_equal(runs[0].len, 320);	/* 1000 .. 1320 */
	assert_int_equal(runs[0].first, 0);
	assert_int_equal(runs[0].count, 4);
	assert_int_equal(runs[1].offset, 5000000);
	assert_int_equal(runs[1].len, 100);
	assert_int_equal(runs[1].first, 4);
	assert_int_equal(runs[1].count, 1);

	/* gap 0: only touching or overlapping ranges merge */
	n = ts_ranges_coalesce(r, 6, 0, 1 << 20, order, runs);
	assert_int_equal(n, 4);
	assert_int_equal(runs[0].len, 100);
	assert_int_equal(runs[0].count, 2);
	assert_int_equal(runs[1].offset, 1150);

	/* a run stays within max_run: 1000..1200 is 200 bytes, 1300 would make it 320 */
	n = ts_ranges_coalesce(r, 6, 100, 250, order, runs);
	assert_int_equal(n, 3);
	assert_int_equal(runs[0].len, 200);
	assert_int_equal(runs[0].count, 3);
	assert_int_equal(runs[1].offset, 1300);
	assert_int_equal(runs[1].count, 1);

	/* one range larger than max_run is one run */
	{
		ts_range	big[] = {{0, 1000, NULL}, {1000, 10, NULL}};

		n = ts_ranges_coalesce(big, 2, 100, 500, order, runs);
		assert_int_equal(n, 2);
		assert_int_equal(runs[0].len, 1000);
	}
	assert_int_equal(ts_ranges_coalesce(r, 0, 100, 100, order, runs), 0);
}

static void
test_window(void **state)
{
	int64_t		sizes[] = {10, 20, -1, 5};
	int64_t		big[] = {100, 1, 1};

	(void) state;
	assert_int_equal(ts_prefetch_window(sizes, 4, 50, 1000, 64), 2);	/* stops at the unknown size */
	assert_int_equal(ts_prefetch_window(sizes, 4, 15, 1000, 64), 1);	/* 20 is too large */
	assert_int_equal(ts_prefetch_window(sizes, 4, 50, 25, 64), 1);	/* 10 + 20 > 25 */
	assert_int_equal(ts_prefetch_window(sizes, 4, 50, 1000, 1), 1);	/* count */
	assert_int_equal(ts_prefetch_window(sizes + 2, 2, 50, 1000, 64), 0);
	assert_int_equal(ts_prefetch_window(big, 3, 50, 1000, 64), 0);	/* the first is too large */
	assert_int_equal(ts_prefetch_window(sizes, 0, 50, 1000, 64), 0);
}

static uint8_t *
dup_bytes(const char *s)
{
	uint8_t    *d = ts_malloc(strlen(s) + 1);

	memcpy(d, s, strlen(s) + 1);
	return d;
}

static void
test_prefetched_file(void **state)
{
	ts_err		err = {0};
	ts_prefetch *p = ts_prefetch_new(ts_fs_local_unconfined());
	ts_file    *f;
	char		buf[16];
	char		a[4] = {0},
				b[4] = {0},
				c[1] = {0};
	ts_range	rs[] = {{6, 3, a}, {0, 3, b}, {10, 1, c}};
	uint8_t    *data;
	size_t		len;
	ts_s3_config cfg = {0};
	ts_fs_settings other_settings = {&cfg};
	ts_fs	   *other;

	(void) state;
	assert_non_null(p);
	assert_true(ts_prefetch_add(p, "s3://lake/wh/m-1", dup_bytes("hello world"), 11));
	assert_int_equal(ts_prefetch_count(p), 1);
	assert_int_equal(ts_prefetch_bytes(p), 11);

	/* opened and read from memory: no settings, so any request would fail */
	f = ts_file_open(ts_fs_local_unconfined(), "s3://lake/wh/m-1", &err);
	assert_non_null(f);
	assert_int_equal(ts_file_size(f), 11);
	assert_true(ts_file_pread(f, buf, 5, 6, &err));
	assert_memory_equal(buf, "world", 5);
	assert_true(ts_file_pread_many(f, rs, 3, &err));
	assert_memory_equal(a, "wor", 3);
	assert_memory_equal(b, "hel", 3);
	assert_memory_equal(c, "d", 1);
	assert_false(ts_file_pread(f, buf, 2, 10, &err));	/* past the end */
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_file_close(f);
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), "s3://lake/wh/m-1", &data, &len, &err));
	assert_int_equal(len, 11);
	assert_string_equal((char *) data, "hello world");
	ts_free(data);

	/* another path is not in the set: it goes to the store */
	assert_null(ts_file_open(ts_fs_local_unconfined(), "s3://lake/wh/m-2", &err));
	assert_int_equal(err.code, TS_ERR_INVALID);

	/* other storage settings (another role's keys): not served */
	cfg.endpoint = "http://127.0.0.1:1";
	cfg.path_style = true;
	other = ts_fs_open_for("s3://lake/wh", &other_settings, NULL, &err);
	assert_non_null(other);
	assert_false(ts_prefetch_find(other, "s3://lake/wh/m-1", (const uint8_t **) &data, &len));
	ts_fs_free(other);

	/* freed: no longer served */
	ts_prefetch_free(p);
	assert_false(ts_prefetch_find(ts_fs_local_unconfined(), "s3://lake/wh/m-1", (const uint8_t **) &data, &len));
	assert_null(ts_file_open(ts_fs_local_unconfined(), "s3://lake/wh/m-1", &err));

	/* forgotten (after an abort): nothing served, the set is freed by its owner */
	p = ts_prefetch_new(ts_fs_local_unconfined());
	assert_true(ts_prefetch_add(p, "s3://lake/wh/m-3", dup_bytes("x"), 1));
	ts_prefetch_forget_all();
	assert_false(ts_prefetch_find(ts_fs_local_unconfined(), "s3://lake/wh/m-3", (const uint8_t **) &data, &len));
	ts_prefetch_free(p);

	/* local paths are never fetched: an empty set */
	{
		const char *paths[] = {"/tmp/none", "file:/tmp/none"};

		p = ts_prefetch_objects(ts_fs_local_unconfined(), paths, 2, &err);
		assert_non_null(p);
		assert_int_equal(ts_prefetch_count(p), 0);
		ts_prefetch_free(p);
	}
}

static void
test_pread_many_local(void **state)
{
	char		path[64];
	FILE	   *fp;
	ts_err		err = {0};
	ts_file    *f;
	char		a[3],
				b[3];
	ts_range	rs[] = {{7, 3, a}, {0, 0, NULL}, {1, 3, b}};
	ts_range	bad[] = {{8, 5, a}};

	(void) state;
	snprintf(path, sizeof(path), "/tmp/ts_unit_s3_fetch_%d", (int) getpid());
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("0123456789", fp);
	fclose(fp);
	f = ts_file_open(ts_fs_local_unconfined(), path, &err);
	assert_non_null(f);
	assert_true(ts_file_pread_many(f, rs, 3, &err));
	assert_memory_equal(a, "789", 3);
	assert_memory_equal(b, "123", 3);
	assert_false(ts_file_pread_many(f, bad, 1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_file_close(f);
	unlink(path);
}

static bool
always_pending(void)
{
	return true;
}

static bool
never_pending(void)
{
	return false;
}

/* A closed port: every request fails at once with "couldn't connect". */
static void
test_batch_failures(void **state)
{
	ts_s3_config cfg = {0};
	ts_fs_settings settings = {&cfg};
	ts_fs	   *fs;
	ts_s3_fetch items[5];
	char		bufs[5][8];
	ts_err		err = {0};

	(void) state;
	assert_true(ts_s3_fetch_all(NULL, items, 0, false, &err));
	memset(items, 0, sizeof(items));
	items[0].uri = "s3://lake/a";
	assert_false(ts_s3_fetch_all(NULL, items, 1, false, &err));	/* no settings */
	assert_int_equal(err.code, TS_ERR_INVALID);

	cfg.endpoint = "http://127.0.0.1:1";
	cfg.path_style = true;
	cfg.max_attempts = 1;
	cfg.max_in_flight = 2;		/* fewer slots than items */
	fs = ts_fs_open_for("s3://lake", &settings, NULL, &err);
	assert_non_null(fs);
	for (int i = 0; i < 5; i++)
	{
		memset(&items[i], 0, sizeof(items[i]));
		items[i].uri = i == 3 ? "s3://lake/whole" : "s3://lake/ranged";
		items[i].buf = i == 3 ? NULL : bufs[i];
		items[i].len = i == 4 ? 0 : 8;	/* an empty range: nothing to send */
		items[i].offset = 0;
		items[i].object_size = -1;
	}

	/* all or nothing: the failure is the batch's error, no data is kept */
	assert_false(ts_s3_fetch_all(&cfg, items, 5, false, &err));
	assert_int_equal(err.code, TS_ERR_IO);
	assert_non_null(strstr(err.msg, "failed after 1 attempt"));
	assert_non_null(strstr(err.msg, "s3://lake/"));
	for (int i = 0; i < 5; i++)
		assert_null(items[i].data);

	/* keep going: each item says it failed, the batch does not */
	memset(&err, 0, sizeof(err));
	assert_true(ts_s3_fetch_all(&cfg, items, 5, true, &err));
	for (int i = 0; i < 4; i++)
		assert_int_equal(items[i].code, TS_ERR_IO);
	assert_int_equal(items[4].code, TS_OK);

	/* a pending interrupt stops the batch before anything is sent */
	ts_set_interrupt_pending_hook(always_pending);
	assert_false(ts_s3_fetch_all(&cfg, items, 5, true, &err));
	assert_int_equal(err.code, TS_ERR_CANCELED);
	ts_set_interrupt_pending_hook(never_pending);

	/* prefetching what fails leaves it out (its reader reports why) */
	{
		const char *paths[] = {"s3://lake/m-1", "s3://lake/m-2"};
		ts_prefetch *p = ts_prefetch_objects(fs, paths, 2, &err);

		assert_non_null(p);
		assert_int_equal(ts_prefetch_count(p), 0);
		ts_prefetch_free(p);
	}
	ts_fs_free(fs);
}

/* An fs of s3://lake/t whose store is a closed port: every fetch fails at once. */
static ts_fs *
closed_port_fs(void)
{
	static ts_s3_config cfg;
	ts_fs_settings settings = {&cfg};
	ts_err		err = {0};
	ts_fs	   *fs;

	memset(&cfg, 0, sizeof(cfg));
	cfg.endpoint = "http://127.0.0.1:1";
	cfg.path_style = true;
	cfg.max_attempts = 1;
	fs = ts_fs_open_for("s3://lake/t", &settings, NULL, &err);
	assert_non_null(fs);
	return fs;
}

/*
 * The window across splits (read/split_window.c): whole splits while every
 * file is a small object of known size, within the file, byte and LIMIT
 * bounds; moving it fetches only outside the window.
 */
static void
test_split_window(void **state)
{
	ts_manifest_entry entries[8];
	ts_scan_file files[8];
	ts_split	splits[5];
	ts_plan		plan;
	ts_err		err = {0};
	ts_split_window w = {0};
	const uint8_t *found;
	size_t		found_len;
	/* files per split: 1, 2, 1, 3, 1; file 5 (of split 3) is 40 bytes */
	const int	nfiles[] = {1, 2, 1, 3, 1};
	int			f = 0;

	(void) state;
	memset(entries, 0, sizeof(entries));
	memset(files, 0, sizeof(files));
	memset(splits, 0, sizeof(splits));
	for (int i = 0; i < 8; i++)
	{
		entries[i].file.file_size = i == 5 ? 40 : 10;
		entries[i].file.row_count = 100;
		files[i].entry = &entries[i];
		files[i].built_path = "s3://lake/t/bucket-0/data.parquet";
	}
	for (int s = 0; s < 5; s++)
	{
		splits[s].files = &files[f];
		splits[s].nfiles = nfiles[s];
		f += nfiles[s];
	}
	memset(&plan, 0, sizeof(plan));
	plan.fs = ts_fs_local_unconfined();
	/* all: 8 files, 110 bytes */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 50, 1000), 5);
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 2, -1, 64, 50, 1000), 3);
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 5, -1, 64, 50, 1000), 0);
	/* files: 1 + 2 + 1 = 4, the next split's 3 would make 7 */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 6, 50, 1000), 3);
	/* bytes: 10 + 20 + 10 = 40, then 60 more */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 50, 99), 3);
	/* a file over max_each: its split ends the window, or makes it empty */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 30, 1000), 3);
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 3, -1, 64, 30, 1000), 0);
	/* a LIMIT of 250 rows: 100 + 200 reach it after two splits */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, 250, 64, 50, 1000), 2);
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, 0, 64, 50, 1000), 1);
	/* unknown size, a parallel task's byte range, a local file: not fetched whole */
	entries[2].file.file_size = 0;
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 50, 1000), 1);
	entries[2].file.file_size = 10;
	files[4].range_end = 5;		/* of split 3 */
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 50, 1000), 3);
	files[4].range_end = 0;
	files[0].built_path = "/tmp/t/bucket-0/data.parquet";
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 0, -1, 64, 50, 1000), 0);
	assert_int_equal(ts_split_window_size(&plan, splits, 5, 1, -1, 64, 50, 1000), 4);

	/* moving: the fetches fail (a closed port), the window moves all the same */
	memset(&plan, 0, sizeof(plan));
	plan.splits = splits;
	plan.nsplits = 5;
	plan.fs = closed_port_fs();
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_null(w.set);			/* split 0 is a local file: its reader's business */
	assert_int_equal(w.start, 0);
	assert_int_equal(w.end, 1);
	assert_true(ts_split_window_move(&w, &plan, 1, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_non_null(w.set);
	assert_int_equal(ts_prefetch_count(w.set), 0);	/* nothing could be fetched */
	assert_int_equal(err.code, TS_OK);
	assert_int_equal(w.start, 1);
	assert_int_equal(w.end, 5);
	{
		ts_prefetch *set = w.set;

		assert_true(ts_split_window_move(&w, &plan, 4, -1, TS_PREFETCH_FILE_MAX, &err));	/* inside */
		assert_ptr_equal(w.set, set);
	}
	assert_true(ts_split_window_move(&w, &plan, 9, -1, TS_PREFETCH_FILE_MAX, &err));	/* past the end */
	assert_null(w.set);
	/*
	 * A window is started, not waited for: a cancel is no error of the
	 * move; a file waited for then is not found (its reader's own request
	 * reports the cancel).
	 */
	ts_set_interrupt_pending_hook(always_pending);
	assert_true(ts_split_window_move(&w, &plan, 1, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_non_null(w.set);
	assert_false(ts_prefetch_find(plan.fs, "s3://lake/t/bucket-0/data.parquet", &found, &found_len));
	ts_set_interrupt_pending_hook(never_pending);
	ts_split_window_free(&w);
	assert_null(w.set);
	ts_fs_free(plan.fs);
}

/*
 * Files a scan reads whole anyway (every column of the table, nothing that
 * leaves a row group out) are fetched whole by the windows up to
 * TS_RANGE_AHEAD_BYTES when written with the plan's schema; any other scan,
 * or a file of an older schema, only up to TS_PREFETCH_FILE_MAX.
 */
static void
test_whole_files(void **state)
{
	ts_field	fields[3];
	char	   *pkeys[] = {"dt"};
	ts_schema	schema;
	ts_plan		plan;
	ts_manifest_entry entries[4];
	ts_scan_file files[4];
	ts_split	splits[4];
	ts_split_window w = {0};
	ts_err		err = {0};
	const int64_t mib = (int64_t) 1 << 20;
	int			all[] = {2, 0, 1};	/* dt (a partition column) is not needed */
	int			two[] = {0, 2};

	(void) state;
	memset(fields, 0, sizeof(fields));
	fields[0].name = "id";
	fields[1].name = "v";
	fields[2].name = "dt";
	memset(&schema, 0, sizeof(schema));
	schema.id = 3;
	schema.nfields = 3;
	schema.fields = fields;
	schema.npartition_keys = 1;
	schema.partition_keys = pkeys;
	memset(&plan, 0, sizeof(plan));
	plan.schema = &schema;
	plan.fs = ts_fs_local_unconfined();

	assert_int_equal(ts_read_whole_file_max(&plan, all, 3), TS_RANGE_AHEAD_BYTES);
	assert_int_equal(ts_read_whole_file_max(&plan, all + 1, 2), TS_RANGE_AHEAD_BYTES);
	assert_int_equal(ts_read_whole_file_max(&plan, two, 2), TS_PREFETCH_FILE_MAX);	/* no v */
	assert_int_equal(ts_read_whole_file_max(&plan, NULL, 0), TS_PREFETCH_FILE_MAX);
	plan.row_ids_used = true;
	assert_int_equal(ts_read_whole_file_max(&plan, all, 3), TS_PREFETCH_FILE_MAX);
	plan.row_ids_used = false;
	plan.predicate = (const struct ts_predicate *) &schema;	/* any predicate */
	assert_int_equal(ts_read_whole_file_max(&plan, all, 3), TS_PREFETCH_FILE_MAX);
	plan.predicate = NULL;

	memset(entries, 0, sizeof(entries));
	memset(files, 0, sizeof(files));
	memset(splits, 0, sizeof(splits));
	for (int i = 0; i < 4; i++)
	{
		entries[i].file.file_size = 20 * mib;
		entries[i].file.schema_id = 3;
		entries[i].file.row_count = 1000;
		files[i].entry = &entries[i];
		files[i].built_path = "s3://lake/t/dt=1/bucket-0/data.parquet";
		splits[i].files = &files[i];
		splits[i].nfiles = 1;
	}
	assert_true(ts_read_file_fetched_whole(&plan, &files[0], TS_RANGE_AHEAD_BYTES));
	assert_false(ts_read_file_fetched_whole(&plan, &files[0], TS_PREFETCH_FILE_MAX));
	entries[0].file.schema_id = 2;	/* an older schema: maybe columns not read */
	assert_false(ts_read_file_fetched_whole(&plan, &files[0], TS_RANGE_AHEAD_BYTES));
	entries[0].file.file_size = mib;	/* ... small: whole all the same */
	assert_true(ts_read_file_fetched_whole(&plan, &files[0], TS_RANGE_AHEAD_BYTES));
	entries[0].file.file_size = 20 * mib;
	entries[0].file.schema_id = 3;
	entries[1].file.file_size = TS_RANGE_AHEAD_BYTES + 1;
	assert_false(ts_read_file_fetched_whole(&plan, &files[1], TS_RANGE_AHEAD_BYTES));
	entries[1].file.file_size = 20 * mib;
	files[2].range_end = 5;		/* a parallel task's part */
	assert_false(ts_read_file_fetched_whole(&plan, &files[2], TS_RANGE_AHEAD_BYTES));
	files[2].range_end = 0;

	/* a window of 20 MiB files: three within TS_PREFETCH_WINDOW_BYTES (64 MiB) */
	assert_int_equal(ts_split_window_size(&plan, splits, 4, 0, -1, TS_PREFETCH_WINDOW_FILES,
										  TS_RANGE_AHEAD_BYTES, TS_PREFETCH_WINDOW_BYTES), 3);
	assert_int_equal(ts_split_window_size(&plan, splits, 4, 0, -1, TS_PREFETCH_WINDOW_FILES,
										  TS_PREFETCH_FILE_MAX, TS_PREFETCH_WINDOW_BYTES), 0);
	entries[1].file.schema_id = 2;
	assert_int_equal(ts_split_window_size(&plan, splits, 4, 0, -1, TS_PREFETCH_WINDOW_FILES,
										  TS_RANGE_AHEAD_BYTES, TS_PREFETCH_WINDOW_BYTES), 1);
	entries[1].file.schema_id = 3;

	/* moving the window: the scan's bound, but only small files under a LIMIT */
	plan.splits = splits;
	plan.nsplits = 4;
	plan.fs = closed_port_fs();
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_RANGE_AHEAD_BYTES, &err));
	assert_int_equal(w.file_max, TS_RANGE_AHEAD_BYTES);
	assert_int_equal(w.start, 0);
	assert_int_equal(w.end, 3);
	ts_split_window_free(&w);
	assert_true(ts_split_window_move(&w, &plan, 0, 10, TS_RANGE_AHEAD_BYTES, &err));
	assert_int_equal(w.file_max, TS_PREFETCH_FILE_MAX);
	assert_int_equal(w.end, 1);	/* nothing fetched: its reader reads it by ranges */
	assert_null(w.set);
	ts_split_window_free(&w);
	ts_fs_free(plan.fs);
}

/* ts_side_files: the deletion vectors' index files of a window, each once */
static void
test_side_files(void **state)
{
	ts_scan_file files[6];
	const char *paths[8] = {"s3://lake/t/bucket-0/data-0.parquet"};
	int64_t		sizes[8] = {0};
	int64_t		bytes = 0;
	int			n;

	(void) state;
	memset(files, 0, sizeof(files));
	files[0].dv_path = "s3://lake/t/index/dv-a";	/* shared by files 0 and 2 */
	files[0].dv_file_size = 30;
	files[1].dv_path = NULL;						/* no deletion vector */
	files[2].dv_path = "s3://lake/t/index/dv-a";
	files[2].dv_file_size = 30;
	files[3].dv_path = "s3://lake/t/index/dv-b";	/* size unknown: left out */
	files[3].dv_file_size = 0;
	files[4].dv_path = "/local/t/index/dv-c";		/* not an object */
	files[4].dv_file_size = 5;
	files[5].dv_path = "s3://lake/t/index/dv-d";
	files[5].dv_file_size = 20;
	n = ts_side_files(ts_fs_local_unconfined(), NULL, files, 6, 100, 1000, &bytes, paths, sizes, 1, 8);
	assert_int_equal(n, 3);
	assert_string_equal(paths[1], "s3://lake/t/index/dv-a");
	assert_string_equal(paths[2], "s3://lake/t/index/dv-d");
	/* each with its size from the manifest (the prefetch checks the body's) */
	assert_int_equal(sizes[1], 30);
	assert_int_equal(sizes[2], 20);
	assert_int_equal(bytes, 50);
	/* already in the list: not again; max_each and the byte budget */
	bytes = 0;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), NULL, files, 6, 100, 1000, &bytes, paths, NULL, 3, 8), 3);
	assert_int_equal(bytes, 0);
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), NULL, files, 6, 25, 1000, &bytes, paths, NULL, 1, 8), 2);	/* dv-a is 30 */
	assert_string_equal(paths[1], "s3://lake/t/index/dv-d");
	bytes = 0;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), NULL, files, 6, 100, 40, &bytes, paths, NULL, 1, 8), 2);	/* 30, then 20 > 40 */
	assert_string_equal(paths[1], "s3://lake/t/index/dv-a");
	/* room for max_paths only */
	bytes = 0;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), NULL, files, 6, 100, 1000, &bytes, paths, NULL, 1, 2), 2);
}

/* ts_side_files with a plan: the sidecar file indexes a read would fetch before each file */
static void
test_side_files_sidecars(void **state)
{
	ts_scan_file files[4];
	ts_manifest_entry e[4];
	ts_plan    *plan = calloc(1, sizeof(ts_plan));
	ts_predicate pred = {.op = TS_PRED_IS_NULL, .field = 0};
	const char *paths[16] = {"s3://lake/t/bucket-0/data-0.parquet"};
	int64_t		sizes[16] = {0};
	int64_t		bytes = 0;
	static uint8_t embedded[4] = {1, 2, 3, 4};

	(void) state;
	assert_non_null(plan);
	memset(files, 0, sizeof(files));
	memset(e, 0, sizeof(e));
	for (int i = 0; i < 4; i++)
		files[i].entry = &e[i];
	files[0].index_path = "s3://lake/t/bucket-0/data-0.parquet.index";
	files[0].dv_path = "s3://lake/t/index/dv-a";
	files[0].dv_file_size = 30;
	files[1].index_path = NULL;							/* no sidecar listed */
	files[2].index_path = "s3://lake/t/bucket-0/data-2.parquet.index";
	e[2].file.embedded_file_index.data = embedded;		/* embedded: no sidecar read */
	e[2].file.embedded_file_index.len = 4;
	files[3].index_path = "/local/t/bucket-0/data-3.parquet.index";	/* not an object */
	plan->predicate = &pred;
	plan->use_file_index = true;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), plan, files, 4, 100, 1000, &bytes, paths, sizes, 1, 16), 3);
	assert_string_equal(paths[1], "s3://lake/t/bucket-0/data-0.parquet.index");
	assert_int_equal(sizes[1], -1);		/* size unknown (not in the manifest) */
	assert_string_equal(paths[2], "s3://lake/t/index/dv-a");
	assert_int_equal(sizes[2], 30);
	assert_int_equal(bytes, 30);		/* only known sizes count against the budget */
	/* no predicate, or file indexes off: a read reads no sidecar, none fetched */
	bytes = 0;
	plan->predicate = NULL;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), plan, files, 4, 100, 1000, &bytes, paths, sizes, 1, 16), 2);
	assert_string_equal(paths[1], "s3://lake/t/index/dv-a");
	plan->predicate = &pred;
	plan->use_file_index = false;
	bytes = 0;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), plan, files, 4, 100, 1000, &bytes, paths, sizes, 1, 16), 2);
	/* room for the sidecar only */
	plan->use_file_index = true;
	bytes = 0;
	assert_int_equal(ts_side_files(ts_fs_local_unconfined(), plan, files, 4, 100, 1000, &bytes, paths, sizes, 1, 2), 2);
	assert_string_equal(paths[1], "s3://lake/t/bucket-0/data-0.parquet.index");
	free(plan);
}

/*
 * A forked HTTP/1.1 server on 127.0.0.1 (the port returned, its pid in
 * *pid): each connection in a child of its own; every GET is answered 200
 * with "hello world" (a Range is ignored: stores may do so), kept alive,
 * but a path starting "/lake/stall" gets no answer; a HEAD gets the
 * headers alone (an object of 11 bytes).
 */
static pid_t live_server = -1;	/* for teardown_server when a test failed */

static int
start_server(pid_t *pid)
{
	int			ls = socket(AF_INET, SOCK_STREAM, 0);
	pid_t		self = getpid();
	struct sockaddr_in a;
	socklen_t	alen = sizeof(a);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ls, (struct sockaddr *) &a, sizeof(a)), 0);
	assert_int_equal(listen(ls, 64), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *) &a, &alen), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid > 0)
	{
		setpgid(*pid, *pid);
		live_server = *pid;
	}
	if (*pid == 0)
	{
		pid_t		server = getpid();

		setpgid(0, 0);			/* its connections' children with it: stop_server ends all */
		unit_forked_child(self, 0);
		signal(SIGCHLD, SIG_IGN);
		for (;;)
		{
			int			c = accept(ls, NULL, NULL);

			if (c < 0)
				continue;
			if (fork() == 0)
			{
				char		req[8192];
				size_t		have = 0;

				unit_forked_child(server, 0);

				for (;;)
				{
					ssize_t		k = read(c, req + have, sizeof(req) - 1 - have);
					char	   *end;

					if (k <= 0)
						_exit(0);
					have += (size_t) k;
					req[have] = '\0';
					while ((end = strstr(req, "\r\n\r\n")) != NULL)
					{
						static const char ok[] =
							"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world";
						size_t		used = (size_t) (end + 4 - req);

						if (strncmp(req, "HEAD ", 5) == 0)
						{
							static const char head[] =
								"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n";

							if (write(c, head, sizeof(head) - 1) < 0)
								_exit(0);
							memmove(req, req + used, have - used + 1);
							have -= used;
							continue;
						}
						if (strncmp(req, "GET /lake/stall", 15) == 0)
						{
							pause();
							_exit(0);
						}
						if (write(c, ok, sizeof(ok) - 1) < 0)
							_exit(0);
						memmove(req, req + used, have - used + 1);
						have -= used;
					}
				}
			}
			close(c);
		}
	}
	close(ls);
	return ntohs(a.sin_port);
}

static void
stop_server(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	live_server = -1;
}

/* cmocka teardown: the server of a test that failed before stop_server */
static int
teardown_server(void **state)
{
	(void) state;
	if (live_server > 0)
		stop_server(live_server);
	return 0;
}

/*
 * An fs of bucket "lake" on a fresh start_server (its pid in *pid), its
 * settings in *cfg (endpoint: the caller's 64 bytes): one attempt per
 * request, max_in_flight at once.
 */
static ts_fs *
open_test_store(pid_t *pid, char *endpoint, ts_s3_config *cfg, int max_in_flight)
{
	ts_fs_settings settings = {cfg};
	ts_err		err = {0};
	ts_fs	   *fs;

	snprintf(endpoint, 64, "http://127.0.0.1:%d", start_server(pid));
	cfg->endpoint = endpoint;
	cfg->path_style = true;
	cfg->max_attempts = 1;
	cfg->max_in_flight = max_in_flight;
	fs = ts_fs_open_for("s3://lake", &settings, NULL, &err);
	assert_non_null(fs);
	return fs;
}

static void
test_batch_ahead(void **state)
{
	pid_t		pid;
	char		endpoint[64];
	ts_s3_config cfg = {0};
	ts_fs	   *fs;
	ts_s3_fetch items[4];
	ts_s3_fetch alone[1];
	char		bufs[4][5];
	ts_err		err = {0};
	ts_s3_batch *b;
	int64_t		trips;
	const uint8_t *data;
	size_t		len;

	(void) state;
	fs = open_test_store(&pid, endpoint, &cfg, 2); /* fewer slots than items */

	/* started: one round trip counted, then moved on without waiting until done */
	memset(items, 0, sizeof(items));
	for (int i = 0; i < 4; i++)
	{
		items[i].uri = i == 3 ? "s3://lake/whole" : "s3://lake/part";
		items[i].buf = i == 3 ? NULL : bufs[i];
		items[i].len = 5;
		items[i].offset = 6;
		items[i].object_size = -1;
	}
	trips = ts_s3_round_trip_count();
	b = ts_s3_batch_start(&cfg, items, 4, false, &err);
	assert_non_null(b);
	assert_int_equal(ts_s3_round_trip_count(), trips + 1);
	for (int k = 0; k < 60000 && !ts_s3_batch_done(b); k++)
		usleep(1000);
	assert_true(ts_s3_batch_done(b));
	assert_true(ts_s3_batch_wait(b, &err));
	for (int i = 0; i < 3; i++)
	{
		assert_int_equal(items[i].code, TS_OK);
		assert_memory_equal(bufs[i], "world", 5);	/* the range's bytes of a 200 */
	}
	assert_int_equal(items[3].code, TS_OK);
	assert_int_equal(items[3].data_len, 11);
	assert_string_equal((char *) items[3].data, "hello world");
	ts_free(items[3].data);

	/* one item waited for alone; a batch sent alone meanwhile finishes the others' too */
	memset(bufs, 0, sizeof(bufs));
	b = ts_s3_batch_start(&cfg, items, 3, false, &err);
	assert_non_null(b);
	assert_true(ts_s3_batch_wait_item(b, 1, &err));
	assert_int_equal(items[1].code, TS_OK);
	memset(alone, 0, sizeof(alone));
	alone[0].uri = "s3://lake/other";
	alone[0].object_size = -1;
	assert_true(ts_s3_fetch_all(&cfg, alone, 1, false, &err));
	assert_string_equal((char *) alone[0].data, "hello world");
	ts_free(alone[0].data);
	assert_true(ts_s3_batch_wait(b, &err));
	for (int i = 0; i < 3; i++)
		assert_memory_equal(bufs[i], "world", 5);

	/* a stalled store: not done; canceled; an interrupt while waiting; abandoned */
	for (int i = 0; i < 3; i++)
		items[i].uri = "s3://lake/stall/x";
	b = ts_s3_batch_start(&cfg, items, 3, true, &err);
	assert_non_null(b);
	ts_s3_drive();
	assert_false(ts_s3_batch_done(b));
	ts_s3_batch_cancel(b);
	ts_s3_drive();				/* nothing left to move on */
	b = ts_s3_batch_start(&cfg, items, 3, true, &err);
	ts_set_interrupt_pending_hook(always_pending);
	assert_false(ts_s3_batch_wait(b, &err));
	assert_int_equal(err.code, TS_ERR_CANCELED);
	ts_set_interrupt_pending_hook(never_pending);
	b = ts_s3_batch_start(&cfg, items, 3, true, &err);
	ts_s3_batch_forget_all();	/* an abort */
	assert_true(ts_s3_batch_wait(b, &err));	/* keep going: each item not fetched */
	for (int i = 0; i < 3; i++)
		assert_int_not_equal(items[i].code, TS_OK);
	b = ts_s3_batch_start(&cfg, items, 3, false, &err);
	ts_s3_batch_forget_all();
	assert_false(ts_s3_batch_wait(b, &err));
	assert_int_equal(err.code, TS_ERR_IO);

	/* a set started ahead: an object asked for is waited for alone, then served */
	{
		const char *paths[] = {"s3://lake/d-1", "s3://lake/d-2", "s3://lake/stall/d-3"};
		ts_prefetch *p = ts_prefetch_start(fs, paths, 3, &err);

		assert_non_null(p);
		assert_int_equal(ts_prefetch_count(p), 0);	/* nothing registered yet */
		assert_true(ts_prefetch_find(fs, "s3://lake/d-2", &data, &len));
		assert_int_equal(len, 11);
		assert_memory_equal(data, "hello world", 11);
		assert_int_equal(ts_prefetch_count(p), 1);
		assert_false(ts_prefetch_ready(p));	/* d-3 never comes */
		ts_prefetch_free(p);	/* stops it */
		assert_false(ts_prefetch_find(fs, "s3://lake/d-2", &data, &len));

		p = ts_prefetch_start(fs, paths, 2, &err);
		assert_non_null(p);
		assert_true(ts_prefetch_wait(p, &err));
		assert_int_equal(ts_prefetch_count(p), 2);
		assert_true(ts_prefetch_ready(p));
		assert_true(ts_prefetch_find(fs, "s3://lake/d-1", &data, &len));
		ts_prefetch_free(p);
	}
	ts_fs_free(fs);
	stop_server(pid);
}

/*
 * Ranges of an object read ahead (ts_file_pread_many_start, as the Parquet
 * reader reads the next row group): the GETs are started, the bytes are
 * served only when finished; a read started on a store that never answers
 * is canceled, and the file reads on.  A local file is read at once.
 */
static void
test_pread_ahead(void **state)
{
	pid_t		pid;
	char		endpoint[64];
	ts_s3_config cfg = {0};
	ts_fs	   *fs;
	ts_err		err = {0};
	char		b0[5],
				b1[5];
	ts_range	r[2];
	ts_file    *f;
	ts_file_reads *rd;
	int64_t		trips,
				reqs;
	char		tmp[] = "/tmp/ts_unit_ahead_XXXXXX";
	int			fd;

	(void) state;
	fs = open_test_store(&pid, endpoint, &cfg, 2);

	f = ts_file_open(fs, "s3://lake/part", &err);
	assert_non_null(f);
	assert_int_equal(ts_file_size(f), 11);
	assert_true(ts_file_is_remote(f));
	memset(b0, 0, 5);
	memset(b1, 0, 5);
	r[0] = (ts_range) {6, 5, b1};	/* out of order: coalesced into one GET of 0..11 */
	r[1] = (ts_range) {0, 5, b0};
	trips = ts_s3_round_trip_count();
	reqs = ts_s3_request_count();
	rd = ts_file_pread_many_start(f, r, 2, &err);
	assert_non_null(rd);
	assert_int_equal(ts_s3_round_trip_count(), trips + 1);
	memset(r, 0, sizeof(r));	/* the handle keeps its own copy */
	for (int k = 0; k < 60000 && !ts_file_pread_many_ready(rd); k++)
	{
		ts_s3_drive();
		usleep(1000);
	}
	assert_true(ts_file_pread_many_ready(rd));
	assert_memory_equal(b0, "\0\0\0\0\0", 5);	/* served when finished, not before */
	assert_true(ts_file_pread_many_finish(rd, &err));
	assert_memory_equal(b0, "hello", 5);
	assert_memory_equal(b1, "world", 5);
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	assert_int_equal(ts_s3_round_trip_count(), trips + 1);	/* no second wait */

	/* past the end: refused before any request */
	r[0] = (ts_range) {8, 5, b0};
	assert_null(ts_file_pread_many_start(f, r, 1, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	ts_file_close(f);

	/* a store that never answers: not ready, canceled, nothing left running */
	f = ts_file_open(fs, "s3://lake/stall/part", &err);
	assert_non_null(f);
	memset(b0, 0, 5);
	r[0] = (ts_range) {0, 5, b0};
	rd = ts_file_pread_many_start(f, r, 1, &err);
	assert_non_null(rd);
	ts_s3_drive();
	assert_false(ts_file_pread_many_ready(rd));
	ts_file_pread_many_cancel(rd);
	ts_s3_drive();				/* nothing of it left to move on */
	assert_memory_equal(b0, "\0\0\0\0\0", 5);
	ts_file_pread_many_cancel(NULL);
	ts_file_close(f);

	/* and the store is read on: the slots were given back */
	f = ts_file_open(fs, "s3://lake/part", &err);
	assert_non_null(f);
	r[0] = (ts_range) {0, 5, b0};
	r[1] = (ts_range) {6, 5, b1};
	memset(b1, 0, 5);
	assert_true(ts_file_pread_many(f, r, 2, &err));
	assert_memory_equal(b0, "hello", 5);
	assert_memory_equal(b1, "world", 5);
	ts_file_close(f);
	ts_fs_free(fs);
	stop_server(pid);

	/* a local file: read at once, no request */
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello world", 11), 11);
	close(fd);
	f = ts_file_open(ts_fs_local_unconfined(), tmp, &err);
	assert_non_null(f);
	memset(b0, 0, 5);
	r[0] = (ts_range) {6, 5, b0};
	reqs = ts_s3_request_count();
	rd = ts_file_pread_many_start(f, r, 1, &err);
	assert_non_null(rd);
	assert_memory_equal(b0, "world", 5);
	assert_true(ts_file_pread_many_ready(rd));
	assert_true(ts_file_pread_many_finish(rd, &err));
	assert_int_equal(ts_s3_request_count(), reqs);
	ts_file_close(f);
	unlink(tmp);
}

/*
 * An object's first and last bytes read together and held
 * (ts_file_hold_ends, as the Parquet and ORC readers read the tail with
 * the first row group / stripe): one round trip for both, later reads in
 * them are copies, a read outside them is a request; when they cover the
 * object it is held whole and no longer remote.
 */
static void
test_hold_ends(void **state)
{
	pid_t		pid;
	char		endpoint[64];
	ts_s3_config cfg = {0};
	ts_fs	   *fs;
	ts_err		err = {0};
	char		b0[6],
				b1[6];
	ts_range	r[2];
	ts_file    *f;
	ts_file_reads *rd;
	int64_t		trips,
				reqs;

	(void) state;
	fs = open_test_store(&pid, endpoint, &cfg, 4);

	f = ts_file_open(fs, "s3://lake/part", &err);
	assert_non_null(f);
	trips = ts_s3_round_trip_count();
	reqs = ts_s3_request_count();
	assert_true(ts_file_hold_ends(f, 3, 2, &err));
	assert_int_equal(ts_s3_round_trip_count(), trips + 1);	/* head and tail together */
	assert_int_equal(ts_s3_request_count(), reqs + 1);	/* near: one GET */
	assert_true(ts_file_is_remote(f));
	memset(b0, 0, sizeof(b0));
	memset(b1, 0, sizeof(b1));
	assert_true(ts_file_pread(f, b0, 3, 0, &err));
	assert_memory_equal(b0, "hel", 3);
	r[0] = (ts_range) {9, 2, b1};
	r[1] = (ts_range) {1, 2, b0};
	rd = ts_file_pread_many_start(f, r, 2, &err);
	assert_non_null(rd);
	assert_true(ts_file_pread_many_ready(rd));
	assert_true(ts_file_pread_many_finish(rd, &err));
	assert_memory_equal(b1, "ld", 2);
	assert_memory_equal(b0, "el", 2);
	assert_true(ts_file_pread_many(f, r, 2, &err));
	assert_int_equal(ts_s3_request_count(), reqs + 1);	/* all copies */
	/* a range the held bytes do not hold (in part): a request */
	assert_true(ts_file_pread(f, b0, 5, 2, &err));
	assert_memory_equal(b0, "llo w", 5);
	assert_int_equal(ts_s3_request_count(), reqs + 2);
	ts_file_close(f);

	/* head and tail cover the object: held whole, one round trip */
	f = ts_file_open(fs, "s3://lake/part", &err);
	assert_non_null(f);
	trips = ts_s3_round_trip_count();
	reqs = ts_s3_request_count();
	assert_true(ts_file_hold_ends(f, 6, 5, &err));
	assert_int_equal(ts_s3_round_trip_count(), trips + 1);
	assert_false(ts_file_is_remote(f));
	assert_true(ts_file_pread(f, b0, 5, 6, &err));
	assert_memory_equal(b0, "world", 5);
	assert_true(ts_file_hold_ends(f, 6, 5, &err));	/* held already: nothing */
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	ts_file_close(f);

	/* a store that fails the read: the error, nothing held */
	f = ts_file_open(fs, "s3://lake/part", &err);
	assert_non_null(f);
	stop_server(pid);
	assert_false(ts_file_hold_ends(f, 3, 2, &err));
	assert_true(ts_file_is_remote(f));
	ts_file_close(f);
	ts_fs_free(fs);
}

/*
 * The ends of objects fetched ahead of their open (ts_prefetch_start_ends):
 * never served as whole objects; bytes inside a part found, others not;
 * ts_file_hold_ends takes what the parts hold and asks for the rest; an
 * object of another size than the one given, a set freed or another fs:
 * not found (the open sends its own request).
 */
static void
test_ends_ahead(void **state)
{
	pid_t		pid;
	char		endpoint[64];
	ts_s3_config cfg = {0};
	ts_fs	   *fs,
			   *other;
	ts_err		err = {0};
	const char *paths[] = {"s3://lake/part", "s3://lake/other"};
	int64_t		sizes[] = {11, 12};	/* the second is not the size the store has */
	ts_prefetch *p,
			   *sized;
	const uint8_t *d;
	size_t		len;
	ts_file    *f;
	char		b[8];
	int64_t		reqs;

	(void) state;
	fs = open_test_store(&pid, endpoint, &cfg, 8);
	reqs = ts_s3_request_count();
	p = ts_prefetch_start_ends(fs, paths, sizes, 2, 3, 2, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count(), reqs + 4);	/* a head and a tail each */
	assert_false(ts_prefetch_find(fs, paths[0], &d, &len));	/* a part is not the object */
	assert_true(ts_prefetch_find_range(fs, paths[0], 0, 3, &d));
	assert_memory_equal(d, "hel", 3);
	assert_true(ts_prefetch_find_range(fs, paths[0], 9, 2, &d));
	assert_memory_equal(d, "ld", 2);
	assert_true(ts_prefetch_find_range(fs, paths[0], 1, 2, &d));	/* inside the head */
	assert_memory_equal(d, "el", 2);
	assert_false(ts_prefetch_find_range(fs, paths[0], 2, 5, &d));	/* past the head */
	assert_false(ts_prefetch_find_range(fs, paths[1], 10, 2, &d));	/* an object of 11 bytes, not 12 */
	assert_false(ts_prefetch_find_range(fs, paths[1], 0, 3, &d));
	assert_false(ts_prefetch_find_range(fs, "s3://lake/none", 0, 3, &d));
	{
		ts_s3_config ocfg = cfg;
		ts_fs_settings settings = {&ocfg};

		other = ts_fs_open_for("s3://lake", &settings, NULL, &err);
		assert_non_null(other);
		assert_false(ts_prefetch_find_range(other, paths[0], 0, 3, &d));	/* not its set */
		ts_fs_free(other);
	}

	/* an open (its size known, as a scan's: no HEAD) takes both ends from the parts: no request */
	sized = ts_prefetch_new(fs);
	assert_true(ts_prefetch_add_size(sized, paths[0], 11));
	reqs = ts_s3_request_count();
	f = ts_file_open(fs, paths[0], &err);
	assert_non_null(f);
	assert_true(ts_file_hold_ends(f, 3, 2, &err));
	assert_int_equal(ts_s3_request_count(), reqs);
	memset(b, 0, sizeof(b));
	assert_true(ts_file_pread(f, b, 3, 0, &err));
	assert_memory_equal(b, "hel", 3);
	assert_true(ts_file_pread(f, b, 2, 9, &err));
	assert_memory_equal(b, "ld", 2);
	assert_int_equal(ts_s3_request_count(), reqs);
	ts_file_close(f);
	/* a longer head than the part's: that end requested, the tail taken */
	f = ts_file_open(fs, paths[0], &err);
	assert_non_null(f);
	reqs = ts_s3_request_count();
	assert_true(ts_file_hold_ends(f, 4, 2, &err));
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	assert_true(ts_file_pread(f, b, 4, 0, &err));
	assert_memory_equal(b, "hell", 4);
	ts_file_close(f);

	/* freed: gone */
	ts_prefetch_free(p);
	ts_prefetch_free(sized);
	assert_false(ts_prefetch_find_range(fs, paths[0], 0, 3, &d));
	/* objects not larger than both ends, or empty ends: nothing asked */
	reqs = ts_s3_request_count();
	p = ts_prefetch_start_ends(fs, paths, sizes, 1, 6, 5, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count(), reqs);
	ts_prefetch_free(p);
	p = ts_prefetch_start_ends(fs, paths, sizes, 1, 0, 5, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count(), reqs);
	ts_prefetch_free(p);
	stop_server(pid);
	ts_fs_free(fs);
}


/*
 * Parts fetched ahead (ts_prefetch_start_parts) serve a file's reads that
 * they hold, with no request: ranges started together, one read; others
 * are requested.  A part outside its object or empty is not asked for.
 */
static void
test_parts_ahead(void **state)
{
	pid_t		pid;
	char		endpoint[64];
	ts_s3_config cfg = {0};
	ts_fs	   *fs;
	ts_err		err = {0};
	const char *path = "s3://lake/part";	/* "hello world", 11 bytes */
	ts_prefetch_part parts[] = {
		{path, 11, 2, 5},		/* "llo w" */
		{path, 11, 8, 5},		/* past the end: left out */
		{path, 11, 0, 0},		/* empty: left out */
		{"/tmp/local", 11, 0, 5},	/* not an object: left out */
	};
	ts_prefetch *p,
			   *sized;
	ts_file    *f;
	ts_file_reads *rd;
	char		b1[8],
				b2[8];
	ts_range	rg[2];
	int64_t		reqs;

	(void) state;
	fs = open_test_store(&pid, endpoint, &cfg, 8);
	reqs = ts_s3_request_count();
	p = ts_prefetch_start_parts(fs, parts, 4, &err);
	assert_non_null(p);
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	sized = ts_prefetch_new(fs);
	assert_true(ts_prefetch_add_size(sized, path, 11));
	f = ts_file_open(fs, path, &err);
	assert_non_null(f);
	reqs = ts_s3_request_count();
	/* two ranges inside the part, started: no request */
	memset(b1, 0, sizeof(b1));
	memset(b2, 0, sizeof(b2));
	rg[0] = (ts_range) {2, 3, b1};
	rg[1] = (ts_range) {4, 3, b2};
	rd = ts_file_pread_many_start(f, rg, 2, &err);
	assert_non_null(rd);
	assert_true(ts_file_pread_many_finish(rd, &err));
	assert_memory_equal(b1, "llo", 3);
	assert_memory_equal(b2, "o w", 3);
	/* one read inside it */
	assert_true(ts_file_pread(f, b1, 2, 5, &err));
	assert_memory_equal(b1, " w", 2);
	assert_int_equal(ts_s3_request_count(), reqs);
	/* one past it: requested */
	assert_true(ts_file_pread(f, b1, 4, 6, &err));
	assert_memory_equal(b1, "worl", 4);
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	ts_file_close(f);
	/* the set freed: its bytes are read again */
	ts_prefetch_free(p);
	f = ts_file_open(fs, path, &err);
	assert_non_null(f);
	reqs = ts_s3_request_count();
	assert_true(ts_file_pread(f, b1, 3, 2, &err));
	assert_memory_equal(b1, "llo", 3);
	assert_int_equal(ts_s3_request_count(), reqs + 1);
	ts_file_close(f);
	ts_prefetch_free(sized);
	stop_server(pid);
	ts_fs_free(fs);
}

/*
 * The ends of the next files read by ranges (ends_ahead.c): requested for
 * a group of splits of at most 16 such files and for the group after it,
 * the group moved along as the scan moves; not under a LIMIT nor when the
 * scan's windows take such files whole; a jump (a rescan) starts again
 * from the split it jumps to.
 */
static void
test_ends_groups(void **state)
{
	enum
	{
		N = 40
	};
	ts_manifest_entry entries[N];
	ts_scan_file files[N];
	ts_split	splits[N];
	ts_plan		plan;
	ts_err		err = {0};
	ts_split_window w = {0};
	int64_t		mib = (int64_t) 1 << 20;

	(void) state;
	memset(entries, 0, sizeof(entries));
	memset(files, 0, sizeof(files));
	memset(splits, 0, sizeof(splits));
	for (int i = 0; i < N; i++)
	{
		entries[i].file.file_size = 20 * mib;	/* read by ranges */
		files[i].entry = &entries[i];
		files[i].format = TS_FORMAT_PARQUET;
		files[i].built_path = "s3://lake/t/bucket-0/data.parquet";
	}
	/* splits of 1 file each, but split 1 has 3 and split 5 none */
	for (int s = 0, f = 0; s < 30; s++)
	{
		int			n = s == 1 ? 3 : s == 5 ? 0 : 1;

		splits[s].files = &files[f];
		splits[s].nfiles = n;
		f += n;
	}
	memset(&plan, 0, sizeof(plan));
	plan.splits = splits;
	plan.nsplits = 30;
	plan.fs = closed_port_fs();	/* the requests fail: the groups move all the same */
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_PREFETCH_FILE_MAX, &err));
	/* 1 + 3 + 1 + 1 + 1 + 0 + 1 x 9 = 16 files: splits 0-14, then 15 on */
	assert_int_equal(w.ends_start, 0);
	assert_int_equal(w.ends_end, 15);
	assert_non_null(w.ends);
	assert_non_null(w.ends_ahead);
	assert_int_equal(w.ends_ahead_end, 30);	/* 15 files left */
	assert_int_equal(w.chunks_next, 1);
	assert_true(ts_split_window_move(&w, &plan, 1, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_int_equal(w.ends_end, 15);	/* in the group: nothing new */
	assert_int_equal(w.chunks_next, 2);
	assert_true(ts_split_window_move(&w, &plan, 15, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_int_equal(w.ends_start, 15);	/* the group ahead taken */
	assert_int_equal(w.ends_end, 30);
	assert_null(w.ends_ahead);
	assert_int_equal(w.chunks_next, 16);
	/* a rescan: from split 0 again */
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_int_equal(w.ends_start, 0);
	assert_int_equal(w.ends_end, 15);
	assert_int_equal(w.chunks_next, 1);
	/* a LIMIT, or a scan whose windows take the files whole: none */
	assert_true(ts_split_window_move(&w, &plan, 2, 10, TS_PREFETCH_FILE_MAX, &err));
	assert_null(w.ends);
	assert_null(w.ends_ahead);
	ts_split_window_free(&w);
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_RANGE_AHEAD_BYTES, &err));
	assert_null(w.ends);
	ts_split_window_free(&w);
	/* a split of more than 16 such files: its first 16 alone */
	splits[0].files = &files[0];
	splits[0].nfiles = 20;
	plan.splits = splits;
	assert_true(ts_split_window_move(&w, &plan, 0, -1, TS_PREFETCH_FILE_MAX, &err));
	assert_int_equal(w.ends_end, 1);
	ts_split_window_free(&w);
	ts_fs_free(plan.fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_prefetched_file),
		cmocka_unit_test(test_pread_many_local),
		cmocka_unit_test(test_batch_failures),
		cmocka_unit_test(test_split_window),
		cmocka_unit_test(test_whole_files),
		cmocka_unit_test_teardown(test_ends_ahead, teardown_server),
		cmocka_unit_test_teardown(test_parts_ahead, teardown_server),
		cmocka_unit_test(test_ends_groups),
		cmocka_unit_test(test_side_files),
		cmocka_unit_test(test_side_files_sidecars),
		cmocka_unit_test_teardown(test_batch_ahead, teardown_server),
		cmocka_unit_test_teardown(test_pread_ahead, teardown_server),
		cmocka_unit_test_teardown(test_hold_ends, teardown_server),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
