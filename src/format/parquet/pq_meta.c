/*
 * pq_meta.c - decode the Parquet footer (FileMetaData) and page headers.
 *
 * Owns: the mapping of parquet.thrift field ids to pq_file_meta /
 * pq_page_header members.  Only the fields the reader needs are kept;
 * every other field is skipped, so newer writers' additions are harmless.
 */
#include <string.h>

#include "format/parquet/pq_internal.h"

/*
 * Allocate a zeroed array for n decoded elements, charging the budget: the
 * in-memory metadata may be at most 16x the footer (plus 16 MB), so a
 * hostile list length cannot make us allocate far more than the file has.
 */
static void *
meta_calloc(pq_thrift *t, uint32_t n, size_t size)
{
	size_t		bytes = (size_t) (n ? n : 1) * size;
	void	   *p;

	if (bytes > t->budget)
	{
		ts_error(t->err, TS_ERR_CORRUPT, "footer metadata too large for the footer's size");
		return NULL;
	}
	t->budget -= bytes;
	p = ts_calloc(n ? n : 1, size);
	if (!p)
		ts_error_nomem(t->err, "decoding the footer");
	return p;
}

/* struct with no fields we care about: a union member like TimeUnit.MILLIS */
static bool
parse_empty_or_skip(pq_thrift *t, int type)
{
	return pq_t_skip(t, type);
}

static bool
parse_time_unit(pq_thrift *t, int32_t *unit)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id >= 1 && id <= 3)
			*unit = id;
		if (!parse_empty_or_skip(t, ft))
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_logical_member(pq_thrift *t, int16_t member, pq_schema_elem *e)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (member == PQ_LT_DECIMAL && id == 1)
			ok = pq_t_i32(t, ft, &e->lt_scale);
		else if (member == PQ_LT_DECIMAL && id == 2)
			ok = pq_t_i32(t, ft, &e->lt_precision);
		else if ((member == PQ_LT_TIME || member == PQ_LT_TIMESTAMP) && id == 1)
			ok = pq_t_bool(t, ft, &e->lt_utc);
		else if ((member == PQ_LT_TIME || member == PQ_LT_TIMESTAMP) && id == 2 && ft == PQ_T_STRUCT)
			ok = parse_time_unit(t, &e->lt_unit);
		else if (member == PQ_LT_INTEGER && id == 1)
			ok = pq_t_i32(t, ft, &e->lt_bits);
		else if (member == PQ_LT_INTEGER && id == 2)
			ok = pq_t_bool(t, ft, &e->lt_signed);
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_logical_type(pq_thrift *t, pq_schema_elem *e)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (ft == PQ_T_STRUCT)
		{
			e->logical = id;
			if (!parse_logical_member(t, id, e))
				return false;
		}
		else if (!pq_t_skip(t, ft))
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_schema_elem(pq_thrift *t, pq_schema_elem *e)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	memset(e, 0, sizeof(*e));
	e->type = -1;
	e->repetition = -1;
	e->converted_type = -1;
	e->lt_signed = true;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		switch (id)
		{
			case 1:
				ok = pq_t_i32(t, ft, &e->type);
				break;
			case 2:
				ok = pq_t_i32(t, ft, &e->type_length);
				break;
			case 3:
				ok = pq_t_i32(t, ft, &e->repetition);
				break;
			case 4:
				{
					const uint8_t *p;
					uint32_t	len;

					ok = pq_t_binary(t, ft, &p, &len);
					if (ok)
					{
						ts_free(e->name);
						e->name = ts_strndup((const char *) p, len);
						if (!e->name)
							return ts_error_nomem(t->err, NULL);
					}
					break;
				}
			case 5:
				ok = pq_t_i32(t, ft, &e->num_children);
				break;
			case 6:
				ok = pq_t_i32(t, ft, &e->converted_type);
				break;
			case 7:
				ok = pq_t_i32(t, ft, &e->scale);
				break;
			case 8:
				ok = pq_t_i32(t, ft, &e->precision);
				break;
			case 9:
				ok = pq_t_i32(t, ft, &e->field_id);
				e->has_field_id = ok;
				break;
			case 10:
				ok = ft == PQ_T_STRUCT ? parse_logical_type(t, e) : pq_t_skip(t, ft);
				break;
			default:
				ok = pq_t_skip(t, ft);
		}
		if (!ok)
			return false;
	}
	pq_t_end(t);
	if (!e->name)
		e->name = ts_strdup("");
	if (!e->name)
		return ts_error_nomem(t->err, NULL);
	return true;
}

