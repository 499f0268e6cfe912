/*
 * azure_http.c - one Blob service request on the wire (see azure_internal.h).
 *
 * Owns: the process's curl handles for Azure (a multi handle whose
 * connection cache is kept across requests), one attempt of a request (URL
 * with the SAS token, x-ms-date / x-ms-version, SharedKey Authorization,
 * the body sink with its cap, a transfer loop that polls for interrupts
 * every 50 ms), the retry loop (the statuses and transport failures of
 * ts_http.h, backoff with jitter, Retry-After, bounded attempts and time)
 * and the errors of answers: they name the URI, the HTTP status and the
 * service's error code; the URL (which may carry a SAS token) and the
 * Authorization header are wiped after each attempt and never shown.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/azure_internal.h"
#include "base/ts_curl.h"
#include "base/ts_http.h"

static CURLM *multi = NULL;
static CURL *easy = NULL;
static int64_t requests_sent = 0;

int64_t
ts_azure_request_count(void)
{
	return requests_sent;
}


static const char *
method_of(az_kind k)
{
	return k == AZ_HEAD ? "HEAD" : k == AZ_PUT ? "PUT" : k == AZ_DELETE ? "DELETE" :
		k == AZ_LIST ? "LIST" : "GET";
}

bool
azure_is_2xx(long status)
{
	return status >= 200 && status <= 299;
}

/* A 2xx body that would pass the cap by its Content-Length: stop before keeping a byte. */
static bool
announced_too_large(az_request *r)
{
	curl_off_t	cl = -1;

	if ((r->kind != AZ_WHOLE && r->kind != AZ_LIST) || !azure_is_2xx(r->status))
		return false;
	if (ts_curl_fn.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
		cl >= 0 && (uint64_t) cl + 1 > (uint64_t) r->max_body)
		r->overflow = true;
	return r->overflow;
}

/* The bytes of the range asked for, placed by where the answer starts in the blob. */
static size_t
take_range(az_request *r, const char *ptr, size_t n)
{
	int64_t		from,
				to;

	if (!r->pos_set)
	{
		r->pos = r->status == 206 && r->range_start >= 0 ? r->range_start :
			r->status == 206 ? r->offset : 0;
		r->pos_set = true;
	}
	from = r->pos > r->offset ? r->pos : r->offset;
	to = r->pos + (int64_t) n;
	if (to > r->offset + (int64_t) r->len)
		to = r->offset + (int64_t) r->len;
	if (to > from)
	{
		memcpy((char *) r->buf + (from - r->offset), ptr + (from - r->pos), (size_t) (to - from));
		r->got += (size_t) (to - from);
	}
	r->pos += (int64_t) n;
	if (r->pos - r->offset > (int64_t) r->len + ((int64_t) 64 << 20))
	{
		r->overflow = true;		/* far more than asked */
		return 0;
	}
	return n;
}

static size_t
on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	az_request *r = arg;
	size_t		n = size * nmemb;

	if (r->status == 0)
		ts_curl_fn.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (!azure_is_2xx(r->status))
	{
		size_t		k = n < sizeof(r->errbody) - 1 - r->errlen ? n : sizeof(r->errbody) - 1 - r->errlen;

		memcpy(r->errbody + r->errlen, ptr, k);
		r->errlen += k;
		r->errbody[r->errlen] = '\0';
		return n;
	}
	if (r->kind == AZ_RANGE)
		return take_range(r, ptr, n);
	if (r->kind != AZ_WHOLE && r->kind != AZ_LIST)
		return n;				/* the small answer of a PUT or DELETE */
	if (r->got + n + 1 > r->max_body)
	{
		r->overflow = true;
		return 0;
	}
	if (r->got + n + 1 > r->body_cap)
	{
		size_t		cap = r->body_cap ? r->body_cap : 16384;
		uint8_t    *d;

		while (cap < r->got + n + 1)
			cap *= 2;
		d = ts_realloc(r->body, cap);
		if (d == NULL)
		{
			r->nomem = true;
			return 0;
		}
		r->body = d;
		r->body_cap = cap;
	}
	memcpy(r->body + r->got, ptr, n);
	r->got += n;
	r->body[r->got] = '\0';
	return n;
}

/* Copy a header's value (trimmed) into out when it is a word of [A-Za-z0-9+/=]. */
static void
header_word(const char *v, size_t n, char *out, size_t outlen)
{
	size_t		k = 0;

	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	for (; k < n && k + 1 < outlen; k++)
		if (!(isalnum((unsigned char) v[k]) || v[k] == '+' || v[k] == '/' || v[k] == '='))
			return;
	if (k == n)
	{
		memcpy(out, v, n);
		out[n] = '\0';
	}
}

