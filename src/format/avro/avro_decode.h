/*
 * avro_decode.h - decode Avro binary records straight into ts_value.
 *
 * Owns: the "read plan" that pairs a writer schema node with the Paimon
 * type a caller wants (resolution by name, type conversions decided once
 * at open), the bounds-checked decoder that follows it, and the skipper
 * for fields nobody asked for, and the inline readers of Avro's varints
 * and lengths.  Knows nothing about files or blocks.
 */
#ifndef TS_AVRO_DECODE_H
#define TS_AVRO_DECODE_H

#include "format/avro/avro_schema.h"

typedef struct ts_avro_plan ts_avro_plan;

/*
 * Build the plan for the top-level writer schema 'root' (a record, or a
 * union ["null", record]) and the requested columns (names + Paimon
 * types).  Columns the record lacks read as NULL.  Plan memory lives in
 * 'arena'.  TS_ERR_UNSUPPORTED naming the column when a conversion is
 * impossible; 'what' (the file) is named too.
 */
ts_avro_plan *ts_avro_plan_top(const ts_avro_node *root,
							   const char *const *names, const ts_type *const *types, int ncols,
							   ts_arena *arena, const char *what, ts_err *err);

/*
 * Decode one top-level object from cur into out[0..ncols-1] (which must
 * be ncols values).  Bytes point into cur's buffer; nested values are
 * allocated in 'arena'.
 */
bool		ts_avro_decode_top(const ts_avro_plan *plan, ts_cursor *cur,
							   ts_value *out, ts_arena *arena, ts_err *err);

/*
 * Decode nrows top-level objects from cur into out, row after row (ncols
 * values each, as planned).  Returns the number decoded: nrows, or fewer
 * with *err set by the first bad object (which is not counted).  Flat
 * records (primitive or nullable primitive fields) take a faster path.
 */
int			ts_avro_decode_rows(const ts_avro_plan *plan, ts_cursor *cur, ts_value *out,
								int nrows, ts_arena *arena, ts_err *err);

/* Skip one value of writer node n. */
bool		ts_avro_skip(const ts_avro_node *n, ts_cursor *cur, ts_err *err);

/*
 * The fast paths of Avro's zig-zag varint long at p (end: the data's end):
 * a 1-byte varint; with 10 bytes left, one of up to 8 bytes decoded from a
 * single 64-bit load without a loop (the last byte is the first without its
 * high bit; each byte gives 7 bits).  Returns the position after it, or
 * NULL when neither applies (longer varints, the end of the data): then
 * ts_cursor_zigzag, which checks all, reads it.
 */
static inline __attribute__((always_inline)) const uint8_t *
ts_avro_long_fast(const uint8_t *p, const uint8_t *end, int64_t *v)
{
	if (p < end && (*p & 0x80) == 0)
	{
		uint8_t		b = *p;

		*v = (int64_t) (b >> 1) ^ -(int64_t) (b & 1);
		return p + 1;
	}
	if (end - p >= 10)
	{
		uint64_t	x = ts_load_le64(p);
		uint64_t	last = ~x & UINT64_C(0x8080808080808080);

		if (last != 0)
		{
			int			nbytes = (__builtin_ctzll(last) >> 3) + 1;
			uint64_t	u;

			if (nbytes < 8)
				x &= (UINT64_C(1) << (8 * nbytes)) - 1;
			/* the 7-bit groups packed together: pairs, then quads, then all */
			u = (x & UINT64_C(0x007f007f007f007f)) | ((x & UINT64_C(0x7f007f007f007f00)) >> 1);
			u = (u & UINT64_C(0x00003fff00003fff)) | ((u & UINT64_C(0x3fff00003fff0000)) >> 2);
			u = (u & UINT64_C(0x000000000fffffff)) | ((u & UINT64_C(0x0fffffff00000000)) >> 4);
			*v = (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
			return p + nbytes;
		}
	}
	return NULL;
}

/*
 * Avro's zig-zag varint long, for the decoders of records (avro_decode.c,
 * avro_flat.c) and of Paimon metadata (meta/manifest_avro.c).
 */
static inline __attribute__((always_inline)) bool
ts_avro_read_long(ts_cursor *cur, int64_t *v, ts_err *err)
{
	const uint8_t *next = ts_avro_long_fast(cur->p, cur->end, v);

	if (next != NULL)
	{
		cur->p = next;
		return true;
	}
	return ts_cursor_zigzag(cur, v, err);
}

/* An Avro int: a long within 32 bits. */
static inline __attribute__((always_inline)) bool
ts_avro_read_int(ts_cursor *cur, int64_t *v, ts_err *err)
{
	if (!ts_avro_read_long(cur, v, err))
		return false;
	if (*v < INT32_MIN || *v > INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "Avro int out of range");
	return true;
}

/* Avro bytes / string: a length, then that many bytes (left in place). */
static inline __attribute__((always_inline)) bool
ts_avro_read_len(ts_cursor *cur, const uint8_t **p, uint32_t *len, ts_err *err)
{
	int64_t		n;

	if (!ts_avro_read_long(cur, &n, err))
		return false;
	if (n < 0)
		return ts_error(err, TS_ERR_CORRUPT, "negative length %lld", (long long) n);
	if ((uint64_t) n > ts_cursor_left(cur))
		return ts_error(err, TS_ERR_CORRUPT, "truncated value (length %lld, %zu bytes left)",
						(long long) n, ts_cursor_left(cur));
	if (n > UINT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "value longer than 4 GiB");
	*p = cur->p;
	*len = (uint32_t) n;
	cur->p += n;
	return true;
}

#endif							/* TS_AVRO_DECODE_H */
