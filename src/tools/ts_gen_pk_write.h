/*
 * ts_gen_pk_write.h - what the primary-key writer of ts_gen puts on disk
 * (included once by ts_gen_pk.h, see there).
 *
 * Owns: key-value data files (_KEY_<trimmed pk>, _SEQUENCE_NUMBER,
 * _VALUE_KIND, then all columns; sorted by key; min/max key and key stats
 * over the trimmed primary key, value stats over all columns), manifest
 * entries with _LEVEL/_FILE_SOURCE/_DELETE_ROW_COUNT, manifests and
 * manifest lists with level ranges, deletion-vector index files
 * (PAIMON-FORMAT.md 7.6: version byte 1, then per data file int32 BE size,
 * int32 BE magic 1581511376, portable 32-bit Roaring, int32 BE CRC32 over
 * magic + bitmap) and the index manifest (complete current state),
 * snapshots, and the lines of <table_dir>.ops.jsonl.
 *
 * <table_dir>.ops.jsonl, one JSON object per line, in write order:
 *   {"op":"table", "columns":[{"name","type"}...], "partition_keys":[...],
 *    "primary_keys":[...], "trimmed_primary_keys":[...], "sequence_fields":[...],
 *    "buckets":N, "options":{the table options ts_gen wrote}}
 *   {"op":"record", "snapshot":S, "file":F, "pos":P (row in F), "level":L (when
 *    written), "partition":"k=v/", "bucket":B, "write":R (write-stream index,
 *    null for a compaction result), "key":[trimmed pk values], "seq":N,
 *    "kind":"+I"|"-U"|"+U"|"-D", "values":{"col":value|null, ...}}
 *    (with --option changelog-producer=input the records of a commit's
 *    changelog files are logged too, F = changelog-*)
 *   {"op":"file", "snapshot":S, "action":"ADD"|"DELETE", "file":F, "level":L,
 *    "partition":..., "bucket":B, "rows":N}
 *   {"op":"dv", "snapshot":S, "file":F, "positions":[...]}  (the complete
 *    deletion vector of F from snapshot S on; written whenever the index changes)
 *   {"op":"snapshot", "id":S, "kind":"APPEND"|"COMPACT"}
 * Values: integers, DATE (days) and TIME (ms) as JSON numbers (exact up to
 * 2^53), FLOAT/DOUBLE as numbers, BOOLEAN as true/false, CHAR/VARCHAR as
 * strings, other types as ts_value_to_string text.  A file is live at
 * snapshot S if its last "file" event with snapshot <= S for that file is
 * an ADD (a DELETE names the level it removes).
 */

/* ---- ops.jsonl -------------------------------------------------------- */

static cJSON *
pk_value_json(const ts_value *v, const ts_type *t)
{
	if (v->isnull)
		return cJSON_CreateNull();
	switch (t->kind)
	{
		case TS_BOOLEAN:
			return cJSON_CreateBool(v->v.i != 0);
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
		case TS_DATE:
		case TS_TIME:
			return cJSON_CreateNumber((double) v->v.i);
		case TS_FLOAT:
			return cJSON_CreateNumber((double) v->v.f);
		case TS_DOUBLE:
			return cJSON_CreateNumber(v->v.d);
		case TS_CHAR:
		case TS_VARCHAR:
			{
				char	   *s = strndup((const char *) v->v.s.p, v->v.s.len);
				cJSON	   *j = cJSON_CreateString(s);

				free(s);
				return j;
			}
		default:
			{
				char	   *s = ts_value_to_string(v, t);
				cJSON	   *j = cJSON_CreateString(s ? s : "?");

				ts_free(s);
				return j;
			}
	}
}

static void
pk_ops_line(pk_ctx *x, cJSON *j)
{
	char	   *s;

	if (x->ops == NULL)
	{
		cJSON_Delete(j);		/* --no-ops */
		return;
	}
	s = cJSON_PrintUnformatted(j);
	if (s == NULL)
		die("out of memory");
	fprintf(x->ops, "%s\n", s);
	cJSON_free(s);
	cJSON_Delete(j);
}

