/*
 * pq_thrift_write.c - the Thrift compact protocol encoder (pq_thrift_write.h).
 */
#include <string.h>

#include "format/parquet/pq_thrift_write.h"

void
ts_thrift_raw(ts_thrift_out *o, const void *p, size_t n)
{
	if (!o->failed && n > 0 && !ts_buf_append(o->b, p, n, NULL))
		o->failed = true;
}

void
ts_thrift_byte(ts_thrift_out *o, uint8_t v)
{
	ts_thrift_raw(o, &v, 1);
}

void
ts_thrift_varint(ts_thrift_out *o, uint64_t v)
{
	while (v >= 0x80)
	{
		ts_thrift_byte(o, (uint8_t) (v | 0x80));
		v >>= 7;
	}
	ts_thrift_byte(o, (uint8_t) v);
}

void
ts_thrift_field(ts_thrift_out *o, int16_t id, uint8_t type)
{
	int16_t		delta = (int16_t) (id - o->last[o->depth]);

	if (delta > 0 && delta <= 15)
		ts_thrift_byte(o, (uint8_t) ((delta << 4) | type));
	else
	{
		ts_thrift_byte(o, type);
		ts_thrift_varint(o, (uint64_t) (((int64_t) id << 1) ^ ((int64_t) id >> 63)));
	}
	o->last[o->depth] = id;
}

void
ts_thrift_i64(ts_thrift_out *o, int16_t id, int64_t v)
{
	ts_thrift_field(o, id, 6);
	ts_thrift_varint(o, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

void
ts_thrift_i32(ts_thrift_out *o, int16_t id, int32_t v)
{
	ts_thrift_field(o, id, 5);
	ts_thrift_varint(o, ((uint64_t) (int64_t) v << 1) ^ (uint64_t) ((int64_t) v >> 63));
}

void
ts_thrift_string(ts_thrift_out *o, int16_t id, const char *s)
{
	size_t		n = strlen(s);

	ts_thrift_field(o, id, 8);
	ts_thrift_varint(o, n);
	ts_thrift_raw(o, s, n);
}

void
ts_thrift_list(ts_thrift_out *o, int16_t id, uint8_t elem_type, int n)
{
	ts_thrift_field(o, id, 9);
	if (n < 15)
		ts_thrift_byte(o, (uint8_t) ((n << 4) | elem_type));
	else
	{
		ts_thrift_byte(o, (uint8_t) (0xF0 | elem_type));
		ts_thrift_varint(o, (uint64_t) n);
	}
}

void
ts_thrift_struct_begin(ts_thrift_out *o, int16_t id)
{
	if (id > 0)
		ts_thrift_field(o, id, 12);
	if (o->depth + 1 >= (int) (sizeof(o->last) / sizeof(o->last[0])))
	{
		o->failed = true;		/* deeper than any Parquet metadata */
		return;
	}
	o->last[++o->depth] = 0;
}

void
ts_thrift_struct_end(ts_thrift_out *o)
{
	ts_thrift_byte(o, 0);
	if (o->depth > 0)
		o->depth--;
}
