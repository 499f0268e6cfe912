/*
 * scan_oracle.h - helpers shared by the scan unit tests: load oracle cases,
 * turn their options / partition_filter / bucket_filter into a
 * ts_scan_context, and compare a plan with the case's read_splits and rows.
 * Header-only (static functions) so each test binary stays self-contained.
 */
#ifndef TS_SCAN_ORACLE_H
#define TS_SCAN_ORACLE_H

#include "unit.h"

#pragma GCC diagnostic ignored "-Wunused-function"

#include <cjson/cJSON.h>
#include <dirent.h>

#include "base/ts_fs.h"
#include "format/format.h"
#include "scan/scan.h"
#include "scan_plan.h"

static cJSON *
oracle_load(const char *name)
{
	char		rel[512];
	uint8_t    *data;
	size_t		len;
	ts_err		err = {0};
	cJSON	   *j;

	snprintf(rel, sizeof(rel), "oracle/%s", name);
	if (!ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path(rel), &data, &len, &err))
		fail_msg("%s", err.msg);
	j = cJSON_ParseWithLength((const char *) data, len);
	ts_free(data);
	assert_non_null(j);
	return j;
}

/* Sorted list of oracle case files (excluding the vector files). */
static int
oracle_cases(char ***names)
{
	char	  **all;
	int			n,
				i,
				k = 0;
	ts_err		err = {0};

	if (!ts_list_dir(ts_fs_local_unconfined(), unit_shared_path("oracle"), &all, &n, &err))
		fail_msg("%s", err.msg);
	*names = calloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
	{
		size_t		l = strlen(all[i]);

		if (l > 5 && strcmp(all[i] + l - 5, ".json") == 0 && strstr(all[i], "__"))
			(*names)[k++] = strdup(all[i]);
	}
	ts_free_names(all, n);
	return k;
}

