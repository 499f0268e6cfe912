/*
 * test_write_formats.c - ORC and Avro data files of the write layer.
 *
 * The ORC type tree we write (kinds, field names, precision / scale,
 * paimon.id attributes) for a table's columns and for the KeyValue layout
 * of a primary-key table equals the tree in Java-written ORC files of
 * ../shared/testdata, and our default codec is theirs; the Avro schema of
 * our data files equals the header schema of a Java-written Avro data
 * file, codec included.  Tables written with file.format orc / avro under
 * every codec read back through the project's own readers row for row
 * (NULLs, decimals, timestamps, dates, strings, binaries), with .orc /
 * .avro file names and the manifest's file sizes; ORC stripes carry
 * statistics that match their rows; codecs a format has not are refused
 * naming them.  Avro files (data, manifests, manifest lists) take their
 * codec as Java's AvroFileFormat does: `avro.codec` first (Avro's names,
 * zstandard at level 3), else zstd at `file.compression.zstd-level`,
 * checked on the stored block bytes.
 */
#include "unit.h"
#include "unit_fs.h"

#include <dirent.h>
#include <sys/stat.h>

#include "base/ts_fs.h"
#include "format/avro/avro_container.h"
#include "format/avro/avro_writer.h"
#include "format/file_writer.h"
#include "format/format.h"
#include "format/orc/orc_decode.h"
#include "format/orc/orc_writer.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "read/read_internal.h"
#include "write/write.h"
#include "write/write_internal.h"
#include "write_schema.h"

#define ORC_APPEND "testdata/orc/append_complex_data.db/append_complex_data"
#define ORC_APPEND_FILE ORC_APPEND "/f1=10/bucket-0/data-ff716e11-adad-4b25-8cd6-9d9cedd84706-0.orc"
#define ORC_PK "testdata/orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"
#define ORC_PK_FILE ORC_PK "/f1=10/bucket-0/data-960f6838-c8d4-467d-beaa-058f0620b5e4-0.orc"
#define AVRO_TABLE "testdata/avro/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone"
#define AVRO_FILE AVRO_TABLE "/bucket-0/data-441e233b-529d-4a8f-a0a4-25c2c84fb965-0.avro"

static bool
to_buf(void *arg, const void *data, size_t len, ts_err *err)
{
	return ts_buf_append(arg, data, len, err);
}

static void
save(const char *path, const ts_buf *b)
{
	FILE	   *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b->data, 1, b->len, f), b->len);
	fclose(f);
}

static void
read_tail(const char *path, orc_tail *tail)
{
	ts_err		err;
	ts_file    *f = ts_file_open(ts_fs_local_unconfined(), path, &err);
	int64_t		bytes = 0;

	if (f == NULL)
		fail_msg("%s", err.msg);
	memset(tail, 0, sizeof(*tail));
	if (!orc_read_tail(f, tail, &bytes, &err))
		fail_msg("%s: %s", path, err.msg);
	ts_file_close(f);
}

/* Our ORC file of fields (no rows) has the type tree and codec of the Java file. */
static void
check_orc_types(const char *java_path, const ts_field *fields, int n, const char *dir)
{
	ts_err		err;
	ts_file_writer_options o;
	ts_buf		b;
	ts_orc_writer *w;
	orc_tail	java,
				ours;
	char		path[600];

	assert_true(ts_file_writer_options_parse("orc", NULL, NULL, NULL, &o, &err));
	ts_buf_init(&b);
	w = ts_orc_writer_create(fields, n, (ts_orc_codec) o.codec, o.zstd_level, 0, 0, to_buf, &b, &err);
	if (w == NULL)
		fail_msg("%s", err.msg);
	assert_true(ts_orc_writer_finish(w, &err));
	ts_orc_writer_free(w);
	snprintf(path, sizeof(path), "%s/types.orc", dir);
	save(path, &b);
	ts_buf_free(&b);
	read_tail(unit_shared_path(java_path), &java);
	read_tail(path, &ours);
	assert_int_equal(ours.compression, java.compression);
	assert_int_equal(ours.block_size, java.block_size);
	assert_int_equal(ours.ntypes, java.ntypes);
	for (int i = 0; i < java.ntypes; i++)
	{
		const orc_type *a = &java.types[i],
				   *c = &ours.types[i];

		assert_int_equal(c->kind, a->kind);
		assert_int_equal(c->nsubtypes, a->nsubtypes);
		for (int k = 0; k < a->nsubtypes; k++)
			assert_int_equal(c->subtypes[k], a->subtypes[k]);
		assert_int_equal(c->nfield_names, a->nfield_names);
		for (int k = 0; k < a->nfield_names; k++)
			assert_string_equal(c->field_names[k], a->field_names[k]);
		assert_int_equal(c->max_length, a->max_length);
		assert_int_equal(c->precision, a->precision);
		assert_int_equal(c->scale, a->scale);
		if (i > 0)				/* the root struct carries no id */
			assert_int_equal(c->paimon_id, a->paimon_id);
	}
	orc_tail_free(&java);
	orc_tail_free(&ours);
}