static void
pk_ops_table(pk_ctx *x)
{
	config	   *cfg = x->cfg;
	cJSON	   *j = cJSON_CreateObject();
	cJSON	   *a;
	cJSON	   *opts = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "op", "table");
	a = cJSON_AddArrayToObject(j, "columns");
	for (int c = 0; c < x->ncols; c++)
	{
		cJSON	   *o = cJSON_CreateObject();
		char	   *ts = ts_type_to_string(x->cols[c]->type0);

		cJSON_AddStringToObject(o, "name", x->cols[c]->name0);
		cJSON_AddStringToObject(o, "type", ts);
		ts_free(ts);
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(j, "partition_keys");
	for (int i = 0; i < cfg->nparts; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(cfg->parts[i]));
	a = cJSON_AddArrayToObject(j, "primary_keys");
	for (int i = 0; i < cfg->npk; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(cfg->pk[i]));
	a = cJSON_AddArrayToObject(j, "trimmed_primary_keys");
	for (int i = 0; i < x->nkeys; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(x->cols[x->key_idx[i]]->name0));
	a = cJSON_AddArrayToObject(j, "sequence_fields");
	for (int i = 0; i < x->nseq; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(x->cols[x->seq_idx[i]]->name0));
	cJSON_AddNumberToObject(j, "buckets", cfg->buckets);
	{
		char	   *b = pathf("%d", cfg->buckets);

		cJSON_AddStringToObject(opts, "bucket", b);
		free(b);
	}
	pk_schema_options(cfg, opts);
	cJSON_AddItemToObject(j, "options", opts);
	pk_ops_line(x, j);
}

static void
pk_ops_record(pk_ctx *x, const pk_file *f, int pos, const pk_rec *rec)
{
	cJSON	   *j = cJSON_CreateObject();
	cJSON	   *a,
			   *vals;
	const pk_group *g = &x->groups[f->group];

	cJSON_AddStringToObject(j, "op", "record");
	cJSON_AddNumberToObject(j, "snapshot", x->snapshot_id);
	cJSON_AddStringToObject(j, "file", f->name);
	cJSON_AddNumberToObject(j, "pos", pos);
	cJSON_AddNumberToObject(j, "level", f->level);
	cJSON_AddStringToObject(j, "partition", g->part_path);
	cJSON_AddNumberToObject(j, "bucket", g->bucket);
	if (rec->r >= 0)
		cJSON_AddNumberToObject(j, "write", (double) rec->r);
	else
		cJSON_AddNullToObject(j, "write");
	a = cJSON_AddArrayToObject(j, "key");
	for (int i = 0; i < x->nkeys; i++)
		cJSON_AddItemToArray(a, pk_value_json(&rec->vals[x->key_idx[i]], x->key_types[i]));
	cJSON_AddNumberToObject(j, "seq", (double) rec->seq);
	cJSON_AddStringToObject(j, "kind", pk_kind_names[rec->kind]);
	vals = cJSON_AddObjectToObject(j, "values");
	for (int c = 0; c < x->ncols; c++)
		cJSON_AddItemToObject(vals, x->cols[c]->name0, pk_value_json(&rec->vals[c], x->cols[c]->type0));
	pk_ops_line(x, j);
}

static void
pk_ops_file(pk_ctx *x, const pk_file *f, const char *action, int level)
{
	cJSON	   *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "op", "file");
	cJSON_AddNumberToObject(j, "snapshot", x->snapshot_id);
	cJSON_AddStringToObject(j, "action", action);
	cJSON_AddStringToObject(j, "file", f->name);
	cJSON_AddNumberToObject(j, "level", level);
	cJSON_AddStringToObject(j, "partition", x->groups[f->group].part_path);
	cJSON_AddNumberToObject(j, "bucket", x->groups[f->group].bucket);
	cJSON_AddNumberToObject(j, "rows", f->nrows);
	pk_ops_line(x, j);
}

static void
pk_ops_dv(pk_ctx *x, const pk_file *f)
{
	cJSON	   *j = cJSON_CreateObject();
	cJSON	   *a;
	uint64_t	n = roaring_bitmap_get_cardinality(f->dv);
	uint32_t   *pos = xcalloc((size_t) n + 1, sizeof(uint32_t));

	roaring_bitmap_to_uint32_array(f->dv, pos);
	cJSON_AddStringToObject(j, "op", "dv");
	cJSON_AddNumberToObject(j, "snapshot", x->snapshot_id);
	cJSON_AddStringToObject(j, "file", f->name);
	a = cJSON_AddArrayToObject(j, "positions");
	for (uint64_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(pos[i]));
	free(pos);
	pk_ops_line(x, j);
}

/* ---- groups ----------------------------------------------------------- */

