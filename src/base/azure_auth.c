/*
 * azure_auth.c - SharedKey signing of Blob service requests (see ts_azure.h).
 *
 * Owns: the string to sign of Microsoft's "Authorize with Shared Key"
 * (Blob, Queue and File services, version 2009-09-19 and later): verb,
 * the eleven standard headers, the canonicalized x-ms-* headers and the
 * canonicalized resource with its sorted query parameters; the HMAC-SHA256
 * of it with the base64-decoded account key (OpenSSL); the HTTP date of
 * x-ms-date.  Pure: unit tested against an independent implementation
 * (test/azure/sign.mjs).  The decoded key is wiped after use.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/ts_azure.h"

/* The standard headers of the string to sign, in its order. */
static const char *const standard_headers[] = {
	"Content-Encoding", "Content-Language", "Content-Length", "Content-MD5", "Content-Type",
	"Date", "If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range", NULL
};

static const char *
header_value(const ts_azure_sign_input *in, const char *name)
{
	for (int i = 0; i < in->nheaders; i++)
		if (strcasecmp(in->headers[i].name, name) == 0)
			return in->headers[i].value;
	return NULL;
}

/* One name:value pair of the canonicalized headers or query. */
typedef struct sign_pair
{
	char	   *name;
	char	   *value;
} sign_pair;

static int
cmp_pairs(const void *a, const void *b)
{
	const sign_pair *x = a;
	const sign_pair *y = b;
	int			c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->value, y->value);
}

static void
free_pairs(sign_pair *p, int n)
{
	for (int i = 0; i < n; i++)
	{
		ts_free(p[i].name);
		ts_free(p[i].value);
	}
	ts_free(p);
}

static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) percent-decoded ('+' as a space), ts_malloc'd. */
static char *
url_decode(const char *s, size_t n)
{
	char	   *out = ts_malloc(n + 1);
	size_t		o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		if (s[i] == '%' && i + 2 < n && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0)
		{
			out[o++] = (char) (hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
			i += 2;
		}
		else
			out[o++] = s[i] == '+' ? ' ' : s[i];
	}
	out[o] = '\0';
	return out;
}

