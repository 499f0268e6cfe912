/*
 * avro_plan.h - the read plan of the Avro decoder, shared by its files.
 *
 * Owns: nothing but the layout of a read plan node (which conversion, the
 * writer node, the per-branch / per-field sub-plans) and of its flat form.
 * Private to src/format/avro: avro_plan.c builds plans, avro_decode.c follows them,
 * avro_flat.c compiles flat top-level records of a plan into a step list.
 * Everyone else sees ts_avro_plan as an opaque type (avro_decode.h).
 */
#ifndef TS_AVRO_PLAN_H
#define TS_AVRO_PLAN_H

#include "format/avro/avro_decode.h"

typedef struct ts_avro_flat ts_avro_flat;

typedef enum conv
{
	CV_NULL,					/* writer type is null: always NULL */
	CV_UNION,
	CV_BOOL,
	CV_INT,						/* int/long -> integer-like (cast to width) */
	CV_TIME_MICROS,				/* long time-micros -> TIME millis */
	CV_TS_MILLIS,
	CV_TS_MICROS,
	CV_TS_NANOS,
	CV_FLOAT,					/* float -> FLOAT */
	CV_FLOAT_TO_DOUBLE,
	CV_DOUBLE,
	CV_INT_TO_FLOAT,
	CV_INT_TO_DOUBLE,
	CV_DEC_BYTES,				/* bytes -> DECIMAL */
	CV_DEC_FIXED,				/* fixed -> DECIMAL */
	CV_DEC_INT,					/* int/long unscaled -> DECIMAL */
	CV_BYTES,					/* string/bytes -> s */
	CV_FIXED,					/* fixed -> s */
	CV_ENUM,					/* enum -> symbol */
	CV_RECORD,					/* record -> ROW */
	CV_ARRAY,					/* array -> ARRAY/MULTISET */
	CV_MAP,						/* map<string,V> -> MAP */
	CV_ARRAY_MAP,				/* array<record{key,value}> -> MAP */
	CV_MULTISET_MAP,			/* map<int> -> MULTISET (expand counts) */
	CV_MULTISET_ARRAY_MAP		/* array<record{key,value:int}> -> MULTISET */
} conv;

struct ts_avro_plan
{
	conv		cv;
	const ts_avro_node *w;		/* writer node */
	ts_type_kind target;		/* requested kind */
	/* CV_UNION: one plan per branch, NULL for the null branch */
	ts_avro_plan **branches;
	/* CV_UNION of null and one other type: that type's plan, and null's index */
	ts_avro_plan *nonnull;
	int			null_branch;
	/* CV_RECORD: per writer field: output index (-1 = skip) and plan */
	int		   *targets;
	ts_avro_plan **fields;
	int			nout;
	int		   *copy_from;		/* per output: duplicate of another output, or -1 */
	bool		all_targets;	/* every output is some writer field's target */
	bool		any_copy;		/* some copy_from >= 0 */
	/* arrays / maps: element (ARRAY, MULTISET_MAP), value (MAP) */
	ts_avro_plan *elem;
	/* CV_ARRAY_MAP / CV_MULTISET_ARRAY_MAP: record plan with nout = 2 */
	ts_avro_plan *kv;
	/* top level only: the root is a union ["null", record] */
	bool		top;
	/* top-level record only: its step list when it is flat (avro_flat.c) */
	const ts_avro_flat *flat;
};

/*
 * Decode one value of a scalar plan (no union, record or collection);
 * TS_ERR_CORRUPT for other plans.
 */
bool		ts_avro_decode_scalar(const ts_avro_plan *pl, ts_cursor *cur, ts_value *out,
								  ts_err *err);

/*
 * A decimal's unscaled value from its big-endian two's-complement bytes
 * (Avro's bytes / fixed decimal); sign-extension bytes beyond 16 are
 * dropped, more significant ones are TS_ERR_CORRUPT.
 */
static inline bool
ts_avro_decimal_from_bytes(const uint8_t *p, uint32_t len, ts_int128 *dec, ts_err *err)
{
	ts_int128	v;

	if (len == 0)
	{
		*dec = 0;
		return true;
	}
	while (len > 16)
	{
		if (!((p[0] == 0x00 && (p[1] & 0x80) == 0) || (p[0] == 0xff && (p[1] & 0x80))))
			return ts_error(err, TS_ERR_CORRUPT, "decimal of %u bytes does not fit 128 bits", len);
		p++;
		len--;
	}
	v = (p[0] & 0x80) ? -1 : 0;
	for (uint32_t i = 0; i < len; i++)
		v = (ts_int128) (((unsigned __int128) v << 8) | p[i]);
	*dec = v;
	return true;
}

#endif							/* TS_AVRO_PLAN_H */
