/*
 * ts_base.h - the foundation every layer below src/fdw builds on.
 *
 * Owns: the error record (ts_err), allocation hooks, the interrupt hook,
 * a growable byte buffer and a bounds-checked read cursor.  Knows nothing
 * about PostgreSQL: inside a backend, src/fdw installs hooks that allocate in
 * memory contexts and check for interrupts; in unit tests the defaults are
 * malloc/free and a no-op.
 *
 * Error convention: functions that can fail return bool (true = ok) or a
 * pointer (NULL = failed) and fill a caller-provided ts_err.  They never
 * exit, print or longjmp themselves.
 */
#ifndef TS_BASE_H
#define TS_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/ts_bytes.h"

/* What kind of failure; src/fdw maps each to a PostgreSQL errcode. */
typedef enum ts_errcode
{
	TS_OK = 0,
	TS_ERR_IO,				/* a read/open/stat failed (errno in detail) */
	TS_ERR_NOT_FOUND,		/* a file or directory that must exist does not */
	TS_ERR_CORRUPT,			/* bytes that do not decode: truncated, bad magic... */
	TS_ERR_UNSUPPORTED,		/* valid, but not implemented yet: fail closed */
	TS_ERR_INVALID,			/* bad option or argument given by the user */
	TS_ERR_NOMEM,			/* allocation failed or a size is absurd */
	TS_ERR_CANCELED,		/* the interrupt hook asked us to stop */
	TS_ERR_DENIED,			/* a path outside what this scan may read */
	TS_ERR_RANGE,			/* a well-formed value out of its type's range */
	TS_ERR_UNKNOWN_TYPE,	/* a Paimon type name this reader does not know */
	TS_ERR_LIMIT,			/* past a configured bound: object size, listing length */
	TS_ERR_EXISTS			/* an exclusive create found the file already there */
} ts_errcode;

#define TS_ERR_MSG_LEN 1024
#define TS_ERR_DETAIL_LEN 512

/*
 * As PostgreSQL reports an error: the message says what failed, the detail
 * the specifics (offset, value, the file's own words), the hint what to do.
 * src/fdw maps them to errmsg / errdetail / errhint.
 */
typedef struct ts_err
{
	ts_errcode	code;
	char		msg[TS_ERR_MSG_LEN];	/* user-facing, names file/option */
	char		detail[TS_ERR_DETAIL_LEN];	/* "" = none */
	char		hint[TS_ERR_DETAIL_LEN];	/* "" = none */
} ts_err;

