/*
 * file_index.c - the file-index container and the predicate walk over it.
 *
 * Owns: parsing the container head (FileIndexFormat: magic, version 1,
 * head length, columns with their indexes' names, offsets and lengths,
 * all big-endian, names in Java's writeUTF form), and evaluating a
 * predicate tree against the indexes of one file the way Java's
 * FileIndexPredicate does: a leaf is the AND of what every index of its
 * column says; AND / OR combine "remain", "skip" and row bitmaps; NOT is
 * never used (the negation of a "may" is not a "cannot").  The predicate
 * tree is only read (expr/predicate.h is a header of plain types).
 */
#include <string.h>

#include "base/ts_bytes.h"
#include "format/fileindex/fi_internal.h"

#define HEAD_FIXED 16			/* magic, version, head length */

static bool
read_utf(ts_cursor *c, const uint8_t **p, uint32_t *len, ts_err *err)
{
	const uint8_t *b;

	if (!ts_cursor_bytes(c, 2, &b, err))
		return false;
	*len = ts_load_be16(b);
	return ts_cursor_bytes(c, *len, p, err);
}

static bool
parse_head(const uint8_t *data, size_t len, ts_file_index *fi, ts_err *err)
{
	ts_cursor	c;
	uint64_t	magic;
	uint32_t	version,
				head_len,
				ncols;
	int			cap = 0;

	ts_cursor_init(&c, data, len);
	if (!ts_cursor_be64(&c, &magic, err) || !ts_cursor_be32(&c, &version, err) ||
		!ts_cursor_be32(&c, &head_len, err))
		return false;
	if ((int64_t) magic != TS_FILE_INDEX_MAGIC)
		return ts_error(err, TS_ERR_CORRUPT, "not a file index (bad magic)");
	if (version != 1)
		return ts_error(err, TS_ERR_UNSUPPORTED, "file index version %u is not supported", version);
	if (head_len < HEAD_FIXED || head_len > len)
		return ts_error(err, TS_ERR_CORRUPT, "file index head length %u out of range", head_len);
	ts_cursor_init(&c, data + HEAD_FIXED, head_len - HEAD_FIXED);
	if (!ts_cursor_be32(&c, &ncols, err))
		return false;
	if (ncols > head_len)
		return ts_error(err, TS_ERR_CORRUPT, "file index: %u columns in a head of %u bytes",
						ncols, head_len);
	for (uint32_t i = 0; i < ncols; i++)
	{
		const uint8_t *col;
		uint32_t	col_len,
					nindexes;

		if (!read_utf(&c, &col, &col_len, err) || !ts_cursor_be32(&c, &nindexes, err))
			return false;
		if (nindexes > ts_cursor_left(&c) / 10)
			return ts_error(err, TS_ERR_CORRUPT, "file index: %u indexes in the rest of the head",
							nindexes);
		for (uint32_t j = 0; j < nindexes; j++)
		{
			ts_file_index_entry *e;
			uint32_t	off,
						elen;

			if (fi->nentries == cap)
			{
				ts_file_index_entry *n;

				cap = cap ? cap * 2 : 8;
				n = ts_realloc(fi->entries, sizeof(*n) * (size_t) cap);
				if (n == NULL)
					return ts_error_nomem(err, NULL);
				fi->entries = n;
			}
			e = &fi->entries[fi->nentries];
			e->column = col;
			e->column_len = col_len;
			if (!read_utf(&c, &e->kind, &e->kind_len, err) ||
				!ts_cursor_be32(&c, &off, err) || !ts_cursor_be32(&c, &elen, err))
				return false;
			if ((uint64_t) off + elen > len)
				return ts_error(err, TS_ERR_CORRUPT,
								"file index: body of %u bytes at %u past the end (%zu bytes)",
								elen, off, len);
			e->offset = off;
			e->length = elen;
			fi->nentries++;
		}
	}
	return true;
}

bool
ts_file_index_parse(const uint8_t *data, size_t len, ts_file_index *fi, ts_err *err)
{
	memset(fi, 0, sizeof(*fi));
	fi->data = data;
	fi->len = len;
	if (data == NULL)
		return ts_error(err, TS_ERR_CORRUPT, "empty file index");
	if (!parse_head(data, len, fi, err))
	{
		ts_file_index_free(fi);
		return false;
	}
	return true;
}

void
ts_file_index_free(ts_file_index *fi)
{
	ts_free(fi->entries);
	fi->entries = NULL;
	fi->nentries = 0;
}

