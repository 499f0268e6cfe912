/*
 * data_file.c - one data file read in the table's read schema.
 *
 * Owns: schema evolution for one file (PAIMON-FORMAT.md 2.5): read-schema
 * fields are matched to the file's data schema by field id, requested
 * from the file reader with their write-time name and type, cast when the
 * types differ; fields the file's schema lacks read as NULL; partition
 * columns come from the split's partition row, never from the file.  For
 * key-value (primary-key) files also _SEQUENCE_NUMBER and _VALUE_KIND.
 * Format-table files (PAIMON-FORMAT.md 8) hold only the non-partition
 * columns: CSV columns are requested by position among them, the other
 * formats by name.  Applies the file's deletion vector by row position.
 * The row-tracking system columns (TS_COLUMN_ROW_ID, _SEQUENCE_NUMBER)
 * come from the file when it stores them (compacted files), else from the
 * manifest entry (_FIRST_ROW_ID + position, max sequence number).
 * Applies a file index's row selection (file_index_read.c) and the row
 * positions of the split's wanted row ids (row_id_selection.c): row groups
 * (stripes, Avro blocks) without a row both select are skipped by the format
 * reader, other unselected rows dropped with the deleted ones.  Row positions follow the
 * format reader's when it reports them (row groups it skipped counted).
 */
#include <string.h>

#include "base/ts_ranges.h"
#include "read/cast.h"
#include "read/read_internal.h"
#include "read/rowgroup_filter.h"

int			ts_read_batch_rows = 0;

typedef enum col_source
{
	COL_NULL,					/* not in the file's schema: NULL */
	COL_PARTITION,				/* from split->partition_values */
	COL_FILE,					/* from the file (maybe cast) */
	COL_ROW_ID,					/* stored _ROW_ID, else first row id + pos */
	COL_SEQUENCE_NUMBER			/* stored _SEQUENCE_NUMBER, else max seq */
} col_source;

typedef struct col_map
{
	col_source	source;
	int			src;			/* partition index or file column index */
	const ts_type *from;		/* data type (COL_FILE) */
	const ts_type *to;			/* read type */
	bool		cast;
} col_map;

struct ts_data_file_reader
{
	const ts_scan_file *file;
	const char *path;			/* the file's (in the plan's arena) */
	const ts_split *split;
	ts_format_reader *fr;
	ts_read_column *rcols;
	ts_type   **rcol_types;		/* owned file types (VECTOR read as ARRAY) */
	int			nrcols;
	col_map    *map;
	int			nfields;
	int			seq_col;		/* file column index or -1 */
	int			kind_col;
	ts_type    *seq_type;
	ts_type    *kind_type;
	bool		snapshot_ordering;	/* sequence.snapshot-ordering for APPEND files */
	ts_deletion_vector *dv;
	void	   *sel;			/* file index row selection, NULL = every row */
	int64_t		rows_skipped_index; /* rows the selection left out */
	void	   *rid;			/* positions of wanted row ids, NULL = every row */
	int64_t		rows_skipped_row_id;	/* rows rid left out */
	int64_t		pos;			/* row position of the next file row */
	ts_arena	arena;			/* cast results, reset per batch */
	ts_bufpool *buffers;		/* where the batch arrays come from and go back */
	int			cap;
	ts_value   *values;
	int64_t    *seq;
	int8_t	   *kind;
	size_t		values_cap,		/* their sizes in bytes, as the pool gave them */
				seq_cap,
				kind_cap;
	bool		done;
	bool		passthrough;	/* file rows are read-schema rows as they are */
	bool		passthrough_kv; /* the same with _SEQUENCE_NUMBER/_VALUE_KIND behind
								 * (ts_data_file_allow_stride) */
	const char **opt_keys;		/* text format options */
	const char **opt_values;
	const ts_type **record_types;	/* CSV: every field of a record */
	ts_rowgroup_filter rg_filter;	/* row-group skipping, when safe */
};

static const ts_schema *
file_schema(ts_plan *plan, int64_t id, ts_err *err)
{
	for (int i = 0; i < plan->nschemas; i++)
		if (plan->schemas[i] && plan->schemas[i]->id == id)
			return plan->schemas[i];
	if (plan->schema && plan->schema->id == id)
		return plan->schema;
	return ts_plan_schema(plan, id, err);
}

