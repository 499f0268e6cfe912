/*
 * pq_internal.h - shared declarations of the native Parquet reader.
 *
 * Owns: the in-memory form of the Parquet footer (FileMetaData, schema
 * elements, row groups, column chunks, statistics) and of page headers, as
 * decoded from Thrift compact protocol by pq_thrift.c / pq_meta.c; the
 * decompression entry point (pq_codec.c); the level/value decoders
 * (pq_encoding.c), the leaf column chunk reader (pq_column.c) and its
 * fast path for flat columns (pq_flat.c).
 * Everything here is private to src/format/parquet; the public entry point
 * is ts_parquet_open() in format.h.
 */
#ifndef TS_PQ_INTERNAL_H
#define TS_PQ_INTERNAL_H

#include "format/format.h"
#include "base/ts_background.h"
#include "base/ts_fs.h"
#include "base/ts_ranges.h"

/* ---- Thrift compact protocol --------------------------------------- */

enum
{
	PQ_T_STOP = 0,
	PQ_T_TRUE = 1,
	PQ_T_FALSE = 2,
	PQ_T_BYTE = 3,
	PQ_T_I16 = 4,
	PQ_T_I32 = 5,
	PQ_T_I64 = 6,
	PQ_T_DOUBLE = 7,
	PQ_T_BINARY = 8,
	PQ_T_LIST = 9,
	PQ_T_SET = 10,
	PQ_T_MAP = 11,
	PQ_T_STRUCT = 12
};

#define PQ_THRIFT_MAX_DEPTH 32

typedef struct pq_thrift
{
	ts_cursor	c;
	int			depth;
	ts_err	   *err;
	size_t		budget;			/* bytes the decoded metadata may still take */
} pq_thrift;

/* one struct level: remembers the last field id for delta encoding */
typedef struct pq_tstruct
{
	int16_t		last_id;
} pq_tstruct;

bool		pq_t_begin(pq_thrift *t, pq_tstruct *s);
void		pq_t_end(pq_thrift *t);
/* next field of a struct; false on error; *type = PQ_T_STOP at the end */
bool		pq_t_field(pq_thrift *t, pq_tstruct *s, int16_t *id, int *type);
bool		pq_t_i32(pq_thrift *t, int type, int32_t *out);
bool		pq_t_i64(pq_thrift *t, int type, int64_t *out);
bool		pq_t_bool(pq_thrift *t, int type, bool *out);
bool		pq_t_binary(pq_thrift *t, int type, const uint8_t **p, uint32_t *len);
bool		pq_t_list(pq_thrift *t, int type, int *elem_type, uint32_t *count);
bool		pq_t_skip(pq_thrift *t, int type);

/* ---- metadata ------------------------------------------------------ */

enum pq_phys
{
	PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3,
	PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6, PQ_FIXED = 7
};

enum pq_rep
{
	PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2
};

/* ConvertedType values we look at */
enum
{
	PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3,
	PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9,
	PQ_CT_TIMESTAMP_MICROS = 10, PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12,
	PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14
};

/* LogicalType union member (field id in parquet.thrift) */
enum
{
	PQ_LT_NONE = 0, PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3,
	PQ_LT_ENUM = 4, PQ_LT_DECIMAL = 5, PQ_LT_DATE = 6, PQ_LT_TIME = 7,
	PQ_LT_TIMESTAMP = 8, PQ_LT_INTEGER = 10, PQ_LT_UNKNOWN = 11,
	PQ_LT_JSON = 12, PQ_LT_BSON = 13, PQ_LT_UUID = 14
};

enum pq_unit
{
	PQ_UNIT_NONE = 0, PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3
};

typedef struct pq_schema_elem
{
	char	   *name;			/* NUL-terminated copy */
	int32_t		type;			/* pq_phys; -1 for groups */
	int32_t		type_length;
	int32_t		repetition;		/* pq_rep; -1 when absent (root) */
	int32_t		num_children;
	int32_t		converted_type; /* -1 when absent */
	int32_t		scale;
	int32_t		precision;
	bool		has_field_id;
	int32_t		field_id;
	int32_t		logical;		/* PQ_LT_* */
	int32_t		lt_unit;		/* TIME / TIMESTAMP */
	bool		lt_utc;
	int32_t		lt_scale;
	int32_t		lt_precision;
	int32_t		lt_bits;		/* INTEGER */
	bool		lt_signed;
} pq_schema_elem;

