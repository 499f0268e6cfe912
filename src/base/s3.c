/*
 * s3.c - requests to S3-compatible object stores (see ts_s3.h).
 *
 * Owns: the process's curl multi + easy handles (kept alive across
 * queries: the multi's connection cache), SigV4 signing through
 * CURLOPT_AWS_SIGV4, the transfer loop that polls for interrupts every
 * 50 ms, the retry loop (backoff with jitter, Retry-After, bounded attempts
 * and time), and the four requests: HEAD, ranged GET, whole GET,
 * ListObjectsV2.  Errors name the object, the HTTP status and the S3 error
 * code, never a secret.  The setup, judging and checking of one attempt are
 * shared with the concurrent fetches of s3_batch.c (s3_internal.h); the
 * settings and counters live in s3_config.c, where an answer's bytes go in
 * s3_sink.c.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/ts_curl.h"
#include "base/ts_http.h"
#include "base/s3_internal.h"


/* ---- transfers --------------------------------------------------------- */

static bool send_object_request(s3_request *r, ts_err *err);
static bool answer_error(const s3_request *r, ts_err *err);
static void request_done(s3_request *r);

bool
s3_send_object(s3_request *r, ts_err *err)
{
	return send_object_request(r, err);
}

bool
s3_answer_error(const s3_request *r, ts_err *err)
{
	return answer_error(r, err);
}

void
s3_request_done(s3_request *r)
{
	request_done(r);
}

static CURLM *multi = NULL;
static CURL *easy = NULL;

static bool
get_handles(ts_err *err)
{
	CURLM	   *m;

	if (!s3_multi_handle(&m, err))
		return false;
	if (easy == NULL)
	{
		easy = ts_curl_fn.easy_init();
		if (easy == NULL)
			return ts_error(err, TS_ERR_NOMEM, "could not create a libcurl handle");
	}
	else
		ts_curl_fn.easy_reset(easy);
	return true;
}

/*
 * Run the easy handle to completion in the multi handle, asking for
 * interrupts between waits of at most 50 ms.  *canceled when one came.
 */
