/*
 * manifest.c - decode manifest lists, manifests and index manifests.
 *
 * Owns: the Paimon record schemas of the three metadata file kinds
 * (ManifestFileMeta, ManifestEntry + DataFileMeta, IndexManifestEntry) as
 * ts_type trees, reading them through the generic format readers (Avro or
 * ORC, chosen by the file's magic; columns matched by name so that fields
 * added in later Paimon versions read as NULL in older files; Avro files
 * of the usual shapes through the compiled path of manifest_avro.c, which
 * gives the same values faster), checking
 * _VERSION, and copying every value into the caller's arena (reader buffers
 * die at the next batch).  Manifest entries, when the compiled path takes
 * the file, are decoded by it straight into their structs (the dests
 * below say where each field goes), then checked here as the values of the
 * other paths are.  Does not interpret BinaryRow bytes.
 */
#include <stddef.h>
#include <string.h>

#include "format/format.h"
#include "meta/manifest.h"
#include "meta/manifest_avro.h"
#include "meta/meta_slab.h"

/* ---- record schemas ------------------------------------------------- */

/*
 * Every type is declared nullable: 0.8/0.9 writers wrapped records in
 * ["null", record] unions and later fields are absent in older files.
 * Nested fields carry id -1 (match by name).
 */
static ts_type t_int = {.kind = TS_INT, .nullable = true};
static ts_type t_tinyint = {.kind = TS_TINYINT, .nullable = true};
static ts_type t_bigint = {.kind = TS_BIGINT, .nullable = true};
static ts_type t_string = {.kind = TS_VARCHAR, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type t_bytes = {.kind = TS_VARBINARY, .nullable = true, .length = TS_STRING_LENGTH};
static ts_type t_ts3 = {.kind = TS_TIMESTAMP, .nullable = true, .precision = 3};
static ts_type t_bigint_array = {.kind = TS_ARRAY, .nullable = true, .element = &t_bigint};
static ts_type t_string_array = {.kind = TS_ARRAY, .nullable = true, .element = &t_string};

/* SimpleStats */
enum
{
	SS_MIN_VALUES, SS_MAX_VALUES, SS_NULL_COUNTS, SS_NFIELDS
};
static ts_field simple_stats_fields[SS_NFIELDS] = {
	{-1, "_MIN_VALUES", &t_bytes, NULL},
	{-1, "_MAX_VALUES", &t_bytes, NULL},
	{-1, "_NULL_COUNTS", &t_bigint_array, NULL},
};
static ts_type t_simple_stats = {.kind = TS_ROW, .nullable = true,
.nfields = SS_NFIELDS, .fields = simple_stats_fields};

/* ManifestFileMeta (manifest list record) */
enum
{
	ML_VERSION, ML_FILE_NAME, ML_FILE_SIZE, ML_NUM_ADDED_FILES,
	ML_NUM_DELETED_FILES, ML_PARTITION_STATS, ML_SCHEMA_ID, ML_MIN_BUCKET,
	ML_MAX_BUCKET, ML_MIN_LEVEL, ML_MAX_LEVEL, ML_MIN_ROW_ID, ML_MAX_ROW_ID,
	ML_NCOLS
};
static const ts_read_column manifest_list_columns[ML_NCOLS] = {
	{-1, "_VERSION", &t_int},
	{-1, "_FILE_NAME", &t_string},
	{-1, "_FILE_SIZE", &t_bigint},
	{-1, "_NUM_ADDED_FILES", &t_bigint},
	{-1, "_NUM_DELETED_FILES", &t_bigint},
	{-1, "_PARTITION_STATS", &t_simple_stats},
	{-1, "_SCHEMA_ID", &t_bigint},
	{-1, "_MIN_BUCKET", &t_int},
	{-1, "_MAX_BUCKET", &t_int},
	{-1, "_MIN_LEVEL", &t_int},
	{-1, "_MAX_LEVEL", &t_int},
	{-1, "_MIN_ROW_ID", &t_bigint},
	{-1, "_MAX_ROW_ID", &t_bigint},
};

/* DataFileMeta (the _FILE row of a manifest entry) */
enum
{
	DF_FILE_NAME, DF_FILE_SIZE, DF_ROW_COUNT, DF_MIN_KEY, DF_MAX_KEY,
	DF_KEY_STATS, DF_VALUE_STATS, DF_MIN_SEQUENCE_NUMBER,
	DF_MAX_SEQUENCE_NUMBER, DF_SCHEMA_ID, DF_LEVEL, DF_EXTRA_FILES,
	DF_CREATION_TIME, DF_DELETE_ROW_COUNT, DF_EMBEDDED_FILE_INDEX,
	DF_FILE_SOURCE, DF_VALUE_STATS_COLS, DF_EXTERNAL_PATH, DF_FIRST_ROW_ID,
	DF_WRITE_COLS, DF_NFIELDS
};
static ts_field data_file_fields[DF_NFIELDS] = {
	{-1, "_FILE_NAME", &t_string, NULL},
	{-1, "_FILE_SIZE", &t_bigint, NULL},
	{-1, "_ROW_COUNT", &t_bigint, NULL},
	{-1, "_MIN_KEY", &t_bytes, NULL},
	{-1, "_MAX_KEY", &t_bytes, NULL},
	{-1, "_KEY_STATS", &t_simple_stats, NULL},
	{-1, "_VALUE_STATS", &t_simple_stats, NULL},
	{-1, "_MIN_SEQUENCE_NUMBER", &t_bigint, NULL},
	{-1, "_MAX_SEQUENCE_NUMBER", &t_bigint, NULL},
	{-1, "_SCHEMA_ID", &t_bigint, NULL},
	{-1, "_LEVEL", &t_int, NULL},
	{-1, "_EXTRA_FILES", &t_string_array, NULL},
	{-1, "_CREATION_TIME", &t_ts3, NULL},
	{-1, "_DELETE_ROW_COUNT", &t_bigint, NULL},
	{-1, "_EMBEDDED_FILE_INDEX", &t_bytes, NULL},
	{-1, "_FILE_SOURCE", &t_tinyint, NULL},
	{-1, "_VALUE_STATS_COLS", &t_string_array, NULL},
	{-1, "_EXTERNAL_PATH", &t_string, NULL},
	{-1, "_FIRST_ROW_ID", &t_bigint, NULL},
	{-1, "_WRITE_COLS", &t_string_array, NULL},
};
static ts_type t_data_file = {.kind = TS_ROW, .nullable = true,
.nfields = DF_NFIELDS, .fields = data_file_fields};

/* ManifestEntry */
enum
{
	ME_VERSION, ME_KIND, ME_PARTITION, ME_BUCKET, ME_TOTAL_BUCKETS, ME_FILE,
	ME_NCOLS
};
static const ts_read_column manifest_columns[ME_NCOLS] = {
	{-1, "_VERSION", &t_int},
	{-1, "_KIND", &t_tinyint},
	{-1, "_PARTITION", &t_bytes},
	{-1, "_BUCKET", &t_int},
	{-1, "_TOTAL_BUCKETS", &t_int},
	{-1, "_FILE", &t_data_file},
};

/*
 * Where the compiled Avro path decodes the fields of a manifest entry:
 * straight into ts_manifest_entry (offsets of nested rows relative to
 * their struct).  _VERSION and _KIND stay values, checked below.  A null
 * or absent field leaves what blank_entry holds; the fields that must not
 * be null set a bit of 'required', numbered in the order the value path
 * checks them (so that both name the same missing field first).
 */
enum
{
	RQ_PARTITION, RQ_BUCKET, RQ_TOTAL_BUCKETS, RQ_FILE, RQ_FILE_NAME, RQ_FILE_SIZE,
	RQ_ROW_COUNT, RQ_MIN_SEQUENCE_NUMBER, RQ_MAX_SEQUENCE_NUMBER, RQ_SCHEMA_ID,
	RQ_LEVEL, RQ_NBITS
};
static const char *const required_names[RQ_NBITS] = {
	"_PARTITION", "_BUCKET", "_TOTAL_BUCKETS", "_FILE", "_FILE_NAME", "_FILE_SIZE",
	"_ROW_COUNT", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL",
};

#define DEST(kind, type, field) {kind, (int) offsetof(type, field), -1, -1, -1, NULL}
#define DEST_REQUIRED(kind, type, field, bit) \
	{kind, (int) offsetof(type, field), -1, -1, bit, NULL}
#define DEST_ARRAY(kind, type, field, count) \
	{kind, (int) offsetof(type, field), (int) offsetof(type, count), -1, -1, NULL}
#define DEST_FLAGGED(type, field, flag) \
	{TS_DEST_I64, (int) offsetof(type, field), -1, (int) offsetof(type, flag), -1, NULL}
#define DEST_ROW(type, field, bit, fields) \
	{TS_DEST_ROW, (int) offsetof(type, field), -1, -1, bit, fields}

static const ts_meta_dest simple_stats_dests[SS_NFIELDS] = {
	DEST(TS_DEST_BYTES, ts_simple_stats, min_values),
	DEST(TS_DEST_BYTES, ts_simple_stats, max_values),
	DEST_ARRAY(TS_DEST_LONGS, ts_simple_stats, null_counts, nnull_counts),
};

static const ts_meta_dest data_file_dests[DF_NFIELDS] = {
	DEST_REQUIRED(TS_DEST_STRING, ts_data_file_meta, file_name, RQ_FILE_NAME),
	DEST_REQUIRED(TS_DEST_I64, ts_data_file_meta, file_size, RQ_FILE_SIZE),
	DEST_REQUIRED(TS_DEST_I64, ts_data_file_meta, row_count, RQ_ROW_COUNT),
	DEST(TS_DEST_BYTES, ts_data_file_meta, min_key),
	DEST(TS_DEST_BYTES, ts_data_file_meta, max_key),
	DEST_ROW(ts_data_file_meta, key_stats, -1, simple_stats_dests),
	DEST_ROW(ts_data_file_meta, value_stats, -1, simple_stats_dests),
	DEST_REQUIRED(TS_DEST_I64, ts_data_file_meta, min_sequence_number, RQ_MIN_SEQUENCE_NUMBER),
	DEST_REQUIRED(TS_DEST_I64, ts_data_file_meta, max_sequence_number, RQ_MAX_SEQUENCE_NUMBER),
	DEST_REQUIRED(TS_DEST_I64, ts_data_file_meta, schema_id, RQ_SCHEMA_ID),
	DEST_REQUIRED(TS_DEST_I32, ts_data_file_meta, level, RQ_LEVEL),
	DEST_ARRAY(TS_DEST_STRINGS, ts_data_file_meta, extra_files, nextra_files),
	DEST_FLAGGED(ts_data_file_meta, creation_time_millis, has_creation_time),
	DEST(TS_DEST_I64, ts_data_file_meta, delete_row_count),
	DEST(TS_DEST_BYTES, ts_data_file_meta, embedded_file_index),
	DEST(TS_DEST_I32, ts_data_file_meta, file_source),
	DEST_ARRAY(TS_DEST_STRINGS, ts_data_file_meta, value_stats_cols, nvalue_stats_cols),
	DEST(TS_DEST_STRING, ts_data_file_meta, external_path),
	DEST_FLAGGED(ts_data_file_meta, first_row_id, has_first_row_id),
	DEST_ARRAY(TS_DEST_STRINGS, ts_data_file_meta, write_cols, nwrite_cols),
};

static const ts_meta_dest manifest_dests[ME_NCOLS] = {
	{TS_DEST_VALUE, 0, -1, -1, -1, NULL},
	{TS_DEST_VALUE, 0, -1, -1, -1, NULL},
	DEST_REQUIRED(TS_DEST_BYTES, ts_manifest_entry, partition, RQ_PARTITION),
	DEST_REQUIRED(TS_DEST_I32, ts_manifest_entry, bucket, RQ_BUCKET),
	DEST_REQUIRED(TS_DEST_I32, ts_manifest_entry, total_buckets, RQ_TOTAL_BUCKETS),
	DEST_ROW(ts_manifest_entry, file, RQ_FILE, data_file_dests),
};

/* What an entry holds before its fields are decoded into it: the values of nulls. */
static const ts_manifest_entry blank_entry = {
	.file = {
		.key_stats = {.nnull_counts = -1},
		.value_stats = {.nnull_counts = -1},
		.delete_row_count = -1,
		.file_source = -1,
		.nvalue_stats_cols = -1,
		.nwrite_cols = -1,
	},
};

/* DeletionVectorMeta (element of _DELETIONS_VECTORS_RANGES) */
enum
{
	DV_F0, DV_F1, DV_F2, DV_CARDINALITY, DV_NFIELDS
};
static ts_field dv_range_fields[DV_NFIELDS] = {
	{-1, "f0", &t_string, NULL},
	{-1, "f1", &t_int, NULL},
	{-1, "f2", &t_int, NULL},
	{-1, "_CARDINALITY", &t_bigint, NULL},
};
static ts_type t_dv_range = {.kind = TS_ROW, .nullable = true,
.nfields = DV_NFIELDS, .fields = dv_range_fields};
static ts_type t_dv_range_array = {.kind = TS_ARRAY, .nullable = true,
.element = &t_dv_range};

/* GlobalIndexMeta (_GLOBAL_INDEX, Paimon 1.3+) */
enum
{
	GI_START, GI_END, GI_FIELD_ID, GI_SOURCE_META, GI_NFIELDS
};
static ts_field global_index_fields[GI_NFIELDS] = {
	{-1, "_ROW_RANGE_START", &t_bigint, NULL},
	{-1, "_ROW_RANGE_END", &t_bigint, NULL},
	{-1, "_INDEX_FIELD_ID", &t_int, NULL},
	/* Paimon 2.0 primary-key indexes: the ordered source data files */
	{-1, "_SOURCE_META", &t_bytes, NULL},
};
static ts_type t_global_index = {.kind = TS_ROW, .nullable = true,
.nfields = GI_NFIELDS, .fields = global_index_fields};

/* IndexManifestEntry */
enum
{
	IM_VERSION, IM_KIND, IM_PARTITION, IM_BUCKET, IM_INDEX_TYPE,
	IM_FILE_NAME, IM_FILE_SIZE, IM_ROW_COUNT, IM_DV_RANGES, IM_EXTERNAL_PATH,
	IM_GLOBAL_INDEX, IM_NCOLS
};
static const ts_read_column index_manifest_columns[IM_NCOLS] = {
	{-1, "_VERSION", &t_int},
	{-1, "_KIND", &t_tinyint},
	{-1, "_PARTITION", &t_bytes},
	{-1, "_BUCKET", &t_int},
	{-1, "_INDEX_TYPE", &t_string},
	{-1, "_FILE_NAME", &t_string},
	{-1, "_FILE_SIZE", &t_bigint},
	{-1, "_ROW_COUNT", &t_bigint},
	{-1, "_DELETIONS_VECTORS_RANGES", &t_dv_range_array},
	{-1, "_EXTERNAL_PATH", &t_string},
	{-1, "_GLOBAL_INDEX", &t_global_index},
};

/* ---- value helpers --------------------------------------------------- */

/* What is being decoded, for error messages. */
typedef struct decode_ctx
{
	const char *what;			/* "manifest list", "manifest", "index manifest" */
	const char *path;
	int64_t		row;			/* 0-based record number in the file */
	ts_arena   *arena;
	ts_err	   *err;
	ts_meta_slab slab;			/* the small copies, packed (meta_slab.h) */
} decode_ctx;

/* Room for a copied field, aligned as it needs. */
static inline __attribute__((always_inline)) void *
field_alloc(decode_ctx *c, size_t size, size_t align)
{
	return ts_meta_slab_alloc(&c->slab, size, align);
}

static bool
nomem(decode_ctx *c)
{
	return ts_error_nomemf(c->err, "decoding %s \"%s\"",
					c->what, c->path);
}

/* A field that must not be null (missing => the file is not what it claims). */
static inline __attribute__((always_inline)) bool
require(decode_ctx *c, const ts_value *v, const char *field)
{
	if (v->isnull)
		return ts_error(c->err, TS_ERR_CORRUPT,
						"%s \"%s\": record %lld has no value for required field %s",
						c->what, c->path, (long long) c->row, field);
	return true;
}

static inline __attribute__((always_inline)) bool
get_i64(decode_ctx *c, const ts_value *v, const char *field, int64_t *out)
{
	if (!require(c, v, field))
		return false;
	*out = v->v.i;
	return true;
}

static inline __attribute__((always_inline)) bool
get_i32(decode_ctx *c, const ts_value *v, const char *field, int32_t *out)
{
	if (!require(c, v, field))
		return false;
	if (v->v.i < INT32_MIN || v->v.i > INT32_MAX)
		return ts_error(c->err, TS_ERR_CORRUPT,
						"%s \"%s\": record %lld field %s out of int range",
						c->what, c->path, (long long) c->row, field);
	*out = (int32_t) v->v.i;
	return true;
}

/* Copy a string value into the arena; *out = NULL when null. */
static inline __attribute__((always_inline)) bool
copy_string(decode_ctx *c, const ts_value *v, char **out)
{
	char	   *s;

	*out = NULL;
	if (v->isnull)
		return true;
	s = field_alloc(c, (size_t) v->v.s.len + 1, 1);
	if (s == NULL)
		return nomem(c);
	if (v->v.s.len)
		memcpy(s, v->v.s.p, v->v.s.len);
	s[v->v.s.len] = '\0';
	*out = s;
	return true;
}

static inline __attribute__((always_inline)) bool
get_string(decode_ctx *c, const ts_value *v, const char *field, char **out)
{
	if (!require(c, v, field))
		return false;
	return copy_string(c, v, out);
}

/* Copy bytes into the arena; data stays non-NULL for a non-null empty value. */
static inline __attribute__((always_inline)) bool
copy_bytes(decode_ctx *c, const ts_value *v, ts_bytes *out)
{
	uint8_t    *d;

	out->data = NULL;
	out->len = 0;
	if (v->isnull)
		return true;
	d = field_alloc(c, v->v.s.len ? v->v.s.len : 1, 1);
	if (d == NULL)
		return nomem(c);
	if (v->v.s.len)
		memcpy(d, v->v.s.p, v->v.s.len);
	out->data = d;
	out->len = v->v.s.len;
	return true;
}

/* Array of strings: *n = -1 when null. */
static bool
copy_string_array(decode_ctx *c, const ts_value *v, int *n, char ***out)
{
	int			i;

	*n = -1;
	*out = NULL;
	if (v->isnull)
		return true;
	if (v->v.nested.n < 0)
		return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": negative array length",
						c->what, c->path);
	*out = field_alloc(c, sizeof(char *) * (size_t) (v->v.nested.n ? v->v.nested.n : 1), sizeof(char *));
	if (*out == NULL)
		return nomem(c);
	for (i = 0; i < v->v.nested.n; i++)
	{
		/* Java never writes null elements here; keep them as "" to be safe */
		if (v->v.nested.items[i].isnull)
			(*out)[i] = "";
		else if (!copy_string(c, &v->v.nested.items[i], &(*out)[i]))
			return false;
	}
	*n = v->v.nested.n;
	return true;
}

