/*
 * ts_s3.h - objects of S3-compatible stores (AWS S3, MinIO, Ceph, OSS, R2).
 *
 * Owns: object URIs (s3://, s3a://, oss://), the storage settings a scan
 * reads with (endpoint, region, addressing, CA file, credentials), and the
 * requests the file system layer needs: HEAD for a size, ranged GET into a
 * caller's buffer (a short body is retried, then an error, never data),
 * whole GET of a small object (sent as "bytes=0-": a short one is seen by
 * the size in the 206's Content-Range), ListObjectsV2 with pagination, existence checks.  Requests
 * are signed by libcurl (AWS SigV4), go over one kept-alive connection
 * cache per process, are retried with backoff and jitter, and stop within a
 * poll interval when an interrupt is pending.  Secrets never appear in an
 * error message.
 */
#ifndef TS_S3_H
#define TS_S3_H

#include "base/ts_base.h"

/* What a scan reads objects with.  Strings are owned by the caller. */
typedef struct ts_s3_config
{
	const char *endpoint;		/* "http(s)://host[:port]"; NULL: AWS for region */
	const char *region;			/* NULL: us-east-1 */
	bool		path_style;		/* http://host/bucket/key (else bucket.host) */
	bool		path_style_set;	/* the user chose the addressing (else an IP or localhost endpoint is path-style) */
	const char *ca_file;		/* NULL: the system's CAs */
	const char *access_key;		/* NULL: anonymous requests */
	const char *secret_key;
	const char *session_token;	/* NULL: none */
	int			max_attempts;	/* per request, >= 1; 0: 5 */
	long		max_retry_ms;	/* total time spent waiting between attempts; 0: 30 s */
	long		timeout_ms;		/* one attempt; 0: 60 s */
	int			max_in_flight;	/* concurrent requests of one batch; 0: TS_S3_IN_FLIGHT */
	/*
	 * Where the keys came from, as the end of an "access denied" (HTTP 403)
	 * error: "check the credentials of the user mapping" (also when NULL),
	 * or the environment, a REST catalog's data token, anonymous requests.
	 */
	const char *credentials_source;
	/*
	 * When the keys stop being valid (epoch milliseconds; 0: never): a
	 * catalog's data token.  No request is signed at or past it: it fails
	 * (TS_ERR_DENIED, naming the object) before anything is sent.  Renewing
	 * ahead of it is the caller's (src/fdw/rest.c).
	 */
	int64_t		expires_at_ms;
} ts_s3_config;

/*
 * Requests a batch (ts_s3_fetch_all) has in flight at most, by default / at
 * all: a window of small data files (TS_PREFETCH_WINDOW_FILES, with their
 * side files) is one round trip, and the manifests of a cold plan (a
 * window of up to TS_MANIFEST_WINDOW_FILES, scan/live_files.c) come in a
 * few: 1,000 manifests in two.  Each request in flight is a connection of
 * its own (a file descriptor, a TLS handshake): 1,024 at once took the
 * 1,000-manifest plan to one wave through the test proxy, but cost ~40%
 * more CPU than 512 (bench/RESULTS.md); tablescan.s3_max_in_flight goes
 * up to the maximum.
 */
#define TS_S3_IN_FLIGHT 512
#define TS_S3_IN_FLIGHT_MAX 1024

/*
 * A new generation number for settings a ts_fs owns (ts_fs_generation):
 * what was fetched under one (one role's credentials) is not served under
 * another (prefetch.c).
 */
uint64_t	ts_s3_generation_next(void);

/*
 * A deep copy of settings (strings ts_malloc'd), and freeing one (the
 * secrets zeroed first).  False: out of memory, nothing left allocated.
 */
bool		ts_s3_config_copy(ts_s3_config *to, const ts_s3_config *from);
void		ts_s3_config_free_copy(ts_s3_config *c);

/* ---- bounds on what a store may send ---------------------------------- */

