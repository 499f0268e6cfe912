/*
 * ts_gen_args.h - the fixture generator's arguments (included by
 * src/tools/ts_gen.c after its config; the Makefile builds one binary per
 * src/tools/NAME.c).
 *
 * Owns: the options of the command line and of a --spec file, the presets
 * (all-types, evolve), and finishing the config: partition and bucket
 * keys checked, the schema evolution requests applied (schema 1's
 * columns), nested field ids assigned, the types each format takes.  The
 * USAGE comment of ts_gen.c documents every option.
 */
#ifndef TS_GEN_ARGS_H
#define TS_GEN_ARGS_H

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
			else if (strcmp(o, "parquet-block-size") == 0)
				cfg->pq_block_size = parse_int(o, v, 1, INT64_MAX);
			else if (strcmp(o, "parquet-page-size") == 0)
				cfg->pq_page_size = parse_int(o, v, 1, INT32_MAX);
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
			else if (strcmp(o, "overwrite-at") == 0)
				cfg->overwrite_at = (int) parse_int(o, v, 0, 1000000000);
			else if (strcmp(o, "overwrite-partition") == 0)
				cfg->overwrite_partition = xstrdup(v);
			else if (strcmp(o, "readd-at") == 0)
				cfg->readd_at = (int) parse_int(o, v, 2, 1000000000);
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
	if (cfg->orc && cfg->npk > 0)
		die("--format orc: append tables only");
	if (cfg->parquet && cfg->npk > 0 && cfg->codec != TS_AVRO_CODEC_ZSTANDARD &&
		cfg->codec != TS_AVRO_CODEC_NULL)
		die("--format parquet --primary-key: --codec zstd or null");
	if (cfg->parquet && cfg->npk > 0 && cfg->row_group_rows > 0)
		die("--format parquet --primary-key: row groups by bytes (--parquet-block-size), --row-group-rows is not taken");
	if ((cfg->pq_block_size > 0 || cfg->pq_page_size > 0) && !(cfg->parquet && cfg->npk > 0))
		die("--parquet-block-size / --parquet-page-size: with --primary-key --format parquet only");
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

#endif							/* TS_GEN_ARGS_H */