static size_t
on_header(char *buf, size_t size, size_t nitems, void *arg)
{
	az_request *r = arg;
	size_t		n = size * nitems;
	static const char crange[] = "content-range:";
	static const char ecode[] = "x-ms-error-code:";
	static const char md5[] = "content-md5:";

	if ((n == 2 && buf[0] == '\r') || (n == 1 && buf[0] == '\n'))
	{
		ts_curl_fn.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
		return announced_too_large(r) ? 0 : n;
	}
	if (n > sizeof(crange) && strncasecmp(buf, crange, sizeof(crange) - 1) == 0)
	{
		char		line[128];
		long long	a,
					b,
					total;
		size_t		k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

		memcpy(line, buf, k);
		line[k] = '\0';
		if (sscanf(line + sizeof(crange) - 1, " bytes %lld-%lld/%lld", &a, &b, &total) == 3 &&
			a >= 0 && b >= a && total > b)
		{
			r->range_start = a;
			r->range_total = total;
		}
		else if (sscanf(line + sizeof(crange) - 1, " bytes */%lld", &total) == 1 && total >= 0)
			r->range_total = total;
	}
	else if (n > sizeof(ecode) && strncasecmp(buf, ecode, sizeof(ecode) - 1) == 0)
		header_word(buf + sizeof(ecode) - 1, n - (sizeof(ecode) - 1), r->code, sizeof(r->code));
	else if (n > sizeof(md5) && strncasecmp(buf, md5, sizeof(md5) - 1) == 0)
		header_word(buf + sizeof(md5) - 1, n - (sizeof(md5) - 1), r->content_md5,
					sizeof(r->content_md5));
	return n;
}

/*
 * Run the easy handle to its end in the multi handle, asking for an
 * interrupt between waits of at most 50 ms (*canceled when one came).
 */
