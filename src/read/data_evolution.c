/*
 * data_evolution.c - splits of row-tracking and data-evolution tables.
 *
 * Owns: reading append tables whose files carry row-tracking metadata
 * (_FIRST_ROW_ID, _WRITE_COLS) the way Java's DataEvolutionSplitRead and
 * paimon-cpp's DataEvolutionSplitRead do, and the system columns _ROW_ID /
 * _SEQUENCE_NUMBER (TS_COLUMN_ROW_ID / TS_COLUMN_SEQUENCE_NUMBER).
 *
 * With data-evolution.enabled several files may cover the same row-id
 * range [first_row_id, first_row_id + row_count), each holding only the
 * columns it wrote (_WRITE_COLS, names in the file's schema).  The files
 * of a split are grouped by overlapping row-id ranges (groups in range
 * order); the files of a group must all cover the same range; they are
 * ordered by max sequence number, newest first, and each read column comes
 * from the first file whose written columns hold its field id (partition
 * columns and the system columns from the newest file).  A column no file
 * wrote reads as NULL (an error for a NOT NULL field).  The group's files
 * are read side by side and stitched row by row.  Without data evolution
 * every file is its own group; a file's unwritten columns read as NULL.
 *
 * With wanted row ids (ts_split.row_ids: quals on _ROW_ID, a global
 * index) every data file of a group reads only the positions that hold
 * them (row_id_selection.c; the files of a group cover the same range, so
 * they keep the same rows and still stitch row by row); a group that
 * reads a blob bunch is read whole (its files' positions are the bunch's).
 *
 * BLOB columns live in .blob files of their own (one BLOB field each,
 * rolled by size, so several per row-id range).  As in Java's
 * mergeRangesAndSort / splitFieldBunches, a group's data files come first
 * (newest first) and provide the columns they wrote; the blob files of
 * each BLOB field form a bunch read one after the other in row-id order,
 * which must cover the group's range exactly.
 *
 * Fails closed (TS_ERR_UNSUPPORTED) on what it does not read: vector-store
 * files, blob files outside data-evolution tables, blob bunches mixing
 * sequence numbers (updated BLOB columns, Java's blob fallback read),
 * groups of blob files only, deletion vectors and incremental reads on
 * data-evolution tables, system columns on tables without row tracking.
 */
#include <stdlib.h>
#include <string.h>

#include "read/read_internal.h"

/* ---- system columns ---------------------------------------------------- */

static const ts_type system_column_type = {.kind = TS_BIGINT, .nullable = false};
static const ts_type row_kind_type = {.kind = TS_VARCHAR, .nullable = false,
.length = TS_STRING_LENGTH};

int
ts_system_column(const char *name)
{
	if (name == NULL)
		return 0;
	if (strcmp(name, "_ROW_ID") == 0)
		return TS_COLUMN_ROW_ID;
	if (strcmp(name, "_SEQUENCE_NUMBER") == 0)
		return TS_COLUMN_SEQUENCE_NUMBER;
	if (strcmp(name, "_ROW_KIND") == 0)
		return TS_COLUMN_ROW_KIND;
	return 0;
}

const ts_type *
ts_system_column_type(int column)
{
	if (column == TS_COLUMN_ROW_KIND)
		return &row_kind_type;
	return column == TS_COLUMN_ROW_ID || column == TS_COLUMN_SEQUENCE_NUMBER ?
		&system_column_type : NULL;
}

const char *
ts_system_column_name(int column)
{
	return column == TS_COLUMN_ROW_ID ? "_ROW_ID" :
		column == TS_COLUMN_SEQUENCE_NUMBER ? "_SEQUENCE_NUMBER" :
		column == TS_COLUMN_ROW_KIND ? "_ROW_KIND" : NULL;
}

/* ---- the reader -------------------------------------------------------- */

/* The blob files of one BLOB field in a group, read one after the other. */
typedef struct de_blob_bunch
{
	const ts_scan_file **files; /* row-id order */
	const ts_plan *plan;		/* theirs: their paths */
	ts_fs	   *fs;				/* they are read through it */
	int			nfiles;
	int			next;			/* next file to open */
	int32_t		field_id;
	ts_read_column column;		/* the field as the files wrote it */
	ts_format_reader *reader;	/* open file, or NULL */
	int64_t		rows;			/* rows read from it */
} de_blob_bunch;

