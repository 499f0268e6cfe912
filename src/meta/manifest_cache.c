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
 *     fields           every entry's fields in order, packed: an integer
 *                      is a zigzag LEB128 varint (1 byte for small values
 *                      and for -1, the usual null), a flag one byte, and a
 *                      string, a byte field or an array of null counts a
 *                      reference: varint length + 1 (0 = null), its bytes
 *                      being the next ones of the table
 *     padding to 8, then the table: every referenced value in the order of
 *                      the fields, strings NUL-terminated and unaligned,
 *                      byte fields and null counts (int64, read in place)
 *                      8-aligned from the table's start; the decoder walks
 *                      it with the fields and must end exactly at its end.
 * Version 1 held each reference as a fixed offset + length (8 bytes) and
 * every integer in 4 or 8 bytes, every value 8-aligned: 450 bytes an
 * entry of bench/plan_cache.sh's table against ~300 now (43 + 256), and a new
 * connection's plan spends most of its time touching fresh memory
 * (bench/RESULTS.md), so the smaller record reads, checks and copies less.
 * A hit reads the record whole into the plan's arena and builds the
 * entries' structs there with pointers into it: no copy of names or stats.
 * Why read, not map: a mapping (MAP_PRIVATE | MAP_POPULATE, kept for the
 * process's life) was tried and measured slower on the project's machine
 * (a paravirtualized VM: every 4 kB page of a mapping costs ~2 us on first
 * touch, MAP_POPULATE or not, while the arena's fresh memory comes in
 * 2 MB huge pages), and a mapped file truncated in place would raise
 * SIGBUS in every backend that maps it.  A copy cannot fault later, and
 * the bytes checked are the bytes used.
 * Any mismatch (magic, version, name, source size, length, checksum, a
 * reference out of the table, a string without its NUL) rejects the record:
 * it is removed and the manifest decoded from its file (and stored again).
 *
 * Light records.  Every manifest decoded is stored twice: the full record
 * and a light one ("TSMANLIT", its own key kind, so that neither is ever
 * taken for the other) whose entries leave out key_stats, value_stats and
 * value_stats_cols (decoded as null: -1 counts, no min / max), which are
 * more than half of a full record's bytes (bench/RESULTS.md, branch
 * coldlite: 137 instead of 295 bytes an entry).  Only a caller that reads
 * no statistics asks for it (light_ok: a plan without a predicate to prune
 * by, src/scan/plan.c; stats_prune.c is the statistics' only reader, the
 * min / max keys and the embedded file index stay in both kinds); it falls
 * back to the full record, and makes the light one again from it when it
 * was missing or rejected.  The entry cache (src/scan/cache.c) marks the
 * sets it keeps that hold light entries and hands them to such plans only.
 *
 * Live-set records.  A snapshot's live set as the entry cache fills it
 * (src/scan/cache.c: the merged ADDs of every manifest, in split order) is
 * stored as one more record ("TSLIVSET", light "TSLIVLIT"), in the same
 * format but for a block at the payload's start (its length u64, then the
 * partitions and buckets counted, u64 each, then the entry cache's whole
 * key, padded to 8) that a read compares with its own key.  Its name is
 * the digest of its kind and that key with the snapshot's base manifest
 * list's store, URI and size (as a manifest's), so a snapshot or a
 * re-created table with other lists never finds another's.  A new
 * process's first plan of a snapshot then reads one record instead of the
 * lists and a record a manifest.  Each kind is written by the first plan
 * that needs it and does not find it (a plan without a predicate: the
 * light kind; any other: the whole one); a plan that reads statistics
 * reads only the whole kind, any other the light one, else the whole one.
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
#define LIGHT_MAGIC "TSMANLIT"
/* the records of another version get other names: old and new backends never take each other's */
#define RECORD_KIND "tablescan decoded manifest 2"
/* a light record (no statistics) is named apart from the full one of the same manifest */
#define LIGHT_KIND "tablescan decoded manifest light 2"
/* a snapshot's live set (the entry cache's fill), full or light: its key is in the name */
#define LIVE_MAGIC "TSLIVSET"
#define LIVE_LIGHT_MAGIC "TSLIVLIT"
#define LIVE_KIND "tablescan live set 2"
#define LIVE_LIGHT_KIND "tablescan live set light 2"
#define HEADER_BYTES 104
#define ALIGN8(n) (((n) + 7) & ~(size_t) 7)

