/*
 * fs_azure_write.c - the write operations of the Azure store (fs_impl.h).
 *
 * Owns: writing blobs through an fs's own settings (fs.c checked the
 * scope): a data file streamed by fs_parts.c, sent as one Put Blob below a
 * block (TS_AZURE_BLOCK_SIZE), else block by block (Put Block) and made
 * the blob by Put Block List, memory bounded by one block; an upload given
 * up commits an empty block list (the service drops the uncommitted
 * blocks) and deletes the blob.  The exclusive create of a snapshot is a
 * Put Blob with "If-None-Match: *" (honoured by the service: no probe; a
 * retried attempt that finds the blob is ours when its length and MD5 are:
 * ts_azure_put_if_absent); a plain put replaces (hints); delete.
 */
#include "base/fs_impl.h"

/* One block of a blob sent in blocks: also the largest blob sent by one Put Blob. */
#define TS_AZURE_BLOCK_SIZE ((size_t) 8 << 20)

static bool
azure_start(ts_fs *fs, const char *path, char **upload, ts_err *err)
{
	(void) fs;
	/* blocks need no upload id: they wait under the blob's name until listed */
	if ((*upload = ts_strdup("blocks")) == NULL)
		return ts_error_nomemf(err, "writing \"%s\"", path);
	return true;
}

static bool
azure_part(ts_fs *fs, const char *path, const char *upload, int number, const void *data,
		   size_t len, char **tag, ts_err *err)
{
	(void) upload;
	*tag = NULL;				/* the block id follows from the number */
	return ts_azure_put_block(fs_azure_of(fs), path, number, data, len, err);
}

static bool
azure_complete(ts_fs *fs, const char *path, const char *upload, char **tags, int nblocks,
			   ts_err *err)
{
	(void) upload;
	(void) tags;
	return ts_azure_put_block_list(fs_azure_of(fs), path, nblocks, err);
}

static void
azure_abort(ts_fs *fs, const char *path, const char *upload, int nblocks)
{
	ts_err		ignore = {0};
	bool		existed;

	(void) upload;
	(void) nblocks;
	/* an empty block list drops the uncommitted blocks; then the empty blob goes */
	if (ts_azure_put_block_list(fs_azure_of(fs), path, 0, &ignore))
		ts_azure_delete(fs_azure_of(fs), path, &existed, &ignore);
}

bool
fs_azure_put(ts_fs *fs, const char *path, const void *data, size_t len, ts_err *err)
{
	const ts_azure_config *cfg = fs_azure_of(fs);

	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID, "no Azure settings to write \"%s\" with", path);
	return ts_azure_put(cfg, path, data, len, err);
}

static const fs_part_ops azure_blocks = {
	.part_size = TS_AZURE_BLOCK_SIZE,
	.start = azure_start,
	.part = azure_part,
	.complete = azure_complete,
	.abort = azure_abort,
	.put = fs_azure_put,
};

ts_fs_writer *
fs_azure_writer_open(ts_fs *fs, const char *path, ts_err *err)
{
	if (fs_azure_of(fs) == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "no Azure settings to write \"%s\" with", path);
		return NULL;
	}
	return fs_part_writer_open(fs, path, &azure_blocks, err);
}

bool
fs_azure_create_exclusive(ts_fs *fs, const char *path, const void *data, size_t len,
						  ts_err *err)
{
	const ts_azure_config *cfg = fs_azure_of(fs);
	bool		created;

	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID, "no Azure settings to write \"%s\" with", path);
	if (!ts_azure_put_if_absent(cfg, path, data, len, &created, err))
		return false;
	if (!created)
		return ts_error(err, TS_ERR_EXISTS, "could not create \"%s\": another writer created it first",
						path);
	return true;
}

bool
fs_azure_remove(ts_fs *fs, const char *path, ts_err *err)
{
	const ts_azure_config *cfg = fs_azure_of(fs);
	bool		existed;

	if (cfg == NULL)
		return ts_error(err, TS_ERR_INVALID, "no Azure settings to write \"%s\" with", path);
	return ts_azure_delete(cfg, path, &existed, err);
}
