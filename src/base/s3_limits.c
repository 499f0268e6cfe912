/*
 * s3_limits.c - what an object store may make the client do (see ts_s3.h).
 *
 * Owns: the bounds on whole-object bodies and listings (set from GUCs by
 * src/fdw), the cap of a whole GET by the kind of object its key names,
 * the pagination guard of a listing (pages, keys, repeated continuation
 * tokens), the refusal of settings that would put a control character on
 * the wire, and recognising an IP or localhost endpoint.  Pure: unit
 * tested without a server.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/ts_http.h"
#include "base/ts_s3.h"

static ts_s3_limits limits = {(int64_t) 256 << 20, 10000000, 100000};

void
ts_s3_set_limits(const ts_s3_limits *l)
{
	if (l->max_metadata_object > 0)
		limits.max_metadata_object = l->max_metadata_object;
	if (l->max_list_keys > 0)
		limits.max_list_keys = l->max_list_keys;
	if (l->max_list_pages > 0)
		limits.max_list_pages = l->max_list_pages;
}

const ts_s3_limits *
ts_s3_get_limits(void)
{
	return &limits;
}

/* ---- whole objects ------------------------------------------------------ */

static bool
dir_is(const char *parent, size_t plen, const char *name)
{
	return strlen(name) == plen && strncmp(parent, name, plen) == 0;
}

size_t
ts_s3_whole_cap(const char *uri, int64_t expect_size, const char **kind)
{
	const char *base = strrchr(uri, '/');
	const char *parent;
	size_t		plen;
	size_t		blen;

	base = base ? base + 1 : uri;
	blen = strlen(base);
	parent = base > uri ? base - 1 : base;
	while (parent > uri && parent[-1] != '/')
		parent--;
	plen = base > uri ? (size_t) (base - 1 - parent) : 0;

	/* hints, snapshots, schemas, tags, changelogs, consumers, JSON */
	if (strcmp(base, "LATEST") == 0 || strcmp(base, "EARLIEST") == 0 ||
		(blen > 5 && strcasecmp(base + blen - 5, ".json") == 0) ||
		dir_is(parent, plen, "snapshot") || dir_is(parent, plen, "schema") ||
		dir_is(parent, plen, "tag") || dir_is(parent, plen, "changelog") ||
		dir_is(parent, plen, "consumer"))
	{
		*kind = "snapshot, schema and hint files";
		return TS_S3_SMALL_OBJECT_MAX;
	}
	/* manifests, manifest lists, index and deletion-vector files, file indexes */
	if (dir_is(parent, plen, "manifest") || dir_is(parent, plen, "index") ||
		dir_is(parent, plen, "statistics") ||
		(blen > 6 && strcmp(base + blen - 6, ".index") == 0))
	{
		*kind = "metadata files (tablescan.max_metadata_object_size)";
		return (size_t) limits.max_metadata_object;
	}
	if (expect_size > 0)
	{
		*kind = "the size its metadata gives";
		return (size_t) expect_size;
	}
	*kind = "objects read whole (tablescan.max_metadata_object_size)";
	return (size_t) limits.max_metadata_object;
}

/* ---- listings ----------------------------------------------------------- */

static uint64_t
token_hash(const char *s)
{
	uint64_t	h = 14695981039346656037ULL;

	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h ? h : 1;			/* 0 marks an empty slot */
}

/* Add h to the set; false when it was there already (or out of memory: *nomem). */
static bool
seen_add(ts_s3_pager *p, uint64_t h, bool *nomem)
{
	size_t		i;

	*nomem = false;
	if ((p->seen_count + 1) * 2 > p->seen_cap)
	{
		size_t		cap = p->seen_cap ? p->seen_cap * 2 : 64;
		uint64_t   *n = ts_calloc(cap, sizeof(uint64_t));

		if (n == NULL)
		{
			*nomem = true;
			return false;
		}
		for (size_t k = 0; k < p->seen_cap; k++)
			if (p->seen[k])
			{
				for (i = p->seen[k] & (cap - 1); n[i]; i = (i + 1) & (cap - 1))
					;
				n[i] = p->seen[k];
			}
		ts_free(p->seen);
		p->seen = n;
		p->seen_cap = cap;
	}
	for (i = h & (p->seen_cap - 1); p->seen[i]; i = (i + 1) & (p->seen_cap - 1))
		if (p->seen[i] == h)
			return false;
	p->seen[i] = h;
	p->seen_count++;
	return true;
}

bool
ts_s3_pager_next(ts_s3_pager *p, const struct ts_s3_listing *l, const char *uri, ts_err *err)
{
	bool		nomem;

	p->pages++;
	if ((int64_t) l->count > limits.max_list_keys)
	{
		ts_error(err, TS_ERR_LIMIT, "LIST \"%s\": more than %lld keys", uri,
				 (long long) limits.max_list_keys);
		return ts_error_hint(err, "Raise tablescan.max_list_keys if the directory really holds that many objects.");
	}
	if (!l->truncated)
		return true;
	if (l->next_token == NULL || l->next_token[0] == '\0')
		return ts_error(err, TS_ERR_CORRUPT,
						"LIST \"%s\": page %lld is truncated but has no continuation token",
						uri, (long long) p->pages);
	if (!seen_add(p, token_hash(l->next_token), &nomem))
		return nomem ? ts_error_nomem(err, NULL) :
			ts_error(err, TS_ERR_CORRUPT,
					 "LIST \"%s\": page %lld repeats a continuation token of an earlier page (the listing would never end)",
					 uri, (long long) p->pages);
	if (p->pages >= limits.max_list_pages)
	{
		ts_error(err, TS_ERR_LIMIT, "LIST \"%s\": more than %lld pages", uri,
				 (long long) limits.max_list_pages);
		return ts_error_hint(err, "Raise tablescan.max_list_pages if the directory really holds that many objects.");
	}
	return true;
}

void
ts_s3_pager_free(ts_s3_pager *p)
{
	ts_free(p->seen);
	memset(p, 0, sizeof(*p));
}

/* ---- settings on the wire ----------------------------------------------- */

bool
ts_s3_check_config(const ts_s3_config *cfg, ts_err *err)
{
	const struct
	{
		const char *name;
		const char *value;
	}			fields[] = {
		{"s3.endpoint", cfg->endpoint},
		{"s3.region", cfg->region},
		{"s3.access-key", cfg->access_key},
		{"s3.secret-key", cfg->secret_key},
		{"s3.session-token", cfg->session_token},
		{"ca_file", cfg->ca_file},
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (ts_has_control_char(fields[i].value))
			return ts_error(err, TS_ERR_INVALID,
							"object store setting \"%s\" contains a control character (CR, LF, NUL or another), refused before sending",
							fields[i].name);
	return true;
}

bool
ts_s3_endpoint_is_ip_or_localhost(const char *endpoint)
{
	const char *h;
	size_t		n;

	if (endpoint == NULL || endpoint[0] == '\0')
		return false;
	h = strstr(endpoint, "://");
	h = h ? h + 3 : endpoint;
	if (*h == '[')
		return true;			/* an IPv6 literal */
	n = strcspn(h, ":/");
	if (n == 9 && strncasecmp(h, "localhost", 9) == 0)
		return true;
	if (n == 0)
		return false;
	/* a dotted IPv4 address: digits and dots only, ending in a digit */
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char) h[i]) && h[i] != '.')
			return false;
	return isdigit((unsigned char) h[n - 1]);
}