/* One file (or blob bunch) of the current group and the read columns it provides. */
typedef struct de_source
{
	ts_data_file_reader *reader;
	de_blob_bunch *bunch;		/* instead of reader: a BLOB field's files */
	int		   *fields;			/* read-schema fields / system columns asked of it */
	int		   *out;			/* output column of each */
	int			ncols;
	ts_data_file_batch batch;	/* current batch */
	int			pos;			/* next row of it */
	bool		eof;
} de_source;

struct ts_evolution_reader
{
	ts_plan    *plan;
	const ts_split *split;
	const int  *columns;
	int			ncolumns;
	const ts_scan_file **files; /* groups one after the other */
	int		   *group_start;	/* ngroups + 1 offsets into files */
	int		   *group_ndata;	/* data files of each group (the blob files follow) */
	int			ngroups;
	int			next_group;
	de_source  *src;			/* readers of the open group */
	int			nsrc;
	ts_value   *out;			/* stitched rows */
	int			out_cap;
	de_blob_bunch *bunches;		/* blob bunches of the open group */
	int			nbunches;
	ts_reader_metrics metrics;	/* of closed files */
};

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t		n = strlen(s),
				k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool
is_blob_file(const ts_scan_file *f)
{
	return has_suffix(f->entry->file.file_name, ".blob");
}

static int64_t
range_end(const ts_scan_file *f)
{
	return f->entry->file.first_row_id + f->entry->file.row_count;	/* exclusive */
}

/* Range start, then newest first, then split order (a stable order). */
static int
cmp_range_then_newest(const void *pa, const void *pb)
{
	const ts_scan_file *a = *(const ts_scan_file *const *) pa;
	const ts_scan_file *b = *(const ts_scan_file *const *) pb;
	const ts_data_file_meta *fa = &a->entry->file,
			   *fb = &b->entry->file;

	if (fa->first_row_id != fb->first_row_id)
		return fa->first_row_id < fb->first_row_id ? -1 : 1;
	if (fa->max_sequence_number != fb->max_sequence_number)
		return fa->max_sequence_number > fb->max_sequence_number ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Data files before blob files, then newest first, then split order. */
static int
cmp_data_then_newest(const void *pa, const void *pb)
{
	const ts_scan_file *a = *(const ts_scan_file *const *) pa;
	const ts_scan_file *b = *(const ts_scan_file *const *) pb;

	if (is_blob_file(a) != is_blob_file(b))
		return is_blob_file(a) ? 1 : -1;
	if (a->entry->file.max_sequence_number != b->entry->file.max_sequence_number)
		return a->entry->file.max_sequence_number > b->entry->file.max_sequence_number ? -1 : 1;
	return a < b ? -1 : a > b;
}

/*
 * Group the split's files: by overlapping row-id ranges with data
 * evolution (Java's mergeRangesAndSort), else one group per file.
 */
static bool
build_groups(ts_evolution_reader *r, bool data_evolution, ts_err *err)
{
	const ts_split *split = r->split;
	int			n = split->nfiles;

	r->files = ts_calloc(n ? n : 1, sizeof(*r->files));
	r->group_start = ts_calloc(n + 1, sizeof(int));
	r->group_ndata = ts_calloc(n + 1, sizeof(int));
	if (r->files == NULL || r->group_start == NULL || r->group_ndata == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < n; i++)
	{
		const ts_scan_file *f = &split->files[i];

		if (f->entry == NULL)
			return ts_error(err, TS_ERR_INVALID, "data file \"%s\" without manifest entry", ts_scan_file_label(r->plan, f));
		if (strstr(f->entry->file.file_name, ".vector."))
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"data file \"%s\" is a vector-store file: reading them is not supported yet",
							ts_scan_file_label(r->plan, f));
		if (!data_evolution && is_blob_file(f))
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"data file \"%s\" is a BLOB file (.blob) of a table without data-evolution.enabled: not supported",
							ts_scan_file_label(r->plan, f));
		if (data_evolution && f->dv_path)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"data file \"%s\" has a deletion vector: deletion vectors on data-evolution tables are not supported",
							ts_scan_file_label(r->plan, f));
		if (data_evolution && !f->entry->file.has_first_row_id)
			return ts_error(err, TS_ERR_CORRUPT,
							"data file \"%s\" of a data-evolution table has no _FIRST_ROW_ID",
							ts_scan_file_label(r->plan, f));
		r->files[i] = f;
	}
	if (!data_evolution)
	{
		for (int i = 0; i <= n; i++)
		{
			r->group_start[i] = i;
			r->group_ndata[i] = 1;
		}
		r->ngroups = n;
		return true;
	}

	qsort(r->files, n, sizeof(*r->files), cmp_range_then_newest);
	r->ngroups = 0;
	for (int i = 0; i < n;)
	{
		int64_t		end = range_end(r->files[i]);
		int			j = i + 1,
					k;

		while (j < n && r->files[j]->entry->file.first_row_id < end)
		{
			if (range_end(r->files[j]) > end)
				end = range_end(r->files[j]);
			j++;
		}
		qsort(r->files + i, j - i, sizeof(*r->files), cmp_data_then_newest);
		/* the data files of a group must all cover the same range */
		for (k = i; k < j && !is_blob_file(r->files[k]); k++)
			if (r->files[k]->entry->file.first_row_id != r->files[i]->entry->file.first_row_id ||
				r->files[k]->entry->file.row_count != r->files[i]->entry->file.row_count)
				return ts_error(err, TS_ERR_CORRUPT,
								"data files \"%s\" (row ids %lld..%lld) and \"%s\" (row ids %lld..%lld) overlap without covering the same row-id range",
								ts_scan_file_label(r->plan, r->files[i]),
								(long long) r->files[i]->entry->file.first_row_id,
								(long long) range_end(r->files[i]) - 1,
								ts_scan_file_label(r->plan, r->files[k]),
								(long long) r->files[k]->entry->file.first_row_id,
								(long long) range_end(r->files[k]) - 1);
		if (k == i)
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"BLOB file \"%s\" (row ids %lld..%lld) has no data file of its row-id range: not supported",
							ts_scan_file_label(r->plan, r->files[i]), (long long) r->files[i]->entry->file.first_row_id,
							(long long) range_end(r->files[i]) - 1);
		r->group_ndata[r->ngroups] = k - i;
		r->group_start[r->ngroups++] = i;
		i = j;
	}
	r->group_start[r->ngroups] = n;
	return true;
}