/* Set err (if not NULL; detail and hint cleared) and return false; printf-style. */
bool		ts_error(ts_err *err, ts_errcode code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Add a detail / a hint to the error just set; return false. */
bool		ts_error_detail(ts_err *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
bool		ts_error_hint(ts_err *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/*
 * The one out-of-memory error: "out of memory" (what: NULL) or "out of
 * memory reading X" style ("out of memory %s", what).  Returns false.
 */
bool		ts_error_nomem(ts_err *err, const char *what);
/* The same with a printf-style what: "out of memory <what>". */
bool		ts_error_nomemf(ts_err *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/*
 * Prefix an existing error message with context, e.g. the file name:
 * ts_error_context(err, "manifest file \"%s\"", path) turns
 * "truncated block" into "manifest file \"x\": truncated block".
 */
bool		ts_error_context(ts_err *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* ---- allocation ----------------------------------------------------- */

typedef struct ts_alloc_hooks
{
	void	   *(*alloc) (size_t size);		/* may return NULL */
	void	   *(*realloc) (void *p, size_t size);
	void		(*free) (void *p);
} ts_alloc_hooks;

void		ts_set_alloc_hooks(const ts_alloc_hooks *hooks);
void	   *ts_malloc(size_t size);			/* NULL on failure */
void	   *ts_calloc(size_t n, size_t size);	/* zeroed; NULL on failure */
void	   *ts_realloc(void *p, size_t size);
void		ts_free(void *p);					/* NULL is fine */
char	   *ts_strdup(const char *s);
char	   *ts_strndup(const char *s, size_t n);
char	   *ts_psprintf(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/*
 * Where ts_malloc allocates (a backend: the current memory context).  Work
 * that runs later on behalf of an owner (a batch of object store requests
 * driven between the scan's calls, s3_batch.c) takes ts_alloc_owner() when
 * it starts and allocates under ts_alloc_switch(owner), giving back the
 * previous one after.  Without hooks both are NULL / no-ops.
 */
void		ts_set_alloc_owner_hooks(void *(*current) (void), void *(*switch_to) (void *owner));
void	   *ts_alloc_owner(void);
void	   *ts_alloc_switch(void *owner);

/* ---- interrupts ----------------------------------------------------- */

/*
 * Long loops call TS_CHECK_INTERRUPTS(err) and return false when it fails.
 * In a backend the hook runs CHECK_FOR_INTERRUPTS() (which may longjmp out;
 * that is fine because all memory lives in memory contexts and files are
 * transient files closed at abort).
 */
void		ts_set_interrupt_hook(bool (*hook) (void));
bool		ts_check_interrupts(ts_err *err);
#define TS_CHECK_INTERRUPTS(err) ts_check_interrupts(err)

/*
 * Is an interrupt pending?  Never longjmps: for code that must not be
 * unwound (a libcurl transfer), which stops and lets its caller run
 * TS_CHECK_INTERRUPTS.  The backend's hook reads InterruptPending.
 */
void		ts_set_interrupt_pending_hook(bool (*hook) (void));
bool		ts_interrupt_pending(void);

/* ---- growable buffer ------------------------------------------------ */

typedef struct ts_buf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} ts_buf;

void		ts_buf_init(ts_buf *b);
bool		ts_buf_reserve(ts_buf *b, size_t extra, ts_err *err);
bool		ts_buf_append(ts_buf *b, const void *p, size_t n, ts_err *err);
bool		ts_buf_printf(ts_buf *b, ts_err *err, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
void		ts_buf_reset(ts_buf *b);	/* len = 0, keep memory */
void		ts_buf_free(ts_buf *b);

/* ---- buffer pool (bufpool.c) ------------------------------------------ */

/*
 * Large buffers released by one file reader and taken back by the next,
 * so that a scan over many files does not allocate (and fault in) fresh
 * memory for every file.  Keeps at most max_bytes.  Every function takes
 * a NULL pool: get is then ts_malloc, put is ts_free.
 */
typedef struct ts_bufpool ts_bufpool;

#define TS_BUFPOOL_DEFAULT_BYTES ((size_t) 256 << 20)

ts_bufpool *ts_bufpool_new(size_t max_bytes);	/* NULL on failure */
/* a buffer of at least size bytes (its real size in *cap); NULL on failure */
void	   *ts_bufpool_get(ts_bufpool *pool, size_t size, size_t *cap);
/*
 * The same, its first fault_bytes faulted in with one call (ts_prefault)
 * when it is new memory; a buffer kept was touched by its last user.
 */
void	   *ts_bufpool_get_faulted(ts_bufpool *pool, size_t size, size_t *cap, size_t fault_bytes);
/*
 * The same, n zeroed elements of size bytes (NULL also when n * size
 * overflows); fresh memory is faulted in with one call (ts_prefault).
 */
void	   *ts_bufpool_get_zeroed(ts_bufpool *pool, size_t n, size_t size, size_t *cap);
/* give back a buffer of cap bytes (kept for reuse, or freed) */
void		ts_bufpool_put(ts_bufpool *pool, void *p, size_t cap);
size_t		ts_bufpool_bytes(const ts_bufpool *pool);	/* bytes kept */
void		ts_bufpool_free(ts_bufpool *pool);

/* ---- bounds-checked cursor ------------------------------------------ */

/*
 * A read cursor over bytes owned by someone else.  Every read checks the
 * remaining length first; on failure it sets err (TS_ERR_CORRUPT,
 * "truncated ...") and returns false.  Used by Avro, BinaryRow, Thrift
 * compact, protobuf and deletion-vector decoders alike.
 */
typedef struct ts_cursor
{
	const uint8_t *p;
	const uint8_t *end;
} ts_cursor;

static inline void
ts_cursor_init(ts_cursor *c, const void *p, size_t len)
{
	c->p = (const uint8_t *) p;
	c->end = c->p + len;
}

static inline size_t
ts_cursor_left(const ts_cursor *c)
{
	return (size_t) (c->end - c->p);
}

bool		ts_cursor_need(ts_cursor *c, size_t n, ts_err *err);
bool		ts_cursor_bytes(ts_cursor *c, size_t n, const uint8_t **out, ts_err *err);
bool		ts_cursor_skip(ts_cursor *c, size_t n, ts_err *err);
bool		ts_cursor_u8(ts_cursor *c, uint8_t *out, ts_err *err);
bool		ts_cursor_le32(ts_cursor *c, uint32_t *out, ts_err *err);
bool		ts_cursor_le64(ts_cursor *c, uint64_t *out, ts_err *err);
bool		ts_cursor_be32(ts_cursor *c, uint32_t *out, ts_err *err);
bool		ts_cursor_be64(ts_cursor *c, uint64_t *out, ts_err *err);
/*
 * unsigned LEB128 varint (protobuf, thrift) and zig-zag signed (avro).
 * Inline fast path when at least 10 bytes are left (no truncation possible);
 * near the end of the buffer, and for a 10th byte other than 0 or 1, it
 * falls back to ts_cursor_uvarint_slow, which does every check (errors:
 * "truncated varint", "varint longer than 64 bits").
 */
bool		ts_cursor_uvarint_slow(ts_cursor *c, uint64_t *out, ts_err *err);

static inline bool
ts_cursor_uvarint(ts_cursor *c, uint64_t *out, ts_err *err)
{
	const uint8_t *p = c->p;

	if (c->end - p >= 10)
	{
		uint64_t	v = 0;

		for (int i = 0; i < 9; i++)
		{
			uint8_t		b = p[i];

			v |= (uint64_t) (b & 0x7f) << (7 * i);
			if (b < 0x80)
			{
				*out = v;
				c->p = p + i + 1;
				return true;
			}
		}
		if (p[9] <= 1)
		{
			*out = v | ((uint64_t) p[9] << 63);
			c->p = p + 10;
			return true;
		}
	}
	else if (p < c->end && p[0] < 0x80)
	{
		*out = p[0];
		c->p = p + 1;
		return true;
	}
	return ts_cursor_uvarint_slow(c, out, err);
}

static inline bool
ts_cursor_zigzag(ts_cursor *c, int64_t *out, ts_err *err)
{
	uint64_t	u;

	if (!ts_cursor_uvarint(c, &u, err))
		return false;
	*out = (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
	return true;
}

/* zstd_context.c: a zstd decompression context (ZSTD_DCtx *) in our memory; NULL if out of memory. */
void	   *ts_zstd_dctx_create(void);

/* Microseconds on the monotonic clock: for durations, never for dates. */
static inline int64_t
ts_monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif							/* TS_BASE_H */