static bool
parse_stats(pq_thrift *t, pq_stats *st)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	memset(st, 0, sizeof(*st));
	st->present = true;
	st->null_count = -1;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		switch (id)
		{
			case 1:
				ok = st->has_max = pq_t_binary(t, ft, &st->max, &st->max_len);
				break;
			case 2:
				ok = st->has_min = pq_t_binary(t, ft, &st->min, &st->min_len);
				break;
			case 3:
				ok = pq_t_i64(t, ft, &st->null_count);
				break;
			case 5:
				ok = st->has_max_value = pq_t_binary(t, ft, &st->max_value, &st->max_value_len);
				break;
			case 6:
				ok = st->has_min_value = pq_t_binary(t, ft, &st->min_value, &st->min_value_len);
				break;
			default:
				ok = pq_t_skip(t, ft);
		}
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_column_meta(pq_thrift *t, pq_column_chunk *cc)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	cc->has_meta = true;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		switch (id)
		{
			case 1:
				ok = pq_t_i32(t, ft, &cc->type);
				break;
			case 4:
				ok = pq_t_i32(t, ft, &cc->codec);
				break;
			case 5:
				ok = pq_t_i64(t, ft, &cc->num_values);
				break;
			case 6:
				ok = pq_t_i64(t, ft, &cc->total_uncompressed_size);
				break;
			case 7:
				ok = pq_t_i64(t, ft, &cc->total_compressed_size);
				break;
			case 9:
				ok = pq_t_i64(t, ft, &cc->data_page_offset);
				break;
			case 11:
				ok = pq_t_i64(t, ft, &cc->dictionary_page_offset);
				break;
			case 12:
				ok = ft == PQ_T_STRUCT ? parse_stats(t, &cc->stats) : pq_t_skip(t, ft);
				break;
			default:
				ok = pq_t_skip(t, ft);
		}
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_column_chunk(pq_thrift *t, pq_column_chunk *cc)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	memset(cc, 0, sizeof(*cc));
	cc->dictionary_page_offset = -1;
	cc->type = -1;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id == 1 && ft == PQ_T_BINARY)
		{
			const uint8_t *p;
			uint32_t	len;

			ok = pq_t_binary(t, ft, &p, &len);
			cc->external = len > 0;
		}
		else if (id == 3 && ft == PQ_T_STRUCT)
			ok = parse_column_meta(t, cc);
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_row_group(pq_thrift *t, pq_row_group *rg)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id == 1 && rg->columns == NULL)
		{
			int			et;
			uint32_t	n;

			if (!pq_t_list(t, ft, &et, &n))
				return false;
			if (et != PQ_T_STRUCT && n > 0)
				return ts_error(t->err, TS_ERR_CORRUPT, "row group columns are not structs");
			rg->columns = meta_calloc(t, n, sizeof(pq_column_chunk));
			if (!rg->columns)
				return false;
			rg->ncolumns = (int32_t) n;
			ok = true;
			for (uint32_t i = 0; ok && i < n; i++)
				ok = parse_column_chunk(t, &rg->columns[i]);
		}
		else if (id == 3)
			ok = pq_t_i64(t, ft, &rg->num_rows);
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

bool
pq_parse_file_meta(const uint8_t *buf, size_t len, pq_file_meta *m, ts_err *err)
{
	pq_thrift	th;
	pq_thrift  *t = &th;
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	memset(m, 0, sizeof(*m));
	ts_cursor_init(&th.c, buf, len);
	th.depth = 0;
	th.err = err;
	th.budget = len * 16 + ((size_t) 16 << 20);
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id == 2 && m->schema == NULL)
		{
			int			et;
			uint32_t	n;

			if (!pq_t_list(t, ft, &et, &n))
				return false;
			if (n == 0 || et != PQ_T_STRUCT)
				return ts_error(err, TS_ERR_CORRUPT, "footer has no schema");
			m->schema = meta_calloc(t, n, sizeof(pq_schema_elem));
			if (!m->schema)
				return false;
			ok = true;
			for (uint32_t i = 0; ok && i < n; i++)
			{
				ok = parse_schema_elem(t, &m->schema[i]);
				m->nschema = (int32_t) i + 1;
			}
		}
		else if (id == 3)
			ok = pq_t_i64(t, ft, &m->num_rows);
		else if (id == 4 && m->row_groups == NULL)
		{
			int			et;
			uint32_t	n;

			if (!pq_t_list(t, ft, &et, &n))
				return false;
			if (n > 0 && et != PQ_T_STRUCT)
				return ts_error(err, TS_ERR_CORRUPT, "row groups are not structs");
			m->row_groups = meta_calloc(t, n, sizeof(pq_row_group));
			if (!m->row_groups)
				return false;
			m->nrow_groups = (int32_t) n;
			ok = true;
			for (uint32_t i = 0; ok && i < n; i++)
				ok = parse_row_group(t, &m->row_groups[i]);
		}
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	if (m->nschema == 0)
		return ts_error(err, TS_ERR_CORRUPT, "footer has no schema");
	return true;
}

