/*
 * test_write_pk.c - primary-key files of the write layer without a server.
 *
 * The KeyValue layout's fields (names, ids, order as Java's KeyValue and
 * SpecialFields); the key BinaryRow of ('Alex', 0) equal to the _MIN_KEY
 * bytes Java wrote for it in ../shared/testdata (pk_table_scan_and_read_mor,
 * f1=10 bucket 1); a bucket's buffer sorted by key then sequence number,
 * deduplicate keeping a key's last record, other engines one layer per
 * repetition, an UPDATE's -U (changelog-producer input) in no data layer
 * but in the changelog's records; a table written twice numbering the second commit after the
 * first's largest number, with key ranges and -D counts in its manifest; a
 * commit refused when another writer numbered the same bucket meanwhile.
 */
#include "unit.h"

#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/binary_row.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write_schema.h"

static const char *
opt_of(const void *arg, const char *key)
{
	return ts_schema_option(arg, key);
}

static ts_schema *
schema_from(const char *json)
{
	ts_err		err;
	ts_schema  *s = ts_schema_parse(json, strlen(json), "unit", &err);

	if (s == NULL)
		fail_msg("%s", err.msg);
	return s;
}

#define JAVA_PK_SCHEMA \
	"{\"version\": 3, \"id\": 0, \"fields\": [" \
	"{\"id\": 0, \"name\": \"f0\", \"type\": \"STRING NOT NULL\"}," \
	"{\"id\": 1, \"name\": \"f1\", \"type\": \"INT NOT NULL\"}," \
	"{\"id\": 2, \"name\": \"f2\", \"type\": \"INT NOT NULL\"}," \
	"{\"id\": 3, \"name\": \"f3\", \"type\": \"DOUBLE\"}]," \
	"\"highestFieldId\": 3, \"partitionKeys\": [\"f1\"], \"primaryKeys\": [\"f0\", \"f1\", \"f2\"]," \
	"\"options\": {\"bucket\": \"2\", \"bucket-key\": \"f2\"%s}}"

static void
text(ts_value *v, const char *s)
{
	memset(v, 0, sizeof(*v));
	v->v.s.p = (const uint8_t *) s;
	v->v.s.len = (uint32_t) strlen(s);
}

static void
num(ts_value *v, int64_t i)
{
	memset(v, 0, sizeof(*v));
	v->v.i = i;
}

static void
test_layout_and_key_row(void **state)
{
	char		json[1024];
	ts_schema  *s;
	ts_kv_layout *l;
	ts_err		err;
	int			n;
	const ts_field *f;
	ts_value	row[8];
	ts_buf		key;
	/* _MIN_KEY of the Java-written file data-a6394463-...-0.parquet: ('Alex', 0) */
	static const uint8_t java_alex[] = {
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x41, 0x6c, 0x65, 0x78, 0x00, 0x00, 0x00, 0x84, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00};

	snprintf(json, sizeof(json), JAVA_PK_SCHEMA, "");
	s = schema_from(json);
	l = ts_kv_layout_create(s, opt_of, s, &err);
	if (l == NULL)
		fail_msg("%s", err.msg);
	f = ts_kv_layout_fields(l, &n);
	assert_int_equal(n, 2 + 2 + 4);
	assert_int_equal(ts_kv_layout_nkeys(l), 2);
	assert_string_equal(f[0].name, "_KEY_f0");
	assert_int_equal(f[0].id, 1073741823);
	assert_string_equal(f[1].name, "_KEY_f2");
	assert_int_equal(f[1].id, 1073741825);
	assert_string_equal(f[2].name, "_SEQUENCE_NUMBER");
	assert_int_equal(f[2].id, 2147483646);
	assert_int_equal(f[2].type->kind, TS_BIGINT);
	assert_string_equal(f[3].name, "_VALUE_KIND");
	assert_int_equal(f[3].id, 2147483645);
	assert_int_equal(f[3].type->kind, TS_TINYINT);
	for (int i = 0; i < 4; i++)
	{
		assert_string_equal(f[4 + i].name, s->fields[i].name);
		assert_int_equal(f[4 + i].id, s->fields[i].id);
	}
	/* a file row: keys first */
	text(&row[0], "Alex");
	num(&row[1], 0);
	ts_buf_init(&key);
	assert_true(ts_kv_key_row(l, row, &key, &err));
	assert_int_equal(key.len, sizeof(java_alex));
	assert_memory_equal(key.data, java_alex, sizeof(java_alex));
	ts_buf_free(&key);
	ts_kv_layout_free(l);
	ts_schema_free(s);
}

