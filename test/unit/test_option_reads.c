/*
 * test_option_reads.c - every option key the code reads is in the option
 * registry (src/meta/core_options.c), and is not marked ignored there.
 *
 * Scans the C files of src/ (not src/tools, the fixture writers) for calls
 * of the option accessors and resolves their key argument: a string
 * literal, a TS_OPT_* constant (from the headers' #defines), or a static
 * array of those (keys[i], K_FIELD_DELIM...).  A key the registry lacks, or
 * one it marks TS_OPT_IGNORED although the code reads it (but for a stream's
 * refusal, TS_OPTF_STREAM), fails with the
 * file and line.  The FDW's accessors (tablescan_server_option...) may also
 * read the FDW's own options (valid_options of src/fdw/options.c).  Keys
 * passed in variables are refused at run time instead (the accessors ask
 * ts_core_option_readable; test_core_options.c).  A self-test feeds the
 * scanner a read of an unregistered key and a key marked ignored.
 */
#include "unit.h"

#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

#include "meta/core_options.h"

/* An accessor: its name, which argument is the key, whether it is the FDW's. */
typedef struct accessor
{
	const char *name;
	int			arg;
	bool		fdw;
} accessor;

static const accessor accessors[] = {
	{"ts_plan_option", 1, false},
	{"scan_option_bool", 1, false},
	{"ctx_option", 1, false},
	{"ts_read_option", 1, false},
	{"ts_read_option_bool", 1, false},
	{"option_true", 1, false},
	{"field_option", 2, false},	/* a suffix: "fields.<f>.<suffix>" */
	{"ts_schema_option", 1, false},
	{"ts_rest_option", 1, false},
	{"add_definitions", 1, false},
	{"lookup", 2, false},
	{"parse_bool", 2, false},
	{"ts_text_option", 1, false},
	{"ts_text_option_bool", 1, false},
	{"ts_text_option_char", 1, false},
	{"ts_text_option_line_delimiter", 1, false},
	{"tablescan_server_option", 1, true},
	{"tablescan_table_option", 1, true},
	{"tablescan_mapping_option", 1, true},
};

#define MAX_NAMES 512

typedef struct names
{
	char	   *name[MAX_NAMES];
	char	   *value[MAX_NAMES];
	int			n;
} names;

typedef struct scan_state
{
	names		macros;			/* TS_OPT_X -> "key" */
	names		fdw_options;	/* valid_options of src/fdw/options.c */
	int			checked;
	int			failures;
	char		last_failure[512];
} scan_state;

static void
names_add(names *n, const char *name, size_t nlen, const char *value, size_t vlen)
{
	assert_true(n->n < MAX_NAMES);
	n->name[n->n] = strndup(name, nlen);
	n->value[n->n] = value ? strndup(value, vlen) : NULL;
	n->n++;
}

static const char *
names_get(const names *n, const char *name, size_t nlen)
{
	for (int i = n->n - 1; i >= 0; i--)
		if (strlen(n->name[i]) == nlen && strncmp(n->name[i], name, nlen) == 0)
			return n->value[i] ? n->value[i] : n->name[i];
	return NULL;
}

static bool
ident_char(char c)
{
	return isalnum((unsigned char) c) || c == '_';
}

/* C text with comments blanked out (strings and line breaks kept, so lines still count). */
static char *
without_comments(const char *src)
{
	char	   *out = strdup(src);
	size_t		n = strlen(src);

	for (size_t i = 0; i < n; i++)
	{
		if (src[i] == '"' || src[i] == '\'')
		{
			char		q = src[i];

			for (i++; i < n && src[i] != q; i++)
				if (src[i] == '\\')
					i++;
		}
		else if (src[i] == '/' && src[i + 1] == '*')
		{
			for (; i < n && !(src[i] == '*' && src[i + 1] == '/'); i++)
				if (src[i] != '\n')
					out[i] = ' ';
			if (i < n)
				out[i] = out[i + 1] = ' ';
			i++;
		}
		else if (src[i] == '/' && src[i + 1] == '/')
			for (; i < n && src[i] != '\n'; i++)
				out[i] = ' ';
	}
	return out;
}

/* "#define TS_OPT_X "key"" lines, and the FDW's {"name", ...RelationId} entries */
static void
collect_definitions(scan_state *st, const char *text, bool fdw_options)
{
	for (const char *p = strstr(text, "#define TS_OPT_"); p; p = strstr(p + 1, "#define TS_OPT_"))
	{
		const char *name = p + 8;
		size_t		nlen = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		const char *v = name + nlen;

		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '"')
			names_add(&st->macros, name, nlen, v + 1, strcspn(v + 1, "\""));
	}
	if (!fdw_options)
		return;
	for (const char *p = strstr(text, "{\""); p; p = strstr(p + 1, "{\""))
	{
		const char *name = p + 2;
		size_t		nlen = strcspn(name, "\"");
		const char *after = name + nlen + 1;

		while (*after == ',' || *after == ' ')
			after++;
		if (strncmp(after, "ForeignServerRelationId", 23) == 0 ||
			strncmp(after, "ForeignTableRelationId", 22) == 0 ||
			strncmp(after, "UserMappingRelationId", 21) == 0)
			names_add(&st->fdw_options, name, nlen, NULL, 0);
	}
}

