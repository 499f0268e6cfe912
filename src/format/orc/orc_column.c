/*
 * orc_column.c - one requested column of an ORC file: resolving it to the
 * file's type tree and decoding its streams into ts_values.
 *
 * Owns: matching requested Paimon columns/fields to ORC columns (by
 * "paimon.id", else by name; recursively for ROW), checking that the ORC
 * type can give the requested Paimon type, loading a column's streams of
 * one stripe (with its encoding and dictionary), and decoding n values
 * (PRESENT bits, then the type's streams) into strided ts_value slots;
 * nested ROW/ARRAY/MAP items go to the stripe state's arena.
 */
#include <string.h>

#include "format/orc/orc_decode.h"

/* ---- column resolution ------------------------------------------------ */

static bool
kinds_compatible(ts_type_kind want, int ok)
{
	switch (want)
	{
		case TS_BOOLEAN:
			return ok == ORC_BOOLEAN;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			return ok == ORC_BYTE || ok == ORC_SHORT || ok == ORC_INT || ok == ORC_LONG;
		case TS_TIME:
			return ok == ORC_INT || ok == ORC_LONG;
		case TS_DATE:
			return ok == ORC_DATE;
		case TS_FLOAT:
		case TS_DOUBLE:
			return ok == ORC_FLOAT || ok == ORC_DOUBLE;
		case TS_DECIMAL:
			return ok == ORC_DECIMAL;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
		case TS_BLOB:
			return ok == ORC_STRING || ok == ORC_VARCHAR || ok == ORC_CHAR || ok == ORC_BINARY;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			return ok == ORC_TIMESTAMP || ok == ORC_TIMESTAMP_INSTANT;
		case TS_ARRAY:
			return ok == ORC_LIST;
		case TS_MAP:
		case TS_MULTISET:
			return ok == ORC_MAP;
		case TS_ROW:
			return ok == ORC_STRUCT;
		default:
			return false;
	}
}

void
orc_col_free(orc_col *c)
{
	int			i;

	if (!c)
		return;
	for (i = 0; i < c->nchildren; i++)
		orc_col_free(c->children[i]);
	ts_free(c->children);
	ts_free(c->dict_off);
	ts_free(c);
}

/* find the child of ORC struct column sid matching (field_id, name); -1 if none */
int
orc_find_struct_child(const orc_tail *tail, uint32_t sid, int32_t field_id, const char *name)
{
	const orc_type *st = &tail->types[sid];
	int			i;

	if (field_id >= 0)
	{
		bool		file_has_ids = false;

		for (i = 0; i < st->nsubtypes; i++)
		{
			const orc_type *ct = &tail->types[st->subtypes[i]];

			if (ct->paimon_id >= 0)
				file_has_ids = true;
			if (ct->paimon_id == field_id)
				return i;
		}
		if (file_has_ids)
			return -1;
	}
	if (name)
		for (i = 0; i < st->nsubtypes; i++)
			if (strcmp(st->field_names[i], name) == 0)
				return i;
	return -1;
}

