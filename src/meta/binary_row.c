/*
 * binary_row.c - Paimon BinaryRow decode/encode (PAIMON-FORMAT.md 5).
 *
 * Owns: the byte layout only: null bits (header byte + one bit per field),
 * 8-byte fixed slots (LE), the 8-byte aligned variable part, inline short
 * strings, compact/non-compact DECIMAL and TIMESTAMP, and the var-part
 * space Java reserves for NULL non-compact values.  Every offset/length
 * read from bytes is checked against the row size.  Nested types (ARRAY,
 * MAP, MULTISET, ROW) and the newer types inside rows are
 * TS_ERR_UNSUPPORTED for now.
 */
#include "base/ts_bytes.h"
#include "meta/binary_row.h"

#include <string.h>

#define MAX_ARITY 65536

static inline size_t
null_bits_width(int64_t arity)
{
	return (size_t) (((arity + 63 + 8) / 64) * 8);
}

static inline bool
is_compact_decimal(const ts_type *t)
{
	return t->precision <= 18;
}

static inline bool
is_compact_timestamp(const ts_type *t)
{
	return t->precision <= 3;
}

int
ts_binary_row_arity(const uint8_t *bytes, size_t len)
{
	if (bytes == NULL || len < 4)
		return -1;
	return (int) (int32_t) ts_load_be32(bytes);
}

/* Sign-extend 'n' big-endian two's-complement bytes into an int128. */
static ts_int128
be_twos_to_int128(const uint8_t *p, size_t n)
{
	unsigned __int128 u = 0;

	if (n == 0)
		return 0;
	if (p[0] & 0x80)
		u = ~(unsigned __int128) 0;
	for (size_t i = 0; i < n; i++)
		u = (u << 8) | p[i];
	return (ts_int128) u;
}

static bool
decode_field(const uint8_t *row, size_t rowlen, size_t slot_off, int field,
			 const ts_type *t, ts_value *out, ts_err *err)
{
	const uint8_t *slot = row + slot_off;
	uint64_t	sv = ts_load_le64(slot);
	uint64_t	off = sv >> 32;
	uint64_t	size = sv & 0xffffffffu;

	out->isnull = false;
	switch (t->kind)
	{
		case TS_BOOLEAN:
			out->v.i = slot[0] != 0;
			return true;
		case TS_TINYINT:
			out->v.i = (int8_t) slot[0];
			return true;
		case TS_SMALLINT:
			out->v.i = (int16_t) ts_load_le16(slot);
			return true;
		case TS_INT:
		case TS_DATE:
		case TS_TIME:
			out->v.i = (int32_t) ts_load_le32(slot);
			return true;
		case TS_BIGINT:
			out->v.i = (int64_t) sv;
			return true;
		case TS_FLOAT:
			{
				uint32_t	b = ts_load_le32(slot);

				memcpy(&out->v.f, &b, 4);
				return true;
			}
		case TS_DOUBLE:
			memcpy(&out->v.d, &sv, 8);
			return true;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (slot[7] & 0x80)
			{
				uint32_t	n = slot[7] & 0x7f;

				if (n > 7)
					return ts_error(err, TS_ERR_CORRUPT,
									"BinaryRow field %d: inline length %u exceeds 7", field, n);
				out->v.s.p = slot;
				out->v.s.len = n;
				return true;
			}
			if (off > rowlen || size > rowlen - off)
				return ts_error(err, TS_ERR_CORRUPT,
								"BinaryRow field %d: variable part [%llu, +%llu) outside the %zu-byte row",
								field, (unsigned long long) off, (unsigned long long) size, rowlen);
			out->v.s.p = row + off;
			out->v.s.len = (uint32_t) size;
			return true;
		case TS_DECIMAL:
			if (is_compact_decimal(t))
			{
				out->v.dec = (int64_t) sv;
				return true;
			}
			if (size == 0 || size > 16 || off > rowlen || size > rowlen - off)
				return ts_error(err, TS_ERR_CORRUPT,
								"BinaryRow field %d: bad DECIMAL(%d, %d) bytes (offset %llu, length %llu, row %zu)",
								field, (int) t->precision, (int) t->scale,
								(unsigned long long) off, (unsigned long long) size, rowlen);
			out->v.dec = be_twos_to_int128(row + off, (size_t) size);
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (is_compact_timestamp(t))
			{
				out->v.ts.millis = (int64_t) sv;
				out->v.ts.nanos = 0;
				return true;
			}
			if (off > rowlen || rowlen - off < 8 || size > 999999)
				return ts_error(err, TS_ERR_CORRUPT,
								"BinaryRow field %d: bad TIMESTAMP(%d) (offset %llu, nanos %llu, row %zu)",
								field, (int) t->precision, (unsigned long long) off,
								(unsigned long long) size, rowlen);
			out->v.ts.millis = (int64_t) ts_load_le64(row + off);
			out->v.ts.nanos = (int32_t) size;
			return true;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"BinaryRow field %d: type %s is not supported inside a row yet",
							field, ts_type_kind_name(t->kind));
	}
}

