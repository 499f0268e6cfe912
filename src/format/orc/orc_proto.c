/*
 * orc_proto.c - decoding of the ORC file tail: PostScript, Footer,
 * Metadata (stripe statistics) and StripeFooter protobuf messages.
 *
 * Owns: a tiny bounds-checked protobuf wire-format walker and the mapping
 * of the orc_proto.proto fields the reader needs into orc_internal.h
 * structs.  Unknown fields are skipped, as protobuf requires.
 */
#include <string.h>

#include "format/orc/orc_internal.h"

/* ---- wire format ------------------------------------------------------ */

typedef struct pb_field
{
	uint32_t	num;
	int			wt;
	uint64_t	u;				/* varint / fixed value */
	const uint8_t *p;			/* length-delimited payload */
	size_t		len;
} pb_field;

/* Read the next field; false at end (err untouched) or on error (err set). */
static bool
pb_next(ts_cursor *c, pb_field *f, bool *ok, ts_err *err)
{
	uint64_t	tag;

	*ok = true;
	if (ts_cursor_left(c) == 0)
		return false;
	if (!ts_cursor_uvarint(c, &tag, err))
		goto fail;
	f->num = (uint32_t) (tag >> 3);
	f->wt = (int) (tag & 7);
	f->p = NULL;
	f->len = 0;
	f->u = 0;
	switch (f->wt)
	{
		case 0:
			if (!ts_cursor_uvarint(c, &f->u, err))
				goto fail;
			break;
		case 1:
			if (!ts_cursor_le64(c, &f->u, err))
				goto fail;
			break;
		case 2:
			{
				uint64_t	l;

				if (!ts_cursor_uvarint(c, &l, err))
					goto fail;
				if (l > ts_cursor_left(c))
				{
					ts_error(err, TS_ERR_CORRUPT, "protobuf field %u length %llu exceeds message",
							 f->num, (unsigned long long) l);
					goto fail;
				}
				f->p = c->p;
				f->len = (size_t) l;
				c->p += l;
				break;
			}
		case 5:
			{
				uint32_t	v;

				if (!ts_cursor_le32(c, &v, err))
					goto fail;
				f->u = v;
				break;
			}
		default:
			ts_error(err, TS_ERR_CORRUPT, "unsupported protobuf wire type %d", f->wt);
			goto fail;
	}
	return true;
fail:
	*ok = false;
	return false;
}

