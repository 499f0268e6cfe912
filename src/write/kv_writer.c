/*
 * kv_writer.c - the KeyValue layout of primary-key table files.
 *
 * Owns, for the table writer (table_writer.c): which primary-key tables
 * a plain writer can write so that every reader merges them right (fixed
 * buckets; merge engines the reader applies; WRITES-AND-STREAMS.md 3.3-3.9),
 * the fields of a level-0 data file (_KEY_<k> for the trimmed primary
 * key, _SEQUENCE_NUMBER, _VALUE_KIND, then every column, field ids as
 * Java's KeyValue / SpecialFields), the buffer of one bucket's records
 * (copied, numbered as they come), sorted by key then sequence number into
 * layers that each hold a key at most once (deduplicate keeps a key's last
 * record only, as Java's in-buffer merge), the key BinaryRows of a file,
 * and the largest sequence number of every bucket of the snapshot written
 * on, which new numbers continue after.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ts_base.h"
#include "expr/predicate.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "write/write_internal.h"

#define KEY_FIELD_ID_BASE 1073741823	/* Integer.MAX_VALUE / 2 */
#define SEQUENCE_FIELD_ID 2147483646	/* Integer.MAX_VALUE - 1 */
#define VALUE_KIND_FIELD_ID 2147483645	/* Integer.MAX_VALUE - 2 */

static ts_type sequence_type = {.kind = TS_BIGINT, .nullable = false};
static ts_type value_kind_type = {.kind = TS_TINYINT, .nullable = false};

struct ts_kv_layout
{
	const ts_schema *schema;
	int			nkeys;
	int		   *key_fields;		/* trimmed primary key, field indexes */
	const ts_type **key_types;
	ts_field   *fields;			/* the file's: keys, sequence, kind, columns */
	int			nfields;
	bool		last_only;		/* deduplicate: a key's last record only */
	bool		nulls_kept;		/* partial-update: a NULL does not overwrite */
	bool		deletes_ok;		/* -D rows are read as deletes */
	bool		updates_ok;		/* +U rows replace the row */
	const char *refuse_update;	/* why not, naming the option */
	const char *refuse_delete;
	/* the snapshot written on: its buckets' sequence numbers (bucket_seqs.c) */
	bool		seqs_loaded;
	ts_bucket_seqs seqs;
};

/* ---- which tables -------------------------------------------------------- */

static bool
refuse(ts_err *err, const char *key, const char *value, const char *why)
{
	ts_error(err, TS_ERR_UNSUPPORTED,
			 "writing to a primary-key table with \"%s\" = \"%s\" is not supported yet", key, value);
	ts_error_hint(err, "%s", why);
	return false;
}

static bool
is_true(const char *v)
{
	return v != NULL && strcasecmp(v, "true") == 0;
}

