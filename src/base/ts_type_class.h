/*
 * ts_type_class.h - one table of facts about each Paimon type kind.
 *
 * Owns: for every ts_type_kind, its Paimon name, the physical class its
 * values have (which ts_value member holds them, how wide they are in a
 * BinaryRow slot), how min/max statistics of it decode and compare, whether
 * it may be a partition / primary / bucket key, whether the readers decode
 * it, and the PostgreSQL type IMPORT FOREIGN SCHEMA maps it to (as a name:
 * src/fdw turns it into an OID).  Code that only needs such a fact asks
 * this table instead of switching over the kinds, so that a new kind is
 * one new row here (test_type_class walks every kind through it).
 *
 * No PostgreSQL headers: every layer consults it.  The table itself and the
 * list of switches that stay (decoders doing different work per kind) are
 * in ts_type_class.c.
 */
#ifndef TS_TYPE_CLASS_H
#define TS_TYPE_CLASS_H

#include "base/ts_types.h"

/* The physical class of a kind's values, as the readers and BinaryRow hold them. */
typedef enum ts_phys_class
{
	TS_PHYS_UNSUPPORTED = 0,	/* recognised, never decoded (VARIANT, GEOMETRY ...) */
	TS_PHYS_BOOLEAN,			/* v.i = 0 / 1 */
	TS_PHYS_INT32,				/* v.i; TINYINT / SMALLINT narrower: see row_width */
	TS_PHYS_INT64,				/* v.i */
	TS_PHYS_FLOAT,				/* v.f */
	TS_PHYS_DOUBLE,				/* v.d */
	TS_PHYS_DECIMAL,			/* v.dec; compact (a long) when precision <= 18, else bytes */
	TS_PHYS_BYTES,				/* v.s */
	TS_PHYS_DATE,				/* v.i = days since 1970-01-01 */
	TS_PHYS_TIME,				/* v.i = milliseconds of the day */
	TS_PHYS_TIMESTAMP,			/* v.ts; compact (millis) when precision <= 3, else millis + nanos */
	TS_PHYS_NESTED				/* v.nested (ARRAY, MULTISET, MAP, ROW, VECTOR) */
} ts_phys_class;

/* How a column's min/max statistics are usable, by kind. */
#define TS_STATS_IN_ROW		0x01	/* SimpleStats bounds decode from the BinaryRow */
#define TS_STATS_EXACT		0x02	/* values order exactly (no NaN, no loss, a total order) */
#define TS_STATS_FORMAT		0x04	/* file-format (row group) bounds order like ts_value_order */

/* Which PostgreSQL typmod IMPORT attaches to pg_type. */
typedef enum ts_pg_typmod
{
	TS_PGMOD_NONE = 0,
	TS_PGMOD_PRECISION_SCALE,	/* numeric(p,s) */
	TS_PGMOD_LENGTH,			/* character(n), character varying(n) */
	TS_PGMOD_PRECISION_6		/* time(p), timestamp(p): precision capped at 6 */
} ts_pg_typmod;

typedef struct ts_type_class
{
	ts_type_kind kind;			/* the row's own index (checked by the unit test) */
	const char *name;			/* Paimon's spelling: "INT", "TIMESTAMP WITH LOCAL TIME ZONE" */
	ts_phys_class phys;
	uint8_t		row_width;		/* bytes in a BinaryRow slot; 0 = variable part */
	uint8_t		stats;			/* TS_STATS_* */
	bool		key;			/* may be a partition / primary / bucket key (Java: no nested types) */
	bool		readable;		/* the file readers decode it */
	const char *pg_type;		/* IMPORT's PostgreSQL type name; NULL = not mapped */
	ts_pg_typmod pg_typmod;
} ts_type_class;

/* The row of a kind; a kind out of range gets the row of an unsupported type. */
const ts_type_class *ts_type_class_of(ts_type_kind kind);

/* Values held in ts_value.v.i: BOOLEAN, the integers, DATE, TIME. */
static inline bool
ts_type_holds_int(ts_type_kind kind)
{
	ts_phys_class p = ts_type_class_of(kind)->phys;

	return p == TS_PHYS_BOOLEAN || p == TS_PHYS_INT32 || p == TS_PHYS_INT64 ||
		p == TS_PHYS_DATE || p == TS_PHYS_TIME;
}

/* TINYINT, SMALLINT, INT, BIGINT. */
static inline bool
ts_type_is_integer(ts_type_kind kind)
{
	ts_phys_class p = ts_type_class_of(kind)->phys;

	return p == TS_PHYS_INT32 || p == TS_PHYS_INT64;
}

/* Whether v fits the integer kind (true for every other kind). */
bool		ts_type_int_fits(ts_type_kind kind, int64_t v);

/* v wrapped to the integer kind's width, as Java's narrowing casts do. */
int64_t		ts_type_int_wrap(ts_type_kind kind, int64_t v);

/*
 * A single value of a kind Paimon had before VARIANT: neither nested (ARRAY,
 * MULTISET, MAP, ROW) nor one of the newer types (VARIANT, BLOB, VECTOR,
 * GEOMETRY, ...).  The kinds that may be keys, the ones a CSV field holds.
 */
static inline bool
ts_type_is_plain_scalar(ts_type_kind kind)
{
	return ts_type_class_of(kind)->key;
}

static inline bool
ts_type_stats(ts_type_kind kind, int flag)
{
	return (ts_type_class_of(kind)->stats & flag) != 0;
}

#endif							/* TS_TYPE_CLASS_H */
