/*
 * storage_options.c - object store options and the settings a scan reads with.
 *
 * Owns: what the object store keys of the option registry (Paimon's
 * s3.* keys, the Hadoop fs.s3a.* / fs.oss.* forms, and our own: s3a.*,
 * ca_file, credentials; src/meta/core_options.c) set, where each may appear (settings on SERVER / FOREIGN TABLE, secrets only in USER MAPPING),
 * checking their values, the locations accepted for "warehouse" / "path"
 * (s3://, s3a://, oss://, abfs[s]://, wasb[s]://; other schemes refused by
 * name), the GUCs that bound retries, building the ts_azure_config of a
 * table in Azure, and building the ts_s3_config of a table: server < table
 * options, credentials from the user mapping (or PUBLIC's) of the role a
 * scan checks access as (tablescan_mapping_user: a view's owner), a
 * mapping's keys checked to come in pairs.  A role
 * without pg_read_server_files reads an object store only through a user
 * mapping.  Secret values are never printed.  options.c calls in here.
 * Also the GUCs of the on-disk metadata cache (src/base/meta_cache.c),
 * applied whenever a table's object store settings are built.
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/syscache.h"

#include "base/ts_azure.h"
#include "base/ts_meta_cache.h"
#include "base/ts_s3.h"
#include "meta/core_options.h"
#include "meta/manifest_cache.h"
#include "tablescan_fdw.h"

/*
 * The object store keys are the registry's (src/meta/core_options.c): each
 * entry with a setting (ts_opt_store) is one, the aliases of a setting
 * (s3.endpoint, fs.s3a.endpoint, s3a.endpoint, fs.oss.endpoint...) share it.
 */
typedef struct StorageKey
{
	const char *key;			/* as given */
	ts_opt_store setting;
} StorageKey;

/* Retry bounds of object store requests (GUCs). */
static int	s3_max_attempts = 5;
static int	s3_max_retry_ms = 30000;
static int	s3_timeout_ms = 60000;
static int	s3_max_in_flight = TS_S3_IN_FLIGHT;

/* The on-disk cache of immutable object store metadata (GUCs). */
static char *metadata_cache_dir = NULL;
static int	metadata_cache_size_kb = 256 * 1024;
static bool metadata_cache_manifests = true;

static void
assign_metadata_cache_manifests(bool newval, void *extra)
{
	ts_manifest_cache_set_enabled(newval);
}

/* What an object store may send (GUCs, passed down to s3_limits.c). */
static int	max_metadata_object_mb = 256;
static int	max_list_keys = 10000000;
static int	max_list_pages = 100000;

static void
assign_max_metadata_object_size(int newval, void *extra)
{
	ts_s3_limits l = {(int64_t) newval << 20, 0, 0};

	ts_s3_set_limits(&l);
}

static void
assign_max_list_keys(int newval, void *extra)
{
	ts_s3_limits l = {0, newval, 0};

	ts_s3_set_limits(&l);
}

static void
assign_max_list_pages(int newval, void *extra)
{
	ts_s3_limits l = {0, 0, newval};

	ts_s3_set_limits(&l);
}

