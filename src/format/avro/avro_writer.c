/*
 * avro_writer.c - encode ts_value rows as an Avro object container (in memory).
 *
 * Owns: the Paimon-field -> Avro schema JSON conversion (mirroring Java's
 * AvroSchemaConverter naming and nullability), the value encoder driven
 * by the parsed writer schema, block framing with a sync marker, and the
 * block compressors.  Used by the fixture generator and tests only; the
 * output goes to a ts_buf, never to a file.
 */
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>
#include <zstd.h>

#include "base/ts_snappy.h"
#include "format/avro/avro_writer.h"

#define PAIMON_AVRO_NAMESPACE "org.apache.paimon.avro.generated"

struct ts_avro_writer
{
	ts_avro_schema *schema;
	char	   *schema_json;
	const ts_avro_node *record; /* top-level record */
	int			top_branch;		/* union branch of the record, -1 if no union */
	ts_type    *row_type;		/* Paimon ROW for fields API (MULTISET), or NULL */
	ts_avro_codec codec;
	int			zstd_level;		/* zstandard blocks: their level (default 1) */
	uint8_t		sync[16];
	size_t		block_size;
	int64_t		block_rows;		/* objects at which a block is flushed; 0: by size only */
	ts_buf		block;			/* uncompressed objects of the open block */
	int64_t		block_count;
	ts_buf		body;			/* framed blocks written so far */
	ts_buf		scratch;
	/* streaming (ts_avro_writer_stream): blocks go to the sink as framed */
	ts_avro_sink sink;
	void	   *sink_arg;
	int64_t		written;		/* bytes given to the sink */
	int64_t		rows;
};

/* ---- schema JSON for Paimon fields ------------------------------------ */

static cJSON *type_json(const ts_type *t, const char *row_name, ts_err *err);

static cJSON *
logical_json(const char *base, const char *logical)
{
	cJSON	   *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "type", base);
	cJSON_AddStringToObject(o, "logicalType", logical);
	return o;
}

static char *
join_name(const char *a, const char *b)
{
	return ts_psprintf("%s_%s", a, b);
}

/* short name of a full name within the Paimon namespace */
static const char *
short_name(const char *full)
{
	const char *dot = strrchr(full, '.');

	return dot ? dot + 1 : full;
}

static cJSON *
record_json(const ts_field *fields, int nfields, const char *row_name, bool top, ts_err *err)
{
	cJSON	   *rec = cJSON_CreateObject();
	cJSON	   *arr;

	if (rec == NULL)
		return NULL;
	cJSON_AddStringToObject(rec, "type", "record");
	cJSON_AddStringToObject(rec, "name", short_name(row_name));
	if (top)
		cJSON_AddStringToObject(rec, "namespace", PAIMON_AVRO_NAMESPACE);
	arr = cJSON_AddArrayToObject(rec, "fields");
	for (int i = 0; i < nfields; i++)
	{
		cJSON	   *f = cJSON_CreateObject();
		char	   *sub = join_name(row_name, fields[i].name);
		cJSON	   *ft;

		if (f == NULL || sub == NULL)
		{
			cJSON_Delete(f);
			ts_free(sub);
			cJSON_Delete(rec);
			ts_error_nomem(err, NULL);
			return NULL;
		}
		cJSON_AddItemToArray(arr, f);
		cJSON_AddStringToObject(f, "name", fields[i].name);
		ft = type_json(fields[i].type, sub, err);
		ts_free(sub);
		if (ft == NULL)
		{
			cJSON_Delete(rec);
			return NULL;
		}
		cJSON_AddItemToObject(f, "type", ft);
		if (fields[i].type->nullable)
			cJSON_AddNullToObject(f, "default");
	}
	return rec;
}

