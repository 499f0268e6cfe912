/*
 * manifest_avro.c - the fast path for Avro metadata files.
 *
 * Owns: compiling the writer schema of one Avro manifest, manifest list or
 * index manifest against the columns manifest.c asks for (names + types)
 * into a small program - per writer field, in writer order: decode into a
 * value slot, or skip - and running it straight over the decompressed
 * block bytes, one record at a time.  Top-level values land in one fixed
 * row, nested rows in values owned by their step (a program is a tree;
 * one decoding into a struct is flattened: a nested row's fields follow
 * a step that reads its null branch),
 * arrays in a scratch arena reset per record; bytes
 * and strings point into the block (valid until the next record is read:
 * manifest.c copies what it keeps).
 *
 * A requested field may instead name a destination in the caller's record
 * struct (ts_meta_dest): its value is then decoded straight there - ints,
 * copies of strings and bytes, arrays of strings or longs, nested rows -
 * with no value in between (manifest entries, the bulk of a cold plan).
 * The copies are carved from the caller's arena (meta_slab.h).
 *
 * Only the shapes Paimon writes are compiled: int, long, bytes, string,
 * long timestamp-millis, records, arrays of those scalars, ["null", T]
 * unions, a top-level record or ["null", record].  For anything else
 * ts_meta_avro_open says "not mine" and manifest.c takes the generic
 * reader (src/format), whose values these are identical to, field for
 * field, including NULL for fields an older writer did not have.  ORC
 * metadata files always take the generic path.  A ts_meta_avro_keep
 * carries the parsed schema and its program from one file to the next
 * (the manifests of a table share them): the schema text is compared,
 * not parsed again.
 */
#include <string.h>

#include "base/ts_fs.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_decode.h"
#include "meta/manifest.h"
#include "meta/manifest_avro.h"
#include "meta/meta_slab.h"

/* Deepest requested type compiled (the manifest schemas have 3 levels). */
#define MAX_COMPILE_DEPTH 8

typedef enum op
{
	OP_SKIP,					/* a writer field nobody asked for */
	OP_INT,						/* Avro int as INT / BIGINT */
	OP_INT8,					/* Avro int as TINYINT (truncated, as the generic reader) */
	OP_LONG,					/* Avro long as BIGINT */
	OP_BYTES,					/* bytes / string, pointing into the block */
	OP_TS_MILLIS,				/* long timestamp-millis as TIMESTAMP(3) */
	OP_RECORD,
	OP_ARRAY
} op;

/* Where a decoded value goes. */
typedef enum sink
{
	SK_SKIP,					/* nowhere: the field is skipped */
	SK_VALUE,					/* the ts_value of its slot */
	SK_I32,						/* the dests of ts_meta_dest_kind, in the record: */
	SK_I32_INT8,				/* ints by the op they read (no switch on it) */
	SK_I64,
	SK_I64_INT,
	SK_I64_FLAGGED,
	SK_STRING,
	SK_BYTES,
	SK_STRINGS,
	SK_LONGS,
	SK_ROW,						/* a nested row into the record (compiling only) */
	SK_ROW_BEGIN				/* its null branch; its fields follow (flatten) */
} sink;

typedef struct prog prog;

typedef struct step
{
	op			op;
	sink		sink;
	int			null_branch;	/* union ["null", T]: index of "null"; else -1 */
	int			slot;			/* output index in the record */
	int			off;			/* SK_ other than VALUE: the dest's offsets and bit */
	int			count_off;
	int			flag_off;
	uint64_t	bit;			/* 0: none */
	int			span;			/* SK_ROW_BEGIN: steps of its fields, skipped when null */
	const ts_avro_node *w;		/* the writer field's node (skipped whole) */
	const prog *sub;			/* OP_RECORD */
	ts_value   *items;			/* OP_RECORD: its values (one record at a time) */
	op			elem_op;		/* OP_ARRAY: a scalar op */
	int			elem_null_branch;
} step;

struct prog
{
	int			nout;			/* requested fields = output values */
	int			nvalues;		/* nout, or 0 when every field has a dest */
	int			nsteps;			/* writer fields */
	step	   *steps;
};