void
tablescan_storage_define_gucs(void)
{
	DefineCustomIntVariable("tablescan.s3_max_attempts",
							"Attempts of one object store request (retries of 429, 5xx, resets and timeouts included).",
							NULL, &s3_max_attempts, 5, 1, 100, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.s3_max_retry_time",
							"Longest total wait between the attempts of one object store request.",
							NULL, &s3_max_retry_ms, 30000, 0, 3600 * 1000, PGC_USERSET, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.s3_timeout",
							"Longest time one attempt of an object store request may take.",
							NULL, &s3_timeout_ms, 60000, 100, 3600 * 1000, PGC_USERSET, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.s3_max_in_flight",
							"Object store requests a scan sends at once (manifests of a plan, small data files, column chunks of a row group).",
							NULL, &s3_max_in_flight, TS_S3_IN_FLIGHT, 1, TS_S3_IN_FLIGHT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("tablescan.metadata_cache_dir",
							   "Directory of the on-disk cache of immutable object store metadata.",
							   "Manifests, index files and deletion vectors read from object stores "
							   "are kept there for every backend of the server; a relative path is "
							   "under the data directory; empty turns the cache off.",
							   &metadata_cache_dir, "", PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.metadata_cache_size",
							"Size limit of the on-disk metadata cache (least recently used entries go first).",
							NULL, &metadata_cache_size_kb, 256 * 1024, 0, INT_MAX, PGC_SUSET,
							GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.metadata_cache_manifests",
							 "Keep decoded manifest entries in the metadata cache directory.",
							 "A new connection then plans from them instead of decoding the manifests "
							 "again; off: the directory keeps object store metadata only.",
							 &metadata_cache_manifests, true, PGC_SUSET, 0, NULL,
							 assign_metadata_cache_manifests, NULL);
	DefineCustomIntVariable("tablescan.max_metadata_object_size",
							"Largest manifest, manifest list, index or deletion-vector file read whole from an object store.",
							"A store that announces or sends more is an ERROR (54000); snapshot, schema "
							"and hint files are capped at 8 MB.",
							&max_metadata_object_mb, 256, 1, 4096, PGC_SUSET, GUC_UNIT_MB,
							NULL, assign_max_metadata_object_size, NULL);
	DefineCustomIntVariable("tablescan.max_list_keys",
							"Most keys one object store listing may return.",
							NULL, &max_list_keys, 10000000, 1, INT_MAX, PGC_SUSET, 0,
							NULL, assign_max_list_keys, NULL);
	DefineCustomIntVariable("tablescan.max_list_pages",
							"Most pages one object store listing may take.",
							NULL, &max_list_pages, 100000, 1, INT_MAX, PGC_SUSET, 0,
							NULL, assign_max_list_pages, NULL);
}

/*
 * Point the metadata cache at the directory of the GUC (cheap when it did
 * not change).  A directory that cannot be used turns the cache off with a
 * WARNING (once per value): reads go to the store, nothing is wrong.
 */
static void
apply_metadata_cache(void)
{
	static char *warned = NULL;
	ts_err		err = {0};

	if (ts_mcache_configure(metadata_cache_dir, (int64_t) metadata_cache_size_kb * 1024, &err))
		return;
	if (warned != NULL && metadata_cache_dir != NULL && strcmp(warned, metadata_cache_dir) == 0)
		return;
	if (warned)
		free(warned);
	warned = metadata_cache_dir ? strdup(metadata_cache_dir) : NULL;
	ereport(WARNING,
			(errcode(err.code == TS_ERR_DENIED ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_IO_ERROR),
			 errmsg("metadata cache off: %s", err.msg),
			 errhint("Set tablescan.metadata_cache_dir to a directory of the server's user with mode 0700, or to '' to turn the cache off.")));
}

/* name as an object store key of the registry; false if it is none */
static bool
find_key(const char *name, StorageKey *k)
{
	const ts_core_option *o = ts_core_option_find(name);

	if (o == NULL || o->store == TS_STORE_NONE)
		return false;
	k->key = name;
	k->setting = o->store;
	return true;
}

static bool
is_secret(ts_opt_store s)
{
	return s == TS_STORE_ACCESS_KEY || s == TS_STORE_SECRET_KEY || s == TS_STORE_SESSION_TOKEN ||
		s == TS_STORE_AZURE_ACCOUNT_KEY || s == TS_STORE_AZURE_SAS_TOKEN;
}

bool
tablescan_storage_is_key(const char *name)
{
	StorageKey	k;

	return find_key(name, &k);
}

static void
check_endpoint(const char *name, const char *value)
{
	const char *host = value;

	if (pg_strncasecmp(value, "http://", 7) == 0)
		host = value + 7;
	else if (pg_strncasecmp(value, "https://", 8) == 0)
		host = value + 8;
	else if (strstr(value, "://") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
				 errhint("Give the object store's http:// or https:// endpoint (https when no scheme is given).")));
	if (strchr(host, '@') != NULL)
		tablescan_refuse_url_userinfo(name);
	if (host[0] == '\0' || host[0] == '/' || strpbrk(host, " ?#") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
				 errhint("Give host[:port], e.g. 'http://127.0.0.1:9000'; no user name, query or fragment.")));
}

/*
 * A storage key in an options list of catalog `context`: refuse it where it
 * does not belong, check its value, and check the privileges it needs.
 * False when name is not a storage key (the caller goes on).
 */
