/*
 * test_pk_model.c - merge-on-read checked against a brute-force model.
 *
 * Generates primary-key tables with ts_gen (src/tools/ts_gen.c is compiled
 * into this test and run in a child process) in a temp dir: each merge
 * engine, with and without deletion vectors, several LSM levels, level-0
 * files with overlapping key ranges, updates and deletes.  For every
 * snapshot, the expected rows are computed from <table>.ops.jsonl alone
 * (which records each data file holds, which files are live, which
 * positions deletion vectors delete) with the merge rules of
 * PAIMON-FORMAT.md 7.4/7.5 written out here again, independent of
 * src/read; then compared with ts_scan_plan + ts_split_reader.  An engine
 * the reader reports as TS_ERR_UNSUPPORTED is printed as skipped; wrong
 * rows fail.  Every pair of snapshots is also read with
 * incremental-between-scan-mode diff against model_diff (Java's
 * IncrementalDiffSplitRead rule, written out again), and every range from
 * before the first snapshot on with scan mode delta against model_delta
 * (the merge engine over the files of the range's APPEND snapshots, -D
 * results kept).  test_pk_layout checks the generated files themselves
 * against Paimon's layout rules (PAIMON-FORMAT.md 7.1/7.3) through the
 * manifests and the files' format readers (Avro, or Parquet for the
 * parquet_ cases).
 */
#define _GNU_SOURCE
#include "unit.h"
#include "unit_fs.h"
#include "forked_child.h"

#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "base/ts_background.h"
#include "format/parquet/pq_internal.h"	/* pq_ahead_pages_taken */
#include "scan/scan.h"
#include "read/read_internal.h"

#define main ts_gen_main
#include "tools/ts_gen.c"
#undef main

/* ---- running the generator ------------------------------------------- */

static int
run_ts_gen(char **argv, int argc)
{
	pid_t		pid;
	int			status;
	pid_t		self = getpid();

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		int			devnull;

		unit_forked_child(self, 1);
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 1);
		_exit(ts_gen_main(argc, argv));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- the model --------------------------------------------------------- */

typedef enum mtype
{
	M_INT, M_DOUBLE, M_STRING
} mtype;

typedef struct mcol
{
	char	   *name;
	mtype		type;
	int			bits;			/* integer width: 8, 16, 32, 64 */
	bool		is_pk;
	bool		is_seq;
	bool		not_null;		/* type ends in NOT NULL */
	char	   *agg;			/* aggregation function */
	bool		ignore_retract;
} mcol;

typedef struct mval
{
	bool		isnull;
	int64_t		i;
	double		d;
	const char *s;
} mval;

typedef struct mrec
{
	char	   *file;
	int			pos;
	char	   *keystr;			/* partition + key JSON */
	int64_t		seq;
	int			kind;			/* 0 +I, 1 -U, 2 +U, 3 -D */
	mval	   *vals;
} mrec;

typedef struct mfile_event
{
	int			snapshot;
	bool		add;
	char	   *file;
	int			level;
} mfile_event;

typedef struct mdv
{
	int			snapshot;
	char	   *file;
	int			n;
	int		   *pos;
} mdv;

typedef struct model
{
	int			ncols;
	mcol	   *cols;
	int			nseq;
	int			seq_cols[16];
	bool		seq_desc;
	char	   *engine;
	bool		dv;
	bool		ignore_delete;
	bool		remove_on_delete;
	mrec	   *recs;
	int			nrecs;
	mfile_event *events;
	int			nevents;
	mdv		   *dvs;
	int			ndvs;
	int			nsnapshots;
	bool		append[256];	/* snapshot id -> an APPEND snapshot */
} model;

static bool
is_retract(int kind)
{
	return kind == 1 || kind == 3;
}

static int
kind_of(const char *s)
{
	return strcmp(s, "+I") == 0 ? 0 : strcmp(s, "-U") == 0 ? 1 : strcmp(s, "+U") == 0 ? 2 : 3;
}

static const char *
opt_of(const cJSON *opts, const char *key)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(opts, key);

	return cJSON_IsString(o) ? o->valuestring : NULL;
}

static bool
opt_true(const cJSON *opts, const char *key)
{
	const char *v = opt_of(opts, key);

	return v && strcmp(v, "true") == 0;
}

static void
model_table(model *m, const cJSON *t)
{
	const cJSON *opts = cJSON_GetObjectItem(t, "options");
	const cJSON *c;
	const char *e;

	m->ncols = cJSON_GetArraySize(cJSON_GetObjectItem(t, "columns"));
	m->cols = calloc((size_t) m->ncols, sizeof(mcol));
	int			i = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(t, "columns"))
	{
		const char *ty = cJSON_GetObjectItem(c, "type")->valuestring;
		mcol	   *mc = &m->cols[i++];
		char		key[256];
		const char *fn;

		mc->name = strdup(cJSON_GetObjectItem(c, "name")->valuestring);
		mc->not_null = strstr(ty, "NOT NULL") != NULL;
		mc->type = strncmp(ty, "DOUBLE", 6) == 0 ? M_DOUBLE :
			(strncmp(ty, "STRING", 6) == 0 || strncmp(ty, "VARCHAR", 7) == 0) ? M_STRING : M_INT;
		mc->bits = strncmp(ty, "TINYINT", 7) == 0 ? 8 : strncmp(ty, "SMALLINT", 8) == 0 ? 16 :
			strncmp(ty, "INT", 3) == 0 ? 32 : 64;
		snprintf(key, sizeof(key), "fields.%s.aggregate-function", mc->name);
		fn = opt_of(opts, key);
		if (fn == NULL)
			fn = opt_of(opts, "fields.default-aggregate-function");
		mc->agg = strdup(fn ? fn : "last_non_null_value");
		snprintf(key, sizeof(key), "fields.%s.ignore-retract", mc->name);
		mc->ignore_retract = opt_true(opts, key);
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(t, "primary_keys"))
		for (int k = 0; k < m->ncols; k++)
			if (strcmp(m->cols[k].name, c->valuestring) == 0)
				m->cols[k].is_pk = true;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(t, "sequence_fields"))
		for (int k = 0; k < m->ncols; k++)
			if (strcmp(m->cols[k].name, c->valuestring) == 0)
			{
				m->cols[k].is_seq = true;
				m->seq_cols[m->nseq++] = k;
			}
	m->seq_desc = opt_of(opts, "sequence.field.sort-order") &&
		strcmp(opt_of(opts, "sequence.field.sort-order"), "descending") == 0;
	e = opt_of(opts, "merge-engine");
	m->engine = strdup(e ? e : "deduplicate");
	m->dv = opt_true(opts, "deletion-vectors.enabled");
	m->ignore_delete = opt_true(opts, "ignore-delete") || opt_true(opts, "deduplicate.ignore-delete") ||
		opt_true(opts, "first-row.ignore-delete") || opt_true(opts, "partial-update.ignore-delete");
	m->remove_on_delete = opt_true(opts, strcmp(m->engine, "partial-update") == 0 ?
								   "partial-update.remove-record-on-delete" :
								   "aggregation.remove-record-on-delete");
}

static bool
model_load(model *m, const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0;

	memset(m, 0, sizeof(*m));
	if (f == NULL)
		return false;
	while (getline(&line, &cap, f) > 0)
	{
		cJSON	   *j = cJSON_Parse(line);
		const char *op = cJSON_GetObjectItem(j, "op")->valuestring;

		if (strcmp(op, "table") == 0)
			model_table(m, j);
		else if (strcmp(op, "record") == 0)
		{
			mrec	   *r;
			char	   *ks = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "key"));
			const cJSON *vals = cJSON_GetObjectItem(j, "values");

			m->recs = realloc(m->recs, sizeof(mrec) * (size_t) (m->nrecs + 1));
			r = &m->recs[m->nrecs++];
			r->file = strdup(cJSON_GetObjectItem(j, "file")->valuestring);
			r->pos = cJSON_GetObjectItem(j, "pos")->valueint;
			if (asprintf(&r->keystr, "%s|%d|%s", cJSON_GetObjectItem(j, "partition")->valuestring,
						 cJSON_GetObjectItem(j, "bucket")->valueint, ks) < 0)
				abort();
			free(ks);
			r->seq = (int64_t) cJSON_GetObjectItem(j, "seq")->valuedouble;
			r->kind = kind_of(cJSON_GetObjectItem(j, "kind")->valuestring);
			r->vals = calloc((size_t) m->ncols, sizeof(mval));
			for (int c = 0; c < m->ncols; c++)
			{
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(vals, m->cols[c].name);

				if (v == NULL || cJSON_IsNull(v))
					r->vals[c].isnull = true;
				else if (m->cols[c].type == M_STRING)
					r->vals[c].s = strdup(v->valuestring);
				else if (m->cols[c].type == M_DOUBLE)
					r->vals[c].d = v->valuedouble;
				else
					r->vals[c].i = (int64_t) v->valuedouble;
			}
		}
		else if (strcmp(op, "file") == 0)
		{
			m->events = realloc(m->events, sizeof(mfile_event) * (size_t) (m->nevents + 1));
			m->events[m->nevents++] = (mfile_event) {
				cJSON_GetObjectItem(j, "snapshot")->valueint,
				strcmp(cJSON_GetObjectItem(j, "action")->valuestring, "ADD") == 0,
				strdup(cJSON_GetObjectItem(j, "file")->valuestring),
				cJSON_GetObjectItem(j, "level")->valueint
			};
		}
		else if (strcmp(op, "dv") == 0)
		{
			const cJSON *p;
			mdv		   *d;

			m->dvs = realloc(m->dvs, sizeof(mdv) * (size_t) (m->ndvs + 1));
			d = &m->dvs[m->ndvs++];
			d->snapshot = cJSON_GetObjectItem(j, "snapshot")->valueint;
			d->file = strdup(cJSON_GetObjectItem(j, "file")->valuestring);
			d->n = 0;
			d->pos = calloc((size_t) cJSON_GetArraySize(cJSON_GetObjectItem(j, "positions")) + 1, sizeof(int));
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "positions"))
				d->pos[d->n++] = p->valueint;
		}
		else if (strcmp(op, "snapshot") == 0)
		{
			const cJSON *k = cJSON_GetObjectItem(j, "kind");

			m->nsnapshots = cJSON_GetObjectItem(j, "id")->valueint;
			if (m->nsnapshots < (int) (sizeof(m->append) / sizeof(m->append[0])))
				m->append[m->nsnapshots] = cJSON_IsString(k) && strcmp(k->valuestring, "APPEND") == 0;
		}
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	return m->ncols > 0;
}