struct ts_meta_avro
{
	ts_avro_container *c;
	ts_arena	prog_arena;
	ts_arena	scratch;		/* nested values of the current record */
	const prog *top;
	int			top_null_branch;	/* root ["null", record]: index of "null" */
	ts_value   *row;			/* top->nout values */
	ts_cursor	cur;
	bool		direct;			/* some fields have dests */
	ts_meta_slab slab;			/* copies of fields decoded into records */
	uint64_t	seen;			/* the dest bits of the current record */
	int64_t		rows_left;
	int64_t		block_row;
	bool		have_block;
};

struct ts_meta_avro_keep
{
	char	   *schema_json;	/* the text 'schema' was parsed from */
	ts_avro_schema *schema;
	const ts_read_column *cols; /* what 'top' was compiled for */
	const ts_meta_dest *dests;
	int			ncols;
	ts_arena	prog_arena;		/* 'top' and its parts */
	const prog *top;			/* NULL: none kept */
};

/* ---- compiling -------------------------------------------------------- */

static const prog *compile_record(ts_arena *arena, const ts_avro_node *w,
								  const ts_read_column *cols, int ncols,
								  const ts_field *fields, const ts_meta_dest *dests,
								  int depth, bool *ok);

/*
 * The scalar op reading writer node w (already unwrapped) as type t, or
 * OP_SKIP when it is not a shape compiled here.
 */
static op
scalar_op(const ts_avro_node *w, const ts_type *t)
{
	if (w->logical != TS_AVRO_LT_NONE && t->kind != TS_TIMESTAMP)
		return OP_SKIP;
	switch (t->kind)
	{
		case TS_TINYINT:
			return w->kind == TS_AVRO_INT ? OP_INT8 : OP_SKIP;
		case TS_INT:
			return w->kind == TS_AVRO_INT ? OP_INT : OP_SKIP;
		case TS_BIGINT:
			return w->kind == TS_AVRO_INT ? OP_INT :
				w->kind == TS_AVRO_LONG ? OP_LONG : OP_SKIP;
		case TS_VARCHAR:
			return w->kind == TS_AVRO_STRING ? OP_BYTES : OP_SKIP;
		case TS_VARBINARY:
			return w->kind == TS_AVRO_BYTES ? OP_BYTES : OP_SKIP;
		case TS_TIMESTAMP:
			return t->precision == 3 && w->kind == TS_AVRO_LONG &&
				w->logical == TS_AVRO_LT_TIMESTAMP_MILLIS ? OP_TS_MILLIS : OP_SKIP;
		default:
			return OP_SKIP;
	}
}

/* Unwrap ["null", T]; false for other unions or a non-nullable target. */
static bool
unwrap(const ts_avro_node *w, const ts_type *t, const ts_avro_node **inner, int *null_branch)
{
	*inner = ts_avro_unwrap_nullable(w, null_branch);
	if (*inner == NULL || (*inner)->kind == TS_AVRO_UNION)
		return false;
	return *null_branch < 0 || t->nullable;
}

/*
 * Where the value of s goes: its slot (no dest), or the dest d when d fits
 * what s reads; false when it does not (the generic reader's job).
 */
static bool
compile_sink(step *s, const ts_meta_dest *d)
{
	bool		fits;

	if (d == NULL || d->kind == TS_DEST_VALUE)
	{
		s->sink = SK_VALUE;
		return true;
	}
	s->off = d->off;
	s->count_off = d->count_off;
	s->flag_off = d->flag_off;
	if (d->bit >= 64)
		return false;
	s->bit = d->bit >= 0 ? UINT64_C(1) << d->bit : 0;
	switch (d->kind)
	{
		case TS_DEST_I32:
			s->sink = s->op == OP_INT8 ? SK_I32_INT8 : SK_I32;
			fits = s->op == OP_INT || s->op == OP_INT8;
			break;
		case TS_DEST_I64:
			s->sink = s->op == OP_INT ? SK_I64_INT : d->flag_off >= 0 ? SK_I64_FLAGGED : SK_I64;
			fits = s->op == OP_LONG || s->op == OP_TS_MILLIS ||
				(s->op == OP_INT && d->flag_off < 0);
			break;
		case TS_DEST_STRING:
			s->sink = SK_STRING;
			fits = s->op == OP_BYTES;
			break;
		case TS_DEST_BYTES:
			s->sink = SK_BYTES;
			fits = s->op == OP_BYTES;
			break;
		case TS_DEST_STRINGS:
			s->sink = SK_STRINGS;
			fits = s->op == OP_ARRAY && s->elem_op == OP_BYTES;
			break;
		case TS_DEST_LONGS:
			s->sink = SK_LONGS;
			fits = s->op == OP_ARRAY && (s->elem_op == OP_INT || s->elem_op == OP_LONG);
			break;
		case TS_DEST_ROW:
			s->sink = SK_ROW;
			fits = s->op == OP_RECORD;
			break;
		default:
			fits = false;
	}
	return fits;
}

