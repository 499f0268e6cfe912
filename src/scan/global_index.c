/*
 * global_index.c - the global index (Paimon 1.3+) turned into row ids.
 *
 * Owns: finding the live global index files of the snapshot's index
 * manifest (entries with _GLOBAL_INDEX: a row-id range [start, end] and the
 * field id they index), and evaluating the scan's predicate with them, per
 * partition, into the set of row ids that may satisfy it
 * (row_id_prune.c then keeps only the files holding some).
 *
 * Conservative everywhere, since PostgreSQL rechecks every qual: a leaf
 * on a field without a readable index, row ids no index file of the field
 * covers, NOT, and index kinds not read (vector and full-text ones)
 * allow every row id.  Ignoring an index is therefore always safe:
 * an index here only narrows what is read, it never decides a row on its
 * own (vector / full-text searches, where the index result is the answer,
 * have no SQL form in this extension).  A field whose type differs in
 * some file's schema (a type change) uses no index.  Index bytes that do
 * not decode are an error naming the index file.  Bitmap files are read
 * whole, btree files block by block (format/fileindex/fi_btree.c).  Only
 * on row-tracking append tables, with the predicate, unless file indexes
 * are switched off (ts_scan_context.no_file_index).
 */
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "format/fileindex/global_index.h"
#include "expr/predicate.h"
#include "scan/row_ids.h"
#include "scan/scan_internal.h"

typedef struct gi_state
{
	ts_plan    *plan;
	scan_state *st;
	const ts_index_manifest_entry **live;	/* live global index entries */
	int			nlive;
	ts_bytes	partition;		/* being evaluated */
	scan_index_used used;		/* kinds and fields used, for EXPLAIN */
} gi_state;

