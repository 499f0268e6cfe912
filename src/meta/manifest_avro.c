/*
 * manifest_avro.c - the fast path for Avro metadata files.
 *
 * Owns: compiling the writer schema of one Avro manifest, manifest list or
 * index manifest against the columns manifest.c asks for (names + types)
 * into a small program - per writer field, in writer order: decode into a
 * value slot, or skip - and running it straight over the decompressed
 * block bytes, one record at a time.  Top-level values land in one fixed
 * row, nested rows in values owned by their step (a program is a tree),
 * arrays in a scratch arena reset per record; bytes
 * and strings point into the block (valid until the next record is read:
 * manifest.c copies what it keeps).
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
#include "meta/manifest_avro.h"

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

typedef struct prog prog;

typedef struct step
{
	op			op;
	int			null_branch;	/* union ["null", T]: index of "null"; else -1 */
	int			slot;			/* output index in the record */
	const ts_avro_node *w;		/* the writer field's node (skipped whole) */
	const prog *sub;			/* OP_RECORD */
	ts_value   *items;			/* OP_RECORD: its values (one record at a time) */
	op			elem_op;		/* OP_ARRAY: a scalar op */
	int			elem_null_branch;
} step;

struct prog
{
	int			nout;			/* requested fields = output values */
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
	int64_t		rows_left;
	int64_t		block_row;
	bool		have_block;
};

struct ts_meta_avro_keep
{
	char	   *schema_json;	/* the text 'schema' was parsed from */
	ts_avro_schema *schema;
	const ts_read_column *cols; /* what 'top' was compiled for */
	int			ncols;
	ts_arena	prog_arena;		/* 'top' and its parts */
	const prog *top;			/* NULL: none kept */
};

/* ---- compiling -------------------------------------------------------- */

static const prog *compile_record(ts_arena *arena, const ts_avro_node *w,
								  const ts_read_column *cols, int ncols,
								  const ts_field *fields, int depth, bool *ok);

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

/* Compile one requested field against writer node w into s. */
static bool
compile_field(ts_arena *arena, const ts_avro_node *w, const ts_type *t, int depth, step *s)
{
	const ts_avro_node *in;
	bool		ok = true;

	s->w = w;
	if (!unwrap(w, t, &in, &s->null_branch))
		return false;
	if (t->kind == TS_ROW)
	{
		if (in->kind != TS_AVRO_RECORD || in->logical != TS_AVRO_LT_NONE)
			return false;
		s->op = OP_RECORD;
		s->sub = compile_record(arena, in, NULL, t->nfields, t->fields, depth + 1, &ok);
		if (!ok || s->sub == NULL)
			return false;
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
		return s->elem_op != OP_SKIP;
	}
	s->op = scalar_op(in, t);
	return s->op != OP_SKIP;
}

/*
 * A record's program: the requested fields (top level: cols; nested:
 * fields of a ROW type) matched by exact name; writer fields nobody asked
 * for are skipped, requested fields the writer lacks stay NULL.  *ok =
 * false (and NULL) when some field is not a compiled shape.
 */
