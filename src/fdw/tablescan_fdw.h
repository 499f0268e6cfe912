/*
 * tablescan_fdw.h - what the files of the PostgreSQL layer (src/fdw) share.
 *
 * The FDW layer turns PostgreSQL's world (options, quals, tuple slots,
 * memory contexts, ereport) into calls of the server-free scan library
 * and back.  Nothing below src/fdw includes a PostgreSQL header.
 */
#ifndef TABLESCAN_FDW_H
#define TABLESCAN_FDW_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "utils/guc.h"
#include "utils/relcache.h"
#include "nodes/pg_list.h"

#include "base/ts_base.h"
#include "base/ts_value.h"
#include "scan/scan.h"

/* ---- options.c --------------------------------------------------------- */

/*
 * Everything the options of a foreign table (and its server) say, merged:
 * where the table is, FDW-level settings, and Paimon options passed
 * through by their own keys (server < table < per-query GUC).
 */
typedef struct TsTableOptions
{
	char	   *table_path;		/* resolved table root */
	char	   *qualified_name; /* "db.table" or the path, for EXPLAIN */
	char	   *catalog;		/* "rest <uri>" for a REST catalog's table, or NULL */
	List	   *paimon_keys;	/* Paimon options, as char * lists, in */
	List	   *paimon_values;	/* increasing priority */
	char	   *partition_filter;	/* JSON text or NULL */
	bool		has_bucket_filter;
	int32		bucket_filter;
	int32		shard_k;		/* scan.shard 'K/N'; 0/0 = whole table */
	int32		shard_n;
	char	   *table_schema;	/* preloaded schema JSON or NULL */
	char	   *format;			/* format table over a plain directory */
	char	   *partition_keys; /* its partition keys, "k1,k2" */
	bool		strict;			/* IMPORT: unmappable column is an error */
	bool		cache;			/* use the live manifest-entry cache */
	int			parallel_workers;	/* workers of a parallel scan; -1: PostgreSQL's rule */
	/* set by a parallel scan: a latest read reads this snapshot (0 = none) */
	bool		pin_snapshot;
	int64		pinned_snapshot_id;
	/*
	 * Where the current role may make the scan read (options.c): NULL for
	 * roles with pg_read_server_files; else the table's directory and the
	 * targets of "external-path-map" given in SERVER / FOREIGN TABLE
	 * options (which only such roles can set).
	 */
	ts_fs_scope *fs_scope;
	/* object store settings of a table in one (storage_options.c), else NULL */
	ts_s3_config *s3;
	/* Azure settings of a table in Azure Blob Storage (storage_options.c), else NULL */
	struct ts_azure_config *azure;
	/* the REST catalog's data token in s3, renewed while a scan reads (rest.c), else NULL */
	struct TsTokenUse *token;
	/* a REST catalog's table: what a write commits through (rest.c), else NULL */
	struct TsRestTable *rest;
} TsTableOptions;

extern TsTableOptions *tablescan_get_options(Oid foreigntableid);
/*
 * The same, reading user mappings as userid (a scan's checkAsUser: a view's
 * owner; InvalidOid: the current user), and the role a scan of range table
 * entry rtindex checks access as (InvalidOid: the current user).
 */
extern TsTableOptions *tablescan_get_options_as(Oid foreigntableid, Oid userid);
extern Oid	tablescan_scan_user(EState *estate, Index rtindex);
/* changes.c: a read of tablescan_changes replaces the table's starting options */
extern void tablescan_changes_adjust_options(Oid relid, TsTableOptions *o);
/*
 * consumer_file.c: Paimon consumer files of tablescan_changes(...,
 * paimon_consumer => true): the checks before one is promised, and the
 * promise, kept until the transaction commits.
 */
extern void tablescan_consumer_file_check(Oid relid, const TsTableOptions *o,
										  const char *consumer);
extern void tablescan_consumer_file_promise(const TsTableOptions *o, const char *branch_root,
											const char *consumer, int64 next);
/* changes.c: a column a read of tablescan_changes fills itself (_SNAPSHOT_ID) */
extern bool tablescan_changes_fills_column(Oid relid, const char *name);
extern void tablescan_check_path_privilege(const char *option_name);
/* check hook of the GUC tablescan.scan_options (options.c) */
extern bool tablescan_check_scan_options(char **newval, void **extra, GucSource source);
/* superuser or pg_read_server_files: may read any file of the server */
extern bool tablescan_role_reads_server_files(Oid roleid);
/*
 * The value of an FDW option read outside options.c (NULL if unset); the
 * name must be one the validator accepts in that catalog (else a bug: elog).
 */
