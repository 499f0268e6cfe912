/*
 * fs_scope.c - which local paths a scan may read.
 *
 * Owns: building a confined scope from root directories, copying it, lexical path normalization, and the three checks
 * fs.c makes: a name before it is looked up, an open descriptor's real path
 * (/proc/self/fd, so no symbolic link swapped in between can lead out), and
 * a stat target.  It decides nothing about roles: the FDW chooses the roots.
 * Object URIs (s3://...) are confined lexically only: an object store has
 * no links, and a URI with a "." or ".." segment is refused outright.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs_impl.h"
#include "base/ts_azure.h"

const ts_fs_scope ts_fs_unconfined = {false, 0, NULL, NULL};

/*
 * A ts_malloc'd copy for a ts_fs to own.  Out of memory: false, and *to is
 * confined with no roots (allows nothing), which ts_fs_scope_free accepts.
 */
bool
ts_fs_scope_copy(ts_fs_scope *to, const ts_fs_scope *from)
{
	const char **lexical;
	const char **resolved;

	*to = ts_fs_unconfined;
	if (from == NULL || !from->confined)
		return true;
	to->confined = true;
	lexical = ts_calloc((size_t) from->nroots + 1, sizeof(char *));
	resolved = ts_calloc((size_t) from->nroots + 1, sizeof(char *));
	if (lexical == NULL || resolved == NULL)
	{
		ts_free(lexical);
		ts_free(resolved);
		return false;
	}
	to->lexical = lexical;
	to->resolved = resolved;
	for (int i = 0; i < from->nroots; i++)
	{
		lexical[i] = ts_strdup(from->lexical[i]);
		resolved[i] = from->resolved[i] ? ts_strdup(from->resolved[i]) : NULL;
		if (lexical[i] == NULL || (from->resolved[i] && resolved[i] == NULL))
		{
			ts_free((void *) lexical[i]);
			ts_free((void *) resolved[i]);
			return false;
		}
		to->nroots = i + 1;
	}
	return true;
}

void
ts_fs_scope_free(ts_fs_scope *scope)
{
	if (!scope->confined)
		return;
	for (int i = 0; i < scope->nroots; i++)
	{
		ts_free((void *) scope->lexical[i]);
		ts_free((void *) scope->resolved[i]);
	}
	ts_free((void *) scope->lexical);
	ts_free((void *) scope->resolved);
	*scope = ts_fs_unconfined;
}

char *
ts_path_normalize(const char *path)
{
	size_t		len = strlen(path);
	char	   *out;
	size_t		o = 0;
	const char *p = path;

	if (ts_uri_is_object(path))
		return ts_s3_canonical_uri(path);
	if (ts_uri_is_azure(path))
		return ts_azure_canonical_uri(path);
	if (path[0] != '/')
		return NULL;
	out = ts_malloc(len + 2);
	if (out == NULL)
		return NULL;
	while (*p)
	{
		const char *start;
		size_t		n;

		while (*p == '/')
			p++;
		start = p;
		while (*p && *p != '/')
			p++;
		n = (size_t) (p - start);
		if (n == 0 || (n == 1 && start[0] == '.'))
			continue;
		if (n == 2 && start[0] == '.' && start[1] == '.')
		{
			/* back to the previous '/' (the root stays) */
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, start, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

/* Is path (normalized, absolute) root itself or below it? */
static bool
is_under(const char *path, const char *root)
{
	size_t		n = strlen(root);

	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool
ts_fs_scope_make(ts_fs_scope *scope, const char *const *roots, int nroots, ts_err *err)
{
	char	  **lexical = ts_calloc((size_t) (nroots > 0 ? nroots : 1), sizeof(char *));
	char	  **resolved = ts_calloc((size_t) (nroots > 0 ? nroots : 1), sizeof(char *));

	if (lexical == NULL || resolved == NULL)
		return ts_error_nomem(err, NULL);
	for (int i = 0; i < nroots; i++)
	{
		char		buf[PATH_MAX];

		lexical[i] = ts_path_normalize(roots[i]);
		if (lexical[i] == NULL)
			return ts_error(err, TS_ERR_INVALID, "root directory \"%s\" is not an absolute path",
							roots[i]);
		if (ts_uri_is_object(lexical[i]) || ts_uri_is_azure(lexical[i]))
			continue;			/* no links to resolve */
		if (realpath(lexical[i], buf) != NULL)
			resolved[i] = ts_strdup(buf);
	}
	scope->confined = true;
	scope->nroots = nroots;
	scope->lexical = (const char *const *) lexical;
	scope->resolved = (const char *const *) resolved;
	return true;
}

static bool
denied(const char *path, ts_err *err)
{
	return ts_error(err, TS_ERR_DENIED,
					"permission denied to read \"%s\": it is outside the directories of the table",
					path);
}

bool
fs_deny_write(const char *path, ts_err *err)
{
	return ts_error(err, TS_ERR_DENIED,
					"permission denied to write \"%s\": it is outside the directories of the table",
					path);
}

bool
ts_scope_allows_name(const ts_fs_scope *s, const char *path, ts_err *err)
{
	char	   *norm;
	bool		ok = false;

	if (!s->confined)
		return true;
	norm = ts_path_normalize(path);
	if (norm == NULL)
		return denied(path, err);
	for (int i = 0; i < s->nroots && !ok; i++)
		ok = is_under(norm, s->lexical[i]) ||
			(s->resolved[i] != NULL && is_under(norm, s->resolved[i]));
	ts_free(norm);
	return ok ? true : denied(path, err);
}

static bool
resolved_allowed(const ts_fs_scope *s, const char *real)
{
	for (int i = 0; i < s->nroots; i++)
		if (s->resolved[i] != NULL && is_under(real, s->resolved[i]))
			return true;
	return false;
}

bool
ts_scope_allows_fd(const ts_fs_scope *s, int fd, const char *path, ts_err *err)
{
	char		link[64];
	char		real[PATH_MAX];
	ssize_t		n;

	if (!s->confined)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || (size_t) n >= sizeof(real) - 1)
	{
		/* no /proc: resolve the name (a race with a swapped link is then possible) */
		if (realpath(path, real) == NULL)
			return denied(path, err);
	}
	else
		real[n] = '\0';
	return resolved_allowed(s, real) ? true : denied(path, err);
}

bool
ts_scope_allows_target(const ts_fs_scope *s, const char *path, ts_err *err)
{
	char		real[PATH_MAX];

	if (!s->confined)
		return true;
	if (!ts_scope_allows_name(s, path, err))
		return false;
	if (ts_uri_is_object(path) || ts_uri_is_azure(path))
		return true;
	if (realpath(path, real) == NULL)
		return true;			/* missing: the caller's stat says so */
	return resolved_allowed(s, real) ? true : denied(path, err);
}
