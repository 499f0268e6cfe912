/*
 * ts_btree_write.h - writing Paimon btree global index files (for the
 * fixture generator src/tools/ts_gen.c and the unit test test_btree.c).
 *
 * Owns: the bytes Java's BTreeIndexWriter writes through SstFileWriter and
 * BlockWriter (Paimon 1.3+; layout in src/format/fileindex/fi_btree.c):
 * keys in ascending order, each with its row ids (local to the file's row
 * range), added as entries to a data block; a block is closed once its
 * bytes + 5 (+ 4 per entry when unaligned) exceed the block size, and its
 * last key -> (varint offset, varint size) goes to the index block; then
 * the null bitmap of the rows whose key is NULL (btw_null; the bytes of
 * Java's RoaringNavigableMap64.serialize, Roaring64NavigableMap's portable
 * form after runOptimize, then their CRC32), the index block and the
 * 52-byte footer (no bloom filter).  Version 1 writes Java's row-id lists (varint count +
 * varint ids); version 2 the BTreePostingList singleton / delta forms
 * (never the Roaring form: tests build that by hand).  Blocks are stored
 * uncompressed, or zstd-compressed as Java does (varint length + stream,
 * kept only when it saves 1/8).  Also BTreeIndexMeta (the _INDEX_META of
 * the index manifest entry: i32 length + first key, i32 length + last key,
 * has-nulls byte).  Allocation failure aborts (tools and tests only).
 */
#ifndef TS_BTREE_WRITE_H
#define TS_BTREE_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "base/ts_bytes.h"

#define BTW_UNUSED __attribute__((unused))

typedef struct btw_buf
{
	uint8_t    *p;
	size_t		len,
				cap;
} btw_buf;

