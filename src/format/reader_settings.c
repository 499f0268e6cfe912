/*
 * reader_settings.c - what a format reader keeps of ts_reader_options.
 *
 * Owns: the one copy of the reader options (filters, byte range, buffers,
 * batch size) the Parquet, ORC and Avro readers make when they open.  Apart
 * from format.c so that a program linking one reader (pq_dump, ft_dump)
 * does not pull in every other reader through ts_format_open.
 */
#include <string.h>

#include "format/format.h"

int
ts_reader_batch_rows(const ts_reader_options *options)
{
	return options && options->batch_rows > 0 ? options->batch_rows : TS_BATCH_ROWS;
}

ts_fs *
ts_reader_fs(const ts_reader_options *options)
{
	return options ? options->fs : NULL;
}

void
ts_reader_settings_init(ts_reader_settings *s, const ts_reader_options *options)
{
	memset(s, 0, sizeof(*s));
	s->batch_rows = ts_reader_batch_rows(options);
	s->chunk_buffer_bytes = options && options->chunk_buffer_bytes > 0 ?
		options->chunk_buffer_bytes : TS_CHUNK_BUFFER_BYTES;
	if (options)
	{
		s->stats_filter = options->stats_filter;
		s->stats_filter_arg = options->stats_filter_arg;
		s->rows_filter = options->rows_filter;
		s->rows_filter_arg = options->rows_filter_arg;
		s->buffers = options->buffers;
		s->range_start = options->range_start;
		s->range_end = options->range_end;
		s->head_bytes = options->head_bytes;
	}
	if (s->head_bytes == 0)
		s->head_bytes = TS_HEAD_BYTES_DEFAULT;
	else if (s->head_bytes < 0)
		s->head_bytes = 0;
}
