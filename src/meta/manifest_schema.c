/*
 * manifest_schema.c - the manifest record schemas (manifest_schema.h).
 *
 * Owns: building the ts_field trees of ManifestEntry and ManifestFileMeta
 * as Java Paimon 1.1/1.2 declares them (ManifestEntry.SCHEMA,
 * DataFileMeta.SCHEMA, SimpleStats.SCHEMA, ManifestFileMeta.SCHEMA).
 */
#include <string.h>

#include "base/ts_base.h"
#include "meta/manifest_schema.h"

/* allocation failures are remembered and reported once at the end */
typedef struct builder
{
	bool		failed;
} builder;

static ts_type *
mk(builder *b, ts_type_kind k, bool nullable)
{
	ts_type    *t = ts_type_new(k, nullable);

	if (t == NULL)
	{
		b->failed = true;
		return NULL;
	}
	if (k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	return t;
}

static ts_type *
mk_array(builder *b, ts_type *e, bool nullable)
{
	ts_type    *t = mk(b, TS_ARRAY, nullable);

	if (t != NULL)
		t->element = e;
	return t;
}

static ts_type *
mk_row(builder *b, int n, const char *const *names, ts_type **types, bool nullable)
{
	ts_type    *t = mk(b, TS_ROW, nullable);

	if (t == NULL)
		return NULL;
	t->nfields = n;
	t->fields = ts_calloc((size_t) n, sizeof(ts_field));
	if (t->fields == NULL)
	{
		b->failed = true;
		return t;
	}
	for (int i = 0; i < n; i++)
	{
		t->fields[i].id = i;
		t->fields[i].name = ts_strdup(names[i]);
		t->fields[i].type = types[i];
		if (t->fields[i].name == NULL)
			b->failed = true;
	}
	return t;
}

static ts_type *
simple_stats_type(builder *b)
{
	static const char *const names[] = {"_MIN_VALUES", "_MAX_VALUES", "_NULL_COUNTS"};
	ts_type    *types[3];

	types[0] = mk(b, TS_VARBINARY, false);
	types[1] = mk(b, TS_VARBINARY, false);
	types[2] = mk_array(b, mk(b, TS_BIGINT, true), true);
	return mk_row(b, 3, names, types, false);
}

static ts_field
field(builder *b, int id, const char *name, ts_type *type)
{
	ts_field	f = {id, ts_strdup(name), type, NULL};

	if (f.name == NULL)
		b->failed = true;
	return f;
}

ts_field *
ts_manifest_entry_fields(bool row_tracking, int *n)
{
	static const char *const fnames[] = {
		"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS",
		"_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL",
		"_EXTRA_FILES", "_CREATION_TIME", "_DELETE_ROW_COUNT", "_EMBEDDED_FILE_INDEX",
		"_FILE_SOURCE", "_VALUE_STATS_COLS", "_EXTERNAL_PATH", "_FIRST_ROW_ID", "_WRITE_COLS"
	};
	builder		b = {false};
	ts_type    *ft[20];
	ts_field   *f = ts_calloc(6, sizeof(ts_field));
	ts_type    *ct;

	if (f == NULL)
		return NULL;
	ft[0] = mk(&b, TS_VARCHAR, false);
	ft[1] = mk(&b, TS_BIGINT, false);
	ft[2] = mk(&b, TS_BIGINT, false);
	ft[3] = mk(&b, TS_VARBINARY, false);
	ft[4] = mk(&b, TS_VARBINARY, false);
	ft[5] = simple_stats_type(&b);
	ft[6] = simple_stats_type(&b);
	ft[7] = mk(&b, TS_BIGINT, false);
	ft[8] = mk(&b, TS_BIGINT, false);
	ft[9] = mk(&b, TS_BIGINT, false);
	ft[10] = mk(&b, TS_INT, false);
	ft[11] = mk_array(&b, mk(&b, TS_VARCHAR, false), false);
	ct = mk(&b, TS_TIMESTAMP, true);
	if (ct != NULL)
		ct->precision = 3;
	ft[12] = ct;
	ft[13] = mk(&b, TS_BIGINT, true);
	ft[14] = mk(&b, TS_VARBINARY, true);
	ft[15] = mk(&b, TS_TINYINT, true);
	ft[16] = mk_array(&b, mk(&b, TS_VARCHAR, false), true);
	ft[17] = mk(&b, TS_VARCHAR, true);
	ft[18] = mk(&b, TS_BIGINT, true);
	ft[19] = mk_array(&b, mk(&b, TS_VARCHAR, false), true);
	f[0] = field(&b, 0, "_VERSION", mk(&b, TS_INT, false));
	f[1] = field(&b, 1, "_KIND", mk(&b, TS_TINYINT, false));
	f[2] = field(&b, 2, "_PARTITION", mk(&b, TS_VARBINARY, false));
	f[3] = field(&b, 3, "_BUCKET", mk(&b, TS_INT, false));
	f[4] = field(&b, 4, "_TOTAL_BUCKETS", mk(&b, TS_INT, false));
	f[5] = field(&b, 5, "_FILE", mk_row(&b, row_tracking ? 20 : 18, fnames, ft, false));
	*n = 6;
	return b.failed ? NULL : f;
}

ts_field *
ts_manifest_list_fields(int *n)
{
	builder		b = {false};
	ts_field   *f = ts_calloc(11, sizeof(ts_field));

	if (f == NULL)
		return NULL;
	f[0] = field(&b, 0, "_VERSION", mk(&b, TS_INT, false));
	f[1] = field(&b, 1, "_FILE_NAME", mk(&b, TS_VARCHAR, false));
	f[2] = field(&b, 2, "_FILE_SIZE", mk(&b, TS_BIGINT, false));
	f[3] = field(&b, 3, "_NUM_ADDED_FILES", mk(&b, TS_BIGINT, false));
	f[4] = field(&b, 4, "_NUM_DELETED_FILES", mk(&b, TS_BIGINT, false));
	f[5] = field(&b, 5, "_PARTITION_STATS", simple_stats_type(&b));
	f[6] = field(&b, 6, "_SCHEMA_ID", mk(&b, TS_BIGINT, false));
	f[7] = field(&b, 7, "_MIN_BUCKET", mk(&b, TS_INT, true));
	f[8] = field(&b, 8, "_MAX_BUCKET", mk(&b, TS_INT, true));
	f[9] = field(&b, 9, "_MIN_LEVEL", mk(&b, TS_INT, true));
	f[10] = field(&b, 10, "_MAX_LEVEL", mk(&b, TS_INT, true));
	*n = 11;
	return b.failed ? NULL : f;
}
