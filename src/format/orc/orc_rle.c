/*
 * orc_rle.c - ORC run-length decoders.
 *
 * Owns: byte RLE, boolean RLE (bits MSB first over byte RLE), integer RLE
 * version 1 (runs with a small delta, varint literals) and version 2
 * (short repeat, direct, patched base, delta), and the unbounded varint of
 * decimal DATA streams.  Every decoder works over an already decompressed
 * buffer with a bounds-checked cursor; running out of bytes mid-run is
 * TS_ERR_CORRUPT.
 */
#include <string.h>

#include "format/orc/orc_internal.h"

/* ---- byte RLE --------------------------------------------------------- */

void
orc_byte_rle_init(orc_byte_rle *d, const uint8_t *p, size_t len)
{
	ts_cursor_init(&d->c, p, len);
	d->n = d->pos = 0;
}

static bool
byte_rle_fill(orc_byte_rle *d, ts_err *err)
{
	uint8_t		h;

	if (!ts_cursor_u8(&d->c, &h, err))
		return ts_error(err, TS_ERR_CORRUPT, "byte RLE stream ends before the declared values");
	if (h < 128)
	{
		uint8_t		v;

		if (!ts_cursor_u8(&d->c, &v, err))
			return ts_error(err, TS_ERR_CORRUPT, "byte RLE run truncated");
		d->n = h + 3;
		memset(d->buf, v, d->n);
	}
	else
	{
		const uint8_t *p;

		d->n = 256 - h;
		if (!ts_cursor_bytes(&d->c, d->n, &p, err))
			return ts_error(err, TS_ERR_CORRUPT, "byte RLE literals run past the stream end");
		memcpy(d->buf, p, d->n);
	}
	d->pos = 0;
	return true;
}

bool
orc_byte_rle_next(orc_byte_rle *d, uint8_t *out, ts_err *err)
{
	if (d->pos >= d->n && !byte_rle_fill(d, err))
		return false;
	*out = d->buf[d->pos++];
	return true;
}

/* ---- boolean RLE ------------------------------------------------------ */

void
orc_bool_rle_init(orc_bool_rle *d, const uint8_t *p, size_t len)
{
	orc_byte_rle_init(&d->bytes, p, len);
	d->bits_left = 0;
	d->cur = 0;
}

bool
orc_bool_rle_next(orc_bool_rle *d, bool *out, ts_err *err)
{
	if (d->bits_left == 0)
	{
		if (!orc_byte_rle_next(&d->bytes, &d->cur, err))
			return false;
		d->bits_left = 8;
	}
	d->bits_left--;
	*out = (d->cur >> d->bits_left) & 1;
	return true;
}

/* ---- integer RLE ------------------------------------------------------ */

void
orc_int_rle_init(orc_int_rle *d, const uint8_t *p, size_t len, bool is_signed, bool v2)
{
	ts_cursor_init(&d->c, p, len);
	d->is_signed = is_signed;
	d->v2 = v2;
	d->n = d->pos = 0;
}

