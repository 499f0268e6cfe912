/*
 * merge.c - merge-on-read of a primary-key split (PAIMON-FORMAT.md 7.4/7.5).
 *
 * Owns: the streaming k-way merge of the split's data files (each file is
 * sorted by key and holds each key once) by trimmed primary key, then
 * user sequence fields (sequence.field / sequence.field.sort-order), then
 * _SEQUENCE_NUMBER, then retract before add, and the rows it emits per
 * key: the merge engines fold a key's records (merge_engine.c), chosen by
 * the table's options (merge_options.c).  A key
 * with a single record is emitted unchanged; -U/-D results are dropped,
 * except on incremental reads (plan->incremental), which keep them as rows
 * of their own kind like Java's forceKeepDelete (the audit_log read) and
 * can hand each row's kind on as the system column _ROW_KIND, with every
 * engine (a partial-update or aggregation result is -D where Java's merge
 * function returns DELETE: merge_engine.c).
 * Changelog reads and the reads of a stream (plan->unmerged) do not
 * merge: every record of the split's files is a row, any engine.  Diff
 * reads (plan->diff) merge each key twice, over the start snapshot's files
 * and over the end's, as batch reads, and emit what differs (diff_next);
 * a stream's read of an overwrite's changes (plan->overwrite) merges the
 * same way and emits the removed side as -D, then the added side
 * (overwrite_next).
 * Order: a loser tree over the files' cursors, each caching its row's
 * key (an integer key as is; string keys compared by memcmp), sequence
 * number and kind; with one integer key and no sequence field, the whole
 * order packed into one 128-bit number per cursor (fast_order).  Memory: one batch per file plus one output batch; an
 * output row of the deduplicate and unmerged paths points into its file's
 * batch until that batch is refilled (unpin copies it then).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "read/merge_internal.h"
#include "expr/predicate.h"

/* ---- ordering --------------------------------------------------------- */

int64_t		ts_merge_fast_seq_limit = MERGE_ORD_MAX_SEQ;

/* the comparisons run for every record merged: inlined into their callers */
#define MERGE_HOT static inline __attribute__((always_inline))

/* Unsigned bytes, then the shorter first (ts_value_order's order of bytes). */
MERGE_HOT int
compare_bytes(const ts_value *a, const ts_value *b)
{
	uint32_t	n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
	int			c = n ? memcmp(a->v.s.p, b->v.s.p, n) : 0;

	if (c)
		return c < 0 ? -1 : 1;
	return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
}

MERGE_HOT int
compare_keys(const ts_merge_reader *m, const ts_value *a, const ts_value *b)
{
	for (int k = 0; k < m->nkeys; k++)
	{
		int			col = m->key_cols[k];
		int			c;

		if (a[col].isnull || b[col].isnull || m->key_forms[k] == KEY_GENERIC)
			c = ts_value_compare(&a[col], &b[col], m->types[col]);
		else if (m->key_forms[k] == KEY_INT)
			c = a[col].v.i < b[col].v.i ? -1 : a[col].v.i > b[col].v.i;
		else
			c = compare_bytes(&a[col], &b[col]);
		if (c)
			return c;
	}
	return 0;
}

/*
 * Merge order of two live cursors' current rows: key, then (diff reads)
 * the start snapshot's files first, user sequence fields, sequence number,
 * retract before add, file order.  A total order: no two cursors are equal.
 */
MERGE_HOT int
compare_cursors(const ts_merge_reader *m, const cursor *a, const cursor *b)
{
	int			c;

	if (a->key_cached && b->key_cached)
	{
		if (a->key_i != b->key_i)
			return a->key_i < b->key_i ? -1 : 1;
	}
	else if ((c = compare_keys(m, a->cur, b->cur)) != 0)
		return c;
	/* a diff merges a key's records of the start snapshot first */
	if (a->before != b->before)
		return a->before ? -1 : 1;
	for (int k = 0; k < m->nseq; k++)
	{
		int			col = m->seq_cols[k];

		c = ts_value_compare(&a->cur[col], &b->cur[col], m->types[col]);
		if (c)
			return m->seq_descending ? -c : c;
	}
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (a->retract != b->retract)
		return a->retract ? -1 : 1;
	return a->file_index < b->file_index ? -1 : a->file_index > b->file_index;
}

