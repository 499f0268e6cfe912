/*
 * snapshot.h - Paimon snapshots, hints and tags.
 *
 * Owns: parsing snapshot JSON (unknown keys ignored, explicit nulls
 * tolerated), finding the latest / earliest snapshot (LATEST / EARLIEST
 * hints with the directory-listing fallback) and reading tag files (a
 * snapshot JSON plus tag fields).  'branch_root' is the table root for
 * the main branch, <root>/branch/branch-<name> otherwise.
 */
#ifndef TS_SNAPSHOT_H
#define TS_SNAPSHOT_H

#include "base/ts_base.h"
#include "base/ts_fs.h"

typedef struct ts_snapshot
{
	int			version;
	int64_t		id;
	int64_t		schema_id;
	char	   *base_manifest_list;		/* file names under <root>/manifest */
	char	   *delta_manifest_list;
	char	   *changelog_manifest_list;	/* NULL if absent/null */
	/* their byte sizes (Paimon 1.1+), -1 if absent */
	int64_t		base_manifest_list_size;
	int64_t		delta_manifest_list_size;
	int64_t		changelog_manifest_list_size;
	char	   *index_manifest;			/* NULL if absent */
	char	   *commit_user;
	int64_t		commit_identifier;
	char	   *commit_kind;			/* APPEND, COMPACT, OVERWRITE, ANALYZE */
	int64_t		time_millis;
	int64_t		total_record_count;		/* -1 if absent */
	int64_t		delta_record_count;		/* -1 if absent */
	bool		has_watermark;
	int64_t		watermark;
	bool		has_next_row_id;
	int64_t		next_row_id;
	char	   *uuid;			/* Paimon 1.3+, NULL if absent */
} ts_snapshot;

ts_snapshot *ts_snapshot_parse(const char *json, size_t len, const char *what, ts_err *err);

/* <branch_root>/snapshot/snapshot-<id>; TS_ERR_NOT_FOUND if missing. */
ts_snapshot *ts_snapshot_load(ts_fs *fs, const char *branch_root, int64_t id, ts_err *err);

/*
 * Latest / earliest snapshot id per PAIMON-FORMAT.md 3.2.  *id = 0 when the
 * table has no snapshot at all (an empty table, not an error).
 */
bool		ts_snapshot_latest_id(ts_fs *fs, const char *branch_root, int64_t *id, ts_err *err);
bool		ts_snapshot_earliest_id(ts_fs *fs, const char *branch_root, int64_t *id, ts_err *err);

/*
 * The latest snapshot, loaded (*out NULL when the table has none): the same
 * choice as ts_snapshot_latest_id, but a LATEST hint's snapshot is read
 * with no existence probe first (on an object store, a HEAD less): only a
 * 404 of it falls back to listing.
 */
bool		ts_snapshot_load_latest(ts_fs *fs, const char *branch_root, ts_snapshot **out, ts_err *err);

/*
 * ts_snapshot_load_latest in two halves, so that a plan can send the first
 * half's requests with others of the same round trip (the schema's GET):
 * begin reads the LATEST hint (LATEST, or a listing without one), starts
 * the GET of the hint's snapshot and asks whether the snapshot after it
 * exists (a HEAD); finish loads the chosen snapshot (the GET begun, or a
 * listing when the hint's snapshot is missing) and frees what begin
 * holds.  A begun state not finished is freed with ts_snapshot_latest_free
 * (nothing to free after a begin that failed).
 */
struct ts_prefetch;
typedef struct ts_snapshot_latest
{
	int64_t		id;				/* 0: no snapshot */
	bool		from_hint;		/* id is the hint's, its file not checked */
	bool		begun;
	struct ts_prefetch *ahead;	/* the hint's snapshot, on its way */
} ts_snapshot_latest;

bool		ts_snapshot_latest_begin(ts_fs *fs, const char *branch_root, ts_snapshot_latest *L,
									 ts_err *err);
bool		ts_snapshot_latest_finish(ts_fs *fs, const char *branch_root, ts_snapshot_latest *L,
									  ts_snapshot **out, ts_err *err);
void		ts_snapshot_latest_free(ts_snapshot_latest *L);

/*
 * The newest snapshot id in [earliest, latest] whose timeMillis <= t, by
 * binary search (timeMillis grows with the id); *found = 0 if none.
 */
bool		ts_snapshot_at_or_before(ts_fs *fs, const char *branch_root, int64_t earliest, int64_t latest,
									 int64_t t, int64_t *found, ts_err *err);

/* <branch_root>/tag/tag-<name>; TS_ERR_NOT_FOUND names the tag. */
ts_snapshot *ts_tag_load(ts_fs *fs, const char *branch_root, const char *tag_name, ts_err *err);

void		ts_snapshot_free(ts_snapshot *s);

#endif							/* TS_SNAPSHOT_H */
