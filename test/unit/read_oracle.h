/*
 * read_oracle.h - helpers shared by the src/read unit tests: load an
 * oracle case, render rows of a split reader and of the oracle the same
 * way, and compare them as multisets.
 */
#ifndef TS_READ_ORACLE_H
#define TS_READ_ORACLE_H

#include "unit.h"

#include <cJSON.h>

#include "base/ts_fs.h"
#include "read/read.h"

/*
 * format.c references the readers weakly; archive members are only linked
 * for strong references, so a test that reads real files names them.
 */
static void *volatile force_readers[] = {
	(void *) ts_orc_open, (void *) ts_parquet_open, (void *) ts_avro_open,
};

/* Type of a read column: a read-schema field or a system column (_ROW_ID...). */
static inline const ts_type *
column_type(const ts_plan *plan, int col)
{
	return col >= 0 ? plan->schema->fields[col].type : ts_system_column_type(col);
}

static inline cJSON *
oracle_load(const char *name)
{
	char		rel[512];
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	cJSON	   *j;

	snprintf(rel, sizeof(rel), "oracle/%s.json", name);
	if (!ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err))
		fail_msg("%s", err.msg);
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	return j;
}

/* Render one oracle cell as ts_value_to_string would render our value. */
static char *
oracle_cell(const cJSON *c, const ts_type *t)
{
	ts_value	v = {0};

	if (cJSON_IsNull(c))
		return ts_strdup("NULL");
	if (cJSON_IsBool(c))
		return ts_strdup(cJSON_IsTrue(c) ? "true" : "false");
	if (cJSON_IsString(c))
		return ts_strdup(c->valuestring);
	if (cJSON_IsNumber(c))
	{
		switch (t->kind)
		{
			case TS_FLOAT:
				v.v.f = (float) c->valuedouble;
				break;
			case TS_DOUBLE:
				v.v.d = c->valuedouble;
				break;
			default:
				v.v.i = (int64_t) c->valuedouble;
				break;
		}
		return ts_value_to_string(&v, t);
	}
	return cJSON_PrintUnformatted(c);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

typedef struct row_set
{
	int			n;
	int			cap;
	char	  **rows;
} row_set;

static void
row_set_add(row_set *s, char *row)
{
	if (s->n == s->cap)
	{
		s->cap = s->cap ? s->cap * 2 : 16;
		s->rows = realloc(s->rows, sizeof(char *) * s->cap);
	}
	s->rows[s->n++] = row;
}

static void
row_set_free(row_set *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->rows[i]);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/* Nested values: compare without the blanks JSON printers differ on. */
static void
squeeze_blanks(char *s)
{
	char	   *w = s;
	bool		quoted = false;

	for (char *r = s; *r; r++)
	{
		if (*r == '"' && (r == s || r[-1] != '\\'))
			quoted = !quoted;
		if (*r == ' ' && !quoted)
			continue;
		*w++ = *r;
	}
	*w = '\0';
}

/* Timestamps: the oracle writes as many fraction digits as the test did. */
static void
trim_fraction(char *s)
{
	char	   *dot = strchr(s, '.');
	char	   *end;

	if (dot == NULL || strchr(s, 'T') == NULL)
		return;
	end = dot + strlen(dot);
	if (end > dot && end[-1] == 'Z')
		end--;
	{
		char	   *z = end;
		char		tail[4] = {0};

		strncpy(tail, end, 3);
		while (z > dot + 1 && z[-1] == '0')
			z--;
		if (z == dot + 1)
			z = dot;
		strcpy(z, tail);
	}
}

static void
normalize_cell(char *cell, const ts_type *t)
{
	if (ts_type_is_nested(t->kind))
		squeeze_blanks(cell);
	if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
		trim_fraction(cell);
}

static char *
join_cells(char **cells, int n)
{
	size_t		len = 1;
	char	   *r;

	for (int i = 0; i < n; i++)
		len += strlen(cells[i]) + 3;
	r = malloc(len);
	r[0] = '\0';
	for (int i = 0; i < n; i++)
	{
		if (i)
			strcat(r, " | ");
		strcat(r, cells[i]);
	}
	return r;
}

/* Read every row of one split into 's'; returns rows or -1 (err set). */
static int
read_split_rows(ts_plan *plan, const ts_split *split, const int *cols, int ncols,
				row_set *s, ts_err *err, ts_reader_metrics *metrics)
{
	ts_split_reader *r = ts_split_reader_open(plan, split, cols, ncols, err);
	ts_batch	b;
	int			n,
				total = 0;

	if (r == NULL)
		return -1;
	while ((n = ts_split_reader_next(r, &b, err)) > 0)
	{
		assert_int_equal(b.ncols, ncols);
		for (int row = 0; row < b.nrows; row++)
		{
			char	   *cells[64];

			assert_true(ncols <= 64);
			for (int c = 0; c < ncols; c++)
			{
				const ts_type *t = column_type(plan, cols[c]);

				cells[c] = ts_value_to_string(ts_batch_at(&b, row, c), t);
				normalize_cell(cells[c], t);
			}
			row_set_add(s, join_cells(cells, ncols));
			for (int c = 0; c < ncols; c++)
				ts_free(cells[c]);
		}
		total += b.nrows;
	}
	if (metrics)
		*metrics = *ts_split_reader_metrics(r);
	ts_split_reader_close(r);
	return n < 0 ? -1 : total;
}

/* The oracle's rows rendered with the read schema's column types. */
static void
oracle_rows(const cJSON *rows, const ts_plan *plan, const int *cols, int ncols, row_set *s)
{
	const cJSON *row;

	cJSON_ArrayForEach(row, rows)
	{
		char	   *cells[64];

		assert_int_equal(cJSON_GetArraySize(row), ncols);
		for (int c = 0; c < ncols; c++)
		{
			const ts_type *t = column_type(plan, cols[c]);

			cells[c] = oracle_cell(cJSON_GetArrayItem(row, c), t);
			normalize_cell(cells[c], t);
		}
		row_set_add(s, join_cells(cells, ncols));
		for (int c = 0; c < ncols; c++)
			ts_free(cells[c]);
	}
}

static inline void
assert_same_rows(row_set *got, row_set *want, const char *what)
{
	if (got->n > 1)
		qsort(got->rows, got->n, sizeof(char *), cmp_str);
	if (want->n > 1)
		qsort(want->rows, want->n, sizeof(char *), cmp_str);
	if (got->n != want->n)
	{
		for (int i = 0; i < got->n; i++)
			fprintf(stderr, "got : %s\n", got->rows[i]);
		for (int i = 0; i < want->n; i++)
			fprintf(stderr, "want: %s\n", want->rows[i]);
		fail_msg("%s: %d rows, oracle has %d", what, got->n, want->n);
	}
	for (int i = 0; i < got->n; i++)
		if (strcmp(got->rows[i], want->rows[i]) != 0)
		{
			for (int k = 0; k < got->n; k++)
				fprintf(stderr, "got : %s\nwant: %s\n", got->rows[k], want->rows[k]);
			fail_msg("%s: row differs: got [%s] want [%s]", what, got->rows[i], want->rows[i]);
		}
}

/* Column indexes of the oracle's "columns" in the plan's read schema. */
static int
oracle_columns(const cJSON *j, const ts_plan *plan, int *cols)
{
	const cJSON *c;
	int			n = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "columns"))
	{
		const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
		int			idx = -1;

		for (int i = 0; i < plan->schema->nfields; i++)
			if (strcmp(plan->schema->fields[i].name, name) == 0)
				idx = i;
		if (idx < 0 && ts_system_column(name) != 0)
		{
			cols[n++] = ts_system_column(name);
			continue;
		}
		if (idx < 0)
			fail_msg("column %s not in read schema", name);
		cols[n++] = idx;
	}
	return n;
}

#endif							/* TS_READ_ORACLE_H */
