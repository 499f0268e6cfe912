/*
 * options.c - the option table and the validator.
 *
 * Owns: which options are valid where (as data, like file_fdw), checking
 * them at CREATE/ALTER time (names neither Paimon nor we define are refused
 * with the closest valid one, path options need pg_read_server_files, no
 * value holds a URL with credentials or a control character), and the
 * accessors through which the rest of src/fdw reads an FDW option
 * (tablescan_server_option / _table_option / _mapping_option: only names
 * this validator accepts in that catalog).  Merging them for a scan is
 * table_options.c's, through the checks options_internal.h lends it.
 */
#include "postgres.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>

#include "access/reloptions.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "postmaster/bgworker_internals.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include <cjson/cJSON.h>

#include "base/ts_azure.h"
#include "tablescan_fdw.h"
#include "options_internal.h"

typedef struct TsOption
{
	const char *name;
	Oid			context;		/* catalog the option may appear in */
} TsOption;

/* FDW-level options; Paimon options pass through by their own keys. */
static const TsOption valid_options[] = {
	{"warehouse", ForeignServerRelationId},
	{"path", ForeignTableRelationId},
	{"database", ForeignTableRelationId},
	{"table", ForeignTableRelationId},
	{"bucket_filter", ForeignTableRelationId},
	{"scan.shard", ForeignTableRelationId},
	{"partition_filter", ForeignTableRelationId},
	{"table_schema", ForeignTableRelationId},
	{"format", ForeignTableRelationId},
	{"partition_keys", ForeignTableRelationId},
	{"branch", ForeignServerRelationId},
	{"branch", ForeignTableRelationId},
	{"cache", ForeignServerRelationId},
	{"cache", ForeignTableRelationId},
	{"strict", ForeignServerRelationId},
	{"parallel_workers", ForeignServerRelationId},
	{"parallel_workers", ForeignTableRelationId},
	{"column_name", AttributeRelationId},
	{"catalog", ForeignServerRelationId},
	{"uri", ForeignServerRelationId},
	{"token", UserMappingRelationId},
	{"updatable", ForeignServerRelationId},
	{"updatable", ForeignTableRelationId},
	{"batch_size", ForeignServerRelationId},
	{"batch_size", ForeignTableRelationId},
	{NULL, InvalidOid}
};

bool
tablescan_is_fdw_option(const char *name, Oid context)
{
	for (const TsOption *o = valid_options; o->name; o++)
		if (o->context == context && strcmp(o->name, name) == 0)
			return true;
	return false;
}

/*
 * The registry's entry of a key a user may give: NULL for a key Paimon does
 * not define, and for one only the extension sets (TS_OPTF_INTERNAL).
 */
const ts_core_option *
tablescan_user_option(const char *name)
{
	const ts_core_option *o = ts_core_option_find(name);

	return o != NULL && !(o->flags & TS_OPTF_INTERNAL) ? o : NULL;
}

/*
 * A name is valid where it is an FDW option of that catalog; in SERVER and
 * FOREIGN TABLE options also as a key of the Paimon option registry; in a
 * USER MAPPING also as a registry secret (s3.secret-key...).  Nothing else
 * passes: a key no Paimon class and not this extension defines would be
 * ignored, and a misspelt scan.snapshot-id would read the latest rows.
 */
static bool
is_valid_option(const char *name, Oid context)
{
	const ts_core_option *o;

	if (tablescan_is_fdw_option(name, context))
		return true;
	if (context == AttributeRelationId)
		return false;
	for (const TsOption *f = valid_options; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return false;		/* an FDW option, in another catalog */
	o = tablescan_user_option(name);
	if (context == UserMappingRelationId)
		return o != NULL && (o->flags & TS_OPTF_SECRET) != 0;
	return o != NULL;
}

/* Is name an option of the registry or of this extension, in any catalog? */
static bool
is_known_option(const char *name)
{
	for (const TsOption *f = valid_options; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return true;
	return tablescan_user_option(name) != NULL;	/* object store keys included */
}

/* The hint listing the options valid in catalog context. */
static char *
valid_options_hint(Oid context)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const TsOption *o = valid_options; o->name; o++)
		if (o->context == context)
			appendStringInfo(&buf, "%s%s", buf.len > 0 ? ", " : "", o->name);
	if (buf.len == 0)
		return "There are no valid options in this context.";
	return psprintf("Valid options in this context are: %s%s", buf.data,
					context == AttributeRelationId ? "" :
					context == UserMappingRelationId ?
					", and object store secrets (e.g. \"s3.access-key\", \"s3.secret-key\")." :
					", and Paimon options by their own keys (e.g. \"scan.snapshot-id\").");
}