/* Did the file write the field (a name of its own schema)? */
static bool
file_writes(const ts_scan_file *f, const char *name)
{
	const ts_data_file_meta *m = &f->entry->file;

	if (m->nwrite_cols < 0)
		return true;
	for (int i = 0; i < m->nwrite_cols; i++)
		if (m->write_cols[i] && strcmp(m->write_cols[i], name) == 0)
			return true;
	return false;
}

/* Add a format reader's figures to acc (one file opened). */
static void
add_format_metrics(const ts_format_reader *fr, ts_reader_metrics *acc)
{
	if (fr == NULL || acc == NULL)
		return;
	acc->bytes_read += fr->metrics.bytes_read;
	acc->rows_read += fr->metrics.rows_read;
	acc->row_groups_total += fr->metrics.row_groups_total;
	acc->row_groups_kept += fr->metrics.row_groups_kept;
	acc->files_opened++;
}

/*
 * Which unit of the open group provides read column 'col': data file i
 * (0..ndata-1, newest first) or blob bunch b (ndata + b); -1 (NULL).
 */
static bool
provider_of(ts_evolution_reader *r, const ts_scan_file **files, int ndata, int col,
			int *provider, ts_err *err)
{
	const ts_schema *rs = r->plan->schema;
	const ts_field *f;

	*provider = -1;
	if (col < 0 || ts_schema_is_partition_key(rs, rs->fields[col].name))
	{
		*provider = 0;			/* system / partition column: the newest file */
		return true;
	}
	f = &rs->fields[col];
	for (int i = 0; i < ndata; i++)
	{
		const ts_schema *ds = ts_plan_schema(r->plan, files[i]->entry->file.schema_id, err);
		int			di;

		if (ds == NULL)
			return ts_error_context(err, "data file \"%s\"", ts_scan_file_label(r->plan, files[i]));
		di = ts_schema_field_index_by_id(ds, f->id);
		if (di >= 0 && file_writes(files[i], ds->fields[di].name))
		{
			*provider = i;
			return true;
		}
	}
	for (int b = 0; b < r->nbunches; b++)
		if (r->bunches[b].field_id == f->id)
		{
			*provider = ndata + b;
			return true;
		}
	if (ndata + r->nbunches > 1 && !f->type->nullable)
		return ts_error(err, TS_ERR_CORRUPT,
						"field \"%s\" is NOT NULL but no data file of row ids %lld..%lld holds it",
						f->name, (long long) files[0]->entry->file.first_row_id,
						(long long) range_end(files[0]) - 1);
	return true;
}

