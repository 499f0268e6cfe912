/*
 * rest.c - foreign tables of a SERVER OPTIONS (catalog 'rest').
 *
 * Owns: reaching the catalog a server names (options uri, warehouse; the
 * bearer token of the role's USER MAPPING option token, all read through
 * options.c's accessors), and what the
 * scan and IMPORT need from it: a table's location and, for a format
 * table, its schema (which lives only in the catalog).  The catalog does
 * not plan scans: manifests and data files are read from the location, in
 * the table's file scope (options.c), in an object store with the data
 * token the catalog vends for the table when its option
 * data-token.enabled is true (rest_token.c), renewed while a scan reads
 * once it is due (tablescan_rest_renew_token).  Partitions of a catalog's
 * format table come from the catalog (list-partitions), or from the file
 * system when it answers 501.  The token is sent, never shown.
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/time.h>

#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "tablescan_fdw.h"
#include "base/ts_fs.h"
#include "base/ts_s3.h"
#include "scan/format_plan.h"
#include "scan/ts_rest.h"

bool
tablescan_server_is_rest(ForeignServer *server)
{
	const char *catalog = tablescan_server_option(server, "catalog");

	return catalog != NULL && pg_strcasecmp(catalog, "rest") == 0;
}

/*
 * A failed catalog request as an ERROR: refused credentials and a missing
 * table or database said in words (the catalog's answer in the detail;
 * it never holds the token: rest_catalog.c leaves a 401/403's text out).
 */
static void pg_attribute_noreturn()
report_catalog_error(ForeignServer *server, const ts_err *err, const char *database,
					 const char *table)
{
	if (err->code == TS_ERR_DENIED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
				 errmsg("the REST catalog of server \"%s\" refused the credentials", server->servername),
				 errdetail("%s", err->msg),
				 errhint("Check option \"token\" of the user mapping for this role and server.")));
	if (err->code == TS_ERR_NOT_FOUND && database && table)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("Paimon table \"%s.%s\" does not exist in the REST catalog of server \"%s\"",
						database, table, server->servername),
				 errdetail("%s", err->msg)));
	if (err->code == TS_ERR_NOT_FOUND && database)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_SCHEMA_NOT_FOUND),
				 errmsg("Paimon database \"%s\" does not exist in the REST catalog", database),
				 errdetail("%s", err->msg)));
	tablescan_report(err);
	pg_unreachable();
}

/* The uri for EXPLAIN: without user information ("user:secret@"). */
static char *
uri_for_display(const char *uri)
{
	const char *host = strstr(uri, "://");
	const char *at,
			   *slash;

	if (host == NULL)
		return pstrdup(uri);
	host += 3;
	at = strchr(host, '@');
	slash = strchr(host, '/');
	if (at == NULL || (slash && slash < at))
		return pstrdup(uri);
	return psprintf("%.*s%s", (int) (host - uri), uri, at + 1);
}

static void
connect_catalog(ForeignServer *server, ts_rest_catalog *c)
{
	const char *uri = tablescan_server_option(server, "uri");
	const char *provider = tablescan_server_option(server, TS_OPT_TOKEN_PROVIDER);
	/* the server's own catalog options, between the catalog's defaults and overrides (as Java) */
	ts_option	client[2];
	int			nclient = 0;
	ts_err		err = {0};

	if (uri == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("server \"%s\" has catalog 'rest' but no option \"uri\"", server->servername)));
	/* DLF request signing has no published expected signatures to test against */
	if (provider && pg_strcasecmp(provider, "bear") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("REST catalog token provider \"%s\" of server \"%s\" is not supported",
						provider, server->servername),
				 errhint("Only bearer tokens are supported (token.provider 'bear', option \"token\" of the user mapping); DLF request signing is not.")));
	if ((client[nclient].value = tablescan_server_option(server, TS_OPT_DATA_TOKEN_ENABLED)) != NULL)
		client[nclient++].key = TS_OPT_DATA_TOKEN_ENABLED;
	if ((client[nclient].value = tablescan_server_option(server, TS_OPT_REST_PREFIX)) != NULL)
		client[nclient++].key = TS_OPT_REST_PREFIX;
	if (!ts_rest_connect(c, uri, tablescan_server_option(server, "warehouse"),
						 tablescan_mapping_option(server, "token"), NULL,
						 client, nclient, &err))
		report_catalog_error(server, &err, NULL, NULL);
}

