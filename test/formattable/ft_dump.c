/*
 * ft_dump.c - list and read a format table with the core library, for the
 * differential test against DuckDB (run.sh / diff.mjs).
 *
 * Usage:
 *   ft_dump DIR --format csv|json --keys "k:TYPE;..." --cols "c:TYPE;..."
 *           [--opt key=value]... [--filter "k=v,k=v"]... [--select 2,0]
 *           [--partitions]
 * Prints one JSON array per row: the requested columns rendered with
 * ts_value_to_string (null for NULL), then the partition values (as
 * unescaped path text, null for the default partition).  --partitions
 * prints ListPartitions instead: one JSON object per partition.  CSV
 * columns are matched by position: --select lists the file positions of
 * the requested columns (default: all, in order).  A summary goes to
 * stderr.  Exit status 1 on any error.
 *
 * TYPE: BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE STRING DATE
 * TIME TIMESTAMP(p) TIMESTAMP_LTZ(p) DECIMAL(p,s) ARRAY<T> MAP<K,V>
 * ROW<name T,...>.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "format/format.h"
#include "scan/format_table.h"

static ts_type *parse_type(const char **p);

static void
die(const char *msg)
{
	fprintf(stderr, "ft_dump: %s\n", msg);
	exit(1);
}

static void
skip_ws(const char **p)
{
	while (isspace((unsigned char) **p))
		(*p)++;
}

static bool
eat(const char **p, const char *word)
{
	size_t		n = strlen(word);

	skip_ws(p);
	if (strncmp(*p, word, n) == 0)
	{
		*p += n;
		return true;
	}
	return false;
}

static int
parse_int_arg(const char **p)
{
	char	   *end;
	long		v;

	skip_ws(p);
	v = strtol(*p, &end, 10);
	if (end == *p)
		die("bad type: number expected");
	*p = end;
	return (int) v;
}

static ts_type *
parse_type(const char **p)
{
	ts_type    *t;

	skip_ws(p);
	/* longest names first */
	if (eat(p, "TIMESTAMP_LTZ"))
	{
		t = ts_type_new(TS_TIMESTAMP_LTZ, true);
		t->precision = 6;
		if (eat(p, "("))
		{
			t->precision = parse_int_arg(p);
			if (!eat(p, ")"))
				die("bad type: ) expected");
		}
		return t;
	}
	if (eat(p, "TIMESTAMP"))
	{
		t = ts_type_new(TS_TIMESTAMP, true);
		t->precision = 6;
		if (eat(p, "("))
		{
			t->precision = parse_int_arg(p);
			if (!eat(p, ")"))
				die("bad type: ) expected");
		}
		return t;
	}
	if (eat(p, "DECIMAL"))
	{
		t = ts_type_new(TS_DECIMAL, true);
		if (!eat(p, "("))
			die("bad type: DECIMAL(p,s) expected");
		t->precision = parse_int_arg(p);
		if (!eat(p, ","))
			die("bad type: DECIMAL(p,s) expected");
		t->scale = parse_int_arg(p);
		if (!eat(p, ")"))
			die("bad type: ) expected");
		return t;
	}
	if (eat(p, "ARRAY<"))
	{
		t = ts_type_new(TS_ARRAY, true);
		t->element = parse_type(p);
		if (!eat(p, ">"))
			die("bad type: > expected");
		return t;
	}
	if (eat(p, "MAP<"))
	{
		t = ts_type_new(TS_MAP, true);
		t->key = parse_type(p);
		if (!eat(p, ","))
			die("bad type: , expected");
		t->value = parse_type(p);
		if (!eat(p, ">"))
			die("bad type: > expected");
		return t;
	}
	if (eat(p, "ROW<"))
	{
		t = ts_type_new(TS_ROW, true);
		t->fields = ts_calloc(64, sizeof(ts_field));
		do
		{
			const char *st;

			skip_ws(p);
			st = *p;
			while (**p && !isspace((unsigned char) **p))
				(*p)++;
			if (t->nfields >= 64)
				die("bad type: too many fields");
			t->fields[t->nfields].id = -1;
			t->fields[t->nfields].name = ts_strndup(st, (size_t) (*p - st));
			t->fields[t->nfields].type = parse_type(p);
			t->nfields++;
		} while (eat(p, ","));
		if (!eat(p, ">"))
			die("bad type: > expected");
		return t;
	}
	if (eat(p, "BOOLEAN"))
		return ts_type_new(TS_BOOLEAN, true);
	if (eat(p, "TINYINT"))
		return ts_type_new(TS_TINYINT, true);
	if (eat(p, "SMALLINT"))
		return ts_type_new(TS_SMALLINT, true);
	if (eat(p, "INT"))
		return ts_type_new(TS_INT, true);
	if (eat(p, "BIGINT"))
		return ts_type_new(TS_BIGINT, true);
	if (eat(p, "FLOAT"))
		return ts_type_new(TS_FLOAT, true);
	if (eat(p, "DOUBLE"))
		return ts_type_new(TS_DOUBLE, true);
	if (eat(p, "DATE"))
		return ts_type_new(TS_DATE, true);
	if (eat(p, "TIME"))
	{
		t = ts_type_new(TS_TIME, true);
		t->precision = 3;
		return t;
	}
	if (eat(p, "STRING"))
	{
		t = ts_type_new(TS_VARCHAR, true);
		t->length = TS_STRING_LENGTH;
		return t;
	}
	die("bad type");
	return NULL;
}

