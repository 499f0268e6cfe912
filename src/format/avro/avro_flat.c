/*
 * avro_flat.c - decode flat top-level Avro records from a step list.
 *
 * Owns: the step list of a flat record (see avro_flat.h) and the loop that
 * follows it.  One step per writer field says, once for the whole file,
 * whether a ["null", T] branch byte comes first, what to do with the value
 * (skip a varint, a length-prefixed or a fixed-size value, or decode one of
 * the common conversions in place) and which output receives it.  The
 * cursor's position stays in a local variable for a whole batch of rows.
 *
 * Checks are those of the general decoder: every read is bounds-checked,
 * an int is within 32 bits, a branch index is 0 or 1.  A branch index is
 * read as one byte when it is the usual encoding (0x00 or 0x02); any other
 * byte (an overlong varint, a bad index, the end of the data) is read by
 * the general varint reader, which accepts or reports it alike.
 */
#include <stddef.h>
#include <string.h>

#include "format/avro/avro_flat.h"

/* the rare cases, kept out of the row loop */
#define FLAT_COLD __attribute__((noinline, cold))

typedef enum flat_op
{
	FOP_SKIP_VARINT,			/* int, long, enum nobody wants */
	FOP_SKIP_LEN,				/* bytes, string nobody wants */
	FOP_SKIP_FIXED,				/* null, boolean, float, double, fixed: size bytes */
	FOP_NULL,					/* a wanted field of writer type null */
	FOP_INT,					/* int -> INT, DATE, TIME, BIGINT */
	FOP_NARROW,					/* int -> TINYINT, SMALLINT (truncated, as the plan) */
	FOP_LONG,					/* long -> BIGINT */
	FOP_DOUBLE,					/* double -> DOUBLE */
	FOP_BYTES,					/* string / bytes -> s */
	FOP_TS_MICROS,				/* long timestamp-micros -> TIMESTAMP */
	FOP_DEC_BYTES,				/* bytes decimal -> DECIMAL */
	FOP_SCALAR					/* any other scalar conversion: the plan's */
} flat_op;

typedef struct flat_step
{
	uint8_t		op;				/* flat_op */
	bool		nullable;		/* a union of null and the value: branch byte first */
	uint8_t		null_byte;		/* zig-zag byte of the null branch's index */
	uint8_t		value_byte;		/* ... and of the value's */
	int32_t		out;			/* output index, -1 = not wanted */
	union
	{
		int64_t		size;		/* FOP_SKIP_FIXED: bytes */
		const ts_avro_plan *pl; /* FOP_SCALAR: the value's plan */
	}			u;
} flat_step;

struct ts_avro_flat
{
	int			nsteps;
	int			nout;
	bool		clear;			/* some output is no writer field's: NULL first */
	const int  *copy_from;		/* the record plan's, when some output is a copy */
	flat_step	steps[];
};

/* Is writer node n a primitive value (no union, record or collection)? */
static bool
is_primitive(const ts_avro_node *n)
{
	switch (n->kind)
	{
		case TS_AVRO_NULL:
		case TS_AVRO_BOOLEAN:
		case TS_AVRO_INT:
		case TS_AVRO_LONG:
		case TS_AVRO_FLOAT:
		case TS_AVRO_DOUBLE:
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
		case TS_AVRO_ENUM:
		case TS_AVRO_FIXED:
			return true;
		default:
			return false;
	}
}

/* The op that skips a primitive. */
static flat_op
skip_op(const ts_avro_node *n)
{
	switch (n->kind)
	{
		case TS_AVRO_INT:
		case TS_AVRO_LONG:
		case TS_AVRO_ENUM:
			return FOP_SKIP_VARINT;
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
			return FOP_SKIP_LEN;
		default:
			return FOP_SKIP_FIXED;
	}
}