bool
tablescan_storage_check_option(const char *name, const char *value, Oid context)
{
	StorageKey	key;
	const StorageKey *k = &key;

	if (!find_key(name, &key))
		return false;
	if (is_secret(k->setting))
	{
		if (context != UserMappingRelationId)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("option \"%s\" is a secret and may only be set in a USER MAPPING", name),
					 errhint("Use CREATE USER MAPPING FOR ... SERVER ... OPTIONS (\"%s\" '...'); a mapping FOR PUBLIC serves every role.",
							 name)));
		if (value[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" is empty", name)));
		return true;
	}
	if (context != ForeignServerRelationId &&
		!(context == ForeignTableRelationId && k->setting != TS_STORE_CREDENTIALS))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("option \"%s\" is not valid %s", name,
						context == UserMappingRelationId ? "in a USER MAPPING" :
						context == InvalidOid ? "in tablescan.scan_options" : "here"),
				 errhint("Object store settings are SERVER%s options; only the keys go in a USER MAPPING.",
						 k->setting == TS_STORE_CREDENTIALS ? "" : " or FOREIGN TABLE")));
	switch (k->setting)
	{
		case TS_STORE_ENDPOINT:
		case TS_STORE_AZURE_ENDPOINT:
			/* where the server connects to: as option "uri" */
			tablescan_check_path_privilege(name);
			check_endpoint(name, value);
			break;
		case TS_STORE_CA_FILE:
			/* a file of the server */
			tablescan_check_path_privilege(name);
			if (value[0] != '/')
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
						 errhint("Give the absolute path of a PEM file of CA certificates.")));
			break;
		case TS_STORE_REGION:
			for (const char *p = value; *p; p++)
				if (!(isalnum((unsigned char) *p) || *p == '-' || *p == '_'))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
							 errhint("Give a region name such as 'eu-west-1'.")));
			break;
		case TS_STORE_PATH_STYLE:
			{
				bool		b;

				if (!parse_bool(value, &b))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
							 errhint("Give true or false.")));
			}
			break;
		case TS_STORE_CREDENTIALS:
			if (strcmp(value, "anonymous") != 0 && strcmp(value, "environment") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for option \"%s\": \"%s\"", name, value),
						 errhint("Give 'anonymous' or 'environment' (the AWS_* variables of the server process), for roles without a user mapping.")));
			/* the server process's own keys */
			if (strcmp(value, "environment") == 0)
				tablescan_check_path_privilege(name);
			break;
		default:
			break;
	}
	return true;
}

/*
 * "warehouse" or "path" naming an object store location: true when value is
 * a valid s3://, s3a:// or oss:// URI or Azure URI (abfs://, abfss://,
 * wasb://, wasbs://); an ERROR naming the scheme for another one (hdfs://,
 * gs://...); false for a plain path or file: (the caller checks it).
 */
bool
tablescan_storage_check_location(const char *name, const char *value)
{
	ts_err		err = {0};
	char	   *bucket,
			   *key;

	if (!ts_uri_check_scheme(value, &err))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("invalid value for option \"%s\": %s", name, err.msg),
				 errhint("Object stores are read through their S3 API: use s3:// with option \"s3.endpoint\".")));
	if (ts_uri_is_azure(value))
	{
		ts_azure_uri u;

		if (!ts_azure_parse_uri(value, &u, &err))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"%s\": %s", name, err.msg)));
		ts_azure_uri_free(&u);
		return true;
	}
	if (!ts_uri_is_object(value))
		return false;
	if (!ts_s3_parse_uri(value, &bucket, &key, &err))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\": %s", name, err.msg)));
	return true;
}

/*
 * A USER MAPPING's keys come in pairs (any of the forms above): an access
 * key without its secret key, or the reverse, is refused when it is set,
 * and so is a session token without keys.
 */
