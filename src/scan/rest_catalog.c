/*
 * rest_catalog.c - the Paimon REST catalog's connection and listings (see
 * ts_rest.h).
 *
 * Owns: connecting (GET /v1/config, the prefix and defaults it answers),
 * building each endpoint's URL (prefix, URL-encoded names, paging tokens),
 * sending it through base/http.c with the bearer token and a cap on the
 * answer, mapping the catalog's error answers ({message, code}) to ts_err,
 * the listings of databases and tables, and a table's data token.  A
 * table's metadata is parsed in rest_table.c, its partitions in
 * rest_partitions.c, a commit sent by rest_commit.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/ts_fs.h"
#include "scan/rest_internal.h"

/*
 * Largest catalog answer parsed: a page of names, a table with thousands of
 * columns or a token is far smaller.  base/http.c stops reading at its own,
 * larger bound; this one keeps a hostile catalog's answer from being parsed.
 */
#define REST_MAX_ANSWER ((size_t) 8 << 20)

/* A JSON number that is an integer an int64 holds (no UB casting a huge double). */
bool
rest_is_int64(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= -9.2e18 && v->valuedouble <= 9.2e18 &&
		v->valuedouble == (double) (int64_t) v->valuedouble;
}

char *
rest_dupstr(const char *s)
{
	return s ? ts_strdup(s) : NULL;
}

/* The catalog's error answer, or the status alone. */
bool
ts_rest_answer_error(const char *endpoint, const ts_http_response *r, ts_err *err)
{
	cJSON	   *j = cJSON_Parse(r->body ? r->body : "");
	cJSON	   *msg = j ? cJSON_GetObjectItemCaseSensitive(j, "message") : NULL;
	ts_errcode	code = r->status == 404 ? TS_ERR_NOT_FOUND :
		r->status == 501 ? TS_ERR_UNSUPPORTED :
		(r->status == 401 || r->status == 403) ? TS_ERR_DENIED : TS_ERR_IO;

	/* the server's message is not repeated: it might echo what was sent */
	if (code == TS_ERR_DENIED)
		ts_error(err, code, "REST catalog: %s: the catalog refused the credentials (HTTP %ld)",
				 endpoint, r->status);
	else
		ts_error(err, code, "REST catalog: %s: HTTP %ld%s%s", endpoint, r->status,
				 cJSON_IsString(msg) ? ": " : "", cJSON_IsString(msg) ? msg->valuestring : "");
	if (j)
		cJSON_Delete(j);
	return false;
}

/*
 * A NUL escaped in a catalog's answer (\u0000) would cut the string it is
 * in short without a word.  Before parsing, each is replaced by the escape
 * of U+FFFF (a noncharacter, in no name, path or key); after parsing, the
 * first key or string holding U+FFFF names the field in the error.
 */
#define NUL_ESCAPE "\\u0000"
#define NUL_STAND_IN "\\uffff"
#define NUL_STAND_IN_UTF8 "\xEF\xBF\xBF"

/* body with every \u0000 escape made \uffff (ts_malloc'd), or NULL: none there. */
static char *
mark_nuls(const char *body)
{
	char	   *copy = NULL;

	for (size_t i = 0; body[i]; i++)
	{
		if (body[i] != '\\')
			continue;
		if (strncmp(body + i, NUL_ESCAPE, 6) == 0)
		{
			if (copy == NULL && (copy = ts_strdup(body)) == NULL)
				return NULL;
			memcpy(copy + i, NUL_STAND_IN, 6);
		}
		if (body[i + 1] != '\0')
			i++;				/* an escaped character, maybe a backslash */
	}
	return copy;
}

/* Does node hold the stand-in?  Then path (size n) names where, as a.b[2].c. */
static bool
find_marked(const cJSON *node, char *path, size_t n)
{
	size_t		len = strlen(path);
	int			index = 0;

	if (node->string && strstr(node->string, NUL_STAND_IN_UTF8))
		return true;
	if (cJSON_IsString(node) && strstr(node->valuestring, NUL_STAND_IN_UTF8))
		return true;
	for (const cJSON *child = node->child; child; child = child->next, index++)
	{
		if (cJSON_IsArray(node))
			snprintf(path + len, n - len, "[%d]", index);
		else
			snprintf(path + len, n - len, "%s%s", len ? "." : "", child->string);
		if (find_marked(child, path, n))
			return true;
	}
	path[len] = '\0';
	return false;
}