/*
 * Whole objects are read into memory only up to a cap fit for their kind,
 * checked against the answer's Content-Length before a byte is kept and
 * again while the body arrives (an endless chunked body): hints
 * (LATEST, EARLIEST), snapshots, schemas, tags and other JSON files at
 * most TS_S3_SMALL_OBJECT_MAX; manifests, manifest lists, index and
 * deletion-vector files at most max_metadata_object (a GUC); any other
 * object read whole (a small data file) at most the size the metadata
 * gives it, else max_metadata_object.  A listing stops with TS_ERR_LIMIT
 * past max_list_keys keys or max_list_pages pages, and at once when a
 * truncated page repeats a continuation token or gives none.
 */
#define TS_S3_SMALL_OBJECT_MAX ((size_t) 8 << 20)
#define TS_S3_LIST_PAGE_MAX ((size_t) 16 << 20)

typedef struct ts_s3_limits
{
	int64_t		max_metadata_object;	/* bytes; default 256 MB */
	int64_t		max_list_keys;	/* default 10 million */
	int64_t		max_list_pages; /* default 100000 */
} ts_s3_limits;

void		ts_s3_set_limits(const ts_s3_limits *limits);
const ts_s3_limits *ts_s3_get_limits(void);

/*
 * The most bytes a whole GET of uri may bring (expect_size: its size from
 * the metadata, or <= 0), and (*kind) what the cap is, for messages.
 * Pure.
 */
size_t		ts_s3_whole_cap(const char *uri, int64_t expect_size, const char **kind);

/*
 * Pagination of one listing: pages and keys counted against the limits,
 * every continuation token remembered (a hash each) so that a store that
 * hands one out twice, or none on a truncated page, stops the listing at
 * once.  Pure: unit tested on tokens.
 */
struct ts_s3_listing;
typedef struct ts_s3_pager
{
	int64_t		pages;
	uint64_t   *seen;			/* open addressing, 0 = empty slot */
	size_t		seen_cap;
	size_t		seen_count;
} ts_s3_pager;

/* After page number pager->pages + 1 of uri arrived (l holds every key so far): go on? */
bool		ts_s3_pager_next(ts_s3_pager *pager, const struct ts_s3_listing *l, const char *uri,
							 ts_err *err);
void		ts_s3_pager_free(ts_s3_pager *pager);

/*
 * Refuse settings that would put a control character (CR, LF, NUL, ...)
 * into a request line or header: the endpoint, region, keys and session
 * token (which may come from a catalog's data token).  err names the
 * setting, never its value.  Pure.
 */
bool		ts_s3_check_config(const ts_s3_config *cfg, ts_err *err);

/*
 * Is the endpoint's host an IPv4 or IPv6 literal or localhost?  Such an
 * endpoint is addressed path-style unless the user chose otherwise.  Pure.
 */
bool		ts_s3_endpoint_is_ip_or_localhost(const char *endpoint);

/* ---- URIs (pure) ------------------------------------------------------ */

/* Does path name an object (s3://, s3a://, oss://, any case)? */
bool		ts_uri_is_object(const char *path);

/*
 * Is path a URI with a scheme this extension does not read (hdfs://,
 * gs://, ...)?  Then err names the scheme.  Plain paths, file:, object
 * URIs and Azure's (abfs[s]://, wasb[s]://: ts_azure.h) are fine.
 */
bool		ts_uri_check_scheme(const char *path, ts_err *err);

/*
 * Split an object URI into bucket and key (ts_malloc'd; key may be "",
 * without a leading '/').  Refuses an empty bucket, "." / ".." segments
 * and control characters (TS_ERR_INVALID).
 */
bool		ts_s3_parse_uri(const char *uri, char **bucket, char **key, ts_err *err);

/*
 * The canonical form used to compare URIs for the file scope: scheme
 * lower-cased with s3a -> s3, no trailing '/'; NULL when the URI is not
 * valid (ts_s3_parse_uri).
 */
char	   *ts_s3_canonical_uri(const char *uri);

/* The request URL of an object or of the bucket (key NULL), ts_malloc'd. */
char	   *ts_s3_object_url(const ts_s3_config *cfg, const char *bucket, const char *key);

/* ---- ListObjectsV2 answers (pure) -------------------------------------- */

