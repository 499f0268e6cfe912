/*
 * table_options.c - one foreign table's options, merged for a scan.
 *
 * Owns: merging the server's and the table's options with the per-query
 * GUC tablescan.scan_options (its value, its check hook, its "k=v,k=v"
 * list) into one TsTableOptions, read as the role a scan checks access as
 * (a view's owner); the table's location (inside its warehouse) and the
 * schema of a format table declared by options; the file scope of that
 * role (tablescan_make_scope).  Which options are valid, and their
 * values, are options.c's (options_internal.h).
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "scan/format_plan.h"
#include "tablescan_fdw.h"
#include "options_internal.h"

/* Per-query Paimon options, "k=v,k=v" (GUC tablescan.scan_options). */
char	   *tablescan_scan_options = NULL;

/*
 * Append a "k=v,k=v" list (the scan_options GUC) to the Paimon options,
 * checking names and values (at_use: also the privilege of path keys, and
 * no NOTICEs, which the check hook gave when the list was set).
 */
static void
add_guc_options(TsTableOptions *o, const char *text, bool at_use)
{
	char	   *copy = pstrdup(text);
	char	   *save = NULL;
	int			added = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		char	   *eq = strchr(tok, '=');
		char	   *k,
				   *v;

		if (eq == NULL && o->paimon_values != NIL && added > 0)
		{
			/* "k=a,b": a value with a comma continues the previous entry */
			ListCell   *last = list_tail(o->paimon_values);

			lfirst(last) = psprintf("%s,%s", (char *) lfirst(last), tok);
			continue;
		}
		if (eq == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid entry \"%s\" in tablescan.scan_options", tok),
					 errhint("Use key=value pairs separated by commas.")));
		*eq = '\0';
		k = pstrdup(tok);
		v = pstrdup(eq + 1);
		/* trim spaces */
		while (*k == ' ')
			k++;
		for (char *e = k + strlen(k); e > k && e[-1] == ' '; e--)
			e[-1] = '\0';
		while (*v == ' ')
			v++;
		for (char *e = v + strlen(v); e > v && e[-1] == ' '; e--)
			e[-1] = '\0';
		o->paimon_keys = lappend(o->paimon_keys, k);
		o->paimon_values = lappend(o->paimon_values, v);
		added++;
	}
	/* check the values once continuations are joined */
	for (int i = list_length(o->paimon_keys) - added; i < list_length(o->paimon_keys); i++)
	{
		const char *k = list_nth(o->paimon_keys, i);

		tablescan_check_value_chars(k, list_nth(o->paimon_values, i), InvalidOid);
		tablescan_storage_check_option(k, list_nth(o->paimon_values, i), InvalidOid);
		if (at_use && tablescan_is_path_key(k))
			tablescan_check_path_privilege(k);
		/* FDW options, and the server's catalog keys (warehouse, uri), act only where set */
		if ((tablescan_is_fdw_option(k, ForeignTableRelationId) || tablescan_is_fdw_option(k, ForeignServerRelationId)) &&
			(tablescan_user_option(k) == NULL || !tablescan_is_fdw_option(k, ForeignTableRelationId)))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("option \"%s\" cannot be set in tablescan.scan_options", k),
					 errhint("tablescan.scan_options takes Paimon options; set \"%s\" on the server or foreign table.", k)));
		tablescan_check_option_value(k, list_nth(o->paimon_values, i), InvalidOid, !at_use);
	}
}

/*
 * Check hook of tablescan.scan_options: a misspelt key or a bad value is
 * refused by SET itself (the same checks as CREATE FOREIGN TABLE), not at
 * the next query.  The checks ereport; their error becomes the GUC's.
 */
