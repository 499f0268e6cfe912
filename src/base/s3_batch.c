/*
 * s3_batch.c - many object store requests at once (see ts_s3.h).
 *
 * Owns: the pool of curl easy handles a batch runs on (kept for the next
 * batch), the loop that keeps at most max_in_flight of them in the
 * process's multi handle (s3.c's: the same kept-alive connections), starts
 * the next item or a retry that is due as one finishes, and waits at most
 * 50 ms at a time so that an interrupt stops every transfer.  What one
 * attempt is (URL, range, signing, timeouts), how its outcome is judged
 * (done / retried / failed, with which message) and how an answer's
 * length is checked come from s3.c (s3_internal.h): a request in a batch
 * behaves as one sent alone, only not alone on the wire.  Retries of an
 * item wait without holding a slot: the others go on meanwhile.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/s3_internal.h"

/* the easy handles of batches, created on first use and reused */
static CURL *pool[TS_S3_IN_FLIGHT_MAX];

/* One running request. */
typedef struct slot
{
	CURL	   *h;
	int			item;			/* -1: free */
	s3_request	r;
	s3_sink    *s;
	s3_attempt	a;
} slot;

/* The retry state of one item. */
typedef struct item_state
{
	int			attempts;		/* started so far */
	long		backoff;
	long		budget;			/* retry wait left, ms */
	int64_t		due_ms;			/* a retry may start then; -1: not waiting */
	bool		finished;
} item_state;

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start an attempt of item i in slot sl.  False (err set) when out of memory. */
static bool
start(CURLM *multi, slot *sl, ts_s3_fetch *it, int i, item_state *st,
	  const ts_s3_config *cfg, ts_err *err)
{
	memset(&sl->r, 0, sizeof(sl->r));
	sl->r.uri = it->uri;
	if (it->buf)
	{
		sl->r.kind = REQ_RANGE;
		sl->r.offset = it->offset;
		sl->r.len = it->len;
		sl->r.buf = it->buf;
	}
	else
	{
		sl->r.kind = REQ_WHOLE;
		sl->r.max_body = S3_MAX_WHOLE;
		sl->r.expect_size = it->object_size > 0 ? it->object_size : 0;
	}
	sl->r.url = s3_object_url_of(it->uri, err);
	if (sl->r.url == NULL)
		return false;
	curl_easy_reset(sl->h);
	if (!s3_attempt_begin(sl->h, &sl->r, cfg, sl->s, &sl->a, err))
	{
		ts_free((char *) sl->r.url);
		return false;
	}
	if (curl_multi_add_handle(multi, sl->h) != CURLM_OK)
	{
		long		ra;

		s3_attempt_end(sl->h, &sl->r, sl->s, &sl->a, &ra);
		ts_free((char *) sl->r.url);
		return ts_error(err, TS_ERR_NOMEM, "could not add a transfer to the libcurl multi handle");
	}
	sl->item = i;
	st->attempts++;
	st->due_ms = -1;
	return true;
}

/* Take slot sl's transfer out (finished or not) and scrub it. */
static void
release(CURLM *multi, slot *sl, long *retry_after_s)
{
	long		ra = 0;

	curl_multi_remove_handle(multi, sl->h);
	s3_attempt_end(sl->h, &sl->r, sl->s, &sl->a, retry_after_s ? retry_after_s : &ra);
	ts_free((char *) sl->r.url);
	sl->r.url = NULL;
	sl->item = -1;
}

/* Free what a failed batch fetched whole. */
static void
drop_data(ts_s3_fetch *items, int n)
{
	for (int i = 0; i < n; i++)
	{
		ts_free(items[i].data);
		items[i].data = NULL;
		items[i].data_len = 0;
	}
}

/*
 * Finish item i whose attempt ended with rc in sl: done, due for a retry,
 * or failed (its code set; err set when keep_going is off).
 */
static void
finish(slot *sl, CURLcode rc, long retry_after_s, ts_s3_fetch *it, item_state *st,
	   const ts_s3_config *cfg, int64_t now, ts_err *ierr)
{
	s3_outcome	out = s3_judge(&sl->r, sl->s, rc, st->attempts, s3_max_attempts(cfg), ierr);
	bool		ok;

	if (out == S3_RETRY)
	{
		long		wait = s3_retry_wait(&st->backoff, retry_after_s);

		if (wait <= st->budget)
		{
			st->budget -= wait;
			st->due_ms = now + wait;
			return;
		}
		ts_error(ierr, TS_ERR_IO, "%s \"%s\": the store kept failing (retry time of %ld ms used up)",
				 s3_method_name(sl->r.kind), it->uri, s3_retry_budget(cfg));
		ok = false;
	}
	else if (out == S3_FAIL)
		ok = false;
	else if (sl->r.kind == REQ_RANGE)
		ok = s3_range_result(&sl->r, it->object_size, ierr);
	else
		ok = s3_whole_result(&sl->r, &it->data, &it->data_len, ierr);
	st->finished = true;
	it->code = ok ? TS_OK : ierr->code;
	if (!ok && it->code == TS_OK)
		it->code = TS_ERR_IO;
}

