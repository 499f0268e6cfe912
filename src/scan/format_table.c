/*
 * format_table.c - listing a format table's partitions and data files.
 *
 * Owns: what format_table.h declares: the descent through partition
 * directories with pruning, the data-file walk and the sort order
 * (PartitionPathUtils' escaping is base/path_escape.c).  Reads
 * directories only through ts_fs; all results live in the listing's
 * arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_type_class.h"
#include "meta/core_options.h"
#include "scan/format_table.h"
#include "format/text/text_value.h"

/* ---- options --------------------------------------------------------- */

bool
ts_ft_request_set_options(ts_ft_request *req, const ts_option *options, int noptions, ts_err *err)
{
	for (int i = 0; i < noptions; i++)
	{
		const char *k = options[i].key,
				   *v = options[i].value;

		if (k == NULL || v == NULL)
			continue;
		if (strcmp(k, TS_OPT_FORMAT_TABLE_PATH_ONLY_VALUE) == 0)
		{
			if (strcasecmp(v, "true") == 0)
				req->path_only_value = true;
			else if (strcasecmp(v, "false") == 0)
				req->path_only_value = false;
			else
				return ts_error(err, TS_ERR_INVALID,
								"invalid value \"%s\" for option \"%s\": expected true or false", v, k);
		}
		else if (strcmp(k, TS_OPT_PARTITION_DEFAULT_NAME) == 0)
			req->default_name = v;
	}
	return true;
}

/* ---- descent --------------------------------------------------------- */

typedef struct ft_walk
{
	const ts_ft_request *req;
	ts_fs	   *fs;				/* req->fs */
	ts_ft_listing *l;
	const char *default_name;
	char	  **values;			/* current prefix (arena strings) */
	ts_value   *typed;
	int			cap_parts;
	int			cap_files;
	/* per filter branch: number of leading keys fixed by equalities */
	int		   *fixed;
} ft_walk;

/* the value of key k in filter branch b, or NULL (not constrained) */
static const char *
filter_value(const ts_option *branch, const char *key, bool *found)
{
	*found = false;
	for (const ts_option *o = branch; o->key; o++)
	{
		if (strcmp(o->key, key) == 0)
		{
			*found = true;
			return o->value;
		}
	}
	return NULL;
}

static bool
scalar_equal(const ts_value *a, const ts_value *b, const ts_type *t)
{
	switch (ts_type_class_of(t->kind)->phys)
	{
		case TS_PHYS_FLOAT:
			return a->v.f == b->v.f;
		case TS_PHYS_DOUBLE:
			return a->v.d == b->v.d;
		case TS_PHYS_DECIMAL:
			return a->v.dec == b->v.dec;
		case TS_PHYS_TIMESTAMP:
			return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
		case TS_PHYS_BYTES:
			return a->v.s.len == b->v.s.len && memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0;
		default:
			return a->v.i == b->v.i;
	}
}

/* Does the partition value (depth k) satisfy "key = fv"? */
static bool
value_matches(ft_walk *w, int k, const char *fv)
{
	const char *pv = w->values[k];
	const ts_type *t = w->req->key_types ? w->req->key_types[k] : NULL;

	if (fv == NULL || strcmp(fv, w->default_name) == 0)
		return pv == NULL;
	if (pv == NULL)
		return false;
	if (strcmp(pv, fv) == 0)
		return true;
	if (t && !ts_type_is_bytes(t->kind))
	{
		ts_value	a,
					b;
		ts_err		e;

		a = w->typed[k];
		if (!a.isnull && ts_text_parse_value(fv, strlen(fv), t, TS_TEXT_CAST, NULL, &b, &e) &&
			!b.isnull)
			return scalar_equal(&a, &b, t);
	}
	return false;
}

/* Can a partition starting with values[0..depth) pass the filter? */
static bool
prefix_passes(ft_walk *w, int depth)
{
	const ts_ft_request *req = w->req;

	if (req->nfilters > 0)
	{
		bool		any = false;

		for (int b = 0; b < req->nfilters && !any; b++)
		{
			bool		ok = true;

			for (int k = 0; k < depth && ok; k++)
			{
				bool		found;
				const char *fv = filter_value(req->filters[b], req->key_names[k], &found);

				if (found && !value_matches(w, k, fv))
					ok = false;
			}
			any = ok;
		}
		if (!any)
			return false;
	}
	if (req->pred && !req->pred(req->pred_arg, depth, (const char *const *) w->values, w->typed))
		return false;
	return true;
}

