/*
 * merge_options.c - the table options of merge-on-read, read once when a
 * merge reader opens (PAIMON-FORMAT.md 7.4/7.5).
 *
 * Owns: the merge engine, ignore-delete and remove-record-on-delete, the
 * refusals of what is not supported (sequence groups, partial-update with
 * aggregate functions, distinct), the
 * reader's internal columns (requested, trimmed primary keys, sequence
 * fields), how each key column is compared, and each column's aggregate
 * function.  Reads options only: no file is opened here.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "read/merge_internal.h"
#include "expr/predicate.h"

static const struct
{
	const char *name;
	agg_fn		fn;
}			agg_names[] =
{
	{"sum", AGG_SUM},
	{"product", AGG_PRODUCT},
	{"min", AGG_MIN},
	{"max", AGG_MAX},
	{"last_value", AGG_LAST_VALUE},
	{"last_non_null_value", AGG_LAST_NON_NULL_VALUE},
	{"first_value", AGG_FIRST_VALUE},
	{"first_non_null_value", AGG_FIRST_NON_NULL_VALUE},
	{"first_not_null_value", AGG_FIRST_NON_NULL_VALUE},	/* legacy name */
	{"bool_and", AGG_BOOL_AND},
	{"bool_or", AGG_BOOL_OR},
	{"listagg", AGG_LISTAGG},
};

/* ---- options ---------------------------------------------------------- */

static const char *
field_option(ts_plan *plan, const char *field, const char *suffix)
{
	char		key[512];

	snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, field, suffix);
	return ts_read_option(plan, key);
}

static bool
has_option_like(ts_plan *plan, const char *prefix, const char *suffix, const char **found)
{
	size_t		pl = strlen(prefix),
				sl = strlen(suffix);

	for (int i = 0; i < plan->noptions; i++)
	{
		const char *k = plan->options[i].key;
		size_t		kl;

		if (k == NULL)
			continue;
		kl = strlen(k);
		if (kl >= pl + sl && strncmp(k, prefix, pl) == 0 && strcmp(k + kl - sl, suffix) == 0)
		{
			*found = k;
			return true;
		}
	}
	if (plan->schema)
	{
		for (int i = 0; i < plan->schema->noptions; i++)
		{
			const char *k = plan->schema->option_keys[i];
			size_t		kl = strlen(k);

			if (kl >= pl + sl && strncmp(k, prefix, pl) == 0 && strcmp(k + kl - sl, suffix) == 0)
			{
				*found = k;
				return true;
			}
		}
	}
	return false;
}

static bool
option_true(ts_plan *plan, const char *key)
{
	return ts_read_option_bool(plan, key, false);
}

static int
field_index(const ts_schema *s, const char *name, size_t len)
{
	for (int i = 0; i < s->nfields; i++)
		if (strlen(s->fields[i].name) == len && strncmp(s->fields[i].name, name, len) == 0)
			return i;
	return -1;
}

/* internal column of read-schema field fi, adding it if needed */
static int
add_internal(ts_merge_reader *m, int fi)
{
	for (int i = 0; i < m->nint; i++)
		if (m->int_fields[i] == fi)
			return i;
	m->int_fields[m->nint] = fi;
	m->types[m->nint] = m->plan->schema->fields[fi].type;
	m->names[m->nint] = m->plan->schema->fields[fi].name;
	return m->nint++;
}

static bool
is_primary_key(const ts_schema *s, const char *name)
{
	for (int i = 0; i < s->nprimary_keys; i++)
		if (strcmp(s->primary_keys[i], name) == 0)
			return true;
	return false;
}

static key_form
key_form_of(ts_type_kind kind)
{
	if (ts_value_orders_by_int(kind))
		return KEY_INT;
	switch (kind)
	{
		case TS_CHAR:
		case TS_VARCHAR:
		case TS_BINARY:
		case TS_VARBINARY:
			return KEY_BYTES;
		default:
			return KEY_GENERIC;
	}
}