static bool
decode_simple_stats(decode_ctx *c, const ts_value *v, ts_simple_stats *st)
{
	const ts_value *counts;
	int			i;

	memset(st, 0, sizeof(*st));
	st->nnull_counts = -1;
	if (v->isnull)
		return true;
	if (v->v.nested.n != SS_NFIELDS)
		return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": malformed stats record",
						c->what, c->path);
	if (!copy_bytes(c, &v->v.nested.items[SS_MIN_VALUES], &st->min_values) ||
		!copy_bytes(c, &v->v.nested.items[SS_MAX_VALUES], &st->max_values))
		return false;
	counts = &v->v.nested.items[SS_NULL_COUNTS];
	if (counts->isnull)
		return true;
	if (counts->v.nested.n < 0)
		return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": negative array length",
						c->what, c->path);
	st->null_counts = field_alloc(c, sizeof(int64_t) * (size_t) (counts->v.nested.n ? counts->v.nested.n : 1),
								  sizeof(int64_t));
	if (st->null_counts == NULL)
		return nomem(c);
	for (i = 0; i < counts->v.nested.n; i++)
	{
		const ts_value *e = &counts->v.nested.items[i];

		st->null_counts[i] = e->isnull ? -1 : e->v.i;
	}
	st->nnull_counts = counts->v.nested.n;
	return true;
}

