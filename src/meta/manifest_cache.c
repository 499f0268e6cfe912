/*
 * manifest_cache.c - decoded manifest entries shared by the backends of a
 * server: a compact record per manifest file in the on-disk metadata cache
 * (base/meta_cache.c: the directory, its size limit and eviction, atomic
 * stores), so that a new connection plans without decoding Avro again.
 *
 * Owns: the record format, encoding the entries of one manifest into it,
 * checking and decoding a record, and when a record may be used.
 *
 * A record, "<name>.tsm", all integers little endian:
 *   header (104 bytes)
 *     "TSMANENT"       8 bytes magic
 *     version          u32 (TS_MANIFEST_CACHE_VERSION)
 *     entry count      u32
 *     source size      u64: the manifest file's size
 *     payload length   u64: the file is exactly header + payload
 *     checksum         u64: XXH64 of the payload, seeded by the XXH64 of
 *                      the 32 header bytes before it (so count, size and
 *                      version are covered too)
 *     name             64 bytes: the record's own name (the key's digest),
 *                      so that a file renamed by hand is not taken for
 *                      another key
 *   payload
 *     fields length    u64
 *     fields           every entry's fields in order; a string, a byte
 *                      field or an array is a reference (u32 offset into
 *                      the table, u32 length; offset 0xFFFFFFFF = null)
 *     padding to 8, then the table: strings (NUL-terminated) and byte
 *                      fields, each 8-aligned, referenced from the fields.
 * A hit reads the record whole into the plan's arena and builds the
 * entries' structs there with pointers into it: no copy of names or stats.
 * Any mismatch (magic, version, name, source size, length, checksum, a
 * reference out of the table, a string without its NUL) rejects the record:
 * it is removed and the manifest decoded from its file (and stored again).
 *
 * The key (base/fs.c ts_fs_cache_name) is the digest of the record kind,
 * the store, the full URI and the file's size; a local file's modification
 * time too.  Paimon never rewrites a manifest (a UUID name, written once),
 * so path + size name its contents; two warehouses of the same path on
 * different stores differ by store, endpoint and bucket.
 *
 * Rights.  The cache only saves decoding: a plan reads a manifest's record
 * only where it would have been allowed to read the manifest itself, in the
 * current scan's scope, checked as a read checks it.  A local manifest is
 * opened through the scan's fs first (the role's file scope checked on its
 * name and on what it resolves to; its size and mtime read from the open
 * file), so a role outside the warehouse's roots finds nothing.  An
 * object's name is checked against the scope, and its key holds the scan's
 * credentials (endpoint, region, addressing, access key, secret, session
 * token, as the object cache's keys do): only a plan reading with the same
 * keys, which were answered with that object before, finds the record; the
 * size is the one the manifest list (read through those keys in this plan)
 * gives, so no HEAD per manifest is needed.  Other credentials (another
 * user mapping, a renewed data token) miss and read the store.  A store
 * that revoked the keys since is not asked again for a manifest already
 * decoded, as with the object cache: the snapshot and the manifest list
 * before it are still read from the store in every plan.
 */
#include <string.h>

#include "base/ts_bytes.h"
#include "base/ts_meta_cache.h"
#include "format/fileindex/file_index.h"
#include "meta/manifest_cache.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
			   "records hold null counts as little-endian int64 read in place");

#define RECORD_MAGIC "TSMANENT"
#define RECORD_KIND "tablescan decoded manifest 1"
#define HEADER_BYTES 104
#define NO_REF 0xFFFFFFFFu
#define ALIGN8(n) (((n) + 7) & ~(size_t) 7)

static ts_manifest_cache_stats stats;
static bool records_on = true;

void
ts_manifest_cache_set_enabled(bool on)
{
	records_on = on;
}

ts_manifest_cache_stats
ts_manifest_cache_get_stats(void)
{
	return stats;
}

/* ---- encoding ---------------------------------------------------------- */

typedef struct growbuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
	bool		failed;
} growbuf;

static uint8_t *
grow(growbuf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n > b->cap || b->data == NULL)
	{
		size_t		cap = b->cap ? b->cap : 4096;
		uint8_t    *nd;

		while (cap < b->len + n)
			cap *= 2;
		nd = ts_realloc(b->data, cap);
		if (nd == NULL)
		{
			b->failed = true;
			return NULL;
		}
		b->data = nd;
		b->cap = cap;
	}
	b->len += n;
	return b->data + b->len - n;
}

static void
put_u8(growbuf *b, uint8_t v)
{
	uint8_t    *p = grow(b, 1);

	if (p)
		*p = v;
}

static void
put_u32(growbuf *b, uint32_t v)
{
	uint8_t    *p = grow(b, 4);

	if (p)
		memcpy(p, &v, 4);
}

