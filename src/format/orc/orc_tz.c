/*
 * orc_tz.c - UTC offsets of the ORC writer's time zone.
 *
 * Owns: turning the StripeFooter writerTimezone (a Java zone id such as
 * "Asia/Shanghai", "GMT", "GMT+08:00") into UTC offsets at given instants,
 * by reading the system's compiled tz database (TZif files under
 * /usr/share/zoneinfo, or $TZDIR).  ORC TIMESTAMP columns store seconds
 * relative to 2015-01-01 00:00:00 in the writer's zone, and Paimon's
 * legacy TIMESTAMP_LTZ values were shifted by the writer's zone, so both
 * need these offsets to give back the values Java wrote.
 *
 * Instants after the last transition of the file use the last
 * transition's offset (the TZif footer rule is not interpreted; Debian's
 * "fat" files list transitions up to 2037).
 */
#include <stdlib.h>
#include <string.h>

#include "base/ts_fs.h"
#include "format/orc/orc_tz.h"

struct orc_tz
{
	int64_t    *trans;			/* transition times, UTC seconds, ascending */
	uint8_t    *idx;			/* type index per transition */
	int32_t    *offs;			/* utoff per type */
	int			ntrans;
	int			ntypes;
	int32_t		fixed;			/* offset when ntypes == 0 */
	int32_t		before;			/* offset before the first transition */
};

static bool
is_utc_name(const char *n)
{
	static const char *utc[] = {"", "UTC", "GMT", "Z", "UCT", "UTC0", "GMT0", "Zulu",
		"Universal", "Greenwich", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Zulu",
	"Etc/Universal", "Etc/Greenwich", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", NULL};
	int			i;

	for (i = 0; utc[i]; i++)
		if (strcmp(n, utc[i]) == 0)
			return true;
	return false;
}

/* "GMT+08:00", "UTC-5", "+08:00" style fixed offsets (Java ZoneId forms) */
static bool
parse_fixed(const char *n, int32_t *off)
{
	const char *p = n;
	int			sign,
				h = 0,
				m = 0,
				digits = 0;

	if (strncmp(p, "GMT", 3) == 0 || strncmp(p, "UTC", 3) == 0)
		p += 3;
	else if (strncmp(p, "UT", 2) == 0)
		p += 2;
	if (*p != '+' && *p != '-')
		return false;
	sign = *p == '-' ? -1 : 1;
	p++;
	while (*p >= '0' && *p <= '9' && digits < 2)
	{
		h = h * 10 + (*p++ - '0');
		digits++;
	}
	if (digits == 0)
		return false;
	if (*p == ':')
		p++;
	digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 2)
	{
		m = m * 10 + (*p++ - '0');
		digits++;
	}
	if (*p != '\0' || h > 18 || m > 59)
		return false;
	*off = sign * (h * 3600 + m * 60);
	return true;
}

