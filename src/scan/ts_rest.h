/*
 * ts_rest.h - a read-only client of the Paimon REST catalog.
 *
 * Owns: GET /v1/config (options: defaults < the client's < overrides, and
 * the prefix of every later path), listing databases and tables (paged),
 * getting a table (location, schema, options, external flag, type), its
 * data token and its partitions (paged).  Every answer is validated: a missing field or a wrong type
 * is an error naming the endpoint.  The bearer token is sent, never shown.
 * Spec: apache/paimon docs/static/rest-catalog-open-api.yaml.
 */
#ifndef TS_REST_H
#define TS_REST_H

#include "base/ts_base.h"
#include "scan/scan.h"

typedef struct ts_rest_catalog
{
	char	   *uri;			/* base URI without a trailing '/' */
	char	   *prefix;			/* path prefix from the config ("" for none) */
	const char *token;			/* bearer, or NULL (not owned) */
	const char *ca_file;		/* not owned */
	int			noptions;		/* merged catalog options */
	ts_option  *options;
} ts_rest_catalog;

typedef struct ts_rest_table
{
	char	   *path;			/* the table's location, as the catalog gives it */
	bool		is_external;
	int64_t		schema_id;
	char	   *schema_json;	/* a Paimon schema file's JSON, built from the answer */
	bool		format_table;	/* options "type" = "format-table" */
	char	   *comment;		/* may be NULL */
	char	   *table_id;		/* the answer's "id" (a commit names it), or NULL */
} ts_rest_table;

/*
 * Read the catalog's config for warehouse (NULL: none given): client
 * options (may be NULL) go between the server's defaults and overrides.
 */
bool		ts_rest_connect(ts_rest_catalog *c, const char *uri, const char *warehouse,
							const char *token, const char *ca_file,
							const ts_option *client_options, int nclient_options, ts_err *err);
void		ts_rest_disconnect(ts_rest_catalog *c);
const char *ts_rest_option(const ts_rest_catalog *c, const char *key);

/* Names, ts_malloc'd; free with ts_free_names (ts_fs.h). */
bool		ts_rest_list_databases(ts_rest_catalog *c, char ***names, int *count, ts_err *err);
bool		ts_rest_list_tables(ts_rest_catalog *c, const char *database, char ***names,
								int *count, ts_err *err);

/* TS_ERR_NOT_FOUND for a table the catalog does not have. */
bool		ts_rest_get_table(ts_rest_catalog *c, const char *database, const char *table,
							  ts_rest_table *out, ts_err *err);
void		ts_rest_table_free(ts_rest_table *t);

/* The table's temporary file-system credentials: key/value pairs, expiry (epoch ms). */
bool		ts_rest_get_token(ts_rest_catalog *c, const char *database, const char *table,
							  ts_option **kv, int *nkv, int64_t *expires_at_ms, ts_err *err);
void		ts_rest_free_options(ts_option *kv, int n);

/* One partition of GET .../partitions: its spec (key -> value) and figures (-1: not given). */
typedef struct ts_rest_partition
{
	int			nspec;
	ts_option  *spec;
	int64_t		record_count;
	int64_t		file_size;
	int64_t		file_count;
} ts_rest_partition;

/*
 * The table's partitions (all pages).  TS_ERR_UNSUPPORTED when the
 * catalog answers 501 (the caller lists the file system instead).
 */
bool		ts_rest_list_partitions(ts_rest_catalog *c, const char *database, const char *table,
									ts_rest_partition **parts, int *count, ts_err *err);
void		ts_rest_partitions_free(ts_rest_partition *parts, int count);

/*
 * rest_commit.c: POST .../tables/{table}/commit with Java's
 * CommitTableRequest (tableId, baseSnapshotUuid, the snapshot's JSON, the
 * per-partition statistics as a JSON array).  *committed: the catalog
 * took it (200 {"success": true}); false: another writer's snapshot came
 * first (200 {"success": false} or 409), commit again on the latest.  Any
 * other answer or a transport failure is an error (TS_ERR_IO;
 * TS_ERR_DENIED for 401/403), its outcome unknown to the caller.
 */
bool		ts_rest_commit_snapshot(ts_rest_catalog *c, const char *database, const char *table,
									const char *table_id, const char *base_snapshot_uuid,
									const char *snapshot_json, const char *statistics_json,
									bool *committed, ts_err *err);
/* The request's body, the snapshot's JSON as given (ts_free it; NULL: out of memory). */
char	   *ts_rest_commit_body(const char *table_id, const char *base_snapshot_uuid,
								const char *snapshot_json, const char *statistics_json);
bool		ts_rest_parse_commit_answer(const char *endpoint, long status, const char *body,
										bool *committed, ts_err *err);

struct ts_http_response;

/* Shared with rest_commit.c: "/v1<prefix>/databases/<db>/tables/<t><tail>", an error answer, a JSON object. */
char	   *ts_rest_object_path(const ts_rest_catalog *c, const char *database, const char *table,
								const char *tail);
bool		ts_rest_answer_error(const char *endpoint, const struct ts_http_response *r, ts_err *err);

/* Parse answers (for unit tests and the client itself). */
bool		ts_rest_parse_partitions(const char *endpoint, const char *body,
									 ts_rest_partition **parts, int *count, char **next_token,
									 ts_err *err);
bool		ts_rest_parse_table(const char *endpoint, const char *body, ts_rest_table *out,
								ts_err *err);
bool		ts_rest_parse_names(const char *endpoint, const char *body, const char *field,
								char ***names, int *count, char **next_token, ts_err *err);

#endif							/* TS_REST_H */
