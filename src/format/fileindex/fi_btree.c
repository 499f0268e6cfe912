/*
 * fi_btree.c - the btree global index (Paimon's BTreeGlobalIndexer,
 * index/btree-global-index-<uuid>.index): one predicate leaf on one file,
 * read block by block through a ts_gi_source (global_index.h).
 *
 * Owns: the file's layout as Java's BTreeIndexWriter / SstFileWriter /
 * BlockWriter write it (all integers little-endian, "varint" = unsigned
 * LEB128 as VarLengthIntUtils):
 *
 *   data blocks, [null bitmap + CRC32], index block, footer (52 bytes)
 *   footer:  bloom filter (i64 offset, i32 size, i64 expected entries;
 *            all 0 = none), index block (i64 offset, i32 size), null bitmap
 *            (i64 offset, i32 size; 0/0 = none), i32 version, i32 magic
 *            0x50425449
 *   block:   <size> bytes then a 5-byte trailer: compression (0 none,
 *            1 zstd: varint uncompressed length + zstd stream, 2 lz4, 3 lzo)
 *            and the CRC32 of the stored bytes followed by that byte.
 *            Uncompressed: entries (varint key length, key, varint value
 *            length, value), then either i32 entry size + byte 0 (aligned:
 *            every entry the same size) or i32 entry offsets, i32 count +
 *            byte 1 (unaligned)
 *   index:   one entry per data block: the block's last key -> varint
 *            offset, varint size
 *   data:    key -> the key's row ids (local: 0 = the row range's start);
 *            version 1: varint count + count varint row ids; version 2
 *            (BTreePostingList): byte 0 + varint row id, byte 1 + varint
 *            count + first row id + positive varint deltas, or byte 2 + a
 *            portable 64-bit Roaring bitmap (u64 count, then u32 high key
 *            + 32-bit portable bitmap each)
 *   keys:    KeySerializer: TINYINT 1 byte, SMALLINT 2, INT / DATE / TIME
 *            4, BIGINT and DECIMAL(p <= 18) unscaled 8, TIMESTAMP(_LTZ)
 *            8 bytes of milliseconds (+ varint nanos of the millisecond
 *            when precision > 3), strings their UTF-8 bytes (ordered as
 *            unsigned bytes, then length), BOOLEAN 1 byte.
 *
 * Null bitmap: <size> bytes (the footer's handle) of a portable 64-bit
 * Roaring bitmap (as in a posting list) of the local row ids whose key is
 * NULL, then the CRC32 of those bytes (u32, outside the handle's size);
 * written only when some key was NULL.
 *
 * Used for =, IN, <, <=, >, >= and STARTS_WITH on those types except CHAR
 * (stored padded), FLOAT / DOUBLE (Java orders -0.0 before 0.0, SQL finds
 * them equal), DECIMAL(p > 18) and TIMESTAMP(7..9) (PostgreSQL compares
 * microseconds); IS NULL on any type (the null bitmap; none = no NULL
 * row); and, when the source knows its row range's row count, IS NOT NULL
 * (any type), <> and NOT IN
 * as the range's rows less the NULL ones and the literals' rows (no block
 * but the literals' is read; NOT IN with a NULL literal is not used).
 * Anything else, a later version, LZ4 / LZO blocks and row ids beyond 32
 * bits allow every row (the index is not used); so do files with the
 * earlier footer of Java's sources (48 bytes: the same handles, then
 * magic 198732882, no version), whose row ids may not be local ones.
 * Bytes that do not decode, a null bitmap whose CRC does not match, are
 * TS_ERR_CORRUPT.  The bloom filter is not read; neither is the file's
 * meta in the index manifest.  Memory: the index block and one data block
 * at a time, or the null bitmap.
 */
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/ts_bytes.h"
#include "format/fileindex/fi_internal.h"
#include "format/fileindex/global_index.h"

