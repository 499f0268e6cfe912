/*
 * ts_gen_pk_gi.h - the Paimon 2.0 primary-key global index (pk-btree) of
 * ts_gen's primary-key tables (included by ts_gen_pk_write.h; the btree
 * bytes come from tools/ts_btree_write.h via ts_gen_btree.h's key helpers).
 *
 * Owns: --option pk-btree.index.columns=COL (one column, TINYINT ..
 * BIGINT, DATE or VARCHAR; with deletion vectors): whenever the
 * index manifest is written, per (partition, bucket) and level L > 0 the
 * live COMPACT files of that level, in the generator's file order, are one
 * source group, and one payload index/btree-global-index-<uuid>.index
 * indexes every physical row of them (DV-deleted rows included, as Java's
 * PkSortedIndexBuilder reads the files whole): key -> ordinal, ordinal =
 * rows of the group's files before the row's file + its position; the
 * ordinals of rows whose key is NULL go to the payload's null bitmap
 * (btw_null, the layout of the append-table btree files).  Its
 * IndexManifestEntry has _INDEX_TYPE "btree", _ROW_COUNT the group's rows
 * and _GLOBAL_INDEX {0, rows-1, field id, NULL, BTreeIndexMeta,
 * _SOURCE_META = int 1, int L, int n, n x (writeUTF name, long rows)}.
 * With --option 'fields.COL.pk-btree.index.options={"sorted-index.records-per-range":"R"}'
 * a group's entries (sorted by key) are rotated into several payloads of
 * about R entries each (never splitting a key), as Java's
 * SortedSingleColumnIndexWriter does; each has the group's full range and
 * its own entry count; the NULL ordinals go to the last payload (counted in
 * its entries, so the payloads' counts still add up to the group's rows).
 *
 * --option pk-bitmap.index.columns=COL instead (the same types and groups):
 * one payload index/bitmap-global-index-<uuid>.index per group, the body
 * of a bitmap file index (BitmapFileIndexMeta v2, tools/ts_file_index_write.h)
 * over the group's ordinals, NULLs included: the bytes Java's BitmapGlobalIndex
 * wrapping BitmapFileIndex writes (Paimon 1.3), not Java 2.0's
 * BitmapGlobalIndexFormat ("BGIX" footer; see docs/PK-GLOBAL-INDEX.md);
 * _INDEX_TYPE "bitmap", _ROW_COUNT the group's rows, _INDEX_META NULL.
 */
#ifndef TS_GEN_PK_GI_H
#define TS_GEN_PK_GI_H

static int	pk_gi_col = -1;		/* table column indexed, -1 = none */
static bool pk_gi_bitmap = false;	/* pk-bitmap (else pk-btree) */
static int64_t pk_gi_per_range = 0;	/* entries per payload, 0 = one payload */

static void
pk_gi_init(pk_ctx *x)
{
	const char *v = pk_extra_option(x->cfg, "pk-btree.index.columns");
	const char *vb = pk_extra_option(x->cfg, "pk-bitmap.index.columns");

	if (v && vb)
		die("pk-btree.index.columns and pk-bitmap.index.columns: the generator writes one of them");
	if (vb)
	{
		v = vb;
		pk_gi_bitmap = true;
	}
	if (v == NULL)
		return;
	for (int c = 0; c < x->ncols; c++)
		if (strcmp(x->cols[c]->name0, v) == 0)
			pk_gi_col = c;
	if (pk_gi_col < 0)
		die("pk-%s.index.columns=%s: no such column", pk_gi_bitmap ? "bitmap" : "btree", v);
	{
		char	   *key = pathf("fields.%s.pk-btree.index.options", v);
		const char *o = pk_extra_option(x->cfg, key);
		const char *r = o ? strstr(o, "\"sorted-index.records-per-range\"") : NULL;

		if (r && !pk_gi_bitmap)
		{
			r = strchr(r + 32, ':');
			while (r && (*r == ':' || *r == ' ' || *r == '"'))
				r++;
			pk_gi_per_range = r ? strtoll(r, NULL, 10) : 0;
			if (pk_gi_per_range <= 0)
				die("%s: sorted-index.records-per-range must be a positive number", key);
		}
		free(key);
	}
	if (!x->cfg->dv)
		die("pk-%s.index.columns needs deletion vectors", pk_gi_bitmap ? "bitmap" : "btree");
	switch (x->cols[pk_gi_col]->type0->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_VARCHAR:
			break;
		default:
			die("pk-%s.index.columns=%s: type not written", pk_gi_bitmap ? "bitmap" : "btree", v);
	}
}

static void
be32(ts_buf *b, uint32_t v)
{
	uint8_t		x[4];
	ts_err		err;

	ts_store_be32(x, v);
	ts_buf_append(b, x, 4, &err);
}

static void
be64(ts_buf *b, uint64_t v)
{
	be32(b, (uint32_t) (v >> 32));
	be32(b, (uint32_t) v);
}