void
tablescan_storage_check_key_pair(List *options)
{
	const char *access = NULL,
			   *secret = NULL,
			   *session = NULL;
	ListCell   *lc;

	foreach(lc, options)
	{
		StorageKey	k;

		if (!find_key(((DefElem *) lfirst(lc))->defname, &k))
			continue;
		if (k.setting == TS_STORE_ACCESS_KEY)
			access = k.key;
		else if (k.setting == TS_STORE_SECRET_KEY)
			secret = k.key;
		else if (k.setting == TS_STORE_SESSION_TOKEN)
			session = k.key;
	}
	if (session && access == NULL && secret == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("user mapping option \"%s\" needs an access key and a secret key", session),
				 errhint("A session token is sent with the keys it was issued with: give \"s3.access-key\" and \"s3.secret-key\" too.")));
	if ((access == NULL) != (secret == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("user mapping option \"%s\" needs %s", access ? access : secret,
						access ? "a secret key" : "an access key"),
				 errhint("Give both \"s3.access-key\" and \"s3.secret-key\" (or both of their fs.s3a. or fs.oss. forms), or neither for anonymous reads.")));
}

/*
 * The role whose user mapping is read: while a scan's options are built,
 * the one the scan checks access as (a view's owner, as postgres_fdw);
 * else the current user.
 */
static Oid	mapping_user = InvalidOid;

Oid
tablescan_mapping_user(void)
{
	return OidIsValid(mapping_user) ? mapping_user : GetUserId();
}

/* Read user mappings as userid (InvalidOid: the current user); returns the previous one. */
Oid
tablescan_set_mapping_user(Oid userid)
{
	Oid			previous = mapping_user;

	mapping_user = userid;
	return previous;
}

/* The options of the mapping user's user mapping for server (or PUBLIC's); found = false if none. */
List *
tablescan_user_mapping_options(ForeignServer *server, bool *found)
{
	Oid			users[2] = {tablescan_mapping_user(), InvalidOid};

	for (int i = 0; i < 2; i++)
	{
		HeapTuple	tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(users[i]),
										 ObjectIdGetDatum(server->serverid));

		if (HeapTupleIsValid(tp))
		{
			bool		isnull;
			Datum		d = SysCacheGetAttr(USERMAPPINGUSERSERVER, tp,
											Anum_pg_user_mapping_umoptions, &isnull);
			List	   *opts = isnull ? NIL : untransformRelOptions(d);

			ReleaseSysCache(tp);
			*found = true;
			return opts;
		}
	}
	*found = false;
	return NIL;
}

/*
 * The user mapping's options for a server reading store (named in the
 * error): a role without pg_read_server_files reads a store only through
 * one (its own or PUBLIC's), keys naming what a mapping should hold.
 */
