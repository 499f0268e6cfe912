/*
 * s3_batch.c - many object store requests at once (see ts_s3.h).
 *
 * Owns: the batches of requests of this process and the easy handles they
 * run on (a pool kept for later batches), the loop that keeps at most
 * max_in_flight requests of a batch in the process's multi handle (s3.c's:
 * the same kept-alive connections), starts the next item or a retry that
 * is due as one finishes, and, for a batch started ahead of its reader
 * (ts_s3_batch_start), moving it on without waiting (ts_s3_drive) and
 * waiting for it only when its bytes are needed (ts_s3_batch_wait).  Every
 * batch in flight moves on whenever any of them (or a request sent alone,
 * s3.c) is waited for: a finished transfer is handed to the batch that
 * owns its handle.  Waits last at most 50 ms at a time so that an
 * interrupt stops the transfers.  What one attempt is (URL, range,
 * signing, timeouts), how its outcome is judged (done / retried / failed,
 * with which message) and how an answer's length is checked come from s3.c
 * (s3_internal.h): a request in a batch behaves as one sent alone, only
 * not alone on the wire.  Retries of an item wait without holding a slot.
 *
 * Memory: a batch and what its transfers allocate (whole bodies, error
 * codes, headers) live under the allocation owner current when it started
 * (ts_alloc_owner: the caller's memory context), whoever drives it.  Its
 * owner cancels it (ts_s3_batch_cancel) before that memory goes; after an
 * abort ts_s3_batch_forget_all takes every handle back without touching a
 * batch, and a batch then waited for reports its items as not fetched.
 */
#include <stdlib.h>
#include <string.h>

#include "base/s3_internal.h"

/* The easy handles, each running one slot of one batch at most. */
#define POOL_MAX (2 * TS_S3_IN_FLIGHT_MAX)

typedef struct pooled
{
	CURL	   *h;
	ts_s3_batch *owner;			/* NULL: free */
	int			slot;
	s3_attempt	a;				/* here, not in the batch: forget_all frees its headers */
} pooled;

static pooled pool[POOL_MAX];
/*
 * Entries handed out at least once: [0, pool_used).  forget_all, at every
 * transaction's end, walks only those: the whole table is 80 kB, and a new
 * backend that never reads an object store would otherwise fault in its 20
 * untouched pages at its first commit (~0.2 ms on the project's machine).
 */
static int	pool_used;

/* One running request of a batch. */
typedef struct slot
{
	int			pk;				/* pool index; -1: free */
	int			item;
	s3_request	r;
	s3_sink    *s;
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

struct ts_s3_batch
{
	ts_s3_batch *link;			/* in 'running' */
	uint64_t	epoch;			/* of forget_all when started */
	void	   *owner;			/* allocation owner */
	ts_s3_config cfg;			/* a copy of the settings it was started with */
	ts_s3_fetch *items;
	int			n;
	bool		keep_going;
	int			max_attempts;
	long		retry_budget;
	item_state *states;
	char	  **urls;
	slot	   *slots;			/* nslots of them */
	int			nslots;
	int			next;			/* first item never started */
	int			left;			/* items not finished */
	int			retrying;		/* items waiting for a retry (due_ms >= 0) */
	int			active;
	bool		failed;			/* err holds why (the batch is finished) */
	ts_err		err;
	ts_err		ierr;			/* an item's error */
};

/* Batches started and not finished, newest first. */
static ts_s3_batch *running = NULL;
static uint64_t epoch = 1;

static void
unlink_batch(ts_s3_batch *b)
{
	for (ts_s3_batch **q = &running; *q; q = &(*q)->link)
		if (*q == b)
		{
			*q = b->link;
			break;
		}
	b->link = NULL;
}

/* A free pool handle (created on first use), or -1. */
static int
take_handle(void)
{
	for (int k = 0; k < POOL_MAX; k++)
		if (pool[k].owner == NULL)
		{
			if (pool[k].h == NULL)
				pool[k].h = ts_curl_fn.easy_init();
			if (pool[k].h == NULL)
				return -1;
			if (k >= pool_used)
				pool_used = k + 1;
			return k;
		}
	return -1;
}

/*
 * Start an attempt of item i in slot sl.  1: started; 0: no handle free
 * now; -1: out of memory (b->err set).
 */
static int
start(CURLM *multi, ts_s3_batch *b, slot *sl, int i)
{
	const ts_s3_config *cfg = &b->cfg;
	ts_s3_fetch *it = &b->items[i];
	int			pk = take_handle();
	pooled	   *p;

	if (pk < 0)
		return 0;
	p = &pool[pk];
	memset(&sl->r, 0, sizeof(sl->r));
	sl->r.uri = it->uri;
	sl->r.url = b->urls[i];
	sl->r.cfg = cfg;
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
		sl->r.expect_size = it->object_size > 0 ? it->object_size : 0;
		s3_set_whole_cap(&sl->r);
	}
	ts_curl_fn.easy_reset(p->h);
	if (!s3_attempt_begin(p->h, &sl->r, cfg, sl->s, &p->a, &b->err))
		return -1;
	sl->s->owner = b->owner;	/* a whole body grows there, whoever drives the transfer */
	/* how a finished transfer finds its pool entry (s3_batch_route); reset clears it */
	ts_curl_fn.easy_setopt(p->h, CURLOPT_PRIVATE, (char *) p);
	if (ts_curl_fn.multi_add_handle(multi, p->h) != CURLM_OK)
	{
		long		ra;

		s3_attempt_end(p->h, &sl->r, sl->s, &p->a, &ra);
		ts_error(&b->err, TS_ERR_NOMEM, "could not add a transfer to the libcurl multi handle");
		return -1;
	}
	p->owner = b;
	p->slot = (int) (sl - b->slots);
	sl->pk = pk;
	sl->item = i;
	b->states[i].attempts++;
	if (b->states[i].due_ms >= 0)
		b->retrying--;
	b->states[i].due_ms = -1;
	b->active++;
	return 1;
}

