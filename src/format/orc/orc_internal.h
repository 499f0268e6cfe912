/*
 * orc_internal.h - private declarations shared by the ORC reader files.
 *
 * Owns: the in-memory form of the ORC file tail (postscript, footer,
 * metadata, stripe footers) as decoded by orc_proto.c, the chunked
 * decompression of orc_compress.c and the run-length decoders of
 * orc_rle.c.  Nothing here is visible outside src/format/orc.
 */
#ifndef TS_ORC_INTERNAL_H
#define TS_ORC_INTERNAL_H

#include "base/ts_base.h"
#include "base/ts_value.h"

/* ---- protobuf enums (orc_proto.proto) --------------------------------- */

typedef enum orc_compression
{
	ORC_COMP_NONE = 0,
	ORC_COMP_ZLIB = 1,
	ORC_COMP_SNAPPY = 2,
	ORC_COMP_LZO = 3,
	ORC_COMP_LZ4 = 4,
	ORC_COMP_ZSTD = 5
} orc_compression;

typedef enum orc_type_kind
{
	ORC_BOOLEAN = 0,
	ORC_BYTE = 1,
	ORC_SHORT = 2,
	ORC_INT = 3,
	ORC_LONG = 4,
	ORC_FLOAT = 5,
	ORC_DOUBLE = 6,
	ORC_STRING = 7,
	ORC_BINARY = 8,
	ORC_TIMESTAMP = 9,
	ORC_LIST = 10,
	ORC_MAP = 11,
	ORC_STRUCT = 12,
	ORC_UNION = 13,
	ORC_DECIMAL = 14,
	ORC_DATE = 15,
	ORC_VARCHAR = 16,
	ORC_CHAR = 17,
	ORC_TIMESTAMP_INSTANT = 18
} orc_type_kind;

typedef enum orc_stream_kind
{
	ORC_STREAM_PRESENT = 0,
	ORC_STREAM_DATA = 1,
	ORC_STREAM_LENGTH = 2,
	ORC_STREAM_DICTIONARY_DATA = 3,
	ORC_STREAM_DICTIONARY_COUNT = 4,
	ORC_STREAM_SECONDARY = 5,
	ORC_STREAM_ROW_INDEX = 6
} orc_stream_kind;

/* the stream kinds the reader uses, indexes into per-column stream arrays */
#define ORC_NSTREAMS 6			/* PRESENT..SECONDARY */

typedef enum orc_encoding_kind
{
	ORC_ENC_DIRECT = 0,
	ORC_ENC_DICTIONARY = 1,
	ORC_ENC_DIRECT_V2 = 2,
	ORC_ENC_DICTIONARY_V2 = 3
} orc_encoding_kind;

/* ---- file tail -------------------------------------------------------- */

typedef struct orc_type
{
	int			kind;			/* orc_type_kind */
	uint32_t   *subtypes;
	int			nsubtypes;
	char	  **field_names;	/* STRUCT: one per subtype */
	int			nfield_names;
	uint32_t	max_length;
	uint32_t	precision;
	uint32_t	scale;
	int32_t		paimon_id;		/* attribute "paimon.id"; -1 = absent */
} orc_type;

typedef struct orc_stripe_info
{
	uint64_t	offset;
	uint64_t	index_length;
	uint64_t	data_length;
	uint64_t	footer_length;
	uint64_t	nrows;
} orc_stripe_info;

typedef enum orc_stats_kind
{
	ORC_STATS_NONE = 0,
	ORC_STATS_INT,
	ORC_STATS_DOUBLE,
	ORC_STATS_STRING,
	ORC_STATS_DECIMAL,
	ORC_STATS_DATE,
	ORC_STATS_TIMESTAMP
} orc_stats_kind;

/* One ColumnStatistics; strings point into the decompressed metadata. */
typedef struct orc_col_stats
{
	bool		has_number_of_values;
	uint64_t	number_of_values;
	bool		has_has_null;
	bool		has_null;
	orc_stats_kind kind;
	bool		has_min;
	bool		has_max;
	int64_t		imin,
				imax;			/* INT, DATE, TIMESTAMP (utc millis) */
	double		dmin,
				dmax;
	const uint8_t *smin,
			   *smax;			/* STRING, DECIMAL text */
	uint32_t	smin_len,
				smax_len;
} orc_col_stats;