static CURLcode
run_transfer(bool *canceled)
{
	CURLcode	result = CURLE_OK;
	CURLMsg    *msg;
	int			left;
	bool		done = false;

	*canceled = false;
	if (ts_curl_fn.multi_add_handle(multi, easy) != CURLM_OK)
		return CURLE_FAILED_INIT;
	while (!done)
	{
		int			running = 0;

		if (ts_curl_fn.multi_perform(multi, &running) != CURLM_OK)
		{
			result = CURLE_FAILED_INIT;
			break;
		}
		while ((msg = ts_curl_fn.multi_info_read(multi, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy)
			{
				result = msg->data.result;
				done = true;
			}
			else if (msg->msg == CURLMSG_DONE)
				s3_batch_route(msg->easy_handle, msg->data.result); /* a batch fetched ahead */
		if (done || running == 0)
			break;
		if (ts_interrupt_pending())
		{
			*canceled = true;
			break;
		}
		ts_curl_fn.multi_poll(multi, NULL, 0, 50, NULL);
	}
	ts_curl_fn.multi_remove_handle(multi, easy);
	return result;
}

/* The catalog client's transport retries, and a failed name lookup (an object store's DNS may flap). */
static bool
retryable_code(CURLcode c)
{
	return ts_http_retryable_curl_code(c) || c == CURLE_COULDNT_RESOLVE_HOST;
}

const char *
s3_method_name(s3_req_kind k)
{
	return k == REQ_HEAD ? "HEAD" : k == REQ_LIST ? "LIST" : k == REQ_PUT ? "PUT" :
		k == REQ_POST ? "POST" : k == REQ_DELETE ? "DELETE" : "GET";
}

bool
s3_multi_handle(CURLM **m, ts_err *err)
{
	if (multi == NULL)
	{
		if (!ts_curl_global_init(err))
			return false;
		multi = ts_curl_fn.multi_init();
		if (multi == NULL)
			return ts_error(err, TS_ERR_NOMEM, "could not create a libcurl multi handle");
	}
	*m = multi;
	return true;
}

/* Keys past their expiry (a catalog's data token) never sign a request. */
static bool
check_not_expired(const s3_request *r, const ts_s3_config *cfg, ts_err *err)
{
	struct timespec now;
	int64_t		now_ms;

	if (cfg->expires_at_ms <= 0)
		return true;
	clock_gettime(CLOCK_REALTIME, &now);
	now_ms = (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (now_ms < cfg->expires_at_ms)
		return true;
	return ts_error(err, TS_ERR_DENIED,
					"%s \"%s\": the object store keys (a catalog's data token) expired %lld ms ago; the request was not sent",
					s3_method_name(r->kind), r->uri, (long long) (now_ms - cfg->expires_at_ms));
}

bool
s3_attempt_begin(CURL *h, s3_request *r, const ts_s3_config *cfg, s3_sink *s, s3_attempt *a,
				 ts_err *err)
{
	char		range[80];
	char		sigv4[160];

	a->headers = NULL;
	a->token_header = NULL;
	memset(s, 0, offsetof(s3_sink, errbody));
	s->errlen = 0;
	s->errbody[0] = '\0';
	s->handle = h;
	s->range_start = -1;
	s->range_end = -1;
	s->range_total = -1;
	if (r->kind == REQ_RANGE)
	{
		s->fixed = r->buf;
		s->fixed_len = r->len;
		s->fixed_offset = r->offset;
	}
	else
		s->max_body = r->max_body;
	s->size_hint = r->kind == REQ_WHOLE && r->expect_size > 0 ? r->expect_size : 0;
	if (!ts_s3_check_config(cfg, err) || !check_not_expired(r, cfg, err))
		return false;
	ts_curl_fn.easy_setopt(h, CURLOPT_HEADERFUNCTION, s3_sink_on_header);
	ts_curl_fn.easy_setopt(h, CURLOPT_HEADERDATA, s);
	ts_curl_set_transfer(h, r->url, cfg->timeout_ms, cfg->ca_file);
	ts_curl_fn.easy_setopt(h, CURLOPT_WRITEFUNCTION, s3_sink_on_body);
	ts_curl_fn.easy_setopt(h, CURLOPT_WRITEDATA, s);
	if (r->kind == REQ_HEAD)
		ts_curl_fn.easy_setopt(h, CURLOPT_NOBODY, 1L);
	/* the transfer's own check of Content-Length stays on (a short body is CURLE_PARTIAL_FILE) */
	if (r->kind == REQ_RANGE)
	{
		snprintf(range, sizeof(range), "Range: bytes=%lld-%lld", (long long) r->offset,
				 (long long) (r->offset + (int64_t) r->len - 1));
		a->headers = ts_curl_fn.slist_append(a->headers, range);
	}
	else if (r->kind == REQ_WHOLE)
	{
		/*
		 * The whole object as the range from byte 0: a 206 then says the
		 * object's size (Content-Range: bytes 0-N/size), so that a body
		 * short of it is seen even under a Content-Length that agrees with
		 * the short body.  A store that ignores ranges answers 200.
		 */
		a->headers = ts_curl_fn.slist_append(a->headers, "Range: bytes=0-");
	}
	else if (r->kind == REQ_PUT || r->kind == REQ_POST)
	{
		/* the body from memory (sent again as it is by a retry) */
		ts_curl_fn.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) r->send_len);
		ts_curl_fn.easy_setopt(h, CURLOPT_POSTFIELDS, r->send_len > 0 ? r->send : "");
		ts_curl_fn.easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->kind == REQ_PUT ? "PUT" : "POST");
		a->headers = ts_curl_fn.slist_append(a->headers, r->kind == REQ_PUT ?
									   "Content-Type: application/octet-stream" :
									   "Content-Type: application/xml");
		if (r->if_none_match)
			a->headers = ts_curl_fn.slist_append(a->headers, "If-None-Match: *");
	}
	else if (r->kind == REQ_DELETE)
		ts_curl_fn.easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
	if (cfg->access_key && cfg->access_key[0])
	{
		snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3",
				 cfg->region && cfg->region[0] ? cfg->region : "us-east-1");
		ts_curl_fn.easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4);
		ts_curl_fn.easy_setopt(h, CURLOPT_USERNAME, cfg->access_key);
		ts_curl_fn.easy_setopt(h, CURLOPT_PASSWORD, cfg->secret_key ? cfg->secret_key : "");
		a->headers = ts_curl_fn.slist_append(a->headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
		if (cfg->session_token && cfg->session_token[0])
		{
			a->token_header = ts_psprintf("x-amz-security-token: %s", cfg->session_token);
			if (a->token_header == NULL)
			{
				ts_curl_fn.slist_free_all(a->headers);
				a->headers = NULL;
				ts_curl_fn.easy_setopt(h, CURLOPT_PASSWORD, "");
				return ts_error_nomem(err, NULL);
			}
			a->headers = ts_curl_fn.slist_append(a->headers, a->token_header);
		}
	}
	ts_curl_fn.easy_setopt(h, CURLOPT_HTTPHEADER, a->headers);
	s3_count_request();
	return true;
}