bool
ts_binary_row_decode(const uint8_t *bytes, size_t len,
					 const ts_type *const *types, int ntypes,
					 ts_value *out, int *arity, ts_arena *arena, ts_err *err)
{
	int32_t		ar;
	const uint8_t *row;
	size_t		rowlen,
				width;

	(void) arena;
	if (bytes == NULL || len < 4)
		return ts_error(err, TS_ERR_CORRUPT, "BinaryRow is shorter than its 4-byte arity prefix (%zu bytes)",
						bytes ? len : 0);
	ar = (int32_t) ts_load_be32(bytes);
	if (ar < 0 || ar > MAX_ARITY)
		return ts_error(err, TS_ERR_CORRUPT, "BinaryRow has an invalid arity %d", (int) ar);
	row = bytes + 4;
	rowlen = len - 4;
	width = null_bits_width(ar);
	if (rowlen < width + (size_t) ar * 8)
		return ts_error(err, TS_ERR_CORRUPT,
						"BinaryRow of arity %d needs %zu bytes, has %zu",
						(int) ar, width + (size_t) ar * 8, rowlen);
	if (arity)
		*arity = ar;
	for (int i = 0; i < ntypes; i++)
	{
		int			bit = i + 8;

		memset(&out[i], 0, sizeof(ts_value));
		if (i >= ar || (row[bit >> 3] & (1 << (bit & 7))))
		{
			out[i].isnull = true;
			continue;
		}
		if (types[i] == NULL)
			return ts_error(err, TS_ERR_INVALID, "BinaryRow field %d has no type", i);
		if (!decode_field(row, rowlen, width + (size_t) i * 8, i, types[i], &out[i], err))
			return false;
	}
	return true;
}

/* ---- encode ---------------------------------------------------------- */

/* Minimal big-endian two's complement bytes (Java BigInteger.toByteArray). */
static int
int128_to_min_bytes(ts_int128 v, uint8_t out[16])
{
	uint8_t		full[16];
	unsigned __int128 u = (unsigned __int128) v;
	int			start = 0;

	for (int i = 15; i >= 0; i--)
	{
		full[i] = (uint8_t) (u & 0xff);
		u >>= 8;
	}
	/* drop redundant sign bytes */
	while (start < 15 &&
		   ((full[start] == 0x00 && !(full[start + 1] & 0x80)) ||
			(full[start] == 0xff && (full[start + 1] & 0x80))))
		start++;
	memcpy(out, full + start, 16 - start);
	return 16 - start;
}

