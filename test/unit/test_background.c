/*
 * test_background.c - the helper thread that decompresses ZSTD frames ahead
 * (src/base/background.c): jobs decompressed in order (of need, then of
 * submission) or taken back,
 * draining, bad frames, jobs that read their frame from a file first, and
 * saying no while off.
 */
#include "unit.h"

#include <unistd.h>
#include <zstd.h>

#include "base/ts_background.h"

#define NJOBS 64

typedef struct frame
{
	uint8_t    *raw;			/* what the frame holds */
	size_t		raw_len;
	uint8_t    *z;				/* the frame */
	size_t		z_len;
	uint8_t    *out;			/* where it is decompressed to */
	ts_bg_job	job;
} frame;

/* A frame of len bytes of a pattern that depends on seed (compressible, not trivial). */
static void
make_frame(frame *f, size_t len, unsigned seed)
{
	size_t		bound = ZSTD_compressBound(len);

	memset(f, 0, sizeof(*f));
	f->raw = malloc(len ? len : 1);
	f->out = calloc(1, len ? len : 1);
	f->z = malloc(bound);
	assert_non_null(f->raw);
	assert_non_null(f->out);
	assert_non_null(f->z);
	for (size_t i = 0; i < len; i++)
	{
		seed = seed * 1103515245u + 12345u;
		f->raw[i] = (uint8_t) ((i % 97 < 60) ? 'a' + i % 7 : seed >> 24);
	}
	f->raw_len = len;
	f->z_len = ZSTD_compress(f->z, bound, f->raw, len, 3);
	assert_false(ZSTD_isError(f->z_len));
	f->job.src = f->z;
	f->job.src_len = f->z_len;
	f->job.dst = f->out;
	f->job.dst_len = len;
}

static void
free_frame(frame *f)
{
	free(f->raw);
	free(f->out);
	free(f->z);
}

/* The job's frame decompressed by whoever got to it: the thread or us. */
static void
finish_and_check(frame *f, int *by_thread, int *taken_back)
{
	size_t		n;

	if (ts_bg_finish(&f->job))
	{
		n = f->job.result;
		(*by_thread)++;
	}
	else
	{
		/* not started: untouched, ours to decompress */
		n = ZSTD_decompress(f->out, f->raw_len, f->z, f->z_len);
		(*taken_back)++;
	}
	assert_false(ZSTD_isError(n));
	assert_int_equal(n, f->raw_len);
	assert_memory_equal(f->out, f->raw, f->raw_len);
	assert_int_equal(f->job.state, TS_BG_IDLE);
}

static void
test_off_says_no(void **state)
{
	frame		f;

	(void) state;
	make_frame(&f, 1000, 1);
	ts_bg_set_enabled(false);
	assert_false(ts_bg_submit(&f.job));
	assert_false(ts_bg_finish(&f.job));		/* never submitted */
	free_frame(&f);
}

static void
test_in_order(void **state)
{
	frame	   *fs = calloc(NJOBS, sizeof(frame));
	int64_t		before = ts_bg_jobs_done();
	int			by_thread = 0,
				taken_back = 0;

	(void) state;
	ts_bg_set_enabled(true);
	for (int i = 0; i < NJOBS; i++)
	{
		make_frame(&fs[i], (size_t) (i % 5) * 70000 + (size_t) i, (unsigned) i);
		assert_true(ts_bg_submit(&fs[i].job));
	}
	/* the thread gets to the first job (within a minute, however busy the machine) */
	for (int w = 0; w < 60000 && ts_bg_jobs_done() == before; w++)
		usleep(1000);
	for (int i = 0; i < NJOBS; i++)
		finish_and_check(&fs[i], &by_thread, &taken_back);
	assert_int_equal(by_thread + taken_back, NJOBS);
	assert_int_equal(ts_bg_jobs_done() - before, by_thread);
	assert_true(by_thread > 0);		/* the first job at least was waited for */
	for (int i = 0; i < NJOBS; i++)
		free_frame(&fs[i]);
	free(fs);
	ts_bg_set_enabled(false);
}

static void
test_out_of_order_take_back(void **state)
{
	frame	   *fs = calloc(NJOBS, sizeof(frame));
	int			by_thread = 0,
				taken_back = 0;

	(void) state;
	ts_bg_set_enabled(true);
	int64_t		back_before = ts_bg_jobs_taken_back();

	ts_bg_hold(true);
	for (int i = 0; i < NJOBS; i++)
	{
		make_frame(&fs[i], 200000, (unsigned) i + 100);
		assert_true(ts_bg_submit(&fs[i].job));
	}
	/* held: the last half is taken back, then the thread does the rest */
	for (int i = NJOBS - 1; i >= NJOBS / 2; i--)
		finish_and_check(&fs[i], &by_thread, &taken_back);
	assert_int_equal(taken_back, NJOBS / 2);
	assert_int_equal(ts_bg_jobs_taken_back() - back_before, NJOBS / 2);
	ts_bg_hold(false);
	for (int i = NJOBS / 2 - 1; i >= 0; i--)
		finish_and_check(&fs[i], &by_thread, &taken_back);
	assert_int_equal(by_thread + taken_back, NJOBS);
	for (int i = 0; i < NJOBS; i++)
		free_frame(&fs[i]);
	free(fs);
	ts_bg_set_enabled(false);
}

