/*
 * manifest_equal.h - field-by-field equality of decoded manifest entries
 * for unit tests (cmocka asserts): two reads of the same manifest
 * (test_manifest_avro.c: the compiled and the generic Avro path;
 * test_manifest_cache.c: decoded and from a cache record).
 */
#ifndef TS_UNIT_MANIFEST_EQUAL_H
#define TS_UNIT_MANIFEST_EQUAL_H

#include "meta/manifest.h"

static inline void
same_bytes(ts_bytes a, ts_bytes b)
{
	assert_int_equal(a.data == NULL, b.data == NULL);
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.data, b.data, a.len);
}

static inline void
same_str(const char *a, const char *b)
{
	assert_int_equal(a == NULL, b == NULL);
	if (a)
		assert_string_equal(a, b);
}

static inline void
same_strs(int na, char **a, int nb, char **b)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++)
		same_str(a[i], b[i]);
}

static inline void
same_stats(const ts_simple_stats *a, const ts_simple_stats *b)
{
	same_bytes(a->min_values, b->min_values);
	same_bytes(a->max_values, b->max_values);
	assert_int_equal(a->nnull_counts, b->nnull_counts);
	for (int i = 0; i < a->nnull_counts; i++)
		assert_int_equal(a->null_counts[i], b->null_counts[i]);
}

static inline void
same_entry(const ts_manifest_entry *a, const ts_manifest_entry *b)
{
	const ts_data_file_meta *f = &a->file,
			   *g = &b->file;

	assert_int_equal(a->kind, b->kind);
	same_bytes(a->partition, b->partition);
	assert_int_equal(a->bucket, b->bucket);
	assert_int_equal(a->total_buckets, b->total_buckets);
	same_str(f->file_name, g->file_name);
	assert_int_equal(f->file_size, g->file_size);
	assert_int_equal(f->row_count, g->row_count);
	same_bytes(f->min_key, g->min_key);
	same_bytes(f->max_key, g->max_key);
	same_stats(&f->key_stats, &g->key_stats);
	same_stats(&f->value_stats, &g->value_stats);
	assert_int_equal(f->min_sequence_number, g->min_sequence_number);
	assert_int_equal(f->max_sequence_number, g->max_sequence_number);
	assert_int_equal(f->schema_id, g->schema_id);
	assert_int_equal(f->level, g->level);
	same_strs(f->nextra_files, f->extra_files, g->nextra_files, g->extra_files);
	assert_int_equal(f->has_creation_time, g->has_creation_time);
	assert_int_equal(f->creation_time_millis, g->creation_time_millis);
	assert_int_equal(f->delete_row_count, g->delete_row_count);
	same_bytes(f->embedded_file_index, g->embedded_file_index);
	assert_int_equal(f->file_source, g->file_source);
	same_strs(f->nvalue_stats_cols, f->value_stats_cols, g->nvalue_stats_cols, g->value_stats_cols);
	same_str(f->external_path, g->external_path);
	assert_int_equal(f->has_first_row_id, g->has_first_row_id);
	assert_int_equal(f->first_row_id, g->first_row_id);
	same_strs(f->nwrite_cols, f->write_cols, g->nwrite_cols, g->write_cols);
}

#endif
