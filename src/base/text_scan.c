/*
 * text_scan.c - calendar arithmetic and the shared text scanners (see
 * ts_text_scan.h for who uses them and how they are parametrised).
 *
 * Owns: ts_days_from_civil / ts_civil_from_days (Howard Hinnant's
 * algorithms), ts_days_in_month, ts_floor_div and the scanners of digits,
 * integers, HALF_UP (or exact) decimals, dates and times.
 */
#include "base/ts_text_scan.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ---- calendar ------------------------------------------------------- */

int64_t
ts_days_from_civil(int64_t y, int m, int d)
{
	int64_t		era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void
ts_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		era,
				doe,
				yoe,
				doy,
				mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	*y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	if (*m <= 2)
		(*y)++;
}

int
ts_days_in_month(int64_t y, int m)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dm[m - 1];
}

int64_t
ts_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* ---- numbers ---------------------------------------------------------- */

bool
ts_scan_digits(const char *s, size_t len, size_t *i, int min, int max, int64_t *out)
{
	size_t		k = *i;
	int			n = 0;
	int64_t		v = 0;

	while (k < len && n < max && is_digit(s[k]))
	{
		v = v * 10 + (s[k] - '0');
		k++;
		n++;
	}
	if (n < min)
		return false;
	*i = k;
	*out = v;
	return true;
}

