/*
 * meta_cache.c - the on-disk cache of immutable object store metadata
 * (see ts_meta_cache.h).
 *
 * Owns: the cache directory (created 0700, refused when another user owns
 * it or others may enter it), the entry format, atomic stores (temporary
 * file + rename), checked loads (a bad entry is removed, never used), the
 * LRU eviction that keeps the directory under its size, and the counters.
 *
 * An entry file, named by the hex SHA-256 of its key:
 *   "TSMCACH1"  8 bytes
 *   length      8 bytes, little endian: the object's size
 *   key digest  32 bytes: SHA-256 of the key (the name, again: a file
 *               copied or renamed by hand is not taken for another key)
 *   body digest 32 bytes: SHA-256 of the object's bytes
 *   the object's bytes
 * Records (ts_mcache_record_*): "<64 hex digits>.tsm" files in the same
 * directory, under the same limit and eviction, whose format and checks
 * belong to their writer (decoded manifests: meta/manifest_cache.c); here
 * they are only stored atomically, read whole and removed.
 * Several processes may store the same key at once: each writes its own
 * temporary file and the last rename wins, with identical contents.
 * Eviction may remove an entry another process has open: that process
 * still reads it whole (POSIX keeps an unlinked file's data while open).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/ts_bytes.h"
#include "base/ts_fs.h"
#include "base/ts_meta_cache.h"

#define MC_MAGIC "TSMCACH1"
#define MC_HEADER 80
#define MC_NAME_LEN 64
#define MC_RECORD_SUFFIX ".tsm"
#define MC_FILE_NAME_MAX (MC_NAME_LEN + 4)
/* a temporary file older than this was left by a process that died */
#define MC_STALE_TMP_SECONDS 600

static char *cache_dir = NULL;
static int64_t cache_max = 0;
static int64_t written_since_scan = -1;	/* -1: no scan yet in this process */
static unsigned tmp_counter = 0;
static ts_mcache_stats stats;

bool
ts_mcache_enabled(void)
{
	return cache_dir != NULL && cache_max > 0;
}

ts_mcache_stats
ts_mcache_get_stats(void)
{
	return stats;
}

bool
ts_mcache_configure(const char *dir, int64_t max_bytes, ts_err *err)
{
	struct stat st;

	if (cache_dir != NULL && dir != NULL && strcmp(cache_dir, dir) == 0 && max_bytes > 0)
	{
		if (max_bytes < cache_max)
			written_since_scan = -1;	/* scan (and evict) at the next store */
		cache_max = max_bytes;
		return true;
	}
	free(cache_dir);
	cache_dir = NULL;
	cache_max = 0;
	written_since_scan = -1;
	if (dir == NULL || dir[0] == '\0' || max_bytes <= 0)
		return true;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return ts_error(err, TS_ERR_IO, "could not create metadata cache directory \"%s\": %s",
						dir, strerror(errno));
	if (lstat(dir, &st) != 0)
		return ts_error(err, TS_ERR_IO, "could not stat metadata cache directory \"%s\": %s",
						dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ts_error(err, TS_ERR_DENIED,
						"metadata cache directory \"%s\" is not a directory", dir);
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
		return ts_error(err, TS_ERR_DENIED,
						"metadata cache directory \"%s\" must be owned by the server's user and accessible to it only (mode 0700)",
						dir);
	cache_dir = strdup(dir);
	if (cache_dir == NULL)
		return ts_error_nomem(err, NULL);
	cache_max = max_bytes;
	return true;
}

/* ---- which objects ----------------------------------------------------- */

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t		n = strlen(s),
				k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool
ts_mcache_wanted(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *parent;
	size_t		plen;

	if (base == NULL || base[1] == '\0')
		return false;
	base++;
	/* the directory the object is in */
	parent = base - 1;
	while (parent > path && parent[-1] != '/')
		parent--;
	plen = (size_t) (base - 1 - parent);
	/* manifest/manifest-<uuid>-N, manifest-list-<uuid>-N, index-manifest-<uuid>-N */
	if (plen == 8 && strncmp(parent, "manifest", 8) == 0)
		return starts_with(base, "manifest-") || starts_with(base, "index-manifest-");
	/* index/index-<uuid>-N (deletion vectors, hash indexes), global index files */
	if (plen == 5 && strncmp(parent, "index", 5) == 0)
		return true;
	/* data-<uuid>-N.<format>.index: the file index of a data file */
	return starts_with(base, "data-") && ends_with(base, ".index");
}

/* ---- digests ----------------------------------------------------------- */

static void
key_digest(const char *const *parts, int nparts, uint8_t out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int n = 32;

	memset(out, 0, 32);
	if (ctx == NULL)
		return;
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, "tablescan metadata cache 1", 26);
	for (int i = 0; i < nparts; i++)
	{
		/* each part with its length (or a NULL marker): no two keys run together */
		uint8_t		lenbuf[9] = {0};
		size_t		l = parts[i] ? strlen(parts[i]) : 0;

		lenbuf[0] = parts[i] ? 1 : 0;
		for (int b = 0; b < 8; b++)
			lenbuf[1 + b] = (uint8_t) ((uint64_t) l >> (8 * b));
		EVP_DigestUpdate(ctx, lenbuf, sizeof(lenbuf));
		if (l)
			EVP_DigestUpdate(ctx, parts[i], l);
	}
	EVP_DigestFinal_ex(ctx, out, &n);
	EVP_MD_CTX_free(ctx);
}

