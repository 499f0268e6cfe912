/*
 * avro_container.h - the Avro object container file: header and blocks.
 *
 * Owns: the framing of an Avro file (magic "Obj\x01", metadata map with
 * avro.schema / avro.codec, 16-byte sync marker, then blocks of
 * [count, length, bytes, sync]) and the block codecs null, deflate,
 * snappy and zstandard.  Hands out one decompressed block at a time;
 * memory is bounded by a read-ahead window (or one compressed block when
 * larger; TS_AVRO_READ_AHEAD_REMOTE for an object, and the next such
 * window requested ahead) plus one decompressed
 * block, and TS_AVRO_AHEAD_BLOCKS more when
 * ZSTD blocks are decompressed ahead (avro_ahead.c), each with its decoded
 * objects when they are decoded ahead too (TS_AVRO_DECODE_AHEAD_VALUES).
 * Record decoding is avro_decode.c's job.
 */
#ifndef TS_AVRO_CONTAINER_H
#define TS_AVRO_CONTAINER_H

#include "base/ts_background.h"
#include "base/ts_fs.h"
#include "format/avro/avro_schema.h"

typedef enum ts_avro_codec
{
	TS_AVRO_CODEC_NULL,
	TS_AVRO_CODEC_DEFLATE,
	TS_AVRO_CODEC_SNAPPY,
	TS_AVRO_CODEC_ZSTANDARD
} ts_avro_codec;

/*
 * Bytes read from a file at a time: blocks (often tens of KB) are taken
 * from this window, a larger block is read whole.  The first block of a
 * window is decompressed in place (nothing could be queued for the helper
 * thread before the window was read): a MiB holds some 40 blocks of 27 KB
 * (Paimon's zstd blocks of 64 KB raw), so one block in 40 is.
 */
#define TS_AVRO_READ_AHEAD ((size_t) 1024 * 1024)

/*
 * The same for a file of an object store (a request each, not a pread):
 * chunks of this many bytes, the first one read with the header, so that
 * a file costs a round trip per 8 MiB, not one per MiB (nor two per
 * block when only the blocks' object counts are wanted).
 */
#define TS_AVRO_READ_AHEAD_REMOTE ((size_t) 8 << 20)

/*
 * ZSTD blocks handed to the helper thread at a time (avro_ahead.c): those
 * that follow the current one inside the read-ahead window, up to this many.
 * Eight: with their records decoded ahead too, sixteen held 8 MB more in a
 * merge of 16 runs and were no faster (bench/RESULTS.md).
 */
#define TS_AVRO_AHEAD_BLOCKS 8

/*
 * A block's objects decoded ahead too (the container's decode_ahead set):
 * at most this many values (objects x columns, 24 bytes each: 384 KB) a
 * block; a block of more is only decompressed ahead.  A block as Paimon
 * writes them (64 KB raw) of a table of ten columns holds some 6,000.
 */
#define TS_AVRO_DECODE_AHEAD_VALUES (16 * 1024)

struct ts_avro_flat;

typedef struct ts_avro_ahead_block
{
	ts_bg_job	job;
	ts_buf		buf;			/* decompressed into, then swapped with data */
	int64_t		offset;			/* file offset of the block's header */
	/*
	 * Decoding ahead (job.then, in whichever thread ran the job): the
	 * block's count objects into values (a row after row, as the reader's
	 * batch), by flat; decoded says all of them were, the bytes used up
	 * exactly.  Only what is here is read or written there, never the
	 * container.
	 */
	const struct ts_avro_flat *flat;
	int64_t		count;
	ts_value   *values;
	size_t		values_cap;		/* bytes */
	bool		decoded;
	ts_err		err;			/* the decoding's, unused (the scan decodes again to report) */
} ts_avro_ahead_block;

/* Largest decompressed block we accept (a bomb guard). */
#define TS_AVRO_MAX_BLOCK_BYTES ((size_t) 1 << 28)

