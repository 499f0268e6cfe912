/*
 * orc_writer.c - a streaming ORC writer for Paimon rows (see orc_writer.h).
 *
 * Rows are copied into an arena until the stripe is full; then each
 * column's streams are encoded (PRESENT as boolean RLE where the column
 * has NULLs, integers as RLE v1 literal runs, strings and binaries as DATA
 * + LENGTH, lists and maps as LENGTH + child columns), compressed in
 * chunks, and written with the stripe footer through the sink.  The
 * footer, the metadata (stripe statistics) and the postscript follow the
 * last stripe.  The protobuf messages (PostScript, Footer, Metadata,
 * StripeFooter of orc_proto.proto) are encoded by hand.
 */
#include <stdio.h>
#include <string.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "base/ts_base.h"
#include "base/ts_snappy.h"
#include "format/orc/orc_writer.h"

#define OW_TS_BASE INT64_C(1420070400)	/* 2015-01-01 00:00:00 UTC */
#define OW_BLOCK_SIZE 262144	/* compression chunk, as Java's orc.compress.size */
#define OW_STRING_STATS_MAX 1024	/* longer min / max: no string min / max */

/* Paimon's ids of ARRAY elements and MAP keys / values (SpecialFields) */
#define OW_NESTED_ID_BASE (INT32_MAX / 4)
#define OW_NESTED_DEPTH_LIMIT 1024

enum
{
	OW_BOOLEAN = 0, OW_BYTE = 1, OW_SHORT = 2, OW_INT = 3, OW_LONG = 4, OW_FLOAT = 5,
	OW_DOUBLE = 6, OW_STRING = 7, OW_BINARY = 8, OW_TIMESTAMP = 9, OW_LIST = 10, OW_MAP = 11,
	OW_STRUCT = 12, OW_DECIMAL = 14, OW_DATE = 15, OW_VARCHAR = 16, OW_CHAR = 17,
	OW_TIMESTAMP_INSTANT = 18
};

enum
{
	OW_S_PRESENT = 0, OW_S_DATA = 1, OW_S_LENGTH = 2, OW_S_SECONDARY = 5
};

/* statistics of one ORC column over a stripe or the file */
typedef struct ow_stats
{
	uint64_t	count;			/* non-null values */
	bool		has_null;
	bool		has;			/* a min / max seen */
	bool		no_minmax;		/* NaN, or a string too long */
	int64_t		imin,
				imax;
	double		dmin,
				dmax,
				dsum;
	int64_t		str_sum;		/* total string length */
	ts_buf		smin,
				smax;
} ow_stats;

struct ts_orc_writer
{
	const ts_field *fields;
	int			nfields;
	int			ncolumns;		/* ORC columns: the root struct and every child */
	const ts_type **col_types;	/* Paimon type of each ORC column (root: NULL) */
	int		   *col_kinds;
	ts_orc_codec codec;
	int			level;
	size_t		stripe_bytes;
	int64_t		stripe_rows;
	ts_orc_sink sink;
	void	   *arg;
	ZSTD_CCtx  *cctx;
	/* sticky error of the encoding functions */
	ts_err	   *err;
	bool		ok;
	/* the stripe being buffered */
	ts_arena	arena;
	ts_value  **rows;
	int64_t		nrows;
	int64_t		cap_rows;
	size_t		buffered;
	/* the file so far */
	uint64_t	offset;			/* bytes written */
	int64_t		total_rows;
	ts_buf		stripes;		/* StripeInformation messages */
	ts_buf		stripe_stats;	/* StripeStatistics messages */
	ow_stats   *sstats;			/* per column, this stripe */
	ow_stats   *fstats;			/* per column, the file */
	/* scratch */
	ts_buf		data;
	ts_buf		sfooter;
	ts_buf		chunk;
};

/* ---- protobuf ------------------------------------------------------------ */

static void
ow_put(ts_orc_writer *w, ts_buf *b, const void *p, size_t n)
{
	if (w->ok && n > 0 && !ts_buf_append(b, p, n, w->err))
		w->ok = false;
}

/* base-128 varint (protobuf, RLE v1; 128 bits for decimals) */
static void
ow_uvarint(ts_orc_writer *w, ts_buf *b, unsigned __int128 u)
{
	uint8_t		x[20];
	size_t		n = 0;

	while (u >= 0x80)
	{
		x[n++] = (uint8_t) (u | 0x80);
		u >>= 7;
	}
	x[n++] = (uint8_t) u;
	ow_put(w, b, x, n);
}

static void
ow_varint(ts_orc_writer *w, ts_buf *b, uint64_t v)
{
	ow_uvarint(w, b, v);
}

