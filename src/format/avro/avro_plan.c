/*
 * avro_plan.c - read plans of the Avro decoder (avro_plan.h).
 *
 * Owns: pairing writer schema nodes with requested Paimon types (records
 * matched by field name, recursively; missing fields => NULL) and choosing
 * the conversion Paimon's Avro mapping needs for each (int -> TINYINT/
 * SMALLINT/INT/DATE/TIME, long -> BIGINT/TIMESTAMP by logical type,
 * bytes/fixed -> DECIMAL, string -> CHAR/VARCHAR, array of {key,value} ->
 * MAP ...); a pair it cannot read is refused naming the column.  Decodes
 * nothing: avro_decode.c follows the plans.
 */
#include <string.h>

#include "format/avro/avro_flat.h"

static const ts_type bigint_type = {.kind = TS_BIGINT, .nullable = true};

/* ---- plan building --------------------------------------------------- */

typedef struct build_ctx
{
	ts_arena   *arena;
	const char *what;
	const char *column;
	ts_err	   *err;
} build_ctx;

static const char *
kind_name(ts_type_kind k)
{
	static const char *const names[] = {
		"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL",
		"CHAR", "VARCHAR", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP",
		"TIMESTAMP WITH LOCAL TIME ZONE", "ARRAY", "MULTISET", "MAP", "ROW", "VARIANT", "BLOB",
		"VECTOR", "GEOMETRY", "GEOGRAPHY"
	};

	if ((int) k >= 0 && (size_t) k < sizeof(names) / sizeof(names[0]))
		return names[k];
	return "?";
}

