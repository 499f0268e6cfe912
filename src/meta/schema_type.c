/*
 * schema_type.c - the Paimon type grammar (PAIMON-FORMAT.md 2).
 *
 * Owns: the type parser (atomic SQL-ish strings, case-insensitive, with
 * NOT NULL / NULL suffixes and <type> ARRAY / MULTISET suffix notation;
 * JSON objects for ARRAY/MAP/MULTISET/ROW/VECTOR with nested field ids),
 * and a schema field's JSON (ts_type_json_field, for schema.c).  Knows
 * nothing about schema files, snapshots or data files.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meta/schema_internal.h"

#define MAX_TYPE_DEPTH 64

/* ---- atomic type strings -------------------------------------------- */

typedef struct type_lexer
{
	const char *src;			/* whole text, for messages */
	const char *p;
	const char *end;
	int			depth;
} type_lexer;

static void
lex_skip_ws(type_lexer *lx)
{
	while (lx->p < lx->end && isspace((unsigned char) *lx->p))
		lx->p++;
}

/* Next identifier word (letters, digits, '_') or NULL length 0. */
static size_t
lex_peek_word(type_lexer *lx, const char **w)
{
	const char *q;

	lex_skip_ws(lx);
	q = lx->p;
	while (q < lx->end && (isalnum((unsigned char) *q) || *q == '_'))
		q++;
	*w = lx->p;
	return (size_t) (q - lx->p);
}

static bool
word_is(const char *w, size_t n, const char *kw)
{
	return strlen(kw) == n && strncasecmp(w, kw, n) == 0;
}

/* Consume the keyword if it is next. */
static bool
lex_accept(type_lexer *lx, const char *kw)
{
	const char *w;
	size_t		n = lex_peek_word(lx, &w);

	if (n > 0 && word_is(w, n, kw))
	{
		lx->p += n;
		return true;
	}
	return false;
}

static bool
lex_accept_char(type_lexer *lx, char c)
{
	lex_skip_ws(lx);
	if (lx->p < lx->end && *lx->p == c)
	{
		lx->p++;
		return true;
	}
	return false;
}

static bool
lex_int(type_lexer *lx, int32_t *out, ts_err *err)
{
	long long	v = 0;
	const char *start;

	lex_skip_ws(lx);
	start = lx->p;
	while (lx->p < lx->end && isdigit((unsigned char) *lx->p))
	{
		v = v * 10 + (*lx->p - '0');
		if (v > 2147483647LL)
			return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": number out of range", lx->src);
		lx->p++;
	}
	if (lx->p == start)
		return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected a number", lx->src);
	*out = (int32_t) v;
	return true;
}

/* Optional "(n)"; returns false on syntax error only. */
static bool
lex_opt_len(type_lexer *lx, int32_t *out, bool *given, ts_err *err)
{
	*given = false;
	if (!lex_accept_char(lx, '('))
		return true;
	if (!lex_int(lx, out, err))
		return false;
	if (!lex_accept_char(lx, ')'))
		return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected ')'", lx->src);
	*given = true;
	return true;
}

/* Skip an optional parenthesised argument list (GEOMETRY(crs) ...). */
static bool
lex_skip_parens(type_lexer *lx, ts_err *err)
{
	int			level = 0;

	if (!lex_accept_char(lx, '('))
		return true;
	level = 1;
	while (lx->p < lx->end && level > 0)
	{
		if (*lx->p == '(')
			level++;
		else if (*lx->p == ')')
			level--;
		lx->p++;
	}
	if (level != 0)
		return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": unbalanced parentheses", lx->src);
	return true;
}

static ts_type *parse_type_lx(type_lexer *lx, ts_err *err);

static ts_type *
new_type(ts_type_kind k, ts_err *err)
{
	ts_type    *t = ts_type_new(k, true);

	if (t == NULL)
		ts_error_nomem(err, "building a type");
	return t;
}

