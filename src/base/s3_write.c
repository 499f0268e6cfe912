/*
 * s3_write.c - the write requests of the object store client (ts_s3.h).
 *
 * Owns: PUT of a whole object (plain, or conditional on its absence with
 * "If-None-Match: *", 412 = TS_ERR_EXISTS), DELETE, and multipart uploads
 * (POST ?uploads, PUT ?partNumber&uploadId, POST ?uploadId with the list
 * of parts, DELETE ?uploadId).  Each is one request of s3.c (signed,
 * retried, cancelable; a retry sends the same bytes); errors name the
 * object, the status and the S3 code, never a secret.
 */
#include <stdio.h>
#include <string.h>

#include "base/s3_internal.h"

/* The most of an answer to a write kept (an upload id, a completion's result). */
#define WRITE_ANSWER_MAX ((size_t) 64 << 10)

static bool
append_str(ts_buf *b, const char *s, ts_err *err)
{
	return ts_buf_append(b, s, strlen(s), err);
}

static void
init_request(s3_request *r, s3_req_kind kind, const ts_s3_config *cfg, const char *uri)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->uri = uri;
	r->cfg = cfg;
	r->max_body = WRITE_ANSWER_MAX + 1;
	r->cap_kind = "an answer to a write";
}

/* Send r; true for a 2xx answer, else err (404 on DELETE is fine when missing_ok). */
static bool
send_write(s3_request *r, bool missing_ok, ts_err *err)
{
	bool		ok;

	if (!s3_send_object(r, err))
		return false;
	if ((r->status >= 200 && r->status < 300) || (missing_ok && r->status == 404))
		ok = true;
	else
		ok = s3_answer_error(r, err);
	s3_request_done(r);
	return ok;
}

bool
ts_s3_put(const ts_s3_config *cfg, const char *uri, const void *data, size_t len,
		  bool if_none_match, ts_err *err)
{
	s3_request	r;
	bool		ok;

	init_request(&r, REQ_PUT, cfg, uri);
	r.send = data;
	r.send_len = len;
	r.if_none_match = if_none_match;
	if (!s3_send_object(&r, err))
		return false;
	if (if_none_match && (r.status == 412 || r.status == 409))
	{
		/* 409: a conditional write of the same key was in progress, and won */
		ok = ts_error(err, TS_ERR_EXISTS, "PUT \"%s\": the object exists (HTTP %ld)", uri, r.status);
		s3_request_done(&r);
	}
	else if (r.status >= 200 && r.status < 300)
	{
		ok = true;
		s3_request_done(&r);
	}
	else
	{
		ok = s3_answer_error(&r, err);
		s3_request_done(&r);
	}
	ts_free(r.body);
	return ok;
}

bool
ts_s3_delete(const ts_s3_config *cfg, const char *uri, ts_err *err)
{
	s3_request	r;
	bool		ok;

	init_request(&r, REQ_DELETE, cfg, uri);
	ok = send_write(&r, true, err);
	ts_free(r.body);
	return ok;
}

/* The first n-byte needle in hay[0..len), or NULL. */
static const char *
find(const char *hay, size_t len, const char *needle, size_t n)
{
	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return hay + i;
	return NULL;
}

/* The text of <tag>...</tag> in an answer (ts_malloc'd), or NULL. */
static char *
xml_text(const uint8_t *body, size_t len, const char *tag)
{
	char		open[64],
				close[64];
	const char *b = (const char *) body;
	const char *a,
			   *e;

	if (body == NULL)
		return NULL;
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	a = find(b, len, open, strlen(open));
	if (a == NULL)
		return NULL;
	a += strlen(open);
	e = find(a, len - (size_t) (a - b), close, strlen(close));
	if (e == NULL)
		return NULL;
	return ts_strndup(a, (size_t) (e - a));
}

/* Does an upload id or ETag carry only what may go into a query or XML unescaped? */
static bool
plain_token(const char *s)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || *s == '&' || *s == '<' || *s == '>' || *s == '#' ||
			*s == '%' || *s == '+' || *s == '=' || *s == '?')
			return false;
	return true;
}

