/*
 * avro_decode.c - the bounds-checked Avro binary decoder.
 *
 * Owns: following a read plan (built by avro_plan.c) over a record's
 * bytes: the conversions each plan node names, and skipping unrequested
 * values cheaply (fixed-size runs and sized blocks are skipped without
 * decoding).  Every length is checked against the bytes left; nesting
 * depth is bounded.
 */
#include <string.h>

#include "format/avro/avro_flat.h"

/* Hard caps for hostile counts of zero-byte items and multiset expansion. */
#define MAX_ZERO_SIZE_ITEMS ((int64_t) 1 << 22)
#define MAX_COLLECTION_ITEMS ((int64_t) INT32_MAX)
#define MAX_SKIP_DEPTH 512

/* ---- skipping -------------------------------------------------------- */

/*
 * Read one block header of an array/map: *count = items (0 = end),
 * *bytes = byte size when the writer gave it (else -1).
 */
static bool
read_block_count(ts_cursor *cur, int64_t *count, int64_t *bytes, ts_err *err)
{
	if (!ts_avro_read_long(cur, count, err))
		return false;
	*bytes = -1;
	if (*count < 0)
	{
		if (*count == INT64_MIN)
			return ts_error(err, TS_ERR_CORRUPT, "bad array/map block count");
		*count = -*count;
		if (!ts_avro_read_long(cur, bytes, err))
			return false;
		if (*bytes < 0 || (uint64_t) *bytes > ts_cursor_left(cur))
			return ts_error(err, TS_ERR_CORRUPT, "bad array/map block size %lld", (long long) *bytes);
	}
	return true;
}

/* Is count items of (min_size-byte minimum) plausible with the bytes left? */
static bool
check_count(ts_cursor *cur, int64_t count, int64_t min_size, ts_err *err)
{
	if (min_size > 0)
	{
		if ((uint64_t) count > ts_cursor_left(cur) / (uint64_t) min_size)
			return ts_error(err, TS_ERR_CORRUPT, "array/map block of %lld items exceeds the data left",
							(long long) count);
	}
	else if (count > MAX_ZERO_SIZE_ITEMS)
		return ts_error(err, TS_ERR_CORRUPT, "array/map block of %lld empty items", (long long) count);
	return true;
}

/* Skip a varint-encoded value (int, long, enum) or a length-prefixed one (bytes, string). */
static inline bool
skip_varlen(const ts_avro_node *n, ts_cursor *cur, ts_err *err)
{
	int64_t		v;
	const uint8_t *p;
	uint32_t	len;

	if (n->kind == TS_AVRO_BYTES || n->kind == TS_AVRO_STRING)
		return ts_avro_read_len(cur, &p, &len, err);
	return ts_avro_read_long(cur, &v, err);
}

static bool skip_value(const ts_avro_node *n, ts_cursor *cur, int depth, ts_err *err);

static bool
skip_collection(const ts_avro_node *n, ts_cursor *cur, int depth, ts_err *err)
{
	const ts_avro_node *item = n->children[0];
	int64_t		item_min = item->min_encoded_size + (n->kind == TS_AVRO_MAP ? 1 : 0);

	for (;;)
	{
		int64_t		count,
					bytes;

		if (!read_block_count(cur, &count, &bytes, err))
			return false;
		if (count == 0)
			return true;
		if (bytes >= 0)
		{
			cur->p += bytes;	/* checked by read_block_count */
			continue;
		}
		if (!check_count(cur, count, item_min, err))
			return false;
		if (n->kind == TS_AVRO_ARRAY && item->fixed_encoded_size >= 0)
		{
			/* check_count proved count * size <= left when size > 0 */
			cur->p += count * item->fixed_encoded_size;
			continue;
		}
		for (int64_t i = 0; i < count; i++)
		{
			if (n->kind == TS_AVRO_MAP)
			{
				const uint8_t *p;
				uint32_t	len;

				if (!ts_avro_read_len(cur, &p, &len, err))
					return false;
			}
			if (!skip_value(item, cur, depth + 1, err))
				return false;
		}
	}
}