/* Compile one requested field (with dest d, or NULL) against writer node w into s. */
static bool
compile_field(ts_arena *arena, const ts_avro_node *w, const ts_type *t,
			  const ts_meta_dest *d, int depth, step *s)
{
	const ts_avro_node *in;
	bool		ok = true;

	s->w = w;
	if (!unwrap(w, t, &in, &s->null_branch))
		return false;
	if (t->kind == TS_ROW)
	{
		bool		direct = d != NULL && d->kind == TS_DEST_ROW;

		if (in->kind != TS_AVRO_RECORD || in->logical != TS_AVRO_LT_NONE ||
			(direct && d->fields == NULL))
			return false;
		s->op = OP_RECORD;
		s->sub = compile_record(arena, in, NULL, t->nfields, t->fields,
								direct ? d->fields : NULL, depth + 1, &ok);
		if (!ok || s->sub == NULL || !compile_sink(s, d))
			return false;
		if (direct)
			return true;
		s->items = ts_arena_alloc(arena, sizeof(ts_value) * (size_t) (t->nfields ? t->nfields : 1));
		return s->items != NULL;
	}
	if (t->kind == TS_ARRAY)
	{
		const ts_avro_node *el;

		if (in->kind != TS_AVRO_ARRAY || in->logical != TS_AVRO_LT_NONE ||
			t->element == NULL || ts_type_is_nested(t->element->kind) ||
			!unwrap(in->children[0], t->element, &el, &s->elem_null_branch))
			return false;
		s->op = OP_ARRAY;
		s->elem_op = scalar_op(el, t->element);
		return s->elem_op != OP_SKIP && compile_sink(s, d);
	}
	s->op = scalar_op(in, t);
	return s->op != OP_SKIP && compile_sink(s, d);
}

/*
 * A record decoded into a struct, made one loop without recursion: the
 * steps of each nested row (themselves flat already) are spliced in after
 * a step that reads the row's null branch and, when it is null, skips
 * them; their offsets become relative to this record.
 */
static bool
flatten(ts_arena *arena, prog *p)
{
	int			n = 0,
				k = 0;
	step	   *out;

	for (int i = 0; i < p->nsteps; i++)
		n += 1 + (p->steps[i].sink == SK_ROW ? p->steps[i].sub->nsteps : 0);
	if (n == p->nsteps)
		return true;
	out = ts_arena_alloc(arena, sizeof(step) * (size_t) n);
	if (out == NULL)
		return false;
	for (int i = 0; i < p->nsteps; i++)
	{
		const step *s = &p->steps[i];

		out[k++] = *s;
		if (s->sink != SK_ROW)
			continue;
		out[k - 1].sink = SK_ROW_BEGIN;
		out[k - 1].span = s->sub->nsteps;
		for (int j = 0; j < s->sub->nsteps; j++)
		{
			step		c = s->sub->steps[j];

			if (c.sink != SK_SKIP && c.sink != SK_VALUE)
			{
				c.off += s->off;
				if (c.count_off >= 0)
					c.count_off += s->off;
				if (c.flag_off >= 0)
					c.flag_off += s->off;
			}
			out[k++] = c;
		}
	}
	p->steps = out;
	p->nsteps = n;
	return true;
}