/* Parse "<name> <type>[, ...]>" after "ROW<". */
static bool
parse_row_fields_lx(type_lexer *lx, ts_type *t, ts_err *err)
{
	if (lex_accept_char(lx, '>'))
		return true;
	for (;;)
	{
		const char *w;
		size_t		n;
		ts_field   *nf;
		char	   *name;

		lex_skip_ws(lx);
		if (lx->p < lx->end && *lx->p == '`')
		{
			const char *s = ++lx->p;

			while (lx->p < lx->end && *lx->p != '`')
				lx->p++;
			if (lx->p >= lx->end)
				return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": unterminated field name", lx->src);
			name = ts_strndup(s, (size_t) (lx->p - s));
			lx->p++;
		}
		else
		{
			n = lex_peek_word(lx, &w);
			if (n == 0)
				return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected a field name", lx->src);
			name = ts_strndup(w, n);
			lx->p += n;
		}
		if (name == NULL)
			return ts_error_nomem(err, NULL);
		nf = ts_realloc(t->fields, sizeof(ts_field) * (t->nfields + 1));
		if (nf == NULL)
		{
			ts_free(name);
			return ts_error_nomem(err, NULL);
		}
		t->fields = nf;
		memset(&t->fields[t->nfields], 0, sizeof(ts_field));
		t->fields[t->nfields].id = -1;
		t->fields[t->nfields].name = name;
		t->nfields++;
		t->fields[t->nfields - 1].type = parse_type_lx(lx, err);
		if (t->fields[t->nfields - 1].type == NULL)
			return false;
		/* optional quoted description */
		lex_skip_ws(lx);
		if (lx->p < lx->end && *lx->p == '\'')
		{
			lx->p++;
			while (lx->p < lx->end && *lx->p != '\'')
				lx->p++;
			if (lx->p < lx->end)
				lx->p++;
		}
		if (lex_accept_char(lx, '>'))
			return true;
		if (!lex_accept_char(lx, ','))
			return ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected ',' or '>' in ROW", lx->src);
	}
}

