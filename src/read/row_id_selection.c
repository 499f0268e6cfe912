/*
 * row_id_selection.c - the row positions of a data file that hold wanted
 * row ids (Java's row ranges of a data-evolution / row-tracking read
 * turned into a file's row selection).
 *
 * Owns: mapping the row ids a split wants (ts_split.row_ids: quals on
 * _ROW_ID, global index results; src/scan/row_id_prune.c) to row positions
 * of one file, position = _ROW_ID - the file's _FIRST_ROW_ID, as a row
 * selection of the kind file indexes produce (file_index_read.c,
 * ts_row_selection_*): the data file reader skips row groups / stripes /
 * Avro blocks without a selected row and drops the other rows before they
 * are built.
 * A file without _FIRST_ROW_ID (or with a range that does not fit) gets no
 * selection and is read whole.  Like a file index's selection it is a
 * superset of what the quals accept (PostgreSQL rechecks every row), so it
 * changes what is decoded, never what a query returns.  Memory: a roaring
 * bitmap of the file's wanted positions, bounded by its row count.
 * Also: a primary-key global index's positions of a file
 * (ts_scan_file.index_rows, scan/pk_global_index.c) narrowing a file
 * index's selection (ts_index_rows_restrict).
 */
#include <roaring/roaring.h>

#include "read/read_internal.h"
#include "scan/row_ids.h"

bool
ts_row_id_selection(const ts_row_ids *ids, const ts_data_file_meta *file, void **selection,
					ts_err *err)
{
	roaring_bitmap_t *sel;
	int64_t		first,
				last;

	*selection = NULL;
	if (ids == NULL || ids->all || file == NULL || !file->has_first_row_id ||
		file->row_count <= 0 || file->row_count > (int64_t) UINT32_MAX + 1 ||
		file->first_row_id < 0 || file->first_row_id > INT64_MAX - file->row_count)
		return true;			/* read every row */
	first = file->first_row_id;
	last = first + file->row_count - 1;
	sel = roaring_bitmap_create();
	if (sel == NULL)
		return ts_error_nomem(err, "row-id selection");
	for (int i = ts_row_ids_first_ending_at_or_after(ids, first);
		 i < ids->n && ids->ranges[i].from <= last; i++)
	{
		int64_t		from = ids->ranges[i].from < first ? first : ids->ranges[i].from;
		int64_t		to = ids->ranges[i].to > last ? last : ids->ranges[i].to;

		if (from == first && to == last)
		{
			/* every row of the file: no selection */
			roaring_bitmap_free(sel);
			return true;
		}
		roaring_bitmap_add_range_closed(sel, (uint32_t) (from - first), (uint32_t) (to - first));
	}
	roaring_bitmap_run_optimize(sel);
	*selection = sel;
	return true;
}

bool
ts_index_rows_restrict(const ts_row_ids *pos, void **selection, ts_err *err)
{
	roaring_bitmap_t *sel;

	if (pos == NULL || pos->all)
		return true;
	sel = roaring_bitmap_create();
	if (sel == NULL)
		return ts_error_nomem(err, "index row selection");
	for (int i = 0; i < pos->n; i++)
	{
		int64_t		from = pos->ranges[i].from < 0 ? 0 : pos->ranges[i].from;
		int64_t		to = pos->ranges[i].to > (int64_t) UINT32_MAX ? (int64_t) UINT32_MAX :
			pos->ranges[i].to;

		if (from <= to)
			roaring_bitmap_add_range_closed(sel, (uint32_t) from, (uint32_t) to);
	}
	if (*selection != NULL)
	{
		roaring_bitmap_and_inplace(sel, *selection);
		roaring_bitmap_free(*selection);
	}
	roaring_bitmap_run_optimize(sel);
	*selection = sel;
	return true;
}
