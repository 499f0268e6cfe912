/*
 * ts_gen.c - write deterministic Paimon tables for tests (fixture generator):
 * APPEND tables here, PRIMARY-KEY tables in ts_gen_pk.h / ts_gen_pk_write.h
 * (selected by --primary-key; included below, the Makefile builds one binary
 * per src/tools/NAME.c), the file indexes of APPEND tables in ts_gen_index.h,
 * their btree global index in ts_gen_btree.h; the options in ts_gen_args.h,
 * the value formulas in ts_gen_values.h, the schema files in
 * ts_gen_schema_json.h and the value statistics in ts_gen_stats.h.
 *
 * Writes schema/schema-0 (and schema-1 in evolution mode), snapshot/snapshot-N
 * with LATEST/EARLIEST hints, Avro manifest lists and manifests (Paimon 1.1
 * manifest schemas, _VERSION = 2, zstandard, SimpleStats rows as BinaryRows),
 * and Avro data files under <table>/<k>=<v>/.../bucket-<b>/data-<uuid>-<n>.avro.
 * Output is byte-for-byte deterministic for the same arguments (--seed).
 *
 * USAGE
 *   ts_gen <table_dir> [options]          (table_dir must not hold a schema/ yet
 *                                          unless --force; parents are created)
 *   ts_gen <table_dir> --spec <file>      options read from a file, one per line
 *                                          without the leading "--" ("column id INT",
 *                                          "rows 100"); '#' starts a comment line
 *
 * OPTIONS
 *   --column NAME:TYPE     add a column (repeatable, in order).  TYPE is Paimon SQL
 *                          syntax: BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE
 *                          "DECIMAL(p, s)" "CHAR(n)" "VARCHAR(n)" STRING "BINARY(n)"
 *                          "VARBINARY(n)" BYTES DATE "TIME(p<=3)" "TIMESTAMP(p<=6)"
 *                          "TIMESTAMP(p<=6) WITH LOCAL TIME ZONE" "ARRAY<T>"
 *                          "MULTISET<T>" "MAP<K, V>" "ROW<a T, b T>", suffix " NOT NULL".
 *   --partition NAME       partition key (repeatable, in order)
 *   --partitions P         distinct values per partition key (default 2)
 *   --buckets N            bucket option: -1 = unaware (default), N > 0 = fixed
 *   --bucket-key A[,B]     bucket key columns (required when N > 0)
 *   --rows R               rows per snapshot (default 10)
 *   --snapshots S          number of APPEND commits (default 1)
 *   --files F              data files per (partition, bucket) per commit (default 1)
 *   --null-every K         NULL pattern (0 = no NULLs; default 0), see VALUES
 *   --codec C              data file codec: zstd (default), null, deflate, snappy
 *   --manifest-codec C     manifest codec (default zstd)
 *   --seed X               seed for uuids and sync markers (default 1)
 *   --format F             data files: avro (default), parquet (flat columns, ARRAY, VECTOR, MAP, ROW) or
 *                          orc (the types Paimon's ORC writer takes), uncompressed;
 *                          see ts_gen_parquet.h / format/orc/orc_writer.h; with --primary-key,
 *                          parquet writes the sorted runs with the extension's writer
 *                          (format/parquet/pq_writer.h), zstd level 1 unless --codec null
 *   --row-group-rows N     Parquet row groups / ORC stripes / Avro blocks of N rows (the
 *                          last one the rest; Parquet: flat columns only; default 0: one
 *                          per file, Avro blocks of 64 KiB)
 *   --stripe-rows N        the same as --row-group-rows (the name ORC gives them)
 *   --parquet-block-size N, --parquet-page-size N
 *                          with --primary-key --format parquet: row groups of N bytes
 *                          (default 128 MiB, Java's parquet.block.size: a run is one row
 *                          group) and data pages of N bytes (default 1 MiB, Java's
 *                          parquet.page.size), as Java's parquet-mr lays out a run
 *   --force                write even if <table_dir>/schema exists
 *   --preset all-types     columns of every type (see below) + partition "p" INT
 *   --preset evolve        columns id INT NOT NULL, name STRING, amount INT,
 *                          old_col STRING; then --rename name:full_name --drop old_col
 *                          --add extra:DOUBLE --widen amount, from snapshot 2 (needs
 *                          --snapshots >= 2; default becomes 2)
 *
 * PRIMARY-KEY TABLES (see ts_gen_pk.h for the write stream and compaction rules)
 *   --primary-key A[,B]    primary key (partition keys are appended if missing, as
 *                          Paimon requires); PK columns become NOT NULL; needs
 *                          --buckets N > 0; --bucket-key defaults to the trimmed PK
 *                          (then no "bucket-key" option is written)
 *   --merge-engine E       deduplicate (default, option not written) | first-row |
 *                          partial-update | aggregation
 *   --agg FIELD:FUNC       fields.FIELD.aggregate-function=FUNC (sum, max, min,
 *                          last_value, last_non_null_value, first_non_null_value,
 *                          first_value); repeatable
 *   --sequence-field F[,G] sequence.field (values f(T, name, mix(r) % 1000))
 *   --option KEY=VALUE     any extra table option (repeatable), e.g. ignore-delete=true,
 *                          partial-update.remove-record-on-delete=true,
 *                          fields.F.ignore-retract=true, sequence.field.sort-order=descending;
 *                          the generator's compaction honours those it knows; append
 *                          tables take only row-tracking.enabled=true, which also writes
 *                          each file's _FIRST_ROW_ID (consecutive over commits), and the
 *                          file-index.* options: file-index.<kind>.columns=a[,b] (kind
 *                          bloom-filter, bitmap, bsi, range-bitmap) writes a file index
 *                          per data file, embedded or as a <file>.index sidecar by
 *                          file-index.in-manifest-threshold (see ts_gen_index.h)
 *   --btree-index COL      (append, row-tracking, unpartitioned, bucket-unaware tables)
 *                          a btree global index of COL per commit, listed in an index
 *                          manifest (repeatable; see ts_gen_btree.h)
 *   --btree-block-size N   its data block size in bytes (default 256)
 *   --deletion-vectors     deletion-vectors.enabled=true; compaction looks keys up in
 *                          higher levels and writes DV index files + index manifest
 *   --compact-every C      a COMPACT snapshot after every C-th commit (default 1 when
 *                          --levels is given)
 *   --levels N             1..5 output levels used by compactions, from level 5 down
 *                          (default 1 when --compact-every is given; 0 = no compaction)
 *   --compact-file-rows R  rows per compacted file (0 = one file per level)
 *   --keys K               distinct key ids (default --rows)
 *   --delete-every D       about one record in D is -D (0 = none)
 *   --retract-every U      about one record in U is -U (0 = none)
 *   --overwrite-at S       commit S is an OVERWRITE (INSERT OVERWRITE of the table):
 *                          every live file DELETEd (and its deletion vector), then the
 *                          commit's records written as a new table (keys +I again)
 *   --readd-at S           (append tables) commit S is an OVERWRITE whose delta also
 *                          DELETEs the files commit 1 wrote and ADDs them again (a
 *                          file an overwrite both removes and adds; rows unchanged)
 *   --overwrite-partition K=V[/K2=V2]  with --overwrite-at: an INSERT OVERWRITE of
 *                          that partition alone (its directory name): only its files
 *                          DELETEd, only its records of the commit written
 *   Writes <table_dir>.ops.jsonl next to the table (format in ts_gen_pk_write.h);
 *   --no-ops    does not (benchmarks: the file is ~700 bytes per record).
 *   Not with schema evolution options.
 *
 *   schema evolution (any of these creates schema-1, used from snapshot --evolve-at,
 *   default S/2 + 1 (integer division); files of earlier snapshots keep schema 0):
 *   --rename OLD:NEW  --drop NAME  --add NAME:TYPE  --widen NAME (INT -> BIGINT)
 *   --retype NAME:TYPE (any type change: files of schema 0 hold f(T0, name, i),
 *   files of schema 1 hold f(TYPE, name, i); readers cast the older ones)
 *   --evolve-at S
 *
 * VALUES (so that tests can compute the expected rows independently)
 *   Row number i runs 0 .. rows*snapshots-1; snapshot s (1-based) holds rows
 *   (s-1)*rows .. s*rows-1.  Column position c is 0-based in --column order (added
 *   columns continue the numbering).  A top-level value is NULL iff the column is
 *   nullable, is no partition or bucket key, K > 0 and i % K == c % K.  Otherwise
 *   it is f(T, name, n) with n = i (partition keys: n = i % P), name = the column's
 *   schema-0 name (its own for added columns), T = its schema-0 type:
 *     BOOLEAN   n % 2 = 1            TINYINT  n % 128       SMALLINT n % 32768
 *     INT       n                    BIGINT   n * 1000000007
 *     FLOAT     n * 0.5              DOUBLE   n * 1.25
 *     DECIMAL(p,s)  unscaled (n * (10^18 + 1)) mod 10^p, i.e. value / 10^s
 *     CHAR(L) VARCHAR(L) STRING   name || '_' || n, cut to L characters
 *     BINARY(L) VARBINARY(L) BYTES  the same bytes; BINARY(L) padded with 0x00 to L
 *     DATE      2020-01-01 + n days (18262 + n)
 *     TIME(p)   (n * 1001) % 86400000 ms of day, truncated to p digits
 *     TIMESTAMP(p) / TIMESTAMP(p) WITH LOCAL TIME ZONE
 *               2020-01-01 00:00:00 (UTC) + n * 1.001001 s, truncated to p digits
 *     ARRAY<E> / MULTISET<E>   n % 4 elements, element k = f(E, name, n + k)
 *     MAP<K, V>  n % 3 entries, entry k = (f(K, name, n + k), f(V, name, n + k))
 *     ROW<..>   field j = f(T_j, field name, n)     (nested values are never NULL)
 *   A widened column keeps its INT values; a renamed one keeps its schema-0 name in
 *   the formula; an added column is NULL in files written under schema 0.
 *   preset all-types columns: b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,
 *   f FLOAT, d DOUBLE, dec_s DECIMAL(10, 2), dec_l DECIMAL(38, 6), c CHAR(8),
 *   vc VARCHAR(20), s STRING, bin BINARY(4), vb VARBINARY(10), by BYTES, dt DATE,
 *   tm TIME(3), ts TIMESTAMP(6), ts3 TIMESTAMP(3), ltz TIMESTAMP(6) WITH LOCAL TIME
 *   ZONE, arr ARRAY<INT>, ms MULTISET<STRING>, m MAP<STRING, INT>, mi MAP<INT, STRING>,
 *   r ROW<x INT, y STRING>, p INT (partition key).
 *
 * METADATA
 *   Unaware tables write bucket-0 with _TOTAL_BUCKETS -1; fixed-bucket tables use
 *   Paimon's DEFAULT bucket function (ts_bucket_compute).  Sequence numbers count per
 *   (partition, bucket) from 0.  Each commit writes one manifest and a delta manifest
 *   list; the base list of snapshot s lists every manifest of snapshots < s.
 *   Value stats: min/max for atomic non-binary columns (strings only when every value
 *   is <= 16 characters, as Paimon's truncate(16) mode would keep), null counts for all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "base/ts_fs.h"
#include "format/avro/avro_writer.h"
#include "format/parquet/pq_writer.h"
#include "meta/binary_row.h"
#include "meta/bucket.h"
#include "meta/schema.h"

#define MAX_COLS 256
#define MAX_ARGS 4096

#define TS_TOOL_NAME "ts_gen"
#include "tools/ts_tool_util.h"

/* ---- deterministic uuids ---------------------------------------------- */

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static char *
new_uuid(void)
{
	uint64_t	a = rng_next(),
				b = rng_next();

	a = (a & ~0xf000ULL) | 0x4000ULL;	/* version 4 */
	b = (b & ~(3ULL << 62)) | (2ULL << 62); /* variant 10 */
	return pathf("%08x-%04x-%04x-%04x-%012llx",
				 (unsigned) (a >> 32), (unsigned) ((a >> 16) & 0xffff), (unsigned) (a & 0xffff),
				 (unsigned) (b >> 48), (unsigned long long) (b & 0xffffffffffffULL));
}

