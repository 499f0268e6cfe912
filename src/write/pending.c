/*
 * pending.c - a writer's finished, uncommitted files as manifest entries.
 *
 * Owns: describing the data files a table writer has finished but not
 * committed the way the commit's manifest will (commit.c write_manifest):
 * ADD entries of level 0 with their partition, bucket, row counts, key
 * range, key and value statistics and sequence numbers, so that a scan in
 * the same process reads them with the latest snapshot's files (paimon-cpp's
 * RealtimeContext: a transaction reads its own writes).  Primary-key files
 * carry the numbers they were written with; append files are numbered from
 * 0 per partition and bucket, in the order finished (the commit numbers
 * them after the bucket's committed rows: only _SEQUENCE_NUMBER differs).
 */
#include <string.h>

#include "base/ts_base.h"
#include "write/write_internal.h"

static const uint8_t empty_row[12] = {0};	/* arity 0: BE arity + 8-byte null bitset */

static bool
copy_bytes(ts_arena *a, ts_bytes *out, const uint8_t *p, size_t len)
{
	out->len = (uint32_t) len;
	out->data = ts_arena_dup(a, p, len > 0 ? len : 1);
	return out->data != NULL;
}

/* SimpleStats as decoded from a manifest; min NULL: EMPTY_STATS. */
static bool
stats(ts_arena *a, ts_simple_stats *out, const ts_buf *min, const ts_buf *max,
	  const int64_t *counts, int n)
{
	bool		empty = min == NULL || min->len == 0;

	if (!copy_bytes(a, &out->min_values, empty ? empty_row : min->data,
					empty ? sizeof(empty_row) : min->len) ||
		!copy_bytes(a, &out->max_values, empty ? empty_row : max->data,
					empty ? sizeof(empty_row) : max->len))
		return false;
	out->nnull_counts = empty ? 0 : n;
	out->null_counts = ts_arena_alloc(a, sizeof(int64_t) * (size_t) (n > 0 ? n : 1));
	if (out->null_counts == NULL)
		return false;
	for (int i = 0; !empty && i < n; i++)
		out->null_counts[i] = counts[i] < 0 ? -1 : counts[i];
	return true;
}

bool
ts_table_writer_pending_entries(const ts_table_writer *w, int nfiles, ts_arena *arena,
								ts_manifest_entry **entries, ts_err *err)
{
	int			nfinished;
	ts_new_file *const *files = ts_table_writer_finished(w, &nfinished);
	const ts_schema *schema = ts_table_writer_schema(w);
	ts_manifest_entry *out;
	ts_append_numbering numbering;	/* append files numbered on per bucket */
	bool		ok = true;

	*entries = NULL;
	if (nfiles < 0 || nfiles > nfinished)
		return ts_error(err, TS_ERR_INVALID, "a writer has %d finished files, not %d", nfinished,
						nfiles);
	out = ts_arena_alloc(arena, sizeof(ts_manifest_entry) * (size_t) (nfiles > 0 ? nfiles : 1));
	if (out == NULL)
		return ts_error_nomem(err, "the entries of pending files");
	memset(out, 0, sizeof(ts_manifest_entry) * (size_t) (nfiles > 0 ? nfiles : 1));
	if (!ts_append_numbering_init(&numbering, files, nfiles, arena, err))
		return false;
	for (int i = 0; ok && i < nfiles; i++)
	{
		const ts_new_file *f = files[i];
		ts_manifest_entry *e = &out[i];
		ts_data_file_meta *m = &e->file;

		e->kind = TS_FILE_ADD;
		e->bucket = f->bucket;
		e->total_buckets = ts_table_writer_total_buckets(w);
		m->file_name = ts_arena_strdup(arena, f->name);
		m->file_size = f->size;
		m->row_count = f->rows;
		ok = m->file_name != NULL && copy_bytes(arena, &e->partition, f->partition, f->partition_len);
		if (ok && f->min_key.len > 0)
			ok = copy_bytes(arena, &m->min_key, f->min_key.data, f->min_key.len) &&
				copy_bytes(arena, &m->max_key, f->max_key.data, f->max_key.len) &&
				stats(arena, &m->key_stats, &f->key_min_values, &f->key_max_values,
					  f->key_null_counts, f->nkeys);
		else if (ok)
			ok = copy_bytes(arena, &m->min_key, empty_row, sizeof(empty_row)) &&
				copy_bytes(arena, &m->max_key, empty_row, sizeof(empty_row)) &&
				stats(arena, &m->key_stats, NULL, NULL, NULL, 0);
		if (ok)
			ok = f->stats_cols_empty ? stats(arena, &m->value_stats, NULL, NULL, NULL, 0) :
				stats(arena, &m->value_stats, &f->min_values, &f->max_values, f->null_counts,
					  schema->nfields);
		if (!ok)
		{
			ts_append_numbering_free(&numbering);
			return ts_error_nomem(err, "the entries of pending files");
		}
		if (f->numbered)
		{
			m->min_sequence_number = f->min_seq;
			m->max_sequence_number = f->max_seq;
		}
		else
		{
			/* numbered on from the bucket's earlier files */
			int64_t		at_row = ts_append_numbering_next(&numbering, i, err);

			ok = at_row >= 0;
			m->min_sequence_number = at_row;
			m->max_sequence_number = at_row + f->rows - 1;
		}
		m->schema_id = schema->id;
		m->level = 0;
		m->has_creation_time = true;
		m->creation_time_millis = f->creation_millis;
		m->delete_row_count = f->delete_rows;
		m->file_source = 0;		/* APPEND */
		m->nvalue_stats_cols = f->stats_cols_empty ? 0 : -1;
		m->nwrite_cols = -1;
	}
	ts_append_numbering_free(&numbering);
	if (!ok)
		return false;
	*entries = out;
	return true;
}