/*
 * A name neither Paimon nor tablescan_fdw defines, given in catalog context
 * (InvalidOid: tablescan.scan_options): ERROR with the closest name valid
 * there (the secrets, in a USER MAPPING).
 */
static void
unknown_option(const char *name, Oid context)
{
	const char *extra[lengthof(valid_options)];
	const char *closest;
	int			n = 0;

	for (const TsOption *o = valid_options; o->name; o++)
		if (o->context == context)
			extra[n++] = o->name;
	extra[n] = NULL;
	closest = ts_core_option_closest(name, context == UserMappingRelationId, extra);
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
			 errmsg("invalid option \"%s\"", name),
			 errdetail("Neither Paimon nor tablescan_fdw defines an option \"%s\".", name),
			 closest ? errhint("Perhaps you meant the option \"%s\".", closest) :
			 context != InvalidOid ? errhint("%s", valid_options_hint(context)) : 0));
}

/*
 * Where the FDW reads its own options outside this file (rest.c, import.c):
 * by these accessors only, each name checked to be one the validator
 * accepts in that catalog, so every option read is validated, documented
 * and privilege-checked here.  A name not registered is a bug of ours.
 */
static const char *
option_in(List *options, const char *name, Oid context)
{
	ListCell   *lc;

	if (!is_valid_option(name, context))
		elog(ERROR, "tablescan_fdw reads option \"%s\", which is not registered there", name);
	foreach(lc, options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

/*
 * A warehouse or path location without trailing slashes ("s3://b/wh/" ->
 * "s3://b/wh"; "/" stays), so names built under it have none doubled.
 */
char *
tablescan_location_without_trailing_slash(const char *value)
{
	size_t		len = strlen(value);

	while (len > 1 && value[len - 1] == '/' &&
		   !(len >= 3 && strncmp(value + len - 3, "://", 3) == 0))
		len--;
	return pnstrdup(value, len);
}

const char *
tablescan_server_option(ForeignServer *server, const char *name)
{
	const char *value = option_in(server->options, name, ForeignServerRelationId);

	/* a warehouse location as tablescan_get_options reads it (a REST catalog's is a name) */
	if (value && strcmp(name, "warehouse") == 0 && !tablescan_server_is_rest(server))
		return tablescan_location_without_trailing_slash(value);
	return value;
}

const char *
tablescan_table_option(ForeignTable *ft, const char *name)
{
	return option_in(ft->options, name, ForeignTableRelationId);
}

/*
 * A boolean option's value as the validator accepted it (parse_bool: "yes",
 * "on", "1"... too; defGetBoolean would refuse some of those at use).
 */
bool
tablescan_option_bool(const char *value)
{
	bool		b = false;

	if (!parse_bool(value, &b))
		elog(ERROR, "option value \"%s\" was not checked as a boolean", value);
	return b;
}

/* An option of the role's user mapping (else PUBLIC's); NULL if none or unset. */
const char *
tablescan_mapping_option(ForeignServer *server, const char *name)
{
	bool		found;

	return option_in(tablescan_user_mapping_options(server, &found), name, UserMappingRelationId);
}

/*
 * May roleid read the server's files (superuser or pg_read_server_files,
 * file_fdw's rule)?  Callers pass GetUserId() for options being set, or
 * tablescan_mapping_user() for what a scan reads with a user mapping's
 * credentials (a view's owner, as postgres_fdw).
 */
bool
tablescan_role_reads_server_files(Oid roleid)
{
	return superuser_arg(roleid) || has_privs_of_role(roleid, ROLE_PG_READ_SERVER_FILES);
}

void
tablescan_check_path_privilege(const char *option_name)
{
	if (!tablescan_role_reads_server_files(GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to set option \"%s\"", option_name),
				 errdetail("Only roles with privileges of the \"%s\" role may set options that name files.",
						   "pg_read_server_files")));
}

/*
 * Paimon keys whose value names or rewrites where files are read: setting
 * them needs the privilege of option "path" (as a FOREIGN TABLE or SERVER
 * option, in tablescan.scan_options, or in the options of a table_schema).
 */
bool
tablescan_is_path_key(const char *key)
{
	const ts_core_option *o = ts_core_option_find(key);

	/* warehouse and uri are server options checked by the validator itself */
	return o != NULL && (o->flags & TS_OPTF_PATH) != 0 &&
		strcmp(key, "warehouse") != 0 && strcmp(key, "uri") != 0;
}

/*
 * A URL with a user name or password in an option value: refused without
 * echoing the value, since server and foreign table options are readable by
 * every role (pg_foreign_server, pg_foreign_table).
 */
void
tablescan_refuse_url_userinfo(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\": a URL with a user name or password", name),
			 errhint("Put credentials in a USER MAPPING (\"token\", \"s3.access-key\" and \"s3.secret-key\"...), which only its user and superusers can read.")));
}