static const char *
no_option(const void *arg, const char *key)
{
	return ts_schema_option(arg, key);
}

static void
test_orc_types_match_java(void **state)
{
	char	   *dir = scratch_dir();
	ts_err		err;
	ts_schema  *s;
	ts_kv_layout *kv;
	const ts_field *f;
	int			n;

	s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path(ORC_APPEND), 0, &err);
	if (s == NULL)
		fail_msg("%s", err.msg);
	check_orc_types(ORC_APPEND_FILE, s->fields, s->nfields, dir);
	ts_schema_free(s);
	/* a primary-key table's level-0 file: _KEY_ columns, _SEQUENCE_NUMBER, _VALUE_KIND, values */
	s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path(ORC_PK), 0, &err);
	if (s == NULL)
		fail_msg("%s", err.msg);
	kv = ts_kv_layout_create(s, no_option, s, &err);
	if (kv == NULL)
		fail_msg("%s", err.msg);
	f = ts_kv_layout_fields(kv, &n);
	check_orc_types(ORC_PK_FILE, f, n, dir);
	ts_kv_layout_free(kv);
	ts_schema_free(s);
	free(dir);
}

static void
test_avro_schema_matches_java(void **state)
{
	ts_err		err;
	ts_schema  *s;
	ts_avro_container *c;
	ts_file_writer_options o;
	char	   *ours;

	s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path(AVRO_TABLE), 0, &err);
	if (s == NULL)
		fail_msg("%s", err.msg);
	c = ts_avro_container_open(ts_fs_local_unconfined(), unit_shared_path(AVRO_FILE), &err);
	if (c == NULL)
		fail_msg("%s", err.msg);
	ours = ts_avro_schema_json_for_fields(s->fields, s->nfields, &err);
	assert_non_null(ours);
	assert_string_equal(ours, c->schema_json);
	assert_true(ts_file_writer_options_parse("avro", NULL, NULL, NULL, &o, &err));
	assert_int_equal(o.codec, c->codec);
	ts_free(ours);
	ts_avro_container_close(c);
	ts_schema_free(s);
}

/* ---- round trips ----------------------------------------------------------- */

#define NROWS 1000
#define NCOLS 10

/* row i of the table below (strings in sbuf, which must outlive the row) */
static void
make_row(int i, ts_value *row, char *sbuf, uint8_t *bbuf)
{
	memset(row, 0, sizeof(ts_value) * NCOLS);
	row[0].v.i = i;				/* id INT NOT NULL */
	row[1].isnull = i % 5 == 0;	/* s STRING */
	snprintf(sbuf, 32, "str-%d-%s", i, i % 3 ? "é" : "");
	row[1].v.s.p = (const uint8_t *) sbuf;
	row[1].v.s.len = (uint32_t) strlen(sbuf);
	row[2].isnull = i % 7 == 0; /* d DECIMAL(10, 2) */
	row[2].v.dec = (ts_int128) i * 10007 - 5000000;
	row[3].isnull = i % 4 == 0; /* ts TIMESTAMP(6) */
	row[3].v.ts.millis = (int64_t) (i - 500) * 86400123LL;
	row[3].v.ts.nanos = (i % 1000) * 1000;
	row[4].isnull = i % 6 == 0; /* dt DATE */
	row[4].v.i = i * 3 - 1000;
	row[5].isnull = i % 8 == 0; /* b BYTES */
	for (int k = 0; k < 4; k++)
		bbuf[k] = (uint8_t) (i * 7 + k * 61);
	row[5].v.s.p = bbuf;
	row[5].v.s.len = (uint32_t) (i % 5);
	row[6].isnull = i % 9 == 0; /* f DOUBLE */
	row[6].v.d = i * 0.25 - 100;
	row[7].isnull = i % 10 == 0;	/* n BIGINT */
	row[7].v.i = (int64_t) i * 1000000007LL - 3;
	row[8].isnull = i % 11 == 0;	/* ok BOOLEAN */
	row[8].v.i = i % 2;
	row[9].isnull = i % 12 == 0;	/* t3 TIMESTAMP(3) */
	row[9].v.ts.millis = -(int64_t) i * 1000003LL;
}

