/*
 * merge.c - merge-on-read of a primary-key split (PAIMON-FORMAT.md 7.4/7.5).
 *
 * Owns: the streaming k-way merge of the split's data files (each file is
 * sorted by key and holds each key once) by trimmed primary key, then
 * user sequence fields (sequence.field / sequence.field.sort-order), then
 * _SEQUENCE_NUMBER, then retract before add; and the merge engines
 * deduplicate, first-row, partial-update (without sequence groups) and
 * aggregation (sum, product, min, max, last_value, last_non_null_value,
 * first_value, first_non_null_value, bool_and, bool_or, listagg).  A key
 * with a single record is emitted unchanged; -U/-D results are dropped,
 * except on incremental reads (plan->incremental), which keep them as rows
 * of their own kind like Java's forceKeepDelete (the audit_log read) and
 * can hand each row's kind on as the system column _ROW_KIND; those merge
 * only with the deduplicate and first-row engines (incremental.c refuses
 * the others).
 * Changelog reads and the reads of a stream (plan->unmerged) do not
 * merge: every record of the split's files is a row, any engine.  Diff
 * reads (plan->diff) merge each key twice, over the start snapshot's files
 * and over the end's, as batch reads, and emit what differs (diff_next).
 * Order: a loser tree over the files' cursors, each caching its row's
 * key (an integer key as is; string keys compared by memcmp), sequence
 * number and kind.  Memory: one batch per file plus one output batch; an
 * output row of the deduplicate and unmerged paths points into its file's
 * batch until that batch is refilled (unpin copies it then).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "read/read_internal.h"
#include "expr/predicate.h"

typedef enum merge_engine
{
	ENGINE_DEDUPLICATE,
	ENGINE_FIRST_ROW,
	ENGINE_PARTIAL_UPDATE,
	ENGINE_AGGREGATION
} merge_engine;

typedef enum agg_fn
{
	AGG_PRIMARY_KEY,
	AGG_SUM,
	AGG_PRODUCT,
	AGG_MIN,
	AGG_MAX,
	AGG_LAST_VALUE,
	AGG_LAST_NON_NULL_VALUE,
	AGG_FIRST_VALUE,
	AGG_FIRST_NON_NULL_VALUE,
	AGG_BOOL_AND,
	AGG_BOOL_OR,
	AGG_LISTAGG
} agg_fn;

static const struct
{
	const char *name;
	agg_fn		fn;
}			agg_names[] =
{
	{"sum", AGG_SUM},
	{"product", AGG_PRODUCT},
	{"min", AGG_MIN},
	{"max", AGG_MAX},
	{"last_value", AGG_LAST_VALUE},
	{"last_non_null_value", AGG_LAST_NON_NULL_VALUE},
	{"first_value", AGG_FIRST_VALUE},
	{"first_non_null_value", AGG_FIRST_NON_NULL_VALUE},
	{"first_not_null_value", AGG_FIRST_NON_NULL_VALUE},	/* legacy name */
	{"bool_and", AGG_BOOL_AND},
	{"bool_or", AGG_BOOL_OR},
	{"listagg", AGG_LISTAGG},
};

/*
 * One sorted run (a data file) being merged.  What the ordering reads of
 * the current row is cached when the cursor moves (cursor_load): the row's
 * values, its sequence number, whether it retracts, and a single integer
 * key in its physical form.
 */
typedef struct cursor
{
	ts_data_file_reader *reader;
	ts_data_file_batch batch;
	int			row;
	int			file_index;
	const ts_value *cur;		/* the current row's values */
	int64_t		seq;			/* ... its _SEQUENCE_NUMBER */
	int64_t		key_i;			/* ... its single integer key, when key_cached */
	bool		key_cached;
	bool		retract;		/* ... whether it is -U/-D */
	bool		done;			/* no rows left: after every live cursor */
	bool		before;			/* diff read: a file of the start snapshot */
	int			pinned;			/* output rows pointing into this batch */
} cursor;

/* How a key column is compared: inline in its physical form, or generically. */
typedef enum key_form
{
	KEY_INT,					/* v.i alone (ts_value_orders_by_int) */
	KEY_BYTES,					/* unsigned bytes, then length (strings, binary) */
	KEY_GENERIC					/* ts_value_compare */
} key_form;