/* the (key f2, seq, kind) of each row of layer */
static int
layer_rows(ts_kv_buffer *b, int layer, int64_t out[][3])
{
	int			pos = 0,
				n = 0;
	const ts_value *r;

	while ((r = ts_kv_buffer_next(b, layer, &pos)) != NULL)
	{
		out[n][0] = r[1].v.i;
		out[n][1] = r[2].v.i;
		out[n][2] = r[3].v.i;
		n++;
	}
	return n;
}

/* A buffer of the Java table's layout: engine 0 deduplicate, 1 partial-update. */
static ts_kv_buffer *
engine_buffer(int engine, ts_schema **s, ts_kv_layout **l)
{
	char		json[1024];
	ts_err		err;
	ts_kv_buffer *b;

	snprintf(json, sizeof(json), JAVA_PK_SCHEMA,
			 engine == 0 ? "" : ", \"merge-engine\": \"partial-update\"");
	*s = schema_from(json);
	*l = ts_kv_layout_create(*s, opt_of, *s, &err);
	assert_non_null(*l);
	b = ts_kv_buffer_create(*l, &err);
	assert_non_null(b);
	return b;
}

/* one record of a layer: its key (f2), sequence number and row kind */
typedef struct layer_record
{
	int64_t		key;
	int64_t		seq;
	int64_t		kind;
} layer_record;

/* records i = 0 .. n-1 of key keys[i], kind kinds[i], sequence number 100 + i, sorted */
static void
add_sorted(ts_kv_buffer *b, const int *keys, const ts_row_kind *kinds, int n)
{
	ts_value	v[4];
	ts_err		err;

	for (int i = 0; i < n; i++)
	{
		text(&v[0], "k");
		num(&v[1], 10);
		num(&v[2], keys[i]);
		memset(&v[3], 0, sizeof(v[3]));
		v[3].v.d = i;
		assert_true(ts_kv_buffer_add(b, v, kinds[i], 100 + i, &err));
	}
	ts_kv_buffer_sort(b);
}

/* layer (or TS_KV_ALL_RECORDS) of b hands out exactly want[n], in that order */
static void
expect_layer(ts_kv_buffer *b, int layer, const layer_record *want, int n)
{
	int64_t		got[8][3];

	assert_int_equal(layer_rows(b, layer, got), n);
	for (int i = 0; i < n; i++)
	{
		assert_int_equal(got[i][0], want[i].key);
		assert_int_equal(got[i][1], want[i].seq);
		assert_int_equal(got[i][2], want[i].kind);
	}
}

#define EXPECT_LAYER(b, layer, ...) \
	do { \
		static const layer_record want_[] = {__VA_ARGS__}; \
		expect_layer(b, layer, want_, (int) (sizeof(want_) / sizeof(want_[0]))); \
	} while (0)