static const char *const TABLE_JSON =
"{\"version\": 3, \"id\": 0, \"fields\": ["
"{\"id\": 0, \"name\": \"id\", \"type\": \"INT NOT NULL\"},"
"{\"id\": 1, \"name\": \"s\", \"type\": \"STRING\"},"
"{\"id\": 2, \"name\": \"d\", \"type\": \"DECIMAL(10, 2)\"},"
"{\"id\": 3, \"name\": \"ts\", \"type\": \"TIMESTAMP(6)\"},"
"{\"id\": 4, \"name\": \"dt\", \"type\": \"DATE\"},"
"{\"id\": 5, \"name\": \"b\", \"type\": \"BYTES\"},"
"{\"id\": 6, \"name\": \"f\", \"type\": \"DOUBLE\"},"
"{\"id\": 7, \"name\": \"n\", \"type\": \"BIGINT\"},"
"{\"id\": 8, \"name\": \"ok\", \"type\": \"BOOLEAN\"},"
"{\"id\": 9, \"name\": \"t3\", \"type\": \"TIMESTAMP(3)\"}],"
"\"highestFieldId\": 9, \"partitionKeys\": [], \"primaryKeys\": [],"
"\"options\": {\"bucket\": \"-1\"}}";

static void
check_equal_rows(const ts_schema *s, const ts_value *got, int i)
{
	ts_value	want[NCOLS];
	char		sbuf[32];
	uint8_t		bbuf[4];

	make_row(i, want, sbuf, bbuf);
	for (int c = 0; c < NCOLS; c++)
	{
		if (got[c].isnull != want[c].isnull)
			fail_msg("row %d column %s: NULL %d, wanted %d", i, s->fields[c].name,
					 got[c].isnull, want[c].isnull);
		if (!want[c].isnull && ts_value_compare(&got[c], &want[c], s->fields[c].type) != 0)
			fail_msg("row %d column %s differs", i, s->fields[c].name);
	}
}

/* A table written by write_table: its files and what its manifest says of the data file. */
typedef struct written
{
	char		root[512];
	char		list[1024];		/* the delta manifest list */
	char		manifest[1024]; /* its one manifest */
	char		data[1024];		/* the one data file */
	char		ext[16];		/* the writer's file format */
	int64_t		rows;			/* the manifest entry's row count and file size */
	int64_t		size;
} written;

/*
 * Write NROWS rows into a new table with options opts[0..n) in one commit
 * (snapshot 1: a delta list of one manifest of one file); false (err set)
 * when the writer refuses the options.
 */
static bool
write_table(const ts_option *opts, int n, written *t, ts_err *err)
{
	char	   *dir = scratch_dir();
	ts_table_writer *w;
	int64_t		id;
	ts_snapshot *snap;
	ts_arena	a;
	ts_manifest_file_meta *metas;
	int			nmetas;
	ts_manifest_entry *e;
	int			ne;

	snprintf(t->root, sizeof(t->root), "%s/t", dir);
	free(dir);
	write_schema(t->root, TABLE_JSON);
	w = ts_table_writer_open(local_fs(t->root), t->root, opts, n, err);
	if (w == NULL)
		return false;
	snprintf(t->ext, sizeof(t->ext), "%s", ts_table_writer_file_format(w));
	for (int i = 0; i < NROWS; i++)
	{
		ts_value	row[NCOLS];
		char		sbuf[32];
		uint8_t		bbuf[4];

		make_row(i, row, sbuf, bbuf);
		if (!ts_table_writer_add(w, row, err))
			fail_msg("%s", err->msg);
	}
	if (!ts_table_writer_commit(w, "unit-user", &id, err))
		fail_msg("%s", err->msg);
	assert_int_equal(id, 1);
	ts_table_writer_free(w);

	snap = ts_snapshot_load(ts_fs_local_unconfined(), t->root, 1, err);
	assert_non_null(snap);
	ts_arena_init(&a, 65536);
	snprintf(t->list, sizeof(t->list), "%s/manifest/%s", t->root, snap->delta_manifest_list);
	assert_true(ts_manifest_list_read(ts_fs_local_unconfined(), t->list, &a, &metas, &nmetas, err));
	assert_int_equal(nmetas, 1);
	snprintf(t->manifest, sizeof(t->manifest), "%s/manifest/%s", t->root, metas[0].file_name);
	assert_true(ts_manifest_read(ts_fs_local_unconfined(), t->manifest, &a, &e, &ne, err));
	assert_int_equal(ne, 1);
	snprintf(t->data, sizeof(t->data), "%s/bucket-0/%s", t->root, e[0].file.file_name);
	t->rows = e[0].file.row_count;
	t->size = e[0].file.file_size;
	ts_arena_free(&a);
	ts_snapshot_free(snap);
	return true;
}

