/*
 * json_line.c - one JSON-lines object into a row of the requested columns.
 *
 * Owns: matching columns to the object's keys by NAME (case-sensitive; a
 * missing key or JSON null is NULL; of a key given twice the last value
 * counts, as in the ObjectNode Java's Jackson reads a line into; so for a
 * ROW's fields; a MAP keeps the last entry of a key, as Java's HashMap),
 * and converting JSON values into the columns' Paimon types.
 * A line is first scanned in place (json_scan.c): no tree, no allocation,
 * strings used where they lie, members of keys not requested passed over.
 * A value of a nested column (or an object or array given to a scalar
 * column) then goes through cJSON's tree of that value alone.  A line the
 * scan defers is parsed whole by cJSON, as it always was.  Both paths
 * convert a value by the same functions, so a line gives the same values
 * and the same errors either way.
 *
 * Numbers keep their exact text: cJSON only offers a double, so the tree
 * path also tokenises the line and pairs the k-th number item of the tree
 * (in document order) with the k-th number token; BIGINT and DECIMAL are
 * parsed from that text, never through a double.
 *
 * Conversions (Jackson-like, stricter on overflow): BOOLEAN from true/
 * false, numbers (!= 0) or the string "true"; integers from integral
 * numbers or numeric strings (1e3 and 2.0 are integral; a fraction such as
 * 3.7 or out of range is malformed, where Java's asInt truncates);
 * FLOAT/DOUBLE/DECIMAL from numbers or strings; strings from any scalar's
 * text (objects/arrays as compact JSON); BINARY from base64 strings;
 * DATE/TIME/TIMESTAMP from strings (text_value.h forms); nested objects
 * and arrays into ROW / ARRAY / MULTISET / MAP.  MAP keys are object keys
 * (never null in JSON text).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "base/ts_hash_index.h"
#include "base/ts_type_class.h"
#include "format/text/text_internal.h"

#define JSON_MAX_DEPTH 200

struct json_num_span
{
	uint32_t	off;
	uint32_t	len;
};

/* A scalar value as both paths see it. */
typedef struct json_scalar
{
	ts_json_kind kind;			/* TS_JSON_FALSE .. TS_JSON_STRING */
	const char *s;				/* a number's or a string's text */
	size_t		len;
	double		num;			/* a number's value (cJSON's valuedouble) */
	bool		num_known;		/* num set; else scalar_number computes it */
} json_scalar;

bool
ts_json_line_init(ts_json_line *jl, const ts_read_column *cols, int ncols, ts_arena *arena,
				  ts_err *err)
{
	memset(jl, 0, sizeof(*jl));
	jl->cols = cols;
	jl->ncols = ncols;
	jl->arena = arena;
	jl->key_names = ts_malloc(sizeof(char *) * (ncols > 0 ? ncols : 1));
	jl->key_lens = ts_malloc(sizeof(size_t) * (ncols > 0 ? ncols : 1));
	jl->key_of = ts_malloc(sizeof(int) * (ncols > 0 ? ncols : 1));
	jl->found = ts_malloc(sizeof(ts_json_span) * (ncols > 0 ? ncols : 1));
	if (jl->key_names == NULL || jl->key_lens == NULL || jl->key_of == NULL || jl->found == NULL)
		return ts_error_nomem(err, NULL);
	/* a name asked by two columns is one key, read for both */
	for (int c = 0; c < ncols; c++)
	{
		int			k = 0;

		while (k < jl->keys.n && strcmp(jl->key_names[k], cols[c].name) != 0)
			k++;
		if (k == jl->keys.n)
		{
			jl->key_names[k] = cols[c].name;
			jl->key_lens[k] = strlen(cols[c].name);
			jl->keys.n++;
		}
		jl->key_of[c] = k;
	}
	jl->keys.names = jl->key_names;
	jl->keys.lens = jl->key_lens;
	for (int m = 0; m < TS_JSON_ORDER_MAX; m++)
		jl->keys.order[m] = -1;
	return true;
}

void
ts_json_line_free(ts_json_line *jl)
{
	ts_free(jl->key_names);
	ts_free(jl->key_lens);
	ts_free(jl->key_of);
	ts_free(jl->found);
	ts_free(jl->spans);
	memset(jl, 0, sizeof(*jl));
}

/* ---- scalars: both paths ---------------------------------------------- */