static int
value_cmp(const ts_ft_partition *a, const ts_ft_partition *b, int nkeys, const ts_type *const *types)
{
	for (int k = 0; k < nkeys; k++)
	{
		const char *x = a->values[k],
				   *y = b->values[k];
		const ts_type *t = types ? types[k] : NULL;
		int			c = 0;

		if (x == NULL || y == NULL)
		{
			if (x == y)
				continue;
			return x == NULL ? -1 : 1;
		}
		if (t && !ts_type_is_bytes(t->kind) && !a->typed[k].isnull && !b->typed[k].isnull)
		{
			const ts_value *p = &a->typed[k],
					   *q = &b->typed[k];

			switch (ts_type_class_of(t->kind)->phys)
			{
				case TS_PHYS_FLOAT:
					c = p->v.f < q->v.f ? -1 : p->v.f > q->v.f;
					break;
				case TS_PHYS_DOUBLE:
					c = p->v.d < q->v.d ? -1 : p->v.d > q->v.d;
					break;
				case TS_PHYS_DECIMAL:
					c = p->v.dec < q->v.dec ? -1 : p->v.dec > q->v.dec;
					break;
				case TS_PHYS_TIMESTAMP:
					c = p->v.ts.millis < q->v.ts.millis ? -1 : p->v.ts.millis > q->v.ts.millis;
					if (c == 0)
						c = p->v.ts.nanos < q->v.ts.nanos ? -1 : p->v.ts.nanos > q->v.ts.nanos;
					break;
				default:
					c = p->v.i < q->v.i ? -1 : p->v.i > q->v.i;
					break;
			}
		}
		if (c == 0)
			c = strcmp(x, y);
		if (c != 0)
			return c;
	}
	return strcmp(a->path, b->path);
}

static bool
add_partition(ft_walk *w, const char *dir, ts_err *err)
{
	ts_ft_listing *l = w->l;
	int			nkeys = w->req->nkeys;
	ts_ft_partition *p;

	/* the same directory may be reached from two filter prefixes */
	if (l->metrics.start_prefixes > 1)
		for (int i = 0; i < l->npartitions; i++)
			if (strcmp(l->partitions[i].path, dir) == 0)
				return true;
	if (l->npartitions == w->cap_parts)
	{
		int			nc = w->cap_parts ? w->cap_parts * 2 : 16;
		ts_ft_partition *np = ts_realloc(l->partitions, sizeof(ts_ft_partition) * nc);

		if (np == NULL)
			return ts_error_nomem(err, "listing partitions");
		l->partitions = np;
		w->cap_parts = nc;
	}
	p = &l->partitions[l->npartitions];
	p->path = ts_arena_strdup(&l->arena, dir);
	p->values = ts_arena_alloc(&l->arena, sizeof(char *) * (nkeys ? nkeys : 1));
	p->typed = ts_arena_alloc(&l->arena, sizeof(ts_value) * (nkeys ? nkeys : 1));
	if (p->path == NULL || p->values == NULL || p->typed == NULL)
		return ts_error_nomem(err, "listing partitions");
	for (int k = 0; k < nkeys; k++)
	{
		p->values[k] = w->values[k];	/* already arena strings */
		p->typed[k] = w->typed[k];
	}
	l->npartitions++;
	return true;
}

/*
 * Parse the directory name at 'level' into w->values/typed; *ok = false:
 * not a partition directory (a name without '=').  A directory listed
 * under 'dir' (strict) whose key is not the level's partition key, or
 * whose value does not parse as the key's type, is an error naming it:
 * its rows must not vanish.  Not strict (a name built from a filter
 * value), it is only "nothing there".
 */