ts_kv_layout *
ts_kv_layout_create(const ts_schema *schema, ts_write_option_fn option, const void *arg, ts_err *err)
{
	static const struct
	{
		const char *key;
		const char *ok;			/* the value that is fine (NULL: any set value is refused) */
		const char *why;
	}			refused[] = {
		{"sequence.field", NULL, "Records would be ordered by the sequence field, which this writer does not apply."},
		{"rowkind.field", NULL, "The row kind would come from a column, which this writer does not apply."},
		{"data-file.thin-mode", "false", "Thin-mode files omit the key columns; this writer writes them."},
		{"record-level.expire-time", NULL, "Record expiration is applied by Java writers only."},
		{"primary-key.nullable", "false", "Nullable primary keys are not written by this writer."},
		{"pk-clustering-override", "false", "Clustered primary-key tables are written by Java only."},
	};
	ts_kv_layout *l;
	const char *v;
	const char *engine;
	int			nb;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		v = option(arg, refused[i].key);
		if (v != NULL && (refused[i].ok == NULL || strcasecmp(v, refused[i].ok) != 0))
			return refuse(err, refused[i].key, v, refused[i].why) ? NULL : NULL;
	}
	v = option(arg, "bucket");
	nb = v != NULL ? atoi(v) : -1;
	if (v == NULL || nb <= 0)
		return refuse(err, "bucket", v ? v : "-1",
					  "Dynamic (-1) and postponed (-2) buckets need an index or a compaction job; primary-key tables are written with fixed buckets (bucket > 0) only.") ? NULL : NULL;
	engine = option(arg, "merge-engine");
	if (engine == NULL)
		engine = "deduplicate";
	if (strcasecmp(engine, "first-row") == 0)
		return refuse(err, "merge-engine", engine,
					  "Batch reads of first-row tables skip level 0: the rows written would stay invisible until a Java compaction.") ? NULL : NULL;
	if (strcasecmp(engine, "deduplicate") != 0 && strcasecmp(engine, "partial-update") != 0 &&
		strcasecmp(engine, "aggregation") != 0)
		return refuse(err, "merge-engine", engine, "Unknown merge engine.") ? NULL : NULL;
	for (int i = 0; i < schema->noptions; i++)
		if (strstr(schema->option_keys[i], ".sequence-group") != NULL)
			return refuse(err, schema->option_keys[i], schema->option_values[i],
						  "Sequence groups order fields by a column, which this writer does not apply.") ? NULL : NULL;

	l = ts_calloc(1, sizeof(ts_kv_layout));
	if (l == NULL)
	{
		ts_error_nomem(err, "a primary-key layout");
		return NULL;
	}
	l->schema = schema;
	l->last_only = strcasecmp(engine, "deduplicate") == 0;
	l->nulls_kept = strcasecmp(engine, "partial-update") == 0;
	if (is_true(option(arg, "ignore-delete")) || is_true(option(arg, "deduplicate.ignore-delete")) ||
		is_true(option(arg, "partial-update.ignore-delete")))
		l->refuse_delete = "the table's \"ignore-delete\" makes readers skip deletes";
	else if (strcasecmp(engine, "partial-update") == 0 &&
			 !is_true(option(arg, "partial-update.remove-record-on-delete")))
		l->refuse_delete = "merge-engine \"partial-update\" refuses deletes unless \"partial-update.remove-record-on-delete\" is set";
	else if (strcasecmp(engine, "aggregation") == 0)
		l->refuse_delete = "merge-engine \"aggregation\" would retract the row's values, not remove it";
	if (strcasecmp(engine, "aggregation") == 0)
		l->refuse_update = "merge-engine \"aggregation\" would aggregate the new values into the old ones";
	if (!ts_schema_trimmed_primary_keys(schema, &l->key_fields, &l->nkeys, err))
		goto fail;
	l->nfields = l->nkeys + 2 + schema->nfields;
	l->key_types = ts_calloc((size_t) (l->nkeys ? l->nkeys : 1), sizeof(ts_type *));
	l->fields = ts_calloc((size_t) l->nfields, sizeof(ts_field));
	if (l->key_types == NULL || l->fields == NULL)
	{
		ts_error_nomem(err, "a primary-key layout");
		goto fail;
	}
	for (int k = 0; k < l->nkeys; k++)
	{
		const ts_field *f = &schema->fields[l->key_fields[k]];

		l->key_types[k] = f->type;
		l->fields[k].id = KEY_FIELD_ID_BASE + f->id;
		l->fields[k].type = f->type;
		if ((l->fields[k].name = ts_psprintf("_KEY_%s", f->name)) == NULL)
		{
			ts_error_nomem(err, "a primary-key layout");
			goto fail;
		}
	}
	l->fields[l->nkeys] = (ts_field) {SEQUENCE_FIELD_ID, "_SEQUENCE_NUMBER", &sequence_type, NULL};
	l->fields[l->nkeys + 1] = (ts_field) {VALUE_KIND_FIELD_ID, "_VALUE_KIND", &value_kind_type, NULL};
	for (int i = 0; i < schema->nfields; i++)
		l->fields[l->nkeys + 2 + i] = schema->fields[i];
	return l;

