/*
 * prefetch.c - whole objects (and the ends of others) fetched ahead of
 * their readers (see ts_prefetch.h).
 *
 * Owns: the registered sets (a scan has one or two at a time, a set a
 * few dozen objects), their fetch through a batch of requests
 * (ts_s3_fetch_all, or started ahead: ts_s3_batch_start, its objects
 * registered once waited for) where the store has them
 * (TS_FS_CAP_BATCH_FETCH), else one whole read each, and the lookup fs.c
 * asks before sending a request.
 *
 * The registry is an array of its own (malloc'd, outside every set): after
 * a subtransaction's abort the sets that subtransaction made may be freed
 * memory already (their query's context went first), so they are dropped
 * by their registration's nesting level without being touched, while the
 * sets of the queries still open (a cursor of the outer transaction) stay
 * registered and go on serving their objects.
 */
#include <stdlib.h>
#include <string.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

typedef struct entry
{
	char	   *path;
	uint8_t    *data;
	size_t		len;
	int64_t		offset;			/* a part's first byte (ts_prefetch_start_ends); whole: -1 */
} entry;

struct ts_prefetch
{
	uint64_t	generation;		/* of the fs fetched through (ts_fs_generation) */
	ts_fs	   *fs;				/* fetched through (outlives the set) */
	entry	   *entries;
	int			n;
	int			cap;
	int64_t		bytes;
	/* a set started ahead: its batch in flight and the requests */
	ts_s3_batch *batch;
	ts_s3_fetch *items;
	bool	   *taken;			/* items registered (or failed) already */
	int			nitems;
	void	   *owner;			/* where the set allocates (ts_alloc_owner) */
	/* where the last lookups hit: readers open a set's objects mostly in order */
	int			entry_hint;
	int			item_hint;
	/* sizes of objects not fetched (ts_prefetch_add_size): path and size */
	entry	   *sized;
	int			nsized;
	int			sized_cap;
	int			sized_hint;
};

/* One registered set and the (sub)transaction nesting level that made it. */
typedef struct registration
{
	ts_prefetch *set;
	int			level;
} registration;

static registration *registry = NULL;	/* oldest first; malloc'd */
static int	nregistered = 0;
static int	registry_cap = 0;
static int	(*nest_level_hook) (void) = NULL;

void
ts_prefetch_set_nest_level_hook(int (*hook) (void))
{
	nest_level_hook = hook;
}

ts_prefetch *
ts_prefetch_new(ts_fs *fs)
{
	ts_prefetch *p;

	if (nregistered == registry_cap)
	{
		int			ncap = registry_cap ? registry_cap * 2 : 8;
		registration *nr = realloc(registry, sizeof(registration) * (size_t) ncap);

		if (nr == NULL)
			return NULL;
		registry = nr;
		registry_cap = ncap;
	}
	p = ts_calloc(1, sizeof(ts_prefetch));
	if (p == NULL)
		return NULL;
	p->generation = ts_fs_generation(fs);
	p->fs = fs;
	registry[nregistered].set = p;
	registry[nregistered].level = nest_level_hook ? nest_level_hook() : 0;
	nregistered++;
	return p;
}

int
ts_prefetch_registered(void)
{
	return nregistered;
}

/*
 * Append (a copy of path, data, len, offset) to the array *arr of *n
 * entries; false when out of memory.
 */
static bool
push_part(entry **arr, int *n, int *cap, const char *path, uint8_t *data, size_t len,
		  int64_t offset)
{
	char	   *copy;

	if (*n == *cap)
	{
		int			ncap = *cap ? *cap * 2 : 16;
		entry	   *ne = ts_realloc(*arr, sizeof(entry) * (size_t) ncap);

		if (ne == NULL)
			return false;
		*arr = ne;
		*cap = ncap;
	}
	copy = ts_strdup(path);
	if (copy == NULL)
		return false;
	(*arr)[*n].path = copy;
	(*arr)[*n].data = data;
	(*arr)[*n].len = len;
	(*arr)[*n].offset = offset;
	(*n)++;
	return true;
}

/* The same for a whole object (or a size). */
static bool
push_entry(entry **arr, int *n, int *cap, const char *path, uint8_t *data, size_t len)
{
	return push_part(arr, n, cap, path, data, len, -1);
}