static cJSON *
type_json(const ts_type *t, const char *row_name, ts_err *err)
{
	cJSON	   *j = NULL;

	switch (t->kind)
	{
		case TS_BOOLEAN:
			j = cJSON_CreateString("boolean");
			break;
		case TS_TINYINT:
		case TS_SMALLINT:
		case TS_INT:
			j = cJSON_CreateString("int");
			break;
		case TS_BIGINT:
			j = cJSON_CreateString("long");
			break;
		case TS_FLOAT:
			j = cJSON_CreateString("float");
			break;
		case TS_DOUBLE:
			j = cJSON_CreateString("double");
			break;
		case TS_CHAR:
		case TS_VARCHAR:
			j = cJSON_CreateString("string");
			break;
		case TS_BINARY:
		case TS_VARBINARY:
			j = cJSON_CreateString("bytes");
			break;
		case TS_TIMESTAMP:
		case TS_TIMESTAMP_LTZ:
			{
				bool		ltz = t->kind == TS_TIMESTAMP_LTZ;

				if (t->precision > 6)
				{
					ts_error(err, TS_ERR_UNSUPPORTED, "Avro cannot hold TIMESTAMP(%d)", (int) t->precision);
					return NULL;
				}
				j = logical_json("long", t->precision <= 3 ?
								 (ltz ? "local-timestamp-millis" : "timestamp-millis") :
								 (ltz ? "local-timestamp-micros" : "timestamp-micros"));
			}
			break;
		case TS_DATE:
			j = logical_json("int", "date");
			break;
		case TS_TIME:
			if (t->precision > 3)
			{
				ts_error(err, TS_ERR_UNSUPPORTED, "Avro cannot hold TIME(%d)", (int) t->precision);
				return NULL;
			}
			j = logical_json("int", "time-millis");
			break;
		case TS_DECIMAL:
			j = logical_json("bytes", "decimal");
			if (j)
			{
				cJSON_AddNumberToObject(j, "precision", t->precision);
				cJSON_AddNumberToObject(j, "scale", t->scale);
			}
			break;
		case TS_ROW:
			j = record_json(t->fields, t->nfields, row_name, false, err);
			if (j == NULL)
				return NULL;
			break;
		case TS_MAP:
		case TS_MULTISET:
			{
				const ts_type *kt = t->kind == TS_MAP ? t->key : t->element;
				static const ts_type count_type = {.kind = TS_INT, .nullable = false};
				const ts_type *vt = t->kind == TS_MAP ? t->value : &count_type;

				if (kt == NULL || vt == NULL)
				{
					ts_error(err, TS_ERR_INVALID, "MAP/MULTISET type without key or value");
					return NULL;
				}
				if (kt->kind != TS_VARCHAR && kt->kind != TS_CHAR)
				{
					ts_field	kv[2];
					ts_type		kcopy = *kt;
					cJSON	   *rec;

					memset(kv, 0, sizeof(kv));
					kv[0].name = "key";
					kv[0].type = &kcopy;
					kv[1].name = "value";
					kv[1].type = (ts_type *) vt;
					/* the key field never gets a default (Java: noDefault) */
					kcopy.nullable = false;
					rec = record_json(kv, 2, row_name, false, err);
					if (rec == NULL)
						return NULL;
					if (kt->nullable)
					{
						/* key type stays as declared; only the default differs */
						cJSON	   *kf = cJSON_GetArrayItem(cJSON_GetObjectItem(rec, "fields"), 0);
						char	   *sub = join_name(row_name, "key");
						cJSON	   *ktj = sub ? type_json(kt, sub, err) : NULL;

						ts_free(sub);
						if (ktj == NULL)
						{
							cJSON_Delete(rec);
							return NULL;
						}
						cJSON_ReplaceItemInObject(kf, "type", ktj);
					}
					j = cJSON_CreateObject();
					if (j)
					{
						cJSON_AddStringToObject(j, "type", "array");
						cJSON_AddItemToObject(j, "items", rec);
						cJSON_AddStringToObject(j, "logicalType", "map");
					}
					else
						cJSON_Delete(rec);
				}
				else
				{
					cJSON	   *vj = type_json(vt, row_name, err);

					if (vj == NULL)
						return NULL;
					j = cJSON_CreateObject();
					if (j)
					{
						cJSON_AddStringToObject(j, "type", "map");
						cJSON_AddItemToObject(j, "values", vj);
					}
					else
						cJSON_Delete(vj);
				}
			}
			break;
		case TS_ARRAY:
			{
				cJSON	   *ej;

				if (t->element == NULL)
				{
					ts_error(err, TS_ERR_INVALID, "ARRAY type without element");
					return NULL;
				}
				ej = type_json(t->element, row_name, err);
				if (ej == NULL)
					return NULL;
				j = cJSON_CreateObject();
				if (j)
				{
					cJSON_AddStringToObject(j, "type", "array");
					cJSON_AddItemToObject(j, "items", ej);
				}
				else
					cJSON_Delete(ej);
			}
			break;
		default:
			ts_error(err, TS_ERR_UNSUPPORTED, "Avro writer: unsupported Paimon type kind %d", (int) t->kind);
			return NULL;
	}
	if (j == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	if (t->nullable)
	{
		cJSON	   *u = cJSON_CreateArray();

		if (u == NULL)
		{
			cJSON_Delete(j);
			ts_error_nomem(err, NULL);
			return NULL;
		}
		cJSON_AddItemToArray(u, cJSON_CreateString("null"));
		cJSON_AddItemToArray(u, j);
		j = u;
	}
	return j;
}

char *
ts_avro_schema_json_for_fields(const ts_field *fields, int nfields, ts_err *err)
{
	cJSON	   *rec = record_json(fields, nfields, PAIMON_AVRO_NAMESPACE ".record", true, err);
	char	   *s,
			   *r;

	if (rec == NULL)
		return NULL;
	s = cJSON_PrintUnformatted(rec);
	cJSON_Delete(rec);
	if (s == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	r = ts_strdup(s);
	cJSON_free(s);
	if (r == NULL)
		ts_error_nomem(err, NULL);
	return r;
}

/* ---- compression ------------------------------------------------------ */

bool
ts_avro_compress(ts_avro_codec codec, int zstd_level, const uint8_t *in, size_t len, ts_buf *out,
				 ts_err *err)
{
	ts_buf_reset(out);
	switch (codec)
	{
		case TS_AVRO_CODEC_NULL:
			return ts_buf_append(out, in, len, err);
		case TS_AVRO_CODEC_DEFLATE:
			{
				z_stream	zs;
				uLong		bound;
				int			rc;

				memset(&zs, 0, sizeof(zs));
				if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
					return ts_error(err, TS_ERR_NOMEM, "deflateInit2 failed");
				bound = deflateBound(&zs, (uLong) len);
				if (!ts_buf_reserve(out, bound, err))
				{
					deflateEnd(&zs);
					return false;
				}
				zs.next_in = (Bytef *) in;
				zs.avail_in = (uInt) len;
				zs.next_out = out->data;
				zs.avail_out = (uInt) bound;
				rc = deflate(&zs, Z_FINISH);
				out->len = bound - zs.avail_out;
				deflateEnd(&zs);
				if (rc != Z_STREAM_END)
					return ts_error(err, TS_ERR_IO, "deflate failed");
				return true;
			}
		case TS_AVRO_CODEC_SNAPPY:
			{
				const ts_snappy_api *snappy = ts_snappy(err);
				size_t		clen;
				uint32_t	crc;

				if (snappy == NULL)
					return false;
				clen = snappy->max_compressed_length(len);
				if (!ts_buf_reserve(out, clen + 4, err))
					return false;
				if (snappy->compress((const char *) in, len, (char *) out->data, &clen) != SNAPPY_OK)
					return ts_error(err, TS_ERR_IO, "snappy_compress failed");
				crc = (uint32_t) crc32(0L, in, (uInt) len);
				ts_store_be32(out->data + clen, crc);
				out->len = clen + 4;
				return true;
			}
		case TS_AVRO_CODEC_ZSTANDARD:
			{
				/* like Java: a streamed frame without content size */
				ZSTD_CCtx  *cctx = ZSTD_createCCtx();
				ZSTD_inBuffer ib = {in, len, 0};
				size_t		bound = ZSTD_compressBound(len) + 64;
				ZSTD_outBuffer ob;
				size_t		rc;

				if (cctx == NULL)
					return ts_error(err, TS_ERR_NOMEM, "ZSTD_createCCtx failed");
				if (!ts_buf_reserve(out, bound, err))
				{
					ZSTD_freeCCtx(cctx);
					return false;
				}
				ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
				ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
				ob.dst = out->data;
				ob.size = bound;
				ob.pos = 0;
				rc = ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_end);
				ZSTD_freeCCtx(cctx);
				if (ZSTD_isError(rc) || rc != 0)
					return ts_error(err, TS_ERR_IO, "zstd compression failed");
				out->len = ob.pos;
				return true;
			}
	}
	return ts_error(err, TS_ERR_UNSUPPORTED, "unknown Avro codec");
}

/* ---- encoding --------------------------------------------------------- */

static bool
put_long(ts_buf *b, int64_t v, ts_err *err)
{
	uint8_t		tmp[10];
	int			n = 0;
	uint64_t	u = ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);

	while (u >= 0x80)
	{
		tmp[n++] = (uint8_t) (u | 0x80);
		u >>= 7;
	}
	tmp[n++] = (uint8_t) u;
	return ts_buf_append(b, tmp, n, err);
}

