/*
 * partition_filter.c - partition values of manifest entries, as the scan needs them.
 *
 * Owns: decoding an entry's _PARTITION BinaryRow with the table's
 * partition types, its path string (through meta/partition.h), the
 * context's partition_filter (OR of ANDs of key = path-style value text;
 * the default name selects the NULL partition) parsed once into typed
 * values and matched against decoded partitions, and deciding whether a
 * manifest's _PARTITION_STATS may contain a matching partition.
 */
#include <string.h>

#include "meta/binary_row.h"
#include "meta/partition.h"
#include "scan/scan_internal.h"

typedef struct scan_partition_key_filter
{
	int			key;			/* index into the partition keys */
	ts_value	value;			/* NULL = the default-name partition */
} scan_partition_key_filter;

struct scan_partition_filter
{
	int			nkeys;
	scan_partition_key_filter *keys;
};

static void
partition_options(const ts_plan *plan, ts_partition_options *opts)
{
	opts->legacy_name = plan->core.partition_legacy_name;
	opts->default_name = plan->core.partition_default_name;
}

static int
partition_key_index(const ts_plan *plan, const char *key)
{
	int			i;

	for (i = 0; i < plan->schema->npartition_keys; i++)
		if (strcmp(plan->schema->partition_keys[i], key) == 0)
			return i;
	return -1;
}

/* Parse ctx->partition_filters into st->filters. */
static bool
parse_filters(ts_plan *plan, scan_state *st, ts_err *err)
{
	const ts_scan_context *ctx = st->ctx;
	ts_partition_options opts;
	int			f;

	if (ctx->npartition_filters == 0)
		return true;
	if (st->npartition_keys == 0)
		return ts_error(err, TS_ERR_INVALID,
						"partition_filter given, but table \"%s\" is not partitioned", plan->table_path);
	partition_options(plan, &opts);
	st->filters = ts_arena_alloc(&plan->arena, sizeof(*st->filters) * ctx->npartition_filters);
	if (st->filters == NULL)
		return ts_error_nomem(err, NULL);
	for (f = 0; f < ctx->npartition_filters; f++)
	{
		const ts_option *kv;
		int			n = 0;

		for (kv = ctx->partition_filters[f]; kv->key; kv++)
			n++;
		st->filters[f].nkeys = 0;
		st->filters[f].keys = ts_arena_alloc(&plan->arena, sizeof(scan_partition_key_filter) * (n ? n : 1));
		if (st->filters[f].keys == NULL)
			return ts_error_nomem(err, NULL);
		for (kv = ctx->partition_filters[f]; kv->key; kv++)
		{
			scan_partition_key_filter *kf = &st->filters[f].keys[st->filters[f].nkeys];
			int			k = partition_key_index(plan, kv->key);

			if (k < 0)
				return ts_error(err, TS_ERR_INVALID,
								"partition_filter names \"%s\", which is not a partition key of table \"%s\"",
								kv->key, plan->table_path);
			if (kv->value == NULL)
				return ts_error(err, TS_ERR_INVALID,
								"partition_filter value for \"%s\" is missing", kv->key);
			kf->key = k;
			if (!ts_partition_parse_value(kv->value, st->partition_types[k], &opts,
										  &kf->value, &plan->arena, err))
				return ts_error_context(err, "partition_filter \"%s\"", kv->key);
			st->filters[f].nkeys++;
		}
	}
	st->nfilters = ctx->npartition_filters;
	return true;
}

