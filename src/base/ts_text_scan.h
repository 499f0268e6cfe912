/*
 * ts_text_scan.h - calendar arithmetic and the digit-level text scanners
 * shared by every place that turns text into a number, date or time.
 *
 * Owns: proleptic Gregorian day numbers, and the parsers of integers,
 * HALF_UP decimals, y-m-d dates and H:m:s times that the CSV/JSON readers
 * (format/text/text_value.c), Paimon's STRING casts (read/cast.c) and
 * partition values (meta/partition.c) all use.  The callers differ on
 * purpose in what they accept (each follows a different Java parser), so
 * those differences are parameters here; trimming, error messages and how
 * the parts are put together stay with the callers.  Nothing here reads
 * past len or allocates.
 */
#ifndef TS_TEXT_SCAN_H
#define TS_TEXT_SCAN_H

#include "base/ts_value.h"

/* ---- calendar ------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t		ts_days_from_civil(int64_t y, int m, int d);
void		ts_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* Days in month m (1..12) of year y (proleptic Gregorian leap rule). */
int			ts_days_in_month(int64_t y, int m);

/* a / b rounded towards negative infinity (b != 0). */
int64_t		ts_floor_div(int64_t a, int64_t b);

/* ---- scanners --------------------------------------------------------- */

/*
 * At least min and at most max ASCII digits from s[*i]; on success *out is
 * their value and *i moves past them, on failure *i stays.
 */
bool		ts_scan_digits(const char *s, size_t len, size_t *i, int min, int max,
						   int64_t *out);

/* What may follow the integer digits of ts_scan_int. */
typedef enum ts_int_fraction
{
	TS_INT_NO_FRACTION,			/* [+-]digits (Integer.parseInt, strtoll) */
	TS_INT_DROP_FRACTION,		/* [+-]digits[.digits], some digit needed */
	TS_INT_JAVA_TOLONG			/* BinaryStringUtils.toLong: also "." "-." */
} ts_int_fraction;

/*
 * The whole of s[0..len) as an integer in [lo, hi] (lo, hi within int64);
 * a fractional part, where allowed, is dropped.  False when malformed or
 * out of range.  No whitespace is skipped.
 */
bool		ts_scan_int(const char *s, size_t len, int64_t lo, int64_t hi,
						ts_int_fraction frac, int64_t *out);

/*
 * The whole of s[0..len) as [+-]digits[.digits][(e|E)[+-]digits] (a digit
 * needed somewhere before the exponent; |exponent| <= max_exponent),
 * rounded HALF_UP to 'scale' fraction digits: 1 and *out = the unscaled
 * value; 0 when it needs more than 'precision' digits (Paimon's overflow,
 * *out untouched); -1 when malformed.
 */
int			ts_scan_decimal(const char *s, size_t len, int precision, int scale,
							int64_t max_exponent, ts_int128 *out);

/*
 * The whole of s[0..len) as [+-]digits[.digits] (no exponent) holding
 * exactly a value of 'scale' fraction digits: 1 and *out = the unscaled
 * value; -1 when malformed; -2 when a nonzero digit comes after 'scale'
 * fraction digits (rounding would change the value); 0 when it needs more
 * than 'precision' digits (*out untouched but for 1).
 */
int			ts_scan_decimal_exact(const char *s, size_t len, int precision, int scale,
								  ts_int128 *out);

/* The y-m-d forms the callers accept. */
typedef struct ts_date_syntax
{
	bool		sign;			/* a leading '+' or '-' on the year */
	int			year_digits;	/* at most this many year digits */
	int64_t		max_year;		/* larger years are invalid; 0 = no limit */
} ts_date_syntax;

/*
 * y-m-d (month and day 1 or 2 digits, at least one year digit) from s[*i]
 * -> days since 1970-01-01; checks month and day ranges.  Advances *i past
 * the date; stops there (what may follow is the caller's rule).
 */
bool		ts_scan_date(const char *s, size_t len, size_t *i, const ts_date_syntax *syn,
						 int64_t *days);

/* The H:m[:s] forms the callers accept. */
typedef struct ts_time_syntax
{
	int			min_digits;		/* minutes and seconds: 1 or 2 digits needed */
	bool		need_seconds;	/* H:m alone is invalid */
} ts_time_syntax;

/*
 * H:m[:s[.f]] (hour 1 or 2 digits, minute and second up to 2, fraction 1
 * or more digits of which the first 9 count) from s[*i] -> nanoseconds of
 * the day; checks h <= 23, m <= 59, s <= 59.  Advances *i past the time.
 */
bool		ts_scan_time(const char *s, size_t len, size_t *i, const ts_time_syntax *syn,
						 int64_t *nanos_of_day);

/*
 * A date optionally followed by a separator and a time: ' ' always
 * separates, 'T' too when iso_t.  *nanos_of_day = 0 without a time; a
 * separator must be followed by a valid time.  Advances *i past what it
 * read; what may follow is the caller's rule.
 */
bool		ts_scan_date_time(const char *s, size_t len, size_t *i,
							  const ts_date_syntax *dsyn, const ts_time_syntax *tsyn,
							  bool iso_t, int64_t *days, int64_t *nanos_of_day);

#endif							/* TS_TEXT_SCAN_H */
