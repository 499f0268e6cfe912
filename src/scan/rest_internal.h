/*
 * rest_internal.h - what rest_catalog.c shares with rest_table.c and
 * rest_partitions.c (not for other files).
 *
 * Owns nothing: declares the transport and JSON helpers of the REST
 * catalog client that the table and partition endpoints use as well.
 */
#ifndef TS_REST_INTERNAL_H
#define TS_REST_INTERNAL_H

#include <cjson/cJSON.h>

#include "base/ts_http.h"
#include "scan/ts_rest.h"

/* Page size asked of list endpoints; the server may answer fewer. */
#define REST_PAGE_SIZE 100
/* A listing longer than this many pages is refused (a server looping on tokens). */
#define REST_MAX_PAGES 100000

/* A JSON number that is an integer an int64 holds. */
bool		rest_is_int64(const cJSON *v);
/* ts_malloc'd copy of s (NULL stays NULL). */
char	   *rest_dupstr(const char *s);
/* An ERROR when a list endpoint answers the page token it was given. */
bool		rest_page_token_repeats(const char *endpoint, const char *used, const char *next,
									ts_err *err);
/* GET url of catalog c: true with a 2xx answer in *r (caller frees), else false + err. */
bool		rest_get_ok(ts_rest_catalog *c, const char *url, const char *endpoint,
						ts_http_response *r, ts_err *err);
/* A catalog answer's body as a JSON object; NULL + err naming the endpoint. */
cJSON	   *rest_parse_object(const char *endpoint, const char *body, ts_err *err);
/* GET uri/path; a 2xx answer parsed as a JSON object into *json. */
bool		rest_get_json(ts_rest_catalog *c, const char *path, const char *endpoint, cJSON **json,
						  ts_err *err);
/* An error: field of endpoint's answer is not want. */
bool		rest_bad_field(const char *endpoint, const char *field, const char *want, ts_err *err);
/* Add the string pairs of a JSON object to options (later keys win). */
bool		rest_add_options(ts_option **opts, int *n, cJSON *obj, const char *endpoint,
							 const char *field, ts_err *err);

#endif							/* TS_REST_INTERNAL_H */
