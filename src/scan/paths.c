/*
 * paths.c - where the files of a plan are.
 *
 * Owns: data file paths (<root>[/data-file.path-directory]/<partition
 * path>/bucket-<b>/<file>, PAIMON-FORMAT.md 1.4-1.5), external paths
 * (_EXTERNAL_PATH with the file: scheme normalised case-insensitively, and
 * the "external-path-map" option "FROM=>TO[;FROM2=>TO2]" that rewrites a
 * prefix, e.g. to read a table whose external files were copied
 * elsewhere), and the format of a data file from its name (1.6).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "scan/scan_internal.h"

/* "file:/x", "FILE:///x" -> "/x"; anything else unchanged. */
static const char *
strip_file_scheme(const char *p)
{
	if (strncasecmp(p, "file:", 5) == 0)
	{
		const char *rest = p + 5;

		if (strncmp(rest, "///", 3) == 0)
			return rest + 2;
		if (strncmp(rest, "//", 2) == 0)
			return rest;		/* file://host/... : keep as is after scheme */
		return rest;
	}
	return p;
}

/*
 * Apply the external-path-map option to a scheme-less path: the first
 * FROM that is a prefix of the path at a '/' boundary is replaced by TO.
 */
static char *
apply_path_map(ts_plan *plan, const char *path)
{
	const char *map = ts_plan_option(plan, TS_OPT_EXTERNAL_PATH_MAP);
	const char *p = map;

	while (p && *p)
	{
		const char *end = strchr(p, ';');
		const char *arrow;
		size_t		len = end ? (size_t) (end - p) : strlen(p);

		arrow = NULL;
		for (size_t i = 0; i + 1 < len; i++)
			if (p[i] == '=' && p[i + 1] == '>')
			{
				arrow = p + i;
				break;
			}
		if (arrow)
		{
			char	   *from = ts_arena_alloc(&plan->arena, (size_t) (arrow - p) + 1);
			const char *to = arrow + 2;
			size_t		tolen = len - (size_t) (to - p);
			const char *f;
			size_t		flen;

			if (from == NULL)
				return NULL;
			memcpy(from, p, (size_t) (arrow - p));
			from[arrow - p] = '\0';
			f = strip_file_scheme(from);
			flen = strlen(f);
			while (flen > 1 && f[flen - 1] == '/')
				flen--;
			if (flen > 0 && strncmp(path, f, flen) == 0 &&
				(path[flen] == '/' || path[flen] == '\0'))
			{
				while (tolen > 1 && to[tolen - 1] == '/')
					tolen--;
				return ts_arena_printf(&plan->arena, "%.*s%s", (int) tolen, to, path + flen);
			}
		}
		p = end ? end + 1 : NULL;
	}
	return ts_arena_strdup(&plan->arena, path);
}