struct ts_merge_reader
{
	ts_plan    *plan;
	const ts_split *split;
	/* internal columns: read-schema field indexes */
	int			nint;
	int		   *int_fields;
	const ts_type **types;
	const char **names;
	bool	   *plain;			/* the value points to nothing: copied as it is */
	/* output column -> internal column */
	int			nout;
	int		   *out_map;
	int			nkeys;
	int		   *key_cols;
	key_form   *key_forms;		/* per key column */
	bool		single_int_key; /* one KEY_INT key: cursors cache it */
	int			nseq;
	int		   *seq_cols;
	bool		seq_descending;

	merge_engine engine;
	bool		keep_retracts;	/* incremental read: -U/-D results are rows too */
	bool		no_merge;		/* changelog read: every record is a row */
	bool		diff;			/* diff read: both snapshots' states compared (diff_next) */
	ts_value   *side[2];		/* diff: the merged row of each side (0 before, 1 after) */
	bool		ignore_delete;
	bool		remove_record_on_delete;
	agg_fn	   *aggs;
	bool	   *ignore_retract;
	const char **delimiters;

	cursor	   *cursors;
	int			ncursors;
	int		   *tree;			/* loser tree: [0] the first cursor, [1..] losers */
	int			nlive;			/* cursors not done */

	ts_arena	arena;			/* output rows, reset per output batch */
	ts_value   *out_values;
	int			out_cap;
	int			out_n;			/* rows of out_values filled */
	int		   *out_src;		/* per output row: the cursor its values point into, or -1 */

	/* group state */
	ts_value   *first;			/* first record of the key (copied) */
	int8_t		first_kind;
	ts_value   *acc;			/* merge state row */
	bool	   *acc_init;		/* first_value: seen */
	int			count;
	bool		has_row;
	bool		deleted;
	bool		meet_insert;
	int8_t		acc_kind;

	ts_reader_metrics metrics;
};

/* ---- options ---------------------------------------------------------- */

static const char *
field_option(ts_plan *plan, const char *field, const char *suffix)
{
	char		key[512];

	snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, field, suffix);
	return ts_read_option(plan, key);
}

static bool
has_option_like(ts_plan *plan, const char *prefix, const char *suffix, const char **found)
{
	size_t		pl = strlen(prefix),
				sl = strlen(suffix);

	for (int i = 0; i < plan->noptions; i++)
	{
		const char *k = plan->options[i].key;
		size_t		kl;

		if (k == NULL)
			continue;
		kl = strlen(k);
		if (kl >= pl + sl && strncmp(k, prefix, pl) == 0 && strcmp(k + kl - sl, suffix) == 0)
		{
			*found = k;
			return true;
		}
	}
	if (plan->schema)
	{
		for (int i = 0; i < plan->schema->noptions; i++)
		{
			const char *k = plan->schema->option_keys[i];
			size_t		kl = strlen(k);

			if (kl >= pl + sl && strncmp(k, prefix, pl) == 0 && strcmp(k + kl - sl, suffix) == 0)
			{
				*found = k;
				return true;
			}
		}
	}
	return false;
}

static bool
option_true(ts_plan *plan, const char *key)
{
	return ts_read_option_bool(plan, key, false);
}

static int
field_index(const ts_schema *s, const char *name, size_t len)
{
	for (int i = 0; i < s->nfields; i++)
		if (strlen(s->fields[i].name) == len && strncmp(s->fields[i].name, name, len) == 0)
			return i;
	return -1;
}

/* internal column of read-schema field fi, adding it if needed */
static int
add_internal(ts_merge_reader *m, int fi)
{
	for (int i = 0; i < m->nint; i++)
		if (m->int_fields[i] == fi)
			return i;
	m->int_fields[m->nint] = fi;
	m->types[m->nint] = m->plan->schema->fields[fi].type;
	m->names[m->nint] = m->plan->schema->fields[fi].name;
	return m->nint++;
}

static bool
is_primary_key(const ts_schema *s, const char *name)
{
	for (int i = 0; i < s->nprimary_keys; i++)
		if (strcmp(s->primary_keys[i], name) == 0)
			return true;
	return false;
}

static key_form
key_form_of(ts_type_kind kind)
{
	if (ts_value_orders_by_int(kind))
		return KEY_INT;
	switch (kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return KEY_BYTES;
		default:
			return KEY_GENERIC;
	}
}

