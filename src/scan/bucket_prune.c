/*
 * bucket_prune.c - bucket pruning inferred from the predicate (paimon-cpp's
 * TableScan as SEED-SCAN.md describes it,
 * "Bucket pruning", PAIMON-FORMAT.md 6.7).
 *
 * Owns: deciding whether the predicate pins every bucket key to a finite
 * set of values (top-level AND conjuncts of EQ / IN, or ORs of EQs on one
 * key), converting the literals exactly to the key types (NaN or an
 * inexact conversion disables inference), and per manifest entry keeping
 * only the buckets those values hash to under the entry's own
 * _TOTAL_BUCKETS, for files whose schema has the same ordered bucket-key
 * field ids, types and bucket function.  Anything unsure keeps the file.
 * Also writes plan->bucket_pruning for EXPLAIN.  An explicit bucket_filter
 * wins and is applied in plan.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ts_type_class.h"
#include "meta/bucket.h"
#include "scan/scan_internal.h"

#define MAX_COMBINATIONS 1000
#define MAX_CACHED_TOTALS 16

typedef struct bucket_set
{
	int32_t		total_buckets;
	int			nbuckets;
	int32_t    *buckets;		/* sorted, distinct */
} bucket_set;

typedef struct schema_compat
{
	int64_t		schema_id;
	bool		compatible;
} schema_compat;

typedef struct bucket_selector
{
	ts_bucket_function fn;
	int			nkeys;
	int		   *key_fields;		/* read-schema field indexes, bucket-key order */
	const ts_type **key_types;
	int			nvalues_per_key[16];
	ts_value  **values;			/* values[k][0..nvalues_per_key[k]-1] */
	int			ncombinations;
	int			ncached;
	bucket_set	cached[MAX_CACHED_TOTALS];
	int			ncompat;
	schema_compat compat[32];
} bucket_selector;

static bool
set_reason(ts_plan *plan, const char *reason, ts_err *err)
{
	plan->bucket_pruning = ts_arena_printf(&plan->arena, "none: %s", reason);
	if (plan->bucket_pruning == NULL)
		return ts_error_nomem(err, NULL);
	return true;
}

/* ---- literal conversion ---- */

static ts_int128
pow10_128(int n)
{
	ts_int128	r = 1;

	while (n-- > 0)
		r *= 10;
	return r;
}

/*
 * Convert literal 'in' of type 'from' to the key type 'to' exactly.
 * Returns false (no error) when not exact, NaN or a float zero: inference
 * is then off.
 */
static bool
convert_literal(const ts_type *from, const ts_type *to, const ts_value *in, ts_value *out,
				const char **why)
{
	*out = *in;
	if ((to->kind == TS_FLOAT && isnan(in->v.f) && (from == NULL || from->kind == TS_FLOAT)) ||
		(to->kind == TS_DOUBLE && isnan(in->v.d) && (from == NULL || from->kind == TS_DOUBLE)))
	{
		*why = "NaN literal";
		return false;
	}
	if ((to->kind == TS_FLOAT && in->v.f == 0 && (from == NULL || from->kind == TS_FLOAT)) ||
		(to->kind == TS_DOUBLE && in->v.d == 0 && (from == NULL || from->kind == TS_DOUBLE)))
	{
		/* SQL's = matches -0.0 and 0.0, which hash to different buckets */
		*why = "zero literal (-0.0 = 0.0)";
		return false;
	}
	if (from == NULL || ts_type_equal(from, to))
		return true;
	if (ts_type_is_integer(from->kind) && ts_type_is_integer(to->kind))
	{
		if (!ts_type_int_fits(to->kind, in->v.i))
		{
			*why = "integer literal out of the key type's range";
			return false;
		}
		return true;
	}
	if (from->kind == TS_DECIMAL && to->kind == TS_DECIMAL)
	{
		ts_int128	u = in->v.dec;
		int			ds = to->scale - from->scale;

		if (ds >= 0)
		{
			if (ds > 38)
				goto inexact;
			u *= pow10_128(ds);
			if (u / pow10_128(ds) != in->v.dec)
				goto inexact;
		}
		else
		{
			ts_int128	p = pow10_128(-ds);

			if (-ds > 38 || u % p != 0)
				goto inexact;
			u /= p;
		}
		/* must fit the key's precision */
		if (to->precision < 38)
		{
			ts_int128	lim = pow10_128(to->precision);

			if (u >= lim || u <= -lim)
				goto inexact;
		}
		out->v.dec = u;
		return true;
	}
	if (ts_type_is_integer(from->kind) && to->kind == TS_DECIMAL)
	{
		ts_int128	u = (ts_int128) in->v.i * pow10_128(to->scale);

		if (to->precision < 38 && (u >= pow10_128(to->precision) || u <= -pow10_128(to->precision)))
			goto inexact;
		out->v.dec = u;
		return true;
	}
	if (from->kind == TS_DECIMAL && ts_type_is_integer(to->kind))
	{
		ts_int128	p = pow10_128(from->scale);

		if (in->v.dec % p != 0 || in->v.dec / p > INT64_MAX || in->v.dec / p < INT64_MIN)
			goto inexact;
		out->v.i = (int64_t) (in->v.dec / p);
		if (!ts_type_int_fits(to->kind, out->v.i))
			goto inexact;
		return true;
	}
	if ((from->kind == TS_CHAR || from->kind == TS_VARCHAR) &&
		(to->kind == TS_CHAR || to->kind == TS_VARCHAR))
		return true;
	*why = "literal type differs from the bucket key type";
	return false;
inexact:
	*why = "literal cannot be converted exactly to the bucket key type";
	return false;
}