static void
put_u64(growbuf *b, uint64_t v)
{
	uint8_t    *p = grow(b, 8);

	if (p)
		memcpy(p, &v, 8);
}

typedef struct encoder
{
	growbuf		fields;
	growbuf		table;
} encoder;

/* n bytes (+ a NUL when terminate) into the table; a reference to them in the fields */
static void
put_ref(encoder *e, const void *data, size_t n, bool terminate)
{
	uint8_t    *p;
	size_t		at = ALIGN8(e->table.len);

	if (data == NULL)
	{
		put_u32(&e->fields, NO_REF);
		put_u32(&e->fields, 0);
		return;
	}
	if (at >= NO_REF || n >= NO_REF)
	{
		e->fields.failed = true;
		return;
	}
	if (at > e->table.len)
	{
		size_t		pad = at - e->table.len;

		if ((p = grow(&e->table, pad)) == NULL)
			return;
		memset(p, 0, pad);
	}
	if ((p = grow(&e->table, n + (terminate ? 1 : 0))) == NULL)
		return;
	if (n)
		memcpy(p, data, n);
	if (terminate)
		p[n] = '\0';
	put_u32(&e->fields, (uint32_t) at);
	put_u32(&e->fields, (uint32_t) n);
}

static void
put_bytes(encoder *e, ts_bytes b)
{
	put_ref(e, b.data, b.len, false);
}

static void
put_str(encoder *e, const char *s)
{
	put_ref(e, s, s ? strlen(s) : 0, true);
}

static void
put_strs(encoder *e, char *const *v, int n)
{
	/* a negative count is null: no array, whatever the pointer */
	put_u32(&e->fields, (uint32_t) n);
	put_u8(&e->fields, v != NULL && n >= 0);
	if (v != NULL && n >= 0)
		for (int i = 0; i < n; i++)
			put_str(e, v[i]);
}

static void
put_stats(encoder *e, const ts_simple_stats *s)
{
	put_bytes(e, s->min_values);
	put_bytes(e, s->max_values);
	put_u32(&e->fields, (uint32_t) s->nnull_counts);
	put_ref(e, s->nnull_counts >= 0 ? s->null_counts : NULL,
			s->null_counts && s->nnull_counts > 0 ? sizeof(int64_t) * (size_t) s->nnull_counts : 0,
			false);
}

static void
put_entry(encoder *e, const ts_manifest_entry *m)
{
	const ts_data_file_meta *f = &m->file;

	put_u8(&e->fields, (uint8_t) m->kind);
	put_bytes(e, m->partition);
	put_u32(&e->fields, (uint32_t) m->bucket);
	put_u32(&e->fields, (uint32_t) m->total_buckets);
	put_str(e, f->file_name);
	put_u64(&e->fields, (uint64_t) f->file_size);
	put_u64(&e->fields, (uint64_t) f->row_count);
	put_bytes(e, f->min_key);
	put_bytes(e, f->max_key);
	put_stats(e, &f->key_stats);
	put_stats(e, &f->value_stats);
	put_u64(&e->fields, (uint64_t) f->min_sequence_number);
	put_u64(&e->fields, (uint64_t) f->max_sequence_number);
	put_u64(&e->fields, (uint64_t) f->schema_id);
	put_u32(&e->fields, (uint32_t) f->level);
	put_strs(e, f->extra_files, f->nextra_files);
	put_u8(&e->fields, f->has_creation_time);
	put_u64(&e->fields, (uint64_t) f->creation_time_millis);
	put_u64(&e->fields, (uint64_t) f->delete_row_count);
	put_bytes(e, f->embedded_file_index);
	put_u32(&e->fields, (uint32_t) f->file_source);
	put_strs(e, f->value_stats_cols, f->nvalue_stats_cols);
	put_str(e, f->external_path);
	put_u8(&e->fields, f->has_first_row_id);
	put_u64(&e->fields, (uint64_t) f->first_row_id);
	put_strs(e, f->write_cols, f->nwrite_cols);
}

static uint64_t
record_checksum(const uint8_t *header, const uint8_t *payload, size_t len)
{
	return ts_xxh64(payload, len, ts_xxh64(header, 32, 0));
}

