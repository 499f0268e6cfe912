/*
 * write_stats.c - the column statistics of a data file being written.
 *
 * Owns: Java Paimon's metadata.stats-mode (none, counts, truncate(n),
 * full) for one column: null counts, min and max in Java's order
 * (expr/predicate.h ts_value_order), strings truncated to n code points
 * with the max's last code point incremented so it stays an upper bound
 * (TruncateSimpleColStatsCollector); bounds that cannot be exact or are
 * not ordered (binaries, nested types, INT96 timestamps) are written as
 * unknown (null), which readers never prune on; nested columns have no
 * null count either (as Java's Parquet statistics extractor).
 */
#include <stdlib.h>
#include <string.h>

#include "base/ts_base.h"
#include "base/ts_type_class.h"
#include "base/ts_utf8.h"
#include "expr/predicate.h"
#include "meta/binary_row.h"
#include "write/write_internal.h"

bool
ts_stats_mode_parse(const char *value, ts_stats_mode *mode, int *truncate, ts_err *err)
{
	*truncate = 16;
	if (value == NULL || strcmp(value, "truncate(16)") == 0)
		*mode = TS_STATS_TRUNCATE;
	else if (strcmp(value, "none") == 0)
		*mode = TS_STATS_NONE;
	else if (strcmp(value, "counts") == 0)
		*mode = TS_STATS_COUNTS;
	else if (strcmp(value, "full") == 0)
		*mode = TS_STATS_FULL;
	else if (strncmp(value, "truncate(", 9) == 0)
	{
		char	   *end;
		long		n = strtol(value + 9, &end, 10);

		if (n <= 0 || n > 1024 || strcmp(end, ")") != 0)
			return ts_error(err, TS_ERR_INVALID, "invalid value for option \"metadata.stats-mode\": \"%s\"",
							value);
		*mode = TS_STATS_TRUNCATE;
		*truncate = (int) n;
	}
	else
		return ts_error(err, TS_ERR_INVALID, "invalid value for option \"metadata.stats-mode\": \"%s\"",
						value);
	return true;
}

/* ts_col_stats.order: how a value is compared with the bounds (fixed per column) */
enum
{
	STATS_ORDER_NONE, STATS_ORDER_INT, STATS_ORDER_DECIMAL, STATS_ORDER_TIMESTAMP,
	STATS_ORDER_VALUE
};

/*
 * types whose bounds we keep: as Java's ParquetSimpleStatsExtractor, none
 * for binaries, nested types and timestamps stored as INT96 (precision > 6)
 */
static bool
bounded_type(const ts_type *t)
{
	ts_type_kind k = t->kind;

	if ((k == TS_TIMESTAMP || k == TS_TIMESTAMP_LTZ) && t->precision > 6)
		return false;
	return ts_type_is_plain_scalar(k) && k != TS_BINARY && k != TS_VARBINARY;
}

void
ts_col_stats_init(ts_col_stats *s, const ts_type *t, ts_stats_mode mode, int truncate)
{
	memset(s, 0, sizeof(*s));
	s->type = t;
	s->mode = mode;
	s->truncate = truncate;
	if (mode == TS_STATS_NONE || mode == TS_STATS_COUNTS || !bounded_type(t))
		s->order = STATS_ORDER_NONE;
	else if (ts_value_orders_by_int(t->kind))
		s->order = STATS_ORDER_INT;
	else if (t->kind == TS_DECIMAL)
		s->order = STATS_ORDER_DECIMAL;
	else if (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ)
		s->order = STATS_ORDER_TIMESTAMP;
	else
		s->order = STATS_ORDER_VALUE;
	ts_buf_init(&s->min_bytes);
	ts_buf_init(&s->max_bytes);
}

void
ts_col_stats_free(ts_col_stats *s)
{
	ts_buf_free(&s->min_bytes);
	ts_buf_free(&s->max_bytes);
}

static bool
keep(ts_value *dst, ts_buf *b, const ts_value *v, const ts_type *t, ts_err *err)
{
	*dst = *v;
	if (ts_type_is_bytes(t->kind))
	{
		ts_buf_reset(b);
		if (!ts_buf_append(b, v->v.s.p, v->v.s.len, err))
			return false;
		dst->v.s.p = b->data;
	}
	return true;
}