static bool
put_bytes(ts_buf *b, const uint8_t *p, size_t len, ts_err *err)
{
	if (!put_long(b, (int64_t) len, err))
		return false;
	return len == 0 || ts_buf_append(b, p, len, err);
}

/* Minimal big-endian two's complement of v (Java BigInteger.toByteArray). */
static int
decimal_bytes(ts_int128 v, uint8_t out[16])
{
	uint8_t		full[16];
	int			start = 0;

	for (int i = 0; i < 16; i++)
		full[15 - i] = (uint8_t) ((unsigned __int128) v >> (8 * i));
	while (start < 15 &&
		   ((full[start] == 0x00 && (full[start + 1] & 0x80) == 0) ||
			(full[start] == 0xff && (full[start + 1] & 0x80))))
		start++;
	memcpy(out, full + start, 16 - start);
	return 16 - start;
}

static bool
values_equal(const ts_value *a, const ts_value *b, const ts_type *t)
{
	if (a->isnull || b->isnull)
		return a->isnull == b->isnull;
	if (t && ts_type_is_bytes(t->kind))
		return a->v.s.len == b->v.s.len && memcmp(a->v.s.p, b->v.s.p, a->v.s.len) == 0;
	if (t && t->kind == TS_DECIMAL)
		return a->v.dec == b->v.dec;
	if (t && (t->kind == TS_TIMESTAMP || t->kind == TS_TIMESTAMP_LTZ))
		return a->v.ts.millis == b->v.ts.millis && a->v.ts.nanos == b->v.ts.nanos;
	if (t && t->kind == TS_FLOAT)
		return a->v.f == b->v.f;
	if (t && t->kind == TS_DOUBLE)
		return a->v.d == b->v.d;
	return a->v.i == b->v.i;
}