static bool
skip_value(const ts_avro_node *n, ts_cursor *cur, int depth, ts_err *err)
{
	int64_t		v;

	if (depth > MAX_SKIP_DEPTH)
		return ts_error(err, TS_ERR_CORRUPT, "Avro value nested too deeply");
	if (n->fixed_encoded_size >= 0)
		return ts_cursor_skip(cur, (size_t) n->fixed_encoded_size, err);
	switch (n->kind)
	{
		case TS_AVRO_INT:
		case TS_AVRO_LONG:
		case TS_AVRO_ENUM:
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
			return skip_varlen(n, cur, err);
		case TS_AVRO_RECORD:
			for (int i = 0; i < n->nchildren; i++)
				if (!skip_value(n->children[i], cur, depth + 1, err))
					return false;
			return true;
		case TS_AVRO_UNION:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			if (v < 0 || v >= n->nchildren)
				return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) v);
			return skip_value(n->children[v], cur, depth + 1, err);
		case TS_AVRO_ARRAY:
		case TS_AVRO_MAP:
			return skip_collection(n, cur, depth, err);
		default:
			/* fixed-size kinds were handled above */
			return ts_error(err, TS_ERR_CORRUPT, "cannot skip Avro %s", ts_avro_kind_name(n->kind));
	}
}

/*
 * skip_value for what unrequested columns mostly are, without a call per
 * value: a primitive, or a two-branch union (["null", T]) of one.
 */
static inline bool
skip_field(const ts_avro_node *n, ts_cursor *cur, int depth, ts_err *err)
{
	int64_t		v;

	if (n->kind == TS_AVRO_UNION && n->nchildren == 2)
	{
		if (!ts_avro_read_long(cur, &v, err))
			return false;
		if (v < 0 || v >= 2)
			return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) v);
		n = n->children[v];
		depth++;
	}
	if (n->fixed_encoded_size == 0)
		return true;
	switch (n->kind)
	{
		case TS_AVRO_INT:
		case TS_AVRO_LONG:
		case TS_AVRO_ENUM:
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
			return skip_varlen(n, cur, err);
		default:
			return skip_value(n, cur, depth, err);
	}
}

bool
ts_avro_skip(const ts_avro_node *n, ts_cursor *cur, ts_err *err)
{
	return skip_value(n, cur, 0, err);
}

/* ---- decoding -------------------------------------------------------- */