extern const char *tablescan_server_option(ForeignServer *server, const char *name);
extern const char *tablescan_table_option(ForeignTable *ft, const char *name);
extern const char *tablescan_mapping_option(ForeignServer *server, const char *name);
/* a boolean option's value, parsed as the validator checked it */
extern bool tablescan_option_bool(const char *value);
/* ERROR for a URL with user information in option name (the value is not shown) */
extern void tablescan_refuse_url_userinfo(const char *name);
/* A scope confined to these directories (absolute; realpath'd), palloc'd. */
extern ts_fs_scope *tablescan_make_scope(List *roots);

/* ---- shared_cache.c: live sets in shared memory (preloaded) --------- */

extern void tablescan_shared_cache_define_guc(void);
/* This backend uses the region, if the postmaster made one (cheap after the first call). */
extern void tablescan_shared_cache_attach(void);

/* ---- storage_options.c: object stores -------------------------------- */

extern void tablescan_storage_define_gucs(void);
extern bool tablescan_storage_is_key(const char *name);
/* The options of the mapping user's user mapping for server (else PUBLIC's); *found = false if none. */
extern List *tablescan_user_mapping_options(ForeignServer *server, bool *found);
/*
 * Whose user mappings are read: the role set by tablescan_set_mapping_user
 * (which returns the previous one; InvalidOid: none), else the current user.
 */
extern Oid	tablescan_mapping_user(void);
extern Oid	tablescan_set_mapping_user(Oid userid);
/* ERROR for a USER MAPPING giving an access key without its secret key, or the reverse */
extern void tablescan_storage_check_key_pair(List *options);
/* A storage key: checked for context (InvalidOid: scan_options GUC); false if not one. */
extern bool tablescan_storage_check_option(const char *name, const char *value, Oid context);
/* warehouse/path: true for a valid object URI, ERROR for another scheme, false for a path */
extern bool tablescan_storage_check_location(const char *name, const char *value);
extern ts_s3_config *tablescan_storage_config(ForeignServer *server, ForeignTable *ft,
											  const char *location);
/* The Azure settings of a table at location (an abfs[s]:// or wasb[s]:// URI), else NULL */
extern struct ts_azure_config *tablescan_storage_azure_config(ForeignServer *server, ForeignTable *ft,
															  const char *location);
/*
 * A REST catalog's data token (s3.* / fs.s3a.* / fs.oss.* keys) over cfg;
 * source: the end of an access denied error with its keys; token_of: "of
 * table ... from server ..." in the ERROR for an endpoint without its keys.
 */
extern void tablescan_storage_apply_token(ts_s3_config *cfg, const ts_option *kv, int n,
										  const char *source, const char *token_of);

/* ---- rest.c: the Paimon REST catalog ---------------------------------- */

extern bool tablescan_server_is_rest(ForeignServer *server);
/* The table's location (and a format table's schema) from the catalog, into o. */
extern void tablescan_rest_resolve(ForeignServer *server, const char *database,
								   const char *table, TsTableOptions *o);
/* For IMPORT FOREIGN SCHEMA: the catalog's tables of a database, and one's schema. */
extern char **tablescan_rest_list_tables(ForeignServer *server, const char *database, int *count);
extern ts_schema *tablescan_rest_table_schema(ForeignServer *server, const char *database,
											  const char *table);
/*
 * A scan over s3 with a data token: once its renewal is due (a cheap clock
 * check), a new token from the catalog, as the role it was fetched as, in
 * o->s3 and the plan's settings.  Called before each batch is read.
 */
extern void tablescan_rest_renew_token(TsTableOptions *o, ts_plan *plan);
/*
 * rest_token.c: a table's data token, cached per backend, fetched again
 * within tablescan.token_refresh_margin of its expiry.  held_expires_ms: the
 * expiry of the token a scan holds (0 when planning): a renewal never gets
 * that one back from the cache.
 */