static void
model_free(model *m)
{
	for (int i = 0; i < m->nrecs; i++)
	{
		for (int c = 0; c < m->ncols; c++)
			if (m->cols[c].type == M_STRING)
				free((char *) m->recs[i].vals[c].s);
		free(m->recs[i].vals);
		free(m->recs[i].file);
		free(m->recs[i].keystr);
	}
	for (int i = 0; i < m->nevents; i++)
		free(m->events[i].file);
	for (int i = 0; i < m->ndvs; i++)
	{
		free(m->dvs[i].file);
		free(m->dvs[i].pos);
	}
	for (int c = 0; c < m->ncols; c++)
	{
		free(m->cols[c].name);
		free(m->cols[c].agg);
	}
	free(m->cols);
	free(m->engine);
	free(m->recs);
	free(m->events);
	free(m->dvs);
	memset(m, 0, sizeof(*m));
}

/* level of a file live at snapshot s, -1 if not live */
static int
live_level(const model *m, const char *file, int s)
{
	int			level = -1;

	for (int i = 0; i < m->nevents && m->events[i].snapshot <= s; i++)
		if (strcmp(m->events[i].file, file) == 0)
		{
			if (m->events[i].add)
				level = m->events[i].level;
			else if (level == m->events[i].level)
				level = -1;
		}
	return level;
}

static bool
dv_deleted(const model *m, const char *file, int pos, int s)
{
	const mdv  *last = NULL;

	for (int i = 0; i < m->ndvs; i++)
		if (m->dvs[i].snapshot <= s && strcmp(m->dvs[i].file, file) == 0)
			last = &m->dvs[i];
	if (last)
		for (int k = 0; k < last->n; k++)
			if (last->pos[k] == pos)
				return true;
	return false;
}

static int
mval_cmp(const mval *a, const mval *b, const mcol *c)
{
	if (a->isnull || b->isnull)
		return a->isnull == b->isnull ? 0 : a->isnull ? -1 : 1;
	if (c->type == M_STRING)
		return strcmp(a->s, b->s);
	if (c->type == M_DOUBLE)
		return a->d < b->d ? -1 : a->d > b->d;
	return a->i < b->i ? -1 : a->i > b->i;
}

static const model *sort_model;

/* key, then sequence fields, then _SEQUENCE_NUMBER, then retract before add */
static int
mrec_cmp(const void *pa, const void *pb)
{
	const mrec *a = *(mrec * const *) pa,
			   *b = *(mrec * const *) pb;
	int			c = strcmp(a->keystr, b->keystr);

	if (c)
		return c;
	for (int i = 0; i < sort_model->nseq; i++)
	{
		int			k = sort_model->seq_cols[i];

		c = mval_cmp(&a->vals[k], &b->vals[k], &sort_model->cols[k]);
		if (c)
			return sort_model->seq_desc ? -c : c;
	}
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (is_retract(a->kind) != is_retract(b->kind))
		return is_retract(a->kind) ? -1 : 1;
	return 0;
}

static int64_t
wrap(int64_t v, int bits)
{
	return bits == 8 ? (int8_t) v : bits == 16 ? (int16_t) v : bits == 32 ? (int32_t) (uint32_t) v : v;
}

static void
not_null_of(const model *m, const mrec *r, mval *out)
{
	for (int c = 0; c < m->ncols; c++)
		out[c] = m->cols[c].not_null ? r->vals[c] : (mval) {.isnull = true};
}

/*
 * partial-update (Java's PartialUpdateMergeFunction): the non-null columns
 * of the adds; the first record of a key, if a retract, and a -D under
 * remove-record-on-delete set the row to that record's NOT NULL columns;
 * every record clears the delete mark.  The kind: 3 (-D) after such a
 * delete or without any add, else 0 (+I).
 */
static int
model_partial_update(const model *m, mrec **r, int n, mval *out, char **why)
{
	bool		filled = false,
				meet_insert = false,
				deleted = false;

	for (int c = 0; c < m->ncols; c++)
		out[c] = (mval) {.isnull = true};
	for (int i = 0; i < n; i++)
	{
		deleted = false;
		if (is_retract(r[i]->kind))
		{
			if (!filled)
				not_null_of(m, r[i], out);
			filled = true;
			if (m->ignore_delete)
				continue;
			if (!m->remove_on_delete)
				*why = "partial-update got a retract record";
			else if (r[i]->kind == 3)
			{
				deleted = true;
				not_null_of(m, r[i], out);
			}
			continue;
		}
		for (int c = 0; c < m->ncols; c++)
			if (!r[i]->vals[c].isnull)
				out[c] = r[i]->vals[c];
		meet_insert = filled = true;
	}
	return deleted || !meet_insert ? 3 : 0;
}

/* Merge one key's records (in order).  Returns false when no row results. */
static bool
model_merge(const model *m, mrec **r, int n, mval *out, char **why)
{
	const char *e = m->engine;
	bool		has = false;

	if (n == 1)
	{
		memcpy(out, r[0]->vals, sizeof(mval) * (size_t) m->ncols);
		return !is_retract(r[0]->kind);
	}
	for (int c = 0; c < m->ncols; c++)
		out[c] = (mval) {.isnull = true};
	if (strcmp(e, "deduplicate") == 0)
	{
		int			kind = 0;

		for (int i = 0; i < n; i++)
		{
			if (is_retract(r[i]->kind) && m->ignore_delete)
				continue;
			memcpy(out, r[i]->vals, sizeof(mval) * (size_t) m->ncols);
			kind = r[i]->kind;
			has = true;
		}
		return has && !is_retract(kind);
	}
	if (strcmp(e, "first-row") == 0)
	{
		for (int i = 0; i < n; i++)
		{
			if (is_retract(r[i]->kind))
			{
				if (!m->ignore_delete)
					*why = "first-row got a retract record";
				continue;
			}
			memcpy(out, r[i]->vals, sizeof(mval) * (size_t) m->ncols);
			return true;
		}
		return false;
	}
	if (strcmp(e, "partial-update") == 0)
		return model_partial_update(m, r, n, out, why) == 0;
	/* aggregation: the result is always an insert */
	{
		bool	   *first_seen = calloc((size_t) m->ncols, sizeof(bool));
		bool		deleted = false;

		for (int i = 0; i < n; i++)
		{
			bool		retract = is_retract(r[i]->kind);

			if (retract && m->ignore_delete)
				continue;
			if (r[i]->kind == 3 && m->remove_on_delete)
			{
				for (int c = 0; c < m->ncols; c++)
					out[c] = (mval) {.isnull = true}, first_seen[c] = false;
				deleted = true;
				continue;
			}
			deleted = false;
			for (int c = 0; c < m->ncols; c++)
			{
				const mcol *mc = &m->cols[c];
				const mval *v = &r[i]->vals[c];
				mval	   *a = &out[c];
				const char *fn = mc->is_pk ? "pk" : mc->is_seq ? "last_value" : mc->agg;

				if (strcmp(fn, "pk") == 0)
				{
					*a = *v;
					continue;
				}
				if (retract && mc->ignore_retract)
					continue;
				if (strcmp(fn, "sum") == 0)
				{
					if (v->isnull)
						continue;
					if (a->isnull)
					{
						*a = *v;
						if (retract)
							a->i = wrap(-v->i, mc->bits), a->d = -v->d;
					}
					else if (mc->type == M_DOUBLE)
						a->d = retract ? a->d - v->d : a->d + v->d;
					else
						a->i = wrap(retract ? a->i - v->i : a->i + v->i, mc->bits);
				}
				else if (strcmp(fn, "max") == 0 || strcmp(fn, "min") == 0)
				{
					int			cmp;

					if (retract)
					{
						*why = "max/min cannot retract";
						continue;
					}
					if (v->isnull)
						continue;
					cmp = a->isnull ? 0 : mval_cmp(v, a, mc);
					if (a->isnull || (fn[1] == 'a' ? cmp > 0 : cmp < 0))
						*a = *v;
				}
				else if (strcmp(fn, "last_value") == 0)
					*a = retract ? (mval) {.isnull = true} : *v;
				else if (strcmp(fn, "last_non_null_value") == 0)
				{
					if (retract && !v->isnull)
						*a = (mval) {.isnull = true};
					else if (!retract && !v->isnull)
						*a = *v;
				}
				else if (strcmp(fn, "first_non_null_value") == 0 || strcmp(fn, "first_value") == 0)
				{
					if (retract)
					{
						*why = "first_* cannot retract";
						continue;
					}
					if (fn[6] == 'v' ? !first_seen[c] : (a->isnull && !v->isnull))
						*a = *v;
					first_seen[c] = true;
				}
				else
					*why = "aggregate function not modelled";
			}
			has = true;
		}
		free(first_seen);
		return has && !deleted;
	}
}