static bool encode(ts_buf *b, const ts_avro_node *n, const ts_type *t, const ts_value *v,
				   int depth, ts_err *err);

static bool
encode_record(ts_buf *b, const ts_avro_node *n, const ts_type *t, const ts_value *items,
			  int nitems, int depth, ts_err *err)
{
	if (nitems != n->nchildren)
		return ts_error(err, TS_ERR_INVALID, "record %s has %d fields, value has %d",
						n->name ? n->name : "?", n->nchildren, nitems);
	for (int i = 0; i < n->nchildren; i++)
	{
		const ts_type *ft = (t && t->kind == TS_ROW && i < t->nfields) ? t->fields[i].type : NULL;

		if (!encode(b, n->children[i], ft, &items[i], depth + 1, err))
			return ts_error_context(err, "field \"%s\"", n->field_names[i]);
	}
	return true;
}

/* MULTISET: write distinct elements with counts, via a kv record or a map. */
static bool
encode_multiset(ts_buf *b, const ts_avro_node *n, const ts_type *t, const ts_value *v,
				int depth, ts_err *err)
{
	int			ndistinct = 0;
	int32_t		total = v->v.nested.n;
	bool	   *seen = ts_calloc(total ? total : 1, sizeof(bool));
	bool		ok = true;

	if (seen == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < total; i++)
	{
		bool		dup = false;

		for (int k = 0; k < i && !dup; k++)
			dup = values_equal(&v->v.nested.items[k], &v->v.nested.items[i], t->element);
		seen[i] = dup;
		if (!dup)
			ndistinct++;
	}
	if (ndistinct > 0)
		ok = put_long(b, ndistinct, err);
	for (int i = 0; ok && i < total; i++)
	{
		ts_value	count;

		if (seen[i])
			continue;
		count.isnull = false;
		count.v.i = 0;
		for (int k = i; k < total; k++)
			if (values_equal(&v->v.nested.items[k], &v->v.nested.items[i], t->element))
				count.v.i++;
		if (n->kind == TS_AVRO_MAP)
		{
			const ts_value *e = &v->v.nested.items[i];

			ok = put_bytes(b, e->v.s.p, e->v.s.len, err) &&
				encode(b, n->children[0], NULL, &count, depth + 1, err);
		}
		else
		{
			ts_value	kv[2];

			kv[0] = v->v.nested.items[i];
			kv[1] = count;
			ok = encode_record(b, n->children[0], NULL, kv, 2, depth + 1, err);
		}
	}
	ts_free(seen);
	return ok && put_long(b, 0, err);
}

