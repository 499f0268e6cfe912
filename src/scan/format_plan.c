/*
 * format_plan.c - the scan plan of a format table (see format_plan.h).
 *
 * Owns: the format-table branch of ts_scan_prepare / ts_scan_execute:
 * data directory, file format and option checks, turning the context's
 * partition_filter and predicate into the listing's pruning (filters,
 * derived leading-key prefixes, a prefix callback), one split per data
 * file with synthesized manifest entries, the metrics, ListPartitions,
 * and the schema JSON of a format table declared by its columns.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

#include "base/ts_type_class.h"
#include "base/ts_fs.h"
#include "meta/schema.h"
#include "scan/format_plan.h"
#include "scan/scan_internal.h"

/* Most prefix branches a predicate may expand into (IN lists x keys). */
#define FT_MAX_DERIVED_BRANCHES 256

bool
ts_format_table_options(const ts_option *options, int noptions)
{
	const char *type = NULL;

	for (int i = 0; i < noptions; i++)
		if (options[i].key && strcmp(options[i].key, TS_OPT_TYPE) == 0)
			type = options[i].value;
	return type != NULL && strcasecmp(type, "format-table") == 0;
}

ts_file_format
ts_format_plan_file_format(const ts_plan *plan)
{
	const char *f;

	if (plan == NULL || plan->kind != TS_TABLE_FORMAT)
		return TS_FORMAT_UNKNOWN;
	f = ts_plan_option(plan, TS_OPT_FILE_FORMAT);
	if (f == NULL)
		f = ts_plan_option(plan, TS_OPT_FORMAT);
	return ts_format_from_name(f);
}

bool
ts_format_plan_resolve(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	static const char *const time_travel[] = {
		TS_OPT_SCAN_SNAPSHOT_ID, TS_OPT_SCAN_TAG_NAME, TS_OPT_SCAN_TIMESTAMP_MILLIS,
		TS_OPT_SCAN_TIMESTAMP, TS_OPT_SCAN_VERSION, TS_OPT_SCAN_WATERMARK, NULL
	};
	const char *fmt_name = ts_plan_option(plan, TS_OPT_FILE_FORMAT);
	ts_file_format fmt;
	const ts_schema *s = plan->schema;

	plan->kind = TS_TABLE_FORMAT;
	if (fmt_name == NULL)
		fmt_name = ts_plan_option(plan, TS_OPT_FORMAT);
	if (fmt_name == NULL)
		return ts_error(err, TS_ERR_INVALID,
						"format table \"%s\" has no file format (option file.format: csv, json, parquet, orc or text)",
						plan->table_path);
	fmt = ts_format_from_name(fmt_name);
	if (fmt == TS_FORMAT_UNKNOWN)
		return ts_error(err, TS_ERR_INVALID,
						"format table \"%s\": unknown file.format \"%s\" (expected csv, json, parquet, orc or text)",
						plan->table_path, fmt_name);
	for (int i = 0; time_travel[i]; i++)
	{
		const char *v = ts_plan_option(plan, time_travel[i]);

		if (v && *v)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"format table \"%s\" has no snapshots: option %s=%s cannot be used",
							plan->table_path, time_travel[i], v);
	}
	if (ctx->has_bucket_filter)
		return ts_error(err, TS_ERR_INVALID,
						"bucket_filter cannot be used on format table \"%s\": it has no buckets",
						plan->table_path);
	for (int k = 0; k < s->npartition_keys; k++)
	{
		int			f = ts_schema_field_index(s, s->partition_keys[k]);

		if (f < 0)
			return ts_error(err, TS_ERR_INVALID,
							"format table \"%s\": partition key \"%s\" is not a column",
							plan->table_path, s->partition_keys[k]);
		/* binaries: their path text is not reproducible */
		if (!ts_type_class_of(s->fields[f].type->kind)->key ||
			s->fields[f].type->kind == TS_BINARY || s->fields[f].type->kind == TS_VARBINARY)
		{
			char	   *tn = ts_type_to_string(s->fields[f].type);

			ts_error(err, TS_ERR_UNSUPPORTED,
					 "format table \"%s\": partition key \"%s\" of type %s is not supported",
					 plan->table_path, s->partition_keys[k], tn ? tn : "?");
			ts_free(tn);
			return false;
		}
	}
	if (s->npartition_keys >= s->nfields && s->nfields > 0)
		return ts_error(err, TS_ERR_INVALID,
						"format table \"%s\": every column is a partition key, the files would hold no column",
						plan->table_path);
	if (fmt == TS_FORMAT_TEXT)
	{
		/* a TEXT file holds one string column: the line */
		int			ndata = 0,
					bad = -1;

		for (int i = 0; i < s->nfields; i++)
			if (!ts_schema_is_partition_key(s, s->fields[i].name))
			{
				ndata++;
				if (s->fields[i].type->kind != TS_VARCHAR && s->fields[i].type->kind != TS_CHAR)
					bad = i;
			}
		if (ndata != 1 || bad >= 0)
			return ts_error(err, TS_ERR_INVALID,
							"format table \"%s\" of format text must have exactly one column besides its partition keys, of type STRING",
							plan->table_path);
	}
	plan->snapshot = NULL;
	return true;
}

