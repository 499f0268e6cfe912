/*
 * ts_gen_orc.h - the minimal ORC writer of ts_gen (--format orc).
 *
 * Owns: one data file as ORC: compression NONE, one stripe (or stripes of
 * --row-group-rows rows), no row index,
 * no statistics, writer time zone "UTC"; PRESENT streams (boolean RLE) for
 * columns with NULLs, integers in RLE v1 (DIRECT encoding) written as
 * literal runs only, strings and binaries DIRECT (DATA + LENGTH), lists and
 * maps as LENGTH + child columns.  The ORC types are those of Paimon's
 * OrcTypeUtil.convertToOrcType: boolean, tinyint..bigint as
 * byte/short/int/long, float, double, decimal(p,s), char(n) / varchar(n) /
 * string, BYTES as binary, date, TIME as int (milliseconds of the day),
 * TIMESTAMP as timestamp, TIMESTAMP WITH LOCAL TIME ZONE as "timestamp with
 * local time zone", ARRAY as list, MAP as map, ROW as struct, each with the
 * attribute paimon.id (ARRAY elements and MAP keys / values with Paimon's
 * SpecialFields ids).  Types Paimon's ORC writer refuses (BINARY(n),
 * VARBINARY(n), MULTISET, VECTOR, VARIANT, ...) are refused (die).  The protobuf messages
 * (PostScript, Footer, StripeFooter of orc_proto.proto) are encoded by
 * hand.  Included by ts_gen.c after ts_gen_parquet.h (uses le_bytes).
 */
#ifndef TS_GEN_ORC_H
#define TS_GEN_ORC_H

#define OW_TS_BASE INT64_C(1420070400)	/* 2015-01-01 00:00:00 UTC */

/* ---- protobuf ------------------------------------------------------------ */

static void
ow_put(ts_buf *b, const void *p, size_t n)
{
	if (n && !ts_buf_append(b, p, n, NULL))
		die("out of memory");
}

static void
ow_varint(ts_buf *b, uint64_t v)
{
	uint8_t		x;

	while (v >= 0x80)
	{
		x = (uint8_t) (v | 0x80);
		ow_put(b, &x, 1);
		v >>= 7;
	}
	x = (uint8_t) v;
	ow_put(b, &x, 1);
}

/* field number and wire type 0 (varint) */
static void
pb_uint(ts_buf *b, int field, uint64_t v)
{
	ow_varint(b, (uint64_t) field << 3);
	ow_varint(b, v);
}

/* field number and wire type 2 (length-delimited) */
static void
pb_bytes(ts_buf *b, int field, const void *p, size_t n)
{
	ow_varint(b, ((uint64_t) field << 3) | 2);
	ow_varint(b, n);
	ow_put(b, p, n);
}

static void
pb_string(ts_buf *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* an embedded message (its bytes in m) */
static void
pb_message(ts_buf *b, int field, const ts_buf *m)
{
	pb_bytes(b, field, m->data, m->len);
}

/* ---- run-length encodings ------------------------------------------------ */

/* byte RLE: literal runs of at most 128 bytes (header -n) */
static void
ow_byte_rle(ts_buf *b, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(b, &h, 1);
		ow_put(b, v + i, k);
	}
}

/* integer RLE v1: literal runs of at most 128 varints (zig-zag if signed) */
static void
ow_int_rle(ts_buf *b, const int64_t *v, size_t n, bool is_signed)
{
	for (size_t i = 0; i < n; i += 128)
	{
		size_t		k = n - i < 128 ? n - i : 128;
		uint8_t		h = (uint8_t) (-(int) k);

		ow_put(b, &h, 1);
		for (size_t j = i; j < i + k; j++)
			ow_varint(b, is_signed ? ((uint64_t) v[j] << 1) ^ (uint64_t) (v[j] >> 63) :
					  (uint64_t) v[j]);
	}
}

/* boolean RLE: bits, most significant first, then byte RLE */
static void
ow_bool_rle(ts_buf *b, const bool *v, size_t n)
{
	uint8_t    *bytes = xcalloc((n + 7) / 8 + 1, 1);

	for (size_t i = 0; i < n; i++)
		if (v[i])
			bytes[i / 8] |= (uint8_t) (0x80 >> (i % 8));
	ow_byte_rle(b, bytes, (n + 7) / 8);
	free(bytes);
}

/* ---- types ---------------------------------------------------------------- */