/* ---- collecting values from the predicate ---- */

/* Values an EQ/IN leaf (or an OR of them on one field) allows; false if none. */
static bool
conjunct_values(const ts_predicate *p, int *field, const ts_type **lit_type,
				const ts_value ***vals, int *nvals, ts_arena *a)
{
	int			i;

	if (p->op == TS_PRED_EQ || p->op == TS_PRED_IN)
	{
		if (p->nliterals <= 0 || p->literals == NULL)
			return false;
		*field = p->field;
		*lit_type = p->literal_type;
		*vals = ts_arena_alloc(a, sizeof(ts_value *) * p->nliterals);
		if (*vals == NULL)
			return false;
		*nvals = 0;
		for (i = 0; i < p->nliterals; i++)
			if (!p->literals[i].isnull)
				(*vals)[(*nvals)++] = &p->literals[i];
		return *nvals > 0;
	}
	if (p->op == TS_PRED_OR && p->nchildren > 0)
	{
		int			total = 0,
					f = -1;
		const ts_type *lt = NULL;

		for (i = 0; i < p->nchildren; i++)
		{
			const ts_predicate *c = &p->children[i];

			if ((c->op != TS_PRED_EQ && c->op != TS_PRED_IN) || (f >= 0 && c->field != f))
				return false;
			if (i > 0 && c->literal_type != lt &&
				!(c->literal_type && lt && ts_type_equal(c->literal_type, lt)))
				return false;
			f = c->field;
			lt = c->literal_type;
			total += c->nliterals;
		}
		*field = f;
		*lit_type = lt;
		*vals = ts_arena_alloc(a, sizeof(ts_value *) * (total ? total : 1));
		if (*vals == NULL)
			return false;
		*nvals = 0;
		for (i = 0; i < p->nchildren; i++)
			for (int j = 0; j < p->children[i].nliterals; j++)
				if (!p->children[i].literals[j].isnull)
					(*vals)[(*nvals)++] = &p->children[i].literals[j];
		return *nvals > 0;
	}
	return false;
}

/* Walk the top-level AND; fill values for bucket key k from the first conjunct on it. */
static bool
collect(ts_plan *plan, bucket_selector *bs, const ts_predicate *p, const char **why)
{
	int			field,
				n,
				k;
	const ts_type *lt;
	const ts_value **vals;

	if (p->op == TS_PRED_AND)
	{
		for (int i = 0; i < p->nchildren; i++)
			if (!collect(plan, bs, &p->children[i], why))
				return false;
		return true;
	}
	if (!conjunct_values(p, &field, &lt, &vals, &n, &plan->arena))
		return true;
	for (k = 0; k < bs->nkeys; k++)
		if (bs->key_fields[k] == field)
			break;
	if (k == bs->nkeys || bs->values[k] != NULL)
		return true;
	bs->values[k] = ts_arena_alloc(&plan->arena, sizeof(ts_value) * n);
	if (bs->values[k] == NULL)
		return false;
	for (int i = 0; i < n; i++)
		if (!convert_literal(lt, bs->key_types[k], vals[i], &bs->values[k][i], why))
			return false;
	bs->nvalues_per_key[k] = n;
	return true;
}

