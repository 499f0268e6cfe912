/*
 * avro_schema.c - parse an Avro writer schema (JSON) into ts_avro_node trees.
 *
 * Owns: the Avro schema grammar (primitive names, record/enum/array/map/
 * fixed objects, unions as JSON arrays, named-type references with
 * namespaces) and the logical types Paimon writes.  Invalid logical types
 * are ignored as the Avro specification says; structural errors are
 * TS_ERR_CORRUPT naming the file.  Decoding lives in avro_decode.c.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "format/avro/avro_schema.h"

typedef struct named_type
{
	const char *fullname;
	ts_avro_node *node;
} named_type;

typedef struct parse_ctx
{
	ts_avro_schema *schema;
	const char *what;
	ts_err	   *err;
	named_type *named;
	int			nnamed;
	int			named_cap;
	int			depth;
} parse_ctx;

static ts_avro_node *parse_node(parse_ctx *ctx, const cJSON *j, const char *ns);

const char *
ts_avro_kind_name(ts_avro_kind kind)
{
	switch (kind)
	{
		case TS_AVRO_NULL:
			return "null";
		case TS_AVRO_BOOLEAN:
			return "boolean";
		case TS_AVRO_INT:
			return "int";
		case TS_AVRO_LONG:
			return "long";
		case TS_AVRO_FLOAT:
			return "float";
		case TS_AVRO_DOUBLE:
			return "double";
		case TS_AVRO_BYTES:
			return "bytes";
		case TS_AVRO_STRING:
			return "string";
		case TS_AVRO_RECORD:
			return "record";
		case TS_AVRO_ENUM:
			return "enum";
		case TS_AVRO_ARRAY:
			return "array";
		case TS_AVRO_MAP:
			return "map";
		case TS_AVRO_UNION:
			return "union";
		case TS_AVRO_FIXED:
			return "fixed";
	}
	return "?";
}

static bool
schema_error(parse_ctx *ctx, const char *msg, const char *detail)
{
	if (detail)
		return ts_error(ctx->err, TS_ERR_CORRUPT, "Avro file \"%s\": invalid writer schema: %s \"%.200s\"",
						ctx->what, msg, detail);
	return ts_error(ctx->err, TS_ERR_CORRUPT, "Avro file \"%s\": invalid writer schema: %s",
					ctx->what, msg);
}

static ts_avro_node *
new_node(parse_ctx *ctx, ts_avro_kind kind)
{
	ts_avro_node *n = ts_arena_alloc(&ctx->schema->arena, sizeof(ts_avro_node));

	if (n == NULL)
	{
		ts_error_nomemf(ctx->err, "parsing Avro schema of \"%s\"", ctx->what);
		return NULL;
	}
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->fixed_encoded_size = -1;
	return n;
}

static char *
arena_strdup(parse_ctx *ctx, const char *s)
{
	char	   *r = ts_arena_strdup(&ctx->schema->arena, s);

	if (r == NULL)
		ts_error_nomemf(ctx->err, "parsing Avro schema of \"%s\"", ctx->what);
	return r;
}

static bool
primitive_kind(const char *name, ts_avro_kind *kind)
{
	static const struct
	{
		const char *name;
		ts_avro_kind kind;
	}			prims[] = {
		{"null", TS_AVRO_NULL}, {"boolean", TS_AVRO_BOOLEAN}, {"int", TS_AVRO_INT},
		{"long", TS_AVRO_LONG}, {"float", TS_AVRO_FLOAT}, {"double", TS_AVRO_DOUBLE},
		{"bytes", TS_AVRO_BYTES}, {"string", TS_AVRO_STRING}
	};

	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (strcmp(name, prims[i].name) == 0)
		{
			*kind = prims[i].kind;
			return true;
		}
	return false;
}

/* Full name from a (maybe dotted) name and the enclosing namespace. */
static char *
full_name(parse_ctx *ctx, const char *name, const char *ns)
{
	char	   *r;

	if (strchr(name, '.') || ns == NULL || ns[0] == '\0')
		return arena_strdup(ctx, name);
	r = ts_arena_alloc(&ctx->schema->arena, strlen(ns) + strlen(name) + 2);
	if (r == NULL)
	{
		ts_error_nomemf(ctx->err, "parsing Avro schema of \"%s\"", ctx->what);
		return NULL;
	}
	strcpy(r, ns);
	strcat(r, ".");
	strcat(r, name);
	return r;
}