static bool
same_bytes(ts_bytes a, ts_bytes b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* Is field (of the read schema) of the same type in every kept file's schema? */
static bool
type_stable(gi_state *g, int field, bool *stable, ts_err *err)
{
	const ts_field *rf = &g->plan->schema->fields[field];

	*stable = true;
	for (int s = 0; s < g->plan->nsplits; s++)
		for (int i = 0; i < g->plan->splits[s].nfiles; i++)
		{
			const ts_manifest_entry *e = g->plan->splits[s].files[i].entry;
			const ts_schema *fs;
			int			k;

			if (e == NULL)
				continue;
			if (i > 0 && g->plan->splits[s].files[i - 1].entry &&
				g->plan->splits[s].files[i - 1].entry->file.schema_id == e->file.schema_id)
				continue;
			fs = ts_plan_schema(g->plan, e->file.schema_id, err);
			if (fs == NULL)
				return false;
			k = ts_schema_field_index_by_id(fs, rf->id);
			if (k >= 0 && !ts_type_equal(fs->fields[k].type, rf->type))
			{
				*stable = false;
				return true;
			}
		}
	return true;
}

void
scan_note_index_used(scan_index_used *u, const char *kind, const char *field)
{
	char		item[128];
	int			n = snprintf(item, sizeof(item), "%s %s", kind, field);
	const char *p = u->text;

	if (n <= 0 || (size_t) n >= sizeof(item))
		return;
	while (u->len > 0 && (p = strstr(p, item)) != NULL)
	{
		if ((p == u->text || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return;				/* once per kind and field */
		p += n;
	}
	if (u->len + n + 3 >= sizeof(u->text))
		return;
	if (u->len > 0)
	{
		memcpy(u->text + u->len, ", ", 2);
		u->len += 2;
	}
	memcpy(u->text + u->len, item, n + 1);
	u->len += n;
}

static bool
file_read(void *arg, void *buf, size_t len, int64_t offset, ts_err *err)
{
	return ts_file_pread(arg, buf, len, offset, err);
}

/* Row ids one index file allows for leaf p, added to acc (ranges). */
static bool
file_leaf(gi_state *g, const ts_index_manifest_entry *ie, const ts_type *t,
		  const ts_predicate *p, ts_row_range **acc, int *nacc, int *cap, ts_err *err)
{
	const char *path;
	uint8_t    *data = NULL;
	size_t		len = 0;
	bool		all;
	void	   *rows = NULL;
	roaring_uint32_iterator_t *it;
	int64_t		span = ie->gi_row_end - ie->gi_row_start;

	if (!scan_index_file_path(g->plan, g->st, ie, &path, err))
		return false;
	if (strcmp(ie->index_type, "btree") == 0)
	{
		/* read block by block: only the footer, index and blocks a leaf needs */
		ts_file    *f = ts_file_open(g->plan->fs, path, err);
		ts_gi_source src = {file_read, f, 0, span >= 0 && span < INT64_MAX ? span + 1 : 0};
		bool		ok;

		if (f == NULL)
			return ts_error_context(err, "global index of table \"%s\"", g->plan->table_path);
		src.size = ts_file_size(f);
		ok = ts_global_index_leaf_src(ie->index_type, &src, t, p, &all, &rows, err);
		ts_file_close(f);
		if (!ok)
			return ts_error_context(err, "global index file \"%s\"", path);
	}
	else
	{
		if (!ts_read_whole_file(g->plan->fs, path, &data, &len, err))
			return ts_error_context(err, "global index of table \"%s\"", g->plan->table_path);
		if (!ts_global_index_leaf(ie->index_type, data, len, t, p, &all, &rows, err))
		{
			ts_free(data);
			return ts_error_context(err, "global index file \"%s\"", path);
		}
		ts_free(data);
	}
	if (all)
	{
		if (*nacc == *cap)
		{
			ts_row_range *n = ts_realloc(*acc, sizeof(ts_row_range) * (size_t) (*cap * 2));

			if (n == NULL)
				return ts_error_nomem(err, "global index");
			*acc = n;
			*cap *= 2;
		}
		(*acc)[(*nacc)++] = (ts_row_range) {ie->gi_row_start, ie->gi_row_end};
		return true;
	}
	it = roaring_create_iterator(rows);
	if (it == NULL)
	{
		ts_global_index_rows_free(rows);
		return ts_error_nomem(err, "global index");
	}
	while (it->has_value)
	{
		int64_t		pos = it->current_value;

		if (pos > span)
		{
			roaring_free_uint32_iterator(it);
			ts_global_index_rows_free(rows);
			return ts_error(err, TS_ERR_CORRUPT,
							"global index file \"%s\": row %lld outside its row range %lld..%lld",
							path, (long long) pos, (long long) ie->gi_row_start,
							(long long) ie->gi_row_end);
		}
		if (*nacc > 0 && (*acc)[*nacc - 1].to == ie->gi_row_start + pos - 1)
			(*acc)[*nacc - 1].to++;
		else
		{
			if (*nacc == *cap)
			{
				ts_row_range *n = ts_realloc(*acc, sizeof(ts_row_range) * (size_t) (*cap * 2));

				if (n == NULL)
				{
					roaring_free_uint32_iterator(it);
					ts_global_index_rows_free(rows);
					return ts_error_nomem(err, "global index");
				}
				*acc = n;
				*cap *= 2;
			}
			(*acc)[(*nacc)++] = (ts_row_range) {ie->gi_row_start + pos, ie->gi_row_start + pos};
		}
		roaring_advance_uint32_iterator(it);
	}
	roaring_free_uint32_iterator(it);
	ts_global_index_rows_free(rows);
	return true;
}

/* The row ids a leaf allows in the current partition. */
static bool
leaf_ids(gi_state *g, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	const ts_field *f;
	ts_row_range *acc,
			   *covered;
	int			nacc = 0,
				cap = 16,
				ncovered = 0;
	bool		stable;
	ts_row_ids	cov,
				uncovered;
	bool		ok;

	ts_row_ids_init_all(out);
	if (p->field < 0 || p->field >= g->plan->schema->nfields)
		return true;
	f = &g->plan->schema->fields[p->field];
	for (int i = 0; i < g->nlive; i++)
		if (g->live[i]->gi_field_id == f->id && same_bytes(g->live[i]->partition, g->partition) &&
			ts_global_index_kind_supported(g->live[i]->index_type))
			ncovered++;
	if (ncovered == 0)
		return true;
	if (!type_stable(g, p->field, &stable, err))
		return false;
	if (!stable)
		return true;
	acc = ts_malloc(sizeof(ts_row_range) * (size_t) cap);
	covered = ts_malloc(sizeof(ts_row_range) * (size_t) ncovered);
	if (acc == NULL || covered == NULL)
	{
		ts_free(acc);
		ts_free(covered);
		return ts_error_nomem(err, "global index");
	}
	ncovered = 0;
	for (int i = 0; i < g->nlive; i++)
	{
		const ts_index_manifest_entry *ie = g->live[i];
		int			before = nacc;

		if (ie->gi_field_id != f->id || !same_bytes(ie->partition, g->partition) ||
			!ts_global_index_kind_supported(ie->index_type))
			continue;
		if (!TS_CHECK_INTERRUPTS(err) || !file_leaf(g, ie, f->type, p, &acc, &nacc, &cap, err))
		{
			ts_free(acc);
			ts_free(covered);
			return false;
		}
		covered[ncovered++] = (ts_row_range) {ie->gi_row_start, ie->gi_row_end};
		/* used: the index narrowed its range */
		if (nacc != before + 1 || acc[before].from != ie->gi_row_start ||
			acc[before].to != ie->gi_row_end)
			scan_note_index_used(&g->used, ie->index_type, f->name);
	}
	/* row ids no index file covers: all of them may match */
	ok = ts_row_ids_from_ranges(covered, ncovered, &cov, err);
	ts_free(covered);
	if (!ok)
	{
		ts_free(acc);
		return false;
	}
	{
		ts_row_range *gaps = ts_malloc(sizeof(ts_row_range) * (size_t) (cov.n + 1 + nacc));
		int			ng = 0;
		int64_t		next = INT64_MIN;

		if (gaps == NULL)
		{
			ts_free(acc);
			ts_row_ids_free(&cov);
			return ts_error_nomem(err, "global index");
		}
		for (int i = 0; i < cov.n; i++)
		{
			if (cov.ranges[i].from > next)
				gaps[ng++] = (ts_row_range) {next, cov.ranges[i].from - 1};
			next = cov.ranges[i].to == INT64_MAX ? INT64_MAX : cov.ranges[i].to + 1;
		}
		if (cov.n == 0 || cov.ranges[cov.n - 1].to < INT64_MAX)
			gaps[ng++] = (ts_row_range) {next, INT64_MAX};
		memcpy(gaps + ng, acc, sizeof(ts_row_range) * (size_t) nacc);
		ok = ts_row_ids_from_ranges(gaps, ng + nacc, &uncovered, err);
		ts_free(gaps);
	}
	ts_free(acc);
	ts_row_ids_free(&cov);
	if (!ok)
		return false;
	*out = uncovered;
	return true;
}

/* A comparison leaf of the predicate, for ts_row_ids_eval. */
static bool
eval_leaf(void *arg, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	return leaf_ids((gi_state *) arg, p, out, err);
}

static bool
eval(gi_state *g, const ts_predicate *p, ts_row_ids *out, ts_err *err)
{
	return ts_row_ids_eval(p, eval_leaf, g, out, err);
}

void
scan_global_index_free(scan_gi_result *r)
{
	if (r == NULL)
		return;
	for (int i = 0; i < r->nparts; i++)
	{
		ts_row_ids_free(r->parts[i].ids);
		ts_free(r->parts[i].ids);
	}
	ts_free(r->parts);
	ts_free(r);
}

const ts_row_ids *
scan_global_index_ids(const scan_gi_result *r, ts_bytes partition)
{
	if (r == NULL)
		return NULL;
	for (int i = 0; i < r->nparts; i++)
		if (same_bytes(r->parts[i].partition, partition))
			return r->parts[i].ids;
	return NULL;
}

bool
scan_global_index_eval(ts_plan *plan, scan_state *st, const ts_scan_context *ctx,
					   scan_gi_result **out, ts_err *err)
{
	ts_index_manifest_entry *entries;
	int			n;
	gi_state	g;
	scan_gi_result *r;
	bool		any_delete = false;

	*out = NULL;
	if (ctx->predicate == NULL || ctx->no_file_index || plan->kind != TS_TABLE_APPEND ||
		!(plan->core.row_tracking || plan->core.data_evolution) || plan->snapshot == NULL ||
		plan->snapshot->index_manifest == NULL || plan->snapshot->index_manifest[0] == '\0' ||
		plan->nsplits == 0)
		return true;
	if (!scan_read_index_manifest(plan, &entries, &n, NULL, err))
		return false;

	memset(&g, 0, sizeof(g));
	g.plan = plan;
	g.st = st;
	g.live = ts_arena_alloc(&plan->arena, sizeof(*g.live) * (size_t) (n ? n : 1));
	if (g.live == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < n; i++)
		any_delete |= entries[i].kind == TS_FILE_DELETE;
	for (int i = 0; i < n; i++)
	{
		bool		deleted = false;

		if (entries[i].kind != TS_FILE_ADD || !entries[i].has_global_index)
			continue;
		/* an index file deleted later in the same manifest is not live */
		for (int j = i + 1; any_delete && j < n && !deleted; j++)
			deleted = entries[j].kind == TS_FILE_DELETE && scan_same_index_file(&entries[i], &entries[j]);
		if (!deleted)
			g.live[g.nlive++] = &entries[i];
	}
	if (g.nlive == 0)
		return true;

	r = ts_calloc(1, sizeof(*r));
	if (r == NULL)
		return ts_error_nomem(err, NULL);
	r->parts = ts_calloc(g.nlive, sizeof(*r->parts));
	if (r->parts == NULL)
	{
		ts_free(r);
		return ts_error_nomem(err, NULL);
	}
	/* one evaluation per partition that has global index files */
	for (int i = 0; i < g.nlive; i++)
	{
		ts_row_ids	ids;
		bool		seen = false;
		size_t		used_before;

		for (int k = 0; k < r->nparts && !seen; k++)
			seen = same_bytes(r->parts[k].partition, g.live[i]->partition);
		if (seen)
			continue;
		used_before = g.used.len;
		g.partition = g.live[i]->partition;
		if (!eval(&g, ctx->predicate, &ids, err))
		{
			scan_global_index_free(r);
			return false;
		}
		if (ids.all)
		{
			/* narrowed a leaf, not the predicate (an OR with an unindexed leaf) */
			g.used.len = used_before;
			g.used.text[used_before] = '\0';
			continue;
		}
		r->parts[r->nparts].partition = g.partition;
		r->parts[r->nparts].ids = ts_malloc(sizeof(ts_row_ids));
		if (r->parts[r->nparts].ids == NULL)
		{
			ts_row_ids_free(&ids);
			scan_global_index_free(r);
			return ts_error_nomem(err, NULL);
		}
		*r->parts[r->nparts++].ids = ids;
	}
	if (g.used.len > 0)
		r->used = ts_arena_strdup(&plan->arena, g.used.text);
	*out = r;
	return true;
}
