/*
 * ts_gen.c - write deterministic Paimon tables for tests (fixture generator):
 * APPEND tables here, PRIMARY-KEY tables in ts_gen_pk.h / ts_gen_pk_write.h
 * (selected by --primary-key; included below, the Makefile builds one binary
 * per src/tools/NAME.c), the file indexes of APPEND tables in ts_gen_index.h,
 * their btree global index in ts_gen_btree.h.
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
 *                          see ts_gen_parquet.h / format/orc/orc_writer.h
 *   --row-group-rows N     Parquet row groups / ORC stripes / Avro blocks of N rows (the
 *                          last one the rest; Parquet: flat columns only; default 0: one
 *                          per file, Avro blocks of 64 KiB)
 *   --stripe-rows N        the same as --row-group-rows (the name ORC gives them)
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

static ts_type *
parse_type(const char *s)
{
	ts_err		err;
	ts_type    *t = ts_type_parse(s, &err);

	if (t == NULL)
		die_err(s, &err);
	return t;
}

static void
add_column(config *cfg, const char *spec, bool added)
{
	const char *colon = strchr(spec, ':');
	gcol	   *c;

	if (colon == NULL || colon == spec)
		die("column \"%s\": expected NAME:TYPE", spec);
	if (cfg->ncols == MAX_COLS)
		die("too many columns");
	c = &cfg->cols[cfg->ncols];
	memset(c, 0, sizeof(*c));
	c->name0 = strndup(spec, (size_t) (colon - spec));
	c->name1 = c->name0;
	c->type0 = parse_type(colon + 1);
	c->type1 = c->type0;
	c->pos = cfg->ncols;
	c->in0 = !added;
	c->in1 = true;
	for (int i = 0; i < cfg->ncols; i++)
		if (strcmp(cfg->cols[i].name0, c->name0) == 0)
			die("duplicate column \"%s\"", c->name0);
	cfg->ncols++;
}

static gcol *
find_col(config *cfg, const char *name)
{
	for (int i = 0; i < cfg->ncols; i++)
		if (cfg->cols[i].in0 && strcmp(cfg->cols[i].name0, name) == 0)
			return &cfg->cols[i];
	die("unknown column \"%s\"", name);
	return NULL;
}

static ts_avro_codec
parse_codec(const char *s)
{
	if (strcmp(s, "zstd") == 0 || strcmp(s, "zstandard") == 0)
		return TS_AVRO_CODEC_ZSTANDARD;
	if (strcmp(s, "null") == 0 || strcmp(s, "none") == 0)
		return TS_AVRO_CODEC_NULL;
	if (strcmp(s, "deflate") == 0)
		return TS_AVRO_CODEC_DEFLATE;
	if (strcmp(s, "snappy") == 0)
		return TS_AVRO_CODEC_SNAPPY;
	die("unknown codec \"%s\"", s);
	return TS_AVRO_CODEC_NULL;
}

static int64_t
parse_int(const char *opt, const char *s, int64_t min, int64_t max)
{
	char	   *end;
	long long	v = strtoll(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max)
		die("--%s: \"%s\" is not an integer in [%lld, %lld]", opt, s, (long long) min, (long long) max);
	return v;
}

static void apply_args(config *cfg, int argc, char **argv);

static void
apply_preset(config *cfg, const char *name)
{
	if (strcmp(name, "all-types") == 0)
	{
		static const char *cols[] = {
			"b:BOOLEAN", "ti:TINYINT", "si:SMALLINT", "i:INT", "bi:BIGINT", "f:FLOAT", "d:DOUBLE",
			"dec_s:DECIMAL(10, 2)", "dec_l:DECIMAL(38, 6)", "c:CHAR(8)", "vc:VARCHAR(20)", "s:STRING",
			"bin:BINARY(4)", "vb:VARBINARY(10)", "by:BYTES", "dt:DATE", "tm:TIME(3)", "ts:TIMESTAMP(6)",
			"ts3:TIMESTAMP(3)", "ltz:TIMESTAMP(6) WITH LOCAL TIME ZONE", "arr:ARRAY<INT>",
			"ms:MULTISET<STRING>", "m:MAP<STRING, INT>", "mi:MAP<INT, STRING>", "r:ROW<x INT, y STRING>",
			"p:INT"
		};

		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			add_column(cfg, cols[i], false);
		cfg->parts[cfg->nparts++] = xstrdup("p");
	}
	else if (strcmp(name, "evolve") == 0)
	{
		add_column(cfg, "id:INT NOT NULL", false);
		add_column(cfg, "name:STRING", false);
		add_column(cfg, "amount:INT", false);
		add_column(cfg, "old_col:STRING", false);
		cfg->renames[cfg->nrenames++] = xstrdup("name:full_name");
		cfg->drops[cfg->ndrops++] = xstrdup("old_col");
		cfg->adds[cfg->nadds++] = xstrdup("extra:DOUBLE");
		cfg->widens[cfg->nwidens++] = xstrdup("amount");
		cfg->evolve = true;
		if (cfg->snapshots < 2)
			cfg->snapshots = 2;
	}
	else
		die("unknown preset \"%s\"", name);
}

static void
read_spec(config *cfg, const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];
	char	   *args[MAX_ARGS];
	int			n = 0;

	if (f == NULL)
		die("cannot open spec %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
	{
		char	   *s = line,
				   *e,
				   *sp;

		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (*s == '\0' || *s == '#')
			continue;
		if (n + 2 >= MAX_ARGS)
			die("spec too long");
		sp = strpbrk(s, " \t");
		if (sp)
		{
			*sp++ = '\0';
			while (*sp == ' ' || *sp == '\t')
				sp++;
		}
		args[n++] = pathf("--%s", s);
		if (sp && *sp)
		{
			/* "column id INT" => "id:INT" */
			if (strcmp(s, "column") == 0 || strcmp(s, "add") == 0)
			{
				char	   *sp2 = strpbrk(sp, " \t");

				if (sp2 && !strchr(sp, ':'))
				{
					*sp2++ = '\0';
					args[n++] = pathf("%s:%s", sp, sp2);
					continue;
				}
			}
			args[n++] = xstrdup(sp);
		}
	}
	fclose(f);
	apply_args(cfg, n, args);
}