static bool
mismatch(ts_err *err, const ts_type *t, const char *what)
{
	return ts_error(err, TS_ERR_CORRUPT, "expected a %s value, found %s", ts_type_kind_name(t->kind), what);
}

static const char *
scalar_kind(ts_json_kind kind)
{
	switch (kind)
	{
		case TS_JSON_FALSE:
		case TS_JSON_TRUE:
			return "a boolean";
		case TS_JSON_NUMBER:
			return "a number";
		case TS_JSON_STRING:
			return "a string";
		default:
			return "an invalid value";
	}
}

/* A number's double, as cJSON's strtod gives it (the scan's at first use). */
static double
scalar_number(const json_scalar *v)
{
	char		num[64];		/* the scan takes numbers of at most 63 characters */
	size_t		len = v->len < sizeof(num) ? v->len : sizeof(num) - 1;

	if (v->num_known)
		return v->num;
	memcpy(num, v->s, len);
	num[len] = '\0';
	return strtod(num, NULL);
}

static bool
convert_scalar(ts_json_line *jl, const json_scalar *v, const ts_type *t, ts_value *out, ts_err *err)
{
	const char *s = v->s;
	size_t		len = v->len;
	double		num;
	bool		is_bool = v->kind == TS_JSON_TRUE || v->kind == TS_JSON_FALSE;

	switch (t->kind)
	{
		case TS_BOOLEAN:
			if (is_bool)
				out->v.i = v->kind == TS_JSON_TRUE;
			else if (v->kind == TS_JSON_NUMBER)
				out->v.i = scalar_number(v) != 0;
			else
				out->v.i = len == 4 && strncasecmp(s, "true", 4) == 0;
			return true;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (is_bool)
			{
				out->v.i = v->kind == TS_JSON_TRUE;
				return true;
			}
			/* digits only: a fraction is malformed, not dropped (3.7 is no INT) */
			while (len > 0 && (*s == ' ' || *s == '\t'))
			{
				s++;
				len--;
			}
			while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
				len--;
			if (ts_text_parse_value(s, len, t, TS_TEXT_CSV, NULL, out, err))
				return true;
			/* 1e3, 2.0 and friends: accept when integral and in range */
			if (v->kind == TS_JSON_NUMBER && isfinite(num = scalar_number(v)) &&
				num == floor(num) && fabs(num) < 9.0e15)
			{
				char		buf[32];

				snprintf(buf, sizeof(buf), "%.0f", num);
				return ts_text_parse_value(buf, strlen(buf), t, TS_TEXT_CAST, NULL, out, err);
			}
			return false;
		case TS_FLOAT:
		case TS_DOUBLE:
		case TS_DECIMAL:
		case TS_DATE:
		case TS_TIME:
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
		case TS_BINARY:
		case TS_VARBINARY:
			if (is_bool)
				return mismatch(err, t, scalar_kind(v->kind));
			if (v->kind == TS_JSON_NUMBER && t->kind != TS_FLOAT && t->kind != TS_DOUBLE &&
				t->kind != TS_DECIMAL)
				return mismatch(err, t, "a number");
			return ts_text_parse_value(s, len, t, TS_TEXT_CAST, jl->arena, out, err);
		case TS_CHAR:
		case TS_VARCHAR:
			if (is_bool)
			{
				s = v->kind == TS_JSON_TRUE ? "true" : "false";
				len = strlen(s);
			}
			return ts_text_parse_value(s, len, t, TS_TEXT_CAST, jl->arena, out, err);
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "type %s cannot be read from JSON",
							ts_type_kind_name(t->kind));
	}
}

/* ---- the tree path (cJSON) --------------------------------------------- */