static void
test_drain(void **state)
{
	frame	   *fs = calloc(NJOBS, sizeof(frame));

	(void) state;
	ts_bg_set_enabled(true);
	for (int i = 0; i < NJOBS; i++)
		make_frame(&fs[i], 150000, (unsigned) i + 7);
	for (int i = 0; i < NJOBS; i++)
		assert_true(ts_bg_submit(&fs[i].job));
	ts_bg_drain();
	/* nothing queued or running any more: every job done or back with us */
	for (int i = 0; i < NJOBS; i++)
	{
		assert_true(fs[i].job.state == TS_BG_DONE || fs[i].job.state == TS_BG_IDLE);
		if (fs[i].job.state == TS_BG_DONE)
		{
			assert_int_equal(fs[i].job.result, fs[i].raw_len);
			assert_memory_equal(fs[i].out, fs[i].raw, fs[i].raw_len);
		}
		else
			assert_false(ts_bg_finish(&fs[i].job));
	}
	/* the memory can go now: the thread holds no pointer into it */
	for (int i = 0; i < NJOBS; i++)
		free_frame(&fs[i]);
	free(fs);
	ts_bg_set_enabled(false);
}

static void
test_bad_frames(void **state)
{
	frame		f,
				g;
	int			by_thread = 0,
				taken_back = 0;

	(void) state;
	ts_bg_set_enabled(true);
	make_frame(&f, 50000, 3);
	f.z[f.z_len / 2] ^= 0x5a;		/* damaged */
	make_frame(&g, 50000, 4);
	g.job.dst_len = 40000;			/* too small for what it holds */
	assert_true(ts_bg_submit(&f.job));
	assert_true(ts_bg_submit(&g.job));
	if (ts_bg_finish(&f.job))
		assert_true(ZSTD_isError(f.job.result) || memcmp(f.out, f.raw, f.raw_len) != 0);
	if (ts_bg_finish(&g.job))
		assert_true(ZSTD_isError(g.job.result));
	/* the thread goes on after them */
	free_frame(&f);
	make_frame(&f, 30000, 5);
	assert_true(ts_bg_submit(&f.job));
	finish_and_check(&f, &by_thread, &taken_back);
	free_frame(&f);
	free_frame(&g);
	ts_bg_set_enabled(false);
}

/*
 * Jobs that read their frame from a file first: the whole frame, or the
 * part after a prefix the caller copied; a read past the end of the file
 * fails (read_failed, nothing decompressed) and the thread goes on.
 */
static void
test_read_jobs(void **state)
{
	char		path[] = "/tmp/ts-unit-bg-XXXXXX";
	int			fd = mkstemp(path);
	frame		f[3];
	size_t		prefix = 100;
	int64_t		read_before = ts_bg_jobs_read();
	int64_t		done = 0;

	(void) state;
	assert_true(fd >= 0);
	for (int i = 0; i < 3; i++)
		make_frame(&f[i], 120000, (unsigned) i + 40);
	/* f[0] at offset 4096, f[1] right after it; f[2] is not in the file */
	assert_int_equal(pwrite(fd, f[0].z, f[0].z_len, 4096), (ssize_t) f[0].z_len);
	assert_int_equal(pwrite(fd, f[1].z, f[1].z_len, 4096 + (off_t) f[0].z_len),
					 (ssize_t) f[1].z_len);
	for (int i = 0; i < 3; i++)
	{
		uint8_t    *src = calloc(1, f[i].z_len);
		int64_t		off = i == 0 ? 4096 : i == 1 ? 4096 + (int64_t) f[0].z_len : 1 << 30;

		assert_non_null(src);
		f[i].job.src = src;
		f[i].job.read_first = true;
		f[i].job.read_fd = fd;
		f[i].job.read_off = off;
		f[i].job.read_into = src;
		f[i].job.read_len = f[i].z_len;
		if (i == 1)
		{
			/* its first bytes already with the caller: only the rest is read */
			memcpy(src, f[1].z, prefix);
			f[1].job.read_into = src + prefix;
			f[1].job.read_off = off + (int64_t) prefix;
			f[1].job.read_len = f[1].z_len - prefix;
		}
	}
	ts_bg_set_enabled(true);
	for (int i = 0; i < 3; i++)
		assert_true(ts_bg_submit(&f[i].job));
	/* the thread gets to all three (within a minute, however busy the machine) */
	for (int w = 0; w < 60000 && ts_bg_jobs_read() - read_before < 3; w++)
		usleep(1000);
	for (int i = 0; i < 3; i++)
	{
		if (!ts_bg_finish(&f[i].job))
			continue;			/* taken back: nobody read it */
		done++;
		if (i < 2)
		{
			assert_false(f[i].job.read_failed);
			assert_int_equal(f[i].job.result, f[i].raw_len);
			assert_memory_equal(f[i].out, f[i].raw, f[i].raw_len);
		}
		else
		{
			assert_true(f[i].job.read_failed);
			assert_true(ZSTD_isError(f[i].job.result));
		}
	}
	assert_int_equal(ts_bg_jobs_read() - read_before, done);
	assert_int_equal(done, 3);
	/* the thread goes on after the failed read */
	{
		frame		g;
		int			by_thread = 0,
					taken_back = 0;

		make_frame(&g, 30000, 9);
		assert_true(ts_bg_submit(&g.job));
		finish_and_check(&g, &by_thread, &taken_back);
		free_frame(&g);
	}
	ts_bg_set_enabled(false);
	for (int i = 0; i < 3; i++)
	{
		free((void *) f[i].job.src);
		free_frame(&f[i]);
	}
	close(fd);
	unlink(path);
}

