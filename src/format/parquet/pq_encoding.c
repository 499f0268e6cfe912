/*
 * pq_encoding.c - Parquet's integer encodings.
 *
 * Owns: the RLE / bit-packed hybrid decoder (definition and repetition
 * levels, RLE booleans, dictionary indices) and the DELTA_BINARY_PACKED
 * decoder (also the length streams of DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY).  Both decode incrementally and check every byte.
 */
#include <string.h>

#include "format/parquet/pq_internal.h"

int
pq_bit_width(uint64_t v)
{
	int			w = 0;

	while (v)
	{
		w++;
		v >>= 1;
	}
	return w;
}

void
pq_rle_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = p + len;
	r->bit_width = bit_width;
}

void
pq_bitpacked_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width)
{
	pq_rle_init(r, p, len, bit_width);
	r->msb = true;
}

static bool
msb_get(pq_rle *r, uint32_t *out, int n, ts_err *err)
{
	uint64_t	nbits = (uint64_t) (r->end - r->p) * 8;

	if (r->bp_pos + (uint64_t) n * r->bit_width > nbits)
		return ts_error(err, TS_ERR_CORRUPT, "BIT_PACKED levels ended early");
	for (int i = 0; i < n; i++)
	{
		uint32_t	v = 0;

		for (int b = 0; b < r->bit_width; b++, r->bp_pos++)
			v = (v << 1) | ((r->p[r->bp_pos >> 3] >> (7 - (r->bp_pos & 7))) & 1);
		out[i] = v;
	}
	return true;
}

static bool
rle_next_run(pq_rle *r, ts_err *err)
{
	ts_cursor	c;
	uint64_t	h;

	ts_cursor_init(&c, r->p, (size_t) (r->end - r->p));
	if (c.p >= c.end)
		return ts_error(err, TS_ERR_CORRUPT, "RLE/bit-packed data ended early");
	if (!ts_cursor_uvarint(&c, &h, err))
		return false;
	if (h & 1)
	{
		uint64_t	groups = h >> 1;
		uint64_t	bytes = groups * (uint64_t) r->bit_width;
		uint64_t	avail = (uint64_t) ts_cursor_left(&c);
		uint64_t	count = groups * 8;

		if (groups > ((uint64_t) 1 << 32))
			return ts_error(err, TS_ERR_CORRUPT, "bit-packed run too long");
		if (bytes > avail)
		{
			/* a truncated last run: keep only the values that are present */
			bytes = avail;
			count = r->bit_width ? avail * 8 / r->bit_width : count;
		}
		if (count > UINT32_MAX)
			count = UINT32_MAX;
		r->bp = c.p;
		r->bp_left = (uint32_t) count;
		r->bp_pos = 0;
		r->p = c.p + bytes;
	}
	else
	{
		int			nbytes = (r->bit_width + 7) / 8;
		uint32_t	v = 0;

		if (ts_cursor_left(&c) < (size_t) nbytes)
			return ts_error(err, TS_ERR_CORRUPT, "truncated RLE run");
		for (int i = 0; i < nbytes; i++)
			v |= (uint32_t) c.p[i] << (8 * i);
		if (r->bit_width < 32 && (v >> r->bit_width) != 0)
			return ts_error(err, TS_ERR_CORRUPT, "RLE value wider than its bit width");
		if ((h >> 1) > UINT32_MAX)
			return ts_error(err, TS_ERR_CORRUPT, "RLE run too long");
		r->rle_left = (uint32_t) (h >> 1);
		r->rle_value = v;
		r->p = c.p + nbytes;
	}
	return true;
}

bool
pq_rle_get(pq_rle *r, uint32_t *out, int n, ts_err *err)
{
	int			i = 0;
	int			bw = r->bit_width;
	uint32_t	mask = bw >= 32 ? 0xffffffffu : ((1u << bw) - 1);

	if (r->msb)
		return msb_get(r, out, n, err);
	while (i < n)
	{
		if (r->rle_left > 0)
		{
			uint32_t	k = r->rle_left;
			uint32_t	v = r->rle_value;

			if (k > (uint32_t) (n - i))
				k = (uint32_t) (n - i);
			for (uint32_t j = 0; j < k; j++)
				out[i + j] = v;
			i += k;
			r->rle_left -= k;
		}
		else if (r->bp_left > 0)
		{
			uint32_t	k = r->bp_left;
			const uint8_t *end = r->p;	/* end of the run's bytes */

			if (k > (uint32_t) (n - i))
				k = (uint32_t) (n - i);
			if (bw == 0)
			{
				memset(out + i, 0, sizeof(uint32_t) * k);
			}
			else
			{
				uint64_t	pos = r->bp_pos;
				uint32_t   *o = out + i;
				uint32_t	j = 0;

				if (bw == 1 && (pos & 7) == 0)
				{
					/* definition levels of flat columns: 8 per byte */
					const uint8_t *b = r->bp + (pos >> 3);

					for (; j + 8 <= k; j += 8, b++)
					{
						uint32_t	x = *b;

						o[j] = x & 1;
						o[j + 1] = (x >> 1) & 1;
						o[j + 2] = (x >> 2) & 1;
						o[j + 3] = (x >> 3) & 1;
						o[j + 4] = (x >> 4) & 1;
						o[j + 5] = (x >> 5) & 1;
						o[j + 6] = (x >> 6) & 1;
						o[j + 7] = x >> 7;
					}
					pos += j;
				}
				/* while the 8 bytes from the value's first byte are in the run */
				if (end - r->bp >= 8)
				{
					uint64_t	fast_end = (uint64_t) (end - r->bp - 7) * 8;	/* bit positions */

					for (; j < k && pos < fast_end; j++, pos += bw)
						o[j] = (uint32_t) (ts_load_le64(r->bp + (pos >> 3)) >> (pos & 7)) & mask;
				}
				for (; j < k; j++)
				{
					const uint8_t *b = r->bp + (pos >> 3);
					int			shift = (int) (pos & 7);
					uint64_t	w;

					if (b + 8 <= end)
						w = ts_load_le64(b);
					else
					{
						w = 0;
						for (int q = 0; b + q < end && q < 8; q++)
							w |= (uint64_t) b[q] << (8 * q);
					}
					o[j] = (uint32_t) (w >> shift) & mask;
					pos += bw;
				}
				r->bp_pos = pos;
			}
			i += k;
			r->bp_left -= k;
		}
		else if (!rle_next_run(r, err))
			return false;
	}
	return true;
}