static char *
render_mval(const mval *v, const mcol *c)
{
	char	   *s;

	if (v->isnull)
		return strdup("NULL");
	if (c->type == M_STRING)
		return strdup(v->s);
	if (c->type == M_DOUBLE)
	{
		if (asprintf(&s, "%.17g", v->d) < 0)
			abort();
		return s;
	}
	if (asprintf(&s, "%lld", (long long) v->i) < 0)
		abort();
	return s;
}

static char *
join_row(char **parts, int n)
{
	size_t		len = 1;
	char	   *s;

	for (int i = 0; i < n; i++)
		len += strlen(parts[i]) + 3;
	s = calloc(len, 1);
	for (int i = 0; i < n; i++)
	{
		if (i)
			strcat(s, " | ");
		strcat(s, parts[i]);
		free(parts[i]);
	}
	return s;
}

typedef struct rowlist
{
	char	  **rows;
	int			n;
} rowlist;

static void
rowlist_add(rowlist *l, char *row)
{
	l->rows = realloc(l->rows, sizeof(char *) * (size_t) (l->n + 1));
	l->rows[l->n++] = row;
}

static void
rowlist_free(rowlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->rows[i]);
	free(l->rows);
	memset(l, 0, sizeof(*l));
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Expected rows of snapshot s, columns proj[0..nproj-1]; *why set if the
 * model met something invalid.
 */
static void
model_expect(const model *m, int s, const int *proj, int nproj, rowlist *out, char **why)
{
	mrec	  **live = calloc((size_t) m->nrecs + 1, sizeof(mrec *));
	int			n = 0;
	bool		skip_level0 = m->dv || strcmp(m->engine, "first-row") == 0;

	for (int i = 0; i < m->nrecs; i++)
	{
		int			level = live_level(m, m->recs[i].file, s);

		if (level < 0 || (level == 0 && skip_level0))
			continue;
		if (dv_deleted(m, m->recs[i].file, m->recs[i].pos, s))
			continue;
		live[n++] = &m->recs[i];
	}
	sort_model = m;
	if (n > 1)
		qsort(live, (size_t) n, sizeof(mrec *), mrec_cmp);
	for (int i = 0; i < n;)
	{
		int			j = i + 1;
		mval	   *res = calloc((size_t) m->ncols, sizeof(mval));

		while (j < n && strcmp(live[i]->keystr, live[j]->keystr) == 0)
			j++;
		if (model_merge(m, live + i, j - i, res, why))
		{
			char	  **parts = calloc((size_t) nproj + 1, sizeof(char *));

			for (int c = 0; c < nproj; c++)
				parts[c] = render_mval(&res[proj[c]], &m->cols[proj[c]]);
			rowlist_add(out, join_row(parts, nproj));
			free(parts);
		}
		free(res);
		i = j;
	}
	free(live);
}

/*
 * incremental-between-scan-mode diff (a, b] (Java's IncrementalDiffSplitRead,
 * written out again): each side merges, per key, the records of the files
 * live at its snapshot and not at the other's (same name and level; the
 * batch level-0 rule applies); only after, or both with after not older
 * (sequence fields, then sequence number) and another value -> the after
 * row with its kind; only before -> the before row as -D.  Rows are the
 * projection plus the kind.
 */
static const char *const kind_names[] = {"+I", "-U", "+U", "-D"};

/* The row vals (columns proj) and its kind, as the rows read with _ROW_KIND render. */
static void
add_row_with_kind(const model *m, const mval *vals, int kind, const int *proj, int nproj,
				  rowlist *out)
{
	char	  **parts = calloc((size_t) nproj + 2, sizeof(char *));

	for (int q = 0; q < nproj; q++)
		parts[q] = render_mval(&vals[proj[q]], &m->cols[proj[q]]);
	parts[nproj] = strdup(kind_names[kind]);
	rowlist_add(out, join_row(parts, nproj + 1));
	free(parts);
}

/* A side's merged row of records r[0..n) (sorted): its kind and representative record. */
static bool
model_side(const model *m, mrec **r, int n, mval *out, int *kind, const mrec **rep, char **why)
{
	if (!model_merge(m, r, n, out, why))
		return false;
	*rep = r[n - 1];
	*kind = n == 1 || strcmp(m->engine, "deduplicate") == 0 ? r[n - 1]->kind : 0;
	if (strcmp(m->engine, "first-row") == 0)
		for (int i = 0; i < n; i++)
			if (!is_retract(r[i]->kind))
			{
				*rep = r[i];
				*kind = r[i]->kind;
				break;
			}
	if (strcmp(m->engine, "deduplicate") == 0 && m->ignore_delete)
		for (int i = n - 1; i >= 0; i--)
			if (!is_retract(r[i]->kind))
			{
				*rep = r[i];
				*kind = r[i]->kind;
				break;
			}
	return true;
}

static void
model_diff(const model *m, int a, int b, const int *proj, int nproj, rowlist *out, char **why)
{
	mrec	  **side[2];
	int			n[2] = {0, 0};
	bool		skip_level0 = m->dv || strcmp(m->engine, "first-row") == 0;

	for (int k = 0; k < 2; k++)
	{
		int			x = k == 0 ? a : b,
					y = k == 0 ? b : a;

		side[k] = calloc((size_t) m->nrecs + 1, sizeof(mrec *));
		for (int i = 0; i < m->nrecs; i++)
		{
			int			level = live_level(m, m->recs[i].file, x);

			if (level < 0 || (level == 0 && skip_level0) ||
				live_level(m, m->recs[i].file, y) == level)
				continue;
			side[k][n[k]++] = &m->recs[i];
		}
		sort_model = m;
		if (n[k] > 1)
			qsort(side[k], (size_t) n[k], sizeof(mrec *), mrec_cmp);
	}
	for (int i = 0, j = 0; i < n[0] || j < n[1];)
	{
		int			c = i >= n[0] ? 1 : j >= n[1] ? -1 : strcmp(side[0][i]->keystr, side[1][j]->keystr);
		int			ie = i,
					je = j,
					kind[2] = {0, 0};
		mval	   *res[2];
		bool		has[2] = {false, false};
		const mrec *rep[2] = {NULL, NULL};
		const mval *emit = NULL;
		int			emit_kind = 0;

		if (c <= 0)
			while (ie < n[0] && strcmp(side[0][ie]->keystr, side[0][i]->keystr) == 0)
				ie++;
		if (c >= 0)
			while (je < n[1] && strcmp(side[1][je]->keystr, side[1][j]->keystr) == 0)
				je++;
		res[0] = calloc((size_t) m->ncols, sizeof(mval));
		res[1] = calloc((size_t) m->ncols, sizeof(mval));
		if (ie > i)
			has[0] = model_side(m, side[0] + i, ie - i, res[0], &kind[0], &rep[0], why);
		if (je > j)
			has[1] = model_side(m, side[1] + j, je - j, res[1], &kind[1], &rep[1], why);
		if (has[1] && !has[0])
			emit = res[1], emit_kind = kind[1];
		else if (has[0] && !has[1])
			emit = res[0], emit_kind = 3;
		else if (has[0] && has[1])
		{
			int			order = 0;
			bool		same = true;

			for (int q = 0; q < m->nseq && order == 0; q++)
			{
				int			col = m->seq_cols[q];

				order = mval_cmp(&res[1][col], &res[0][col], &m->cols[col]);
				if (m->seq_desc)
					order = -order;
			}
			if (order == 0 && rep[1]->seq < rep[0]->seq)
				order = -1;
			for (int col = 0; col < m->ncols && same; col++)
				same = mval_cmp(&res[0][col], &res[1][col], &m->cols[col]) == 0;
			if (order >= 0 && !same)
				emit = res[1], emit_kind = kind[1];
		}
		if (emit)
			add_row_with_kind(m, emit, emit_kind, proj, nproj, out);
		free(res[0]);
		free(res[1]);
		i = ie;
		j = je;
	}
	free(side[0]);
	free(side[1]);
}