/* ---- the data directory --------------------------------------------- */

static bool
data_dir(ts_plan *plan, const ts_scan_context *ctx, const char **dir, const char **skip_top,
		 ts_err *err)
{
	const char *p = ts_plan_option(plan, TS_OPT_PATH);

	*skip_top = NULL;
	if (p == NULL || *p == '\0')
	{
		*dir = plan->table_path;
		/* files next to the schema directory: that directory is not data */
		if (ctx->table_schema_json == NULL)
			*skip_top = "schema";
		return true;
	}
	if (strncmp(p, "file:", 5) == 0)
	{
		p += 5;
		/* file:///x and file:/x */
		if (strncmp(p, "//", 2) == 0)
			p += 2;
	}
	else if (strstr(p, "://") != NULL)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"format table \"%s\": data path \"%s\" is not on a local file system (object stores are not supported)",
						plan->table_path, p);
	if (p[0] != '/')
		return ts_error(err, TS_ERR_INVALID,
						"format table \"%s\": data path \"%s\" is not absolute", plan->table_path, p);
	{
		size_t		len = strlen(p);
		char	   *d;

		while (len > 1 && p[len - 1] == '/')
			len--;
		d = ts_arena_alloc(&plan->arena, len + 1);
		if (d == NULL)
			return ts_error_nomem(err, NULL);
		memcpy(d, p, len);
		d[len] = '\0';
		*dir = d;
		if (strcmp(d, plan->table_path) == 0 && ctx->table_schema_json == NULL)
			*skip_top = "schema";
	}
	return true;
}

/* ---- pruning with the predicate -------------------------------------- */

typedef struct ft_prune
{
	ts_plan    *plan;
	const ts_predicate *pred;
	int			nkeys;
	const int  *key_fields;		/* schema field of each partition key */
	const ts_type *const *key_types;
} ft_prune;

static int
key_of_field(const ft_prune *pr, int field)
{
	for (int k = 0; k < pr->nkeys; k++)
		if (pr->key_fields[k] == field)
			return k;
	return -1;
}

/* a partition prefix typed[0..depth) as prefix_leaf_may_match sees it */
typedef struct prefix_values
{
	const ft_prune *pr;
	int			depth;
	const ts_value *typed;
} prefix_values;

/*
 * May rows of a partition starting with typed[0..depth) satisfy leaf p?
 * Leaves on keys beyond depth, on other columns, with another literal
 * type or on unordered types are "may".
 */
static bool
prefix_leaf_may_match(const ts_predicate *p, void *arg)
{
	const prefix_values *pv = arg;
	int			k = key_of_field(pv->pr, p->field);

	if (k < 0 || k >= pv->depth)
		return true;
	return scan_predicate_leaf_may_hold(p, pv->pr->key_types[k], &pv->typed[k]) != 0;
}