/* Namespace part of a full name (arena copy), "" when none. */
static const char *
namespace_of(parse_ctx *ctx, const char *fullname)
{
	const char *dot = strrchr(fullname, '.');
	char	   *r;

	if (dot == NULL)
		return "";
	r = ts_arena_alloc(&ctx->schema->arena, (size_t) (dot - fullname) + 1);
	if (r == NULL)
		return NULL;
	memcpy(r, fullname, (size_t) (dot - fullname));
	r[dot - fullname] = '\0';
	return r;
}

static ts_avro_node *
lookup_named(parse_ctx *ctx, const char *name, const char *ns)
{
	char		buf[1024];

	if (!strchr(name, '.') && ns && ns[0])
	{
		snprintf(buf, sizeof(buf), "%s.%s", ns, name);
		for (int i = 0; i < ctx->nnamed; i++)
			if (strcmp(ctx->named[i].fullname, buf) == 0)
				return ctx->named[i].node;
	}
	for (int i = 0; i < ctx->nnamed; i++)
		if (strcmp(ctx->named[i].fullname, name) == 0)
			return ctx->named[i].node;
	return NULL;
}

static bool
register_named(parse_ctx *ctx, ts_avro_node *node)
{
	for (int i = 0; i < ctx->nnamed; i++)
		if (strcmp(ctx->named[i].fullname, node->name) == 0)
			return schema_error(ctx, "type defined twice:", node->name);
	if (ctx->nnamed == ctx->named_cap)
	{
		int			cap = ctx->named_cap ? ctx->named_cap * 2 : 16;
		named_type *n = ts_realloc(ctx->named, sizeof(named_type) * cap);

		if (n == NULL)
			return ts_error_nomemf(ctx->err, "parsing Avro schema of \"%s\"", ctx->what);
		ctx->named = n;
		ctx->named_cap = cap;
	}
	ctx->named[ctx->nnamed].fullname = node->name;
	ctx->named[ctx->nnamed].node = node;
	ctx->nnamed++;
	return true;
}

static bool
json_int(const cJSON *o, const char *key, int32_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 2147483647.0)
		return false;
	*out = (int32_t) v->valuedouble;
	return true;
}

/* Apply "logicalType" of object o to node n (invalid ones are ignored). */
static void
apply_logical(const cJSON *o, ts_avro_node *n)
{
	const cJSON *lt = cJSON_GetObjectItemCaseSensitive(o, "logicalType");
	const char *s;

	if (!cJSON_IsString(lt))
		return;
	s = lt->valuestring;
	if (n->kind == TS_AVRO_INT)
	{
		if (strcmp(s, "date") == 0)
			n->logical = TS_AVRO_LT_DATE;
		else if (strcmp(s, "time-millis") == 0)
			n->logical = TS_AVRO_LT_TIME_MILLIS;
	}
	else if (n->kind == TS_AVRO_LONG)
	{
		static const struct
		{
			const char *name;
			ts_avro_logical lt;
		}			longs[] = {
			{"time-micros", TS_AVRO_LT_TIME_MICROS},
			{"timestamp-millis", TS_AVRO_LT_TIMESTAMP_MILLIS},
			{"timestamp-micros", TS_AVRO_LT_TIMESTAMP_MICROS},
			{"timestamp-nanos", TS_AVRO_LT_TIMESTAMP_NANOS},
			{"local-timestamp-millis", TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS},
			{"local-timestamp-micros", TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS},
			{"local-timestamp-nanos", TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS}
		};

		for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
			if (strcmp(s, longs[i].name) == 0)
				n->logical = longs[i].lt;
	}
	else if (n->kind == TS_AVRO_BYTES || n->kind == TS_AVRO_FIXED)
	{
		int32_t		p,
					sc = 0;

		if (strcmp(s, "decimal") == 0 && json_int(o, "precision", &p) && p >= 1 &&
			(cJSON_GetObjectItemCaseSensitive(o, "scale") == NULL || json_int(o, "scale", &sc)) &&
			sc <= p)
		{
			n->logical = TS_AVRO_LT_DECIMAL;
			n->precision = p;
			n->scale = sc;
		}
	}
	else if (n->kind == TS_AVRO_ARRAY)
	{
		const ts_avro_node *item = n->children[0];

		if (strcmp(s, "map") == 0 && item->kind == TS_AVRO_RECORD && item->nchildren == 2)
			n->logical = TS_AVRO_LT_MAP;
	}
}