static bool
check_version(decode_ctx *c, const ts_value *v, int64_t expected)
{
	/* NULL: the field is absent (a reader gives NULL for missing columns) */
	if (v->isnull || v->v.i == expected)
		return true;
	return ts_error(c->err, TS_ERR_UNSUPPORTED,
					"%s \"%s\": unsupported _VERSION %lld (expected %lld)%s",
					c->what, c->path, (long long) v->v.i, (long long) expected,
					v->v.i == 1 && expected == 2 ?
					"; the table was written by a pre-Paimon table store and must be recreated" : "");
}

static bool
decode_kind(decode_ctx *c, const ts_value *v, ts_file_kind *kind)
{
	if (!require(c, v, "_KIND"))
		return false;
	if (v->v.i == 0)
		*kind = TS_FILE_ADD;
	else if (v->v.i == 1)
		*kind = TS_FILE_DELETE;
	else
		return ts_error(c->err, TS_ERR_CORRUPT,
						"%s \"%s\": record %lld has invalid _KIND %lld",
						c->what, c->path, (long long) c->row, (long long) v->v.i);
	return true;
}

/* ---- the read loop ------------------------------------------------- */

typedef bool (*decode_row_fn) (decode_ctx *c, const ts_value *row, void *out);
typedef bool (*finish_row_fn) (decode_ctx *c, const ts_value *row, uint64_t seen, void *out);

