/*
 * csv_part_starts.c - where a parallel scan may cut a CSV file: only where
 * a record starts.
 *
 * Owns: the pass that finds, for each nominal cut of a local uncompressed
 * CSV file (size / nparts * k), the first record start at or after it, and
 * a small per-process cache of its answers (by path, size, modification
 * time, syntax and number of parts).  A record starts after a line
 * break that is not inside a quoted field, and whether one is depends on
 * every byte before it: the pass reads the file from its first byte up to
 * the last cut, in large blocks, by the reader's own rules (csv_reader.c,
 * split_field_copy): a quote opens a quoted field only as the first
 * character of a field (at the file's start, or after a field delimiter or
 * a line break outside quotes), a doubled quote inside quotes is one
 * quote, and an escape character takes a quote or escape character that
 * follows it, inside quotes or not.  Only quote and escape characters can
 * change the state, so the pass jumps from one to the next (eight bytes
 * at a time) and looks at line breaks only near a cut.
 *
 * Where no cut can be proved the file is not cut: a file on an object
 * store (reading it at plan time would fetch it twice), a quote or escape
 * character that is a line break; and a quoted field that never closes
 * leaves the rest of the file in one part.
 */
#include "base/ts_s3.h"
#include "format/text/text_internal.h"

#define BLOCK_BYTES (1024 * 1024)
#define CACHE_SLOTS 16

static size_t block_bytes = BLOCK_BYTES;

void
ts_csv_part_starts_set_block(size_t bytes)
{
	block_bytes = bytes > 0 ? bytes : BLOCK_BYTES;
}

/* The pass: the reader's state at the end of the bytes followed so far. */
typedef struct cut_pass
{
	ts_csv_syntax syn;
	bool		in_quotes;
	bool		after_escape;	/* the last byte is an escape that may take the next */
	bool		after_quote;	/* in quotes, the last byte is a quote: doubled or closing */
	bool		cr_pending;		/* the last byte is a \r ending a record, while seeking */
	uint8_t		prev;			/* the last byte ('\n' before the file's first) */
	int64_t		size;
	int			nparts;			/* nominal */
	int64_t		want;			/* the next start is the first record start >= want; -1 done */
	int64_t    *starts;
	int			nstarts;
} cut_pass;

/* The nominal cut k (0 < k < nparts), as a parallel scan cuts other files. */
static int64_t
nominal_cut(const cut_pass *c, int k)
{
	return c->size / c->nparts * k;
}

/* Record start r found (r >= want): a part starts there; what to seek next. */
static void
found_start(cut_pass *c, int64_t r)
{
	c->want = -1;
	if (r >= c->size)
		return;					/* the rest of the file is one part */
	c->starts[c->nstarts++] = r;
	/* the next nominal cut after r (nominal parts inside this one merge) */
	for (int k = 1; k < c->nparts; k++)
		if (nominal_cut(c, k) > r)
		{
			c->want = nominal_cut(c, k);
			return;
		}
}

/*
 * The record starts in the unquoted bytes p[i..j) (at file offset base):
 * after each line break there, from the one ending just before want on.
 * Returns false when a record-ending \r is the block's last byte (its start
 * depends on the next block's first byte: cr_pending).
 */
static bool
seek_in_unquoted(cut_pass *c, const uint8_t *p, size_t i, size_t j, size_t n, int64_t base)
{
	while (c->want >= 0)
	{
		int64_t		from = c->want - 1 - base;
		size_t		s = from > (int64_t) i ? (size_t) from : i;
		size_t		q;

		if (s >= j)
			return true;
		q = ts_text_find_byte2(p, s, j, '\n', '\r');
		if (q >= j)
			return true;
		if (p[q] == '\r' && q + 1 == n)
		{
			c->cr_pending = true;
			return false;
		}
		found_start(c, base + (int64_t) q + 1 + (p[q] == '\r' && p[q + 1] == '\n' ? 1 : 0));
		i = q + 1;
	}
	return true;
}

/* Follow block p[0..n) at file offset base, recording the starts found. */
static void
follow_block(cut_pass *c, const uint8_t *p, size_t n, int64_t base)
{
	const uint8_t quote = (uint8_t) c->syn.quote,
				escape = (uint8_t) c->syn.escape,
				delim = (uint8_t) c->syn.delim;
	size_t		i = 0;

	if (n == 0)
		return;
	if (c->cr_pending)
	{
		c->cr_pending = false;
		if (p[0] == '\n')
			i = 1;				/* the \n of a \r\n */
		found_start(c, base + (int64_t) i);
	}
	while (i < n && c->want >= 0)
	{
		size_t		j;

		if (c->after_escape)
		{
			c->after_escape = false;
			if ((quote && p[i] == quote) || p[i] == escape)
			{
				i++;			/* taken: text */
				continue;
			}
		}
		if (c->after_quote)
		{
			c->after_quote = false;
			if (p[i] == quote)
			{
				i++;			/* a doubled quote: one quote, still quoted */
				continue;
			}
			c->in_quotes = false;	/* closed; p[i] is outside quotes */
		}
		if (c->in_quotes)
		{
			j = ts_text_find_byte2(p, i, n, quote, escape);
			if (j == n)
				break;
			if (escape && p[j] == escape)
				c->after_escape = true;
			else
				c->after_quote = true;
			i = j + 1;
			continue;
		}
		/* outside quotes up to the next quote or escape character */
		if (quote == 0 && escape == 0)
			j = n;
		else
			j = ts_text_find_byte2(p, i, n, quote ? quote : escape, escape);
		if (!seek_in_unquoted(c, p, i, j, n, base))
			break;				/* cr_pending */
		if (j == n)
			break;
		if (escape && p[j] == escape)
			c->after_escape = true;
		else
		{
			uint8_t		before = j > 0 ? p[j - 1] : c->prev;

			/* a quote opens a field's quotes as its first character only */
			if (before == delim || before == '\n' || before == '\r')
				c->in_quotes = true;
		}
		i = j + 1;
	}
	c->prev = p[n - 1];
}