typedef struct orc_stripe_stats
{
	orc_col_stats *cols;
	int			ncols;
} orc_stripe_stats;

typedef struct orc_tail
{
	/* postscript */
	uint64_t	footer_length;
	int			compression;	/* orc_compression */
	uint64_t	block_size;
	uint64_t	metadata_length;
	/* footer */
	uint64_t	nrows;
	orc_stripe_info *stripes;
	int			nstripes;
	orc_type   *types;
	int			ntypes;
	/* metadata (may be absent: nstripe_stats = 0) */
	orc_stripe_stats *stripe_stats;
	int			nstripe_stats;
	/* buffers the above point into */
	uint8_t    *footer_buf;
	uint8_t    *metadata_buf;
} orc_tail;

typedef struct orc_stream_info
{
	int			kind;
	uint32_t	column;
	uint64_t	length;
	uint64_t	offset;			/* absolute file offset, computed */
} orc_stream_info;

typedef struct orc_encoding
{
	int			kind;			/* orc_encoding_kind */
	uint32_t	dictionary_size;
} orc_encoding;

typedef struct orc_stripe_footer
{
	orc_stream_info *streams;
	int			nstreams;
	orc_encoding *encodings;
	int			nencodings;
	char		writer_timezone[64];	/* "" when absent */
} orc_stripe_footer;

/* ---- orc_proto.c ------------------------------------------------------ */

bool		orc_parse_postscript(const uint8_t *p, size_t len, orc_tail *tail, ts_err *err);
/* footer bytes are decompressed; tail takes ownership of buf */
bool		orc_parse_footer(uint8_t *buf, size_t len, orc_tail *tail, ts_err *err);
bool		orc_parse_metadata(uint8_t *buf, size_t len, orc_tail *tail, ts_err *err);
void		orc_tail_free(orc_tail *tail);
bool		orc_parse_stripe_footer(const uint8_t *p, size_t len, orc_stripe_footer *sf,
									ts_err *err);
void		orc_stripe_footer_free(orc_stripe_footer *sf);

/* ---- orc_compress.c --------------------------------------------------- */

/*
 * Decompress an ORC compressed stream (sequence of 3-byte-header chunks)
 * into out (appended).  For ORC_COMP_NONE the bytes are copied.  More than
 * max_out bytes of output is TS_ERR_CORRUPT (a bomb, not a real file).
 */
bool		orc_decompress(int compression, uint64_t block_size,
						   const uint8_t *in, size_t len, size_t max_out,
						   ts_buf *out, ts_err *err);
const char *orc_compression_name(int compression);

/* ---- orc_rle.c -------------------------------------------------------- */

/* Byte run-length decoder (also the base of boolean RLE). */
typedef struct orc_byte_rle
{
	ts_cursor	c;
	uint8_t		buf[130];
	int			n;
	int			pos;
} orc_byte_rle;

void		orc_byte_rle_init(orc_byte_rle *d, const uint8_t *p, size_t len);
bool		orc_byte_rle_next(orc_byte_rle *d, uint8_t *out, ts_err *err);

typedef struct orc_bool_rle
{
	orc_byte_rle bytes;
	uint8_t		cur;
	int			bits_left;
} orc_bool_rle;

void		orc_bool_rle_init(orc_bool_rle *d, const uint8_t *p, size_t len);
bool		orc_bool_rle_next(orc_bool_rle *d, bool *out, ts_err *err);

/* Integer run-length decoder, version 1 or 2, signed or unsigned. */
typedef struct orc_int_rle
{
	ts_cursor	c;
	bool		is_signed;
	bool		v2;
	int64_t		buf[512];
	int			n;
	int			pos;
} orc_int_rle;

void		orc_int_rle_init(orc_int_rle *d, const uint8_t *p, size_t len,
							 bool is_signed, bool v2);
bool		orc_int_rle_next(orc_int_rle *d, int64_t *out, ts_err *err);

/* unbounded zig-zag base-128 varint (decimal DATA), up to 128 bits */
bool		orc_read_varint128(ts_cursor *c, ts_int128 *out, ts_err *err);

#endif							/* TS_ORC_INTERNAL_H */
