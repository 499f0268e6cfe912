/*
 * ts_gen_pk.h - the primary-key table writer of ts_gen (included once by
 * ts_gen.c: the Makefile builds every src/tools/NAME.c into its own binary,
 * so this part of the tool is a header of static functions that uses
 * ts_gen.c's helpers: config, value formulas, stats, manifest schemas).
 *
 * Owns: a deterministic write stream of key-value records (+I/-U/+U/-D,
 * keys repeating across commits), level-0 data files per commit, COMPACT
 * snapshots that merge levels into higher-level sorted runs (with DELETE
 * entries of the replaced files, or "upgrades" of a single file), lookup
 * compaction with deletion vectors (DV index files + index manifest) and
 * first-row lookup, and the merge function the compaction applies.
 * ts_gen_pk_write.h writes the files, metadata and <table_dir>.ops.jsonl
 * (every record of every data file, every file ADD/DELETE and every
 * deletion vector, so that a test can compute the expected rows without
 * our reader; test/unit/test_pk_model.c does).
 *
 * THE WRITE STREAM (see also the comment at the top of ts_gen.c)
 *   Commit s (1-based) writes records r = (s-1)*rows .. s*rows-1, split into
 *   --files chunks; each chunk gives one level-0 file per (partition, bucket).
 *   Key id of record r: k = mix(seed, r) % keys.  Key columns take
 *   f(T, name, k) (partition keys: f(T, name, k % partitions)); the other
 *   columns take the VALUES formulas of ts_gen.c with row number r (NULL rule
 *   included); a sequence.field column takes f(T, name, mix2(r) % 1000).
 *   Row kind: -D if delete-every D > 0 and mix2(r) % D == 0, else -U if
 *   retract-every U > 0 and (mix2(r) / 7) % U == 0, else +U if the key was
 *   written before, else +I.  A record whose key is already in the same
 *   file is skipped (Paimon's write buffer merges those).  Sequence numbers
 *   count per (partition, bucket) from 0 in write order; files are sorted
 *   by key.
 *
 * COMPACTION (--compact-every C, --levels N; num-levels 6, top level 5)
 *   After every C-th commit a COMPACT snapshot; compaction number c writes
 *   output level L = 5 - (c-1) % N.  Per (partition, bucket): inputs = all
 *   live files of level <= L, kept = files above L.  One level-0 input
 *   alone whose keys need no lookup is upgraded (DELETE level 0 + ADD of
 *   the same file at L).  Otherwise all input records (minus DV-deleted
 *   rows) are merged per key with the merge engine (a key with one record
 *   keeps it unchanged), retract results are dropped when nothing is kept
 *   above L, and the results are written at level L in files of at most
 *   --compact-file-rows rows (0 = one file).  With deletion vectors or
 *   first-row, a key found in a kept file is looked up: DV tables merge the
 *   kept record in first and mark its row in that file's DV; first-row
 *   drops the new result (the kept row is the first row).  So level > 0
 *   files never hold a key twice in those modes (batch reads skip level 0
 *   and read them raw).
 */
#include <strings.h>
#include <zlib.h>
#include <roaring/roaring.h>

#define PK_TOP_LEVEL 5

enum
{
	PK_INSERT = 0, PK_UPDATE_BEFORE = 1, PK_UPDATE_AFTER = 2, PK_DELETE = 3
};

static const char *const pk_kind_names[] = {"+I", "-U", "+U", "-D"};

typedef struct pk_rec
{
	int64_t		k;				/* key id */
	int64_t		r;				/* write-stream index, -1 = compaction result */
	int64_t		seq;
	int			kind;
	ts_value   *vals;			/* one per table column */
	int			group;
} pk_rec;

typedef struct pk_file
{
	char	   *name;
	int			group;
	int			level;
	int			nrows;
	pk_rec	  **rows;			/* sorted by key */
	int64_t		size;
	int			file_source;	/* 0 APPEND, 1 COMPACT */
	int64_t		time_millis;
	int64_t		min_seq;
	int64_t		max_seq;
	int64_t		delete_rows;
	ts_value	min_key;
	ts_value	max_key;
	ts_value	key_stats;
	ts_value	value_stats;
	bool		live;
	roaring_bitmap_t *dv;		/* deleted positions, NULL = none */
} pk_file;

typedef struct pk_group
{
	ts_buf		partition;		/* BinaryRow with arity prefix */
	char	   *part_path;		/* "k=v/" ... */
	ts_value   *part_values;
	int32_t		bucket;
	int64_t		next_seq;
	bool		dv_dirty;
	char	   *index_file;		/* current DV index file, NULL = none */
	int64_t		index_size;
	ts_value	index_ranges;	/* _DELETIONS_VECTORS_RANGES value */
	int			index_count;
} pk_group;