/* Take slot sl's transfer out (finished or not) and scrub it. */
static void
release(CURLM *multi, ts_s3_batch *b, slot *sl, long *retry_after_s)
{
	pooled	   *p = &pool[sl->pk];
	long		ra = 0;

	ts_curl_fn.multi_remove_handle(multi, p->h);
	s3_attempt_end(p->h, &sl->r, sl->s, &p->a, retry_after_s ? retry_after_s : &ra);
	p->owner = NULL;
	sl->pk = -1;
	sl->item = -1;
	b->active--;
}

/* Stop b's transfers: it is finished, failed (err) or canceled. */
static void
stop(ts_s3_batch *b)
{
	CURLM	   *multi;

	if (b->epoch == epoch && s3_multi_handle(&multi, NULL))
		for (int k = 0; k < b->nslots; k++)
			if (b->slots[k].pk >= 0)
			{
				release(multi, b, &b->slots[k], NULL);
				ts_free(b->slots[k].s->grow);
				b->slots[k].s->grow = NULL;
			}
	unlink_batch(b);
	b->left = 0;
}

static void
fail(ts_s3_batch *b, const ts_err *err)
{
	b->failed = true;
	if (err != &b->err)
		b->err = *err;
	stop(b);
}

/*
 * Finish item i whose attempt ended with rc in sl: done, due for a retry,
 * or failed (its code set; the batch failed when it does not keep going).
 */
static void
finish(ts_s3_batch *b, slot *sl, int i, CURLcode rc, long retry_after_s)
{
	ts_s3_fetch *it = &b->items[i];
	item_state *st = &b->states[i];
	s3_outcome	out = s3_judge(&sl->r, sl->s, rc, st->attempts, b->max_attempts, &b->ierr);
	bool		ok;

	if (out == S3_RETRY)
	{
		long		wait = s3_retry_wait(&st->backoff, retry_after_s);

		if (wait <= st->budget)
		{
			st->budget -= wait;
			st->due_ms = ts_monotonic_us() / 1000 + wait;
			b->retrying++;
			return;
		}
		ts_error(&b->ierr, TS_ERR_IO, "%s \"%s\": the store kept failing (retry time of %ld ms used up)",
				 s3_method_name(sl->r.kind), it->uri, b->retry_budget);
		ok = false;
	}
	else if (out == S3_FAIL)
		ok = false;
	else if (sl->r.kind == REQ_RANGE)
		ok = s3_range_result(&sl->r, it->object_size, &b->ierr);
	else
		ok = s3_whole_result(&sl->r, &it->data, &it->data_len, &b->ierr);
	st->finished = true;
	b->left--;
	it->code = ok ? TS_OK : b->ierr.code;
	if (!ok && it->code == TS_OK)
		it->code = TS_ERR_IO;
	if (!ok && (b->ierr.code == TS_ERR_CANCELED || b->ierr.code == TS_ERR_NOMEM || !b->keep_going))
		fail(b, &b->ierr);
	else if (b->left == 0)
		unlink_batch(b);
}

