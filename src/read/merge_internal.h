/*
 * merge_internal.h - what the files of merge-on-read share: the state of
 * the merge reader of a primary-key split and its cursors (merge.c), read
 * from the table's options by merge_options.c and folded per key by the
 * merge engines of merge_engine.c.  Not used outside src/read.
 */
#ifndef TS_MERGE_INTERNAL_H
#define TS_MERGE_INTERNAL_H

#include "read/read_internal.h"

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

/*
 * One sorted run (a data file) being merged.  What the ordering reads of
 * the current row is cached when the cursor moves (cursor_load): the row's
 * values, its sequence number, whether it retracts, and a single integer
 * key in its physical form.
 */
/*
 * The merge order of a cursor's current row packed into one unsigned
 * number (fast_order): the integer key, sign flipped, in the high half;
 * sequence number, add-after-retract and file index in the low half.
 */
typedef unsigned __int128 merge_ord;

#define MERGE_ORD_MAX_FILES 128		/* file index: 7 bits */
#define MERGE_ORD_MAX_SEQ (INT64_C(1) << 55)	/* sequence number: 55 bits */

typedef struct cursor
{
	ts_data_file_reader *reader;
	ts_data_file_batch batch;
	int			row;
	int			file_index;
	const ts_value *cur;		/* the current row's values */
	int64_t		seq;			/* ... its _SEQUENCE_NUMBER */
	int64_t		key_i;			/* ... its single integer key, when key_cached */
	merge_ord	ord;			/* ... its whole merge order, when m->fast_order */
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
	bool		fast_order;		/* cursors ordered by their ord alone (merge.c) */
	int64_t		fast_seq_limit; /* ... while sequence numbers stay below this */
	int			nseq;
	int		   *seq_cols;
	bool		seq_descending;

	merge_engine engine;
	bool		keep_retracts;	/* incremental read: -U/-D results are rows too */
	bool		no_merge;		/* changelog read: every record is a row */
	bool		diff;			/* diff read: both snapshots' states compared (diff_next) */
	bool		overwrite;		/* an overwrite's changes: -D of before, then after (overwrite_next) */
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
	ts_value   *out_values;		/* from buffers, out_values_bytes long */
	size_t		out_values_bytes;
	ts_bufpool *buffers;		/* the split reader's, or NULL */
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
	bool		not_null_filled;	/* partial-update: NOT NULL columns set (Java's initRow) */
	int8_t		acc_kind;

	ts_reader_metrics metrics;
};

static inline bool
copy_val(ts_merge_reader *m, ts_value *dst, const ts_value *src, int col, ts_err *err)
{
	return ts_value_copy(dst, src, m->types[col], &m->arena, err);
}

/* merge_options.c: engine, keys, sequence fields and aggregate functions of the options */
bool		merge_configure(ts_merge_reader *m, const int *columns, int ncolumns, ts_err *err);

/* merge_engine.c: a key's records folded into its result by the merge engine */
void		merge_acc_clear(ts_merge_reader *m);
bool		merge_add(ts_merge_reader *m, const ts_value *row, int8_t kind, ts_err *err);
const ts_value *merge_result(ts_merge_reader *m, bool *keep, int8_t *kind);

#endif							/* TS_MERGE_INTERNAL_H */