void
pq_free_file_meta(pq_file_meta *m)
{
	for (int i = 0; i < m->nschema; i++)
		ts_free(m->schema[i].name);
	ts_free(m->schema);
	for (int i = 0; i < m->nrow_groups; i++)
		ts_free(m->row_groups[i].columns);
	ts_free(m->row_groups);
	memset(m, 0, sizeof(*m));
}

/* ---- page headers -------------------------------------------------- */

static bool
parse_data_header(pq_thrift *t, pq_page_header *h, bool v2)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	h->has_data_header = true;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id == 1)
			ok = pq_t_i32(t, ft, &h->num_values);
		else if (!v2 && id == 2)
			ok = pq_t_i32(t, ft, &h->encoding);
		else if (!v2 && id == 3)
			ok = pq_t_i32(t, ft, &h->def_encoding);
		else if (!v2 && id == 4)
			ok = pq_t_i32(t, ft, &h->rep_encoding);
		else if (v2 && id == 2)
			ok = pq_t_i32(t, ft, &h->num_nulls);
		else if (v2 && id == 3)
			ok = pq_t_i32(t, ft, &h->num_rows);
		else if (v2 && id == 4)
			ok = pq_t_i32(t, ft, &h->encoding);
		else if (v2 && id == 5)
			ok = pq_t_i32(t, ft, &h->def_len);
		else if (v2 && id == 6)
			ok = pq_t_i32(t, ft, &h->rep_len);
		else if (v2 && id == 7)
			ok = pq_t_bool(t, ft, &h->is_compressed);
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

static bool
parse_dict_header(pq_thrift *t, pq_page_header *h)
{
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	h->has_dict_header = true;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		if (id == 1)
			ok = pq_t_i32(t, ft, &h->num_values);
		else if (id == 2)
			ok = pq_t_i32(t, ft, &h->encoding);
		else
			ok = pq_t_skip(t, ft);
		if (!ok)
			return false;
	}
	pq_t_end(t);
	return true;
}

bool
pq_parse_page_header(ts_cursor *c, pq_page_header *h, ts_err *err)
{
	pq_thrift	th;
	pq_thrift  *t = &th;
	pq_tstruct	s;
	int16_t		id;
	int			ft;

	memset(h, 0, sizeof(*h));
	h->type = -1;
	h->is_compressed = true;
	h->def_encoding = PQ_ENC_RLE;
	h->rep_encoding = PQ_ENC_RLE;
	th.c = *c;
	th.depth = 0;
	th.err = err;
	th.budget = 0;
	if (!pq_t_begin(t, &s))
		return false;
	for (;;)
	{
		bool		ok;

		if (!pq_t_field(t, &s, &id, &ft))
			return false;
		if (ft == PQ_T_STOP)
			break;
		switch (id)
		{
			case 1:
				ok = pq_t_i32(t, ft, &h->type);
				break;
			case 2:
				ok = pq_t_i32(t, ft, &h->uncompressed_size);
				break;
			case 3:
				ok = pq_t_i32(t, ft, &h->compressed_size);
				break;
			case 5:
				ok = ft == PQ_T_STRUCT ? parse_data_header(t, h, false) : pq_t_skip(t, ft);
				break;
			case 7:
				ok = ft == PQ_T_STRUCT ? parse_dict_header(t, h) : pq_t_skip(t, ft);
				break;
			case 8:
				ok = ft == PQ_T_STRUCT ? parse_data_header(t, h, true) : pq_t_skip(t, ft);
				break;
			default:
				ok = pq_t_skip(t, ft);
		}
		if (!ok)
			return false;
	}
	pq_t_end(t);
	if (h->compressed_size < 0 || h->uncompressed_size < 0 || h->num_values < 0 ||
		h->def_len < 0 || h->rep_len < 0 || h->num_nulls < 0)
		return ts_error(err, TS_ERR_CORRUPT, "negative size in page header");
	*c = th.c;
	return true;
}
