/*
 * ts_type_class.c - the table of facts about each Paimon type kind (see
 * ts_type_class.h), and the small integer helpers it gives.
 *
 * A new kind needs one row here; test_type_class fails while any kind
 * lacks one.  Switches over ts_type_kind that stay elsewhere (49 outside
 * src/tools, from 61) do different work per kind inside one decoder or
 * encoder, where a table would only hide the code:
 *   - value decoders and encoders: BinaryRow (meta/binary_row.c), the
 *     Parquet / ORC / Avro / JSON / text readers and writers
 *     (format/...), Datum <-> ts_value (fdw/datum.c, fdw/write_nested.c,
 *     fdw/types.c), casts between kinds (read/cast*.c), partition path
 *     text and parsing (meta/partition.c, scan/format_plan.c) and value
 *     printing (base/ts_value.c);
 *   - per-kind encodings fixed by another format: Java's bucket hash
 *     (meta/bucket.c), file indexes (format/fileindex/), manifest Avro
 *     shapes (meta/manifest_avro.c), ORC statistics (format/orc/orc_stats.c);
 *   - structural walks that recurse by kind (ts_type_equal, type printing,
 *     ts_cast_needed, read/value_ops.c);
 *   - what one operator implements, not a fact of the type: the leaves the
 *     row filter decides exactly (read/row_filter.c), the SQL type a pushed
 *     qual must have and the partition columns count(*) reads from metadata
 *     (fdw/types.c, fdw/count_metadata.c), the merge engines' aggregates
 *     and key forms (read/merge_engine.c, read/merge_options.c).
 * Where a decision only needs the class (value order and equality,
 * integer width), code switches over ts_phys_class instead of the kinds.
 */
#include "base/ts_type_class.h"

#define IN_ROW TS_STATS_IN_ROW
#define EXACT TS_STATS_EXACT
#define FORMAT TS_STATS_FORMAT

/*
 * Columns: kind, name, physical class, BinaryRow width, stats, key,
 * readable, PostgreSQL type (a printf template when it takes a typmod),
 * typmod.
 */
