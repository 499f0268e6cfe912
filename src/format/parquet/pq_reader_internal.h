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
	ts_value   *values;
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
	bool		picked;			/* picked_rg is the next row group (-1 = none) */
	int			picked_rg;

	/*
	 * Row group picked_rg's chunks read ahead (up to 64 leaves): started,
	 * not waited for (on an object store), its pages queued once in.
	 */
	ts_file_reads *ahead_reads;
	int			ahead_n;
	int			ahead_leaf[64];
	int64_t		ahead_len[64];
	const pq_column_chunk *ahead_cc[64];
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
void		pq_read_ahead(pq_reader *r);
void		pq_finish_ahead(pq_reader *r, bool wait);

/* pq_assemble.c */
bool		pq_fill_column(pq_reader *r, int c, int n, ts_err *err);

#endif							/* TS_PQ_READER_INTERNAL_H */