bool
ts_prefetch_add(ts_prefetch *p, const char *path, uint8_t *data, size_t len)
{
	if (!push_entry(&p->entries, &p->n, &p->cap, path, data, len))
		return false;
	p->bytes += (int64_t) len;
	return true;
}

int
ts_prefetch_count(const ts_prefetch *p)
{
	return p ? p->n : 0;
}

int64_t
ts_prefetch_bytes(const ts_prefetch *p)
{
	return p ? p->bytes : 0;
}

/* Free the requests of p (and what they fetched but was not taken). */
static void
drop_items(ts_prefetch *p)
{
	for (int i = 0; i < p->nitems; i++)
	{
		ts_free(p->items[i].data);
		ts_free(p->items[i].buf);	/* a part's buffer not taken */
		ts_free((char *) p->items[i].uri);
	}
	ts_free(p->items);
	ts_free(p->taken);
	p->items = NULL;
	p->taken = NULL;
	p->nitems = 0;
}

/* Register item i of p once finished (nothing when it failed); false when out of memory. */
static bool
take(ts_prefetch *p, int i)
{
	ts_s3_fetch *it = &p->items[i];
	bool		ok = true;

	if (p->taken[i])
		return true;
	p->taken[i] = true;
	if (it->buf != NULL)
	{
		void	   *prev;

		/* a part: served to ts_prefetch_find_range only, never cached */
		if (it->code != TS_OK)
			return true;
		prev = ts_alloc_switch(p->owner);
		ok = push_part(&p->entries, &p->n, &p->cap, it->uri, it->buf, it->len, it->offset);
		ts_alloc_switch(prev);
		if (ok)
		{
			p->bytes += (int64_t) it->len;
			it->buf = NULL;		/* the set's now */
		}
		return ok;
	}
	if (it->code == TS_OK && it->data != NULL)
	{
		void	   *prev = ts_alloc_switch(p->owner);

		ts_fs_cache_store(p->fs, it->uri, it->data, it->data_len);
		ok = ts_prefetch_add(p, it->uri, it->data, it->data_len);
		if (ok)
			it->data = NULL;	/* the set's now */
		ts_alloc_switch(prev);
	}
	return ok;
}

/* A new registered set of fs with room for cap requests; NULL when out of memory. */
static ts_prefetch *
set_with_items(ts_fs *fs, int cap)
{
	ts_prefetch *p = ts_prefetch_new(fs);

	if (p == NULL)
		return NULL;
	p->owner = ts_alloc_owner();
	p->items = ts_calloc(cap > 0 ? (size_t) cap : 1, sizeof(ts_s3_fetch));
	p->taken = ts_calloc(cap > 0 ? (size_t) cap : 1, sizeof(bool));
	if (p->items == NULL || p->taken == NULL)
	{
		ts_prefetch_free(p);
		return NULL;
	}
	return p;
}

/* Start p's requests (none: nothing to do); NULL (p freed, err set) when they cannot start. */
static ts_prefetch *
start_items(ts_prefetch *p, ts_err *err)
{
	if (p->nitems == 0)
		return p;
	p->batch = ts_s3_batch_start(ts_fs_s3_config(p->fs), p->items, p->nitems, true, err);
	if (p->batch == NULL)
	{
		ts_prefetch_free(p);
		return NULL;
	}
	return p;
}

ts_prefetch *
ts_prefetch_start(ts_fs *fs, const char *const *paths, int n, ts_err *err)
{
	return ts_prefetch_start_sized(fs, paths, NULL, n, err);
}