char *
ts_file_index_describe(const ts_file_index *fi)
{
	size_t		cap = 1;
	char	   *out,
			   *p;

	for (int i = 0; i < fi->nentries; i++)
		cap += (size_t) fi->entries[i].kind_len + fi->entries[i].column_len + 3;
	out = ts_malloc(cap);
	if (out == NULL)
		return NULL;
	p = out;
	for (int i = 0; i < fi->nentries; i++)
	{
		const ts_file_index_entry *e = &fi->entries[i];

		if (i > 0)
		{
			memcpy(p, ", ", 2);
			p += 2;
		}
		memcpy(p, e->kind, e->kind_len);
		p += e->kind_len;
		*p++ = ' ';
		memcpy(p, e->column, e->column_len);
		p += e->column_len;
	}
	*p = '\0';
	return out;
}

/* ---- results ---------------------------------------------------------- */

bool
fi_res_rows(fi_res *r, roaring_bitmap_t *b, ts_err *err)
{
	fi_res_clear(r);
	if (b == NULL)
		return ts_error_nomem(err, NULL);
	if (roaring_bitmap_is_empty(b))
	{
		roaring_bitmap_free(b);
		r->state = FI_SKIP;
		return true;
	}
	r->state = FI_ROWS;
	r->rows = b;
	return true;
}

void
fi_res_and(fi_res *a, fi_res *b)
{
	if (a->state == FI_SKIP || b->state == FI_REMAIN)
	{
		fi_res_clear(b);
		return;
	}
	if (b->state == FI_SKIP || a->state == FI_REMAIN)
	{
		fi_res_clear(a);
		*a = *b;
		b->rows = NULL;
		b->state = FI_REMAIN;
		return;
	}
	roaring_bitmap_and_inplace(a->rows, b->rows);
	fi_res_clear(b);
	if (roaring_bitmap_is_empty(a->rows))
	{
		fi_res_clear(a);
		a->state = FI_SKIP;
	}
}

void
fi_res_or(fi_res *a, fi_res *b)
{
	if (a->state == FI_REMAIN || b->state == FI_SKIP)
	{
		fi_res_clear(b);
		return;
	}
	if (b->state == FI_REMAIN || a->state == FI_SKIP)
	{
		fi_res_clear(a);
		*a = *b;
		b->rows = NULL;
		b->state = FI_REMAIN;
		return;
	}
	roaring_bitmap_or_inplace(a->rows, b->rows);
	fi_res_clear(b);
}

roaring_bitmap_t *
fi_read_roaring(const uint8_t *p, size_t max, size_t *used, ts_err *err)
{
	roaring_bitmap_t *b;

	if (max == 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "file index: truncated bitmap");
		return NULL;
	}
	b = ts_roaring_read(p, max, used);
	if (b == NULL)
		ts_error(err, TS_ERR_CORRUPT, "file index: invalid Roaring bitmap");
	return b;
}

/* ---- literal keys ----------------------------------------------------- */

bool
fi_type_keys_lossy(const ts_type *t)
{
	return (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ) && t->precision > 6;
}

bool
fi_literal_key(const ts_type *t, const ts_predicate *p, const ts_value *lit,
			   int64_t *key, bool *lossy)
{
	*lossy = false;
	if (!ts_predicate_literal_usable(t, p, lit))
		return false;
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_TIME:
			*key = lit->v.i;
			return true;
		case TS_DECIMAL:
			if (t->precision > 18 || lit->v.dec > INT64_MAX || lit->v.dec < INT64_MIN)
				return false;
			*key = (int64_t) lit->v.dec;
			return true;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision <= 3)
			{
				/* the key is the millisecond: a literal between two is none */
				if (lit->v.ts.nanos != 0)
					return false;
				*key = lit->v.ts.millis;
				return true;
			}
			if (lit->v.ts.nanos % 1000 != 0 ||
				lit->v.ts.millis > INT64_MAX / 1000 || lit->v.ts.millis < INT64_MIN / 1000)
				return false;
			*key = lit->v.ts.millis * 1000 + lit->v.ts.nanos / 1000;
			*lossy = t->precision > 6;
			return true;
		default:
			return false;
	}
}

/* ---- the walk --------------------------------------------------------- */

typedef struct walk
{
	const ts_file_index *fi;
	const ts_file_index_eval *how;
} walk;

static bool
name_is(const ts_file_index_entry *e, const char *name)
{
	size_t		n = strlen(name);

	return e->column_len == n && memcmp(e->column, name, n) == 0;
}

