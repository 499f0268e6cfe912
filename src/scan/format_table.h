/*
 * format_table.h - format tables: a directory of plain files under
 * Hive-style partition directories (PAIMON-FORMAT.md 8).
 *
 * Owns: partition discovery (k1=v1/k2=v2/ or, with
 * format-table.partition-path-only-value, v1/v2/), %XY unescaping,
 * default-partition name -> NULL, typed partition values (Paimon's
 * STRING -> type cast, text_value.h), pruning while descending (an
 * OR-of-ANDs partition filter whose leading equalities fix a directory
 * prefix so the upper levels are not listed, plus an optional predicate
 * called on every prefix of partition values), data-file listing of the
 * kept partitions, and paimon-cpp's ListPartitions.  No snapshots, no
 * manifests: the listing is the table.
 *
 * Ignored while listing partitions: entries starting with '.' or '_'
 * (staging: _temporary, .hive-staging_*, __magic_job-*), except that in
 * value-only layout a directory named like the default partition is
 * kept; non-directories; in key=value layout, directories without '='
 * (counted in dirs_ignored).  Errors (TS_ERR_CORRUPT naming the
 * directory): a "<key>=<value>" directory for another key than the one
 * expected at that level (partition keys in another order than the
 * nesting), a value that does not parse as the key's type.
 * Data files: every regular file at any depth below a kept partition (or
 * the root when the table is unpartitioned) whose name does not start
 * with '.' or '_' (so _SUCCESS, .part-0.crc, _temporary/ are skipped),
 * sorted by path.
 */
#ifndef TS_FORMAT_TABLE_H
#define TS_FORMAT_TABLE_H

#include "base/ts_path_escape.h"
#include "scan/scan.h"

#define TS_FT_DEFAULT_PARTITION_NAME "__DEFAULT_PARTITION__"

/*
 * Optional pruning callback: called with the first 'depth' partition
 * values known (depth = 1 .. nkeys) before descending further or keeping
 * a partition.  values[i] is NULL for the default partition; typed[i] is
 * the value parsed into key_types[i] (isnull for NULL; all NULL when no
 * types were given).  Return false to skip this directory and everything
 * below.  Must be conservative for partial prefixes.
 */
typedef bool (*ts_ft_partition_pred) (void *arg, int depth, const char *const *values,
									  const ts_value *typed);

typedef struct ts_ft_request
{
	const char *table_path;		/* the format table's data directory */
	ts_fs	   *fs;				/* read through it: required */
	int			nkeys;			/* partition keys, in partitionKeys order */
	const char *const *key_names;
	const ts_type *const *key_types;	/* may be NULL: values stay strings */
	bool		path_only_value;	/* format-table.partition-path-only-value */
	const char *default_name;	/* partition.default-name; NULL = default */
	/* OR of ANDs of key = value (unescaped path text; default name = NULL) */
	int			nfilters;
	const ts_option *const *filters;	/* each terminated by {NULL, NULL} */
	ts_ft_partition_pred pred;	/* may be NULL */
	void	   *pred_arg;
	bool		list_files;		/* false: partitions only (ListPartitions) */
	/*
	 * A name directly below table_path that is never data nor a partition
	 * (the "schema" directory when a format table's files live next to
	 * its schema files); NULL = none.
	 */
	const char *skip_top;
} ts_ft_request;

typedef struct ts_ft_partition
{
	char	   *path;			/* directory of the partition */
	char	  **values;			/* nkeys unescaped values; NULL = NULL value */
	ts_value   *typed;			/* nkeys typed values (isnull when untyped) */
} ts_ft_partition;

typedef struct ts_ft_file
{
	char	   *path;
	int			partition;		/* index into partitions; -1 unpartitioned */
} ts_ft_file;

typedef struct ts_ft_metrics
{
	int64_t		dirs_listed;	/* directories whose entries were read */
	int64_t		dirs_ignored;	/* entries skipped as not-a-partition */
	int64_t		partitions_listed;	/* leaf partition dirs seen, kept or not */
	int64_t		partitions_kept;	/* after filter + predicate */
	int64_t		files;			/* data files listed */
	int			start_prefixes; /* directories the listing started from */
	int			start_depth;	/* min levels skipped thanks to equalities */
} ts_ft_metrics;

typedef struct ts_ft_listing
{
	ts_arena	arena;			/* everything below lives here */
	int			nkeys;
	const char **key_names;
	const char *default_name;	/* the NULL partition's directory value */
	int			npartitions;	/* sorted by values in key order, NULL first */
	ts_ft_partition *partitions;
	int			nfiles;			/* sorted by partition order, then path */
	ts_ft_file *files;
	ts_ft_metrics metrics;
} ts_ft_listing;

/* Fill path_only_value / default_name from Paimon options (later wins). */
bool		ts_ft_request_set_options(ts_ft_request *req, const ts_option *options,
									  int noptions, ts_err *err);

/* List (and prune) partitions, and their files when req->list_files. */
ts_ft_listing *ts_format_table_list(const ts_ft_request *req, ts_err *err);
void		ts_ft_listing_free(ts_ft_listing *l);

/*
 * paimon-cpp's ListPartitions: the kept partitions (filter and predicate
 * applied) without listing files: partitions[p].values[k] is the value of
 * key_names[k] (NULL for the default partition), sorted by values in key
 * order (typed comparison when key types are given, NULL first).  Free
 * with ts_ft_listing_free.  A table without partition keys has none.
 */
ts_ft_listing *ts_format_table_list_partitions(const ts_ft_request *req, ts_err *err);

/*
 * ListPartitions from partitions a catalog names instead of the file
 * system: specs[p] (nspecs[p] pairs, key -> unescaped value; the default
 * partition name or a NULL value = NULL) typed by the key types, filtered
 * and sorted as ts_format_table_list_partitions does; partitions[].path is
 * the directory the partition's files would be in.  A spec without a
 * partition key, or a value not of its key's type, is TS_ERR_CORRUPT
 * naming "what" (the catalog's endpoint).
 */
ts_ft_listing *ts_format_table_partitions_given(const ts_ft_request *req, int nparts,
												const ts_option *const *specs, const int *nspecs,
												const char *what, ts_err *err);

/* The old names of ts_partition_escape / ts_partition_unescape. */
static inline char *
ts_ft_escape(const char *s)
{
	return ts_partition_escape(s);
}

static inline char *
ts_ft_unescape(const char *s)
{
	return ts_partition_unescape(s);
}

#endif							/* TS_FORMAT_TABLE_H */