static uint64_t
zigzag(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

/* field number and wire type 0 (varint) */
static void
pb_uint(ts_orc_writer *w, ts_buf *b, int field, uint64_t v)
{
	ow_varint(w, b, (uint64_t) field << 3);
	ow_varint(w, b, v);
}

/* field number and wire type 1 (64-bit) */
static void
pb_double(ts_orc_writer *w, ts_buf *b, int field, double d)
{
	uint64_t	u;
	uint8_t		x[8];

	memcpy(&u, &d, 8);
	ts_store_le64(x, u);
	ow_varint(w, b, ((uint64_t) field << 3) | 1);
	ow_put(w, b, x, 8);
}

/* field number and wire type 2 (length-delimited) */
static void
pb_bytes(ts_orc_writer *w, ts_buf *b, int field, const void *p, size_t n)
{
	ow_varint(w, b, ((uint64_t) field << 3) | 2);
	ow_varint(w, b, n);
	ow_put(w, b, p, n);
}

static void
pb_string(ts_orc_writer *w, ts_buf *b, int field, const char *s)
{
	pb_bytes(w, b, field, s, strlen(s));
}

static void
pb_message(ts_orc_writer *w, ts_buf *b, int field, const ts_buf *m)
{
	pb_bytes(w, b, field, m->data, m->len);
}

/* ---- run-length encodings ------------------------------------------------ */

/* byte RLE: literal runs of at most 128 bytes (header -n) */
static void
ow_byte_rle(ts_orc_writer *w, ts_buf *b, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(w, b, &h, 1);
		ow_put(w, b, v + i, k);
	}
}

/* integer RLE v1: literal runs of at most 128 varints (zig-zag if signed) */
static void
ow_int_rle(ts_orc_writer *w, ts_buf *b, const int64_t *v, size_t n, bool is_signed)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(w, b, &h, 1);
		for (size_t j = i; j < i + k; j++)
			ow_varint(w, b, is_signed ? zigzag(v[j]) : (uint64_t) v[j]);
	}
}

/* boolean RLE: bits, most significant first, then byte RLE */
static void
ow_bool_rle(ts_orc_writer *w, ts_buf *b, const bool *v, size_t n)
{
	uint8_t		byte = 0;
	uint8_t		lit[128];
	size_t		nlit = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (v[i])
			byte |= (uint8_t) (0x80 >> (i % 8));
		if (i % 8 == 7 || i == n - 1)
		{
			lit[nlit++] = byte;
			byte = 0;
			if (nlit == 128)
			{
				ow_byte_rle(w, b, lit, nlit);
				nlit = 0;
			}
		}
	}
	ow_byte_rle(w, b, lit, nlit);
}

/* ---- types ---------------------------------------------------------------- */

/* the ORC type kind of a Paimon type, as OrcTypeUtil.convertToOrcType maps it; -1: none */
static int
ow_kind(const ts_type *t)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return OW_BOOLEAN;
		case TS_TINYINT:
			return OW_BYTE;
		case TS_SMALLINT:
			return OW_SHORT;
		case TS_INT:
		case TS_TIME:
			return OW_INT;
		case TS_BIGINT:
			return OW_LONG;
		case TS_FLOAT:
			return OW_FLOAT;
		case TS_DOUBLE:
			return OW_DOUBLE;
		case TS_DECIMAL:
			return OW_DECIMAL;
		case TS_CHAR:
			return OW_CHAR;
		case TS_VARCHAR:
			return t->length == TS_STRING_LENGTH ? OW_STRING : OW_VARCHAR;
		case TS_VARBINARY:
			return t->length == TS_STRING_LENGTH ? OW_BINARY : -1;
		case TS_DATE:
			return OW_DATE;
		case TS_TIMESTAMP:
			return OW_TIMESTAMP;
		case TS_TIMESTAMP_LTZ:
			return OW_TIMESTAMP_INSTANT;
		case TS_ARRAY:
			return OW_LIST;
		case TS_MAP:
			return OW_MAP;
		case TS_ROW:
			return OW_STRUCT;
		default:
			return -1;
	}
}

bool
ts_orc_writer_supports(const char *col, const ts_type *t, ts_err *err)
{
	if (ow_kind(t) < 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\": type %s is not supported in ORC data files",
				 col, ts_type_kind_name(t->kind));
		if (t->kind == TS_VARBINARY || t->kind == TS_BINARY)
			ts_error_hint(err, "Paimon's ORC format takes BYTES only, no BINARY(n) or VARBINARY(n).");
		return false;
	}
	if (t->kind == TS_ARRAY)
		return ts_orc_writer_supports(col, t->element, err);
	if (t->kind == TS_MAP)
		return ts_orc_writer_supports(col, t->key, err) && ts_orc_writer_supports(col, t->value, err);
	if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			if (!ts_orc_writer_supports(col, t->fields[i].type, err))
				return false;
	return true;
}

/* ORC columns of a Paimon type: itself and its children */
static int
ow_ncolumns(const ts_type *t)
{
	int			n = 1;

	if (t->kind == TS_ARRAY)
		n += ow_ncolumns(t->element);
	else if (t->kind == TS_MAP)
		n += ow_ncolumns(t->key) + ow_ncolumns(t->value);
	else if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			n += ow_ncolumns(t->fields[i].type);
	return n;
}

/* the Paimon type of each ORC column, in pre-order from cid */
static int
ow_fill_columns(ts_orc_writer *w, const ts_type *t, int cid)
{
	int			next = cid + 1;

	w->col_types[cid] = t;
	w->col_kinds[cid] = ow_kind(t);
	if (t->kind == TS_ARRAY)
		next = ow_fill_columns(w, t->element, next);
	else if (t->kind == TS_MAP)
	{
		next = ow_fill_columns(w, t->key, next);
		next = ow_fill_columns(w, t->value, next);
	}
	else if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			next = ow_fill_columns(w, t->fields[i].type, next);
	return next;
}

/* ORC's encoding of the nanoseconds of a second: trailing zeros counted */
static uint64_t
ow_nanos(int64_t nanos)
{
	int			z = 1;

	if (nanos == 0 || nanos % 100 != 0)
		return (uint64_t) nanos << 3;
	nanos /= 100;
	while (nanos % 10 == 0 && z < 7)
	{
		nanos /= 10;
		z++;
	}
	return ((uint64_t) nanos << 3) | (uint64_t) z;
}