static int
pk_group_of(pk_ctx *x, const pk_rec *rec)
{
	ts_value	pv[MAX_COLS],
				bv[MAX_COLS];
	ts_buf		prow;
	ts_err		err;
	int32_t		bucket;
	int			g;

	for (int p = 0; p < x->cfg->nparts; p++)
		pv[p] = rec->vals[x->ptypes_idx[p]];
	ts_buf_init(&prow);
	if (!ts_binary_row_encode(x->ptypes, pv, x->cfg->nparts, true, &prow, &err))
		die_err("partition BinaryRow", &err);
	for (int k = 0; k < x->nbk; k++)
		bv[k] = rec->vals[x->bk_idx[k]];
	if (!ts_bucket_compute(TS_BUCKET_FN_DEFAULT, x->bk_types, bv, x->nbk, x->cfg->buckets, &bucket, &err))
		die_err("bucket", &err);
	for (g = 0; g < x->ngroups; g++)
		if (x->groups[g].bucket == bucket && x->groups[g].partition.len == prow.len &&
			memcmp(x->groups[g].partition.data, prow.data, prow.len) == 0)
		{
			ts_buf_free(&prow);
			return g;
		}
	x->groups = realloc(x->groups, sizeof(pk_group) * (size_t) (x->ngroups + 1));
	if (x->groups == NULL)
		die("out of memory");
	{
		pk_group   *ng = &x->groups[x->ngroups];
		char	   *path = xstrdup("");

		memset(ng, 0, sizeof(*ng));
		ng->partition = prow;
		ng->bucket = bucket;
		ng->part_values = arena_values(&x->arena, x->cfg->nparts);
		for (int p = 0; p < x->cfg->nparts; p++)
		{
			char		esc[1024],
						ek[512];
			char	   *txt = partition_text(x->ptypes[p], &pv[p]);
			char	   *np;

			if (txt[0] == '\0')
			{
				free(txt);
				txt = xstrdup("__DEFAULT_PARTITION__");
			}
			np = pathf("%s%s=%s/", path, escape_part(x->cfg->parts[p], ek, sizeof(ek)),
					   escape_part(txt, esc, sizeof(esc)));
			free(path);
			free(txt);
			path = np;
			ng->part_values[p] = pv[p];
		}
		ng->part_path = path;
	}
	return x->ngroups++;
}

/* ---- data files ------------------------------------------------------- */

static ts_value
pk_key_row(pk_ctx *x, const pk_rec *rec)
{
	ts_value	kv[MAX_COLS],
				out;
	ts_buf		b;
	ts_err		err;
	const ts_type *types[MAX_COLS];

	for (int i = 0; i < x->nkeys; i++)
	{
		kv[i] = rec->vals[x->key_idx[i]];
		types[i] = x->key_types[i];
	}
	ts_buf_init(&b);
	if (!ts_binary_row_encode(types, kv, x->nkeys, true, &b, &err))
		die_err("key BinaryRow", &err);
	memset(&out, 0, sizeof(out));
	out.v.s.p = ts_arena_dup(&x->arena, b.data, b.len);
	out.v.s.len = (uint32_t) b.len;
	ts_buf_free(&b);
	return out;
}

/* Write rows (sorted by key) as one data file of group g at 'level'. */
/* "data", or "changelog" while pk_changelog_add writes a changelog file */
static const char *pk_file_prefix = "data";