static void
report(scan_state *st, const char *file, int line, const char *key, const char *why)
{
	st->failures++;
	snprintf(st->last_failure, sizeof(st->last_failure), "%s:%d reads option \"%s\", %s",
			 file, line, key, why);
	print_message("%s\n", st->last_failure);
}

/* One key read by accessor a at file:line. */
static void
check_key(scan_state *st, const accessor *a, const char *file, int line, const char *key)
{
	const ts_core_option *o;
	char		field_key[256];

	if (strcmp(a->name, "field_option") == 0)
	{
		snprintf(field_key, sizeof(field_key), TS_OPT_FIELD_KEY_FORMAT, "some_field", key);
		key = field_key;
	}
	st->checked++;
	o = ts_core_option_find(key);
	if (a->fdw && names_get(&st->fdw_options, key, strlen(key)) != NULL)
		return;
	if (o == NULL)
		report(st, file, line, key, "which the option registry (src/meta/core_options.c) lacks");
	else if (o->support == TS_OPT_IGNORED && !(o->flags & TS_OPTF_STREAM))
		report(st, file, line, key, "which the option registry marks ignored");
}

/* A literal, a TS_OPT_ constant, or NULL: the key (static buffer); else NULL. */
static const char *
resolve(scan_state *st, const char *arg, size_t len, bool *unresolved)
{
	static char buf[256];
	const char *v;

	*unresolved = false;
	if (len >= 2 && arg[0] == '"' && arg[len - 1] == '"' && len - 2 < sizeof(buf))
	{
		snprintf(buf, sizeof(buf), "%.*s", (int) len - 2, arg + 1);
		return buf;
	}
	if (len > 7 && strncmp(arg, "TS_OPT_", 7) == 0)
	{
		if ((v = names_get(&st->macros, arg, len)) == NULL)
			*unresolved = true;
		return v;
	}
	return NULL;
}

/* The elements of "static const char *const name[] = {...}" in text, each checked. */
static bool
check_array(scan_state *st, const accessor *a, const char *file, const char *text,
			const char *name, size_t nlen)
{
	char		pat[160];
	const char *p,
			   *open;
	bool		found = false;

	snprintf(pat, sizeof(pat), "%.*s[] = {", (int) nlen, name);
	for (p = strstr(text, pat); p; p = strstr(p + 1, pat))
	{
		int			line = 1;

		if (p > text && ident_char(p[-1]))
			continue;
		found = true;
		for (const char *q = text; q < p; q++)
			line += *q == '\n';
		open = p + strlen(pat);
		while (*open && *open != '}')
		{
			size_t		len;
			const char *key;
			bool		unresolved;

			open += strspn(open, " \t\n,");
			if (*open == '}' || *open == '\0')
				break;
			if (*open == '"')
				len = strcspn(open + 1, "\"") + 2;
			else
				len = strcspn(open, " \t\n,}");
			key = resolve(st, open, len, &unresolved);
			if (unresolved)
				report(st, file, line, "?", "a TS_OPT_ constant no header defines");
			else if (key)
				check_key(st, a, file, line, key);
			else if (!(len == 4 && strncmp(open, "NULL", 4) == 0))
				report(st, file, line, "?", "an array element that is neither a literal nor a TS_OPT_ constant");
			open += len;
		}
	}
	return found;
}

/* Every accessor call in text (comments removed) of file. */
static void
scan_text(scan_state *st, const char *file, const char *text)
{
	for (size_t ai = 0; ai < sizeof(accessors) / sizeof(accessors[0]); ai++)
	{
		const accessor *a = &accessors[ai];
		size_t		nlen = strlen(a->name);

		for (const char *p = strstr(text, a->name); p; p = strstr(p + 1, a->name))
		{
			const char *args = p + nlen;
			const char *arg = NULL;
			size_t		arglen = 0;
			int			depth = 0,
						index = 0,
						line = 1;

			if ((p > text && ident_char(p[-1])) || *args != '(')
				continue;
			/* the argument at a->arg, split at top-level commas */
			for (const char *q = args + 1; *q; q++)
			{
				if (*q == '"')
				{
					for (q++; *q && *q != '"'; q++)
						if (*q == '\\')
							q++;
					continue;
				}
				if (*q == '(' || *q == '[' || *q == '{')
					depth++;
				else if ((*q == ')' || *q == ']' || *q == '}') && depth > 0)
					depth--;
				else if ((*q == ',' && depth == 0) || *q == ')')
				{
					if (index == a->arg)
					{
						const char *start = args + 1;

						/* back to the start of this argument */
						for (int k = 0, d = 0; k < index; start++)
						{
							if (*start == '"')
							{
								for (start++; *start && *start != '"'; start++)
									if (*start == '\\')
										start++;
							}
							else if (*start == '(' || *start == '[' || *start == '{')
								d++;
							else if (*start == ')' || *start == ']' || *start == '}')
								d--;
							else if (*start == ',' && d == 0)
								k++;
						}
						while (*start == ' ' || *start == '\t' || *start == '\n')
							start++;
						arg = start;
						arglen = (size_t) (q - start);
						while (arglen > 0 && isspace((unsigned char) arg[arglen - 1]))
							arglen--;
					}
					if (*q == ')')
						break;
					index++;
				}
			}
			if (arg == NULL)
				continue;		/* fewer arguments: another function of that name */
			for (const char *q = text; q < p; q++)
				line += *q == '\n';
			{
				bool		unresolved;
				const char *key = resolve(st, arg, arglen, &unresolved);
				size_t		id = 0;

				if (unresolved)
					report(st, file, line, "?", "a TS_OPT_ constant no header defines");
				else if (key)
					check_key(st, a, file, line, key);
				else
				{
					/* keys[i] or K_NAME: an array of this file */
					while (id < arglen && ident_char(arg[id]))
						id++;
					if (id > 0 && (id == arglen || arg[id] == '['))
						(void) check_array(st, a, file, text, arg, id);
					/* otherwise a variable: refused at run time if unregistered */
				}
			}
		}
	}
}