struct ts_rest_catalog;
typedef struct TsDataToken
{
	const ts_option *kv;		/* valid until the next call */
	int			nkv;
	int64		expires_at_ms;	/* epoch ms; 0: none given (this statement only) */
	int64		renew_at_ms;	/* a scan renews it from then on; 0: never */
} TsDataToken;
extern int	tablescan_token_refresh_margin_s;
extern void tablescan_rest_token_define_gucs(void);
extern void tablescan_rest_table_token(ForeignServer *server, struct ts_rest_catalog *c,
									   const char *database, const char *table,
									   int64 held_expires_ms, TsDataToken *token);
/* The table of a REST catalog a write commits through (TsTableOptions.rest). */
typedef struct TsRestTable
{
	Oid			serverid;
	char	   *database;
	char	   *table;
	char	   *table_id;		/* the catalog's "id" of it, or NULL */
	bool		format_table;	/* a format table (its schema only in the catalog) */
} TsRestTable;
/* connect to the catalog of server as the mapping user (ERROR when it cannot) */
extern void tablescan_rest_connect(ForeignServer *server, struct ts_rest_catalog *c);
/*
 * rest_write.c: a writer of the REST catalog's table o->rest, through fs,
 * committing through the catalog's commit endpoint; NULL with err.
 */
struct ts_table_writer;
extern struct ts_table_writer *tablescan_rest_open_writer(TsTableOptions *o, ts_fs *fs,
														  const ts_option *options, int n,
														  ts_err *err);
/* Is relid read through a REST catalog (database + table options, no path)? */
extern bool tablescan_rest_table_of(Oid relid, ForeignServer **server, char **database,
									char **table);
/* A catalog format table's partitions from the catalog; NULL when it answers 501. */
extern struct ts_ft_listing *tablescan_rest_format_partitions(ForeignServer *server,
															  const char *database,
															  const char *table, ts_plan *plan,
															  const ts_scan_context *ctx);

/* ---- module.c: the GUCs ------------------------------------------------ */

extern bool tablescan_enable_pruning;
extern bool tablescan_enable_file_index;
extern bool tablescan_enable_aggregate_pushdown;
extern bool tablescan_enable_columnar_aggregate;
extern int	tablescan_parallel_task_size_kb;
extern int	tablescan_cache_size_mb;
extern int	tablescan_max_open_writers;
extern bool tablescan_decompress_ahead;

/* ---- hooks.c: the library inside a backend ----------------------------- */

extern void tablescan_install_hooks(void);
extern void tablescan_report(const ts_err *err) pg_attribute_noreturn();

/* session_zone.c: PostgreSQL's TimeZone for the casts of LTZ values */
extern void tablescan_install_session_zone(void);

/* ---- plan.c: planning the Paimon scan of a foreign table --------------- */

/* partition_filter JSON -> OR of ANDs (ERROR naming the option if invalid) */
extern void tablescan_parse_partition_filter(const char *text, int *nfilters,
											 ts_option ***filters);
/* Build a scan context from options; arrays palloc'd in the current context. */
extern void tablescan_make_context(TsTableOptions *opts, ts_scan_context *ctx);
/*
 * Map each attribute of the relation to a read-schema field index, or a
 * system column (TS_COLUMN_ROW_ID ...: option column_name '_ROW_ID'), -1 = none.
 */
extern int *tablescan_map_columns(Relation rel, const ts_schema *schema);
/*
 * shard_column.c: the pseudo-column _SHARD (K of "scan.shard" 'K/N', 1
 * without it) of a table without a field of that name; its attributes map
 * to TS_COLUMN_SHARD, which no reader sees (the scans fill it in).
 */
#define TS_SHARD_COLUMN_NAME "_SHARD"
#define TS_COLUMN_SHARD (-100)
extern bool tablescan_is_shard_name(const char *name);
extern void tablescan_shard_column_check(Relation rel, int attidx);
extern Const *tablescan_shard_const(const TsTableOptions *opts, Oid typid, int32 typmod);
extern Const *tablescan_shard_const_of(const TsTableOptions *opts, Relation rel, int attidx);
extern bool tablescan_shard_value_is(const Const *shard, Datum value);
extern bool tablescan_is_shard_var(Node *expr, Index relid, const int *att_field, int natts);
extern bool tablescan_shard_quals_false(List *clauses, Index relid, const int *att_field,
										int natts, const TsTableOptions *opts);
extern void tablescan_shard_rewrite_quals(PlannerInfo *root, RelOptInfo *baserel,
										  const int *att_field, int natts,
										  const TsTableOptions *opts);
