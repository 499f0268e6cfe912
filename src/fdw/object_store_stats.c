/*
 * object_store_stats.c - tablescan_object_store_stats(): what this backend
 * asked of object stores and of the on-disk metadata cache.
 *
 * Owns: the SQL view of the request counter of src/base/s3.c and the
 * counters of src/base/meta_cache.c (hits, misses, stores, entries found
 * corrupt and removed, entries evicted), with the bytes the cache
 * directory holds now, and the round trips of src/base/s3.c (a request
 * alone or a batch of concurrent ones).  Counts are of this process since
 * it started.  tablescan_metadata_cache_stats(): the counters of the
 * decoded manifests shared through the same directory
 * (src/meta/manifest_cache.c).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"

#include "base/ts_meta_cache.h"
#include "base/ts_s3.h"
#include "meta/manifest_cache.h"

PG_FUNCTION_INFO_V1(tablescan_object_store_stats);
PG_FUNCTION_INFO_V1(tablescan_metadata_cache_stats);

Datum
tablescan_object_store_stats(PG_FUNCTION_ARGS)
{
	ts_mcache_stats s = ts_mcache_get_stats();
	int64_t		bytes = ts_mcache_disk_bytes();
	TupleDesc	desc;
	Datum		values[8];
	bool		nulls[8] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int64GetDatum(ts_s3_request_count());
	values[1] = Int64GetDatum(s.hits);
	values[2] = Int64GetDatum(s.misses);
	values[3] = Int64GetDatum(s.stores);
	values[4] = Int64GetDatum(s.corrupt);
	values[5] = Int64GetDatum(s.evicted);
	values[6] = Int64GetDatum(bytes);
	nulls[6] = bytes < 0;
	values[7] = Int64GetDatum(ts_s3_round_trip_count());
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

Datum
tablescan_metadata_cache_stats(PG_FUNCTION_ARGS)
{
	ts_manifest_cache_stats s = ts_manifest_cache_get_stats();
	int64_t		bytes = ts_mcache_disk_bytes();
	TupleDesc	desc;
	Datum		values[8];
	bool		nulls[8] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int64GetDatum(s.hits);
	values[1] = Int64GetDatum(s.misses);
	values[2] = Int64GetDatum(s.stores);
	values[3] = Int64GetDatum(s.rejected);
	values[4] = Int64GetDatum(bytes);
	nulls[4] = bytes < 0;
	values[5] = Int64GetDatum(s.light_hits);	/* of manifests_from_cache */
	values[6] = Int64GetDatum(s.live_hits);
	values[7] = Int64GetDatum(s.live_stores);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