/* "name:TYPE;name:TYPE" */
static int
parse_cols(const char *spec, char ***names, ts_type ***types)
{
	int			n = 0;
	const char *p = spec;

	*names = calloc(256, sizeof(char *));
	*types = calloc(256, sizeof(ts_type *));
	while (*p)
	{
		const char *colon = strchr(p, ':');

		if (colon == NULL || n >= 256)
			die("bad column list");
		(*names)[n] = strndup(p, (size_t) (colon - p));
		p = colon + 1;
		(*types)[n] = parse_type(&p);
		n++;
		skip_ws(&p);
		if (*p == ';')
			p++;
		else if (*p)
			die("bad column list: ; expected");
	}
	return n;
}

/* "k=v,k=v" -> ts_option list terminated by {NULL, NULL} */
static ts_option *
parse_filter(const char *spec)
{
	ts_option  *o = calloc(64, sizeof(ts_option));
	char	   *s = strdup(spec);
	int			n = 0;

	for (char *tok = strtok(s, ","); tok && n < 63; tok = strtok(NULL, ","))
	{
		char	   *eq = strchr(tok, '=');

		if (eq == NULL)
			die("bad filter");
		*eq = '\0';
		o[n].key = tok;
		o[n].value = eq + 1;
		n++;
	}
	return o;
}

static cJSON *
cell_json(const ts_value *v, const ts_type *t)
{
	char	   *s;
	cJSON	   *j;

	if (v->isnull)
		return cJSON_CreateNull();
	s = ts_value_to_string(v, t);
	if (s == NULL)
		die("out of memory");
	j = cJSON_CreateString(s);
	ts_free(s);
	return j;
}