static int
field_by_id(const ts_schema *s, int32_t id)
{
	for (int i = 0; i < s->nfields; i++)
		if (s->fields[i].id == id)
			return i;
	return -1;
}

static int
partition_index(const ts_schema *s, const char *name)
{
	for (int i = 0; i < s->npartition_keys; i++)
		if (strcmp(s->partition_keys[i], name) == 0)
			return i;
	return -1;
}

/* 0-based position of field fi among the schema's non-partition fields. */
static int32_t
format_file_position(const ts_schema *s, int fi)
{
	int32_t		pos = 0;

	for (int i = 0; i < fi; i++)
		if (partition_index(s, s->fields[i].name) < 0)
			pos++;
	return pos;
}

/* Add a file column (deduplicated by field id); returns its index. */
static bool
has_vector(const ts_type *t)
{
	if (t == NULL)
		return false;
	if (t->kind == TS_VECTOR)
		return true;
	if (has_vector(t->element) || has_vector(t->key) || has_vector(t->value))
		return true;
	for (int i = 0; i < t->nfields; i++)
		if (has_vector(t->fields[i].type))
			return true;
	return false;
}

static void
vector_to_array(ts_type *t)
{
	if (t == NULL)
		return;
	if (t->kind == TS_VECTOR)
		t->kind = TS_ARRAY;
	vector_to_array(t->element);
	vector_to_array(t->key);
	vector_to_array(t->value);
	for (int i = 0; i < t->nfields; i++)
		vector_to_array(t->fields[i].type);
}

/*
 * A file column to read.  Paimon's writers store VECTOR<E, n> as an array
 * of E in Parquet, ORC and Avro, so the format readers are asked for an
 * ARRAY (the values are the same nested lists; the read schema keeps
 * VECTOR).  -1 when out of memory.
 */
static int
add_rcol(ts_data_file_reader *r, int32_t id, const char *name, const ts_type *type)
{
	for (int i = 0; i < r->nrcols; i++)
		if (r->rcols[i].field_id == id && strcmp(r->rcols[i].name, name) == 0)
			return i;
	if (has_vector(type))
	{
		ts_type    *copy = ts_type_copy(type);

		if (copy == NULL)
			return -1;
		vector_to_array(copy);
		r->rcol_types[r->nrcols] = copy;
		type = copy;
	}
	r->rcols[r->nrcols].field_id = id;
	r->rcols[r->nrcols].name = name;
	r->rcols[r->nrcols].type = type;
	return r->nrcols++;
}

/*
 * The bytes from the start of a Parquet / ORC object read by ranges that
 * its reader requests with its tail (ts_reader_options.head_bytes): the
 * file whole, up to TS_RANGE_AHEAD_BYTES (what it would request ahead
 * anyway), when r reads every column the file has that is not a partition
 * column and nothing can leave a row group out (no filter, not a part of
 * the file) and the file is the only one open (not a merge's, nor one of
 * several stitched together); none for a part that starts later in the
 * file; else the reader's small default.
 */
static int64_t
head_bytes_for(const ts_data_file_reader *r, const ts_schema *ds, const ts_schema *rs,
			   const ts_reader_options *o, bool alone)
{
	int			nread = 0,
				nfile = 0;

	if (o->range_start > 0)
		return -1;
	if (!alone || o->range_end > 0 || o->stats_filter || o->rows_filter)
		return 0;
	for (int i = 0; i < r->nrcols; i++)
		if (r->rcols[i].field_id != TS_ROW_ID_ID && r->rcols[i].field_id != TS_SEQUENCE_NUMBER_ID &&
			r->rcols[i].field_id != TS_VALUE_KIND_ID)
			nread++;
	for (int i = 0; i < ds->nfields; i++)
		if (partition_index(rs, ds->fields[i].name) < 0)
			nfile++;
	return nread >= nfile && nfile > 0 ? TS_RANGE_AHEAD_BYTES : 0;
}

/*
 * The largest data file a scan of columns[0..ncolumns) of plan fetches
 * whole with the windows of files it fetches ahead (split_window.c,
 * read.c): TS_RANGE_AHEAD_BYTES when the scan reads every column of the
 * table that is not a partition column and nothing can leave a row group
 * out (no predicate, no row ids), so that a file written with the plan's
 * schema is read whole anyway (head_bytes_for's rule); else
 * TS_PREFETCH_FILE_MAX, the small files any scan fetches whole.
 */
