/*
 * pq_reader.c - ts_parquet_open(): the native Parquet reader.
 *
 * Owns: reading and checking the footer, the reader's lifecycle and its
 * batches: each batch takes the current row group's next rows (the row
 * groups: pq_row_groups.c), a column at a time (pq_assemble.c), in the
 * assembly plan made at open from the file's schema tree
 * (pq_schema_tree.c).
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

#define PQ_MAX_FOOTER ((int64_t) 64 << 20)

/* ---- reader lifecycle ---------------------------------------------- */

static void
pq_close(ts_format_reader *base)
{
	pq_reader  *r = (pq_reader *) base;

	if (!r)
		return;
	pq_window_free(r);			/* its reads stopped before the buffers go */
	for (int i = 0; i < r->nleaves; i++)
	{
		ts_free((char *) r->leaves[i]->path);
		pq_leaf_free(r->leaves[i]);
	}
	ts_free(r->leaves);
	pq_codec_ctx_free(r->zstd_ctx);
	if (r->asms)
		for (int i = 0; i < r->ncols; i++)
			pq_free_asm(&r->asms[i]);
	ts_free(r->asms);
	ts_free(r->nodes);
	ts_free(r->children);
	pq_free_file_meta(&r->meta);
	ts_free(r->footer);
	ts_bufpool_put(r->set.buffers, r->values, r->values_cap);
	ts_free(r->stats);
	ts_free(r->stack);
	ts_arena_free(&r->arena);
	ts_file_close(r->file);
	ts_free(r->path);
	ts_free(r);
}

static int
pq_next(ts_format_reader *base, ts_batch *batch, ts_err *err)
{
	pq_reader  *r = (pq_reader *) base;
	int			n;

	batch->nrows = 0;
	batch->ncols = r->ncols;
	batch->values = r->values;
	for (int i = 0; i < r->nleaves; i++)
		pq_leaf_release(r->leaves[i]);
	ts_arena_reset(&r->arena);
	r->stack_len = 0;
	if (r->done)
		return 0;
	if (r->ahead_due && r->rows_left > 0)
	{
		/* the current row group's first batch is out: read the next ahead */
		r->ahead_due = false;
		r->ahead_ok = true;
		pq_window_fill(r);
	}
	pq_window_queue(r);
	while (r->rows_left == 0)
	{
		if (!pq_next_row_group(r, err))
			return -1;
		if (r->done)
			return 0;
	}
	n = r->rows_left < r->set.batch_rows ? (int) r->rows_left : r->set.batch_rows;
	for (int c = 0; c < r->ncols; c++)
		if (!pq_fill_column(r, c, n, err))
		{
			ts_error_context(err, "Parquet file \"%s\" row group %d", r->path, r->cur_rg);
			return -1;
		}
	r->base.row_position = r->rg_first_row + r->meta.row_groups[r->cur_rg].num_rows - r->rows_left;
	r->rows_left -= n;
	r->base.metrics.rows_read += n;
	if (r->rows_left == 0)
		for (int i = 0; i < r->nleaves; i++)
			pq_leaf_end_chunk(r->leaves[i]);
	batch->nrows = n;
	return n;
}

static const ts_format_reader_ops pq_ops = {pq_next, pq_close, pq_ranges_like};

/* ---- open ----------------------------------------------------------- */

/*
 * Bytes at the end of a file read by ranges (an object) with its magic in
 * one round trip: most footers fit, so the footer costs no request of its
 * own (was three in turn: the magic, the length, the footer).  The same
 * round trip reads the file's first set.head_bytes (ts_file_hold_ends):
 * the first row group, or the whole file when they cover it.
 */
#define PQ_REMOTE_TAIL ((int64_t) 64 << 10)