static bool
take_dir_value(ft_walk *w, int level, const char *dir, const char *name, bool *ok, ts_err *err)
{
	const ts_ft_request *req = w->req;
	const char *raw = name;
	char	   *val;
	const ts_type *t = req->key_types ? req->key_types[level] : NULL;

	*ok = false;
	if (!req->path_only_value)
	{
		const char *eq = strchr(name, '=');
		char	   *kraw,
				   *key;
		bool		same;

		if (eq == NULL)
			return true;
		kraw = ts_strndup(name, (size_t) (eq - name));
		key = kraw ? ts_partition_unescape(kraw) : NULL;
		ts_free(kraw);
		if (key == NULL)
			return ts_error_nomem(err, NULL);
		same = strcmp(key, req->key_names[level]) == 0;
		if (!same && dir)
		{
			ts_error(err, TS_ERR_CORRUPT,
					 "format table directory \"%s/%s\" is a partition of key \"%s\" where key \"%s\" is expected: "
					 "partition keys must be listed in the order of the directory nesting",
					 dir, name, key, req->key_names[level]);
			ts_free(key);
			return false;
		}
		ts_free(key);
		if (!same)
			return true;
		raw = eq + 1;
	}
	val = ts_partition_unescape(raw);
	if (val == NULL)
		return ts_error_nomem(err, NULL);
	memset(&w->typed[level], 0, sizeof(ts_value));
	if (strcmp(val, w->default_name) == 0)
	{
		w->values[level] = NULL;
		w->typed[level].isnull = true;
		ts_free(val);
		*ok = true;
		return true;
	}
	w->values[level] = ts_arena_strdup(&w->l->arena, val);
	ts_free(val);
	if (w->values[level] == NULL)
		return ts_error_nomem(err, NULL);
	if (t)
	{
		ts_err		e;

		if (!ts_text_parse_value(w->values[level], strlen(w->values[level]), t, TS_TEXT_CAST,
								 &w->l->arena, &w->typed[level], &e))
		{
			if (e.code == TS_ERR_NOMEM)
				return ts_error_nomem(err, NULL);
			if (dir)
				return ts_error(err, TS_ERR_CORRUPT,
								"format table directory \"%s/%s\": value of partition key \"%s\" is not a %s: %s",
								dir, name, req->key_names[level], ts_type_kind_name(t->kind), e.msg);
			return true;		/* a filter value not of the key's type: nothing there */
		}
	}
	else
		w->typed[level].isnull = true;
	*ok = true;
	return true;
}

static bool
descend(ft_walk *w, const char *dir, int level, ts_err *err)
{
	char	  **names;
	int			n;
	bool		ok = true;

	if (level == w->req->nkeys)
	{
		if (!prefix_passes(w, level))
			return true;
		return add_partition(w, dir, err);
	}
	if (!TS_CHECK_INTERRUPTS(err))
		return false;
	if (!ts_list_dir(w->fs, dir, &names, &n, err))
	{
		/* a partition directory removed while listing is not an error */
		if (err && err->code == TS_ERR_NOT_FOUND && level > 0)
		{
			err->code = TS_OK;
			return true;
		}
		return false;
	}
	w->l->metrics.dirs_listed++;
	for (int i = 0; i < n && ok; i++)
	{
		const char *name = names[i];
		char	   *sub;
		bool		is_part;

		if (((name[0] == '.' || name[0] == '_') &&
			 !(w->req->path_only_value && strcmp(name, w->default_name) == 0)) ||
			(level == 0 && w->req->skip_top && strcmp(name, w->req->skip_top) == 0))
		{
			w->l->metrics.dirs_ignored++;
			continue;
		}
		sub = ts_path_join(dir, name);
		if (sub == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			break;
		}
		if (!ts_path_is_dir(w->fs, sub))
		{
			ts_free(sub);
			continue;			/* files next to partition dirs are not data */
		}
		ok = take_dir_value(w, level, dir, name, &is_part, err);
		if (ok && !is_part)
			w->l->metrics.dirs_ignored++;
		else if (ok && level + 1 == w->req->nkeys)
			w->l->metrics.partitions_listed++;	/* a leaf seen, kept or not */
		if (ok && is_part && prefix_passes(w, level + 1))
			ok = descend(w, sub, level + 1, err);
		ts_free(sub);
	}
	ts_free_names(names, n);
	return ok;
}

/*
 * Start the descent at the directory fixed by the leading equalities of
 * filter branch b (or at the root).  Fills w->values for those levels.
 */
