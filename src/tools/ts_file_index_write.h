/*
 * ts_file_index_write.h - writing Paimon file indexes (for the fixture
 * generator src/tools/ts_gen.c and the unit test test_range_bitmap.c).
 *
 * Owns: the bytes of a file-index container (FileIndexFormat: magic,
 * version 1, head length, per column its indexes with offset and length,
 * a redundant length of 0, then the bodies; big-endian) and of the bodies of one column:
 * bloom-filter (BloomFilterFileIndex over BloomFilter64: int32 number of
 * hash functions, the bit set as bytes, bit i in byte i / 8; XXH64 of
 * strings, Thomas Wang's hash of integers), bitmap (BitmapFileIndexMeta v1
 * and V2: values with the offsets of their portable Roaring bitmaps, -1 -
 * row for a value of one row; v2 in index blocks, with lengths), bsi (BitSliceIndexBitmapFileIndex: a positive and a
 * negative BitSliceIndexRoaringBitmap) and range-bitmap (RangeBitmap
 * .Appender, ChunkedDictionary.Appender, Fixed/VariableLengthChunk,
 * BitSliceIndexBitmap.Appender), following Java's writers.  A column is a
 * plain view (fiw_col): integers of width 1, 2, 4, 8 or strings, with
 * NULLs.  Allocation failure aborts (tools and tests only).
 */
#ifndef TS_FILE_INDEX_WRITE_H
#define TS_FILE_INDEX_WRITE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "format/fileindex/file_index.h"

#define FIW_UNUSED __attribute__((unused))

/* ---- a byte buffer ------------------------------------------------------ */

typedef struct fiw_buf
{
	uint8_t    *p;
	size_t		len,
				cap;
} fiw_buf;

