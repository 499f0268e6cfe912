/*
 * ts_http.h - HTTP GET (and a JSON POST) through libcurl, for catalog clients.
 *
 * Owns: one keep-alive connection cache per process (a reused curl easy
 * handle), bounded response bodies, retries of the answers a client
 * retries (429, 500, 502, 503, 504, connection failures) with backoff, and
 * cancellation that never unwinds through libcurl: a transfer asks
 * ts_interrupt_pending() and stops; the caller then reports
 * TS_ERR_CANCELED.  A bearer token goes in a header and never into an
 * error message.  Only http and https, no redirects (they would carry the
 * token elsewhere), certificates always verified (a CA file may be named).
 */
#ifndef TS_HTTP_H
#define TS_HTTP_H

#include "base/ts_base.h"

typedef struct ts_http_request
{
	const char *url;
	const char *bearer;			/* NULL: no Authorization header */
	const char *ca_file;		/* NULL: the system's CAs */
	const char *what;			/* for messages: "GET /v1/config" (no host, no secret) */
	long		timeout_ms;		/* whole transfer; 0: 60 s */
	int			retries;		/* extra attempts for retryable answers; -1: 3 */
	size_t		max_body;		/* largest answer kept, in bytes; 0: TS_HTTP_MAX_BODY - 1 */
	const char *cap_name;		/* for the message past max_body: "catalog answers" if NULL */
	const char *post_json;		/* non-NULL: POST this body (application/json) */
} ts_http_request;

typedef struct ts_http_response
{
	long		status;
	char	   *body;			/* ts_malloc'd, NUL-terminated */
	size_t		len;
} ts_http_response;

/*
 * Largest body read (with its terminating NUL) when the request sets no
 * max_body: catalog answers are small JSON.  A Content-Length past the cap
 * is refused before a byte is kept, an endless body as soon as it passes
 * it (TS_ERR_LIMIT); nothing past the cap is ever buffered.
 */
#define TS_HTTP_MAX_BODY (((size_t) 16 << 20) + 1)

/*
 * GET req->url (POST req->post_json when set).  True when an HTTP answer arrived (any status: the caller
 * decides what 404 means); false on a transport failure after the retries,
 * a body too large, or a cancel (TS_ERR_CANCELED).
 */
bool		ts_http_get(const ts_http_request *req, ts_http_response *resp, ts_err *err);
void		ts_http_response_free(ts_http_response *resp);

/*
 * The transfer plumbing the object-store client (s3.c) shares:
 * libcurl loaded and curl_global_init called once per process (curl_dl.c:
 * false with err set, naming the library, when it cannot be loaded; the
 * caller uses ts_curl_fn only after this succeeded); the HTTP statuses and libcurl codes
 * (a CURLcode as int) worth another attempt; a sleep of ms in 50 ms slices
 * that gives up (false) as soon as an interrupt is pending.
 */
bool		ts_curl_global_init(ts_err *err);

/*
 * The options every transfer of ours sets on a libcurl easy handle (a
 * CURL *): url, http(s) only, no redirects, no signals, a 10 s connect
 * timeout, timeout_ms for the whole transfer (0: 60 s), a stalled
 * connection (under 1 byte/s for 15 s) dropped, peer and host verified
 * (ca_file, NULL: the system's CAs), TCP keepalive.  The caller sets its
 * body and header callbacks and its method.
 */
void		ts_curl_set_transfer(void *easy, const char *url, long timeout_ms, const char *ca_file);
/* Would s put a control character (CR, LF, NUL, ...) on the wire?  NULL: no. */
bool		ts_has_control_char(const char *s);
bool		ts_http_retryable_status(long status);
bool		ts_http_retryable_curl_code(int code);
bool		ts_http_pause_ms(long ms);

/* Percent-encode one path segment or query value (RFC 3986 unreserved kept). */
char	   *ts_url_encode(const char *s);

#endif							/* TS_HTTP_H */