orc_col *
orc_col_build(const orc_tail *tail, uint32_t id, const ts_type *want, const char *name, ts_err *err)
{
	const orc_type *ot = &tail->types[id];
	orc_col    *c;
	int			i;

	if (!kinds_compatible(want->kind, ot->kind))
	{
		char	   *ws = ts_type_to_string(want);

		ts_error(err, TS_ERR_UNSUPPORTED, "column \"%s\": ORC type %s cannot be read as %s",
				 name, orc_type_kind_name(ot->kind), ws ? ws : ts_type_kind_name(want->kind));
		ts_free(ws);
		return NULL;
	}
	c = ts_calloc(1, sizeof(orc_col));
	if (!c)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	c->want = want;
	c->name = name;
	c->id = id;
	c->ot = ot;
	if (want->kind == TS_ROW)
	{
		c->nchildren = want->nfields;
		c->children = ts_calloc(want->nfields ? want->nfields : 1, sizeof(orc_col *));
		if (!c->children)
			goto nomem;
		for (i = 0; i < want->nfields; i++)
		{
			const ts_field *f = &want->fields[i];
			int			k = orc_find_struct_child(tail, id, f->id, f->name);

			if (k < 0)
				continue;
			c->children[i] = orc_col_build(tail, ot->subtypes[k], f->type, f->name, err);
			if (!c->children[i])
				goto fail;
		}
	}
	else if (want->kind == TS_ARRAY)
	{
		c->nchildren = 1;
		c->children = ts_calloc(1, sizeof(orc_col *));
		if (!c->children)
			goto nomem;
		if (!want->element)
		{
			ts_error(err, TS_ERR_INVALID, "column \"%s\": ARRAY without element type", name);
			goto fail;
		}
		c->children[0] = orc_col_build(tail, ot->subtypes[0], want->element, name, err);
		if (!c->children[0])
			goto fail;
	}
	else if (want->kind == TS_MAP || want->kind == TS_MULTISET)
	{
		const ts_type *kt = want->kind == TS_MAP ? want->key : want->element;
		static ts_type count_type = {.kind = TS_INT,.nullable = false};
		const ts_type *vt = want->kind == TS_MAP ? want->value : &count_type;

		c->nchildren = 2;
		c->children = ts_calloc(2, sizeof(orc_col *));
		if (!c->children)
			goto nomem;
		if (!kt || !vt)
		{
			ts_error(err, TS_ERR_INVALID, "column \"%s\": MAP without key/value type", name);
			goto fail;
		}
		c->children[0] = orc_col_build(tail, ot->subtypes[0], kt, name, err);
		if (!c->children[0])
			goto fail;
		c->children[1] = orc_col_build(tail, ot->subtypes[1], vt, name, err);
		if (!c->children[1])
			goto fail;
	}
	return c;
nomem:
	ts_error_nomem(err, NULL);
fail:
	orc_col_free(c);
	return NULL;
}

/* ---- stripe loading --------------------------------------------------- */

void
orc_stripe_release(orc_stripe *sp)
{
	int			i;

	for (i = 0; i < sp->nbufs; i++)
		ts_buf_free(&sp->bufs[i]);
	sp->nbufs = 0;
	for (i = 0; i < sp->nraw; i++)
		ts_free(sp->raw[i]);
	ts_free(sp->raw);
	sp->raw = NULL;
	sp->nraw = 0;
	orc_stripe_footer_free(&sp->sf);
}