void
s3_attempt_end(CURL *h, s3_request *r, s3_sink *s, s3_attempt *a, long *retry_after_s)
{
	curl_off_t	cl = -1;
	curl_off_t	ra = 0;

	ts_curl_fn.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &s->status);
	ts_curl_fn.easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
	ts_curl_fn.easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra);
	r->content_length = (int64_t) cl;
	*retry_after_s = (long) ra;
	memcpy(r->etag, s->etag, sizeof(r->etag));
	/* the secret and token are not left in the handle or in freed memory */
	ts_curl_fn.easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	ts_curl_fn.easy_setopt(h, CURLOPT_PASSWORD, "");
	ts_curl_fn.slist_free_all(a->headers);
	a->headers = NULL;
	if (a->token_header)
	{
		memset(a->token_header, 0, strlen(a->token_header));
		ts_free(a->token_header);
		a->token_header = NULL;
	}
}

/* One attempt.  False only for a local failure or cancel (err set). */
static bool
attempt(s3_request *r, const ts_s3_config *cfg, s3_sink *s, CURLcode *rc, long *retry_after_s,
		ts_err *err)
{
	s3_attempt	a;
	bool		canceled;

	if (!get_handles(err))
		return false;
	if (!s3_attempt_begin(easy, r, cfg, s, &a, err))
		return false;
	*rc = run_transfer(&canceled);
	s3_attempt_end(easy, r, s, &a, retry_after_s);
	if (canceled || *rc == CURLE_ABORTED_BY_CALLBACK || ts_interrupt_pending())
	{
		ts_free(s->grow);
		s->grow = NULL;
		return ts_error(err, TS_ERR_CANCELED, "%s \"%s\": canceled", s3_method_name(r->kind), r->uri);
	}
	return true;
}

bool
s3_answer_complete(const s3_request *r, const s3_sink *s)
{
	if (s->status < 200 || s->status > 299)
		return true;			/* not a body of the object: judged by status */
	if (r->kind == REQ_RANGE)
		return s->got == r->len ||	/* the bytes of the range, placed by Content-Range */
			(s->range_total >= 0 && r->offset + (int64_t) r->len > s->range_total);	/* past the end: no retry mends it */
	if (r->kind != REQ_WHOLE)
		return true;
	if (s->status == 206 &&
		(s->range_start != 0 || s->range_total < 0 || s->range_end != s->range_total - 1 ||
		 (int64_t) s->got != s->range_total))
		return false;			/* not the object from byte 0 to its end */
	return r->expect_size <= 0 || (int64_t) s->got == r->expect_size;
}

/*
 * Is the store addressed virtual-hosted (bucket.host) on an IP or
 * localhost endpoint?  Then a failed name lookup is not a flapping DNS:
 * no retry mends it.
 */
static bool
unresolvable_bucket_host(const ts_s3_config *cfg)
{
	return cfg && !cfg->path_style && cfg->path_style_set &&
		ts_s3_endpoint_is_ip_or_localhost(cfg->endpoint);
}