/* Write NROWS rows with these options, read them back through the data file's reader. */
static void
round_trip(const char *format, const char *compression, const char *ext)
{
	ts_err		err;
	ts_option	opts[2] = {{"file.format", format}, {"file.compression", compression}};
	written		t;
	ts_read_column cols[NCOLS];
	ts_format_reader *r;
	ts_batch	batch;
	int			next = 0,
				got;
	struct stat st;

	if (!write_table(opts, compression ? 2 : 1, &t, &err))
		fail_msg("%s %s: %s", format, compression ? compression : "", err.msg);
	assert_string_equal(t.ext, ext);

	/* the manifest names one file of NROWS rows, .<ext>, of its size on disk */
	assert_int_equal(t.rows, NROWS);
	assert_string_equal(strrchr(t.data, '.') + 1, ext);
	assert_int_equal(stat(t.data, &st), 0);
	assert_int_equal(st.st_size, t.size);

	/* every row back, in order, through the reader the magic bytes choose */
	{
		ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), t.root, 0, &err);

		assert_non_null(s);
		for (int c = 0; c < NCOLS; c++)
		{
			cols[c].field_id = s->fields[c].id;
			cols[c].name = s->fields[c].name;
			cols[c].type = s->fields[c].type;
		}
		r = ts_format_open(TS_FORMAT_UNKNOWN, t.data, cols, NCOLS, unit_local_read(), &err);
		if (r == NULL)
			fail_msg("%s", err.msg);
		while ((got = ts_format_next(r, &batch, &err)) > 0)
			for (int k = 0; k < got; k++)
				check_equal_rows(s, batch.values + (size_t) k * ts_batch_stride(&batch), next++);
		if (got < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(next, NROWS);
		ts_format_close(r);
		ts_schema_free(s);
	}
}

static void
test_orc_round_trips(void **state)
{
	round_trip("orc", NULL, "orc");
	round_trip("orc", "none", "orc");
	round_trip("orc", "zlib", "orc");
	round_trip("orc", "snappy", "orc");
	round_trip("orc", "lz4", "orc");
	round_trip("orc", "zstd", "orc");
}

static void
test_avro_round_trips(void **state)
{
	round_trip("avro", NULL, "avro");
	round_trip("avro", "none", "avro");
	round_trip("avro", "deflate", "avro");
	round_trip("avro", "snappy", "avro");
	round_trip("avro", "zstd", "avro");
}

