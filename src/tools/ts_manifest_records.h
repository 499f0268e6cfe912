/*
 * ts_manifest_records.h - the Paimon manifest record schemas our tools write.
 *
 * Owns: ManifestEntry (with DataFileMeta and SimpleStats) and
 * ManifestFileMeta as ts_field lists in the Paimon 1.1/1.2 layout, for the
 * Avro writer.  Included by src/tools/ts_gen.c and bench/ts_pq_register.c
 * (each tool is one .c file); the includer provides xcalloc() and
 * xstrdup() that never return NULL.
 */
#ifndef TS_MANIFEST_RECORDS_H
#define TS_MANIFEST_RECORDS_H

#include "base/ts_types.h"

static ts_type *
mk(ts_type_kind k, bool nullable)
{
	ts_type    *t = ts_type_new(k, nullable);

	if (t == NULL)
		die("out of memory");
	if (k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	return t;
}

static ts_type *
mk_array(ts_type *e, bool nullable)
{
	ts_type    *t = mk(TS_ARRAY, nullable);

	t->element = e;
	return t;
}

static ts_type *
mk_row(int n, const char *const *names, ts_type **types, bool nullable)
{
	ts_type    *t = mk(TS_ROW, nullable);

	t->nfields = n;
	t->fields = xcalloc((size_t) n, sizeof(ts_field));
	for (int i = 0; i < n; i++)
	{
		t->fields[i].id = i;
		t->fields[i].name = xstrdup(names[i]);
		t->fields[i].type = types[i];
	}
	return t;
}

static ts_type *
simple_stats_type(void)
{
	static const char *const names[] = {"_MIN_VALUES", "_MAX_VALUES", "_NULL_COUNTS"};
	ts_type    *types[3];

	types[0] = mk(TS_VARBINARY, false);
	types[1] = mk(TS_VARBINARY, false);
	types[2] = mk_array(mk(TS_BIGINT, true), true);
	return mk_row(3, names, types, false);
}

/*
 * ManifestEntry (Paimon 1.1/1.2 layout; with row_tracking the 1.3 one,
 * _FIRST_ROW_ID and _WRITE_COLS added to _FILE)
 */
static ts_field *
manifest_entry_fields_rt(int *n, bool row_tracking)
{
	static const char *const fnames[] = {
		"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS",
		"_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL",
		"_EXTRA_FILES", "_CREATION_TIME", "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX",
		"_FILE_SOURCE", "_VALUE_STATS_COLS", "_EXTERNAL_PATH", "_FIRST_ROW_ID", "_WRITE_COLS"
	};
	ts_type    *ft[20];
	ts_field   *f = xcalloc(6, sizeof(ts_field));
	ts_type    *ct;

	ft[0] = mk(TS_VARCHAR, false);
	ft[1] = mk(TS_BIGINT, false);
	ft[2] = mk(TS_BIGINT, false);
	ft[3] = mk(TS_VARBINARY, false);
	ft[4] = mk(TS_VARBINARY, false);
	ft[5] = simple_stats_type();
	ft[6] = simple_stats_type();
	ft[7] = mk(TS_BIGINT, false);
	ft[8] = mk(TS_BIGINT, false);
	ft[9] = mk(TS_BIGINT, false);
	ft[10] = mk(TS_INT, false);
	ft[11] = mk_array(mk(TS_VARCHAR, false), false);
	ct = mk(TS_TIMESTAMP, true);
	ct->precision = 3;
	ft[12] = ct;
	ft[13] = mk(TS_BIGINT, true);
	ft[14] = mk(TS_VARBINARY, true);
	ft[15] = mk(TS_TINYINT, true);
	ft[16] = mk_array(mk(TS_VARCHAR, false), true);
	ft[17] = mk(TS_VARCHAR, true);
	ft[18] = mk(TS_BIGINT, true);
	ft[19] = mk_array(mk(TS_VARCHAR, false), true);
	f[0] = (ts_field) {0, "_VERSION", mk(TS_INT, false), NULL};
	f[1] = (ts_field) {1, "_KIND", mk(TS_TINYINT, false), NULL};
	f[2] = (ts_field) {2, "_PARTITION", mk(TS_VARBINARY, false), NULL};
	f[3] = (ts_field) {3, "_BUCKET", mk(TS_INT, false), NULL};
	f[4] = (ts_field) {4, "_TOTAL_BUCKETS", mk(TS_INT, false), NULL};
	f[5] = (ts_field) {5, "_FILE", mk_row(row_tracking ? 20 : 18, fnames, ft, false), NULL};
	*n = 6;
	return f;
}

static ts_field *
manifest_entry_fields(int *n)
{
	return manifest_entry_fields_rt(n, false);
}

/* ManifestFileMeta (Paimon 1.1/1.2 layout) */
static ts_field *
manifest_list_fields(int *n)
{
	ts_field   *f = xcalloc(11, sizeof(ts_field));

	f[0] = (ts_field) {0, "_VERSION", mk(TS_INT, false), NULL};
	f[1] = (ts_field) {1, "_FILE_NAME", mk(TS_VARCHAR, false), NULL};
	f[2] = (ts_field) {2, "_FILE_SIZE", mk(TS_BIGINT, false), NULL};
	f[3] = (ts_field) {3, "_NUM_ADDED_FILES", mk(TS_BIGINT, false), NULL};
	f[4] = (ts_field) {4, "_NUM_DELETED_FILES", mk(TS_BIGINT, false), NULL};
	f[5] = (ts_field) {5, "_PARTITION_STATS", simple_stats_type(), NULL};
	f[6] = (ts_field) {6, "_SCHEMA_ID", mk(TS_BIGINT, false), NULL};
	f[7] = (ts_field) {7, "_MIN_BUCKET", mk(TS_INT, true), NULL};
	f[8] = (ts_field) {8, "_MAX_BUCKET", mk(TS_INT, true), NULL};
	f[9] = (ts_field) {9, "_MIN_LEVEL", mk(TS_INT, true), NULL};
	f[10] = (ts_field) {10, "_MAX_LEVEL", mk(TS_INT, true), NULL};
	*n = 11;
	return f;
}

#endif							/* TS_MANIFEST_RECORDS_H */