void
tablescan_rest_connect(ForeignServer *server, ts_rest_catalog *c)
{
	connect_catalog(server, c);
}

/* "file:/x", "file:///x" -> "/x"; another scheme is not read yet. */
static char *
local_location(const char *path, const char *qualified)
{
	if (pg_strncasecmp(path, "file:", 5) == 0)
	{
		path += 5;
		if (strncmp(path, "///", 3) == 0)
			path += 2;
	}
	if (ts_uri_is_object(path))
	{
		ts_err		err = {0};
		char	   *bucket,
				   *key;

		if (!ts_s3_parse_uri(path, &bucket, &key, &err))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_ERROR),
					 errmsg("the REST catalog gives table \"%s\" an invalid location: %s",
							qualified, err.msg)));
		return pstrdup(path);
	}
	if (strstr(path, "://") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" of the REST catalog is at \"%s\", which is not on a file system this extension reads",
						qualified, path),
				 errhint("Tables are read from local paths and from s3://, s3a:// and oss:// object stores.")));
	if (path[0] != '/')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("the REST catalog gives table \"%s\" the location \"%s\", which is not an absolute path",
						qualified, path)));
	/* a catalog may not open the server's files to a role that may not name them */
	if (!tablescan_role_reads_server_files(tablescan_mapping_user()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the REST catalog gives table \"%s\" a location on the database server's file system, which role \"%s\" may not read",
						qualified, GetUserNameFromId(tablescan_mapping_user(), false)),
				 errdetail("Only roles with privileges of the \"%s\" role read tables at local paths; tables of a REST catalog are otherwise in an object store.",
						   "pg_read_server_files")));
	return pstrdup(path);
}

/* The catalog's option data-token.enabled (Java's default: false). */
static bool
data_token_enabled(ts_rest_catalog *c)
{
	const char *v = ts_rest_option(c, TS_OPT_DATA_TOKEN_ENABLED);

	return v && pg_strcasecmp(v, "true") == 0;
}

/* What renews the data token a scan reads with (TsTableOptions.token). */
typedef struct TsTokenUse
{
	Oid			serverid;
	Oid			userid;			/* the role it was fetched as: a view's owner */
	char	   *database;
	char	   *table;
	int64		expires_at_ms;	/* of the token held; 0: none given */
	int64		renew_at_ms;	/* 0: never (valid for this statement) */
} TsTokenUse;

/*
 * o->s3 (the server's settings) with database.table's data token over them,
 * and what renews it in o->token.  held_expires_ms: the expiry of the token
 * being renewed, 0 when planning.
 */
static void
apply_table_token(ForeignServer *server, ts_rest_catalog *c, const char *database,
				  const char *table, int64 held_expires_ms, TsTableOptions *o)
{
	TsDataToken token;
	TsTokenUse *use = palloc0(sizeof(TsTokenUse));

	tablescan_rest_table_token(server, c, database, table, held_expires_ms, &token);
	tablescan_storage_apply_token(o->s3, token.kv, token.nkv,
								  psprintf("the keys are the data token REST catalog server \"%s\" gave for table \"%s\" (not the user mapping's): check the catalog's credentials for it",
										   server->servername, o->qualified_name),
								  psprintf("of table \"%s\" from the REST catalog of server \"%s\"",
										   o->qualified_name, server->servername));
	/* the store layer signs nothing with it past its expiry */
	o->s3->expires_at_ms = token.expires_at_ms;
	use->serverid = server->serverid;
	use->userid = tablescan_mapping_user();
	use->database = pstrdup(database);
	use->table = pstrdup(table);
	use->expires_at_ms = token.expires_at_ms;
	use->renew_at_ms = token.renew_at_ms;
	o->token = use;
}