enum
{
	OW_BOOLEAN = 0, OW_BYTE = 1, OW_SHORT = 2, OW_INT = 3, OW_LONG = 4, OW_FLOAT = 5,
	OW_DOUBLE = 6, OW_STRING = 7, OW_BINARY = 8, OW_TIMESTAMP = 9, OW_LIST = 10, OW_MAP = 11,
	OW_STRUCT = 12, OW_DECIMAL = 14, OW_DATE = 15, OW_VARCHAR = 16, OW_CHAR = 17,
	OW_TIMESTAMP_INSTANT = 18
};

enum
{
	OW_S_PRESENT = 0, OW_S_DATA = 1, OW_S_LENGTH = 2, OW_S_SECONDARY = 5
};

/* Paimon's ids of ARRAY elements and MAP keys / values (SpecialFields) */
#define OW_NESTED_ID_BASE (INT32_MAX / 4)
#define OW_NESTED_DEPTH_LIMIT 1024

/* the ORC type kind of a Paimon type, as OrcTypeUtil.convertToOrcType maps it */
static int
ow_kind(const char *col, const ts_type *t)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return OW_BOOLEAN;
		case TS_TINYINT:
			return OW_BYTE;
		case TS_SMALLINT:
			return OW_SHORT;
		case TS_INT:
		case TS_TIME:
			return OW_INT;
		case TS_BIGINT:
			return OW_LONG;
		case TS_FLOAT:
			return OW_FLOAT;
		case TS_DOUBLE:
			return OW_DOUBLE;
		case TS_DECIMAL:
			return OW_DECIMAL;
		case TS_CHAR:
			return OW_CHAR;
		case TS_VARCHAR:
			return t->length == TS_STRING_LENGTH ? OW_STRING : OW_VARCHAR;
		case TS_VARBINARY:
			if (t->length == TS_STRING_LENGTH)
				return OW_BINARY;
			die("column %s: Paimon's ORC writer takes BYTES only, no BINARY(n) / VARBINARY(n)", col);
			break;
		case TS_DATE:
			return OW_DATE;
		case TS_TIMESTAMP:
			return OW_TIMESTAMP;
		case TS_TIMESTAMP_LTZ:
			return OW_TIMESTAMP_INSTANT;
		case TS_ARRAY:
			return OW_LIST;
		case TS_MAP:
			return OW_MAP;
		case TS_ROW:
			return OW_STRUCT;
		default:
			die("column %s: Paimon's ORC writer has no %s", col, ts_type_kind_name(t->kind));
	}
	return -1;
}

/* ORC columns of a Paimon type: itself and its children */
static int
ow_ncolumns(const ts_type *t)
{
	int			n = 1;

	if (t->kind == TS_ARRAY)
		n += ow_ncolumns(t->element);
	else if (t->kind == TS_MAP)
		n += ow_ncolumns(t->key) + ow_ncolumns(t->value);
	else if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
			n += ow_ncolumns(t->fields[i].type);
	return n;
}

/* ORC's encoding of the nanoseconds of a second: trailing zeros counted */
static uint64_t
ow_nanos(int64_t nanos)
{
	int			z = 1;

	if (nanos == 0 || nanos % 100 != 0)
		return (uint64_t) nanos << 3;
	nanos /= 100;
	while (nanos % 10 == 0 && z < 7)
	{
		nanos /= 10;
		z++;
	}
	return ((uint64_t) nanos << 3) | (uint64_t) z;
}

/* zig-zag base-128 varint of a 128-bit integer (decimal DATA) */
static void
ow_varint128(ts_buf *b, ts_int128 v)
{
	unsigned __int128 u = ((unsigned __int128) v << 1) ^ (unsigned __int128) (v >> 127);
	uint8_t		x;

	while (u >= 0x80)
	{
		x = (uint8_t) (u | 0x80);
		ow_put(b, &x, 1);
		u >>= 7;
	}
	x = (uint8_t) u;
	ow_put(b, &x, 1);
}

/* a stream of the stripe: bytes appended to data, its entry to the footer */
static void
ow_stream(ts_buf *data, ts_buf *sfooter, int kind, int column, const ts_buf *s)
{
	ts_buf		m;

	ts_buf_init(&m);
	pb_uint(&m, 1, (uint64_t) kind);
	pb_uint(&m, 2, (uint64_t) column);
	pb_uint(&m, 3, s->len);
	pb_message(sfooter, 1, &m);
	ts_buf_free(&m);
	ow_put(data, s->data, s->len);
}

/*
 * The streams of ORC column cid holding the n values vals[] of Paimon type t,
 * then those of its children (column ids in pre-order after cid): an ARRAY's
 * element column holds the elements of its non-NULL values one after the
 * other, a MAP's key and value columns its entries, a ROW's field columns
 * the fields of its non-NULL values.
 */
