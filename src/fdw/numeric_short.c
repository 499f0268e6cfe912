/*
 * numeric_short.c - numeric Datums of scaled int64 decimals, written in
 * place.
 *
 * Owns: the encoding of unscaled / 10^scale (scale 0..38) as PostgreSQL's
 * on-disk short numeric format (numeric.c's NumericShort: a varlena
 * header, a 16-bit header of sign, display scale and weight, then the
 * base-10000 digits without leading or trailing zero digits) - the same
 * bytes int64_div_fast_to_numeric returns, without its NumericVar and
 * pallocs, so that a column of decimals can be laid out in one block.
 * Values whose digits do not fit in 64 bits after aligning the scale to
 * base-10000 digits are left to the caller.
 */
#include "postgres.h"

#include "tablescan_fdw.h"

/* numeric.c's private layout of the short format (stable on disk) */
#define NBASE 10000
#define DEC_DIGITS 4
#define NUMERIC_SHORT 0x8000
#define NUMERIC_SHORT_SIGN_MASK 0x2000
#define NUMERIC_SHORT_DSCALE_SHIFT 7
#define NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define NUMERIC_SHORT_WEIGHT_MASK 0x003F

int
tablescan_numeric_short(int64 unscaled, int scale, char *out)
{
	static const uint64 pow10[DEC_DIGITS] = {1, 10, 100, 1000};
	uint64		a = unscaled < 0 ? -(uint64) unscaled : (uint64) unscaled;
	int			shift = scale / DEC_DIGITS;	/* whole digits after the point */
	int			m = scale % DEC_DIGITS;
	int16		digits[8];		/* least significant first */
	int			nd = 0;
	int			lo = 0;
	int			n;
	int			weight;
	uint16		header;
	int			size;

	if (scale < 0 || scale > 38)
		return 0;
	if (m > 0)
	{
		/* pad the fraction to a whole base-10000 digit */
		if (a > PG_UINT64_MAX / pow10[DEC_DIGITS - m])
			return 0;
		a *= pow10[DEC_DIGITS - m];
		shift++;
	}
	while (a != 0)
	{
		digits[nd++] = (int16) (a % NBASE);
		a /= NBASE;
	}
	while (lo < nd && digits[lo] == 0)
		lo++;					/* trailing zero digits are not stored */
	n = nd - lo;
	weight = n == 0 ? 0 : nd - 1 - shift;
	header = NUMERIC_SHORT |
		(n > 0 && unscaled < 0 ? NUMERIC_SHORT_SIGN_MASK : 0) |
		(scale << NUMERIC_SHORT_DSCALE_SHIFT) |
		(weight < 0 ? NUMERIC_SHORT_WEIGHT_SIGN_MASK : 0) |
		(weight & NUMERIC_SHORT_WEIGHT_MASK);
	size = VARHDRSZ + sizeof(uint16) + n * sizeof(int16);
	SET_VARSIZE(out, size);
	memcpy(out + VARHDRSZ, &header, sizeof(uint16));
	for (int i = 0; i < n; i++)
	{
		int16		d = digits[nd - 1 - i];

		memcpy(out + VARHDRSZ + sizeof(uint16) + i * sizeof(int16), &d, sizeof(int16));
	}
	return size;
}