static void
body_digest(const uint8_t *data, size_t len, uint8_t out[32])
{
	unsigned int n = 32;

	memset(out, 0, 32);
	EVP_Digest(data, len, out, &n, EVP_sha256(), NULL);
}

static void
hex(const uint8_t d[32], char out[65])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++)
	{
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[64] = '\0';
}

void
ts_mcache_entry_name(const char *const *parts, int nparts, char out[65])
{
	uint8_t		d[32];

	key_digest(parts, nparts, d);
	hex(d, out);
}

static char *
entry_path(const char *name)
{
	return ts_psprintf("%s/%s", cache_dir, name);
}

/* ---- load -------------------------------------------------------------- */

bool
ts_mcache_get(const char *const *parts, int nparts, uint8_t **data, size_t *len)
{
	uint8_t		kd[32];
	uint8_t		bd[32];
	char		name[65];
	char	   *path;
	int			fd;
	struct stat st;
	uint8_t    *buf = NULL;
	uint64_t	n = 0;
	bool		ok = false;

	*data = NULL;
	*len = 0;
	if (!ts_mcache_enabled())
		return false;
	key_digest(parts, nparts, kd);
	hex(kd, name);
	path = entry_path(name);
	if (path == NULL)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
	{
		stats.misses++;
		ts_free(path);
		return false;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= MC_HEADER &&
		(buf = ts_malloc((size_t) st.st_size + 1)) != NULL &&
		ts_pread_full(fd, buf, (size_t) st.st_size, 0) == (ssize_t) st.st_size)
	{
		n = ts_load_le64(buf + 8);
		if (memcmp(buf, MC_MAGIC, 8) == 0 && n == (uint64_t) st.st_size - MC_HEADER &&
			memcmp(buf + 16, kd, 32) == 0)
		{
			body_digest(buf + MC_HEADER, (size_t) n, bd);
			ok = memcmp(buf + 48, bd, 32) == 0;
		}
	}
	if (ok)
	{
		/* the entry's last use, for eviction */
		futimens(fd, NULL);
		close(fd);
		memmove(buf, buf + MC_HEADER, (size_t) n);
		buf[n] = '\0';
		*data = buf;
		*len = (size_t) n;
		stats.hits++;
		ts_free(path);
		return true;
	}
	close(fd);
	ts_free(buf);
	/* never used: removed, and the caller fetches the object again */
	if (unlink(path) == 0 || errno == ENOENT)
		stats.corrupt++;
	stats.misses++;
	ts_free(path);
	return false;
}

/* ---- store ------------------------------------------------------------- */

static bool
write_all(int fd, const uint8_t *buf, size_t len)
{
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t) n;
	}
	return true;
}

/*
 * Write head then body to a temporary file of the directory and rename it
 * to file_name (a whole file or none); then the eviction check.  False
 * when nothing was stored.
 */
static bool
store_file(const char *file_name, const uint8_t *head, size_t head_len,
		   const uint8_t *body, size_t body_len)
{
	char	   *path = entry_path(file_name);
	char	   *tmp = ts_psprintf("%s/tmp-%d-%u-%ld", cache_dir, (int) getpid(), ++tmp_counter,
								  (long) time(NULL));
	int			fd;
	bool		ok = false;

	if (path == NULL || tmp == NULL)
		goto done;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto done;
	ok = write_all(fd, head, head_len) && write_all(fd, body, body_len);
	if (close(fd) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0)
	{
		unlink(tmp);
		ok = false;
		goto done;
	}
	if (written_since_scan >= 0)
		written_since_scan += (int64_t) (head_len + body_len);
	/* a directory scan when this process may have filled a sixteenth of the cache */
	if (written_since_scan < 0 || written_since_scan > cache_max / 16)
		ts_mcache_evict();
done:
	ts_free(path);
	ts_free(tmp);
	return ok;
}

void
ts_mcache_put(const char *const *parts, int nparts, const uint8_t *data, size_t len)
{
	uint8_t		header[MC_HEADER];
	char		name[65];

	if (!ts_mcache_enabled())
		return;
	/* one entry may fill at most half of the cache */
	if ((int64_t) len + MC_HEADER > cache_max / 2)
		return;
	memcpy(header, MC_MAGIC, 8);
	for (int b = 0; b < 8; b++)
		header[8 + b] = (uint8_t) ((uint64_t) len >> (8 * b));
	key_digest(parts, nparts, header + 16);
	body_digest(data, len, header + 48);
	hex(header + 16, name);
	if (store_file(name, header, MC_HEADER, data, len))
		stats.stores++;
}

/* ---- records ----------------------------------------------------------- */