static pk_file *
pk_write_file(pk_ctx *x, int g, pk_rec **rows, int n, int level, int file_source)
{
	ts_err		err;
	int			nf = x->nkeys + 2 + x->ncols;
	ts_field   *f = xcalloc((size_t) nf, sizeof(ts_field));
	ts_avro_writer *w = NULL;
	ts_pq_writer *pw = NULL;
	ts_value   *row = xcalloc((size_t) nf, sizeof(ts_value));
	col_stats  *kst = xcalloc((size_t) x->nkeys + 1, sizeof(col_stats));
	col_stats  *vst = xcalloc((size_t) x->ncols, sizeof(col_stats));
	ts_buf		out;
	pk_file    *pf = ts_arena_alloc(&x->arena, sizeof(pk_file));
	char	   *dir,
			   *path;
	static ts_type seq_type = {.kind = TS_BIGINT, .nullable = false};
	static ts_type kind_type = {.kind = TS_TINYINT, .nullable = false};

	memset(pf, 0, sizeof(*pf));
	for (int i = 0; i < x->nkeys; i++)
	{
		const gcol *c = x->cols[x->key_idx[i]];

		f[i].id = 1073741823 + c->id;
		f[i].name = pathf("_KEY_%s", c->name0);
		f[i].type = c->type0;
		stats_init(&kst[i], c->type0);
	}
	f[x->nkeys] = (ts_field) {2147483646, "_SEQUENCE_NUMBER", &seq_type, NULL};
	f[x->nkeys + 1] = (ts_field) {2147483645, "_VALUE_KIND", &kind_type, NULL};
	for (int c = 0; c < x->ncols; c++)
	{
		f[x->nkeys + 2 + c] = x->fields[c];
		stats_init(&vst[c], x->fields[c].type);
	}
	ts_buf_init(&out);
	if (x->cfg->parquet)
	{
		/*
		 * Parquet runs: zstd level 1 (Paimon's default) or stored, laid out
		 * as Java's parquet-mr writes a Flink-written run: pages of
		 * parquet.page.size (1 MiB) in row groups of parquet.block.size
		 * (128 MiB: a level-0 run is one row group).
		 */
		pw = ts_pq_writer_create(f, nf, x->cfg->codec == TS_AVRO_CODEC_ZSTANDARD ? 1 : 0,
								 x->cfg->pq_block_size > 0 ? (size_t) x->cfg->pq_block_size :
								 TS_PQ_JAVA_ROW_GROUP_BYTES, file_to_buf, &out, &err);
		if (pw == NULL)
			die_err("Parquet writer", &err);
		ts_pq_writer_set_page_size(pw, (size_t) x->cfg->pq_page_size, 0);
	}
	else
	{
		w = ts_avro_writer_create_for_fields(f, nf, x->cfg->codec, &err);
		if (w == NULL)
			die_err("Avro writer", &err);
		set_random_sync(w);
	}
	pf->min_seq = INT64_MAX;
	pf->max_seq = INT64_MIN;
	for (int i = 0; i < n; i++)
	{
		const pk_rec *rec = rows[i];

		for (int k = 0; k < x->nkeys; k++)
		{
			row[k] = rec->vals[x->key_idx[k]];
			stats_add(&kst[k], &row[k]);
		}
		memset(&row[x->nkeys], 0, 2 * sizeof(ts_value));
		row[x->nkeys].v.i = rec->seq;
		row[x->nkeys + 1].v.i = rec->kind;
		for (int c = 0; c < x->ncols; c++)
		{
			row[x->nkeys + 2 + c] = rec->vals[c];
			stats_add(&vst[c], &rec->vals[c]);
		}
		if (pw != NULL ? !ts_pq_writer_add(pw, row, &err) : !ts_avro_writer_add(w, row, &err))
			die_err("data file row", &err);
		if (rec->seq < pf->min_seq)
			pf->min_seq = rec->seq;
		if (rec->seq > pf->max_seq)
			pf->max_seq = rec->seq;
		if (pk_is_retract(rec->kind))
			pf->delete_rows++;
	}
	if (pw != NULL ? !ts_pq_writer_finish(pw, &err) : !ts_avro_writer_finish(w, &out, &err))
		die_err("data file finish", &err);
	if (pw != NULL)
		ts_pq_writer_free(pw);
	else
		ts_avro_writer_free(w);

	pf->name = pathf("%s-%s-%d.%s", pk_file_prefix, x->data_uuid, x->data_counter++,
					 pw != NULL ? "parquet" : "avro");
	pf->group = g;
	pf->level = level;
	pf->nrows = n;
	pf->rows = ts_arena_alloc(&x->arena, sizeof(pk_rec *) * (size_t) (n ? n : 1));
	memcpy(pf->rows, rows, sizeof(pk_rec *) * (size_t) n);
	pf->size = (int64_t) out.len;
	pf->file_source = file_source;
	pf->time_millis = x->base_time + (int64_t) x->snapshot_id * 1000;
	pf->min_key = pk_key_row(x, rows[0]);
	pf->max_key = pk_key_row(x, rows[n - 1]);
	stats_value(kst, x->nkeys, &pf->key_stats, &x->arena);
	stats_value(vst, x->ncols, &pf->value_stats, &x->arena);
	pf->live = true;
	dir = pathf("%s/%sbucket-%d", x->cfg->dir, x->groups[g].part_path, (int) x->groups[g].bucket);
	mkdirs(dir);
	path = pathf("%s/%s", dir, pf->name);
	write_bytes(path, out.data, out.len);
	free(path);
	free(dir);
	ts_buf_free(&out);
	for (int i = 0; i < x->nkeys; i++)
		free(f[i].name);
	free(f);
	free(row);
	free(kst);
	free(vst);

	x->files = realloc(x->files, sizeof(pk_file *) * (size_t) (x->nfiles + 1));
	if (x->files == NULL)
		die("out of memory");
	x->files[x->nfiles++] = pf;
	for (int i = 0; i < n; i++)
		pk_ops_record(x, pf, i, rows[i]);
	return pf;
}

