/*
 * consumer.h - Paimon's consumer files (consumer/consumer-<id>).
 *
 * Owns: the rules for a consumer id used as a file name, the path of a
 * consumer's file under a branch root, reading its next snapshot (Java's
 * Consumer.fromPath: JSON {"nextSnapshot" : N}, unknown keys ignored) and
 * writing it as Java's ConsumerManager does (pretty JSON, replaced
 * atomically: temporary name then rename; local file systems only).
 * WRITES-AND-STREAMS.md 5.8.  No PostgreSQL here: src/fdw/consumer_file.c
 * decides when a file is written.
 */
#ifndef TS_CONSUMER_H
#define TS_CONSUMER_H

#include "base/ts_base.h"
#include "base/ts_fs.h"

/*
 * A consumer id usable as a file name: not empty, no '/', no "..", no
 * control characters, at most 200 bytes.  TS_ERR_INVALID naming it.
 */
bool		ts_consumer_id_check(const char *id, ts_err *err);

/* <branch_root>/consumer/consumer-<id>, ts_malloc'd (NULL: out of memory). */
char	   *ts_consumer_path(const char *branch_root, const char *id);

/* Parse a consumer file's JSON: its nextSnapshot (> 0), else TS_ERR_CORRUPT naming 'what'. */
bool		ts_consumer_parse(const char *json, size_t len, const char *what,
							  int64_t *next_snapshot, ts_err *err);

/*
 * Read consumer id's file through fs: *exists = false (and true returned)
 * when there is none, else its next snapshot.
 */
bool		ts_consumer_read(ts_fs *fs, const char *branch_root, const char *id,
							 bool *exists, int64_t *next_snapshot, ts_err *err);

/*
 * Can fs write consumer files below branch_root?  False with
 * TS_ERR_UNSUPPORTED naming the store when it does not write, or the
 * scope's denial.  Nothing is written.
 */
bool		ts_consumer_writable(ts_fs *fs, const char *branch_root, ts_err *err);

/*
 * Write {"nextSnapshot" : N} to 'path' (a ts_consumer_path) through fs,
 * replacing it: atomically on a local file system (written aside, then
 * renamed), by one PUT on an object store (an object is replaced whole).
 */
bool		ts_consumer_write(ts_fs *fs, const char *path, int64_t next_snapshot, ts_err *err);

#endif							/* TS_CONSUMER_H */