/*
 * A record's program: the requested fields (top level: cols; nested:
 * fields of a ROW type) matched by exact name; writer fields nobody asked
 * for are skipped, requested fields the writer lacks stay NULL.  With
 * dests (parallel to cols or fields), fields go where their dest says; a
 * nested record's fields (cols NULL) must then all have one: it has no
 * values.  *ok = false (and NULL) when some field is not a compiled shape.
 */
static const prog *
compile_record(ts_arena *arena, const ts_avro_node *w,
			   const ts_read_column *cols, int ncols,
			   const ts_field *fields, const ts_meta_dest *dests, int depth, bool *ok)
{
	prog	   *p;

	*ok = false;
	if (depth > MAX_COMPILE_DEPTH || w->kind != TS_AVRO_RECORD)
		return NULL;
	p = ts_arena_alloc(arena, sizeof(prog));
	if (p == NULL)
		return NULL;
	p->nout = ncols;
	p->nvalues = cols == NULL && dests != NULL ? 0 : ncols;
	p->nsteps = w->nchildren;
	p->steps = ts_arena_alloc(arena, sizeof(step) * (size_t) (w->nchildren ? w->nchildren : 1));
	if (p->steps == NULL)
		return NULL;
	memset(p->steps, 0, sizeof(step) * (size_t) (w->nchildren ? w->nchildren : 1));
	for (int i = 0; i < w->nchildren; i++)
	{
		p->steps[i].op = OP_SKIP;
		p->steps[i].null_branch = -1;
		p->steps[i].slot = -1;
		p->steps[i].w = w->children[i];
	}
	for (int o = 0; o < ncols; o++)
	{
		const char *name = cols ? cols[o].name : fields[o].name;
		const ts_type *t = cols ? cols[o].type : fields[o].type;
		const ts_meta_dest *d = dests ? &dests[o] : NULL;
		int			wi = ts_avro_record_field(w, name);

		if (p->nvalues == 0 && d->kind == TS_DEST_VALUE)
			return NULL;		/* no value to put it in */
		if (wi < 0)
			continue;			/* absent in this writer: NULL */
		if (p->steps[wi].slot >= 0)
			return NULL;		/* asked twice: the generic reader's job */
		if (!compile_field(arena, w->children[wi], t, d, depth, &p->steps[wi]))
			return NULL;
		p->steps[wi].slot = o;
	}
	if (dests != NULL && !flatten(arena, p))
		return NULL;
	*ok = true;
	return p;
}

/* ---- decoding --------------------------------------------------------- */

static inline __attribute__((always_inline)) bool
read_branch(ts_cursor *cur, int null_branch, bool *isnull, ts_err *err)
{
	int64_t		b;

	if (!ts_avro_read_long(cur, &b, err))
		return false;
	if (b != 0 && b != 1)
		return ts_error(err, TS_ERR_CORRUPT, "union branch %lld out of range", (long long) b);
	*isnull = b == null_branch;
	return true;
}

/* An integer op's value (a TIMESTAMP(3)'s millis). */
static inline __attribute__((always_inline)) bool
read_integer(op o, ts_cursor *cur, int64_t *v, ts_err *err)
{
	if (!ts_avro_read_long(cur, v, err))
		return false;
	switch (o)
	{
		case OP_INT:
		case OP_INT8:
			if (*v < INT32_MIN || *v > INT32_MAX)
				return ts_error(err, TS_ERR_CORRUPT, "Avro int out of range");
			if (o == OP_INT8)
				*v = (int8_t) *v;
			return true;
		case OP_LONG:
		case OP_TS_MILLIS:
			return true;
		default:
			return ts_error(err, TS_ERR_CORRUPT, "internal: bad manifest program");
	}
}

static inline __attribute__((always_inline)) bool
read_scalar(op o, ts_cursor *cur, ts_value *out, ts_err *err)
{
	int64_t		v;

	if (o == OP_BYTES)
		return ts_avro_read_len(cur, &out->v.s.p, &out->v.s.len, err);
	if (!read_integer(o, cur, &v, err))
		return false;
	if (o == OP_TS_MILLIS)
	{
		out->v.ts.millis = v;
		out->v.ts.nanos = 0;
	}
	else
		out->v.i = v;
	return true;
}