/* ---- commits ---------------------------------------------------------- */

typedef struct pk_entry
{
	pk_file    *file;
	int			kind;			/* 0 ADD, 1 DELETE */
	int			level;
} pk_entry;

typedef struct pk_commit
{
	pk_entry   *entries;
	int			n;
	pk_entry   *changelog;		/* changelog-producer input: the flushes' changelog files */
	int			nchangelog;
} pk_commit;

/*
 * changelog-producer input: the records a flush wrote to level-0 file f are
 * also written as a changelog file of the commit (same rows, same layout,
 * named changelog-*, never live: only the changelog manifest list has it).
 */
static void
pk_changelog_add(pk_ctx *x, pk_commit *cm, pk_file *f)
{
	pk_file    *c;

	pk_file_prefix = "changelog";
	c = pk_write_file(x, f->group, f->rows, f->nrows, 0, 0);
	pk_file_prefix = "data";
	c->live = false;
	cm->changelog = realloc(cm->changelog, sizeof(pk_entry) * (size_t) (cm->nchangelog + 1));
	if (cm->changelog == NULL)
		die("out of memory");
	cm->changelog[cm->nchangelog++] = (pk_entry) {c, 0, 0};
}

static void
pk_commit_add(pk_ctx *x, pk_commit *cm, pk_file *f, int kind, int level)
{
	cm->entries = realloc(cm->entries, sizeof(pk_entry) * (size_t) (cm->n + 1));
	if (cm->entries == NULL)
		die("out of memory");
	cm->entries[cm->n++] = (pk_entry) {f, kind, level};
	pk_ops_file(x, f, kind == 0 ? "ADD" : "DELETE", level);
}

static void
pk_entry_row(pk_ctx *x, const pk_entry *e, ts_value *row)
{
	const pk_file *f = e->file;
	const pk_group *g = &x->groups[f->group];
	ts_value   *fi = arena_values(&x->arena, 18);

	memset(row, 0, sizeof(ts_value) * 6);
	row[0].v.i = 2;
	row[1].v.i = e->kind;
	row[2].v.s.p = g->partition.data;
	row[2].v.s.len = (uint32_t) g->partition.len;
	row[3].v.i = g->bucket;
	row[4].v.i = x->cfg->buckets;
	row[5].v.nested.n = 18;
	row[5].v.nested.items = fi;
	fi[0].v.s.p = (const uint8_t *) f->name;
	fi[0].v.s.len = (uint32_t) strlen(f->name);
	fi[1].v.i = f->size;
	fi[2].v.i = f->nrows;
	fi[3] = f->min_key;
	fi[4] = f->max_key;
	fi[5] = f->key_stats;
	fi[6] = f->value_stats;
	fi[7].v.i = f->min_seq;
	fi[8].v.i = f->max_seq;
	fi[9].v.i = 0;
	fi[10].v.i = e->level;
	fi[11].v.nested.n = 0;
	fi[11].v.nested.items = arena_values(&x->arena, 1);
	fi[12].v.ts.millis = f->time_millis;
	fi[13].v.i = f->delete_rows;
	fi[14].isnull = true;
	fi[15].v.i = f->file_source;
	fi[16].isnull = true;
	fi[17].isnull = true;
}

#include "ts_gen_pk_gi.h"

