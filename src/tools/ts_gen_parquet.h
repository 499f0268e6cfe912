/*
 * ts_gen_parquet.h - the minimal Parquet writer of ts_gen (--format parquet).
 *
 * Owns: one data file as Parquet: one row group (or row groups of
 * --row-group-rows rows, flat columns only), one PLAIN data page (v1)
 * per column chunk, uncompressed, definition levels RLE-encoded for nullable
 * columns, field ids in the schema (as Paimon writes them), the physical
 * and converted types of Paimon's ParquetSchemaConverter for flat columns
 * (INT32 + INT_8 / INT_16 / DATE / TIME_MILLIS / DECIMAL, INT64 +
 * TIMESTAMP_MILLIS / TIMESTAMP_MICROS / DECIMAL, FLOAT, DOUBLE, BOOLEAN,
 * BYTE_ARRAY + UTF8), and ARRAY / VECTOR / MAP / ROW as Paimon's groups
 * (LIST "list"/"element", MAP "key_value"/"key"/"value", a ROW's fields)
 * with repetition and definition levels.  Other types are refused (die).
 * Included by ts_gen.c.
 */
#ifndef TS_GEN_PARQUET_H
#define TS_GEN_PARQUET_H

#include "format/parquet/pq_thrift_write.h"

/* ---- Thrift compact protocol: the product's encoder (pq_thrift_write.h) -- */

typedef ts_thrift_out tc_writer;

static void
tc_check(const tc_writer *w)
{
	if (w->failed)
		die("out of memory");
}

static void
tc_byte(tc_writer *w, uint8_t v)
{
	ts_thrift_byte(w, v);
	tc_check(w);
}

static void
tc_varint(tc_writer *w, uint64_t v)
{
	ts_thrift_varint(w, v);
	tc_check(w);
}

static void
tc_i64(tc_writer *w, int16_t id, int64_t v)
{
	ts_thrift_i64(w, id, v);
	tc_check(w);
}

static void
tc_i32(tc_writer *w, int16_t id, int32_t v)
{
	ts_thrift_i32(w, id, v);
	tc_check(w);
}

static void
tc_string(tc_writer *w, int16_t id, const char *s)
{
	ts_thrift_string(w, id, s);
	tc_check(w);
}

static void
tc_list(tc_writer *w, int16_t id, uint8_t elem_type, int n)
{
	ts_thrift_list(w, id, elem_type, n);
	tc_check(w);
}

static void
tc_struct_begin(tc_writer *w, int16_t id)
{
	ts_thrift_struct_begin(w, id);
	tc_check(w);
}

static void
tc_struct_end(tc_writer *w)
{
	ts_thrift_struct_end(w);
	tc_check(w);
}

/* ---- types --------------------------------------------------------------- */

enum
{
	PQW_BOOLEAN = 0, PQW_INT32 = 1, PQW_INT64 = 2, PQW_FLOAT = 4, PQW_DOUBLE = 5,
	PQW_BYTE_ARRAY = 6
};

/* physical type and converted type (-1: none) of a flat Paimon type */
static void
pqw_types(const char *col, const ts_type *t, int *physical, int *converted)
{
	*converted = -1;
	switch (t->kind)
	{
		case TS_BOOLEAN:
			*physical = PQW_BOOLEAN;
			break;
		case TS_TINYINT:
			*physical = PQW_INT32, *converted = 15;	/* INT_8 */
			break;
		case TS_SMALLINT:
			*physical = PQW_INT32, *converted = 16;	/* INT_16 */
			break;
		case TS_INT:
			*physical = PQW_INT32;
			break;
		case TS_BIGINT:
			*physical = PQW_INT64;
			break;
		case TS_FLOAT:
			*physical = PQW_FLOAT;
			break;
		case TS_DOUBLE:
			*physical = PQW_DOUBLE;
			break;
		case TS_DECIMAL:
			if (t->precision > 18)
				die("column %s: --format parquet writes DECIMAL precision <= 18", col);
			*physical = t->precision <= 9 ? PQW_INT32 : PQW_INT64;
			*converted = 5;
			break;
		case TS_CHAR:
		case TS_VARCHAR:
			*physical = PQW_BYTE_ARRAY, *converted = 0;	/* UTF8 */
			break;
		case TS_BINARY:
		case TS_VARBINARY:
			*physical = PQW_BYTE_ARRAY;
			break;
		case TS_DATE:
			*physical = PQW_INT32, *converted = 6;
			break;
		case TS_TIME:
			*physical = PQW_INT32, *converted = 7;	/* TIME_MILLIS */
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision > 6)
				die("column %s: --format parquet writes TIMESTAMP precision <= 6", col);
			*physical = PQW_INT64;
			*converted = t->precision <= 3 ? 9 : 10;	/* TIMESTAMP_MILLIS / _MICROS */
			break;
		default:
			die("column %s: --format parquet does not write this type", col);
	}
}