/* zig-zag base-128 varint of a 128-bit integer (decimal DATA) */
static void
ow_varint128(ts_orc_writer *w, ts_buf *b, ts_int128 v)
{
	ow_uvarint(w, b, ((unsigned __int128) v << 1) ^ (unsigned __int128) (v >> 127));
}

/* ---- compression --------------------------------------------------------- */

/* one chunk of at most OW_BLOCK_SIZE bytes, compressed (or kept) with its header */
static void
ow_chunk(ts_orc_writer *w, ts_buf *out, const uint8_t *in, size_t len)
{
	size_t		got = 0;
	bool		compressed = false;
	uint32_t	h;
	uint8_t		hdr[3];

	size_t		cap = len + len / 4 + 1024;	/* past every codec's bound */

	ts_buf_reset(&w->chunk);
	if (!w->ok)
		return;
	if (!ts_buf_reserve(&w->chunk, cap, w->err))
	{
		w->ok = false;
		return;
	}
	switch (w->codec)
	{
		case TS_ORC_CODEC_ZSTD:
			got = ZSTD_compressCCtx(w->cctx, w->chunk.data, cap, in, len, w->level);
			compressed = !ZSTD_isError(got);
			break;
		case TS_ORC_CODEC_ZLIB:
			{
				z_stream	zs;

				memset(&zs, 0, sizeof(zs));
				if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
								 Z_DEFAULT_STRATEGY) != Z_OK)
				{
					w->ok = ts_error(w->err, TS_ERR_NOMEM, "zlib initialisation failed");
					return;
				}
				zs.next_in = (Bytef *) in;
				zs.avail_in = (uInt) len;
				zs.next_out = w->chunk.data;
				zs.avail_out = (uInt) cap;
				compressed = deflate(&zs, Z_FINISH) == Z_STREAM_END;
				got = zs.total_out;
				deflateEnd(&zs);
			}
			break;
		case TS_ORC_CODEC_LZ4:
			{
				int			n = LZ4_compress_default((const char *) in, (char *) w->chunk.data,
													 (int) len, (int) cap);

				compressed = n > 0;
				got = (size_t) (n > 0 ? n : 0);
			}
			break;
		case TS_ORC_CODEC_SNAPPY:
			{
				const ts_snappy_api *snappy = ts_snappy(w->err);

				if (snappy == NULL)
				{
					w->ok = false;
					return;
				}
				got = cap;
				compressed = snappy->compress((const char *) in, len, (char *) w->chunk.data,
											  &got) == SNAPPY_OK;
			}
			break;
		case TS_ORC_CODEC_NONE:
			break;
	}
	/* a chunk that does not shrink is stored as is (isOriginal), as Java does */
	if (!compressed || got >= len)
		h = (uint32_t) (len << 1) | 1;
	else
		h = (uint32_t) (got << 1);
	ts_store_le(hdr, h, 3);
	ow_put(w, out, hdr, 3);
	if (h & 1)
		ow_put(w, out, in, len);
	else
		ow_put(w, out, w->chunk.data, got);
}

/* raw bytes as ORC writes a stream or a tail section: chunked and compressed */
static void
ow_compress(ts_orc_writer *w, ts_buf *out, const ts_buf *raw)
{
	if (w->codec == TS_ORC_CODEC_NONE)
	{
		ow_put(w, out, raw->data, raw->len);
		return;
	}
	for (size_t i = 0; i < raw->len; i += OW_BLOCK_SIZE)
		ow_chunk(w, out, raw->data + i, raw->len - i < OW_BLOCK_SIZE ? raw->len - i : OW_BLOCK_SIZE);
}

/* a stream of the stripe: compressed bytes appended to w->data, its entry to the footer */
static void
ow_stream(ts_orc_writer *w, int kind, int column, const ts_buf *s)
{
	size_t		before = w->data.len;
	ts_buf		m;

	ow_compress(w, &w->data, s);
	ts_buf_init(&m);
	pb_uint(w, &m, 1, (uint64_t) kind);
	pb_uint(w, &m, 2, (uint64_t) column);
	pb_uint(w, &m, 3, w->data.len - before);
	pb_message(w, &w->sfooter, 1, &m);
	ts_buf_free(&m);
}

/* ---- statistics ---------------------------------------------------------- */

