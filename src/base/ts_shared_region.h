/*
 * ts_shared_region.h - named, immutable blocks in memory that several
 * processes map at the same address (PostgreSQL's main shared memory).
 *
 * A writer reserves a block under a name, fills it, and publishes it; from
 * then on it never changes, and any process may pin it by name and read it
 * in place (pointers inside a block stay valid: every process maps the
 * region at one address).  A pinned block is never evicted; an unpinned
 * one goes, least recently used first, when a reservation needs the room.
 * Each process's pins and unfinished reservations are tracked by that
 * process, so ts_shr_release_all (at its exit) gives back exactly what it
 * held.  The caller supplies one lock that makes the region's directory
 * operations atomic; nothing is filled or read under it.
 */
#ifndef TS_SHARED_REGION_H
#define TS_SHARED_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ts_shr_pin
{
	int			slot;			/* -1: none */
	uint32_t	gen;
} ts_shr_pin;

typedef struct ts_shr_stats
{
	/* over every process since the region was made (a process's own: manifest_cache.h) */
	int64_t		hits;			/* pins by name */
	int64_t		published;
	int64_t		evicted;
	int64_t		no_room;		/* reservations refused: too big, or all pinned */
	int			blocks;			/* published now */
	int			pinned;			/* of those, pinned by some process now */
	int64_t		bytes_used;		/* of published and reserved blocks */
	int64_t		bytes_size;		/* room for blocks */
} ts_shr_stats;

/* Bytes a region needs to hold data_bytes of blocks besides its directory. */
size_t		ts_shr_region_size(size_t data_bytes);

/* Make an empty region in mem (size bytes, 64-aligned), once, before any attach. */
void		ts_shr_init(void *mem, size_t size);

/*
 * This process uses the region at mem (NULL: none, the calls below then
 * find and reserve nothing); lock / unlock guard its directory.
 */
void		ts_shr_attach(void *mem, void (*lock) (void), void (*unlock) (void));
bool		ts_shr_attached(void);

/* The published block named name (64 hex digits), pinned; NULL if none. */
const void *ts_shr_get(const char *name, size_t *len, ts_shr_pin *pin);

/*
 * Room for a block of len bytes named name, not visible to ts_shr_get
 * until ts_shr_publish (then pinned by this process); NULL when a block of
 * that name exists or is being written, or no room can be made.
 */
void	   *ts_shr_reserve(const char *name, size_t len, ts_shr_pin *pin);
void		ts_shr_publish(ts_shr_pin pin);
/* A reservation given up: its room is free again. */
void		ts_shr_abandon(ts_shr_pin pin);

void		ts_shr_unpin(ts_shr_pin pin);
/* Every pin and reservation of this process given back (at its exit). */
void		ts_shr_release_all(void);

ts_shr_stats ts_shr_get_stats(void);

#endif							/* TS_SHARED_REGION_H */