/* ---- pages ---------------------------------------------------------------- */

static void
le_bytes(ts_buf *b, uint64_t v, int n)
{
	uint8_t		x[8];

	ts_store_le(x, v, n);
	if (!ts_buf_append(b, x, (size_t) n, NULL))
		die("out of memory");
}

/* one non-null value, PLAIN (not BOOLEAN: bit-packed by the caller) */
static void
pqw_plain(const ts_type *t, int physical, const ts_value *v, ts_buf *body)
{
	switch (physical)
	{
		case PQW_INT32:
			le_bytes(body, (uint32_t) (t->kind == TS_DECIMAL ? (int32_t) v->v.dec : (int32_t) v->v.i), 4);
			break;
		case PQW_INT64:
			if (t->kind == TS_DECIMAL)
				le_bytes(body, (uint64_t) (int64_t) v->v.dec, 8);
			else if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
				le_bytes(body, (uint64_t) (t->precision <= 3 ? v->v.ts.millis :
										   v->v.ts.millis * 1000 + v->v.ts.nanos / 1000), 8);
			else
				le_bytes(body, (uint64_t) v->v.i, 8);
			break;
		case PQW_FLOAT:
			{
				uint32_t	u;

				memcpy(&u, &v->v.f, 4);
				le_bytes(body, u, 4);
			}
			break;
		case PQW_DOUBLE:
			{
				uint64_t	u;

				memcpy(&u, &v->v.d, 8);
				le_bytes(body, u, 8);
			}
			break;
		default:				/* BYTE_ARRAY */
			le_bytes(body, v->v.s.len, 4);
			if (v->v.s.len && !ts_buf_append(body, v->v.s.p, v->v.s.len, NULL))
				die("out of memory");
			break;
	}
}

/* PLAIN values (and RLE definition levels) of one column */
static void
pqw_page_body(const ts_type *t, int physical, ts_value *const *rows, int col, int nrows,
			  ts_buf *body)
{
	if (t->nullable)
	{
		ts_buf		lv;
		int			i = 0;

		ts_buf_init(&lv);
		while (i < nrows)
		{
			bool		def = !rows[i][col].isnull;
			int			run = 1;
			tc_writer	w = {&lv, {0}, 0};

			while (i + run < nrows && !rows[i + run][col].isnull == def)
				run++;
			tc_varint(&w, (uint64_t) run << 1);	/* RLE run, bit width 1 */
			tc_byte(&w, def ? 1 : 0);
			i += run;
		}
		le_bytes(body, lv.len, 4);
		if (lv.len && !ts_buf_append(body, lv.data, lv.len, NULL))
			die("out of memory");
		ts_buf_free(&lv);
	}
	if (physical == PQW_BOOLEAN)
	{
		uint8_t		acc = 0;
		int			nb = 0;

		for (int i = 0; i < nrows; i++)
		{
			if (rows[i][col].isnull)
				continue;
			if (rows[i][col].v.i)
				acc |= (uint8_t) (1 << nb);
			if (++nb == 8)
			{
				le_bytes(body, acc, 1);
				acc = 0;
				nb = 0;
			}
		}
		if (nb)
			le_bytes(body, acc, 1);
		return;
	}
	for (int i = 0; i < nrows; i++)
		if (!rows[i][col].isnull)
			pqw_plain(t, physical, &rows[i][col], body);
}

/* ---- nested columns: Paimon's LIST / MAP / ROW groups ------------------ */

