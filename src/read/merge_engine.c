/*
 * merge_engine.c - the merge engines of merge-on-read: the records of one
 * key, in merge order, folded into the key's result (PAIMON-FORMAT.md 7.5).
 *
 * Owns: deduplicate, first-row, partial-update (without sequence groups)
 * and aggregation (sum, product, min, max, last_value,
 * last_non_null_value, first_value, first_non_null_value, bool_and,
 * bool_or, listagg), with retraction where Java allows it, the kind of a
 * key's result as Java's merge functions give it (partial-update: DELETE
 * after a delete or without any insert; aggregation: DELETE after a
 * delete; a delete leaves the NOT NULL columns, Java's initRow) and whether
 * it is kept (incremental reads keep DELETE results).  The order of the
 * records is merge.c's.
 */
#include <string.h>

#include "read/merge_internal.h"

/* ---- aggregation helpers --------------------------------------------- */

static bool
agg_arith(ts_merge_reader *m, int col, ts_value *acc, const ts_value *in, bool product,
		  bool retract, ts_err *err)
{
	const ts_type *t = m->types[col];

	if (acc->isnull || in->isnull)
	{
		if (acc->isnull && !in->isnull)
		{
			*acc = *in;
			if (retract)
			{
				if (product)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"retracting product of column \"%s\" from NULL", m->names[col]);
				switch (t->kind)
				{
					case TS_TINYINT:
						acc->v.i = (int8_t) - in->v.i;
						break;
					case TS_SMALLINT:
						acc->v.i = (int16_t) - in->v.i;
						break;
					case TS_INT:
						acc->v.i = (int32_t) (0u - (uint32_t) in->v.i);
						break;
					case TS_BIGINT:
						acc->v.i = (int64_t) (0ull - (uint64_t) in->v.i);
						break;
					case TS_FLOAT:
						acc->v.f = -in->v.f;
						break;
					case TS_DOUBLE:
						acc->v.d = -in->v.d;
						break;
					case TS_DECIMAL:
						acc->v.dec = -in->v.dec;
						break;
					default:
						break;
				}
			}
		}
		return true;
	}
	switch (t->kind)
	{
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
		case TS_BIGINT:
			{
				uint64_t	a = (uint64_t) acc->v.i,
							b = (uint64_t) in->v.i;
				int64_t		r;

				if (!product)
					r = (int64_t) (retract ? a - b : a + b);
				else if (!retract)
					r = (int64_t) (a * b);
				else
				{
					if (in->v.i == 0)
						return ts_error(err, TS_ERR_INVALID, "division by zero retracting product of \"%s\"",
										m->names[col]);
					if (acc->v.i == INT64_MIN && in->v.i == -1)
						r = INT64_MIN;
					else
						r = acc->v.i / in->v.i;
				}
				acc->v.i = t->kind == TS_TINYINT ? (int8_t) r :
					t->kind == TS_SMALLINT ? (int16_t) r :
					t->kind == TS_INT ? (int32_t) r : r;
				return true;
			}
		case TS_FLOAT:
			acc->v.f = product ? (retract ? acc->v.f / in->v.f : acc->v.f * in->v.f) :
				(retract ? acc->v.f - in->v.f : acc->v.f + in->v.f);
			return true;
		case TS_DOUBLE:
			acc->v.d = product ? (retract ? acc->v.d / in->v.d : acc->v.d * in->v.d) :
				(retract ? acc->v.d - in->v.d : acc->v.d + in->v.d);
			return true;
		case TS_DECIMAL:
			{
				ts_int128	lim = 1;

				for (int i = 0; i < t->precision && i < 38; i++)
					lim *= 10;
				if (product)
					return ts_error(err, TS_ERR_UNSUPPORTED,
									"aggregate function \"product\" on DECIMAL column \"%s\" is not supported",
									m->names[col]);
				acc->v.dec = retract ? acc->v.dec - in->v.dec : acc->v.dec + in->v.dec;
				/* DecimalUtils.add: result that does not fit -> NULL */
				if (acc->v.dec >= lim || acc->v.dec <= -lim)
					acc->isnull = true;
				return true;
			}
		default:
			return ts_error(err, TS_ERR_UNSUPPORTED, "sum/product on column \"%s\"", m->names[col]);
	}
}