static char *
record_path(const char *name)
{
	return ts_psprintf("%s/%s" MC_RECORD_SUFFIX, cache_dir, name);
}

bool
ts_mcache_record_read(const char *name, ts_arena *arena, uint8_t **data, size_t *len)
{
	char	   *path;
	int			fd;
	struct stat st;
	bool		ok = false;

	*data = NULL;
	*len = 0;
	if (!ts_mcache_enabled() || (path = record_path(name)) == NULL)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ts_free(path);
	if (fd < 0)
		return false;
	/* never more than a record may hold (at most half the limit when written) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		st.st_size <= cache_max / 2 &&
		(*data = ts_arena_alloc(arena, (size_t) st.st_size)) != NULL &&
		ts_pread_full(fd, *data, (size_t) st.st_size, 0) == (ssize_t) st.st_size)
	{
		*len = (size_t) st.st_size;
		/* the record's last use, for eviction */
		futimens(fd, NULL);
		ok = true;
	}
	close(fd);
	if (!ok)
		*data = NULL;
	return ok;
}

bool
ts_mcache_record_exists(const char *name)
{
	char	   *path;
	bool		found;

	if (!ts_mcache_enabled() || (path = record_path(name)) == NULL)
		return false;
	found = access(path, R_OK) == 0;
	ts_free(path);
	return found;
}

bool
ts_mcache_record_write(const char *name, const uint8_t *data, size_t len)
{
	char		file_name[MC_FILE_NAME_MAX + 1];

	if (!ts_mcache_enabled() || strlen(name) != MC_NAME_LEN)
		return false;
	/* one record may fill at most half of the cache */
	if ((int64_t) len > cache_max / 2)
		return false;
	snprintf(file_name, sizeof(file_name), "%s" MC_RECORD_SUFFIX, name);
	return store_file(file_name, NULL, 0, data, len);
}

void
ts_mcache_record_remove(const char *name)
{
	char	   *path;

	if (!ts_mcache_enabled() || (path = record_path(name)) == NULL)
		return;
	unlink(path);
	ts_free(path);
}

/* ---- eviction ---------------------------------------------------------- */

typedef struct mc_file
{
	char		name[MC_FILE_NAME_MAX + 1];
	int64_t		size;
	struct timespec used;
} mc_file;

/* an entry ("<64 hex>") or a record ("<64 hex>.tsm") */
static bool
is_entry_name(const char *s)
{
	size_t		n = strlen(s);

	if (n != MC_NAME_LEN &&
		!(n == MC_FILE_NAME_MAX && strcmp(s + MC_NAME_LEN, MC_RECORD_SUFFIX) == 0))
		return false;
	for (int i = 0; i < MC_NAME_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int
cmp_used(const void *a, const void *b)
{
	const mc_file *x = a,
			   *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The entries of the directory (stale temporary files removed on the way)
 * into a ts_malloc'd array; the total of their sizes in *total.
 */
static mc_file *
scan_dir(int *count, int64_t *total)
{
	DIR		   *d = opendir(cache_dir);
	struct dirent *de;
	mc_file    *files = NULL;
	int			n = 0,
				cap = 0;
	int			dfd;
	time_t		now = time(NULL);

	*count = 0;
	*total = 0;
	if (d == NULL)
		return NULL;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL)
	{
		struct stat st;

		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (strncmp(de->d_name, "tmp-", 4) == 0)
		{
			if (now - st.st_mtime > MC_STALE_TMP_SECONDS)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (!is_entry_name(de->d_name))
			continue;
		if (n == cap)
		{
			mc_file    *nf;

			cap = cap ? cap * 2 : 64;
			nf = ts_realloc(files, sizeof(mc_file) * (size_t) cap);
			if (nf == NULL)
				break;
			files = nf;
		}
		memcpy(files[n].name, de->d_name, strlen(de->d_name) + 1);
		files[n].size = (int64_t) st.st_size;
		files[n].used = st.st_mtim;
		*total += files[n].size;
		n++;
	}
	closedir(d);
	*count = n;
	return files;
}

void
ts_mcache_evict(void)
{
	mc_file    *files;
	int			n;
	int64_t		total;
	int64_t		target;

	if (!ts_mcache_enabled())
		return;
	files = scan_dir(&n, &total);
	written_since_scan = 0;
	if (total > cache_max)
	{
		/* down to 7/8 of the limit, so that the next stores do not each evict */
		target = cache_max - cache_max / 8;
		qsort(files, (size_t) n, sizeof(mc_file), cmp_used);
		for (int i = 0; i < n && total > target; i++)
		{
			char	   *p = entry_path(files[i].name);

			if (p == NULL)
				break;
			if (unlink(p) == 0)
				stats.evicted++;
			/* gone either way: another process may have evicted it first */
			total -= files[i].size;
			ts_free(p);
		}
	}
	ts_free(files);
}

int64_t
ts_mcache_disk_bytes(void)
{
	mc_file    *files;
	int			n;
	int64_t		total;

	if (!ts_mcache_enabled())
		return -1;
	files = scan_dir(&n, &total);
	ts_free(files);
	return total;
}