static void
apply_args(config *cfg, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
	{
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define NEEDV() do { if (v == NULL) die("%s needs a value", a); i++; } while (0)
		if (strcmp(a, "--force") == 0)
			cfg->force = true;
		else if (strcmp(a, "--deletion-vectors") == 0)
			cfg->dv = true;
		else if (strcmp(a, "--no-ops") == 0)
			cfg->no_ops = true;
		else if (strcmp(a, "--evolve") == 0)
			cfg->evolve = true;
		else if (strncmp(a, "--", 2) != 0)
			die("unexpected argument \"%s\"", a);
		else
		{
			const char *o = a + 2;

			NEEDV();
			if (strcmp(o, "column") == 0)
				add_column(cfg, v, false);
			else if (strcmp(o, "partition") == 0)
				cfg->parts[cfg->nparts++] = xstrdup(v);
			else if (strcmp(o, "partitions") == 0)
				cfg->partitions = (int) parse_int(o, v, 1, 1000000);
			else if (strcmp(o, "buckets") == 0)
				cfg->buckets = (int) parse_int(o, v, -1, 100000);
			else if (strcmp(o, "bucket-key") == 0)
				cfg->bucket_key = xstrdup(v);
			else if (strcmp(o, "rows") == 0)
				cfg->rows = parse_int(o, v, 0, 100000000);
			else if (strcmp(o, "btree-index") == 0)
				cfg->btree_cols[cfg->nbtree++] = xstrdup(v);
			else if (strcmp(o, "btree-block-size") == 0)
				cfg->btree_block = (int) parse_int(o, v, 16, 1 << 24);
			else if (strcmp(o, "snapshots") == 0)
				cfg->snapshots = (int) parse_int(o, v, 1, 100000);
			else if (strcmp(o, "files") == 0)
				cfg->files = (int) parse_int(o, v, 1, 100000);
			else if (strcmp(o, "row-group-rows") == 0)
				cfg->row_group_rows = (int) parse_int(o, v, 0, 100000000);
			else if (strcmp(o, "null-every") == 0)
				cfg->null_every = (int) parse_int(o, v, 0, 1000000000);
			else if (strcmp(o, "codec") == 0)
				cfg->codec = parse_codec(v);
			else if (strcmp(o, "manifest-codec") == 0)
				cfg->manifest_codec = parse_codec(v);
			else if (strcmp(o, "seed") == 0)
				cfg->seed = (uint64_t) parse_int(o, v, 0, INT64_MAX);
			else if (strcmp(o, "spec") == 0)
				read_spec(cfg, v);
			else if (strcmp(o, "preset") == 0)
				apply_preset(cfg, v);
			else if (strcmp(o, "rename") == 0)
				cfg->renames[cfg->nrenames++] = xstrdup(v), cfg->evolve = true;
			else if (strcmp(o, "drop") == 0)
				cfg->drops[cfg->ndrops++] = xstrdup(v), cfg->evolve = true;
			else if (strcmp(o, "add") == 0)
				cfg->adds[cfg->nadds++] = xstrdup(v), cfg->evolve = true;
			else if (strcmp(o, "widen") == 0)
				cfg->widens[cfg->nwidens++] = xstrdup(v), cfg->evolve = true;
			else if (strcmp(o, "format") == 0)
			{
				if (strcmp(v, "parquet") == 0)
					cfg->parquet = true;
				else if (strcmp(v, "orc") == 0)
					cfg->orc = true;
				else if (strcmp(v, "avro") != 0)
					die("--format: avro, parquet or orc");
			}
			else if (strcmp(o, "stripe-rows") == 0)
				cfg->row_group_rows = (int) parse_int(o, v, 1, 100000000);
			else if (strcmp(o, "retype") == 0)
				cfg->retypes[cfg->nretypes++] = xstrdup(v), cfg->evolve = true;
			else if (strcmp(o, "evolve-at") == 0)
				cfg->evolve_at = (int) parse_int(o, v, 1, 100000);
			else if (strcmp(o, "primary-key") == 0)
			{
				char	   *s = xstrdup(v),
						   *save = NULL;

				for (char *k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
					if (cfg->npk < MAX_COLS - 1)
						cfg->pk[cfg->npk++] = xstrdup(k);
				free(s);
			}
			else if (strcmp(o, "merge-engine") == 0)
				cfg->merge_engine = xstrdup(v);
			else if (strcmp(o, "sequence-field") == 0)
				cfg->seq_field = xstrdup(v);
			else if (strcmp(o, "agg") == 0)
				cfg->aggs[cfg->naggs++] = xstrdup(v);
			else if (strcmp(o, "option") == 0)
				cfg->extra_opts[cfg->nextra_opts++] = xstrdup(v);
			else if (strcmp(o, "levels") == 0)
				cfg->levels = (int) parse_int(o, v, 0, 5);
			else if (strcmp(o, "compact-every") == 0)
				cfg->compact_every = (int) parse_int(o, v, 0, 100000);
			else if (strcmp(o, "compact-file-rows") == 0)
				cfg->compact_file_rows = (int) parse_int(o, v, 0, 100000000);
			else if (strcmp(o, "keys") == 0)
				cfg->keys = parse_int(o, v, 1, 100000000);
			else if (strcmp(o, "delete-every") == 0)
				cfg->delete_every = (int) parse_int(o, v, 0, 1000000000);
			else if (strcmp(o, "retract-every") == 0)
				cfg->retract_every = (int) parse_int(o, v, 0, 1000000000);
			else
				die("unknown option %s", a);
		}
#undef NEEDV
		if (cfg->nparts >= MAX_COLS || cfg->nrenames >= MAX_COLS || cfg->ndrops >= MAX_COLS ||
			cfg->nadds >= MAX_COLS || cfg->nwidens >= MAX_COLS || cfg->naggs >= MAX_COLS ||
			cfg->nretypes >= MAX_COLS ||
			cfg->nextra_opts >= MAX_COLS)
			die("too many options");
	}
}

/* Assign field ids depth-first (pre-order), like Paimon does for nested ROWs. */
static int32_t next_id;
static int32_t highest_id0;		/* highestFieldId of schema 0 */

static void
assign_nested_ids(ts_type *t)
{
	if (t == NULL)
		return;
	if (t->kind == TS_ROW)
		for (int i = 0; i < t->nfields; i++)
		{
			t->fields[i].id = next_id++;
			assign_nested_ids(t->fields[i].type);
		}
	assign_nested_ids(t->element);
	assign_nested_ids(t->key);
	assign_nested_ids(t->value);
}

/*
 * Field ids of a retyped column's new type t1: a ROW field named as one of
 * the old type t0 at the same place keeps its id (Paimon changes the types of
 * nested fields in place), any other gets a new one.
 */
static void
retype_nested_ids(const ts_type *t0, ts_type *t1)
{
	if (t1 == NULL)
		return;
	if (t0 != NULL && t0->kind != t1->kind)
		t0 = NULL;
	if (t1->kind == TS_ROW)
		for (int i = 0; i < t1->nfields; i++)
		{
			const ts_field *f0 = NULL;

			for (int k = 0; t0 != NULL && k < t0->nfields; k++)
				if (strcmp(t0->fields[k].name, t1->fields[i].name) == 0)
					f0 = &t0->fields[k];
			if (f0 != NULL)
			{
				t1->fields[i].id = f0->id;
				retype_nested_ids(f0->type, t1->fields[i].type);
			}
			else
			{
				t1->fields[i].id = next_id++;
				assign_nested_ids(t1->fields[i].type);
			}
		}
	retype_nested_ids(t0 ? t0->element : NULL, t1->element);
	retype_nested_ids(t0 ? t0->key : NULL, t1->key);
	retype_nested_ids(t0 ? t0->value : NULL, t1->value);
}

static void
check_avro_type(const char *col, const ts_type *t)
{
	switch (t->kind)
	{
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (t->precision > 6)
				die("column %s: Avro data files hold TIMESTAMP precision <= 6", col);
			break;
		case TS_TIME:
			if (t->precision > 3)
				die("column %s: Avro data files hold TIME precision <= 3", col);
			break;
		case TS_VECTOR:
			if (t->element == NULL || (t->element->kind != TS_FLOAT && t->element->kind != TS_DOUBLE &&
									   t->element->kind != TS_INT && t->element->kind != TS_BIGINT &&
									   t->element->kind != TS_TINYINT &&
									   t->element->kind != TS_SMALLINT &&
									   t->element->kind != TS_BOOLEAN))
				die("column %s: VECTOR elements are numbers or BOOLEAN", col);
			break;
		case TS_VARIANT:
		case TS_BLOB:
		case TS_GEOMETRY:
		case TS_GEOGRAPHY:
			die("column %s: type not supported by ts_gen", col);
		default:
			break;
	}
	if (t->element)
		check_avro_type(col, t->element);
	if (t->key)
		check_avro_type(col, t->key);
	if (t->value)
		check_avro_type(col, t->value);
	for (int i = 0; i < t->nfields; i++)
		check_avro_type(col, t->fields[i].type);
}

static void
finish_config(config *cfg)
{
	int			n0 = cfg->ncols;

	if (cfg->ncols == 0)
		die("no columns (use --column NAME:TYPE or --preset)");
	/* ids: top-level columns get ids in order, nested ROW fields after their parent */
	next_id = 0;
	for (int i = 0; i < n0; i++)
	{
		cfg->cols[i].id = next_id++;
		assign_nested_ids(cfg->cols[i].type0);
	}
	highest_id0 = next_id - 1;
	for (int i = 0; i < cfg->nparts; i++)
		find_col(cfg, cfg->parts[i])->is_part = true;
	pk_finish_config(cfg);
	if (cfg->buckets > 0)
	{
		char	   *k,
				   *save = NULL,
				   *s;

		if (cfg->bucket_key == NULL)
			die("--buckets %d needs --bucket-key", cfg->buckets);
		s = xstrdup(cfg->bucket_key);
		for (k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save))
		{
			gcol	   *c = find_col(cfg, k);

			if (c->is_part)
				die("bucket key %s is a partition key", k);
			if (cfg->npk > 0 && !c->is_pk)
				die("bucket key %s is not a primary-key column", k);
			if (ts_type_is_nested(c->type0->kind))
				die("bucket key %s has a nested type", k);
			c->is_bkey = true;
		}
		free(s);
	}
	else if (cfg->buckets == 0)
		die("--buckets must be -1 or > 0");
	/* schema evolution */
	for (int i = 0; i < cfg->nrenames; i++)
	{
		char	   *colon = strchr(cfg->renames[i], ':');
		gcol	   *c;

		if (colon == NULL)
			die("--rename expects OLD:NEW");
		*colon = '\0';
		c = find_col(cfg, cfg->renames[i]);
		if (c->is_part || c->is_bkey)
			die("cannot rename partition/bucket key %s", c->name0);
		c->name1 = xstrdup(colon + 1);
	}
	for (int i = 0; i < cfg->ndrops; i++)
	{
		gcol	   *c = find_col(cfg, cfg->drops[i]);

		if (c->is_part || c->is_bkey)
			die("cannot drop partition/bucket key %s", c->name0);
		c->in1 = false;
	}
	for (int i = 0; i < cfg->nwidens; i++)
	{
		gcol	   *c = find_col(cfg, cfg->widens[i]);

		if (c->type0->kind != TS_INT)
			die("--widen %s: only INT -> BIGINT is supported", c->name0);
		if (c->is_part || c->is_bkey)
			die("cannot widen partition/bucket key %s", c->name0);
		c->type1 = ts_type_copy(c->type0);
		c->type1->kind = TS_BIGINT;
	}
	if ((cfg->parquet || cfg->orc) && cfg->npk > 0)
		die("--format parquet / orc: append tables only");
	for (int i = 0; i < cfg->nretypes; i++)
	{
		char	   *colon = strchr(cfg->retypes[i], ':');
		gcol	   *c;

		if (colon == NULL)
			die("--retype expects NAME:TYPE");
		*colon = '\0';
		c = find_col(cfg, cfg->retypes[i]);
		if (c->is_part || c->is_bkey)
			die("cannot retype partition/bucket key %s", c->name0);
		c->type1 = parse_type(colon + 1);
		c->type1->nullable = c->type0->nullable;
		c->retyped = true;
		retype_nested_ids(c->type0, c->type1);
		check_avro_type(c->name0, c->type1);
	}
	for (int i = 0; i < cfg->nadds; i++)
	{
		add_column(cfg, cfg->adds[i], true);
		cfg->cols[cfg->ncols - 1].id = next_id++;
		assign_nested_ids(cfg->cols[cfg->ncols - 1].type0);
	}
	for (int i = 0; i < cfg->ncols; i++)
		for (int k = 0; k < cfg->ncols; k++)
			if (i != k && cfg->evolve && cfg->cols[i].in1 && cfg->cols[k].in1 &&
				strcmp(cfg->cols[i].name1, cfg->cols[k].name1) == 0)
				die("schema 1 would have two columns named %s", cfg->cols[i].name1);
	for (int i = 0; i < cfg->ncols; i++)
		check_avro_type(cfg->cols[i].name0, cfg->cols[i].type0);
	if (cfg->evolve)
	{
		if (cfg->evolve_at == 0)
			cfg->evolve_at = cfg->snapshots / 2 + 1;
		if (cfg->evolve_at < 2 || cfg->evolve_at > cfg->snapshots)
			die("--evolve-at must be in [2, snapshots] (snapshots = %d)", cfg->snapshots);
	}
}