bool
tablescan_check_scan_options(char **newval, void **extra, GucSource source)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile bool ok = true;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	PG_TRY();
	{
		TsTableOptions o;

		memset(&o, 0, sizeof(o));
		add_guc_options(&o, *newval, false);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		GUC_check_errcode(edata->sqlerrcode);
		GUC_check_errmsg("%s", edata->message);
		if (edata->detail)
			GUC_check_errdetail("%s", edata->detail);
		if (edata->hint)
			GUC_check_errhint("%s", edata->hint);
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

static void
apply_option(TsTableOptions *o, DefElem *def, char **warehouse, char **database,
			 char **table, char **path, char **branch)
{
	const char *name = def->defname;
	char	   *value = defGetString(def);

	if (strcmp(name, "warehouse") == 0)
		*warehouse = tablescan_location_without_trailing_slash(value);
	else if (strcmp(name, "database") == 0)
		*database = value;
	else if (strcmp(name, "table") == 0)
		*table = value;
	else if (strcmp(name, "path") == 0)
		*path = tablescan_location_without_trailing_slash(value);
	else if (strcmp(name, "branch") == 0)
		*branch = value;
	else if (strcmp(name, "partition_filter") == 0)
		o->partition_filter = value;
	else if (strcmp(name, "bucket_filter") == 0)
	{
		o->has_bucket_filter = true;
		o->bucket_filter = pg_strtoint32(value);
	}
	else if (strcmp(name, "scan.shard") == 0)
		(void) ts_shard_parse(value, &o->shard_k, &o->shard_n);
	else if (strcmp(name, "table_schema") == 0)
		o->table_schema = value;
	else if (strcmp(name, "format") == 0)
		o->format = value;
	else if (strcmp(name, "partition_keys") == 0)
		o->partition_keys = value;
	else if (strcmp(name, "strict") == 0)
		o->strict = tablescan_option_bool(value);
	else if (strcmp(name, "cache") == 0)
		o->cache = tablescan_option_bool(value);
	else if (strcmp(name, "parallel_workers") == 0)
		o->parallel_workers = pg_strtoint32(value);
	else if (strcmp(name, "catalog") == 0 || strcmp(name, "uri") == 0)
		;						/* the server's catalog: rest.c reads them */
	else if (strcmp(name, "updatable") == 0 || strcmp(name, "batch_size") == 0)
		;						/* writes: modify.c reads them */
	else if (tablescan_storage_is_key(name))
		;						/* object store settings: storage_options.c */
	else
	{
		o->paimon_keys = lappend(o->paimon_keys, pstrdup(name));
		o->paimon_values = lappend(o->paimon_values, value);
	}
}

/* The schema JSON of a format table declared by options format / partition_keys. */
static char *
format_table_schema(Oid foreigntableid, const char *format, const char *partition_keys)
{
	Relation	rel = table_open(foreigntableid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	const char **names = palloc(sizeof(char *) * Max(desc->natts, 1));
	const char **types = palloc(sizeof(char *) * Max(desc->natts, 1));
	int			n = 0;
	ts_err		err = {0};
	char	   *json;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		List	   *colopts;
		ListCell   *lc;

		if (att->attisdropped)
			continue;
		names[n] = NameStr(att->attname);
		colopts = GetForeignColumnOptions(foreigntableid, i + 1);
		foreach(lc, colopts)
			if (strcmp(((DefElem *) lfirst(lc))->defname, "column_name") == 0)
				names[n] = defGetString(lfirst(lc));
		types[n] = tablescan_paimon_type_name(att);
		n++;
	}
	table_close(rel, AccessShareLock);
	json = ts_format_table_schema_json(n, names, types, partition_keys, format, &err);
	if (json == NULL)
		tablescan_report(&err);
	return json;
}

/*
 * A table named by database + table must resolve to a directory inside the
 * warehouse: a symbolic link leading elsewhere would let a role without
 * pg_read_server_files read files the server's owner never exposed.
 */
static void
check_inside_warehouse(const char *warehouse, const char *table_path, Oid foreigntableid)
{
	char		wh[PATH_MAX];
	char		tp[PATH_MAX];
	size_t		n;

	if (realpath(warehouse, wh) == NULL || realpath(table_path, tp) == NULL)
		return;					/* missing: the scan reports it */
	n = strlen(wh);
	if (strncmp(tp, wh, n) != 0 || (tp[n] != '/' && !(n == 1 && wh[0] == '/')))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("table of foreign table \"%s\" resolves outside the warehouse",
						get_rel_name(foreigntableid)),
				 errdetail("\"%s\" is \"%s\", which is not inside \"%s\".", table_path, tp, wh),
				 errhint("Use option path (which needs pg_read_server_files) for tables outside the warehouse.")));
}

ts_fs_scope *
tablescan_make_scope(List *roots)
{
	ts_fs_scope *scope = palloc0(sizeof(ts_fs_scope));
	const char **arr = palloc(sizeof(char *) * Max(list_length(roots), 1));
	ts_err		err = {0};
	int			n = 0;
	ListCell   *lc;

	foreach(lc, roots)
		arr[n++] = lfirst(lc);
	if (!ts_fs_scope_make(scope, arr, n, &err))
		tablescan_report(&err);
	return scope;
}

