/*
 * write.h - writing rows into a Paimon table (the write layer).
 *
 * Owns the public interface of src/write: a table writer that takes rows
 * in the table schema's column order, routes each to its partition and
 * bucket as Java Paimon does, writes data files (rolled at
 * target-file-size) as rows come, and commits them as one APPEND
 * snapshot (manifest, manifest lists, snapshot-<N+1> created exclusively,
 * LATEST hint), retrying when another writer committed first.  What it
 * cannot write correctly (primary-key tables other than fixed-bucket ones
 * with merge engines the reader applies, deletion vectors, changelog
 * producers other than input, row tracking, data evolution, formats and types it does not
 * write...) is refused by ts_table_writer_open before
 * any file is written, as is a store on which the commit cannot be atomic.
 * Every file is read and written through the fs the writer is given.
 */
#ifndef TS_WRITE_H
#define TS_WRITE_H

#include "base/ts_value.h"
#include "meta/schema.h"
#include "scan/scan.h"

typedef struct ts_table_writer ts_table_writer;

/* Row kinds (_VALUE_KIND of primary-key files, Java's RowKind) */
typedef enum ts_row_kind
{
	TS_ROW_INSERT = 0,
	TS_ROW_UPDATE_BEFORE = 1,
	TS_ROW_UPDATE_AFTER = 2,
	TS_ROW_DELETE = 3
} ts_row_kind;

/*
 * Open a writer of the table at table_path (its latest schema), with
 * options[0..noptions) over the schema's own (as a scan merges them),
 * reading and writing through fs (built by the caller for the table with
 * its scope and credentials; the writer takes it, freed with the writer,
 * also when opening fails).
 */
ts_table_writer *ts_table_writer_open(ts_fs *fs, const char *table_path, const ts_option *options,
									  int noptions, ts_err *err);

/*
 * A catalog that commits snapshots itself (the REST catalog): instead of
 * creating snapshot-N in the store, the commit hands it the snapshot's
 * JSON, the uuid of the snapshot it was built on (NULL: none, or one
 * without a uuid) and Java's per-partition statistics (a JSON array).
 * commit sets *committed false when another writer's snapshot came first
 * (the commit then retries on the new latest, as after a lost race);
 * false with err when the outcome is a failure.  release frees arg (with
 * the writer).  Neither may longjmp.
 */
typedef struct ts_catalog_commit
{
	bool		(*commit) (void *arg, int64_t snapshot_id, const char *base_snapshot_uuid,
						   const char *snapshot_json, const char *statistics_json,
						   bool *committed, ts_err *err);
	void		(*release) (void *arg);
	void	   *arg;
} ts_catalog_commit;

/*
 * ts_table_writer_open for a table of a catalog that commits (cc, copied;
 * cc->release is called also when opening fails): the store needs no
 * atomic create, and no snapshot or LATEST hint is written into it.
 */
ts_table_writer *ts_table_writer_open_in_catalog(ts_fs *fs, const char *table_path,
												 const ts_option *options, int noptions,
												 const ts_catalog_commit *cc, ts_err *err);

/* The schema rows are given in (its fields' order). */
const ts_schema *ts_table_writer_schema(const ts_table_writer *w);

/* One row: values[0..nfields) (strings are copied). */
bool		ts_table_writer_add(ts_table_writer *w, const ts_value *values, ts_err *err);

/*
 * Primary-key tables: one row of kind TS_ROW_UPDATE_AFTER (old_values =
 * the row it replaces: its key and partition must be the same; with
 * changelog-producer input it is the changelog's -U row) or
 * TS_ROW_DELETE (old_values NULL, values = the row deleted).  Refused for
 * append tables and where the table's merge engine would misread it.
 */
bool		ts_table_writer_add_change(ts_table_writer *w, ts_row_kind kind, const ts_value *values,
									   const ts_value *old_values, ts_err *err);

/* Can rows of this kind be written (ts_table_writer_add_change)? */
bool		ts_table_writer_check_kind(const ts_table_writer *w, ts_row_kind kind, ts_err *err);

/* Does the writer also write changelog files (changelog-producer input)? */
bool		ts_table_writer_writes_changelog(const ts_table_writer *w);

/* The bucket count files are written with: -1 (bucket-unaware) or N. */
int32_t		ts_table_writer_total_buckets(const ts_table_writer *w);

/* The data files' format: "parquet", "orc" or "avro" (file.format). */
const char *ts_table_writer_file_format(const ts_table_writer *w);

/* Rows and data files written so far. */
int64_t		ts_table_writer_rows(const ts_table_writer *w);
int			ts_table_writer_files(const ts_table_writer *w);

/*
 * At most n data files open at once (0: no bound; the default).  Each
 * open file holds a descriptor (local stores) or an upload and its
 * buffers, and a file format writer's pages: when a row goes to a
 * partition and bucket without an open file while n are open, the file
 * written to least recently is finished first, as target-file-size rolls
 * it (a bucket then has several files in the commit, numbered in the
 * order written).  Primary-key buckets write files only while flushing
 * their buffer, one at a time, so they never hold more than one open.
 */
void		ts_table_writer_set_max_open_files(ts_table_writer *w, int n);

/* Data files open now (tests and EXPLAIN ANALYZE). */
int			ts_table_writer_open_files(const ts_table_writer *w);

/*
 * Data files opened so far for a partition and bucket whose earlier file
 * the bound above had finished: the files written beyond one per bucket
 * because of the bound (rows sorted by partition add none).
 */
int64_t		ts_table_writer_bound_extra_files(const ts_table_writer *w);

/*
 * Realtime reads of the transaction's own rows: finish every open file and
 * buffered record (primary-key records become level-0 files with their
 * sequence numbers), so that every row written so far is in a finished
 * file; and the first nfiles finished files (in the order finished,
 * ts_table_writer_files counts them) as ADD entries of the table's
 * manifests would hold them, in arena (pending.c), for a scan of this
 * process to read with the latest snapshot's (ts_scan_context.realtime).
 * Append files are numbered from 0 per bucket (the commit numbers them
 * after the bucket's committed rows).
 */
bool		ts_table_writer_flush(ts_table_writer *w, ts_err *err);
bool		ts_table_writer_pending_entries(const ts_table_writer *w, int nfiles, ts_arena *arena,
											ts_manifest_entry **entries, ts_err *err);

/*
 * Finish the data files and commit them as snapshot *snapshot_id (0 when
 * no row was written: nothing is committed).  On failure the data files
 * stay for ts_table_writer_abort to remove.
 */
bool		ts_table_writer_commit(ts_table_writer *w, const char *commit_user,
								   int64_t *snapshot_id, ts_err *err);

/* Remove every data file written and not committed, and free the writer. */
void		ts_table_writer_abort(ts_table_writer *w);

/* Free a committed writer (its files stay). */
void		ts_table_writer_free(ts_table_writer *w);

#endif							/* TS_WRITE_H */