BTW_UNUSED static void
btw_put(btw_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
		{
			fprintf(stderr, "btree writer: out of memory\n");
			abort();
		}
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

BTW_UNUSED static void
btw_le32(btw_buf *b, uint32_t v)
{
	uint8_t		x[4];

	ts_store_le32(x, v);
	btw_put(b, x, 4);
}

BTW_UNUSED static void
btw_le64(btw_buf *b, uint64_t v)
{
	btw_le32(b, (uint32_t) v);
	btw_le32(b, (uint32_t) (v >> 32));
}

BTW_UNUSED static void
btw_varint(btw_buf *b, uint64_t v)
{
	while (v & ~UINT64_C(0x7f))
	{
		uint8_t		c = (uint8_t) ((v & 0x7f) | 0x80);

		btw_put(b, &c, 1);
		v >>= 7;
	}
	{
		uint8_t		c = (uint8_t) v;

		btw_put(b, &c, 1);
	}
}

/* ---- keys (KeySerializer) ---------------------------------------------- */

/* an integer key of width 1, 2, 4 or 8 bytes into out; its length */
BTW_UNUSED static size_t
btw_key_int(int width, int64_t v, uint8_t *out)
{
	ts_store_le(out, (uint64_t) v, width);
	return (size_t) width;
}

/* a TIMESTAMP key (millis, nanos of the millisecond) into out (>= 13 bytes) */
BTW_UNUSED static size_t
btw_key_ts(int precision, int64_t millis, int32_t nanos, uint8_t *out)
{
	btw_buf		b = {0};
	size_t		n;

	btw_le64(&b, (uint64_t) millis);
	if (precision > 3)
		btw_varint(&b, (uint64_t) nanos);
	n = b.len;
	memcpy(out, b.p, n);
	free(b.p);
	return n;
}

/* ---- blocks (BlockWriter) ---------------------------------------------- */

typedef struct btw_block
{
	btw_buf		b;
	int32_t    *pos;
	int			n,
				cap;
	int32_t		aligned_size;
	bool		aligned;
} btw_block;

BTW_UNUSED static void
btw_block_reset(btw_block *k)
{
	k->b.len = 0;
	k->n = 0;
	k->aligned_size = 0;
	k->aligned = true;
}

BTW_UNUSED static void
btw_block_add(btw_block *k, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen)
{
	size_t		start = k->b.len;

	btw_varint(&k->b, klen);
	btw_put(&k->b, key, klen);
	btw_varint(&k->b, vlen);
	btw_put(&k->b, val, vlen);
	if (k->n == k->cap)
	{
		k->cap = k->cap * 2 + 16;
		k->pos = realloc(k->pos, sizeof(int32_t) * (size_t) k->cap);
		if (k->pos == NULL)
			abort();
	}
	k->pos[k->n++] = (int32_t) start;
	if (k->aligned)
	{
		int32_t		size = (int32_t) (k->b.len - start);

		if (k->aligned_size == 0)
			k->aligned_size = size;
		else
			k->aligned = k->aligned_size == size;
	}
}

BTW_UNUSED static size_t
btw_block_memory(const btw_block *k)
{
	return k->b.len + 5 + (k->aligned ? 0 : (size_t) k->n * 4);
}

/* close the block: its tail appended to k->b */
BTW_UNUSED static void
btw_block_finish(btw_block *k)
{
	uint8_t		type;

	if (k->n == 0)
		k->aligned = false;
	if (k->aligned)
		btw_le32(&k->b, (uint32_t) k->aligned_size);
	else
	{
		for (int i = 0; i < k->n; i++)
			btw_le32(&k->b, (uint32_t) k->pos[i]);
		btw_le32(&k->b, (uint32_t) k->n);
	}
	type = k->aligned ? 0 : 1;
	btw_put(&k->b, &type, 1);
}

/* ---- the null bitmap (Roaring64NavigableMap, as Java serializes it) ------ */

BTW_UNUSED static void
btw_le16(btw_buf *b, uint16_t v)
{
	uint8_t		x[2];

	ts_store_le16(x, v);
	btw_put(b, x, 2);
}

/*
 * One RoaringBitmap of the sorted, distinct 32-bit values v[0..n-1] as
 * Java's RoaringBitmap.serialize writes it after runOptimize: containers
 * of 16-bit high keys, each an array (<= 4096 values), else a bitmap,
 * replaced by a run container when Java's runOptimize does (an array when
 * 2 * card > 2 + 4 * runs, a bitmap when 8192 > 2 + 4 * runs); the header
 * with cookie 12347 + (size - 1) << 16 and the run flags when any
 * container is a run (offsets only from 4 containers on), else cookie
 * 12346 and the size (always offsets).  CRoaring's run_optimize converts
 * at another threshold, so it is not used here.
 */
BTW_UNUSED static void
btw_roaring32(btw_buf *b, const uint32_t *v, int64_t n)
{
	enum
	{
		C_ARRAY, C_BITMAP, C_RUN
	};
	int64_t		nc = 0;
	int64_t    *first;
	int		   *kind;
	int64_t    *runs;
	bool		hasrun = false;
	uint32_t	offset;

	first = malloc(sizeof(int64_t) * (size_t) (n + 1));
	kind = malloc(sizeof(int) * (size_t) (n + 1));
	runs = malloc(sizeof(int64_t) * (size_t) (n + 1));
	if (first == NULL || kind == NULL || runs == NULL)
		abort();
	for (int64_t i = 0; i < n; i++)
		if (i == 0 || v[i] >> 16 != v[i - 1] >> 16)
			first[nc++] = i;
	first[nc] = n;
	for (int64_t c = 0; c < nc; c++)
	{
		int64_t		card = first[c + 1] - first[c],
					r = 0;

		for (int64_t i = first[c]; i < first[c + 1]; i++)
			if (i == first[c] || v[i] != v[i - 1] + 1)
				r++;
		runs[c] = r;
		if (card > 4096)
			kind[c] = 8192 > 2 + 4 * r ? C_RUN : C_BITMAP;
		else
			kind[c] = 2 * card > 2 + 4 * r ? C_RUN : C_ARRAY;
		hasrun |= kind[c] == C_RUN;
	}
	if (hasrun)
	{
		int64_t		nflags = (nc + 7) / 8;

		btw_le32(b, (uint32_t) (12347 | ((nc - 1) << 16)));
		for (int64_t f = 0; f < nflags; f++)
		{
			uint8_t		x = 0;

			for (int64_t c = f * 8; c < nc && c < f * 8 + 8; c++)
				if (kind[c] == C_RUN)
					x |= (uint8_t) (1 << (c % 8));
			btw_put(b, &x, 1);
		}
		offset = (uint32_t) (nc < 4 ? 4 + 4 * nc + nflags : 4 + 8 * nc + nflags);
	}
	else
	{
		btw_le32(b, 12346);
		btw_le32(b, (uint32_t) nc);
		offset = (uint32_t) (8 + 8 * nc);
	}
	for (int64_t c = 0; c < nc; c++)
	{
		btw_le16(b, (uint16_t) (v[first[c]] >> 16));
		btw_le16(b, (uint16_t) (first[c + 1] - first[c] - 1));
	}
	if (!hasrun || nc >= 4)
		for (int64_t c = 0; c < nc; c++)
		{
			btw_le32(b, offset);
			offset += (uint32_t) (kind[c] == C_ARRAY ? 2 * (first[c + 1] - first[c]) :
								  kind[c] == C_BITMAP ? 8192 : 2 + 4 * runs[c]);
		}
	for (int64_t c = 0; c < nc; c++)
	{
		int64_t		a = first[c],
					z = first[c + 1];

		if (kind[c] == C_ARRAY)
			for (int64_t i = a; i < z; i++)
				btw_le16(b, (uint16_t) v[i]);
		else if (kind[c] == C_BITMAP)
		{
			uint64_t	words[1024];

			memset(words, 0, sizeof(words));
			for (int64_t i = a; i < z; i++)
				words[(v[i] & 0xffff) / 64] |= UINT64_C(1) << (v[i] % 64);
			for (int w = 0; w < 1024; w++)
				btw_le64(b, words[w]);
		}
		else
		{
			btw_le16(b, (uint16_t) runs[c]);
			for (int64_t i = a; i < z;)
			{
				int64_t		j = i;

				while (j + 1 < z && v[j + 1] == v[j] + 1)
					j++;
				btw_le16(b, (uint16_t) v[i]);
				btw_le16(b, (uint16_t) (j - i));
				i = j + 1;
			}
		}
	}
	free(first);
	free(kind);
	free(runs);
}

/*
 * A Roaring64NavigableMap of the sorted, distinct ids[0..n-1] >= 0 as
 * RoaringNavigableMap64.serialize writes it: u64 count of 32-bit high
 * keys, then per high key (ascending) a u32 key and its RoaringBitmap.
 */
BTW_UNUSED static void
btw_roaring64(btw_buf *b, const int64_t *ids, int64_t n)
{
	int64_t		nh = 0;
	uint32_t   *low = malloc(sizeof(uint32_t) * (size_t) (n + 1));

	if (low == NULL)
		abort();
	for (int64_t i = 0; i < n; i++)
		if (i == 0 || ids[i] >> 32 != ids[i - 1] >> 32)
			nh++;
	btw_le64(b, (uint64_t) nh);
	for (int64_t i = 0; i < n;)
	{
		int64_t		j = i;

		while (j < n && ids[j] >> 32 == ids[i] >> 32)
		{
			low[j - i] = (uint32_t) ids[j];
			j++;
		}
		btw_le32(b, (uint32_t) (ids[i] >> 32));
		btw_roaring32(b, low, j - i);
		i = j;
	}
	free(low);
}

/* ---- the file (SstFileWriter + BTreeIndexWriter) ----------------------- */

typedef struct btw_writer
{
	btw_buf		out;
	btw_block	data,
				index;
	size_t		block_size;
	bool		zstd;			/* compress blocks */
	int			version;		/* 1 or 2: the row-id encoding */
	uint8_t    *last_key;
	size_t		last_klen;
	uint8_t    *first_key;		/* for btw_meta */
	size_t		first_klen;
	int			nzstd;			/* blocks stored compressed */
	int64_t    *nulls;			/* row ids of NULL keys (btw_null) */
	int64_t		nnulls,
				nulls_cap;
} btw_writer;

BTW_UNUSED static void
btw_init(btw_writer *w, size_t block_size, int version, bool zstd)
{
	memset(w, 0, sizeof(*w));
	w->block_size = block_size;
	w->version = version;
	w->zstd = zstd;
	btw_block_reset(&w->data);
	btw_block_reset(&w->index);
}

/* write block k (data bytes + trailer); its offset and stored size */
BTW_UNUSED static void
btw_write_block(btw_writer *w, btw_block *k, uint64_t *offset, uint32_t *size)
{
	uint8_t		type = 0;
	const uint8_t *bytes;
	size_t		len;
	btw_buf		c = {0};
	uint32_t	crc;

	btw_block_finish(k);
	bytes = k->b.p;
	len = k->b.len;
	if (w->zstd)
	{
		size_t		bound = ZSTD_compressBound(len),
					n;

		btw_varint(&c, len);
		if (c.cap < c.len + bound)
		{
			c.cap = c.len + bound;
			c.p = realloc(c.p, c.cap);
			if (c.p == NULL)
				abort();
		}
		n = ZSTD_compress(c.p + c.len, bound, bytes, len, 1);
		if (ZSTD_isError(n))
			abort();
		c.len += n;
		/* kept only when it saves at least an eighth */
		if (c.len < len - len / 8)
		{
			bytes = c.p;
			len = c.len;
			type = 1;
			w->nzstd++;
		}
	}
	crc = (uint32_t) crc32(0L, bytes, (uInt) len);
	crc = (uint32_t) crc32(crc, &type, 1);
	*offset = w->out.len;
	*size = (uint32_t) len;
	btw_put(&w->out, bytes, len);
	btw_put(&w->out, &type, 1);
	btw_le32(&w->out, crc);
	free(c.p);
	btw_block_reset(k);
}

BTW_UNUSED static void
btw_flush(btw_writer *w)
{
	uint64_t	off;
	uint32_t	size;
	btw_buf		h = {0};

	if (w->data.n == 0)
		return;
	btw_write_block(w, &w->data, &off, &size);
	btw_varint(&h, off);
	btw_varint(&h, size);
	btw_block_add(&w->index, w->last_key, w->last_klen, h.p, h.len);
	free(h.p);
}

/* one key (ascending, each once) with its row ids (ascending, >= 0) */
BTW_UNUSED static void
btw_add(btw_writer *w, const uint8_t *key, size_t klen, const int64_t *rows, int nrows)
{
	btw_buf		v = {0};

	if (w->version == 1)
	{
		btw_varint(&v, (uint64_t) nrows);
		for (int i = 0; i < nrows; i++)
			btw_varint(&v, (uint64_t) rows[i]);
	}
	else if (nrows == 1)
	{
		uint8_t		t = 0;

		btw_put(&v, &t, 1);
		btw_varint(&v, (uint64_t) rows[0]);
	}
	else
	{
		uint8_t		t = 1;

		btw_put(&v, &t, 1);
		btw_varint(&v, (uint64_t) nrows);
		btw_varint(&v, (uint64_t) rows[0]);
		for (int i = 1; i < nrows; i++)
			btw_varint(&v, (uint64_t) (rows[i] - rows[i - 1]));
	}
	btw_block_add(&w->data, key, klen, v.p, v.len);
	free(v.p);
	free(w->last_key);
	w->last_key = malloc(klen ? klen : 1);
	if (w->last_key == NULL)
		abort();
	memcpy(w->last_key, key, klen);
	w->last_klen = klen;
	if (w->first_key == NULL)
	{
		w->first_key = malloc(klen ? klen : 1);
		if (w->first_key == NULL)
			abort();
		memcpy(w->first_key, key, klen);
		w->first_klen = klen;
	}
	if (btw_block_memory(&w->data) > w->block_size)
		btw_flush(w);
}

/* a row whose key is NULL (any order; each row once) */
BTW_UNUSED static void
btw_null(btw_writer *w, int64_t row)
{
	if (w->nnulls == w->nulls_cap)
	{
		w->nulls_cap = w->nulls_cap * 2 + 64;
		w->nulls = realloc(w->nulls, sizeof(int64_t) * (size_t) w->nulls_cap);
		if (w->nulls == NULL)
			abort();
	}
	w->nulls[w->nnulls++] = row;
}

BTW_UNUSED static int
btw_cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * the file's bytes (w->out) after the last key: the data blocks, the null
 * bitmap (when a row was NULL: its bytes, then their CRC32; the handle's
 * size leaves the CRC out), the index block and the footer
 */
BTW_UNUSED static void
btw_finish(btw_writer *w)
{
	uint64_t	ioff,
				noff = 0;
	uint32_t	isize,
				nsize = 0;

	btw_flush(w);
	if (w->nnulls > 0)
	{
		btw_buf		nb = {0};

		qsort(w->nulls, (size_t) w->nnulls, sizeof(int64_t), btw_cmp_i64);
		btw_roaring64(&nb, w->nulls, w->nnulls);
		noff = w->out.len;
		nsize = (uint32_t) nb.len;
		btw_put(&w->out, nb.p, nb.len);
		btw_le32(&w->out, (uint32_t) crc32(0L, nb.p, (uInt) nb.len));
		free(nb.p);
	}
	btw_write_block(w, &w->index, &ioff, &isize);
	/* footer: no bloom filter, the index block, the null bitmap, version, magic */
	btw_le64(&w->out, 0);
	btw_le32(&w->out, 0);
	btw_le64(&w->out, 0);
	btw_le64(&w->out, ioff);
	btw_le32(&w->out, isize);
	btw_le64(&w->out, noff);
	btw_le32(&w->out, nsize);
	btw_le32(&w->out, (uint32_t) w->version);
	btw_le32(&w->out, UINT32_C(0x50425449));
}

/* BTreeIndexMeta of the file into m (a file of NULLs only: both keys -1) */
BTW_UNUSED static void
btw_meta(const btw_writer *w, btw_buf *m)
{
	uint8_t		has_nulls = w->nnulls > 0;

	if (w->first_key == NULL)
	{
		btw_le32(m, UINT32_MAX);
		btw_le32(m, UINT32_MAX);
	}
	else
	{
		btw_le32(m, (uint32_t) w->first_klen);
		btw_put(m, w->first_key, w->first_klen);
		btw_le32(m, (uint32_t) w->last_klen);
		btw_put(m, w->last_key, w->last_klen);
	}
	btw_put(m, &has_nulls, 1);
}

BTW_UNUSED static void
btw_free(btw_writer *w)
{
	free(w->out.p);
	free(w->data.b.p);
	free(w->data.pos);
	free(w->index.b.p);
	free(w->index.pos);
	free(w->last_key);
	free(w->first_key);
	free(w->nulls);
	memset(w, 0, sizeof(*w));
}

#endif							/* TS_BTREE_WRITE_H */