bool
scan_bucket_setup(ts_plan *plan, scan_state *st, ts_err *err)
{
	const ts_scan_context *ctx = st->ctx;
	bucket_selector *bs;
	int		   *keys = NULL;
	int			nkeys = 0,
				k;
	const char *why = NULL;
	ts_buf		names;

	st->bucket_selector = NULL;
	if (st->has_bucket_filter)
	{
		plan->bucket_pruning = ts_arena_printf(&plan->arena, "explicit bucket_filter %d",
												 st->bucket_filter);
		return plan->bucket_pruning ? true : ts_error_nomem(err, NULL);
	}
	if (st->table_bucket <= 0 && st->table_bucket != -2)
		return set_reason(plan, st->table_bucket == -1 ?
						  (plan->kind == TS_TABLE_APPEND ? "bucket-unaware table" : "dynamic-bucket table") :
						  "no fixed buckets", err);
	if (ctx->predicate == NULL)
		return set_reason(plan, "no predicate", err);
	if (!ctx->enable_pruning)
		return set_reason(plan, "pruning disabled", err);
	if (!ts_schema_bucket_keys(plan->schema, &keys, &nkeys, err))
		return false;
	if (nkeys == 0 || nkeys > 16)
	{
		ts_free(keys);
		return set_reason(plan, nkeys == 0 ? "no bucket key" : "too many bucket keys", err);
	}
	bs = ts_arena_alloc(&plan->arena, sizeof(*bs));
	if (bs == NULL)
	{
		ts_free(keys);
		return ts_error_nomem(err, NULL);
	}
	memset(bs, 0, sizeof(*bs));
	if (!ts_bucket_function_parse(plan->core.bucket_function_type, &bs->fn, err))
	{
		ts_free(keys);
		return false;
	}
	bs->nkeys = nkeys;
	bs->key_fields = ts_arena_dup(&plan->arena, keys, sizeof(int) * nkeys);
	ts_free(keys);
	bs->key_types = ts_arena_alloc(&plan->arena, sizeof(ts_type *) * nkeys);
	bs->values = ts_arena_alloc(&plan->arena, sizeof(ts_value *) * nkeys);
	if (bs->key_fields == NULL || bs->key_types == NULL || bs->values == NULL)
		return ts_error_nomem(err, NULL);
	for (k = 0; k < nkeys; k++)
	{
		bs->key_types[k] = plan->schema->fields[bs->key_fields[k]].type;
		bs->values[k] = NULL;
	}
	if (!collect(plan, bs, ctx->predicate, &why))
		return why ? set_reason(plan, why, err) : ts_error_nomem(err, NULL);

	ts_buf_init(&names);
	bs->ncombinations = 1;
	for (k = 0; k < nkeys; k++)
	{
		const char *name = plan->schema->fields[bs->key_fields[k]].name;

		if (bs->values[k] == NULL)
		{
			char		reason[256];

			ts_buf_free(&names);
			snprintf(reason, sizeof(reason), "bucket key %s is not constrained by equality", name);
			return set_reason(plan, reason, err);
		}
		if (bs->ncombinations > MAX_COMBINATIONS / bs->nvalues_per_key[k])
		{
			ts_buf_free(&names);
			return set_reason(plan, "too many bucket-key value combinations", err);
		}
		bs->ncombinations *= bs->nvalues_per_key[k];
		if ((k > 0 && !ts_buf_append(&names, ", ", 2, err)) ||
			!ts_buf_append(&names, name, strlen(name), err))
		{
			ts_buf_free(&names);
			return false;
		}
	}
	plan->bucket_pruning = ts_arena_printf(&plan->arena, "inferred from %.*s",
											 (int) names.len, (const char *) names.data);
	ts_buf_free(&names);
	if (plan->bucket_pruning == NULL)
		return ts_error_nomem(err, NULL);
	st->bucket_selector = bs;
	return true;
}

/* ---- per entry ---- */

static int
cmp_i32(const void *a, const void *b)
{
	int32_t		x = *(const int32_t *) a,
				y = *(const int32_t *) b;

	return x < y ? -1 : x > y;
}

