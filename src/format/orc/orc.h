/*
 * orc.h - ORC-specific entry points beyond format.h's ts_orc_open.
 *
 * Owns: describing an ORC file's own schema in Paimon terms (for tools,
 * diagnostics and tests that want to read a file without a table schema).
 */
#ifndef TS_ORC_H
#define TS_ORC_H

#include "format/format.h"

/*
 * The file's top-level struct as a Paimon ROW type (ts_type_free it):
 * byte->TINYINT, short->SMALLINT, int->INT, bigint->BIGINT, string->STRING,
 * varchar(n)/char(n), binary->BYTES, decimal(p,s), date, timestamp->
 * TIMESTAMP(9), timestamp with local time zone->TIMESTAMP_LTZ(9), list->
 * ARRAY, map->MAP, struct->ROW.  Field ids come from the "paimon.id"
 * attribute (-1 when absent).  NULL + err for unreadable files or union
 * columns (TS_ERR_UNSUPPORTED).
 */
ts_type    *ts_orc_file_schema(ts_fs *fs, const char *path, ts_err *err);

#endif							/* TS_ORC_H */
