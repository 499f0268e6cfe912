/*
 * import.c - IMPORT FOREIGN SCHEMA over <warehouse>/<database>.db/.
 *
 * Owns: listing the tables of a Paimon database, honouring LIMIT TO /
 * EXCEPT, and writing one CREATE FOREIGN TABLE per table with columns typed
 * by the README's mapping (NOT NULL kept), with the table's comment and
 * its fields' descriptions as COMMENT ON.  It runs those statements itself
 * (SPI) and hands PostgreSQL none: IMPORT accepts only CREATE FOREIGN TABLE
 * statements back.  An unmappable column is an
 * error naming it, unless the import option strict 'false' maps it to
 * text.  A table whose metadata cannot be read is left out with a WARNING
 * naming it; the others are imported.
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "tablescan_fdw.h"
#include "base/ts_type_class.h"
#include "scan/format_plan.h"
#include "scan/format_table.h"

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
load_latest_schema(ts_fs *fs, const char *table_dir, const char *qualified)
{
	ts_err		err = {0};
	int64_t    *ids;
	int			n;
	ts_schema  *s;

	if (!ts_schema_list_ids(fs, table_dir, &ids, &n, &err))
		tablescan_report(&err);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("Paimon table \"%s\" has no schema file", qualified)));
	/* errors about the schema name the table, not its file (a role may not see the warehouse) */
	s = ts_schema_load_as(fs, table_dir, ids[n - 1], psprintf("Paimon table \"%s\"", qualified), &err);
	if (s == NULL)
		tablescan_report(&err);
	return s;
}

/*
 * Whether the file readers decode values of this type: not VARIANT,
 * GEOMETRY or GEOGRAPHY, at any depth.
 */
static bool
type_readable(const ts_type *t)
{
	if (t == NULL)
		return true;
	if (!ts_type_class_of(t->kind)->readable)
		return false;
	if (!type_readable(t->element) || !type_readable(t->key) || !type_readable(t->value))
		return false;
	for (int i = 0; i < t->nfields; i++)
		if (!type_readable(t->fields[i].type))
			return false;
	return true;
}

/*
 * The column list of a CREATE statement for a Paimon schema.  Under strict
 * 'false' an unmapped type is imported as text (its values' text form);
 * a column no reader decodes is left out with a WARNING naming it, so
 * that every imported column can be read.
 */
static char *
column_list(const ts_schema *schema, const char *qualified, bool strict)
{
	StringInfoData buf;
	int			ncols = 0;

	initStringInfo(&buf);
	for (int i = 0; i < schema->nfields; i++)
	{
		const ts_field *f = &schema->fields[i];
		bool		readable = type_readable(f->type);
		char	   *pgtype = readable ? tablescan_pg_type_name(f->type) : NULL;

		if (pgtype == NULL)
		{
			if (strict)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
						 errmsg("column \"%s\" of Paimon table \"%s\" has type %s, which has no PostgreSQL mapping",
								f->name, qualified, ts_type_to_string(f->type)),
						 errhint("Use IMPORT FOREIGN SCHEMA ... OPTIONS (strict 'false') to import it as text, or LIMIT TO / EXCEPT.")));
			if (!readable)
			{
				ereport(WARNING,
						(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
						 errmsg("column \"%s\" of Paimon table \"%s\" left out: values of type %s cannot be read",
								f->name, qualified, ts_type_to_string(f->type))));
				continue;
			}
			pgtype = "text";
		}
		appendStringInfo(&buf, "%s  %s %s%s", ncols++ ? ",\n" : "", quote_identifier(f->name),
						 pgtype, f->type->nullable ? "" : " NOT NULL");
	}
	return buf.data;
}

/*
 * Name of a partition table: <table>_<v1>[_<v2>...], values reduced to
 * [a-z0-9_] (NULL as "null"); when that changed a value, or the name is
 * longer than NAMEDATALEN allows, 8 hex digits of a hash of the exact
 * values keep names distinct.
 */
static char *
partition_table_name(const char *table, char **values, int nvalues)
{
	StringInfoData buf;
	StringInfoData raw;
	bool		changed = false;

	initStringInfo(&buf);
	initStringInfo(&raw);
	appendStringInfoString(&buf, table);
	for (int k = 0; k < nvalues; k++)
	{
		appendStringInfoChar(&buf, '_');
		appendStringInfo(&raw, "%s%c", values[k] ? values[k] : "\x01null", 0x02);
		if (values[k] == NULL)
		{
			appendStringInfoString(&buf, "null");
			continue;
		}
		for (const char *c = values[k]; *c; c++)
		{
			if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')
				appendStringInfoChar(&buf, *c);
			else
			{
				appendStringInfoChar(&buf, '_');
				changed = true;
			}
		}
		if (values[k][0] == '\0')
			changed = true;
	}
	if (changed || buf.len > NAMEDATALEN - 1)
	{
		uint32		h = hash_bytes((const unsigned char *) raw.data, raw.len);

		if (buf.len > NAMEDATALEN - 10)
			buf.len = NAMEDATALEN - 10, buf.data[buf.len] = '\0';
		appendStringInfo(&buf, "_%08x", h);
	}
	return buf.data;
}

