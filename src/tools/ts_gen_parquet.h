/*
 * ts_gen_parquet.h - the minimal Parquet writer of ts_gen (--format parquet).
 *
 * Owns: one data file as Parquet: one row group, one PLAIN data page (v1)
 * per column, uncompressed, definition levels RLE-encoded for nullable
 * columns, field ids in the schema (as Paimon writes them), the physical
 * and converted types of Paimon's ParquetSchemaConverter for flat columns
 * (INT32 + INT_8 / INT_16 / DATE / TIME_MILLIS / DECIMAL, INT64 +
 * TIMESTAMP_MILLIS / TIMESTAMP_MICROS / DECIMAL, FLOAT, DOUBLE, BOOLEAN,
 * BYTE_ARRAY + UTF8).  Nested and other types are refused (die).
 * Included by ts_gen.c.
 */
#ifndef TS_GEN_PARQUET_H
#define TS_GEN_PARQUET_H

/* ---- Thrift compact protocol ------------------------------------------- */

typedef struct tc_writer
{
	ts_buf	   *b;
	int16_t		last[16];		/* last field id per struct depth */
	int			depth;
} tc_writer;

static void
tc_byte(tc_writer *w, uint8_t v)
{
	if (!ts_buf_append(w->b, &v, 1, NULL))
		die("out of memory");
}

static void
tc_varint(tc_writer *w, uint64_t v)
{
	while (v >= 0x80)
	{
		tc_byte(w, (uint8_t) (v | 0x80));
		v >>= 7;
	}
	tc_byte(w, (uint8_t) v);
}

static void
tc_field(tc_writer *w, int16_t id, uint8_t type)
{
	int16_t		delta = (int16_t) (id - w->last[w->depth]);

	if (delta > 0 && delta <= 15)
		tc_byte(w, (uint8_t) ((delta << 4) | type));
	else
	{
		tc_byte(w, type);
		tc_varint(w, (uint64_t) (((int64_t) id << 1) ^ ((int64_t) id >> 63)));
	}
	w->last[w->depth] = id;
}

static void
tc_i64(tc_writer *w, int16_t id, int64_t v)
{
	tc_field(w, id, 6);
	tc_varint(w, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

static void
tc_i32(tc_writer *w, int16_t id, int32_t v)
{
	tc_field(w, id, 5);
	tc_varint(w, ((uint64_t) (int64_t) v << 1) ^ (uint64_t) ((int64_t) v >> 63));
}

static void
tc_string(tc_writer *w, int16_t id, const char *s)
{
	size_t		n = strlen(s);

	tc_field(w, id, 8);
	tc_varint(w, n);
	if (!ts_buf_append(w->b, s, n, NULL))
		die("out of memory");
}

static void
tc_list(tc_writer *w, int16_t id, uint8_t elem_type, int n)
{
	tc_field(w, id, 9);
	if (n < 15)
		tc_byte(w, (uint8_t) ((n << 4) | elem_type));
	else
	{
		tc_byte(w, (uint8_t) (0xF0 | elem_type));
		tc_varint(w, (uint64_t) n);
	}
}

/* a struct as a field (id > 0) or as a list element (id = 0) */
static void
tc_struct_begin(tc_writer *w, int16_t id)
{
	if (id > 0)
		tc_field(w, id, 12);
	w->last[++w->depth] = 0;
}

static void
tc_struct_end(tc_writer *w)
{
	tc_byte(w, 0);
	w->depth--;
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
			die("column %s: --format parquet writes flat columns only", col);
	}
}

/* ---- pages ---------------------------------------------------------------- */

static void
le_bytes(ts_buf *b, uint64_t v, int n)
{
	uint8_t		x[8];

	for (int i = 0; i < n; i++)
		x[i] = (uint8_t) (v >> (8 * i));
	if (!ts_buf_append(b, x, (size_t) n, NULL))
		die("out of memory");
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
	{
		const ts_value *v = &rows[i][col];

		if (v->isnull)
			continue;
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
			default:			/* BYTE_ARRAY */
				le_bytes(body, v->v.s.len, 4);
				if (v->v.s.len && !ts_buf_append(body, v->v.s.p, v->v.s.len, NULL))
					die("out of memory");
				break;
		}
	}
}

/*
 * The Parquet file of these rows (rows[r][c] is column c of row r) into out.
 */
