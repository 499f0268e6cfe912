/*
 * ts_manifest_records.h - the Paimon manifest record schemas our tools write.
 *
 * Owns: the type constructors the tools' own records use (mk, mk_array,
 * mk_row), and ManifestEntry / ManifestFileMeta as the product defines
 * them (meta/manifest_schema.h, shared with INSERT), dying when out of
 * memory.  Included by src/tools/ts_gen.c and bench/ts_pq_register.c
 * (each tool is one .c file); the includer provides xcalloc() and
 * xstrdup() that never return NULL.
 */
#ifndef TS_MANIFEST_RECORDS_H
#define TS_MANIFEST_RECORDS_H

#include "base/ts_types.h"
#include "meta/manifest_schema.h"

/* not every includer uses it */
__attribute__((unused)) static ts_type *
mk(ts_type_kind k, bool nullable)
{
	ts_type    *t = ts_type_new(k, nullable);

	if (t == NULL)
		die("out of memory");
	if (k == TS_VARCHAR || k == TS_VARBINARY)
		t->length = TS_STRING_LENGTH;
	return t;
}

/* not every includer uses it */
__attribute__((unused)) static ts_type *
mk_array(ts_type *e, bool nullable)
{
	ts_type    *t = mk(TS_ARRAY, nullable);

	t->element = e;
	return t;
}

/* not every includer uses it */
__attribute__((unused)) static ts_type *
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

/*
 * ManifestEntry (Paimon 1.1/1.2 layout; with row_tracking the 1.3 one,
 * _FIRST_ROW_ID and _WRITE_COLS added to _FILE): the product's schema
 * (meta/manifest_schema.h), so fixtures and INSERTs write the same records
 */
static ts_field *
manifest_entry_fields_rt(int *n, bool row_tracking)
{
	ts_field   *f = ts_manifest_entry_fields(row_tracking, n);

	if (f == NULL)
		die("out of memory");
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
	ts_field   *f = ts_manifest_list_fields(n);

	if (f == NULL)
		die("out of memory");
	return f;
}

#endif							/* TS_MANIFEST_RECORDS_H */