/* Record the spans of number tokens outside strings, in document order. */
static bool
collect_numbers(ts_json_line *jl, const char *p, size_t n, ts_err *err)
{
	size_t		i = 0;

	jl->nspans = 0;
	jl->line = p;
	while (i < n)
	{
		char		c = p[i];

		if (c == '"')
		{
			i++;
			while (i < n && p[i] != '"')
				i += (p[i] == '\\') ? 2 : 1;
			i++;
		}
		else if (c == '-' || (c >= '0' && c <= '9'))
		{
			size_t		st = i;

			while (i < n && (p[i] == '-' || p[i] == '+' || p[i] == '.' || p[i] == 'e' ||
							 p[i] == 'E' || (p[i] >= '0' && p[i] <= '9')))
				i++;
			if (jl->nspans == jl->cap_spans)
			{
				int			nc = jl->cap_spans ? jl->cap_spans * 2 : 64;
				struct json_num_span *ns = ts_realloc(jl->spans, sizeof(*ns) * nc);

				if (ns == NULL)
					return ts_error_nomem(err, NULL);
				jl->spans = ns;
				jl->cap_spans = nc;
			}
			jl->spans[jl->nspans].off = (uint32_t) st;
			jl->spans[jl->nspans].len = (uint32_t) (i - st);
			jl->nspans++;
		}
		else
			i++;
	}
	return true;
}

/* Number the number items in document order (stored in valueint). */
static void
index_numbers(cJSON *item, int *k)
{
	for (; item; item = item->next)
	{
		if (cJSON_IsNumber(item))
			item->valueint = (*k)++;
		else if (item->child)
			index_numbers(item->child, k);
	}
}

static const char *
json_kind(const cJSON *item)
{
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "an invalid value";
}

/* A scalar item as json_scalar; false for an array, an object or a bad item. */
static bool
tree_scalar(const ts_json_line *jl, const cJSON *item, json_scalar *v)
{
	memset(v, 0, sizeof(*v));
	if (cJSON_IsBool(item))
		v->kind = cJSON_IsTrue(item) ? TS_JSON_TRUE : TS_JSON_FALSE;
	else if (cJSON_IsString(item) && item->valuestring)
	{
		v->kind = TS_JSON_STRING;
		v->s = item->valuestring;
		v->len = strlen(item->valuestring);
	}
	else if (cJSON_IsNumber(item))
	{
		if (item->valueint < 0 || item->valueint >= jl->nspans)
			return false;
		v->kind = TS_JSON_NUMBER;
		v->s = jl->line + jl->spans[item->valueint].off;
		v->len = jl->spans[item->valueint].len;
		v->num = item->valuedouble;
		v->num_known = true;
	}
	else
		return false;
	return true;
}

/* A key looked for among a MAP's key strings (ts_hash_index_eq). */
typedef struct map_keys
{
	const char **keys;
	const char *want;
} map_keys;

static bool
same_key(void *arg, int32_t pos)
{
	const map_keys *mk = arg;

	return strcmp(mk->keys[pos], mk->want) == 0;
}

/*
 * A MAP of a key given twice keeps its last entry, where that entry stands
 * (Java puts every entry into a HashMap); keys compared as the object's key
 * strings.  items holds *n entries, one per member of object, in order.
 */
static bool
map_keep_last(ts_json_line *jl, const cJSON *object, ts_value *items, int *n, ts_err *err)
{
	map_keys	mk;
	bool	   *later;			/* the key comes again after this entry */
	ts_hash_index ix;
	int			kept = 0;
	int			i = 0;
	const cJSON *e;

	if (*n < 2)
		return true;
	mk.keys = ts_arena_alloc(jl->arena, sizeof(char *) * *n);
	later = ts_arena_alloc(jl->arena, sizeof(bool) * *n);
	if (mk.keys == NULL || later == NULL)
		return ts_error_nomem(err, NULL);
	cJSON_ArrayForEach(e, object)
		mk.keys[i++] = e->string;
	ts_hash_index_init(&ix);
	for (i = *n - 1; i >= 0; i--)
	{
		uint64_t	h = ts_hash_bytes(TS_HASH_SEED, mk.keys[i], strlen(mk.keys[i]));

		mk.want = mk.keys[i];
		later[i] = ts_hash_index_find(&ix, h, same_key, &mk) >= 0;
		if (!later[i] && !ts_hash_index_add(&ix, h, i, err))
		{
			ts_hash_index_free(&ix);
			return false;
		}
	}
	ts_hash_index_free(&ix);
	for (i = 0; i < *n; i++)
	{
		if (later[i])
			continue;
		items[2 * kept] = items[2 * i];
		items[2 * kept + 1] = items[2 * i + 1];
		kept++;
	}
	*n = kept;
	return true;
}

/* The last member of object named name (Jackson keeps the last of a key given twice). */
static const cJSON *
last_member(const cJSON *object, const char *name)
{
	const cJSON *found = NULL;

	for (const cJSON *e = object->child; e != NULL; e = e->next)
		if (e->string != NULL && strcmp(e->string, name) == 0)
			found = e;
	return found;
}

