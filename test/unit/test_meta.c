/*
 * test_meta.c - schema, snapshot, BinaryRow, partition path and stats
 * decoding against the real Java-written tables in ../shared/testdata,
 * the oracle files and the byte examples of PAIMON-FORMAT.md 5.7.
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/ts_fs.h"
#include "meta/binary_row.h"
#include "meta/meta_json.h"
#include "meta/partition.h"
#include "meta/schema.h"
#include "meta/snapshot.h"
#include "meta/stats.h"

/* ---- helpers ---------------------------------------------------------- */

static size_t
unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t		n = 0;

	for (const char *p = hex; *p && n < cap;)
	{
		unsigned	v;

		if (*p == ' ' || *p == '|')
		{
			p++;
			continue;
		}
		sscanf(p, "%2x", &v);
		out[n++] = (uint8_t) v;
		p += 2;
	}
	return n;
}

static ts_type *
T(const char *s)
{
	ts_err		err;
	ts_type    *t = ts_type_parse(s, &err);

	if (t == NULL)
		print_message("type \"%s\": %s\n", s, err.msg);
	assert_non_null(t);
	return t;
}

static char *
read_text(const char *path)
{
	uint8_t    *d = NULL;
	size_t		l;
	ts_err		err;

	if (!ts_read_whole_file(ts_fs_local_unconfined(), path, &d, &l, &err))
		return NULL;
	return (char *) d;
}

/* ---- walking every schema / snapshot / tag file -------------------------- */

typedef struct walk_counts
{
	int			schemas;
	int			snapshots;
	int			tags;
	int			tables;
	int			failures;
} walk_counts;

static int
max_min_versioned(const char *dir, const char *prefix, int64_t *mx, int64_t *mn)
{
	char	  **names;
	int			n,
				k = 0;
	ts_err		err;

	*mx = 0;
	*mn = 0;
	if (!ts_list_dir(ts_fs_local_unconfined(), dir, &names, &n, &err))
		return 0;
	for (int i = 0; i < n; i++)
	{
		const char *s = names[i];
		size_t		pl = strlen(prefix);
		char	   *end;
		long long	v;

		if (strncmp(s, prefix, pl) != 0 || s[pl] == '\0')
			continue;
		v = strtoll(s + pl, &end, 10);
		if (*end != '\0')
			continue;
		if (k == 0 || v > *mx)
			*mx = v;
		if (k == 0 || v < *mn)
			*mn = v;
		k++;
	}
	ts_free_names(names, n);
	return k;
}

static void
check_branch_root(const char *root, walk_counts *wc)
{
	char	   *sdir = ts_path_join(root, "schema");
	char	   *pdir = ts_path_join(root, "snapshot");
	char	   *tdir = ts_path_join(root, "tag");
	int64_t    *ids = NULL;
	int			n = 0;
	ts_err		err;

	wc->tables++;
	assert_true(ts_schema_list_ids(ts_fs_local_unconfined(), root, &ids, &n, &err));
	for (int i = 0; i < n; i++)
	{
		ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), root, ids[i], &err);

		if (s == NULL)
		{
			print_message("schema %s/%lld: %s\n", root, (long long) ids[i], err.msg);
			wc->failures++;
			continue;
		}
		/* every field has a type that prints and re-parses to an equal type */
		for (int f = 0; f < s->nfields; f++)
		{
			char	   *txt = ts_type_to_string(s->fields[f].type);
			ts_type    *back = txt ? ts_type_parse(txt, &err) : NULL;

			if (back == NULL || !ts_type_equal(back, s->fields[f].type) ||
				back->nullable != s->fields[f].type->nullable)
			{
				print_message("type round trip failed for %s in %s: %s\n",
							  s->fields[f].name, root, txt ? txt : "?");
				wc->failures++;
			}
			ts_type_free(back);
			ts_free(txt);
		}
		wc->schemas++;
		ts_schema_free(s);
	}
	ts_free(ids);

	if (ts_path_is_dir(ts_fs_local_unconfined(), pdir))
	{
		int64_t		mx,
					mn,
					latest = -1,
					earliest = -1;
		int			k = max_min_versioned(pdir, "snapshot-", &mx, &mn);

		for (int64_t id = mn; k > 0 && id <= mx; id++)
		{
			ts_snapshot *sn = ts_snapshot_load(ts_fs_local_unconfined(), root, id, &err);

			if (sn == NULL)
			{
				print_message("snapshot %s/%lld: %s\n", root, (long long) id, err.msg);
				wc->failures++;
				continue;
			}
			if (sn->id != id || sn->base_manifest_list == NULL || sn->delta_manifest_list == NULL)
				wc->failures++;
			wc->snapshots++;
			ts_snapshot_free(sn);
		}
		assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &latest, &err));
		assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), root, &earliest, &err));
		if (latest != (k ? mx : 0) || earliest != (k ? mn : 0))
		{
			print_message("%s: latest %lld earliest %lld, files say %lld..%lld\n", root,
						  (long long) latest, (long long) earliest, (long long) mn, (long long) mx);
			wc->failures++;
		}
	}
	if (ts_path_is_dir(ts_fs_local_unconfined(), tdir))
	{
		char	  **names;
		int			nn;

		assert_true(ts_list_dir(ts_fs_local_unconfined(), tdir, &names, &nn, &err));
		for (int i = 0; i < nn; i++)
		{
			ts_snapshot *sn;

			if (strncmp(names[i], "tag-", 4) != 0)
				continue;
			sn = ts_tag_load(ts_fs_local_unconfined(), root, names[i] + 4, &err);
			if (sn == NULL)
			{
				print_message("tag %s/%s: %s\n", root, names[i], err.msg);
				wc->failures++;
				continue;
			}
			wc->tags++;
			ts_snapshot_free(sn);
		}
		ts_free_names(names, nn);
	}
	ts_free(sdir);
	ts_free(pdir);
	ts_free(tdir);
}

static void
walk(const char *dir, int depth, walk_counts *wc)
{
	char	  **names;
	int			n;
	ts_err		err;
	char	   *schema_dir = ts_path_join(dir, "schema");

	if (ts_path_is_dir(ts_fs_local_unconfined(), schema_dir))
		check_branch_root(dir, wc);
	ts_free(schema_dir);
	if (depth > 6 || !ts_list_dir(ts_fs_local_unconfined(), dir, &names, &n, &err))
		return;
	for (int i = 0; i < n; i++)
	{
		char	   *sub;

		/* data/bucket/manifest directories hold no tables */
		if (strncmp(names[i], "bucket-", 7) == 0 || strchr(names[i], '=') ||
			strcmp(names[i], "manifest") == 0 || strcmp(names[i], "schema") == 0 ||
			strcmp(names[i], "snapshot") == 0 || strcmp(names[i], "index") == 0)
			continue;
		sub = ts_path_join(dir, names[i]);
		if (ts_path_is_dir(ts_fs_local_unconfined(), sub))
			walk(sub, depth + 1, wc);
		ts_free(sub);
	}
	ts_free_names(names, n);
}

static void
test_walk_all_metadata(void **state)
{
	walk_counts wc = {0};

	(void) state;
	walk(unit_shared_path("testdata"), 0, &wc);
	print_message("walked %d branch roots: %d schemas, %d snapshots, %d tags, %d failures\n",
				  wc.tables, wc.schemas, wc.snapshots, wc.tags, wc.failures);
	/* find ../shared/testdata -path '*schema/schema-*' | wc -l = 104 */
	assert_int_equal(wc.schemas, 104);
	assert_true(wc.snapshots >= 217);
	assert_int_equal(wc.failures, 0);
}

/* ---- specific schema facts ---------------------------------------------- */