static ts_avro_node *
parse_record(parse_ctx *ctx, const cJSON *j, const char *ns, bool is_error)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
	const cJSON *jns = cJSON_GetObjectItemCaseSensitive(j, "namespace");
	const cJSON *fields = cJSON_GetObjectItemCaseSensitive(j, "fields");
	const cJSON *f;
	ts_avro_node *n;
	const char *inner_ns;
	int			nf,
				i;

	(void) is_error;
	if (!cJSON_IsString(name) || !cJSON_IsArray(fields))
		return schema_error(ctx, "record without name or fields", NULL), NULL;
	n = new_node(ctx, TS_AVRO_RECORD);
	if (n == NULL)
		return NULL;
	if (cJSON_IsString(jns) && !strchr(name->valuestring, '.'))
		ns = jns->valuestring;
	n->name = full_name(ctx, name->valuestring, ns);
	if (n->name == NULL)
		return NULL;
	inner_ns = namespace_of(ctx, n->name);
	if (inner_ns == NULL || !register_named(ctx, n))
		return NULL;
	nf = cJSON_GetArraySize(fields);
	n->nchildren = nf;
	n->children = ts_arena_alloc(&ctx->schema->arena, sizeof(ts_avro_node *) * (nf ? nf : 1));
	n->field_names = ts_arena_alloc(&ctx->schema->arena, sizeof(char *) * (nf ? nf : 1));
	if (n->children == NULL || n->field_names == NULL)
		return ts_error_nomem(ctx->err, "parsing Avro schema"), NULL;
	i = 0;
	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *fname = cJSON_GetObjectItemCaseSensitive(f, "name");
		const cJSON *ftype = cJSON_GetObjectItemCaseSensitive(f, "type");

		if (!cJSON_IsString(fname) || ftype == NULL)
			return schema_error(ctx, "record field without name or type in", n->name), NULL;
		for (int k = 0; k < i; k++)
			if (strcmp(n->field_names[k], fname->valuestring) == 0)
				return schema_error(ctx, "duplicate record field", fname->valuestring), NULL;
		n->field_names[i] = arena_strdup(ctx, fname->valuestring);
		if (n->field_names[i] == NULL)
			return NULL;
		n->children[i] = parse_node(ctx, ftype, inner_ns);
		if (n->children[i] == NULL)
			return NULL;
		i++;
	}
	return n;
}

static ts_avro_node *
parse_object(parse_ctx *ctx, const cJSON *j, const char *ns)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
	const char *t;
	ts_avro_kind pk;
	ts_avro_node *n;

	if (type == NULL)
		return schema_error(ctx, "object without \"type\"", NULL), NULL;
	if (!cJSON_IsString(type))
		return parse_node(ctx, type, ns);	/* {"type": {...}} or {"type": [...]} */
	t = type->valuestring;
	if (primitive_kind(t, &pk))
	{
		n = new_node(ctx, pk);
		if (n)
			apply_logical(j, n);
		return n;
	}
	if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0)
		return parse_record(ctx, j, ns, t[0] == 'e');
	if (strcmp(t, "array") == 0 || strcmp(t, "map") == 0)
	{
		const cJSON *sub = cJSON_GetObjectItemCaseSensitive(j, t[0] == 'a' ? "items" : "values");

		if (sub == NULL)
			return schema_error(ctx, "array/map without items/values", NULL), NULL;
		n = new_node(ctx, t[0] == 'a' ? TS_AVRO_ARRAY : TS_AVRO_MAP);
		if (n == NULL)
			return NULL;
		n->nchildren = 1;
		n->children = ts_arena_alloc(&ctx->schema->arena, sizeof(ts_avro_node *));
		if (n->children == NULL)
			return ts_error_nomem(ctx->err, "parsing Avro schema"), NULL;
		n->children[0] = parse_node(ctx, sub, ns);
		if (n->children[0] == NULL)
			return NULL;
		apply_logical(j, n);
		return n;
	}
	if (strcmp(t, "enum") == 0 || strcmp(t, "fixed") == 0)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
		const cJSON *jns = cJSON_GetObjectItemCaseSensitive(j, "namespace");

		if (!cJSON_IsString(name))
			return schema_error(ctx, "enum/fixed without name", NULL), NULL;
		n = new_node(ctx, t[0] == 'e' ? TS_AVRO_ENUM : TS_AVRO_FIXED);
		if (n == NULL)
			return NULL;
		if (cJSON_IsString(jns) && !strchr(name->valuestring, '.'))
			ns = jns->valuestring;
		n->name = full_name(ctx, name->valuestring, ns);
		if (n->name == NULL || !register_named(ctx, n))
			return NULL;
		if (n->kind == TS_AVRO_FIXED)
		{
			if (!json_int(j, "size", &n->fixed_size))
				return schema_error(ctx, "fixed without valid size:", n->name), NULL;
			apply_logical(j, n);
		}
		else
		{
			const cJSON *syms = cJSON_GetObjectItemCaseSensitive(j, "symbols");
			const cJSON *s;
			int			i = 0;

			if (!cJSON_IsArray(syms))
				return schema_error(ctx, "enum without symbols:", n->name), NULL;
			n->nsymbols = cJSON_GetArraySize(syms);
			n->symbols = ts_arena_alloc(&ctx->schema->arena, sizeof(char *) * (n->nsymbols + 1));
			if (n->symbols == NULL)
				return ts_error_nomem(ctx->err, "parsing Avro schema"), NULL;
			cJSON_ArrayForEach(s, syms)
			{
				if (!cJSON_IsString(s))
					return schema_error(ctx, "enum symbol is not a string in", n->name), NULL;
				n->symbols[i] = arena_strdup(ctx, s->valuestring);
				if (n->symbols[i++] == NULL)
					return NULL;
			}
		}
		return n;
	}
	/* a reference to a named type in object form */
	n = lookup_named(ctx, t, ns);
	if (n == NULL)
		return schema_error(ctx, "unknown type", t), NULL;
	return n;
}