bool
ts_s3_fetch_all(ts_s3_fetch *items, int n, bool keep_going, ts_err *err)
{
	const ts_s3_config *cfg = ts_s3_get_config();
	CURLM	   *multi;
	slot		slots[TS_S3_IN_FLIGHT_MAX];
	item_state *states = NULL;
	int			nslots;
	int			next = 0;		/* first item never started */
	int			left = 0;		/* items not finished */
	int			active = 0;
	bool		ok = true;
	ts_err	   *ierr = NULL;	/* an item's error */

	for (int i = 0; i < n; i++)
	{
		items[i].data = NULL;
		items[i].data_len = 0;
		items[i].code = TS_OK;
	}
	if (n <= 0)
		return true;
	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID, "\"%s\": no object store settings for this scan",
						items[0].uri);
	if (!s3_multi_handle(&multi, err))
		return false;
	nslots = cfg->max_in_flight > 0 ? cfg->max_in_flight : TS_S3_IN_FLIGHT;
	if (nslots > TS_S3_IN_FLIGHT_MAX)
		nslots = TS_S3_IN_FLIGHT_MAX;
	if (nslots > n)
		nslots = n;
	states = ts_calloc((size_t) n, sizeof(item_state));
	ierr = ts_malloc(sizeof(ts_err));
	if (states == NULL || ierr == NULL)
	{
		ts_free(states);
		ts_free(ierr);
		return ts_error_nomem(err, NULL);
	}
	memset(ierr, 0, sizeof(*ierr));
	for (int k = 0; k < nslots; k++)
	{
		slots[k].s = NULL;
		slots[k].item = -1;
	}
	for (int k = 0; k < nslots; k++)
	{
		if (pool[k] == NULL)
			pool[k] = curl_easy_init();
		slots[k].h = pool[k];
		slots[k].s = ts_malloc(sizeof(s3_sink));
		if (slots[k].h == NULL || slots[k].s == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			goto out;
		}
	}
	for (int i = 0; i < n; i++)
	{
		states[i].backoff = 100;
		states[i].budget = s3_retry_budget(cfg);
		states[i].due_ms = -1;
		if (items[i].buf != NULL && items[i].len == 0)
			states[i].finished = true;	/* nothing to read */
		else
			left++;
	}

	if (left > 0)
		s3_count_round_trip();
	while (left > 0)
	{
		int64_t		now = now_ms();
		int64_t		next_due = -1;
		int			running = 0;
		CURLMsg    *msg;
		int			msgs;

		if (ts_interrupt_pending())
		{
			ok = n == 1 ?
				ts_error(err, TS_ERR_CANCELED, "GET \"%s\": canceled", items[0].uri) :
				ts_error(err, TS_ERR_CANCELED, "GET \"%s\" and %d other request%s: canceled",
						 items[0].uri, n - 1, n == 2 ? "" : "s");
			goto out;
		}
		/* fill free slots: retries that are due first, then new items */
		for (int k = 0; k < nslots; k++)
		{
			int			pick = -1;

			if (slots[k].item >= 0)
				continue;
			for (int i = 0; i < next && pick < 0; i++)
				if (!states[i].finished && states[i].due_ms >= 0 && states[i].due_ms <= now)
					pick = i;
			while (pick < 0 && next < n)
			{
				if (!states[next].finished)
					pick = next;
				next++;
			}
			if (pick < 0)
				break;
			if (!start(multi, &slots[k], &items[pick], pick, &states[pick], cfg, err))
			{
				ok = false;
				goto out;
			}
			active++;
		}
		if (curl_multi_perform(multi, &running) != CURLM_OK)
		{
			ok = ts_error(err, TS_ERR_IO, "GET \"%s\": the libcurl multi handle failed", items[0].uri);
			goto out;
		}
		while ((msg = curl_multi_info_read(multi, &msgs)) != NULL)
		{
			slot	   *sl = NULL;
			long		retry_after_s = 0;
			int			i;

			if (msg->msg != CURLMSG_DONE)
				continue;
			for (int k = 0; k < nslots && sl == NULL; k++)
				if (slots[k].item >= 0 && slots[k].h == msg->easy_handle)
					sl = &slots[k];
			if (sl == NULL)
				continue;
			i = sl->item;
			{
				CURLcode	rc = msg->data.result;

				release(multi, sl, &retry_after_s);
				active--;
				finish(sl, rc, retry_after_s, &items[i], &states[i], cfg, now_ms(), ierr);
			}
			if (!states[i].finished)
				continue;		/* a retry is due later */
			left--;
			if (items[i].code != TS_OK)
			{
				if (ierr->code == TS_ERR_CANCELED || ierr->code == TS_ERR_NOMEM || !keep_going)
				{
					*err = *ierr;
					ok = false;
					goto out;
				}
			}
		}
		if (left == 0)
			break;

		/*
		 * A slot freed above and an item never started: start it now, not
		 * after the next wait (which, when every running transfer has just
		 * finished, had no socket to wake it and took the whole 50 ms).
		 */
		if (active < nslots && next < n)
			continue;
		/* wait for the network, a due retry or at most 50 ms */
		for (int i = 0; i < next; i++)
			if (!states[i].finished && states[i].due_ms >= 0 &&
				(next_due < 0 || states[i].due_ms < next_due))
				next_due = states[i].due_ms;
		{
			int			wait_ms = 50;

			if (next_due >= 0 && next_due - now_ms() < wait_ms)
				wait_ms = next_due - now_ms() > 0 ? (int) (next_due - now_ms()) : 0;
			if (active == 0 && next >= n && next_due < 0)
				break;			/* cannot happen: every item is finished or due */
			curl_multi_poll(multi, NULL, 0, wait_ms, NULL);
		}
	}

out:
	for (int k = 0; k < nslots; k++)
	{
		if (slots[k].item >= 0)
		{
			release(multi, &slots[k], NULL);
			ts_free(slots[k].s->grow);
			slots[k].s->grow = NULL;
		}
		ts_free(slots[k].s);
	}
	if (!ok)
		drop_data(items, n);
	ts_free(states);
	ts_free(ierr);
	return ok;
}
