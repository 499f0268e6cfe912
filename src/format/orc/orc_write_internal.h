/*
 * orc_write_internal.h - what the files of the ORC writer share.
 *
 * The writer's state (struct ts_orc_writer), the column statistics, the
 * ORC type and stream kinds, and the functions one file of the writer
 * (orc_writer.c, orc_write_columns.c, orc_write_encode.c) lends another.
 * Only those files include it.
 */
#ifndef TS_ORC_WRITE_INTERNAL_H
#define TS_ORC_WRITE_INTERNAL_H

#include <zstd.h>

#include "base/ts_base.h"
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

/* ---- orc_writer.c ------------------------------------------------------ */

/* ORC columns of a Paimon type: itself and its children */
extern int ow_ncolumns(const ts_type *t);

/* ---- orc_write_encode.c ------------------------------------------------ */

extern void ow_put(ts_orc_writer *w, ts_buf *b, const void *p, size_t n);

extern void ow_varint(ts_orc_writer *w, ts_buf *b, uint64_t v);

extern uint64_t ow_zigzag(int64_t v);

/* field number and wire type 0 (varint) */
extern void ow_pb_uint(ts_orc_writer *w, ts_buf *b, int field, uint64_t v);

/* field number and wire type 1 (64-bit) */
extern void ow_pb_double(ts_orc_writer *w, ts_buf *b, int field, double d);

/* field number and wire type 2 (length-delimited) */
extern void ow_pb_bytes(ts_orc_writer *w, ts_buf *b, int field, const void *p, size_t n);

extern void ow_pb_string(ts_orc_writer *w, ts_buf *b, int field, const char *s);

extern void ow_pb_message(ts_orc_writer *w, ts_buf *b, int field, const ts_buf *m);

/* byte RLE: literal runs of at most 128 bytes (header -n) */
extern void ow_byte_rle(ts_orc_writer *w, ts_buf *b, const uint8_t *v, size_t n);

/* integer RLE v1: literal runs of at most 128 varints (zig-zag if signed) */
extern void ow_int_rle(ts_orc_writer *w, ts_buf *b, const int64_t *v, size_t n,
					   bool is_signed);

/* boolean RLE: bits, most significant first, then byte RLE */
extern void ow_bool_rle(ts_orc_writer *w, ts_buf *b, const bool *v, size_t n);

/* zig-zag base-128 varint of a 128-bit integer (decimal DATA) */
extern void ow_varint128(ts_orc_writer *w, ts_buf *b, ts_int128 v);

/* raw bytes as ORC writes a stream or a tail section: chunked and compressed */
extern void ow_compress(ts_orc_writer *w, ts_buf *out, const ts_buf *raw);

/* a stream of the stripe: compressed bytes appended to w->data, its entry to the footer */
extern void ow_stream(ts_orc_writer *w, int kind, int column, const ts_buf *s);

/* ---- orc_write_columns.c ----------------------------------------------- */

/* into: into and from over the same column */
extern void ow_stats_merge(ts_orc_writer *w, ow_stats *into, const ow_stats *from, int kind,
						   const ts_type *t);

extern void ow_stats_reset(ow_stats *s);

/* a ColumnStatistics message */
extern void ow_stats_message(ts_orc_writer *w, ts_buf *out, int field, const ow_stats *s,
							 int kind);

/*
 * The streams of ORC column cid holding the n values vals[], then those of
 * its children (column ids in pre-order after cid): an ARRAY's element
 * column holds the elements of its non-NULL values one after the other, a
 * MAP's key and value columns its entries, a ROW's field columns the
 * fields of its non-NULL values.
 */
extern void ow_column(ts_orc_writer *w, const ts_value *const *vals, size_t n, int cid);

#endif							/* TS_ORC_WRITE_INTERNAL_H */