static bool
relation_exists(const char *schema, const char *name)
{
	char	   *q = psprintf("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
							 "WHERE n.nspname = %s AND c.relname = %s",
							 quote_literal_cstr(schema), quote_literal_cstr(name));

	if (SPI_execute(q, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up relation \"%s\"", name);
	return SPI_processed > 0;
}

static void
spi_exec(const char *sql)
{
	if (SPI_execute(sql, false, 0) < 0)
		elog(ERROR, "could not run \"%s\"", sql);
}

/*
 * IMPORT ... OPTIONS (import_partitions 'true') for a format table: a
 * PostgreSQL partitioned table of the table's name, LIST-partitioned by
 * the first partition key (sub-partitioned per further key), whose leaves
 * are foreign tables each reading one partition (option partition_filter),
 * so PostgreSQL's partition pruning and ours agree.  Partitions that exist
 * already are kept; new partition directories are added; nothing is
 * dropped.  Returns the number of foreign tables created.
 */
static int
import_format_partitions(ImportForeignSchemaStmt *stmt, ForeignServer *server,
						 const char *table_dir, const char *table, const ts_schema *schema,
						 bool strict, bool rest, const ts_fs_scope *scope,
						 const ts_fs_settings *settings)
{
	ts_scan_context ctx;
	ts_err		err = {0};
	ts_plan    *plan;
	ts_ft_listing *l;
	const char *nsp = stmt->local_schema;
	char	   *qualified = psprintf("%s.%s", stmt->remote_schema, table);
	int			created = 0;

	memset(&ctx, 0, sizeof(ctx));
	if (rest)
	{
		/* the location, schema and data token from the catalog */
		TsTableOptions *o = palloc0(sizeof(TsTableOptions));

		o->strict = strict;
		o->parallel_workers = -1;
		tablescan_rest_resolve(server, stmt->remote_schema, table, o);
		o->fs_scope = tablescan_role_reads_server_files(GetUserId()) ? NULL :
			tablescan_make_scope(list_make1(o->table_path));
		tablescan_make_context(o, &ctx);
	}
	else
	{
		ctx.table_path = table_dir;
		ctx.fs_scope = scope;
		ctx.s3 = settings->s3;
		ctx.azure = settings->azure;
	}
	ctx.limit = -1;
	plan = ts_scan_prepare(&ctx, &err);
	if (plan == NULL)
		tablescan_report(&err);
	/* a catalog's partitions, the file system's when it does not list them (501) */
	l = rest ? tablescan_rest_format_partitions(server, stmt->remote_schema, table, plan, &ctx) : NULL;
	if (l == NULL)
		l = ts_format_plan_partitions(plan, &ctx, &err);
	if (l == NULL)
		tablescan_report(&err);
	if (l->nkeys == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("format table \"%s\" has no partition keys to import partitions for",
						qualified)));

	SPI_connect();
	if (!relation_exists(nsp, table))
		spi_exec(psprintf("CREATE TABLE %s.%s (\n%s\n) PARTITION BY LIST (%s)",
						  quote_identifier(nsp), quote_identifier(table),
						  column_list(schema, qualified, strict),
						  quote_identifier(l->key_names[0])));
	for (int p = 0; p < l->npartitions; p++)
	{
		const ts_ft_partition *part = &l->partitions[p];
		char	   *parent = pstrdup(table);

		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < l->nkeys; k++)
		{
			char	   *name = partition_table_name(table, part->values, k + 1);
			char	   *bound = part->values[k] ? quote_literal_cstr(part->values[k]) : "NULL";
			bool		leaf = k == l->nkeys - 1;

			if (!relation_exists(nsp, name))
			{
				if (!leaf)
					spi_exec(psprintf("CREATE TABLE %s.%s PARTITION OF %s.%s FOR VALUES IN (%s) "
									  "PARTITION BY LIST (%s)",
									  quote_identifier(nsp), quote_identifier(name),
									  quote_identifier(nsp), quote_identifier(parent), bound,
									  quote_identifier(l->key_names[k + 1])));
				else
				{
					StringInfoData filter;

					initStringInfo(&filter);
					appendStringInfoString(&filter, "[{");
					for (int j = 0; j < l->nkeys; j++)
					{
						if (j)
							appendStringInfoChar(&filter, ',');
						escape_json(&filter, l->key_names[j]);
						appendStringInfoChar(&filter, ':');
						escape_json(&filter, part->values[j] ? part->values[j] : l->default_name);
					}
					appendStringInfoString(&filter, "}]");
					spi_exec(psprintf("CREATE FOREIGN TABLE %s.%s PARTITION OF %s.%s FOR VALUES IN (%s) "
									  "SERVER %s OPTIONS (database %s, \"table\" %s, partition_filter %s)",
									  quote_identifier(nsp), quote_identifier(name),
									  quote_identifier(nsp), quote_identifier(parent), bound,
									  quote_identifier(server->servername),
									  quote_literal_cstr(stmt->remote_schema),
									  quote_literal_cstr(table), quote_literal_cstr(filter.data)));
					created++;
				}
			}
			parent = name;
		}
	}
	SPI_finish();
	ts_ft_listing_free(l);
	ts_plan_free(plan);
	return created;
}

