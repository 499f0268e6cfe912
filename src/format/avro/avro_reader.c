/*
 * avro_reader.c - ts_avro_open: the Avro implementation of ts_format_reader.
 *
 * Owns: tying the container (avro_container.c) to the decoder
 * (avro_decode.c): resolve the requested columns by name against the
 * writer's top-level record once at open, then hand out batches of up to
 * batch_rows rows that never span a block, so strings and bytes can point
 * into the decompressed block (valid until the next call) and nested
 * values into an arena reset per batch.  With a rows filter (a row
 * selection: file index results, wanted row ids) blocks holding no
 * selected row are passed over unread (ts_avro_container.keep_block);
 * each batch reports the file position of its first row.  A block the
 * helper thread decompressed ahead comes with its objects decoded too
 * (a flat record: avro_ahead.c), and its batches point into them.
 * Memory is one block + one batch (+ the blocks ahead);
 * their large buffers come from the caller's buffer pool when it gives
 * one (options->buffers) and go back to it at close, so that the reader
 * of the next file takes them instead of allocating (and faulting in)
 * new ones.
 */
#include <string.h>

#include "format/format.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_decode.h"
#include "format/avro/avro_plan.h"

typedef struct avro_reader
{
	ts_format_reader base;
	ts_avro_container *c;
	int			ncols;
	ts_reader_settings set;		/* what the options say (format.c) */
	ts_avro_plan *plan;
	ts_arena	plan_arena;
	ts_arena	batch_arena;
	ts_value   *values;
	size_t		values_cap;		/* bytes */
	ts_cursor	cur;			/* inside the current block */
	int64_t		rows_left;		/* objects left in the current block */
	int64_t		block_row;		/* index of the next object in the block */
	bool		have_block;
	bool		failed;
} avro_reader;

static int	avro_next(ts_format_reader *r, ts_batch *batch, ts_err *err);
static void avro_close(ts_format_reader *r);

static const ts_format_reader_ops avro_ops = {avro_next, avro_close};