fail:
	ts_kv_layout_free(l);
	return NULL;
}

void
ts_kv_layout_free(ts_kv_layout *l)
{
	if (l == NULL)
		return;
	if (l->fields != NULL)
		for (int k = 0; k < l->nkeys; k++)
			ts_free(l->fields[k].name);
	ts_bucket_seqs_free(&l->seqs);
	ts_free(l->fields);
	ts_free(l->key_types);
	ts_free(l->key_fields);
	ts_free(l);
}

const ts_field *
ts_kv_layout_fields(const ts_kv_layout *l, int *n)
{
	*n = l->nfields;
	return l->fields;
}

int
ts_kv_layout_nkeys(const ts_kv_layout *l)
{
	return l->nkeys;
}

bool
ts_kv_check_kind(const ts_kv_layout *l, ts_row_kind kind, ts_err *err)
{
	const char *why = kind == TS_ROW_DELETE ? l->refuse_delete :
		kind == TS_ROW_UPDATE_AFTER ? l->refuse_update : NULL;

	if (why == NULL)
		return true;
	return ts_error(err, TS_ERR_UNSUPPORTED, "%s on this primary-key table is not supported: %s",
					kind == TS_ROW_DELETE ? "DELETE" : "UPDATE", why);
}

/* ---- keys ---------------------------------------------------------------- */

static int
compare_keys(const ts_kv_layout *l, const ts_value *a, const ts_value *b)
{
	for (int k = 0; k < l->nkeys; k++)
	{
		const ts_value *x = &a[l->key_fields[k]];
		const ts_value *y = &b[l->key_fields[k]];
		int			c = 0;

		if (x->isnull || y->isnull)
			c = x->isnull == y->isnull ? 0 : x->isnull ? -1 : 1;	/* NULL first */
		else if (!ts_value_order(l->key_types[k], x, y, &c))
			c = 0;
		if (c != 0)
			return c;
	}
	return 0;
}

bool
ts_kv_check_update(const ts_kv_layout *l, const ts_value *values, const ts_value *old_values,
				   ts_err *err)
{
	if (compare_keys(l, values, old_values) != 0)
	{
		ts_error(err, TS_ERR_UNSUPPORTED, "an UPDATE that changes the primary key is not supported");
		return ts_error_hint(err, "DELETE the row and INSERT it with its new key.");
	}
	if (l->nulls_kept)
		for (int i = 0; i < l->schema->nfields; i++)
			if (values[i].isnull && !old_values[i].isnull)
			{
				ts_error(err, TS_ERR_UNSUPPORTED,
						 "an UPDATE that sets column \"%s\" to NULL is not supported with merge-engine \"partial-update\"",
						 l->schema->fields[i].name);
				return ts_error_hint(err, "Partial-update keeps a column's last non-null value: the NULL would not be read.");
			}
	return true;
}

bool
ts_kv_key_row(const ts_kv_layout *l, const ts_value *file_row, ts_buf *out, ts_err *err)
{
	ts_buf_reset(out);
	return ts_binary_row_encode(l->key_types, file_row, l->nkeys, true, out, err);
}

/* ---- one bucket's records ------------------------------------------------ */

typedef struct kv_rec
{
	int64_t		seq;
	int8_t		kind;
	int			layer;			/* -1: replaced by a later record of its key */
	ts_value   *values;			/* schema order, copies in the arena */
} kv_rec;

struct ts_kv_buffer
{
	const ts_kv_layout *l;
	ts_arena	arena;
	kv_rec	   *recs;
	int			n;
	int			cap;
	int			nlayers;
	size_t		bytes;			/* what the records take */
	ts_value   *row;			/* the file row handed out */
};

ts_kv_buffer *
ts_kv_buffer_create(const ts_kv_layout *l, ts_err *err)
{
	ts_kv_buffer *b = ts_calloc(1, sizeof(ts_kv_buffer));

	if (b == NULL || (b->row = ts_calloc((size_t) l->nfields, sizeof(ts_value))) == NULL)
	{
		ts_free(b);
		ts_error_nomem(err, "a primary-key write buffer");
		return NULL;
	}
	b->l = l;
	ts_arena_init(&b->arena, 64 * 1024);
	return b;
}

