/*
 * background.c - the helper thread that decompresses zstd frames ahead.
 *
 * Owns: starting the one helper thread of a process (on the first job,
 * every signal blocked so that the process's handlers run only in its main
 * thread), the queue of jobs (by need, then in the order they came), and
 * waiting for them.  The thread touches
 * nothing but a job's two buffers, the descriptor a job reads (pread:
 * no file position shared with the caller) and its own ZSTD_DCtx
 * (libzstd's malloc, not the allocation hooks, which may not be
 * thread-safe).  See ts_background.h for the rules a caller keeps.
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <zstd.h>

#include "base/ts_background.h"
#include "base/ts_fs.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;	/* a job was queued */
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;	/* a job was finished */
static ts_bg_job *head,
		   *tail;
static ts_bg_job *running;		/* the job being decompressed, or NULL */
static bool enabled;
static bool held;				/* tests: queued jobs wait */
static bool started;
static bool start_failed;
static pid_t thread_pid;		/* the process the thread runs in */
static int64_t jobs_done;
static int64_t jobs_read;
static int64_t jobs_taken_back;
static ZSTD_DCtx *caller_dctx;	/* the calling thread's, for the jobs it helps with */

/* A job's bytes read from its file, when it has one; false when they could not be. */
static bool
read_source(ts_bg_job *job)
{
	return !job->read_first ||
		ts_pread_full(job->read_fd, job->read_into, job->read_len, job->read_off) ==
		(ssize_t) job->read_len;
}

/*
 * Read (if need be) and decompress the job with dctx (NULL: libzstd's
 * one-shot call), then run its 'then'.
 */
static void
run_job(ts_bg_job *job, ZSTD_DCtx *dctx)
{
	job->read_failed = !read_source(job);
	if (job->read_failed)
		job->result = (size_t) -1; /* a zstd error code: nothing decompressed */
	else
		job->result = dctx != NULL ?
			ZSTD_decompressDCtx(dctx, job->dst, job->dst_len, job->src, job->src_len) :
			ZSTD_decompress(job->dst, job->dst_len, job->src, job->src_len);
	if (job->then != NULL && !ZSTD_isError(job->result))
		job->then(job);
}

/* Under the lock: a job is finished. */
static void
job_done(ts_bg_job *job)
{
	job->state = TS_BG_DONE;
	job->finished_as = ++jobs_done;
	if (job->read_first)
		jobs_read++;
}

/* Under the lock: unlink queued job from the queue, prev the job before it (NULL: first). */
static void
unlink_job(ts_bg_job *prev, ts_bg_job *job)
{
	if (prev)
		prev->next = job->next;
	else
		head = job->next;
	if (tail == job)
		tail = prev;
	job->next = NULL;
}

/*
 * Under the lock: unlink and return the queued job to run next, the first
 * of the smallest need (NULL when none is queued).
 */
static ts_bg_job *
take_next(void)
{
	ts_bg_job  *best = head,
			   *best_prev = NULL,
			   *prev = head;

	if (head == NULL)
		return NULL;
	for (ts_bg_job *j = head->next; j != NULL && best->need > 0; prev = j, j = j->next)
		if (j->need < best->need)
		{
			best = j;
			best_prev = prev;
		}
	unlink_job(best_prev, best);
	return best;
}

static void *
helper_main(void *arg)
{
	ZSTD_DCtx  *dctx = ZSTD_createDCtx();

	(void) arg;
	pthread_mutex_lock(&lock);
	for (;;)
	{
		ts_bg_job  *job;

		while (head == NULL || held)
			pthread_cond_wait(&work_cv, &lock);
		job = take_next();
		job->state = TS_BG_RUNNING;
		running = job;
		pthread_mutex_unlock(&lock);

		run_job(job, dctx);

		pthread_mutex_lock(&lock);
		job_done(job);
		running = NULL;
		pthread_cond_broadcast(&done_cv);
	}
	return NULL;
}