static ts_avro_plan *
new_plan(build_ctx *ctx, conv cv, const ts_avro_node *w, const ts_type *t)
{
	ts_avro_plan *p = ts_arena_alloc(ctx->arena, sizeof(ts_avro_plan));

	if (p == NULL)
	{
		ts_error_nomem(ctx->err, NULL);
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->cv = cv;
	p->w = w;
	p->target = t ? t->kind : TS_BIGINT;
	return p;
}

static ts_avro_plan *
cannot(build_ctx *ctx, const ts_avro_node *w, const ts_type *t)
{
	ts_error(ctx->err, TS_ERR_UNSUPPORTED,
			 "Avro file \"%s\": column \"%s\": cannot read Avro type %s%s%s as %s",
			 ctx->what, ctx->column, ts_avro_kind_name(w->kind),
			 w->name ? " " : "", w->name ? w->name : "", kind_name(t->kind));
	return NULL;
}

static ts_avro_plan *build(build_ctx *ctx, const ts_avro_node *w, const ts_type *t, int depth);

/* Would two requested types decode a writer value identically? (shallow) */
static bool
same_conversion(const ts_type *a, const ts_type *b)
{
	return a->kind == b->kind && a->precision == b->precision && a->scale == b->scale &&
		!ts_type_is_nested(a->kind);
}

static ts_avro_plan *
build_record(build_ctx *ctx, const ts_avro_node *w, const char *const *names,
			 const ts_type *const *types, int nout, int depth)
{
	ts_avro_plan *p = new_plan(ctx, CV_RECORD, w, NULL);

	if (p == NULL)
		return NULL;
	p->target = TS_ROW;
	p->nout = nout;
	p->targets = ts_arena_alloc(ctx->arena, sizeof(int) * (w->nchildren + 1));
	p->fields = ts_arena_alloc(ctx->arena, sizeof(ts_avro_plan *) * (w->nchildren + 1));
	p->copy_from = ts_arena_alloc(ctx->arena, sizeof(int) * (nout + 1));
	if (p->targets == NULL || p->fields == NULL || p->copy_from == NULL)
	{
		ts_error_nomem(ctx->err, NULL);
		return NULL;
	}
	for (int i = 0; i < w->nchildren; i++)
	{
		p->targets[i] = -1;
		p->fields[i] = NULL;
	}
	for (int o = 0; o < nout; o++)
	{
		int			wi = ts_avro_record_field(w, names[o]);

		p->copy_from[o] = -1;
		if (wi < 0)
			continue;			/* missing => NULL */
		if (p->targets[wi] >= 0)
		{
			/* the same writer field asked twice: copy after decoding */
			if (types[o] != types[p->targets[wi]] &&
				!same_conversion(types[o], types[p->targets[wi]]))
			{
				/* different conversions of one field: not worth supporting */
				ts_error(ctx->err, TS_ERR_UNSUPPORTED,
						 "Avro file \"%s\": column \"%s\" requested twice with different types",
						 ctx->what, names[o]);
				return NULL;
			}
			p->copy_from[o] = p->targets[wi];
			continue;
		}
		p->targets[wi] = o;
		if (depth == 0)
			ctx->column = names[o];
		p->fields[wi] = build(ctx, w->children[wi], types[o], depth + 1);
		if (p->fields[wi] == NULL)
			return NULL;
	}
	/* what decode_record may leave out per record */
	{
		int			written = 0;

		for (int i = 0; i < w->nchildren; i++)
			written += p->targets[i] >= 0;
		for (int o = 0; o < nout; o++)
			p->any_copy |= p->copy_from[o] >= 0;
		p->all_targets = written == nout;
	}
	return p;
}

/* The {key, value} record of an array-encoded map, or NULL. */
static const ts_avro_node *
kv_record(const ts_avro_node *w)
{
	const ts_avro_node *item;

	if (w->kind != TS_AVRO_ARRAY)
		return NULL;
	item = w->children[0];
	if (item->kind != TS_AVRO_RECORD || item->nchildren != 2 ||
		ts_avro_record_field(item, "key") < 0 || ts_avro_record_field(item, "value") < 0)
		return NULL;
	return item;
}

static ts_avro_plan *
build(build_ctx *ctx, const ts_avro_node *w, const ts_type *t, int depth)
{
	ts_avro_plan *p;
	ts_type_kind k = t->kind;

	if (depth > TS_AVRO_MAX_DEPTH)
	{
		ts_error(ctx->err, TS_ERR_UNSUPPORTED, "Avro file \"%s\": column \"%s\" nested too deeply",
				 ctx->what, ctx->column);
		return NULL;
	}
	if (w->kind == TS_AVRO_UNION)
	{
		bool		any = false;

		p = new_plan(ctx, CV_UNION, w, t);
		if (p == NULL)
			return NULL;
		p->branches = ts_arena_alloc(ctx->arena, sizeof(ts_avro_plan *) * (w->nchildren + 1));
		if (p->branches == NULL)
			return ts_error_nomem(ctx->err, NULL), NULL;
		for (int i = 0; i < w->nchildren; i++)
		{
			p->branches[i] = NULL;
			if (w->children[i]->kind == TS_AVRO_NULL)
				continue;
			p->branches[i] = build(ctx, w->children[i], t, depth + 1);
			if (p->branches[i] == NULL)
				return NULL;
			any = true;
		}
		(void) any;
		if (w->nchildren == 2 && (p->branches[0] == NULL) != (p->branches[1] == NULL))
		{
			p->null_branch = p->branches[0] == NULL ? 0 : 1;
			p->nonnull = p->branches[1 - p->null_branch];
		}
		return p;
	}
	if (w->kind == TS_AVRO_NULL)
		return new_plan(ctx, CV_NULL, w, t);

	switch (k)
	{
		case TS_BOOLEAN:
			if (w->kind == TS_AVRO_BOOLEAN)
				return new_plan(ctx, CV_BOOL, w, t);
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_DATE:
			if (w->kind == TS_AVRO_INT)
				return new_plan(ctx, CV_INT, w, t);
			break;
		case TS_BIGINT:
			if (w->kind == TS_AVRO_INT || w->kind == TS_AVRO_LONG)
				return new_plan(ctx, CV_INT, w, t);
			break;
		case TS_TIME:
			if (w->kind == TS_AVRO_INT)
				return new_plan(ctx, CV_INT, w, t);
			if (w->kind == TS_AVRO_LONG && w->logical == TS_AVRO_LT_TIME_MICROS)
				return new_plan(ctx, CV_TIME_MICROS, w, t);
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (w->kind == TS_AVRO_LONG)
			{
				switch (w->logical)
				{
					case TS_AVRO_LT_TIMESTAMP_MILLIS:
					case TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
						return new_plan(ctx, CV_TS_MILLIS, w, t);
					case TS_AVRO_LT_TIMESTAMP_MICROS:
					case TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
						return new_plan(ctx, CV_TS_MICROS, w, t);
					case TS_AVRO_LT_TIMESTAMP_NANOS:
					case TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS:
						return new_plan(ctx, CV_TS_NANOS, w, t);
					case TS_AVRO_LT_NONE:
						return new_plan(ctx, t->precision <= 3 ? CV_TS_MILLIS :
										t->precision <= 6 ? CV_TS_MICROS : CV_TS_NANOS, w, t);
					default:
						break;
				}
			}
			break;
		case TS_FLOAT:
			if (w->kind == TS_AVRO_FLOAT)
				return new_plan(ctx, CV_FLOAT, w, t);
			if (w->kind == TS_AVRO_INT || w->kind == TS_AVRO_LONG)
				return new_plan(ctx, CV_INT_TO_FLOAT, w, t);
			break;
		case TS_DOUBLE:
			if (w->kind == TS_AVRO_DOUBLE)
				return new_plan(ctx, CV_DOUBLE, w, t);
			if (w->kind == TS_AVRO_FLOAT)
				return new_plan(ctx, CV_FLOAT_TO_DOUBLE, w, t);
			if (w->kind == TS_AVRO_INT || w->kind == TS_AVRO_LONG)
				return new_plan(ctx, CV_INT_TO_DOUBLE, w, t);
			break;
		case TS_DECIMAL:
			if (t->precision < 1 || t->precision > 38)
				break;
			if (w->logical == TS_AVRO_LT_DECIMAL && w->scale != t->scale)
			{
				ts_error(ctx->err, TS_ERR_UNSUPPORTED,
						 "Avro file \"%s\": column \"%s\": file has decimal scale %d, expected %d",
						 ctx->what, ctx->column, (int) w->scale, (int) t->scale);
				return NULL;
			}
			if (w->kind == TS_AVRO_BYTES)
				return new_plan(ctx, CV_DEC_BYTES, w, t);
			if (w->kind == TS_AVRO_FIXED)
				return new_plan(ctx, CV_DEC_FIXED, w, t);
			if (w->kind == TS_AVRO_INT || w->kind == TS_AVRO_LONG)
				return new_plan(ctx, CV_DEC_INT, w, t);
			break;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			if (w->kind == TS_AVRO_STRING || w->kind == TS_AVRO_BYTES)
				return new_plan(ctx, CV_BYTES, w, t);
			if (w->kind == TS_AVRO_FIXED)
				return new_plan(ctx, CV_FIXED, w, t);
			if (w->kind == TS_AVRO_ENUM && (k == TS_CHAR || k == TS_VARCHAR))
				return new_plan(ctx, CV_ENUM, w, t);
			break;
		case TS_ROW:
			if (w->kind == TS_AVRO_RECORD)
			{
				const char **names;
				const ts_type **types;

				names = ts_arena_alloc(ctx->arena, sizeof(char *) * (t->nfields + 1));
				types = ts_arena_alloc(ctx->arena, sizeof(ts_type *) * (t->nfields + 1));
				if (names == NULL || types == NULL)
					return ts_error_nomem(ctx->err, NULL), NULL;
				for (int i = 0; i < t->nfields; i++)
				{
					names[i] = t->fields[i].name;
					types[i] = t->fields[i].type;
				}
				return build_record(ctx, w, names, types, t->nfields, depth + 1);
			}
			break;
		case TS_ARRAY:
			if (w->kind == TS_AVRO_ARRAY && t->element)
			{
				p = new_plan(ctx, CV_ARRAY, w, t);
				if (p == NULL)
					return NULL;
				p->elem = build(ctx, w->children[0], t->element, depth + 1);
				return p->elem ? p : NULL;
			}
			break;
		case TS_MULTISET:
			if (t->element == NULL)
				break;
			if (w->kind == TS_AVRO_ARRAY && kv_record(w) == NULL)
			{
				p = new_plan(ctx, CV_ARRAY, w, t);
				if (p == NULL)
					return NULL;
				p->elem = build(ctx, w->children[0], t->element, depth + 1);
				return p->elem ? p : NULL;
			}
			/* FALLTHROUGH */
		case TS_MAP:
			{
				const ts_type *kt = k == TS_MAP ? t->key : t->element;
				const ts_type *vt = k == TS_MAP ? t->value : &bigint_type;
				const ts_avro_node *kv;

				if (kt == NULL || vt == NULL)
					break;
				if (w->kind == TS_AVRO_MAP)
				{
					if (!ts_type_is_bytes(kt->kind))
						break;
					p = new_plan(ctx, k == TS_MAP ? CV_MAP : CV_MULTISET_MAP, w, t);
					if (p == NULL)
						return NULL;
					p->elem = build(ctx, w->children[0], vt, depth + 1);
					return p->elem ? p : NULL;
				}
				if ((kv = kv_record(w)) != NULL)
				{
					const char *names[2] = {"key", "value"};
					const ts_type *types[2] = {kt, vt};

					p = new_plan(ctx, k == TS_MAP ? CV_ARRAY_MAP : CV_MULTISET_ARRAY_MAP, w, t);
					if (p == NULL)
						return NULL;
					p->kv = build_record(ctx, kv, names, types, 2, depth + 1);
					return p->kv ? p : NULL;
				}
			}
			break;
		default:
			break;
	}
	return cannot(ctx, w, t);
}

ts_avro_plan *
ts_avro_plan_top(const ts_avro_node *root,
				 const char *const *names, const ts_type *const *types, int ncols,
				 ts_arena *arena, const char *what, ts_err *err)
{
	build_ctx	ctx = {arena, what, "", err};
	const ts_avro_node *rec;
	int			nb;
	ts_avro_plan *p;

	rec = ts_avro_unwrap_nullable(root, &nb);
	if (rec == NULL || rec->kind != TS_AVRO_RECORD)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "Avro file \"%s\": top-level schema is %s, not a record", what,
				 ts_avro_kind_name(root->kind));
		return NULL;
	}
	p = build_record(&ctx, rec, names, types, ncols, 0);
	if (p == NULL)
		return NULL;
	{
		bool		ok;

		p->flat = ts_avro_flat_build(p, arena, &ok, err);
		if (!ok)
			return NULL;
	}
	if (root->kind == TS_AVRO_UNION)
	{
		ts_avro_plan *u = new_plan(&ctx, CV_UNION, root, NULL);

		if (u == NULL)
			return NULL;
		u->branches = ts_arena_alloc(arena, sizeof(ts_avro_plan *) * root->nchildren);
		if (u->branches == NULL)
			return ts_error_nomem(err, NULL), NULL;
		for (int i = 0; i < root->nchildren; i++)
			u->branches[i] = root->children[i] == rec ? p : NULL;
		u->nout = ncols;
		u->top = true;
		return u;
	}
	p->top = true;
	return p;
}

