/*
 * pq_write_levels.c - repetition and definition levels of a page, encoded
 * as Java's parquet-mr encodes them.
 *
 * Owns: pq_write_levels(), the RLE / bit-packed hybrid encoder of the
 * writer.  The run choice is parquet-mr's (RunLengthBitPackingHybridEncoder),
 * so a page's levels have the bytes a Java writer would give them: values
 * are taken 8 at a time; a value seen 8 times in a row or more (counted
 * from the last group packed) becomes an RLE run, anything else is
 * bit-packed in groups of 8, at most 63 groups under one one-byte header,
 * the last group padded with zeros.  Mixed levels (nulls among values)
 * thus cost about a bit each and decode a byte at a time, instead of a run
 * header every few values.
 */
#include <string.h>

#include "format/parquet/pq_write_internal.h"

#define GROUPS_PER_RUN 63		/* (2^6 - 1): the count fits a one-byte varint */

typedef struct level_encoder
{
	ts_thrift_out *o;
	int			width;			/* bits per value, 1..8 */
	uint8_t		group[8];		/* values since the last group packed */
	int			ngroup;
	uint8_t		previous;		/* the value being counted */
	size_t		repeats;		/* how many times in a row, since the last group packed */
	size_t		run_header;		/* offset of the open bit-packed run's header, or SIZE_MAX */
	int			run_groups;		/* groups in that run */
} level_encoder;

/* Closes the open bit-packed run: its header byte gets its group count. */
static void
end_packed_run(level_encoder *e)
{
	if (e->run_header == SIZE_MAX)
		return;
	if (!e->o->failed)
		e->o->b->data[e->run_header] = (uint8_t) ((e->run_groups << 1) | 1);
	e->run_header = SIZE_MAX;
	e->run_groups = 0;
}

/* The 8 buffered values, packed from the least significant bit, into the open run. */
static void
pack_group(level_encoder *e)
{
	uint64_t	bits = 0;
	uint8_t		bytes[8];

	if (e->run_groups >= GROUPS_PER_RUN)
		end_packed_run(e);
	if (e->run_header == SIZE_MAX)
	{
		e->run_header = e->o->b->len;
		ts_thrift_byte(e->o, 0);	/* the header, set when the run ends */
	}
	for (int i = 0; i < 8; i++)
		bits |= (uint64_t) e->group[i] << (i * e->width);
	for (int i = 0; i < e->width; i++)
		bytes[i] = (uint8_t) (bits >> (8 * i));
	ts_thrift_raw(e->o, bytes, (size_t) e->width);
	e->ngroup = 0;
	e->repeats = 0;
	e->run_groups++;
}

/* The counted repeats as one RLE run (the value in one byte: width <= 8). */
static void
rle_run(level_encoder *e)
{
	end_packed_run(e);
	ts_thrift_varint(e->o, (uint64_t) e->repeats << 1);
	ts_thrift_byte(e->o, e->previous);
	e->repeats = 0;
	e->ngroup = 0;
}

static void
put_level(level_encoder *e, uint8_t v)
{
	if (v == e->previous)
	{
		if (++e->repeats >= 8)
			return;				/* an RLE run for sure: only count */
	}
	else
	{
		if (e->repeats >= 8)
			rle_run(e);
		e->repeats = 1;
		e->previous = v;
	}
	e->group[e->ngroup++] = v;
	if (e->ngroup == 8)
		pack_group(e);
}

/*
 * Levels lv[0..n), each <= max (max >= 1), appended to body as the hybrid
 * encoding of max's bit width, after its 4-byte little-endian length.
 * False when memory runs out.
 */
bool
pq_write_levels(const uint8_t *lv, size_t n, int max, ts_buf *body)
{
	ts_thrift_out o = {.b = body};
	level_encoder e;
	size_t		start = body->len;
	static const uint8_t no_length[4];

	/* the length first, set at the end: the runs go straight into body */
	ts_thrift_raw(&o, no_length, 4);
	memset(&e, 0, sizeof(e));
	e.o = &o;
	e.run_header = SIZE_MAX;
	while ((1 << e.width) <= max)
		e.width++;
	for (size_t i = 0; i < n; i++)
		put_level(&e, lv[i]);
	if (e.repeats >= 8)
		rle_run(&e);
	else if (e.ngroup > 0)
	{
		memset(e.group + e.ngroup, 0, (size_t) (8 - e.ngroup));
		pack_group(&e);
	}
	end_packed_run(&e);
	if (o.failed)
		return false;
	ts_store_le32((uint8_t *) body->data + start, (uint32_t) (body->len - start - 4));
	return true;
}