/*
 * incremental-between (a, b] in scan mode delta (written out again from
 * Java: IncrementalStartingScanner takes the files APPEND snapshots a+1..b
 * added, level 0 hidden as in a batch scan (first-row; deletion vectors
 * without merge-on-read), no deletion vectors; MergeFileSplitRead merges
 * each key's records with the engine's merge function and keeps DELETE
 * results as rows (forceKeepDelete)).  A key with one record is that
 * record with its kind.  Otherwise, per engine: deduplicate the last record
 * (ignore-delete: the last add; none: no row); first-row the first add;
 * partial-update (PartialUpdateMergeFunction) the non-null columns of the
 * adds, reset by a -D under remove-record-on-delete to the record's NOT
 * NULL columns (as the first retract of a key sets them), kind -D after
 * such a delete or without any add, else +I; aggregation
 * (AggregateMergeFunction) the aggregate of the records, -D with the NOT
 * NULL columns of a last -D under remove-record-on-delete, else +I.
 */
static bool
model_merge_keeping(const model *m, mrec **r, int n, mval *out, int *kind, char **why)
{
	const char *e = m->engine;

	if (n == 1)
	{
		memcpy(out, r[0]->vals, sizeof(mval) * (size_t) m->ncols);
		*kind = r[0]->kind;
		return true;
	}
	if (strcmp(e, "deduplicate") == 0 || strcmp(e, "first-row") == 0)
	{
		bool		first = strcmp(e, "first-row") == 0;

		for (int k = 0; k < n; k++)
		{
			const mrec *x = r[first ? k : n - 1 - k];

			if (is_retract(x->kind) && (m->ignore_delete || first))
			{
				if (first && !m->ignore_delete)
					*why = "first-row got a retract record";
				continue;
			}
			memcpy(out, x->vals, sizeof(mval) * (size_t) m->ncols);
			*kind = x->kind;
			return true;
		}
		return false;
	}
	if (strcmp(e, "partial-update") == 0)
	{
		*kind = model_partial_update(m, r, n, out, why);
		return true;
	}
	/* aggregation: the values as a batch read aggregates them */
	{
		const mrec *last = NULL;

		(void) model_merge(m, r, n, out, why);
		for (int i = n - 1; i >= 0 && last == NULL; i--)
			if (!(is_retract(r[i]->kind) && m->ignore_delete))
				last = r[i];
		if (last == NULL)
			return false;
		if (last->kind == 3 && m->remove_on_delete)
		{
			not_null_of(m, last, out);
			*kind = 3;
			return true;
		}
		*kind = 0;
		return true;
	}
}

static void
model_delta(const model *m, int a, int b, bool merge_on_read, const int *proj, int nproj,
			rowlist *out, char **why)
{
	mrec	  **recs = calloc((size_t) m->nrecs + 1, sizeof(mrec *));
	int			n = 0;
	bool		skip_level0 = strcmp(m->engine, "first-row") == 0 || (m->dv && !merge_on_read);

	for (int i = 0; i < m->nrecs; i++)
	{
		bool		added = false;

		for (int e = 0; e < m->nevents && !added; e++)
		{
			const mfile_event *ev = &m->events[e];

			added = ev->add && ev->snapshot > a && ev->snapshot <= b && m->append[ev->snapshot] &&
				strcmp(ev->file, m->recs[i].file) == 0 && !(ev->level == 0 && skip_level0);
		}
		if (added)
			recs[n++] = &m->recs[i];
	}
	sort_model = m;
	if (n > 1)
		qsort(recs, (size_t) n, sizeof(mrec *), mrec_cmp);
	for (int i = 0; i < n;)
	{
		int			j = i + 1,
					kind = 0;
		mval	   *res = calloc((size_t) m->ncols, sizeof(mval));

		while (j < n && strcmp(recs[i]->keystr, recs[j]->keystr) == 0)
			j++;
		if (model_merge_keeping(m, recs + i, j - i, res, &kind, why))
			add_row_with_kind(m, res, kind, proj, nproj, out);
		free(res);
		i = j;
	}
	free(recs);
}

/* ---- our stack ------------------------------------------------------- */

/*
 * The large-buffer pool the split readers share (NULL: none), as the FDW's
 * scan shares one: a merge's file readers then take back the page and chunk
 * buffers of the split (or the read) before.
 */
static ts_bufpool *read_buffers;

/*
 * Pages decompressed ahead in the helper thread while the merge reads
 * (as tablescan.decompress_ahead: on around ts_split_reader_next only).
 */
static bool read_ahead;

/*
 * Allocations of at least LARGE_ALLOC bytes made while the split readers
 * read (not while planning), when count_read_allocs is on and the hooks
 * below are installed.
 */
#define LARGE_ALLOC ((size_t) 16 << 10)
static bool count_read_allocs;
static bool large_count;
static int	large_allocs;

static void *
counting_alloc(size_t size)
{
	if (large_count && size >= LARGE_ALLOC)
	{
		large_allocs++;
		if (getenv("TS_PK_LARGE_ALLOCS"))
			print_message("large allocation: %zu bytes\n", size);
	}
	return malloc(size ? size : 1);
}

static void *
counting_realloc(void *p, size_t size)
{
	if (large_count && size >= LARGE_ALLOC)
	{
		large_allocs++;
		if (getenv("TS_PK_LARGE_ALLOCS"))
			print_message("large reallocation: %zu bytes\n", size);
	}
	return realloc(p, size ? size : 1);
}

static bool stack_read_opts(const char *table, const ts_option *opts, int nopts, const int *proj,
							int nproj, rowlist *out, ts_err *err);

static char *
render_value(const ts_value *v, const ts_type *t)
{
	char	   *s;

	if (v->isnull)
		return strdup("NULL");
	switch (t->kind)
	{
		case TS_DOUBLE:
			if (asprintf(&s, "%.17g", v->v.d) < 0)
				abort();
			return s;
		case TS_CHAR:
		case TS_VARCHAR:
			return strndup((const char *) v->v.s.p, v->v.s.len);
		default:
			if (asprintf(&s, "%lld", (long long) v->v.i) < 0)
				abort();
			return s;
	}
}

/*
 * Rows of snapshot s, columns proj[0..nproj-1], read through ts_scan_plan +
 * split readers; false + err on failure.
 */
static bool
stack_read(const char *table, int s, const int *proj, int nproj, rowlist *out, ts_err *err)
{
	char		snap[32];
	ts_option	opts[1];

	snprintf(snap, sizeof(snap), "%d", s);
	opts[0].key = "scan.snapshot-id";
	opts[0].value = snap;
	return stack_read_opts(table, opts, 1, proj, nproj, out, err);
}

/* The rows of a scan with options opts (a column TS_COLUMN_ROW_KIND as its kind). */
static bool
stack_read_opts(const char *table, const ts_option *opts, int nopts, const int *proj, int nproj,
				rowlist *out, ts_err *err)
{
	ts_scan_context ctx;
	ts_plan    *plan;
	bool		ok = true;

	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = table;
	ctx.noptions = nopts;
	ctx.options = opts;
	ctx.limit = -1;
	ctx.enable_pruning = true;
	plan = ts_scan_plan(&ctx, err);
	if (plan == NULL)
		return false;
	large_count = count_read_allocs;
	for (int sp = 0; sp < plan->nsplits && ok; sp++)
	{
		int			ncols = nproj;
		ts_split_reader *r;
		ts_batch	b;
		int			got;

		r = ts_split_reader_open_buffers(plan, &plan->splits[sp], proj, nproj, read_buffers, err);
		if (r == NULL)
			ok = false;
		while (ok && (ts_bg_set_enabled(read_ahead), got = ts_split_reader_next(r, &b, err)) != 0)
		{
			ts_bg_set_enabled(false);
			if (got < 0)
			{
				ok = false;
				break;
			}
			for (int row = 0; row < b.nrows; row++)
			{
				char	  **parts = calloc((size_t) ncols + 1, sizeof(char *));

				for (int c = 0; c < ncols; c++)
					parts[c] = proj[c] == TS_COLUMN_ROW_KIND ?
						strndup((const char *) ts_batch_at(&b, row, c)->v.s.p, ts_batch_at(&b, row, c)->v.s.len) :
						render_value(ts_batch_at(&b, row, c), plan->schema->fields[proj[c]].type);
				rowlist_add(out, join_row(parts, ncols));
				free(parts);
			}
		}
		ts_bg_set_enabled(false);
		ts_split_reader_close(r);
	}
	large_count = false;
	ts_plan_free(plan);
	return ok;
}

/* ---- cases ------------------------------------------------------------- */

typedef struct pk_case
{
	const char *name;
	const char *args;			/* ts_gen options, space separated */
} pk_case;

#define COLS "--column id:INT --column p:INT --column v:STRING --column n:BIGINT --column d:DOUBLE " \
	"--partition p --partitions 2 --primary-key id --buckets 2 "