/* ---- configuration ---------------------------------------------------- */

typedef struct gcol
{
	char	   *name0;			/* name in schema 0 (or when added) */
	char	   *name1;			/* name in schema 1 */
	ts_type    *type0;			/* formula type */
	ts_type    *type1;			/* type in schema 1 */
	int32_t		id;
	int			pos;			/* position c for the NULL rule */
	bool		in0;
	bool		in1;
	bool		is_part;
	bool		is_bkey;
	bool		is_pk;			/* primary-key column (PK tables) */
	bool		is_seq;			/* a sequence.field column (PK tables) */
	bool		retyped;		/* --retype: schema-1 files use type1's formula */
} gcol;

typedef struct config
{
	const char *dir;
	gcol		cols[MAX_COLS];
	int			ncols;
	char	   *parts[MAX_COLS];
	int			nparts;
	int			partitions;
	int			buckets;
	char	   *bucket_key;
	int64_t		rows;
	int			snapshots;
	int			files;
	int			null_every;
	ts_avro_codec codec;
	ts_avro_codec manifest_codec;
	uint64_t	seed;
	bool		force;
	bool		parquet;		/* --format parquet */
	bool		orc;			/* --format orc */
	int			row_group_rows; /* --row-group-rows / --stripe-rows (Parquet, ORC, Avro blocks; 0: one per file) */
	int64_t		pq_block_size;	/* --parquet-block-size (primary-key Parquet runs; 0: Java's) */
	int64_t		pq_page_size;	/* --parquet-page-size (the same) */
	bool		evolve;
	int			evolve_at;
	/* pending evolution requests (applied after all columns are known) */
	char	   *renames[MAX_COLS];
	int			nrenames;
	char	   *drops[MAX_COLS];
	int			ndrops;
	char	   *adds[MAX_COLS];
	int			nadds;
	char	   *widens[MAX_COLS];
	int			nwidens;
	char	   *retypes[MAX_COLS];
	int			nretypes;
	/* primary-key tables (ts_gen_pk.h) */
	char	   *pk[MAX_COLS];	/* primaryKeys, partition keys included */
	int			npk;
	bool		bucket_key_implicit;	/* bucket key = trimmed PK, not written */
	char	   *merge_engine;	/* NULL = deduplicate (option not written) */
	char	   *seq_field;		/* sequence.field, comma separated */
	char	   *aggs[MAX_COLS]; /* FIELD:FUNC */
	int			naggs;
	char	   *extra_opts[MAX_COLS];	/* KEY=VALUE */
	int			nextra_opts;
	bool		dv;				/* deletion-vectors.enabled */
	bool		no_ops;			/* --no-ops: write no <table_dir>.ops.jsonl */
	int			levels;			/* distinct compaction output levels (0 = no compaction) */
	int			compact_every;	/* COMPACT snapshot after every N commits */
	int			compact_file_rows;	/* rows per compacted file (0 = one file) */
	int64_t		keys;			/* distinct keys (0 = rows) */
	int			delete_every;	/* about 1 in N records is -D (0 = none) */
	int			retract_every;	/* about 1 in N records is -U (0 = none) */
	int			overwrite_at;	/* commit number that is an OVERWRITE (0 = none) */
	char	   *overwrite_partition;	/* its only partition ("k=v[/k2=v2]"; NULL = all) */
	int			readd_at;		/* append: commit that also DELETEs + ADDs commit 1's files */
	/* the btree global index of append tables (ts_gen_btree.h) */
	char	   *btree_cols[MAX_COLS];
	int			nbtree;
	int			btree_block;	/* bytes (default 256) */
} config;

