/*
 * rest.c - foreign tables of a SERVER OPTIONS (catalog 'rest').
 *
 * Owns: reaching the catalog a server names (options uri, warehouse; the
 * bearer token of the role's USER MAPPING option token), and what the
 * scan and IMPORT need from it: a table's location and, for a format
 * table, its schema (which lives only in the catalog).  The catalog does
 * not plan scans: manifests and data files are read from the location, in
 * the table's file scope (options.c).  The token is sent, never shown.
 */
#include "postgres.h"

#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/syscache.h"

#include "tablescan_fdw.h"
#include "base/ts_fs.h"
#include "scan/ts_rest.h"

bool
tablescan_server_is_rest(ForeignServer *server)
{
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "catalog") == 0)
			return pg_strcasecmp(defGetString(def), "rest") == 0;
	}
	return false;
}

static const char *
server_option(ForeignServer *server, const char *name)
{
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

/* The token of the current role's user mapping (or PUBLIC's); NULL if none. */
static const char *
mapping_token(ForeignServer *server)
{
	Oid			userid = GetUserId();
	UserMapping *um;
	ListCell   *lc;

	if (!SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(userid),
							   ObjectIdGetDatum(server->serverid)) &&
		!SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
							   ObjectIdGetDatum(server->serverid)))
		return NULL;
	um = GetUserMapping(userid, server->serverid);
	foreach(lc, um->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "token") == 0)
			return defGetString(def);
	}
	return NULL;
}

static void
connect_catalog(ForeignServer *server, ts_rest_catalog *c)
{
	const char *uri = server_option(server, "uri");
	ts_err		err = {0};

	if (uri == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("server \"%s\" has catalog 'rest' but no option \"uri\"", server->servername)));
	if (!ts_rest_connect(c, uri, server_option(server, "warehouse"), mapping_token(server), NULL,
						 NULL, 0, &err))
		tablescan_report(&err);
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
	return pstrdup(path);
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
		tablescan_report(&err);
	o->table_path = local_location(t.path, qualified);
	o->qualified_name = qualified;
	/* in an object store: the server's settings, then the table's data token */
	o->s3 = tablescan_storage_config(server, NULL, o->table_path);
	if (o->s3)
	{
		ts_option  *kv = NULL;
		int			nkv = 0;
		int64_t		expires;

		if (!ts_rest_get_token(&c, database, table, &kv, &nkv, &expires, &err))
		{
			if (err.code != TS_ERR_NOT_FOUND)
				tablescan_report(&err);
		}
		else
		{
			tablescan_storage_apply_token(o->s3, kv, nkv);
			ts_rest_free_options(kv, nkv);
		}
	}
	/* a format table's schema lives only in the catalog */
	if (t.format_table && o->table_schema == NULL)
		o->table_schema = pstrdup(t.schema_json);
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
	{
		if (err.code == TS_ERR_NOT_FOUND)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_SCHEMA_NOT_FOUND),
					 errmsg("Paimon database \"%s\" does not exist in the REST catalog", database),
					 errdetail("%s", err.msg)));
		tablescan_report(&err);
	}
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
	char	   *what = psprintf("schema of %s.%s from the REST catalog", database, table);

	connect_catalog(server, &c);
	if (!ts_rest_get_table(&c, database, table, &t, &err))
		tablescan_report(&err);
	s = ts_schema_parse(t.schema_json, strlen(t.schema_json), what, &err);
	if (s == NULL)
		tablescan_report(&err);
	if (s->comment == NULL && t.comment)
		s->comment = ts_strdup(t.comment);
	ts_rest_table_free(&t);
	ts_rest_disconnect(&c);
	return s;
}
