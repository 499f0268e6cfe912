/*
 * unit_fs.h - the reader options a unit test opens a local file with: no
 * filters, no byte range, and the unconfined local file system (a reader
 * needs an fs: ts_reader_options.fs); a local file read whole.
 */
#ifndef TS_UNIT_FS_H
#define TS_UNIT_FS_H

#include "format/format.h"

static inline const ts_reader_options *
unit_local_read(void)
{
	static ts_reader_options options;

	options.fs = ts_fs_local_unconfined();
	return &options;
}

/* A local file's bytes, whole (ts_malloc'd; the test fails when it cannot be read). */
static inline uint8_t *
unit_slurp(const char *path, size_t *len)
{
	ts_err		err;
	uint8_t    *data;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &data, len, &err))
		fail_msg("%s: %s", path, err.msg);
	return data;
}

#endif							/* TS_UNIT_FS_H */