/*
 * The count of the next block of an array (0 at its end), checked as the
 * generic reader checks it against the data left and the items so far.
 */
static inline __attribute__((always_inline)) bool
read_block_count(ts_cursor *cur, int64_t n, int64_t *count, ts_err *err)
{
	int64_t		bytes;

	if (!ts_avro_read_long(cur, count, err))
		return false;
	if (*count == 0)
		return true;
	if (*count < 0)
	{
		if (*count == INT64_MIN)
			return ts_error(err, TS_ERR_CORRUPT, "bad array/map block count");
		*count = -*count;
		if (!ts_cursor_zigzag(cur, &bytes, err))
			return false;
		if (bytes < 0 || (uint64_t) bytes > ts_cursor_left(cur))
			return ts_error(err, TS_ERR_CORRUPT, "bad array/map block size %lld", (long long) bytes);
	}
	/* every item takes at least one byte */
	if ((uint64_t) *count > ts_cursor_left(cur))
		return ts_error(err, TS_ERR_CORRUPT, "array/map block of %lld items exceeds the data left",
						(long long) *count);
	if (n + *count > INT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "array of more than %d items", INT32_MAX);
	return true;
}

/* An array of scalars; items in the scratch arena. */
static bool
read_array(const step *s, ts_cursor *cur, ts_value *out, ts_arena *scratch, ts_err *err)
{
	ts_value   *items = NULL;
	int64_t		n = 0;

	for (;;)
	{
		int64_t		count;
		ts_value   *grown;

		if (!read_block_count(cur, n, &count, err))
			return false;
		if (count == 0)
			break;
		grown = ts_arena_alloc(scratch, sizeof(ts_value) * (size_t) (n + count));
		if (grown == NULL)
			return ts_error_nomem(err, NULL);
		if (n)
			memcpy(grown, items, sizeof(ts_value) * (size_t) n);
		items = grown;
		for (int64_t i = 0; i < count; i++)
		{
			ts_value   *v = &items[n + i];

			v->isnull = false;
			if (s->elem_null_branch >= 0 &&
				!read_branch(cur, s->elem_null_branch, &v->isnull, err))
				return false;
			if (!v->isnull && !read_scalar(s->elem_op, cur, v, err))
				return false;
		}
		n += count;
	}
	out->v.nested.n = (int32_t) n;
	out->v.nested.items = items;
	return true;
}

/* ---- decoding into a record -------------------------------------------- */

static inline __attribute__((always_inline)) bool
nomem(ts_err *err)
{
	return ts_error_nomem(err, NULL);
}

/* A string or bytes copied into the slab: NUL-terminated as a string. */
static inline __attribute__((always_inline)) bool
read_copy(ts_cursor *cur, ts_meta_slab *slab, bool string, const uint8_t **out,
		  uint32_t *outlen, ts_err *err)
{
	const uint8_t *p = NULL;
	uint32_t	len = 0;
	uint8_t    *d;

	if (!ts_avro_read_len(cur, &p, &len, err))
		return false;
	d = ts_meta_slab_alloc(slab, string ? (size_t) len + 1 : len ? len : 1, 1);
	if (d == NULL)
		return nomem(err);
	memcpy(d, p, len);
	if (string)
		d[len] = '\0';
	*out = d;
	*outlen = len;
	return true;
}

/*
 * What an empty array of strings or longs points to (a count of 0, as the
 * generic conversion's array with room for one item that it never fills).
 */
static const int64_t empty_array[1];