static CURLcode
run_transfer(bool *canceled)
{
	CURLcode	result = CURLE_OK;
	bool		done = false;

	*canceled = false;
	if (ts_curl_fn.multi_add_handle(multi, easy) != CURLM_OK)
		return CURLE_FAILED_INIT;
	while (!done)
	{
		int			running = 0;
		int			left;
		CURLMsg    *msg;

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

static void
wipe(char *s)
{
	if (s)
	{
		memset(s, 0, strlen(s));
		ts_free(s);
	}
}

/* The URL of one attempt: the blob's (or container's), its query and the SAS token. */
static char *
attempt_url(const ts_azure_config *cfg, const az_request *r)
{
	char	   *base = ts_azure_url(cfg, r->u, r->kind == AZ_LIST ? NULL : r->u->blob);
	const char *sas = cfg->sas_token && cfg->sas_token[0] == '?' ? cfg->sas_token + 1 : cfg->sas_token;
	char	   *url;

	if (base == NULL)
		return NULL;
	url = ts_psprintf("%s%s%s%s%s", base, r->query || sas ? "?" : "", r->query ? r->query : "",
					  r->query && sas ? "&" : "", sas ? sas : "");
	ts_free(base);
	return url;
}

/*
 * One attempt of r: *rc the transfer's result.  False only for a local
 * failure or a cancel (err set).
 */
static bool
attempt(const ts_azure_config *cfg, az_request *r, CURLcode *rc, ts_err *err)
{
	ts_azure_header h[10];
	int			nh = 0;
	char		date[32];
	char		range[80];
	char		length[32];
	char		auth[TS_AZURE_AUTH_LEN];
	char	   *url;
	struct curl_slist *headers = NULL;
	bool		ok = true;
	bool		canceled;

	r->status = 0;
	r->content_length = -1;
	r->range_start = -1;
	r->range_total = -1;
	r->got = 0;
	r->pos_set = false;
	r->overflow = r->nomem = false;
	r->code[0] = r->content_md5[0] = '\0';
	r->errlen = 0;
	r->errbody[0] = '\0';
	if (easy == NULL || multi == NULL)
	{
		if (!ts_curl_global_init(err))
			return false;
		if (multi == NULL && (multi = ts_curl_fn.multi_init()) == NULL)
			return ts_error(err, TS_ERR_NOMEM, "could not create a libcurl multi handle");
		if ((easy = ts_curl_fn.easy_init()) == NULL)
			return ts_error(err, TS_ERR_NOMEM, "could not create a libcurl handle");
	}
	else
		ts_curl_fn.easy_reset(easy);	/* keeps the connection cache */
	url = attempt_url(cfg, r);
	if (url == NULL)
		return ts_error_nomem(err, NULL);
	ts_azure_http_date(time(NULL), date);
	h[nh++] = (ts_azure_header) {"x-ms-date", date};
	h[nh++] = (ts_azure_header) {"x-ms-version", TS_AZURE_VERSION};
	if (r->kind == AZ_RANGE)
	{
		snprintf(range, sizeof(range), "bytes=%lld-%lld", (long long) r->offset,
				 (long long) (r->offset + (int64_t) r->len - 1));
		h[nh++] = (ts_azure_header) {"Range", range};
	}
	if (r->kind == AZ_PUT)
	{
		snprintf(length, sizeof(length), "%zu", r->data_len);
		if (!r->block)
			h[nh++] = (ts_azure_header) {"x-ms-blob-type", "BlockBlob"};
		if (r->if_absent)
			h[nh++] = (ts_azure_header) {"If-None-Match", "*"};
		h[nh++] = (ts_azure_header) {"Content-Type", "application/octet-stream"};
		h[nh++] = (ts_azure_header) {"Content-MD5", r->md5};
	}
	for (int i = 0; i < nh; i++)
	{
		char		line[160];

		snprintf(line, sizeof(line), "%s: %s", h[i].name, h[i].value);
		headers = ts_curl_fn.slist_append(headers, line);
	}
	if (r->kind == AZ_PUT)
	{
		/* curl sends this Content-Length itself: signed, not added again */
		h[nh++] = (ts_azure_header) {"Content-Length", length};
		headers = ts_curl_fn.slist_append(headers, "Expect:");
	}
	if (cfg->account_key)
	{
		ts_azure_sign_input in = {r->kind == AZ_LIST ? "GET" : method_of(r->kind),
		r->u->account, url, h, nh};
		char	   *sts = ts_azure_string_to_sign(&in);
		char		line[TS_AZURE_AUTH_LEN + 32];

		if (sts == NULL)
			ok = ts_error_nomem(err, NULL);
		else
			ok = ts_azure_authorization(r->u->account, cfg->account_key, sts, auth, err);
		ts_free(sts);
		if (ok)
		{
			snprintf(line, sizeof(line), "Authorization: %s", auth);
			headers = ts_curl_fn.slist_append(headers, line);
			memset(line, 0, sizeof(line));
			memset(auth, 0, sizeof(auth));
		}
	}
	if (!ok)
	{
		ts_curl_fn.slist_free_all(headers);
		wipe(url);
		return false;
	}
	ts_curl_set_transfer(easy, url, cfg->timeout_ms, cfg->ca_file);
	ts_curl_fn.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	ts_curl_fn.easy_setopt(easy, CURLOPT_WRITEDATA, r);
	ts_curl_fn.easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
	ts_curl_fn.easy_setopt(easy, CURLOPT_HEADERDATA, r);
	if (r->kind == AZ_HEAD)
		ts_curl_fn.easy_setopt(easy, CURLOPT_NOBODY, 1L);
	else if (r->kind == AZ_DELETE)
		ts_curl_fn.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "DELETE");
	else if (r->kind == AZ_PUT)
	{
		ts_curl_fn.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
		ts_curl_fn.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) r->data_len);
		ts_curl_fn.easy_setopt(easy, CURLOPT_POSTFIELDS, r->data_len ? r->data : "");
	}
	ts_curl_fn.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	requests_sent++;
	*rc = run_transfer(&canceled);
	{
		curl_off_t	cl = -1;

		ts_curl_fn.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
		if (ts_curl_fn.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK)
			r->content_length = (int64_t) cl;
	}
	/* the URL (SAS token) and the Authorization header leave the handle */
	ts_curl_fn.easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
	ts_curl_fn.easy_setopt(easy, CURLOPT_URL, "");
	for (struct curl_slist *s = headers; s; s = s->next)
		memset(s->data, 0, strlen(s->data));
	ts_curl_fn.slist_free_all(headers);
	wipe(url);
	if (canceled || ts_interrupt_pending())
		return ts_error(err, TS_ERR_CANCELED, "%s \"%s\": canceled", method_of(r->kind), r->uri);
	return true;
}

/* The error code of a non-2xx answer: its x-ms-error-code, else its XML body's <Code> (as S3's). */
static char *
error_code_of(const az_request *r)
{
	return r->code[0] ? ts_strdup(r->code) : ts_s3_error_code(r->errbody, r->errlen);
}

/* A 2xx answer to a range that is short of it (and not past the blob's end). */
static bool
range_short(const az_request *r)
{
	return r->kind == AZ_RANGE && azure_is_2xx(r->status) && r->got != r->len &&
		!(r->range_total >= 0 && r->offset + (int64_t) r->len > r->range_total);
}

/* Failed with a transport error or a 5xx: it may have been carried out anyway. */
static bool
may_have_landed(CURLcode rc, long status)
{
	return rc != CURLE_COULDNT_CONNECT && rc != CURLE_COULDNT_RESOLVE_HOST &&
		(rc != CURLE_OK || status >= 500);
}

/*
 * Send r, retrying what a client retries.  True when an answer arrived that
 * is not retried (r->status says which); false on a cancel, a local failure,
 * a body past its cap, or retries exhausted (err names r->uri).
 * *landed: an earlier attempt may have been carried out.
 */
