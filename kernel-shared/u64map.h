/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library's one hash table: u64 keys to u32 values (or no value, as a
 * set), open addressing with linear probing over a power-of-two array of
 * 16-byte slots, never more than half full.  The slot index is the top
 * bits of the key times 2^64 / phi (Fibonacci hashing), which spreads
 * block addresses (multiples of the node size), small tree ids and packed
 * pairs alike.
 *
 * Any u64 is a key (0 too).  A slot holds its value + 1, so 0 marks an
 * empty slot and values go up to UINT32_MAX - 1.  btrfs_u64map_insert()
 * keeps one entry per key; btrfs_u64map_add() adds another entry under a
 * key that may be there already, for callers whose key is a hash of
 * something longer (the entries under one key are then visited with
 * btrfs_u64map_next()).  Entries are never removed one by one; the map is
 * cleared or released whole.
 *
 * Lookups are inline: the accounting engine does one per tree pointer and
 * per back ref.
 */
#ifndef VOLCTL_KERNEL_SHARED_U64MAP_H
#define VOLCTL_KERNEL_SHARED_U64MAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

struct btrfs_u64map_slot {
	uint64_t key;
	uint32_t val1;		/* value + 1; 0: empty slot */
};

struct btrfs_u64map {
	struct btrfs_u64map_slot *slots;
	uint32_t size;		/* power of two, or 0 before the first insertion */
	uint32_t nr;		/* entries */
	unsigned int shift;	/* 64 - log2(size) */
};

/**
 * btrfs_u64map_init - empty map with room for @entries before it grows
 * Return: 0 or -ENOMEM.  A zeroed struct is an empty map too (the first
 * insertion allocates).
 */
int btrfs_u64map_init(struct btrfs_u64map *m, uint32_t entries);

/** btrfs_u64map_release - free the slots; the map is empty (and zeroed) */
void btrfs_u64map_release(struct btrfs_u64map *m);

/** btrfs_u64map_clear - forget every entry, keep the slots */
void btrfs_u64map_clear(struct btrfs_u64map *m);

/* Double the slots (rehashing); 0 or -ENOMEM. Called by the insertions. */
int btrfs_u64map_grow(struct btrfs_u64map *m);

static inline uint32_t btrfs_u64map_pos(const struct btrfs_u64map *m, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> m->shift);
}

/** btrfs_u64map_prefetch - start loading @key's first slot (before a batch of lookups) */
static inline void btrfs_u64map_prefetch(const struct btrfs_u64map *m, uint64_t key)
{
	if (m->size)
		__builtin_prefetch(&m->slots[btrfs_u64map_pos(m, key)]);
}

/**
 * btrfs_u64map_find_pos - the value of @key into *@val and its slot into
 * *@pos (stable until the map next changes: callers may keep data of their
 * own per slot, in an array of btrfs_u64map_slots() entries); false when absent
 */
static inline bool btrfs_u64map_find_pos(const struct btrfs_u64map *m, uint64_t key,
					 uint32_t *val, uint32_t *pos)
{
	uint32_t mask = m->size - 1, h;

	if (!m->nr)
		return false;
	for (h = btrfs_u64map_pos(m, key); m->slots[h].val1; h = (h + 1) & mask) {
		if (m->slots[h].key == key) {
			*val = m->slots[h].val1 - 1;
			*pos = h;
			return true;
		}
	}
	return false;
}

/** btrfs_u64map_slots - how many slots there are (the bound of a find_pos() slot) */
static inline uint32_t btrfs_u64map_slots(const struct btrfs_u64map *m)
{
	return m->size;
}

/** btrfs_u64map_find - the value of @key into *@val; false when absent */
static inline bool btrfs_u64map_find(const struct btrfs_u64map *m, uint64_t key, uint32_t *val)
{
	uint32_t mask = m->size - 1, h;

	if (!m->nr)
		return false;
	for (h = btrfs_u64map_pos(m, key); m->slots[h].val1; h = (h + 1) & mask) {
		if (m->slots[h].key == key) {
			if (val)
				*val = m->slots[h].val1 - 1;
			return true;
		}
	}
	return false;
}

/**
 * btrfs_u64map_insert - @key -> @val unless @key is there already
 * @old:	receives the value of an existing entry (may be NULL)
 *
 * Return: 0 inserted, 1 already there (map unchanged), -ENOMEM.
 */
static inline int btrfs_u64map_insert(struct btrfs_u64map *m, uint64_t key, uint32_t val,
				      uint32_t *old)
{
	uint32_t mask, h;

	if ((m->nr + 1) * 2 > m->size && btrfs_u64map_grow(m))
		return -ENOMEM;
	mask = m->size - 1;
	for (h = btrfs_u64map_pos(m, key); m->slots[h].val1; h = (h + 1) & mask) {
		if (m->slots[h].key == key) {
			if (old)
				*old = m->slots[h].val1 - 1;
			return 1;
		}
	}
	m->slots[h].key = key;
	m->slots[h].val1 = val + 1;
	m->nr++;
	return 0;
}

/** btrfs_u64map_add - one more entry @key -> @val, even if @key is there; 0 or -ENOMEM */
static inline int btrfs_u64map_add(struct btrfs_u64map *m, uint64_t key, uint32_t val)
{
	uint32_t mask, h;

	if ((m->nr + 1) * 2 > m->size && btrfs_u64map_grow(m))
		return -ENOMEM;
	mask = m->size - 1;
	for (h = btrfs_u64map_pos(m, key); m->slots[h].val1; h = (h + 1) & mask)
		;
	m->slots[h].key = key;
	m->slots[h].val1 = val + 1;
	m->nr++;
	return 0;
}

/*
 * Visiting every entry under @key:
 *
 *	uint32_t pos = btrfs_u64map_first(m, key), val;
 *
 *	while (btrfs_u64map_next(m, key, &pos, &val))
 *		...
 *
 * The map must not change during the visit.
 */
static inline uint32_t btrfs_u64map_first(const struct btrfs_u64map *m, uint64_t key)
{
	return m->nr ? btrfs_u64map_pos(m, key) : UINT32_MAX;
}

static inline bool btrfs_u64map_next(const struct btrfs_u64map *m, uint64_t key, uint32_t *pos,
				     uint32_t *val)
{
	uint32_t mask = m->size - 1;

	if (*pos == UINT32_MAX)
		return false;
	for (; m->slots[*pos].val1; *pos = (*pos + 1) & mask) {
		if (m->slots[*pos].key == key) {
			*val = m->slots[*pos].val1 - 1;
			*pos = (*pos + 1) & mask;
			return true;
		}
	}
	*pos = UINT32_MAX;
	return false;
}

#endif /* VOLCTL_KERNEL_SHARED_U64MAP_H */