/* One of the three record kinds: its columns, struct and decoding. */
typedef struct record_kind
{
	const char *what;			/* for messages */
	const ts_read_column *cols;
	int			ncols;
	size_t		elem_size;
	decode_row_fn decode;		/* a row of values into the struct */
	/* or, when the compiled path takes the file and there are dests: */
	const ts_meta_dest *dests;	/* where the fields go; NULL: never */
	const void *blank;			/* what the struct holds before */
	finish_row_fn finish;		/* the columns left values, and the checks */
} record_kind;

/*
 * Where the rows come from: the compiled Avro path (manifest_avro.c) when
 * it takes the file, else the generic format reader one batch at a time.
 */
typedef struct row_source
{
	ts_meta_avro *fast;
	bool		direct;			/* fast, decoding into the structs */
	ts_format_reader *reader;
	ts_batch	batch;
	int			batch_row;
	int			ncols;
} row_source;

/* on unless a test compares the two paths */
static bool use_compiled_avro = true;

void
ts_manifest_use_compiled_avro(bool on)
{
	use_compiled_avro = on;
}

static bool
source_open(ts_fs *fs, row_source *s, const char *path, const record_kind *k, ts_manifest_keep *keep,
			ts_arena *arena, ts_err *err)
{
	bool		mine = false;

	memset(s, 0, sizeof(*s));
	s->ncols = k->ncols;
	if (use_compiled_avro)
		s->fast = ts_meta_avro_open_into(fs, path, k->cols, k->dests, k->ncols, keep, arena,
										 &mine, err);
	if (s->fast != NULL)
	{
		s->direct = k->dests != NULL;
		return true;
	}
	if (mine)
		return false;
	{
		ts_reader_options options = {0};

		options.fs = fs;
		s->reader = ts_format_open(TS_FORMAT_UNKNOWN, path, k->cols, k->ncols, &options, err);
	}
	return s->reader != NULL;
}