typedef struct pq_stats
{
	bool		present;
	const uint8_t *min,
			   *max;			/* legacy fields 2/1 */
	uint32_t	min_len,
				max_len;
	const uint8_t *min_value,
			   *max_value;		/* fields 6/5 */
	uint32_t	min_value_len,
				max_value_len;
	bool		has_min,
				has_max,
				has_min_value,
				has_max_value;
	int64_t		null_count;		/* -1 absent */
} pq_stats;

typedef struct pq_column_chunk
{
	bool		has_meta;
	bool		external;		/* file_path set: data in another file */
	int32_t		type;
	int32_t		codec;
	int64_t		num_values;
	int64_t		total_compressed_size;
	int64_t		total_uncompressed_size;
	int64_t		data_page_offset;
	int64_t		dictionary_page_offset; /* -1 absent */
	pq_stats	stats;
} pq_column_chunk;

typedef struct pq_row_group
{
	int64_t		num_rows;
	int32_t		ncolumns;
	pq_column_chunk *columns;
} pq_row_group;

typedef struct pq_file_meta
{
	int32_t		nschema;
	pq_schema_elem *schema;
	int64_t		num_rows;
	int32_t		nrow_groups;
	pq_row_group *row_groups;
} pq_file_meta;

/* Parse FileMetaData; strings in stats point into buf (keep it alive). */
bool		pq_parse_file_meta(const uint8_t *buf, size_t len, pq_file_meta *m, ts_err *err);
void		pq_free_file_meta(pq_file_meta *m);

enum
{
	PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICT = 2, PQ_PAGE_DATA_V2 = 3
};

typedef struct pq_page_header
{
	int32_t		type;
	int32_t		uncompressed_size;
	int32_t		compressed_size;
	int32_t		num_values;
	int32_t		encoding;
	int32_t		def_encoding;
	int32_t		rep_encoding;
	/* v2 */
	int32_t		num_nulls;
	int32_t		num_rows;
	int32_t		def_len;
	int32_t		rep_len;
	bool		is_compressed;
	bool		has_data_header;
	bool		has_dict_header;
} pq_page_header;

/* Parse a page header at the cursor, advancing it. */
bool		pq_parse_page_header(ts_cursor *c, pq_page_header *h, ts_err *err);

/* ---- compression --------------------------------------------------- */

enum
{
	PQ_CODEC_UNCOMPRESSED = 0, PQ_CODEC_SNAPPY = 1, PQ_CODEC_GZIP = 2,
	PQ_CODEC_LZO = 3, PQ_CODEC_BROTLI = 4, PQ_CODEC_LZ4 = 5,
	PQ_CODEC_ZSTD = 6, PQ_CODEC_LZ4_RAW = 7
};

const char *pq_codec_name(int codec);
bool		pq_codec_supported(int codec);

/* Decompress src into dst, which must receive exactly dst_len bytes. */
bool		pq_decompress(int codec, const uint8_t *src, size_t src_len,
						  uint8_t *dst, size_t dst_len, ts_err *err);

/*
 * The same, reusing the decompression context in *zstd_ctx (created on
 * first use with ts_malloc; NULL zstd_ctx: a context per call).  Free it
 * with pq_codec_ctx_free.
 */
bool		pq_decompress_with(void **zstd_ctx, int codec, const uint8_t *src, size_t src_len,
							   uint8_t *dst, size_t dst_len, ts_err *err);
void		pq_codec_ctx_free(void *zstd_ctx);

/* ---- encodings ----------------------------------------------------- */

enum
{
	PQ_ENC_PLAIN = 0, PQ_ENC_PLAIN_DICTIONARY = 2, PQ_ENC_RLE = 3,
	PQ_ENC_BIT_PACKED = 4, PQ_ENC_DELTA_BINARY_PACKED = 5,
	PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6, PQ_ENC_DELTA_BYTE_ARRAY = 7,
	PQ_ENC_RLE_DICTIONARY = 8, PQ_ENC_BYTE_STREAM_SPLIT = 9
};