static void
pqw_write_file(const ts_field *fields, int ncols, ts_value *const *rows, int nrows, ts_buf *out)
{
	int64_t    *page_off = xcalloc((size_t) (ncols ? ncols : 1), sizeof(int64_t));
	int64_t    *chunk_len = xcalloc((size_t) (ncols ? ncols : 1), sizeof(int64_t));
	int		   *phys = xcalloc((size_t) (ncols ? ncols : 1), sizeof(int));
	int		   *conv = xcalloc((size_t) (ncols ? ncols : 1), sizeof(int));
	ts_buf		meta;
	tc_writer	w;
	int64_t		total = 0;

	if (!ts_buf_append(out, "PAR1", 4, NULL))
		die("out of memory");
	for (int c = 0; c < ncols; c++)
	{
		ts_buf		body,
					hdr;
		tc_writer	hw;

		pqw_types(fields[c].name, fields[c].type, &phys[c], &conv[c]);
		ts_buf_init(&body);
		ts_buf_init(&hdr);
		pqw_page_body(fields[c].type, phys[c], rows, c, nrows, &body);
		hw = (tc_writer) {&hdr, {0}, 0};
		tc_i32(&hw, 1, 0);		/* DATA_PAGE */
		tc_i32(&hw, 2, (int32_t) body.len);
		tc_i32(&hw, 3, (int32_t) body.len);
		tc_struct_begin(&hw, 5);	/* DataPageHeader */
		tc_i32(&hw, 1, nrows);
		tc_i32(&hw, 2, 0);		/* PLAIN */
		tc_i32(&hw, 3, 3);		/* RLE */
		tc_i32(&hw, 4, 3);
		tc_struct_end(&hw);
		tc_byte(&hw, 0);		/* end of PageHeader */
		page_off[c] = (int64_t) out->len;
		chunk_len[c] = (int64_t) (hdr.len + body.len);
		total += chunk_len[c];
		if (!ts_buf_append(out, hdr.data, hdr.len, NULL) ||
			(body.len && !ts_buf_append(out, body.data, body.len, NULL)))
			die("out of memory");
		ts_buf_free(&body);
		ts_buf_free(&hdr);
	}

	ts_buf_init(&meta);
	w = (tc_writer) {&meta, {0}, 0};
	tc_i32(&w, 1, 1);			/* version */
	tc_list(&w, 2, 12, ncols + 1);	/* schema */
	tc_struct_begin(&w, 0);
	tc_string(&w, 4, "paimon_schema");
	tc_i32(&w, 5, ncols);
	tc_struct_end(&w);
	for (int c = 0; c < ncols; c++)
	{
		const ts_type *t = fields[c].type;

		tc_struct_begin(&w, 0);
		tc_i32(&w, 1, phys[c]);
		tc_i32(&w, 3, t->nullable ? 1 : 0);
		tc_string(&w, 4, fields[c].name);
		if (conv[c] >= 0)
			tc_i32(&w, 6, conv[c]);
		if (t->kind == TS_DECIMAL)
		{
			tc_i32(&w, 7, t->scale);
			tc_i32(&w, 8, t->precision);
		}
		tc_i32(&w, 9, fields[c].id);
		tc_struct_end(&w);
	}
	tc_i64(&w, 3, nrows);
	tc_list(&w, 4, 12, 1);		/* row groups */
	tc_struct_begin(&w, 0);
	tc_list(&w, 1, 12, ncols);
	for (int c = 0; c < ncols; c++)
	{
		tc_struct_begin(&w, 0); /* ColumnChunk */
		tc_i64(&w, 2, page_off[c]);
		tc_struct_begin(&w, 3); /* ColumnMetaData */
		tc_i32(&w, 1, phys[c]);
		tc_list(&w, 2, 5, 2);
		tc_varint(&w, 0);		/* PLAIN (zigzag 0) */
		tc_varint(&w, 6);		/* RLE (zigzag 3) */
		tc_list(&w, 3, 8, 1);
		tc_varint(&w, strlen(fields[c].name));
		if (!ts_buf_append(&meta, fields[c].name, strlen(fields[c].name), NULL))
			die("out of memory");
		tc_i32(&w, 4, 0);		/* UNCOMPRESSED */
		tc_i64(&w, 5, nrows);
		tc_i64(&w, 6, chunk_len[c]);
		tc_i64(&w, 7, chunk_len[c]);
		tc_i64(&w, 9, page_off[c]);
		tc_struct_end(&w);
		tc_struct_end(&w);
	}
	tc_i64(&w, 2, total);
	tc_i64(&w, 3, nrows);
	tc_struct_end(&w);
	tc_string(&w, 6, "ts_gen");
	tc_byte(&w, 0);				/* end of FileMetaData */
	if (!ts_buf_append(out, meta.data, meta.len, NULL))
		die("out of memory");
	le_bytes(out, meta.len, 4);
	if (!ts_buf_append(out, "PAR1", 4, NULL))
		die("out of memory");
	ts_buf_free(&meta);
	free(page_off);
	free(chunk_len);
	free(phys);
	free(conv);
}

#endif							/* TS_GEN_PARQUET_H */
