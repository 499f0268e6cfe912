/*
 * huge_block.c - fresh memory that is about to be filled, faulted in at
 * once and, when large, placed for transparent huge pages.
 *
 * Owns: ts_prefault (one madvise(MADV_POPULATE_WRITE) call instead of a
 * page fault per 4 KB) and ts_huge_block_alloc / ts_huge_block_free: a
 * block of 512 KB or more is rounded up to whole 2 MB pages, placed on a
 * 2 MB boundary inside an allocation 2 MB larger (whose start is kept in
 * the word before the block) and advised MADV_HUGEPAGE, which Linux honours
 * when transparent huge pages are "always" or "madvise".  Then a large
 * block takes one fault per 2 MB instead of 512.  On a virtual machine
 * that shadows the guest's page tables a 4 KB fault of fresh memory was
 * seen to cost 10-14 us even after MADV_POPULATE_WRITE: writing 16 MB of
 * fresh memory took 56-73 ms in 4 KB pages and 1-2 ms in huge pages.
 * A huge block is not faulted in ahead (its first touch takes a whole huge
 * page, and it is often not filled) unless transparent huge pages are off;
 * elsewhere, or where the calls fail, pages fault in as they are touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "base/ts_value.h"

#define HUGE_FROM ((size_t) 512 << 10)	/* smaller blocks stay in 4 KB pages */

void *
ts_prefault(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	const uintptr_t page = 4096;	/* a smaller range on larger pages is harmless */
	uintptr_t	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	uintptr_t	end = ((uintptr_t) p + size) & ~(page - 1);

	if (p != NULL && end > start)
		(void) madvise((void *) start, end - start, MADV_POPULATE_WRITE);
#else
	(void) size;
#endif
	return p;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/*
 * Whether MADV_HUGEPAGE gives huge pages here: transparent huge pages
 * "always" or "madvise", not "never" (read once per process).  Where they
 * are not, a huge block is faulted in with ts_prefault instead.
 */
static bool
huge_pages_honoured(void)
{
	static int	honoured = -1;

	if (honoured < 0)
	{
		FILE	   *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
		char		line[128] = "";

		honoured = f != NULL && fgets(line, sizeof(line), f) != NULL &&
			strstr(line, "[never]") == NULL;
		if (f != NULL)
			fclose(f);
	}
	return honoured == 1;
}
#endif

void *
ts_huge_block_alloc(size_t *size, void *(*alloc_fn) (size_t size))
{
	size_t		want = *size;
	char	   *raw;
	char	   *p;

	if (alloc_fn == NULL)
		alloc_fn = ts_malloc;
	if (want < HUGE_FROM)
	{
		/* small: 16 bytes in, the start kept before it all the same */
		if (want > SIZE_MAX - 16 || (raw = alloc_fn(want + 16)) == NULL)
			return NULL;
		p = raw + 16;
		((void **) p)[-1] = raw;
		return ts_prefault(p, want);
	}
	if (want > SIZE_MAX / 2)
		return NULL;
	want = (want + TS_HUGE_PAGE - 1) & ~(TS_HUGE_PAGE - 1);
	/* room for the boundary and the word before it, however raw is aligned */
	if ((raw = alloc_fn(want + TS_HUGE_PAGE + 16)) == NULL)
		return NULL;
	p = (char *) (((uintptr_t) raw + 16 + TS_HUGE_PAGE - 1) & ~(uintptr_t) (TS_HUGE_PAGE - 1));
	((void **) p)[-1] = raw;
	*size = want;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (madvise(p, want, MADV_HUGEPAGE) == 0 && huge_pages_honoured())
		return p;				/* a huge page faults in at once on first touch */
#endif
	return ts_prefault(p, want);
}

void
ts_huge_block_free(void *p, void (*free_fn) (void *p))
{
	if (p == NULL)
		return;
	if (free_fn == NULL)
		free_fn = ts_free;
	free_fn(((void **) p)[-1]);
}