/* Paimon type of a mapped column: a schema field or a system column. */
extern const ts_type *tablescan_column_type(const ts_plan *plan, int field);
/* Plan (or ereport). */
extern ts_plan *tablescan_plan(TsTableOptions *opts, const struct ts_predicate *pred);
struct ExprContext;
extern ts_plan *tablescan_plan_relation(TsTableOptions *opts, Relation rel, Index relid,
										List *clauses, struct ExprContext *econtext,
										int64 limit, int **att_field, char **predicate_text);
extern bool tablescan_last_plan_metrics(ts_scan_metrics *out);

/* functions.c: a tablescan_fdw foreign table the caller may SELECT from, else ERROR */
extern Oid	tablescan_check_foreign_table(Oid relid);
/* handler.c: is the foreign-data wrapper this extension's? */
extern bool tablescan_fdw_is_ours(Oid fdwid);

/* The partition keys of a plan's read schema: names and types. */
typedef struct TsPartitionKeys
{
	int			n;
	const char **names;
	const ts_type **types;
} TsPartitionKeys;

/* ERROR (data corrupted) when a partition key is not a field of the schema. */
extern void tablescan_partition_keys(const ts_plan *plan, TsPartitionKeys *pk);
/* {"key": value, ...} as jsonb; values NULL: every value null. */
extern Datum tablescan_partition_jsonb(const TsPartitionKeys *pk, const ts_value *values);
/* ---- parallel.c: the shared state of a Parallel Foreign Scan ------------ */

/* EXPLAIN ANALYZE figures summed over the workers, in TsScanState's order */
#define TS_PARALLEL_NFIGURES 10

/* One unit of a parallel scan: a split, or one file of a split */
typedef struct TsParallelTask
{
	int			split;
	int			file;			/* -1: the whole split */
	int			part;			/* byte range part of nparts of the file */
	int			nparts;			/* 1: the whole file */
	int64		range_start;	/* a part's bytes (nparts > 1) */
	int64		range_end;
} TsParallelTask;

typedef struct TsParallelScan TsParallelScan;

extern Size tablescan_parallel_size(void);
extern void tablescan_parallel_init(TsParallelScan *ps, int nworkers);
extern void tablescan_parallel_publish(TsParallelScan *ps, const ts_plan *plan,
									   const TsParallelTask *tasks, int ntasks);
extern void tablescan_parallel_pin(const TsParallelScan *ps, TsTableOptions *opts);
extern void tablescan_parallel_check(const TsParallelScan *ps, const ts_plan *plan,
									 const TsParallelTask *tasks, int ntasks, Relation rel);
/*
 * Claim the next group of tasks (parallel.c's header says how many):
 * their number, the first in *first; 0 when none is left.
 */
#define TS_PARALLEL_GROUP_MAX 8
extern int	tablescan_parallel_claim(TsParallelScan *ps, const ts_plan *plan,
									 const TsParallelTask *tasks, int *first);
extern void tablescan_parallel_add_figures(TsParallelScan *ps, int64 *figures);
extern void tablescan_parallel_take_figures(TsParallelScan *ps, int64 *figures);
/* the tasks of a parallel scan of plan, the largest first; their number */
extern int	tablescan_parallel_count_tasks(const ts_plan *plan, const int *columns, int ncolumns);
/* publish: the leader's, finding CSV part starts; else read from ps */
extern int	tablescan_parallel_tasks(TsParallelScan *ps, bool publish, const ts_plan *plan,
									 const int *columns, int ncolumns, TsParallelTask **tasks_out);
/* the split to read for task (split_buf / file_buf hold a one-file task's) */
extern const ts_split *tablescan_parallel_task_split(const ts_plan *plan,
													 const TsParallelTask *task,
													 ts_split *split_buf,
													 ts_scan_file *file_buf);

/* ---- datum.c ----------------------------------------------------------- */

/*
 * Convert one Paimon value to a Datum of the PostgreSQL type (typid,
 * typmod).  *isnull set.  Raises ERROR for a value the column type cannot
 * hold (naming the column).
 */
extern Datum tablescan_value_to_datum(const ts_value *v, const ts_type *type,
									  Oid typid, int32 typmod, const char *colname,
									  bool *isnull);

/*
 * The conversion of one scanned column, decided once per scan: the common
 * pairs of Paimon type and column type take a direct path (same results as
 * tablescan_value_to_datum, without its per-value dispatch), any other pair
 * goes through tablescan_value_to_datum.
 */