bool
scan_partition_setup(ts_plan *plan, scan_state *st, ts_err *err)
{
	const ts_schema *s = plan->schema;
	int			i;

	st->npartition_keys = s->npartition_keys;
	if (s->npartition_keys > 0)
	{
		st->partition_key_fields = ts_arena_alloc(&plan->arena, sizeof(int) * s->npartition_keys);
		st->partition_types = ts_arena_alloc(&plan->arena, sizeof(ts_type *) * s->npartition_keys);
		if (st->partition_key_fields == NULL || st->partition_types == NULL)
			return ts_error_nomem(err, NULL);
		for (i = 0; i < s->npartition_keys; i++)
		{
			int			f = ts_schema_field_index(s, s->partition_keys[i]);

			if (f < 0)
				return ts_error(err, TS_ERR_CORRUPT,
								"table \"%s\": partition key \"%s\" is not a column of schema %lld",
								plan->table_path, s->partition_keys[i], (long long) s->id);
			st->partition_key_fields[i] = f;
			st->partition_types[i] = s->fields[f].type;
		}
	}
	return parse_filters(plan, st, err);
}

bool
scan_partition_decode(ts_plan *plan, scan_state *st, ts_bytes partition,
					  ts_value **values, ts_err *err)
{
	ts_value   *v;

	*values = NULL;
	if (st->npartition_keys == 0)
		return true;
	if (partition.data == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "table \"%s\": manifest entry without partition",
						plan->table_path);
	v = ts_arena_alloc(&plan->arena, sizeof(ts_value) * st->npartition_keys);
	if (v == NULL)
		return ts_error_nomem(err, NULL);
	if (!ts_binary_row_decode(partition.data, partition.len, st->partition_types,
							  st->npartition_keys, v, NULL, &plan->arena, err))
		return ts_error_context(err, "table \"%s\": partition of a manifest entry", plan->table_path);
	*values = v;
	return true;
}

bool
scan_partition_path(ts_plan *plan, scan_state *st, ts_bytes partition,
					char **path, ts_err *err)
{
	ts_value   *values;
	ts_partition_options opts;
	char	   *p;
	size_t		len;

	*path = NULL;
	if (st->npartition_keys == 0)
	{
		*path = "";
		return true;
	}
	if (!scan_partition_decode(plan, st, partition, &values, err))
		return false;
	partition_options(plan, &opts);
	p = ts_partition_path((const char *const *) plan->schema->partition_keys, st->partition_types,
						  values, st->npartition_keys, &opts, err);
	if (p == NULL)
		return ts_error_context(err, "table \"%s\"", plan->table_path);
	len = strlen(p);
	while (len > 0 && p[len - 1] == '/')
		len--;
	*path = ts_arena_alloc(&plan->arena, len + 1);
	if (*path)
	{
		memcpy(*path, p, len);
		(*path)[len] = '\0';
	}
	ts_free(p);
	if (*path == NULL)
		return ts_error_nomem(err, NULL);
	return true;
}

/* ---- partition filter ------------------------------------------------ */

static bool
key_equal(const ts_type *t, const ts_value *have, const ts_value *want)
{
	int			c;

	if (have->isnull || want->isnull)
		return have->isnull && want->isnull;
	if (!ts_value_order(t, have, want, &c))
		return true;			/* unordered type: do not prune */
	return c == 0;
}