static inline int64_t
unzigzag(uint64_t u)
{
	return (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
}

static bool
read_varint(orc_int_rle *d, bool is_signed, int64_t *out, ts_err *err)
{
	uint64_t	u;

	if (!ts_cursor_uvarint(&d->c, &u, err))
		return ts_error(err, TS_ERR_CORRUPT, "integer RLE varint truncated");
	*out = is_signed ? unzigzag(u) : (int64_t) u;
	return true;
}

static bool
rle_v1_fill(orc_int_rle *d, ts_err *err)
{
	uint8_t		h;
	int			i;

	if (!ts_cursor_u8(&d->c, &h, err))
		return ts_error(err, TS_ERR_CORRUPT, "integer RLE stream ends before the declared values");
	if (h < 128)
	{
		uint8_t		delta;
		int64_t		base;

		if (!ts_cursor_u8(&d->c, &delta, err) || !read_varint(d, d->is_signed, &base, err))
			return ts_error(err, TS_ERR_CORRUPT, "integer RLE v1 run truncated");
		d->n = h + 3;
		for (i = 0; i < d->n; i++)
			d->buf[i] = (int64_t) ((uint64_t) base + (uint64_t) ((int64_t) (int8_t) delta * i));
	}
	else
	{
		d->n = 256 - h;
		for (i = 0; i < d->n; i++)
			if (!read_varint(d, d->is_signed, &d->buf[i], err))
				return false;
	}
	d->pos = 0;
	return true;
}

/* 5-bit encoded width -> bits */
static int
decode_width(int code)
{
	if (code <= 23)
		return code + 1;
	switch (code)
	{
		case 24:
			return 26;
		case 25:
			return 28;
		case 26:
			return 30;
		case 27:
			return 32;
		case 28:
			return 40;
		case 29:
			return 48;
		case 30:
			return 56;
		default:
			return 64;
	}
}

static int
closest_fixed_bits(int n)
{
	if (n == 0)
		return 1;
	if (n <= 24)
		return n;
	if (n <= 26)
		return 26;
	if (n <= 28)
		return 28;
	if (n <= 30)
		return 30;
	if (n <= 32)
		return 32;
	if (n <= 40)
		return 40;
	if (n <= 48)
		return 48;
	if (n <= 56)
		return 56;
	return 64;
}

/* unpack n big-endian values of w bits (1..64) into out, byte aligned end */
static bool
unpack_bits(ts_cursor *c, int w, int n, uint64_t *out, ts_err *err)
{
	uint64_t	total_bits = (uint64_t) w * (uint64_t) n;
	size_t		nbytes = (size_t) ((total_bits + 7) / 8);
	const uint8_t *p;
	uint64_t	bitpos = 0;
	int			i;

	if (!ts_cursor_bytes(c, nbytes, &p, err))
		return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 run of %d values of %d bits runs past the stream end",
						n, w);
	for (i = 0; i < n; i++)
	{
		uint64_t	v = 0;
		int			left = w;

		while (left > 0)
		{
			size_t		byte = (size_t) (bitpos >> 3);
			int			off = (int) (bitpos & 7);
			int			avail = 8 - off;
			int			take = avail < left ? avail : left;
			uint8_t		bits = (uint8_t) ((p[byte] >> (avail - take)) & ((1u << take) - 1));

			v = (v << take) | bits;
			left -= take;
			bitpos += take;
		}
		out[i] = v;
	}
	return true;
}