/*
 * A page token the catalog gives again right after it was used would loop
 * until REST_MAX_PAGES: an ERROR at once.
 */
bool
rest_page_token_repeats(const char *endpoint, const char *used, const char *next, ts_err *err)
{
	if (used == NULL || next == NULL || strcmp(used, next) != 0)
		return false;
	ts_error(err, TS_ERR_CORRUPT,
			 "REST catalog: %s: the answer gives the page token it was asked with as the next one",
			 endpoint);
	return true;
}

/*
 * GET req->url (ts_http_get) keeping at most REST_MAX_ANSWER bytes: a
 * larger answer is refused (TS_ERR_LIMIT naming the endpoint) while it
 * arrives, never buffered whole first.
 */
static bool
rest_get(const ts_http_request *req, ts_http_response *r, ts_err *err)
{
	ts_http_request capped = *req;

	capped.max_body = REST_MAX_ANSWER;
	capped.cap_name = "catalog answers";
	return ts_http_get(&capped, r, err);
}

/* A catalog answer's body as a JSON object; NULL + err naming the endpoint. */
cJSON *
rest_parse_object(const char *endpoint, const char *body, ts_err *err)
{
	char	   *marked = body ? mark_nuls(body) : NULL;
	cJSON	   *j = body ? cJSON_Parse(marked ? marked : body) : NULL;

	if (marked && j)
	{
		char		field[512] = "";

		ts_free(marked);
		if (find_marked(j, field, sizeof(field)))
		{
			cJSON_Delete(j);
			ts_error(err, TS_ERR_CORRUPT,
					 "REST catalog: %s: field \"%s\" contains a NUL character (\\u0000)",
					 endpoint, field);
			return NULL;
		}
	}
	else
		ts_free(marked);
	if (j != NULL && cJSON_IsObject(j))
		return j;
	cJSON_Delete(j);
	ts_error(err, TS_ERR_CORRUPT, "REST catalog: %s: the answer is not a JSON object", endpoint);
	return NULL;
}

/*
 * GET url of catalog c (its bearer token and CA file): true with a 2xx
 * answer in *r (the caller frees it), else false + err (the catalog's error
 * answer, or the transport's).
 */
bool
rest_get_ok(ts_rest_catalog *c, const char *url, const char *endpoint, ts_http_response *r,
			ts_err *err)
{
	ts_http_request req = {0};

	req.url = url;
	req.bearer = c->token;
	req.ca_file = c->ca_file;
	req.what = endpoint;
	req.retries = -1;
	if (!rest_get(&req, r, err))
		return false;
	if (r->status >= 200 && r->status <= 299)
		return true;
	ts_rest_answer_error(endpoint, r, err);
	ts_http_response_free(r);
	return false;
}

/* GET uri/path; a 2xx answer parsed as a JSON object into *json. */
bool
rest_get_json(ts_rest_catalog *c, const char *path, const char *endpoint, cJSON **json, ts_err *err)
{
	ts_http_response r;
	char	   *url = ts_psprintf("%s%s", c->uri, path);
	bool		ok;

	*json = NULL;
	if (url == NULL)
		return ts_error_nomem(err, NULL);
	ok = rest_get_ok(c, url, endpoint, &r, err);
	ts_free(url);
	if (!ok)
		return false;
	*json = rest_parse_object(endpoint, r.body, err);
	ts_http_response_free(&r);
	return *json != NULL;
}

bool
rest_bad_field(const char *endpoint, const char *field, const char *want, ts_err *err)
{
	return ts_error(err, TS_ERR_CORRUPT, "REST catalog: %s: field \"%s\" is missing or not %s",
					endpoint, field, want);
}