static inline int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if ((a % b) != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static inline bool
decode_decimal_bytes(const uint8_t *p, uint32_t len, ts_value *out, ts_err *err)
{
	return ts_avro_decimal_from_bytes(p, len, &out->v.dec, err);
}

/*
 * Decode one value of a scalar plan (no union, record or collection) into
 * out; *handled = false for the other plans.  Always inlined: decode_record
 * calls it for each field, so scalar fields cost no call.
 */
static inline __attribute__((always_inline)) bool
decode_scalar(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out, bool *handled, ts_err *err)
{
	int64_t		v;

	*handled = true;
	switch (pl->cv)
	{
		case CV_NULL:
			out->isnull = true;
			return true;
		case CV_BOOL:
			{
				uint8_t		b;

				if (!ts_cursor_u8(cur, &b, err))
					return false;
				if (b > 1)
					return ts_error(err, TS_ERR_CORRUPT, "boolean byte %u", b);
				out->v.i = b;
				return true;
			}
		case CV_INT:
			if (pl->w->kind == TS_AVRO_INT ? !ts_avro_read_int(cur, &v, err) : !ts_avro_read_long(cur, &v, err))
				return false;
			switch (pl->target)
			{
				case TS_TINYINT:
					out->v.i = (int8_t) v;
					break;
				case TS_SMALLINT:
					out->v.i = (int16_t) v;
					break;
				default:
					out->v.i = v;
			}
			return true;
		case CV_TIME_MICROS:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			out->v.i = floor_div(v, 1000);
			return true;
		case CV_TS_MILLIS:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			out->v.ts.millis = v;
			out->v.ts.nanos = 0;
			return true;
		case CV_TS_MICROS:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			out->v.ts.millis = floor_div(v, 1000);
			out->v.ts.nanos = (int32_t) (v - out->v.ts.millis * 1000) * 1000;
			return true;
		case CV_TS_NANOS:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			out->v.ts.millis = floor_div(v, 1000000);
			out->v.ts.nanos = (int32_t) (v - out->v.ts.millis * 1000000);
			return true;
		case CV_FLOAT:
		case CV_FLOAT_TO_DOUBLE:
			{
				uint32_t	bits;
				float		f;

				if (!ts_cursor_le32(cur, &bits, err))
					return false;
				memcpy(&f, &bits, 4);
				if (pl->cv == CV_FLOAT)
					out->v.f = f;
				else
					out->v.d = f;
				return true;
			}
		case CV_DOUBLE:
			{
				uint64_t	bits;

				if (ts_cursor_left(cur) < 8)
					return ts_cursor_le64(cur, &bits, err);	/* reports the truncation */
				bits = ts_load_le64(cur->p);
				cur->p += 8;
				memcpy(&out->v.d, &bits, 8);
				return true;
			}
		case CV_INT_TO_FLOAT:
		case CV_INT_TO_DOUBLE:
			if (pl->w->kind == TS_AVRO_INT ? !ts_avro_read_int(cur, &v, err) : !ts_avro_read_long(cur, &v, err))
				return false;
			if (pl->cv == CV_INT_TO_FLOAT)
				out->v.f = (float) v;
			else
				out->v.d = (double) v;
			return true;
		case CV_DEC_BYTES:
			{
				const uint8_t *p = NULL;
				uint32_t	len = 0;

				if (!ts_avro_read_len(cur, &p, &len, err))
					return false;
				return decode_decimal_bytes(p, len, out, err);
			}
		case CV_DEC_FIXED:
			{
				const uint8_t *p;

				if (!ts_cursor_bytes(cur, (size_t) pl->w->fixed_size, &p, err))
					return false;
				return decode_decimal_bytes(p, (uint32_t) pl->w->fixed_size, out, err);
			}
		case CV_DEC_INT:
			if (pl->w->kind == TS_AVRO_INT ? !ts_avro_read_int(cur, &v, err) : !ts_avro_read_long(cur, &v, err))
				return false;
			out->v.dec = v;
			return true;
		case CV_BYTES:
			return ts_avro_read_len(cur, &out->v.s.p, &out->v.s.len, err);
		case CV_FIXED:
			out->v.s.len = (uint32_t) pl->w->fixed_size;
			return ts_cursor_bytes(cur, (size_t) pl->w->fixed_size, &out->v.s.p, err);
		case CV_ENUM:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			if (v < 0 || v >= pl->w->nsymbols)
				return ts_error(err, TS_ERR_CORRUPT, "enum index %lld out of range", (long long) v);
			out->v.s.p = (const uint8_t *) pl->w->symbols[v];
			out->v.s.len = (uint32_t) strlen(pl->w->symbols[v]);
			return true;
		default:
			*handled = false;
			return true;
	}
}

bool
ts_avro_decode_scalar(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out, ts_err *err)
{
	bool		handled;
	bool		ok = decode_scalar(pl, cur, out, &handled, err);

	if (!handled)
		return ts_error(err, TS_ERR_CORRUPT, "internal: not a scalar plan");
	return ok;
}

static bool decode_value(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out,
						 ts_arena *arena, int depth, ts_err *err);

static bool
decode_record(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out,
			  ts_arena *arena, int depth, ts_err *err)
{
	const ts_avro_node *w = pl->w;

	if (!pl->all_targets)
		for (int o = 0; o < pl->nout; o++)
			out[o].isnull = true;	/* fields the writer lacks */
	for (int i = 0; i < w->nchildren; i++)
	{
		if (pl->fields[i] == NULL)
		{
			if (!skip_field(w->children[i], cur, depth + 1, err))
				return false;
		}
		else
		{
			ts_value   *dst = &out[pl->targets[i]];
			const ts_avro_plan *f = pl->fields[i];

			if (f->nonnull)
			{
				/* ["null", T] (or [T, "null"]): the branch index, then T */
				int64_t		b;

				if (!ts_avro_read_long(cur, &b, err))
					return false;
				if (b == f->null_branch)
				{
					dst->isnull = true;
					continue;
				}
				if (b != 1 - f->null_branch)
					return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) b);
				f = f->nonnull;
			}
			dst->isnull = false;
			{
				bool		handled;

				if (!decode_scalar(f, cur, dst, &handled, err))
					return false;
				if (!handled && !decode_value(f, cur, dst, arena, depth + 1, err))
					return false;
			}
		}
	}
	if (pl->any_copy)
		for (int o = 0; o < pl->nout; o++)
			if (pl->copy_from[o] >= 0)
				out[o] = out[pl->copy_from[o]];
	return true;
}