#define BT_FOOTER_LEN 52
#define BT_MAGIC UINT32_C(0x50425449)
#define BT_MAGIC_V0 UINT32_C(198732882)	/* the footer before versions */
#define BT_TRAILER_LEN 5

/* One varint of at most bits bits at *p (< end); false when malformed. */
static bool
varint(const uint8_t **p, const uint8_t *end, int bits, uint64_t *out)
{
	uint64_t	v = 0;

	for (int shift = 0; shift < bits; shift += 7)
	{
		uint64_t	b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		if (bits - shift < 7 && (b & 0x7f) >> (bits - shift) != 0)
			return false;		/* overflows the type */
		v |= (b & 0x7f) << shift;
		if ((b & 0x80) == 0)
		{
			*out = v;
			return true;
		}
	}
	return false;
}

/* ---- keys --------------------------------------------------------------- */

typedef enum bt_kind
{
	BK_NONE, BK_INT, BK_TS, BK_BYTES
} bt_kind;

typedef struct bt_key
{
	int64_t		a;				/* integer, millisecond */
	int32_t		b;				/* nanos of the millisecond */
	const uint8_t *s;			/* BK_BYTES */
	size_t		len;
} bt_key;

typedef struct bt_type
{
	bt_kind		kind;
	int			width;			/* BK_INT: bytes */
	bool		nanos;			/* BK_TS: a varint of nanos follows */
} bt_type;

static bt_type
key_type(const ts_type *t)
{
	bt_type		k = {BK_NONE, 0, false};

	switch (t->kind)
	{
		case TS_BOOLEAN:
		case TS_TINYINT:
			k = (bt_type) {BK_INT, 1, false};
			break;
		case TS_SMALLINT:
			k = (bt_type) {BK_INT, 2, false};
			break;
		case TS_INT:
		case TS_DATE:
		case TS_TIME:
			k = (bt_type) {BK_INT, 4, false};
			break;
		case TS_BIGINT:
			k = (bt_type) {BK_INT, 8, false};
			break;
		case TS_DECIMAL:
			if (t->precision <= 18)
				k = (bt_type) {BK_INT, 8, false};
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision <= 6)
				k = (bt_type) {BK_TS, 8, t->precision > 3};
			break;
		case TS_VARCHAR:
			k = (bt_type) {BK_BYTES, 0, false};
			break;
		default:
			break;
	}
	return k;
}

/* Decode a stored key; false when its bytes do not fit the type. */
static bool
key_decode(const bt_type *k, const uint8_t *p, size_t len, bt_key *out)
{
	memset(out, 0, sizeof(*out));
	switch (k->kind)
	{
		case BK_INT:
			if (len != (size_t) k->width)
				return false;
			switch (k->width)
			{
				case 1:
					out->a = (int8_t) p[0];
					break;
				case 2:
					out->a = (int16_t) ts_load_le16(p);
					break;
				case 4:
					out->a = (int32_t) ts_load_le32(p);
					break;
				default:
					out->a = (int64_t) ts_load_le64(p);
					break;
			}
			return true;
		case BK_TS:
			{
				const uint8_t *q = p + 8,
						   *end = p + len;
				uint64_t	n = 0;

				if (len < 8)
					return false;
				out->a = (int64_t) ts_load_le64(p);
				if (k->nanos && (!varint(&q, end, 32, &n) || n > 999999))
					return false;
				if (q != end)
					return false;
				out->b = (int32_t) n;
				return true;
			}
		case BK_BYTES:
			out->s = p;
			out->len = len;
			return true;
		default:
			return false;
	}
}

/* A literal as a key; false when it cannot be one exactly. */
static bool
key_literal(const bt_type *k, const ts_type *t, const ts_predicate *p, const ts_value *lit,
			bt_key *out)
{
	memset(out, 0, sizeof(*out));
	if (!ts_predicate_literal_usable(t, p, lit))
		return false;
	switch (k->kind)
	{
		case BK_INT:
			if (t->kind == TS_DECIMAL)
			{
				if (lit->v.dec > INT64_MAX || lit->v.dec < INT64_MIN)
					return false;
				out->a = (int64_t) lit->v.dec;
			}
			else
				out->a = lit->v.i;
			return true;
		case BK_TS:
			out->a = lit->v.ts.millis;
			out->b = lit->v.ts.nanos;
			return true;
		case BK_BYTES:
			out->s = lit->v.s.p;
			out->len = lit->v.s.len;
			return true;
		default:
			return false;
	}
}