/* ---- value formulas --------------------------------------------------- */

static char *
arena_printf(ts_arena *a, const char *fmt,...)
{
	va_list		ap;
	char	   *r;

	va_start(ap, fmt);
	r = ts_arena_vprintf(a, fmt, ap);
	va_end(ap);
	if (r == NULL)
		die("out of memory");
	return r;
}

static int64_t
pow10_i64(int p)
{
	int64_t		r = 1;

	while (p-- > 0)
		r *= 10;
	return r;
}

static void gen_value(const ts_type *t, const char *name, int64_t n, ts_value *out, ts_arena *a);

static ts_value *
arena_values(ts_arena *a, int n)
{
	ts_value   *v = ts_arena_alloc(a, sizeof(ts_value) * (size_t) (n ? n : 1));

	if (v == NULL)
		die("out of memory");
	memset(v, 0, sizeof(ts_value) * (size_t) (n ? n : 1));
	return v;
}

static void
gen_value(const ts_type *t, const char *name, int64_t n, ts_value *out, ts_arena *a)
{
	memset(out, 0, sizeof(*out));
	switch (t->kind)
	{
		case TS_BOOLEAN:
			out->v.i = n % 2 == 1;
			break;
		case TS_TINYINT:
			out->v.i = n % 128;
			break;
		case TS_SMALLINT:
			out->v.i = n % 32768;
			break;
		case TS_INT:
			out->v.i = (int32_t) n;
			break;
		case TS_BIGINT:
			out->v.i = n * 1000000007LL;
			break;
		case TS_FLOAT:
			out->v.f = (float) n * 0.5f;
			break;
		case TS_DOUBLE:
			out->v.d = (double) n * 1.25;
			break;
		case TS_DECIMAL:
			{
				ts_int128	m = 1;

				for (int i = 0; i < t->precision; i++)
					m *= 10;
				out->v.dec = ((ts_int128) n * ((ts_int128) 1000000000000000000LL + 1)) % m;
			}
			break;
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			{
				char	   *s = arena_printf(a, "%s_%lld", name, (long long) n);
				size_t		len = strlen(s);

				if (t->length > 0 && len > (size_t) t->length)
					len = (size_t) t->length;
				if (t->kind == TS_BINARY && len < (size_t) t->length)
				{
					char	   *p = ts_arena_alloc(a, (size_t) t->length);

					if (p == NULL)
						die("out of memory");
					memset(p, 0, (size_t) t->length);
					memcpy(p, s, len);
					s = p;
					len = (size_t) t->length;
				}
				out->v.s.p = (const uint8_t *) s;
				out->v.s.len = (uint32_t) len;
			}
			break;
		case TS_DATE:
			out->v.i = 18262 + n;
			break;
		case TS_TIME:
			{
				int64_t		ms = (n * 1001) % 86400000;
				int64_t		unit = pow10_i64(3 - (t->precision < 3 ? t->precision : 3));

				out->v.i = ms - ms % unit;
			}
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				int64_t		us = 1577836800000000LL + n * 1001001LL;
				int64_t		unit = pow10_i64(6 - (t->precision < 6 ? t->precision : 6));

				us -= us % unit;
				out->v.ts.millis = us / 1000;
				out->v.ts.nanos = (int32_t) (us % 1000) * 1000;
			}
			break;
		case TS_VECTOR:
			/* exactly length elements, element k = f(E, name, n + k) */
			out->v.nested.n = t->length;
			out->v.nested.items = arena_values(a, t->length);
			for (int j = 0; j < t->length; j++)
				gen_value(t->element, name, n + j, &out->v.nested.items[j], a);
			break;
		case TS_ARRAY:
		case TS_MULTISET:
			{
				int			k = (int) (n % 4);

				out->v.nested.n = k;
				out->v.nested.items = arena_values(a, k);
				for (int j = 0; j < k; j++)
					gen_value(t->element, name, n + j, &out->v.nested.items[j], a);
			}
			break;
		case TS_MAP:
			{
				int			k = (int) (n % 3);

				out->v.nested.n = k;
				out->v.nested.items = arena_values(a, 2 * k);
				for (int j = 0; j < k; j++)
				{
					gen_value(t->key, name, n + j, &out->v.nested.items[2 * j], a);
					gen_value(t->value, name, n + j, &out->v.nested.items[2 * j + 1], a);
				}
			}
			break;
		case TS_ROW:
			out->v.nested.n = t->nfields;
			out->v.nested.items = arena_values(a, t->nfields);
			for (int j = 0; j < t->nfields; j++)
				gen_value(t->fields[j].type, t->fields[j].name, n, &out->v.nested.items[j], a);
			break;
		default:
			die("type kind %d not generated", (int) t->kind);
	}
}