FIW_UNUSED static void
fiw_put(fiw_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
		{
			fprintf(stderr, "file index writer: out of memory\n");
			abort();
		}
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

FIW_UNUSED static void
fiw_put_be(fiw_buf *b, uint64_t v, int width)
{
	uint8_t		x[8];

	ts_store_be(x, v, width);
	fiw_put(b, x, (size_t) width);
}

FIW_UNUSED static void
fiw_put32(fiw_buf *b, uint32_t v)
{
	fiw_put_be(b, v, 4);
}

FIW_UNUSED static void
fiw_put_u8(fiw_buf *b, uint8_t v)
{
	fiw_put(b, &v, 1);
}

FIW_UNUSED static void
fiw_put_bitmap(fiw_buf *b, const roaring_bitmap_t *r)
{
	size_t		n = roaring_bitmap_portable_size_in_bytes(r);
	char	   *x = malloc(n ? n : 1);

	if (x == NULL || roaring_bitmap_portable_serialize(r, x) != n)
	{
		fprintf(stderr, "file index writer: roaring serialization failed\n");
		abort();
	}
	fiw_put(b, x, n);
	free(x);
}

/* ---- the column ---------------------------------------------------------- */

typedef struct fiw_col
{
	int			width;			/* 1, 2, 4, 8: integers in i[]; -1: strings in s[] */
	int			n;
	const bool *null;
	const int64_t *i;
	const char *const *s;		/* NUL-terminated */
} fiw_col;

/* the order of two rows' values (as Java's TreeMap: unsigned bytes for strings) */
FIW_UNUSED static int
fiw_cmp_rows(const fiw_col *c, int a, int b)
{
	if (c->width > 0)
		return c->i[a] < c->i[b] ? -1 : c->i[a] > c->i[b];
	{
		size_t		la = strlen(c->s[a]),
					lb = strlen(c->s[b]);
		int			r = memcmp(c->s[a], c->s[b], la < lb ? la : lb);

		if (r)
			return r < 0 ? -1 : 1;
		return la < lb ? -1 : la > lb;
	}
}

/* a value as a key: big-endian integer, or int32 length + bytes */
FIW_UNUSED static void
fiw_put_key(fiw_buf *b, const fiw_col *c, int row)
{
	if (c->width > 0)
		fiw_put_be(b, (uint64_t) c->i[row], c->width);
	else
	{
		fiw_put32(b, (uint32_t) strlen(c->s[row]));
		fiw_put(b, c->s[row], strlen(c->s[row]));
	}
}

FIW_UNUSED static size_t
fiw_key_size(const fiw_col *c, int row)
{
	return c->width > 0 ? (size_t) c->width : 4 + strlen(c->s[row]);
}

/*
 * The distinct non-NULL values, sorted, as row numbers of a first
 * occurrence (distinct[], returns their count), and each non-NULL row's
 * rank among them (code[], -1 for NULL).  Both malloc'd by the caller for
 * c->n entries.
 */
FIW_UNUSED static int
fiw_distinct(const fiw_col *c, int *distinct, int *code)
{
	int			nd = 0;

	for (int r = 0; r < c->n; r++)
	{
		int			lo = 0,
					hi = nd;

		if (c->null[r])
			continue;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (fiw_cmp_rows(c, distinct[mid], r) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nd && fiw_cmp_rows(c, distinct[lo], r) == 0)
			continue;
		memmove(&distinct[lo + 1], &distinct[lo], sizeof(int) * (size_t) (nd - lo));
		distinct[lo] = r;
		nd++;
	}
	for (int r = 0; r < c->n; r++)
	{
		int			lo = 0,
					hi = nd;

		code[r] = -1;
		if (c->null[r])
			continue;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (fiw_cmp_rows(c, distinct[mid], r) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		code[r] = lo;
	}
	return nd;
}

/* ---- range bitmap -------------------------------------------------------- */

/* ChunkedDictionary.Appender.serialize over the sorted distinct values */
FIW_UNUSED static void
fiw_dictionary(fiw_buf *out, const fiw_col *c, const int *distinct, int nd, int limit)
{
	fiw_buf		offsets = {0},
				chunks = {0},
				keys = {0};
	int			size = 0;
	uint32_t	chunks_off = 0,
				keys_off = 0;

	for (int d = 0; d < nd;)
	{
		/* a chunk: its key, then what tryAdd takes */
		int			first = d++;
		fiw_buf		ck = {0},
					ko = {0},
					head = {0};
		int			nk = 0;
		size_t		used_keys = 0,
					used_offsets = 0;

		while (d < nd)
		{
			size_t		ks = fiw_key_size(c, distinct[d]);

			if (c->width > 0 ? ks > (size_t) limit - used_keys :
				(ks > (size_t) limit - used_keys || 4 > (size_t) limit - used_offsets))
				break;
			if (c->width < 0)
			{
				fiw_put32(&ko, (uint32_t) used_keys);
				used_offsets += 4;
			}
			fiw_put_key(&ck, c, distinct[d]);
			used_keys += ks;
			nk++;
			d++;
		}
		fiw_put_u8(&head, 1);	/* version */
		fiw_put_key(&head, c, distinct[first]);
		fiw_put32(&head, (uint32_t) first); /* code = rank */
		fiw_put32(&head, keys_off);
		fiw_put32(&head, (uint32_t) nk);
		if (c->width > 0)
		{
			fiw_put32(&head, (uint32_t) ck.len);
			fiw_put32(&head, (uint32_t) c->width);
		}
		else
		{
			fiw_put32(&head, (uint32_t) ko.len);
			fiw_put32(&head, (uint32_t) ck.len);
		}
		fiw_put32(&offsets, chunks_off);
		chunks_off += (uint32_t) head.len;
		fiw_put(&chunks, head.p, head.len);
		fiw_put(&keys, ko.p, ko.len);
		fiw_put(&keys, ck.p, ck.len);
		keys_off += (uint32_t) (ko.len + ck.len);
		size++;
		free(head.p);
		free(ck.p);
		free(ko.p);
	}
	fiw_put32(out, 13);
	fiw_put_u8(out, 1);			/* version */
	fiw_put32(out, (uint32_t) size);
	fiw_put32(out, (uint32_t) offsets.len);
	fiw_put32(out, (uint32_t) chunks.len);
	fiw_put(out, offsets.p, offsets.len);
	fiw_put(out, chunks.p, chunks.len);
	fiw_put(out, keys.p, keys.len);
	free(offsets.p);
	free(chunks.p);
	free(keys.p);
}

/* BitSliceIndexBitmap.Appender(0, nd - 1) of each non-NULL row's code */
FIW_UNUSED static void
fiw_bsi_codes(fiw_buf *out, const fiw_col *c, const int *code, int nd)
{
	int			nslices = 1;
	roaring_bitmap_t *ebm = roaring_bitmap_create();
	roaring_bitmap_t *slices[32];
	fiw_buf		body = {0},
				dir = {0};
	size_t		ebm_len;

	while (nd - 1 >= (1 << nslices))
		nslices++;
	for (int i = 0; i < nslices; i++)
		slices[i] = roaring_bitmap_create();
	for (int r = 0; r < c->n; r++)
	{
		if (c->null[r])
			continue;
		roaring_bitmap_add(ebm, (uint32_t) r);
		for (int i = 0; i < nslices; i++)
			if ((code[r] >> i) & 1)
				roaring_bitmap_add(slices[i], (uint32_t) r);
	}
	fiw_put_bitmap(&body, ebm);
	ebm_len = body.len;
	for (int i = 0; i < nslices; i++)
	{
		size_t		before = body.len;

		fiw_put_bitmap(&body, slices[i]);
		fiw_put32(&dir, (uint32_t) (before - ebm_len));
		fiw_put32(&dir, (uint32_t) (body.len - before));
	}
	fiw_put32(out, (uint32_t) (1 + 1 + 4 + 4 + dir.len));
	fiw_put_u8(out, 1);
	fiw_put_u8(out, (uint8_t) nslices);
	fiw_put32(out, (uint32_t) ebm_len);
	fiw_put32(out, (uint32_t) dir.len);
	fiw_put(out, dir.p, dir.len);
	fiw_put(out, body.p, body.len);
	roaring_bitmap_free(ebm);
	for (int i = 0; i < nslices; i++)
		roaring_bitmap_free(slices[i]);
	free(body.p);
	free(dir.p);
}

/* RangeBitmap.Appender.serialize; limit: the dictionary's chunk size in bytes */
FIW_UNUSED static void
fiw_range_bitmap(fiw_buf *out, const fiw_col *c, int limit)
{
	int		   *distinct = malloc(sizeof(int) * (size_t) (c->n + 1));
	int		   *code = malloc(sizeof(int) * (size_t) (c->n + 1));
	int			nd;
	fiw_buf		dict = {0},
				head = {0};

	if (distinct == NULL || code == NULL)
		abort();
	nd = fiw_distinct(c, distinct, code);
	fiw_put_u8(&head, 1);		/* version */
	fiw_put32(&head, (uint32_t) c->n);
	fiw_put32(&head, (uint32_t) nd);
	if (nd > 0)
	{
		fiw_put_key(&head, c, distinct[0]);
		fiw_put_key(&head, c, distinct[nd - 1]);
		fiw_dictionary(&dict, c, distinct, nd, limit);
	}
	fiw_put32(&head, (uint32_t) dict.len);
	fiw_put32(out, (uint32_t) head.len);
	fiw_put(out, head.p, head.len);
	fiw_put(out, dict.p, dict.len);
	if (nd > 0)
		fiw_bsi_codes(out, c, code, nd);
	else
	{
		/* Java writes a BSI of no rows here; the reader never looks at it */
		fiw_col		empty = {.width = c->width, .n = 0};

		fiw_bsi_codes(out, &empty, code, 1);
	}
	free(dict.p);
	free(head.p);
	free(distinct);
	free(code);
}

/* ---- bitmap (BitmapFileIndexMeta v1, BitmapFileIndexMetaV2) -------------- */

/*
 * The bitmap index of column c, version 1 or 2 (Java's default).  Both:
 * version byte, int32 row count, int32 distinct non-NULL values, a NULL
 * flag (then int32 the NULL bitmap's offset, 0 or -1 - row for one NULL
 * row; v2: and int32 the NULL bitmap's serialized length, even for one
 * row), then the meta, then the body: the NULL bitmap (more than one
 * row), then the values' bitmaps (portable Roaring), a value of one row
 * stored as offset -1 - row without a bitmap.  v1 meta: every value with
 * its offset.  v2 meta (BitmapFileIndexMetaV2.serialize): the values in
 * order with offset and length (-1 for one row) cut into index blocks of
 * at most block_limit bytes (int32 entry count + per entry 8 bytes + the
 * key; Java's index-block-size, 16 KiB by default); int32 block count,
 * per block its first key and its offset from the first block, int32 the
 * blocks' total length, then each block (int32 entry count, entries key,
 * int32 offset, int32 length).  Java's writer keeps the values' bitmaps in
 * HashMap order; here they are in value order (offsets and lengths name
 * them either way).
 */
FIW_UNUSED static void
fiw_bitmap(fiw_buf *out, const fiw_col *c, int version, int block_limit)
{
	int		   *distinct = malloc(sizeof(int) * (size_t) (c->n + 1));
	int		   *code = malloc(sizeof(int) * (size_t) (c->n + 1));
	int			nd;
	roaring_bitmap_t *nulls = roaring_bitmap_create();
	roaring_bitmap_t **bm;
	fiw_buf		body = {0};
	int32_t		null_offset = 0;
	int32_t    *offset,
			   *length;

	if (distinct == NULL || code == NULL)
		abort();
	nd = fiw_distinct(c, distinct, code);
	bm = calloc((size_t) (nd + 1), sizeof(*bm));
	offset = calloc((size_t) (nd + 1), sizeof(*offset));
	length = calloc((size_t) (nd + 1), sizeof(*length));
	if (bm == NULL || offset == NULL || length == NULL)
		abort();
	for (int d = 0; d < nd; d++)
		bm[d] = roaring_bitmap_create();
	for (int r = 0; r < c->n; r++)
		roaring_bitmap_add(c->null[r] ? nulls : bm[code[r]], (uint32_t) r);
	/* the bitmaps: the NULLs' first, then the values'; one row: -1 - row */
	if (roaring_bitmap_get_cardinality(nulls) == 1)
		null_offset = -1 - (int32_t) roaring_bitmap_minimum(nulls);
	else if (!roaring_bitmap_is_empty(nulls))
	{
		null_offset = (int32_t) body.len;
		fiw_put_bitmap(&body, nulls);
	}
	for (int d = 0; d < nd; d++)
	{
		if (roaring_bitmap_get_cardinality(bm[d]) == 1)
		{
			offset[d] = -1 - (int32_t) roaring_bitmap_minimum(bm[d]);
			length[d] = -1;
		}
		else
		{
			offset[d] = (int32_t) body.len;
			fiw_put_bitmap(&body, bm[d]);
			length[d] = (int32_t) (body.len - (size_t) offset[d]);
		}
	}
	fiw_put_u8(out, (uint8_t) version);
	fiw_put32(out, (uint32_t) c->n);
	fiw_put32(out, (uint32_t) nd);
	fiw_put_u8(out, !roaring_bitmap_is_empty(nulls));
	if (!roaring_bitmap_is_empty(nulls))
	{
		fiw_put32(out, (uint32_t) null_offset);
		if (version == 2)
			fiw_put32(out, (uint32_t) roaring_bitmap_portable_size_in_bytes(nulls));
	}
	if (version == 1)
		for (int d = 0; d < nd; d++)
		{
			fiw_put_key(out, c, distinct[d]);
			fiw_put32(out, (uint32_t) offset[d]);
		}
	else
	{
		/* index blocks: [first, first + count) of the values, their bytes */
		int		   *first = malloc(sizeof(int) * (size_t) (nd + 1));
		int		   *count = malloc(sizeof(int) * (size_t) (nd + 1));
		int32_t    *bytes = malloc(sizeof(int32_t) * (size_t) (nd + 1));
		int			nb = 0;
		int32_t		total = 0,
					boff = 0;

		if (first == NULL || count == NULL || bytes == NULL)
			abort();
		for (int d = 0; d < nd; d++)
		{
			int32_t		eb = 8 + (int32_t) fiw_key_size(c, distinct[d]);

			if (nb == 0 || bytes[nb - 1] + eb > block_limit)
			{
				if (4 + eb > block_limit)
				{
					fprintf(stderr, "bitmap index: a value does not fit an index block of %d bytes\n",
							block_limit);
					abort();
				}
				first[nb] = d;
				count[nb] = 0;
				bytes[nb++] = 4;
			}
			count[nb - 1]++;
			bytes[nb - 1] += eb;
		}
		fiw_put32(out, (uint32_t) nb);
		for (int b = 0; b < nb; b++)
		{
			fiw_put_key(out, c, distinct[first[b]]);
			fiw_put32(out, (uint32_t) boff);
			boff += bytes[b];
			total += bytes[b];
		}
		fiw_put32(out, (uint32_t) total);
		for (int b = 0; b < nb; b++)
		{
			fiw_put32(out, (uint32_t) count[b]);
			for (int d = first[b]; d < first[b] + count[b]; d++)
			{
				fiw_put_key(out, c, distinct[d]);
				fiw_put32(out, (uint32_t) offset[d]);
				fiw_put32(out, (uint32_t) length[d]);
			}
		}
		free(first);
		free(count);
		free(bytes);
	}
	fiw_put(out, body.p, body.len);
	for (int d = 0; d < nd; d++)
		roaring_bitmap_free(bm[d]);
	roaring_bitmap_free(nulls);
	free(bm);
	free(offset);
	free(length);
	free(body.p);
	free(distinct);
	free(code);
}

FIW_UNUSED static void
fiw_bitmap_v1(fiw_buf *out, const fiw_col *c)
{
	fiw_bitmap(out, c, 1, 0);
}

/* ---- BSI (BitSliceIndexBitmapFileIndex) ---------------------------------- */

/*
 * One BitSliceIndexRoaringBitmap of the rows of one sign, by absolute
 * value; min is 0, as in the parts Java writes (../shared's append_with_bsi:
 * values 20 .. 500 stored with min 0, max 500).
 */
static void
fiw_bsi_part(fiw_buf *out, const fiw_col *c, bool negative)
{
	int64_t		min = 0,
				max = 0;
	int			nslices = 1;
	roaring_bitmap_t *ebm = roaring_bitmap_create();
	roaring_bitmap_t *slices[64];

	for (int r = 0; r < c->n; r++)
	{
		int64_t		v;

		if (c->null[r] || (c->i[r] < 0) != negative)
			continue;
		v = negative ? -c->i[r] : c->i[r];
		if (v > max)
			max = v;
	}
	while (nslices < 63 && (uint64_t) (max - min) >> nslices)
		nslices++;
	for (int i = 0; i < nslices; i++)
		slices[i] = roaring_bitmap_create();
	for (int r = 0; r < c->n; r++)
	{
		uint64_t	v;

		if (c->null[r] || (c->i[r] < 0) != negative)
			continue;
		v = (uint64_t) ((negative ? -c->i[r] : c->i[r]) - min);
		roaring_bitmap_add(ebm, (uint32_t) r);
		for (int i = 0; i < nslices; i++)
			if ((v >> i) & 1)
				roaring_bitmap_add(slices[i], (uint32_t) r);
	}
	fiw_put_u8(out, 1);			/* version */
	fiw_put_be(out, (uint64_t) min, 8);
	fiw_put_be(out, (uint64_t) max, 8);
	fiw_put_bitmap(out, ebm);
	fiw_put32(out, (uint32_t) nslices);
	for (int i = 0; i < nslices; i++)
	{
		fiw_put_bitmap(out, slices[i]);
		roaring_bitmap_free(slices[i]);
	}
	roaring_bitmap_free(ebm);
}

FIW_UNUSED static void
fiw_bsi(fiw_buf *out, const fiw_col *c)
{
	bool		pos = false,
				neg = false;

	for (int r = 0; r < c->n; r++)
		if (!c->null[r])
		{
			if (c->i[r] < 0)
				neg = true;
			else
				pos = true;
		}
	fiw_put_u8(out, 1);			/* version */
	fiw_put32(out, (uint32_t) c->n);
	fiw_put_u8(out, pos);
	if (pos)
		fiw_bsi_part(out, c, false);
	fiw_put_u8(out, neg);
	if (neg)
		fiw_bsi_part(out, c, true);
}

/* ---- bloom filter (BloomFilterFileIndex, BloomFilter64) ------------------ */

/*
 * items and fpp as file-index.bloom-filter.<column>.items / .fpp: bits
 * -items * ln(fpp) / ln(2)^2 in whole bytes (Java's BitSet keeps
 * ceil(bits / 8) bytes and probes modulo all their bits), hash functions
 * round(bits / items * ln 2), at least 1 (as a Java-written table of
 * ../shared shows: 1000000 items, fpp 0.1: 599067 bytes, 3 functions).
 */
FIW_UNUSED static void
fiw_bloom(fiw_buf *out, const fiw_col *c, int64_t items, double fpp)
{
	int64_t		nbits;
	int32_t		nhash;
	uint32_t	nbytes,
				bitsize;
	uint8_t    *bits;

	if (items < 1)
		items = 1;
	nbits = (int64_t) (-(double) items * log(fpp) / (log(2) * log(2)));
	nhash = (int32_t) lround((double) nbits / (double) items * log(2));
	if (nhash < 1)
		nhash = 1;
	nbytes = (uint32_t) ((nbits + 7) / 8);
	if (nbytes == 0)
		nbytes = 1;
	bitsize = nbytes * 8;
	bits = calloc(nbytes, 1);
	if (bits == NULL)
		abort();
	for (int r = 0; r < c->n; r++)
	{
		uint64_t	hash;
		int32_t		h1,
					h2;

		if (c->null[r])
			continue;
		hash = c->width > 0 ? (uint64_t) ts_thomas_wang_hash64(c->i[r]) :
			ts_xxh64(c->s[r], strlen(c->s[r]), 0);
		h1 = (int32_t) (uint32_t) hash;
		h2 = (int32_t) (uint32_t) (hash >> 32);
		for (int32_t i = 1; i <= nhash; i++)
		{
			int32_t		combined = (int32_t) ((uint32_t) h1 + (uint32_t) i * (uint32_t) h2);
			uint32_t	pos;

			if (combined < 0)
				combined = ~combined;
			pos = (uint32_t) combined % bitsize;
			bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
		}
	}
	fiw_put32(out, (uint32_t) nhash);
	fiw_put(out, bits, nbytes);
	free(bits);
}

/* ---- the container (FileIndexFormat.Writer) ------------------------------ */

/* one index of one column: its kind ("bloom-filter", "bitmap", ...) and body */
typedef struct fiw_index
{
	const char *column;
	const char *kind;
	fiw_buf		body;
} fiw_index;

/*
 * The container of n indexes; those of one column are listed together
 * under the column's first appearance, in the given order.
 */
FIW_UNUSED static void
fiw_container(fiw_buf *out, const fiw_index *ix, int n)
{
	fiw_buf		h = {0};
	size_t		head_len;
	int			ncols = 0;
	size_t		off_pos[64];
	size_t		body_off;

	if (n > 64)
		abort();
	for (int k = 0; k < n; k++)
	{
		bool		seen = false;

		for (int j = 0; j < k; j++)
			seen |= strcmp(ix[j].column, ix[k].column) == 0;
		ncols += !seen;
	}
	fiw_put32(&h, (uint32_t) ncols);
	for (int k = 0; k < n; k++)
	{
		bool		seen = false;
		int			nidx = 0;

		for (int j = 0; j < k; j++)
			seen |= strcmp(ix[j].column, ix[k].column) == 0;
		if (seen)
			continue;
		for (int j = k; j < n; j++)
			nidx += strcmp(ix[j].column, ix[k].column) == 0;
		fiw_put_be(&h, strlen(ix[k].column), 2);
		fiw_put(&h, ix[k].column, strlen(ix[k].column));
		fiw_put32(&h, (uint32_t) nidx);
		for (int j = k; j < n; j++)
		{
			if (strcmp(ix[j].column, ix[k].column) != 0)
				continue;
			fiw_put_be(&h, strlen(ix[j].kind), 2);
			fiw_put(&h, ix[j].kind, strlen(ix[j].kind));
			off_pos[j] = h.len;
			fiw_put32(&h, 0);	/* offset, below */
			fiw_put32(&h, (uint32_t) ix[j].body.len);
		}
	}
	fiw_put32(&h, 0);			/* redundant length: none */
	head_len = 16 + h.len;
	body_off = head_len;
	/* bodies in head order: patch the offsets */
	{
		int			order[64],
					no = 0;

		for (int k = 0; k < n; k++)
		{
			bool		seen = false;

			for (int j = 0; j < k; j++)
				seen |= strcmp(ix[j].column, ix[k].column) == 0;
			if (seen)
				continue;
			for (int j = k; j < n; j++)
				if (strcmp(ix[j].column, ix[k].column) == 0)
					order[no++] = j;
		}
		for (int q = 0; q < no; q++)
		{
			uint32_t	o = (uint32_t) body_off;

			ts_store_be32(h.p + off_pos[order[q]], o);
			body_off += ix[order[q]].body.len;
		}
		fiw_put_be(out, (uint64_t) TS_FILE_INDEX_MAGIC, 8);
		fiw_put32(out, 1);		/* version */
		fiw_put32(out, (uint32_t) head_len);
		fiw_put(out, h.p, h.len);
		for (int q = 0; q < no; q++)
			fiw_put(out, ix[order[q]].body.p, ix[order[q]].body.len);
	}
	free(h.p);
}

#endif							/* TS_FILE_INDEX_WRITE_H */
