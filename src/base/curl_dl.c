/*
 * curl_dl.c - libcurl, loaded when a remote path is first used.
 *
 * Owns: the one handle of libcurl.so.4 in the process, the table of the
 * libcurl functions the HTTP code calls (ts_curl_fn, ts_curl.h), and
 * curl_global_init, called once, right after the load.  Linked into the
 * extension, libcurl and the libraries it brings (nghttp2, ssh2, rtmp,
 * psl, brotli, on top of those PostgreSQL already has) cost every new
 * backend's first use of a foreign table their loading and relocation;
 * a warehouse on local disk never needs them.  Loaded here instead, only
 * backends that talk to S3, Azure or a REST catalog pay it, once.  A
 * library that cannot be loaded is an error naming it, at the request that
 * needed it; the library is never unloaded.
 *
 * curl_global_init is not thread-safe: it runs on the caller's (the
 * backend's) thread; the background decompression thread never calls
 * libcurl.
 */
#include <dlfcn.h>
#include <string.h>

#include "base/ts_curl.h"
#include "base/ts_http.h"

#define CURL_SONAME "libcurl.so.4"

ts_curl_api ts_curl_fn;

static struct
{
	const char *soname;			/* NULL: CURL_SONAME */
	void	   *handle;			/* loaded, resolved and globally initialized */
} lib;

/* The symbols, in the order of ts_curl_api's members (all function pointers). */
static const char *const names[] = {
	"curl_global_init", "curl_easy_init", "curl_easy_reset", "curl_easy_setopt",
	"curl_easy_getinfo", "curl_easy_perform", "curl_easy_strerror", "curl_multi_init",
	"curl_multi_add_handle", "curl_multi_remove_handle", "curl_multi_perform",
	"curl_multi_info_read", "curl_multi_poll", "curl_slist_append", "curl_slist_free_all",
};

_Static_assert(sizeof(void *) == sizeof(void (*) (void)) &&
			   sizeof(names) / sizeof(names[0]) * sizeof(void *) == sizeof(ts_curl_api),
			   "names[] lists every member of ts_curl_api");

bool
ts_curl_loaded(void)
{
	return lib.handle != NULL;
}

bool
ts_curl_set_library(const char *soname)
{
	if (lib.handle != NULL)
		return false;
	lib.soname = soname;
	return true;
}

bool
ts_curl_global_init(ts_err *err)
{
	const char *soname = lib.soname ? lib.soname : CURL_SONAME;
	void	   *f[sizeof(names) / sizeof(names[0])];
	ts_curl_api api;
	void	   *h;

	if (lib.handle != NULL)
		return true;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		const char *why = dlerror();

		return ts_error(err, TS_ERR_UNSUPPORTED,
						"remote storage and REST catalogs need the library %s, which could not be loaded: %s",
						soname, why ? why : "unknown error");
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((f[i] = dlsym(h, names[i])) == NULL)
		{
			dlclose(h);
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"remote storage and REST catalogs need the library %s, which lacks %s",
							soname, names[i]);
		}
	/* object to function pointers through memcpy: ISO C has no cast for it */
	memcpy(&api, f, sizeof(api));
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
	{
		/* libcurl's global state may be half made: the library stays */
		return ts_error(err, TS_ERR_IO, "could not initialize libcurl (%s)", soname);
	}
	ts_curl_fn = api;
	lib.handle = h;
	return true;
}