int64_t
ts_read_whole_file_max(const ts_plan *plan, const int *columns, int ncolumns)
{
	const ts_schema *s = plan->schema;
	int			nfile = 0;

	if (plan->predicate != NULL || plan->row_ids_used || s == NULL)
		return TS_PREFETCH_FILE_MAX;
	for (int f = 0; f < s->nfields; f++)
	{
		bool		read = false;

		if (partition_index(s, s->fields[f].name) >= 0)
			continue;
		nfile++;
		for (int i = 0; i < ncolumns && !read; i++)
			read = columns[i] == f;
		if (!read)
			return TS_PREFETCH_FILE_MAX;
	}
	return nfile > 0 ? TS_RANGE_AHEAD_BYTES : TS_PREFETCH_FILE_MAX;
}

/*
 * May a window of files up to max_each bytes (ts_read_whole_file_max)
 * fetch f whole: an object of known size of at most max_each, and beyond
 * TS_PREFETCH_FILE_MAX written with the plan's schema (a file of an older
 * one may hold columns the scan does not read)?
 */
bool
ts_read_file_fetched_whole(const ts_plan *plan, const ts_scan_file *f, int64_t max_each)
{
	int64_t		size = f->entry != NULL ? f->entry->file.file_size : -1;

	if (f->entry == NULL || f->range_end > 0 || size <= 0 || size > max_each)
		return false;
	return size <= TS_PREFETCH_FILE_MAX ||
		(plan->schema != NULL && f->entry->file.schema_id == plan->schema->id);
}

ts_data_file_reader *
ts_data_file_open(ts_plan *plan, const ts_split *split, const ts_scan_file *file,
				  const int *fields, int nfields, bool key_value, ts_err *err)
{
	return ts_data_file_open_with(plan, split, file, fields, nfields, key_value, NULL, err);
}

ts_data_file_reader *
ts_data_file_open_with(ts_plan *plan, const ts_split *split, const ts_scan_file *file,
					   const int *fields, int nfields, bool key_value, ts_bufpool *buffers,
					   ts_err *err)
{
	return ts_data_file_open_selected(plan, split, file, fields, nfields, key_value, buffers,
									  NULL, err);
}

/* ts_rows_filter_fn: does the row group hold a row both selections select? */
static bool
selection_rows_filter(void *arg, int64_t first_row, int64_t nrows)
{
	ts_data_file_reader *r = arg;

	if (ts_row_selection_count(r->rid, first_row, nrows) == 0)
	{
		r->rows_skipped_row_id += nrows;
		return false;
	}
	if (ts_row_selection_count(r->sel, first_row, nrows) == 0)
	{
		r->rows_skipped_index += nrows;
		return false;
	}
	return true;
}

ts_data_file_reader *
ts_data_file_open_selected(ts_plan *plan, const ts_split *split, const ts_scan_file *file,
						   const int *fields, int nfields, bool key_value, ts_bufpool *buffers,
						   void *selection, ts_err *err)
{
	return ts_data_file_open_rows(plan, split, file, fields, nfields, key_value, buffers,
								  selection, NULL, err);
}