bool
orc_col_load(orc_stripe *sp, orc_col *c, ts_err *err)
{
	int			i;
	const orc_encoding *enc;
	bool		v2;
	int			ok = c->ot->kind;

	memset(c->s, 0, sizeof(c->s));
	memset(c->slen, 0, sizeof(c->slen));
	ts_free(c->dict_off);
	c->dict_off = NULL;
	c->dict_n = 0;
	c->dict = false;

	for (i = 0; i < sp->sf.nstreams; i++)
	{
		const orc_stream_info *st = &sp->sf.streams[i];
		ts_buf	   *b;

		if (st->column != c->id || st->kind < 0 || st->kind >= ORC_NSTREAMS ||
			st->kind == ORC_STREAM_DICTIONARY_COUNT)
			continue;
		if (c->s[st->kind])
			return ts_error(err, TS_ERR_CORRUPT, "duplicate stream kind %d", st->kind);
		if (sp->nbufs == sp->bufcap)
		{
			int			ncap = sp->bufcap ? sp->bufcap * 2 : 16;
			ts_buf	   *nb = ts_realloc(sp->bufs, (size_t) ncap * sizeof(ts_buf));

			if (!nb)
				return ts_error_nomem(err, NULL);
			sp->bufs = nb;
			sp->bufcap = ncap;
		}
		b = &sp->bufs[sp->nbufs];
		if (i < sp->nraw && sp->raw[i] != NULL)
		{
			/* read with the stripe's other streams (orc_reader.c) */
			if (!orc_section_from(sp->tail, &sp->raw[i], (size_t) st->length, ORC_MAX_STREAM, b,
								  err))
			{
				ts_buf_free(b);
				return ts_error_context(err, "stream kind %d", st->kind);
			}
		}
		else if (!orc_read_section(sp->file, sp->tail, st->offset, st->length, ORC_MAX_STREAM, b,
								   sp->bytes_read, err))
		{
			ts_buf_free(b);
			return ts_error_context(err, "stream kind %d", st->kind);
		}
		sp->nbufs++;
		c->s[st->kind] = b->data ? b->data : (const uint8_t *) "";
		c->slen[st->kind] = b->len;
	}

	if (c->id >= (uint32_t) sp->sf.nencodings)
		return ts_error(err, TS_ERR_CORRUPT, "stripe footer has no encoding for ORC column %u", c->id);
	enc = &sp->sf.encodings[c->id];
	if (enc->kind < ORC_ENC_DIRECT || enc->kind > ORC_ENC_DICTIONARY_V2)
		return ts_error(err, TS_ERR_UNSUPPORTED, "unknown column encoding %d", enc->kind);
	v2 = enc->kind == ORC_ENC_DIRECT_V2 || enc->kind == ORC_ENC_DICTIONARY_V2;
	c->dict = enc->kind == ORC_ENC_DICTIONARY || enc->kind == ORC_ENC_DICTIONARY_V2;
	if (c->dict && ok != ORC_STRING && ok != ORC_VARCHAR && ok != ORC_CHAR)
		return ts_error(err, TS_ERR_UNSUPPORTED, "dictionary encoding on ORC %s column",
						orc_type_kind_name(ok));

	c->has_present = c->s[ORC_STREAM_PRESENT] != NULL;
	if (c->has_present)
		orc_bool_rle_init(&c->present, c->s[ORC_STREAM_PRESENT], c->slen[ORC_STREAM_PRESENT]);

#define S(k) c->s[k], c->slen[k]
	switch (ok)
	{
		case ORC_BOOLEAN:
			orc_bool_rle_init(&c->bools, S(ORC_STREAM_DATA));
			break;
		case ORC_BYTE:
			orc_byte_rle_init(&c->bytes, S(ORC_STREAM_DATA));
			break;
		case ORC_SHORT:
		case ORC_INT:
		case ORC_LONG:
		case ORC_DATE:
			orc_int_rle_init(&c->ints, S(ORC_STREAM_DATA), true, v2);
			break;
		case ORC_FLOAT:
		case ORC_DOUBLE:
			ts_cursor_init(&c->raw, S(ORC_STREAM_DATA));
			break;
		case ORC_STRING:
		case ORC_VARCHAR:
		case ORC_CHAR:
		case ORC_BINARY:
			if (c->dict)
			{
				orc_int_rle lens;
				uint64_t	total = 0;
				int64_t		k;
				size_t		dlen = c->slen[ORC_STREAM_DICTIONARY_DATA];

				orc_int_rle_init(&c->ints, S(ORC_STREAM_DATA), false, v2);
				orc_int_rle_init(&lens, S(ORC_STREAM_LENGTH), false, v2);
				/* each dictionary entry needs at least a bit of LENGTH stream */
				if ((uint64_t) enc->dictionary_size > (uint64_t) c->slen[ORC_STREAM_LENGTH] * 512 + 512)
					return ts_error(err, TS_ERR_CORRUPT, "dictionary size %u exceeds its LENGTH stream",
									enc->dictionary_size);
				c->dict_off = ts_malloc(((size_t) enc->dictionary_size + 1) * sizeof(uint64_t));
				if (!c->dict_off)
					return ts_error_nomem(err, NULL);
				c->dict_off[0] = 0;
				for (k = 0; k < (int64_t) enc->dictionary_size; k++)
				{
					int64_t		l;

					if ((k & 65535) == 65535 && !TS_CHECK_INTERRUPTS(err))
						return false;
					if (!orc_int_rle_next(&lens, &l, err))
						return ts_error_context(err, "dictionary LENGTH stream");
					if (l < 0 || (uint64_t) l > dlen - total)
						return ts_error(err, TS_ERR_CORRUPT,
										"dictionary entry %lld of length %lld runs past DICTIONARY_DATA (%zu bytes)",
										(long long) k, (long long) l, dlen);
					total += (uint64_t) l;
					c->dict_off[k + 1] = total;
				}
				c->dict_n = enc->dictionary_size;
				c->dict_data = c->s[ORC_STREAM_DICTIONARY_DATA];
			}
			else
			{
				ts_cursor_init(&c->raw, S(ORC_STREAM_DATA));
				orc_int_rle_init(&c->ints2, S(ORC_STREAM_LENGTH), false, v2);
			}
			break;
		case ORC_DECIMAL:
			ts_cursor_init(&c->raw, S(ORC_STREAM_DATA));
			orc_int_rle_init(&c->ints2, S(ORC_STREAM_SECONDARY), true, v2);
			break;
		case ORC_TIMESTAMP:
		case ORC_TIMESTAMP_INSTANT:
			orc_int_rle_init(&c->ints, S(ORC_STREAM_DATA), true, v2);
			orc_int_rle_init(&c->ints2, S(ORC_STREAM_SECONDARY), false, v2);
			if (!sp->tz || strcmp(sp->tzname, sp->sf.writer_timezone) != 0)
			{
				orc_tz_free(sp->tz);
				sp->tz = NULL;
				if (!orc_tz_load(sp->sf.writer_timezone, &sp->tz, err))
					return false;
				strcpy(sp->tzname, sp->sf.writer_timezone);
			}
			c->tz = sp->tz;
			break;
		case ORC_LIST:
		case ORC_MAP:
			orc_int_rle_init(&c->ints, S(ORC_STREAM_LENGTH), false, v2);
			break;
		case ORC_STRUCT:
			break;
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "ORC %s columns are not supported",
							orc_type_kind_name(ok));
	}
