/*
 * ts_gen_index.h - the file indexes of the fixture generator's APPEND
 * tables (included by src/tools/ts_gen.c after its config and value
 * formulas; the bytes come from tools/ts_file_index_write.h).
 *
 * Owns: reading the table options that ask for indexes, as Paimon names
 * them (--option file-index.<kind>.columns=a[,b] with kind bloom-filter,
 * bitmap, bsi or range-bitmap; file-index.bloom-filter.<col>.items
 * (default 1000000) and .fpp (default 0.1);
 * file-index.bitmap[.<col>].version (1 or 2, Java's default 2) and
 * .index-block-size in bytes (v2; default 16384);
 * file-index.range-bitmap.<col>.chunk-size in bytes (default 16384);
 * file-index.in-manifest-threshold in bytes (default 500)), building one
 * container per data file over the file's rows, and placing it as Java's
 * DataFileIndexWriter does: a container of at most the threshold's bytes
 * goes into the manifest entry's _EMBEDDED_FILE_INDEX, a larger one into
 * the sidecar <data file>.index, named in _EXTRA_FILES.  Index columns are
 * integers (TINYINT, SMALLINT, INT, BIGINT, DATE) or strings (CHAR,
 * VARCHAR, STRING); BSI takes integers only.
 */
#ifndef TS_GEN_INDEX_H
#define TS_GEN_INDEX_H

#include "tools/ts_file_index_write.h"

static const char *const gi_kinds[] = {"bloom-filter", "bitmap", "bsi", "range-bitmap"};

/* the value of option key, or NULL */
static const char *
gi_option(const config *cfg, const char *key)
{
	size_t		kl = strlen(key);

	for (int i = cfg->nextra_opts - 1; i >= 0; i--)
		if (strncmp(cfg->extra_opts[i], key, kl) == 0 && cfg->extra_opts[i][kl] == '=')
			return cfg->extra_opts[i] + kl + 1;
	return NULL;
}

/* does the table ask for any file index? */
static bool
gi_wanted(const config *cfg)
{
	for (int k = 0; k < 4; k++)
	{
		char	   *key = pathf("file-index.%s.columns", gi_kinds[k]);
		bool		yes = gi_option(cfg, key) != NULL;

		free(key);
		if (yes)
			return true;
	}
	return false;
}

/* "500", "500b", "2kb": bytes */
static int64_t
gi_bytes(const char *opt, const char *v)
{
	char	   *end;
	long long	n = strtoll(v, &end, 10);

	if (end == v || n < 0)
		die("option %s: \"%s\" is not a size", opt, v);
	if (strcmp(end, "kb") == 0)
		n *= 1024;
	else if (*end != '\0' && strcmp(end, "b") != 0)
		die("option %s: \"%s\" is not a size", opt, v);
	return n;
}

static int
gi_width(const ts_type *t)
{
	switch (t->kind)
	{
		case TS_TINYINT:
			return 1;
		case TS_SMALLINT:
			return 2;
		case TS_INT:
		case TS_DATE:
			return 4;
		case TS_BIGINT:
			return 8;
		case TS_CHAR:
		case TS_VARCHAR:
			return -1;
		default:
			return 0;
	}
}

/*
 * The index container of one data file (its rows gr->rows, in the data
 * file's columns) placed into the manifest entry's file row fi: embedded,
 * or written to <path>.index and listed in _EXTRA_FILES.
 */