static void
renew_error_context(void *arg)
{
	errcontext("renewing the data token of Paimon table \"%s\" during a scan", (const char *) arg);
}

void
tablescan_rest_renew_token(TsTableOptions *o, ts_plan *plan)
{
	TsTokenUse *use = o->token;
	struct timeval now;
	ErrorContextCallback context;
	MemoryContext old;
	Oid			previous;
	ts_err		err = {0};

	if (use == NULL || use->renew_at_ms == 0)
		return;
	gettimeofday(&now, NULL);
	if ((int64) now.tv_sec * 1000 + now.tv_usec / 1000 < use->renew_at_ms)
		return;
	/* the new settings live as long as the options they replace */
	old = MemoryContextSwitchTo(GetMemoryChunkContext(o));
	context.callback = renew_error_context;
	context.arg = o->qualified_name;
	context.previous = error_context_stack;
	error_context_stack = &context;
	/* as the role the scan reads as (a view's owner), not the current one */
	previous = tablescan_set_mapping_user(use->userid);
	PG_TRY();
	{
		ForeignServer *server = GetForeignServer(use->serverid);
		ts_rest_catalog c;

		connect_catalog(server, &c);
		o->s3 = tablescan_storage_config(server, NULL, o->table_path);
		apply_table_token(server, &c, use->database, use->table, use->expires_at_ms, o);
		ts_rest_disconnect(&c);
	}
	PG_FINALLY();
	{
		tablescan_set_mapping_user(previous);
	}
	PG_END_TRY();
	error_context_stack = context.previous;
	if (!ts_plan_set_s3(plan, o->s3, &err))
		tablescan_report(&err);
	MemoryContextSwitchTo(old);
}

void
tablescan_rest_resolve(ForeignServer *server, const char *database, const char *table,
					   TsTableOptions *o)
{
	ts_rest_catalog c;
	ts_rest_table t;
	ts_err		err = {0};
	char	   *qualified = psprintf("%s.%s", database, table);

	connect_catalog(server, &c);
	if (!ts_rest_get_table(&c, database, table, &t, &err))
		report_catalog_error(server, &err, database, table);
	o->table_path = local_location(t.path, qualified);
	o->qualified_name = qualified;
	o->catalog = psprintf("rest %s", uri_for_display(c.uri));
	o->rest = palloc0(sizeof(TsRestTable));
	o->rest->serverid = server->serverid;
	o->rest->database = pstrdup(database);
	o->rest->table = pstrdup(table);
	o->rest->table_id = t.table_id ? pstrdup(t.table_id) : NULL;
	o->rest->format_table = t.format_table;
	/* in an object store: the server's settings, then the table's data token */
	o->s3 = tablescan_storage_config(server, NULL, o->table_path);
	if (o->s3 && data_token_enabled(&c))
		apply_table_token(server, &c, database, table, 0, o);	/* cached per backend */
	/* a format table's schema lives only in the catalog */
	if (t.format_table && o->table_schema == NULL)
		o->table_schema = pstrdup(t.schema_json);
	/* a Paimon table's schema the catalog names must be under its location */
	if (!t.format_table)
	{
		char	   *file = psprintf("%s/schema/schema-" INT64_FORMAT, o->table_path,
									(int64) t.schema_id);
		struct stat st;
		bool		found;

		if (o->s3)
		{
			/*
			 * An object store location: ask the store with the table's
			 * settings.  The name is built here under the location a
			 * privileged catalog gave (as stat() does for a local one), so
			 * no scope applies.
			 */
			ts_fs_settings settings = {0};
			ts_err		err = {0};
			ts_fs	   *fs;

			settings.s3 = o->s3;
			fs = ts_fs_open_for(file, &settings, NULL, &err);
			if (fs == NULL)
				tablescan_report(&err);
			found = ts_path_is_file(fs, file);
			ts_fs_free(fs);
		}
		else
			found = stat(file, &st) == 0 && S_ISREG(st.st_mode);
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the REST catalog gives table \"%s\" schema id " INT64_FORMAT ", which does not exist under its location",
							qualified, (int64) t.schema_id),
					 errdetail("File \"%s\" is missing.", file)));
	}
	ts_rest_table_free(&t);
	ts_rest_disconnect(&c);
}