/*
 * 1 = a row, 0 = end, -1 = error.  Direct: the fields with dests are
 * decoded into 'record', *seen = their bits.
 */
static int
source_next(row_source *s, const char *what, const char *path, void *record,
			const ts_value **row, uint64_t *seen, ts_err *err)
{
	if (s->fast)
		return ts_meta_avro_next_into(s->fast, s->direct ? record : NULL, row, seen, err);
	while (s->batch_row >= s->batch.nrows)
	{
		int			rows;

		memset(&s->batch, 0, sizeof(s->batch));
		s->batch_row = 0;
		rows = ts_format_next(s->reader, &s->batch, err);
		if (rows <= 0)
			return rows;
		if (s->batch.ncols != s->ncols)
			return ts_error(err, TS_ERR_CORRUPT, "%s \"%s\": reader returned %d columns, expected %d",
							what, path, s->batch.ncols, s->ncols), -1;
		if (!TS_CHECK_INTERRUPTS(err))
			return -1;
	}
	*row = ts_batch_at(&s->batch, s->batch_row, 0);
	s->batch_row++;
	return 1;
}

static void
source_close(row_source *s)
{
	ts_meta_avro_close(s->fast);
	if (s->reader)
		ts_format_close(s->reader);
}

/*
 * Open 'path', read all rows and decode each into an element of an array
 * of k->elem_size bytes in the arena.  With 'expected' > 0 (the record
 * count the caller knows, e.g. from the manifest list) the array is taken
 * from the arena at that size and filled in place; without it, or when
 * the file holds more, a growing array is copied into the arena at the end.
 */