ts_prefetch *
ts_prefetch_start_sized(ts_fs *fs, const char *const *paths, const int64_t *sizes, int n,
						ts_err *err)
{
	ts_prefetch *p = set_with_items(fs, n);

	if (p == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < n; i++)
	{
		const uint8_t *d;
		size_t		l;
		uint8_t    *cached;
		char	   *uri;

		if (!ts_fs_path_is_remote(fs, paths[i]) || !ts_fs_allows_name(fs, paths[i], NULL) ||
			ts_prefetch_find(fs, paths[i], &d, &l))
			continue;
		if (!(ts_fs_path_caps(fs, paths[i]) & TS_FS_CAP_BATCH_FETCH))
		{
			/* a store without batches: one whole read now (failed: its reader reports why) */
			if (!ts_fs_read_whole(fs, paths[i], 0, &cached, &l, NULL))
				continue;
			if ((sizes != NULL && sizes[i] > 0 && (int64_t) l != sizes[i]))
				ts_free(cached);	/* not the size the metadata gives: its reader's */
			else if (!ts_prefetch_add(p, paths[i], cached, l))
			{
				ts_free(cached);
				goto nomem;
			}
			continue;
		}
		if (ts_fs_cache_lookup(fs, paths[i], &cached, &l))
		{
			if (sizes != NULL && sizes[i] > 0 && (int64_t) l != sizes[i])
				ts_free(cached);	/* not the size the metadata gives: fetched */
			else
			{
				/* in the on-disk metadata cache: no request */
				if (!ts_prefetch_add(p, paths[i], cached, l))
				{
					ts_free(cached);
					goto nomem;
				}
				continue;
			}
		}
		uri = ts_strdup(paths[i]);
		if (uri == NULL)
			goto nomem;
		p->items[p->nitems].uri = uri;
		/* a known size: an answer of another length is retried, then refused */
		p->items[p->nitems].object_size = sizes && sizes[i] > 0 ? sizes[i] : -1;
		p->nitems++;
	}
	return start_items(p, err);

nomem:
	ts_prefetch_free(p);
	ts_error_nomem(err, NULL);
	return NULL;
}

/* Can a part of path (an object of size bytes) be fetched ahead through fs? */
static bool
part_wanted(ts_fs *fs, const char *path, int64_t size)
{
	const uint8_t *d;
	size_t		l;

	return size > 0 && ts_fs_path_is_remote(fs, path) && ts_fs_allows_name(fs, path, NULL) &&
		(ts_fs_path_caps(fs, path) & TS_FS_CAP_BATCH_FETCH) && !ts_prefetch_find(fs, path, &d, &l);
}

ts_prefetch *
ts_prefetch_start_parts(ts_fs *fs, const ts_prefetch_part *parts, int n, ts_err *err)
{
	ts_prefetch *p = set_with_items(fs, n);

	if (p == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < n; i++)
	{
		const ts_prefetch_part *part = &parts[i];
		ts_s3_fetch *it = &p->items[p->nitems];

		if (part->len <= 0 || part->offset < 0 || part->offset > part->object_size - part->len ||
			!part_wanted(fs, part->path, part->object_size))
			continue;
		it->uri = ts_strdup(part->path);
		it->buf = ts_malloc((size_t) part->len);
		if (it->uri == NULL || it->buf == NULL)
		{
			ts_free((char *) it->uri);
			ts_free(it->buf);
			it->uri = NULL;
			it->buf = NULL;
			ts_prefetch_free(p);
			ts_error_nomem(err, NULL);
			return NULL;
		}
		it->offset = part->offset;
		it->len = (size_t) part->len;
		it->object_size = part->object_size;	/* a ranged answer of another object size: refused */
		p->nitems++;
	}
	return start_items(p, err);
}

ts_prefetch *
ts_prefetch_start_ends(ts_fs *fs, const char *const *paths, const int64_t *sizes, int n,
					   int64_t head_len, int64_t tail_len, ts_err *err)
{
	ts_prefetch_part *parts = ts_malloc(sizeof(ts_prefetch_part) * (size_t) (n > 0 ? n * 2 : 1));
	ts_prefetch *p;
	int			m = 0;

	if (parts == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < n; i++)
	{
		/* objects larger than both ends */
		if (sizes[i] <= head_len + tail_len || head_len <= 0 || tail_len <= 0)
			continue;
		parts[m++] = (ts_prefetch_part) {paths[i], sizes[i], 0, head_len};
		parts[m++] = (ts_prefetch_part) {paths[i], sizes[i], sizes[i] - tail_len, tail_len};
	}
	p = ts_prefetch_start_parts(fs, parts, m, err);
	ts_free(parts);
	return p;
}

bool
ts_prefetch_ready(ts_prefetch *p)
{
	return p == NULL || p->batch == NULL || ts_s3_batch_done(p->batch);
}

