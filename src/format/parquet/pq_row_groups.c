/*
 * pq_row_groups.c - which row groups of a Parquet file the reader reads,
 * and loading them.
 *
 * Owns: row-group statistics for the caller's filter, the row range of a
 * parallel part and the caller's row selection, and reading only the
 * projected column chunks of a row group (those not read ahead already:
 * the row groups after it are read ahead by pq_window.c), large ones of a
 * local file page by page (pq_chunk_stream.c).
 */
#include <stdio.h>
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

/* ---- statistics ----------------------------------------------------- */

static bool
legacy_stats_ok(const pq_leaf *l)
{
	switch (l->phys)
	{
		case PQ_BOOLEAN:
		case PQ_INT32:
		case PQ_INT64:
		case PQ_FLOAT:
		case PQ_DOUBLE:
			return !is_unsigned(l->elem);
		default:
			return false;
	}
}

static bool
value_is_nan(const pq_leaf *l, const ts_value *v)
{
	if (l->type->kind == TS_FLOAT)
		return v->v.f != v->v.f;
	if (l->type->kind == TS_DOUBLE)
		return v->v.d != v->v.d;
	return false;
}

static void
decode_stats(pq_reader *r, const pq_row_group *rg, int col, ts_column_stats *st)
{
	const pq_asm *a = &r->asms[col];
	const pq_leaf *l;
	const pq_stats *s;
	ts_err		e;

	memset(st, 0, sizeof(*st));
	st->null_count = -1;
	st->row_count = rg->num_rows;
	if (a->kind == PQ_A_MISSING)
	{
		st->null_count = rg->num_rows;
		return;
	}
	if (a->kind != PQ_A_LEAF)
		return;
	l = r->leaves[a->leaf_lo];
	if (l->max_rep > 0 || l->column_index >= rg->ncolumns)
		return;
	s = &rg->columns[l->column_index].stats;
	if (!s->present)
		return;
	st->null_count = s->null_count;
	if (l->phys == PQ_INT96)
		return;
	if (s->has_min_value && s->has_max_value)
	{
		if (!pq_decode_plain_one(l, s->min_value, s->min_value_len, &st->min, &e) ||
			!pq_decode_plain_one(l, s->max_value, s->max_value_len, &st->max, &e))
			return;
	}
	else if (s->has_min && s->has_max && legacy_stats_ok(l))
	{
		if (!pq_decode_plain_one(l, s->min, s->min_len, &st->min, &e) ||
			!pq_decode_plain_one(l, s->max, s->max_len, &st->max, &e))
			return;
	}
	else
		return;
	if (value_is_nan(l, &st->min) || value_is_nan(l, &st->max))
		return;
	st->has_min_max = true;
}

/* ---- row groups ----------------------------------------------------- */

/* Where leaf l's column chunk lies in row group rg: *cc, *start, *len. */
bool
pq_chunk_extent(const pq_reader *r, const pq_row_group *rg, const pq_leaf *l,
			 const pq_column_chunk **ccp, int64_t *start, int64_t *len, ts_err *err)
{
	const pq_column_chunk *cc;

	if (l->column_index >= rg->ncolumns)
		return ts_error(err, TS_ERR_CORRUPT, "row group has %d columns, column \"%s\" is number %d",
						rg->ncolumns, l->path, l->column_index + 1);
	cc = &rg->columns[l->column_index];
	if (!cc->has_meta)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" has no column metadata", l->path);
	if (cc->external)
		return ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\" is stored in another file", l->path);
	if (cc->type != l->phys)
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" chunk type %d differs from its schema type %d",
						l->path, cc->type, l->phys);
	if (!pq_chunk_bounds(cc, r->file_size, start, len))
		return ts_error(err, TS_ERR_CORRUPT, "column \"%s\" chunk lies outside the file", l->path);
	*ccp = cc;
	return true;
}

