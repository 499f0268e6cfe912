/*
 * rest_write.c - writes into tables of a REST catalog.
 *
 * Owns: opening a table writer (src/write) for a table the catalog
 * resolved (rest.c: its location, and in an object store the data token
 * or the user mapping's keys, the file scope below the location), whose
 * snapshot is committed through the catalog's commit endpoint
 * (scan/rest_commit.c) rather than created in the store.  The catalog
 * connection is made when the writer opens (an ERROR then, before any
 * file is written) and kept, with a copy of the role's bearer token, until
 * the writer is freed; the commit itself runs at pre-commit and only
 * returns statuses (nothing here may ereport below the write layer).  The
 * token is sent, never shown, and wiped when released.
 */
#include "postgres.h"

#include "foreign/foreign.h"

#include "tablescan_fdw.h"
#include "scan/ts_rest.h"
#include "write/write.h"

/* What a writer's commit needs; ts_malloc'd: it outlives any memory context. */
typedef struct RestCommitTarget
{
	ts_rest_catalog catalog;
	char	   *token;			/* the role's bearer, owned (catalog.token points here) */
	char	   *database;
	char	   *table;
	char	   *table_id;
} RestCommitTarget;

static void
release_target(void *arg)
{
	RestCommitTarget *t = arg;

	if (t == NULL)
		return;
	ts_rest_disconnect(&t->catalog);
	if (t->token)
	{
		explicit_bzero(t->token, strlen(t->token));
		ts_free(t->token);
	}
	ts_free(t->database);
	ts_free(t->table);
	ts_free(t->table_id);
	ts_free(t);
}

static bool
commit_snapshot(void *arg, int64_t snapshot_id, const char *base_snapshot_uuid,
				const char *snapshot_json, const char *statistics_json, bool *committed,
				ts_err *err)
{
	RestCommitTarget *t = arg;

	return ts_rest_commit_snapshot(&t->catalog, t->database, t->table, t->table_id,
								   base_snapshot_uuid, snapshot_json, statistics_json,
								   committed, err);
}

static char *
copy_or_null(const char *s, bool *nomem)
{
	char	   *c;

	if (s == NULL)
		return NULL;
	c = ts_strdup(s);
	if (c == NULL)
		*nomem = true;
	return c;
}

struct ts_table_writer *
tablescan_rest_open_writer(TsTableOptions *o, ts_fs *fs, const ts_option *options, int n,
						   ts_err *err)
{
	ForeignServer *server = GetForeignServer(o->rest->serverid);
	RestCommitTarget *t = ts_calloc(1, sizeof(RestCommitTarget));
	ts_catalog_commit cc;
	bool		nomem = t == NULL;

	if (t != NULL)
	{
		t->database = copy_or_null(o->rest->database, &nomem);
		t->table = copy_or_null(o->rest->table, &nomem);
		t->table_id = copy_or_null(o->rest->table_id, &nomem);
	}
	if (nomem)
	{
		release_target(t);
		ts_fs_free(fs);
		ts_error_nomem(err, "a REST catalog commit");
		return NULL;
	}
	PG_TRY();
	{
		tablescan_rest_connect(server, &t->catalog);
	}
	PG_CATCH();
	{
		release_target(t);
		ts_fs_free(fs);
		PG_RE_THROW();
	}
	PG_END_TRY();
	/* the mapping's option lives in this statement's memory: the writer keeps a copy */
	if (t->catalog.token != NULL)
	{
		t->token = ts_strdup(t->catalog.token);
		if (t->token == NULL)
		{
			release_target(t);
			ts_fs_free(fs);
			ts_error_nomem(err, "a REST catalog commit");
			return NULL;
		}
		t->catalog.token = t->token;
	}
	cc.commit = commit_snapshot;
	cc.release = release_target;
	cc.arg = t;
	return ts_table_writer_open_in_catalog(fs, o->table_path, options, n, &cc, err);
}