ts_data_file_reader *
ts_data_file_open_rows(ts_plan *plan, const ts_split *split, const ts_scan_file *file,
					   const int *fields, int nfields, bool key_value, ts_bufpool *buffers,
					   void *selection, void *row_id_selection, ts_err *err)
{
	ts_data_file_reader *r;
	const ts_schema *rs = plan->schema;
	const ts_schema *ds;
	const char *path = ts_scan_file_path(plan, file, err);
	bool		every_row;

	if (path == NULL)
	{
		ts_row_selection_free(selection);
		ts_row_selection_free(row_id_selection);
		return NULL;
	}
	ds = file->entry ? file_schema(plan, file->entry->file.schema_id, err) : rs;
	if (ds == NULL)
	{
		ts_row_selection_free(selection);
		ts_row_selection_free(row_id_selection);
		ts_error_context(err, "data file \"%s\"", path);
		return NULL;
	}
	r = ts_calloc(1, sizeof(*r));
	if (r == NULL)
	{
		ts_row_selection_free(selection);
		ts_row_selection_free(row_id_selection);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->sel = selection;
	r->rid = row_id_selection;
	r->file = file;
	r->path = path;
	r->split = split;
	r->nfields = nfields;
	r->seq_col = r->kind_col = -1;
	ts_arena_init(&r->arena, 0);
	/* positions must be exact: no row-group skipping (see below) */
	every_row = plan->core.data_evolution;
	r->map = ts_calloc(nfields ? nfields : 1, sizeof(col_map));
	r->rcols = ts_calloc(nfields + 2, sizeof(ts_read_column));
	r->rcol_types = ts_calloc(nfields + 2, sizeof(ts_type *));
	if (r->map == NULL || r->rcols == NULL || r->rcol_types == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}

	for (int i = 0; i < nfields; i++)
	{
		const ts_field *f;
		int			pi,
					di;

		if (fields[i] == TS_COLUMN_ROW_ID || fields[i] == TS_COLUMN_SEQUENCE_NUMBER)
		{
			bool		row_id = fields[i] == TS_COLUMN_ROW_ID;

			if (file->entry == NULL)
			{
				ts_error(err, TS_ERR_INVALID, "system column %s of \"%s\" without manifest entry",
						 ts_system_column_name(fields[i]), path);
				goto fail;
			}
			r->map[i].source = row_id ? COL_ROW_ID : COL_SEQUENCE_NUMBER;
			r->map[i].to = ts_system_column_type(fields[i]);
			r->map[i].src = add_rcol(r, row_id ? TS_ROW_ID_ID : TS_SEQUENCE_NUMBER_ID,
									 ts_system_column_name(fields[i]), r->map[i].to);
			every_row |= row_id;
			continue;
		}
		if (fields[i] < 0 || fields[i] >= rs->nfields)
		{
			ts_error(err, TS_ERR_INVALID, "column index %d out of range", fields[i]);
			goto fail;
		}
		f = &rs->fields[fields[i]];
		r->map[i].to = f->type;
		pi = partition_index(rs, f->name);
		if (pi >= 0)
		{
			if (split->partition_values == NULL)
			{
				ts_error(err, TS_ERR_INVALID, "split of \"%s\" has no decoded partition values", path);
				goto fail;
			}
			r->map[i].source = COL_PARTITION;
			r->map[i].src = pi;
			continue;
		}
		di = field_by_id(ds, f->id);
		if (di < 0)
		{
			r->map[i].source = COL_NULL;
			continue;
		}
		r->map[i].source = COL_FILE;
		r->map[i].from = ds->fields[di].type;
		r->map[i].cast = ts_cast_needed(ds->fields[di].type, f->type);
		if (r->map[i].cast && !ts_cast_check(ds->fields[di].type, f->type, f->name, err))
		{
			ts_error_context(err, "data file \"%s\"", path);
			goto fail;
		}
		if (plan->kind == TS_TABLE_FORMAT)
		{
			/*
			 * Format-table files hold only the non-partition columns and
			 * know nothing of field ids: CSV by position among those
			 * columns, the other formats by name.
			 */
			r->map[i].src = add_rcol(r, file->format == TS_FORMAT_CSV ?
									 format_file_position(rs, di) : -1,
									 ds->fields[di].name, ds->fields[di].type);
			continue;
		}
		r->map[i].src = add_rcol(r, ds->fields[di].id, ds->fields[di].name, ds->fields[di].type);
		if (r->map[i].src < 0)
		{
			ts_error_nomem(err, NULL);
			goto fail;
		}
	}
	if (key_value)
	{
		r->seq_type = ts_type_new(TS_BIGINT, false);
		r->kind_type = ts_type_new(TS_TINYINT, false);
		if (r->seq_type == NULL || r->kind_type == NULL)
		{
			ts_error_nomem(err, NULL);
			goto fail;
		}
		r->seq_col = add_rcol(r, TS_SEQUENCE_NUMBER_ID, "_SEQUENCE_NUMBER", r->seq_type);
		r->kind_col = add_rcol(r, TS_VALUE_KIND_ID, "_VALUE_KIND", r->kind_type);
		if (file->entry == NULL)
		{
			ts_error(err, TS_ERR_INVALID, "key-value file \"%s\" without manifest entry", path);
			goto fail;
		}
		r->snapshot_ordering = ts_read_option_bool(plan, TS_OPT_SEQUENCE_SNAPSHOT_ORDERING, false) &&
			file->entry->file.file_source == 0;
	}

	if (file->dv_path)
	{
		r->dv = ts_dv_load(plan->fs, file->dv_path, file->dv_offset, file->dv_length, err);
		if (r->dv == NULL)
		{
			ts_error_context(err, "data file \"%s\"", path);
			goto fail;
		}
		if (file->dv_cardinality >= 0 && ts_dv_cardinality(r->dv) != file->dv_cardinality)
		{
			ts_error(err, TS_ERR_CORRUPT,
					 "deletion vector \"%s\" of data file \"%s\": cardinality %lld, index manifest says %lld",
					 file->dv_path, path, (long long) ts_dv_cardinality(r->dv),
					 (long long) file->dv_cardinality);
			goto fail;
		}
	}

	{
		ts_reader_options opts;

		/*
		 * Row groups / stripes may be left out (by their statistics, or as
		 * outside the byte range of a parallel scan's part) only where row
		 * positions do not matter: append-table files without a deletion
		 * vector, not _ROW_ID nor data evolution (files of one row-id range
		 * are stitched row by row).
		 */
		bool		skip_groups = !key_value && r->dv == NULL && !every_row &&
			(plan->kind == TS_TABLE_APPEND || plan->kind == TS_TABLE_FORMAT) &&
			(file->format == TS_FORMAT_PARQUET || file->format == TS_FORMAT_ORC);

		memset(&opts, 0, sizeof(opts));
		opts.batch_rows = ts_read_batch_rows;
		opts.fs = plan->fs;
		if (r->sel || r->rid)
		{
			/* positions stay exact: the reader reports them past what it skips */
			opts.rows_filter = selection_rows_filter;
			opts.rows_filter_arg = r;
		}
		opts.buffers = buffers;
		r->buffers = buffers;
		if (file->range_end > 0)
		{
			if (!skip_groups && !(plan->kind == TS_TABLE_FORMAT && !key_value && r->dv == NULL &&
								  ts_plan_text_file_reads_in_parts(plan, file)))
			{
				ts_error(err, TS_ERR_INVALID, "data file \"%s\" cannot be read in byte ranges", path);
				goto fail;
			}
			opts.range_start = file->range_start;
			opts.range_end = file->range_end;
		}

		/*
		 * Statistics skip only what cannot change an answer: columns read
		 * without a cast (the executor rechecks every qual anyway).
		 */
		if (plan->predicate && skip_groups)
		{
			r->rg_filter.predicate = plan->predicate;
			r->rg_filter.schema = rs;
			r->rg_filter.nfields = rs->nfields;
			r->rg_filter.col_of_field = ts_calloc(rs->nfields ? rs->nfields : 1, sizeof(int));
			if (r->rg_filter.col_of_field == NULL)
			{
				ts_error_nomem(err, NULL);
				goto fail;
			}
			for (int i = 0; i < rs->nfields; i++)
				r->rg_filter.col_of_field[i] = -1;
			for (int i = 0; i < nfields; i++)
				if (r->map[i].source == COL_FILE && !r->map[i].cast)
					r->rg_filter.col_of_field[fields[i]] = r->map[i].src;
			opts.stats_filter = ts_rowgroup_may_match;
			opts.stats_filter_arg = &r->rg_filter;
		}
		if (file->format == TS_FORMAT_CSV || file->format == TS_FORMAT_JSON ||
			file->format == TS_FORMAT_TEXT)
		{
			/* text formats take their csv./json./text. options from the table */
			r->opt_keys = ts_calloc(plan->noptions + 1, sizeof(char *));
			r->opt_values = ts_calloc(plan->noptions + 1, sizeof(char *));
			if (r->opt_keys == NULL || r->opt_values == NULL)
			{
				ts_error_nomem(err, NULL);
				goto fail;
			}
			opts.ntext_options = ts_read_text_options(plan, r->opt_keys, r->opt_values);
			opts.text_option_keys = r->opt_keys;
			opts.text_option_values = r->opt_values;
		}
		if (plan->kind == TS_TABLE_FORMAT && file->format == TS_FORMAT_CSV)
		{
			/* a CSV mode judges the whole record, not the columns read */
			int			n = 0;

			r->record_types = ts_calloc(ds->nfields + 1, sizeof(ts_type *));
			if (r->record_types == NULL)
			{
				ts_error_nomem(err, NULL);
				goto fail;
			}
			for (int i = 0; i < ds->nfields; i++)
				if (partition_index(rs, ds->fields[i].name) < 0)
					r->record_types[n++] = ds->fields[i].type;
			opts.nrecord_fields = n;
			opts.record_types = r->record_types;
		}
		opts.head_bytes = head_bytes_for(r, ds, rs, &opts, !key_value && !every_row);
		r->fr = ts_format_open(file->format, path, r->rcols, r->nrcols, &opts, err);
	}
	if (r->fr == NULL)
		goto fail;

	/*
	 * The common case: every field comes from the file, in order, without a
	 * cast: the file reader's batches are handed on instead of copied value
	 * by value (rows a deletion vector deletes taken out in place).
	 */
	r->passthrough = r->seq_col < 0 && r->nrcols == nfields;
	for (int i = 0; i < nfields && r->passthrough; i++)
		if (r->map[i].source != COL_FILE || r->map[i].cast || r->map[i].src != i)
			r->passthrough = false;
	return r;

fail:
	ts_data_file_close(r, NULL);
	return NULL;
}

void
ts_data_file_allow_stride(ts_data_file_reader *r)
{
	bool		ok = r->seq_col >= r->nfields && r->kind_col >= r->nfields;

	for (int i = 0; i < r->nfields && ok; i++)
		if (r->map[i].source != COL_FILE || r->map[i].cast || r->map[i].src != i)
			ok = false;
	r->passthrough_kv = ok;
}

/*
 * Is the row at pos left out: deleted by the deletion vector, or not in the
 * file index's row selection (counted)?
 */
static inline bool
row_dropped(ts_data_file_reader *r, int64_t pos)
{
	if (r->dv && ts_dv_is_deleted(r->dv, pos))
		return true;
	if (r->rid && !ts_row_selection_has(r->rid, pos))
	{
		r->rows_skipped_row_id++;
		return true;
	}
	if (r->sel && !ts_row_selection_has(r->sel, pos))
	{
		r->rows_skipped_index++;
		return true;
	}
	return false;
}

/*
 * Rows of a batch handed on as the file reader made it, without those the
 * deletion vector deletes or the row selection leaves out: the kept rows
 * move up in place (the file reader writes every row of its next batch
 * afresh).  Returns the rows kept.
 */
static int
drop_deleted(ts_data_file_reader *r, ts_batch *in, int n)
{
	int			stride = ts_batch_stride(in);
	int			kept = 0;

	for (int row = 0; row < n; row++)
	{
		if (row_dropped(r, r->pos + row))
			continue;
		if (kept != row && r->nfields > 0)
			memcpy(&in->values[(size_t) kept * stride], &in->values[(size_t) row * stride],
				   sizeof(ts_value) * r->nfields);
		kept++;
	}
	return kept;
}

/* _SEQUENCE_NUMBER / _VALUE_KIND of a key-value row into r->seq / r->kind[i] */
static bool
key_value_meta(ts_data_file_reader *r, const ts_batch *in, int row, int i, int64_t pos, ts_err *err)
{
	const ts_value *s = ts_batch_at(in, row, r->seq_col);
	const ts_value *k = ts_batch_at(in, row, r->kind_col);

	if (s->isnull || k->isnull || k->v.i < 0 || k->v.i > 3)
		return ts_error(err, TS_ERR_CORRUPT,
						"data file \"%s\", row %lld: invalid _SEQUENCE_NUMBER/_VALUE_KIND",
						r->path, (long long) pos);
	r->seq[i] = r->snapshot_ordering ? r->file->entry->file.min_sequence_number : s->v.i;
	r->kind[i] = (int8_t) k->v.i;
	return true;
}

/* _ROW_ID / _SEQUENCE_NUMBER of the row at 'pos': stored, else from the entry. */
static bool
row_tracking_value(const ts_data_file_reader *r, const col_map *m, const ts_value *stored,
				   int64_t pos, ts_value *dst, ts_err *err)
{
	const ts_data_file_meta *f = &r->file->entry->file;

	memset(dst, 0, sizeof(*dst));
	/*
	 * Rows chosen by row-id positions (r->rid) need _ROW_ID = _FIRST_ROW_ID
	 * + position, which the manifest's row-id ranges assume: a file storing
	 * other ids is an error, not rows silently left out.
	 */
	if (!stored->isnull && r->rid && m->source == COL_ROW_ID && f->has_first_row_id &&
		stored->v.i != f->first_row_id + pos)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"data file \"%s\" stores _ROW_ID %lld at row %lld, not _FIRST_ROW_ID + row (%lld): rows cannot be chosen by row id",
						r->path, (long long) stored->v.i, (long long) pos,
						(long long) (f->first_row_id + pos));
	if (!stored->isnull)
		dst->v.i = stored->v.i;
	else if (m->source == COL_SEQUENCE_NUMBER)
		dst->v.i = f->max_sequence_number;
	else if (f->has_first_row_id)
		dst->v.i = f->first_row_id + pos;
	else
		return ts_error(err, TS_ERR_CORRUPT,
						"data file \"%s\" stores no _ROW_ID and its manifest entry has no _FIRST_ROW_ID",
						r->path);
	return true;
}

