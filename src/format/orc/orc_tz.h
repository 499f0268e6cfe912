/*
 * orc_tz.h - UTC offsets of an ORC writer time zone (see orc_tz.c).
 */
#ifndef TS_ORC_TZ_H
#define TS_ORC_TZ_H

#include "base/ts_base.h"

typedef struct orc_tz orc_tz;

/* UTC/GMT names and "GMT+hh:mm" need no file; others read TZif data. */
bool		orc_tz_load(const char *name, orc_tz **out, ts_err *err);
/* seconds east of UTC in force at the given UTC instant */
int32_t		orc_tz_offset(const orc_tz *tz, int64_t utc_secs);
void		orc_tz_free(orc_tz *tz);

#endif							/* TS_ORC_TZ_H */
