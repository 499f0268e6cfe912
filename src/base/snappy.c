/*
 * snappy.c - libsnappy, loaded when snappy-compressed data is first met.
 *
 * Owns: the one handle of libsnappy.so.1 in the process and the four C
 * functions the readers (and the Avro writer) call through ts_snappy().
 * libsnappy is C++ and brings libstdc++ with it: linked into the
 * extension, loading them took about 2.5 ms of every backend's first use
 * of a foreign table (3.4 ms in all), though most tables are written with
 * zstd.  Loaded here instead, only scans of snappy data pay it.  A library
 * that cannot be loaded is an error naming it, at the file that needed it.
 */
#include <dlfcn.h>
#include <string.h>

#include "base/ts_snappy.h"

#define SNAPPY_SONAME "libsnappy.so.1"

static struct
{
	const char *soname;			/* NULL: SNAPPY_SONAME */
	void	   *handle;
	ts_snappy_api api;
} lib;

const ts_snappy_api *
ts_snappy(ts_err *err)
{
	const char *soname = lib.soname ? lib.soname : SNAPPY_SONAME;
	void	   *h;
	ts_snappy_api api;

	if (lib.handle != NULL)
		return &lib.api;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		const char *why = dlerror();

		ts_error(err, TS_ERR_UNSUPPORTED,
				 "snappy-compressed data needs the library %s, which could not be loaded: %s",
				 soname, why ? why : "unknown error");
		return NULL;
	}
	/* object to function pointer through memcpy: ISO C has no cast for it */
	{
		void	   *f[4] = {dlsym(h, "snappy_uncompressed_length"), dlsym(h, "snappy_uncompress"),
		dlsym(h, "snappy_max_compressed_length"), dlsym(h, "snappy_compress")};

		if (f[0] == NULL || f[1] == NULL || f[2] == NULL || f[3] == NULL)
		{
			dlclose(h);
			ts_error(err, TS_ERR_UNSUPPORTED,
					 "snappy-compressed data needs the library %s, which lacks its C functions",
					 soname);
			return NULL;
		}
		memcpy(&api.uncompressed_length, &f[0], sizeof(void *));
		memcpy(&api.uncompress, &f[1], sizeof(void *));
		memcpy(&api.max_compressed_length, &f[2], sizeof(void *));
		memcpy(&api.compress, &f[3], sizeof(void *));
	}
	lib.api = api;
	lib.handle = h;
	return &lib.api;
}

void
ts_snappy_set_library(const char *soname)
{
	if (lib.handle != NULL)
		dlclose(lib.handle);
	lib.handle = NULL;
	lib.soname = soname;
}