/* the 8 bits of x, least significant first, as 8 bytes of 0 or 1 (memory order) */
static inline uint64_t
spread_bits(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* byte i of the product is x; keep bit i there, then move it to bit 0 */
	uint64_t	y = (x * 0x0101010101010101ULL) & 0x8040201008040201ULL;

	return ((y + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
#else
	uint8_t		b[8];
	uint64_t	out;

	for (int i = 0; i < 8; i++)
		b[i] = (x >> i) & 1;
	memcpy(&out, b, 8);
	return out;
#endif
}

/*
 * Flat columns' definition levels as presence flags: out[i] = 1 when the
 * level is 'present' (the column's maximum definition level), else 0;
 * *npresent is the number of ones.  A level above 'present' is corrupt.
 * Runs are handled whole (an RLE run is one memset), and bit width 1 (an
 * optional top-level column) is unpacked a byte at a time.
 */
bool
pq_rle_get_present(pq_rle *r, uint8_t *out, int n, uint32_t present, int *npresent, ts_err *err)
{
	int			i = 0;
	int			count = 0;
	int			bw = r->bit_width;

	if (r->msb || bw > 16)
	{
		/* the deprecated BIT_PACKED levels, or absurd widths: value by value */
		uint32_t	tmp[256];

		while (i < n)
		{
			int			k = n - i < 256 ? n - i : 256;

			if (!pq_rle_get(r, tmp, k, err))
				return false;
			for (int j = 0; j < k; j++)
			{
				if (tmp[j] > present)
					return ts_error(err, TS_ERR_CORRUPT, "definition level out of range");
				out[i + j] = tmp[j] == present;
				count += tmp[j] == present;
			}
			i += k;
		}
		*npresent = count;
		return true;
	}
	while (i < n)
	{
		if (r->rle_left > 0)
		{
			uint32_t	k = r->rle_left;
			uint32_t	v = r->rle_value;

			if (k > (uint32_t) (n - i))
				k = (uint32_t) (n - i);
			if (v > present)
				return ts_error(err, TS_ERR_CORRUPT, "definition level out of range");
			memset(out + i, v == present, k);
			if (v == present)
				count += (int) k;
			i += k;
			r->rle_left -= k;
		}
		else if (r->bp_left > 0)
		{
			uint32_t	k = r->bp_left;
			uint64_t	pos = r->bp_pos;
			uint8_t    *o = out + i;
			uint32_t	j = 0;

			if (k > (uint32_t) (n - i))
				k = (uint32_t) (n - i);
			if (bw == 0)
			{
				/* every level is 0 */
				memset(o, present == 0, k);
				if (present == 0)
					count += (int) k;
			}
			else if (bw == 1 && present == 1)
			{
				const uint8_t *b = r->bp;

				for (; j < k && (pos & 7) != 0; j++, pos++)
				{
					o[j] = (b[pos >> 3] >> (pos & 7)) & 1;
					count += o[j];
				}
				for (; j + 8 <= k; j += 8, pos += 8)
				{
					uint64_t	flags = spread_bits(b[pos >> 3]);

					memcpy(o + j, &flags, 8);
					count += (int) ((flags * 0x0101010101010101ULL) >> 56);
				}
				for (; j < k; j++, pos++)
				{
					o[j] = (b[pos >> 3] >> (pos & 7)) & 1;
					count += o[j];
				}
			}
			else
			{
				/* bit widths 2..16: each level within 3 bytes of its first bit */
				const uint8_t *end = r->p;	/* end of the run's bytes */
				uint32_t	mask = (1u << bw) - 1;
				uint32_t	above = 0;

				for (; j < k; j++, pos += bw)
				{
					const uint8_t *b = r->bp + (pos >> 3);
					uint32_t	w = 0;
					uint32_t	v;

					for (int q = 0; q < 3 && b + q < end; q++)
						w |= (uint32_t) b[q] << (8 * q);
					v = (w >> (pos & 7)) & mask;
					above |= v > present;
					o[j] = v == present;
					count += v == present;
				}
				if (above)
					return ts_error(err, TS_ERR_CORRUPT, "definition level out of range");
			}
			r->bp_pos = pos;
			i += k;
			r->bp_left -= k;
		}
		else if (!rle_next_run(r, err))
			return false;
	}
	*npresent = count;
	return true;
}

/* ---- DELTA_BINARY_PACKED ------------------------------------------- */

bool
pq_delta_init(pq_delta *d, const uint8_t *p, size_t len, ts_err *err)
{
	ts_cursor	c;
	int64_t		first;

	memset(d, 0, sizeof(*d));
	ts_cursor_init(&c, p, len);
	if (!ts_cursor_uvarint(&c, &d->block_size, err) ||
		!ts_cursor_uvarint(&c, &d->minis, err) ||
		!ts_cursor_uvarint(&c, &d->total, err) ||
		!ts_cursor_zigzag(&c, &first, err))
		return false;
	if (d->block_size == 0 || d->block_size % 128 != 0 || d->block_size > (1 << 20) ||
		d->minis == 0 || d->block_size % d->minis != 0 ||
		(d->block_size / d->minis) % 8 != 0)
		return ts_error(err, TS_ERR_CORRUPT, "invalid DELTA_BINARY_PACKED header");
	d->per_mini = d->block_size / d->minis;
	d->last = (uint64_t) first;
	d->p = c.p;
	d->end = c.end;
	d->mini = d->minis;			/* no block read yet */
	return true;
}

static bool
delta_next_mini(pq_delta *d, ts_err *err)
{
	uint64_t	full,
				need,
				remaining;

	d->mini++;
	if (d->mini >= d->minis)
	{
		ts_cursor	c;
		int64_t		md;

		ts_cursor_init(&c, d->p, (size_t) (d->end - d->p));
		if (!ts_cursor_zigzag(&c, &md, err))
			return false;
		if (ts_cursor_left(&c) < d->minis)
			return ts_error(err, TS_ERR_CORRUPT, "truncated DELTA_BINARY_PACKED block");
		d->min_delta = (uint64_t) md;
		d->widths = c.p;
		d->p = c.p + d->minis;
		d->mini = 0;
	}
	d->width = d->widths[d->mini];
	if (d->width > 64)
		return ts_error(err, TS_ERR_CORRUPT, "DELTA_BINARY_PACKED bit width %d", d->width);
	full = d->per_mini * (uint64_t) d->width / 8;
	remaining = d->total - d->emitted;
	need = remaining < d->per_mini ? (remaining * d->width + 7) / 8 : full;
	if ((uint64_t) (d->end - d->p) < need)
		return ts_error(err, TS_ERR_CORRUPT, "truncated DELTA_BINARY_PACKED miniblock");
	d->mini_data = d->p;
	d->mini_pos = 0;
	d->mini_left = d->per_mini;
	d->p += (uint64_t) (d->end - d->p) < full ? (uint64_t) (d->end - d->p) : full;
	return true;
}

bool
pq_delta_next(pq_delta *d, int64_t *out, ts_err *err)
{
	uint64_t	v = 0;

	if (d->emitted >= d->total)
		return ts_error(err, TS_ERR_CORRUPT, "DELTA_BINARY_PACKED stream has too few values");
	if (d->emitted == 0)
	{
		d->emitted = 1;
		*out = (int64_t) d->last;
		return true;
	}
	if (d->mini_left == 0 && !delta_next_mini(d, err))
		return false;
	if (d->width > 0)
	{
		int			got = 0;
		uint64_t	pos = d->mini_pos;

		while (got < d->width)
		{
			const uint8_t *b = d->mini_data + (pos >> 3);
			int			off = (int) (pos & 7);
			int			take = 8 - off;

			if (b >= d->end)
				return ts_error(err, TS_ERR_CORRUPT, "truncated DELTA_BINARY_PACKED miniblock");
			if (take > d->width - got)
				take = d->width - got;
			v |= (uint64_t) ((*b >> off) & ((1u << take) - 1)) << got;
			got += take;
			pos += take;
		}
		d->mini_pos = pos;
	}
	d->mini_left--;
	d->last = d->last + d->min_delta + v;
	d->emitted++;
	*out = (int64_t) d->last;
	return true;
}

bool
pq_delta_end(pq_delta *d, const uint8_t **end, ts_err *err)
{
	int64_t		v;

	while (d->emitted < d->total)
	{
		if (((d->emitted & 0xffff) == 0) && !TS_CHECK_INTERRUPTS(err))
			return false;
		if (!pq_delta_next(d, &v, err))
			return false;
	}
	*end = d->p;
	return true;
}
