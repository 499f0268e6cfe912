/*
 * test_scan_orc.c - scan planning on the real tables whose manifests are
 * ORC files (most of ../shared/testdata), checked against the oracle's
 * expected_splits (scan_plan_only cases: partitions, buckets, total
 * buckets, file lists in order and their DataFileMeta), read_splits and
 * row counts.  Needs the ORC reader (src/format/orc).
 */
#include "scan_oracle.h"

#include "meta/partition.h"
#include "expr/predicate.h"

ts_format_reader *(*volatile force_avro_reader) (const char *, const ts_read_column *, int,
												  const ts_reader_options *, ts_err *) = ts_avro_open;
ts_format_reader *(*volatile force_orc_reader) (const char *, const ts_read_column *, int,
												 const ts_reader_options *, ts_err *) = ts_orc_open;

/* ---- predicate_expr -> ts_predicate ---------------------------------- */

typedef struct pred_pool
{
	ts_predicate nodes[64];
	ts_value	lits[64];
	int			nnodes,
				nlits;
	ts_arena	arena;
} pred_pool;

static bool
literal_from_json(pred_pool *pool, const ts_type *t, const cJSON *j, ts_value *v)
{
	ts_err		err = {0};

	memset(v, 0, sizeof(*v));
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			if (!cJSON_IsNumber(j))
				return false;
			v->v.i = (int64_t) j->valuedouble;
			return true;
		case TS_FLOAT:
			v->v.f = (float) j->valuedouble;
			return cJSON_IsNumber(j);
		case TS_DOUBLE:
			v->v.d = j->valuedouble;
			return cJSON_IsNumber(j);
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (!cJSON_IsString(j))
				return false;
			v->v.s.p = (const uint8_t *) j->valuestring;
			v->v.s.len = strlen(j->valuestring);
			return true;
		case TS_DATE:
			return cJSON_IsString(j) &&
				ts_parse_date_text(j->valuestring, strlen(j->valuestring), &v->v.i, &err);
		case TS_TIMESTAMP:
			return cJSON_IsString(j) &&
				ts_parse_timestamp_text(j->valuestring, strlen(j->valuestring),
										&v->v.ts.millis, &v->v.ts.nanos, &err);
		case TS_DECIMAL:
			return cJSON_IsString(j) &&
				ts_parse_decimal_text(j->valuestring, strlen(j->valuestring), t->precision,
									  t->scale, &v->v.dec, &err);
		default:
			return false;
	}
}

static ts_predicate *
pred_from_json(pred_pool *pool, const ts_schema *s, const cJSON *e)
{
	const char *op;
	ts_predicate *p;

	if (!cJSON_IsArray(e) || pool->nnodes >= 64)
		return NULL;
	op = cJSON_GetArrayItem(e, 0)->valuestring;
	p = &pool->nodes[pool->nnodes++];
	memset(p, 0, sizeof(*p));
	if (strcmp(op, "and") == 0 || strcmp(op, "or") == 0)
	{
		const cJSON *kids = cJSON_GetArrayItem(e, 1);
		int			n = cJSON_GetArraySize(kids);
		ts_predicate *arr = ts_arena_alloc(&pool->arena, sizeof(ts_predicate) * n);

		p->op = op[0] == 'a' ? TS_PRED_AND : TS_PRED_OR;
		for (int i = 0; i < n; i++)
		{
			ts_predicate *k = pred_from_json(pool, s, cJSON_GetArrayItem(kids, i));

			if (k == NULL)
				return NULL;
			arr[i] = *k;
		}
		p->nchildren = n;
		p->children = arr;
		return p;
	}
	{
		const char *field = cJSON_GetArrayItem(e, 1)->valuestring;
		int			f = ts_schema_field_index(s, field);
		static const struct
		{
			const char *name;
			ts_predicate_op op;
		}			ops[] = {
			{"=", TS_PRED_EQ}, {"!=", TS_PRED_NE}, {"<", TS_PRED_LT}, {"<=", TS_PRED_LE},
			{">", TS_PRED_GT}, {">=", TS_PRED_GE}, {"in", TS_PRED_IN}, {"not_in", TS_PRED_NOT_IN},
			{"is_null", TS_PRED_IS_NULL}, {"is_not_null", TS_PRED_IS_NOT_NULL}, {NULL, 0}
		};
		int			i;

		if (f < 0)
			return NULL;
		for (i = 0; ops[i].name && strcmp(ops[i].name, op) != 0; i++)
			;
		if (ops[i].name == NULL)
			return NULL;
		p->op = ops[i].op;
		p->field = f;
		if (p->op == TS_PRED_IS_NULL || p->op == TS_PRED_IS_NOT_NULL)
			return p;
		if (p->op == TS_PRED_IN || p->op == TS_PRED_NOT_IN)
		{
			const cJSON *l;

			p->literals = &pool->lits[pool->nlits];
			cJSON_ArrayForEach(l, cJSON_GetArrayItem(e, 2))
			{
				if (pool->nlits >= 64 ||
					!literal_from_json(pool, s->fields[f].type, l, &pool->lits[pool->nlits]))
					return NULL;
				pool->nlits++;
				p->nliterals++;
			}
			return p;
		}
		if (pool->nlits >= 64 ||
			!literal_from_json(pool, s->fields[f].type, cJSON_GetArrayItem(e, 2), &pool->lits[pool->nlits]))
			return NULL;
		p->literals = &pool->lits[pool->nlits++];
		p->nliterals = 1;
		return p;
	}
}