/* ---- the per-process cache ------------------------------------------ */

/*
 * Static: the answers outlive every query's memory.  A file with a longer
 * path or more parts is not kept.
 */
#define CACHE_PATH_MAX 1024
#define CACHE_STARTS_MAX 256

typedef struct cut_cache_entry
{
	char		path[CACHE_PATH_MAX];	/* "": a free slot */
	int64_t		size;
	int64_t		mtime_ns;
	ts_csv_syntax syn;
	int			nparts;
	int			nstarts;
	int64_t		starts[CACHE_STARTS_MAX];
} cut_cache_entry;

static cut_cache_entry cut_cache[CACHE_SLOTS];
static int	cut_cache_next;

static cut_cache_entry *
cache_find(const char *path, int64_t size, int64_t mtime_ns, const ts_csv_syntax *syn, int nparts)
{
	for (int i = 0; i < CACHE_SLOTS; i++)
	{
		cut_cache_entry *e = &cut_cache[i];

		if (e->path[0] && e->size == size && e->mtime_ns == mtime_ns && e->nparts == nparts &&
			e->syn.delim == syn->delim && e->syn.quote == syn->quote &&
			e->syn.escape == syn->escape && strcmp(e->path, path) == 0)
			return e;
	}
	return NULL;
}

static void
cache_store(const char *path, int64_t size, int64_t mtime_ns, const ts_csv_syntax *syn,
			int nparts, const int64_t *starts, int nstarts)
{
	cut_cache_entry *e = &cut_cache[cut_cache_next];

	if (strlen(path) >= CACHE_PATH_MAX || nstarts > CACHE_STARTS_MAX)
		return;					/* not kept: computed again next time */
	cut_cache_next = (cut_cache_next + 1) % CACHE_SLOTS;
	strcpy(e->path, path);
	e->size = size;
	e->mtime_ns = mtime_ns;
	e->syn = *syn;
	e->nparts = nparts;
	e->nstarts = nstarts;
	memcpy(e->starts, starts, sizeof(int64_t) * (size_t) nstarts);
}

/* ---- the entry point ------------------------------------------------- */

/* Can a record end at a line break the pass cannot see as such? */
static bool
syntax_allows_cuts(const ts_csv_syntax *syn)
{
	return syn->quote != '\n' && syn->quote != '\r' &&
		syn->escape != '\n' && syn->escape != '\r';
}

int
ts_csv_part_starts(const char *path, const ts_reader_options *options, int nparts,
				   int64_t *starts, ts_err *err)
{
	ts_csv_syntax syn;
	ts_file    *f;
	cut_pass	c;
	cut_cache_entry *hit;
	uint8_t    *block = NULL;
	int64_t		off;

	starts[0] = 0;
	if (nparts <= 1 || !ts_text_file_reads_in_parts(TS_FORMAT_CSV, path, options) ||
		ts_fs_path_is_remote(ts_reader_fs(options), path))
		return 1;
	/* invalid options are the reader's error: read the file whole */
	if (!ts_csv_parse_syntax(options, &syn, err))
	{
		memset(err, 0, sizeof(*err));
		return 1;
	}
	if (!syntax_allows_cuts(&syn))
		return 1;
	f = ts_file_open(ts_reader_fs(options), path, err);
	if (f == NULL)
		return -1;
	memset(&c, 0, sizeof(c));
	c.syn = syn;
	c.prev = '\n';
	c.size = ts_file_size(f);
	c.nparts = nparts;
	c.starts = starts;
	c.nstarts = 1;
	hit = cache_find(path, c.size, ts_file_mtime_ns(f), &syn, nparts);
	if (hit)
	{
		memcpy(starts, hit->starts, sizeof(int64_t) * (size_t) hit->nstarts);
		ts_file_close(f);
		return hit->nstarts;
	}
	c.want = nominal_cut(&c, 1) > 0 ? nominal_cut(&c, 1) : 1;
	block = ts_malloc(block_bytes);
	if (block == NULL)
	{
		ts_file_close(f);
		ts_error_nomemf(err, "reading \"%s\"", path);
		return -1;
	}
	for (off = 0; off < c.size && c.want >= 0; off += (int64_t) block_bytes)
	{
		size_t		n = (size_t) (c.size - off < (int64_t) block_bytes ? c.size - off : (int64_t) block_bytes);

		if (!TS_CHECK_INTERRUPTS(err) || !ts_file_pread(f, block, n, off, err))
		{
			ts_free(block);
			ts_file_close(f);
			return -1;
		}
		follow_block(&c, block, n, off);
	}
	if (c.cr_pending)
		found_start(&c, c.size);	/* a \r ending the file */
	cache_store(path, c.size, ts_file_mtime_ns(f), &syn, nparts, starts, c.nstarts);
	ts_free(block);
	ts_file_close(f);
	return c.nstarts;
}