s3_outcome
s3_judge(s3_request *r, s3_sink *s, CURLcode rc, int i, int attempts, ts_err *err)
{
	bool		transient;

	if (s->nomem)
	{
		ts_free(s->grow);
		s->grow = NULL;
		ts_error_nomemf(err, "reading \"%s\"", r->uri);
		return S3_FAIL;
	}
	if (s->overflow)
	{
		ts_free(s->grow);
		s->grow = NULL;
		if (r->kind == REQ_RANGE)
			ts_error(err, TS_ERR_CORRUPT,
					 "object \"%s\": too long an answer to a read of %zu bytes at offset %lld",
					 r->uri, r->len, (long long) r->offset);
		else
		{
			ts_error(err, TS_ERR_LIMIT,
					 "%s \"%s\": the store sends more than %zu bytes, the cap of %s",
					 s3_method_name(r->kind), r->uri, r->max_body - 1,
					 r->cap_kind ? r->cap_kind : "this answer");
			ts_error_detail(err, "HTTP %ld, Content-Length %s.", s->status,
							s->got == 0 ? "past the cap" : "absent or past the cap");
		}
		return S3_FAIL;
	}
	if (rc == CURLE_COULDNT_RESOLVE_HOST && unresolvable_bucket_host(r->cfg))
	{
		ts_error(err, TS_ERR_IO, "%s \"%s\" failed: %s (virtual-hosted addressing puts the bucket in front of an IP or localhost endpoint)",
				 s3_method_name(r->kind), r->uri, ts_curl_fn.easy_strerror(rc));
		ts_error_hint(err, "Set s3.path.style.access to true for this endpoint.");
		return S3_FAIL;
	}
	transient = rc != CURLE_OK ? retryable_code(rc) : ts_http_retryable_status(s->status);
	if (rc == CURLE_OK && !transient && !s3_answer_complete(r, s))
	{
		/* cut short under a Content-Length that agrees, or off the range: as a reset */
		s->incomplete = true;
		transient = true;
	}
	if (rc == CURLE_OK && !transient)
	{
		r->status = s->status;
		r->total = s->range_total;
		r->body = s->grow;
		r->body_len = s->got;
		s->grow = NULL;
		if (s->status < 200 || s->status > 299)
			r->error_code = ts_s3_error_code(s->errbody, s->errlen);
		return S3_DONE;
	}
	ts_free(s->grow);
	s->grow = NULL;
	if (transient && i < attempts)
		return S3_RETRY;
	if (rc != CURLE_OK)
		ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: %s",
				 s3_method_name(r->kind), r->uri, i, i == 1 ? "" : "s", ts_curl_fn.easy_strerror(rc));
	else if (s->incomplete)
		ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: HTTP %ld with %zu bytes, "
				 "short of or off the %s asked for",
				 s3_method_name(r->kind), r->uri, i, i == 1 ? "" : "s", s->status, s->got,
				 r->kind == REQ_RANGE ? "range" : "object");
	else
	{
		char	   *code = ts_s3_error_code(s->errbody, s->errlen);

		ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: HTTP %ld%s%s%s",
				 s3_method_name(r->kind), r->uri, i, i == 1 ? "" : "s", s->status,
				 code ? " (" : "", code ? code : "", code ? ")" : "");
		ts_free(code);
	}
	return S3_FAIL;
}

long
s3_retry_wait(long *backoff, long retry_after_s)
{
	/* exponential backoff, full jitter, at least what Retry-After asks */
	long		wait = *backoff / 2 + (long) (rand() % (int) (*backoff / 2 + 1));

	if (retry_after_s > 0 && retry_after_s * 1000 > wait)
		wait = retry_after_s * 1000;
	*backoff = *backoff < 5000 ? *backoff * 2 : 10000;
	return wait;
}

int
s3_max_attempts(const ts_s3_config *cfg)
{
	return cfg->max_attempts > 0 ? cfg->max_attempts : 5;
}

long
s3_retry_budget(const ts_s3_config *cfg)
{
	return cfg->max_retry_ms > 0 ? cfg->max_retry_ms : 30000;
}

/*
 * Send r, retrying what a client retries.  True when an answer arrived
 * that is not retried (r->status says which); false on a transport
 * failure, a cancel, or retries exhausted (err names r->uri).
 */