static const pk_case cases[] = {
	{"dedup_level0_only", COLS "--rows 30 --keys 20 --snapshots 4 --files 3 --delete-every 6 "
	"--retract-every 9 --null-every 4"},
	{"dedup_levels", COLS "--rows 40 --keys 24 --snapshots 6 --files 3 --compact-every 2 --levels 3 "
	"--delete-every 6 --retract-every 9 --null-every 5 --compact-file-rows 3"},
	{"dedup_dv", COLS "--rows 40 --keys 24 --snapshots 6 --files 2 --compact-every 2 --levels 2 "
	"--delete-every 6 --retract-every 9 --null-every 5 --compact-file-rows 4 --deletion-vectors"},
	{"dedup_dv_3levels", COLS "--rows 25 --keys 30 --snapshots 7 --files 2 --compact-every 1 --levels 3 "
	"--delete-every 5 --deletion-vectors --seed 7"},
	{"dedup_sequence_field", COLS "--column ts:INT --sequence-field ts --rows 30 --keys 12 --snapshots 5 "
	"--files 2 --compact-every 2 --levels 2 --delete-every 7"},
	{"dedup_sequence_field_desc", COLS "--column ts:INT --sequence-field ts "
	"--option sequence.field.sort-order=descending --rows 30 --keys 12 --snapshots 5 --files 2 "
	"--compact-every 2 --levels 2 --delete-every 7"},
	/* more runs in a split than the merge's packed order numbers (merge.c: 128) */
	{"dedup_many_runs", "--column id:INT --column v:STRING --primary-key id --buckets 1 --rows 300 "
	"--keys 40 --snapshots 2 --files 70 --delete-every 6 --retract-every 9"},
	{"dedup_multi_key", "--column a:INT --column b:STRING --column v:BIGINT --primary-key a,b --buckets 3 "
	"--rows 30 --keys 15 --snapshots 5 --files 2 --compact-every 3 --levels 2 --delete-every 5"},
	{"dedup_upgrades", COLS "--rows 6 --keys 60 --snapshots 6 --files 1 --compact-every 1 --levels 2 "
	"--delete-every 9"},
	{"dedup_dv_upgrades", COLS "--rows 6 --keys 60 --snapshots 6 --files 1 --compact-every 1 --levels 2 "
	"--deletion-vectors --seed 3"},
	{"first_row", COLS "--merge-engine first-row --option ignore-delete=true --rows 30 --keys 20 "
	"--snapshots 6 --files 2 --compact-every 2 --levels 2 --delete-every 7"},
	{"first_row_dv", COLS "--merge-engine first-row --rows 30 --keys 40 --snapshots 5 --files 2 "
	"--compact-every 1 --levels 3 --deletion-vectors"},
	{"partial_update", COLS "--merge-engine partial-update --option partial-update.remove-record-on-delete=true "
	"--rows 30 --keys 16 --snapshots 6 --files 2 --compact-every 2 --levels 2 --null-every 2 --delete-every 8"},
	{"partial_update_dv", COLS "--merge-engine partial-update --option ignore-delete=true --rows 30 --keys 16 "
	"--snapshots 6 --files 2 --compact-every 2 --levels 2 --null-every 2 --delete-every 8 --deletion-vectors"},
	{"aggregation", "--column id:INT --column p:INT --column v:STRING --column n:BIGINT --column d:DOUBLE "
	"--column i:INT --partition p --primary-key id --buckets 2 --merge-engine aggregation --agg n:sum "
	"--agg d:sum --agg i:max --option fields.i.ignore-retract=true --rows 40 --keys 16 --snapshots 6 "
	"--files 3 --compact-every 2 --levels 3 --null-every 5 --delete-every 6 --retract-every 11"},
	/* incremental delta reads keep -D results: deletes and retracts of both engines */
	{"partial_update_retracts", COLS "--merge-engine partial-update "
	"--option partial-update.remove-record-on-delete=true --rows 30 --keys 12 --snapshots 7 --files 2 "
	"--compact-every 3 --levels 2 --null-every 2 --delete-every 4 --retract-every 5"},
	{"aggregation_remove_on_delete", "--column id:INT --column p:INT --column n:BIGINT --column d:DOUBLE "
	"--partition p --primary-key id --buckets 2 --merge-engine aggregation --agg n:sum --agg d:sum "
	"--option aggregation.remove-record-on-delete=true --rows 30 --keys 12 --snapshots 7 --files 2 "
	"--compact-every 3 --levels 2 --null-every 5 --delete-every 4 --retract-every 7"},
	{"aggregation_dv", "--column id:INT --column p:INT --column v:STRING --column n:BIGINT --column d:DOUBLE "
	"--column i:INT --partition p --primary-key id --buckets 2 --merge-engine aggregation --agg n:sum "
	"--agg d:sum --agg i:max --option fields.i.ignore-retract=true --rows 40 --keys 16 --snapshots 6 "
	"--files 2 --compact-every 2 --levels 2 --null-every 5 --delete-every 6 --deletion-vectors"},
	{"aggregation_other_functions", "--column id:INT --column p:INT --column v:STRING --column n:BIGINT "
	"--column d:DOUBLE --column i:INT --partition p --primary-key id --buckets 2 --merge-engine aggregation "
	"--agg n:min --agg d:first_value --agg i:last_value --agg v:first_non_null_value "
	"--option fields.n.ignore-retract=true --option fields.d.ignore-retract=true "
	"--option fields.v.ignore-retract=true --rows 30 --keys 12 --snapshots 6 --files 2 --compact-every 2 "
	"--levels 2 --null-every 3 --delete-every 7"},
	{"dedup_five_levels", COLS "--rows 20 --keys 40 --snapshots 10 --files 2 --compact-every 1 --levels 5 "
	"--delete-every 6 --retract-every 10 --compact-file-rows 2"},
	{"dedup_dv_five_levels", COLS "--rows 20 --keys 40 --snapshots 10 --files 2 --compact-every 1 "
	"--levels 5 --delete-every 6 --compact-file-rows 2 --deletion-vectors"},
	/* no partition, one integer key: merge-on-read hands file rows on as they are and caches keys */
	{"dedup_unpartitioned_int_key", "--column id:BIGINT --column v:STRING --column n:INT --primary-key id "
	"--buckets 2 --rows 40 --keys 25 --snapshots 6 --files 3 --delete-every 6 --retract-every 9 --null-every 4"},
	{"dedup_unpartitioned_int_key_levels", "--column id:INT --column v:STRING --column d:DOUBLE "
	"--primary-key id --buckets 1 --rows 30 --keys 20 --snapshots 7 --files 2 --compact-every 3 --levels 2 "
	"--delete-every 5 --compact-file-rows 4"},
	/* merge order (merge.c's loser tree): many runs, each holding every key */
	{"merge_key_in_every_run", "--column id:BIGINT --column v:STRING --column n:INT --primary-key id "
	"--buckets 1 --rows 12 --keys 3 --snapshots 12 --retract-every 5 --null-every 4"},
	{"merge_key_in_every_run_first_row", "--column id:INT --column v:STRING --primary-key id --buckets 1 "
	"--merge-engine first-row --option ignore-delete=true --rows 8 --keys 4 --snapshots 9 --delete-every 6"},
	{"merge_runs_of_one_row", "--column id:INT --column v:STRING --column n:BIGINT --primary-key id "
	"--buckets 1 --rows 1 --keys 5 --snapshots 14 --delete-every 4"},
	{"merge_string_key", "--column k:STRING --column v:BIGINT --column d:DOUBLE --primary-key k "
	"--buckets 2 --rows 24 --keys 14 --snapshots 7 --delete-every 6 --retract-every 7 --null-every 3"},
	{"merge_string_key_partial_update", "--column k:STRING --column v:BIGINT --column w:STRING "
	"--primary-key k --buckets 1 --merge-engine partial-update --option ignore-delete=true --rows 10 "
	"--keys 13 --snapshots 8 --null-every 2 --delete-every 5"},
	{"merge_smallint_key", "--column id:SMALLINT --column v:STRING --primary-key id --buckets 1 "
	"--rows 15 --keys 10 --snapshots 6 --delete-every 5"},
	{"merge_tinyint_string_key", "--column a:TINYINT --column b:STRING --column v:BIGINT --primary-key a,b "
	"--buckets 1 --rows 12 --keys 7 --snapshots 8 --delete-every 4"},
	{"merge_one_row_runs_dv", "--column id:INT --column v:STRING --primary-key id --buckets 1 --rows 1 "
	"--keys 2 --snapshots 8 --files 1 --compact-every 1 --levels 2 --deletion-vectors --delete-every 3"},
	/* Avro blocks of 2-3 rows */
	{"merge_small_blocks", "--column id:INT --column v:STRING --column n:BIGINT --primary-key id --buckets 1 "
	"--rows 40 --keys 50 --snapshots 5 --row-group-rows 3 --delete-every 6 --null-every 5"},
	{"merge_small_blocks_first_row", "--column id:BIGINT --column v:STRING --primary-key id --buckets 1 "
	"--merge-engine first-row --option ignore-delete=true --rows 30 --keys 40 --snapshots 4 --row-group-rows 2"},
	/* files of several 64 KiB Avro blocks: a run moves to its next block while output rows still point into the last one (merge.c unpin) */
	{"merge_runs_of_many_batches", "--column id:INT --column v:STRING --column w:STRING --primary-key id "
	"--buckets 1 --rows 20000 --keys 20000 --snapshots 3"},
	/* the same merges over Parquet runs (the extension's writer, zstd), Paimon's default format */
	{"parquet_dedup_levels", COLS "--rows 40 --keys 24 --snapshots 6 --files 3 --compact-every 2 --levels 3 "
	"--delete-every 6 --retract-every 9 --null-every 5 --compact-file-rows 3 --format parquet"},
	{"parquet_dedup_dv", COLS "--rows 40 --keys 24 --snapshots 6 --files 2 --compact-every 2 --levels 2 "
	"--delete-every 6 --retract-every 9 --null-every 5 --compact-file-rows 4 --deletion-vectors "
	"--format parquet"},
	{"parquet_dedup_sequence_field_desc", COLS "--column ts:INT --sequence-field ts "
	"--option sequence.field.sort-order=descending --rows 30 --keys 12 --snapshots 5 --files 2 "
	"--compact-every 2 --levels 2 --delete-every 7 --format parquet"},
	{"parquet_first_row", COLS "--merge-engine first-row --option ignore-delete=true --rows 30 --keys 20 "
	"--snapshots 6 --files 2 --compact-every 2 --levels 2 --delete-every 7 --format parquet"},
	{"parquet_partial_update", COLS "--merge-engine partial-update "
	"--option partial-update.remove-record-on-delete=true --rows 30 --keys 16 --snapshots 6 --files 2 "
	"--compact-every 2 --levels 2 --null-every 2 --delete-every 8 --format parquet"},
	{"parquet_aggregation", "--column id:INT --column p:INT --column v:STRING --column n:BIGINT "
	"--column d:DOUBLE --column i:INT --partition p --primary-key id --buckets 2 --merge-engine aggregation "
	"--agg n:sum --agg d:sum --agg i:max --option fields.i.ignore-retract=true --rows 40 --keys 16 "
	"--snapshots 6 --files 3 --compact-every 2 --levels 3 --null-every 5 --delete-every 6 "
	"--retract-every 11 --format parquet"},
	{"parquet_merge_string_key", "--column k:STRING --column v:BIGINT --column d:DOUBLE --primary-key k "
	"--buckets 2 --rows 24 --keys 14 --snapshots 7 --delete-every 6 --retract-every 7 --null-every 3 "
	"--format parquet --codec null"},
	{"parquet_merge_runs_of_many_batches", "--column id:INT --column v:STRING --column w:STRING "
	"--primary-key id --buckets 1 --rows 20000 --keys 20000 --snapshots 3 --format parquet"},
};

