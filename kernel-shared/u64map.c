// SPDX-License-Identifier: GPL-2.0-only
/*
 * The u64 map's allocation and growth (see u64map.h; lookups and
 * insertions are inline there).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "u64map.h"

#define U64MAP_MIN_SIZE		16U
#define U64MAP_MAX_SIZE		(1U << 31)

static int set_size(struct btrfs_u64map *m, uint32_t size)
{
	struct btrfs_u64map_slot *slots = calloc(size, sizeof(*slots));
	struct btrfs_u64map bigger = { .slots = slots, .size = size, .shift = 64 };

	if (!slots)
		return -ENOMEM;
	for (uint32_t s = size; s > 1; s >>= 1)
		bigger.shift--;
	for (uint32_t i = 0; i < m->size; i++) {
		const struct btrfs_u64map_slot *e = &m->slots[i];
		uint32_t h;

		if (!e->val1)
			continue;
		for (h = btrfs_u64map_pos(&bigger, e->key); slots[h].val1; h = (h + 1) & (size - 1))
			;
		slots[h] = *e;
	}
	bigger.nr = m->nr;
	free(m->slots);
	*m = bigger;
	return 0;
}

int btrfs_u64map_init(struct btrfs_u64map *m, uint32_t entries)
{
	uint32_t size = U64MAP_MIN_SIZE;

	memset(m, 0, sizeof(*m));
	while (size < U64MAP_MAX_SIZE && size / 2 < entries)
		size *= 2;
	return set_size(m, size);
}

int btrfs_u64map_grow(struct btrfs_u64map *m)
{
	if (m->size >= U64MAP_MAX_SIZE)
		return -ENOMEM;
	return set_size(m, m->size ? m->size * 2 : U64MAP_MIN_SIZE);
}

void btrfs_u64map_clear(struct btrfs_u64map *m)
{
	if (m->slots)
		memset(m->slots, 0, (size_t)m->size * sizeof(*m->slots));
	m->nr = 0;
}

void btrfs_u64map_release(struct btrfs_u64map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