static bool
encode(ts_buf *b, const ts_avro_node *n, const ts_type *t, const ts_value *v, int depth, ts_err *err)
{
	if (depth > TS_AVRO_MAX_DEPTH)
		return ts_error(err, TS_ERR_INVALID, "value nested too deeply");
	if (n->kind == TS_AVRO_UNION)
	{
		for (int i = 0; i < n->nchildren; i++)
		{
			bool		is_null_branch = n->children[i]->kind == TS_AVRO_NULL;

			if (is_null_branch == v->isnull)
				return put_long(b, i, err) && encode(b, n->children[i], t, v, depth + 1, err);
		}
		return ts_error(err, TS_ERR_INVALID, v->isnull ? "NULL for a non-nullable Avro value" :
						"union has no non-null branch");
	}
	if (n->kind == TS_AVRO_NULL)
		return true;
	if (v->isnull)
		return ts_error(err, TS_ERR_INVALID, "NULL for a non-nullable Avro %s", ts_avro_kind_name(n->kind));
	switch (n->kind)
	{
		case TS_AVRO_BOOLEAN:
			{
				uint8_t		c = v->v.i ? 1 : 0;

				return ts_buf_append(b, &c, 1, err);
			}
		case TS_AVRO_INT:
			return put_long(b, (int32_t) v->v.i, err);
		case TS_AVRO_LONG:
			switch (n->logical)
			{
				case TS_AVRO_LT_TIMESTAMP_MILLIS:
				case TS_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
					return put_long(b, v->v.ts.millis, err);
				case TS_AVRO_LT_TIMESTAMP_MICROS:
				case TS_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
					return put_long(b, v->v.ts.millis * 1000 + v->v.ts.nanos / 1000, err);
				case TS_AVRO_LT_TIMESTAMP_NANOS:
				case TS_AVRO_LT_LOCAL_TIMESTAMP_NANOS:
					return put_long(b, v->v.ts.millis * 1000000 + v->v.ts.nanos, err);
				case TS_AVRO_LT_TIME_MICROS:
					return put_long(b, v->v.i * 1000, err);
				default:
					return put_long(b, v->v.i, err);
			}
		case TS_AVRO_FLOAT:
			{
				uint8_t		le[4];
				uint32_t	bits;

				memcpy(&bits, &v->v.f, 4);
				ts_store_le32(le, bits);
				return ts_buf_append(b, le, 4, err);
			}
		case TS_AVRO_DOUBLE:
			{
				uint8_t		le[8];
				uint64_t	bits;

				memcpy(&bits, &v->v.d, 8);
				ts_store_le64(le, bits);
				return ts_buf_append(b, le, 8, err);
			}
		case TS_AVRO_BYTES:
		case TS_AVRO_STRING:
			if (n->logical == TS_AVRO_LT_DECIMAL)
			{
				uint8_t		d[16];
				int			len = decimal_bytes(v->v.dec, d);

				return put_bytes(b, d, len, err);
			}
			return put_bytes(b, v->v.s.p, v->v.s.len, err);
		case TS_AVRO_FIXED:
			if (n->logical == TS_AVRO_LT_DECIMAL)
			{
				uint8_t		d[16];
				int			len = decimal_bytes(v->v.dec, d);
				uint8_t		pad = (d[0] & 0x80) ? 0xff : 0x00;

				if (len > n->fixed_size)
					return ts_error(err, TS_ERR_INVALID, "decimal does not fit fixed(%d)", (int) n->fixed_size);
				for (int i = len; i < n->fixed_size; i++)
					if (!ts_buf_append(b, &pad, 1, err))
						return false;
				return ts_buf_append(b, d, len, err);
			}
			if (v->v.s.len != (uint32_t) n->fixed_size)
				return ts_error(err, TS_ERR_INVALID, "value of %u bytes for fixed(%d)",
								v->v.s.len, (int) n->fixed_size);
			return ts_buf_append(b, v->v.s.p, v->v.s.len, err);
		case TS_AVRO_ENUM:
			for (int i = 0; i < n->nsymbols; i++)
				if (strlen(n->symbols[i]) == v->v.s.len &&
					memcmp(n->symbols[i], v->v.s.p, v->v.s.len) == 0)
					return put_long(b, i, err);
			return ts_error(err, TS_ERR_INVALID, "value is not a symbol of enum %s", n->name);
		case TS_AVRO_RECORD:
			return encode_record(b, n, t, v->v.nested.items, v->v.nested.n, depth, err);
		case TS_AVRO_ARRAY:
			if (t && t->kind == TS_MULTISET && n->logical == TS_AVRO_LT_MAP)
				return encode_multiset(b, n, t, v, depth, err);
			if (n->logical == TS_AVRO_LT_MAP)
			{
				const ts_avro_node *kv = n->children[0];
				ts_field	kvf[2];
				ts_type		kvt;

				if (t && t->kind == TS_MAP)
				{
					memset(kvf, 0, sizeof(kvf));
					memset(&kvt, 0, sizeof(kvt));
					kvf[0].type = t->key;
					kvf[1].type = t->value;
					kvt.kind = TS_ROW;
					kvt.nfields = 2;
					kvt.fields = kvf;
				}
				if (v->v.nested.n > 0 && !put_long(b, v->v.nested.n, err))
					return false;
				for (int i = 0; i < v->v.nested.n; i++)
					if (!encode_record(b, kv, (t && t->kind == TS_MAP) ? &kvt : NULL,
									   &v->v.nested.items[2 * i], 2, depth + 1, err))
						return false;
				return put_long(b, 0, err);
			}
			if (v->v.nested.n > 0 && !put_long(b, v->v.nested.n, err))
				return false;
			for (int i = 0; i < v->v.nested.n; i++)
				if (!encode(b, n->children[0], t ? t->element : NULL, &v->v.nested.items[i], depth + 1, err))
					return false;
			return put_long(b, 0, err);
		case TS_AVRO_MAP:
			if (t && t->kind == TS_MULTISET)
				return encode_multiset(b, n, t, v, depth, err);
			if (v->v.nested.n > 0 && !put_long(b, v->v.nested.n, err))
				return false;
			for (int i = 0; i < v->v.nested.n; i++)
			{
				const ts_value *k = &v->v.nested.items[2 * i];

				if (k->isnull)
					return ts_error(err, TS_ERR_INVALID, "NULL map key");
				if (!put_bytes(b, k->v.s.p, k->v.s.len, err) ||
					!encode(b, n->children[0], t ? t->value : NULL, &v->v.nested.items[2 * i + 1], depth + 1, err))
					return false;
			}
			return put_long(b, 0, err);
		default:
			break;
	}
	return ts_error(err, TS_ERR_INVALID, "cannot encode Avro %s", ts_avro_kind_name(n->kind));
}

