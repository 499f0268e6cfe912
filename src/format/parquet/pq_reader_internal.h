/*
 * pq_reader_internal.h - what the files of the Parquet reader share: the
 * reader's state (pq_reader.c: open, batches, close), the schema tree and
 * the assembly plan of each requested column (pq_schema_tree.c), row-group
 * selection and loading (pq_row_groups.c) and the assembly of nested values
 * from levels (pq_assemble.c).  Not used outside src/format/parquet.
 */
#ifndef TS_PQ_READER_INTERNAL_H
#define TS_PQ_READER_INTERNAL_H

#include "format/parquet/pq_internal.h"

typedef struct pq_node
{
	const pq_schema_elem *e;
	int			first_child;	/* index into pq_reader.children */
	int			nchildren;
	int			def;			/* definition level of this node */
	int			rep;			/* repetition level of this node */
	int			leaf;			/* column chunk index, -1 for groups */
	int			parent;
} pq_node;

typedef enum pq_asm_kind
{
	PQ_A_MISSING,
	PQ_A_LEAF,
	PQ_A_ROW,
	PQ_A_LIST,
	PQ_A_MAP
} pq_asm_kind;

typedef struct pq_asm pq_asm;
struct pq_asm
{
	pq_asm_kind kind;
	const ts_type *type;
	int			def;			/* value is non-null when leaf def >= def */
	int			rep_def;		/* LIST/MAP: an entry exists when def >= rep_def */
	int			rep;			/* LIST/MAP: repetition level of the entries */
	int			leaf_lo,
				leaf_hi;		/* leaves of this subtree: [lo, hi) */
	bool		multiset;
	int			nchildren;
	pq_asm	   *children;		/* ROW fields; LIST element; MAP key, value */
};

/*
 * A row group read ahead (pq_window.c): the chunks of up to 64 of its
 * leaves, into buffers of its own until the reader gets near it.
 */
#define PQ_WINDOW_LEAVES 64
typedef struct pq_window_slot
{
	int			rg;
	ts_file_reads *reads;		/* in flight; NULL once in, or never started */
	bool		started;		/* its reads were started (else read in place) */
	bool		handed;			/* its chunks are the leaves' (pq_ahead_adopt) */
	int			n;
	int			leaf[PQ_WINDOW_LEAVES];
	int64_t		len[PQ_WINDOW_LEAVES];
	const pq_column_chunk *cc[PQ_WINDOW_LEAVES];
	uint8_t    *buf[PQ_WINDOW_LEAVES];
	size_t		cap[PQ_WINDOW_LEAVES];
	int64_t		bytes;
} pq_window_slot;

/* At most this many row groups ahead (and TS_RANGE_AHEAD_BYTES of them). */
#define PQ_WINDOW_SLOTS 16

/* The row groups picked after the current one, in file order. */
typedef struct pq_window
{
	pq_window_slot *slots;		/* PQ_WINDOW_SLOTS, a ring; NULL until used */
	int			first;
	int			n;
	int64_t		bytes;			/* of the slots started */
	bool		end;			/* no row group left to pick */
} pq_window;

typedef struct pq_reader
{
	ts_format_reader base;
	char	   *path;
	ts_file    *file;
	int64_t		file_size;
	uint8_t    *footer;
	pq_file_meta meta;
	pq_node    *nodes;
	int		   *children;
	int			nchild_used;
	int			nleaf_columns;
	bool		has_ids;

	const ts_read_column *cols;
	int			ncols;
	pq_asm	   *asms;
	pq_leaf   **leaves;
	int			nleaves;
	int			cap_leaves;

	ts_reader_settings set;		/* what the options say (format.c) */
	void	   *zstd_ctx;		/* decompression context shared by the leaves */
	ts_column_stats *stats;
	ts_value   *values;			/* a batch: from set.buffers, values_cap bytes */
	size_t		values_cap;
	ts_arena	arena;
	ts_value   *stack;
	size_t		stack_len,
				stack_cap;

	int			next_rg;
	int			cur_rg;
	int64_t		rows_left;
	int64_t		rg_first_row;	/* file position of the current row group's first row */
	int			pos_rg;			/* first_row_of's cache: row group pos_rg starts */
	int64_t		pos_first;		/* at row pos_first */
	bool		done;
	bool		ahead_due;		/* read the next row group ahead at the next batch */
	bool		ahead_ok;		/* the current row group's first batch is out: the
								 * next one's pages may be queued (pq_ahead.c) */
	pq_window	win;			/* the row groups after the current one, read ahead */
} pq_reader;

static inline bool
is_unsigned(const pq_schema_elem *e)
{
	if (e->logical == PQ_LT_INTEGER)
		return !e->lt_signed;
	return e->converted_type >= PQ_CT_UINT_8 && e->converted_type <= PQ_CT_UINT_64;
}

/* pq_schema_tree.c */
bool		pq_build_nodes(pq_reader *r, int *idx, int parent, int depth, int def, int rep, ts_err *err);
int			pq_find_child(const pq_reader *r, int node, int32_t field_id, const char *name);
bool		pq_build_asm(pq_reader *r, pq_asm *a, int node, const ts_type *t, const char *path,
						 int depth, ts_err *err);
void		pq_free_asm(pq_asm *a);

/* pq_row_groups.c */
bool		pq_row_group_in_range(const pq_reader *r, const pq_row_group *rg);
bool		pq_next_row_group(pq_reader *r, ts_err *err);
int			pq_pick_row_group(pq_reader *r);
bool		pq_chunk_streamed(const pq_reader *r, int64_t len);
bool		pq_chunk_extent(const pq_reader *r, const pq_row_group *rg, const pq_leaf *l,
							const pq_column_chunk **ccp, int64_t *start, int64_t *len, ts_err *err);
/* a chunk's first byte and length (its dictionary page first); false when outside the file */
bool		pq_chunk_bounds(const pq_column_chunk *cc, int64_t file_size, int64_t *start, int64_t *len);

/* pq_window.c */
void		pq_window_fill(pq_reader *r);
int			pq_window_next(pq_reader *r);
void		pq_window_take(pq_reader *r, int rg);
void		pq_window_queue(pq_reader *r);
void		pq_window_free(pq_reader *r);

/* pq_ranges_like.c: the format reader's ranges_like (ts_format_ranges_like) */
int			pq_ranges_like(const ts_format_reader *base, const uint8_t *tail, size_t tail_len,
						   int64_t file_size, const ts_held_bytes *held, int64_t budget,
						   ts_range *out, int max);

/* pq_assemble.c */
bool		pq_fill_column(pq_reader *r, int c, int n, ts_err *err);

#endif							/* TS_PQ_READER_INTERNAL_H */