char **
tablescan_rest_list_tables(ForeignServer *server, const char *database, int *count)
{
	ts_rest_catalog c;
	ts_err		err = {0};
	char	  **names;

	connect_catalog(server, &c);
	if (!ts_rest_list_tables(&c, database, &names, count, &err))
		report_catalog_error(server, &err, database, NULL);
	ts_rest_disconnect(&c);
	return names;
}

ts_schema *
tablescan_rest_table_schema(ForeignServer *server, const char *database, const char *table)
{
	ts_rest_catalog c;
	ts_rest_table t;
	ts_err		err = {0};
	ts_schema  *s;
	char	   *what = psprintf("Paimon table \"%s.%s\" of the REST catalog", database, table);

	connect_catalog(server, &c);
	if (!ts_rest_get_table(&c, database, table, &t, &err))
		report_catalog_error(server, &err, database, table);
	s = ts_schema_parse(t.schema_json, strlen(t.schema_json), what, &err);
	if (s == NULL)
		tablescan_report(&err);
	if (s->comment == NULL && t.comment)
		s->comment = ts_strdup(t.comment);
	ts_rest_table_free(&t);
	ts_rest_disconnect(&c);
	return s;
}

/*
 * Is relid a foreign table read through a REST catalog (options database
 * and table on a catalog 'rest' server, no path)?  Then *server,
 * *database and *table say which.
 */
bool
tablescan_rest_table_of(Oid relid, ForeignServer **server, char **database, char **table)
{
	ForeignTable *ft = GetForeignTable(relid);
	ForeignServer *s = GetForeignServer(ft->serverid);
	const char *db,
			   *t;

	if (!tablescan_server_is_rest(s) || tablescan_table_option(ft, "path") != NULL)
		return false;
	db = tablescan_table_option(ft, "database");
	t = tablescan_table_option(ft, "table");
	if (db == NULL || t == NULL)
		return false;
	*server = s;
	*database = (char *) db;
	*table = (char *) t;
	return true;
}

/*
 * A catalog format table's partitions as the catalog lists them (GET
 * .../partitions, all pages), typed, filtered and sorted as a listing of
 * the file system would be.  NULL when the catalog answers 501 (it does
 * not list partitions): the caller lists the file system.
 */
ts_ft_listing *
tablescan_rest_format_partitions(ForeignServer *server, const char *database, const char *table,
								 ts_plan *plan, const ts_scan_context *ctx)
{
	ts_rest_catalog c;
	ts_rest_partition *parts = NULL;
	int			nparts = 0;
	ts_err		err = {0};
	const ts_option **specs;
	int		   *nspecs;
	char	   *what;
	ts_ft_listing *l;

	connect_catalog(server, &c);
	if (!ts_rest_list_partitions(&c, database, table, &parts, &nparts, &err))
	{
		ts_rest_disconnect(&c);
		if (err.code == TS_ERR_UNSUPPORTED)
			return NULL;
		report_catalog_error(server, &err, database, table);
	}
	ts_rest_disconnect(&c);
	specs = palloc(sizeof(ts_option *) * Max(nparts, 1));
	nspecs = palloc(sizeof(int) * Max(nparts, 1));
	for (int p = 0; p < nparts; p++)
	{
		specs[p] = parts[p].spec;
		nspecs[p] = parts[p].nspec;
	}
	what = psprintf("REST catalog: GET databases/%s/tables/%s/partitions", database, table);
	l = ts_format_plan_partitions_given(plan, ctx, nparts, specs, nspecs, what, &err);
	ts_rest_partitions_free(parts, nparts);
	if (l == NULL)
		tablescan_report(&err);
	return l;
}
