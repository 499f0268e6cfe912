/*
 * prefetch.c - whole objects fetched ahead of their readers (see
 * ts_prefetch.h).
 *
 * Owns: the registered sets (a list, newest first; a scan has one or two
 * at a time, a set a few dozen objects), their fetch through
 * ts_s3_fetch_all, and the lookup fs.c asks before sending a request.
 */
#include <string.h>

#include "base/ts_fs.h"
#include "base/ts_prefetch.h"
#include "base/ts_s3.h"

typedef struct entry
{
	char	   *path;
	uint8_t    *data;
	size_t		len;
} entry;

struct ts_prefetch
{
	ts_prefetch *next;			/* in the registry */
	uint64_t	generation;		/* of the storage settings fetched with */
	entry	   *entries;
	int			n;
	int			cap;
	int64_t		bytes;
};

static ts_prefetch *registry = NULL;

ts_prefetch *
ts_prefetch_new(void)
{
	ts_prefetch *p = ts_calloc(1, sizeof(ts_prefetch));

	if (p == NULL)
		return NULL;
	p->generation = ts_s3_config_generation();
	p->next = registry;
	registry = p;
	return p;
}

bool
ts_prefetch_add(ts_prefetch *p, const char *path, uint8_t *data, size_t len)
{
	char	   *copy;

	if (p->n == p->cap)
	{
		int			ncap = p->cap ? p->cap * 2 : 16;
		entry	   *ne = ts_realloc(p->entries, sizeof(entry) * (size_t) ncap);

		if (ne == NULL)
			return false;
		p->entries = ne;
		p->cap = ncap;
	}
	copy = ts_strdup(path);
	if (copy == NULL)
		return false;
	p->entries[p->n].path = copy;
	p->entries[p->n].data = data;
	p->entries[p->n].len = len;
	p->n++;
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

ts_prefetch *
ts_prefetch_objects(const char *const *paths, int n, ts_err *err)
{
	ts_prefetch *p = ts_prefetch_new();
	ts_s3_fetch *items;
	int			m = 0;

	if (p == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	items = ts_calloc(n > 0 ? (size_t) n : 1, sizeof(ts_s3_fetch));
	if (items == NULL)
	{
		ts_prefetch_free(p);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	for (int i = 0; i < n; i++)
	{
		const uint8_t *d;
		size_t		l;

		uint8_t    *cached;

		if (!ts_uri_is_object(paths[i]) || !ts_fs_scope_allows_name(paths[i], NULL) ||
			ts_prefetch_find(paths[i], &d, &l))
			continue;
		if (ts_fs_cache_lookup(paths[i], &cached, &l))
		{
			/* in the on-disk metadata cache: no request */
			if (!ts_prefetch_add(p, paths[i], cached, l))
			{
				ts_free(cached);
				ts_free(items);
				ts_prefetch_free(p);
				ts_error_nomem(err, NULL);
				return NULL;
			}
			continue;
		}
		items[m].uri = paths[i];
		items[m].object_size = -1;
		m++;
	}
	if (!ts_s3_fetch_all(items, m, true, err))
	{
		ts_free(items);
		if (err && err->code != TS_ERR_CANCELED && err->code != TS_ERR_NOMEM)
		{
			err->code = TS_OK;	/* the reads that follow report it */
			return p;
		}
		ts_prefetch_free(p);
		return NULL;
	}
	for (int i = 0; i < m; i++)
	{
		if (items[i].code != TS_OK)
			continue;
		ts_fs_cache_store(items[i].uri, items[i].data, items[i].data_len);
		if (!ts_prefetch_add(p, items[i].uri, items[i].data, items[i].data_len))
		{
			for (int j = i; j < m; j++)
				ts_free(items[j].data);
			ts_free(items);
			ts_prefetch_free(p);
			ts_error_nomem(err, NULL);
			return NULL;
		}
	}
	ts_free(items);
	return p;
}

void
ts_prefetch_free(ts_prefetch *p)
{
	if (p == NULL)
		return;
	for (ts_prefetch **q = &registry; *q; q = &(*q)->next)
		if (*q == p)
		{
			*q = p->next;
			break;
		}
	for (int i = 0; i < p->n; i++)
	{
		ts_free(p->entries[i].path);
		ts_free(p->entries[i].data);
	}
	ts_free(p->entries);
	ts_free(p);
}

void
ts_prefetch_forget_all(void)
{
	registry = NULL;
}

bool
ts_prefetch_find(const char *path, const uint8_t **data, size_t *len)
{
	uint64_t	gen = ts_s3_config_generation();

	for (const ts_prefetch *p = registry; p; p = p->next)
	{
		if (p->generation != gen)
			continue;
		for (int i = 0; i < p->n; i++)
			if (strcmp(p->entries[i].path, path) == 0)
			{
				*data = p->entries[i].data;
				*len = p->entries[i].len;
				return true;
			}
	}
	return false;
}