/* A growable run of values in the arena (doubling, old runs abandoned). */
typedef struct value_run
{
	ts_value   *items;
	int64_t		n;
	int64_t		cap;
} value_run;

static bool
run_reserve(value_run *r, int64_t extra, ts_arena *arena, ts_err *err)
{
	int64_t		need = r->n + extra;
	int64_t		cap;
	ts_value   *items;

	if (need <= r->cap)
		return true;
	if (need > MAX_COLLECTION_ITEMS)
		return ts_error(err, TS_ERR_CORRUPT, "array/map of more than %lld items",
						(long long) MAX_COLLECTION_ITEMS);
	cap = r->cap ? r->cap * 2 : 4;
	if (cap < need)
		cap = need;
	if (cap > MAX_COLLECTION_ITEMS)
		cap = MAX_COLLECTION_ITEMS;
	items = ts_arena_alloc(arena, sizeof(ts_value) * (size_t) cap);
	if (items == NULL)
		return ts_error_nomemf(err, "for an array of %lld items", (long long) cap);
	if (r->n)
		memcpy(items, r->items, sizeof(ts_value) * (size_t) r->n);
	r->items = items;
	r->cap = cap;
	return true;
}

static bool
decode_collection(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out,
				  ts_arena *arena, int depth, ts_err *err)
{
	const ts_avro_node *w = pl->w;
	const ts_avro_node *item = w->children[0];
	int64_t		item_min = item->min_encoded_size + (w->kind == TS_AVRO_MAP ? 1 : 0);
	int			per = (pl->cv == CV_MAP || pl->cv == CV_ARRAY_MAP) ? 2 : 1;
	value_run	run = {NULL, 0, 0};

	for (;;)
	{
		int64_t		count,
					bytes;

		if (!read_block_count(cur, &count, &bytes, err))
			return false;
		if (count == 0)
			break;
		if (!check_count(cur, count, item_min, err))
			return false;
		if (pl->cv != CV_MULTISET_MAP && pl->cv != CV_MULTISET_ARRAY_MAP &&
			!run_reserve(&run, count * per, arena, err))
			return false;
		for (int64_t i = 0; i < count; i++)
		{
			ts_value	kv[2];
			int64_t		times;

			switch (pl->cv)
			{
				case CV_ARRAY:
					run.items[run.n].isnull = false;
					if (!decode_value(pl->elem, cur, &run.items[run.n], arena, depth + 1, err))
						return false;
					run.n++;
					break;
				case CV_MAP:
					{
						ts_value   *k = &run.items[run.n];

						k->isnull = false;
						if (!ts_avro_read_len(cur, &k->v.s.p, &k->v.s.len, err))
							return false;
						run.items[run.n + 1].isnull = false;
						if (!decode_value(pl->elem, cur, &run.items[run.n + 1], arena, depth + 1, err))
							return false;
						run.n += 2;
					}
					break;
				case CV_ARRAY_MAP:
					if (!decode_record(pl->kv, cur, &run.items[run.n], arena, depth + 1, err))
						return false;
					run.n += 2;
					break;
				case CV_MULTISET_MAP:
				case CV_MULTISET_ARRAY_MAP:
					if (pl->cv == CV_MULTISET_MAP)
					{
						kv[0].isnull = false;
						if (!ts_avro_read_len(cur, &kv[0].v.s.p, &kv[0].v.s.len, err))
							return false;
						kv[1].isnull = false;
						if (!decode_value(pl->elem, cur, &kv[1], arena, depth + 1, err))
							return false;
					}
					else if (!decode_record(pl->kv, cur, kv, arena, depth + 1, err))
						return false;
					times = kv[1].isnull ? 0 : kv[1].v.i;
					if (times < 0)
						return ts_error(err, TS_ERR_CORRUPT, "negative multiset count");
					if (times > MAX_ZERO_SIZE_ITEMS - run.n)
						return ts_error(err, TS_ERR_CORRUPT, "multiset of more than %lld elements",
										(long long) MAX_ZERO_SIZE_ITEMS);
					if (!run_reserve(&run, times, arena, err))
						return false;
					for (int64_t t = 0; t < times; t++)
						run.items[run.n++] = kv[0];
					break;
				default:
					return ts_error(err, TS_ERR_CORRUPT, "internal: bad collection plan");
			}
		}
	}
	out->v.nested.n = (int32_t) (run.n / per);
	out->v.nested.items = run.items;
	if (run.items == NULL)
	{
		/* a valid pointer even for empty collections */
		out->v.nested.items = ts_arena_alloc(arena, sizeof(ts_value));
		if (out->v.nested.items == NULL)
			return ts_error_nomem(err, NULL);
	}
	return true;
}

