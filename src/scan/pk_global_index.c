/*
 * pk_global_index.c - Paimon 2.0 primary-key global indexes (pk-btree /
 * pk-bitmap) turned into the row positions of the data files read.
 *
 * Owns: Java's PrimaryKeySortedIndexScan for our plan.  A primary-key table
 * with 'pk-btree.index.columns' / 'pk-bitmap.index.columns', deletion
 * vectors and no merge-on-read gets, per bucket and data level, index
 * payloads in the index manifest: _GLOBAL_INDEX with row range 0 ..
 * rows-1, the indexed field id and _SOURCE_META, the ordered data files
 * the payload's ordinals run over (meta/pk_index_source.h).  Payloads with
 * the same source list are one group (Java's PkSortedIndexGroup: the
 * rotated files of one index); a group is used only when its names are
 * unique, every payload has that range, field and type and the payloads'
 * row counts add up to the sources' (else Java rejects it and so do we).
 * A data file of the plan uses a group of a field when the group lists it
 * with its row count and the file is a COMPACT file of level > 0 (Java's
 * PrimaryKeyIndexSourcePolicy.shouldRead; of the group's level when the
 * metadata records one), and no other group of the field lists it (overlap:
 * neither is used).  The file's positions are the group's ordinals from
 * the file's offset in the list (the rows of the files before it).
 *
 * The predicate is evaluated per file (AND / OR; NOT, fields without a
 * group and index kinds not read allow every row), each leaf once per group
 * (btree files block by block, bitmap ones whole; format/fileindex).  A file
 * no position of which is left is dropped from its split; the others carry
 * their positions (ts_scan_file.index_rows) and the reader decodes only
 * those rows, deletion vectors still applied (read/read.c).  As with every
 * index here the positions are a superset of the rows the quals accept and
 * PostgreSQL rechecks every qual, so index use changes what is read, never
 * the rows returned.  Level-0 files are never read by such a plan (batch
 * reads of deletion-vector tables skip level 0) and never indexed.  Index
 * bytes that do not decode, or an ordinal past the sources' rows: an error
 * naming the index file.  Switched off with file indexes
 * (ts_scan_context.no_file_index).
 */
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "format/fileindex/global_index.h"
#include "meta/pk_index_source.h"
#include "expr/predicate.h"
#include "scan/row_ids.h"
#include "scan/scan_internal.h"

#define PKGI_MAX_FIELDS 64

typedef struct pk_group
{
	const ts_index_manifest_entry *first;	/* partition, bucket, field, type */
	ts_pk_source_meta meta;
	const ts_index_manifest_entry **payloads;
	int			npayloads;
	bool		valid;
} pk_group;

typedef struct leaf_cache
{
	int			group;
	const ts_predicate *leaf;
	bool		all;
	roaring_bitmap_t *ords;		/* when !all */
} leaf_cache;

typedef struct pk_state
{
	ts_plan    *plan;
	scan_state *st;
	pk_group   *groups;
	int			ngroups;
	int32_t		def_field[PKGI_MAX_FIELDS];	/* field ids with a definition */
	const char *def_type[PKGI_MAX_FIELDS];	/* "btree" / "bitmap" */
	int			ndefs;
	leaf_cache *cache;
	int			ncache,
				capcache;
	/* the file being evaluated: per definition, its group (-1) and offset */
	int			fgroup[PKGI_MAX_FIELDS];
	int64_t		foffset[PKGI_MAX_FIELDS];
	int64_t		frows;
	bool		fnarrowed[PKGI_MAX_FIELDS];	/* a leaf of the definition narrowed */
	scan_index_used used;		/* kinds and fields used, for EXPLAIN */
} pk_state;