/*
 * The value of column c in row i (NULL rule included), in its schema-0 type,
 * or for a retyped column in a file of schema 1, in its schema-1 type.
 */
static void
file_row_value(const config *cfg, const gcol *c, int64_t i, int schema_id, ts_value *out,
			   ts_arena *a)
{
	if (c->type0->nullable && !c->is_part && !c->is_bkey && !c->is_pk && !c->is_seq &&
		cfg->null_every > 0 &&
		i % cfg->null_every == c->pos % cfg->null_every)
	{
		memset(out, 0, sizeof(*out));
		out->isnull = true;
		return;
	}
	gen_value(schema_id == 1 && c->retyped ? c->type1 : c->type0, c->name0,
			  c->is_part ? i % cfg->partitions : i, out, a);
}

static void
row_value(const config *cfg, const gcol *c, int64_t i, ts_value *out, ts_arena *a)
{
	file_row_value(cfg, c, i, 0, out, a);
}

/* ---- schema JSON ------------------------------------------------------ */

static cJSON *type_to_json(const ts_type *t);

static cJSON *
field_to_json(int32_t id, const char *name, const ts_type *t)
{
	cJSON	   *f = cJSON_CreateObject();

	cJSON_AddNumberToObject(f, "id", id);
	cJSON_AddStringToObject(f, "name", name);
	cJSON_AddItemToObject(f, "type", type_to_json(t));
	return f;
}