/*
 * What a role without pg_read_server_files may make the scan read: the
 * table's directory, and the external roots that SERVER and FOREIGN TABLE
 * options declare (only privileged roles can set those).
 */
static ts_fs_scope *
table_scope(const char *table_path, ForeignServer *server, ForeignTable *ft)
{
	List	   *roots = list_make1((char *) table_path);
	List	   *both = list_concat(list_copy(server->options), ft->options);
	ListCell   *lc;

	if (tablescan_role_reads_server_files(GetUserId()))
		return NULL;
	foreach(lc, both)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "external-path-map") == 0)
			tablescan_check_path_map(def->defname, defGetString(def), &roots);
	}
	return tablescan_make_scope(roots);
}

TsTableOptions *
tablescan_get_options_as(Oid foreigntableid, Oid userid)
{
	Oid			previous = tablescan_set_mapping_user(userid);
	TsTableOptions *o;

	PG_TRY();
	{
		o = tablescan_get_options(foreigntableid);
	}
	PG_FINALLY();
	{
		tablescan_set_mapping_user(previous);
	}
	PG_END_TRY();
	return o;
}

Oid
tablescan_scan_user(EState *estate, Index rtindex)
{
	RangeTblEntry *rte = exec_rt_fetch(rtindex, estate);

	return OidIsValid(rte->checkAsUser) ? rte->checkAsUser : InvalidOid;
}

TsTableOptions *
tablescan_get_options(Oid foreigntableid)
{
	ForeignTable *ft = GetForeignTable(foreigntableid);
	ForeignServer *server = GetForeignServer(ft->serverid);
	TsTableOptions *o = palloc0(sizeof(TsTableOptions));
	char	   *warehouse = NULL,
			   *database = NULL,
			   *table = NULL,
			   *path = NULL,
			   *branch = NULL;
	ListCell   *lc;

	o->strict = true;
	o->cache = true;
	o->parallel_workers = -1;
	foreach(lc, server->options)
		apply_option(o, lfirst(lc), &warehouse, &database, &table, &path, &branch);
	foreach(lc, ft->options)
		apply_option(o, lfirst(lc), &warehouse, &database, &table, &path, &branch);
	if (tablescan_scan_options && tablescan_scan_options[0])
		add_guc_options(o, tablescan_scan_options, true);
	if (branch)
	{
		o->paimon_keys = lappend(o->paimon_keys, pstrdup("branch"));
		o->paimon_values = lappend(o->paimon_values, branch);
	}

	if (o->partition_keys && !o->format)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("option \"partition_keys\" needs option \"format\""),
				 errhint("Declare a format table with format 'csv', 'json', 'parquet', 'orc' or 'text'.")));
	if (o->format)
	{
		if (o->table_schema)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("options \"format\" and \"table_schema\" cannot be used together")));
		o->table_schema = format_table_schema(foreigntableid, o->format, o->partition_keys);
	}
	if (path)
	{
		o->table_path = path;
		o->qualified_name = path;
	}
	else if (database && table && tablescan_server_is_rest(server))
	{
		tablescan_check_name_component("database", database);
		tablescan_check_name_component("table", table);
		tablescan_rest_resolve(server, database, table, o);
	}
	else if (database && table)
	{
		if (warehouse == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
					 errmsg("foreign table \"%s\" names a database and table but its server has no \"warehouse\" option",
							get_rel_name(foreigntableid))));
		tablescan_check_name_component("database", database);
		tablescan_check_name_component("table", table);
		o->table_path = psprintf("%s/%s.db/%s", warehouse, database, table);
		check_inside_warehouse(warehouse, o->table_path, foreigntableid);
		o->qualified_name = psprintf("%s.%s", database, table);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("foreign table \"%s\" needs option \"path\", or \"database\" and \"table\"",
						get_rel_name(foreigntableid))));
	o->fs_scope = table_scope(o->table_path, server, ft);
	if (o->s3 == NULL)			/* a REST catalog's table has its own (rest.c) */
		o->s3 = tablescan_storage_config(server, ft, o->table_path);
	o->azure = tablescan_storage_azure_config(server, ft, o->table_path);
	tablescan_changes_adjust_options(foreigntableid, o);	/* changes.c */
	return o;
}