static bool
read_all(ts_fs *fs, const record_kind *k, const char *path, int expected, ts_manifest_keep *keep,
		 ts_arena *arena, void **result, int *count, ts_err *err)
{
	const char *what = k->what;
	size_t		elem_size = k->elem_size;
	row_source	src;
	decode_ctx	c;
	uint8_t    *items = NULL;
	uint8_t    *in_arena = NULL;	/* items, when they are the arena's */
	size_t		n = 0,
				cap = 0;
	bool		ok = false;
	union
	{
		ts_manifest_file_meta m;
		ts_manifest_entry e;
		ts_index_manifest_entry i;
	}			spare;			/* the record read when the array is full */

	*result = NULL;
	*count = 0;
	c.what = what;
	c.path = path;
	c.row = 0;
	c.arena = arena;
	c.err = err;
	ts_meta_slab_init(&c.slab, arena);

	if (elem_size > sizeof(spare))
		return ts_error(err, TS_ERR_INVALID, "internal: %s record too large", what);
	if (!source_open(fs, &src, path, k, keep, arena, err))
	{
		if (err && strstr(err->msg, path) == NULL)
			ts_error_context(err, "%s \"%s\"", what, path);
		return false;
	}
	if (expected > 0)
	{
		in_arena = ts_arena_alloc(arena, (size_t) expected * elem_size);
		if (in_arena == NULL)
		{
			nomem(&c);
			goto done;
		}
		items = in_arena;
		cap = (size_t) expected;
	}

	for (;;)
	{
		const ts_value *row;
		uint64_t	seen = 0;
		uint8_t    *elem = n < cap ? items + n * elem_size : (uint8_t *) &spare;
		int			rc;

		if (src.direct)
			memcpy(elem, k->blank, elem_size);
		else
			memset(elem, 0, elem_size);
		rc = source_next(&src, what, path, elem, &row, &seen, err);
		if (rc < 0)
		{
			if (err && strstr(err->msg, path) == NULL)
				ts_error_context(err, "%s \"%s\"", what, path);
			goto done;
		}
		if (rc == 0)
			break;
		if ((n & 1023) == 1023 && !TS_CHECK_INTERRUPTS(err))
			goto done;
		if (n == cap)
		{
			size_t		ncap = cap ? cap * 2 : 64;
			uint8_t    *ni;

			if (ncap > INT32_MAX / 2)
			{
				ts_error(err, TS_ERR_NOMEM, "%s \"%s\": too many records", what, path);
				goto done;
			}
			ni = ts_realloc(in_arena ? NULL : items, ncap * elem_size);
			if (ni == NULL)
			{
				nomem(&c);
				goto done;
			}
			if (in_arena)
			{
				/* more records than expected: continue on the heap */
				memcpy(ni, in_arena, n * elem_size);
				in_arena = NULL;
			}
			items = ni;
			cap = ncap;
			elem = items + n * elem_size;
			memcpy(elem, &spare, elem_size);
		}
		if (src.direct ? !k->finish(&c, row, seen, elem) : !k->decode(&c, row, elem))
			goto done;
		n++;
		c.row++;
	}

	if (n > 0 && in_arena)
		*result = in_arena;
	else if (n > 0)
	{
		*result = ts_arena_dup(arena, items, n * elem_size);
		if (*result == NULL)
		{
			nomem(&c);
			goto done;
		}
	}
	*count = (int) n;
	ok = true;

done:
	if (in_arena == NULL)
		ts_free(items);
	source_close(&src);
	return ok;
}

/* ---- manifest list --------------------------------------------------- */

static bool
decode_manifest_file_meta(decode_ctx *c, const ts_value *row, void *out)
{
	ts_manifest_file_meta *m = out;

	if (!check_version(c, &row[ML_VERSION], 2) ||
		!get_string(c, &row[ML_FILE_NAME], "_FILE_NAME", &m->file_name) ||
		!get_i64(c, &row[ML_FILE_SIZE], "_FILE_SIZE", &m->file_size) ||
		!get_i64(c, &row[ML_NUM_ADDED_FILES], "_NUM_ADDED_FILES", &m->num_added_files) ||
		!get_i64(c, &row[ML_NUM_DELETED_FILES], "_NUM_DELETED_FILES", &m->num_deleted_files) ||
		!decode_simple_stats(c, &row[ML_PARTITION_STATS], &m->partition_stats) ||
		!get_i64(c, &row[ML_SCHEMA_ID], "_SCHEMA_ID", &m->schema_id))
		return false;
	if (!row[ML_MIN_BUCKET].isnull && !row[ML_MAX_BUCKET].isnull)
	{
		m->has_bucket_range = true;
		m->min_bucket = (int32_t) row[ML_MIN_BUCKET].v.i;
		m->max_bucket = (int32_t) row[ML_MAX_BUCKET].v.i;
	}
	if (!row[ML_MIN_LEVEL].isnull && !row[ML_MAX_LEVEL].isnull)
	{
		m->has_level_range = true;
		m->min_level = (int32_t) row[ML_MIN_LEVEL].v.i;
		m->max_level = (int32_t) row[ML_MAX_LEVEL].v.i;
	}
	if (!row[ML_MIN_ROW_ID].isnull && !row[ML_MAX_ROW_ID].isnull)
	{
		m->has_row_id_range = true;
		m->min_row_id = row[ML_MIN_ROW_ID].v.i;
		m->max_row_id = row[ML_MAX_ROW_ID].v.i;
	}
	return true;
}

static const record_kind manifest_list_kind = {
	"manifest list", manifest_list_columns, ML_NCOLS, sizeof(ts_manifest_file_meta),
	decode_manifest_file_meta, NULL, NULL, NULL
};

bool
ts_manifest_list_read(ts_fs *fs, const char *path, ts_arena *arena,
					  ts_manifest_file_meta **metas, int *count, ts_err *err)
{
	return read_all(fs, &manifest_list_kind, path, 0, NULL, arena, (void **) metas, count, err);
}

/* ---- manifest -------------------------------------------------------- */