/* ---- expected_splits ------------------------------------------------- */

static bool
partition_matches(const ts_plan *plan, const ts_split *split, const cJSON *exp)
{
	const cJSON *kv;

	if (cJSON_GetArraySize(exp) != plan->schema->npartition_keys)
		return false;
	cJSON_ArrayForEach(kv, exp)
	{
		int			k;

		for (k = 0; k < plan->schema->npartition_keys; k++)
			if (strcmp(plan->schema->partition_keys[k], kv->string) == 0)
				break;
		if (k == plan->schema->npartition_keys)
			return false;
		if (cJSON_IsNumber(kv))
		{
			if (split->partition_values[k].isnull || split->partition_values[k].v.i != (int64_t) kv->valuedouble)
				return false;
		}
		else if (cJSON_IsString(kv))
		{
			const ts_value *v = &split->partition_values[k];

			if (v->isnull || v->v.s.len != strlen(kv->valuestring) ||
				memcmp(v->v.s.p, kv->valuestring, v->v.s.len) != 0)
				return false;
		}
		else if (cJSON_IsNull(kv) && !split->partition_values[k].isnull)
			return false;
	}
	return true;
}

static const ts_scan_file *
find_file(const ts_plan *plan, const char *name, const ts_split **in)
{
	for (int s = 0; s < plan->nsplits; s++)
		for (int k = 0; k < plan->splits[s].nfiles; k++)
			if (strcmp(plan->splits[s].files[k].entry->file.file_name, name) == 0)
			{
				*in = &plan->splits[s];
				return &plan->splits[s].files[k];
			}
	return NULL;
}

static void
check_file_meta(const char *name, const ts_plan *plan, const ts_scan_file *f, const cJSON *m)
{
	const char *path = ts_scan_file_label(plan, f);
	const ts_data_file_meta *d = &f->entry->file;
	const cJSON *x;

#define CHECK_INT(field, key) \
	if ((x = cJSON_GetObjectItem(m, key)) != NULL && cJSON_IsNumber(x) && \
		(int64_t) (field) != (int64_t) x->valuedouble) \
		fail_msg("%s: %s %s = %lld, oracle %lld", name, d->file_name, key, \
				 (long long) (field), (long long) x->valuedouble)
	CHECK_INT(d->file_size, "file_size");
	CHECK_INT(d->row_count, "row_count");
	CHECK_INT(d->min_sequence_number, "min_sequence_number");
	CHECK_INT(d->max_sequence_number, "max_sequence_number");
	CHECK_INT(d->schema_id, "schema_id");
	CHECK_INT(d->level, "level");
	CHECK_INT(d->delete_row_count, "delete_row_count");
#undef CHECK_INT
	if ((x = cJSON_GetObjectItem(m, "file_source")) != NULL && cJSON_IsString(x))
		assert_int_equal(d->file_source, strcasecmp(x->valuestring, "append") == 0 ? 0 : 1);
	assert_string_equal(base_name(path), d->file_name);
	if (!ts_path_is_file(ts_fs_local_unconfined(), path))
		fail_msg("%s: planned data file does not exist: %s", name, path);
}

/*
 * exact: same splits in the same order with the same files in order;
 * otherwise every expected file is planned in the right split (pruning
 * less than the oracle is allowed).
 */
static bool
check_expected_splits(const char *name, const cJSON *o, const ts_plan *plan, bool exact)
{
	const cJSON *exp = cJSON_GetObjectItem(o, "expected_splits");
	const cJSON *es;
	int			i = 0;
	bool		same = cJSON_GetArraySize(exp) == plan->nsplits;

	cJSON_ArrayForEach(es, exp)
	{
		const cJSON *files = cJSON_GetObjectItem(es, "files");
		const cJSON *metas = cJSON_GetObjectItem(es, "file_meta");
		const ts_split *split = NULL;

		for (int k = 0; k < cJSON_GetArraySize(files); k++)
		{
			const char *fname = cJSON_GetArrayItem(files, k)->valuestring;
			const ts_split *in = NULL;
			const ts_scan_file *f = find_file(plan, fname, &in);

			if (f == NULL)
				fail_msg("%s: expected file %s not planned", name, fname);
			if (split == NULL)
				split = in;
			if (in != split)
				fail_msg("%s: file %s planned in another split", name, fname);
			check_file_meta(name, plan, f, cJSON_GetArrayItem(metas, k));
			if (k >= split->nfiles || split->files[k].entry != f->entry)
				same = false;
		}
		if (split == NULL)
			continue;
		assert_int_equal(split->bucket, (int) cJSON_GetObjectItem(es, "bucket")->valuedouble);
		assert_int_equal(split->total_buckets, (int) cJSON_GetObjectItem(es, "total_buckets")->valuedouble);
		if (!partition_matches(plan, split, cJSON_GetObjectItem(es, "partition")))
			fail_msg("%s: split partition differs", name);
		if (split->nfiles != cJSON_GetArraySize(files) || i >= plan->nsplits || &plan->splits[i] != split)
			same = false;
		i++;
	}
	if (exact && !same)
		fail_msg("%s: plan differs from expected_splits (%d splits planned)", name, plan->nsplits);
	return same;
}