/* Add the string pairs of a JSON object to options (later keys win). */
bool
rest_add_options(ts_option **opts, int *n, cJSON *obj, const char *endpoint, const char *field,
				 ts_err *err)
{
	cJSON	   *kv;

	if (obj == NULL || cJSON_IsNull(obj))
		return true;
	if (!cJSON_IsObject(obj))
		return rest_bad_field(endpoint, field, "an object", err);
	cJSON_ArrayForEach(kv, obj)
	{
		int			i;
		ts_option  *grown;

		if (!cJSON_IsString(kv))
			return rest_bad_field(endpoint, kv->string, "a string", err);
		for (i = 0; i < *n; i++)
			if (strcmp((*opts)[i].key, kv->string) == 0)
				break;
		if (i == *n)
		{
			grown = ts_realloc(*opts, sizeof(ts_option) * (size_t) (*n + 1));
			if (grown == NULL)
				return ts_error_nomem(err, NULL);
			*opts = grown;
			(*opts)[i].key = ts_strdup(kv->string);
			(*opts)[i].value = NULL;
			(*n)++;
		}
		ts_free((void *) (*opts)[i].value);
		(*opts)[i].value = ts_strdup(kv->valuestring);
		if ((*opts)[i].key == NULL || (*opts)[i].value == NULL)
			return ts_error_nomem(err, NULL);
	}
	return true;
}

void
ts_rest_free_options(ts_option *kv, int n)
{
	for (int i = 0; i < n; i++)
	{
		ts_free((void *) kv[i].key);
		ts_free((void *) kv[i].value);
	}
	ts_free(kv);
}

bool
ts_rest_connect(ts_rest_catalog *c, const char *uri, const char *warehouse,
				const char *token, const char *ca_file,
				const ts_option *client_options, int nclient_options, ts_err *err)
{
	const char *endpoint = "GET /v1/config";
	size_t		len = strlen(uri);
	char	   *path;
	cJSON	   *j;
	bool		ok;

	memset(c, 0, sizeof(*c));
	while (len > 0 && uri[len - 1] == '/')
		len--;
	if (strncmp(uri, "http://", 7) != 0 && strncmp(uri, "https://", 8) != 0)
		return ts_error(err, TS_ERR_INVALID, "REST catalog uri \"%s\" is not an http:// or https:// URI",
						uri);
	c->uri = ts_malloc(len + 1);
	if (c->uri == NULL)
		return ts_error_nomem(err, NULL);
	memcpy(c->uri, uri, len);
	c->uri[len] = '\0';
	c->token = token;
	c->ca_file = ca_file;
	if (warehouse)
	{
		char	   *w = ts_url_encode(warehouse);

		path = w ? ts_psprintf("/v1/config?warehouse=%s", w) : NULL;
		ts_free(w);
	}
	else
		path = ts_strdup("/v1/config");
	if (path == NULL)
		return ts_error_nomem(err, NULL);
	ok = rest_get_json(c, path, endpoint, &j, err);
	ts_free(path);
	if (!ok)
		return false;
	ok = rest_add_options(&c->options, &c->noptions, cJSON_GetObjectItemCaseSensitive(j, "defaults"),
					 endpoint, "defaults", err);
	for (int i = 0; ok && i < nclient_options; i++)
	{
		cJSON	   *one = cJSON_CreateObject();

		ok = one && cJSON_AddStringToObject(one, client_options[i].key,
											client_options[i].value ? client_options[i].value : "") &&
			rest_add_options(&c->options, &c->noptions, one, endpoint, "options", err);
		if (one)
			cJSON_Delete(one);
	}
	ok = ok && rest_add_options(&c->options, &c->noptions,
						   cJSON_GetObjectItemCaseSensitive(j, "overrides"), endpoint, "overrides", err);
	cJSON_Delete(j);
	if (!ok)
		return false;
	{
		const char *prefix = ts_rest_option(c, TS_OPT_REST_PREFIX);
		char	   *enc = prefix && *prefix ? ts_url_encode(prefix) : ts_strdup("");

		if (enc == NULL)
			return ts_error_nomem(err, NULL);
		c->prefix = *enc ? ts_psprintf("/%s", enc) : ts_strdup("");
		ts_free(enc);
		if (c->prefix == NULL)
			return ts_error_nomem(err, NULL);
	}
	return true;
}

void
ts_rest_disconnect(ts_rest_catalog *c)
{
	ts_free(c->uri);
	ts_free(c->prefix);
	ts_rest_free_options(c->options, c->noptions);
	memset(c, 0, sizeof(*c));
}

const char *
ts_rest_option(const ts_rest_catalog *c, const char *key)
{
	if (!ts_core_option_readable(key))
		return NULL;
	for (int i = 0; i < c->noptions; i++)
		if (strcmp(c->options[i].key, key) == 0)
			return c->options[i].value;
	return NULL;
}

