/*
 * ts_azure.h - blobs of Azure Blob Storage and ADLS Gen2 (its Blob API).
 *
 * Owns: the URIs Paimon's Hadoop file systems name Azure locations with
 * (abfs[s]://container@account.dfs.<suffix>/path,
 * wasb[s]://container@account.blob.<suffix>/path), the settings a store is
 * reached with (account key or SAS token, an endpoint override for an
 * emulator, timeouts), SharedKey signing (azure_auth.c), and the requests
 * a file system needs: HEAD for a size, ranged GET into a caller's buffer,
 * whole GET under a byte cap, List Blobs with pagination, conditional
 * create (Put Blob with If-None-Match: *), Put Blob, Put Block and Put
 * Block List, and Delete Blob.  Requests go
 * through libcurl with the object store rules of ts_s3.h: bounded attempts
 * with backoff and Retry-After, a timeout per attempt, a stall limit, the
 * caps of ts_s3_whole_cap and the listing bounds of ts_s3_limits, and a
 * cancel within a poll interval.  No error, and nothing logged, carries
 * the account key or the SAS token.
 */
#ifndef TS_AZURE_H
#define TS_AZURE_H

#include <time.h>

#include "base/ts_base.h"
#include "base/ts_s3.h"

/* The service version requests are sent and signed as. */
#define TS_AZURE_VERSION "2020-10-02"

/* What requests to one account are sent with.  Strings are the caller's. */
typedef struct ts_azure_config
{
	/*
	 * NULL: https://<account>.blob.<suffix of the URI>.  Else the base URL
	 * the container follows, path-style, e.g. azurite's
	 * "http://127.0.0.1:10000/<account>".
	 */
	const char *endpoint;
	const char *account_key;	/* base64; signs requests (SharedKey) */
	const char *sas_token;		/* or this query string ("sv=...&sig=..."), sent as is */
	const char *ca_file;		/* NULL: the system's CAs */
	int			max_attempts;	/* per request, >= 1; 0: 5 */
	long		max_retry_ms;	/* total wait between attempts; 0: 30 s */
	long		timeout_ms;		/* one attempt; 0: 60 s */
	int			list_page_size; /* maxresults of a listing page; 0: 5000 */
} ts_azure_config;

/* ---- URIs (pure: azure_uri.c) ------------------------------------------ */

typedef struct ts_azure_uri
{
	char	   *account;
	char	   *container;
	char	   *blob;			/* "" for the container itself; no leading '/' */
	char	   *suffix;			/* the host after "<account>.dfs." / ".blob.": "core.windows.net" */
} ts_azure_uri;

/* Does path start with abfs://, abfss://, wasb:// or wasbs:// (any case)? */
bool		ts_uri_is_azure(const char *path);

/*
 * Split an Azure URI.  Refuses, naming the part: another scheme, no
 * container or account, a host other than <account>.dfs.<suffix> or
 * <account>.blob.<suffix>, an invalid account or container name, an empty,
 * "." or ".." segment of the blob name, a control character
 * (TS_ERR_INVALID).
 */
bool		ts_azure_parse_uri(const char *uri, ts_azure_uri *out, ts_err *err);
void		ts_azure_uri_free(ts_azure_uri *u);

/*
 * The request URL of blob (NULL: of the container) of u under cfg, its
 * name percent-encoded by segment ('/' kept); ts_malloc'd, NULL when out
 * of memory.  The query is not added.
 */
char	   *ts_azure_url(const ts_azure_config *cfg, const ts_azure_uri *u, const char *blob);

/*
 * Refuse settings that would put a control character on the wire or do
 * not make a request: an endpoint that is not http(s)://, an empty key or
 * token, both a key and a token.  err names the setting, never its value.
 */
bool		ts_azure_check_config(const ts_azure_config *cfg, ts_err *err);

/*
 * The form URIs are compared in for a file scope: abfs://, lower-case
 * scheme, the dfs host (a wasb:// URI names the same blob), no trailing
 * '/'; ts_malloc'd, NULL when uri is not valid (ts_azure_parse_uri).
 */
char	   *ts_azure_canonical_uri(const char *uri);

/*
 * Is option Hadoop's key of u's account:
 * "fs.azure.account.key.<account>.dfs.<suffix>" or ".blob.<suffix>"?
 */
bool		ts_azure_key_option_matches(const char *option, const ts_azure_uri *u);

/*
 * A ts_malloc'd deep copy of cfg (false: out of memory, *to empty), and
 * freeing one (its secrets zeroed first).
 */
bool		ts_azure_config_copy(ts_azure_config *to, const ts_azure_config *from);
void		ts_azure_config_free_copy(ts_azure_config *c);

/* ---- SharedKey (pure: azure_auth.c) ------------------------------------ */

typedef struct ts_azure_header
{
	const char *name;
	const char *value;
} ts_azure_header;

/* What of one request its signature covers. */
typedef struct ts_azure_sign_input
{
	const char *verb;			/* "GET", "HEAD", "PUT", "DELETE" */
	const char *account;
	const char *url;			/* as sent: scheme://host[:port]/encoded-path[?query] */
	const ts_azure_header *headers; /* every header sent (standard and x-ms-*) */
	int			nheaders;
} ts_azure_sign_input;