/* The op that decodes a scalar plan; FOP_SKIP_VARINT = not a scalar plan. */
static flat_op
decode_op(const ts_avro_plan *pl)
{
	switch (pl->cv)
	{
		case CV_NULL:
			return FOP_NULL;
		case CV_INT:
			if (pl->target == TS_TINYINT || pl->target == TS_SMALLINT)
				return FOP_NARROW;
			return pl->w->kind == TS_AVRO_INT ? FOP_INT : FOP_LONG;
		case CV_DOUBLE:
			return FOP_DOUBLE;
		case CV_BYTES:
			return FOP_BYTES;
		case CV_TS_MICROS:
			return FOP_TS_MICROS;
		case CV_DEC_BYTES:
			return FOP_DEC_BYTES;
		case CV_BOOL:
		case CV_TIME_MICROS:
		case CV_TS_MILLIS:
		case CV_TS_NANOS:
		case CV_FLOAT:
		case CV_FLOAT_TO_DOUBLE:
		case CV_INT_TO_FLOAT:
		case CV_INT_TO_DOUBLE:
		case CV_DEC_FIXED:
		case CV_DEC_INT:
		case CV_FIXED:
		case CV_ENUM:
			return FOP_SCALAR;
		default:
			return FOP_SKIP_VARINT;
	}
}

const ts_avro_flat *
ts_avro_flat_build(const ts_avro_plan *rec, ts_arena *arena, bool *ok, ts_err *err)
{
	const ts_avro_node *w = rec->w;
	ts_avro_flat *f;

	*ok = true;
	if (rec->cv != CV_RECORD)
		return NULL;
	f = ts_arena_alloc(arena, offsetof(ts_avro_flat, steps) + sizeof(flat_step) * (w->nchildren + 1));
	if (f == NULL)
	{
		*ok = false;
		ts_error_nomem(err, NULL);
		return NULL;
	}
	memset(f, 0, offsetof(ts_avro_flat, steps));
	f->nsteps = w->nchildren;
	f->nout = rec->nout;
	f->clear = !rec->all_targets;
	f->copy_from = rec->any_copy ? rec->copy_from : NULL;
	for (int i = 0; i < w->nchildren; i++)
	{
		flat_step  *s = &f->steps[i];
		const ts_avro_node *n = w->children[i];
		const ts_avro_plan *pl = rec->fields[i];
		int			null_branch = -1;

		memset(s, 0, sizeof(*s));
		s->out = pl ? rec->targets[i] : -1;
		if (n->kind == TS_AVRO_UNION)
		{
			const ts_avro_node *t = ts_avro_unwrap_nullable(n, &null_branch);

			if (t == NULL || null_branch < 0 || !is_primitive(t) || t->kind == TS_AVRO_NULL)
				return NULL;
			n = t;
			s->nullable = true;
			s->null_byte = (uint8_t) (null_branch << 1);	/* zig-zag of 0 or 1 */
			s->value_byte = (uint8_t) ((1 - null_branch) << 1);
			if (pl != NULL)
			{
				if (pl->cv != CV_UNION || pl->nonnull == NULL || pl->null_branch != null_branch)
					return NULL;
				pl = pl->nonnull;
			}
		}
		else if (!is_primitive(n))
			return NULL;
		if (pl == NULL)
		{
			s->op = skip_op(n);
			s->u.size = n->fixed_encoded_size;
			if (s->op == FOP_SKIP_FIXED && s->u.size < 0)
				return NULL;
			continue;
		}
		s->op = decode_op(pl);
		if (s->op == FOP_SKIP_VARINT)
			return NULL;		/* not a scalar conversion */
		s->u.pl = pl;
	}
	return f;
}

/* ---- decoding -------------------------------------------------------- */

/*
 * The readers below take the position and the end of the data and return
 * the new position, or NULL with *err set.  Positions stay in registers
 * (a cursor whose address is taken is reloaded after every store to the
 * outputs); the rare cases go through the general cursor readers.
 */

static FLAT_COLD const uint8_t *
slow_long(const uint8_t *p, const uint8_t *end, int64_t *v, ts_err *err)
{
	ts_cursor	c = {p, end};

	return ts_avro_read_long(&c, v, err) ? c.p : NULL;
}

