/*
 * entry_copy.c - deep copies of manifest entries (see entry_copy.h).
 *
 * Owns: the size of what an entry points to, and the copy of an entry with
 * every pointer moved into one block (each piece 8-aligned), so that a
 * block of entries lives and goes as one allocation.
 */
#include <string.h>

#include "meta/entry_copy.h"

#define ALIGN8(n) (((n) + 7) & ~(size_t) 7)

/*
 * A copy that missed a pointer would leave the copy pointing into memory it
 * does not own (in shared memory: into another process's); a field added
 * to the structs changes these sizes and stops the build as a reminder.
 */
#if __SIZEOF_POINTER__ == 8
_Static_assert(sizeof(ts_data_file_meta) == 288 && sizeof(ts_manifest_entry) == 320,
			   "a field added to a manifest entry: size it in ts_entry_extra_size and copy it in ts_entry_copy_into");
#endif

size_t
ts_entry_bytes_size(ts_bytes b)
{
	return b.data ? ALIGN8((size_t) b.len) : 0;
}

static size_t
str_size(const char *s)
{
	return s ? ALIGN8(strlen(s) + 1) : 0;
}

static size_t
strs_size(char *const *v, int n)
{
	size_t		sz = 0;

	if (v == NULL || n <= 0)
		return 0;
	sz = ALIGN8(sizeof(char *) * (size_t) n);
	for (int i = 0; i < n; i++)
		sz += str_size(v[i]);
	return sz;
}

static size_t
stats_size(const ts_simple_stats *s)
{
	size_t		sz = ts_entry_bytes_size(s->min_values) + ts_entry_bytes_size(s->max_values);

	if (s->null_counts && s->nnull_counts > 0)
		sz += ALIGN8(sizeof(int64_t) * (size_t) s->nnull_counts);
	return sz;
}

size_t
ts_entry_extra_size(const ts_manifest_entry *e)
{
	const ts_data_file_meta *f = &e->file;

	return ts_entry_bytes_size(e->partition) + str_size(f->file_name) +
		ts_entry_bytes_size(f->min_key) + ts_entry_bytes_size(f->max_key) +
		stats_size(&f->key_stats) + stats_size(&f->value_stats) +
		strs_size(f->extra_files, f->nextra_files) +
		ts_entry_bytes_size(f->embedded_file_index) +
		strs_size(f->value_stats_cols, f->nvalue_stats_cols) +
		str_size(f->external_path) +
		strs_size(f->write_cols, f->nwrite_cols);
}

void *
ts_entry_take(char **cur, const void *src, size_t n)
{
	void	   *p = *cur;

	if (n)
		memcpy(p, src, n);
	*cur += ALIGN8(n);
	return p;
}

void
ts_entry_copy_bytes(ts_bytes *b, char **cur)
{
	if (b->data)
		b->data = ts_entry_take(cur, b->data, b->len);
}

static char *
copy_str(const char *s, char **cur)
{
	return s ? ts_entry_take(cur, s, strlen(s) + 1) : NULL;
}

static char **
copy_strs(char **v, int n, char **cur)
{
	char	  **out;

	if (v == NULL || n <= 0)
		return n < 0 ? NULL : v == NULL ? NULL : (char **) *cur;
	out = (char **) *cur;
	*cur += ALIGN8(sizeof(char *) * (size_t) n);
	for (int i = 0; i < n; i++)
		out[i] = copy_str(v[i], cur);
	return out;
}

static void
copy_stats(ts_simple_stats *s, char **cur)
{
	ts_entry_copy_bytes(&s->min_values, cur);
	ts_entry_copy_bytes(&s->max_values, cur);
	if (s->null_counts && s->nnull_counts > 0)
		s->null_counts = ts_entry_take(cur, s->null_counts, sizeof(int64_t) * (size_t) s->nnull_counts);
}

void
ts_entry_copy_into(ts_manifest_entry *dst, const ts_manifest_entry *src, char **cur)
{
	ts_data_file_meta *f = &dst->file;

	*dst = *src;
	ts_entry_copy_bytes(&dst->partition, cur);
	f->file_name = copy_str(f->file_name, cur);
	ts_entry_copy_bytes(&f->min_key, cur);
	ts_entry_copy_bytes(&f->max_key, cur);
	copy_stats(&f->key_stats, cur);
	copy_stats(&f->value_stats, cur);
	f->extra_files = copy_strs(f->extra_files, f->nextra_files, cur);
	ts_entry_copy_bytes(&f->embedded_file_index, cur);
	f->value_stats_cols = copy_strs(f->value_stats_cols, f->nvalue_stats_cols, cur);
	f->external_path = copy_str(f->external_path, cur);
	f->write_cols = copy_strs(f->write_cols, f->nwrite_cols, cur);
}
