/*
 * fs_parts.c - the streaming writer every object store shares (fs_impl.h).
 *
 * Owns: a data file written through a buffer of one part: sent by the
 * store's whole-object put when it stays below a part, else as an upload
 * in parts (S3's multipart upload, Azure's blocks) whose parts go out as
 * the buffer fills, the last part never empty; memory is bounded by one
 * part per open file.  The store gives the protocol (fs_part_ops); this
 * file keeps the buffer, the part numbers and the tags the store returns.
 */
#include <string.h>

#include "base/fs_impl.h"

typedef struct part_writer
{
	ts_fs_writer head;
	const fs_part_ops *po;
	uint8_t    *buf;			/* po->part_size bytes */
	size_t		len;
	char	   *upload;			/* once the file outgrew one part */
	char	  **tags;			/* per part sent: what the store answered (may be NULL) */
	int			nparts;
	int			cap_parts;
} part_writer;

static void
writer_free(part_writer *w)
{
	for (int i = 0; i < w->nparts; i++)
		ts_free(w->tags[i]);
	ts_free(w->tags);
	ts_free(w->upload);
	ts_free(w->buf);
	ts_free(w->head.path);
	ts_free(w);
}

ts_fs_writer *
fs_part_writer_open(ts_fs *fs, const char *path, const fs_part_ops *po, ts_err *err)
{
	part_writer *w = ts_calloc(1, sizeof(part_writer));

	if (w == NULL || (w->head.path = ts_strdup(path)) == NULL ||
		(w->buf = ts_malloc(po->part_size)) == NULL)
	{
		if (w)
			writer_free(w);
		ts_error_nomemf(err, "writing \"%s\"", path);
		return NULL;
	}
	w->head.fs = fs;
	w->po = po;
	return &w->head;
}

/* Send the buffer as the next part (starting the upload first). */
static bool
send_part(part_writer *w, ts_err *err)
{
	char	   *tag = NULL;

	if (w->upload == NULL && !w->po->start(w->head.fs, w->head.path, &w->upload, err))
		return false;
	if (w->nparts == w->cap_parts)
	{
		int			cap = w->cap_parts ? w->cap_parts * 2 : 8;
		char	  **t = ts_realloc(w->tags, sizeof(char *) * (size_t) cap);

		if (t == NULL)
			return ts_error_nomemf(err, "writing \"%s\"", w->head.path);
		w->tags = t;
		w->cap_parts = cap;
	}
	if (!w->po->part(w->head.fs, w->head.path, w->upload, w->nparts + 1, w->buf, w->len,
					 &tag, err))
		return false;
	w->tags[w->nparts++] = tag;
	w->len = 0;
	return true;
}

bool
fs_part_writer_write(ts_fs_writer *head, const void *data, size_t len, ts_err *err)
{
	part_writer *w = (part_writer *) head;
	const uint8_t *p = data;

	while (len > 0)
	{
		size_t		k = w->po->part_size - w->len;

		if (k > len)
			k = len;
		memcpy(w->buf + w->len, p, k);
		w->len += k;
		p += k;
		len -= k;
		head->size += (int64_t) k;
		/* a full buffer goes out once more bytes come: the last part is never empty */
		if (w->len == w->po->part_size && len > 0 && !send_part(w, err))
			return false;
	}
	return true;
}

void
fs_part_writer_abort(ts_fs_writer *head)
{
	part_writer *w = (part_writer *) head;

	if (w->upload != NULL)
		w->po->abort(head->fs, head->path, w->upload, w->nparts);
	writer_free(w);
}

bool
fs_part_writer_finish(ts_fs_writer *head, ts_err *err)
{
	part_writer *w = (part_writer *) head;
	bool		ok;

	if (w->upload == NULL)		/* all of it in the buffer: one put */
		ok = w->po->put(head->fs, head->path, w->buf, w->len, err);
	else
		ok = send_part(w, err) &&
			w->po->complete(head->fs, head->path, w->upload, w->tags, w->nparts, err);
	if (!ok)
	{
		fs_part_writer_abort(head);
		return false;
	}
	writer_free(w);
	return true;
}