static bool
descend_from_prefix(ft_walk *w, const ts_option *branch, ts_err *err)
{
	const ts_ft_request *req = w->req;
	char	   *dir = ts_strdup(req->table_path);
	int			level = 0;
	bool		ok = true;

	if (dir == NULL)
		return ts_error_nomem(err, NULL);
	for (; branch && level < req->nkeys; level++)
	{
		bool		found,
					is_part;
		const char *fv = filter_value(branch, req->key_names[level], &found);
		char	   *ev,
				   *ek = NULL,
				   *name,
				   *sub;

		if (!found)
			break;
		if (fv == NULL)
			fv = w->default_name;
		ev = ts_partition_escape(fv);
		if (!req->path_only_value)
			ek = ts_partition_escape(req->key_names[level]);
		name = ev && (req->path_only_value || ek) ?
			(req->path_only_value ? ts_strdup(ev) : ts_psprintf("%s=%s", ek, ev)) : NULL;
		ts_free(ev);
		ts_free(ek);
		if (name == NULL)
		{
			ts_free(dir);
			return ts_error_nomem(err, NULL);
		}
		ok = take_dir_value(w, level, NULL, name, &is_part, err);
		sub = ok ? ts_path_join(dir, name) : NULL;
		ts_free(name);
		if (!ok || sub == NULL)
		{
			ts_free(dir);
			return ok ? ts_error_nomem(err, NULL) : false;
		}
		if (is_part && !ts_path_is_dir(w->fs, sub))
		{
			/*
			 * No directory spelled the way Paimon escapes the value: another
			 * writer may spell it differently (or the table root may be
			 * missing), so list this level and match by unescaped value.
			 */
			ts_free(sub);
			break;
		}
		ts_free(dir);
		dir = sub;
		if (is_part && level + 1 == req->nkeys)
			w->l->metrics.partitions_listed++;
		if (!is_part || !prefix_passes(w, level + 1))
		{
			ts_free(dir);
			return true;		/* nothing there */
		}
	}
	if (level < w->l->metrics.start_depth || w->l->metrics.start_prefixes == 0)
		w->l->metrics.start_depth = level;
	w->l->metrics.start_prefixes++;
	if (level == 0 && !ts_path_is_dir(w->fs, dir))
	{
		ts_error(err, TS_ERR_NOT_FOUND, "format table directory \"%s\" does not exist", dir);
		ts_free(dir);
		return false;
	}
	ok = descend(w, dir, level, err);
	ts_free(dir);
	return ok;
}

/* ---- files ----------------------------------------------------------- */

static bool
add_file(ft_walk *w, const char *path, int partition, ts_err *err)
{
	ts_ft_listing *l = w->l;

	if (l->nfiles == w->cap_files)
	{
		int			nc = w->cap_files ? w->cap_files * 2 : 64;
		ts_ft_file *nf = ts_realloc(l->files, sizeof(ts_ft_file) * nc);

		if (nf == NULL)
			return ts_error_nomem(err, "listing files");
		l->files = nf;
		w->cap_files = nc;
	}
	l->files[l->nfiles].path = ts_arena_strdup(&l->arena, path);
	if (l->files[l->nfiles].path == NULL)
		return ts_error_nomem(err, "listing files");
	l->files[l->nfiles].partition = partition;
	l->nfiles++;
	l->metrics.files++;
	return true;
}

/* Every non-hidden regular file below dir, sorted (ts_list_dir sorts). */
static bool
walk_files(ft_walk *w, const char *dir, int partition, int depth, ts_err *err)
{
	char	  **names;
	int			n;
	bool		ok = true;

	if (depth > 64)
		return ts_error(err, TS_ERR_CORRUPT, "directory tree below \"%s\" is too deep", dir);
	if (!TS_CHECK_INTERRUPTS(err))
		return false;
	if (!ts_list_dir(w->fs, dir, &names, &n, err))
	{
		if (err && err->code == TS_ERR_NOT_FOUND && depth > 0)
		{
			err->code = TS_OK;
			return true;
		}
		return false;
	}
	w->l->metrics.dirs_listed++;
	for (int i = 0; i < n && ok; i++)
	{
		char	   *sub;

		if (names[i][0] == '.' || names[i][0] == '_')
			continue;
		if (depth == 0 && partition < 0 && w->req->skip_top &&
			strcmp(names[i], w->req->skip_top) == 0)
			continue;
		sub = ts_path_join(dir, names[i]);
		if (sub == NULL)
		{
			ok = ts_error_nomem(err, NULL);
			break;
		}
		if (ts_path_is_file(w->fs, sub))
			ok = add_file(w, sub, partition, err);
		else if (ts_path_is_dir(w->fs, sub))
		{
			/* a nested partition dir of an unpartitioned walk is still data */
			ok = walk_files(w, sub, partition, depth + 1, err);
		}
		ts_free(sub);
	}
	ts_free_names(names, n);
	return ok;
}

static const ts_type *const *sort_types;
static int	sort_nkeys;

static int
cmp_parts(const void *a, const void *b)
{
	return value_cmp(a, b, sort_nkeys, sort_types);
}