static char tmpdir[256];

static int
split_args(const char *args, char **argv, int max)
{
	char	   *s = strdup(args);
	char	   *save = NULL;
	int			n = 0;

	for (char *t = strtok_r(s, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		argv[n++] = strdup(t);
	free(s);
	return n;
}

/* ts_gen writes table with args (a split_args string): true when it did */
static bool
gen_table(const char *table, const char *args)
{
	char	   *argv[128];
	int			argc = 0;
	bool		ok;

	argv[argc++] = "ts_gen";
	argv[argc++] = (char *) table;
	argc += split_args(args, argv + argc, 120);
	argv[argc] = NULL;
	ok = run_ts_gen(argv, argc) == 0;
	for (int k = 2; k < argc; k++)
		free(argv[k]);
	return ok;
}

/* rm -rf dir (a scratch directory of a test), said on stderr when it fails */
static void
remove_tree(const char *dir)
{
	char	   *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0)
	{
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
		free(cmd);
	}
}

/* a scratch directory dir (prefix: /tmp/<tag>_) holding table <dir>/t written by ts_gen args */
static void
scratch_table(char dir[256], char table[512], const char *tag, const char *args)
{
	snprintf(dir, 256, "/tmp/%s_XXXXXX", tag);
	assert_non_null(mkdtemp(dir));
	snprintf(table, 512, "%s/t", dir);
	assert_true(gen_table(table, args));
}

/* One comparison: snapshot s, projection proj; 0 pass, 1 unsupported, -1 fail. */
static int
compare_one(const model *m, const char *name, const char *table, int s, const int *proj, int nproj,
			const char *what)
{
	rowlist		want = {0},
				got = {0};
	char	   *why = NULL;
	ts_err		err = {0};
	int			result = 0;

	model_expect(m, s, proj, nproj, &want, &why);
	if (why)
	{
		fprintf(stderr, "FAIL %s snapshot %d: generator wrote an invalid stream: %s\n", name, s, why);
		result = -1;
	}
	else if (!stack_read(table, s, proj, nproj, &got, &err))
	{
		if (err.code == TS_ERR_UNSUPPORTED)
		{
			fprintf(stderr, "SKIP %s: reader says unsupported: %s\n", name, err.msg);
			result = 1;
		}
		else
		{
			fprintf(stderr, "FAIL %s snapshot %d (%s): %s\n", name, s, what, err.msg);
			result = -1;
		}
	}
	else
	{
		if (want.n > 1)
			qsort(want.rows, (size_t) want.n, sizeof(char *), cmp_strp);
		if (got.n > 1)
			qsort(got.rows, (size_t) got.n, sizeof(char *), cmp_strp);
		if (want.n != got.n)
			result = -1;
		for (int i = 0; i < want.n && result == 0; i++)
			if (strcmp(want.rows[i], got.rows[i]) != 0)
				result = -1;
		if (result < 0)
		{
			fprintf(stderr, "FAIL %s snapshot %d (%s): %d rows, model %d\n", name, s, what, got.n, want.n);
			for (int i = 0; i < got.n; i++)
				fprintf(stderr, "  got : %s\n", got.rows[i]);
			for (int i = 0; i < want.n; i++)
				fprintf(stderr, "  want: %s\n", want.rows[i]);
		}
	}
	rowlist_free(&want);
	rowlist_free(&got);
	return result;
}

/*
 * incremental-between (a, b] against the model: scan mode diff (model_diff)
 * or delta (model_delta; merge_on_read adds deletion-vectors.merge-on-read);
 * 0 pass, 1 refused, -1 fail.
 */
static int
compare_range(const model *m, const char *name, const char *table, int a, int b, bool diff,
			  bool merge_on_read, const int *all, int ncols, int *checked)
{
	rowlist		want = {0},
				got = {0};
	char	   *why = NULL,
				range[32];
	ts_err		err = {0};
	int			proj[65],
				result = 0;
	const char *mode = diff ? "diff" : "delta";
	ts_option	opts[3] = {{"incremental-between", range}, {"incremental-between-scan-mode", mode},
	{"deletion-vectors.merge-on-read", "true"}};

	snprintf(range, sizeof(range), "%d,%d", a, b);
	memcpy(proj, all, sizeof(int) * (size_t) ncols);
	proj[ncols] = TS_COLUMN_ROW_KIND;
	if (diff)
		model_diff(m, a, b, all, ncols, &want, &why);
	else
		model_delta(m, a, b, merge_on_read, all, ncols, &want, &why);
	if (why)
		result = 0;				/* the stream is invalid for the model: no check */
	else if (!stack_read_opts(table, opts, merge_on_read ? 3 : 2, proj, ncols + 1, &got, &err))
	{
		result = err.code == TS_ERR_UNSUPPORTED ? 1 : -1;
		if (result < 0)
			fprintf(stderr, "FAIL %s %s %s: %s\n", name, mode, range, err.msg);
	}
	else
	{
		if (want.n > 1)
			qsort(want.rows, (size_t) want.n, sizeof(char *), cmp_strp);
		if (got.n > 1)
			qsort(got.rows, (size_t) got.n, sizeof(char *), cmp_strp);
		result = want.n == got.n ? 0 : -1;
		for (int i = 0; i < want.n && result == 0; i++)
			if (strcmp(want.rows[i], got.rows[i]) != 0)
				result = -1;
		if (result < 0)
		{
			fprintf(stderr, "FAIL %s %s %s: %d rows, model %d\n", name, mode, range, got.n, want.n);
			for (int i = 0; i < got.n; i++)
				fprintf(stderr, "  got : %s\n", got.rows[i]);
			for (int i = 0; i < want.n; i++)
				fprintf(stderr, "  want: %s\n", want.rows[i]);
		}
		else
			(*checked)++;
	}
	rowlist_free(&want);
	rowlist_free(&got);
	return result;
}

/*
 * Generate one table (seed 0 = the case's own) and compare every snapshot
 * with every projection (all columns, reversed, value columns only, none)
 * and reader batch sizes (default, 2 rows).
 * 0 = pass, 1 = skipped (unsupported), -1 = fail.
 */
static int
run_case(const pk_case *pc, int seed, int *checked)
{
	char	   *argv[128];
	int			argc = 0;
	char		table[1024],
				ops[1100],
				name[300],
				seedbuf[32];
	model		m;
	int			result = 0;

	memset(&m, 0, sizeof(m));
	if (seed > 0)
		snprintf(name, sizeof(name), "%s_seed%d", pc->name, seed);
	else
		snprintf(name, sizeof(name), "%s", pc->name);
	snprintf(table, sizeof(table), "%s/%s", tmpdir, name);
	snprintf(ops, sizeof(ops), "%s.ops.jsonl", table);
	argv[argc++] = "ts_gen";
	argv[argc++] = table;
	argc += split_args(pc->args, argv + argc, 120);
	if (seed > 0)
	{
		snprintf(seedbuf, sizeof(seedbuf), "%d", seed);
		argv[argc++] = strdup("--seed");
		argv[argc++] = strdup(seedbuf);
	}
	argv[argc] = NULL;
	if (run_ts_gen(argv, argc) != 0)
	{
		fprintf(stderr, "FAIL %s: ts_gen failed\n", name);
		result = -1;
	}
	else if (!model_load(&m, ops))
	{
		fprintf(stderr, "FAIL %s: cannot load %s\n", name, ops);
		result = -1;
	}
	else
	{
		int			all[64],
					rev[64],
					vals[64];
		int			nvals = 0;

		for (int c = 0; c < m.ncols; c++)
		{
			all[c] = c;
			rev[c] = m.ncols - 1 - c;
			if (!m.cols[c].is_pk)
				vals[nvals++] = c;
		}
		ts_bufpool *pool = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);

		assert_non_null(pool);
		for (int s = 1; s <= m.nsnapshots && result == 0; s++)
			for (int pass = 0; pass < 4 && result == 0; pass++)
			{
				ts_read_batch_rows = pass == 0 ? 0 : 2;
				/* the second pass through buffers handed from read to read */
				read_buffers = pass == 0 ? NULL : pool;
				/*
				 * the third with the merge's general comparison only, the
				 * fourth switching to it in the middle of each merge
				 */
				ts_merge_fast_seq_limit = pass == 2 ? 0 : pass == 3 ? 4 : INT64_MAX;
				result = compare_one(&m, name, table, s, all, m.ncols, "all columns");
				if (result == 0)
					result = compare_one(&m, name, table, s, rev, m.ncols, "reversed columns");
				if (result == 0)
					result = compare_one(&m, name, table, s, vals, nvals, "value columns");
				if (result == 0)
					result = compare_one(&m, name, table, s, NULL, 0, "no columns");
				if (result == 0)
					(*checked)++;
			}
		ts_read_batch_rows = 0;
		ts_merge_fast_seq_limit = INT64_MAX;
		read_buffers = pool;	/* the range reads too */
		for (int a = 1; a <= m.nsnapshots && result == 0; a++)
			for (int b = a + 1; b <= m.nsnapshots && result == 0; b++)
				result = compare_range(&m, name, table, a, b, true, false, all, m.ncols, checked);
		if (result == 1)
			result = 0;			/* diff refused (deletion vectors): the snapshots passed */
		/* scan mode delta, from before the first snapshot on; DV tables with merge-on-read too */
		for (int mor = 0; mor <= (m.dv ? 1 : 0) && result == 0; mor++)
			for (int a = 0; a <= m.nsnapshots && result == 0; a++)
				for (int b = a + 1; b <= m.nsnapshots && result == 0; b++)
					result = compare_range(&m, name, table, a, b, false, mor == 1, all, m.ncols,
										   checked);
		read_buffers = NULL;
		ts_bufpool_free(pool);
		if (result == 0)
			fprintf(stderr, "ok   %s (%d snapshots)\n", name, m.nsnapshots);
	}
	model_free(&m);
	for (int i = 2; i < argc; i++)
		free(argv[i]);
	return result;
}