static ts_avro_node *
parse_node(parse_ctx *ctx, const cJSON *j, const char *ns)
{
	ts_avro_node *n = NULL;

	if (++ctx->depth > TS_AVRO_MAX_DEPTH)
		return schema_error(ctx, "nested too deeply", NULL), NULL;
	if (cJSON_IsString(j))
	{
		ts_avro_kind pk;

		if (primitive_kind(j->valuestring, &pk))
			n = new_node(ctx, pk);
		else if ((n = lookup_named(ctx, j->valuestring, ns)) == NULL)
			schema_error(ctx, "unknown type", j->valuestring);
	}
	else if (cJSON_IsArray(j))
	{
		int			nb = cJSON_GetArraySize(j);
		const cJSON *b;
		int			i = 0;

		if (nb == 0)
			schema_error(ctx, "empty union", NULL);
		else if ((n = new_node(ctx, TS_AVRO_UNION)) != NULL)
		{
			n->nchildren = nb;
			n->children = ts_arena_alloc(&ctx->schema->arena, sizeof(ts_avro_node *) * nb);
			if (n->children == NULL)
			{
				ts_error_nomem(ctx->err, "parsing Avro schema");
				n = NULL;
			}
			else
				cJSON_ArrayForEach(b, j)
			{
				if (cJSON_IsArray(b))
				{
					schema_error(ctx, "union directly inside a union", NULL);
					n = NULL;
					break;
				}
				n->children[i] = parse_node(ctx, b, ns);
				if (n->children[i++] == NULL)
				{
					n = NULL;
					break;
				}
			}
		}
	}
	else if (cJSON_IsObject(j))
		n = parse_object(ctx, j, ns);
	else
		schema_error(ctx, "schema is neither a string, an array nor an object", NULL);
	ctx->depth--;
	return n;
}

#define SIZE_CAP ((int64_t) 1 << 40)

static void
compute_sizes(ts_avro_node *n)
{
	int64_t		fixed = -1,
				min = 0;

	if (n->sizes_state != 0)
		return;					/* done, or recursion: keep the 0 lower bound */
	n->sizes_state = 1;
	for (int i = 0; i < n->nchildren; i++)
		compute_sizes(n->children[i]);
	switch (n->kind)
	{
		case TS_AVRO_NULL:
			fixed = 0;
			break;
		case TS_AVRO_BOOLEAN:
			fixed = 1;
			break;
		case TS_AVRO_FLOAT:
			fixed = 4;
			break;
		case TS_AVRO_DOUBLE:
			fixed = 8;
			break;
		case TS_AVRO_FIXED:
			fixed = n->fixed_size;
			break;
		case TS_AVRO_INT:
		case TS_AVRO_LONG:
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
		case TS_AVRO_ENUM:
		case TS_AVRO_ARRAY:
		case TS_AVRO_MAP:
			min = 1;
			break;
		case TS_AVRO_UNION:
			min = SIZE_CAP;
			for (int i = 0; i < n->nchildren; i++)
				if (n->children[i]->min_encoded_size < min)
					min = n->children[i]->min_encoded_size;
			min += 1;
			break;
		case TS_AVRO_RECORD:
			fixed = 0;
			for (int i = 0; i < n->nchildren; i++)
			{
				const ts_avro_node *c = n->children[i];

				min += c->min_encoded_size;
				if (min > SIZE_CAP)
					min = SIZE_CAP;
				if (fixed >= 0 && c->sizes_state == 2 && c->fixed_encoded_size >= 0)
				{
					fixed += c->fixed_encoded_size;
					if (fixed > SIZE_CAP)
						fixed = -1;
				}
				else
					fixed = -1;
			}
			break;
	}
	n->fixed_encoded_size = fixed;
	n->min_encoded_size = fixed >= 0 ? fixed : min;
	n->sizes_state = 2;
}