typedef enum TsDatumPath
{
	TS_DATUM_GENERIC,
	TS_DATUM_BOOL,
	TS_DATUM_INT4,
	TS_DATUM_INT8,
	TS_DATUM_FLOAT8,
	TS_DATUM_DATE,
	TS_DATUM_TIMESTAMP,
	TS_DATUM_TEXT,
	TS_DATUM_NUMERIC
} TsDatumPath;

typedef struct TsDatumConverter
{
	TsDatumPath path;
	const ts_type *type;
	Oid			typid;
	int32		typmod;
	const char *colname;
	bool		adjust_typmod;	/* TIMESTAMP: typmod rounds */
	int64		numeric_limit;	/* NUMERIC: |unscaled| below this takes the int64 path; 0 = never */
} TsDatumConverter;

extern void tablescan_datum_converter_init(TsDatumConverter *c, const ts_type *type,
										   Oid typid, int32 typmod, const char *colname);
extern Datum tablescan_convert_value(const TsDatumConverter *c, const ts_value *v, bool *isnull);
extern const char *tablescan_text_bytes(const TsDatumConverter *c, const ts_value *v, int *len);
extern Datum tablescan_decimal_sum_datum(const TsDatumConverter *c, ts_int128 unscaled);

/*
 * numeric_short.c: write unscaled / 10^scale as a numeric varlena at out
 * (TS_NUMERIC_SHORT_MAX bytes free); returns its size, 0 when the value
 * needs the general path.
 */
#define TS_NUMERIC_SHORT_MAX (VARHDRSZ + 2 + 2 * 8)
extern int	tablescan_numeric_short(int64 unscaled, int scale, char *out);
extern int	tablescan_convert_column(const TsDatumConverter *c, const ts_batch *b, int col,
									 int first, int n, int out_stride,
									 Datum *values, bool *isnull);

/* Paimon value rendered as jsonb-compatible JSON text into buf. */
extern void tablescan_value_to_json(StringInfo buf, const ts_value *v, const ts_type *type);

/* ---- types.c: Paimon types <-> PostgreSQL types ------------------------- */

/* PostgreSQL type name for a Paimon type; NULL when it has no mapping. */
extern char *tablescan_pg_type_name(const ts_type *type);
/* Paimon type string for a format table's column (ERROR if none) */
extern char *tablescan_paimon_type_name(Form_pg_attribute att);
/* the PostgreSQL type a column must have for its quals to be pushed */
extern bool tablescan_column_type_matches(Oid typid, const ts_type *t);
/* a palloc'd type for a literal (nullable, as a predicate's) */
extern ts_type *tablescan_literal_type(ts_type_kind kind, int precision, int scale);
/* a non-null Datum as a literal of the Paimon type that holds it exactly; false if none */
extern bool tablescan_datum_to_literal(Datum d, Oid typid, ts_value *out, ts_type **type);
/* a Datum as a value of Paimon type target, only when that is exact */
extern bool tablescan_datum_to_field_value(Datum d, Oid typid, const ts_type *target,
										   ts_value *out);
/* write_values.c: a written column's Datum as the Paimon value it stores, scalars without allocations */
extern bool tablescan_write_value(Datum d, Oid typid, const ts_type *target, ts_value *out,
								  const char *colname);
/* write_nested.c: the same for TIME and nested columns (ARRAY from T[], jsonb) */
extern bool tablescan_datum_to_stored_value(Datum d, Oid typid, const ts_type *target,
											ts_value *out, const char *colname);

/* ---- modify.c: INSERT / COPY FROM ------------------------------------- */

extern void tablescan_modify_routines(FdwRoutine *routine);
/* may the foreign table be written ("updatable": a server's 'false' wins)? */
extern bool tablescan_foreign_table_updatable(Oid relid);
/* a table writer of o, refusals included (no file is written until rows come) */
struct ts_table_writer;
extern struct ts_table_writer *tablescan_open_table_writer(TsTableOptions *o, const char *relname);
/* a primary-key change (ts_row_kind): new_slot NULL for a DELETE; old_row the row it replaces */
extern void tablescan_modify_change(ResultRelInfo *rinfo, int kind, TupleTableSlot *new_slot,
									HeapTupleHeader old_row);