/* Hand the batch arrays back to the pool (the next file's reader takes them). */
static void
put_arrays(ts_data_file_reader *r)
{
	ts_bufpool_put(r->buffers, r->values, r->values_cap);
	ts_bufpool_put(r->buffers, r->seq, r->seq_cap);
	ts_bufpool_put(r->buffers, r->kind, r->kind_cap);
	r->values = NULL;
	r->seq = NULL;
	r->kind = NULL;
	r->cap = 0;
}

/*
 * Room for a batch of rows.  From the pool: a merge opens a reader per run
 * per split, and fresh arrays would be faulted in again for each.
 */
static bool
ensure_cap(ts_data_file_reader *r, int rows, ts_err *err)
{
	if (rows <= r->cap)
		return true;
	put_arrays(r);
	r->values = ts_bufpool_get_zeroed(r->buffers, (size_t) rows * (r->nfields ? r->nfields : 1),
									  sizeof(ts_value), &r->values_cap);
	r->seq = ts_bufpool_get_zeroed(r->buffers, rows, sizeof(int64_t), &r->seq_cap);
	r->kind = ts_bufpool_get_zeroed(r->buffers, rows, sizeof(int8_t), &r->kind_cap);
	if (r->values == NULL || r->seq == NULL || r->kind == NULL)
	{
		r->cap = 0;
		return ts_error_nomem(err, NULL);
	}
	r->cap = rows;
	return true;
}