/* Fill b's free slots: retries that are due first, then new items. */
static void
fill(CURLM *multi, ts_s3_batch *b)
{
	int64_t		now = ts_monotonic_us() / 1000;

	for (int k = 0; k < b->nslots && b->left > 0 && !b->failed; k++)
	{
		int			pick = -1;
		int			rc;

		if (b->slots[k].pk >= 0)
			continue;
		for (int i = 0; b->retrying > 0 && i < b->next && pick < 0; i++)
			if (!b->states[i].finished && b->states[i].due_ms >= 0 && b->states[i].due_ms <= now)
				pick = i;
		while (pick < 0 && b->next < b->n)
		{
			if (!b->states[b->next].finished)
				pick = b->next;
			b->next++;
		}
		if (pick < 0)
			break;
		rc = start(multi, b, &b->slots[k], pick);
		if (rc < 0)
			fail(b, &b->err);
		else if (rc == 0)
		{
			/* no handle free: the item starts when one is */
			if (b->states[pick].due_ms < 0)
				b->next--;
			break;
		}
	}
}

bool
s3_batch_route(CURL *h, CURLcode rc)
{
	CURLM	   *multi;
	char	   *priv = NULL;
	pooled	   *p;
	ts_s3_batch *b;
	slot	   *sl;
	int			i;
	long		retry_after_s = 0;
	void	   *prev;

	/* a pool handle of a running slot carries its entry; others (s3.c's own) none */
	if (ts_curl_fn.easy_getinfo(h, CURLINFO_PRIVATE, &priv) != CURLE_OK || priv == NULL)
		return false;
	p = (pooled *) priv;
	if (p < pool || p >= pool + POOL_MAX || p->owner == NULL || p->h != h)
		return false;
	b = p->owner;
	sl = &b->slots[p->slot];
	i = sl->item;
	prev = ts_alloc_switch(b->owner);
	if (s3_multi_handle(&multi, NULL))
	{
		release(multi, b, sl, &retry_after_s);
		finish(b, sl, i, rc, retry_after_s);
	}
	ts_alloc_switch(prev);
	return true;
}

/* Has a running batch an item never started, or a retry due, and a slot free for it? */
static bool
startable_items(void)
{
	int64_t		now = -1;

	for (ts_s3_batch *o = running; o; o = o->link)
	{
		if (o->failed || o->active >= o->nslots)
			continue;
		if (o->next < o->n)
			return true;
		for (int i = 0; o->retrying > 0 && i < o->next; i++)
			if (!o->states[i].finished && o->states[i].due_ms >= 0)
			{
				if (now < 0)
					now = ts_monotonic_us() / 1000;
				if (o->states[i].due_ms <= now)
					return true;
			}
	}
	return false;
}

/*
 * Fill every running batch and move the transfers on without waiting; as
 * long as transfers end and their slots can take items not started yet,
 * fill and move on again, so that the next requests go out now and not
 * after a wait (which, when every running transfer has just ended, has no
 * socket to wake it).  It loops only while transfers end: it never spins.
 */
static bool
step(CURLM *multi)
{
	bool		ended;

	do
	{
		CURLMsg    *msg;
		int			msgs;
		int			nrunning = 0;

		for (ts_s3_batch *b = running, *nb; b; b = nb)
		{
			void	   *prev = ts_alloc_switch(b->owner);

			nb = b->link;
			fill(multi, b);
			ts_alloc_switch(prev);
		}
		if (ts_curl_fn.multi_perform(multi, &nrunning) != CURLM_OK)
			return false;
		ended = false;
		while ((msg = ts_curl_fn.multi_info_read(multi, &msgs)) != NULL)
			if (msg->msg == CURLMSG_DONE)
			{
				s3_batch_route(msg->easy_handle, msg->data.result);
				ended = true;
			}
	} while (ended && startable_items());
	return true;
}