/* ---- writer ----------------------------------------------------------- */

static ts_avro_writer *
writer_new(const char *schema_json, ts_avro_codec codec, ts_err *err)
{
	ts_avro_writer *w = ts_calloc(1, sizeof(ts_avro_writer));
	int			nb;
	uint32_t	h;

	if (w == NULL)
	{
		ts_error_nomem(err, NULL);
		return NULL;
	}
	ts_buf_init(&w->block);
	ts_buf_init(&w->body);
	ts_buf_init(&w->scratch);
	w->codec = codec;
	w->zstd_level = 1;
	w->block_size = 64 * 1024;
	w->schema_json = ts_strdup(schema_json);
	if (w->schema_json == NULL)
	{
		ts_error_nomem(err, NULL);
		goto fail;
	}
	w->schema = ts_avro_schema_parse(schema_json, strlen(schema_json), "(writer schema)", err);
	if (w->schema == NULL)
		goto fail;
	w->record = ts_avro_unwrap_nullable(w->schema->root, &nb);
	if (w->record == NULL || w->record->kind != TS_AVRO_RECORD)
	{
		ts_error(err, TS_ERR_INVALID, "Avro writer: top-level schema must be a record or [\"null\", record]");
		goto fail;
	}
	w->top_branch = -1;
	if (w->schema->root->kind == TS_AVRO_UNION)
		for (int i = 0; i < w->schema->root->nchildren; i++)
			if (w->schema->root->children[i] == w->record)
				w->top_branch = i;
	/* deterministic sync marker derived from the schema */
	h = (uint32_t) crc32(0L, (const Bytef *) schema_json, (uInt) strlen(schema_json));
	for (int i = 0; i < 16; i++)
	{
		h = h * 1103515245u + 12345u;
		w->sync[i] = (uint8_t) (h >> 16);
	}
	return w;
fail:
	ts_avro_writer_free(w);
	return NULL;
}