static ts_manifest_cache_stats stats;
static bool records_on = true;
static bool live_sets_on = true;

void
ts_manifest_cache_set_enabled(bool on)
{
	records_on = on;
}

void
ts_live_set_set_enabled(bool on)
{
	live_sets_on = on;
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

/* unsigned LEB128: 7 bits a byte, low first, high bit = more */
static void
put_uvar(growbuf *b, uint64_t v)
{
	uint8_t		tmp[10];
	int			n = 0;
	uint8_t    *p;

	do
	{
		tmp[n++] = (uint8_t) ((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	if ((p = grow(b, (size_t) n)) != NULL)
		memcpy(p, tmp, (size_t) n);
}

/* a signed integer, zigzag first (-1, the usual null, takes one byte) */
static void
put_var(growbuf *b, int64_t v)
{
	put_uvar(b, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

typedef struct encoder
{
	growbuf		fields;
	growbuf		table;
} encoder;

/*
 * n bytes (+ a NUL when terminate) appended to the table, 8-aligned when
 * aligned; the reference in the fields is their length + 1 (0: null): the
 * decoder finds them at its own table cursor.
 */
static void
put_ref(encoder *e, const void *data, size_t n, bool terminate, bool aligned)
{
	uint8_t    *p;
	size_t		at = aligned ? ALIGN8(e->table.len) : e->table.len;

	if (data == NULL)
	{
		put_uvar(&e->fields, 0);
		return;
	}
	if (n >= UINT32_MAX)
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
	put_uvar(&e->fields, (uint64_t) n + 1);
}

/* byte fields (binary rows) and arrays of int64 stay 8-aligned; strings need not */
static void
put_bytes(encoder *e, ts_bytes b)
{
	put_ref(e, b.data, b.len, false, true);
}

static void
put_str(encoder *e, const char *s)
{
	put_ref(e, s, s ? strlen(s) : 0, true, false);
}

static void
put_strs(encoder *e, char *const *v, int n)
{
	/* a negative count is null: no array, whatever the pointer */
	put_var(&e->fields, n);
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
	put_var(&e->fields, s->nnull_counts);
	put_ref(e, s->nnull_counts >= 0 ? s->null_counts : NULL,
			s->null_counts && s->nnull_counts > 0 ? sizeof(int64_t) * (size_t) s->nnull_counts : 0,
			false, true);
}

static inline __attribute__((always_inline)) void
put_entry(encoder *e, const ts_manifest_entry *m, bool light)
{
	const ts_data_file_meta *f = &m->file;

	put_u8(&e->fields, (uint8_t) m->kind);
	put_bytes(e, m->partition);
	put_var(&e->fields, m->bucket);
	put_var(&e->fields, m->total_buckets);
	put_str(e, f->file_name);
	put_var(&e->fields, f->file_size);
	put_var(&e->fields, f->row_count);
	put_bytes(e, f->min_key);
	put_bytes(e, f->max_key);
	if (!light)
	{
		put_stats(e, &f->key_stats);
		put_stats(e, &f->value_stats);
	}
	put_var(&e->fields, f->min_sequence_number);
	put_var(&e->fields, f->max_sequence_number);
	put_var(&e->fields, f->schema_id);
	put_var(&e->fields, f->level);
	put_strs(e, f->extra_files, f->nextra_files);
	put_u8(&e->fields, f->has_creation_time);
	put_var(&e->fields, f->creation_time_millis);
	put_var(&e->fields, f->delete_row_count);
	put_bytes(e, f->embedded_file_index);
	put_var(&e->fields, f->file_source);
	if (!light)
		put_strs(e, f->value_stats_cols, f->nvalue_stats_cols);
	put_str(e, f->external_path);
	put_u8(&e->fields, f->has_first_row_id);
	put_var(&e->fields, f->first_row_id);
	put_strs(e, f->write_cols, f->nwrite_cols);
}

static uint64_t
record_checksum(const uint8_t *header, const uint8_t *payload, size_t len)
{
	return ts_xxh64(payload, len, ts_xxh64(header, 32, 0));
}

/*
 * entries: contiguous, or ptrs: an array of pointers (a live set); extra:
 * a live set's header block (extra_len bytes at the payload's start,
 * after its length), NULL for a manifest's record.
 */
static bool
encode_record(const ts_manifest_entry *entries, const ts_manifest_entry *const *ptrs,
			  int n, const char *name, int64_t source_size, const char *magic, bool light,
			  const uint8_t *extra, size_t extra_len, uint8_t **record, size_t *len)
{
	encoder		e = {{0}};
	uint8_t    *out = NULL;
	size_t		base = HEADER_BYTES + (extra ? 8 + ALIGN8(extra_len) : 0);
	size_t		fields_at = base + 8;
	size_t		table_at;
	size_t		total;
	uint64_t	v64;
	uint32_t	v32;

	*record = NULL;
	*len = 0;
	if (n < 0 || strlen(name) != 64)
		return false;
	for (int i = 0; i < n; i++)
		put_entry(&e, ptrs ? ptrs[i] : &entries[i], light);
	if (e.fields.failed || e.table.failed)
		goto done;
	table_at = ALIGN8(fields_at + e.fields.len);
	total = table_at + e.table.len;
	if ((out = ts_malloc(total)) == NULL)
		goto done;
	memset(out, 0, table_at);
	memcpy(out, magic, 8);
	if (extra)
	{
		v64 = extra_len;
		memcpy(out + HEADER_BYTES, &v64, 8);
		if (extra_len)
			memcpy(out + HEADER_BYTES + 8, extra, extra_len);
	}
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
	memcpy(out + base, &v64, 8);
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

bool
ts_manifest_cache_encode(const ts_manifest_entry *entries, int n, const char *name,
						 int64_t source_size, uint8_t **record, size_t *len)
{
	return encode_record(entries, NULL, n, name, source_size, RECORD_MAGIC, false, NULL, 0,
						 record, len);
}

bool
ts_manifest_cache_encode_light(const ts_manifest_entry *entries, int n, const char *name,
							   int64_t source_size, uint8_t **record, size_t *len)
{
	return encode_record(entries, NULL, n, name, source_size, LIGHT_MAGIC, true, NULL, 0,
						 record, len);
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct decoder
{
	const uint8_t *p;			/* next field */
	const uint8_t *end;			/* end of the fields */
	uint8_t    *table;
	size_t		table_len;
	size_t		at;				/* the table's next unread byte */
	ts_arena   *arena;
	bool		bad;
} decoder;

/* the next byte is there and no earlier field was malformed */
static inline bool
likely_one_byte(const decoder *d)
{
	return __builtin_expect(d->p < d->end && !d->bad, 1);
}

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

static inline uint8_t
get_u8(decoder *d)
{
	if (likely_one_byte(d))
		return *d->p++;
	d->bad = true;
	return 0;
}

static uint64_t
get_uvar_long(decoder *d)
{
	uint64_t	v = 0;

	/* at most 10 bytes; the tenth may only hold the top bit */
	for (int shift = 0; shift < 70; shift += 7)
	{
		uint8_t		b;

		if (!need(d, 1))
			return 0;
		b = *d->p++;
		if (shift == 63 && (b & 0x7E) != 0)
			break;
		v |= (uint64_t) (b & 0x7F) << shift;
		if ((b & 0x80) == 0)
			return v;
	}
	d->bad = true;
	return 0;
}

/*
 * most fields are one byte (small values, -1) and most others two (sizes,
 * counts under 16,384): read those inline
 */
static inline __attribute__((always_inline)) uint64_t
get_uvar(decoder *d)
{
	if (likely_one_byte(d))
	{
		uint8_t		b0 = d->p[0];

		if (b0 < 0x80)
		{
			d->p++;
			return b0;
		}
		if (d->end - d->p >= 2 && d->p[1] < 0x80)
		{
			uint64_t	v = (uint64_t) (b0 & 0x7F) | ((uint64_t) d->p[1] << 7);

			d->p += 2;
			return v;
		}
	}
	return get_uvar_long(d);
}

static inline int64_t
get_var(decoder *d)
{
	uint64_t	u = get_uvar(d);

	return (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
}

/* a 32-bit field: a value out of its range is malformed */
static inline int32_t
get_var32(decoder *d)
{
	int64_t		v = get_var(d);

	if (v < INT32_MIN || v > INT32_MAX)
	{
		d->bad = true;
		return 0;
	}
	return (int32_t) v;
}

/*
 * a reference: its bytes at the table cursor (NULL for null), checked.
 * Inlined: a dozen an entry, string and aligned known at each call.
 */
static inline __attribute__((always_inline)) uint8_t *
get_ref(decoder *d, uint32_t *len, bool string, bool aligned)
{
	uint64_t	ref = get_uvar(d);
	size_t		at = aligned ? ALIGN8(d->at) : d->at;
	uint8_t    *out;

	*len = 0;
	if (d->bad || ref == 0)
		return NULL;
	if (ref - 1 >= UINT32_MAX || at > d->table_len ||
		ref - 1 + (string ? 1 : 0) > d->table_len - at ||
		(string && d->table[at + ref - 1] != '\0'))
	{
		d->bad = true;
		return NULL;
	}
	*len = (uint32_t) (ref - 1);
	out = d->table + at;
	d->at = at + *len + (string ? 1 : 0);
	return out;
}

static ts_bytes
get_bytes(decoder *d)
{
	ts_bytes	b;

	b.data = get_ref(d, &b.len, false, true);
	return b;
}

static char *
get_str(decoder *d)
{
	uint32_t	n;

	return (char *) get_ref(d, &n, true, false);
}

/* nothing writes through an entry's string lists: an empty one may be shared */
static char *const empty_strs[1] = {NULL};

static char **
get_strs(decoder *d, int *n)
{
	int32_t		count = get_var32(d);
	bool		present = get_u8(d) != 0;
	char	  **v;

	*n = count;
	if (d->bad || !present)
		return NULL;
	/* each string takes a byte of fields at least: a count beyond them is malformed */
	if (count < 0 || (size_t) count > (size_t) (d->end - d->p))
	{
		d->bad = true;
		return NULL;
	}
	/* an empty list (every file's extra files, most often): one shared, read-only array */
	if (count == 0)
		return (char **) empty_strs;
	v = ts_arena_alloc(d->arena, sizeof(char *) * (size_t) count);
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
	s->nnull_counts = get_var32(d);
	s->null_counts = (int64_t *) get_ref(d, &len, false, true);
	if (s->null_counts != NULL &&
		(s->nnull_counts < 0 || len != sizeof(int64_t) * (size_t) s->nnull_counts))
		d->bad = true;
}

/*
 * Sets every field of *m, which is not cleared before: a field added to
 * ts_manifest_entry or ts_data_file_meta must be encoded and decoded here
 * (the sizes below then change and stop the build as a reminder).
 */
#if __SIZEOF_POINTER__ == 8
_Static_assert(sizeof(ts_data_file_meta) == 288 && sizeof(ts_manifest_entry) == 320,
			   "a field added to a manifest entry: encode and decode it in put_entry / get_entry");
#endif

/* a light record's entry: no statistics, as a manifest with null ones */
static const ts_simple_stats no_stats = {{NULL, 0}, {NULL, 0}, -1, NULL};

static inline __attribute__((always_inline)) void
get_entry(decoder *d, ts_manifest_entry *m, bool light)
{
	ts_data_file_meta *f = &m->file;
	uint8_t		kind = get_u8(d);

	if (kind != TS_FILE_ADD && kind != TS_FILE_DELETE)
		d->bad = true;
	m->kind = (ts_file_kind) kind;
	m->partition = get_bytes(d);
	m->bucket = get_var32(d);
	m->total_buckets = get_var32(d);
	f->file_name = get_str(d);
	f->file_size = get_var(d);
	f->row_count = get_var(d);
	f->min_key = get_bytes(d);
	f->max_key = get_bytes(d);
	if (light)
	{
		f->key_stats = no_stats;
		f->value_stats = no_stats;
	}
	else
	{
		get_stats(d, &f->key_stats);
		get_stats(d, &f->value_stats);
	}
	f->min_sequence_number = get_var(d);
	f->max_sequence_number = get_var(d);
	f->schema_id = get_var(d);
	f->level = get_var32(d);
	f->extra_files = get_strs(d, &f->nextra_files);
	f->has_creation_time = get_u8(d) != 0;
	f->creation_time_millis = get_var(d);
	f->delete_row_count = get_var(d);
	f->embedded_file_index = get_bytes(d);
	f->file_source = get_var32(d);
	if (light)
	{
		f->nvalue_stats_cols = -1;
		f->value_stats_cols = NULL;
	}
	else
		f->value_stats_cols = get_strs(d, &f->nvalue_stats_cols);
	f->external_path = get_str(d);
	f->has_first_row_id = get_u8(d) != 0;
	f->first_row_id = get_var(d);
	f->write_cols = get_strs(d, &f->nwrite_cols);
}

/*
 * A live set's header block: its live counts, then the whole key of the
 * entry cache (src/scan/cache.c), compared with the caller's.
 */
typedef struct live_extra
{
	const uint8_t *key;
	size_t		keylen;
	int64_t		partitions;		/* out */
	int64_t		buckets;		/* out */
} live_extra;

#define LIVE_COUNTS_BYTES 16

static bool
decode_record(uint8_t *record, size_t len, const char *name, int64_t source_size,
			  const char *magic, bool light, live_extra *live,
			  ts_arena *arena, ts_manifest_entry **entries, int *count)
{
	decoder		d = {0};
	uint64_t	payload_len,
				fields_len;
	uint32_t	n;
	size_t		base = HEADER_BYTES;
	size_t		fields_at;
	size_t		table_at;
	ts_manifest_entry *out;

	*entries = NULL;
	*count = 0;
	if (len < HEADER_BYTES + 8 || ((uintptr_t) record & 7) != 0 ||
		memcmp(record, magic, 8) != 0 ||
		ts_load_le32(record + 8) != TS_MANIFEST_CACHE_VERSION ||
		ts_load_le64(record + 16) != (uint64_t) source_size ||
		memcmp(record + 40, name, 64) != 0)
		return false;
	n = ts_load_le32(record + 12);
	payload_len = ts_load_le64(record + 24);
	if (payload_len != len - HEADER_BYTES ||
		ts_load_le64(record + 32) != record_checksum(record, record + HEADER_BYTES, payload_len))
		return false;
	if (live)
	{
		uint64_t	extra_len = ts_load_le64(record + HEADER_BYTES);

		/* exactly the counts and this key */
		if (len < HEADER_BYTES + 16 || extra_len != LIVE_COUNTS_BYTES + live->keylen ||
			ALIGN8(extra_len) > len - HEADER_BYTES - 8 - 8 ||
			memcmp(record + HEADER_BYTES + 8 + LIVE_COUNTS_BYTES, live->key, live->keylen) != 0)
			return false;
		live->partitions = (int64_t) ts_load_le64(record + HEADER_BYTES + 8);
		live->buckets = (int64_t) ts_load_le64(record + HEADER_BYTES + 16);
		if (live->partitions < 0 || live->buckets < 0 ||
			live->partitions > INT32_MAX || live->buckets > INT32_MAX)
			return false;
		base = HEADER_BYTES + 8 + ALIGN8(extra_len);
	}
	fields_at = base + 8;
	fields_len = ts_load_le64(record + base);
	if (fields_len > len - fields_at)
		return false;
	table_at = ALIGN8(fields_at + fields_len);
	/* an entry takes a dozen bytes of fields at least */
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
	/*
	 * get_entry sets every field of an entry: no clearing first (a memset of
	 * each 320-byte struct was an eighth of the decode)
	 */
	if (light)
		for (uint32_t i = 0; i < n && !d.bad; i++)
			get_entry(&d, &out[i], true);
	else
		for (uint32_t i = 0; i < n && !d.bad; i++)
			get_entry(&d, &out[i], false);
	/* every field and every byte of the table used */
	if (d.bad || d.p != d.end || d.at != d.table_len)
		return false;
	*entries = out;
	*count = (int) n;
	return true;
}

bool
ts_manifest_cache_decode(uint8_t *record, size_t len, const char *name, int64_t source_size,
						 ts_arena *arena, ts_manifest_entry **entries, int *count)
{
	return decode_record(record, len, name, source_size, RECORD_MAGIC, false, NULL, arena,
						 entries, count);
}

bool
ts_manifest_cache_decode_light(uint8_t *record, size_t len, const char *name, int64_t source_size,
							   ts_arena *arena, ts_manifest_entry **entries, int *count)
{
	return decode_record(record, len, name, source_size, LIGHT_MAGIC, true, NULL, arena,
						 entries, count);
}

/* ---- reading through the cache ----------------------------------------- */

bool
ts_manifest_cache_has(ts_fs *fs, const char *path, int64_t listed_size, bool light_ok)
{
	char		name[65];
	int64_t		size;

	if (!records_on || !ts_mcache_enabled())
		return false;
	if (light_ok && ts_fs_cache_name(fs, path, LIGHT_KIND, listed_size, name, &size) &&
		ts_mcache_record_exists(name))
		return true;
	return ts_fs_cache_name(fs, path, RECORD_KIND, listed_size, name, &size) &&
		ts_mcache_record_exists(name);
}

/* the record of one kind under name, checked; a record that does not check is removed */
static bool
read_record(const char *name, int64_t size, bool light, ts_arena *arena,
			ts_manifest_entry **entries, int *count)
{
	uint8_t    *record;
	size_t		len;

	if (!ts_mcache_record_read(name, arena, &record, &len))
		return false;
	if (decode_record(record, len, name, size, light ? LIGHT_MAGIC : RECORD_MAGIC, light, NULL,
					  arena, entries, count))
		return true;
	/* never used: removed, and rebuilt from the file */
	stats.rejected++;
	ts_mcache_record_remove(name);
	return false;
}

/* store entries as a record of one kind; false when it could not be written */
static bool
store_record(const ts_manifest_entry *entries, int count, const char *name, int64_t size,
			 bool light)
{
	uint8_t    *record;
	size_t		len;
	bool		ok = false;

	if (encode_record(entries, NULL, count, name, size, light ? LIGHT_MAGIC : RECORD_MAGIC, light,
					  NULL, 0, &record, &len))
	{
		ok = ts_mcache_record_write(name, record, len);
		ts_free(record);
	}
	return ok;
}

bool
ts_manifest_read_cached(ts_fs *fs, const char *path, int64_t listed_size, int64_t expected,
						ts_manifest_keep *keep, bool light_ok, ts_arena *arena,
						ts_manifest_entry **entries, int *count, bool *light, ts_err *err)
{
	char		name[65],
				light_name[65];
	int64_t		size;
	bool		light_named = false;	/* light_name computed */
	bool		stored;

	if (light)
		*light = false;
	if (!records_on || !ts_mcache_enabled())
		return ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err);
	/* each name is a digest: computed when needed (a full plan's hit needs one) */
	if (light_ok)
	{
		if (!ts_fs_cache_name(fs, path, LIGHT_KIND, listed_size, light_name, &size))
			return ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err);
		light_named = true;
		/* a plan that needs no statistics reads the light record first */
		if (read_record(light_name, size, true, arena, entries, count))
		{
			stats.hits++;
			stats.light_hits++;
			if (light)
				*light = true;
			return true;
		}
	}
	if (!ts_fs_cache_name(fs, path, RECORD_KIND, listed_size, name, &size))
		return ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err);
	if (read_record(name, size, false, arena, entries, count))
	{
		stats.hits++;
		/* the light record was missing or rejected: made again from the full one */
		if (light_named && store_record(*entries, *count, light_name, size, true))
			stats.light_stores++;
		return true;
	}
	stats.misses++;
	if (!ts_manifest_read_kept(fs, path, expected, keep, arena, entries, count, err))
		return false;
	/* both kinds, whichever this plan needed: the next plan may need the other */
	if (!light_named)
		light_named = ts_fs_cache_name(fs, path, LIGHT_KIND, listed_size, light_name, &size);
	stored = store_record(*entries, *count, name, size, false);
	if (light_named && store_record(*entries, *count, light_name, size, true))
		stats.light_stores++;
	if (stored)
		stats.stores++;
	return true;
}

/* ---- a snapshot's live set ------------------------------------------------ */

/*
 * The name of a live set's record: the digest of its kind and key (as
 * hex: the key holds NULs) with the store, URI, size (and a local file's
 * mtime) of the snapshot's base manifest list, as a manifest's record is
 * named after its file (so a role that cannot open the list finds nothing).
 */
static bool
live_name(ts_fs *fs, const char *list_path, int64_t listed_size, const void *key,
		  size_t keylen, bool light, char name[65], int64_t *size)
{
	const char *kind = light ? LIVE_LIGHT_KIND : LIVE_KIND;
	size_t		klen = strlen(kind);
	char	   *text = ts_malloc(klen + 1 + 2 * keylen + 1);
	static const char hex[] = "0123456789abcdef";
	bool		ok;

	if (text == NULL)
		return false;
	memcpy(text, kind, klen);
	text[klen] = ' ';
	for (size_t i = 0; i < keylen; i++)
	{
		text[klen + 1 + 2 * i] = hex[((const uint8_t *) key)[i] >> 4];
		text[klen + 2 + 2 * i] = hex[((const uint8_t *) key)[i] & 15];
	}
	text[klen + 1 + 2 * keylen] = '\0';
	ok = ts_fs_cache_name(fs, list_path, text, listed_size, name, size);
	ts_free(text);
	stats.live_names++;
	return ok;
}

/* The name of the kind's record, from names when it was computed there already. */
static bool
live_name_once(ts_fs *fs, const char *list_path, int64_t listed_size, const void *key,
			   size_t keylen, bool light, ts_live_set_names *names, char name[65],
			   int64_t *size)
{
	int			k = light ? 1 : 0;

	if (names == NULL)
		return live_name(fs, list_path, listed_size, key, keylen, light, name, size);
	/*
	 * a failure is not kept: before the fill the list's size may be unknown
	 * to the fs (an object store's), after it known, as each call found it
	 */
	if (!names->ok[k])
		names->ok[k] = live_name(fs, list_path, listed_size, key, keylen, light,
								 names->name[k], &names->size[k]);
	if (!names->ok[k])
		return false;
	memcpy(name, names->name[k], 65);
	*size = names->size[k];
	return true;
}

static uint8_t *
live_extra_block(const void *key, size_t keylen, int partitions, int buckets)
{
	uint8_t    *x = ts_malloc(LIVE_COUNTS_BYTES + keylen);
	uint64_t	v;

	if (x == NULL)
		return NULL;
	v = (uint64_t) partitions;
	memcpy(x, &v, 8);
	v = (uint64_t) buckets;
	memcpy(x + 8, &v, 8);
	if (keylen)
		memcpy(x + LIVE_COUNTS_BYTES, key, keylen);
	return x;
}

bool
ts_live_set_encode(const ts_manifest_entry *const *entries, int n, bool light, const char *name,
				   int64_t source_size, const void *key, size_t keylen, int partitions,
				   int buckets, uint8_t **record, size_t *len)
{
	uint8_t    *x = live_extra_block(key, keylen, partitions, buckets);
	bool		ok;

	*record = NULL;
	*len = 0;
	if (x == NULL || partitions < 0 || buckets < 0)
	{
		ts_free(x);
		return false;
	}
	ok = encode_record(NULL, entries, n, name, source_size,
					   light ? LIVE_LIGHT_MAGIC : LIVE_MAGIC, light,
					   x, LIVE_COUNTS_BYTES + keylen, record, len);
	ts_free(x);
	return ok;
}

bool
ts_live_set_decode(uint8_t *record, size_t len, bool light, const char *name,
				   int64_t source_size, const void *key, size_t keylen, ts_arena *arena,
				   ts_manifest_entry **entries, int *count, int *partitions, int *buckets)
{
	live_extra	x = {key, keylen, 0, 0};

	if (!decode_record(record, len, name, source_size, light ? LIVE_LIGHT_MAGIC : LIVE_MAGIC,
					   light, &x, arena, entries, count))
		return false;
	*partitions = (int) x.partitions;
	*buckets = (int) x.buckets;
	return true;
}

bool
ts_live_set_read(ts_fs *fs, const char *list_path, int64_t listed_size, const void *key,
				 size_t keylen, bool light_ok, ts_arena *arena, const ts_manifest_entry ***entries,
				 int *count, int *partitions, int *buckets, bool *light,
				 ts_live_set_names *names, ts_shr_pin *shared)
{
	bool		disk = ts_mcache_enabled();
	bool		shm = shared != NULL && ts_shr_attached();

	*light = false;
	if (shared != NULL)
		shared->slot = -1;
	if (!records_on || !live_sets_on || (!disk && !shm) || list_path == NULL)
		return false;
	/* a plan that reads statistics never takes the light kind */
	for (int k = light_ok ? 1 : 0; k >= 0; k--)
	{
		char		name[65];
		int64_t		size;
		uint8_t    *record;
		size_t		len;
		ts_manifest_entry *e;

		if (!live_name_once(fs, list_path, listed_size, key, keylen, k == 1, names, name, &size))
			continue;
		if (shm && ts_live_set_shared_get(name, key, keylen, entries, count, partitions,
										  buckets, shared))
		{
			stats.live_shared_hits++;
			*light = k == 1;
			return true;
		}
		if (!disk || !ts_mcache_record_read(name, arena, &record, &len))
			continue;
		if (ts_live_set_decode(record, len, k == 1, name, size, key, keylen, arena,
							   &e, count, partitions, buckets))
		{
			/* the array the entry cache keeps as the set and its split order */
			const ts_manifest_entry **ptrs = ts_arena_alloc(arena, sizeof(*ptrs) *
															(size_t) (*count ? *count : 1));

			if (ptrs == NULL)
				return false;	/* not a hit; the record is sound: kept */
			for (int i = 0; i < *count; i++)
				ptrs[i] = &e[i];
			*entries = ptrs;
			stats.live_hits++;
			*light = k == 1;
			/* the next backend finds it in shared memory */
			if (shm && ts_live_set_shared_put(name, key, keylen, ptrs, *count, k == 1,
											  *partitions, *buckets))
				stats.live_shared_stores++;
			return true;
		}
		/* never used: removed, and written again by the plan that fills the set */
		stats.rejected++;
		ts_mcache_record_remove(name);
	}
	return false;
}

void
ts_live_set_store(ts_fs *fs, const char *list_path, int64_t listed_size, const void *key,
				  size_t keylen, const ts_manifest_entry *const *entries, int n, bool light,
				  int partitions, int buckets, ts_live_set_names *names)
{
	char		name[65];
	int64_t		size;
	uint8_t    *record;
	size_t		len;
	bool		disk = ts_mcache_enabled();
	bool		shm = ts_shr_attached();

	if (!records_on || !live_sets_on || (!disk && !shm) || list_path == NULL)
		return;
	/* one kind: writing a live set costs what writing its manifests' records did */
	if (!live_name_once(fs, list_path, listed_size, key, keylen, light, names, name, &size))
		return;
	if (shm && ts_live_set_shared_put(name, key, keylen, entries, n, light, partitions, buckets))
		stats.live_shared_stores++;
	if (!disk ||
		!ts_live_set_encode(entries, n, light, name, size, key, keylen, partitions, buckets,
							&record, &len))
		return;
	if (ts_mcache_record_write(name, record, len))
		stats.live_stores++;
	ts_free(record);
}