static const bucket_set *
buckets_for_total(ts_plan *plan, bucket_selector *bs, int32_t total, ts_err *err)
{
	bucket_set *set = NULL;
	ts_value	row[16];
	int			idx[16] = {0};
	int			i,
				k,
				n = 0;

	for (i = 0; i < bs->ncached; i++)
		if (bs->cached[i].total_buckets == total)
			return &bs->cached[i];
	if (bs->ncached < MAX_CACHED_TOTALS)
		set = &bs->cached[bs->ncached];
	else
		set = &bs->cached[total % MAX_CACHED_TOTALS];	/* evict */
	set->total_buckets = total;
	set->buckets = ts_arena_alloc(&plan->arena, sizeof(int32_t) * bs->ncombinations);
	if (set->buckets == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (i = 0; i < bs->ncombinations; i++)
	{
		int32_t		b;

		for (k = 0; k < bs->nkeys; k++)
			row[k] = bs->values[k][idx[k]];
		if (!ts_bucket_compute(bs->fn, bs->key_types, row, bs->nkeys, total, &b, err))
		{
			set->nbuckets = -1;	/* the function cannot take these keys */
			return NULL;
		}
		set->buckets[n++] = b;
		/* next combination */
		for (k = bs->nkeys - 1; k >= 0; k--)
		{
			if (++idx[k] < bs->nvalues_per_key[k])
				break;
			idx[k] = 0;
		}
	}
	qsort(set->buckets, n, sizeof(int32_t), cmp_i32);
	set->nbuckets = 0;
	for (i = 0; i < n; i++)
		if (i == 0 || set->buckets[i] != set->buckets[i - 1])
			set->buckets[set->nbuckets++] = set->buckets[i];
	if (bs->ncached < MAX_CACHED_TOTALS)
		bs->ncached++;
	return set;
}

/* Same ordered bucket-key field ids, types and bucket function? */
static bool
schema_compatible(ts_plan *plan, bucket_selector *bs, int64_t schema_id, bool *ok, ts_err *err)
{
	const ts_schema *fs;
	int		   *keys = NULL;
	int			nkeys = 0,
				i;
	ts_bucket_function fn;
	ts_err		e2;

	*ok = false;
	if (schema_id == plan->schema->id)
	{
		*ok = true;
		return true;
	}
	for (i = 0; i < bs->ncompat; i++)
		if (bs->compat[i].schema_id == schema_id)
		{
			*ok = bs->compat[i].compatible;
			return true;
		}
	fs = ts_plan_schema(plan, schema_id, err);
	if (fs == NULL)
		return false;
	if (ts_schema_bucket_keys(fs, &keys, &nkeys, &e2) && nkeys == bs->nkeys &&
		ts_bucket_function_parse(ts_schema_option(fs, TS_OPT_BUCKET_FUNCTION_TYPE), &fn, &e2) &&
		fn == bs->fn)
	{
		*ok = true;
		for (i = 0; i < nkeys && *ok; i++)
		{
			const ts_field *a = &fs->fields[keys[i]];
			const ts_field *b = &plan->schema->fields[bs->key_fields[i]];

			if (a->id != b->id || !ts_type_equal(a->type, b->type))
				*ok = false;
		}
	}
	ts_free(keys);
	if (bs->ncompat < 32)
	{
		bs->compat[bs->ncompat].schema_id = schema_id;
		bs->compat[bs->ncompat].compatible = *ok;
		bs->ncompat++;
	}
	return true;
}

bool
scan_bucket_keep(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
				 bool *keep, ts_err *err)
{
	bucket_selector *bs = st->bucket_selector;
	const bucket_set *set;
	bool		compatible;

	*keep = true;
	if (bs == NULL || e->total_buckets <= 0 || e->bucket < 0)
		return true;
	if (!schema_compatible(plan, bs, e->file.schema_id, &compatible, err))
		return false;
	if (!compatible)
		return true;
	set = buckets_for_total(plan, bs, e->total_buckets, err);
	if (set == NULL)
	{
		if (err && err->code == TS_ERR_UNSUPPORTED)
		{
			/* e.g. MOD over a key it cannot take: keep everything */
			char		reason[TS_ERR_MSG_LEN + 16];

			snprintf(reason, sizeof(reason), "%s", err->msg);
			err->code = TS_OK;
			st->bucket_selector = NULL;
			return set_reason(plan, reason, err);
		}
		return false;
	}
	*keep = bsearch(&e->bucket, set->buckets, set->nbuckets, sizeof(int32_t), cmp_i32) != NULL;
	return true;
}

bool
scan_bucket_current_set(ts_plan *plan, scan_state *st, int32_t total,
						const int32_t **buckets, int *nbuckets, ts_err *err)
{
	bucket_selector *bs = st->bucket_selector;
	const bucket_set *set;

	*buckets = NULL;
	*nbuckets = 0;
	if (bs == NULL || total <= 0)
		return ts_error(err, TS_ERR_INVALID, "no inferred bucket selector");
	set = buckets_for_total(plan, bs, total, err);
	if (set == NULL)
		return false;
	*buckets = set->buckets;
	*nbuckets = set->nbuckets;
	return true;
}