/*
 * As Paimon's ParquetSchemaConverter lays them out: ARRAY<E> (and VECTOR,
 * which Paimon's Parquet writer stores as a list) is "group name (LIST)
 * { repeated group list { element } }", MAP<K, V> "group name (MAP)
 * { repeated group key_value { key; value } }", ROW a plain group of its
 * fields (with their field ids).  Each primitive inside is one column
 * chunk with repetition and definition levels (Dremel shredding).
 */
static bool
pqw_nested(const ts_type *t)
{
	return t->kind == TS_ARRAY || t->kind == TS_VECTOR || t->kind == TS_MAP ||
		t->kind == TS_ROW || t->kind == TS_MULTISET;
}

typedef struct pqw_leaf
{
	const ts_type *type;		/* the primitive */
	const char *path[16];		/* path_in_schema */
	int			npath;
	int			max_def,
				max_rep;
	int			n,
				cap;			/* level entries */
	int		   *rep,
			   *def;
	const ts_value **vals;		/* the non-null values, in order */
	int			nvals;
	int			phys,
				conv;
} pqw_leaf;

static int
pqw_nleaves(const ts_type *t)
{
	int			n = 0;

	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_VECTOR:
			return pqw_nleaves(t->element);
		case TS_MAP:
			return pqw_nleaves(t->key) + pqw_nleaves(t->value);
		case TS_ROW:
			for (int i = 0; i < t->nfields; i++)
				n += pqw_nleaves(t->fields[i].type);
			return n;
		default:
			return 1;
	}
}

/* schema elements of t (itself, its repeated group, its children) */
static int
pqw_nelements(const ts_type *t)
{
	int			n = 1;

	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_VECTOR:
			return 2 + pqw_nelements(t->element);
		case TS_MAP:
			return 2 + pqw_nelements(t->key) + pqw_nelements(t->value);
		case TS_ROW:
			for (int i = 0; i < t->nfields; i++)
				n += pqw_nelements(t->fields[i].type);
			return n;
		default:
			return 1;
	}
}

/* a group's schema element */
static void
pqw_group(tc_writer *w, int repetition, const char *name, int nchildren, int converted, int32_t id)
{
	tc_struct_begin(w, 0);
	tc_i32(w, 3, repetition);
	tc_string(w, 4, name);
	tc_i32(w, 5, nchildren);
	if (converted >= 0)
		tc_i32(w, 6, converted);
	if (id >= 0)
		tc_i32(w, 9, id);
	tc_struct_end(w);
}

/*
 * The schema elements of t named name (field id id, -1 for none) into w
 * and its leaves into leaves[*nl...]; path/def/rep: those of the parent.
 */
static void
pqw_schema(tc_writer *w, const char *col, const char *name, int32_t id, const ts_type *t,
		   const char **path, int npath, int def, int rep, pqw_leaf *leaves, int *nl)
{
	const char *sub[16];
	int			repetition = t->nullable ? 1 : 0;

	if (npath >= 14)
		die("column %s: nested too deeply for --format parquet", col);
	memcpy(sub, path, sizeof(char *) * (size_t) npath);
	sub[npath++] = name;
	def += t->nullable ? 1 : 0;
	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_VECTOR:
			pqw_group(w, repetition, name, 1, 3, id);	/* LIST */
			pqw_group(w, 2, "list", 1, -1, -1);
			sub[npath++] = "list";
			pqw_schema(w, col, "element", -1, t->element, sub, npath, def + 1, rep + 1, leaves, nl);
			return;
		case TS_MAP:
			pqw_group(w, repetition, name, 1, 1, id);	/* MAP */
			pqw_group(w, 2, "key_value", 2, -1, -1);
			sub[npath++] = "key_value";
			pqw_schema(w, col, "key", -1, t->key, sub, npath, def + 1, rep + 1, leaves, nl);
			pqw_schema(w, col, "value", -1, t->value, sub, npath, def + 1, rep + 1, leaves, nl);
			return;
		case TS_ROW:
			pqw_group(w, repetition, name, t->nfields, -1, id);
			for (int i = 0; i < t->nfields; i++)
				pqw_schema(w, col, t->fields[i].name, t->fields[i].id, t->fields[i].type,
						   sub, npath, def, rep, leaves, nl);
			return;
		case TS_MULTISET:
			die("column %s: --format parquet does not write MULTISET", col);
		default:
			{
				pqw_leaf   *l = &leaves[(*nl)++];

				pqw_types(col, t, &l->phys, &l->conv);
				l->type = t;
				memcpy(l->path, sub, sizeof(char *) * (size_t) npath);
				l->npath = npath;
				l->max_def = def;
				l->max_rep = rep;
				tc_struct_begin(w, 0);
				tc_i32(w, 1, l->phys);
				tc_i32(w, 3, repetition);
				tc_string(w, 4, name);
				if (l->conv >= 0)
					tc_i32(w, 6, l->conv);
				if (t->kind == TS_DECIMAL)
				{
					tc_i32(w, 7, t->scale);
					tc_i32(w, 8, t->precision);
				}
				if (id >= 0)
					tc_i32(w, 9, id);
				tc_struct_end(w);
			}
	}
}