int
main(int argc, char **argv)
{
	const char *dir = NULL,
			   *format = "csv";
	char	  **key_names = NULL,
			  **col_names = NULL;
	ts_type   **key_types = NULL,
			  **col_types = NULL;
	int			nkeys = 0,
				ncols = 0;
	const char *opt_keys[64];
	const char *opt_vals[64];
	ts_option	topts[64];
	int			nopts = 0;
	const ts_option *filters[64];
	int			nfilters = 0;
	const char *select = NULL;
	bool		partitions_only = false;
	ts_ft_request req;
	ts_ft_listing *l;
	ts_err		err = {0};
	ts_read_column *cols;
	ts_reader_options ro;
	int64_t		rows = 0;

	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--format") == 0 && i + 1 < argc)
			format = argv[++i];
		else if (strcmp(a, "--keys") == 0 && i + 1 < argc)
			nkeys = parse_cols(argv[++i], &key_names, &key_types);
		else if (strcmp(a, "--cols") == 0 && i + 1 < argc)
			ncols = parse_cols(argv[++i], &col_names, &col_types);
		else if (strcmp(a, "--opt") == 0 && i + 1 < argc && nopts < 64)
		{
			char	   *kv = strdup(argv[++i]);
			char	   *eq = strchr(kv, '=');

			if (eq == NULL)
				die("--opt key=value");
			*eq = '\0';
			opt_keys[nopts] = topts[nopts].key = kv;
			opt_vals[nopts] = topts[nopts].value = eq + 1;
			nopts++;
		}
		else if (strcmp(a, "--filter") == 0 && i + 1 < argc && nfilters < 64)
			filters[nfilters++] = parse_filter(argv[++i]);
		else if (strcmp(a, "--select") == 0 && i + 1 < argc)
			select = argv[++i];
		else if (strcmp(a, "--partitions") == 0)
			partitions_only = true;
		else if (a[0] != '-' && dir == NULL)
			dir = a;
		else
			die("usage: ft_dump DIR --format csv|json --keys ... --cols ... [--opt k=v] [--filter k=v,...] [--select i,j] [--partitions]");
	}
	if (dir == NULL)
		die("no table directory");

	memset(&req, 0, sizeof(req));
	req.table_path = dir;
	req.fs = ts_fs_local_unconfined();
	req.nkeys = nkeys;
	req.key_names = (const char *const *) key_names;
	req.key_types = (const ts_type *const *) key_types;
	req.nfilters = nfilters;
	req.filters = filters;
	req.list_files = !partitions_only;
	if (!ts_ft_request_set_options(&req, topts, nopts, &err))
		die(err.msg);
	l = partitions_only ? ts_format_table_list_partitions(&req, &err) : ts_format_table_list(&req, &err);
	if (l == NULL)
		die(err.msg);

	if (partitions_only)
	{
		for (int p = 0; p < l->npartitions; p++)
		{
			cJSON	   *o = cJSON_CreateObject();
			char	   *s;

			for (int k = 0; k < nkeys; k++)
			{
				const char *v = l->partitions[p].values[k];

				cJSON_AddItemToObject(o, l->key_names[k], v ? cJSON_CreateString(v) : cJSON_CreateNull());
			}
			s = cJSON_PrintUnformatted(o);
			printf("%s\n", s);
			cJSON_free(s);
			cJSON_Delete(o);
		}
		fprintf(stderr, "partitions=%d dirs_listed=%lld\n", l->npartitions, (long long) l->metrics.dirs_listed);
		ts_ft_listing_free(l);
		return 0;
	}

	cols = calloc((size_t) (ncols ? ncols : 1), sizeof(ts_read_column));
	for (int c = 0; c < ncols; c++)
	{
		cols[c].field_id = c;
		cols[c].name = col_names[c];
		cols[c].type = col_types[c];
	}
	if (select)
	{
		/* --select 3,0: request file positions 3 and 0 (CSV by position) */
		int			n = 0;
		char	   *s = strdup(select);
		ts_read_column *sel = calloc(64, sizeof(ts_read_column));

		for (char *tok = strtok(s, ","); tok && n < 64; tok = strtok(NULL, ","))
		{
			int			pos = atoi(tok);

			if (pos < 0 || pos >= ncols)
				die("bad --select position");
			sel[n] = cols[pos];
			sel[n].field_id = pos;
			n++;
		}
		cols = sel;
		ncols = n;
	}
	memset(&ro, 0, sizeof(ro));
	ro.ntext_options = nopts;
	ro.fs = ts_fs_local_unconfined();
	ro.text_option_keys = opt_keys;
	ro.text_option_values = opt_vals;

	for (int f = 0; f < l->nfiles; f++)
	{
		ts_format_reader *r;
		ts_batch	b;
		int			got;

		if (strcmp(format, "csv") == 0)
			r = ts_csv_open(l->files[f].path, cols, ncols, &ro, &err);
		else
			r = ts_json_open(l->files[f].path, cols, ncols, &ro, &err);
		if (r == NULL)
			die(err.msg);
		while ((got = ts_format_next(r, &b, &err)) > 0)
		{
			for (int i = 0; i < got; i++)
			{
				cJSON	   *row = cJSON_CreateArray();
				char	   *s;

				for (int c = 0; c < ncols; c++)
					cJSON_AddItemToArray(row, cell_json(ts_batch_at(&b, i, c), cols[c].type));
				for (int k = 0; k < nkeys; k++)
				{
					const char *v = l->files[f].partition >= 0 ?
						l->partitions[l->files[f].partition].values[k] : NULL;

					cJSON_AddItemToArray(row, v ? cJSON_CreateString(v) : cJSON_CreateNull());
				}
				s = cJSON_PrintUnformatted(row);
				printf("%s\n", s);
				cJSON_free(s);
				cJSON_Delete(row);
			}
			rows += got;
		}
		if (got < 0)
			die(err.msg);
		ts_format_close(r);
	}
	fprintf(stderr, "partitions=%d files=%d rows=%lld dirs_listed=%lld start_depth=%d\n",
			l->npartitions, l->nfiles, (long long) rows,
			(long long) l->metrics.dirs_listed, l->metrics.start_depth);
	ts_ft_listing_free(l);
	return 0;
}