/*
 * Does value hold a URL with user information ("scheme://user:pw@host")?
 * Every "://" counts (external-path-map and lists hold several URLs).  The
 * Azure schemes name a container there ("abfs://container@account..."):
 * for them only a password (a ':' before the '@') counts.
 */
static bool
has_url_userinfo(const char *value)
{
	static const char *const azure[] = {"abfs", "abfss", "wasb", "wasbs", NULL};

	for (const char *sep = strstr(value, "://"); sep; sep = strstr(sep + 3, "://"))
	{
		const char *host = sep + 3;
		size_t		len = strcspn(host, "/?#;, \t");
		const char *at = memchr(host, '@', len);
		const char *scheme = sep;
		bool		container = false;

		if (at == NULL)
			continue;
		while (scheme > value && (isalnum((unsigned char) scheme[-1]) || scheme[-1] == '+' ||
								  scheme[-1] == '-' || scheme[-1] == '.'))
			scheme--;
		for (int i = 0; azure[i]; i++)
			if (sep - scheme == (ptrdiff_t) strlen(azure[i]) &&
				pg_strncasecmp(scheme, azure[i], sep - scheme) == 0)
				container = true;
		if (!container || memchr(host, ':', at - host) != NULL)
			return true;
	}
	return false;
}

/*
 * Values that may hold control characters: the delimiters of format tables
 * (a tab, a line break), JSON (table_schema, partition_filter: line breaks
 * between tokens) and a column's field name; none is sent anywhere.  Any
 * other value could reach an HTTP request line or header (a token, a key,
 * an endpoint, a name that becomes a URL path) and add one of its own.
 */
static bool
may_hold_control_chars(const char *name)
{
	const ts_core_option *o = ts_core_option_find(name);

	return strcmp(name, "table_schema") == 0 || strcmp(name, "partition_filter") == 0 ||
		strcmp(name, "column_name") == 0 || (o != NULL && (o->layers & TS_LAYER_FORMAT));
}

/*
 * What any option value of catalog context (InvalidOid: the scan_options
 * GUC) must not hold, checked before anything prints it: credentials in a
 * URL (outside a USER MAPPING), control characters.  Neither error shows
 * the value.
 */
void
tablescan_check_value_chars(const char *name, const char *value, Oid context)
{
	if (context != UserMappingRelationId && has_url_userinfo(value))
		tablescan_refuse_url_userinfo(name);
	if (may_hold_control_chars(name))
		return;
	for (const char *p = value; *p; p++)
		if ((unsigned char) *p < 0x20 || *p == 0x7f)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"%s\": it contains a control character", name),
					 errhint("Remove line breaks, tabs and other control characters from the value.")));
}

static void
invalid_value(const char *name, const char *value, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
			 errhint("%s", hint)));
}

/* "file:/x" and "file:///x" name /x */
static const char *
without_file_scheme(const char *p)
{
	if (pg_strncasecmp(p, "file:", 5) == 0)
	{
		p += 5;
		if (strncmp(p, "///", 3) == 0)
			p += 2;
	}
	return p;
}

/*
 * external-path-map: "FROM=>TO[;FROM2=>TO2]", each FROM a non-empty prefix,
 * each TO an absolute local path.  With targets != NULL, the TO paths are
 * appended to *targets.
 */