static bool
prune_callback(void *arg, int depth, const char *const *values, const ts_value *typed)
{
	const ft_prune *pr = arg;
	prefix_values pv = {pr, depth, typed};

	(void) values;
	return ts_predicate_may_match(pr->pred, prefix_leaf_may_match, &pv);
}

/* Days since 1970-01-01 to y-m-d (proleptic Gregorian). */
static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t		era;
	unsigned	doe,
				yoe,
				doy,
				mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned) (z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	*y = (int64_t) yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y += *m <= 2;
}

/*
 * The partition path text Paimon writes for a literal (cast-to-string),
 * for the types whose spelling is unique; NULL when it cannot be derived.
 */
static char *
literal_path_text(ts_arena *a, const ts_type *t, const ts_value *v)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return ts_arena_strdup(a, v->v.i ? "true" : "false");
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			return ts_arena_printf(a, "%lld", (long long) v->v.i);
		case TS_DATE:
			{
				int64_t		y;
				unsigned	m,
							d;

				civil_from_days(v->v.i, &y, &m, &d);
				if (y < 0 || y > 9999)
					return NULL;
				return ts_arena_printf(a, "%04lld-%02u-%02u", (long long) y, m, d);
			}
		case TS_VARCHAR:
			{
				bool		blank = true;

				if (memchr(v->v.s.p, '\0', v->v.s.len) != NULL)
					return NULL;
				for (uint32_t i = 0; i < v->v.s.len; i++)
					if (v->v.s.p[i] != ' ' && v->v.s.p[i] != '\t')
						blank = false;
				if (blank)
					return NULL;	/* blank values are written as the default name */
				{
					char	   *s = ts_arena_alloc(a, v->v.s.len + 1);

					if (s == NULL)
						return NULL;
					memcpy(s, v->v.s.p, v->v.s.len);
					s[v->v.s.len] = '\0';
					return s;
				}
			}
		default:
			return NULL;
	}
}

/* The top-level conjuncts of p (ANDs flattened), at most max. */
static int
conjuncts(const ts_predicate *p, const ts_predicate **out, int n, int max)
{
	if (p->op == TS_PRED_AND)
	{
		for (int i = 0; i < p->nchildren; i++)
			n = conjuncts(&p->children[i], out, n, max);
		return n;
	}
	if (n < max)
		out[n++] = p;
	return n;
}

/*
 * Leading equalities / IN lists of the predicate on keys 0, 1, ... as
 * filter branches (OR of ANDs), so the listing starts below them.  Leaves
 * *nbranches = 0 when the first key is not fixed.
 */
