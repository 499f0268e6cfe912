/*
 * manifest_schema.h - the Paimon manifest record schemas a writer uses.
 *
 * Owns: ManifestEntry (with DataFileMeta and SimpleStats) and
 * ManifestFileMeta as ts_field lists in the Paimon 1.1/1.2 layout (with
 * row tracking, _FIRST_ROW_ID and _WRITE_COLS of 1.3 added to _FILE), for
 * the Avro writer (format/avro/avro_writer.h), which turns them into the
 * schema Java's AvroSchemaConverter prints.  Shared by the table writer
 * (src/write) and the fixture tools (src/tools).
 */
#ifndef TS_MANIFEST_SCHEMA_H
#define TS_MANIFEST_SCHEMA_H

#include "base/ts_types.h"

/* The fields (ts_malloc'd, never freed by the caller's arena); NULL when out of memory. */
ts_field   *ts_manifest_entry_fields(bool row_tracking, int *n);
ts_field   *ts_manifest_list_fields(int *n);

#endif							/* TS_MANIFEST_SCHEMA_H */