bool
scan_partition_filter_match(ts_plan *plan, scan_state *st, ts_bytes partition,
							bool *match, ts_err *err)
{
	ts_value   *values;
	int			f,
				k;

	*match = true;
	if (st->nfilters == 0)
		return true;
	*match = false;
	if (!scan_partition_decode(plan, st, partition, &values, err))
		return false;
	for (f = 0; f < st->nfilters; f++)
	{
		bool		all = true;

		if ((f & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			return false;
		for (k = 0; k < st->filters[f].nkeys && all; k++)
		{
			const scan_partition_key_filter *kf = &st->filters[f].keys[k];

			all = key_equal(st->partition_types[kf->key], &values[kf->key], &kf->value);
		}
		if (all)
		{
			*match = true;
			return true;
		}
	}
	return true;
}

/* Might a key with these stats hold 'want'?  True unless proven otherwise. */
static bool
stats_may_hold(const ts_type *t, const ts_value *min, const ts_value *max,
			   int64_t null_count, int64_t nrows, const ts_value *want)
{
	int			c;

	if (want->isnull)
		return null_count != 0;	/* unknown (-1) or some nulls */
	if (null_count >= 0 && nrows > 0 && null_count >= nrows)
		return false;			/* only nulls */
	if (min->isnull || max->isnull)
		return true;
	if (!ts_value_order(t, min, want, &c))
		return true;
	if (c > 0)
		return false;
	if (!ts_value_order(t, max, want, &c))
		return true;
	return c >= 0;
}

bool
scan_partition_filter_may_match_stats(ts_plan *plan, scan_state *st,
									  const ts_simple_stats *stats,
									  int64_t nrows, bool *may, ts_err *err)
{
	ts_value   *mins,
			   *maxs;
	ts_err		ignored;
	int			f,
				k;

	*may = true;
	if (st->nfilters == 0 || st->npartition_keys == 0)
		return true;
	if (stats->min_values.data == NULL || stats->max_values.data == NULL)
		return true;
	mins = ts_arena_alloc(&plan->arena, sizeof(ts_value) * st->npartition_keys);
	maxs = ts_arena_alloc(&plan->arena, sizeof(ts_value) * st->npartition_keys);
	if (mins == NULL || maxs == NULL)
		return ts_error_nomem(err, NULL);
	/* stats that do not decode never prune */
	if (!ts_binary_row_decode(stats->min_values.data, stats->min_values.len, st->partition_types,
							  st->npartition_keys, mins, NULL, &plan->arena, &ignored) ||
		!ts_binary_row_decode(stats->max_values.data, stats->max_values.len, st->partition_types,
							  st->npartition_keys, maxs, NULL, &plan->arena, &ignored))
		return true;

	*may = false;
	for (f = 0; f < st->nfilters && !*may; f++)
	{
		bool		all = true;

		if ((f & 4095) == 4095 && !TS_CHECK_INTERRUPTS(err))
			return false;
		for (k = 0; k < st->filters[f].nkeys && all; k++)
		{
			const scan_partition_key_filter *kf = &st->filters[f].keys[k];
			int			i = kf->key;
			int64_t		nc = stats->nnull_counts > i ? stats->null_counts[i] : -1;

			all = stats_may_hold(st->partition_types[i], &mins[i], &maxs[i], nc, nrows, &kf->value);
		}
		if (all)
			*may = true;
	}
	return true;
}

/* ---- the predicate's partition part ---------------------------------- */

static int
partition_index_of_field(const scan_state *st, int field)
{
	for (int k = 0; k < st->npartition_keys; k++)
		if (st->partition_key_fields[k] == field)
			return k;
	return -1;
}

/* a decoded partition value as partition_leaf_may_match sees it */
typedef struct partition_values
{
	const scan_state *st;
	const ts_value *values;
} partition_values;

/*
 * May the partition's rows satisfy leaf p?  Leaves on partition columns
 * are decided exactly from the partition value (SQL semantics: NULL
 * satisfies only IS NULL); everything else is "may".
 */
static bool
partition_leaf_may_match(const ts_predicate *p, void *arg)
{
	const partition_values *pv = arg;
	int			k = partition_index_of_field(pv->st, p->field);

	if (k < 0)
		return true;
	return scan_predicate_leaf_may_hold(p, pv->st->partition_types[k], &pv->values[k]) != 0;
}

bool
scan_partition_predicate_keep(ts_plan *plan, scan_state *st, ts_bytes partition,
							  bool *keep, ts_err *err)
{
	ts_value   *values;

	*keep = true;
	/* an explicit partition_filter replaces the predicate's partition part (as Paimon) */
	if (st->ctx->predicate == NULL || !st->ctx->enable_pruning ||
		st->npartition_keys == 0 || st->nfilters > 0)
		return true;
	if (!scan_partition_decode(plan, st, partition, &values, err))
		return false;
	{
		partition_values pv = {st, values};

		*keep = ts_predicate_may_match(st->ctx->predicate, partition_leaf_may_match, &pv);
	}
	return true;
}