/* An array of strings or longs into a copy in the slab. */
static bool
read_array_into(const step *s, ts_cursor *cur, uint8_t *base, ts_meta_slab *slab, ts_err *err)
{
	size_t		size = s->sink == SK_STRINGS ? sizeof(char *) : sizeof(int64_t);
	uint8_t    *items = NULL;
	int64_t		n = 0;

	for (;;)
	{
		int64_t		count;
		uint8_t    *grown;

		if (!read_block_count(cur, n, &count, err))
			return false;
		if (count == 0)
			break;
		grown = ts_meta_slab_alloc(slab, size * (size_t) (n + count), 8);
		if (grown == NULL)
			return nomem(err);
		if (n)
			memcpy(grown, items, size * (size_t) n);
		items = grown;
		for (int64_t i = n; i < n + count; i++)
		{
			bool		isnull = false;

			if (s->elem_null_branch >= 0 &&
				!read_branch(cur, s->elem_null_branch, &isnull, err))
				return false;
			if (s->sink == SK_STRINGS)
			{
				const uint8_t *str = (const uint8_t *) "";
				uint32_t	len;

				if (!isnull && !read_copy(cur, slab, true, &str, &len, err))
					return false;
				((const uint8_t **) items)[i] = str;
			}
			else
			{
				int64_t		v = -1;

				if (!isnull && !read_integer(s->elem_op, cur, &v, err))
					return false;
				((int64_t *) items)[i] = v;
			}
		}
		n += count;
	}
	if (items == NULL && (items = ts_meta_slab_alloc(slab, size, 8)) == NULL)
		return nomem(err);
	*(uint8_t **) (base + s->off) = items;
	*(int *) (base + s->count_off) = (int) n;
	return true;
}

/*
 * One record: its fields with a slot into out (values; those absent or
 * null read NULL), the others into the record at 'base' (which the
 * cursor, the reader and the values never overlap: 'restrict' lets the
 * cursor stay in registers across the stores).
 */
static bool
read_record(const prog *p, ts_cursor *restrict cur, ts_value *out, uint8_t *restrict base,
			ts_meta_avro *r, uint64_t *restrict seen, ts_err *err)
{
	uint64_t	bits = 0;
	const step *s = p->steps;
	const step *end = s + p->nsteps;

	for (int o = 0; o < p->nvalues; o++)
		out[o].isnull = true;
	for (; s < end; s++)
	{
		ts_value   *v;
		bool		isnull = false;
		int64_t		x;

		/* skipped fields have no null branch of their own: they skip it all */
		if (s->null_branch >= 0 && !read_branch(cur, s->null_branch, &isnull, err))
			return false;
		if (isnull)
		{
			s += s->span;		/* a null row: its fields too */
			continue;
		}
		switch (s->sink)
		{
			case SK_SKIP:
				if (!ts_avro_skip(s->w, cur, err))
					return false;
				continue;
			case SK_VALUE:
				v = &out[s->slot];
				v->isnull = false;
				if (s->op == OP_RECORD)
				{
					if (!read_record(s->sub, cur, s->items, NULL, r, seen, err))
						return false;
					v->v.nested.n = s->sub->nout;
					v->v.nested.items = s->items;
				}
				else if (s->op == OP_ARRAY)
				{
					if (!read_array(s, cur, v, &r->scratch, err))
						return false;
				}
				else if (!read_scalar(s->op, cur, v, err))
					return false;
				continue;
			case SK_I32:
				if (!ts_avro_read_int(cur, &x, err))
					return false;
				*(int32_t *) (base + s->off) = (int32_t) x;
				break;
			case SK_I32_INT8:
				if (!ts_avro_read_int(cur, &x, err))
					return false;
				*(int32_t *) (base + s->off) = (int8_t) x;
				break;
			case SK_I64:
				if (!ts_avro_read_long(cur, &x, err))
					return false;
				*(int64_t *) (base + s->off) = x;
				break;
			case SK_I64_INT:
				if (!ts_avro_read_int(cur, &x, err))
					return false;
				*(int64_t *) (base + s->off) = x;
				break;
			case SK_I64_FLAGGED:
				if (!ts_avro_read_long(cur, &x, err))
					return false;
				*(int64_t *) (base + s->off) = x;
				*(bool *) (base + s->flag_off) = true;
				break;
			case SK_STRING:
				{
					const uint8_t *str = NULL;
					uint32_t	len = 0;

					if (!read_copy(cur, &r->slab, true, &str, &len, err))
						return false;
					*(const uint8_t **) (base + s->off) = str;
					break;
				}
			case SK_BYTES:
				{
					ts_bytes   *b = (ts_bytes *) (base + s->off);

					if (!read_copy(cur, &r->slab, false, &b->data, &b->len, err))
						return false;
					break;
				}
			case SK_STRINGS:
			case SK_LONGS:
				if (cur->p < cur->end && *cur->p == 0)
				{
					/* empty (most are): no copy, one shared empty array */
					cur->p++;
					*(void **) (base + s->off) = (void *) empty_array;
					*(int *) (base + s->count_off) = 0;
				}
				else if (!read_array_into(s, cur, base, &r->slab, err))
					return false;
				break;
			case SK_ROW_BEGIN:
				break;			/* its fields are the next steps */
			default:
				return ts_error(err, TS_ERR_CORRUPT, "internal: bad manifest program");
		}
		bits |= s->bit;
	}
	*seen |= bits;
	return true;
}

