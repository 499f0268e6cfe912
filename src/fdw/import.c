/*
 * import.c - IMPORT FOREIGN SCHEMA over <warehouse>/<database>.db/.
 *
 * Owns: listing the tables of a Paimon database, honouring LIMIT TO /
 * EXCEPT, and writing one CREATE FOREIGN TABLE per table with columns typed
 * by the README's mapping (NOT NULL kept).  An unmappable column is an
 * error naming it, unless the import option strict 'false' maps it to
 * text.
 */
#include "postgres.h"

#include "commands/defrem.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"

#include "tablescan_fdw.h"

static bool
table_selected(ImportForeignSchemaStmt *stmt, const char *name)
{
	ListCell   *lc;

	if (stmt->list_type == FDW_IMPORT_SCHEMA_ALL)
		return true;
	foreach(lc, stmt->table_list)
	{
		RangeVar   *rv = lfirst(lc);

		if (strcmp(rv->relname, name) == 0)
			return stmt->list_type == FDW_IMPORT_SCHEMA_LIMIT_TO;
	}
	return stmt->list_type == FDW_IMPORT_SCHEMA_EXCEPT;
}

static ts_schema *
load_latest_schema(const char *table_dir)
{
	ts_err		err = {0};
	int64_t    *ids;
	int			n;
	ts_schema  *s;

	if (!ts_schema_list_ids(table_dir, &ids, &n, &err))
		tablescan_report(&err);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("Paimon table \"%s\" has no schema file", table_dir)));
	s = ts_schema_load(table_dir, ids[n - 1], &err);
	if (s == NULL)
		tablescan_report(&err);
	return s;
}

List *
tablescanImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	ForeignServer *server = GetForeignServer(serverOid);
	char	   *warehouse = NULL;
	bool		strict = true;
	char	   *dbdir;
	char	  **names;
	int			ntables;
	ts_err		err = {0};
	List	   *commands = NIL;
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "warehouse") == 0)
			warehouse = defGetString(def);
		else if (strcmp(def->defname, "strict") == 0)
			strict = defGetBoolean(def);
	}
	foreach(lc, stmt->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "strict") == 0)
			strict = defGetBoolean(def);
		else
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\" for IMPORT FOREIGN SCHEMA", def->defname),
					 errhint("Valid options are: strict.")));
	}
	if (warehouse == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("server \"%s\" has no \"warehouse\" option", server->servername),
				 errhint("IMPORT FOREIGN SCHEMA reads <warehouse>/<database>.db/.")));
	if (strchr(stmt->remote_schema, '/') || strcmp(stmt->remote_schema, "..") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_SCHEMA_NOT_FOUND),
				 errmsg("invalid Paimon database name \"%s\"", stmt->remote_schema)));
	dbdir = psprintf("%s/%s.db", warehouse, stmt->remote_schema);
	if (!ts_path_is_dir(dbdir))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_SCHEMA_NOT_FOUND),
				 errmsg("Paimon database \"%s\" does not exist", stmt->remote_schema),
				 errdetail("Directory \"%s\" was not found.", dbdir)));
	if (!ts_list_tables(dbdir, &names, &ntables, &err))
		tablescan_report(&err);

	for (int t = 0; t < ntables; t++)
	{
		char	   *table_dir;
		ts_schema  *schema;
		StringInfoData buf;

		if (!table_selected(stmt, names[t]))
			continue;
		table_dir = psprintf("%s/%s", dbdir, names[t]);
		schema = load_latest_schema(table_dir);

		initStringInfo(&buf);
		appendStringInfo(&buf, "CREATE FOREIGN TABLE %s.%s (\n",
						 quote_identifier(stmt->local_schema), quote_identifier(names[t]));
		for (int i = 0; i < schema->nfields; i++)
		{
			const ts_field *f = &schema->fields[i];
			char	   *pgtype = tablescan_pg_type_name(f->type);

			if (pgtype == NULL)
			{
				if (strict)
					ereport(ERROR,
							(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
							 errmsg("column \"%s\" of Paimon table \"%s.%s\" has type %s, which has no PostgreSQL mapping",
									f->name, stmt->remote_schema, names[t],
									ts_type_to_string(f->type)),
							 errhint("Use IMPORT FOREIGN SCHEMA ... OPTIONS (strict 'false') to import it as text, or LIMIT TO / EXCEPT.")));
				pgtype = "text";
			}
			appendStringInfo(&buf, "%s  %s %s%s", i ? ",\n" : "", quote_identifier(f->name),
							 pgtype, f->type->nullable ? "" : " NOT NULL");
		}
		appendStringInfo(&buf, "\n) SERVER %s OPTIONS (database %s, \"table\" %s)",
						 quote_identifier(server->servername),
						 quote_literal_cstr(stmt->remote_schema), quote_literal_cstr(names[t]));
		commands = lappend(commands, buf.data);
	}
	return commands;
}
