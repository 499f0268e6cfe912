/*
 * unit_fs.h - the reader options a unit test opens a local file with: no
 * filters, no byte range, and the unconfined local file system (a reader
 * needs an fs: ts_reader_options.fs).
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

#endif							/* TS_UNIT_FS_H */