/*
 * Reads of the transaction's own rows: has it written into the table a scan
 * with opts reads (at its latest snapshot; opts NULL: any table)?  And the files of those rows,
 * as a scan's realtime context (entries in arena; false: none).
 */
extern bool tablescan_has_pending_writes(TsTableOptions *opts);
extern bool tablescan_pending_files(TsTableOptions *opts, ts_arena *arena,
									ts_realtime_context *out);

/* ---- modify_pk.c: UPDATE / DELETE of primary-key tables ------------- */

extern void tablescan_modify_pk_check(Oid relid, CmdType operation);
extern void tablescan_modify_pk_routines(FdwRoutine *routine);

/* ---- handler.c: the FDW callbacks ------------------------------------- */

/* Planner-side state of a foreign table, kept in baserel->fdw_private. */
typedef struct TsPlanState
{
	TsTableOptions *opts;
	ts_plan    *plan;
	int		   *att_field;		/* attno - 1 -> read-schema field, -1 */
	int			natts;
	int64		limit;			/* rows a LIMIT needs, -1 = all */
	char	   *predicate;		/* pushed predicate as text, or NULL */
	double		rows;
	double		bytes;
	int			ntasks;			/* tasks a parallel scan would share out */
	Node	   *plan_key;		/* the plan's offer (plan_reuse.c), for fdw_private */
} TsPlanState;

/*
 * fdw_private of every ForeignScan node we make; the scans that replace an
 * Aggregate (scanrelid 0: count_metadata.c, scan_aggregate.c) add the rest.
 */
enum FdwScanPrivateIndex
{
	/* Integer list of attribute numbers the query needs (0 = whole row) */
	FdwScanPrivateAttnums,
	/* String list of EXPLAIN properties: name, value, name, value ... */
	FdwScanPrivateExplain,
	/* Integer (as a String node): rows a LIMIT needs from this scan, -1 */
	FdwScanPrivateLimit,
	/* String: the key of the plan made while planning (plan_reuse.c) */
	FdwScanPrivatePlanKey,
	/* aggregate scans: range-table index of the foreign table (Integer) */
	FdwScanPrivateUpperRelid,
	/* aggregate scans: its OID (as a String node) */
	FdwScanPrivateUpperTable,
	/* aggregate scans: the quals (List of Expr) */
	FdwScanPrivateUpperQuals,
	/*
	 * count(*) scan: per scan column, the GROUP BY key's field or -1
	 * (Integers); scan of aggregates: per GROUP BY key, its equality
	 * operator (OIDs)
	 */
	FdwScanPrivateCountColumns,
	/* aggregate scans: what computes them, TS_UPPER_COUNT or TS_UPPER_SCAN (Integer) */
	FdwScanPrivateUpperKind,
	/*
	 * scan of aggregates: 1 when the query has GROUP BY keys that are all
	 * constants (none among the scan's columns), so no row read means no
	 * group (Integer; absent: 0)
	 */
	FdwScanPrivateConstGroups,
	/*
	 * scan of aggregates: the GROUP BY keys that are the pseudo-column
	 * _SHARD (shard_column.c), as a list of two lists: their attribute
	 * numbers (Integers) and their values (Consts)
	 */
	FdwScanPrivateShardKeys
};

/* How a ForeignScan that replaces an Aggregate computes it. */
typedef enum TsUpperKind
{
	TS_UPPER_COUNT,				/* count(*) from metadata: count_metadata.c */
	TS_UPPER_SCAN				/* while scanning the rows: scan_aggregate.c */
} TsUpperKind;

/* What every upper path leaves in output_rel->fdw_private, first. */
typedef struct TsUpperPath
{
	TsUpperKind kind;
	TsPlanState *base;			/* the foreign table's planner state */
	Index		relid;			/* its range-table index */
	Oid			table;			/* its OID */
	List	   *quals;			/* bare clauses */
} TsUpperPath;

/* ---- plan_reuse.c: the plan made while planning, executed if it holds -- */

typedef struct TsPlanOffer TsPlanOffer;

extern bool tablescan_reuse_plan;
extern void tablescan_plan_reuse_define_gucs(void);
extern MemoryContext tablescan_plan_context_create(void);
extern Node *tablescan_plan_offer(MemoryContext cxt, TsTableOptions *opts, ts_plan *plan,
								  int *att_field);