int
ts_data_file_next(ts_data_file_reader *r, ts_data_file_batch *out, ts_err *err)
{
	ts_batch	in;
	int			n;

	memset(out, 0, sizeof(*out));
	out->ncols = r->nfields;
	while (!r->done)
	{
		int			kept = 0;

		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		memset(&in, 0, sizeof(in));
		n = ts_format_next(r->fr, &in, err);
		if (n < 0)
		{
			ts_error_context(err, "data file \"%s\"", r->path);
			return -1;
		}
		if (n == 0)
		{
			r->done = true;
			break;
		}
		if (in.ncols != r->nrcols || (r->nrcols > 0 && in.values == NULL))
		{
			ts_error(err, TS_ERR_CORRUPT, "data file \"%s\": reader returned %d columns, expected %d",
					 r->path, in.ncols, r->nrcols);
			return -1;
		}
		if (r->fr->reports_positions)
			r->pos = r->fr->row_position;
		if (r->passthrough)
		{
			kept = r->dv || r->sel || r->rid ? drop_deleted(r, &in, n) : n;
			r->pos += n;
			if (kept == 0)
				continue;
			out->nrows = kept;
			out->values = in.values;
			out->stride = r->nfields;
			return kept;
		}
		if (!ensure_cap(r, n, err))
			return -1;
		if (r->passthrough_kv)
		{
			int			stride = ts_batch_stride(&in);

			for (int row = 0; row < n; row++)
			{
				if (row_dropped(r, r->pos + row))
					continue;
				if (!key_value_meta(r, &in, row, kept, r->pos + row, err))
					return -1;
				if (kept != row)
					memcpy(&in.values[(size_t) kept * stride], &in.values[(size_t) row * stride],
						   sizeof(ts_value) * r->nfields);
				kept++;
			}
			r->pos += n;
			if (kept == 0)
				continue;
			out->nrows = kept;
			out->values = in.values;
			out->stride = stride;
			out->seq = r->seq;
			out->kind = r->kind;
			return kept;
		}
		ts_arena_reset(&r->arena);
		for (int row = 0; row < n; row++)
		{
			int64_t		pos = r->pos++;
			ts_value   *dst;

			if (row_dropped(r, pos))
				continue;
			dst = &r->values[(size_t) kept * r->nfields];
			for (int c = 0; c < r->nfields; c++)
			{
				const col_map *m = &r->map[c];

				switch (m->source)
				{
					case COL_NULL:
						memset(&dst[c], 0, sizeof(ts_value));
						dst[c].isnull = true;
						break;
					case COL_PARTITION:
						dst[c] = r->split->partition_values[m->src];
						break;
					case COL_FILE:
						{
							const ts_value *v = ts_batch_at(&in, row, m->src);

							if (m->cast)
							{
								if (!ts_cast_value(v, m->from, m->to, &dst[c], &r->arena, err))
								{
									ts_error_context(err, "data file \"%s\", row %lld",
													 r->path, (long long) pos);
									return -1;
								}
							}
							else
								dst[c] = *v;
						}
						break;
					case COL_ROW_ID:
					case COL_SEQUENCE_NUMBER:
						if (!row_tracking_value(r, m, ts_batch_at(&in, row, m->src), pos,
												&dst[c], err))
							return -1;
						break;
				}
			}
			if (r->seq_col >= 0 && !key_value_meta(r, &in, row, kept, pos, err))
				return -1;
			kept++;
		}
		if (kept > 0)
		{
			out->nrows = kept;
			out->values = r->values;
			out->stride = r->nfields;
			out->seq = r->seq_col >= 0 ? r->seq : NULL;
			out->kind = r->seq_col >= 0 ? r->kind : NULL;
			return kept;
		}
	}
	return 0;
}