/* Does cursor ia come before cursor ib?  Done cursors come last. */
MERGE_HOT bool
cursor_first(const ts_merge_reader *m, int ia, int ib)
{
	const cursor *a = &m->cursors[ia],
			   *b = &m->cursors[ib];

	if (a->done || b->done)
		return b->done && (!a->done || ia < ib);
	return compare_cursors(m, a, b) < 0;
}

/*
 * Cache what the ordering reads of the cursor's current row.  With
 * fast_order, also the row's whole order as one number; a row it cannot
 * be packed for (a null key, a sequence number out of range) turns
 * fast_order off for the rest of the merge, which is safe at any point:
 * both comparisons order rows the same way, and every cursor's cached
 * fields stay filled for the general one.
 */
MERGE_HOT void
cursor_load(ts_merge_reader *m, cursor *c)
{
	c->cur = &c->batch.values[(size_t) c->row * c->batch.stride];
	c->seq = c->batch.seq[c->row];
	c->retract = ts_row_kind_is_retract(c->batch.kind[c->row]);
	c->key_cached = false;
	if (m->single_int_key && !c->cur[m->key_cols[0]].isnull)
	{
		c->key_i = c->cur[m->key_cols[0]].v.i;
		c->key_cached = true;
	}
	if (m->fast_order)
	{
		if (!c->key_cached || c->seq < 0 || c->seq >= m->fast_seq_limit)
			m->fast_order = false;
		else
			c->ord = ((merge_ord) ((uint64_t) c->key_i ^ UINT64_C(0x8000000000000000)) << 64) |
				((uint64_t) c->seq << 8) | (c->retract ? 0 : 0x80) | (uint64_t) c->file_index;
	}
}

/*
 * The loser tree over the cursors: leaf i is node ncursors + i, internal
 * node j (1 <= j < ncursors) holds the cursor that lost the match there,
 * tree[0] the cursor that won them all.  Moving the winner replays only
 * its path: log2(ncursors) comparisons, against a binary heap's up to two
 * per level.
 */
static int
tree_build(ts_merge_reader *m, int node)
{
	int			a,
				b;

	if (node >= m->ncursors)
		return node - m->ncursors;
	a = tree_build(m, 2 * node);
	b = tree_build(m, 2 * node + 1);
	if (cursor_first(m, b, a))
	{
		m->tree[node] = a;
		return b;
	}
	m->tree[node] = b;
	return a;
}

/*
 * The winner's row changed (or it is done): play its path again.  With
 * fast_order a match is one comparison of two numbers and its outcome is
 * applied with masks, not a branch: over random keys a branch there is
 * mispredicted half of the time.
 */
MERGE_HOT void
tree_replay(ts_merge_reader *m)
{
	int			winner = m->tree[0];

	if (m->fast_order)
	{
		const cursor *cs = m->cursors;
		merge_ord	wo = cs[winner].ord;

		for (int node = (m->ncursors + winner) >> 1; node >= 1; node >>= 1)
		{
			int			other = m->tree[node];
			merge_ord	oo = cs[other].ord;
			int			mask = -(int) (oo < wo);	/* all ones: other goes first */
			int			next = winner ^ ((winner ^ other) & mask);

			m->tree[node] = winner ^ other ^ next;
			winner = next;
			wo = mask ? oo : wo;
		}
		m->tree[0] = winner;
		return;
	}
	for (int node = (m->ncursors + winner) >> 1; node >= 1; node >>= 1)
	{
		int			other = m->tree[node];

		if (cursor_first(m, other, winner))
		{
			m->tree[node] = winner;
			winner = other;
		}
	}
	m->tree[0] = winner;
}

/* Load the next batch of a cursor; false at end (or error: err set). */
static int
cursor_fill(ts_merge_reader *m, cursor *c, ts_err *err)
{
	int			n = ts_data_file_next(c->reader, &c->batch, err);

	c->row = 0;
	if (n > 0 && (c->batch.seq == NULL || c->batch.kind == NULL))
	{
		ts_error(err, TS_ERR_CORRUPT, "key-value file without sequence numbers");
		return -1;
	}
	if (n > 0)
		cursor_load(m, c);
	else if (n == 0)
	{
		c->done = true;
		c->ord = ~(merge_ord) 0;	/* after every live row */
	}
	return n;
}