static bool
agg_add(ts_merge_reader *m, const ts_value *row, bool retract, ts_err *err)
{
	for (int i = 0; i < m->nint; i++)
	{
		ts_value   *acc = &m->acc[i];
		const ts_value *in = &row[i];
		agg_fn		fn = m->aggs[i];

		if (retract && fn != AGG_PRIMARY_KEY && fn != AGG_SUM && fn != AGG_PRODUCT &&
			fn != AGG_LAST_VALUE && fn != AGG_LAST_NON_NULL_VALUE)
		{
			if (m->ignore_retract[i])
				continue;
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"aggregate function of column \"%s\" does not support retraction "
							"(set 'fields.%s.ignore-retract'='true')", m->names[i], m->names[i]);
		}
		if (retract && m->ignore_retract[i] && fn != AGG_PRIMARY_KEY)
			continue;
		switch (fn)
		{
			case AGG_PRIMARY_KEY:
				if (!copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_SUM:
			case AGG_PRODUCT:
				if (!agg_arith(m, i, acc, in, fn == AGG_PRODUCT, retract, err))
					return false;
				break;
			case AGG_MIN:
			case AGG_MAX:
				if (in->isnull)
					break;
				if (acc->isnull)
				{
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				else
				{
					int			c = ts_value_compare(in, acc, m->types[i]);

					if ((fn == AGG_MIN && c < 0) || (fn == AGG_MAX && c > 0))
						if (!copy_val(m, acc, in, i, err))
							return false;
				}
				break;
			case AGG_LAST_VALUE:
				if (retract)
				{
					memset(acc, 0, sizeof(*acc));
					acc->isnull = true;
				}
				else if (!copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_LAST_NON_NULL_VALUE:
				if (retract)
				{
					if (!in->isnull)
					{
						memset(acc, 0, sizeof(*acc));
						acc->isnull = true;
					}
				}
				else if (!in->isnull && !copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_FIRST_VALUE:
				if (!m->acc_init[i])
				{
					m->acc_init[i] = true;
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				break;
			case AGG_FIRST_NON_NULL_VALUE:
				if (acc->isnull && !in->isnull && !copy_val(m, acc, in, i, err))
					return false;
				break;
			case AGG_BOOL_AND:
			case AGG_BOOL_OR:
				if (in->isnull)
					break;
				if (acc->isnull)
					*acc = *in;
				else
					acc->v.i = fn == AGG_BOOL_AND ? (acc->v.i && in->v.i) : (acc->v.i || in->v.i);
				break;
			case AGG_LISTAGG:
				if (in->isnull)
					break;
				if (acc->isnull)
				{
					if (!copy_val(m, acc, in, i, err))
						return false;
				}
				else
				{
					size_t		dl = strlen(m->delimiters[i]);
					size_t		n = (size_t) acc->v.s.len + dl + in->v.s.len;
					uint8_t    *b;

					if (n > (size_t) 1 << 30)
						return ts_error(err, TS_ERR_NOMEM, "listagg result of \"%s\" too large", m->names[i]);
					b = ts_arena_alloc(&m->arena, n);
					if (b == NULL)
						return ts_error_nomem(err, NULL);
					memcpy(b, acc->v.s.p, acc->v.s.len);
					memcpy(b + acc->v.s.len, m->delimiters[i], dl);
					memcpy(b + acc->v.s.len + dl, in->v.s.p, in->v.s.len);
					acc->v.s.p = b;
					acc->v.s.len = (uint32_t) n;
				}
				break;
		}
	}
	return true;
}

/* ---- merge functions -------------------------------------------------- */

/*
 * The state row a delete leaves (Java's initRow): every column NULL but the
 * NOT NULL ones (the primary key among them), which take row's values.
 */
static bool
reset_to_not_null(ts_merge_reader *m, const ts_value *row, ts_err *err)
{
	for (int i = 0; i < m->nint; i++)
	{
		memset(&m->acc[i], 0, sizeof(ts_value));
		m->acc[i].isnull = true;
		if (!m->types[i]->nullable && !copy_val(m, &m->acc[i], &row[i], i, err))
			return false;
	}
	return true;
}

void
merge_acc_clear(ts_merge_reader *m)
{
	for (int i = 0; i < m->nint; i++)
	{
		memset(&m->acc[i], 0, sizeof(ts_value));
		m->acc[i].isnull = true;
		if (m->acc_init)
			m->acc_init[i] = false;
	}
	m->has_row = false;
	m->deleted = false;
	m->meet_insert = false;
	m->not_null_filled = false;
	m->acc_kind = TS_ROW_KIND_INSERT;
}

bool
merge_add(ts_merge_reader *m, const ts_value *row, int8_t kind, ts_err *err)
{
	bool		retract = ts_row_kind_is_retract(kind);

	switch (m->engine)
	{
		case ENGINE_DEDUPLICATE:
			if (retract && m->ignore_delete)
				return true;
			for (int i = 0; i < m->nint; i++)
				if (!copy_val(m, &m->acc[i], &row[i], i, err))
					return false;
			m->acc_kind = kind;
			m->has_row = true;
			return true;
		case ENGINE_FIRST_ROW:
			if (retract)
			{
				if (m->ignore_delete)
					return true;
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"first-row merge engine cannot accept DELETE/UPDATE_BEFORE records "
								"(set 'ignore-delete'='true')");
			}
			if (!m->has_row)
			{
				for (int i = 0; i < m->nint; i++)
					if (!copy_val(m, &m->acc[i], &row[i], i, err))
						return false;
				m->acc_kind = kind;
				m->has_row = true;
			}
			return true;
		case ENGINE_PARTIAL_UPDATE:
			m->deleted = false;
			if (retract)
			{
				/* the first record of a key, a retract: its NOT NULL columns */
				if (!m->not_null_filled && !reset_to_not_null(m, row, err))
					return false;
				m->not_null_filled = true;
				if (m->ignore_delete)
					return true;
				if (m->remove_record_on_delete)
				{
					if (kind == TS_ROW_KIND_DELETE)
					{
						m->deleted = true;
						if (!reset_to_not_null(m, row, err))
							return false;
					}
					return true;
				}
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"partial-update merge engine cannot accept delete records "
								"(set 'ignore-delete' or 'partial-update.remove-record-on-delete')");
			}
			for (int i = 0; i < m->nint; i++)
				if (!row[i].isnull && !copy_val(m, &m->acc[i], &row[i], i, err))
					return false;
			m->meet_insert = true;
			m->not_null_filled = true;
			m->has_row = true;
			return true;
		case ENGINE_AGGREGATION:
			if (retract && m->ignore_delete)
				return true;
			m->deleted = false;
			if (kind == TS_ROW_KIND_DELETE && m->remove_record_on_delete)
			{
				if (!reset_to_not_null(m, row, err))
					return false;
				m->deleted = true;
				m->has_row = true;
				return true;
			}
			if (!agg_add(m, row, retract, err))
				return false;
			m->has_row = true;
			return true;
	}
	return true;
}

/* Result of the current group: row, its kind and whether it is kept. */
const ts_value *
merge_result(ts_merge_reader *m, bool *keep, int8_t *kind)
{
	if (m->count == 1)
	{
		*kind = m->first_kind;
		*keep = m->keep_retracts || !ts_row_kind_is_retract(m->first_kind);
		return m->first;
	}
	*kind = m->acc_kind;
	switch (m->engine)
	{
		case ENGINE_DEDUPLICATE:
		case ENGINE_FIRST_ROW:
			*keep = m->has_row && (m->keep_retracts || !ts_row_kind_is_retract(m->acc_kind));
			break;
		case ENGINE_PARTIAL_UPDATE:
			/* Java: DELETE after a delete or without any insert; kept as such on incremental reads */
			*kind = m->deleted || !m->meet_insert ? TS_ROW_KIND_DELETE : TS_ROW_KIND_INSERT;
			*keep = m->keep_retracts || *kind == TS_ROW_KIND_INSERT;
			break;
		case ENGINE_AGGREGATION:
			*kind = m->deleted ? TS_ROW_KIND_DELETE : TS_ROW_KIND_INSERT;
			*keep = m->has_row && (m->keep_retracts || !m->deleted);
			break;
	}
	return m->acc;
}
