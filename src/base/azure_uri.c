/*
 * azure_uri.c - Azure URIs and request URLs (see ts_azure.h).
 *
 * Owns: recognising abfs, abfss, wasb and wasbs URIs, splitting one into
 * account, container and blob name (refusing what a name may not hold, by
 * name), the request URL of a blob on Azure or on an endpoint override
 * (path-style, an emulator), and the checks of the settings that go on
 * the wire.  Pure string work: unit tested without a server.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/ts_azure.h"
#include "base/ts_http.h"

static const char *const azure_schemes[] = {"abfs", "abfss", "wasb", "wasbs", NULL};

/* Length of the scheme when path starts with one of azure_schemes and "://", else 0. */
static size_t
azure_scheme_len(const char *path)
{
	for (int i = 0; path && azure_schemes[i]; i++)
	{
		size_t		n = strlen(azure_schemes[i]);

		if (strncasecmp(path, azure_schemes[i], n) == 0 && strncmp(path + n, "://", 3) == 0)
			return n;
	}
	return 0;
}

bool
ts_uri_is_azure(const char *path)
{
	return azure_scheme_len(path) > 0;
}

void
ts_azure_uri_free(ts_azure_uri *u)
{
	ts_free(u->account);
	ts_free(u->container);
	ts_free(u->blob);
	ts_free(u->suffix);
	memset(u, 0, sizeof(*u));
}

/* Azure's rule: 3 to 24 lower-case letters and digits. */
static bool
valid_account(const char *s, size_t n)
{
	if (n < 3 || n > 24)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char) s[i]) || isdigit((unsigned char) s[i])))
			return false;
	return true;
}

/* Azure's rule: 3 to 63 lower-case letters, digits and single inner hyphens. */
static bool
valid_container(const char *s, size_t n)
{
	if (n < 3 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char) s[i]) || isdigit((unsigned char) s[i]) ||
			  (s[i] == '-' && s[i + 1] != '-')))
			return false;
	return true;
}

/* No empty, "." or ".." segment (a trailing '/' names a directory). */
static bool
valid_blob_name(const char *b)
{
	const char *seg = b;

	while (*seg)
	{
		const char *end = strchr(seg, '/');
		size_t		n = end ? (size_t) (end - seg) : strlen(seg);

		if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return false;
		if (end == NULL)
			break;
		seg = end + 1;
	}
	return true;
}

static bool
refuse(ts_err *err, const char *uri, const char *what)
{
	return ts_error(err, TS_ERR_INVALID, "Azure URI \"%s\" %s", uri, what);
}

bool
ts_azure_parse_uri(const char *uri, ts_azure_uri *out, ts_err *err)
{
	size_t		n = azure_scheme_len(uri);
	const char *auth,
			   *at,
			   *host,
			   *slash,
			   *dot;
	size_t		hostlen;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return ts_error(err, TS_ERR_INVALID,
						"\"%s\" is not an abfs://, abfss://, wasb:// or wasbs:// URI", uri);
	if (ts_has_control_char(uri))
		return refuse(err, uri, "contains a control character");
	auth = uri + n + 3;
	slash = strchr(auth, '/');
	hostlen = slash ? (size_t) (slash - auth) : strlen(auth);
	at = memchr(auth, '@', hostlen);
	if (at == NULL || at == auth)
		return refuse(err, uri, "names no container (container@account.dfs.core.windows.net)");
	if (!valid_container(auth, (size_t) (at - auth)))
		return refuse(err, uri, "has an invalid container name (3 to 63 lower-case letters, digits and hyphens)");
	host = at + 1;
	hostlen -= (size_t) (host - auth);
	dot = memchr(host, '.', hostlen);
	if (hostlen == 0 || dot == NULL || dot == host)
		return refuse(err, uri, "names no account (container@account.dfs.core.windows.net)");
	if (!valid_account(host, (size_t) (dot - host)))
		return refuse(err, uri, "has an invalid account name (3 to 24 lower-case letters and digits)");
	if (!((strncmp(dot, ".dfs.", 5) == 0 || strncmp(dot, ".blob.", 6) == 0) &&
		  host + hostlen > dot + (dot[1] == 'd' ? 5 : 6)))
		return refuse(err, uri, "has a host other than <account>.dfs.<suffix> or <account>.blob.<suffix>");
	if (slash && !valid_blob_name(slash + 1))
		return refuse(err, uri, "has an empty, \".\" or \"..\" segment in its path");
	{
		const char *suffix = dot + (dot[1] == 'd' ? 5 : 6);

		for (const char *p = suffix; p < host + hostlen; p++)
			if (!(isalnum((unsigned char) *p) || *p == '.' || *p == '-'))
				return refuse(err, uri, "has an invalid host name");
		out->suffix = ts_strndup(suffix, (size_t) (host + hostlen - suffix));
	}
	out->account = ts_strndup(host, (size_t) (dot - host));
	out->container = ts_strndup(auth, (size_t) (at - auth));
	out->blob = ts_strdup(slash ? slash + 1 : "");
	if (!out->suffix || !out->account || !out->container || !out->blob)
	{
		ts_azure_uri_free(out);
		return ts_error_nomem(err, NULL);
	}
	return true;
}