static List *
mapping_options(ForeignServer *server, const char *store, const char *keys, bool *has_mapping)
{
	List	   *mapping = tablescan_user_mapping_options(server, has_mapping);

	if (!*has_mapping && !has_privs_of_role(tablescan_mapping_user(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("user mapping not found for \"%s\"",
						GetUserNameFromId(tablescan_mapping_user(), false)),
				 errdetail("Server \"%s\" reads %s; a role without pg_read_server_files reads it only through a user mapping.",
						   server->servername, store),
				 errhint("Create a user mapping with %s (or FOR PUBLIC without keys for anonymous reads).", keys)));
	return mapping;
}

static void
apply_setting(ts_s3_config *cfg, const StorageKey *k, DefElem *def, const char **credentials)
{
	char	   *v = defGetString(def);

	switch (k->setting)
	{
		case TS_STORE_ENDPOINT:
			cfg->endpoint = v;
			break;
		case TS_STORE_REGION:
			cfg->region = v;
			break;
		case TS_STORE_PATH_STYLE:
			parse_bool(v, &cfg->path_style);
			cfg->path_style_set = true;
			break;
		case TS_STORE_CA_FILE:
			cfg->ca_file = v;
			break;
		case TS_STORE_CREDENTIALS:
			*credentials = v;
			break;
		case TS_STORE_ACCESS_KEY:
			cfg->access_key = v;
			break;
		case TS_STORE_SECRET_KEY:
			cfg->secret_key = v;
			break;
		case TS_STORE_SESSION_TOKEN:
			cfg->session_token = v;
			break;
		case TS_STORE_AZURE_ENDPOINT:
		case TS_STORE_AZURE_ACCOUNT_KEY:
		case TS_STORE_AZURE_SAS_TOKEN:
			break;				/* the Azure client's (ts_azure_config), not S3's */
		case TS_STORE_NONE:
			break;
	}
}

/*
 * A REST catalog's data token for a table: its keys (any form of the table
 * above) replace the settings and credentials of cfg.  Values are copied.
 * When it gives keys, 'source' says where they came from in an access
 * denied error (ts_s3_config.credentials_source).
 */
void
tablescan_storage_apply_token(ts_s3_config *cfg, const ts_option *kv, int n, const char *source,
							  const char *token_of)
{
	const char *credentials = NULL;
	const char *endpoint = NULL;
	bool		has[TS_STORE_AZURE_SAS_TOKEN + 1] = {0};

	/*
	 * Credentials never travel to an endpoint of another source: a token
	 * that names an endpoint brings its own keys, and a token's keys or
	 * endpoint replace all of the user mapping's credentials.
	 */
	for (int i = 0; i < n; i++)
	{
		StorageKey	k;

		if (!find_key(kv[i].key, &k) || kv[i].value == NULL)
			continue;
		has[k.setting] = true;
		if (k.setting == TS_STORE_ENDPOINT)
			endpoint = kv[i].value;
	}
	if (endpoint && pg_strncasecmp(endpoint, "http://", 7) != 0 &&
		pg_strncasecmp(endpoint, "https://", 8) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the data token %s names endpoint \"%s\", which is not an http:// or https:// URL",
						token_of, endpoint)));
	if (endpoint && (!has[TS_STORE_ACCESS_KEY] || !has[TS_STORE_SECRET_KEY]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
				 errmsg("the data token %s names endpoint \"%s\" without its own %s",
						token_of, endpoint,
						!has[TS_STORE_ACCESS_KEY] && !has[TS_STORE_SECRET_KEY] ? "access key and secret key" :
						!has[TS_STORE_ACCESS_KEY] ? "access key" : "secret key"),
				 errdetail("The user mapping's keys are not sent to an endpoint a catalog names.")));
	if (endpoint || has[TS_STORE_ACCESS_KEY] || has[TS_STORE_SECRET_KEY] || has[TS_STORE_SESSION_TOKEN])
	{
		cfg->access_key = NULL;
		cfg->secret_key = NULL;
		cfg->session_token = NULL;
	}
	for (int i = 0; i < n; i++)
	{
		StorageKey	key;
		const StorageKey *k = find_key(kv[i].key, &key) ? &key : NULL;
		DefElem    *def;

		if (k == NULL || k->setting == TS_STORE_CA_FILE || k->setting == TS_STORE_CREDENTIALS || kv[i].value == NULL)
			continue;			/* a file of the server is not the catalog's to name */
		def = makeDefElem(pstrdup(kv[i].key), (Node *) makeString(pstrdup(kv[i].value)), -1);
		apply_setting(cfg, k, def, &credentials);
		if (is_secret(k->setting))
			cfg->credentials_source = source;
	}
}

/*
 * The settings a table at location reads with (palloc'd), or NULL when it
 * is not in an object store.  ft may be NULL (IMPORT).
 */