bool
ts_rest_parse_names(const char *endpoint, const char *body, const char *field,
					char ***names, int *count, char **next_token, ts_err *err)
{
	cJSON	   *j = rest_parse_object(endpoint, body, err);
	cJSON	   *arr,
			   *item,
			   *next;
	int			n = 0,
				k = 0;
	char	  **out;

	*names = NULL;
	*count = 0;
	*next_token = NULL;
	if (j == NULL)
		return false;
	arr = cJSON_GetObjectItemCaseSensitive(j, field);
	if (arr != NULL && !cJSON_IsNull(arr) && !cJSON_IsArray(arr))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, field, "an array", err);
	}
	cJSON_ArrayForEach(item, arr)
		n++;
	out = ts_calloc((size_t) (n > 0 ? n : 1), sizeof(char *));
	if (out == NULL)
	{
		cJSON_Delete(j);
		return ts_error_nomem(err, NULL);
	}
	cJSON_ArrayForEach(item, arr)
	{
		if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
		{
			ts_free_names(out, k);
			cJSON_Delete(j);
			return rest_bad_field(endpoint, field, "an array of names", err);
		}
		if ((out[k] = ts_strdup(item->valuestring)) == NULL)
		{
			ts_free_names(out, k);
			cJSON_Delete(j);
			return ts_error_nomem(err, NULL);
		}
		k++;
	}
	next = cJSON_GetObjectItemCaseSensitive(j, "nextPageToken");
	if (next != NULL && !cJSON_IsNull(next) && !cJSON_IsString(next))
	{
		ts_free_names(out, k);
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "nextPageToken", "a string", err);
	}
	if (cJSON_IsString(next) && next->valuestring[0])
		*next_token = ts_strdup(next->valuestring);
	cJSON_Delete(j);
	*names = out;
	*count = k;
	return true;
}

/* GET a paged list of names at path (without query), field holding them. */
static bool
list_names(ts_rest_catalog *c, const char *path, const char *endpoint, const char *field,
		   char ***names, int *count, ts_err *err)
{
	char	  **all = NULL;
	int			nall = 0;
	char	   *token = NULL;

	*names = NULL;
	*count = 0;
	for (int page = 0;; page++)
	{
		ts_http_response r;
		char	   *tok = token ? ts_url_encode(token) : NULL;
		char	   *url = ts_psprintf("%s%s?maxResults=%d%s%s", c->uri, path, REST_PAGE_SIZE,
									  tok ? "&pageToken=" : "", tok ? tok : "");
		char	  **some;
		int			nsome;
		char	   *next;
		bool		ok;

		ts_free(tok);
		if (url == NULL)
			goto nomem;
		if (page >= REST_MAX_PAGES)
		{
			ts_free(url);
			ts_free(token);
			ts_free_names(all, nall);
			return ts_error(err, TS_ERR_CORRUPT, "REST catalog: %s: more than %d pages",
							endpoint, REST_MAX_PAGES);
		}
		if (!TS_CHECK_INTERRUPTS(err))
		{
			ts_free(url);
			ts_free(token);
			ts_free_names(all, nall);
			return false;
		}
		ok = rest_get_ok(c, url, endpoint, &r, err);
		ts_free(url);
		if (ok)
		{
			ok = ts_rest_parse_names(endpoint, r.body, field, &some, &nsome, &next, err);
			ts_http_response_free(&r);
		}
		if (!ok)
		{
			ts_free(token);
			ts_free_names(all, nall);
			return false;
		}
		if (nsome > 0)
		{
			char	  **grown = ts_realloc(all, sizeof(char *) * (size_t) (nall + nsome));

			if (grown == NULL)
			{
				ts_free_names(some, nsome);
				ts_free(next);
				goto nomem;
			}
			all = grown;
			memcpy(all + nall, some, sizeof(char *) * (size_t) nsome);
			nall += nsome;
		}
		ts_free(some);
		if (rest_page_token_repeats(endpoint, token, next, err))
		{
			ts_free(next);
			ts_free(token);
			ts_free_names(all, nall);
			return false;
		}
		ts_free(token);
		token = next;
		if (token == NULL)
			break;
	}
	*names = all;
	*count = nall;
	return true;
nomem:
	ts_free(token);
	ts_free_names(all, nall);
	return ts_error_nomem(err, NULL);
}

