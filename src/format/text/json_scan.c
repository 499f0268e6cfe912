/*
 * json_scan.c - one JSON-lines object scanned in place for its top-level
 * keys, without building a tree.
 *
 * Owns: the strict scan (ts_json_scan_object) and the unescaping of the
 * strings it accepts (ts_json_unescape).  The scan accepts only what both
 * RFC 8259 and cJSON (the tree parser of json_line.c) read the same way:
 * blanks are space, tab, CR and LF; numbers have JSON's grammar and at
 * most 63 characters (json_line.c parses a double from a copy that size);
 * escapes are the eight of JSON and \uXXXX, a surrogate only as a valid
 * pair, never U+0000 (cJSON ends its C string there); no NUL byte in a
 * string; nothing after the object's closing brace; nesting at most 64
 * deep.  Anything else is deferred (the function returns false), not
 * rejected: json_line.c then parses the line with cJSON, which decides
 * whether it is valid and reports what is wrong.  So a line the scan
 * accepts is a line cJSON accepts, and the values it points at are the
 * ones cJSON would give.
 */
#include "base/ts_utf8.h"
#include "format/text/text_internal.h"

#define JSON_SCAN_MAX_DEPTH 64
#define JSON_SCAN_MAX_NUMBER 63

static inline size_t
skip_blanks(const uint8_t *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i;
}