/*
 * The queue runs the job of the smallest need first, jobs of equal need in
 * the order they came: NJOBS jobs queued while the thread is held, their
 * needs a permutation with repeats, are finished in exactly that order.
 */
static void
test_need_order(void **state)
{
	frame	   *fs = calloc(NJOBS, sizeof(frame));
	int64_t		before;
	int			by_thread = 0,
				taken_back = 0;

	(void) state;
	assert_non_null(fs);
	ts_bg_set_enabled(true);
	ts_bg_hold(true);
	before = ts_bg_jobs_done();
	for (int i = 0; i < NJOBS; i++)
	{
		make_frame(&fs[i], 20000, (unsigned) i + 300);
		fs[i].job.need = (uint32_t) ((i * 37) % 11);	/* 0..10, each about six times */
		assert_true(ts_bg_submit(&fs[i].job));
	}
	ts_bg_hold(false);
	/* all done by the thread (within a minute, however busy the machine) */
	for (int w = 0; w < 60000 && ts_bg_jobs_done() - before < NJOBS; w++)
		usleep(1000);
	assert_int_equal(ts_bg_jobs_done() - before, NJOBS);
	for (int i = 0; i < NJOBS; i++)
		for (int j = 0; j < NJOBS; j++)
		{
			bool		first = fs[i].job.need < fs[j].job.need ||
				(fs[i].job.need == fs[j].job.need && i < j);

			if (i != j && first != (fs[i].job.finished_as < fs[j].job.finished_as))
				fail_msg("job %d (need %u) and job %d (need %u) done as %lld and %lld", i,
						 fs[i].job.need, j, fs[j].job.need, (long long) fs[i].job.finished_as,
						 (long long) fs[j].job.finished_as);
		}
	for (int i = 0; i < NJOBS; i++)
		finish_and_check(&fs[i], &by_thread, &taken_back);
	assert_int_equal(by_thread, NJOBS);
	for (int i = 0; i < NJOBS; i++)
		free_frame(&fs[i]);
	free(fs);
	ts_bg_set_enabled(false);
}

/* ts_bg_need: a place in the file in 1 / 2^24ths, monotonic, safe at the edges. */
static void
test_need_of_offsets(void **state)
{
	const int64_t sizes[] = {1, 1000, (int64_t) 1 << 24, (int64_t) 1 << 39, INT64_MAX};

	(void) state;
	assert_int_equal(ts_bg_need(0, 0), 0);
	assert_int_equal(ts_bg_need(5, 0), 0);
	assert_int_equal(ts_bg_need(-5, 100), 0);
	assert_int_equal(ts_bg_need(50, 100), 1 << 23);
	assert_int_equal(ts_bg_need(25, 100), 1 << 22);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
	{
		int64_t		size = sizes[k];
		uint32_t	last = 0;

		assert_int_equal(ts_bg_need(0, size), 0);
		assert_int_equal(ts_bg_need(size, size), 1u << 24);
		assert_int_equal(ts_bg_need(INT64_MAX, size), 1u << 24);
		for (int i = 0; i <= 64; i++)
		{
			int64_t		off = (int64_t) ((double) size * i / 64.0);
			uint32_t	n;

			if (off > size || off < 0)
				off = size;
			n = ts_bg_need(off, size);
			assert_true(n >= last);
			assert_true(n <= 1u << 24);
			last = n;
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_says_no),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_out_of_order_take_back),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_read_jobs),
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_need_order),
		cmocka_unit_test(test_need_of_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