static void
sort_partitions(ts_ft_listing *l, const ts_ft_request *req)
{
	/* qsort has no context argument: file-scope, single-threaded */
	sort_types = req->key_types;
	sort_nkeys = req->nkeys;
	if (l->npartitions > 1)
		qsort(l->partitions, l->npartitions, sizeof(ts_ft_partition), cmp_parts);
}

/*
 * A new listing for req and the walk state that fills it: the key names
 * and the default partition name copied into its arena, no partition
 * value set.  NULL (err set) when out of memory.
 */
static ts_ft_listing *
listing_start(const ts_ft_request *req, ft_walk *w, ts_err *err)
{
	ts_ft_listing *l;
	int			n = req->nkeys ? req->nkeys : 1;

	if (req->fs == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "cannot list the format table at \"%s\": no file system was given for it",
				 req->table_path);
		return NULL;
	}
	if ((l = ts_calloc(1, sizeof(ts_ft_listing))) == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_arena_init(&l->arena, 16 * 1024);
	memset(w, 0, sizeof(*w));
	w->req = req;
	w->fs = req->fs;
	w->l = l;
	w->default_name = req->default_name && *req->default_name ? req->default_name : TS_FT_DEFAULT_PARTITION_NAME;
	l->nkeys = req->nkeys;
	l->default_name = ts_arena_strdup(&l->arena, w->default_name);
	l->key_names = ts_arena_alloc(&l->arena, sizeof(char *) * n);
	w->values = ts_arena_alloc(&l->arena, sizeof(char *) * n);
	w->typed = ts_arena_alloc(&l->arena, sizeof(ts_value) * n);
	if (l->key_names == NULL || w->values == NULL || w->typed == NULL || l->default_name == NULL)
		goto nomem;
	for (int k = 0; k < req->nkeys; k++)
	{
		if ((l->key_names[k] = ts_arena_strdup(&l->arena, req->key_names[k])) == NULL)
			goto nomem;
		w->values[k] = NULL;
		memset(&w->typed[k], 0, sizeof(ts_value));
		w->typed[k].isnull = true;
	}
	return l;
nomem:
	ts_ft_listing_free(l);
	ts_error_nomem(err, NULL);
	return NULL;
}

ts_ft_listing *
ts_format_table_list(const ts_ft_request *req, ts_err *err)
{
	ts_ft_listing *l;
	ft_walk		w;
	bool		ok = true;

	if (req == NULL || req->table_path == NULL || req->nkeys < 0 ||
		(req->nkeys > 0 && req->key_names == NULL))
	{
		ts_error(err, TS_ERR_INVALID, "format table listing: invalid request");
		return NULL;
	}
	l = listing_start(req, &w, err);
	if (l == NULL)
		return NULL;

	if (req->nkeys == 0)
	{
		if (req->list_files)
			ok = walk_files(&w, req->table_path, -1, 0, err);
		if (!ok)
			goto fail;
		return l;
	}

	/* partitions: from the root, or from each filter branch's fixed prefix */
	if (req->nfilters > 0)
	{
		bool		root = false;

		for (int b = 0; b < req->nfilters; b++)
		{
			bool		found;

			filter_value(req->filters[b], req->key_names[0], &found);
			if (!found)
				root = true;
		}
		if (root)
			ok = descend_from_prefix(&w, NULL, err);
		else
			for (int b = 0; b < req->nfilters && ok; b++)
				ok = descend_from_prefix(&w, req->filters[b], err);
	}
	else
		ok = descend_from_prefix(&w, NULL, err);
	if (!ok)
		goto fail;
	sort_partitions(l, req);
	l->metrics.partitions_kept = l->npartitions;
	if (req->list_files)
	{
		for (int p = 0; p < l->npartitions && ok; p++)
			ok = walk_files(&w, l->partitions[p].path, p, 0, err);
		if (!ok)
			goto fail;
	}
	return l;
fail:
	ts_ft_listing_free(l);
	return NULL;
}

/*
 * One partition a catalog names (spec: key -> value) into w->values/typed:
 * every partition key must be there, a value must parse as its key's type
 * (a catalog answer that does not is an error naming it, never a skipped
 * partition).
 */