/* The value of four hex digits at p[0..4) (bounds checked by the caller), or -1. */
static int
hex4(const uint8_t *p)
{
	int			v = 0;

	for (int k = 0; k < 4; k++)
	{
		uint8_t		c = p[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * The length of the escape at p[i] (a backslash) that the scan accepts, or
 * 0.  *cp gets the code point it stands for.
 */
static size_t
escape_length(const uint8_t *p, size_t i, size_t n, uint32_t *cp)
{
	int			hi,
				lo;

	if (i + 1 >= n)
		return 0;
	switch (p[i + 1])
	{
		case '"':
		case '\\':
		case '/':
			*cp = p[i + 1];
			return 2;
		case 'b':
			*cp = '\b';
			return 2;
		case 'f':
			*cp = '\f';
			return 2;
		case 'n':
			*cp = '\n';
			return 2;
		case 'r':
			*cp = '\r';
			return 2;
		case 't':
			*cp = '\t';
			return 2;
		case 'u':
			if (i + 6 > n || (hi = hex4(p + i + 2)) <= 0)
				return 0;
			if (hi >= 0xDC00 && hi <= 0xDFFF)
				return 0;
			if (hi < 0xD800 || hi > 0xDBFF)
			{
				*cp = (uint32_t) hi;
				return 6;
			}
			if (i + 12 > n || p[i + 6] != '\\' || p[i + 7] != 'u' ||
				(lo = hex4(p + i + 8)) < 0xDC00 || lo > 0xDFFF)
				return 0;
			*cp = 0x10000 + ((((uint32_t) hi & 0x3FF) << 10) | ((uint32_t) lo & 0x3FF));
			return 12;
		default:
			return 0;
	}
}

/*
 * The string whose opening quote is p[*i]: *i moves past its closing quote,
 * *escaped tells whether it holds an escape.  False: defer.
 */
static bool
scan_string(const uint8_t *p, size_t n, size_t *i, bool *escaped)
{
	size_t		j = *i + 1;

	*escaped = false;
	for (;;)
	{
		size_t		k = ts_text_find_bytes(p, j, n, '"', '\\', true);
		uint32_t	cp;
		size_t		e;

		if (k >= n || p[k] == 0)
			return false;
		if (p[k] == '"')
		{
			*i = k + 1;
			return true;
		}
		if ((e = escape_length(p, k, n, &cp)) == 0)
			return false;
		*escaped = true;
		j = k + e;
	}
}

static inline bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* A number of JSON's grammar at p[*i], at most JSON_SCAN_MAX_NUMBER long. */
static bool
scan_number(const uint8_t *p, size_t n, size_t *i)
{
	size_t		j = *i;

	if (j < n && p[j] == '-')
		j++;
	if (j < n && p[j] == '0')
		j++;
	else if (j < n && is_digit(p[j]))
		while (j < n && is_digit(p[j]))
			j++;
	else
		return false;
	if (j < n && p[j] == '.')
	{
		j++;
		if (j >= n || !is_digit(p[j]))
			return false;
		while (j < n && is_digit(p[j]))
			j++;
	}
	if (j < n && (p[j] == 'e' || p[j] == 'E'))
	{
		j++;
		if (j < n && (p[j] == '+' || p[j] == '-'))
			j++;
		if (j >= n || !is_digit(p[j]))
			return false;
		while (j < n && is_digit(p[j]))
			j++;
	}
	if (j - *i > JSON_SCAN_MAX_NUMBER)
		return false;
	*i = j;
	return true;
}

static bool
scan_literal(const uint8_t *p, size_t n, size_t *i, const char *word, size_t len)
{
	if (*i + len > n || memcmp(p + *i, word, len) != 0)
		return false;
	*i += len;
	return true;
}

static bool scan_value(const uint8_t *p, size_t n, size_t *i, int depth, ts_json_span *out);

/* An object or array at p[*i], its members or items scanned and left. */
static bool
scan_nested(const uint8_t *p, size_t n, size_t *i, int depth)
{
	uint8_t		close = p[*i] == '{' ? '}' : ']';
	size_t		j;

	if (depth >= JSON_SCAN_MAX_DEPTH)
		return false;
	j = skip_blanks(p, *i + 1, n);
	if (j < n && p[j] == close)
	{
		*i = j + 1;
		return true;
	}
	for (;;)
	{
		if (close == '}')
		{
			bool		escaped;

			if (j >= n || p[j] != '"' || !scan_string(p, n, &j, &escaped))
				return false;
			j = skip_blanks(p, j, n);
			if (j >= n || p[j] != ':')
				return false;
			j = skip_blanks(p, j + 1, n);
		}
		if (!scan_value(p, n, &j, depth + 1, NULL))
			return false;
		j = skip_blanks(p, j, n);
		if (j < n && p[j] == ',')
		{
			j = skip_blanks(p, j + 1, n);
			continue;
		}
		if (j < n && p[j] == close)
		{
			*i = j + 1;
			return true;
		}
		return false;
	}
}

/* One value at p[*i]; *out (when not NULL) says what and where it is. */
static bool
scan_value(const uint8_t *p, size_t n, size_t *i, int depth, ts_json_span *out)
{
	size_t		start = *i;
	ts_json_kind kind;
	bool		escaped = false;

	if (start >= n)
		return false;
	switch (p[start])
	{
		case '"':
			if (!scan_string(p, n, i, &escaped))
				return false;
			kind = TS_JSON_STRING;
			break;
		case 't':
			if (!scan_literal(p, n, i, "true", 4))
				return false;
			kind = TS_JSON_TRUE;
			break;
		case 'f':
			if (!scan_literal(p, n, i, "false", 5))
				return false;
			kind = TS_JSON_FALSE;
			break;
		case 'n':
			if (!scan_literal(p, n, i, "null", 4))
				return false;
			kind = TS_JSON_NULL;
			break;
		case '{':
		case '[':
			if (!scan_nested(p, n, i, depth))
				return false;
			kind = TS_JSON_NESTED;
			break;
		default:
			if (!scan_number(p, n, i))
				return false;
			kind = TS_JSON_NUMBER;
			break;
	}
	if (out != NULL)
	{
		out->kind = kind;
		out->escaped = escaped;
		/* a string's span is its content, without the quotes */
		out->off = (uint32_t) (kind == TS_JSON_STRING ? start + 1 : start);
		out->len = (uint32_t) (kind == TS_JSON_STRING ? *i - start - 2 : *i - start);
	}
	return true;
}

/* The column named by key[0..len), or -1; member m's column last time tried first. */
static int
key_column(ts_json_keys *keys, int m, const uint8_t *key, size_t len)
{
	int			g = m < TS_JSON_ORDER_MAX ? keys->order[m] : -1;

	if (g >= 0 && keys->lens[g] == len && memcmp(keys->names[g], key, len) == 0)
		return g;
	for (int c = 0; c < keys->n; c++)
	{
		if (keys->lens[c] == len && memcmp(keys->names[c], key, len) == 0)
		{
			if (m < TS_JSON_ORDER_MAX)
				keys->order[m] = (int16_t) c;
			return c;
		}
	}
	return -1;
}

bool
ts_json_scan_object(const uint8_t *p, size_t n, ts_json_keys *keys, ts_json_span *found)
{
	size_t		i = skip_blanks(p, 0, n);
	int			m = 0;

	for (int c = 0; c < keys->n; c++)
		found[c].kind = TS_JSON_MISSING;
	if (i >= n || p[i] != '{')
		return false;
	i = skip_blanks(p, i + 1, n);
	if (i < n && p[i] == '}')
		return skip_blanks(p, i + 1, n) == n;
	for (;; m++)
	{
		size_t		key_start = i + 1;
		bool		escaped;
		ts_json_span v;
		int			c;

		if (i >= n || p[i] != '"' || !scan_string(p, n, &i, &escaped) || escaped)
			return false;
		c = key_column(keys, m, p + key_start, i - 1 - key_start);
		i = skip_blanks(p, i, n);
		if (i >= n || p[i] != ':')
			return false;
		i = skip_blanks(p, i + 1, n);
		if (!scan_value(p, n, &i, 1, &v))
			return false;
		/* a key given twice: the last value counts (json_line.c) */
		if (c >= 0)
			found[c] = v;
		i = skip_blanks(p, i, n);
		if (i < n && p[i] == ',')
		{
			i = skip_blanks(p, i + 1, n);
			continue;
		}
		if (i < n && p[i] == '}')
			return skip_blanks(p, i + 1, n) == n;
		return false;
	}
}

size_t
ts_json_unescape(const uint8_t *s, size_t len, char *out)
{
	size_t		o = 0;

	for (size_t i = 0; i < len;)
	{
		uint32_t	cp;
		size_t		e;

		/* (the scan accepted every escape of the string: e > 0) */
		if (s[i] != '\\' || (e = escape_length(s, i, len, &cp)) == 0)
		{
			out[o++] = (char) s[i++];
			continue;
		}
		i += e;
		o += (size_t) ts_utf8_put(cp, (uint8_t *) out + o);
	}
	return o;
}