bool
ts_prefetch_wait(ts_prefetch *p, ts_err *err)
{
	ts_s3_batch *b;

	if (p == NULL || (p->batch == NULL && p->items == NULL))
		return true;
	b = p->batch;
	p->batch = NULL;
	if (b != NULL && !ts_s3_batch_wait(b, err))
	{
		drop_items(p);
		if (err && err->code != TS_ERR_CANCELED && err->code != TS_ERR_NOMEM)
		{
			err->code = TS_OK;	/* the reads that follow report it */
			return true;
		}
		return false;
	}
	for (int i = 0; i < p->nitems; i++)
		if (!take(p, i))
		{
			drop_items(p);
			return ts_error_nomem(err, NULL);
		}
	drop_items(p);
	return true;
}

ts_prefetch *
ts_prefetch_objects(ts_fs *fs, const char *const *paths, int n, ts_err *err)
{
	return ts_prefetch_objects_sized(fs, paths, NULL, n, err);
}

ts_prefetch *
ts_prefetch_objects_sized(ts_fs *fs, const char *const *paths, const int64_t *sizes, int n,
						  ts_err *err)
{
	ts_prefetch *p = ts_prefetch_start_sized(fs, paths, sizes, n, err);

	if (p == NULL)
		return NULL;
	if (!ts_prefetch_wait(p, err))
	{
		ts_prefetch_free(p);
		return NULL;
	}
	return p;
}

void
ts_prefetch_free(ts_prefetch *p)
{
	if (p == NULL)
		return;
	ts_s3_batch_cancel(p->batch);	/* frees what it fetched */
	p->batch = NULL;
	for (int i = 0; i < p->nitems; i++)
		p->items[i].data = NULL;	/* the canceled batch's, freed */
	drop_items(p);
	for (int i = nregistered - 1; i >= 0; i--)
		if (registry[i].set == p)
		{
			memmove(&registry[i], &registry[i + 1], sizeof(registration) * (size_t) (nregistered - i - 1));
			nregistered--;
			break;
		}
	for (int i = 0; i < p->n; i++)
	{
		ts_free(p->entries[i].path);
		ts_free(p->entries[i].data);
	}
	ts_free(p->entries);
	for (int i = 0; i < p->nsized; i++)
		ts_free(p->sized[i].path);
	ts_free(p->sized);
	ts_free(p);
}

void
ts_prefetch_forget_all(void)
{
	nregistered = 0;
	ts_s3_batch_forget_all();	/* sets started ahead: their transfers too */
}

void
ts_prefetch_forget_level(int level)
{
	int			kept = 0;

	for (int i = 0; i < nregistered; i++)
		if (registry[i].level < level)
			registry[kept++] = registry[i];
	nregistered = kept;
	/*
	 * Every batch goes: s3_batch.c keeps its running batches in a list
	 * threaded through their memory, some of which the abort freed.  A kept
	 * set's batch is then finished with its unfinished objects not fetched
	 * (their reads send their own requests); what it fetched stays served.
	 */
	ts_s3_batch_forget_all();
}

void
ts_prefetch_commit_level(int level)
{
	for (int i = 0; i < nregistered; i++)
		if (registry[i].level >= level)
			registry[i].level = level - 1;
}

/* The entry of path in p, or NULL; searched from the one after the last hit. */
static const entry *
find_in(ts_prefetch *p, const char *path)
{
	for (int k = 0; k < p->n; k++)
	{
		int			i = (p->entry_hint + k) % p->n;

		if (p->entries[i].offset < 0 && strcmp(p->entries[i].path, path) == 0)
		{
			p->entry_hint = i + 1;
			return &p->entries[i];
		}
	}
	return NULL;
}

/* The item of path in p not taken yet, or -1; searched from the one after the last hit. */
static int
find_item(ts_prefetch *p, const char *path)
{
	for (int k = 0; k < p->nitems; k++)
	{
		int			i = (p->item_hint + k) % p->nitems;

		if (!p->taken[i] && p->items[i].buf == NULL && strcmp(p->items[i].uri, path) == 0)
		{
			p->item_hint = i + 1;
			return i;
		}
	}
	return -1;
}

/*
 * The registered sets of fs (its generation), newest first: *r starts at
 * nregistered and is moved past the set returned; NULL after the last.
 */
static ts_prefetch *
next_set_of(ts_fs *fs, int *r)
{
	uint64_t	gen = ts_fs_generation(fs);

	while (--*r >= 0)
		if (registry[*r].set->generation == gen)
			return registry[*r].set;
	return NULL;
}