/* s percent-encoded by '/'-separated segment (RFC 3986 unreserved kept), ts_malloc'd. */
static char *
encode_path(const char *s)
{
	char	   *out = ts_url_encode(s);
	char	   *w = out;

	/* the separators back: a '%' of s is "%25", so "%2F" is only an encoded '/' */
	for (const char *r = out; r && *r;)
		if (strncmp(r, "%2F", 3) == 0)
		{
			*w++ = '/';
			r += 3;
		}
		else
			*w++ = *r++;
	if (w)
		*w = '\0';
	return out;
}

char *
ts_azure_url(const ts_azure_config *cfg, const ts_azure_uri *u, const char *blob)
{
	char	   *path = encode_path(blob ? blob : "");
	char	   *url;

	if (path == NULL)
		return NULL;
	if (cfg->endpoint && cfg->endpoint[0])
	{
		size_t		el = strlen(cfg->endpoint);

		while (el > 0 && cfg->endpoint[el - 1] == '/')
			el--;
		url = ts_psprintf("%.*s/%s%s%s", (int) el, cfg->endpoint, u->container,
						  blob ? "/" : "", path);
	}
	else
		url = ts_psprintf("https://%s.blob.%s/%s%s%s", u->account, u->suffix, u->container,
						  blob ? "/" : "", path);
	ts_free(path);
	return url;
}

bool
ts_azure_check_config(const ts_azure_config *cfg, ts_err *err)
{
	const char *ep = cfg->endpoint;

	if (ep && ep[0] && strncasecmp(ep, "http://", 7) != 0 && strncasecmp(ep, "https://", 8) != 0)
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.endpoint\" is not an http:// or https:// URL");
	if (ep && (ts_has_control_char(ep) || strpbrk(ep, "?#@ ") != NULL))
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.endpoint\" contains a control character, a space, '?', '#' or '@'");
	if (cfg->account_key && (cfg->account_key[0] == '\0' || ts_has_control_char(cfg->account_key)))
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.account-key\" is empty or contains a control character");
	if (cfg->sas_token && (cfg->sas_token[0] == '\0' || ts_has_control_char(cfg->sas_token) ||
						   strpbrk(cfg->sas_token, " #") != NULL))
		return ts_error(err, TS_ERR_INVALID,
						"option \"azure.sas-token\" is empty or contains a control character, a space or '#'");
	if (cfg->account_key && cfg->sas_token)
		return ts_error(err, TS_ERR_INVALID,
						"both \"azure.account-key\" and \"azure.sas-token\" are set: give one");
	return true;
}

char *
ts_azure_canonical_uri(const char *uri)
{
	ts_azure_uri u;
	size_t		blen;
	char	   *out;

	if (!ts_azure_parse_uri(uri, &u, NULL))
		return NULL;
	blen = strlen(u.blob);
	while (blen > 0 && u.blob[blen - 1] == '/')
		blen--;
	/* abfs:// and wasb:// name the same blobs: one form for both */
	out = blen ? ts_psprintf("abfs://%s@%s.dfs.%s/%.*s", u.container, u.account, u.suffix,
							 (int) blen, u.blob) :
		ts_psprintf("abfs://%s@%s.dfs.%s", u.container, u.account, u.suffix);
	ts_azure_uri_free(&u);
	return out;
}

bool
ts_azure_key_option_matches(const char *option, const ts_azure_uri *u)
{
	static const char prefix[] = "fs.azure.account.key.";
	size_t		n = sizeof(prefix) - 1;
	size_t		alen = strlen(u->account);
	const char *host = option + n;

	if (strncmp(option, prefix, n) != 0 || strncmp(host, u->account, alen) != 0)
		return false;
	host += alen;
	if (strncmp(host, ".dfs.", 5) == 0)
		host += 5;
	else if (strncmp(host, ".blob.", 6) == 0)
		host += 6;
	else
		return false;
	return strcasecmp(host, u->suffix) == 0;
}

bool
ts_azure_config_copy(ts_azure_config *to, const ts_azure_config *from)
{
	const char **strs[] = {&to->endpoint, &to->account_key, &to->sas_token, &to->ca_file};

	*to = *from;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (*strs[i] && (*strs[i] = ts_strdup(*strs[i])) == NULL)
		{
			for (size_t j = i + 1; j < sizeof(strs) / sizeof(strs[0]); j++)
				*strs[j] = NULL;
			ts_azure_config_free_copy(to);
			return false;
		}
	return true;
}

void
ts_azure_config_free_copy(ts_azure_config *c)
{
	const char *strs[] = {c->endpoint, c->account_key, c->sas_token, c->ca_file};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i])
		{
			memset((char *) strs[i], 0, strlen(strs[i]));	/* the secrets zeroed */
			ts_free((char *) strs[i]);
		}
	memset(c, 0, sizeof(*c));
}