static bool
take_spec_values(ft_walk *w, const ts_option *spec, int nspec, const char *what, ts_err *err)
{
	const ts_ft_request *req = w->req;

	for (int k = 0; k < req->nkeys; k++)
	{
		const char *v = NULL;
		bool		found = false;
		const ts_type *t = req->key_types ? req->key_types[k] : NULL;

		for (int i = 0; i < nspec && !found; i++)
			if (spec[i].key && strcmp(spec[i].key, req->key_names[k]) == 0)
			{
				v = spec[i].value;
				found = true;
			}
		if (!found)
			return ts_error(err, TS_ERR_CORRUPT, "%s: a partition has no value for partition key \"%s\"",
							what, req->key_names[k]);
		memset(&w->typed[k], 0, sizeof(ts_value));
		if (v == NULL || strcmp(v, w->default_name) == 0)
		{
			w->values[k] = NULL;
			w->typed[k].isnull = true;
			continue;
		}
		if ((w->values[k] = ts_arena_strdup(&w->l->arena, v)) == NULL)
			return ts_error_nomem(err, NULL);
		if (t)
		{
			ts_err		e;

			if (!ts_text_parse_value(w->values[k], strlen(w->values[k]), t, TS_TEXT_CAST,
									 &w->l->arena, &w->typed[k], &e))
			{
				if (e.code == TS_ERR_NOMEM)
					return ts_error_nomem(err, NULL);
				return ts_error(err, TS_ERR_CORRUPT,
								"%s: value \"%s\" of partition key \"%s\" is not a %s: %s",
								what, v, req->key_names[k], ts_type_kind_name(t->kind), e.msg);
			}
		}
		else
			w->typed[k].isnull = true;
	}
	return true;
}

ts_ft_listing *
ts_format_table_partitions_given(const ts_ft_request *req, int nparts,
								 const ts_option *const *specs, const int *nspecs,
								 const char *what, ts_err *err)
{
	ts_ft_listing *l;
	ft_walk		w;

	if (req == NULL || req->table_path == NULL || req->nkeys < 0 || nparts < 0 ||
		(req->nkeys > 0 && req->key_names == NULL) || (nparts > 0 && (specs == NULL || nspecs == NULL)))
	{
		ts_error(err, TS_ERR_INVALID, "format table partitions: invalid request");
		return NULL;
	}
	l = listing_start(req, &w, err);
	if (l == NULL)
		return NULL;
	if (req->nkeys == 0)
		return l;				/* unpartitioned: no partitions, whatever the catalog says */
	for (int p = 0; p < nparts; p++)
	{
		size_t		len = strlen(req->table_path) + 1;
		char	   *dir,
				   *end;

		if (!TS_CHECK_INTERRUPTS(err))
			goto fail;
		if (!take_spec_values(&w, specs[p], nspecs[p], what, err))
			goto fail;
		l->metrics.partitions_listed++;
		if (!prefix_passes(&w, req->nkeys))
			continue;
		/* the directory the partition's files are in (sort tie-break, file walk) */
		for (int k = 0; k < req->nkeys; k++)
		{
			char	   *e = ts_partition_escape(w.values[k] ? w.values[k] : w.default_name);

			if (e == NULL)
				goto nomem;
			len += strlen(req->key_names[k]) + strlen(e) + 2;
			ts_free(e);
		}
		dir = ts_arena_alloc(&l->arena, len + 1);
		if (dir == NULL)
			goto nomem;
		end = dir + sprintf(dir, "%s", req->table_path);
		for (int k = 0; k < req->nkeys; k++)
		{
			char	   *e = ts_partition_escape(w.values[k] ? w.values[k] : w.default_name);

			if (e == NULL)
				goto nomem;
			if (req->path_only_value)
				end += sprintf(end, "/%s", e);
			else
				end += sprintf(end, "/%s=%s", req->key_names[k], e);
			ts_free(e);
		}
		if (!add_partition(&w, dir, err))
			goto fail;
	}
	sort_partitions(l, req);
	l->metrics.partitions_kept = l->npartitions;
	return l;
nomem:
	ts_error_nomem(err, NULL);
fail:
	ts_ft_listing_free(l);
	return NULL;
}

ts_ft_listing *
ts_format_table_list_partitions(const ts_ft_request *req, ts_err *err)
{
	ts_ft_request r = *req;

	r.list_files = false;
	return ts_format_table_list(&r, err);
}

void
ts_ft_listing_free(ts_ft_listing *l)
{
	if (l == NULL)
		return;
	ts_free(l->partitions);
	ts_free(l->files);
	ts_arena_free(&l->arena);
	ts_free(l);
}