static bool
decode_data_file_meta(decode_ctx *c, const ts_value *v, ts_data_file_meta *f)
{
	const ts_value *x;

	if (!require(c, v, "_FILE"))
		return false;
	if (v->v.nested.n != DF_NFIELDS)
		return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": malformed _FILE record",
						c->what, c->path);
	x = v->v.nested.items;
	if (!get_string(c, &x[DF_FILE_NAME], "_FILE_NAME", &f->file_name) ||
		!get_i64(c, &x[DF_FILE_SIZE], "_FILE_SIZE", &f->file_size) ||
		!get_i64(c, &x[DF_ROW_COUNT], "_ROW_COUNT", &f->row_count) ||
		!copy_bytes(c, &x[DF_MIN_KEY], &f->min_key) ||
		!copy_bytes(c, &x[DF_MAX_KEY], &f->max_key) ||
		!decode_simple_stats(c, &x[DF_KEY_STATS], &f->key_stats) ||
		!decode_simple_stats(c, &x[DF_VALUE_STATS], &f->value_stats) ||
		!get_i64(c, &x[DF_MIN_SEQUENCE_NUMBER], "_MIN_SEQUENCE_NUMBER", &f->min_sequence_number) ||
		!get_i64(c, &x[DF_MAX_SEQUENCE_NUMBER], "_MAX_SEQUENCE_NUMBER", &f->max_sequence_number) ||
		!get_i64(c, &x[DF_SCHEMA_ID], "_SCHEMA_ID", &f->schema_id) ||
		!get_i32(c, &x[DF_LEVEL], "_LEVEL", &f->level) ||
		!copy_string_array(c, &x[DF_EXTRA_FILES], &f->nextra_files, &f->extra_files) ||
		!copy_bytes(c, &x[DF_EMBEDDED_FILE_INDEX], &f->embedded_file_index) ||
		!copy_string_array(c, &x[DF_VALUE_STATS_COLS], &f->nvalue_stats_cols, &f->value_stats_cols) ||
		!copy_string(c, &x[DF_EXTERNAL_PATH], &f->external_path) ||
		!copy_string_array(c, &x[DF_WRITE_COLS], &f->nwrite_cols, &f->write_cols))
		return false;
	/* _EXTRA_FILES is non-null in every version; treat null as empty */
	if (f->nextra_files < 0)
	{
		f->nextra_files = 0;
		f->extra_files = NULL;
	}
	if (!x[DF_CREATION_TIME].isnull)
	{
		f->has_creation_time = true;
		f->creation_time_millis = x[DF_CREATION_TIME].v.ts.millis;
	}
	f->delete_row_count = x[DF_DELETE_ROW_COUNT].isnull ? -1 : x[DF_DELETE_ROW_COUNT].v.i;
	f->file_source = x[DF_FILE_SOURCE].isnull ? -1 : (int32_t) x[DF_FILE_SOURCE].v.i;
	if (!x[DF_FIRST_ROW_ID].isnull)
	{
		f->has_first_row_id = true;
		f->first_row_id = x[DF_FIRST_ROW_ID].v.i;
	}
	return true;
}

static bool
decode_manifest_entry(decode_ctx *c, const ts_value *row, void *out)
{
	ts_manifest_entry *e = out;

	if (!check_version(c, &row[ME_VERSION], 2) ||
		!decode_kind(c, &row[ME_KIND], &e->kind) ||
		!require(c, &row[ME_PARTITION], "_PARTITION") ||
		!copy_bytes(c, &row[ME_PARTITION], &e->partition) ||
		!get_i32(c, &row[ME_BUCKET], "_BUCKET", &e->bucket) ||
		!get_i32(c, &row[ME_TOTAL_BUCKETS], "_TOTAL_BUCKETS", &e->total_buckets) ||
		!decode_data_file_meta(c, &row[ME_FILE], &e->file))
		return false;
	return true;
}

/*
 * An entry the compiled path decoded into its struct: _VERSION and _KIND
 * from their values, then the fields that must not be null, in the order
 * decode_manifest_entry checks them.
 */
static bool
finish_manifest_entry(decode_ctx *c, const ts_value *row, uint64_t seen, void *out)
{
	ts_manifest_entry *e = out;
	const uint64_t all = (UINT64_C(1) << RQ_NBITS) - 1;

	if (!check_version(c, &row[ME_VERSION], 2) ||
		!decode_kind(c, &row[ME_KIND], &e->kind))
		return false;
	if ((seen & all) != all)
		for (int b = 0; b < RQ_NBITS; b++)
			if (!(seen & (UINT64_C(1) << b)))
				return ts_error(c->err, TS_ERR_CORRUPT,
								"%s \"%s\": record %lld has no value for required field %s",
								c->what, c->path, (long long) c->row, required_names[b]);
	return true;
}

static const record_kind manifest_kind = {
	"manifest", manifest_columns, ME_NCOLS, sizeof(ts_manifest_entry),
	decode_manifest_entry, manifest_dests, &blank_entry, finish_manifest_entry
};

bool
ts_manifest_read(ts_fs *fs, const char *path, ts_arena *arena,
				 ts_manifest_entry **entries, int *count, ts_err *err)
{
	return ts_manifest_read_expect(fs, path, 0, arena, entries, count, err);
}

/* a larger (or corrupt) count is not trusted to size an allocation */
#define MAX_EXPECTED (1 << 20)

bool
ts_manifest_read_expect(ts_fs *fs, const char *path, int64_t expected, ts_arena *arena,
						ts_manifest_entry **entries, int *count, ts_err *err)
{
	return ts_manifest_read_kept(fs, path, expected, NULL, arena, entries, count, err);
}

ts_manifest_keep *
ts_manifest_keep_new(void)
{
	return ts_meta_avro_keep_new();
}

void
ts_manifest_keep_free(ts_manifest_keep *keep)
{
	ts_meta_avro_keep_free(keep);
}

bool
ts_manifest_read_kept(ts_fs *fs, const char *path, int64_t expected, ts_manifest_keep *keep,
					  ts_arena *arena, ts_manifest_entry **entries, int *count, ts_err *err)
{
	return read_all(fs, &manifest_kind, path,
					expected > 0 && expected <= MAX_EXPECTED ? (int) expected : 0, keep,
					arena, (void **) entries, count, err);
}

