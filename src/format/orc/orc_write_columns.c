/*
 * orc_write_columns.c - the column encoders of the ORC writer.
 *
 * Owns: one ORC column of a stripe's buffered rows encoded into its
 * streams (PRESENT, DATA, LENGTH, SECONDARY; lists and maps through their
 * child columns), and the column statistics (ColumnStatistics: counts,
 * min / max / sum, string bounds in Java Text's order) kept per stripe
 * and per file.
 */
#include <string.h>

#include "format/orc/orc_write_internal.h"

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

/* ---- statistics ---------------------------------------------------------- */

/* unsigned bytes, then length: the order of ORC's (Java Text's) string statistics */
static int
bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int			c = memcmp(a, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static void
stats_value(ts_orc_writer *w, ow_stats *s, int kind, const ts_type *t, const ts_value *v)
{
	bool		first = !s->has;

	s->count++;
	switch (kind)
	{
		case OW_BYTE:
		case OW_SHORT:
		case OW_INT:
		case OW_LONG:
		case OW_DATE:
			if (t->kind == TS_TIME)
				return;
			if (first || v->v.i < s->imin)
				s->imin = v->v.i;
			if (first || v->v.i > s->imax)
				s->imax = v->v.i;
			s->has = true;
			break;
		case OW_FLOAT:
		case OW_DOUBLE:
			{
				double		d = kind == OW_FLOAT ? (double) v->v.f : v->v.d;

				if (d != d)
				{
					s->no_minmax = true;
					return;
				}
				if (first || d < s->dmin)
					s->dmin = d;
				if (first || d > s->dmax)
					s->dmax = d;
				s->dsum += d;
				s->has = true;
			}
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
			{
				const uint8_t *p = v->v.s.p;
				size_t		n = v->v.s.len;

				s->str_sum += (int64_t) n;
				if (n > OW_STRING_STATS_MAX)
					s->no_minmax = true;
				if (s->no_minmax)
					return;
				if (first || bytes_compare(p, n, s->smin.data, s->smin.len) < 0)
				{
					ts_buf_reset(&s->smin);
					ow_put(w, &s->smin, p, n);
				}
				if (first || bytes_compare(p, n, s->smax.data, s->smax.len) > 0)
				{
					ts_buf_reset(&s->smax);
					ow_put(w, &s->smax, p, n);
				}
				s->has = true;
			}
			break;
		default:
			break;
	}
}

/* into: into and from over the same column */
void
ow_stats_merge(ts_orc_writer *w, ow_stats *into, const ow_stats *from, int kind, const ts_type *t)
{
	ts_value	v;

	if (from->has_null)
		into->has_null = true;
	if (from->no_minmax)
		into->no_minmax = true;
	into->str_sum += from->str_sum;
	if (!from->has)
	{
		into->count += from->count;
		return;
	}
	memset(&v, 0, sizeof(v));
	switch (kind)
	{
		case OW_FLOAT:
		case OW_DOUBLE:
			if (!into->has || from->dmin < into->dmin)
				into->dmin = from->dmin;
			if (!into->has || from->dmax > into->dmax)
				into->dmax = from->dmax;
			into->dsum += from->dsum;
			into->has = true;
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
			if (into->no_minmax)
				break;
			v.v.s.p = from->smin.data;
			v.v.s.len = (uint32_t) from->smin.len;
			stats_value(w, into, kind, t, &v);
			v.v.s.p = from->smax.data;
			v.v.s.len = (uint32_t) from->smax.len;
			stats_value(w, into, kind, t, &v);
			into->count -= 2;
			into->str_sum -= (int64_t) (from->smin.len + from->smax.len);
			break;
		default:
			if (!into->has || from->imin < into->imin)
				into->imin = from->imin;
			if (!into->has || from->imax > into->imax)
				into->imax = from->imax;
			into->has = true;
			break;
	}
	into->count += from->count;
}

void
ow_stats_reset(ow_stats *s)
{
	ts_buf		smin = s->smin,
				smax = s->smax;

	memset(s, 0, sizeof(*s));
	ts_buf_reset(&smin);
	ts_buf_reset(&smax);
	s->smin = smin;
	s->smax = smax;
}

/* a ColumnStatistics message */
void
ow_stats_message(ts_orc_writer *w, ts_buf *out, int field, const ow_stats *s, int kind)
{
	ts_buf		m,
				k;

	ts_buf_init(&m);
	ts_buf_init(&k);
	ow_pb_uint(w, &m, 1, s->count);
	if (s->has && !s->no_minmax)
	{
		switch (kind)
		{
			case OW_BYTE:
			case OW_SHORT:
			case OW_INT:
			case OW_LONG:
				ow_pb_uint(w, &k, 1, ow_zigzag(s->imin));
				ow_pb_uint(w, &k, 2, ow_zigzag(s->imax));
				ow_pb_message(w, &m, 2, &k);
				break;
			case OW_DATE:
				ow_pb_uint(w, &k, 1, ow_zigzag(s->imin));
				ow_pb_uint(w, &k, 2, ow_zigzag(s->imax));
				ow_pb_message(w, &m, 7, &k);
				break;
			case OW_FLOAT:
			case OW_DOUBLE:
				ow_pb_double(w, &k, 1, s->dmin);
				ow_pb_double(w, &k, 2, s->dmax);
				ow_pb_double(w, &k, 3, s->dsum);
				ow_pb_message(w, &m, 3, &k);
				break;
			case OW_STRING:
			case OW_VARCHAR:
			case OW_CHAR:
				ow_pb_bytes(w, &k, 1, s->smin.data, s->smin.len);
				ow_pb_bytes(w, &k, 2, s->smax.data, s->smax.len);
				ow_pb_uint(w, &k, 3, ow_zigzag(s->str_sum));
				ow_pb_message(w, &m, 4, &k);
				break;
			default:
				break;
		}
	}
	ow_pb_uint(w, &m, 10, s->has_null ? 1 : 0);
	ow_pb_message(w, out, field, &m);
	ts_buf_free(&m);
	ts_buf_free(&k);
}

/* ---- columns ------------------------------------------------------------- */

/*
 * The streams of ORC column cid holding the n values vals[], then those of
 * its children (column ids in pre-order after cid): an ARRAY's element
 * column holds the elements of its non-NULL values one after the other, a
 * MAP's key and value columns its entries, a ROW's field columns the
 * fields of its non-NULL values.
 */
void
ow_column(ts_orc_writer *w, const ts_value *const *vals, size_t n, int cid)
{
	const ts_type *t = w->col_types[cid];
	int			kind = w->col_kinds[cid];
	ow_stats   *st = &w->sstats[cid];
	bool	   *present = ts_calloc(n + 1, sizeof(bool));
	int64_t    *ints = ts_calloc(n + 1, sizeof(int64_t));
	int64_t    *ints2 = ts_calloc(n + 1, sizeof(int64_t));
	size_t		m = 0,
				nitems = 0;
	bool		nulls = false;
	ts_buf		s,
				s2;

	ts_buf_init(&s);
	ts_buf_init(&s2);
	if (present == NULL || ints == NULL || ints2 == NULL)
	{
		w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
		goto done;
	}
	for (size_t r = 0; r < n && w->ok; r++)
	{
		const ts_value *v = vals[r];

		present[r] = !v->isnull;
		if (v->isnull)
		{
			nulls = true;
			continue;
		}
		stats_value(w, st, kind, t, v);
		switch (kind)
		{
			case OW_FLOAT:
				{
					uint32_t	u;
					uint8_t		x[4];

					memcpy(&u, &v->v.f, 4);
					ts_store_le32(x, u);
					ow_put(w, &s, x, 4);
				}
				break;
			case OW_DOUBLE:
				{
					uint64_t	u;
					uint8_t		x[8];

					memcpy(&u, &v->v.d, 8);
					ts_store_le64(x, u);
					ow_put(w, &s, x, 8);
				}
				break;
			case OW_STRING:
			case OW_VARCHAR:
			case OW_CHAR:
			case OW_BINARY:
				ow_put(w, &s, v->v.s.p, v->v.s.len);
				ints[m] = v->v.s.len;
				break;
			case OW_DECIMAL:
				ow_varint128(w, &s, v->v.dec);
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

		st->has_null = true;
		ts_buf_init(&p);
		ow_bool_rle(w, &p, present, n);
		ow_stream(w, OW_S_PRESENT, cid, &p);
		ts_buf_free(&p);
	}
	switch (kind)
	{
		case OW_BOOLEAN:
			for (size_t i = 0; i < m; i++)
				present[i] = ints[i] != 0;	/* reused: the values */
			ow_bool_rle(w, &s, present, m);
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
		case OW_BYTE:
			{
				uint8_t    *b = ts_calloc(m + 1, 1);

				if (b == NULL)
				{
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
					break;
				}
				for (size_t i = 0; i < m; i++)
					b[i] = (uint8_t) ints[i];
				ow_byte_rle(w, &s, b, m);
				ts_free(b);
				ow_stream(w, OW_S_DATA, cid, &s);
			}
			break;
		case OW_FLOAT:
		case OW_DOUBLE:
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
		case OW_STRING:
		case OW_VARCHAR:
		case OW_CHAR:
		case OW_BINARY:
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints, m, false);
			ow_stream(w, OW_S_LENGTH, cid, &s2);
			break;
		case OW_DECIMAL:
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints, m, true);
			ow_stream(w, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_TIMESTAMP:
		case OW_TIMESTAMP_INSTANT:
			ow_int_rle(w, &s, ints, m, true);
			ow_stream(w, OW_S_DATA, cid, &s);
			ow_int_rle(w, &s2, ints2, m, false);
			ow_stream(w, OW_S_SECONDARY, cid, &s2);
			break;
		case OW_LIST:
		case OW_MAP:
			{
				const ts_value **k = ts_calloc(nitems + 1, sizeof(ts_value *));
				const ts_value **e = ts_calloc(nitems + 1, sizeof(ts_value *));
				size_t		j = 0;

				ow_int_rle(w, &s, ints, m, false);
				ow_stream(w, OW_S_LENGTH, cid, &s);
				if (k == NULL || e == NULL)
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
				for (size_t r = 0; r < n && w->ok; r++)
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
				if (w->ok && kind == OW_LIST)
					ow_column(w, e, nitems, cid + 1);
				else if (w->ok)
				{
					ow_column(w, k, nitems, cid + 1);
					ow_column(w, e, nitems, cid + 1 + ow_ncolumns(t->key));
				}
				ts_free(k);
				ts_free(e);
			}
			break;
		case OW_STRUCT:
			{
				const ts_value **f = ts_calloc(m + 1, sizeof(ts_value *));
				int			fid = cid + 1;

				if (f == NULL)
				{
					w->ok = w->ok && ts_error_nomem(w->err, "an ORC stripe");
					break;
				}
				for (int i = 0; i < t->nfields && w->ok; i++)
				{
					size_t		j = 0;

					for (size_t r = 0; r < n; r++)
						if (!vals[r]->isnull)
							f[j++] = &vals[r]->v.nested.items[i];
					ow_column(w, f, m, fid);
					fid += ow_ncolumns(t->fields[i].type);
				}
				ts_free(f);
			}
			break;
		default:				/* SHORT, INT, LONG, DATE */
			ow_int_rle(w, &s, ints, m, true);
			ow_stream(w, OW_S_DATA, cid, &s);
			break;
	}
done:
	ts_buf_free(&s);
	ts_buf_free(&s2);
	ts_free(present);
	ts_free(ints);
	ts_free(ints2);
}