static cJSON *
type_to_json(const ts_type *t)
{
	cJSON	   *o;
	char	   *s;
	const char *nn = t->nullable ? "" : " NOT NULL";

	switch (t->kind)
	{
		case TS_ARRAY:
		case TS_MULTISET:
			o = cJSON_CreateObject();
			s = pathf("%s%s", t->kind == TS_ARRAY ? "ARRAY" : "MULTISET", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "element", type_to_json(t->element));
			return o;
		case TS_VECTOR:
			o = cJSON_CreateObject();
			s = pathf("VECTOR%s", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "element", type_to_json(t->element));
			cJSON_AddNumberToObject(o, "length", t->length);
			return o;
		case TS_MAP:
			o = cJSON_CreateObject();
			s = pathf("MAP%s", nn);
			cJSON_AddStringToObject(o, "type", s);
			free(s);
			cJSON_AddItemToObject(o, "key", type_to_json(t->key));
			cJSON_AddItemToObject(o, "value", type_to_json(t->value));
			return o;
		case TS_ROW:
			{
				cJSON	   *fs;

				o = cJSON_CreateObject();
				s = pathf("ROW%s", nn);
				cJSON_AddStringToObject(o, "type", s);
				free(s);
				fs = cJSON_AddArrayToObject(o, "fields");
				for (int i = 0; i < t->nfields; i++)
					cJSON_AddItemToArray(fs, field_to_json(t->fields[i].id, t->fields[i].name,
														   t->fields[i].type));
				return o;
			}
		default:
			s = ts_type_to_string(t);
			if (s == NULL)
				die("out of memory");
			o = cJSON_CreateString(s);
			ts_free(s);
			return o;
	}
}

