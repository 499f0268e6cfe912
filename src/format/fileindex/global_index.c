/*
 * global_index.c - one predicate leaf on one global index file (see
 * global_index.h).  The bitmap kind shares fi_bitmap.c with the bitmap
 * file index and is read whole (the bytes Java's 1.3 BitmapGlobalIndex writes:
 * a BitmapFileIndex body); Java's later BitmapGlobalIndexFormat (its own
 * dictionary / bitmap blocks, a 48-byte footer ending in version 1 or 2 and
 * magic "BGIX") is recognized by that footer and left unused (the leaf
 * narrows nothing: rows as without the index), never decoded as the other.  The btree kind is fi_btree.c.
 */
#include <string.h>

#include "format/fileindex/fi_internal.h"
#include "format/fileindex/global_index.h"

bool
ts_global_index_kind_supported(const char *index_type)
{
	return index_type && (strcmp(index_type, "bitmap") == 0 || strcmp(index_type, "btree") == 0);
}

static uint64_t
be_at(const uint8_t *b, int width)
{
	uint64_t	v = 0;

	for (int i = 0; i < width; i++)
		v = v << 8 | b[i];
	return v;
}

/*
 * Java's BitmapGlobalIndexFormat footer: three (long offset, int length)
 * blocks inside the file before the footer, int value count, int version 1
 * or 2, int magic 0x42474958.
 */
static bool
is_bgix(const uint8_t *body, size_t len)
{
	const uint8_t *f;

	if (len < 48)
		return false;
	f = body + len - 48;
	if (be_at(f + 44, 4) != 0x42474958 || (be_at(f + 40, 4) != 1 && be_at(f + 40, 4) != 2))
		return false;
	for (int i = 0; i < 3; i++)
	{
		uint64_t	off = be_at(f + 12 * i, 8),
					n = be_at(f + 12 * i + 8, 4);

		if (off > len - 48 || n > len - 48 - off)
			return false;
	}
	return true;
}

static bool
bitmap_leaf(const uint8_t *body, size_t len, const ts_type *t, const ts_predicate *p, bool *all,
			void **rows, ts_err *err)
{
	fi_res		r = {FI_REMAIN, NULL};

	if (is_bgix(body, len))
	{
		/* not decoded: the index narrows nothing, every row is read and filtered */
		*all = true;
		return true;
	}
	if (!fi_bitmap_leaf(body, len, t, p, &r, err))
		return false;
	switch (r.state)
	{
		case FI_REMAIN:
			fi_res_clear(&r);
			return true;
		case FI_SKIP:
			*all = false;
			*rows = roaring_bitmap_create();
			if (*rows == NULL)
				return ts_error_nomem(err, NULL);
			return true;
		case FI_ROWS:
			*all = false;
			*rows = r.rows;
			return true;
	}
	fi_res_clear(&r);
	return true;
}

bool
ts_global_index_leaf_src(const char *index_type, const ts_gi_source *src, const ts_type *t,
						 const ts_predicate *p, bool *all, void **rows, ts_err *err)
{
	*all = true;
	*rows = NULL;
	if (!ts_global_index_kind_supported(index_type))
		return true;
	if (strcmp(index_type, "btree") == 0)
	{
		roaring_bitmap_t *b = NULL;

		if (!fi_btree_leaf(src, t, p, all, &b, err))
			return false;
		*rows = b;
		return true;
	}
	else
	{
		uint8_t    *body;
		bool		ok;

		if (src->size < 0 || (uint64_t) src->size > SIZE_MAX / 2)
			return ts_error(err, TS_ERR_CORRUPT, "global index: bad file size");
		body = ts_malloc(src->size ? (size_t) src->size : 1);
		if (body == NULL)
			return ts_error_nomem(err, "global index");
		ok = src->read(src->arg, body, (size_t) src->size, 0, err) &&
			bitmap_leaf(body, (size_t) src->size, t, p, all, rows, err);
		ts_free(body);
		return ok;
	}
}

typedef struct mem_src
{
	const uint8_t *data;
	size_t		len;
} mem_src;

static bool
mem_read(void *arg, void *buf, size_t len, int64_t offset, ts_err *err)
{
	mem_src    *m = arg;

	if (offset < 0 || (uint64_t) offset > m->len || len > m->len - (size_t) offset)
		return ts_error(err, TS_ERR_CORRUPT, "global index: read past the end");
	if (len)
		memcpy(buf, m->data + offset, len);
	return true;
}

bool
ts_global_index_leaf(const char *index_type, const uint8_t *body, size_t len, const ts_type *t,
					 const ts_predicate *p, bool *all, void **rows, ts_err *err)
{
	return ts_global_index_leaf_n(index_type, body, len, 0, t, p, all, rows, err);
}

bool
ts_global_index_leaf_n(const char *index_type, const uint8_t *body, size_t len, int64_t nrows,
					   const ts_type *t, const ts_predicate *p, bool *all, void **rows,
					   ts_err *err)
{
	mem_src		m = {body, len};
	ts_gi_source src = {mem_read, &m, (int64_t) len, nrows};

	*all = true;
	*rows = NULL;
	if (index_type && strcmp(index_type, "bitmap") == 0)
		return bitmap_leaf(body, len, t, p, all, rows, err);	/* no copy */
	return ts_global_index_leaf_src(index_type, &src, t, p, all, rows, err);
}

void
ts_global_index_rows_free(void *rows)
{
	if (rows)
		roaring_bitmap_free(rows);
}