static bool
configure(ts_merge_reader *m, const int *columns, int ncolumns, ts_err *err)
{
	ts_plan    *plan = m->plan;
	const ts_schema *s = plan->schema;
	const char *engine = ts_read_option(plan, TS_OPT_MERGE_ENGINE);
	const char *seqf = ts_read_option(plan, TS_OPT_SEQUENCE_FIELD);
	const char *order = ts_read_option(plan, TS_OPT_SEQUENCE_FIELD_SORT_ORDER);
	const char *found;
	int			maxint = ncolumns + s->nfields + 1;

	m->int_fields = ts_calloc(maxint, sizeof(int));
	m->types = ts_calloc(maxint, sizeof(ts_type *));
	m->names = ts_calloc(maxint, sizeof(char *));
	m->out_map = ts_calloc(ncolumns ? ncolumns : 1, sizeof(int));
	m->key_cols = ts_calloc(s->nfields + 1, sizeof(int));
	m->seq_cols = ts_calloc(s->nfields + 1, sizeof(int));
	if (!m->int_fields || !m->types || !m->names || !m->out_map || !m->key_cols || !m->seq_cols)
		return ts_error_nomem(err, NULL);

	if (engine == NULL || strcasecmp(engine, "deduplicate") == 0)
		m->engine = ENGINE_DEDUPLICATE;
	else if (strcasecmp(engine, "first-row") == 0)
		m->engine = ENGINE_FIRST_ROW;
	else if (strcasecmp(engine, "partial-update") == 0)
		m->engine = ENGINE_PARTIAL_UPDATE;
	else if (strcasecmp(engine, "aggregation") == 0)
		m->engine = ENGINE_AGGREGATION;
	else
		return ts_error(err, TS_ERR_UNSUPPORTED, "merge-engine \"%s\" is not supported", engine);

	m->ignore_delete = option_true(plan, TS_OPT_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_DEDUPLICATE_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_FIRST_ROW_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_PARTIAL_UPDATE_IGNORE_DELETE);

	if (has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_SEQUENCE_GROUP, &found))
		return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" (sequence groups) is not supported", found);
	if (ts_read_option(plan, TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP))
		return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" is not supported",
						TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP);
	if (m->engine == ENGINE_PARTIAL_UPDATE)
	{
		m->remove_record_on_delete = option_true(plan, TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE);
		if (has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_AGGREGATE_FUNCTION, &found) ||
			ts_read_option(plan, TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION))
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"partial-update with aggregate functions (\"%s\") is not supported",
							has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_AGGREGATE_FUNCTION,
											&found) ? found : TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION);
	}
	if (m->engine == ENGINE_AGGREGATION)
		m->remove_record_on_delete = option_true(plan, TS_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE);
	m->keep_retracts = plan->incremental;
	m->no_merge = plan->unmerged;
	m->diff = plan->diff;
	if (m->keep_retracts && !m->no_merge && !m->diff && m->engine != ENGINE_DEDUPLICATE &&
		m->engine != ENGINE_FIRST_ROW)
		return ts_error(err, TS_ERR_UNSUPPORTED,
						"incremental reads of primary-key tables with merge-engine \"%s\" are not supported (only deduplicate and first-row)",
						engine);

	/* internal columns: requested, then keys, then sequence fields */
	m->nout = ncolumns;
	for (int i = 0; i < ncolumns; i++)
	{
		if (columns[i] == TS_COLUMN_ROW_KIND && m->keep_retracts)
		{
			m->out_map[i] = -1;	/* filled from the result's kind */
			continue;
		}
		if (columns[i] < 0 || columns[i] >= s->nfields)
			return ts_error(err, TS_ERR_INVALID, "column index %d out of range", columns[i]);
		m->out_map[i] = add_internal(m, columns[i]);
	}
	for (int i = 0; i < s->nprimary_keys; i++)
	{
		int			fi = field_index(s, s->primary_keys[i], strlen(s->primary_keys[i]));
		bool		is_part = false;

		for (int j = 0; j < s->npartition_keys; j++)
			if (strcmp(s->partition_keys[j], s->primary_keys[i]) == 0)
				is_part = true;
		if (is_part)
			continue;
		if (fi < 0)
			return ts_error(err, TS_ERR_CORRUPT, "primary key \"%s\" is not a column", s->primary_keys[i]);
		m->key_cols[m->nkeys++] = add_internal(m, fi);
	}
	if (m->nkeys == 0)
		return ts_error(err, TS_ERR_INVALID, "primary-key table without trimmed primary keys");
	/* a diff compares whole values (Java compares the value rows) */
	for (int fi = 0; m->diff && fi < s->nfields; fi++)
		add_internal(m, fi);
	m->key_forms = ts_calloc(m->nkeys, sizeof(key_form));
	if (m->key_forms == NULL)
		return ts_error_nomem(err, NULL);
	for (int k = 0; k < m->nkeys; k++)
		m->key_forms[k] = key_form_of(m->types[m->key_cols[k]]->kind);
	m->single_int_key = m->nkeys == 1 && m->key_forms[0] == KEY_INT;
	if (seqf && *seqf)
	{
		const char *p = seqf;

		while (*p)
		{
			const char *e = strchr(p, ',');
			size_t		len = e ? (size_t) (e - p) : strlen(p);
			int			fi = field_index(s, p, len);

			if (fi < 0)
				return ts_error(err, TS_ERR_INVALID, "sequence.field \"%.*s\" is not a column", (int) len, p);
			m->seq_cols[m->nseq++] = add_internal(m, fi);
			if (m->nseq > s->nfields)
				return ts_error(err, TS_ERR_INVALID, "sequence.field lists too many fields");
			p += len;
			if (*p == ',')
				p++;
		}
	}
	if (order && strcasecmp(order, "descending") == 0)
		m->seq_descending = true;
	else if (order && strcasecmp(order, "ascending") != 0)
		return ts_error(err, TS_ERR_INVALID, "invalid sequence.field.sort-order \"%s\"", order);

	m->plain = ts_calloc(m->nint ? m->nint : 1, sizeof(bool));
	if (m->plain == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < m->nint; i++)
		m->plain[i] = !ts_type_is_bytes(m->types[i]->kind) && !ts_type_is_nested(m->types[i]->kind);

	if (m->engine == ENGINE_AGGREGATION)
	{
		const char *dflt = ts_read_option(plan, TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION);

		m->aggs = ts_calloc(m->nint, sizeof(agg_fn));
		m->ignore_retract = ts_calloc(m->nint, sizeof(bool));
		m->delimiters = ts_calloc(m->nint, sizeof(char *));
		if (!m->aggs || !m->ignore_retract || !m->delimiters)
			return ts_error_nomem(err, NULL);
		for (int i = 0; i < m->nint; i++)
		{
			const char *name = m->names[i];
			const char *fn = field_option(plan, name, TS_OPT_FIELD_AGGREGATE_FUNCTION);
			bool		is_seq = false;
			bool		ok = false;
			const char *d;

			for (int k = 0; k < m->nseq; k++)
				if (m->seq_cols[k] == i)
					is_seq = true;
			{
				char		key[512];

				snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, name, TS_OPT_FIELD_IGNORE_RETRACT);
				m->ignore_retract[i] = option_true(plan, key);
				snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, name, TS_OPT_FIELD_DISTINCT);
				if (option_true(plan, key))
					return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" is not supported", key);
			}
			d = field_option(plan, name, TS_OPT_FIELD_LIST_AGG_DELIMITER);
			m->delimiters[i] = d ? d : ",";
			if (is_primary_key(s, name))
			{
				m->aggs[i] = AGG_PRIMARY_KEY;
				continue;
			}
			if (is_seq)
			{
				m->aggs[i] = AGG_LAST_VALUE;
				continue;
			}
			if (fn == NULL)
				fn = dflt ? dflt : "last_non_null_value";
			for (size_t k = 0; k < sizeof(agg_names) / sizeof(agg_names[0]); k++)
				if (strcasecmp(fn, agg_names[k].name) == 0)
				{
					m->aggs[i] = agg_names[k].fn;
					ok = true;
				}
			if (!ok)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"aggregate function \"%s\" of column \"%s\" is not supported", fn, name);
			{
				ts_type_kind k = m->types[i]->kind;
				bool		numeric = k == TS_TINYINT || k == TS_SMALLINT || k == TS_INT ||
					k == TS_BIGINT || k == TS_FLOAT || k == TS_DOUBLE || k == TS_DECIMAL;

				if ((m->aggs[i] == AGG_SUM || m->aggs[i] == AGG_PRODUCT) && !numeric)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if ((m->aggs[i] == AGG_BOOL_AND || m->aggs[i] == AGG_BOOL_OR) && k != TS_BOOLEAN)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if (m->aggs[i] == AGG_LISTAGG && k != TS_VARCHAR && k != TS_CHAR)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if ((m->aggs[i] == AGG_MIN || m->aggs[i] == AGG_MAX) && ts_type_is_nested(k))
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
			}
		}
	}
	return true;
}