/* Several stripes: each one's statistics are those of its rows. */
static void
test_orc_stripe_stats(void **state)
{
	char	   *dir = scratch_dir();
	char		path[600];
	ts_err		err;
	ts_type    *it = ts_type_new(TS_BIGINT, true);
	ts_type    *st = ts_type_new(TS_VARCHAR, true);
	ts_field	fields[2];
	ts_buf		b;
	ts_orc_writer *w;
	orc_tail	tail;

	st->length = TS_STRING_LENGTH;
	fields[0] = (ts_field) {0, "n", it, NULL};
	fields[1] = (ts_field) {1, "s", st, NULL};
	ts_buf_init(&b);
	w = ts_orc_writer_create(fields, 2, TS_ORC_CODEC_ZSTD, 1, 0, 100, to_buf, &b, &err);
	assert_non_null(w);
	for (int i = 0; i < 250; i++)
	{
		ts_value	row[2];
		char		s[16];

		memset(row, 0, sizeof(row));
		row[0].isnull = i % 10 == 3;
		row[0].v.i = (i * 37) % 250 - 100;
		snprintf(s, sizeof(s), "k%03d", 249 - i);
		row[1].v.s.p = (const uint8_t *) s;
		row[1].v.s.len = 4;
		assert_true(ts_orc_writer_add(w, row, &err));
	}
	assert_int_equal(ts_orc_writer_rows(w), 250);
	assert_true(ts_orc_writer_finish(w, &err));
	ts_orc_writer_free(w);
	snprintf(path, sizeof(path), "%s/stripes.orc", dir);
	save(path, &b);
	ts_buf_free(&b);
	read_tail(path, &tail);
	assert_int_equal(tail.nrows, 250);
	assert_int_equal(tail.nstripes, 3);
	assert_int_equal(tail.nstripe_stats, 3);
	for (int sidx = 0; sidx < 3; sidx++)
	{
		int			first = sidx * 100,
					last = sidx == 2 ? 249 : first + 99;
		int64_t		lo = INT64_MAX,
					hi = INT64_MIN,
					values = 0;
		const orc_col_stats *n = &tail.stripe_stats[sidx].cols[1];
		const orc_col_stats *s = &tail.stripe_stats[sidx].cols[2];
		char		smin[8],
					smax[8];

		assert_int_equal(tail.stripes[sidx].nrows, last - first + 1);
		for (int i = first; i <= last; i++)
			if (i % 10 != 3)
			{
				int64_t		v = (i * 37) % 250 - 100;

				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
				values++;
			}
		assert_true(n->has_number_of_values);
		assert_int_equal(n->number_of_values, values);
		assert_true(n->has_null);
		assert_true(n->has_min && n->has_max);
		assert_int_equal(n->imin, lo);
		assert_int_equal(n->imax, hi);
		snprintf(smin, sizeof(smin), "k%03d", 249 - last);
		snprintf(smax, sizeof(smax), "k%03d", 249 - first);
		assert_true(s->has_min && s->has_max);
		assert_int_equal(s->smin_len, 4);
		assert_memory_equal(s->smin, smin, 4);
		assert_memory_equal(s->smax, smax, 4);
		assert_false(s->has_null);
	}
	orc_tail_free(&tail);
	ts_type_free(it);
	ts_type_free(st);
	free(dir);
}

/* ---- avro.codec and zstd levels (Java's AvroFileFormat.createCodecFactory) ---- */

