/*
 * ts_gen_btree.h - the btree global index of the fixture generator's
 * APPEND tables (included by src/tools/ts_gen.c after its config and value
 * formulas; the file bytes come from tools/ts_btree_write.h).
 *
 * Owns: --btree-index COL (repeatable) and --btree-block-size N (bytes,
 * default 256): after each commit, one index file per indexed column,
 * index/btree-global-index-<uuid>.index, over the row ids that commit
 * wrote (local ids 0 .. n-1 of the range), keys sorted as Java orders them
 * with the row ids of each key ascending, as Java's BTreeIndexWriter
 * writes them (footer version 1, uncompressed blocks); and an index
 * manifest listing every index file so far (IndexManifestEntry with
 * _GLOBAL_INDEX {_ROW_RANGE_START, _ROW_RANGE_END, _INDEX_FIELD_ID,
 * _EXTRA_FIELD_IDS NULL, _INDEX_META = BTreeIndexMeta}), named in the
 * snapshot.  Only row-tracking tables without partitions, bucket-unaware,
 * without schema evolution; columns TINYINT, SMALLINT, INT, BIGINT, DATE,
 * VARCHAR / STRING; the rows whose value is NULL go to the file's null
 * bitmap (a commit whose values are all NULL: a file of NULLs only).
 */
#ifndef TS_GEN_BTREE_H
#define TS_GEN_BTREE_H

#include "tools/ts_btree_write.h"

typedef struct gb_pair
{
	ts_value	v;
	int64_t		row;			/* local row id */
} gb_pair;

typedef struct gb_file
{
	char	   *name;
	int64_t		size,
				start,
				end;
	int32_t		field_id;
	uint8_t    *meta;
	size_t		meta_len;
} gb_file;

typedef struct gb_state
{
	const gcol *cols[MAX_COLS];
	int			ncols;
	gb_pair    *pairs[MAX_COLS];	/* this commit's values per indexed column */
	int64_t		npairs[MAX_COLS],
				cap[MAX_COLS];
	int64_t    *nulls[MAX_COLS];	/* this commit's local rows of NULL values */
	int64_t		nnulls[MAX_COLS],
				ncap[MAX_COLS];
	int64_t		commit_start;	/* first row id of the commit */
	gb_file    *files;			/* every index file so far */
	int			nfiles;
	char	   *uuid;
	int			manifest_counter;
	char	   *manifest;		/* the latest index manifest's name */
	uint8_t	   *partition;		/* the data files' partition BinaryRow */
	size_t		partition_len;
} gb_state;

static const ts_type *gb_sort_type;