static void
write_json(const char *path, cJSON *j)
{
	char	   *s = cJSON_Print(j);

	if (s == NULL)
		die("out of memory");
	write_bytes(path, s, strlen(s));
	cJSON_free(s);
}

static void
write_schema(const config *cfg, int id, int64_t time_millis)
{
	cJSON	   *j = cJSON_CreateObject();
	cJSON	   *fs,
			   *pk,
			   *opts;
	int32_t		highest = 0;
	char	   *path;

	cJSON_AddNumberToObject(j, "version", 3);
	cJSON_AddNumberToObject(j, "id", id);
	fs = cJSON_AddArrayToObject(j, "fields");
	for (int i = 0; i < cfg->ncols; i++)
	{
		const gcol *c = &cfg->cols[i];

		if (id == 0 ? !c->in0 : !c->in1)
			continue;
		cJSON_AddItemToArray(fs, field_to_json(c->id, id == 0 ? c->name0 : c->name1,
											   id == 0 ? c->type0 : c->type1));
	}
	/* highest id assigned so far (schema 0 ignores columns added later) */
	highest = id == 0 ? highest_id0 : next_id - 1;
	cJSON_AddNumberToObject(j, "highestFieldId", highest);
	pk = cJSON_AddArrayToObject(j, "partitionKeys");
	for (int i = 0; i < cfg->nparts; i++)
		cJSON_AddItemToArray(pk, cJSON_CreateString(cfg->parts[i]));
	pk = cJSON_AddArrayToObject(j, "primaryKeys");
	for (int i = 0; i < cfg->npk; i++)
		cJSON_AddItemToArray(pk, cJSON_CreateString(cfg->pk[i]));
	opts = cJSON_AddObjectToObject(j, "options");
	{
		char	   *b = pathf("%d", cfg->buckets);

		cJSON_AddStringToObject(opts, "bucket", b);
		free(b);
	}
	if (cfg->buckets > 0 && !cfg->bucket_key_implicit)
		cJSON_AddStringToObject(opts, "bucket-key", cfg->bucket_key);
	cJSON_AddStringToObject(opts, "file.format", cfg->parquet ? "parquet" : cfg->orc ? "orc" : "avro");
	cJSON_AddStringToObject(opts, "manifest.format", "avro");
	pk_schema_options(cfg, opts);
	/* append tables take only --option row-tracking.enabled=true */
	if (cfg->npk == 0 && pk_extra_true(cfg, "row-tracking.enabled"))
		cJSON_AddStringToObject(opts, "row-tracking.enabled", "true");
	/* ... and the file-index.* options (ts_gen_index.h) */
	for (int i = 0; i < cfg->nextra_opts && cfg->npk == 0; i++)
		if (strncmp(cfg->extra_opts[i], "file-index.", 11) == 0)
		{
			char	   *eq = strchr(cfg->extra_opts[i], '=');
			char	   *key = strndup(cfg->extra_opts[i], (size_t) (eq - cfg->extra_opts[i]));

			cJSON_DeleteItemFromObject(opts, key);
			cJSON_AddStringToObject(opts, key, eq + 1);
			free(key);
		}
	cJSON_AddNumberToObject(j, "timeMillis", (double) time_millis);
	path = pathf("%s/schema/schema-%d", cfg->dir, id);
	write_json(path, j);
	free(path);
	cJSON_Delete(j);
}