bool
ts_manifest_decodes_direct(ts_fs *fs, const char *path)
{
	row_source	src;
	ts_arena	arena;
	ts_err		err = {0};
	bool		direct = false;

	ts_arena_init(&arena, 0);
	if (source_open(fs, &src, path, &manifest_kind, NULL, &arena, &err))
	{
		direct = src.direct;
		source_close(&src);
	}
	ts_arena_free(&arena);
	return direct;
}

/* ---- index manifest -------------------------------------------------- */

static bool
decode_dv_ranges(decode_ctx *c, const ts_value *v, ts_index_manifest_entry *e)
{
	int			i,
				n = 0;

	e->ndv_ranges = -1;
	e->dv_ranges = NULL;
	if (v->isnull)
		return true;
	if (v->v.nested.n < 0)
		return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": negative array length",
						c->what, c->path);
	e->dv_ranges = ts_arena_alloc(c->arena,
								  sizeof(ts_dv_range) * (size_t) (v->v.nested.n ? v->v.nested.n : 1));
	if (e->dv_ranges == NULL)
		return nomem(c);
	for (i = 0; i < v->v.nested.n; i++)
	{
		const ts_value *el = &v->v.nested.items[i];
		const ts_value *x;
		ts_dv_range *r = &e->dv_ranges[n];

		if (el->isnull)
			continue;			/* nullable element, never written in practice */
		if (el->v.nested.n != DV_NFIELDS)
			return ts_error(c->err, TS_ERR_CORRUPT,
							"%s \"%s\": malformed _DELETIONS_VECTORS_RANGES element",
							c->what, c->path);
		x = el->v.nested.items;
		if (!get_string(c, &x[DV_F0], "_DELETIONS_VECTORS_RANGES.f0", &r->data_file) ||
			!get_i32(c, &x[DV_F1], "_DELETIONS_VECTORS_RANGES.f1", &r->offset) ||
			!get_i32(c, &x[DV_F2], "_DELETIONS_VECTORS_RANGES.f2", &r->length))
			return false;
		if (r->offset < 0 || r->length < 0)
			return ts_error(c->err, TS_ERR_CORRUPT,
							"%s \"%s\": negative deletion vector offset/length for data file \"%s\"",
							c->what, c->path, r->data_file);
		r->cardinality = x[DV_CARDINALITY].isnull ? -1 : x[DV_CARDINALITY].v.i;
		n++;
	}
	e->ndv_ranges = n;
	return true;
}

static bool
decode_index_manifest_entry(decode_ctx *c, const ts_value *row, void *out)
{
	ts_index_manifest_entry *e = out;

	if (!check_version(c, &row[IM_VERSION], 1) ||
		!decode_kind(c, &row[IM_KIND], &e->kind) ||
		!require(c, &row[IM_PARTITION], "_PARTITION") ||
		!copy_bytes(c, &row[IM_PARTITION], &e->partition) ||
		!get_i32(c, &row[IM_BUCKET], "_BUCKET", &e->bucket) ||
		!get_string(c, &row[IM_INDEX_TYPE], "_INDEX_TYPE", &e->index_type) ||
		!get_string(c, &row[IM_FILE_NAME], "_FILE_NAME", &e->file_name) ||
		!get_i64(c, &row[IM_FILE_SIZE], "_FILE_SIZE", &e->file_size) ||
		!get_i64(c, &row[IM_ROW_COUNT], "_ROW_COUNT", &e->row_count) ||
		!decode_dv_ranges(c, &row[IM_DV_RANGES], e) ||
		!copy_string(c, &row[IM_EXTERNAL_PATH], &e->external_path))
		return false;
	e->has_global_index = false;
	e->gi_source_meta.data = NULL;
	e->gi_source_meta.len = 0;
	if (!row[IM_GLOBAL_INDEX].isnull)
	{
		const ts_value *g = row[IM_GLOBAL_INDEX].v.nested.items;

		if (row[IM_GLOBAL_INDEX].v.nested.n != GI_NFIELDS)
			return ts_error(c->err, TS_ERR_CORRUPT, "%s \"%s\": malformed _GLOBAL_INDEX",
							c->what, c->path);
		if (!get_i64(c, &g[GI_START], "_GLOBAL_INDEX._ROW_RANGE_START", &e->gi_row_start) ||
			!get_i64(c, &g[GI_END], "_GLOBAL_INDEX._ROW_RANGE_END", &e->gi_row_end) ||
			!get_i32(c, &g[GI_FIELD_ID], "_GLOBAL_INDEX._INDEX_FIELD_ID", &e->gi_field_id) ||
			!copy_bytes(c, &g[GI_SOURCE_META], &e->gi_source_meta))
			return false;
		if (e->gi_row_start < 0 || e->gi_row_end < e->gi_row_start)
			return ts_error(c->err, TS_ERR_CORRUPT,
							"%s \"%s\": global index file \"%s\" has row range %lld..%lld",
							c->what, c->path, e->file_name, (long long) e->gi_row_start,
							(long long) e->gi_row_end);
		e->has_global_index = true;
	}
	return true;
}

static const record_kind index_manifest_kind = {
	"index manifest", index_manifest_columns, IM_NCOLS, sizeof(ts_index_manifest_entry),
	decode_index_manifest_entry, NULL, NULL, NULL
};

bool
ts_index_manifest_read(ts_fs *fs, const char *path, ts_arena *arena,
					   ts_index_manifest_entry **entries, int *count, ts_err *err)
{
	return read_all(fs, &index_manifest_kind, path, 0, NULL, arena, (void **) entries, count, err);
}