static void
close_group(ts_evolution_reader *r)
{
	for (int i = 0; i < r->nsrc; i++)
	{
		ts_data_file_close(r->src[i].reader, &r->metrics);
		ts_free(r->src[i].fields);
		ts_free(r->src[i].out);
	}
	ts_free(r->src);
	r->src = NULL;
	r->nsrc = 0;
	for (int b = 0; b < r->nbunches; b++)
	{
		add_format_metrics(r->bunches[b].reader, &r->metrics);
		ts_format_close(r->bunches[b].reader);
		ts_free(r->bunches[b].files);
	}
	ts_free(r->bunches);
	r->bunches = NULL;
	r->nbunches = 0;
}

/* A blob file and the BLOB field it holds, for sorting into bunches. */
typedef struct blob_file_ref
{
	const ts_scan_file *file;
	const ts_field *field;		/* in the file's schema */
} blob_file_ref;

/* Field id, then row-id order, then newest first, then split order. */
static int
cmp_blob_ref(const void *pa, const void *pb)
{
	const blob_file_ref *a = pa,
			   *b = pb;
	const ts_data_file_meta *fa = &a->file->entry->file,
			   *fb = &b->file->entry->file;

	if (a->field->id != b->field->id)
		return a->field->id < b->field->id ? -1 : 1;
	if (fa->first_row_id != fb->first_row_id)
		return fa->first_row_id < fb->first_row_id ? -1 : 1;
	if (fa->max_sequence_number != fb->max_sequence_number)
		return fa->max_sequence_number > fb->max_sequence_number ? -1 : 1;
	return a->file < b->file ? -1 : a->file > b->file;
}

/*
 * Sort the blob files of a group (files[ndata..n)) into one bunch per BLOB
 * field (Java's splitFieldBunches), each covering the group's row-id range
 * [start, end) in row-id order with one sequence number.
 */
static bool
build_bunches(ts_evolution_reader *r, const ts_scan_file **files, int ndata, int n, ts_err *err)
{
	int			nblob = n - ndata;
	blob_file_ref *refs;
	int64_t		start = files[0]->entry->file.first_row_id,
				end = range_end(files[0]);
	bool		ok = false;

	if (nblob == 0)
		return true;
	refs = ts_calloc(nblob, sizeof(*refs));
	r->bunches = ts_calloc(nblob, sizeof(*r->bunches));
	if (refs == NULL || r->bunches == NULL)
	{
		ts_free(refs);
		return ts_error_nomem(err, NULL);
	}
	for (int i = 0; i < nblob; i++)
	{
		const ts_scan_file *f = files[ndata + i];
		const ts_data_file_meta *m = &f->entry->file;
		const ts_schema *ds = ts_plan_schema(r->plan, m->schema_id, err);
		int			di;

		if (ds == NULL)
		{
			ts_error_context(err, "BLOB file \"%s\"", ts_scan_file_label(r->plan, f));
			goto done;
		}
		di = m->nwrite_cols >= 1 && m->write_cols[0] ?
			ts_schema_field_index(ds, m->write_cols[0]) : -1;
		if (di < 0 || m->nwrite_cols != 1)
		{
			ts_error(err, TS_ERR_CORRUPT,
					 "BLOB file \"%s\" does not name the one field of its schema it holds (_WRITE_COLS)",
					 ts_scan_file_label(r->plan, f));
			goto done;
		}
		refs[i].file = f;
		refs[i].field = &ds->fields[di];
	}
	qsort(refs, nblob, sizeof(*refs), cmp_blob_ref);
	for (int i = 0; i < nblob;)
	{
		de_blob_bunch *b = &r->bunches[r->nbunches++];
		int			j = i;
		int64_t		next = start;

		b->plan = r->plan;
		b->fs = r->plan->fs;
		while (j < nblob && refs[j].field->id == refs[i].field->id)
			j++;
		b->files = ts_calloc(j - i, sizeof(*b->files));
		if (b->files == NULL)
		{
			ts_error_nomem(err, NULL);
			goto done;
		}
		b->field_id = refs[i].field->id;
		b->column.field_id = refs[i].field->id;
		b->column.name = refs[i].field->name;
		b->column.type = refs[i].field->type;
		for (int k = i; k < j; k++)
		{
			const ts_data_file_meta *m = &refs[k].file->entry->file;

			if (m->max_sequence_number != refs[i].file->entry->file.max_sequence_number)
			{
				ts_error(err, TS_ERR_UNSUPPORTED,
						 "BLOB field \"%s\" has files of different sequence numbers in row ids %lld..%lld (an updated BLOB column): not supported",
						 refs[i].field->name, (long long) start, (long long) end - 1);
				goto done;
			}
			if (m->first_row_id != next)
			{
				ts_error(err, TS_ERR_CORRUPT,
						 "BLOB file \"%s\" starts at row id %lld, expected %lld (the BLOB files of field \"%s\" must cover row ids %lld..%lld one after the other)",
						 ts_scan_file_label(r->plan, refs[k].file), (long long) m->first_row_id, (long long) next,
						 refs[i].field->name, (long long) start, (long long) end - 1);
				goto done;
			}
			next = range_end(refs[k].file);
			b->files[b->nfiles++] = refs[k].file;
		}
		if (next != end)
		{
			ts_error(err, TS_ERR_CORRUPT,
					 "the BLOB files of field \"%s\" cover row ids %lld..%lld, the data files %lld..%lld",
					 refs[i].field->name, (long long) start, (long long) next - 1,
					 (long long) start, (long long) end - 1);
			goto done;
		}
		i = j;
	}
	ok = true;
done:
	ts_free(refs);
	return ok;
}