/* primary-key tables: ts_gen_pk.h, included below */
static void pk_finish_config(config *cfg);
static bool pk_extra_true(const config *cfg, const char *key);
static void pk_schema_options(const config *cfg, cJSON *opts);
static int	pk_generate(config *cfg, int64_t base_time);

/* ---- arguments and presets ------------------------------------------- */

#include "tools/ts_gen_args.h"

/* ---- value formulas --------------------------------------------------- */

#include "tools/ts_gen_values.h"

/* ---- schema JSON ------------------------------------------------------ */

#include "tools/ts_gen_schema_json.h"

#include "tools/ts_manifest_records.h"
#include "tools/ts_tool_commit.h"
#include "tools/ts_gen_parquet.h"
#include "format/orc/orc_writer.h"

/* the ORC and Parquet writers' sink: the file in memory */
static bool
file_to_buf(void *arg, const void *data, size_t len, ts_err *err)
{
	return ts_buf_append(arg, data, len, err);
}

/* an Avro writer's sync marker: random, from the seeded generator */
static void
set_random_sync(ts_avro_writer *w)
{
	uint8_t		sync[16];

	for (int k = 0; k < 16; k += 8)
	{
		uint64_t	r = rng_next();

		memcpy(sync + k, &r, 8);
	}
	ts_avro_writer_set_sync(w, sync);
}
#include "tools/ts_gen_index.h"