void
ts_s3_drive(void)
{
	CURLM	   *multi;

	if (running != NULL && s3_multi_handle(&multi, NULL))
		(void) step(multi);
}

/* Free b, not touching the multi handle. */
static void
free_batch(ts_s3_batch *b)
{
	for (int k = 0; b->slots && k < b->nslots; k++)
		if (b->slots[k].s)
		{
			ts_free(b->slots[k].s->grow);
			ts_free(b->slots[k].s);
		}
	ts_free(b->slots);
	if (b->urls)
		for (int i = 0; i < b->n; i++)
			ts_free(b->urls[i]);
	ts_free(b->urls);
	ts_free(b->states);
	ts_s3_config_free_copy(&b->cfg);
	ts_free(b);
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

ts_s3_batch *
ts_s3_batch_start(const ts_s3_config *cfg, ts_s3_fetch *items, int n, bool keep_going,
				  ts_err *err)
{
	CURLM	   *multi;
	ts_s3_batch *b;

	for (int i = 0; i < n; i++)
	{
		items[i].data = NULL;
		items[i].data_len = 0;
		items[i].code = TS_OK;
	}
	if (n > 0 && cfg == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "\"%s\": no object store settings for this scan", items[0].uri);
		return NULL;
	}
	if (!s3_multi_handle(&multi, err))
		return NULL;
	b = ts_calloc(1, sizeof(ts_s3_batch));
	if (b == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	b->epoch = epoch;
	b->owner = ts_alloc_owner();
	b->items = items;
	b->n = n;
	b->keep_going = keep_going;
	if (n <= 0)
		return b;
	if (!ts_s3_config_copy(&b->cfg, cfg))
		goto nomem;
	b->max_attempts = s3_max_attempts(cfg);
	b->retry_budget = s3_retry_budget(cfg);
	b->nslots = cfg->max_in_flight > 0 ? cfg->max_in_flight : TS_S3_IN_FLIGHT;
	if (b->nslots > TS_S3_IN_FLIGHT_MAX)
		b->nslots = TS_S3_IN_FLIGHT_MAX;
	if (b->nslots > n)
		b->nslots = n;
	b->slots = ts_calloc((size_t) b->nslots, sizeof(slot));
	b->states = ts_calloc((size_t) n, sizeof(item_state));
	b->urls = ts_calloc((size_t) n, sizeof(char *));
	if (b->slots == NULL || b->states == NULL || b->urls == NULL)
		goto nomem;
	for (int k = 0; k < b->nslots; k++)
	{
		b->slots[k].pk = -1;
		b->slots[k].item = -1;
		b->slots[k].s = ts_malloc(sizeof(s3_sink));
		if (b->slots[k].s == NULL)
			goto nomem;
		b->slots[k].s->grow = NULL;
	}
	for (int i = 0; i < n; i++)
	{
		b->states[i].backoff = 100;
		b->states[i].budget = b->retry_budget;
		b->states[i].due_ms = -1;
		if (items[i].buf != NULL && items[i].len == 0)
		{
			b->states[i].finished = true;	/* nothing to read */
			continue;
		}
		b->urls[i] = s3_object_url_of(cfg, items[i].uri, err);
		if (b->urls[i] == NULL)
		{
			free_batch(b);
			return NULL;
		}
		b->left++;
	}
	if (b->left == 0)
		return b;
	s3_count_round_trip();
	b->link = running;
	running = b;
	ts_s3_drive();				/* the first requests go out now */
	return b;

nomem:
	free_batch(b);
	ts_error_nomem(err, NULL);
	return NULL;
}

bool
ts_s3_batch_done(ts_s3_batch *b)
{
	ts_s3_drive();
	return b->left == 0 || b->epoch != epoch;
}

/* Is item i (-1: every item) of b finished, or b failed or abandoned? */
static bool
finished(const ts_s3_batch *b, int i)
{
	return b->left == 0 || b->failed || b->epoch != epoch ||
		(i >= 0 && b->states[i].finished);
}

/* Move every batch on until item i of b (-1: all of b) is finished; false + b->err when b failed. */
static bool
wait_for(ts_s3_batch *b, int i)
{
	CURLM	   *multi;

	while (!finished(b, i))
	{
		int64_t		next_due = -1;
		int			wait_ms = 50;

		if (ts_interrupt_pending())
		{
			if (b->n == 1)
				ts_error(&b->err, TS_ERR_CANCELED, "GET \"%s\": canceled", b->items[0].uri);
			else
				ts_error(&b->err, TS_ERR_CANCELED, "GET \"%s\" and %d other request%s: canceled",
						 b->items[0].uri, b->n - 1, b->n == 2 ? "" : "s");
			fail(b, &b->err);
			break;
		}
		if (!s3_multi_handle(&multi, &b->err))
		{
			fail(b, &b->err);
			break;
		}
		if (!step(multi))
		{
			ts_error(&b->err, TS_ERR_IO, "GET \"%s\": the libcurl multi handle failed", b->items[0].uri);
			fail(b, &b->err);
			break;
		}
		if (finished(b, i))
			break;
		/* wait for the network, a due retry (of any batch) or at most 50 ms */
		for (ts_s3_batch *o = running; o; o = o->link)
			for (int i = 0; o->retrying > 0 && i < o->next; i++)
				if (!o->states[i].finished && o->states[i].due_ms >= 0 &&
					(next_due < 0 || o->states[i].due_ms < next_due))
					next_due = o->states[i].due_ms;
		if (next_due >= 0)
		{
			int64_t		d = next_due - ts_monotonic_us() / 1000;

			if (d < wait_ms)
				wait_ms = d > 0 ? (int) d : 0;
		}
		ts_curl_fn.multi_poll(multi, NULL, 0, wait_ms, NULL);
	}
	return !b->failed;
}

bool
ts_s3_batch_wait_item(ts_s3_batch *b, int i, ts_err *err)
{
	if (!wait_for(b, i))
	{
		if (err)
			*err = b->err;
		return false;
	}
	if (b->epoch != epoch && !b->states[i].finished)
		b->items[i].code = TS_ERR_IO;	/* abandoned */
	return true;
}

bool
ts_s3_batch_wait(ts_s3_batch *b, ts_err *err)
{
	bool		ok;

	wait_for(b, -1);
	if (b->epoch != epoch && !b->failed)
	{
		/* its transfers were abandoned (an abort): nothing unfinished was fetched */
		for (int i = 0; i < b->n; i++)
			if (!b->states[i].finished)
				b->items[i].code = TS_ERR_IO;
		if (!b->keep_going)
		{
			b->failed = true;
			ts_error(&b->err, TS_ERR_IO, "GET \"%s\": the transfers were abandoned", b->items[0].uri);
		}
	}
	ok = !b->failed;
	if (!ok)
	{
		if (err)
			*err = b->err;
		drop_data(b->items, b->n);
	}
	free_batch(b);
	return ok;
}

void
ts_s3_batch_cancel(ts_s3_batch *b)
{
	void	   *prev;

	if (b == NULL)
		return;
	prev = ts_alloc_switch(b->owner);
	stop(b);
	drop_data(b->items, b->n);
	free_batch(b);
	ts_alloc_switch(prev);
}

void
ts_s3_batch_forget_all(void)
{
	CURLM	   *multi;

	/*
	 * Every transaction's end comes here: a backend that never loaded
	 * libcurl has no handle in the pool, and loads nothing now.
	 */
	bool		have = ts_curl_loaded() && s3_multi_handle(&multi, NULL);

	for (int k = 0; k < pool_used; k++)
		if (pool[k].owner != NULL)
		{
			if (have)
				ts_curl_fn.multi_remove_handle(multi, pool[k].h);
			/* the token header went with its memory context */
			ts_curl_fn.easy_setopt(pool[k].h, CURLOPT_HTTPHEADER, NULL);
			ts_curl_fn.easy_setopt(pool[k].h, CURLOPT_PASSWORD, "");
			ts_curl_fn.slist_free_all(pool[k].a.headers);
			pool[k].a.headers = NULL;
			pool[k].a.token_header = NULL;
			ts_curl_fn.easy_reset(pool[k].h);
			pool[k].owner = NULL;
		}
	running = NULL;
	epoch++;
}

bool
ts_s3_fetch_all(const ts_s3_config *cfg, ts_s3_fetch *items, int n, bool keep_going,
				ts_err *err)
{
	ts_s3_batch *b = ts_s3_batch_start(cfg, items, n, keep_going, err);

	if (b == NULL)
		return false;
	return ts_s3_batch_wait(b, err);
}