static void
test_buffer_layers(void **state)
{
	for (int engine = 0; engine < 2; engine++)
	{
		ts_schema  *s;
		ts_kv_layout *l;
		ts_kv_buffer *b;
		ts_err		err;
		static const int keys[] = {7, 3, 7, 5, 7};
		static const ts_row_kind kinds[] = {TS_ROW_INSERT, TS_ROW_INSERT, TS_ROW_INSERT,
		TS_ROW_INSERT, TS_ROW_DELETE};

		b = engine_buffer(engine, &s, &l);
		add_sorted(b, keys, kinds, 5);
		if (engine == 0)
		{
			/* deduplicate: each key once, its last record (7: the -D at 104) */
			assert_int_equal(ts_kv_buffer_layers(b), 1);
			EXPECT_LAYER(b, 0, {3, 101, TS_ROW_INSERT}, {5, 103, TS_ROW_INSERT}, {7, 104, TS_ROW_DELETE});
		}
		else
		{
			/* every record; a key again goes to the next layer, in sequence order */
			assert_int_equal(ts_kv_buffer_layers(b), 3);
			EXPECT_LAYER(b, 0, {3, 101, TS_ROW_INSERT}, {5, 103, TS_ROW_INSERT}, {7, 100, TS_ROW_INSERT});
			EXPECT_LAYER(b, 1, {7, 102, TS_ROW_INSERT});
			EXPECT_LAYER(b, 2, {7, 104, TS_ROW_DELETE});
			/* UPDATE is fine, DELETE needs remove-record-on-delete */
			assert_true(ts_kv_check_kind(l, TS_ROW_UPDATE_AFTER, &err));
			assert_false(ts_kv_check_kind(l, TS_ROW_DELETE, &err));
			assert_non_null(strstr(err.msg, "partial-update.remove-record-on-delete"));
		}
		ts_kv_buffer_free(b);
		ts_kv_layout_free(l);
		ts_schema_free(s);
	}
}

/*
 * changelog-producer input: an UPDATE's -U record (the old row) is in no
 * data layer, and TS_KV_ALL_RECORDS hands out every record, -U included,
 * by key then sequence number.
 */
static void
test_buffer_update_before(void **state)
{
	for (int engine = 0; engine < 2; engine++)
	{
		ts_schema  *s;
		ts_kv_layout *l;
		ts_kv_buffer *b;
		static const int keys[] = {7, 3, 7, 7};
		static const ts_row_kind kinds[] = {TS_ROW_INSERT, TS_ROW_INSERT, TS_ROW_UPDATE_BEFORE,
		TS_ROW_UPDATE_AFTER};

		b = engine_buffer(engine, &s, &l);
		add_sorted(b, keys, kinds, 4);
		if (engine == 0)
		{
			/* deduplicate: 3, and 7's +U (its last record that is no -U) */
			assert_int_equal(ts_kv_buffer_layers(b), 1);
			EXPECT_LAYER(b, 0, {3, 101, TS_ROW_INSERT}, {7, 103, TS_ROW_UPDATE_AFTER});
		}
		else
		{
			/* one layer per repetition, the -U in none */
			assert_int_equal(ts_kv_buffer_layers(b), 2);
			EXPECT_LAYER(b, 0, {3, 101, TS_ROW_INSERT}, {7, 100, TS_ROW_INSERT});
			EXPECT_LAYER(b, 1, {7, 103, TS_ROW_UPDATE_AFTER});
		}
		/* the changelog: every record */
		EXPECT_LAYER(b, TS_KV_ALL_RECORDS, {3, 101, TS_ROW_INSERT}, {7, 100, TS_ROW_INSERT},
					 {7, 102, TS_ROW_UPDATE_BEFORE}, {7, 103, TS_ROW_UPDATE_AFTER});
		ts_kv_buffer_free(b);
		ts_kv_layout_free(l);
		ts_schema_free(s);
	}
}

static ts_table_writer *
writer_with(const char *root, int from, int to, bool delete_last)
{
	ts_err		err;
	ts_table_writer *w = ts_table_writer_open(local_fs(root), root, NULL, 0, &err);
	ts_value	v[2];

	if (w == NULL)
		fail_msg("%s", err.msg);
	for (int i = from; i < to; i++)
	{
		num(&v[0], i);
		num(&v[1], i * 10);
		if (!(delete_last && i == to - 1 ? ts_table_writer_add_change(w, TS_ROW_DELETE, v, NULL, &err) :
			  ts_table_writer_add(w, v, &err)))
			fail_msg("%s", err.msg);
	}
	return w;
}