/* RLE / bit-packed hybrid decoder (levels, booleans, dictionary ids) */
typedef struct pq_rle
{
	const uint8_t *p,
			   *end;
	int			bit_width;
	uint32_t	rle_left;
	uint32_t	rle_value;
	uint32_t	bp_left;		/* values left in the current bit-packed run */
	const uint8_t *bp;			/* start of the bit-packed run */
	uint64_t	bp_pos;			/* bit position inside the run */
	bool		msb;			/* deprecated BIT_PACKED levels: MSB first */
} pq_rle;

void		pq_rle_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width);
/* the deprecated BIT_PACKED level encoding (data page v1 only) */
void		pq_bitpacked_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width);
/* Decode exactly n values; false (corrupt) when the data ends early. */
bool		pq_rle_get(pq_rle *r, uint32_t *out, int n, ts_err *err);
/*
 * Decode exactly n levels as flags: out[i] = (level == present); counts
 * the ones in *npresent; a level above present is corrupt.
 */
bool		pq_rle_get_present(pq_rle *r, uint8_t *out, int n, uint32_t present,
							   int *npresent, ts_err *err);

/* DELTA_BINARY_PACKED streaming decoder */
typedef struct pq_delta
{
	const uint8_t *p,
			   *end;
	uint64_t	block_size;
	uint64_t	minis;			/* miniblocks per block */
	uint64_t	per_mini;		/* values per miniblock */
	uint64_t	total;			/* values in the stream */
	uint64_t	emitted;
	uint64_t	last;			/* last value (wrapping arithmetic) */
	uint64_t	min_delta;
	const uint8_t *widths;		/* bit widths of the current block */
	uint64_t	mini;			/* current miniblock index */
	uint64_t	mini_left;		/* values left in the current miniblock */
	const uint8_t *mini_data;
	uint64_t	mini_pos;		/* bit position in the miniblock */
	int			width;
} pq_delta;

bool		pq_delta_init(pq_delta *d, const uint8_t *p, size_t len, ts_err *err);
bool		pq_delta_next(pq_delta *d, int64_t *out, ts_err *err);
/* Consume every value and return where the stream ends. */
bool		pq_delta_end(pq_delta *d, const uint8_t **end, ts_err *err);

int			pq_bit_width(uint64_t max_value);


/* ---- leaf column chunk reader (pq_column.c) ------------------------- */

#define PQ_LEVEL_CHUNK 2048

/* how a physical value becomes the requested Paimon value */
typedef enum pq_conv
{
	PQ_CONV_NONE,				/* ints, bool, float, double, bytes as they are */
	PQ_CONV_U32,				/* unsigned INT32 */
	PQ_CONV_F2D,				/* FLOAT read as DOUBLE */
	PQ_CONV_I2D,				/* INT32/INT64 read as DOUBLE */
	PQ_CONV_TIME_MICROS,		/* INT64 micros of day -> millis */
	PQ_CONV_TIME_NANOS,
	PQ_CONV_TS_MILLIS,			/* INT64 -> {millis, nanos} */
	PQ_CONV_TS_MICROS,
	PQ_CONV_TS_NANOS,
	PQ_CONV_TS_INT96,
	PQ_CONV_DEC_INT,			/* INT32/INT64 unscaled */
	PQ_CONV_DEC_BYTES			/* big-endian two's complement */
} pq_conv;

typedef struct pq_mem
{
	void	   *p;
	size_t		cap;
} pq_mem;

/*
 * A page of the next column chunk queued for decompression (pq_ahead.c):
 * its dictionary page and its first data page.
 */
#define PQ_AHEAD_PAGES 2
typedef struct pq_ahead_page
{
	ts_bg_job	job;
	uint8_t    *buf;
	size_t		cap;
	/* a page the job reads itself (pq_ahead_next_page): its bytes, their offset in the file */
	uint8_t    *src_buf;
	size_t		src_cap;
	int64_t		src_off;
} pq_ahead_page;