/* A zig-zag varint long: ts_avro_read_long's fast paths, the rest out of line. */
static inline __attribute__((always_inline)) const uint8_t *
rd_long(const uint8_t *p, const uint8_t *end, int64_t *v, ts_err *err)
{
	const uint8_t *next = ts_avro_long_fast(p, end, v);

	return next != NULL ? next : slow_long(p, end, v, err);
}

/* Skip a varint: its last byte is the first without the high bit. */
static inline __attribute__((always_inline)) const uint8_t *
skip_varint(const uint8_t *p, const uint8_t *end, ts_err *err)
{
	int64_t		v;

	if (end - p >= 8)
	{
		uint64_t	last = ~ts_load_le64(p) & UINT64_C(0x8080808080808080);

		if (last != 0)
			return p + (__builtin_ctzll(last) >> 3) + 1;
	}
	return slow_long(p, end, &v, err);	/* long ones and the end: every check */
}

/* A bad length at p: read again by ts_avro_read_len for its messages. */
static FLAT_COLD const uint8_t *
bad_len(const uint8_t *p, const uint8_t *end, ts_err *err)
{
	ts_cursor	c = {p, end};
	const uint8_t *s;
	uint32_t	len;

	return ts_avro_read_len(&c, &s, &len, err) ? c.p : NULL;
}

/* Bytes / string: a length, then that many bytes (left in place). */
static inline __attribute__((always_inline)) const uint8_t *
rd_len(const uint8_t *p, const uint8_t *end, const uint8_t **s, uint32_t *len, ts_err *err)
{
	const uint8_t *q;
	int64_t		n;

	q = rd_long(p, end, &n, err);
	if (q == NULL)
		return NULL;
	if (n < 0 || n > end - q || n > UINT32_MAX)
		return bad_len(p, end, err);	/* NULL */
	*s = q;
	*len = (uint32_t) n;
	return q + n;
}

/* A branch index that is not one byte 0x00 / 0x02: *isnull, or NULL + error. */
static FLAT_COLD const uint8_t *
slow_branch(const flat_step *s, const uint8_t *p, const uint8_t *end, bool *isnull, ts_err *err)
{
	int64_t		b;

	p = slow_long(p, end, &b, err);
	if (p == NULL)
		return NULL;
	if (b != 0 && b != 1)
	{
		ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) b);
		return NULL;
	}
	*isnull = (uint8_t) (b << 1) == s->null_byte;
	return p;
}

/* A general cursor read (plan conversions, truncation reports). */
static FLAT_COLD const uint8_t *
scalar(const flat_step *s, const uint8_t *p, const uint8_t *end, ts_value *dst, ts_err *err)
{
	ts_cursor	c = {p, end};
	uint64_t	bits;

	if (s->op == FOP_DOUBLE)
		return ts_cursor_le64(&c, &bits, err) ? c.p : NULL;	/* only when truncated */
	if (s->op == FOP_SKIP_FIXED)
		return ts_cursor_skip(&c, (size_t) s->u.size, err) ? c.p : NULL;
	return ts_avro_decode_scalar(s->u.pl, &c, dst, err) ? c.p : NULL;
}