ts_format_reader *
ts_avro_open(const char *path, const ts_read_column *columns, int ncols,
			 const ts_reader_options *options, ts_err *err)
{
	avro_reader *r;
	const char **names = NULL;
	const ts_type **types = NULL;

	if (ncols < 0)
	{
		ts_error(err, TS_ERR_INVALID, "negative column count");
		return NULL;
	}
	r = ts_calloc(1, sizeof(avro_reader));
	if (r == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->base.ops = &avro_ops;
	ts_arena_init(&r->plan_arena, 8 * 1024);
	ts_arena_init(&r->batch_arena, 64 * 1024);
	r->ncols = ncols;
	ts_reader_settings_init(&r->set, options);
	r->c = ts_avro_container_open(ts_reader_fs(options), path, err);
	if (r->c == NULL)
		goto fail;
	r->c->buffers = r->set.buffers;
	r->c->keep_block = r->set.rows_filter;
	r->c->keep_block_arg = r->set.rows_filter_arg;
	r->base.reports_positions = true;
	names = ts_malloc(sizeof(char *) * (ncols + 1));
	types = ts_malloc(sizeof(ts_type *) * (ncols + 1));
	if (names == NULL || types == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (int i = 0; i < ncols; i++)
	{
		if (columns[i].name == NULL || columns[i].type == NULL)
		{
			ts_error(err, TS_ERR_INVALID, "Avro file \"%s\": column %d has no name or type", path, i);
			goto fail;
		}
		names[i] = columns[i].name;
		types[i] = columns[i].type;
	}
	/* no column wanted (count(*)): blocks' object counts are enough */
	r->c->counts_only = ncols == 0;
	r->plan = ts_avro_plan_top(r->c->schema->root, names, types, ncols,
							   &r->plan_arena, r->c->path, err);
	if (r->plan == NULL)
		goto fail;
	if (r->plan->flat != NULL && ncols > 0 && r->plan->nout == ncols)
	{
		/* blocks decompressed ahead are decoded ahead too */
		r->c->decode_ahead = r->plan->flat;
		r->c->decode_nout = ncols;
	}
	r->values = ts_bufpool_get(r->set.buffers, sizeof(ts_value) * (size_t) r->set.batch_rows * (ncols ? ncols : 1),
							   &r->values_cap);
	if (r->values == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	ts_free(names);
	ts_free(types);
	r->base.metrics.bytes_read = r->c->bytes_read;
	return &r->base;
fail:
	ts_free(names);
	ts_free(types);
	avro_close(&r->base);
	return NULL;
}

/* Load blocks until one has objects; false at end (*eof) or error. */
static bool
load_block(avro_reader *r, bool *eof, ts_err *err)
{
	int32_t		before = r->c->nblocks,
				skipped_before = r->c->nblocks_skipped;
	int			rc;

	*eof = false;
	if (r->rows_left > 0)
		return true;
	rc = ts_avro_container_next_objects(r->c, &r->cur, &r->have_block, r->block_row,
										&r->rows_left, err);
	r->base.metrics.bytes_read = r->c->bytes_read;
	r->base.metrics.row_groups_total += r->c->nblocks - before;
	r->base.metrics.row_groups_kept += r->c->nblocks - before -
		(r->c->nblocks_skipped - skipped_before);
	if (rc <= 0)
	{
		*eof = rc == 0;
		return false;
	}
	r->block_row = 0;
	r->base.part_name = "block";	/* for the errcontext of rows read from it */
	r->base.part = r->c->nblocks - 1;
	return true;
}

static int
avro_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	avro_reader *r = (avro_reader *) base;
	bool		eof;
	int			n;
	int			done;

	batch->nrows = 0;
	batch->ncols = r->ncols;
	batch->values = r->values;
	if (r->failed)
		return ts_error(err, TS_ERR_INVALID, "Avro file \"%s\": reader already failed", r->c->path), -1;
	ts_arena_reset(&r->batch_arena);
	if (!load_block(r, &eof, err))
	{
		if (eof)
			return 0;
		r->failed = true;
		return -1;
	}
	n = r->rows_left < r->set.batch_rows ? (int) r->rows_left : r->set.batch_rows;
	r->base.row_position = r->c->block_first_row + r->block_row;
	if (r->ncols == 0)
	{
		/*
		 * No column wanted (count(*)): the block header's object count is all
		 * we need, so the block is neither read nor decompressed; its sync
		 * marker is still checked (ts_avro_container_next_block).
		 */
		r->block_row += n;
		r->rows_left -= n;
		if (r->rows_left == 0)
			r->cur.p = r->cur.end;	/* consumed whole: nothing left over */
		r->base.metrics.rows_read += n;
		batch->nrows = n;
		return n;
	}
	if (!TS_CHECK_INTERRUPTS(err))
	{
		r->failed = true;
		return -1;
	}
	if (r->c->block_values != NULL)
	{
		/*
		 * The block's objects were decoded with it, ahead (avro_ahead.c),
		 * every one and its bytes used up exactly: handed out in place
		 */
		batch->values = (ts_value *) r->c->block_values + (size_t) r->block_row * r->ncols;
		done = n;
		if (r->rows_left == n)
			r->cur.p = r->cur.end;
	}
	else
		done = ts_avro_decode_rows(r->plan, &r->cur, r->values, n, &r->batch_arena, err);
	r->block_row += done;
	if (done < n)
	{
		ts_error_context(err, "Avro file \"%s\": block %d, object %lld",
						 r->c->path, (int) r->c->nblocks - 1, (long long) r->block_row);
		r->failed = true;
		return -1;
	}
	r->rows_left -= n;
	if (r->rows_left == 0 && ts_cursor_left(&r->cur) != 0)
	{
		ts_error(err, TS_ERR_CORRUPT, "Avro file \"%s\": block %d: %zu bytes left after its %lld objects",
				 r->c->path, (int) r->c->nblocks - 1, ts_cursor_left(&r->cur), (long long) r->block_row);
		r->failed = true;
		return -1;
	}
	r->base.metrics.rows_read += n;
	batch->nrows = n;
	return n;
}

static void
avro_close(ts_format_reader *base)
{
	avro_reader *r = (avro_reader *) base;

	if (r == NULL)
		return;
	ts_avro_container_close(r->c);
	ts_arena_free(&r->plan_arena);
	ts_arena_free(&r->batch_arena);
	ts_bufpool_put(r->set.buffers, r->values, r->values_cap);
	ts_free(r);
}