typedef struct pk_ctx
{
	config	   *cfg;
	int			ncols;
	gcol	  **cols;			/* table columns in order */
	ts_field   *fields;			/* table fields (schema 0) */
	int			nkeys;			/* trimmed primary key */
	int			key_idx[MAX_COLS];
	const ts_type *key_types[MAX_COLS];
	int			nseq;
	int			seq_idx[MAX_COLS];
	bool		seq_desc;		/* sequence.field.sort-order=descending */
	int			ptypes_idx[MAX_COLS];
	const ts_type *ptypes[MAX_COLS];
	int			nbk;
	int			bk_idx[MAX_COLS];
	const ts_type *bk_types[MAX_COLS];
	/* engine */
	int			engine;			/* 0 dedup, 1 first-row, 2 partial-update, 3 aggregation */
	bool		ignore_delete;
	bool		remove_on_delete;
	int		   *agg;			/* per column: aggregate function */
	bool	   *ignore_retract;
	/* state */
	ts_arena	arena;			/* records, values, metadata */
	pk_group   *groups;
	int			ngroups;
	pk_file   **files;
	int			nfiles;
	bool	   *seen;			/* per key id: written before */
	int64_t		nkeyids;
	/* metadata */
	ts_field   *me_fields;
	int			nme;
	ts_field   *im_fields;
	int			nim;
	char	   *list_uuid;
	char	   *manifest_uuid;
	char	   *index_uuid;
	int			list_counter;
	int			manifest_counter;
	int			index_counter;
	int			index_manifest_counter;
	char	   *index_manifest;	/* current index manifest name */
	char	  **manifests;
	int64_t    *manifest_sizes;
	int64_t    *manifest_added;
	int64_t    *manifest_deleted;
	ts_value   *manifest_pstats;
	int32_t    *manifest_minmax;	/* 4 per manifest: min/max bucket, min/max level */
	int			nmanifests;
	char	   *data_uuid;
	int			data_counter;
	int			snapshot_id;
	int			compactions;
	FILE	   *ops;
	int64_t		base_time;
} pk_ctx;

enum
{
	AGG_SUM_, AGG_MAX_, AGG_MIN_, AGG_LAST_VALUE_, AGG_LAST_NON_NULL_, AGG_FIRST_NON_NULL_,
	AGG_FIRST_VALUE_, AGG_KEY_
};

static const char *const pk_agg_names[] = {
	"sum", "max", "min", "last_value", "last_non_null_value", "first_non_null_value", "first_value"
};

/* ---- configuration ---------------------------------------------------- */

static const char *
pk_extra_option(const config *cfg, const char *key)
{
	size_t		kl = strlen(key);

	for (int i = cfg->nextra_opts - 1; i >= 0; i--)
		if (strncmp(cfg->extra_opts[i], key, kl) == 0 && cfg->extra_opts[i][kl] == '=')
			return cfg->extra_opts[i] + kl + 1;
	return NULL;
}

static bool
pk_extra_true(const config *cfg, const char *key)
{
	const char *v = pk_extra_option(cfg, key);

	return v && strcasecmp(v, "true") == 0;
}

/* --option changelog-producer=input: APPEND commits write changelog files too */
static bool
pk_changelog_input(const config *cfg)
{
	const char *v = pk_extra_option(cfg, "changelog-producer");

	return v && strcasecmp(v, "input") == 0;
}