static bool
tree_convert(ts_json_line *jl, const cJSON *item, const ts_type *t, ts_value *out,
			 int depth, ts_err *err)
{
	json_scalar v;

	memset(out, 0, sizeof(*out));
	if (item == NULL || cJSON_IsNull(item))
	{
		out->isnull = true;
		return true;
	}
	if (depth > JSON_MAX_DEPTH)
		return ts_error(err, TS_ERR_CORRUPT, "JSON nested too deeply");
	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_MULTISET:
			{
				int			n = cJSON_GetArraySize(item);
				int			i = 0;
				const cJSON *e;

				if (!cJSON_IsArray(item))
					return mismatch(err, t, json_kind(item));
				out->v.nested.n = n;
				out->v.nested.items = ts_arena_alloc(jl->arena, sizeof(ts_value) * (n > 0 ? n : 1));
				if (out->v.nested.items == NULL)
					return ts_error_nomem(err, NULL);
				cJSON_ArrayForEach(e, item)
				{
					if (i >= n)
						return ts_error(err, TS_ERR_CORRUPT, "array size changed");
					if (!tree_convert(jl, e, t->element, &out->v.nested.items[i++], depth + 1, err))
						return false;
				}
				return true;
			}
		case TS_MAP:
			{
				int			n = cJSON_GetArraySize(item);
				int			i = 0;
				const cJSON *e;

				if (!cJSON_IsObject(item))
					return mismatch(err, t, json_kind(item));
				out->v.nested.items = ts_arena_alloc(jl->arena, sizeof(ts_value) * 2 * (n > 0 ? n : 1));
				if (out->v.nested.items == NULL)
					return ts_error_nomem(err, NULL);
				cJSON_ArrayForEach(e, item)
				{
					ts_value   *kv = &out->v.nested.items[2 * i];

					if (i >= n)
						return ts_error(err, TS_ERR_CORRUPT, "object size changed");
					if (e->string == NULL)
						return ts_error(err, TS_ERR_CORRUPT, "map key is null and json.map-null-key-mode is FAIL");
					if (!ts_text_parse_value(e->string, strlen(e->string), t->key, TS_TEXT_CAST,
											 jl->arena, &kv[0], err) ||
						!tree_convert(jl, e, t->value, &kv[1], depth + 1, err))
						return false;
					i++;
				}
				out->v.nested.n = i;
				return map_keep_last(jl, item, out->v.nested.items, &out->v.nested.n, err);
			}
		case TS_ROW:
			if (!cJSON_IsObject(item))
				return mismatch(err, t, json_kind(item));
			out->v.nested.n = t->nfields;
			out->v.nested.items = ts_arena_alloc(jl->arena, sizeof(ts_value) * (t->nfields > 0 ? t->nfields : 1));
			if (out->v.nested.items == NULL)
				return ts_error_nomem(err, NULL);
			for (int f = 0; f < t->nfields; f++)
			{
				const cJSON *fv = last_member(item, t->fields[f].name);

				if (!tree_convert(jl, fv, t->fields[f].type, &out->v.nested.items[f], depth + 1, err))
				{
					ts_error_context(err, "field \"%s\"", t->fields[f].name);
					return false;
				}
			}
			return true;
		case TS_CHAR:
		case TS_VARCHAR:
			if (cJSON_IsArray(item) || cJSON_IsObject(item))
			{
				char	   *txt = cJSON_PrintUnformatted(item);
				bool		ok;

				if (txt == NULL)
					return ts_error_nomem(err, NULL);
				ok = ts_text_parse_value(txt, strlen(txt), t, TS_TEXT_CAST, jl->arena, out, err);
				cJSON_free(txt);
				return ok;
			}
			break;
		default:
			break;
	}
	if (!ts_type_is_plain_scalar(t->kind))
		return ts_error(err, TS_ERR_UNSUPPORTED, "type %s cannot be read from JSON",
						ts_type_kind_name(t->kind));
	if (!tree_scalar(jl, item, &v))
		return mismatch(err, t, json_kind(item));
	return convert_scalar(jl, &v, t, out, err);
}

