/*
 * s3_loop.c - moving the process's libcurl multi handle on (s3_internal.h).
 *
 * Owns: the epoll set of the sockets libcurl watches for that handle and
 * the time its timer is due, both told by libcurl's callbacks
 * (CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION), and the two steps
 * that s3.c (a request alone) and s3_batch.c (many at once) run instead of
 * curl_multi_perform and curl_multi_poll: s3_loop_run hands libcurl the
 * sockets that are ready and an expired timer (curl_multi_socket_action),
 * without waiting; s3_loop_wait waits for a socket or the timer, at most
 * the time given.  Why: curl_multi_perform goes through every transfer and
 * curl_multi_poll through every socket at each wake-up, each transfer
 * checking its socket with a system call of its own; with 512 requests in
 * flight that was a tenth of a cold plan's CPU (bench/RESULTS.md, branch
 * wavecpu).  Here a wake-up costs what is ready.
 *
 * The epoll descriptor is opened with the multi handle, close-on-exec,
 * and lives as long as the process (as the handle does).
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "base/s3_internal.h"

#define EVENTS_MAX 256

static int	epfd = -1;
static int64_t timer_due_us = -1;	/* -1: no timer */
static int	last_running = 0;
static CURLM *multi_of_callbacks = NULL;	/* the handle the callbacks are set on */

static int64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* libcurl: watch socket s for 'what' (CURL_POLL_*), or no more. */
static int
on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct epoll_event ev = {0};

	(void) e;
	(void) userp;
	if (what == CURL_POLL_REMOVE)
	{
		(void) epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
	ev.data.fd = s;
	if (socketp != NULL)		/* in the set already (assigned below; libcurl forgets it at REMOVE) */
		return epoll_ctl(epfd, EPOLL_CTL_MOD, s, &ev) == 0 ? 0 : -1;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s, &ev) != 0 &&
		(errno != EEXIST || epoll_ctl(epfd, EPOLL_CTL_MOD, s, &ev) != 0))
		return -1;				/* libcurl fails the transfers of that socket */
	(void) ts_curl_fn.multi_assign(multi_of_callbacks, s, &epfd);
	return 0;
}

/* libcurl: call back with CURL_SOCKET_TIMEOUT in timeout_ms (-1: no timer). */
static int
on_timer(CURLM *m, long timeout_ms, void *userp)
{
	(void) m;
	(void) userp;
	timer_due_us = timeout_ms < 0 ? -1 : now_us() + (int64_t) timeout_ms * 1000;
	return 0;
}

bool
s3_loop_init(CURLM *m, ts_err *err)
{
	if (epfd < 0)
	{
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			return ts_error(err, TS_ERR_IO, "could not create an epoll set for the object store's connections: %s",
							strerror(errno));
	}
	multi_of_callbacks = m;
	if (ts_curl_fn.multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK ||
		ts_curl_fn.multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK)
		return ts_error(err, TS_ERR_IO, "could not set up the libcurl multi handle's event callbacks");
	return true;
}

CURLMcode
s3_loop_run(CURLM *m, int *running)
{
	struct epoll_event ev[EVENTS_MAX];
	int			n;

	do
	{
		n = epoll_wait(epfd, ev, EVENTS_MAX, 0);
		for (int k = 0; k < n; k++)
		{
			int			mask = ((ev[k].events & EPOLLIN) ? CURL_CSELECT_IN : 0) |
				((ev[k].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
				((ev[k].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
			CURLMcode	rc = ts_curl_fn.multi_socket_action(m, ev[k].data.fd, mask, &last_running);

			if (rc != CURLM_OK)
				return rc;
		}
	} while (n == EVENTS_MAX);
	if (timer_due_us >= 0 && timer_due_us <= now_us())
	{
		CURLMcode	rc;

		timer_due_us = -1;		/* libcurl sets the next one */
		rc = ts_curl_fn.multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &last_running);
		if (rc != CURLM_OK)
			return rc;
	}
	*running = last_running;
	return CURLM_OK;
}

void
s3_loop_wait(int max_ms)
{
	struct epoll_event ev[1];
	int			wait_ms = max_ms;

	if (timer_due_us >= 0)
	{
		int64_t		d = (timer_due_us - now_us() + 999) / 1000;

		if (d < wait_ms)
			wait_ms = d > 0 ? (int) d : 0;
	}
	if (wait_ms > 0)
		(void) epoll_wait(epfd, ev, 1, wait_ms);	/* level-triggered: s3_loop_run sees it again */
}