static void
test_schema_nested_type(void **state)
{
	ts_err		err;
	ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path("testdata/parquet/pk_table_nested_type.db/pk_table_nested_type"), 0, &err);
	const ts_type *row,
			   *map;
	int		   *bk,
				nbk;

	(void) state;
	assert_non_null(s);
	assert_int_equal(s->version, 3);
	assert_int_equal(s->nfields, 6);
	assert_int_equal(s->highest_field_id, 8);
	assert_string_equal(s->fields[0].name, "shopId");
	assert_int_equal(s->fields[0].type->kind, TS_INT);
	assert_false(s->fields[0].type->nullable);
	assert_int_equal(s->fields[1].type->kind, TS_VARCHAR);
	assert_int_equal(s->fields[1].type->length, TS_STRING_LENGTH);
	assert_false(s->fields[1].type->nullable);
	assert_true(s->fields[3].type->nullable);
	row = s->fields[4].type;
	assert_int_equal(s->fields[4].id, 4);
	assert_int_equal(row->kind, TS_ROW);
	assert_int_equal(row->nfields, 3);
	assert_int_equal(row->fields[0].id, 5);
	assert_string_equal(row->fields[0].name, "f0");
	assert_int_equal(row->fields[1].id, 6);
	assert_int_equal(row->fields[2].id, 7);
	assert_int_equal(row->fields[2].type->kind, TS_ARRAY);
	assert_int_equal(row->fields[2].type->element->kind, TS_INT);
	map = s->fields[5].type;
	assert_int_equal(s->fields[5].id, 8);
	assert_int_equal(map->kind, TS_MAP);
	assert_int_equal(map->key->kind, TS_INT);
	assert_int_equal(map->value->kind, TS_INT);
	assert_int_equal(s->npartition_keys, 2);
	assert_string_equal(s->partition_keys[0], "dt");
	assert_string_equal(s->partition_keys[1], "hr");
	assert_int_equal(s->nprimary_keys, 3);
	assert_string_equal(ts_schema_option(s, "bucket"), "2");
	assert_string_equal(ts_schema_option(s, "file.format"), "parquet");
	assert_null(ts_schema_option(s, "nope"));
	assert_int_equal(ts_schema_field_index(s, "col2"), 5);
	assert_int_equal(ts_schema_field_index_by_id(s, 8), 5);
	assert_int_equal(ts_schema_field_index_by_id(s, 7), -1);
	assert_true(ts_schema_is_partition_key(s, "hr"));
	assert_true(ts_schema_bucket_keys(s, &bk, &nbk, &err));
	assert_int_equal(nbk, 1);
	assert_int_equal(bk[0], 0);
	ts_free(bk);
	assert_true(ts_schema_trimmed_primary_keys(s, &bk, &nbk, &err));
	assert_int_equal(nbk, 1);
	assert_int_equal(bk[0], 0);
	ts_free(bk);
	{
		char	   *txt = ts_type_to_string(row);

		assert_string_equal(txt, "ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>");
		ts_free(txt);
	}
	assert_int_equal(s->time_millis, 1755848431346LL);
	ts_schema_free(s);
}

static void
test_schema_timestamps(void **state)
{
	ts_err		err;
	ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path("testdata/avro/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone"), 0, &err);
	const int	prec[6] = {0, 3, 6, 0, 3, 6};

	(void) state;
	assert_non_null(s);
	assert_int_equal(s->nfields, 6);
	for (int i = 0; i < 6; i++)
	{
		assert_int_equal(s->fields[i].type->kind, i < 3 ? TS_TIMESTAMP : TS_TIMESTAMP_LTZ);
		assert_int_equal(s->fields[i].type->precision, prec[i]);
		assert_true(s->fields[i].type->nullable);
	}
	assert_string_equal(s->fields[3].name, "ts_tz_sec");
	assert_string_equal(ts_schema_option(s, "bucket"), "-1");
	ts_schema_free(s);
}