#include "tools/ts_manifest_records.h"
#include "tools/ts_tool_commit.h"
#include "tools/ts_gen_parquet.h"
#include "format/orc/orc_writer.h"

/* the ORC writer's sink: the file in memory */
static bool
orc_to_buf(void *arg, const void *data, size_t len, ts_err *err)
{
	return ts_buf_append(arg, data, len, err);
}
#include "tools/ts_gen_index.h"

/* ---- statistics --------------------------------------------------------- */

typedef struct col_stats
{
	const ts_type *type;
	bool		has;			/* min/max seen */
	bool		usable;			/* min/max kept for this type/values */
	ts_value	min;
	ts_value	max;
	int64_t		nulls;
} col_stats;

static bool
stats_type_ok(ts_type_kind k)
{
	return !(ts_type_is_nested(k) || k == TS_BINARY || k == TS_VARBINARY || k >= TS_VARIANT);
}

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

static int
cmp_values(const ts_value *a, const ts_value *b, const ts_type *t)
{
	switch (t->kind)
	{
		case TS_FLOAT:
			return a->v.f < b->v.f ? -1 : a->v.f > b->v.f;
		case TS_DOUBLE:
			return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
		case TS_DECIMAL:
			return a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec;
		case TS_CHAR:
		case TS_VARCHAR:
			{
				uint32_t	n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
				int			c = memcmp(a->v.s.p, b->v.s.p, n);

				if (c)
					return c < 0 ? -1 : 1;
				return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
			}
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			if (a->v.ts.millis != b->v.ts.millis)
				return a->v.ts.millis < b->v.ts.millis ? -1 : 1;
			return a->v.ts.nanos < b->v.ts.nanos ? -1 : a->v.ts.nanos > b->v.ts.nanos;
		default:
			return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
	}
}

static void
stats_init(col_stats *s, const ts_type *t)
{
	memset(s, 0, sizeof(*s));
	s->type = t;
	s->usable = stats_type_ok(t->kind);
}