ts_avro_schema *
ts_avro_schema_parse(const char *json, size_t len, const char *what, ts_err *err)
{
	parse_ctx	ctx;
	cJSON	   *j;
	ts_avro_schema *s;

	j = cJSON_ParseWithLength(json, len);
	if (j == NULL)
	{
		ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": writer schema is not valid JSON", what);
		return NULL;
	}
	s = ts_calloc(1, sizeof(ts_avro_schema));
	if (s == NULL)
	{
		cJSON_Delete(j);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_arena_init(&s->arena, 16 * 1024);
	memset(&ctx, 0, sizeof(ctx));
	ctx.schema = s;
	ctx.what = what;
	ctx.err = err;
	s->root = parse_node(&ctx, j, "");
	ts_free(ctx.named);
	cJSON_Delete(j);
	if (s->root == NULL)
	{
		ts_avro_schema_free(s);
		return NULL;
	}
	compute_sizes(s->root);
	return s;
}

void
ts_avro_schema_free(ts_avro_schema *s)
{
	if (s == NULL)
		return;
	ts_arena_free(&s->arena);
	ts_free(s);
}

int
ts_avro_record_field(const ts_avro_node *rec, const char *name)
{
	if (rec->kind != TS_AVRO_RECORD)
		return -1;
	for (int i = 0; i < rec->nchildren; i++)
		if (strcmp(rec->field_names[i], name) == 0)
			return i;
	return -1;
}

const ts_avro_node *
ts_avro_unwrap_nullable(const ts_avro_node *n, int *null_branch)
{
	*null_branch = -1;
	if (n->kind != TS_AVRO_UNION)
		return n;
	if (n->nchildren == 1)
		return n->children[0]->kind == TS_AVRO_NULL ? NULL : n->children[0];
	if (n->nchildren != 2)
		return NULL;
	if (n->children[0]->kind == TS_AVRO_NULL && n->children[1]->kind != TS_AVRO_NULL)
	{
		*null_branch = 0;
		return n->children[1];
	}
	if (n->children[1]->kind == TS_AVRO_NULL && n->children[0]->kind != TS_AVRO_NULL)
	{
		*null_branch = 1;
		return n->children[0];
	}
	return NULL;
}

/* ---- Avro node -> Paimon type ---------------------------------------- */

void
ts_avro_type_free(ts_type *t)
{
	if (t == NULL)
		return;
	ts_avro_type_free(t->element);
	ts_avro_type_free(t->key);
	ts_avro_type_free(t->value);
	for (int i = 0; i < t->nfields; i++)
	{
		ts_free(t->fields[i].name);
		ts_free(t->fields[i].description);
		ts_avro_type_free(t->fields[i].type);
	}
	ts_free(t->fields);
	ts_free(t);
}

