/*
 * consumer_file.c - writing Paimon's consumer files when the reading
 * transaction commits.
 *
 * Owns: the checks made before a consumer file is promised (the consumer
 * id as a file name, a store that writes, the table "updatable", the
 * INSERT privilege on the foreign table: the file is a write into the
 * lake) and the files promised by the transaction, each with the file
 * system it is written through (built when promised for the table's
 * store, with the reading role's scope and storage keys, as a writer's
 * is: for a REST-catalog table, as Java's ConsumerManager does through the
 * table's FileIO, below the location the catalog gave and with its data
 * token when it vends one, else the server's and mapping's keys), written by the transaction's XACT_EVENT_COMMIT callback: after the commit, so that a file never says more than the
 * consumer's committed position in tablescan_consumers (a file behind it
 * only keeps more snapshots from Java's expiration; one ahead could let
 * it remove snapshots the consumer has not read).  A write that fails
 * then is a WARNING (the transaction has committed); the file catches up
 * at the consumer's next read.  A rolled-back transaction or
 * subtransaction writes nothing; PREPARE TRANSACTION is refused (the
 * commit would happen in another session).
 */
#include "postgres.h"

#include "access/xact.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "tablescan_fdw.h"
#include "meta/consumer.h"

typedef struct PendingFile
{
	char	   *path;			/* <branch root>/consumer/consumer-<id> */
	int64		next;			/* its nextSnapshot */
	ts_fs	   *fs;				/* the table's store, the reading role's scope and keys */
	SubTransactionId subid;		/* the subtransaction that promised it */
} PendingFile;

static List *pending = NIL;		/* of PendingFile, in TopTransactionContext */
static bool callbacks_registered = false;

/*
 * The file system consumer files of table o are written through, in the
 * current memory context: its store with the reading role's scope and
 * storage settings (o's: a REST table's data token among them), as
 * tablescan_open_table_writer builds a writer's.
 */
static ts_fs *
consumer_fs(const TsTableOptions *o)
{
	ts_fs_settings settings = {0};
	ts_err		err = {0};
	ts_fs	   *fs;

	settings.s3 = o->s3;
	settings.azure = o->azure;
	fs = ts_fs_open_for(o->table_path, &settings, o->fs_scope, &err);
	if (fs == NULL)
		tablescan_report(&err);
	return fs;
}

void
tablescan_consumer_file_check(Oid relid, const TsTableOptions *o, const char *consumer)
{
	ts_err		err = {0};
	AclResult	acl;

	ts_fs	   *fs;

	if (!ts_consumer_id_check(consumer, &err))
		tablescan_report(&err);
	fs = consumer_fs(o);
	if (!ts_consumer_writable(fs, o->table_path, &err))
	{
		ts_fs_free(fs);
		tablescan_report(&err);
	}
	ts_fs_free(fs);
	if (!tablescan_foreign_table_updatable(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot write the Paimon consumer file of consumer \"%s\": foreign table \"%s\" is not updatable",
						consumer, get_rel_name(relid))));
	/* the file is written into the table: the privilege that writes it */
	acl = pg_class_aclcheck(relid, GetUserId(), ACL_INSERT);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FOREIGN_TABLE, get_rel_name(relid));
}

static void
forget_pending(void)
{
	ListCell   *lc;

	foreach(lc, pending)
		ts_fs_free(((PendingFile *) lfirst(lc))->fs);
	pending = NIL;				/* the rest of its memory goes with TopTransactionContext */
}

static void
write_pending(void)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingFile *p = lfirst(lc);
		ts_err		err = {0};

		if (!ts_consumer_write(p->fs, p->path, p->next, &err))
			ereport(WARNING,
					(errcode(ERRCODE_IO_ERROR),
					 errmsg("could not write Paimon consumer file \"%s\": %s", p->path, err.msg),
					 errdetail("The transaction has committed; the file keeps its previous position until the consumer's next read.")));
	}
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_PREPARE:
			if (pending != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that moved a consumer with a Paimon consumer file")));
			break;
		case XACT_EVENT_COMMIT:
			write_pending();
			forget_pending();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			forget_pending();
			break;
		default:
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingFile *p = lfirst(lc);

		if (p->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
			p->subid = parentSubid;
		else if (event == SUBXACT_EVENT_ABORT_SUB)
		{
			ts_fs_free(p->fs);
			pending = foreach_delete_current(pending, lc);
		}
	}
}

void
tablescan_consumer_file_promise(const TsTableOptions *o, const char *branch_root,
								const char *consumer, int64 next)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	char	   *path = ts_consumer_path(branch_root, consumer);
	PendingFile *p = NULL;
	ListCell   *lc;

	if (path == NULL)
		elog(ERROR, "out of memory");
	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		RegisterSubXactCallback(subxact_callback, NULL);
		callbacks_registered = true;
	}
	/*
	 * A later read of the same consumer in the same subtransaction: its
	 * position.  Promises are written in order, so the last one wins; those
	 * of an aborted subtransaction are dropped, its parent's stay.
	 */
	foreach(lc, pending)
	{
		PendingFile *q = lfirst(lc);

		if (strcmp(q->path, path) == 0)
			p = q;
	}
	if (p != NULL && p->subid != GetCurrentSubTransactionId())
		p = NULL;
	if (p == NULL)
	{
		p = palloc0(sizeof(PendingFile));
		p->path = path;
		p->fs = consumer_fs(o);
		p->subid = GetCurrentSubTransactionId();
		pending = lappend(pending, p);
	}
	p->next = next;
	MemoryContextSwitchTo(old);
}