static int
gb_cmp(const void *a, const void *b)
{
	const gb_pair *x = a,
			   *y = b;
	int			c = 0;

	if (!ts_value_order(gb_sort_type, &x->v, &y->v, &c))
		die("btree index: values of this type have no order");
	if (c != 0)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* check the table and columns asked for; prepare the state */
static void
gb_init(gb_state *g, config *cfg, bool row_tracking)
{
	memset(g, 0, sizeof(*g));
	if (cfg->nbtree == 0)
		return;
	if (!row_tracking || cfg->nparts > 0 || cfg->buckets != -1 || cfg->evolve)
		die("--btree-index needs row-tracking.enabled=true, no partitions, --buckets -1 and no "
			"schema evolution");
	for (int i = 0; i < cfg->nbtree; i++)
	{
		const gcol *c = find_col(cfg, cfg->btree_cols[i]);

		switch (c->type0->kind)
		{
			case TS_TINYINT:
			case TS_SMALLINT:
			case TS_INT:
			case TS_BIGINT:
			case TS_DATE:
			case TS_VARCHAR:
				break;
			default:
				die("--btree-index %s: type %s not written", c->name0,
					ts_type_kind_name(c->type0->kind));
		}
		g->cols[g->ncols++] = c;
	}
	g->uuid = new_uuid();
}

/* a commit starts at row id start */
static void
gb_begin(gb_state *g, int64_t start)
{
	g->commit_start = start;
	for (int i = 0; i < g->ncols; i++)
		g->npairs[i] = g->nnulls[i] = 0;
}

/* the value v of column c at row id row, in a file of partition part */
static void
gb_add(gb_state *g, const gcol *c, const ts_value *v, int64_t row, const ts_buf *part)
{
	if (g->ncols > 0 && g->partition == NULL)
	{
		g->partition = malloc(part->len ? part->len : 1);
		if (g->partition == NULL)
			die("out of memory");
		memcpy(g->partition, part->data, part->len);
		g->partition_len = part->len;
	}
	for (int i = 0; i < g->ncols; i++)
	{
		if (g->cols[i] != c)
			continue;
		if (v->isnull)
		{
			if (g->nnulls[i] == g->ncap[i])
			{
				g->ncap[i] = g->ncap[i] * 2 + 64;
				g->nulls[i] = realloc(g->nulls[i], sizeof(int64_t) * (size_t) g->ncap[i]);
				if (g->nulls[i] == NULL)
					die("out of memory");
			}
			g->nulls[i][g->nnulls[i]++] = row - g->commit_start;
			continue;
		}
		if (g->npairs[i] == g->cap[i])
		{
			g->cap[i] = g->cap[i] * 2 + 64;
			g->pairs[i] = realloc(g->pairs[i], sizeof(gb_pair) * (size_t) g->cap[i]);
			if (g->pairs[i] == NULL)
				die("out of memory");
		}
		g->pairs[i][g->npairs[i]++] = (gb_pair) {*v, row - g->commit_start};
	}
}

static size_t
gb_key(const ts_type *t, const ts_value *v, uint8_t *buf, const uint8_t **key)
{
	*key = buf;
	switch (t->kind)
	{
		case TS_TINYINT:
			return btw_key_int(1, v->v.i, buf);
		case TS_SMALLINT:
			return btw_key_int(2, v->v.i, buf);
		case TS_INT:
		case TS_DATE:
			return btw_key_int(4, v->v.i, buf);
		case TS_BIGINT:
			return btw_key_int(8, v->v.i, buf);
		default:
			*key = v->v.s.p;
			return v->v.s.len;
	}
}

/*
 * Add the sorted pairs ps[a..b) to w, one key per run of equal values with
 * the rows of the run (rows: room for b - a row ids).
 */
static void
gb_add_sorted(btw_writer *w, const ts_type *t, const gb_pair *ps, int64_t a, int64_t b,
			  int64_t *rows)
{
	for (int64_t i = a; i < b;)
	{
		int64_t		j = i;
		uint8_t		buf[16];
		const uint8_t *key;
		size_t		klen;
		int			c = 0;

		while (j < b && ts_value_order(t, &ps[i].v, &ps[j].v, &c) && c == 0)
		{
			rows[j - i] = ps[j].row;
			j++;
		}
		klen = gb_key(t, &ps[i].v, buf, &key);
		btw_add(w, key, klen, rows, (int) (j - i));
		i = j;
	}
}

/* after a commit: its index files and the index manifest */
static void
gb_commit(gb_state *g, const config *cfg, int block_size)
{
	ts_err		err;

	if (g->ncols == 0)
		return;
	for (int i = 0; i < g->ncols; i++)
	{
		const ts_type *t = g->cols[i]->type0;
		gb_pair    *ps = g->pairs[i];
		int64_t		n = g->npairs[i];
		btw_writer	w;
		btw_buf		meta = {0};
		int64_t    *rows;
		char	   *dir,
				   *path,
				   *uuid = new_uuid();
		gb_file    *f;

		if (n + g->nnulls[i] == 0)
			continue;
		gb_sort_type = t;
		if (n > 0)
			qsort(ps, (size_t) n, sizeof(gb_pair), gb_cmp);
		rows = xcalloc((size_t) (n ? n : 1), sizeof(int64_t));
		btw_init(&w, (size_t) block_size, 1, false);
		for (int64_t j = 0; j < g->nnulls[i]; j++)
			btw_null(&w, g->nulls[i][j]);
		gb_add_sorted(&w, t, ps, 0, n, rows);
		btw_finish(&w);
		btw_meta(&w, &meta);
		dir = pathf("%s/index", cfg->dir);
		mkdirs(dir);
		g->files = realloc(g->files, sizeof(gb_file) * (size_t) (g->nfiles + 1));
		if (g->files == NULL)
			die("out of memory");
		f = &g->files[g->nfiles++];
		f->name = pathf("btree-global-index-%s.index", uuid);
		path = pathf("%s/%s", dir, f->name);
		write_bytes(path, w.out.p, w.out.len);
		f->size = (int64_t) w.out.len;
		f->start = g->commit_start;
		f->end = g->commit_start + n + g->nnulls[i] - 1;
		f->field_id = g->cols[i]->id;
		f->meta = meta.p;
		f->meta_len = meta.len;
		btw_free(&w);
		free(rows);
		free(path);
		free(dir);
		free(uuid);
	}
	/* the index manifest: every index file so far */
	{
		static const char *const gnames[] = {"_ROW_RANGE_START", "_ROW_RANGE_END",
		"_INDEX_FIELD_ID", "_EXTRA_FIELD_IDS", "_INDEX_META"};
		static const char *const rnames[] = {"f0", "f1", "f2", "_CARDINALITY"};
		ts_type    *gt[5],
				   *rt[4];
		ts_field	fl[11];
		ts_avro_writer *w;
		ts_buf		out;
		char	   *path;

		gt[0] = mk(TS_BIGINT, false);
		gt[1] = mk(TS_BIGINT, false);
		gt[2] = mk(TS_INT, false);
		gt[3] = mk_array(mk(TS_INT, false), true);
		gt[4] = mk(TS_VARBINARY, true);
		rt[0] = mk(TS_VARCHAR, false);
		rt[1] = mk(TS_INT, false);
		rt[2] = mk(TS_INT, false);
		rt[3] = mk(TS_BIGINT, true);
		fl[0] = (ts_field) {0, "_VERSION", mk(TS_INT, false), NULL};
		fl[1] = (ts_field) {1, "_KIND", mk(TS_TINYINT, false), NULL};
		fl[2] = (ts_field) {2, "_PARTITION", mk(TS_VARBINARY, false), NULL};
		fl[3] = (ts_field) {3, "_BUCKET", mk(TS_INT, false), NULL};
		fl[4] = (ts_field) {4, "_INDEX_TYPE", mk(TS_VARCHAR, false), NULL};
		fl[5] = (ts_field) {5, "_FILE_NAME", mk(TS_VARCHAR, false), NULL};
		fl[6] = (ts_field) {6, "_FILE_SIZE", mk(TS_BIGINT, false), NULL};
		fl[7] = (ts_field) {7, "_ROW_COUNT", mk(TS_BIGINT, false), NULL};
		fl[8] = (ts_field) {8, "_DELETIONS_VECTORS_RANGES",
		mk_array(mk_row(4, rnames, rt, true), true), NULL};
		fl[9] = (ts_field) {9, "_EXTERNAL_PATH", mk(TS_VARCHAR, true), NULL};
		fl[10] = (ts_field) {10, "_GLOBAL_INDEX", mk_row(5, gnames, gt, true), NULL};
		w = ts_avro_writer_create_for_fields(fl, 11, cfg->manifest_codec, &err);
		if (w == NULL)
			die_err("index manifest writer", &err);
		for (int i = 0; i < g->nfiles; i++)
		{
			ts_value	v[11],
						gi[5];

			memset(v, 0, sizeof(v));
			memset(gi, 0, sizeof(gi));
			v[0].v.i = 1;
			v[1].v.i = 0;
			v[2].v.s.p = g->partition;	/* as the data files' */
			v[2].v.s.len = (uint32_t) g->partition_len;
			v[3].v.i = 0;
			v[4].v.s.p = (const uint8_t *) "btree";
			v[4].v.s.len = 5;
			v[5].v.s.p = (const uint8_t *) g->files[i].name;
			v[5].v.s.len = (uint32_t) strlen(g->files[i].name);
			v[6].v.i = g->files[i].size;
			v[7].v.i = g->files[i].end - g->files[i].start + 1;
			v[8].isnull = true;
			v[9].isnull = true;
			gi[0].v.i = g->files[i].start;
			gi[1].v.i = g->files[i].end;
			gi[2].v.i = g->files[i].field_id;
			gi[3].isnull = true;
			gi[4].v.s.p = g->files[i].meta;
			gi[4].v.s.len = (uint32_t) g->files[i].meta_len;
			v[10].v.nested.n = 5;
			v[10].v.nested.items = gi;
			if (!ts_avro_writer_add(w, v, &err))
				die_err("index manifest entry", &err);
		}
		ts_buf_init(&out);
		if (!ts_avro_writer_finish(w, &out, &err))
			die_err("index manifest finish", &err);
		ts_avro_writer_free(w);
		free(g->manifest);
		g->manifest = pathf("index-manifest-%s-%d", g->uuid, g->manifest_counter++);
		path = pathf("%s/manifest/%s", cfg->dir, g->manifest);
		write_bytes(path, out.data, out.len);
		free(path);
		ts_buf_free(&out);
	}
}

#endif							/* TS_GEN_BTREE_H */