void
ts_data_file_add_metrics(const ts_data_file_reader *r, ts_reader_metrics *acc)
{
	if (r == NULL || r->fr == NULL || acc == NULL)
		return;
	acc->bytes_read += r->fr->metrics.bytes_read;
	acc->rows_read += r->fr->metrics.rows_read;
	acc->row_groups_total += r->fr->metrics.row_groups_total;
	acc->row_groups_kept += r->fr->metrics.row_groups_kept;
	acc->rows_skipped_index += r->rows_skipped_index;
	acc->rows_skipped_row_id += r->rows_skipped_row_id;
	acc->files_opened++;
}

const char *
ts_data_file_current_part(const ts_data_file_reader *r, int32_t *part)
{
	if (r == NULL || r->fr == NULL || r->fr->part_name == NULL)
		return NULL;
	*part = r->fr->part;
	return r->fr->part_name;
}

int
ts_data_file_ranges_like(const ts_data_file_reader *r, const ts_scan_file *other,
						 const uint8_t *tail, size_t tail_len, const ts_held_bytes *held,
						 int64_t budget, ts_range *out, int max)
{
	/* the same format written with the same schema: the same leaves, by the same columns */
	if (r == NULL || r->fr == NULL || other->entry == NULL || r->file->entry == NULL ||
		other->format != r->file->format || other->range_end > 0 || r->file->range_end > 0 ||
		other->entry->file.schema_id != r->file->entry->file.schema_id)
		return 0;
	return ts_format_ranges_like(r->fr, tail, tail_len, other->entry->file.file_size, held,
								 budget, out, max);
}

void
ts_data_file_close(ts_data_file_reader *r, ts_reader_metrics *acc)
{
	if (r == NULL)
		return;
	if (r->fr)
	{
		ts_data_file_add_metrics(r, acc);
		ts_format_close(r->fr);
	}
	ts_dv_free(r->dv);
	ts_row_selection_free(r->sel);
	ts_row_selection_free(r->rid);
	ts_arena_free(&r->arena);
	put_arrays(r);
	ts_free(r->map);
	for (int i = 0; r->rcol_types && i < r->nrcols; i++)
		ts_type_free(r->rcol_types[i]);
	ts_free(r->rcol_types);
	ts_free(r->rcols);
	ts_free(r->opt_keys);
	ts_free(r->opt_values);
	ts_free(r->record_types);
	ts_free(r->rg_filter.col_of_field);
	ts_type_free(r->seq_type);
	ts_type_free(r->kind_type);
	ts_free(r);
}
