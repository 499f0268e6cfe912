/*
 * schema.h - Paimon table schemas (schema/schema-N JSON).
 *
 * Owns: parsing one schema file (all fields; the full type grammar with
 * nested ARRAY/MAP/MULTISET/ROW and NOT NULL), listing schema ids, the
 * compatibility defaults for old schema versions, and lookups by field
 * name / id.  Every schema id is loadable so files written under old
 * schemas can be read (src/read maps their columns by field id).
 */
#ifndef TS_SCHEMA_H
#define TS_SCHEMA_H

#include "base/ts_fs.h"
#include "base/ts_types.h"

typedef struct ts_schema
{
	int64_t		id;
	int			version;		/* absent in JSON => 1 */
	int			nfields;
	ts_field   *fields;			/* top-level columns in table order */
	int32_t		highest_field_id;
	int			npartition_keys;
	char	  **partition_keys;
	int			nprimary_keys;
	char	  **primary_keys;
	int			noptions;
	char	  **option_keys;
	char	  **option_values;
	char	   *comment;		/* may be NULL */
	int64_t		time_millis;
} ts_schema;

/*
 * Parse schema JSON.  Applies the read-time compatibility defaults
 * (version <= 1 without "bucket" => bucket=1; version <= 2 without
 * "file.format" => file.format=orc).  A column of a type this reader does
 * not know is TS_ERR_UNKNOWN_TYPE naming the column, 'what' and the type
 * (the unknown type name in the detail).  'what' names the source in errors
 * (usually the file path).
 */
ts_schema  *ts_schema_parse(const char *json, size_t len, const char *what, ts_err *err);

/* Parse one Paimon type string/JSON fragment, e.g. "DECIMAL(10, 2) NOT NULL". */
ts_type    *ts_type_parse(const char *text, ts_err *err);

/* Load <branch_root>/schema/schema-<id>. */
ts_schema  *ts_schema_load(ts_fs *fs, const char *branch_root, int64_t id, ts_err *err);
/*
 * The same, with 'what' naming the schema in errors about its content
 * instead of the file's path (IMPORT names the table the user asked for,
 * never a path in the warehouse); NULL: the path.
 */
ts_schema  *ts_schema_load_as(ts_fs *fs, const char *branch_root, int64_t id, const char *what, ts_err *err);

/*
 * Ids of all schema files under <branch_root>/schema (versioned-file
 * listing rule: names "schema-<long>", others ignored), ascending.
 * *count = 0 when the directory is missing or empty.
 */
bool		ts_schema_list_ids(ts_fs *fs, const char *branch_root, int64_t **ids, int *count, ts_err *err);

void		ts_schema_free(ts_schema *s);

/* NULL if absent. */
const char *ts_schema_option(const ts_schema *s, const char *key);
int			ts_schema_field_index(const ts_schema *s, const char *name);	/* -1 if absent */
int			ts_schema_field_index_by_id(const ts_schema *s, int32_t id);	/* -1 if absent */
bool		ts_schema_is_partition_key(const ts_schema *s, const char *name);

/*
 * Bucket keys (PAIMON-FORMAT.md 2.4): "bucket-key" split on ',' or else
 * the primary keys minus partition keys.  Returns field indexes
 * (ts_malloc'd) in bucket-key order; *n = 0 when there are none.
 */
bool		ts_schema_bucket_keys(const ts_schema *s, int **field_indexes, int *n, ts_err *err);

/* Primary keys minus partition keys, as field indexes. */
bool		ts_schema_trimmed_primary_keys(const ts_schema *s, int **field_indexes, int *n, ts_err *err);

#endif							/* TS_SCHEMA_H */
