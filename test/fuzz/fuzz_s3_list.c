/*
 * fuzz_s3_list.c - libFuzzer harness for the XML answers of object stores
 * the S3 client parses (src/base/s3_list.c): ListObjectsV2 pages, one
 * after another into one listing as pagination does, and the <Code> of
 * error bodies.
 * The first input byte picks the parser (bit 0: error body) and the prefix
 * (bits 1-2); the rest is split into pages at each "\n--page--\n".
 * Whatever the bytes, a listing holds only non-empty names without '/',
 * a truncated page that parses has a continuation token, and an error
 * code is a word.  Each page goes through the pagination guard
 * (s3_limits.c, limits lowered to 8 keys / 16 pages): it stops a listing
 * exactly when a token repeats one of an earlier page, or past the bounds,
 * so that no input pages on forever.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/ts_s3.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const prefixes[] = {"", "wh/", "wh/sales.db/orders/snapshot/", "a/b/"};

static void
check_listing(const ts_s3_listing *l)
{
	if (l->count < 0 || l->count > l->cap || (l->count > 0 && l->names == NULL))
		abort();
	for (int i = 0; i < l->count; i++)
		if (l->names[i] == NULL || l->names[i][0] == '\0' || strchr(l->names[i], '/') != NULL)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n--page--\n";
	char	   *body;
	const char *prefix;
	ts_err		err = {0};

	if (size < 1)
		return 0;
	body = malloc(size);
	memcpy(body, data + 1, size - 1);
	body[size - 1] = '\0';
	prefix = prefixes[(data[0] >> 1) & 3];
	if (data[0] & 1)
	{
		char	   *code = ts_s3_error_code(body, size - 1);

		for (char *p = code; p && *p; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
				  (*p >= '0' && *p <= '9') || *p == '.' || *p == '_'))
				abort();
		ts_free(code);
	}
	else
	{
		ts_s3_listing l = {0};
		ts_s3_pager pager = {0};
		static const ts_s3_limits small = {1 << 20, 8, 16};
		char	   *tokens[16];
		int			ntokens = 0;
		const char *page = body;
		const char *end = body + size - 1;

		while (page < end)
		{
			const char *next = memmem(page, (size_t) (end - page), sep, sizeof(sep) - 1);
			size_t		len = next ? (size_t) (next - page) : (size_t) (end - page);
			bool		ok = ts_s3_parse_list_page(page, len, prefix, &l, &err);

			check_listing(&l);
			if (!ok)
				break;
			if (l.truncated && (l.next_token == NULL || l.next_token[0] == '\0'))
				abort();
			ts_s3_set_limits(&small);
			if (!ts_s3_pager_next(&pager, &l, "s3://b/fuzz", &err))
			{
				bool		repeated = false;

				for (int i = 0; i < ntokens; i++)
					repeated |= l.truncated && strcmp(tokens[i], l.next_token) == 0;
				/* stopped: a repeat (by its hash: a true repeat at least), or a bound */
				if (err.code != TS_ERR_LIMIT && !repeated && err.code != TS_ERR_NOMEM)
				{
					/* a hash collision of distinct tokens is possible but not in 16 pages */
					abort();
				}
				break;
			}
			if (pager.pages > 16 || l.count > 8)
				abort();
			if (!l.truncated)
				break;
			for (int i = 0; i < ntokens; i++)
				if (strcmp(tokens[i], l.next_token) == 0)
					abort();	/* a repeat let through */
			if (ntokens < 16)
				tokens[ntokens++] = strdup(l.next_token);
			if (next == NULL)
				break;
			page = next + sizeof(sep) - 1;
		}
		for (int i = 0; i < ntokens; i++)
			free(tokens[i]);
		ts_s3_pager_free(&pager);
		ts_s3_listing_free(&l);
	}
	free(body);
	return 0;
}