/* Next rows of a blob bunch: its files one after the other. */
static int
bunch_next(de_blob_bunch *b, ts_data_file_batch *out, ts_reader_metrics *metrics, ts_err *err)
{
	for (;;)
	{
		const ts_scan_file *f;
		ts_batch	in;
		int			n;

		if (b->next >= b->nfiles)
			return 0;
		f = b->files[b->next];
		if (b->reader == NULL)
		{
			ts_reader_options opts;
			const char *path = ts_scan_file_path(b->plan, f, err);

			if (path == NULL)
				return -1;
			memset(&opts, 0, sizeof(opts));
			opts.batch_rows = ts_read_batch_rows;
			opts.fs = b->fs;
			b->reader = ts_format_open(TS_FORMAT_BLOB, path, &b->column, 1, &opts, err);
			if (b->reader == NULL)
				return -1;
			b->rows = 0;
		}
		n = ts_format_next(b->reader, &in, err);
		if (n < 0)
			return -1;
		b->rows += n;
		if (b->rows > f->entry->file.row_count || (n == 0 && b->rows != f->entry->file.row_count))
		{
			ts_error(err, TS_ERR_CORRUPT, "BLOB file \"%s\" holds %s rows than its manifest entry says (%lld)",
					 ts_scan_file_label(b->plan, f), n > 0 ? "more" : "fewer", (long long) f->entry->file.row_count);
			return -1;
		}
		if (n > 0)
		{
			memset(out, 0, sizeof(*out));
			out->nrows = n;
			out->ncols = 1;
			out->values = in.values;
			return n;
		}
		add_format_metrics(b->reader, metrics);
		ts_format_close(b->reader);
		b->reader = NULL;
		b->next++;
	}
}