/*
 * one payload file of kind ("btree" / "bitmap") with bytes body of n entries,
 * its _INDEX_META meta (NULL: none), as an index manifest entry of a group of
 * total rows
 */
static void
pk_gi_entry(pk_ctx *x, ts_avro_writer *w, int g, const ts_buf *src, const char *kind,
			const uint8_t *body, size_t len, const uint8_t *meta, size_t mlen, int64_t n,
			int64_t total)
{
	char	   *uuid = new_uuid(),
			   *name,
			   *dir,
			   *path;
	ts_value	v[11],
				gi[6];
	ts_err		err;

	dir = pathf("%s/index", x->cfg->dir);
	mkdirs(dir);
	name = pathf("%s-global-index-%s.index", kind, uuid);
	path = pathf("%s/%s", dir, name);
	write_bytes(path, body, len);
	memset(v, 0, sizeof(v));
	memset(gi, 0, sizeof(gi));
	v[0].v.i = 1;
	v[1].v.i = 0;
	v[2].v.s.p = x->groups[g].partition.data;
	v[2].v.s.len = (uint32_t) x->groups[g].partition.len;
	v[3].v.i = x->groups[g].bucket;
	v[4].v.s.p = (const uint8_t *) kind;
	v[4].v.s.len = (uint32_t) strlen(kind);
	v[5].v.s.p = (const uint8_t *) name;
	v[5].v.s.len = (uint32_t) strlen(name);
	v[6].v.i = (int64_t) len;
	v[7].v.i = n;
	v[8].isnull = true;
	v[9].isnull = true;
	gi[0].v.i = 0;
	gi[1].v.i = total - 1;
	gi[2].v.i = x->cols[pk_gi_col]->id;
	gi[3].isnull = true;
	if (meta)
	{
		gi[4].v.s.p = meta;
		gi[4].v.s.len = (uint32_t) mlen;
	}
	else
		gi[4].isnull = true;
	gi[5].v.s.p = src->data;
	gi[5].v.s.len = (uint32_t) src->len;
	v[10].v.nested.n = 6;
	v[10].v.nested.items = gi;
	if (!ts_avro_writer_add(w, v, &err))
		die_err("index manifest entry", &err);
	free(path);
	free(dir);
	free(name);
	free(uuid);
}

/*
 * one btree payload: entries ps[a..b) and the nn NULL ordinals nulls[] of a
 * group of total rows
 */
static void
pk_gi_payload(pk_ctx *x, ts_avro_writer *w, int g, const ts_buf *src, gb_pair *ps, int64_t a,
			  int64_t b, const int64_t *nulls, int64_t nn, int64_t total)
{
	const ts_type *t = x->cols[pk_gi_col]->type0;
	int64_t    *rows = xcalloc((size_t) (b > a ? b - a : 1), sizeof(int64_t));
	btw_writer	bw;
	btw_buf		meta = {0};

	btw_init(&bw, 256, 1, false);
	for (int64_t j = 0; j < nn; j++)
		btw_null(&bw, nulls[j]);
	gb_add_sorted(&bw, t, ps, a, b, rows);
	btw_finish(&bw);
	btw_meta(&bw, &meta);
	pk_gi_entry(x, w, g, src, "btree", bw.out.p, bw.out.len, meta.p, meta.len, b - a + nn, total);
	btw_free(&bw);
	free(meta.p);
	free(rows);
}

/* the bitmap payload of a group: the group's values in ordinal order */
static void
pk_gi_bitmap_payload(pk_ctx *x, ts_avro_writer *w, int g, const ts_buf *src, pk_file **fs,
					 int nf, int64_t total)
{
	const ts_type *t = x->cols[pk_gi_col]->type0;
	bool	   *isnull = xcalloc((size_t) total, sizeof(bool));
	int64_t    *ints = xcalloc((size_t) total, sizeof(int64_t));
	char	  **strs = xcalloc((size_t) total, sizeof(char *));
	fiw_col		col;
	fiw_buf		body = {0};
	int64_t		o = 0;

	if (total > INT32_MAX)
		die("pk-bitmap.index.columns: a group of more than 2^31 rows");
	for (int i = 0; i < nf; i++)
		for (int r = 0; r < fs[i]->nrows; r++, o++)
		{
			const ts_value *val = &fs[i]->rows[r]->vals[pk_gi_col];

			isnull[o] = val->isnull;
			strs[o] = NULL;
			if (val->isnull)
				strs[o] = xstrdup("");
			else if (t->kind == TS_VARCHAR)
			{
				strs[o] = xcalloc(val->v.s.len + 1, 1);
				memcpy(strs[o], val->v.s.p, val->v.s.len);
			}
			else
				ints[o] = val->v.i;
		}
	col.width = gi_width(t);
	col.n = (int) total;
	col.null = isnull;
	col.i = ints;
	col.s = (const char *const *) strs;
	fiw_bitmap(&body, &col, 2, 16384);
	pk_gi_entry(x, w, g, src, "bitmap", body.p, body.len, NULL, 0, total, total);
	for (int64_t j = 0; j < total; j++)
		free(strs[j]);
	free(strs);
	free(ints);
	free(isnull);
	free(body.p);
}

