/*
 * module.c - loading the module: its GUCs and the library's hooks.
 *
 * Owns: _PG_init (the tablescan.* settings, the hooks of hooks.c, the
 * session time zone) and the variables of the settings the other files
 * read.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "tablescan_fdw.h"

PG_MODULE_MAGIC;

extern char *tablescan_scan_options;
bool		tablescan_enable_pruning = true;
bool		tablescan_enable_file_index = true;
bool		tablescan_enable_aggregate_pushdown = true;
bool		tablescan_enable_columnar_aggregate = true;
int			tablescan_parallel_task_size_kb = 16384;
int			tablescan_cache_size_mb = 64;
bool		tablescan_decompress_ahead = true;
int			tablescan_max_open_writers = 1000;

void		_PG_init(void);

static void
assign_cache_size(int newval, void *extra)
{
	ts_scan_cache_set_limit((size_t) newval << 20);
}

void
_PG_init(void)
{
	DefineCustomStringVariable("tablescan.scan_options",
							   "Paimon scan options for the queries of this session (key=value,...).",
							   "They take precedence over server and foreign table options.",
							   &tablescan_scan_options, "",
							   PGC_USERSET, 0, tablescan_check_scan_options, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_pruning",
							 "Prune partitions, buckets and files while planning Paimon scans.",
							 NULL, &tablescan_enable_pruning, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_file_index",
							 "Use Paimon's file indexes (bloom filter, bitmap, BSI) to skip data files.",
							 "Embedded indexes while planning, sidecar .index files before a file is read.",
							 &tablescan_enable_file_index, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_aggregate_pushdown",
							 "Push aggregates down into Paimon scans.",
							 "When on, count(*) over an append table with no filter or filters on "
							 "partition keys only sums the manifests' row counts instead of reading "
							 "data files, and other plain aggregates of columns are computed while "
							 "scanning, in place of an Aggregate node.",
							 &tablescan_enable_aggregate_pushdown, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.enable_columnar_aggregate",
							 "Compute pushed aggregates of fixed-width columns by columns.",
							 "When on, a pushed aggregation whose inputs are fixed-width columns "
							 "and whose aggregates are counts, sums, min / max or bool_and / bool_or "
							 "runs over the batches a column at a time instead of row by row; "
							 "the results are the same.",
							 &tablescan_enable_columnar_aggregate, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.parallel_task_size",
							"Size of the parts a parallel scan reads a large data file in.",
							"A Parquet or ORC data file of an append or format table, or an "
							"uncompressed CSV, JSON or TEXT file of a format table, larger than this "
							"is handed out to the processes of a parallel scan in parts of about "
							"this size (the row groups, stripes or lines that start in each part; "
							"a CSV file's parts start at records, and one on an object store is not cut).",
							&tablescan_parallel_task_size_kb, 16384, 1, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.cache_size",
							"Size of the per-backend cache of live Paimon manifest entries.",
							"0 turns the cache off.",
							&tablescan_cache_size_mb, 64, 0, 1048576,
							PGC_USERSET, GUC_UNIT_MB, NULL, assign_cache_size, NULL);
	DefineCustomBoolVariable("tablescan.decompress_ahead",
							 "Decompress ZSTD Parquet pages and Avro blocks ahead in a helper thread.",
							 "While a serial scan decodes a Parquet page or row group, or an Avro "
							 "block, a helper thread of the backend decompresses the ones it "
							 "will need next (and reads the large pages of a local file first, "
							 "and decodes the records of a flat Avro block).",
							 &tablescan_decompress_ahead, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablescan.max_open_writers",
							"Most data files one write into a Paimon table keeps open at once.",
							"Each partition and bucket an INSERT, UPDATE or DELETE writes into has "
							"its own data file; with this many open, the file written to least "
							"recently is finished before another is opened (its partition and "
							"bucket then get a new file if more rows come), which bounds the "
							"descriptors and buffers a write into many partitions holds.  Read "
							"when a transaction first writes the table.",
							&tablescan_max_open_writers, 1000, 1, 65536,
							PGC_USERSET, 0, NULL, NULL, NULL);
	tablescan_storage_define_gucs();
	tablescan_rest_token_define_gucs();
	tablescan_plan_reuse_define_gucs();
	tablescan_shared_cache_define_guc();
	MarkGUCPrefixReserved("tablescan");
	tablescan_install_hooks();
	tablescan_install_session_zone();
	ts_scan_cache_set_limit((size_t) tablescan_cache_size_mb << 20);
}