void
tablescan_check_path_map(const char *name, const char *value, List **targets)
{
	char	   *copy = pstrdup(value);
	char	   *save = NULL;
	int			n = 0;

	for (char *tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
	{
		char	   *arrow = strstr(tok, "=>");
		const char *to;

		if (arrow == NULL || arrow == tok || arrow[2] == '\0')
			invalid_value(name, value, "Give FROM=>TO pairs separated by ';', e.g. 'file:/tmp/ext=>/data/ext'.");
		*arrow = '\0';
		to = without_file_scheme(arrow + 2);
		if (ts_uri_is_object(to))
		{
			/* an object store prefix (s3://, s3a://, oss://): read with the table's store settings */
			ts_err		err = {0};
			char	   *bucket,
					   *key;

			if (!ts_s3_parse_uri(to, &bucket, &key, &err))
				invalid_value(name, value, "Each TO of FROM=>TO is an absolute local path or an s3://, s3a:// or oss:// URI.");
		}
		else if (ts_uri_is_azure(to))
		{
			/* an Azure prefix (abfs[s]://, wasb[s]://): read with the table's Azure settings */
			ts_azure_uri u;

			if (!ts_azure_parse_uri(to, &u, NULL))
				invalid_value(name, value, "Each TO of FROM=>TO is an absolute local path or an object store or Azure URI.");
			ts_azure_uri_free(&u);
		}
		else if (to[0] != '/')
			invalid_value(name, value, "Each TO of FROM=>TO is an absolute local path or an s3://, s3a:// or oss:// URI.");
		if (targets)
			*targets = lappend(*targets, pstrdup(to));
		n++;
	}
	if (n == 0)
		invalid_value(name, value, "Give FROM=>TO pairs separated by ';', e.g. 'file:/tmp/ext=>/data/ext'.");
}

/*
 * table_schema: a JSON object.  Its options may name paths (a format
 * table's "path", external paths): those need the privilege of option
 * "path", and so does declaring a format table by "type" in it, whose files
 * are found at such a path.
 */
static void
check_table_schema(const char *value)
{
	cJSON	   *root = cJSON_Parse(value);
	cJSON	   *opts;
	bool		names_path = false;

	if (root == NULL || !cJSON_IsObject(root))
	{
		if (root)
			cJSON_Delete(root);
		invalid_value("table_schema", value, "Give the table's schema JSON, a schema file's content.");
	}
	opts = cJSON_GetObjectItemCaseSensitive(root, "options");
	if (opts != NULL && cJSON_IsObject(opts))
	{
		cJSON	   *kv;

		cJSON_ArrayForEach(kv, opts)
		{
			if (tablescan_is_path_key(kv->string))
				names_path = true;
			if (strcmp(kv->string, "type") == 0 && cJSON_IsString(kv) &&
				strcmp(kv->valuestring, "format-table") == 0)
				names_path = true;
		}
	}
	cJSON_Delete(root);
	if (names_path)
		tablescan_check_path_privilege("table_schema");
}

/* A database or table name must stay inside the warehouse. */
void
tablescan_check_name_component(const char *option, const char *value)
{
	if (value[0] == '\0' || strchr(value, '/') != NULL || strcmp(value, ".") == 0 ||
		strcmp(value, "..") == 0 || strchr(value, '\\') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", option, value),
				 errhint("A database or table name is one directory name inside the warehouse, without '/' or \"..\".")));
}

/*
 * An integer in [min, max] (max PG_INT64_MAX: no upper bound), written as
 * Java's Long.parseLong reads it after trimming: digits with an optional
 * '-' (no '+', spaces inside or around, or other bases).
 */
static void
check_int_option(const char *name, const char *value, int64 min, int64 max)
{
	char	   *end;
	long long	v;
	const char *digits = value[0] == '-' ? value + 1 : value;

	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno != 0 || !isdigit((unsigned char) digits[0]) || *end != '\0' || v < min || v > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
				 max == PG_INT64_MAX ?
				 errhint("The value must be an integer >= %lld.", (long long) min) :
				 errhint("The value must be an integer between %lld and %lld.",
						 (long long) min, (long long) max)));
}

static void
check_bool_option(const char *name, const char *value)
{
	bool		b;

	if (!parse_bool(value, &b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
				 errhint("The value must be a boolean (true or false).")));
}