static void
test_pk_model_cases(void **state)
{
	int			failed = 0,
				skipped = 0,
				checked = 0,
				runs = 0;
	const char *seeds_env = getenv("TS_PK_MODEL_SEEDS");
	int			seeds = seeds_env ? atoi(seeds_env) : 0;

	(void) state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ts_pk_model_XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	/* each case with its own seed; TS_PK_MODEL_SEEDS=N adds seeds 1..N */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int seed = 0; seed <= seeds; seed++)
		{
			int			r = run_case(&cases[i], seed, &checked);

			runs++;
			failed += r < 0;
			skipped += r > 0;
		}
	fprintf(stderr, "pk model: %d tables, %d failed, %d skipped, %d snapshot x batch-size "
			"comparisons (4 projections each) (tables in %s)\n",
			runs, failed, skipped, checked, tmpdir);
	if (failed == 0 && getenv("TS_KEEP_PK_TABLES") == NULL)
		remove_tree(tmpdir);
	assert_int_equal(failed, 0);
	assert_true(checked > 0);
}

/* ---- layout invariants of the generated files ------------------------ */

static int
key_cmp(const ts_value *a, const ts_value *b, const ts_type *const *types, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			c;

		if (ts_type_is_bytes(types[i]->kind))
		{
			uint32_t	l = a[i].v.s.len < b[i].v.s.len ? a[i].v.s.len : b[i].v.s.len;

			c = memcmp(a[i].v.s.p, b[i].v.s.p, l);
			if (c == 0)
				c = a[i].v.s.len < b[i].v.s.len ? -1 : a[i].v.s.len > b[i].v.s.len;
		}
		else
			c = a[i].v.i < b[i].v.i ? -1 : a[i].v.i > b[i].v.i;
		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * Check one generated table at snapshot s with the plan's live files
 * (manifests decoded by src/meta) and the data files (read by the Avro
 * reader): each file sorted by key with unique keys, min/max key = first /
 * last row, sequence numbers within the file's range, row and delete-row
 * counts, key-value column layout; files of one level > 0 of a bucket do
 * not overlap.  Returns the number of problems (printed).
 */
static int
check_layout(const char *table, int s)
{
	char		snap[32];
	ts_option	opts[1];
	ts_scan_context ctx;
	ts_plan    *plan;
	ts_err		err = {0};
	int			problems = 0;
	int		   *kidx = NULL;
	int			nk = 0;
	const ts_type *ktypes[16];
	ts_type		t_seq = {.kind = TS_BIGINT},
				t_kind = {.kind = TS_TINYINT};

	snprintf(snap, sizeof(snap), "%d", s);
	opts[0].key = "scan.snapshot-id";
	opts[0].value = snap;
	memset(&ctx, 0, sizeof(ctx));
	ctx.table_path = table;
	ctx.noptions = 1;
	ctx.options = opts;
	ctx.limit = -1;
	plan = ts_scan_plan(&ctx, &err);
	if (plan == NULL || !ts_schema_trimmed_primary_keys(plan->schema, &kidx, &nk, &err) || nk > 14)
	{
		fprintf(stderr, "layout %s: %s\n", table, err.msg);
		ts_plan_free(plan);
		return 1;
	}
	for (int k = 0; k < nk; k++)
		ktypes[k] = plan->schema->fields[kidx[k]].type;
	for (int sp = 0; sp < plan->nsplits; sp++)
	{
		const ts_split *split = &plan->splits[sp];
		ts_arena	arena;
		ts_value  (*minmax)[2][16] = calloc((size_t) split->nfiles + 1, sizeof(*minmax));

		ts_arena_init(&arena, 0);
		for (int f = 0; f < split->nfiles; f++)
		{
			const ts_data_file_meta *fm = &split->files[f].entry->file;
			ts_read_column cols[18];
			char		names[16][128];
			ts_format_reader *r;
			ts_batch	b;
			int			n,
						arity;
			int64_t		rows = 0,
						deletes = 0;
			ts_value	prev[16];
			bool		have_prev = false;
			const char *ext;

			if (!ts_binary_row_decode(fm->min_key.data, fm->min_key.len, ktypes, nk, minmax[f][0], &arity,
									  &arena, &err) ||
				!ts_binary_row_decode(fm->max_key.data, fm->max_key.len, ktypes, nk, minmax[f][1], &arity,
									  &arena, &err))
			{
				fprintf(stderr, "layout %s: key of %s: %s\n", table, fm->file_name, err.msg);
				problems++;
				continue;
			}
			for (int k = 0; k < nk; k++)
			{
				snprintf(names[k], sizeof(names[k]), "_KEY_%s", plan->schema->fields[kidx[k]].name);
				cols[k] = (ts_read_column) {-1, names[k], ktypes[k]};
			}
			cols[nk] = (ts_read_column) {-1, "_SEQUENCE_NUMBER", &t_seq};
			cols[nk + 1] = (ts_read_column) {-1, "_VALUE_KIND", &t_kind};
			ext = strrchr(fm->file_name, '.');
			r = ts_format_open(ts_format_from_name(ext ? ext + 1 : NULL),
							   ts_scan_file_label(plan, &split->files[f]), cols,
							   nk + 2, unit_local_read(), &err);
			if (r == NULL)
			{
				fprintf(stderr, "layout %s: %s\n", table, err.msg);
				problems++;
				continue;
			}
			while ((n = ts_format_next(r, &b, &err)) > 0)
				for (int row = 0; row < n; row++)
				{
					ts_value   *v = ts_batch_at(&b, row, 0);
					int64_t		seq = v[nk].v.i;

					for (int k = 0; k < nk; k++)
						if (v[k].isnull)
							problems++, fprintf(stderr, "layout: NULL key in %s\n", fm->file_name);
					if (rows == 0 && key_cmp(v, minmax[f][0], ktypes, nk) != 0)
						problems++, fprintf(stderr, "layout: first row of %s is not _MIN_KEY\n", fm->file_name);
					if (have_prev && key_cmp(prev, v, ktypes, nk) >= 0)
						problems++, fprintf(stderr, "layout: %s not sorted by unique key at row %lld\n",
											fm->file_name, (long long) rows);
					if (seq < fm->min_sequence_number || seq > fm->max_sequence_number)
						problems++, fprintf(stderr, "layout: sequence %lld outside [%lld, %lld] in %s\n",
											(long long) seq, (long long) fm->min_sequence_number,
											(long long) fm->max_sequence_number, fm->file_name);
					if (v[nk + 1].v.i == 1 || v[nk + 1].v.i == 3)
						deletes++;
					for (int k = 0; k < nk; k++)
					{
						prev[k] = v[k];
						if (ts_type_is_bytes(ktypes[k]->kind))
							prev[k].v.s.p = ts_arena_dup(&arena, v[k].v.s.p, v[k].v.s.len + 1);
					}
					have_prev = true;
					rows++;
				}
			if (n < 0)
				problems++, fprintf(stderr, "layout %s: %s\n", table, err.msg);
			if (have_prev && key_cmp(prev, minmax[f][1], ktypes, nk) != 0)
				problems++, fprintf(stderr, "layout: last row of %s is not _MAX_KEY\n", fm->file_name);
			if (rows != fm->row_count || deletes != fm->delete_row_count)
				problems++, fprintf(stderr, "layout: %s has %lld rows / %lld retracts, manifest %lld / %lld\n",
									fm->file_name, (long long) rows, (long long) deletes,
									(long long) fm->row_count, (long long) fm->delete_row_count);
			ts_format_close(r);
		}
		/* one sorted run per level > 0 */
		for (int a = 0; a < split->nfiles; a++)
			for (int c = 0; c < split->nfiles; c++)
			{
				int			la = split->files[a].entry->file.level;

				if (a == c || la == 0 || la != split->files[c].entry->file.level)
					continue;
				if (key_cmp(minmax[a][0], minmax[c][1], ktypes, nk) <= 0 &&
					key_cmp(minmax[c][0], minmax[a][1], ktypes, nk) <= 0)
					problems++, fprintf(stderr, "layout: %s and %s overlap at level %d\n",
										split->files[a].entry->file.file_name,
										split->files[c].entry->file.file_name, la);
			}
		free(minmax);
		ts_arena_free(&arena);
	}
	ts_free(kidx);
	ts_plan_free(plan);
	return problems;
}

/*
 * A merge's file readers take their page and chunk buffers from the pool the
 * split reader is opened with and hand them back when the split closes, so
 * the next split's merge writes into memory already mapped instead of
 * faulting in fresh buffers: the pool holds buffers after a read (none
 * without the pool reaching the merge), and reading again through them
 * (every page decompressed into a reused buffer, of whatever size it had)
 * gives the same rows, in the same order, as reading without a pool.
 */
static void
test_pk_merge_buffers_reused(void **state)
{
	char		dir[256];
	char		table[512];
	int			proj[3] = {0, 1, 2};
	rowlist		plain = {0},
				first = {0},
				again = {0};
	ts_err		err = {0};
	ts_bufpool *pool = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);

	(void) state;
	assert_non_null(pool);
	/* two buckets of several runs each; pages of all sizes (strings of many lengths) */
	scratch_table(dir, table, "ts_pk_buffers", "--column id:INT --column v:STRING "
				  "--column n:BIGINT --primary-key id --buckets 2 --rows 6000 --keys 5000 "
				  "--snapshots 4 --files 2 --null-every 7 --format parquet");

	read_buffers = NULL;
	assert_true(stack_read(table, 4, proj, 3, &plain, &err));
	read_buffers = pool;
	assert_true(stack_read(table, 4, proj, 3, &first, &err));
	/* the merge's buffers came back to the pool: the next split's reuse them */
	assert_true(ts_bufpool_bytes(pool) > 0);
	assert_true(stack_read(table, 4, proj, 3, &again, &err));
	read_buffers = NULL;
	assert_true(plain.n > 1000);
	assert_int_equal(first.n, plain.n);
	assert_int_equal(again.n, plain.n);
	for (int i = 0; i < plain.n; i++)
	{
		assert_string_equal(first.rows[i], plain.rows[i]);
		assert_string_equal(again.rows[i], plain.rows[i]);
	}
	rowlist_free(&plain);
	rowlist_free(&first);
	rowlist_free(&again);
	ts_bufpool_free(pool);
	remove_tree(dir);
}