/* unsigned bytes, then length: the order of ORC's (Java Text's) string statistics */
static int
bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			c = memcmp(a, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static void
stats_value(ts_orc_writer *w, ow_stats *s, int kind, const ts_type *t, const ts_value *v)
{
	bool		first = !s->has;

	s->count++;
	switch (kind)
	{
		case OW_BYTE:
		case OW_SHORT:
		case OW_INT:
		case OW_LONG:
		case OW_DATE:
			if (t->kind == TS_TIME)
				return;
			if (first || v->v.i < s->imin)
				s->imin = v->v.i;
			if (first || v->v.i > s->imax)
				s->imax = v->v.i;
			s->has = true;
			break;
		case OW_FLOAT:
		case OW_DOUBLE:
			{
				double		d = kind == OW_FLOAT ? (double) v->v.f : v->v.d;

				if (d != d)
				{
					s->no_minmax = true;
					return;
				}
				if (first || d < s->dmin)
					s->dmin = d;
				if (first || d > s->dmax)
					s->dmax = d;
				s->dsum += d;
				s->has = true;
			}
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
			{
				const uint8_t *p = v->v.s.p;
				size_t		n = v->v.s.len;

				s->str_sum += (int64_t) n;
				if (n > OW_STRING_STATS_MAX)
					s->no_minmax = true;
				if (s->no_minmax)
					return;
				if (first || bytes_compare(p, n, s->smin.data, s->smin.len) < 0)
				{
					ts_buf_reset(&s->smin);
					ow_put(w, &s->smin, p, n);
				}
				if (first || bytes_compare(p, n, s->smax.data, s->smax.len) > 0)
				{
					ts_buf_reset(&s->smax);
					ow_put(w, &s->smax, p, n);
				}
				s->has = true;
			}
			break;
		default:
			break;
	}
}

/* into: into and from over the same column */
static void
stats_merge(ts_orc_writer *w, ow_stats *into, const ow_stats *from, int kind, const ts_type *t)
{
	ts_value	v;

	if (from->has_null)
		into->has_null = true;
	if (from->no_minmax)
		into->no_minmax = true;
	into->str_sum += from->str_sum;
	if (!from->has)
	{
		into->count += from->count;
		return;
	}
	memset(&v, 0, sizeof(v));
	switch (kind)
	{
		case OW_FLOAT:
		case OW_DOUBLE:
			if (!into->has || from->dmin < into->dmin)
				into->dmin = from->dmin;
			if (!into->has || from->dmax > into->dmax)
				into->dmax = from->dmax;
			into->dsum += from->dsum;
			into->has = true;
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
			if (into->no_minmax)
				break;
			v.v.s.p = from->smin.data;
			v.v.s.len = (uint32_t) from->smin.len;
			stats_value(w, into, kind, t, &v);
			v.v.s.p = from->smax.data;
			v.v.s.len = (uint32_t) from->smax.len;
			stats_value(w, into, kind, t, &v);
			into->count -= 2;
			into->str_sum -= (int64_t) (from->smin.len + from->smax.len);
			break;
		default:
			if (!into->has || from->imin < into->imin)
				into->imin = from->imin;
			if (!into->has || from->imax > into->imax)
				into->imax = from->imax;
			into->has = true;
			break;
	}
	into->count += from->count;
}

static void
stats_reset(ow_stats *s)
{
	ts_buf		smin = s->smin,
				smax = s->smax;

	memset(s, 0, sizeof(*s));
	ts_buf_reset(&smin);
	ts_buf_reset(&smax);
	s->smin = smin;
	s->smax = smax;
}

/* a ColumnStatistics message */
static void
stats_message(ts_orc_writer *w, ts_buf *out, int field, const ow_stats *s, int kind)
{
	ts_buf		m,
				k;

	ts_buf_init(&m);
	ts_buf_init(&k);
	pb_uint(w, &m, 1, s->count);
	if (s->has && !s->no_minmax)
	{
		switch (kind)
		{
			case OW_BYTE:
			case OW_SHORT:
			case OW_INT:
			case OW_LONG:
				pb_uint(w, &k, 1, zigzag(s->imin));
				pb_uint(w, &k, 2, zigzag(s->imax));
				pb_message(w, &m, 2, &k);
				break;
			case OW_DATE:
				pb_uint(w, &k, 1, zigzag(s->imin));
				pb_uint(w, &k, 2, zigzag(s->imax));
				pb_message(w, &m, 7, &k);
				break;
			case OW_FLOAT:
			case OW_DOUBLE:
				pb_double(w, &k, 1, s->dmin);
				pb_double(w, &k, 2, s->dmax);
				pb_double(w, &k, 3, s->dsum);
				pb_message(w, &m, 3, &k);
				break;
			case OW_STRING:
			case OW_VARCHAR:
			case OW_CHAR:
				pb_bytes(w, &k, 1, s->smin.data, s->smin.len);
				pb_bytes(w, &k, 2, s->smax.data, s->smax.len);
				pb_uint(w, &k, 3, zigzag(s->str_sum));
				pb_message(w, &m, 4, &k);
				break;
			default:
				break;
		}
	}
	pb_uint(w, &m, 10, s->has_null ? 1 : 0);
	pb_message(w, out, field, &m);
	ts_buf_free(&m);
	ts_buf_free(&k);
}

/* ---- columns ------------------------------------------------------------- */

/*
 * The streams of ORC column cid holding the n values vals[], then those of
 * its children (column ids in pre-order after cid): an ARRAY's element
 * column holds the elements of its non-NULL values one after the other, a
 * MAP's key and value columns its entries, a ROW's field columns the
 * fields of its non-NULL values.
 */
static void
ow_column(ts_orc_writer *w, const ts_value *const *vals, size_t n, int cid)
{
	const ts_type *t = w->col_types[cid];
	int			kind = w->col_kinds[cid];
	ow_stats   *st = &w->sstats[cid];
	bool	   *present = ts_calloc(n + 1, sizeof(bool));
	int64_t    *ints = ts_calloc(n + 1, sizeof(int64_t));
	int64_t    *ints2 = ts_calloc(n + 1, sizeof(int64_t));
	size_t		m = 0,
				nitems = 0;
	bool		nulls = false;
	ts_buf		s,
				s2;

	ts_buf_init(&s);
	ts_buf_init(&s2);
	if (present == NULL || ints == NULL || ints2 == NULL)
	{
		w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
		goto done;
	}
	for (size_t r = 0; r < n && w->ok; r++)
	{
		const ts_value *v = vals[r];

		present[r] = !v->isnull;
		if (v->isnull)
		{
			nulls = true;
			continue;
		}
		stats_value(w, st, kind, t, v);
		switch (kind)
		{
			case OW_FLOAT:
				{
					uint32_t	u;
					uint8_t		x[4];

					memcpy(&u, &v->v.f, 4);
					ts_store_le32(x, u);
					ow_put(w, &s, x, 4);
				}
				break;
			case OW_DOUBLE:
				{
					uint64_t	u;
					uint8_t		x[8];

					memcpy(&u, &v->v.d, 8);
					ts_store_le64(x, u);
					ow_put(w, &s, x, 8);
				}
				break;
			case OW_STRING:
			case OW_VARCHAR:
			case OW_CHAR:
			case OW_BINARY:
				ow_put(w, &s, v->v.s.p, v->v.s.len);
				ints[m] = v->v.s.len;
				break;
			case OW_DECIMAL:
				ow_varint128(w, &s, v->v.dec);
				ints[m] = t->scale;
				break;
			case OW_TIMESTAMP:
			case OW_TIMESTAMP_INSTANT:
				{
					/* as Java's writer: seconds truncated toward zero */
					int64_t		ms = v->v.ts.millis;
					int64_t		frac = ((ms % 1000) + 1000) % 1000;

					ints[m] = ms / 1000 - OW_TS_BASE;
					ints2[m] = (int64_t) ow_nanos(frac * 1000000 + v->v.ts.nanos);
				}
				break;
			case OW_LIST:
			case OW_MAP:
				ints[m] = v->v.nested.n;
				nitems += (size_t) v->v.nested.n;
				break;
			case OW_STRUCT:
				break;
			default:			/* BOOLEAN, BYTE, SHORT, INT, LONG, DATE */
				ints[m] = v->v.i;
				break;
		}
		m++;
	}
	if (nulls)
	{
		ts_buf		p;

		st->has_null = true;
		ts_buf_init(&p);
		ow_bool_rle(w, &p, present, n);
		ow_stream(w, OW_S_PRESENT, cid, &p);
		ts_buf_free(&p);
	}
	switch (kind)
	{
		case OW_BOOLEAN:
			for (size_t i = 0; i < m; i++)
				present[i] = ints[i] != 0;	/* reused: the values */
			ow_bool_rle(w, &s, present, m);
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
		case OW_BYTE:
			{
				uint8_t    *b = ts_calloc(m + 1, 1);

				if (b == NULL)
				{
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
					break;
				}
				for (size_t i = 0; i < m; i++)
					b[i] = (uint8_t) ints[i];
				ow_byte_rle(w, &s, b, m);
				ts_free(b);
				ow_stream(w, OW_S_DATA, cid, &s);
			}
			break;
		case OW_FLOAT:
		case OW_DOUBLE:
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
		case OW_BINARY:
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints, m, false);
			ow_stream(w, OW_S_LENGTH, cid, &s2);
			break;
		case OW_DECIMAL:
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints, m, true);
			ow_stream(w, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_TIMESTAMP:
		case OW_TIMESTAMP_INSTANT:
			ow_int_rle(w, &s, ints, m, true);
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints2, m, false);
			ow_stream(w, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_LIST:
		case OW_MAP:
			{
				const ts_value **k = ts_calloc(nitems + 1, sizeof(ts_value *));
				const ts_value **e = ts_calloc(nitems + 1, sizeof(ts_value *));
				size_t		j = 0;

				ow_int_rle(w, &s, ints, m, false);
				ow_stream(w, OW_S_LENGTH, cid, &s);
				if (k == NULL || e == NULL)
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
				for (size_t r = 0; r < n && w->ok; r++)
					for (int i = 0; !vals[r]->isnull && i < vals[r]->v.nested.n; i++, j++)
					{
						if (kind == OW_LIST)
							e[j] = &vals[r]->v.nested.items[i];
						else
						{
							k[j] = &vals[r]->v.nested.items[2 * i];
							e[j] = &vals[r]->v.nested.items[2 * i + 1];
						}
					}
				if (w->ok && kind == OW_LIST)
					ow_column(w, e, nitems, cid + 1);
				else if (w->ok)
				{
					ow_column(w, k, nitems, cid + 1);
					ow_column(w, e, nitems, cid + 1 + ow_ncolumns(t->key));
				}
				ts_free(k);
				ts_free(e);
			}
			break;
		case OW_STRUCT:
			{
				const ts_value **f = ts_calloc(m + 1, sizeof(ts_value *));
				int			fid = cid + 1;

				if (f == NULL)
				{
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
					break;
				}
				for (int i = 0; i < t->nfields && w->ok; i++)
				{
					size_t		j = 0;

					for (size_t r = 0; r < n; r++)
						if (!vals[r]->isnull)
							f[j++] = &vals[r]->v.nested.items[i];
					ow_column(w, f, m, fid);
					fid += ow_ncolumns(t->fields[i].type);
				}
				ts_free(f);
			}
			break;
		default:				/* SHORT, INT, LONG, DATE */
			ow_int_rle(w, &s, ints, m, true);
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
	}
done:
	ts_buf_free(&s);
	ts_buf_free(&s2);
	ts_free(present);
	ts_free(ints);
	ts_free(ints2);
}

