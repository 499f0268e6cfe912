/*
 * session_zone.c - PostgreSQL's TimeZone as the session zone of Paimon casts.
 *
 * Owns: the offset function the cast layer (src/read/cast.c) calls where
 * Java Paimon uses TimeZone.getDefault(): casts between TIMESTAMP and
 * TIMESTAMP WITH LOCAL TIME ZONE and from / to LTZ.  It reads the current
 * session_timezone on every call, so SET TimeZone applies to the next
 * value read.  Called only from the backend's main thread.
 */
#include "postgres.h"

#include "pgtime.h"
#include "utils/timestamp.h"

#include "read/cast.h"
#include "tablescan_fdw.h"

static int32_t
session_zone_offset(int64_t utc_secs)
{
	pg_time_t	t = (pg_time_t) utc_secs;
	struct pg_tm *tm;

	if (session_timezone == NULL)
		return 0;
	tm = pg_localtime(&t, session_timezone);
	if (tm == NULL)
		return 0;				/* out of the zone library's range: UTC */
	return (int32_t) tm->tm_gmtoff;
}

void
tablescan_install_session_zone(void)
{
	ts_cast_set_session_zone(session_zone_offset);
}