typedef struct ts_s3_listing
{
	char	  **names;			/* entries below the prefix, without it */
	int			count;
	int			cap;
	bool		truncated;
	char	   *next_token;		/* NextContinuationToken when truncated */
} ts_s3_listing;

/*
 * Add the entries of one ListObjectsV2 page to *out: each Contents/Key and
 * CommonPrefixes/Prefix with prefix removed (and a trailing '/' of a common
 * prefix); keys not under prefix are TS_ERR_CORRUPT.  Sets truncated and
 * next_token (replacing the previous page's).
 */
bool		ts_s3_parse_list_page(const char *xml, size_t len, const char *prefix,
								  ts_s3_listing *out, ts_err *err);
void		ts_s3_listing_free(ts_s3_listing *l);

/* The <Code> of an S3 error body (ts_malloc'd), or NULL. */
char	   *ts_s3_error_code(const char *xml, size_t len);

/*
 * Does an answer to "GET bytes offset..offset+len-1" carry exactly those
 * bytes?  got is what arrived of the range: the body of a 206, or the
 * bytes of the range in the whole object a 200 carries (a store may ignore
 * a range).  got != len or another status: false + TS_ERR_IO/TS_ERR_CORRUPT
 * naming uri (and, for a 416, object_size, the size it was opened with;
 * < 0: unknown).
 */
bool		ts_s3_check_range_answer(const char *uri, long status, size_t got, size_t len,
									 int64_t offset, int64_t object_size, ts_err *err);

/* ---- requests ---------------------------------------------------------- */

/*
 * Every request is sent with the settings cfg given (NULL: it fails,
 * naming the object).  File access goes through a ts_fs (ts_fs.h), which
 * owns the settings of its scan.
 */

/* HEAD: *exists false (no error) for 404; the size otherwise. */
bool		ts_s3_head(const ts_s3_config *cfg, const char *uri, bool *exists, int64_t *size, ts_err *err);

/* GET bytes [offset, offset+len) into buf; object_size (or -1) for the check. */
bool		ts_s3_read_range(const ts_s3_config *cfg, const char *uri, void *buf, size_t len,
							 int64_t offset, int64_t object_size, ts_err *err);

/* GET a whole object into a ts_malloc'd NUL-terminated buffer; 404 = TS_ERR_NOT_FOUND. */
bool		ts_s3_read_object(const ts_s3_config *cfg, const char *uri, uint8_t **data, size_t *len,
							  ts_err *err);

/*
 * The entries directly below the "directory" uri (delimiter '/'), sorted;
 * none at all = TS_ERR_NOT_FOUND (an object store has no empty directories).
 * With max_one, stops after the first page of at most one key.
 */
bool		ts_s3_list(const ts_s3_config *cfg, const char *uri, bool max_one, char ***names,
					   int *count, ts_err *err);

/* ---- writes (s3_write.c) ----------------------------------------------- */

/*
 * PUT data as object uri.  if_none_match: only if no object has that key
 * ("If-None-Match: *"): 412 is TS_ERR_EXISTS (also when an earlier
 * attempt of this PUT landed and its answer was lost: the caller tells by
 * the object's content).  A retried PUT sends the same bytes.
 */
bool		ts_s3_put(const ts_s3_config *cfg, const char *uri, const void *data, size_t len,
					  bool if_none_match, ts_err *err);

/* DELETE object uri; a missing one is no error. */
bool		ts_s3_delete(const ts_s3_config *cfg, const char *uri, ts_err *err);

/*
 * A multipart upload of uri: started (its id, ts_malloc'd), parts 1..n
 * sent (each but the last at least 5 MiB on AWS; the ETag of each,
 * ts_malloc'd, is what completing it needs), completed (the object then
 * appears whole) or aborted (the parts are dropped; failures ignored).
 */
bool		ts_s3_multipart_start(const ts_s3_config *cfg, const char *uri, char **upload_id,
								  ts_err *err);
bool		ts_s3_multipart_part(const ts_s3_config *cfg, const char *uri, const char *upload_id,
								 int part, const void *data, size_t len, char **etag, ts_err *err);