static bool
derive_prefix_filters(ts_plan *plan, const ft_prune *pr, const ts_option *const **branches,
					  int *nbranches, ts_err *err)
{
	const ts_predicate *conj[64];
	int			nconj = conjuncts(pr->pred, conj, 0, 64);
	char	  **vals[64];
	int			nvals[64];
	int			depth = 0;
	long		product = 1;
	ts_option **out;

	*branches = NULL;
	*nbranches = 0;
	for (int k = 0; k < pr->nkeys && k < 64; k++)
	{
		const ts_predicate *leaf = NULL;
		char	  **v;
		int			n = 0;

		for (int i = 0; i < nconj && leaf == NULL; i++)
			if ((conj[i]->op == TS_PRED_EQ || conj[i]->op == TS_PRED_IN) &&
				conj[i]->field == pr->key_fields[k] &&
				(conj[i]->literal_type == NULL || ts_type_equal(conj[i]->literal_type, pr->key_types[k])))
				leaf = conj[i];
		if (leaf == NULL || leaf->nliterals < 1)
			break;
		v = ts_arena_alloc(&plan->arena, sizeof(char *) * leaf->nliterals);
		if (v == NULL)
			return ts_error_nomem(err, NULL);
		for (int i = 0; i < leaf->nliterals; i++)
		{
			char	   *s;

			if (leaf->literals[i].isnull)
				continue;
			s = literal_path_text(&plan->arena, pr->key_types[k], &leaf->literals[i]);
			if (s == NULL)
			{
				n = -1;
				break;
			}
			for (int j = 0; j < n && s; j++)
				if (strcmp(v[j], s) == 0)
					s = NULL;	/* x IN (a, a) */
			if (s)
				v[n++] = s;
		}
		if (n <= 0 || product * n > FT_MAX_DERIVED_BRANCHES)
			break;
		product *= n;
		vals[k] = v;
		nvals[k] = n;
		depth = k + 1;
	}
	if (depth == 0)
		return true;
	out = ts_arena_alloc(&plan->arena, sizeof(ts_option *) * product);
	if (out == NULL)
		return ts_error_nomem(err, NULL);
	for (long b = 0; b < product; b++)
	{
		long		rest = b;

		out[b] = ts_arena_alloc(&plan->arena, sizeof(ts_option) * (depth + 1));
		if (out[b] == NULL)
			return ts_error_nomem(err, NULL);
		for (int k = depth - 1; k >= 0; k--)
		{
			out[b][k].key = plan->schema->partition_keys[k];
			out[b][k].value = vals[k][rest % nvals[k]];
			rest /= nvals[k];
		}
		out[b][depth].key = NULL;
		out[b][depth].value = NULL;
	}
	*branches = (const ts_option *const *) out;
	*nbranches = (int) product;
	return true;
}

/* ---- the listing request ---------------------------------------------- */

typedef struct ft_setup
{
	ts_ft_request req;
	ft_prune	prune;
	const char **key_names;
	const ts_type **key_types;
	int		   *key_fields;
} ft_setup;

static bool
setup_request(ts_plan *plan, const ts_scan_context *ctx, ft_setup *su, bool list_files,
			  ts_err *err)
{
	const ts_schema *s = plan->schema;
	int			nkeys = s->npartition_keys;
	const char *dir = NULL,
			   *skip = NULL;

	memset(su, 0, sizeof(*su));
	if (!data_dir(plan, ctx, &dir, &skip, err))
		return false;
	su->key_names = ts_arena_alloc(&plan->arena, sizeof(char *) * (nkeys ? nkeys : 1));
	su->key_types = ts_arena_alloc(&plan->arena, sizeof(ts_type *) * (nkeys ? nkeys : 1));
	su->key_fields = ts_arena_alloc(&plan->arena, sizeof(int) * (nkeys ? nkeys : 1));
	if (su->key_names == NULL || su->key_types == NULL || su->key_fields == NULL)
		return ts_error_nomem(err, NULL);
	for (int k = 0; k < nkeys; k++)
	{
		int			f = ts_schema_field_index(s, s->partition_keys[k]);

		if (f < 0)
			return ts_error(err, TS_ERR_INVALID,
							"format table \"%s\": partition key \"%s\" is not a column",
							plan->table_path, s->partition_keys[k]);
		su->key_names[k] = s->partition_keys[k];
		su->key_types[k] = s->fields[f].type;
		su->key_fields[k] = f;
	}
	su->req.table_path = dir;
	su->req.fs = plan->fs;
	su->req.skip_top = skip;
	su->req.nkeys = nkeys;
	su->req.key_names = su->key_names;
	su->req.key_types = su->key_types;
	su->req.list_files = list_files;
	if (!ts_ft_request_set_options(&su->req, plan->options, plan->noptions, err))
		return ts_error_context(err, "format table \"%s\"", plan->table_path);

	/* partition_filter: OR of ANDs of key = path text; replaces the predicate's partition part */
	if (ctx->npartition_filters > 0)
	{
		if (nkeys == 0)
			return ts_error(err, TS_ERR_INVALID,
							"partition_filter given, but table \"%s\" is not partitioned",
							plan->table_path);
		for (int f = 0; f < ctx->npartition_filters; f++)
			for (const ts_option *kv = ctx->partition_filters[f]; kv->key; kv++)
			{
				bool		found = false;

				for (int k = 0; k < nkeys && !found; k++)
					found = strcmp(kv->key, su->key_names[k]) == 0;
				if (!found)
					return ts_error(err, TS_ERR_INVALID,
									"partition_filter names \"%s\", which is not a partition key of table \"%s\"",
									kv->key, plan->table_path);
			}
		su->req.nfilters = ctx->npartition_filters;
		su->req.filters = ctx->partition_filters;
		return true;
	}
	if (ctx->predicate && ctx->enable_pruning && nkeys > 0)
	{
		su->prune.plan = plan;
		su->prune.pred = ctx->predicate;
		su->prune.nkeys = nkeys;
		su->prune.key_fields = su->key_fields;
		su->prune.key_types = su->key_types;
		su->req.pred = prune_callback;
		su->req.pred_arg = &su->prune;
		if (!derive_prefix_filters(plan, &su->prune, &su->req.filters, &su->req.nfilters, err))
			return false;
	}
	return true;
}