typedef struct pq_leaf
{
	/* fixed at open */
	const char *path;			/* dotted column path, for messages */
	const pq_schema_elem *elem;
	int			column_index;	/* index in the row group's columns */
	int			phys;
	int			type_length;
	int			max_def;
	int			max_rep;
	const ts_type *type;		/* requested Paimon type of the values */
	pq_conv		conv;
	const char *file;			/* file path, for messages */
	ts_bufpool *shared;			/* buffers shared with other readers, or NULL */
	size_t		self_cap;		/* bytes of the pool buffer this leaf lives in */
	void	  **zstd_ctx;		/* the reader's decompression context, or NULL */

	/* current column chunk */
	uint8_t    *chunk;			/* reused from row group to row group */
	size_t		chunk_cap;
	ts_cursor	cur;
	/* a chunk read page by page through chunk[] (pq_chunk_stream.c) */
	ts_file    *stream_file;	/* NULL: the whole chunk is in chunk[] */
	int64_t		stream_off;		/* file offset of its first byte not read yet */
	int64_t		stream_left;	/* its bytes not read yet */
	size_t		stream_window;	/* bytes chunk[] is refilled to */
	bool		stream_pinned;	/* values of the current batch point into chunk[] */
	int			codec;
	int64_t		values_left;
	int64_t		max_page_size;
	bool		has_dict;
	ts_value   *dict;
	int32_t		ndict;
	size_t		dict_cap;		/* entries allocated in dict */
	uint8_t    *dict_buf;
	size_t		dict_buf_cap;

	/* current data page */
	uint8_t    *page_buf;
	size_t		page_buf_cap;
	int64_t		page_left;		/* level entries left in the page */
	pq_rle		def_dec;
	pq_rle		rep_dec;
	int			enc;
	const uint8_t *vp,
			   *vend;
	uint64_t	bitpos;			/* PLAIN booleans */
	pq_rle		vrle;			/* dictionary ids, RLE booleans */
	pq_delta	vdelta;			/* DELTA_BINARY_PACKED, lengths, prefixes */
	pq_delta	vdelta2;		/* DELTA_BYTE_ARRAY suffix lengths */
	const uint8_t *prev;		/* DELTA_BYTE_ARRAY previous value */
	uint32_t	prev_len;
	uint64_t	bss_index;		/* BYTE_STREAM_SPLIT */
	uint64_t	bss_n;
	uint8_t    *blob;			/* materialised values (page-owned) */
	size_t		blob_used,
				blob_cap;
	size_t		blob_total;

	/* decoded entries of the current chunk */
	int			nbuf,
				pos;
	int			nvals,
				vpos;
	uint16_t	def[PQ_LEVEL_CHUNK];
	uint16_t	rep[PQ_LEVEL_CHUNK];
	uint32_t	tmp[PQ_LEVEL_CHUNK];
	uint8_t		present[PQ_LEVEL_CHUNK];	/* pq_leaf_read_flat: value, not null */
	ts_value	vals[PQ_LEVEL_CHUNK];

	/* memory freed at the start of the next batch / owned by the page */
	pq_mem	   *retired;
	int			nretired,
				capretired;
	pq_mem	   *page_owned;
	int			npage_owned,
				cappage_owned;
	pq_mem		pool[8];		/* released page buffers, for reuse */
	int			npool;

	/* the next chunk read ahead, its first pages queued (pq_ahead.c) */
	uint8_t    *ahead_chunk;
	size_t		ahead_chunk_cap;
	int			ahead_rg;		/* its row group, -1 = none */
	bool		ahead_current;	/* swapped in: the jobs are the current chunk's */
	int			nahead;
	pq_ahead_page ahead[PQ_AHEAD_PAGES];
	/* the current chunk's page after the current one, queued (pq_ahead.c) */
	pq_ahead_page next_page;
	bool		next_page_queued;
	bool		next_page_settled;	/* finished early: its buffer holds the page */
} pq_leaf;

/*
 * *p (a buffer of the leaf's pool, *cap bytes) grown to hold len bytes,
 * its contents not kept; false when out of memory.
 */