bool
ts_rest_list_databases(ts_rest_catalog *c, char ***names, int *count, ts_err *err)
{
	char	   *path = ts_psprintf("/v1%s/databases", c->prefix);
	bool		ok;

	if (path == NULL)
		return ts_error_nomem(err, NULL);
	ok = list_names(c, path, "GET databases", "databases", names, count, err);
	ts_free(path);
	return ok;
}

/* "/v1<prefix>/databases/<db>[/tables/<table>]" with encoded names */
char *
ts_rest_object_path(const ts_rest_catalog *c, const char *database, const char *table, const char *tail)
{
	char	   *d = ts_url_encode(database);
	char	   *t = table ? ts_url_encode(table) : NULL;
	char	   *p = NULL;

	if (d && (table == NULL || t))
		p = table ? ts_psprintf("/v1%s/databases/%s/tables/%s%s", c->prefix, d, t, tail) :
			ts_psprintf("/v1%s/databases/%s%s", c->prefix, d, tail);
	ts_free(d);
	ts_free(t);
	return p;
}

bool
ts_rest_list_tables(ts_rest_catalog *c, const char *database, char ***names, int *count,
					ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, NULL, "/tables");
	char	   *endpoint = ts_psprintf("GET databases/%s/tables", database);
	bool		ok;

	if (path == NULL || endpoint == NULL)
	{
		ts_free(path);
		ts_free(endpoint);
		return ts_error_nomem(err, NULL);
	}
	ok = list_names(c, path, endpoint, "tables", names, count, err);
	ts_free(path);
	ts_free(endpoint);
	return ok;
}


bool
ts_rest_get_token(ts_rest_catalog *c, const char *database, const char *table,
				  ts_option **kv, int *nkv, int64_t *expires_at_ms, ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, table, "/token");
	char	   *endpoint = ts_psprintf("GET databases/%s/tables/%s/token", database, table);
	cJSON	   *j = NULL;
	cJSON	   *exp;
	bool		ok;

	*kv = NULL;
	*nkv = 0;
	*expires_at_ms = 0;
	if (path == NULL || endpoint == NULL)
	{
		ts_free(path);
		ts_free(endpoint);
		return ts_error_nomem(err, NULL);
	}
	ok = rest_get_json(c, path, endpoint, &j, err);
	ts_free(path);
	if (ok)
	{
		cJSON	   *token = cJSON_GetObjectItemCaseSensitive(j, "token");

		if (!cJSON_IsObject(token))
			ok = rest_bad_field(endpoint, "token", "an object", err);
		else
			ok = rest_add_options(kv, nkv, token, endpoint, "token", err);
		for (int i = 0; ok && i < *nkv; i++)
			if (ts_has_control_char((*kv)[i].key) || ts_has_control_char((*kv)[i].value))
				ok = ts_error(err, TS_ERR_CORRUPT,
							  "REST catalog: %s: the token's %s \"%s\" contains a control character (CR, LF or another), refused",
							  endpoint, ts_has_control_char((*kv)[i].key) ? "key" : "value of key",
							  ts_has_control_char((*kv)[i].key) ? "(not shown)" : (*kv)[i].key);
		/* the spec's expiresAt and Java's GetTableTokenResponse expiresAtMillis: the earlier wins */
		for (int f = 0; ok && f < 2; f++)
		{
			const char *field = f == 0 ? "expiresAt" : "expiresAtMillis";

			exp = cJSON_GetObjectItemCaseSensitive(j, field);
			if (exp != NULL && !cJSON_IsNull(exp) && !rest_is_int64(exp))
				ok = rest_bad_field(endpoint, field, "an integer", err);
			else if (rest_is_int64(exp) &&
					 (*expires_at_ms == 0 || (int64_t) exp->valuedouble < *expires_at_ms))
				*expires_at_ms = (int64_t) exp->valuedouble;
		}
		cJSON_Delete(j);
	}
	ts_free(endpoint);
	if (!ok)
	{
		ts_rest_free_options(*kv, *nkv);
		*kv = NULL;
		*nkv = 0;
	}
	return ok;
}