static bool
send_request(s3_request *r, ts_err *err)
{
	const ts_s3_config *cfg = r->cfg;
	int			attempts;
	long		budget;
	long		backoff = 100;

	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID,
						"\"%s\": no object store settings for this scan", r->uri);
	attempts = s3_max_attempts(cfg);
	budget = s3_retry_budget(cfg);
	for (int i = 1;; i++)
	{
		s3_sink    *s = ts_malloc(sizeof(s3_sink));
		CURLcode	rc = CURLE_OK;
		long		retry_after_s = 0;
		long		wait;
		s3_outcome	out;

		if (s == NULL)
			return ts_error_nomem(err, NULL);
		s3_count_round_trip();
		if (!attempt(r, cfg, s, &rc, &retry_after_s, err))
		{
			ts_free(s);
			return false;
		}
		out = s3_judge(r, s, rc, i, attempts, err);
		ts_free(s);
		if (out != S3_RETRY)
			return out == S3_DONE;
		wait = s3_retry_wait(&backoff, retry_after_s);
		if (wait > budget)
			return ts_error(err, TS_ERR_IO,
							"%s \"%s\": the store kept failing (retry time of %ld ms used up)",
							s3_method_name(r->kind), r->uri, s3_retry_budget(cfg));
		if (!ts_http_pause_ms(wait))
			return ts_error(err, TS_ERR_CANCELED, "%s \"%s\": canceled", s3_method_name(r->kind), r->uri);
		budget -= wait;
	}
}

/* An answer that is not 2xx as an error naming the object, status and code. */
static bool
answer_error(const s3_request *r, ts_err *err)
{
	const char *code = r->error_code;
	ts_errcode tc = r->status == 404 ? TS_ERR_NOT_FOUND : TS_ERR_IO;
	const ts_s3_config *cfg = r->cfg;

	if (r->status == 403)
		return ts_error(err, TS_ERR_IO,
						"%s \"%s\": access denied by the object store (HTTP 403%s%s): %s",
						s3_method_name(r->kind), r->uri, code ? ", " : "", code ? code : "",
						cfg && cfg->credentials_source ? cfg->credentials_source :
						"check the credentials of the user mapping");
	if (r->status == 404)
		return ts_error(err, tc, "%s \"%s\": no such %s (HTTP 404%s%s)",
						s3_method_name(r->kind), r->uri,
						code && strcmp(code, "NoSuchBucket") == 0 ? "bucket" : "object",
						code ? ", " : "", code ? code : "");
	return ts_error(err, tc, "%s \"%s\": HTTP %ld%s%s%s", s3_method_name(r->kind), r->uri, r->status,
					code ? " (" : "", code ? code : "", code ? ")" : "");
}

static void
request_done(s3_request *r)
{
	ts_free(r->error_code);
	r->error_code = NULL;
}

static char *
url_of(const ts_s3_config *cfg, const char *uri, char **bucket, char **key, ts_err *err)
{
	char	   *url;

	if (!ts_s3_parse_uri(uri, bucket, key, err))
		return NULL;
	if (cfg == NULL)
	{
		ts_free(*bucket);
		ts_free(*key);
		ts_error(err, TS_ERR_INVALID, "\"%s\": no object store settings for this scan", uri);
		return NULL;
	}
	url = ts_s3_object_url(cfg, *bucket, *key);
	if (url == NULL)
	{
		ts_free(*bucket);
		ts_free(*key);
		ts_error_nomem(err, NULL);
	}
	return url;
}

char *
s3_object_url_of(const ts_s3_config *cfg, const char *uri, ts_err *err)
{
	char	   *bucket,
			   *key;
	char	   *url = url_of(cfg, uri, &bucket, &key, err);

	if (url != NULL)
	{
		ts_free(bucket);
		ts_free(key);
	}
	return url;
}

/*
 * Send r to the object r->uri names (HEAD, ranged or whole GET): its URL is
 * built here and freed after the request.  False as send_request.
 */
static bool
send_object_request(s3_request *r, ts_err *err)
{
	char	   *bucket,
			   *key;
	char	   *url = url_of(r->cfg, r->uri, &bucket, &key, err);
	bool		ok;

	if (url == NULL)
		return false;
	if (r->query != NULL)
	{
		char	   *q = ts_psprintf("%s?%s", url, r->query);

		ts_free(url);
		if ((url = q) == NULL)
		{
			ts_free(bucket);
			ts_free(key);
			return ts_error_nomem(err, NULL);
		}
	}
	r->url = url;
	ok = send_request(r, err);
	r->url = NULL;
	ts_free(url);
	ts_free(bucket);
	ts_free(key);
	return ok;
}