static void
test_expected_splits(void **state)
{
	char	  **names;
	int			n = oracle_cases(&names),
				checked = 0,
				exact = 0,
				with_pred = 0;

	(void) state;
	for (int i = 0; i < n; i++)
	{
		cJSON	   *o = oracle_load(names[i]);
		const cJSON *opts = cJSON_GetObjectItem(o, "options");
		const cJSON *pe = cJSON_GetObjectItem(o, "predicate_expr");
		oracle_ctx	c;
		ts_plan    *plan;
		pred_pool	pool;
		bool		must_be_exact;

		if (!cJSON_IsArray(cJSON_GetObjectItem(o, "expected_splits")))
		{
			cJSON_Delete(o);
			continue;
		}
		oracle_ctx_build(o, &c);
		memset(&pool, 0, sizeof(pool));
		ts_arena_init(&pool.arena, 4096);
		/* split-size bin packing is not ours (one split per bucket) */
		must_be_exact = cJSON_GetObjectItem(opts, "source.split.target-size") == NULL;
		/* two steps, as the FDW does: the predicate needs the read schema */
		{
			ts_err		err = {0};

			plan = ts_scan_prepare(&c.ctx, &err);
			if (plan == NULL)
				fail_msg("%s: %s", names[i], err.msg);
			if (cJSON_IsArray(pe))
			{
				c.ctx.predicate = pred_from_json(&pool, plan->schema, pe);
				assert_non_null(c.ctx.predicate);
				must_be_exact = false;
				with_pred++;
			}
			if (!ts_scan_execute(plan, &c.ctx, &err))
				fail_msg("%s: %s", names[i], err.msg);
		}
		if (check_expected_splits(names[i], o, plan, must_be_exact))
			exact++;
		else
			printf("  not exact (prunes less): %s\n", names[i]);
		checked++;
		ts_plan_free(plan);
		ts_arena_free(&pool.arena);
		cJSON_Delete(o);
	}
	oracle_free_cases(names, n);
	printf("expected_splits cases: %d checked, %d exact (%d with predicate)\n", checked, exact, with_pred);
	assert_true(checked >= 20);
}

static void
test_oracle_read_splits_orc(void **state)
{
	(void) state;
	assert_true(oracle_check_read_splits(TS_FORMAT_ORC) >= 10);
}

static void
test_oracle_row_counts_orc(void **state)
{
	(void) state;
	assert_true(oracle_check_row_counts(TS_FORMAT_ORC) >= 10);
}

/* scan.mode=compacted-full reads the latest COMPACT snapshot; streaming-only modes are refused. */
static void
test_scan_modes(void **state)
{
	ts_scan_context ctx;
	ts_option	o = {"scan.mode", "compacted-full"};
	ts_err		err = {0};
	ts_plan    *plan;
	char		path[4096];
	int64_t		latest;

	(void) state;
	memset(&ctx, 0, sizeof(ctx));
	snprintf(path, sizeof(path), "%s/testdata/orc/append_09.db/append_09", unit_shared_dir());
	ctx.table_path = path;
	ctx.limit = -1;
	ctx.noptions = 1;
	ctx.options = &o;
	plan = scan_plan_ok(&ctx);
	assert_non_null(plan->snapshot);
	assert_string_equal(plan->snapshot->commit_kind, "COMPACT");
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), path, &latest, &err));
	for (int64_t id = plan->snapshot->id + 1; id <= latest; id++)
	{
		ts_snapshot *s = ts_snapshot_load(ts_fs_local_unconfined(), path, id, &err);

		assert_non_null(s);
		assert_string_not_equal(s->commit_kind, "COMPACT");
		ts_snapshot_free(s);
	}
	ts_plan_free(plan);

	o.value = "incremental";
	assert_null(ts_scan_plan(&ctx, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "incremental"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expected_splits),
		cmocka_unit_test(test_oracle_read_splits_orc),
		cmocka_unit_test(test_oracle_row_counts_orc),
		cmocka_unit_test(test_scan_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
