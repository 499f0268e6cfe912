/*
 * http.c - HTTP GET through libcurl (see ts_http.h).
 *
 * Owns: the process's curl easy handle (reused: its connection cache keeps
 * connections alive across requests and queries), the body buffer and its
 * bound, the retry loop, the progress callback that stops a transfer when
 * an interrupt is pending, Retry-After, and URL encoding.  Nothing here longjmps: the
 * caller turns TS_ERR_CANCELED into its own interrupt check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/ts_curl.h"
#include "base/ts_http.h"

static CURL *easy = NULL;

typedef struct body_buf
{
	CURL	   *handle;
	char	   *data;
	size_t		len;
	size_t		cap;
	size_t		limit;			/* largest len + 1 (the NUL) kept */
	bool		too_large;
	bool		nomem;
} body_buf;

/* Does the answer announce more than b->limit allows (Content-Length)? */
static bool
announced_too_large(body_buf *b)
{
	curl_off_t	cl = -1;

	if (ts_curl_fn.easy_getinfo(b->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
		cl >= 0 && (uint64_t) cl + 1 > (uint64_t) b->limit)
		b->too_large = true;
	return b->too_large;
}

static size_t
on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	body_buf   *b = arg;
	size_t		n = size * nmemb;

	if (b->len == 0 && announced_too_large(b))
		return 0;
	if (b->len + n + 1 > b->limit)
	{
		b->too_large = true;
		return 0;				/* curl stops with CURLE_WRITE_ERROR */
	}
	if (b->len + n + 1 > b->cap)
	{
		size_t		cap = b->cap ? b->cap : 4096;
		char	   *d;

		while (cap < b->len + n + 1)
			cap *= 2;
		d = ts_realloc(b->data, cap);
		if (d == NULL)
		{
			b->nomem = true;
			return 0;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

/* Most we wait for one Retry-After (seconds); a longer ask is capped. */
#define RETRY_AFTER_MAX_MS 30000L

/* What the header callback fills and checks. */
typedef struct header_state
{
	long		retry_after_ms;
	body_buf   *body;
} header_state;

/*
 * A Retry-After header in delta-seconds -> retry_after_ms (an HTTP date is
 * ignored); at the end of the headers, a Content-Length past the bound
 * stops the transfer before a byte of the body is kept.
 */
static size_t
on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
	size_t		n = size * nmemb;
	header_state *hs = arg;
	long	   *retry_after_ms = &hs->retry_after_ms;
	static const char name[] = "retry-after:";

	if ((n == 2 && ptr[0] == '\r' && ptr[1] == '\n') || (n == 1 && ptr[0] == '\n'))
	{
		long		status = 0;

		ts_curl_fn.easy_getinfo(hs->body->handle, CURLINFO_RESPONSE_CODE, &status);
		return status >= 200 && announced_too_large(hs->body) ? 0 : n;
	}

	if (n > sizeof(name) - 1 && strncasecmp(ptr, name, sizeof(name) - 1) == 0)
	{
		size_t		i = sizeof(name) - 1;
		long		secs = 0;
		bool		digits = false;

		while (i < n && (ptr[i] == ' ' || ptr[i] == '\t'))
			i++;
		while (i < n && ptr[i] >= '0' && ptr[i] <= '9' && secs <= RETRY_AFTER_MAX_MS / 1000)
		{
			secs = secs * 10 + (ptr[i++] - '0');
			digits = true;
		}
		if (digits)
			*retry_after_ms = secs * 1000 > RETRY_AFTER_MAX_MS ? RETRY_AFTER_MAX_MS : secs * 1000;
	}
	return n;
}

/* libcurl asks this between (and during) waits: nonzero aborts the transfer */
static int
on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void) arg;
	(void) dltotal;
	(void) dlnow;
	(void) ultotal;
	(void) ulnow;
	return ts_interrupt_pending() ? 1 : 0;
}