static void
test_type_grammar(void **state)
{
	ts_err		err;
	ts_type    *t;
	struct
	{
		const char *in;
		const char *out;
	}			cases[] = {
		{"int", "INT"},
		{"  Integer  not  null ", "INT NOT NULL"},
		{"BIGINT NULL", "BIGINT"},
		{"DOUBLE PRECISION", "DOUBLE"},
		{"STRING", "STRING"},
		{"VARCHAR(10)", "VARCHAR(10)"},
		{"VARCHAR", "VARCHAR(1)"},
		{"CHAR(3) NOT NULL", "CHAR(3) NOT NULL"},
		{"BYTES", "BYTES"},
		{"BINARY(4)", "BINARY(4)"},
		{"VARBINARY(7)", "VARBINARY(7)"},
		{"DECIMAL", "DECIMAL(10, 0)"},
		{"NUMERIC(5)", "DECIMAL(5, 0)"},
		{"dec(38, 10)", "DECIMAL(38, 10)"},
		{"TIME", "TIME(0)"},
		{"TIME(3) WITHOUT TIME ZONE", "TIME(3)"},
		{"TIMESTAMP", "TIMESTAMP(6)"},
		{"TIMESTAMP(9) WITHOUT TIME ZONE", "TIMESTAMP(9)"},
		{"timestamp(3) with local time zone", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP_LTZ(6)", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP_LTZ", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{"DATE NOT NULL", "DATE NOT NULL"},
		{"VARIANT", "VARIANT"},
		{"BLOB NOT NULL", "BLOB NOT NULL"},
		{"GEOMETRY", "GEOMETRY"},
		{"GEOMETRY(4326)", "GEOMETRY"},
		{"INT ARRAY", "ARRAY<INT>"},
		{"INT NOT NULL MULTISET NOT NULL", "MULTISET<INT NOT NULL> NOT NULL"},
		{"ARRAY<STRING>", "ARRAY<STRING>"},
		{"MAP<INT, ARRAY<BIGINT>>", "MAP<INT, ARRAY<BIGINT>>"},
		{"ROW<a INT, `b c` STRING NOT NULL>", "ROW<a INT, b c STRING NOT NULL>"},
		{"{\"type\":\"VECTOR\",\"element\":\"FLOAT\",\"length\":3}", "VECTOR<FLOAT, 3>"},
		{"{\"type\":\"ARRAY NOT NULL\",\"element\":\"INT\"}", "ARRAY<INT> NOT NULL"},
		{"{\"type\":\"MULTISET\",\"element\":\"STRING\"}", "MULTISET<STRING>"},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *s;

		t = ts_type_parse(cases[i].in, &err);
		if (t == NULL)
			print_message("\"%s\": %s\n", cases[i].in, err.msg);
		assert_non_null(t);
		s = ts_type_to_string(t);
		assert_string_equal(s, cases[i].out);
		ts_free(s);
		ts_type_free(t);
	}
	/* errors */
	assert_null(ts_type_parse("FOO", &err));
	assert_int_equal(err.code, TS_ERR_UNKNOWN_TYPE);
	assert_non_null(strstr(err.msg, "FOO"));
	assert_null(ts_type_parse("INT INT", &err));
	assert_int_equal(err.code, TS_ERR_UNKNOWN_TYPE);
	assert_null(ts_type_parse("DECIMAL(10", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_type_parse("DECIMAL(40, 2)", &err));
	assert_null(ts_type_parse("TIMESTAMP(12)", &err));
	assert_null(ts_type_parse("ARRAY<INT", &err));
	assert_null(ts_type_parse("{\"type\":\"ARRAY\"}", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_null(ts_type_parse("{\"type\":\"HYPERCUBE\"}", &err));
	assert_int_equal(err.code, TS_ERR_UNKNOWN_TYPE);
	/* equality ignores nullability and names */
	{
		ts_type    *a = T("ROW<a INT NOT NULL, b ARRAY<STRING>>");
		ts_type    *b = T("ROW<x INT, y ARRAY<STRING NOT NULL>>");
		ts_type    *c = T("ROW<x BIGINT, y ARRAY<STRING>>");
		ts_type    *d = ts_type_copy(a);

		assert_true(ts_type_equal(a, b));
		assert_false(ts_type_equal(a, c));
		assert_true(ts_type_equal(a, d));
		assert_string_equal(d->fields[0].name, "a");
		assert_false(d->fields[0].type->nullable);
		ts_type_free(a);
		ts_type_free(b);
		ts_type_free(c);
		ts_type_free(d);
	}
	assert_string_equal(ts_type_kind_name(TS_TIMESTAMP_LTZ), "TIMESTAMP WITH LOCAL TIME ZONE");
}

static void
test_schema_errors_and_defaults(void **state)
{
	ts_err		err;
	ts_schema  *s;
	int64_t    *ids;
	int			n;
	const char *old = "{\"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"a\", \"type\": \"INT\"}],"
		"\"partitionKeys\": [], \"primaryKeys\": [], \"options\": {}}";
	const char *v2 = "{\"version\": 2, \"id\": 0, \"fields\": [], \"options\": {\"bucket\": \"-1\"}}";
	const char *bad_type = "{\"version\": 3, \"id\": 0, \"fields\": [{\"id\": 0, \"name\": \"a\", \"type\": \"WIDGET(3)\"}]}";
	const char *bad_key = "{\"version\": 3, \"id\": 0, \"fields\": [], \"partitionKeys\": [\"zz\"]}";
	char	   *real = read_text(unit_shared_path("testdata/parquet/pk_table_nested_type.db/pk_table_nested_type/schema/schema-0"));

	(void) state;
	/* version 1 (absent) => bucket=1, file.format=orc */
	s = ts_schema_parse(old, strlen(old), "old", &err);
	assert_non_null(s);
	assert_int_equal(s->version, 1);
	assert_string_equal(ts_schema_option(s, "bucket"), "1");
	assert_string_equal(ts_schema_option(s, "file.format"), "orc");
	ts_schema_free(s);
	s = ts_schema_parse(v2, strlen(v2), "v2", &err);
	assert_non_null(s);
	assert_string_equal(ts_schema_option(s, "bucket"), "-1");
	assert_string_equal(ts_schema_option(s, "file.format"), "orc");
	ts_schema_free(s);
	/* unknown type names the type and the column */
	assert_null(ts_schema_parse(bad_type, strlen(bad_type), "bad", &err));
	assert_int_equal(err.code, TS_ERR_UNKNOWN_TYPE);
	assert_non_null(strstr(err.msg, "WIDGET"));
	assert_non_null(strstr(err.msg, "\"a\""));
	/* as a user sees it: the column, what names the schema, the type as written; the parser's words in the detail */
	assert_string_equal(err.msg, "column \"a\" of bad has type WIDGET(3), which this reader does not know");
	assert_non_null(strstr(err.detail, "unknown Paimon type \"WIDGET\""));
	assert_null(ts_schema_parse(bad_key, strlen(bad_key), "badkey", &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* every truncation of a real schema fails cleanly */
	assert_non_null(real);
	for (size_t cut = 0; cut < strlen(real) - 1; cut += 7)
	{
		s = ts_schema_parse(real, cut, "truncated", &err);
		assert_null(s);
		assert_true(err.code == TS_ERR_CORRUPT);
	}
	s = ts_schema_parse(real, strlen(real), "real", &err);
	assert_non_null(s);
	ts_schema_free(s);
	ts_free(real);
	/* missing schema dir */
	assert_true(ts_schema_list_ids(ts_fs_local_unconfined(), "/nonexistent/table", &ids, &n, &err));
	assert_int_equal(n, 0);
	assert_null(ts_schema_load(ts_fs_local_unconfined(), "/nonexistent/table", 0, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	/* a branch has its own schema dir */
	assert_true(ts_schema_list_ids(ts_fs_local_unconfined(), unit_shared_path("testdata/orc/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch/branch/branch-test"), &ids, &n, &err));
	assert_true(n >= 1);
	ts_free(ids);
}

/* ---- snapshots ------------------------------------------------------------- */

static void
test_snapshot_facts(void **state)
{
	ts_err		err;
	const char *pk09 = unit_shared_path("testdata/orc/pk_09.db/pk_09");
	ts_snapshot *s = ts_snapshot_load(ts_fs_local_unconfined(), pk09, 8, &err);
	char	  **names;
	int			n;
	int			bigs = 0;

	(void) state;
	assert_non_null(s);
	assert_int_equal(s->version, 3);
	assert_int_equal(s->id, 8);
	assert_int_equal(s->schema_id, 0);
	assert_string_equal(s->base_manifest_list, "manifest-list-289b0100-cbf7-443e-8ae1-1329a9690e89-2");
	assert_null(s->changelog_manifest_list);
	assert_string_equal(s->index_manifest, "index-manifest-bd43150e-cce1-4231-bfc1-8fdc2b0b5994-0");
	assert_int_equal(s->commit_identifier, 4);
	assert_string_equal(s->commit_kind, "COMPACT");
	assert_int_equal(s->time_millis, 1725600399550LL);
	assert_int_equal(s->total_record_count, 10);
	assert_int_equal(s->delta_record_count, -3);
	assert_false(s->has_watermark);
	assert_false(s->has_next_row_id);
	ts_snapshot_free(s);

	s = ts_snapshot_load(ts_fs_local_unconfined(), unit_shared_path("testdata/parquet/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact"), 4, &err);
	assert_non_null(s);
	assert_true(s->has_next_row_id);
	assert_int_equal(s->next_row_id, 4);
	ts_snapshot_free(s);

	/* commitIdentifier = Long.MAX_VALUE survives exactly (batch commits) */
	assert_true(ts_list_dir(ts_fs_local_unconfined(), unit_shared_path("testdata/orc/append_09.db/append_09/snapshot"), &names, &n, &err));
	for (int i = 0; i < n; i++)
	{
		int64_t		id;

		if (sscanf(names[i], "snapshot-%lld", (long long *) &id) != 1)
			continue;
		s = ts_snapshot_load(ts_fs_local_unconfined(), unit_shared_path("testdata/orc/append_09.db/append_09"), id, &err);
		assert_non_null(s);
		if (s->commit_identifier == INT64_MAX)
			bigs++;
		ts_snapshot_free(s);
	}
	ts_free_names(names, n);
	assert_true(bigs >= 1);

	assert_null(ts_snapshot_load(ts_fs_local_unconfined(), pk09, 99, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_null(ts_tag_load(ts_fs_local_unconfined(), pk09, "nope", &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "nope"));
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * The manifest lists' byte sizes (Paimon 1.1+) as the snapshot gives them:
 * a Java-written table's agree with its files (the prefetch of the lists
 * refuses a body of another length); absent or null, -1.
 */
static void
test_snapshot_list_sizes(void **state)
{
	const char *t = unit_shared_path("testdata/db_with_blob.db/table_with_blob");
	ts_err		err;
	ts_snapshot *s = ts_snapshot_load(ts_fs_local_unconfined(), t, 1, &err);
	struct stat st;
	char		path[1024];
	const char *json = "{\"id\": 1, \"schemaId\": 0, \"baseManifestList\": \"b\", "
		"\"deltaManifestList\": \"d\", \"deltaManifestListSize\": null, "
		"\"changelogManifestList\": \"c\", \"changelogManifestListSize\": 17}";

	(void) state;
	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/manifest/%s", t, s->base_manifest_list);
	assert_int_equal(stat(path, &st), 0);
	assert_true(s->base_manifest_list_size > 0);
	assert_int_equal(s->base_manifest_list_size, st.st_size);
	snprintf(path, sizeof(path), "%s/manifest/%s", t, s->delta_manifest_list);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(s->delta_manifest_list_size, st.st_size);
	assert_int_equal(s->changelog_manifest_list_size, -1);
	ts_snapshot_free(s);

	s = ts_snapshot_parse(json, strlen(json), "inline", &err);
	assert_non_null(s);
	assert_int_equal(s->base_manifest_list_size, -1);
	assert_int_equal(s->delta_manifest_list_size, -1);
	assert_int_equal(s->changelog_manifest_list_size, 17);
	ts_snapshot_free(s);
}

static void
test_snapshot_hints(void **state)
{
	char		root[256];
	char		sdir[300];
	char		tdir[300];
	ts_err		err;
	int64_t		id;
	ts_snapshot *s;
	char	   *real = read_text(unit_shared_path("testdata/orc/pk_09.db/pk_09/snapshot/snapshot-8"));
	const char *mini = "{\"id\": %d, \"schemaId\": 0, \"baseManifestList\": \"b\", "
		"\"deltaManifestList\": \"d\", \"changelogManifestList\": null, \"commitUser\": \"u\", "
		"\"commitIdentifier\": 9223372036854775807, \"commitKind\": \"APPEND\", \"timeMillis\": 1, "
		"\"watermark\": -9223372036854775808, \"unknownKey\": {\"x\": [1, 2]}}";
	char		buf[600];

	(void) state;
	snprintf(root, sizeof(root), "/tmp/ts_test_meta_%d", (int) getpid());
	snprintf(sdir, sizeof(sdir), "%s/snapshot", root);
	snprintf(tdir, sizeof(tdir), "%s/tag", root);
	mkdir(root, 0700);

	/* no snapshot dir: an empty table */
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 0);
	s = (ts_snapshot *) 1;
	assert_true(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_null(s);
	mkdir(sdir, 0700);
	mkdir(tdir, 0700);
	assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 0);
	/* a hint and no snapshot file at all: the hint's snapshot is reported missing */
	write_file(sdir, "LATEST", "2");
	assert_false(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_int_equal(err.code, TS_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "snapshot 2 of table"));
	{
		char		p[400];

		snprintf(p, sizeof(p), "%s/LATEST", sdir);
		assert_int_equal(unlink(p), 0);
	}

	for (int i = 3; i <= 5; i++)
	{
		char		name[32];

		snprintf(buf, sizeof(buf), mini, i);
		snprintf(name, sizeof(name), "snapshot-%d", i);
		write_file(sdir, name, buf);
	}
	write_file(sdir, "snapshot-9abc.tmp", "garbage");
	write_file(sdir, "snapshot-", "garbage");
	write_file(sdir, "snapshot-77x", "garbage");

	/* no hints: listing, unparsable names ignored */
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 5);
	assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 3);
	assert_true(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_non_null(s);
	assert_int_equal(s->id, 5);
	ts_snapshot_free(s);
	/* stale LATEST (snapshot-(N+1) exists) -> listing; good hint trusted */
	write_file(sdir, "LATEST", "4");
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 5);
	assert_true(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_int_equal(s->id, 5);
	ts_snapshot_free(s);
	write_file(sdir, "LATEST", "5");
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 5);
	assert_true(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_int_equal(s->id, 5);
	ts_snapshot_free(s);
	/*
	 * In two halves (a plan begins with the schema's GET): a stale hint is
	 * listed at begin, a good one trusted; a begun state not finished is
	 * freed; the hint's snapshot gone between the halves lists at finish.
	 */
	{
		ts_snapshot_latest L;
		char		p[400],
					moved[400];

		snprintf(moved, sizeof(moved), "%s/snapshot-5.moved", root);
		write_file(sdir, "LATEST", "4");
		assert_true(ts_snapshot_latest_begin(ts_fs_local_unconfined(), root, &L, &err));
		assert_true(L.begun);
		assert_false(L.from_hint);
		assert_int_equal(L.id, 5);
		assert_true(ts_snapshot_latest_finish(ts_fs_local_unconfined(), root, &L, &s, &err));
		assert_int_equal(s->id, 5);
		assert_false(L.begun);
		ts_snapshot_free(s);
		write_file(sdir, "LATEST", "5");
		assert_true(ts_snapshot_latest_begin(ts_fs_local_unconfined(), root, &L, &err));
		assert_true(L.from_hint);
		assert_int_equal(L.id, 5);
		ts_snapshot_latest_free(&L);
		assert_false(L.begun);
		ts_snapshot_latest_free(&L);	/* twice: nothing */
		assert_true(ts_snapshot_latest_begin(ts_fs_local_unconfined(), root, &L, &err));
		snprintf(p, sizeof(p), "%s/snapshot-5", sdir);
		assert_int_equal(rename(p, moved), 0);
		assert_true(ts_snapshot_latest_finish(ts_fs_local_unconfined(), root, &L, &s, &err));
		assert_int_equal(s->id, 4);
		ts_snapshot_free(s);
		assert_int_equal(rename(moved, p), 0);
	}
	/*
	 * Java trusts LATEST=N without checking snapshot-N itself; we verify it
	 * and fall back to listing when snapshot-N is missing (a damaged hint
	 * must not hide the table), so the newest existing snapshot wins.
	 */
	write_file(sdir, "LATEST", "7");
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 5);
	/* the same when snapshot-7 is read with no probe first: its 404 lists */
	assert_true(ts_snapshot_load_latest(ts_fs_local_unconfined(), root, &s, &err));
	assert_non_null(s);
	assert_int_equal(s->id, 5);
	ts_snapshot_free(s);
	write_file(sdir, "LATEST", "garbage");
	assert_true(ts_snapshot_latest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 5);
	/* EARLIEST pointing at an expired snapshot -> listing */
	write_file(sdir, "EARLIEST", "1");
	assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 3);
	write_file(sdir, "EARLIEST", "4");
	assert_true(ts_snapshot_earliest_id(ts_fs_local_unconfined(), root, &id, &err));
	assert_int_equal(id, 4);

	s = ts_snapshot_load(ts_fs_local_unconfined(), root, 4, &err);
	assert_non_null(s);
	assert_int_equal(s->commit_identifier, INT64_MAX);
	assert_false(s->has_watermark);
	assert_int_equal(s->total_record_count, -1);
	ts_snapshot_free(s);

	/* a snapshot whose id does not match its name is corrupt */
	snprintf(buf, sizeof(buf), mini, 42);
	write_file(sdir, "snapshot-6", buf);
	assert_null(ts_snapshot_load(ts_fs_local_unconfined(), root, 6, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* truncated JSON */
	write_file(sdir, "snapshot-6", "{\"id\": 6, \"schemaId\"");
	assert_null(ts_snapshot_load(ts_fs_local_unconfined(), root, 6, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* missing required field */
	write_file(sdir, "snapshot-6", "{\"id\": 6, \"schemaId\": 0}");
	assert_null(ts_snapshot_load(ts_fs_local_unconfined(), root, 6, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	assert_non_null(strstr(err.msg, "baseManifestList"));

	/* tag = a real snapshot JSON plus tag fields */
	assert_non_null(real);
	{
		size_t		l = strlen(real);
		char	   *tag = malloc(l + 200);

		while (l > 0 && real[l - 1] != '}')
			l--;
		snprintf(tag, l + 200, "%.*s, \"tagCreateTime\" : [ 2024, 9, 6, 13, 26, 39, 550000000 ], \"tagTimeRetained\" : 5.000000000 }",
				 (int) (l - 1), real);
		write_file(tdir, "tag-t1", tag);
		free(tag);
	}
	s = ts_tag_load(ts_fs_local_unconfined(), root, "t1", &err);
	if (s == NULL)
		print_message("%s\n", err.msg);
	assert_non_null(s);
	assert_int_equal(s->id, 8);
	assert_string_equal(s->commit_kind, "COMPACT");
	ts_snapshot_free(s);
	ts_free(real);
	{
		char		cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		assert_int_equal(system(cmd), 0);
	}
}

/* ---- BinaryRow ------------------------------------------------------------ */

typedef struct row_example
{
	const char *types[3];
	int			n;
	const char *hex;
} row_example;

static void
check_row_example(const row_example *ex, const char *expect_text[3])
{
	uint8_t		bytes[256];
	size_t		len = unhex(ex->hex, bytes, sizeof(bytes));
	ts_type    *t[3] = {0};
	ts_value	v[3];
	int			arity = -1;
	ts_err		err;
	ts_buf		b;

	for (int i = 0; i < ex->n; i++)
		t[i] = T(ex->types[i]);
	assert_int_equal(ts_binary_row_arity(bytes, len), ex->n);
	if (!ts_binary_row_decode(bytes, len, (const ts_type *const *) t, ex->n, v, &arity, NULL, &err))
		print_message("%s: %s\n", ex->hex, err.msg);
	assert_int_equal(arity, ex->n);
	for (int i = 0; i < ex->n; i++)
	{
		char	   *s = ts_value_to_string(&v[i], t[i]);

		assert_string_equal(s, expect_text[i]);
		ts_free(s);
	}
	ts_buf_init(&b);
	assert_true(ts_binary_row_encode((const ts_type *const *) t, v, ex->n, true, &b, &err));
	if (b.len != len || memcmp(b.data, bytes, len) != 0)
		print_message("re-encode of %s differs\n", ex->hex);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, bytes, len);
	ts_buf_free(&b);
	for (int i = 0; i < ex->n; i++)
		ts_type_free(t[i]);
}

static void
test_binary_row_examples(void **state)
{
	/* PAIMON-FORMAT.md 5.7 (and the verified key rows quoted there) */
	row_example ex[] = {
		{{"STRING"}, 1, "00000001 0000000000000000 0800000010000000 3230323430353134"},
		{{"INT", "STRING"}, 2, "00000002 0000000000000000 0a00000000000000 6162630000000083"},
		{{"STRING"}, 1, "00000001 0001000000000000 0000000000000000"},
		{{"DATE"}, 1, "00000001 0000000000000000 0b4d000000000000"},
		{{"DECIMAL(10, 2)"}, 1, "00000001 0000000000000000 d204000000000000"},
		{{"DECIMAL(20, 2)"}, 1, "00000001 0000000000000000 0100000010000000 ff00000000000000 0000000000000000"},
		{{"DECIMAL(20, 2)"}, 1, "00000001 0001000000000000 0000000010000000 0000000000000000 0000000000000000"},
		{{"TIMESTAMP(6)"}, 1, "00000001 0000000000000000 e803000010000000 00f451c28c010000"},
		{{"TIMESTAMP(3)"}, 1, "00000001 0000000000000000 00f451c28c010000"},
		{{"STRING", "INT"}, 2, "00000002 0000000000000000 416c696365000085 0100000000000000"},
		{{"INT"}, 1, "00000001 0000000000000000 0a00000000000000"},
	};
	const char *txt[][3] = {
		{"20240514"},
		{"10", "abc"},
		{"NULL"},
		{"2024-01-01"},
		{"12.34"},
		{"-0.01"},
		{"NULL"},
		{"2024-01-01T00:00:00.000001"},
		{"2024-01-01T00:00:00.000"},
		{"Alice", "1"},
		{"10"},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
		check_row_example(&ex[i], txt[i]);
}

static void
test_binary_row_errors(void **state)
{
	uint8_t		bytes[64];
	ts_type    *t = T("STRING");
	ts_type    *ti = T("INT");
	ts_type    *tn = T("ARRAY<INT>");
	ts_value	v[2];
	ts_err		err;
	size_t		len;

	(void) state;
	/* shorter than the arity prefix / fixed part */
	assert_false(ts_binary_row_decode(bytes, 3, (const ts_type *const *) &t, 1, v, NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	len = unhex("00000001 0000000000000000 08000000", bytes, sizeof(bytes));
	assert_false(ts_binary_row_decode(bytes, len, (const ts_type *const *) &t, 1, v, NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	/* var part outside the row */
	len = unhex("00000001 0000000000000000 0800000018000000 3230323430353134", bytes, sizeof(bytes));
	assert_false(ts_binary_row_decode(bytes, len, (const ts_type *const *) &t, 1, v, NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_CORRUPT);
	len = unhex("00000001 0000000000000000 08000000ffffffff 3230323430353134", bytes, sizeof(bytes));
	assert_false(ts_binary_row_decode(bytes, len, (const ts_type *const *) &t, 1, v, NULL, NULL, &err));
	/* negative / absurd arity */
	len = unhex("ffffffff 0000000000000000", bytes, sizeof(bytes));
	assert_false(ts_binary_row_decode(bytes, len, (const ts_type *const *) &t, 1, v, NULL, NULL, &err));
	assert_int_equal(ts_binary_row_arity(bytes, 2), -1);
	/* stored arity 1, asked for 2 fields: the second is NULL */
	len = unhex("00000001 0000000000000000 0a00000000000000", bytes, sizeof(bytes));
	{
		const ts_type *tt[2] = {ti, t};

		assert_true(ts_binary_row_decode(bytes, len, tt, 2, v, NULL, NULL, &err));
		assert_int_equal(v[0].v.i, 10);
		assert_true(v[1].isnull);
	}
	/* nested types inside rows: unsupported for now */
	assert_false(ts_binary_row_decode(bytes, len, (const ts_type *const *) &tn, 1, v, NULL, NULL, &err));
	assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
	ts_type_free(t);
	ts_type_free(ti);
	ts_type_free(tn);
}

static void
test_decimal_bytes_vectors(void **state)
{
	uint8_t    *data = NULL;
	size_t		len;
	ts_err		err;
	cJSON	   *root;
	const cJSON *it;
	ts_type    *t = T("DECIMAL(29, 29)");
	int			count = 0,
				bad = 0;

	(void) state;
	assert_true(ts_read_whole_file(ts_fs_local_unconfined(), unit_shared_path("oracle/decimal_bytes_vectors.json"), &data, &len, &err));
	root = ts_json_parse((const char *) data, len, "decimal_bytes_vectors.json", &err);
	assert_non_null(root);
	cJSON_ArrayForEach(it, root)
	{
		const char *uns = cJSON_GetObjectItem(it, "unscaled")->valuestring;
		const char *hex = cJSON_GetObjectItem(it, "unscaled_bytes_hex")->valuestring;
		uint8_t		want[32];
		size_t		wl = unhex(hex, want, sizeof(want));
		ts_value	v,
					back;
		ts_buf		b;
		const ts_type *tt[1] = {t};
		uint64_t	slot;

		memset(&v, 0, sizeof(v));
		/* the unscaled value as a DECIMAL(29, 29) */
		assert_true(ts_parse_decimal_text(uns, strlen(uns), 38, 0, &v.v.dec, &err));
		ts_buf_init(&b);
		assert_true(ts_binary_row_encode(tt, &v, 1, true, &b, &err));
		/* 4 prefix + 8 null bits + 8 slot + 16 var */
		assert_int_equal(b.len, 36);
		slot = ts_load_le64(b.data + 12);
		if ((slot & 0xffffffff) != wl || (slot >> 32) != 16 ||
			memcmp(b.data + 4 + 16, want, wl) != 0)
			bad++;
		assert_true(ts_binary_row_decode(b.data, b.len, tt, 1, &back, NULL, NULL, &err));
		if (back.v.dec != v.v.dec)
			bad++;
		ts_buf_free(&b);
		count++;
	}
	print_message("decimal bytes vectors: %d, %d bad\n", count, bad);
	assert_int_equal(count, 2000);
	assert_int_equal(bad, 0);
	cJSON_Delete(root);
	ts_free(data);
	ts_type_free(t);
}

/* ---- partitions ------------------------------------------------------------- */

static char *
path_of(const ts_schema *s, const char *const *texts, ts_err *err)
{
	const char *keys[8];
	const ts_type *types[8];
	ts_value	vals[8];
	ts_partition_options o;

	assert_true(ts_partition_options_from_schema(s, &o, err));
	for (int i = 0; i < s->npartition_keys; i++)
	{
		int			idx = ts_schema_field_index(s, s->partition_keys[i]);

		keys[i] = s->partition_keys[i];
		types[i] = s->fields[idx].type;
		if (texts[i] == NULL)
		{
			memset(&vals[i], 0, sizeof(ts_value));
			vals[i].isnull = true;
		}
		else
			assert_true(ts_partition_parse_value(texts[i], types[i], &o, &vals[i], NULL, err));
	}
	return ts_partition_path(keys, types, vals, s->npartition_keys, &o, err);
}

/*
 * Every partition named by the oracle's expected/read splits: the computed
 * path + bucket-N must be an existing directory of the table (and equal
 * the oracle's bucket_dir when given).
 */
static void
test_partition_paths_oracle(void **state)
{
	char	  **names;
	int			n,
				checked = 0,
				bad = 0;
	ts_err		err;

	(void) state;
	assert_true(ts_list_dir(ts_fs_local_unconfined(), unit_shared_path("oracle"), &names, &n, &err));
	for (int f = 0; f < n; f++)
	{
		char	   *text;
		cJSON	   *root;
		const cJSON *table;
		char		rel[600];
		const char *lists[2] = {"expected_splits", "read_splits"};
		ts_schema  *s = NULL;
		int64_t    *ids;
		int			nid;
		char		troot[1024];

		if (strstr(names[f], "vectors") || !strstr(names[f], ".json"))
			continue;
		snprintf(rel, sizeof(rel), "oracle/%s", names[f]);
		text = read_text(unit_shared_path(rel));
		root = ts_json_parse(text, strlen(text), names[f], &err);
		assert_non_null(root);
		table = cJSON_GetObjectItem(root, "table");
		if (cJSON_IsString(table))
		{
			snprintf(troot, sizeof(troot), "%s/testdata/%s", unit_shared_dir(), table->valuestring);
			if (ts_schema_list_ids(ts_fs_local_unconfined(), troot, &ids, &nid, &err) && nid > 0)
			{
				s = ts_schema_load(ts_fs_local_unconfined(), troot, ids[nid - 1], &err);
				ts_free(ids);
			}
		}
		for (int l = 0; s && s->npartition_keys > 0 && l < 2; l++)
		{
			const cJSON *arr = cJSON_GetObjectItem(root, lists[l]);
			const cJSON *sp;

			cJSON_ArrayForEach(sp, arr)
			{
				const cJSON *part = cJSON_GetObjectItem(sp, "partition");
				const cJSON *bdir = cJSON_GetObjectItem(sp, "bucket_dir");
				const cJSON *bucket = cJSON_GetObjectItem(sp, "bucket");
				const char *texts[8];
				char		bufs[8][64];
				char	   *path;
				char		full[2048];

				if (!cJSON_IsObject(part) || !cJSON_IsNumber(bucket))
					continue;
				for (int k = 0; k < s->npartition_keys; k++)
				{
					const cJSON *pv = cJSON_GetObjectItem(part, s->partition_keys[k]);

					if (cJSON_IsString(pv))
						texts[k] = pv->valuestring;
					else if (cJSON_IsNumber(pv))
					{
						snprintf(bufs[k], sizeof(bufs[k]), "%lld", (long long) pv->valuedouble);
						texts[k] = bufs[k];
					}
					else
						texts[k] = NULL;
				}
				path = path_of(s, texts, &err);
				assert_non_null(path);
				snprintf(full, sizeof(full), "%s/%sbucket-%d", troot, path, bucket->valueint);
				if (!ts_path_is_dir(ts_fs_local_unconfined(), full))
				{
					print_message("%s: %s does not exist\n", names[f], full);
					bad++;
				}
				if (cJSON_IsString(bdir))
				{
					char		want[600];

					snprintf(want, sizeof(want), "%sbucket-%d", path, bucket->valueint);
					if (strcmp(want, bdir->valuestring) != 0)
					{
						print_message("%s: %s != %s\n", names[f], want, bdir->valuestring);
						bad++;
					}
				}
				ts_free(path);
				checked++;
			}
		}
		ts_schema_free(s);
		cJSON_Delete(root);
		ts_free(text);
	}
	ts_free_names(names, n);
	print_message("partition paths: %d splits checked, %d bad\n", checked, bad);
	assert_true(checked >= 90);
	assert_int_equal(bad, 0);
}

static void
test_partition_paths_empty_values(void **state)
{
	const char *tables[] = {
		"testdata/parquet/append_with_empty_partition_with_empty_value.db/append_with_empty_partition_with_empty_value",
		"testdata/orc/append_with_empty_partition.db/append_with_empty_partition",
	};
	const char *vals[] = {"", " ", "\t \xe3\x80\x80", NULL, "2024", "2025"};
	const char *want[] = {
		"f0=__DEFAULT_PARTITION__/", "f0=__DEFAULT_PARTITION__/", "f0=__DEFAULT_PARTITION__/",
		"f0=__DEFAULT_PARTITION__/", "f0=2024/", "f0=2025/",
	};
	ts_err		err;

	(void) state;
	for (int t = 0; t < 2; t++)
	{
		ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path(tables[t]), 0, &err);

		assert_non_null(s);
		assert_int_equal(s->npartition_keys, 1);
		for (int i = 0; i < 6; i++)
		{
			const char *texts[1] = {vals[i]};
			char	   *p = path_of(s, texts, &err);
			char		full[1024];

			assert_string_equal(p, want[i]);
			snprintf(full, sizeof(full), "%s/%s", unit_shared_path(tables[t]), p);
			assert_true(ts_path_is_dir(ts_fs_local_unconfined(), full));
			ts_free(p);
		}
		ts_schema_free(s);
	}
	/* two keys: STRING dt + INT hr */
	{
		ts_schema  *s = ts_schema_load(ts_fs_local_unconfined(), unit_shared_path("testdata/parquet/pk_table_nested_type.db/pk_table_nested_type"), 0, &err);
		const char *texts[2] = {"2025-04-14", "10"};
		char	   *p;
		char		full[1024];

		assert_non_null(s);
		p = path_of(s, texts, &err);
		assert_string_equal(p, "dt=2025-04-14/hr=10/");
		snprintf(full, sizeof(full), "%s/%s", unit_shared_path("testdata/orc/pk_table_nested_type.db/pk_table_nested_type"), p);
		assert_true(ts_path_is_dir(ts_fs_local_unconfined(), full));
		ts_free(p);
		ts_schema_free(s);
	}
}

static char *
one_path(const char *type, const char *value_text, bool legacy)
{
	ts_err		err;
	ts_type    *t = T(type);
	ts_value	v;
	ts_partition_options o = {legacy, TS_DEFAULT_PARTITION_NAME};
	const char *k = "p";
	const ts_type *tt[1] = {t};
	char	   *p;

	if (!ts_partition_parse_value(value_text, t, &o, &v, NULL, &err))
		print_message("parse %s as %s: %s\n", value_text, type, err.msg);
	p = ts_partition_path(&k, tt, &v, 1, &o, &err);
	if (p == NULL)
		print_message("path: %s\n", err.msg);
	ts_type_free(t);
	return p;
}

static void
check_path(const char *type, const char *value_text, bool legacy, const char *want)
{
	char	   *p = one_path(type, value_text, legacy);

	assert_non_null(p);
	assert_string_equal(p, want);
	ts_free(p);
}

static void
test_partition_strings(void **state)
{
	ts_err		err;
	ts_value	v;
	ts_type    *t;
	char	   *s;

	(void) state;
	/* escaping (PartitionPathUtils.escapePathName) */
	check_path("STRING", "a/b:c", true, "p=a%2Fb%3Ac/");
	check_path("STRING", "x=1?#%'*\\\"{}[]^", true, "p=x%3D1%3F%23%25%27%2A%5C%22%7B%7D%5B%5D%5E/");
	check_path("STRING", "\x01tab\x7f", true, "p=%01tab%7F/");
	check_path("STRING", "caf\xc3\xa9 ok-_.,;!@$&()+~ <>|`", true, "p=caf\xc3\xa9 ok-_.,;!@$&()+~ <>|`/");
	/* no-break space is not Java whitespace */
	check_path("STRING", "\xc2\xa0", true, "p=\xc2\xa0/");
	/* legacy vs cast-to-string */
	check_path("DATE", "2024-01-01", true, "p=19723/");
	check_path("DATE", "19723", false, "p=2024-01-01/");
	check_path("INT", "-5", true, "p=-5/");
	check_path("BOOLEAN", "true", true, "p=true/");
	check_path("DECIMAL(10, 2)", "12.3", true, "p=12.30/");
	check_path("DECIMAL(10, 2)", "-0.05", true, "p=-0.05/");
	check_path("DOUBLE", "1.0", true, "p=1.0/");
	check_path("DOUBLE", "10000000000", true, "p=1.0E10/");
	check_path("DOUBLE", "0.001", true, "p=0.001/");
	check_path("DOUBLE", "0.0001", true, "p=1.0E-4/");
	check_path("DOUBLE", "123456.789", true, "p=123456.789/");
	check_path("FLOAT", "0.1", true, "p=0.1/");
	check_path("TIMESTAMP(3)", "2024-01-01 00:00:00", true, "p=2024-01-01T00%3A00/");
	check_path("TIMESTAMP(3)", "2024-01-01 00:00:00", false, "p=2024-01-01 00%3A00%3A00.000/");
	check_path("TIMESTAMP(6)", "2024-01-01T00:00:00.000001", true, "p=2024-01-01T00%3A00%3A00.000001/");
	check_path("TIMESTAMP(9)", "2024-01-01T10:20:30.120", true, "p=2024-01-01T10%3A20%3A30.120/");
	check_path("TIMESTAMP(9)", "2024-01-01T10:20:30.1200", false, "p=2024-01-01 10%3A20%3A30.120000000/");
	check_path("TIMESTAMP(3)", "2024-01-01T10:20:30.1", false, "p=2024-01-01 10%3A20%3A30.100/");
	check_path("TIMESTAMP(3)", "2024-01-01T10:20:30.123456", false, "p=2024-01-01 10%3A20%3A30.123456/");
	check_path("TIMESTAMP(0)", "2024-01-01T10:20:30", false, "p=2024-01-01 10%3A20%3A30/");
	check_path("STRING", "__DEFAULT_PARTITION__", true, "p=__DEFAULT_PARTITION__/");
	/* custom default name */
	{
		ts_type    *st = T("STRING");
		ts_partition_options o = {true, "NULLPART"};
		const char *k = "p";
		const ts_type *tt[1] = {st};
		ts_value	nv = {.isnull = true};
		char	   *p = ts_partition_path(&k, tt, &nv, 1, &o, &err);

		assert_string_equal(p, "p=NULLPART/");
		ts_free(p);
		assert_true(ts_partition_parse_value("NULLPART", st, &o, &v, NULL, &err));
		assert_true(v.isnull);
		ts_type_free(st);
	}
	/* unreproducible types fail closed */
	{
		ts_type    *bt = T("BYTES");
		ts_value	bv = {0};
		char	   *out;

		bv.v.s.p = (const uint8_t *) "ab";
		bv.v.s.len = 2;
		assert_false(ts_partition_value_string(&bv, bt, true, &out, &err));
		assert_int_equal(err.code, TS_ERR_UNSUPPORTED);
		ts_type_free(bt);
	}
	/* every byte, alone, by the rule of escapePathName; the same appended to a buffer */
	for (int c = 1; c < 256; c++)
	{
		char		in[2] = {(char) c, 0};
		char		want[4];
		bool		esc = c < 0x20 || c == 0x7F || (c < 128 && strchr("\"#%'*/:=?\\{}[]^", c));
		ts_buf		b;

		if (esc)
			snprintf(want, sizeof(want), "%%%02X", c);
		else
			snprintf(want, sizeof(want), "%c", c);
		s = ts_partition_escape(in);
		assert_string_equal(s, want);
		ts_free(s);
		ts_buf_init(&b);
		assert_true(ts_buf_append(&b, "k=", 2, &err));
		assert_true(ts_partition_escape_append(&b, in, &err));
		assert_int_equal(b.len, 2 + strlen(want));
		assert_memory_equal(b.data + 2, want, strlen(want));
		ts_buf_free(&b);
	}
	/* unescape */
	s = ts_partition_unescape("a%2Fb%3ac%zz%4");
	assert_string_equal(s, "a/b:c%zz%4");
	ts_free(s);
	assert_true(ts_partition_is_blank(""));
	assert_true(ts_partition_is_blank(NULL));
	assert_false(ts_partition_is_blank(" x "));

	/* partition_filter parsing */
	t = T("INT");
	assert_true(ts_partition_parse_value("10", t, NULL, &v, NULL, &err));
	assert_false(v.isnull);
	assert_int_equal(v.v.i, 10);
	assert_true(ts_partition_parse_value("__DEFAULT_PARTITION__", t, NULL, &v, NULL, &err));
	assert_true(v.isnull);
	assert_false(ts_partition_parse_value("ten", t, NULL, &v, NULL, &err));
	assert_int_equal(err.code, TS_ERR_INVALID);
	assert_non_null(strstr(err.msg, "ten"));
	assert_false(ts_partition_parse_value("3000000000", t, NULL, &v, NULL, &err));
	ts_type_free(t);
	t = T("STRING");
	assert_true(ts_partition_parse_value("", t, NULL, &v, NULL, &err));
	assert_false(v.isnull);
	assert_int_equal(v.v.s.len, 0);
	ts_type_free(t);
	t = T("DATE");
	assert_true(ts_partition_parse_value("2024-01-01", t, NULL, &v, NULL, &err));
	assert_int_equal(v.v.i, 19723);
	assert_false(ts_partition_parse_value("2024-02-30", t, NULL, &v, NULL, &err));
	ts_type_free(t);
	/* display */
	{
		struct
		{
			const char *type;
			const char *in;
			const char *out;
		}			dc[] = {
			{"DATE", "19723", "2024-01-01"},
			{"INT", "10", "10"},
			{"STRING", "a b", "a b"},
			{"DECIMAL(5, 2)", "1.5", "1.50"},
			{"TIMESTAMP(6)", "2024-01-01T00:00:00.000001", "2024-01-01 00:00:00.000001"},
			{"TIMESTAMP(3) WITH LOCAL TIME ZONE", "2024-01-01T10:00:00", "2024-01-01 10:00:00+00"},
			{"BOOLEAN", "false", "false"},
		};

		for (size_t i = 0; i < sizeof(dc) / sizeof(dc[0]); i++)
		{
			char	   *d;

			t = T(dc[i].type);
			assert_true(ts_partition_parse_value(dc[i].in, t, NULL, &v, NULL, &err));
			assert_true(ts_partition_value_display(&v, t, &d, &err));
			assert_string_equal(d, dc[i].out);
			ts_free(d);
			assert_true(ts_partition_parse_value("__DEFAULT_PARTITION__", t, NULL, &v, NULL, &err));
			assert_true(ts_partition_value_display(&v, t, &d, &err));
			assert_null(d);
			ts_type_free(t);
		}
	}
}

/* ---- stats ------------------------------------------------------------- */

static void
test_stats_decode(void **state)
{
	ts_type    *t[4];
	const char *names[4] = {"a", "b", "c", "d"};
	ts_value	mn[2],
				mx[2];
	ts_buf		bmin,
				bmax;
	ts_err		err;
	ts_simple_stats st;
	int64_t		nc[2] = {3, -1};
	ts_column_stats out[4];
	char	   *dense[2] = {"d", "b"};

	(void) state;
	t[0] = T("INT");
	t[1] = T("STRING");
	t[2] = T("ARRAY<INT>");
	t[3] = T("BIGINT");
	/* dense: stats for d (BIGINT) then b (STRING) */
	memset(mn, 0, sizeof(mn));
	memset(mx, 0, sizeof(mx));
	mn[0].v.i = -7;
	mx[0].v.i = 1234567890123LL;
	mn[1].v.s.p = (const uint8_t *) "Alice";
	mn[1].v.s.len = 5;
	mx[1].isnull = true;
	{
		const ts_type *dt[2] = {t[3], t[1]};

		ts_buf_init(&bmin);
		ts_buf_init(&bmax);
		assert_true(ts_binary_row_encode(dt, mn, 2, true, &bmin, &err));
		assert_true(ts_binary_row_encode(dt, mx, 2, true, &bmax, &err));
	}
	st.min_values.data = bmin.data;
	st.min_values.len = (uint32_t) bmin.len;
	st.max_values.data = bmax.data;
	st.max_values.len = (uint32_t) bmax.len;
	st.nnull_counts = 2;
	st.null_counts = nc;
	assert_true(ts_stats_decode(&st, (const ts_type *const *) t, names, 4, dense, 2, NULL, out, &err));
	assert_true(out[0].min.isnull);
	assert_int_equal(out[0].null_count, -1);
	assert_false(out[3].min.isnull);
	assert_int_equal(out[3].min.v.i, -7);
	assert_int_equal(out[3].max.v.i, 1234567890123LL);
	assert_int_equal(out[3].null_count, 3);
	assert_int_equal(out[1].min.v.s.len, 5);
	assert_memory_equal(out[1].min.v.s.p, "Alice", 5);
	assert_true(out[1].max.isnull);
	assert_int_equal(out[1].null_count, -1);
	assert_true(out[2].min.isnull);

	/* all-columns mode with a row shorter than the schema (arity 2 of 4) */
	{
		ts_value	full[2];
		ts_buf		b;
		const ts_type *ft[2] = {t[0], t[1]};

		memset(full, 0, sizeof(full));
		full[0].v.i = 42;
		full[1].v.s.p = (const uint8_t *) "a much longer string value";
		full[1].v.s.len = 26;
		ts_buf_init(&b);
		assert_true(ts_binary_row_encode(ft, full, 2, true, &b, &err));
		st.min_values.data = b.data;
		st.min_values.len = (uint32_t) b.len;
		st.max_values.data = NULL;
		st.nnull_counts = -1;
		assert_true(ts_stats_decode(&st, (const ts_type *const *) t, names, 4, NULL, -1, NULL, out, &err));
		assert_int_equal(out[0].min.v.i, 42);
		assert_int_equal(out[1].min.v.s.len, 26);
		assert_true(out[2].min.isnull);
		assert_true(out[3].min.isnull);
		assert_true(out[0].max.isnull);
		assert_int_equal(out[0].null_count, -1);
		/* corrupt: truncated row */
		st.min_values.len = 10;
		assert_false(ts_stats_decode(&st, (const ts_type *const *) t, names, 4, NULL, -1, NULL, out, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
		ts_buf_free(&b);
	}
	/* a dense name that is not a column */
	{
		char	   *bad[1] = {"zz"};

		assert_false(ts_stats_decode(&st, (const ts_type *const *) t, names, 4, bad, 1, NULL, out, &err));
		assert_int_equal(err.code, TS_ERR_CORRUPT);
	}
	ts_buf_free(&bmin);
	ts_buf_free(&bmax);
	for (int i = 0; i < 4; i++)
		ts_type_free(t[i]);
}

/* Mutated inputs must give errors, never crashes (run under ASAN/UBSAN). */
static void
test_hostile_inputs(void **state)
{
	char	   *real = read_text(unit_shared_path("testdata/parquet/pk_table_nested_type.db/pk_table_nested_type/schema/schema-0"));
	char	   *snap = read_text(unit_shared_path("testdata/orc/pk_09.db/pk_09/snapshot/snapshot-8"));
	size_t		rl = strlen(real),
				sl = strlen(snap);
	char	   *buf = malloc(rl + sl + 1);
	ts_err		err;
	unsigned	seed = 12345;
	const char *tnames[] = {"STRING", "INT", "DECIMAL(20, 2)", "TIMESTAMP(6)", "BYTES", "DOUBLE", "DECIMAL(5, 1)", "TIMESTAMP(3)"};
	ts_type    *types[8];

	(void) state;
	for (int i = 0; i < 8; i++)
		types[i] = T(tnames[i]);
	for (int iter = 0; iter < 3000; iter++)
	{
		const char *src = (iter & 1) ? snap : real;
		size_t		l = (iter & 1) ? sl : rl;

		memcpy(buf, src, l);
		for (int m = 0; m < 1 + iter % 4; m++)
		{
			seed = seed * 1103515245 + 12345;
			buf[(seed >> 8) % l] = (char) (seed >> 16);
		}
		if (iter & 1)
			ts_snapshot_free(ts_snapshot_parse(buf, l, "fuzz", &err));
		else
			ts_schema_free(ts_schema_parse(buf, l, "fuzz", &err));
	}
	for (int iter = 0; iter < 20000; iter++)
	{
		uint8_t		row[64];
		ts_value	v[8];
		size_t		l;

		seed = seed * 1103515245 + 12345;
		l = 4 + (seed >> 8) % 60;
		for (size_t k = 0; k < l; k++)
		{
			seed = seed * 1103515245 + 12345;
			row[k] = (uint8_t) (seed >> 16);
		}
		row[0] = row[1] = row[2] = 0;
		row[3] = (uint8_t) (iter % 9);
		(void) ts_binary_row_decode(row, l, (const ts_type *const *) types, 8, v, NULL, NULL, &err);
	}
	for (int i = 0; i < 8; i++)
		ts_type_free(types[i]);
	free(buf);
	ts_free(real);
	ts_free(snap);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_all_metadata),
		cmocka_unit_test(test_schema_nested_type),
		cmocka_unit_test(test_schema_timestamps),
		cmocka_unit_test(test_type_grammar),
		cmocka_unit_test(test_schema_errors_and_defaults),
		cmocka_unit_test(test_snapshot_facts),
		cmocka_unit_test(test_snapshot_list_sizes),
		cmocka_unit_test(test_snapshot_hints),
		cmocka_unit_test(test_binary_row_examples),
		cmocka_unit_test(test_binary_row_errors),
		cmocka_unit_test(test_decimal_bytes_vectors),
		cmocka_unit_test(test_partition_paths_oracle),
		cmocka_unit_test(test_partition_paths_empty_values),
		cmocka_unit_test(test_partition_strings),
		cmocka_unit_test(test_stats_decode),
		cmocka_unit_test(test_hostile_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
