/*
 * pq_ranges_like.c - the column chunks an open reader would read first
 * from another file of the same layout (ts_format_ranges_like).
 *
 * Owns: decoding another file's footer from its tail and naming the byte
 * ranges of its first row groups' chunks of this reader's leaves, as the
 * reader's window (pq_window.c) would ask for them on an object store: the
 * first row group always, the next ones while they fit in a budget, the
 * chunks of the first PQ_WINDOW_LEAVES leaves.  A scan fetches them before
 * it opens that file (read/split_window.c), so that a narrow projection
 * over the next file does not wait for its chunks.  Only a hint: the
 * file's own reader decodes its own footer and asks for its own ranges,
 * which the bytes fetched ahead serve only when offsets and lengths match.
 * So every doubt (a filter of this reader's that may leave row groups out,
 * a footer not in the tail, another schema, a chunk that does not fit) is
 * an empty answer, never an error.
 */
#include <string.h>

#include "format/parquet/pq_reader_internal.h"

/* Does the other file's schema equal the reader's file's, element by element? */
static bool
same_schema(const pq_file_meta *a, const pq_file_meta *b)
{
	if (a->nschema != b->nschema)
		return false;
	for (int i = 0; i < a->nschema; i++)
	{
		const pq_schema_elem *x = &a->schema[i];
		const pq_schema_elem *y = &b->schema[i];

		if (x->type != y->type || x->type_length != y->type_length ||
			x->repetition != y->repetition || x->num_children != y->num_children ||
			x->has_field_id != y->has_field_id || (x->has_field_id && x->field_id != y->field_id) ||
			strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0)
			return false;
	}
	return true;
}

/*
 * The chunks of row group g of a file of file_size bytes for r's leaves
 * into out[0..max); their count, or -1 when one does not fit.
 */
static int
row_group_chunks(const pq_reader *r, const pq_row_group *g, int64_t file_size, ts_range *out,
				 int max, int64_t *bytes)
{
	int			n = 0;

	*bytes = 0;
	for (int i = 0; i < r->nleaves && i < PQ_WINDOW_LEAVES; i++)
	{
		const pq_leaf *l = r->leaves[i];
		const pq_column_chunk *cc;
		int64_t		start,
					len;

		if (l->column_index >= g->ncolumns || n >= max)
			return -1;
		cc = &g->columns[l->column_index];
		if (!cc->has_meta || cc->external || cc->type != l->phys)
			return -1;
		if (!pq_chunk_bounds(cc, file_size, &start, &len) || len == 0)
			return -1;
		out[n].offset = start;
		out[n].len = (size_t) len;
		out[n].buf = NULL;
		n++;
		*bytes += len;
	}
	return n;
}

int
pq_ranges_like(const ts_format_reader *base, const uint8_t *tail, size_t tail_len,
			   int64_t file_size, const ts_held_bytes *held, int64_t budget, ts_range *out,
			   int max)
{
	const pq_reader *r = (const pq_reader *) base;
	pq_file_meta m;
	uint32_t	flen;
	int			n = 0;
	int64_t		bytes = 0;

	(void) held;				/* the footer is all it needs */
	if (r->set.stats_filter != NULL || r->set.rows_filter != NULL || r->set.range_end > 0 ||
		tail_len < 12 || (int64_t) tail_len > file_size || r->nleaves == 0)
		return 0;
	flen = ts_load_le32(tail + tail_len - 8);
	if (memcmp(tail + tail_len - 4, "PAR1", 4) != 0 || flen == 0 || (size_t) flen > tail_len - 8)
		return 0;
	if (!pq_parse_file_meta(tail + tail_len - 8 - flen, flen, &m, NULL) ||
		!same_schema(&m, &r->meta))
	{
		pq_free_file_meta(&m);
		return 0;
	}
	for (int rg = 0; rg < m.nrow_groups && n < max; rg++)
	{
		const pq_row_group *g = &m.row_groups[rg];
		int64_t		need;
		int			k;

		if (g->num_rows < 0)
			break;				/* its reader reports it */
		if (g->num_rows == 0)
			continue;			/* not read */
		k = row_group_chunks(r, g, file_size, out + n, max - n, &need);
		if (k < 0 || (bytes > 0 && bytes + need > budget))
			break;
		n += k;
		bytes += need;
	}
	pq_free_file_meta(&m);
	return n;
}
