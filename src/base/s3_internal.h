/*
 * s3_internal.h - what s3.c shares with s3_batch.c, s3_sink.c and s3_config.c
 * (not for other files).
 *
 * Owns nothing: declares the pieces of one object store request that s3.c
 * implements once and both the one-at-a-time path (s3.c) and the
 * concurrent one (s3_batch.c) run: the body sink, the request and its
 * answer, setting up a curl easy handle for one attempt (URL, range,
 * SigV4 signing, timeouts, certificate checks) and scrubbing it after,
 * judging an attempt's outcome (done / retry / fail, with the same
 * messages), the backoff between attempts, and checking a ranged or whole
 * answer.  The multi handle (and so the kept-alive connections) is the
 * process's one.
 */
#ifndef TS_S3_INTERNAL_H
#define TS_S3_INTERNAL_H

#include "base/ts_curl.h"
#include "base/ts_s3.h"

/* Where an answer's body goes. */
typedef struct s3_sink
{
	long		status;			/* known once the first body byte arrives */
	CURL	   *handle;
	/* 2xx bodies: into a fixed buffer (range) or a growing one */
	uint8_t    *fixed;
	size_t		fixed_len;
	int64_t		fixed_offset;	/* where fixed starts in the object */
	int64_t		range_start;	/* of a 206's Content-Range (-1: none) */
	int64_t		range_end;		/* its last byte (-1: none) */
	int64_t		range_total;	/* its object size, also of a 416 (-1: none) */
	bool		pos_set;
	int64_t		pos;			/* position in the object of the next body byte */
	uint8_t    *grow;
	size_t		grow_cap;
	size_t		max_body;
	int64_t		size_hint;		/* a whole body's expected size (> 0), else 0 */
	size_t		got;
	bool		overflow;
	bool		nomem;
	bool		incomplete;		/* a 2xx answer short of (or off) what was asked (s3_judge) */
	/* where a growing body is allocated (ts_alloc_switch; NULL, as reset: the current place) */
	void	   *owner;
	char		etag[128];		/* the answer's ETag header */
	/* other answers: the first bytes of the error body */
	char		errbody[8192];
	size_t		errlen;
} s3_sink;

typedef enum s3_req_kind
{
	REQ_HEAD,
	REQ_RANGE,
	REQ_WHOLE,
	REQ_LIST,
	REQ_PUT,					/* writes (s3_write.c): body sent from r->send */
	REQ_POST,
	REQ_DELETE
} s3_req_kind;

typedef struct s3_request
{
	s3_req_kind kind;
	const char *uri;			/* for messages: the object or listing */
	const char *url;
	int64_t		offset;			/* REQ_RANGE */
	size_t		len;
	void	   *buf;
	size_t		max_body;		/* REQ_WHOLE, REQ_LIST: the cap (ts_s3_whole_cap) */
	const char *cap_kind;		/* for the message past it: what the cap is for */
	int64_t		expect_size;	/* REQ_WHOLE: the object's size when known (> 0), else 0 */
	/* answer */
	long		status;
	int64_t		content_length;
	int64_t		total;			/* REQ_WHOLE: the object size of its Content-Range (-1: none) */
	uint8_t    *body;			/* REQ_WHOLE, REQ_LIST: ts_malloc'd */
	size_t		body_len;
	char	   *error_code;		/* of a non-2xx answer */
	const ts_s3_config *cfg;	/* the settings it is sent with (never NULL once sent) */
	/* writes: the body sent, the query after the object's URL, headers */
	const void *send;
	size_t		send_len;
	const char *query;			/* "uploads=", "partNumber=1&uploadId=..." (SigV4 order) */
	bool		if_none_match;	/* "If-None-Match: *" */
	char		etag[128];		/* the answer's ETag, quotes kept */
} s3_request;

/* What one attempt holds between its setup and its end (headers carry the token). */
typedef struct s3_attempt
{
	struct curl_slist *headers;
	char	   *token_header;
} s3_attempt;

typedef enum s3_outcome
{
	S3_DONE,					/* an answer not retried: r->status, r->body set */
	S3_RETRY,					/* transient: try again after a wait */
	S3_FAIL						/* err set */
} s3_outcome;

/* curl's body and header callbacks of a request whose sink is arg (s3_sink.c). */
size_t		s3_sink_on_body(char *ptr, size_t size, size_t nmemb, void *arg);
size_t		s3_sink_on_header(char *buf, size_t size, size_t nitems, void *arg);

