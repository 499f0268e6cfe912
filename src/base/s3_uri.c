/*
 * s3_uri.c - object URIs and request URLs (see ts_s3.h).
 *
 * Owns: recognising the schemes read as objects (s3, s3a, oss), refusing
 * the ones no store reads (hdfs, gs, ...; Azure's are ts_azure.h's) by name, splitting a URI into
 * bucket and key, the canonical form the file scope compares, and the
 * request URL of an object in path-style or virtual-hosted addressing.
 * Pure string work: unit tested without a server.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/ts_azure.h"
#include "base/ts_s3.h"

static const char *const object_schemes[] = {"s3", "s3a", "oss", NULL};

/* Length of "scheme" when path starts with "scheme://", else 0. */
static size_t
scheme_len(const char *path)
{
	size_t		n = 0;

	if (!isalpha((unsigned char) path[0]))
		return 0;
	while (isalnum((unsigned char) path[n]) || path[n] == '+' || path[n] == '-' || path[n] == '.')
		n++;
	return strncmp(path + n, "://", 3) == 0 ? n : 0;
}

static bool
is_object_scheme(const char *path, size_t n)
{
	for (int i = 0; object_schemes[i]; i++)
		if (strlen(object_schemes[i]) == n && strncasecmp(path, object_schemes[i], n) == 0)
			return true;
	return false;
}

bool
ts_uri_is_object(const char *path)
{
	size_t		n = path ? scheme_len(path) : 0;

	return n > 0 && is_object_scheme(path, n);
}

bool
ts_uri_check_scheme(const char *path, ts_err *err)
{
	size_t		n = scheme_len(path);

	if (n == 0 || is_object_scheme(path, n) || (n == 4 && strncasecmp(path, "file", 4) == 0) ||
		ts_uri_is_azure(path))
		return true;
	return ts_error(err, TS_ERR_UNSUPPORTED,
					"file system \"%.*s\" of \"%s\" is not supported: tables are read from local paths, file:, s3://, s3a://, oss://, abfs://, abfss://, wasb:// and wasbs://",
					(int) n, path, path);
}

bool
ts_s3_parse_uri(const char *uri, char **bucket, char **key, ts_err *err)
{
	size_t		n = scheme_len(uri);
	const char *b,
			   *slash,
			   *k;

	*bucket = NULL;
	*key = NULL;
	if (n == 0 || !is_object_scheme(uri, n))
		return ts_error(err, TS_ERR_INVALID, "\"%s\" is not an s3://, s3a:// or oss:// URI", uri);
	b = uri + n + 3;
	slash = strchr(b, '/');
	if (slash == b || *b == '\0')
		return ts_error(err, TS_ERR_INVALID, "object URI \"%s\" names no bucket", uri);
	for (const char *p = b; slash ? p < slash : *p; p++)
		if (!(isalnum((unsigned char) *p) || *p == '-' || *p == '.' || *p == '_'))
			return ts_error(err, TS_ERR_INVALID, "object URI \"%s\" has an invalid bucket name", uri);
	k = slash ? slash + 1 : "";
	/* no "." or ".." segment, no control character: keys are compared lexically */
	for (const char *seg = k; *seg;)
	{
		const char *end = strchr(seg, '/');
		size_t		len = end ? (size_t) (end - seg) : strlen(seg);

		if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return ts_error(err, TS_ERR_INVALID,
							"object URI \"%s\" has a \".\" or \"..\" segment", uri);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char) seg[i] < 0x20 || seg[i] == 0x7f)
				return ts_error(err, TS_ERR_INVALID,
								"object URI \"%s\" has a control character", uri);
		if (end == NULL)
			break;
		seg = end + 1;
	}
	*bucket = slash ? ts_psprintf("%.*s", (int) (slash - b), b) : ts_strdup(b);
	*key = ts_strdup(k);
	if (*bucket == NULL || *key == NULL)
	{
		ts_free(*bucket);
		ts_free(*key);
		*bucket = *key = NULL;
		return ts_error_nomem(err, NULL);
	}
	return true;
}