/* Deep copy of a partition's typed values into the plan's arena. */
static ts_value *
copy_partition_values(ts_plan *plan, const ts_ft_partition *p, int nkeys,
					  const ts_type *const *types)
{
	ts_value   *v = ts_arena_alloc(&plan->arena, sizeof(ts_value) * (nkeys ? nkeys : 1));

	if (v == NULL)
		return NULL;
	for (int k = 0; k < nkeys; k++)
	{
		v[k] = p->typed[k];
		if (p->values[k] == NULL)
		{
			memset(&v[k], 0, sizeof(ts_value));
			v[k].isnull = true;
		}
		else if (ts_type_is_bytes(types[k]->kind))
		{
			uint8_t    *b = ts_arena_alloc(&plan->arena, v[k].v.s.len + 1);

			if (b == NULL)
				return NULL;
			if (v[k].v.s.len)
				memcpy(b, v[k].v.s.p, v[k].v.s.len);
			v[k].v.s.p = b;
		}
	}
	return v;
}

static int64_t
file_size_of(ts_fs *fs, const char *path)
{
	ts_err		e = {0};
	ts_file    *f = ts_file_open(fs, path, &e);
	int64_t		n;

	if (f == NULL)
		return 0;
	n = ts_file_size(f);
	ts_file_close(f);
	return n < 0 ? 0 : n;
}