static bool
decode_value(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out,
			 ts_arena *arena, int depth, ts_err *err)
{
	int64_t		v;
	bool		handled;
	bool		ok = decode_scalar(pl, cur, out, &handled, err);

	if (handled)
		return ok;
	switch (pl->cv)
	{
		case CV_UNION:
			if (!ts_avro_read_long(cur, &v, err))
				return false;
			if (v < 0 || v >= pl->w->nchildren)
				return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) v);
			if (pl->branches[v] == NULL)
			{
				out->isnull = true;
				return true;
			}
			return decode_value(pl->branches[v], cur, out, arena, depth + 1, err);
		case CV_RECORD:
			{
				ts_value   *items = ts_arena_alloc(arena, sizeof(ts_value) * (pl->nout ? pl->nout : 1));

				if (items == NULL)
					return ts_error_nomem(err, NULL);
				out->v.nested.n = pl->nout;
				out->v.nested.items = items;
				return decode_record(pl, cur, items, arena, depth, err);
			}
		case CV_ARRAY:
		case CV_MAP:
		case CV_ARRAY_MAP:
		case CV_MULTISET_MAP:
		case CV_MULTISET_ARRAY_MAP:
			return decode_collection(pl, cur, out, arena, depth, err);
		default:
			break;
	}
	return ts_error(err, TS_ERR_CORRUPT, "internal: bad plan");
}

bool
ts_avro_decode_top(const ts_avro_plan *plan, ts_cursor *cur,
				   ts_value *out, ts_arena *arena, ts_err *err)
{
	if (plan->cv == CV_UNION)
	{
		int64_t		v;

		if (!ts_avro_read_long(cur, &v, err))
			return false;
		if (v < 0 || v >= plan->w->nchildren)
			return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) v);
		if (plan->branches[v] == NULL)
		{
			for (int o = 0; o < plan->nout; o++)
				out[o].isnull = true;
			return true;
		}
		plan = plan->branches[v];
	}
	return decode_record(plan, cur, out, arena, 0, err);
}

int
ts_avro_decode_rows(const ts_avro_plan *plan, ts_cursor *cur, ts_value *out,
					int nrows, ts_arena *arena, ts_err *err)
{
	int			ncols = plan->nout;

	if (plan->flat != NULL)
		return ts_avro_flat_decode(plan->flat, cur, out, nrows, err);
	for (int i = 0; i < nrows; i++)
		if (!ts_avro_decode_top(plan, cur, out + (size_t) i * ncols, arena, err))
			return i;
	return nrows;
}