static int
entry_kind(const ts_file_index_entry *e)
{
#define KIND_IS(s) (e->kind_len == sizeof(s) - 1 && memcmp(e->kind, s, sizeof(s) - 1) == 0)
	if (KIND_IS("bloom-filter"))
		return TS_FILE_INDEX_BLOOM;
	if (KIND_IS("bitmap"))
		return TS_FILE_INDEX_BITMAP;
	if (KIND_IS("bsi"))
		return TS_FILE_INDEX_BSI;
	if (KIND_IS("range-bitmap"))
		return TS_FILE_INDEX_RANGE_BITMAP;
#undef KIND_IS
	return 0;
}

static bool
eval_leaf(const walk *w, const ts_predicate *p, fi_res *out, ts_err *err)
{
	const char *name;
	const ts_type *type;

	out->state = FI_REMAIN;
	out->rows = NULL;
	if (p->field < 0 || !w->how->column(w->how->arg, p->field, &name, &type))
		return true;
	for (int i = 0; i < w->fi->nentries && out->state != FI_SKIP; i++)
	{
		const ts_file_index_entry *e = &w->fi->entries[i];
		const uint8_t *body = w->fi->data + e->offset;
		fi_res		r = {FI_REMAIN, NULL};
		int			kind;
		bool		ok;

		if (!name_is(e, name) || (kind = entry_kind(e)) == 0)
			continue;
		if (kind == TS_FILE_INDEX_BLOOM)
			ok = fi_bloom_leaf(body, e->length, type, p, &r, err);
		else if (kind == TS_FILE_INDEX_BITMAP)
			ok = fi_bitmap_leaf(body, e->length, type, p, &r, err);
		else if (kind == TS_FILE_INDEX_BSI)
			ok = fi_bsi_leaf(body, e->length, type, p, &r, err);
		else
			ok = fi_range_bitmap_leaf(body, e->length, type, p, &r, err);
		if (!ok)
		{
			fi_res_clear(out);
			return ts_error_context(err, "%s index of column \"%s\"",
									kind == TS_FILE_INDEX_BLOOM ? "bloom-filter" :
									kind == TS_FILE_INDEX_BITMAP ? "bitmap" :
									kind == TS_FILE_INDEX_BSI ? "bsi" : "range-bitmap", name);
		}
		if (r.state != FI_REMAIN && w->how->used)
			w->how->used(w->how->arg, kind, name);
		fi_res_and(out, &r);
	}
	return true;
}

static bool
eval_node(const walk *w, const ts_predicate *p, int depth, fi_res *out, ts_err *err)
{
	out->state = FI_REMAIN;
	out->rows = NULL;
	if (depth > 1000)
		return true;			/* absurdly deep: decide nothing */
	switch (p->op)
	{
		case TS_PRED_AND:
			for (int i = 0; i < p->nchildren && out->state != FI_SKIP; i++)
			{
				fi_res		c;

				if (!eval_node(w, &p->children[i], depth + 1, &c, err))
				{
					fi_res_clear(out);
					return false;
				}
				fi_res_and(out, &c);
			}
			return true;
		case TS_PRED_OR:
			if (p->nchildren == 0)
				return true;	/* as predicate.c: an empty OR keeps */
			out->state = FI_SKIP;
			for (int i = 0; i < p->nchildren && out->state != FI_REMAIN; i++)
			{
				fi_res		c;

				if (!eval_node(w, &p->children[i], depth + 1, &c, err))
				{
					fi_res_clear(out);
					return false;
				}
				fi_res_or(out, &c);
			}
			return true;
		case TS_PRED_NOT:
			return true;
		default:
			return eval_leaf(w, p, out, err);
	}
}

bool
ts_file_index_evaluate(const ts_file_index *fi, const ts_predicate *p,
					   const ts_file_index_eval *how, ts_file_index_result *out, ts_err *err)
{
	walk		w = {fi, how};
	fi_res		r;

	out->may_match = true;
	out->rows = NULL;
	if (p == NULL)
		return true;
	if (!eval_node(&w, p, 0, &r, err))
		return false;
	out->may_match = r.state != FI_SKIP;
	if (r.state == FI_ROWS && how->want_rows)
	{
		out->rows = r.rows;
		r.rows = NULL;
	}
	fi_res_clear(&r);
	return true;
}

void
ts_file_index_result_free(ts_file_index_result *r)
{
	if (r->rows)
		roaring_bitmap_free(r->rows);
	r->rows = NULL;
}

int64_t
ts_file_index_result_rows(const ts_file_index_result *r)
{
	if (!r->may_match)
		return 0;
	return r->rows ? (int64_t) roaring_bitmap_get_cardinality(r->rows) : -1;
}

bool
ts_file_index_result_has_row(const ts_file_index_result *r, uint32_t pos)
{
	if (!r->may_match)
		return false;
	return r->rows == NULL || roaring_bitmap_contains(r->rows, pos);
}