static void
oracle_free_cases(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Container format of a table's manifests: AVRO, ORC, mixed (UNKNOWN) or none (-1). */
static int
table_manifest_format(const char *table_dir)
{
	char		dir[4096];
	char	  **names;
	int			n,
				i,
				fmt = -1;
	ts_err		err = {0};

	snprintf(dir, sizeof(dir), "%s/manifest", table_dir);
	if (!ts_path_is_dir(ts_fs_local_unconfined(), dir))
		return -1;
	if (!ts_list_dir(ts_fs_local_unconfined(), dir, &names, &n, &err))
		return -1;
	for (i = 0; i < n; i++)
	{
		char		p[8192];
		uint8_t		head[4] = {0};
		ts_file    *f;
		int			this;

		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		f = ts_file_open(ts_fs_local_unconfined(), p, &err);
		if (f == NULL)
			continue;
		if (ts_file_size(f) >= 4)
			ts_file_pread(f, head, 4, 0, &err);
		ts_file_close(f);
		this = ts_format_from_magic(head, 4);
		if (fmt == -1)
			fmt = this;
		else if (fmt != this)
			fmt = TS_FORMAT_UNKNOWN;
	}
	ts_free_names(names, n);
	return fmt;
}

typedef struct oracle_ctx
{
	ts_scan_context ctx;
	char		table_path[4096];
	ts_option	opts[32];
	char		optbuf[32][2][4200];
	ts_option	pf_kv[8][9];
	char		pfbuf[8][8][2][256];
	const ts_option *pf[8];
	bool		has_limit;
	bool		streaming;
	bool		unknown_options;	/* options the scan does not plan with */
} oracle_ctx;

/* Fill c from a case; snapshot overrides the case's own (0 = keep). */
static void
oracle_ctx_build(const cJSON *o, oracle_ctx *c)
{
	const cJSON *table = cJSON_GetObjectItem(o, "table");
	const cJSON *opts = cJSON_GetObjectItem(o, "options");
	const cJSON *snap = cJSON_GetObjectItem(o, "snapshot");
	const cJSON *pf = cJSON_GetObjectItem(o, "partition_filter");
	const cJSON *bf = cJSON_GetObjectItem(o, "bucket_filter");
	const cJSON *it;
	int			n = 0;
	bool		has_snapshot_opt = false;

	memset(c, 0, sizeof(*c));
	snprintf(c->table_path, sizeof(c->table_path), "%s/testdata/%s", unit_shared_dir(),
			 table->valuestring);
	c->ctx.table_path = c->table_path;
	c->ctx.limit = -1;
	c->ctx.enable_pruning = true;
	cJSON_ArrayForEach(it, opts)
	{
		if (strcmp(it->string, "limit") == 0)
		{
			c->has_limit = true;
			c->ctx.limit = (int64_t) it->valuedouble;
			continue;
		}
		if (strcmp(it->string, "streaming") == 0)
		{
			c->streaming = true;
			continue;
		}
		if (strncmp(it->string, "scan.", 5) == 0 && strcmp(it->string, "scan.snapshot-id") != 0)
			c->unknown_options = true;
		if (strcmp(it->string, "scan.snapshot-id") == 0)
			has_snapshot_opt = true;
		if (!cJSON_IsString(it) || n >= 31)
			continue;
		snprintf(c->optbuf[n][0], sizeof(c->optbuf[n][0]), "%s", it->string);
		snprintf(c->optbuf[n][1], sizeof(c->optbuf[n][1]), "%s", it->valuestring);
		c->opts[n].key = c->optbuf[n][0];
		c->opts[n].value = c->optbuf[n][1];
		n++;
	}
	if (cJSON_IsNumber(snap) && !has_snapshot_opt)
	{
		snprintf(c->optbuf[n][0], sizeof(c->optbuf[n][0]), "scan.snapshot-id");
		snprintf(c->optbuf[n][1], sizeof(c->optbuf[n][1]), "%lld", (long long) snap->valuedouble);
		c->opts[n].key = c->optbuf[n][0];
		c->opts[n].value = c->optbuf[n][1];
		n++;
	}
	/* the branch an equivalent table scan reads (or the case's own) */
	{
		const cJSON *ets = cJSON_GetObjectItem(o, "equivalent_table_scan");
		const cJSON *br = cJSON_GetObjectItem(ets, "branch");

		if (!cJSON_IsString(br))
			br = cJSON_GetObjectItem(o, "branch");
		if (cJSON_IsString(br) && strcmp(br->valuestring, "main") != 0 && n < 31)
		{
			snprintf(c->optbuf[n][0], sizeof(c->optbuf[n][0]), "branch");
			snprintf(c->optbuf[n][1], sizeof(c->optbuf[n][1]), "%s", br->valuestring);
			c->opts[n].key = c->optbuf[n][0];
			c->opts[n].value = c->optbuf[n][1];
			n++;
		}
	}
	/*
	 * INDEX.md: external files written under FILE:/tmp/external/... live in
	 * <fmt>/<table>.db/external/ of the test data.
	 */
	{
		char		ext[4096];
		const char *slash = strrchr(c->table_path, '/');

		snprintf(ext, sizeof(ext), "%.*s/external", (int) (slash - c->table_path), c->table_path);
		if (ts_path_is_dir(ts_fs_local_unconfined(), ext) && n < 31)
		{
			snprintf(c->optbuf[n][0], sizeof(c->optbuf[n][0]), "external-path-map");
			snprintf(c->optbuf[n][1], sizeof(c->optbuf[n][1]), "FILE:/tmp/external=>%s", ext);
			c->opts[n].key = c->optbuf[n][0];
			c->opts[n].value = c->optbuf[n][1];
			n++;
		}
	}
	c->ctx.noptions = n;
	c->ctx.options = c->opts;
	if (cJSON_IsArray(pf))
	{
		int			f = 0;

		cJSON_ArrayForEach(it, pf)
		{
			const cJSON *kv;
			int			k = 0;

			cJSON_ArrayForEach(kv, it)
			{
				snprintf(c->pfbuf[f][k][0], 256, "%s", kv->string);
				snprintf(c->pfbuf[f][k][1], 256, "%s", kv->valuestring);
				c->pf_kv[f][k].key = c->pfbuf[f][k][0];
				c->pf_kv[f][k].value = c->pfbuf[f][k][1];
				k++;
			}
			c->pf_kv[f][k].key = NULL;
			c->pf[f] = c->pf_kv[f];
			f++;
		}
		c->ctx.npartition_filters = f;
		c->ctx.partition_filters = c->pf;
	}
	if (cJSON_IsNumber(bf))
	{
		c->ctx.has_bucket_filter = true;
		c->ctx.bucket_filter = (int32_t) bf->valuedouble;
	}
}

/* The "<partition path>/bucket-<b>" directory of a planned file, relative to the table. */
static const char *
plan_file_bucket_dir(const ts_plan *plan, const ts_scan_file *f, char *buf, size_t size)
{
	size_t		rl = strlen(plan->table_path);
	const char *path = ts_scan_file_path(plan, f, NULL);
	const char *slash;

	if (path == NULL || strncmp(path, plan->table_path, rl) != 0 || path[rl] != '/')
		return NULL;
	slash = strrchr(path, '/');
	snprintf(buf, size, "%.*s", (int) (slash - (path + rl + 1)), path + rl + 1);
	return buf;
}

/* Every planned data file and DV file exists. */
static void
plan_assert_paths_exist(const ts_plan *plan)
{
	for (int s = 0; s < plan->nsplits; s++)
		for (int k = 0; k < plan->splits[s].nfiles; k++)
		{
			const ts_scan_file *f = &plan->splits[s].files[k];

			const char *path = ts_scan_file_label(plan, f);

			if (!ts_path_is_file(ts_fs_local_unconfined(), path))
				fail_msg("planned data file does not exist: %s", path);
			if (f->dv_path && !ts_path_is_file(ts_fs_local_unconfined(), f->dv_path))
				fail_msg("planned deletion vector file does not exist: %s", f->dv_path);
		}
}

static int64_t
plan_total_files(const ts_plan *plan)
{
	int64_t		n = 0;

	for (int s = 0; s < plan->nsplits; s++)
		n += plan->splits[s].nfiles;
	return n;
}

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* ---- read_splits ---------------------------------------------------- */

/* Batch plans of DV (without merge-on-read) and first-row tables skip level 0. */
static bool
plan_skips_level0(const ts_plan *plan)
{
	const char *dv = ts_plan_option(plan, "deletion-vectors.enabled");
	const char *me = ts_plan_option(plan, "merge-engine");

	return plan->kind == TS_TABLE_PRIMARY_KEY &&
		((dv && strcmp(dv, "true") == 0) || (me && strcmp(me, "first-row") == 0));
}

/* Returns false when the case is not comparable with a batch plan. */
static bool
check_read_splits(const char *name, const cJSON *o, const ts_plan *plan, bool equivalent)
{
	const cJSON *rss = cJSON_GetObjectItem(o, "read_splits");
	const cJSON *rs;
	int			nchecked = 0;

	cJSON_ArrayForEach(rs, rss)
	{
		const cJSON *bd = cJSON_GetObjectItem(rs, "bucket_dir");
		const cJSON *files = cJSON_GetObjectItem(rs, "files");
		const cJSON *dvs = cJSON_GetObjectItem(rs, "deletion_files");
		const ts_split *split = NULL;
		char		buf[4096];
		int			i;

		if (!cJSON_IsString(bd))
		{
			/* no directory given: the split holding the first file */
			const char *first = cJSON_GetArrayItem(files, 0)->valuestring;

			for (i = 0; i < plan->nsplits && split == NULL; i++)
				for (int k = 0; k < plan->splits[i].nfiles; k++)
					if (strcmp(plan->splits[i].files[k].entry->file.file_name, first) == 0)
						split = &plan->splits[i];
			if (split == NULL && !equivalent && plan_skips_level0(plan))
				return false;	/* hand-built split of invisible level-0 files */
			if (split == NULL)
				fail_msg("%s: file %s not planned", name, first);
		}
		else
			for (i = 0; i < plan->nsplits && split == NULL; i++)
			{
				const char *d = plan_file_bucket_dir(plan, &plan->splits[i].files[0], buf, sizeof(buf));

				if (d && strcmp(d, bd->valuestring) == 0)
					split = &plan->splits[i];
			}
		if (split == NULL)
			fail_msg("%s: no split for %s", name, bd->valuestring);
		for (i = 0; i < cJSON_GetArraySize(files); i++)
		{
			const char *want = cJSON_GetArrayItem(files, i)->valuestring;
			const cJSON *dv = cJSON_IsArray(dvs) ? cJSON_GetArrayItem(dvs, i) : NULL;
			const ts_scan_file *f = NULL;

			for (int k = 0; k < split->nfiles && f == NULL; k++)
				if (strcmp(split->files[k].entry->file.file_name, want) == 0)
					f = &split->files[k];
			if (f == NULL)
				fail_msg("%s: file %s not planned", name, want);
			assert_string_equal(base_name(ts_scan_file_label(plan, f)), want);
			if (dv == NULL || cJSON_IsNull(dv))
				assert_null(f->dv_path);
			else
			{
				const char *dp = cJSON_GetObjectItem(dv, "path")->valuestring;
				const cJSON *card = cJSON_GetObjectItem(dv, "cardinality");

				assert_non_null(f->dv_path);
				assert_true(strlen(f->dv_path) >= strlen(dp));
				assert_string_equal(f->dv_path + strlen(f->dv_path) - strlen(dp), dp);
				assert_int_equal(f->dv_offset, (int64_t) cJSON_GetObjectItem(dv, "offset")->valuedouble);
				assert_int_equal(f->dv_length, (int64_t) cJSON_GetObjectItem(dv, "length")->valuedouble);
				if (cJSON_IsNull(card))
					assert_int_equal(f->dv_cardinality, -1);
				else
					assert_int_equal(f->dv_cardinality, (int64_t) card->valuedouble);
			}
		}
		if (equivalent)
		{
			/* hand-built splits: same files; their order is the test's own */
			assert_int_equal(split->nfiles, cJSON_GetArraySize(files));
		}
		nchecked++;
	}
	if (equivalent)
		assert_int_equal(plan->nsplits, nchecked);
	return true;
}

/* Plan every read_splits case on tables with manifests of format fmt; returns cases checked. */
static int
oracle_check_read_splits(int fmt)
{
	char	  **names;
	int			n = oracle_cases(&names),
				checked = 0;

	for (int i = 0; i < n; i++)
	{
		cJSON	   *o = oracle_load(names[i]);
		const cJSON *eq = cJSON_GetObjectItem(o, "equivalent_table_scan");
		oracle_ctx	c;
		ts_plan    *plan;

		if (!cJSON_IsArray(cJSON_GetObjectItem(o, "read_splits")) ||
			!cJSON_IsString(cJSON_GetObjectItem(o, "table")))
		{
			cJSON_Delete(o);
			continue;
		}
		oracle_ctx_build(o, &c);
		if (table_manifest_format(c.table_path) != fmt || c.streaming)
		{
			cJSON_Delete(o);
			continue;
		}
		/* read_splits are hand-built: plan the whole snapshot */
		c.ctx.npartition_filters = 0;
		c.ctx.has_bucket_filter = false;
		c.ctx.limit = -1;
		plan = scan_plan_ok(&c.ctx);
		plan_assert_paths_exist(plan);
		if (check_read_splits(names[i], o, plan, cJSON_IsObject(eq)))
			checked++;
		ts_plan_free(plan);
		cJSON_Delete(o);
	}
	oracle_free_cases(names, n);
	printf("read_splits cases checked (%s manifests): %d\n", ts_format_name(fmt), checked);
	return checked;
}

/* ---- row counts of full reads ---------------------------------------- */

/*
 * Rows a plan yields when no split needs a merge: file row counts minus
 * DV cardinalities.  Returns false when that is not knowable.
 */
static bool
plan_raw_rows(const ts_plan *plan, int64_t *rows)
{
	*rows = 0;
	for (int s = 0; s < plan->nsplits; s++)
	{
		if (!plan->splits[s].raw_convertible)
			return false;
		for (int k = 0; k < plan->splits[s].nfiles; k++)
		{
			const ts_scan_file *f = &plan->splits[s].files[k];

			if (f->entry->file.nwrite_cols >= 0 || f->entry->file.has_first_row_id)
				return false;	/* data evolution: files overlap by row id */
			*rows += f->entry->file.row_count;
			if (f->dv_path)
			{
				if (f->dv_cardinality < 0)
					return false;
				*rows -= f->dv_cardinality;
			}
		}
	}
	return true;
}

/* Full-read row counts of raw plans vs the oracle rows; returns cases checked. */
static int
oracle_check_row_counts(int fmt)
{
	char	  **names;
	int			n = oracle_cases(&names),
				checked = 0;

	for (int i = 0; i < n; i++)
	{
		cJSON	   *o = oracle_load(names[i]);
		const cJSON *rows = cJSON_GetObjectItem(o, "rows");
		const cJSON *scope = cJSON_GetObjectItem(o, "scope");
		oracle_ctx	c;
		ts_plan    *plan;
		int64_t		got;

		if (!cJSON_IsString(cJSON_GetObjectItem(o, "table")) || !cJSON_IsArray(rows) ||
			cJSON_IsArray(cJSON_GetObjectItem(o, "predicate_expr")) ||
			(cJSON_IsString(cJSON_GetObjectItem(o, "predicate")) &&
			 !cJSON_IsArray(cJSON_GetObjectItem(o, "partition_filter"))) ||
			(cJSON_IsString(scope) && strcmp(scope->valuestring, "table_scan") != 0 &&
			 !cJSON_IsObject(cJSON_GetObjectItem(o, "equivalent_table_scan"))))
		{
			cJSON_Delete(o);
			continue;
		}
		oracle_ctx_build(o, &c);
		if (table_manifest_format(c.table_path) != fmt || c.streaming || c.has_limit || c.unknown_options)
		{
			cJSON_Delete(o);
			continue;
		}
		{
			ts_err		err = {0};

			plan = ts_scan_plan(&c.ctx, &err);
			if (plan == NULL)
				fail_msg("%s: %s", names[i], err.msg);
		}
		plan_assert_paths_exist(plan);
		if (plan_raw_rows(plan, &got))
		{
			if (got != cJSON_GetArraySize(rows))
				fail_msg("%s: plan has %lld rows, oracle %d", names[i], (long long) got,
						 cJSON_GetArraySize(rows));
			checked++;
		}
		ts_plan_free(plan);
		cJSON_Delete(o);
	}
	oracle_free_cases(names, n);
	printf("row-count cases checked (%s manifests): %d\n", ts_format_name(fmt), checked);
	return checked;
}

#endif							/* TS_SCAN_ORACLE_H */

