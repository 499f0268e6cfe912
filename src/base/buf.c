/*
 * buf.c - growable byte buffer and bounds-checked read cursor.
 */
#include <stdio.h>
#include <string.h>

#include "base/ts_base.h"

void
ts_buf_init(ts_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

bool
ts_buf_reserve(ts_buf *b, size_t extra, ts_err *err)
{
	size_t		need = b->len + extra;
	size_t		cap;
	uint8_t    *p;

	if (need < b->len)
		return ts_error(err, TS_ERR_NOMEM, "buffer size overflow");
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = ts_realloc(b->data, cap);
	if (p == NULL)
		return ts_error_nomemf(err, "growing a buffer to %zu bytes", cap);
	b->data = p;
	b->cap = cap;
	return true;
}

bool
ts_buf_append(ts_buf *b, const void *p, size_t n, ts_err *err)
{
	if (n == 0)
		return true;
	if (!ts_buf_reserve(b, n, err))
		return false;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return true;
}

bool
ts_buf_printf(ts_buf *b, ts_err *err, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ts_error(err, TS_ERR_INVALID, "bad format string");
	if (!ts_buf_reserve(b, (size_t) n + 1, err))
		return false;
	va_start(ap, fmt);
	vsnprintf((char *) b->data + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
	return true;
}

void
ts_buf_reset(ts_buf *b)
{
	b->len = 0;
}

void
ts_buf_free(ts_buf *b)
{
	ts_free(b->data);
	ts_buf_init(b);
}

/* ---- cursor --------------------------------------------------------- */

bool
ts_cursor_need(ts_cursor *c, size_t n, ts_err *err)
{
	if (ts_cursor_left(c) < n)
		return ts_error(err, TS_ERR_CORRUPT, "truncated data: need %zu bytes, %zu left",
						n, ts_cursor_left(c));
	return true;
}

bool
ts_cursor_bytes(ts_cursor *c, size_t n, const uint8_t **out, ts_err *err)
{
	if (!ts_cursor_need(c, n, err))
		return false;
	*out = c->p;
	c->p += n;
	return true;
}

bool
ts_cursor_skip(ts_cursor *c, size_t n, ts_err *err)
{
	if (!ts_cursor_need(c, n, err))
		return false;
	c->p += n;
	return true;
}

bool
ts_cursor_u8(ts_cursor *c, uint8_t *out, ts_err *err)
{
	if (!ts_cursor_need(c, 1, err))
		return false;
	*out = *c->p++;
	return true;
}

bool
ts_cursor_le32(ts_cursor *c, uint32_t *out, ts_err *err)
{
	if (!ts_cursor_need(c, 4, err))
		return false;
	*out = ts_load_le32(c->p);
	c->p += 4;
	return true;
}

bool
ts_cursor_le64(ts_cursor *c, uint64_t *out, ts_err *err)
{
	if (!ts_cursor_need(c, 8, err))
		return false;
	*out = ts_load_le64(c->p);
	c->p += 8;
	return true;
}

bool
ts_cursor_be32(ts_cursor *c, uint32_t *out, ts_err *err)
{
	if (!ts_cursor_need(c, 4, err))
		return false;
	*out = ts_load_be32(c->p);
	c->p += 4;
	return true;
}

bool
ts_cursor_be64(ts_cursor *c, uint64_t *out, ts_err *err)
{
	if (!ts_cursor_need(c, 8, err))
		return false;
	*out = ts_load_be64(c->p);
	c->p += 8;
	return true;
}

bool
ts_cursor_uvarint_slow(ts_cursor *c, uint64_t *out, ts_err *err)
{
	uint64_t	v = 0;
	int			shift = 0;

	for (;;)
	{
		uint8_t		b;

		if (c->p >= c->end)
			return ts_error(err, TS_ERR_CORRUPT, "truncated varint");
		b = *c->p++;
		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			return ts_error(err, TS_ERR_CORRUPT, "varint longer than 64 bits");
		v |= (uint64_t) (b & 0x7f) << shift;
		if ((b & 0x80) == 0)
			break;
		shift += 7;
	}
	*out = v;
	return true;
}