void
ts_kv_buffer_free(ts_kv_buffer *b)
{
	if (b == NULL)
		return;
	ts_arena_free(&b->arena);
	ts_free(b->recs);
	ts_free(b->row);
	ts_free(b);
}

int
ts_kv_buffer_count(const ts_kv_buffer *b)
{
	return b->n;
}

size_t
ts_kv_buffer_bytes(const ts_kv_buffer *b)
{
	return b->bytes;
}

/* Make v's bytes and nested values (of type t) the buffer's own. */
static bool
copy_value(ts_kv_buffer *b, ts_value *v, const ts_type *t)
{
	if (v->isnull)
		return true;
	if (ts_type_is_bytes(t->kind) && v->v.s.len > 0)
	{
		if ((v->v.s.p = ts_arena_dup(&b->arena, v->v.s.p, v->v.s.len)) == NULL)
			return false;
		b->bytes += v->v.s.len;
	}
	else if (ts_type_is_nested(t->kind))
	{
		int			n = v->v.nested.n;
		int			per = t->kind == TS_MAP ? 2 : 1;

		if (n == 0)
			return true;
		v->v.nested.items = ts_arena_dup(&b->arena, v->v.nested.items,
										 sizeof(ts_value) * (size_t) n * (size_t) per);
		if (v->v.nested.items == NULL)
			return false;
		b->bytes += sizeof(ts_value) * (size_t) n * (size_t) per;
		for (int i = 0; i < n * per; i++)
		{
			const ts_type *it = t->kind == TS_ROW ? t->fields[i].type :
				t->kind == TS_MAP ? (i % 2 == 0 ? t->key : t->value) : t->element;

			if (!copy_value(b, &v->v.nested.items[i], it))
				return false;
		}
	}
	return true;
}

bool
ts_kv_buffer_add(ts_kv_buffer *b, const ts_value *values, ts_row_kind kind, int64_t seq, ts_err *err)
{
	const ts_schema *s = b->l->schema;
	kv_rec	   *r;

	if (b->n == b->cap)
	{
		int			cap = b->cap ? b->cap * 2 : 1024;
		kv_rec	   *nr = ts_realloc(b->recs, sizeof(kv_rec) * (size_t) cap);

		if (nr == NULL)
			return ts_error_nomem(err, "a primary-key write buffer");
		b->recs = nr;
		b->cap = cap;
	}
	r = &b->recs[b->n];
	r->seq = seq;
	r->kind = (int8_t) kind;
	r->layer = 0;
	r->values = ts_arena_dup(&b->arena, values, sizeof(ts_value) * (size_t) (s->nfields ? s->nfields : 1));
	if (r->values == NULL)
		return ts_error_nomem(err, "a primary-key write buffer");
	b->bytes += sizeof(kv_rec) + sizeof(ts_value) * (size_t) s->nfields;
	for (int i = 0; i < s->nfields; i++)
		if (!copy_value(b, &r->values[i], s->fields[i].type))
			return ts_error_nomem(err, "a primary-key write buffer");
	b->n++;
	return true;
}

/* the layout compare_recs orders by (qsort has no argument; writers run on one thread) */
static const ts_kv_layout *sorting_layout;