/* Open the readers of group g: one per file / blob bunch that provides a column. */
static bool
open_group(ts_evolution_reader *r, int g, ts_err *err)
{
	const ts_scan_file **files = r->files + r->group_start[g];
	int			n = r->group_start[g + 1] - r->group_start[g];
	int			ndata = r->group_ndata[g];
	int			nunits;
	int		   *provider = ts_calloc(r->ncolumns ? r->ncolumns : 1, sizeof(int));
	int		   *src_of_unit = ts_calloc(n, sizeof(int));
	bool		any = false;
	bool		ok = false;
	bool		by_row_id;

	if (provider == NULL || src_of_unit == NULL)
	{
		ts_error_nomem(err, NULL);
		goto done;
	}
	if (!build_bunches(r, files, ndata, n, err))
		goto done;
	nunits = ndata + r->nbunches;
	r->src = ts_calloc(nunits, sizeof(de_source));
	if (r->src == NULL)
	{
		ts_error_nomem(err, NULL);
		goto done;
	}
	for (int c = 0; c < r->ncolumns; c++)
	{
		if (!provider_of(r, files, ndata, r->columns[c], &provider[c], err))
			goto done;
		any |= provider[c] >= 0;
	}
	for (int i = 0; i < nunits; i++)
	{
		int			k = 0;

		src_of_unit[i] = -1;
		for (int c = 0; c < r->ncolumns; c++)
			k += provider[c] == i;
		/* no file provides a column: the newest alone gives the row count */
		if (k == 0 && (any || i > 0))
			continue;
		src_of_unit[i] = r->nsrc;
		r->src[r->nsrc].fields = ts_calloc(k ? k : 1, sizeof(int));
		r->src[r->nsrc].out = ts_calloc(k ? k : 1, sizeof(int));
		if (r->src[r->nsrc].fields == NULL || r->src[r->nsrc].out == NULL)
		{
			ts_free(r->src[r->nsrc].fields);
			ts_free(r->src[r->nsrc].out);
			ts_error_nomem(err, NULL);
			goto done;
		}
		r->nsrc++;
	}
	for (int c = 0; c < r->ncolumns; c++)
	{
		de_source  *s;

		if (provider[c] < 0)
			continue;
		s = &r->src[src_of_unit[provider[c]]];
		s->fields[s->ncols] = r->columns[c];
		s->out[s->ncols] = c;
		s->ncols++;
	}
	/* row-id positions for every data file of the group, or for none */
	by_row_id = r->split->row_ids != NULL;
	for (int i = ndata; i < nunits; i++)
		if (src_of_unit[i] >= 0)
			by_row_id = false;	/* a blob bunch is read */
	for (int i = 0; i < nunits; i++)
	{
		de_source  *s;
		void	   *rid = NULL;

		if (src_of_unit[i] < 0)
			continue;
		s = &r->src[src_of_unit[i]];
		if (i >= ndata)
		{
			s->bunch = &r->bunches[i - ndata];
			continue;
		}
		if (by_row_id && !ts_row_id_selection(r->split->row_ids, &files[i]->entry->file, &rid, err))
			goto done;
		s->reader = ts_data_file_open_rows(r->plan, r->split, files[i], s->fields, s->ncols,
										   false, NULL, NULL, rid, err);
		if (s->reader == NULL)
			goto done;
	}
	ok = true;
done:
	ts_free(provider);
	ts_free(src_of_unit);
	if (!ok)
		close_group(r);
	return ok;
}