/*
 * The Blob service's SharedKey string to sign (ts_malloc'd): the verb, the
 * standard headers (Content-Length "0" as empty), the x-ms-* headers in
 * lower case and sorted, and "/account/path" followed by the query
 * parameters, decoded, lower-cased and sorted.  NULL when out of memory.
 */
char	   *ts_azure_string_to_sign(const ts_azure_sign_input *in);

/*
 * The "Authorization" header value "SharedKey account:signature" of a
 * string to sign (into out, at least TS_AZURE_AUTH_LEN bytes): HMAC-SHA256
 * with the base64-decoded key.  A key that is not base64 is TS_ERR_INVALID
 * naming option "azure.account-key", not its value.
 */
#define TS_AZURE_AUTH_LEN 160
bool		ts_azure_authorization(const char *account, const char *key_b64,
								   const char *string_to_sign, char *out, ts_err *err);

/* t as an HTTP date ("Sun, 06 Dec 2026 20:00:00 GMT") into out[32]. */
void		ts_azure_http_date(time_t t, char *out);

/* ---- List Blobs answers (pure: azure_list.c) --------------------------- */

/*
 * Add the entries of one List Blobs page (EnumerationResults) to *out:
 * each Blob/Name and BlobPrefix/Name with prefix removed (and a trailing
 * '/'), sets truncated and next_token (NextMarker).  A name not under
 * prefix, or not directly below it, is TS_ERR_CORRUPT; so is a page that
 * is not XML.
 */
bool		ts_azure_parse_list_page(const char *xml, size_t len, const char *prefix,
									 ts_s3_listing *out, ts_err *err);

/* ---- requests (azure.c) ------------------------------------------------ */

/*
 * HEAD: the size.  A missing blob (404): *exists false, no error; with
 * exists NULL, TS_ERR_NOT_FOUND naming the URI.
 */
bool		ts_azure_head(const ts_azure_config *cfg, const char *uri, bool *exists,
						  int64_t *size, ts_err *err);

/*
 * GET bytes [offset, offset+len) into buf.  object_size (or -1): the size
 * the blob was opened with, checked against the answer's Content-Range.
 * A short or wrong answer is retried, then an error; never data.
 */
bool		ts_azure_read_range(const ts_azure_config *cfg, const char *uri, void *buf,
								size_t len, int64_t offset, int64_t object_size, ts_err *err);

/*
 * GET a whole blob into a ts_malloc'd NUL-terminated buffer, at most the
 * cap ts_s3_whole_cap gives its name (TS_ERR_LIMIT past it); 404 =
 * TS_ERR_NOT_FOUND.
 */
bool		ts_azure_read_object(const ts_azure_config *cfg, const char *uri, uint8_t **data,
								 size_t *len, ts_err *err);

/*
 * The entries directly below the "directory" uri (delimiter '/'), sorted;
 * none = TS_ERR_NOT_FOUND.  With max_one, one page of at most one entry.
 * Bounded by ts_s3_get_limits() (keys, pages, a repeated marker).
 */
bool		ts_azure_list(const ts_azure_config *cfg, const char *uri, bool max_one,
						  char ***names, int *count, ts_err *err);

/*
 * Create blob uri with data unless it exists (If-None-Match: *): *created
 * true when this call wrote it, false when a blob was there already (HTTP
 * 409 or 412).  When an attempt that may have landed is retried and the
 * retry finds the blob, its Content-MD5 and length decide whether it is
 * ours.
 */
bool		ts_azure_put_if_absent(const ts_azure_config *cfg, const char *uri,
								   const void *data, size_t len, bool *created, ts_err *err);

/* Put Blob replacing whatever is at uri (at most 256 MB). */
bool		ts_azure_put(const ts_azure_config *cfg, const char *uri, const void *data,
						 size_t len, ts_err *err);

/*
 * A blob sent in blocks (memory: one block at a time): Put Block of block
 * number (1, 2, ...; at most 256 MB each), then Put Block List of blocks
 * 1..nblocks, which makes them the blob (replacing one there).  The block
 * ids are derived from the numbers (ts_azure_block_id: all of one length,
 * as the service asks).  A block list of none commits an empty blob and
 * drops the blocks not committed (the abort of an upload, before a
 * delete).
 */
#define TS_AZURE_BLOCK_ID_LEN 17
void		ts_azure_block_id(int number, char id[TS_AZURE_BLOCK_ID_LEN]);
bool		ts_azure_put_block(const ts_azure_config *cfg, const char *uri, int number,
							   const void *data, size_t len, ts_err *err);
bool		ts_azure_put_block_list(const ts_azure_config *cfg, const char *uri, int nblocks,
									ts_err *err);

/* Delete blob uri; *existed false (no error) when it was not there. */
bool		ts_azure_delete(const ts_azure_config *cfg, const char *uri, bool *existed,
							ts_err *err);

/* Requests sent by this process (for tests). */
int64_t		ts_azure_request_count(void);

#endif							/* TS_AZURE_H */