static void
pqw_level(pqw_leaf *l, int rep, int def, const ts_value *v)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? l->cap * 2 : 64;
		l->rep = realloc(l->rep, sizeof(int) * (size_t) l->cap);
		l->def = realloc(l->def, sizeof(int) * (size_t) l->cap);
		l->vals = realloc(l->vals, sizeof(ts_value *) * (size_t) l->cap);
		if (!l->rep || !l->def || !l->vals)
			die("out of memory");
	}
	l->rep[l->n] = rep;
	l->def[l->n++] = def;
	if (v)
		l->vals[l->nvals++] = v;
}

/* a null or empty value at this level: one entry in each leaf below */
static void
pqw_absent(const ts_type *t, pqw_leaf *leaves, int rep, int def)
{
	for (int i = 0; i < pqw_nleaves(t); i++)
		pqw_level(&leaves[i], rep, def, NULL);
}

/* shred v (of type t) into its leaves; rep: the level of its first entry */
static void
pqw_shred(const char *col, const ts_type *t, const ts_value *v, pqw_leaf *leaves, int rep,
		  int def, int depth)
{
	if (v->isnull)
	{
		if (!t->nullable)
			die("column %s: NULL in a NOT NULL part", col);
		pqw_absent(t, leaves, rep, def);
		return;
	}
	def += t->nullable ? 1 : 0;
	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_VECTOR:
			if (v->v.nested.n == 0)
				pqw_absent(t->element, leaves, rep, def);
			for (int j = 0; j < v->v.nested.n; j++)
				pqw_shred(col, t->element, &v->v.nested.items[j], leaves, j ? depth + 1 : rep,
						  def + 1, depth + 1);
			return;
		case TS_MAP:
			if (v->v.nested.n == 0)
				pqw_absent(t, leaves, rep, def);
			for (int j = 0; j < v->v.nested.n; j++)
			{
				pqw_shred(col, t->key, &v->v.nested.items[2 * j], leaves, j ? depth + 1 : rep,
						  def + 1, depth + 1);
				pqw_shred(col, t->value, &v->v.nested.items[2 * j + 1], leaves + pqw_nleaves(t->key),
						  j ? depth + 1 : rep, def + 1, depth + 1);
			}
			return;
		case TS_ROW:
			{
				int			off = 0;

				for (int i = 0; i < t->nfields; i++)
				{
					pqw_shred(col, t->fields[i].type, &v->v.nested.items[i], leaves + off, rep, def,
							  depth);
					off += pqw_nleaves(t->fields[i].type);
				}
			}
			return;
		default:
			pqw_level(leaves, rep, def, v);
	}
}

/* levels RLE-encoded (runs only), with their 4-byte length */
static void
pqw_levels(const int *lv, int n, int max, ts_buf *body)
{
	ts_buf		b;
	int			bw = 0,
				i = 0;
	tc_writer	w;

	while ((1 << bw) <= max)
		bw++;
	ts_buf_init(&b);
	w = (tc_writer) {&b, {0}, 0};
	while (i < n)
	{
		int			run = 1;

		while (i + run < n && lv[i + run] == lv[i])
			run++;
		tc_varint(&w, (uint64_t) run << 1);
		for (int k = 0; k < (bw + 7) / 8; k++)
			tc_byte(&w, (uint8_t) (lv[i] >> (8 * k)));
		i += run;
	}
	le_bytes(body, b.len, 4);
	if (b.len && !ts_buf_append(body, b.data, b.len, NULL))
		die("out of memory");
	ts_buf_free(&b);
}