ts_evolution_reader *
ts_evolution_reader_open(ts_plan *plan, const ts_split *split, const int *columns,
						 int ncolumns, ts_err *err)
{
	bool		data_evolution = plan->core.data_evolution;
	ts_evolution_reader *r;

	if (data_evolution && plan->incremental)
	{
		ts_error(err, TS_ERR_UNSUPPORTED,
				 "incremental reads of data-evolution tables are not supported");
		return NULL;
	}
	r = ts_calloc(1, sizeof(*r));
	if (r == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r->plan = plan;
	r->split = split;
	r->columns = columns;
	r->ncolumns = ncolumns;
	if (!build_groups(r, data_evolution, err))
	{
		ts_evolution_reader_close(r, NULL);
		return NULL;
	}
	return r;
}

/* Make sure every source of the open group has a row; false at its end. */
static bool
refill(ts_evolution_reader *r, int *avail, ts_err *err)
{
	int			min = -1,
				ended = 0;

	for (int i = 0; i < r->nsrc; i++)
	{
		de_source  *s = &r->src[i];
		int			left;

		if (s->pos >= s->batch.nrows && !s->eof)
		{
			int			n = s->bunch ?
				bunch_next(s->bunch, &s->batch, &r->metrics, err) :
				ts_data_file_next(s->reader, &s->batch, err);

			if (n < 0)
				return false;
			s->pos = 0;
			if (n == 0)
			{
				s->eof = true;
				s->batch.nrows = 0;
			}
		}
		left = s->batch.nrows - s->pos;
		ended += left == 0;
		if (min < 0 || left < min)
			min = left;
	}
	if (ended > 0 && ended < r->nsrc)
		return ts_error(err, TS_ERR_CORRUPT,
						"data files of row ids %lld..%lld hold different numbers of rows",
						(long long) r->files[r->group_start[r->next_group - 1]]->entry->file.first_row_id,
						(long long) range_end(r->files[r->group_start[r->next_group - 1]]) - 1);
	*avail = min < 0 ? 0 : min;
	return true;
}

int
ts_evolution_reader_next(ts_evolution_reader *r, ts_batch *batch, ts_err *err)
{
	memset(batch, 0, sizeof(*batch));
	batch->ncols = r->ncolumns;
	for (;;)
	{
		int			n = 0;

		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
		if (r->src == NULL)
		{
			if (r->next_group >= r->ngroups)
				return 0;
			if (!open_group(r, r->next_group++, err))
				return -1;
		}
		if (!refill(r, &n, err))
			return -1;
		if (n == 0)
		{
			close_group(r);
			continue;
		}
		if (r->nsrc == 1 && r->src[0].ncols == r->ncolumns)
		{
			/* one file provides every column in order: hand its rows on */
			de_source  *s = &r->src[0];
			bool		identity = true;

			for (int c = 0; c < s->ncols; c++)
				identity &= s->out[c] == c;
			if (identity)
			{
				batch->nrows = n;
				batch->values = s->batch.values + (size_t) s->pos * s->batch.ncols;
				s->pos += n;
				return n;
			}
		}
		if (n > r->out_cap)
		{
			ts_free(r->out);
			r->out = ts_calloc((size_t) n * (r->ncolumns ? r->ncolumns : 1), sizeof(ts_value));
			r->out_cap = r->out ? n : 0;
			if (r->out == NULL)
			{
				ts_error_nomem(err, NULL);
				return -1;
			}
		}
		for (size_t i = 0; i < (size_t) n * r->ncolumns; i++)
		{
			memset(&r->out[i], 0, sizeof(ts_value));
			r->out[i].isnull = true;
		}
		for (int i = 0; i < r->nsrc; i++)
		{
			de_source  *s = &r->src[i];

			for (int row = 0; row < n; row++)
			{
				const ts_value *in = s->batch.values + (size_t) (s->pos + row) * s->batch.ncols;
				ts_value   *dst = r->out + (size_t) row * r->ncolumns;

				for (int c = 0; c < s->ncols; c++)
					dst[s->out[c]] = in[c];
			}
			s->pos += n;
		}
		batch->nrows = n;
		batch->values = r->out;
		return n;
	}
}

void
ts_evolution_reader_add_metrics(const ts_evolution_reader *r, ts_reader_metrics *acc)
{
	if (r == NULL || acc == NULL)
		return;
	acc->bytes_read += r->metrics.bytes_read;
	acc->rows_read += r->metrics.rows_read;
	acc->row_groups_total += r->metrics.row_groups_total;
	acc->row_groups_kept += r->metrics.row_groups_kept;
	acc->files_opened += r->metrics.files_opened;
	acc->rows_skipped_index += r->metrics.rows_skipped_index;
	acc->rows_skipped_row_id += r->metrics.rows_skipped_row_id;
	for (int i = 0; i < r->nsrc; i++)
		ts_data_file_add_metrics(r->src[i].reader, acc);
	for (int b = 0; b < r->nbunches; b++)
		add_format_metrics(r->bunches[b].reader, acc);
}

void
ts_evolution_reader_close(ts_evolution_reader *r, ts_reader_metrics *acc)
{
	if (r == NULL)
		return;
	close_group(r);
	if (acc)
	{
		acc->bytes_read += r->metrics.bytes_read;
		acc->rows_read += r->metrics.rows_read;
		acc->row_groups_total += r->metrics.row_groups_total;
		acc->row_groups_kept += r->metrics.row_groups_kept;
		acc->files_opened += r->metrics.files_opened;
		acc->rows_skipped_index += r->metrics.rows_skipped_index;
		acc->rows_skipped_row_id += r->metrics.rows_skipped_row_id;
	}
	ts_free(r->files);
	ts_free(r->group_start);
	ts_free(r->group_ndata);
	ts_free(r->out);
	ts_free(r);
}
