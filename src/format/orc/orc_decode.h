/*
 * orc_decode.h - private interface between the ORC reader's files.
 *
 * Owns: the state of one requested column (orc_col) and of the current
 * stripe (orc_stripe), and the functions orc_tail.c, orc_column.c,
 * orc_stats.c and orc_schema.c offer to orc_reader.c.  Nothing here is
 * visible outside src/format/orc.
 */
#ifndef TS_ORC_DECODE_H
#define TS_ORC_DECODE_H

#include "base/ts_fs.h"
#include "base/ts_value.h"
#include "format/format.h"
#include "format/orc/orc_internal.h"
#include "format/orc/orc_tz.h"

#define ORC_TAIL_READ		(16 * 1024)
#define ORC_TAIL_READ_REMOTE ((size_t) 256 << 10)	/* one GET: postscript, footer, metadata */
#define ORC_MAX_META		((size_t) 256 << 20)	/* footer/metadata/stripe footer */
#define ORC_MAX_STREAM		((size_t) 1 << 30)
#define ORC_MAX_NESTED		((int64_t) 16 << 20)	/* nested items per batch */
#define ORC_TS_BASE			INT64_C(1420070400)		/* 2015-01-01 00:00:00 UTC */

typedef struct orc_col orc_col;

struct orc_col
{
	const ts_type *want;		/* requested Paimon type */
	const char *name;			/* for messages */
	uint32_t	id;				/* ORC column id */
	const orc_type *ot;
	orc_col   **children;		/* ROW: want->nfields (NULL = absent); ARRAY 1; MAP 2 */
	int			nchildren;

	/* per stripe */
	const uint8_t *s[ORC_NSTREAMS];
	size_t		slen[ORC_NSTREAMS];
	bool		has_present;
	orc_bool_rle present;
	orc_int_rle ints;			/* DATA (ints, secs, dict index) or LENGTH (list/map) */
	orc_int_rle ints2;			/* LENGTH (direct strings) or SECONDARY */
	orc_byte_rle bytes;
	orc_bool_rle bools;
	ts_cursor	raw;			/* float/double/string bytes/decimal varints */
	bool		dict;
	uint64_t   *dict_off;		/* dict_n + 1 offsets into dict_data */
	int64_t		dict_n;
	const uint8_t *dict_data;
	const orc_tz *tz;			/* timestamps: writer zone of this stripe */
};

/* The current stripe: its footer, decompressed streams and decode state. */
typedef struct orc_stripe
{
	ts_file    *file;
	const orc_tail *tail;
	int64_t    *bytes_read;		/* the reader's metrics */
	orc_stripe_footer sf;
	ts_buf	   *bufs;			/* decompressed streams */
	int			nbufs;
	int			bufcap;
	ts_arena	arena;			/* nested items, reset per batch */
	int64_t		nested_items;	/* in the current batch */
	orc_tz	   *tz;				/* writer zone, loaded on first timestamp column */
	char		tzname[64];
	uint8_t   **raw;			/* per stream of sf: its file bytes read ahead, or NULL */
	int			nraw;
} orc_stripe;

/* ---- orc_tail.c ------------------------------------------------------- */

/* read and decompress [off, off+len) into a fresh out (ts_buf_free it) */
bool		orc_read_section(ts_file *f, const orc_tail *tail, uint64_t off, uint64_t len,
							 size_t max_out, ts_buf *out, int64_t *bytes_read, ts_err *err);
/*
 * decompress the len file bytes at *raw (a ts_malloc'd section read
 * already) into a fresh out; *raw is taken over (NULL afterwards)
 */
bool		orc_section_from(const orc_tail *tail, uint8_t **raw, size_t len, size_t max_out,
							 ts_buf *out, ts_err *err);
/*
 * postscript, footer and metadata, read by one request when they lie in
 * the last ORC_TAIL_READ (an object: ORC_TAIL_READ_REMOTE) bytes (else two); on failure orc_tail_free still
 * needed
 */
bool		orc_read_tail(ts_file *f, orc_tail *tail, int64_t *bytes_read, ts_err *err);
/*
 * The same from tbuf, the last tlen bytes of a file of fsize bytes: false
 * with *need (> tlen) the bytes from the end it needs when they are more
 * (err not set then); on failure orc_tail_free still needed.
 */
bool		orc_tail_from_bytes(const uint8_t *tbuf, size_t tlen, uint64_t fsize, orc_tail *tail,
								uint64_t *need, ts_err *err);
const char *orc_type_kind_name(int kind);

/* ---- orc_column.c ----------------------------------------------------- */

/* child index of struct column sid for (field_id, name); -1 if none */
int			orc_find_struct_child(const orc_tail *tail, uint32_t sid, int32_t field_id,
								  const char *name);
orc_col    *orc_col_build(const orc_tail *tail, uint32_t id, const ts_type *want,
						  const char *name, ts_err *err);
void		orc_col_free(orc_col *c);
/* load c's (and its children's) streams of the stripe whose footer is sp->sf */
bool		orc_col_load(orc_stripe *sp, orc_col *c, ts_err *err);
/* decode the next n values of c into out[0], out[stride], ... */
bool		orc_col_read(orc_stripe *sp, orc_col *c, int64_t n, ts_value *out, size_t stride,
						 ts_err *err);