bool		pq_leaf_reserve(pq_leaf *l, uint8_t **p, size_t *cap, size_t len);
/* The leaf's (reused) buffer for the next column chunk's len bytes. */
uint8_t    *pq_leaf_chunk_buffer(pq_leaf *l, size_t len, ts_err *err);
/* Start reading the column chunk now in l->chunk[0..len). */
bool		pq_leaf_start(pq_leaf *l, size_t len, const pq_column_chunk *cc, ts_err *err);
/*
 * pq_chunk_stream.c.  pq_leaf_start_stream: start reading the column chunk
 * at [off, off + len) of f page by page through l->chunk, refilled to
 * window bytes as its pages are consumed.  pq_leaf_stream_ensure: at least
 * need bytes (or all the chunk has left) at l->cur, refilling l->chunk (a
 * page larger than the buffer is read whole); the bytes before l->cur may
 * move.  A no-op for a chunk read whole.
 */
bool		pq_leaf_start_stream(pq_leaf *l, ts_file *f, int64_t off, int64_t len, size_t window,
								 const pq_column_chunk *cc, ts_err *err);
bool		pq_leaf_stream_ensure(pq_leaf *l, size_t need, ts_err *err);
/*
 * The same reading only need bytes, not a window: a page header whose page
 * a job may read.  PQ_HEADER_PEEK: what is read for a header (one with
 * larger statistics is read again, longer).
 */
#define PQ_HEADER_PEEK 1024
bool		pq_leaf_stream_peek(pq_leaf *l, size_t need, ts_err *err);
/*
 * pq_column.c.  The page after the current one (size bytes at l->cur) into
 * the buffer when it is to be decompressed ahead; only its header when the
 * helper thread's job reads it from the file.
 */
bool		pq_leaf_stream_page_ahead(pq_leaf *l, size_t size, ts_err *err);
/* Pass over the next n bytes of the chunk without reading them (a page read by a job). */
bool		pq_leaf_stream_skip(pq_leaf *l, size_t n, ts_err *err);
/* Decode the next level chunk; l->nbuf == 0 afterwards means the chunk ended. */
bool		pq_leaf_fill(pq_leaf *l, ts_err *err);
/*
 * Read the next n rows of a flat leaf (no repetition levels) straight into
 * out[0], out[stride], ... out[(n - 1) * stride]; false on error, including
 * a chunk that ends before n rows.
 */
bool		pq_leaf_read_flat(pq_leaf *l, ts_value *out, size_t stride, int n, ts_err *err);
/* Free memory that values of the previous batch pointed into. */
void		pq_leaf_release(pq_leaf *l);
/* Retire all chunk memory (end of row group) and free everything else. */
void		pq_leaf_end_chunk(pq_leaf *l);
/*
 * A leaf with its fields zeroed, in a buffer of 'shared' (NULL: allocated):
 * its level and value arrays (~68 KB, scratch written before they are read)
 * are memory a file before already faulted in.  pq_leaf_free hands it back.
 */
pq_leaf    *pq_leaf_new(ts_bufpool *shared);
void		pq_leaf_free(pq_leaf *l);

/* A page buffer of at least size bytes (*cap = its size); NULL + *err. */
uint8_t    *pq_leaf_page_alloc(pq_leaf *l, size_t size, size_t *cap, ts_err *err);
/* A page buffer nothing points into, kept for the next page. */
void		pq_leaf_page_recycle(pq_leaf *l, void *p, size_t cap);
/* The largest page a column chunk may hold. */
int64_t		pq_leaf_max_page_size(const pq_column_chunk *cc);

/*
 * pq_ahead.c.  pq_ahead_wanted: is the leaf's chunk cc worth reading ahead
 * -- a ZSTD chunk when background decompression is on, or any chunk of a
 * file on an object store (remote: its bytes alone are worth it).
 * pq_ahead_adopt: drop what was read ahead and make *buf (*cap bytes, row
 * group rg's chunk of len bytes, read ahead: pq_window.c) the leaf's chunk
 * read ahead, giving back in *buf / *cap the buffer it held; then queue its
 * dictionary page and first data page (a ZSTD chunk when background
 * decompression is on).  pq_ahead_take_chunk: when that is row group rg's chunk, make
 * it the current chunk (true); otherwise drop what was read ahead (false).
 * pq_ahead_take_page: 1 when the current chunk's page at src was queued:
 * *buf (a page buffer) then holds its ulen decompressed bytes; 0 when it
 * was not; -1 + *err when its data is bad.  pq_ahead_cancel: take back or
 * wait for the leaf's jobs; pq_ahead_free: that, and free the buffer.
 */
