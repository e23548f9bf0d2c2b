// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for kernel-shared/u64map.h: the one hash table of the library
 * (block tables, visited sets, the accounting engine's memo and set index).
 */
#include <stdlib.h>
#include "kernel-shared/u64map.h"
#include "unit.h"

/* Keys of the shapes the library uses: block addresses, tree ids, packed pairs */
static uint64_t key_of(uint32_t i)
{
	switch (i % 4) {
	case 0:
		return 30408704ULL + (uint64_t)i * 16384;	/* bytenrs of 16 KiB nodes */
	case 1:
		return 256 + i;					/* subvolume ids */
	case 2:
		return (uint64_t)(i + 1) << 32 | (i + 7);	/* a < b pairs of set ids */
	default:
		return -(uint64_t)i;				/* reloc tree ids, all high bits */
	}
}

static void test_insert_find(void)
{
	struct btrfs_u64map m = { 0 };
	const uint32_t n = 100000;
	uint32_t val, bad = 0, old = 0;

	CHECK(!btrfs_u64map_find(&m, 5, &val));		/* zeroed map: empty, no slots */
	for (uint32_t i = 0; i < n; i++)
		if (btrfs_u64map_insert(&m, key_of(i), i, NULL) != 0)
			bad++;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(m.nr, n);
	CHECK(m.nr * 2 <= m.size);				/* never more than half full */
	for (uint32_t i = 0; i < n; i++)
		if (!btrfs_u64map_find(&m, key_of(i), &val) || val != i)
			bad++;
	CHECK_EQ_U64(bad, 0);
	/* a key that is there keeps its value */
	CHECK(btrfs_u64map_insert(&m, key_of(77), 5, &old) == 1);
	CHECK_EQ_U64(old, 77);
	CHECK(btrfs_u64map_find(&m, key_of(77), &val) && val == 77);
	CHECK_EQ_U64(m.nr, n);
	/* absent keys, 0 among them */
	CHECK(!btrfs_u64map_find(&m, 0, &val));
	CHECK(!btrfs_u64map_find(&m, 30408704ULL + 1, &val));
	btrfs_u64map_release(&m);
	CHECK(m.slots == NULL && m.nr == 0);
}

static void test_zero_and_extremes(void)
{
	struct btrfs_u64map m;
	uint32_t val = 1;

	CHECK(btrfs_u64map_init(&m, 4) == 0);
	CHECK(btrfs_u64map_insert(&m, 0, 0, NULL) == 0);	/* key 0, value 0 */
	CHECK(btrfs_u64map_insert(&m, UINT64_MAX, UINT32_MAX - 1, NULL) == 0);
	CHECK(btrfs_u64map_find(&m, 0, &val) && val == 0);
	CHECK(btrfs_u64map_find(&m, UINT64_MAX, &val) && val == UINT32_MAX - 1);
	CHECK(btrfs_u64map_insert(&m, 0, 9, NULL) == 1);
	CHECK_EQ_U64(m.nr, 2);
	btrfs_u64map_clear(&m);
	CHECK_EQ_U64(m.nr, 0);
	CHECK(!btrfs_u64map_find(&m, 0, &val));
	CHECK(!btrfs_u64map_find(&m, UINT64_MAX, &val));
	CHECK(m.slots != NULL);					/* clear keeps the slots */
	CHECK(btrfs_u64map_insert(&m, 0, 3, NULL) == 0);
	CHECK(btrfs_u64map_find(&m, 0, &val) && val == 3);
	btrfs_u64map_release(&m);
}

/* Several entries under one key (a hash of something longer), visited in turn */
static void test_multi(void)
{
	struct btrfs_u64map m = { 0 };
	uint32_t pos, val, seen = 0, count = 0;

	for (uint32_t i = 0; i < 1000; i++)
		CHECK(btrfs_u64map_add(&m, i % 10 == 0 ? 42 : key_of(i), i) == 0);
	pos = btrfs_u64map_first(&m, 42);
	while (btrfs_u64map_next(&m, 42, &pos, &val)) {
		count++;
		if (val % 10 == 0 && !(seen & (1U << (val / 100))))
			seen |= 1U << (val / 100);
	}
	CHECK_EQ_U64(count, 100);
	CHECK_EQ_U64(seen, 0x3ff);			/* 0, 100, ... 900 among them */
	pos = btrfs_u64map_first(&m, 43);
	CHECK(!btrfs_u64map_next(&m, 43, &pos, &val));
	btrfs_u64map_release(&m);
	/* an empty map has nothing under any key */
	pos = btrfs_u64map_first(&m, 42);
	CHECK(!btrfs_u64map_next(&m, 42, &pos, &val));
}

int main(void)
{
	test_insert_find();
	test_zero_and_extremes();
	test_multi();
	return unit_finish();
}