/* The thread of this process, started if need be; false when there is none. */
static bool
have_thread(void)
{
	sigset_t	all,
				old;
	pthread_attr_t attr;
	pthread_t	t;
	int			rc;

	if (started && thread_pid == getpid())
		return true;
	if (started)
	{
		/* a child of fork(): the thread stayed in the parent */
		started = false;
		start_failed = false;
		head = tail = running = NULL;
	}
	if (start_failed)
		return false;
	sigfillset(&all);
	if (pthread_attr_init(&attr) != 0)
	{
		start_failed = true;
		return false;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, (size_t) 256 << 10);
	/* the new thread inherits the mask: no signal is ever delivered to it */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, helper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
	{
		start_failed = true;
		return false;
	}
	started = true;
	thread_pid = getpid();
	return true;
}

void
ts_bg_set_enabled(bool on)
{
	enabled = on;
}

bool
ts_bg_enabled(void)
{
	return enabled;
}

bool
ts_bg_submit(ts_bg_job *job)
{
	if (!enabled || !have_thread())
		return false;
	pthread_mutex_lock(&lock);
	job->state = TS_BG_QUEUED;
	job->next = NULL;
	if (tail)
		tail->next = job;
	else
		head = job;
	tail = job;
	pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&lock);
	return true;
}

/* Unlink a queued job (under the lock). */
static void
unqueue(ts_bg_job *job)
{
	ts_bg_job  *prev = NULL;

	for (ts_bg_job *j = head; j; prev = j, j = j->next)
		if (j == job)
		{
			unlink_job(prev, j);
			break;
		}
	job->next = NULL;
	job->state = TS_BG_IDLE;
}

/*
 * While the thread runs the job the caller waits for, the caller runs the
 * queued one needed next (under the lock, released while it decompresses):
 * it will want it soon, and two cores decompress instead of one waiting.
 */
static bool
help_with_next(void)
{
	ts_bg_job  *next;

	if (held || head == NULL)
		return false;
	if (caller_dctx == NULL && (caller_dctx = ZSTD_createDCtx()) == NULL)
		return false;
	next = take_next();
	next->state = TS_BG_RUNNING;
	pthread_mutex_unlock(&lock);
	run_job(next, caller_dctx);
	pthread_mutex_lock(&lock);
	job_done(next);
	return true;
}

bool
ts_bg_finish(ts_bg_job *job)
{
	bool		done;

	if (!started)
	{
		job->state = TS_BG_IDLE;
		return false;
	}
	pthread_mutex_lock(&lock);
	if (job->state == TS_BG_QUEUED)
	{
		unqueue(job);
		jobs_taken_back++;
	}
	while (job->state == TS_BG_RUNNING)
		if (!help_with_next())
			pthread_cond_wait(&done_cv, &lock);
	done = job->state == TS_BG_DONE;
	job->state = TS_BG_IDLE;
	pthread_mutex_unlock(&lock);
	return done;
}

void
ts_bg_drain(void)
{
	if (!started || thread_pid != getpid())
		return;
	pthread_mutex_lock(&lock);
	while (head)
		unqueue(head);
	while (running != NULL)
		pthread_cond_wait(&done_cv, &lock);
	pthread_mutex_unlock(&lock);
}

void
ts_bg_hold(bool hold)
{
	pthread_mutex_lock(&lock);
	held = hold;
	pthread_cond_broadcast(&work_cv);
	pthread_mutex_unlock(&lock);
}

int64_t
ts_bg_jobs_done(void)
{
	int64_t		n;

	pthread_mutex_lock(&lock);
	n = jobs_done;
	pthread_mutex_unlock(&lock);
	return n;
}

int64_t
ts_bg_jobs_read(void)
{
	int64_t		n;

	pthread_mutex_lock(&lock);
	n = jobs_read;
	pthread_mutex_unlock(&lock);
	return n;
}

int64_t
ts_bg_jobs_taken_back(void)
{
	int64_t		n;

	pthread_mutex_lock(&lock);
	n = jobs_taken_back;
	pthread_mutex_unlock(&lock);
	return n;
}