ts_s3_config *
tablescan_storage_config(ForeignServer *server, ForeignTable *ft, const char *location)
{
	ts_s3_config *cfg;
	const char *credentials = "anonymous";
	List	   *lists[2] = {server->options, ft ? ft->options : NIL};
	List	   *mapping;
	bool		has_mapping;
	ListCell   *lc;

	apply_metadata_cache();		/* decoded manifests of local tables use it too */
	tablescan_shared_cache_attach();	/* live sets in shared memory, when preloaded */
	if (location == NULL || !ts_uri_is_object(location))
		return NULL;
	cfg = palloc0(sizeof(ts_s3_config));
	for (int i = 0; i < 2; i++)
		foreach(lc, lists[i])
		{
			StorageKey	k;

			if (find_key(((DefElem *) lfirst(lc))->defname, &k) && !is_secret(k.setting))
				apply_setting(cfg, &k, lfirst(lc), &credentials);
		}
	mapping = mapping_options(server, "an object store", "the role's keys", &has_mapping);
	foreach(lc, mapping)
	{
		StorageKey	k;

		if (find_key(((DefElem *) lfirst(lc))->defname, &k) && is_secret(k.setting))
			apply_setting(cfg, &k, lfirst(lc), &credentials);
	}
	if (has_mapping && (cfg->access_key == NULL) != (cfg->secret_key == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("the user mapping for server \"%s\" gives only one of the access key and the secret key",
						server->servername),
				 errhint("Give both \"s3.access-key\" and \"s3.secret-key\", or neither for anonymous reads.")));
	/* where the keys come from, for an access denied error (src/base/s3.c) */
	if (cfg->access_key)
		cfg->credentials_source = "check the credentials of the user mapping";
	else if (has_mapping)
		cfg->credentials_source =
			psprintf("the requests were anonymous: the user mapping for server \"%s\" gives no keys",
					 server->servername);
	else if (strcmp(credentials, "environment") != 0)
		cfg->credentials_source =
			psprintf("the requests were anonymous: no user mapping for server \"%s\"",
					 server->servername);
	if (!has_mapping && strcmp(credentials, "environment") == 0)
	{
		cfg->credentials_source =
			"check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN in the environment of the server process (option credentials 'environment')";
		cfg->access_key = getenv("AWS_ACCESS_KEY_ID");
		cfg->secret_key = getenv("AWS_SECRET_ACCESS_KEY");
		cfg->session_token = getenv("AWS_SESSION_TOKEN");
		if (cfg->access_key == NULL || cfg->secret_key == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
					 errmsg("server \"%s\" reads credentials from the environment, but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set",
							server->servername)));
	}
	if (cfg->region == NULL)
		cfg->region = "us-east-1";
	cfg->max_attempts = s3_max_attempts;
	cfg->max_retry_ms = s3_max_retry_ms;
	cfg->timeout_ms = s3_timeout_ms;
	cfg->max_in_flight = s3_max_in_flight;
	return cfg;
}

/*
 * The Azure settings a table at location reads with (palloc'd), or NULL when
 * it is not an Azure URI.  ft may be NULL (IMPORT).  The endpoint and CA
 * file: server < table options; the account key or SAS token: the user
 * mapping of the role the scan reads as (or PUBLIC's), a Hadoop
 * per-account key (a pattern of the registry) only for the account of
 * location.  A role without pg_read_server_files needs a mapping, as for
 * an S3 store.  Errors name options, never their values.
 */
ts_azure_config *
tablescan_storage_azure_config(ForeignServer *server, ForeignTable *ft, const char *location)
{
	ts_azure_config *cfg;
	List	   *lists[2] = {server->options, ft ? ft->options : NIL};
	List	   *mapping;
	bool		has_mapping;
	ts_azure_uri u;
	ts_err		err = {0};
	ListCell   *lc;

	if (location == NULL || !ts_uri_is_azure(location))
		return NULL;
	if (!ts_azure_parse_uri(location, &u, &err))
		tablescan_report(&err);
	cfg = palloc0(sizeof(ts_azure_config));
	for (int i = 0; i < 2; i++)
		foreach(lc, lists[i])
		{
			DefElem    *def = lfirst(lc);
			StorageKey	k;

			if (!find_key(def->defname, &k))
				continue;
			if (k.setting == TS_STORE_AZURE_ENDPOINT)
				cfg->endpoint = defGetString(def);
			else if (k.setting == TS_STORE_CA_FILE)
				cfg->ca_file = defGetString(def);
		}
	mapping = mapping_options(server, "Azure Blob Storage",
							  "option \"azure.account-key\" or \"azure.sas-token\"", &has_mapping);
	foreach(lc, mapping)
	{
		DefElem    *def = lfirst(lc);
		const ts_core_option *o = ts_core_option_find(def->defname);

		if (o == NULL)
			continue;
		if (o->store == TS_STORE_AZURE_ACCOUNT_KEY &&
			(!(o->flags & TS_OPTF_PATTERN) || ts_azure_key_option_matches(def->defname, &u)))
			cfg->account_key = defGetString(def);
		else if (o->store == TS_STORE_AZURE_SAS_TOKEN)
			cfg->sas_token = defGetString(def);
	}
	ts_azure_uri_free(&u);
	if (!ts_azure_check_config(cfg, &err))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the Azure settings of server \"%s\" are invalid: %s", server->servername, err.msg)));
	cfg->max_attempts = s3_max_attempts;
	cfg->max_retry_ms = s3_max_retry_ms;
	cfg->timeout_ms = s3_timeout_ms;
	return cfg;
}