static void
pk_finish_config(config *cfg)
{
	bool		pk_options = cfg->merge_engine || cfg->seq_field || cfg->naggs || cfg->dv ||
		cfg->levels || cfg->compact_every || cfg->keys || cfg->delete_every || cfg->retract_every;

	if (cfg->npk == 0)
	{
		if (pk_options)
			die("primary-key options need --primary-key");
		return;
	}
	if (cfg->evolve)
		die("schema evolution is not supported for primary-key tables");
	/* Paimon requires the partition keys in the primary key */
	for (int i = 0; i < cfg->nparts; i++)
	{
		bool		found = false;

		for (int k = 0; k < cfg->npk; k++)
			if (strcmp(cfg->pk[k], cfg->parts[i]) == 0)
				found = true;
		if (!found)
			cfg->pk[cfg->npk++] = xstrdup(cfg->parts[i]);
	}
	for (int k = 0; k < cfg->npk; k++)
	{
		gcol	   *c = find_col(cfg, cfg->pk[k]);

		if (ts_type_is_nested(c->type0->kind) || c->type0->kind == TS_FLOAT ||
			c->type0->kind == TS_DOUBLE)
			die("primary key %s: type not supported by ts_gen", c->name0);
		c->is_pk = true;
		c->type0->nullable = false; /* Paimon makes primary keys NOT NULL */
	}
	if (cfg->buckets <= 0)
		die("primary-key tables need --buckets N > 0 (dynamic bucket mode is not generated)");
	if (cfg->bucket_key == NULL)
	{
		ts_buf		b;
		ts_err		err;

		ts_buf_init(&b);
		for (int k = 0; k < cfg->npk; k++)
			if (!find_col(cfg, cfg->pk[k])->is_part)
				if (!ts_buf_printf(&b, &err, "%s%s", b.len ? "," : "", cfg->pk[k]))
					die_err("bucket key", &err);
		if (b.len == 0)
			die("the primary key has no column besides the partition keys");
		ts_buf_append(&b, "", 1, &err);
		cfg->bucket_key = xstrdup((char *) b.data);
		cfg->bucket_key_implicit = true;
		ts_buf_free(&b);
	}
	if (cfg->seq_field)
	{
		char	   *s = xstrdup(cfg->seq_field),
				   *save = NULL;

		for (char *k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
		{
			gcol	   *c = find_col(cfg, k);

			if (c->is_pk)
				die("sequence field %s is a primary key", k);
			c->is_seq = true;
		}
		free(s);
	}
	if (cfg->merge_engine && strcmp(cfg->merge_engine, "deduplicate") != 0 &&
		strcmp(cfg->merge_engine, "first-row") != 0 &&
		strcmp(cfg->merge_engine, "partial-update") != 0 &&
		strcmp(cfg->merge_engine, "aggregation") != 0)
		die("unknown merge engine \"%s\"", cfg->merge_engine);
	if (cfg->levels == 0 && cfg->compact_every > 0)
		cfg->levels = 1;
	if (cfg->levels > 0 && cfg->compact_every == 0)
		cfg->compact_every = 1;
	for (int i = 0; i < cfg->nextra_opts; i++)
		if (strchr(cfg->extra_opts[i], '=') == NULL)
			die("--option expects KEY=VALUE, got \"%s\"", cfg->extra_opts[i]);
}

static void
pk_schema_options(const config *cfg, cJSON *opts)
{
	if (cfg->npk == 0)
		return;
	if (cfg->merge_engine)
		cJSON_AddStringToObject(opts, "merge-engine", cfg->merge_engine);
	if (cfg->seq_field)
		cJSON_AddStringToObject(opts, "sequence.field", cfg->seq_field);
	if (cfg->dv)
		cJSON_AddStringToObject(opts, "deletion-vectors.enabled", "true");
	for (int i = 0; i < cfg->naggs; i++)
	{
		char	   *colon = strchr(cfg->aggs[i], ':');
		char	   *key;

		if (colon == NULL)
			die("--agg expects FIELD:FUNC");
		key = pathf("fields.%.*s.aggregate-function", (int) (colon - cfg->aggs[i]), cfg->aggs[i]);
		cJSON_AddStringToObject(opts, key, colon + 1);
		free(key);
	}
	for (int i = 0; i < cfg->nextra_opts; i++)
	{
		char	   *eq = strchr(cfg->extra_opts[i], '=');
		char	   *key = strndup(cfg->extra_opts[i], (size_t) (eq - cfg->extra_opts[i]));

		cJSON_DeleteItemFromObject(opts, key);
		cJSON_AddStringToObject(opts, key, eq + 1);
		free(key);
	}
}

/* ---- deterministic choices -------------------------------------------- */

static uint64_t
pk_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* ---- values and keys -------------------------------------------------- */

static void
pk_column_value(pk_ctx *x, int c, int64_t k, int64_t r, ts_value *out)
{
	const gcol *g = x->cols[c];

	if (g->is_part)
		gen_value(g->type0, g->name0, k % x->cfg->partitions, out, &x->arena);
	else if (g->is_pk)
		gen_value(g->type0, g->name0, k, out, &x->arena);
	else if (g->is_seq)
		gen_value(g->type0, g->name0, (int64_t) (pk_mix(x->cfg->seed * 31 + (uint64_t) r + 7) % 1000),
				  out, &x->arena);
	else
		row_value(x->cfg, g, r, out, &x->arena);
}

static int
pk_cmp(const ts_value *a, const ts_value *b, const ts_type *t)
{
	if (a->isnull || b->isnull)
		return a->isnull == b->isnull ? 0 : a->isnull ? -1 : 1;
	if (t->kind == TS_BINARY || t->kind == TS_VARBINARY)
	{
		uint32_t	n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
		int			c = memcmp(a->v.s.p, b->v.s.p, n);

		if (c)
			return c < 0 ? -1 : 1;
		return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
	}
	return cmp_values(a, b, t);
}

static pk_ctx *pk_sort_ctx;

static int
pk_key_cmp(const pk_ctx *x, const pk_rec *a, const pk_rec *b)
{
	for (int i = 0; i < x->nkeys; i++)
	{
		int			c = pk_cmp(&a->vals[x->key_idx[i]], &b->vals[x->key_idx[i]], x->key_types[i]);

		if (c)
			return c;
	}
	return 0;
}

static int
pk_qsort_key(const void *pa, const void *pb)
{
	return pk_key_cmp(pk_sort_ctx, *(pk_rec * const *) pa, *(pk_rec * const *) pb);
}

/* write-buffer order: group, key, position in the write stream */
static int
pk_qsort_group_key_r(const void *pa, const void *pb)
{
	const pk_rec *a = *(pk_rec * const *) pa,
			   *b = *(pk_rec * const *) pb;
	int			c;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	c = pk_key_cmp(pk_sort_ctx, a, b);
	if (c)
		return c;
	return a->r < b->r ? -1 : a->r > b->r;
}

static bool
pk_is_retract(int kind)
{
	return kind == PK_UPDATE_BEFORE || kind == PK_DELETE;
}

/* merge order of records of one key: sequence fields, _SEQUENCE_NUMBER, retract first */
static int
pk_qsort_merge(const void *pa, const void *pb)
{
	const pk_rec *a = *(pk_rec * const *) pa,
			   *b = *(pk_rec * const *) pb;
	int			c = pk_key_cmp(pk_sort_ctx, a, b);

	if (c)
		return c;
	for (int i = 0; i < pk_sort_ctx->nseq; i++)
	{
		int			si = pk_sort_ctx->seq_idx[i];

		c = pk_cmp(&a->vals[si], &b->vals[si], pk_sort_ctx->cols[si]->type0);
		if (c)
			return pk_sort_ctx->seq_desc ? -c : c;
	}
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (pk_is_retract(a->kind) != pk_is_retract(b->kind))
		return pk_is_retract(a->kind) ? -1 : 1;
	return 0;
}

/* ---- the merge function (for compaction) ------------------------------ */

static void
pk_value_add(ts_value *acc, const ts_value *in, const ts_type *t, bool subtract)
{
	switch (t->kind)
	{
		case TS_TINYINT:
			acc->v.i = (int8_t) (subtract ? acc->v.i - in->v.i : acc->v.i + in->v.i);
			break;
		case TS_SMALLINT:
			acc->v.i = (int16_t) (subtract ? acc->v.i - in->v.i : acc->v.i + in->v.i);
			break;
		case TS_INT:
			acc->v.i = (int32_t) (uint32_t) (subtract ? (uint64_t) acc->v.i - (uint64_t) in->v.i :
											 (uint64_t) acc->v.i + (uint64_t) in->v.i);
			break;
		case TS_BIGINT:
			acc->v.i = (int64_t) (subtract ? (uint64_t) acc->v.i - (uint64_t) in->v.i :
								  (uint64_t) acc->v.i + (uint64_t) in->v.i);
			break;
		case TS_FLOAT:
			acc->v.f = subtract ? acc->v.f - in->v.f : acc->v.f + in->v.f;
			break;
		case TS_DOUBLE:
			acc->v.d = subtract ? acc->v.d - in->v.d : acc->v.d + in->v.d;
			break;
		case TS_DECIMAL:
			acc->v.dec = subtract ? acc->v.dec - in->v.dec : acc->v.dec + in->v.dec;
			break;
		default:
			die("sum over type %s is not generated", ts_type_kind_name(t->kind));
	}
}

static void
pk_negate(ts_value *v, const ts_type *t)
{
	ts_value	zero;

	memset(&zero, 0, sizeof(zero));
	pk_value_add(&zero, v, t, true);
	*v = zero;
}

/*
 * Merge the records of one key (in merge order) as the merge engine does.
 * Returns the result (a new record) or NULL when the engine yields nothing.
 */
static pk_rec *
pk_merge(pk_ctx *x, pk_rec **recs, int n)
{
	pk_rec	   *res;
	bool		has_row = false,
				meet_insert = false,
				deleted = false;
	bool	   *seen_first;
	int64_t		max_seq = recs[0]->seq;

	if (n == 1)
		return recs[0];
	res = ts_arena_alloc(&x->arena, sizeof(pk_rec));
	*res = *recs[0];
	res->r = -1;
	res->vals = arena_values(&x->arena, x->ncols);
	seen_first = xcalloc((size_t) x->ncols, sizeof(bool));
	for (int c = 0; c < x->ncols; c++)
		res->vals[c].isnull = true;
	res->kind = PK_INSERT;
	for (int i = 0; i < n; i++)
	{
		const pk_rec *in = recs[i];
		bool		retract = pk_is_retract(in->kind);

		if (in->seq > max_seq)
			max_seq = in->seq;
		switch (x->engine)
		{
			case 0:				/* deduplicate: the last record */
				if (retract && x->ignore_delete)
					continue;
				memcpy(res->vals, in->vals, sizeof(ts_value) * (size_t) x->ncols);
				res->kind = in->kind;
				res->seq = in->seq;
				has_row = true;
				break;
			case 1:				/* first-row: the first add record */
				if (retract)
				{
					if (!x->ignore_delete)
						die("first-row cannot merge retract records (use --option ignore-delete=true)");
					continue;
				}
				if (!has_row)
				{
					memcpy(res->vals, in->vals, sizeof(ts_value) * (size_t) x->ncols);
					res->kind = in->kind;
					res->seq = in->seq;
					has_row = true;
				}
				break;
			case 2:				/* partial-update: non-NULL fields overwrite */
				deleted = false;
				if (retract)
				{
					if (x->ignore_delete)
						continue;
					if (!x->remove_on_delete)
						die("partial-update cannot merge retract records");
					if (in->kind == PK_DELETE)
					{
						/* a new row holding only the NOT NULL fields of the -D record */
						deleted = true;
						for (int c = 0; c < x->ncols; c++)
						{
							memset(&res->vals[c], 0, sizeof(ts_value));
							res->vals[c].isnull = true;
							if (!x->cols[c]->type0->nullable)
								res->vals[c] = in->vals[c];
						}
					}
					continue;
				}
				for (int c = 0; c < x->ncols; c++)
					if (!in->vals[c].isnull)
						res->vals[c] = in->vals[c];
				meet_insert = true;
				has_row = true;
				break;
			case 3:				/* aggregation */
				if (retract && x->ignore_delete)
					continue;
				deleted = false;
				if (in->kind == PK_DELETE && x->remove_on_delete)
				{
					for (int c = 0; c < x->ncols; c++)
					{
						memset(&res->vals[c], 0, sizeof(ts_value));
						res->vals[c].isnull = true;
						seen_first[c] = false;
						if (x->agg[c] == AGG_KEY_)
							res->vals[c] = in->vals[c];
					}
					deleted = true;
					has_row = true;
					continue;
				}
				for (int c = 0; c < x->ncols; c++)
				{
					ts_value   *acc = &res->vals[c];
					const ts_value *v = &in->vals[c];
					const ts_type *t = x->cols[c]->type0;
					int			fn = x->agg[c];

					if (retract && fn != AGG_KEY_ && x->ignore_retract[c])
						continue;
					switch (fn)
					{
						case AGG_KEY_:
							*acc = *v;
							break;
						case AGG_SUM_:
							if (v->isnull)
								break;
							if (acc->isnull)
							{
								*acc = *v;
								if (retract)
									pk_negate(acc, t);
							}
							else
								pk_value_add(acc, v, t, retract);
							break;
						case AGG_MAX_:
						case AGG_MIN_:
							if (retract)
								die("aggregate %s cannot retract (set fields.%s.ignore-retract)",
									pk_agg_names[fn], x->cols[c]->name0);
							if (v->isnull)
								break;
							if (acc->isnull || (fn == AGG_MAX_ ? pk_cmp(v, acc, t) > 0 : pk_cmp(v, acc, t) < 0))
								*acc = *v;
							break;
						case AGG_LAST_VALUE_:
							if (retract)
							{
								memset(acc, 0, sizeof(*acc));
								acc->isnull = true;
							}
							else
								*acc = *v;
							break;
						case AGG_LAST_NON_NULL_:
							if (retract)
							{
								if (!v->isnull)
								{
									memset(acc, 0, sizeof(*acc));
									acc->isnull = true;
								}
							}
							else if (!v->isnull)
								*acc = *v;
							break;
						case AGG_FIRST_NON_NULL_:
						case AGG_FIRST_VALUE_:
							if (retract)
								die("aggregate %s cannot retract (set fields.%s.ignore-retract)",
									pk_agg_names[fn], x->cols[c]->name0);
							if (fn == AGG_FIRST_VALUE_ ? !seen_first[c] : (acc->isnull && !v->isnull))
								*acc = *v;
							seen_first[c] = true;
							break;
					}
				}
				has_row = true;
				break;
		}
	}
	free(seen_first);
	if (x->engine == 2 || x->engine == 3)
	{
		res->seq = max_seq;
		if (!has_row || (x->engine == 2 && !meet_insert && !deleted))
			return NULL;
		res->kind = deleted ? PK_DELETE : PK_INSERT;
	}
	else if (!has_row)
		return NULL;
	return res;
}

#include "ts_gen_pk_write.h"

/* ---- one APPEND commit ------------------------------------------------- */

/* Is group g in partition part ("k=v[/k2=v2]", its directory; NULL: every one)? */
static bool
pk_in_partition(const pk_ctx *x, int g, const char *part)
{
	const char *path = x->groups[g].part_path;
	size_t		n = part ? strlen(part) : 0;

	return part == NULL || (strncmp(path, part, n) == 0 && strcmp(path + n, "/") == 0);
}

static void
pk_append_commit(pk_ctx *x, int s)
{
	config	   *cfg = x->cfg;
	pk_commit	cm = {0};
	int64_t		first = (int64_t) (s - 1) * cfg->rows;
	pk_rec	  **buf = xcalloc((size_t) (cfg->rows ? cfg->rows : 1), sizeof(pk_rec *));
	bool		overwrite = s == cfg->overwrite_at;
	const char *only_part = overwrite ? cfg->overwrite_partition : NULL;

	x->snapshot_id++;
	if (overwrite)
	{
		/*
		 * INSERT OVERWRITE: every live file of the table (or of partition
		 * only_part) goes with its deletion vector; a whole table's keys
		 * start afresh
		 */
		for (int i = 0; i < x->nfiles; i++)
		{
			pk_file    *f = x->files[i];

			if (!f->live || !pk_in_partition(x, f->group, only_part))
				continue;
			pk_commit_add(x, &cm, f, 1, f->level);
			f->live = false;
			if (f->dv)
				x->groups[f->group].dv_dirty = true;
		}
		if (only_part == NULL)
			memset(x->seen, 0, sizeof(bool) * (size_t) x->nkeyids);
	}
	for (int chunk = 0; chunk < cfg->files; chunk++)
	{
		int64_t		lo = first + cfg->rows * chunk / cfg->files;
		int64_t		hi = first + cfg->rows * (chunk + 1) / cfg->files;
		int			n = 0;

		pk_rec	  **chunk_recs = xcalloc((size_t) (hi > lo ? hi - lo : 1), sizeof(pk_rec *));
		pk_rec	  **by_key = xcalloc((size_t) (hi > lo ? hi - lo : 1), sizeof(pk_rec *));
		bool	   *dup = xcalloc((size_t) (hi > lo ? hi - lo : 1), sizeof(bool));

		for (int64_t r = lo; r < hi; r++)
		{
			pk_rec	   *rec = ts_arena_alloc(&x->arena, sizeof(pk_rec));

			memset(rec, 0, sizeof(*rec));
			rec->r = r;
			rec->k = (int64_t) (pk_mix(cfg->seed * 0x2545F4914F6CDD1DULL + (uint64_t) r) % (uint64_t) x->nkeyids);
			rec->vals = arena_values(&x->arena, x->ncols);
			for (int c = 0; c < x->ncols; c++)
				pk_column_value(x, c, rec->k, r, &rec->vals[c]);
			rec->group = pk_group_of(x, rec);
			chunk_recs[r - lo] = by_key[r - lo] = rec;
		}

		/*
		 * The write buffer merges a record whose key it already holds: every
		 * record after the first of its key in this chunk is dropped (sorted
		 * by group, key, stream position, so not quadratic).
		 */
		pk_sort_ctx = x;
		qsort(by_key, (size_t) (hi - lo), sizeof(pk_rec *), pk_qsort_group_key_r);
		for (int64_t i = 1; i < hi - lo; i++)
			if (by_key[i]->group == by_key[i - 1]->group && pk_key_cmp(x, by_key[i], by_key[i - 1]) == 0)
				dup[by_key[i]->r - lo] = true;
		for (int64_t r = lo; r < hi; r++)
		{
			pk_rec	   *rec = chunk_recs[r - lo];
			uint64_t	h2 = pk_mix(cfg->seed * 0x51ed27 + (uint64_t) r * 3 + 1);

			if (dup[r - lo])
				continue;		/* the write buffer would have merged it */
			if (!pk_in_partition(x, rec->group, only_part))
				continue;		/* not a row of the partition overwritten */
			if (cfg->delete_every > 0 && h2 % (uint64_t) cfg->delete_every == 0)
				rec->kind = PK_DELETE;
			else if (cfg->retract_every > 0 && (h2 / 7) % (uint64_t) cfg->retract_every == 0)
				rec->kind = PK_UPDATE_BEFORE;
			else
				rec->kind = x->seen[rec->k] ? PK_UPDATE_AFTER : PK_INSERT;
			x->seen[rec->k] = true;
			rec->seq = x->groups[rec->group].next_seq++;
			buf[n++] = rec;
		}
		free(chunk_recs);
		free(by_key);
		free(dup);
		/* one level-0 file per group, sorted by key */
		for (int g = 0; g < x->ngroups; g++)
		{
			pk_rec	  **rows = xcalloc((size_t) (n ? n : 1), sizeof(pk_rec *));
			int			m = 0;

			for (int i = 0; i < n; i++)
				if (buf[i]->group == g)
					rows[m++] = buf[i];
			if (m > 0)
			{
				pk_file    *f;

				pk_sort_ctx = x;
				qsort(rows, (size_t) m, sizeof(pk_rec *), pk_qsort_key);
				f = pk_write_file(x, g, rows, m, 0, 0);
				pk_commit_add(x, &cm, f, 0, 0);
				if (pk_changelog_input(cfg))
					pk_changelog_add(x, &cm, f);
			}
			free(rows);
		}
	}
	free(buf);
	pk_finish_commit(x, &cm, overwrite ? "OVERWRITE" : "APPEND");
}

/* ---- one COMPACT commit ----------------------------------------------- */

/* live row of a kept (level > L) file with this key, or NULL */
static pk_file *
pk_lookup_upper(pk_ctx *x, int g, int level, const pk_rec *key, int *pos)
{
	for (int i = 0; i < x->nfiles; i++)
	{
		pk_file    *f = x->files[i];

		if (!f->live || f->group != g || f->level <= level)
			continue;
		for (int p = 0; p < f->nrows; p++)
			if (pk_key_cmp(x, f->rows[p], key) == 0 &&
				!(f->dv && roaring_bitmap_contains(f->dv, (uint32_t) p)) &&
				!pk_is_retract(f->rows[p]->kind))
			{
				*pos = p;
				return f;
			}
	}
	return NULL;
}

static void
pk_compact_commit(pk_ctx *x)
{
	config	   *cfg = x->cfg;
	pk_commit	cm = {0};
	int			level = PK_TOP_LEVEL - x->compactions % cfg->levels;
	bool		lookup = cfg->dv || x->engine == 1;

	x->compactions++;
	x->snapshot_id++;
	for (int g = 0; g < x->ngroups; g++)
	{
		pk_file   **in = NULL;
		int			nin = 0;
		bool		upper = false;
		pk_rec	  **recs;
		int			nrecs = 0,
					cap = 0;
		pk_rec	  **outs;
		int			nouts = 0;

		for (int i = 0; i < x->nfiles; i++)
		{
			pk_file    *f = x->files[i];

			if (!f->live || f->group != g)
				continue;
			if (f->level <= level)
			{
				in = realloc(in, sizeof(pk_file *) * (size_t) (nin + 1));
				if (in == NULL)
					die("out of memory");
				in[nin++] = f;
				cap += f->nrows;
			}
			else
				upper = true;
		}
		if (nin == 0 || (nin == 1 && in[0]->level == level))
		{
			free(in);
			continue;
		}
		/* upgrade: one level-0 file that needs no rewrite */
		if (nin == 1 && in[0]->level == 0)
		{
			bool		rewrite = in[0]->delete_rows > 0 && (!upper || lookup);

			for (int p = 0; p < in[0]->nrows && !rewrite && lookup; p++)
			{
				int			pos;

				if (pk_lookup_upper(x, g, level, in[0]->rows[p], &pos))
					rewrite = true;
			}
			if (!rewrite)
			{
				pk_commit_add(x, &cm, in[0], 1, 0);
				in[0]->level = level;
				pk_commit_add(x, &cm, in[0], 0, level);
				free(in);
				continue;
			}
		}
		/* merge all input records */
		recs = xcalloc((size_t) cap + 1, sizeof(pk_rec *));
		for (int i = 0; i < nin; i++)
			for (int p = 0; p < in[i]->nrows; p++)
				if (!(in[i]->dv && roaring_bitmap_contains(in[i]->dv, (uint32_t) p)))
					recs[nrecs++] = in[i]->rows[p];
		pk_sort_ctx = x;
		qsort(recs, (size_t) nrecs, sizeof(pk_rec *), pk_qsort_merge);
		outs = xcalloc((size_t) nrecs + 1, sizeof(pk_rec *));
		for (int i = 0; i < nrecs;)
		{
			int			j = i + 1;
			pk_rec	   *res;
			pk_file    *uf = NULL;
			int			upos = 0;

			while (j < nrecs && pk_key_cmp(x, recs[i], recs[j]) == 0)
				j++;
			if (lookup)
				uf = pk_lookup_upper(x, g, level, recs[i], &upos);
			if (uf && x->engine == 1)
				res = NULL;		/* first-row: the kept row is the first one */
			else if (uf)
			{
				pk_rec	  **grp = xcalloc((size_t) (j - i) + 1, sizeof(pk_rec *));

				grp[0] = uf->rows[upos];
				memcpy(grp + 1, recs + i, sizeof(pk_rec *) * (size_t) (j - i));
				qsort(grp, (size_t) (j - i) + 1, sizeof(pk_rec *), pk_qsort_merge);
				res = pk_merge(x, grp, j - i + 1);
				free(grp);
				if (uf->dv == NULL)
					uf->dv = roaring_bitmap_create();
				roaring_bitmap_add(uf->dv, (uint32_t) upos);
				x->groups[g].dv_dirty = true;
			}
			else
				res = pk_merge(x, recs + i, j - i);
			if (res && pk_is_retract(res->kind) && (!upper || lookup))
				res = NULL;		/* dropDelete */
			if (res)
				outs[nouts++] = res;
			i = j;
		}
		for (int i = 0; i < nin; i++)
		{
			pk_commit_add(x, &cm, in[i], 1, in[i]->level);
			in[i]->live = false;
			if (in[i]->dv)
				x->groups[g].dv_dirty = true;
		}
		for (int i = 0; i < nouts;)
		{
			int			n = cfg->compact_file_rows > 0 && nouts - i > cfg->compact_file_rows ?
				cfg->compact_file_rows : nouts - i;
			pk_file    *f = pk_write_file(x, g, outs + i, n, level, 1);

			pk_commit_add(x, &cm, f, 0, level);
			i += n;
		}
		free(outs);
		free(recs);
		free(in);
	}
	pk_finish_commit(x, &cm, "COMPACT");
}

/* ---- entry point ------------------------------------------------------ */

static int
pk_generate(config *cfg, int64_t base_time)
{
	pk_ctx		x;
	char	   *ops_path;
	size_t		dl = strlen(cfg->dir);

	memset(&x, 0, sizeof(x));
	x.cfg = cfg;
	x.base_time = base_time;
	ts_arena_init(&x.arena, 1024 * 1024);
	x.ncols = cfg->ncols;
	x.cols = xcalloc((size_t) cfg->ncols, sizeof(gcol *));
	x.fields = xcalloc((size_t) cfg->ncols, sizeof(ts_field));
	for (int c = 0; c < cfg->ncols; c++)
	{
		x.cols[c] = &cfg->cols[c];
		x.fields[c].id = cfg->cols[c].id;
		x.fields[c].name = cfg->cols[c].name0;
		x.fields[c].type = cfg->cols[c].type0;
	}
	for (int k = 0; k < cfg->npk; k++)
	{
		gcol	   *c = find_col(cfg, cfg->pk[k]);

		if (c->is_part)
			continue;
		x.key_idx[x.nkeys] = c->pos;
		x.key_types[x.nkeys++] = c->type0;
	}
	for (int c = 0; c < cfg->ncols; c++)
		if (cfg->cols[c].is_seq)
			x.seq_idx[x.nseq++] = c;
	if (cfg->seq_field)
	{
		/* sequence.field order as given */
		char	   *s = xstrdup(cfg->seq_field),
				   *save = NULL;

		x.nseq = 0;
		for (char *k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
			x.seq_idx[x.nseq++] = find_col(cfg, k)->pos;
		free(s);
	}
	for (int p = 0; p < cfg->nparts; p++)
	{
		x.ptypes_idx[p] = find_col(cfg, cfg->parts[p])->pos;
		x.ptypes[p] = cfg->cols[x.ptypes_idx[p]].type0;
	}
	{
		char	   *s = xstrdup(cfg->bucket_key),
				   *save = NULL;

		for (char *k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
		{
			x.bk_idx[x.nbk] = find_col(cfg, k)->pos;
			x.bk_types[x.nbk] = cfg->cols[x.bk_idx[x.nbk]].type0;
			x.nbk++;
		}
		free(s);
	}
	{
		const char *order = pk_extra_option(cfg, "sequence.field.sort-order");

		x.seq_desc = order && strcasecmp(order, "descending") == 0;
	}
	/* merge engine and its options */
	x.engine = cfg->merge_engine == NULL || strcmp(cfg->merge_engine, "deduplicate") == 0 ? 0 :
		strcmp(cfg->merge_engine, "first-row") == 0 ? 1 :
		strcmp(cfg->merge_engine, "partial-update") == 0 ? 2 : 3;
	x.ignore_delete = pk_extra_true(cfg, "ignore-delete") ||
		pk_extra_true(cfg, "deduplicate.ignore-delete") ||
		pk_extra_true(cfg, "first-row.ignore-delete") ||
		pk_extra_true(cfg, "partial-update.ignore-delete");
	x.remove_on_delete = pk_extra_true(cfg, x.engine == 2 ? "partial-update.remove-record-on-delete" :
									   "aggregation.remove-record-on-delete");
	x.agg = xcalloc((size_t) cfg->ncols, sizeof(int));
	x.ignore_retract = xcalloc((size_t) cfg->ncols, sizeof(bool));
	for (int c = 0; c < cfg->ncols; c++)
	{
		const char *fn = "last_non_null_value";
		char	   *key = pathf("fields.%s.ignore-retract", cfg->cols[c].name0);
		const char *dflt = pk_extra_option(cfg, "fields.default-aggregate-function");
		bool		found = false;

		x.ignore_retract[c] = pk_extra_true(cfg, key);
		free(key);
		if (dflt)
			fn = dflt;
		for (int i = 0; i < cfg->naggs; i++)
		{
			const char *colon = strchr(cfg->aggs[i], ':');

			if (colon && (size_t) (colon - cfg->aggs[i]) == strlen(cfg->cols[c].name0) &&
				strncmp(cfg->aggs[i], cfg->cols[c].name0, (size_t) (colon - cfg->aggs[i])) == 0)
				fn = colon + 1;
		}
		if (cfg->cols[c].is_pk)
		{
			x.agg[c] = AGG_KEY_;
			continue;
		}
		if (cfg->cols[c].is_seq)
			fn = "last_value";
		for (size_t i = 0; i < sizeof(pk_agg_names) / sizeof(pk_agg_names[0]); i++)
			if (strcmp(fn, pk_agg_names[i]) == 0)
				x.agg[c] = (int) i, found = true;
		if (!found && x.engine == 3)
			die("aggregate function \"%s\" is not generated (use %s)", fn,
				"sum, max, min, last_value, last_non_null_value, first_non_null_value, first_value");
	}
	if ((cfg->delete_every || cfg->retract_every) && !x.ignore_delete &&
		(x.engine == 1 || (x.engine == 2 && !x.remove_on_delete)))
		die("merge engine %s cannot take retract records: add --option ignore-delete=true%s",
			cfg->merge_engine, x.engine == 2 ? " or partial-update.remove-record-on-delete=true" : "");
	if ((cfg->delete_every || cfg->retract_every) && !x.ignore_delete && x.engine == 3)
		for (int c = 0; c < cfg->ncols; c++)
			if (!cfg->cols[c].is_pk && !cfg->cols[c].is_seq && !x.ignore_retract[c] &&
				(x.agg[c] == AGG_MAX_ || x.agg[c] == AGG_MIN_ || x.agg[c] == AGG_FIRST_VALUE_ ||
				 x.agg[c] == AGG_FIRST_NON_NULL_))
				die("aggregate function %s of column %s cannot retract: add --option fields.%s.ignore-retract=true",
					pk_agg_names[x.agg[c]], cfg->cols[c].name0, cfg->cols[c].name0);
	if (cfg->overwrite_partition && (cfg->overwrite_at == 0 || cfg->nparts == 0))
		die("--overwrite-partition needs --overwrite-at and a partitioned table");
	if (cfg->readd_at > 0)
		die("--readd-at is for append tables");
	x.nkeyids = cfg->keys > 0 ? cfg->keys : (cfg->rows > 0 ? cfg->rows : 1);
	x.seen = xcalloc((size_t) x.nkeyids, sizeof(bool));
	x.me_fields = manifest_entry_fields(&x.nme);
	x.im_fields = pk_index_manifest_fields(&x.nim);
	pk_gi_init(&x);
	pk_gi_manifest_fields(&x);
	x.list_uuid = new_uuid();
	x.manifest_uuid = new_uuid();
	x.index_uuid = new_uuid();
	x.data_uuid = new_uuid();

	while (dl > 1 && cfg->dir[dl - 1] == '/')
		dl--;
	ops_path = cfg->no_ops ? NULL : pathf("%.*s.ops.jsonl", (int) dl, cfg->dir);
	x.ops = ops_path ? fopen(ops_path, "w") : NULL;
	if (ops_path && x.ops == NULL)
		die("cannot create %s: %s", ops_path, strerror(errno));
	pk_ops_table(&x);

	for (int s = 1; s <= cfg->snapshots; s++)
	{
		pk_append_commit(&x, s);
		if (cfg->compact_every > 0 && s % cfg->compact_every == 0)
			pk_compact_commit(&x);
	}
	if (x.ops && fclose(x.ops) != 0)
		die("cannot write %s", ops_path);
	{
		int			live = 0;

		for (int i = 0; i < x.nfiles; i++)
			live += x.files[i]->live;
		printf("ts_gen: wrote %s: primary-key table, %d snapshot(s) (%d compaction(s)), %d data file(s) "
			   "(%d live), ops in %s\n", cfg->dir, x.snapshot_id, x.compactions, x.nfiles, live,
			   ops_path ? ops_path : "no file (--no-ops)");
	}
	free(ops_path);
	return 0;
}