bool
ts_scan_int(const char *s, size_t len, int64_t lo, int64_t hi,
			ts_int_fraction frac, int64_t *out)
{
	const uint64_t limit = UINT64_C(1) << 63;	/* |INT64_MIN| */
	size_t		i = 0;
	bool		neg = false,
				point = false;
	uint64_t	acc = 0;
	size_t		ndig = 0;
	int64_t		v;

	if (len == 0)
		return false;
	if (s[0] == '+' || s[0] == '-')
	{
		neg = s[0] == '-';
		i++;
	}
	for (; i < len && is_digit(s[i]); i++, ndig++)
	{
		uint64_t	d = (uint64_t) (s[i] - '0');

		if (acc > (limit - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	if (i < len && frac != TS_INT_NO_FRACTION && s[i] == '.')
	{
		point = true;
		for (i++; i < len && is_digit(s[i]); i++)
			ndig++;
	}
	if (i != len)
		return false;
	if (ndig == 0 && !(point && frac == TS_INT_JAVA_TOLONG))
		return false;
	if (neg)
		v = acc == limit ? INT64_MIN : -(int64_t) acc;
	else if (acc > (uint64_t) INT64_MAX)
		return false;
	else
		v = (int64_t) acc;
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int
ts_scan_decimal(const char *s, size_t len, int precision, int scale,
				int64_t max_exponent, ts_int128 *out)
{
	size_t		i = 0;
	bool		neg = false;
	char		digits[80];
	int			nd = 0;			/* significant digits collected */
	bool		point = false;
	int64_t		exp10 = 0;
	bool		any = false;
	int64_t		shift;
	ts_int128	v = 0;
	ts_int128	limit = 1;

	if (len == 0)
		return -1;
	if (s[0] == '+' || s[0] == '-')
	{
		neg = s[0] == '-';
		i++;
	}
	/*
	 * The common case in 64 bits: at most 18 digits, no exponent, no more
	 * fraction digits than the scale (no rounding).  Anything else, and any
	 * doubt, takes the general path below.
	 */
	if (len - i <= 19 && scale <= 18)
	{
		size_t		k = i;
		int64_t		u = 0;
		int			ndig = 0,
					nfrac = 0;

		for (; k < len && is_digit(s[k]); k++, ndig++)
			u = u * 10 + (s[k] - '0');
		if (k < len && s[k] == '.')
			for (k++; k < len && is_digit(s[k]); k++, ndig++, nfrac++)
				u = u * 10 + (s[k] - '0');
		if (k == len && ndig > 0 && ndig <= 18 && nfrac <= scale && ndig - nfrac + scale <= 18)
		{
			int64_t		lim = 1;

			for (int e = nfrac; e < scale; e++)
				u *= 10;
			for (int e = 0; e < precision && e < 18; e++)
				lim *= 10;
			if (precision < 18 && u >= lim)
				return 0;
			*out = neg ? -(ts_int128) u : (ts_int128) u;
			return 1;
		}
	}
	for (; i < len; i++)
	{
		char		c = s[i];

		if (is_digit(c))
		{
			any = true;
			if (nd == 0 && c == '0')
			{
				/* leading zero: only matters after the point */
				if (point)
					exp10--;
				continue;
			}
			if (nd >= (int) sizeof(digits))
			{
				/*
				 * beyond 80 significant digits only the magnitude counts: the
				 * rounding digit of a value that fits 38 digits comes earlier
				 */
				if (!point)
					exp10++;
				continue;
			}
			digits[nd++] = c;
			if (point)
				exp10--;
		}
		else if (c == '.' && !point)
			point = true;
		else
			break;
	}
	if (!any)
		return -1;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		int64_t		e;

		if (!ts_scan_int(s + i + 1, len - i - 1, -max_exponent, max_exponent,
						 TS_INT_NO_FRACTION, &e))
			return -1;
		exp10 += e;
		i = len;
	}
	if (i != len)
		return -1;
	/* value = digits * 10^exp10; want unscaled = value * 10^scale */
	shift = exp10 + scale;
	for (int k = 0; k < precision && k < 38; k++)
		limit *= 10;
	if (nd == 0)
	{
		*out = 0;
		return 1;
	}
	if (shift >= 0)
	{
		if (nd + shift > precision)
			return 0;
		for (int k = 0; k < nd; k++)
			v = v * 10 + (digits[k] - '0');
		for (int64_t k = 0; k < shift; k++)
			v *= 10;
	}
	else
	{
		int64_t		keep = nd + shift;	/* digits kept before rounding */

		if (keep > precision)
			return 0;
		for (int64_t k = 0; k < keep; k++)
			v = v * 10 + (digits[k] - '0');
		if (keep >= 0 && keep < nd && digits[keep] >= '5')
			v += 1;				/* HALF_UP */
		if (v >= limit)
			return 0;
	}
	*out = neg ? -v : v;
	return 1;
}

int
ts_scan_decimal_exact(const char *s, size_t len, int precision, int scale, ts_int128 *out)
{
	size_t		point = len;
	ts_int128	v;
	int			r;

	for (size_t i = 0; i < len; i++)
	{
		if (s[i] == 'e' || s[i] == 'E')
			return -1;
		if (s[i] == '.' && point == len)
			point = i;
	}
	r = ts_scan_decimal(s, len, precision, scale, 0, &v);
	if (r < 0)
		return -1;
	/* digits past the scale must be zeros: no rounding happened then */
	for (size_t i = point + 1 + (size_t) scale; point < len && i < len; i++)
		if (s[i] != '0')
			return -2;
	if (r == 0)
		return 0;
	*out = v;
	return 1;
}

/* ---- dates and times -------------------------------------------------- */

bool
ts_scan_date(const char *s, size_t len, size_t *i, const ts_date_syntax *syn, int64_t *days)
{
	size_t		k = *i;
	bool		neg = false;
	int64_t		y,
				m,
				d;

	if (syn->sign && k < len && (s[k] == '-' || s[k] == '+'))
	{
		neg = s[k] == '-';
		k++;
	}
	if (!ts_scan_digits(s, len, &k, 1, syn->year_digits, &y) || k >= len || s[k] != '-')
		return false;
	k++;
	if (!ts_scan_digits(s, len, &k, 1, 2, &m) || k >= len || s[k] != '-')
		return false;
	k++;
	if (!ts_scan_digits(s, len, &k, 1, 2, &d))
		return false;
	if (neg)
		y = -y;
	if (syn->max_year > 0 && y > syn->max_year)
		return false;
	if (m < 1 || m > 12 || d < 1 || d > ts_days_in_month(y, (int) m))
		return false;
	*days = ts_days_from_civil(y, (int) m, (int) d);
	*i = k;
	return true;
}

bool
ts_scan_time(const char *s, size_t len, size_t *i, const ts_time_syntax *syn,
			 int64_t *nanos_of_day)
{
	size_t		k = *i;
	int64_t		h,
				mi,
				sec = 0,
				frac = 0;
	int			fd = 0;

	if (!ts_scan_digits(s, len, &k, 1, 2, &h) || k >= len || s[k] != ':')
		return false;
	k++;
	if (!ts_scan_digits(s, len, &k, syn->min_digits, 2, &mi))
		return false;
	if (k < len && s[k] == ':')
	{
		k++;
		if (!ts_scan_digits(s, len, &k, syn->min_digits, 2, &sec))
			return false;
		if (k < len && s[k] == '.')
		{
			k++;
			while (k < len && is_digit(s[k]))
			{
				if (fd < 9)
				{
					frac = frac * 10 + (s[k] - '0');
					fd++;
				}
				k++;
			}
			if (fd == 0)
				return false;
			for (int n = fd; n < 9; n++)
				frac *= 10;
		}
	}
	else if (syn->need_seconds)
		return false;
	if (h > 23 || mi > 59 || sec > 59)
		return false;
	*nanos_of_day = ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
	*i = k;
	return true;
}

bool
ts_scan_date_time(const char *s, size_t len, size_t *i,
				  const ts_date_syntax *dsyn, const ts_time_syntax *tsyn,
				  bool iso_t, int64_t *days, int64_t *nanos_of_day)
{
	size_t		k = *i;

	*nanos_of_day = 0;
	if (!ts_scan_date(s, len, &k, dsyn, days))
		return false;
	if (k < len && (s[k] == ' ' || (iso_t && s[k] == 'T')))
	{
		k++;
		if (!ts_scan_time(s, len, &k, tsyn, nanos_of_day))
			return false;
	}
	*i = k;
	return true;
}
