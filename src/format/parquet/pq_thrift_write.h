/*
 * pq_thrift_write.h - writing the Thrift compact protocol of Parquet
 * metadata (page headers, the footer).
 *
 * Owns: the encoder both Parquet writers use (the product's streaming
 * writer, pq_writer.c, and the fixture generator's, tools/ts_gen_parquet.h):
 * varints, zigzag integers, field headers with delta ids, strings, list
 * headers, nested structs.  An allocation failure is remembered in
 * 'failed' (every later call does nothing); the caller checks it once.
 */
#ifndef TS_PQ_THRIFT_WRITE_H
#define TS_PQ_THRIFT_WRITE_H

#include "base/ts_base.h"

typedef struct ts_thrift_out
{
	ts_buf	   *b;
	int16_t		last[16];		/* last field id per struct depth */
	int			depth;
	bool		failed;
} ts_thrift_out;

void		ts_thrift_raw(ts_thrift_out *o, const void *p, size_t n);
void		ts_thrift_byte(ts_thrift_out *o, uint8_t v);
void		ts_thrift_varint(ts_thrift_out *o, uint64_t v);
void		ts_thrift_field(ts_thrift_out *o, int16_t id, uint8_t type);
void		ts_thrift_i64(ts_thrift_out *o, int16_t id, int64_t v);
void		ts_thrift_i32(ts_thrift_out *o, int16_t id, int32_t v);
void		ts_thrift_string(ts_thrift_out *o, int16_t id, const char *s);
void		ts_thrift_list(ts_thrift_out *o, int16_t id, uint8_t elem_type, int n);
/* a struct as a field (id > 0) or as a list element (id = 0) */
void		ts_thrift_struct_begin(ts_thrift_out *o, int16_t id);
void		ts_thrift_struct_end(ts_thrift_out *o);

#endif							/* TS_PQ_THRIFT_WRITE_H */