ts_avro_writer *
ts_avro_writer_create(const char *schema_json, ts_avro_codec codec, ts_err *err)
{
	return writer_new(schema_json, codec, err);
}

ts_avro_writer *
ts_avro_writer_create_for_fields(const ts_field *fields, int nfields,
								 ts_avro_codec codec, ts_err *err)
{
	char	   *json = ts_avro_schema_json_for_fields(fields, nfields, err);
	ts_avro_writer *w;

	if (json == NULL)
		return NULL;
	w = writer_new(json, codec, err);
	ts_free(json);
	if (w == NULL)
		return NULL;
	/* keep a shallow ROW type over the caller's fields for MULTISET */
	w->row_type = ts_calloc(1, sizeof(ts_type));
	if (w->row_type == NULL)
	{
		ts_avro_writer_free(w);
		ts_error_nomem(err, NULL);
		return NULL;
	}
	w->row_type->kind = TS_ROW;
	w->row_type->nfields = nfields;
	w->row_type->fields = (ts_field *) fields;
	return w;
}

void
ts_avro_writer_set_sync(ts_avro_writer *w, const uint8_t sync[16])
{
	memcpy(w->sync, sync, 16);
}

void
ts_avro_writer_set_block_size(ts_avro_writer *w, size_t bytes)
{
	w->block_size = bytes ? bytes : 1;
}

void
ts_avro_writer_set_block_rows(ts_avro_writer *w, int64_t rows)
{
	w->block_rows = rows > 0 ? rows : 0;
}