/* one group's payloads and their manifest entries */
static void
pk_gi_group(pk_ctx *x, ts_avro_writer *w, int g, int level, pk_file **fs, int nf)
{
	const ts_type *t = x->cols[pk_gi_col]->type0;
	int64_t		total = 0,
				n = 0,
				nn = 0;
	gb_pair    *ps;
	int64_t    *nulls;
	ts_buf		src;
	ts_err		err;

	for (int i = 0; i < nf; i++)
		total += fs[i]->nrows;
	if (total == 0)
		return;
	ps = xcalloc((size_t) total, sizeof(gb_pair));
	nulls = xcalloc((size_t) total, sizeof(int64_t));
	for (int i = 0, off = 0; i < nf; off += fs[i]->nrows, i++)
		for (int r = 0; r < fs[i]->nrows; r++)
		{
			ts_value   *val = &fs[i]->rows[r]->vals[pk_gi_col];

			if (val->isnull)
				nulls[nn++] = off + r;
			else
				ps[n++] = (gb_pair) {*val, off + r};
		}
	gb_sort_type = t;
	qsort(ps, (size_t) n, sizeof(gb_pair), gb_cmp);
	/* _SOURCE_META */
	ts_buf_init(&src);
	be32(&src, 1);
	be32(&src, (uint32_t) level);
	be32(&src, (uint32_t) nf);
	for (int i = 0; i < nf; i++)
	{
		size_t		l = strlen(fs[i]->name);
		uint8_t		lb[2] = {l >> 8, l};

		ts_buf_append(&src, lb, 2, &err);
		ts_buf_append(&src, fs[i]->name, l, &err);
		be64(&src, (uint64_t) fs[i]->nrows);
	}
	if (pk_gi_bitmap)
		pk_gi_bitmap_payload(x, w, g, &src, fs, nf, total);
	/* payloads of about pk_gi_per_range entries, a key never split; the NULLs in the last */
	else if (n == 0)
		pk_gi_payload(x, w, g, &src, ps, 0, 0, nulls, nn, total);
	for (int64_t a = 0; a < n && !pk_gi_bitmap;)
	{
		int64_t		b = pk_gi_per_range > 0 && a + pk_gi_per_range < n ? a + pk_gi_per_range : n;
		int			c = 0;

		while (b < n && ts_value_order(t, &ps[b - 1].v, &ps[b].v, &c) && c == 0)
			b++;
		pk_gi_payload(x, w, g, &src, ps, a, b, nulls, b == n ? nn : 0, total);
		a = b;
	}
	ts_buf_free(&src);
	free(nulls);
	free(ps);
}

/* every group of the current state, as index manifest entries */
static void
pk_gi_entries(pk_ctx *x, ts_avro_writer *w)
{
	pk_file   **fs;

	if (pk_gi_col < 0)
		return;
	fs = xcalloc((size_t) (x->nfiles ? x->nfiles : 1), sizeof(pk_file *));
	for (int g = 0; g < x->ngroups; g++)
		for (int level = 1; level <= PK_TOP_LEVEL; level++)
		{
			int			nf = 0;

			for (int i = 0; i < x->nfiles; i++)
				if (x->files[i]->live && x->files[i]->group == g && x->files[i]->level == level &&
					x->files[i]->file_source == 1)
					fs[nf++] = x->files[i];
			if (nf > 0)
				pk_gi_group(x, w, g, level, fs, nf);
		}
	free(fs);
}

/* the index manifest's fields with _EXTERNAL_PATH and _GLOBAL_INDEX */
static void
pk_gi_manifest_fields(pk_ctx *x)
{
	static const char *const gnames[] = {"_ROW_RANGE_START", "_ROW_RANGE_END",
	"_INDEX_FIELD_ID", "_EXTRA_FIELD_IDS", "_INDEX_META", "_SOURCE_META"};
	ts_type    *gt[6];
	ts_field   *f;

	if (pk_gi_col < 0)
		return;
	f = xcalloc(11, sizeof(ts_field));
	memcpy(f, x->im_fields, sizeof(ts_field) * 9);
	gt[0] = mk(TS_BIGINT, false);
	gt[1] = mk(TS_BIGINT, false);
	gt[2] = mk(TS_INT, false);
	gt[3] = mk_array(mk(TS_INT, false), true);
	gt[4] = mk(TS_VARBINARY, true);
	gt[5] = mk(TS_VARBINARY, true);
	f[9] = (ts_field) {9, "_EXTERNAL_PATH", mk(TS_VARCHAR, true), NULL};
	f[10] = (ts_field) {10, "_GLOBAL_INDEX", mk_row(6, gnames, gt, true), NULL};
	x->im_fields = f;
	x->nim = 11;
}

#endif							/* TS_GEN_PK_GI_H */