static int
compare_recs(const void *pa, const void *pb)
{
	const kv_rec *a = pa,
			   *b = pb;
	int			c = compare_keys(sorting_layout, a->values, b->values);

	if (c != 0)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Sort by key then sequence number and deal each key's records out to
 * layers 0, 1, ... in sequence order (deduplicate: its last one only, in
 * layer 0): a layer holds a key at most once, as a data file must.  A -U
 * record (the row an UPDATE replaced, written for changelog-producer
 * input) is in no layer: data files hold the +U that follows it.
 */
void
ts_kv_buffer_sort(ts_kv_buffer *b)
{
	b->nlayers = b->n > 0 ? 1 : 0;
	sorting_layout = b->l;
	qsort(b->recs, (size_t) b->n, sizeof(kv_rec), compare_recs);
	sorting_layout = NULL;
	for (int i = 0; i < b->n;)
	{
		int			j = i + 1;

		while (j < b->n && compare_keys(b->l, b->recs[i].values, b->recs[j].values) == 0)
			j++;
		int			last = j - 1;
		int			next_layer = 0;

		/* -U records are changelog only (ts_kv_buffer_next of TS_KV_ALL_RECORDS) */
		while (last > i && b->recs[last].kind == TS_ROW_UPDATE_BEFORE)
			last--;
		for (int k = i; k < j; k++)
		{
			if (b->recs[k].kind == TS_ROW_UPDATE_BEFORE)
				b->recs[k].layer = -1;
			else if (b->l->last_only)
				b->recs[k].layer = k == last ? 0 : -1;
			else
				b->recs[k].layer = next_layer++;
			if (b->recs[k].layer >= b->nlayers)
				b->nlayers = b->recs[k].layer + 1;
		}
		i = j;
	}
}

int
ts_kv_buffer_layers(const ts_kv_buffer *b)
{
	return b->nlayers;
}

/*
 * The next file row of layer at or after *pos, or NULL; *pos moves past it.
 * TS_KV_ALL_RECORDS: every record in key and sequence order, as the
 * changelog of changelog-producer input has them (-U rows included).
 */
const ts_value *
ts_kv_buffer_next(ts_kv_buffer *b, int layer, int *pos)
{
	const ts_kv_layout *l = b->l;

	while (*pos < b->n && layer != TS_KV_ALL_RECORDS && b->recs[*pos].layer != layer)
		(*pos)++;
	if (*pos >= b->n)
		return NULL;
	{
		const kv_rec *r = &b->recs[(*pos)++];

		for (int k = 0; k < l->nkeys; k++)
			b->row[k] = r->values[l->key_fields[k]];
		memset(&b->row[l->nkeys], 0, 2 * sizeof(ts_value));
		b->row[l->nkeys].v.i = r->seq;
		b->row[l->nkeys + 1].v.i = r->kind;
		memcpy(&b->row[l->nkeys + 2], r->values, sizeof(ts_value) * (size_t) l->schema->nfields);
	}
	return b->row;
}

void
ts_kv_buffer_reset(ts_kv_buffer *b)
{
	b->n = 0;
	b->nlayers = 0;
	b->bytes = 0;
	ts_arena_reset(&b->arena);
}

/* ---- sequence numbers ---------------------------------------------------- */

/*
 * Every entry of the latest snapshot's manifests (DELETE entries too: a
 * removed file's numbers stay taken), walked once for the writer and its
 * commit.
 */
static bool
load_seqs(ts_kv_layout *l, ts_fs *fs, const char *table_path, ts_err *err)
{
	ts_snapshot *L = NULL;
	bool		ok;

	if (!ts_snapshot_load_latest(fs, table_path, &L, err))
		return false;
	ok = ts_bucket_seqs_walk(fs, table_path, L, &l->seqs, err);
	l->seqs_loaded = ok;
	ts_snapshot_free(L);
	return ok;
}

bool
ts_kv_first_seq(ts_kv_layout *l, ts_fs *fs, const char *table_path, const uint8_t *partition,
				uint32_t partition_len, int32_t bucket, int64_t *first, ts_err *err)
{
	*first = 0;					/* an empty bucket: Java's -1 + 1 */
	if (!l->seqs_loaded && !load_seqs(l, fs, table_path, err))
		return false;
	*first = ts_bucket_seqs_max(&l->seqs, partition, partition_len, bucket) + 1;
	return true;
}

const ts_bucket_seqs *
ts_kv_bucket_seqs(const ts_kv_layout *l)
{
	return l->seqs_loaded ? &l->seqs : NULL;
}