bool
ts_col_stats_add(ts_col_stats *s, const ts_value *v, ts_err *err)
{
	int			c;

	if (v->isnull)
	{
		s->nulls++;
		return true;
	}
	if (s->order == STATS_ORDER_NONE)
		return true;
	if (s->has && s->order != STATS_ORDER_VALUE)
	{
		/* fixed-width bounds: compared and kept in place, as ts_value_order orders them */
		if (s->order == STATS_ORDER_INT)
		{
			if (v->v.i < s->min.v.i)
				s->min.v.i = v->v.i;
			if (v->v.i > s->max.v.i)
				s->max.v.i = v->v.i;
		}
		else if (s->order == STATS_ORDER_DECIMAL)
		{
			if (v->v.dec < s->min.v.dec)
				s->min.v.dec = v->v.dec;
			if (v->v.dec > s->max.v.dec)
				s->max.v.dec = v->v.dec;
		}
		else
		{
			int64_t		m = v->v.ts.millis;
			int32_t		n = v->v.ts.nanos;

			if (m < s->min.v.ts.millis || (m == s->min.v.ts.millis && n < s->min.v.ts.nanos))
				s->min.v.ts = v->v.ts;
			if (m > s->max.v.ts.millis || (m == s->max.v.ts.millis && n > s->max.v.ts.nanos))
				s->max.v.ts = v->v.ts;
		}
		return true;
	}
	if (!s->has)
	{
		s->has = true;
		return keep(&s->min, &s->min_bytes, v, s->type, err) &&
			keep(&s->max, &s->max_bytes, v, s->type, err);
	}
	if (ts_value_order(s->type, v, &s->min, &c) && c < 0 &&
		!keep(&s->min, &s->min_bytes, v, s->type, err))
		return false;
	if (ts_value_order(s->type, v, &s->max, &c) && c > 0 &&
		!keep(&s->max, &s->max_bytes, v, s->type, err))
		return false;
	return true;
}

/* byte length of the first n code points of UTF-8 s[0..len) */
static uint32_t
prefix_bytes(const uint8_t *s, uint32_t len, int n)
{
	uint32_t	i = 0;

	while (i < len && n > 0)
	{
		i++;
		while (i < len && (s[i] & 0xC0) == 0x80)
			i++;
		n--;
	}
	return i;
}

/*
 * The max of a string column truncated to n code points: the prefix with
 * its last code point incremented, walking back over code points that
 * cannot be; false when none can (the bound is then unknown).
 */
static bool
truncate_max(ts_col_stats *s, int n)
{
	const uint8_t *p = s->max.v.s.p;
	uint32_t	cut = prefix_bytes(p, s->max.v.s.len, n);

	if (cut >= s->max.v.s.len)
		return true;
	while (cut > 0)
	{
		uint32_t	start = cut - 1;
		uint32_t	cp;

		while (start > 0 && (p[start] & 0xC0) == 0x80)
			start--;
		/* decode the last code point */
		cp = p[start] < 0x80 ? p[start] : p[start] < 0xE0 ? (uint32_t) (p[start] & 0x1F) :
			p[start] < 0xF0 ? (uint32_t) (p[start] & 0x0F) : (uint32_t) (p[start] & 0x07);
		for (uint32_t k = start + 1; k < cut; k++)
			cp = (cp << 6) | (p[k] & 0x3F);
		cp++;
		if (cp == 0xD800)
			cp = 0xE000;		/* past the surrogates */
		if (cp <= 0x10FFFF)
		{
			uint8_t		enc[4];
			int			m = ts_utf8_put(cp, enc);

			/* rewrite in place: the buffer holds the whole original value */
			s->max_bytes.len = start;
			if (!ts_buf_append(&s->max_bytes, enc, (size_t) m, NULL))
				return false;
			s->max.v.s.p = s->max_bytes.data;
			s->max.v.s.len = (uint32_t) s->max_bytes.len;
			return true;
		}
		cut = start;
	}
	return false;
}

bool
ts_col_stats_encode(ts_col_stats *st, int n, ts_buf *min_row, ts_buf *max_row, int64_t *counts,
					ts_err *err)
{
	const ts_type **types = ts_calloc((size_t) (n ? n : 1), sizeof(ts_type *));
	ts_type    *nullable = ts_calloc((size_t) (n ? n : 1), sizeof(ts_type));
	ts_value   *mins = ts_calloc((size_t) (n ? n : 1), sizeof(ts_value));
	ts_value   *maxs = ts_calloc((size_t) (n ? n : 1), sizeof(ts_value));
	bool		ok = true;

	if (!types || !nullable || !mins || !maxs)
		ok = ts_error_nomem(err, "column statistics");
	for (int i = 0; ok && i < n; i++)
	{
		ts_col_stats *s = &st[i];
		bool		known = s->has;

		nullable[i] = *s->type;
		nullable[i].nullable = true;
		types[i] = &nullable[i];
		/* nested columns: no statistics at all (Java finds none under the field's name) */
		counts[i] = s->mode == TS_STATS_NONE || ts_type_is_nested(s->type->kind) ? -1 : s->nulls;
		if (known && (s->type->kind == TS_CHAR || s->type->kind == TS_VARCHAR) &&
			s->mode == TS_STATS_TRUNCATE)
		{
			s->min.v.s.len = prefix_bytes(s->min.v.s.p, s->min.v.s.len, s->truncate);
			known = truncate_max(s, s->truncate);
		}
		mins[i].isnull = maxs[i].isnull = !known;
		if (known)
		{
			mins[i] = s->min;
			maxs[i] = s->max;
		}
	}
	if (ok)
		ok = ts_binary_row_encode(types, mins, n, true, min_row, err) &&
			ts_binary_row_encode(types, maxs, n, true, max_row, err);
	ts_free(types);
	ts_free(nullable);
	ts_free(mins);
	ts_free(maxs);
	return ok;
}
