/*
 * azure_internal.h - what azure_http.c shares with azure.c (not for other files).
 *
 * Owns nothing: declares one Blob service request with its body sink and
 * answer, the transfer that sends it (signed, retried, capped, canceled:
 * azure_http.c) and the error of an answer that is not 2xx, so that
 * azure.c holds only the requests a file system makes.
 */
#ifndef TS_AZURE_INTERNAL_H
#define TS_AZURE_INTERNAL_H

#include "base/ts_azure.h"

typedef enum az_kind
{
	AZ_HEAD,
	AZ_RANGE,
	AZ_WHOLE,
	AZ_LIST,
	AZ_PUT,
	AZ_DELETE
} az_kind;

/* One request, its body sink and its answer. */
typedef struct az_request
{
	az_kind		kind;
	const char *uri;			/* for messages */
	const ts_azure_uri *u;
	const char *query;			/* encoded "comp=list&...", or NULL */
	/* AZ_RANGE: into buf */
	void	   *buf;
	size_t		len;
	int64_t		offset;
	/* AZ_WHOLE, AZ_LIST: the cap (with the NUL) and what it is for */
	size_t		max_body;
	const char *cap_kind;
	/* AZ_PUT (Put Blob; with a query, Put Block or Put Block List) */
	const void *data;
	size_t		data_len;
	const char *md5;			/* base64 */
	bool		if_absent;		/* If-None-Match: * */
	bool		block;			/* a block or a block list: no x-ms-blob-type */
	/* answer */
	long		status;
	int64_t		content_length;
	int64_t		range_start;	/* of a 206's Content-Range (-1: none) */
	int64_t		range_total;	/* its blob size (-1: none) */
	uint8_t    *body;
	size_t		body_cap;
	size_t		got;
	int64_t		pos;			/* AZ_RANGE: where the next body byte is in the blob */
	bool		pos_set;
	bool		overflow;
	bool		nomem;
	char		code[64];		/* x-ms-error-code */
	char		content_md5[64];
	char		errbody[4096];
	size_t		errlen;
} az_request;

/* Is status 2xx? */
bool		azure_is_2xx(long status);

/*
 * Send r (r->uri, r->u and what its kind needs set), retrying what a client
 * retries.  True when an answer arrived that is not retried (r->status says
 * which; r->body holds a whole or listing body); false on a cancel, a local
 * failure, a body past its cap, or retries exhausted (err names r->uri).
 * landed (may be NULL): an earlier attempt may have been carried out.
 */
bool		azure_send(const ts_azure_config *cfg, az_request *r, bool *landed, ts_err *err);

/* A non-2xx answer as an error naming the URI, status and error code, never a secret; false. */
bool		azure_answer_error(const ts_azure_config *cfg, const az_request *r, ts_err *err);

#endif							/* TS_AZURE_INTERNAL_H */
