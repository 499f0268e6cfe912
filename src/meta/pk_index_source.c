/*
 * pk_index_source.c - parsing _GLOBAL_INDEX._SOURCE_META of Paimon 2.0
 * primary-key global index payloads (see pk_index_source.h).
 */
#include <string.h>

#include "base/ts_bytes.h"
#include "meta/pk_index_source.h"

typedef struct cur
{
	const uint8_t *p;
	size_t		left;
} cur;

static bool
rd(cur *c, void *out, size_t n)
{
	if (c->left < n)
		return false;
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

static bool
rd_i32(cur *c, int32_t *v)
{
	uint8_t		b[4];

	if (!rd(c, b, 4))
		return false;
	*v = (int32_t) ts_load_be32(b);
	return true;
}

static bool
rd_i64(cur *c, int64_t *v)
{
	uint8_t		b[8];

	if (!rd(c, b, 8))
		return false;
	*v = (int64_t) ts_load_be64(b);
	return true;
}

/* a writeUTF string: u16 length + bytes (not validated: compared as bytes) */
static bool
rd_utf(cur *c, const uint8_t **s, size_t *n)
{
	uint8_t		b[2];

	if (!rd(c, b, 2))
		return false;
	*n = ts_load_be16(b);
	if (c->left < *n)
		return false;
	*s = c->p;
	c->p += *n;
	c->left -= *n;
	return true;
}

void
ts_pk_source_meta_free(ts_pk_source_meta *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->nfiles; i++)
		ts_free(m->files[i].name);
	ts_free(m->files);
	memset(m, 0, sizeof(*m));
}

/* the files part: count x (name, rows); false if it does not fit */
static bool
parse_files(cur *c, int32_t count, ts_pk_source_meta *m, bool *nomem)
{
	if (count <= 0 || (size_t) count > c->left / 10)
		return false;
	m->files = ts_calloc((size_t) count, sizeof(ts_pk_source_file));
	if (m->files == NULL)
		return !(*nomem = true);
	for (int i = 0; i < count; i++)
	{
		const uint8_t *s;
		size_t		n;
		int64_t		rows;

		if (!rd_utf(c, &s, &n) || !rd_i64(c, &rows) || rows < 0 || n == 0 ||
			memchr(s, 0, n) != NULL || m->total_rows > INT64_MAX - rows)
			return false;
		m->files[i].name = ts_malloc(n + 1);
		if (m->files[i].name == NULL)
			return !(*nomem = true);
		memcpy(m->files[i].name, s, n);
		m->files[i].name[n] = '\0';
		m->files[i].rows = rows;
		m->nfiles = i + 1;
		m->total_rows += rows;
	}
	return true;
}

/* layout with the data level: version 1, level > 0, count, files */
static bool
try_level_layout(const uint8_t *data, size_t len, ts_pk_source_meta *m, bool *nomem)
{
	cur			c = {data, len};
	int32_t		version,
				level,
				count;

	if (!rd_i32(&c, &version) || version != 1 || !rd_i32(&c, &level) || level <= 0 ||
		!rd_i32(&c, &count) || !parse_files(&c, count, m, nomem) || c.left != 0)
		return false;
	m->level = level;
	return true;
}

/* Java's first layout: version 1 | 2, count, files, fingerprint if 2 */
static bool
try_plain_layout(const uint8_t *data, size_t len, ts_pk_source_meta *m, bool *nomem)
{
	cur			c = {data, len};
	int32_t		version,
				count;
	const uint8_t *s;
	size_t		n;

	if (!rd_i32(&c, &version) || (version != 1 && version != 2) || !rd_i32(&c, &count) ||
		!parse_files(&c, count, m, nomem))
		return false;
	if (version == 2 && (!rd_utf(&c, &s, &n) || n == 0))
		return false;
	return c.left == 0;
}

bool
ts_pk_source_meta_parse(const uint8_t *data, size_t len, ts_pk_source_meta *out, ts_err *err)
{
	bool		nomem = false;

	memset(out, 0, sizeof(*out));
	if (data != NULL && try_level_layout(data, len, out, &nomem))
		return true;
	ts_pk_source_meta_free(out);
	if (nomem)
		return ts_error_nomem(err, "index source metadata");
	if (data != NULL && try_plain_layout(data, len, out, &nomem))
		return true;
	ts_pk_source_meta_free(out);
	if (nomem)
		return ts_error_nomem(err, "index source metadata");
	return ts_error(err, TS_ERR_CORRUPT, "index source metadata of %zu bytes does not decode",
					len);
}

bool
ts_pk_source_meta_equal(const ts_pk_source_meta *a, const ts_pk_source_meta *b)
{
	if (a->nfiles != b->nfiles || a->level != b->level)
		return false;
	for (int i = 0; i < a->nfiles; i++)
		if (a->files[i].rows != b->files[i].rows || strcmp(a->files[i].name, b->files[i].name) != 0)
			return false;
	return true;
}