/* the Type message of a struct's fields: subtypes from first_id, names */
static void
ow_struct_fields(ts_orc_writer *w, ts_buf *m, const ts_field *fields, int nfields, int first_id)
{
	ts_buf		sub;
	int			id = first_id;

	if (nfields == 0)
		return;
	ts_buf_init(&sub);
	for (int i = 0; i < nfields; i++)
	{
		ow_varint(w, &sub, (uint64_t) id);
		id += ow_ncolumns(fields[i].type);
	}
	pb_message(w, m, 2, &sub);	/* packed subtypes */
	ts_buf_free(&sub);
	for (int i = 0; i < nfields; i++)
		pb_string(w, m, 3, fields[i].name);
}

/*
 * The Type messages of ORC column cid (Paimon type t, attribute paimon.id
 * pid) and its children, in column order; field_id and depth give the ids
 * Paimon puts on ARRAY elements and MAP keys / values.
 */
static void
ow_types(ts_orc_writer *w, ts_buf *footer, const ts_type *t, int cid, int32_t pid,
		 int32_t field_id, int depth)
{
	int			kind = ow_kind(t);
	ts_buf		m,
				a;
	char		id[16];

	ts_buf_init(&m);
	ts_buf_init(&a);
	pb_uint(w, &m, 1, (uint64_t) kind);
	if (kind == OW_LIST || kind == OW_MAP)
	{
		ts_buf		sub;

		ts_buf_init(&sub);
		ow_varint(w, &sub, (uint64_t) cid + 1);
		if (kind == OW_MAP)
			ow_varint(w, &sub, (uint64_t) (cid + 1 + ow_ncolumns(t->key)));
		pb_message(w, &m, 2, &sub);
		ts_buf_free(&sub);
	}
	if (kind == OW_STRUCT)
		ow_struct_fields(w, &m, t->fields, t->nfields, cid + 1);
	if (kind == OW_VARCHAR || kind == OW_CHAR)
		pb_uint(w, &m, 4, (uint64_t) t->length);
	if (kind == OW_DECIMAL)
	{
		pb_uint(w, &m, 5, (uint64_t) t->precision);
		pb_uint(w, &m, 6, (uint64_t) t->scale);
	}
	snprintf(id, sizeof(id), "%d", (int) pid);
	pb_string(w, &a, 1, "paimon.id");
	pb_string(w, &a, 2, id);
	pb_message(w, &m, 7, &a);
	pb_message(w, footer, 4, &m);
	ts_buf_free(&m);
	ts_buf_free(&a);

	if (kind == OW_LIST)
		ow_types(w, footer, t->element, cid + 1,
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	else if (kind == OW_MAP)
	{
		ow_types(w, footer, t->key, cid + 1,
				 OW_NESTED_ID_BASE - field_id * OW_NESTED_DEPTH_LIMIT - depth - 1,
				 field_id, depth + 1);
		ow_types(w, footer, t->value, cid + 1 + ow_ncolumns(t->key),
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	}
	else if (kind == OW_STRUCT)
	{
		int			fid = cid + 1;

		/* a ROW's fields carry their own ids (convertToOrcSchema) */
		for (int i = 0; i < t->nfields; i++)
		{
			ow_types(w, footer, t->fields[i].type, fid, t->fields[i].id, t->fields[i].id, 0);
			fid += ow_ncolumns(t->fields[i].type);
		}
	}
}

/* ---- the writer ---------------------------------------------------------- */

ts_orc_writer *
ts_orc_writer_create(const ts_field *fields, int n, ts_orc_codec codec, int level,
					 size_t stripe_bytes, int64_t stripe_rows, ts_orc_sink sink, void *arg,
					 ts_err *err)
{
	ts_orc_writer *w;
	int			cid = 1;

	for (int i = 0; i < n; i++)
		if (!ts_orc_writer_supports(fields[i].name, fields[i].type, err))
			return NULL;
	if (codec != TS_ORC_CODEC_NONE && codec != TS_ORC_CODEC_ZLIB && codec != TS_ORC_CODEC_SNAPPY &&
		codec != TS_ORC_CODEC_LZ4 && codec != TS_ORC_CODEC_ZSTD)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "ORC compression %d is not supported", (int) codec);
		return NULL;
	}
	if ((w = ts_calloc(1, sizeof(ts_orc_writer))) == NULL)
	{
		ts_error_nomem(err, "an ORC writer");
		return NULL;
	}
	w->fields = fields;
	w->nfields = n;
	w->codec = codec;
	w->level = level > 0 ? level : 1;
	w->stripe_bytes = stripe_bytes ? stripe_bytes : (size_t) 8 << 20;
	w->stripe_rows = stripe_rows;
	w->sink = sink;
	w->arg = arg;
	w->ok = true;
	ts_arena_init(&w->arena, 64 * 1024);
	ts_buf_init(&w->stripes);
	ts_buf_init(&w->stripe_stats);
	ts_buf_init(&w->data);
	ts_buf_init(&w->sfooter);
	ts_buf_init(&w->chunk);
	w->ncolumns = 1;
	for (int i = 0; i < n; i++)
		w->ncolumns += ow_ncolumns(fields[i].type);
	w->col_types = ts_calloc((size_t) w->ncolumns, sizeof(ts_type *));
	w->col_kinds = ts_calloc((size_t) w->ncolumns, sizeof(int));
	w->sstats = ts_calloc((size_t) w->ncolumns, sizeof(ow_stats));
	w->fstats = ts_calloc((size_t) w->ncolumns, sizeof(ow_stats));
	if (w->col_types == NULL || w->col_kinds == NULL || w->sstats == NULL || w->fstats == NULL ||
		(codec == TS_ORC_CODEC_ZSTD && (w->cctx = ZSTD_createCCtx()) == NULL))
	{
		ts_orc_writer_free(w);
		ts_error_nomem(err, "an ORC writer");
		return NULL;
	}
	w->col_kinds[0] = OW_STRUCT;
	for (int i = 0; i < n; i++)
		cid = ow_fill_columns(w, fields[i].type, cid);
	/* the header: "ORC" */
	w->err = err;
	if (!sink(arg, "ORC", 3, err))
	{
		ts_orc_writer_free(w);
		return NULL;
	}
	w->offset = 3;
	return w;
}

