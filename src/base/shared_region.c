/*
 * shared_region.c - named, immutable blocks in memory shared by processes
 * (see ts_shared_region.h).
 *
 * Owns: the region's layout (a header, a directory of SHR_SLOTS slots, then
 * the blocks, each at a 64-byte boundary), first-fit placement between the
 * blocks in use, LRU eviction of unpinned published blocks, and each
 * process's record of what it pinned or reserved.
 *
 * A slot is free, being written (reserved by one process, invisible to
 * others) or published (read-only from then on).  Every directory change
 * happens under the caller's lock; a block is filled and read outside it.
 * A slot's generation changes each time it is reserved, so a stale pin is
 * told from a live one.  A process that dies without ts_shr_release_all
 * leaves its pins counted: its blocks then stay until the region is made
 * again (PostgreSQL makes shared memory again after a backend crash).
 */
#include <string.h>

#include "base/ts_shared_region.h"

#define SHR_MAGIC UINT64_C(0x3130524853535454)	/* "TTSSHR01" */
#define SHR_SLOTS 256
#define SHR_ALIGN 64
#define SHR_NAME_LEN 64

typedef enum
{
	SLOT_FREE = 0,
	SLOT_WRITING,
	SLOT_READY
} slot_state;

typedef struct shr_slot
{
	char		name[SHR_NAME_LEN + 1];
	uint8_t		state;
	uint32_t	gen;
	int32_t		pins;			/* over every process */
	uint64_t	offset;			/* from the region's start */
	uint64_t	size;			/* rounded to SHR_ALIGN */
	uint64_t	len;			/* as asked */
	uint64_t	last_used;
} shr_slot;

typedef struct shr_header
{
	uint64_t	magic;
	uint64_t	size;
	uint64_t	data_at;
	uint64_t	clock;
	int64_t		hits;
	int64_t		published;
	int64_t		evicted;
	int64_t		no_room;
	shr_slot	slots[SHR_SLOTS];
} shr_header;

#define ROUND_UP(n) (((n) + SHR_ALIGN - 1) & ~(uint64_t) (SHR_ALIGN - 1))

static shr_header *region;
static void (*region_lock) (void);
static void (*region_unlock) (void);

/* this process's share of each slot: pins held, reservation open */
static struct
{
	uint32_t	gen;
	int32_t		pins;
	bool		writing;
} mine[SHR_SLOTS];

size_t
ts_shr_region_size(size_t data_bytes)
{
	return ROUND_UP(sizeof(shr_header)) + ROUND_UP(data_bytes);
}

void
ts_shr_init(void *mem, size_t size)
{
	shr_header *h = mem;

	memset(h, 0, sizeof(*h));
	h->size = size;
	h->data_at = ROUND_UP(sizeof(shr_header));
	h->magic = SHR_MAGIC;
}

void
ts_shr_attach(void *mem, void (*lock) (void), void (*unlock) (void))
{
	shr_header *h = mem;

	memset(mine, 0, sizeof(mine));
	region = (h != NULL && h->magic == SHR_MAGIC && lock != NULL && unlock != NULL) ? h : NULL;
	region_lock = lock;
	region_unlock = unlock;
}

bool
ts_shr_attached(void)
{
	return region != NULL;
}

static bool
valid_name(const char *name)
{
	return name != NULL && strlen(name) == SHR_NAME_LEN;
}

static shr_slot *
find_named(const char *name)
{
	for (int i = 0; i < SHR_SLOTS; i++)
	{
		shr_slot   *s = &region->slots[i];

		if (s->state != SLOT_FREE && memcmp(s->name, name, SHR_NAME_LEN) == 0)
			return s;
	}
	return NULL;
}

const void *
ts_shr_get(const char *name, size_t *len, ts_shr_pin *pin)
{
	shr_slot   *s;
	const void *out = NULL;

	pin->slot = -1;
	if (region == NULL || !valid_name(name))
		return NULL;
	region_lock();
	s = find_named(name);
	if (s != NULL && s->state == SLOT_READY)
	{
		int			i = (int) (s - region->slots);

		s->pins++;
		s->last_used = ++region->clock;
		region->hits++;
		mine[i].gen = s->gen;
		mine[i].pins++;
		pin->slot = i;
		pin->gen = s->gen;
		*len = (size_t) s->len;
		out = (const char *) region + s->offset;
	}
	region_unlock();
	return out;
}