bool
merge_configure(ts_merge_reader *m, const int *columns, int ncolumns, ts_err *err)
{
	ts_plan    *plan = m->plan;
	const ts_schema *s = plan->schema;
	const char *engine = ts_read_option(plan, TS_OPT_MERGE_ENGINE);
	const char *seqf = ts_read_option(plan, TS_OPT_SEQUENCE_FIELD);
	const char *order = ts_read_option(plan, TS_OPT_SEQUENCE_FIELD_SORT_ORDER);
	const char *found;
	int			maxint = ncolumns + s->nfields + 1;

	m->int_fields = ts_calloc(maxint, sizeof(int));
	m->types = ts_calloc(maxint, sizeof(ts_type *));
	m->names = ts_calloc(maxint, sizeof(char *));
	m->out_map = ts_calloc(ncolumns ? ncolumns : 1, sizeof(int));
	m->key_cols = ts_calloc(s->nfields + 1, sizeof(int));
	m->seq_cols = ts_calloc(s->nfields + 1, sizeof(int));
	if (!m->int_fields || !m->types || !m->names || !m->out_map || !m->key_cols || !m->seq_cols)
		return ts_error_nomem(err, NULL);

	if (engine == NULL || strcasecmp(engine, "deduplicate") == 0)
		m->engine = ENGINE_DEDUPLICATE;
	else if (strcasecmp(engine, "first-row") == 0)
		m->engine = ENGINE_FIRST_ROW;
	else if (strcasecmp(engine, "partial-update") == 0)
		m->engine = ENGINE_PARTIAL_UPDATE;
	else if (strcasecmp(engine, "aggregation") == 0)
		m->engine = ENGINE_AGGREGATION;
	else
		return ts_error(err, TS_ERR_UNSUPPORTED, "merge-engine \"%s\" is not supported", engine);

	m->ignore_delete = option_true(plan, TS_OPT_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_DEDUPLICATE_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_FIRST_ROW_IGNORE_DELETE) ||
		option_true(plan, TS_OPT_PARTIAL_UPDATE_IGNORE_DELETE);

	if (has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_SEQUENCE_GROUP, &found))
		return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" (sequence groups) is not supported", found);
	if (ts_read_option(plan, TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP))
		return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" is not supported",
						TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP);
	if (m->engine == ENGINE_PARTIAL_UPDATE)
	{
		m->remove_record_on_delete = option_true(plan, TS_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE);
		if (has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_AGGREGATE_FUNCTION, &found) ||
			ts_read_option(plan, TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION))
			return ts_error(err, TS_ERR_UNSUPPORTED,
							"partial-update with aggregate functions (\"%s\") is not supported",
							has_option_like(plan, TS_OPT_FIELDS_PREFIX, "." TS_OPT_FIELD_AGGREGATE_FUNCTION,
											&found) ? found : TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION);
	}
	if (m->engine == ENGINE_AGGREGATION)
		m->remove_record_on_delete = option_true(plan, TS_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE);
	m->keep_retracts = plan->incremental;
	m->no_merge = plan->unmerged;
	m->diff = plan->diff;
	m->overwrite = plan->overwrite;

	/* internal columns: requested, then keys, then sequence fields */
	m->nout = ncolumns;
	for (int i = 0; i < ncolumns; i++)
	{
		if (columns[i] == TS_COLUMN_ROW_KIND && m->keep_retracts)
		{
			m->out_map[i] = -1;	/* filled from the result's kind */
			continue;
		}
		if (columns[i] < 0 || columns[i] >= s->nfields)
			return ts_error(err, TS_ERR_INVALID, "column index %d out of range", columns[i]);
		m->out_map[i] = add_internal(m, columns[i]);
	}
	for (int i = 0; i < s->nprimary_keys; i++)
	{
		int			fi = field_index(s, s->primary_keys[i], strlen(s->primary_keys[i]));
		bool		is_part = false;

		for (int j = 0; j < s->npartition_keys; j++)
			if (strcmp(s->partition_keys[j], s->primary_keys[i]) == 0)
				is_part = true;
		if (is_part)
			continue;
		if (fi < 0)
			return ts_error(err, TS_ERR_CORRUPT, "primary key \"%s\" is not a column", s->primary_keys[i]);
		m->key_cols[m->nkeys++] = add_internal(m, fi);
	}
	if (m->nkeys == 0)
		return ts_error(err, TS_ERR_INVALID, "primary-key table without trimmed primary keys");
	/* a diff compares whole values (Java compares the value rows) */
	for (int fi = 0; m->diff && fi < s->nfields; fi++)
		add_internal(m, fi);
	m->key_forms = ts_calloc(m->nkeys, sizeof(key_form));
	if (m->key_forms == NULL)
		return ts_error_nomem(err, NULL);
	for (int k = 0; k < m->nkeys; k++)
		m->key_forms[k] = key_form_of(m->types[m->key_cols[k]]->kind);
	m->single_int_key = m->nkeys == 1 && m->key_forms[0] == KEY_INT;
	if (seqf && *seqf)
	{
		const char *p = seqf;

		while (*p)
		{
			const char *e = strchr(p, ',');
			size_t		len = e ? (size_t) (e - p) : strlen(p);
			int			fi = field_index(s, p, len);

			if (fi < 0)
				return ts_error(err, TS_ERR_INVALID, "sequence.field \"%.*s\" is not a column", (int) len, p);
			m->seq_cols[m->nseq++] = add_internal(m, fi);
			if (m->nseq > s->nfields)
				return ts_error(err, TS_ERR_INVALID, "sequence.field lists too many fields");
			p += len;
			if (*p == ',')
				p++;
		}
	}
	if (order && strcasecmp(order, "descending") == 0)
		m->seq_descending = true;
	else if (order && strcasecmp(order, "ascending") != 0)
		return ts_error(err, TS_ERR_INVALID, "invalid sequence.field.sort-order \"%s\"", order);

	m->plain = ts_calloc(m->nint ? m->nint : 1, sizeof(bool));
	if (m->plain == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < m->nint; i++)
		m->plain[i] = !ts_type_is_bytes(m->types[i]->kind) && !ts_type_is_nested(m->types[i]->kind);

	if (m->engine == ENGINE_AGGREGATION)
	{
		const char *dflt = ts_read_option(plan, TS_OPT_FIELDS_DEFAULT_AGGREGATE_FUNCTION);

		m->aggs = ts_calloc(m->nint, sizeof(agg_fn));
		m->ignore_retract = ts_calloc(m->nint, sizeof(bool));
		m->delimiters = ts_calloc(m->nint, sizeof(char *));
		if (!m->aggs || !m->ignore_retract || !m->delimiters)
			return ts_error_nomem(err, NULL);
		for (int i = 0; i < m->nint; i++)
		{
			const char *name = m->names[i];
			const char *fn = field_option(plan, name, TS_OPT_FIELD_AGGREGATE_FUNCTION);
			bool		is_seq = false;
			bool		ok = false;
			const char *d;

			for (int k = 0; k < m->nseq; k++)
				if (m->seq_cols[k] == i)
					is_seq = true;
			{
				char		key[512];

				snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, name, TS_OPT_FIELD_IGNORE_RETRACT);
				m->ignore_retract[i] = option_true(plan, key);
				snprintf(key, sizeof(key), TS_OPT_FIELD_KEY_FORMAT, name, TS_OPT_FIELD_DISTINCT);
				if (option_true(plan, key))
					return ts_error(err, TS_ERR_UNSUPPORTED, "option \"%s\" is not supported", key);
			}
			d = field_option(plan, name, TS_OPT_FIELD_LIST_AGG_DELIMITER);
			m->delimiters[i] = d ? d : ",";
			if (is_primary_key(s, name))
			{
				m->aggs[i] = AGG_PRIMARY_KEY;
				continue;
			}
			if (is_seq)
			{
				m->aggs[i] = AGG_LAST_VALUE;
				continue;
			}
			if (fn == NULL)
				fn = dflt ? dflt : "last_non_null_value";
			for (size_t k = 0; k < sizeof(agg_names) / sizeof(agg_names[0]); k++)
				if (strcasecmp(fn, agg_names[k].name) == 0)
				{
					m->aggs[i] = agg_names[k].fn;
					ok = true;
				}
			if (!ok)
				return ts_error(err, TS_ERR_UNSUPPORTED,
								"aggregate function \"%s\" of column \"%s\" is not supported", fn, name);
			{
				ts_type_kind k = m->types[i]->kind;
				bool		numeric = k == TS_TINYINT || k == TS_SMALLINT || k == TS_INT ||
					k == TS_BIGINT || k == TS_FLOAT || k == TS_DOUBLE || k == TS_DECIMAL;

				if ((m->aggs[i] == AGG_SUM || m->aggs[i] == AGG_PRODUCT) && !numeric)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if ((m->aggs[i] == AGG_BOOL_AND || m->aggs[i] == AGG_BOOL_OR) && k != TS_BOOLEAN)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if (m->aggs[i] == AGG_LISTAGG && k != TS_VARCHAR && k != TS_CHAR)
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
				if ((m->aggs[i] == AGG_MIN || m->aggs[i] == AGG_MAX) && ts_type_is_nested(k))
					return ts_error(err, TS_ERR_UNSUPPORTED, "aggregate function \"%s\" on column \"%s\" of type %s",
									fn, name, ts_type_kind_name(k));
			}
		}
	}
	return true;
}