bool
ts_format_plan_execute(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	ft_setup	su;
	ts_ft_listing *l;
	ts_file_format fmt = ts_format_plan_file_format(plan);
	ts_value  **pvals = NULL;
	size_t		dirlen;
	int			nsplits = 0;

	if (plan->kind != TS_TABLE_FORMAT)
		return ts_error(err, TS_ERR_INVALID, "table \"%s\" is not a format table", plan->table_path);
	if (!setup_request(plan, ctx, &su, true, err))
		return false;
	l = ts_format_table_list(&su.req, err);
	if (l == NULL)
		return ts_error_context(err, "format table \"%s\"", plan->table_path);

	plan->metrics.partitions_total = l->metrics.partitions_listed;
	plan->metrics.partitions_kept = l->npartitions;
	plan->metrics.files_total = l->nfiles;
	plan->metrics.files_kept = l->nfiles;
	plan->bucket_pruning = NULL;

	if (l->npartitions > 0)
	{
		pvals = ts_arena_alloc(&plan->arena, sizeof(ts_value *) * l->npartitions);
		if (pvals == NULL)
			goto nomem;
		for (int p = 0; p < l->npartitions; p++)
			if ((pvals[p] = copy_partition_values(plan, &l->partitions[p], l->nkeys, su.key_types)) == NULL)
				goto nomem;
	}
	plan->splits = ts_arena_alloc(&plan->arena, sizeof(ts_split) * (l->nfiles ? l->nfiles : 1));
	if (plan->splits == NULL)
		goto nomem;
	dirlen = strlen(su.req.table_path);
	for (int i = 0; i < l->nfiles; i++)
	{
		const ts_ft_file *lf = &l->files[i];
		ts_split   *sp;
		ts_scan_file *sf;
		ts_manifest_entry *e;
		const char *rel = lf->path;

		if ((i & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			goto fail;
		if (strncmp(rel, su.req.table_path, dirlen) == 0 && rel[dirlen] == '/')
			rel += dirlen + 1;
		if (!scan_shard_keep(plan, 0, rel))
		{
			plan->metrics.files_pruned_shard++;
			plan->metrics.files_kept--;
			continue;
		}
		sp = &plan->splits[nsplits++];
		memset(sp, 0, sizeof(*sp));
		sf = ts_arena_alloc(&plan->arena, sizeof(ts_scan_file));
		e = ts_arena_alloc(&plan->arena, sizeof(ts_manifest_entry));
		if (sf == NULL || e == NULL)
			goto nomem;
		memset(sf, 0, sizeof(*sf));
		memset(e, 0, sizeof(*e));
		e->kind = TS_FILE_ADD;
		e->bucket = 0;
		e->total_buckets = -1;
		e->file.file_name = ts_arena_strdup(&plan->arena, rel);
		e->file.file_size = file_size_of(plan->fs, lf->path);
		e->file.row_count = e->file.file_size > 0 ?
			(e->file.file_size + TS_FT_EST_ROW_BYTES - 1) / TS_FT_EST_ROW_BYTES : 0;
		e->file.schema_id = plan->schema->id;
		e->file.level = 0;
		e->file.delete_row_count = -1;
		e->file.file_source = -1;
		e->file.nvalue_stats_cols = -1;
		e->file.nwrite_cols = -1;
		sf->entry = e;
		sf->built_path = ts_arena_strdup(&plan->arena, lf->path);
		sf->format = fmt;
		sf->dv_offset = sf->dv_length = 0;
		sf->dv_cardinality = -1;
		if (e->file.file_name == NULL || sf->built_path == NULL)
			goto nomem;
		sp->bucket = 0;
		sp->total_buckets = -1;
		sp->nfiles = 1;
		sp->files = sf;
		sp->raw_convertible = true;
		sp->partition_values = lf->partition >= 0 && pvals ? pvals[lf->partition] : NULL;
		if (l->nkeys > 0 && sp->partition_values == NULL)
		{
			ts_error(err, TS_ERR_INVALID, "format table \"%s\": file \"%s\" has no partition",
					 plan->table_path, lf->path);
			goto fail;
		}
	}
	plan->nsplits = nsplits;
	ts_ft_listing_free(l);
	return true;

nomem:
	ts_error_nomemf(err, "planning format table \"%s\"", plan->table_path);
fail:
	ts_ft_listing_free(l);
	return false;
}

/* The listing request of a format table's partitions (no files). */
static bool
partitions_request(ts_plan *plan, const ts_scan_context *ctx, ft_setup *su, ts_err *err)
{
	if (plan == NULL || ctx == NULL)
		return ts_error(err, TS_ERR_INVALID, "no plan or scan context");
	if (plan->kind != TS_TABLE_FORMAT)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"listing partitions is implemented only for format tables; \"%s\" is a Paimon %s table",
						plan->table_path, plan->kind == TS_TABLE_PRIMARY_KEY ? "primary-key" : "append");
	return setup_request(plan, ctx, su, false, err);
}

ts_ft_listing *
ts_format_plan_partitions(ts_plan *plan, const ts_scan_context *ctx, ts_err *err)
{
	ft_setup	su;
	ts_ft_listing *l;

	if (!partitions_request(plan, ctx, &su, err))
		return NULL;
	l = ts_format_table_list_partitions(&su.req, err);
	if (l == NULL)
		ts_error_context(err, "format table \"%s\"", plan->table_path);
	return l;
}

ts_ft_listing *
ts_format_plan_partitions_given(ts_plan *plan, const ts_scan_context *ctx, int nparts,
								const ts_option *const *specs, const int *nspecs,
								const char *what, ts_err *err)
{
	ft_setup	su;
	ts_ft_listing *l;

	if (!partitions_request(plan, ctx, &su, err))
		return NULL;
	l = ts_format_table_partitions_given(&su.req, nparts, specs, nspecs, what, err);
	if (l == NULL)
		ts_error_context(err, "format table \"%s\"", plan->table_path);
	return l;
}

/* ---- schema JSON of a declared format table ------------------------- */

char *
ts_format_table_schema_json(int ncolumns, const char *const *names, const char *const *types,
							const char *partition_keys, const char *format, ts_err *err)
{
	cJSON	   *root = NULL,
			   *fields,
			   *pkeys,
			   *opts;
	char	   *keys = NULL,
			   *save = NULL,
			   *out = NULL,
			   *json;

	if (ncolumns <= 0 || names == NULL || types == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "a format table needs at least one column");
		return NULL;
	}
	if (format == NULL || ts_format_from_name(format) == TS_FORMAT_UNKNOWN)
	{
		ts_error(err, TS_ERR_INVALID, "unknown format \"%s\" (expected csv, json, parquet, orc or text)",
				 format ? format : "");
		return NULL;
	}
	root = cJSON_CreateObject();
	if (root == NULL)
		goto nomem;
	cJSON_AddNumberToObject(root, "version", 3);
	cJSON_AddNumberToObject(root, "id", 0);
	fields = cJSON_AddArrayToObject(root, "fields");
	pkeys = cJSON_AddArrayToObject(root, "partitionKeys");
	cJSON_AddArrayToObject(root, "primaryKeys");
	opts = cJSON_AddObjectToObject(root, "options");
	if (fields == NULL || pkeys == NULL || opts == NULL)
		goto nomem;
	for (int i = 0; i < ncolumns; i++)
	{
		cJSON	   *f = cJSON_CreateObject();
		ts_type    *t = ts_type_parse(types[i], err);

		if (t == NULL)
		{
			cJSON_Delete(f);
			ts_error_context(err, "column \"%s\"", names[i]);
			goto fail;
		}
		ts_type_free(t);
		if (f == NULL)
			goto nomem;
		cJSON_AddItemToArray(fields, f);
		cJSON_AddNumberToObject(f, "id", i);
		cJSON_AddStringToObject(f, "name", names[i]);
		cJSON_AddStringToObject(f, "type", types[i]);
	}
	cJSON_AddNumberToObject(root, "highestFieldId", ncolumns - 1);
	if (partition_keys && *partition_keys)
	{
		keys = ts_strdup(partition_keys);
		if (keys == NULL)
			goto nomem;
		for (char *tok = strtok_r(keys, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		{
			char	   *e;
			bool		found = false;

			while (*tok == ' ')
				tok++;
			for (e = tok + strlen(tok); e > tok && e[-1] == ' '; e--)
				e[-1] = '\0';
			for (int i = 0; i < ncolumns && !found; i++)
				found = strcmp(names[i], tok) == 0;
			if (!found)
			{
				ts_error(err, TS_ERR_INVALID, "partition key \"%s\" is not a column", tok);
				goto fail;
			}
			cJSON_AddItemToArray(pkeys, cJSON_CreateString(tok));
		}
	}
	cJSON_AddStringToObject(opts, "type", "format-table");
	cJSON_AddStringToObject(opts, TS_OPT_FILE_FORMAT, format);
	json = cJSON_PrintUnformatted(root);
	if (json == NULL)
		goto nomem;
	out = ts_strdup(json);
	cJSON_free(json);
	if (out == NULL)
		goto nomem;
	ts_free(keys);
	cJSON_Delete(root);
	return out;

nomem:
	ts_error_nomem(err, NULL);
fail:
	ts_free(keys);
	cJSON_Delete(root);
	return NULL;
}