bool
ts_prefetch_find(ts_fs *fs, const char *path, const uint8_t **data, size_t *len)
{
	ts_prefetch *p;

	for (int r = nregistered; (p = next_set_of(fs, &r)) != NULL;)
	{
		const entry *e;

		e = find_in(p, path);
		if (e == NULL && p->batch != NULL)
		{
			/* on its way: wait for this object alone (a failure: not found) */
			int			i = find_item(p, path);

			if (i >= 0)
			{
				if (!ts_s3_batch_wait_item(p->batch, i, NULL) || !take(p, i))
					return false;	/* its reader's own request reports why */
				e = find_in(p, path);
			}
		}
		if (e)
		{
			*data = e->data;
			*len = e->len;
			return true;
		}
	}
	return false;
}

/* The part of p holding bytes [offset, offset + len) of path, or NULL. */
static const entry *
find_part(ts_prefetch *p, const char *path, int64_t offset, size_t len)
{
	for (int i = 0; i < p->n; i++)
	{
		const entry *e = &p->entries[i];

		if (e->offset >= 0 && offset >= e->offset &&
			offset + (int64_t) len <= e->offset + (int64_t) e->len && strcmp(e->path, path) == 0)
			return e;
	}
	return NULL;
}

/* Is item i of p a part on its way (not taken) holding [offset, offset + len) of path? */
static bool
item_holds(const ts_prefetch *p, int i, const char *path, int64_t offset, size_t len)
{
	const ts_s3_fetch *it = &p->items[i];

	return !p->taken[i] && it->buf != NULL && offset >= it->offset &&
		offset + (int64_t) len <= it->offset + (int64_t) it->len && strcmp(it->uri, path) == 0;
}

/*
 * ts_prefetch_find_range, waiting for a part on its way (wait), or only
 * from sets whose requests are all done (not wait: never waits).
 */
static bool
find_range(ts_fs *fs, const char *path, int64_t offset, size_t len, const uint8_t **data,
		   bool wait)
{
	ts_prefetch *p;

	for (int r = nregistered; (p = next_set_of(fs, &r)) != NULL;)
	{
		const entry *e;

		e = find_part(p, path, offset, len);
		for (int i = 0; e == NULL && p->batch != NULL && i < p->nitems; i++)
		{
			/* on its way: wait for this part alone (a failure: not found) */
			if (!item_holds(p, i, path, offset, len))
				continue;
			if (!wait && !ts_s3_batch_done(p->batch))
				break;
			if (!ts_s3_batch_wait_item(p->batch, i, NULL) || !take(p, i))
				return false;	/* its reader's own request reports why */
			e = find_part(p, path, offset, len);
		}
		if (e)
		{
			*data = e->data + (offset - e->offset);
			return true;
		}
	}
	return false;
}

bool
ts_prefetch_find_range(ts_fs *fs, const char *path, int64_t offset, size_t len,
					   const uint8_t **data)
{
	return find_range(fs, path, offset, len, data, true);
}

bool
ts_prefetch_held_range(ts_fs *fs, const char *path, int64_t offset, size_t len,
					   const uint8_t **data)
{
	return find_range(fs, path, offset, len, data, false);
}

bool
ts_prefetch_covers(ts_fs *fs, const char *path, int64_t offset, size_t len)
{
	ts_prefetch *p;

	for (int r = nregistered; (p = next_set_of(fs, &r)) != NULL;)
	{
		if (find_part(p, path, offset, len) != NULL)
			return true;
		for (int i = 0; p->batch != NULL && i < p->nitems; i++)
			if (item_holds(p, i, path, offset, len))
				return true;
	}
	return false;
}

bool
ts_prefetch_add_size(ts_prefetch *p, const char *path, int64_t size)
{
	return size <= 0 || push_entry(&p->sized, &p->nsized, &p->sized_cap, path, NULL, (size_t) size);
}

bool
ts_prefetch_size(ts_fs *fs, const char *path, int64_t *size)
{
	ts_prefetch *p;

	for (int r = nregistered; (p = next_set_of(fs, &r)) != NULL;)
	{
		for (int k = 0; k < p->nsized; k++)
		{
			int			i = (p->sized_hint + k) % p->nsized;

			if (strcmp(p->sized[i].path, path) == 0)
			{
				p->sized_hint = i + 1;
				*size = (int64_t) p->sized[i].len;
				return true;
			}
		}
	}
	return false;
}