/* a deep copy of v (type t) into the arena; false when out of memory */
static bool
copy_value(ts_orc_writer *w, ts_value *dst, const ts_value *src, const ts_type *t)
{
	int			nitems;

	*dst = *src;
	if (src->isnull)
		return true;
	switch (t->kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			if (src->v.s.len == 0)
				return true;
			dst->v.s.p = ts_arena_dup(&w->arena, src->v.s.p, src->v.s.len);
			w->buffered += src->v.s.len;
			return dst->v.s.p != NULL;
		case TS_ARRAY:
		case TS_MAP:
		case TS_ROW:
			nitems = t->kind == TS_MAP ? 2 * src->v.nested.n : src->v.nested.n;
			dst->v.nested.items = ts_arena_alloc(&w->arena, sizeof(ts_value) * (size_t) (nitems + 1));
			if (dst->v.nested.items == NULL)
				return false;
			w->buffered += sizeof(ts_value) * (size_t) nitems;
			for (int i = 0; i < nitems; i++)
			{
				const ts_type *et = t->kind == TS_ARRAY ? t->element :
					t->kind == TS_ROW ? t->fields[i].type : (i % 2 == 0 ? t->key : t->value);

				if (!copy_value(w, &dst->v.nested.items[i], &src->v.nested.items[i], et))
					return false;
			}
			return true;
		default:
			return true;
	}
}