static void
gi_write(const config *cfg, const ts_field *dfields, const gcol *const *dcols, int ndcols,
		 const int64_t *rows, int nrows, int schema_id, const char *path, const char *fname,
		 ts_value *fi, ts_arena *meta, ts_arena *arena)
{
	fiw_index	ix[64];
	int			nix = 0;
	const char *th = gi_option(cfg, "file-index.in-manifest-threshold");
	int64_t		threshold = th ? gi_bytes("file-index.in-manifest-threshold", th) : 500;
	fiw_buf		out = {0};

	for (int k = 0; k < 4; k++)
	{
		char	   *key = pathf("file-index.%s.columns", gi_kinds[k]);
		const char *v = gi_option(cfg, key);
		char	   *list,
				   *save = NULL;

		free(key);
		if (v == NULL)
			continue;
		list = xstrdup(v);
		for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
		{
			int			c;
			fiw_col		col;
			bool	   *isnull = xcalloc((size_t) nrows + 1, sizeof(bool));
			int64_t    *ints = xcalloc((size_t) nrows + 1, sizeof(int64_t));
			const char **strs = xcalloc((size_t) nrows + 1, sizeof(char *));

			for (c = 0; c < ndcols && strcmp(dfields[c].name, name) != 0; c++)
				;
			if (c == ndcols)
				die("file-index.%s.columns: no column \"%s\" in the data files", gi_kinds[k], name);
			col.width = gi_width(dfields[c].type);
			if (col.width == 0 || (k == 2 && col.width < 0))
				die("file-index.%s.columns: column \"%s\" has a type the generator does not index",
					gi_kinds[k], name);
			if (nix == 64)
				die("too many file indexes");
			for (int r = 0; r < nrows; r++)
			{
				ts_value	val;

				file_row_value(cfg, dcols[c], rows[r], schema_id, &val, arena);
				isnull[r] = val.isnull;
				if (val.isnull)
					strs[r] = "";
				else if (col.width > 0)
					ints[r] = val.v.i;
				else
				{
					char	   *s = ts_arena_alloc(arena, val.v.s.len + 1);

					if (s == NULL)
						die("out of memory");
					memcpy(s, val.v.s.p, val.v.s.len);
					s[val.v.s.len] = '\0';
					strs[r] = s;
				}
			}
			col.n = nrows;
			col.null = isnull;
			col.i = ints;
			col.s = strs;
			memset(&ix[nix], 0, sizeof(ix[nix]));
			ix[nix].column = xstrdup(name);
			ix[nix].kind = gi_kinds[k];
			if (k == 0)
			{
				char	   *ik = pathf("file-index.bloom-filter.%s.items", name);
				char	   *fk = pathf("file-index.bloom-filter.%s.fpp", name);
				const char *iv = gi_option(cfg, ik);
				const char *fv = gi_option(cfg, fk);

				fiw_bloom(&ix[nix].body, &col, iv ? atoll(iv) : 1000000, fv ? atof(fv) : 0.1);
				free(ik);
				free(fk);
			}
			else if (k == 1)
			{
				/* per column, else for every bitmap index (as Java's options) */
				char	   *vk = pathf("file-index.bitmap.%s.version", name);
				char	   *bk = pathf("file-index.bitmap.%s.index-block-size", name);
				const char *vv = gi_option(cfg, vk);
				const char *bv = gi_option(cfg, bk);
				int			version;

				if (vv == NULL)
					vv = gi_option(cfg, "file-index.bitmap.version");
				if (bv == NULL)
					bv = gi_option(cfg, "file-index.bitmap.index-block-size");
				version = vv ? atoi(vv) : 2;
				if (version != 1 && version != 2)
					die("%s: bitmap index version 1 or 2", vk);
				fiw_bitmap(&ix[nix].body, &col, version, bv ? (int) gi_bytes(bk, bv) : 16384);
				free(vk);
				free(bk);
			}
			else if (k == 2)
				fiw_bsi(&ix[nix].body, &col);
			else
			{
				char	   *ck = pathf("file-index.range-bitmap.%s.chunk-size", name);
				const char *cv = gi_option(cfg, ck);

				fiw_range_bitmap(&ix[nix].body, &col, cv ? (int) gi_bytes(ck, cv) : 16384);
				free(ck);
			}
			nix++;
			free(isnull);
			free(ints);
			free(strs);
		}
		free(list);
	}
	fiw_container(&out, ix, nix);
	if ((int64_t) out.len > threshold)
	{
		char	   *sidecar = pathf("%s.index", path);
		char	   *name = pathf("%s.index", fname);

		write_bytes(sidecar, out.p, out.len);
		fi[11].v.nested.n = 1;
		fi[11].v.nested.items = arena_values(meta, 1);
		fi[11].v.nested.items[0].v.s.p = (const uint8_t *) ts_arena_dup(meta, name, strlen(name) + 1);
		fi[11].v.nested.items[0].v.s.len = (uint32_t) strlen(name);
		free(sidecar);
		free(name);
	}
	else
	{
		fi[14].isnull = false;
		fi[14].v.s.p = ts_arena_dup(meta, out.p, out.len);
		fi[14].v.s.len = (uint32_t) out.len;
	}
	for (int i = 0; i < nix; i++)
	{
		free((char *) ix[i].column);
		free(ix[i].body.p);
	}
	free(out.p);
}

#endif							/* TS_GEN_INDEX_H */