/* Write the DV index files of dirty groups and the index manifest. */
static void
pk_write_dv_index(pk_ctx *x)
{
	bool		any_dirty = false;
	ts_err		err;

	for (int g = 0; g < x->ngroups; g++)
	{
		pk_group   *gr = &x->groups[g];
		ts_buf		b;
		int			n = 0;
		ts_value   *ranges;

		if (!gr->dv_dirty)
			continue;
		any_dirty = true;
		gr->dv_dirty = false;
		gr->index_file = NULL;
		for (int i = 0; i < x->nfiles; i++)
			if (x->files[i]->live && x->files[i]->group == g && x->files[i]->dv)
				n++;
		if (n == 0)
			continue;
		ranges = arena_values(&x->arena, n);
		ts_buf_init(&b);
		ts_buf_append(&b, "\x01", 1, &err);
		n = 0;
		for (int i = 0; i < x->nfiles; i++)
		{
			pk_file    *f = x->files[i];
			size_t		rb;
			uint8_t    *body;
			uint8_t		be[4];
			uint32_t	size,
						crc;
			ts_value   *rv;

			if (!f->live || f->group != g || f->dv == NULL)
				continue;
			rb = roaring_bitmap_portable_size_in_bytes(f->dv);
			body = xcalloc(4 + rb, 1);
			body[0] = 0x5E;
			body[1] = 0x43;
			body[2] = 0xF2;
			body[3] = 0xD0;		/* magic 1581511376, big-endian */
			if (roaring_bitmap_portable_serialize(f->dv, (char *) body + 4) != rb)
				die("roaring serialization failed");
			size = (uint32_t) (4 + rb);
			crc = (uint32_t) crc32(0L, body, size);
			rv = &ranges[n++];
			rv->v.nested.n = 4;
			rv->v.nested.items = arena_values(&x->arena, 4);
			rv->v.nested.items[0].v.s.p = (const uint8_t *) f->name;
			rv->v.nested.items[0].v.s.len = (uint32_t) strlen(f->name);
			rv->v.nested.items[1].v.i = (int64_t) b.len;
			rv->v.nested.items[2].v.i = size;
			rv->v.nested.items[3].v.i = (int64_t) roaring_bitmap_get_cardinality(f->dv);
			be[0] = size >> 24, be[1] = size >> 16, be[2] = size >> 8, be[3] = size;
			ts_buf_append(&b, be, 4, &err);
			ts_buf_append(&b, body, size, &err);
			be[0] = crc >> 24, be[1] = crc >> 16, be[2] = crc >> 8, be[3] = crc;
			ts_buf_append(&b, be, 4, &err);
			free(body);
		}
		gr->index_file = pathf("index-%s-%d", x->index_uuid, x->index_counter++);
		{
			char	   *dir = pathf("%s/index", x->cfg->dir);
			char	   *path = pathf("%s/%s", dir, gr->index_file);

			mkdirs(dir);
			write_bytes(path, b.data, b.len);
			free(path);
			free(dir);
		}
		gr->index_size = (int64_t) b.len;
		gr->index_count = n;
		memset(&gr->index_ranges, 0, sizeof(ts_value));
		gr->index_ranges.v.nested.n = n;
		gr->index_ranges.v.nested.items = ranges;
		ts_buf_free(&b);
	}
	if (!any_dirty && pk_gi_col < 0)
		return;					/* with a pk-btree index: rewritten every commit */
	{
		ts_avro_writer *w = ts_avro_writer_create_for_fields(x->im_fields, x->nim, x->cfg->manifest_codec, &err);
		ts_buf		out;
		char	   *path;

		if (w == NULL)
			die_err("index manifest writer", &err);
		for (int g = 0; g < x->ngroups; g++)
		{
			pk_group   *gr = &x->groups[g];
			ts_value	v[11];

			if (gr->index_file == NULL)
				continue;
			memset(v, 0, sizeof(v));
			v[9].isnull = true;
			v[10].isnull = true;
			v[0].v.i = 1;
			v[1].v.i = 0;
			v[2].v.s.p = gr->partition.data;
			v[2].v.s.len = (uint32_t) gr->partition.len;
			v[3].v.i = gr->bucket;
			v[4].v.s.p = (const uint8_t *) "DELETION_VECTORS";
			v[4].v.s.len = 16;
			v[5].v.s.p = (const uint8_t *) gr->index_file;
			v[5].v.s.len = (uint32_t) strlen(gr->index_file);
			v[6].v.i = gr->index_size;
			v[7].v.i = gr->index_count;
			v[8] = gr->index_ranges;
			if (!ts_avro_writer_add(w, v, &err))
				die_err("index manifest entry", &err);
		}
		pk_gi_entries(x, w);
		ts_buf_init(&out);
		if (!ts_avro_writer_finish(w, &out, &err))
			die_err("index manifest finish", &err);
		ts_avro_writer_free(w);
		x->index_manifest = pathf("index-manifest-%s-%d", x->index_uuid, x->index_manifest_counter++);
		path = pathf("%s/manifest/%s", x->cfg->dir, x->index_manifest);
		write_bytes(path, out.data, out.len);
		free(path);
		ts_buf_free(&out);
	}
	for (int i = 0; i < x->nfiles; i++)
		if (x->files[i]->live && x->files[i]->dv)
			pk_ops_dv(x, x->files[i]);
}

/* Write manifest, manifest lists and the snapshot of one commit. */
/*
 * Write the entries as a new manifest; its meta into *meta (name, size,
 * counts, partition statistics, bucket and level ranges); returns the
 * rows of the files it adds.
 */