static bool
rle_v2_fill(orc_int_rle *d, ts_err *err)
{
	uint8_t		h;
	int			enc;
	int			i;
	uint64_t	u[512];

	if (!ts_cursor_u8(&d->c, &h, err))
		return ts_error(err, TS_ERR_CORRUPT, "integer RLE stream ends before the declared values");
	enc = h >> 6;
	d->pos = 0;
	if (enc == 0)
	{
		/* short repeat */
		int			width = ((h >> 3) & 7) + 1;
		int			count = (h & 7) + 3;
		const uint8_t *p;
		uint64_t	v = 0;
		int64_t		sv;

		if (!ts_cursor_bytes(&d->c, width, &p, err))
			return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 short repeat truncated");
		for (i = 0; i < width; i++)
			v = (v << 8) | p[i];
		sv = d->is_signed ? unzigzag(v) : (int64_t) v;
		for (i = 0; i < count; i++)
			d->buf[i] = sv;
		d->n = count;
		return true;
	}
	else
	{
		uint8_t		h2;
		int			len;

		if (!ts_cursor_u8(&d->c, &h2, err))
			return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 header truncated");
		len = (((h & 1) << 8) | h2) + 1;

		if (enc == 1)
		{
			/* direct */
			int			w = decode_width((h >> 1) & 0x1f);

			if (!unpack_bits(&d->c, w, len, u, err))
				return false;
			for (i = 0; i < len; i++)
				d->buf[i] = d->is_signed ? unzigzag(u[i]) : (int64_t) u[i];
			d->n = len;
			return true;
		}
		else if (enc == 2)
		{
			/* patched base */
			int			w = decode_width((h >> 1) & 0x1f);
			uint8_t		h3,
						h4;
			int			bw,
						pw,
						pgw,
						pll;
			const uint8_t *p;
			uint64_t	base_u = 0;
			int64_t		base;
			uint64_t	patches[32];
			int			idx = 0;

			if (!ts_cursor_u8(&d->c, &h3, err) || !ts_cursor_u8(&d->c, &h4, err))
				return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 patched base header truncated");
			bw = ((h3 >> 5) & 7) + 1;
			pw = decode_width(h3 & 0x1f);
			pgw = ((h4 >> 5) & 7) + 1;
			pll = h4 & 0x1f;
			if (pgw + pw > 64)
				return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 patch width %d + gap width %d exceeds 64",
								pw, pgw);
			if (!ts_cursor_bytes(&d->c, bw, &p, err))
				return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 patched base truncated");
			for (i = 0; i < bw; i++)
				base_u = (base_u << 8) | p[i];
			{
				uint64_t	mask = (uint64_t) 1 << (bw * 8 - 1);

				if (base_u & mask)
					base = -(int64_t) (base_u & ~mask);
				else
					base = (int64_t) base_u;
			}
			if (!unpack_bits(&d->c, w, len, u, err))
				return false;
			if (pll > 0 && !unpack_bits(&d->c, closest_fixed_bits(pgw + pw), pll, patches, err))
				return false;
			for (i = 0; i < pll; i++)
			{
				uint64_t	gap = patches[i] >> pw;
				uint64_t	patch = pw == 64 ? patches[i] : patches[i] & (((uint64_t) 1 << pw) - 1);

				idx += (int) gap;
				if (idx >= len)
					return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 patch index %d past run length %d",
									idx, len);
				if (patch == 0 && gap == 255)
					continue;
				if (w < 64)
					u[idx] |= patch << w;
			}
			for (i = 0; i < len; i++)
				d->buf[i] = (int64_t) ((uint64_t) base + u[i]);
			d->n = len;
			return true;
		}
		else
		{
			/* delta */
			int			code = (h >> 1) & 0x1f;
			int			w = code == 0 ? 0 : decode_width(code);
			int64_t		base = 0,
						delta = 0;

			if (!read_varint(d, d->is_signed, &base, err) ||
				!read_varint(d, true, &delta, err))
				return false;
			d->buf[0] = base;
			if (w == 0)
			{
				for (i = 1; i < len; i++)
					d->buf[i] = (int64_t) ((uint64_t) d->buf[i - 1] + (uint64_t) delta);
			}
			else
			{
				if (len < 2)
					return ts_error(err, TS_ERR_CORRUPT, "integer RLE v2 delta run too short");
				d->buf[1] = (int64_t) ((uint64_t) base + (uint64_t) delta);
				if (!unpack_bits(&d->c, w, len - 2, u, err))
					return false;
				for (i = 2; i < len; i++)
				{
					if (delta < 0)
						d->buf[i] = (int64_t) ((uint64_t) d->buf[i - 1] - u[i - 2]);
					else
						d->buf[i] = (int64_t) ((uint64_t) d->buf[i - 1] + u[i - 2]);
				}
			}
			d->n = len;
			return true;
		}
	}
}

bool
orc_int_rle_next(orc_int_rle *d, int64_t *out, ts_err *err)
{
	if (d->pos >= d->n)
	{
		if (!(d->v2 ? rle_v2_fill(d, err) : rle_v1_fill(d, err)))
			return false;
	}
	*out = d->buf[d->pos++];
	return true;
}

/* ---- decimal varint --------------------------------------------------- */

bool
orc_read_varint128(ts_cursor *c, ts_int128 *out, ts_err *err)
{
	unsigned __int128 u = 0;
	int			shift = 0;
	uint8_t		b;

	do
	{
		if (!ts_cursor_u8(c, &b, err))
			return ts_error(err, TS_ERR_CORRUPT, "decimal varint truncated");
		if (shift >= 128 || (shift > 121 && (b & 0x7f) >> (128 - shift)) != 0)
			return ts_error(err, TS_ERR_CORRUPT, "decimal varint longer than 128 bits");
		u |= (unsigned __int128) (b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*out = (__int128) (u >> 1) ^ -(__int128) (u & 1);
	return true;
}