#undef S

	for (i = 0; i < c->nchildren; i++)
		if (c->children[i])
		{
			if (!orc_col_load(sp, c->children[i], err))
				return false;
		}
	return true;
}

/* ---- value decoding --------------------------------------------------- */

static const int64_t pow10_64[19] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	INT64_C(10000000000), INT64_C(100000000000), INT64_C(1000000000000),
	INT64_C(10000000000000), INT64_C(100000000000000), INT64_C(1000000000000000),
	INT64_C(10000000000000000), INT64_C(100000000000000000), INT64_C(1000000000000000000)
};

static bool
rescale_decimal(ts_int128 v, int64_t from, int to, ts_int128 *out, ts_err *err)
{
	const ts_int128 max = (ts_int128) (((unsigned __int128) 1 << 127) - 1);

	if (from < -38 || from > 38)
		return ts_error(err, TS_ERR_CORRUPT, "decimal scale %lld out of range", (long long) from);
	while (from < to)
	{
		int			k = (int) (to - from) > 18 ? 18 : (int) (to - from);
		ts_int128	m = pow10_64[k];

		if (v > max / m || v < -(max / m))
			return ts_error(err, TS_ERR_CORRUPT, "decimal value overflows 128 bits");
		v *= m;
		from += k;
	}
	while (from > to)
	{
		int			k = (int) (from - to) > 18 ? 18 : (int) (from - to);
		ts_int128	m = pow10_64[k];
		ts_int128	q = v / m,
					rem = v % m;

		/* round half away from zero */
		if (rem * 2 >= m)
			q++;
		else if (rem * 2 <= -m)
			q--;
		v = q;
		from -= k;
	}
	*out = v;
	return true;
}

static bool
read_string(orc_col *c, ts_value *v, ts_err *err)
{
	int64_t		x;

	if (c->dict)
	{
		if (!orc_int_rle_next(&c->ints, &x, err))
			return false;
		if (x < 0 || x >= c->dict_n)
			return ts_error(err, TS_ERR_CORRUPT, "dictionary index %lld out of range (%lld entries)",
							(long long) x, (long long) c->dict_n);
		v->v.s.p = c->dict_data + c->dict_off[x];
		v->v.s.len = (uint32_t) (c->dict_off[x + 1] - c->dict_off[x]);
		return true;
	}
	if (!orc_int_rle_next(&c->ints2, &x, err))
		return ts_error_context(err, "LENGTH stream");
	if (x < 0 || (uint64_t) x > ts_cursor_left(&c->raw) || x > UINT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "string of length %lld runs past the DATA stream",
						(long long) x);
	v->v.s.p = c->raw.p;
	v->v.s.len = (uint32_t) x;
	c->raw.p += x;
	return true;
}