bool
ts_has_control_char(const char *s)
{
	for (const unsigned char *p = (const unsigned char *) s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

bool
ts_http_retryable_status(long status)
{
	return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

bool
ts_http_retryable_curl_code(int code)
{
	CURLcode	c = (CURLcode) code;

	return c == CURLE_COULDNT_CONNECT || c == CURLE_OPERATION_TIMEDOUT ||
		c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR || c == CURLE_GOT_NOTHING ||
		c == CURLE_PARTIAL_FILE;
}

bool
ts_http_pause_ms(long ms)
{
	while (ms > 0)
	{
		long		slice = ms > 50 ? 50 : ms;
		struct timespec ts = {0, slice * 1000000L};

		if (ts_interrupt_pending())
			return false;
		nanosleep(&ts, NULL);
		ms -= slice;
	}
	return !ts_interrupt_pending();
}

static bool
get_easy(ts_err *err)
{
	if (easy == NULL)
	{
		if (!ts_curl_global_init(err))
			return false;
		easy = ts_curl_fn.easy_init();
		if (easy == NULL)
			return ts_error(err, TS_ERR_NOMEM, "could not create a libcurl handle");
	}
	else
		ts_curl_fn.easy_reset(easy);	/* keeps the connection cache */
	return true;
}

void
ts_curl_set_transfer(void *handle, const char *url, long timeout_ms, const char *ca_file)
{
	CURL	   *h = handle;

	ts_curl_fn.easy_setopt(h, CURLOPT_URL, url);
	ts_curl_fn.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	ts_curl_fn.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	ts_curl_fn.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	ts_curl_fn.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	ts_curl_fn.easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 60000L);
	/* a stalled connection: less than 1 byte/s for 15 s */
	ts_curl_fn.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	ts_curl_fn.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 15L);
	ts_curl_fn.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	ts_curl_fn.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	ts_curl_fn.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	if (ca_file)
		ts_curl_fn.easy_setopt(h, CURLOPT_CAINFO, ca_file);
}

bool
ts_http_get(const ts_http_request *req, ts_http_response *resp, ts_err *err)
{
	int			retries = req->retries < 0 ? 3 : req->retries;
	long		backoff = 200;
	const char *what = req->what ? req->what : "HTTP request";
	size_t		max_body = req->max_body > 0 && req->max_body < TS_HTTP_MAX_BODY ?
		req->max_body : TS_HTTP_MAX_BODY - 1;

	memset(resp, 0, sizeof(*resp));
	if (ts_has_control_char(req->url))
		return ts_error(err, TS_ERR_INVALID,
						"%s: the URL contains a control character (CR, LF, NUL or another), refused before sending",
						what);
	if (ts_has_control_char(req->bearer))
		return ts_error(err, TS_ERR_INVALID,
						"%s: the bearer token (option \"token\" or a token the catalog issued) contains a control character, refused before sending",
						what);
	for (int attempt = 0;; attempt++)
	{
		body_buf	b = {0};
		header_state hs = {-1, &b};
		struct curl_slist *headers = NULL;
		char	   *auth = NULL;
		CURLcode	rc;
		long		status = 0;

		if (!get_easy(err))
			return false;
		b.handle = easy;
		b.limit = max_body + 1;
		ts_curl_set_transfer(easy, req->url, req->timeout_ms, req->ca_file);
		ts_curl_fn.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
		ts_curl_fn.easy_setopt(easy, CURLOPT_WRITEDATA, &b);
		ts_curl_fn.easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
		ts_curl_fn.easy_setopt(easy, CURLOPT_HEADERDATA, &hs);
		ts_curl_fn.easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
		ts_curl_fn.easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
		headers = ts_curl_fn.slist_append(headers, "Accept: application/json");
		if (req->post_json)
		{
			headers = ts_curl_fn.slist_append(headers, "Content-Type: application/json");
			headers = ts_curl_fn.slist_append(headers, "Expect:");	/* no 100-continue round trip */
			ts_curl_fn.easy_setopt(easy, CURLOPT_POSTFIELDS, req->post_json);
			ts_curl_fn.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) strlen(req->post_json));
		}
		if (req->bearer)
		{
			size_t		n = strlen(req->bearer) + 32;

			auth = ts_malloc(n);
			if (auth == NULL)
			{
				ts_curl_fn.slist_free_all(headers);
				return ts_error_nomem(err, NULL);
			}
			snprintf(auth, n, "Authorization: Bearer %s", req->bearer);
			headers = ts_curl_fn.slist_append(headers, auth);
		}
		ts_curl_fn.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
		rc = ts_curl_fn.easy_perform(easy);
		ts_curl_fn.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
		ts_curl_fn.easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
		ts_curl_fn.slist_free_all(headers);
		if (auth)
		{
			memset(auth, 0, strlen(auth));
			ts_free(auth);
		}

		if (rc == CURLE_ABORTED_BY_CALLBACK || ts_interrupt_pending())
		{
			ts_free(b.data);
			return ts_error(err, TS_ERR_CANCELED, "%s: canceled", what);
		}
		if (b.too_large || b.nomem)
		{
			ts_free(b.data);
			if (b.nomem)
				return ts_error_nomem(err, what);
			if (max_body % ((size_t) 1 << 20) == 0)
				return ts_error(err, TS_ERR_LIMIT,
								"%s: the answer is larger than %zu MB, the cap of %s",
								what, max_body >> 20, req->cap_name ? req->cap_name : "catalog answers");
			return ts_error(err, TS_ERR_LIMIT,
							"%s: the answer is larger than %zu bytes, the cap of %s",
							what, max_body, req->cap_name ? req->cap_name : "catalog answers");
		}
		if (rc == CURLE_OK && !(ts_http_retryable_status(status) && attempt < retries))
		{
			resp->status = status;
			resp->body = b.data ? b.data : ts_strdup("");
			resp->len = b.len;
			if (resp->body == NULL)
				return ts_error_nomem(err, NULL);
			return true;
		}
		ts_free(b.data);
		if (attempt >= retries || (rc != CURLE_OK && !ts_http_retryable_curl_code(rc)))
			return rc == CURLE_OK ? ts_error(err, TS_ERR_IO, "%s: HTTP %ld", what, status) :
				ts_error(err, TS_ERR_IO, "%s failed: %s", what, ts_curl_fn.easy_strerror(rc));
		/* the server's Retry-After (429 / 503), else exponential backoff with jitter */
		if (!ts_http_pause_ms(hs.retry_after_ms >= 0 && rc == CURLE_OK ? hs.retry_after_ms :
					  backoff + (long) (rand() % (int) (backoff / 2 + 1))))
			return ts_error(err, TS_ERR_CANCELED, "%s: canceled", what);
		backoff *= 2;
	}
}

void
ts_http_response_free(ts_http_response *resp)
{
	if (resp == NULL)
		return;
	ts_free(resp->body);
	resp->body = NULL;
	resp->len = 0;
}

char *
ts_url_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		n = strlen(s);
	char	   *out = ts_malloc(n * 3 + 1);
	char	   *o = out;

	if (out == NULL)
		return NULL;
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			*p == '-' || *p == '.' || *p == '_' || *p == '~')
			*o++ = (char) *p;
		else
		{
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}