/* ---- statistics --------------------------------------------------------- */

#include "tools/ts_gen_stats.h"

/* whether t holds a VECTOR at any depth */
static bool
has_vector(const ts_type *t)
{
	if (t == NULL)
		return false;
	if (t->kind == TS_VECTOR)
		return true;
	for (int i = 0; i < t->nfields; i++)
		if (has_vector(t->fields[i].type))
			return true;
	return has_vector(t->element) || has_vector(t->key) || has_vector(t->value);
}

/* every VECTOR of t (a copy) made an ARRAY */
static void
vector_to_array(ts_type *t)
{
	if (t == NULL)
		return;
	if (t->kind == TS_VECTOR)
		t->kind = TS_ARRAY;
	for (int i = 0; i < t->nfields; i++)
		vector_to_array(t->fields[i].type);
	vector_to_array(t->element);
	vector_to_array(t->key);
	vector_to_array(t->value);
}

/*
 * An Avro data-file writer for these columns: VECTOR<E, n> (at any depth) is
 * written as an Avro array of E, as Paimon's Avro writer does.
 */
static ts_avro_writer *
avro_writer_for(const ts_field *fields, int n, ts_avro_codec codec, ts_err *err)
{
	ts_field   *wf = xcalloc((size_t) (n ? n : 1), sizeof(ts_field));
	ts_type   **owned = xcalloc((size_t) (n ? n : 1), sizeof(ts_type *));
	ts_avro_writer *w;

	for (int i = 0; i < n; i++)
	{
		wf[i] = fields[i];
		if (has_vector(fields[i].type))
		{
			owned[i] = ts_type_copy(fields[i].type);
			if (owned[i] == NULL)
				die("out of memory");
			vector_to_array(owned[i]);
			wf[i].type = owned[i];
		}
	}
	/* the fields must outlive the writer: kept until the tool exits */
	w = ts_avro_writer_create_for_fields(wf, n, codec, err);
	free(owned);
	return w;
}

/* ---- the table ---------------------------------------------------------- */

typedef struct group
{
	ts_buf		partition;		/* BinaryRow with arity prefix */
	char	   *part_path;		/* "k=v/..." */
	ts_value   *part_values;	/* for partition stats */
	int32_t		bucket;
	int64_t		next_seq;
	int64_t    *rows;			/* row numbers of the current chunk */
	int			nrows;
	int			cap;
} group;

typedef struct entry
{
	ts_value	row[6];
} entry;

static const char *
escape_part(const char *s, char *buf, size_t cap)
{
	size_t		o = 0;

	for (; *s && o + 4 < cap; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c < 0x20 || strchr("\"#%'*/:=?\\\x7f{}[]^", c))
			o += (size_t) snprintf(buf + o, cap - o, "%%%02X", c);
		else
			buf[o++] = (char) c;
	}
	buf[o] = '\0';
	return buf;
}

static char *
partition_text(const ts_type *t, const ts_value *v)
{
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return xstrdup(v->v.i ? "true" : "false");
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:			/* legacy-name: days since epoch */
			return pathf("%lld", (long long) v->v.i);
		case TS_CHAR:
		case TS_VARCHAR:
			return pathf("%.*s", (int) v->v.s.len, (const char *) v->v.s.p);
		default:
			die("partition key type %s not supported by ts_gen (use integers, strings, DATE, BOOLEAN)",
				ts_type_kind_name(t->kind));
	}
	return NULL;
}

#include "ts_gen_btree.h"
#include "ts_gen_pk.h"

