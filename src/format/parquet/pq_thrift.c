/*
 * pq_thrift.c - a small, bounds-checked Thrift compact protocol decoder.
 *
 * Owns: reading field headers, integers (zig-zag varints), booleans,
 * binaries, list headers, and skipping any value of an unknown field, with
 * a nesting-depth limit so that hostile input cannot recurse without end.
 * Used by pq_meta.c for the Parquet footer and page headers.
 */
#include "format/parquet/pq_internal.h"

static bool
t_varint(pq_thrift *t, uint64_t *out)
{
	return ts_cursor_uvarint(&t->c, out, t->err);
}

static int64_t
unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

bool
pq_t_begin(pq_thrift *t, pq_tstruct *s)
{
	if (++t->depth > PQ_THRIFT_MAX_DEPTH)
		return ts_error(t->err, TS_ERR_CORRUPT, "thrift structure nested too deeply");
	s->last_id = 0;
	return true;
}

void
pq_t_end(pq_thrift *t)
{
	t->depth--;
}

bool
pq_t_field(pq_thrift *t, pq_tstruct *s, int16_t *id, int *type)
{
	uint8_t		b;

	if (!ts_cursor_u8(&t->c, &b, t->err))
		return false;
	*type = b & 0x0f;
	if (*type == PQ_T_STOP)
	{
		*id = 0;
		return true;
	}
	if ((b >> 4) != 0)
		*id = (int16_t) (s->last_id + (b >> 4));
	else
	{
		uint64_t	v;

		if (!t_varint(t, &v))
			return false;
		*id = (int16_t) unzigzag(v);
	}
	s->last_id = *id;
	return true;
}

static bool
wrong_type(pq_thrift *t, int type)
{
	return ts_error(t->err, TS_ERR_CORRUPT, "unexpected thrift type %d", type);
}

bool
pq_t_i64(pq_thrift *t, int type, int64_t *out)
{
	uint64_t	v = 0;

	if (type == PQ_T_BYTE)
	{
		uint8_t		b;

		if (!ts_cursor_u8(&t->c, &b, t->err))
			return false;
		*out = (int8_t) b;
		return true;
	}
	if (type != PQ_T_I16 && type != PQ_T_I32 && type != PQ_T_I64)
		return wrong_type(t, type);
	if (!t_varint(t, &v))
		return false;
	*out = unzigzag(v);
	return true;
}

bool
pq_t_i32(pq_thrift *t, int type, int32_t *out)
{
	int64_t		v;

	if (!pq_t_i64(t, type, &v))
		return false;
	if (v < INT32_MIN || v > INT32_MAX)
		return ts_error(t->err, TS_ERR_CORRUPT, "thrift i32 out of range");
	*out = (int32_t) v;
	return true;
}

bool
pq_t_bool(pq_thrift *t, int type, bool *out)
{
	if (type == PQ_T_TRUE || type == PQ_T_FALSE)
	{
		*out = type == PQ_T_TRUE;
		return true;
	}
	return wrong_type(t, type);
}

bool
pq_t_binary(pq_thrift *t, int type, const uint8_t **p, uint32_t *len)
{
	uint64_t	n;

	if (type != PQ_T_BINARY)
		return wrong_type(t, type);
	if (!t_varint(t, &n))
		return false;
	if (n > ts_cursor_left(&t->c))
		return ts_error(t->err, TS_ERR_CORRUPT, "truncated thrift binary");
	*len = (uint32_t) n;
	return ts_cursor_bytes(&t->c, (size_t) n, p, t->err);
}

bool
pq_t_list(pq_thrift *t, int type, int *elem_type, uint32_t *count)
{
	uint8_t		b;
	uint64_t	n;

	if (type != PQ_T_LIST && type != PQ_T_SET)
		return wrong_type(t, type);
	if (!ts_cursor_u8(&t->c, &b, t->err))
		return false;
	*elem_type = b & 0x0f;
	n = b >> 4;
	if (n == 15 && !t_varint(t, &n))
		return false;
	/* every element takes at least one byte (empty structs: the stop byte) */
	if (n > ts_cursor_left(&t->c))
		return ts_error(t->err, TS_ERR_CORRUPT, "thrift list longer than its bytes");
	*count = (uint32_t) n;
	return true;
}

/* skip one value of a list element type (bools are one byte there) */
static bool
skip_value(pq_thrift *t, int type, bool in_list)
{
	uint64_t	v;

	switch (type)
	{
		case PQ_T_TRUE:
		case PQ_T_FALSE:
			return in_list ? ts_cursor_skip(&t->c, 1, t->err) : true;
		case PQ_T_BYTE:
			return ts_cursor_skip(&t->c, 1, t->err);
		case PQ_T_I16:
		case PQ_T_I32:
		case PQ_T_I64:
			return t_varint(t, &v);
		case PQ_T_DOUBLE:
			return ts_cursor_skip(&t->c, 8, t->err);
		case PQ_T_BINARY:
			if (!t_varint(t, &v))
				return false;
			if (v > ts_cursor_left(&t->c))
				return ts_error(t->err, TS_ERR_CORRUPT, "truncated thrift binary");
			return ts_cursor_skip(&t->c, (size_t) v, t->err);
		case PQ_T_LIST:
		case PQ_T_SET:
			{
				int			et;
				uint32_t	n;
				bool		ok = true;

				if (!pq_t_list(t, type, &et, &n))
					return false;
				if (++t->depth > PQ_THRIFT_MAX_DEPTH)
					return ts_error(t->err, TS_ERR_CORRUPT, "thrift structure nested too deeply");
				for (uint32_t i = 0; ok && i < n; i++)
					ok = skip_value(t, et, true);
				t->depth--;
				return ok;
			}
		case PQ_T_MAP:
			{
				uint8_t		kv;
				bool		ok = true;

				if (!t_varint(t, &v))
					return false;
				if (v == 0)
					return true;
				if (v > ts_cursor_left(&t->c))
					return ts_error(t->err, TS_ERR_CORRUPT, "thrift map longer than its bytes");
				if (!ts_cursor_u8(&t->c, &kv, t->err))
					return false;
				if (++t->depth > PQ_THRIFT_MAX_DEPTH)
					return ts_error(t->err, TS_ERR_CORRUPT, "thrift structure nested too deeply");
				for (uint64_t i = 0; ok && i < v; i++)
					ok = skip_value(t, kv >> 4, true) && skip_value(t, kv & 0x0f, true);
				t->depth--;
				return ok;
			}
		case PQ_T_STRUCT:
			{
				pq_tstruct s;
				int16_t		id;
				int			ft;

				if (!pq_t_begin(t, &s))
					return false;
				for (;;)
				{
					if (!pq_t_field(t, &s, &id, &ft))
						return false;
					if (ft == PQ_T_STOP)
						break;
					if (!skip_value(t, ft, false))
						return false;
				}
				pq_t_end(t);
				return true;
			}
		default:
			return wrong_type(t, type);
	}
}

bool
pq_t_skip(pq_thrift *t, int type)
{
	return skip_value(t, type, false);
}
