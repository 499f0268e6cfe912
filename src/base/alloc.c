/*
 * alloc.c - allocation and interrupt hooks of the server-free layers.
 *
 * Defaults are malloc/free and "never interrupted"; src/fdw installs
 * palloc-based hooks (memory contexts) and CHECK_FOR_INTERRUPTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ts_base.h"

static void *
default_alloc(size_t size)
{
	return malloc(size ? size : 1);
}

static void *
default_realloc(void *p, size_t size)
{
	return realloc(p, size ? size : 1);
}

static ts_alloc_hooks hooks = {default_alloc, default_realloc, free};
static void *(*owner_current) (void) = NULL;
static void *(*owner_switch) (void *) = NULL;
static bool (*interrupt_hook) (void) = NULL;
static bool (*pending_hook) (void) = NULL;

void
ts_set_alloc_hooks(const ts_alloc_hooks *h)
{
	if (h)
		hooks = *h;
	else
	{
		hooks.alloc = default_alloc;
		hooks.realloc = default_realloc;
		hooks.free = free;
	}
}

void
ts_set_alloc_owner_hooks(void *(*current) (void), void *(*switch_to) (void *owner))
{
	owner_current = current;
	owner_switch = switch_to;
}

void *
ts_alloc_owner(void)
{
	return owner_current ? owner_current() : NULL;
}

void *
ts_alloc_switch(void *owner)
{
	return owner_switch && owner ? owner_switch(owner) : NULL;
}

/* Refuse absurd sizes early: no single allocation above 1 GiB. */
#define TS_MAX_ALLOC ((size_t) 1 << 30)

void *
ts_malloc(size_t size)
{
	if (size > TS_MAX_ALLOC)
		return NULL;
	return hooks.alloc(size);
}

void *
ts_calloc(size_t n, size_t size)
{
	void	   *p;

	if (size != 0 && n > TS_MAX_ALLOC / size)
		return NULL;
	p = ts_malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *
ts_realloc(void *p, size_t size)
{
	if (size > TS_MAX_ALLOC)
		return NULL;
	if (p == NULL)
		return hooks.alloc(size);
	return hooks.realloc(p, size);
}

void
ts_free(void *p)
{
	if (p)
		hooks.free(p);
}

char *
ts_strndup(const char *s, size_t n)
{
	char	   *r = ts_malloc(n + 1);

	if (r)
	{
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

char *
ts_strdup(const char *s)
{
	return s ? ts_strndup(s, strlen(s)) : NULL;
}

char *
ts_psprintf(const char *fmt,...)
{
	va_list		ap;
	int			n;
	char	   *r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	r = ts_malloc((size_t) n + 1);
	if (r == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(r, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return r;
}

void
ts_set_interrupt_hook(bool (*hook) (void))
{
	interrupt_hook = hook;
}

bool
ts_check_interrupts(ts_err *err)
{
	if (interrupt_hook && !interrupt_hook())
		return ts_error(err, TS_ERR_CANCELED, "canceling scan on request");
	return true;
}

void
ts_set_interrupt_pending_hook(bool (*hook) (void))
{
	pending_hook = hook;
}

bool
ts_interrupt_pending(void)
{
	return pending_hook != NULL && pending_hook();
}
