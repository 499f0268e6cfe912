/*
 * schema_internal.h - what schema.c takes of the type parser in
 * schema_type.c: one field of a schema's JSON with its type.  Not used
 * outside src/meta.
 */
#ifndef TS_SCHEMA_INTERNAL_H
#define TS_SCHEMA_INTERNAL_H

#include "meta/meta_json.h"
#include "meta/schema.h"

/*
 * Fill f from a field object {"id", "name", "type", "description"} at
 * nesting depth 'depth'; false with err set (the field named) otherwise.
 */
bool		ts_type_json_field(const cJSON *j, ts_field *f, int depth, ts_err *err);

#endif							/* TS_SCHEMA_INTERNAL_H */
