/*
 * ts_path_escape.h - Hive-style escaping of partition path names.
 *
 * Owns: Paimon's PartitionPathUtils.escapePathName / unescapePathName, the
 * one spelling shared by Paimon table partition paths (meta/partition.c)
 * and format-table partition directories (scan/format_table.c).
 */
#ifndef TS_PATH_ESCAPE_H
#define TS_PATH_ESCAPE_H

#include "base/ts_base.h"

/*
 * Control characters, DEL and the characters  " # % ' * / : = ? \ { } [ ] ^
 * become %XY (upper-case hex); everything else, UTF-8 bytes included,
 * stays.  ts_malloc'd; NULL when out of memory.
 */
char	   *ts_partition_escape(const char *s);
/* The same, appended to b (false, err set, when out of memory). */
bool		ts_partition_escape_append(ts_buf *b, const char *s, ts_err *err);

/*
 * Every %XY with two hex digits (either case) becomes its byte; anything
 * else, including a malformed or truncated escape, stays as it is.
 * ts_malloc'd; NULL when out of memory.
 */
char	   *ts_partition_unescape(const char *s);

#endif							/* TS_PATH_ESCAPE_H */