/* The keyword part of a type, without nullability or suffixes. */
static ts_type *
parse_base_lx(type_lexer *lx, ts_err *err)
{
	const char *w;
	size_t		n = lex_peek_word(lx, &w);
	ts_type    *t = NULL;
	int32_t		a;
	bool		given;

	if (n == 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected a type name", lx->src);
		return NULL;
	}
	lx->p += n;

#define SIMPLE(kw, kind) if (word_is(w, n, kw)) return new_type(kind, err)
	SIMPLE("BOOLEAN", TS_BOOLEAN);
	SIMPLE("TINYINT", TS_TINYINT);
	SIMPLE("SMALLINT", TS_SMALLINT);
	SIMPLE("INT", TS_INT);
	SIMPLE("INTEGER", TS_INT);
	SIMPLE("BIGINT", TS_BIGINT);
	SIMPLE("FLOAT", TS_FLOAT);
	SIMPLE("DATE", TS_DATE);
	SIMPLE("VARIANT", TS_VARIANT);
	SIMPLE("BLOB", TS_BLOB);
#undef SIMPLE
	if (word_is(w, n, "DOUBLE"))
	{
		(void) lex_accept(lx, "PRECISION");
		return new_type(TS_DOUBLE, err);
	}
	if (word_is(w, n, "STRING") || word_is(w, n, "BYTES"))
	{
		t = new_type(word_is(w, n, "STRING") ? TS_VARCHAR : TS_VARBINARY, err);
		if (t)
			t->length = TS_STRING_LENGTH;
		return t;
	}
	if (word_is(w, n, "CHAR") || word_is(w, n, "VARCHAR") ||
		word_is(w, n, "BINARY") || word_is(w, n, "VARBINARY"))
	{
		ts_type_kind k = word_is(w, n, "CHAR") ? TS_CHAR :
			word_is(w, n, "VARCHAR") ? TS_VARCHAR :
			word_is(w, n, "BINARY") ? TS_BINARY : TS_VARBINARY;

		a = 1;
		if (!lex_opt_len(lx, &a, &given, err))
			return NULL;
		if (a < 1 && !(a == 0 && given))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": invalid length", lx->src);
			return NULL;
		}
		t = new_type(k, err);
		if (t)
			t->length = a;
		return t;
	}
	if (word_is(w, n, "DECIMAL") || word_is(w, n, "NUMERIC") || word_is(w, n, "DEC"))
	{
		int32_t		p = 10,
					s = 0;

		if (lex_accept_char(lx, '('))
		{
			if (!lex_int(lx, &p, err))
				return NULL;
			if (lex_accept_char(lx, ','))
			{
				if (!lex_int(lx, &s, err))
					return NULL;
			}
			if (!lex_accept_char(lx, ')'))
			{
				ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected ')'", lx->src);
				return NULL;
			}
		}
		if (p < 1 || p > 38 || s < 0 || s > p)
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": invalid DECIMAL precision/scale (%d, %d)",
					 lx->src, (int) p, (int) s);
			return NULL;
		}
		t = new_type(TS_DECIMAL, err);
		if (t)
		{
			t->precision = p;
			t->scale = s;
		}
		return t;
	}
	if (word_is(w, n, "TIME"))
	{
		a = 0;
		if (!lex_opt_len(lx, &a, &given, err))
			return NULL;
		if (a > 9)
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": invalid TIME precision", lx->src);
			return NULL;
		}
		if (lex_accept(lx, "WITHOUT"))
		{
			if (!lex_accept(lx, "TIME") || !lex_accept(lx, "ZONE"))
			{
				ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected WITHOUT TIME ZONE", lx->src);
				return NULL;
			}
		}
		t = new_type(TS_TIME, err);
		if (t)
			t->precision = a;
		return t;
	}
	if (word_is(w, n, "TIMESTAMP") || word_is(w, n, "TIMESTAMP_LTZ"))
	{
		ts_type_kind k = word_is(w, n, "TIMESTAMP") ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ;

		a = 6;
		if (!lex_opt_len(lx, &a, &given, err))
			return NULL;
		if (a > 9)
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": invalid TIMESTAMP precision", lx->src);
			return NULL;
		}
		if (k == TS_TIMESTAMP)
		{
			if (lex_accept(lx, "WITHOUT"))
			{
				if (!lex_accept(lx, "TIME") || !lex_accept(lx, "ZONE"))
				{
					ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected WITHOUT TIME ZONE", lx->src);
					return NULL;
				}
			}
			else if (lex_accept(lx, "WITH"))
			{
				if (!lex_accept(lx, "LOCAL") || !lex_accept(lx, "TIME") || !lex_accept(lx, "ZONE"))
				{
					ts_error(err, TS_ERR_UNSUPPORTED,
							 "type \"%s\": only TIMESTAMP WITH LOCAL TIME ZONE is supported", lx->src);
					return NULL;
				}
				k = TS_TIMESTAMP_LTZ;
			}
		}
		t = new_type(k, err);
		if (t)
			t->precision = a;
		return t;
	}
	if (word_is(w, n, "GEOMETRY") || word_is(w, n, "GEOGRAPHY"))
	{
		if (!lex_skip_parens(lx, err))
			return NULL;
		return new_type(word_is(w, n, "GEOMETRY") ? TS_GEOMETRY : TS_GEOGRAPHY, err);
	}
	if (word_is(w, n, "ARRAY") || word_is(w, n, "MULTISET"))
	{
		ts_type_kind k = word_is(w, n, "ARRAY") ? TS_ARRAY : TS_MULTISET;

		if (!lex_accept_char(lx, '<'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '<' after %s", lx->src,
					 ts_type_kind_name(k));
			return NULL;
		}
		if ((t = new_type(k, err)) == NULL)
			return NULL;
		if ((t->element = parse_type_lx(lx, err)) == NULL)
			goto fail;
		if (!lex_accept_char(lx, '>'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '>'", lx->src);
			goto fail;
		}
		return t;
	}
	if (word_is(w, n, "VECTOR"))
	{
		/* VECTOR<E, n> (Paimon 1.3 VectorType's SQL form) */
		int32_t		len = 0;

		if (!lex_accept_char(lx, '<'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '<' after VECTOR", lx->src);
			return NULL;
		}
		if ((t = new_type(TS_VECTOR, err)) == NULL)
			return NULL;
		if ((t->element = parse_type_lx(lx, err)) == NULL)
			goto fail;
		if (!lex_accept_char(lx, ',') || !lex_int(lx, &len, err) || len < 1 ||
			!lex_accept_char(lx, '>'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected VECTOR<type, length>", lx->src);
			goto fail;
		}
		t->length = len;
		return t;
	}
	if (word_is(w, n, "MAP"))
	{
		if (!lex_accept_char(lx, '<'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '<' after MAP", lx->src);
			return NULL;
		}
		if ((t = new_type(TS_MAP, err)) == NULL)
			return NULL;
		if ((t->key = parse_type_lx(lx, err)) == NULL)
			goto fail;
		if (!lex_accept_char(lx, ','))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected ',' in MAP", lx->src);
			goto fail;
		}
		if ((t->value = parse_type_lx(lx, err)) == NULL)
			goto fail;
		if (!lex_accept_char(lx, '>'))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '>'", lx->src);
			goto fail;
		}
		return t;
	}
	if (word_is(w, n, "ROW"))
	{
		if (!lex_accept_char(lx, '<') && !lex_accept_char(lx, '('))
		{
			ts_error(err, TS_ERR_CORRUPT, "type \"%s\": expected '<' after ROW", lx->src);
			return NULL;
		}
		if ((t = new_type(TS_ROW, err)) == NULL)
			return NULL;
		if (!parse_row_fields_lx(lx, t, err))
			goto fail;
		return t;
	}
	ts_error(err, TS_ERR_UNKNOWN_TYPE, "unknown Paimon type \"%.*s\" in \"%s\"", (int) n, w, lx->src);
	return NULL;
fail:
	ts_type_free(t);
	return NULL;
}

/* Nullability suffix: NOT NULL / NULL / nothing. */
static void
parse_nullability(type_lexer *lx, ts_type *t)
{
	const char *save = lx->p;

	if (lex_accept(lx, "NOT"))
	{
		if (lex_accept(lx, "NULL"))
		{
			t->nullable = false;
			return;
		}
		lx->p = save;
		return;
	}
	if (lex_accept(lx, "NULL"))
		t->nullable = true;
}

static ts_type *
parse_type_lx(type_lexer *lx, ts_err *err)
{
	ts_type    *t;

	if (++lx->depth > MAX_TYPE_DEPTH)
	{
		ts_error(err, TS_ERR_CORRUPT, "type \"%s\": nested too deeply", lx->src);
		return NULL;
	}
	t = parse_base_lx(lx, err);
	if (t == NULL)
		return NULL;
	parse_nullability(lx, t);
	for (;;)
	{
		ts_type_kind k;
		ts_type    *outer;

		if (lex_accept(lx, "ARRAY"))
			k = TS_ARRAY;
		else if (lex_accept(lx, "MULTISET"))
			k = TS_MULTISET;
		else
			break;
		outer = new_type(k, err);
		if (outer == NULL)
		{
			ts_type_free(t);
			return NULL;
		}
		outer->element = t;
		t = outer;
		parse_nullability(lx, t);
	}
	lx->depth--;
	return t;
}

/* Parse an atomic (or SQL-spelled nested) type string completely. */
static ts_type *
parse_type_string(const char *text, size_t len, ts_err *err)
{
	type_lexer	lx;
	ts_type    *t;
	char		shown[200];

	snprintf(shown, sizeof(shown), "%.*s", (int) (len < 190 ? len : 190), text);
	lx.src = shown;
	lx.p = text;
	lx.end = text + len;
	lx.depth = 0;
	t = parse_type_lx(&lx, err);
	if (t == NULL)
		return NULL;
	lex_skip_ws(&lx);
	if (lx.p != lx.end)
	{
		ts_error(err, TS_ERR_UNKNOWN_TYPE, "unknown Paimon type \"%s\" (unexpected \"%.*s\")",
				 shown, (int) (lx.end - lx.p), lx.p);
		ts_type_free(t);
		return NULL;
	}
	return t;
}

/* ---- JSON types ------------------------------------------------------ */

static ts_type *json_type(const cJSON *j, int depth, ts_err *err);

static bool
json_field(const cJSON *j, ts_field *f, int depth, ts_err *err)
{
	const cJSON *id,
			   *name,
			   *type,
			   *desc;

	f->id = -1;
	if (!cJSON_IsObject(j))
		return ts_error(err, TS_ERR_CORRUPT, "a field is not a JSON object");
	id = cJSON_GetObjectItemCaseSensitive(j, "id");
	name = cJSON_GetObjectItemCaseSensitive(j, "name");
	type = cJSON_GetObjectItemCaseSensitive(j, "type");
	desc = cJSON_GetObjectItemCaseSensitive(j, "description");
	if (!cJSON_IsString(name) || name->valuestring == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "a field has no \"name\"");
	if ((f->name = ts_strdup(name->valuestring)) == NULL)
		return ts_error_nomem(err, NULL);
	if (id != NULL && !cJSON_IsNull(id))
	{
		int64_t		v;

		if (!ts_json_item_int64(id, &v) || v < INT32_MIN || v > INT32_MAX)
			return ts_error(err, TS_ERR_CORRUPT, "field \"%s\": invalid \"id\"", f->name);
		f->id = (int32_t) v;
	}
	if (cJSON_IsString(desc) && desc->valuestring &&
		(f->description = ts_strdup(desc->valuestring)) == NULL)
		return ts_error_nomem(err, NULL);
	if (type == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "field \"%s\" has no \"type\"", f->name);
	f->type = json_type(type, depth + 1, err);
	if (f->type == NULL)
		return ts_error_context(err, "field \"%s\"", f->name);
	return true;
}

static ts_type *
json_type(const cJSON *j, int depth, ts_err *err)
{
	const cJSON *tn;
	type_lexer	lx;
	const char *w;
	size_t		n;
	ts_type    *t = NULL;

	if (depth > MAX_TYPE_DEPTH)
	{
		ts_error(err, TS_ERR_CORRUPT, "type nested too deeply");
		return NULL;
	}
	if (cJSON_IsString(j) && j->valuestring)
		return parse_type_string(j->valuestring, strlen(j->valuestring), err);
	if (!cJSON_IsObject(j))
	{
		ts_error(err, TS_ERR_CORRUPT, "a type is neither a string nor an object");
		return NULL;
	}
	tn = cJSON_GetObjectItemCaseSensitive(j, "type");
	if (!cJSON_IsString(tn) || tn->valuestring == NULL)
	{
		ts_error(err, TS_ERR_CORRUPT, "a nested type has no \"type\" string");
		return NULL;
	}
	lx.src = tn->valuestring;
	lx.p = tn->valuestring;
	lx.end = tn->valuestring + strlen(tn->valuestring);
	lx.depth = 0;
	n = lex_peek_word(&lx, &w);
	lx.p += n;
	if (word_is(w, n, "ARRAY") || word_is(w, n, "MULTISET") || word_is(w, n, "VECTOR"))
	{
		ts_type_kind k = word_is(w, n, "ARRAY") ? TS_ARRAY :
			word_is(w, n, "MULTISET") ? TS_MULTISET : TS_VECTOR;
		const cJSON *el = cJSON_GetObjectItemCaseSensitive(j, "element");

		if ((t = new_type(k, err)) == NULL)
			return NULL;
		if (el == NULL)
		{
			ts_error(err, TS_ERR_CORRUPT, "%s type without \"element\"", ts_type_kind_name(k));
			goto fail;
		}
		if ((t->element = json_type(el, depth + 1, err)) == NULL)
			goto fail;
		if (k == TS_VECTOR)
		{
			int64_t		len = 0;

			if (!ts_json_item_int64(cJSON_GetObjectItemCaseSensitive(j, "length"), &len) ||
				len < 1 || len > INT32_MAX)
			{
				ts_error(err, TS_ERR_CORRUPT, "VECTOR type without a valid \"length\"");
				goto fail;
			}
			t->length = (int32_t) len;
		}
	}
	else if (word_is(w, n, "MAP"))
	{
		const cJSON *kj = cJSON_GetObjectItemCaseSensitive(j, "key");
		const cJSON *vj = cJSON_GetObjectItemCaseSensitive(j, "value");

		if ((t = new_type(TS_MAP, err)) == NULL)
			return NULL;
		if (kj == NULL || vj == NULL)
		{
			ts_error(err, TS_ERR_CORRUPT, "MAP type without \"key\"/\"value\"");
			goto fail;
		}
		if ((t->key = json_type(kj, depth + 1, err)) == NULL ||
			(t->value = json_type(vj, depth + 1, err)) == NULL)
			goto fail;
	}
	else if (word_is(w, n, "ROW"))
	{
		const cJSON *fj = cJSON_GetObjectItemCaseSensitive(j, "fields");
		int			nf;

		if ((t = new_type(TS_ROW, err)) == NULL)
			return NULL;
		if (!cJSON_IsArray(fj))
		{
			ts_error(err, TS_ERR_CORRUPT, "ROW type without \"fields\" array");
			goto fail;
		}
		nf = cJSON_GetArraySize(fj);
		if (nf > 0)
		{
			const cJSON *it;
			int			i = 0;

			t->fields = ts_calloc(nf, sizeof(ts_field));
			if (t->fields == NULL)
			{
				ts_error_nomem(err, NULL);
				goto fail;
			}
			t->nfields = nf;
			cJSON_ArrayForEach(it, fj)
			{
				if (i >= nf)
					break;
				if (!json_field(it, &t->fields[i], depth, err))
					goto fail;
				i++;
			}
		}
	}
	else
	{
		ts_error(err, TS_ERR_UNKNOWN_TYPE, "unknown Paimon nested type \"%s\"", tn->valuestring);
		return NULL;
	}
	parse_nullability(&lx, t);
	lex_skip_ws(&lx);
	if (lx.p != lx.end)
	{
		ts_error(err, TS_ERR_UNKNOWN_TYPE, "unknown Paimon nested type \"%s\"", tn->valuestring);
		goto fail;
	}
	return t;
fail:
	ts_type_free(t);
	return NULL;
}

ts_type *
ts_type_parse(const char *text, ts_err *err)
{
	const char *p = text;
	size_t		len;

	if (text == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "no type given");
		return NULL;
	}
	len = strlen(text);
	while (*p && isspace((unsigned char) *p))
		p++;
	if (*p == '{' || *p == '"')
	{
		cJSON	   *j = ts_json_parse(text, len, "type", err);
		ts_type    *t;

		if (j == NULL)
			return NULL;
		t = json_type(j, 0, err);
		cJSON_Delete(j);
		return t;
	}
	return parse_type_string(text, len, err);
}

bool
ts_type_json_field(const cJSON *j, ts_field *f, int depth, ts_err *err)
{
	return json_field(j, f, depth, err);
}