/* ---- the reader ------------------------------------------------------- */

static bool
is_avro_file(ts_fs *fs, const char *path)
{
	ts_err		ignore;
	ts_file    *f;
	uint8_t		head[4] = {0};
	bool		avro = false;

	memset(&ignore, 0, sizeof(ignore));
	f = ts_file_open(fs, path, &ignore);
	if (f == NULL)
		return false;
	if (ts_file_size(f) >= 4 && ts_file_pread(f, head, 4, 0, &ignore))
		avro = memcmp(head, "Obj\x01", 4) == 0;
	ts_file_close(f);
	return avro;
}

ts_meta_avro_keep *
ts_meta_avro_keep_new(void)
{
	ts_meta_avro_keep *keep = ts_calloc(1, sizeof(ts_meta_avro_keep));

	if (keep != NULL)
		ts_arena_init(&keep->prog_arena, 4 * 1024);
	return keep;
}

void
ts_meta_avro_keep_free(ts_meta_avro_keep *keep)
{
	if (keep == NULL)
		return;
	ts_avro_schema_free(keep->schema);
	ts_free(keep->schema_json);
	ts_arena_free(&keep->prog_arena);
	ts_free(keep);
}

/*
 * Where r's program is compiled: into 'keep' (for the next file too) when
 * r's schema is, or can become, the kept one; else into r's own arena.
 */
static ts_arena *
program_arena(ts_meta_avro *r, ts_meta_avro_keep *keep, const ts_read_column *cols,
			  const ts_meta_dest *dests, int ncols)
{
	if (keep == NULL)
		return &r->prog_arena;
	if (!r->c->schema_borrowed)
	{
		/* a schema not seen just before: it becomes the kept one */
		char	   *json = ts_strdup(r->c->schema_json);

		if (json == NULL)
			return &r->prog_arena;
		ts_avro_schema_free(keep->schema);
		ts_free(keep->schema_json);
		keep->schema = r->c->schema;
		keep->schema_json = json;
		r->c->schema_borrowed = true;
	}
	ts_arena_reset(&keep->prog_arena);
	keep->top = NULL;
	keep->cols = cols;
	keep->dests = dests;
	keep->ncols = ncols;
	return &keep->prog_arena;
}

ts_meta_avro *
ts_meta_avro_open(ts_fs *fs, const char *path, const ts_read_column *cols, int ncols,
				  bool *mine, ts_err *err)
{
	return ts_meta_avro_open_kept(fs, path, cols, ncols, NULL, mine, err);
}

ts_meta_avro *
ts_meta_avro_open_kept(ts_fs *fs, const char *path, const ts_read_column *cols, int ncols,
					   ts_meta_avro_keep *keep, bool *mine, ts_err *err)
{
	return ts_meta_avro_open_into(fs, path, cols, NULL, ncols, keep, NULL, mine, err);
}