bool
scan_check_file_name(const ts_plan *plan, const char *what, const char *name, ts_err *err)
{
	size_t		len = name ? strlen(name) : 0;

	if (len == 0 || memchr(name, '/', len) != NULL || memchr(name, '\\', len) != NULL ||
		strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return ts_error(err, TS_ERR_CORRUPT, "table \"%s\": invalid %s name \"%s\" in its metadata",
						plan->table_path, what, name ? name : "");
	return true;
}

char *
scan_normalize_external_path(ts_plan *plan, const char *external_path)
{
	return apply_path_map(plan, strip_file_scheme(external_path));
}

/* <table>[/<data dir>][/<partition path>], in the plan arena */
static char *
build_partition_dir(ts_plan *plan, scan_state *st, ts_bytes partition, ts_err *err)
{
	const char *data_dir = plan->core.data_file_path_directory;
	char	   *ppath;
	char	   *dir;

	if (!scan_partition_path(plan, st, partition, &ppath, err))
		return NULL;
	{
		/* table_path [/ data_dir] [/ ppath], without printf: once per partition */
		size_t		tlen = strlen(plan->table_path);
		size_t		dlen = data_dir && *data_dir ? strlen(data_dir) : 0;
		size_t		plen = strlen(ppath);
		char	   *d;

		dir = ts_arena_alloc(&plan->arena, tlen + 1 + dlen + 1 + plen + 1);
		if (dir == NULL)
		{
			ts_error_nomem(err, NULL);
			return NULL;
		}
		d = dir;
		memcpy(d, plan->table_path, tlen);
		d += tlen;
		if (dlen)
		{
			*d++ = '/';
			memcpy(d, data_dir, dlen);
			d += dlen;
		}
		if (plen)
		{
			*d++ = '/';
			memcpy(d, ppath, plen);
			d += plen;
		}
		*d = '\0';
	}
	return dir;
}

static bool
same_partition(const scan_state *st, ts_bytes partition)
{
	return st->dir_valid &&
		st->dir_partition_null == (partition.data == NULL) &&
		st->dir_partition_len == partition.len &&
		(partition.len == 0 || memcmp(st->dir_partition, partition.data, partition.len) == 0);
}

/*
 * The directory of a bucket: <table>[/<data dir>][/<partition path>]/
 * bucket-<b> (bucket-postpone for -2).  The last partition directory and
 * bucket directory built are remembered in st: the files of a plan come
 * grouped by partition, then bucket, so most calls reuse them without
 * decoding and formatting the partition again.  *dir is st's buffer: valid
 * until the next call (callers copy it).
 */
bool
scan_bucket_dir(ts_plan *plan, scan_state *st, ts_bytes partition, int32_t bucket,
				char **dir, ts_err *err)
{
	char		bucket_name[32];
	size_t		blen;
	char	   *d;

	if (!same_partition(st, partition))
	{
		char	   *prefix;

		st->dir_valid = false;
		st->dir_bucket_valid = false;
		prefix = build_partition_dir(plan, st, partition, err);
		if (prefix == NULL)
			return false;
		st->dir_partition = NULL;
		if (partition.len > 0)
		{
			st->dir_partition = ts_arena_alloc(&plan->arena, partition.len);
			if (st->dir_partition == NULL)
				return ts_error_nomem(err, NULL);
			memcpy(st->dir_partition, partition.data, partition.len);
		}
		st->dir_partition_null = partition.data == NULL;
		st->dir_partition_len = partition.len;
		st->dir_prefix = prefix;
		st->dir_prefix_len = strlen(prefix);
		st->dir_valid = true;
	}
	else if (st->dir_bucket_valid && st->dir_bucket == bucket)
	{
		*dir = st->dir;
		return true;
	}
	if (bucket == -2)
		blen = (size_t) snprintf(bucket_name, sizeof(bucket_name), "/bucket-postpone");
	else
	{
		/* "/bucket-<decimal>" without printf */
		char		rev[12];
		int			n = 0;
		bool		neg = bucket < 0;
		uint32_t	u = neg ? (uint32_t) 0 - (uint32_t) bucket : (uint32_t) bucket;

		do
		{
			rev[n++] = (char) ('0' + u % 10);
			u /= 10;
		} while (u != 0);
		memcpy(bucket_name, "/bucket-", 8);
		blen = 8;
		if (neg)
			bucket_name[blen++] = '-';
		while (n > 0)
			bucket_name[blen++] = rev[--n];
		bucket_name[blen] = '\0';
	}
	/* one buffer for the bucket directories of a plan, grown as needed */
	if (st->dir == NULL || st->dir_cap < st->dir_prefix_len + blen + 1)
	{
		size_t		cap = (st->dir_prefix_len + blen + 1) * 2;

		if ((d = ts_arena_alloc(&plan->arena, cap)) == NULL)
			return ts_error_nomem(err, NULL);
		st->dir = d;
		st->dir_cap = cap;
	}
	d = st->dir;
	memcpy(d, st->dir_prefix, st->dir_prefix_len);
	memcpy(d + st->dir_prefix_len, bucket_name, blen + 1);
	st->dir_len = st->dir_prefix_len + blen;
	st->dir_bucket = bucket;
	st->dir_bucket_valid = true;
	*dir = d;
	return true;
}

/*
 * A data file's name in its manifest entry (unless it has an external
 * path): scan_check_file_name's rule, backslashes allowed.  Checked when
 * its path is built, i.e. when the file is read: a plan answered from
 * metadata does not touch the names.
 */
static bool
check_data_file_name(const ts_plan *plan, const ts_manifest_entry *e, ts_err *err)
{
	const char *fname = e->file.file_name;
	size_t		flen;

	if (e->file.external_path && e->file.external_path[0])
		return true;			/* the name is not part of its path */
	flen = fname ? strlen(fname) : 0;
	if (flen == 0 || memchr(fname, '/', flen) != NULL ||
		(fname[0] == '.' && (flen == 1 || (flen == 2 && fname[1] == '.'))))
		return ts_error(err, TS_ERR_CORRUPT,
						"table \"%s\": manifest entry has an invalid data file name \"%s\"",
						plan->table_path, fname ? fname : "");
	return true;
}

bool
scan_data_file_path_parts(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
						  const char **dir, size_t *dirlen, const char **name,
						  size_t *namelen, ts_err *err)
{
	char	   *d;

	if (e->file.external_path && e->file.external_path[0])
	{
		d = scan_normalize_external_path(plan, e->file.external_path);
		if (d == NULL)
			return ts_error_nomem(err, NULL);
		*dir = d;
		*dirlen = strlen(d);
		*name = NULL;
		*namelen = 0;
		return true;
	}
	if (!check_data_file_name(plan, e, err) ||
		!scan_bucket_dir(plan, st, e->partition, e->bucket, &d, err))
		return false;
	*dir = d;
	*dirlen = st->dir_len;		/* d is st->dir */
	*name = e->file.file_name;
	*namelen = strlen(*name);
	return true;
}

size_t
scan_path_join(char *out, const char *dir, size_t dirlen, const char *name, size_t namelen)
{
	memcpy(out, dir, dirlen);
	if (name == NULL)
	{
		out[dirlen] = '\0';
		return dirlen + 1;
	}
	out[dirlen] = '/';
	memcpy(out + dirlen + 1, name, namelen + 1);
	return dirlen + 1 + namelen + 1;
}

bool
scan_data_file_path(ts_plan *plan, scan_state *st, const ts_manifest_entry *e,
					char **path, ts_err *err)
{
	const char *dir;
	const char *name;
	size_t		dirlen,
				namelen;

	if (!scan_data_file_path_parts(plan, st, e, &dir, &dirlen, &name, &namelen, err))
		return false;
	if (name == NULL)
	{
		*path = (char *) dir;	/* already the plan's own copy */
		return true;
	}
	*path = ts_arena_alloc(&plan->arena, dirlen + 1 + namelen + 1);
	if (*path == NULL)
		return ts_error_nomem(err, NULL);
	scan_path_join(*path, dir, dirlen, name, namelen);
	return true;
}

bool
scan_path_state_setup(ts_plan *plan, const scan_state *st, ts_err *err)
{
	scan_state *ps = ts_arena_alloc(&plan->arena, sizeof(scan_state));

	if (ps == NULL)
		return ts_error_nomem(err, NULL);
	memset(ps, 0, sizeof(*ps));
	ps->npartition_keys = st->npartition_keys;
	ps->partition_key_fields = st->partition_key_fields;
	ps->partition_types = st->partition_types;
	plan->path_state = ps;
	return true;
}

const char *
ts_scan_file_path(const ts_plan *plan, const ts_scan_file *file, ts_err *err)
{
	/* the memo and the arena it is built in: nothing else is written */
	ts_scan_file *f = (ts_scan_file *) file;
	char	   *path;

	if (f->built_path != NULL)
		return f->built_path;
	if (plan == NULL || plan->path_state == NULL || f->entry == NULL)
	{
		ts_error(err, TS_ERR_INVALID, "data file of table \"%s\" has no path",
				 plan && plan->table_path ? plan->table_path : "");
		return NULL;
	}
	if (!scan_data_file_path((ts_plan *) plan, plan->path_state, f->entry, &path, err))
		return NULL;
	f->built_path = path;
	return path;
}

const char *
ts_scan_file_label(const ts_plan *plan, const ts_scan_file *file)
{
	const char *path = ts_scan_file_path(plan, file, NULL);

	if (path != NULL)
		return path;
	if (file->entry != NULL && file->entry->file.file_name != NULL)
		return file->entry->file.file_name;
	return "(unknown)";
}

static bool
is_compression_ext(const char *ext, size_t n)
{
	static const char *const exts[] = {"gz", "bz2", "deflate", "snappy", "lz4", "zst", "zstd", "lzo", NULL};
	int			i;

	for (i = 0; exts[i]; i++)
		if (strlen(exts[i]) == n && strncasecmp(ext, exts[i], n) == 0)
			return true;
	return false;
}

ts_file_format
scan_format_from_file_name(const char *name)
{
	size_t		len = strlen(name);
	const char *end = name + len;
	const char *dot;
	char		ext[16];

	/* the names Paimon writes end in one of these (what the loop finds too) */
	if (len >= 5 && memcmp(end - 5, ".avro", 5) == 0)
		return TS_FORMAT_AVRO;
	if (len >= 8 && memcmp(end - 8, ".parquet", 8) == 0)
		return TS_FORMAT_PARQUET;
	if (len >= 4 && memcmp(end - 4, ".orc", 4) == 0)
		return TS_FORMAT_ORC;

	for (int pass = 0; pass < 2; pass++)
	{
		size_t		n;

		dot = end;
		while (dot > name && dot[-1] != '.' && dot[-1] != '/')
			dot--;
		if (dot == name || dot[-1] != '.')
			return TS_FORMAT_UNKNOWN;
		n = (size_t) (end - dot);
		/* the names Paimon writes, exactly: no compression suffix to strip */
		if (pass == 0)
		{
			if (n == 7 && memcmp(dot, "parquet", 7) == 0)
				return TS_FORMAT_PARQUET;
			if (n == 3 && memcmp(dot, "orc", 3) == 0)
				return TS_FORMAT_ORC;
			if (n == 4 && memcmp(dot, "avro", 4) == 0)
				return TS_FORMAT_AVRO;
		}
		if (pass == 0 && is_compression_ext(dot, n))
		{
			end = dot - 1;
			continue;
		}
		if (n == 0 || n >= sizeof(ext))
			return TS_FORMAT_UNKNOWN;
		memcpy(ext, dot, n);
		ext[n] = '\0';
		return ts_format_from_name(ext);
	}
	return TS_FORMAT_UNKNOWN;
}