char *
ts_s3_canonical_uri(const char *uri)
{
	char	   *bucket,
			   *key,
			   *out;
	size_t		klen;
	size_t		n = scheme_len(uri);
	bool		oss;

	if (!ts_s3_parse_uri(uri, &bucket, &key, NULL))
		return NULL;
	oss = n == 3 && strncasecmp(uri, "oss", 3) == 0;
	klen = strlen(key);
	while (klen > 0 && key[klen - 1] == '/')
		klen--;
	out = klen ? ts_psprintf("%s://%s/%.*s", oss ? "oss" : "s3", bucket, (int) klen, key) :
		ts_psprintf("%s://%s", oss ? "oss" : "s3", bucket);
	ts_free(bucket);
	ts_free(key);
	return out;
}

/* Percent-encode a key for a URL path: unreserved and '/' kept. */
static char *
encode_key(const char *key)
{
	static const char hex[] = "0123456789ABCDEF";
	char	   *out = ts_malloc(strlen(key) * 3 + 1);
	char	   *o = out;

	if (out == NULL)
		return NULL;
	for (const unsigned char *p = (const unsigned char *) key; *p; p++)
	{
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/')
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

char *
ts_s3_object_url(const ts_s3_config *cfg, const char *bucket, const char *key)
{
	const char *region = cfg->region && cfg->region[0] ? cfg->region : "us-east-1";
	char	   *endpoint;
	const char *host;
	size_t		scheme;
	size_t		elen;
	char	   *ekey;
	char	   *url;

	if (cfg->endpoint && cfg->endpoint[0])
		endpoint = ts_strdup(cfg->endpoint);
	else
		endpoint = ts_psprintf("https://s3.%s.amazonaws.com", region);
	if (endpoint == NULL)
		return NULL;
	elen = strlen(endpoint);
	while (elen > 0 && endpoint[elen - 1] == '/')
		endpoint[--elen] = '\0';
	/* an endpoint without a scheme is https, as in the AWS SDKs */
	host = strstr(endpoint, "://");
	if (host == NULL)
	{
		char	   *e = ts_psprintf("https://%s", endpoint);

		ts_free(endpoint);
		if (e == NULL)
			return NULL;
		endpoint = e;
		host = strstr(endpoint, "://");
	}
	scheme = (size_t) (host - endpoint);
	host += 3;
	ekey = encode_key(key ? key : "");
	if (ekey == NULL)
	{
		ts_free(endpoint);
		return NULL;
	}
	if (cfg->path_style ||
		(!cfg->path_style_set && ts_s3_endpoint_is_ip_or_localhost(endpoint)))
		url = key ? ts_psprintf("%s/%s/%s", endpoint, bucket, ekey) :
			ts_psprintf("%s/%s/", endpoint, bucket);
	else
		url = ts_psprintf("%.*s://%s.%s/%s", (int) scheme, endpoint, bucket, host,
						  key ? ekey : "");
	ts_free(ekey);
	ts_free(endpoint);
	return url;
}

bool
ts_s3_check_range_answer(const char *uri, long status, size_t got, size_t len,
						 int64_t offset, int64_t object_size, ts_err *err)
{
	if (status == 206 || status == 200)
	{
		/* 200: the whole object came, got counts the bytes of the range in it */
		if (got == len)
			return true;
		return ts_error(err, TS_ERR_CORRUPT,
						"object \"%s\": %s answer to a read of %zu bytes at offset %lld",
						uri, got < len ? "short" : "too long", len, (long long) offset);
	}
	if (status == 416 && object_size >= 0)
		return ts_error(err, TS_ERR_CORRUPT,
						"object \"%s\": read of %zu bytes at offset %lld is past its end (it was opened as %lld bytes)",
						uri, len, (long long) offset, (long long) object_size);
	if (status == 416)
		return ts_error(err, TS_ERR_CORRUPT,
						"object \"%s\": read of %zu bytes at offset %lld is past its end",
						uri, len, (long long) offset);
	return ts_error(err, TS_ERR_IO, "object \"%s\": unexpected HTTP %ld to a ranged read",
					uri, status);
}