/* One more request sent (ts_s3_request_count; s3_config.c). */
void		s3_count_request(void);

/* The process's multi handle (its connection cache), created on first use. */
bool		s3_multi_handle(CURLM **m, ts_err *err);

/* Set r's cap for a whole GET of r->uri (expect_size known or 0). */
void		s3_set_whole_cap(s3_request *r);

/*
 * Set up easy handle h (reset by the caller) for one attempt of r into s;
 * counts the request.  False (err set) when out of memory, or when a
 * setting would put a control character on the wire (ts_s3_check_config).
 */
bool		s3_attempt_begin(CURL *h, s3_request *r, const ts_s3_config *cfg, s3_sink *s,
							 s3_attempt *a, ts_err *err);

/*
 * After the transfer: status, Content-Length, Retry-After; the secret and
 * token are scrubbed from the handle and the headers freed.
 */
void		s3_attempt_end(CURL *h, s3_request *r, s3_sink *s, s3_attempt *a, long *retry_after_s);

/*
 * Judge attempt number i (of at most 'attempts') that ended with rc into
 * s: S3_DONE moves the body into r; S3_RETRY and S3_FAIL free it.  A 2xx
 * answer that is not complete (s3_answer_complete) is transient.  S3_FAIL
 * sets err naming r->uri (out of memory, too long an answer, a
 * non-transient transport failure, or retries exhausted).
 */
/*
 * Does a 2xx answer carry all that was asked?  A range: its len bytes (a
 * 206 placed by its Content-Range, or the range's bytes of a 200), unless
 * the Content-Range's size says the range runs past the object's end.  A
 * whole object: a 206 from byte 0 to the end of the size its Content-Range
 * gives, and expect_size bytes when that is known.  Otherwise s3_judge
 * retries it as it does a connection reset.
 */
bool		s3_answer_complete(const s3_request *r, const s3_sink *s);

s3_outcome	s3_judge(s3_request *r, s3_sink *s, CURLcode rc, int i, int attempts, ts_err *err);

/*
 * The wait before the next attempt: exponential backoff with full jitter
 * (*backoff doubles, bounded), at least what Retry-After asks.
 */
long		s3_retry_wait(long *backoff, long retry_after_s);

/* The attempts and total retry wait of a request under cfg. */
int			s3_max_attempts(const ts_s3_config *cfg);
/* One more round trip (ts_s3_round_trip_count): a request alone, or a batch. */
void		s3_count_round_trip(void);
long		s3_retry_budget(const ts_s3_config *cfg);

/* "HEAD", "GET", "LIST" */
const char *s3_method_name(s3_req_kind k);

/* The URL of object uri under cfg (ts_malloc'd; NULL + err). */
char	   *s3_object_url_of(const ts_s3_config *cfg, const char *uri, ts_err *err);

/*
 * The result of a ranged GET (r done): an answer that is not 2xx, or a
 * length other than r->len, is an error.  Frees r's error code.
 */
bool		s3_range_result(s3_request *r, int64_t object_size, ts_err *err);

/*
 * The result of a whole GET (r done; sent as "Range: bytes=0-"): the body
 * (NUL-terminated, owned by the caller) when 200 with the announced length
 * or 206 (s3_judge saw it whole), empty for a 416 of an empty object; an
 * error otherwise (404 = TS_ERR_NOT_FOUND).  Frees r's error code and, on error, its body.
 */
bool		s3_whole_result(s3_request *r, uint8_t **data, size_t *len, ts_err *err);

/*
 * Send r to the object r->uri names (with r->query), retrying what a
 * client retries: true when an answer arrived that is not retried
 * (r->status says which).  s3_answer_error: a non-2xx answer as an error
 * naming the object, status and S3 code; s3_request_done frees the code.
 */
bool		s3_send_object(s3_request *r, ts_err *err);
bool		s3_answer_error(const s3_request *r, ts_err *err);
void		s3_request_done(s3_request *r);

/*
 * A transfer of handle h ended with rc: hand it to the batch that owns h
 * (s3_batch.c).  False when no batch does.  A loop that reads the multi
 * handle's messages passes on those that are not its own.
 */
bool		s3_batch_route(CURL *h, CURLcode rc);

#endif							/* TS_S3_INTERNAL_H */