/* COMMENT ON statements for the table's comment and its fields' descriptions */
static void
append_comments(List **commands, const char *nsp, const char *table, const ts_schema *schema)
{
	char	   *rel = psprintf("%s.%s", quote_identifier(nsp), quote_identifier(table));

	if (schema->comment && schema->comment[0])
		*commands = lappend(*commands, psprintf("COMMENT ON FOREIGN TABLE %s IS %s", rel,
												quote_literal_cstr(schema->comment)));
	for (int i = 0; i < schema->nfields; i++)
		if (schema->fields[i].description && schema->fields[i].description[0])
			*commands = lappend(*commands,
								psprintf("COMMENT ON COLUMN %s.%s IS %s", rel,
										 quote_identifier(schema->fields[i].name),
										 quote_literal_cstr(schema->fields[i].description)));
}

/*
 * Run fn for one table in a subtransaction: an error reading its metadata
 * becomes a WARNING naming the table (the import goes on with the others),
 * with the files it opened closed by the subtransaction's abort.  A cancel,
 * refused credentials (28000 / 42501: the server's, not the table's),
 * and under strict an unmappable column or a type name this reader does not
 * know (the same HV004, so both end the IMPORT), stay errors; with strict
 * 'false' a table with an unknown type is left out with the WARNING.
 */
typedef void (*import_one_fn) (void *arg);

static bool
import_guarded(const char *qualified, bool strict, import_one_fn fn, void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *prefix;
		const char *msg;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		/*
		 * Rethrown only after the subtransaction is rolled back: thrown from
		 * inside it, the error would leave the session's transaction aborted
		 * (every later statement "current transaction is aborted").
		 */
		if (edata->sqlerrcode == ERRCODE_FDW_INVALID_DATA_TYPE && strict)
		{
			if (edata->hint == NULL)
				edata->hint = pstrdup("Use IMPORT FOREIGN SCHEMA ... OPTIONS (strict 'false') to leave the table out, or LIMIT TO / EXCEPT.");
			ReThrowError(edata);
		}
		/*
		 * Refused credentials (a 401/403 of the store or the catalog) are
		 * about the server and the user mapping, not this table: they end
		 * the IMPORT rather than leave every table out with a WARNING.
		 */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_OUT_OF_MEMORY ||
			edata->sqlerrcode == ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION ||
			edata->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE)
			ReThrowError(edata);
		/* "Paimon table "x": what" (about its schema file's content): the table said once */
		prefix = psprintf("Paimon table \"%s\": ", qualified);
		msg = edata->message;
		if (strncmp(msg, prefix, strlen(prefix)) == 0)
			msg = psprintf("its schema file: %s", msg + strlen(prefix));
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("Paimon table \"%s\" was not imported: %s", qualified, msg),
				 edata->detail ? errdetail("%s", edata->detail) : 0));
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

typedef struct ImportOne
{
	ImportForeignSchemaStmt *stmt;
	ForeignServer *server;
	const char *table;
	const char *table_dir;
	bool		strict;
	bool		import_partitions;
	bool		rest;			/* the schema comes from the server's REST catalog */
	/* a filesystem catalog: the warehouse's file system, and what it was built from */
	ts_fs	   *fs;
	const ts_fs_scope *scope;
	const ts_fs_settings *settings;
	List	   *commands;		/* appended to */
} ImportOne;