static const ts_type_class classes[TS_TYPE_KIND_COUNT] = {
	[TS_BOOLEAN] = {TS_BOOLEAN, "BOOLEAN", TS_PHYS_BOOLEAN, 1, IN_ROW | EXACT, true, true,
	"boolean", TS_PGMOD_NONE},
	[TS_TINYINT] = {TS_TINYINT, "TINYINT", TS_PHYS_INT32, 1, IN_ROW | EXACT | FORMAT, true, true,
	"smallint", TS_PGMOD_NONE},
	[TS_SMALLINT] = {TS_SMALLINT, "SMALLINT", TS_PHYS_INT32, 2, IN_ROW | EXACT | FORMAT, true, true,
	"smallint", TS_PGMOD_NONE},
	[TS_INT] = {TS_INT, "INT", TS_PHYS_INT32, 4, IN_ROW | EXACT | FORMAT, true, true,
	"integer", TS_PGMOD_NONE},
	[TS_BIGINT] = {TS_BIGINT, "BIGINT", TS_PHYS_INT64, 8, IN_ROW | EXACT | FORMAT, true, true,
	"bigint", TS_PGMOD_NONE},
	/* floats: NaN and -0.0 order differently in files and in Java */
	[TS_FLOAT] = {TS_FLOAT, "FLOAT", TS_PHYS_FLOAT, 4, IN_ROW, true, true,
	"real", TS_PGMOD_NONE},
	[TS_DOUBLE] = {TS_DOUBLE, "DOUBLE", TS_PHYS_DOUBLE, 8, IN_ROW, true, true,
	"double precision", TS_PGMOD_NONE},
	[TS_DECIMAL] = {TS_DECIMAL, "DECIMAL", TS_PHYS_DECIMAL, 8, IN_ROW | EXACT | FORMAT, true, true,
	"numeric(%d,%d)", TS_PGMOD_PRECISION_SCALE},
	/* CHAR: blank padding makes file bounds unsafe for row groups */
	[TS_CHAR] = {TS_CHAR, "CHAR", TS_PHYS_BYTES, 0, IN_ROW | EXACT, true, true,
	"character(%d)", TS_PGMOD_LENGTH},
	[TS_VARCHAR] = {TS_VARCHAR, "VARCHAR", TS_PHYS_BYTES, 0, IN_ROW | EXACT | FORMAT, true, true,
	"character varying(%d)", TS_PGMOD_LENGTH},
	[TS_BINARY] = {TS_BINARY, "BINARY", TS_PHYS_BYTES, 0, IN_ROW, true, true,
	"bytea", TS_PGMOD_NONE},
	[TS_VARBINARY] = {TS_VARBINARY, "VARBINARY", TS_PHYS_BYTES, 0, IN_ROW, true, true,
	"bytea", TS_PGMOD_NONE},
	[TS_DATE] = {TS_DATE, "DATE", TS_PHYS_DATE, 4, IN_ROW | EXACT | FORMAT, true, true,
	"date", TS_PGMOD_NONE},
	/* TIME: files keep micros or nanos where values keep millis */
	[TS_TIME] = {TS_TIME, "TIME", TS_PHYS_TIME, 4, IN_ROW, true, true,
	"time(%d) without time zone", TS_PGMOD_PRECISION_6},
	[TS_TIMESTAMP] = {TS_TIMESTAMP, "TIMESTAMP", TS_PHYS_TIMESTAMP, 8, IN_ROW | EXACT | FORMAT, true, true,
	"timestamp(%d) without time zone", TS_PGMOD_PRECISION_6},
	[TS_TIMESTAMP_LTZ] = {TS_TIMESTAMP_LTZ, "TIMESTAMP WITH LOCAL TIME ZONE", TS_PHYS_TIMESTAMP, 8,
	IN_ROW | EXACT | FORMAT, true, true, "timestamp(%d) with time zone", TS_PGMOD_PRECISION_6},
	/* an ARRAY maps to its element's type[] (jsonb for nested elements: fdw/types.c) */
	[TS_ARRAY] = {TS_ARRAY, "ARRAY", TS_PHYS_NESTED, 0, 0, false, true,
	"%s[]", TS_PGMOD_NONE},
	[TS_MULTISET] = {TS_MULTISET, "MULTISET", TS_PHYS_NESTED, 0, 0, false, true,
	"jsonb", TS_PGMOD_NONE},
	[TS_MAP] = {TS_MAP, "MAP", TS_PHYS_NESTED, 0, 0, false, true,
	"jsonb", TS_PGMOD_NONE},
	[TS_ROW] = {TS_ROW, "ROW", TS_PHYS_NESTED, 0, 0, false, true,
	"jsonb", TS_PGMOD_NONE},
	/* newer types: never keys (fail closed), VARIANT and the spatial ones never read */
	[TS_VARIANT] = {TS_VARIANT, "VARIANT", TS_PHYS_UNSUPPORTED, 0, 0, false, false,
	NULL, TS_PGMOD_NONE},
	[TS_BLOB] = {TS_BLOB, "BLOB", TS_PHYS_BYTES, 0, 0, false, true,
	"bytea", TS_PGMOD_NONE},
	[TS_VECTOR] = {TS_VECTOR, "VECTOR", TS_PHYS_NESTED, 0, 0, false, true,
	"%s[]", TS_PGMOD_NONE},
	[TS_GEOMETRY] = {TS_GEOMETRY, "GEOMETRY", TS_PHYS_UNSUPPORTED, 0, 0, false, false,
	NULL, TS_PGMOD_NONE},
	[TS_GEOGRAPHY] = {TS_GEOGRAPHY, "GEOGRAPHY", TS_PHYS_UNSUPPORTED, 0, 0, false, false,
	NULL, TS_PGMOD_NONE},
};

static const ts_type_class unknown_class = {
	TS_TYPE_KIND_COUNT, "UNKNOWN", TS_PHYS_UNSUPPORTED, 0, 0, false, false, NULL, TS_PGMOD_NONE
};

const ts_type_class *
ts_type_class_of(ts_type_kind kind)
{
	if ((unsigned) kind >= TS_TYPE_KIND_COUNT || classes[kind].name == NULL)
		return &unknown_class;
	return &classes[kind];
}

bool
ts_type_int_fits(ts_type_kind kind, int64_t v)
{
	const ts_type_class *c = ts_type_class_of(kind);
	int64_t		bound;

	if (c->phys != TS_PHYS_INT32 || c->row_width >= 8)
		return true;
	bound = (int64_t) 1 << (8 * c->row_width - 1);
	return v >= -bound && v < bound;
}

int64_t
ts_type_int_wrap(ts_type_kind kind, int64_t v)
{
	const ts_type_class *c = ts_type_class_of(kind);

	if (c->phys != TS_PHYS_INT32)
		return v;
	switch (c->row_width)
	{
		case 1:
			return (int8_t) v;
		case 2:
			return (int16_t) v;
		default:
			return (int32_t) v;
	}
}