static int64_t
pk_write_manifest(pk_ctx *x, const pk_entry *entries, int n, tool_manifest_meta *meta)
{
	config	   *cfg = x->cfg;
	ts_err		err;
	int64_t		rows = 0;
	ts_avro_writer *w = ts_avro_writer_create_for_fields(x->me_fields, x->nme, cfg->manifest_codec, &err);
	ts_buf		out;
	char	   *name = pathf("manifest-%s-%d", x->manifest_uuid, x->manifest_counter++);
	char	   *path = pathf("%s/manifest/%s", cfg->dir, name);
	col_stats  *pst = xcalloc((size_t) (cfg->nparts ? cfg->nparts : 1), sizeof(col_stats));
	int32_t		mm[4] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
	int64_t		added = 0,
				deleted = 0;

	if (w == NULL)
		die_err("manifest writer", &err);
	for (int p = 0; p < cfg->nparts; p++)
		stats_init(&pst[p], x->ptypes[p]);
	for (int k = 0; k < n; k++)
	{
		ts_value	row[6];
		const pk_group *g = &x->groups[entries[k].file->group];

		pk_entry_row(x, &entries[k], row);
		if (!ts_avro_writer_add(w, row, &err))
			die_err("manifest entry", &err);
		if (entries[k].kind == 0)
			added++, rows += entries[k].file->nrows;
		else
			deleted++;
		if (g->bucket < mm[0])
			mm[0] = g->bucket;
		if (g->bucket > mm[1])
			mm[1] = g->bucket;
		if (entries[k].level < mm[2])
			mm[2] = entries[k].level;
		if (entries[k].level > mm[3])
			mm[3] = entries[k].level;
		for (int p = 0; p < cfg->nparts; p++)
			stats_add(&pst[p], &g->part_values[p]);
	}
	if (n == 0)
		mm[0] = mm[1] = mm[2] = mm[3] = 0;
	ts_buf_init(&out);
	if (!ts_avro_writer_finish(w, &out, &err))
		die_err("manifest finish", &err);
	ts_avro_writer_free(w);
	write_bytes(path, out.data, out.len);
	free(path);
	memset(meta, 0, sizeof(*meta));
	meta->name = name;
	meta->size = (int64_t) out.len;
	meta->added = added;
	meta->deleted = deleted;
	stats_value(pst, cfg->nparts, &meta->partition_stats, &x->arena);
	meta->min_bucket = mm[0];
	meta->max_bucket = mm[1];
	meta->min_level = mm[2];
	meta->max_level = mm[3];
	ts_buf_free(&out);
	free(pst);
	return rows;
}