bool		ts_s3_multipart_complete(const ts_s3_config *cfg, const char *uri, const char *upload_id,
									 char *const *etags, int nparts, ts_err *err);
void		ts_s3_multipart_abort(const ts_s3_config *cfg, const char *uri, const char *upload_id);

/* ---- concurrent requests (s3_batch.c) ---------------------------------- */

/*
 * One object fetch of a batch: a ranged GET of [offset, offset+len) into
 * buf, or (buf NULL) a GET of the whole object into data.
 */
typedef struct ts_s3_fetch
{
	const char *uri;
	void	   *buf;
	size_t		len;
	int64_t		offset;
	int64_t		object_size;	/* for the ranged answer's check; whole: the size it must have; or -1 */
	/* result */
	uint8_t    *data;			/* whole: ts_malloc'd, NUL-terminated */
	size_t		data_len;
	ts_errcode	code;			/* TS_OK once fetched */
} ts_s3_fetch;

/*
 * Fetch n objects or ranges with at most the configured number of requests
 * in flight on the process's connections (curl multi), each request signed,
 * retried, length-checked and reported exactly as one sent alone (s3.c).
 * Every request that starts is counted.
 *
 * keep_going false: the first failure stops every other transfer and is
 * returned (err names its object); no item then holds data.  keep_going
 * true: a failed item only gets its code (the caller reads it again alone
 * to report why); false is then only a cancel or out of memory.  An
 * interrupt stops all transfers within a poll interval (TS_ERR_CANCELED).
 */
bool		ts_s3_fetch_all(const ts_s3_config *cfg, ts_s3_fetch *items, int n, bool keep_going,
							ts_err *err);

/*
 * The same without waiting: a batch started ahead of the code that needs
 * its bytes (the next files of a scan), its requests sent at once.  The
 * items (and their buffers) must live until the batch is waited for or
 * canceled; what its transfers allocate goes where the caller allocates
 * now (ts_alloc_owner), whoever drives them later.  Counts one round trip
 * when anything is to be fetched.  NULL (err set): no settings, or out of
 * memory.
 */
typedef struct ts_s3_batch ts_s3_batch;
ts_s3_batch *ts_s3_batch_start(const ts_s3_config *cfg, ts_s3_fetch *items, int n,
							   bool keep_going, ts_err *err);

/*
 * Move every started batch on without waiting (curl_multi_perform): start
 * requests and retries that may start, take finished answers.  Cheap when
 * no batch runs; callers call it at batch boundaries.
 */
void		ts_s3_drive(void);

/* Is the batch finished (moving it on first)?  Never waits. */
bool		ts_s3_batch_done(ts_s3_batch *b);

/*
 * Wait until the batch is finished and free it (not its items' data):
 * the result as ts_s3_fetch_all's.  An interrupt stops its transfers
 * (TS_ERR_CANCELED).  A batch whose transfers were abandoned
 * (ts_s3_batch_forget_all) reports its unfinished items as not fetched.
 */
bool		ts_s3_batch_wait(ts_s3_batch *b, ts_err *err);

/*
 * Wait until item i of the batch is finished (the others move on too): its
 * code then says whether it was fetched.  False (err set) when the batch
 * failed (a cancel, out of memory, or an item's failure without
 * keep_going); the batch is still the caller's to wait for or cancel.
 */
bool		ts_s3_batch_wait_item(ts_s3_batch *b, int i, ts_err *err);

/* Stop the batch's transfers and free it and what it fetched (NULL is fine). */
void		ts_s3_batch_cancel(ts_s3_batch *b);

/*
 * After an abort (the batches' memory may be gone): take every transfer
 * out of the multi handle without touching a batch.
 */
void		ts_s3_batch_forget_all(void);

/* Requests sent by this process (for metrics and tests). */
int64_t		ts_s3_request_count(void);

/*
 * Round trips of this process: the times it waited for the store, a
 * request sent alone (each attempt) or a batch of concurrent requests
 * (ts_s3_fetch_all, with its retries) counting one.
 */
int64_t		ts_s3_round_trip_count(void);

#endif							/* TS_S3_H */