/* free the stream buffers and the stripe footer (keeps arena and zone) */
void		orc_stripe_release(orc_stripe *sp);

/* ---- orc_plan.c ------------------------------------------------------- */

/* mark the ORC column ids of c and its children in used[0..nused) */
void		orc_plan_mark_columns(const orc_col *c, bool *used, int nused);
/*
 * the indexes (into sf->streams, in file order) of the non-empty streams
 * the used columns are decoded from, into sel (room for sf->nstreams);
 * returns their number
 */
int			orc_plan_stripe_streams(const orc_stripe_footer *sf, const bool *used, int nused,
									int *sel);
/* does stripe si lie in a file of fsize bytes (offset + index + data + footer, overflow-safe)? */
bool		orc_stripe_in_file(const orc_stripe_info *si, uint64_t fsize);
/*
 * the stripe read after stripe 'after' (rows, and starting in [range_start,
 * range_end) when range_end > 0), or -1: its footer is read ahead
 */
int			orc_plan_next_stripe(const orc_tail *tail, int after, int64_t range_start,
								 int64_t range_end);
/*
 * stripe s's footer from its file bytes *raw (taken over) into *sf, with
 * every stream's file offset (each must lie in the stripe's data)
 */
bool		orc_stripe_footer_from(const orc_tail *tail, int s, uint8_t **raw,
								   orc_stripe_footer *sf, ts_err *err);
/*
 * add the streams sel[0..m-1] of footer sf (orc_plan_stripe_streams) to
 * ranges (*n), their bytes into a fresh *raw (one slot per stream of sf,
 * *nraw of them)
 */
struct ts_range;
bool		orc_plan_selected_ranges(const orc_stripe_footer *sf, const int *sel, int m,
									 uint8_t ***raw, int *nraw, struct ts_range *ranges, int *n,
									 ts_err *err);
/* the same for the streams orc_plan_stripe_streams selects */
bool		orc_plan_stream_ranges(const bool *used, int nused, const orc_stripe_footer *sf,
								   uint8_t ***raw, int *nraw, struct ts_range *ranges, int *n,
								   ts_err *err);

/* ---- orc_window.c ----------------------------------------------------- */

/*
 * The stripes after the current one read ahead on an object store (no
 * row or statistics filter): their footers together, then the streams the
 * projection reads of as many as fit in TS_RANGE_AHEAD_BYTES.
 */
#define ORC_WINDOW_SLOTS 16
typedef struct orc_window_slot
{
	int			stripe;
	uint8_t    *footer;			/* its footer's file bytes, read ahead; NULL once parsed */
	uint8_t    *block;			/* whole: the stripe's file bytes; NULL once its streams are out */
	bool		parsed;			/* sf holds it */
	bool		started;		/* its streams' reads were started */
	orc_stripe_footer sf;
	uint8_t   **raw;			/* per stream of sf: its file bytes, or NULL */
	int			nraw;
	ts_file_reads *reads;		/* the streams in flight; NULL once in */
	int64_t		bytes;
} orc_window_slot;

typedef struct orc_window
{
	ts_file    *file;
	const orc_tail *tail;
	const bool *used;			/* per ORC column id: read by the projection */
	int			nused;
	int64_t		range_start,
				range_end;
	int64_t    *bytes_read;		/* the reader's metrics */
	bool		off;			/* not used (a filter, a local file) or dropped */
	bool		whole;			/* every column read: each stripe read whole, footer and streams */
	orc_window_slot *slots;		/* ORC_WINDOW_SLOTS, a ring */
	int			first;
	int			n;
	int			last;			/* the last stripe given a slot, -1 */
	bool		end;			/* no stripe left to give one */
	ts_file_reads *footer_reads;	/* footers in flight */
	int64_t		bytes;			/* of the streams started */
} orc_window;

/* off: each stripe is read in turn (a filter, a local file) */
void		orc_window_init(orc_window *w, ts_file *file, const orc_tail *tail, const bool *used,
							int nused, int64_t range_start, int64_t range_end,
							int64_t *bytes_read, bool off);
/*
 * stripe idx (the next one the reader keeps) read ahead: its footer and
 * streams into st->sf, st->raw (true); false: read it in turn (nothing
 * was, or something failed, which reading in turn reports)
 */
bool		orc_window_take(orc_window *w, int idx, orc_stripe *st);
/* move the reads ahead on (between batches) */
void		orc_window_drive(orc_window *w);
/*
 * What the window would read first of another file of the same types,
 * given that file's last tail_len bytes (ts_format_ranges_like): its
 * first ORC_WINDOW_SLOTS stripes' footers, or the streams the projection
 * reads of those whose footers held has, or, when every column is read,
 * its first stripes whole; within budget (always the first), at most max.
 */
int			orc_window_ranges_like(const orc_window *w, const uint8_t *tail, size_t tail_len,
								   int64_t file_size, const ts_held_bytes *held, int64_t budget,
								   ts_range *out, int max);
void		orc_window_free(orc_window *w);

/* ---- orc_stats.c ------------------------------------------------------ */

/* stats of requested column c (NULL = not in the file) in stripe */
void		orc_fill_stats(const orc_tail *tail, int stripe, const orc_col *c,
						   ts_column_stats *cs);

#endif							/* TS_ORC_DECODE_H */
