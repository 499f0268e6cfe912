/*
 * avro_ahead.c - ZSTD blocks of an Avro file decompressed ahead.
 *
 * Owns: handing the blocks that follow the current one, as far as the
 * read-ahead window holds them whole, to the helper thread
 * (base/background.c), and giving their decompressed bytes to
 * ts_avro_container_next_block in turn.  A block is ~64 KB decompressed,
 * so they go in groups (TS_AVRO_AHEAD_BLOCKS) rather than one by one.
 *
 * With the reader's step list (decode_ahead), the thread that decompresses
 * a block decodes its objects too (decode_block): the scan then takes them
 * as they are.  A flat record's decoding reads only the block's bytes and
 * the step list, and writes only the block's values buffer, which is what
 * makes it safe there.
 *
 * Nothing here is an error: a block that cannot be queued, or whose
 * decompression or decoding failed, is decompressed and decoded again in
 * place by the caller, which reports what is wrong with it.  The jobs read
 * the window: every queued block is finished or taken back before the
 * window is read again.
 */
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_decompressBound */
#include <zstd.h>

#include "format/avro/avro_container.h"
#include "format/avro/avro_flat.h"

/* job.then: the block's objects decoded from what was decompressed */
static void
decode_block(ts_bg_job *job)
{
	ts_avro_ahead_block *a = job->then_arg;
	ts_cursor	cur;

	ts_cursor_init(&cur, job->dst, job->result);
	a->decoded = ts_avro_flat_decode(a->flat, &cur, a->values, (int) a->count, &a->err) == a->count &&
		ts_cursor_left(&cur) == 0;
}

/*
 * Make slot a (its job just set up) decode its block of count objects
 * ahead, into a values buffer from the pool; nothing when it cannot (no
 * step list, too many values, no memory): the block is then only
 * decompressed ahead.
 */
static void
decode_ahead(ts_avro_container *c, ts_avro_ahead_block *a, int64_t count)
{
	size_t		bytes;

	if (c->decode_ahead == NULL || c->decode_nout <= 0 ||
		count > TS_AVRO_DECODE_AHEAD_VALUES / c->decode_nout)
		return;
	bytes = (size_t) count * (size_t) c->decode_nout * sizeof(ts_value);
	if (a->values_cap < bytes)
	{
		ts_bufpool_put(c->buffers, a->values, a->values_cap);
		a->values_cap = 0;
		a->values = ts_bufpool_get(c->buffers, bytes, &a->values_cap);
		if (a->values == NULL)
			return;
	}
	a->flat = c->decode_ahead;
	a->count = count;
	a->decoded = false;
	a->job.then = decode_block;
	a->job.then_arg = a;
}

void
ts_avro_ahead_cancel(ts_avro_container *c)
{
	for (int i = c->ahead_pos; i < c->ahead_n; i++)
		ts_bg_finish(&c->ahead[i].job);
	c->ahead_pos = c->ahead_n = 0;
}

void
ts_avro_ahead_free(ts_avro_container *c)
{
	ts_avro_ahead_cancel(c);
	for (int i = 0; i < TS_AVRO_AHEAD_BLOCKS; i++)
	{
		ts_bufpool_put(c->buffers, c->ahead[i].buf.data, c->ahead[i].buf.cap);
		memset(&c->ahead[i].buf, 0, sizeof(ts_buf));
		ts_bufpool_put(c->buffers, c->ahead[i].values, c->ahead[i].values_cap);
		c->ahead[i].values = NULL;
		c->ahead[i].values_cap = 0;
	}
}

void
ts_avro_ahead_submit(ts_avro_container *c)
{
	int64_t		off = c->next_offset;
	const uint8_t *win_end = c->window.data + c->window.len;

	if (!ts_bg_enabled() || c->codec != TS_AVRO_CODEC_ZSTANDARD || c->counts_only ||
		c->ahead_pos < c->ahead_n)
		return;
	c->ahead_pos = c->ahead_n = 0;
	while (c->ahead_n < TS_AVRO_AHEAD_BLOCKS && off >= c->window_off)
	{
		ts_avro_ahead_block *a = &c->ahead[c->ahead_n];
		const uint8_t *head = c->window.data + (off - c->window_off);
		ts_cursor	cur;
		ts_err		err;
		int64_t		count,
					size;
		unsigned long long bound;

		if (head >= win_end)
			break;
		ts_cursor_init(&cur, head, (size_t) (win_end - head));
		if (!ts_cursor_zigzag(&cur, &count, &err) || !ts_cursor_zigzag(&cur, &size, &err) ||
			count <= 0 || size <= 0 || size + 16 > win_end - cur.p ||
			memcmp(cur.p + size, c->sync, 16) != 0)
			break;				/* not whole in the window (or not sound): read in turn */
		bound = ZSTD_decompressBound(cur.p, (size_t) size);
		if (bound == ZSTD_CONTENTSIZE_ERROR || bound == 0 || bound > TS_AVRO_MAX_BLOCK_BYTES)
			break;
		ts_buf_reset(&a->buf);
		if (a->buf.data == NULL && c->buffers != NULL)
			a->buf.data = ts_bufpool_get(c->buffers, (size_t) bound, &a->buf.cap);
		if (!ts_buf_reserve(&a->buf, (size_t) bound, &err))
			break;
		memset(&a->job, 0, sizeof(a->job));
		a->job.src = cur.p;
		a->job.src_len = (size_t) size;
		a->job.dst = a->buf.data;
		a->job.dst_len = a->buf.cap;
		/* a merge wants its runs' blocks at the same fraction of each */
		a->job.need = ts_bg_need(off, c->file_size);
		decode_ahead(c, a, count);
		if (!ts_bg_submit(&a->job))
			break;
		a->offset = off;
		c->ahead_n++;
		off += (int64_t) (cur.p - head) + size + 16;
	}
}

void
ts_avro_ahead_skip(ts_avro_container *c, int64_t offset)
{
	if (c->ahead_pos < c->ahead_n && c->ahead[c->ahead_pos].offset == offset)
		(void) ts_bg_finish(&c->ahead[c->ahead_pos++].job);
}

bool
ts_avro_ahead_take(ts_avro_container *c, int64_t offset, const uint8_t *payload, size_t size)
{
	ts_avro_ahead_block *a;
	ts_buf		t;

	if (c->ahead_pos >= c->ahead_n)
		return false;
	a = &c->ahead[c->ahead_pos];
	if (a->offset != offset || a->job.src != payload || a->job.src_len != size)
	{
		ts_avro_ahead_cancel(c);	/* not in the order queued: start again */
		return false;
	}
	c->ahead_pos++;
	if (!ts_bg_finish(&a->job) || ZSTD_isError(a->job.result))
		return false;
	/* the block's bytes become the current block; the old buffer is reused */
	t = c->data;
	c->data = a->buf;
	c->data.len = a->job.result;
	a->buf = t;
	if (a->job.then != NULL && a->decoded)
	{
		/* and its objects, the same way */
		ts_value   *v = c->values;
		size_t		cap = c->values_cap;

		c->values = a->values;
		c->values_cap = a->values_cap;
		a->values = v;
		a->values_cap = cap;
		c->block_values = c->values;
		c->blocks_decoded_ahead++;
	}
	return true;
}