static void
test_table_numbering(void **state)
{
	char		tmpl[] = "/tmp/ts-unit-write-pk.XXXXXX";
	char	   *dir = mkdtemp(tmpl);
	char		root[512],
				path[1024];
	ts_err		err;
	ts_table_writer *w,
			   *w2;
	int64_t		id;
	ts_snapshot *s;
	ts_arena	a;
	ts_manifest_file_meta *metas;
	int			nmetas;
	ts_manifest_entry *e;
	int			ne;
	ts_buf		key;
	const ts_type *itype[1];
	ts_type    *it = ts_type_new(TS_INT, false);
	ts_value	k;

	assert_non_null(dir);
	itype[0] = it;
	snprintf(root, sizeof(root), "%s/t", dir);
	write_schema(root, "{\"version\": 3, \"id\": 0, \"fields\": ["
				 "{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
				 "{\"id\": 1, \"name\": \"v\", \"type\": \"BIGINT\"}],"
				 "\"highestFieldId\": 1, \"partitionKeys\": [], \"primaryKeys\": [\"id\"],"
				 "\"options\": {\"bucket\": \"1\"}}");
	/* 5 rows, then 3 more of which the last deletes (ids 20..22) */
	w = writer_with(root, 0, 5, false);
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	ts_table_writer_free(w);
	w = writer_with(root, 20, 23, true);
	assert_true(ts_table_writer_commit(w, "u", &id, &err));
	assert_int_equal(id, 2);
	ts_table_writer_free(w);

	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 2, &err);
	assert_non_null(s);
	ts_arena_init(&a, 65536);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, s->delta_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), path, &a, &metas, &nmetas, &err));
	assert_int_equal(nmetas, 1);
	snprintf(path, sizeof(path), "%s/manifest/%s", root, metas[0].file_name);
	assert_true(ts_manifest_read(ts_fs_local_unconfined(), path, &a, &e, &ne, &err));
	assert_int_equal(ne, 1);
	assert_int_equal(e[0].file.level, 0);
	assert_int_equal(e[0].file.row_count, 3);
	assert_int_equal(e[0].file.min_sequence_number, 5);	/* after the first commit's 0..4 */
	assert_int_equal(e[0].file.max_sequence_number, 7);
	assert_int_equal(e[0].file.delete_row_count, 1);
	ts_buf_init(&key);
	num(&k, 20);
	assert_true(ts_binary_row_encode(itype, &k, 1, true, &key, &err));
	assert_int_equal(e[0].file.min_key.len, key.len);
	assert_memory_equal(e[0].file.min_key.data, key.data, key.len);
	ts_buf_reset(&key);
	num(&k, 22);
	assert_true(ts_binary_row_encode(itype, &k, 1, true, &key, &err));
	assert_memory_equal(e[0].file.max_key.data, key.data, key.len);
	ts_buf_free(&key);
	ts_snapshot_free(s);

	/* two writers of one bucket: the second to commit is refused */
	w = writer_with(root, 30, 31, false);
	w2 = writer_with(root, 40, 41, false);
	assert_true(ts_table_writer_commit(w2, "u2", &id, &err));
	assert_int_equal(id, 3);
	assert_false(ts_table_writer_commit(w, "u", &id, &err));
	assert_non_null(strstr(err.msg, "another writer committed into bucket 0"));
	ts_table_writer_abort(w);
	ts_table_writer_free(w2);
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 3);

	ts_arena_free(&a);
	ts_type_free(it);
	{
		char		cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_key_row),
		cmocka_unit_test(test_buffer_layers),
		cmocka_unit_test(test_buffer_update_before),
		cmocka_unit_test(test_table_numbering),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