/* One of the values Java's enum option allows (case-insensitive, as Java). */
static void
check_enum_option(const char *name, const char *value, const char *const *allowed)
{
	StringInfoData list;

	for (int i = 0; allowed[i]; i++)
		if (pg_strcasecmp(value, allowed[i]) == 0)
			return;
	initStringInfo(&list);
	for (int i = 0; allowed[i]; i++)
		appendStringInfo(&list, "%s%s", i ? ", " : "", allowed[i]);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
			 errhint("Valid values are: %s.", list.data)));
}

/*
 * A Paimon key checked against the option registry (src/meta/core_options.c):
 * a key Paimon does not define is an ERROR (with the closest key as a hint),
 * in any namespace or none; a secret belongs in a USER MAPPING; the value of
 * a key we act on must parse as its type; a key we ignore is accepted, with
 * a NOTICE (when notices is set) if ignoring it can change the rows; a
 * feature we refuse is an ERROR.
 */
static void
check_registry_option(const char *name, const char *value, Oid context, bool notices)
{
	const ts_core_option *o = tablescan_user_option(name);
	char		hint[512];

	if (o == NULL)
		unknown_option(name, context);
	if ((o->flags & TS_OPTF_SECRET) && context != UserMappingRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("option \"%s\" can only be set in a user mapping", name),
				 errhint("Secrets go in CREATE USER MAPPING ... OPTIONS (\"%s\" '...'), which only its user and superusers can read.",
						 name)));
	switch (o->support)
	{
		case TS_OPT_ACTED:
			if (!ts_core_option_check_value(o, value, hint, sizeof(hint)))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
						 errhint("%s", hint)));
			break;
		case TS_OPT_IGNORED_ROWS:
			if (notices)
				ereport(NOTICE,
						(errmsg("option \"%s\" is ignored", name),
						 errdetail("tablescan_fdw does not implement it: Java Paimon could return other rows.")));
			break;
		case TS_OPT_REFUSED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("option \"%s\" is not supported", name),
					 errdetail("Reading a table with it would need a feature tablescan_fdw does not implement.")));
			break;
		case TS_OPT_IGNORED:
			break;
	}
}

/* Values of FDW options and of Paimon keys we act on are checked when set. */
void
tablescan_check_option_value(const char *name, const char *value, Oid context, bool notices)
{
	if (strcmp(name, "bucket_filter") == 0)
		check_int_option(name, value, 0, PG_INT32_MAX);
	else if (strcmp(name, "scan.shard") == 0)
	{
		int32		k,
					n;

		if (!ts_shard_parse(value, &k, &n))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"scan.shard\": \"%s\"", value),
					 errhint("Give \"K/N\", shard K of N with 1 <= K <= N, e.g. '2/4'; '1/1' is the whole table.")));
	}
	else if (strcmp(name, "incremental-between") == 0 ||
			 strcmp(name, "incremental-between-timestamp") == 0)
	{
		long long	a,
					b;
		char		tail;

		if (sscanf(value, "%lld , %lld %c", &a, &b, &tail) != 2 || a < 0 || b < a)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
					 errhint("Give two numbers \"start,end\" with start <= end (start exclusive, end inclusive).")));
	}
	else if (strcmp(name, "cache") == 0 || strcmp(name, "strict") == 0 ||
			 strcmp(name, "updatable") == 0)
		check_bool_option(name, value);
	else if (strcmp(name, "batch_size") == 0)
		check_int_option(name, value, 1, 1000000);
	else if (strcmp(name, "parallel_workers") == 0)
		check_int_option(name, value, 0, MAX_PARALLEL_WORKER_LIMIT);	/* as the heap's reloption */
	else if (strcmp(name, "format") == 0)
	{
		if (strcmp(value, "csv") != 0 && strcmp(value, "json") != 0 &&
			strcmp(value, "parquet") != 0 && strcmp(value, "orc") != 0 &&
			strcmp(value, "text") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"format\": \"%s\"", value),
					 errhint("Format tables are csv, json, parquet, orc or text.")));
	}
	else if (strcmp(name, "database") == 0 || strcmp(name, "table") == 0 ||
			 strcmp(name, "branch") == 0)
		tablescan_check_name_component(name, value);
	else if (strcmp(name, "warehouse") == 0 || strcmp(name, "path") == 0)
	{
		if (tablescan_storage_check_location(name, value))
			;					/* an object store URI */
		else if (value[0] != '/')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
					 errhint("Give an absolute path.")));
	}
	else if (strcmp(name, "external-path-map") == 0)
		tablescan_check_path_map(name, value, NULL);
	else if (strcmp(name, "catalog") == 0)
	{
		static const char *const catalogs[] = {"filesystem", "rest", NULL};

		check_enum_option(name, value, catalogs);
	}
	else if (strcmp(name, "uri") == 0)
	{
		if (pg_strncasecmp(value, "http://", 7) != 0 && pg_strncasecmp(value, "https://", 8) != 0)
			invalid_value(name, value, "Give the REST catalog's http:// or https:// URI.");
	}
	else if (strcmp(name, "data-file.path-directory") == 0)
	{
		char	   *norm = value[0] == '/' ? NULL : ts_path_normalize(psprintf("/%s", value));

		if (norm == NULL || strcmp(norm, psprintf("/%s", value)) != 0)
			invalid_value(name, value, "Give a directory relative to the table, without \"..\".");
	}
	else if (strcmp(name, "table_schema") == 0)
		check_table_schema(value);
	else if (strcmp(name, "partition_filter") == 0)
	{
		int			n;
		ts_option **filters;

		tablescan_parse_partition_filter(value, &n, &filters);
	}
	else if (!tablescan_is_fdw_option(name, context))
		check_registry_option(name, value, context, notices);
}