bool
ts_s3_head(const ts_s3_config *cfg, const char *uri, bool *exists, int64_t *size, ts_err *err)
{
	s3_request	r = {REQ_HEAD, uri};
	bool		ok;

	r.cfg = cfg;
	*exists = false;
	*size = -1;
	if (!send_object_request(&r, err))
		return false;
	if (r.status == 404)
	{
		request_done(&r);
		return true;
	}
	if (r.status != 200)
	{
		ok = answer_error(&r, err);
		request_done(&r);
		return ok;
	}
	request_done(&r);
	if (r.content_length < 0)
		return ts_error(err, TS_ERR_IO, "HEAD \"%s\": the answer has no Content-Length", uri);
	*exists = true;
	*size = r.content_length;
	return true;
}

bool
s3_range_result(s3_request *r, int64_t object_size, ts_err *err)
{
	bool		ok;

	if (r->status >= 300 || r->status < 200)
		ok = answer_error(r, err);
	else if (r->status == 206 && r->total > 0 && object_size > 0 && r->total != object_size)
	{
		/* the size the file was opened with (a HEAD's, or the metadata's) is not the object's */
		ok = ts_error(err, TS_ERR_IO,
					  "object \"%s\": a ranged read gives its size as %lld bytes, not the %lld it was opened with",
					  r->uri, (long long) r->total, (long long) object_size);
	}
	else if (r->status == 200 && r->content_length >= 0 && object_size > 0 &&
			 r->content_length != object_size)
	{
		/* a store that ignores Range sends the whole object: it must be that size too */
		ok = ts_error(err, TS_ERR_IO,
					  "object \"%s\": a ranged read was answered with the whole object, of %lld bytes, not the %lld it was opened with",
					  r->uri, (long long) r->content_length, (long long) object_size);
	}
	else
		ok = ts_s3_check_range_answer(r->uri, r->status, r->body_len, r->len, r->offset,
									  object_size, err);
	request_done(r);
	return ok;
}

bool
ts_s3_read_range(const ts_s3_config *cfg, const char *uri, void *buf, size_t len,
				 int64_t offset, int64_t object_size, ts_err *err)
{
	s3_request	r = {REQ_RANGE, uri};

	r.cfg = cfg;
	if (len == 0)
		return true;
	r.offset = offset;
	r.len = len;
	r.buf = buf;
	if (!send_object_request(&r, err))
		return false;
	return s3_range_result(&r, object_size, err);
}

bool
s3_whole_result(s3_request *r, uint8_t **data, size_t *len, ts_err *err)
{
	bool		ok;

	*data = NULL;
	*len = 0;
	if (r->status == 416 && r->total <= 0)
	{
		/* "bytes=0-" of an empty object: its byte 0 does not exist (Content-Range: bytes * /0, if any) */
		ts_free(r->body);
		r->body = NULL;
		r->status = 200;
		r->body_len = 0;
		r->content_length = 0;
	}
	if (r->status != 200 && r->status != 206)
	{
		ts_free(r->body);
		r->body = NULL;
		ok = answer_error(r, err);
		request_done(r);
		return ok;
	}
	request_done(r);
	if (r->status == 200 && r->content_length >= 0 && (size_t) r->content_length != r->body_len)
	{
		ts_free(r->body);
		r->body = NULL;
		return ts_error(err, TS_ERR_CORRUPT, "object \"%s\": %zu bytes read of %lld announced",
						r->uri, r->body_len, (long long) r->content_length);
	}
	if (r->body == NULL && (r->body = ts_malloc(1)) == NULL)
		return ts_error_nomem(err, NULL);
	r->body[r->body_len] = '\0';
	*data = r->body;
	*len = r->body_len;
	r->body = NULL;
	return true;
}

void
s3_set_whole_cap(s3_request *r)
{
	/* one byte more: the sink keeps room for the terminating NUL */
	r->max_body = ts_s3_whole_cap(r->uri, r->expect_size, &r->cap_kind) + 1;
}