/*
 * Output rows are put down pointing into the batch of the cursor they come
 * from (put_row); before that batch is overwritten, the bytes and nested
 * values of those rows are copied into the arena.
 */
static bool
unpin(ts_merge_reader *m, int ci, ts_err *err)
{
	int			ncols = m->nout;

	for (int r = 0; r < m->out_n && m->cursors[ci].pinned > 0; r++)
	{
		ts_value   *row = &m->out_values[(size_t) r * ncols];

		if (m->out_src[r] != ci)
			continue;
		for (int o = 0; o < ncols; o++)
		{
			ts_value	v = row[o];

			if (m->out_map[o] >= 0 && !m->plain[m->out_map[o]] &&
				!copy_val(m, &row[o], &v, m->out_map[o], err))
				return false;
		}
		m->out_src[r] = -1;
		m->cursors[ci].pinned--;
	}
	m->cursors[ci].pinned = 0;
	return true;
}

/* Advance the first cursor past its current row. */
static bool
advance_top(ts_merge_reader *m, ts_err *err)
{
	cursor	   *c = &m->cursors[m->tree[0]];

	if (++c->row < c->batch.nrows)
		cursor_load(m, c);
	else
	{
		int			n;

		if (c->pinned > 0 && !unpin(m, m->tree[0], err))
			return false;
		n = cursor_fill(m, c, err);

		if (n < 0)
			return false;
		if (n == 0)
			m->nlive--;
	}
	tree_replay(m);
	return true;
}

/* ---- the reader ------------------------------------------------------- */

/* The _ROW_KIND value of a row kind: Paimon's short string, e.g. "+I". */
static ts_value
row_kind_value(int8_t kind)
{
	static const char *const names[] = {"+I", "-U", "+U", "-D"};
	ts_value	v = {.isnull = false};

	if (kind < 0 || kind > 3)
		kind = 0;				/* data_file.c refuses other kinds */
	v.v.s.p = (const uint8_t *) names[kind];
	v.v.s.len = 2;
	return v;
}

