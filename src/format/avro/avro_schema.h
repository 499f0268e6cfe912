/*
 * avro_schema.h - the Avro writer schema of a container file, as a tree.
 *
 * Owns: parsing the "avro.schema" JSON (via cJSON) into a small tree of
 * nodes (primitives, record, enum, array, map, union, fixed, plus the
 * logical types Paimon writes), resolving named-type references, and a
 * few questions about a node (encoded size bounds, the Paimon type it
 * stands for).  It does not decode data: avro_decode.c does.
 *
 * All nodes and strings live in one ts_arena owned by the ts_avro_schema;
 * named-type references point at the defining node, so the tree may be a
 * graph (recursive records are allowed; decoders bound their depth).
 */
#ifndef TS_AVRO_SCHEMA_H
#define TS_AVRO_SCHEMA_H

#include "base/ts_value.h"

typedef enum ts_avro_kind
{
	TS_AVRO_NULL,
	TS_AVRO_BOOLEAN,
	TS_AVRO_INT,
	TS_AVRO_LONG,
	TS_AVRO_FLOAT,
	TS_AVRO_DOUBLE,
	TS_AVRO_BYTES,
	TS_AVRO_STRING,
	TS_AVRO_RECORD,
	TS_AVRO_ENUM,
	TS_AVRO_ARRAY,
	TS_AVRO_MAP,
	TS_AVRO_UNION,
	TS_AVRO_FIXED
} ts_avro_kind;

typedef enum ts_avro_logical
{
	TS_AVRO_LT_NONE,
	TS_AVRO_LT_DATE,			/* int */
	TS_AVRO_LT_TIME_MILLIS,		/* int */
	TS_AVRO_LT_TIME_MICROS,		/* long */
	TS_AVRO_LT_TIMESTAMP_MILLIS,	/* long */
	TS_AVRO_LT_TIMESTAMP_MICROS,	/* long */
	TS_AVRO_LT_TIMESTAMP_NANOS, /* long */
	TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS,	/* long */
	TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS,	/* long */
	TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS,	/* long */
	TS_AVRO_LT_DECIMAL,			/* bytes or fixed; precision, scale */
	TS_AVRO_LT_MAP				/* Paimon: array of record{key, value} */
} ts_avro_logical;

/* Deepest nesting accepted in a schema and while decoding a value. */
#define TS_AVRO_MAX_DEPTH 64

typedef struct ts_avro_node ts_avro_node;

struct ts_avro_node
{
	ts_avro_kind kind;
	ts_avro_logical logical;
	int32_t		precision;		/* decimal */
	int32_t		scale;			/* decimal */
	int32_t		fixed_size;		/* FIXED */
	const char *name;			/* full name of RECORD/ENUM/FIXED, else NULL */
	/*
	 * RECORD: nchildren fields, field_names[i] / children[i];
	 * UNION: branches; ARRAY: children[0] = items; MAP: children[0] =
	 * values; ENUM: nsymbols symbols.
	 */
	int			nchildren;
	ts_avro_node **children;
	const char **field_names;
	int			nsymbols;
	const char **symbols;
	/* derived: fixed encoded size (-1 = variable), minimum encoded size */
	int64_t		fixed_encoded_size;
	int64_t		min_encoded_size;
	int			sizes_state;	/* 0 todo, 1 in progress, 2 done */
};

typedef struct ts_avro_schema
{
	ts_arena	arena;
	ts_avro_node *root;
} ts_avro_schema;

/*
 * Parse a writer schema.  'what' names the source (file path) in errors:
 * TS_ERR_CORRUPT for JSON/schema errors.
 */
ts_avro_schema *ts_avro_schema_parse(const char *json, size_t len, const char *what, ts_err *err);
void		ts_avro_schema_free(ts_avro_schema *s);

/* "int", "record", ... */
const char *ts_avro_kind_name(ts_avro_kind kind);

/* Index of a record field by exact name, -1 if absent. */
int			ts_avro_record_field(const ts_avro_node *rec, const char *name);

/*
 * For a union that is exactly ["null", T] or [T, "null"] return T and the
 * index of the null branch; for a non-union return the node itself and -1.
 * NULL for other unions.
 */
const ts_avro_node *ts_avro_unwrap_nullable(const ts_avro_node *n, int *null_branch);

/*
 * The Paimon type an Avro node stands for under Paimon's conventions
 * (AvroSchemaConverter in reverse): ["null",T] => nullable T, int+date =>
 * DATE, long+timestamp-micros => TIMESTAMP(6), local-timestamp-* =>
 * TIMESTAMP_LTZ, bytes+decimal => DECIMAL, array+logicalType map =>
 * MAP, map => MAP<STRING, V> ...  ts_malloc'd (free with
 * ts_avro_type_free); NULL + TS_ERR_UNSUPPORTED for shapes with no
 * Paimon equivalent (general unions, recursive records).
 */
ts_type    *ts_avro_node_to_paimon(const ts_avro_node *n, ts_err *err);
void		ts_avro_type_free(ts_type *t);

#endif							/* TS_AVRO_SCHEMA_H */