/* the buffered rows as one stripe, written through the sink */
static bool
write_stripe(ts_orc_writer *w, ts_err *err)
{
	const ts_value **vals;
	ts_buf		m,
				raw;
	int			cid = 1;
	uint64_t	stripe_off = w->offset;

	if (w->nrows == 0)
		return true;
	w->err = err;
	vals = ts_calloc((size_t) w->nrows, sizeof(ts_value *));
	if (vals == NULL)
		return ts_error_nomem(err, "an ORC stripe");
	ts_buf_reset(&w->data);
	ts_buf_reset(&w->sfooter);
	for (int c = 0; c < w->nfields && w->ok; c++)
	{
		if (!ts_check_interrupts(err))
		{
			w->ok = false;
			break;
		}
		for (int64_t r = 0; r < w->nrows; r++)
			vals[r] = &w->rows[r][c];
		ow_column(w, vals, (size_t) w->nrows, cid);
		cid += ow_ncolumns(w->fields[c].type);
	}
	ts_free(vals);
	w->sstats[0].count = (uint64_t) w->nrows;
	ts_buf_init(&m);
	ts_buf_init(&raw);
	for (int c = 0; c < w->ncolumns; c++)
	{
		ts_buf_reset(&m);
		pb_uint(w, &m, 1, 0);	/* DIRECT */
		pb_message(w, &w->sfooter, 2, &m);
	}
	pb_string(w, &w->sfooter, 3, "UTC");
	ow_compress(w, &raw, &w->sfooter);
	if (w->ok && (!w->sink(w->arg, w->data.data, w->data.len, err) ||
				  !w->sink(w->arg, raw.data, raw.len, err)))
		w->ok = false;
	/* its StripeInformation and StripeStatistics; the file's statistics */
	ts_buf_reset(&m);
	pb_uint(w, &m, 1, stripe_off);
	pb_uint(w, &m, 2, 0);		/* indexLength: no row index */
	pb_uint(w, &m, 3, w->data.len);
	pb_uint(w, &m, 4, raw.len);
	pb_uint(w, &m, 5, (uint64_t) w->nrows);
	pb_message(w, &w->stripes, 3, &m);
	ts_buf_reset(&m);
	for (int c = 0; c < w->ncolumns; c++)
	{
		stats_message(w, &m, 1, &w->sstats[c], w->col_kinds[c]);
		stats_merge(w, &w->fstats[c], &w->sstats[c], w->col_kinds[c], w->col_types[c]);
		stats_reset(&w->sstats[c]);
	}
	pb_message(w, &w->stripe_stats, 1, &m);
	w->offset += w->data.len + raw.len;
	ts_buf_free(&m);
	ts_buf_free(&raw);
	w->total_rows += w->nrows;
	w->nrows = 0;
	w->buffered = 0;
	ts_arena_reset(&w->arena);
	return w->ok;
}

