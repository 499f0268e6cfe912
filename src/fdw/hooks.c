/*
 * hooks.c - how the server-free library lives inside a backend.
 *
 * Owns: the allocation hooks (palloc in the current memory context, so
 * everything is freed with the query even on ERROR), the file hooks
 * (transient files, closed by PostgreSQL at abort), the interrupt hook
 * (CHECK_FOR_INTERRUPTS), the file scope reset at transaction end, the
 * prefetch registry told of subtransaction ends (an abort drops only the
 * sets of its level: prefetch.c), and turning a ts_err into ereport.
 */
#include "postgres.h"

#include <fcntl.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "tablescan_fdw.h"
#include "base/ts_prefetch.h"

/*
 * palloc guarantees MAXALIGN (8 bytes), but the library's values hold
 * __int128 decimals, which the compiler may access with 16-byte aligned
 * instructions; malloc gives 16.  So every block carries a small header
 * (the raw chunk and the size) and starts on a 16-byte boundary.
 */
typedef struct AlignedHeader
{
	void	   *raw;
	size_t		size;
} AlignedHeader;

#define ALIGN_TO 16

/* size bytes in cxt, ALIGN_TO-aligned, with the header pg_free / pg_realloc read; NULL if out of memory */
static void *
aligned_alloc_in(MemoryContext cxt, size_t size)
{
	char	   *raw = MemoryContextAllocExtended(cxt, size + sizeof(AlignedHeader) + ALIGN_TO,
												 MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	uintptr_t	p;
	AlignedHeader *h;

	if (raw == NULL)
		return NULL;
	p = ((uintptr_t) raw + sizeof(AlignedHeader) + ALIGN_TO - 1) & ~(uintptr_t) (ALIGN_TO - 1);
	h = (AlignedHeader *) p - 1;
	h->raw = raw;
	h->size = size;
	return (void *) p;
}

static void *
pg_alloc(size_t size)
{
	return aligned_alloc_in(CurrentMemoryContext, size);
}

static void
pg_free(void *p)
{
	pfree(((AlignedHeader *) p - 1)->raw);
}

static void *
pg_realloc(void *p, size_t size)
{
	AlignedHeader *h = (AlignedHeader *) p - 1;
	void	   *n = pg_alloc(size);

	if (n == NULL)
		return NULL;
	memcpy(n, p, Min(size, h->size));
	pg_free(p);
	return n;
}

/* The allocation owner of work driven later (ts_alloc_owner): a memory context. */
static void *
pg_owner_current(void)
{
	return CurrentMemoryContext;
}

static void *
pg_owner_switch(void *owner)
{
	return MemoryContextSwitchTo((MemoryContext) owner);
}

static bool
pg_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
	return true;
}

/*
 * An interrupt that will end the query: InterruptPending alone is also set
 * for work CHECK_FOR_INTERRUPTS does and goes on (barriers, parallel
 * messages, memory context logging), which must not stop a transfer.  One
 * PostgreSQL cannot act on now (interrupts held, as while a transaction
 * aborts) does not stop it either: an abort's callbacks delete the files
 * the transaction wrote, and a terminate that stopped the write must not
 * also stop their removal (the backend ends right after the abort).
 */
static bool
pg_interrupt_pending(void)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending) &&
		INTERRUPTS_CAN_BE_PROCESSED();
}

static int
pg_open_fd(const char *path)
{
	return OpenTransientFile(path, O_RDONLY | PG_BINARY);
}

static void
pg_close_fd(int fd)
{
	CloseTransientFile(fd);
}

/*
 * The live manifest-entry cache and the chunk pool of plan arenas live as
 * long as the backend.
 */
static MemoryContext cache_cxt = NULL;
static MemoryContext pool_cxt = NULL;


static void *
cache_alloc(size_t size)
{
	return aligned_alloc_in(cache_cxt, size);
}

static void *
pool_alloc(size_t size)
{
	return aligned_alloc_in(pool_cxt, size);
}

/*
 * Every scan reads through its plan's file system (ts_fs.h), IMPORT and the
 * REST catalog's checks through their own: there is no process-wide scope
 * or store settings to reset, only the prefetched sets.
 */
static void
reset_scope(void)
{
	ts_prefetch_forget_all();	/* a set's memory went with its context */
}

static void
scope_xact_callback(XactEvent event, void *arg)
{
	reset_scope();
}

static void
scope_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		/* its sets may have gone with its queries; the outer ones' stay */
		ts_prefetch_forget_level(GetCurrentTransactionNestLevel());
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		ts_prefetch_commit_level(GetCurrentTransactionNestLevel());
}

void
tablescan_install_hooks(void)
{
	static const ts_alloc_hooks alloc = {pg_alloc, pg_realloc, pg_free};
	static const ts_fs_hooks fs = {pg_open_fd, pg_close_fd};

	ts_set_alloc_hooks(&alloc);
	ts_set_alloc_owner_hooks(pg_owner_current, pg_owner_switch);
	ts_fs_set_hooks(&fs);
	reset_scope();
	RegisterXactCallback(scope_xact_callback, NULL);
	RegisterSubXactCallback(scope_subxact_callback, NULL);
	ts_prefetch_set_nest_level_hook(GetCurrentTransactionNestLevel);
	ts_set_interrupt_hook(pg_interrupts);
	ts_set_interrupt_pending_hook(pg_interrupt_pending);
	if (cache_cxt == NULL)
		cache_cxt = AllocSetContextCreate(TopMemoryContext, "tablescan_fdw live-entry cache",
										  ALLOCSET_DEFAULT_SIZES);
	ts_scan_cache_set_alloc(cache_alloc, pg_free);
	if (pool_cxt == NULL)
		pool_cxt = AllocSetContextCreate(TopMemoryContext, "tablescan_fdw plan chunk pool",
										 ALLOCSET_DEFAULT_SIZES);
	ts_chunk_pool_set_alloc(pool_alloc, pg_free);
}

void
tablescan_report(const ts_err *err)
{
	int			code;

	switch (err->code)
	{
		case TS_ERR_NOT_FOUND:
			code = ERRCODE_UNDEFINED_FILE;	/* 58P01: a missing data or metadata file */
			break;
		case TS_ERR_IO:
			code = ERRCODE_FDW_ERROR;
			break;
		case TS_ERR_CORRUPT:
			code = ERRCODE_DATA_CORRUPTED;
			break;
		case TS_ERR_UNSUPPORTED:
			code = ERRCODE_FEATURE_NOT_SUPPORTED;
			break;
		case TS_ERR_INVALID:
			code = ERRCODE_INVALID_PARAMETER_VALUE;	/* a bad option value or argument */
			break;
		case TS_ERR_NOMEM:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case TS_ERR_CANCELED:
			/* PostgreSQL's own message (statement timeout, user request...) */
			CHECK_FOR_INTERRUPTS();
			code = ERRCODE_QUERY_CANCELED;
			break;
		case TS_ERR_DENIED:
			code = ERRCODE_INSUFFICIENT_PRIVILEGE;
			break;
		case TS_ERR_RANGE:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		case TS_ERR_UNKNOWN_TYPE:
			code = ERRCODE_FDW_INVALID_DATA_TYPE;
			break;
		case TS_ERR_LIMIT:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		default:
			code = ERRCODE_FDW_ERROR;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s", err->msg),
			 err->detail[0] ? errdetail("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0));
}
