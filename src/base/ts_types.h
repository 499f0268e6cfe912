/*
 * ts_types.h - Paimon data types and fields, as the schema JSON states them.
 *
 * Owns: the in-memory form of a Paimon type (kind, length, precision,
 * scale, nullability, nested element/key/value/fields) and of a DataField
 * (id, name, type).  Parsing the JSON type grammar lives in
 * src/meta/schema.c; this header only describes the result so that every
 * layer (meta, format readers, scan, fdw) shares one vocabulary.
 */
#ifndef TS_TYPES_H
#define TS_TYPES_H

#include "base/ts_base.h"

typedef enum ts_type_kind
{
	TS_BOOLEAN,
	TS_TINYINT,
	TS_SMALLINT,
	TS_INT,
	TS_BIGINT,
	TS_FLOAT,
	TS_DOUBLE,
	TS_DECIMAL,					/* precision, scale */
	TS_CHAR,					/* length */
	TS_VARCHAR,					/* length; STRING = VARCHAR(2147483647) */
	TS_BINARY,					/* length */
	TS_VARBINARY,				/* length; BYTES = VARBINARY(2147483647) */
	TS_DATE,
	TS_TIME,					/* precision */
	TS_TIMESTAMP,				/* precision (wall clock, no zone) */
	TS_TIMESTAMP_LTZ,			/* precision (an instant, UTC) */
	TS_ARRAY,					/* element */
	TS_MULTISET,				/* element */
	TS_MAP,						/* key, value */
	TS_ROW,						/* fields */
	TS_VARIANT,					/* newer types: recognised, not read yet */
	TS_BLOB,
	TS_VECTOR,
	TS_GEOMETRY,
	TS_GEOGRAPHY,
	TS_TYPE_KIND_COUNT			/* not a kind: the size of base/ts_type_class.c's table */
} ts_type_kind;

#define TS_STRING_LENGTH 2147483647

typedef struct ts_type ts_type;
typedef struct ts_field ts_field;

struct ts_type
{
	ts_type_kind kind;
	bool		nullable;
	int32_t		length;			/* CHAR/VARCHAR/BINARY/VARBINARY/VECTOR */
	int32_t		precision;		/* DECIMAL, TIME, TIMESTAMP(_LTZ) */
	int32_t		scale;			/* DECIMAL */
	ts_type    *element;		/* ARRAY, MULTISET, VECTOR */
	ts_type    *key;			/* MAP */
	ts_type    *value;			/* MAP */
	int			nfields;		/* ROW */
	ts_field   *fields;			/* ROW */
};

struct ts_field
{
	int32_t		id;				/* Paimon field id; -1 = match by name */
	char	   *name;
	ts_type    *type;
	char	   *description;	/* may be NULL */
};

/* Constructors (ts_malloc'd); NULL on allocation failure. */
ts_type    *ts_type_new(ts_type_kind kind, bool nullable);
ts_type    *ts_type_copy(const ts_type *t);
void		ts_type_free(ts_type *t);

/* Structural equality ignoring nullability (and ignoring field names). */
bool		ts_type_equal(const ts_type *a, const ts_type *b);

/* "DECIMAL(10, 2)", "ARRAY<INT>", "ROW<a INT, b STRING>" ... (ts_malloc'd) */
char	   *ts_type_to_string(const ts_type *t);

/* Kind name as Paimon spells it ("INT", "TIMESTAMP_LTZ" -> "TIMESTAMP WITH LOCAL TIME ZONE"). */
const char *ts_type_kind_name(ts_type_kind kind);

/* True for types whose values are bytes (strings and binaries). */
static inline bool
ts_type_is_bytes(ts_type_kind k)
{
	return k == TS_CHAR || k == TS_VARCHAR || k == TS_BINARY || k == TS_VARBINARY || k == TS_BLOB;
}

static inline bool
ts_type_is_nested(ts_type_kind k)
{
	return k == TS_ARRAY || k == TS_MULTISET || k == TS_MAP || k == TS_ROW;
}

#endif							/* TS_TYPES_H */
