/*
 * ts_curl.h - libcurl's functions, loaded on first use (curl_dl.c).
 *
 * The extension does not link libcurl: the dynamic linker would load it
 * and its dependencies (nghttp2, ssh2, rtmp, psl, brotli ...) into every
 * backend that touches a foreign table, though only remote paths use it.
 * Code that talks HTTP calls ts_curl_global_init (ts_http.h) first, which
 * loads the library once and fills ts_curl_fn; it calls libcurl through
 * ts_curl_fn only, and only with a handle made after that succeeded (a
 * CURL * or a curl_slist can only exist once the library is loaded).
 * <curl/curl.h> is still included for the types and constants.
 */
#ifndef TS_CURL_H
#define TS_CURL_H

#include <curl/curl.h>

#include "base/ts_base.h"

typedef struct ts_curl_api
{
	CURLcode	(*global_init) (long flags);
	CURL	   *(*easy_init) (void);
	void		(*easy_reset) (CURL *h);
	CURLcode	(*easy_setopt) (CURL *h, CURLoption option,...);
	CURLcode	(*easy_getinfo) (CURL *h, CURLINFO info,...);
	CURLcode	(*easy_perform) (CURL *h);
	const char *(*easy_strerror) (CURLcode code);
	CURLM	   *(*multi_init) (void);
	CURLMcode	(*multi_add_handle) (CURLM *m, CURL *h);
	CURLMcode	(*multi_remove_handle) (CURLM *m, CURL *h);
	CURLMcode	(*multi_perform) (CURLM *m, int *running);
	CURLMsg    *(*multi_info_read) (CURLM *m, int *left);
	CURLMcode	(*multi_poll) (CURLM *m, struct curl_waitfd extra_fds[], unsigned int extra_nfds,
							   int timeout_ms, int *numfds);
	struct curl_slist *(*slist_append) (struct curl_slist *list, const char *line);
	void		(*slist_free_all) (struct curl_slist *list);
} ts_curl_api;

/* Filled by ts_curl_global_init; all NULL before it first succeeds. */
extern ts_curl_api ts_curl_fn;

/* Has this process loaded libcurl (ts_curl_global_init succeeded)? */
bool		ts_curl_loaded(void);

/*
 * Tests: load 'soname' instead of libcurl.so.4 (NULL: the default).  Only
 * before the library is loaded (false after: handles made with it live on).
 */
bool		ts_curl_set_library(const char *soname);

#endif