bool
ts_orc_writer_add(ts_orc_writer *w, const ts_value *row, ts_err *err)
{
	ts_value   *copy;

	if (!w->ok)
		return ts_error(err, TS_ERR_INVALID, "ORC writer used after an error");
	if (w->nrows == w->cap_rows)
	{
		int64_t		cap = w->cap_rows ? w->cap_rows * 2 : 1024;
		ts_value  **nr = ts_realloc(w->rows, sizeof(ts_value *) * (size_t) cap);

		if (nr == NULL)
			return ts_error_nomem(err, "an ORC stripe");
		w->rows = nr;
		w->cap_rows = cap;
	}
	copy = ts_arena_alloc(&w->arena, sizeof(ts_value) * (size_t) (w->nfields ? w->nfields : 1));
	if (copy == NULL)
		return ts_error_nomem(err, "an ORC stripe");
	w->buffered += sizeof(ts_value) * (size_t) w->nfields;
	for (int i = 0; i < w->nfields; i++)
		if (!copy_value(w, &copy[i], &row[i], w->fields[i].type))
			return ts_error_nomem(err, "an ORC stripe");
	w->rows[w->nrows++] = copy;
	if (w->buffered >= w->stripe_bytes || (w->stripe_rows > 0 && w->nrows >= w->stripe_rows))
		return write_stripe(w, err);
	return true;
}

int64_t
ts_orc_writer_bytes(const ts_orc_writer *w)
{
	return (int64_t) (w->offset + w->buffered);
}

int64_t
ts_orc_writer_rows(const ts_orc_writer *w)
{
	return w->total_rows + w->nrows;
}

bool
ts_orc_writer_finish(ts_orc_writer *w, ts_err *err)
{
	ts_buf		footer,
				metadata,
				m,
				ps,
				out;
	int			cid = 1;
	uint8_t		pslen;
	bool		ok;

	if (!w->ok)
		return ts_error(err, TS_ERR_INVALID, "ORC writer used after an error");
	if (!write_stripe(w, err))
		return false;
	w->err = err;
	ts_buf_init(&footer);
	ts_buf_init(&metadata);
	ts_buf_init(&m);
	ts_buf_init(&ps);
	ts_buf_init(&out);

	/* metadata: the stripes' statistics */
	ow_compress(w, &out, &w->stripe_stats);
	{
		size_t		metadata_len = out.len;

		/* footer */
		pb_uint(w, &footer, 1, 3);	/* headerLength */
		pb_uint(w, &footer, 2, w->offset - 3);	/* contentLength: the stripes */
		ow_put(w, &footer, w->stripes.data, w->stripes.len);
		/* type 0: the struct of all columns, then each column's types */
		pb_uint(w, &m, 1, OW_STRUCT);
		ow_struct_fields(w, &m, w->fields, w->nfields, 1);
		pb_message(w, &footer, 4, &m);
		for (int c = 0; c < w->nfields; c++)
		{
			ow_types(w, &footer, w->fields[c].type, cid, w->fields[c].id, w->fields[c].id, 0);
			cid += ow_ncolumns(w->fields[c].type);
		}
		pb_uint(w, &footer, 6, (uint64_t) w->total_rows);
		w->fstats[0].count = (uint64_t) w->total_rows;
		for (int c = 0; c < w->ncolumns; c++)
			stats_message(w, &footer, 7, &w->fstats[c], w->col_kinds[c]);
		pb_uint(w, &footer, 8, 0);	/* rowIndexStride: no index */
		{
			size_t		before = out.len;

			ow_compress(w, &out, &footer);

			/* postscript */
			pb_uint(w, &ps, 1, out.len - before);
			pb_uint(w, &ps, 2, (uint64_t) w->codec);
			pb_uint(w, &ps, 3, OW_BLOCK_SIZE);
			ts_buf_reset(&m);
			ow_varint(w, &m, 0);
			ow_varint(w, &m, 12);
			pb_message(w, &ps, 4, &m);	/* version 0.12, packed */
			pb_uint(w, &ps, 5, metadata_len);
			pb_uint(w, &ps, 6, 9);	/* writerVersion */
			pb_string(w, &ps, 8000, "ORC");
		}
	}
	pslen = (uint8_t) ps.len;
	ow_put(w, &out, ps.data, ps.len);
	ow_put(w, &out, &pslen, 1);
	ok = w->ok && w->sink(w->arg, out.data, out.len, err);
	if (ok)
		w->offset += out.len;
	w->ok = false;				/* finished: only free remains */
	ts_buf_free(&footer);
	ts_buf_free(&metadata);
	ts_buf_free(&m);
	ts_buf_free(&ps);
	ts_buf_free(&out);
	return ok;
}

void
ts_orc_writer_free(ts_orc_writer *w)
{
	if (w == NULL)
		return;
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	for (int c = 0; w->sstats && c < w->ncolumns; c++)
	{
		ts_buf_free(&w->sstats[c].smin);
		ts_buf_free(&w->sstats[c].smax);
	}
	for (int c = 0; w->fstats && c < w->ncolumns; c++)
	{
		ts_buf_free(&w->fstats[c].smin);
		ts_buf_free(&w->fstats[c].smax);
	}
	ts_free(w->sstats);
	ts_free(w->fstats);
	ts_free(w->col_types);
	ts_free(w->col_kinds);
	ts_free(w->rows);
	ts_arena_free(&w->arena);
	ts_buf_free(&w->stripes);
	ts_buf_free(&w->stripe_stats);
	ts_buf_free(&w->data);
	ts_buf_free(&w->sfooter);
	ts_buf_free(&w->chunk);
	ts_free(w);
}