static void
import_one(void *arg)
{
	ImportOne  *one = arg;
	ImportForeignSchemaStmt *stmt = one->stmt;
	ts_schema  *schema = one->rest ?
		tablescan_rest_table_schema(one->server, stmt->remote_schema, one->table) :
		load_latest_schema(one->fs, one->table_dir, psprintf("%s.%s", stmt->remote_schema, one->table));
	StringInfoData buf;

	if (one->import_partitions)
	{
		const char *type = ts_schema_option(schema, TS_OPT_TYPE);

		if (type && strcmp(type, "format-table") == 0 && schema->npartition_keys > 0)
		{
			import_format_partitions(stmt, one->server, one->table_dir, one->table, schema,
									 one->strict, one->rest, one->scope, one->settings);
			return;
		}
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "CREATE FOREIGN TABLE %s.%s (\n%s",
					 quote_identifier(stmt->local_schema), quote_identifier(one->table),
					 column_list(schema, psprintf("%s.%s", stmt->remote_schema, one->table),
								 one->strict));
	appendStringInfo(&buf, "\n) SERVER %s OPTIONS (database %s, \"table\" %s)",
					 quote_identifier(one->server->servername),
					 quote_literal_cstr(stmt->remote_schema), quote_literal_cstr(one->table));
	one->commands = lappend(one->commands, buf.data);
	append_comments(&one->commands, stmt->local_schema, one->table, schema);
}

/* Run the statements of one table, outside the guard ("already exists" stays an error). */
static void
run_commands(List *commands)
{
	ListCell   *c;

	SPI_connect();
	foreach(c, commands)
		spi_exec(lfirst(c));
	SPI_finish();
}

/* IMPORT from a REST catalog: its list of tables, each one's schema from it. */
static List *
import_from_catalog(ImportForeignSchemaStmt *stmt, ForeignServer *server, bool strict,
					bool import_partitions)
{
	int			ntables;
	char	  **names;

	names = tablescan_rest_list_tables(server, stmt->remote_schema, &ntables);
	for (int t = 0; t < ntables; t++)
	{
		ImportOne	one = {0};

		if (!table_selected(stmt, names[t]))
			continue;
		one.stmt = stmt;
		one.server = server;
		one.table = names[t];
		one.strict = strict;
		one.import_partitions = import_partitions;
		one.rest = true;
		if (import_guarded(psprintf("%s.%s", stmt->remote_schema, names[t]), strict, import_one, &one))
			run_commands(one.commands);
	}
	return NIL;
}

List *
tablescanImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	ForeignServer *server = GetForeignServer(serverOid);
	char	   *warehouse = NULL;
	bool		strict = true;
	bool		import_partitions = false;
	char	   *dbdir;
	char	  **names;
	int			ntables;
	ts_err		err = {0};
	ListCell   *lc;
	ts_fs_scope *scope;
	ts_fs_settings settings = {0};
	ts_fs	   *fs;

	warehouse = (char *) tablescan_server_option(server, "warehouse");
	if (tablescan_server_option(server, "strict") != NULL)
		strict = tablescan_option_bool(tablescan_server_option(server, "strict"));
	foreach(lc, stmt->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "strict") == 0)
			strict = defGetBoolean(def);
		else if (strcmp(def->defname, "import_partitions") == 0)
			import_partitions = defGetBoolean(def);
		else
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\" for IMPORT FOREIGN SCHEMA", def->defname),
					 errhint("Valid options are: strict, import_partitions.")));
	}
	if (tablescan_server_is_rest(server))
		return import_from_catalog(stmt, server, strict, import_partitions);
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
	/* what the role may read: the warehouse (everything, with pg_read_server_files) */
	scope = tablescan_role_reads_server_files(GetUserId()) ? NULL :
		tablescan_make_scope(list_make1(warehouse));
	settings.s3 = tablescan_storage_config(server, NULL, warehouse);
	settings.azure = tablescan_storage_azure_config(server, NULL, warehouse);
	fs = ts_fs_open_for(warehouse, &settings, scope, &err);
	if (fs == NULL)
		tablescan_report(&err);
	/* an object store has no directories: its listing below reports what is wrong */
	if (!ts_fs_path_is_remote(fs, dbdir) && !ts_path_is_dir(fs, dbdir))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_SCHEMA_NOT_FOUND),
				 errmsg("Paimon database \"%s\" does not exist", stmt->remote_schema),
				 errdetail("Directory \"%s\" was not found.", dbdir)));
	if (!ts_list_tables(fs, dbdir, &names, &ntables, &err))
		tablescan_report(&err);

	for (int t = 0; t < ntables; t++)
	{
		ImportOne	one;

		if (!table_selected(stmt, names[t]))
			continue;
		one.stmt = stmt;
		one.server = server;
		one.table = names[t];
		one.table_dir = psprintf("%s/%s", dbdir, names[t]);
		one.strict = strict;
		one.import_partitions = import_partitions;
		one.rest = false;
		one.fs = fs;
		one.scope = scope;
		one.settings = &settings;
		one.commands = NIL;
		if (import_guarded(psprintf("%s.%s", stmt->remote_schema, names[t]), strict, import_one, &one))
			run_commands(one.commands);
	}
	return NIL;
}