/* the page body of a leaf of a nested column */
static void
pqw_leaf_body(const pqw_leaf *l, ts_buf *body)
{
	if (l->max_rep > 0)
		pqw_levels(l->rep, l->n, l->max_rep, body);
	if (l->max_def > 0)
		pqw_levels(l->def, l->n, l->max_def, body);
	if (l->phys == PQW_BOOLEAN)
	{
		uint8_t		acc = 0;
		int			nb = 0;

		for (int i = 0; i < l->nvals; i++)
		{
			if (l->vals[i]->v.i)
				acc |= (uint8_t) (1 << nb);
			if (++nb == 8)
			{
				le_bytes(body, acc, 1);
				acc = 0;
				nb = 0;
			}
		}
		if (nb)
			le_bytes(body, acc, 1);
		return;
	}
	for (int i = 0; i < l->nvals; i++)
		pqw_plain(l->type, l->phys, l->vals[i], body);
}

/*
 * The Parquet file of these rows (rows[r][c] is column c of row r) into out,
 * in row groups of group_rows rows (0: one row group).
 * A flat column is one leaf; a nested one a leaf per primitive inside.
 */
static void
pqw_write_file(const ts_field *fields, int ncols, ts_value *const *rows, int nrows,
			   int group_rows, ts_buf *out)
{
	int			nleaves = 0,
				nelements = 1,
				nl = 0;
	pqw_leaf   *leaves;
	int64_t    *page_off,
			   *chunk_len;
	ts_buf		meta,
				schema;
	tc_writer	w,
				sw;
	int			ngroups;

	for (int c = 0; c < ncols; c++)
	{
		nleaves += pqw_nleaves(fields[c].type);
		nelements += pqw_nelements(fields[c].type);
	}
	if (group_rows <= 0 || group_rows >= nrows)
		group_rows = nrows > 0 ? nrows : 1;
	ngroups = nrows > 0 ? (nrows + group_rows - 1) / group_rows : 1;
	for (int c = 0; c < ncols && ngroups > 1; c++)
		if (pqw_nested(fields[c].type))
			die("--row-group-rows: flat columns only");
	leaves = xcalloc((size_t) (nleaves ? nleaves : 1), sizeof(pqw_leaf));
	page_off = xcalloc((size_t) (nleaves ? nleaves : 1) * ngroups, sizeof(int64_t));
	chunk_len = xcalloc((size_t) (nleaves ? nleaves : 1) * ngroups, sizeof(int64_t));

	/* the schema elements (written into the footer below), and the leaves */
	ts_buf_init(&schema);
	sw = (tc_writer) {&schema, {0}, 1};
	for (int c = 0; c < ncols; c++)
	{
		int			first = nl;

		pqw_schema(&sw, fields[c].name, fields[c].name, fields[c].id, fields[c].type, NULL, 0,
				   0, 0, leaves, &nl);
		if (pqw_nested(fields[c].type))
			for (int r = 0; r < nrows; r++)
				pqw_shred(fields[c].name, fields[c].type, &rows[r][c], &leaves[first], 0, 0, 0);
		else
			leaves[first].n = -1 - c;	/* flat: written from rows[][c] */
	}

	if (!ts_buf_append(out, "PAR1", 4, NULL))
		die("out of memory");
	for (int g = 0; g < ngroups; g++)
	{
		for (int c = 0; c < nleaves; c++)
		{
			pqw_leaf   *l = &leaves[c];
			ts_buf		body,
						hdr;
			tc_writer	hw;
			int			grows = nrows - g * group_rows < group_rows ? nrows - g * group_rows : group_rows;
			int			nvalues = l->n < 0 ? grows : l->n;
			int			k = g * nleaves + c;

			ts_buf_init(&body);
			ts_buf_init(&hdr);
			if (l->n < 0)
				pqw_page_body(l->type, l->phys, rows + (size_t) g * group_rows, -1 - l->n, grows,
							  &body);
			else
				pqw_leaf_body(l, &body);
			if (ngroups == 1)
				l->n = nvalues;
			hw = (tc_writer) {&hdr, {0}, 0};
			tc_i32(&hw, 1, 0);		/* DATA_PAGE */
			tc_i32(&hw, 2, (int32_t) body.len);
			tc_i32(&hw, 3, (int32_t) body.len);
			tc_struct_begin(&hw, 5);	/* DataPageHeader */
			tc_i32(&hw, 1, nvalues);
			tc_i32(&hw, 2, 0);		/* PLAIN */
			tc_i32(&hw, 3, 3);		/* RLE */
			tc_i32(&hw, 4, 3);
			tc_struct_end(&hw);
			tc_byte(&hw, 0);		/* end of PageHeader */
			page_off[k] = (int64_t) out->len;
			chunk_len[k] = (int64_t) (hdr.len + body.len);
			if (!ts_buf_append(out, hdr.data, hdr.len, NULL) ||
				(body.len && !ts_buf_append(out, body.data, body.len, NULL)))
				die("out of memory");
			ts_buf_free(&body);
			ts_buf_free(&hdr);
		}
	}

	ts_buf_init(&meta);
	w = (tc_writer) {&meta, {0}, 0};
	tc_i32(&w, 1, 1);			/* version */
	tc_list(&w, 2, 12, nelements);	/* schema */
	tc_struct_begin(&w, 0);
	tc_string(&w, 4, "paimon_schema");
	tc_i32(&w, 5, ncols);
	tc_struct_end(&w);
	if (schema.len && !ts_buf_append(&meta, schema.data, schema.len, NULL))
		die("out of memory");
	tc_i64(&w, 3, nrows);
	tc_list(&w, 4, 12, ngroups);	/* row groups */
	for (int g = 0; g < ngroups; g++)
	{
		int			grows = nrows - g * group_rows < group_rows ? nrows - g * group_rows : group_rows;
		int64_t		total = 0;

		tc_struct_begin(&w, 0);
		tc_list(&w, 1, 12, nleaves);
		for (int c = 0; c < nleaves; c++)
		{
			const pqw_leaf *l = &leaves[c];
			int			k = g * nleaves + c;

			tc_struct_begin(&w, 0); /* ColumnChunk */
			tc_i64(&w, 2, page_off[k]);
			tc_struct_begin(&w, 3); /* ColumnMetaData */
			tc_i32(&w, 1, l->phys);
			tc_list(&w, 2, 5, 2);
			tc_varint(&w, 0);		/* PLAIN (zigzag 0) */
			tc_varint(&w, 6);		/* RLE (zigzag 3) */
			tc_list(&w, 3, 8, l->npath);
			for (int p = 0; p < l->npath; p++)
			{
				tc_varint(&w, strlen(l->path[p]));
				if (!ts_buf_append(&meta, l->path[p], strlen(l->path[p]), NULL))
					die("out of memory");
			}
			tc_i32(&w, 4, 0);		/* UNCOMPRESSED */
			tc_i64(&w, 5, ngroups == 1 ? l->n : grows);
			tc_i64(&w, 6, chunk_len[k]);
			tc_i64(&w, 7, chunk_len[k]);
			tc_i64(&w, 9, page_off[k]);
			tc_struct_end(&w);
			tc_struct_end(&w);
			total += chunk_len[k];
		}
		tc_i64(&w, 2, total);
		tc_i64(&w, 3, grows);
		tc_struct_end(&w);
	}
	tc_string(&w, 6, "ts_gen");
	tc_byte(&w, 0);				/* end of FileMetaData */
	if (!ts_buf_append(out, meta.data, meta.len, NULL))
		die("out of memory");
	le_bytes(out, meta.len, 4);
	if (!ts_buf_append(out, "PAR1", 4, NULL))
		die("out of memory");
	ts_buf_free(&meta);
	ts_buf_free(&schema);
	for (int c = 0; c < nleaves; c++)
	{
		free(leaves[c].rep);
		free(leaves[c].def);
		free(leaves[c].vals);
	}
	free(leaves);
	free(page_off);
	free(chunk_len);
}

#endif							/* TS_GEN_PARQUET_H */
