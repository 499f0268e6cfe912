/*
 * options_internal.h - what options.c (which options are valid where, and
 * their values) lends table_options.c (merging them for a scan).
 *
 * Only src/fdw/options.c and src/fdw/table_options.c include it.
 */
#ifndef TABLESCAN_OPTIONS_INTERNAL_H
#define TABLESCAN_OPTIONS_INTERNAL_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "meta/core_options.h"

/* Is name an FDW-level option valid in catalog context? */
extern bool tablescan_is_fdw_option(const char *name, Oid context);

/*
 * The registry's entry of a key a user may give: NULL for a key Paimon does
 * not define, and for one only the extension sets (TS_OPTF_INTERNAL).
 */
extern const ts_core_option *tablescan_user_option(const char *name);

/* A location without trailing slashes ("s3://b/wh/" -> "s3://b/wh"; "/" stays). */
extern char *tablescan_location_without_trailing_slash(const char *value);

/* Does a Paimon key's value name or rewrite where files are read? */
extern bool tablescan_is_path_key(const char *key);

/*
 * What any option value of catalog context (InvalidOid: the scan_options
 * GUC) must not hold: credentials in a URL, control characters.
 */
extern void tablescan_check_value_chars(const char *name, const char *value, Oid context);

/* external-path-map: "FROM=>TO[;...]"; the TO paths appended to *targets when given. */
extern void tablescan_check_path_map(const char *name, const char *value, List **targets);

/* A database or table name must stay inside the warehouse. */
extern void tablescan_check_name_component(const char *option, const char *value);

/* The value of an FDW option or a Paimon key we act on, checked when set. */
extern void tablescan_check_option_value(const char *name, const char *value, Oid context,
										 bool notices);

#endif							/* TABLESCAN_OPTIONS_INTERNAL_H */