bool
ts_s3_multipart_start(const ts_s3_config *cfg, const char *uri, char **upload_id, ts_err *err)
{
	s3_request	r;
	bool		ok;

	*upload_id = NULL;
	init_request(&r, REQ_POST, cfg, uri);
	r.query = "uploads=";
	ok = send_write(&r, false, err);
	if (ok)
	{
		*upload_id = xml_text(r.body, r.body_len, "UploadId");
		if (*upload_id == NULL || (*upload_id)[0] == '\0' || !plain_token(*upload_id))
		{
			ts_free(*upload_id);
			*upload_id = NULL;
			ok = ts_error(err, TS_ERR_IO, "POST \"%s\" (start a multipart upload): the answer has no usable UploadId",
						  uri);
		}
	}
	ts_free(r.body);
	return ok;
}

bool
ts_s3_multipart_part(const ts_s3_config *cfg, const char *uri, const char *upload_id, int part,
					 const void *data, size_t len, char **etag, ts_err *err)
{
	s3_request	r;
	char	   *query = ts_psprintf("partNumber=%d&uploadId=%s", part, upload_id);
	bool		ok;

	*etag = NULL;
	if (query == NULL)
		return ts_error_nomem(err, NULL);
	init_request(&r, REQ_PUT, cfg, uri);
	r.query = query;
	r.send = data;
	r.send_len = len;
	ok = send_write(&r, false, err);
	if (ok && (r.etag[0] == '\0' || !plain_token(r.etag)))
		ok = ts_error(err, TS_ERR_IO, "PUT \"%s\" (part %d of a multipart upload): the answer has no usable ETag",
					  uri, part);
	if (ok && (*etag = ts_strdup(r.etag)) == NULL)
		ok = ts_error_nomem(err, NULL);
	ts_free(r.body);
	ts_free(query);
	return ok;
}

bool
ts_s3_multipart_complete(const ts_s3_config *cfg, const char *uri, const char *upload_id,
						 char *const *etags, int nparts, ts_err *err)
{
	s3_request	r;
	ts_buf		xml;
	char	   *query = ts_psprintf("uploadId=%s", upload_id);
	bool		ok = query != NULL;

	ts_buf_init(&xml);
	ok = ok && append_str(&xml, "<CompleteMultipartUpload>", err);
	for (int i = 0; ok && i < nparts; i++)
	{
		char		part[64];

		snprintf(part, sizeof(part), "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
		ok = append_str(&xml, part, err) && append_str(&xml, etags[i], err) &&
			append_str(&xml, "</ETag></Part>", err);
	}
	ok = ok && append_str(&xml, "</CompleteMultipartUpload>", err);
	if (!ok)
	{
		ts_buf_free(&xml);
		ts_free(query);
		return err->code != TS_OK ? false : ts_error_nomem(err, NULL);
	}
	init_request(&r, REQ_POST, cfg, uri);
	r.query = query;
	r.send = xml.data;
	r.send_len = xml.len;
	ok = send_write(&r, false, err);
	/* a 200 may still carry an error (S3 reports a failed assembly in the body) */
	if (ok && r.body != NULL && find((const char *) r.body, r.body_len, "<Error>", 7) != NULL)
	{
		char	   *code = xml_text(r.body, r.body_len, "Code");

		ok = ts_error(err, TS_ERR_IO, "POST \"%s\" (complete a multipart upload): HTTP 200 with error %s",
					  uri, code ? code : "(no code)");
		ts_free(code);
	}
	ts_free(r.body);
	ts_buf_free(&xml);
	ts_free(query);
	return ok;
}

void
ts_s3_multipart_abort(const ts_s3_config *cfg, const char *uri, const char *upload_id)
{
	s3_request	r;
	char	   *query = ts_psprintf("uploadId=%s", upload_id);
	ts_err		ignore = {0};

	if (query == NULL)
		return;
	init_request(&r, REQ_DELETE, cfg, uri);
	r.query = query;
	(void) send_write(&r, true, &ignore);
	ts_free(r.body);
	ts_free(query);
}