ts_merge_reader *
ts_merge_reader_open(ts_plan *plan, const ts_split *split, const int *columns, int ncolumns,
					 ts_bufpool *buffers, ts_err *err)
{
	ts_merge_reader *m = ts_calloc(1, sizeof(*m));

	if (m == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	m->plan = plan;
	m->split = split;
	m->buffers = buffers;
	ts_arena_init(&m->arena, 0);
	if (!merge_configure(m, columns, ncolumns, err))
		goto fail;
	/* the order packs into one number: one integer key, nothing between it and the sequence */
	m->fast_order = m->single_int_key && m->nseq == 0 && !m->diff && !m->overwrite &&
		split->nfiles <= MERGE_ORD_MAX_FILES;
	m->fast_seq_limit = ts_merge_fast_seq_limit < MERGE_ORD_MAX_SEQ ?
		ts_merge_fast_seq_limit : MERGE_ORD_MAX_SEQ;
	m->first = ts_calloc(m->nint, sizeof(ts_value));
	m->side[0] = ts_calloc(m->nint, sizeof(ts_value));
	m->side[1] = ts_calloc(m->nint, sizeof(ts_value));
	m->acc = ts_calloc(m->nint, sizeof(ts_value));
	m->acc_init = ts_calloc(m->nint, sizeof(bool));
	m->cursors = ts_calloc(split->nfiles ? split->nfiles : 1, sizeof(cursor));
	m->tree = ts_calloc(split->nfiles ? split->nfiles : 1, sizeof(int));
	if (!m->first || !m->acc || !m->acc_init || !m->cursors || !m->tree || !m->side[0] ||
		!m->side[1])
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	/*
	 * Every run opened before any is read: on an object store each starts
	 * its first reads at its open, and they come in together.
	 */
	for (int i = 0; i < split->nfiles; i++)
	{
		cursor	   *c = &m->cursors[m->ncursors];

		c->file_index = i;
		c->before = m->diff && split->files[i].diff_before;
		c->reader = ts_data_file_open_with(plan, split, &split->files[i], m->int_fields, m->nint,
										   true, buffers, err);
		if (c->reader == NULL)
			goto fail;
		ts_data_file_allow_stride(c->reader);
		m->ncursors++;
	}
	for (int i = 0; i < m->ncursors; i++)
	{
		int			n = cursor_fill(m, &m->cursors[i], err);

		if (n < 0)
			goto fail;
		if (n > 0)
			m->nlive++;
	}
	if (m->overwrite)
	{
		bool		before = false;

		for (int i = 0; i < m->ncursors; i++)
			before = before || m->cursors[i].before;
		/* a bucket the overwrite only added to: read as a stream's delta */
		m->diff = before;
		m->no_merge = !before;
	}
	if (m->ncursors > 0)
		m->tree[0] = tree_build(m, 1);
	return m;

fail:
	ts_merge_reader_close(m, NULL);
	return NULL;
}

/*
 * Advance the first cursor past *row, its current row; when that empties the
 * cursor's batch (the next fill overwrites it), *row is copied to m->first
 * first and then points there.
 */
static bool
advance_keeping(ts_merge_reader *m, const ts_value **row, int *src, ts_err *err)
{
	const cursor *c = &m->cursors[m->tree[0]];

	if (c->row + 1 >= c->batch.nrows)
	{
		for (int i = 0; i < m->nint; i++)
			if (!copy_val(m, &m->first[i], &(*row)[i], i, err))
				return false;
		*row = m->first;
		*src = -1;
	}
	return advance_top(m, err);
}

/*
 * Output row nrows: the output columns of 'row' and its kind for
 * _ROW_KIND.  A row of cursor src (>= 0) keeps pointing into the cursor's
 * batch until that is refilled (unpin); any other row is copied.
 */
static bool
put_row(ts_merge_reader *m, int nrows, const ts_value *row, int src, int8_t kind, ts_err *err)
{
	int			ncols = m->nout;

	for (int o = 0; o < ncols; o++)
	{
		if (m->out_map[o] < 0)
			m->out_values[(size_t) nrows * ncols + o] = row_kind_value(kind);
		else if (src >= 0 || m->plain[m->out_map[o]])
			m->out_values[(size_t) nrows * ncols + o] = row[m->out_map[o]];
		else if (!copy_val(m, &m->out_values[(size_t) nrows * ncols + o], &row[m->out_map[o]],
						   m->out_map[o], err))
			return false;
	}
	m->out_src[nrows] = src;
	if (src >= 0)
		m->cursors[src].pinned++;
	m->out_n = nrows + 1;
	return true;
}

/*
 * Deduplicate without ignore-delete: a key's result is its last record in
 * merge order, so the records of a group are only looked at where they are
 * (no copy per record); the result's output columns are copied once, into
 * the output batch, because a cursor may be refilled before the batch is
 * returned.
 */
static int
dedupe_next(ts_merge_reader *m, int cap, ts_err *err)
{
	int			nrows = 0;

	while (nrows < cap && m->nlive > 0)
	{
		const cursor *c = &m->cursors[m->tree[0]];
		const ts_value *last = c->cur;
		int			src = m->tree[0];
		int8_t		kind = c->batch.kind[c->row];
		bool		key_cached = c->key_cached;
		int64_t		key_i = c->key_i;
		int			count = 1;

		if ((nrows & 1023) == 0 && !TS_CHECK_INTERRUPTS(err))
			return -1;
		if (!advance_keeping(m, &last, &src, err))
			return -1;
		while (m->nlive > 0)
		{
			const cursor *t = &m->cursors[m->tree[0]];
			const ts_value *row = t->cur;

			if (key_cached && t->key_cached ? t->key_i != key_i : compare_keys(m, row, last) != 0)
				break;
			last = row;
			src = m->tree[0];
			kind = t->batch.kind[t->row];
			if ((++count & 4095) == 0 && !TS_CHECK_INTERRUPTS(err))
				return -1;
			if (!advance_keeping(m, &last, &src, err))
				return -1;
		}
		if (ts_row_kind_is_retract(kind) && !m->keep_retracts)
			continue;
		if (!put_row(m, nrows, last, src, kind, err))
			return -1;
		nrows++;
	}
	return nrows;
}

/*
 * Unmerged reads (plan->unmerged): every record is a row of
 * its own kind, as Java's streaming reader emits them (in key order here,
 * which SQL does not see).
 */
static int
unmerged_next(ts_merge_reader *m, int cap, ts_err *err)
{
	int			nrows = 0;

	while (nrows < cap && m->nlive > 0)
	{
		const cursor *c = &m->cursors[m->tree[0]];
		const ts_value *row = c->cur;
		int8_t		kind = c->batch.kind[c->row];

		if ((nrows & 1023) == 0 && !TS_CHECK_INTERRUPTS(err))
			return -1;
		if (!put_row(m, nrows, row, m->tree[0], kind, err))
			return -1;
		nrows++;
		if (!advance_top(m, err))
			return -1;
	}
	return nrows;
}

/*
 * Diff reads (plan->diff, Java's IncrementalDiffSplitRead): the first cursor's
 * key merged over the files of one side only (before: the start
 * snapshot's), as a batch read merges it (retract results are no row).
 * The result is copied to m->side[before ? 0 : 1]; *present false when the
 * side has no row for the key; *seq the result's sequence number (the
 * first record's for first-row, else the last one's).
 */
static bool
merge_side(ts_merge_reader *m, bool before, bool *present, int8_t *kind, int64_t *seq,
		   ts_err *err)
{
	cursor	   *c = &m->cursors[m->tree[0]];
	const ts_value *res;
	int64_t		first_seq = -1,
				last_seq;
	bool		keep;
	ts_value   *out = m->side[before ? 0 : 1];

	*present = false;
	for (int i = 0; i < m->nint; i++)
		if (!copy_val(m, &m->first[i], &c->cur[i], i, err))
			return false;
	m->first_kind = c->batch.kind[c->row];
	last_seq = c->batch.seq[c->row];
	if (!ts_row_kind_is_retract(m->first_kind))
		first_seq = last_seq;	/* first-row's result: the first added record */
	m->count = 1;
	if (!advance_top(m, err))
		return false;
	while (m->nlive > 0)
	{
		cursor	   *t = &m->cursors[m->tree[0]];
		const ts_value *row = t->cur;

		if (t->before != before || compare_keys(m, row, m->first) != 0)
			break;
		if (m->count == 1)
		{
			merge_acc_clear(m);
			if (!merge_add(m, m->first, m->first_kind, err))
				return false;
		}
		if (!merge_add(m, row, t->batch.kind[t->row], err))
			return false;
		last_seq = t->batch.seq[t->row];
		if (first_seq < 0 && !ts_row_kind_is_retract(t->batch.kind[t->row]))
			first_seq = last_seq;
		if ((++m->count & 4095) == 0 && !TS_CHECK_INTERRUPTS(err))
			return false;
		if (!advance_top(m, err))
			return false;
	}
	res = merge_result(m, &keep, kind);
	if (!keep || ts_row_kind_is_retract(*kind))
		return true;
	for (int i = 0; i < m->nint; i++)
		if (!copy_val(m, &out[i], &res[i], i, err))
			return false;
	*seq = m->engine == ENGINE_FIRST_ROW && m->count > 1 && first_seq >= 0 ? first_seq : last_seq;
	*present = true;
	return true;
}

/* Java's binary equality of two values of type t (a float's bits, a map's entries in order). */
static bool
values_equal(const ts_value *a, const ts_value *b, const ts_type *t)
{
	if (a->isnull || b->isnull)
		return a->isnull && b->isnull;
	if (ts_type_is_bytes(t->kind))
		return a->v.s.len == b->v.s.len &&
			(a->v.s.len == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0);
	if (t->kind == TS_FLOAT)
		return memcmp(&a->v.f, &b->v.f, sizeof(float)) == 0;
	if (t->kind == TS_DOUBLE)
		return memcmp(&a->v.d, &b->v.d, sizeof(double)) == 0;
	if (ts_type_is_nested(t->kind))
	{
		if (a->v.nested.n != b->v.nested.n)
			return false;
		for (int i = 0; i < a->v.nested.n * (t->kind == TS_MAP ? 2 : 1); i++)
		{
			const ts_type *et = t->kind == TS_ROW ? t->fields[i].type :
				t->kind == TS_MAP ? (i % 2 ? t->value : t->key) : t->element;

			if (!values_equal(&a->v.nested.items[i], &b->v.nested.items[i], et))
				return false;
		}
		return true;
	}
	return ts_value_compare(a, b, t) == 0;
}

/*
 * Per key: the start snapshot's merged row and the end's (merge_side);
 * only after: the after row; only before: the before row as -D (the read
 * keeps deletes, as every incremental read here); both: the after row when
 * it is the later one (user sequence fields, then sequence number) and
 * its value differs (Java's DiffMerger).
 */
static int
diff_next(ts_merge_reader *m, int cap, ts_err *err)
{
	int			nrows = 0;

	while (nrows < cap && m->nlive > 0)
	{
		bool		has[2] = {false, false};
		int8_t		kind[2];
		int64_t		seq[2] = {0, 0};
		const ts_value *emit = NULL;
		int8_t		emit_kind = TS_ROW_KIND_INSERT;

		if ((nrows & 1023) == 0 && !TS_CHECK_INTERRUPTS(err))
			return -1;
		if (m->cursors[m->tree[0]].before)
		{
			if (!merge_side(m, true, &has[0], &kind[0], &seq[0], err))
				return -1;
			/* the after side's records of the same key, if any, come next */
			if (m->nlive > 0 && !m->cursors[m->tree[0]].before &&
				compare_keys(m, m->cursors[m->tree[0]].cur, m->first) == 0 &&
				!merge_side(m, false, &has[1], &kind[1], &seq[1], err))
				return -1;
		}
		else if (!merge_side(m, false, &has[1], &kind[1], &seq[1], err))
			return -1;
		if (has[1] && !has[0])
		{
			emit = m->side[1];
			emit_kind = kind[1];
		}
		else if (has[0] && !has[1])
		{
			emit = m->side[0];
			emit_kind = TS_ROW_KIND_DELETE;
		}
		else if (has[0] && has[1])
		{
			int			c = 0;
			bool		same = true;

			for (int k = 0; k < m->nseq && c == 0; k++)
			{
				int			col = m->seq_cols[k];

				c = ts_value_compare(&m->side[1][col], &m->side[0][col], m->types[col]);
				if (m->seq_descending)
					c = -c;
			}
			if (c == 0)
				c = seq[1] < seq[0] ? -1 : 0;
			for (int i = 0; i < m->nint && same; i++)
				same = values_equal(&m->side[0][i], &m->side[1][i], m->types[i]);
			if (c >= 0 && !same)
			{
				emit = m->side[1];
				emit_kind = kind[1];
			}
		}
		if (emit == NULL)
			continue;
		if (!put_row(m, nrows, emit, -1, emit_kind, err))
			return -1;
		nrows++;
	}
	return nrows;
}

/*
 * An overwrite's changes in a bucket it removed files from (Java's
 * IncrementalChangelogReadProvider): each key of the removed files merged
 * as a batch read merges it, as -D (ReverseReader), and each key of the
 * added files merged, with the result's kind; retract results are no row.
 * Per key the -D comes first (the before side's cursors sort first).
 */
static int
overwrite_next(ts_merge_reader *m, int cap, ts_err *err)
{
	int			nrows = 0;

	while (nrows < cap && m->nlive > 0)
	{
		bool		before = m->cursors[m->tree[0]].before;
		bool		has;
		int8_t		kind;
		int64_t		seq;

		if ((nrows & 1023) == 0 && !TS_CHECK_INTERRUPTS(err))
			return -1;
		if (!merge_side(m, before, &has, &kind, &seq, err))
			return -1;
		if (!has)
			continue;
		if (!put_row(m, nrows, m->side[before ? 0 : 1], -1,
					 before ? TS_ROW_KIND_DELETE : kind, err))
			return -1;
		nrows++;
	}
	return nrows;
}

int
ts_merge_reader_next(ts_merge_reader *m, ts_batch *batch, ts_err *err)
{
	int			nrows = 0;
	int			ncols = m->nout;
	int			cap = ts_read_batch_rows > 0 ? ts_read_batch_rows : TS_BATCH_ROWS;

	ts_arena_reset(&m->arena);
	m->out_n = 0;
	for (int i = 0; i < m->ncursors; i++)
		m->cursors[i].pinned = 0;	/* the caller is done with the last batch */
	if (m->out_values == NULL)
	{
		m->out_values = ts_bufpool_get_zeroed(m->buffers, (size_t) cap * (ncols ? ncols : 1),
											  sizeof(ts_value), &m->out_values_bytes);
		m->out_src = ts_calloc(cap, sizeof(int));
		if (m->out_values == NULL || m->out_src == NULL)
		{
			ts_error_nomem(err, NULL);
			return -1;
		}
		m->out_cap = cap;
	}
	if (cap > m->out_cap)
		cap = m->out_cap;		/* tablescan.batch_rows grew during the scan */
	if (m->diff || m->no_merge || (m->engine == ENGINE_DEDUPLICATE && !m->ignore_delete))
	{
		nrows = m->diff ? (m->overwrite ? overwrite_next(m, cap, err) : diff_next(m, cap, err)) :
			m->no_merge ? unmerged_next(m, cap, err) : dedupe_next(m, cap, err);
		if (nrows < 0)
			return -1;
		batch->nrows = nrows;
		batch->ncols = ncols;
		batch->values = m->out_values;
		return nrows;
	}
	while (nrows < cap && m->nlive > 0)
	{
		cursor	   *c = &m->cursors[m->tree[0]];
		const ts_value *res;
		bool		keep;
		int8_t		kind;

		if ((nrows & 1023) == 0 && !TS_CHECK_INTERRUPTS(err))
			return -1;
		/* start a group with the smallest record */
		for (int i = 0; i < m->nint; i++)
			if (!copy_val(m, &m->first[i], &c->cur[i], i, err))
				return -1;
		m->first_kind = c->batch.kind[c->row];
		m->count = 1;
		if (!advance_top(m, err))
			return -1;
		while (m->nlive > 0)
		{
			cursor	   *t = &m->cursors[m->tree[0]];
			const ts_value *row = t->cur;

			if (compare_keys(m, row, m->first) != 0)
				break;
			if (m->count == 1)
			{
				merge_acc_clear(m);
				if (!merge_add(m, m->first, m->first_kind, err))
					return -1;
			}
			if (!merge_add(m, row, t->batch.kind[t->row], err))
				return -1;
			m->count++;
			if ((m->count & 4095) == 0 && !TS_CHECK_INTERRUPTS(err))
				return -1;
			if (!advance_top(m, err))
				return -1;
		}
		res = merge_result(m, &keep, &kind);
		if (!keep)
			continue;
		for (int o = 0; o < ncols; o++)
			m->out_values[(size_t) nrows * ncols + o] =
				m->out_map[o] < 0 ? row_kind_value(kind) : res[m->out_map[o]];
		nrows++;
	}
	batch->nrows = nrows;
	batch->ncols = ncols;
	batch->values = m->out_values;
	return nrows;
}

void
ts_merge_reader_add_metrics(const ts_merge_reader *m, ts_reader_metrics *acc)
{
	for (int i = 0; i < m->ncursors; i++)
		ts_data_file_add_metrics(m->cursors[i].reader, acc);
}

void
ts_merge_reader_close(ts_merge_reader *m, ts_reader_metrics *acc)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->ncursors; i++)
		ts_data_file_close(m->cursors[i].reader, acc);
	ts_free(m->cursors);
	ts_free(m->tree);
	ts_free(m->first);
	ts_free(m->side[0]);
	ts_free(m->side[1]);
	ts_free(m->acc);
	ts_free(m->acc_init);
	ts_bufpool_put(m->buffers, m->out_values, m->out_values_bytes);
	ts_free(m->out_src);
	ts_free(m->int_fields);
	ts_free(m->types);
	ts_free(m->names);
	ts_free(m->out_map);
	ts_free(m->key_cols);
	ts_free(m->key_forms);
	ts_free(m->plain);
	ts_free(m->seq_cols);
	ts_free(m->aggs);
	ts_free(m->ignore_retract);
	ts_free(m->delimiters);
	ts_arena_free(&m->arena);
	ts_free(m);
}
