/*
 * meta_json.h - small cJSON helpers shared by the metadata parsers
 * (schema.c, snapshot.c).
 *
 * Owns: parsing metadata JSON so that 64-bit integers survive exactly
 * (cJSON keeps numbers as doubles; integer literals of 16+ digits such as
 * commitIdentifier = Long.MAX_VALUE are turned into strings before
 * parsing and read back exactly), and typed field accessors that
 * tolerate absent keys and explicit nulls.
 */
#ifndef TS_META_JSON_H
#define TS_META_JSON_H

#include <cjson/cJSON.h>

#include "base/ts_base.h"
#include "base/ts_fs.h"

/* Parse JSON text; NULL + TS_ERR_CORRUPT naming 'what' on failure. */
cJSON	   *ts_json_parse(const char *json, size_t len, const char *what, ts_err *err);

/*
 * Typed accessors.  Each returns true when the key is present and not
 * null, and its value has the requested type; an absent/null key leaves
 * *out untouched and returns false with err unset.  A present key of the
 * wrong type sets err (TS_ERR_CORRUPT) and returns false; check
 * err->code to tell the two apart (callers reset it to TS_OK first).
 */
bool		ts_json_int64(const cJSON *obj, const char *key, int64_t *out, const char *what, ts_err *err);
bool		ts_json_string(const cJSON *obj, const char *key, const char **out, const char *what, ts_err *err);

/* Exact int64 from a number or a quoted big number item. */
bool		ts_json_item_int64(const cJSON *item, int64_t *out);

/*
 * Versioned-file listing rule (PAIMON-FORMAT.md 1.3): ids of the entries
 * of 'dir' named <prefix><Java long>, ascending; other names ignored.  A
 * missing directory gives *count = 0.  (Implemented in schema.c.)
 */
bool		ts_list_versioned_ids(ts_fs *fs, const char *dir, const char *prefix,
								  int64_t **ids, int *count, ts_err *err);

#endif							/* TS_META_JSON_H */
