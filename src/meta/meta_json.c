/*
 * meta_json.c - cJSON helpers for metadata parsing (see meta_json.h).
 */
#include "meta/meta_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Copy the JSON text, wrapping every integer literal with 16 or more
 * digits in quotes so that cJSON keeps its exact text.  Strings (with
 * escapes) are copied verbatim.
 */
static char *
quote_big_ints(const char *src, size_t len)
{
	ts_buf		b;
	size_t		i = 0;

	ts_buf_init(&b);
	if (!ts_buf_reserve(&b, len + 64, NULL))
		return NULL;
	while (i < len)
	{
		char		c = src[i];

		if (c == '"')
		{
			size_t		j = i + 1;

			while (j < len && src[j] != '"')
				j += (src[j] == '\\') ? 2 : 1;
			if (j >= len)
				j = len - 1;
			if (!ts_buf_append(&b, src + i, j - i + 1, NULL))
				goto oom;
			i = j + 1;
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9'))
		{
			size_t		j = i + (c == '-' ? 1 : 0);
			size_t		ndigits = 0;
			bool		integral = true;
			size_t		k;

			while (j < len && src[j] >= '0' && src[j] <= '9')
			{
				j++;
				ndigits++;
			}
			k = j;
			while (k < len && (src[k] == '.' || src[k] == 'e' || src[k] == 'E' ||
							   src[k] == '+' || src[k] == '-' ||
							   (src[k] >= '0' && src[k] <= '9')))
			{
				integral = false;
				k++;
			}
			if (integral && ndigits >= 16 && ndigits <= 20)
			{
				if (!ts_buf_append(&b, "\"", 1, NULL) ||
					!ts_buf_append(&b, src + i, j - i, NULL) ||
					!ts_buf_append(&b, "\"", 1, NULL))
					goto oom;
			}
			else if (!ts_buf_append(&b, src + i, k - i, NULL))
				goto oom;
			i = k;
			continue;
		}
		if (!ts_buf_append(&b, &c, 1, NULL))
			goto oom;
		i++;
	}
	if (!ts_buf_append(&b, "", 1, NULL))
		goto oom;
	return (char *) b.data;
oom:
	ts_buf_free(&b);
	return NULL;
}

cJSON *
ts_json_parse(const char *json, size_t len, const char *what, ts_err *err)
{
	char	   *text;
	cJSON	   *root;

	/*
	 * cJSON allocates with its default malloc (no global hooks: other code
	 * may use cJSON too); every tree is deleted before returning.
	 */
	if (json == NULL)
	{
		ts_error(err, TS_ERR_CORRUPT, "%s: no JSON text", what);
		return NULL;
	}
	text = quote_big_ints(json, len);
	if (text == NULL)
	{
		ts_error_nomemf(err, "parsing the JSON of %s", what);
		return NULL;
	}
	root = cJSON_ParseWithLength(text, strlen(text));
	if (root == NULL)
	{
		const char *at = cJSON_GetErrorPtr();
		long		off = (at && at >= text && at <= text + strlen(text)) ? (long) (at - text) : -1;

		ts_error(err, TS_ERR_CORRUPT, "%s: invalid JSON (near byte %ld)", what, off);
	}
	ts_free(text);
	return root;
}

bool
ts_json_item_int64(const cJSON *item, int64_t *out)
{
	if (item == NULL)
		return false;
	if (cJSON_IsNumber(item))
	{
		double		d = item->valuedouble;

		if (!isfinite(d) || d != floor(d) || d < -9007199254740992.0 || d > 9007199254740992.0)
			return false;
		*out = (int64_t) d;
		return true;
	}
	if (cJSON_IsString(item) && item->valuestring != NULL)
	{
		char	   *end;
		long long	v;
		const char *s = item->valuestring;

		if (*s == '\0')
			return false;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno != 0 || *end != '\0')
			return false;
		*out = (int64_t) v;
		return true;
	}
	return false;
}

bool
ts_json_int64(const cJSON *obj, const char *key, int64_t *out, const char *what, ts_err *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (item == NULL || cJSON_IsNull(item))
		return false;
	if (!ts_json_item_int64(item, out))
		return ts_error(err, TS_ERR_CORRUPT, "%s: \"%s\" is not an integer", what, key);
	return true;
}

bool
ts_json_string(const cJSON *obj, const char *key, const char **out, const char *what, ts_err *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (item == NULL || cJSON_IsNull(item))
		return false;
	if (!cJSON_IsString(item) || item->valuestring == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "%s: \"%s\" is not a string", what, key);
	*out = item->valuestring;
	return true;
}