static void
test_avro_codec_choice(void **state)
{
	ts_err		err;
	ts_file_writer_options o;
	int			codec,
				level;

	/* no avro.codec: the compression option, zstd at the given level */
	assert_true(ts_file_writer_avro_codec(NULL, "manifest.compression", NULL, 1, "manifests",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_ZSTANDARD);
	assert_int_equal(level, 1);
	assert_true(ts_file_writer_avro_codec(NULL, "manifest.compression", "ZSTD", 9, "manifests",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_ZSTANDARD);
	assert_int_equal(level, 9);
	/* Avro's own name goes through CodecFactory.fromString: its level 3 */
	assert_true(ts_file_writer_avro_codec(NULL, "manifest.compression", "zstandard", 9, "manifests",
										  &codec, &level, &err));
	assert_int_equal(level, 3);
	assert_true(ts_file_writer_avro_codec(NULL, "manifest.compression", "deflate", 9, "manifests",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_DEFLATE);
	assert_false(ts_file_writer_avro_codec(NULL, "manifest.compression", "bzip2", 1, "manifests",
										   &codec, &level, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"manifest.compression\" = \"bzip2\""));
	assert_non_null(strstr(err.msg, "manifests"));

	/* avro.codec wins over the compression option, even one refused */
	assert_true(ts_file_writer_avro_codec("zstandard", "file.compression", "zstd", 9, "data files",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_ZSTANDARD);
	assert_int_equal(level, 3);
	assert_true(ts_file_writer_avro_codec("snappy", "file.compression", "bzip2", 1, "data files",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_SNAPPY);
	assert_true(ts_file_writer_avro_codec("null", "file.compression", "zstd", 1, "data files",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_NULL);
	assert_true(ts_file_writer_avro_codec("deflate", "file.compression", "zstd", 1, "data files",
										  &codec, &level, &err));
	assert_int_equal(codec, TS_AVRO_CODEC_DEFLATE);
	/* CodecFactory.fromString: exact names; bzip2 and xz it has, this writer not */
	for (int i = 0; i < 4; i++)
	{
		static const char *const invalid[] = {"zstd", "Deflate", "none", "lz4"};

		assert_false(ts_file_writer_avro_codec(invalid[i], "file.compression", NULL, 1, "data files",
											   &codec, &level, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "\"avro.codec\""));
		assert_non_null(strstr(err.msg, invalid[i]));
	}
	assert_false(ts_file_writer_avro_codec("xz", "file.compression", NULL, 1, "data files",
										   &codec, &level, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"avro.codec\" = \"xz\""));

	/* data files: avro.codec for Avro only; the level for zstd */
	assert_true(ts_file_writer_options_parse("avro", NULL, "7", NULL, &o, &err));
	assert_int_equal(o.codec, TS_AVRO_CODEC_ZSTANDARD);
	assert_int_equal(o.zstd_level, 7);
	assert_true(ts_file_writer_options_parse("avro", NULL, "7", "zstandard", &o, &err));
	assert_int_equal(o.zstd_level, 3);
	assert_true(ts_file_writer_options_parse("avro", "zstd", NULL, "deflate", &o, &err));
	assert_int_equal(o.codec, TS_AVRO_CODEC_DEFLATE);
	assert_true(ts_file_writer_options_parse("orc", NULL, "7", "bzip2", &o, &err));
	assert_int_equal(o.codec, TS_ORC_CODEC_ZSTD);
	assert_int_equal(o.zstd_level, 7);
}

/*
 * The first block of an Avro file: its codec, stored bytes and
 * decompressed bytes (all ts_malloc'd into the bufs).
 */
static ts_avro_codec
first_block(const char *path, ts_buf *stored, ts_buf *plain)
{
	ts_err		err;
	ts_avro_container *c = ts_avro_container_open(ts_fs_local_unconfined(), path, &err);
	ts_avro_codec codec;
	FILE	   *f;
	uint8_t    *bytes;
	int64_t		off,
				v[2];

	if (c == NULL)
		fail_msg("%s: %s", path, err.msg);
	codec = c->codec;
	off = c->next_offset;
	bytes = malloc((size_t) c->file_size);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(bytes, 1, (size_t) c->file_size, f), (size_t) c->file_size);
	fclose(f);
	/* block header: object count, byte size (zigzag varints) */
	for (int k = 0; k < 2; k++)
	{
		uint64_t	u = 0;
		int			shift = 0;

		while (bytes[off] & 0x80)
		{
			u |= (uint64_t) (bytes[off++] & 0x7f) << shift;
			shift += 7;
		}
		u |= (uint64_t) bytes[off++] << shift;
		v[k] = (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
	}
	ts_buf_reset(stored);
	assert_true(ts_buf_append(stored, bytes + off, (size_t) v[1], &err));
	free(bytes);
	assert_int_equal(ts_avro_container_next_block(c, &err), 1);
	assert_int_equal(c->block_count, v[0]);
	ts_buf_reset(plain);
	assert_true(ts_buf_append(plain, c->block, c->block_len, &err));
	ts_avro_container_close(c);
	return codec;
}

/* Is path's first block zstandard at level (and not at other, the level it must differ from)? */
static void
assert_zstd_level(const char *path, int level, int other)
{
	ts_buf		stored,
				plain,
				want,
				not_want;
	ts_err		err;

	ts_buf_init(&stored);
	ts_buf_init(&plain);
	ts_buf_init(&want);
	ts_buf_init(&not_want);
	assert_int_equal(first_block(path, &stored, &plain), TS_AVRO_CODEC_ZSTANDARD);
	assert_true(ts_avro_compress(TS_AVRO_CODEC_ZSTANDARD, level, plain.data, plain.len, &want, &err));
	assert_true(ts_avro_compress(TS_AVRO_CODEC_ZSTANDARD, other, plain.data, plain.len, &not_want,
								 &err));
	/* the two levels compress this block differently: the check can tell them apart */
	if (want.len == not_want.len && memcmp(want.data, not_want.data, want.len) == 0)
		fail_msg("%s: levels %d and %d give the same bytes", path, level, other);
	if (stored.len != want.len || memcmp(stored.data, want.data, want.len) != 0)
		fail_msg("%s: the block is not zstandard at level %d", path, level);
	ts_buf_free(&stored);
	ts_buf_free(&plain);
	ts_buf_free(&want);
	ts_buf_free(&not_want);
}

static void
test_avro_codec_and_levels_written(void **state)
{
	written		t;
	ts_buf		stored,
				plain;
	ts_err		err;

	ts_buf_init(&stored);
	ts_buf_init(&plain);
	/* file.compression.zstd-level: Avro data files, manifests and the list alike */
	{
		ts_option	opts[] = {{"file.format", "avro"}, {"file.compression.zstd-level", "19"}};

		assert_true(write_table(opts, 2, &t, &err));
		assert_zstd_level(t.data, 19, 1);
		assert_zstd_level(t.manifest, 19, 1);
		assert_zstd_level(t.list, 19, 1);
	}
	/* the default: level 1 */
	{
		ts_option	opts[] = {{"file.format", "avro"}};

		assert_true(write_table(opts, 1, &t, &err));
		assert_zstd_level(t.data, 1, 19);
		assert_zstd_level(t.manifest, 1, 19);
	}
	/* avro.codec zstandard: Avro's level 3, whatever zstd-level says */
	{
		ts_option	opts[] = {{"file.format", "avro"}, {"file.compression.zstd-level", "19"},
		{"avro.codec", "zstandard"}};

		assert_true(write_table(opts, 3, &t, &err));
		assert_zstd_level(t.data, 3, 19);
		assert_zstd_level(t.manifest, 3, 19);
		assert_zstd_level(t.list, 3, 19);
	}
	/* avro.codec deflate over manifest.compression; Parquet data files keep zstd */
	{
		ts_option	opts[] = {{"manifest.compression", "snappy"}, {"avro.codec", "deflate"}};

		assert_true(write_table(opts, 2, &t, &err));
		assert_int_equal(first_block(t.manifest, &stored, &plain), TS_AVRO_CODEC_DEFLATE);
		assert_int_equal(first_block(t.list, &stored, &plain), TS_AVRO_CODEC_DEFLATE);
		assert_string_equal(t.ext, "parquet");
	}
	/* refused when the writer opens */
	{
		ts_option	opts[] = {{"avro.codec", "bzip2"}};

		assert_false(write_table(opts, 1, &t, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "\"avro.codec\" = \"bzip2\""));
	}
	{
		ts_option	opts[] = {{"file.format", "avro"}, {"avro.codec", "Snappy"}};

		assert_false(write_table(opts, 2, &t, &err));
		assert_int_equal(err.code, TS_ERR_INVALID);
		assert_non_null(strstr(err.msg, "\"avro.codec\": \"Snappy\""));
	}
	ts_buf_free(&stored);
	ts_buf_free(&plain);
}

static void
test_codec_refusals(void **state)
{
	ts_err		err;
	ts_file_writer_options o;
	ts_type    *t = ts_type_new(TS_VARBINARY, true);

	assert_false(ts_file_writer_options_parse("orc", "lzo", NULL, NULL, &o, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"lzo\""));
	assert_non_null(strstr(err.msg, "ORC"));
	assert_false(ts_file_writer_options_parse("avro", "bzip2", NULL, NULL, &o, &err));
	assert_non_null(strstr(err.msg, "\"bzip2\""));
	assert_non_null(strstr(err.msg, "Avro"));
	assert_false(ts_file_writer_options_parse("parquet", "snappy", NULL, NULL, &o, &err));
	assert_non_null(strstr(err.msg, "\"snappy\""));
	assert_false(ts_file_writer_options_parse("csv", NULL, NULL, NULL, &o, &err));
	assert_non_null(strstr(err.msg, "\"csv\""));
	assert_false(ts_file_writer_options_parse("orc", NULL, "30", NULL, &o, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	/* Paimon's ORC format takes BYTES only */
	t->length = 16;
	assert_false(ts_orc_writer_supports("b16", t, &err));
	assert_non_null(strstr(err.msg, "\"b16\""));
	assert_non_null(strstr(err.msg, "ORC"));
	ts_type_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orc_types_match_java),
		cmocka_unit_test(test_avro_schema_matches_java),
		cmocka_unit_test(test_orc_round_trips),
		cmocka_unit_test(test_avro_round_trips),
		cmocka_unit_test(test_orc_stripe_stats),
		cmocka_unit_test(test_codec_refusals),
		cmocka_unit_test(test_avro_codec_choice),
		cmocka_unit_test(test_avro_codec_and_levels_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