bool
ts_s3_read_object(const ts_s3_config *cfg, const char *uri, uint8_t **data, size_t *len,
				  ts_err *err)
{
	s3_request	r = {REQ_WHOLE, uri};

	r.cfg = cfg;
	*data = NULL;
	*len = 0;
	s3_set_whole_cap(&r);
	if (!send_object_request(&r, err))
		return false;
	return s3_whole_result(&r, data, len, err);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

bool
ts_s3_list(const ts_s3_config *cfg, const char *uri, bool max_one, char ***names, int *count,
		   ts_err *err)
{
	ts_s3_listing out = {0};
	ts_s3_pager pager = {0};
	char	   *bucket,
			   *key,
			   *prefix,
			   *base;
	char	   *eprefix;
	bool		ok = true;

	*names = NULL;
	*count = 0;
	base = url_of(cfg, uri, &bucket, &key, err);
	if (base == NULL)
		return false;
	ts_free(base);
	base = ts_s3_object_url(cfg, bucket, NULL);
	{
		size_t		kl = strlen(key);

		while (kl > 0 && key[kl - 1] == '/')
			kl--;
		prefix = kl ? ts_psprintf("%.*s/", (int) kl, key) : ts_strdup("");
	}
	eprefix = prefix ? ts_url_encode(prefix) : NULL;
	if (base == NULL || eprefix == NULL)
	{
		ok = ts_error_nomem(err, NULL);
		goto done;
	}
	do
	{
		s3_request	r = {REQ_LIST, uri};
		char	   *etoken = out.next_token ? ts_url_encode(out.next_token) : NULL;

		if (out.next_token && etoken == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			break;
		}
		/* query parameters in the order SigV4 canonicalizes them */
		r.url = ts_psprintf("%s?%s%s%sdelimiter=%%2F&list-type=2%s&prefix=%s",
							base, etoken ? "continuation-token=" : "", etoken ? etoken : "",
							etoken ? "&" : "", max_one ? "&max-keys=1" : "", eprefix);
		ts_free(etoken);
		if (r.url == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			break;
		}
		r.max_body = TS_S3_LIST_PAGE_MAX + 1;
		r.cap_kind = "a listing page";
		r.cfg = cfg;
		for (int attempt = 1;; attempt++)
		{
			int			before = out.count;

			ok = send_request(&r, err);
			if (!ok)
				break;
			if (r.status != 200)
				ok = answer_error(&r, err);
			else
				ok = ts_s3_parse_list_page((const char *) r.body, r.body_len, prefix, &out, err);
			ts_free(r.body);
			r.body = NULL;
			request_done(&r);
			if (ok || r.status != 200 || err == NULL || err->code != TS_ERR_CORRUPT ||
				attempt >= s3_max_attempts(cfg))
				break;

			/*
			 * A 200 page that does not parse (cut short under a
			 * Content-Length that agrees) is transient, as a short body
			 * is: the entries it added are dropped and the same page is
			 * asked again, at most as many times as a request is tried.
			 */
			while (out.count > before)
				ts_free(out.names[--out.count]);
			ts_free(out.next_token);
			out.next_token = NULL;
			if (!ts_http_pause_ms(50L * attempt))
			{
				ok = ts_error(err, TS_ERR_CANCELED, "LIST \"%s\": canceled", uri);
				break;
			}
		}
		ts_free((char *) r.url);
		if (ok && !max_one)
			ok = ts_s3_pager_next(&pager, &out, uri, err);
		if (ok && !max_one && out.truncated && ts_interrupt_pending())
			ok = ts_error(err, TS_ERR_CANCELED, "LIST \"%s\": canceled", uri);
		if (!ok)
			break;
	} while (ok && !max_one && out.truncated);
	if (ok && out.count == 0)
		ok = ts_error(err, TS_ERR_NOT_FOUND, "LIST \"%s\": no objects below it", uri);
	if (ok)
	{
		if (out.count > 1)
			qsort(out.names, (size_t) out.count, sizeof(char *), cmp_names);
		*names = out.names;
		*count = out.count;
		out.names = NULL;
		out.count = 0;
	}
done:
	ts_s3_pager_free(&pager);
	ts_s3_listing_free(&out);
	ts_free(eprefix);
	ts_free(prefix);
	ts_free(base);
	ts_free(bucket);
	ts_free(key);
	return ok;
}