static bool
read_footer(pq_reader *r, ts_err *err)
{
	uint8_t		head[4];
	uint8_t    *tail;			/* the file's last ntail bytes */
	int64_t		ntail = 8;
	uint8_t		tail8[8];
	uint32_t	flen;
	bool		ok = true;

	r->file_size = ts_file_size(r->file);
	if (r->file_size < 12)
		return ts_error(err, TS_ERR_CORRUPT, "file is too small to be Parquet (%lld bytes)",
						(long long) r->file_size);
	tail = tail8;
	if (ts_file_is_remote(r->file))
	{
		ntail = r->file_size - 4 < PQ_REMOTE_TAIL ? r->file_size - 4 : PQ_REMOTE_TAIL;
		if (!ts_file_hold_ends(r->file, r->set.head_bytes > 4 ? r->set.head_bytes : 4, ntail, err))
			return false;
		if ((tail = ts_malloc((size_t) ntail)) == NULL)
			return ts_error_nomem(err, NULL);
		/* copies of the bytes held */
		if (!ts_file_pread(r->file, head, 4, 0, err) ||
			!ts_file_pread(r->file, tail, (size_t) ntail, r->file_size - ntail, err))
		{
			ts_free(tail);
			return false;
		}
	}
	else if (!ts_file_pread(r->file, head, 4, 0, err) ||
			 !ts_file_pread(r->file, tail, 8, r->file_size - 8, err))
		return false;
	flen = ts_load_le32(tail + ntail - 8);
	if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + ntail - 4, "PAR1", 4) != 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "wrong magic (not a Parquet file, or truncated)");
	else if ((int64_t) flen > r->file_size - 12 || flen == 0)
		ok = ts_error(err, TS_ERR_CORRUPT, "footer length %u does not fit the file", flen);
	else if ((int64_t) flen > PQ_MAX_FOOTER)
		ok = ts_error(err, TS_ERR_UNSUPPORTED, "footer of %u bytes is larger than 64 MB", flen);
	else if ((r->footer = ts_malloc(flen)) == NULL)
		ok = ts_error_nomem(err, NULL);
	else if ((int64_t) flen + 8 <= ntail)
		memcpy(r->footer, tail + ntail - 8 - flen, flen);	/* in the tail read already */
	else
		ok = ts_file_pread(r->file, r->footer, flen, r->file_size - 8 - flen, err);
	if (tail != tail8)
		ts_free(tail);
	if (!ok)
		return false;
	r->base.metrics.bytes_read += flen + 12;
	if (!pq_parse_file_meta(r->footer, flen, &r->meta, err))
		return ts_error_context(err, "footer");
	return true;
}

ts_format_reader *
ts_parquet_open(const char *path, const ts_read_column *columns, int ncols,
				const ts_reader_options *options, ts_err *err)
{
	pq_reader  *r;
	int			idx = 0;

	if (ncols < 0)
	{
		ts_error(err, TS_ERR_INVALID, "negative column count");
		return NULL;
	}
	r = ts_calloc(1, sizeof(pq_reader));
	if (!r)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->base.ops = &pq_ops;
	r->base.reports_positions = true;
	ts_arena_init(&r->arena, 64 * 1024);
	r->path = ts_strdup(path);
	r->cols = columns;
	r->ncols = ncols;
	ts_reader_settings_init(&r->set, options);
	if (!r->path)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	r->file = ts_file_open(ts_reader_fs(options), path, err);
	if (!r->file)
		goto fail;
	if (!read_footer(r, err))
		goto fail_ctx;

	r->nodes = ts_calloc(r->meta.nschema, sizeof(pq_node));
	r->children = ts_calloc(r->meta.nschema, sizeof(int));
	if (!r->nodes || !r->children)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	if (!pq_build_nodes(r, &idx, -1, 0, 0, 0, err))
		goto fail_ctx;
	if (idx != r->meta.nschema)
	{
		ts_error(err, TS_ERR_CORRUPT, "schema has %d elements but the root covers %d",
				 r->meta.nschema, idx);
		goto fail_ctx;
	}
	for (int i = 1; i < r->meta.nschema; i++)
		if (r->meta.schema[i].has_field_id)
			r->has_ids = true;
	for (int i = 0; i < r->meta.nrow_groups; i++)
		if (r->meta.row_groups[i].ncolumns != r->nleaf_columns)
		{
			ts_error(err, TS_ERR_CORRUPT, "row group %d has %d column chunks, schema has %d columns",
					 i, r->meta.row_groups[i].ncolumns, r->nleaf_columns);
			goto fail_ctx;
		}

	r->asms = ts_calloc(ncols ? ncols : 1, sizeof(pq_asm));
	r->stats = ts_calloc(ncols ? ncols : 1, sizeof(ts_column_stats));
	/* from the pool: a merge opens a reader per run per split */
	r->values = ts_bufpool_get_zeroed(r->set.buffers, (size_t) r->set.batch_rows * (ncols ? ncols : 1),
									  sizeof(ts_value), &r->values_cap);
	if (!r->asms || !r->stats || !r->values)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	for (int c = 0; c < ncols; c++)
	{
		const ts_read_column *col = &columns[c];
		int			node = pq_find_child(r, 0, col->field_id, col->name);

		if (!pq_build_asm(r, &r->asms[c], node, col->type, col->name ? col->name : "?", 0, err))
			goto fail;
	}
	r->base.metrics.row_groups_total = 0;
	for (int i = 0; i < r->meta.nrow_groups; i++)
		if (pq_row_group_in_range(r, &r->meta.row_groups[i]))
			r->base.metrics.row_groups_total++;
	/*
	 * On an object store the first row groups' chunks are requested now, not
	 * waited for (the first batch would start them): a merge opens all its
	 * runs before it reads any, and their first reads overlap.
	 */
	if (ts_file_is_remote(r->file))
		pq_window_fill(r);
	return &r->base;

fail_ctx:
	ts_error_context(err, "Parquet file \"%s\"", path);
fail:
	pq_close(&r->base);
	return NULL;
}