extern TsPlanOffer *tablescan_plan_take(Node *key, MemoryContext owner);
extern ts_plan *tablescan_plan_reuse(TsPlanOffer **offerp, Relation rel, List *quals,
									 TsTableOptions *opts, MemoryContext owner, int **att_field);
extern bool tablescan_expr_has_params(Node *node);

/* ---- explain.c --------------------------------------------------------- */

/*
 * EXPLAIN properties of a planned scan: name, value, ... as String nodes, a
 * "kept of total" value as a List of two; tablescan_explain_print prints them.
 */
extern List *tablescan_explain_properties(TsPlanState *ps);
extern List *tablescan_explain_parallel_tasks(List *props, int ntasks);
extern void tablescan_explain_print(List *props, struct ExplainState *es);
/* "Plan Reused" (EXPLAIN ANALYZE, not under COSTS OFF) */
extern void tablescan_explain_plan_reused(bool reused, struct ExplainState *es);
/* "k of n" in text; "<label> Kept" / "<label> Total" integers in other formats */
extern void tablescan_explain_kept_total(const char *label, int64 kept, int64 total,
										 struct ExplainState *es);

/* ---- file_listing.c: data file names in EXPLAIN, file indexes per file -- */

/* A property label starting with this is printed only by EXPLAIN (VERBOSE). */
#define TS_EXPLAIN_VERBOSE_ONLY "\v"
/* Append "Data File Names" (verbose only): the first 20 files the plan kept, and a count. */
extern List *tablescan_explain_files(const ts_plan *plan, List *props);
/* Strip a verbose-only label's mark; true when es does not show it. */
extern bool tablescan_explain_hidden(const char **label, struct ExplainState *es);
/* tablescan_files(): values[0] file_index, values[1] index_file of a file. */
extern void tablescan_files_index(ts_plan *plan, const ts_scan_file *file, Datum *values,
								  bool *nulls);

/* ---- upper.c: the upper paths, and the upper scans' entry points -------- */

extern void tablescanGetForeignUpperPaths(PlannerInfo *root, UpperRelationKind stage,
										  RelOptInfo *input_rel, RelOptInfo *output_rel,
										  void *extra);
extern ForeignScan *tablescan_upper_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist);
extern void tablescan_upper_path_init(TsUpperPath *up, TsUpperKind kind, PlannerInfo *root,
									  RelOptInfo *input_rel, List *quals);
extern List *tablescan_upper_private(const TsUpperPath *up, List *attnums, List *props,
									 List *columns);
extern void tablescan_upper_begin(ForeignScanState *node, int eflags);
extern TupleTableSlot *tablescan_upper_iterate(ForeignScanState *node);
extern void tablescan_upper_rescan(ForeignScanState *node);
extern void tablescan_upper_end(ForeignScanState *node);
extern void tablescan_upper_explain(ForeignScanState *node, struct ExplainState *es);
extern struct TsScanState *tablescan_upper_rows(ForeignScanState *node);
extern void tablescan_upper_shutdown(ForeignScanState *node);

/* ---- count_metadata.c: count(*) from metadata -------------------------- */

extern bool tablescan_count_add_path(PlannerInfo *root, RelOptInfo *input_rel,
									 RelOptInfo *output_rel);
extern ForeignScan *tablescan_count_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist);
extern void tablescan_count_begin(ForeignScanState *node, int eflags);
extern TupleTableSlot *tablescan_count_iterate(ForeignScanState *node);
extern void tablescan_count_rescan(ForeignScanState *node);
extern void tablescan_count_end(ForeignScanState *node);
extern void tablescan_count_explain(ForeignScanState *node, struct ExplainState *es);

/* ---- scan_aggregate.c: aggregates computed while scanning --------------- */

typedef struct TsScanState TsScanState;	/* scan_rows.c */

extern bool tablescan_agg_scan_add_path(PlannerInfo *root, RelOptInfo *input_rel,
										RelOptInfo *output_rel, bool partial);
extern ForeignScan *tablescan_agg_scan_plan(PlannerInfo *root, RelOptInfo *upper_rel, List *tlist);
extern void tablescan_agg_scan_begin(ForeignScanState *node, int eflags);
extern TupleTableSlot *tablescan_agg_scan_iterate(ForeignScanState *node);
extern void tablescan_agg_scan_rescan(ForeignScanState *node);
extern void tablescan_agg_scan_end(ForeignScanState *node);
extern void tablescan_agg_scan_explain(ForeignScanState *node, struct ExplainState *es);
/* scan_group.c: a serial GROUP BY query, partial aggregates per group under a Finalize */
extern bool tablescan_group_add_path(PlannerInfo *root, RelOptInfo *input_rel,
									 RelOptInfo *grouped_rel, Node *having);