bool
pq_chunk_bounds(const pq_column_chunk *cc, int64_t file_size, int64_t *start, int64_t *len)
{
	*start = cc->data_page_offset;
	if (cc->dictionary_page_offset > 0 && cc->dictionary_page_offset < *start)
		*start = cc->dictionary_page_offset;
	*len = cc->total_compressed_size;
	return *start >= 4 && *len >= 0 && cc->num_values >= 0 &&
		*len <= file_size - 4 && *start <= file_size - 4 - *len;
}

/*
 * Is a column chunk of len bytes read page by page through a buffer of
 * chunk_buffer_bytes (pq_chunk_stream.c), rather than whole?  Large chunks
 * of local files are; on an object store every chunk is read whole (its
 * row groups are read ahead together, pq_window.c), as a refill there
 * would wait for a round trip.
 */
bool
pq_chunk_streamed(const pq_reader *r, int64_t len)
{
	return len > (int64_t) r->set.chunk_buffer_bytes && !ts_file_is_remote(r->file);
}

/*
 * Read the chunks of row group rgi that were not read ahead: all at once
 * (ts_file_pread_many: on an object store coalesced and concurrent), then
 * start every leaf on its chunk; a large chunk of a local file is read
 * page by page as its leaf consumes it instead.
 */
static bool
load_row_group(pq_reader *r, int rgi, ts_err *err)
{
	const pq_row_group *rg = &r->meta.row_groups[rgi];
	const pq_column_chunk *ccs[64];
	int64_t		lens[64];
	int64_t		starts[64];
	ts_range	ranges[64];
	const pq_column_chunk **cc = ccs;
	int64_t    *len = lens;
	int64_t    *start = starts;
	ts_range   *rng = ranges;
	int			nr = 0;
	bool		ok = false;

	pq_window_take(r, rgi);
	r->ahead_ok = false;
	if (r->nleaves > 64)
	{
		cc = ts_malloc(sizeof(*cc) * (size_t) r->nleaves);
		len = ts_malloc(sizeof(*len) * (size_t) r->nleaves);
		start = ts_malloc(sizeof(*start) * (size_t) r->nleaves);
		rng = ts_malloc(sizeof(*rng) * (size_t) r->nleaves);
		if (cc == NULL || len == NULL || start == NULL || rng == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
	}
	for (int i = 0; i < r->nleaves; i++)
	{
		pq_leaf    *l = r->leaves[i];

		pq_leaf_end_chunk(l);
		if (!pq_chunk_extent(r, rg, l, &cc[i], &start[i], &len[i], err))
			goto done;
		if (pq_ahead_take_chunk(l, rgi))
			start[i] = -1;		/* in the leaf's chunk buffer already */
		else if (!pq_chunk_streamed(r, len[i]))
		{
			uint8_t    *buf = pq_leaf_chunk_buffer(l, (size_t) len[i], err);

			if (!buf)
				goto done;
			rng[nr].offset = start[i];
			rng[nr].len = (size_t) len[i];
			rng[nr].buf = buf;
			nr++;
			start[i] = -1;
		}
	}
	if (!ts_file_pread_many(r->file, rng, nr, err))
		goto done;
	for (int i = 0; i < r->nleaves; i++)
	{
		pq_leaf    *l = r->leaves[i];

		r->base.metrics.bytes_read += len[i];
		if (start[i] >= 0 ?
			!pq_leaf_start_stream(l, r->file, start[i], len[i], r->set.chunk_buffer_bytes, cc[i], err) :
			!pq_leaf_start(l, (size_t) len[i], cc[i], err))
			goto done;
	}
	/* every streamed chunk's first page handed to the helper thread before any is needed */
	for (int i = 0; i < r->nleaves; i++)
		if (start[i] >= 0 && !pq_ahead_first_page(r->leaves[i], err))
			goto done;
	ok = true;
done:
	if (cc != ccs)
	{
		ts_free((void *) cc);
		ts_free(len);
		ts_free(start);
		ts_free(rng);
	}
	return ok;
}

/*
 * Does the row group start in the reader's byte range?  Its start is where
 * its first column chunk starts (dictionary page, else first data page), so
 * ranges that cover the file take each row group exactly once.
 */
bool
pq_row_group_in_range(const pq_reader *r, const pq_row_group *rg)
{
	int64_t		start = rg->ncolumns > 0 ? INT64_MAX : 0;

	if (r->set.range_end <= 0)
		return true;
	for (int c = 0; c < rg->ncolumns; c++)
	{
		const pq_column_chunk *cc = &rg->columns[c];
		int64_t		o = cc->data_page_offset;

		if (cc->dictionary_page_offset >= 0 && cc->dictionary_page_offset < o)
			o = cc->dictionary_page_offset;
		if (o < start)
			start = o;
	}
	return start >= r->set.range_start && start < r->set.range_end;
}

/*
 * File position of row group rgi's first row (negative row counts, an
 * error when read, count 0).  Row groups are asked for in order: the sum
 * goes on from the last one asked.
 */
static int64_t
first_row_of(pq_reader *r, int rgi)
{
	if (rgi < r->pos_rg)
		r->pos_rg = 0, r->pos_first = 0;
	for (; r->pos_rg < rgi; r->pos_rg++)
		if (r->meta.row_groups[r->pos_rg].num_rows > 0)
			r->pos_first += r->meta.row_groups[r->pos_rg].num_rows;
	return r->pos_first;
}

/*
 * The next row group to read, past those left out (empty, outside the
 * range, refused by the statistics filter); -1 when there is none.  One
 * with a negative row count is taken: reading it reports the error.
 */
int
pq_pick_row_group(pq_reader *r)
{
	while (r->next_rg < r->meta.nrow_groups)
	{
		int			rgi = r->next_rg++;
		const pq_row_group *rg = &r->meta.row_groups[rgi];

		if (rg->num_rows < 0)
			return rgi;
		if (rg->num_rows == 0 || !pq_row_group_in_range(r, rg))
			continue;
		if (r->set.rows_filter &&
			!r->set.rows_filter(r->set.rows_filter_arg, first_row_of(r, rgi), rg->num_rows))
			continue;
		if (r->set.stats_filter)
		{
			for (int c = 0; c < r->ncols; c++)
				decode_stats(r, rg, c, &r->stats[c]);
			if (!r->set.stats_filter(r->set.stats_filter_arg, r->stats, r->ncols))
				continue;
		}
		return rgi;
	}
	return -1;
}

/* advance to the next row group that passes the filter; false on error */
bool
pq_next_row_group(pq_reader *r, ts_err *err)
{
	int			rgi;
	const pq_row_group *rg;

	pq_window_fill(r);			/* on an object store: this one and those after it */
	rgi = pq_window_next(r);

	if (rgi < 0)
	{
		r->done = true;
		return true;
	}
	rg = &r->meta.row_groups[rgi];
	if (rg->num_rows < 0)
		return ts_error(err, TS_ERR_CORRUPT, "Parquet file \"%s\" row group %d: negative row count",
						r->path, rgi);
	/*
	 * Every row has a value (or a NULL, or an empty list's entry) in every
	 * column chunk: a row count the chunks do not hold is damage, and
	 * believing it would hand out rows of NULLs without end.
	 */
	if (rg->ncolumns == 0 && rg->num_rows > 0)
		return ts_error(err, TS_ERR_CORRUPT,
						"Parquet file \"%s\" row group %d: %lld rows but no column chunk",
						r->path, rgi, (long long) rg->num_rows);
	for (int c = 0; c < rg->ncolumns; c++)
		if (rg->columns[c].has_meta && rg->columns[c].num_values < rg->num_rows)
			return ts_error(err, TS_ERR_CORRUPT,
							"Parquet file \"%s\" row group %d: %lld rows but column chunk %d holds %lld values",
							r->path, rgi, (long long) rg->num_rows, c,
							(long long) rg->columns[c].num_values);
	r->base.metrics.row_groups_kept++;
	if (!load_row_group(r, rgi, err))
		return ts_error_context(err, "Parquet file \"%s\" row group %d", r->path, rgi);
	r->cur_rg = rgi;
	r->base.part_name = "row group";
	r->base.part = rgi;
	r->rows_left = rg->num_rows;
	r->rg_first_row = first_row_of(r, rgi);
	r->ahead_due = true;
	return true;
}