bool
ts_manifest_cache_encode(const ts_manifest_entry *entries, int n, const char *name,
						 int64_t source_size, uint8_t **record, size_t *len)
{
	encoder		e = {{0}};
	uint8_t    *out = NULL;
	size_t		fields_at = HEADER_BYTES + 8;
	size_t		table_at;
	size_t		total;
	uint64_t	v64;
	uint32_t	v32;

	*record = NULL;
	*len = 0;
	if (n < 0 || strlen(name) != 64)
		return false;
	for (int i = 0; i < n; i++)
		put_entry(&e, &entries[i]);
	if (e.fields.failed || e.table.failed)
		goto done;
	table_at = ALIGN8(fields_at + e.fields.len);
	total = table_at + e.table.len;
	if ((out = ts_malloc(total)) == NULL)
		goto done;
	memset(out, 0, table_at);
	memcpy(out, RECORD_MAGIC, 8);
	v32 = TS_MANIFEST_CACHE_VERSION;
	memcpy(out + 8, &v32, 4);
	v32 = (uint32_t) n;
	memcpy(out + 12, &v32, 4);
	v64 = (uint64_t) source_size;
	memcpy(out + 16, &v64, 8);
	v64 = total - HEADER_BYTES;
	memcpy(out + 24, &v64, 8);
	memcpy(out + 40, name, 64);
	v64 = e.fields.len;
	memcpy(out + HEADER_BYTES, &v64, 8);
	if (e.fields.len)
		memcpy(out + fields_at, e.fields.data, e.fields.len);
	if (e.table.len)
		memcpy(out + table_at, e.table.data, e.table.len);
	v64 = record_checksum(out, out + HEADER_BYTES, total - HEADER_BYTES);
	memcpy(out + 32, &v64, 8);
	*record = out;
	*len = total;
done:
	ts_free(e.fields.data);
	ts_free(e.table.data);
	return *record != NULL;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct decoder
{
	const uint8_t *p;			/* next field */
	const uint8_t *end;			/* end of the fields */
	uint8_t    *table;
	size_t		table_len;
	ts_arena   *arena;
	bool		bad;
} decoder;

static bool
need(decoder *d, size_t n)
{
	if (d->bad || (size_t) (d->end - d->p) < n)
	{
		d->bad = true;
		return false;
	}
	return true;
}

static uint8_t
get_u8(decoder *d)
{
	return need(d, 1) ? *d->p++ : 0;
}

static uint32_t
get_u32(decoder *d)
{
	uint32_t	v = 0;

	if (need(d, 4))
	{
		v = ts_load_le32(d->p);
		d->p += 4;
	}
	return v;
}

static uint64_t
get_u64(decoder *d)
{
	uint64_t	v = 0;

	if (need(d, 8))
	{
		v = ts_load_le64(d->p);
		d->p += 8;
	}
	return v;
}

/* a reference: its bytes in the table (NULL for null), checked */
static uint8_t *
get_ref(decoder *d, uint32_t *len, bool string)
{
	uint32_t	at = get_u32(d);
	uint32_t	n = get_u32(d);

	*len = 0;
	if (d->bad || at == NO_REF)
		return NULL;
	if ((at & 7) != 0 || (size_t) at + n + (string ? 1 : 0) > d->table_len ||
		(string && d->table[at + n] != '\0'))
	{
		d->bad = true;
		return NULL;
	}
	*len = n;
	return d->table + at;
}

static ts_bytes
get_bytes(decoder *d)
{
	ts_bytes	b;

	b.data = get_ref(d, &b.len, false);
	return b;
}

static char *
get_str(decoder *d)
{
	uint32_t	n;

	return (char *) get_ref(d, &n, true);
}

static char **
get_strs(decoder *d, int *n)
{
	int32_t		count = (int32_t) get_u32(d);
	bool		present = get_u8(d) != 0;
	char	  **v;

	*n = count;
	if (d->bad || !present)
		return NULL;
	/* each string takes 8 bytes of fields: a count beyond them is malformed */
	if (count < 0 || (size_t) count > (size_t) (d->end - d->p) / 8)
	{
		d->bad = true;
		return NULL;
	}
	v = ts_arena_alloc(d->arena, sizeof(char *) * (size_t) (count ? count : 1));
	if (v == NULL)
	{
		d->bad = true;
		return NULL;
	}
	for (int i = 0; i < count; i++)
		v[i] = get_str(d);
	return v;
}

static void
get_stats(decoder *d, ts_simple_stats *s)
{
	uint32_t	len;

	s->min_values = get_bytes(d);
	s->max_values = get_bytes(d);
	s->nnull_counts = (int32_t) get_u32(d);
	s->null_counts = (int64_t *) get_ref(d, &len, false);
	if (s->null_counts != NULL &&
		(s->nnull_counts < 0 || len != sizeof(int64_t) * (size_t) s->nnull_counts))
		d->bad = true;
}

static void
get_entry(decoder *d, ts_manifest_entry *m)
{
	ts_data_file_meta *f = &m->file;
	uint8_t		kind = get_u8(d);

	if (kind != TS_FILE_ADD && kind != TS_FILE_DELETE)
		d->bad = true;
	m->kind = (ts_file_kind) kind;
	m->partition = get_bytes(d);
	m->bucket = (int32_t) get_u32(d);
	m->total_buckets = (int32_t) get_u32(d);
	f->file_name = get_str(d);
	f->file_size = (int64_t) get_u64(d);
	f->row_count = (int64_t) get_u64(d);
	f->min_key = get_bytes(d);
	f->max_key = get_bytes(d);
	get_stats(d, &f->key_stats);
	get_stats(d, &f->value_stats);
	f->min_sequence_number = (int64_t) get_u64(d);
	f->max_sequence_number = (int64_t) get_u64(d);
	f->schema_id = (int64_t) get_u64(d);
	f->level = (int32_t) get_u32(d);
	f->extra_files = get_strs(d, &f->nextra_files);
	f->has_creation_time = get_u8(d) != 0;
	f->creation_time_millis = (int64_t) get_u64(d);
	f->delete_row_count = (int64_t) get_u64(d);
	f->embedded_file_index = get_bytes(d);
	f->file_source = (int32_t) get_u32(d);
	f->value_stats_cols = get_strs(d, &f->nvalue_stats_cols);
	f->external_path = get_str(d);
	f->has_first_row_id = get_u8(d) != 0;
	f->first_row_id = (int64_t) get_u64(d);
	f->write_cols = get_strs(d, &f->nwrite_cols);
}

bool
ts_manifest_cache_decode(uint8_t *record, size_t len, const char *name, int64_t source_size,
						 ts_arena *arena, ts_manifest_entry **entries, int *count)
{
	decoder		d = {0};
	uint64_t	payload_len,
				fields_len;
	uint32_t	n;
	size_t		fields_at = HEADER_BYTES + 8;
	size_t		table_at;
	ts_manifest_entry *out;

	*entries = NULL;
	*count = 0;
	if (len < HEADER_BYTES + 8 || ((uintptr_t) record & 7) != 0 ||
		memcmp(record, RECORD_MAGIC, 8) != 0 ||
		ts_load_le32(record + 8) != TS_MANIFEST_CACHE_VERSION ||
		ts_load_le64(record + 16) != (uint64_t) source_size ||
		memcmp(record + 40, name, 64) != 0)
		return false;
	n = ts_load_le32(record + 12);
	payload_len = ts_load_le64(record + 24);
	if (payload_len != len - HEADER_BYTES ||
		ts_load_le64(record + 32) != record_checksum(record, record + HEADER_BYTES, payload_len))
		return false;
	fields_len = ts_load_le64(record + HEADER_BYTES);
	if (fields_len > len - fields_at)
		return false;
	table_at = ALIGN8(fields_at + fields_len);
	if (table_at > len || n > fields_len)
		return false;
	d.p = record + fields_at;
	d.end = d.p + fields_len;
	d.table = record + table_at;
	d.table_len = len - table_at;
	d.arena = arena;
	out = ts_arena_alloc(arena, sizeof(ts_manifest_entry) * (n ? n : 1));
	if (out == NULL)
		return false;
	memset(out, 0, sizeof(ts_manifest_entry) * n);
	for (uint32_t i = 0; i < n && !d.bad; i++)
		get_entry(&d, &out[i]);
	if (d.bad || d.p != d.end)
		return false;
	*entries = out;
	*count = (int) n;
	return true;
}

/* ---- reading through the cache ----------------------------------------- */

bool
ts_manifest_cache_has(ts_fs *fs, const char *path, int64_t listed_size)
{
	char		name[65];
	int64_t		size;

	return records_on && ts_mcache_enabled() &&
		ts_fs_cache_name(fs, path, RECORD_KIND, listed_size, name, &size) &&
		ts_mcache_record_exists(name);
}

bool
ts_manifest_read_cached(ts_fs *fs, const char *path, int64_t listed_size, int64_t expected,
						ts_manifest_keep *keep, ts_arena *arena,
						ts_manifest_entry **entries, int *count, ts_err *err)
{
	char		name[65];
	int64_t		size;
	uint8_t    *record;
	size_t		len;

	if (!records_on || !ts_mcache_enabled() ||
		!ts_fs_cache_name(fs, path, RECORD_KIND, listed_size, name, &size))
		return ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err);
	if (ts_mcache_record_read(name, arena, &record, &len))
	{
		if (ts_manifest_cache_decode(record, len, name, size, arena, entries, count))
		{
			stats.hits++;
			return true;
		}
		/* never used: removed, and rebuilt from the file below */
		stats.rejected++;
		ts_mcache_record_remove(name);
	}
	stats.misses++;
	if (!ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err))
		return false;
	if (ts_manifest_cache_encode(*entries, *count, name, size, &record, &len))
	{
		if (ts_mcache_record_write(name, record, len))
			stats.stores++;
		ts_free(record);
	}
	return true;
}