/* values are copied shallowly: strings must outlive the stats (same arena) */
static void
stats_add(col_stats *s, const ts_value *v)
{
	if (v->isnull)
	{
		s->nulls++;
		return;
	}
	if (!s->usable)
		return;
	if ((s->type->kind == TS_CHAR || s->type->kind == TS_VARCHAR) && v->v.s.len > 16)
	{
		s->usable = false;
		return;
	}
	if (!s->has || cmp_values(v, &s->min, s->type) < 0)
		s->min = *v;
	if (!s->has || cmp_values(v, &s->max, s->type) > 0)
		s->max = *v;
	s->has = true;
}

/* SimpleStats row value: {_MIN_VALUES, _MAX_VALUES, _NULL_COUNTS} */
static void
stats_value(col_stats *st, int n, ts_value *out, ts_arena *a)
{
	const ts_type **types = ts_arena_alloc(a, sizeof(ts_type *) * (size_t) (n ? n : 1));
	ts_value   *mins = arena_values(a, n);
	ts_value   *maxs = arena_values(a, n);
	ts_value   *items = arena_values(a, 3);
	ts_value   *counts = arena_values(a, n);
	ts_err		err;

	if (types == NULL)
		die("out of memory");
	for (int i = 0; i < n; i++)
	{
		ts_type    *nt = ts_arena_alloc(a, sizeof(ts_type));

		if (nt == NULL)
			die("out of memory");
		*nt = *st[i].type;
		nt->nullable = true;
		types[i] = nt;
		mins[i].isnull = maxs[i].isnull = !(st[i].usable && st[i].has);
		if (!mins[i].isnull)
		{
			mins[i] = st[i].min;
			maxs[i] = st[i].max;
		}
		counts[i].isnull = false;
		counts[i].v.i = st[i].nulls;
	}
	for (int k = 0; k < 2; k++)
	{
		ts_buf		b;

		ts_buf_init(&b);
		if (!ts_binary_row_encode(types, k == 0 ? mins : maxs, n, true, &b, &err))
			die_err("BinaryRow", &err);
		items[k].v.s.p = ts_arena_dup(a, b.data, b.len);
		items[k].v.s.len = (uint32_t) b.len;
		ts_buf_free(&b);
	}
	items[2].v.nested.n = n;
	items[2].v.nested.items = counts;
	out->isnull = false;
	out->v.nested.n = 3;
	out->v.nested.items = items;
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
	int			list_counter = 0;
	int			manifest_counter = 0;
	gb_state	gb;

	if (argc < 2 || argv[1][0] == '-')
	{
		fprintf(stderr, "usage: ts_gen <table_dir> [--column NAME:TYPE ...] [--partition K] "
				"[--buckets N --bucket-key K] [--rows R] [--snapshots S] [--files F] "
				"[--null-every K] [--codec C] [--preset all-types|evolve] [--spec FILE] ...\n"
				"       primary-key tables: --primary-key K [--merge-engine E] [--agg F:FN] "
				"[--sequence-field F] [--deletion-vectors] [--no-ops] [--levels N] [--compact-every C] "
				"[--keys K] [--delete-every D] [--retract-every U] [--option K=V] ...\n"
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

		if (ts_path_is_dir(ts_fs_ambient(), sd) && !cfg.force)
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
				uint8_t		sync[16];

				if (gr->nrows == 0)
					continue;
				w = avro_writer_for(dfields, ndcols, cfg.codec, &err);
				if (w == NULL)
					die_err("Avro writer", &err);
				for (int k = 0; k < 16; k += 8)
				{
					uint64_t	r = rng_next();

					memcpy(sync + k, &r, 8);
				}
				ts_avro_writer_set_sync(w, sync);
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
															 orc_to_buf, &out, &err);

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
			manifest_schema = realloc(manifest_schema, sizeof(int) * (size_t) (nmanifests + 1));
			manifest_pstats = realloc(manifest_pstats, sizeof(ts_value) * (size_t) (nmanifests + 1));
			manifest_minb = realloc(manifest_minb, sizeof(int32_t) * (size_t) (nmanifests + 1));
			manifest_maxb = realloc(manifest_maxb, sizeof(int32_t) * (size_t) (nmanifests + 1));
			if (!manifests || !manifest_sizes || !manifest_added || !manifest_schema ||
				!manifest_pstats || !manifest_minb || !manifest_maxb)
				die("out of memory");
			manifests[nmanifests] = name;
			manifest_sizes[nmanifests] = (int64_t) out.len;
			manifest_added[nmanifests] = nentries;
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
				.commit_user = "ts_gen", .commit_kind = "APPEND", .time_millis = time_millis,
				.total_records = total_records, .index_manifest = gb.manifest
			};
			for (int k = 0; k < nentries; k++)
				sn.delta_records += entries[k].row[5].v.nested.items[2].v.i;
			tool_write_snapshot(cfg.dir, &sn);
			free(names[0]);
			free(names[1]);
		}
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