bool
ts_binary_row_encode(const ts_type *const *types, const ts_value *values, int n,
					 bool with_arity_prefix, ts_buf *out, ts_err *err)
{
	size_t		base = out->len;
	size_t		hdr = with_arity_prefix ? 4 : 0;
	size_t		width;
	size_t		fixed;
	size_t		cursor;

	if (n < 0 || n > MAX_ARITY)
		return ts_error(err, TS_ERR_INVALID, "BinaryRow arity %d out of range", n);
	width = null_bits_width(n);
	fixed = width + (size_t) n * 8;
	if (!ts_buf_reserve(out, hdr + fixed, err))
		return false;
	memset(out->data + base, 0, hdr + fixed);
	if (with_arity_prefix)
	{
		ts_store_be32(out->data + base, (uint32_t) n);
	}
	out->len = base + hdr + fixed;
	cursor = fixed;				/* var part offset, relative to row start */

#define ROW (out->data + base + hdr)
	for (int i = 0; i < n; i++)
	{
		const ts_type *t = types[i];
		const ts_value *v = &values[i];
		size_t		slot = width + (size_t) i * 8;
		int			bit = i + 8;
		uint64_t	sv = 0;

		if (t == NULL)
			return ts_error(err, TS_ERR_INVALID, "BinaryRow field %d has no type", i);
		if (v->isnull)
		{
			ROW[bit >> 3] |= (uint8_t) (1 << (bit & 7));
			/* non-compact DECIMAL/TIMESTAMP still reserve their var bytes */
			if ((t->kind == TS_DECIMAL && !is_compact_decimal(t)) ||
				((t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ) && !is_compact_timestamp(t)))
			{
				size_t		need = t->kind == TS_DECIMAL ? 16 : 8;

				if (!ts_buf_reserve(out, need, err))
					return false;
				memset(out->data + out->len, 0, need);
				out->len += need;
				ts_store_le64(ROW + slot, (uint64_t) cursor << 32);
				cursor += need;
			}
			continue;
		}
		switch (t->kind)
		{
			case TS_BOOLEAN:
				ROW[slot] = v->v.i ? 1 : 0;
				break;
			case TS_TINYINT:
				ROW[slot] = (uint8_t) (int8_t) v->v.i;
				break;
			case TS_SMALLINT:
				ts_store_le16(ROW + slot, (uint16_t) (int16_t) v->v.i);
				break;
			case TS_INT:
			case TS_DATE:
			case TS_TIME:
				ts_store_le32(ROW + slot, (uint32_t) (int32_t) v->v.i);
				break;
			case TS_BIGINT:
				ts_store_le64(ROW + slot, (uint64_t) v->v.i);
				break;
			case TS_FLOAT:
				{
					uint32_t	b;

					memcpy(&b, &v->v.f, 4);
					ts_store_le32(ROW + slot, b);
				}
				break;
			case TS_DOUBLE:
				memcpy(&sv, &v->v.d, 8);
				ts_store_le64(ROW + slot, sv);
				break;
			case TS_CHAR:
			case TS_VARCHAR:
			case TS_BINARY:
			case TS_VARBINARY:
				if (v->v.s.len <= 7)
				{
					if (v->v.s.len)
						memcpy(ROW + slot, v->v.s.p, v->v.s.len);
					ROW[slot + 7] = (uint8_t) (0x80 | v->v.s.len);
				}
				else
				{
					size_t		padded = ((size_t) v->v.s.len + 7) & ~(size_t) 7;

					if (!ts_buf_reserve(out, padded, err))
						return false;
					memset(out->data + out->len, 0, padded);
					memcpy(out->data + out->len, v->v.s.p, v->v.s.len);
					out->len += padded;
					ts_store_le64(ROW + slot, ((uint64_t) cursor << 32) | v->v.s.len);
					cursor += padded;
				}
				break;
			case TS_DECIMAL:
				if (is_compact_decimal(t))
				{
					if (v->v.dec > INT64_MAX || v->v.dec < INT64_MIN)
						return ts_error(err, TS_ERR_INVALID,
										"BinaryRow field %d: DECIMAL(%d, %d) value does not fit",
										i, (int) t->precision, (int) t->scale);
					ts_store_le64(ROW + slot, (uint64_t) (int64_t) v->v.dec);
				}
				else
				{
					uint8_t		b[16];
					int			nb = int128_to_min_bytes(v->v.dec, b);

					if (!ts_buf_reserve(out, 16, err))
						return false;
					memset(out->data + out->len, 0, 16);
					memcpy(out->data + out->len, b, nb);
					out->len += 16;
					ts_store_le64(ROW + slot, ((uint64_t) cursor << 32) | (uint32_t) nb);
					cursor += 16;
				}
				break;
			case TS_TIMESTAMP:
			case TS_TIMESTAMP_LTZ:
				if (is_compact_timestamp(t))
					ts_store_le64(ROW + slot, (uint64_t) v->v.ts.millis);
				else
				{
					if (v->v.ts.nanos < 0 || v->v.ts.nanos > 999999)
						return ts_error(err, TS_ERR_INVALID,
										"BinaryRow field %d: nanos-of-millisecond %d out of range",
										i, (int) v->v.ts.nanos);
					if (!ts_buf_reserve(out, 8, err))
						return false;
					ts_store_le64(out->data + out->len, (uint64_t) v->v.ts.millis);
					out->len += 8;
					ts_store_le64(ROW + slot, ((uint64_t) cursor << 32) | (uint32_t) v->v.ts.nanos);
					cursor += 8;
				}
				break;
			default:
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"BinaryRow field %d: type %s is not supported inside a row yet",
								i, ts_type_kind_name(t->kind));
		}
	}
#undef ROW
	return true;
}
