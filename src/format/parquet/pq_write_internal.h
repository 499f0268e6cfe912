/*
 * pq_write_internal.h - what the files of the Parquet writer share.
 *
 * The writer's state (struct ts_pq_writer), the schema tree (pq_node) and
 * the per-leaf row group buffers (pq_column), the Parquet type constants,
 * and the functions one file of the writer (pq_writer.c,
 * pq_write_schema.c, pq_write_shred.c, pq_write_levels.c) lends another.
 * Only those files (and the unit tests) include it.
 */
#ifndef TS_PQ_WRITE_INTERNAL_H
#define TS_PQ_WRITE_INTERNAL_H

#include <zstd.h>

#include "base/ts_base.h"
#include "format/parquet/pq_thrift_write.h"
#include "format/parquet/pq_writer.h"

enum
{
	PQW_BOOLEAN = 0, PQW_INT32 = 1, PQW_INT64 = 2, PQW_INT96 = 3, PQW_FLOAT = 4, PQW_DOUBLE = 5,
	PQW_BYTE_ARRAY = 6, PQW_FIXED = 7
};

enum
{
	PQW_REQUIRED = 0, PQW_OPTIONAL = 1, PQW_REPEATED = 2
};

/* converted types */
enum
{
	PQC_UTF8 = 0, PQC_MAP = 1, PQC_MAP_KEY_VALUE = 2, PQC_LIST = 3, PQC_DECIMAL = 5, PQC_DATE = 6,
	PQC_TIME_MILLIS = 7, PQC_TIMESTAMP_MILLIS = 9, PQC_TIMESTAMP_MICROS = 10, PQC_INT_8 = 15,
	PQC_INT_16 = 16
};

/* Java's SpecialFields: ids of the element of an ARRAY, the key and value of a MAP */
#define STRUCTURED_ID_BASE 536870911	/* Integer.MAX_VALUE / 4 */
#define STRUCTURED_DEPTH_LIMIT 1024
#define MAX_NESTING 60			/* levels stay below 255 */

#define JULIAN_EPOCH_DAY 2440588
#define MILLIS_PER_DAY 86400000LL

/* ---- the schema tree --------------------------------------------------------- */

typedef enum pq_node_kind
{
	PQN_LEAF, PQN_ROW, PQN_LIST, PQN_MAP, PQN_REPEATED
} pq_node_kind;

typedef struct pq_node pq_node;

struct pq_node
{
	pq_node_kind kind;
	const char *name;
	const ts_type *type;		/* NULL for the repeated group of a LIST / MAP */
	int32_t		id;
	bool		has_id;
	int			repetition;
	int			converted;		/* -1: none */
	int			physical;		/* leaves */
	int			nchildren;
	pq_node    *children;
	int			first_leaf;		/* leaves below: [first_leaf, first_leaf + nleaves) */
	int			nleaves;
	int			rep;			/* repetition level of a REPEATED node */
};

typedef struct pq_column
{
	const ts_type *type;
	int			physical;
	int			type_length;	/* FIXED_LEN_BYTE_ARRAY */
	int			max_def;
	int			max_rep;
	const char **path;			/* names from the top field down */
	int			npath;
	ts_buf		values;			/* PLAIN values of the row group */
	uint8_t    *defs;			/* per level entry of the row group */
	uint8_t    *reps;
	size_t		nlevels;
	size_t		levels_cap;
	uint8_t		bit_acc;		/* BOOLEAN bit packing */
	int			bit_n;
	int64_t		page_rows;		/* rows of the page being buffered */
	/* the pages of the row group's chunk cut so far (headers, compressed bodies) */
	ts_buf		pages;
	int64_t		pages_raw;		/* their bytes uncompressed, headers included */
	int64_t		pages_values;	/* their level entries */
	/* per row group written: where its chunk is */
	int64_t    *chunk_off;
	int64_t    *chunk_len;
	int64_t    *chunk_raw;
	int64_t    *chunk_values;
} pq_column;

struct ts_pq_writer
{
	pq_node    *top;			/* one per field */
	int			nfields;
	int			nnodes;			/* schema elements below the root */
	pq_column  *cols;			/* the leaves */
	int			ncols;
	int			cols_cap;
	int			zstd_level;
	ZSTD_CCtx  *cctx;
	size_t		row_group_bytes;
	size_t		page_bytes;		/* a page is cut at this many buffered bytes */
	int64_t		page_row_limit; /* or at this many rows */
	ts_pq_sink	sink;
	void	   *arg;
	int64_t		written;		/* bytes through the sink */
	int64_t		rows;			/* rows in the file */
	int64_t		group_rows;		/* rows of the current row group */
	size_t		buffered;
	int			ngroups;
	int			groups_cap;
	int64_t    *group_rows_of;	/* rows per written row group */
	ts_buf		page;			/* scratch: one page body */
	ts_buf		packed;			/* scratch: compressed body */
	ts_buf		hdr;			/* scratch: page header */
};

/* ---- pq_write_schema.c ------------------------------------------------- */

/*
 * Build node n for a value of type t named name (id: -1 for none), as
 * Java's ParquetSchemaConverter does; def / rep: the levels of the parent,
 * path[0..npath) the names above.
 */
extern bool pqw_build_node(ts_pq_writer *w, pq_node *n, const char *name, const ts_type *t,
						   bool nullable, int32_t id, int32_t field_id, int depth, int def,
						   int rep, const char **path, int npath);

/* Free what n holds and its children's (not n itself). */
extern void pqw_free_node(pq_node *n);

/* The schema element of n and those below it, depth first. */
extern void pqw_put_schema(ts_thrift_out *o, const pq_node *n, const ts_pq_writer *w);

/* ---- pq_write_shred.c -------------------------------------------------- */

/* The entries of v (of n's type) in n's leaves; rep / def: the levels of n's parent. */
extern bool pqw_shred(ts_pq_writer *w, const pq_node *n, const ts_value *v, int rep, int def,
					  ts_err *err);

/* ---- pq_write_levels.c ------------------------------------------------- */

/*
 * Levels lv[0..n) (each <= max, max >= 1) appended to body as parquet-mr
 * encodes them: a 4-byte length, then RLE / bit-packed hybrid runs.
 */
extern bool pq_write_levels(const uint8_t *lv, size_t n, int max, ts_buf *body);

#endif							/* TS_PQ_WRITE_INTERNAL_H */