static int
cmp_offset(const shr_slot *a, const shr_slot *b)
{
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* A free stretch of size bytes between the blocks in use: its offset, or 0. */
static uint64_t
find_room(uint64_t size)
{
	const shr_slot *used[SHR_SLOTS];
	int			n = 0;
	uint64_t	at = region->data_at;

	/* the blocks in use, by offset (insertion sort: a few hundred at most) */
	for (int i = 0; i < SHR_SLOTS; i++)
	{
		const shr_slot *s = &region->slots[i];
		int			j = n++;

		if (s->state == SLOT_FREE)
		{
			n--;
			continue;
		}
		while (j > 0 && cmp_offset(used[j - 1], s) > 0)
		{
			used[j] = used[j - 1];
			j--;
		}
		used[j] = s;
	}
	for (int k = 0; k < n; k++)
	{
		if (used[k]->offset - at >= size)
			return at;
		at = used[k]->offset + used[k]->size;
	}
	return region->size - at >= size ? at : 0;
}

/* Bytes held by blocks that cannot be evicted now: pinned, or being written. */
static uint64_t
held_bytes(void)
{
	uint64_t	held = 0;

	for (int i = 0; i < SHR_SLOTS; i++)
	{
		const shr_slot *s = &region->slots[i];

		if (s->state == SLOT_WRITING || (s->state == SLOT_READY && s->pins > 0))
			held += s->size;
	}
	return held;
}

/* Free the least recently used published block nobody pins; false if none. */
static bool
evict_one(void)
{
	shr_slot   *victim = NULL;

	for (int i = 0; i < SHR_SLOTS; i++)
	{
		shr_slot   *s = &region->slots[i];

		if (s->state == SLOT_READY && s->pins == 0 &&
			(victim == NULL || s->last_used < victim->last_used))
			victim = s;
	}
	if (victim == NULL)
		return false;
	victim->state = SLOT_FREE;
	region->evicted++;
	return true;
}

void *
ts_shr_reserve(const char *name, size_t len, ts_shr_pin *pin)
{
	uint64_t	size = ROUND_UP((uint64_t) (len ? len : 1));
	uint64_t	at = 0;
	shr_slot   *slot = NULL;
	void	   *out = NULL;

	pin->slot = -1;
	if (region == NULL || !valid_name(name) || len > region->size)
		return NULL;
	region_lock();
	if (find_named(name) != NULL)
		goto done;
	/* too big even with every unpinned block gone: refused, nothing evicted for it */
	if (size > region->size - region->data_at - held_bytes())
	{
		region->no_room++;
		goto done;
	}
	for (;;)
	{
		slot = NULL;
		for (int i = 0; i < SHR_SLOTS && slot == NULL; i++)
			if (region->slots[i].state == SLOT_FREE)
				slot = &region->slots[i];
		if (slot != NULL && (at = find_room(size)) != 0)
			break;
		if (!evict_one())
		{
			slot = NULL;
			break;
		}
	}
	if (slot == NULL)
	{
		region->no_room++;
		goto done;
	}
	{
		int			i = (int) (slot - region->slots);

		memcpy(slot->name, name, SHR_NAME_LEN);
		slot->name[SHR_NAME_LEN] = '\0';
		slot->state = SLOT_WRITING;
		slot->gen++;
		slot->pins = 0;
		slot->offset = at;
		slot->size = size;
		slot->len = len;
		slot->last_used = ++region->clock;
		mine[i].gen = slot->gen;
		mine[i].pins = 0;
		mine[i].writing = true;
		pin->slot = i;
		pin->gen = slot->gen;
		out = (char *) region + at;
	}
done:
	region_unlock();
	return out;
}

/* the slot of a pin or reservation of this process, or NULL (stale, none) */
static shr_slot *
my_slot(ts_shr_pin pin)
{
	if (region == NULL || pin.slot < 0 || pin.slot >= SHR_SLOTS ||
		mine[pin.slot].gen != pin.gen || region->slots[pin.slot].gen != pin.gen)
		return NULL;
	return &region->slots[pin.slot];
}

void
ts_shr_publish(ts_shr_pin pin)
{
	shr_slot   *s = my_slot(pin);

	if (s == NULL || !mine[pin.slot].writing)
		return;
	region_lock();
	s->state = SLOT_READY;
	s->pins++;
	s->last_used = ++region->clock;
	region->published++;
	region_unlock();
	mine[pin.slot].writing = false;
	mine[pin.slot].pins++;
}

void
ts_shr_abandon(ts_shr_pin pin)
{
	shr_slot   *s = my_slot(pin);

	if (s == NULL || !mine[pin.slot].writing)
		return;
	region_lock();
	s->state = SLOT_FREE;
	region_unlock();
	mine[pin.slot].writing = false;
}

void
ts_shr_unpin(ts_shr_pin pin)
{
	shr_slot   *s = my_slot(pin);

	if (s == NULL || mine[pin.slot].pins <= 0)
		return;
	region_lock();
	s->pins--;
	region_unlock();
	mine[pin.slot].pins--;
}

void
ts_shr_release_all(void)
{
	if (region == NULL)
		return;
	region_lock();
	for (int i = 0; i < SHR_SLOTS; i++)
	{
		shr_slot   *s = &region->slots[i];

		if (s->gen != mine[i].gen)
			continue;
		if (mine[i].writing && s->state == SLOT_WRITING)
			s->state = SLOT_FREE;
		else if (mine[i].pins > 0 && s->state == SLOT_READY)
			s->pins -= mine[i].pins;
	}
	region_unlock();
	memset(mine, 0, sizeof(mine));
}

ts_shr_stats
ts_shr_get_stats(void)
{
	ts_shr_stats st = {0};

	if (region == NULL)
		return st;
	region_lock();
	st.hits = region->hits;
	st.published = region->published;
	st.evicted = region->evicted;
	st.no_room = region->no_room;
	st.bytes_size = (int64_t) (region->size - region->data_at);
	for (int i = 0; i < SHR_SLOTS; i++)
	{
		const shr_slot *s = &region->slots[i];

		if (s->state == SLOT_READY)
			st.blocks++;
		if (s->state == SLOT_READY && s->pins > 0)
			st.pinned++;
		if (s->state != SLOT_FREE)
			st.bytes_used += (int64_t) s->size;
	}
	region_unlock();
	return st;
}
