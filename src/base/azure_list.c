/*
 * azure_list.c - List Blobs answers of the Blob service (see ts_azure.h).
 *
 * Owns: reading one List Blobs page (EnumerationResults: Blob and
 * BlobPrefix names below a prefix, NextMarker) with libxml2 (no network
 * access, no entity expansion).  An error body has S3's shape
 * (<Error><Code>): ts_s3_error_code reads it.  Pure: unit tested on bytes.
 */
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "base/ts_azure.h"

#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS)

static const xmlNode *
element(const xmlNode *first, const char *name)
{
	for (const xmlNode *c = first; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *) c->name, name) == 0)
			return c;
	return NULL;
}

/* One entry's name: below prefix, directly (a BlobPrefix without its trailing '/'). */
static bool
add_entry(ts_s3_listing *out, const xmlNode *name_node, const char *prefix, ts_err *err)
{
	xmlChar    *full = name_node ? xmlNodeGetContent(name_node) : NULL;
	size_t		plen = strlen(prefix);
	const char *rest;
	size_t		len;
	bool		ok = true;

	if (full == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "blob listing of \"%s\" has an entry without a name", prefix);
	rest = (const char *) full + plen;
	len = strncmp((const char *) full, prefix, plen) == 0 ? strlen(rest) : 0;
	if (len > 0 && rest[len - 1] == '/')
		len--;
	if (strncmp((const char *) full, prefix, plen) != 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "blob listing of \"%s\" returned \"%s\" outside it",
					  prefix, (const char *) full);
	else if (len > 0 && memchr(rest, '/', len) != NULL)
		ok = ts_error(err, TS_ERR_CORRUPT,
					  "blob listing of \"%s\" returned \"%s\", not an entry directly below it",
					  prefix, (const char *) full);
	else if (len > 0)
	{
		if (out->count == out->cap)
		{
			int			cap = out->cap ? out->cap * 2 : 32;
			char	  **na = ts_realloc(out->names, sizeof(char *) * (size_t) cap);

			if (na == NULL)
				ok = ts_error_nomem(err, NULL);
			else
			{
				out->names = na;
				out->cap = cap;
			}
		}
		if (ok && (out->names[out->count] = ts_strndup(rest, len)) == NULL)
			ok = ts_error_nomem(err, NULL);
		else if (ok)
			out->count++;
	}
	xmlFree(full);
	return ok;
}

bool
ts_azure_parse_list_page(const char *xml, size_t len, const char *prefix,
						 ts_s3_listing *out, ts_err *err)
{
	xmlDoc	   *doc;
	const xmlNode *root;
	const xmlNode *blobs;
	const xmlNode *marker;
	bool		ok = true;

	ts_free(out->next_token);
	out->next_token = NULL;
	out->truncated = false;
	if (len > (size_t) INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "blob listing of \"%s\" is too large", prefix);
	doc = xmlReadMemory(xml, (int) len, "list.xml", NULL, XML_OPTIONS);
	if (doc == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "blob listing of \"%s\" is not XML", prefix);
	root = xmlDocGetRootElement(doc);
	if (root == NULL || element(root, "EnumerationResults") != root)
	{
		xmlFreeDoc(doc);
		return ts_error(err, TS_ERR_CORRUPT,
						"blob listing of \"%s\" is not an EnumerationResults", prefix);
	}
	blobs = element(root->children, "Blobs");
	for (const xmlNode *c = blobs ? blobs->children : NULL; c && ok; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
			(strcmp((const char *) c->name, "Blob") == 0 ||
			 strcmp((const char *) c->name, "BlobPrefix") == 0))
			ok = add_entry(out, element(c->children, "Name"), prefix, err);
	marker = element(root->children, "NextMarker");
	if (ok && marker)
	{
		xmlChar    *t = xmlNodeGetContent(marker);

		if (t && t[0] != '\0')
		{
			out->truncated = true;
			out->next_token = ts_strdup((const char *) t);
			if (out->next_token == NULL)
				ok = ts_error_nomem(err, NULL);
		}
		xmlFree(t);
	}
	xmlFreeDoc(doc);
	return ok;
}
