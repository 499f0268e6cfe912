/*
 * shared_cache.c - live sets of manifest entries in the server's shared
 * memory, for every backend (meta/live_set_shared.c over
 * base/shared_region.c).
 *
 * Owns: tablescan.shared_cache_size, the region's request and creation
 * when the library is in shared_preload_libraries, each backend's attach
 * (at its first plan) with the exit callback that gives back its pins, the
 * lock of the region's directory, and tablescan_shared_cache_stats().
 * Without preloading nothing is requested and every plan works as before.
 *
 * The region is used only when the server's shared memory is in huge pages
 * (or tablescan.shared_cache_small_pages says so).  A new backend's first
 * read of each page of shared memory is a page fault: in 4 kB pages a live
 * set of 11,200 files (4.5 MB) cost ~10 ms on the project's machine against
 * ~1.2 ms to read and decode its record from disk (bench/RESULTS.md); in
 * 2 MB pages it is a few faults, and the plan reads the set in place.
 * A backend that crashes leaves nothing behind: the postmaster then makes
 * shared memory again.
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "base/ts_shared_region.h"
#include "meta/manifest_cache.h"
#include "tablescan_fdw.h"

#define SHARED_CACHE_NAME "tablescan_fdw live sets"

static int	shared_cache_size_mb = 0;
static bool shared_cache_small_pages = false;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
/* set in the postmaster at startup, inherited by every backend */
static void *region = NULL;
static LWLock *region_lock = NULL;
static bool region_huge = false;	/* the region is in huge pages */
static bool attached = false;

PG_FUNCTION_INFO_V1(tablescan_shared_cache_stats);

static size_t
region_bytes(void)
{
	return ts_shr_region_size((size_t) shared_cache_size_mb << 20);
}

static void
shared_cache_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(region_bytes());
	RequestNamedLWLockTranche(SHARED_CACHE_NAME, 1);
}

/* Is the page at addr of this process in huge pages (its mapping's KernelPageSize)? */
static bool
in_huge_pages(const void *addr)
{
	FILE	   *f = fopen("/proc/self/smaps", "r");
	char		line[512];
	bool		inside = false;
	bool		huge = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		unsigned long lo,
					hi;

		/* a mapping's first line: "lo-hi perms ..."; its fields follow */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			inside = (uintptr_t) addr >= lo && (uintptr_t) addr < hi;
		else if (inside && strncmp(line, "KernelPageSize:", 15) == 0)
		{
			huge = atol(line + 15) >= 2048;
			break;
		}
	}
	fclose(f);
	return huge;
}

static void
shared_cache_startup(void)
{
	bool		found;
	void	   *mem;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	mem = ShmemInitStruct(SHARED_CACHE_NAME, region_bytes(), &found);
	if (!found)
		ts_shr_init(mem, region_bytes());
	region_lock = &(GetNamedLWLockTranche(SHARED_CACHE_NAME))->lock;
	LWLockRelease(AddinShmemInitLock);
	region = mem;
	region_huge = in_huge_pages(mem);
	if (!region_huge && !shared_cache_small_pages)
		ereport(LOG,
				(errmsg("tablescan_fdw: the shared cache of live sets is not used: shared memory is not in huge pages"),
				 errhint("Set huge_pages = on (with vm.nr_hugepages reserved), or tablescan.shared_cache_small_pages = on.")));
}

/*
 * A server-start setting: only a library loaded at server start may define
 * one, so a backend that loads the library later has the setting fixed at 0
 * (no region: its plans read records and manifests as before).
 */
void
tablescan_shared_cache_define_guc(void)
{
	bool		preloading = process_shared_preload_libraries_in_progress;
	const char *asked = GetConfigOption("tablescan.shared_cache_size", true, false);

	/* set in the configuration, but the library was loaded too late to use it */
	if (!preloading && asked != NULL && strcmp(asked, "0") != 0)
		ereport(WARNING,
				(errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
				 errmsg("tablescan.shared_cache_size is not used: tablescan_fdw is not in shared_preload_libraries"),
				 errhint("Add tablescan_fdw to shared_preload_libraries and restart the server.")));
	DefineCustomIntVariable("tablescan.shared_cache_size",
							"Shared memory keeping decoded live manifest entries for every backend.",
							"Needs tablescan_fdw in shared_preload_libraries (else fixed at 0) and "
							"shared memory in huge pages (see tablescan.shared_cache_small_pages): "
							"a new connection's first plan of a snapshot another backend planned "
							"reads its files from there in place; 0 (the default) turns it off.",
							&shared_cache_size_mb, 0, 0, 1024 * 1024,
							preloading ? PGC_POSTMASTER : PGC_INTERNAL, GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("tablescan.shared_cache_small_pages",
							 "Use the shared cache of live sets when shared memory is in 4 kB pages too.",
							 "Off: used only when the server's shared memory is in huge pages, "
							 "since each new backend's first read of a 4 kB page of it is a page "
							 "fault, which can cost more than reading the set from the metadata "
							 "cache directory.",
							 &shared_cache_small_pages, false,
							 preloading ? PGC_POSTMASTER : PGC_INTERNAL, 0, NULL, NULL, NULL);
	if (!preloading || shared_cache_size_mb <= 0)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shared_cache_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shared_cache_startup;
}

static void
region_acquire(void)
{
	LWLockAcquire(region_lock, LW_EXCLUSIVE);
}

static void
region_release(void)
{
	LWLockRelease(region_lock);
}

static void
shared_cache_detach(int code, Datum arg)
{
	ts_shr_release_all();
	ts_shr_attach(NULL, NULL, NULL);
}

void
tablescan_shared_cache_attach(void)
{
	if (attached || region == NULL || !IsUnderPostmaster ||
		!(region_huge || shared_cache_small_pages))
		return;
	attached = true;
	on_shmem_exit(shared_cache_detach, (Datum) 0);
	ts_shr_attach(region, region_acquire, region_release);
}

Datum
tablescan_shared_cache_stats(PG_FUNCTION_ARGS)
{
	ts_shr_stats r;
	ts_manifest_cache_stats m = ts_manifest_cache_get_stats();
	TupleDesc	desc;
	Datum		values[11];
	bool		nulls[11] = {0};

	tablescan_shared_cache_attach();
	r = ts_shr_get_stats();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int64GetDatum(m.live_shared_hits);
	values[1] = Int64GetDatum(m.live_shared_stores);
	values[2] = BoolGetDatum(region_huge);
	nulls[2] = region == NULL;
	values[3] = Int32GetDatum(r.blocks);
	values[4] = Int32GetDatum(r.pinned);
	values[5] = Int64GetDatum(r.bytes_used);
	values[6] = Int64GetDatum(r.bytes_size);
	values[7] = Int64GetDatum(r.hits);
	values[8] = Int64GetDatum(r.published);
	values[9] = Int64GetDatum(r.evicted);
	values[10] = Int64GetDatum(r.no_room);
	/* not preloaded (or size 0), or not used: nothing to count there */
	if (!ts_shr_attached())
		for (int i = 3; i < 11; i++)
			nulls[i] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