static const prog *
compile_record(ts_arena *arena, const ts_avro_node *w,
			   const ts_read_column *cols, int ncols,
			   const ts_field *fields, int depth, bool *ok)
{
	prog	   *p;

	*ok = false;
	if (depth > MAX_COMPILE_DEPTH || w->kind != TS_AVRO_RECORD)
		return NULL;
	p = ts_arena_alloc(arena, sizeof(prog));
	if (p == NULL)
		return NULL;
	p->nout = ncols;
	p->nsteps = w->nchildren;
	p->steps = ts_arena_alloc(arena, sizeof(step) * (size_t) (w->nchildren ? w->nchildren : 1));
	if (p->steps == NULL)
		return NULL;
	memset(p->steps, 0, sizeof(step) * (size_t) (w->nchildren ? w->nchildren : 1));
	for (int i = 0; i < w->nchildren; i++)
	{
		p->steps[i].op = OP_SKIP;
		p->steps[i].slot = -1;
		p->steps[i].w = w->children[i];
	}
	for (int o = 0; o < ncols; o++)
	{
		const char *name = cols ? cols[o].name : fields[o].name;
		const ts_type *t = cols ? cols[o].type : fields[o].type;
		int			wi = ts_avro_record_field(w, name);

		if (wi < 0)
			continue;			/* absent in this writer: NULL */
		if (p->steps[wi].slot >= 0)
			return NULL;		/* asked twice: the generic reader's job */
		if (!compile_field(arena, w->children[wi], t, depth, &p->steps[wi]))
			return NULL;
		p->steps[wi].slot = o;
	}
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

static inline __attribute__((always_inline)) bool
read_scalar(op o, ts_cursor *cur, ts_value *out, ts_err *err)
{
	int64_t		v;

	if (o == OP_BYTES)
		return ts_avro_read_len(cur, &out->v.s.p, &out->v.s.len, err);
	if (!ts_avro_read_long(cur, &v, err))
		return false;
	switch (o)
	{
		case OP_INT:
		case OP_INT8:
			if (v < INT32_MIN || v > INT32_MAX)
				return ts_error(err, TS_ERR_CORRUPT, "Avro int out of range");
			out->v.i = o == OP_INT8 ? (int8_t) v : v;
			return true;
		case OP_LONG:
			out->v.i = v;
			return true;
		case OP_TS_MILLIS:
			out->v.ts.millis = v;
			out->v.ts.nanos = 0;
			return true;
		default:
			return ts_error(err, TS_ERR_CORRUPT, "internal: bad manifest program");
	}
}

/* An array of scalars; items in the scratch arena. */
static bool
read_array(const step *s, ts_cursor *cur, ts_value *out, ts_arena *scratch, ts_err *err)
{
	ts_value   *items = NULL;
	int64_t		n = 0;

	for (;;)
	{
		int64_t		count,
					bytes;
		ts_value   *grown;

		if (!ts_avro_read_long(cur, &count, err))
			return false;
		if (count == 0)
			break;
		if (count < 0)
		{
			if (count == INT64_MIN)
				return ts_error(err, TS_ERR_CORRUPT, "bad array/map block count");
			count = -count;
			if (!ts_cursor_zigzag(cur, &bytes, err))
				return false;
			if (bytes < 0 || (uint64_t) bytes > ts_cursor_left(cur))
				return ts_error(err, TS_ERR_CORRUPT, "bad array/map block size %lld", (long long) bytes);
		}
		/* every item takes at least one byte */
		if ((uint64_t) count > ts_cursor_left(cur))
			return ts_error(err, TS_ERR_CORRUPT, "array/map block of %lld items exceeds the data left",
							(long long) count);
		if (n + count > INT32_MAX)
			return ts_error(err, TS_ERR_CORRUPT, "array of more than %d items", INT32_MAX);
		grown = ts_arena_alloc(scratch, sizeof(ts_value) * (size_t) (n + count));
		if (grown == NULL)
			return ts_error(err, TS_ERR_NOMEM, "out of memory");
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

static bool
read_record(const prog *p, ts_cursor *cur, ts_value *out, ts_arena *scratch, ts_err *err)
{
	for (int o = 0; o < p->nout; o++)
		out[o].isnull = true;
	for (int i = 0; i < p->nsteps; i++)
	{
		const step *s = &p->steps[i];
		ts_value   *v;
		bool		isnull = false;

		if (s->op == OP_SKIP)
		{
			if (!ts_avro_skip(s->w, cur, err))
				return false;
			continue;
		}
		v = &out[s->slot];
		if (s->null_branch >= 0 && !read_branch(cur, s->null_branch, &isnull, err))
			return false;
		if (isnull)
			continue;
		v->isnull = false;
		if (s->op == OP_RECORD)
		{
			if (!read_record(s->sub, cur, s->items, scratch, err))
				return false;
			v->v.nested.n = s->sub->nout;
			v->v.nested.items = s->items;
		}
		else if (s->op == OP_ARRAY)
		{
			if (!read_array(s, cur, v, scratch, err))
				return false;
		}
		else if (!read_scalar(s->op, cur, v, err))
			return false;
	}
	return true;
}

/* ---- the reader ------------------------------------------------------- */

static bool
is_avro_file(const char *path)
{
	ts_err		ignore;
	ts_file    *f;
	uint8_t		head[4] = {0};
	bool		avro = false;

	memset(&ignore, 0, sizeof(ignore));
	f = ts_file_open(path, &ignore);
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
program_arena(ts_meta_avro *r, ts_meta_avro_keep *keep, const ts_read_column *cols, int ncols)
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
	keep->ncols = ncols;
	return &keep->prog_arena;
}

ts_meta_avro *
ts_meta_avro_open(const char *path, const ts_read_column *cols, int ncols,
				  bool *mine, ts_err *err)
{
	return ts_meta_avro_open_kept(path, cols, ncols, NULL, mine, err);
}

ts_meta_avro *
ts_meta_avro_open_kept(const char *path, const ts_read_column *cols, int ncols,
					   ts_meta_avro_keep *keep, bool *mine, ts_err *err)
{
	ts_meta_avro *r;
	const ts_avro_node *root;
	bool		ok = false;

	*mine = false;
	if (ncols <= 0 || !is_avro_file(path))
		return NULL;			/* the generic reader reports what is wrong */
	r = ts_calloc(1, sizeof(ts_meta_avro));
	if (r == NULL)
		return NULL;
	ts_arena_init(&r->prog_arena, 4 * 1024);
	ts_arena_init(&r->scratch, 4 * 1024);
	r->c = ts_avro_container_open_known(path, keep ? keep->schema_json : NULL,
										keep ? keep->schema : NULL, err);
	if (r->c == NULL)
	{
		*mine = true;			/* an Avro file whose header is bad: say so */
		ts_meta_avro_close(r);
		return NULL;
	}
	root = ts_avro_unwrap_nullable(r->c->schema->root, &r->top_null_branch);
	if (keep != NULL && r->c->schema_borrowed && keep->top != NULL &&
		keep->cols == cols && keep->ncols == ncols)
	{
		r->top = keep->top;		/* the previous file's schema and columns */
		ok = true;
	}
	else if (root != NULL)
	{
		ts_arena   *arena = program_arena(r, keep, cols, ncols);

		r->top = compile_record(arena, root, cols, ncols, NULL, 0, &ok);
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
	while (r->rows_left == 0)
	{
		int			rc;
		int64_t		min;

		if (r->have_block && ts_cursor_left(&r->cur) != 0)
			return ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": block %d: %zu bytes left after its %lld objects",
							r->c->path, (int) r->c->nblocks, ts_cursor_left(&r->cur),
							(long long) r->block_row), -1;
		rc = ts_avro_container_next_block(r->c, err);
		if (rc <= 0)
		{
			r->have_block = false;
			return rc;
		}
		r->have_block = true;
		ts_cursor_init(&r->cur, r->c->block, r->c->block_len);
		r->rows_left = r->c->block_count;
		r->block_row = 0;
		min = r->c->schema->root->min_encoded_size;
		if (min > 0 && (uint64_t) r->rows_left > r->c->block_len / (uint64_t) min)
			return ts_error(err, TS_ERR_CORRUPT,
							"Avro file \"%s\": block %d: %lld objects cannot fit in %zu bytes",
							r->c->path, (int) r->c->nblocks, (long long) r->rows_left,
							r->c->block_len), -1;
	}
	return 1;
}

int
ts_meta_avro_next(ts_meta_avro *r, const ts_value **row, ts_err *err)
{
	int			rc = load_block(r, err);
	bool		isnull = false;

	if (rc <= 0)
		return rc;
	ts_arena_reset(&r->scratch);
	if ((r->top_null_branch >= 0 && !read_branch(&r->cur, r->top_null_branch, &isnull, err)) ||
		(!isnull && !read_record(r->top, &r->cur, r->row, &r->scratch, err)))
	{
		ts_error_context(err, "Avro file \"%s\": block %d, object %lld",
						 r->c->path, (int) r->c->nblocks, (long long) r->block_row);
		return -1;
	}
	if (isnull)
		for (int o = 0; o < r->top->nout; o++)
			r->row[o].isnull = true;
	r->block_row++;
	r->rows_left--;
	if (r->rows_left == 0 && ts_cursor_left(&r->cur) != 0)
		return ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": block %d: %zu bytes left after its %lld objects",
						r->c->path, (int) r->c->nblocks, ts_cursor_left(&r->cur),
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