PG_FUNCTION_INFO_V1(tablescan_fdw_validator);

Datum
tablescan_fdw_validator(PG_FUNCTION_ARGS)
{
	List	   *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid			catalog = PG_GETARG_OID(1);
	ListCell   *lc;
	bool		has_path = false,
				has_db = false,
				has_table = false,
				has_format = false,
				has_partition_keys = false;
	bool		rest = false;

	/* a REST catalog's warehouse is a name the catalog knows, not a directory */
	foreach(lc, options)
		if (strcmp(((DefElem *) lfirst(lc))->defname, "catalog") == 0 &&
			pg_strcasecmp(defGetString(lfirst(lc)), "rest") == 0)
			rest = true;
	foreach(lc, options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);
		const char *value = defGetString(def);

		tablescan_check_value_chars(def->defname, value, catalog);
		/* object store keys: storage_options.c */
		if (tablescan_storage_check_option(def->defname, value, catalog))
			continue;
		if (!is_valid_option(def->defname, catalog))
		{
			if (!is_known_option(def->defname) && catalog != AttributeRelationId &&
				catalog != ForeignDataWrapperRelationId)
				unknown_option(def->defname, catalog);
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", def->defname),
					 errhint("%s", valid_options_hint(catalog))));
		}
		if (strcmp(def->defname, "warehouse") == 0 || strcmp(def->defname, "uri") == 0 ||
			tablescan_is_path_key(def->defname))
			tablescan_check_path_privilege(def->defname);
		if (strcmp(def->defname, "warehouse") == 0 && rest)
			continue;			/* a name: anything the catalog accepts */
		tablescan_check_option_value(def->defname, value, catalog, true);
		has_path |= strcmp(def->defname, "path") == 0;
		has_db |= strcmp(def->defname, "database") == 0;
		has_table |= strcmp(def->defname, "table") == 0;
		has_format |= strcmp(def->defname, "format") == 0;
		has_partition_keys |= strcmp(def->defname, "partition_keys") == 0;
	}
	if (catalog == UserMappingRelationId)
		tablescan_storage_check_key_pair(options);
	if (catalog == ForeignTableRelationId)
	{
		if (has_path && (has_db || has_table))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("options \"path\" and \"database\"/\"table\" cannot be used together")));
		if (has_partition_keys && !has_format)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
					 errmsg("option \"partition_keys\" needs option \"format\""),
					 errhint("Declare a format table with format 'csv', 'json', 'parquet', 'orc' or 'text'.")));
		if (!has_path && !(has_db && has_table))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
					 errmsg("a tablescan_fdw foreign table needs option \"path\", or \"database\" and \"table\"")));
	}
	PG_RETURN_VOID();
}