bool
azure_send(const ts_azure_config *cfg, az_request *r, bool *landed, ts_err *err)
{
	int			attempts = cfg->max_attempts > 0 ? cfg->max_attempts : 5;
	long		budget = cfg->max_retry_ms > 0 ? cfg->max_retry_ms : 30000;
	long		backoff = 100;

	if (!ts_azure_check_config(cfg, err))
		return false;
	if (landed)
		*landed = false;
	for (int i = 1;; i++)
	{
		CURLcode	rc = CURLE_OK;
		curl_off_t	retry_after = 0;
		bool		transient;
		long		wait;

		if (!attempt(cfg, r, &rc, err))
			return false;
		ts_curl_fn.easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after);
		if (r->nomem)
			return ts_error_nomemf(err, "reading \"%s\"", r->uri);
		if (r->overflow && r->kind == AZ_RANGE)
			return ts_error(err, TS_ERR_CORRUPT,
							"blob \"%s\": too long an answer to a read of %zu bytes at offset %lld",
							r->uri, r->len, (long long) r->offset);
		if (r->overflow)
			return ts_error(err, TS_ERR_LIMIT, "%s \"%s\": the store sends more than %zu bytes, the cap of %s",
							method_of(r->kind), r->uri, r->max_body - 1, r->cap_kind);
		transient = rc != CURLE_OK ? ts_http_retryable_curl_code(rc) || rc == CURLE_COULDNT_RESOLVE_HOST :
			ts_http_retryable_status(r->status) || range_short(r);
		if (rc == CURLE_OK && !transient)
			return true;
		if (landed && may_have_landed(rc, r->status))
			*landed = true;
		if (!transient || i >= attempts)
		{
			char	   *code = rc == CURLE_OK ? error_code_of(r) : NULL;

			if (rc != CURLE_OK)
				ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: %s", method_of(r->kind),
						 r->uri, i, i == 1 ? "" : "s", ts_curl_fn.easy_strerror(rc));
			else if (range_short(r))
				ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: HTTP %ld with %zu bytes, short of the range asked for",
						 method_of(r->kind), r->uri, i, i == 1 ? "" : "s", r->status, r->got);
			else
				ts_error(err, TS_ERR_IO, "%s \"%s\" failed after %d attempt%s: HTTP %ld%s%s%s",
						 method_of(r->kind), r->uri, i, i == 1 ? "" : "s", r->status,
						 code ? " (" : "", code ? code : "", code ? ")" : "");
			ts_free(code);
			return false;
		}
		/* exponential backoff, full jitter, at least what Retry-After asks */
		wait = backoff / 2 + (long) (rand() % (int) (backoff / 2 + 1));
		if (retry_after > 0 && retry_after * 1000 > wait)
			wait = (long) (retry_after * 1000 < 30000 ? retry_after * 1000 : 30000);
		backoff = backoff < 5000 ? backoff * 2 : 10000;
		if (wait > budget)
			return ts_error(err, TS_ERR_IO, "%s \"%s\": the store kept failing (retry time of %ld ms used up)",
							method_of(r->kind), r->uri, cfg->max_retry_ms > 0 ? cfg->max_retry_ms : 30000L);
		if (!ts_http_pause_ms(wait))
			return ts_error(err, TS_ERR_CANCELED, "%s \"%s\": canceled", method_of(r->kind), r->uri);
		budget -= wait;
	}
}

/* A non-2xx answer as an error naming the URI, status and error code, never a secret. */
bool
azure_answer_error(const ts_azure_config *cfg, const az_request *r, ts_err *err)
{
	char	   *code = error_code_of(r);
	bool		no_container = code && strcmp(code, "ContainerNotFound") == 0;

	if (r->status == 403)
		ts_error(err, TS_ERR_IO, "%s \"%s\": access denied by the store (HTTP 403%s%s): %s",
				 method_of(r->kind), r->uri, code ? ", " : "", code ? code : "",
				 cfg->sas_token ? "check option \"azure.sas-token\" of the user mapping" :
				 cfg->account_key ? "check option \"azure.account-key\" of the user mapping" :
				 "the requests were anonymous: give \"azure.account-key\" or \"azure.sas-token\" in the user mapping");
	else if (r->status == 404)
		ts_error(err, TS_ERR_NOT_FOUND, "%s \"%s\": no such %s (HTTP 404%s%s)",
				 method_of(r->kind), r->uri, no_container ? "container" : "blob",
				 code ? ", " : "", code ? code : "");
	else
		ts_error(err, TS_ERR_IO, "%s \"%s\": HTTP %ld%s%s%s", method_of(r->kind), r->uri, r->status,
				 code ? " (" : "", code ? code : "", code ? ")" : "");
	ts_free(code);
	return false;
}