/* the row scan of an aggregate scan (NULL before BeginForeignScan), for parallel scans */
extern TsScanState *tablescan_agg_scan_rows(ForeignScanState *node);
extern void tablescan_agg_scan_shutdown(ForeignScanState *node);

/* ---- scan_rows.c: the rows of a scan (handler.c, scan_aggregate.c) ----- */

extern TsScanState *tablescan_scan_create(EState *estate);
extern void tablescan_scan_set_source(TsScanState *st, Relation rel, Index relid, List *quals,
									  List *attnums, struct ExprContext *econtext);
extern bool tablescan_scan_next_row(TsScanState *st, TupleTableSlot *slot);
extern int64 tablescan_scan_rows_rejected(TsScanState *st);
extern bool tablescan_scan_next_values(TsScanState *st, Datum **values, bool **isnull);
/* the batches unconverted, for the aggregation by columns (scan_vector.c) */
extern bool tablescan_scan_batch(TsScanState *st, const ts_batch **batch, int *first);
extern void tablescan_scan_consume(TsScanState *st, int n);
extern bool tablescan_scan_batch_exact(TsScanState *st);
extern bool tablescan_scan_attribute(TsScanState *st, int attno, int *col,
									 const TsDatumConverter **conv);
extern void tablescan_scan_rescan(TsScanState *st, bool replan);
extern void tablescan_scan_end(TsScanState *st);
extern void tablescan_scan_explain(TsScanState *st, struct ExplainState *es);
extern void tablescan_scan_set_limit(TsScanState *st, int64 limit);
/* at BeginForeignScan: take the plan made while planning (fdw_private's key) */
extern void tablescan_scan_take_plan(TsScanState *st, Node *key);
/* errcontext callback while reading rows; arg: the TsScanState */
extern void tablescan_scan_error_context(void *arg);
/*
 * That callback pushed in cb (on the caller's stack) around reading and
 * converting rows, and popped after (an ERROR's recovery resets the stack).
 */
static inline void
tablescan_scan_context_push(TsScanState *st, ErrorContextCallback *cb)
{
	cb->callback = tablescan_scan_error_context;
	cb->arg = st;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

static inline void
tablescan_scan_context_pop(ErrorContextCallback *cb)
{
	error_context_stack = cb->previous;
}
extern void tablescan_scan_parallel_leader(TsScanState *st, TsParallelScan *pscan);
extern void tablescan_scan_parallel_worker(TsScanState *st, TsParallelScan *pscan);
extern void tablescan_scan_parallel_shutdown(TsScanState *st);
/* The rows an aggregate computed while scanning took (by columns), among a worker's figures */
extern void tablescan_scan_count_aggregated(TsScanState *st, int64 rows, int64 by_column);
/* The workers' (taken at the Gather's shutdown) */
extern void tablescan_scan_aggregated(TsScanState *st, int64 *rows, int64 *by_column);

/* ---- quals.c ----------------------------------------------------------- */

struct ExprContext;
extern struct ts_predicate *tablescan_quals_to_predicate(List *clauses, Index relid,
														 const int *att_field, int natts,
														 const ts_schema *schema,
														 struct ExprContext *econtext);
extern char *tablescan_predicate_text(const struct ts_predicate *p, const ts_schema *schema);
extern bool tablescan_quals_convert_all(List *clauses, Index relid, const int *att_field,
										int natts, const ts_schema *schema,
										struct ExprContext *econtext, struct ts_predicate **pred);

/* ---- row_id_quals.c ---------------------------------------------------- */

struct ts_row_ids;
extern bool tablescan_quals_row_ids(List *clauses, Index relid, const int *att_field, int natts,
									struct ExprContext *econtext, struct ts_row_ids *out);

/* ---- analyze.c --------------------------------------------------------- */

#include "foreign/fdwapi.h"
extern bool tablescanAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
										 BlockNumber *totalpages);

/* ---- import.c ---------------------------------------------------------- */

extern List *tablescanImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid);

#endif							/* TABLESCAN_FDW_H */