static bool
parse_tzif(const uint8_t *d, size_t len, orc_tz *tz, ts_err *err)
{
	ts_cursor	c;
	const uint8_t *h;
	uint32_t	cnt[6];
	int			i;
	int			tsize = 4;
	bool		second = false;

	ts_cursor_init(&c, d, len);
again:
	if (!ts_cursor_bytes(&c, 20, &h, err) || memcmp(h, "TZif", 4) != 0)
		return ts_error(err, TS_ERR_CORRUPT, "not a TZif file");
	for (i = 0; i < 6; i++)
		if (!ts_cursor_be32(&c, &cnt[i], err))
			return false;
	/* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
	if (cnt[3] > 100000 || cnt[4] > 256 || cnt[4] == 0 || cnt[5] > 100000 || cnt[2] > 100000 ||
		cnt[0] > 256 || cnt[1] > 256)
		return ts_error(err, TS_ERR_CORRUPT, "bad TZif counts");
	if (h[4] >= '2' && !second)
	{
		/* skip the 32-bit block, use the 64-bit one */
		size_t		skip = (size_t) cnt[3] * 5 + (size_t) cnt[4] * 6 + cnt[5] +
			(size_t) cnt[2] * 8 + cnt[1] + cnt[0];

		if (!ts_cursor_skip(&c, skip, err))
			return false;
		second = true;
		tsize = 8;
		goto again;
	}
	tz->ntrans = (int) cnt[3];
	tz->ntypes = (int) cnt[4];
	tz->trans = ts_calloc(tz->ntrans ? tz->ntrans : 1, sizeof(int64_t));
	tz->idx = ts_calloc(tz->ntrans ? tz->ntrans : 1, 1);
	tz->offs = ts_calloc(tz->ntypes, sizeof(int32_t));
	if (!tz->trans || !tz->idx || !tz->offs)
		return ts_error_nomem(err, NULL);
	for (i = 0; i < tz->ntrans; i++)
	{
		if (tsize == 8)
		{
			uint64_t	v;

			if (!ts_cursor_be64(&c, &v, err))
				return false;
			tz->trans[i] = (int64_t) v;
		}
		else
		{
			uint32_t	v;

			if (!ts_cursor_be32(&c, &v, err))
				return false;
			tz->trans[i] = (int32_t) v;
		}
	}
	for (i = 0; i < tz->ntrans; i++)
	{
		if (!ts_cursor_u8(&c, &tz->idx[i], err))
			return false;
		if (tz->idx[i] >= tz->ntypes)
			return ts_error(err, TS_ERR_CORRUPT, "bad TZif type index");
	}
	tz->before = 0;
	for (i = 0; i < tz->ntypes; i++)
	{
		uint32_t	off;
		uint8_t		isdst,
					ai;

		if (!ts_cursor_be32(&c, &off, err) || !ts_cursor_u8(&c, &isdst, err) ||
			!ts_cursor_u8(&c, &ai, err))
			return false;
		tz->offs[i] = (int32_t) off;
	}
	/* before the first transition: the first standard-time type (or type 0) */
	tz->before = tz->offs[0];
	return true;
}

bool
orc_tz_load(const char *name, orc_tz **out, ts_err *err)
{
	orc_tz	   *tz;
	const char *dir = getenv("TZDIR");
	char	   *path;
	uint8_t    *data = NULL;
	size_t		len = 0;
	size_t		i;
	bool		ok;

	*out = NULL;
	tz = ts_calloc(1, sizeof(orc_tz));
	if (!tz)
		return ts_error_nomem(err, NULL);
	if (is_utc_name(name) || parse_fixed(name, &tz->fixed))
	{
		*out = tz;
		return true;
	}
	for (i = 0; name[i]; i++)
	{
		char		ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  ch == '/' || ch == '_' || ch == '-' || ch == '+') ||
			(ch == '/' && (i == 0 || name[i + 1] == '/')))
		{
			ts_free(tz);
			return ts_error(err, TS_ERR_UNSUPPORTED, "unsupported writer time zone \"%s\"", name);
		}
	}
	path = ts_path_join(dir && *dir ? dir : "/usr/share/zoneinfo", name);
	if (!path)
	{
		ts_free(tz);
		return ts_error_nomem(err, NULL);
	}
	ok = ts_read_system_file(path, &data, &len, err);
	ts_free(path);
	if (!ok)
	{
		ts_free(tz);
		return ts_error(err, TS_ERR_UNSUPPORTED, "writer time zone \"%s\" is not in the tz database",
						name);
	}
	ok = parse_tzif(data, len, tz, err);
	ts_free(data);
	if (!ok)
	{
		orc_tz_free(tz);
		return ts_error_context(err, "time zone \"%s\"", name);
	}
	*out = tz;
	return true;
}

int32_t
orc_tz_offset(const orc_tz *tz, int64_t utc_secs)
{
	int			lo,
				hi;

	if (tz->ntypes == 0)
		return tz->fixed;
	if (tz->ntrans == 0 || utc_secs < tz->trans[0])
		return tz->before;
	lo = 0;
	hi = tz->ntrans - 1;
	while (lo < hi)
	{
		int			mid = lo + (hi - lo + 1) / 2;

		if (tz->trans[mid] <= utc_secs)
			lo = mid;
		else
			hi = mid - 1;
	}
	return tz->offs[tz->idx[lo]];
}

void
orc_tz_free(orc_tz *tz)
{
	if (!tz)
		return;
	ts_free(tz->trans);
	ts_free(tz->idx);
	ts_free(tz->offs);
	ts_free(tz);
}
