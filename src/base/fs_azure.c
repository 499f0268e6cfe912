/*
 * fs_azure.c - the Azure store of ts_fs: Azure Blob Storage and ADLS Gen2
 * (abfs://, abfss://, wasb://, wasbs://) through the Blob client of
 * ts_azure.h, under the fs's own settings (account key or SAS token,
 * endpoint).
 *
 * Owns: the requests fs_object.c reads through (HEAD, whole GET, one level
 * of listing, the cache key of the fs's account and credentials) and
 * ranged reads (several ranges are read one by one: fs.c).  Opening, whole
 * reads, existence checks, listings and the metadata cache are
 * fs_object.c's; writes are fs_azure_write.c's.  Blob URIs are confined
 * lexically by the fs's scope (abfs:// and wasb:// names of one blob
 * compare equal).
 */
#include "base/fs_impl.h"

static bool
azure_owns(const char *uri)
{
	return ts_uri_is_azure(uri);
}

/* The settings requests of fs are sent with; NULL + err naming path when it has none. */
static const ts_azure_config *
settings_of(const ts_fs *fs, const char *path, ts_err *err)
{
	const ts_azure_config *cfg = fs_azure_of(fs);

	if (cfg == NULL)
		ts_error(err, TS_ERR_INVALID, "no Azure settings to read \"%s\" with", path);
	return cfg;
}

static bool
azure_head(ts_fs *fs, const char *path, bool *exists, int64_t *size, ts_err *err)
{
	const ts_azure_config *cfg = settings_of(fs, path, err);

	return cfg != NULL && ts_azure_head(cfg, path, exists, size, err);
}

static bool
azure_get(ts_fs *fs, const char *path, uint8_t **data, size_t *len, ts_err *err)
{
	const ts_azure_config *cfg = settings_of(fs, path, err);

	return cfg != NULL && ts_azure_read_object(cfg, path, data, len, err);
}

static bool
azure_list_level(ts_fs *fs, const char *path, bool max_one, char ***names, int *count,
				 ts_err *err)
{
	const ts_azure_config *cfg = settings_of(fs, path, err);

	return cfg != NULL && ts_azure_list(cfg, path, max_one, names, count, err);
}

/* The key of a blob in the metadata cache: the endpoint, the credentials of this fs, its URI. */
static int
azure_cache_key(const ts_fs *fs, const char *path, const char *parts[8])
{
	const ts_azure_config *c = fs_azure_of(fs);

	if (c == NULL)
		return 0;
	parts[0] = "azure";
	parts[1] = c->endpoint;
	parts[2] = c->account_key;
	parts[3] = c->sas_token;
	parts[4] = path;
	return 5;
}

static const fs_object_ops azure_object = {
	.noun = "blob",
	.head = azure_head,
	.get = azure_get,
	.list = azure_list_level,
	.cache_key = azure_cache_key,
};

static bool
azure_pread(ts_file *f, void *buf, size_t len, int64_t offset, ts_err *err)
{
	const ts_azure_config *cfg = settings_of(f->fs, f->path, err);

	return cfg != NULL && ts_azure_read_range(cfg, f->path, buf, len, offset, f->size, err);
}

const ts_fs_ops ts_fs_azure_ops = {
	.name = "azure",
	/* Put Blob with If-None-Match: * (ts_azure_put_if_absent), honoured by the service */
	.caps = TS_FS_CAP_REMOTE | TS_FS_CAP_CONDITIONAL_PUT,
	.object = &azure_object,	/* open, read_whole, is_dir, is_file, list: fs_object.c */
	.owns = azure_owns,
	.pread = azure_pread,
	/* several ranges: fs.c reads them one by one */
	.writer_open = fs_azure_writer_open,
	.writer_write = fs_part_writer_write,
	.writer_finish = fs_part_writer_finish,
	.writer_abort = fs_part_writer_abort,
	.create_exclusive = fs_azure_create_exclusive,
	.put = fs_azure_put,
	.remove = fs_azure_remove,
	/* no check_atomic_create: TS_FS_CAP_CONDITIONAL_PUT without a probe */
};