/*
 * A merge over Parquet runs read again with the pool of the read before:
 * its file readers' large memory comes back from the pool (each column's
 * pq_leaf of ~68 KB, each run's batch arrays and its Parquet reader's
 * values, and the merge's output rows were allocated, and faulted in, anew
 * for every file of every split); the same rows as without a pool.
 */
static void
test_pk_merge_no_fresh_memory(void **state)
{
	char		dir[256];
	char		table[512];
	int			proj[3] = {0, 1, 2};
	rowlist		plain = {0},
				warm = {0},
				again = {0};
	ts_err		err = {0};
	ts_bufpool *pool = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
	ts_alloc_hooks hooks = {counting_alloc, counting_realloc, free};

	(void) state;
	assert_non_null(pool);
	/* one bucket of four runs: one split, read twice */
	scratch_table(dir, table, "ts_pk_fresh", "--column id:INT --column v:STRING "
				  "--column n:BIGINT --primary-key id --buckets 1 --rows 6000 --keys 5000 "
				  "--snapshots 4 --null-every 7 --format parquet");

	assert_true(stack_read(table, 4, proj, 3, &plain, &err));
	read_buffers = pool;
	assert_true(stack_read(table, 4, proj, 3, &warm, &err));
	ts_set_alloc_hooks(&hooks);
	large_allocs = 0;
	count_read_allocs = true;
	assert_true(stack_read(table, 4, proj, 3, &again, &err));
	count_read_allocs = false;
	ts_set_alloc_hooks(NULL);
	read_buffers = NULL;
	/*
	 * Left: each run's zstd context (~96 KB, one per file reader) and the
	 * merge's arena block.  Before, each file also allocated a pq_leaf per
	 * column read (5 here), its batch arrays and its reader's values.
	 */
	if (large_allocs > 4 + 1)
		fail_msg("%d allocations of 16 KB or more in a read with a warm pool", large_allocs);
	assert_true(plain.n > 1000);
	assert_int_equal(warm.n, plain.n);
	assert_int_equal(again.n, plain.n);
	for (int i = 0; i < plain.n; i++)
	{
		assert_string_equal(warm.rows[i], plain.rows[i]);
		assert_string_equal(again.rows[i], plain.rows[i]);
	}
	rowlist_free(&plain);
	rowlist_free(&warm);
	rowlist_free(&again);
	ts_bufpool_free(pool);
	remove_tree(dir);
}

/*
 * A merge of Parquet runs in Java's layout (many pages to a column chunk, a
 * chunk larger than the reader's buffer read page by page) with the next
 * page of each run's columns decompressed ahead: the same rows as without,
 * and every page the helper thread decompressed is used (the chunk buffer
 * moving under a queued page threw it away, and the page was decompressed
 * again in place).
 */
static void
test_pk_merge_pages_ahead(void **state)
{
	char		dir[256];
	char		table[512];
	int			proj[3] = {0, 1, 2};
	rowlist		plain = {0},
				ahead = {0};
	ts_err		err = {0};
	ts_bufpool *pool = ts_bufpool_new(TS_BUFPOOL_DEFAULT_BYTES);
	int64_t		done,
				taken;

	(void) state;
	assert_non_null(pool);
	/* 3 runs of pages of 8 KiB, chunks of more than the 64 KiB buffer */
	scratch_table(dir, table, "ts_pk_ahead", "--column id:INT --column v:STRING "
				  "--column n:BIGINT --primary-key id --buckets 1 --rows 30000 --keys 40000 "
				  "--snapshots 3 --null-every 7 --format parquet --parquet-page-size 8192");

	assert_true(stack_read(table, 3, proj, 3, &plain, &err));
	read_buffers = pool;
	read_ahead = true;
	done = ts_bg_jobs_done();
	taken = pq_ahead_pages_taken();
	assert_true(stack_read(table, 3, proj, 3, &ahead, &err));
	done = ts_bg_jobs_done() - done;
	taken = pq_ahead_pages_taken() - taken;
	read_ahead = false;
	read_buffers = NULL;
	if (done == 0 || taken < done)		/* how many: timing; every one: used */
		fail_msg("%lld pages decompressed ahead, %lld of them used", (long long) done, (long long) taken);
	assert_true(plain.n > 10000);
	assert_int_equal(ahead.n, plain.n);
	for (int i = 0; i < plain.n; i++)
		assert_string_equal(ahead.rows[i], plain.rows[i]);
	rowlist_free(&plain);
	rowlist_free(&ahead);
	ts_bufpool_free(pool);
	remove_tree(dir);
}

static void
test_pk_layout(void **state)
{
	char		dir[256];
	int			problems = 0,
				tables = 0;

	(void) state;
	snprintf(dir, sizeof(dir), "/tmp/ts_pk_layout_XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char		table[512];
		int			last = 0;
		char		ops[600];
		model		m;

		snprintf(table, sizeof(table), "%s/%s", dir, cases[i].name);
		snprintf(ops, sizeof(ops), "%s.ops.jsonl", table);
		assert_true(gen_table(table, cases[i].args));
		assert_true(model_load(&m, ops));
		last = m.nsnapshots;
		for (int s = 1; s <= last; s++)
			problems += check_layout(table, s);
		tables++;
		model_free(&m);
	}
	fprintf(stderr, "pk layout: %d tables, every snapshot checked, %d problems\n", tables, problems);
	if (problems == 0)
		remove_tree(dir);
	assert_int_equal(problems, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pk_merge_buffers_reused),
		cmocka_unit_test(test_pk_merge_no_fresh_memory),
		cmocka_unit_test(test_pk_merge_pages_ahead),
		cmocka_unit_test(test_pk_layout),
		cmocka_unit_test(test_pk_model_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