static void
ow_column(const char *col, const ts_type *t, const ts_value *const *vals, size_t n, int cid,
		  ts_buf *data, ts_buf *sfooter)
{
	int			kind = ow_kind(col, t);
	bool	   *present = xcalloc(n + 1, sizeof(bool));
	int64_t    *ints = xcalloc(n + 1, sizeof(int64_t));
	int64_t    *ints2 = xcalloc(n + 1, sizeof(int64_t));
	size_t		m = 0,
				nitems = 0;
	bool		nulls = false;
	ts_buf		s,
				s2;

	ts_buf_init(&s);
	ts_buf_init(&s2);
	for (size_t r = 0; r < n; r++)
	{
		const ts_value *v = vals[r];

		present[r] = !v->isnull;
		if (v->isnull)
		{
			nulls = true;
			continue;
		}
		switch (kind)
		{
			case OW_FLOAT:
				{
					uint32_t	u;

					memcpy(&u, &v->v.f, 4);
					le_bytes(&s, u, 4);
				}
				break;
			case OW_DOUBLE:
				{
					uint64_t	u;

					memcpy(&u, &v->v.d, 8);
					le_bytes(&s, u, 8);
				}
				break;
			case OW_STRING:
			case OW_VARCHAR:
			case OW_CHAR:
			case OW_BINARY:
				ow_put(&s, v->v.s.p, v->v.s.len);
				ints[m] = v->v.s.len;
				break;
			case OW_DECIMAL:
				ow_varint128(&s, v->v.dec);
				ints[m] = t->scale;
				break;
			case OW_TIMESTAMP:
			case OW_TIMESTAMP_INSTANT:
				{
					/* as Java's writer: seconds truncated toward zero */
					int64_t		ms = v->v.ts.millis;
					int64_t		frac = ((ms % 1000) + 1000) % 1000;

					ints[m] = ms / 1000 - OW_TS_BASE;
					ints2[m] = (int64_t) ow_nanos(frac * 1000000 + v->v.ts.nanos);
				}
				break;
			case OW_LIST:
			case OW_MAP:
				ints[m] = v->v.nested.n;
				nitems += (size_t) v->v.nested.n;
				break;
			case OW_STRUCT:
				break;
			default:			/* BOOLEAN, BYTE, SHORT, INT, LONG, DATE */
				ints[m] = v->v.i;
				break;
		}
		m++;
	}
	if (nulls)
	{
		ts_buf		p;

		ts_buf_init(&p);
		ow_bool_rle(&p, present, n);
		ow_stream(data, sfooter, OW_S_PRESENT, cid, &p);
		ts_buf_free(&p);
	}
	switch (kind)
	{
		case OW_BOOLEAN:
			{
				bool	   *b = xcalloc(m + 1, sizeof(bool));

				for (size_t i = 0; i < m; i++)
					b[i] = ints[i] != 0;
				ow_bool_rle(&s, b, m);
				free(b);
				ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			}
			break;
		case OW_BYTE:
			{
				uint8_t    *b = xcalloc(m + 1, 1);

				for (size_t i = 0; i < m; i++)
					b[i] = (uint8_t) ints[i];
				ow_byte_rle(&s, b, m);
				free(b);
				ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			}
			break;
		case OW_FLOAT:
		case OW_DOUBLE:
			ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
		case OW_BINARY:
			ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			ow_int_rle(&s2, ints, m, false);
			ow_stream(data, sfooter, OW_S_LENGTH, cid, &s2);
			break;
		case OW_DECIMAL:
			ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			ow_int_rle(&s2, ints, m, true);
			ow_stream(data, sfooter, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_TIMESTAMP:
		case OW_TIMESTAMP_INSTANT:
			ow_int_rle(&s, ints, m, true);
			ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			ow_int_rle(&s2, ints2, m, false);
			ow_stream(data, sfooter, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_LIST:
		case OW_MAP:
			{
				const ts_value **k = xcalloc(nitems + 1, sizeof(ts_value *));
				const ts_value **e = xcalloc(nitems + 1, sizeof(ts_value *));
				size_t		j = 0;

				ow_int_rle(&s, ints, m, false);
				ow_stream(data, sfooter, OW_S_LENGTH, cid, &s);
				for (size_t r = 0; r < n; r++)
					for (int i = 0; !vals[r]->isnull && i < vals[r]->v.nested.n; i++, j++)
					{
						if (kind == OW_LIST)
							e[j] = &vals[r]->v.nested.items[i];
						else
						{
							k[j] = &vals[r]->v.nested.items[2 * i];
							e[j] = &vals[r]->v.nested.items[2 * i + 1];
						}
					}
				if (kind == OW_LIST)
					ow_column(col, t->element, e, nitems, cid + 1, data, sfooter);
				else
				{
					ow_column(col, t->key, k, nitems, cid + 1, data, sfooter);
					ow_column(col, t->value, e, nitems, cid + 1 + ow_ncolumns(t->key),
							  data, sfooter);
				}
				free(k);
				free(e);
			}
			break;
		case OW_STRUCT:
			{
				const ts_value **f = xcalloc(m + 1, sizeof(ts_value *));
				int			fid = cid + 1;

				for (int i = 0; i < t->nfields; i++)
				{
					size_t		j = 0;

					for (size_t r = 0; r < n; r++)
						if (!vals[r]->isnull)
							f[j++] = &vals[r]->v.nested.items[i];
					ow_column(col, t->fields[i].type, f, m, fid, data, sfooter);
					fid += ow_ncolumns(t->fields[i].type);
				}
				free(f);
			}
			break;
		default:				/* SHORT, INT, LONG, DATE */
			ow_int_rle(&s, ints, m, true);
			ow_stream(data, sfooter, OW_S_DATA, cid, &s);
			break;
	}
	ts_buf_free(&s);
	ts_buf_free(&s2);
	free(present);
	free(ints);
	free(ints2);
}

/* the Type message of a struct's fields: subtypes from first_id, names */
static void
ow_struct_fields(ts_buf *m, const ts_field *fields, int nfields, int first_id)
{
	ts_buf		sub;
	int			id = first_id;

	if (nfields == 0)
		return;
	ts_buf_init(&sub);
	for (int i = 0; i < nfields; i++)
	{
		ow_varint(&sub, (uint64_t) id);
		id += ow_ncolumns(fields[i].type);
	}
	pb_message(m, 2, &sub);		/* packed subtypes */
	ts_buf_free(&sub);
	for (int i = 0; i < nfields; i++)
		pb_string(m, 3, fields[i].name);
}

/*
 * The Type messages of ORC column cid (Paimon type t, attribute paimon.id
 * pid) and its children, in column order; field_id and depth give the ids
 * Paimon puts on ARRAY elements and MAP keys / values.
 */
static void
ow_types(ts_buf *footer, const char *col, const ts_type *t, int cid, int32_t pid,
		 int32_t field_id, int depth)
{
	int			kind = ow_kind(col, t);
	ts_buf		m,
				a;
	char		id[16];

	ts_buf_init(&m);
	ts_buf_init(&a);
	pb_uint(&m, 1, (uint64_t) kind);
	if (kind == OW_LIST || kind == OW_MAP)
	{
		ts_buf		sub;

		ts_buf_init(&sub);
		ow_varint(&sub, (uint64_t) cid + 1);
		if (kind == OW_MAP)
			ow_varint(&sub, (uint64_t) (cid + 1 + ow_ncolumns(t->key)));
		pb_message(&m, 2, &sub);
		ts_buf_free(&sub);
	}
	if (kind == OW_STRUCT)
		ow_struct_fields(&m, t->fields, t->nfields, cid + 1);
	if (kind == OW_VARCHAR || kind == OW_CHAR)
		pb_uint(&m, 4, (uint64_t) t->length);
	if (kind == OW_DECIMAL)
	{
		pb_uint(&m, 5, (uint64_t) t->precision);
		pb_uint(&m, 6, (uint64_t) t->scale);
	}
	snprintf(id, sizeof(id), "%d", (int) pid);
	pb_string(&a, 1, "paimon.id");
	pb_string(&a, 2, id);
	pb_message(&m, 7, &a);
	pb_message(footer, 4, &m);
	ts_buf_free(&m);
	ts_buf_free(&a);

	if (kind == OW_LIST)
		ow_types(footer, col, t->element, cid + 1,
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	else if (kind == OW_MAP)
	{
		ow_types(footer, col, t->key, cid + 1,
				 OW_NESTED_ID_BASE - field_id * OW_NESTED_DEPTH_LIMIT - depth - 1,
				 field_id, depth + 1);
		ow_types(footer, col, t->value, cid + 1 + ow_ncolumns(t->key),
				 OW_NESTED_ID_BASE + field_id * OW_NESTED_DEPTH_LIMIT + depth + 1,
				 field_id, depth + 1);
	}
	else if (kind == OW_STRUCT)
	{
		int			fid = cid + 1;

		/* a ROW's fields carry their own ids (convertToOrcSchema) */
		for (int i = 0; i < t->nfields; i++)
		{
			ow_types(footer, col, t->fields[i].type, fid, t->fields[i].id,
					 t->fields[i].id, 0);
			fid += ow_ncolumns(t->fields[i].type);
		}
	}
}

/*
 * The ORC file of these rows (rows[r][c] is column c of row r) into out,
 * in stripes of stripe_rows rows (0: one stripe).
 */
static void
ow_write_file(const ts_field *fields, int ncols, ts_value *const *rows, int nrows,
			  int stripe_rows, ts_buf *out)
{
	const ts_value **vals = xcalloc((size_t) nrows + 1, sizeof(ts_value *));
	ts_buf		data,
				sfooter,
				footer,
				m,
				ps,
				stripes;
	uint8_t		pslen;
	int			ncolumns = 1;
	int			cid;

	for (int c = 0; c < ncols; c++)
		ncolumns += ow_ncolumns(fields[c].type);
	if (stripe_rows <= 0 || stripe_rows >= nrows)
		stripe_rows = nrows > 0 ? nrows : 1;
	ow_put(out, "ORC", 3);

	/* each stripe: the streams, then the stripe footer; its StripeInformation */
	ts_buf_init(&stripes);
	for (int first = 0; first < nrows || (first == 0 && nrows == 0); first += stripe_rows)
	{
		int			n = nrows - first < stripe_rows ? nrows - first : stripe_rows;
		uint64_t	stripe_off = out->len;

		ts_buf_init(&data);
		ts_buf_init(&sfooter);
		cid = 1;
		for (int c = 0; c < ncols; c++)
		{
			for (int r = 0; r < n; r++)
				vals[r] = &rows[first + r][c];
			ow_column(fields[c].name, fields[c].type, vals, (size_t) n, cid, &data, &sfooter);
			cid += ow_ncolumns(fields[c].type);
		}
		for (int c = 0; c < ncolumns; c++)
		{
			ts_buf_init(&m);
			pb_uint(&m, 1, 0);	/* DIRECT */
			pb_message(&sfooter, 2, &m);
			ts_buf_free(&m);
		}
		pb_string(&sfooter, 3, "UTC");
		ow_put(out, data.data, data.len);
		ow_put(out, sfooter.data, sfooter.len);
		ts_buf_init(&m);
		pb_uint(&m, 1, stripe_off);
		pb_uint(&m, 2, 0);		/* indexLength */
		pb_uint(&m, 3, data.len);
		pb_uint(&m, 4, sfooter.len);
		pb_uint(&m, 5, (uint64_t) n);
		pb_message(&stripes, 3, &m);
		ts_buf_free(&m);
		ts_buf_free(&data);
		ts_buf_free(&sfooter);
		if (nrows == 0)
			break;
	}

	/* footer */
	ts_buf_init(&footer);
	pb_uint(&footer, 1, 3);		/* headerLength */
	pb_uint(&footer, 2, out->len);	/* contentLength: header and stripes */
	ow_put(&footer, stripes.data, stripes.len);
	ts_buf_free(&stripes);
	/* type 0: the struct of all columns, then each column's types */
	ts_buf_init(&m);
	pb_uint(&m, 1, OW_STRUCT);
	ow_struct_fields(&m, fields, ncols, 1);
	pb_message(&footer, 4, &m);
	ts_buf_free(&m);
	cid = 1;
	for (int c = 0; c < ncols; c++)
	{
		ow_types(&footer, fields[c].name, fields[c].type, cid, fields[c].id, fields[c].id, 0);
		cid += ow_ncolumns(fields[c].type);
	}
	pb_uint(&footer, 6, (uint64_t) nrows);
	pb_uint(&footer, 8, 0);		/* rowIndexStride: no index */
	ow_put(out, footer.data, footer.len);

	/* postscript */
	ts_buf_init(&ps);
	pb_uint(&ps, 1, footer.len);
	pb_uint(&ps, 2, 0);			/* NONE */
	pb_uint(&ps, 3, 262144);
	ts_buf_init(&m);
	ow_varint(&m, 0);
	ow_varint(&m, 12);
	pb_message(&ps, 4, &m);		/* version 0.12, packed */
	ts_buf_free(&m);
	pb_uint(&ps, 5, 0);			/* metadataLength */
	pb_uint(&ps, 6, 9);			/* writerVersion */
	pb_string(&ps, 8000, "ORC");
	if (ps.len > 255)
		die("ORC postscript too long");
	ow_put(out, ps.data, ps.len);
	pslen = (uint8_t) ps.len;
	ow_put(out, &pslen, 1);

	ts_buf_free(&footer);
	ts_buf_free(&ps);
	free(vals);
}

#endif							/* TS_GEN_ORC_H */