typedef struct ts_avro_container
{
	ts_file    *file;
	const char *path;			/* = ts_file_path(file) */
	int64_t		file_size;
	char	   *schema_json;	/* ts_malloc'd, NUL-terminated */
	ts_avro_schema *schema;
	bool		schema_borrowed;	/* the caller's (open_known): not freed here */
	ts_avro_codec codec;
	uint8_t		sync[16];
	int64_t		next_offset;	/* file offset of the next block header */
	int32_t		nblocks;		/* blocks loaded so far; the current one is block nblocks - 1 (0-based) */
	bool		counts_only;	/* set by the reader: blocks' object counts, no bytes */
	bool		remote;			/* reads are requests: TS_AVRO_READ_AHEAD_REMOTE windows */
	ts_bufpool *buffers;		/* set by the reader: where the window and block
								 * buffers come from and go back to; may be NULL */
	/*
	 * Set by the reader, may be NULL: called with the file position of a
	 * block's first object and its object count; a block it returns false
	 * for is passed over unread (neither decompressed nor decoded, its sync
	 * marker still checked) and handed out as an empty one.
	 */
	bool		(*keep_block) (void *arg, int64_t first_row, int64_t nrows);
	void	   *keep_block_arg;
	int64_t		next_row;		/* file position of the next block's first object */
	int64_t		block_first_row;	/* ... of the current block's */
	int32_t		nblocks_skipped;	/* blocks keep_block left out */
	/* current block (block = NULL, block_len = 0 when counts_only) */
	const uint8_t *block;		/* decompressed bytes */
	size_t		block_len;
	int64_t		block_count;	/* objects in the block */
	int64_t		bytes_read;
	/* private */
	ts_buf		window;			/* file bytes read ahead, from window_off */
	int64_t		window_off;
	/* an object's next window, requested while this one is read (remote) */
	ts_file_reads *next_reads;	/* in flight; NULL once in, or none */
	uint8_t    *next_buf;
	size_t		next_cap;
	int64_t		next_off;
	size_t		next_len;		/* 0: none */
	ts_buf		data;			/* the decompressed block */
	/*
	 * Set by the reader, may be NULL: the step list its objects are decoded
	 * by (nout values a row); blocks decompressed ahead are decoded ahead
	 * with it, and block_values then holds the current block's objects
	 * (else NULL: the reader decodes block itself).  block_values stays
	 * valid until the next block is loaded.
	 */
	const struct ts_avro_flat *decode_ahead;
	int			decode_nout;
	const ts_value *block_values;
	ts_value   *values;			/* the buffer block_values points into */
	size_t		values_cap;
	int64_t		blocks_decoded_ahead;	/* blocks handed out with block_values */
	/* blocks queued for the helper thread: ahead[ahead_pos .. ahead_n) */
	ts_avro_ahead_block ahead[TS_AVRO_AHEAD_BLOCKS];
	int			ahead_pos;
	int			ahead_n;
} ts_avro_container;

/* Name of a codec as avro.codec spells it. */
const char *ts_avro_codec_name(ts_avro_codec codec);
/* Codec from its avro.codec name; false if unknown. */
bool		ts_avro_codec_parse(const char *name, ts_avro_codec *codec);

/*
 * Open a file and read its header: TS_ERR_CORRUPT on a bad magic or
 * header, TS_ERR_UNSUPPORTED for an unknown codec (naming codec and file).
 */
ts_avro_container *ts_avro_container_open(ts_fs *fs, const char *path, ts_err *err);

/*
 * The same, given a schema already parsed from the text known_json: when
 * the file's schema text is exactly that, 'known' is used (borrowed: it
 * must outlive the container, schema_borrowed says so) instead of being
 * parsed again.  For reading many files of one writer in a row.
 */
ts_avro_container *ts_avro_container_open_known(ts_fs *fs, const char *path, const char *known_json,
												ts_avro_schema *known, ts_err *err);

/*
 * Load the next block: 1 = a block is in block/block_len/block_count
 * (block_count 0, no bytes, for one keep_block left out),
 * 0 = end of file, -1 = error (TS_ERR_CORRUPT naming file and block).
 * The previous block's bytes become invalid.
 */
int			ts_avro_container_next_block(ts_avro_container *c, ts_err *err);

/*
 * For a reader that decodes each block's objects from *cur: the next block
 * holding objects.  First checks that the current block (*have_block) was
 * used up by its objects_read objects; then loads blocks (empty ones are
 * passed over), points *cur at the new one and sets *count, rejecting a
 * count that cannot fit in the block's bytes (not in counts_only mode,
 * where blocks are not read).  1 = a block, 0 = end of file, -1 = error.
 */
int			ts_avro_container_next_objects(ts_avro_container *c, ts_cursor *cur,
										   bool *have_block, int64_t objects_read,
										   int64_t *count, ts_err *err);

void		ts_avro_container_close(ts_avro_container *c);

/*
 * avro_ahead.c: ZSTD blocks decompressed ahead in the helper thread while
 * the reader decodes the current one (only when ts_bg_enabled()).
 * ts_avro_ahead_submit: after a block is loaded, queue the whole blocks
 * that follow it inside the window.  ts_avro_ahead_take: the block at
 * offset whose bytes are payload[0..size): true when it was decompressed
 * ahead (c->data holds it then); false when the caller decompresses it.
 * ts_avro_ahead_cancel: take back or wait for every queued block (before
 * the window is read again); ts_avro_ahead_free: that, and the buffers.
 * ts_avro_ahead_skip: the block at offset is passed over unread: its
 * queued decompression (if it is next) is waited for and dropped.
 */
void		ts_avro_ahead_submit(ts_avro_container *c);
bool		ts_avro_ahead_take(ts_avro_container *c, int64_t offset, const uint8_t *payload,
							   size_t size);
void		ts_avro_ahead_cancel(ts_avro_container *c);
void		ts_avro_ahead_skip(ts_avro_container *c, int64_t offset);
void		ts_avro_ahead_free(ts_avro_container *c);

/*
 * Decompress one block payload with a codec into out (reset first).
 * Exposed for tests.  'zstd_ctx' may point to a caller-owned ZSTD_DCtx*
 * (created at first use if NULL); zstd_ctx NULL = the process-wide one.
 */
bool		ts_avro_decompress(ts_avro_codec codec, const uint8_t *in, size_t len,
							   ts_buf *out, void **zstd_ctx, ts_err *err);

#endif							/* TS_AVRO_CONTAINER_H */