int
main(int argc, char **argv)
{
	config		cfg;
	ts_err		err;
	ts_field   *me_fields;
	int			nme;
	bool		row_tracking;
	bool		want_index;
	int64_t		next_row_id = 0;
	group	   *groups = NULL;
	int			ngroups = 0;
	char	  **manifests = NULL;	/* all manifest names so far */
	int64_t    *manifest_sizes = NULL;
	int64_t    *manifest_added = NULL;
	int64_t    *manifest_deleted = NULL;
	int		   *manifest_schema = NULL;
	ts_value   *manifest_pstats = NULL; /* partition stats row per manifest */
	int32_t    *manifest_minb = NULL,
			   *manifest_maxb = NULL;
	int			nmanifests = 0;
	int64_t		total_records = 0;
	const int64_t base_time = 1700000000000LL;
	ts_arena	meta_arena;
	char	   *list_uuid;
	char	   *manifest_uuid;
	entry	   *readd = NULL;		/* --readd-at: commit 1's entries */
	int			nreadd = 0;
	int			list_counter = 0;
	int			manifest_counter = 0;
	gb_state	gb;

	if (argc < 2 || argv[1][0] == '-')
	{
		fprintf(stderr, "usage: ts_gen <table_dir> [--column NAME:TYPE ...] [--partition K] "
				"[--buckets N --bucket-key K] [--rows R] [--snapshots S] [--files F] "
				"[--null-every K] [--codec C] [--preset all-types|evolve] [--spec FILE] [--readd-at S] ...\n"
				"       primary-key tables: --primary-key K [--merge-engine E] [--agg F:FN] "
				"[--sequence-field F] [--deletion-vectors] [--no-ops] [--levels N] [--compact-every C] "
				"[--keys K] [--delete-every D] [--retract-every U] [--overwrite-at S] "
				"[--overwrite-partition K=V] [--option K=V] ...\n"
				"see the comment at the top of src/tools/ts_gen.c\n");
		return 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = argv[1];
	cfg.partitions = 2;
	cfg.buckets = -1;
	cfg.rows = 10;
	cfg.snapshots = 1;
	cfg.files = 1;
	cfg.codec = TS_AVRO_CODEC_ZSTANDARD;
	cfg.manifest_codec = TS_AVRO_CODEC_ZSTANDARD;
	cfg.seed = 1;
	apply_args(&cfg, argc - 2, argv + 2);
	finish_config(&cfg);
	rng_state = cfg.seed * 0x2545F4914F6CDD1DULL + 1;

	{
		char	   *sd = pathf("%s/schema", cfg.dir);

		if (ts_path_is_dir(ts_fs_local_unconfined(), sd) && !cfg.force)
			die("%s exists (use --force to overwrite)", sd);
		mkdirs(sd);
		free(sd);
		sd = pathf("%s/snapshot", cfg.dir);
		mkdirs(sd);
		free(sd);
		sd = pathf("%s/manifest", cfg.dir);
		mkdirs(sd);
		free(sd);
	}
	write_schema(&cfg, 0, base_time);
	if (cfg.evolve)
		write_schema(&cfg, 1, base_time + (int64_t) cfg.evolve_at * 1000 - 500);
	if (cfg.npk > 0)
		return pk_generate(&cfg, base_time);

	/* row-tracking.enabled: _FIRST_ROW_ID per file, consecutive over commits */
	row_tracking = pk_extra_true(&cfg, "row-tracking.enabled");
	want_index = gi_wanted(&cfg);
	me_fields = manifest_entry_fields_rt(&nme, row_tracking);
	gb_init(&gb, &cfg, row_tracking);
	ts_arena_init(&meta_arena, 64 * 1024);
	list_uuid = new_uuid();
	manifest_uuid = new_uuid();

	for (int snap = 1; snap <= cfg.snapshots; snap++)
	{
		int			schema_id = cfg.evolve && snap >= cfg.evolve_at ? 1 : 0;
		int64_t		time_millis = base_time + (int64_t) snap * 1000;
		int64_t		first = (int64_t) (snap - 1) * cfg.rows;
		ts_field   *dfields = xcalloc((size_t) cfg.ncols, sizeof(ts_field));
		const gcol **dcols = xcalloc((size_t) cfg.ncols, sizeof(gcol *));
		int			ndcols = 0;
		entry	   *entries = NULL;
		int			nentries = 0;
		char	   *data_uuid = new_uuid();
		int			data_counter = 0;
		const ts_type *ptypes[MAX_COLS];
		int			pidx[MAX_COLS];
		const ts_type *btypes[MAX_COLS];
		const gcol *bcols[MAX_COLS];
		int			nbk = 0;
		ts_arena	arena;

		ts_arena_init(&arena, 256 * 1024);
		gb_begin(&gb, next_row_id);
		/* data-file columns of this schema */
		for (int i = 0; i < cfg.ncols; i++)
		{
			const gcol *c = &cfg.cols[i];

			if (schema_id == 0 ? !c->in0 : !c->in1)
				continue;
			dfields[ndcols].id = c->id;
			dfields[ndcols].name = schema_id == 0 ? c->name0 : c->name1;
			dfields[ndcols].type = schema_id == 0 ? c->type0 : c->type1;
			dcols[ndcols++] = c;
		}
		for (int p = 0; p < cfg.nparts; p++)
		{
			for (int i = 0; i < cfg.ncols; i++)
				if (strcmp(cfg.cols[i].name0, cfg.parts[p]) == 0)
					pidx[p] = i;
			ptypes[p] = cfg.cols[pidx[p]].type0;
		}
		if (cfg.buckets > 0)
		{
			char	   *s = xstrdup(cfg.bucket_key),
					   *save = NULL;

			for (char *k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
			{
				bcols[nbk] = find_col(&cfg, k);
				btypes[nbk] = bcols[nbk]->type0;
				nbk++;
			}
			free(s);
		}

		for (int chunk = 0; chunk < cfg.files; chunk++)
		{
			int64_t		lo = first + cfg.rows * chunk / cfg.files;
			int64_t		hi = first + cfg.rows * (chunk + 1) / cfg.files;

			for (int g = 0; g < ngroups; g++)
				groups[g].nrows = 0;
			/* assign rows to (partition, bucket) groups */
			for (int64_t i = lo; i < hi; i++)
			{
				ts_value	pv[MAX_COLS];
				ts_buf		prow;
				int32_t		bucket = 0;
				int			g;

				for (int p = 0; p < cfg.nparts; p++)
					row_value(&cfg, &cfg.cols[pidx[p]], i, &pv[p], &arena);
				ts_buf_init(&prow);
				if (!ts_binary_row_encode(ptypes, pv, cfg.nparts, true, &prow, &err))
					die_err("partition BinaryRow", &err);
				if (cfg.buckets > 0)
				{
					ts_value	bv[MAX_COLS];

					for (int k = 0; k < nbk; k++)
						row_value(&cfg, bcols[k], i, &bv[k], &arena);
					if (!ts_bucket_compute(TS_BUCKET_FN_DEFAULT, btypes, bv, nbk, cfg.buckets, &bucket, &err))
						die_err("bucket", &err);
				}
				for (g = 0; g < ngroups; g++)
					if (groups[g].bucket == bucket && groups[g].partition.len == prow.len &&
						memcmp(groups[g].partition.data, prow.data, prow.len) == 0)
						break;
				if (g == ngroups)
				{
					group	   *ng;
					char		esc[1024];
					char	   *path = xstrdup("");

					groups = realloc(groups, sizeof(group) * (size_t) (ngroups + 1));
					if (groups == NULL)
						die("out of memory");
					ng = &groups[ngroups++];
					memset(ng, 0, sizeof(*ng));
					ng->partition = prow;
					ng->bucket = bucket;
					ng->part_values = xcalloc((size_t) (cfg.nparts ? cfg.nparts : 1), sizeof(ts_value));
					for (int p = 0; p < cfg.nparts; p++)
					{
						char	   *txt = partition_text(ptypes[p], &pv[p]);
						char	   *np;
						char		ek[512];

						if (txt[0] == '\0')
						{
							free(txt);
							txt = xstrdup("__DEFAULT_PARTITION__");
						}
						np = pathf("%s%s=%s/", path, escape_part(cfg.parts[p], ek, sizeof(ek)),
								   escape_part(txt, esc, sizeof(esc)));
						free(path);
						free(txt);
						path = np;
						/* keep a private copy of the value (strings from meta arena) */
						ng->part_values[p] = pv[p];
						if (ts_type_is_bytes(ptypes[p]->kind))
							ng->part_values[p].v.s.p = ts_arena_dup(&meta_arena, pv[p].v.s.p, pv[p].v.s.len + 1);
					}
					ng->part_path = path;
				}
				else
					ts_buf_free(&prow);
				if (groups[g].nrows == groups[g].cap)
				{
					groups[g].cap = groups[g].cap ? groups[g].cap * 2 : 64;
					groups[g].rows = realloc(groups[g].rows, sizeof(int64_t) * (size_t) groups[g].cap);
					if (groups[g].rows == NULL)
						die("out of memory");
				}
				groups[g].rows[groups[g].nrows++] = i;
			}
			/* one data file per non-empty group */
			for (int g = 0; g < ngroups; g++)
			{
				group	   *gr = &groups[g];
				ts_avro_writer *w;
				col_stats  *st;
				ts_value   *row;
				ts_buf		out;
				char	   *fname,
						   *dir,
						   *path;
				entry	   *e;
				ts_value   *file;
				ts_value   *fi;
				ts_value  **prows;

				if (gr->nrows == 0)
					continue;
				w = avro_writer_for(dfields, ndcols, cfg.codec, &err);
				if (w == NULL)
					die_err("Avro writer", &err);
				set_random_sync(w);
				if (cfg.row_group_rows > 0)
					ts_avro_writer_set_block_rows(w, cfg.row_group_rows);
				st = xcalloc((size_t) ndcols, sizeof(col_stats));
				for (int c = 0; c < ndcols; c++)
					stats_init(&st[c], dfields[c].type);
				row = xcalloc((size_t) ndcols, sizeof(ts_value));
				prows = xcalloc((size_t) gr->nrows, sizeof(ts_value *));
				for (int r = 0; r < gr->nrows; r++)
				{
					if (cfg.parquet || cfg.orc)
						row = prows[r] = xcalloc((size_t) (ndcols ? ndcols : 1), sizeof(ts_value));
					for (int c = 0; c < ndcols; c++)
					{
						file_row_value(&cfg, dcols[c], gr->rows[r], schema_id, &row[c], &arena);
						stats_add(&st[c], &row[c]);
						if (gb.ncols > 0)
							gb_add(&gb, dcols[c], &row[c], next_row_id + r, &gr->partition);
					}
					if (!cfg.parquet && !cfg.orc && !ts_avro_writer_add(w, row, &err))
						die_err("Avro row", &err);
				}
				ts_buf_init(&out);
				if (cfg.parquet)
					pqw_write_file(dfields, ndcols, prows, gr->nrows, cfg.row_group_rows, &out);
				else if (cfg.orc)
				{
					ts_orc_writer *ow = ts_orc_writer_create(dfields, ndcols, TS_ORC_CODEC_NONE, 0,
															 SIZE_MAX, cfg.row_group_rows,
															 file_to_buf, &out, &err);

					for (int r = 0; ow != NULL && r < gr->nrows; r++)
						if (!ts_orc_writer_add(ow, prows[r], &err))
							die_err("ORC row", &err);
					if (ow == NULL || !ts_orc_writer_finish(ow, &err))
						die_err("ORC file", &err);
					ts_orc_writer_free(ow);
				}
				else if (!ts_avro_writer_finish(w, &out, &err))
					die_err("Avro finish", &err);
				ts_avro_writer_free(w);
				fname = pathf("data-%s-%d.%s", data_uuid, data_counter++,
							  cfg.parquet ? "parquet" : cfg.orc ? "orc" : "avro");
				dir = pathf("%s/%sbucket-%d", cfg.dir, gr->part_path, (int) gr->bucket);
				mkdirs(dir);
				path = pathf("%s/%s", dir, fname);
				write_bytes(path, out.data, out.len);

				/* manifest entry */
				entries = realloc(entries, sizeof(entry) * (size_t) (nentries + 1));
				if (entries == NULL)
					die("out of memory");
				e = &entries[nentries++];
				memset(e, 0, sizeof(*e));
				e->row[0].v.i = 2;	/* _VERSION */
				e->row[1].v.i = 0;	/* ADD */
				e->row[2].v.s.p = ts_arena_dup(&meta_arena, gr->partition.data, gr->partition.len);
				e->row[2].v.s.len = (uint32_t) gr->partition.len;
				e->row[3].v.i = gr->bucket;
				e->row[4].v.i = cfg.buckets;	/* -1 for unaware */
				file = &e->row[5];
				file->v.nested.n = row_tracking ? 20 : 18;
				file->v.nested.items = fi = arena_values(&meta_arena, 20);
				{
					static const uint8_t empty_row[12] = {0};
					char	   *fn = ts_arena_dup(&meta_arena, fname, strlen(fname) + 1);

					fi[0].v.s.p = (const uint8_t *) fn;
					fi[0].v.s.len = (uint32_t) strlen(fn);
					fi[1].v.i = (int64_t) out.len;
					fi[2].v.i = gr->nrows;
					fi[3].v.s.p = empty_row;
					fi[3].v.s.len = 12;
					fi[4] = fi[3];
					stats_value(NULL, 0, &fi[5], &meta_arena);
					/* strings in st point into 'arena' which lives until the snapshot ends */
					stats_value(st, ndcols, &fi[6], &meta_arena);
					fi[7].v.i = gr->next_seq;
					fi[8].v.i = gr->next_seq + gr->nrows - 1;
					gr->next_seq += gr->nrows;
					fi[9].v.i = schema_id;
					fi[10].v.i = 0;
					fi[11].v.nested.n = 0;
					fi[11].v.nested.items = arena_values(&meta_arena, 1);
					fi[12].v.ts.millis = time_millis;
					fi[13].v.i = 0;
					fi[14].isnull = true;
					fi[15].v.i = 0;
					fi[16].isnull = true;
					fi[17].isnull = true;
					fi[18].v.i = next_row_id;	/* _FIRST_ROW_ID */
					next_row_id += gr->nrows;
					fi[19].isnull = true;	/* _WRITE_COLS: every column */
					if (want_index)
						gi_write(&cfg, dfields, dcols, ndcols, gr->rows, gr->nrows, schema_id, path,
								 fname, fi, &meta_arena, &arena);
				}
				total_records += gr->nrows;
				ts_buf_free(&out);
				free(path);
				free(dir);
				free(fname);
				free(row);
				free(st);
			}
		}

		/* --readd-at: this commit also DELETEs commit 1's files and ADDs them again */
		if (snap == cfg.readd_at)
		{
			entries = realloc(entries, sizeof(entry) * (size_t) (nentries + 2 * nreadd + 1));
			if (entries == NULL)
				die("out of memory");
			for (int k = 0; k < nreadd; k++)
			{
				entries[nentries] = readd[k];
				entries[nentries++].row[1].v.i = 1;	/* DELETE */
				entries[nentries++] = readd[k];
			}
		}
		/* the manifest of this commit */
		{
			ts_avro_writer *w = ts_avro_writer_create_for_fields(me_fields, nme, cfg.manifest_codec, &err);
			ts_buf		out;
			char	   *name = pathf("manifest-%s-%d", manifest_uuid, manifest_counter++);
			char	   *path = pathf("%s/manifest/%s", cfg.dir, name);
			col_stats  *pst = xcalloc((size_t) (cfg.nparts ? cfg.nparts : 1), sizeof(col_stats));
			int32_t		minb = INT32_MAX,
						maxb = INT32_MIN;

			if (w == NULL)
				die_err("manifest writer", &err);
			for (int p = 0; p < cfg.nparts; p++)
				stats_init(&pst[p], ptypes[p]);
			for (int k = 0; k < nentries; k++)
			{
				ts_value	pv[MAX_COLS];
				int			arity;
				const ts_value *praw = &entries[k].row[2];

				if (!ts_avro_writer_add(w, entries[k].row, &err))
					die_err("manifest entry", &err);
				if (entries[k].row[3].v.i < minb)
					minb = (int32_t) entries[k].row[3].v.i;
				if (entries[k].row[3].v.i > maxb)
					maxb = (int32_t) entries[k].row[3].v.i;
				if (cfg.nparts > 0)
				{
					if (!ts_binary_row_decode(praw->v.s.p, praw->v.s.len, ptypes, cfg.nparts, pv,
											  &arity, &meta_arena, &err))
						die_err("partition decode", &err);
					for (int p = 0; p < cfg.nparts; p++)
						stats_add(&pst[p], &pv[p]);
				}
			}
			ts_buf_init(&out);
			if (!ts_avro_writer_finish(w, &out, &err))
				die_err("manifest finish", &err);
			ts_avro_writer_free(w);
			write_bytes(path, out.data, out.len);

			manifests = realloc(manifests, sizeof(char *) * (size_t) (nmanifests + 1));
			manifest_sizes = realloc(manifest_sizes, sizeof(int64_t) * (size_t) (nmanifests + 1));
			manifest_added = realloc(manifest_added, sizeof(int64_t) * (size_t) (nmanifests + 1));
			manifest_deleted = realloc(manifest_deleted, sizeof(int64_t) * (size_t) (nmanifests + 1));
			manifest_schema = realloc(manifest_schema, sizeof(int) * (size_t) (nmanifests + 1));
			manifest_pstats = realloc(manifest_pstats, sizeof(ts_value) * (size_t) (nmanifests + 1));
			manifest_minb = realloc(manifest_minb, sizeof(int32_t) * (size_t) (nmanifests + 1));
			manifest_maxb = realloc(manifest_maxb, sizeof(int32_t) * (size_t) (nmanifests + 1));
			if (!manifests || !manifest_sizes || !manifest_added || !manifest_deleted || !manifest_schema ||
				!manifest_pstats || !manifest_minb || !manifest_maxb)
				die("out of memory");
			manifests[nmanifests] = name;
			manifest_sizes[nmanifests] = (int64_t) out.len;
			manifest_deleted[nmanifests] = snap == cfg.readd_at ? nreadd : 0;
			manifest_added[nmanifests] = nentries - manifest_deleted[nmanifests];
			manifest_schema[nmanifests] = schema_id;
			stats_value(pst, cfg.nparts, &manifest_pstats[nmanifests], &meta_arena);
			manifest_minb[nmanifests] = nentries ? minb : 0;
			manifest_maxb[nmanifests] = nentries ? maxb : 0;
			nmanifests++;
			ts_buf_free(&out);
			free(path);
			free(pst);
		}

		/* the btree global index of this commit's rows */
		gb_commit(&gb, &cfg, cfg.btree_block ? cfg.btree_block : 256);

		/* manifest lists: base = manifests of earlier snapshots, delta = this one */
		{
			char	   *names[2];
			int64_t		sizes[2];
			tool_manifest_meta *metas = xcalloc((size_t) nmanifests, sizeof(tool_manifest_meta));
			tool_snapshot sn = {0};

			for (int m = 0; m < nmanifests; m++)
				metas[m] = (tool_manifest_meta) {
					.name = manifests[m], .size = manifest_sizes[m], .added = manifest_added[m],
					.deleted = manifest_deleted[m],
					.partition_stats = manifest_pstats[m], .schema_id = manifest_schema[m],
					.min_bucket = manifest_minb[m], .max_bucket = manifest_maxb[m]
				};
			for (int which = 0; which < 2; which++)
			{
				int			from = which == 0 ? 0 : nmanifests - 1;
				int			to = which == 0 ? nmanifests - 1 : nmanifests;

				names[which] = pathf("manifest-list-%s-%d", list_uuid, list_counter++);
				sizes[which] = tool_write_manifest_list(cfg.dir, names[which], metas + from, to - from,
														cfg.manifest_codec);
			}
			free(metas);

			/* snapshot JSON + hints */
			sn = (tool_snapshot) {
				.id = snap, .schema_id = schema_id,
				.base_list = names[0], .base_list_size = sizes[0],
				.delta_list = names[1], .delta_list_size = sizes[1],
				.commit_user = "ts_gen", .commit_kind = snap == cfg.readd_at ? "OVERWRITE" : "APPEND",
				.time_millis = time_millis,
				.total_records = total_records, .index_manifest = gb.manifest
			};
			for (int k = 0; k < nentries; k++)
				sn.delta_records += entries[k].row[5].v.nested.items[2].v.i *
					(entries[k].row[1].v.i == 1 ? -1 : 1);
			tool_write_snapshot(cfg.dir, &sn);
			free(names[0]);
			free(names[1]);
		}
		if (snap == 1 && cfg.readd_at > 1)
		{
			readd = entries;	/* kept for commit --readd-at (values in meta_arena) */
			nreadd = nentries;
		}
		else
			free(entries);
		free(dfields);
		free(dcols);
		free(data_uuid);
		ts_arena_free(&arena);
	}
	printf("ts_gen: wrote %s: %d snapshot(s), %lld rows, %d manifest(s)%s\n", cfg.dir, cfg.snapshots,
		   (long long) total_records, nmanifests, cfg.evolve ? ", 2 schemas" : "");
	return 0;
}