static ts_type *
to_paimon(const ts_avro_node *n, int depth, ts_err *err)
{
	ts_type    *t;
	int			nb;
	const ts_avro_node *inner;
	bool		nullable = false;

	if (depth > TS_AVRO_MAX_DEPTH)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "recursive Avro record has no Paimon type");
		return NULL;
	}
	inner = ts_avro_unwrap_nullable(n, &nb);
	if (inner == NULL)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "Avro union other than [\"null\", T] has no Paimon type");
		return NULL;
	}
	if (nb >= 0)
		nullable = true;
	n = inner;
	t = ts_calloc(1, sizeof(ts_type));
	if (t == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	t->nullable = nullable;
	switch (n->kind)
	{
		case TS_AVRO_NULL:
			t->kind = TS_VARCHAR;	/* only nulls; any type will do */
			t->length = TS_STRING_LENGTH;
			t->nullable = true;
			break;
		case TS_AVRO_BOOLEAN:
			t->kind = TS_BOOLEAN;
			break;
		case TS_AVRO_INT:
			t->kind = n->logical == TS_AVRO_LT_DATE ? TS_DATE :
				n->logical == TS_AVRO_LT_TIME_MILLIS ? TS_TIME : TS_INT;
			if (t->kind == TS_TIME)
				t->precision = 3;
			break;
		case TS_AVRO_LONG:
			switch (n->logical)
			{
				case TS_AVRO_LT_TIME_MICROS:
					t->kind = TS_TIME;
					t->precision = 6;
					break;
				case TS_AVRO_LT_TIMESTAMP_MILLIS:
				case TS_AVRO_LT_TIMESTAMP_MICROS:
				case TS_AVRO_LT_TIMESTAMP_NANOS:
					t->kind = TS_TIMESTAMP;
					break;
				case TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
				case TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
				case TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS:
					t->kind = TS_TIMESTAMP_LTZ;
					break;
				default:
					t->kind = TS_BIGINT;
			}
			if (n->logical == TS_AVRO_LT_TIMESTAMP_MILLIS || n->logical == TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS)
				t->precision = 3;
			else if (n->logical == TS_AVRO_LT_TIMESTAMP_MICROS || n->logical == TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS)
				t->precision = 6;
			else if (n->logical == TS_AVRO_LT_TIMESTAMP_NANOS || n->logical == TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS)
				t->precision = 9;
			break;
		case TS_AVRO_FLOAT:
			t->kind = TS_FLOAT;
			break;
		case TS_AVRO_DOUBLE:
			t->kind = TS_DOUBLE;
			break;
		case TS_AVRO_STRING:
		case TS_AVRO_ENUM:
			t->kind = TS_VARCHAR;
			t->length = TS_STRING_LENGTH;
			break;
		case TS_AVRO_BYTES:
		case TS_AVRO_FIXED:
			if (n->logical == TS_AVRO_LT_DECIMAL)
			{
				t->kind = TS_DECIMAL;
				t->precision = n->precision;
				t->scale = n->scale;
			}
			else if (n->kind == TS_AVRO_FIXED)
			{
				t->kind = TS_BINARY;
				t->length = n->fixed_size;
			}
			else
			{
				t->kind = TS_VARBINARY;
				t->length = TS_STRING_LENGTH;
			}
			break;
		case TS_AVRO_ARRAY:
			if (n->logical == TS_AVRO_LT_MAP)
			{
				const ts_avro_node *kv = n->children[0];

				t->kind = TS_MAP;
				t->key = to_paimon(kv->children[0], depth + 1, err);
				if (t->key == NULL)
					goto fail;
				t->value = to_paimon(kv->children[1], depth + 1, err);
				if (t->value == NULL)
					goto fail;
			}
			else
			{
				t->kind = TS_ARRAY;
				t->element = to_paimon(n->children[0], depth + 1, err);
				if (t->element == NULL)
					goto fail;
			}
			break;
		case TS_AVRO_MAP:
			t->kind = TS_MAP;
			t->key = ts_calloc(1, sizeof(ts_type));
			if (t->key == NULL)
				goto nomem;
			t->key->kind = TS_VARCHAR;
			t->key->length = TS_STRING_LENGTH;
			t->value = to_paimon(n->children[0], depth + 1, err);
			if (t->value == NULL)
				goto fail;
			break;
		case TS_AVRO_RECORD:
			t->kind = TS_ROW;
			t->fields = ts_calloc(n->nchildren ? n->nchildren : 1, sizeof(ts_field));
			if (t->fields == NULL)
				goto nomem;
			t->nfields = n->nchildren;
			for (int i = 0; i < n->nchildren; i++)
			{
				t->fields[i].id = -1;
				t->fields[i].name = ts_strdup(n->field_names[i]);
				if (t->fields[i].name == NULL)
					goto nomem;
				t->fields[i].type = to_paimon(n->children[i], depth + 1, err);
				if (t->fields[i].type == NULL)
					goto fail;
			}
			break;
		case TS_AVRO_UNION:
			ts_error(err, TS_ERR_UNSUPPORTED, "nested Avro union has no Paimon type");
			goto fail;
	}
	return t;
nomem:
	ts_error_nomem(err, NULL);
fail:
	ts_avro_type_free(t);
	return NULL;
}

ts_type *
ts_avro_node_to_paimon(const ts_avro_node *n, ts_err *err)
{
	return to_paimon(n, 0, err);
}