static int
key_cmp(const bt_type *k, const bt_key *x, const bt_key *y)
{
	if (k->kind == BK_BYTES)
	{
		size_t		n = x->len < y->len ? x->len : y->len;
		int			c = n ? memcmp(x->s, y->s, n) : 0;

		if (c != 0)
			return c < 0 ? -1 : 1;
		return x->len < y->len ? -1 : x->len > y->len;
	}
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* ---- blocks ------------------------------------------------------------- */

typedef struct bt_file
{
	const ts_gi_source *src;
	int64_t		blocks_end;		/* where the footer starts */
	int			version;
} bt_file;

typedef struct bt_block
{
	uint8_t    *raw;			/* as read (owned) */
	uint8_t    *plain;			/* decompressed (owned), or NULL */
	const uint8_t *kv;			/* entries */
	size_t		kv_len;
	int32_t		count;
	int32_t		entry_size;		/* aligned: > 0 */
	const uint8_t *positions;	/* unaligned: count i32 offsets */
} bt_block;

static void
block_free(bt_block *b)
{
	ts_free(b->raw);
	ts_free(b->plain);
	memset(b, 0, sizeof(*b));
}

/*
 * Read the block at offset / size: *unread = true (and no block) when it
 * is compressed with a codec not read here.
 */
static bool
block_read(bt_file *f, int64_t offset, int64_t size, bt_block *b, bool *unread, ts_err *err)
{
	const uint8_t *data,
			   *tail;
	size_t		len;
	uint32_t	crc;
	uint8_t		type;
	int32_t		last;

	memset(b, 0, sizeof(*b));
	*unread = false;
	if (offset < 0 || size < 0 || offset > f->blocks_end ||
		size > f->blocks_end - offset - BT_TRAILER_LEN)
		return ts_error(err, TS_ERR_CORRUPT,
						"btree index: block at %lld of %lld bytes outside the file",
						(long long) offset, (long long) size);
	b->raw = ts_malloc((size_t) size + BT_TRAILER_LEN);
	if (b->raw == NULL)
		return ts_error_nomem(err, "btree index block");
	if (!f->src->read(f->src->arg, b->raw, (size_t) size + BT_TRAILER_LEN, offset, err))
	{
		block_free(b);
		return false;
	}
	type = b->raw[size];
	crc = (uint32_t) crc32(0L, b->raw, (uInt) size);
	crc = (uint32_t) crc32(crc, &type, 1);
	if (crc != ts_load_le32(b->raw + size + 1))
	{
		block_free(b);
		return ts_error(err, TS_ERR_CORRUPT, "btree index: checksum mismatch in block at %lld",
						(long long) offset);
	}
	data = b->raw;
	len = (size_t) size;
	if (type == 1)
	{
		const uint8_t *p = b->raw,
				   *end = b->raw + size;
		uint64_t	ulen;
		ZSTD_DCtx  *dctx;
		size_t		got;

		if (!varint(&p, end, 31, &ulen) || ulen < BT_TRAILER_LEN)
		{
			block_free(b);
			return ts_error(err, TS_ERR_CORRUPT, "btree index: bad length of block at %lld",
							(long long) offset);
		}
		/* no zstd stream expands a byte into more than 32 KiB; no block is 1 GiB */
		if (ulen > (uint64_t) (end - p) * 32768 + 1024 || ulen > (UINT64_C(1) << 30))
		{
			block_free(b);
			return ts_error(err, TS_ERR_CORRUPT, "btree index: block at %lld claims %llu bytes",
							(long long) offset, (unsigned long long) ulen);
		}
		b->plain = ts_malloc((size_t) ulen);
		dctx = ts_zstd_dctx_create();
		if (b->plain == NULL || dctx == NULL)
		{
			if (dctx)
				ZSTD_freeDCtx(dctx);
			block_free(b);
			return ts_error_nomem(err, "btree index block");
		}
		got = ZSTD_decompressDCtx(dctx, b->plain, (size_t) ulen, p, (size_t) (end - p));
		ZSTD_freeDCtx(dctx);
		if (ZSTD_isError(got) || got != ulen)
		{
			block_free(b);
			return ts_error(err, TS_ERR_CORRUPT, "btree index: block at %lld does not decompress",
							(long long) offset);
		}
		data = b->plain;
		len = (size_t) ulen;
	}
	else if (type == 2 || type == 3)
	{
		block_free(b);
		*unread = true;			/* LZ4, LZO: not read here */
		return true;
	}
	else if (type != 0)
	{
		block_free(b);
		return ts_error(err, TS_ERR_CORRUPT, "btree index: unknown compression %d of block at %lld",
						type, (long long) offset);
	}
	if (len < 5)
		goto corrupt;
	tail = data + len - 5;
	last = (int32_t) ts_load_le32(tail);
	if (tail[4] == 0)
	{
		/* aligned: every entry last bytes long */
		if (last <= 0 || (len - 5) % (size_t) last != 0 || (len - 5) / (size_t) last > INT32_MAX)
			goto corrupt;
		b->entry_size = last;
		b->kv_len = len - 5;
		b->count = (int32_t) (b->kv_len / (size_t) last);
	}
	else if (tail[4] == 1)
	{
		if (last < 0 || (size_t) last > (len - 5) / 4)
			goto corrupt;
		b->count = last;
		b->kv_len = len - 5 - (size_t) last * 4;
		b->positions = data + b->kv_len;
	}
	else
		goto corrupt;
	b->kv = data;
	return true;

corrupt:
	block_free(b);
	return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed block at %lld", (long long) offset);
}

/* Entry i of block b. */
static bool
block_entry(const bt_block *b, int32_t i, const uint8_t **key, size_t *klen,
			const uint8_t **val, size_t *vlen, ts_err *err)
{
	size_t		pos = b->entry_size > 0 ? (size_t) i * (size_t) b->entry_size : ts_load_le32(b->positions + 4 * (size_t) i);
	const uint8_t *p = b->kv + pos,
			   *end = b->kv + b->kv_len;
	uint64_t	n;

	if (pos >= b->kv_len)
		return ts_error(err, TS_ERR_CORRUPT, "btree index: entry %d outside its block", i);
	if (!varint(&p, end, 31, &n) || n > (uint64_t) (end - p))
		return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed key of entry %d", i);
	*key = p;
	*klen = (size_t) n;
	p += n;
	if (!varint(&p, end, 31, &n) || n > (uint64_t) (end - p))
		return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed value of entry %d", i);
	*val = p;
	*vlen = (size_t) n;
	return true;
}

/* ---- row ids ------------------------------------------------------------- */

/* Add one row id; *wide = true for one beyond 32 bits (then ignored). */
static void
add_row(roaring_bitmap_t *rows, uint64_t id, bool *wide)
{
	if (id > UINT32_MAX)
		*wide = true;
	else
		roaring_bitmap_add(rows, (uint32_t) id);
}

/*
 * A portable 64-bit Roaring bitmap (Java's Roaring64NavigableMap
 * .serializePortable: u64 count, then per 32-bit high key a u32 high key
 * + a portable 32-bit bitmap, keys ascending) at p, OR-ed into rows; ids
 * beyond 32 bits set *wide instead.  *used = its bytes.  Empty bitmaps
 * (no keys, an empty key) are corrupt unless allow_empty.
 */
static bool
roaring64_read(const uint8_t *p, size_t len, bool allow_empty, roaring_bitmap_t *rows,
			   bool *wide, size_t *used, ts_err *err)
{
	const uint8_t *start = p,
			   *end = p + len;
	uint64_t	nb;
	int64_t		prev = -1;

	if (len < 8)
		goto corrupt;
	nb = ts_load_le64(p);
	p += 8;
	if ((nb == 0 && !allow_empty) || nb > (uint64_t) (end - p) / 4)
		goto corrupt;
	for (uint64_t i = 0; i < nb; i++)
	{
		uint32_t	high;
		size_t		n = 0;
		roaring_bitmap_t *b;

		if (end - p < 4)
			goto corrupt;
		high = ts_load_le32(p);
		p += 4;
		if (high > INT32_MAX || (int64_t) high <= prev)
			goto corrupt;
		prev = high;
		b = fi_read_roaring(p, (size_t) (end - p), &n, err);
		if (b == NULL)
			return false;
		p += n;
		if (roaring_bitmap_is_empty(b) && !allow_empty)
		{
			roaring_bitmap_free(b);
			goto corrupt;
		}
		if (high != 0)
			*wide = true;
		else
			roaring_bitmap_or_inplace(rows, b);
		roaring_bitmap_free(b);
	}
	*used = (size_t) (p - start);
	return true;

corrupt:
	return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed row ids");
}

static bool
posting_add(int version, const uint8_t *p, size_t len, roaring_bitmap_t *rows, bool *wide,
			ts_err *err)
{
	const uint8_t *end = p + len;
	uint64_t	n,
				id,
				d;

	if (version == 1)
	{
		if (!varint(&p, end, 31, &n) || n == 0 || n > (uint64_t) (end - p))
			goto corrupt;
		for (uint64_t i = 0; i < n; i++)
		{
			if (!varint(&p, end, 63, &id))
				goto corrupt;
			add_row(rows, id, wide);
		}
		return p == end ? true : ts_error(err, TS_ERR_CORRUPT, "btree index: trailing bytes after row ids");
	}
	if (p >= end)
		goto corrupt;
	switch (*p++)
	{
		case 0:
			if (!varint(&p, end, 63, &id))
				goto corrupt;
			add_row(rows, id, wide);
			break;
		case 1:
			if (!varint(&p, end, 31, &n) || n < 2 || n > (uint64_t) (end - p) ||
				!varint(&p, end, 63, &id))
				goto corrupt;
			add_row(rows, id, wide);
			for (uint64_t i = 1; i < n; i++)
			{
				if (!varint(&p, end, 63, &d) || d == 0 || d > (uint64_t) INT64_MAX - id)
					goto corrupt;
				id += d;
				add_row(rows, id, wide);
			}
			break;
		case 2:
			{
				size_t		used = 0;

				if (!roaring64_read(p, (size_t) (end - p), false, rows, wide, &used, err))
					return false;
				p += used;
				break;
			}
		default:
			goto corrupt;
	}
	if (p != end)
		goto corrupt;
	return true;

corrupt:
	return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed row ids");
}

/* ---- ranges --------------------------------------------------------------- */

typedef struct bt_range
{
	bool		has_lo,
				lo_incl,
				has_hi,
				hi_incl;
	bt_key		lo,
				hi;
	uint8_t    *hi_buf;			/* owned bytes of hi (a prefix's successor) */
} bt_range;

static bool
below(const bt_type *k, const bt_range *r, const bt_key *x)
{
	int			c;

	if (!r->has_lo)
		return false;
	c = key_cmp(k, x, &r->lo);
	return c < 0 || (c == 0 && !r->lo_incl);
}

static bool
above(const bt_type *k, const bt_range *r, const bt_key *x)
{
	int			c;

	if (!r->has_hi)
		return false;
	c = key_cmp(k, x, &r->hi);
	return c > 0 || (c == 0 && !r->hi_incl);
}

/*
 * Add the row ids of the keys in r.  The index block's keys are the last
 * keys of the data blocks: only the blocks from the first whose last key
 * is not below r are read, up to the first whose last key reaches r's end.
 */
static bool
range_rows(bt_file *f, const bt_block *index, const bt_type *k, const bt_range *r,
		   roaring_bitmap_t *rows, bool *wide, bool *unread, ts_err *err)
{
	bool		have_prev = false;
	bt_key		prev;

	for (int32_t i = 0; i < index->count; i++)
	{
		const uint8_t *ikey,
				   *ival,
				   *p,
				   *end;
		size_t		iklen,
					ivlen;
		bt_key		last;
		uint64_t	off,
					size;
		bt_block	b;

		if (!TS_CHECK_INTERRUPTS(err))
			return false;
		if (!block_entry(index, i, &ikey, &iklen, &ival, &ivlen, err))
			return false;
		if (!key_decode(k, ikey, iklen, &last))
			return ts_error(err, TS_ERR_CORRUPT, "btree index: index key %d does not fit the column type", i);
		if (below(k, r, &last))
			continue;
		p = ival;
		end = ival + ivlen;
		if (!varint(&p, end, 63, &off) || !varint(&p, end, 31, &size) || p != end)
			return ts_error(err, TS_ERR_CORRUPT, "btree index: malformed block handle %d", i);
		if (!block_read(f, (int64_t) off, (int64_t) size, &b, unread, err))
			return false;
		if (*unread)
			return true;
		for (int32_t j = 0; j < b.count; j++)
		{
			const uint8_t *key,
					   *val;
			size_t		klen,
						vlen;
			bt_key		x;

			if (!block_entry(&b, j, &key, &klen, &val, &vlen, err))
			{
				block_free(&b);
				return false;
			}
			if (!key_decode(k, key, klen, &x) || (have_prev && key_cmp(k, &prev, &x) >= 0) ||
				key_cmp(k, &x, &last) > 0)
			{
				block_free(&b);
				return ts_error(err, TS_ERR_CORRUPT, "btree index: keys out of order in block %d", i);
			}
			/* x points into b: compared with the next key of the same block only */
			prev = x;
			have_prev = true;
			if (below(k, r, &x))
				continue;
			if (above(k, r, &x))
			{
				block_free(&b);
				return true;
			}
			if (!posting_add(f->version, val, vlen, rows, wide, err))
			{
				block_free(&b);
				return false;
			}
		}
		block_free(&b);
		have_prev = false;		/* the next block: checked against its own keys */
		if (r->has_hi && key_cmp(k, &last, &r->hi) >= 0)
			return true;
	}
	return true;
}

/* The range of one literal for leaf op (EQ / IN use [x, x]). */
static bool
leaf_range(const bt_type *k, ts_predicate_op op, const bt_key *x, bt_range *r, ts_err *err)
{
	memset(r, 0, sizeof(*r));
	switch (op)
	{
		case TS_PRED_EQ:
		case TS_PRED_IN:
			*r = (bt_range) {true, true, true, true, *x, *x, NULL};
			return true;
		case TS_PRED_LT:
		case TS_PRED_LE:
			r->has_hi = true;
			r->hi_incl = op == TS_PRED_LE;
			r->hi = *x;
			return true;
		case TS_PRED_GT:
		case TS_PRED_GE:
			r->has_lo = true;
			r->lo_incl = op == TS_PRED_GE;
			r->lo = *x;
			return true;
		case TS_PRED_STARTS_WITH:
			{
				size_t		n = x->len;

				r->has_lo = r->lo_incl = true;
				r->lo = *x;
				/* keys below the prefix's successor (its last byte < 0xff + 1) */
				while (n > 0 && x->s[n - 1] == 0xff)
					n--;
				if (n == 0)
					return true;
				r->hi_buf = ts_malloc(n);
				if (r->hi_buf == NULL)
					return ts_error_nomem(err, "btree index");
				memcpy(r->hi_buf, x->s, n);
				r->hi_buf[n - 1]++;
				r->has_hi = true;
				r->hi.s = r->hi_buf;
				r->hi.len = n;
				(void) k;
				return true;
			}
		default:
			return true;
	}
}

/*
 * The null bitmap (the footer's handle at bytes 32..43; offset 0 and size
 * 0 = none): <size> bytes of a portable 64-bit Roaring bitmap of the local
 * row ids whose key is NULL, then the CRC32 of those bytes (u32, not
 * counted in size), OR-ed into rows.
 */
static bool
nulls_read(bt_file *f, const uint8_t *foot, roaring_bitmap_t *rows, bool *wide, ts_err *err)
{
	int64_t		off = (int64_t) ts_load_le64(foot + 32);
	int32_t		size = (int32_t) ts_load_le32(foot + 40);
	uint8_t    *buf;
	size_t		used = 0;
	bool		ok;

	if (off == 0 && size == 0)
		return true;
	if (off < 0 || size < 0 || off > f->blocks_end || (int64_t) size > f->blocks_end - off - 4)
		return ts_error(err, TS_ERR_CORRUPT,
						"btree index: null bitmap at %lld of %d bytes outside the file",
						(long long) off, size);
	buf = ts_malloc((size_t) size + 4);
	if (buf == NULL)
		return ts_error_nomem(err, "btree index null bitmap");
	if (!f->src->read(f->src->arg, buf, (size_t) size + 4, off, err))
	{
		ts_free(buf);
		return false;
	}
	if ((uint32_t) crc32(0L, buf, (uInt) size) != ts_load_le32(buf + size))
		ok = ts_error(err, TS_ERR_CORRUPT, "btree index: checksum mismatch in the null bitmap at %lld",
					  (long long) off);
	else
	{
		ok = roaring64_read(buf, (size_t) size, true, rows, wide, &used, err);
		if (ok && used != (size_t) size)
			ok = ts_error(err, TS_ERR_CORRUPT, "btree index: trailing bytes after the null bitmap");
	}
	ts_free(buf);
	return ok;
}

bool
fi_btree_leaf(const ts_gi_source *src, const ts_type *t, const ts_predicate *p, bool *all,
			  roaring_bitmap_t **out, ts_err *err)
{
	bt_type		k = key_type(t);
	uint8_t		foot[BT_FOOTER_LEN];
	bt_file		f;
	bt_block	index;
	int64_t		ioff;
	int32_t		isize;
	roaring_bitmap_t *rows,
			   *nulls = NULL;
	bool		wide = false,
				unread = false,
				complement = false,	/* the result: range - nulls - rows */
				use_nulls = false,
				use_keys = true;
	ts_predicate_op range_op = p->op;
	int			nlits;

	*all = true;
	*out = NULL;
	/* IS [NOT] NULL read the null bitmap alone: any key type */
	if (k.kind == BK_NONE && p->op != TS_PRED_IS_NULL && p->op != TS_PRED_IS_NOT_NULL)
		return true;
	switch (p->op)
	{
		case TS_PRED_EQ:
		case TS_PRED_LT:
		case TS_PRED_LE:
		case TS_PRED_GT:
		case TS_PRED_GE:
			nlits = 1;
			break;
		case TS_PRED_IN:
			nlits = p->nliterals;
			break;
		case TS_PRED_STARTS_WITH:
			if (k.kind != BK_BYTES)
				return true;
			nlits = 1;
			break;
		case TS_PRED_IS_NULL:
			nlits = 0;
			use_nulls = true;
			use_keys = false;
			break;
		case TS_PRED_IS_NOT_NULL:
			nlits = 0;
			use_nulls = complement = true;
			use_keys = false;
			break;
		case TS_PRED_NE:
		case TS_PRED_NOT_IN:
			nlits = p->op == TS_PRED_NE ? 1 : p->nliterals;
			if (nlits <= 0)
				return true;
			use_nulls = complement = true;
			range_op = TS_PRED_EQ;
			break;
		default:
			return true;
	}
	/* a complement needs the row range: every row of it not NULL and not a key excluded */
	if (complement && (src->nrows <= 0 || src->nrows > (int64_t) UINT32_MAX + 1))
		return true;
	if (p->nliterals < nlits || (use_keys && nlits <= 0))
		return true;
	/* every literal must be a key (a NULL one matches nothing, as SQL's IN) */
	for (int i = 0; i < nlits; i++)
	{
		bt_key		x;

		if (p->literals[i].isnull)
		{
			if (complement)
				return true;	/* NOT IN (.., NULL): left to the executor */
			continue;
		}
		if (!key_literal(&k, t, p, &p->literals[i], &x))
			return true;
	}

	if (src->size < BT_FOOTER_LEN)
		return ts_error(err, TS_ERR_CORRUPT, "btree index: %lld bytes, shorter than its footer",
						(long long) src->size);
	if (!src->read(src->arg, foot, BT_FOOTER_LEN, src->size - BT_FOOTER_LEN, err))
		return false;
	if (ts_load_le32(foot + 48) == BT_MAGIC_V0)
		return true;			/* the earlier 48-byte footer: not read */
	if (ts_load_le32(foot + 48) != BT_MAGIC)
		return ts_error(err, TS_ERR_CORRUPT, "btree index: bad magic number");
	f.src = src;
	f.blocks_end = src->size - BT_FOOTER_LEN;
	f.version = (int32_t) ts_load_le32(foot + 44);
	if (f.version != 1 && f.version != 2)
		return true;			/* a later version: not read */

	rows = roaring_bitmap_create();
	if (rows == NULL)
		return ts_error_nomem(err, "btree index");
	if (use_nulls)
	{
		nulls = complement ? roaring_bitmap_create() : rows;
		if (nulls == NULL || !nulls_read(&f, foot, nulls, &wide, err))
		{
			bool		nomem = nulls == NULL;

			if (nulls && nulls != rows)
				roaring_bitmap_free(nulls);
			roaring_bitmap_free(rows);
			return nomem ? ts_error_nomem(err, "btree index") : false;
		}
	}
	if (use_keys && !wide)
	{
		ioff = (int64_t) ts_load_le64(foot + 20);
		isize = (int32_t) ts_load_le32(foot + 28);
		if (!block_read(&f, ioff, isize, &index, &unread, err))
		{
			if (nulls && nulls != rows)
				roaring_bitmap_free(nulls);
			roaring_bitmap_free(rows);
			return false;
		}
		for (int i = 0; i < nlits && !wide && !unread; i++)
		{
			bt_key		x;
			bt_range	r;
			bool		ok;

			if (p->literals[i].isnull)
				continue;
			(void) key_literal(&k, t, p, &p->literals[i], &x);
			if (!leaf_range(&k, range_op, &x, &r, err))
				ok = false;
			else
			{
				ok = range_rows(&f, &index, &k, &r, rows, &wide, &unread, err);
				ts_free(r.hi_buf);
			}
			if (!ok)
			{
				if (nulls && nulls != rows)
					roaring_bitmap_free(nulls);
				roaring_bitmap_free(rows);
				block_free(&index);
				return false;
			}
		}
		block_free(&index);
	}
	if (wide || unread)
	{
		if (nulls && nulls != rows)
			roaring_bitmap_free(nulls);
		roaring_bitmap_free(rows);
		return true;
	}
	if (complement)
	{
		/* the range's rows, less the NULL ones and the keys' rows */
		roaring_bitmap_t *c = roaring_bitmap_create();

		if (c == NULL)
		{
			roaring_bitmap_free(nulls);
			roaring_bitmap_free(rows);
			return ts_error_nomem(err, "btree index");
		}
		roaring_bitmap_add_range(c, 0, (uint64_t) src->nrows);
		roaring_bitmap_andnot_inplace(c, nulls);
		roaring_bitmap_andnot_inplace(c, rows);
		roaring_bitmap_free(nulls);
		roaring_bitmap_free(rows);
		rows = c;
	}
	*all = false;
	*out = rows;
	return true;
}