/* ---- ordering --------------------------------------------------------- */

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

/* Do the current rows of a and b hold the same key? */
static inline bool
same_key(const ts_merge_reader *m, const cursor *a, const cursor *b)
{
	if (a->key_cached && b->key_cached)
		return a->key_i == b->key_i;
	return compare_keys(m, a->cur, b->cur) == 0;
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

/* Cache what the ordering reads of the cursor's current row. */
MERGE_HOT void
cursor_load(const ts_merge_reader *m, cursor *c)
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

/* The winner's row changed (or it is done): play its path again. */
MERGE_HOT void
tree_replay(ts_merge_reader *m)
{
	int			winner = m->tree[0];

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
		c->done = true;
	return n;
}

static bool copy_val(ts_merge_reader *m, ts_value *dst, const ts_value *src, int col, ts_err *err);

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

/* ---- aggregation helpers --------------------------------------------- */

static bool
copy_val(ts_merge_reader *m, ts_value *dst, const ts_value *src, int col, ts_err *err)
{
	return ts_value_copy(dst, src, m->types[col], &m->arena, err);
}

static bool
agg_arith(ts_merge_reader *m, int col, ts_value *acc, const ts_value *in, bool product,
		  bool retract, ts_err *err)
{
	const ts_type *t = m->types[col];

	if (acc->isnull || in->isnull)
	{
		if (acc->isnull && !in->isnull)
		{
			*acc = *in;
			if (retract)
			{
				if (product)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"retracting product of column \"%s\" from NULL", m->names[col]);
				switch (t->kind)
				{
					case TS_TINYINT:
						acc->v.i = (int8_t) - in->v.i;
						break;
					case TS_SMALLINT:
						acc->v.i = (int16_t) - in->v.i;
						break;
					case TS_INT:
						acc->v.i = (int32_t) (0u - (uint32_t) in->v.i);
						break;
					case TS_BIGINT:
						acc->v.i = (int64_t) (0ull - (uint64_t) in->v.i);
						break;
					case TS_FLOAT:
						acc->v.f = -in->v.f;
						break;
					case TS_DOUBLE:
						acc->v.d = -in->v.d;
						break;
					case TS_DECIMAL:
						acc->v.dec = -in->v.dec;
						break;
					default:
						break;
				}
			}
		}
		return true;
	}
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			{
				uint64_t	a = (uint64_t) acc->v.i,
							b = (uint64_t) in->v.i;
				int64_t		r;

				if (!product)
					r = (int64_t) (retract ? a - b : a + b);
				else if (!retract)
					r = (int64_t) (a * b);
				else
				{
					if (in->v.i == 0)
						return ts_error(err, TS_ERR_INVALID, "division by zero retracting product of \"%s\"",
										m->names[col]);
					if (acc->v.i == INT64_MIN && in->v.i == -1)
						r = INT64_MIN;
					else
						r = acc->v.i / in->v.i;
				}
				acc->v.i = t->kind == TS_TINYINT ? (int8_t) r :
					t->kind == TS_SMALLINT ? (int16_t) r :
					t->kind == TS_INT ? (int32_t) r : r;
				return true;
			}
		case TS_FLOAT:
			acc->v.f = product ? (retract ? acc->v.f / in->v.f : acc->v.f * in->v.f) :
				(retract ? acc->v.f - in->v.f : acc->v.f + in->v.f);
			return true;
		case TS_DOUBLE:
			acc->v.d = product ? (retract ? acc->v.d / in->v.d : acc->v.d * in->v.d) :
				(retract ? acc->v.d - in->v.d : acc->v.d + in->v.d);
			return true;
		case TS_DECIMAL:
			{
				ts_int128	lim = 1;

				for (int i = 0; i < t->precision && i < 38; i++)
					lim *= 10;
				if (product)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"aggregate function \"product\" on DECIMAL column \"%s\" is not supported",
									m->names[col]);
				acc->v.dec = retract ? acc->v.dec - in->v.dec : acc->v.dec + in->v.dec;
				/* DecimalUtils.add: result that does not fit -> NULL */
				if (acc->v.dec >= lim || acc->v.dec <= -lim)
					acc->isnull = true;
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "sum/product on column \"%s\"", m->names[col]);
	}
}

