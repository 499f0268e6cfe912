/*
 * global_index.c - one predicate leaf on one global index file (see
 * global_index.h).  Only the bitmap kind is read; it shares fi_bitmap.c
 * with the bitmap file index.
 */
#include <string.h>

#include "format/fileindex/fi_internal.h"
#include "format/fileindex/global_index.h"

bool
ts_global_index_kind_supported(const char *index_type)
{
	return index_type && strcmp(index_type, "bitmap") == 0;
}

bool
ts_global_index_leaf(const char *index_type, const uint8_t *body, size_t len, const ts_type *t,
					 const ts_predicate *p, bool *all, void **rows, ts_err *err)
{
	fi_res		r = {FI_REMAIN, NULL};

	*all = true;
	*rows = NULL;
	if (!ts_global_index_kind_supported(index_type))
		return true;
	if (!fi_bitmap_leaf(body, len, t, p, &r, err))
		return false;
	switch (r.state)
	{
		case FI_REMAIN:
			fi_res_clear(&r);
			return true;
		case FI_SKIP:
			*all = false;
			*rows = roaring_bitmap_create();
			if (*rows == NULL)
				return ts_error_nomem(err, NULL);
			return true;
		case FI_ROWS:
			*all = false;
			*rows = r.rows;
			return true;
	}
	fi_res_clear(&r);
	return true;
}

void
ts_global_index_rows_free(void *rows)
{
	if (rows)
		roaring_bitmap_free(rows);
}
