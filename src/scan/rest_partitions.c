/*
 * rest_partitions.c - a REST catalog's partitions of a table, with their
 * figures (GET databases/{db}/tables/{t}/partitions, paged).
 *
 * Owns: parsing a page of partitions (spec, record/file counts and sizes)
 * and walking the pages of a listing, a repeated page token refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "scan/rest_internal.h"

void
ts_rest_partitions_free(ts_rest_partition *parts, int count)
{
	for (int i = 0; i < count; i++)
		ts_rest_free_options(parts[i].spec, parts[i].nspec);
	ts_free(parts);
}

/* An optional int64 figure of a partition: -1 when absent or null. */
static bool
partition_figure(const cJSON *p, const char *field, int64_t *out, const char *endpoint,
				 ts_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, field);

	*out = -1;
	if (v == NULL || cJSON_IsNull(v))
		return true;
	if (!rest_is_int64(v))
		return rest_bad_field(endpoint, field, "an integer", err);
	*out = (int64_t) v->valuedouble;
	return true;
}

bool
ts_rest_parse_partitions(const char *endpoint, const char *body, ts_rest_partition **parts,
						 int *count, char **next_token, ts_err *err)
{
	cJSON	   *j = rest_parse_object(endpoint, body, err);
	cJSON	   *arr,
			   *item,
			   *next;
	ts_rest_partition *out;
	int			n = 0,
				k = 0;
	bool		ok = true;

	*parts = NULL;
	*count = 0;
	*next_token = NULL;
	if (j == NULL)
		return false;
	arr = cJSON_GetObjectItemCaseSensitive(j, "partitions");
	next = cJSON_GetObjectItemCaseSensitive(j, "nextPageToken");
	if (arr != NULL && !cJSON_IsNull(arr) && !cJSON_IsArray(arr))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "partitions", "an array", err);
	}
	if (next != NULL && !cJSON_IsNull(next) && !cJSON_IsString(next))
	{
		cJSON_Delete(j);
		return rest_bad_field(endpoint, "nextPageToken", "a string", err);
	}
	cJSON_ArrayForEach(item, arr)
		n++;
	out = ts_calloc((size_t) (n > 0 ? n : 1), sizeof(ts_rest_partition));
	if (out == NULL)
	{
		cJSON_Delete(j);
		return ts_error_nomem(err, NULL);
	}
	cJSON_ArrayForEach(item, arr)
	{
		cJSON	   *spec = cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "spec") : NULL;

		if (!cJSON_IsObject(item))
			ok = rest_bad_field(endpoint, "partitions", "an array of objects", err);
		else if (!cJSON_IsObject(spec))
			ok = rest_bad_field(endpoint, "partitions[].spec", "an object", err);
		else
		{
			k++;
			ok = rest_add_options(&out[k - 1].spec, &out[k - 1].nspec, spec, endpoint,
							 "partitions[].spec", err) &&
				partition_figure(item, "recordCount", &out[k - 1].record_count, endpoint, err) &&
				partition_figure(item, "fileSizeInBytes", &out[k - 1].file_size, endpoint, err) &&
				partition_figure(item, "fileCount", &out[k - 1].file_count, endpoint, err);
		}
		if (!ok)
			break;
	}
	if (ok && cJSON_IsString(next) && next->valuestring[0] &&
		(*next_token = ts_strdup(next->valuestring)) == NULL)
		ok = ts_error_nomem(err, NULL);
	cJSON_Delete(j);
	if (!ok)
	{
		ts_rest_partitions_free(out, k);
		return false;
	}
	*parts = out;
	*count = k;
	return true;
}

bool
ts_rest_list_partitions(ts_rest_catalog *c, const char *database, const char *table,
						ts_rest_partition **parts, int *count, ts_err *err)
{
	char	   *path = ts_rest_object_path(c, database, table, "/partitions");
	char	   *endpoint = ts_psprintf("GET databases/%s/tables/%s/partitions", database, table);
	ts_rest_partition *all = NULL;
	int			nall = 0;
	char	   *token = NULL;
	bool		ok = path != NULL && endpoint != NULL;

	*parts = NULL;
	*count = 0;
	if (!ok)
		ts_error_nomem(err, NULL);
	for (int page = 0; ok; page++)
	{
		char	   *tok = token ? ts_url_encode(token) : NULL;
		char	   *query = ts_psprintf("%s?maxResults=%d%s%s", path, REST_PAGE_SIZE,
										tok ? "&pageToken=" : "", tok ? tok : "");
		ts_http_response r;
		char	   *url = query ? ts_psprintf("%s%s", c->uri, query) : NULL;
		ts_rest_partition *some = NULL;
		int			nsome = 0;
		char	   *next = NULL;

		ts_free(tok);
		ts_free(query);
		if (url == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			break;
		}
		if (page >= REST_MAX_PAGES)
			ok = ts_error(err, TS_ERR_CORRUPT, "REST catalog: %s: more than %d pages",
						  endpoint, REST_MAX_PAGES);
		else if (!TS_CHECK_INTERRUPTS(err))
			ok = false;
		if (!ok)
		{
			ts_free(url);
			break;
		}
		ok = rest_get_ok(c, url, endpoint, &r, err);
		ts_free(url);
		if (!ok)
			break;
		ok = ts_rest_parse_partitions(endpoint, r.body, &some, &nsome, &next, err);
		ts_http_response_free(&r);
		if (!ok)
			break;
		if (nsome > 0)
		{
			ts_rest_partition *grown = ts_realloc(all, sizeof(ts_rest_partition) *
												  (size_t) (nall + nsome));

			if (grown == NULL)
			{
				ts_rest_partitions_free(some, nsome);
				ts_free(next);
				ok = ts_error_nomem(err, NULL);
				break;
			}
			all = grown;
			memcpy(all + nall, some, sizeof(ts_rest_partition) * (size_t) nsome);
			nall += nsome;
		}
		ts_free(some);
		if (rest_page_token_repeats(endpoint, token, next, err))
		{
			ts_free(next);
			ok = false;
			break;
		}
		ts_free(token);
		token = next;
		if (token == NULL)
			break;
	}
	ts_free(token);
	ts_free(path);
	ts_free(endpoint);
	if (!ok)
	{
		ts_rest_partitions_free(all, nall);
		return false;
	}
	*parts = all;
	*count = nall;
	return true;
}