/* Append one formatted piece to the string being built; false when out of memory. */
static bool
append(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t		n = strlen(s);

	if (*len + n + 1 > *cap)
	{
		size_t		c = *cap ? *cap : 512;
		char	   *d;

		while (c < *len + n + 1)
			c *= 2;
		d = ts_realloc(*buf, c);
		if (d == NULL)
			return false;
		*buf = d;
		*cap = c;
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
	return true;
}

/* Collapse runs of linear whitespace to one space and trim, in place. */
static void
squeeze_spaces(char *s)
{
	char	   *o = s;
	bool		space = false;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s; s++)
	{
		if (*s == ' ' || *s == '\t')
			space = true;
		else
		{
			if (space)
				*o++ = ' ';
			space = false;
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The x-ms-* headers, lower-cased and sorted, each "name:value\n". */
static bool
canonical_headers(const ts_azure_sign_input *in, char **buf, size_t *len, size_t *cap)
{
	sign_pair  *p = ts_calloc((size_t) in->nheaders + 1, sizeof(sign_pair));
	int			n = 0;
	bool		ok = p != NULL;

	for (int i = 0; ok && i < in->nheaders; i++)
	{
		if (strncasecmp(in->headers[i].name, "x-ms-", 5) != 0)
			continue;
		p[n].name = ts_strdup(in->headers[i].name);
		p[n].value = ts_strdup(in->headers[i].value ? in->headers[i].value : "");
		if (p[n].name == NULL || p[n].value == NULL)
			ok = false;
		else
		{
			for (char *c = p[n].name; *c; c++)
				*c = (char) tolower((unsigned char) *c);
			squeeze_spaces(p[n].value);
		}
		n++;
	}
	if (ok)
		qsort(p, (size_t) n, sizeof(sign_pair), cmp_pairs);
	for (int i = 0; ok && i < n; i++)
		ok = append(buf, len, cap, p[i].name) && append(buf, len, cap, ":") &&
			append(buf, len, cap, p[i].value) && append(buf, len, cap, "\n");
	if (p)
		free_pairs(p, n);
	return ok;
}

/*
 * "/account/encoded-path", then per query parameter (decoded, name
 * lower-cased, sorted; the values of a repeated name sorted and joined by
 * ',') "\nname:value".
 */
static bool
canonical_resource(const ts_azure_sign_input *in, char **buf, size_t *len, size_t *cap)
{
	const char *u = strstr(in->url, "://");
	const char *path = u ? strchr(u + 3, '/') : NULL;
	const char *q = path ? strchr(path, '?') : NULL;
	sign_pair  *p = NULL;
	int			n = 0;
	bool		ok;
	char	   *pathpart;

	pathpart = path ? ts_strndup(path, q ? (size_t) (q - path) : strlen(path)) : ts_strdup("/");
	ok = pathpart && append(buf, len, cap, "/") && append(buf, len, cap, in->account) &&
		append(buf, len, cap, pathpart);
	ts_free(pathpart);
	if (!ok || q == NULL || q[1] == '\0')
		return ok;
	{
		int			max = 1;

		for (const char *c = q + 1; *c; c++)
			max += *c == '&';
		p = ts_calloc((size_t) max, sizeof(sign_pair));
		ok = p != NULL;
	}
	for (const char *c = q + 1; ok && *c;)
	{
		const char *amp = strchr(c, '&');
		size_t		plen = amp ? (size_t) (amp - c) : strlen(c);
		const char *eq = memchr(c, '=', plen);

		if (plen > 0)
		{
			p[n].name = url_decode(c, eq ? (size_t) (eq - c) : plen);
			p[n].value = eq ? url_decode(eq + 1, plen - (size_t) (eq + 1 - c)) : ts_strdup("");
			ok = p[n].name != NULL && p[n].value != NULL;
			if (ok)
				for (char *k = p[n].name; *k; k++)
					*k = (char) tolower((unsigned char) *k);
			n++;
		}
		c = amp ? amp + 1 : c + plen;
	}
	if (ok)
		qsort(p, (size_t) n, sizeof(sign_pair), cmp_pairs);
	for (int i = 0; ok && i < n; i++)
	{
		if (i > 0 && strcmp(p[i].name, p[i - 1].name) == 0)
			ok = append(buf, len, cap, ",") && append(buf, len, cap, p[i].value);
		else
			ok = append(buf, len, cap, "\n") && append(buf, len, cap, p[i].name) &&
				append(buf, len, cap, ":") && append(buf, len, cap, p[i].value);
	}
	if (p)
		free_pairs(p, n);
	return ok;
}

char *
ts_azure_string_to_sign(const ts_azure_sign_input *in)
{
	char	   *buf = NULL;
	size_t		len = 0,
				cap = 0;
	bool		ok = append(&buf, &len, &cap, in->verb) && append(&buf, &len, &cap, "\n");

	for (int i = 0; ok && standard_headers[i]; i++)
	{
		const char *v = header_value(in, standard_headers[i]);

		/* version 2015-02-21 and later: a zero Content-Length is signed as empty */
		if (v && strcasecmp(standard_headers[i], "Content-Length") == 0 && strcmp(v, "0") == 0)
			v = NULL;
		ok = append(&buf, &len, &cap, v ? v : "") && append(&buf, &len, &cap, "\n");
	}
	ok = ok && canonical_headers(in, &buf, &len, &cap) && canonical_resource(in, &buf, &len, &cap);
	if (!ok)
	{
		ts_free(buf);
		return NULL;
	}
	return buf;
}

bool
ts_azure_authorization(const char *account, const char *key_b64, const char *string_to_sign,
					   char *out, ts_err *err)
{
	size_t		klen = strlen(key_b64);
	unsigned char *key;
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;
	unsigned char sig[64];
	int			decoded;
	int			pad = 0;

	if (klen == 0 || klen % 4 != 0 || klen > 1024)
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.account-key\" is not a base64 account key");
	key = ts_malloc(klen);
	if (key == NULL)
		return ts_error_nomem(err, NULL);
	decoded = EVP_DecodeBlock(key, (const unsigned char *) key_b64, (int) klen);
	if (key_b64[klen - 1] == '=')
		pad = key_b64[klen - 2] == '=' ? 2 : 1;
	if (decoded < 0 || decoded - pad <= 0)
	{
		ts_free(key);
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.account-key\" is not a base64 account key");
	}
	if (HMAC(EVP_sha256(), key, decoded - pad, (const unsigned char *) string_to_sign,
			 strlen(string_to_sign), mac, &maclen) == NULL)
	{
		memset(key, 0, klen);
		ts_free(key);
		return ts_error(err, TS_ERR_IO, "could not compute an HMAC-SHA256 signature");
	}
	memset(key, 0, klen);
	ts_free(key);
	EVP_EncodeBlock(sig, mac, (int) maclen);
	if (snprintf(out, TS_AZURE_AUTH_LEN, "SharedKey %s:%s", account, (const char *) sig) >=
		TS_AZURE_AUTH_LEN)
		return ts_error(err, TS_ERR_INVALID, "Azure account name \"%s\" is too long", account);
	return true;
}

void
ts_azure_http_date(time_t t, char *out)
{
	static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
	"Aug", "Sep", "Oct", "Nov", "Dec"};
	struct tm	tm;

	gmtime_r(&t, &tm);
	snprintf(out, 32, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
			 months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}