/* A source file as a string (malloc'd), NULL if unreadable. */
static char *
read_text(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	char	   *s = NULL;
	long		n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
		(s = malloc((size_t) n + 1)) != NULL)
	{
		if (fread(s, 1, (size_t) n, f) != (size_t) n)
		{
			free(s);
			s = NULL;
		}
		else
			s[n] = '\0';
	}
	fclose(f);
	return s;
}

/* Each .c / .h file under dir (recursively; src/tools left out): pass 0 definitions, 1 calls. */
static void
walk(scan_state *st, const char *dir, int pass)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
	{
		char		path[1024];
		struct stat sb;
		size_t		n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode))
		{
			if (strcmp(e->d_name, "tools") != 0)
				walk(st, path, pass);
		}
		else if (n > 2 && (strcmp(e->d_name + n - 2, ".c") == 0 || strcmp(e->d_name + n - 2, ".h") == 0))
		{
			char	   *raw = read_text(path);
			char	   *text;

			assert_non_null(raw);
			text = without_comments(raw);
			if (pass == 0)
				collect_definitions(st, text, strstr(path, "fdw/options.c") != NULL);
			else
				scan_text(st, path, text);
			free(text);
			free(raw);
		}
	}
	closedir(d);
}

static const char *
src_dir(void)
{
	const char *p = getenv("TS_SRC");
	struct stat sb;

	p = p && *p ? p : "src";
	if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
	{
		print_message("skipping: src/ not found (run from the project root or set TS_SRC)\n");
		skip();
	}
	return p;
}

/* The scanner finds what it is for. */
static void
test_scanner_self_check(void **state)
{
	static scan_state st;
	const char *defs = "#define TS_OPT_GOOD \"scan.snapshot-id\"\n#define TS_OPT_NEW \"scan.brand-new\"\n";
	const char *code =
		"/* ts_plan_option(plan, \"in.a-comment\") */\n"
		"v = ts_plan_option(plan, TS_OPT_GOOD);\n"
		"w = ts_plan_option(plan, \"bucket\");\n"
		"x = ts_plan_option(plan,\n    \"not.registered-key\");\n"
		"y = scan_option_bool(plan, TS_OPT_NEW, false);\n"
		"static const char *const K_X[] = {\"csv.mode\", \"write-buffer-size\", NULL};\n"
		"z = ts_text_option(o, K_X);\n"
		"u = ts_plan_option(plan, key);\n"
		"t = tablescan_server_option(server, \"catalog\");\n";
	char	   *text = without_comments(code);

	(void) state;
	memset(&st, 0, sizeof(st));
	collect_definitions(&st, defs, false);
	names_add(&st.fdw_options, "catalog", 7, NULL, 0);
	scan_text(&st, "self", text);
	free(text);
	/* snapshot-id, bucket, not.registered-key, brand-new, csv.mode, write-buffer-size, catalog */
	assert_int_equal(st.checked, 7);
	assert_int_equal(st.failures, 3);
	/* the last one: an ignored key read through an array */
	assert_non_null(strstr(st.last_failure, "self:7 reads option \"write-buffer-size\", which the option registry marks ignored"));
}

/* Every key src/ reads is the registry's. */
static void
test_src_reads_registered_keys(void **state)
{
	static scan_state st;
	const char *dir = src_dir();

	(void) state;
	memset(&st, 0, sizeof(st));
	walk(&st, dir, 0);
	assert_true(st.macros.n >= 50);
	assert_true(st.fdw_options.n >= 15);
	walk(&st, dir, 1);
	print_message("%d option reads checked\n", st.checked);
	assert_true(st.checked >= 80);	/* the scanner still finds the reads */
	if (st.failures > 0)
		fail_msg("%d option reads of keys the registry lacks or marks ignored (last: %s)",
				 st.failures, st.last_failure);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scanner_self_check),
		cmocka_unit_test(test_src_reads_registered_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