bool		pq_ahead_wanted(const pq_column_chunk *cc, bool remote);
void		pq_ahead_adopt(pq_leaf *l, int rg, uint8_t **buf, size_t *cap, int64_t len,
						   const pq_column_chunk *cc);
bool		pq_ahead_take_chunk(pq_leaf *l, int rg);
int			pq_ahead_take_page(pq_leaf *l, const uint8_t *src, size_t len, size_t ulen,
							   uint8_t **buf, size_t *cap, ts_err *err);
void		pq_ahead_cancel(pq_leaf *l);
void		pq_ahead_free(pq_leaf *l);

/*
 * Queue the data page that follows the current one in the chunk (at
 * l->cur), when it is ZSTD and background decompression is on (writers
 * other than DuckDB put many pages in a chunk); pq_ahead_take_page then
 * gives it.  pq_ahead_cancel_next_page takes it back (end of the chunk).
 * A chunk read page by page (pq_chunk_stream.c) moves the queued page's
 * bytes when it refills its buffer, as the reader reaches that page:
 * pq_ahead_settle_next_page first finishes the job (it is the page the
 * reader decodes next, so it would wait for it anyway) and keeps what it
 * decompressed, or drops it when the thread had not started it;
 * pq_ahead_move_next_page then tells where its have bytes from `from` went.
 */
void		pq_ahead_next_page(pq_leaf *l);
/*
 * A chunk read page by page from a local file: a ZSTD data page after the
 * current one that is not in the buffer (larger than half its window) is
 * not read into it; the job reads it from the file itself, in the helper
 * thread, and decompresses it (pq_ahead_next_page queues it from its header
 * alone).  pq_ahead_reads_itself: is h (just parsed by
 * pq_leaf_stream_page_ahead) such a page?  pq_ahead_reads_page: is the page of
 * header h, whose bytes start at data_off in the file, the one queued so?
 * The reader then passes over its bytes (pq_leaf_stream_skip) and
 * pq_ahead_take_read_page gives it decompressed: 1, or -1 + *err (a job
 * that did not run or failed is read and decompressed in place, which
 * says what is wrong).
 */
bool		pq_ahead_reads_itself(const pq_leaf *l, const pq_page_header *h);
/*
 * A chunk whose stream just started: its first data page queued the same
 * way (so that the leaves of a row group, opened together, have theirs read
 * and decompressed side by side); false + *err when its first bytes cannot
 * be read.
 */
bool		pq_ahead_first_page(pq_leaf *l, ts_err *err);
bool		pq_ahead_reads_page(const pq_leaf *l, const pq_page_header *h, int64_t data_off);
int			pq_ahead_take_read_page(pq_leaf *l, uint8_t **buf, size_t *cap, ts_err *err);
void		pq_ahead_cancel_next_page(pq_leaf *l);
void		pq_ahead_settle_next_page(pq_leaf *l);
void		pq_ahead_move_next_page(pq_leaf *l, const uint8_t *from, size_t have, const uint8_t *to);
/* Pages the reader took decompressed from the helper thread, since the process started (tests, bench). */
int64_t		pq_ahead_pages_taken(void);

/* Load the next data page; page_left == 0 afterwards means the chunk ended. */
bool		pq_leaf_next_page(pq_leaf *l, ts_err *err);
/* Decode n non-null values of the current page into out, converted. */
bool		pq_leaf_decode_values(pq_leaf *l, ts_value *out, int n, ts_err *err);
/* Bytes of one PLAIN value of a fixed-width physical type; 0 otherwise. */
int			pq_phys_size(const pq_leaf *l);

/* a / b rounded towards minus infinity (b > 0) */
static inline int64_t
pq_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Convert n physical values in place to the leaf's requested type. */
bool		pq_convert(const pq_leaf *l, ts_value *v, int n, ts_err *err);
/* Decode one PLAIN value (statistics) into v, converted. */
bool		pq_decode_plain_one(const pq_leaf *l, const uint8_t *p, uint32_t len, ts_value *v, ts_err *err);

#endif							/* TS_PQ_INTERNAL_H */