ts_meta_avro *
ts_meta_avro_open_into(ts_fs *fs, const char *path, const ts_read_column *cols,
					   const ts_meta_dest *dests, int ncols,
					   ts_meta_avro_keep *keep, ts_arena *copies,
					   bool *mine, ts_err *err)
{
	ts_meta_avro *r;
	const ts_avro_node *root;
	bool		ok = false;

	*mine = false;
	if (ncols <= 0 || !is_avro_file(fs, path))
		return NULL;			/* the generic reader reports what is wrong */
	r = ts_calloc(1, sizeof(ts_meta_avro));
	if (r == NULL)
		return NULL;
	ts_arena_init(&r->prog_arena, 4 * 1024);
	ts_arena_init(&r->scratch, 4 * 1024);
	ts_meta_slab_init(&r->slab, copies);
	r->direct = dests != NULL;
	r->c = ts_avro_container_open_known(fs, path, keep ? keep->schema_json : NULL,
										keep ? keep->schema : NULL, err);
	if (r->c == NULL)
	{
		*mine = true;			/* an Avro file whose header is bad: say so */
		ts_meta_avro_close(r);
		return NULL;
	}
	root = ts_avro_unwrap_nullable(r->c->schema->root, &r->top_null_branch);
	if (keep != NULL && r->c->schema_borrowed && keep->top != NULL &&
		keep->cols == cols && keep->dests == dests && keep->ncols == ncols)
	{
		r->top = keep->top;		/* the previous file's schema and columns */
		ok = true;
	}
	else if (root != NULL)
	{
		ts_arena   *arena = program_arena(r, keep, cols, dests, ncols);

		r->top = compile_record(arena, root, cols, ncols, NULL, dests, 0, &ok);
		if (arena != &r->prog_arena && ok)
			keep->top = r->top;
	}
	if (root == NULL || r->top == NULL || !ok)
	{
		ts_meta_avro_close(r);
		return NULL;			/* not a shape compiled here */
	}
	r->row = ts_arena_alloc(&r->prog_arena, sizeof(ts_value) * (size_t) ncols);
	if (r->row == NULL)
	{
		ts_meta_avro_close(r);
		return NULL;
	}
	*mine = true;
	return r;
}

/* Load blocks until one has objects (as the generic reader): 0 at the end. */
static int
load_block(ts_meta_avro *r, ts_err *err)
{
	int			rc;

	if (r->rows_left > 0)
		return 1;
	rc = ts_avro_container_next_objects(r->c, &r->cur, &r->have_block, r->block_row,
										&r->rows_left, err);
	if (rc > 0)
		r->block_row = 0;
	return rc;
}

int
ts_meta_avro_next(ts_meta_avro *r, const ts_value **row, ts_err *err)
{
	uint64_t	seen;

	return ts_meta_avro_next_into(r, NULL, row, &seen, err);
}

int
ts_meta_avro_next_into(ts_meta_avro *r, void *record, const ts_value **row,
					   uint64_t *seen, ts_err *err)
{
	int			rc = load_block(r, err);
	bool		isnull = false;

	*seen = 0;
	if (rc <= 0)
		return rc;
	ts_arena_reset(&r->scratch);
	r->seen = 0;
	if (r->direct && (record == NULL || r->slab.arena == NULL))
		return ts_error(err, TS_ERR_INVALID, "internal: no arena for manifest copies"), -1;
	if ((r->top_null_branch >= 0 && !read_branch(&r->cur, r->top_null_branch, &isnull, err)) ||
		(!isnull && !read_record(r->top, &r->cur, r->row, record, r, &r->seen, err)))
	{
		ts_error_context(err, "Avro file \"%s\": block %d, object %lld",
						 r->c->path, (int) r->c->nblocks - 1, (long long) r->block_row);
		return -1;
	}
	if (isnull)
		for (int o = 0; o < r->top->nout; o++)
			r->row[o].isnull = true;
	*seen = r->seen;
	r->block_row++;
	r->rows_left--;
	if (r->rows_left == 0 && ts_cursor_left(&r->cur) != 0)
		return ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": block %d: %zu bytes left after its %lld objects",
						r->c->path, (int) r->c->nblocks - 1, ts_cursor_left(&r->cur),
						(long long) r->block_row), -1;
	*row = r->row;
	return 1;
}

void
ts_meta_avro_close(ts_meta_avro *r)
{
	if (r == NULL)
		return;
	if (r->c)
		ts_avro_container_close(r->c);
	ts_arena_free(&r->prog_arena);
	ts_arena_free(&r->scratch);
	ts_free(r);
}
