/*
 * s3_list.c - the XML answers of S3 (see ts_s3.h).
 *
 * Owns: reading one ListObjectsV2 page (keys and common prefixes below a
 * prefix, IsTruncated, NextContinuationToken) and the <Code> of an error
 * body, with libxml2 (no network access, no entity expansion).  Pure:
 * unit tested on bytes.
 */
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "base/ts_s3.h"

#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS)

static bool
named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *) n->name, name) == 0;
}

static const xmlNode *
child(const xmlNode *parent, const char *name)
{
	for (const xmlNode *c = parent->children; c; c = c->next)
		if (named(c, name))
			return c;
	return NULL;
}

/* The text of an element, ts_malloc'd ("" when empty). */
static char *
text_of(const xmlNode *n)
{
	xmlChar    *t = xmlNodeGetContent(n);
	char	   *s = ts_strdup(t ? (const char *) t : "");

	xmlFree(t);
	return s;
}

static bool
add_name(ts_s3_listing *out, const char *full, const char *prefix, bool is_prefix, ts_err *err)
{
	size_t		plen = strlen(prefix);
	size_t		len;
	char	   *name;

	if (strncmp(full, prefix, plen) != 0)
		return ts_error(err, TS_ERR_CORRUPT,
						"object listing of \"%s\" returned key \"%s\" outside it", prefix, full);
	full += plen;
	len = strlen(full);
	if (is_prefix && len > 0 && full[len - 1] == '/')
		len--;
	if (len == 0)
		return true;			/* the "directory" marker object itself */
	if (memchr(full, '/', len) != NULL)
		return ts_error(err, TS_ERR_CORRUPT,
						"object listing of \"%s\" returned \"%s\", not an entry directly below it",
						prefix, full);
	if (out->count == out->cap)
	{
		int			cap = out->cap ? out->cap * 2 : 32;
		char	  **na = ts_realloc(out->names, sizeof(char *) * (size_t) cap);

		if (na == NULL)
			return ts_error_nomem(err, NULL);
		out->names = na;
		out->cap = cap;
	}
	name = ts_psprintf("%.*s", (int) len, full);
	if (name == NULL)
		return ts_error_nomem(err, NULL);
	out->names[out->count++] = name;
	return true;
}

bool
ts_s3_parse_list_page(const char *xml, size_t len, const char *prefix,
					  ts_s3_listing *out, ts_err *err)
{
	xmlDoc	   *doc;
	const xmlNode *root;
	bool		ok = true;

	ts_free(out->next_token);
	out->next_token = NULL;
	out->truncated = false;
	if (len > (size_t) INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "object listing of \"%s\" is too large", prefix);
	doc = xmlReadMemory(xml, (int) len, "list.xml", NULL, XML_OPTIONS);
	if (doc == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "object listing of \"%s\" is not XML", prefix);
	root = xmlDocGetRootElement(doc);
	if (root == NULL || !named(root, "ListBucketResult"))
	{
		xmlFreeDoc(doc);
		return ts_error(err, TS_ERR_CORRUPT,
						"object listing of \"%s\" is not a ListBucketResult", prefix);
	}
	for (const xmlNode *c = root->children; c && ok; c = c->next)
	{
		const xmlNode *k = NULL;
		bool		is_prefix = false;

		if (named(c, "Contents"))
			k = child(c, "Key");
		else if (named(c, "CommonPrefixes"))
		{
			k = child(c, "Prefix");
			is_prefix = true;
		}
		else if (named(c, "IsTruncated"))
		{
			char	   *t = text_of(c);

			out->truncated = t && strcmp(t, "true") == 0;
			ts_free(t);
			continue;
		}
		else if (named(c, "NextContinuationToken"))
		{
			ts_free(out->next_token);	/* a page with two: the last counts */
			out->next_token = text_of(c);
			continue;
		}
		else
			continue;
		if (k == NULL)
			ok = ts_error(err, TS_ERR_CORRUPT, "object listing of \"%s\" has an entry without a key",
						  prefix);
		else
		{
			char	   *t = text_of(k);

			ok = t ? add_name(out, t, prefix, is_prefix, err) :
				ts_error_nomem(err, NULL);
			ts_free(t);
		}
	}
	xmlFreeDoc(doc);
	if (ok && out->truncated && (out->next_token == NULL || out->next_token[0] == '\0'))
		ok = ts_error(err, TS_ERR_CORRUPT,
					  "object listing of \"%s\" is truncated but has no continuation token", prefix);
	return ok;
}

void
ts_s3_listing_free(ts_s3_listing *l)
{
	for (int i = 0; i < l->count; i++)
		ts_free(l->names[i]);
	ts_free(l->names);
	ts_free(l->next_token);
	memset(l, 0, sizeof(*l));
}

char *
ts_s3_error_code(const char *xml, size_t len)
{
	xmlDoc	   *doc;
	const xmlNode *root;
	const xmlNode *code;
	char	   *out = NULL;

	if (xml == NULL || len == 0 || len > (size_t) INT32_MAX)
		return NULL;
	doc = xmlReadMemory(xml, (int) len, "error.xml", NULL, XML_OPTIONS);
	if (doc == NULL)
		return NULL;
	root = xmlDocGetRootElement(doc);
	if (root && named(root, "Error") && (code = child(root, "Code")) != NULL)
	{
		out = text_of(code);
		/* a code is a word: anything else is not shown */
		for (char *p = out; p && *p; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
				  *p == '.' || *p == '_'))
			{
				ts_free(out);
				out = NULL;
				break;
			}
	}
	xmlFreeDoc(doc);
	return out;
}