static bool
read_primitive(orc_col *c, ts_value *v, ts_err *err)
{
	int			ok = c->ot->kind;
	int64_t		x;

	switch (ok)
	{
		case ORC_BOOLEAN:
			{
				bool		b;

				if (!orc_bool_rle_next(&c->bools, &b, err))
					return false;
				v->v.i = b;
				return true;
			}
		case ORC_BYTE:
			{
				uint8_t		b;

				if (!orc_byte_rle_next(&c->bytes, &b, err))
					return false;
				v->v.i = (int8_t) b;
				return true;
			}
		case ORC_SHORT:
		case ORC_INT:
		case ORC_LONG:
		case ORC_DATE:
			return orc_int_rle_next(&c->ints, &v->v.i, err);
		case ORC_FLOAT:
			{
				uint32_t	u;
				float		f;

				if (!ts_cursor_le32(&c->raw, &u, err))
					return ts_error(err, TS_ERR_CORRUPT, "FLOAT DATA stream too short");
				memcpy(&f, &u, 4);
				if (c->want->kind == TS_DOUBLE)
					v->v.d = f;
				else
					v->v.f = f;
				return true;
			}
		case ORC_DOUBLE:
			{
				uint64_t	u;
				double		d;

				if (!ts_cursor_le64(&c->raw, &u, err))
					return ts_error(err, TS_ERR_CORRUPT, "DOUBLE DATA stream too short");
				memcpy(&d, &u, 8);
				if (c->want->kind == TS_FLOAT)
					v->v.f = (float) d;
				else
					v->v.d = d;
				return true;
			}
		case ORC_STRING:
		case ORC_VARCHAR:
		case ORC_CHAR:
		case ORC_BINARY:
			return read_string(c, v, err);
		case ORC_DECIMAL:
			{
				ts_int128	u;

				if (!orc_read_varint128(&c->raw, &u, err))
					return false;
				if (!orc_int_rle_next(&c->ints2, &x, err))
					return ts_error_context(err, "decimal SECONDARY stream");
				return rescale_decimal(u, x, c->want->scale, &v->v.dec, err);
			}
		case ORC_TIMESTAMP:
		case ORC_TIMESTAMP_INSTANT:
			{
				int64_t		secs,
							nraw,
							nanos;
				int			z;

				if (!orc_int_rle_next(&c->ints, &secs, err))
					return false;
				if (!orc_int_rle_next(&c->ints2, &nraw, err))
					return ts_error_context(err, "timestamp SECONDARY stream");
				z = (int) (nraw & 7);
				nanos = (int64_t) ((uint64_t) nraw >> 3);
				if (z != 0)
				{
					if (nanos > 999999999)
						return ts_error(err, TS_ERR_CORRUPT, "bad timestamp nanos");
					nanos *= pow10_64[z + 1];
				}
				if (nanos < 0 || nanos > 999999999)
					return ts_error(err, TS_ERR_CORRUPT, "timestamp nanos %lld out of range",
									(long long) nanos);
				if (secs > INT64_MAX / 1000 - ORC_TS_BASE - 1 || secs < INT64_MIN / 1000 + ORC_TS_BASE + 1)
					return ts_error(err, TS_ERR_CORRUPT, "timestamp seconds out of range");
				/*
				 * TIMESTAMP: seconds since 2015-01-01 00:00:00 in the writer's
				 * zone, of the instant Java derived from the wall clock;
				 * TIMESTAMP_INSTANT: since 2015-01-01 UTC.
				 */
				if (ok == ORC_TIMESTAMP)
					secs += ORC_TS_BASE - orc_tz_offset(c->tz, ORC_TS_BASE);
				else
					secs += ORC_TS_BASE;
				/* the writer truncated negative millis toward zero */
				if (secs < 0 && nanos > 999999)
					secs -= 1;
				/*
				 * TIMESTAMP: back to the wall clock in the writer zone.
				 * TIMESTAMP_INSTANT (Paimon TIMESTAMP_LTZ): the instant itself,
				 * as the Java-written test tables show (a writer using
				 * orc.timestamp-ltz.legacy.type would have shifted it by the
				 * JVM zone; that cannot be told from the file).
				 */
				if (ok == ORC_TIMESTAMP)
					secs += orc_tz_offset(c->tz, secs);
				v->v.ts.millis = secs * 1000 + nanos / 1000000;
				v->v.ts.nanos = (int32_t) (nanos % 1000000);
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "ORC %s columns are not supported",
							orc_type_kind_name(ok));
	}
}

