/*
 * text_options.c - looking up Paimon CSV/JSON option keys in
 * ts_reader_options' key/value pairs.
 *
 * Owns: option lookup with fallback keys (Paimon's withFallbackKeys),
 * boolean and single-character option parsing, and their error messages.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/text/text_internal.h"

const char *
ts_text_option(const ts_reader_options *o, const char *const *keys)
{
	if (o == NULL || o->ntext_options <= 0 || o->text_option_keys == NULL ||
		o->text_option_values == NULL)
		return NULL;
	for (int k = 0; keys[k]; k++)
	{
		/* later pairs win */
		for (int i = o->ntext_options - 1; i >= 0; i--)
		{
			if (o->text_option_keys[i] && strcmp(o->text_option_keys[i], keys[k]) == 0)
				return o->text_option_values[i];
		}
	}
	return NULL;
}

bool
ts_text_option_bool(const ts_reader_options *o, const char *const *keys,
					bool def, bool *out, ts_err *err)
{
	const char *v = ts_text_option(o, keys);

	*out = def;
	if (v == NULL)
		return true;
	if (strcasecmp(v, "true") == 0)
		*out = true;
	else if (strcasecmp(v, "false") == 0)
		*out = false;
	else
		return ts_error(err, TS_ERR_INVALID, "invalid value \"%s\" for option \"%s\": expected true or false",
						v, keys[0]);
	return true;
}

bool
ts_text_option_char(const ts_reader_options *o, const char *const *keys,
					char def, char *out, ts_err *err)
{
	const char *v = ts_text_option(o, keys);

	*out = def;
	if (v == NULL)
		return true;
	if (v[0] == '\0')
	{
		*out = '\0';
		return true;
	}
	if (v[1] == '\0')
	{
		if ((unsigned char) v[0] >= 0x80)
			goto bad;
		*out = v[0];
		return true;
	}
	if (v[0] == '\\')
	{
		if (strcmp(v, "\\t") == 0)
			*out = '\t';
		else if (strcmp(v, "\\n") == 0)
			*out = '\n';
		else if (strcmp(v, "\\r") == 0)
			*out = '\r';
		else if (strcmp(v, "\\0") == 0)
			*out = '\0';
		else if (strcmp(v, "\\\\") == 0)
			*out = '\\';
		else if ((v[1] == 'u' || v[1] == 'U') && strlen(v) == 6)
		{
			char	   *end;
			long		c = strtol(v + 2, &end, 16);

			if (*end != '\0' || c < 0 || c >= 0x80)
				goto bad;
			*out = (char) c;
		}
		else
			goto bad;
		return true;
	}
bad:
	return ts_error(err, TS_ERR_INVALID,
					"invalid value \"%s\" for option \"%s\": expected a single ASCII character",
					v, keys[0]);
}

bool
ts_text_option_line_delimiter(const ts_reader_options *o, const char *const *keys,
							  char **out, ts_err *err)
{
	static const char *const standard[] = {"", "\n", "\r\n", "\r", "\\n", "\\r\\n", "\\r", NULL};
	const char *v = ts_text_option(o, keys);

	*out = NULL;
	if (v == NULL)
		return true;
	for (int i = 0; standard[i]; i++)
		if (strcmp(v, standard[i]) == 0)
			return true;
	*out = ts_strdup(v);
	return *out != NULL || ts_error_nomem(err, NULL);
}