static bool
tree_line(ts_json_line *jl, const uint8_t *line, size_t len, ts_value *row, ts_err *err)
{
	cJSON	   *root;
	int			k = 0;
	bool		ok = true;

	jl->tree_lines++;
	if (!collect_numbers(jl, (const char *) line, len, err))
		return false;
	root = cJSON_ParseWithLength((const char *) line, len);
	if (root == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "invalid JSON");
	if (!cJSON_IsObject(root))
	{
		ts_error(err, TS_ERR_CORRUPT, "expected a JSON object, found %s", json_kind(root));
		cJSON_Delete(root);
		return false;
	}
	index_numbers(root->child, &k);
	for (int c = 0; c < jl->ncols && ok; c++)
	{
		const cJSON *item = last_member(root, jl->cols[c].name);

		if (!tree_convert(jl, item, jl->cols[c].type, &row[c], 0, err))
		{
			ts_error_context(err, "column \"%s\"", jl->cols[c].name);
			ok = false;
		}
	}
	cJSON_Delete(root);
	return ok;
}

/* ---- the scan path ----------------------------------------------------- */

/* The span's value as json_scalar: a string unescaped, a number's double. */
static bool
span_scalar(ts_json_line *jl, const uint8_t *line, const ts_json_span *sp, json_scalar *v,
			ts_err *err)
{
	v->kind = sp->kind;
	v->s = (const char *) line + sp->off;
	v->len = sp->len;
	v->num = 0;
	v->num_known = false;
	if (sp->kind == TS_JSON_STRING && sp->escaped)
	{
		char	   *buf = ts_arena_alloc(jl->arena, sp->len > 0 ? sp->len : 1);

		if (buf == NULL)
			return ts_error_nomem(err, NULL);
		v->len = ts_json_unescape(line + sp->off, sp->len, buf);
		v->s = buf;
	}
	return true;
}

/*
 * A value the scan found, of a nested column or itself an object or an
 * array, through cJSON's tree of that value alone: the subtree the line's
 * tree would hold there (the scan took the line as strict JSON), its
 * numbers paired with the value's number tokens.
 */
static bool
span_tree(ts_json_line *jl, const uint8_t *line, const ts_json_span *sp, const ts_type *t,
		  ts_value *out, ts_err *err)
{
	const char *p = (const char *) line + sp->off;
	size_t		len = sp->len;
	cJSON	   *root;
	int			k = 0;
	bool		ok;

	if (sp->kind == TS_JSON_STRING)
	{
		p--;					/* the string with its quotes */
		len += 2;
	}
	if (!collect_numbers(jl, p, len, err))
		return false;
	root = cJSON_ParseWithLength(p, len);
	if (root == NULL)			/* valid JSON: only memory fails */
		return ts_error_nomem(err, NULL);
	index_numbers(root, &k);
	ok = tree_convert(jl, root, t, out, 0, err);
	cJSON_Delete(root);
	return ok;
}

/*
 * The line through the scan: 1 converted, -1 failed (err set), 0 deferred
 * to the tree parser.
 */
static int
scan_line(ts_json_line *jl, const uint8_t *line, size_t len, ts_value *row, ts_err *err)
{
	if (!ts_json_scan_object(line, len, &jl->keys, jl->found))
		return 0;
	for (int c = 0; c < jl->ncols; c++)
	{
		const ts_json_span *sp = &jl->found[jl->key_of[c]];
		const ts_type *t = jl->cols[c].type;
		json_scalar v;
		bool		ok;

		memset(&row[c], 0, sizeof(ts_value));
		if (sp->kind == TS_JSON_MISSING || sp->kind == TS_JSON_NULL)
		{
			row[c].isnull = true;
			continue;
		}
		if (sp->kind == TS_JSON_NESTED || !ts_type_is_plain_scalar(t->kind))
			ok = span_tree(jl, line, sp, t, &row[c], err);
		else
			ok = span_scalar(jl, line, sp, &v, err) && convert_scalar(jl, &v, t, &row[c], err);
		if (!ok)
		{
			ts_error_context(err, "column \"%s\"", jl->cols[c].name);
			return -1;
		}
	}
	return 1;
}

bool
ts_json_line_read(ts_json_line *jl, const uint8_t *line, size_t len, ts_value *row, ts_err *err)
{
	if (!jl->tree_only)
	{
		int			done = scan_line(jl, line, len, row, err);

		if (done != 0)
			return done > 0;
	}
	return tree_line(jl, line, len, row, err);
}