static void
pk_finish_commit(pk_ctx *x, pk_commit *cm, const char *commit_kind)
{
	config	   *cfg = x->cfg;
	int			m = x->nmanifests;
	int64_t		delta = 0,
				total = 0,
				changelog_records = 0,
				changelog_list_size = 0;
	char	   *changelog_list = NULL;

	pk_write_dv_index(x);
	/* the manifest */
	{
		tool_manifest_meta meta;

		delta = pk_write_manifest(x, cm->entries, cm->n, &meta);
		x->manifests = realloc(x->manifests, sizeof(char *) * (size_t) (m + 1));
		x->manifest_sizes = realloc(x->manifest_sizes, sizeof(int64_t) * (size_t) (m + 1));
		x->manifest_added = realloc(x->manifest_added, sizeof(int64_t) * (size_t) (m + 1));
		x->manifest_deleted = realloc(x->manifest_deleted, sizeof(int64_t) * (size_t) (m + 1));
		x->manifest_pstats = realloc(x->manifest_pstats, sizeof(ts_value) * (size_t) (m + 1));
		x->manifest_minmax = realloc(x->manifest_minmax, sizeof(int32_t) * 4 * (size_t) (m + 1));
		if (!x->manifests || !x->manifest_sizes || !x->manifest_added || !x->manifest_deleted ||
			!x->manifest_pstats || !x->manifest_minmax)
			die("out of memory");
		x->manifests[m] = (char *) meta.name;
		x->manifest_sizes[m] = meta.size;
		x->manifest_added[m] = meta.added;
		x->manifest_deleted[m] = meta.deleted;
		x->manifest_pstats[m] = meta.partition_stats;
		x->manifest_minmax[4 * m] = (int32_t) meta.min_bucket;
		x->manifest_minmax[4 * m + 1] = (int32_t) meta.max_bucket;
		x->manifest_minmax[4 * m + 2] = (int32_t) meta.min_level;
		x->manifest_minmax[4 * m + 3] = (int32_t) meta.max_level;
		x->nmanifests++;
	}
	/* changelog-producer input: a manifest list of the changelog files alone */
	if (cm->nchangelog > 0)
	{
		tool_manifest_meta meta;

		changelog_records = pk_write_manifest(x, cm->changelog, cm->nchangelog, &meta);
		changelog_list = pathf("manifest-list-%s-%d", x->list_uuid, x->list_counter++);
		changelog_list_size = tool_write_manifest_list(cfg->dir, changelog_list, &meta, 1,
													   cfg->manifest_codec);
	}
	/* manifest lists: base = manifests of earlier snapshots, delta = this one */
	{
		char	   *names[2];
		int64_t		sizes[2];
		tool_manifest_meta *metas = xcalloc((size_t) m + 1, sizeof(tool_manifest_meta));
		tool_snapshot sn = {0};

		for (int i = 0; i <= m; i++)
			metas[i] = (tool_manifest_meta) {
				.name = x->manifests[i], .size = x->manifest_sizes[i],
				.added = x->manifest_added[i], .deleted = x->manifest_deleted[i],
				.partition_stats = x->manifest_pstats[i],
				.min_bucket = x->manifest_minmax[4 * i], .max_bucket = x->manifest_minmax[4 * i + 1],
				.min_level = x->manifest_minmax[4 * i + 2], .max_level = x->manifest_minmax[4 * i + 3]
			};
		for (int which = 0; which < 2; which++)
		{
			int			from = which == 0 ? 0 : m;
			int			to = which == 0 ? m : m + 1;

			names[which] = pathf("manifest-list-%s-%d", x->list_uuid, x->list_counter++);
			sizes[which] = tool_write_manifest_list(cfg->dir, names[which], metas + from, to - from,
													cfg->manifest_codec);
		}
		free(metas);
		for (int i = 0; i < x->nfiles; i++)
			if (x->files[i]->live)
				total += x->files[i]->nrows;
		sn = (tool_snapshot) {
			.id = x->snapshot_id, .base_list = names[0], .base_list_size = sizes[0],
			.delta_list = names[1], .delta_list_size = sizes[1],
			.index_manifest = x->index_manifest, .commit_user = "ts_gen", .commit_kind = commit_kind,
			.time_millis = x->base_time + (int64_t) x->snapshot_id * 1000, .total_records = total,
			.delta_records = strcmp(commit_kind, "COMPACT") == 0 ? -1 : delta,
			.changelog_list = changelog_list, .changelog_list_size = changelog_list_size,
			.changelog_records = changelog_records
		};
		tool_write_snapshot(cfg->dir, &sn);
		free(names[0]);
		free(names[1]);
	}
	{
		cJSON	   *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "op", "snapshot");
		cJSON_AddNumberToObject(j, "id", x->snapshot_id);
		cJSON_AddStringToObject(j, "kind", commit_kind);
		pk_ops_line(x, j);
	}
	free(cm->entries);
	cm->entries = NULL;
	cm->n = 0;
	free(cm->changelog);
	cm->changelog = NULL;
	cm->nchangelog = 0;
	free(changelog_list);
}

static ts_field *
pk_index_manifest_fields(int *n)
{
	static const char *const rnames[] = {"f0", "f1", "f2", "_CARDINALITY"};
	ts_type    *rt[4];
	ts_field   *f = xcalloc(9, sizeof(ts_field));
	ts_type    *row;

	rt[0] = mk(TS_VARCHAR, false);
	rt[1] = mk(TS_INT, false);
	rt[2] = mk(TS_INT, false);
	rt[3] = mk(TS_BIGINT, true);
	row = mk_row(4, rnames, rt, true);
	f[0] = (ts_field) {0, "_VERSION", mk(TS_INT, false), NULL};
	f[1] = (ts_field) {1, "_KIND", mk(TS_TINYINT, false), NULL};
	f[2] = (ts_field) {2, "_PARTITION", mk(TS_VARBINARY, false), NULL};
	f[3] = (ts_field) {3, "_BUCKET", mk(TS_INT, false), NULL};
	f[4] = (ts_field) {4, "_INDEX_TYPE", mk(TS_VARCHAR, false), NULL};
	f[5] = (ts_field) {5, "_FILE_NAME", mk(TS_VARCHAR, false), NULL};
	f[6] = (ts_field) {6, "_FILE_SIZE", mk(TS_BIGINT, false), NULL};
	f[7] = (ts_field) {7, "_ROW_COUNT", mk(TS_BIGINT, false), NULL};
	f[8] = (ts_field) {8, "_DELETIONS_VECTORS_RANGES", mk_array(row, true), NULL};
	*n = 9;
	return f;
}