/* Decode one row starting at p: the position after it, or NULL + *err. */
static inline __attribute__((always_inline)) const uint8_t *
flat_row(const ts_avro_flat *f, const uint8_t *p, const uint8_t *end,
		 ts_value *out, ts_err *err)
{
	const flat_step *s = f->steps;
	const flat_step *last = s + f->nsteps;

	if (f->clear)
		for (int o = 0; o < f->nout; o++)
			out[o].isnull = true;	/* fields the writer lacks */
	for (; s < last; s++)
	{
		int64_t		v;

		if (s->nullable)
		{
			bool		isnull;

			if (p < end && *p == s->value_byte)
			{
				p++;
				isnull = false;
			}
			else if (p < end && *p == s->null_byte)
			{
				p++;
				isnull = true;
			}
			else if ((p = slow_branch(s, p, end, &isnull, err)) == NULL)
				return NULL;
			if (isnull)
			{
				if (s->out >= 0)
					out[s->out].isnull = true;
				continue;
			}
		}
		switch ((flat_op) s->op)
		{
			case FOP_SKIP_VARINT:
				p = skip_varint(p, end, err);
				break;
			case FOP_SKIP_LEN:
				{
					const uint8_t *b;
					uint32_t	len;

					p = rd_len(p, end, &b, &len, err);
				}
				break;
			case FOP_SKIP_FIXED:
				if (s->u.size > end - p)
					return scalar(s, p, end, NULL, err);	/* reports the truncation */
				p += s->u.size;
				break;
			case FOP_NULL:
				out[s->out].isnull = true;
				break;
			case FOP_INT:
				if ((p = rd_long(p, end, &v, err)) == NULL)
					return NULL;
				if (v < INT32_MIN || v > INT32_MAX)
				{
					ts_error(err, TS_ERR_CORRUPT, "Avro int out of range");
					return NULL;
				}
				out[s->out].isnull = false;
				out[s->out].v.i = v;
				break;
			case FOP_NARROW:
				/* _VALUE_KIND of key-value files, TINYINT / SMALLINT columns */
				if ((p = rd_long(p, end, &v, err)) == NULL)
					return NULL;
				if (s->u.pl->w->kind == TS_AVRO_INT && (v < INT32_MIN || v > INT32_MAX))
				{
					ts_error(err, TS_ERR_CORRUPT, "Avro int out of range");
					return NULL;
				}
				out[s->out].isnull = false;
				out[s->out].v.i = s->u.pl->target == TS_TINYINT ? (int8_t) v : (int16_t) v;
				break;
			case FOP_LONG:
				if ((p = rd_long(p, end, &v, err)) == NULL)
					return NULL;
				out[s->out].isnull = false;
				out[s->out].v.i = v;
				break;
			case FOP_DOUBLE:
				if (end - p < 8)
					return scalar(s, p, end, NULL, err);	/* reports the truncation */
				{
					uint64_t	bits = ts_load_le64(p);

					p += 8;
					out[s->out].isnull = false;
					memcpy(&out[s->out].v.d, &bits, 8);
				}
				break;
			case FOP_BYTES:
				{
					ts_value   *dst = &out[s->out];

					p = rd_len(p, end, &dst->v.s.p, &dst->v.s.len, err);
					dst->isnull = false;
				}
				break;
			case FOP_TS_MICROS:
				if ((p = rd_long(p, end, &v, err)) == NULL)
					return NULL;
				{
					ts_value   *dst = &out[s->out];
					int64_t		ms = v / 1000;

					if (v % 1000 < 0)
						ms--;	/* floor */
					dst->isnull = false;
					dst->v.ts.millis = ms;
					dst->v.ts.nanos = (int32_t) (v - ms * 1000) * 1000;
				}
				break;
			case FOP_DEC_BYTES:
				{
					ts_value   *dst = &out[s->out];
					const uint8_t *b = NULL;
					uint32_t	len = 0;

					if ((p = rd_len(p, end, &b, &len, err)) == NULL)
						return NULL;
					dst->isnull = false;
					if (!ts_avro_decimal_from_bytes(b, len, &dst->v.dec, err))
						return NULL;
				}
				break;
			case FOP_SCALAR:
				out[s->out].isnull = false;
				p = scalar(s, p, end, &out[s->out], err);
				break;
		}
		if (p == NULL)
			return NULL;
	}
	if (f->copy_from)
		for (int o = 0; o < f->nout; o++)
			if (f->copy_from[o] >= 0)
				out[o] = out[f->copy_from[o]];
	return p;
}

int
ts_avro_flat_decode(const ts_avro_flat *f, ts_cursor *cur, ts_value *out,
					int nrows, ts_err *err)
{
	const uint8_t *p = cur->p;
	const uint8_t *end = cur->end;
	int			i;

	for (i = 0; i < nrows; i++)
	{
		const uint8_t *next = flat_row(f, p, end, out + (size_t) i * f->nout, err);

		if (next == NULL)
			break;
		p = next;
	}
	cur->p = p;
	return i;
}
