/*
 * ts_background.h - zstd frames decompressed ahead, in a helper thread.
 *
 * A reader that knows which compressed page it will need next submits it
 * as a job; one helper thread per process decompresses jobs, those needed
 * soonest first, while the reader decodes what it has.  The thread only runs
 * ZSTD_decompressDCtx from the job's src into its dst, after reading src
 * from a local file's descriptor first when the job asks (read_first: a
 * reader that streams a file page by page does not read the next page's
 * bytes itself): it never calls the caller's allocator, error or file
 * hooks, and it blocks every signal.
 *
 * The caller owns a job and both its buffers, and must keep them until
 * ts_bg_finish returned for it, or ts_bg_drain returned: a caller whose
 * memory may be freed under it (an ERROR in a backend) registers
 * ts_bg_drain to run first.  Off until ts_bg_set_enabled(true); with it off
 * (or when no thread can be started) ts_bg_submit says no and the caller
 * decompresses in place.
 */
#ifndef TS_BACKGROUND_H
#define TS_BACKGROUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ts_bg_state
{
	TS_BG_IDLE = 0,				/* not submitted, or finished */
	TS_BG_QUEUED,
	TS_BG_RUNNING,
	TS_BG_DONE
} ts_bg_state;

typedef struct ts_bg_job
{
	const uint8_t *src;
	size_t		src_len;
	/*
	 * read_first: read_len bytes at read_off of read_fd are read into
	 * read_into (inside src) first; read_failed says they could not be (an
	 * error or a short file: the caller reads them itself to report it).
	 * A job zeroed reads nothing.
	 */
	bool		read_first;
	int			read_fd;
	int64_t		read_off;
	uint8_t    *read_into;
	size_t		read_len;
	bool		read_failed;
	uint8_t    *dst;
	size_t		dst_len;		/* room in dst */
	size_t		result;			/* ZSTD_decompressDCtx's, once decompressed */
	/*
	 * When the reader will want it, as far as it can tell: the queued job of
	 * the smallest 'need' runs first, jobs of equal need in the order they
	 * came (0 for all: a FIFO).  A merge over sorted runs wants each run's
	 * bytes at about the same fraction of the way through it, so readers
	 * that know give that fraction (ts_bg_need).
	 */
	uint32_t	need;
	/*
	 * May be set: run by whichever thread ran the job, after a
	 * decompression that succeeded (a reader's decoding of what came out).
	 * It keeps the thread's rules: no allocation, error or file hooks, and
	 * nothing but what then_arg points at and the job's buffers.
	 */
	void		(*then) (struct ts_bg_job *job);
	void	   *then_arg;
	int64_t		finished_as;	/* once done: its place among all jobs done, from 1 */
	ts_bg_state state;			/* read and written under the module's lock */
	struct ts_bg_job *next;
} ts_bg_job;

/* A job's need at byte off of a file of size bytes: its place, in 1 / 2^24ths of the file. */
static inline uint32_t
ts_bg_need(int64_t off, int64_t size)
{
	uint64_t	o = off > 0 ? (uint64_t) off : 0;
	uint64_t	s = size > 0 ? (uint64_t) size : 0;

	if (s == 0 || o >= s)
		return s == 0 ? 0 : (uint32_t) 1 << 24;
	while (s >= (uint64_t) 1 << 39)	/* o << 24 stays below 2^64 */
	{
		o >>= 8;
		s >>= 8;
	}
	return (uint32_t) ((o << 24) / (s ? s : 1));
}

/* Allow (or stop) new jobs; jobs already submitted are still finished. */
void		ts_bg_set_enabled(bool on);
bool		ts_bg_enabled(void);

/*
 * Queue job (src, src_len, dst, dst_len set; dst_len is the room in dst,
 * result will be the decompressed size or a ZSTD error code): true when
 * queued, false when the caller must decompress itself (off, or no thread).
 */
bool		ts_bg_submit(ts_bg_job *job);

/*
 * The job's decompression, once: true when it was done (result holds
 * ZSTD_decompressDCtx's return); while the thread runs it, the caller
 * decompresses the jobs queued after it (they are done when finished in
 * turn) and then waits.  False when it had not started (it is taken back:
 * decompress it yourself) or was never submitted.  The job is IDLE
 * afterwards.
 */
bool		ts_bg_finish(ts_bg_job *job);

/* Take back every queued job and wait for the running one. */
void		ts_bg_drain(void);

/*
 * Jobs decompressed ahead (by the thread, or by a caller waiting for it)
 * since the process started, of them those that read their bytes first,
 * and jobs ts_bg_finish took back before anyone got to them.
 */
int64_t		ts_bg_jobs_done(void);
int64_t		ts_bg_jobs_read(void);
int64_t		ts_bg_jobs_taken_back(void);
/* Tests: hold queued jobs (the thread starts none) until released. */
void		ts_bg_hold(bool hold);

#endif							/* TS_BACKGROUND_H */