static int64_t
pb_sint(uint64_t u)
{
	return (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
}

/* grow an array to hold n+1 elements of size sz */
static bool
grow(void **arr, int *cap, int n, size_t sz, ts_err *err)
{
	if (n < *cap)
		return true;
	{
		int			ncap = *cap ? *cap * 2 : 8;
		void	   *p;

		if (ncap > (1 << 24))
			return ts_error(err, TS_ERR_CORRUPT, "too many protobuf entries");
		p = ts_realloc(*arr, (size_t) ncap * sz);
		if (!p)
			return ts_error_nomem(err, "decoding ORC metadata");
		memset((char *) p + (size_t) *cap * sz, 0, (size_t) (ncap - *cap) * sz);
		*arr = p;
		*cap = ncap;
	}
	return true;
}

/* ---- postscript ------------------------------------------------------- */

bool
orc_parse_postscript(const uint8_t *p, size_t len, orc_tail *tail, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;
	bool		have_magic = false;

	ts_cursor_init(&c, p, len);
	tail->compression = ORC_COMP_NONE;
	tail->block_size = 256 * 1024;
	while (pb_next(&c, &f, &ok, err))
	{
		switch (f.num)
		{
			case 1:
				tail->footer_length = f.u;
				break;
			case 2:
				tail->compression = (int) f.u;
				break;
			case 3:
				tail->block_size = f.u;
				break;
			case 5:
				tail->metadata_length = f.u;
				break;
			case 8000:
				if (f.wt == 2 && f.len == 3 && memcmp(f.p, "ORC", 3) == 0)
					have_magic = true;
				break;
			default:
				break;
		}
	}
	if (!ok)
		return ts_error_context(err, "postscript");
	if (!have_magic)
		return ts_error(err, TS_ERR_CORRUPT, "postscript has no \"ORC\" magic");
	return true;
}

/* ---- footer ----------------------------------------------------------- */

static bool
parse_stripe_info(const uint8_t *p, size_t len, orc_stripe_info *s, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;

	ts_cursor_init(&c, p, len);
	while (pb_next(&c, &f, &ok, err))
	{
		switch (f.num)
		{
			case 1:
				s->offset = f.u;
				break;
			case 2:
				s->index_length = f.u;
				break;
			case 3:
				s->data_length = f.u;
				break;
			case 4:
				s->footer_length = f.u;
				break;
			case 5:
				s->nrows = f.u;
				break;
			default:
				break;
		}
	}
	return ok;
}

static bool
add_u32(uint32_t **arr, int *n, int *cap, uint64_t v, ts_err *err)
{
	if (!grow((void **) arr, cap, *n, sizeof(uint32_t), err))
		return false;
	if (v > UINT32_MAX)
		return ts_error(err, TS_ERR_CORRUPT, "type subtype id %llu out of range",
						(unsigned long long) v);
	(*arr)[(*n)++] = (uint32_t) v;
	return true;
}

static bool
parse_type(const uint8_t *p, size_t len, orc_type *t, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;
	int			subcap = 0,
				namecap = 0;

	t->paimon_id = -1;
	ts_cursor_init(&c, p, len);
	while (pb_next(&c, &f, &ok, err))
	{
		switch (f.num)
		{
			case 1:
				t->kind = (int) f.u;
				break;
			case 2:
				if (f.wt == 2)
				{
					ts_cursor	pc;

					ts_cursor_init(&pc, f.p, f.len);
					while (ts_cursor_left(&pc) > 0)
					{
						uint64_t	v;

						if (!ts_cursor_uvarint(&pc, &v, err) ||
							!add_u32(&t->subtypes, &t->nsubtypes, &subcap, v, err))
							return false;
					}
				}
				else if (!add_u32(&t->subtypes, &t->nsubtypes, &subcap, f.u, err))
					return false;
				break;
			case 3:
				if (f.wt != 2)
					return ts_error(err, TS_ERR_CORRUPT, "bad field name encoding");
				if (!grow((void **) &t->field_names, &namecap, t->nfield_names, sizeof(char *), err))
					return false;
				t->field_names[t->nfield_names] = ts_strndup((const char *) f.p, f.len);
				if (!t->field_names[t->nfield_names])
					return ts_error_nomem(err, NULL);
				t->nfield_names++;
				break;
			case 4:
				t->max_length = (uint32_t) f.u;
				break;
			case 5:
				t->precision = (uint32_t) f.u;
				break;
			case 6:
				t->scale = (uint32_t) f.u;
				break;
			case 7:
				if (f.wt == 2)
				{
					ts_cursor	ac;
					pb_field	af;
					bool		aok;
					const uint8_t *key = NULL,
							   *val = NULL;
					size_t		klen = 0,
								vlen = 0;

					ts_cursor_init(&ac, f.p, f.len);
					while (pb_next(&ac, &af, &aok, err))
					{
						if (af.num == 1 && af.wt == 2)
						{
							key = af.p;
							klen = af.len;
						}
						else if (af.num == 2 && af.wt == 2)
						{
							val = af.p;
							vlen = af.len;
						}
					}
					if (!aok)
						return false;
					if (key && val && klen == 9 && memcmp(key, "paimon.id", 9) == 0)
					{
						int64_t		id = 0;
						size_t		i;
						bool		neg = false;

						for (i = 0; i < vlen; i++)
						{
							if (i == 0 && val[i] == '-')
							{
								neg = true;
								continue;
							}
							if (val[i] < '0' || val[i] > '9' || id > INT32_MAX)
								return ts_error(err, TS_ERR_CORRUPT, "bad paimon.id attribute");
							id = id * 10 + (val[i] - '0');
						}
						if (vlen == 0 || id > INT32_MAX)
							return ts_error(err, TS_ERR_CORRUPT, "bad paimon.id attribute");
						t->paimon_id = (int32_t) (neg ? -id : id);
					}
				}
				break;
			default:
				break;
		}
	}
	return ok;
}

bool
orc_parse_footer(uint8_t *buf, size_t len, orc_tail *tail, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;
	int			scap = 0,
				tcap = 0;
	int			i;

	tail->footer_buf = buf;
	ts_cursor_init(&c, buf, len);
	while (pb_next(&c, &f, &ok, err))
	{
		switch (f.num)
		{
			case 3:
				if (f.wt != 2)
					return ts_error(err, TS_ERR_CORRUPT, "footer: bad stripe entry");
				if (!grow((void **) &tail->stripes, &scap, tail->nstripes, sizeof(orc_stripe_info), err))
					return false;
				if (!parse_stripe_info(f.p, f.len, &tail->stripes[tail->nstripes], err))
					return ts_error_context(err, "footer stripe %d", tail->nstripes);
				tail->nstripes++;
				break;
			case 4:
				if (f.wt != 2)
					return ts_error(err, TS_ERR_CORRUPT, "footer: bad type entry");
				if (!grow((void **) &tail->types, &tcap, tail->ntypes, sizeof(orc_type), err))
					return false;
				tail->ntypes++;
				if (!parse_type(f.p, f.len, &tail->types[tail->ntypes - 1], err))
					return ts_error_context(err, "footer type %d", tail->ntypes - 1);
				break;
			case 6:
				tail->nrows = f.u;
				break;
			default:
				break;
		}
	}
	if (!ok)
		return ts_error_context(err, "footer");
	if (tail->ntypes == 0 || tail->types[0].kind != ORC_STRUCT)
		return ts_error(err, TS_ERR_CORRUPT, "footer: root type is not a struct");
	/* validate the type tree: subtypes point forward, names match */
	for (i = 0; i < tail->ntypes; i++)
	{
		orc_type   *t = &tail->types[i];
		int			j;

		if (t->kind < 0 || t->kind > ORC_TIMESTAMP_INSTANT)
			return ts_error(err, TS_ERR_UNSUPPORTED, "footer: unknown ORC type kind %d (column %d)",
							t->kind, i);
		for (j = 0; j < t->nsubtypes; j++)
			if (t->subtypes[j] <= (uint32_t) i || t->subtypes[j] >= (uint32_t) tail->ntypes)
				return ts_error(err, TS_ERR_CORRUPT, "footer: column %d has bad subtype %u",
								i, t->subtypes[j]);
		if (t->kind == ORC_STRUCT && t->nfield_names != t->nsubtypes)
			return ts_error(err, TS_ERR_CORRUPT, "footer: struct column %d has %d names for %d fields",
							i, t->nfield_names, t->nsubtypes);
		if (t->kind == ORC_LIST && t->nsubtypes != 1)
			return ts_error(err, TS_ERR_CORRUPT, "footer: list column %d needs 1 subtype", i);
		if (t->kind == ORC_MAP && t->nsubtypes != 2)
			return ts_error(err, TS_ERR_CORRUPT, "footer: map column %d needs 2 subtypes", i);
		if (t->kind != ORC_STRUCT && t->kind != ORC_LIST && t->kind != ORC_MAP &&
			t->kind != ORC_UNION && t->nsubtypes != 0)
			return ts_error(err, TS_ERR_CORRUPT, "footer: primitive column %d has subtypes", i);
	}
	return true;
}

/* ---- metadata (stripe statistics) ------------------------------------- */

static bool
parse_col_stats(const uint8_t *p, size_t len, orc_col_stats *s, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;

	ts_cursor_init(&c, p, len);
	while (pb_next(&c, &f, &ok, err))
	{
		ts_cursor	sc;
		pb_field	sf;
		bool		sok = true;

		switch (f.num)
		{
			case 1:
				s->has_number_of_values = true;
				s->number_of_values = f.u;
				break;
			case 10:
				s->has_has_null = true;
				s->has_null = f.u != 0;
				break;
			case 2:				/* IntegerStatistics */
			case 3:				/* DoubleStatistics */
			case 4:				/* StringStatistics */
			case 6:				/* DecimalStatistics */
			case 7:				/* DateStatistics */
			case 9:				/* TimestampStatistics */
				if (f.wt != 2)
					return ts_error(err, TS_ERR_CORRUPT, "bad column statistics");
				s->kind = f.num == 2 ? ORC_STATS_INT : f.num == 3 ? ORC_STATS_DOUBLE :
					f.num == 4 ? ORC_STATS_STRING : f.num == 6 ? ORC_STATS_DECIMAL :
					f.num == 7 ? ORC_STATS_DATE : ORC_STATS_TIMESTAMP;
				ts_cursor_init(&sc, f.p, f.len);
				while (pb_next(&sc, &sf, &sok, err))
				{
					bool		is_min;

					if (f.num == 9)
					{
						/* minimumUtc / maximumUtc only */
						if (sf.num != 3 && sf.num != 4)
							continue;
						is_min = sf.num == 3;
					}
					else
					{
						if (sf.num != 1 && sf.num != 2)
							continue;
						is_min = sf.num == 1;
					}
					if (f.num == 3)
					{
						double		d;

						if (sf.wt != 1)
							continue;
						memcpy(&d, &sf.u, sizeof(d));
						if (is_min)
							s->dmin = d;
						else
							s->dmax = d;
					}
					else if (f.num == 4 || f.num == 6)
					{
						if (sf.wt != 2 || sf.len > UINT32_MAX)
							continue;
						if (is_min)
						{
							s->smin = sf.p;
							s->smin_len = (uint32_t) sf.len;
						}
						else
						{
							s->smax = sf.p;
							s->smax_len = (uint32_t) sf.len;
						}
					}
					else
					{
						if (sf.wt != 0)
							continue;
						if (is_min)
							s->imin = pb_sint(sf.u);
						else
							s->imax = pb_sint(sf.u);
					}
					if (is_min)
						s->has_min = true;
					else
						s->has_max = true;
				}
				if (!sok)
					return false;
				break;
			default:
				break;
		}
	}
	return ok;
}

bool
orc_parse_metadata(uint8_t *buf, size_t len, orc_tail *tail, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;
	int			cap = 0;

	tail->metadata_buf = buf;
	ts_cursor_init(&c, buf, len);
	while (pb_next(&c, &f, &ok, err))
	{
		ts_cursor	sc;
		pb_field	sf;
		bool		sok;
		orc_stripe_stats *ss;
		int			ccap = 0;

		if (f.num != 1 || f.wt != 2)
			continue;
		if (!grow((void **) &tail->stripe_stats, &cap, tail->nstripe_stats,
				  sizeof(orc_stripe_stats), err))
			return false;
		ss = &tail->stripe_stats[tail->nstripe_stats++];
		ts_cursor_init(&sc, f.p, f.len);
		while (pb_next(&sc, &sf, &sok, err))
		{
			if (sf.num != 1 || sf.wt != 2)
				continue;
			if (!grow((void **) &ss->cols, &ccap, ss->ncols, sizeof(orc_col_stats), err))
				return false;
			if (!parse_col_stats(sf.p, sf.len, &ss->cols[ss->ncols], err))
				return ts_error_context(err, "metadata: stripe %d column %d statistics",
										tail->nstripe_stats - 1, ss->ncols);
			ss->ncols++;
		}
		if (!sok)
			return ts_error_context(err, "metadata");
	}
	if (!ok)
		return ts_error_context(err, "metadata");
	return true;
}

void
orc_tail_free(orc_tail *tail)
{
	int			i,
				j;

	for (i = 0; i < tail->ntypes; i++)
	{
		for (j = 0; j < tail->types[i].nfield_names; j++)
			ts_free(tail->types[i].field_names[j]);
		ts_free(tail->types[i].field_names);
		ts_free(tail->types[i].subtypes);
	}
	ts_free(tail->types);
	ts_free(tail->stripes);
	for (i = 0; i < tail->nstripe_stats; i++)
		ts_free(tail->stripe_stats[i].cols);
	ts_free(tail->stripe_stats);
	ts_free(tail->footer_buf);
	ts_free(tail->metadata_buf);
	memset(tail, 0, sizeof(*tail));
}

/* ---- stripe footer ---------------------------------------------------- */

bool
orc_parse_stripe_footer(const uint8_t *p, size_t len, orc_stripe_footer *sf, ts_err *err)
{
	ts_cursor	c;
	pb_field	f;
	bool		ok;
	int			scap = 0,
				ecap = 0;

	memset(sf, 0, sizeof(*sf));
	ts_cursor_init(&c, p, len);
	while (pb_next(&c, &f, &ok, err))
	{
		ts_cursor	mc;
		pb_field	mf;
		bool		mok;

		if (f.num == 1 && f.wt == 2)
		{
			orc_stream_info *s;

			if (!grow((void **) &sf->streams, &scap, sf->nstreams, sizeof(orc_stream_info), err))
				return false;
			s = &sf->streams[sf->nstreams++];
			ts_cursor_init(&mc, f.p, f.len);
			while (pb_next(&mc, &mf, &mok, err))
			{
				if (mf.num == 1)
					s->kind = (int) mf.u;
				else if (mf.num == 2)
				{
					if (mf.u > UINT32_MAX)
						return ts_error(err, TS_ERR_CORRUPT, "stream column id out of range");
					s->column = (uint32_t) mf.u;
				}
				else if (mf.num == 3)
					s->length = mf.u;
			}
			if (!mok)
				return false;
		}
		else if (f.num == 2 && f.wt == 2)
		{
			orc_encoding *e;

			if (!grow((void **) &sf->encodings, &ecap, sf->nencodings, sizeof(orc_encoding), err))
				return false;
			e = &sf->encodings[sf->nencodings++];
			ts_cursor_init(&mc, f.p, f.len);
			while (pb_next(&mc, &mf, &mok, err))
			{
				if (mf.num == 1)
					e->kind = (int) mf.u;
				else if (mf.num == 2)
					e->dictionary_size = (uint32_t) mf.u;
			}
			if (!mok)
				return false;
		}
		else if (f.num == 3 && f.wt == 2)
		{
			size_t		n = f.len < sizeof(sf->writer_timezone) - 1 ?
				f.len : sizeof(sf->writer_timezone) - 1;

			memcpy(sf->writer_timezone, f.p, n);
			sf->writer_timezone[n] = '\0';
		}
	}
	return ok;
}

void
orc_stripe_footer_free(orc_stripe_footer *sf)
{
	ts_free(sf->streams);
	ts_free(sf->encodings);
	memset(sf, 0, sizeof(*sf));
}