void
ts_avro_writer_set_zstd_level(ts_avro_writer *w, int level)
{
	w->zstd_level = level;
}

int
ts_avro_writer_ncols(const ts_avro_writer *w)
{
	return w->record->nchildren;
}

static bool
flush_block(ts_avro_writer *w, ts_err *err)
{
	if (w->block_count == 0)
		return true;
	if (!ts_avro_compress(w->codec, w->zstd_level, w->block.data, w->block.len, &w->scratch, err))
		return false;
	if (!put_long(&w->body, w->block_count, err) ||
		!put_long(&w->body, (int64_t) w->scratch.len, err) ||
		!ts_buf_append(&w->body, w->scratch.data, w->scratch.len, err) ||
		!ts_buf_append(&w->body, w->sync, 16, err))
		return false;
	ts_buf_reset(&w->block);
	w->block_count = 0;
	if (w->sink != NULL)
	{
		if (!w->sink(w->sink_arg, w->body.data, w->body.len, err))
			return false;
		w->written += (int64_t) w->body.len;
		ts_buf_reset(&w->body);
	}
	return true;
}

bool
ts_avro_writer_add(ts_avro_writer *w, const ts_value *values, ts_err *err)
{
	size_t		mark = w->block.len;

	if (w->top_branch >= 0 && !put_long(&w->block, w->top_branch, err))
		return false;
	if (!encode_record(&w->block, w->record, w->row_type, values, w->record->nchildren, 0, err))
	{
		w->block.len = mark;
		return false;
	}
	w->block_count++;
	w->rows++;
	if (w->block.len >= w->block_size || (w->block_rows > 0 && w->block_count >= w->block_rows))
		return flush_block(w, err);
	return true;
}

/* The container header: magic, metadata (schema, codec), sync marker. */
static bool
put_header(ts_avro_writer *w, ts_buf *out, ts_err *err)
{
	static const uint8_t magic[4] = {'O', 'b', 'j', 1};
	const char *codec = ts_avro_codec_name(w->codec);

	return ts_buf_append(out, magic, 4, err) &&
		put_long(out, 2, err) &&
		put_bytes(out, (const uint8_t *) "avro.schema", 11, err) &&
		put_bytes(out, (const uint8_t *) w->schema_json, strlen(w->schema_json), err) &&
		put_bytes(out, (const uint8_t *) "avro.codec", 10, err) &&
		put_bytes(out, (const uint8_t *) codec, strlen(codec), err) &&
		put_long(out, 0, err) &&
		ts_buf_append(out, w->sync, 16, err);
}

bool
ts_avro_writer_stream(ts_avro_writer *w, ts_avro_sink sink, void *arg, ts_err *err)
{
	ts_buf		header;
	bool		ok;

	ts_buf_init(&header);
	ok = put_header(w, &header, err) && sink(arg, header.data, header.len, err);
	if (ok)
	{
		w->sink = sink;
		w->sink_arg = arg;
		w->written = (int64_t) header.len;
	}
	ts_buf_free(&header);
	return ok;
}

int64_t
ts_avro_writer_bytes(const ts_avro_writer *w)
{
	return w->written + (int64_t) (w->body.len + w->block.len);
}

int64_t
ts_avro_writer_rows(const ts_avro_writer *w)
{
	return w->rows;
}

bool
ts_avro_writer_finish(ts_avro_writer *w, ts_buf *out, ts_err *err)
{
	if (!flush_block(w, err))
		return false;
	if (w->sink != NULL)
		return true;
	return put_header(w, out, err) && ts_buf_append(out, w->body.data, w->body.len, err);
}

void
ts_avro_writer_free(ts_avro_writer *w)
{
	if (w == NULL)
		return;
	ts_avro_schema_free(w->schema);
	ts_free(w->schema_json);
	ts_free(w->row_type);
	ts_buf_free(&w->block);
	ts_buf_free(&w->body);
	ts_buf_free(&w->scratch);
	ts_free(w);
}