static bool
same_bytes(ts_bytes a, ts_bytes b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* 'pk-<kind>.index.columns' = 'a,b': the definitions' field ids */
static void
add_definitions(pk_state *g, const char *key, const char *type)
{
	const char *v = ts_plan_option(g->plan, key);
	const ts_schema *s = g->plan->schema;

	while (v && *v)
	{
		const char *e = strchr(v, ',');
		size_t		n = e ? (size_t) (e - v) : strlen(v);

		while (n > 0 && (*v == ' ' || *v == '\t'))
			v++, n--;
		while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		for (int i = 0; i < s->nfields && g->ndefs < PKGI_MAX_FIELDS; i++)
			if (strlen(s->fields[i].name) == n && strncmp(s->fields[i].name, v, n) == 0)
			{
				g->def_field[g->ndefs] = s->fields[i].id;
				g->def_type[g->ndefs++] = type;
			}
		v = e ? e + 1 : NULL;
	}
}

static int
def_of_field(const pk_state *g, int32_t id)
{
	for (int i = 0; i < g->ndefs; i++)
		if (g->def_field[i] == id)
			return i;
	return -1;
}

/* Java's PkSortedIndexGroup.create */
static void
validate_group(pk_group *gr, const char *def_type)
{
	int64_t		rows = 0;

	gr->valid = false;
	if (gr->meta.nfiles == 0 || gr->meta.total_rows <= 0 ||
		gr->meta.total_rows > (int64_t) UINT32_MAX + 1 ||
		strcmp(gr->first->index_type, def_type) != 0 ||
		!ts_global_index_kind_supported(gr->first->index_type))
		return;
	for (int i = 0; i < gr->meta.nfiles; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(gr->meta.files[i].name, gr->meta.files[j].name) == 0)
				return;
	for (int i = 0; i < gr->npayloads; i++)
	{
		const ts_index_manifest_entry *p = gr->payloads[i];

		for (int j = 0; j < i; j++)
			if (strcmp(gr->payloads[j]->file_name, p->file_name) == 0)
				return;
		if (p->gi_row_start != 0 || p->gi_row_end != gr->meta.total_rows - 1 ||
			p->row_count < 0 || rows > INT64_MAX - p->row_count)
			return;
		rows += p->row_count;
	}
	gr->valid = rows == gr->meta.total_rows;
}

static bool
file_read(void *arg, void *buf, size_t len, int64_t offset, ts_err *err)
{
	return ts_file_pread(arg, buf, len, offset, err);
}

/* The ordinals of group gi leaf p allows (cached per group and leaf). */
static bool
group_leaf(pk_state *g, int gi, const ts_predicate *p, const ts_type *t, leaf_cache **out,
		   ts_err *err)
{
	pk_group   *gr = &g->groups[gi];
	leaf_cache *c;

	for (int i = 0; i < g->ncache; i++)
		if (g->cache[i].group == gi && g->cache[i].leaf == p)
		{
			*out = &g->cache[i];
			return true;
		}
	if (g->ncache == g->capcache)
	{
		int			cap = g->capcache ? g->capcache * 2 : 16;
		leaf_cache *n = ts_realloc(g->cache, sizeof(*n) * (size_t) cap);

		if (n == NULL)
			return ts_error_nomem(err, "primary-key global index");
		g->cache = n;
		g->capcache = cap;
	}
	c = &g->cache[g->ncache];
	c->group = gi;
	c->leaf = p;
	c->all = false;
	c->ords = roaring_bitmap_create();
	if (c->ords == NULL)
		return ts_error_nomem(err, "primary-key global index");
	g->ncache++;
	for (int i = 0; i < gr->npayloads && !c->all; i++)
	{
		const ts_index_manifest_entry *ie = gr->payloads[i];
		const char *path;
		bool		all = true;
		void	   *rows = NULL;
		bool		ok;

		if (!TS_CHECK_INTERRUPTS(err) || !scan_index_file_path(g->plan, g->st, ie, &path, err))
			return false;
		if (strcmp(ie->index_type, "btree") == 0)
		{
			ts_file    *f = ts_file_open(g->plan->fs, path, err);
			ts_gi_source src = {file_read, f, 0};

			if (f == NULL)
				return ts_error_context(err, "global index of table \"%s\"", g->plan->table_path);
			src.size = ts_file_size(f);
			ok = ts_global_index_leaf_src(ie->index_type, &src, t, p, &all, &rows, err);
			ts_file_close(f);
		}
		else
		{
			uint8_t    *data = NULL;
			size_t		len = 0;

			if (!ts_read_whole_file(g->plan->fs, path, &data, &len, err))
				return ts_error_context(err, "global index of table \"%s\"", g->plan->table_path);
			ok = ts_global_index_leaf(ie->index_type, data, len, t, p, &all, &rows, err);
			ts_free(data);
		}
		if (!ok)
			return ts_error_context(err, "global index file \"%s\"", path);
		if (all)
		{
			c->all = true;
			break;
		}
		if (!roaring_bitmap_is_empty(rows) &&
			roaring_bitmap_maximum(rows) >= (uint64_t) gr->meta.total_rows)
		{
			uint32_t	max = roaring_bitmap_maximum(rows);

			ts_global_index_rows_free(rows);
			return ts_error(err, TS_ERR_CORRUPT,
							"global index file \"%s\": ordinal %u past the %lld rows of its "
							"source files", path, max, (long long) gr->meta.total_rows);
		}
		roaring_bitmap_or_inplace(c->ords, rows);
		ts_global_index_rows_free(rows);
	}
	if (c->all)
	{
		roaring_bitmap_free(c->ords);
		c->ords = NULL;
	}
	*out = c;
	return true;
}

/* The positions of the current file leaf p allows. */
static bool
leaf_positions(pk_state *g, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	const ts_field *f;
	int			d;
	leaf_cache *c = NULL;
	ts_row_range *r;
	int			n = 0,
				cap = 16;
	roaring_uint32_iterator_t *it;
	uint64_t	lo,
				hi;
	bool		ok;

	ts_row_ids_init_all(out);
	if (p->field < 0 || p->field >= g->plan->schema->nfields)
		return true;
	f = &g->plan->schema->fields[p->field];
	d = def_of_field(g, f->id);
	if (d < 0 || g->fgroup[d] < 0)
		return true;
	if (!group_leaf(g, g->fgroup[d], p, f->type, &c, err))
		return false;
	if (c->all)
		return true;
	lo = (uint64_t) g->foffset[d];
	hi = lo + (uint64_t) g->frows;	/* exclusive */
	r = ts_malloc(sizeof(*r) * (size_t) cap);
	it = r ? roaring_create_iterator(c->ords) : NULL;
	if (it == NULL)
	{
		ts_free(r);
		return ts_error_nomem(err, "primary-key global index");
	}
	roaring_move_uint32_iterator_equalorlarger(it, (uint32_t) lo);
	while (it->has_value && (uint64_t) it->current_value < hi)
	{
		int64_t		pos = (int64_t) ((uint64_t) it->current_value - lo);

		if (n > 0 && r[n - 1].to == pos - 1)
			r[n - 1].to = pos;
		else
		{
			if (n == cap)
			{
				ts_row_range *x = ts_realloc(r, sizeof(*r) * (size_t) (cap *= 2));

				if (x == NULL)
				{
					roaring_free_uint32_iterator(it);
					ts_free(r);
					return ts_error_nomem(err, "primary-key global index");
				}
				r = x;
			}
			r[n++] = (ts_row_range) {pos, pos};
		}
		roaring_advance_uint32_iterator(it);
	}
	roaring_free_uint32_iterator(it);
	ok = ts_row_ids_from_ranges(r, n, out, err);
	ts_free(r);
	g->fnarrowed[d] |= ok;
	return ok;
}

/* A comparison leaf of the predicate, for ts_row_ids_eval. */
static bool
eval_leaf(void *arg, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	return leaf_positions((pk_state *) arg, p, out, err);
}

static bool
eval(pk_state *g, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	return ts_row_ids_eval(p, eval_leaf, g, out, err);
}

/* Which group of definition d lists data file e of split sp (-1: none)? */
static int
file_group(pk_state *g, const ts_split *sp, const ts_manifest_entry *e, int d, int64_t *offset,
		   ts_err *err, bool *ok)
{
	int			found = -1;

	*ok = true;
	for (int i = 0; i < g->ngroups; i++)
	{
		pk_group   *gr = &g->groups[i];
		int64_t		off = 0;

		if (!gr->valid || gr->first->gi_field_id != g->def_field[d] ||
			gr->first->bucket != sp->bucket || !same_bytes(gr->first->partition, sp->partition) ||
			(gr->meta.level > 0 && gr->meta.level != e->file.level))
			continue;
		for (int k = 0; k < gr->meta.nfiles; k++)
		{
			if (gr->meta.files[k].rows == e->file.row_count &&
				strcmp(gr->meta.files[k].name, e->file.file_name) == 0)
			{
				if (found >= 0)
					return -1;	/* two groups list it: neither is used */
				found = i;
				*offset = off;
				break;
			}
			off += gr->meta.files[k].rows;
		}
	}
	if (found >= 0)
	{
		/* the field's type in the file's schema must be the table's */
		const ts_schema *fs = ts_plan_schema(g->plan, e->file.schema_id, err);
		int			k;
		int			rf = ts_schema_field_index_by_id(g->plan->schema, g->def_field[d]);

		if (fs == NULL)
		{
			*ok = false;
			return -1;
		}
		k = ts_schema_field_index_by_id(fs, g->def_field[d]);
		if (rf < 0 || k < 0 || !ts_type_equal(fs->fields[k].type, g->plan->schema->fields[rf].type))
			return -1;
	}
	return found;
}

static void
free_state(pk_state *g)
{
	for (int i = 0; i < g->ngroups; i++)
	{
		ts_pk_source_meta_free(&g->groups[i].meta);
		ts_free(g->groups[i].payloads);
	}
	ts_free(g->groups);
	for (int i = 0; i < g->ncache; i++)
		if (g->cache[i].ords)
			roaring_bitmap_free(g->cache[i].ords);
	ts_free(g->cache);
}

/* group the live payloads; false on OOM / interrupt */
static bool
build_groups(pk_state *g, ts_index_manifest_entry *entries, int n, ts_err *err)
{
	bool		any_delete = false;

	g->groups = ts_calloc(n ? n : 1, sizeof(pk_group));
	if (g->groups == NULL)
		return ts_error_nomem(err, "primary-key global index");
	for (int i = 0; i < n; i++)
		any_delete |= entries[i].kind == TS_FILE_DELETE;
	for (int i = 0; i < n; i++)
	{
		const ts_index_manifest_entry *ie = &entries[i];
		bool		deleted = false;
		ts_pk_source_meta m;
		ts_err		perr = {0};
		int			d = -1;
		pk_group   *gr = NULL;

		if (ie->kind != TS_FILE_ADD || !ie->has_global_index || ie->gi_source_meta.data == NULL)
			continue;
		for (int j = i + 1; any_delete && j < n && !deleted; j++)
			deleted = entries[j].kind == TS_FILE_DELETE && scan_same_index_file(ie, &entries[j]);
		if (deleted || (d = def_of_field(g, ie->gi_field_id)) < 0)
			continue;
		/* metadata that does not decode: the payload is not used (as Java) */
		if (!ts_pk_source_meta_parse(ie->gi_source_meta.data, ie->gi_source_meta.len, &m, &perr))
		{
			if (perr.code == TS_ERR_NOMEM)
			{
				if (err)
					*err = perr;
				return false;
			}
			continue;
		}
		for (int k = 0; k < g->ngroups && gr == NULL; k++)
		{
			pk_group   *c = &g->groups[k];

			if (c->first->gi_field_id == ie->gi_field_id && c->first->bucket == ie->bucket &&
				strcmp(c->first->index_type, ie->index_type) == 0 &&
				same_bytes(c->first->partition, ie->partition) &&
				ts_pk_source_meta_equal(&c->meta, &m))
				gr = c;
		}
		if (gr == NULL)
		{
			gr = &g->groups[g->ngroups++];
			gr->first = ie;
			gr->meta = m;
			gr->payloads = ts_calloc(n, sizeof(*gr->payloads));
			if (gr->payloads == NULL)
				return ts_error_nomem(err, "primary-key global index");
		}
		else
			ts_pk_source_meta_free(&m);
		gr->payloads[gr->npayloads++] = ie;
	}
	for (int k = 0; k < g->ngroups; k++)
		validate_group(&g->groups[k], g->def_type[def_of_field(g, g->groups[k].first->gi_field_id)]);
	return true;
}

bool
scan_pk_global_index(ts_plan *plan, scan_state *st, const ts_scan_context *ctx, ts_err *err)
{
	pk_state	g;
	ts_index_manifest_entry *entries;
	int			n,
				out = 0;
	bool		any_valid = false;

	if (ctx->predicate == NULL || ctx->no_file_index || plan->kind != TS_TABLE_PRIMARY_KEY ||
		!plan->core.deletion_vectors || plan->core.dv_merge_on_read || plan->incremental ||
		plan->snapshot == NULL || plan->snapshot->index_manifest == NULL ||
		plan->snapshot->index_manifest[0] == '\0' || plan->nsplits == 0)
		return true;
	memset(&g, 0, sizeof(g));
	g.plan = plan;
	g.st = st;
	add_definitions(&g, TS_OPT_PK_BTREE_INDEX_COLUMNS, "btree");
	add_definitions(&g, TS_OPT_PK_BITMAP_INDEX_COLUMNS, "bitmap");
	if (g.ndefs == 0)
		return true;
	if (!scan_read_index_manifest(plan, &entries, &n, NULL, err))
		return false;
	if (!build_groups(&g, entries, n, err))
	{
		free_state(&g);
		return false;
	}
	for (int k = 0; k < g.ngroups; k++)
		any_valid |= g.groups[k].valid;
	if (!any_valid)
	{
		free_state(&g);
		return true;
	}
	for (int s = 0; s < plan->nsplits; s++)
	{
		ts_split   *sp = &plan->splits[s];
		int			k = 0;

		for (int i = 0; i < sp->nfiles; i++)
		{
			ts_scan_file *f = &sp->files[i];
			const ts_manifest_entry *e = f->entry;
			bool		any = false;
			ts_row_ids	pos;

			sp->files[k] = *f;
			/* files read one by one only (a merged split reads them all) */
			if (!sp->raw_convertible || e == NULL || e->file.level <= 0 || e->file.file_source != 1 ||
				e->file.row_count <= 0)
			{
				k++;
				continue;
			}
			for (int d = 0; d < g.ndefs; d++)
			{
				bool		ok;

				g.fgroup[d] = file_group(&g, sp, e, d, &g.foffset[d], err, &ok);
				if (!ok)
				{
					free_state(&g);
					return false;
				}
				any |= g.fgroup[d] >= 0;
			}
			g.frows = e->file.row_count;
			memset(g.fnarrowed, 0, sizeof(g.fnarrowed));
			if (!any)
			{
				k++;
				continue;
			}
			if (!eval(&g, ctx->predicate, &pos, err))
			{
				free_state(&g);
				return false;
			}
			/* for EXPLAIN: the indexes that narrowed the file's rows */
			for (int d = 0; d < g.ndefs && !pos.all; d++)
				if (g.fnarrowed[d])
				{
					int			fi = ts_schema_field_index_by_id(plan->schema, g.def_field[d]);

					if (fi >= 0)
						scan_note_index_used(&g.used, g.def_type[d], plan->schema->fields[fi].name);
				}
			if (pos.all)
				k++;
			else if (pos.n == 0)
			{
				/* no row of the file may match: not read */
				plan->metrics.files_pruned_row_id++;
				plan->metrics.files_kept--;
			}
			else
			{
				ts_row_ids *keep = ts_arena_alloc(&plan->arena, sizeof(*keep));

				if (keep)
				{
					*keep = pos;
					keep->ranges = ts_arena_dup(&plan->arena, pos.ranges,
												sizeof(ts_row_range) * (size_t) pos.n);
				}
				if (keep == NULL || keep->ranges == NULL)
				{
					ts_row_ids_free(&pos);
					free_state(&g);
					return ts_error_nomem(err, "primary-key global index");
				}
				sp->files[k++].index_rows = keep;
			}
			ts_row_ids_free(&pos);
		}
		sp->nfiles = k;
		if (k > 0)
			plan->splits[out++] = *sp;
	}
	plan->nsplits = out;
	if (g.used.len > 0)
		plan->global_index_used = ts_arena_strdup(&plan->arena, g.used.text);
	free_state(&g);
	return true;
}