static bool
agg_add(ts_merge_reader *m, const ts_value *row, bool retract, ts_err *err)
{
	for (int i = 0; i < m->nint; i++)
	{
		ts_value   *acc = &m->acc[i];
		const ts_value *in = &row[i];
		agg_fn		fn = m->aggs[i];

		if (retract && fn != AGG_PRIMARY_KEY && fn != AGG_SUM && fn != AGG_PRODUCT &&
			fn != AGG_LAST_VALUE && fn != AGG_LAST_NON_NULL_VALUE)
		{
			if (m->ignore_retract[i])
				continue;
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"aggregate function of column \"%s\" does not support retraction "
							"(set 'fields.%s.ignore-retract'='true')", m->names[i], m->names[i]);
		}
		if (retract && m->ignore_retract[i] && fn != AGG_PRIMARY_KEY)
			continue;
		switch (fn)
		{
			case AGG_PRIMARY_KEY:
				if (!copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_SUM:
			case AGG_PRODUCT:
				if (!agg_arith(m, i, acc, in, fn == AGG_PRODUCT, retract, err))
					return false;
				break;
			case AGG_MIN:
			case AGG_MAX:
				if (in->isnull)
					break;
				if (acc->isnull)
				{
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				else
				{
					int			c = ts_value_compare(in, acc, m->types[i]);

					if ((fn == AGG_MIN && c < 0) || (fn == AGG_MAX && c > 0))
						if (!copy_val(m, acc, in, i, err))
							return false;
				}
				break;
			case AGG_LAST_VALUE:
				if (retract)
				{
					memset(acc, 0, sizeof(*acc));
					acc->isnull = true;
				}
				else if (!copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_LAST_NON_NULL_VALUE:
				if (retract)
				{
					if (!in->isnull)
					{
						memset(acc, 0, sizeof(*acc));
						acc->isnull = true;
					}
				}
				else if (!in->isnull && !copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_FIRST_VALUE:
				if (!m->acc_init[i])
				{
					m->acc_init[i] = true;
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				break;
			case AGG_FIRST_NON_NULL_VALUE:
				if (acc->isnull && !in->isnull && !copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_BOOL_AND:
			case AGG_BOOL_OR:
				if (in->isnull)
					break;
				if (acc->isnull)
					*acc = *in;
				else
					acc->v.i = fn == AGG_BOOL_AND ? (acc->v.i && in->v.i) : (acc->v.i || in->v.i);
				break;
			case AGG_LISTAGG:
				if (in->isnull)
					break;
				if (acc->isnull)
				{
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				else
				{
					size_t		dl = strlen(m->delimiters[i]);
					size_t		n = (size_t) acc->v.s.len + dl + in->v.s.len;
					uint8_t    *b;

					if (n > (size_t) 1 << 30)
						return ts_error(err, TS_ERR_NOMEM, "listagg result of \"%s\" too large", m->names[i]);
					b = ts_arena_alloc(&m->arena, n);
					if (b == NULL)
						return ts_error_nomem(err, NULL);
					memcpy(b, acc->v.s.p, acc->v.s.len);
					memcpy(b + acc->v.s.len, m->delimiters[i], dl);
					memcpy(b + acc->v.s.len + dl, in->v.s.p, in->v.s.len);
					acc->v.s.p = b;
					acc->v.s.len = (uint32_t) n;
				}
				break;
		}
	}
	return true;
}

/* ---- merge functions -------------------------------------------------- */

static void
acc_clear(ts_merge_reader *m)
{
	for (int i = 0; i < m->nint; i++)
	{
		memset(&m->acc[i], 0, sizeof(ts_value));
		m->acc[i].isnull = true;
		if (m->acc_init)
			m->acc_init[i] = false;
	}
	m->has_row = false;
	m->deleted = false;
	m->meet_insert = false;
	m->acc_kind = TS_ROW_KIND_INSERT;
}

static bool
merge_add(ts_merge_reader *m, const ts_value *row, int8_t kind, ts_err *err)
{
	bool		retract = ts_row_kind_is_retract(kind);

	switch (m->engine)
	{
		case ENGINE_DEDUPLICATE:
			if (retract && m->ignore_delete)
				return true;
			for (int i = 0; i < m->nint; i++)
				if (!copy_val(m, &m->acc[i], &row[i], i, err))
					return false;
			m->acc_kind = kind;
			m->has_row = true;
			return true;
		case ENGINE_FIRST_ROW:
			if (retract)
			{
				if (m->ignore_delete)
					return true;
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"first-row merge engine cannot accept DELETE/UPDATE_BEFORE records "
								"(set 'ignore-delete'='true')");
			}
			if (!m->has_row)
			{
				for (int i = 0; i < m->nint; i++)
					if (!copy_val(m, &m->acc[i], &row[i], i, err))
						return false;
				m->acc_kind = kind;
				m->has_row = true;
			}
			return true;
		case ENGINE_PARTIAL_UPDATE:
			m->deleted = false;
			if (retract)
			{
				if (m->ignore_delete)
					return true;
				if (m->remove_record_on_delete)
				{
					if (kind == TS_ROW_KIND_DELETE)
					{
						m->deleted = true;
						for (int i = 0; i < m->nint; i++)
						{
							memset(&m->acc[i], 0, sizeof(ts_value));
							m->acc[i].isnull = true;
						}
					}
					return true;
				}
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"partial-update merge engine cannot accept delete records "
								"(set 'ignore-delete' or 'partial-update.remove-record-on-delete')");
			}
			for (int i = 0; i < m->nint; i++)
				if (!row[i].isnull && !copy_val(m, &m->acc[i], &row[i], i, err))
					return false;
			m->meet_insert = true;
			m->has_row = true;
			return true;
		case ENGINE_AGGREGATION:
			if (retract && m->ignore_delete)
				return true;
			m->deleted = false;
			if (kind == TS_ROW_KIND_DELETE && m->remove_record_on_delete)
			{
				for (int i = 0; i < m->nint; i++)
				{
					memset(&m->acc[i], 0, sizeof(ts_value));
					m->acc[i].isnull = true;
				}
				m->deleted = true;
				m->has_row = true;
				return true;
			}
			if (!agg_add(m, row, retract, err))
				return false;
			m->has_row = true;
			return true;
	}
	return true;
}

/* Result of the current group: row, its kind and whether it is kept. */
static const ts_value *
merge_result(ts_merge_reader *m, bool *keep, int8_t *kind)
{
	if (m->count == 1)
	{
		*kind = m->first_kind;
		*keep = m->keep_retracts || !ts_row_kind_is_retract(m->first_kind);
		return m->first;
	}
	*kind = m->acc_kind;
	switch (m->engine)
	{
		case ENGINE_DEDUPLICATE:
		case ENGINE_FIRST_ROW:
			*keep = m->has_row && (m->keep_retracts || !ts_row_kind_is_retract(m->acc_kind));
			break;
		case ENGINE_PARTIAL_UPDATE:
			*keep = m->has_row && m->meet_insert && !m->deleted;
			break;
		case ENGINE_AGGREGATION:
			*keep = m->has_row && !m->deleted;
			break;
	}
	return m->acc;
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
					 ts_err *err)
{
	ts_merge_reader *m = ts_calloc(1, sizeof(*m));

	if (m == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	m->plan = plan;
	m->split = split;
	ts_arena_init(&m->arena, 0);
	if (!configure(m, columns, ncolumns, err))
		goto fail;
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
	for (int i = 0; i < split->nfiles; i++)
	{
		cursor	   *c = &m->cursors[m->ncursors];
		int			n;

		c->file_index = i;
		c->before = m->diff && split->files[i].diff_before;
		c->reader = ts_data_file_open(plan, split, &split->files[i], m->int_fields, m->nint, true, err);
		if (c->reader == NULL)
			goto fail;
		ts_data_file_allow_stride(c->reader);
		m->ncursors++;
		n = cursor_fill(m, c, err);
		if (n < 0)
			goto fail;
		if (n > 0)
			m->nlive++;
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
			acc_clear(m);
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
		m->out_values = ts_calloc((size_t) cap * (ncols ? ncols : 1), sizeof(ts_value));
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
		nrows = m->diff ? diff_next(m, cap, err) :
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
				acc_clear(m);
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
	ts_free(m->out_values);
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
