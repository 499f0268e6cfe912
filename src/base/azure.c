/*
 * azure.c - the requests a file system makes of Azure Blob Storage (see ts_azure.h).
 *
 * Owns: HEAD (a size, or a missing blob), ranged GET checked against the
 * size a blob was opened with, whole GET under the cap of its kind, List
 * Blobs page by page under the listing bounds (a page that does not parse
 * asked again), Put Blob if absent (a retry that finds the blob judged by
 * its length and MD5) and Delete Blob.  Each is one or more requests sent
 * by azure_http.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/azure_internal.h"
#include "base/ts_http.h"

/* Parse uri and send request kind to it: false with err set on any failure. */
static bool
send_to(const ts_azure_config *cfg, const char *uri, az_request *r, ts_azure_uri *u,
		bool *landed, ts_err *err)
{
	if (!ts_azure_parse_uri(uri, u, err))
		return false;
	r->uri = uri;
	r->u = u;
	if (azure_send(cfg, r, landed, err))
		return true;
	ts_free(r->body);
	r->body = NULL;
	ts_azure_uri_free(u);
	return false;
}

bool
ts_azure_head(const ts_azure_config *cfg, const char *uri, bool *exists, int64_t *size,
			  ts_err *err)
{
	az_request *r = ts_calloc(1, sizeof(az_request));
	ts_azure_uri u;
	bool		ok;

	if (exists)
		*exists = false;
	*size = -1;
	if (r == NULL)
		return ts_error_nomem(err, NULL);
	r->kind = AZ_HEAD;
	ok = send_to(cfg, uri, r, &u, NULL, err);
	if (ok)
	{
		if (r->status == 200 && r->content_length >= 0)
		{
			if (exists)
				*exists = true;
			*size = r->content_length;
		}
		else if (r->status == 200)
			ok = ts_error(err, TS_ERR_IO, "HEAD \"%s\": the answer has no Content-Length", uri);
		else if (r->status != 404 || exists == NULL)
			ok = azure_answer_error(cfg, r, err);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}

bool
ts_azure_read_range(const ts_azure_config *cfg, const char *uri, void *buf, size_t len,
					int64_t offset, int64_t object_size, ts_err *err)
{
	az_request *r;
	ts_azure_uri u;
	bool		ok;

	if (len == 0)
		return true;
	if ((r = ts_calloc(1, sizeof(az_request))) == NULL)
		return ts_error_nomem(err, NULL);
	r->kind = AZ_RANGE;
	r->buf = buf;
	r->len = len;
	r->offset = offset;
	ok = send_to(cfg, uri, r, &u, NULL, err);
	if (ok)
	{
		if (!azure_is_2xx(r->status))
			ok = azure_answer_error(cfg, r, err);
		else if (r->status == 206 && r->range_total > 0 && object_size > 0 &&
				 r->range_total != object_size)
			ok = ts_error(err, TS_ERR_IO,
						  "blob \"%s\": a ranged read gives its size as %lld bytes, not the %lld it was opened with",
						  uri, (long long) r->range_total, (long long) object_size);
		else if (r->status == 200 && r->content_length >= 0 && object_size > 0 &&
				 r->content_length != object_size)
			ok = ts_error(err, TS_ERR_IO,
						  "blob \"%s\": a ranged read was answered with the whole blob, of %lld bytes, not the %lld it was opened with",
						  uri, (long long) r->content_length, (long long) object_size);
		else
			ok = ts_s3_check_range_answer(uri, r->status, r->got, len, offset, object_size, err);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}

bool
ts_azure_read_object(const ts_azure_config *cfg, const char *uri, uint8_t **data, size_t *len,
					 ts_err *err)
{
	az_request *r;
	ts_azure_uri u;
	bool		ok;

	*data = NULL;
	*len = 0;
	if ((r = ts_calloc(1, sizeof(az_request))) == NULL)
		return ts_error_nomem(err, NULL);
	r->kind = AZ_WHOLE;
	r->max_body = ts_s3_whole_cap(uri, -1, &r->cap_kind) + 1;
	ok = send_to(cfg, uri, r, &u, NULL, err);
	if (ok)
	{
		if (r->status != 200)
			ok = azure_answer_error(cfg, r, err);
		else if (r->content_length >= 0 && (size_t) r->content_length != r->got)
			ok = ts_error(err, TS_ERR_CORRUPT, "blob \"%s\": %zu bytes read of %lld announced",
						  uri, r->got, (long long) r->content_length);
		else if (r->body == NULL && (r->body = ts_calloc(1, 1)) == NULL)
			ok = ts_error_nomem(err, NULL);
		if (ok)
		{
			*data = r->body;
			*len = r->got;
			r->body = NULL;
		}
		ts_free(r->body);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* One page of a listing into out (a page that does not parse is asked again). */
static bool
list_page(const ts_azure_config *cfg, const char *uri, const ts_azure_uri *u, const char *prefix,
		  bool max_one, ts_s3_listing *out, ts_err *err)
{
	char	   *eprefix = ts_url_encode(prefix);
	char	   *emarker = out->next_token ? ts_url_encode(out->next_token) : NULL;
	az_request *r = ts_calloc(1, sizeof(az_request));
	char	   *query = NULL;
	int			attempts = cfg->max_attempts > 0 ? cfg->max_attempts : 5;
	bool		ok = false;

	if (eprefix && r && (emarker || !out->next_token))
		query = ts_psprintf("comp=list&delimiter=%%2F%s%s&maxresults=%d&prefix=%s&restype=container",
							emarker ? "&marker=" : "", emarker ? emarker : "",
							max_one ? 1 : cfg->list_page_size > 0 ? cfg->list_page_size : 5000,
							eprefix);
	if (query == NULL)
		ok = ts_error_nomem(err, NULL);
	for (int i = 1; query && i <= attempts; i++)
	{
		int			before = out->count;

		memset(r, 0, sizeof(*r));
		r->kind = AZ_LIST;
		r->uri = uri;
		r->u = u;
		r->query = query;
		r->max_body = TS_S3_LIST_PAGE_MAX + 1;
		r->cap_kind = "a listing page";
		if (!(ok = azure_send(cfg, r, NULL, err)))
		{
			ts_free(r->body);
			break;
		}
		if (r->status != 200)
			ok = azure_answer_error(cfg, r, err);
		else
			ok = ts_azure_parse_list_page((const char *) r->body, r->got, prefix, out, err);
		ts_free(r->body);
		if (ok || r->status != 200 || err == NULL || err->code != TS_ERR_CORRUPT)
			break;
		/* a 200 page that does not parse (cut short): drop what it added, ask again */
		while (out->count > before)
			ts_free(out->names[--out->count]);
		if (!ts_http_pause_ms(50L * i))
		{
			ok = ts_error(err, TS_ERR_CANCELED, "LIST \"%s\": canceled", uri);
			break;
		}
	}
	ts_free(query);
	ts_free(r);
	ts_free(eprefix);
	ts_free(emarker);
	return ok;
}

bool
ts_azure_list(const ts_azure_config *cfg, const char *uri, bool max_one, char ***names,
			  int *count, ts_err *err)
{
	ts_s3_listing out = {0};
	ts_s3_pager pager = {0};
	ts_azure_uri u;
	char	   *prefix;
	size_t		bl;
	bool		ok = true;

	*names = NULL;
	*count = 0;
	if (!ts_azure_check_config(cfg, err) || !ts_azure_parse_uri(uri, &u, err))
		return false;
	bl = strlen(u.blob);
	while (bl > 0 && u.blob[bl - 1] == '/')
		bl--;
	prefix = bl ? ts_psprintf("%.*s/", (int) bl, u.blob) : ts_strdup("");
	if (prefix == NULL)
		ok = ts_error_nomem(err, NULL);
	do
	{
		ok = ok && list_page(cfg, uri, &u, prefix, max_one, &out, err);
		if (ok && !max_one)
			ok = ts_s3_pager_next(&pager, &out, uri, err);
		if (ok && !max_one && out.truncated && ts_interrupt_pending())
			ok = ts_error(err, TS_ERR_CANCELED, "LIST \"%s\": canceled", uri);
	} while (ok && !max_one && out.truncated);
	if (ok && out.count == 0)
		ok = ts_error(err, TS_ERR_NOT_FOUND, "LIST \"%s\": no blobs below it", uri);
	if (ok)
	{
		qsort(out.names, (size_t) out.count, sizeof(char *), cmp_names);
		*names = out.names;
		*count = out.count;
		out.names = NULL;
		out.count = 0;
	}
	ts_s3_pager_free(&pager);
	ts_s3_listing_free(&out);
	ts_free(prefix);
	ts_azure_uri_free(&u);
	return ok;
}

/* The largest body of one Put Blob or Put Block sent. */
#define AZ_PUT_MAX ((size_t) 256 << 20)

/*
 * A Put request of data to uri (query: a block or a block list, else a
 * whole blob), its Content-MD5 computed into md5; NULL + err when too
 * large or out of memory.
 */
static az_request *
put_request(const char *uri, const char *query, const void *data, size_t len, char md5[32],
			ts_err *err)
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	az_request *r;

	if (len > AZ_PUT_MAX)
	{
		ts_error(err, TS_ERR_LIMIT, "PUT \"%s\": %zu bytes, more than the 256 MB of one request",
				 uri, len);
		return NULL;
	}
	if (!EVP_Digest(data, len, digest, &dlen, EVP_md5(), NULL))
	{
		ts_error(err, TS_ERR_IO, "PUT \"%s\": could not compute its MD5", uri);
		return NULL;
	}
	EVP_EncodeBlock((unsigned char *) md5, digest, (int) dlen);
	if ((r = ts_calloc(1, sizeof(az_request))) == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->kind = AZ_PUT;
	r->query = query;
	r->block = query != NULL;
	r->data = data;
	r->data_len = len;
	r->md5 = md5;
	return r;
}

/* Send a Put and expect 201 Created: false + err naming uri otherwise. */
static bool
put_created(const ts_azure_config *cfg, const char *uri, az_request *r, ts_err *err)
{
	ts_azure_uri u;
	bool		ok;

	ok = send_to(cfg, uri, r, &u, NULL, err);
	if (ok)
	{
		if (r->status != 201)
			ok = azure_answer_error(cfg, r, err);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}

bool
ts_azure_put_if_absent(const ts_azure_config *cfg, const char *uri, const void *data,
					   size_t len, bool *created, ts_err *err)
{
	char		md5[32];
	az_request *r;
	ts_azure_uri u;
	bool		landed = false;
	bool		ok;

	*created = false;
	if ((r = put_request(uri, NULL, data, len, md5, err)) == NULL)
		return false;
	r->if_absent = true;
	ok = send_to(cfg, uri, r, &u, &landed, err);
	if (ok)
	{
		if (r->status == 201)
			*created = true;
		else if (r->status == 409 || r->status == 412)
		{
			/* an earlier attempt may have written it: then it is this content */
			if (landed)
			{
				az_request *h = r;

				memset(h, 0, sizeof(*h));
				h->kind = AZ_HEAD;
				h->uri = uri;
				h->u = &u;
				ok = azure_send(cfg, h, NULL, err);
				*created = ok && h->status == 200 && h->content_length == (int64_t) len &&
					strcmp(h->content_md5, md5) == 0;
			}
		}
		else
			ok = azure_answer_error(cfg, r, err);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}

bool
ts_azure_put(const ts_azure_config *cfg, const char *uri, const void *data, size_t len,
			 ts_err *err)
{
	char		md5[32];
	az_request *r = put_request(uri, NULL, data, len, md5, err);

	return r != NULL && put_created(cfg, uri, r, err);
}

void
ts_azure_block_id(int number, char id[TS_AZURE_BLOCK_ID_LEN])
{
	char		digits[16];

	/* 12 ASCII digits: 16 base64 characters, none of them '+', '/' or '=' */
	snprintf(digits, sizeof(digits), "%012d", number);
	EVP_EncodeBlock((unsigned char *) id, (const unsigned char *) digits, 12);
}

bool
ts_azure_put_block(const ts_azure_config *cfg, const char *uri, int number, const void *data,
				   size_t len, ts_err *err)
{
	char		id[TS_AZURE_BLOCK_ID_LEN];
	char		query[64];
	char		md5[32];
	az_request *r;

	ts_azure_block_id(number, id);
	snprintf(query, sizeof(query), "blockid=%s&comp=block", id);
	r = put_request(uri, query, data, len, md5, err);
	return r != NULL && put_created(cfg, uri, r, err);
}

bool
ts_azure_put_block_list(const ts_azure_config *cfg, const char *uri, int nblocks, ts_err *err)
{
	static const char head[] = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
	static const char tail[] = "</BlockList>";
	size_t		cap = sizeof(head) + sizeof(tail) + (size_t) nblocks * (TS_AZURE_BLOCK_ID_LEN + 20);
	char	   *body = ts_malloc(cap);
	size_t		n;
	char		md5[32];
	az_request *r;
	bool		ok;

	if (body == NULL)
		return ts_error_nomem(err, NULL);
	n = (size_t) snprintf(body, cap, "%s", head);
	for (int i = 1; i <= nblocks; i++)
	{
		char		id[TS_AZURE_BLOCK_ID_LEN];

		ts_azure_block_id(i, id);
		n += (size_t) snprintf(body + n, cap - n, "<Latest>%s</Latest>", id);
	}
	n += (size_t) snprintf(body + n, cap - n, "%s", tail);
	r = put_request(uri, "comp=blocklist", body, n, md5, err);
	ok = r != NULL && put_created(cfg, uri, r, err);
	ts_free(body);
	return ok;
}

bool
ts_azure_delete(const ts_azure_config *cfg, const char *uri, bool *existed, ts_err *err)
{
	az_request *r = ts_calloc(1, sizeof(az_request));
	ts_azure_uri u;
	bool		ok;

	*existed = false;
	if (r == NULL)
		return ts_error_nomem(err, NULL);
	r->kind = AZ_DELETE;
	ok = send_to(cfg, uri, r, &u, NULL, err);
	if (ok)
	{
		if (r->status == 202 || r->status == 200)
			*existed = true;
		else if (!(r->status == 404 && strcmp(r->code, "ContainerNotFound") != 0))
			ok = azure_answer_error(cfg, r, err);
		ts_azure_uri_free(&u);
	}
	ts_free(r);
	return ok;
}