static void *
arena_values(orc_stripe *sp, int64_t n, ts_err *err)
{
	void	   *p;

	sp->nested_items += n;
	if (n < 0 || sp->nested_items > ORC_MAX_NESTED)
	{
		ts_error(err, TS_ERR_CORRUPT, "more than %lld nested values in one batch",
				 (long long) ORC_MAX_NESTED);
		return NULL;
	}
	p = ts_arena_alloc(&sp->arena, n ? (size_t) n * sizeof(ts_value) : 1);
	if (!p)
		ts_error_nomem(err, "for nested values");
	return p;
}

bool
orc_col_read(orc_stripe *sp, orc_col *c, int64_t n, ts_value *out, size_t stride, ts_err *err)
{
	int64_t		i;
	int64_t		m = 0;
	ts_type_kind wk = c->want->kind;

	for (i = 0; i < n; i++)
	{
		ts_value   *v = out + (size_t) i * stride;
		bool		present = true;

		if (c->has_present && !orc_bool_rle_next(&c->present, &present, err))
			return ts_error_context(err, "PRESENT stream");
		memset(v, 0, sizeof(*v));
		v->isnull = !present;
		if (present)
			m++;
	}
	if (m == 0)
		return true;

	if (wk == TS_ROW)
	{
		int			nf = c->nchildren;
		ts_value   *block = arena_values(sp, m * (nf ? nf : 1), err);
		int64_t		j = 0;
		int			k;

		if (!block)
			return false;
		for (k = 0; k < nf; k++)
		{
			if (c->children[k])
			{
				if (!orc_col_read(sp, c->children[k], m, block + k, nf, err))
					return ts_error_context(err, "field \"%s\"", c->want->fields[k].name);
			}
			else
			{
				int64_t		q;

				for (q = 0; q < m; q++)
				{
					memset(&block[q * nf + k], 0, sizeof(ts_value));
					block[q * nf + k].isnull = true;
				}
			}
		}
		for (i = 0; i < n; i++)
		{
			ts_value   *v = out + (size_t) i * stride;

			if (v->isnull)
				continue;
			v->v.nested.n = nf;
			v->v.nested.items = block + j * nf;
			j++;
		}
		return true;
	}
	if (wk == TS_ARRAY || wk == TS_MAP || wk == TS_MULTISET)
	{
		int			per = wk == TS_ARRAY ? 1 : 2;
		int64_t		total = 0;
		ts_value   *items;

		/* first pass: lengths (kept in nested.n) */
		for (i = 0; i < n; i++)
		{
			ts_value   *v = out + (size_t) i * stride;
			int64_t		len;

			if (v->isnull)
				continue;
			if (!orc_int_rle_next(&c->ints, &len, err))
				return ts_error_context(err, "LENGTH stream");
			if (len < 0 || len > ORC_MAX_NESTED || total + len > ORC_MAX_NESTED)
				return ts_error(err, TS_ERR_CORRUPT, "list/map length %lld out of range",
								(long long) len);
			v->v.nested.n = (int32_t) len;
			total += len;
		}
		items = arena_values(sp, total * per, err);
		if (!items)
			return false;
		if (per == 1)
		{
			if (!orc_col_read(sp, c->children[0], total, items, 1, err))
				return ts_error_context(err, "array element");
		}
		else
		{
			if (!orc_col_read(sp, c->children[0], total, items, 2, err))
				return ts_error_context(err, "map key");
			if (!orc_col_read(sp, c->children[1], total, items + 1, 2, err))
				return ts_error_context(err, "map value");
		}
		total = 0;
		for (i = 0; i < n; i++)
		{
			ts_value   *v = out + (size_t) i * stride;

			if (v->isnull)
				continue;
			v->v.nested.items = items + total * per;
			total += v->v.nested.n;
		}
		return true;
	}
	for (i = 0; i < n; i++)
	{
		ts_value   *v = out + (size_t) i * stride;

		if ((i & 16383) == 16383 && !TS_CHECK_INTERRUPTS(err))
			return false;
		if (v->isnull)
			continue;
		if (!read_primitive(c, v, err))
			return false;
	}
	return true;
}
